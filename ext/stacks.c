/*
** stacks.c — call stacks as records and samples as events: the trie that turns lists of frames
** into a call tree, frames with ids and their parent resolution (shared with the timings
** reports' RecordId tree), and the sample sums (count, self, inclusive time) every sampled
** format's records carry. See stacks.h for the model.
*/
#include "stacks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- trie */

void ps_stack_trie_free(PsStackTrie *t){
  free(t->a); free(t->aHash);
  memset(t, 0, sizeof(*t));
}

static uint64_t trie_hash(int32_t parent, uint64_t key){
  uint64_t h = ((uint64_t)(uint32_t)parent * 0x9E3779B97F4A7C15ull) ^ (key * 0xC2B2AE3D27D4EB4Full);
  return h ^ (h >> 29);
}

static int trie_rehash(PsStackTrie *t){
  size_t nh = t->nHash ? t->nHash*2 : 1024;
  uint32_t *h = calloc(nh, sizeof(uint32_t));
  if( h==0 ) return PS_NOMEM;
  for(size_t i=0; i<t->n; i++){
    size_t j = (size_t)(trie_hash(t->a[i].parent, t->a[i].key) & (nh-1));
    while( h[j] ) j = (j+1) & (nh-1);
    h[j] = (uint32_t)i + 1;
  }
  free(t->aHash); t->aHash = h; t->nHash = nh;
  return PS_OK;
}

int32_t ps_stack_child(PsCapture *cap, PsStackTrie *t, int32_t parent, uint64_t key,
                       uint32_t name, uint32_t category, int *pbNew){
  if( pbNew ) *pbNew = 0;
  if( (t->n+1)*2 > t->nHash && trie_rehash(t) ) return -1;
  size_t j = (size_t)(trie_hash(parent, key) & (t->nHash-1));
  while( t->aHash[j] ){
    const PsStackNode *x = &t->a[t->aHash[j] - 1];
    if( x->parent==parent && x->key==key ) return x->row;
    j = (j+1) & (t->nHash-1);
  }
  if( cap->nRec >= INT32_MAX-1 ) return -1;
  if( ps_grow((void**)&t->a, sizeof(PsStackNode), &t->nAlloc, t->n+1) ) return -1;
  PsRecord *r = ps_record_add(cap);
  if( r==0 ) return -1;
  int32_t row = (int32_t)(cap->nRec - 1);
  r->name = name; r->category = category; r->count = 0;
  r->parent = parent;
  if( parent>=0 ){
    r->parentId = cap->aRec[parent].recordId;
    r->depth = cap->aRec[parent].depth + 1;
  }
  t->a[t->n].key = key; t->a[t->n].parent = parent; t->a[t->n].row = row;
  t->n++;
  t->aHash[j] = (uint32_t)t->n;
  if( pbNew ) *pbNew = 1;
  return row;
}

/* ---------------------------------------------------------------- frames with ids */

PsRecord *ps_frame_add(PsCapture *cap, int64_t id, int64_t parentId, uint32_t name, uint32_t category){
  PsRecord *r = ps_record_add(cap);
  if( r==0 ) return 0;
  r->recordId = id; r->parentId = parentId;
  r->name = name; r->category = category; r->count = 0;
  return r;
}

const char *ps_record_where(const PsRecord *r, char *buf, size_t nBuf){
  if( r->line ) snprintf(buf, nBuf, "line %u", r->line);
  else snprintf(buf, nBuf, "byte %llu", (unsigned long long)r->msgOff);
  return buf;
}

typedef struct IdRow { int64_t id; int32_t row; } IdRow;
static int idrow_cmp(const void *a, const void *b){
  const IdRow *x = a, *y = b;
  if( x->id!=y->id ) return x->id < y->id ? -1 : 1;
  return x->row < y->row ? -1 : (x->row > y->row);
}

