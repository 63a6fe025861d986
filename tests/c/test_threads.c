/*
** test_threads.c — several connections in several threads query the same captures at once,
** and two threads share one serialized connection; built with ThreadSanitizer (make test).
** Every thread must see the values the main thread computed first. Every parse that can be
** split in parts (a Chrome event array, an XSpace line's events) is, so that the parts' threads
** run under ThreadSanitizer too.
*/
#include "testlib.h"
#include <sqlite3.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "../../ext/source/mapguard.h"
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int sqlite3_profsql_init(sqlite3 *db, char **pzErrMsg, const void *pApi);

static const char *const azSql[] = {
  "SELECT count(*) || '/' || sum(dur) FROM profile_events('examples/browser_trace.json')",
  "SELECT count(*) || '/' || sum(dur) FROM profile_events('tests/data/basic.json')",
  "SELECT count(*) || '/' || round(sum(elapsed_ms), 6) FROM profile_jobs('tests/data/jobs_report.json')",
  "SELECT count(*) FROM profile_metadata('examples/gpu_host.xplane.pb')",
  "SELECT count(*) || '/' || sum(dur) || '/' || sum(ts % 1000003) FROM profile_events('examples/gpu_host.xplane.pb')",
  "SELECT count(*) || '/' || sum(time_ns) FROM profile_records('examples/server_timings.txt')",
  "SELECT count(*) FROM profile_events('tests/data/not_a_trace.txt')",     /* an error */
};
#define N_SQL (int)(sizeof(azSql)/sizeof(azSql[0]))
static char aWant[N_SQL][200];

/* (the connection's mutex is held across step and errmsg, so that a thread sharing a serialized
** connection reads its own error message, as SQLite documents) */
static void run(sqlite3 *db, int k, char *out, size_t nOut){
  sqlite3_stmt *st = 0;
  sqlite3_mutex *mx = sqlite3_db_mutex(db);
  if( mx ) sqlite3_mutex_enter(mx);
  if( sqlite3_prepare_v2(db, azSql[k], -1, &st, 0)!=SQLITE_OK ){
    snprintf(out, nOut, "ERR %s", sqlite3_errmsg(db));
    if( mx ) sqlite3_mutex_leave(mx);
    return;
  }
  int rc = sqlite3_step(st);
  if( rc==SQLITE_ROW ) snprintf(out, nOut, "%s", (const char*)sqlite3_column_text(st, 0));
  else snprintf(out, nOut, "ERR %s", sqlite3_errmsg(db));
  sqlite3_finalize(st);
  if( mx ) sqlite3_mutex_leave(mx);
}

typedef struct Arg { sqlite3 *db; int nBad; } Arg;
static void *worker(void *p){
  Arg *a = p;
  sqlite3 *db = a->db;
  int bOwn = db==0;
  if( bOwn ){ sqlite3_open(":memory:", &db); sqlite3_profsql_init(db, 0, 0); }
  for(int it=0; it<15; it++){
    for(int k=0; k<N_SQL; k++){
      char got[200];
      run(db, (k + it) % N_SQL, got, sizeof(got));
      if( strcmp(got, aWant[(k + it) % N_SQL])!=0 ){ a->nBad++; printf("  mismatch: %s != %s\n", got, aWant[(k + it) % N_SQL]); }
    }
  }
  if( bOwn ) sqlite3_close(db);
  return 0;
}

extern size_t ps_chrome_parallel_min, ps_xspace_parallel_min, ps_xspace_batch, ps_parse_threads;

