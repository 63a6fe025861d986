/*
** profile_records.c — the profile_records table-valued function: one row per timer record of a
** timings report (PocketMine-MP tree and legacy v1 reports, Spigot/Bukkit v1 reports), and one
** per stack frame / call-tree node of a sampled capture (ext/model/stacks.h: count = self samples,
** time_ns / self_ns = inclusive / self sampled time), and one
** per statistics record of the TensorFlow profiler's result files (ext/formats/xprof.c: a TfStatsRecord,
** KernelReport, InputOpDetails or OverviewTfOp; their columns are listed in docs/tf_stats.md,
** docs/kernel_stats.md, docs/input_pipeline.md, docs/overview_page.md).
**
**   SELECT group_name, sum(time_ns)/1e6 AS ms FROM profile_records('timings.txt')
**    GROUP BY group_name ORDER BY ms DESC;
**
** Arguments (HIDDEN): source (path TEXT or BLOB), format (optional: 'timings', 'tf_stats', ...).
** Columns (times in integer nanoseconds, as the writers print them)
**   record_id         RecordId; reports without ids: the record's order in the file (1, 2, ...)
**   parent_record_id  ParentRecordId; NULL for 'none' and for reports without ids
**   timer_id          TimerId (NULL without ids)
**   category          the category line the record sits under (a PM5 " ThreadId: N" suffix
**                     moved to thread_id)
**   name              the record's name exactly as written (with a "** " prefix if it has one)
**   group_name        the viewer's group: 'Minecraft - Breakdown' for "** " records, <P> for
**                     "Plugin: <P> Event: ..." and "Task: <P> Runnable: ..." records, else the
**                     category ('Custom Timings' and the old "Minecraft - ** indicates ..." header
**                     read as 'Minecraft'); HTML entities decoded
**   plugin            <P> of Plugin:/Task: records, or the category when it is a plugin's own
**                     ('Name vX.Y'); NULL for Minecraft's own timers
**   thread_id         the category's ThreadId (FormatVersion 2/3), else NULL
**   time_ns, count, violations   Time, Count, Violations
**   avg               Avg as written (INTEGER or REAL); NULL when absent
**   ticks, peak_ns    Ticks, Peak (tree reports)
**   self_ns           time_ns minus the time_ns of the record's children; NULL without a tree or when
**                     the difference does not fit in int64 (an 'other' diagnostic)
**   depth             depth in the record tree (0 = root); NULL for records in a parent cycle
**   line              1-based line number in the report; NULL for binary formats
**   record_set        which list of the file the record comes from: the xprof result files'
**                     'with_idle' / 'without_idle' (tf_stats), 'reports' (kernel_stats),
**                     'input_op_details', 'top_device_ops'; NULL for timings reports
**   attrs             JSON: the record's whole message, every field by its .proto name (ext/wire/pb.h
**                     gives the rules), for the xprof result files; for a stack frame its
**                     particulars (source line, column, address, ...; ext/model/stacks.h and each
**                     format's docs page); NULL otherwise
**   file              the report file (a directory or glob source reads several; record ids
**                     and the lookups are per file); NULL for a BLOB
** The record tree (what sql/record_tree.sql's record_tree reads instead of a recursive walk;
** computed in C once per capture, on the first read of one of them: ext/model/stacks.h,
** ps_records_walk). NULL for a record the walk from the roots does not reach (depth NULL):
**   root_id           record_id of the root above the record (its own for a root)
**   parent_time_ns    time_ns of the parent (the first record of parent_record_id); NULL for a root
**   root_time_ns      time_ns of the root
**   children_time_ns  Σ time_ns of the records in the tree whose parent_record_id is this
**                     record_id (NULL times left out; 0 for a leaf); NULL beyond int64
** Errors: as profile_events (vtab/loader.c). SQLITE_VTAB_DIRECTONLY: it reads files.
*/
#include "ps_vtab.h"
SQLITE_EXTENSION_INIT3

#include <string.h>
#include <stdlib.h>
#include "../ext/model/stacks.h"

#define RC_SCHEMA "CREATE TABLE x(record_id INTEGER, parent_record_id INTEGER, timer_id INTEGER, " \
  "category TEXT, name TEXT, group_name TEXT, plugin TEXT, thread_id INTEGER, time_ns INTEGER, " \
  "count INTEGER, avg, violations INTEGER, ticks INTEGER, peak_ns INTEGER, self_ns INTEGER, " \
  "depth INTEGER, line INTEGER, record_set TEXT, attrs TEXT, file TEXT, root_id INTEGER, " \
  "parent_time_ns INTEGER, root_time_ns INTEGER, children_time_ns INTEGER, source HIDDEN, format HIDDEN)"
