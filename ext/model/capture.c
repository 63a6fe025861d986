/*
** capture.c — the columnar capture model shared by every format: string pool, event columns,
** threads, tracks, metadata/diagnostic rows, and the format-independent passes (compaction,
** nesting by containment, the parent -> children index). See capture.h.
*/
#define _GNU_SOURCE            /* mremap */
#include "capture.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

/* ================================================================ string pool */

int ps_pool_init(PsPool *p){
  memset(p, 0, sizeof(*p));
  ps_arena_init(&p->arena);
  p->nHash = 1024;
  p->aHash = calloc(p->nHash, sizeof(uint32_t));
  p->nAlloc = 256;
  p->a = malloc(p->nAlloc * sizeof(PsStr));
  if( p->aHash==0 || p->a==0 ){ ps_pool_free(p); return PS_NOMEM; }
  p->a[0].z = 0; p->a[0].n = 0;
  p->n = 1;
  return PS_OK;
}

void ps_pool_free(PsPool *p){
  ps_arena_free(&p->arena);
  free(p->a); free(p->aHash);
  memset(p, 0, sizeof(*p));
}

static int pool_rehash(PsPool *p){
  size_t nNew = p->nHash*2;
  uint32_t *aNew = calloc(nNew, sizeof(uint32_t));
  if( aNew==0 ) return -1;
  for(size_t id=1; id<p->n; id++){
    size_t h = (size_t)ps_hash(p->a[id].z, p->a[id].n) & (nNew-1);
    ps_nProbe++;
    while( aNew[h] ){ h = (h+1) & (nNew-1); ps_nProbe++; }
    aNew[h] = (uint32_t)id;
  }
  free(p->aHash);
  p->aHash = aNew; p->nHash = nNew;
  return 0;
}

/* The id of z[0..n) in the pool, or 0 with *pSlot = the free slot where it would go. */
static uint32_t pool_find(const PsPool *p, const char *z, size_t n, size_t *pSlot){
  size_t mask = p->nHash-1;
  size_t h = (size_t)ps_hash(z, n) & mask;
  uint32_t id;
  ps_nProbe++;
  while( (id = p->aHash[h])!=0 ){
    if( p->a[id].n==n && memcmp(p->a[id].z, z, n)==0 ) return id;
    h = (h+1) & mask;
    ps_nProbe++;
  }
  *pSlot = h;
  return 0;
}

/* Adds z[0..n) (which obeys the text rule) at hash slot h; its id, or 0 when out of memory. */
static uint32_t pool_add(PsPool *p, const char *z, size_t n, size_t h){
  if( p->n >= UINT32_MAX-1 ) return 0;
  if( ps_grow((void**)&p->a, sizeof(PsStr), &p->nAlloc, p->n+1) ) return 0;
  char *c = ps_arena_strdup(&p->arena, z, n);
  if( c==0 ) return 0;
  uint32_t id = (uint32_t)p->n++;
  p->a[id].z = c; p->a[id].n = (uint32_t)n;
  p->aHash[h] = id;
  if( p->n*2 > p->nHash && pool_rehash(p) ){ return 0; }
  return id;
}

uint32_t ps_pool_intern_text(PsPool *p, const char *z, size_t n, int *pbNew, size_t *pBad){
  size_t h, bad;
  if( pbNew ) *pbNew = 0;
  if( pBad ) *pBad = PS_TEXT_OK;
  if( n > UINT32_MAX ) return 0;
  uint32_t id = pool_find(p, z, n, &h);
  if( id ) return id;
  /* a new string: only text that obeys the rule goes in; anything else goes in repaired (a
  ** string found broken is checked again each time it comes: it is never stored as it was) */
  if( !ps_text_check(z, n, &bad) ){
    size_t m = ps_text_repair(z, n, 0);
    char *zFix = m <= UINT32_MAX ? malloc(m ? m : 1) : 0;
    if( zFix==0 ) return 0;
    ps_text_repair(z, n, zFix);
    id = pool_find(p, zFix, m, &h);
    if( id==0 ){
      id = pool_add(p, zFix, m, h);
      if( id && pbNew ) *pbNew = 1;
    }
    free(zFix);
    if( id && pBad ) *pBad = bad;
    return id;
  }
  id = pool_add(p, z, n, h);
  if( id && pbNew ) *pbNew = 1;
  return id;
}

uint32_t ps_pool_intern(PsPool *p, const char *z, size_t n, int *pbNew){
  return ps_pool_intern_text(p, z, n, pbNew, 0);
}

/* ================================================================ capture */

/* ---- row columns
** A row column of nAlloc rows lives in pages of its own (mmap) once it is COL_MAPPED bytes or
** more: a 2 MB-aligned mapping of whole 2 MB units, with transparent huge pages asked for
** (MADV_HUGEPAGE). A million-row column is tens of MB written once; with 4 KB pages the faults
** took ~14% of a Chrome load, and huge pages took the 1M-event bench trace's load from 0.46-0.50
** to 0.36-0.38 s on one thread, 0.38-0.41 to 0.22-0.24 s on two. It grows by moving its pages
** into a bigger mapping (mremap, MREMAP_FIXED): the kernel moves the page tables, huge pages
** whole, instead of copying the rows into fresh pages the way realloc does once malloc's
** adaptive threshold has put blocks of this size on its heap (0.05 s a step at 1M rows). Smaller
** columns, and systems without mremap, use malloc. Which of the two holds a column follows from
** (nAlloc, element size) alone, so col_free needs no tag. */
#if defined(__linux__) && defined(MREMAP_FIXED)
#define COL_MAPPED ((size_t)1 << 20)
#define COL_UNIT   ((size_t)2 << 20)
static size_t col_units(size_t nByte){ return (nByte + COL_UNIT - 1) & ~(COL_UNIT - 1); }

/* A fresh zero mapping of col_units(nByte) bytes at a 2 MB boundary, or NULL. */
static void *col_map(size_t nByte){
  size_t n = col_units(nByte);
  char *p = mmap(0, n + COL_UNIT, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0);
  if( p==MAP_FAILED ) return 0;
  char *a = (char*)(((uintptr_t)p + COL_UNIT - 1) & ~(uintptr_t)(COL_UNIT - 1));
  if( a>p ) munmap(p, (size_t)(a - p));
  munmap(a + n, (size_t)(p + COL_UNIT - a));      /* (the tail: the unit's rest past a + n) */
#ifdef MADV_HUGEPAGE
  madvise(a, n, MADV_HUGEPAGE);
#endif
  return a;
}
#else
#define COL_MAPPED ((size_t)-1)
#endif

