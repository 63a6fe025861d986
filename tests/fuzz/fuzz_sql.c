/*
** fuzz_sql.c — libFuzzer target that drives the whole extension through SQL on a fuzzed BLOB:
** detection, loading, the cache, the tables (the track model's too), lookups, the name-ordered scan,
** the kind constraint, the Perfetto schema's functions, the comparisons (profile_diff,
** profile_sandwich), and the training rows (profile_training_rows: its launch join, steps, classes
** argument read from the fuzzed bytes too, by-name grouping) with profile_span_union.
*/
#include <sqlite3.h>
#include <stddef.h>

int sqlite3_profsql_init(sqlite3 *db, char **pzErrMsg, const void *pApi);

static const char *const azSql[] = {
  "SELECT count(*), sum(dur), max(depth) FROM profile_events(?1)",
  "SELECT name, count(*), sum(dur) FROM profile_events(?1) GROUP BY name",
  "SELECT args, tts, tdur, async_id, scope, flow_id, flow_in, flow_out, slice_id FROM profile_events(?1)",
  "SELECT count(*) FROM profile_events(?1) c JOIN profile_events(?1) p ON p.id = c.parent_id",
  "SELECT scope, key, value, byte_offset FROM profile_metadata(?1)",
  "SELECT * FROM profile_jobs(?1)",
  "SELECT * FROM profile_records(?1)",
  "SELECT * FROM profile_xplanes(?1)",
  "SELECT * FROM profile_tracks(?1)",
  "SELECT * FROM profile_threads(?1)",
  "SELECT * FROM profile_processes(?1)",
  "SELECT kind, count(*), sum(dur) FROM profile_events(?1) WHERE kind IN ('slice', 'instant', 'sched') GROUP BY kind",
  "SELECT profsql_arg_key(CAST(?1 AS TEXT), 0), profsql_arg_key(CAST(?1 AS TEXT), 1), profsql_number(CAST(?1 AS TEXT))",
  "SELECT * FROM profile_diff(?1, ?1)",
  "SELECT * FROM profile_diff(?1, ?1, '{\"by\": \"path\", \"normalize\": true}')",
  "SELECT * FROM profile_diff(?1, ?1, '{\"by\": \"stack\"}')",
  "SELECT * FROM profile_sandwich(?1, (SELECT name FROM profile_events(?1) WHERE name IS NOT NULL LIMIT 1))",
  "SELECT * FROM profile_training_rows(?1, NULL, '[[\"%a%\", \"x\"], [\"_\", \"y\"]]')",
  "SELECT * FROM profile_training_rows(?1, NULL, CAST(?1 AS TEXT))",
  "SELECT file, rank, count(*), profile_span_union(ts, dur) FROM profile_training_rows(?1) WHERE kind = 'kernel' GROUP BY file, rank",
  "SELECT file, name, count(*), sum(dur) FROM profile_training_rows(?1) GROUP BY file, name",
  "SELECT count(*), max(step) FROM profile_training_rows(?1) WHERE kind = 'step'",
};

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size){
  static sqlite3 *db;
  if( db==0 ){
    sqlite3_open(":memory:", &db);
    sqlite3_profsql_init(db, 0, 0);
  }
  for(size_t i=0; i<sizeof(azSql)/sizeof(azSql[0]); i++){
    sqlite3_stmt *st = 0;
    if( sqlite3_prepare_v2(db, azSql[i], -1, &st, 0)!=SQLITE_OK ) continue;
    sqlite3_bind_blob(st, 1, data, (int)size, SQLITE_STATIC);
    while( sqlite3_step(st)==SQLITE_ROW ){}
    sqlite3_finalize(st);
  }
  return 0;
}
