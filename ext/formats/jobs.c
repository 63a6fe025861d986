/*
** jobs.c — the newengine job profiler ("StarProfiler", plugin engine.profiler.starprofiler)
** captures: the report JSON (schema newengine.profiler.report.v3: completed_jobs and
** active_jobs, the run/plugin/summary/config sections and diagnostics) and a
** profiler_jobs_*.csv on its own. See jobs.h for the columns and their rules.
**
** Parsing validates the whole JSON document once and records, per job, where its object is;
** the 37 CSV columns are then read from that object on demand with the writer's rules
** (StarProfiler's csv_completed_jobs: s/f/b helpers, direct_or_metadata and metadata_csv
** fall-backs over /metadata, /metadata/event and /metadata/metadata). A jobs CSV is split
** into RFC 4180 records (quoted cells may hold commas, quotes and line breaks).
*/
#include "jobs.h"
#include "formats.h"
#include "json_model.h"
#include "../wire/json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const ps_job_csv_names[PS_JOB_NCSV] = {
  "id", "status", "category", "source", "lane", "priority", "dependency_group", "frame_id",
  "task_domain", "task_pass", "executor", "name", "elapsed_ms", "budget_ms", "frame_budget_ms",
  "load", "load_percent", "over_budget", "exceeded_frame_budget", "gpu_wait_ms", "wait_reason",
  "scheduled", "blocked", "polling", "waited_on_gpu", "stayed_async", "async_mode",
  "started_unix_ms", "ended_unix_ms", "payload_bytes", "output_bytes", "service_id", "method",
  "plugin_id", "gateway", "error", "detail"
};

/* How a column is read (the writer's helper for it). */
enum { K_STR, K_REAL, K_BOOL, K_DIRECT, K_META, K_SCALAR, K_PCT, K_OVER, K_JSON };

typedef struct JobCol {
  uint8_t kind;
  const char *zKey;             /* the job's own key */
  const char *azPath[4];        /* metadata fall-back pointers (K_DIRECT, K_META) */
} JobCol;

#define MD3(k) { "/metadata/" k, "/metadata/event/" k, "/metadata/metadata/" k, 0 }
static const JobCol aCol[PS_JOB_NCOL] = {
  { K_STR, "id", {0} }, { K_STR, "status", {0} }, { K_STR, "category", {0} },
  { K_STR, "source", {0} },
  { K_DIRECT, "lane", MD3("lane") }, { K_DIRECT, "priority", MD3("priority") },
  { K_DIRECT, "dependency_group", MD3("dependency_group") },
  { K_DIRECT, "frame_id", MD3("frame_id") }, { K_DIRECT, "task_domain", MD3("task_domain") },
  { K_DIRECT, "task_pass", MD3("task_pass") }, { K_DIRECT, "executor", MD3("executor") },
  { K_STR, "name", {0} }, { K_REAL, "elapsed_ms", {0} }, { K_REAL, "budget_ms", {0} },
  { K_REAL, "frame_budget_ms", {0} }, { K_REAL, "load", {0} },
  { K_PCT, "load", {0} }, { K_OVER, "load", {0} },
  { K_BOOL, "exceeded_frame_budget", {0} }, { K_REAL, "gpu_wait_ms", {0} },
  { K_STR, "wait_reason", {0} }, { K_BOOL, "scheduled", {0} }, { K_BOOL, "blocked", {0} },
  { K_BOOL, "polling", {0} }, { K_BOOL, "waited_on_gpu", {0} }, { K_BOOL, "stayed_async", {0} },
  { K_STR, "async_mode", {0} },
  { K_SCALAR, "started_unix_ms", {0} }, { K_SCALAR, "ended_unix_ms", {0} },
  { K_SCALAR, "payload_bytes", {0} }, { K_SCALAR, "output_bytes", {0} },
  { K_META, 0, { "/metadata/service_id", "/metadata/metadata/service_id", 0 } },
  { K_META, 0, { "/metadata/method", "/metadata/method_name", "/metadata/metadata/method", 0 } },
  { K_META, 0, { "/metadata/plugin_id", "/metadata/metadata/plugin_id", 0 } },
  { K_META, 0, { "/metadata/gateway", "/metadata/engine_gateway", "/metadata/metadata/gateway", 0 } },
  { K_STR, "error", {0} }, { K_STR, "detail", {0} },
  /* extras */
  { K_JSON, "metadata", {0} }, { K_REAL, "active_elapsed_ms", {0} },
  { K_REAL, "current_load", {0} }, { K_REAL, "progress", {0} },
  { K_JSON, 0, {0} }, { K_JSON, 0, {0} },          /* owner, method_name: ps_job_keys */
};

/* The fast path of ps_fmt_fixed: 0 when it cannot tell the digits for sure (the caller then asks
** snprintf). x = |v|·10^nDec is rounded once (10^nDec, nDec <= 9, is exact), so for x < 2^40 it is
** within 2^-14 of the exact product P, and, rounding being monotonic and every k + 1/2 exact
** there, on the same side of each k + 1/2 as P or equal to it: the nearest integer N of x is P's
** unless x's fraction is one half (where snprintf's exact value and ties-to-even decide). N's
** digits are "%.*f"'s. The sign is v's sign bit, as glibc prints it ("-0.000000" for -0.0 and
** tiny negatives). */
static size_t fmt_fixed_fast(char *buf, size_t nBuf, double v, int nDec){
  static const double p10[10] = { 1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9 };
  static const uint64_t u10[10] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000 };
  if( nDec<0 || nDec>9 || nBuf<32 ) return 0;
  double x = fabs(v) * p10[nDec];
  if( !(x < 1099511627776.0) ) return 0;           /* 2^40; NaN and infinities fail too */
  double fl = floor(x), f = x - fl;
  if( f==0.5 ) return 0;
  uint64_t N = (uint64_t)fl + (f > 0.5);
  uint64_t ip = N / u10[nDec], fp = N % u10[nDec];
  char tmp[24]; int k = 0;
  do{ tmp[k++] = (char)('0' + ip%10); ip /= 10; }while( ip );
  size_t n = 0;
  if( signbit(v) ) buf[n++] = '-';
  while( k ) buf[n++] = tmp[--k];
  if( nDec>0 ){
    buf[n++] = '.';
    for(int d=nDec-1; d>=0; d--){ buf[n+(size_t)d] = (char)('0' + fp%10); fp /= 10; }
    n += (size_t)nDec;
  }
  buf[n] = 0;
  return n;
}

size_t ps_fmt_fixed(char *buf, size_t nBuf, double v, int nDec){
  size_t nFast = fmt_fixed_fast(buf, nBuf, v, nDec);
  if( nFast ) return nFast;
  int n = snprintf(buf, nBuf, "%.*f", nDec, v);
  if( n<0 ) n = 0;
  if( (size_t)n >= nBuf ) n = (int)nBuf - 1;
  /* "-0.000000" for a tiny negative: Rust prints the sign as well, keep it */
  return (size_t)n;
}

/* ------------------------------------------------------------------ JSON values */