#define RC_RECORD_ID   0
#define RC_PARENT_ID   1
#define RC_TIMER_ID    2
#define RC_CATEGORY    3
#define RC_NAME        4
#define RC_GROUP       5
#define RC_PLUGIN      6
#define RC_THREAD_ID   7
#define RC_TIME        8
#define RC_COUNT       9
#define RC_AVG        10
#define RC_VIOLATIONS 11
#define RC_TICKS      12
#define RC_PEAK       13
#define RC_SELF       14
#define RC_DEPTH      15
#define RC_LINE       16
#define RC_RECORD_SET 17
#define RC_ATTRS      18
#define RC_FILE       19
#define RC_ROOT_ID    20
#define RC_PARENT_TIME 21
#define RC_ROOT_TIME  22
#define RC_CHILD_TIME 23
#define RC_SOURCE     24
#define RC_FORMAT     25

typedef struct RcCursor {
  sqlite3_vtab_cursor base;
  PsSet set;                  /* the captures (references held while open) */
  int iPart;                  /* current part (file) */
  PsCapture *cap;             /* its capture; NULL at the end of the parts */
  int64_t iRow;               /* current row (a full scan), or index into aList */
  const int32_t *aList;       /* rows of a record_id / parent_record_id lookup, or NULL */
  size_t nList;
  int bKey, bKeyParent;       /* a lookup by record_id (or, bKeyParent, parent_record_id) ... */
  int64_t iKey; int bKeyValid;/* ... of this value (not an integer: no rows) */
  int bParentFilter;          /* parent_record_id = ? as well as record_id = ? */
  int64_t iParentWant;        /* ... its value (PS_NULL64: matches nothing) */
} RcCursor;

static const PsCapture *rc_cap(const RcCursor *c){ return c->cap; }

/* In a list scan with both constraints, moves iRow to the next row matching parent_record_id. */
static void rcSkip(RcCursor *c){
  if( !c->bParentFilter ) return;
  int64_t want = c->iParentWant;
  while( c->iRow < (int64_t)c->nList ){
    int64_t p = rc_cap(c)->aRec[c->aList[c->iRow]].parentId;
    if( want!=PS_NULL64 && p==want ) return;
    c->iRow++;
  }
}

static int rc_start_part(RcCursor *c){
  static const int32_t aNone[1] = {0};
  c->iRow = 0; c->aList = 0; c->nList = 0;
  int rc = ps_set_use(c->base.pVtab, &c->set, &c->iPart, &c->cap);
  if( rc!=SQLITE_OK || c->cap==0 ) return rc;      /* no more parts: c->cap NULL is EOF */
  if( c->bKey ){
    c->aList = aNone;
    if( c->bKeyValid ){
      c->aList = ps_capture_records_eq(c->cap, c->bKeyParent, c->iKey, &c->nList);
      if( c->aList==0 ) return SQLITE_NOMEM;
    }
    rcSkip(c);
  }
  return SQLITE_OK;
}

static int rc_part_done(const RcCursor *c){
  if( c->aList ) return c->iRow >= (int64_t)c->nList;
  return c->iRow >= (int64_t)rc_cap(c)->nRec;
}

static int rc_settle(RcCursor *c){
  while( c->cap && rc_part_done(c) && c->iPart+1 < c->set.nPart ){
    c->iPart++;
    int rc = rc_start_part(c);
    if( rc ) return rc;
  }
  return SQLITE_OK;
}

static int rcConnect(sqlite3 *db, void *pAux, int argc, const char *const *argv,
                     sqlite3_vtab **ppVtab, char **pzErr){
  (void)argc; (void)argv; (void)pzErr;
  return ps_vt_connect(db, pAux, RC_SCHEMA, ppVtab);
}

static int rcOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCur){
  (void)pVtab;
  return ps_vt_open(sizeof(RcCursor), ppCur);
}

static int rcClose(sqlite3_vtab_cursor *cur){
  RcCursor *c = (RcCursor*)cur;
  ps_set_clear(&c->set);
  sqlite3_free(c);
  return SQLITE_OK;
}

