/*
** report.c — the report writers, as SQL functions:
**
**   profile_fixed(x, n)                 TEXT: x with n decimals exactly as C's "%.*f" (the digits
**                                       Rust's "{:.n}" gives; SQLite's printf keeps only ~16
**                                       significant digits); NULL for NULL. INNOCUOUS.
**   profile_write_csv(path, query)      runs query, writes its rows as CSV (RFC 4180: header of
**                                       the column names, a cell quoted only when it holds , " or
**                                       a line break; NULL is empty); returns the row count
**   profile_write_markdown(path, query) the same as a GitHub-flavoured Markdown table
**   profile_zip(zip_path, file, ...)    archives the files (deflate, zlib's minizip) under their
**                                       base names; returns the member count
**   profile_report(source, out_dir [, options_json])
**                                       writes the StarProfiler's report set computed by SQL over
**                                       profile_jobs(source); returns the manifest (JSON text)
**
** Every function that writes is SQLITE_DIRECTONLY (a view or trigger of a database someone else
** wrote cannot call it). Files are written to a temporary name in the target directory and
** renamed into place (ext/writer.c): a failure never leaves a half-written file or destroys the
** previous one. Errors name the file and the reason ("profile_report: cannot write 'x': ...").
** The report's rules and files: docs/profile_report.md; the writer being reproduced:
** ../shared/corpus/README.md, "newengine StarProfiler".
*/
#include "ps_vtab.h"
#include "../ext/jobs.h"
#include "../ext/writer.h"
#include "../ext/flame.h"
SQLITE_EXTENSION_INIT3

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>

/* ------------------------------------------------------------------ profile_fixed */

static void fixedFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  (void)argc;
  if( sqlite3_value_type(argv[0])==SQLITE_NULL ) return;
  int nDec = sqlite3_value_int(argv[1]);
  if( nDec<0 ) nDec = 0;
  if( nDec>30 ) nDec = 30;
  char buf[400];
  size_t n = ps_fmt_fixed(buf, sizeof(buf), sqlite3_value_double(argv[0]), nDec);
  sqlite3_result_text(ctx, buf, (int)n, SQLITE_TRANSIENT);
}

/* ------------------------------------------------------------------ query -> text */

/* Runs zSql (parameters bound from apArg) and renders the rows as CSV (bMd 0) or a Markdown
** table (bMd 1) into b. Returns SQLITE_OK and *pnRow, or an error with *pzErr (sqlite3_malloc). */
static int render_query(sqlite3 *db, const char *zSql, sqlite3_value **apArg, int nArg, int bMd,
                        PsBuf *b, sqlite3_int64 *pnRow, char **pzErr){
  sqlite3_stmt *st = 0;
  const char *zTail = 0;
  int rc = sqlite3_prepare_v2(db, zSql, -1, &st, &zTail);
  if( rc ){ *pzErr = sqlite3_mprintf("%s", sqlite3_errmsg(db)); return rc; }
  if( st==0 ){ *pzErr = sqlite3_mprintf("the query is empty"); return SQLITE_ERROR; }
  if( zTail && zTail[0] ){
    /* one statement only: a second one would otherwise be dropped without a word */
    sqlite3_stmt *st2 = 0;
    rc = sqlite3_prepare_v2(db, zTail, -1, &st2, 0);
    sqlite3_finalize(st2);
    if( rc || st2 ){
      sqlite3_finalize(st);
      const char *z2 = zTail + strspn(zTail, " \t\r\n;");
      *pzErr = sqlite3_mprintf("the query holds more than one statement (the second begins at "
                               "character %d: '%.40s'); write one SELECT", (int)(z2 - zSql) + 1, z2);
      return SQLITE_ERROR;
    }
  }
  for(int k=0; k<nArg; k++) sqlite3_bind_value(st, k+1, apArg[k]);
  int nCol = sqlite3_column_count(st);
  int bad = 0;
  if( bMd ) bad |= ps_buf_puts(b, "|");
  for(int c=0; c<nCol; c++){
    const char *z = sqlite3_column_name(st, c);
    if( bMd ){ bad |= ps_buf_puts(b, " ") | ps_md_cell(b, z, strlen(z)) | ps_buf_puts(b, " |"); }
    else{ if( c ) bad |= ps_buf_puts(b, ","); bad |= ps_buf_append(b, z, strlen(z)); }
  }
  bad |= ps_buf_puts(b, "\n");
  if( bMd ){
    bad |= ps_buf_puts(b, "|");
    for(int c=0; c<nCol; c++) bad |= ps_buf_puts(b, "---|");
    bad |= ps_buf_puts(b, "\n");
  }
  sqlite3_int64 nRow = 0;
  while( (rc = sqlite3_step(st))==SQLITE_ROW ){
    nRow++;
    if( bMd ) bad |= ps_buf_puts(b, "|");
    for(int c=0; c<nCol; c++){
      const char *z = (const char*)sqlite3_column_text(st, c);
      size_t n = (size_t)sqlite3_column_bytes(st, c);
      if( z==0 ){ z = ""; n = 0; }
      if( bMd ){ bad |= ps_buf_puts(b, " ") | ps_md_cell(b, z, n) | ps_buf_puts(b, " |"); }
      else{ if( c ) bad |= ps_buf_puts(b, ","); bad |= ps_csv_cell(b, z, n); }
    }
    bad |= ps_buf_puts(b, "\n");
  }
  if( rc!=SQLITE_DONE ){
    *pzErr = sqlite3_mprintf("%s", sqlite3_errmsg(db));
    sqlite3_finalize(st);
    return rc;
  }
  sqlite3_finalize(st);
  if( bad ) return SQLITE_NOMEM;
  *pnRow = nRow;
  return SQLITE_OK;
}

static void writeQueryFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv, int bMd){
  const char *zFn = bMd ? "profile_write_markdown" : "profile_write_csv";
  (void)argc;
  const char *zPath = (const char*)sqlite3_value_text(argv[0]);
  const char *zSql = (const char*)sqlite3_value_text(argv[1]);
  if( zPath==0 || zSql==0 ){
    char *z = sqlite3_mprintf("%s: expected (path TEXT, query TEXT)", zFn);
    sqlite3_result_error(ctx, z, -1); sqlite3_free(z); return;
  }
  PsBuf b; memset(&b, 0, sizeof(b));
  sqlite3_int64 nRow = 0; char *zErr = 0;
  int rc = render_query(sqlite3_context_db_handle(ctx), zSql, 0, 0, bMd, &b, &nRow, &zErr);
  if( rc==SQLITE_OK ){
    PsErr err; memset(&err, 0, sizeof(err));
    if( ps_write_file(zPath, b.z ? b.z : "", b.n, &err) ){
      zErr = sqlite3_mprintf("%s", err.msg); rc = SQLITE_ERROR;
    }
  }
  ps_buf_free(&b);
  if( rc==SQLITE_NOMEM && zErr==0 ){ sqlite3_result_error_nomem(ctx); return; }
  if( rc ){
    char *z = sqlite3_mprintf("%s: %s", zFn, zErr ? zErr : "failed");
    sqlite3_result_error(ctx, z, -1); sqlite3_free(z); sqlite3_free(zErr); return;
  }
  sqlite3_result_int64(ctx, nRow);
}
static void csvFunc(sqlite3_context *c, int n, sqlite3_value **v){ writeQueryFunc(c, n, v, 0); }
static void mdFunc(sqlite3_context *c, int n, sqlite3_value **v){ writeQueryFunc(c, n, v, 1); }

/* ------------------------------------------------------------------ profile_zip */

/* The base name of a path: the member name profile_zip gives it. */
static const char *zip_base(const char *zFile){
  const char *z = strrchr(zFile, '/');
  return z ? z+1 : zFile;
}

/* An error of a file function: "<fn>: <msg>", with code SQLITE_INTERRUPT when err says so. */
static void result_ps_error(sqlite3_context *ctx, const char *zFn, const PsErr *err){
  char *m = sqlite3_mprintf("%s: %s", zFn, err->msg);
  sqlite3_result_error(ctx, m ? m : "out of memory", -1);
  sqlite3_free(m);
  if( err->rc==PS_NOMEM ) sqlite3_result_error_nomem(ctx);
  else if( err->rc==PS_INTERRUPT ) sqlite3_result_error_code(ctx, SQLITE_INTERRUPT);
}

static void zipFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  PsConn *pConn = (PsConn*)sqlite3_user_data(ctx);
  const char *zZip = argc>0 ? (const char*)sqlite3_value_text(argv[0]) : 0;
  if( zZip==0 || argc<2 ){ sqlite3_result_error(ctx, "profile_zip: expected (zip_path, file, ...)", -1); return; }
  /* every input is named and has its own member name before anything is written */
  for(int k=1; k<argc; k++){
    const char *zFile = (const char*)sqlite3_value_text(argv[k]);
    if( zFile==0 || zFile[0]==0 || !ps_safe_name(zip_base(zFile)) ){
      char *m = sqlite3_mprintf("profile_zip: argument %d is %s, not the path of a file", k+1,
                                zFile==0 ? "NULL" : zFile[0]==0 ? "empty" : zFile);
      sqlite3_result_error(ctx, m, -1); sqlite3_free(m); return;
    }
    for(int j=1; j<k; j++){
      const char *zPrev = (const char*)sqlite3_value_text(argv[j]);
      if( zPrev && strcmp(zip_base(zPrev), zip_base(zFile))==0 ){
        char *m = sqlite3_mprintf("profile_zip: '%s' and '%s' would both be member '%s' "
                                  "(members are named by their base names)", zPrev, zFile, zip_base(zFile));
        sqlite3_result_error(ctx, m, -1); sqlite3_free(m); return;
      }
    }
  }
  PsErr err; memset(&err, 0, sizeof(err));
  PsZip *z = ps_zip_open(zZip, &err);
  if( z==0 ){ result_ps_error(ctx, "profile_zip", &err); return; }
  PsPoll poll = { sqlite3_context_db_handle(ctx), 0 };
  int rc = PS_OK;
  for(int k=1; k<argc && rc==PS_OK; k++){
    const char *zFile = (const char*)sqlite3_value_text(argv[k]);
    rc = ps_zip_add_file(z, zip_base(zFile), zFile, pConn->maxInflated, ps_poll_interrupt, &poll, &err);
  }
  sqlite3_finalize(poll.st);
  if( ps_zip_close(z, rc==PS_OK, &err) ) rc = PS_ERROR;
  if( rc ){ result_ps_error(ctx, "profile_zip", &err); return; }
  sqlite3_result_int(ctx, argc-1);
}

