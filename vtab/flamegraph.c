/*
** flamegraph.c — profile_flamegraph(source, path [, options_json]): writes a self-contained SVG
** flame graph (ext/flame.c) of a capture with a parent tree — Chrome slices, XSpace XEvents, lms
** markers, timings records — to path (temporary file + rename). Options: {"group": "track"
** (default: one first-level frame per track: each thread, each async track; timings: category)
** | "thread" (async slices under their thread) | "none" (merged), "title": "..."}. A capture
** with stack samples (pprof, perf script, V8 CPU profiles, Chrome 'samples', ...) is drawn from
** its samples' stacks. Returns {"path":..., "bytes":N, "total_ms":X}, or for samples without
** durations {"path":..., "bytes":N, "total_samples":N} ("total_weight" when samples carry
** weights). SQLITE_DIRECTONLY.
** Errors: those of loading the capture, "has no parent tree" (a newengine report), and
** "cannot write '<path>': ...".
*/
#include "ps_vtab.h"
#include "../ext/flame.h"
#include "../ext/writer.h"
SQLITE_EXTENSION_INIT3

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void flameFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  PsConn *pConn = sqlite3_user_data(ctx);
  sqlite3 *db = sqlite3_context_db_handle(ctx);
  const char *zPath = (const char*)sqlite3_value_text(argv[1]);
  if( zPath==0 ){ sqlite3_result_error(ctx, "profile_flamegraph: expected (source, path [, options_json])", -1); return; }
  int eGroup = PS_FLAME_TRACK;
  char zTitle[300];
  snprintf(zTitle, sizeof(zTitle), "%s", sqlite3_value_type(argv[0])==SQLITE_TEXT ? (const char*)sqlite3_value_text(argv[0]) : "BLOB");
  if( argc>2 && sqlite3_value_type(argv[2])!=SQLITE_NULL ){
    sqlite3_stmt *st = 0;
    int ok = sqlite3_prepare_v2(db, "SELECT json_extract(?1,'$.group'), json_extract(?1,'$.title') WHERE json_valid(?1) AND json_type(?1)='object'", -1, &st, 0)==SQLITE_OK;
    if( ok ){ sqlite3_bind_value(st, 1, argv[2]); ok = sqlite3_step(st)==SQLITE_ROW; }
    if( ok ){
      const char *g = (const char*)sqlite3_column_text(st, 0);
      const char *t = (const char*)sqlite3_column_text(st, 1);
      if( g==0 || strcmp(g, "track")==0 ) eGroup = PS_FLAME_TRACK;
      else if( strcmp(g, "thread")==0 ) eGroup = PS_FLAME_THREAD;
      else if( strcmp(g, "none")==0 ) eGroup = PS_FLAME_MERGED;
      else ok = 0;
      if( t ) snprintf(zTitle, sizeof(zTitle), "%s", t);
    }
    sqlite3_finalize(st);
    if( !ok ){ sqlite3_result_error(ctx, "profile_flamegraph: options_json must be an object like {\"group\": \"track\"|\"thread\"|\"none\", \"title\": \"...\"}", -1); return; }
  }
  char *zErr = 0;
  int rcLoad;
  PsCacheEntry *e = ps_vt_acquire(pConn, "profile_flamegraph", argv[0], 0, &zErr, &rcLoad);
  if( e==0 ){ ps_result_load_error(ctx, zErr, rcLoad); return; }
  const PsCapture *cap = e->cap;
  if( cap->ev.n==0 && cap->nRec==0 ){
    ps_vt_release(e);
    sqlite3_result_error(ctx, "profile_flamegraph: the capture has no parent tree (no slices or timer records)", -1);
    return;
  }
  PsBuf b; memset(&b, 0, sizeof(b));
  PsErr err; memset(&err, 0, sizeof(err));
  PsFlameInfo info; memset(&info, 0, sizeof(info));
  int rc = ps_flame_svg(cap, eGroup, zTitle, &b, &info, &err);
  if( rc==PS_OK && ps_source_lost_error(&cap->src, &err) ){
    /* the mapped file was cut short while the frames were named: no picture of zeros */
    ps_buf_free(&b);
    char *m = sqlite3_mprintf("profile_flamegraph: %s: %s", e->zPath ? e->zPath : "BLOB", err.msg);
    ps_vt_release(e);
    sqlite3_result_error(ctx, m ? m : "profile_flamegraph: out of memory", -1); sqlite3_free(m); return;
  }
  ps_vt_release(e);
  if( rc ){ ps_buf_free(&b); sqlite3_result_error_nomem(ctx); return; }
  if( ps_write_file(zPath, b.z, b.n, &err) ){
    ps_buf_free(&b);
    char *m = sqlite3_mprintf("profile_flamegraph: %s", err.msg);
    sqlite3_result_error(ctx, m, -1); sqlite3_free(m); return;
  }
  char *z = info.bTime
    ? sqlite3_mprintf("{\"path\":\"%w\",\"bytes\":%lld,\"total_ms\":%.3f}", zPath, (long long)b.n, info.total/1e6)
    : sqlite3_mprintf("{\"path\":\"%w\",\"bytes\":%lld,\"total_%s\":%lld}", zPath, (long long)b.n,
                      info.bWeighted ? "weight" : "samples", (long long)info.total);
  ps_buf_free(&b);
  if( z==0 ){ sqlite3_result_error_nomem(ctx); return; }
  sqlite3_result_text(ctx, z, -1, sqlite3_free);
}

int ps_flamegraph_register(sqlite3 *db, PsConn *pConn){
  return ps_register_conn_function(db, pConn, "profile_flamegraph", 2, 3, flameFunc);
}
