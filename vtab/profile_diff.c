/*
** profile_diff.c — profile_diff(baseline, test [, options_json]): two captures side by side, one
** row per key (docs/profile_diff.md). Either side is any source profile_events takes (a file, a
** BLOB, a directory or a glob: a glob is one side, summed over its files), of any format; the
** two need only share a key.
**
** Columns (times in ns: a sampled capture without time gives its summed sample weights):
**   key            the key: the event's name ('name', the default), its category ('category'),
**                  its thread ('thread': "process / thread" as the flame graph names it), the
**                  names from the root joined by ';' ('path': a slice's or a record's parents, a
**                  call-tree node's frames), or a sample's root-to-leaf frames ('stack')
**   base_count, test_count   occurrences: slices or records (their Count for timings); for
**                  sampled stacks the samples with the key on their stack, once per sample
**   base_ns, test_ns         inclusive time: of the outermost occurrences only, so a key that
**                  recurses (a slice inside a slice of the same name, a;b;a) is counted once
**   base_self_ns, test_self_ns  self time: a slice's duration less its child slices', a
**                  record's self time, the samples whose leaf the frame is
**   delta_ns       test_ns - base_ns; with "normalize": test_ns - base_ns * T_test / T_base
**                  (T a side's total self time: base_ns scaled to the test's total)
**   ratio          test_ns / base_ns (with "normalize": of the shares), NULL when base_ns is 0
**   base_share, test_share   self time as a % of the side's total self time
**   change         by count, as HTA's TraceDiff: 'added' (only in the test), 'deleted' (only
**                  in the baseline), 'increased', 'decreased', 'unchanged'
** Rows come in the order of abs(delta_ns) descending, then key.
**
** What counts on a side, per file: sampled stacks (sample rows with a stack) when the file has
** them; else complete slices (a duration: X, B/E ...) on threads' own tracks (a thread's work;
** with "async": true the async spans on their tracks instead, never the two added together); else
** records (timings, xprof tool results): time_ns, self_ns and Count. Nodes that no root reaches
** (a parent cycle) are not counted.
**
** Options (JSON object): "by" (above); "where": an SQL expression over profile_events' columns,
** applied to both sides (the rows of `SELECT rowid FROM profile_events(side) WHERE (where)`;
** one expression: balanced parentheses, no ';'); "step": only the rows within the time window of
** the first slice of that name (ProfilerStep#1010) of each file, on every thread of its process
** (a side none of whose files has it is an error); "normalize": true compares shares; "async":
** true compares async spans.
** Errors name the side ("profile_diff: baseline: ...") and the reason. Work is linear in the rows
** of both sides; 'path' and 'stack' keys are text whose total is capped at 256 MiB a side (a
** call tree too deep for them is an error that says so). Interruptible (sqlite3_interrupt).
*/
#include "ps_vtab.h"
#include "../ext/model/forest.h"
#include "../ext/model/tracks.h"
SQLITE_EXTENSION_INIT3

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DF_BY_NAME     0
#define DF_BY_CATEGORY 1
#define DF_BY_THREAD   2
#define DF_BY_PATH     3
#define DF_BY_STACK    4
static const char *const azBy[] = { "name", "category", "thread", "path", "stack", 0 };

#define DF_KEY_BUDGET ((size_t)256 << 20)   /* bytes of path / stack key text a side may build */

/* A key's figures on both sides ([0] baseline, [1] test). */
typedef struct DfKey {
  int64_t count[2], ns[2], self[2];
} DfKey;

/* The keys, interned in a string pool (capture.h: its id is the key's index; id 0 unused), and
** their figures, a[id]. */
typedef struct DfMap {
  PsPool pool;                /* zeroed until the first key */
  DfKey *a; size_t nAlloc;
} DfMap;

/* The index of key z[0..n) (added when new), or -1 when out of memory. */
static int64_t df_key(DfMap *m, const char *z, size_t n){
  if( m->pool.a==0 && ps_pool_init(&m->pool) ) return -1;
  int bNew = 0;
  uint32_t id = ps_pool_intern(&m->pool, z, n, &bNew);
  if( id==0 ) return -1;
  if( (size_t)id >= m->nAlloc ){
    size_t nOld = m->nAlloc;
    if( ps_grow((void**)&m->a, sizeof(DfKey), &m->nAlloc, (size_t)id+1) ) return -1;
    memset(m->a + nOld, 0, (m->nAlloc - nOld)*sizeof(DfKey));
  }
  return id;
}

