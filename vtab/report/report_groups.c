/*
** report_groups.c — profile_report's groupings of the completed jobs in one scan (the
** rules, and why: report_groups.h). One hash table per grouping, open addressing over an array
** of groups; text keys live in one arena per grouping. The ranked lists picked from the same scan
** (PsTopList) keep their first nMax entries so far in a binary heap, the last in order at the
** root, which a better row replaces; a heap sort puts them in order at the end. Rows reach the
** scan as the arguments of profsql_rp_row (g_scan), not through sqlite3_column_*.
*/
#include "report_groups.h"
#include "../../ext/util/ps_util.h"    /* ps_malloc & co.: the host's allocator (SQLite's, once loaded) */
SQLITE_EXTENSION_INIT3

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* sum(): SQLite's aggregate, as it runs (an integer sum with overflow detection while every
** value is an integer; the real sum of every value beside it, in the order fed) */
typedef struct GSum { double r; sqlite3_int64 i; sqlite3_int64 cnt; unsigned char approx, ovfl; } GSum;
/* max() (min()) of numbers: the first of the largest (smallest) values, with its type (0: no value yet) */
typedef struct GMax { double r; sqlite3_int64 i; int type; } GMax;

/* a key being encoded (g_key) */
typedef struct PsKeyBuf { unsigned char *a; size_t n, nAlloc; } PsKeyBuf;

/* key classes: values of different classes are never equal */
enum { K_NULL, K_INT, K_REAL, K_TEXT, K_BLOB };

/* one value column's accumulator in a group */
typedef struct GAcc {
  union {
    GSum sum;                  /* PS_AGG_SUM */
    GMax max;                  /* PS_AGG_MAX, PS_AGG_MIN */
    struct {                   /* PS_AGG_DISTINCT: the distinct texts, each as <8-byte length><bytes> */
      char *zList; size_t nList; int nDistinct;
    } d;
  } u;
} GAcc;

typedef struct Grp {
  uint64_t h;
  size_t zOff, nKey;           /* the key's bytes in the arena (g_key's encoding) */
  double rKey;                 /* a one-column numeric key as the last row gave it (3.0 or 3; -0.0) */
  int type;                    /* ... and that row's SQLite type */
  sqlite3_int64 k0, n;
  GAcc *aAcc;                  /* one per value the grouping aggregates (GTab.aAct) */
} Grp;

typedef struct GTab {
  int aAct[32], nAct;                /* the values it aggregates (indexes into the scan's), in order */
  Grp *a; sqlite3_int64 n, nAlloc;
  uint32_t *aSlot; uint64_t nSlot;   /* group index + 1; 0 empty */
  char *zArena; size_t nArena, nArenaAlloc;
  sqlite3_int64 iLast;               /* the group of the previous row + 1 (0: none): rows in time
                                     ** order often repeat their thread's or category's key */
  int bOff;                          /* given up: left to SQL */
} GTab;

/* the most distinct texts a PS_AGG_DISTINCT accumulator keeps in a group before the grouping is
** left to SQL (a name with hundreds of categories) */
#define G_DISTINCT_MAX 64

/* the slot hash of a group's key bytes: keyed (ext/util/ps_util.h), for the names are the capture's */
static uint64_t g_hash_bytes(const unsigned char *z, size_t n){
  return ps_hash(z, n);
}

/* a value of the row being added: its type, and its integer (SQLITE_INTEGER) or real value */
typedef struct GVal { int t; sqlite3_int64 i; double r; sqlite3_value *v; } GVal;

static void g_sum_add(GSum *s, const GVal *x){
  if( x->t==SQLITE_NULL ) return;
  s->cnt++;
  if( x->t==SQLITE_INTEGER ){
    s->r += (double)x->i;
    if( (s->approx|s->ovfl)==0 && __builtin_add_overflow(s->i, x->i, &s->i) ){ s->approx = s->ovfl = 1; }
  }else{
    s->r += x->r;
    s->approx = 1;
  }
}

static void g_max_add(GMax *m, const GVal *x, int bMin){
  int t = x->t;
  if( t==SQLITE_NULL ) return;
  sqlite3_int64 i = x->i;
  double r = x->r;
  int bigger;
  if( m->type==0 ) bigger = 1;
  else if( m->type==SQLITE_INTEGER && t==SQLITE_INTEGER ) bigger = bMin ? i < m->i : i > m->i;
  else{
    double cur = m->type==SQLITE_INTEGER ? (double)m->i : m->r;
    bigger = bMin ? r < cur : r > cur;
  }
  if( bigger ){ m->type = t; m->i = i; m->r = r; }
}

