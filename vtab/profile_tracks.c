/*
** profile_tracks.c — the track model as tables: profile_tracks, profile_threads and
** profile_processes (ext/model/tracks.h). One row per track, thread or process of a capture.
**
**   SELECT t.kind, t.name, count(*) FROM profile_events('trace.json') e
**     JOIN profile_tracks('trace.json') t ON t.id = e.track GROUP BY t.id;
**
** Arguments (HIDDEN columns) as profile_events: source (path TEXT or BLOB) and format.
** Ids are per capture: in a directory or glob source each file has its own (join on file too).
** Times are integer ns; a span is NULL when no row on it has a time.
**
** profile_tracks
**   id          the track (profile_events.track)
**   kind        'thread', 'process_async', 'global_async', 'thread_async', 'process_counter',
**               'thread_counter', 'cpu_counter', 'global_counter', 'cpu', 'process_instant',
**               'global_instant'
**   name        thread tracks: the thread's name; async and counter tracks: the name of their first
**               row; CPU tracks: 'cpu N'; instant tracks NULL
**   utid, upid  the thread (thread-scoped kinds) and the process (process- and thread-scoped
**               kinds); NULL for global and CPU kinds
**   cpu         the CPU of a 'cpu' / 'cpu_counter' track, else NULL
**   first_row   id of the first row on it (file order); NULL when none
**   rows        rows on it
**   start_ts, end_ts   first start and last end of its rows (ns)
**   description what the track is, as profile_metadata's 'track' rows say it ("async cat=x id=0x1")
**   file
** profile_threads
**   utid, tid, pid, name, upid
**   start_ts, end_ts   span of the rows that carry its (pid, tid), on any track (ns); metadata events
**                      ('M', which have no time) left out
**   is_main_thread     1 when tid equals pid
**   is_idle            1 for the idle task: tid 0 in pid 0 (or no pid), or named <idle> / swapper*
**   rows               rows that carry its (pid, tid), on any track (a Chrome process-level 'M'
**                      event, process_name and the like, not counted)
**   track_id           its own track
**   file
** profile_processes
**   upid, pid, name
**   parent_upid        NULL (no supported format records a parent process)
**   main_utid          utid of its thread whose tid equals the pid, NULL when it has none
**   threads            number of its threads
**   start_ts, end_ts   span of the rows of its threads and tracks, metadata events left out (ns)
**   file
** Errors: those of loading the capture (vtab/loader.c). SQLITE_VTAB_DIRECTONLY: it reads files.
*/
#include "ps_vtab.h"
SQLITE_EXTENSION_INIT3

#include "../ext/model/tracks.h"
#include <string.h>

enum { TB_TRACKS, TB_THREADS, TB_PROCESSES };

static const struct {
  const char *zName;
  const char *zSchema;
  int nCol;                    /* visible columns; then file, source, format */
} aTb[3] = {
  { "profile_tracks", "CREATE TABLE x(id INTEGER, kind TEXT, name TEXT, utid INTEGER, upid INTEGER, "
    "cpu INTEGER, first_row INTEGER, rows INTEGER, start_ts INTEGER, end_ts INTEGER, description TEXT, "
    "file TEXT, source HIDDEN, format HIDDEN)", 11 },
  { "profile_threads", "CREATE TABLE x(utid INTEGER, tid, pid, name TEXT, upid INTEGER, start_ts INTEGER, "
    "end_ts INTEGER, is_main_thread INTEGER, is_idle INTEGER, rows INTEGER, track_id INTEGER, "
    "file TEXT, source HIDDEN, format HIDDEN)", 11 },
  { "profile_processes", "CREATE TABLE x(upid INTEGER, pid, name TEXT, parent_upid INTEGER, "
    "main_utid INTEGER, threads INTEGER, start_ts INTEGER, end_ts INTEGER, "
    "file TEXT, source HIDDEN, format HIDDEN)", 8 },
};

typedef struct TbVtab {
  PsVtab base;                /* (first) */
  int iTable;                 /* TB_* */
} TbVtab;

typedef struct TbCursor {
  sqlite3_vtab_cursor base;
  PsSet set;
  int iPart;
  int64_t iRow;
  PsCapture *cap;
  const PsModel *m;
} TbCursor;

static int64_t tb_rows(const TbCursor *c){
  int iTable = ((TbVtab*)c->base.pVtab)->iTable;
  if( iTable==TB_TRACKS ) return (int64_t)c->cap->nTrack;
  if( iTable==TB_THREADS ) return (int64_t)c->cap->nThread;
  return (int64_t)c->m->nProc;
}

