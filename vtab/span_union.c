/*
** span_union.c — profile_span_union(ts, dur), an aggregate SQL function: the time covered by the
** union of the group's intervals [ts, ts + dur), each instant counted once however many
** intervals cover it (HTA's "union of kernel intervals"; Perfetto's stdlib merges overlapping
** intervals the same way).
**
**   SELECT rank, profile_span_union(ts, dur) AS busy_ns FROM gpu_kernels GROUP BY rank;
**
** Arguments: ts and dur, integers in one unit (ns throughout libprofsql). Rows whose ts or dur
** is NULL, or whose dur is 0 or less, cover nothing. Returns an INTEGER in that unit: 0 for a
** group without intervals (FILTER included), never NULL. An end past the int64 range is clamped
** there. Errors: "profile_span_union: ts and dur must be integers" for other values.
** Cost: 16 bytes per interval of the group while it is aggregated, one sort (n log n) at the end.
*/
#include "ps_vtab.h"
SQLITE_EXTENSION_INIT3

#include <stdlib.h>
#include <string.h>

typedef struct SuIv { int64_t a, b; } SuIv;
typedef struct SuAgg { SuIv *a; size_t n, nAlloc; int bErr; } SuAgg;

static int su_cmp(const void *x, const void *y){
  const SuIv *p = x, *q = y;
  if( p->a!=q->a ) return p->a<q->a ? -1 : 1;
  return p->b<q->b ? -1 : p->b>q->b;
}

static void suStep(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  (void)argc;
  SuAgg *g = sqlite3_aggregate_context(ctx, sizeof(SuAgg));
  if( g==0 ){ sqlite3_result_error_nomem(ctx); return; }
  if( g->bErr ) return;
  int t0 = sqlite3_value_type(argv[0]), t1 = sqlite3_value_type(argv[1]);
  if( t0==SQLITE_NULL || t1==SQLITE_NULL ) return;
  if( t0!=SQLITE_INTEGER || t1!=SQLITE_INTEGER ){
    g->bErr = 1;
    sqlite3_result_error(ctx, "profile_span_union: ts and dur must be integers", -1);
    return;
  }
  int64_t ts = sqlite3_value_int64(argv[0]), dur = sqlite3_value_int64(argv[1]);
  if( dur<=0 ) return;
  if( g->n==g->nAlloc ){
    size_t m = g->nAlloc ? 2*g->nAlloc : 64;
    SuIv *p = sqlite3_realloc64(g->a, m*sizeof(*p));
    if( p==0 ){ sqlite3_result_error_nomem(ctx); return; }
    g->a = p; g->nAlloc = m;
  }
  g->a[g->n].a = ts;
  g->a[g->n].b = ps_add_sat(ts, dur);
  g->n++;
}

static void suFinal(sqlite3_context *ctx){
  SuAgg *g = sqlite3_aggregate_context(ctx, 0);
  if( g==0 ){ sqlite3_result_int64(ctx, 0); return; }
  if( g->bErr ){ sqlite3_free(g->a); return; }
  /* sorted by start, unless the rows came in order (one pass looks) */
  size_t i;
  for(i=1; i<g->n && su_cmp(&g->a[i-1], &g->a[i])<=0; i++){}
  if( i<g->n ) qsort(g->a, g->n, sizeof(SuIv), su_cmp);
  uint64_t tot = 0;
  int64_t end = INT64_MIN;
  for(i=0; i<g->n; i++){
    int64_t a = g->a[i].a > end ? g->a[i].a : end;
    if( g->a[i].b > a ) tot += (uint64_t)g->a[i].b - (uint64_t)a;
    if( g->a[i].b > end ) end = g->a[i].b;
  }
  sqlite3_free(g->a);
  sqlite3_result_int64(ctx, tot > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)tot);
}

int ps_span_union_register(sqlite3 *db){
  return sqlite3_create_function(db, "profile_span_union", 2, SQLITE_UTF8|SQLITE_DETERMINISTIC|SQLITE_INNOCUOUS,
                                 0, 0, suStep, suFinal);
}
