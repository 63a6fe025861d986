/*
** profile_events.c — the profile_events table-valued function: one row per event of a capture.
**
**   SELECT name, count(*), sum(dur)/1e6 AS ms
**     FROM profile_events('trace.json.gz') WHERE ph = 'X' GROUP BY name ORDER BY ms DESC;
**
** Arguments (HIDDEN columns)
**   source   file path (TEXT) or the capture's bytes (BLOB); gzip is inflated whatever the name
**   format   optional format name ('chrome'); NULL/omitted = detected from the content
**
** Columns (times in integer nanoseconds)
**   id           row id: 0-based, stable, file order of the row's first event
**   ts           start, ns (Trace Event 'ts' µs x 1000, rounded to nearest); NULL where the file
**                gives no start time (input_pipeline steps, ext/formats/xprof.c)
**   dur          duration, ns: X 'dur'; B->E, b->e, S->F end minus begin; 0 for instants;
**                NULL when unknown (a B never ended, counters, metadata, ...)
**   name, cat    event name and category
**   ph           phase character as written ('X', 'B', 'i', 'C', 'M', ...); merged B/E rows are 'B'
**   pid, tid     INTEGER when the file has an integer, TEXT when it has a string
**   process_name, thread_name   from the 'M' process_name / thread_name events
**   depth        nesting depth on the row's track (0 = top level); NULL for rows that do not nest
**                (counters, metadata, process/global instants, ...)
**   parent_id    id of the enclosing slice on the same track, NULL at top level
**   track        track number (see profile_metadata scope 'track'): the thread, an async
**                (category, id) group, or a counter (pid, name, id)
**   args         the event's args object as JSON text (an E event's args merged into its B row)
**   tts, tdur    thread time, ns (tdur of a B/E row = E.tts - B.tts)
**   async_id     'id' / 'id2' of async, flow, counter, object and sample events
**   scope        instant scope 's' ('g', 'p', 't')
**   flow_id      flow identifier: 'id' of s/t/f events, 'bind_id' of slices (flow v2)
**   flow_in, flow_out  1/0: the row receives / sends a flow (s: out, t: both, f: in)
**   slice_id     for s/t/f flow events: id of the slice the event binds to
**   byte_offset  offset of the event in the (decompressed) file
**   display_name, offset_ps, duration_ps, num_occurrences   XSpace: the event metadata's
**                display_name, and the XEvent's exact offset_ps / duration_ps (ps) and
**                num_occurrences (aggregated events); offset_ps / duration_ps also hold an
**                xprof_trace TraceEvent's exact timestamp_ps / duration_ps; NULL for other formats
**   stack_id     record_id (profile_records) of the leaf frame of the row's call stack: a
**                sample's stack (ph 'P' rows of the sampled formats, Chrome 'samples' and
**                V8 CPU profiles), or a Chrome slice's 'sf' / 'stack'; NULL for none (ext/model/stacks.h)
**   cpu          the CPU the row ran on (perf script's and ftrace's [cpu], Chrome samples' 'cpu'); NULL when
**                the file does not say
**   origin       the format the row was read as: the capture's format ('chrome', 'ftrace', ...), or
**                'ftrace' for the rows of Linux ftrace text that came with a Chrome trace (a
**                'systemTraceEvents' string, a systrace HTML document's text blocks beside its
**                JSON block): what tells those rows from the trace's own events
**   utid         the row's thread in the track model (profile_threads.utid, per file): the (pid, tid)
**                the row carries; a row on an async, counter, CPU or instant track has one too
**   kind         what the row is (ext/model/tracks.h ps_row_kind): 'slice', 'instant', 'counter',
**                'metadata', 'flow', 'sample', 'step', 'end' (an end that closed nothing), 'object',
**                'sched' (a CPU's scheduling interval), 'ftrace_event' (a kernel event line of ftrace
**                text that is no atrace marker), 'other'
**   file         the capture file of the row: a source that is a directory or a glob pattern
**                reads every capture it names, one after the other (ids, parent_id and the
**                id / parent_id lookups are per file: join on file too); NULL for a BLOB
** For XSpace captures (ext/formats/xspace.c): one row per XEvent, ts = XLine.timestamp_ns + offset_ps/1000
** and dur = duration_ps/1000 rounded to the nearest ns, pid = plane index, tid = line id,
** process_name / thread_name = plane / line name, args = the event's and its metadata's stats.
**
** Query planning (xBestIndex idxNum bits, argv in this order):
**   1 source = ?   2 format = ?   4 id = ?   8 parent_id = ?   64 file = ?   128 file IN (...)
**   512 kind = ?   1024 kind IN (...): the rows of those kinds only, decided from the model per
**   row (the Perfetto schema's slice view: kind IN ('slice', 'instant'))
**   16 rows in name order   32 rows in cat order   256 ... within each file (ORDER BY file, name)
**   'id = ?' is a direct lookup and 'parent_id = ?' walks the children index, so a self-join
**   child -> parent costs about one scan. ORDER BY file [, id] is consumed (rows come out part by
**   part, each in id order), ORDER BY id alone when the source is one capture; ORDER BY / GROUP BY
**   [file,] name (or cat), BINARY collation, is consumed by scanning a per-capture name-ordered
**   index, so GROUP BY name needs no sorter (across the files of a literal directory or glob source
**   SQLite sorts instead, so that the files stream). 'file = ?' / 'file IN (...)' open only the
**   files named. A plain scan of several files streams them, one capture in memory at a time;
**   lookups and a name order merged across files hold them all (vtab/ps_vtab.h, PsSet).
**
** Errors: see vtab/loader.c (cannot open, not a supported capture, byte-offset parse errors).
** The table reads files, so it is SQLITE_VTAB_DIRECTONLY: a schema (view/trigger) from an
** untrusted database file cannot use it to read the host's files.
*/
#include "ps_vtab.h"
SQLITE_EXTENSION_INIT3