/* idxNum bits (argv in this order): 1 source = ?, 2 format = ?, 4 record_id = ?,
** 8 parent_record_id = ?, 16 file = ?, 32 file IN (...) taken whole (4 and 8 are lookups in an index built once per capture, which keeps
** the recursive CTEs of sql/record_tree.sql linear). */
static int rcBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo){
  (void)pVtab;
  static const int aCol[4] = { RC_SOURCE, RC_FORMAT, RC_RECORD_ID, RC_PARENT_ID };
  int idxNum = ps_vt_eq_constraints(pInfo, aCol, 4);
  if( idxNum<0 ) return SQLITE_CONSTRAINT;
  int bIn = 0;
  if( ps_vt_file_constraint(pInfo, RC_FILE, &bIn) ) idxNum |= bIn ? 32 : 16;
  pInfo->idxNum = idxNum;
  if( idxNum & 4 ){ pInfo->estimatedCost = 2.0; pInfo->estimatedRows = 1; }
  else if( idxNum & 8 ){ pInfo->estimatedCost = 10.0; pInfo->estimatedRows = 5; }
  else{ pInfo->estimatedCost = 1e5; pInfo->estimatedRows = 10000; }
  return SQLITE_OK;
}

static int rcFilter(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr,
                    int argc, sqlite3_value **argv){
  RcCursor *c = (RcCursor*)cur;
  (void)idxStr; (void)argc;
  int k = 0;
  sqlite3_value *pSource = (idxNum & 1) ? argv[k++] : 0;
  sqlite3_value *pFormat = (idxNum & 2) ? argv[k++] : 0;
  sqlite3_value *pId = (idxNum & 4) ? argv[k++] : 0;
  sqlite3_value *pParent = (idxNum & 8) ? argv[k++] : 0;
  PsFileFilter files = ps_vt_file_filter(idxNum, 16, 32, argv, k);
  /* a scan streams the files of a directory or glob; lookups hold them all */
  int rc = ps_vt_filter_set(cur->pVtab, "profile_records", pSource, pFormat, &files,
                            (idxNum & 12)==0, &c->set);
  if( rc!=SQLITE_OK ) return rc;
  sqlite3_value *pKey = pId ? pId : pParent;
  c->bKey = pKey!=0; c->bKeyParent = pId==0;
  c->bKeyValid = pKey && sqlite3_value_numeric_type(pKey)==SQLITE_INTEGER;
  c->iKey = c->bKeyValid ? sqlite3_value_int64(pKey) : 0;
  c->bParentFilter = pId && pParent;
  c->iParentWant = (pParent && sqlite3_value_numeric_type(pParent)==SQLITE_INTEGER)
                 ? sqlite3_value_int64(pParent) : PS_NULL64;
  c->iPart = 0; c->cap = 0;
  if( c->set.nPart==0 ) return SQLITE_OK;
  rc = rc_start_part(c);
  if( rc==SQLITE_OK ) rc = rc_settle(c);
  return rc;
}

static int rcNext(sqlite3_vtab_cursor *cur){
  RcCursor *c = (RcCursor*)cur;
  c->iRow++;
  if( c->aList ) rcSkip(c);
  return rc_settle(c);
}

static int rcEof(sqlite3_vtab_cursor *cur){
  RcCursor *c = (RcCursor*)cur;
  if( c->cap==0 ) return 1;
  return rc_part_done(c);
}

static void result_i64(sqlite3_context *ctx, int64_t v){
  if( v==PS_NULL64 ) sqlite3_result_null(ctx); else sqlite3_result_int64(ctx, v);
}