int ps_records_tree(PsCapture *cap, const char *zId, const char *zParent, PsErr *err){
  size_t n = cap->nRec;
  PsRecord *a = cap->aRec;
  char w1[48], w2[48];
  int rc = PS_NOMEM;
  IdRow *aId = malloc((n ? n : 1)*sizeof(IdRow));
  int32_t *aStack = malloc((n ? n : 1)*sizeof(int32_t));
  uint8_t *aState = calloc(n ? n : 1, 1);
  if( aId==0 || aStack==0 || aState==0 ) goto out;
  for(size_t r=0; r<n; r++){ aId[r].id = a[r].recordId; aId[r].row = (int32_t)r; a[r].parent = -1; }
  qsort(aId, n, sizeof(IdRow), idrow_cmp);
  /* an id used again: links by that id go to its first record, and the later ones are left out
  ** of the tree (depth -1, state 2 below) — SQL walks join on record_id, so a second record of
  ** one id would otherwise close a loop (1 -> 2 -> the second 1 -> 2 ...) */
  for(size_t k=1, k0=0; k<n; k++){          /* k0: the first entry of aId[k]'s id */
    if( aId[k].id!=aId[k-1].id ){ k0 = k; continue; }
    PsRecord *d = &a[aId[k].row];
    if( ps_diag(cap, PS_DIAG_DUPLICATE, d->line ? -1 : (int64_t)d->msgOff,
                "%s: %s %lld is used again (first on %s); "
                "links go to the first, and this record is left out of the tree (depth NULL)",
                ps_record_where(d, w1, sizeof(w1)), zId, (long long)d->recordId,
                ps_record_where(&a[aId[k0].row], w2, sizeof(w2))) ) goto out;
    d->depth = -1;
    aState[aId[k].row] = 2;
  }
  /* resolve parents (they may come later in the file) */
  for(size_t r=0; r<n; r++){
    if( a[r].parentId==PS_NULL64 || aState[r] ) continue;
    size_t lo = 0, hi = n;
    while( lo<hi ){ size_t m = (lo+hi)/2; if( aId[m].id < a[r].parentId ) lo = m+1; else hi = m; }
    if( lo<n && aId[lo].id==a[r].parentId ){
      a[r].parent = aId[lo].row;
    }else if( ps_diag(cap, PS_DIAG_MISSING_PARENT, a[r].line ? -1 : (int64_t)a[r].msgOff,
                      "%s: %s %lld of %s %lld does not exist; the record is a root",
                      ps_record_where(&a[r], w1, sizeof(w1)), zParent, (long long)a[r].parentId,
                      zId, (long long)a[r].recordId) ){
      goto out;
    }
  }
  /* depths, iteratively; a cycle cuts its members out of the tree (depth -1) */
  for(size_t r0=0; r0<n; r0++){
    if( aState[r0] ) continue;
    size_t nStack = 0;
    int32_t r = (int32_t)r0;
    while( r>=0 && aState[r]==0 ){ aState[r] = 1; aStack[nStack++] = r; r = a[r].parent; }
    int32_t base;
    if( r<0 ) base = -1;
    else if( aState[r]==1 ){
      /* r is on the stack: the records from r up to the top form a cycle */
      size_t k = nStack;
      while( k>0 && aStack[k-1]!=r ) k--;
      for(size_t j=k-1; j<nStack; j++){
        PsRecord *c = &a[aStack[j]];
        if( ps_diag(cap, PS_DIAG_CYCLE, c->line ? -1 : (int64_t)c->msgOff,
                    "%s: %s %lld is in a %s cycle; left out of the tree",
                    ps_record_where(c, w1, sizeof(w1)), zId, (long long)c->recordId, zParent) ) goto out;
        c->parent = -1; c->depth = -1; aState[aStack[j]] = 2;
      }
      nStack = k-1;
      base = -2;          /* below a cycle: not in the tree either */
    }else base = a[r].depth < 0 ? -2 : a[r].depth;
    while( nStack>0 ){
      int32_t x = aStack[--nStack];
      if( base==-2 ){ a[x].depth = -1; }
      else{ a[x].depth = base + 1; base = a[x].depth; }
      aState[x] = 2;
    }
  }
  rc = PS_OK;
out:
  free(aId); free(aStack); free(aState);
  if( rc==PS_NOMEM ) ps_nomem(err);
  return rc;
}

/* ---------------------------------------------------------------- samples */

int64_t ps_sample_add(PsCapture *cap, int64_t ts, int64_t dur, uint32_t thread, int32_t leaf,
                      int64_t weight, uint64_t off){
  if( ps_events_want_stack(cap) ) return -1;
  if( weight!=1 && ps_events_want_weight(cap) ) return -1;
  int64_t r = ps_events_add(cap);
  if( r<0 ) return -1;
  PsEvents *e = &cap->ev;
  e->aTs[r] = ts; e->aDur[r] = dur; e->aOff[r] = off;
  e->aThread[r] = thread;
  e->aTrack[r] = cap->nThread ? cap->aThread[thread].track : 0;
  e->aPh[r] = 'P';
  e->aFlags[r] = PS_EV_SAMPLE | PS_EV_POINT;
  e->aStack[r] = leaf;
  if( e->aWeight ) e->aWeight[r] = weight;
  return r;
}

int ps_stack_ref(PsCapture *cap, int32_t row, int64_t id, uint64_t off){
  if( ps_events_want_stack(cap) ) return PS_NOMEM;
  if( ps_grow((void**)&cap->aStackRef, sizeof(PsStackRef), &cap->nStackRefAlloc, cap->nStackRef+1) ) return PS_NOMEM;
  PsStackRef *x = &cap->aStackRef[cap->nStackRef++];
  x->row = row; x->id = id; x->off = off;
  return PS_OK;
}

