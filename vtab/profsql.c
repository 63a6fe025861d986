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
**                                        {"loads":N,"hits":N,"cached":N,"cached_bytes":N,
**                                         "live":N,"live_peak":N} (live: captures in memory,
**                                         cached or held by a cursor; live_peak: most at once)
**   profsql_debug('hash_probes')         INTEGER: hash-table slots examined so far by this thread's
**                                        loads (ps_nProbe): bounded-work tests compare it across
**                                        inputs of one size (its value depends on the hash's key)
**   profsql_config(name [, value])       the limits (see configFunc)
**   profile_jobs, profile_report, profile_write_csv/_markdown, profile_zip, profile_fixed,
**   profile_import(source [, schema [, prefix]])  vtab/profile_import.c
**   profile_flamegraph(source, path [, options])  vtab/flamegraph.c
**   profile_diff, profile_sandwich       vtab/profile_diff.c, vtab/profile_sandwich.c
**   profile_training_rows(source [, format [, classes]])  vtab/profile_training_rows.c
**   profile_span_union(ts, dur)          vtab/span_union.c: the time a group's intervals cover
** sqlite3_profsql_noio_init registers the same without the file writers, for BLOB sources only.
** A static build (-DSQLITE_CORE) calls sqlite3_profsql_init(db, 0, 0) directly.
*/
#include "ps_vtab.h"
#include "profsql.h"          /* the public prototypes, checked against the definitions below */
SQLITE_EXTENSION_INIT1

#include "../ext/wire/json.h"
#include <string.h>

static void versionFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  (void)argc; (void)argv;
  sqlite3_result_text(ctx, PROFSQL_VERSION, -1, SQLITE_STATIC);
}

static void debugFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  PsConn *c = sqlite3_user_data(ctx);
  if( argc==1 ){
    const char *zKey = (const char*)sqlite3_value_text(argv[0]);
    if( zKey && strcmp(zKey, "hash_probes")==0 ){
      sqlite3_result_int64(ctx, (sqlite3_int64)ps_nProbe);
      return;
    }
    sqlite3_result_error(ctx, "profsql_debug: unknown key (known: hash_probes)", -1);
    return;
  }
  int n = 0; sqlite3_int64 nBytes = 0;
  for(PsCacheEntry *e=c->pFirst; e; e=e->pNext){
    n++;
    nBytes += (sqlite3_int64)ps_capture_memory(e->cap) + (sqlite3_int64)e->nBlob;
  }
  char *z = sqlite3_mprintf("{\"loads\":%llu,\"hits\":%llu,\"cached\":%d,\"cached_bytes\":%lld,"
                            "\"live\":%d,\"live_peak\":%d}",
                            (unsigned long long)c->nLoads, (unsigned long long)c->nHits, n, nBytes,
                            c->nLive, c->nLivePeak);
  if( z==0 ){ sqlite3_result_error_nomem(ctx); return; }
  sqlite3_result_text(ctx, z, -1, sqlite3_free);
}

