/*
** profile_metadata.c — the profile_metadata table-valued function: everything about a capture
** that is not an event row.
**
**   SELECT * FROM profile_metadata('trace.json') WHERE scope = 'diagnostic';
**
** Arguments (HIDDEN columns): source (path TEXT or BLOB), format (optional: a name, or a JSON
** object of options {"format": name, "strict": bool}: vtab/loader.c parse_format).
** Columns
**   scope        what the row describes:
**                  'capture'    format, form, bytes, compressed_bytes, events, threads, tracks, ...
**                  'trace'      every top-level key of an object-form trace other than traceEvents
**                               (displayTimeUnit as TEXT; otherData, metadata, stackFrames,
**                               samples, systemTraceEvents, ... as JSON text)
**                  'ph'         number of events in the file per phase (key = the ph character)
**                  'process:<pid>' / 'thread:<pid>:<tid>'   'M' metadata events (key = the M
**                               event's name, value = args.name or the args JSON)
**                  'track'      key = track number, value = what the track is
**                  'diagnostic' import findings: unmatched_end, unclosed_begin, overlap,
**                               missing_ph, other; at most 1000 rows per kind, then
**                               '<kind>_count' rows with the totals
**   key          the name of the item
**   value        INTEGER, REAL or TEXT (JSON text for structured values)
**   byte_offset  offset in the (decompressed) file the row refers to, NULL when none
**                  'files'      a directory or glob source's files that did not load: key = the
**                               path, value = 'skipped: <why>' ('not a supported capture', or the
**                               load error: "byte 69 (line 1, column 70): expected ..."), file =
**                               the path; then key 'skipped', value = their number (file NULL).
**                               With the format argument's {"strict": true} a damaged file fails
**                               the query instead (docs/loading.md, "Many files at once")
**   file         the capture file the row belongs to (a directory or glob source names several);
**                NULL for a BLOB and for the 'skipped' count
** Errors: as profile_events (vtab/loader.c). SQLITE_VTAB_DIRECTONLY: it reads files.
*/
#include "ps_vtab.h"
SQLITE_EXTENSION_INIT3

#include <string.h>

#define MD_SCHEMA "CREATE TABLE x(scope TEXT, key TEXT, value, byte_offset INTEGER, file TEXT, " \
                  "source HIDDEN, format HIDDEN)"
#define MD_SCOPE       0
#define MD_KEY         1
#define MD_VALUE       2
#define MD_BYTE_OFFSET 3
#define MD_FILE        4
#define MD_SOURCE      5
#define MD_FORMAT      6

typedef struct MdCursor {
  sqlite3_vtab_cursor base;
  PsSet set;                  /* the captures (references held while open) */
  int iPart;                  /* current part; == set.nPart for the 'files' rows of skipped files */
  int64_t iRow;               /* row within the part */
  PsCapture *cap;             /* the current part's capture */
} MdCursor;

/* Moves past exhausted parts, loading each part as the scan reaches it (a directory or glob
** streams: ps_set_use). */
static int md_settle(MdCursor *c){
  while( c->iPart < c->set.nPart ){
    int rc = ps_set_use(c->base.pVtab, &c->set, &c->iPart, &c->cap);
    if( rc ) return rc;
    if( c->cap==0 || c->iRow < (int64_t)c->cap->nMeta ) return SQLITE_OK;
    c->iPart++; c->iRow = 0;
  }
  return SQLITE_OK;
}

static int mdConnect(sqlite3 *db, void *pAux, int argc, const char *const *argv,
                     sqlite3_vtab **ppVtab, char **pzErr){
  (void)argc; (void)argv; (void)pzErr;
  return ps_vt_connect(db, pAux, MD_SCHEMA, ppVtab);
}

static int mdOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCur){
  (void)pVtab;
  return ps_vt_open(sizeof(MdCursor), ppCur);
}

static int mdClose(sqlite3_vtab_cursor *cur){
  MdCursor *c = (MdCursor*)cur;
  ps_set_clear(&c->set);
  sqlite3_free(c);
  return SQLITE_OK;
}

/* idxNum bits: 1 source = ?, 2 format = ?, 4 file = ?, 8 file IN (...) (argv in that order). */
static int mdBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo){
  (void)pVtab;
  return ps_vt_best_source(pInfo, MD_SOURCE, MD_FORMAT, MD_FILE);
}