/* ------------------------------------------------------------------ profile_report */

/* SQL cell formats of the StarProfiler's CSV helpers (ext/jobs.h describes the columns):
** S(x) a string or "", F(x) "%.6f" or "", B(x) true/false, U(x) an integer or "",
** X(x) format_json_scalar: text as is, numbers "%.3f". */
#define S(x) "ifnull(" x ",'')"
#define F(x) "ifnull(profile_fixed(" x ",6),'')"
#define B(x) "CASE WHEN " x " THEN 'true' ELSE 'false' END"
#define U(x) "ifnull(CAST(" x " AS INTEGER),'')"
#define X(x) "CASE typeof(" x ") WHEN 'null' THEN '' WHEN 'text' THEN " x " WHEN 'blob' THEN '' ELSE profile_fixed(" x ",3) END"
#define LOADPCT(x) "profile_fixed(ifnull(CAST(profile_fixed(" x ",6) AS REAL),0.0)*100.0,3)"
#define LOADOVER(x) "CASE WHEN ifnull(CAST(profile_fixed(" x ",6) AS REAL),0.0) >= 1.0 THEN 'true' ELSE 'false' END"

/* The jobs table every query below reads: profile_jobs with the options' budget overrides
** applied, and the writer's grouping keys (owner and method_name come from profile_jobs). */
static const char zJobsTable[] =
  "WITH b(cat, ms) AS MATERIALIZED (SELECT key, value FROM json_each(?2, '$.budgets_ms') WHERE typeof(value) IN ('integer','real')), "
  "j AS (SELECT rowid AS k, *, "
  "  coalesce((SELECT ms FROM b WHERE cat=category), (SELECT ms FROM b WHERE cat='*')) AS bo_ "
  "  FROM profile_jobs(?1)) "
  "SELECT *, job_list='completed_jobs' AS done_, ifnull(elapsed_ms,0.0) AS e_, "
  "  coalesce(bo_, budget_ms) AS budget2_, "
  "  CASE WHEN bo_ IS NOT NULL THEN ifnull(elapsed_ms,0.0)/bo_ ELSE load END AS load2_, "
  "  ifnull(CASE WHEN bo_ IS NOT NULL THEN ifnull(elapsed_ms,0.0)/bo_ ELSE load END, 0.0) AS l_, "
  "  status='failed' AS failed_, "
  "  (ifnull(elapsed_ms,0.0) >= ?3 OR ifnull(CASE WHEN bo_ IS NOT NULL THEN ifnull(elapsed_ms,0.0)/bo_ ELSE load END,0.0) >= 1.0) AS slow_, "
  "  ifnull(CAST(payload_bytes AS INTEGER),0) AS pb_, ifnull(CAST(output_bytes AS INTEGER),0) AS ob_, "
  "  owner||'::'||ifnull(method_name,'<no-method>') AS mkey_, "
  "  owner||'::'||coalesce(method_name,name,'') AS okey_, "
  "  CASE WHEN trim(ifnull(lane,''))='' THEN 'unspecified' ELSE lane END AS lkey_ "
  "FROM j";

/* A ranked aggregate (the writer's AggregateStats) grouped by key expression K, with the
** category of the group given by CAT; numbers raw: tot, share, avg, mx, ml, pb, ob. The
** group's category, source and sample_name are its first job's (the writer's or_insert_with). */
#define AGG_RAW(K, CAT) \
  "WITH t(total) AS (SELECT sum(e_) FROM profsql_rj WHERE done_), " \
  "g AS (SELECT " K " AS key, min(k) AS k0, count(*) AS n, sum(failed_) AS failed, sum(slow_) AS slow, " \
  "  sum(e_) AS tot, max(e_) AS mx, max(l_) AS ml, sum(pb_) AS pb, sum(ob_) AS ob " \
  "  FROM profsql_rj WHERE done_ GROUP BY " K ") " \
  "SELECT row_number() OVER (ORDER BY g.tot DESC, g.key) AS rank, g.key AS key, " CAT " AS category, " \
  "  ifnull(r.source,'') AS source, ifnull(r.name,'') AS sample_name, g.n AS count, g.failed AS failed, " \
  "  g.slow AS slow, g.tot AS tot, CASE WHEN t.total>0 THEN g.tot/t.total*100.0 ELSE 0.0 END AS share, " \
  "  g.tot/g.n AS avg, g.mx AS mx, g.ml AS ml, g.pb AS pb, g.ob AS ob " \
  "FROM g JOIN profsql_rj r ON r.k=g.k0, t ORDER BY g.tot DESC, g.key LIMIT ?4"
#define AGG_CSV(RAW) \
  "SELECT rank, key, category, source, sample_name, count, failed, slow, " \
  "  profile_fixed(tot,6) AS total_elapsed_ms, profile_fixed(share,6) AS total_share_percent, " \
  "  profile_fixed(avg,6) AS average_elapsed_ms, profile_fixed(mx,6) AS max_elapsed_ms, " \
  "  profile_fixed(ml,6) AS max_load, pb AS total_payload_bytes, ob AS total_output_bytes FROM (" RAW ")"
#define AGG_JSON(RAW) \
  "SELECT json_group_array(json_object('average_elapsed_ms',avg,'category',category,'count',count," \
  "  'failed',failed,'key',key,'max_elapsed_ms',mx,'max_load',ml,'sample_name',sample_name,'slow',slow," \
  "  'source',source,'total_elapsed_ms',tot,'total_output_bytes',ob,'total_payload_bytes',pb," \
  "  'total_share_percent',share)) FROM (" RAW ")"

/* The five groupings are computed once per report into temp tables (profsql_ag_<x>) and read
** by the CSV, JSON and Markdown writers. */
static const char *const azAggDef[][2] = {
  { "o", AGG_RAW("okey_", "ifnull(r.category,'')") },      /* offenders */
  { "s", AGG_RAW("ifnull(source,'')", "'*'") },           /* sources */
  { "m", AGG_RAW("mkey_", "ifnull(r.category,'')") },      /* methods */
  { "l", AGG_RAW("lkey_", "ifnull(r.category,'')") },      /* lanes */
  { "w", AGG_RAW("owner", "ifnull(r.category,'')") },     /* owners */
};
#define RAW_OFFENDERS "SELECT * FROM temp.profsql_ag_o ORDER BY rank"
#define RAW_SOURCES   "SELECT * FROM temp.profsql_ag_s ORDER BY rank"
#define RAW_METHODS   "SELECT * FROM temp.profsql_ag_m ORDER BY rank"
#define RAW_LANES     "SELECT * FROM temp.profsql_ag_l ORDER BY rank"
#define RAW_OWNERS    "SELECT * FROM temp.profsql_ag_w ORDER BY rank"
static const char zAggOffenders[] = AGG_CSV(RAW_OFFENDERS);
static const char zAggSources[]   = AGG_CSV(RAW_SOURCES);
static const char zAggMethods[]   = AGG_CSV(RAW_METHODS);
static const char zAggLanes[]     = AGG_CSV(RAW_LANES);

/* The first twelve columns of the jobs, budget_violations and active_jobs CSVs. */
#define JOB_HEAD_COLS \
  S("id") " AS id, " S("status") " AS status, " S("category") " AS category, " S("source") " AS source, " \
  X("lane") " AS lane, " X("priority") " AS priority, " X("dependency_group") " AS dependency_group, " \
  X("frame_id") " AS frame_id, " X("task_domain") " AS task_domain, " X("task_pass") " AS task_pass, " \
  X("executor") " AS executor, " S("name") " AS name, "

/* Per category (the writer's CategoryStats): category, n, failed, slow, tot, mx. */
#define CAT_GROUPS \
  "SELECT ifnull(category,'') AS category, count(*) AS n, sum(failed_) AS failed, sum(slow_) AS slow, " \
  "  sum(e_) AS tot, max(e_) AS mx FROM profsql_rj WHERE done_ GROUP BY 1"