#include "../ext/model/tracks.h"

#include <math.h>
#include <string.h>

#define EV_SCHEMA "CREATE TABLE x(id INTEGER, ts INTEGER, dur INTEGER, name TEXT, cat TEXT, " \
  "ph TEXT, pid, tid, process_name TEXT, thread_name TEXT, depth INTEGER, parent_id INTEGER, " \
  "track INTEGER, args TEXT, tts INTEGER, tdur INTEGER, async_id, scope TEXT, flow_id, " \
  "flow_in INTEGER, flow_out INTEGER, slice_id INTEGER, byte_offset INTEGER, " \
  "display_name TEXT, offset_ps INTEGER, duration_ps INTEGER, num_occurrences INTEGER, " \
  "stack_id INTEGER, cpu INTEGER, origin TEXT, file TEXT, utid INTEGER, kind TEXT, source HIDDEN, format HIDDEN)"
#define EV_ID            0
#define EV_TS            1
#define EV_DUR           2
#define EV_NAME          3
#define EV_CAT           4
#define EV_PH            5
#define EV_PID           6
#define EV_TID           7
#define EV_PROCESS_NAME  8
#define EV_THREAD_NAME   9
#define EV_DEPTH        10
#define EV_PARENT_ID    11
#define EV_TRACK        12
#define EV_ARGS         13
#define EV_TTS          14
#define EV_TDUR         15
#define EV_ASYNC_ID     16
#define EV_SCOPE        17
#define EV_FLOW_ID      18
#define EV_FLOW_IN      19
#define EV_FLOW_OUT     20
#define EV_SLICE_ID     21
#define EV_BYTE_OFFSET  22
#define EV_DISPLAY_NAME 23
#define EV_OFFSET_PS    24
#define EV_DURATION_PS  25
#define EV_NUM_OCC      26
#define EV_STACK_ID     27
#define EV_CPU          28
#define EV_ORIGIN       29
#define EV_FILE         30
#define EV_UTID         31
#define EV_KIND         32
#define EV_SOURCE       33
#define EV_FORMAT       34

#define EV_IDX_SOURCE  1
#define EV_IDX_FORMAT  2
#define EV_IDX_ID      4
#define EV_IDX_PARENT  8
#define EV_IDX_BYNAME 16     /* rows come out ordered by name (ORDER BY / GROUP BY name) */
#define EV_IDX_BYCAT  32     /* ... by cat */
#define EV_IDX_FILE   64     /* file = ? */
#define EV_IDX_FILE_IN 128   /* file IN (...), the list taken whole */
#define EV_IDX_PERFILE 256   /* name / cat order within each file, files in order (ORDER BY file, name) */
#define EV_IDX_KIND   512    /* kind = ? */
#define EV_IDX_KIND_IN 1024  /* kind IN (...), the list taken whole */