/* Value span [*pv, *pe) at JSON pointer zPath ("/a/b") inside the object at off; 1 found. */
static int json_pointer(const char *z, size_t n, size_t off, const char *zPath, size_t *pv){
  size_t i = off;
  const char *p = zPath;
  while( *p=='/' ){
    p++;
    const char *e = strchr(p, '/');
    size_t k = e ? (size_t)(e - p) : strlen(p);
    char key[64];
    if( k >= sizeof(key) ) return 0;
    memcpy(key, p, k); key[k] = 0;
    if( i>=n || z[i]!='{' ) return 0;
    if( ps_json_find_key(z, n, i, key, &i)!=1 ) return 0;
    p += k;
  }
  *pv = i;
  return 1;
}

static void out_null(PsOut *o){ memset(o, 0, sizeof(*o)); }

/* The decimal literal z[0..n) (JSON number grammar, already checked) as the nearest double:
** 0, 1 when it is beyond the double range (|v| > 1.8e308, e.g. 1e400: strtod would give an
** infinity), -1 when out of memory. The whole literal is read, however long. */
static int job_double(const char *z, size_t n, double *pr){
  char buf[64], *b = n < sizeof(buf) ? buf : malloc(n+1);
  if( b==0 ) return -1;
  memcpy(b, z, n); b[n] = 0;
  *pr = strtod(b, 0);
  if( b!=buf ) free(b);
  return isinf(*pr) ? 1 : 0;
}
#define JOB_DOUBLE_RANGE "beyond the double range, +/-1.8e308"

/* The decimal exponent of a number's leading digit (1.5e3: 3; 0.02: -2; 0: INT32_MIN): below 308
** it is within the double range whatever its digits (the largest double is 1.797...e308), so
** job_double (strtod) is needed only from 1e308 on. */
static int64_t job_magnitude(const PsDec *d){
  if( d->mant==0 ) return INT32_MIN;
  int64_t e = d->exp10;
  for(uint64_t m = d->mant; m>=10; m /= 10) e++;
  return e;
}

/* A number literal at z[i..] as INTEGER when integral and in range, else REAL; NULL beyond the
** double range (loading refuses such a file: this is for bytes rewritten since). */
static void out_number(const char *z, size_t n, size_t i, PsOut *o){
  PsDec d; size_t j = i;
  out_null(o);
  if( ps_json_number(z, n, &j, &d, 0) ) return;
  int64_t v;
  if( d.bInt && ps_dec_int64(&d, &v)==0 ){ o->type = PS_META_INT; o->i = v; return; }
  if( job_double(z+i, j-i, &o->r)==0 ) o->type = PS_META_REAL;
}

/* A string value at z[i] (its quote) as TEXT; escapes decoded into a malloc'ed copy. */
static int out_string(const char *z, size_t n, size_t i, PsOut *o){
  PsBuf b; memset(&b, 0, sizeof(b));
  const char *s; size_t sn;
  out_null(o);
  int rc = ps_json_string(z, n, &i, &b, &s, &sn, 0);
  if( rc ){ ps_buf_free(&b); return rc==PS_NOMEM ? PS_NOMEM : PS_OK; }   /* bad bytes: NULL */
  o->type = PS_META_TEXT;
  if( b.z && s==b.z ){
    o->zFree = malloc(sn + 1);
    if( o->zFree==0 ){ ps_buf_free(&b); return PS_NOMEM; }
    memcpy(o->zFree, s, sn); o->zFree[sn] = 0;
    s = o->zFree;
  }
  o->z = s; o->n = sn;
  ps_buf_free(&b);
  return PS_OK;
}

/* The writer's format_json_scalar, typed: string TEXT, number INTEGER/REAL, null the TEXT
** 'null', true/false TEXT, object/array its JSON text. */
static int out_scalar(const char *z, size_t n, size_t i, PsOut *o){
  out_null(o);
  if( i>=n ) return PS_OK;
  char c = z[i];
  if( c=='"' ) return out_string(z, n, i, o);
  if( c=='-' || (c>='0' && c<='9') ){ out_number(z, n, i, o); return PS_OK; }
  size_t e = i;
  if( ps_json_skip(z, n, &e, 0) ) return PS_OK;
  o->type = (c=='{' || c=='[') ? PS_META_JSON : PS_META_TEXT;
  o->z = z + i; o->n = e - i;
  return PS_OK;
}

/* ------------------------------------------------------------------ CSV records */

/* The cell starting at z[*pi] of a record ending at end: *pi ends at the ',' after it (or end).
** Returns 1 when it is quoted. */
static int csv_next_cell(const char *z, size_t *pi, size_t end){
  size_t i = *pi;
  int bQuoted = i<end && z[i]=='"';
  if( bQuoted ){
    i++;
    while( i<end ){
      if( z[i]=='"' ){ if( i+1<end && z[i+1]=='"' ){ i += 2; continue; } break; }
      i++;
    }
    i++;                                          /* closing quote */
  }
  while( i<end && z[i]!=',' ) i++;
  *pi = i;
  return bQuoted;
}

/* Cell k of the CSV record [off, off+len): unquoted into a malloc'ed copy when it was quoted.
** Returns 1 with the cell, 0 when the record has fewer cells. */
static int csv_cell(const char *z, size_t off, size_t len, int k, PsOut *o, int *pbNoMem){
  size_t i = off, end = off + len;
  *pbNoMem = 0;
  for(int c=0; ; c++){
    size_t s = i;
    int bQuoted = csv_next_cell(z, &i, end);
    if( c==k ){
      out_null(o);
      o->type = PS_META_TEXT;
      if( !bQuoted ){ o->z = z + s; o->n = i - s; return 1; }
      size_t e = i;                               /* s: opening quote; find the closing one */
      char *d = malloc(e - s + 1);
      if( d==0 ){ *pbNoMem = 1; return 0; }
      size_t m = 0;
      for(size_t j=s+1; j<e; j++){
        if( z[j]=='"' ){ if( j+1<e && z[j+1]=='"' ){ d[m++] = '"'; j++; continue; } break; }
        d[m++] = z[j];
      }
      d[m] = 0;
      o->zFree = d; o->z = d; o->n = m;
      return 1;
    }
    if( i>=end ) return 0;
    i++;                                          /* the comma */
  }
}

/* A cell's text as a double when the whole cell is a decimal number (the JSON grammar: not
** "inf", "NaN" or hex, which strtod would take): 0; 1 beyond the double range; -2 when it is
** not a number; -1 when out of memory. */
static int cell_double(const char *z, size_t n, double *pr){
  PsDec d;
  if( n==0 || ps_dec_parse(z, n, &d) ) return -2;
  return job_double(z, n, pr);
}

/* A cell's text as a number, when the whole cell is one. */
static int cell_number(const char *z, size_t n, PsOut *o){
  PsDec d;
  if( n==0 || ps_dec_parse(z, n, &d) ) return 0;
  int64_t v;
  if( d.bInt && ps_dec_int64(&d, &v)==0 ){ free(o->zFree); out_null(o); o->type = PS_META_INT; o->i = v; return 1; }
  double r;
  if( job_double(z, n, &r) ) return 0;
  free(o->zFree); out_null(o);
  /* the writer prints whole millisecond stamps as "1787314756953.000": INTEGER again */
  if( r > -9e15 && r < 9e15 && r==(double)(int64_t)r ){ o->type = PS_META_INT; o->i = (int64_t)r; }
  else{ o->type = PS_META_REAL; o->r = r; }
  return 1;
}