static const char zCsvJobs[] =
  "SELECT " JOB_HEAD_COLS  F("elapsed_ms") " AS elapsed_ms, " F("budget2_") " AS budget_ms, "
  F("frame_budget_ms") " AS frame_budget_ms, " F("load2_") " AS load, " LOADPCT("load2_") " AS load_percent, "
  LOADOVER("load2_") " AS over_budget, " B("exceeded_frame_budget") " AS exceeded_frame_budget, "
  F("gpu_wait_ms") " AS gpu_wait_ms, " S("wait_reason") " AS wait_reason, " B("scheduled") " AS scheduled, "
  B("blocked") " AS blocked, " B("polling") " AS polling, " B("waited_on_gpu") " AS waited_on_gpu, "
  B("stayed_async") " AS stayed_async, " S("async_mode") " AS async_mode, "
  X("started_unix_ms") " AS started_unix_ms, " X("ended_unix_ms") " AS ended_unix_ms, "
  X("payload_bytes") " AS payload_bytes, " X("output_bytes") " AS output_bytes, "
  X("service_id") " AS service_id, " X("method") " AS method, " X("plugin_id") " AS plugin_id, "
  X("gateway") " AS gateway, " S("error") " AS error, " S("detail") " AS detail "
  "FROM profsql_rj WHERE done_ ORDER BY k";

/* Categories ranked (the writer's by_category_ranked), numbers raw: rank, category, n, failed,
** slow, tot, share. Read by the CSV and the Markdown chart. */
#define CAT_RANKED \
  "WITH t(total) AS (SELECT sum(e_) FROM profsql_rj WHERE done_), g AS (" CAT_GROUPS ") " \
  "SELECT row_number() OVER (ORDER BY tot DESC, category) AS rank, category, n, failed, slow, tot, mx, " \
  "  CASE WHEN t.total>0 THEN tot/t.total*100.0 ELSE 0.0 END AS share FROM g, t ORDER BY tot DESC, category"

static const char zCsvCategories[] =
  "SELECT rank, category, n AS count, failed, slow, profile_fixed(tot,6) AS total_elapsed_ms, "
  "  profile_fixed(share,6) AS total_share_percent, profile_fixed(tot/n,6) AS average_elapsed_ms, "
  "  profile_fixed(mx,6) AS max_elapsed_ms FROM (" CAT_RANKED ")";

static const char zCsvBudget[] =
  "SELECT row_number() OVER (ORDER BY l_ DESC, e_ DESC, ifnull(name,''), k) AS rank, "
  JOB_HEAD_COLS  F("elapsed_ms") " AS elapsed_ms, "
  F("budget2_") " AS budget_ms, " F("frame_budget_ms") " AS frame_budget_ms, " F("load2_") " AS load, "
  LOADPCT("load2_") " AS load_percent, " B("exceeded_frame_budget") " AS exceeded_frame_budget, "
  F("gpu_wait_ms") " AS gpu_wait_ms, " S("wait_reason") " AS wait_reason, " B("stayed_async") " AS stayed_async, "
  S("async_mode") " AS async_mode, " X("started_unix_ms") " AS started_unix_ms, " X("ended_unix_ms") " AS ended_unix_ms, "
  X("service_id") " AS service_id, " X("method") " AS method, " X("plugin_id") " AS plugin_id, "
  X("gateway") " AS gateway, " S("error") " AS error, " S("detail") " AS detail "
  "FROM profsql_rj WHERE done_ AND (l_ >= 1.0 OR e_ >= ?3) ORDER BY l_ DESC, e_ DESC, ifnull(name,''), k LIMIT ?4";

static const char zCsvFrame[] =
  "SELECT row_number() OVER (ORDER BY max(e_ - ifnull(frame_budget_ms,0.0), 0.0) DESC, e_ DESC, ifnull(name,''), k) AS rank, "
  S("id") " AS id, " X("frame_id") " AS frame_id, " S("status") " AS status, " X("lane") " AS lane, "
  X("priority") " AS priority, " X("dependency_group") " AS dependency_group, " S("category") " AS category, "
  S("source") " AS source, " S("name") " AS name, " F("elapsed_ms") " AS elapsed_ms, "
  F("frame_budget_ms") " AS frame_budget_ms, "
  "profile_fixed(max(e_ - ifnull(frame_budget_ms,0.0), 0.0),6) AS over_frame_budget_ms, "
  F("gpu_wait_ms") " AS gpu_wait_ms, " S("wait_reason") " AS wait_reason, " B("stayed_async") " AS stayed_async, "
  S("async_mode") " AS async_mode, " S("detail") " AS detail "
  "FROM profsql_rj WHERE done_ AND exceeded_frame_budget "
  "ORDER BY max(e_ - ifnull(frame_budget_ms,0.0), 0.0) DESC, e_ DESC, ifnull(name,''), k LIMIT ?4";

static const char zCsvActive[] =
  "SELECT " JOB_HEAD_COLS  F("active_elapsed_ms") " AS active_elapsed_ms, " F("budget2_") " AS budget_ms, "
  F("frame_budget_ms") " AS frame_budget_ms, profile_fixed(ifnull(current_load,0.0),6) AS current_load, "
  "profile_fixed(ifnull(current_load,0.0)*100.0,3) AS current_load_percent, "
  "CASE WHEN ifnull(current_load,0.0) >= 1.0 THEN 'true' ELSE 'false' END AS current_over_budget, "
  F("progress") " AS progress, " B("blocked") " AS blocked, " B("polling") " AS polling, "
  B("waited_on_gpu") " AS waited_on_gpu, " B("stayed_async") " AS stayed_async, "
  F("gpu_wait_ms") " AS gpu_wait_ms, " S("wait_reason") " AS wait_reason, " S("async_mode") " AS async_mode, "
  X("started_unix_ms") " AS started_unix_ms, " S("detail") " AS detail "
  "FROM profsql_rj WHERE NOT done_ ORDER BY k";

/* ?5: run.started_unix_ms (reports), else the earliest start (other formats). A stamp minus ?5,
** never negative; a missing or negative stamp counts as ?5 (the writer's unwrap_or(run_start)). */
#define OFFSET_MS(c) "max(CASE WHEN typeof(" c ") IN ('integer','real') AND " c ">=0 THEN CAST(" c " AS INTEGER) ELSE ?5 END - ?5, 0)"
static const char zCsvTimeline[] =
  "SELECT " S("id") " AS id, " S("category") " AS category, " S("source") " AS source, "
  S("name") " AS name, " S("status") " AS status, "
  OFFSET_MS("started_unix_ms") " AS start_offset_ms, " OFFSET_MS("ended_unix_ms") " AS end_offset_ms, "
  F("elapsed_ms") " AS elapsed_ms, " F("budget2_") " AS budget_ms, " F("load2_") " AS load, "
  X("frame_id") " AS frame_id, " X("dependency_group") " AS dependency_group, "
  X("task_domain") " AS task_domain, " X("task_pass") " AS task_pass, " X("lane") " AS lane, "
  X("priority") " AS priority, " X("executor") " AS executor, " S("detail") " AS detail "
  "FROM profsql_rj WHERE done_ ORDER BY k";

static const char zCsvFirst[] =
  "WITH c AS (SELECT count(*) AS n, ifnull(sum(scheduled),0) AS sch, ifnull(sum(blocked),0) AS blk, "
  "  ifnull(sum(polling),0) AS pol, ifnull(sum(waited_on_gpu),0) AS gpu, ifnull(sum(stayed_async),0) AS asy, "
  "  ifnull(sum(exceeded_frame_budget),0) AS fb FROM profsql_rj WHERE done_) "
  "SELECT sch AS scheduled_jobs, blk AS blocked_jobs, "
  "  profile_fixed(CASE WHEN n>0 THEN blk*100.0/n ELSE 0.0 END,6) AS blocked_share_percent, "
  "  pol AS polling_jobs, gpu AS gpu_wait_jobs, "
  "  profile_fixed(CASE WHEN n>0 THEN gpu*100.0/n ELSE 0.0 END,6) AS gpu_wait_share_percent, "
  "  fb AS frame_budget_exceeded_jobs, asy AS async_jobs, "
  "  profile_fixed(CASE WHEN n>0 THEN asy*100.0/n ELSE 0.0 END,6) AS async_share_percent FROM c";

/* Diagnostics as JSON objects d: a report's own rows, else the capture's parse diagnostics
** (code = the kind, level 'warn'). The CSV and the report JSON both read these. */
#define DIAG_OBJECTS \
  "SELECT value AS d FROM profile_metadata(?1) WHERE scope='diagnostics' AND json_valid(value) UNION ALL " \
  "SELECT json_object('at_unix_ms',NULL,'code',key,'job_id',NULL,'level','warn','message',value) FROM profile_metadata(?1) " \
  "WHERE scope='diagnostic' AND key NOT LIKE '%\\_count' ESCAPE '\\'"
#define DSTR(k) "ifnull(CASE WHEN json_type(d,'$." k "')='text' THEN json_extract(d,'$." k "') END,'')"

static const char zCsvDiag[] =
  "SELECT " X("json_extract(d,'$.at_unix_ms')") " AS at_unix_ms, " DSTR("level") " AS level, "
  DSTR("code") " AS code, " DSTR("job_id") " AS job_id, " DSTR("message") " AS message "
  "FROM (" DIAG_OBJECTS ")";

typedef struct CsvKind { const char *zKind; const char *zSql; } CsvKind;
/* In the writer's archive order. */
static const CsvKind aCsv[] = {
  { "jobs", zCsvJobs }, { "categories", zCsvCategories }, { "sources", zAggSources },
  { "top_offenders", zAggOffenders }, { "active_jobs", zCsvActive }, { "diagnostics", zCsvDiag },
  { "timeline", zCsvTimeline }, { "methods", zAggMethods }, { "budget_violations", zCsvBudget },
  { "lanes", zAggLanes }, { "first", zCsvFirst }, { "frame_budget", zCsvFrame },
};
#define N_CSV ((int)(sizeof(aCsv)/sizeof(aCsv[0])))