static void df_map_free(DfMap *m){
  if( m->pool.a ) ps_pool_free(&m->pool);
  ps_free(m->a);
  memset(m, 0, sizeof(*m));
}

/* The options of one call. */
typedef struct DfOpt {
  int eBy;
  int bNormalize;
  int bAsync;                 /* compare the async spans instead of the threads' slices */
  char *zWhere;               /* sqlite3_malloc'ed, or NULL */
  char *zStep;                /* sqlite3_malloc'ed, or NULL */
} DfOpt;

/* One side being read: the map, the side (0, 1), its name for messages, the rows selected by
** "where" (rowids ascending: part << 40 | row), and what was found. */
typedef struct DfSide {
  DfMap *m;
  int iSide;
  const char *zSide;
  const DfOpt *o;
  sqlite3_int64 *aSel; size_t nSel, iSel, nSelAlloc;   /* where: the current part's selected ids, the next one to use */
  int bAnyStep;               /* a file of the side had the step slice */
  const PsCapture *cap;       /* the part being read, its index, its step window and process */
  int iPart;
  int64_t t0, t1;
  const PsValue *pStepPid;
  PsPoll poll;
  char *zErr;                 /* sqlite3_malloc'ed */
} DfSide;


/* Whether row r of the current part is selected by "where" (its ids, ascending, in aSel). */
static int df_where(DfSide *s, size_t r){
  if( s->o->zWhere==0 ) return 1;
  sqlite3_int64 id = (sqlite3_int64)r;
  while( s->iSel < s->nSel && s->aSel[s->iSel] < id ) s->iSel++;
  return s->iSel < s->nSel && s->aSel[s->iSel]==id;
}

/* Two PsValues equal (pids of threads). */
static int df_value_eq(const PsCapture *cap, const PsValue *a, const PsValue *b){
  if( a->type!=b->type ) return 0;
  if( a->type==PS_VAL_INT ) return a->i==b->i;
  if( a->type==PS_VAL_TEXT ){
    PsStr x = ps_pool_get(&cap->pool, a->s), y = ps_pool_get(&cap->pool, b->s);
    return x.n==y.n && memcmp(x.z, y.z, x.n)==0;
  }
  return a->type==PS_VAL_NULL;
}

/* What ps_forest_build asks of each row: "where" and the step window (DfSide.iPart, t0, t1,
** pStepPid of the part being read). */
static int df_row_ok(void *pArg, size_t r){
  DfSide *s = (DfSide*)pArg;
  const PsCapture *cap = s->cap;
  if( !df_where(s, r) ) return 0;
  if( s->o->zStep==0 ) return 1;
  if( cap->ev.aTs[r] < s->t0 || cap->ev.aTs[r] >= s->t1 ) return 0;
  return s->pStepPid==0 || (cap->ev.aThread[r] < cap->nThread
                            && df_value_eq(cap, &cap->aThread[cap->ev.aThread[r]].pid, s->pStepPid));
}

static int df_poll(void *pArg){ return ps_poll_interrupt(&((DfSide*)pArg)->poll); }