static int csv_column(const PsCapture *cap, const PsJob *j, int iCol, PsOut *o){
  const JobCol *c = &aCol[iCol];
  int iSrc = iCol;
  if( c->kind==K_PCT || c->kind==K_OVER ) iSrc = PS_JOB_LOAD;
  int8_t cell = iSrc < PS_JOB_NCSV ? cap->aJobCsvCol[iSrc] : -1;
  int bNoMem = 0;
  out_null(o);
  if( cell<0 || !csv_cell(cap->src.z, j->off, j->len, cell, o, &bNoMem) ){
    out_null(o);
    if( bNoMem ) return PS_NOMEM;
    if( c->kind==K_BOOL ){ o->type = PS_META_INT; o->i = 0; }
    return PS_OK;
  }
  const char *z = o->z; size_t n = o->n;
  switch( c->kind ){
    case K_STR: case K_DIRECT: case K_META:
      if( n==0 ){ free(o->zFree); out_null(o); }
      break;
    case K_REAL: case K_PCT: case K_OVER: {
      double r = 0;
      int bHave = cell_double(z, n, &r)==0;
      if( !bHave ) r = 0;
      free(o->zFree); out_null(o);
      if( c->kind==K_OVER ){ o->type = PS_META_INT; o->i = bHave && r >= 1.0; }
      else if( c->kind==K_PCT ){ o->type = PS_META_REAL; o->r = bHave ? r*100.0 : 0.0; }
      else if( bHave ){ o->type = PS_META_REAL; o->r = r; }
      break;
    }
    case K_BOOL: {
      int b = n==4 && memcmp(z, "true", 4)==0;
      free(o->zFree); out_null(o);
      o->type = PS_META_INT; o->i = b;
      break;
    }
    case K_SCALAR:
      if( n==0 ){ free(o->zFree); out_null(o); }
      else cell_number(z, n, o);
      break;
    default:
      free(o->zFree); out_null(o);
  }
  return PS_OK;
}

/* First non-empty trimmed JSON string at one of the paths under the object at off. */
static int first_str(const char *z, size_t n, size_t off, const char *const *az, PsOut *o){
  out_null(o);
  for(int k=0; az[k]; k++){
    size_t v;
    if( !json_pointer(z, n, off, az[k], &v) || z[v]!='"' ) continue;
    int rc = out_string(z, n, v, o);
    if( rc ) return rc;
    const char *s = o->z; size_t m = o->n;
    while( m && (*s==' ' || *s=='\t' || *s=='\n' || *s=='\r') ){ s++; m--; }
    while( m && (s[m-1]==' ' || s[m-1]=='\t' || s[m-1]=='\n' || s[m-1]=='\r') ) m--;
    if( m ){
      if( o->zFree && s!=o->zFree ){ memmove(o->zFree, s, m); o->zFree[m] = 0; s = o->zFree; }
      o->z = s; o->n = m;
      return PS_OK;
    }
    free(o->zFree); out_null(o);
  }
  return PS_OK;
}

/* o = zPrefix + the text of o (malloc'ed). */
static int prefix_out(PsOut *o, const char *zPrefix){
  size_t p = strlen(zPrefix);
  char *d = malloc(p + o->n + 1);
  if( d==0 ){ free(o->zFree); out_null(o); return PS_NOMEM; }
  memcpy(d, zPrefix, p); memcpy(d+p, o->z, o->n); d[p + o->n] = 0;
  free(o->zFree);
  o->zFree = d; o->z = d; o->n += p;
  return PS_OK;
}

/* The JSON-pointer paths ps_job_keys reads the owner and method from, in the writer's order. */
static const char *const azService[] = { "/service_id", "/metadata/service_id", "/provider_service_id", "/metadata/provider_service_id", 0 };
static const char *const azPlugin[] = { "/plugin_id", "/metadata/plugin_id", "/owner_plugin_id", "/metadata/owner_plugin_id", 0 };
static const char *const azGateway[] = { "/gateway", "/engine_gateway", "/metadata/gateway", "/metadata/engine_gateway", 0 };
static const char *const azMethod[] = { "/method", "/method_name", "/metadata/method", "/metadata/method_name", 0 };

/* 1 when a path of az starts with the member key zk[0..nk) (its first segment). */
static int paths_start_with(const char *const *az, const char *zk, size_t nk){
  for(int j=0; az[j]; j++){
    if( nk && az[j][1]==zk[0] && strncmp(az[j]+1, zk, nk)==0 && (az[j][1+nk]=='/' || az[j][1+nk]==0) ) return 1;
  }
  return 0;
}

/* 0 when the object at z[off] has none of the top-level keys the paths of ps_job_keys start
** with (so every lookup would miss): one walk over its members instead of sixteen lookups, which
** is what a Chrome event's args (frame, seq, src, ...) costs per row. 1 when one may match, a key
** holds an escape or a NUL, or the object is not well-formed (the lookups then decide, as
** before). The first keys are read from the paths themselves. */
static int keys_may_match(const char *z, size_t n, size_t off){
  size_t i = off + 1;
  PsJsonMember m;
  for(size_t k=0; ; k++){
    int rc = ps_json_member(z, n, &i, k, &m, 1, 0);
    if( rc==0 ) return 0;
    if( rc<0 ) return 1;
    const char *zk = z + m.q + 1;
    if( memchr(zk, '\\', m.kn) || memchr(zk, 0, m.kn) ) return 1;
    if( paths_start_with(azService, zk, m.kn) || paths_start_with(azPlugin, zk, m.kn)
     || paths_start_with(azGateway, zk, m.kn) || paths_start_with(azMethod, zk, m.kn) ) return 1;
  }
}

int ps_job_keys(const char *z, size_t n, size_t metaOff, const char *zSource, size_t nSource,
                const char *zCategory, size_t nCategory, PsOut *pOwner, PsOut *pMethod){
  int rc;
  out_null(pOwner); out_null(pMethod);
  if( metaOff < n && z[metaOff]=='{' && keys_may_match(z, n, metaOff) ){
    if( (rc = first_str(z, n, metaOff, azMethod, pMethod)) ) return rc;
    if( (rc = first_str(z, n, metaOff, azService, pOwner)) ) return rc;
    if( pOwner->type ) return PS_OK;
    if( (rc = first_str(z, n, metaOff, azPlugin, pOwner)) ) return rc;
    if( pOwner->type ) return prefix_out(pOwner, "plugin:");
    if( (rc = first_str(z, n, metaOff, azGateway, pOwner)) ) return rc;
    if( pOwner->type ) return prefix_out(pOwner, "gateway:");
  }
  char *d = malloc(nSource + nCategory + 2);
  if( d==0 ) return PS_NOMEM;
  if( nSource ) memcpy(d, zSource, nSource);
  d[nSource] = ':';
  if( nCategory ) memcpy(d+nSource+1, zCategory, nCategory);
  d[nSource + 1 + nCategory] = 0;
  pOwner->type = PS_META_TEXT; pOwner->zFree = d; pOwner->z = d; pOwner->n = nSource + 1 + nCategory;
  return PS_OK;
}