/* The state of one profile_report call. */
typedef struct Rep {
  sqlite3 *db;
  sqlite3_value *apArg[5];    /* ?1 source, ?2 options, ?3 slow_job_warn_ms, ?4 top limit, ?5 run start */
  char *zErr;                 /* sqlite3_malloc'ed */
  int rc;
} Rep;

static int rep_exec(Rep *r, const char *zSql){
  if( r->rc ) return r->rc;
  sqlite3_stmt *st = 0;
  r->rc = sqlite3_prepare_v2(r->db, zSql, -1, &st, 0);
  if( r->rc==SQLITE_OK ){
    int n = sqlite3_bind_parameter_count(st);
    for(int k=0; k<n && k<5; k++) if( r->apArg[k] ) sqlite3_bind_value(st, k+1, r->apArg[k]);
    while( (r->rc = sqlite3_step(st))==SQLITE_ROW ){}
    if( r->rc==SQLITE_DONE ) r->rc = SQLITE_OK;
  }
  if( r->rc ) r->zErr = sqlite3_mprintf("%s", sqlite3_errmsg(r->db));
  sqlite3_finalize(st);
  return r->rc;
}

/* TEMP table zName filled by zSelect: created anew, or — when the previous call's could not be
** dropped because a statement of the caller reads the temp schema (SQLITE_LOCKED: e.g.
** profile_report((SELECT b FROM temp.t), dir)) — emptied and refilled; its columns are the same
** every time. */
static void rep_table(Rep *r, const char *zName, const char *zSelect){
  if( r->rc ) return;
  char *zDrop = sqlite3_mprintf("DROP TABLE IF EXISTS temp.%s", zName);
  char *zNew = sqlite3_mprintf("CREATE TEMP TABLE %s AS %s", zName, zSelect);
  char *zDel = sqlite3_mprintf("DELETE FROM temp.%s", zName);
  char *zIns = sqlite3_mprintf("INSERT INTO temp.%s %s", zName, zSelect);
  if( zDrop==0 || zNew==0 || zDel==0 || zIns==0 ){
    r->rc = SQLITE_NOMEM;
  }else if( rep_exec(r, zDrop)==SQLITE_LOCKED ){
    sqlite3_free(r->zErr); r->zErr = 0; r->rc = SQLITE_OK;
    rep_exec(r, zDel);
    rep_exec(r, zIns);
  }else{
    rep_exec(r, zNew);
  }
  sqlite3_free(zDrop); sqlite3_free(zNew); sqlite3_free(zDel); sqlite3_free(zIns);
}

/* One value of a scalar query (text, sqlite3_malloc'ed), or NULL. */
static char *rep_text(Rep *r, const char *zSql){
  if( r->rc ) return 0;
  sqlite3_stmt *st = 0;
  char *z = 0;
  r->rc = sqlite3_prepare_v2(r->db, zSql, -1, &st, 0);
  if( r->rc==SQLITE_OK ){
    int n = sqlite3_bind_parameter_count(st);
    for(int k=0; k<n && k<5; k++) if( r->apArg[k] ) sqlite3_bind_value(st, k+1, r->apArg[k]);
    r->rc = sqlite3_step(st);
    if( r->rc==SQLITE_ROW ){
      const char *t = (const char*)sqlite3_column_text(st, 0);
      z = sqlite3_mprintf("%s", t ? t : "");
      r->rc = SQLITE_OK;
    }else if( r->rc==SQLITE_DONE ){
      r->rc = SQLITE_OK;
    }
  }
  if( r->rc ) r->zErr = sqlite3_mprintf("%s", sqlite3_errmsg(r->db));
  sqlite3_finalize(st);
  return z;
}

static int rep_csv(Rep *r, const char *zSql, PsBuf *b){
  if( r->rc ) return r->rc;
  sqlite3_int64 nRow;
  r->rc = render_query(r->db, zSql, r->apArg, 5, 0, b, &nRow, &r->zErr);
  return r->rc;
}

/* percentile q of column C over completed jobs: the writer's sorted[round((n-1)*q)], 0 when empty */
#define PCT(C, Q) "ifnull((SELECT " C " FROM profsql_rj WHERE done_ ORDER BY " C " LIMIT 1 " \
  "OFFSET (SELECT CAST(round((count(*)-1)*" Q ") AS INTEGER) FROM profsql_rj WHERE done_)),0.0)"
#define PCTS(C) "json_object('p50'," PCT(C, "0.50") ",'p90'," PCT(C, "0.90") ",'p95'," PCT(C, "0.95") ",'p99'," PCT(C, "0.99") ")"
/* a job as JSON (the fields a reader of the top lists needs) */
#define JFLAG(x) "json(CASE WHEN " x " THEN 'true' ELSE 'false' END)"
/* (json_patch onto {} drops the members that are SQL NULL, as the writer omits absent keys; the
** metadata object, whose JSON nulls matter, is set afterwards) */
#define JOBJ "CASE WHEN metadata IS NULL OR NOT json_valid(metadata) THEN " JOBJ_BASE " ELSE json_set(" JOBJ_BASE ", '$.metadata', json(metadata)) END"
#define JOBJ_BASE "json_patch('{}', json_object('active_elapsed_ms',active_elapsed_ms,'async_mode',async_mode,'blocked'," JFLAG("blocked") "," \
  "'budget_ms',budget2_,'category',category,'current_load',current_load,'dependency_group',dependency_group," \
  "'detail',detail,'elapsed_ms',elapsed_ms,'ended_unix_ms',ended_unix_ms,'error',error," \
  "'exceeded_frame_budget'," JFLAG("exceeded_frame_budget") ",'executor',executor,'frame_budget_ms',frame_budget_ms," \
  "'frame_id',frame_id,'gpu_wait_ms',gpu_wait_ms,'id',id,'lane',lane,'load',load2_," \
  "'name',name,'output_bytes',output_bytes,'payload_bytes',payload_bytes,'polling'," JFLAG("polling") "," \
  "'priority',priority,'progress',progress,'scheduled'," JFLAG("scheduled") ",'source',source," \
  "'started_unix_ms',started_unix_ms,'status',status,'stayed_async'," JFLAG("stayed_async") "," \
  "'task_domain',task_domain,'task_pass',task_pass,'wait_reason',wait_reason,'waited_on_gpu'," JFLAG("waited_on_gpu") "))"