/* frees t's groups and tables (its value list stays) */
static void g_free(GTab *t, const int *aAgg){
  for(sqlite3_int64 g=0; g<t->n; g++){
    for(int j=0; j<t->nAct; j++) if( aAgg[t->aAct[j]]==PS_AGG_DISTINCT ) ps_free(t->a[g].aAcc[j].u.d.zList);
    ps_free(t->a[g].aAcc);
  }
  ps_free(t->a); ps_free(t->aSlot); ps_free(t->zArena);
  t->a = 0; t->n = t->nAlloc = 0; t->aSlot = 0; t->nSlot = 0;
  t->zArena = 0; t->nArena = t->nArenaAlloc = 0; t->iLast = 0;
}

/* Appends the key encoding of value v to b: a class byte, then an integer's 8 bytes (a real of
** an integral value within the integers' range counts as that integer: GROUP BY compares numbers
** by value), a real's 8 bytes, or a text's / blob's length (8 bytes) and bytes; NULL the class
** byte alone. Two keys are equal in GROUP BY exactly when their encodings are equal. -1 when
** out of memory. */
static int g_key(PsKeyBuf *b, sqlite3_value *v){
  int type = sqlite3_value_type(v), cls;
  unsigned char head[9];
  size_t nHead = 1;
  const void *z = 0; size_t n = 0;
  sqlite3_int64 iKey = 0; double rKey = 0.0;
  switch( type ){
    case SQLITE_INTEGER: cls = K_INT; iKey = sqlite3_value_int64(v); break;
    case SQLITE_FLOAT:
      rKey = sqlite3_value_double(v);
      if( rKey >= -9223372036854775808.0 && rKey < 9223372036854775808.0 && rKey==(double)(sqlite3_int64)rKey ){
        cls = K_INT; iKey = (sqlite3_int64)rKey;
      }else cls = K_REAL;
      break;
    case SQLITE_TEXT: cls = K_TEXT; z = sqlite3_value_text(v); n = (size_t)sqlite3_value_bytes(v); break;
    case SQLITE_BLOB: cls = K_BLOB; z = sqlite3_value_blob(v); n = (size_t)sqlite3_value_bytes(v); break;
    default: cls = K_NULL; break;
  }
  head[0] = (unsigned char)cls;
  if( cls==K_INT ){ memcpy(head+1, &iKey, 8); nHead = 9; }
  else if( cls==K_REAL ){ memcpy(head+1, &rKey, 8); nHead = 9; }
  else if( cls==K_TEXT || cls==K_BLOB ){ uint64_t nn = n; memcpy(head+1, &nn, 8); nHead = 9; }
  if( b->n + nHead + n > b->nAlloc ){
    size_t nNew = b->nAlloc ? b->nAlloc*2 : 256;
    while( nNew < b->n + nHead + n ) nNew *= 2;
    unsigned char *a = ps_realloc(b->a, nNew);
    if( a==0 ) return -1;
    b->a = a; b->nAlloc = nNew;
  }
  memcpy(b->a + b->n, head, nHead); b->n += nHead;
  if( n ){ memcpy(b->a + b->n, z, n); b->n += n; }
  return 0;
}

/* the group of the key encoded in b (nVal accumulators), found by its hash, added when new; NULL
** when out of memory */
static Grp *g_find_hashed(GTab *t, const PsKeyBuf *b){
  uint64_t h = g_hash_bytes(b->a ? b->a : (const unsigned char*)"", b->n);
  if( t->nSlot==0 || (uint64_t)(t->n+1)*2 > t->nSlot ){
    uint64_t nNew = t->nSlot ? t->nSlot*2 : 64;
    uint32_t *aNew = ps_calloc(nNew, sizeof(uint32_t));
    if( aNew==0 ) return 0;
    for(sqlite3_int64 g=0; g<t->n; g++){
      uint64_t s = t->a[g].h & (nNew-1);
      ps_nProbe++;
      while( aNew[s] ){ s = (s+1) & (nNew-1); ps_nProbe++; }
      aNew[s] = (uint32_t)(g+1);
    }
    ps_free(t->aSlot); t->aSlot = aNew; t->nSlot = nNew;
  }
  uint64_t s = h & (t->nSlot-1);
  ps_nProbe++;
  while( t->aSlot[s] ){
    Grp *p = &t->a[t->aSlot[s]-1];
    if( p->h==h && p->nKey==b->n && (b->n==0 || memcmp(t->zArena+p->zOff, b->a, b->n)==0) ) return p;
    s = (s+1) & (t->nSlot-1);
    ps_nProbe++;
  }
  if( t->n>=t->nAlloc ){
    sqlite3_int64 nNew = t->nAlloc ? t->nAlloc*2 : 64;
    Grp *aNew = ps_realloc(t->a, (size_t)nNew * sizeof(Grp));
    if( aNew==0 ) return 0;
    t->a = aNew; t->nAlloc = nNew;
  }
  if( t->nArena + b->n > t->nArenaAlloc ){
    size_t nNew = t->nArenaAlloc ? t->nArenaAlloc*2 : 4096;
    while( nNew < t->nArena + b->n ) nNew *= 2;
    char *zNew = ps_realloc(t->zArena, nNew);
    if( zNew==0 ) return 0;
    t->zArena = zNew; t->nArenaAlloc = nNew;
  }
  GAcc *aAcc = ps_calloc((size_t)(t->nAct>0 ? t->nAct : 1), sizeof(GAcc));
  if( aAcc==0 ) return 0;
  Grp *p = &t->a[t->n];
  memset(p, 0, sizeof(*p));
  p->h = h; p->aAcc = aAcc;
  if( b->n ) memcpy(t->zArena + t->nArena, b->a, b->n);     /* (a grouping without key: none) */
  p->zOff = t->nArena; p->nKey = b->n;
  t->nArena += b->n;
  t->aSlot[s] = (uint32_t)(t->n+1);
  t->n++;
  return p;
}

