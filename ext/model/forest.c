/*
** forest.c — a capture as a forest of counted nodes (forest.h): sampled call trees, slice
** nesting, records; its depth-first walk (outermost occurrences of a key) and subtree sums.
*/
#include "forest.h"
#include "stacks.h"
#include "tracks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ps_forest_free(PsForest *f){
  free(f->a); free(f->aRow);
  memset(f, 0, sizeof(*f));
}

int ps_forest_build(PsCapture *cap, int bAsync, int (*xRow)(void*, size_t), void *pArg, PsForest *f){
  memset(f, 0, sizeof(*f));
  const PsModel *pm = ps_capture_model(cap);
  if( pm==0 ) return PS_NOMEM;
  const size_t nEv = cap->ev.n;
  if( nEv && (f->aRow = calloc(nEv, 1))==0 ) return PS_NOMEM;
  for(size_t r=0; r<nEv; r++){
    int k = ps_row_kind_code(cap, pm, r);
    if( k==PS_RK_SAMPLE && cap->ev.aStack && cap->ev.aStack[r]>=0 && (size_t)cap->ev.aStack[r]<cap->nRec ){
      f->aRow[r] = 1; f->nSample++; f->bTime |= cap->ev.aDur[r]!=PS_NULL64;
    }else if( k==PS_RK_SLICE && cap->ev.aDur[r]!=PS_NULL64 ){
      /* a thread's work (a slice on its own track), or the async spans: never both */
      uint32_t tr = cap->ev.aTrack ? cap->ev.aTrack[r] : 0;
      int tk = tr < cap->nTrack ? pm->aTrack[tr].kind : PS_TK_THREAD;
      int bA = tk==PS_TK_PROCESS_ASYNC || tk==PS_TK_GLOBAL_ASYNC || tk==PS_TK_THREAD_ASYNC;
      if( bAsync ? bA : tk==PS_TK_THREAD ){ f->aRow[r] = 2; f->nSlice++; }
    }
  }
  f->eKind = f->nSample ? PS_FOREST_SAMPLES : f->nSlice ? PS_FOREST_SLICES : cap->nRec ? PS_FOREST_RECORDS : PS_FOREST_NONE;
  if( f->eKind==PS_FOREST_NONE ) return PS_OK;
  f->n = f->eKind==PS_FOREST_SLICES ? nEv : cap->nRec;
  f->a = calloc(f->n ? f->n : 1, sizeof(PsForestNode));
  if( f->a==0 ) return PS_NOMEM;
  PsForestNode *a = f->a;
  if( f->eKind!=PS_FOREST_SLICES ){
    for(size_t i=0; i<f->n; i++){
      const PsRecord *x = &cap->aRec[i];
      a[i].parent = x->depth<0 ? -2 : x->parent;   /* (out of the tree: never reached) */
      a[i].bCounted = 1;
      if( f->eKind==PS_FOREST_RECORDS ){
        a[i].tot = x->time==PS_NULL64 ? 0 : x->time;
        a[i].self = x->self!=PS_NULL64 ? x->self : a[i].tot;
        a[i].cnt = x->count==PS_NULL64 ? 0 : x->count;
      }
    }
    if( f->eKind==PS_FOREST_SAMPLES ){    /* each selected sample's weight and time to its leaf */
      for(size_t r=0; r<nEv; r++){
        if( f->aRow[r]!=1 || (xRow && !xRow(pArg, r)) ) continue;
        int64_t w = cap->ev.aWeight ? cap->ev.aWeight[r] : 1;
        int64_t tm = f->bTime ? (cap->ev.aDur[r]==PS_NULL64 ? 0 : cap->ev.aDur[r]) : w;
        PsForestNode *x = &a[cap->ev.aStack[r]];
        x->cnt = ps_add_sat(x->cnt, w); x->self = ps_add_sat(x->self, tm); x->tot = ps_add_sat(x->tot, tm);
      }
    }
    return PS_OK;
  }
  /* slices: a node per row; a slice's self time = its duration less its child slices' */
  for(size_t r=0; r<nEv; r++) a[r].parent = cap->ev.aParent ? cap->ev.aParent[r] : -1;
  for(size_t r=0; r<nEv; r++){
    if( f->aRow[r]!=2 ) continue;
    int32_t p = a[r].parent;
    if( p>=0 && (size_t)p<nEv && (size_t)p!=r ) a[p].self = ps_add_sat(a[p].self, -cap->ev.aDur[r]);
  }
  for(size_t r=0; r<nEv; r++){
    if( f->aRow[r]!=2 ){ a[r].self = 0; continue; }
    a[r].self = ps_add_sat(a[r].self, cap->ev.aDur[r]);
    a[r].tot = cap->ev.aDur[r];
    a[r].cnt = 1;
    a[r].bCounted = xRow==0 || xRow(pArg, r);
  }
  return PS_OK;
}