/* owner / method_name of a job row. */
static int job_keys(const PsCapture *cap, size_t row, int iCol, PsOut *o){
  PsOut src, cat, own, meth;
  int rc = ps_job_column(cap, row, PS_JOB_SOURCE, &src);
  if( rc==PS_OK ) rc = ps_job_column(cap, row, PS_JOB_CATEGORY, &cat);
  if( rc ){ free(src.zFree); return rc; }
  size_t metaOff = (size_t)-1, v;
  if( cap->aJobCsvCol==0 && ps_json_find_key(cap->src.z, cap->src.n, (size_t)cap->aJob[row].off, "metadata", &v)==1 ) metaOff = v;
  rc = ps_job_keys(cap->src.z, cap->src.n, metaOff, src.z ? src.z : "", src.n, cat.z ? cat.z : "", cat.n, &own, &meth);
  if( rc==PS_OK && cap->aJobCsvCol ){
    /* a jobs CSV has no metadata: its service_id / plugin_id / gateway / method cells stand in */
    static const int aCol[3] = { PS_JOB_SERVICE_ID, PS_JOB_PLUGIN_ID, PS_JOB_GATEWAY };
    static const char *const azPre[3] = { "", "plugin:", "gateway:" };
    for(int k=0; k<3 && rc==PS_OK; k++){
      PsOut c;
      rc = ps_job_column(cap, row, aCol[k], &c);
      if( rc==PS_OK && c.type==PS_META_TEXT && c.n && !(c.n==4 && memcmp(c.z, "null", 4)==0) ){
        free(own.zFree); own = c;
        rc = prefix_out(&own, azPre[k]);
        break;
      }
      if( rc==PS_OK ) free(c.zFree);
    }
    if( rc==PS_OK ){
      PsOut c;
      rc = ps_job_column(cap, row, PS_JOB_METHOD, &c);
      if( rc==PS_OK && c.type==PS_META_TEXT && c.n && !(c.n==4 && memcmp(c.z, "null", 4)==0) ){ free(meth.zFree); meth = c; }
      else if( rc==PS_OK ) free(c.zFree);
    }
  }
  free(src.zFree); free(cat.zFree);
  if( rc ){ free(own.zFree); free(meth.zFree); return rc; }
  if( iCol==PS_JOB_OWNER ){ *o = own; free(meth.zFree); }
  else{ *o = meth; free(own.zFree); }
  return PS_OK;
}

int ps_job_column(const PsCapture *cap, size_t row, int iCol, PsOut *o){
  out_null(o);
  if( row >= cap->nJob || iCol<0 || iCol>=PS_JOB_NCOL ) return PS_OK;
  const PsJob *j = &cap->aJob[row];
  if( iCol==PS_JOB_OWNER || iCol==PS_JOB_METHOD_NAME ) return job_keys(cap, row, iCol, o);
  if( cap->aJobCsvCol ) return csv_column(cap, j, iCol, o);
  const char *z = cap->src.z; size_t n = cap->src.n;
  const JobCol *c = &aCol[iCol];
  size_t v;
  int bHave = c->zKey && ps_json_find_key(z, n, (size_t)j->off, c->zKey, &v)==1;
  char ch = bHave ? z[v] : 0;
  int bNum = ch=='-' || (ch>='0' && ch<='9');
  switch( c->kind ){
    case K_STR:
      if( ch=='"' ) return out_string(z, n, v, o);
      return PS_OK;
    case K_REAL:
      if( bNum ){ out_number(z, n, v, o); if( o->type==PS_META_INT ){ o->type = PS_META_REAL; o->r = (double)o->i; } }
      return PS_OK;
    case K_PCT: case K_OVER: {
      double r = 0;
      if( bNum ){ out_number(z, n, v, o); r = o->type==PS_META_INT ? (double)o->i : o->r; }
      out_null(o);
      if( c->kind==K_PCT ){ o->type = PS_META_REAL; o->r = r*100.0; }
      else{ o->type = PS_META_INT; o->i = r >= 1.0; }
      return PS_OK;
    }
    case K_BOOL:
      o->type = PS_META_INT; o->i = bHave && n - v >= 4 && memcmp(z+v, "true", 4)==0;
      return PS_OK;
    case K_SCALAR:
      if( bHave ) return out_scalar(z, n, v, o);
      return PS_OK;
    case K_JSON: {
      if( !bHave ) return PS_OK;
      size_t e = v;
      if( ps_json_skip(z, n, &e, 0) ) return PS_OK;
      o->type = PS_META_JSON; o->z = z + v; o->n = e - v;
      return PS_OK;
    }
    case K_DIRECT:
      if( bHave ){
        int rc = out_scalar(z, n, v, o);
        if( rc ) return rc;
        int bBlank = o->type==PS_META_TEXT || o->type==PS_META_JSON;
        if( bBlank ){
          for(size_t k=0; k<o->n; k++) if( o->z[k]!=' ' && o->z[k]!='\t' && o->z[k]!='\n' && o->z[k]!='\r' ){ bBlank = 0; break; }
          if( o->n==4 && memcmp(o->z, "null", 4)==0 ) bBlank = 1;   /* JSON null or "null" */
        }
        if( !bBlank && o->type ) return PS_OK;
        free(o->zFree); out_null(o);
      }
      /* then the metadata paths */
      /* fall through */
    case K_META:
      for(int k=0; k<4 && c->azPath[k]; k++){
        if( json_pointer(z, n, (size_t)j->off, c->azPath[k], &v) ) return out_scalar(z, n, v, o);
      }
      return PS_OK;
  }
  return PS_OK;
}

/* ------------------------------------------------------------------ the report JSON again */

int ps_job_is_report(const PsCapture *cap){
  return cap && cap->pFormat==&ps_format_newengine && cap->aJobCsvCol==0;
}

/* After a member's key that ends at i: the value's span [*pv, *pe) and the position of the next
** member's key (past the ','); n when the members end early (the bytes were validated at load). */
static size_t member_value(const char *z, size_t n, size_t i, size_t *pv, size_t *pe){
  i = ps_json_ws(z, n, i);
  if( i>=n || z[i]!=':' ) return n;
  size_t v = ps_json_ws(z, n, i+1), e = v;
  if( ps_json_skip(z, n, &e, 0) ) return n;
  *pv = v; *pe = e;
  i = ps_json_ws(z, n, e);
  if( i<n && z[i]==',' ) i = ps_json_ws(z, n, i+1);
  return i;
}

