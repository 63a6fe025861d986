/*
** ps_util.c — errors, arena allocator, hashing and UTF-8 validation shared by the
** parsers and the capture model (see ps_util.h).
*/
#include "ps_util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ps_err(PsErr *err, const char *fmt, ...){
  if( err ){
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
    va_end(ap);
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
  while( p ){ PsArenaBlock *n = p->pNext; free(p); p = n; }
  memset(a, 0, sizeof(*a));
}

void *ps_arena_alloc(PsArena *a, size_t n){
  n = (n + 7) & ~(size_t)7;
  if( a->pHead==0 || a->nUsed + n > a->pHead->nSize ){
    size_t sz = n > ARENA_BLOCK/4 ? n : ARENA_BLOCK;
    PsArenaBlock *p = malloc(ARENA_HDR + sz);
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

/* ---------------------------------------------------------------- hashing */

/* A simple multiply-xorshift hash over 8-byte words; good enough for hash tables
** (keys are always compared in full after a hash match). */
uint64_t ps_hash(const void *pv, size_t n){
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

/* ---------------------------------------------------------------- UTF-8 */

int ps_utf8_valid(const unsigned char *z, size_t n, size_t *pBad){
  size_t i = 0;
  while( i<n ){
    unsigned c = z[i];
    if( c<0x80 ){ i++; continue; }
    size_t len; unsigned min, cp;
    if( (c&0xE0)==0xC0 ){ len = 2; cp = c&0x1F; min = 0x80; }
    else if( (c&0xF0)==0xE0 ){ len = 3; cp = c&0x0F; min = 0x800; }
    else if( (c&0xF8)==0xF0 ){ len = 4; cp = c&0x07; min = 0x10000; }
    else goto bad;
    if( i+len>n ) goto bad;
    for(size_t k=1; k<len; k++){
      if( (z[i+k]&0xC0)!=0x80 ) goto bad;
      cp = (cp<<6) | (z[i+k]&0x3F);
    }
    if( cp<min || cp>0x10FFFF || (cp>=0xD800 && cp<=0xDFFF) ) goto bad;
    i += len;
  }
  return 1;
bad:
  if( pBad ) *pBad = i;
  return 0;
}

int ps_grow(void **pa, size_t sz, size_t *pnAlloc, size_t need){
  if( need <= *pnAlloc ) return 0;
  size_t n = *pnAlloc ? *pnAlloc : 16;
  while( n < need ) n += n/2 + 16;
  void *p = realloc(*pa, n*sz);
  if( p==0 ) return -1;
  *pa = p;
  *pnAlloc = n;
  return 0;
}

#ifdef PS_FAULT_INJECT
#undef malloc
#undef calloc
#undef realloc
#undef strdup
long ps_fi_countdown = -1;
long ps_fi_count = 0;
static int fi_fail(void){
  ps_fi_count++;
  if( ps_fi_countdown<0 ) return 0;
  if( ps_fi_countdown==0 ){ ps_fi_countdown = -1; return 1; }   /* one failure, then normal */
  ps_fi_countdown--;
  return 0;
}
void *ps_fi_malloc(size_t n){ return fi_fail() ? 0 : malloc(n); }
void *ps_fi_calloc(size_t a, size_t b){ return fi_fail() ? 0 : calloc(a, b); }
void *ps_fi_realloc(void *p, size_t n){ return fi_fail() ? 0 : realloc(p, n); }
char *ps_fi_strdup(const char *z){ return fi_fail() ? 0 : strdup(z); }
#endif