/* Resolves the pending stack references by frame id (the first record of an id). */
static int stacks_resolve_refs(PsCapture *cap){
  size_t n = cap->nRec;
  if( cap->nStackRef==0 ) return PS_OK;
  IdRow *aId = malloc((n ? n : 1)*sizeof(IdRow));
  if( aId==0 ) return PS_NOMEM;
  for(size_t r=0; r<n; r++){ aId[r].id = cap->aRec[r].recordId; aId[r].row = (int32_t)r; }
  qsort(aId, n, sizeof(IdRow), idrow_cmp);
  int rc = PS_OK;
  for(size_t k=0; k<cap->nStackRef && rc==PS_OK; k++){
    const PsStackRef *x = &cap->aStackRef[k];
    size_t lo = 0, hi = n;
    while( lo<hi ){ size_t m = (lo+hi)/2; if( aId[m].id < x->id ) lo = m+1; else hi = m; }
    if( x->row<0 || (size_t)x->row>=cap->ev.n ) continue;
    if( lo<n && aId[lo].id==x->id ) cap->ev.aStack[x->row] = aId[lo].row;
    else rc = ps_diag(cap, PS_DIAG_UNKNOWN_ID, (int64_t)x->off,
                      "byte %llu: stack frame id %lld is not defined; the row has no stack",
                      (unsigned long long)x->off, (long long)x->id);
  }
  cap->nWork += n + cap->nStackRef;
  free(aId);
  free(cap->aStackRef); cap->aStackRef = 0; cap->nStackRef = cap->nStackRefAlloc = 0;
  return rc;
}

/* *pV += d saturating at INT64_MAX (d >= 0); 1 when it saturated. */
static int sat_add(int64_t *pV, int64_t d){
  if( d<0 ) d = 0;
  if( __builtin_add_overflow(*pV, d, pV) ){ *pV = INT64_MAX; return 1; }
  return 0;
}

int ps_stacks_finish(PsCapture *cap, int bResolve, PsErr *err){
  if( bResolve && ps_records_tree(cap, "frame id", "parent", err) ) return PS_NOMEM;
  if( stacks_resolve_refs(cap) ) return ps_nomem(err);
  size_t n = cap->nRec;
  PsRecord *a = cap->aRec;
  const PsEvents *e = &cap->ev;
  int bDur = 0, bSat = 0;
  for(size_t r=0; r<n; r++){ a[r].count = 0; a[r].self = 0; a[r].time = 0; }
  if( e->aStack ){
    for(size_t i=0; i<e->n; i++){
      int32_t s = e->aStack[i];
      if( s<0 || (size_t)s>=n || !(e->aFlags[i] & PS_EV_SAMPLE) ) continue;
      bSat |= sat_add(&a[s].count, e->aWeight ? e->aWeight[i] : 1);
      if( e->aDur[i]!=PS_NULL64 ){ bDur = 1; bSat |= sat_add(&a[s].self, e->aDur[i]); }
    }
  }
  if( !bDur ){
    for(size_t r=0; r<n; r++){ a[r].self = a[r].time = PS_NULL64; }
  }else{
    /* inclusive time: children before parents, by depth (a counting sort of the rows) */
    int32_t maxDepth = 0;
    for(size_t r=0; r<n; r++){ a[r].time = a[r].self; if( a[r].depth>maxDepth ) maxDepth = a[r].depth; }
    size_t *aStart = calloc((size_t)maxDepth + 2, sizeof(size_t));
    int32_t *aOrd = malloc((n ? n : 1)*sizeof(int32_t));
    if( aStart==0 || aOrd==0 ){ free(aStart); free(aOrd); return ps_nomem(err); }
    for(size_t r=0; r<n; r++) if( a[r].depth>=0 ) aStart[a[r].depth+1]++;
    for(int32_t d=0; d<=maxDepth; d++) aStart[d+1] += aStart[d];
    for(size_t r=0; r<n; r++) if( a[r].depth>=0 ) aOrd[aStart[a[r].depth]++] = (int32_t)r;
    size_t nOrd = aStart[maxDepth];
    for(size_t k=nOrd; k>0; k--){
      PsRecord *x = &a[aOrd[k-1]];
      if( x->parent>=0 && a[x->parent].depth>=0 ) bSat |= sat_add(&a[x->parent].time, x->time);
    }
    free(aStart); free(aOrd);
  }
  cap->nWork += n + e->n;
  if( bSat && ps_diag(cap, PS_DIAG_OTHER, -1, "a sample sum is beyond int64; it is kept as %lld",
                      (long long)INT64_MAX) ) return ps_nomem(err);
  return PS_OK;
}