int ps_job_json(const PsCapture *cap, size_t row, const double *pBudget, const double *pLoad, PsBuf *b){
  if( !ps_job_is_report(cap) || row>=cap->nJob ) return PS_OK;
  const char *z = cap->src.z; size_t n = cap->src.n;
  size_t i0 = ps_json_ws(z, n, (size_t)cap->aJob[row].off + 1);
  /* pass 1: the members, and which one is the last of its key (a repeated key: its last value
  ** counts, as serde_json's map keeps it); a hash of the keys keeps this linear */
  PsJsonKeys keys; memset(&keys, 0, sizeof(keys));
  ps_json_keys_reset(&keys);
  size_t nMem = 0, i = i0;
  int bad = 0;
  while( !bad && i<n && z[i]=='"' ){
    size_t q = i;
    if( ps_json_skip(z, n, &i, 0) ) break;                 /* the bytes were validated at load */
    uint32_t prev; size_t prevOff, v, e;
    if( nMem>=UINT32_MAX || ps_json_keys_put(&keys, z, q+1, i-q-2, (uint32_t)nMem, &prev, &prevOff)<0 ) bad = 1;
    nMem++;
    i = member_value(z, n, i, &v, &e);
  }
  uint8_t *aLast = bad ? 0 : calloc(nMem ? nMem : 1, 1);
  if( aLast==0 ){ ps_json_keys_free(&keys); return PS_NOMEM; }
  for(size_t k=0; k<keys.nSlot; k++){
    if( keys.a[k].gen==keys.gen && keys.a[k].val<nMem ) aLast[keys.a[k].val] = 1;
  }
  ps_json_keys_free(&keys);
  /* pass 2: write them */
  bad = ps_buf_append(b, "{", 1);
  int nOut = 0;
  i = i0;
  for(size_t m=0; !bad && m<nMem && i<n && z[i]=='"'; m++){
    size_t q = i;
    if( ps_json_skip(z, n, &i, 0) ) break;
    size_t kn = i-q-2, v = 0, e = 0;
    i = member_value(z, n, i, &v, &e);
    if( e==0 ) break;
    if( aLast[m] ){
      const double *pr = (kn==9 && memcmp(z+q+1, "budget_ms", 9)==0) ? pBudget
                       : (kn==4 && memcmp(z+q+1, "load", 4)==0) ? pLoad : 0;
      if( nOut++ ) bad |= ps_buf_append(b, ",", 1);
      bad |= ps_buf_append(b, z+q, kn+2) | ps_buf_append(b, ":", 1);
      if( pr && z[v]!='n' ){
        char f[PS_FLOAT_BUF];
        size_t fn = ps_fmt_float(f, *pr);
        bad |= ps_buf_append(b, f, fn);
      }else{
        bad |= ps_buf_append(b, z+v, e-v);
      }
    }
  }
  free(aLast);
  bad |= ps_buf_append(b, "}", 1);
  return bad ? PS_NOMEM : PS_OK;
}

/* One section {"key":value,...} of the metadata rows of scope zScope, in row order. */
static int report_scope(const PsCapture *cap, const char *zScope, PsBuf *b){
  int bad = ps_buf_append(b, "{", 1), nOut = 0;
  for(size_t r=0; r<cap->nMeta && !bad; r++){
    const PsMeta *m = &cap->aMeta[r];
    PsStr sc = ps_pool_get(&cap->pool, m->scope), k = ps_pool_get(&cap->pool, m->key);
    if( sc.n!=strlen(zScope) || memcmp(sc.z, zScope, sc.n)!=0 ) continue;
    if( nOut++ ) bad |= ps_buf_append(b, ",", 1);
    bad |= ps_json_serde_string(b, k.z, k.n) | ps_buf_append(b, ":", 1);
    char t[PS_FLOAT_BUF];
    switch( m->type ){
      case PS_META_INT: bad |= ps_buf_printf(b, "%lld", (long long)m->i); break;
      case PS_META_REAL: bad |= ps_buf_append(b, t, ps_fmt_float(t, m->r)); break;
      case PS_META_TEXT: bad |= ps_json_serde_string(b, m->z, m->n); break;
      case PS_META_JSON: bad |= ps_buf_append(b, m->z, m->n); break;
      default: bad |= ps_buf_append(b, "null", 4);
    }
  }
  return bad | ps_buf_append(b, "}", 1);
}

int ps_report_input(const PsCapture *cap, PsBuf *b){
  if( !ps_job_is_report(cap) ) return PS_OK;
  const char *z = cap->src.z; size_t n = cap->src.n;
  size_t i = 0;
  if( n>=3 && (unsigned char)z[0]==0xEF && (unsigned char)z[1]==0xBB && (unsigned char)z[2]==0xBF ) i = 3;
  i = ps_json_ws(z, n, i);
  if( i>=n || z[i]!='{' ) return PS_OK;
  int bad = ps_buf_puts(b, "{\"keys\":[");
  size_t nKey = 0;
  PsJsonKeys keys; memset(&keys, 0, sizeof(keys));
  ps_json_keys_reset(&keys);
  i = ps_json_ws(z, n, i+1);
  while( !bad && i<n && z[i]=='"' ){
    size_t q = i;
    if( ps_json_skip(z, n, &i, 0) ) break;
    /* each key once, where it first stands (the value read is the last one's) */
    uint32_t prev; size_t prevOff;
    int bSeen = ps_json_keys_put(&keys, z, q+1, i-q-2, 0, &prev, &prevOff);
    if( bSeen<0 ){ bad = 1; break; }
    if( !bSeen ){
      if( nKey++ ) bad |= ps_buf_append(b, ",", 1);
      bad |= ps_buf_append(b, z+q, i-q);
    }
    size_t v, e;
    i = member_value(z, n, i, &v, &e);
  }
  ps_json_keys_free(&keys);
  static const char *const azScope[] = { "report", "run", "plugin", "summary" };
  bad |= ps_buf_append(b, "]", 1);
  for(int s=0; s<4 && !bad; s++){
    bad |= ps_buf_printf(b, ",\"%s\":", azScope[s]);
    bad |= report_scope(cap, azScope[s], b);
  }
  bad |= ps_buf_append(b, "}", 1);
  return bad ? PS_NOMEM : PS_OK;
}

/* ------------------------------------------------------------------ parsing */

static int job_add(PsCapture *cap, uint64_t off, size_t len, int bActive, uint32_t line){
  if( ps_grow((void**)&cap->aJob, sizeof(PsJob), &cap->nJobAlloc, cap->nJob+1) ) return PS_NOMEM;
  PsJob *j = &cap->aJob[cap->nJob++];
  j->off = off; j->len = len > UINT32_MAX ? UINT32_MAX : (uint32_t)len;
  j->bActive = (uint8_t)bActive; j->line = line;
  return PS_OK;
}

/* What one member of an object made: metadata rows [m0, m1) and jobs [j0, j1), dropped when
** the same key comes again (the last one wins). */
typedef struct NjMember { size_t m0, m1, j0, j1; } NjMember;
typedef struct NjMembers { NjMember *a; size_t n, nAlloc; PsJsonKeys keys; } NjMembers;

typedef struct Nj {
  PsCapture *cap;
  const char *z; size_t n;
  PsErr *err;
  PsBuf scratch;
  NjMembers top, sec;         /* the report object's members, a section's (plugin, run, ...) */
  PsJsonKeys aJobKeys[3];     /* keys of a job, its metadata, metadata.event/.metadata */
  const char *azPath[3];      /* the keys nj_job_check went down by, for messages */
  size_t anPath[3];
  int bDropped;               /* some jobs were dropped (a repeated completed_jobs/active_jobs) */
} Nj;

/* A member with key z[keyOff..keyOff+keyLen) starts (zWhere names the object in the
** diagnostic): a repeated key drops what the earlier member made. PS_OK or PS_NOMEM. */
static int nj_member_begin(Nj *p, NjMembers *pm, size_t keyOff, size_t keyLen, const char *zWhere){
  uint32_t iPrev; size_t prevOff;
  int dup = ps_json_keys_put(&pm->keys, p->z, keyOff, keyLen, (uint32_t)pm->n, &iPrev, &prevOff);
  if( dup<0 || ps_grow((void**)&pm->a, sizeof(NjMember), &pm->nAlloc, pm->n+1) ) return PS_NOMEM;
  if( dup ){
    NjMember *e = &pm->a[iPrev];
    if( ps_json_dup_diag(p->cap, p->z, keyOff, keyLen, prevOff, zWhere) ) return PS_NOMEM;
    ps_meta_drop(p->cap, e->m0, e->m1);
    for(size_t j=e->j0; j<e->j1; j++){ p->cap->aJob[j].bActive = 2; p->bDropped = 1; }
  }
  NjMember *m = &pm->a[pm->n];
  m->m0 = m->m1 = p->cap->nMeta; m->j0 = m->j1 = p->cap->nJob;
  return PS_OK;
}