/* Moves past exhausted parts, loading each as the scan reaches it; builds its model. */
static int tb_settle(TbCursor *c){
  while( c->iPart < c->set.nPart ){
    int rc = ps_set_use(c->base.pVtab, &c->set, &c->iPart, &c->cap);
    if( rc ) return rc;
    if( c->cap==0 ) return SQLITE_OK;
    c->m = ps_capture_model(c->cap);
    if( c->m==0 ) return SQLITE_NOMEM;
    if( c->iRow < tb_rows(c) ) return SQLITE_OK;
    c->iPart++; c->iRow = 0;
  }
  return SQLITE_OK;
}

static int tb_connect(sqlite3 *db, void *pAux, int iTable, sqlite3_vtab **ppVtab){
  int rc = ps_vt_connect(db, pAux, aTb[iTable].zSchema, ppVtab);
  if( rc!=SQLITE_OK ) return rc;
  /* ps_vt_connect allocates a PsVtab: grow it into a TbVtab */
  TbVtab *p = sqlite3_realloc(*ppVtab, sizeof(TbVtab));
  if( p==0 ){ ps_vt_disconnect(*ppVtab); *ppVtab = 0; return SQLITE_NOMEM; }
  p->iTable = iTable;
  *ppVtab = &p->base.base;
  return SQLITE_OK;
}
#define TB_CONNECT(X, I) \
  static int X(sqlite3 *db, void *pAux, int argc, const char *const *argv, sqlite3_vtab **ppVtab, char **pzErr){ \
    (void)argc; (void)argv; (void)pzErr; return tb_connect(db, pAux, I, ppVtab); }
TB_CONNECT(tbConnectTracks, TB_TRACKS)
TB_CONNECT(tbConnectThreads, TB_THREADS)
TB_CONNECT(tbConnectProcesses, TB_PROCESSES)

static int tbOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCur){
  (void)pVtab;
  return ps_vt_open(sizeof(TbCursor), ppCur);
}

static int tbClose(sqlite3_vtab_cursor *cur){
  TbCursor *c = (TbCursor*)cur;
  ps_set_clear(&c->set);
  sqlite3_free(c);
  return SQLITE_OK;
}

static int tbBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo){
  int n = aTb[((TbVtab*)pVtab)->iTable].nCol;
  return ps_vt_best_source(pInfo, n+1, n+2, n);
}

static int tbFilter(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr, int argc, sqlite3_value **argv){
  TbCursor *c = (TbCursor*)cur;
  (void)idxStr; (void)argc;
  int k = 0;
  sqlite3_value *pSource = (idxNum & 1) ? argv[k++] : 0;
  sqlite3_value *pFormat = (idxNum & 2) ? argv[k++] : 0;
  PsFileFilter files = ps_vt_file_filter(idxNum, PS_IDX_FILE, PS_IDX_FILE_IN, argv, k);
  int rc = ps_vt_filter_set(cur->pVtab, aTb[((TbVtab*)cur->pVtab)->iTable].zName, pSource, pFormat,
                            &files, 1, &c->set);
  if( rc!=SQLITE_OK ) return rc;
  c->iPart = 0; c->iRow = 0; c->cap = 0; c->m = 0;
  return tb_settle(c);
}

static int tbNext(sqlite3_vtab_cursor *cur){
  TbCursor *c = (TbCursor*)cur;
  c->iRow++;
  return tb_settle(c);
}

static int tbEof(sqlite3_vtab_cursor *cur){
  TbCursor *c = (TbCursor*)cur;
  return c->iPart >= c->set.nPart || c->cap==0;
}

static void result_id(sqlite3_context *ctx, uint32_t v){
  if( v==PS_NONE32 ) sqlite3_result_null(ctx); else sqlite3_result_int64(ctx, v);
}
static void result_ns(sqlite3_context *ctx, int64_t v){
  if( v==PS_NULL64 ) sqlite3_result_null(ctx); else sqlite3_result_int64(ctx, v);
}

