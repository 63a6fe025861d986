/*
** profile_xplanes.c — the profile_xplanes table-valued function: the planes and lines of an
** XSpace capture (TensorFlow / JAX / PyTorch-XLA profiler, *.xplane.pb).
**
**   SELECT plane_name, line_name, event_count FROM profile_xplanes('host.xplane.pb');
**
** Arguments (HIDDEN): source (path TEXT or BLOB), format (optional: 'xspace').
** One row per XLine; a plane without lines gives one row with NULL line columns.
** Columns
**   plane_index        the plane's position in the file (0-based): planes are keyed by it, since
**                      real files repeat plane ids
**   plane_id, plane_name
**   line_id, line_display_id, line_name, line_display_name
**   timestamp_ns       XLine.timestamp_ns (epoch ns)
**   duration_ps        XLine.duration_ps (ps)
**   event_count        XEvents on the line
**   host               the file name without ".xplane.pb" (as TensorBoard names hosts); for a
**                      BLOB, XSpace.hostnames[0]
**   file               the capture file (a directory or glob source reads several)
** Events are in profile_events (pid = plane_index, tid = line_id); plane stats, hostnames,
** errors and warnings in profile_metadata. Errors: as profile_events. SQLITE_VTAB_DIRECTONLY.
*/
#include "ps_vtab.h"
SQLITE_EXTENSION_INIT3

#include <string.h>

#define XP_SCHEMA "CREATE TABLE x(plane_index INTEGER, plane_id INTEGER, plane_name TEXT, " \
  "line_id INTEGER, line_display_id INTEGER, line_name TEXT, line_display_name TEXT, " \
  "timestamp_ns INTEGER, duration_ps INTEGER, event_count INTEGER, host TEXT, file TEXT, " \
  "source HIDDEN, format HIDDEN)"
#define XP_PLANE_INDEX   0
#define XP_PLANE_ID      1
#define XP_PLANE_NAME    2
#define XP_LINE_ID       3
#define XP_LINE_DISPLAY  4
#define XP_LINE_NAME     5
#define XP_LINE_DNAME    6
#define XP_TIMESTAMP     7
#define XP_DURATION      8
#define XP_EVENT_COUNT   9
#define XP_HOST         10
#define XP_FILE         11
#define XP_SOURCE       12
#define XP_FORMAT       13

typedef struct XpCursor {
  sqlite3_vtab_cursor base;
  PsSet set;                  /* the captures (references held while open) */
  int64_t *aRow;              /* per row: line index, or -(plane index + 1) for a plane without lines */
  int *aPart;                 /* per row: the part (file) */
  size_t nRow, iRow;
} XpCursor;

static int xpConnect(sqlite3 *db, void *pAux, int argc, const char *const *argv,
                     sqlite3_vtab **ppVtab, char **pzErr){
  (void)argc; (void)argv; (void)pzErr;
  return ps_vt_connect(db, pAux, XP_SCHEMA, ppVtab);
}

static int xpOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCur){
  (void)pVtab;
  return ps_vt_open(sizeof(XpCursor), ppCur);
}

static int xpClose(sqlite3_vtab_cursor *cur){
  XpCursor *c = (XpCursor*)cur;
  ps_set_clear(&c->set);
  sqlite3_free(c->aRow); sqlite3_free(c->aPart);
  sqlite3_free(c);
  return SQLITE_OK;
}

/* idxNum bits: 1 source = ?, 2 format = ? (argv in that order). */
static int xpBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo){
  (void)pVtab;
  return ps_vt_best_source(pInfo, XP_SOURCE, XP_FORMAT);
}

