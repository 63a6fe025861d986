/*
** stacks.c — call stacks as records and samples as events: the trie that turns lists of frames
** into a call tree, frames with ids and their parent resolution (shared with the timings
** reports' RecordId tree), the walk of that tree that profile_records' tree columns (and so
** sql/record_tree.sql) read, and the sample sums (count, self, inclusive time) every sampled
** format's records carry. See stacks.h for the model.
*/
#define _GNU_SOURCE            /* memmem */
#include "stacks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- trie */

void ps_stack_trie_free(PsStackTrie *t){
  free(t->a); free(t->aSlot);
  memset(t, 0, sizeof(*t));
}

/* The slot hash of (parent row, frame key): keyed (ps_hash_pair), so a file cannot choose frames
** that all land in one slot (issue 32: x ^ (x >> 29) over a product let a 6 MB folded file take
** 41 s). Every slot examined counts in ps_nProbe. */
static uint64_t trie_hash(int32_t parent, uint64_t key){
  return ps_hash_pair((uint64_t)(uint32_t)parent, key);
}

/* Doubles the table (1024 slots first). PS_OK or PS_NOMEM. */
static int trie_rehash(PsStackTrie *t){
  size_t nh = t->nSlot ? t->nSlot*2 : 1024;
  uint32_t *a = calloc(nh, sizeof(uint32_t));
  if( a==0 ) return PS_NOMEM;
  for(size_t i=0; i<t->n; i++){
    const PsStackNode *x = &t->a[i];
    size_t j = (size_t)(trie_hash(x->parent, x->key) & (nh-1));
    ps_nProbe++;
    while( a[j] ){ j = (j+1) & (nh-1); ps_nProbe++; }
    a[j] = (uint32_t)i + 1;
  }
  free(t->aSlot); t->aSlot = a; t->nSlot = nh;
  return PS_OK;
}

int32_t ps_stack_child(PsCapture *cap, PsStackTrie *t, int32_t parent, uint64_t key,
                       uint32_t name, uint32_t category, int *pbNew){
  if( pbNew ) *pbNew = 0;
  if( (t->n+1)*2 > t->nSlot && trie_rehash(t) ) return -1;
  size_t mask = t->nSlot-1, j = (size_t)(trie_hash(parent, key) & mask);
  uint64_t nProbe = 1;
  uint32_t ix;
  while( (ix = t->aSlot[j])!=0 ){
    const PsStackNode *x = &t->a[ix-1];
    if( x->key==key && x->parent==parent ){ ps_nProbe += nProbe; return x->row; }
    j = (j+1) & mask;
    nProbe++;
  }
  ps_nProbe += nProbe;
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
  PsStackNode *x = &t->a[t->n];
  x->key = key; x->parent = parent; x->row = row;
  t->n++;
  t->aSlot[j] = (uint32_t)t->n;
  if( pbNew ) *pbNew = 1;
  return row;
}

/* ---------------------------------------------------------------- ids */

/* RecordId -> its first row: a direct table over [lo, lo+nDirect) when the ids are that dense
** (timings reports, frame tries, flat lists: 1..n or nearly), else a hash (open addressing,
** nHash a power of 2, row -1: empty). Linear either way; aId keeps the ids in row order, since
** each pass over aRec (~160 bytes a record) costs more than the lookups. */
typedef struct IdSlot { int64_t id; int32_t row; } IdSlot;
typedef struct IdMap {
  int64_t *aId;                 /* recordId of each row */
  int64_t lo; size_t nDirect; int32_t *aDirect;
  size_t nHash; IdSlot *aHash;
} IdMap;

/* The slot of id in the hash: its entry, or the empty slot where it goes. Keyed (ps_hash_u64):
** ids a file picks to share a slot under a fixed hash (issue 32: id * G) spread like any
** others. Every slot examined counts in ps_nProbe. */
static IdSlot *idmap_slot(const IdMap *m, int64_t id){
  size_t j = (size_t)(ps_hash_u64((uint64_t)id) & (m->nHash-1));
  ps_nProbe++;
  while( m->aHash[j].row>=0 && m->aHash[j].id!=id ){ j = (j+1) & (m->nHash-1); ps_nProbe++; }
  return &m->aHash[j];
}