static int mdFilter(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr,
                    int argc, sqlite3_value **argv){
  MdCursor *c = (MdCursor*)cur;
  (void)idxStr; (void)argc;
  int k = 0;
  sqlite3_value *pSource = (idxNum & 1) ? argv[k++] : 0;
  sqlite3_value *pFormat = (idxNum & 2) ? argv[k++] : 0;
  PsFileFilter files = ps_vt_file_filter(idxNum, PS_IDX_FILE, PS_IDX_FILE_IN, argv, k);
  int rc = ps_vt_filter_set(cur->pVtab, "profile_metadata", pSource, pFormat, &files, 1, &c->set);
  if( rc!=SQLITE_OK ) return rc;
  c->iPart = 0; c->iRow = 0; c->cap = 0;
  return md_settle(c);
}

static int mdNext(sqlite3_vtab_cursor *cur){
  MdCursor *c = (MdCursor*)cur;
  c->iRow++;
  return md_settle(c);
}

static int mdEof(sqlite3_vtab_cursor *cur){
  MdCursor *c = (MdCursor*)cur;
  /* after the parts: a row per skipped file, then their count */
  return c->iPart >= c->set.nPart && c->iRow >= c->set.nSkipped + (c->set.nSkipped>0);
}

static int mdColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int iCol){
  MdCursor *c = (MdCursor*)cur;
  if( c->iPart >= c->set.nPart ){
    if( c->iRow >= c->set.nSkipped ){
      /* ('files', 'skipped', N): how many files of the source did not load */
      switch( iCol ){
        case MD_SCOPE: sqlite3_result_text(ctx, "files", -1, SQLITE_STATIC); break;
        case MD_KEY: sqlite3_result_text(ctx, "skipped", -1, SQLITE_STATIC); break;
        case MD_VALUE: sqlite3_result_int(ctx, c->set.nSkipped); break;
        default: sqlite3_result_null(ctx); break;
      }
      return SQLITE_OK;
    }
    /* a file of a directory or glob source that did not load, and why */
    const char *zFile = c->set.azSkipped[c->iRow];
    const char *zWhy = c->set.azSkipWhy ? c->set.azSkipWhy[c->iRow] : 0;
    switch( iCol ){
      case MD_SCOPE: sqlite3_result_text(ctx, "files", -1, SQLITE_STATIC); break;
      case MD_KEY: case MD_FILE: sqlite3_result_text(ctx, zFile, -1, SQLITE_TRANSIENT); break;
      case MD_VALUE:
        if( zWhy==0 ) sqlite3_result_text(ctx, "skipped: not a supported capture", -1, SQLITE_STATIC);
        else{
          char *z = sqlite3_mprintf("skipped: %s", zWhy);
          if( z==0 ) return SQLITE_NOMEM;
          sqlite3_result_text(ctx, z, -1, sqlite3_free);
        }
        break;
      default: sqlite3_result_null(ctx); break;
    }
    return SQLITE_OK;
  }
  const PsCapture *cap = c->cap;
  const PsMeta *m = &cap->aMeta[c->iRow];
  switch( iCol ){
    case MD_FILE:
      ps_vt_result_file(ctx, &c->set, c->iPart);
      break;
    case MD_SCOPE:
      ps_vt_result_pool(ctx, cap, m->scope, &c->set);
      break;
    case MD_KEY: {
      char zBuf[PS_META_KEY_BUF];
      PsStr k = ps_meta_key(cap, m, zBuf);
      if( k.z==0 ) sqlite3_result_null(ctx);
      else sqlite3_result_text(ctx, k.z, (int)k.n, k.z==zBuf ? SQLITE_TRANSIENT : ps_set_text(&c->set));
      break;
    }
    case MD_VALUE: {
      char zBuf[PS_META_TRACK_BUF];
      PsOut o;
      ps_meta_value(cap, m, &o, zBuf);
      ps_vt_result(ctx, &o);                     /* (the text rule for a made track text) */
      break;
    }
    case MD_BYTE_OFFSET:
      if( m->off<0 ) sqlite3_result_null(ctx); else sqlite3_result_int64(ctx, m->off);
      break;
    default: sqlite3_result_null(ctx); break;
  }
  return SQLITE_OK;
}

static int mdRowid(sqlite3_vtab_cursor *cur, sqlite_int64 *pRowid){
  MdCursor *c = (MdCursor*)cur;
  *pRowid = ((sqlite_int64)c->iPart << 40) | c->iRow;
  return SQLITE_OK;
}

PS_VT_CHECKED(md, MdCursor, "profile_metadata", c->iPart)

static sqlite3_module mdModule = {
  0, 0, mdConnect, mdBestIndex, ps_vt_disconnect, 0, mdOpen, mdClose, mdFilter, mdNextChecked, mdEof,
  mdColumnChecked, mdRowid, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
};

int ps_metadata_register(sqlite3 *db, PsConn *pConn){
  pConn->nRef++;
  return sqlite3_create_module_v2(db, "profile_metadata", &mdModule, pConn, ps_conn_release);
}
