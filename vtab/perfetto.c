/*
** perfetto.c — what Perfetto trace_processor's schema needs beyond views (sql/perfetto.sql):
** SQL functions, and the views' creation for profile_open(source, prefix, 'perfetto').
**
** Functions (deterministic, innocuous: they read no file)
**   profsql_arg_key(fullkey, flat)   the args key trace_processor gives a leaf that SQLite's
**       json_tree() names fullkey: '$.a."b.c"[2].d' -> 'args.a.b.c[2].d', or with flat = 1 (its
**       flat_key, array indexes left out) 'args.a.b.c.d'. NULL for NULL.
**   profsql_number(text)   the REAL a counter's string value stands for when the whole string is
**       a decimal number (optional sign, digits with an optional '.', at least one digit, an
**       optional exponent): '.75' -> 0.75, '246.' -> 246, '+10.5' -> 10.5; NULL for '1.5e', '.',
**       '+', '' and anything else (trace_processor's StringToDouble rule for 'C' args).
**   <prefix>extract_arg(arg_set_id, key)   created by profile_open(source, prefix, 'perfetto'):
**       the value (int, string or real) of key in that arg set of <prefix>args, NULL when none;
**       trace_processor's extract_arg. SQLITE_DIRECTONLY: it reads the capture through the views.
*/
#include "ps_vtab.h"
SQLITE_EXTENSION_INIT3

#include <stdlib.h>
#include <string.h>

/* '$.a."b.c"[2]' -> 'args.a.b.c[2]' (flat: without [2]) */
static void argKeyFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  (void)argc;
  const char *z = (const char*)sqlite3_value_text(argv[0]);
  if( z==0 ) return;
  int bFlat = sqlite3_value_int(argv[1])!=0;
  size_t n = strlen(z), i = 0;
  sqlite3_str *s = sqlite3_str_new(sqlite3_context_db_handle(ctx));
  sqlite3_str_appendall(s, "args");
  if( i<n && z[i]=='$' ) i++;
  while( i<n ){
    if( z[i]=='.' ){
      i++;
      sqlite3_str_appendchar(s, 1, '.');
      if( i<n && z[i]=='"' ){
        /* a quoted label: json_tree quotes labels that are not plain identifiers; the label
        ** itself may hold '"' only escaped, which SQLite does not do, so the next '"' ends it */
        size_t j = i+1;
        while( j<n && z[j]!='"' ) j++;
        sqlite3_str_append(s, z+i+1, (int)(j-i-1));
        i = j<n ? j+1 : n;
      }else{
        size_t j = i;
        while( j<n && z[j]!='.' && z[j]!='[' ) j++;
        sqlite3_str_append(s, z+i, (int)(j-i));
        i = j;
      }
    }else if( z[i]=='[' ){
      size_t j = i;
      while( j<n && z[j]!=']' ) j++;
      if( j<n ) j++;
      if( !bFlat ) sqlite3_str_append(s, z+i, (int)(j-i));
      i = j;
    }else{
      sqlite3_str_appendchar(s, 1, z[i]);
      i++;
    }
  }
  int rc = sqlite3_str_errcode(s);
  char *zOut = sqlite3_str_finish(s);
  if( rc || zOut==0 ){ sqlite3_free(zOut); sqlite3_result_error_nomem(ctx); return; }
  sqlite3_result_text(ctx, zOut, -1, sqlite3_free);
}

/* Whether z is a whole decimal number: [+-]? (d+ ('.' d*)? | '.' d+) ([eE] [+-]? d+)? */
static int is_number(const char *z, size_t n){
  size_t i = 0, nDig = 0;
  if( i<n && (z[i]=='+' || z[i]=='-') ) i++;
  while( i<n && z[i]>='0' && z[i]<='9' ){ i++; nDig++; }
  if( i<n && z[i]=='.' ){
    i++;
    while( i<n && z[i]>='0' && z[i]<='9' ){ i++; nDig++; }
  }
  if( nDig==0 ) return 0;
  if( i<n && (z[i]=='e' || z[i]=='E') ){
    i++;
    if( i<n && (z[i]=='+' || z[i]=='-') ) i++;
    size_t e0 = i;
    while( i<n && z[i]>='0' && z[i]<='9' ) i++;
    if( i==e0 ) return 0;
  }
  return i==n;
}