/* A column of n rows of 'size' bytes, zeroed when bZero. */
static void *col_alloc(size_t n, size_t size, int bZero){
  size_t nByte = (n ? n : 1)*size;
#if defined(__linux__) && defined(MREMAP_FIXED)
  if( nByte >= COL_MAPPED ) return col_map(nByte);
#endif
  return bZero ? calloc(n ? n : 1, size) : malloc(nByte);
}

/* Grows column p from nOld to nNew rows (nNew > nOld); rows past nOld are zero when bZero. */
static void *col_grow(void *p, size_t nOld, size_t nNew, size_t size, int bZero){
  size_t newB = nNew*size;
#if defined(__linux__) && defined(MREMAP_FIXED)
  size_t oldB = (nOld ? nOld : 1)*size;
  if( newB >= COL_MAPPED ){
    if( oldB >= COL_MAPPED && col_units(oldB)==col_units(newB) ) return p;
    void *q = col_map(newB);
    if( q==0 ) return 0;
    if( oldB < COL_MAPPED ){
      memcpy(q, p, nOld*size);
      free(p);
      return q;
    }
    /* (the new mapping's pages past the old size stay zero) */
    if( mremap(p, col_units(oldB), col_units(oldB), MREMAP_MAYMOVE|MREMAP_FIXED, q)==MAP_FAILED ){
      munmap(q, col_units(newB));
      return 0;
    }
    return q;
  }
#endif
  void *q = realloc(p, newB);
  if( q && bZero ) memset((char*)q + nOld*size, 0, (nNew - nOld)*size);
  return q;
}

static void col_free(void *p, size_t n, size_t size){
  if( p==0 ) return;
#if defined(__linux__) && defined(MREMAP_FIXED)
  size_t nByte = (n ? n : 1)*size;
  if( nByte >= COL_MAPPED ){ munmap(p, col_units(nByte)); return; }
#else
  (void)n; (void)size;
#endif
  free(p);
}

/* Every row column of e: where it is, its element size, whether it is optional (NULL until a
** parser asks for it, ps_events_want_*), and an optional column's value in rows no parser set
** (the value ps_events_add gives it too; the other columns' new rows are set by ps_events_add). */
#define EV_NCOL 16
typedef struct EvCol { void **pp; uint8_t size, bOpt; int64_t def; } EvCol;
static void ev_columns(PsEvents *e, EvCol a[EV_NCOL]){
  int k = 0;
#define C(f, o, d) a[k].pp = (void**)&e->f; a[k].size = sizeof(*e->f); a[k].bOpt = o; a[k++].def = d
  C(aTs,0,0); C(aDur,0,0); C(aOff,0,0); C(aName,0,0); C(aCat,0,0); C(aThread,0,0); C(aTrack,0,0);
  C(aParent,0,0); C(aDepth,0,0); C(aPh,0,0); C(aFlags,0,0);
  C(aEndOff,1,0); C(aLen,1,0); C(aStack,1,-1); C(aWeight,1,1); C(aCpu,1,-1);
#undef C
}

/* Sets rows [from, to) of an optional column c (at p) to its default; a default of 0 is what
** col_alloc / col_grow gave it already. */
static void col_fill(const EvCol *c, void *p, size_t from, size_t to){
  if( c->def==0 ) return;
  for(size_t k=from; k<to; k++){
    if( c->size==8 ) ((int64_t*)p)[k] = c->def; else ((int32_t*)p)[k] = (int32_t)c->def;
  }
}

PsCapture *ps_capture_new(void){
  PsCapture *cap = calloc(1, sizeof(*cap));
  if( cap==0 ) return 0;
  ps_arena_init(&cap->arena);
  if( ps_pool_init(&cap->pool) ){ free(cap); return 0; }
  return cap;
}

void ps_capture_free(PsCapture *cap){
  if( cap==0 ) return;
  PsEvents *e = &cap->ev;
  EvCol aCol[EV_NCOL];
  ev_columns(e, aCol);
  for(int k=0; k<EV_NCOL; k++) col_free(*aCol[k].pp, e->nAlloc, aCol[k].size);
  free(cap->aThread); free(cap->aTrack); free(cap->aMeta); free(cap->aLink); free(cap->aRec); free(cap->aStackRef);
  free(cap->aPlane); free(cap->aLine); free(cap->aJob);
  free(cap->aChildStart); free(cap->aChildList); free(cap->aRoots);
  free(cap->aByStr[0]); free(cap->aByStr[1]); free(cap->aRecById); free(cap->aRecByParent); free(cap->aRecTree);
  if( cap->xModelFree ) cap->xModelFree(cap->pModel);
  ps_pool_free(&cap->pool);
  ps_arena_free(&cap->arena);
  ps_source_close(&cap->src);
  free(cap->aThreadHash);
  free(cap);
}

size_t ps_capture_memory(const PsCapture *cap){
  const PsEvents *e = &cap->ev;
  size_t perRow = 3*8 + 6*4 + 2 + (e->aEndOff ? 8 : 0) + (e->aLen ? 4 : 0)
                + (e->aStack ? 4 : 0) + (e->aWeight ? 8 : 0) + (e->aCpu ? 4 : 0);
  return e->nAlloc*perRow + cap->pool.arena.nTotal + cap->arena.nTotal
       + cap->pool.nAlloc*sizeof(PsStr) + cap->pool.nHash*4
       + cap->nThreadAlloc*sizeof(PsThread) + cap->nTrackAlloc*sizeof(PsTrack)
       + cap->nMetaAlloc*sizeof(PsMeta) + cap->nLinkAlloc*sizeof(PsLink)
       + cap->nRecAlloc*sizeof(PsRecord)
       + (cap->aRecTree ? cap->nRec*sizeof(PsRecTree) : 0)
       + (cap->aChildStart ? (e->n*2+1)*4 : 0);
}

