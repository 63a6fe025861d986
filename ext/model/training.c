/*
** training.c — the device activities, launch calls and steps of one capture (training.h), in one
** pass over its events, with the launches joined to the activities by correlation id.
*/
#include "training.h"
#include "../wire/json.h"

#include <stdlib.h>
#include <string.h>

void ps_training_free(PsTraining *t){
  ps_free(t->a);
  memset(t, 0, sizeof(*t));
}

static int str_is(PsStr s, const char *z){
  size_t n = strlen(z);
  return s.n==n && memcmp(s.z, z, n)==0;
}
static int str_starts(PsStr s, const char *z){
  size_t n = strlen(z);
  return s.n>=n && memcmp(s.z, z, n)==0;
}

/* the integer JSON value at z[v], or PS_NULL64 */
static int64_t json_int(const char *z, size_t n, size_t v){
  PsDec d; int64_t x;
  if( v>=n || !(z[v]=='-' || (z[v]>='0' && z[v]<='9')) ) return PS_NULL64;
  if( ps_json_number(z, n, &v, &d, 0) || !d.bInt || ps_dec_int64(&d, &x) ) return PS_NULL64;
  return x;
}

/* The args a row is joined by: one walk of its args object's top-level members */
typedef struct TrArgs { int64_t stream, corr, corrId, ext; } TrArgs;
static int tr_args(const PsCapture *cap, size_t row, TrArgs *a){
  a->stream = a->corr = a->corrId = a->ext = PS_NULL64;
  if( cap->pFormat->xColumn==0 ) return PS_OK;
  PsOut o;
  memset(&o, 0, sizeof(o));
  if( cap->pFormat->xColumn(cap, row, PS_COL_ARGS, &o)!=PS_OK ) return PS_NOMEM;
  if( o.type==PS_META_JSON && o.z ){
    /* the args as the format gives them: valid JSON, walked once for the four keys */
    static const char *const azKey[4] = { "stream", "correlation", "correlation_id", "External id" };
    int64_t *ap[4] = { &a->stream, &a->corr, &a->corrId, &a->ext };
    size_t aV[4];
    if( ps_json_find_keys_valid(o.z, o.n, ps_json_ws(o.z, o.n, 0), azKey, 4, aV)>0 ){
      for(int k=0; k<4; k++) if( aV[k]!=(size_t)-1 ) *ap[k] = json_int(o.z, o.n, aV[k]);
    }
  }
  free(o.zFree);
  return PS_OK;
}

/* a launch call by correlation id, sorted by (id, start, row) for the join */
typedef struct TrLaunch { int64_t corr, ts; int32_t row; } TrLaunch;
static int cmp_launch(const void *a, const void *b){
  const TrLaunch *x = a, *y = b;
  if( x->corr!=y->corr ) return x->corr<y->corr ? -1 : 1;
  if( x->ts!=y->ts ) return x->ts<y->ts ? -1 : 1;
  return x->row<y->row ? -1 : x->row>y->row;
}
/* a step, sorted by start */
typedef struct TrStep { int64_t ts, te, step; int32_t row; } TrStep;
static int cmp_step(const void *a, const void *b){
  const TrStep *x = a, *y = b;
  if( x->ts!=y->ts ) return x->ts<y->ts ? -1 : 1;
  return x->row<y->row ? -1 : x->row>y->row;
}

/* qsort, unless a is in order already (one pass: a writer's rows mostly are) */
static void sort_if(void *a, size_t n, size_t sz, int (*cmp)(const void*, const void*)){
  for(size_t i=1; i<n; i++){
    if( cmp((char*)a + (i-1)*sz, (char*)a + i*sz)>0 ){ qsort(a, n, sz, cmp); return; }
  }
}

