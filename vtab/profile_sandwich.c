/*
** profile_sandwich.c — profile_sandwich(source, function [, options_json]): the callers and the
** callees of one function, every occurrence of it merged, as speedscope's sandwich view shows
** them (docs/profile_sandwich.md). The source is any profile_events source; what counts is what
** profile_diff counts (ext/model/forest.h): a sampled call tree, else the nesting of the
** threads' slices (or of the async spans, "async": true), else the records.
**
** Rows (times in ns; a sampled capture without time gives summed sample weights):
**   direction  'caller' or 'callee'
**   depth      frames from the function: 0 the function itself (a row in each direction), 1 its
**              direct callers / callees, ...
**   path       the function, then the frames away from it joined by ';': 'f;g;h' is h called by
**              g called by f (callees), or f called by g called by h (callers)
**   self_ns    callees: the frame's own self time; callers, and the depth-0 rows: the function's
**              self time under that chain, its nested occurrences' included
**   total_ns   callees: the frame's inclusive time; callers: the function's inclusive time under
**              that chain (of its outermost occurrences)
**   count      calls (slices, records' Count: of the outermost occurrences for the callers) or
**              samples (sampled stacks) of that row
** The function's occurrences are merged from its outermost ones: an occurrence inside another
** (recursion) is part of the outer one's callees and adds nothing to the callers, so a sample is
** counted once however deep the function recurses on it. Rows: callers, then callees, each by
** depth, then total_ns descending, then by the row they hang under and their label.
** Options: "async": true (async spans instead of the threads' slices), "max_depth": N (rows up
** to N frames from the function; default 1000). Errors: a function no frame, slice or record of
** the source has; the paths' text beyond 256 MiB (a tree too deep and wide: lower max_depth).
** Work is linear in the nodes of the source and in the rows made. Interruptible.
*/
#include "ps_vtab.h"
#include "../ext/model/forest.h"
SQLITE_EXTENSION_INIT3

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SW_TEXT_BUDGET ((size_t)256 << 20)

/* A row: a node of the callers' or the callees' tree, merged by its label under its parent. */
typedef struct SwRow {
  int32_t parent;             /* -1: the function itself */
  uint32_t label;             /* the label's id in SwTab.lab */
  uint8_t bCaller;
  int32_t depth;
  int64_t self, total, count;
  uint64_t h;                 /* hash of (parent, label, direction) */
} SwRow;

typedef struct SwTab {
  SwRow *a; size_t n, nAlloc;
  uint32_t *aSlot; size_t nSlot;
  PsPool lab;                 /* the labels, interned (capture.h); zeroed until the first */
} SwTab;

/* Room for one more row in the rows' slot table (at most half full), rehashed when it grows. */
static int sw_grow_slots(SwTab *t){
  if( t->nSlot && (t->n + 1) * 2 <= t->nSlot ) return 0;
  size_t nNew = t->nSlot ? t->nSlot * 2 : 1024;
  uint32_t *aNew = ps_calloc(nNew, sizeof(uint32_t));
  if( aNew==0 ) return 1;
  for(size_t k=0; k<t->n; k++){
    size_t i = (size_t)t->a[k].h & (nNew-1);
    while( aNew[i] ) i = (i+1) & (nNew-1);
    aNew[i] = (uint32_t)(k+1);
  }
  ps_free(t->aSlot); t->aSlot = aNew; t->nSlot = nNew;
  return 0;
}

/* The id of label z[0..n), interned; -1 when out of memory. */
static int64_t sw_label(SwTab *t, const char *z, size_t n){
  if( t->lab.a==0 && ps_pool_init(&t->lab) ) return -1;
  int bNew = 0;
  uint32_t id = ps_pool_intern(&t->lab, z, n, &bNew);
  return id ? (int64_t)id : -1;
}

/* The row under parent (-1: a root) with label, in the callers' tree (bCaller) or the callees';
** made when new. -1 when out of memory. */
static int64_t sw_row(SwTab *t, int32_t parent, uint32_t label, int bCaller){
  uint64_t h = ps_hash_pair(ps_hash_pair((uint64_t)(int64_t)parent, label), (uint64_t)bCaller);
  if( sw_grow_slots(t) ) return -1;
  size_t i = (size_t)h & (t->nSlot-1);
  while( t->aSlot[i] ){
    const SwRow *x = &t->a[t->aSlot[i]-1];
    if( x->h==h && x->parent==parent && x->label==label && x->bCaller==bCaller ) return t->aSlot[i]-1;
    i = (i+1) & (t->nSlot-1);
  }
  if( t->n >= UINT32_MAX-1 || ps_grow((void**)&t->a, sizeof(SwRow), &t->nAlloc, t->n+1) ) return -1;
  SwRow *x = &t->a[t->n];
  memset(x, 0, sizeof(*x));
  x->parent = parent; x->label = label; x->bCaller = (uint8_t)bCaller; x->h = h;
  x->depth = parent<0 ? 0 : t->a[parent].depth + 1;
  t->aSlot[i] = (uint32_t)(t->n + 1);
  return (int64_t)t->n++;
}