/* One file of a side: its sampled stacks, else its slices, else its records (ext/model/forest.h),
** counted into the side's map (the header says what each key gives). */
static int df_part(DfSide *s, PsCapture *cap, int iPart, const char *zFile){
  const DfOpt *o = s->o;
  const PsModel *pm = ps_capture_model(cap);
  if( pm==0 ) return SQLITE_NOMEM;
  const size_t nEv = cap->ev.n;
  const char *zF = zFile ? zFile : "BLOB";
  s->cap = cap; s->iPart = iPart;
  s->t0 = INT64_MIN; s->t1 = INT64_MAX; s->pStepPid = 0;
  if( o->zStep ){                          /* the step window: the first slice so named, its process */
    size_t nStep = strlen(o->zStep), r;
    for(r=0; r<nEv; r++){
      if( cap->ev.aDur[r]==PS_NULL64 || ps_row_kind_code(cap, pm, r)!=PS_RK_SLICE ) continue;
      PsStr nm = ps_pool_get(&cap->pool, cap->ev.aName[r]);
      if( nm.n==nStep && memcmp(nm.z, o->zStep, nStep)==0 ) break;
    }
    if( r==nEv ) return SQLITE_OK;         /* this file has no such step: nothing of it counts */
    s->bAnyStep = 1;
    s->t0 = cap->ev.aTs[r]; s->t1 = ps_add_sat(s->t0, cap->ev.aDur[r]);
    if( cap->ev.aThread[r] < cap->nThread ) s->pStepPid = &cap->aThread[cap->ev.aThread[r]].pid;
  }
  int rc = SQLITE_OK;
  char buf[4096];
  PsForest f;
  int32_t *aKey = 0, *aOrder = 0; uint8_t *aTop = 0; int64_t *aSubCnt = 0; size_t nOrder = 0;
  size_t *aOff = 0; uint32_t *aLen = 0;
  PsBuf t; memset(&t, 0, sizeof(t));
  int bFilter = o->zWhere || o->zStep;
  if( ps_forest_build(cap, o->bAsync, bFilter ? df_row_ok : 0, s, &f) ){ rc = SQLITE_NOMEM; goto done; }
  if( f.eKind==PS_FOREST_NONE ) goto done;
  if( o->eBy==DF_BY_STACK && f.eKind!=PS_FOREST_SAMPLES ){
    s->zErr = sqlite3_mprintf("profile_diff: %s: '%s' has no sampled stacks to compare by 'stack' (use 'path' "
                              "for slices and records)", s->zSide, zF);
    rc = SQLITE_ERROR; goto done;
  }
  if( f.eKind==PS_FOREST_RECORDS && bFilter ){
    s->zErr = sqlite3_mprintf("profile_diff: %s: '%s' has records only (no events): \"where\" and \"step\" apply "
                              "to profile_events' rows", s->zSide, zF);
    rc = SQLITE_ERROR; goto done;
  }
  if( f.eKind==PS_FOREST_SAMPLES && o->eBy==DF_BY_THREAD ){
    /* samples by thread: each sample's weight (or time) to its thread, self and inclusive alike */
    s->iSel = 0;
    for(size_t r=0; r<nEv && rc==SQLITE_OK; r++){
      if( f.aRow[r]!=1 || (bFilter && !df_row_ok(s, r)) ) continue;
      ps_thread_label(cap, cap->ev.aThread[r], buf, sizeof(buf));
      int64_t k = df_key(s->m, buf, strlen(buf));
      if( k<0 ){ rc = SQLITE_NOMEM; break; }
      int64_t w = cap->ev.aWeight ? cap->ev.aWeight[r] : 1;
      int64_t tm = f.bTime ? (cap->ev.aDur[r]==PS_NULL64 ? 0 : cap->ev.aDur[r]) : w;
      DfKey *e = &s->m->a[k];
      int j = s->iSide;
      e->count[j] = ps_add_sat(e->count[j], w); e->ns[j] = ps_add_sat(e->ns[j], tm); e->self[j] = ps_add_sat(e->self[j], tm);
    }
    goto done;
  }
  const size_t n = f.n, nA = n ? n : 1;
  const int bPath = o->eBy==DF_BY_PATH || o->eBy==DF_BY_STACK;
  const int eLabel = o->eBy==DF_BY_CATEGORY ? PS_FOREST_CATEGORY : o->eBy==DF_BY_THREAD ? PS_FOREST_THREAD : PS_FOREST_NAME;
  aKey = ps_malloc(sizeof(int32_t) * nA);
  aOrder = ps_malloc(sizeof(int32_t) * nA);
  aTop = ps_calloc(nA, 1);
  aSubCnt = ps_malloc(sizeof(int64_t) * nA);
  if( bPath ){ aOff = ps_malloc(sizeof(size_t) * nA); aLen = ps_malloc(sizeof(uint32_t) * nA); }
  if( !aKey || !aOrder || !aTop || !aSubCnt || (bPath && (!aOff || !aLen)) ){ rc = SQLITE_NOMEM; goto done; }
  /* the keys: a counted node's own label; or (path, stack) its parent's path, ';' and its label,
  ** made in pre-order (a parent's path before its children's) */
  for(size_t i=0; i<n && rc==SQLITE_OK; i++){
    aKey[i] = -1;
    if( bPath || !f.a[i].bCounted ) continue;
    size_t nz; const char *z = ps_forest_label(cap, &f, i, eLabel, buf, sizeof(buf), &nz);
    int64_t k = df_key(s->m, z, nz);
    if( k<0 ) rc = SQLITE_NOMEM; else aKey[i] = (int32_t)k;
  }
  if( rc==SQLITE_OK ){
    int rcW = ps_forest_walk(&f, bPath ? 0 : aKey, s->m->pool.n, aOrder, aTop, &nOrder, df_poll, s);
    if( rcW ) rc = rcW==PS_INTERRUPT ? SQLITE_INTERRUPT : SQLITE_NOMEM;
  }
  for(size_t k=0; bPath && k<nOrder && rc==SQLITE_OK; k++){
    int32_t i = aOrder[k], p = f.a[i].parent;
    aLen[i] = UINT32_MAX;
    if( f.eKind==PS_FOREST_SLICES && f.aRow[i]!=2 ) continue;   /* (a slice's path holds slices only) */
    size_t nz; const char *z = ps_forest_label(cap, &f, (size_t)i, eLabel, buf, sizeof(buf), &nz);
    size_t off = t.n;
    int bad = 0;
    if( p>=0 && aLen[p]!=UINT32_MAX ){
      if( ps_grow((void**)&t.z, 1, &t.nAlloc, t.n + aLen[p] + 1 + nz) ){ rc = SQLITE_NOMEM; break; }
      memmove(t.z + t.n, t.z + aOff[p], aLen[p]); t.n += aLen[p];
      bad |= ps_buf_append(&t, ";", 1);
    }
    bad |= ps_buf_append(&t, z, nz);
    if( bad ){ rc = SQLITE_NOMEM; break; }
    if( t.n > DF_KEY_BUDGET ){
      s->zErr = sqlite3_mprintf("profile_diff: %s: '%s': the '%s' keys need more than %d MiB of text (a call "
                                "tree this deep gives one long path per node); compare by 'name' instead",
                                s->zSide, zF, azBy[o->eBy], (int)(DF_KEY_BUDGET >> 20));
      rc = SQLITE_ERROR; break;
    }
    aOff[i] = off; aLen[i] = (uint32_t)(t.n - off);
    /* a stack is a frame with samples of its own; a path, any counted node */
    if( f.a[i].bCounted && (o->eBy==DF_BY_PATH || f.a[i].cnt>0) ){
      int64_t kk = df_key(s->m, t.z + off, aLen[i]);
      if( kk<0 ){ rc = SQLITE_NOMEM; break; }
      aKey[i] = (int32_t)kk;
      aTop[i] = 1;                         /* (a path never repeats along its own chain) */
    }
  }
  if( rc ) goto done;
  /* sampled stacks: a frame's inclusive time and count are its subtree's ('stack': its own) */
  int bSubtree = f.eKind==PS_FOREST_SAMPLES && o->eBy!=DF_BY_STACK;
  if( bSubtree ) ps_forest_subtree(&f, aOrder, nOrder, aSubCnt);
  for(size_t k=0; k<nOrder; k++){
    int32_t i = aOrder[k];
    const PsForestNode *x = &f.a[i];
    if( aKey[i]<0 ) continue;
    DfKey *e = &s->m->a[aKey[i]];
    int j = s->iSide;
    e->self[j] = ps_add_sat(e->self[j], x->self);
    if( bSubtree ){
      if( aTop[i] ){ e->ns[j] = ps_add_sat(e->ns[j], x->tot); e->count[j] = ps_add_sat(e->count[j], aSubCnt[i]); }
    }else{
      e->count[j] = ps_add_sat(e->count[j], x->cnt);
      if( aTop[i] ) e->ns[j] = ps_add_sat(e->ns[j], o->eBy==DF_BY_STACK ? x->self : x->tot);
    }
  }
done:
  ps_forest_free(&f);
  ps_free(aKey); ps_free(aOrder); ps_free(aTop); ps_free(aSubCnt); ps_free(aOff); ps_free(aLen); ps_buf_free(&t);
  return rc;
}

