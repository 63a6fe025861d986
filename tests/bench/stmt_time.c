/*
** stmt_time.c — where the time of one SQL call goes, statement by statement (make bench's
** profile_report breakdown).
**
**   build/stmt_time MIN_SECONDS SQL
**
** Opens an in-memory database, loads ./libprofsql, runs SQL and prints, from the
** SQLITE_TRACE_PROFILE callback, every statement that ran at least MIN_SECONDS (the statements a
** function such as profile_report prepares inside the call included) as "<seconds>\t<the first
** 100 characters of its text>", in the order they finished; then, always, the whole of SQL as
** "<seconds>\tTOTAL" (wall clock around sqlite3_exec).
** Exits 1 with SQLite's message when the load or the SQL fails.
*/
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double g_min;

static int on_trace(unsigned type, void *ctx, void *p, void *x){
  (void)ctx;
  if( type!=SQLITE_TRACE_PROFILE ) return 0;
  double s = (double)*(sqlite3_int64*)x / 1e9;
  if( s < g_min ) return 0;
  const char *z = sqlite3_sql((sqlite3_stmt*)p);
  printf("%.3f\t", s);
  for(int k=0; z && z[k] && k<100; k++) putchar(z[k]=='\n' || z[k]=='\t' ? ' ' : z[k]);
  putchar('\n');
  return 0;
}

int main(int argc, char **argv){
  if( argc!=3 ){ fprintf(stderr, "usage: stmt_time MIN_SECONDS SQL\n"); return 2; }
  g_min = atof(argv[1]);
  sqlite3 *db = 0;
  char *zErr = 0;
  if( sqlite3_open(":memory:", &db)!=SQLITE_OK ) return 1;
  sqlite3_enable_load_extension(db, 1);
  if( sqlite3_load_extension(db, "./libprofsql", 0, &zErr)!=SQLITE_OK ){
    fprintf(stderr, "stmt_time: %s\n", zErr ? zErr : "cannot load ./libprofsql");
    return 1;
  }
  sqlite3_trace_v2(db, SQLITE_TRACE_PROFILE, on_trace, 0);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  if( sqlite3_exec(db, argv[2], 0, 0, &zErr)!=SQLITE_OK ){
    fprintf(stderr, "stmt_time: %s\n", zErr ? zErr : "failed");
    return 1;
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  printf("%.3f\tTOTAL\n", (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
  sqlite3_close(db);
  return 0;
}