int ps_events_reserve(PsCapture *cap, size_t need){
  PsEvents *e = &cap->ev;
  if( need <= e->nAlloc ) return PS_OK;
  size_t n = e->nAlloc ? e->nAlloc : 64;
  while( n < need ) n += n/2 + 64;
  if( n > INT32_MAX ) n = INT32_MAX;
  if( need > n ) return PS_NOMEM;
  EvCol aCol[EV_NCOL];
  ev_columns(e, aCol);
  for(int k=0; k<EV_NCOL; k++){
    if( aCol[k].bOpt && *aCol[k].pp==0 ) continue;
    void *q = col_grow(*aCol[k].pp, e->nAlloc, n, aCol[k].size, aCol[k].bOpt && aCol[k].def==0);
    if( q==0 ){
      /* the columns before k hold n rows, k and the ones after it nAlloc: give them all back
      ** (col_free must know each one's size), leaving an empty capture */
      for(int j=0; j<EV_NCOL; j++){ col_free(*aCol[j].pp, j<k ? n : e->nAlloc, aCol[j].size); *aCol[j].pp = 0; }
      e->n = e->nAlloc = 0;
      return PS_NOMEM;
    }
    *aCol[k].pp = q;
    if( aCol[k].bOpt ) col_fill(&aCol[k], q, e->nAlloc, n);
  }
  e->nAlloc = n;
  return PS_OK;
}

void ps_events_release_rows(PsCapture *cap, size_t from, size_t to){
#if defined(__linux__) && defined(MREMAP_FIXED) && defined(MADV_DONTNEED)
  PsEvents *e = &cap->ev;
  EvCol aCol[EV_NCOL];
  ev_columns(e, aCol);
  if( to > e->nAlloc ) to = e->nAlloc;
  for(int k=0; k<EV_NCOL && from<to; k++){
    char *p = *aCol[k].pp;
    size_t size = aCol[k].size;
    if( p==0 || e->nAlloc*size < COL_MAPPED ) continue;
    size_t a = (from*size) & ~(COL_UNIT - 1), b = (to*size) & ~(COL_UNIT - 1);
    if( b > a ) madvise(p + a, b - a, MADV_DONTNEED);
  }
#else
  (void)cap; (void)from; (void)to;
#endif
}

int64_t ps_events_add(PsCapture *cap){
  PsEvents *e = &cap->ev;
  if( e->n >= e->nAlloc && ps_events_reserve(cap, e->n+1) ) return -1;
  size_t i = e->n++;
  e->aTs[i] = 0; e->aDur[i] = PS_NULL64; e->aOff[i] = 0;
  e->aName[i] = 0; e->aCat[i] = 0; e->aThread[i] = 0; e->aTrack[i] = 0;
  e->aParent[i] = -1; e->aDepth[i] = -1; e->aPh[i] = 0; e->aFlags[i] = 0;
  if( e->aStack ) e->aStack[i] = -1;
  if( e->aWeight ) e->aWeight[i] = 1;
  if( e->aCpu ) e->aCpu[i] = -1;
  if( e->aLen ) e->aLen[i] = 0;
  if( e->aEndOff ) e->aEndOff[i] = 0;
  return (int64_t)i;
}

PsRecord *ps_record_add(PsCapture *cap){
  if( ps_grow((void**)&cap->aRec, sizeof(PsRecord), &cap->nRecAlloc, cap->nRec+1) ) return 0;
  PsRecord *r = &cap->aRec[cap->nRec++];
  memset(r, 0, sizeof(*r));
  r->recordId = (int64_t)cap->nRec;
  r->parentId = r->timerId = r->threadId = PS_NULL64;
  r->time = r->count = r->violations = r->ticks = r->peak = r->self = PS_NULL64;
  r->parent = -1; r->depth = 0;
  return r;
}

/* Allocates the optional column at pp (one of e's, NULL so far) for every allocated row, each set
** to the column's default (ev_columns). */
static int want_col(PsCapture *cap, void **pp){
  if( *pp ) return PS_OK;
  EvCol aCol[EV_NCOL];
  ev_columns(&cap->ev, aCol);
  int k = 0;
  while( aCol[k].pp!=pp ) k++;
  void *a = col_alloc(cap->ev.nAlloc, aCol[k].size, aCol[k].def==0);
  if( a==0 ) return PS_NOMEM;
  col_fill(&aCol[k], a, 0, cap->ev.nAlloc ? cap->ev.nAlloc : 1);
  *pp = a;
  return PS_OK;
}
int ps_events_want_len(PsCapture *cap){ return want_col(cap, (void**)&cap->ev.aLen); }
int ps_events_want_stack(PsCapture *cap){ return want_col(cap, (void**)&cap->ev.aStack); }
int ps_events_want_cpu(PsCapture *cap){ return want_col(cap, (void**)&cap->ev.aCpu); }
int ps_events_want_weight(PsCapture *cap){ return want_col(cap, (void**)&cap->ev.aWeight); }
int ps_events_want_endoff(PsCapture *cap){ return want_col(cap, (void**)&cap->ev.aEndOff); }

/* ---------------------------------------------------------------- threads, tracks */

static int value_eq(const PsValue *a, const PsValue *b){
  if( a->type!=b->type ) return 0;
  if( a->type==PS_VAL_INT ) return a->i==b->i;
  if( a->type==PS_VAL_TEXT ) return a->s==b->s;
  return 1;
}

int64_t ps_track_add(PsCapture *cap, int kind, uint32_t thread, uint32_t name){
  if( ps_grow((void**)&cap->aTrack, sizeof(PsTrack), &cap->nTrackAlloc, cap->nTrack+1) ) return -1;
  PsTrack *t = &cap->aTrack[cap->nTrack];
  t->kind = (uint8_t)kind; t->scope = PS_SCOPE_THREAD; t->cpu = -1; t->thread = thread; t->name = name;
  return (int64_t)cap->nTrack++;
}

uint64_t ps_value_hash(const PsValue *v){
  return ps_hash_pair((uint64_t)v->i, v->s | (uint64_t)v->type << 32);
}

/* (keyed: ps_util.h; 40k chosen tids once made this table quadratic) */
static uint64_t thread_hash(const PsValue *pid, const PsValue *tid){
  return ps_hash_pair(ps_value_hash(pid), ps_value_hash(tid));
}

static int thread_rehash(PsCapture *cap){
  size_t nNew = cap->nThreadHash ? cap->nThreadHash*2 : 64;
  uint32_t *a = calloc(nNew, sizeof(uint32_t));
  if( a==0 ) return -1;
  for(size_t k=0; k<cap->nThread; k++){
    size_t h = (size_t)thread_hash(&cap->aThread[k].pid, &cap->aThread[k].tid) & (nNew-1);
    ps_nProbe++;
    while( a[h] ){ h = (h+1) & (nNew-1); ps_nProbe++; }
    a[h] = (uint32_t)k+1;
  }
  free(cap->aThreadHash);
  cap->aThreadHash = a; cap->nThreadHash = nNew;
  return 0;
}