static int rcColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int iCol){
  RcCursor *c = (RcCursor*)cur;
  const PsCapture *cap = rc_cap(c);
  const PsRecord *r = &cap->aRec[c->aList ? c->aList[c->iRow] : c->iRow];
  switch( iCol ){
    case RC_RECORD_ID:  result_i64(ctx, r->recordId); break;
    case RC_PARENT_ID:  result_i64(ctx, r->parentId); break;
    case RC_TIMER_ID:   result_i64(ctx, r->timerId); break;
    case RC_CATEGORY:   ps_vt_result_pool(ctx, cap, r->category, &c->set); break;
    case RC_NAME:       ps_vt_result_pool(ctx, cap, r->name, &c->set); break;
    case RC_GROUP:      ps_vt_result_pool(ctx, cap, r->group, &c->set); break;
    case RC_PLUGIN:     ps_vt_result_pool(ctx, cap, r->plugin, &c->set); break;
    case RC_THREAD_ID:  result_i64(ctx, r->threadId); break;
    case RC_TIME:       result_i64(ctx, r->time); break;
    case RC_COUNT:      result_i64(ctx, r->count); break;
    case RC_AVG: {
      if( r->avgLen==0 ){ sqlite3_result_null(ctx); break; }
      const char *z = cap->src.z + r->avgOff;
      if( memchr(z, '.', r->avgLen) ){
        char buf[64]; size_t k = r->avgLen < sizeof(buf)-1 ? r->avgLen : sizeof(buf)-1;
        memcpy(buf, z, k); buf[k] = 0;
        sqlite3_result_double(ctx, strtod(buf, 0));
      }else{
        sqlite3_int64 v = 0;
        for(uint32_t i=0; i<r->avgLen && v < (INT64_MAX-9)/10; i++) v = v*10 + (z[i]-'0');
        sqlite3_result_int64(ctx, v);
      }
      break;
    }
    case RC_VIOLATIONS: result_i64(ctx, r->violations); break;
    case RC_TICKS:      result_i64(ctx, r->ticks); break;
    case RC_PEAK:       result_i64(ctx, r->peak); break;
    case RC_SELF:       result_i64(ctx, r->self); break;
    case RC_DEPTH:
      if( r->depth<0 ) sqlite3_result_null(ctx); else sqlite3_result_int(ctx, r->depth);
      break;
    case RC_LINE:       if( r->line ) sqlite3_result_int64(ctx, r->line); else sqlite3_result_null(ctx); break;
    case RC_RECORD_SET: ps_vt_result_pool(ctx, cap, r->recordSet, &c->set); break;
    case RC_ATTRS: {
      PsOut o;
      memset(&o, 0, sizeof(o));
      if( cap->pFormat->xRecordColumn
       && cap->pFormat->xRecordColumn(cap, (size_t)(r - cap->aRec), PS_COL_ATTRS, &o) ){
        sqlite3_result_error_nomem(ctx);
        return SQLITE_NOMEM;
      }
      if( o.type==0 && r->zAttrs ){ o.type = PS_META_JSON; o.z = r->zAttrs; o.n = r->nAttrs; }
      ps_vt_result(ctx, &o);
      break;
    }
    case RC_FILE:
      ps_vt_result_file(ctx, &c->set, c->iPart);
      break;
    case RC_ROOT_ID: case RC_PARENT_TIME: case RC_ROOT_TIME: case RC_CHILD_TIME: {
      /* the record tree, walked once per capture on first use (ext/model/stacks.h) */
      const PsRecTree *aT = ps_records_walk(c->cap);
      if( aT==0 ){ sqlite3_result_error_nomem(ctx); return SQLITE_NOMEM; }
      const PsRecTree *t = &aT[r - cap->aRec];
      if( iCol==RC_CHILD_TIME ) result_i64(ctx, t->root>=0 ? t->childTime : PS_NULL64);
      else if( iCol==RC_PARENT_TIME && t->parent>=0 ) result_i64(ctx, cap->aRec[t->parent].time);
      else if( t->root<0 || iCol==RC_PARENT_TIME ) sqlite3_result_null(ctx);
      else result_i64(ctx, iCol==RC_ROOT_ID ? cap->aRec[t->root].recordId : cap->aRec[t->root].time);
      break;
    }
    default:            sqlite3_result_null(ctx); break;
  }
  return SQLITE_OK;
}

static int rcRowid(sqlite3_vtab_cursor *cur, sqlite_int64 *pRowid){
  RcCursor *c = (RcCursor*)cur;
  *pRowid = ((sqlite_int64)c->iPart << 40) | (c->aList ? c->aList[c->iRow] : c->iRow);
  return SQLITE_OK;
}

PS_VT_CHECKED(rc, RcCursor, "profile_records", c->iPart)

static sqlite3_module rcModule = {
  0, 0, rcConnect, rcBestIndex, ps_vt_disconnect, 0, rcOpen, rcClose, rcFilter, rcNextChecked, rcEof,
  rcColumnChecked, rcRowid, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
};

int ps_records_register(sqlite3 *db, PsConn *pConn){
  pConn->nRef++;
  return sqlite3_create_module_v2(db, "profile_records", &rcModule, pConn, ps_conn_release);
}
