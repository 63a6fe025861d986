/*
** ps_util.c — errors, arena allocator, hashing and UTF-8 validation shared by the
** parsers and the capture model (see ps_util.h), and the text rule (ps_text_check/repair).
*/
#include "ps_util.h"
/* this file is the allocator the rest of ext/ reaches through these names: here they are the C
** library's, and the arena and ps_grow call ps_malloc & co. by name */
#undef malloc
#undef calloc
#undef realloc
#undef free
#undef strdup

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <malloc.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

/* Messages quote input (names, keys, cells): they obey the text rule too (ps_text_repair),
** cut before a character when the repair makes them longer than the buffer. */
static void err_text(char *zMsg, size_t nMsg){
  size_t n = strlen(zMsg), bad;
  if( ps_text_check(zMsg, n, &bad) ) return;
  char tmp[3*sizeof(((PsErr*)0)->msg)];
  size_t m = ps_text_repair(zMsg, n < nMsg ? n : nMsg-1, tmp);
  if( m >= nMsg ){
    m = nMsg-1;
    while( m>0 && ((unsigned char)tmp[m] & 0xC0)==0x80 ) m--;
  }
  memcpy(zMsg, tmp, m);
  zMsg[m] = 0;
}

int ps_err(PsErr *err, const char *fmt, ...){
  if( err ){
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
    va_end(ap);
    err_text(err->msg, sizeof(err->msg));
    err->off = -1;
    err->rc = PS_ERROR;
    err->bEnd = 0; err->zIn = 0;
  }
  return PS_ERROR;
}

const char *ps_path_fit(const char *z, char *buf){
  size_t n = z ? strlen(z) : 0;
  if( n<=PS_PATH_FIT ) return z ? z : "";
  size_t nTail = 130;
  while( nTail<n && ((unsigned char)z[n-nTail] & 0xC0)==0x80 ) nTail--;   /* whole characters */
  size_t nHead = 60;
  while( nHead>0 && ((unsigned char)z[nHead] & 0xC0)==0x80 ) nHead--;
  snprintf(buf, PS_PATH_FIT+1, "%.*s...%s", (int)nHead, z, z + n - nTail);
  return buf;
}

int ps_err_at(PsErr *err, int64_t off, const char *fmt, ...){
  if( err ){
    char buf[360];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    snprintf(err->msg, sizeof(err->msg), "byte %lld: %s", (long long)off, buf);
    err_text(err->msg, sizeof(err->msg));
    err->off = off;
    err->rc = PS_ERROR;
    err->bEnd = 0; err->zIn = 0;
  }
  return PS_ERROR;
}

int ps_nomem(PsErr *err){
  if( err ){
    snprintf(err->msg, sizeof(err->msg), "out of memory");
    err->off = -1;
    err->rc = PS_NOMEM;
  }
  return PS_NOMEM;
}

/* ---------------------------------------------------------------- arena */

struct PsArenaBlock {
  PsArenaBlock *pNext;
  size_t nSize;              /* usable bytes after the header */
  /* data follows, 8-aligned */
};
#define ARENA_HDR ((sizeof(PsArenaBlock)+7) & ~(size_t)7)
#define ARENA_BLOCK (256*1024)

void ps_arena_init(PsArena *a){ memset(a, 0, sizeof(*a)); }

void ps_arena_free(PsArena *a){
  PsArenaBlock *p = a->pHead;
  while( p ){ PsArenaBlock *n = p->pNext; ps_free(p); p = n; }
  memset(a, 0, sizeof(*a));
}

void *ps_arena_alloc(PsArena *a, size_t n){
  n = (n + 7) & ~(size_t)7;
  if( a->pHead==0 || a->nUsed + n > a->pHead->nSize ){
    size_t sz = n > ARENA_BLOCK/4 ? n : ARENA_BLOCK;
    PsArenaBlock *p = ps_malloc(ARENA_HDR + sz);
    if( p==0 ) return 0;
    p->nSize = sz;
    a->nTotal += sz;
    if( sz!=ARENA_BLOCK && a->pHead ){
      /* a big one-off allocation: keep the current block as the head */
      p->pNext = a->pHead->pNext;
      a->pHead->pNext = p;
      return (char*)p + ARENA_HDR;
    }
    p->pNext = a->pHead;
    a->pHead = p;
    a->nUsed = 0;
  }
  void *r = (char*)a->pHead + ARENA_HDR + a->nUsed;
  a->nUsed += n;
  return r;
}