int64_t ps_thread_get(PsCapture *cap, const PsValue *pid, const PsValue *tid){
  size_t h = 0;
  if( cap->nThreadHash ){
    size_t mask = cap->nThreadHash-1;
    h = (size_t)thread_hash(pid, tid) & mask;
    uint32_t k;
    ps_nProbe++;
    while( (k = cap->aThreadHash[h])!=0 ){
      PsThread *t = &cap->aThread[k-1];
      if( value_eq(&t->pid, pid) && value_eq(&t->tid, tid) ) return (int64_t)(k-1);
      h = (h+1) & mask;
      ps_nProbe++;
    }
  }
  if( ps_grow((void**)&cap->aThread, sizeof(PsThread), &cap->nThreadAlloc, cap->nThread+1) ) return -1;
  PsThread *t = &cap->aThread[cap->nThread];
  memset(t, 0, sizeof(*t));
  t->pid = *pid; t->tid = *tid;
  int64_t tr = ps_track_add(cap, PS_TRACK_THREAD, (uint32_t)cap->nThread, 0);
  if( tr<0 ) return -1;
  t->track = (uint32_t)tr;
  cap->nThread++;
  if( cap->nThread*2 > cap->nThreadHash ){
    if( thread_rehash(cap) ) return -1;
  }else{
    cap->aThreadHash[h] = (uint32_t)cap->nThread;
  }
  return (int64_t)cap->nThread-1;
}

const char *ps_value_text(const PsCapture *cap, const PsValue *v, char *buf, size_t nBuf){
  if( v->type==PS_VAL_INT ){ snprintf(buf, nBuf, "%lld", (long long)v->i); }
  else if( v->type==PS_VAL_TEXT ){
    PsStr s = ps_pool_get(&cap->pool, v->s);
    /* at most 200 bytes, and what fits between the quotes in buf: cut before a character, never
    ** inside one (the pool's text is valid UTF-8; a cut half would not be, issue 32) */
    size_t m = s.n > 200 ? 200 : s.n;
    if( nBuf < 3 ) m = 0;
    else if( m > nBuf - 3 ) m = nBuf - 3;
    while( m>0 && m<s.n && ((unsigned char)s.z[m] & 0xC0)==0x80 ) m--;
    snprintf(buf, nBuf, "'%.*s'", (int)m, s.z ? s.z : "");
  }else snprintf(buf, nBuf, "NULL");
  return buf;
}

const char *ps_track_text(const PsCapture *cap, size_t t, char *buf, size_t nBuf){
  /* the text is made by one snprintf below, then, when nBuf cut it, its end is taken back to
  ** the start of the character the cut split (its fields are valid UTF-8: pool strings) */
#define TRACK_TEXT_END(buf, nBuf) do{ \
    size_t nT_ = strlen(buf), iT_ = nT_; \
    while( iT_>0 && nT_-iT_<4 && ((unsigned char)(buf)[iT_-1] & 0xC0)==0x80 ) iT_--; \
    if( iT_>0 && (unsigned char)(buf)[iT_-1]>=0xC0 ){ \
      unsigned char cT_ = (unsigned char)(buf)[iT_-1]; \
      size_t nNeed_ = cT_>=0xF0 ? 4 : cT_>=0xE0 ? 3 : 2; \
      if( nT_-(iT_-1) < nNeed_ ) (buf)[iT_-1] = 0; \
    } \
  }while(0)
  const PsTrack *tr = &cap->aTrack[t];
  const PsThread *th = &cap->aThread[tr->thread];
  char b1[64], b2[64];
  if( tr->kind==PS_TRACK_THREAD || tr->name==0 ){
    snprintf(buf, nBuf, "thread pid=%s tid=%s", ps_value_text(cap, &th->pid, b1, sizeof(b1)),
             ps_value_text(cap, &th->tid, b2, sizeof(b2)));
    TRACK_TEXT_END(buf, nBuf);
    return buf;
  }
  /* key layout: kind \x1f field \x1f ...: async "A cat scope pid|g id", counter "C pid name id" */
  PsStr s = ps_pool_get(&cap->pool, tr->name);
  if( tr->kind==PS_TRACK_CPU || s.n<2 || s.z[1]!='\x1f' ){
    /* the name as it is: "cpu 2", "global instants", ftrace's "atrace counter pid=..." (only
    ** Chrome's keyed tracks are named by a key) */
    snprintf(buf, nBuf, "%.*s", (int)s.n, s.z);
    TRACK_TEXT_END(buf, nBuf);
    return buf;
  }
  const char *azF[4] = {"", "", "", ""}; int anF[4] = {0, 0, 0, 0}, nF = 0;
  size_t j = 2, j0 = 2;
  for(; j<s.n && nF<4; j++){
    if( s.z[j]=='\x1f' ){ azF[nF] = s.z+j0; anF[nF] = (int)(j-j0); nF++; j0 = j+1; }
  }
  if( tr->kind==PS_TRACK_ASYNC ){
    /* pid field: "g" for global ids, else the pid value prefixed by its type (i/s/n) */
    int bLocal = anF[2]>0 && azF[2][0]!='g';
    snprintf(buf, nBuf, "async cat=%.*s id=%.*s%s%.*s%s%.*s",
             anF[0], azF[0], anF[3], azF[3],
             anF[1] ? " scope=" : "", anF[1], azF[1],
             bLocal ? " local to pid=" : "", bLocal ? anF[2]-1 : 0, azF[2]+1);
  }else{
    snprintf(buf, nBuf, "counter pid=%s name=%.*s%s%.*s",
             ps_value_text(cap, &th->pid, b1, sizeof(b1)), anF[1], azF[1],
             anF[2] ? " id=" : "", anF[2], azF[2]);
  }
  TRACK_TEXT_END(buf, nBuf);
#undef TRACK_TEXT_END
  return buf;
}

/* ---------------------------------------------------------------- the text rule */

/* Whether z points into the capture's source bytes (then its offset there is z - src.z). */
static int in_source(const PsCapture *cap, const char *z){
  uintptr_t a = (uintptr_t)cap->src.z, b = (uintptr_t)z;
  return cap->src.z && z && b>=a && b - a < cap->src.n;
}