/* the group of the key encoded in b: the previous row's when the key is the same, else
** g_find_hashed's */
static Grp *g_find(GTab *t, const PsKeyBuf *b){
  if( t->iLast ){
    Grp *p = &t->a[t->iLast-1];
    if( p->nKey==b->n && (b->n==0 || memcmp(t->zArena+p->zOff, b->a, b->n)==0) ) return p;
  }
  Grp *p = g_find_hashed(t, b);
  if( p ) t->iLast = (p - t->a) + 1;
  return p;
}

/* group_concat(DISTINCT x) of TEXT or NULL values: x added unless already there; -1 when out of
** memory, 1 when the group holds more than G_DISTINCT_MAX texts (the grouping goes to SQL) */
static int g_distinct_add(GAcc *a, const GVal *x){
  if( x->t==SQLITE_NULL ) return 0;
  const char *z = (const char*)sqlite3_value_text(x->v);
  size_t n = (size_t)sqlite3_value_bytes(x->v);
  /* the list holds the texts with their lengths: <8-byte length><bytes>..., joined on output */
  size_t i = 0;
  while( i < a->u.d.nList ){
    uint64_t m; memcpy(&m, a->u.d.zList+i, 8);
    if( m==n && memcmp(a->u.d.zList+i+8, z, n)==0 ) return 0;
    i += 8 + m;
  }
  if( a->u.d.nDistinct >= G_DISTINCT_MAX ) return 1;
  char *zNew = ps_realloc(a->u.d.zList, a->u.d.nList + 8 + n);
  if( zNew==0 ) return -1;
  uint64_t nn = n;
  memcpy(zNew + a->u.d.nList, &nn, 8);
  if( n ) memcpy(zNew + a->u.d.nList + 8, z, n);
  a->u.d.zList = zNew; a->u.d.nList += 8 + n; a->u.d.nDistinct++;
  return 0;
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

/* binds the PS_AGG_DISTINCT list as group_concat gives it: the texts joined by ',', NULL for none */
static int g_bind_distinct(sqlite3_stmt *st, int i, const GAcc *a){
  if( a->u.d.nDistinct==0 ){ sqlite3_bind_null(st, i); return SQLITE_OK; }
  char *z = sqlite3_malloc64(a->u.d.nList + 1);
  if( z==0 ) return SQLITE_NOMEM;
  size_t k = 0, j = 0;
  while( k < a->u.d.nList ){
    uint64_t m; memcpy(&m, a->u.d.zList+k, 8);
    if( j ) z[j++] = ',';
    memcpy(z+j, a->u.d.zList+k+8, m); j += m;
    k += 8 + m;
  }
  return sqlite3_bind_text(st, i, z, (int)j, sqlite3_free);
}

/* writes t's groups into temp table zTable (key, k0, n, then the nVal values); one-column keys
** as their last row's value, others NULL. SQLite's error code. */
static int g_write(sqlite3 *db, const GTab *t, const PsGrouping *pG, int nVal, const int *aAgg, char **pzErr){
  char *zSql = sqlite3_mprintf("INSERT INTO temp.\"%w\" VALUES(?1, ?2, ?3", pG->zTable);
  for(int v=0; zSql && v<nVal; v++){
    char *z2 = sqlite3_mprintf("%s, ?%d", zSql, 4+v);
    sqlite3_free(zSql); zSql = z2;
  }
  if( zSql ){ char *z2 = sqlite3_mprintf("%s)", zSql); sqlite3_free(zSql); zSql = z2; }
  if( zSql==0 ) return SQLITE_NOMEM;
  sqlite3_stmt *st = 0;
  int rc = sqlite3_prepare_v2(db, zSql, -1, &st, 0);
  sqlite3_free(zSql);
  for(sqlite3_int64 g=0; rc==SQLITE_OK && g<t->n; g++){
    const Grp *p = &t->a[g];
    const unsigned char *k = p->nKey ? (const unsigned char*)t->zArena + p->zOff : 0;
    if( pG->nKey!=1 || k==0 ) sqlite3_bind_null(st, 1);
    else switch( k[0] ){
      case K_INT: case K_REAL:      /* as the last row gave it: 3, 3.0 */
        if( p->type==SQLITE_FLOAT ) sqlite3_bind_double(st, 1, p->rKey);
        else{ sqlite3_int64 i; memcpy(&i, k+1, 8); sqlite3_bind_int64(st, 1, i); }
        break;
      case K_TEXT: sqlite3_bind_text(st, 1, (const char*)k+9, (int)(p->nKey-9), SQLITE_STATIC); break;
      case K_BLOB: sqlite3_bind_blob(st, 1, k+9, (int)(p->nKey-9), SQLITE_STATIC); break;
      default: sqlite3_bind_null(st, 1); break;
    }
    sqlite3_bind_int64(st, 2, p->k0);
    sqlite3_bind_int64(st, 3, p->n);
    for(int v=0, j=0; v<nVal && rc==SQLITE_OK; v++){
      if( j>=t->nAct || t->aAct[j]!=v ){ sqlite3_bind_null(st, 4+v); continue; }
      const GAcc *a = &p->aAcc[j++];
      if( aAgg[v]==PS_AGG_SUM ) g_bind_sum(st, 4+v, &a->u.sum);
      else if( aAgg[v]==PS_AGG_MAX || aAgg[v]==PS_AGG_MIN ) g_bind_max(st, 4+v, &a->u.max);
      else rc = g_bind_distinct(st, 4+v, a);
    }
    if( rc==SQLITE_OK ){
      rc = sqlite3_step(st);
      rc = rc==SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(db);
    }
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
  }
  if( rc && rc!=SQLITE_NOMEM ) *pzErr = sqlite3_mprintf("%s", sqlite3_errmsg(db));
  sqlite3_finalize(st);
  return rc;
}

/* ------------------------------------------------------------------ ranked lists (PsTopList) */

/* a sort-key value of a list entry: its SQLite type, number, or text / blob (malloc'ed in the
** heap, borrowed from the scan's row in a candidate) */
typedef struct TVal { int t; sqlite3_int64 i; double r; const unsigned char *z; int n; } TVal;
typedef struct TEnt { sqlite3_int64 k; TVal a[PS_TOP_KEYS]; } TEnt;
/* a list's heap: the entries kept so far, the last in the list's order at the root */
typedef struct THeap { TEnt *a; sqlite3_int64 n, nAlloc; } THeap;

/* integer i against real r as SQLite compares them (sqlite3IntFloatCompare): <0, 0, >0 */
static int t_int_real(sqlite3_int64 i, double r){
  if( r < -9223372036854775808.0 ) return 1;
  if( r >= 9223372036854775808.0 ) return -1;
  sqlite3_int64 y = (sqlite3_int64)r;
  if( i < y ) return -1;
  if( i > y ) return 1;
  double s = (double)i;
  return s < r ? -1 : s > r;
}

/* two values as ORDER BY compares them (BINARY collation) */
static int t_cmp_val(const TVal *x, const TVal *y){
  static const int aClass[] = { 0, 1, 1, 2, 3, 0 };   /* by SQLite type 1..5: numbers, text, blob, NULL */
  int cx = aClass[x->t], cy = aClass[y->t];
  if( cx!=cy ) return cx < cy ? -1 : 1;
  if( cx==0 ) return 0;
  if( cx==1 ){
    if( x->t==SQLITE_INTEGER && y->t==SQLITE_INTEGER ) return x->i < y->i ? -1 : x->i > y->i;
    if( x->t==SQLITE_FLOAT && y->t==SQLITE_FLOAT ) return x->r < y->r ? -1 : x->r > y->r;
    if( x->t==SQLITE_INTEGER ) return t_int_real(x->i, y->r);
    return -t_int_real(y->i, x->r);
  }
  int n = x->n < y->n ? x->n : y->n;
  int c = n ? memcmp(x->z, y->z, (size_t)n) : 0;
  return c ? c : (x->n < y->n ? -1 : x->n > y->n);
}

/* <0 when entry x comes before y in list l's order */
static int t_cmp(const PsTopList *l, const TEnt *x, const TEnt *y){
  for(int c=0; c<l->nKey; c++){
    int r = t_cmp_val(&x->a[c], &y->a[c]);
    if( r ) return l->abDesc[c] ? -r : r;
  }
  return x->k < y->k ? -1 : x->k > y->k;
}

/* the entry's text and blob keys copied out of the scan's row; -1 when out of memory */
static int t_own(TEnt *e, int nKey){
  for(int c=0; c<nKey; c++){
    TVal *v = &e->a[c];
    if( v->t!=SQLITE_TEXT && v->t!=SQLITE_BLOB ){ v->z = 0; continue; }
    unsigned char *z = ps_malloc((size_t)v->n + 1);
    if( z==0 ){ for(int j=0; j<c; j++) ps_free((void*)e->a[j].z); return -1; }
    if( v->n ) memcpy(z, v->z, (size_t)v->n);
    v->z = z;
  }
  return 0;
}

static void t_free_ent(TEnt *e, int nKey){ for(int c=0; c<nKey; c++) ps_free((void*)e->a[c].z); }

static void t_sift_down(const PsTopList *l, THeap *h, sqlite3_int64 i){
  for(;;){
    sqlite3_int64 a = 2*i+1, b = a+1, m = i;
    if( a<h->n && t_cmp(l, &h->a[a], &h->a[m]) > 0 ) m = a;
    if( b<h->n && t_cmp(l, &h->a[b], &h->a[m]) > 0 ) m = b;
    if( m==i ) return;
    TEnt t = h->a[i]; h->a[i] = h->a[m]; h->a[m] = t;
    i = m;
  }
}

/* key value x of the scan's current row (aCol, its columns): column iCol, taken from the row's
** values already read (aV, columns 1..nVal) when it is one of them */
static void t_get(TVal *x, sqlite3_value **aCol, int iCol, const GVal *aV, int nVal){
  sqlite3_value *v;
  if( iCol>=1 && iCol<=nVal ){
    const GVal *g = &aV[iCol-1];
    x->t = g->t; x->z = 0; x->n = 0;
    if( g->t==SQLITE_INTEGER ){ x->i = g->i; x->r = 0.0; return; }
    if( g->t==SQLITE_FLOAT ){ x->r = g->r; x->i = 0; return; }
    v = g->v;
  }else{
    v = aCol[iCol];
  }
  x->t = sqlite3_value_type(v); x->i = 0; x->r = 0.0; x->z = 0; x->n = 0;
  if( x->t==SQLITE_INTEGER ) x->i = sqlite3_value_int64(v);
  else if( x->t==SQLITE_FLOAT ) x->r = sqlite3_value_double(v);
  else if( x->t==SQLITE_TEXT ){ x->z = sqlite3_value_text(v); x->n = sqlite3_value_bytes(v); }
  else if( x->t==SQLITE_BLOB ){ x->z = sqlite3_value_blob(v); x->n = sqlite3_value_bytes(v); }
}

/* offers the scan's current row (job k; aCol its columns, aV its values) to list l (its heap h):
** kept when among the first nMax so far. Once the heap is full, the row's keys are converted one
** at a time, only as far as the comparison with the last entry kept needs them (most rows lose on
** the first). -1 when out of memory. */
static int t_offer(const PsTopList *l, THeap *h, sqlite3_value **aCol, sqlite3_int64 k, const GVal *aV, int nVal){
  TEnt e;
  e.k = k;
  if( h->n < l->nMax ){
    for(int c=0; c<l->nKey; c++) t_get(&e.a[c], aCol, l->aiKey[c], aV, nVal);
    if( h->n>=h->nAlloc ){
      sqlite3_int64 nNew = h->nAlloc ? h->nAlloc*2 : 64;
      TEnt *a = ps_realloc(h->a, (size_t)nNew * sizeof(TEnt));
      if( a==0 ) return -1;
      h->a = a; h->nAlloc = nNew;
    }
    if( t_own(&e, l->nKey) ) return -1;
    sqlite3_int64 i = h->n++;
    h->a[i] = e;
    while( i>0 ){                       /* sift up: the last in order rises to the root */
      sqlite3_int64 p = (i-1)/2;
      if( t_cmp(l, &h->a[i], &h->a[p]) <= 0 ) break;
      TEnt t = h->a[i]; h->a[i] = h->a[p]; h->a[p] = t;
      i = p;
    }
    return 0;
  }
  if( h->n==0 ) return 0;
  const TEnt *root = &h->a[0];
  int c = 0, r = 0;
  for(; c<l->nKey && r==0; c++){
    t_get(&e.a[c], aCol, l->aiKey[c], aV, nVal);
    r = t_cmp_val(&e.a[c], &root->a[c]);
    if( l->abDesc[c] ) r = -r;
  }
  if( r==0 ) r = k < root->k ? -1 : k > root->k;
  if( r >= 0 ) return 0;
  for(; c<l->nKey; c++) t_get(&e.a[c], aCol, l->aiKey[c], aV, nVal);
  if( t_own(&e, l->nKey) ) return -1;
  t_free_ent(&h->a[0], l->nKey);
  h->a[0] = e;
  t_sift_down(l, h, 0);
  return 0;
}

/* list l's entries in order into l->aK; the heap freed. -1 when out of memory. */
static int t_finish(PsTopList *l, THeap *h){
  int rc = 0;
  /* heap sort in place: the root (the last in order) goes to the end, repeatedly */
  for(sqlite3_int64 n=h->n; n>1; n--){
    TEnt t = h->a[0]; h->a[0] = h->a[n-1]; h->a[n-1] = t;
    THeap hh = { h->a, n-1, h->nAlloc };
    t_sift_down(l, &hh, 0);
  }
  l->aK = ps_malloc((size_t)(h->n>0 ? h->n : 1) * sizeof(sqlite3_int64));
  if( l->aK==0 ) rc = -1;
  for(sqlite3_int64 i=0; i<h->n; i++){
    if( l->aK ) l->aK[i] = h->a[i].k;
    t_free_ent(&h->a[i], l->nKey);
  }
  l->n = l->aK ? h->n : 0;
  ps_free(h->a); h->a = 0; h->n = h->nAlloc = 0;
  return rc;
}

/* 1 when column iWhere (0: none) of the current row (aCol) is a true number; *pLast / *pbLast
** remember the last column read for this row (-1: none yet): the groupings share one filter */
static int g_where(sqlite3_value **aCol, int iWhere, int *pLast, int *pbLast){
  if( iWhere<=0 ) return 1;
  if( iWhere==*pLast ) return *pbLast;
  *pLast = iWhere;
  sqlite3_value *v = aCol[iWhere];
  int t = sqlite3_value_type(v);
  *pbLast = 0;
  if( t==SQLITE_INTEGER ) *pbLast = sqlite3_value_int64(v)!=0;
  else if( t==SQLITE_FLOAT ) *pbLast = sqlite3_value_double(v)!=0.0;
  return *pbLast;       /* NULL: 0 (text does not occur: the report's filters are comparisons) */
}

/* ------------------------------------------------------------------ the scan */

/* One scan's state: what ps_report_groups was given, and what the rows so far have built. */
typedef struct GScan {
  int nVal; const int *aAgg;
  int nGroup; const PsGrouping *aGroup; GTab *aT;
  int nColl; PsCollect *aColl;
  int nCount; PsCount *aCount;
  int nTop; PsTopList *aTop; THeap *aH;
  GVal *aV;                          /* the current row's values */
  PsKeyBuf kb;
  sqlite3_int64 nJobs, nCap;
  int bTypes;                        /* every value so far of the type its aggregate takes */
} GScan;

/* Adds one row, its columns aCol[0..nCol) (aCol[0] is k), to every grouping, collection and list.
** SQLITE_OK or SQLITE_NOMEM. After a value not of its aggregate's type (bTypes 0) rows are
** ignored: the caller leaves everything to SQL. */
static int g_row(GScan *s, sqlite3_value **aCol){
  const int nVal = s->nVal;
  const int *aAgg = s->aAgg;
  GVal *aV = s->aV;
  if( !s->bTypes ) return SQLITE_OK;
  for(int v=0; v<nVal; v++){
    GVal *x = &aV[v];
    x->v = aCol[1+v];
    int t = x->t = sqlite3_value_type(x->v);
    if( aAgg[v]==PS_AGG_DISTINCT ? (t!=SQLITE_TEXT && t!=SQLITE_NULL)
                                 : (t!=SQLITE_INTEGER && t!=SQLITE_FLOAT && t!=SQLITE_NULL) ){ s->bTypes = 0; return SQLITE_OK; }
    x->i = t==SQLITE_INTEGER ? sqlite3_value_int64(x->v) : 0;
    x->r = t==SQLITE_INTEGER ? (double)x->i : t==SQLITE_FLOAT ? sqlite3_value_double(x->v) : 0.0;
  }
  sqlite3_int64 k = sqlite3_value_int64(aCol[0]);
  int iWhereLast = -1, bWhereLast = 0;
  for(int c=0; c<s->nCount; c++){
    PsCount *pn = &s->aCount[c];
    if( g_where(aCol, pn->iWhere, &iWhereLast, &bWhereLast) && sqlite3_value_type(aCol[pn->iCol])!=SQLITE_NULL ) pn->n++;
  }
  for(int c=0; c<s->nColl; c++){
    PsCollect *pc = &s->aColl[c];
    if( !g_where(aCol, pc->iWhere, &iWhereLast, &bWhereLast) || aV[pc->iVal].t==SQLITE_NULL ) continue;
    if( pc->n>=pc->nAlloc ){
      sqlite3_int64 nNew = pc->nAlloc ? pc->nAlloc*2 : (s->nJobs > 64 ? s->nJobs : 64);
      double *a = ps_realloc(pc->a, (size_t)nNew * sizeof(double));
      if( a==0 ) return SQLITE_NOMEM;
      pc->a = a; pc->nAlloc = nNew;
    }
    pc->a[pc->n++] = aV[pc->iVal].r;
  }
  for(int l=0; l<s->nTop; l++){
    if( g_where(aCol, s->aTop[l].iWhere, &iWhereLast, &bWhereLast) && t_offer(&s->aTop[l], &s->aH[l], aCol, k, aV, nVal) ) return SQLITE_NOMEM;
  }
  for(int g=0; g<s->nGroup; g++){
    GTab *t = &s->aT[g];
    if( t->bOff ) continue;
    const PsGrouping *pG = &s->aGroup[g];
    if( !g_where(aCol, pG->iWhere, &iWhereLast, &bWhereLast) ) continue;
    sqlite3_value *kv = 0;
    s->kb.n = 0;
    for(int c=0; c<pG->nKey; c++){
      kv = aCol[pG->iKey + c];
      if( g_key(&s->kb, kv) ) return SQLITE_NOMEM;
    }
    Grp *p = g_find(t, &s->kb);
    if( p==0 ) return SQLITE_NOMEM;
    if( pG->nKey==1 ){               /* GROUP BY gives the key as the group's last row has it */
      p->type = sqlite3_value_type(kv);
      if( p->type==SQLITE_FLOAT ) p->rKey = sqlite3_value_double(kv);
    }
    if( p->n==0 || k < p->k0 ) p->k0 = k;
    p->n++;
    for(int j=0; j<t->nAct; j++){
      int v = t->aAct[j];
      GAcc *a = &p->aAcc[j];
      if( aAgg[v]==PS_AGG_SUM ) g_sum_add(&a->u.sum, &aV[v]);
      else if( aAgg[v]==PS_AGG_MAX || aAgg[v]==PS_AGG_MIN ) g_max_add(&a->u.max, &aV[v], aAgg[v]==PS_AGG_MIN);
      else{
        int r = g_distinct_add(a, &aV[v]);
        if( r<0 ) return SQLITE_NOMEM;
        if( r>0 ){ t->bOff = 1; break; }
      }
    }
    if( t->bOff || t->n > s->nCap ){ g_free(t, aAgg); t->bOff = 1; }
  }
  return SQLITE_OK;
}

void ps_report_groups_row(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  GScan *s = argc>0 ? sqlite3_value_pointer(argv[0], PS_GROUPS_POINTER) : 0;
  if( s==0 ){
    sqlite3_result_error(ctx, "profsql_rp_row: internal to profile_report, not for use in SQL", -1);
    return;
  }
  if( g_row(s, argv+1) ) sqlite3_result_error_nomem(ctx);
}

/* Runs the scan "SELECT <zCols> <zFrom>", each row into g_row: one statement that calls
** profsql_rp_row on every row, the row's columns as its arguments. Stepping the scan and reading
** each value with sqlite3_column_* took the connection's mutex for every value (~0.3 s of the
** 1M-job report's scan of 1.6 s). */
static int g_scan(sqlite3 *db, GScan *s, const char *zCols, const char *zFrom,
                  void (*xBind)(void*, sqlite3_stmt*), void *pBind){
  sqlite3_stmt *st = 0;
  char *z = sqlite3_mprintf("SELECT count(profsql_rp_row(:profsql_rp_scan, %s)) %s", zCols, zFrom);
  if( z==0 ) return SQLITE_NOMEM;
  int rc = sqlite3_prepare_v2(db, z, -1, &st, 0);
  sqlite3_free(z);
  if( rc ) return rc;
  if( xBind ) xBind(pBind, st);
  int iPtr = sqlite3_bind_parameter_index(st, ":profsql_rp_scan");
  rc = sqlite3_bind_pointer(st, iPtr, s, PS_GROUPS_POINTER, 0);
  if( rc==SQLITE_OK ) rc = sqlite3_step(st);
  if( rc==SQLITE_ROW ) rc = SQLITE_OK;
  sqlite3_finalize(st);
  return rc;
}

int ps_report_groups(sqlite3 *db, const char *zCols, const char *zFrom,
                     void (*xBind)(void*, sqlite3_stmt*), void *pBind, int nVal, const int *aAgg,
                     int nGroup, const PsGrouping *aGroup, int nColl, PsCollect *aColl,
                     int nCount, PsCount *aCount, int nTop, PsTopList *aTop, sqlite3_int64 nJobs,
                     int *aDone, char **pzErr){
  GScan sc, *s = &sc;
  memset(s, 0, sizeof(*s));
  s->nVal = nVal; s->aAgg = aAgg; s->nGroup = nGroup; s->aGroup = aGroup; s->nColl = nColl; s->aColl = aColl;
  s->nCount = nCount; s->aCount = aCount;
  s->nTop = nTop; s->aTop = aTop; s->nJobs = nJobs; s->bTypes = 1;
  for(int c=0; c<nCount; c++){ aCount[c].n = 0; aCount[c].bComplete = 0; }
  s->aT = ps_calloc((size_t)(nGroup>0 ? nGroup : 1), sizeof(GTab));
  s->aH = ps_calloc((size_t)(nTop>0 ? nTop : 1), sizeof(THeap));
  s->aV = ps_calloc((size_t)(nVal>0 ? nVal : 1), sizeof(GVal));
  GTab *aT = s->aT;
  THeap *aH = s->aH;
  int rc = aT && s->aV && aH ? SQLITE_OK : SQLITE_NOMEM;
  for(int l=0; l<nTop; l++){ aTop[l].aK = 0; aTop[l].n = 0; aTop[l].bComplete = 0; }
  s->nCap = nJobs / 32;
  if( s->nCap < PS_GROUPS_MIN ) s->nCap = PS_GROUPS_MIN;
  for(int g=0; g<nGroup; g++) aDone[g] = 0;
  if( nVal > 32 ) rc = SQLITE_MISUSE;          /* (mVal and aAct hold 32) */
  for(int g=0; aT && g<nGroup; g++){
    for(int v=0; v<nVal && v<32; v++){
      if( aGroup[g].mVal==0 || ((aGroup[g].mVal >> v) & 1) ) aT[g].aAct[aT[g].nAct++] = v;
    }
  }
  if( rc==SQLITE_OK ) rc = g_scan(db, s, zCols, zFrom, xBind, pBind);
  const int bTypes = s->bTypes;
  if( rc && rc!=SQLITE_NOMEM ) *pzErr = sqlite3_mprintf("%s", sqlite3_errmsg(db));
  for(int c=0; c<nColl; c++) aColl[c].bComplete = rc==SQLITE_OK && bTypes;
  for(int c=0; c<nCount; c++) aCount[c].bComplete = rc==SQLITE_OK && bTypes;
  for(int l=0; l<nTop; l++){
    int bOk = rc==SQLITE_OK && bTypes;
    if( aH && t_finish(&aTop[l], &aH[l]) && rc==SQLITE_OK ) rc = SQLITE_NOMEM;
    aTop[l].bComplete = bOk && rc==SQLITE_OK;
  }
  for(int g=0; rc==SQLITE_OK && bTypes && g<nGroup; g++){
    const GTab *t = &aT[g];
    int bOvfl = 0;
    for(sqlite3_int64 i=0; i<t->n; i++){
      for(int j=0; j<t->nAct; j++) if( aAgg[t->aAct[j]]==PS_AGG_SUM ) bOvfl |= t->a[i].aAcc[j].u.sum.ovfl;
    }
    if( t->bOff || bOvfl ) continue;
    rc = g_write(db, t, &aGroup[g], nVal, aAgg, pzErr);
    if( rc==SQLITE_OK ) aDone[g] = 1;
  }
  for(int g=0; aT && g<nGroup; g++) g_free(&aT[g], aAgg);
  ps_free(aT); ps_free(s->aV); ps_free(s->kb.a); ps_free(aH);
  return rc;
}