/* profsql_config(name [, value]): reads or sets a limit; returns the value in force.
**   max_inflated_bytes  largest inflated gzip stream / ZIP member (default 16 GiB; 1 MiB..2^62)
**   cache_size          parsed captures kept per connection when no query uses them (default 4; 0..1000)
**   max_json_depth      deepest JSON nesting accepted (default and maximum 10000)
**   mmap                1 (default): plain files are memory-mapped (a file truncated by another
**                       process mid-query gives an error, ext/source/mapguard.c); 0: read into memory,
**                       so a running query keeps the bytes it loaded (captures loaded afterwards)
**   gzip_spill_bytes    a gzip capture whose stream inflates to this many bytes or more (by its
**                       trailer), or a ZIP capture's member (by its directory entry), is inflated into an unnamed temporary file (O_TMPFILE in
**                       $SQLITE_TMPDIR, $TMPDIR, /var/tmp, /usr/tmp or /tmp, the first that takes
**                       one) and mapped, instead of into memory: the parse releases the pages it
**                       has read, as it does a plain file's, so the process does not hold the
**                       inflated bytes beside the parsed columns (docs/loading.md). Default
**                       64 MiB; 0: never. 0 in a noio connection, where it can only be lowered.
**                       A full disk or no usable directory: the stream is inflated into memory.
**   max_parse_memory    bytes one load's own memory may hold at once: the copy of a BLOB, an
**                       inflated stream, the columns and tables its parse builds (not a mapped
**                       file's pages). Past it the load fails: "reading X needs more memory than
**                       max_parse_memory allows (N bytes; ...)". Default: half the machine's
**                       physical memory, at least 2 GiB; 2 GiB in a noio connection (a 522 KB
**                       gzip BLOB of folded stacks once built 7.6 GB). 1 MiB..2^62.
**   noio                1 when loaded with sqlite3_profsql_noio_init (read-only)
** Every setting belongs to this connection (PsConn): another connection, trusted or not, never
** sees it. In a noio connection (untrusted SQL) a setting can only be lowered: a value above
** the one in force is "profsql_config: 'x' can only be lowered in this connection (loaded with
** sqlite3_profsql_noio_init): N is above the current M". The setting is not the only bound on a
** BLOB's inflation: SQLITE_LIMIT_LENGTH of the connection is too (vtab/loader.c). */
/* The settable limits, with their ranges (noio is read-only and handled apart). */
static const struct { const char *zName; sqlite3_int64 lo, hi; } aSetting[] = {
  { "max_inflated_bytes", (sqlite3_int64)1 << 20, (sqlite3_int64)1 << 62 },
  { "cache_size",         0, 1000 },
  { "max_json_depth",     1, PS_JSON_MAX_DEPTH },
  { "mmap",               0, 1 },
  { "gzip_spill_bytes",   0, (sqlite3_int64)1 << 62 },
  { "max_parse_memory",   (sqlite3_int64)1 << 20, (sqlite3_int64)1 << 62 },
};
static sqlite3_int64 setting_get(const PsConn *c, int k){
  switch( k ){
    case 0: return (sqlite3_int64)c->maxInflated;
    case 1: return c->nCacheMax;
    case 2: return c->maxJsonDepth;
    case 3: return c->bMmap;
    case 5: return c->maxParseMemory;
    default: return (sqlite3_int64)c->nSpill;
  }
}
static void setting_set(PsConn *c, int k, sqlite3_int64 v){
  switch( k ){
    case 0: c->maxInflated = (uint64_t)v; break;
    case 1: c->nCacheMax = (int)v; break;
    case 2: c->maxJsonDepth = (int)v; break;
    case 3: c->bMmap = (int)v; break;
    case 5: c->maxParseMemory = v; break;
    default: c->nSpill = (uint64_t)v; break;
  }
}

static void configFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  PsConn *c = sqlite3_user_data(ctx);
  const char *zName = (const char*)sqlite3_value_text(argv[0]);
  if( zName==0 ){ sqlite3_result_error(ctx, "profsql_config: expected a setting name", -1); return; }
  int bSet = argc>1;
  sqlite3_int64 v = bSet ? sqlite3_value_int64(argv[1]) : 0;
  if( bSet && sqlite3_value_numeric_type(argv[1])!=SQLITE_INTEGER ){
    char *m = sqlite3_mprintf("profsql_config: the value of '%s' must be an integer", zName);
    sqlite3_result_error(ctx, m, -1); sqlite3_free(m); return;
  }
  int nSetting = (int)(sizeof(aSetting)/sizeof(aSetting[0])), k = 0;
  while( k<nSetting && strcmp(zName, aSetting[k].zName)!=0 ) k++;
  char *m = 0;
  if( k<nSetting ){
    if( bSet && c->bNoIo && v>setting_get(c, k) ){
      m = sqlite3_mprintf("profsql_config: '%s' can only be lowered in this connection (loaded with "
                          "sqlite3_profsql_noio_init): %lld is above the current %lld", zName, v, setting_get(c, k));
    }else if( !bSet || (v>=aSetting[k].lo && v<=aSetting[k].hi) ){
      if( bSet ) setting_set(c, k, v);
      sqlite3_result_int64(ctx, setting_get(c, k));
      return;
    }else{
      m = sqlite3_mprintf("profsql_config: '%s' must be between %lld and %lld", zName, aSetting[k].lo, aSetting[k].hi);
    }
  }else if( strcmp(zName, "noio")==0 ){
    if( !bSet ){ sqlite3_result_int(ctx, c->bNoIo); return; }
    m = sqlite3_mprintf("profsql_config: 'noio' is read-only (load with sqlite3_profsql_noio_init)");
  }else{
    sqlite3_str *pKnown = sqlite3_str_new(0);
    for(int i=0; i<nSetting; i++) sqlite3_str_appendf(pKnown, "%s, ", aSetting[i].zName);
    char *zKnown = sqlite3_str_finish(pKnown);
    m = sqlite3_mprintf("profsql_config: unknown setting '%s' (known: %snoio)", zName, zKnown ? zKnown : "");
    sqlite3_free(zKnown);
  }
  if( m==0 ){ sqlite3_result_error_nomem(ctx); return; }
  sqlite3_result_error(ctx, m, -1); sqlite3_free(m);
}