void ps_arena_adopt(PsArena *dst, PsArena *src){
  if( src->pHead==0 ) return;
  if( dst->pHead==0 ){ *dst = *src; ps_arena_init(src); return; }
  /* keep dst's head (it has free room); put src's blocks right after it */
  PsArenaBlock *pLast = src->pHead;
  while( pLast->pNext ) pLast = pLast->pNext;
  pLast->pNext = dst->pHead->pNext;
  dst->pHead->pNext = src->pHead;
  dst->nTotal += src->nTotal;
  ps_arena_init(src);
}

char *ps_arena_strdup(PsArena *a, const char *z, size_t n){
  char *r = ps_arena_alloc(a, n+1);
  if( r ){ if( n ) memcpy(r, z, n); r[n] = 0; }
  return r;
}

int ps_interrupted(PsErr *err){
  ps_err(err, "interrupted");
  err->rc = PS_INTERRUPT;
  return PS_ERROR;
}

/* ---------------------------------------------------------------- byte buffers */

void ps_buf_free(PsBuf *b){ ps_free(b->z); memset(b, 0, sizeof(*b)); }

int ps_buf_append(PsBuf *b, const char *z, size_t n){
  if( b->n + n + 1 > b->nAlloc ){
    size_t na = b->nAlloc ? b->nAlloc : 256;
    while( na < b->n + n + 1 ) na *= 2;
    char *p = ps_realloc(b->z, na);
    if( p==0 ) return -1;
    b->z = p; b->nAlloc = na;
  }
  if( n ) memcpy(b->z + b->n, z, n);     /* z may be NULL when n is 0 (an empty pool string) */
  b->n += n;
  b->z[b->n] = 0;
  return 0;
}

int ps_buf_puts(PsBuf *b, const char *z){ return ps_buf_append(b, z, strlen(z)); }