/* the activities by start, for the step sweep */
typedef struct TrOrder { int64_t ts; size_t i; } TrOrder;
static int cmp_order(const void *a, const void *b){
  const TrOrder *x = a, *y = b;
  if( x->ts!=y->ts ) return x->ts<y->ts ? -1 : 1;
  return x->i<y->i ? -1 : x->i>y->i;
}
/* a max-heap of step indices (a larger index started later) */
static void heap_push(size_t *h, size_t *pn, size_t v){
  size_t i = (*pn)++;
  while( i>0 && h[(i-1)/2]<v ){ h[i] = h[(i-1)/2]; i = (i-1)/2; }
  h[i] = v;
}
static void heap_pop(size_t *h, size_t *pn){
  size_t n = --(*pn), v = h[n], i = 0;
  for(;;){
    size_t c = 2*i+1;
    if( c>=n ) break;
    if( c+1<n && h[c+1]>h[c] ) c++;
    if( h[c]<=v ) break;
    h[i] = h[c]; i = c;
  }
  if( n ) h[i] = v;
}

/* a whole number written as it is ("12"), or PS_NULL64 */
static int64_t str_int(const char *z, size_t n){
  PsDec d; int64_t v;
  return ps_dec_parse(z, n, &d)==0 && d.bInt && ps_dec_int64(&d, &v)==0 ? v : PS_NULL64;
}

/* the capture's distributedInfo.rank (metadata scope 'trace', a JSON object) */
static void tr_rank(const PsCapture *cap, PsTraining *t){
  for(size_t k=0; k<cap->nMeta; k++){
    const PsMeta *m = &cap->aMeta[k];
    if( m->type!=PS_META_JSON || m->z==0 || m->scope==0 || m->key==0 ) continue;
    if( !str_is(ps_pool_get(&cap->pool, m->scope), "trace") || !str_is(ps_pool_get(&cap->pool, m->key), "distributedInfo") ) continue;
    size_t i = ps_json_ws(m->z, m->n, 0), v;
    if( i<m->n && m->z[i]=='{' && ps_json_find_key(m->z, m->n, i, "rank", &v)==1 ){
      int64_t r = json_int(m->z, m->n, v);
      if( r!=PS_NULL64 ){ t->rank = r; t->bRank = 1; }
    }
  }
}

/* what a category or a thread makes a row: bits of these */
#define TR_DEVICE 1     /* a device activity */
#define TR_LAUNCH 2     /* a launch call (a host plane's event: when it has a correlation_id) */
#define TR_STEPS  4     /* an XSpace "Steps" line */
#define TR_GPU_ANNOTATION 8 /* Kineto's copy of a CPU annotation on a GPU stream */
#define TR_SEEN   0x80  /* the category bits are set */
#define TR_NAME_STEP 0x10   /* as a name: ProfilerStep#N */
#define TR_NAME_SEEN 0x40   /* the name bits are set */