static void numberFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  (void)argc;
  int t = sqlite3_value_type(argv[0]);
  if( t==SQLITE_INTEGER || t==SQLITE_FLOAT ){ sqlite3_result_double(ctx, sqlite3_value_double(argv[0])); return; }
  if( t!=SQLITE_TEXT ) return;
  const char *z = (const char*)sqlite3_value_text(argv[0]);
  int n = sqlite3_value_bytes(argv[0]);
  if( z==0 || !is_number(z, (size_t)n) ) return;
  /* SQLite's own (locale-independent) reading of a number it has been shown to be whole */
  if( sqlite3_value_numeric_type(argv[0])==SQLITE_TEXT ) return;
  sqlite3_result_double(ctx, sqlite3_value_double(argv[0]));
}

/* <prefix>extract_arg(arg_set_id, key): user data = the args view's quoted name. */
static void extractArgFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  (void)argc;
  if( sqlite3_value_type(argv[0])==SQLITE_NULL || sqlite3_value_type(argv[1])==SQLITE_NULL ) return;
  const char *zArgs = sqlite3_user_data(ctx);
  sqlite3 *db = sqlite3_context_db_handle(ctx);
  char *zSql = sqlite3_mprintf("SELECT coalesce(int_value, string_value, real_value) FROM %s "
                               "WHERE arg_set_id = ?1 AND key = ?2 ORDER BY id LIMIT 1", zArgs);
  if( zSql==0 ){ sqlite3_result_error_nomem(ctx); return; }
  sqlite3_stmt *st = 0;
  int rc = sqlite3_prepare_v2(db, zSql, -1, &st, 0);
  sqlite3_free(zSql);
  if( rc==SQLITE_OK ){
    sqlite3_bind_value(st, 1, argv[0]);
    sqlite3_bind_value(st, 2, argv[1]);
    rc = sqlite3_step(st);
    if( rc==SQLITE_ROW ){ sqlite3_result_value(ctx, sqlite3_column_value(st, 0)); rc = SQLITE_OK; }
    else if( rc==SQLITE_DONE ) rc = SQLITE_OK;
  }
  if( rc!=SQLITE_OK ){
    char *zErr = sqlite3_mprintf("extract_arg: %s", sqlite3_errmsg(db));
    sqlite3_result_error(ctx, zErr ? zErr : "extract_arg: out of memory", -1);
    sqlite3_free(zErr);
  }
  sqlite3_finalize(st);
}

/* Replaces each "$P" of zSql with zPrefix, and puts "DROP VIEW IF EXISTS temp.<name>;" before
** each "CREATE TEMP VIEW <name>" (a second profile_open replaces the views). Appends each public
** view's name (not those starting with '_pf_') to pNames as ,"name". sqlite3_malloc'ed. */
static char *perfetto_sql(const char *zSql, const char *zPrefix, const char *zFormat, sqlite3_str *pNames,
                          sqlite3_str *pList){
  sqlite3_str *s = sqlite3_str_new(0);
  size_t nFormat = strlen(zFormat);
  static const char zCreate[] = "CREATE TEMP VIEW $P";
  const size_t nCreate = sizeof(zCreate)-1;
  for(const char *p=zSql; *p; ){
    if( (p==zSql || p[-1]=='\n') && strncmp(p, "--@", 3)==0 ){
      /* a line for one format: kept, without its marker, when the capture has rows of that
      ** format (zFormat: the names, space-separated) */
      const char *q = p+3;
      size_t n = 0;
      while( q[n] && q[n]!=' ' && q[n]!='\n' ) n++;
      int bKeep = 0;
      for(size_t i=0; i<nFormat && !bKeep; ){
        size_t j = i;
        while( j<nFormat && zFormat[j]!=' ' ) j++;
        bKeep = j-i==n && memcmp(zFormat+i, q, n)==0;
        i = j+1;
      }
      if( bKeep ){ p = q + n + (q[n]==' '); continue; }
      const char *e = strchr(p, '\n');
      p = e ? e+1 : p + strlen(p);
      continue;
    }
    if( strncmp(p, zCreate, nCreate)==0 ){
      const char *q = p + nCreate;
      size_t n = 0;
      while( (q[n]>='a' && q[n]<='z') || (q[n]>='A' && q[n]<='Z') || (q[n]>='0' && q[n]<='9') || q[n]=='_' ) n++;
      sqlite3_str_appendf(s, "DROP VIEW IF EXISTS temp.\"%w%.*s\";\n", zPrefix, (int)n, q);
      if( pList ) sqlite3_str_appendf(pList, "%s'%q%.*s'", sqlite3_str_length(pList) ? "," : "", zPrefix, (int)n, q);
      if( pNames && !(n>=4 && memcmp(q, "_pf_", 4)==0) ){
        sqlite3_str_appendf(pNames, ",\"%s%.*s\"", zPrefix, (int)n, q);
      }
    }
    if( p[0]=='$' && p[1]=='P' ){ sqlite3_str_appendall(s, zPrefix); p += 2; continue; }
    sqlite3_str_appendchar(s, 1, *p);
    p++;
  }
  return sqlite3_str_finish(s);
}