/* ------------------------------------------------------------------ the table */

typedef struct DfCursor {
  sqlite3_vtab_cursor base;
  DfMap m;
  DfOpt o;
  uint32_t *aOrder; size_t n, i;
  int64_t aTotal[2];          /* each side's total self time */
} DfCursor;

#define DF_COL_BASELINE 12
#define DF_COL_TEST     13
#define DF_COL_OPTIONS  14

static int dfConnect(sqlite3 *db, void *pAux, int argc, const char *const *argv, sqlite3_vtab **ppVtab, char **pzErr){
  (void)argc; (void)argv; (void)pzErr;
  return ps_vt_connect(db, pAux,
    "CREATE TABLE x(key TEXT, base_count INTEGER, test_count INTEGER, base_ns INTEGER, test_ns INTEGER, "
    "base_self_ns INTEGER, test_self_ns INTEGER, delta_ns, ratio REAL, base_share REAL, test_share REAL, "
    "change TEXT, baseline HIDDEN, test HIDDEN, options HIDDEN)", ppVtab);
}

static int dfOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCur){
  (void)pVtab;
  return ps_vt_open(sizeof(DfCursor), ppCur);
}

static void df_reset(DfCursor *c){
  df_map_free(&c->m);
  ps_free(c->aOrder); c->aOrder = 0; c->n = c->i = 0;
  sqlite3_free(c->o.zWhere); sqlite3_free(c->o.zStep);
  memset(&c->o, 0, sizeof(c->o));
}

