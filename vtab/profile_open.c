/*
** profile_open.c — profile_open(source [, prefix]): one call that makes a capture look like a
** set of ordinary tables.
**
**   SELECT profile_open('trace.json');     -- '["events","records","metadata","event_tree",...]'
**   SELECT name, self_ns FROM event_tree ORDER BY self_ns DESC LIMIT 10;
**
** Creates (replacing earlier ones of the same name) TEMP views
**   <prefix>events    SELECT * FROM profile_events(source)
**   <prefix>records   SELECT * FROM profile_records(source)
**   <prefix>jobs      SELECT * FROM profile_jobs(source)
**   <prefix>xplanes   SELECT * FROM profile_xplanes(source)
**   <prefix>metadata  SELECT * FROM profile_metadata(source)
**   <prefix>tracks, <prefix>threads, <prefix>processes   the track model (profile_tracks.c)
**   <prefix>args      the events' arg sets: one row per leaf of an event's args (file, arg_set_id
**                     = the event id, id, flat_key, key, int_value, string_value, real_value,
**                     value_type, display_value), keyed as the Perfetto schema keys them
** and the tree views of sql/event_tree.sql (when the capture has events) and
** sql/record_tree.sql (when it has records), and xprof's statistics of sql/xprof_stats.sql
** (xprof_op_events, xprof_op_stats, xprof_kernel_stats, xprof_step_time: when the capture is an
** XSpace), and sql/stacks.sql (stack_functions, stack_folded: when the capture has call stacks),
** with the prefix in front of every view name. The
** SQL is the text of those files, compiled in at build time (build/sql_text.h, sql/embed.sh).
** and the timings viewer's figures of sql/timings.sql (when the capture is a timings report).
** Returns a JSON array of the view names created.
**
** A directory or glob source (several files) gets every view; the tree views keep files apart.
** Arguments: source as for the tables (a path, or a BLOB, which is kept in
** temp.profsql_sources so that the views can refer to it); prefix, optional, letters, digits
** and '_' only. Errors: those of loading the capture ("profile_open: cannot open ..."), a bad
** prefix, or a failing statement. SQLITE_DIRECTONLY: it reads files and creates schema objects.
*/
#include "ps_vtab.h"
SQLITE_EXTENSION_INIT3

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "sql_text.h"
#include "../ext/model/training.h"

/* The view names of the embedded SQL: each whole identifier gets the prefix. */
static const char *const azViewName[] = {
  "events", "records", "jobs", "xplanes", "metadata",
  "event_tree", "event_ancestors", "event_descendants", "event_folded",
  "record_tree", "record_ancestors", "record_descendants", "record_folded",
  "xprof_op_events", "xprof_op_stats", "xprof_kernel_stats", "xprof_step_time",
  "stack_functions", "stack_folded", "timings_summary", "timings_records", "timings_list",
  "gpu_kernel_classes", "gpu_kernels", "gpu_kernel_breakdown", "training_source",
  "gpu_temporal_breakdown", "comm_comp_overlap", "kernel_launch_stats", "training_steps", "step_stragglers",
  "gpu_idle_breakdown", "training_options", "training_rows", 0
};

/* Whether cap has device activities as a PyTorch profiler (Kineto) trace writes them: rows of a
** device category (ext/model/training.h, ps_training_device_cat: sql/training.sql's gpu_kernels). */
static int has_device_kernels(const PsCapture *cap){
  uint32_t last = UINT32_MAX;
  for(size_t r=0; r<cap->ev.n; r++){
    uint32_t id = cap->ev.aCat[r];
    if( id==last || id==0 ) continue;
    last = id;
    PsStr c = ps_pool_get(&cap->pool, id);
    if( ps_training_device_cat(c.z, c.n) ) return 1;
  }
  return 0;
}

static int is_ident(char c){
  return (c>='a' && c<='z') || (c>='A' && c<='Z') || (c>='0' && c<='9') || c=='_';
}