int ps_perfetto_create(sqlite3 *db, const char *zSql, const char *zPrefix, const char *zFormat,
                       sqlite3_str *pNames, char **pzErr){
  /* one pass makes the SQL and the list of the names it creates; a prefix whose names TEMP
  ** objects that are not views hold is refused, by name, before anything is replaced */
  sqlite3_str *pList = sqlite3_str_new(0);
  sqlite3_str *pMine = sqlite3_str_new(0);
  char *z = perfetto_sql(zSql, zPrefix, zFormat, pMine, pList);
  char *zList = sqlite3_str_finish(pList);
  char *zNames = sqlite3_str_finish(pMine);
  if( z==0 || zList==0 || zNames==0 ){ sqlite3_free(z); sqlite3_free(zList); sqlite3_free(zNames); return SQLITE_NOMEM; }
  char *zCheck = sqlite3_mprintf("SELECT type, name FROM temp.sqlite_master WHERE type <> 'view' AND name IN (%s) "
                                 "ORDER BY name LIMIT 1", zList);
  sqlite3_free(zList);
  sqlite3_stmt *st = 0;
  int rc = zCheck ? sqlite3_prepare_v2(db, zCheck, -1, &st, 0) : SQLITE_NOMEM;
  sqlite3_free(zCheck);
  if( rc==SQLITE_OK && sqlite3_step(st)==SQLITE_ROW ){
    *pzErr = sqlite3_mprintf("the prefix '%s' clashes with TEMP %s '%s' (the Perfetto views would replace it): "
                             "choose another prefix", zPrefix, (const char*)sqlite3_column_text(st, 0),
                             (const char*)sqlite3_column_text(st, 1));
    rc = SQLITE_ERROR;
  }
  sqlite3_finalize(st);
  if( rc==SQLITE_OK ) rc = sqlite3_exec(db, z, 0, 0, pzErr);
  if( rc==SQLITE_OK ) sqlite3_str_appendall(pNames, zNames);
  sqlite3_free(z);
  sqlite3_free(zNames);
  if( rc!=SQLITE_OK ) return rc;
  /* <prefix>extract_arg, once per prefix: it names the view, which a second profile_open replaces
  ** in place (and SQLite refuses to redefine a function while a statement runs: this one) */
  char *zName = sqlite3_mprintf("%sextract_arg", zPrefix);
  if( zName==0 ) return SQLITE_NOMEM;
  rc = sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_function_list WHERE name = lower(?1) AND narg = 2", -1, &st, 0);
  int bExists = 0;
  if( rc==SQLITE_OK ){
    sqlite3_bind_text(st, 1, zName, -1, SQLITE_STATIC);
    bExists = sqlite3_step(st)==SQLITE_ROW;
    rc = sqlite3_finalize(st);
  }
  if( rc==SQLITE_OK && !bExists ){
    char *zArgs = sqlite3_mprintf("temp.\"%w%s\"", zPrefix, "args");
    if( zArgs==0 ){ sqlite3_free(zName); return SQLITE_NOMEM; }
    rc = sqlite3_create_function_v2(db, zName, 2, SQLITE_UTF8|SQLITE_DIRECTONLY, zArgs, extractArgFunc, 0, 0, sqlite3_free);
  }
  sqlite3_free(zName);
  return rc;
}

int ps_perfetto_register(sqlite3 *db, PsConn *pConn){
  (void)pConn;
  int f = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
  int rc = sqlite3_create_function(db, "profsql_arg_key", 2, f, 0, argKeyFunc, 0, 0);
  if( rc==SQLITE_OK ) rc = sqlite3_create_function(db, "profsql_number", 1, f, 0, numberFunc, 0, 0);
  return rc;
}
