/*
** test_sql_fault.c — allocation failures through SQL: SQLite's allocator (SQLITE_CONFIG_MALLOC)
** and ext/'s (-DPS_FAULT_INJECT) share one countdown, so the k-th allocation of a whole session
** — open, load the extension, prepare, load a capture, step, read every column — fails, for
** every k. Each run must end in SQLITE_OK, SQLITE_NOMEM or a clean error, never a crash, and
** leak nothing (LeakSanitizer at exit). Built with ASan/UBSan (make test).
*/
#include "testlib.h"
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

extern long ps_fi_countdown, ps_fi_count;
int sqlite3_profsql_init(sqlite3 *db, char **pzErrMsg, const void *pApi);

static sqlite3_mem_methods mDefault;
static int fi_fail(void){
  ps_fi_count++;
  if( ps_fi_countdown<0 ) return 0;
  if( ps_fi_countdown==0 ){ ps_fi_countdown = -1; return 1; }
  ps_fi_countdown--;
  return 0;
}
static void *fiMalloc(int n){ return fi_fail() ? 0 : mDefault.xMalloc(n); }
static void *fiRealloc(void *p, int n){ return fi_fail() ? 0 : mDefault.xRealloc(p, n); }
static void fiFree(void *p){ mDefault.xFree(p); }
static int fiSize(void *p){ return mDefault.xSize(p); }
static int fiRoundup(int n){ return mDefault.xRoundup(n); }
static int fiInit(void *p){ return mDefault.xInit(p); }
static void fiShutdown(void *p){ mDefault.xShutdown(p); }

static const char *const azSql[] = {
  "SELECT count(*), sum(dur), max(name) FROM profile_events('tests/data/basic.json')",
  "SELECT name, count(*) FROM profile_events('tests/data/basic.json') GROUP BY name",
  "SELECT * FROM profile_events('tests/data/basic.json') WHERE id = 3",
  "SELECT scope, key, value FROM profile_metadata('examples/gpu_host.xplane.pb')",
  "SELECT * FROM profile_jobs('tests/data/jobs_report.json')",
  "SELECT * FROM profile_records('examples/server_timings.txt') WHERE parent_record_id = 1",
  "SELECT * FROM profile_xplanes('examples/gpu_host.xplane.pb')",
  "SELECT count(*) FROM profile_events('tests/data/not_a_trace.txt')",
};

/* One session; returns 0 if every step ended cleanly (OK, NOMEM or an error message). */
static int session(void){
  sqlite3 *db = 0;
  int rc = sqlite3_open(":memory:", &db);
  if( rc==SQLITE_OK ) rc = sqlite3_profsql_init(db, 0, 0);
  for(size_t k=0; rc==SQLITE_OK && k<sizeof(azSql)/sizeof(azSql[0]); k++){
    sqlite3_stmt *st = 0;
    if( sqlite3_prepare_v2(db, azSql[k], -1, &st, 0)!=SQLITE_OK ) continue;
    int r;
    while( (r = sqlite3_step(st))==SQLITE_ROW ){
      for(int c=0; c<sqlite3_column_count(st); c++) (void)sqlite3_column_text(st, c);
    }
    sqlite3_finalize(st);
  }
  sqlite3_close(db);
  return 0;
}

int main(void){
  sqlite3_config(SQLITE_CONFIG_GETMALLOC, &mDefault);
  sqlite3_mem_methods m = { fiMalloc, fiFree, fiRealloc, fiSize, fiRoundup, fiInit, fiShutdown, 0 };
  CHECK_INT(sqlite3_config(SQLITE_CONFIG_MALLOC, &m), SQLITE_OK);
  sqlite3_config(SQLITE_CONFIG_LOOKASIDE, 0, 0);   /* every allocation reaches the counter */
  ps_fi_countdown = -1; ps_fi_count = 0;
  session();
  long n = ps_fi_count;
  int step = n > 6000 ? (int)(n / 6000) + 1 : 1;   /* bounded run time: a sample when huge */
  long nRun = 0;
  for(long k=0; k<n; k+=step){
    ps_fi_countdown = k; ps_fi_count = 0;
    session();
    nRun++;
  }
  ps_fi_countdown = -1;
  printf("  %ld allocations in a session; %ld failure points run (every %d)\n", n, nRun, step);
  CHECK(nRun > 0);
  return tl_done();
}