/* Copies zSql with zPrefix before every identifier listed in azViewName (outside string
** literals and comments). Returns sqlite3_malloc'ed text or NULL. (profile_import uses it too.) */
char *ps_sql_prefixed(const char *zSql, const char *zPrefix){
  sqlite3_str *s = sqlite3_str_new(0);
  size_t n = strlen(zSql), i = 0, nPre = strlen(zPrefix);
  while( i<n ){
    char c = zSql[i];
    if( c=='\'' ){
      size_t j = i+1;
      while( j<n && !(zSql[j]=='\'' && (j+1>=n || zSql[j+1]!='\'')) ) j += (zSql[j]=='\'') ? 2 : 1;
      if( j<n ) j++;
      sqlite3_str_append(s, zSql+i, (int)(j-i)); i = j; continue;
    }
    if( c=='-' && i+1<n && zSql[i+1]=='-' ){
      const char *e = strchr(zSql+i, '\n');
      size_t j = e ? (size_t)(e - zSql) : n;
      sqlite3_str_append(s, zSql+i, (int)(j-i)); i = j; continue;
    }
    if( is_ident(c) && (i==0 || !is_ident(zSql[i-1])) ){
      size_t j = i;
      while( j<n && is_ident(zSql[j]) ) j++;
      for(int k=0; azViewName[k] && nPre; k++){
        if( strlen(azViewName[k])==j-i && memcmp(azViewName[k], zSql+i, j-i)==0 ){
          sqlite3_str_appendall(s, zPrefix);
          break;
        }
      }
      sqlite3_str_append(s, zSql+i, (int)(j-i)); i = j; continue;
    }
    sqlite3_str_appendchar(s, 1, c);
    i++;
  }
  return sqlite3_str_finish(s);
}