/* The SIGBUS guard's slots under change (issue 32): one slot is registered and removed again
** and again (a small mapping below the victim, then a larger one above it) while another slot's
** mapping faults; a handler that read one registration's base with another's length (the slot's
** fields were read without the lock their writer holds) would map zero pages over the sentinel
** page after the victim. ThreadSanitizer reported that race on the old ext/source/mapguard.c; the
** sentinel must never change, and every fault must be healed. */
static volatile int mg_stop; static char *mg_r; static size_t mg_pg; static long mg_churns;
static void *mg_churn(void *p){
  (void)p;
  while( !__atomic_load_n(&mg_stop, __ATOMIC_RELAXED) ){
    ps_mapguard_remove(ps_mapguard_add(mg_r, 2*mg_pg));
    ps_mapguard_remove(ps_mapguard_add(mg_r + 10*mg_pg, 6*mg_pg));
    mg_churns++;
  }
  return 0;
}
static void mapguard_race(void){
  mg_pg = (size_t)sysconf(_SC_PAGESIZE);
  const char *t = getenv("TMPDIR"); char zDir[512], zFile[600];
  snprintf(zDir, sizeof(zDir), "%s/profsql-mg-XXXXXX", t && *t ? t : "/tmp");
  if( mkdtemp(zDir)==0 ){ CHECK(0); return; }
  snprintf(zFile, sizeof(zFile), "%s/victim", zDir);
  int fd = open(zFile, O_RDWR|O_CREAT|O_TRUNC, 0600);
  CHECK(fd>=0);
  mg_r = mmap(0, 16*mg_pg, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0);
  char *v = mg_r + 4*mg_pg, *sentinel = mg_r + 6*mg_pg;
  memset(sentinel, 0xA5, mg_pg);
  uint64_t *hold = ps_mapguard_add(mg_r, 2*mg_pg);          /* slot 0, freed for the churn */
  uint64_t *lost = ps_mapguard_add(v, 2*mg_pg);             /* slot 1: the victim */
  ps_mapguard_remove(hold);
  pthread_t th; pthread_create(&th, 0, mg_churn, 0);
  int nFault = 0, nClob = 0, nRound = 20000;
  for(int i=0; i<nRound; i++){
    if( ftruncate(fd, 0) ) break;
    mmap(v, 2*mg_pg, PROT_READ, MAP_SHARED|MAP_FIXED, fd, 0);
    __atomic_store_n(lost, 0, __ATOMIC_RELAXED);
    nFault += *(volatile char*)v==0 && ps_mapguard_lost(lost)==1;
    if( *(volatile unsigned char*)sentinel!=0xA5 ){
      nClob++;
      mmap(sentinel, mg_pg, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS|MAP_FIXED, -1, 0);
      memset(sentinel, 0xA5, mg_pg);
    }
  }
  __atomic_store_n(&mg_stop, 1, __ATOMIC_RELAXED);
  pthread_join(th, 0);
  ps_mapguard_remove(lost);
  CHECK_INT(nFault, nRound);
  CHECK_INT(nClob, 0);
  printf("  mapguard: %d faults healed while another slot changed %ld times\n", nFault, mg_churns);
  close(fd); unlink(zFile); rmdir(zDir); munmap(mg_r, 16*mg_pg);
}

int main(void){
  ps_chrome_parallel_min = 0; ps_xspace_parallel_min = 0; ps_xspace_batch = 16; ps_parse_threads = 3;
  sqlite3 *db;
  sqlite3_open(":memory:", &db);
  sqlite3_profsql_init(db, 0, 0);
  for(int k=0; k<N_SQL; k++) run(db, k, aWant[k], sizeof(aWant[k]));
  sqlite3_close(db);
  CHECK(strncmp(aWant[0], "ERR", 3)!=0 && strncmp(aWant[4], "ERR", 3)!=0 && strncmp(aWant[6], "ERR", 3)==0);
  /* four connections, one per thread */
  pthread_t th[6]; Arg a[6]; memset(a, 0, sizeof(a));
  for(int i=0; i<4; i++) pthread_create(&th[i], 0, worker, &a[i]);
  /* and one serialized connection shared by two threads */
  sqlite3 *shared;
  sqlite3_open_v2(":memory:", &shared, SQLITE_OPEN_READWRITE|SQLITE_OPEN_CREATE|SQLITE_OPEN_FULLMUTEX, 0);
  sqlite3_profsql_init(shared, 0, 0);
  for(int i=4; i<6; i++){ a[i].db = shared; pthread_create(&th[i], 0, worker, &a[i]); }
  int nBad = 0;
  for(int i=0; i<6; i++){ pthread_join(th[i], 0); nBad += a[i].nBad; }
  sqlite3_close(shared);
  CHECK_INT(nBad, 0);
  printf("  6 threads x 15 rounds x %d queries, %d mismatches\n", N_SQL, nBad);
  mapguard_race();
  return tl_done();
}