int ps_training_build(const PsCapture *cap, PsTraining *t, int bStepsOnly, int (*xInterrupt)(void*), void *pI){
  memset(t, 0, sizeof(*t));
  t->rank = t->lastStep = PS_NULL64;
  tr_rank(cap, t);
  const PsEvents *e = &cap->ev;
  size_t nEv = e->n;
  if( nEv==0 ) return PS_OK;
  int rc = PS_NOMEM;
  uint8_t *aCatKind = ps_calloc(cap->pool.n ? cap->pool.n : 1, 1);
  uint8_t *aThrKind = ps_calloc(cap->nThread ? cap->nThread : 1, 1);
  TrLaunch *aL = 0; size_t nL = 0, nLAlloc = 0;
  TrStep *aS = 0; size_t nS = 0, nSAlloc = 0;
  TrOrder *aOrder = 0;
  size_t *aHeap = 0;
  size_t nAlloc = 0;
  if( aCatKind==0 || aThrKind==0 ) goto done;
  const int bXSpace = strcmp(cap->pFormat->zName, "xspace")==0;     /* (xprof's "Steps" lines) */
  for(size_t th=0; th<cap->nThread; th++){
    PsStr p = ps_pool_get(&cap->pool, cap->aThread[th].processName);
    PsStr l = ps_pool_get(&cap->pool, cap->aThread[th].threadName);
    if( p.z && str_starts(p, "/device:") && l.z && str_starts(l, "Stream #") ) aThrKind[th] = TR_DEVICE;
    else if( p.z && str_starts(p, "/host:") ) aThrKind[th] = TR_LAUNCH;
    if( bXSpace && l.z && str_is(l, "Steps") ) aThrKind[th] |= TR_STEPS;
  }
  for(size_t r=0; r<nEv; r++){
    if( xInterrupt && (r & 0xFFFF)==0xFFFF && xInterrupt(pI) ){ rc = PS_INTERRUPT; goto done; }
    if( e->aDur[r]==PS_NULL64 || e->aTs[r]==PS_NULL64 ) continue;     /* (no extent: no row) */
    uint32_t c = e->aCat[r];
    uint8_t ck = 0;
    if( c && c<cap->pool.n ){
      if( !(aCatKind[c] & TR_SEEN) ){
        PsStr s = ps_pool_get(&cap->pool, c);
        aCatKind[c] |= TR_SEEN | (ps_training_device_cat(s.z, s.n) ? TR_DEVICE
                                 : str_is(s, "cuda_runtime") || str_is(s, "cuda_driver") ? TR_LAUNCH
                                 : str_is(s, "gpu_user_annotation") ? TR_GPU_ANNOTATION : 0);
      }
      ck = aCatKind[c] & (TR_DEVICE|TR_LAUNCH|TR_GPU_ANNOTATION);
    }
    uint8_t tk = e->aThread[r]<cap->nThread ? aThrKind[e->aThread[r]] : 0;
    int bStep = 0;
    int64_t step = PS_NULL64;
    uint32_t nid = e->aName[r];
    PsStr nm = { 0, 0 };
    if( nid && nid<cap->pool.n ){
      if( !(aCatKind[nid] & TR_NAME_SEEN) ){
        nm = ps_pool_get(&cap->pool, nid);
        aCatKind[nid] |= TR_NAME_SEEN | (nm.z && str_starts(nm, "ProfilerStep#") ? TR_NAME_STEP : 0);
      }
      if( (aCatKind[nid] & TR_NAME_STEP) || (tk & TR_STEPS) ) nm = ps_pool_get(&cap->pool, nid);
    }
    if( (aCatKind[nid<cap->pool.n ? nid : 0] & TR_NAME_STEP) && !(ck & TR_GPU_ANNOTATION) && !(tk & TR_DEVICE) ){
      /* (Kineto repeats each ProfilerStep#N as a gpu_user_annotation on a GPU stream: not a step) */
      bStep = 1;
      size_t k = 13;
      while( k<nm.n && nm.z[k]>='0' && nm.z[k]<='9' ) k++;
      step = str_int(nm.z+13, k-13);
    }else if( tk & TR_STEPS ){
      bStep = 1;
      step = nm.z ? str_int(nm.z, nm.n) : PS_NULL64;
    }
    if( bStep ){
      if( step!=PS_NULL64 && (t->lastStep==PS_NULL64 || step>t->lastStep) ) t->lastStep = step;
      if( ps_grow((void**)&aS, sizeof(*aS), &nSAlloc, nS+1) ) goto done;
      aS[nS].ts = e->aTs[r]; aS[nS].te = ps_add_sat(e->aTs[r], e->aDur[r]); aS[nS].step = step; aS[nS].row = (int32_t)r;
      nS++;
      continue;
    }
    int bDevice = (ck & TR_DEVICE) || (tk & TR_DEVICE);
    int bLaunch = !bDevice && ((ck & TR_LAUNCH) || (tk & TR_LAUNCH));
    if( (!bDevice && !bLaunch) || bStepsOnly ) continue;
    TrArgs a;
    if( tr_args(cap, r, &a) ) goto done;
    int64_t corr = a.corr!=PS_NULL64 ? a.corr : a.corrId;
    if( bLaunch ){
      /* a host plane's event is a launch only with its correlation_id */
      if( corr==PS_NULL64 || (!(ck & TR_LAUNCH) && a.corrId==PS_NULL64) ) continue;
      if( ps_grow((void**)&aL, sizeof(*aL), &nLAlloc, nL+1) ) goto done;
      aL[nL].corr = corr; aL[nL].ts = e->aTs[r]; aL[nL].row = (int32_t)r;
      nL++;
      continue;
    }
    if( ps_grow((void**)&t->a, sizeof(*t->a), &nAlloc, t->n+1) ) goto done;
    PsTrainRow *k = &t->a[t->n++];
    k->row = (int32_t)r; k->launch = -1; k->kind = PS_TR_KERNEL;
    k->stream = a.stream!=PS_NULL64 ? a.stream
              : (tk & TR_DEVICE) ? (cap->aThread[e->aThread[r]].tid.type==PS_VAL_INT ? cap->aThread[e->aThread[r]].tid.i : PS_NULL64)
              : PS_NULL64;
    k->correlation = corr; k->externalId = a.ext; k->step = PS_NULL64;
  }
  /* the launches joined: per id the latest launch starting at or before the activity, else the
  ** first of the id */
  sort_if(aL, nL, sizeof(*aL), cmp_launch);
  sort_if(aS, nS, sizeof(*aS), cmp_step);
  for(size_t i=0; i<t->n; i++){
    PsTrainRow *k = &t->a[i];
    int64_t ts = e->aTs[k->row];
    if( k->correlation==PS_NULL64 || nL==0 ) continue;
    size_t lo = 0, hi = nL;         /* the first launch with (corr, ts) > (k.corr, ts) */
    while( lo<hi ){
      size_t mid = lo + (hi-lo)/2;
      if( aL[mid].corr<k->correlation || (aL[mid].corr==k->correlation && aL[mid].ts<=ts) ) lo = mid+1; else hi = mid;
    }
    if( lo>0 && aL[lo-1].corr==k->correlation ) k->launch = aL[lo-1].row;
    else if( lo<nL && aL[lo].corr==k->correlation ) k->launch = aL[lo].row;
  }
  /* each activity's step: a sweep over the activities by start with a max-heap of the steps
  ** started so far (by start order); a step on top that ended is popped for good (later
  ** activities start later), so the top is the latest-starting step containing the start */
  if( nS && t->n ){
    if( (aOrder = ps_malloc(t->n*sizeof(*aOrder)))==0 || (aHeap = ps_malloc(nS*sizeof(*aHeap)))==0 ) goto done;
    for(size_t i=0; i<t->n; i++){ aOrder[i].ts = e->aTs[t->a[i].row]; aOrder[i].i = i; }
    sort_if(aOrder, t->n, sizeof(*aOrder), cmp_order);
    size_t nHeap = 0, j = 0;
    for(size_t i=0; i<t->n; i++){
      int64_t ts = aOrder[i].ts;
      for(; j<nS && aS[j].ts<=ts; j++) heap_push(aHeap, &nHeap, j);
      while( nHeap && aS[aHeap[0]].te<=ts ) heap_pop(aHeap, &nHeap);
      if( nHeap ) t->a[aOrder[i].i].step = aS[aHeap[0]].step;
    }
  }
  if( nS ){
    if( ps_grow((void**)&t->a, sizeof(*t->a), &nAlloc, t->n+nS) ) goto done;
    for(size_t i=0; i<nS; i++){
      PsTrainRow *k = &t->a[t->n++];
      k->row = aS[i].row; k->launch = -1; k->kind = PS_TR_STEP;
      k->stream = k->correlation = k->externalId = PS_NULL64;
      k->step = aS[i].step;
    }
  }
  rc = PS_OK;
done:
  ps_free(aCatKind); ps_free(aThrKind); ps_free(aL); ps_free(aS); ps_free(aOrder); ps_free(aHeap);
  return rc;
}

int ps_training_device_cat(const char *z, size_t n){
  static const char *const az[] = { "kernel", "gpu_memcpy", "gpu_memset", "mtia_ccp_events" };
  for(size_t k=0; k<sizeof(az)/sizeof(az[0]); k++) if( strlen(az[k])==n && memcmp(az[k], z, n)==0 ) return 1;
  return 0;
}