int ps_forest_walk(const PsForest *f, const int32_t *aKey, size_t nKey, int32_t *aOrder, uint8_t *aTop,
                   size_t *pnOrder, int (*xInterrupt)(void*), void *pI){
  const size_t n = f->n, nA = n ? n : 1;
  const PsForestNode *a = f->a;
  int rc = PS_OK;
  size_t nOrder = 0;
  int32_t *aHead = malloc(sizeof(int32_t) * nA), *aNext = malloc(sizeof(int32_t) * nA);
  int32_t *aStack = malloc(sizeof(int32_t) * 2 * nA);
  uint32_t *aActive = calloc(nKey ? nKey : 1, sizeof(uint32_t));
  if( !aHead || !aNext || !aStack || !aActive ){ rc = PS_NOMEM; goto done; }
  for(size_t i=0; i<n; i++) aHead[i] = -1;
  for(size_t i=n; i-- > 0; ){             /* children lists in node order */
    int32_t p = a[i].parent;
    if( p>=0 && (size_t)p<n && (size_t)p!=i ){ aNext[i] = aHead[p]; aHead[p] = (int32_t)i; }
  }
  for(size_t r=0; r<n && rc==PS_OK; r++){
    if( a[r].parent!=-1 ) continue;
    /* a node is entered when first met (its key made active) and left after its subtree (~node
    ** on the stack: "leave"); every node is pushed at most twice, so the stack holds 2n */
    size_t nStack = 0;
    aStack[nStack++] = (int32_t)r;
    while( nStack ){
      int32_t x = aStack[--nStack];
      int32_t k;
      if( x<0 ){
        x = ~x;
        if( aKey && (k = aKey[x])>=0 && (size_t)k<nKey ) aActive[k]--;
        continue;
      }
      if( (nOrder & 0xffff)==0 && xInterrupt && xInterrupt(pI) ){ rc = PS_INTERRUPT; break; }
      aOrder[nOrder++] = x;
      k = aKey ? aKey[x] : -1;
      int bKey = k>=0 && (size_t)k<nKey;
      aTop[x] = bKey && aActive[k]==0;
      if( bKey ) aActive[k]++;
      aStack[nStack++] = ~x;
      size_t nKids = 0;
      for(int32_t c=aHead[x]; c>=0; c=aNext[c]) nKids++;
      size_t j = nKids;                   /* pushed last-first: the first child is entered first */
      for(int32_t c=aHead[x]; c>=0; c=aNext[c]) aStack[nStack + --j] = c;
      nStack += nKids;
    }
  }
done:
  *pnOrder = nOrder;
  free(aHead); free(aNext); free(aStack); free(aActive);
  return rc;
}

void ps_forest_subtree(PsForest *f, const int32_t *aOrder, size_t nOrder, int64_t *aSubCnt){
  PsForestNode *a = f->a;
  if( aSubCnt ) for(size_t i=0; i<f->n; i++) aSubCnt[i] = a[i].cnt;
  for(size_t k=nOrder; k-- > 0; ){        /* children before their parents: reverse pre-order */
    int32_t i = aOrder[k], p = a[i].parent;
    if( p<0 ) continue;
    a[p].tot = ps_add_sat(a[p].tot, a[i].tot);
    if( aSubCnt ) aSubCnt[p] = ps_add_sat(aSubCnt[p], aSubCnt[i]);
  }
}

