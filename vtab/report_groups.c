/*
** report_groups.c — profile_report's groupings of the completed jobs in one scan (the
** rules, and why: report_groups.h). One hash table per grouping, open addressing over an array
** of groups; text keys live in one arena per grouping.
*/
#include "report_groups.h"
SQLITE_EXTENSION_INIT3

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* sum(): SQLite's aggregate, as it runs (an integer sum with overflow detection while every
** value is an integer; the real sum of every value beside it, in the order fed) */
typedef struct GSum { double r; sqlite3_int64 i; sqlite3_int64 cnt; unsigned char approx, ovfl; } GSum;
/* max() of numbers: the first of the largest values, with its type (0: no value yet) */
typedef struct GMax { double r; sqlite3_int64 i; int type; } GMax;

/* key classes: values of different classes are never equal */
enum { K_NULL, K_INT, K_REAL, K_TEXT, K_BLOB };

typedef struct Grp {
  uint64_t h;
  size_t zOff, nKey;           /* a TEXT or BLOB key: its bytes in the arena */
  sqlite3_int64 iKey;          /* K_INT: the value (a real of an integral value included) */
  double rKey;                 /* K_REAL, or the last row's real of a K_INT key */
  int cls, type;               /* class, and the last row's SQLite type */
  sqlite3_int64 k0, n;
  GSum failed, slow, tot, pb, ob;
  GMax mx, ml;
} Grp;

typedef struct GTab {
  Grp *a; sqlite3_int64 n, nAlloc;
  uint32_t *aSlot; uint64_t nSlot;   /* group index + 1; 0 empty */
  char *zArena; size_t nArena, nArenaAlloc;
  int bOff;                          /* given up: left to SQL */
} GTab;

static uint64_t g_mix(uint64_t x){
  x ^= x >> 33; x *= 0xff51afd7ed558ccdULL; x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ULL; x ^= x >> 33;
  return x;
}

static uint64_t g_hash_bytes(const unsigned char *z, size_t n, uint64_t seed){
  uint64_t h = seed ^ (n * 0x9e3779b97f4a7c15ULL);
  size_t i = 0;
  for(; i+8<=n; i+=8){ uint64_t w; memcpy(&w, z+i, 8); h = g_mix(h ^ w) + 0x9e3779b97f4a7c15ULL; }
  uint64_t w = 0;
  if( i<n ){ memcpy(&w, z+i, n-i); h = g_mix(h ^ w ^ 0x5bd1e995); }
  return g_mix(h);
}

static void g_sum_add(GSum *s, sqlite3_value *v, int t){
  if( t==SQLITE_NULL ) return;
  s->cnt++;
  if( t==SQLITE_INTEGER ){
    sqlite3_int64 x = sqlite3_value_int64(v);
    s->r += (double)x;
    if( (s->approx|s->ovfl)==0 && __builtin_add_overflow(s->i, x, &s->i) ){ s->approx = s->ovfl = 1; }
  }else{
    s->r += sqlite3_value_double(v);
    s->approx = 1;
  }
}

static void g_max_add(GMax *m, sqlite3_value *v, int t){
  if( t==SQLITE_NULL ) return;
  sqlite3_int64 i = t==SQLITE_INTEGER ? sqlite3_value_int64(v) : 0;
  double r = sqlite3_value_double(v);
  int bigger;
  if( m->type==0 ) bigger = 1;
  else if( m->type==SQLITE_INTEGER && t==SQLITE_INTEGER ) bigger = i > m->i;
  else bigger = r > (m->type==SQLITE_INTEGER ? (double)m->i : m->r);
  if( bigger ){ m->type = t; m->i = i; m->r = r; }
}

static void g_free(GTab *t){
  free(t->a); free(t->aSlot); free(t->zArena);
  memset(t, 0, sizeof(*t));
}