typedef struct EvCursor {
  sqlite3_vtab_cursor base;
  PsSet set;                  /* the captures (references held while the cursor is open) */
  int iPart;                  /* current part (file) */
  PsCapture *cap;             /* set.ap[iPart]->cap; NULL at the end of the parts */
  int64_t iRow;               /* current row id (within the part) */
  int64_t iLo, iEnd;          /* rows allowed: [iLo, iEnd) (narrowed by id = ?) */
  const int32_t *aList;       /* list scan (children, name order): row ids, or NULL for a range scan */
  size_t nList, iList;
  /* the scan asked for, redone on each part */
  int idxNum;
  int bId, bParent;           /* id = ? / parent_id = ? given ... */
  double rId, rParent;        /* ... with these values (NaN when not numeric) */
  uint64_t *aMerged;          /* several parts in name/cat order: (part << 32 | row), merged */
  size_t nMerged, iMerged;
  int bKind;                  /* kind = ? / kind IN (...) given: only rows of the kinds in mKind */
  uint32_t mKind;             /* bit k: ps_row_kind_names[k] */
  const PsModel *pModel;      /* the current part's track model (for kind), or NULL */
} EvCursor;

static int evConnect(sqlite3 *db, void *pAux, int argc, const char *const *argv,
                     sqlite3_vtab **ppVtab, char **pzErr){
  (void)argc; (void)argv; (void)pzErr;
  return ps_vt_connect(db, pAux, EV_SCHEMA, ppVtab);
}

static int evOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCur){
  (void)pVtab;
  return ps_vt_open(sizeof(EvCursor), ppCur);
}

static int evClose(sqlite3_vtab_cursor *cur){
  EvCursor *c = (EvCursor*)cur;
  ps_set_clear(&c->set);
  sqlite3_free(c->aMerged);
  sqlite3_free(c);
  return SQLITE_OK;
}

/* idxNum bits as documented in the header; argv order: source, format, id, parent_id, file. */
static int evBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo){
  (void)pVtab;
  static const int aCol[4] = { EV_SOURCE, EV_FORMAT, EV_ID, EV_PARENT_ID };
  int idxNum = ps_vt_eq_constraints(pInfo, aCol, 4);
  if( idxNum<0 ) return SQLITE_CONSTRAINT;
  int bIn = 0;
  if( ps_vt_file_constraint(pInfo, EV_FILE, &bIn) ) idxNum |= bIn ? EV_IDX_FILE_IN : EV_IDX_FILE;
  /* kind = ? / IN (...): the row's kind is the model's (no string made and compared per row) */
  if( ps_vt_file_constraint(pInfo, EV_KIND, &bIn) ) idxNum |= bIn ? EV_IDX_KIND_IN : EV_IDX_KIND;
  pInfo->idxNum = idxNum;
  if( idxNum & EV_IDX_ID ){
    pInfo->estimatedCost = 1.0; pInfo->estimatedRows = 1;
    pInfo->idxFlags = SQLITE_INDEX_SCAN_UNIQUE;
  }else if( idxNum & EV_IDX_PARENT ){
    pInfo->estimatedCost = 10.0; pInfo->estimatedRows = 5;
  }else{
    pInfo->estimatedCost = 1e6; pInfo->estimatedRows = 1000000;
  }
  if( idxNum & (EV_IDX_FILE|EV_IDX_FILE_IN) ){ pInfo->estimatedCost /= 4; pInfo->estimatedRows /= 4; }
  if( idxNum & (EV_IDX_KIND|EV_IDX_KIND_IN) ){ pInfo->estimatedCost /= 2; pInfo->estimatedRows /= 2; }
  /* ORDER BY the table gives for free: rows come out part by part (parts in file name order),
  ** each part in id order, or in name / cat order through the per-capture index */
  int nOb = pInfo->nOrderBy, iOb = 0;
  for(int i=0; i<nOb; i++) if( pInfo->aOrderBy[i].desc ) return SQLITE_OK;
  int bFileFirst = nOb>=1 && pInfo->aOrderBy[0].iColumn==EV_FILE;
  if( bFileFirst ) iOb = 1;
  /* a source known to be one capture (a literal path of a file, a BLOB) has one part: its
  ** row order is the order of every column the parts are ordered by */
  int eKind = ps_vt_source_kind(pVtab, pInfo, EV_SOURCE);
  if( nOb==iOb ){
    pInfo->orderByConsumed = 1;                     /* ORDER BY file */
  }else if( nOb==iOb+1 && pInfo->aOrderBy[iOb].iColumn==EV_ID ){
    if( bFileFirst || eKind==PS_SOURCE_ONE ) pInfo->orderByConsumed = 1;
  }else if( nOb==iOb+1 && !(idxNum & (EV_IDX_ID|EV_IDX_PARENT))
         && (pInfo->aOrderBy[iOb].iColumn==EV_NAME || pInfo->aOrderBy[iOb].iColumn==EV_CAT) ){
    /* the index is in BINARY order, the columns' default collation; SQLite does not pass an
    ** ORDER BY with another collation (tests/sql/planner.sql checks COLLATE NOCASE). Across
    ** the files of a directory or glob, name order alone would hold every file at once (a
    ** merge): there SQLite's sorter does it, and the files are read one at a time. */
    if( bFileFirst || eKind!=PS_SOURCE_MANY ){
      pInfo->idxNum = idxNum | (pInfo->aOrderBy[iOb].iColumn==EV_NAME ? EV_IDX_BYNAME : EV_IDX_BYCAT)
                             | (bFileFirst ? EV_IDX_PERFILE : 0);
      pInfo->orderByConsumed = 1;
    }
  }
  return SQLITE_OK;
}