const char *ps_forest_label(const PsCapture *cap, const PsForest *f, size_t i, int eWhat, char *buf,
                            size_t nBuf, size_t *pn){
  PsStr z = { "", 0 };
  if( f->eKind!=PS_FOREST_SLICES ){
    const PsRecord *x = &cap->aRec[i];
    if( eWhat==PS_FOREST_CATEGORY ) z = ps_pool_get(&cap->pool, x->category ? x->category : x->group);
    else if( eWhat==PS_FOREST_THREAD ){
      if( x->threadId==PS_NULL64 ) snprintf(buf, nBuf, "main");
      else snprintf(buf, nBuf, "thread %lld", (long long)x->threadId);
      z.z = buf; z.n = strlen(buf);
    }else if( f->eKind==PS_FOREST_SAMPLES && ps_frame_is_anonymous(cap, x) ){
      z.z = ps_frame_label(cap, x, buf, nBuf); z.n = strlen(z.z);    /* (short: "(anonymous) file:line") */
    }else z = ps_pool_get(&cap->pool, x->name);                     /* a name whole, however long */
  }else{
    if( eWhat==PS_FOREST_CATEGORY ) z = ps_pool_get(&cap->pool, cap->ev.aCat[i]);
    else if( eWhat==PS_FOREST_THREAD ){ z.z = ps_thread_label(cap, cap->ev.aThread[i], buf, nBuf); z.n = strlen(z.z); }
    else z = ps_pool_get(&cap->pool, cap->ev.aName[i]);
  }
  *pn = z.n;
  return z.z ? z.z : "";
}

void ps_occur_free(PsOccur *o){
  ps_forest_free(&o->f);
  free(o->aKey); free(o->aOrder); free(o->aTop); free(o->aUp);
  memset(o, 0, sizeof(*o));
}

int ps_forest_occurrences(PsCapture *cap, int bAsync, const char *zFn, size_t nFn, PsOccur *o,
                          int (*xInterrupt)(void*), void *pI){
  memset(o, 0, sizeof(*o));
  if( ps_forest_build(cap, bAsync, 0, 0, &o->f) ) return PS_NOMEM;
  if( o->f.eKind==PS_FOREST_NONE ) return PS_OK;
  const size_t n = o->f.n, nA = n ? n : 1;
  o->aKey = malloc(sizeof(int32_t) * nA); o->aOrder = malloc(sizeof(int32_t) * nA);
  o->aTop = calloc(nA, 1); o->aUp = malloc(sizeof(int32_t) * nA);
  if( !o->aKey || !o->aOrder || !o->aTop || !o->aUp ) return PS_NOMEM;
  char buf[4096];
  for(size_t i=0; i<n; i++){
    o->aKey[i] = -1;
    if( !o->f.a[i].bCounted || !ps_forest_in_kind(&o->f, i) ) continue;
    size_t nz; const char *z = ps_forest_label(cap, &o->f, i, PS_FOREST_NAME, buf, sizeof(buf), &nz);
    if( nz==nFn && memcmp(z, zFn, nFn)==0 ){ o->aKey[i] = 0; o->bAny = 1; }
  }
  if( !o->bAny ) return PS_OK;
  int rc = ps_forest_walk(&o->f, o->aKey, 1, o->aOrder, o->aTop, &o->nOrder, xInterrupt, pI);
  /* a named node the walk never reaches (a record in a parent cycle, one out of the tree) is no
  ** occurrence: bAny says whether the walk met one */
  o->bAny = 0;
  for(size_t k=0; rc==PS_OK && k<o->nOrder && !o->bAny; k++) o->bAny = o->aTop[o->aOrder[k]];
  /* nearest ancestors in kind, in pre-order (a parent before its children): one step a node, so a
  ** climb past rows of another kind (unclosed B slices, thousands deep) is no longer per caller */
  for(size_t k=0; rc==PS_OK && k<o->nOrder; k++){
    int32_t i = o->aOrder[k], p = o->f.a[i].parent;
    o->aUp[i] = p<0 || (size_t)p>=n ? -1 : ps_forest_in_kind(&o->f, (size_t)p) ? p : o->aUp[p];
  }
  return rc;
}
