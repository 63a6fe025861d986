/*
** profile_import.c — profile_import(source [, schema [, prefix]]): copies a capture into real
** tables, for SQLite clients that cannot load an extension (BI tools, plain sqlite3 builds).
**
**   ATTACH 'trace.db' AS t;
**   SELECT profile_import('trace.json', 't');   -- '{"events":1234,"metadata":17}'
**   -- later, in any SQLite client, no extension:  SELECT * FROM event_tree LIMIT 10;
**
** Creates in `schema` (default 'main'), replacing that prefix's earlier tables (a table or tree
** view of the prefix that this capture does not have is dropped, so a prefix holds one capture):
**   <prefix>events, <prefix>records, <prefix>jobs, <prefix>xplanes, <prefix>metadata
**   — whichever the capture has (jobs: a newengine report; records: a timings report; xplanes:
**   an XSpace; metadata: always) — with the columns and declared types of the profile_* tables
**   (the hidden source/format arguments left out), indexes on events(id), events(parent_id),
**   events(ts), events(name), records(record_id), records(parent_record_id), jobs(id); and the
**   tree views of sql/event_tree.sql / sql/record_tree.sql as ordinary views of that schema.
** All of it in one savepoint: a failed import (a bad capture, a full disk, an interrupt) leaves
** the previous tables as they were. Returns a JSON object: rows per table.
** Arguments: source as for the tables; schema an attached database name; prefix letters,
** digits and '_'. SQLITE_DIRECTONLY (it reads files and writes schema objects).
*/
#include "ps_vtab.h"
SQLITE_EXTENSION_INIT3

#include <string.h>
#include "sql_text.h"

typedef struct ImpTable { const char *zName, *zModule, *azIndex[4]; } ImpTable;
static const ImpTable aImp[] = {
  { "events",   "profile_events",   { "id", "parent_id", "ts", "name" } },
  { "records",  "profile_records",  { "record_id", "parent_record_id", 0 } },
  { "jobs",     "profile_jobs",     { "id", 0 } },
  { "xplanes",  "profile_xplanes",  { 0 } },
  { "metadata", "profile_metadata", { 0 } },
};

static int ident_ok(const char *z){
  if( z==0 || z[0]==0 ) return 0;
  for(; *z; z++){
    char c = *z;
    if( !((c>='a' && c<='z') || (c>='A' && c<='Z') || (c>='0' && c<='9') || c=='_') ) return 0;
  }
  return 1;
}

/* Runs zSql (sqlite3_malloc'ed, freed here) with ?1 bound to pSource; on error sets *pzErr. */
static int imp_exec(sqlite3 *db, char *zSql, sqlite3_value *pSource, char **pzErr){
  if( zSql==0 ) return SQLITE_NOMEM;
  const char *zTail = zSql;
  int rc = SQLITE_OK;
  while( rc==SQLITE_OK && zTail && zTail[0] ){
    sqlite3_stmt *st = 0;
    rc = sqlite3_prepare_v2(db, zTail, -1, &st, &zTail);
    if( rc==SQLITE_OK && st ){
      if( sqlite3_bind_parameter_count(st)>0 ) sqlite3_bind_value(st, 1, pSource);
      while( (rc = sqlite3_step(st))==SQLITE_ROW ){}
      if( rc==SQLITE_DONE ) rc = SQLITE_OK;
    }
    if( rc && *pzErr==0 ) *pzErr = sqlite3_mprintf("%s", sqlite3_errmsg(db));
    sqlite3_finalize(st);
  }
  sqlite3_free(zSql);
  return rc;
}

/* "CREATE TABLE s.pt(c1 T1, ...)" and the INSERT column list from the module's columns. */
static int imp_columns(sqlite3 *db, const char *zModule, sqlite3_str *pCreate, sqlite3_str *pCols){
  sqlite3_stmt *st = 0;
  char *z = sqlite3_mprintf("SELECT name, type FROM pragma_table_xinfo(%Q) WHERE hidden=0", zModule);
  if( z==0 ) return SQLITE_NOMEM;
  int rc = sqlite3_prepare_v2(db, z, -1, &st, 0);
  sqlite3_free(z);
  int n = 0;
  while( rc==SQLITE_OK && sqlite3_step(st)==SQLITE_ROW ){
    const char *zCol = (const char*)sqlite3_column_text(st, 0);
    const char *zType = (const char*)sqlite3_column_text(st, 1);
    sqlite3_str_appendf(pCreate, "%s\"%w\"%s%s", n ? ", " : "", zCol, zType && zType[0] ? " " : "", zType ? zType : "");
    sqlite3_str_appendf(pCols, "%s\"%w\"", n ? ", " : "", zCol);
    n++;
  }
  sqlite3_finalize(st);
  return rc ? rc : (n ? SQLITE_OK : SQLITE_ERROR);
}