static const char zReportJson[] =
  "WITH c AS (SELECT count(*) AS n, ifnull(sum(e_),0.0) AS tot, ifnull(max(e_),0.0) AS mx, ifnull(sum(failed_),0) AS failed, "
  "  ifnull(sum(slow_),0) AS slow, ifnull(sum(l_ >= 1.0),0) AS over, ifnull(sum(pb_),0) AS pb, ifnull(sum(ob_),0) AS ob, "
  "  ifnull(sum(scheduled),0) AS sch, ifnull(sum(blocked),0) AS blk, ifnull(sum(polling),0) AS pol, "
  "  ifnull(sum(waited_on_gpu),0) AS gpu, ifnull(sum(stayed_async),0) AS asy, ifnull(sum(exceeded_frame_budget),0) AS fb "
  "  FROM profsql_rj WHERE done_), "
  "pf AS (SELECT json_object('async_jobs',asy,'async_share_percent',CASE WHEN n>0 THEN asy*100.0/n ELSE 0.0 END,"
  "  'blocked_jobs',blk,'blocked_share_percent',CASE WHEN n>0 THEN blk*100.0/n ELSE 0.0 END,'frame_budget_exceeded_jobs',fb,"
  "  'gpu_wait_jobs',gpu,'gpu_wait_share_percent',CASE WHEN n>0 THEN gpu*100.0/n ELSE 0.0 END,'polling_jobs',pol,"
  "  'scheduled_jobs',sch) AS j FROM c), "
  "cat AS (" CAT_GROUPS ") "
  "SELECT json_object("
  " 'active_jobs', (SELECT json_group_array(json(" JOBJ ")) FROM (SELECT * FROM profsql_rj WHERE NOT done_ ORDER BY k)),"
  " 'analysis', json_object("
  "   'budget_violations', (SELECT json_group_array(json(" JOBJ ")) FROM (SELECT * FROM profsql_rj WHERE done_ AND (l_ >= 1.0 OR e_ >= ?3) ORDER BY l_ DESC, e_ DESC, ifnull(name,''), k LIMIT ?4)),"
  "   'by_category_ranked', (SELECT json_group_array(json_object('average_elapsed_ms',cat.tot/cat.n,'category',cat.category,'count',cat.n,'failed',cat.failed,"
  "       'max_elapsed_ms',cat.mx,'slow',cat.slow,'total_elapsed_ms',cat.tot,'total_share_percent',CASE WHEN c.tot>0 THEN cat.tot/c.tot*100.0 ELSE 0.0 END)) "
  "       FROM (SELECT * FROM cat ORDER BY tot DESC, category) cat, c),"
  "   'by_lane_ranked', json((" AGG_JSON(RAW_LANES) ")),"
  "   'by_method_ranked', json((" AGG_JSON(RAW_METHODS) ")),"
  "   'by_owner_ranked', json((" AGG_JSON(RAW_OWNERS) ")),"
  "   'by_source_ranked', json((" AGG_JSON(RAW_SOURCES) ")),"
  "   'frame_budget_violations', (SELECT json_group_array(json(" JOBJ ")) FROM (SELECT * FROM profsql_rj WHERE done_ AND exceeded_frame_budget ORDER BY max(e_ - ifnull(frame_budget_ms,0.0), 0.0) DESC, e_ DESC, ifnull(name,''), k LIMIT ?4)),"
  "   'profiler_first', json((SELECT j FROM pf)),"
  "   'top_completed_jobs_by_elapsed', (SELECT json_group_array(json(" JOBJ ")) FROM (SELECT * FROM profsql_rj WHERE done_ ORDER BY e_ DESC, ifnull(name,''), k LIMIT ?4)),"
  "   'top_completed_jobs_by_load', (SELECT json_group_array(json(" JOBJ ")) FROM (SELECT * FROM profsql_rj WHERE done_ ORDER BY l_ DESC, ifnull(name,''), k LIMIT ?4)),"
  "   'top_offenders_by_total_elapsed', json((" AGG_JSON(RAW_OFFENDERS) ")),"
  "   'worst_offender', json(ifnull((SELECT json_object('average_elapsed_ms',avg,'category',category,'count',count,'failed',failed,'key',key,"
  "       'max_elapsed_ms',mx,'max_load',ml,'sample_name',sample_name,'slow',slow,'source',source,'total_elapsed_ms',tot,"
  "       'total_output_bytes',ob,'total_payload_bytes',pb,'total_share_percent',share) FROM (" RAW_OFFENDERS ") LIMIT 1),'null'))),"
  " 'diagnostics', (SELECT json_group_array(json(d)) FROM (" DIAG_OBJECTS ")),"
  " 'completed_jobs', (SELECT json_group_array(json(" JOBJ ")) FROM (SELECT * FROM (SELECT * FROM profsql_rj WHERE done_ ORDER BY k DESC LIMIT ?8) ORDER BY k)),"
  " 'config', json_object('budgets_ms', json(ifnull(json_extract(?2,'$.budgets_ms'),'{}')),'max_recent_jobs',?8,'slow_job_warn_ms',?3,'top_limit',?4),"
  " 'generated_unix_ms', ?6,"
  " 'plugin', json_object('id','libprofsql','name','libprofsql profile_report','version',profsql_version()),"
  " 'reason', ?7,"
  " 'run', json_object('started_unix_ms', ?5),"
  " 'schema', 'newengine.profiler.report.v3',"
  " 'summary', json_object('active_jobs',(SELECT count(*) FROM profsql_rj WHERE NOT done_),"
  "   'average_elapsed_ms',CASE WHEN c.n>0 THEN c.tot/c.n ELSE 0.0 END,"
  "   'by_category',(SELECT json_group_object(category, json_object('count',n,'failed',failed,'max_elapsed_ms',mx,'slow',slow,'total_elapsed_ms',tot)) FROM (SELECT * FROM cat ORDER BY category)),"
  "   'by_status',(SELECT json_group_object(st, n) FROM (SELECT ifnull(status,'') AS st, count(*) AS n FROM profsql_rj WHERE done_ GROUP BY 1 ORDER BY 1)),"
  "   'completed_jobs_kept',c.n,"
  "   'elapsed_percentiles_ms'," PCTS("e_") ","
  "   'failed_jobs',c.failed,'load_percentiles'," PCTS("l_") ","
  "   'max_elapsed_ms',c.mx,'over_budget_jobs',c.over,'profiler_first',json((SELECT j FROM pf)),"
  "   'slow_or_over_budget_jobs',c.slow,'total_elapsed_ms',c.tot,'total_output_bytes',c.ob,'total_payload_bytes',c.pb)"
  ") FROM c";