/* The member begun last has ended. */
static void nj_member_end(Nj *p, NjMembers *pm){
  pm->a[pm->n].m1 = p->cap->nMeta; pm->a[pm->n].j1 = p->cap->nJob;
  pm->n++;
}

/* A metadata row for the value at [v, e): strings decoded, numbers typed, the rest as JSON. */
static int nj_meta(Nj *p, const char *zScope, const char *zKey, size_t v, size_t e){
  const char *z = p->z;
  char c = z[v];
  if( c=='"' ){
    size_t i = v; const char *s; size_t sn;
    if( ps_json_string(z, p->n, &i, &p->scratch, &s, &sn, p->err) ) return PS_ERROR;
    if( s==p->scratch.z ){
      /* decoded: the text rule's diagnostic here (ps_meta_text gives it for source bytes) */
      char zField[300];
      snprintf(zField, sizeof(zField), "%s '%s'", zScope, zKey);
      if( ps_json_text_diag(p->cap, z, p->n, v, s, sn, zField) ) return ps_nomem(p->err);
      s = ps_arena_strdup(&p->cap->arena, s, sn);
      if( s==0 ) return ps_nomem(p->err);
    }
    return ps_meta_text(p->cap, zScope, zKey, s, sn, PS_META_TEXT, (int64_t)v) ? ps_nomem(p->err) : PS_OK;
  }
  if( c=='-' || (c>='0' && c<='9') ){
    PsOut o; out_number(z, p->n, v, &o);
    if( o.type==PS_META_INT ) return ps_meta_int(p->cap, zScope, zKey, o.i, (int64_t)v) ? ps_nomem(p->err) : PS_OK;
    return ps_meta_text(p->cap, zScope, zKey, z+v, e-v, PS_META_JSON, (int64_t)v) ? ps_nomem(p->err) : PS_OK;
  }
  if( c=='n' ) return PS_OK;                      /* null: no row */
  return ps_meta_text(p->cap, zScope, zKey, z+v, e-v, PS_META_JSON, (int64_t)v) ? ps_nomem(p->err) : PS_OK;
}

/* Calls nj_meta for each member of the object at v, under zScope. */
static int nj_object_meta(Nj *p, const char *zScope, size_t v){
  const char *z = p->z; size_t n = p->n;
  size_t i = ps_json_ws(z, n, v+1);
  char zWhere[PS_JSON_KEY_BUF+20];
  snprintf(zWhere, sizeof(zWhere), "the %s object", zScope);
  p->sec.n = 0; ps_json_keys_reset(&p->sec.keys);
  if( i<n && z[i]=='}' ) return PS_OK;
  for(;;){
    const char *k; size_t kn, q = i;
    if( i>=n || z[i]!='"' ) return ps_err_at(p->err, (int64_t)i, "expected a key in the %s object", zScope);
    if( ps_json_string(z, n, &i, &p->scratch, &k, &kn, p->err) ) return PS_ERROR;
    char key[PS_JSON_KEY_BUF];
    if( ps_json_key_text(p->cap, z, n, q, k, kn, key) || nj_member_begin(p, &p->sec, q+1, i-q-2, zWhere) ) return ps_nomem(p->err);
    i = ps_json_ws(z, n, i);
    if( i>=n || z[i]!=':' ) return ps_err_at(p->err, (int64_t)i, "expected ':' after a key in the %s object", zScope);
    i = ps_json_ws(z, n, i+1);
    size_t e = i;
    if( ps_json_skip(z, n, &e, p->err) ) return PS_ERROR;
    int rc = nj_meta(p, zScope, key, i, e);
    if( rc ) return rc;
    nj_member_end(p, &p->sec);
    i = ps_json_ws(z, n, e);
    if( i<n && z[i]==',' ){ i = ps_json_ws(z, n, i+1); continue; }
    if( i<n && z[i]=='}' ) return PS_OK;
    return ps_err_at(p->err, (int64_t)i, "expected ',' or '}' in the %s object", zScope);
  }
}

/* "metadata/event/lane": the first nSeg keys of p->azPath joined by '/', into z[0..n). */
static const char *nj_path(Nj *p, int nSeg, char *z, size_t n){
  size_t k = 0;
  z[0] = 0;
  for(int j=0; j<nSeg && k+1<n; j++){
    int w = snprintf(z+k, n-k, "%s%.*s", j ? "/" : "", (int)(p->anPath[j] > 60 ? 60 : p->anPath[j]), p->azPath[j]);
    if( w<0 ) break;
    k += (size_t)w;
  }
  return z;
}

/* Checks a job object at load (its '{' at *pi, the bytes already validated; *pi ends past it):
** the numbers a column reads - members of the job and of its metadata, metadata.event and
** metadata.metadata objects - must be within the double range (an error naming the byte
** offset and the key, as Chrome's 'ts: 1e400'), and a key given twice in one of these objects
** adds a 'duplicate_key' diagnostic (the last one is read, as ps_json_find_key reads it).
** depth 0 is the job; p->azPath[0..depth) are the keys it went down by. */
static int nj_job_check(Nj *p, size_t *pi, int depth){
  const char *z = p->z; size_t n = p->n;
  PsJsonKeys *ks = &p->aJobKeys[depth];
  char zPath[200];
  ps_json_keys_reset(ks);
  size_t i = ps_json_ws(z, n, *pi+1);
  while( i<n && z[i]=='"' ){
    size_t q = i, j = i+1;
    while( j<n && z[j]!='"' && z[j]!='\\' ) j++;          /* a key without escapes: the common case */
    if( j<n && z[j]=='"' ) i = j+1;
    else if( ps_json_skip(z, n, &i, p->err) ) return PS_ERROR;
    const char *k = z+q+1; size_t kn = i-q-2;
    uint32_t iPrev; size_t prevOff;
    int dup = ps_json_keys_put(ks, z, q+1, kn, 0, &iPrev, &prevOff);
    if( dup ){
      char zWhere[300];
      if( depth==0 ) snprintf(zWhere, sizeof(zWhere), "a job");
      else snprintf(zWhere, sizeof(zWhere), "a job's '%s'", nj_path(p, depth, zPath, sizeof(zPath)));
      if( dup<0 || ps_json_dup_diag(p->cap, z, q+1, kn, prevOff, zWhere) ) return ps_nomem(p->err);
    }
    i = ps_json_ws(z, n, i);
    if( i>=n || z[i]!=':' ) break;
    size_t v = ps_json_ws(z, n, i+1);
    i = v;
    char c = v<n ? z[v] : 0;
    int bMeta = kn==8 && memcmp(k, "metadata", 8)==0;
    if( c=='{' && ((depth==0 && bMeta) || (depth==1 && (bMeta || (kn==5 && memcmp(k, "event", 5)==0)))) ){
      p->azPath[depth] = k; p->anPath[depth] = kn;
      int rc = nj_job_check(p, &i, depth+1);
      if( rc ) return rc;
    }else if( c=='-' || (c>='0' && c<='9') ){
      PsDec d; double r;
      if( ps_json_number(z, n, &i, &d, p->err) ) return PS_ERROR;
      int rc = job_magnitude(&d)<308 ? 0 : job_double(z+v, i-v, &r);
      if( rc<0 ) return ps_nomem(p->err);
      if( rc ){
        p->azPath[depth] = k; p->anPath[depth] = kn;
        return ps_err_at(p->err, (int64_t)v, "'%s' %.*s is out of range (%s)", nj_path(p, depth+1, zPath, sizeof(zPath)),
                         (int)(i-v > 40 ? 40 : i-v), z+v, JOB_DOUBLE_RANGE);
      }
    }else if( ps_json_skip(z, n, &i, p->err) ){
      return PS_ERROR;
    }
    i = ps_json_ws(z, n, i);
    if( i<n && z[i]==',' ) i = ps_json_ws(z, n, i+1);
  }
  i = ps_json_ws(z, n, i);
  if( i>=n || z[i]!='}' ) return ps_err_at(p->err, (int64_t)i, "expected ',' or '}'");   /* validated before */
  *pi = i+1;
  return PS_OK;
}

