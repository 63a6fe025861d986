/*
** test_sql.c — the extension driven through the SQLite C API, linked statically
** (-DSQLITE_CORE) and registered with sqlite3_profsql_init(db, 0, 0): the route the sanitizer
** builds take. Covers BLOB sources, the cache (hits, re-read of a changed file), lookups,
** and the error paths.
*/
#include "testlib.h"
#include <sqlite3.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/time.h>

int sqlite3_profsql_init(sqlite3 *db, char **pzErrMsg, const void *pApi);

static sqlite3 *db;

/* Runs zSql and returns the first column of the first row as text (static buffer), or
** "ERROR: <message>". */
static const char *q1(const char *zSql){
  static char buf[2048];
  sqlite3_stmt *st = 0;
  int rc = sqlite3_prepare_v2(db, zSql, -1, &st, 0);
  if( rc==SQLITE_OK ) rc = sqlite3_step(st);
  if( rc==SQLITE_ROW ){
    const unsigned char *z = sqlite3_column_text(st, 0);
    snprintf(buf, sizeof(buf), "%s", z ? (const char*)z : "NULL");
  }else if( rc==SQLITE_DONE ){
    snprintf(buf, sizeof(buf), "NO ROW");
  }else{
    snprintf(buf, sizeof(buf), "ERROR: %s", sqlite3_errmsg(db));
  }
  sqlite3_finalize(st);
  return buf;
}

static void write_file(const char *zPath, const char *z){
  FILE *f = fopen(zPath, "wb");
  fputs(z, f);
  fclose(f);
}

static void test_cache(void){
  char zPath[] = "/tmp/profsql_test_XXXXXX";
  int fd = mkstemp(zPath); close(fd);
  char zSql[512];
  int loads0 = atoi(q1("SELECT profsql_debug()->>'loads'"));
  write_file(zPath, "[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":2}]");
  snprintf(zSql, sizeof(zSql), "SELECT sum(dur) FROM profile_events('%s')", zPath);
  CHECK_STR(q1(zSql), "2000");
  CHECK_STR(q1(zSql), "2000");
  /* self-join parses once: loads stays 1 */
  snprintf(zSql, sizeof(zSql), "SELECT count(*) FROM profile_events('%s') a JOIN profile_events('%s') b ON a.id=b.id", zPath, zPath);
  CHECK_STR(q1(zSql), "1");
  CHECK_INT(atoi(q1("SELECT profsql_debug()->>'loads'")), loads0 + 1);
  CHECK(atoi(q1("SELECT profsql_debug()->>'hits'"))>=3);
  /* a changed file is re-read (new size and mtime) */
  write_file(zPath, "[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":3},{\"ph\":\"X\",\"name\":\"b\",\"ts\":9,\"dur\":1}]");
  struct timeval tv[2]; gettimeofday(&tv[0], 0); tv[0].tv_sec += 5; tv[1] = tv[0];
  utimes(zPath, tv);
  snprintf(zSql, sizeof(zSql), "SELECT sum(dur) FROM profile_events('%s')", zPath);
  CHECK_STR(q1(zSql), "4000");
  CHECK_INT(atoi(q1("SELECT profsql_debug()->>'loads'")), loads0 + 2);
  /* a file turned into garbage gives an error, and the old capture is not served */
  write_file(zPath, "[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":3},{\"ph\":");
  tv[0].tv_sec += 5; tv[1] = tv[0]; utimes(zPath, tv);
  snprintf(zSql, sizeof(zSql), "SELECT sum(dur) FROM profile_events('%s')", zPath);
  CHECK_CONTAINS(q1(zSql), "ERROR: profile_events: /tmp/profsql_test_");
  CHECK_CONTAINS(q1(zSql), ": the input ends inside an event at byte 44 (line 1, column 45; cut short?): expected a one-character string for 'ph'");
  unlink(zPath);
  CHECK_CONTAINS(q1(zSql), "No such file or directory");
}