static int profsql_init(sqlite3 *db, const sqlite3_api_routines *pApi, int bNoIo){
  int rc;
#ifndef SQLITE_CORE
  /* the loadable build reaches SQLite only through pApi: a program that linked libprofsql.so and
  ** called an entry point itself with pApi 0 gets an error, not a NULL call (programs link
  ** libprofsql.a, built with SQLITE_CORE, where pApi is unused: vtab/profsql.h) */
  if( pApi==0 ) return SQLITE_MISUSE;
#endif
  SQLITE_EXTENSION_INIT2(pApi);
  /* ext/'s blocks from this SQLite's allocator, so that PRAGMA hard_heap_limit and
  ** sqlite3_memory_used() see a parse (ext/util/ps_util.h; the first SQLite library of the process
  ** to load libprofsql wins). Not in a single-threaded SQLite build (SQLITE_THREADSAFE=0): a
  ** split parse allocates from several threads, which its allocator's counters do not allow. */
  if( sqlite3_threadsafe() ){
    PsAllocator a = { sqlite3_malloc64, sqlite3_realloc64, sqlite3_free, sqlite3_msize };
    ps_set_allocator(&a);
  }
  PsConn *pConn = ps_conn_new();
  if( pConn==0 ) return SQLITE_NOMEM;
  pConn->nRef = 1;   /* held by this function until the registrations below take theirs */
  pConn->bNoIo = bNoIo;
  if( bNoIo ) pConn->nSpill = 0;     /* untrusted SQL does not make the process write files */
  if( bNoIo && pConn->maxParseMemory > PS_NOIO_PARSE_MEMORY ) pConn->maxParseMemory = PS_NOIO_PARSE_MEMORY;
  pConn->db = db;
  rc = sqlite3_create_function(db, "profsql_version", 0,
                               SQLITE_UTF8|SQLITE_DETERMINISTIC|SQLITE_INNOCUOUS, 0,
                               versionFunc, 0, 0);
  if( rc==SQLITE_OK ) rc = ps_register_conn_function(db, pConn, "profsql_debug", 0, 1, debugFunc);
  if( rc==SQLITE_OK ) rc = ps_register_conn_function(db, pConn, "profsql_config", 1, 2, configFunc);
  if( rc==SQLITE_OK ) rc = ps_events_register(db, pConn);
  if( rc==SQLITE_OK ) rc = ps_records_register(db, pConn);
  if( rc==SQLITE_OK ) rc = ps_xplanes_register(db, pConn);
  if( rc==SQLITE_OK ) rc = ps_metadata_register(db, pConn);
  if( rc==SQLITE_OK ) rc = ps_jobs_register(db, pConn);
  if( rc==SQLITE_OK ) rc = ps_tracks_register(db, pConn);
  if( rc==SQLITE_OK ) rc = ps_diff_register(db, pConn);
  if( rc==SQLITE_OK ) rc = ps_sandwich_register(db, pConn);
  if( rc==SQLITE_OK ) rc = ps_training_rows_register(db, pConn);
  if( rc==SQLITE_OK ) rc = ps_span_union_register(db);
  if( rc==SQLITE_OK ) rc = ps_perfetto_register(db, pConn);
  if( rc==SQLITE_OK ) rc = ps_open_register(db, pConn);
  if( rc==SQLITE_OK ) rc = ps_import_register(db, pConn);
  if( rc==SQLITE_OK && !bNoIo ) rc = ps_report_register(db, pConn);
  if( rc==SQLITE_OK && !bNoIo ) rc = ps_flamegraph_register(db, pConn);
  ps_conn_release(pConn);
  return rc;
}

#ifdef _WIN32
__declspec(dllexport)
#endif
int sqlite3_profsql_init(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi){
  (void)pzErrMsg;
  return profsql_init(db, pApi, 0);
}

/* The entry point for hosts that run untrusted SQL: `.load ./libprofsql sqlite3_profsql_noio_init`.
** Captures come only as BLOBs (a path argument is an error) and no function that writes files
** (profile_report, profile_write_*, profile_zip) is registered. */
#ifdef _WIN32
__declspec(dllexport)
#endif
int sqlite3_profsql_noio_init(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi){
  (void)pzErrMsg;
  return profsql_init(db, pApi, 1);
}