/* the group of key v in t, added when new; NULL when out of memory */
static Grp *g_find(GTab *t, sqlite3_value *v){
  int type = sqlite3_value_type(v), cls;
  sqlite3_int64 iKey = 0; double rKey = 0.0;
  const unsigned char *z = 0; size_t n = 0;
  uint64_t h;
  switch( type ){
    case SQLITE_INTEGER: cls = K_INT; iKey = sqlite3_value_int64(v); rKey = (double)iKey; break;
    case SQLITE_FLOAT:
      rKey = sqlite3_value_double(v);
      /* an integral real within the integers' range equals that integer (GROUP BY compares
      ** numbers by value) */
      if( rKey >= -9223372036854775808.0 && rKey < 9223372036854775808.0 && rKey==(double)(sqlite3_int64)rKey ){
        cls = K_INT; iKey = (sqlite3_int64)rKey;
      }else{
        cls = K_REAL;
        if( rKey==0.0 ) rKey = 0.0;    /* -0.0 (integral: never here) */
      }
      break;
    case SQLITE_TEXT: cls = K_TEXT; z = sqlite3_value_text(v); n = (size_t)sqlite3_value_bytes(v); break;
    case SQLITE_BLOB: cls = K_BLOB; z = sqlite3_value_blob(v); n = (size_t)sqlite3_value_bytes(v); break;
    default: cls = K_NULL; break;
  }
  if( cls==K_TEXT || cls==K_BLOB ) h = g_hash_bytes(z ? z : (const unsigned char*)"", n, (uint64_t)cls);
  else if( cls==K_INT ) h = g_mix((uint64_t)iKey ^ 0x1234567ULL);
  else if( cls==K_REAL ){ uint64_t b; memcpy(&b, &rKey, 8); h = g_mix(b ^ 0x7654321ULL); }
  else h = 0x42;
  if( t->nSlot==0 || (uint64_t)(t->n+1)*2 > t->nSlot ){
    uint64_t nNew = t->nSlot ? t->nSlot*2 : 64;
    uint32_t *aNew = calloc(nNew, sizeof(uint32_t));
    if( aNew==0 ) return 0;
    for(sqlite3_int64 g=0; g<t->n; g++){
      uint64_t s = t->a[g].h & (nNew-1);
      while( aNew[s] ) s = (s+1) & (nNew-1);
      aNew[s] = (uint32_t)(g+1);
    }
    free(t->aSlot); t->aSlot = aNew; t->nSlot = nNew;
  }
  uint64_t s = h & (t->nSlot-1);
  while( t->aSlot[s] ){
    Grp *p = &t->a[t->aSlot[s]-1];
    if( p->h==h && p->cls==cls ){
      if( cls==K_NULL ) return p;
      if( cls==K_INT && p->iKey==iKey ){
        p->type = type; p->rKey = rKey;    /* GROUP BY gives the key of the group's last row */
        return p;
      }
      if( cls==K_REAL && p->rKey==rKey ) return p;
      if( (cls==K_TEXT || cls==K_BLOB) && p->nKey==n && (n==0 || memcmp(t->zArena+p->zOff, z, n)==0) ) return p;
    }
    s = (s+1) & (t->nSlot-1);
  }
  if( t->n>=t->nAlloc ){
    sqlite3_int64 nNew = t->nAlloc ? t->nAlloc*2 : 64;
    Grp *aNew = realloc(t->a, (size_t)nNew * sizeof(Grp));
    if( aNew==0 ) return 0;
    t->a = aNew; t->nAlloc = nNew;
  }
  Grp *p = &t->a[t->n];
  memset(p, 0, sizeof(*p));
  p->h = h; p->cls = cls; p->type = type; p->iKey = iKey; p->rKey = rKey;
  if( cls==K_TEXT || cls==K_BLOB ){
    if( t->nArena + n + 1 > t->nArenaAlloc ){
      size_t nNew = t->nArenaAlloc ? t->nArenaAlloc*2 : 4096;
      while( nNew < t->nArena + n + 1 ) nNew *= 2;
      char *zNew = realloc(t->zArena, nNew);
      if( zNew==0 ) return 0;
      t->zArena = zNew; t->nArenaAlloc = nNew;
    }
    if( n ) memcpy(t->zArena + t->nArena, z, n);
    p->zOff = t->nArena; p->nKey = n;
    t->nArena += n + 1;
  }
  t->aSlot[s] = (uint32_t)(t->n+1);
  t->n++;
  return p;
}

static void g_bind_sum(sqlite3_stmt *st, int i, const GSum *s){
  if( s->cnt==0 ) sqlite3_bind_null(st, i);
  else if( s->approx ) sqlite3_bind_double(st, i, s->r);
  else sqlite3_bind_int64(st, i, s->i);
}

static void g_bind_max(sqlite3_stmt *st, int i, const GMax *m){
  if( m->type==0 ) sqlite3_bind_null(st, i);
  else if( m->type==SQLITE_INTEGER ) sqlite3_bind_int64(st, i, m->i);
  else sqlite3_bind_double(st, i, m->r);
}

/* writes t's groups into temp table zTable; SQLite's code */
static int g_write(sqlite3 *db, const GTab *t, const char *zTable, char **pzErr){
  char *zSql = sqlite3_mprintf("INSERT INTO temp.\"%w\"(key, k0, n, failed, slow, tot, mx, ml, pb, ob) "
                               "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)", zTable);
  if( zSql==0 ) return SQLITE_NOMEM;
  sqlite3_stmt *st = 0;
  int rc = sqlite3_prepare_v2(db, zSql, -1, &st, 0);
  sqlite3_free(zSql);
  for(sqlite3_int64 g=0; rc==SQLITE_OK && g<t->n; g++){
    const Grp *p = &t->a[g];
    switch( p->type ){
      case SQLITE_INTEGER: sqlite3_bind_int64(st, 1, p->iKey); break;     /* (an integral real's value) */
      case SQLITE_FLOAT: sqlite3_bind_double(st, 1, p->rKey); break;
      case SQLITE_TEXT: sqlite3_bind_text(st, 1, t->zArena + p->zOff, (int)p->nKey, SQLITE_STATIC); break;
      case SQLITE_BLOB: sqlite3_bind_blob(st, 1, t->zArena + p->zOff, (int)p->nKey, SQLITE_STATIC); break;
      default: sqlite3_bind_null(st, 1); break;
    }
    sqlite3_bind_int64(st, 2, p->k0);
    sqlite3_bind_int64(st, 3, p->n);
    g_bind_sum(st, 4, &p->failed); g_bind_sum(st, 5, &p->slow); g_bind_sum(st, 6, &p->tot);
    g_bind_max(st, 7, &p->mx); g_bind_max(st, 8, &p->ml);
    g_bind_sum(st, 9, &p->pb); g_bind_sum(st, 10, &p->ob);
    rc = sqlite3_step(st);
    rc = rc==SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(db);
    sqlite3_reset(st);
  }
  if( rc && rc!=SQLITE_NOMEM ) *pzErr = sqlite3_mprintf("%s", sqlite3_errmsg(db));
  sqlite3_finalize(st);
  return rc;
}