static int dfClose(sqlite3_vtab_cursor *cur){
  DfCursor *c = (DfCursor*)cur;
  df_reset(c);
  sqlite3_free(c);
  return SQLITE_OK;
}

static int dfBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo){
  (void)pVtab;
  static const int aCol[3] = { DF_COL_BASELINE, DF_COL_TEST, DF_COL_OPTIONS };
  int m = ps_vt_eq_constraints(pInfo, aCol, 3);
  if( m<0 ) return SQLITE_CONSTRAINT;   /* (xFilter says which argument is missing) */
  pInfo->idxNum = m;
  pInfo->estimatedCost = 1e6;
  return SQLITE_OK;
}


/* Reads the options (a JSON object) into o. SQLITE_OK, or an error with *pzErr. */
static int df_options(sqlite3 *db, sqlite3_value *pOpt, DfOpt *o, char **pzErr){
  o->eBy = DF_BY_NAME;
  if( pOpt==0 || sqlite3_value_type(pOpt)==SQLITE_NULL ) return SQLITE_OK;
  sqlite3_stmt *st = 0;
  int rc = sqlite3_prepare_v2(db, "SELECT key, type, CASE WHEN type IN ('true','false') THEN type='true' ELSE value END "
                              "FROM json_each(?1) WHERE json_valid(?1) AND json_type(?1)='object'", -1, &st, 0);
  if( rc ) return rc;
  sqlite3_bind_value(st, 1, pOpt);
  int nKey = 0;
  while( rc==SQLITE_OK && sqlite3_step(st)==SQLITE_ROW ){
    nKey++;
    const char *zKey = (const char*)sqlite3_column_text(st, 0);
    const char *zType = (const char*)sqlite3_column_text(st, 1);
    const char *zVal = (const char*)sqlite3_column_text(st, 2);
    if( zKey==0 || zType==0 ){ rc = SQLITE_NOMEM; break; }
    if( strcmp(zKey, "by")==0 ){
      int k = 0;
      while( azBy[k] && !(strcmp(zType, "text")==0 && zVal && strcmp(azBy[k], zVal)==0) ) k++;
      if( azBy[k]==0 ){
        *pzErr = sqlite3_mprintf("profile_diff: option \"by\" must be one of 'name', 'category', 'thread', 'path', "
                                 "'stack' (got %s)", zVal ? zVal : "null");
        rc = SQLITE_ERROR;
      }
      o->eBy = k;
    }else if( strcmp(zKey, "where")==0 || strcmp(zKey, "step")==0 ){
      if( strcmp(zType, "text")!=0 || zVal==0 || zVal[0]==0 ){
        *pzErr = sqlite3_mprintf("profile_diff: option \"%s\" must be a non-empty string", zKey);
        rc = SQLITE_ERROR;
      }else if( zKey[0]=='w' ){
        /* one expression: no ';' and balanced parentheses outside quotes, so that it cannot close
        ** the "WHERE (" it is put in */
        int depth = 0, bad = 0;
        for(const char *p=zVal; *p && !bad; p++){
          if( *p=='\'' || *p=='"' || *p=='`' || *p=='[' ){
            char q = *p=='[' ? ']' : *p;
            for(p++; *p && *p!=q; p++){}
            if( *p==0 ){ bad = 1; break; }
          }else if( *p=='(' ) depth++;
          else if( *p==')' ){ if( --depth<0 ) bad = 1; }
          else if( *p==';' ) bad = 1;
          else if( p[0]=='-' && p[1]=='-' ) bad = 1;
          else if( p[0]=='/' && p[1]=='*' ) bad = 1;
        }
        if( bad || depth ){
          *pzErr = sqlite3_mprintf("profile_diff: option \"where\" must be one SQL expression over profile_events' "
                                   "columns (balanced parentheses and quotes, no ';' or comment): %s", zVal);
          rc = SQLITE_ERROR;
        }else if( (o->zWhere = sqlite3_mprintf("%s", zVal))==0 ) rc = SQLITE_NOMEM;
      }else if( (o->zStep = sqlite3_mprintf("%s", zVal))==0 ) rc = SQLITE_NOMEM;
    }else if( strcmp(zKey, "normalize")==0 || strcmp(zKey, "async")==0 ){
      if( strcmp(zType, "true")!=0 && strcmp(zType, "false")!=0 ){
        *pzErr = sqlite3_mprintf("profile_diff: option \"%s\" must be true or false", zKey);
        rc = SQLITE_ERROR;
      }
      if( zKey[0]=='n' ) o->bNormalize = strcmp(zType, "true")==0;
      else o->bAsync = strcmp(zType, "true")==0;
    }else{
      *pzErr = sqlite3_mprintf("profile_diff: unknown option \"%s\" (known: by, where, step, normalize, async)", zKey);
      rc = SQLITE_ERROR;
    }
  }
  sqlite3_finalize(st);
  if( rc==SQLITE_OK && nKey==0 && !(sqlite3_value_type(pOpt)==SQLITE_TEXT && strcmp((const char*)sqlite3_value_text(pOpt), "{}")==0) ){
    /* not an object (or an empty one written otherwise): say so */
    sqlite3_stmt *v = 0;
    int ok = 0;
    if( sqlite3_prepare_v2(db, "SELECT json_valid(?1) AND json_type(?1)='object'", -1, &v, 0)==SQLITE_OK ){
      sqlite3_bind_value(v, 1, pOpt);
      ok = sqlite3_step(v)==SQLITE_ROW && sqlite3_column_int(v, 0);
    }
    sqlite3_finalize(v);
    if( !ok ){ *pzErr = sqlite3_mprintf("profile_diff: options_json must be a JSON object"); rc = SQLITE_ERROR; }
  }
  return rc;
}

