/*
** fuzz_tree.c — libFuzzer target for profile_open and the tree views of sql/event_tree.sql and
** sql/record_tree.sql over a fuzzed BLOB:
**
**   SELECT profile_open(?blob)
**   SELECT * FROM event_tree LIMIT 500   (and event_ancestors, event_descendants, event_folded,
**                                         record_tree, record_ancestors, record_descendants,
**                                         record_folded; a view the capture did not get fails to
**                                         prepare, which is fine)
**
** Bounded so that a deep, wide or cyclic input cannot time the fuzzer out: every read has a
** LIMIT, and a progress handler stops a statement after FUZZ_TREE_STEPS virtual-machine steps
** and every statement of an input once FUZZ_TREE_MS milliseconds have passed since it began
** (steps alone do not bound the time: a walk that goes round a cycle makes longer and longer
** path strings, each step copying more). The views that group, event_folded and record_folded,
** walk the whole tree before their first row. A statement stopped that way is an SQL error like
** any other: this target looks for crashes, leaks and UB, not for slow SQL. Each input gets a
** fresh connection, so a crash replays from its input alone; a gzip BLOB inflates to at most
** 16 MiB (max_inflated_bytes, as fuzz_gzip).
*/
#include <sqlite3.h>
#include <stddef.h>
#include <time.h>

int sqlite3_profsql_init(sqlite3 *db, char **pzErrMsg, const void *pApi);

#define FUZZ_TREE_STEPS 4000000      /* VM steps per statement; counted in units of 1000 */
#define FUZZ_TREE_MS    1000         /* wall-clock milliseconds for all the statements of an input */

static const char *const azSql[] = {
  "SELECT * FROM event_tree LIMIT 500",
  "SELECT * FROM event_ancestors LIMIT 500",
  "SELECT * FROM event_descendants LIMIT 500",
  "SELECT * FROM event_folded LIMIT 500",
  "SELECT * FROM record_tree LIMIT 500",
  "SELECT * FROM record_ancestors LIMIT 500",
  "SELECT * FROM record_descendants LIMIT 500",
  "SELECT * FROM record_folded LIMIT 500",
};

typedef struct FuzzTreeBudget {
  int nCall;                /* progress calls (1000 steps each) of the running statement */
  long long msEnd;          /* CLOCK_MONOTONIC milliseconds at which the input's time is up */
} FuzzTreeBudget;

static long long fuzz_tree_ms(void){
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec*1000 + t.tv_nsec/1000000;
}

/* The progress handler: non-zero (stop) once the statement has used its steps or the input
** its time. */
static int fuzz_tree_progress(void *p){
  FuzzTreeBudget *b = (FuzzTreeBudget*)p;
  return ++b->nCall > FUZZ_TREE_STEPS/1000 || fuzz_tree_ms() > b->msEnd;
}

/* Runs zSql, ?1 bound to the input; rows are read (every column) and dropped, errors ignored. */
static void fuzz_tree_run(sqlite3 *db, const char *zSql, const unsigned char *data, size_t size,
                          FuzzTreeBudget *b){
  sqlite3_stmt *st = 0;
  b->nCall = 0;
  if( sqlite3_prepare_v2(db, zSql, -1, &st, 0)!=SQLITE_OK ) return;
  if( sqlite3_bind_parameter_count(st)>0 ) sqlite3_bind_blob(st, 1, data, (int)size, SQLITE_STATIC);
  while( sqlite3_step(st)==SQLITE_ROW ){
    for(int c=0; c<sqlite3_column_count(st); c++) (void)sqlite3_column_text(st, c);
  }
  sqlite3_finalize(st);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size){
  sqlite3 *db = 0;
  FuzzTreeBudget b = { 0, fuzz_tree_ms() + FUZZ_TREE_MS };
  if( sqlite3_open(":memory:", &db)!=SQLITE_OK ){ sqlite3_close(db); return 0; }
  sqlite3_profsql_init(db, 0, 0);
  sqlite3_exec(db, "SELECT profsql_config('max_inflated_bytes', 16777216)", 0, 0, 0);   /* as fuzz_gzip */
  sqlite3_progress_handler(db, 1000, fuzz_tree_progress, &b);
  fuzz_tree_run(db, "SELECT profile_open(?1)", data, size, &b);
  for(size_t i=0; i<sizeof(azSql)/sizeof(azSql[0]); i++) fuzz_tree_run(db, azSql[i], 0, 0, &b);
  sqlite3_close(db);
  return 0;
}
