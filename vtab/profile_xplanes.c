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
  int iPart;                  /* the current part (file) ... */
  PsCapture *cap;             /* ... and its capture; NULL at the end of the parts */
  int64_t *aRow;              /* per row of the part: line index, or -(plane index + 1) for a
                              ** plane without lines */
  size_t nRow, iRow;
  int64_t iRowid;             /* rows returned before this one */
} XpCursor;

/* Loads part c->iPart and lists its rows (a directory or glob streams: ps_set_use). */
static int xp_start_part(XpCursor *c){
  c->nRow = 0; c->iRow = 0;
  int rc = ps_set_use(c->base.pVtab, &c->set, &c->iPart, &c->cap);
  if( rc || c->cap==0 ) return rc;
  const PsCapture *cap = c->cap;
  sqlite3_free(c->aRow);
  c->aRow = sqlite3_malloc64((cap->nLine + cap->nPlane + 1)*sizeof(int64_t));
  if( c->aRow==0 ) return SQLITE_NOMEM;
  size_t l = 0;
  for(size_t p=0; p<cap->nPlane; p++){
    size_t n0 = c->nRow;
    while( l<cap->nLine && cap->aLine[l].plane==p ) c->aRow[c->nRow++] = (int64_t)l++;
    if( c->nRow==n0 ) c->aRow[c->nRow++] = -(int64_t)p - 1;
  }
  return SQLITE_OK;
}

/* Moves past parts without rows. */
static int xp_settle(XpCursor *c){
  while( c->cap && c->iRow>=c->nRow && c->iPart+1 < c->set.nPart ){
    c->iPart++;
    int rc = xp_start_part(c);
    if( rc ) return rc;
  }
  return SQLITE_OK;
}

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
  sqlite3_free(c->aRow);
  sqlite3_free(c);
  return SQLITE_OK;
}

/* idxNum bits: 1 source = ?, 2 format = ?, 4 file = ?, 8 file IN (...) (argv in that order). */
static int xpBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo){
  (void)pVtab;
  return ps_vt_best_source(pInfo, XP_SOURCE, XP_FORMAT, XP_FILE);
}

static int xpFilter(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr,
                    int argc, sqlite3_value **argv){
  XpCursor *c = (XpCursor*)cur;
  (void)idxStr; (void)argc;
  int k = 0;
  sqlite3_value *pSource = (idxNum & 1) ? argv[k++] : 0;
  sqlite3_value *pFormat = (idxNum & 2) ? argv[k++] : 0;
  PsFileFilter files = ps_vt_file_filter(idxNum, PS_IDX_FILE, PS_IDX_FILE_IN, argv, k);
  int rc = ps_vt_filter_set(cur->pVtab, "profile_xplanes", pSource, pFormat, &files, 1, &c->set);
  if( rc!=SQLITE_OK ) return rc;
  c->iPart = 0; c->cap = 0; c->nRow = 0; c->iRow = 0; c->iRowid = 0;
  if( c->set.nPart==0 ) return SQLITE_OK;
  rc = xp_start_part(c);
  return rc ? rc : xp_settle(c);
}

static int xpNext(sqlite3_vtab_cursor *cur){
  XpCursor *c = (XpCursor*)cur;
  c->iRow++; c->iRowid++;
  return xp_settle(c);
}
static int xpEof(sqlite3_vtab_cursor *cur){ XpCursor *c = (XpCursor*)cur; return c->cap==0 || c->iRow >= c->nRow; }

static int xpColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int iCol){
  XpCursor *c = (XpCursor*)cur;
  int k = c->iPart;
  const PsCapture *cap = c->cap;
  int64_t v = c->aRow[c->iRow];
  const PsLine *ln = v>=0 ? &cap->aLine[v] : 0;
  const PsPlane *pl = &cap->aPlane[ln ? ln->plane : (size_t)(-v-1)];
  switch( iCol ){
    case XP_PLANE_INDEX: sqlite3_result_int64(ctx, pl->index); break;
    case XP_PLANE_ID:    sqlite3_result_int64(ctx, pl->id); break;
    case XP_PLANE_NAME:  ps_vt_result_pool(ctx, cap, pl->name, &c->set); break;
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
        case XP_LINE_NAME:    ps_vt_result_pool(ctx, cap, ln->name, &c->set); break;
        case XP_LINE_DNAME:   ps_vt_result_pool(ctx, cap, ln->displayName, &c->set); break;
        case XP_TIMESTAMP:    sqlite3_result_int64(ctx, ln->timestampNs); break;
        case XP_DURATION:     sqlite3_result_int64(ctx, ln->durationPs); break;
        case XP_EVENT_COUNT:  sqlite3_result_int64(ctx, ln->nEvents); break;
        default:              sqlite3_result_null(ctx); break;
      }
  }
  return SQLITE_OK;
}

static int xpRowid(sqlite3_vtab_cursor *cur, sqlite_int64 *pRowid){
  *pRowid = (sqlite_int64)((XpCursor*)cur)->iRowid;
  return SQLITE_OK;
}

PS_VT_CHECKED(xp, XpCursor, "profile_xplanes", (c->cap && c->iRow<c->nRow ? c->iPart : c->set.nPart))

static sqlite3_module xpModule = {
  0, 0, xpConnect, xpBestIndex, ps_vt_disconnect, 0, xpOpen, xpClose, xpFilter, xpNextChecked, xpEof,
  xpColumnChecked, xpRowid, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
};

int ps_xplanes_register(sqlite3 *db, PsConn *pConn){
  pConn->nRef++;
  return sqlite3_create_module_v2(db, "profile_xplanes", &xpModule, pConn, ps_conn_release);
}