/* The ids of the rows of file zFile (NULL: a BLOB's one capture) that profile_events(source)
** gives under "where", ascending, into s->aSel. The file = constraint makes profile_events read
** that file alone: the part df_side holds, found in the connection's cache, not parsed again. */
static int df_select(sqlite3 *db, DfSide *s, sqlite3_value *pSource, const char *zFile){
  s->nSel = s->iSel = 0;
  char *zSql = sqlite3_mprintf(zFile ? "SELECT id FROM profile_events(?1) WHERE file = ?2 AND (%s) ORDER BY id"
                                     : "SELECT id FROM profile_events(?1) WHERE (%s) ORDER BY id", s->o->zWhere);
  if( zSql==0 ) return SQLITE_NOMEM;
  sqlite3_stmt *st = 0;
  int rc = sqlite3_prepare_v2(db, zSql, -1, &st, 0);
  sqlite3_free(zSql);
  if( rc ){
    s->zErr = sqlite3_mprintf("profile_diff: option \"where\": %s", sqlite3_errmsg(db));
    return rc;
  }
  sqlite3_bind_value(st, 1, pSource);
  if( zFile ) sqlite3_bind_text(st, 2, zFile, -1, SQLITE_STATIC);
  size_t nAlloc = s->nSelAlloc;
  while( (rc = sqlite3_step(st))==SQLITE_ROW ){
    if( ps_grow((void**)&s->aSel, sizeof(sqlite3_int64), &nAlloc, s->nSel+1) ){ rc = SQLITE_NOMEM; break; }
    s->aSel[s->nSel++] = sqlite3_column_int64(st, 0);
  }
  s->nSelAlloc = nAlloc;
  if( rc==SQLITE_DONE ) rc = SQLITE_OK;
  else if( rc!=SQLITE_NOMEM ) s->zErr = sqlite3_mprintf("profile_diff: %s: %s", s->zSide, sqlite3_errmsg(db));
  sqlite3_finalize(st);
  return rc;
}