/* The sql/ tree text turned into views of schema zSchema: TEMP views become zSchema's. */
static char *imp_tree_sql(const char *zSql, const char *zSchema, const char *zPrefix){
  char *zp = ps_sql_prefixed(zSql, zPrefix);
  if( zp==0 ) return 0;
  sqlite3_str *s = sqlite3_str_new(0);
  for(const char *p = zp; *p; ){
    if( strncmp(p, "DROP VIEW IF EXISTS temp.", 25)==0 ){
      sqlite3_str_appendf(s, "DROP VIEW IF EXISTS \"%w\".", zSchema); p += 25; continue;
    }
    if( strncmp(p, "CREATE TEMP VIEW ", 17)==0 ){
      sqlite3_str_appendf(s, "CREATE VIEW \"%w\".", zSchema); p += 17; continue;
    }
    sqlite3_str_appendchar(s, 1, *p++);
  }
  sqlite3_free(zp);
  return sqlite3_str_finish(s);
}

static void importFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  PsConn *pConn = sqlite3_user_data(ctx);
  sqlite3 *db = sqlite3_context_db_handle(ctx);
  const char *zSchema = argc>1 && sqlite3_value_type(argv[1])!=SQLITE_NULL ? (const char*)sqlite3_value_text(argv[1]) : "main";
  const char *zPrefix = argc>2 && sqlite3_value_type(argv[2])!=SQLITE_NULL ? (const char*)sqlite3_value_text(argv[2]) : "";
  if( !ident_ok(zSchema) ){ sqlite3_result_error(ctx, "profile_import: the schema must be a database name (letters, digits, '_')", -1); return; }
  if( zPrefix[0] && !ident_ok(zPrefix) ){ sqlite3_result_error(ctx, "profile_import: the prefix may hold only letters, digits and '_'", -1); return; }
  if( sqlite3_value_type(argv[0])==SQLITE_TEXT && pConn->bNoIo ){
    char *z = ps_noio_error("profile_import");
    sqlite3_result_error(ctx, z, -1); sqlite3_free(z); return;
  }
  /* which tables the capture has; loading it here makes a bad capture fail before anything
  ** is touched (and fills the cache the copies below read from) */
  static const char *const azHas[5] = {
    "SELECT EXISTS(SELECT 1 FROM profile_events(?1))",
    "SELECT EXISTS(SELECT 1 FROM profile_records(?1))",
    "SELECT EXISTS(SELECT 1 FROM profile_metadata(?1) WHERE scope='capture' AND key='format' AND value='newengine')",
    "SELECT EXISTS(SELECT 1 FROM profile_xplanes(?1))",
    "SELECT 1",
  };
  int aHas[5];
  char *zErr = 0;
  for(int k=0; k<5; k++){
    sqlite3_stmt *st = 0;
    int rc = sqlite3_prepare_v2(db, azHas[k], -1, &st, 0);
    if( rc==SQLITE_OK ){
      if( sqlite3_bind_parameter_count(st) ) sqlite3_bind_value(st, 1, argv[0]);
      rc = sqlite3_step(st);
      aHas[k] = rc==SQLITE_ROW && sqlite3_column_int(st, 0);
      if( rc==SQLITE_ROW ) rc = SQLITE_OK;
    }
    if( rc ){
      char *m = sqlite3_mprintf("%s", sqlite3_errmsg(db));
      sqlite3_finalize(st);
      if( m && strncmp(m, "profile_", 8)==0 ){
        /* "profile_events: x" -> "profile_import: x" */
        const char *c = strchr(m, ':');
        char *m2 = sqlite3_mprintf("profile_import%s", c ? c : "");
        sqlite3_free(m); m = m2;
      }else if( m ){
        /* SQLite's own "interrupted" (an interrupt between the statements): ours all the same */
        char *m2 = sqlite3_mprintf("profile_import: %s", m);
        sqlite3_free(m); m = m2;
      }
      sqlite3_result_error(ctx, m ? m : "profile_import: out of memory", -1);
      sqlite3_result_error_code(ctx, rc);
      sqlite3_free(m);
      return;
    }
    sqlite3_finalize(st);
  }
  int rc = imp_exec(db, sqlite3_mprintf("SAVEPOINT profsql_import"), argv[0], &zErr);
  /* the prefix's tables that this capture does not have go, with the tree views over them: a
  ** prefix holds one capture, never a mix of the previous one's and this one's tables */
  static const char *const azViews[2][4] = {
    { "event_tree", "event_ancestors", "event_descendants", "event_folded" },
    { "record_tree", "record_ancestors", "record_descendants", "record_folded" },
  };
  for(int k=0; k<2 && rc==SQLITE_OK; k++){
    for(int i=0; i<4 && !aHas[k] && rc==SQLITE_OK; i++){
      rc = imp_exec(db, sqlite3_mprintf("DROP VIEW IF EXISTS \"%w\".\"%w%w\"", zSchema, zPrefix, azViews[k][i]), argv[0], &zErr);
    }
  }
  for(int k=0; k<5 && rc==SQLITE_OK; k++){
    if( !aHas[k] ) rc = imp_exec(db, sqlite3_mprintf("DROP TABLE IF EXISTS \"%w\".\"%w%w\"", zSchema, zPrefix, aImp[k].zName), argv[0], &zErr);
  }
  sqlite3_str *pOut = sqlite3_str_new(0);
  sqlite3_str_appendchar(pOut, 1, '{');
  int nOut = 0;
  for(int k=0; k<5 && rc==SQLITE_OK; k++){
    if( !aHas[k] ) continue;
    const ImpTable *t = &aImp[k];
    sqlite3_str *pCreate = sqlite3_str_new(0), *pCols = sqlite3_str_new(0);
    rc = imp_columns(db, t->zModule, pCreate, pCols);
    char *zCreate = sqlite3_str_finish(pCreate), *zCols = sqlite3_str_finish(pCols);
    if( rc==SQLITE_OK ){
      rc = imp_exec(db, sqlite3_mprintf(
        "DROP TABLE IF EXISTS \"%w\".\"%w%w\";"
        "CREATE TABLE \"%w\".\"%w%w\"(%s);"
        "INSERT INTO \"%w\".\"%w%w\"(%s) SELECT %s FROM %s(?1);",
        zSchema, zPrefix, t->zName, zSchema, zPrefix, t->zName, zCreate,
        zSchema, zPrefix, t->zName, zCols, zCols, t->zModule), argv[0], &zErr);
    }else if( zErr==0 ){
      zErr = sqlite3_mprintf("cannot read the columns of %s", t->zModule);
    }
    sqlite3_free(zCreate); sqlite3_free(zCols);
    for(int i=0; i<4 && t->azIndex[i] && rc==SQLITE_OK; i++){
      rc = imp_exec(db, sqlite3_mprintf("CREATE INDEX \"%w\".\"%w%w_%w\" ON \"%w%w\"(\"%w\")",
                                        zSchema, zPrefix, t->zName, t->azIndex[i], zPrefix, t->zName, t->azIndex[i]),
                    argv[0], &zErr);
    }
    if( rc==SQLITE_OK ){
      sqlite3_stmt *st = 0;
      char *z = sqlite3_mprintf("SELECT count(*) FROM \"%w\".\"%w%w\"", zSchema, zPrefix, t->zName);
      if( z && sqlite3_prepare_v2(db, z, -1, &st, 0)==SQLITE_OK && sqlite3_step(st)==SQLITE_ROW ){
        sqlite3_str_appendf(pOut, "%s\"%w%w\":%lld", nOut++ ? "," : "", zPrefix, t->zName, sqlite3_column_int64(st, 0));
      }
      sqlite3_finalize(st); sqlite3_free(z);
    }
  }
  if( rc==SQLITE_OK && aHas[0] ) rc = imp_exec(db, imp_tree_sql(ps_sql_event_tree, zSchema, zPrefix), argv[0], &zErr);
  if( rc==SQLITE_OK && aHas[1] ) rc = imp_exec(db, imp_tree_sql(ps_sql_record_tree, zSchema, zPrefix), argv[0], &zErr);
  if( rc==SQLITE_OK ){
    rc = imp_exec(db, sqlite3_mprintf("RELEASE profsql_import"), argv[0], &zErr);
  }else{
    char *zIgnore = 0;
    imp_exec(db, sqlite3_mprintf("ROLLBACK TO profsql_import; RELEASE profsql_import"), argv[0], &zIgnore);
    sqlite3_free(zIgnore);
  }
  sqlite3_str_appendchar(pOut, 1, '}');
  char *zOut = sqlite3_str_finish(pOut);
  if( rc ){
    char *m = sqlite3_mprintf("profile_import: %s", zErr ? zErr : "failed");
    sqlite3_result_error(ctx, m, -1);
    if( rc==SQLITE_INTERRUPT || rc==SQLITE_NOMEM ) sqlite3_result_error_code(ctx, rc);
    sqlite3_free(m); sqlite3_free(zOut);
  }else{
    sqlite3_result_text(ctx, zOut, -1, sqlite3_free);
  }
  sqlite3_free(zErr);
}

int ps_import_register(sqlite3 *db, PsConn *pConn){
  return ps_register_conn_function(db, pConn, "profile_import", 1, 3, importFunc);
}