/* The jobs of a completed_jobs / active_jobs array at v. */
static int nj_jobs(Nj *p, size_t v, int bActive, const char *zName){
  const char *z = p->z; size_t n = p->n;
  if( z[v]!='[' ) return ps_err_at(p->err, (int64_t)v, "%s: expected an array", zName);
  size_t i = ps_json_ws(z, n, v+1);
  if( i<n && z[i]==']' ) return PS_OK;
  for(;;){
    if( i>=n || z[i]!='{' ) return ps_err_at(p->err, (int64_t)i, "%s: expected a job object", zName);
    size_t e = i;                                 /* the array was validated by the caller */
    int rc = nj_job_check(p, &e, 0);
    if( rc ) return rc;
    if( job_add(p->cap, i, e - i, bActive, 0) ) return ps_nomem(p->err);
    i = ps_json_ws(z, n, e);
    if( i<n && z[i]==',' ){ i = ps_json_ws(z, n, i+1); continue; }
    if( i<n && z[i]==']' ) return PS_OK;
    return ps_err_at(p->err, (int64_t)i, "%s: expected ',' or ']' after a job", zName);
  }
}

/* The diagnostics array: one metadata row per entry, key = its code, value = the object. */
static int nj_diagnostics(Nj *p, size_t v){
  const char *z = p->z; size_t n = p->n;
  if( z[v]!='[' ) return ps_err_at(p->err, (int64_t)v, "diagnostics: expected an array");
  size_t i = ps_json_ws(z, n, v+1);
  if( i<n && z[i]==']' ) return PS_OK;
  for(;;){
    size_t e = i;
    if( ps_json_skip(z, n, &e, p->err) ) return PS_ERROR;
    char key[PS_JSON_KEY_BUF] = "diagnostic";
    size_t kv;
    if( z[i]=='{' && ps_json_find_key(z, n, i, "code", &kv)==1 && z[kv]=='"' ){
      const char *s; size_t sn; size_t k = kv;
      if( ps_json_string(z, n, &k, &p->scratch, &s, &sn, p->err) ) return PS_ERROR;
      if( ps_json_key_text(p->cap, z, n, kv, s, sn, key) ) return ps_nomem(p->err);
    }
    if( ps_meta_text(p->cap, "diagnostics", key, z+i, e-i, PS_META_JSON, (int64_t)i) ) return ps_nomem(p->err);
    i = ps_json_ws(z, n, e);
    if( i<n && z[i]==',' ){ i = ps_json_ws(z, n, i+1); continue; }
    if( i<n && z[i]==']' ) return PS_OK;
    return ps_err_at(p->err, (int64_t)i, "diagnostics: expected ',' or ']'");
  }
}

static int nj_parse_json(PsCapture *cap, PsErr *err){
  Nj p; memset(&p, 0, sizeof(p));
  p.cap = cap; p.z = cap->src.z; p.n = cap->src.n; p.err = err;
  const char *z = p.z; size_t n = p.n;
  size_t i = 0;
  if( n>=3 && (unsigned char)z[0]==0xEF && (unsigned char)z[1]==0xBB && (unsigned char)z[2]==0xBF ) i = 3;
  i = ps_json_ws(z, n, i);
  int rc = PS_OK, bSchema = 0;
  if( i>=n || z[i]!='{' ){ rc = ps_err_at(err, (int64_t)i, "expected the report object '{'"); goto out; }
  i = ps_json_ws(z, n, i+1);
  while( i<n && z[i]!='}' ){
    const char *k; size_t kn, q = i;
    if( z[i]!='"' ){ rc = ps_err_at(err, (int64_t)i, "expected a key in the report object"); goto out; }
    if( ps_json_string(z, n, &i, &p.scratch, &k, &kn, err) ){ rc = PS_ERROR; goto out; }
    char key[PS_JSON_KEY_BUF];
    if( ps_json_key_text(cap, z, n, q, k, kn, key) || nj_member_begin(&p, &p.top, q+1, i-q-2, "the report object") ){
      rc = ps_nomem(err); goto out;
    }
    i = ps_json_ws(z, n, i);
    if( i>=n || z[i]!=':' ){ rc = ps_err_at(err, (int64_t)i, "expected ':' after \"%s\"", key); goto out; }
    i = ps_json_ws(z, n, i+1);
    size_t v = i, e = i;
    if( ps_json_skip(z, n, &e, err) ){ rc = PS_ERROR; goto out; }
    if( strcmp(key, "completed_jobs")==0 ) rc = nj_jobs(&p, v, 0, key);
    else if( strcmp(key, "active_jobs")==0 ) rc = nj_jobs(&p, v, 1, key);
    else if( strcmp(key, "diagnostics")==0 ) rc = nj_diagnostics(&p, v);
    else if( (strcmp(key, "plugin")==0 || strcmp(key, "run")==0 || strcmp(key, "summary")==0) && z[v]=='{' ){
      rc = nj_object_meta(&p, key, v);
    }else{
      if( strcmp(key, "schema")==0 ){
        bSchema = 1;
        if( e-v < 30 || memcmp(z+v, "\"newengine.profiler.report.v", 28)!=0 ){
          rc = ps_err_at(err, (int64_t)v, "schema is not newengine.profiler.report.v*");
          goto out;
        }
      }
      rc = nj_meta(&p, "report", key, v, e);
    }
    if( rc ) goto out;
    nj_member_end(&p, &p.top);
    i = ps_json_ws(z, n, e);
    if( i<n && z[i]==',' ){ i = ps_json_ws(z, n, i+1); continue; }
    if( i<n && z[i]=='}' ) break;
    rc = ps_err_at(err, (int64_t)i, i<n ? "expected ',' or '}' in the report object" : "the report object is not closed (truncated?)");
    goto out;
  }
  if( i>=n ){ rc = ps_err_at(err, (int64_t)n, "the report object is not closed (truncated?)"); goto out; }
  i = ps_json_ws(z, n, i+1);
  if( i<n ){ rc = ps_err_at(err, (int64_t)i, "unexpected bytes after the report object"); goto out; }
  if( !bSchema ){ rc = ps_err(err, "the report has no \"schema\" (expected newengine.profiler.report.v3)"); goto out; }
  /* what repeated keys made before their last occurrence goes */
  ps_meta_compact(cap);
  if( p.bDropped ){
    size_t j = 0;
    for(size_t k=0; k<cap->nJob; k++) if( cap->aJob[k].bActive!=2 ) cap->aJob[j++] = cap->aJob[k];
    cap->nJob = j;
  }
  rc = ps_meta_int(cap, "capture", "jobs", (int64_t)cap->nJob, -1) ? ps_nomem(err) : PS_OK;
out:
  ps_buf_free(&p.scratch);
  free(p.top.a); free(p.sec.a);
  ps_json_keys_free(&p.top.keys); ps_json_keys_free(&p.sec.keys);
  for(int k=0; k<3; k++) ps_json_keys_free(&p.aJobKeys[k]);
  return rc;
}