/* The report JSON (compact; sqlite3_malloc'ed) or NULL with r->rc set. */
static char *rep_report_json(Rep *r, const char *zReason, long long nowMs, long long nRecent){
  if( r->rc ) return 0;
  sqlite3_stmt *st = 0;
  char *z = 0;
  r->rc = sqlite3_prepare_v2(r->db, zReportJson, -1, &st, 0);
  if( r->rc==SQLITE_OK ){
    for(int k=0; k<5; k++) if( r->apArg[k] ) sqlite3_bind_value(st, k+1, r->apArg[k]);
    sqlite3_bind_int64(st, 6, nowMs);
    sqlite3_bind_text(st, 7, zReason, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(st, 8, nRecent);
    r->rc = sqlite3_step(st);
    if( r->rc==SQLITE_ROW ){
      z = sqlite3_mprintf("%s", (const char*)sqlite3_column_text(st, 0));
      r->rc = z ? SQLITE_OK : SQLITE_NOMEM;
    }
  }
  if( r->rc ) r->zErr = sqlite3_mprintf("%s", sqlite3_errmsg(r->db));
  sqlite3_finalize(st);
  return z;
}

/* Unicode bar of v out of max, w cells wide (eighth blocks). */
static void md_bar(PsBuf *b, double v, double max, int w){
  static const char *const aPart[8] = { "", "▏", "▎", "▍", "▌", "▋", "▊", "▉" };
  double f = max > 0 ? v / max : 0;
  if( !(f>0) ) f = 0;         /* negative, or NaN */
  if( f>1 ) f = 1;
  int eighths = (int)(f * w * 8 + 0.5);
  int full = eighths / 8, part = eighths % 8, used = full + (part ? 1 : 0);
  for(int k=0; k<full; k++) ps_buf_puts(b, "█");
  ps_buf_puts(b, aPart[part]);
  for(int k=used; k<w; k++) ps_buf_puts(b, "·");
}

/* A load chart: rows (label, total_ms, share) of an aggregate query, as text bars. */
static void md_chart(Rep *r, PsBuf *b, const char *zTitle, const char *zSql){
  if( r->rc ) return;
  ps_buf_printf(b, "## %s\n\n```text\n", zTitle);
  sqlite3_stmt *st = 0;
  r->rc = sqlite3_prepare_v2(r->db, zSql, -1, &st, 0);
  if( r->rc==SQLITE_OK ){
    for(int k=0; k<5; k++) if( r->apArg[k] ) sqlite3_bind_value(st, k+1, r->apArg[k]);
    int n = 0;
    while( (r->rc = sqlite3_step(st))==SQLITE_ROW && n<16 ){
      const char *zKey = (const char*)sqlite3_column_text(st, 1);
      double tot = sqlite3_column_double(st, 8), share = sqlite3_column_double(st, 9);
      char label[41];
      snprintf(label, sizeof(label), "%-40.40s", zKey ? zKey : "");
      ps_buf_printf(b, "%s [", label);
      md_bar(b, share, 100.0, 32);
      ps_buf_printf(b, "] %5.1f%% %12.3f ms\n", share, tot);
      n++;
    }
    if( r->rc==SQLITE_ROW || r->rc==SQLITE_DONE ) r->rc = SQLITE_OK;
    if( n==0 ) ps_buf_puts(b, "(no completed jobs)\n");
  }
  if( r->rc ) r->zErr = sqlite3_mprintf("%s", sqlite3_errmsg(r->db));
  sqlite3_finalize(st);
  ps_buf_puts(b, "```\n\n");
}

/* A Markdown table of a query's rows (columns as the query names them). */
static void md_table(Rep *r, PsBuf *b, const char *zTitle, const char *zSql){
  if( r->rc ) return;
  ps_buf_printf(b, "## %s\n\n", zTitle);
  sqlite3_int64 nRow = 0;
  r->rc = render_query(r->db, zSql, r->apArg, 5, 1, b, &nRow, &r->zErr);
  if( r->rc==SQLITE_OK && nRow==0 ) ps_buf_puts(b, "\n_(none)_\n");
  ps_buf_puts(b, "\n");
}

static void rep_markdown(Rep *r, PsBuf *b, const char *zSource){
  ps_buf_puts(b, "# Profiler report\n\n");
  ps_buf_puts(b, "- capture: `");
  ps_md_cell(b, zSource, strlen(zSource));
  ps_buf_puts(b, "`\n- written by libprofsql " PROFSQL_VERSION " (`profile_report`), the StarProfiler's report set\n");
  ps_buf_puts(b, "- `load = elapsed_ms / budget_ms`; a job is over budget when `load >= 1`\n\n");
  /* Quick answer */
  ps_buf_puts(b, "## Quick answer — кто жрёт время\n\n");
  char *zQ = rep_text(r,
    "SELECT printf('**Worst offender:** `%s` — %s ms total, %s%% of captured time, %d calls, "
    "max load %sx, slow/over-budget %d, failed %d.', replace(key,'`',''''), total_elapsed_ms, "
    "profile_fixed(total_share_percent,1), count, profile_fixed(max_load,2), slow, failed) "
    "FROM (" AGG_CSV(RAW_OFFENDERS) ") LIMIT 1");
  if( zQ && zQ[0] ){
    ps_buf_puts(b, zQ); ps_buf_puts(b, "\n\n");
    char *zShare = rep_text(r, "SELECT share FROM (" RAW_OFFENDERS ") LIMIT 1");
    char *zLoad = rep_text(r, "SELECT ml FROM (" RAW_OFFENDERS ") LIMIT 1");
    double share = zShare ? atof(zShare) : 0, ml = zLoad ? atof(zLoad) : 0;
    ps_buf_puts(b, "```text\ncaptured time share  [");
    md_bar(b, share, 100.0, 32);
    ps_buf_printf(b, "] %5.1f%%\nmax budget load      [", share);
    md_bar(b, ml < 4.0 ? ml : 4.0, 4.0, 32);
    ps_buf_printf(b, "] %5.2fx\n```\n\n", ml);
    sqlite3_free(zShare); sqlite3_free(zLoad);
  }
  else if( r->rc==SQLITE_OK ) ps_buf_puts(b, "No completed jobs were captured.\n\n");
  sqlite3_free(zQ);
  md_table(r, b, "Profiler-first telemetry view", zCsvFirst);
  md_chart(r, b, "Load chart — categories by total elapsed time",
    "SELECT rank, category, 0,0,0,0,0,0, tot, share FROM (" CAT_RANKED ")");
  md_chart(r, b, "Load chart — lanes", RAW_LANES);
  md_chart(r, b, "Load chart — top offenders", RAW_OFFENDERS);
  md_table(r, b, "Top offenders by total elapsed time",
    "SELECT rank AS Rank, key AS Offender, source AS Source, category AS Category, count AS Calls, "
    "total_elapsed_ms AS \"Total ms\", total_share_percent AS \"Share %\", max_load AS \"Max load\", "
    "slow AS Slow, failed AS Failed FROM (" AGG_CSV(RAW_OFFENDERS) ") LIMIT 16");
  md_table(r, b, "Top methods by total elapsed time",
    "SELECT rank AS Rank, key AS Method, source AS Source, count AS Calls, total_elapsed_ms AS \"Total ms\", "
    "total_share_percent AS \"Share %\", average_elapsed_ms AS \"Avg ms\", max_load AS \"Max load\" "
    "FROM (" AGG_CSV(RAW_METHODS) ") LIMIT 16");
  md_table(r, b, "Budget violations",
    "SELECT rank AS Rank, id AS Id, name AS Name, elapsed_ms AS \"Elapsed ms\", budget_ms AS \"Budget ms\", "
    "load AS Load, status AS Status FROM (" "SELECT row_number() OVER (ORDER BY l_ DESC, e_ DESC, ifnull(name,''), k) AS rank, "
    "ifnull(id,'') AS id, ifnull(name,'') AS name, profile_fixed(e_,3) AS elapsed_ms, profile_fixed(budget2_,3) AS budget_ms, "
    "profile_fixed(l_,2)||'x' AS load, ifnull(status,'') AS status FROM profsql_rj WHERE done_ AND (l_ >= 1.0 OR e_ >= ?3) "
    "ORDER BY l_ DESC, e_ DESC, ifnull(name,''), k LIMIT 16)");
  md_table(r, b, "Frame budget violations",
    "SELECT ifnull(id,'') AS Id, ifnull(name,'') AS Name, profile_fixed(e_,3) AS \"Elapsed ms\", "
    "profile_fixed(frame_budget_ms,3) AS \"Frame budget ms\" FROM profsql_rj WHERE done_ AND exceeded_frame_budget "
    "ORDER BY max(e_ - ifnull(frame_budget_ms,0.0), 0.0) DESC, e_ DESC, ifnull(name,''), k LIMIT 16");
  md_table(r, b, "Top single jobs by elapsed time",
    "SELECT ifnull(id,'') AS Id, ifnull(name,'') AS Name, ifnull(category,'') AS Category, "
    "profile_fixed(e_,3) AS \"Elapsed ms\", profile_fixed(l_,2)||'x' AS Load, ifnull(status,'') AS Status "
    "FROM profsql_rj WHERE done_ ORDER BY e_ DESC, ifnull(name,''), k LIMIT 16");
  md_table(r, b, "Top single jobs by budget load",
    "SELECT ifnull(id,'') AS Id, ifnull(name,'') AS Name, ifnull(category,'') AS Category, "
    "profile_fixed(l_,2)||'x' AS Load, profile_fixed(e_,3) AS \"Elapsed ms\", ifnull(status,'') AS Status "
    "FROM profsql_rj WHERE done_ ORDER BY l_ DESC, ifnull(name,''), k LIMIT 16");
  md_table(r, b, "Active jobs",
    "SELECT ifnull(id,'') AS Id, ifnull(name,'') AS Name, ifnull(status,'') AS Status, "
    "profile_fixed(active_elapsed_ms,3) AS \"Active ms\", profile_fixed(current_load,2)||'x' AS Load "
    "FROM profsql_rj WHERE NOT done_ ORDER BY k");
}

/* Sanitises the archive prefix to [A-Za-z0-9._-] as the writer does. */
static void sanitize_prefix(char *z){
  for(; *z; z++){
    char c = *z;
    if( !((c>='A' && c<='Z') || (c>='a' && c<='z') || (c>='0' && c<='9') || c=='.' || c=='_' || c=='-') ) *z = '_';
  }
}

/* The options profile_report knows (docs/profile_report.md, "Options") and the JSON type each
** takes; null means the default. */
enum { OPT_NUM, OPT_COUNT, OPT_TEXT, OPT_BOOL, OPT_BUDGETS };
static const struct { const char *zKey; int eType; } aOpt[] = {
  { "budgets_ms", OPT_BUDGETS }, { "slow_job_warn_ms", OPT_NUM }, { "top_limit", OPT_COUNT },
  { "max_recent_jobs", OPT_COUNT }, { "archive_prefix", OPT_TEXT }, { "reason", OPT_TEXT },
  { "write_json", OPT_BOOL }, { "write_markdown", OPT_BOOL }, { "write_csv", OPT_BOOL },
  { "write_flamegraph", OPT_BOOL }, { "write_archive", OPT_BOOL },
  { "include_latest_in_archive", OPT_BOOL },
};

/* Checks every key of the options object against aOpt. NULL when they are fine, else the
** message (sqlite3_malloc'ed) naming the option, what it takes and what it got:
** "option 'top_limit' must be an integer >= 0, not text \"ten\"". */
static char *options_check(sqlite3 *db, sqlite3_value *pOpt){
  static const char *const azWant[] = {
    "a number (ms)", "an integer >= 0", "a string", "true or false",
    "an object of numbers ({\"<category>\": ms, \"*\": ms})"
  };
  sqlite3_stmt *st = 0;
  char *zMsg = 0;
  /* each option: key, JSON type, value (first 40 characters), and for budgets_ms the first
  ** member that is not a number */
  int rc = sqlite3_prepare_v2(db,
    "SELECT o.key, o.type, substr(o.value, 1, 40), "
    " CASE WHEN o.type='integer' THEN o.value >= 0 END, "
    " (SELECT '\"'||b.key||'\" is '||b.type FROM json_each(?1, '$.budgets_ms') b "
    "   WHERE o.key='budgets_ms' AND o.type='object' AND b.type NOT IN ('integer','real') LIMIT 1) "
    "FROM json_each(?1) o", -1, &st, 0);
  if( rc ) return sqlite3_mprintf("%s", sqlite3_errmsg(db));
  sqlite3_bind_value(st, 1, pOpt);
  while( zMsg==0 && sqlite3_step(st)==SQLITE_ROW ){
    const char *zKey = (const char*)sqlite3_column_text(st, 0);
    const char *zType = (const char*)sqlite3_column_text(st, 1);
    const char *zVal = (const char*)sqlite3_column_text(st, 2);
    if( zKey==0 || zType==0 ) continue;
    int k = 0, nOpt = (int)(sizeof(aOpt)/sizeof(aOpt[0]));
    while( k<nOpt && strcmp(aOpt[k].zKey, zKey)!=0 ) k++;
    if( k==nOpt ){                           /* "unknown option 'x' (options: a, b, ...)" */
      PsBuf b; memset(&b, 0, sizeof(b));
      int bad = ps_buf_printf(&b, "unknown option '%s' (options: ", zKey);
      for(int j=0; j<nOpt; j++) bad |= ps_buf_printf(&b, "%s%s", j ? ", " : "", aOpt[j].zKey);
      bad |= ps_buf_puts(&b, ")");
      zMsg = bad ? 0 : sqlite3_mprintf("%.*s", (int)b.n, b.z);
      ps_buf_free(&b);
      if( zMsg==0 ) zMsg = sqlite3_mprintf("out of memory");
      break;
    }
    if( strcmp(zType, "null")==0 ) continue;
    int eType = aOpt[k].eType, ok = 0;
    switch( eType ){
      case OPT_NUM:   ok = !strcmp(zType, "integer") || !strcmp(zType, "real"); break;
      case OPT_COUNT: ok = !strcmp(zType, "integer") && sqlite3_column_int(st, 3); break;
      case OPT_TEXT:  ok = !strcmp(zType, "text"); break;
      case OPT_BOOL:  ok = !strcmp(zType, "true") || !strcmp(zType, "false"); break;
      case OPT_BUDGETS:
        if( !strcmp(zType, "object") && sqlite3_column_type(st, 4)!=SQLITE_NULL ){
          zMsg = sqlite3_mprintf("option 'budgets_ms' must be %s: %s", azWant[eType],
                                 (const char*)sqlite3_column_text(st, 4));
        }
        ok = !strcmp(zType, "object");
        break;
    }
    if( !ok && zMsg==0 ){
      int bQuote = !strcmp(zType, "text");
      zMsg = sqlite3_mprintf("option '%s' must be %s, not %s%s%s%s%s", zKey, azWant[eType], zType,
                             zVal && strcmp(zType, "object") && strcmp(zType, "array") ? " " : "",
                             bQuote ? "\"" : "",
                             zVal && strcmp(zType, "object") && strcmp(zType, "array") ? zVal : "",
                             bQuote ? "\"" : "");
    }
  }
  sqlite3_finalize(st);
  return zMsg;
}

static int opt_bool(Rep *r, const char *zKey, int bDefault){
  char zSql[160];
  snprintf(zSql, sizeof(zSql), "SELECT CASE json_type(?2,'$.%s') WHEN 'true' THEN 1 WHEN 'false' THEN 0 END", zKey);
  char *z = rep_text(r, zSql);
  int v = (z && z[0]) ? atoi(z) : bDefault;
  sqlite3_free(z);
  return v;
}

static void reportFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  Rep r; memset(&r, 0, sizeof(r));
  r.db = sqlite3_context_db_handle(ctx);
  const char *zDir = (const char*)sqlite3_value_text(argv[1]);
  int t0 = sqlite3_value_type(argv[0]);
  if( (t0!=SQLITE_TEXT && t0!=SQLITE_BLOB) || zDir==0 ){
    sqlite3_result_error(ctx, "profile_report: expected (source TEXT or BLOB, out_dir TEXT [, options_json TEXT])", -1);
    return;
  }
  struct stat st;
  if( stat(zDir, &st)!=0 || !S_ISDIR(st.st_mode) ){
    char *m = sqlite3_mprintf("profile_report: '%s' is not an existing directory", zDir);
    sqlite3_result_error(ctx, m, -1); sqlite3_free(m); return;
  }
  sqlite3_value *pOpt = argc>2 ? argv[2] : 0;
  if( pOpt && sqlite3_value_type(pOpt)!=SQLITE_NULL ){
    sqlite3_stmt *v = 0;
    int ok = 0;
    if( sqlite3_prepare_v2(r.db, "SELECT json_valid(?1) AND json_type(?1)='object'", -1, &v, 0)==SQLITE_OK ){
      sqlite3_bind_value(v, 1, pOpt);
      ok = sqlite3_step(v)==SQLITE_ROW && sqlite3_column_int(v, 0);
    }
    sqlite3_finalize(v);
    if( !ok ){ sqlite3_result_error(ctx, "profile_report: options_json must be a JSON object", -1); return; }
    char *zBad = options_check(r.db, pOpt);
    if( zBad ){
      char *m = sqlite3_mprintf("profile_report: %s", zBad);
      sqlite3_result_error(ctx, m ? m : "out of memory", -1); sqlite3_free(m); sqlite3_free(zBad); return;
    }
  }
  /* the values bound as ?1..?5 */
  sqlite3_stmt *pv = 0;
  if( sqlite3_prepare_v2(r.db,
      "SELECT ?1, ?2, coalesce(json_extract(?2,'$.slow_job_warn_ms'),16.67), "
      "coalesce(json_extract(?2,'$.top_limit'),64)", -1, &pv, 0) ){
    sqlite3_result_error(ctx, sqlite3_errmsg(r.db), -1); return;
  }
  sqlite3_bind_value(pv, 1, argv[0]);
  if( pOpt ) sqlite3_bind_value(pv, 2, pOpt);
  sqlite3_step(pv);
  for(int k=0; k<4; k++) r.apArg[k] = sqlite3_value_dup(sqlite3_column_value(pv, k));
  sqlite3_finalize(pv);
  for(int k=0; k<4; k++) if( r.apArg[k]==0 ){ for(int j=0; j<4; j++) sqlite3_value_free(r.apArg[j]); sqlite3_result_error_nomem(ctx); return; }

  PsBuf aOut[N_CSV]; memset(aOut, 0, sizeof(aOut));
  PsBuf md, js, man; memset(&md, 0, sizeof(md)); memset(&js, 0, sizeof(js)); memset(&man, 0, sizeof(man));
  PsErr err; memset(&err, 0, sizeof(err));
  char *zPrefix = 0, *zReason = 0, *zReasonJson = 0, *zRunStart = 0, *zJson = 0, *zManifest = 0;

  rep_table(&r, "profsql_rj", zJobsTable);
  rep_exec(&r, "CREATE INDEX IF NOT EXISTS temp.profsql_rj_k ON profsql_rj(k)");   /* each group's first job */
  for(int k=0; k<(int)(sizeof(azAggDef)/sizeof(azAggDef[0])); k++){
    char zName[32];
    snprintf(zName, sizeof(zName), "profsql_ag_%s", azAggDef[k][0]);
    rep_table(&r, zName, azAggDef[k][1]);
  }
  zRunStart = rep_text(&r,
    "SELECT coalesce((SELECT value FROM profile_metadata(?1) WHERE scope='run' AND key='started_unix_ms' AND typeof(value)='integer'), "
    "(SELECT CAST(min(started_unix_ms) AS INTEGER) FROM profsql_rj WHERE typeof(started_unix_ms) IN ('integer','real')), 0)");
  if( r.rc==SQLITE_OK ){
    sqlite3_stmt *s5 = 0;
    if( sqlite3_prepare_v2(r.db, "SELECT CAST(?1 AS INTEGER)", -1, &s5, 0)==SQLITE_OK ){
      sqlite3_bind_text(s5, 1, zRunStart ? zRunStart : "0", -1, SQLITE_TRANSIENT);
      if( sqlite3_step(s5)==SQLITE_ROW ) r.apArg[4] = sqlite3_value_dup(sqlite3_column_value(s5, 0));
    }
    sqlite3_finalize(s5);
    if( r.apArg[4]==0 ){ r.rc = SQLITE_NOMEM; }
  }
  zPrefix = rep_text(&r, "SELECT coalesce(json_extract(?2,'$.archive_prefix'),'profiler_report')");
  zReason = rep_text(&r, "SELECT coalesce(json_extract(?2,'$.reason'),'profsql.report')");
  zReasonJson = rep_text(&r, "SELECT json_quote(coalesce(json_extract(?2,'$.reason'),'profsql.report'))");
  int bJson = opt_bool(&r, "write_json", 1), bMd = opt_bool(&r, "write_markdown", 1);
  int bCsv = opt_bool(&r, "write_csv", 1), bZip = opt_bool(&r, "write_archive", 1);
  int bLatestInZip = opt_bool(&r, "include_latest_in_archive", 1);
  /* the flame graph (a libprofsql addition to the set), for captures with a parent tree */
  PsBuf fg; memset(&fg, 0, sizeof(fg));
  int bFg = opt_bool(&r, "write_flamegraph", 1) && r.rc==SQLITE_OK;
  if( bFg ){
    char *zE = 0;
    int rcLoad = SQLITE_OK;
    PsCacheEntry *e = ps_vt_acquire((PsConn*)sqlite3_user_data(ctx), "profile_report", argv[0], 0, &zE, &rcLoad);
    if( e==0 && rcLoad==SQLITE_INTERRUPT ){ r.rc = SQLITE_INTERRUPT; r.zErr = sqlite3_mprintf("interrupted"); }
    sqlite3_free(zE);
    bFg = e && (e->cap->ev.n>0 || e->cap->nRec>0);
    if( bFg ){
      char zT[300];
      snprintf(zT, sizeof(zT), "%s", t0==SQLITE_TEXT ? (const char*)sqlite3_value_text(argv[0]) : "BLOB");
      if( ps_flame_svg(e->cap, PS_FLAME_TRACK, zT, &fg, 0, &err) ) r.rc = SQLITE_NOMEM;
    }
    if( e ) ps_vt_release(e);
  }
  if( zPrefix ) sanitize_prefix(zPrefix);

  for(int k=0; k<N_CSV && bCsv; k++) rep_csv(&r, aCsv[k].zSql, &aOut[k]);
  if( bMd && r.rc==SQLITE_OK ){
    char zSrc[512];
    if( t0==SQLITE_TEXT ) snprintf(zSrc, sizeof(zSrc), "%s", (const char*)sqlite3_value_text(argv[0]));
    else snprintf(zSrc, sizeof(zSrc), "BLOB (%d bytes)", sqlite3_value_bytes(argv[0]));
    rep_markdown(&r, &md, zSrc);
  }
  /* the UTC stamp of the archive and dated members */
  struct timeval tv; gettimeofday(&tv, 0);
  struct tm tm; time_t sec = tv.tv_sec; gmtime_r(&sec, &tm);
  char zStamp[64], zUtc[64];
  int ms = (int)(tv.tv_usec / 1000);
  snprintf(zStamp, sizeof(zStamp), "%04d%02d%02d_%02d%02d%02d_%03dZ", tm.tm_year+1900, tm.tm_mon+1,
           tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms);
  snprintf(zUtc, sizeof(zUtc), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year+1900, tm.tm_mon+1,
           tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms);
  long long nowMs = (long long)tv.tv_sec*1000 + ms;
  if( bJson && r.rc==SQLITE_OK ){
    char *zRecent = rep_text(&r, "SELECT CAST(coalesce(json_extract(?2,'$.max_recent_jobs'),4096) AS INTEGER)");
    long long nRecent = zRecent ? atoll(zRecent) : 4096;
    sqlite3_free(zRecent);
    zJson = rep_report_json(&r, zReason ? zReason : "profsql.report", nowMs, nRecent);
    if( zJson && ps_json_pretty(&js, zJson, strlen(zJson)) ) r.rc = SQLITE_NOMEM;
  }
  /* the manifest */
  char zArchive[300];
  snprintf(zArchive, sizeof(zArchive), "%s_%s.zip", zPrefix ? zPrefix : "profiler_report", zStamp);
  if( r.rc==SQLITE_OK ){
    PsBuf mj; memset(&mj, 0, sizeof(mj));
    int bad = ps_buf_printf(&mj, "{\"schema\":\"newengine.profiler.report_archive.manifest.v2\","
      "\"created_utc\":\"%s\",\"created_unix_ms\":%lld,\"reason\":", zUtc, nowMs);
    bad |= ps_buf_puts(&mj, zReasonJson ? zReasonJson : "\"profsql.report\"");   /* json_quote: every control character escaped */
    bad |= ps_buf_printf(&mj, ",\"archive\":%s%s%s,", bZip ? "\"" : "", bZip ? zArchive : "null", bZip ? "\"" : "");
    bad |= ps_buf_printf(&mj, "\"latest\":{\"json\":%s,\"markdown\":%s,\"csv\":{",
      bJson ? "\"profiler_report_latest.json\"" : "null", bMd ? "\"profiler_report_latest.md\"" : "null");
    for(int k=0; k<N_CSV && bCsv; k++) bad |= ps_buf_printf(&mj, "%s\"%s\":\"profiler_%s_latest.csv\"", k ? "," : "", aCsv[k].zKind, aCsv[k].zKind);
    bad |= ps_buf_printf(&mj, "},\"flamegraph\":%s},\"entries\":{", bFg ? "\"profiler_flamegraph_latest.svg\"" : "null");
    if( bJson ) bad |= ps_buf_printf(&mj, "\"json\":\"profiler_report_%s.json\",", zStamp);
    else bad |= ps_buf_puts(&mj, "\"json\":null,");
    if( bMd ) bad |= ps_buf_printf(&mj, "\"markdown\":\"profiler_report_%s.md\",", zStamp);
    else bad |= ps_buf_puts(&mj, "\"markdown\":null,");
    bad |= ps_buf_puts(&mj, "\"csv\":{");
    for(int k=0; k<N_CSV && bCsv; k++) bad |= ps_buf_printf(&mj, "%s\"%s\":\"profiler_%s_%s.csv\"", k ? "," : "", aCsv[k].zKind, aCsv[k].zKind, zStamp);
    if( bFg ) bad |= ps_buf_printf(&mj, "},\"flamegraph\":\"profiler_flamegraph_%s.svg\"", zStamp);
    else bad |= ps_buf_puts(&mj, "},\"flamegraph\":null");
    bad |= ps_buf_puts(&mj, ",\"manifest\":\"manifest.json\"},\"policy\":{"
      "\"timestamped_files_are_archive_members\":true,\"latest_files_are_written_for_compatibility\":true,");
    bad |= ps_buf_printf(&mj, "\"latest_files_are_duplicated_in_archive\":%s,", bLatestInZip ? "true" : "false");
    bad |= ps_buf_puts(&mj, "\"csv_files_are_machine_readable_source_for_external_charts\":true}}");
    bad |= ps_json_pretty(&man, mj.z, mj.n);
    zManifest = bad ? 0 : sqlite3_mprintf("%.*s", (int)mj.n, mj.z);
    ps_buf_free(&mj);
    if( bad || zManifest==0 ) r.rc = SQLITE_NOMEM;
  }
  /* write: the whole set into a staging directory in out_dir, then moved into place (ext/writer.h,
  ** PsStage): the dated archive (or the dated files loose) first, the latest files after it,
  ** manifest.json last. A failure before the move leaves the previous set as it was. */
  PsStage *stg = 0;
  if( r.rc==SQLITE_OK ){
    stg = ps_stage_open(zDir, &err);
    if( stg==0 ){ r.rc = err.rc==PS_NOMEM ? SQLITE_NOMEM : SQLITE_ERROR; r.zErr = sqlite3_mprintf("%s", err.msg); }
  }
#define OUT(name, buf) do{ if( r.rc==SQLITE_OK ){ \
    if( ps_stage_write(stg, name, (buf).z ? (buf).z : "", (buf).n, &err) ){ r.rc = SQLITE_ERROR; r.zErr = sqlite3_mprintf("%s", err.msg); } } }while(0)
  if( r.rc==SQLITE_OK ){
    char zName[200];
    if( bZip ){
      PsZip *z = ps_stage_zip_open(stg, zArchive, &err);
      int rc = z ? PS_OK : PS_ERROR;
#define ADD(name, buf) do{ if( rc==PS_OK ) rc = ps_zip_add(z, name, (buf).z ? (buf).z : "", (buf).n, &err); }while(0)
      ADD("manifest.json", man);
      if( bJson ){
        snprintf(zName, sizeof(zName), "profiler_report_%s.json", zStamp); ADD(zName, js);
        if( bLatestInZip ) ADD("profiler_report_latest.json", js);
      }
      if( bMd ){
        snprintf(zName, sizeof(zName), "profiler_report_%s.md", zStamp); ADD(zName, md);
        if( bLatestInZip ) ADD("profiler_report_latest.md", md);
      }
      for(int k=0; k<N_CSV && bCsv; k++){
        snprintf(zName, sizeof(zName), "profiler_%s_%s.csv", aCsv[k].zKind, zStamp); ADD(zName, aOut[k]);
        if( bLatestInZip ){ snprintf(zName, sizeof(zName), "profiler_%s_latest.csv", aCsv[k].zKind); ADD(zName, aOut[k]); }
      }
      if( bFg ){
        snprintf(zName, sizeof(zName), "profiler_flamegraph_%s.svg", zStamp); ADD(zName, fg);
        if( bLatestInZip ) ADD("profiler_flamegraph_latest.svg", fg);
      }
#undef ADD
      if( z && ps_zip_close(z, rc==PS_OK, &err) ) rc = PS_ERROR;
      if( rc==PS_OK ) rc = ps_stage_note(stg, zArchive, &err);
      if( rc ){ r.rc = SQLITE_ERROR; r.zErr = sqlite3_mprintf("%s", err.msg); }
    }else{
      if( bJson ){ snprintf(zName, sizeof(zName), "profiler_report_%s.json", zStamp); OUT(zName, js); }
      if( bMd ){ snprintf(zName, sizeof(zName), "profiler_report_%s.md", zStamp); OUT(zName, md); }
      for(int k=0; k<N_CSV && bCsv; k++){
        snprintf(zName, sizeof(zName), "profiler_%s_%s.csv", aCsv[k].zKind, zStamp); OUT(zName, aOut[k]);
      }
      if( bFg ){ snprintf(zName, sizeof(zName), "profiler_flamegraph_%s.svg", zStamp); OUT(zName, fg); }
    }
    if( bJson ) OUT("profiler_report_latest.json", js);
    if( bMd ) OUT("profiler_report_latest.md", md);
    for(int k=0; k<N_CSV && bCsv; k++){
      snprintf(zName, sizeof(zName), "profiler_%s_latest.csv", aCsv[k].zKind);
      OUT(zName, aOut[k]);
    }
    if( bFg ) OUT("profiler_flamegraph_latest.svg", fg);
    if( !bZip ) OUT("manifest.json", man);
  }