int ps_text_diag(PsCapture *cap, int64_t off, const char *zField, const char *z, size_t n, size_t bad){
  if( bad>=n ) return PS_OK;
  unsigned char c = (unsigned char)z[bad];
  char zAt[40] = "";
  if( off>=0 ) snprintf(zAt, sizeof(zAt), " at byte %lld", (long long)off);
  if( c==0 ) return ps_diag(cap, PS_DIAG_INVALID_TEXT, off, "a NUL byte in %s%s; replaced with U+FFFD", zField, zAt);
  return ps_diag(cap, PS_DIAG_INVALID_TEXT, off, "invalid UTF-8 (byte 0x%02x) in %s%s; replaced with U+FFFD",
                 c, zField, zAt);
}

int ps_intern(PsCapture *cap, const char *z, size_t n, int64_t off, const char *zField, uint32_t *pId){
  size_t bad;
  *pId = ps_pool_intern_text(&cap->pool, z, n, 0, &bad);
  if( *pId==0 ) return PS_NOMEM;
  if( bad==PS_TEXT_OK ) return PS_OK;
  return ps_text_diag(cap, off>=0 ? off + (int64_t)bad : -1, zField, z, n, bad);
}

/* ---------------------------------------------------------------- metadata */

static PsMeta *meta_add(PsCapture *cap, const char *zScope, const char *zKey, int64_t off){
  if( ps_grow((void**)&cap->aMeta, sizeof(PsMeta), &cap->nMetaAlloc, cap->nMeta+1) ) return 0;
  PsMeta *m = &cap->aMeta[cap->nMeta];
  memset(m, 0, sizeof(*m));
  m->scope = ps_pool_intern(&cap->pool, zScope, strlen(zScope), 0);
  m->key = ps_pool_intern(&cap->pool, zKey, strlen(zKey), 0);
  if( m->scope==0 || m->key==0 ) return 0;
  m->off = off;
  cap->nMeta++;
  return m;
}

int ps_meta_int(PsCapture *cap, const char *zScope, const char *zKey, int64_t v, int64_t off){
  PsMeta *m = meta_add(cap, zScope, zKey, off);
  if( m==0 ) return PS_NOMEM;
  m->type = PS_META_INT; m->i = v;
  return PS_OK;
}

int ps_meta_real(PsCapture *cap, const char *zScope, const char *zKey, double v, int64_t off){
  PsMeta *m = meta_add(cap, zScope, zKey, off);
  if( m==0 ) return PS_NOMEM;
  m->type = PS_META_REAL; m->r = v;
  return PS_OK;
}

int ps_meta_text(PsCapture *cap, const char *zScope, const char *zKey, const char *z, size_t n,
                 int type, int64_t off){
  size_t bad;
  if( z && (type==PS_META_TEXT || type==PS_META_JSON) && !ps_text_check(z, n, &bad) ){
    /* the text rule: the value is stored repaired; one read from the source bytes also gets
    ** a diagnostic naming the bad byte (other values were checked where they were decoded) */
    if( in_source(cap, z) ){
      char zField[300];
      snprintf(zField, sizeof(zField), "%s '%s'", zScope, zKey);
      if( ps_text_diag(cap, (int64_t)(z - cap->src.z) + (int64_t)bad, zField, z, n, bad) ) return PS_NOMEM;
    }
    size_t m = ps_text_repair(z, n, 0);
    char *zFix = ps_arena_alloc(&cap->arena, m + 1);
    if( zFix==0 ) return PS_NOMEM;
    ps_text_repair(z, n, zFix);
    zFix[m] = 0;
    z = zFix; n = m;
  }
  PsMeta *m = meta_add(cap, zScope, zKey, off);
  if( m==0 ) return PS_NOMEM;
  m->type = (uint8_t)type; m->z = z; m->n = n;
  return PS_OK;
}

static int meta_vprintf(PsCapture *cap, const char *zScope, const char *zKey, int64_t off,
                        const char *fmt, va_list ap){
  char buf[512];
  int k = vsnprintf(buf, sizeof(buf), fmt, ap);
  if( k<0 ) k = 0;
  if( (size_t)k >= sizeof(buf) ) k = sizeof(buf)-1;
  char *z = ps_arena_strdup(&cap->arena, buf, (size_t)k);
  if( z==0 ) return PS_NOMEM;
  return ps_meta_text(cap, zScope, zKey, z, (size_t)k, PS_META_TEXT, off);
}

int ps_meta_printf(PsCapture *cap, const char *zScope, const char *zKey, int64_t off,
                   const char *fmt, ...){
  va_list ap; va_start(ap, fmt);
  int rc = meta_vprintf(cap, zScope, zKey, off, fmt, ap);
  va_end(ap);
  return rc;
}

int ps_meta_track(PsCapture *cap, size_t t){
  PsMeta *m = meta_add(cap, "track", "", -1);
  if( m==0 ) return PS_NOMEM;
  m->type = PS_META_TRACK; m->i = (int64_t)t;
  return PS_OK;
}

PsStr ps_meta_key(const PsCapture *cap, const PsMeta *m, char *zBuf){
  if( m->type!=PS_META_TRACK ){
    if( m->key==0 ){ PsStr none = { 0, 0 }; return none; }
    return ps_pool_get(&cap->pool, m->key);
  }
  int k = snprintf(zBuf, PS_META_KEY_BUF, "%lld", (long long)m->i);
  PsStr s = { zBuf, (uint32_t)(k>0 ? k : 0) };
  return s;
}

void ps_meta_value(const PsCapture *cap, const PsMeta *m, PsOut *o, char *zBuf){
  memset(o, 0, sizeof(*o));
  if( m->type==PS_META_TRACK ){
    if( m->i<0 || (uint64_t)m->i>=cap->nTrack ) return;
    ps_track_text(cap, (size_t)m->i, zBuf, PS_META_TRACK_BUF);
    o->type = PS_META_TEXT; o->z = zBuf; o->n = strlen(zBuf);
    return;
  }
  o->type = m->type; o->i = m->i; o->r = m->r; o->z = m->z; o->n = m->n;
  if( (o->type==PS_META_TEXT || o->type==PS_META_JSON) && o->z==0 ) o->type = 0;
}

void ps_meta_drop(PsCapture *cap, size_t m0, size_t m1){
  uint32_t diag = ps_pool_intern(&cap->pool, "diagnostic", 10, 0);
  for(size_t k=m0; k<m1 && k<cap->nMeta; k++){
    if( cap->aMeta[k].scope!=diag ) cap->aMeta[k].type = PS_META_DROPPED;
  }
}

void ps_meta_compact(PsCapture *cap){
  size_t j = 0;
  for(size_t k=0; k<cap->nMeta; k++){
    if( cap->aMeta[k].type!=PS_META_DROPPED ) cap->aMeta[j++] = cap->aMeta[k];
  }
  cap->nMeta = j;
}