/* End of the CSV record starting at i (quotes may span lines): the offset of its '\n' or n. */
static size_t csv_record_end(const char *z, size_t n, size_t i, int *pbOpenQuote){
  int bQ = 0;
  for(; i<n; i++){
    char c = z[i];
    if( c=='"' ) bQ = !bQ;
    else if( c=='\n' && !bQ ) break;
  }
  *pbOpenQuote = bQ;
  return i;
}

static int nj_parse_csv(PsCapture *cap, PsErr *err){
  const char *z = cap->src.z; size_t n = cap->src.n;
  size_t i = 0, e;
  int bQ;
  if( n>=3 && (unsigned char)z[0]==0xEF && (unsigned char)z[1]==0xBB && (unsigned char)z[2]==0xBF ) i = 3;
  e = csv_record_end(z, n, i, &bQ);
  size_t hEnd = (e>i && z[e-1]=='\r') ? e-1 : e;
  cap->aJobCsvCol = ps_arena_alloc(&cap->arena, PS_JOB_NCSV);
  if( cap->aJobCsvCol==0 ) return ps_nomem(err);
  memset(cap->aJobCsvCol, -1, PS_JOB_NCSV);
  /* header: the writer's names in any order (a name given twice: the last one is read) */
  size_t s = i; int iCell = 0;
  while( s <= hEnd ){
    size_t t = s;
    while( t<hEnd && z[t]!=',' ) t++;
    for(int k=0; k<PS_JOB_NCSV; k++){
      if( strlen(ps_job_csv_names[k])==t-s && memcmp(ps_job_csv_names[k], z+s, t-s)==0 && iCell<127 ){
        if( cap->aJobCsvCol[k]>=0 && ps_diag(cap, PS_DIAG_DUPLICATE_KEY, (int64_t)s,
                                             "line 1: column '%s' is in the header twice; the last one is read",
                                             ps_job_csv_names[k]) ) return ps_nomem(err);
        cap->aJobCsvCol[k] = (int8_t)iCell;
      }
    }
    iCell++;
    s = t + 1;
  }
  if( cap->aJobCsvCol[PS_JOB_ID]<0 || cap->aJobCsvCol[PS_JOB_STATUS]<0 ){
    return ps_err_at(err, 0, "line 1: expected the profiler_jobs CSV header (id,status,category,...)");
  }
  /* the cells read as numbers, by cell index: their column, else -1 */
  int8_t aNum[128];
  memset(aNum, -1, sizeof(aNum));
  for(int k=0; k<PS_JOB_NCSV; k++){
    int kind = aCol[k].kind;
    if( cap->aJobCsvCol[k]>=0 && (kind==K_REAL || kind==K_SCALAR || kind==K_PCT || kind==K_OVER) ){
      aNum[cap->aJobCsvCol[k]] = (int8_t)k;
    }
  }
  uint32_t line = 2;
  i = e < n ? e + 1 : n;
  while( i<n ){
    e = csv_record_end(z, n, i, &bQ);
    if( bQ ) return ps_err_at(err, (int64_t)i, "line %u: a quoted cell is not closed", line);
    size_t r = (e>i && z[e-1]=='\r') ? e-1 : e;
    uint32_t nl = 1;
    for(size_t k=i; k<e; k++) if( z[k]=='\n' ) nl++;
    if( r>i ){
      /* a number cell beyond the double range is refused, as in a report JSON */
      size_t c = i;
      for(int iC=0; iC<128; iC++){
        size_t c0 = c;
        int bQuoted = csv_next_cell(z, &c, r);
        if( aNum[iC]>=0 ){
          size_t a0 = c0 + bQuoted, a1 = c;
          if( bQuoted ){ const char *q = memchr(z+a0, '"', a1-a0); if( q ) a1 = (size_t)(q - z); }
          double v;
          int rcD = cell_double(z+a0, a1-a0, &v);
          if( rcD==-1 ) return ps_nomem(err);
          if( rcD>0 ){
            return ps_err_at(err, (int64_t)a0, "line %u: '%s' %.*s is out of range (%s)", line,
                             ps_job_csv_names[(int)aNum[iC]], (int)(a1-a0 > 40 ? 40 : a1-a0), z+a0, JOB_DOUBLE_RANGE);
          }
        }
        if( c>=r ) break;
        c++;                                      /* the comma */
      }
      if( job_add(cap, i, r - i, 0, line) ) return ps_nomem(err);
    }
    line += nl;
    i = e < n ? e + 1 : n;
  }
  if( ps_meta_int(cap, "capture", "jobs", (int64_t)cap->nJob, -1) ) return ps_nomem(err);
  return PS_OK;
}

static const char zCsvHead[] = "id,status,category,source,";

static int nj_is_csv(const char *z, size_t n){
  size_t i = 0;
  if( n>=3 && (unsigned char)z[0]==0xEF && (unsigned char)z[1]==0xBB && (unsigned char)z[2]==0xBF ) i = 3;
  return n - i >= sizeof(zCsvHead)-1 && memcmp(z+i, zCsvHead, sizeof(zCsvHead)-1)==0;
}

static int nj_parse(PsCapture *cap, PsErr *err){
  err->msg[0] = 0; err->rc = PS_ERROR;
  if( nj_is_csv(cap->src.z, cap->src.n) ) return nj_parse_csv(cap, err);
  return nj_parse_json(cap, err);
}

/* A report JSON: an object whose first key is one the writer sorts first ("active_jobs",
** "analysis", "completed_jobs"), or that names the schema in its first 1 MiB; beats the Chrome
** probe's object form. A jobs CSV: its header. */
static int nj_probe(const char *z, size_t n){
  if( nj_is_csv(z, n) ) return 3;
  size_t i = 0;
  if( n>=3 && (unsigned char)z[0]==0xEF && (unsigned char)z[1]==0xBB && (unsigned char)z[2]==0xBF ) i = 3;
  i = ps_json_ws(z, n, i);
  if( i>=n || z[i]!='{' ) return 0;
  i = ps_json_ws(z, n, i+1);
  static const char *const az[] = { "\"active_jobs\"", "\"analysis\"", "\"completed_jobs\"" };
  for(int k=0; k<3; k++){
    size_t l = strlen(az[k]);
    if( n - i >= l && memcmp(z+i, az[k], l)==0 ) return 3;
  }
  size_t m = n < (1u<<20) ? n : (1u<<20);
  static const char zS[] = "\"newengine.profiler.report.v";
  for(size_t k=0; k + sizeof(zS)-1 <= m; k++){
    const char *q = memchr(z+k, '"', m-k);
    if( q==0 ) break;
    k = (size_t)(q - z);
    if( m - k >= sizeof(zS)-1 && memcmp(q, zS, sizeof(zS)-1)==0 ) return 3;
  }
  return 0;
}

const PsFormat ps_format_newengine = { "newengine", nj_probe, nj_parse, 0, 0 };
