/*
** fuzz_report.c — libFuzzer target for the report writers, driven through SQL on a fuzzed BLOB:
**
**   SELECT profile_report(?blob, '<dir>', <options>)
**   SELECT profile_write_csv('<dir>/jobs.csv', 'SELECT j.* FROM fz, profile_jobs(fz.b) j')
**   SELECT profile_write_markdown('<dir>/jobs.md', <the same>)
**   SELECT profile_zip('<dir>/out.zip', '<dir>/jobs.csv', '<dir>/jobs.md')
**   SELECT profile_flamegraph(?blob, '<dir>/flame.svg', <group>)
**
** (temp.fz holds the BLOB: the writers take a query's text, which cannot bind it.) <dir> is a
** directory made once per process (mkdtemp in /dev/shm, else $TMPDIR or /tmp: the writers
** fsync, which costs nothing on tmpfs), emptied before each input and removed at exit. The
** options are one of a fixed set, picked by the input's size, so every option is reached
** without spending input bytes on them (the seeds stay whole captures). Each input gets a fresh
** connection: nothing carries over from one input to the next, so a crash replays from its input
** alone; a gzip BLOB inflates to at most 16 MiB (max_inflated_bytes, as fuzz_gzip). SQL errors
** are expected; crashes, leaks and UB are findings.
*/
#include <sqlite3.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int sqlite3_profsql_init(sqlite3 *db, char **pzErrMsg, const void *pApi);

/* options_json of profile_report, by size % FUZZ_NOPT (NULL: the defaults, archive included) */
static const char *const azReportOpt[] = {
  0,
  "{\"write_archive\": false}",
  "{\"write_archive\": false, \"budgets_ms\": {\"*\": 0.001, \"loading\": 1e300, \"render\": 0},"
  " \"slow_job_warn_ms\": 0, \"top_limit\": 1, \"max_recent_jobs\": 1}",
  "{\"include_latest_in_archive\": false, \"archive_prefix\": \"../a b/\\u00e9\\u0000\","
  " \"reason\": \"\\\"r\\\",\\n|\", \"write_flamegraph\": false}",
  "{\"write_json\": false, \"write_markdown\": false, \"write_archive\": false, \"top_limit\": 0,"
  " \"budgets_ms\": {\"*\": -1}, \"max_recent_jobs\": 0}",
  "{\"write_csv\": false, \"write_archive\": false, \"slow_job_warn_ms\": 1e308,"
  " \"top_limit\": 100000, \"budgets_ms\": {\"*\": 1e-300}}",
  "[1]",
};
#define FUZZ_NOPT (sizeof(azReportOpt)/sizeof(azReportOpt[0]))

/* options_json of profile_flamegraph, by (size / FUZZ_NOPT) % NFLAME */
static const char *const azFlameOpt[] = {
  0, "{\"group\": \"thread\"}", "{\"group\": \"none\", \"title\": \"<&\\\"'>\"}", "{\"group\": \"track\"}",
  "{\"weight\": \"self\", \"group\": \"thread\"}", "{\"weight\": \"samples\", \"exclude\": \"a\"}",
  "{\"ts_from\": 1000, \"ts_to\": 9000000, \"name\": \"[a-m]\"}", "{\"pid\": 1, \"weight\": \"self\"}",
};
#define NFLAME (sizeof(azFlameOpt)/sizeof(azFlameOpt[0]))

static char zDir[64];

/* Removes every file in zDir (the writers make no subdirectories); the directory itself too
** when bDir. */
static void fuzz_report_clean(int bDir){
  DIR *d = opendir(zDir);
  if( d ){
    struct dirent *p;
    while( (p = readdir(d))!=0 ){
      if( strcmp(p->d_name, ".")==0 || strcmp(p->d_name, "..")==0 ) continue;
      char zPath[512];
      snprintf(zPath, sizeof(zPath), "%s/%s", zDir, p->d_name);
      unlink(zPath);
    }
    closedir(d);
  }
  if( bDir ) rmdir(zDir);
}
static void fuzz_report_atexit(void){ fuzz_report_clean(1); }

/* Runs zSql with ?1 the input, ?2 the directory, ?3 and ?4 the option texts; rows are read and
** dropped, errors ignored. */
static void fuzz_report_run(sqlite3 *db, const char *zSql, const unsigned char *data, size_t size,
                            const char *zOpt, const char *zFlame){
  sqlite3_stmt *st = 0;
  if( sqlite3_prepare_v2(db, zSql, -1, &st, 0)!=SQLITE_OK ) return;
  sqlite3_bind_blob(st, 1, data, (int)size, SQLITE_STATIC);
  sqlite3_bind_text(st, 2, zDir, -1, SQLITE_STATIC);
  if( zOpt ) sqlite3_bind_text(st, 3, zOpt, -1, SQLITE_STATIC);
  if( zFlame ) sqlite3_bind_text(st, 4, zFlame, -1, SQLITE_STATIC);
  while( sqlite3_step(st)==SQLITE_ROW ){}
  sqlite3_finalize(st);
}

static const char *const azSql[] = {
  "CREATE TEMP TABLE fz(b BLOB)",
  "INSERT INTO fz VALUES (?1)",
  "SELECT profile_report(?1, ?2, ?3)",
  "SELECT profile_write_csv(?2 || '/jobs.csv', 'SELECT j.* FROM fz, profile_jobs(fz.b) j')",
  "SELECT profile_write_markdown(?2 || '/jobs.md', 'SELECT j.* FROM fz, profile_jobs(fz.b) j')",
  "SELECT profile_zip(?2 || '/out.zip', ?2 || '/jobs.csv', ?2 || '/jobs.md')",
  "SELECT profile_flamegraph(?1, ?2 || '/flame.svg', ?4)",
  "SELECT profile_flamegraph_folded(?2 || '/f.svg', 'SELECT CAST(b AS TEXT), length(b) FROM fz')",
};

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size){
  if( zDir[0]==0 ){
    /* tmpfs when there is one: the writers fsync every file and its directory */
    const char *zTmp = access("/dev/shm", W_OK)==0 ? "/dev/shm" : getenv("TMPDIR");
    snprintf(zDir, sizeof(zDir), "%s/profsql-fuzz-report-XXXXXX", zTmp && strlen(zTmp)<32 ? zTmp : "/tmp");
    if( mkdtemp(zDir)==0 ){ perror("fuzz_report: mkdtemp"); abort(); }
    atexit(fuzz_report_atexit);
  }
  fuzz_report_clean(0);
  sqlite3 *db = 0;
  if( sqlite3_open(":memory:", &db)!=SQLITE_OK ){ sqlite3_close(db); return 0; }
  sqlite3_profsql_init(db, 0, 0);
  sqlite3_exec(db, "SELECT profsql_config('max_inflated_bytes', 16777216)", 0, 0, 0);   /* as fuzz_gzip */
  const char *zOpt = azReportOpt[size % FUZZ_NOPT];
  const char *zFlame = azFlameOpt[(size / FUZZ_NOPT) % NFLAME];
  for(size_t i=0; i<sizeof(azSql)/sizeof(azSql[0]); i++){
    fuzz_report_run(db, azSql[i], data, size, zOpt, zFlame);
  }
  sqlite3_close(db);
  return 0;
}