int ps_buf_printf(PsBuf *b, const char *fmt, ...){
  char small[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(small, sizeof(small), fmt, ap);
  va_end(ap);
  if( n<0 ) return -1;
  if( (size_t)n < sizeof(small) ) return ps_buf_append(b, small, (size_t)n);
  char *big = ps_malloc((size_t)n + 1);
  if( big==0 ) return -1;
  va_start(ap, fmt);
  vsnprintf(big, (size_t)n + 1, fmt, ap);
  va_end(ap);
  int rc = ps_buf_append(b, big, (size_t)n);
  ps_free(big);
  return rc;
}

/* Appends z[0..n) as text that obeys the text rule (ps_util.h): copied when it is valid UTF-8
** without NUL bytes, else repaired (each invalid sequence and each NUL as U+FFFD). -1 when out
** of memory. Every writer's cell and string goes through it, so no file holds a cut or broken
** character whatever the query's TEXT held (SQLite does not check the UTF-8 it is given). */
int ps_buf_text(PsBuf *b, const char *z, size_t n){
  if( ps_text_check(z, n, 0) ) return ps_buf_append(b, z, n);
  size_t m = ps_text_repair(z, n, 0);
  char *zFix = ps_malloc(m ? m : 1);
  if( zFix==0 ) return -1;
  ps_text_repair(z, n, zFix);
  int rc = ps_buf_append(b, zFix, m);
  ps_free(zFix);
  return rc;
}

/* ---------------------------------------------------------------- hashing */

/* Every hash table of libprofsql (the string pool, the thread table, the call-stack trie, the id
** maps, the caches) takes its slots from these functions, keyed by a secret drawn once per process
** (getrandom(2)): an input cannot choose keys that land in one slot without knowing the secret
** (issue 32: a fixed hash let 100k chosen names turn the pool quadratic). The mixing step is the
** folded multiply of wyhash and foldhash (the 128-bit product of two words, its halves XORed),
** which neither XOR nor multiplication by a constant undoes; every word is XORed with a secret
** word before it is multiplied. PROFSQL_HASH_SEED=<integer> in the environment fixes the secret
** (tests run the suite under two seeds: no output may depend on it). */

_Thread_local uint64_t ps_nProbe;

static uint64_t aHashKey[4];          /* the secret; set once by hash_key_init */
static pthread_once_t hashOnce = PTHREAD_ONCE_INIT;

/* splitmix64's step: spreads a seed over the four secret words */
static uint64_t hash_splitmix(uint64_t *x){
  uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static void hash_key_init(void){
  uint64_t seed = 0;
  const char *zSeed = getenv("PROFSQL_HASH_SEED");
  if( zSeed && zSeed[0] ){
    seed = strtoull(zSeed, 0, 0);
  }else{
    ssize_t got = getrandom(&seed, sizeof(seed), GRND_NONBLOCK);
    if( got!=(ssize_t)sizeof(seed) ){
      /* no entropy yet (early boot): the clock and the addresses ASLR placed */
      struct timespec ts; clock_gettime(CLOCK_REALTIME, &ts);
      seed = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ (uint64_t)(uintptr_t)&seed
           ^ ((uint64_t)(uintptr_t)&hash_key_init << 17) ^ ((uint64_t)getpid() << 40);
    }
  }
  for(int i=0; i<4; i++) aHashKey[i] = hash_splitmix(&seed) | 1;   /* odd: never a zero factor */
}

static inline const uint64_t *hash_key(void){
  pthread_once(&hashOnce, hash_key_init);
  return aHashKey;
}

/* the folded multiply: the 128-bit product of a and b, its high half XORed into its low half */
static inline uint64_t hash_mum(uint64_t a, uint64_t b){
  __uint128_t r = (__uint128_t)a * b;
  return (uint64_t)r ^ (uint64_t)(r >> 64);
}
static inline uint64_t hash_rd64(const unsigned char *p){ uint64_t w; memcpy(&w, p, 8); return w; }
static inline uint64_t hash_rd32(const unsigned char *p){ uint32_t w; memcpy(&w, p, 4); return w; }

uint64_t ps_hash(const void *pv, size_t n){
  const unsigned char *p = pv;
  const uint64_t *k = hash_key();
  uint64_t h = k[0] ^ (uint64_t)n, a, b;
  if( n<=16 ){
    if( n>=8 ){ a = hash_rd64(p); b = hash_rd64(p + n - 8); }
    else if( n>=4 ){ a = hash_rd32(p); b = hash_rd32(p + n - 4); }
    else if( n>0 ){ a = ((uint64_t)p[0]<<16) | ((uint64_t)p[n>>1]<<8) | p[n-1]; b = 0; }
    else{ a = b = 0; }
  }else{
    size_t i = n;
    while( i>16 ){
      h = hash_mum(hash_rd64(p) ^ k[1], hash_rd64(p + 8) ^ h);
      p += 16; i -= 16;
    }
    a = hash_rd64(p + i - 16); b = hash_rd64(p + i - 8);
  }
  h = hash_mum(a ^ k[1], b ^ h);
  return hash_mum(h ^ k[2], (uint64_t)n ^ k[3]);
}

uint64_t ps_hash_pair(uint64_t a, uint64_t b){
  const uint64_t *k = hash_key();
  return hash_mum(hash_mum(a ^ k[0], b ^ k[1]) ^ k[2], k[3]);
}

uint64_t ps_hash_u64(uint64_t x){
  const uint64_t *k = hash_key();
  return hash_mum(hash_mum(x ^ k[0], k[1]) ^ k[2], k[3]);
}

/* A fixed, unkeyed multiply-xorshift hash: the same value in every process, for what is shown
** (a flame graph frame's colour), never for a table's slots. */
uint64_t ps_hash_fixed(const void *pv, size_t n){
  const unsigned char *p = pv;
  uint64_t h = 0x9E3779B97F4A7C15ull ^ ((uint64_t)n * 0xff51afd7ed558ccdull);
  while( n>=8 ){
    uint64_t w; memcpy(&w, p, 8);
    h = (h ^ w) * 0x87c37b91114253d5ull;
    h ^= h >> 29;
    p += 8; n -= 8;
  }
  if( n ){
    uint64_t w = 0;
    memcpy(&w, p, n);
    h = (h ^ w) * 0x4cf5ad432745937full;
  }
  h ^= h >> 32; h *= 0xc4ceb9fe1a85ec53ull; h ^= h >> 29;
  return h;
}

/* ---------------------------------------------------------------- the text rule */

/* Length of the well-formed UTF-8 sequence at z[i] (Unicode Table 3-7), or 0 when z[i] starts
** none; then *pSub is the length of its maximal subpart (the bytes that one U+FFFD replaces:
** the lead byte and the continuation bytes that could still have completed it). */
static size_t text_seq(const unsigned char *z, size_t n, size_t i, size_t *pSub){
  unsigned c = z[i];
  size_t len; unsigned lo = 0x80, hi = 0xBF;
  if( c>=0xC2 && c<=0xDF ) len = 2;
  else if( c>=0xE0 && c<=0xEF ){ len = 3; if( c==0xE0 ) lo = 0xA0; else if( c==0xED ) hi = 0x9F; }
  else if( c>=0xF0 && c<=0xF4 ){ len = 4; if( c==0xF0 ) lo = 0x90; else if( c==0xF4 ) hi = 0x8F; }
  else { *pSub = 1; return 0; }         /* 0x80-0xC1, 0xF5-0xFF never start a character */
  size_t k = 1;
  for(; k<len && i+k<n; k++){
    unsigned d = z[i+k];
    if( d<lo || d>hi ) break;
    lo = 0x80; hi = 0xBF;                /* only the second byte has a narrower range */
  }
  if( k==len ) return len;
  *pSub = k;
  return 0;
}

#define TEXT_ONES  0x0101010101010101ull
#define TEXT_HIGHS 0x8080808080808080ull

int ps_text_check(const char *zText, size_t n, size_t *pBad){
  const unsigned char *z = (const unsigned char*)zText;
  size_t i = 0, sub;
  while( i<n ){
    /* ASCII without NUL, eight bytes at a time */
    while( i+8<=n ){
      uint64_t w; memcpy(&w, z+i, 8);
      if( (w & TEXT_HIGHS) || ((w - TEXT_ONES) & ~w & TEXT_HIGHS) ) break;
      i += 8;
    }
    if( i>=n ) break;
    unsigned c = z[i];
    if( c==0 ) goto bad;
    if( c<0x80 ){ i++; continue; }
    size_t len = text_seq(z, n, i, &sub);
    if( len==0 ) goto bad;
    i += len;
  }
  return 1;
bad:
  if( pBad ) *pBad = i;
  return 0;
}

size_t ps_text_repair(const char *zText, size_t n, char *zOut){
  const unsigned char *z = (const unsigned char*)zText;
  size_t i = 0, k = 0, sub;
  while( i<n ){
    unsigned c = z[i];
    size_t len = (c && c<0x80) ? 1 : c ? text_seq(z, n, i, &sub) : 0;
    if( len ){
      if( zOut ) memcpy(zOut+k, z+i, len);
      k += len; i += len;
      continue;
    }
    if( c==0 ) sub = 1;
    if( zOut ){ zOut[k] = (char)0xEF; zOut[k+1] = (char)0xBF; zOut[k+2] = (char)0xBD; }
    k += 3; i += sub;
  }
  return k;
}

char *ps_text_cstr(const char *z, size_t n, size_t nMax, char *buf){
  size_t m = n;
  if( m > nMax ){
    m = nMax;
    for(int j=0; j<3 && m>0 && ((unsigned char)z[m] & 0xC0)==0x80; j++) m--;   /* not inside a character */
  }
  buf[ps_text_repair(z, m, buf)] = 0;
  return buf;
}

int ps_grow(void **pa, size_t sz, size_t *pnAlloc, size_t need){
  if( need <= *pnAlloc ) return 0;
  size_t n = *pnAlloc ? *pnAlloc : 16;
  while( n < need ) n += n/2 + 16;
  void *p = ps_realloc(*pa, n*sz);
  if( p==0 ) return -1;
  *pa = p;
  *pnAlloc = n;
  return 0;
}

/* ---------------------------------------------------------------- memory */

static const PsAllocator *pHostAlloc;           /* NULL: the C library's (read and written atomically) */
static PsAllocator hostAlloc;                   /* its copy, written once (allocMutex) */
static pthread_mutex_t allocMutex = PTHREAD_MUTEX_INITIALIZER;
_Thread_local PsBudget *ps_budget;

int ps_set_allocator(const PsAllocator *p){
  pthread_mutex_lock(&allocMutex);
  const PsAllocator *pNow = __atomic_load_n(&pHostAlloc, __ATOMIC_ACQUIRE);
  int ok = pNow==0 || (pNow->xMalloc==p->xMalloc && pNow->xFree==p->xFree);
  if( pNow==0 ){
    hostAlloc = *p;
    __atomic_store_n(&pHostAlloc, &hostAlloc, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&allocMutex);
  return ok;
}

/* The blocks of PS_BIG_ALLOC bytes or more taken from the C library while a host allocator is
** in force (so that ps_free and ps_realloc know them). Few: each is a gigabyte. */
#define BIG_SLOTS 64
static struct { void *p; size_t n; } aBig[BIG_SLOTS];
static int nBigLive;                             /* atomic: entries in use (a fast "none") */
static pthread_mutex_t bigMutex = PTHREAD_MUTEX_INITIALIZER;

/* the size of big block p, or 0 when p is not one; bRemove: forget it */
static size_t big_find(void *p, int bRemove){
  if( __atomic_load_n(&nBigLive, __ATOMIC_ACQUIRE)==0 ) return 0;
  size_t n = 0;
  pthread_mutex_lock(&bigMutex);
  for(int i=0; i<BIG_SLOTS; i++){
    if( aBig[i].p==p ){
      n = aBig[i].n;
      if( bRemove ){ aBig[i].p = 0; aBig[i].n = 0; __atomic_sub_fetch(&nBigLive, 1, __ATOMIC_RELEASE); }
      break;
    }
  }
  pthread_mutex_unlock(&bigMutex);
  return n;
}
/* records big block p of n bytes; 0, or -1 when the table is full */
static int big_add(void *p, size_t n){
  int rc = -1;
  pthread_mutex_lock(&bigMutex);
  for(int i=0; i<BIG_SLOTS; i++){
    if( aBig[i].p==0 ){
      aBig[i].p = p; aBig[i].n = n; rc = 0;
      __atomic_add_fetch(&nBigLive, 1, __ATOMIC_RELEASE);
      break;
    }
  }
  pthread_mutex_unlock(&bigMutex);
  return rc;
}

/* Budget: 1 when n more bytes would pass the limit (then bOver is set); else 0. */
static int budget_refuses(PsBudget *b, size_t n){
  if( b==0 || b->nLimit<=0 ) return 0;
  if( __atomic_load_n(&b->nUsed, __ATOMIC_RELAXED) + (int64_t)n > b->nLimit ){
    __atomic_store_n(&b->bOver, 1, __ATOMIC_RELAXED);
    return 1;
  }
  return 0;
}
static void budget_add(PsBudget *b, int64_t n){
  if( b==0 ) return;
  int64_t now = __atomic_add_fetch(&b->nUsed, n, __ATOMIC_RELAXED);
  int64_t peak = __atomic_load_n(&b->nPeak, __ATOMIC_RELAXED);
  while( now>peak && !__atomic_compare_exchange_n(&b->nPeak, &peak, now, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED) ){}
}

/* the bytes a block that is not a big one holds (for the budget) */
static size_t small_size(const PsAllocator *a, void *p){
  return a ? (size_t)a->xSize(p) : malloc_usable_size(p);
}
/* the bytes block p holds, big or not */
static size_t block_size(const PsAllocator *a, void *p){
  size_t n = big_find(p, 0);
  return n ? n : small_size(a, p);
}

#ifdef PS_FAULT_INJECT
long ps_fi_countdown = -1;
long ps_fi_count = 0;
static int fi_fail(void){
  ps_fi_count++;
  if( ps_fi_countdown<0 ) return 0;
  if( ps_fi_countdown==0 ){ ps_fi_countdown = -1; return 1; }   /* one failure, then normal */
  ps_fi_countdown--;
  return 0;
}
#else
#define fi_fail() 0
#endif

void *ps_malloc(size_t n){
  if( fi_fail() ) return 0;
  if( n==0 ) n = 1;
  PsBudget *b = ps_budget;
  if( budget_refuses(b, n) ) return 0;
  const PsAllocator *a = __atomic_load_n(&pHostAlloc, __ATOMIC_ACQUIRE);
  void *p;
  if( a && n<PS_BIG_ALLOC ){
    p = a->xMalloc(n);
  }else{
    p = malloc(n);
    if( p && a && big_add(p, n) ){ free(p); p = 0; }
  }
  if( p ) budget_add(b, (int64_t)block_size(a, p));
  return p;
}

void *ps_calloc(size_t k, size_t m){
  size_t n;
  if( __builtin_mul_overflow(k, m, &n) ) return 0;
  const PsAllocator *a = __atomic_load_n(&pHostAlloc, __ATOMIC_ACQUIRE);
  if( a==0 ){
    /* the C library's calloc: fresh pages are zero already, no memset of a big table */
    if( fi_fail() ) return 0;
    PsBudget *b = ps_budget;
    if( budget_refuses(b, n) ) return 0;
    void *p = calloc(k ? k : 1, m ? m : 1);
    if( p ) budget_add(b, (int64_t)small_size(0, p));
    return p;
  }
  void *p = ps_malloc(n);
  if( p ) memset(p, 0, n);
  return p;
}

void *ps_realloc(void *p, size_t n){
  if( p==0 ) return ps_malloc(n);
  if( fi_fail() ) return 0;
  if( n==0 ) n = 1;
  PsBudget *b = ps_budget;
  const PsAllocator *a = __atomic_load_n(&pHostAlloc, __ATOMIC_ACQUIRE);
  size_t nBig = big_find(p, 0);
  size_t nOld = nBig ? nBig : small_size(a, p);
  if( n>nOld && budget_refuses(b, n - nOld) ) return 0;
  void *q;
  if( nBig ){                                   /* a big block stays the C library's */
    big_find(p, 1);                             /* (its slot is free for q, or p again) */
    q = realloc(p, n);
    big_add(q ? q : p, q ? n : nBig);
  }else if( a && n<PS_BIG_ALLOC ){
    q = a->xRealloc(p, n);
  }else if( a ){                                /* the host's block grows past its allocator */
    q = malloc(n);
    if( q && big_add(q, n) ){ free(q); q = 0; }
    if( q ){ memcpy(q, p, nOld < n ? nOld : n); a->xFree(p); }
  }else{
    q = realloc(p, n);
  }
  if( q ) budget_add(b, (int64_t)block_size(a, q) - (int64_t)nOld);
  return q;
}

void ps_free(void *p){
  if( p==0 ) return;
  const PsAllocator *a = __atomic_load_n(&pHostAlloc, __ATOMIC_ACQUIRE);
  PsBudget *b = ps_budget;
  size_t nBig = big_find(p, 1);
  if( b ) budget_add(b, -(int64_t)(nBig ? nBig : small_size(a, p)));
  if( nBig || a==0 ) free(p);
  else a->xFree(p);
}

char *ps_strdup(const char *z){
  size_t n = strlen(z) + 1;
  char *r = ps_malloc(n);
  if( r ) memcpy(r, z, n);
  return r;
}

void ps_hugepages(void *p, size_t nByte){
#ifdef MADV_HUGEPAGE
  const uintptr_t H = (uintptr_t)2 << 20;
  if( p==0 || nByte < 4*H ) return;
  uintptr_t a = ((uintptr_t)p + H - 1) & ~(H - 1);
  uintptr_t b = ((uintptr_t)p + nByte) & ~(H - 1);
  if( b > a ) madvise((void*)a, b - a, MADV_HUGEPAGE);
#else
  (void)p; (void)nByte;
#endif
}

size_t ps_parse_threads = 0;

int ps_parse_parts(size_t nWork, size_t nMinPart, int nMin){
  long k = ps_parse_threads ? (long)ps_parse_threads : sysconf(_SC_NPROCESSORS_ONLN);
  if( k<1 ) k = 1;
  if( k>PS_MAX_PARTS ) k = PS_MAX_PARTS;
  if( nMinPart==0 ) nMinPart = 1;
  while( k>nMin && k>1 && nWork/(size_t)k < nMinPart ) k--;
  return (int)k;
}
