/*
** report.c — the report writers, as SQL functions:
**
**   profile_fixed(x, n)                 TEXT: x with n decimals exactly as C's "%.*f" (the digits
**                                       Rust's "{:.n}" gives; SQLite's printf keeps only ~16
**                                       significant digits); NULL for NULL. INNOCUOUS.
**   profile_float(x)                    TEXT: x as serde_json writes an f64, the shortest decimal
**                                       that reads back as the same double (1.0, 2.977057142857143,
**                                       1e-7, 1e16); NULL for NULL, NaN, infinities. INNOCUOUS.
**   profile_write_csv(path, query [, options_json])
**                                       runs query, writes its rows as CSV (RFC 4180: header of
**                                       the column names, a cell quoted only when it holds , " or
**                                       a line break; NULL is empty); returns the row count.
**                                       options_json {"formula_prefix": true}: a TEXT or BLOB
**                                       cell starting with = + - @ tab or CR gets a leading '
**                                       (OWASP's CSV-injection defence; default false: cells as
**                                       they are, as the StarProfiler writes them)
**   profile_write_markdown(path, query) the same as a GitHub-flavoured Markdown table, every cell
**                                       escaped to render as its text (writer.h ps_md_cell: no
**                                       HTML, link, image or emphasis from the data)
**   profile_zip(zip_path, file, ...)    archives the files (deflate, zlib's minizip) under their
**                                       base names; returns the member count
**   profile_report(source, out_dir [, options_json])
**                                       writes the StarProfiler's report set computed by SQL over
**                                       profile_jobs(source); returns the manifest (JSON text).
**                                       Of a StarProfiler report the JSON is the input's bytes
**                                       (zReportJson says what is recomputed, what is read).
**                                       Options: docs/profile_report.md; among them
**                                       max_csv_rows (default 100000, 0 = every row): the rows
**                                       the per-row CSVs (jobs, timeline, active_jobs) keep,
**                                       the first in job order; a cut is stated in the report
**                                       (a 'csv_rows_capped' diagnostics row, in the CSV and
**                                       the JSON, and a "Capped files" Markdown section).
**                                       Its temp tables hold a row per job; for 65536 jobs
**                                       or more, a connection without a temp database gets
**                                       one of 64 KiB pages
**
** Every function that writes is SQLITE_DIRECTONLY (a view or trigger of a database someone else
** wrote cannot call it). Files are written to a temporary name in the target directory and
** renamed into place (ext/writers/writer.c): a failure never leaves a half-written file or destroys the
** previous one. Errors name the file and the reason ("profile_report: cannot write 'x': ...").
** The Markdown is data first: sql/report_model.sql chooses the capture's report model (what it
** ranks as a consumer, what time counts, what idle is), its file sql/report_<model>.sql computes
** the figures with SQL and lists the sections, and rep_markdown_model draws them; no code here
** is per format.
** The report's rules and files: docs/profile_report.md; the writer being reproduced:
** ../shared/corpus/README.md, "newengine StarProfiler".
*/
#include "../ps_vtab.h"
#include "../../ext/formats/jobs.h"
#include "../../ext/writers/writer.h"
#include "../../ext/writers/flame.h"
#include "report_groups.h"
#include "sql_text.h"
SQLITE_EXTENSION_INIT3

#include <math.h>
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

/* profile_float(x): x as serde_json writes an f64 (ext/writers/writer.h, ps_fmt_float: the shortest
** decimal that reads back as the same double: 1.0, 0.1, 2.977057142857143, 1e-7, 1e16); NULL for
** NULL, NaN and infinities. A number given as TEXT or INTEGER is read as a double first.
** INNOCUOUS. docs/profile_report.md "The report JSON". */
static void floatFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  (void)argc;
  int t = sqlite3_value_numeric_type(argv[0]);
  if( t!=SQLITE_INTEGER && t!=SQLITE_FLOAT ) return;
  char buf[PS_FLOAT_BUF];
  double v = sqlite3_value_double(argv[0]);
  if( !isfinite(v) ) return;
  size_t n = ps_fmt_float(buf, v);
  sqlite3_result_text(ctx, buf, (int)n, SQLITE_TRANSIENT);
}

/* ------------------------------------------------------------------ query -> text */

struct Rep;
static void rep_bind_caps(struct Rep *r, sqlite3_stmt *st);

/* What render_query writes: */
#define RQ_CSV         0   /* CSV as the StarProfiler writes it (ps_csv_cell) */
#define RQ_MD          1   /* a Markdown table (ps_md_cell) */
#define RQ_CSV_FORMULA 2   /* CSV whose TEXT and BLOB cells that a spreadsheet would take for a
                           ** formula get OWASP's "'" first (PS_CSV_FORMULA_PREFIX); numbers never */