static void sw_tab_free(SwTab *t){
  ps_free(t->a); ps_free(t->aSlot);
  if( t->lab.a ) ps_pool_free(&t->lab);
  memset(t, 0, sizeof(*t));
}

typedef struct SwCursor {
  sqlite3_vtab_cursor base;
  SwTab t;
  PsSet set;
  uint32_t *aOrder; size_t n, i;
  int bAsync, nMaxDepth;
  int bFound;
} SwCursor;

static int sw_poll(void *p){ return ps_poll_interrupt((PsPoll*)p); }

/* One file: the function's outermost occurrences, their callers and callees into the rows. */
static int sw_part(SwCursor *c, PsPoll *pPoll, PsCapture *cap, const char *zFn, size_t nFn, char **pzErr){
  PsOccur oc;
  int rc = SQLITE_OK;
  int32_t *aRow = 0; int64_t *aSubCnt = 0, *aFSelf = 0;
  char buf[4096];
  int rcO = ps_forest_occurrences(cap, c->bAsync, zFn, nFn, &oc, sw_poll, pPoll);
  if( rcO ){ rc = rcO==PS_INTERRUPT ? SQLITE_INTERRUPT : SQLITE_NOMEM; goto done; }
  if( !oc.bAny ) goto done;
  c->bFound = 1;
  PsForest f = oc.f;
  const int32_t *aKey = oc.aKey, *aOrder = oc.aOrder;
  const uint8_t *aTop = oc.aTop;
  const size_t n = f.n, nA = n ? n : 1, nOrder = oc.nOrder;
  aRow = ps_malloc(sizeof(int32_t) * nA); aSubCnt = ps_malloc(sizeof(int64_t) * nA);
  aFSelf = ps_calloc(nA, sizeof(int64_t));
  if( !aRow || !aSubCnt || !aFSelf ){ rc = SQLITE_NOMEM; goto done; }
  /* sampled stacks: inclusive time and count over the subtree; else a node's own (a slice's
  ** duration and 1, a record's time and Count) */
  int bSub = f.eKind==PS_FOREST_SAMPLES;
  if( bSub ) ps_forest_subtree(&f, aOrder, nOrder, aSubCnt);   /* (f shares oc.f's nodes) */
  else for(size_t i=0; i<n; i++) aSubCnt[i] = f.a[i].cnt;
  /* per node, the function's self time in its subtree, nested occurrences included (the
  ** depth-0 rows and the callers' rows) */
  for(size_t i=0; i<n; i++) if( aKey[i]==0 ) aFSelf[i] = f.a[i].self;
  for(size_t k=nOrder; k-- > 0; ){
    int32_t i = aOrder[k], p = f.a[i].parent;
    if( p>=0 ) aFSelf[p] = ps_add_sat(aFSelf[p], aFSelf[i]);
  }
  int64_t lFn = sw_label(&c->t, zFn, nFn);
  if( lFn<0 ){ rc = SQLITE_NOMEM; goto done; }
  size_t nSteps = 0;
  /* the callees: the subtree of each outermost occurrence, merged by path from the function (a
  ** node's row is its parent's row's child of its label: one step per node) */
  for(size_t i=0; i<n; i++) aRow[i] = -1;
  for(size_t k=0; k<nOrder && rc==SQLITE_OK; k++){
    int32_t i = aOrder[k], p = f.a[i].parent;
    int32_t pr = -1;                                 /* an outermost occurrence: the root row */
    if( !aTop[i] ){
      if( p<0 || aRow[p]<0 ) continue;               /* not under an occurrence */
      pr = aRow[p];
    }
    if( !ps_forest_in_kind(&f, (size_t)i) ) continue;
    if( pr>=0 && c->t.a[pr].depth >= c->nMaxDepth ) continue;
    int64_t l = lFn;
    if( !aTop[i] ){
      size_t nz; const char *z = ps_forest_label(cap, &f, (size_t)i, PS_FOREST_NAME, buf, sizeof(buf), &nz);
      l = sw_label(&c->t, z, nz);
    }
    int64_t r = l<0 ? -1 : sw_row(&c->t, pr, (uint32_t)l, 0);
    if( r<0 ){ rc = SQLITE_NOMEM; break; }
    aRow[i] = (int32_t)r;
    SwRow *x = &c->t.a[r];
    x->self = ps_add_sat(x->self, aTop[i] ? aFSelf[i] : f.a[i].self);
    x->total = ps_add_sat(x->total, f.a[i].tot);
    x->count = ps_add_sat(x->count, aSubCnt[i]);
    if( (++nSteps & 0xffff)==0 && sw_poll(pPoll) ){ rc = SQLITE_INTERRUPT; break; }
  }
  /* the callers: from each outermost occurrence up its ancestors, each step a row under the last */
  for(size_t k=0; k<nOrder && rc==SQLITE_OK; k++){
    int32_t i = aOrder[k];
    if( !aTop[i] ) continue;
    int64_t r = sw_row(&c->t, -1, (uint32_t)lFn, 1);
    if( r<0 ){ rc = SQLITE_NOMEM; break; }
    int64_t tot = f.a[i].tot, self = aFSelf[i], cnt = aSubCnt[i];
    for(;;){
      SwRow *x = &c->t.a[r];
      x->self = ps_add_sat(x->self, self); x->total = ps_add_sat(x->total, tot); x->count = ps_add_sat(x->count, cnt);
      if( x->depth >= c->nMaxDepth ) break;
      int32_t p = oc.aUp[i];                         /* (its nearest caller of the kind) */
      if( p<0 ) break;
      i = p;
      size_t nz; const char *z = ps_forest_label(cap, &f, (size_t)i, PS_FOREST_NAME, buf, sizeof(buf), &nz);
      int64_t l = sw_label(&c->t, z, nz);
      int32_t pr = (int32_t)r;
      r = l<0 ? -1 : sw_row(&c->t, pr, (uint32_t)l, 1);
      if( r<0 ){ rc = SQLITE_NOMEM; break; }
      if( (++nSteps & 0xffff)==0 && sw_poll(pPoll) ){ rc = SQLITE_INTERRUPT; break; }
      if( nSteps > ((size_t)64 << 20) ){
        *pzErr = sqlite3_mprintf("profile_sandwich: the callers of '%s' take more than %d million steps (many "
                                 "occurrences deep in a tall tree): pass a lower \"max_depth\"", zFn, 64);
        rc = SQLITE_ERROR; break;
      }
    }
  }
done:
  ps_occur_free(&oc);
  ps_free(aRow); ps_free(aSubCnt); ps_free(aFSelf);
  return rc;
}