int ps_report_groups(sqlite3 *db, sqlite3_stmt *pScan, int nKey, const char *const *azTable,
                     const char *zTotal, sqlite3_int64 nJobs, int *aDone, int *pbTotal, char **pzErr){
  GTab *aT = calloc((size_t)(nKey>0 ? nKey : 1), sizeof(GTab));
  GSum total; memset(&total, 0, sizeof(total));
  int rc = aT ? SQLITE_OK : SQLITE_NOMEM;
  int bNumbers = 1;                  /* every value a number or NULL */
  sqlite3_int64 nCap = nJobs / 16;
  if( nCap < PS_GROUPS_MIN ) nCap = PS_GROUPS_MIN;
  for(int g=0; g<nKey; g++) aDone[g] = 0;
  *pbTotal = 0;
  while( rc==SQLITE_OK && (rc = sqlite3_step(pScan))==SQLITE_ROW ){
    rc = SQLITE_OK;
    int aType[7];
    for(int c=1; c<7; c++){
      aType[c] = sqlite3_column_type(pScan, c);
      if( aType[c]!=SQLITE_INTEGER && aType[c]!=SQLITE_FLOAT && aType[c]!=SQLITE_NULL ) bNumbers = 0;
    }
    if( !bNumbers ) break;
    sqlite3_int64 k = sqlite3_column_int64(pScan, 0);
    sqlite3_value *e = sqlite3_column_value(pScan, 1), *l = sqlite3_column_value(pScan, 2);
    g_sum_add(&total, e, aType[1]);
    for(int g=0; g<nKey; g++){
      GTab *t = &aT[g];
      if( t->bOff ) continue;
      Grp *p = g_find(t, sqlite3_column_value(pScan, 7+g));
      if( p==0 ){ rc = SQLITE_NOMEM; break; }
      if( p->n==0 || k < p->k0 ) p->k0 = k;
      p->n++;
      g_sum_add(&p->failed, sqlite3_column_value(pScan, 3), aType[3]);
      g_sum_add(&p->slow, sqlite3_column_value(pScan, 4), aType[4]);
      g_sum_add(&p->tot, e, aType[1]);
      g_max_add(&p->mx, e, aType[1]);
      g_max_add(&p->ml, l, aType[2]);
      g_sum_add(&p->pb, sqlite3_column_value(pScan, 5), aType[5]);
      g_sum_add(&p->ob, sqlite3_column_value(pScan, 6), aType[6]);
      if( t->n > nCap ){ g_free(t); t->bOff = 1; }
    }
  }
  if( rc==SQLITE_DONE ) rc = SQLITE_OK;
  if( rc && rc!=SQLITE_NOMEM ) *pzErr = sqlite3_mprintf("%s", sqlite3_errmsg(db));
  if( rc==SQLITE_OK && bNumbers ){
    /* the total, as sum() gives it (NULL for no rows); an overflow leaves it to SQL */
    if( !total.ovfl ){
      char *zSql = sqlite3_mprintf("INSERT INTO temp.\"%w\"(total) VALUES(?1)", zTotal);
      sqlite3_stmt *st = 0;
      rc = zSql ? sqlite3_prepare_v2(db, zSql, -1, &st, 0) : SQLITE_NOMEM;
      sqlite3_free(zSql);
      if( rc==SQLITE_OK ){
        g_bind_sum(st, 1, &total);
        rc = sqlite3_step(st)==SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(db);
      }
      if( rc && rc!=SQLITE_NOMEM ) *pzErr = sqlite3_mprintf("%s", sqlite3_errmsg(db));
      sqlite3_finalize(st);
      if( rc==SQLITE_OK ) *pbTotal = 1;
    }
    for(int g=0; rc==SQLITE_OK && g<nKey; g++){
      const GTab *t = &aT[g];
      int bOvfl = 0;
      for(sqlite3_int64 i=0; i<t->n; i++){
        const Grp *p = &t->a[i];
        bOvfl |= p->failed.ovfl | p->slow.ovfl | p->tot.ovfl | p->pb.ovfl | p->ob.ovfl;
      }
      if( t->bOff || bOvfl ) continue;
      rc = g_write(db, t, azTable[g], pzErr);
      if( rc==SQLITE_OK ) aDone[g] = 1;
    }
  }
  for(int g=0; aT && g<nKey; g++) g_free(&aT[g]);
  free(aT);
  return rc;
}