/* One side: every file of pSource read in turn into the map. */
static int df_side(DfCursor *c, sqlite3 *db, int iSide, sqlite3_value *pSource){
  DfSide s; memset(&s, 0, sizeof(s));
  s.m = &c->m; s.iSide = iSide; s.zSide = iSide ? "test" : "baseline"; s.o = &c->o;
  s.poll.db = db;
  char zTable[64];
  snprintf(zTable, sizeof(zTable), "profile_diff: %s", s.zSide);
  int rc = SQLITE_OK;
  PsSet set; memset(&set, 0, sizeof(set));       /* the side's files, a part at a time */
  rc = ps_vt_filter_set(c->base.pVtab, zTable, pSource, 0, 0, 1, &set);
  for(int iPart=0; rc==SQLITE_OK && iPart < set.nPart; iPart++){
    PsCapture *cap = 0;
    rc = ps_set_use(c->base.pVtab, &set, &iPart, &cap);
    if( rc || cap==0 ) break;
    const char *zFile = set.azFile ? set.azFile[iPart] : 0;
    if( c->o.zWhere ) rc = df_select(db, &s, pSource, zFile);     /* this file's rows, while it is held */
    if( rc==SQLITE_OK ) rc = df_part(&s, cap, iPart, zFile);
  }
  if( rc==SQLITE_OK && c->o.zStep && !s.bAnyStep ){
    s.zErr = sqlite3_mprintf("profile_diff: %s: no file has a slice named '%s' (the \"step\" option)", s.zSide, c->o.zStep);
    rc = SQLITE_ERROR;
  }
  if( rc==SQLITE_INTERRUPT && s.zErr==0 ) s.zErr = sqlite3_mprintf("profile_diff: interrupted");
  ps_set_clear(&set);
  sqlite3_finalize(s.poll.st);
  ps_free(s.aSel);
  if( s.zErr ) return ps_vt_error(c->base.pVtab, s.zErr, rc ? rc : SQLITE_ERROR);
  return rc;
}

/* A row to sort: abs(delta_ns), then the key's text. */
typedef struct DfSort { int64_t absDelta; const char *z; uint32_t n, k; } DfSort;
static int df_cmp(const void *a, const void *b){
  const DfSort *x = a, *y = b;
  if( x->absDelta!=y->absDelta ) return x->absDelta > y->absDelta ? -1 : 1;
  int r = memcmp(x->z, y->z, x->n < y->n ? x->n : y->n);
  if( r ) return r;
  return x->n < y->n ? -1 : x->n > y->n;
}

/* delta_ns of key k: test - base, or (normalize) test - base scaled to the test's total. */
static double df_delta(const DfCursor *c, const DfKey *k){
  if( c->o.bNormalize ){
    double f = c->aTotal[0] ? (double)c->aTotal[1] / (double)c->aTotal[0] : 0.0;
    return (double)k->ns[1] - (double)k->ns[0] * f;
  }
  return (double)k->ns[1] - (double)k->ns[0];
}
static int64_t df_abs_delta(const DfCursor *c, const DfKey *k){
  double d = df_delta(c, k);
  if( d<0 ) d = -d;
  return d > 9.2e18 ? INT64_MAX : (int64_t)d;
}

static int dfFilter(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr, int argc, sqlite3_value **argv){
  DfCursor *c = (DfCursor*)cur;
  (void)idxStr; (void)argc;
  sqlite3 *db = ((PsVtab*)cur->pVtab)->pConn->db;
  df_reset(c);
  if( (idxNum & 3)!=3 ){
    return ps_vt_error(cur->pVtab, sqlite3_mprintf("profile_diff: expected (baseline, test [, options_json])"), SQLITE_ERROR);
  }
  char *zErr = 0;
  int rc = df_options(db, (idxNum & 4) ? argv[2] : 0, &c->o, &zErr);
  if( rc ) return zErr ? ps_vt_error(cur->pVtab, zErr, rc) : rc;
  for(int k=0; k<2; k++){
    int t = sqlite3_value_type(argv[k]);
    if( t!=SQLITE_TEXT && t!=SQLITE_BLOB ){
      return ps_vt_error(cur->pVtab, sqlite3_mprintf("profile_diff: the %s must be a path, a directory, a glob (TEXT) or a "
                                           "capture's bytes (BLOB)", k ? "test" : "baseline"), SQLITE_ERROR);
    }
  }
  rc = df_side(c, db, 0, argv[0]);
  if( rc==SQLITE_OK ) rc = df_side(c, db, 1, argv[1]);
  if( rc ) return rc;
  /* the rows: keys with something on either side, by abs(delta_ns) descending, then key */
  c->aTotal[0] = c->aTotal[1] = 0;
  size_t nKey = c->m.pool.n;                     /* (df_key grew a[] past every id) */
  c->aOrder = ps_malloc(sizeof(uint32_t) * (nKey ? nKey : 1));
  if( c->aOrder==0 ) return SQLITE_NOMEM;
  for(size_t k=1; k<nKey; k++){
    const DfKey *e = &c->m.a[k];
    c->aTotal[0] = ps_add_sat(c->aTotal[0], e->self[0]);
    c->aTotal[1] = ps_add_sat(c->aTotal[1], e->self[1]);
    if( e->count[0] || e->count[1] || e->ns[0] || e->ns[1] || e->self[0] || e->self[1] ) c->aOrder[c->n++] = (uint32_t)k;
  }
  DfSort *aSort = ps_malloc(sizeof(DfSort) * (c->n ? c->n : 1));
  if( aSort==0 ) return SQLITE_NOMEM;
  for(size_t i=0; i<c->n; i++){
    const DfKey *e = &c->m.a[c->aOrder[i]];
    PsStr t = ps_pool_get(&c->m.pool, c->aOrder[i]);
    aSort[i].absDelta = df_abs_delta(c, e); aSort[i].z = t.z; aSort[i].n = t.n; aSort[i].k = c->aOrder[i];
  }
  qsort(aSort, c->n, sizeof(DfSort), df_cmp);
  for(size_t i=0; i<c->n; i++) c->aOrder[i] = aSort[i].k;
  ps_free(aSort);
  c->i = 0;
  return SQLITE_OK;
}