static int tbColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int iCol){
  TbCursor *c = (TbCursor*)cur;
  int iTable = ((TbVtab*)cur->pVtab)->iTable;
  const PsCapture *cap = c->cap;
  const PsModel *m = c->m;
  size_t r = (size_t)c->iRow;
  if( iCol==aTb[iTable].nCol ){ ps_vt_result_file(ctx, &c->set, c->iPart); return SQLITE_OK; }
  sqlite3_destructor_type xText = ps_set_text(&c->set);
  if( iTable==TB_TRACKS ){
    const PsTrack *tr = &cap->aTrack[r];
    const PsTrackInfo *ti = &m->aTrack[r];
    switch( iCol ){
      case 0: sqlite3_result_int64(ctx, (int64_t)r); break;
      case 1: sqlite3_result_text(ctx, ps_track_kind_names[ti->kind], -1, SQLITE_STATIC); break;
      case 2:
        if( ti->kind==PS_TK_THREAD ){
          if( tr->thread < cap->nThread ) ps_vt_result_pool(ctx, cap, cap->aThread[tr->thread].threadName, &c->set);
        }else if( ti->kind==PS_TK_CPU ){
          ps_vt_result_pool(ctx, cap, tr->name, &c->set);
        }else if( ti->kind!=PS_TK_PROCESS_INSTANT && ti->kind!=PS_TK_GLOBAL_INSTANT && ti->firstRow!=PS_NONE32 ){
          ps_vt_result_pool(ctx, cap, cap->ev.aName[ti->firstRow], &c->set);
        }
        break;
      case 3: result_id(ctx, ti->utid); break;
      case 4: result_id(ctx, ti->upid); break;
      case 5: if( tr->cpu>=0 ) sqlite3_result_int(ctx, tr->cpu); break;
      case 6: result_id(ctx, ti->firstRow); break;
      case 7: sqlite3_result_int64(ctx, ti->nRows); break;
      case 8: result_ns(ctx, ti->startTs); break;
      case 9: result_ns(ctx, ti->endTs); break;
      case 10: {
        char zBuf[PS_META_TRACK_BUF];
        PsOut o; memset(&o, 0, sizeof(o));
        o.type = PS_META_TEXT;
        o.z = ps_track_text(cap, r, zBuf, sizeof(zBuf)); o.n = strlen(o.z);
        ps_vt_result(ctx, &o);
        break;
      }
      default: break;
    }
  }else if( iTable==TB_THREADS ){
    const PsThread *th = &cap->aThread[r];
    const PsThreadInfo *ti = &m->aThread[r];
    switch( iCol ){
      case 0: sqlite3_result_int64(ctx, (int64_t)r); break;
      case 1: ps_vt_result_value(ctx, cap, &th->tid, xText); break;
      case 2: ps_vt_result_value(ctx, cap, &th->pid, xText); break;
      case 3: ps_vt_result_pool(ctx, cap, th->threadName, &c->set); break;
      case 4: result_id(ctx, ti->upid); break;
      case 5: result_ns(ctx, ti->startTs); break;
      case 6: result_ns(ctx, ti->endTs); break;
      case 7: sqlite3_result_int(ctx, ti->bMain); break;
      case 8: sqlite3_result_int(ctx, ti->bIdle); break;
      case 9: sqlite3_result_int64(ctx, ti->nRows); break;
      case 10: sqlite3_result_int64(ctx, th->track); break;
      default: break;
    }
  }else{
    const PsProcess *p = &m->aProc[r];
    switch( iCol ){
      case 0: sqlite3_result_int64(ctx, (int64_t)r); break;
      case 1: ps_vt_result_value(ctx, cap, &p->pid, xText); break;
      case 2: ps_vt_result_pool(ctx, cap, p->name, &c->set); break;
      case 3: break;
      case 4: result_id(ctx, p->mainThread); break;
      case 5: sqlite3_result_int64(ctx, p->nThreads); break;
      case 6: result_ns(ctx, p->startTs); break;
      case 7: result_ns(ctx, p->endTs); break;
      default: break;
    }
  }
  return SQLITE_OK;
}

static int tbRowid(sqlite3_vtab_cursor *cur, sqlite_int64 *pRowid){
  TbCursor *c = (TbCursor*)cur;
  *pRowid = ((sqlite_int64)c->iPart << 40) | c->iRow;
  return SQLITE_OK;
}

PS_VT_CHECKED(tb, TbCursor, aTb[((TbVtab*)cur->pVtab)->iTable].zName, c->iPart)

#define TB_MODULE(X, CONNECT) \
  static sqlite3_module X = { 0, 0, CONNECT, tbBestIndex, ps_vt_disconnect, 0, tbOpen, tbClose, tbFilter, \
    tbNextChecked, tbEof, tbColumnChecked, tbRowid, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
TB_MODULE(tbTracksModule, tbConnectTracks)
TB_MODULE(tbThreadsModule, tbConnectThreads)
TB_MODULE(tbProcessesModule, tbConnectProcesses)

int ps_tracks_register(sqlite3 *db, PsConn *pConn){
  sqlite3_module *aMod[3] = { &tbTracksModule, &tbThreadsModule, &tbProcessesModule };
  int rc = SQLITE_OK;
  for(int k=0; k<3 && rc==SQLITE_OK; k++){
    pConn->nRef++;
    rc = sqlite3_create_module_v2(db, aTb[k].zName, aMod[k], pConn, ps_conn_release);
  }
  return rc;
}