/* An '=' constraint value as a number: integers and REALs (SQL compares 3.0 = 3 as equal);
** text that looks like a number was already converted by the column's INTEGER affinity.
** NaN when it is not numeric (then it names no row). */
static double ev_num_arg(sqlite3_value *v){
  int t = sqlite3_value_numeric_type(v);
  if( t==SQLITE_INTEGER ) return (double)sqlite3_value_int64(v);
  if( t==SQLITE_FLOAT ) return sqlite3_value_double(v);
  return NAN;
}

/* The row of a part that the value names, or -1 when none. */
static int64_t ev_row_arg(double d, int64_t n){
  if( !(d>=0 && d<(double)n) || d!=(double)(int64_t)d ) return -1;
  return (int64_t)d;
}

/* Sets up the scan of the current part (the constraints saved by evFilter). */
static int ev_start_part(EvCursor *c){
  c->aList = 0; c->nList = 0; c->iList = 0; c->iRow = 0; c->iEnd = 0;
  int rc = ps_set_use(c->base.pVtab, &c->set, &c->iPart, &c->cap);
  if( rc!=SQLITE_OK || c->cap==0 ) return rc;      /* no more parts: c->cap NULL is EOF */
  int64_t n = (int64_t)c->cap->ev.n;
  int idxNum = c->idxNum;
  c->iEnd = n;
  if( c->bId ){
    int64_t id = ev_row_arg(c->rId, n);
    if( id<0 ){ c->iEnd = 0; }
    else{ c->iRow = id; c->iEnd = id+1; }
  }
  c->iLo = c->iRow;
  if( idxNum & (EV_IDX_BYNAME|EV_IDX_BYCAT) ){
    c->aList = ps_capture_order_by_str(c->cap, (idxNum & EV_IDX_BYCAT) ? 1 : 0);
    if( c->aList==0 ) return SQLITE_NOMEM;
    c->nList = (size_t)n; c->iList = 0;
    if( n>0 ) c->iRow = c->aList[0];
  }
  if( c->bParent ){
    int64_t p = ev_row_arg(c->rParent, n);
    if( ps_capture_children(c->cap) ) return SQLITE_NOMEM;
    if( p<0 ){ c->aList = c->cap->aChildList; c->nList = 0; }
    else{
      c->aList = c->cap->aChildList + c->cap->aChildStart[p];
      c->nList = (size_t)(c->cap->aChildStart[p+1] - c->cap->aChildStart[p]);
    }
    /* with id = ? as well: keep the list, filter in xNext/xEof */
    c->iList = 0;
    while( c->iList<c->nList && (c->aList[c->iList]<c->iLo || c->aList[c->iList]>=c->iEnd) ) c->iList++;
    if( c->iList<c->nList ) c->iRow = c->aList[c->iList];
  }
  return SQLITE_OK;
}