/* A glob of more files than the cache keeps is read one capture at a time (vtab/loader.c,
** ps_set_use): each file's strings are freed when the scan leaves it, so text SQLite keeps past
** the row (max(), a GROUP BY key) must be a copy; under ASan a static pointer into a freed pool
** is a heap-use-after-free. Hand values: file k holds events "ev<k>a" (dur 1 ms) and "ev<k>b"
** (dur k ms). */
static void test_stream(void){
  char zDir[] = "/tmp/profsql_stream_XXXXXX";
  if( mkdtemp(zDir)==0 ){ CHECK(0); return; }
  char zPath[256], zJson[512], zSql[512];
  for(int k=0; k<6; k++){
    snprintf(zPath, sizeof(zPath), "%s/r%d.json", zDir, k);
    snprintf(zJson, sizeof(zJson), "[{\"ph\":\"X\",\"name\":\"ev%da\",\"ts\":1,\"dur\":1000,\"pid\":1,\"tid\":1},"
             "{\"ph\":\"X\",\"name\":\"ev%db\",\"ts\":2000,\"dur\":%d,\"pid\":1,\"tid\":1}]", k, k, k*1000);
    write_file(zPath, zJson);
  }
  int loads0 = atoi(q1("SELECT profsql_debug()->>'loads'"));
  int live0 = atoi(q1("SELECT profsql_debug()->>'live'"));
  snprintf(zSql, sizeof(zSql), "SELECT max(name) || ',' || min(name) FROM profile_events('%s/r*.json')", zDir);
  CHECK_STR(q1(zSql), "ev5b,ev0a");
  CHECK_INT(atoi(q1("SELECT profsql_debug()->>'loads'")), loads0 + 6);
  snprintf(zSql, sizeof(zSql), "SELECT group_concat(name || ':' || n, ' ') FROM (SELECT file, name, count(*) AS n "
           "FROM profile_events('%s/r*.json') GROUP BY file, name)", zDir);
  CHECK_STR(q1(zSql), "ev0a:1 ev0b:1 ev1a:1 ev1b:1 ev2a:1 ev2b:1 ev3a:1 ev3b:1 ev4a:1 ev4b:1 ev5a:1 ev5b:1");
  snprintf(zSql, sizeof(zSql), "SELECT group_concat(name || '=' || d, ' ') FROM (SELECT name, sum(dur) AS d "
           "FROM profile_events('%s') GROUP BY name)", zDir);
  CHECK_STR(q1(zSql), "ev0a=1000000 ev0b=0 ev1a=1000000 ev1b=1000000 ev2a=1000000 ev2b=2000000 ev3a=1000000 "
                      "ev3b=3000000 ev4a=1000000 ev4b=4000000 ev5a=1000000 ev5b=5000000");
  CHECK_INT(atoi(q1("SELECT profsql_debug()->>'live'")), live0);   /* 6 files > the cache's 4: none kept */
  snprintf(zSql, sizeof(zSql), "SELECT sum(dur) FROM profile_events('%s') WHERE file IN ('%s/r2.json', '%s/r4.json')", zDir, zDir, zDir);
  CHECK_STR(q1(zSql), "8000000");
  for(int k=0; k<6; k++){ snprintf(zPath, sizeof(zPath), "%s/r%d.json", zDir, k); unlink(zPath); }
  rmdir(zDir);
}

static void test_blob(void){
  sqlite3_stmt *st;
  const char *json = "[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1.5,\"dur\":2,\"pid\":3,\"tid\":4}]";
  sqlite3_prepare_v2(db, "SELECT ts, dur, pid, tid FROM profile_events(?)", -1, &st, 0);
  sqlite3_bind_blob(st, 1, json, (int)strlen(json), SQLITE_TRANSIENT);
  CHECK_INT(sqlite3_step(st), SQLITE_ROW);
  CHECK_INT(sqlite3_column_int64(st, 0), 1500);
  CHECK_INT(sqlite3_column_int64(st, 1), 2000);
  CHECK_INT(sqlite3_column_int64(st, 2), 3);
  CHECK_INT(sqlite3_column_int64(st, 3), 4);
  CHECK_INT(sqlite3_step(st), SQLITE_DONE);
  sqlite3_finalize(st);
  /* the same bytes again hit the cache */
  int loads = atoi(q1("SELECT profsql_debug()->>'loads'"));
  sqlite3_prepare_v2(db, "SELECT count(*) FROM profile_events(?)", -1, &st, 0);
  sqlite3_bind_blob(st, 1, json, (int)strlen(json), SQLITE_STATIC);
  CHECK_INT(sqlite3_step(st), SQLITE_ROW);
  sqlite3_finalize(st);
  CHECK_INT(atoi(q1("SELECT profsql_debug()->>'loads'")), loads);
  /* an empty BLOB, and bytes that are no capture */
  CHECK_STR(q1("SELECT count(*) FROM profile_events(x'')"), "ERROR: profile_events: the BLOB is empty (0 bytes)");
  CHECK_STR(q1("SELECT count(*) FROM profile_events(x'00010203')"),
            "ERROR: profile_events: the BLOB is not a supported capture (supported: chrome, timings, lms, xspace, newengine, tf_stats, kernel_stats, input_pipeline, overview_page, memory_profile, xprof_trace, xprof_datatable, cpuprofile, speedscope, pprof, perf_script, folded, ftrace)");
}