static int dfNext(sqlite3_vtab_cursor *cur){ ((DfCursor*)cur)->i++; return SQLITE_OK; }
static int dfEof(sqlite3_vtab_cursor *cur){ DfCursor *c = (DfCursor*)cur; return c->i >= c->n; }

static int dfColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int iCol){
  DfCursor *c = (DfCursor*)cur;
  const DfKey *k = &c->m.a[c->aOrder[c->i]];
  switch( iCol ){
    case 0: { PsStr t = ps_pool_get(&c->m.pool, c->aOrder[c->i]); sqlite3_result_text(ctx, t.z, (int)t.n, SQLITE_TRANSIENT); break; }
    case 1: sqlite3_result_int64(ctx, k->count[0]); break;
    case 2: sqlite3_result_int64(ctx, k->count[1]); break;
    case 3: sqlite3_result_int64(ctx, k->ns[0]); break;
    case 4: sqlite3_result_int64(ctx, k->ns[1]); break;
    case 5: sqlite3_result_int64(ctx, k->self[0]); break;
    case 6: sqlite3_result_int64(ctx, k->self[1]); break;
    case 7:
      if( c->o.bNormalize ) sqlite3_result_double(ctx, df_delta(c, k));
      else sqlite3_result_int64(ctx, ps_add_sat(k->ns[1], k->ns[0]==INT64_MIN ? INT64_MAX : -k->ns[0]));
      break;
    case 8:
      if( k->ns[0]!=0 ){
        double r = (double)k->ns[1] / (double)k->ns[0];
        if( c->o.bNormalize ){
          if( c->aTotal[1]==0 ) break;
          r = r * (double)c->aTotal[0] / (double)c->aTotal[1];
        }
        sqlite3_result_double(ctx, r);
      }
      break;
    case 9: case 10: {
      int j = iCol - 9;
      if( c->aTotal[j] ) sqlite3_result_double(ctx, (double)k->self[j] * 100.0 / (double)c->aTotal[j]);
      break;
    }
    case 11: {
      const char *z = k->count[0]==0 && k->count[1]>0 ? "added" : k->count[1]==0 && k->count[0]>0 ? "deleted"
                    : k->count[1] > k->count[0] ? "increased" : k->count[1] < k->count[0] ? "decreased" : "unchanged";
      sqlite3_result_text(ctx, z, -1, SQLITE_STATIC);
      break;
    }
    default: break;
  }
  return SQLITE_OK;
}

static int dfRowid(sqlite3_vtab_cursor *cur, sqlite_int64 *pRowid){
  *pRowid = (sqlite_int64)((DfCursor*)cur)->i;
  return SQLITE_OK;
}

static sqlite3_module dfModule = { 0, 0, dfConnect, dfBestIndex, ps_vt_disconnect, 0, dfOpen, dfClose, dfFilter,
                                   dfNext, dfEof, dfColumn, dfRowid, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };

int ps_diff_register(sqlite3 *db, PsConn *pConn){
  pConn->nRef++;
  return sqlite3_create_module_v2(db, "profile_diff", &dfModule, pConn, ps_conn_release);
}