/* Whether the current row is of a kind asked for (always, without a kind constraint). */
static int ev_kind_ok(EvCursor *c){
  if( !c->bKind ) return 1;
  if( c->pModel==0 || c->cap->pModel!=(const void*)c->pModel ){
    c->pModel = ps_capture_model(c->cap);
    if( c->pModel==0 ) return 1;            /* out of memory: evColumn reports it */
  }
  return (c->mKind >> ps_row_kind_code(c->cap, c->pModel, (size_t)c->iRow)) & 1;
}

static int ev_part_done(const EvCursor *c){
  if( c->aList ) return c->iList>=c->nList;
  return c->iRow>=c->iEnd;
}

/* Moves to the next part while the current one has no more rows. */
static int ev_settle(EvCursor *c){
  while( c->cap && ev_part_done(c) && c->iPart+1 < c->set.nPart ){
    c->iPart++;
    int rc = ev_start_part(c);
    if( rc ) return rc;
  }
  return SQLITE_OK;
}

static int merge_str_cmp(const PsCapture *a, uint32_t ia, const PsCapture *b, uint32_t ib){
  PsStr x = ps_pool_get(&a->pool, ia), y = ps_pool_get(&b->pool, ib);
  if( ia==0 || ib==0 ) return ia==0 ? (ib==0 ? 0 : -1) : 1;      /* NULL first */
  size_t k = x.n < y.n ? x.n : y.n;
  int r = k ? memcmp(x.z, y.z, k) : 0;
  return r ? r : (x.n < y.n ? -1 : x.n > y.n);
}

/* Several parts in name (cat) order: a k-way merge of the parts' own orders. */
static int ev_merge_parts(EvCursor *c, int bCat){
  int k = c->set.nPart;
  size_t nTotal = 0;
  const int32_t **aOrd = sqlite3_malloc64(sizeof(*aOrd)*(size_t)k);
  size_t *aPos = sqlite3_malloc64(sizeof(size_t)*(size_t)k);
  if( aOrd==0 || aPos==0 ){ sqlite3_free(aOrd); sqlite3_free(aPos); return SQLITE_NOMEM; }
  for(int i=0; i<k; i++){
    aOrd[i] = ps_capture_order_by_str(c->set.ap[i]->cap, bCat);
    aPos[i] = 0;
    if( aOrd[i]==0 ){ sqlite3_free(aOrd); sqlite3_free(aPos); return SQLITE_NOMEM; }
    nTotal += c->set.ap[i]->cap->ev.n;
  }
  sqlite3_free(c->aMerged);
  c->aMerged = sqlite3_malloc64((nTotal ? nTotal : 1)*sizeof(uint64_t));
  if( c->aMerged==0 ){ sqlite3_free(aOrd); sqlite3_free(aPos); return SQLITE_NOMEM; }
  for(size_t m=0; m<nTotal; m++){
    int best = -1; uint32_t bestId = 0;
    for(int i=0; i<k; i++){
      const PsCapture *cap = c->set.ap[i]->cap;
      if( aPos[i]>=cap->ev.n ) continue;
      uint32_t id = (bCat ? cap->ev.aCat : cap->ev.aName)[aOrd[i][aPos[i]]];
      if( best<0 || merge_str_cmp(cap, id, c->set.ap[best]->cap, bestId)<0 ){ best = i; bestId = id; }
    }
    c->aMerged[m] = ((uint64_t)best << 32) | (uint32_t)aOrd[best][aPos[best]++];
  }
  c->nMerged = nTotal; c->iMerged = 0;
  sqlite3_free(aOrd); sqlite3_free(aPos);
  return SQLITE_OK;
}

static void ev_merged_row(EvCursor *c){
  if( c->iMerged >= c->nMerged ) return;
  c->iPart = (int)(c->aMerged[c->iMerged] >> 32);
  c->cap = c->set.ap[c->iPart]->cap;
  c->iRow = (int64_t)(uint32_t)c->aMerged[c->iMerged];
}