static void test_lookups(void){
  /* 1000 nested slices: each child under the previous; parent lookups are direct */
  char *z = malloc(100000); size_t k = 0;
  k += (size_t)sprintf(z+k, "[");
  for(int i=0; i<1000; i++){
    k += (size_t)sprintf(z+k, "%s{\"ph\":\"X\",\"name\":\"n%d\",\"ts\":%d,\"dur\":%d,\"pid\":1,\"tid\":1}", i ? "," : "", i, i, 10000-2*i);
  }
  k += (size_t)sprintf(z+k, "]");
  sqlite3_stmt *st;
  sqlite3_prepare_v2(db, "SELECT (SELECT max(depth) FROM profile_events(?1)),"
                         " (SELECT name FROM profile_events(?1) WHERE parent_id = 500),"
                         " (SELECT count(*) FROM profile_events(?1) c JOIN profile_events(?1) p ON p.id = c.parent_id),"
                         " (SELECT name FROM profile_events(?1) WHERE id = 999)", -1, &st, 0);
  sqlite3_bind_blob(st, 1, z, (int)k, SQLITE_STATIC);
  CHECK_INT(sqlite3_step(st), SQLITE_ROW);
  CHECK_INT(sqlite3_column_int(st, 0), 999);
  CHECK_STR((const char*)sqlite3_column_text(st, 1), "n501");
  CHECK_INT(sqlite3_column_int(st, 2), 999);
  CHECK_STR((const char*)sqlite3_column_text(st, 3), "n999");
  sqlite3_finalize(st);
  free(z);
}

static void test_api(void){
  CHECK_STR(q1("SELECT profsql_version()"), PROFSQL_VERSION);
  CHECK_STR(q1("SELECT count(*) FROM profile_events('tests/data/basic.json')"), "14");
  CHECK_STR(q1("SELECT value FROM profile_metadata('tests/data/basic.json') WHERE key='displayTimeUnit'"), "ns");
  CHECK_STR(q1("SELECT count(*) FROM profile_events"),
            "ERROR: profile_events: the source argument must be a file path (TEXT) or the capture's bytes (BLOB), got nothing");
  /* DIRECTONLY: a view in the schema cannot read files through the tables */
  CHECK_STR(q1("CREATE VIEW v AS SELECT * FROM profile_events('tests/data/basic.json')"), "NO ROW");
  CHECK_CONTAINS(q1("SELECT count(*) FROM v"), "unsafe use of virtual table");
}

/* sqlite3_interrupt() during a parse: a thread interrupts the connection while profile_events
** parses a generated 80 MB trace; the query ends with SQLITE_INTERRUPT and "interrupted while
** reading" (or SQLite's own "interrupted" if its loop notices first: timing decides, so only
** the outcome is asserted), and the connection answers the next query. The parsers' polling
** itself is tested deterministically in test_parser.c (test_interrupt). */
#include <pthread.h>
#include <unistd.h>
static void *interrupt_soon(void *p){ usleep(20000); sqlite3_interrupt((sqlite3*)p); return 0; }
static void test_interrupt(void){
  size_t nEv = 600000, cap = nEv*140 + 64, n = 0;
  char *z = malloc(cap);
  if( z==0 ) return;
  n += (size_t)snprintf(z+n, cap-n, "[");
  for(size_t i=0; i<nEv; i++){
    n += (size_t)snprintf(z+n, cap-n, "%s{\"ph\":\"X\",\"ts\":%zu,\"dur\":1,\"pid\":1,\"tid\":%zu,\"name\":\"work %zu\"}",
                          i ? "," : "", i*2, i%8, i%97);
  }
  n += (size_t)snprintf(z+n, cap-n, "]");
  sqlite3_stmt *st = 0;
  /* from another thread, mid-parse */
  pthread_t th;
  CHECK_INT(sqlite3_prepare_v2(db, "SELECT count(*) FROM profile_events(?1)", -1, &st, 0), SQLITE_OK);
  sqlite3_bind_blob(st, 1, z, (int)n, SQLITE_STATIC);
  pthread_create(&th, 0, interrupt_soon, db);
  int rc = sqlite3_step(st);
  pthread_join(th, 0);
  CHECK(rc==SQLITE_INTERRUPT || rc==SQLITE_ROW);   /* a very fast machine may finish first */
  if( rc==SQLITE_INTERRUPT ) printf("  interrupt: %s\n", sqlite3_errmsg(db));
  sqlite3_finalize(st);
  /* the connection is usable afterwards, and the capture loads in full */
  CHECK_STR(q1("SELECT count(*) FROM profile_events('tests/data/basic.json')"), "14");
  CHECK_INT(sqlite3_prepare_v2(db, "SELECT count(*) FROM profile_events(?1)", -1, &st, 0), SQLITE_OK);
  sqlite3_bind_blob(st, 1, z, (int)n, SQLITE_STATIC);
  CHECK_INT(sqlite3_step(st), SQLITE_ROW);
  CHECK_INT(sqlite3_column_int64(st, 0), (long long)nEv);
  sqlite3_finalize(st);
  free(z);
}