/* The first row of id, or -1. */
static int32_t idmap_first(const IdMap *m, int64_t id){
  if( m->aDirect ){
    uint64_t k = (uint64_t)id - (uint64_t)m->lo;
    return id>=m->lo && k<m->nDirect ? m->aDirect[k] : -1;
  }
  return idmap_slot(m, id)->row;
}

/* Large scratch arrays ask for transparent huge pages (ps_hugepages): written once, faulting
** them in 4 KiB pages costs more than the walk itself. */
static void *big_alloc(size_t nByte){
  void *p = malloc(nByte ? nByte : 1);
  ps_hugepages(p, nByte);
  return p;
}

static void idmap_free(IdMap *m){
  free(m->aId); free(m->aDirect); free(m->aHash);
  memset(m, 0, sizeof(*m));
}

/* Builds m for the n records a (idmap_free frees it, also after a failure). PS_OK or PS_NOMEM. */
static int idmap_build(IdMap *m, const PsRecord *a, size_t n){
  memset(m, 0, sizeof(*m));
  int64_t *aId = m->aId = big_alloc(n*sizeof(int64_t));
  if( aId==0 ) return PS_NOMEM;
  int64_t lo = n ? a[0].recordId : 0, hi = lo;
  for(size_t r=0; r<n; r++){
    int64_t id = aId[r] = a[r].recordId;
    if( id<lo ) lo = id;
    if( id>hi ) hi = id;
  }
  uint64_t span = (uint64_t)hi - (uint64_t)lo;
  if( span < 2*(uint64_t)n + 64 ){
    m->lo = lo; m->nDirect = (size_t)span + 1;
    m->aDirect = big_alloc(m->nDirect*sizeof(int32_t));
    if( m->aDirect==0 ) return PS_NOMEM;
    memset(m->aDirect, 0xff, m->nDirect*sizeof(int32_t));       /* -1 */
    for(size_t r=n; r>0; r--) m->aDirect[(uint64_t)aId[r-1] - (uint64_t)lo] = (int32_t)(r-1);
    return PS_OK;
  }
  m->nHash = 16;
  while( m->nHash < 2*n ) m->nHash *= 2;
  m->aHash = big_alloc(m->nHash*sizeof(IdSlot));
  if( m->aHash==0 ) return PS_NOMEM;
  for(size_t j=0; j<m->nHash; j++) m->aHash[j].row = -1;
  for(size_t r=0; r<n; r++){
    IdSlot *x = idmap_slot(m, aId[r]);
    if( x->row<0 ){ x->id = aId[r]; x->row = (int32_t)r; }
  }
  return PS_OK;
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
  size_t n = cap->nRec, nDup = 0;
  PsRecord *a = cap->aRec;
  char w1[48], w2[48];
  int rc = PS_NOMEM;
  IdMap m;
  IdRow *aDup = 0;
  int32_t *aStack = malloc((n ? n : 1)*sizeof(int32_t));
  uint8_t *aState = calloc(n ? n : 1, 1);
  if( idmap_build(&m, a, n) || aStack==0 || aState==0 ) goto out;
  /* an id used again: links by that id go to its first record, and the later ones are left out
  ** of the tree (depth -1, state 2 below) — SQL walks join on record_id, so a second record of
  ** one id would otherwise close a loop (1 -> 2 -> the second 1 -> 2 ...). Reported in (id,
  ** row) order. */
  for(size_t r=0; r<n; r++){
    a[r].parent = -1;
    if( idmap_first(&m, m.aId[r])!=(int32_t)r ) nDup++;
  }
  if( nDup ){
    aDup = malloc(nDup*sizeof(IdRow));
    if( aDup==0 ) goto out;
    nDup = 0;
    for(size_t r=0; r<n; r++){
      if( idmap_first(&m, m.aId[r])==(int32_t)r ) continue;
      aDup[nDup].id = a[r].recordId; aDup[nDup].row = (int32_t)r; nDup++;
    }
    qsort(aDup, nDup, sizeof(IdRow), idrow_cmp);
  }
  for(size_t k=0; k<nDup; k++){
    PsRecord *d = &a[aDup[k].row];
    if( ps_diag(cap, PS_DIAG_DUPLICATE, d->line ? -1 : (int64_t)d->msgOff,
                "%s: %s %lld is used again (first on %s); "
                "links go to the first, and this record is left out of the tree (depth NULL)",
                ps_record_where(d, w1, sizeof(w1)), zId, (long long)d->recordId,
                ps_record_where(&a[idmap_first(&m, d->recordId)], w2, sizeof(w2))) ) goto out;
    d->depth = -1;
    aState[aDup[k].row] = 2;
  }
  /* resolve parents (they may come later in the file) */
  for(size_t r=0; r<n; r++){
    if( a[r].parentId==PS_NULL64 || aState[r] ) continue;
    int32_t f = idmap_first(&m, a[r].parentId);
    if( f>=0 ){
      a[r].parent = f;
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
  idmap_free(&m); free(aDup); free(aStack); free(aState);
  if( rc==PS_NOMEM ) ps_nomem(err);
  return rc;
}

/* ---------------------------------------------------------------- the walk of the record tree */

const PsRecTree *ps_records_walk(PsCapture *cap){
  if( cap->aRecTree ) return cap->aRecTree;
  size_t n = cap->nRec;
  const PsRecord *a = cap->aRec;
  IdMap m;
  PsRecTree *t = big_alloc(n*sizeof(PsRecTree));
  int32_t *aUp = big_alloc(n*sizeof(int32_t));      /* first row of the parent id; -1 none,
                                                     ** -2 out of the tree; then the queue */
  int32_t *aStart = big_alloc((n+1)*sizeof(int32_t));/* children of row r: ...  */
  int32_t *aKid = big_alloc(n*sizeof(int32_t));     /* ... aKid[aStart[r] .. aStart[r+1]) */
  int32_t *aFirst = big_alloc(n*sizeof(int32_t));   /* first row of the row's id */
  int rc = idmap_build(&m, a, n);
  if( t==0 || aUp==0 || aStart==0 || aKid==0 || aFirst==0 || rc ){
    free(t); t = 0;
    goto out;
  }
  /* one pass over the records (the scans of aRec are what this costs): the parents (the first
  ** row of the parent id), the roots, the children counted and their time summed per parent */
  memset(aStart, 0, (n+1)*sizeof(int32_t));
  for(size_t r=0; r<n; r++){ t[r].root = t[r].parent = -1; t[r].childTime = 0; }
  for(size_t r=0; r<n; r++){
    const PsRecord *x = &a[r];
    aFirst[r] = idmap_first(&m, m.aId[r]);
    if( x->depth<0 ){ aUp[r] = -2; continue; }
    int32_t p = aUp[r] = x->parentId==PS_NULL64 ? -1 : idmap_first(&m, x->parentId);
    if( p<0 ){ t[r].root = (int32_t)r; continue; }
    aStart[p+1]++;
    if( x->time==PS_NULL64 || t[p].childTime==PS_NULL64 ) continue;
    if( __builtin_add_overflow(t[p].childTime, x->time, &t[p].childTime) ) t[p].childTime = PS_NULL64;
  }
  /* the children listed by the first row of their parent id, in row order */
  for(size_t r=0; r<n; r++) aStart[r+1] += aStart[r];
  for(size_t r=0; r<n; r++) if( aUp[r]>=0 ) aKid[aStart[aUp[r]]++] = (int32_t)r;
  for(size_t r=n; r>0; r--) aStart[r] = aStart[r-1];     /* back to the starts */
  aStart[0] = 0;
  /* every record of an id has that id's children (the first's, whose row f < r holds its own
  ** sum still); out of the tree: NULL. Then the roots, queued in row order. */
  size_t nQ = 0;
  for(size_t r=0; r<n; r++){
    if( aFirst[r]!=(int32_t)r ) t[r].childTime = t[aFirst[r]].childTime;
  }
  for(size_t r=0; r<n; r++){
    if( aUp[r]==-2 ) t[r].childTime = PS_NULL64;
    if( t[r].root==(int32_t)r ) aUp[nQ++] = (int32_t)r;      /* nQ <= r: aUp[r] is read */
  }
  /* breadth-first from the roots: each record once, at its first place */
  for(size_t q=0; q<nQ; q++){
    int32_t w = aUp[q], f = aFirst[w];
    for(int32_t k=aStart[f]; k<aStart[f+1]; k++){
      int32_t c = aKid[k];
      if( t[c].root>=0 ) continue;
      t[c].root = t[w].root; t[c].parent = w;
      aUp[nQ++] = c;
    }
  }
  cap->nWork += 4*n;
  cap->aRecTree = t;
out:
  idmap_free(&m); free(aUp); free(aStart); free(aKid); free(aFirst);
  return t;
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

/* 1 when every record in the tree (depth >= 0) has its parent at an earlier row, as a trie's
** records do: its children's rows all come after it. */
static int stacks_parents_first(const PsRecord *a, size_t n){
  for(size_t r=0; r<n; r++){
    if( a[r].depth>=0 && a[r].parent>=(int32_t)r ) return 0;
  }
  return 1;
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
  }else if( stacks_parents_first(a, n) ){
    /* inclusive time when every parent's row comes before its children's (the tries): one pass
    ** from the last row, each child's time added to its parent's once it is complete */
    for(size_t r=0; r<n; r++) a[r].time = a[r].self;
    for(size_t r=n; r>0; r--){
      PsRecord *x = &a[r-1];
      if( x->depth>=0 && x->parent>=0 && a[x->parent].depth>=0 ) bSat |= sat_add(&a[x->parent].time, x->time);
    }
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

/* ---------------------------------------------------------------- frame labels */
int ps_frame_is_anonymous(const PsCapture *cap, const PsRecord *x){
  uint32_t nm = x->name;
  if( nm==0 || ps_pool_get(&cap->pool, nm).n!=0 || x->zAttrs==0 ) return 0;
  return memmem(x->zAttrs, x->nAttrs, "\"functionName\"", 14)!=0;
}

const char *ps_frame_label(const PsCapture *cap, const PsRecord *x, char *buf, size_t nBuf){
  if( nBuf==0 ) return buf;
  if( !ps_frame_is_anonymous(cap, x) ){
    PsStr s = x->name ? ps_pool_get(&cap->pool, x->name) : (PsStr){ "", 0 };
    size_t n = s.n < nBuf-1 ? s.n : nBuf-1;
    if( n ) memcpy(buf, s.z, n);
    buf[n] = 0;
    return buf;
  }
  const char *zA = x->zAttrs; size_t nA = x->nAttrs;
  int n = snprintf(buf, nBuf, "(anonymous)");
  if( x->category && n>0 && (size_t)n<nBuf ){
    PsStr u = ps_pool_get(&cap->pool, x->category);
    size_t i = u.n;
    while( i>0 && u.z[i-1]!='/' && u.z[i-1]!='\\' ) i--;
    size_t nf = u.n - i;
    if( nf > 400 ) nf = 400;
    if( nf>0 ){
      n += snprintf(buf+n, nBuf-(size_t)n, " %.*s", (int)nf, u.z + i);
      const char *p = zA ? memmem(zA, nA, "\"lineNumber\"", 12) : 0;
      if( p && (size_t)n<nBuf ){
        const char *e = zA + nA;
        p += 12;
        while( p<e && (*p==' ' || *p=='\t' || *p=='\n' || *p=='\r' || *p==':') ) p++;
        long long v = 0; int nd = 0;
        while( p<e && *p>='0' && *p<='9' && nd<10 ){ v = v*10 + (*p - '0'); p++; nd++; }
        if( nd>0 ) snprintf(buf+n, nBuf-(size_t)n, ":%lld", v + 1);
      }
    }
  }
  return buf;
}