static int ev_next_row(EvCursor *c);
static int evEof(sqlite3_vtab_cursor *cur);
static int ev_skip_kinds(EvCursor *c);

static int evFilter(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr,
                    int argc, sqlite3_value **argv){
  EvCursor *c = (EvCursor*)cur;
  (void)idxStr; (void)argc;
  int k = 0;
  sqlite3_value *pSource = (idxNum & EV_IDX_SOURCE) ? argv[k++] : 0;
  sqlite3_value *pFormat = (idxNum & EV_IDX_FORMAT) ? argv[k++] : 0;
  sqlite3_value *pId = (idxNum & EV_IDX_ID) ? argv[k++] : 0;
  sqlite3_value *pParent = (idxNum & EV_IDX_PARENT) ? argv[k++] : 0;
  PsFileFilter files = ps_vt_file_filter(idxNum, EV_IDX_FILE, EV_IDX_FILE_IN, argv, k);
  if( files.pVal ) k++;
  sqlite3_value *pKind = (idxNum & (EV_IDX_KIND|EV_IDX_KIND_IN)) ? argv[k++] : 0;
  c->bKind = pKind!=0; c->mKind = 0; c->pModel = 0;
  if( pKind ){
    /* the kinds named (a name that is no kind names no row) */
    sqlite3_value *v = pKind;
    int bIn = (idxNum & EV_IDX_KIND_IN)!=0, rcIn = SQLITE_OK;
    if( bIn ) rcIn = sqlite3_vtab_in_first(pKind, &v);
    while( rcIn==SQLITE_OK && v ){
      const char *z = sqlite3_value_type(v)==SQLITE_TEXT ? (const char*)sqlite3_value_text(v) : 0;
      for(int j=0; z && j<PS_RK_N; j++) if( strcmp(z, ps_row_kind_names[j])==0 ) c->mKind |= 1u<<j;
      if( !bIn ) break;
      rcIn = sqlite3_vtab_in_next(pKind, &v);
    }
    if( rcIn!=SQLITE_OK && rcIn!=SQLITE_DONE ) return rcIn;
  }
  /* a plain scan (part after part) streams the files of a directory or glob; lookups by id /
  ** parent_id and name order merged across files hold them all */
  int bStream = !(idxNum & (EV_IDX_ID|EV_IDX_PARENT))
             && (!(idxNum & (EV_IDX_BYNAME|EV_IDX_BYCAT)) || (idxNum & EV_IDX_PERFILE));
  int rc = ps_vt_filter_set(cur->pVtab, "profile_events", pSource, pFormat, &files, bStream, &c->set);
  if( rc!=SQLITE_OK ) return rc;
  c->idxNum = idxNum;
  c->bId = pId!=0; c->rId = pId ? ev_num_arg(pId) : 0;
  c->bParent = pParent!=0; c->rParent = pParent ? ev_num_arg(pParent) : 0;
  c->iPart = 0; c->cap = 0;
  sqlite3_free(c->aMerged); c->aMerged = 0; c->nMerged = 0; c->iMerged = 0;
  if( c->set.nPart==0 ) return SQLITE_OK;
  if( c->set.nPart>1 && (idxNum & (EV_IDX_BYNAME|EV_IDX_BYCAT)) && !(idxNum & EV_IDX_PERFILE) ){
    rc = ev_merge_parts(c, (idxNum & EV_IDX_BYCAT)!=0);
    if( rc ) return rc;
    ev_merged_row(c);
    return ev_skip_kinds(c);
  }
  rc = ev_start_part(c);
  if( rc==SQLITE_OK ) rc = ev_settle(c);
  if( rc==SQLITE_OK ) rc = ev_skip_kinds(c);
  return rc;
}

/* Past the rows of kinds not asked for. */
static int ev_skip_kinds(EvCursor *c){
  while( c->bKind && !evEof(&c->base) && !ev_kind_ok(c) ){
    int rc = ev_next_row(c);
    if( rc ) return rc;
  }
  return SQLITE_OK;
}

static int evNext(sqlite3_vtab_cursor *cur){
  EvCursor *c = (EvCursor*)cur;
  int rc = ev_next_row(c);
  return rc ? rc : ev_skip_kinds(c);
}