/* profile_diff under the sanitizers: a hand-made pair (values by hand), the recursion rule on a
** chain 100,000 slices deep (linear: each slice entered once; the same name counted once in the
** inclusive time), and the path keys of that chain refused by their text budget, with the side
** named. */
static void test_diff(void){
  const char *zBase = "[{\"ph\":\"X\",\"name\":\"a\",\"ts\":0,\"dur\":100,\"pid\":1,\"tid\":1},"
                      "{\"ph\":\"X\",\"name\":\"b\",\"ts\":10,\"dur\":30,\"pid\":1,\"tid\":1}]";
  const char *zTest = "[{\"ph\":\"X\",\"name\":\"a\",\"ts\":0,\"dur\":80,\"pid\":1,\"tid\":1},"
                      "{\"ph\":\"X\",\"name\":\"c\",\"ts\":5,\"dur\":5,\"pid\":1,\"tid\":1}]";
  sqlite3_stmt *st = 0;
  CHECK_INT(sqlite3_prepare_v2(db, "SELECT group_concat(key || ':' || base_count || '/' || test_count || ':' || base_ns || '/' || test_ns "
                               "|| ':' || base_self_ns || '/' || test_self_ns || ':' || delta_ns || ':' || change, ' ') "
                               "FROM profile_diff(?1, ?2)", -1, &st, 0), SQLITE_OK);
  sqlite3_bind_blob(st, 1, zBase, (int)strlen(zBase), SQLITE_STATIC);
  sqlite3_bind_blob(st, 2, zTest, (int)strlen(zTest), SQLITE_STATIC);
  CHECK_INT(sqlite3_step(st), SQLITE_ROW);
  /* a: 100 -> 80 us, self 70 -> 75; b deleted (30 us); c added (5 us); by |delta| descending */
  CHECK_STR((const char*)sqlite3_column_text(st, 0),
            "b:1/0:30000/0:30000/0:-30000:deleted a:1/1:100000/80000:70000/75000:-20000:unchanged c:0/1:0/5000:0/5000:5000:added");
  sqlite3_finalize(st);
  /* 100,000 slices named a, each inside the previous */
  size_t nEv = 100000, cap = nEv * 80 + 16, n = 0;
  char *z = malloc(cap);
  if( z==0 ) return;
  n += (size_t)snprintf(z+n, cap-n, "[");
  for(size_t i=0; i<nEv; i++){
    n += (size_t)snprintf(z+n, cap-n, "%s{\"ph\":\"X\",\"name\":\"a\",\"ts\":%zu,\"dur\":%zu,\"pid\":1,\"tid\":1}",
                          i ? "," : "", i, 2*(nEv - i));
  }
  n += (size_t)snprintf(z+n, cap-n, "]");
  CHECK_INT(sqlite3_prepare_v2(db, "SELECT base_count, base_ns, base_self_ns FROM profile_diff(?1, ?1)", -1, &st, 0), SQLITE_OK);
  sqlite3_bind_blob(st, 1, z, (int)n, SQLITE_STATIC);
  CHECK_INT(sqlite3_step(st), SQLITE_ROW);
  CHECK_INT(sqlite3_column_int64(st, 0), (long long)nEv);
  CHECK_INT(sqlite3_column_int64(st, 1), (long long)(2*nEv*1000));   /* the outermost only */
  CHECK_INT(sqlite3_column_int64(st, 2), (long long)(2*nEv*1000));   /* 2 us each: the self times add up to it */
  sqlite3_finalize(st);
  CHECK_INT(sqlite3_prepare_v2(db, "SELECT count(*) FROM profile_diff(?1, ?1, '{\"by\": \"path\"}')", -1, &st, 0), SQLITE_OK);
  sqlite3_bind_blob(st, 1, z, (int)n, SQLITE_STATIC);
  CHECK_INT(sqlite3_step(st), SQLITE_ERROR);
  CHECK_CONTAINS(sqlite3_errmsg(db), "profile_diff: baseline: 'BLOB': the 'path' keys need more than 256 MiB");
  sqlite3_finalize(st);
  free(z);
}

int main(void){
  CHECK_INT(sqlite3_open(":memory:", &db), SQLITE_OK);
  CHECK_INT(sqlite3_profsql_init(db, 0, 0), SQLITE_OK);
  test_api();
  test_blob();
  test_cache();
  test_stream();
  test_lookups();
  test_interrupt();
  test_diff();
  sqlite3_close(db);
  return tl_done();
}