const char *const ps_diag_names[PS_DIAG_N] = {
  "unmatched_end", "unclosed_begin", "overlap", "missing_ph", "empty_event", "other",
  "unparsed_line", "missing_parent", "parent_cycle", "duplicate_id", "unknown_id", "invalid_text",
  "duplicate_key", "lenient_json", "skipped_event"
};

int ps_diag(PsCapture *cap, int kind, int64_t off, const char *fmt, ...){
  if( cap->nDiag[kind]++ >= PS_DIAG_ROWS ) return PS_OK;
  va_list ap; va_start(ap, fmt);
  int rc = meta_vprintf(cap, "diagnostic", ps_diag_names[kind], off, fmt, ap);
  va_end(ap);
  return rc;
}

int ps_diag_finish(PsCapture *cap){
  for(int k=0; k<PS_DIAG_N; k++){
    if( cap->nDiag[k]==0 ) continue;
    char key[64];
    snprintf(key, sizeof(key), "%s_count", ps_diag_names[k]);
    if( ps_meta_int(cap, "diagnostic", key, (int64_t)cap->nDiag[k], -1) ) return PS_NOMEM;
  }
  return PS_OK;
}

/* ================================================================ passes */

int ps_capture_compact(PsCapture *cap){
  PsEvents *e = &cap->ev;
  size_t n = e->n, j = 0;
  int32_t *aMap = malloc((n ? n : 1)*sizeof(int32_t));
  if( aMap==0 ) return PS_NOMEM;
  for(size_t i=0; i<n; i++){
    if( e->aFlags[i] & PS_EV_DEAD ){ aMap[i] = -1; continue; }
    aMap[i] = (int32_t)j;
    if( j!=i ){
      e->aTs[j] = e->aTs[i]; e->aDur[j] = e->aDur[i]; e->aOff[j] = e->aOff[i];
      if( e->aEndOff ) e->aEndOff[j] = e->aEndOff[i];
      if( e->aLen ) e->aLen[j] = e->aLen[i];
      if( e->aStack ) e->aStack[j] = e->aStack[i];
      if( e->aWeight ) e->aWeight[j] = e->aWeight[i];
      if( e->aCpu ) e->aCpu[j] = e->aCpu[i];
      e->aName[j] = e->aName[i]; e->aCat[j] = e->aCat[i]; e->aThread[j] = e->aThread[i];
      e->aTrack[j] = e->aTrack[i]; e->aParent[j] = e->aParent[i]; e->aDepth[j] = e->aDepth[i];
      e->aPh[j] = e->aPh[i]; e->aFlags[j] = e->aFlags[i];
    }
    j++;
  }
  e->n = j;
  for(size_t i=0; i<j; i++){
    if( e->aParent[i]>=0 ) e->aParent[i] = aMap[e->aParent[i]];
  }
  size_t k = 0;
  for(size_t i=0; i<cap->nLink; i++){
    int32_t r = aMap[cap->aLink[i].row], t = cap->aLink[i].target>=0 ? aMap[cap->aLink[i].target] : -1;
    if( r>=0 ){ cap->aLink[k].row = r; cap->aLink[k].target = t; k++; }
  }
  cap->nLink = k;
  free(aMap);
  return PS_OK;
}

typedef struct NestKey { int64_t ts, end; int32_t row; } NestKey;

static int nestkey_cmp(const void *a, const void *b){
  const NestKey *x = a, *y = b;
  if( x->ts!=y->ts ) return x->ts < y->ts ? -1 : 1;
  if( x->end!=y->end ) return x->end > y->end ? -1 : 1;    /* longer first */
  return x->row < y->row ? -1 : (x->row > y->row);
}

static inline int64_t row_end(const PsEvents *e, size_t r){
  if( !(e->aFlags[r] & PS_EV_SLICE) ) return e->aTs[r];
  if( e->aDur[r]==PS_NULL64 ) return INT64_MAX;
  int64_t d = e->aDur[r] < 0 ? 0 : e->aDur[r];
  return e->aTs[r] > INT64_MAX - d ? INT64_MAX : e->aTs[r] + d;
}

/* An overlap found while nesting: slice 'row' starts inside 'parent' but outlasts it. */
typedef struct NestOverlap { int32_t row, parent; } NestOverlap;

static int overlap_cmp(const void *a, const void *b){
  const NestOverlap *x = a, *y = b;
  return x->row < y->row ? -1 : (x->row > y->row);
}

/* Nests the rows of one track given in (ts, longer first, row) order, with an array stack.
** Used for tracks whose rows are not in that order in the file. */
static int nest_sorted_track(PsEvents *e, const int32_t *aOrder, size_t nOrder,
                             NestOverlap **paOv, size_t *pnOv, size_t *pnOvAlloc){
  struct { int32_t row; int64_t end; } *aStack = 0;
  size_t nStack = 0, nStackAlloc = 0;
  for(size_t k=0; k<nOrder; k++){
    int32_t r = aOrder[k];
    int64_t ts = e->aTs[r], end = row_end(e, (size_t)r);
    int bSlice = (e->aFlags[r] & PS_EV_SLICE)!=0, bOpen = bSlice && e->aDur[r]==PS_NULL64;
    while( nStack>0 ){
      int64_t pend = aStack[nStack-1].end;
      if( pend <= ts ){ nStack--; continue; }
      if( !bSlice || bOpen || end <= pend ) break;
      if( ps_grow((void**)paOv, sizeof(NestOverlap), pnOvAlloc, *pnOv+1) ){ free(aStack); return PS_NOMEM; }
      (*paOv)[*pnOv].row = r; (*paOv)[*pnOv].parent = aStack[nStack-1].row; (*pnOv)++;
      nStack--;
    }
    if( nStack>0 ){
      int32_t p = aStack[nStack-1].row;
      e->aParent[r] = p; e->aDepth[r] = e->aDepth[p] + 1;
      if( bOpen ) end = aStack[nStack-1].end;      /* never ended: ends with its parent */
    }else{
      e->aParent[r] = -1; e->aDepth[r] = 0;
    }
    if( bSlice ){
      if( ps_grow((void**)&aStack, sizeof(*aStack), &nStackAlloc, nStack+1) ){ free(aStack); return PS_NOMEM; }
      aStack[nStack].row = r; aStack[nStack].end = end; nStack++;
    }
  }
  free(aStack);
  return PS_OK;
}