static int ev_next_row(EvCursor *c){
  if( c->aMerged ){
    c->iMerged++;
    ev_merged_row(c);
    return SQLITE_OK;
  }
  if( c->aList ){
    /* list scans jump around the columns: fetch a few rows ahead */
    if( c->iList + 16 < c->nList ){
      int32_t ahead = c->aList[c->iList + 16];
      __builtin_prefetch(&c->cap->ev.aDur[ahead]);
      __builtin_prefetch(&c->cap->ev.aName[ahead]);
      __builtin_prefetch(&c->cap->ev.aTs[ahead]);
    }
    c->iList++;
    while( c->iList<c->nList && (c->aList[c->iList]<c->iLo || c->aList[c->iList]>=c->iEnd) ) c->iList++;
    if( c->iList<c->nList ) c->iRow = c->aList[c->iList];
  }else{
    c->iRow++;
  }
  return ev_settle(c);
}

static int evEof(sqlite3_vtab_cursor *cur){
  EvCursor *c = (EvCursor*)cur;
  if( c->cap==0 ) return 1;
  if( c->aMerged ) return c->iMerged>=c->nMerged;
  return ev_part_done(c);
}

static int evColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int iCol){
  EvCursor *c = (EvCursor*)cur;
  const PsCapture *cap = c->cap;
  const PsEvents *e = &cap->ev;
  size_t r = (size_t)c->iRow;
  int lazy = 0;
  switch( iCol ){
    case EV_ID:   sqlite3_result_int64(ctx, (sqlite3_int64)r); return SQLITE_OK;
    case EV_TS:
      if( e->aTs[r]==PS_NULL64 ) sqlite3_result_null(ctx); else sqlite3_result_int64(ctx, e->aTs[r]);
      return SQLITE_OK;
    case EV_DUR:
      if( e->aDur[r]==PS_NULL64 ) sqlite3_result_null(ctx); else sqlite3_result_int64(ctx, e->aDur[r]);
      return SQLITE_OK;
    case EV_NAME: ps_vt_result_pool(ctx, cap, e->aName[r], &c->set); return SQLITE_OK;
    case EV_CAT:  ps_vt_result_pool(ctx, cap, e->aCat[r], &c->set); return SQLITE_OK;
    case EV_PH: {
      if( e->aPh[r]==0 ){ sqlite3_result_null(ctx); return SQLITE_OK; }
      char ph = (char)e->aPh[r];
      sqlite3_result_text(ctx, &ph, 1, SQLITE_TRANSIENT);
      return SQLITE_OK;
    }
    case EV_PID: ps_vt_result_value(ctx, cap, &cap->aThread[e->aThread[r]].pid, ps_set_text(&c->set)); return SQLITE_OK;
    case EV_TID: ps_vt_result_value(ctx, cap, &cap->aThread[e->aThread[r]].tid, ps_set_text(&c->set)); return SQLITE_OK;
    case EV_PROCESS_NAME: ps_vt_result_pool(ctx, cap, cap->aThread[e->aThread[r]].processName, &c->set); return SQLITE_OK;
    case EV_THREAD_NAME:  ps_vt_result_pool(ctx, cap, cap->aThread[e->aThread[r]].threadName, &c->set); return SQLITE_OK;
    case EV_DEPTH:
      if( e->aDepth[r]<0 ) sqlite3_result_null(ctx); else sqlite3_result_int(ctx, e->aDepth[r]);
      return SQLITE_OK;
    case EV_PARENT_ID:
      if( e->aParent[r]<0 ) sqlite3_result_null(ctx); else sqlite3_result_int(ctx, e->aParent[r]);
      return SQLITE_OK;
    case EV_TRACK: sqlite3_result_int64(ctx, e->aTrack[r]); return SQLITE_OK;
    case EV_SLICE_ID: {
      int32_t s = ps_capture_link(cap, (int32_t)r);
      if( s<0 ) sqlite3_result_null(ctx); else sqlite3_result_int(ctx, s);
      return SQLITE_OK;
    }
    case EV_BYTE_OFFSET: sqlite3_result_int64(ctx, (sqlite3_int64)e->aOff[r]); return SQLITE_OK;
    case EV_STACK_ID: {
      int32_t s = e->aStack ? e->aStack[r] : -1;
      if( s<0 || (size_t)s>=cap->nRec ) sqlite3_result_null(ctx);
      else sqlite3_result_int64(ctx, cap->aRec[s].recordId);
      return SQLITE_OK;
    }
    case EV_CPU:
      if( e->aCpu==0 || e->aCpu[r]<0 ) sqlite3_result_null(ctx); else sqlite3_result_int(ctx, e->aCpu[r]);
      return SQLITE_OK;
    case EV_UTID:
      sqlite3_result_int64(ctx, e->aThread[r]);
      return SQLITE_OK;
    case EV_KIND: {
      const PsModel *m = ps_capture_model(c->cap);     /* (built once per capture) */
      if( m==0 ) return SQLITE_NOMEM;
      sqlite3_result_text(ctx, ps_row_kind(c->cap, m, (size_t)r), -1, SQLITE_STATIC);
      return SQLITE_OK;
    }
    case EV_ORIGIN:
      sqlite3_result_text(ctx, ps_row_format(c->cap, (size_t)r), -1, SQLITE_STATIC);
      return SQLITE_OK;
    case EV_FILE:
      ps_vt_result_file(ctx, &c->set, c->iPart);
      return SQLITE_OK;
    case EV_SOURCE: case EV_FORMAT: sqlite3_result_null(ctx); return SQLITE_OK;
    case EV_ARGS:     lazy = PS_COL_ARGS; break;
    case EV_TTS:      lazy = PS_COL_TTS; break;
    case EV_TDUR:     lazy = PS_COL_TDUR; break;
    case EV_ASYNC_ID: lazy = PS_COL_ASYNC_ID; break;
    case EV_SCOPE:    lazy = PS_COL_SCOPE; break;
    case EV_FLOW_ID:  lazy = PS_COL_FLOW_ID; break;
    case EV_FLOW_IN:  lazy = PS_COL_FLOW_IN; break;
    case EV_FLOW_OUT: lazy = PS_COL_FLOW_OUT; break;
    case EV_DISPLAY_NAME: lazy = PS_COL_DISPLAY_NAME; break;
    case EV_OFFSET_PS:    lazy = PS_COL_OFFSET_PS; break;
    case EV_DURATION_PS:  lazy = PS_COL_DURATION_PS; break;
    case EV_NUM_OCC:      lazy = PS_COL_NUM_OCC; break;
    default: sqlite3_result_null(ctx); return SQLITE_OK;
  }
  PsOut o;
  memset(&o, 0, sizeof(o));
  if( cap->pFormat->xColumn==0 ){ sqlite3_result_null(ctx); return SQLITE_OK; }
  if( cap->pFormat->xColumn(cap, r, lazy, &o)!=PS_OK ){
    sqlite3_result_error_nomem(ctx);
    return SQLITE_NOMEM;
  }
  ps_vt_result(ctx, &o);
  return SQLITE_OK;
}

static int evRowid(sqlite3_vtab_cursor *cur, sqlite_int64 *pRowid){
  EvCursor *c = (EvCursor*)cur;
  *pRowid = ((sqlite_int64)c->iPart << 40) | c->iRow;
  return SQLITE_OK;
}

PS_VT_CHECKED(ev, EvCursor, "profile_events", c->iPart)   /* merged scans set iPart per row too */

static sqlite3_module evModule = {
  /* iVersion    */ 0,
  /* xCreate     */ 0,              /* eponymous-only: a table-valued function */
  /* xConnect    */ evConnect,
  /* xBestIndex  */ evBestIndex,
  /* xDisconnect */ ps_vt_disconnect,
  /* xDestroy    */ 0,
  /* xOpen       */ evOpen,
  /* xClose      */ evClose,
  /* xFilter     */ evFilter,
  /* xNext       */ evNextChecked,
  /* xEof        */ evEof,
  /* xColumn     */ evColumnChecked,
  /* xRowid      */ evRowid,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
};

int ps_events_register(sqlite3 *db, PsConn *pConn){
  pConn->nRef++;
  return sqlite3_create_module_v2(db, "profile_events", &evModule, pConn, ps_conn_release);
}