#undef OUT
  if( r.rc==SQLITE_OK && ps_stage_commit(stg, &err) ){
    r.rc = err.rc==PS_NOMEM ? SQLITE_NOMEM : SQLITE_ERROR; r.zErr = sqlite3_mprintf("%s", err.msg);
  }
  ps_stage_close(stg);
  int rcSave = r.rc; char *zErrSave = r.zErr;
  r.rc = SQLITE_OK; r.zErr = 0;
  rep_exec(&r, "DROP TABLE IF EXISTS temp.profsql_rj");
  for(int k=0; k<(int)(sizeof(azAggDef)/sizeof(azAggDef[0])); k++){
    char *zDrop = sqlite3_mprintf("DROP TABLE IF EXISTS temp.profsql_ag_%s", azAggDef[k][0]);
    if( zDrop ){ r.rc = SQLITE_OK; rep_exec(&r, zDrop); sqlite3_free(zDrop); }
  }
  sqlite3_free(r.zErr);
  if( rcSave==SQLITE_NOMEM && zErrSave==0 ) sqlite3_result_error_nomem(ctx);
  else if( rcSave ){
    char *m = sqlite3_mprintf("profile_report: %s", zErrSave ? zErrSave : "failed");
    sqlite3_result_error(ctx, m, -1); sqlite3_free(m);
    if( rcSave==SQLITE_INTERRUPT ) sqlite3_result_error_code(ctx, SQLITE_INTERRUPT);
  }else{
    sqlite3_result_text(ctx, man.z ? man.z : "{}", (int)man.n, SQLITE_TRANSIENT);
  }
  sqlite3_free(zErrSave);
  for(int k=0; k<N_CSV; k++) ps_buf_free(&aOut[k]);
  ps_buf_free(&md); ps_buf_free(&js); ps_buf_free(&man); ps_buf_free(&fg);
  sqlite3_free(zPrefix); sqlite3_free(zReason); sqlite3_free(zReasonJson); sqlite3_free(zRunStart); sqlite3_free(zJson); sqlite3_free(zManifest);
  for(int k=0; k<5; k++) sqlite3_value_free(r.apArg[k]);
}

int ps_report_register(sqlite3 *db, PsConn *pConn){
  int rc = sqlite3_create_function(db, "profile_fixed", 2, SQLITE_UTF8|SQLITE_DETERMINISTIC|SQLITE_INNOCUOUS,
                                   0, fixedFunc, 0, 0);
  if( rc==SQLITE_OK ) rc = sqlite3_create_function(db, "profile_write_csv", 2, SQLITE_UTF8|SQLITE_DIRECTONLY, 0, csvFunc, 0, 0);
  if( rc==SQLITE_OK ) rc = sqlite3_create_function(db, "profile_write_markdown", 2, SQLITE_UTF8|SQLITE_DIRECTONLY, 0, mdFunc, 0, 0);
  if( rc==SQLITE_OK ) rc = ps_register_conn_function(db, pConn, "profile_zip", -1, -1, zipFunc);
  if( rc==SQLITE_OK ) rc = ps_register_conn_function(db, pConn, "profile_report", 2, 3, reportFunc);
  return rc;
}