int ps_capture_nest(PsCapture *cap, PsErr *err){
  PsEvents *e = &cap->ev;
  size_t n = e->n, nT = cap->nTrack, nBad = 0;
  int rc = PS_NOMEM;
  /* Pass 1, in file order, one stack per track (linked nodes from one pool): sorted writers
  ** give every track in (ts, longer first) order, so this is one sequential sweep. A track
  ** found out of order is marked and nested again in pass 2. */
  int64_t *aLastTs = malloc((nT ? nT : 1)*sizeof(int64_t));
  int64_t *aLastEnd = malloc((nT ? nT : 1)*sizeof(int64_t));
  int32_t *aTop = malloc((nT ? nT : 1)*sizeof(int32_t));
  uint8_t *aBad = calloc(nT ? nT : 1, 1);
  struct Node { int32_t row, next; int64_t end; } *aNode = 0;
  size_t nNode = 0, nNodeAlloc = 0;
  int32_t iFree = -1;
  NestOverlap *aOv = 0; size_t nOv = 0, nOvAlloc = 0;
  size_t *aStart = 0; int32_t *aOrder = 0; NestKey *aKey = 0;
  if( aLastTs==0 || aLastEnd==0 || aTop==0 || aBad==0 ) goto out;
  for(size_t t=0; t<nT; t++){ aLastTs[t] = INT64_MIN; aLastEnd[t] = INT64_MAX; aTop[t] = -1; }
  for(size_t i=0; i<n; i++){
    uint8_t fl = e->aFlags[i];
    if( !(fl & (PS_EV_SLICE|PS_EV_POINT)) ) continue;
    uint32_t t = e->aTrack[i];
    if( aBad[t] ) continue;
    int32_t r = (int32_t)i;
    int64_t ts = e->aTs[i], end = row_end(e, i);
    if( ts < aLastTs[t] || (ts==aLastTs[t] && end > aLastEnd[t]) ){ aBad[t] = 1; nBad++; continue; }
    aLastTs[t] = ts; aLastEnd[t] = end;
    int bSlice = (fl & PS_EV_SLICE)!=0, bOpen = bSlice && e->aDur[i]==PS_NULL64;
    while( aTop[t]>=0 ){
      int32_t k = aTop[t];
      if( aNode[k].end > ts ){
        if( !bSlice || bOpen || end <= aNode[k].end ) break;       /* contains r */
        if( ps_grow((void**)&aOv, sizeof(NestOverlap), &nOvAlloc, nOv+1) ) goto out;
        aOv[nOv].row = r; aOv[nOv].parent = aNode[k].row; nOv++;
      }
      aTop[t] = aNode[k].next; aNode[k].next = iFree; iFree = k;   /* pop */
    }
    if( aTop[t]>=0 ){
      int32_t p = aNode[aTop[t]].row;
      e->aParent[i] = p; e->aDepth[i] = e->aDepth[p] + 1;
      if( bOpen ) end = aNode[aTop[t]].end;        /* never ended: ends with its parent */
    }else{
      e->aParent[i] = -1; e->aDepth[i] = 0;
    }
    if( bSlice ){
      int32_t k = iFree;
      if( k>=0 ) iFree = aNode[k].next;
      else{
        if( ps_grow((void**)&aNode, sizeof(*aNode), &nNodeAlloc, nNode+1) ) goto out;
        k = (int32_t)nNode++;
      }
      aNode[k].row = r; aNode[k].end = end; aNode[k].next = aTop[t]; aTop[t] = k;
    }
  }
  if( nBad ){
    /* Pass 2: the out-of-order tracks, each sorted by (ts, longer first, row) */
    size_t j = 0;
    for(size_t i=0; i<nOv; i++) if( !aBad[e->aTrack[aOv[i].row]] ) aOv[j++] = aOv[i];
    nOv = j;
    aStart = calloc(nT+1, sizeof(size_t));
    if( aStart==0 ) goto out;
    size_t m = 0;
    for(size_t i=0; i<n; i++){
      if( (e->aFlags[i] & (PS_EV_SLICE|PS_EV_POINT)) && aBad[e->aTrack[i]] ){ aStart[e->aTrack[i]+1]++; m++; }
    }
    for(size_t t=0; t<nT; t++) aStart[t+1] += aStart[t];
    aOrder = malloc(m*sizeof(int32_t));
    aKey = malloc(m*sizeof(NestKey));
    if( aOrder==0 || aKey==0 ) goto out;
    for(size_t i=0; i<n; i++){
      if( (e->aFlags[i] & (PS_EV_SLICE|PS_EV_POINT)) && aBad[e->aTrack[i]] ){
        size_t k = aStart[e->aTrack[i]]++;
        aKey[k].ts = e->aTs[i]; aKey[k].end = row_end(e, i); aKey[k].row = (int32_t)i;
      }
    }
    /* aStart[t] now marks the end of track t's range; its start is the previous track's end */
    size_t a = 0;
    for(size_t t=0; t<nT; t++){
      size_t b = aStart[t];
      if( b>a ){
        qsort(aKey+a, b-a, sizeof(NestKey), nestkey_cmp);
        for(size_t k=a; k<b; k++) aOrder[k] = aKey[k].row;
        if( nest_sorted_track(e, aOrder+a, b-a, &aOv, &nOv, &nOvAlloc) ) goto out;
      }
      a = b;
    }
  }
  /* overlap diagnostics, in file order */
  if( nOv>1 ) qsort(aOv, nOv, sizeof(NestOverlap), overlap_cmp);
  for(size_t i=0; i<nOv; i++){
    int32_t r = aOv[i].row, p = aOv[i].parent;
    PsStr s = ps_pool_get(&cap->pool, e->aName[r]), ps = ps_pool_get(&cap->pool, e->aName[p]);
    if( ps_diag(cap, PS_DIAG_OVERLAP, (int64_t)e->aOff[r],
                "slice '%.*s' starts inside '%.*s' (byte %llu) but ends after it; "
                "nested under the enclosing slice instead",
                (int)(s.n>80?80:s.n), s.z ? s.z : "", (int)(ps.n>80?80:ps.n), ps.z ? ps.z : "",
                (unsigned long long)e->aOff[p]) ) goto out;
  }
  rc = PS_OK;
out:
  if( rc==PS_NOMEM ) ps_nomem(err);
  free(aLastTs); free(aLastEnd); free(aTop); free(aBad); free(aNode); free(aOv);
  free(aStart); free(aOrder); free(aKey);
  return rc;
}