static void openFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  PsConn *pConn = sqlite3_user_data(ctx);
  sqlite3 *db = sqlite3_context_db_handle(ctx);
  const char *zPrefix = "";
  if( argc>1 && sqlite3_value_type(argv[1])!=SQLITE_NULL ){
    zPrefix = (const char*)sqlite3_value_text(argv[1]);
    if( zPrefix==0 ){ sqlite3_result_error_nomem(ctx); return; }
    for(const char *p=zPrefix; *p; p++){
      if( !is_ident(*p) ){
        sqlite3_result_error(ctx, "profile_open: the prefix may hold only letters, digits and '_'", -1);
        return;
      }
    }
  }
  int bPerfetto = 0;
  if( argc>2 && sqlite3_value_type(argv[2])!=SQLITE_NULL ){
    const char *zSchema = (const char*)sqlite3_value_text(argv[2]);
    if( zSchema==0 ){ sqlite3_result_error_nomem(ctx); return; }
    if( strcmp(zSchema, "perfetto")==0 ) bPerfetto = 1;
    else if( strcmp(zSchema, "profsql")!=0 && zSchema[0] ){
      char *z = sqlite3_mprintf("profile_open: unknown schema '%s' (known: 'profsql', the default, and 'perfetto')", zSchema);
      sqlite3_result_error(ctx, z ? z : "profile_open: unknown schema", -1);
      sqlite3_free(z);
      return;
    }
  }
  char *zErr = 0;
  int bEvents = 1, bRecords = 1, bXSpace = 1, bStacks = 1, bTimings = 1, bKernels = 1;
  char zFormat[32] = "";
  struct stat st;
  const char *zPath = sqlite3_value_type(argv[0])==SQLITE_TEXT ? (const char*)sqlite3_value_text(argv[0]) : 0;
  if( zPath && pConn->bNoIo ){
    char *z = ps_noio_error("profile_open");
    sqlite3_result_error(ctx, z ? z : "profile_open: file paths are disabled", -1);
    sqlite3_free(z);
    return;
  }
  int bMulti = zPath && (stat(zPath, &st)==0 ? S_ISDIR(st.st_mode) : strpbrk(zPath, "*?[")!=0);
  if( bMulti && bPerfetto ){
    char *z = sqlite3_mprintf("profile_open: the Perfetto schema reads one capture, and '%s' names several "
                              "(a directory or glob): open each file with its own prefix", zPath);
    sqlite3_result_error(ctx, z ? z : "profile_open: the Perfetto schema reads one capture", -1);
    sqlite3_free(z);
    return;
  }
  if( !bMulti ){
    /* one capture: load it now (errors surface here) and create the trees it has */
    int rcLoad;
    PsCacheEntry *e = ps_vt_acquire(pConn, "profile_open", argv[0], 0, &zErr, &rcLoad);
    if( e==0 ){ ps_result_load_error(ctx, zErr, rcLoad); return; }
    bEvents = e->cap->ev.n>0; bRecords = e->cap->nRec>0;
    bXSpace = bEvents && e->cap->pFormat==&ps_format_xspace;
    bStacks = bRecords && e->cap->ev.aStack!=0;
    bTimings = bRecords && e->cap->pFormat==&ps_format_timings;
    bKernels = bEvents && (bXSpace || has_device_kernels(e->cap));
    /* the formats of the capture's rows: its own, and 'ftrace' for the ftrace text a Chrome
    ** trace or a systrace document carries (sql/perfetto.sql keeps the lines of each) */
    snprintf(zFormat, sizeof(zFormat), "%s%s", e->cap->pFormat->zName, e->cap->bFtrace ? " ftrace" : "");
    ps_vt_release(e);
  }

  char *zSrc = 0;
  int rc = SQLITE_OK;
  if( sqlite3_value_type(argv[0])==SQLITE_BLOB ){
    /* the views refer to the bytes through a TEMP table row named by the prefix */
    rc = sqlite3_exec(db, "CREATE TEMP TABLE IF NOT EXISTS profsql_sources(name TEXT PRIMARY KEY, data BLOB)", 0, 0, 0);
    if( rc==SQLITE_OK ){
      sqlite3_stmt *st = 0;
      rc = sqlite3_prepare_v2(db, "INSERT OR REPLACE INTO temp.profsql_sources(name, data) VALUES (?1, ?2)", -1, &st, 0);
      if( rc==SQLITE_OK ){
        sqlite3_bind_text(st, 1, zPrefix, -1, SQLITE_TRANSIENT);
        sqlite3_bind_value(st, 2, argv[0]);
        rc = sqlite3_step(st)==SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
        sqlite3_finalize(st);
      }
    }
    zSrc = sqlite3_mprintf("(SELECT data FROM temp.profsql_sources WHERE name = %Q)", zPrefix);
  }else{
    zSrc = sqlite3_mprintf("%Q", (const char*)sqlite3_value_text(argv[0]));
  }
  sqlite3_str *pOut = sqlite3_str_new(0);
  sqlite3_str_appendchar(pOut, 1, '[');
  int nOut = 0;
  /* the tables; in the Perfetto schema 'metadata' is trace_processor's, and profile_metadata is
  ** read as <prefix>_pf_meta */
  static const char *const azTable[8][2] = {
    {"events", "profile_events"}, {"records", "profile_records"}, {"jobs", "profile_jobs"},
    {"xplanes", "profile_xplanes"}, {"metadata", "profile_metadata"}, {"tracks", "profile_tracks"},
    {"threads", "profile_threads"}, {"processes", "profile_processes"}
  };
  for(int k=0; k<8 && rc==SQLITE_OK && zSrc; k++){
    if( bPerfetto && k==4 ){
      /* (and the jobs with their row numbers, for the ids of their slices) */
      char *z = sqlite3_mprintf("DROP VIEW IF EXISTS temp.\"%w_pf_meta\"; CREATE TEMP VIEW \"%w_pf_meta\" AS "
                                "SELECT * FROM profile_metadata(%s);"
                                "DROP VIEW IF EXISTS temp.\"%w_pf_jobs\"; CREATE TEMP VIEW \"%w_pf_jobs\" AS "
                                "SELECT rowid AS job_row, * FROM profile_jobs(%s);",
                                zPrefix, zPrefix, zSrc, zPrefix, zPrefix, zSrc);
      rc = z ? sqlite3_exec(db, z, 0, 0, &zErr) : SQLITE_NOMEM;
      sqlite3_free(z);
      continue;
    }
    char *z = sqlite3_mprintf("DROP VIEW IF EXISTS temp.\"%w%w\"; CREATE TEMP VIEW \"%w%w\" AS SELECT * FROM %s(%s);",
                              zPrefix, azTable[k][0], zPrefix, azTable[k][0], azTable[k][1], zSrc);
    rc = z ? sqlite3_exec(db, z, 0, 0, &zErr) : SQLITE_NOMEM;
    sqlite3_free(z);
    if( rc==SQLITE_OK ){
      sqlite3_str_appendf(pOut, "%s\"%s%s\"", nOut++ ? "," : "", zPrefix, azTable[k][0]);
    }
  }
  /* <prefix>args: the events' arg sets, one row per leaf of an event's args (as the Perfetto
  ** schema's args, whose view of that name takes its place there) */
  if( !bPerfetto && rc==SQLITE_OK && zSrc ){
    char *z = sqlite3_mprintf(
      "DROP VIEW IF EXISTS temp.\"%w%s\"; CREATE TEMP VIEW \"%w%s\" AS "
      "SELECT e.file AS file, e.id AS arg_set_id, j.id AS id, profsql_arg_key(j.fullkey, 1) AS flat_key, "
      "profsql_arg_key(j.fullkey, 0) AS key, "
      "CASE WHEN j.type IN ('integer', 'true', 'false') THEN j.value END AS int_value, "
      "CASE WHEN j.type = 'text' THEN j.value END AS string_value, "
      "CASE WHEN j.type = 'real' THEN j.value END AS real_value, "
      "CASE j.type WHEN 'integer' THEN 'int' WHEN 'real' THEN 'real' WHEN 'text' THEN 'string' ELSE 'bool' END AS value_type, "
      "CASE j.type WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' ELSE CAST(j.value AS TEXT) END AS display_value "
      "FROM profile_events(%s) e, json_tree(CASE WHEN json_valid(e.args) THEN e.args END) j "
      "WHERE j.type NOT IN ('null', 'object', 'array');",
      zPrefix, "args", zPrefix, "args", zSrc);
    rc = z ? sqlite3_exec(db, z, 0, 0, &zErr) : SQLITE_NOMEM;
    sqlite3_free(z);
    if( rc==SQLITE_OK ) sqlite3_str_appendf(pOut, ",\"%sargs\"", zPrefix);
  }
  /* bWhen: 0 a capture with events, 1 with records, 2 an XSpace, 3 with call stacks, 4 a timings
  ** report, 5 with device kernels (a directory or glob: always) */
  static const struct { const char *zSql; const char *azViews[12]; int bWhen; } aTree[] = {
    { ps_sql_event_tree, {"event_tree", "event_ancestors", "event_descendants", "event_folded"}, 0 },
    { ps_sql_record_tree, {"record_tree", "record_ancestors", "record_descendants", "record_folded"}, 1 },
    { ps_sql_xprof_stats, {"xprof_op_events", "xprof_op_stats", "xprof_kernel_stats", "xprof_step_time"}, 2 },
    { ps_sql_stacks, {"stack_functions", "stack_folded", 0, 0}, 3 },
    { ps_sql_timings, {"timings_summary", "timings_records", "timings_list", 0}, 4 },
    { ps_sql_training, {"gpu_kernel_classes", "gpu_kernels", "gpu_kernel_breakdown", "gpu_temporal_breakdown",
                        "comm_comp_overlap", "kernel_launch_stats", "training_steps", "step_stragglers",
                        "gpu_idle_breakdown", "training_options", "training_rows", "training_source"}, 5 },
  };
  for(int k=0; k<6 && rc==SQLITE_OK && zSrc; k++){
    int w = aTree[k].bWhen;
    if( w==0 ? !bEvents : w==1 ? !bRecords : w==2 ? !bXSpace : w==3 ? !bStacks : w==4 ? !bTimings : !bKernels ) continue;
    if( w==5 ){
      /* the source sql/training.sql reads (its training_rows: profile_training_rows of it) */
      char *zT = sqlite3_mprintf("DROP VIEW IF EXISTS temp.\"%wtraining_source\"; CREATE TEMP VIEW \"%wtraining_source\" AS "
                                 "SELECT %s AS source;", zPrefix, zPrefix, zSrc);
      rc = zT ? sqlite3_exec(db, zT, 0, 0, &zErr) : SQLITE_NOMEM;
      sqlite3_free(zT);
      if( rc ) break;
    }
    char *z = ps_sql_prefixed(aTree[k].zSql, zPrefix);
    rc = z ? sqlite3_exec(db, z, 0, 0, &zErr) : SQLITE_NOMEM;
    sqlite3_free(z);
    for(int v=0; v<12 && rc==SQLITE_OK && aTree[k].azViews[v]; v++){
      sqlite3_str_appendf(pOut, ",\"%s%s\"", zPrefix, aTree[k].azViews[v]);
    }
  }
  if( bPerfetto && rc==SQLITE_OK && zSrc ) rc = ps_perfetto_create(db, ps_sql_perfetto, zPrefix, zFormat, pOut, &zErr);
  sqlite3_str_appendchar(pOut, 1, ']');
  char *zJson = sqlite3_str_finish(pOut);
  if( zSrc==0 ) rc = SQLITE_NOMEM;
  if( rc!=SQLITE_OK ){
    char *zMsg = sqlite3_mprintf("profile_open: %s", zErr ? zErr : sqlite3_errstr(rc));
    sqlite3_result_error(ctx, zMsg ? zMsg : "profile_open: out of memory", -1);
    sqlite3_free(zMsg);
    sqlite3_free(zJson);
  }else if( zJson==0 ){
    sqlite3_result_error_nomem(ctx);
  }else{
    sqlite3_result_text(ctx, zJson, -1, sqlite3_free);
  }
  sqlite3_free(zErr);
  sqlite3_free(zSrc);
}

int ps_open_register(sqlite3 *db, PsConn *pConn){
  return ps_register_conn_function(db, pConn, "profile_open", 1, 3, openFunc);
}