/* Runs zSql (parameters bound from apArg, and ?20 ?21 ?22 from pRep when given: rep_bind_caps) and
** renders the rows as eForm says (RQ_CSV, RQ_MD, RQ_CSV_FORMULA) into b: a header of the column
** names, then a line per row. Every cell obeys the text rule (writer.h). Returns SQLITE_OK and
** *pnRow, or an error with *pzErr (sqlite3_malloc). */
static int render_query(sqlite3 *db, const char *zSql, sqlite3_value **apArg, int nArg, int eForm,
                        PsBuf *b, sqlite3_int64 *pnRow, char **pzErr, struct Rep *pRep){
  int bMd = eForm==RQ_MD;
  unsigned mCsv = eForm==RQ_CSV_FORMULA ? PS_CSV_FORMULA_PREFIX : 0;
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
  if( pRep ) rep_bind_caps(pRep, st);
  int nCol = sqlite3_column_count(st);
  int bad = 0;
  if( bMd ) bad |= ps_buf_puts(b, "|");
  for(int c=0; c<nCol; c++){
    const char *z = sqlite3_column_name(st, c);
    if( bMd ){ bad |= ps_buf_puts(b, " ") | ps_md_cell(b, z, strlen(z)) | ps_buf_puts(b, " |"); }
    else{ if( c ) bad |= ps_buf_puts(b, ","); bad |= ps_csv_cell_ex(b, z, strlen(z), mCsv); }
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
      int t = sqlite3_column_type(st, c);          /* before the text conversion */
      const char *z = (const char*)sqlite3_column_text(st, c);
      size_t n = (size_t)sqlite3_column_bytes(st, c);
      if( z==0 ){ z = ""; n = 0; }
      if( bMd ){ bad |= ps_buf_puts(b, " ") | ps_md_cell(b, z, n) | ps_buf_puts(b, " |"); }
      else{
        if( c ) bad |= ps_buf_puts(b, ",");
        bad |= ps_csv_cell_ex(b, z, n, t==SQLITE_TEXT || t==SQLITE_BLOB ? mCsv : 0);
      }
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

/* profile_write_csv's options_json (NULL or SQL NULL: none): an object whose only key is
** "formula_prefix" (true or false, default false; null is the default). Sets *pbPrefix. NULL
** when fine, else the message (sqlite3_malloc'ed): "options_json must be a JSON object, e.g.
** {\"formula_prefix\": true}", "unknown option 'x' (options: formula_prefix)", "option
** 'formula_prefix' must be true or false, not text \"yes\"". */
static char *csv_options(sqlite3 *db, sqlite3_value *pOpt, int *pbPrefix){
  *pbPrefix = 0;
  if( pOpt==0 || sqlite3_value_type(pOpt)==SQLITE_NULL ) return 0;
  sqlite3_stmt *st = 0;
  char *zMsg = 0;
  int rc = sqlite3_prepare_v2(db, "SELECT o.key, o.type, substr(o.value, 1, 40) FROM json_each(?1) o "
                              "WHERE json_valid(?1) AND json_type(?1)='object' UNION ALL "
                              "SELECT NULL, NULL, NULL WHERE NOT coalesce(json_valid(?1) AND json_type(?1)='object', 0)", -1, &st, 0);
  if( rc ) return sqlite3_mprintf("%s", sqlite3_errmsg(db));
  if( sqlite3_value_type(pOpt)==SQLITE_TEXT ) sqlite3_bind_value(st, 1, pOpt);
  while( zMsg==0 && sqlite3_step(st)==SQLITE_ROW ){
    const char *zKey = (const char*)sqlite3_column_text(st, 0);
    const char *zType = (const char*)sqlite3_column_text(st, 1);
    const char *zVal = (const char*)sqlite3_column_text(st, 2);
    if( zKey==0 || zType==0 ){
      zMsg = sqlite3_mprintf("options_json must be a JSON object, e.g. {\"formula_prefix\": true}");
    }else if( strcmp(zKey, "formula_prefix")!=0 ){
      zMsg = sqlite3_mprintf("unknown option '%s' (options: formula_prefix)", zKey);
    }else if( strcmp(zType, "true")==0 || strcmp(zType, "false")==0 || strcmp(zType, "null")==0 ){
      *pbPrefix = strcmp(zType, "true")==0;
    }else{
      int bQuote = strcmp(zType, "text")==0, bShow = strcmp(zType, "object") && strcmp(zType, "array");
      zMsg = sqlite3_mprintf("option 'formula_prefix' must be true or false, not %s%s%s%s%s", zType,
                             bShow ? " " : "", bQuote ? "\"" : "", bShow && zVal ? zVal : "", bQuote ? "\"" : "");
    }
  }
  sqlite3_finalize(st);
  return zMsg;
}

static void writeQueryFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv, int bMd){
  const char *zFn = bMd ? "profile_write_markdown" : "profile_write_csv";
  const char *zPath = (const char*)sqlite3_value_text(argv[0]);
  const char *zSql = (const char*)sqlite3_value_text(argv[1]);
  if( zPath==0 || zSql==0 ){
    char *z = sqlite3_mprintf("%s: expected (path TEXT, query TEXT%s)", zFn, bMd ? "" : " [, options_json]");
    sqlite3_result_error(ctx, z, -1); sqlite3_free(z); return;
  }
  int bPrefix = 0;
  if( !bMd ){
    char *zOptErr = csv_options(sqlite3_context_db_handle(ctx), argc>2 ? argv[2] : 0, &bPrefix);
    if( zOptErr ){
      char *z = sqlite3_mprintf("%s: %s", zFn, zOptErr);
      sqlite3_result_error(ctx, z ? z : "out of memory", -1); sqlite3_free(z); sqlite3_free(zOptErr); return;
    }
  }
  PsBuf b; memset(&b, 0, sizeof(b));
  sqlite3_int64 nRow = 0; char *zErr = 0;
  int rc = render_query(sqlite3_context_db_handle(ctx), zSql, 0, 0, bMd ? RQ_MD : bPrefix ? RQ_CSV_FORMULA : RQ_CSV,
                        &b, &nRow, &zErr, 0);
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

/* SQL cell formats of the StarProfiler's CSV helpers (ext/formats/jobs.h describes the columns):
** S(x) a string or "", F(x) "%.6f" or "", B(x) true/false, U(x) an integer or "",
** X(x) format_json_scalar: text as is, numbers "%.3f". */
#define S(x) "ifnull(" x ",'')"
/* ?22, the active jobs' count (r->nActive, rep_bind_caps): a constant term, which SQLite tests
** once before the loop, so that a capture without active jobs (every format but the StarProfiler's)
** does not scan the million jobs for none */
#define ANY_ACTIVE "?22 > 0"
#define F(x) "ifnull(profile_fixed(" x ",6),'')"
#define B(x) "CASE WHEN " x " THEN 'true' ELSE 'false' END"
#define U(x) "ifnull(CAST(" x " AS INTEGER),'')"
#define X(x) "CASE typeof(" x ") WHEN 'null' THEN '' WHEN 'text' THEN " x " WHEN 'blob' THEN '' ELSE profile_fixed(" x ",3) END"
#define LOADPCT(x) "profile_fixed(ifnull(CAST(profile_fixed(" x ",6) AS REAL),0.0)*100.0,3)"
#define LOADOVER(x) "CASE WHEN ifnull(CAST(profile_fixed(" x ",6) AS REAL),0.0) >= 1.0 THEN 'true' ELSE 'false' END"

/* The columns of profile_jobs the jobs table keeps: those the report reads. Not metadata (the
** job's JSON object, read from the capture for each of a million jobs only to be dropped: the
** report JSON reads it for the jobs it lists, into temp.profsql_jm), nor job_list (done_ says
** it), byte_offset or file: the table is scanned some twenty times, and its rows are its size.
** RJ_LIST names them once: C a column every job may fill, N one a job of another format has NULL,
** Z one it has 0 (RJ_COLS_DERIVED). */
#define RJ_LIST(C, N, Z) \
  C("id") ", " C("status") ", " C("category") ", " C("source") ", " C("lane") ", " N("priority") ", " \
  N("dependency_group") ", " N("frame_id") ", " N("task_domain") ", " N("task_pass") ", " N("executor") ", " \
  C("name") ", " C("elapsed_ms") ", " C("budget_ms") ", " N("frame_budget_ms") ", " C("load") ", " \
  C("load_percent") ", " C("over_budget") ", " Z("exceeded_frame_budget") ", " N("gpu_wait_ms") ", " \
  N("wait_reason") ", " Z("scheduled") ", " Z("blocked") ", " Z("polling") ", " Z("waited_on_gpu") ", " \
  Z("stayed_async") ", " N("async_mode") ", " C("started_unix_ms") ", " C("ended_unix_ms") ", " \
  N("payload_bytes") ", " N("output_bytes") ", " N("service_id") ", " N("method") ", " N("plugin_id") ", " \
  N("gateway") ", " N("error") ", " N("detail") ", " N("active_elapsed_ms") ", " N("current_load") ", " \
  N("progress") ", " C("owner") ", " C("method_name") ", " C("self_ms")
#define RJ_COL(c) c
#define RJ_NULL(c) "NULL AS " c
#define RJ_ZERO(c) "0 AS " c
#define RJ_COLS RJ_LIST(RJ_COL, RJ_COL, RJ_COL)
/* The jobs table every query below reads: profile_jobs with the options' budget overrides
** applied, and the writer's grouping keys (owner and method_name come from profile_jobs). The
** columns most scans read (k, done_, e_, l_, ...) come first: SQLite finds a column by walking the
** record header up to it, in each of a million rows per scan. */
#define JOBS_TABLE(BO, COLS) \
  "WITH b(cat, ms) AS MATERIALIZED (SELECT key, value FROM json_each(?2, '$.budgets_ms') WHERE typeof(value) IN ('integer','real')), " \
  "j AS (SELECT rowid AS k, " COLS ", job_list='completed_jobs' AS done_, " BO " AS bo_ FROM profile_jobs(?1)) " \
  "SELECT k, done_, ifnull(elapsed_ms,0.0) AS e_, " \
  "  coalesce(bo_, budget_ms) AS budget2_, " \
  "  CASE WHEN bo_ IS NOT NULL THEN ifnull(elapsed_ms,0.0)/bo_ ELSE load END AS load2_, " \
  "  ifnull(CASE WHEN bo_ IS NOT NULL THEN ifnull(elapsed_ms,0.0)/bo_ ELSE load END, 0.0) AS l_, " \
  "  status='failed' AS failed_, " \
  "  (ifnull(ifnull(elapsed_ms,0.0) >= ?3, 0) OR ifnull(CASE WHEN bo_ IS NOT NULL THEN ifnull(elapsed_ms,0.0)/bo_ ELSE load END,0.0) >= 1.0) AS slow_, " \
  "  ifnull(CAST(payload_bytes AS INTEGER),0) AS pb_, ifnull(CAST(output_bytes AS INTEGER),0) AS ob_, " \
  "  " RJ_COLS ", bo_ " \
  "FROM j"
/* bo_, the budget the options give a job: budgets_ms by category (else its '*'), else budget_ms
** for a job that has no budget or load of its own */
#define BO_OPTIONS \
  "coalesce((SELECT ms FROM b WHERE cat=category), (SELECT ms FROM b WHERE cat='*'), " \
  "  CASE WHEN budget_ms IS NULL AND load IS NULL AND json_type(?2,'$.budget_ms') IN ('integer','real') " \
  "       AND json_extract(?2,'$.budget_ms') > 0 THEN json_extract(?2,'$.budget_ms') END)"
/* RJ_COLS of a capture that is not a StarProfiler report (no job rows of its own: slices, records;
** the report's format is neither newengine nor mixed): profile_jobs gives such a row "every other
** column NULL or 0" (vtab/profile_jobs.c, docs/profile_jobs.md), so those (N, Z of RJ_LIST) are
** not asked of it, 27 calls a row fewer */
#define RJ_COLS_DERIVED RJ_LIST(RJ_COL, RJ_NULL, RJ_ZERO)
/* [a capture of derived jobs][the options name a budget (budgets_ms or budget_ms): else no
** lookup, two subqueries a job less] */
static const char *const azJobsTable[2][2] = {
  { JOBS_TABLE("NULL", RJ_COLS), JOBS_TABLE(BO_OPTIONS, RJ_COLS) },
  { JOBS_TABLE("NULL", RJ_COLS_DERIVED), JOBS_TABLE(BO_OPTIONS, RJ_COLS_DERIVED) },
};
/* The writer's grouping keys: offender (owner::method, else the name), method, lane. */
#define OKEY "owner||'::'||coalesce(method_name,name,'')"
#define MKEY "owner||'::'||ifnull(method_name,'<no-method>')"
#define LKEY "CASE WHEN trim(ifnull(lane,''))='' THEN 'unspecified' ELSE lane END"

/* One grouping of the completed jobs by key expression K (the writer's AggregateStats, numbers
** raw, and the counts the summary and profiler_first take): temp.profsql_gr_<x>(GR_COLS), k0 the
** group's first job. Filled by ps_report_groups (vtab/report/report_groups.h: the same rows from one
** scan for every grouping: the values of GR_VALS and SL_VALS, aggregated as aGrAgg says), else by
** this query. GROUP_ALL is the grouping of every job in one row (none without jobs): the totals.
** The slices' groupings (SL_COLS) are tables of the same columns, filled by the same scan. */
#define GR_COLS "key, k0, n, failed, slow, tot, mx, ml, pb, ob, over, sch, blk, pol, gpu, asy, fb, emax, smin, v, cats, kl"
#define NUM_OR_NULL(c) "CASE WHEN typeof(" c ") IN ('integer','real') THEN " c " END"
#define GR_VALS_OF(Z) "failed_, slow_, e_, e_, l_, " Z("pb_") ", " Z("ob_") ", l_ >= 1.0, " Z("scheduled") ", " \
  Z("blocked") ", " Z("polling") ", " Z("waited_on_gpu") ", " Z("stayed_async") ", " Z("exceeded_frame_budget") ", " \
  NUM_OR_NULL("ended_unix_ms") ", " NUM_OR_NULL("started_unix_ms")
/* GR_VALS as the scan reads them: the columns, or for a capture of derived jobs, whose jobs table
** holds 0 in every row of those columns (RJ_COLS_DERIVED's Z: scheduled ... exceeded_frame_budget;
** pb_ and ob_ from NULL payload and output bytes), the literal 0 each; with the lists' frame
** columns (frame_budget_ms NULL, exceeded_frame_budget 0: rep_groups) ten of the scan's column
** reads a row fewer, the same values (0.06-0.09 s of the 1M-event trace's scan) */
#define GR_COL(c) c
#define GR_ZERO(c) "0"
#define GR_NULL(c) "NULL"
#define GR_VALS GR_VALS_OF(GR_COL)
#define GR_VALS_DERIVED GR_VALS_OF(GR_ZERO)
/* the last three values, v, cats and kl, are the slices' (SL_VALS: the Markdown of a trace reads
** them), NULL in a report without that Markdown */
#define SL_VALS "self_ms, category, k"
#define GR_V_E 2                /* (the values of GR_VALS that are e_ and l_) */
#define GR_V_L 4
static const int aGrAgg[] = { PS_AGG_SUM, PS_AGG_SUM, PS_AGG_SUM, PS_AGG_MAX, PS_AGG_MAX, PS_AGG_SUM, PS_AGG_SUM,
                              PS_AGG_SUM, PS_AGG_SUM, PS_AGG_SUM, PS_AGG_SUM, PS_AGG_SUM, PS_AGG_SUM, PS_AGG_SUM,
                              PS_AGG_MAX, PS_AGG_MIN, PS_AGG_SUM, PS_AGG_DISTINCT, PS_AGG_MAX };
#define GROUP_SELECT(K, WHERE) \
  "SELECT " K " AS key, min(k) AS k0, count(*) AS n, sum(failed_) AS failed, sum(slow_) AS slow, " \
  "  sum(e_) AS tot, max(e_) AS mx, max(l_) AS ml, sum(pb_) AS pb, sum(ob_) AS ob, sum(l_ >= 1.0) AS over, " \
  "  sum(scheduled) AS sch, sum(blocked) AS blk, sum(polling) AS pol, sum(waited_on_gpu) AS gpu, " \
  "  sum(stayed_async) AS asy, sum(exceeded_frame_budget) AS fb, max(" NUM_OR_NULL("ended_unix_ms") ") AS emax, " \
  "  min(" NUM_OR_NULL("started_unix_ms") ") AS smin, NULL AS v, NULL AS cats, NULL AS kl FROM profsql_rj" WHERE
#define GROUP_RAW(K) GROUP_SELECT(K, " WHERE done_") " GROUP BY " K
#define GROUP_ALL GROUP_SELECT("NULL", " WHERE done_") " HAVING count(*) > 0"
/* every job, active ones included (r): their count, last end and first start */
#define GROUP_ROWS GROUP_SELECT("NULL", "") " HAVING count(*) > 0"
/* the summed elapsed_ms of the completed jobs (NULL without any), which every ranked aggregate's
** share is of */
#define RT_TOTAL "SELECT (SELECT tot FROM temp.profsql_gr_a) AS total"
/* The totals of the completed jobs (one row, 0 without jobs): n, tot, mx, failed, slow, over, pb,
** ob and the profiler-first counts, from GROUP_ALL */
#define TOTALS \
  "SELECT ifnull(a.n,0) AS n, ifnull(a.tot,0.0) AS tot, ifnull(a.mx,0.0) AS mx, ifnull(a.failed,0) AS failed, " \
  "  ifnull(a.slow,0) AS slow, ifnull(a.over,0) AS over, ifnull(a.pb,0) AS pb, ifnull(a.ob,0) AS ob, " \
  "  ifnull(a.sch,0) AS sch, ifnull(a.blk,0) AS blk, ifnull(a.pol,0) AS pol, ifnull(a.gpu,0) AS gpu, " \
  "  ifnull(a.asy,0) AS asy, ifnull(a.fb,0) AS fb FROM (SELECT 1) LEFT JOIN temp.profsql_gr_a a"
/* A grouping ranked: temp table G of GROUP_RAW's rows, with the category of the group given by
** CAT; numbers raw: tot, share, avg, mx, ml, pb, ob. The group's category, source and
** sample_name are its first job's (the writer's or_insert_with). */
#define AGG_RAW(G, CAT) \
  "WITH t(total) AS (" RT_TOTAL ") " \
  "SELECT row_number() OVER (ORDER BY g.tot DESC, g.key) AS rank, g.key AS key, " CAT " AS category, " \
  "  ifnull(r.source,'') AS source, ifnull(r.name,'') AS sample_name, g.n AS count, g.failed AS failed, " \
  "  g.slow AS slow, g.tot AS tot, CASE WHEN t.total>0 THEN g.tot/t.total*100.0 ELSE 0.0 END AS share, " \
  "  g.tot/g.n AS avg, g.mx AS mx, g.ml AS ml, g.pb AS pb, g.ob AS ob " \
  "FROM temp." G " g JOIN profsql_rj r ON r.k=g.k0, t ORDER BY g.tot DESC, g.key LIMIT ?4"
#define AGG_CSV(RAW) \
  "SELECT rank, key, category, source, sample_name, count, failed, slow, " \
  "  profile_fixed(tot,6) AS total_elapsed_ms, profile_fixed(share,6) AS total_share_percent, " \
  "  profile_fixed(avg,6) AS average_elapsed_ms, profile_fixed(mx,6) AS max_elapsed_ms, " \
  "  profile_fixed(ml,6) AS max_load, pb AS total_payload_bytes, ob AS total_output_bytes FROM (" RAW ")"
#define AGG_JSON(RAW) \
  "SELECT json_group_array(json_object('average_elapsed_ms'," F64("avg") ",'category',category,'count',count," \
  "  'failed',failed,'key',key,'max_elapsed_ms'," F64("mx") ",'max_load'," F64("ml") ",'sample_name',sample_name,'slow',slow," \
  "  'source',source,'total_elapsed_ms'," F64("tot") ",'total_output_bytes',ob,'total_payload_bytes',pb," \
  "  'total_share_percent'," F64("share") ")) FROM (" RAW ")"
/* An f64 of the writer as JSON: the shortest round-trip form ("1.0", "2.977057142857143"),
** null for NULL (SQLite's json_object would print a REAL with 15 significant digits). */
#define F64(x) "json(profile_float(" x "))"

/* The groupings (x, key, its GROUP_RAW query): the first five are ranked once per report into
** temp tables (profsql_ag_<x>, AGG_RAW) read by the CSV, JSON and Markdown writers; the
** categories (c) are read by CAT_GROUPS, the statuses (t) by the JSON's summary.by_status, the
** totals (a, no key) by TOTALS. */
/* the values (bits of GR_VALS) a grouping aggregates, the others left NULL: the ranked ones
** failed..ob, the categories failed..mx, the statuses failed_ alone (they need their count; 0
** would be every value), the totals of the completed jobs all but the last two, the jobs with
** the active ones (r, no done_ filter) those two: the last end and the first start */
#define GR_RANKED 0x7f
static const struct { const char *zX, *zKey, *zRaw, *zRanked; unsigned mVal; int bActiveToo; } aGroup[] = {
  { "o", OKEY,                 GROUP_RAW(OKEY),                 AGG_RAW("profsql_gr_o", "ifnull(r.category,'')"), GR_RANKED, 0 },  /* offenders */
  { "s", "ifnull(source,'')",  GROUP_RAW("ifnull(source,'')"),  AGG_RAW("profsql_gr_s", "'*'"), GR_RANKED, 0 },                    /* sources */
  { "m", MKEY,                 GROUP_RAW(MKEY),                 AGG_RAW("profsql_gr_m", "ifnull(r.category,'')"), GR_RANKED, 0 },  /* methods */
  { "l", LKEY,                 GROUP_RAW(LKEY),                 AGG_RAW("profsql_gr_l", "ifnull(r.category,'')"), GR_RANKED, 0 },  /* lanes */
  { "w", "owner",              GROUP_RAW("owner"),              AGG_RAW("profsql_gr_w", "ifnull(r.category,'')"), GR_RANKED, 0 },  /* owners */
  { "c", "ifnull(category,'')", GROUP_RAW("ifnull(category,'')"), 0, 0x0f, 0 },                                                   /* categories */
  { "t", "ifnull(status,'')",  GROUP_RAW("ifnull(status,'')"),  0, 0x1, 0 },                                                     /* statuses */
  { "a", 0,                    GROUP_ALL,                       0, 0x3fff, 0 },                                                  /* totals */
  { "r", 0,                    GROUP_ROWS,                      0, 0xc000, 1 },                                                  /* all jobs */
};
#define N_GROUP ((int)(sizeof(aGroup)/sizeof(aGroup[0])))
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

/* The first N completed jobs in ORDER under condition COND, joined back to their rows: the
** sorter holds the order's keys and k, not every column of a million rows (a query that ranks
** with row_number() orders the joined rows again by the same keys, which end in k: no ties). */
#define TOPJ(COND, ORDER, N) "(SELECT k AS top_k FROM profsql_rj WHERE " COND " ORDER BY " ORDER " LIMIT " N ") " \
  "JOIN profsql_rj ON k = top_k"
/* the first N jobs of ranked list l of temp.profsql_jl (rep_job_lists: azJobList), joined to their
** rows: what TOPJ with that list's condition and order gives, without sorting the jobs again */
#define JLJ(l, N) "(SELECT k AS top_k FROM temp.profsql_jl WHERE l=" #l " AND pos < " N ") JOIN profsql_rj ON k = top_k"
#define O_LOAD "l_ DESC, e_ DESC, ifnull(name,''), k"
#define O_FRAME "max(e_ - ifnull(frame_budget_ms,0.0), 0.0) DESC, e_ DESC, ifnull(name,''), k"
#define O_ELAPSED "e_ DESC, ifnull(name,''), k"

/* Per category (the writer's CategoryStats): category, n, failed, slow, tot, mx. */
#define CAT_GROUPS "SELECT key AS category, n, failed, slow, tot, mx FROM temp.profsql_gr_c"

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
  "FROM profsql_rj WHERE done_ ORDER BY k LIMIT ifnull(?20,-1)";

/* Categories ranked (the writer's by_category_ranked), numbers raw: rank, category, n, failed,
** slow, tot, share. Read by the CSV and the Markdown chart. */
#define CAT_RANKED \
  "WITH t(total) AS (" RT_TOTAL "), g AS (" CAT_GROUPS ") " \
  "SELECT row_number() OVER (ORDER BY tot DESC, category) AS rank, category, n, failed, slow, tot, mx, " \
  "  CASE WHEN t.total>0 THEN tot/t.total*100.0 ELSE 0.0 END AS share FROM g, t ORDER BY tot DESC, category"

static const char zCsvCategories[] =
  "SELECT rank, category, n AS count, failed, slow, profile_fixed(tot,6) AS total_elapsed_ms, "
  "  profile_fixed(share,6) AS total_share_percent, profile_fixed(tot/n,6) AS average_elapsed_ms, "
  "  profile_fixed(mx,6) AS max_elapsed_ms FROM (" CAT_RANKED ")";

static const char zCsvBudget[] =
  "SELECT row_number() OVER (ORDER BY " O_LOAD ") AS rank, "
  JOB_HEAD_COLS  F("elapsed_ms") " AS elapsed_ms, "
  F("budget2_") " AS budget_ms, " F("frame_budget_ms") " AS frame_budget_ms, " F("load2_") " AS load, "
  LOADPCT("load2_") " AS load_percent, " B("exceeded_frame_budget") " AS exceeded_frame_budget, "
  F("gpu_wait_ms") " AS gpu_wait_ms, " S("wait_reason") " AS wait_reason, " B("stayed_async") " AS stayed_async, "
  S("async_mode") " AS async_mode, " X("started_unix_ms") " AS started_unix_ms, " X("ended_unix_ms") " AS ended_unix_ms, "
  X("service_id") " AS service_id, " X("method") " AS method, " X("plugin_id") " AS plugin_id, "
  X("gateway") " AS gateway, " S("error") " AS error, " S("detail") " AS detail "
  "FROM " JLJ(1, "?4") " ORDER BY " O_LOAD;

static const char zCsvFrame[] =
  "SELECT row_number() OVER (ORDER BY " O_FRAME ") AS rank, "
  S("id") " AS id, " X("frame_id") " AS frame_id, " S("status") " AS status, " X("lane") " AS lane, "
  X("priority") " AS priority, " X("dependency_group") " AS dependency_group, " S("category") " AS category, "
  S("source") " AS source, " S("name") " AS name, " F("elapsed_ms") " AS elapsed_ms, "
  F("frame_budget_ms") " AS frame_budget_ms, "
  "profile_fixed(max(e_ - ifnull(frame_budget_ms,0.0), 0.0),6) AS over_frame_budget_ms, "
  F("gpu_wait_ms") " AS gpu_wait_ms, " S("wait_reason") " AS wait_reason, " B("stayed_async") " AS stayed_async, "
  S("async_mode") " AS async_mode, " S("detail") " AS detail "
  "FROM " JLJ(2, "?4") " ORDER BY " O_FRAME;

static const char zCsvActive[] =
  "SELECT " JOB_HEAD_COLS  F("active_elapsed_ms") " AS active_elapsed_ms, " F("budget2_") " AS budget_ms, "
  F("frame_budget_ms") " AS frame_budget_ms, profile_fixed(ifnull(current_load,0.0),6) AS current_load, "
  "profile_fixed(ifnull(current_load,0.0)*100.0,3) AS current_load_percent, "
  "CASE WHEN ifnull(current_load,0.0) >= 1.0 THEN 'true' ELSE 'false' END AS current_over_budget, "
  F("progress") " AS progress, " B("blocked") " AS blocked, " B("polling") " AS polling, "
  B("waited_on_gpu") " AS waited_on_gpu, " B("stayed_async") " AS stayed_async, "
  F("gpu_wait_ms") " AS gpu_wait_ms, " S("wait_reason") " AS wait_reason, " S("async_mode") " AS async_mode, "
  X("started_unix_ms") " AS started_unix_ms, " S("detail") " AS detail "
  "FROM profsql_rj WHERE NOT done_ AND " ANY_ACTIVE " ORDER BY k LIMIT ifnull(?20,-1)";

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
  "FROM profsql_rj WHERE done_ ORDER BY k LIMIT ifnull(?20,-1)";

static const char zCsvFirst[] =
  "WITH c AS (" TOTALS ") "
  "SELECT sch AS scheduled_jobs, blk AS blocked_jobs, "
  "  profile_fixed(CASE WHEN n>0 THEN blk*100.0/n ELSE 0.0 END,6) AS blocked_share_percent, "
  "  pol AS polling_jobs, gpu AS gpu_wait_jobs, "
  "  profile_fixed(CASE WHEN n>0 THEN gpu*100.0/n ELSE 0.0 END,6) AS gpu_wait_share_percent, "
  "  fb AS frame_budget_exceeded_jobs, asy AS async_jobs, "
  "  profile_fixed(CASE WHEN n>0 THEN asy*100.0/n ELSE 0.0 END,6) AS async_share_percent FROM c";

/* Diagnostics as JSON objects d: a report's own rows, else the capture's parse diagnostics
** (code = the kind, level 'warn'), then one 'csv_rows_capped' row per CSV cut short by the
** max_csv_rows option (?21, a JSON array; NULL when none was). The CSV and the report JSON both read these. */
#define DIAG_OBJECTS \
  "SELECT value AS d FROM profile_metadata(?1) WHERE scope='diagnostics' AND json_valid(value) UNION ALL " \
  "SELECT json_object('at_unix_ms',NULL,'code',key,'job_id',NULL,'level','warn','message',value) FROM profile_metadata(?1) " \
  "WHERE scope='diagnostic' AND key NOT LIKE '%\\_count' ESCAPE '\\' UNION ALL " \
  "SELECT value FROM json_each(?21)"
#define DSTR(k) "ifnull(CASE WHEN json_type(d,'$." k "')='text' THEN json_extract(d,'$." k "') END,'')"

static const char zCsvDiag[] =
  "SELECT " X("json_extract(d,'$.at_unix_ms')") " AS at_unix_ms, " DSTR("level") " AS level, "
  DSTR("code") " AS code, " DSTR("job_id") " AS job_id, " DSTR("message") " AS message "
  "FROM (" DIAG_OBJECTS ")";

/* The comparison with a baseline (option "baseline": temp.profsql_rp_diff, profile_diff's rows of
** the baseline against the capture, by name), every row, in profile_diff's order. */
static const char zCsvDiff[] =
  "SELECT key, base_count, test_count, base_ns, test_ns, base_self_ns, test_self_ns, delta_ns, "
  "  CASE WHEN ratio IS NULL THEN '' ELSE profile_fixed(ratio,6) END AS ratio, "
  "  ifnull(profile_fixed(base_share,6),'') AS base_share, ifnull(profile_fixed(test_share,6),'') AS test_share, change "
  "FROM temp.profsql_rp_diff ORDER BY rowid";

typedef struct CsvKind { const char *zKind; const char *zSql; } CsvKind;
/* In the writer's archive order. */
static const CsvKind aCsv[] = {
  { "jobs", zCsvJobs }, { "categories", zCsvCategories }, { "sources", zAggSources },
  { "top_offenders", zAggOffenders }, { "active_jobs", zCsvActive }, { "diagnostics", zCsvDiag },
  { "timeline", zCsvTimeline }, { "methods", zAggMethods }, { "budget_violations", zCsvBudget },
  { "lanes", zAggLanes }, { "first", zCsvFirst }, { "frame_budget", zCsvFrame },
  { "diff", zCsvDiff },        /* (the last: written only with a baseline; N_CSV_SET) */
};
#define N_CSV ((int)(sizeof(aCsv)/sizeof(aCsv[0])))
/* the CSVs of a report: the StarProfiler's twelve, and the comparison's with a baseline */
#define N_CSV_SET(bDiff) (N_CSV - ((bDiff) ? 0 : 1))

/* The state of one profile_report call. */
#define REP_N_TOP 4             /* the ranked lists of azJobList: 1..REP_N_TOP */
#define REP_STAGE_EARLY (1 << 20) /* a CSV this long is staged as soon as it is made (reportFunc) */
typedef struct Rep {
  sqlite3 *db;
  sqlite3_value *apArg[5];    /* ?1 source, ?2 options, ?3 slow_job_warn_ms, ?4 top limit, ?5 run start */
  char *zErr;                 /* sqlite3_malloc'ed */
  int rc;
  sqlite3_int64 nCap;         /* ?20: the rows a per-row CSV keeps (max_csv_rows); 0 every row */
  char *zCapNotes;            /* ?21: the 'csv_rows_capped' diagnostics (JSON array, sqlite3_malloc'ed), or NULL */
  sqlite3_int64 nJobs;        /* the rows of profsql_rj (its INSERT's count) */
  sqlite3_int64 nDone, nActive; /* ?22 nActive: completed / active jobs of profsql_rj (rep_groups' scan, else rep_counts) */
  sqlite3_int64 nBudgetJobs;  /* completed jobs with a budget (rep_groups' scan, else rep_budget_jobs; -1 not counted yet) */
  int bPct;                   /* 1 when aPct holds the percentiles (rep_percentiles) */
  double aPct[8];             /* ?12..?19: p50 p90 p95 p99 of e_, then of l_ */
  PsTopList aTop[REP_N_TOP];  /* ranked lists 1..4 of azJobList, picked by rep_groups' scan (bComplete 0: by SQL) */
  const char *zFormat;        /* ?11: the capture's format ('mixed' for several), NULL when it does not load */
} Rep;

/* Binds ?20 (the max_csv_rows cap, NULL for none), ?21 (the cap's diagnostics, NULL for none)
** and ?22 (the active jobs' count: ANY_ACTIVE) when st has them. */
static void rep_bind_caps(struct Rep *r, sqlite3_stmt *st){
  int n = sqlite3_bind_parameter_count(st);
  if( n < 20 ) return;
  if( r->nCap > 0 ) sqlite3_bind_int64(st, 20, r->nCap);
  if( r->zCapNotes ) sqlite3_bind_text(st, 21, r->zCapNotes, -1, SQLITE_STATIC);
  if( n >= 22 ) sqlite3_bind_int64(st, 22, r->nActive);
}

/* Binds ?1..?5 (r->apArg), ?11 (the format) and the caps (rep_bind_caps) as far as st has them. */
static void rep_bind_args(Rep *r, sqlite3_stmt *st){
  int n = sqlite3_bind_parameter_count(st);
  for(int k=0; k<n && k<5; k++) if( r->apArg[k] ) sqlite3_bind_value(st, k+1, r->apArg[k]);
  if( n >= 11 && r->zFormat ) sqlite3_bind_text(st, 11, r->zFormat, -1, SQLITE_STATIC);
  rep_bind_caps(r, st);
}

static int rep_exec(Rep *r, const char *zSql){
  if( r->rc ) return r->rc;
  sqlite3_stmt *st = 0;
  r->rc = sqlite3_prepare_v2(r->db, zSql, -1, &st, 0);
  if( r->rc==SQLITE_OK ){
    rep_bind_args(r, st);
    while( (r->rc = sqlite3_step(st))==SQLITE_ROW ){}
    if( r->rc==SQLITE_DONE ) r->rc = SQLITE_OK;
  }
  if( r->rc ) r->zErr = sqlite3_mprintf("%s", sqlite3_errmsg(r->db));
  sqlite3_finalize(st);
  return r->rc;
}

static int rep_table_reset(Rep *r, const char *zName);
static void rep_drop(Rep *r, const char *zName);

/* TEMP table zName filled by zSelect: created anew, or — when the previous call's could not be
** dropped because a statement of the caller reads the temp schema (SQLITE_LOCKED: e.g.
** profile_report((SELECT b FROM temp.t), dir)) — emptied and refilled; its columns are the same
** every time. */
static void rep_table(Rep *r, const char *zName, const char *zSelect){
  int k = rep_table_reset(r, zName);
  if( k<0 ) return;
  char *z = k ? sqlite3_mprintf("CREATE TEMP TABLE %s AS %s", zName, zSelect)
              : sqlite3_mprintf("INSERT INTO temp.%s %s", zName, zSelect);
  if( z==0 ){ r->rc = SQLITE_NOMEM; return; }
  rep_exec(r, z);
  sqlite3_free(z);
}

/* TEMP table zName filled by zSelect as rep_table fills it, except that zSelect's first column (an
** integer that no two rows share: profile_jobs' rowid) is its INTEGER PRIMARY KEY: the rows are
** stored in that order and found by it with no index to build. The other columns get the types
** CREATE TABLE AS gives them, read from such a table made empty (temp.profsql_shape, dropped).
** *pnRow: the rows inserted. */
static void rep_table_keyed(Rep *r, const char *zName, const char *zSelect, sqlite3_int64 *pnRow){
  char *z = sqlite3_mprintf("SELECT * FROM (%s) LIMIT 0", zSelect);
  if( z==0 ){ if( r->rc==SQLITE_OK ) r->rc = SQLITE_NOMEM; return; }
  rep_table(r, "profsql_shape", z);
  sqlite3_free(z);
  if( r->rc ) return;
  PsBuf cols; memset(&cols, 0, sizeof(cols));   /* "k" INTEGER PRIMARY KEY, "done_" , ... */
  sqlite3_stmt *st = 0;
  int bad = 0;
  r->rc = sqlite3_prepare_v2(r->db, "SELECT name, type FROM pragma_table_info('profsql_shape','temp')", -1, &st, 0);
  for(int n=0; r->rc==SQLITE_OK && sqlite3_step(st)==SQLITE_ROW; n++){
    z = sqlite3_mprintf("%s\"%w\" %s", n ? ", " : "", (const char*)sqlite3_column_text(st, 0),
                        n ? (const char*)sqlite3_column_text(st, 1) : "INTEGER PRIMARY KEY");
    bad |= z==0 || ps_buf_puts(&cols, z);
    sqlite3_free(z);
  }
  if( r->rc==SQLITE_OK ) r->rc = sqlite3_finalize(st); else sqlite3_finalize(st);
  if( r->rc==SQLITE_OK && (bad || cols.n==0 || ps_buf_append(&cols, "", 1)) ) r->rc = SQLITE_NOMEM;
  if( r->rc && r->rc!=SQLITE_NOMEM ) r->zErr = sqlite3_mprintf("%s", sqlite3_errmsg(r->db));
  rep_drop(r, "profsql_shape");         /* (emptied instead when it cannot be dropped: see the end) */
  int k = rep_table_reset(r, zName);
  if( k==1 ){
    z = sqlite3_mprintf("CREATE TEMP TABLE %s(%s)", zName, cols.z);
    if( z==0 ) r->rc = SQLITE_NOMEM;
    rep_exec(r, z);
    sqlite3_free(z);
  }
  ps_buf_free(&cols);
  if( k<0 || r->rc ) return;
  z = sqlite3_mprintf("INSERT INTO temp.%s %s", zName, zSelect);
  if( z==0 ){ r->rc = SQLITE_NOMEM; return; }
  if( rep_exec(r, z)==SQLITE_OK ) *pnRow = sqlite3_changes(r->db);
  sqlite3_free(z);
}

/* Empty TEMP table zName with the columns of the comma list zCols, untyped (a value keeps its
** type, as in the GROUP BY rows it stands for); created anew or emptied as rep_table does. */
static void rep_table_cols(Rep *r, const char *zName, const char *zCols){
  if( rep_table_reset(r, zName)!=1 ) return;
  char *z = sqlite3_mprintf("CREATE TEMP TABLE %s(%s)", zName, zCols);
  if( z==0 ){ r->rc = SQLITE_NOMEM; return; }
  rep_exec(r, z);
  sqlite3_free(z);
}

/* Drops TEMP table zName (1: the caller creates it), or empties it when it cannot be dropped (0:
** it stays, with its columns); -1 with r->rc set on failure. */
static int rep_table_reset(Rep *r, const char *zName){
  if( r->rc ) return -1;
  char *zDrop = sqlite3_mprintf("DROP TABLE IF EXISTS temp.%s", zName);
  if( zDrop==0 ){ r->rc = SQLITE_NOMEM; return -1; }
  int rc = rep_exec(r, zDrop);
  sqlite3_free(zDrop);
  if( rc!=SQLITE_LOCKED ) return rc ? -1 : 1;
  sqlite3_free(r->zErr); r->zErr = 0; r->rc = SQLITE_OK;
  char *zDel = sqlite3_mprintf("DELETE FROM temp.%s", zName);
  if( zDel==0 ){ r->rc = SQLITE_NOMEM; return -1; }
  rep_exec(r, zDel);
  sqlite3_free(zDel);
  return r->rc ? -1 : 0;
}

/* Drops TEMP table zName, or empties it when a statement of the caller reads the temp schema
** (rep_table_reset); for cleaning up, after an error too: a failure here is ignored and r's own
** rc and message stay as they were. */
static void rep_drop(Rep *r, const char *zName){
  int rc = r->rc; char *zErr = r->zErr;
  r->rc = SQLITE_OK; r->zErr = 0;
  rep_table_reset(r, zName);
  sqlite3_free(r->zErr);
  r->rc = rc; r->zErr = zErr;
}

/* One value of a scalar query (text, sqlite3_malloc'ed), or NULL. */
static char *rep_text(Rep *r, const char *zSql){
  if( r->rc ) return 0;
  sqlite3_stmt *st = 0;
  char *z = 0;
  r->rc = sqlite3_prepare_v2(r->db, zSql, -1, &st, 0);
  if( r->rc==SQLITE_OK ){
    rep_bind_args(r, st);
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
  r->rc = render_query(r->db, zSql, r->apArg, 5, 0, b, &nRow, &r->zErr, r);
  return r->rc;
}

/* percentile q of column C over completed jobs: the writer's sorted[round((n-1)*q)], 0 when empty
** (P the parameter rep_percentiles bound: the same value, from the groupings' scan and a
** selection in C; the query here only runs when it could not be, since it sorts every job once
** per percentile) */
#define PCT(C, Q, P) "coalesce(" P ", (SELECT " C " FROM profsql_rj WHERE done_ ORDER BY " C " LIMIT 1 " \
  "OFFSET (SELECT CAST(round((count(*)-1)*" Q ") AS INTEGER) FROM profsql_rj WHERE done_)),0.0)"
#define PCTS(C, P1, P2, P3, P4) "json_object('p50'," F64(PCT(C, "0.50", P1)) ",'p90'," F64(PCT(C, "0.90", P2)) "," \
  "'p95'," F64(PCT(C, "0.95", P3)) ",'p99'," F64(PCT(C, "0.99", P4)) ")"
/* A job as the writer's job object (a capture other than a report JSON, whose jobs come from
** ps_job_json): keys sorted; the flags, budget_ms, category, dependency_group, detail,
** elapsed_ms, ended_unix_ms, id, lane, load, metadata, name, priority, source,
** started_unix_ms and status always (a missing lane, dependency_group or priority is
** 'unspecified' and a missing detail '', as the writer's defaults; metadata {} when the row has
** none); the optional fields only when the row has them (json_remove takes the others out). */
#define JFLAG(x) "json(CASE WHEN " x " THEN 'true' ELSE 'false' END)"
/* a fall-back column as a JSON value (the text 'null', a JSON null under /metadata: absent) */
#define JVAL(x) "CASE WHEN typeof(" x ")='real' THEN " F64(x) " WHEN " x "='null' THEN NULL ELSE " x " END"
#define JU64(x) "CASE WHEN typeof(" x ") IN ('integer','real') THEN CAST(" x " AS INTEGER) END"
#define JOPT(k, x) "CASE WHEN (" x ") IS NULL THEN '$." k "' ELSE '$.-' END"
#define JOBJ "json_remove(json_object('active_elapsed_ms'," F64("active_elapsed_ms") ",'async_mode',async_mode," \
  "'blocked'," JFLAG("blocked") ",'budget_ms'," F64("budget2_") ",'category',ifnull(category,'')," \
  "'current_load'," F64("current_load") ",'dependency_group',coalesce(" JVAL("dependency_group") ",'unspecified')," \
  "'detail',ifnull(detail,''),'elapsed_ms'," F64("elapsed_ms") ",'ended_unix_ms'," JU64("ended_unix_ms") ",'error',error," \
  "'exceeded_frame_budget'," JFLAG("exceeded_frame_budget") ",'executor'," JVAL("executor") "," \
  "'frame_budget_ms'," F64("frame_budget_ms") ",'frame_id'," JVAL("frame_id") ",'gpu_wait_ms'," F64("gpu_wait_ms") "," \
  "'id',ifnull(id,''),'lane'," LKEY ",'load'," F64("load2_") "," \
  "'metadata',json(ifnull(CASE WHEN json_valid(metadata) THEN CASE WHEN json_type(metadata)='object' THEN metadata END END,'{}'))," \
  "'name',ifnull(name,''),'output_bytes'," JU64("output_bytes") ",'payload_bytes'," JU64("payload_bytes") "," \
  "'polling'," JFLAG("polling") ",'priority',coalesce(" JVAL("priority") ",'unspecified'),'progress'," F64("progress") "," \
  "'scheduled'," JFLAG("scheduled") ",'source',ifnull(source,''),'started_unix_ms'," JU64("started_unix_ms") "," \
  "'status',ifnull(status,''),'stayed_async'," JFLAG("stayed_async") ",'task_domain'," JVAL("task_domain") "," \
  "'task_pass'," JVAL("task_pass") ",'wait_reason',wait_reason,'waited_on_gpu'," JFLAG("waited_on_gpu") "), " \
  JOPT("active_elapsed_ms", "active_elapsed_ms") "," JOPT("async_mode", "async_mode") "," \
  JOPT("current_load", "current_load") "," JOPT("error", "error") "," JOPT("executor", JVAL("executor")) "," \
  JOPT("frame_budget_ms", "frame_budget_ms") "," JOPT("frame_id", JVAL("frame_id")) "," \
  JOPT("gpu_wait_ms", "gpu_wait_ms") "," JOPT("output_bytes", JU64("output_bytes")) "," \
  JOPT("payload_bytes", JU64("payload_bytes")) "," JOPT("progress", "progress") "," \
  JOPT("task_domain", JVAL("task_domain")) "," JOPT("task_pass", JVAL("task_pass")) "," JOPT("wait_reason", "wait_reason") ")"
/* The job lists (the k of their jobs, in order); ?3 slow ms, ?4 top limit, ?8 the completed jobs
** kept. The four ranked ones keep max(?4, 16) jobs: the JSON and the CSVs read the first ?4
** (JL, JLJ), the Markdown tables the first 16, so no reader sorts the jobs again. */
#define C_BUDGET "done_ AND (l_ >= 1.0 OR e_ >= ?3)"
#define C_FRAME_OF(Z) "done_ AND " Z("exceeded_frame_budget")
#define C_FRAME C_FRAME_OF(GR_COL)
#define O_TOP_LOAD "l_ DESC, ifnull(name,''), k"
#define L_ACTIVE "SELECT k FROM profsql_rj WHERE NOT done_ AND " ANY_ACTIVE " ORDER BY k"
#define L_BUDGET "SELECT k FROM profsql_rj WHERE " C_BUDGET " ORDER BY " O_LOAD " LIMIT max(?4, 16)"
#define L_FRAME "SELECT k FROM profsql_rj WHERE " C_FRAME " ORDER BY " O_FRAME " LIMIT max(?4, 16)"
#define L_TOP_ELAPSED "SELECT k FROM profsql_rj WHERE done_ ORDER BY " O_ELAPSED " LIMIT max(?4, 16)"
#define L_TOP_LOAD "SELECT k FROM profsql_rj WHERE done_ ORDER BY " O_TOP_LOAD " LIMIT max(?4, 16)"
#define L_RECENT "SELECT k FROM (SELECT k FROM profsql_rj WHERE done_ ORDER BY k DESC LIMIT ?8) ORDER BY k"
/* The six lists, each run once by rep_job_lists into temp.profsql_jl(l, pos, k) (list l of
** azJobList, its jobs in order; 0 and 5, the JSON's alone, only for a report with a JSON). JL(l)
** reads one back for the JSON (a ranked one's first ?4), JLJ(l, N) joins the first N jobs of
** ranked list l to their rows (the first N of what TOPJ(condition, order, N) would sort). */
static const char *const azJobList[] = { L_ACTIVE, L_BUDGET, L_FRAME, L_TOP_ELAPSED, L_TOP_LOAD, L_RECENT };
/* the entries of profsql_jl the JSON shows: the active and recent lists whole, a ranked one's first ?4 */
#define JL_SHOWN "(l IN (0,5) OR pos < ?4)"
#define JL(l) "SELECT k FROM temp.profsql_jl WHERE l=" #l " AND " JL_SHOWN " ORDER BY pos"
/* the jobs the JSON's lists hold */
static const char zJobsNeeded[] = "INSERT INTO temp.profsql_jj(k) SELECT DISTINCT k FROM temp.profsql_jl WHERE " JL_SHOWN;
/* the job objects of a list, from temp.profsql_jj (rep_report_json fills it) */
#define JJ(rows) "(SELECT json_group_array(json((SELECT j FROM temp.profsql_jj jj WHERE jj.k=x.k))) FROM (" rows ") x)"

/* What a report JSON input gives (?9, ps_report_input), else the default. */
#define INPUT(path, dflt) "json(coalesce(?9 -> '" path "', " dflt "))"

/* The config section when the capture is not a report JSON: the StarProfiler's keys, with its
** defaults where the options say nothing; the report directory is out_dir (?10). */
#define CONFIG_DEFAULT \
  "json_object('budgets',json_object('custom_job_ms'," F64("16.67") ",'plugin_lifecycle_ms'," F64("16.67") "," \
  "  'service_call_ms'," F64("8.0") ",'task_status_ms'," F64("16.67") ")," \
  " 'capture',json_object('custom_events',json('true'),'plugin_lifecycle',json('true'),'service_calls',json('true'),'task_status_events',json('true'))," \
  " 'diagnostics',json_object('max_payload_preview_bytes',2048,'max_recent_diagnostics',1024,'max_recent_jobs',?8," \
  "  'slow_job_warn_ms'," F64("?3") ",'stale_active_job_ms'," F64("1000.0") ")," \
  " 'enabled',json('true'),'ignore_self',json('true')," \
  " 'report',json_object('archive_prefix','profiler_report','directory',?10,'include_latest_in_archive',json('true')," \
  "  'latest_active_csv','profiler_active_jobs_latest.csv','latest_budget_violations_csv','profiler_budget_violations_latest.csv'," \
  "  'latest_categories_csv','profiler_categories_latest.csv','latest_diagnostics_csv','profiler_diagnostics_latest.csv'," \
  "  'latest_frame_budget_csv','profiler_frame_budget_latest.csv','latest_jobs_csv','profiler_jobs_latest.csv'," \
  "  'latest_json','profiler_report_latest.json','latest_lanes_csv','profiler_lanes_latest.csv'," \
  "  'latest_markdown','profiler_report_latest.md','latest_methods_csv','profiler_methods_latest.csv'," \
  "  'latest_offenders_csv','profiler_top_offenders_latest.csv','latest_profiler_first_csv','profiler_first_latest.csv'," \
  "  'latest_sources_csv','profiler_sources_latest.csv','latest_timeline_csv','profiler_timeline_latest.csv'," \
  "  'write_archive',json('true'),'write_csv',json('true'),'write_json',json('true'),'write_markdown',json('true'),'write_on_shutdown',json('false'))," \
  " 'scheduling',json_object('flush_job_budget_ms'," F64("250.0") ",'prefer_engine_jobs',json('false'),'require_engine_jobs',json('false')," \
  "  'service_flush_mode','sync_final','shutdown_flush_mode','sync_final'))"
/* The options given, patched into the config (the input's or the default) where it has the key. */
#define OPT_PATCH(key, v) "SELECT '" key "' AS k, " v " AS v WHERE json_type(?2,'$." key "') IS NOT NULL"
#define CONFIG_PATCH \
  "(SELECT json_group_object(sec, json(obj)) FROM (" \
  "  SELECT 'diagnostics' AS sec, (SELECT json_group_object(k, json(v)) FROM (" \
  "    " OPT_PATCH("max_recent_jobs", "json_extract(?2,'$.max_recent_jobs')") " UNION ALL " \
  "    " OPT_PATCH("slow_job_warn_ms", "profile_float(json_extract(?2,'$.slow_job_warn_ms'))") ")) AS obj UNION ALL " \
  "  SELECT 'report', (SELECT json_group_object(k, json(v)) FROM (" \
  "    " OPT_PATCH("archive_prefix", "json_quote(json_extract(?2,'$.archive_prefix'))") " UNION ALL " \
  "    " OPT_PATCH("include_latest_in_archive", "?2 -> '$.include_latest_in_archive'") " UNION ALL " \
  "    " OPT_PATCH("write_archive", "?2 -> '$.write_archive'") " UNION ALL " \
  "    " OPT_PATCH("write_csv", "?2 -> '$.write_csv'") " UNION ALL " \
  "    " OPT_PATCH("write_json", "?2 -> '$.write_json'") " UNION ALL " \
  "    " OPT_PATCH("write_markdown", "?2 -> '$.write_markdown'") "))) WHERE obj <> '{}')"

/* analysis.human_reading_order: the writer's list (the real report's) */
#define READING_ORDER \
  "json_array('worst_offender','top_offenders_by_total_elapsed','top_completed_jobs_by_elapsed'," \
  "'top_completed_jobs_by_load','by_category_ranked','by_source_ranked','by_method_ranked','by_lane_ranked'," \
  "'profiler_first','budget_violations','frame_budget_violations','active_jobs')"

/* The report JSON, compact: every section of the writer's report, keys sorted as serde_json
** sorts them. Parameters: ?1..?5 as Rep, ?6 now (ms), ?7 the 'reason' option or NULL, ?8 the
** completed jobs kept (max_recent_jobs), ?9 the report JSON input's other parts
** (ps_report_input) or NULL, ?10 out_dir, ?11 the capture's format. Numbers that are f64 in the
** writer go through profile_float (the shortest round-trip form), u64 ones are integers. For a
** report JSON input the object holds the input's top-level keys, in its order: each section
** computed here when it is one (jobs, analysis, summary, diagnostics), else the input's value. */
static const char zReportJson[] =
  "WITH c AS (" TOTALS "), "
  "pf AS (SELECT json_object('async_jobs',asy,'async_share_percent'," F64("CASE WHEN n>0 THEN asy*100.0/n ELSE 0.0 END") ","
  "  'blocked_jobs',blk,'blocked_share_percent'," F64("CASE WHEN n>0 THEN blk*100.0/n ELSE 0.0 END") ",'frame_budget_exceeded_jobs',fb,"
  "  'gpu_wait_jobs',gpu,'gpu_wait_share_percent'," F64("CASE WHEN n>0 THEN gpu*100.0/n ELSE 0.0 END") ",'polling_jobs',pol,"
  "  'scheduled_jobs',sch) AS j FROM c), "
  "cat AS (" CAT_GROUPS "), "
  "span AS (SELECT rr.emax - ?5 AS ms, ifnull(rr.n,0) AS n FROM (SELECT 1) LEFT JOIN temp.profsql_gr_r rr), "
  "rep AS (SELECT json_object("
  " 'active_jobs', " JJ(JL(0)) ","
  " 'analysis', json_object("
  "   'budget_violations', " JJ(JL(1)) ","
  "   'by_category_ranked', (SELECT json_group_array(json_object('average_elapsed_ms'," F64("cat.tot/cat.n") ",'category',cat.category,'count',cat.n,'failed',cat.failed,"
  "       'max_elapsed_ms'," F64("cat.mx") ",'slow',cat.slow,'total_elapsed_ms'," F64("cat.tot") ",'total_share_percent'," F64("CASE WHEN c.tot>0 THEN cat.tot/c.tot*100.0 ELSE 0.0 END") ")) "
  "       FROM (SELECT * FROM cat ORDER BY tot DESC, category LIMIT ?4) cat, c),"
  "   'by_lane_ranked', json((" AGG_JSON(RAW_LANES) ")),"
  "   'by_method_ranked', json((" AGG_JSON(RAW_METHODS) ")),"
  "   'by_owner_ranked', json((" AGG_JSON(RAW_OWNERS) ")),"
  "   'by_source_ranked', json((" AGG_JSON(RAW_SOURCES) ")),"
  "   'frame_budget_violations', " JJ(JL(2)) ","
  "   'human_reading_order', " INPUT("$.report.analysis.human_reading_order", READING_ORDER) ","
  "   'interpretation', " INPUT("$.report.analysis.interpretation", "json_quote(CASE WHEN ?11 IS NULL OR ?11='newengine' THEN "
  "       'elapsed_ms is observed wall-clock time captured by profiler events; load = elapsed_ms / budget_ms. It identifies CPU-time suspects inside instrumented engine/plugin work, not OS-level sampled CPU cycles.' "
  "       ELSE 'elapsed_ms is the duration of each job (a slice, record or event with a duration) as the '||?11||' capture records it; load = elapsed_ms / budget_ms.' END)") ","
  "   'profiler_first', json((SELECT j FROM pf)),"
  "   'top_completed_jobs_by_elapsed', " JJ(JL(3)) ","
  "   'top_completed_jobs_by_load', " JJ(JL(4)) ","
  "   'top_offenders_by_total_elapsed', json((" AGG_JSON(RAW_OFFENDERS) ")),"
  "   'worst_offender', json(ifnull((SELECT json_object('average_elapsed_ms'," F64("avg") ",'category',category,'count',count,'failed',failed,'key',key,"
  "       'max_elapsed_ms'," F64("mx") ",'max_load'," F64("ml") ",'sample_name',sample_name,'slow',slow,'source',source,'total_elapsed_ms'," F64("tot") ","
  "       'total_output_bytes',ob,'total_payload_bytes',pb,'total_share_percent'," F64("share") ") FROM (" RAW_OFFENDERS ") LIMIT 1),'null'))),"
  " 'completed_jobs', " JJ(JL(5)) ","
  " 'config', json_patch(" INPUT("$.report.config", CONFIG_DEFAULT) ", " CONFIG_PATCH "),"
  " 'diagnostics', (SELECT json_group_array(json(d)) FROM (" DIAG_OBJECTS ")),"
  " 'flush_requests', " INPUT("$.report.flush_requests", "'[]'") ","
  " 'generated_unix_ms', " INPUT("$.report.generated_unix_ms", "?6") ","
  " 'plugin', " INPUT("$.plugin", "json_object('gateway','profsql','id','libprofsql','name','libprofsql profile_report',"
  "     'service_id','profile_report','version',profsql_version())") ","
  " 'reason', json(coalesce(CASE WHEN json_type(?2,'$.reason')='text' THEN json_quote(json_extract(?2,'$.reason')) END, "
  "   ?9 -> '$.report.reason', json_quote('profsql.report'))),"
  " 'run', " INPUT("$.run", "json_object('events_seen',span.n,'malformed_events',0,'started_unix_ms',?5,'uptime_ms'," F64("ifnull(span.ms,0.0)") ")") ","
  " 'scheduler', " INPUT("$.report.scheduler", "json_object('hidden_load_policy','none: profile_report builds and writes the report inside the calling SQL statement',"
  "     'lock_policy','snapshot_then_build_and_write_outside_lock','prefer_engine_threading',json('false'),'require_engine_threading',json('false'),"
  "     'service_flush_mode','sync_final','shutdown_flush_mode','sync_final')") ","
  " 'schema', " INPUT("$.report.schema", "json_quote('newengine.profiler.report.v3')") ","
  " 'summary', json_object('active_jobs',?22,"
  "   'average_elapsed_ms'," F64("CASE WHEN c.n>0 THEN c.tot/c.n ELSE 0.0 END") ","
  "   'by_category',(SELECT json_group_object(category, json_object('count',n,'failed',failed,'max_elapsed_ms'," F64("mx") ",'slow',slow,'total_elapsed_ms'," F64("tot") ")) FROM (SELECT * FROM cat ORDER BY category)),"
  "   'by_status',(SELECT json_group_object(key, n) FROM (SELECT key, n FROM temp.profsql_gr_t ORDER BY key)),"
  "   'completed_jobs_kept',c.n,"
  "   'elapsed_percentiles_ms'," PCTS("e_", "?12", "?13", "?14", "?15") ","
  "   'failed_jobs',c.failed,'load_percentiles'," PCTS("l_", "?16", "?17", "?18", "?19") ","
  "   'max_elapsed_ms'," F64("c.mx") ",'over_budget_jobs',c.over,'profiler_first',json((SELECT j FROM pf)),"
  "   'reports_failed'," INPUT("$.summary.reports_failed", "0") ",'reports_in_progress'," INPUT("$.summary.reports_in_progress", "1") ","
  "   'reports_scheduled'," INPUT("$.summary.reports_scheduled", "0") ",'reports_written'," INPUT("$.summary.reports_written", "0") ","
  "   'slow_or_over_budget_jobs',c.slow,'total_elapsed_ms'," F64("c.tot") ",'total_output_bytes',c.ob,'total_payload_bytes',c.pb)"
  ") AS j FROM c, span) "
  "SELECT CASE WHEN ?9 IS NULL THEN rep.j ELSE "
  " (SELECT json_group_object(key, json(v)) FROM (SELECT kk.value AS key, "
  "   coalesce((SELECT rep.j -> e.fullkey FROM json_each(rep.j) e WHERE e.key=kk.value), "
  "            (SELECT ?9 -> r.fullkey FROM json_each(?9, '$.report') r WHERE r.key=kk.value), 'null') AS v "
  "   FROM json_each(?9, '$.keys') kk ORDER BY kk.key)) END FROM rep";

/* Appends to a the k of list l's jobs in order, comma-separated: a ranked one as rep_groups'
** scan picked it (r->aTop), else by its SQL (azJobList[l]). SQLite's error code (NOMEM for a). */
static int rep_job_list_ks(Rep *r, int l, sqlite3_int64 nRecent, PsBuf *a){
  const PsTopList *t = l>=1 && l<=REP_N_TOP ? &r->aTop[l-1] : 0;
  int bad = 0;
  if( t && t->bComplete ){
    for(sqlite3_int64 i=0; i<t->n; i++) bad |= ps_buf_printf(a, "%s%lld", i ? "," : "", (long long)t->aK[i]);
    return bad ? SQLITE_NOMEM : SQLITE_OK;
  }
  sqlite3_stmt *q = 0;
  int rc = sqlite3_prepare_v2(r->db, azJobList[l], -1, &q, 0);
  if( rc ) return rc;
  rep_bind_args(r, q);
  if( sqlite3_bind_parameter_count(q) >= 8 ) sqlite3_bind_int64(q, 8, nRecent);
  int n = 0;
  while( (rc = sqlite3_step(q))==SQLITE_ROW ){
    bad |= ps_buf_printf(a, "%s%lld", n++ ? "," : "", (long long)sqlite3_column_int64(q, 0));
  }
  sqlite3_finalize(q);
  return rc!=SQLITE_DONE ? rc : bad ? SQLITE_NOMEM : SQLITE_OK;
}

/* Runs each list of azJobList once (?3 slow ms, ?4 top limit, ?8 nRecent; 0 and 5 only when
** bJson; the ranked ones 1..4 as rep_groups' scan picked them, when it could) into
** temp.profsql_jl(l, pos, k): the CSVs, the Markdown and the JSON read the lists from
** there instead of sorting the jobs again. A list goes in with one INSERT (its k gathered as a
** JSON array, json_each giving pos): each INSERT run inside the caller's statement commits the
** temporary database on its own, and one a job made this the largest part of a small capture's
** report. Sets r->rc / r->zErr on failure. */
static void rep_job_lists(Rep *r, int bJson, sqlite3_int64 nRecent){
  rep_table(r, "profsql_jl", "SELECT 0 AS l, 0 AS pos, k FROM profsql_rj WHERE 0");
  sqlite3_stmt *ins = 0;
  if( r->rc==SQLITE_OK ){
    r->rc = sqlite3_prepare_v2(r->db, "INSERT INTO temp.profsql_jl(l, pos, k) SELECT ?1, key, value FROM json_each(?2)", -1, &ins, 0);
  }
  PsBuf a; memset(&a, 0, sizeof(a));
  for(int l=0; r->rc==SQLITE_OK && l<(int)(sizeof(azJobList)/sizeof(azJobList[0])); l++){
    if( !bJson && (l==0 || l==5) ) continue;
    a.n = 0;
    if( ps_buf_puts(&a, "[") ){ r->rc = SQLITE_NOMEM; break; }
    r->rc = rep_job_list_ks(r, l, nRecent, &a);
    if( r->rc==SQLITE_OK && ps_buf_puts(&a, "]") ) r->rc = SQLITE_NOMEM;
    if( r->rc ) break;
    sqlite3_bind_int(ins, 1, l);
    sqlite3_bind_text(ins, 2, a.z, (int)a.n, SQLITE_STATIC);
    r->rc = sqlite3_step(ins)==SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(r->db);
    sqlite3_reset(ins);
  }
  if( r->rc && r->rc!=SQLITE_NOMEM && r->zErr==0 ) r->zErr = sqlite3_mprintf("%s", sqlite3_errmsg(r->db));
  sqlite3_finalize(ins);
  ps_buf_free(&a);
}

/* Puts into a[k] the value a sort of a[lo..hi] would put there, with the values before it no
** larger and those after it no smaller (quickselect: linear on average, and on sorted or equal
** values, where the middle element is the pivot). */
static void rep_select(double *a, sqlite3_int64 lo, sqlite3_int64 hi, sqlite3_int64 k){
  while( lo < hi ){
    double pivot = a[lo + (hi-lo)/2];
    sqlite3_int64 i = lo, j = hi;
    while( i <= j ){
      while( a[i] < pivot ) i++;
      while( a[j] > pivot ) j--;
      if( i <= j ){ double t = a[i]; a[i] = a[j]; a[j] = t; i++; j--; }
    }
    if( k <= j ) hi = j;
    else if( k >= i ) lo = i;
    else return;
  }
}

/* The p50, p90, p95 and p99 of the completed jobs' e_ (ae) and l_ (al), n of each, the writer's
** sorted[round((n-1)*q)], into r->aPct (r->bPct 1), bound as ?12..?19 of the JSON's query: the
** values gathered by the groupings' scan (rep_groups) and a selection in C (rep_select) instead
** of a sort of every job per percentile. Not called (r->bPct stays 0, the query then computes
** them) when a value was not a number. The arrays are reordered. */
static void rep_percentiles(Rep *r, double *ae, double *al, sqlite3_int64 n){
  static const double aq[4] = { 0.50, 0.90, 0.95, 0.99 };
  for(int k=0; k<8; k++) r->aPct[k] = 0.0;
  if( n>0 ){
    /* from the largest quantile down, each selection within the part below the last */
    sqlite3_int64 hi = n-1;
    for(int k=3; k>=0; k--){
      sqlite3_int64 i = (sqlite3_int64)round((double)(n-1) * aq[k]);
      rep_select(ae, 0, hi, i);
      rep_select(al, 0, hi, i);
      r->aPct[k] = ae[i];
      r->aPct[4+k] = al[i];
      hi = i;
    }
  }
  r->bPct = 1;
}

/* The report JSON (compact; sqlite3_malloc'ed) or NULL with r->rc set. The job objects are put in
** temp.profsql_jj first: a report JSON's from the capture (ps_job_json: each job as it was read,
** budget_ms and load those of the report), any other capture's from JOBJ. */
static char *rep_report_json(Rep *r, PsConn *pConn, sqlite3_value *pSource, const char *zReason,
                             long long nowMs, long long nRecent, const char *zDir, const char *zFormat){
  if( r->rc ) return 0;
  PsBuf in; memset(&in, 0, sizeof(in));
  char *zE = 0;
  int rcLoad = SQLITE_OK;
  PsCacheEntry *e = ps_vt_acquire(pConn, "profile_report", pSource, 0, &zE, &rcLoad);
  sqlite3_free(zE);
  const PsCapture *cap = e ? e->cap : 0;
  int bReport = cap && ps_job_is_report(cap);
  if( bReport && ps_report_input(cap, &in) ) r->rc = SQLITE_NOMEM;
  /* the jobs the lists hold (not every job: a trace can have millions; rep_job_lists ran) */
  rep_table(r, "profsql_jj", "SELECT k, NULL AS j FROM profsql_rj WHERE 0");
  rep_exec(r, "CREATE INDEX IF NOT EXISTS temp.profsql_jj_k ON profsql_jj(k)");
  if( r->rc==SQLITE_OK ){
    sqlite3_stmt *ins = 0;
    r->rc = sqlite3_prepare_v2(r->db, zJobsNeeded, -1, &ins, 0);
    if( r->rc==SQLITE_OK ){
      sqlite3_bind_value(ins, 4, r->apArg[3]);
      r->rc = sqlite3_step(ins)==SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(r->db);
    }
    if( r->rc ) r->zErr = sqlite3_mprintf("%s", sqlite3_errmsg(r->db));
    sqlite3_finalize(ins);
  }
  if( bReport && r->rc==SQLITE_OK ){
    sqlite3_stmt *sel = 0, *upd = 0;
    PsBuf jb; memset(&jb, 0, sizeof(jb));
    r->rc = sqlite3_prepare_v2(r->db, "SELECT k, budget2_, load2_ FROM profsql_rj WHERE k IN (SELECT k FROM temp.profsql_jj)", -1, &sel, 0);
    if( r->rc==SQLITE_OK ) r->rc = sqlite3_prepare_v2(r->db, "UPDATE temp.profsql_jj SET j=?2 WHERE k=?1", -1, &upd, 0);
    while( r->rc==SQLITE_OK && sqlite3_step(sel)==SQLITE_ROW ){
      sqlite3_int64 k = sqlite3_column_int64(sel, 0);
      double rB = sqlite3_column_double(sel, 1), rL = sqlite3_column_double(sel, 2);
      int bB = sqlite3_column_type(sel, 1)!=SQLITE_NULL, bL = sqlite3_column_type(sel, 2)!=SQLITE_NULL;
      jb.n = 0;
      if( ps_job_json(cap, (size_t)k, bB ? &rB : 0, bL ? &rL : 0, &jb) ){ r->rc = SQLITE_NOMEM; break; }
      sqlite3_bind_int64(upd, 1, k);
      sqlite3_bind_text(upd, 2, jb.z ? jb.z : "{}", (int)jb.n, SQLITE_STATIC);
      if( sqlite3_step(upd)!=SQLITE_DONE ) r->rc = sqlite3_errcode(r->db);
      sqlite3_reset(upd);
    }
    if( r->rc && r->rc!=SQLITE_NOMEM && r->zErr==0 ) r->zErr = sqlite3_mprintf("%s", sqlite3_errmsg(r->db));
    sqlite3_finalize(sel); sqlite3_finalize(upd);
    ps_buf_free(&jb);
  }else{
    /* the metadata of the listed jobs (profsql_rj has none: RJ_COLS), then their objects */
    rep_table(r, "profsql_jm", "SELECT rowid AS k, metadata FROM profile_jobs(?1) WHERE rowid IN (SELECT k FROM temp.profsql_jj)");
    rep_exec(r, "CREATE INDEX IF NOT EXISTS temp.profsql_jm_k ON profsql_jm(k)");
    rep_exec(r, "UPDATE temp.profsql_jj SET j = (SELECT " JOBJ " FROM profsql_rj LEFT JOIN temp.profsql_jm m USING (k) "
                "WHERE profsql_rj.k = profsql_jj.k)");
  }
  if( e ) ps_vt_release(e);
  sqlite3_stmt *st = 0;
  char *z = 0;
  if( r->rc==SQLITE_OK ){
    r->rc = sqlite3_prepare_v2(r->db, zReportJson, -1, &st, 0);
    if( r->rc==SQLITE_OK ){
      rep_bind_args(r, st);
      sqlite3_bind_int64(st, 6, nowMs);
      if( zReason ) sqlite3_bind_text(st, 7, zReason, -1, SQLITE_TRANSIENT);
      sqlite3_bind_int64(st, 8, nRecent);
      if( bReport ) sqlite3_bind_text(st, 9, in.z ? in.z : "{}", (int)in.n, SQLITE_STATIC);
      sqlite3_bind_text(st, 10, zDir, -1, SQLITE_TRANSIENT);
      if( zFormat ) sqlite3_bind_text(st, 11, zFormat, -1, SQLITE_TRANSIENT);
      if( r->bPct ) for(int k=0; k<8; k++) sqlite3_bind_double(st, 12+k, r->aPct[k]);
      r->rc = sqlite3_step(st);
      if( r->rc==SQLITE_ROW ){
        z = sqlite3_mprintf("%s", (const char*)sqlite3_column_text(st, 0));
        r->rc = z ? SQLITE_OK : SQLITE_NOMEM;
      }
    }
    if( r->rc ) r->zErr = sqlite3_mprintf("%s", sqlite3_errmsg(r->db));
  }
  sqlite3_finalize(st);
  ps_buf_free(&in);
  return z;
}

/* ------------------------------------------------------------------ Markdown */

/* z made one line: line breaks and other control characters as spaces. A name quoted in a
** Markdown line sits in a code span with its backticks made quotes (the SQL's replace(x, '`',
** <quote>)), where no renderer reads HTML or Markdown, as long as no line break ends the
** paragraph (and the span with it) under it: "x\n\n<script>" would put the script in a block of
** its own. */
static void md_one_line(char *z){
  for(; z && *z; z++) if( (unsigned char)*z<0x20 ) *z = ' ';
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

/* Characters (UTF-8 code points) of z; a chart cell is one character wide each. */
static int md_chars(const char *z){
  int n = 0;
  for(; *z; z++) n += ((unsigned char)*z & 0xC0)!=0x80;
  return n;
}

/* The byte offset of character k of z (its length when z is shorter). */
static int md_char_off(const char *z, int k){
  int i = 0;
  for(; z[i]; i++){
    if( ((unsigned char)z[i] & 0xC0)!=0x80 && k--==0 ) break;
  }
  return i;
}

/* z shortened to w characters by cutting its MIDDLE: the first nHead characters, '…', the last
** w-1-nHead ("Minecraft - Bre…Tick"); z whole when it fits. sqlite3_malloc'ed, NULL on OOM. */
static char *md_shorten(const char *z, int w, int nHead){
  int n = md_chars(z);
  if( n<=w ) return sqlite3_mprintf("%s", z);
  int iHead = md_char_off(z, nHead), iTail = md_char_off(z, n - (w - 1 - nHead));
  return sqlite3_mprintf("%.*s…%s", iHead, z, z + iTail);
}

/* Chart labels for the n texts az, each at most w characters, shortened in the middle and
** distinct from one another (texts that differ stay apart): the split between head and tail
** that keeps them all distinct, the tail growing first (names of a tree differ at the end);
** when no split does, '#<row>' replaces the end of each repeated label. aOut[k] are
** sqlite3_malloc'ed. SQLITE_OK or SQLITE_NOMEM. */
static int md_labels(char **az, int n, int w, char **aOut){
  int nHalf = (w-1)/2, aTry[64], nTry = 0;
  for(int h=nHalf; h>=1 && nTry<64; h--) aTry[nTry++] = h;
  for(int h=nHalf+1; h<=w-2 && nTry<64; h++) aTry[nTry++] = h;
  for(int t=0; t<=nTry; t++){
    int h = t<nTry ? aTry[t] : nHalf, bDup = 0;
    for(int k=0; k<n; k++){
      sqlite3_free(aOut[k]);
      aOut[k] = md_shorten(az[k] ? az[k] : "", w, h);
      if( aOut[k]==0 ) return SQLITE_NOMEM;
    }
    for(int k=0; k<n && !bDup; k++){
      for(int j=0; j<k && !bDup; j++) bDup = strcmp(aOut[k], aOut[j])==0 && strcmp(az[k] ? az[k] : "", az[j] ? az[j] : "")!=0;
    }
    if( !bDup ) return SQLITE_OK;
  }
  for(int k=0; k<n; k++){                  /* no split works: number the repeats */
    int bDup = 0;
    for(int j=0; j<n && !bDup; j++) bDup = j!=k && strcmp(aOut[k], aOut[j])==0;
    if( !bDup ) continue;
    char zNum[16]; snprintf(zNum, sizeof(zNum), " #%d", k+1);
    char *zShort = md_shorten(az[k] ? az[k] : "", w - (int)strlen(zNum), nHalf - 2);
    char *z = zShort ? sqlite3_mprintf("%s%s", zShort, zNum) : 0;
    sqlite3_free(zShort);
    if( z==0 ) return SQLITE_NOMEM;
    sqlite3_free(aOut[k]); aOut[k] = z;
  }
  return SQLITE_OK;
}

/* A chart: the rows (rank, label, value, share %) of zSql as text bars, labels 40 characters
** wide (md_labels), values in zUnit ("ms": %.3f, else a whole count). At most 16 rows. */
static void md_chart(Rep *r, PsBuf *b, const char *zTitle, const char *zSql, const char *zUnit){
  if( r->rc ) return;
  enum { W = 40, NMAX = 16 };
  char *azKey[NMAX], *azLabel[NMAX];
  double aVal[NMAX], aShare[NMAX];
  int n = 0;
  memset(azKey, 0, sizeof(azKey)); memset(azLabel, 0, sizeof(azLabel));
  sqlite3_stmt *st = 0;
  r->rc = sqlite3_prepare_v2(r->db, zSql, -1, &st, 0);
  if( r->rc==SQLITE_OK ){
    rep_bind_args(r, st);
    while( n<NMAX && (r->rc = sqlite3_step(st))==SQLITE_ROW ){
      const char *z = (const char*)sqlite3_column_text(st, 1);
      azKey[n] = sqlite3_mprintf("%s", z ? z : "");
      md_one_line(azKey[n]);               /* a line break in a label could end the ```text block */
      aVal[n] = sqlite3_column_double(st, 2);
      aShare[n] = sqlite3_column_double(st, 3);
      if( azKey[n]==0 ){ r->rc = SQLITE_NOMEM; break; }
      n++;
    }
    if( r->rc==SQLITE_ROW || r->rc==SQLITE_DONE ) r->rc = SQLITE_OK;
    else if( r->rc!=SQLITE_NOMEM ) r->zErr = sqlite3_mprintf("%s", sqlite3_errmsg(r->db));
  }else{
    r->zErr = sqlite3_mprintf("%s", sqlite3_errmsg(r->db));
  }
  sqlite3_finalize(st);
  if( r->rc==SQLITE_OK ) r->rc = md_labels(azKey, n, W, azLabel);
  if( r->rc==SQLITE_OK ){
    ps_buf_printf(b, "## %s\n\n```text\n", zTitle);
    for(int k=0; k<n; k++){
      int pad = W - md_chars(azLabel[k]);
      ps_buf_printf(b, "%s%*s [", azLabel[k], pad > 0 ? pad : 0, "");
      md_bar(b, aShare[k], 100.0, 32);
      if( strcmp(zUnit, "ms")==0 ) ps_buf_printf(b, "] %5.1f%% %12.3f ms\n", aShare[k], aVal[k]);
      else ps_buf_printf(b, "] %5.1f%% %12.0f %s\n", aShare[k], aVal[k], zUnit);
    }
    if( n==0 ) ps_buf_puts(b, "(nothing to chart)\n");
    ps_buf_puts(b, "```\n\n");
  }
  for(int k=0; k<n; k++){ sqlite3_free(azKey[k]); sqlite3_free(azLabel[k]); }
}

/* A Markdown table of a query's rows (columns as the query names them) under heading zTitle;
** without rows, the line zNone instead (default "_(none)_"). */
static void md_table_or(Rep *r, PsBuf *b, const char *zTitle, const char *zSql, const char *zNone){
  if( r->rc ) return;
  PsBuf t; memset(&t, 0, sizeof(t));
  sqlite3_int64 nRow = 0;
  r->rc = render_query(r->db, zSql, r->apArg, 5, 1, &t, &nRow, &r->zErr, r);
  if( r->rc==SQLITE_OK ){
    ps_buf_printf(b, "## %s\n\n", zTitle);
    if( nRow ) ps_buf_append(b, t.z, t.n);
    else ps_buf_puts(b, zNone ? zNone : "_(none)_");
    ps_buf_puts(b, "\n\n");
  }
  ps_buf_free(&t);
}

/* A section whose body is one line: the text of zSql's single value (a paragraph; md_one_line). */
static void md_line(Rep *r, PsBuf *b, const char *zTitle, const char *zSql){
  char *z = rep_text(r, zSql);
  md_one_line(z);
  if( z && zTitle ) ps_buf_printf(b, "## %s\n\n", zTitle);
  if( z && z[0] ) ps_buf_printf(b, "%s\n\n", z);
  sqlite3_free(z);
}

/* The completed jobs with a budget (budget2_ not NULL), counted once per report. */
static sqlite3_int64 rep_budget_jobs(Rep *r){
  if( r->nBudgetJobs<0 && r->rc==SQLITE_OK ){
    char *z = rep_text(r, "SELECT count(budget2_) FROM profsql_rj WHERE done_");
    if( z ) r->nBudgetJobs = atoll(z);
    sqlite3_free(z);
  }
  return r->nBudgetJobs<0 ? 0 : r->nBudgetJobs;
}

/* ------------------------------------------------------------------ the report model, rendered */

/* The model files (sql/report_<model>.sql, compiled in: build/sql_text.h), by the name
** sql/report_model.sql chooses (profsql_rp_model.model). */
static const struct { const char *zName, *zSql; } aModelSql[] = {
  { "jobs", ps_sql_report_jobs },       { "slices", ps_sql_report_slices },
  { "training", ps_sql_report_training },
  { "timings", ps_sql_report_timings }, { "stacks", ps_sql_report_stacks },
  { "xspace", ps_sql_report_xspace },   { "records", ps_sql_report_records },
};

/* The sql/ helpers a model file may read (".read sql/<name>.sql"). */
/* (a model file, report_*, runs as a model file does: its parameters bound, its directives read) */
static const struct { const char *zName, *zSql; } aHelperSql[] = {
  { "stacks", ps_sql_stacks }, { "xprof_stats", ps_sql_xprof_stats }, { "timings", ps_sql_timings },
  { "training", ps_sql_training }, { "report_slices", ps_sql_report_slices },
};
static void rep_run_sql(Rep *r, const char *zSql);

static void rep_views(Rep *r, const char *zViews);

/* z past blanks and SQL comments ("-- ..." to the end of the line). */
static const char *sql_skip(const char *z){
  for(;;){
    while( *z==' ' || *z=='\t' || *z=='\r' || *z=='\n' ) z++;
    if( z[0]=='-' && z[1]=='-' ){ const char *e = strchr(z, '\n'); z = e ? e : z + strlen(z); continue; }
    return z;
  }
}

/* When z starts with zKw ("CREATE TEMP TABLE "), the name that follows it (length *pn), else 0. */
static const char *sql_created(const char *z, const char *zKw, int *pn){
  size_t nKw = strlen(zKw);
  if( sqlite3_strnicmp(z, zKw, (int)nKw)!=0 ) return 0;
  z += nKw;
  int n = 0;
  while( (z[n]>='a' && z[n]<='z') || (z[n]>='A' && z[n]<='Z') || (z[n]>='0' && z[n]<='9') || z[n]=='_' ) n++;
  *pn = n;
  return n ? z : 0;
}

/* Runs the statements of a model file (zSql) in order, parameters bound as rep_bind_args binds
** them, and its two directives, each a line of its own: ".read sql/<helper>.sql" (aHelperSql) and
** ".rank <table>" (below). The statements: "CREATE TEMP TABLE <name> AS <select>" as rep_table runs it (a table a previous call
** left, which a statement of the caller keeps from being dropped, is emptied and refilled),
** "CREATE TEMP TABLE <name>(...)" only when no such table is left (else it is emptied),
** "CREATE TEMP VIEW <name> ..." after dropping a view of that name, any other as it is. Sets
** r->rc / r->zErr on failure. */
static void rep_run_sql(Rep *r, const char *zSql){
  const char *p = sql_skip(zSql);
  while( *p && r->rc==SQLITE_OK ){
    if( strncmp(p, ".read sql/", 10)==0 ){
      /* ".read sql/<helper>.sql", as in the sqlite3 shell: the helper's views over the report's
      ** own tables (rep_views: every name prefixed profsql_rp_) */
      const char *zEol = strchr(p, '\n');
      size_t n = zEol ? (size_t)(zEol - p) : strlen(p);
      const char *zHelper = 0;
      for(size_t k=0; k<sizeof(aHelperSql)/sizeof(aHelperSql[0]); k++){
        size_t m = strlen(aHelperSql[k].zName);
        if( n==10+m+4 && strncmp(p+10, aHelperSql[k].zName, m)==0 && strncmp(p+10+m, ".sql", 4)==0 ) zHelper = aHelperSql[k].zSql;
      }
      if( zHelper==0 ){ r->rc = SQLITE_ERROR; r->zErr = sqlite3_mprintf("report model: no helper '%.*s'", (int)n, p); return; }
      if( strncmp(p+10, "report_", 7)==0 ) rep_run_sql(r, zHelper);
      else rep_views(r, zHelper);
      p = sql_skip(p + n);
      continue;
    }
    if( strncmp(p, ".rank ", 6)==0 ){
      /* ".rank <table>": a grouping (key, v, any other columns) ranked, as the views <table>_r
      ** (its rows with rn, the rank by v descending then key, and share, % of the sum of v),
      ** <table>_rest (n, v, share of the rows past the 15th; no row when there are none) and
      ** <table>_chart (the first 15 and the rest as '(N more)': a chart section's rows), so that
      ** the shares shown add up to 100 % */
      int n = 0;
      const char *zName = sql_created(p, ".rank ", &n);
      if( zName==0 ){ r->rc = SQLITE_ERROR; r->zErr = sqlite3_mprintf("report model: '.rank' without a table"); return; }
      char *zRank = sqlite3_mprintf(
        "CREATE TEMP VIEW %.*s_r AS WITH t(tot) AS (SELECT sum(v) FROM temp.%.*s) "
        "SELECT g.*, row_number() OVER (ORDER BY v DESC, key) AS rn, CASE WHEN t.tot<>0 THEN v*100.0/t.tot ELSE 0.0 END AS share "
        "FROM temp.%.*s g, t;\n"
        "CREATE TEMP VIEW %.*s_rest AS SELECT * FROM (SELECT count(*) AS n, sum(v) AS v, sum(share) AS share "
        "FROM temp.%.*s_r WHERE rn > 15) WHERE n > 0;\n"
        "CREATE TEMP VIEW %.*s_chart AS SELECT rn, key, v, share FROM temp.%.*s_r WHERE rn <= 15 "
        "UNION ALL SELECT 16, '(' || n || ' more)', v, share FROM temp.%.*s_rest ORDER BY 1;\n",
        n, zName, n, zName, n, zName, n, zName, n, zName, n, zName, n, zName, n, zName);
      if( zRank==0 ){ r->rc = SQLITE_NOMEM; return; }
      rep_run_sql(r, zRank);
      sqlite3_free(zRank);
      p = sql_skip(zName + n);
      continue;
    }
    const char *e = p;                     /* the statement: up to the ';' that completes it */
    for(;;){
      const char *s = strchr(e, ';');
      e = s ? s+1 : p + strlen(p);
      char *z = sqlite3_mprintf("%.*s", (int)(e - p), p);
      if( z==0 ){ r->rc = SQLITE_NOMEM; return; }
      int bDone = s==0 || sqlite3_complete(z);
      sqlite3_free(z);
      if( bDone ) break;
    }
    char *zStmt = sqlite3_mprintf("%.*s", (int)(e - p), p);
    if( zStmt==0 ){ r->rc = SQLITE_NOMEM; return; }
    int n = 0;
    const char *zName;
    char zTable[64];
    if( (zName = sql_created(zStmt, "CREATE TEMP TABLE ", &n))!=0 && n<(int)sizeof(zTable) ){
      snprintf(zTable, sizeof(zTable), "%.*s", n, zName);
      const char *q = sql_skip(zName + n);
      if( sqlite3_strnicmp(q, "AS", 2)==0 && (q[2]==' ' || q[2]=='\n') ) rep_table(r, zTable, q + 3);
      else if( rep_table_reset(r, zTable)==1 ) rep_exec(r, zStmt);
    }else if( (zName = sql_created(zStmt, "CREATE TEMP VIEW ", &n))!=0 ){
      char *zDrop = sqlite3_mprintf("DROP VIEW IF EXISTS temp.%.*s", n, zName);
      if( zDrop==0 ) r->rc = SQLITE_NOMEM;
      rep_exec(r, zDrop);
      sqlite3_free(zDrop);
      rep_exec(r, zStmt);
    }else{
      rep_exec(r, zStmt);
    }
    if( r->rc && r->zErr ){                /* the error names the model file's statement */
      char *z = sqlite3_mprintf("%s (in the report model: %.60s...)", r->zErr, zStmt);
      if( z ){ sqlite3_free(r->zErr); r->zErr = z; }
    }
    sqlite3_free(zStmt);
    p = sql_skip(e);
  }
}

/* "```text" bars of the rows (label, value, max, after) of zSql: the label, the bar of value /
** max (32 cells), then the text after; nothing without rows. */
static void md_bars(Rep *r, PsBuf *b, const char *zSql){
  if( r->rc ) return;
  sqlite3_stmt *st = 0;
  r->rc = sqlite3_prepare_v2(r->db, zSql, -1, &st, 0);
  int n = 0;
  while( r->rc==SQLITE_OK && sqlite3_step(st)==SQLITE_ROW ){
    const char *zLabel = (const char*)sqlite3_column_text(st, 0), *zAfter = (const char*)sqlite3_column_text(st, 3);
    if( n++==0 ) ps_buf_puts(b, "```text\n");
    ps_buf_printf(b, "%s[", zLabel ? zLabel : "");
    md_bar(b, sqlite3_column_double(st, 1), sqlite3_column_double(st, 2), 32);
    ps_buf_printf(b, "] %s\n", zAfter ? zAfter : "");
  }
  if( r->rc==SQLITE_OK ) r->rc = sqlite3_finalize(st); else sqlite3_finalize(st);
  if( r->rc ) r->zErr = sqlite3_mprintf("%s", sqlite3_errmsg(r->db));
  if( n ) ps_buf_puts(b, "```\n\n");
}

/* A Markdown table of zSql's rows with no heading; nothing without rows. */
static void md_rows(Rep *r, PsBuf *b, const char *zSql){
  if( r->rc ) return;
  PsBuf t; memset(&t, 0, sizeof(t));
  sqlite3_int64 nRow = 0;
  r->rc = render_query(r->db, zSql, r->apArg, 5, 1, &t, &nRow, &r->zErr, r);
  if( r->rc==SQLITE_OK && nRow ){ ps_buf_append(b, t.z, t.n); ps_buf_puts(b, "\n"); }
  ps_buf_free(&t);
}

/* The header: '# Profiler report', the capture line (zSource as code, then zAfter), a bullet per
** row of zSql, a blank line. */
static void md_header(Rep *r, PsBuf *b, const char *zSource, const char *zAfter, const char *zSql){
  if( r->rc ) return;
  ps_buf_puts(b, "# Profiler report\n\n- capture: ");
  ps_md_code(b, zSource, strlen(zSource));
  ps_buf_printf(b, "%s\n", zAfter ? zAfter : "");
  sqlite3_stmt *st = 0;
  r->rc = sqlite3_prepare_v2(r->db, zSql, -1, &st, 0);
  while( r->rc==SQLITE_OK && sqlite3_step(st)==SQLITE_ROW ){
    const char *z = (const char*)sqlite3_column_text(st, 0);
    if( z ) ps_buf_printf(b, "- %s\n", z);
  }
  if( r->rc==SQLITE_OK ) r->rc = sqlite3_finalize(st); else sqlite3_finalize(st);
  if( r->rc ) r->zErr = sqlite3_mprintf("%s", sqlite3_errmsg(r->db));
  ps_buf_puts(b, "\n");
}

/* The Markdown of the chosen model: its file (aModelSql) run (rep_run_sql), then its sections
** (profsql_rp_sections, sql/report_model.sql says what each kind draws) written in order. */
static void rep_markdown_model(Rep *r, PsBuf *b, const char *zSource, const char *zModel){
  const char *zSql = 0;
  for(size_t k=0; k<sizeof(aModelSql)/sizeof(aModelSql[0]); k++){
    if( strcmp(aModelSql[k].zName, zModel)==0 ) zSql = aModelSql[k].zSql;
  }
  if( zSql==0 ){
    r->rc = SQLITE_ERROR; r->zErr = sqlite3_mprintf("no report model named '%s'", zModel); return;
  }
  /* what the model reads besides the jobs: the counts of rep_groups' scan, and the CSVs of the
  ** set that take no parameter, as views profsql_rp_csv_<kind> */
  char *zCounts = sqlite3_mprintf("SELECT %lld AS n_done, %lld AS n_active, %lld AS n_budget",
                                  (long long)r->nDone, (long long)r->nActive, (long long)rep_budget_jobs(r));
  if( zCounts==0 ){ r->rc = SQLITE_NOMEM; return; }
  rep_table(r, "profsql_rp_counts", zCounts);
  sqlite3_free(zCounts);
  for(int k=0; k<N_CSV_SET(0) && r->rc==SQLITE_OK; k++){
    sqlite3_stmt *sc = 0;
    int bFree = sqlite3_prepare_v2(r->db, aCsv[k].zSql, -1, &sc, 0)==SQLITE_OK && sqlite3_bind_parameter_count(sc)==0;
    sqlite3_finalize(sc);
    if( !bFree ) continue;
    char *zV = sqlite3_mprintf("CREATE TEMP VIEW profsql_rp_csv_%s AS %s", aCsv[k].zKind, aCsv[k].zSql);
    if( zV==0 ){ r->rc = SQLITE_NOMEM; return; }
    rep_run_sql(r, zV);
    sqlite3_free(zV);
  }
  rep_run_sql(r, zSql);
  rep_run_sql(r, ps_sql_report_diff);    /* "What changed", with a baseline: every model's last section */
  if( r->rc ) return;
  enum { NSEC = 64 };
  char *az[NSEC][5];                       /* kind, title, source, unit, text */
  int nSec = 0;
  memset(az, 0, sizeof(az));
  sqlite3_stmt *st = 0;
  r->rc = sqlite3_prepare_v2(r->db, "SELECT kind, title, source, unit, text FROM temp.profsql_rp_sections "
                             "WHERE show ORDER BY rowid", -1, &st, 0);
  while( r->rc==SQLITE_OK && nSec<NSEC && sqlite3_step(st)==SQLITE_ROW ){
    for(int c=0; c<5; c++){
      const char *z = (const char*)sqlite3_column_text(st, c);
      if( z && (az[nSec][c] = sqlite3_mprintf("%s", z))==0 ) r->rc = SQLITE_NOMEM;
    }
    nSec++;
  }
  if( r->rc==SQLITE_OK ) r->rc = sqlite3_finalize(st); else sqlite3_finalize(st);
  if( r->rc && r->rc!=SQLITE_NOMEM ) r->zErr = sqlite3_mprintf("%s", sqlite3_errmsg(r->db));
  for(int k=0; k<nSec && r->rc==SQLITE_OK; k++){
    const char *zKind = az[k][0] ? az[k][0] : "", *zTitle = az[k][1], *zText = az[k][4];
    char *zFrom = az[k][2] ? sqlite3_mprintf("SELECT * FROM temp.\"%w\"", az[k][2]) : 0;
    if( az[k][2] && zFrom==0 ){ r->rc = SQLITE_NOMEM; break; }
    if( strcmp(zKind, "head")==0 ) md_header(r, b, zSource, zText, zFrom);
    else if( strcmp(zKind, "line")==0 ) md_line(r, b, zTitle, zFrom);
    else if( strcmp(zKind, "chart")==0 ) md_chart(r, b, zTitle ? zTitle : "", zFrom, az[k][3] ? az[k][3] : "ms");
    else if( strcmp(zKind, "table")==0 ) md_table_or(r, b, zTitle ? zTitle : "", zFrom, zText);
    else if( strcmp(zKind, "rows")==0 ) md_rows(r, b, zFrom);
    else if( strcmp(zKind, "bars")==0 ) md_bars(r, b, zFrom);
    else if( strcmp(zKind, "text")==0 ){
      if( zTitle ) ps_buf_printf(b, "## %s\n\n", zTitle);
      ps_buf_printf(b, "%s\n\n", zText ? zText : "");
    }else{
      r->rc = SQLITE_ERROR; r->zErr = sqlite3_mprintf("report model '%s': unknown section kind '%s'", zModel, zKind);
    }
    sqlite3_free(zFrom);
  }
  for(int k=0; k<nSec; k++) for(int c=0; c<5; c++) sqlite3_free(az[k][c]);
}

/* ---- the jobs grouped by thread and by name, for a model that asks (group_jobs: the slices') */
/* The slices grouped by thread (source, lane), by name and all together, with their self time
** (v), slowest elapsed time (mx) and categories (cats): temp.profsql_rp_gth / _gnm / _gma, tables
** of GR_COLS, computed by rep_groups' scan (ps_report_groups) for a report whose model has
** group_jobs (sql/report_model.sql), or by these GROUP BYs (of SL_COLS); kl is the group's last
** job (where SQL's GROUP BY takes a bare column's value from). sql/report_slices.sql reads them. */
#define SL_COLS "(key, k0, n, v, mx, cats, kl) "
#define SL_RAW(K, CATS) SL_COLS "SELECT " K ", min(k), count(*), sum(self_ms), max(e_), " CATS ", max(k) FROM profsql_rj WHERE done_"
static const char *const azSlRaw[] = {
  SL_RAW("NULL", "NULL") " GROUP BY source, lane",
  SL_RAW("name", "group_concat(DISTINCT category)") " GROUP BY name",
  SL_RAW("NULL", "NULL") " HAVING count(*) > 0",
};
/* (iKey counts from the first of SL_KEYS in rep_groups' scan: source, lane, name; the values are
** bits of GR_VALS + SL_VALS: mx 0x8, v 0x10000, cats 0x20000, kl 0x40000) */
static const PsGrouping aSlGroup[] = {
  { "profsql_rp_gth", 0, 2, 0x8|0x10000|0x40000, 0 },  /* source, lane: v, mx, kl */
  { "profsql_rp_gnm", 2, 1, 0x8|0x10000|0x20000, 0 },  /* name: v, mx, cats */
  { "profsql_rp_gma", 0, 0, 0x10000, 0 },              /* every slice: v */
};
#define N_SL_GROUP ((int)(sizeof(aSlGroup)/sizeof(aSlGroup[0])))
#define SL_KEYS "source, lane, name"

/* Creates the TEMP views of an embedded sql/ file (build/sql_text.h) over the report's own
** temp.profsql_rp_* tables, every view name prefixed "profsql_rp_" (ps_sql_prefixed). */
static void rep_views(Rep *r, const char *zViews){
  if( r->rc ) return;
  char *zSql = ps_sql_prefixed(zViews, "profsql_rp_");
  char *zE = 0;
  int rc = zSql ? sqlite3_exec(r->db, zSql, 0, 0, &zE) : SQLITE_NOMEM;
  sqlite3_free(zSql);
  if( rc ){ r->rc = rc; r->zErr = sqlite3_mprintf("%s", zE ? zE : "out of memory"); }
  sqlite3_free(zE);
}

/* Drops what the report model made in temp (views and tables named profsql_rp_*; a table that
** cannot be dropped is emptied: rep_drop). */
static void rep_markdown_cleanup(Rep *r){
  sqlite3_stmt *st = 0;
  if( sqlite3_prepare_v2(r->db, "SELECT type='table', name FROM temp.sqlite_schema WHERE name LIKE 'profsql\\_rp\\_%' ESCAPE '\\' "
                         "AND type IN ('view','table') ORDER BY type='table'", -1, &st, 0) ) return;
  enum { NMAX = 256 };                     /* (the models make some 40) */
  char *azName[NMAX]; int abTable[NMAX], n = 0;
  while( n<NMAX && sqlite3_step(st)==SQLITE_ROW ){
    abTable[n] = sqlite3_column_int(st, 0);
    azName[n] = sqlite3_mprintf("%s", (const char*)sqlite3_column_text(st, 1));
    if( azName[n] ) n++;
  }
  sqlite3_finalize(st);
  for(int k=0; k<n; k++){
    if( abTable[k] ) rep_drop(r, azName[k]);
    else{
      char *z = sqlite3_mprintf("DROP VIEW IF EXISTS temp.\"%w\"", azName[k]);
      if( z ) sqlite3_exec(r->db, z, 0, 0, 0);
      sqlite3_free(z);
    }
    sqlite3_free(azName[k]);
  }
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
  { "budgets_ms", OPT_BUDGETS }, { "budget_ms", OPT_NUM }, { "slow_job_warn_ms", OPT_NUM }, { "top_limit", OPT_COUNT },
  { "max_recent_jobs", OPT_COUNT }, { "archive_prefix", OPT_TEXT }, { "reason", OPT_TEXT },
  { "write_json", OPT_BOOL }, { "write_markdown", OPT_BOOL }, { "write_csv", OPT_BOOL },
  { "write_flamegraph", OPT_BOOL }, { "write_archive", OPT_BOOL },
  { "include_latest_in_archive", OPT_BOOL }, { "max_csv_rows", OPT_COUNT }, { "baseline", OPT_TEXT },
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

#define PS_STR_(x) #x
#define PS_STR(x) PS_STR_(x)
/* max_csv_rows when the options do not say (docs/profile_report.md, "Options") */
#define REP_MAX_CSV_ROWS 100000

/* The completed and active jobs of profsql_rj (r->nDone, r->nActive), counted by SQL when the
** groupings' scan could not count them (a value not of its aggregate's type). */
static void rep_counts(Rep *r){
  char *z = rep_text(r, "SELECT ifnull(sum(done_),0) || ' ' || ifnull(sum(NOT done_),0) FROM profsql_rj");
  long long nDone = 0, nActive = 0;
  if( z ) sscanf(z, "%lld %lld", &nDone, &nActive);
  sqlite3_free(z);
  r->nDone = nDone; r->nActive = nActive;
}

static void rep_bind_cb(void *pRep, sqlite3_stmt *st){ rep_bind_args((Rep*)pRep, st); }

/* Groupings of the completed jobs from one scan: the temp tables aG[g].zTable (created empty
** with columns zCols, a comma list), filled by ps_report_groups from "SELECT <zScanCols>
** <zFrom>" (k, the nVal values aAgg aggregates, the key columns; vtab/report/report_groups.h; ?1..?5
** bound), and by azRaw[g] (an INSERT's SELECT of the same columns: the GROUP BY the scan
** replaces) for a grouping the scan leaves to SQL; aColl and aTop gathered from the same scan.
** Sets r->rc / r->zErr on failure. */
static void rep_group_scan(Rep *r, const char *zScanCols, const char *zFrom, int nVal, const int *aAgg, int nGroup,
                           const PsGrouping *aG, const char *const *azRaw, const char *zCols,
                           int nColl, PsCollect *aColl, int nCount, PsCount *aCount, int nTop, PsTopList *aTop){
  int aDone[16];
  if( r->rc ) return;
  if( nGroup > 16 ){ r->rc = SQLITE_MISUSE; return; }
  for(int g=0; g<nGroup; g++){ aDone[g] = 0; rep_table_cols(r, aG[g].zTable, zCols); }
  if( r->rc==SQLITE_OK ){
    r->rc = ps_report_groups(r->db, zScanCols, zFrom, rep_bind_cb, r, nVal, aAgg, nGroup, aG, nColl, aColl,
                             nCount, aCount, nTop, aTop, r->nJobs, aDone, &r->zErr);
  }
  for(int g=0; g<nGroup && r->rc==SQLITE_OK; g++){
    if( aDone[g] ) continue;
    char *zIns = sqlite3_mprintf("INSERT INTO temp.%s %s", aG[g].zTable, azRaw[g]);
    if( zIns==0 ){ r->rc = SQLITE_NOMEM; break; }
    rep_exec(r, zIns);
    sqlite3_free(zIns);
  }
}

/* The groupings of aGroup into temp.profsql_gr_<x> (rep_group_scan) and the percentiles (from the
** same scan), then the five ranked tables temp.profsql_ag_<x> (AGG_RAW); bSlices: the slices'
** groupings too (aSlGroup, for the Markdown of kind MD_SLICES), whose own scan of every job cost
** 0.36 s of the 1M-event trace's report. Needs r->nJobs (the caps); sets r->nDone, r->nActive
** and r->nBudgetJobs, counted by the same scan (else by rep_counts). Sets r->rc / r->zErr on
** failure. */
static void rep_groups(Rep *r, int bSlices, int bDerived){
  char azName[N_GROUP][32];
  PsGrouping aG[N_GROUP + N_SL_GROUP];
  const char *azRaw[N_GROUP + N_SL_GROUP];
  const int nVal = (int)(sizeof(aGrAgg)/sizeof(aGrAgg[0]));
  PsBuf q; memset(&q, 0, sizeof(q));
  int bad = ps_buf_puts(&q, "k, ") | ps_buf_puts(&q, bDerived ? GR_VALS_DERIVED : GR_VALS)
          | ps_buf_puts(&q, bSlices ? ", " SL_VALS : ", NULL, NULL, NULL");
  int iKey = 1 + nVal;
  for(int g=0; g<N_GROUP; g++){
    snprintf(azName[g], sizeof(azName[g]), "profsql_gr_%s", aGroup[g].zX);
    aG[g].zTable = azName[g]; aG[g].nKey = aGroup[g].zKey ? 1 : 0; aG[g].iKey = iKey; aG[g].mVal = aGroup[g].mVal;
    azRaw[g] = aGroup[g].zRaw;
    if( aGroup[g].zKey ){ bad |= ps_buf_puts(&q, ", ") | ps_buf_puts(&q, aGroup[g].zKey); iKey++; }
  }
  int nG = N_GROUP;
  if( bSlices ){
    for(int g=0; g<N_SL_GROUP; g++){
      aG[nG] = aSlGroup[g]; aG[nG].iKey += iKey; azRaw[nG] = azSlRaw[g]; nG++;
    }
    bad |= ps_buf_puts(&q, ", " SL_KEYS);
    iKey += 3;
  }
  const int iDone = iKey;         /* done_, the filter of all but the r grouping */
  for(int g=0; g<nG; g++) aG[g].iWhere = g<N_GROUP && aGroup[g].bActiveToo ? 0 : iDone;
  /* then the ranked lists' keys and filters (azJobList 1..4: L_BUDGET, L_FRAME, L_TOP_ELAPSED,
  ** L_TOP_LOAD), each list its first max(?4, 16) */
#define LIST_COLS(Z, N) ", done_, ifnull(name,''), max(e_ - ifnull(" N("frame_budget_ms") ",0.0), 0.0), " \
    C_BUDGET ", " C_FRAME_OF(Z) ", budget2_, NOT done_"
  bad |= ps_buf_puts(&q, bDerived ? LIST_COLS(GR_ZERO, GR_NULL) : LIST_COLS(GR_COL, GR_COL)) | ps_buf_append(&q, "", 1);
#undef LIST_COLS
  const int iName = iDone + 1, iFrame = iDone + 2, iBudgetOk = iDone + 3, iFrameOk = iDone + 4;
  const int iBudget2 = iDone + 5, iActive = iDone + 6;
  const int iE = 1 + GR_V_E, iL = 1 + GR_V_L;      /* e_ and l_ (after k) */
  char *zMax = rep_text(r, "SELECT max(?4, 16)");
  sqlite3_int64 nMax = zMax ? atoll(zMax) : 16;
  sqlite3_free(zMax);
  /* lists longer than a grouping may grow (a top_limit of millions) are left to SQL's sorter,
  ** which spills to disk: the heaps hold their jobs' keys in memory */
  int nTop = nMax <= (r->nJobs/32 > PS_GROUPS_MIN ? r->nJobs/32 : PS_GROUPS_MIN) ? REP_N_TOP : 0;
  const PsTopList aL[REP_N_TOP] = {          /* iWhere, nKey, aiKey, abDesc (1: DESC), nMax */
    { iBudgetOk, 3, { iL, iE, iName }, { 1, 1, 0 }, nMax, 0, 0, 0 },     /* O_LOAD */
    { iFrameOk, 3, { iFrame, iE, iName }, { 1, 1, 0 }, nMax, 0, 0, 0 },  /* O_FRAME */
    { iDone, 2, { iE, iName }, { 1, 0 }, nMax, 0, 0, 0 },                /* O_ELAPSED */
    { iDone, 2, { iL, iName }, { 1, 0 }, nMax, 0, 0, 0 },                /* O_TOP_LOAD */
  };
  memcpy(r->aTop, aL, sizeof(aL));
  /* the completed jobs' e_ and l_, for the percentiles */
  PsCollect aColl[2];
  memset(aColl, 0, sizeof(aColl));
  aColl[0].iVal = GR_V_E; aColl[1].iVal = GR_V_L; aColl[0].iWhere = aColl[1].iWhere = iDone;
  /* the completed jobs, the active ones, and the completed jobs with a budget (rep_counts'
  ** sum(done_), sum(NOT done_) and rep_budget_jobs' count(budget2_) WHERE done_) */
  PsCount aCount[3] = { { 0, iDone, 0, 0 }, { 0, iActive, 0, 0 }, { iBudget2, iDone, 0, 0 } };
  if( bad ) r->rc = SQLITE_NOMEM;
  else rep_group_scan(r, q.z, "FROM profsql_rj", nVal, aGrAgg, nG, aG, azRaw, GR_COLS, 2, aColl, 3, aCount, nTop, r->aTop);
  ps_buf_free(&q);
  if( aCount[0].bComplete && aCount[1].bComplete && aCount[2].bComplete ){
    r->nDone = aCount[0].n; r->nActive = aCount[1].n; r->nBudgetJobs = aCount[2].n;
  }else{
    rep_counts(r);
  }
  if( r->rc==SQLITE_OK && aColl[0].bComplete && aColl[1].bComplete && aColl[0].n==aColl[1].n ){
    rep_percentiles(r, aColl[0].a, aColl[1].a, aColl[0].n);
  }
  ps_free(aColl[0].a); ps_free(aColl[1].a);
  for(int g=0; g<N_GROUP; g++){
    if( aGroup[g].zRanked==0 ) continue;
    char zName[32];
    snprintf(zName, sizeof(zName), "profsql_ag_%s", aGroup[g].zX);
    rep_table(r, zName, aGroup[g].zRanked);
  }
}

/* The bytes of CSV k (aCsv) for its dated copy: pMem, or, when it was staged early (pMem NULL),
** its latest file read back from the staging directory into t. NULL with r->rc / r->zErr set on
** failure (or when r->rc already was). */
static const PsBuf *rep_csv_bytes(Rep *r, PsStage *stg, int k, const PsBuf *pMem, PsBuf *t){
  if( r->rc ) return 0;
  if( pMem ) return pMem;
  char zName[200];
  PsErr err; memset(&err, 0, sizeof(err));
  snprintf(zName, sizeof(zName), "profiler_%s_latest.csv", aCsv[k].zKind);
  if( ps_stage_read(stg, zName, t, &err)==PS_OK ) return t;
  r->rc = err.rc==PS_NOMEM ? SQLITE_NOMEM : SQLITE_ERROR;
  r->zErr = sqlite3_mprintf("%s", err.msg);
  return 0;
}

/* The max_csv_rows cap (r->nCap; 0 when the option is 0: every row) and, for each per-row CSV
** (jobs, timeline: the completed jobs; active_jobs: the active ones) that it cuts short, a
** 'csv_rows_capped' diagnostic saying so (r->zCapNotes, a JSON array, NULL when none is cut):
** a cut is never silent (the diagnostics CSV, the JSON's diagnostics and the Markdown say it). */
static void rep_caps(Rep *r, int bCsv){
  char *z = rep_text(r, "SELECT CAST(coalesce(json_extract(?2,'$.max_csv_rows'), " PS_STR(REP_MAX_CSV_ROWS) ") AS INTEGER)");
  r->nCap = z ? atoll(z) : REP_MAX_CSV_ROWS;
  sqlite3_free(z);
  if( r->rc || r->nCap<=0 || !bCsv ) return;
  long long nDone = r->nDone, nActive = r->nActive;
  static const struct { const char *zFile; int bActive; const char *zWhat; } aCut[] = {
    { "profiler_jobs_latest.csv", 0, "completed jobs" },
    { "profiler_active_jobs_latest.csv", 1, "active jobs" },
    { "profiler_timeline_latest.csv", 0, "completed jobs" },
  };
  PsBuf b; memset(&b, 0, sizeof(b));
  int bad = 0, n = 0;
  for(int k=0; k<3; k++){
    long long nAll = aCut[k].bActive ? nActive : nDone;
    if( nAll <= r->nCap ) continue;
    bad |= ps_buf_puts(&b, n++ ? "," : "[");
    bad |= ps_buf_printf(&b, "{\"at_unix_ms\":null,\"code\":\"csv_rows_capped\",\"job_id\":null,\"level\":\"warn\","
      "\"message\":\"%s (and its dated copy) holds the first %lld of the %lld %s, in job order "
      "(option max_csv_rows: %lld; 0 writes every row); every other file counts them all\"}",
      aCut[k].zFile, (long long)r->nCap, nAll, aCut[k].zWhat, (long long)r->nCap);
  }
  if( n ) bad |= ps_buf_puts(&b, "]");
  if( bad ) r->rc = SQLITE_NOMEM;
  else if( n && (r->zCapNotes = sqlite3_mprintf("%.*s", (int)b.n, b.z))==0 ) r->rc = SQLITE_NOMEM;
  ps_buf_free(&b);
}

/* The Markdown's statement of the cap: a "Capped files" section, one line per cut CSV (nothing
** when none was cut). -1 when out of memory. */
static int rep_caps_markdown(Rep *r, PsBuf *b){
  if( r->zCapNotes==0 ) return 0;
  sqlite3_stmt *st = 0;
  int bad = 0;
  if( sqlite3_prepare_v2(r->db, "SELECT json_extract(value,'$.message') FROM json_each(?1)", -1, &st, 0) ) return -1;
  sqlite3_bind_text(st, 1, r->zCapNotes, -1, SQLITE_STATIC);
  bad |= ps_buf_puts(b, "## Capped files\n\n");
  while( sqlite3_step(st)==SQLITE_ROW ){
    const char *z = (const char*)sqlite3_column_text(st, 0);
    bad |= ps_buf_printf(b, "- %s\n", z ? z : "");
  }
  bad |= ps_buf_puts(b, "\n");
  sqlite3_finalize(st);
  return bad ? -1 : 0;
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
  r.nBudgetJobs = -1;
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
  /* the capture's format ('mixed' for several; NULL when it does not load: profile_jobs then
  ** reports why); only a StarProfiler report has a slow threshold by default (?3) */
  char *zFormat = 0;
  {
    sqlite3_stmt *sf = 0;
    if( sqlite3_prepare_v2(r.db, "SELECT CASE WHEN count(DISTINCT value) > 1 THEN 'mixed' ELSE max(value) END "
                           "FROM profile_metadata(?1) WHERE scope='capture' AND key='format'", -1, &sf, 0)==SQLITE_OK ){
      sqlite3_bind_value(sf, 1, argv[0]);
      if( sqlite3_step(sf)==SQLITE_ROW && sqlite3_column_text(sf, 0) ) zFormat = sqlite3_mprintf("%s", sqlite3_column_text(sf, 0));
    }
    sqlite3_finalize(sf);
  }
  /* the report model (sql/report_model.sql): which model file draws the Markdown, whether the
  ** jobs are derived from the capture, whether the slow threshold applies by default, whether the
  ** jobs' scan groups them by thread and name; a capture that does not load gets none (profile_jobs
  ** reports why below) */
  char *zModel = 0;
  int bDerived = 0, bSlowDefault = 0, bGroupJobs = 0;
  if( zFormat ){
    r.zFormat = zFormat;
    r.apArg[0] = argv[0];                 /* (borrowed for the model's statements) */
    rep_run_sql(&r, ps_sql_report_model);
    r.apArg[0] = 0;
    sqlite3_stmt *sm = 0;
    if( r.rc==SQLITE_OK && sqlite3_prepare_v2(r.db, "SELECT model, derived, slow_default, group_jobs FROM temp.profsql_rp_model",
                                              -1, &sm, 0)==SQLITE_OK && sqlite3_step(sm)==SQLITE_ROW ){
      zModel = sqlite3_mprintf("%s", (const char*)sqlite3_column_text(sm, 0));
      bDerived = sqlite3_column_int(sm, 1); bSlowDefault = sqlite3_column_int(sm, 2); bGroupJobs = sqlite3_column_int(sm, 3);
    }
    sqlite3_finalize(sm);
    if( r.rc ){
      char *m = sqlite3_mprintf("profile_report: %s", r.zErr ? r.zErr : sqlite3_errstr(r.rc));
      sqlite3_result_error(ctx, m ? m : "out of memory", -1);
      sqlite3_free(m); sqlite3_free(r.zErr); sqlite3_free(zFormat); sqlite3_free(zModel);
      rep_markdown_cleanup(&r);
      return;
    }
  }
  /* the values bound as ?1..?5 */
  sqlite3_stmt *pv = 0;
  if( sqlite3_prepare_v2(r.db,
      "SELECT ?1, ?2, coalesce(json_extract(?2,'$.slow_job_warn_ms'), CASE WHEN ?3 THEN coalesce("
      "(SELECT json_extract(value,'$.diagnostics.slow_job_warn_ms') FROM profile_metadata(?1) WHERE scope='report' "
      "AND key='config' AND json_valid(value) AND json_type(value,'$.diagnostics.slow_job_warn_ms') IN ('integer','real') LIMIT 1), "   /* a report's own threshold */
      "16.67) END), "
      "coalesce(json_extract(?2,'$.top_limit'),64)", -1, &pv, 0) ){
    sqlite3_free(zFormat); sqlite3_free(zModel);
    sqlite3_result_error(ctx, sqlite3_errmsg(r.db), -1); rep_markdown_cleanup(&r); return;
  }
  sqlite3_bind_value(pv, 1, argv[0]);
  if( pOpt ) sqlite3_bind_value(pv, 2, pOpt);
  sqlite3_bind_int(pv, 3, bSlowDefault);
  sqlite3_step(pv);
  for(int k=0; k<4; k++) r.apArg[k] = sqlite3_value_dup(sqlite3_column_value(pv, k));
  sqlite3_finalize(pv);
  for(int k=0; k<4; k++) if( r.apArg[k]==0 ){ for(int j=0; j<4; j++) sqlite3_value_free(r.apArg[j]); sqlite3_free(zFormat); sqlite3_free(zModel); sqlite3_result_error_nomem(ctx); rep_markdown_cleanup(&r); return; }

  PsBuf aOut[N_CSV]; memset(aOut, 0, sizeof(aOut));
  PsBuf md, js, man; memset(&md, 0, sizeof(md)); memset(&js, 0, sizeof(js)); memset(&man, 0, sizeof(man));
  PsErr err; memset(&err, 0, sizeof(err));
  char *zPrefix = 0, *zReason = 0, *zReasonJson = 0, *zRunStart = 0, *zJson = 0, *zManifest = 0;

  /* the temporary tables below hold a row per job and the report scans them some thirty times:
  ** for a capture of 65536 jobs or more they go on 64 KiB pages (when the connection has no
  ** temporary database yet; the page cache keeps its size in KiB), a sixteenth of the reads */
  {
    char *zT = rep_text(&r, "SELECT (SELECT count(*) FROM temp.sqlite_schema)=0 "
                            "AND (SELECT count(*) FROM profile_jobs(?1)) >= 65536");
    if( zT && atoi(zT)==1 ) rep_exec(&r, "PRAGMA temp.page_size=65536");
    sqlite3_free(zT);
  }
  /* a capture of derived jobs (not a StarProfiler report: bDerived, from the model): its jobs
  ** table's N and Z columns are NULL and 0 in every row (RJ_COLS_DERIVED) */
  {
    /* options that name no budget give none: the jobs table without their lookup */
    char *zB = rep_text(&r, "SELECT json_type(?2,'$.budgets_ms') IS NOT NULL OR json_type(?2,'$.budget_ms') IS NOT NULL");
    rep_table_keyed(&r, "profsql_rj", azJobsTable[bDerived][!(zB && atoi(zB)==0)], &r.nJobs);
    sqlite3_free(zB);
  }
  int bMd = opt_bool(&r, "write_markdown", 1);
  rep_groups(&r, bMd && bGroupJobs, bDerived);
  /* a comparison with a baseline (option "baseline"): profile_diff's rows of the baseline against
  ** the capture, by name, for profiler_diff_latest.csv and the Markdown's "What changed" */
  char *zDiff = rep_text(&r, "SELECT json_type(?2,'$.baseline')='text'");
  const int bDiff = zDiff && atoi(zDiff);
  sqlite3_free(zDiff);
  if( bDiff ) rep_table(&r, "profsql_rp_diff", "SELECT * FROM profile_diff(json_extract(?2,'$.baseline'), ?1)");
  const int nCsv = N_CSV_SET(bDiff);
  zRunStart = rep_text(&r,
    "SELECT coalesce((SELECT value FROM profile_metadata(?1) WHERE scope='run' AND key='started_unix_ms' AND typeof(value)='integer'), "
    "(SELECT CAST(smin AS INTEGER) FROM temp.profsql_gr_r), 0)");
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
  int bJson = opt_bool(&r, "write_json", 1);
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
  rep_caps(&r, bCsv);
  long long nRecent = 4096;
  if( bJson ){
    char *zRecent = rep_text(&r, "SELECT CAST(coalesce(json_extract(?2,'$.max_recent_jobs'),4096) AS INTEGER)");
    nRecent = zRecent ? atoll(zRecent) : 4096;
    sqlite3_free(zRecent);
  }
  rep_job_lists(&r, bJson, nRecent);
  /* the staging directory of the set (ext/writers/writer.h, PsStage), opened before the CSVs: a CSV of
  ** REP_STAGE_EARLY bytes or more (the per-row ones of a large capture) is written there at once
  ** as its latest file, not yet in the set (ps_stage_put), and its bytes freed; the archive reads
  ** it back when its turn comes, and it joins the set in the same order as the others (abStaged) */
  PsStage *stg = 0;
  if( r.rc==SQLITE_OK ){
    stg = ps_stage_open(zDir, &err);
    if( stg==0 ){ r.rc = err.rc==PS_NOMEM ? SQLITE_NOMEM : SQLITE_ERROR; r.zErr = sqlite3_mprintf("%s", err.msg); }
  }
  int abStaged[N_CSV]; memset(abStaged, 0, sizeof(abStaged));
  for(int k=0; k<nCsv && bCsv; k++){
    rep_csv(&r, aCsv[k].zSql, &aOut[k]);
    if( r.rc==SQLITE_OK && aOut[k].n >= REP_STAGE_EARLY ){
      char zName[200];
      snprintf(zName, sizeof(zName), "profiler_%s_latest.csv", aCsv[k].zKind);
      if( ps_stage_put(stg, zName, aOut[k].z, aOut[k].n, &err) ){
        r.rc = err.rc==PS_NOMEM ? SQLITE_NOMEM : SQLITE_ERROR; r.zErr = sqlite3_mprintf("%s", err.msg);
      }else{
        abStaged[k] = 1;
        ps_buf_free(&aOut[k]);
      }
    }
  }
  if( bMd && r.rc==SQLITE_OK ){
    char zSrc[512];
    if( t0==SQLITE_TEXT ) snprintf(zSrc, sizeof(zSrc), "%s", (const char*)sqlite3_value_text(argv[0]));
    else snprintf(zSrc, sizeof(zSrc), "BLOB (%d bytes)", sqlite3_value_bytes(argv[0]));
    if( zModel ) rep_markdown_model(&r, &md, zSrc, zModel);
    rep_markdown_cleanup(&r);
    if( r.rc==SQLITE_OK && rep_caps_markdown(&r, &md) ) r.rc = SQLITE_NOMEM;
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
    zJson = rep_report_json(&r, (PsConn*)sqlite3_user_data(ctx), argv[0], 0, nowMs, nRecent, zDir, zFormat);
    if( zJson && ps_json_pretty(&js, zJson, strlen(zJson)) ) r.rc = SQLITE_NOMEM;
    sqlite3_free(zJson); zJson = 0;   /* (the pretty copy is what is written) */
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
    for(int k=0; k<nCsv && bCsv; k++) bad |= ps_buf_printf(&mj, "%s\"%s\":\"profiler_%s_latest.csv\"", k ? "," : "", aCsv[k].zKind, aCsv[k].zKind);
    bad |= ps_buf_printf(&mj, "},\"flamegraph\":%s},\"entries\":{", bFg ? "\"profiler_flamegraph_latest.svg\"" : "null");
    if( bJson ) bad |= ps_buf_printf(&mj, "\"json\":\"profiler_report_%s.json\",", zStamp);
    else bad |= ps_buf_puts(&mj, "\"json\":null,");
    if( bMd ) bad |= ps_buf_printf(&mj, "\"markdown\":\"profiler_report_%s.md\",", zStamp);
    else bad |= ps_buf_puts(&mj, "\"markdown\":null,");
    bad |= ps_buf_puts(&mj, "\"csv\":{");
    for(int k=0; k<nCsv && bCsv; k++) bad |= ps_buf_printf(&mj, "%s\"%s\":\"profiler_%s_%s.csv\"", k ? "," : "", aCsv[k].zKind, aCsv[k].zKind, zStamp);
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
  /* write: the whole set into a staging directory in out_dir, then moved into place (ext/writers/writer.h,
  ** PsStage): the dated archive (or the dated files loose) first, the latest files after it,
  ** manifest.json last. A failure before the move leaves the previous set as it was. */
#define OUT(name, buf) do{ if( r.rc==SQLITE_OK ){ \
    if( ps_stage_write(stg, name, (buf).z ? (buf).z : "", (buf).n, &err) ){ r.rc = SQLITE_ERROR; r.zErr = sqlite3_mprintf("%s", err.msg); } } }while(0)
  if( r.rc==SQLITE_OK ){
    char zName[200];
    if( bZip ){
      PsZip *z = ps_stage_zip_open(stg, zArchive, &err);
      int rc = z ? PS_OK : PS_ERROR;
#define ADD(name, buf) do{ if( rc==PS_OK ) rc = ps_zip_add(z, name, (buf).z ? (buf).z : "", (buf).n, &err); }while(0)
#define ADD_AGAIN(name) do{ if( rc==PS_OK ) rc = ps_zip_add_again(z, name, &err); }while(0)
      ADD("manifest.json", man);
      if( bJson ){
        snprintf(zName, sizeof(zName), "profiler_report_%s.json", zStamp); ADD(zName, js);
        if( bLatestInZip ) ADD_AGAIN("profiler_report_latest.json");
      }
      if( bMd ){
        snprintf(zName, sizeof(zName), "profiler_report_%s.md", zStamp); ADD(zName, md);
        if( bLatestInZip ) ADD_AGAIN("profiler_report_latest.md");
      }
      for(int k=0; k<nCsv && bCsv; k++){
        PsBuf t; memset(&t, 0, sizeof(t));
        const PsBuf *pCsv = rep_csv_bytes(&r, stg, k, abStaged[k] ? 0 : &aOut[k], &t);
        if( pCsv==0 ) rc = PS_ERROR;
        snprintf(zName, sizeof(zName), "profiler_%s_%s.csv", aCsv[k].zKind, zStamp); if( pCsv ) ADD(zName, *pCsv);
        ps_buf_free(&t);
        if( bLatestInZip ){ snprintf(zName, sizeof(zName), "profiler_%s_latest.csv", aCsv[k].zKind); ADD_AGAIN(zName); }
      }
      if( bFg ){
        snprintf(zName, sizeof(zName), "profiler_flamegraph_%s.svg", zStamp); ADD(zName, fg);
        if( bLatestInZip ) ADD_AGAIN("profiler_flamegraph_latest.svg");
      }
#undef ADD
#undef ADD_AGAIN
      if( z && ps_zip_close(z, rc==PS_OK, &err) ) rc = PS_ERROR;
      if( rc==PS_OK ) rc = ps_stage_note(stg, zArchive, &err);
      if( rc && r.rc==SQLITE_OK ){ r.rc = SQLITE_ERROR; r.zErr = sqlite3_mprintf("%s", err.msg); }
    }else{
      if( bJson ){ snprintf(zName, sizeof(zName), "profiler_report_%s.json", zStamp); OUT(zName, js); }
      if( bMd ){ snprintf(zName, sizeof(zName), "profiler_report_%s.md", zStamp); OUT(zName, md); }
      for(int k=0; k<nCsv && bCsv; k++){
        PsBuf t; memset(&t, 0, sizeof(t));
        const PsBuf *pCsv = rep_csv_bytes(&r, stg, k, abStaged[k] ? 0 : &aOut[k], &t);
        snprintf(zName, sizeof(zName), "profiler_%s_%s.csv", aCsv[k].zKind, zStamp); if( pCsv ) OUT(zName, *pCsv);
        ps_buf_free(&t);
      }
      if( bFg ){ snprintf(zName, sizeof(zName), "profiler_flamegraph_%s.svg", zStamp); OUT(zName, fg); }
    }
    if( bJson ) OUT("profiler_report_latest.json", js);
    if( bMd ) OUT("profiler_report_latest.md", md);
    for(int k=0; k<nCsv && bCsv; k++){
      snprintf(zName, sizeof(zName), "profiler_%s_latest.csv", aCsv[k].zKind);
      if( !abStaged[k] ) OUT(zName, aOut[k]);
      else if( r.rc==SQLITE_OK && ps_stage_note(stg, zName, &err) ){ r.rc = SQLITE_NOMEM; r.zErr = sqlite3_mprintf("%s", err.msg); }
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
  /* dropped, or emptied when a statement of the caller reads the temp schema (rep_drop): a
  ** million rows are not left behind until the connection closes */
  static const char *const azTmp[] = { "profsql_rj", "profsql_shape", "profsql_jj", "profsql_jl", "profsql_jm" };
  for(int k=0; k<(int)(sizeof(azTmp)/sizeof(azTmp[0])); k++) rep_drop(&r, azTmp[k]);
  rep_markdown_cleanup(&r);           /* (the model and the groupings of a report stopped before its Markdown) */
  for(int g=0; g<N_GROUP; g++){
    for(int bRanked=0; bRanked<2; bRanked++){
      char zName[32];
      snprintf(zName, sizeof(zName), "profsql_%s_%s", bRanked ? "ag" : "gr", aGroup[g].zX);
      rep_drop(&r, zName);
    }
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
  sqlite3_free(r.zCapNotes);
  for(int l=0; l<REP_N_TOP; l++) ps_free(r.aTop[l].aK);
  for(int k=0; k<N_CSV; k++) ps_buf_free(&aOut[k]);
  ps_buf_free(&md); ps_buf_free(&js); ps_buf_free(&man); ps_buf_free(&fg);
  sqlite3_free(zFormat);
  sqlite3_free(zModel);
  sqlite3_free(zPrefix); sqlite3_free(zReason); sqlite3_free(zReasonJson); sqlite3_free(zRunStart); sqlite3_free(zJson); sqlite3_free(zManifest);
  for(int k=0; k<5; k++) sqlite3_value_free(r.apArg[k]);
}

int ps_report_register(sqlite3 *db, PsConn *pConn){
  int rc = sqlite3_create_function(db, "profile_fixed", 2, SQLITE_UTF8|SQLITE_DETERMINISTIC|SQLITE_INNOCUOUS,
                                   0, fixedFunc, 0, 0);
  if( rc==SQLITE_OK ) rc = sqlite3_create_function(db, "profile_float", 1, SQLITE_UTF8|SQLITE_DETERMINISTIC|SQLITE_INNOCUOUS,
                                                   0, floatFunc, 0, 0);
  if( rc==SQLITE_OK ) rc = sqlite3_create_function(db, "profile_write_csv", 2, SQLITE_UTF8|SQLITE_DIRECTONLY, 0, csvFunc, 0, 0);
  if( rc==SQLITE_OK ) rc = sqlite3_create_function(db, "profile_write_csv", 3, SQLITE_UTF8|SQLITE_DIRECTONLY, 0, csvFunc, 0, 0);
  if( rc==SQLITE_OK ) rc = sqlite3_create_function(db, "profile_write_markdown", 2, SQLITE_UTF8|SQLITE_DIRECTONLY, 0, mdFunc, 0, 0);
  if( rc==SQLITE_OK ) rc = sqlite3_create_function(db, "profsql_rp_row", -1, SQLITE_UTF8|SQLITE_DIRECTONLY, 0,
                                                   ps_report_groups_row, 0, 0);
  if( rc==SQLITE_OK ) rc = ps_register_conn_function(db, pConn, "profile_zip", -1, -1, zipFunc);
  if( rc==SQLITE_OK ) rc = ps_register_conn_function(db, pConn, "profile_report", 2, 3, reportFunc);
  return rc;
}