int ps_capture_children(PsCapture *cap){
  PsEvents *e = &cap->ev;
  size_t n = e->n;
  if( cap->aChildStart ) return PS_OK;
  int32_t *aStart = calloc(n+2, sizeof(int32_t));
  int32_t *aList = malloc((n ? n : 1)*sizeof(int32_t));
  size_t nRoot = 0;
  if( aStart==0 || aList==0 ){ free(aStart); free(aList); return PS_NOMEM; }
  for(size_t i=0; i<n; i++){
    if( e->aParent[i]>=0 ) aStart[e->aParent[i]+2]++; else nRoot++;
  }
  for(size_t i=0; i<n; i++) aStart[i+2] += aStart[i+1];
  for(size_t i=0; i<n; i++){
    if( e->aParent[i]>=0 ) aList[aStart[e->aParent[i]+1]++] = (int32_t)i;
  }
  /* aStart[p]..aStart[p+1] now spans p's children */
  int32_t *aRoots = malloc((nRoot ? nRoot : 1)*sizeof(int32_t));
  if( aRoots==0 ){ free(aStart); free(aList); return PS_NOMEM; }
  size_t k = 0;
  for(size_t i=0; i<n; i++) if( e->aParent[i]<0 ) aRoots[k++] = (int32_t)i;
  cap->aChildStart = aStart; cap->aChildList = aList;
  cap->aRoots = aRoots; cap->nRoots = nRoot;
  return PS_OK;
}

static int link_cmp(const void *a, const void *b){
  const PsLink *x = a, *y = b;
  return x->row < y->row ? -1 : (x->row > y->row);
}

void ps_capture_sort_links(PsCapture *cap){
  if( cap->nLink>1 ) qsort(cap->aLink, cap->nLink, sizeof(PsLink), link_cmp);
}

int32_t ps_capture_link(const PsCapture *cap, int32_t row){
  size_t lo = 0, hi = cap->nLink;
  while( lo<hi ){
    size_t mid = (lo+hi)/2;
    if( cap->aLink[mid].row < row ) lo = mid+1; else hi = mid;
  }
  if( lo<cap->nLink && cap->aLink[lo].row==row ) return cap->aLink[lo].target;
  return -1;
}

static const PsPool *g_sortPool;   /* qsort has no context argument; set just around the call */
static int strid_cmp(const void *a, const void *b){
  PsStr x = g_sortPool->a[*(const uint32_t*)a], y = g_sortPool->a[*(const uint32_t*)b];
  size_t n = x.n < y.n ? x.n : y.n;
  int c = n ? memcmp(x.z, y.z, n) : 0;
  if( c ) return c;
  return x.n < y.n ? -1 : (x.n > y.n);
}

const int32_t *ps_capture_order_by_str(PsCapture *cap, int iWhich){
  if( cap->aByStr[iWhich] ) return cap->aByStr[iWhich];
  const PsEvents *e = &cap->ev;
  const uint32_t *aId = iWhich ? e->aCat : e->aName;
  size_t nStr = cap->pool.n, n = e->n;
  /* rank of every string id that occurs: sort the distinct ids by their bytes */
  uint32_t *aRank = calloc(nStr+1, sizeof(uint32_t));
  uint32_t *aUsed = 0;
  int32_t *aOut = malloc((n ? n : 1)*sizeof(int32_t));
  size_t *aCount = 0;
  size_t nUsed = 0;
  if( aRank==0 || aOut==0 ) goto fail;
  for(size_t i=0; i<n; i++) aRank[aId[i]] = 1;
  for(size_t k=1; k<nStr; k++) if( aRank[k] ) nUsed++;
  aUsed = malloc((nUsed ? nUsed : 1)*sizeof(uint32_t));
  if( aUsed==0 ) goto fail;
  nUsed = 0;
  for(size_t k=1; k<nStr; k++) if( aRank[k] ) aUsed[nUsed++] = (uint32_t)k;
  g_sortPool = &cap->pool;
  qsort(aUsed, nUsed, sizeof(uint32_t), strid_cmp);
  g_sortPool = 0;
  aRank[0] = 0;                                   /* NULL sorts first */
  for(size_t k=0; k<nUsed; k++) aRank[aUsed[k]] = (uint32_t)k+1;
  aCount = calloc(nUsed+2, sizeof(size_t));
  if( aCount==0 ) goto fail;
  for(size_t i=0; i<n; i++) aCount[aRank[aId[i]]+1]++;
  for(size_t k=0; k<=nUsed; k++) aCount[k+1] += aCount[k];
  for(size_t i=0; i<n; i++) aOut[aCount[aRank[aId[i]]]++] = (int32_t)i;
  free(aRank); free(aUsed); free(aCount);
  cap->aByStr[iWhich] = aOut;
  return aOut;
fail:
  free(aRank); free(aUsed); free(aOut); free(aCount);
  return 0;
}

static const PsCapture *g_recCap; static int g_recParent;   /* qsort context, set around the call */
static int rec_cmp(const void *a, const void *b){
  const PsRecord *x = &g_recCap->aRec[*(const int32_t*)a], *y = &g_recCap->aRec[*(const int32_t*)b];
  int64_t u = g_recParent ? x->parentId : x->recordId, v = g_recParent ? y->parentId : y->recordId;
  if( u!=v ) return u < v ? -1 : 1;
  return *(const int32_t*)a < *(const int32_t*)b ? -1 : 1;
}

const int32_t *ps_capture_records_eq(PsCapture *cap, int bParent, int64_t v, size_t *pn){
  int32_t **pa = bParent ? &cap->aRecByParent : &cap->aRecById;
  size_t n = cap->nRec;
  if( *pa==0 ){
    int32_t *a = malloc((n ? n : 1)*sizeof(int32_t));
    if( a==0 ) return 0;
    for(size_t i=0; i<n; i++) a[i] = (int32_t)i;
    g_recCap = cap; g_recParent = bParent;
    qsort(a, n, sizeof(int32_t), rec_cmp);
    g_recCap = 0;
    *pa = a;
  }
  const int32_t *a = *pa;
#define KEY(i) (bParent ? cap->aRec[a[i]].parentId : cap->aRec[a[i]].recordId)
  size_t lo = 0, hi = n;
  while( lo<hi ){ size_t m = (lo+hi)/2; if( KEY(m) < v ) lo = m+1; else hi = m; }
  size_t e = lo;
  while( e<n && KEY(e)==v ) e++;
#undef KEY
  *pn = e - lo;
  return a + lo;
}