static int swConnect(sqlite3 *db, void *pAux, int argc, const char *const *argv, sqlite3_vtab **ppVtab, char **pzErr){
  (void)argc; (void)argv; (void)pzErr;
  return ps_vt_connect(db, pAux,
    "CREATE TABLE x(direction TEXT, depth INTEGER, path TEXT, self_ns INTEGER, total_ns INTEGER, count INTEGER, "
    "source HIDDEN, function HIDDEN, options HIDDEN)", ppVtab);
}

static int swOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCur){
  (void)pVtab;
  return ps_vt_open(sizeof(SwCursor), ppCur);
}

static void sw_reset(SwCursor *c){
  sw_tab_free(&c->t);
  ps_free(c->aOrder); c->aOrder = 0; c->n = c->i = 0;
  ps_set_clear(&c->set);
  c->bFound = 0;
}

static int swClose(sqlite3_vtab_cursor *cur){
  SwCursor *c = (SwCursor*)cur;
  sw_reset(c);
  sqlite3_free(c);
  return SQLITE_OK;
}

static int swBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo){
  (void)pVtab;
  static const int aCol[3] = { 6, 7, 8 };
  int m = ps_vt_eq_constraints(pInfo, aCol, 3);
  if( m<0 ) return SQLITE_CONSTRAINT;
  pInfo->idxNum = m;
  pInfo->estimatedCost = 1e5;
  return SQLITE_OK;
}