static int xpFilter(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr,
                    int argc, sqlite3_value **argv){
  XpCursor *c = (XpCursor*)cur;
  (void)idxStr; (void)argc;
  int k = 0;
  sqlite3_value *pSource = (idxNum & 1) ? argv[k++] : 0;
  sqlite3_value *pFormat = (idxNum & 2) ? argv[k++] : 0;
  int rc = ps_vt_filter_set(cur->pVtab, "profile_xplanes", pSource, pFormat, &c->set);
  if( rc!=SQLITE_OK ) return rc;
  size_t nMax = 1;
  for(int i=0; i<c->set.nPart; i++) nMax += c->set.ap[i]->cap->nLine + c->set.ap[i]->cap->nPlane;
  sqlite3_free(c->aRow); sqlite3_free(c->aPart);
  c->aRow = sqlite3_malloc64(nMax*sizeof(int64_t));
  c->aPart = sqlite3_malloc64(nMax*sizeof(int));
  if( c->aRow==0 || c->aPart==0 ) return SQLITE_NOMEM;
  c->nRow = 0; c->iRow = 0;
  for(int k=0; k<c->set.nPart; k++){
    const PsCapture *cap = c->set.ap[k]->cap;
    size_t l = 0;
    for(size_t p=0; p<cap->nPlane; p++){
      size_t n0 = c->nRow;
      while( l<cap->nLine && cap->aLine[l].plane==p ){ c->aPart[c->nRow] = k; c->aRow[c->nRow++] = (int64_t)l++; }
      if( c->nRow==n0 ){ c->aPart[c->nRow] = k; c->aRow[c->nRow++] = -(int64_t)p - 1; }
    }
  }
  return SQLITE_OK;
}

static int xpNext(sqlite3_vtab_cursor *cur){ ((XpCursor*)cur)->iRow++; return SQLITE_OK; }
static int xpEof(sqlite3_vtab_cursor *cur){ XpCursor *c = (XpCursor*)cur; return c->iRow >= c->nRow; }

static void xp_str(sqlite3_context *ctx, const PsCapture *cap, uint32_t id){
  if( id==0 ){ sqlite3_result_null(ctx); return; }
  PsStr s = ps_pool_get(&cap->pool, id);
  sqlite3_result_text(ctx, s.z, (int)s.n, SQLITE_STATIC);
}

static int xpColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int iCol){
  XpCursor *c = (XpCursor*)cur;
  int k = c->aPart[c->iRow];
  const PsCapture *cap = c->set.ap[k]->cap;
  int64_t v = c->aRow[c->iRow];
  const PsLine *ln = v>=0 ? &cap->aLine[v] : 0;
  const PsPlane *pl = &cap->aPlane[ln ? ln->plane : (size_t)(-v-1)];
  switch( iCol ){
    case XP_PLANE_INDEX: sqlite3_result_int64(ctx, pl->index); break;
    case XP_PLANE_ID:    sqlite3_result_int64(ctx, pl->id); break;
    case XP_PLANE_NAME:  xp_str(ctx, cap, pl->name); break;
    case XP_HOST: {
      char buf[512];
      const char *z = ps_set_host(&c->set, k, buf, sizeof(buf));
      if( z ) sqlite3_result_text(ctx, z, -1, SQLITE_TRANSIENT); else sqlite3_result_null(ctx);
      break;
    }
    case XP_FILE:
      ps_vt_result_file(ctx, &c->set, k);
      break;
    default:
      if( ln==0 ){ sqlite3_result_null(ctx); break; }
      switch( iCol ){
        case XP_LINE_ID:      sqlite3_result_int64(ctx, ln->id); break;
        case XP_LINE_DISPLAY: sqlite3_result_int64(ctx, ln->displayId); break;
        case XP_LINE_NAME:    xp_str(ctx, cap, ln->name); break;
        case XP_LINE_DNAME:   xp_str(ctx, cap, ln->displayName); break;
        case XP_TIMESTAMP:    sqlite3_result_int64(ctx, ln->timestampNs); break;
        case XP_DURATION:     sqlite3_result_int64(ctx, ln->durationPs); break;
        case XP_EVENT_COUNT:  sqlite3_result_int64(ctx, ln->nEvents); break;
        default:              sqlite3_result_null(ctx); break;
      }
  }
  return SQLITE_OK;
}

static int xpRowid(sqlite3_vtab_cursor *cur, sqlite_int64 *pRowid){
  *pRowid = (sqlite_int64)((XpCursor*)cur)->iRow;
  return SQLITE_OK;
}

PS_VT_CHECKED(xp, XpCursor, "profile_xplanes", (c->iRow<c->nRow ? c->aPart[c->iRow] : c->set.nPart))

static sqlite3_module xpModule = {
  0, 0, xpConnect, xpBestIndex, ps_vt_disconnect, 0, xpOpen, xpClose, xpFilter, xpNextChecked, xpEof,
  xpColumnChecked, xpRowid, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
};

int ps_xplanes_register(sqlite3 *db, PsConn *pConn){
  pConn->nRef++;
  return sqlite3_create_module_v2(db, "profile_xplanes", &xpModule, pConn, ps_conn_release);
}
