/*
** profsql.c — the extension's entry point: registers libprofsql's functions and tables on a
** connection.
**
**   sqlite> .load ./libprofsql          -- SQLite derives sqlite3_profsql_init from the file name
**
** Registers
**   profile_events(source [, format])    vtab/profile_events.c
**   profile_records(source [, format])   vtab/profile_records.c
**   profile_xplanes(source [, format])   vtab/profile_xplanes.c
**   profile_metadata(source [, format])  vtab/profile_metadata.c
**   profile_open(source [, prefix])      vtab/profile_open.c: TEMP views + the sql/ tree views
**   profsql_version()                    TEXT: the library version (from the VERSION file)
**   profsql_debug()                      TEXT (JSON): cache statistics of this connection:
**                                        {"loads":N,"hits":N,"cached":N,"cached_bytes":N}
** A static build (-DSQLITE_CORE) calls sqlite3_profsql_init(db, 0, 0) directly.
*/
#include "profsql.h"
SQLITE_EXTENSION_INIT1

#include <string.h>

static void versionFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  (void)argc; (void)argv;
  sqlite3_result_text(ctx, PROFSQL_VERSION, -1, SQLITE_STATIC);
}

static void debugFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  (void)argc; (void)argv;
  PsConn *c = sqlite3_user_data(ctx);
  int n = 0; sqlite3_int64 nBytes = 0;
  for(PsCacheEntry *e=c->pFirst; e; e=e->pNext){
    n++;
    nBytes += (sqlite3_int64)ps_capture_memory(e->cap) + (sqlite3_int64)e->nBlob;
  }
  char *z = sqlite3_mprintf("{\"loads\":%llu,\"hits\":%llu,\"cached\":%d,\"cached_bytes\":%lld}",
                            (unsigned long long)c->nLoads, (unsigned long long)c->nHits, n, nBytes);
  if( z==0 ){ sqlite3_result_error_nomem(ctx); return; }
  sqlite3_result_text(ctx, z, -1, sqlite3_free);
}

#ifdef _WIN32
__declspec(dllexport)
#endif
int sqlite3_profsql_init(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi){
  int rc;
  (void)pzErrMsg;
  SQLITE_EXTENSION_INIT2(pApi);
  PsConn *pConn = ps_conn_new();
  if( pConn==0 ) return SQLITE_NOMEM;
  pConn->nRef = 1;   /* held by this function until the registrations below take theirs */
  rc = sqlite3_create_function(db, "profsql_version", 0,
                               SQLITE_UTF8|SQLITE_DETERMINISTIC|SQLITE_INNOCUOUS, 0,
                               versionFunc, 0, 0);
  if( rc==SQLITE_OK ){
    pConn->nRef++;
    rc = sqlite3_create_function_v2(db, "profsql_debug", 0, SQLITE_UTF8|SQLITE_DIRECTONLY, pConn,
                                    debugFunc, 0, 0, ps_conn_release);
  }
  if( rc==SQLITE_OK ) rc = ps_events_register(db, pConn);
  if( rc==SQLITE_OK ) rc = ps_records_register(db, pConn);
  if( rc==SQLITE_OK ) rc = ps_xplanes_register(db, pConn);
  if( rc==SQLITE_OK ) rc = ps_metadata_register(db, pConn);
  if( rc==SQLITE_OK ) rc = ps_jobs_register(db, pConn);
  if( rc==SQLITE_OK ) rc = ps_open_register(db, pConn);
  if( rc==SQLITE_OK ) rc = ps_report_register(db);
  ps_conn_release(pConn);
  return rc;
}