/* A row to sort: callers first, then by depth, total_ns descending, the row it hangs under and its
** label. */
typedef struct SwSort { int bCaller; int32_t depth, parent; int64_t total; const char *z; uint32_t n, k; } SwSort;
static int sw_cmp(const void *a, const void *b){
  const SwSort *x = a, *y = b;
  if( x->bCaller!=y->bCaller ) return x->bCaller ? -1 : 1;
  if( x->depth!=y->depth ) return x->depth < y->depth ? -1 : 1;
  if( x->total!=y->total ) return x->total > y->total ? -1 : 1;
  if( x->parent!=y->parent ) return x->parent < y->parent ? -1 : 1;
  int r = memcmp(x->z, y->z, x->n < y->n ? x->n : y->n);
  return r ? r : (x->n < y->n ? -1 : x->n > y->n);
}

static int swFilter(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr, int argc, sqlite3_value **argv){
  SwCursor *c = (SwCursor*)cur;
  (void)idxStr; (void)argc;
  sqlite3 *db = ((PsVtab*)cur->pVtab)->pConn->db;
  sw_reset(c);
  if( (idxNum & 3)!=3 ){
    return ps_vt_error(cur->pVtab, sqlite3_mprintf("profile_sandwich: expected (source, function [, options_json])"), SQLITE_ERROR);
  }
  const char *zFn = (const char*)sqlite3_value_text(argv[1]);
  if( zFn==0 ) return ps_vt_error(cur->pVtab, sqlite3_mprintf("profile_sandwich: the function must be a name (TEXT)"), SQLITE_ERROR);
  size_t nFn = (size_t)sqlite3_value_bytes(argv[1]);
  c->bAsync = 0; c->nMaxDepth = 1000;
  if( idxNum & 4 ){
    sqlite3_stmt *st = 0;
    int ok = sqlite3_prepare_v2(db, "SELECT json_valid(?1) AND json_type(?1)='object', "
                                "(SELECT group_concat(key) FROM json_each(?1) WHERE key NOT IN ('async','max_depth')), "
                                "json_type(?1,'$.async'), json_extract(?1,'$.async'), json_type(?1,'$.max_depth'), "
                                "json_extract(?1,'$.max_depth')", -1, &st, 0)==SQLITE_OK;
    char *zErr = 0;
    if( ok ){
      sqlite3_bind_value(st, 1, argv[2]);
      ok = sqlite3_step(st)==SQLITE_ROW;
    }
    if( ok && !sqlite3_column_int(st, 0) ) zErr = sqlite3_mprintf("profile_sandwich: options_json must be a JSON object");
    else if( ok && sqlite3_column_text(st, 1) ){
      zErr = sqlite3_mprintf("profile_sandwich: unknown option \"%s\" (known: async, max_depth)", sqlite3_column_text(st, 1));
    }else if( ok ){
      const char *zA = (const char*)sqlite3_column_text(st, 2), *zD = (const char*)sqlite3_column_text(st, 4);
      if( zA && strcmp(zA, "true") && strcmp(zA, "false") ) zErr = sqlite3_mprintf("profile_sandwich: option \"async\" must be true or false");
      else if( zD && (strcmp(zD, "integer") || sqlite3_column_int64(st, 5) < 0) ){
        zErr = sqlite3_mprintf("profile_sandwich: option \"max_depth\" must be an integer >= 0");
      }else{
        c->bAsync = zA && strcmp(zA, "true")==0;
        if( zD ) c->nMaxDepth = sqlite3_column_int64(st, 5) > 1000000 ? 1000000 : (int)sqlite3_column_int64(st, 5);
      }
    }
    sqlite3_finalize(st);
    if( !ok ) return SQLITE_NOMEM;
    if( zErr ) return ps_vt_error(cur->pVtab, zErr, SQLITE_ERROR);
  }
  PsPoll poll = { db, 0 };
  char *zErr = 0;
  int rc = ps_vt_filter_set(cur->pVtab, "profile_sandwich", argv[0], 0, 0, 1, &c->set);
  for(int iPart=0; rc==SQLITE_OK && iPart < c->set.nPart; iPart++){
    PsCapture *cap = 0;
    rc = ps_set_use(cur->pVtab, &c->set, &iPart, &cap);
    if( rc || cap==0 ) break;
    rc = sw_part(c, &poll, cap, zFn, nFn, &zErr);
  }
  sqlite3_finalize(poll.st);
  ps_set_clear(&c->set);
  if( rc==SQLITE_INTERRUPT && zErr==0 ) zErr = sqlite3_mprintf("profile_sandwich: interrupted");
  if( zErr ) return ps_vt_error(cur->pVtab, zErr, rc ? rc : SQLITE_ERROR);
  if( rc ) return rc;
  if( !c->bFound ){
    return ps_vt_error(cur->pVtab, sqlite3_mprintf("profile_sandwich: no frame, slice or record of the source is named '%s' "
                                         "(names as profile_diff's keys give them)", zFn), SQLITE_ERROR);
  }
  c->aOrder = ps_malloc(sizeof(uint32_t) * (c->t.n ? c->t.n : 1));
  if( c->aOrder==0 ) return SQLITE_NOMEM;
  SwSort *aSort = ps_malloc(sizeof(SwSort) * (c->t.n ? c->t.n : 1));
  if( aSort==0 ) return SQLITE_NOMEM;
  for(size_t k=0; k<c->t.n; k++){
    const SwRow *x = &c->t.a[k];
    SwSort *o = &aSort[k];
    o->bCaller = x->bCaller; o->depth = x->depth; o->parent = x->parent; o->total = x->total;
    PsStr l = ps_pool_get(&c->t.lab, x->label);
    o->z = l.z; o->n = l.n; o->k = (uint32_t)k;
  }
  qsort(aSort, c->t.n, sizeof(SwSort), sw_cmp);
  for(size_t k=0; k<c->t.n; k++) c->aOrder[k] = aSort[k].k;
  ps_free(aSort);
  c->n = c->t.n;
  c->i = 0;
  return SQLITE_OK;
}

static int swNext(sqlite3_vtab_cursor *cur){ ((SwCursor*)cur)->i++; return SQLITE_OK; }
static int swEof(sqlite3_vtab_cursor *cur){ SwCursor *c = (SwCursor*)cur; return c->i >= c->n; }

/* The bytes of row k's path, its terminator included. */
static size_t sw_path_len(const SwTab *t, uint32_t k){
  size_t n = 0;
  for(int64_t r=k; r>=0; r=t->a[r].parent) n += ps_pool_get(&t->lab, t->a[r].label).n + 1;
  return n;
}

/* Row k's path: its chain of labels from the function, joined by ';' (sqlite3_malloc'ed); NULL out
** of memory or longer than SW_TEXT_BUDGET. */
static char *sw_path(const SwTab *t, uint32_t k){
  size_t n = sw_path_len(t, k);
  if( n > SW_TEXT_BUDGET ) return 0;
  char *z = sqlite3_malloc64(n ? n : 1);
  if( z==0 ) return 0;
  size_t e = n - 1;
  z[e] = 0;
  for(int64_t r=k; r>=0; r=t->a[r].parent){
    PsStr l = ps_pool_get(&t->lab, t->a[r].label);
    e -= l.n;
    memcpy(z + e, l.z, l.n);
    if( t->a[r].parent>=0 ) z[--e] = ';';
  }
  return z;
}

static int swColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int iCol){
  SwCursor *c = (SwCursor*)cur;
  uint32_t k = c->aOrder[c->i];
  const SwRow *x = &c->t.a[k];
  switch( iCol ){
    case 0: sqlite3_result_text(ctx, x->bCaller ? "caller" : "callee", -1, SQLITE_STATIC); break;
    case 1: sqlite3_result_int(ctx, x->depth); break;
    case 2: {
      char *z = sw_path(&c->t, k);
      if( z==0 && sw_path_len(&c->t, k) > SW_TEXT_BUDGET ){
        sqlite3_result_error(ctx, "profile_sandwich: a path longer than 256 MiB (a tree too deep): pass a lower \"max_depth\"", -1);
        break;
      }
      if( z==0 ){ sqlite3_result_error_nomem(ctx); break; }
      sqlite3_result_text(ctx, z, -1, sqlite3_free);
      break;
    }
    case 3: sqlite3_result_int64(ctx, x->self); break;
    case 4: sqlite3_result_int64(ctx, x->total); break;
    case 5: sqlite3_result_int64(ctx, x->count); break;
    default: break;
  }
  return SQLITE_OK;
}

static int swRowid(sqlite3_vtab_cursor *cur, sqlite_int64 *pRowid){
  *pRowid = (sqlite_int64)((SwCursor*)cur)->i;
  return SQLITE_OK;
}

static sqlite3_module swModule = { 0, 0, swConnect, swBestIndex, ps_vt_disconnect, 0, swOpen, swClose, swFilter,
                                   swNext, swEof, swColumn, swRowid, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };

int ps_sandwich_register(sqlite3 *db, PsConn *pConn){
  pConn->nRef++;
  return sqlite3_create_module_v2(db, "profile_sandwich", &swModule, pConn, ps_conn_release);
}
