/*
** test_parser.c — unit tests of the parsers and the capture model, without SQLite.
** Expected values are computed by hand in the comments (µs -> ns, nesting, matching).
*/
#define _GNU_SOURCE   /* memmem */
#include "testlib.h"
#include "../../ext/wire/json.h"
#include "../../ext/source/source.h"
#include "../../ext/formats/formats.h"
#include "../../ext/formats/jobs.h"
#include "../../ext/wire/pb.h"
#include "../../ext/formats/schemas.h"
#include "../../ext/writers/writer.h"

#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <sys/resource.h>
#include <unistd.h>
#include <zlib.h>

/* ---------------------------------------------------------------- helpers */

static PsCapture *load_n(const char *z, size_t n, PsErr *err){
  PsSource src;
  int bUnsup = 0;
  err->msg[0] = 0; err->off = -1;
  if( ps_source_open_blob(&src, z, n, 0, err) ) return 0;
  return ps_capture_load(&src, 0, err, &bUnsup);
}
static PsCapture *load(const char *z, PsErr *err){ return load_n(z, strlen(z), err); }

static int64_t scale(const char *z){
  PsDec d; int64_t v = -777;
  if( ps_dec_parse(z, strlen(z), &d) ) return -999;
  if( ps_dec_scale(&d, 3, &v) ) return -888;
  return v;
}

static const char *name_of(PsCapture *cap, size_t row){
  static char buf[256];
  PsStr s = ps_pool_get(&cap->pool, cap->ev.aName[row]);
  snprintf(buf, sizeof(buf), "%.*s", (int)s.n, s.z ? s.z : "");
  return buf;
}

/* The value of the k-th (0-based) metadata row (scope, key) as a reader sees it (ps_meta_key,
** ps_meta_value; a text that breaks the text rule repaired, as ps_vt_result repairs it), and its
** byte offset in *pOff. */
static const char *meta_nth(PsCapture *cap, const char *zScope, const char *zKey, int k, int64_t *pOff){
  static char buf[1600];
  for(size_t i=0; i<cap->nMeta; i++){
    const PsMeta *m = &cap->aMeta[i];
    char zK[PS_META_KEY_BUF], zV[PS_META_TRACK_BUF];
    PsStr s = ps_pool_get(&cap->pool, m->scope), t = ps_meta_key(cap, m, zK);
    if( s.n==strlen(zScope) && memcmp(s.z, zScope, s.n)==0 && t.n==strlen(zKey) && memcmp(t.z, zKey, t.n)==0 && k--==0 ){
      PsOut o;
      ps_meta_value(cap, m, &o, zV);
      if( o.type==PS_META_INT ) snprintf(buf, sizeof(buf), "%lld", (long long)o.i);
      else if( o.z && o.n*3 < sizeof(buf) && !ps_text_check(o.z, o.n, 0) ) buf[ps_text_repair(o.z, o.n, buf)] = 0;
      else snprintf(buf, sizeof(buf), "%.*s", (int)o.n, o.z ? o.z : "");
      if( pOff ) *pOff = m->off;
      return buf;
    }
  }
  return "(absent)";
}

static const char *meta_text(PsCapture *cap, const char *zScope, const char *zKey){
  return meta_nth(cap, zScope, zKey, 0, 0);
}

/* ---------------------------------------------------------------- numbers */

/* ps_fmt_fixed against glibc's "%.*f" itself (the reference it promises), digit for digit: random
** doubles of every magnitude from 1e-12 to 1e13 and both signs with 0 to 12 decimals; values at
** and beside every tie k.5/10^d (k < 20000, d <= 9: the fast path must hand those to snprintf);
** -0.0, tiny negatives, the fast path's 2^40 edge, NaN and the infinities. Returns the mismatches
** (the first one printed). */
static int fmt_fixed_check(double v, int nDec, int *pBad){
  char a[400], b[400];
  size_t n = ps_fmt_fixed(a, sizeof(a), v, nDec);
  snprintf(b, sizeof(b), "%.*f", nDec, v);
  if( n==strlen(b) && strcmp(a, b)==0 ) return 0;
  if( (*pBad)++==0 ) printf("ps_fmt_fixed(%.17g, %d) = \"%s\", snprintf gives \"%s\"\n", v, nDec, a, b);
  return 1;
}

static void test_fmt_fixed(void){
  int bad = 0, n = 0;
  uint64_t s = 0x9E3779B97F4A7C15ull;
  for(int k=0; k<400000; k++){
    s ^= s << 13; s ^= s >> 7; s ^= s << 17;
    double m = (double)(s >> 11) / 9007199254740992.0;            /* [0, 1) */
    int e = (int)((s >> 3) % 26) - 12;                             /* 1e-12 .. 1e13 */
    double v = m * pow(10.0, e) * ((s & 1) ? -1 : 1);
    n++; fmt_fixed_check(v, (int)(k % 13), &bad);
  }
  CHECK_INT(bad, 0);
  bad = 0;
  for(int d=0; d<=9; d++){
    for(int k=0; k<20000; k++){
      double v = (k + 0.5) / pow(10.0, d);
      n += 3;
      fmt_fixed_check(v, d, &bad);
      fmt_fixed_check(nextafter(v, 0), d, &bad);
      fmt_fixed_check(-nextafter(v, 1e300), d, &bad);
    }
  }
  CHECK_INT(bad, 0);
  bad = 0;
  static const double aEdge[] = { 0.0, -0.0, -1e-12, 1e-12, -0.0000004, 0.0000005, -0.0000005, 0.5, 1.5, 2.5, -2.5,
    1099511627776.0, 1099511627775.4, 1099511.6277754, 1e300, -1e300, 4.9e-324 };
  for(size_t k=0; k<sizeof(aEdge)/sizeof(aEdge[0]); k++){
    for(int d=0; d<=12; d++){ n++; fmt_fixed_check(aEdge[k], d, &bad); }
  }
  CHECK_INT(bad, 0);
  char t[400];
  ps_fmt_fixed(t, sizeof(t), NAN, 6); CHECK_STR(t, "nan");
  ps_fmt_fixed(t, sizeof(t), -INFINITY, 3); CHECK_STR(t, "-inf");
  ps_fmt_fixed(t, sizeof(t), -0.0000001, 6); CHECK_STR(t, "-0.000000");   /* as Rust prints it */
  /* ties as written, decided by the exact binary value (Python's Decimal: 2.0000005 is
  ** 2.00000050000000006988..., 0.0000005 is 4.99999999999999977374...e-7) */
  ps_fmt_fixed(t, sizeof(t), 2.0000005, 6); CHECK_STR(t, "2.000001");
  ps_fmt_fixed(t, sizeof(t), 0.0000005, 6); CHECK_STR(t, "0.000000");
  ps_fmt_fixed(t, sizeof(t), 12345.6789, 3); CHECK_STR(t, "12345.679");
  CHECK(n > 1000000);
}

static void test_numbers(void){
  CHECK_INT(scale("1.1"), 1100);                   /* the issue's example */
  CHECK_INT(scale("3.017"), 3017);
  CHECK_INT(scale("0"), 0);
  CHECK_INT(scale("-2.5"), -2500);
  CHECK_INT(scale("0.0005"), 1);                   /* 0.5 ns: half away from zero */
  CHECK_INT(scale("-0.0005"), -1);
  CHECK_INT(scale("0.0004999"), 0);
  CHECK_INT(scale("1.5e3"), 1500000);
  CHECK_INT(scale("15E-1"), 1500);
  CHECK_INT(scale("6520430182476.089"), 6520430182476089LL);   /* beyond double's exact ns */
  CHECK_INT(scale("3603029046213.755"), 3603029046213755LL);
  CHECK_INT(scale("1234.5670000000001"), 1234567);  /* TensorBoard's %.17g µs */
  CHECK_INT(scale("9223372036854775.807"), INT64_MAX);
  CHECK_INT(scale("9223372036854775.808"), -888);  /* one past int64 */
  CHECK_INT(scale("1e400"), -888);
  CHECK_INT(scale("1e-400"), 0);
  CHECK_INT(scale("01"), -999);                    /* not JSON */
  CHECK_INT(scale("1."), -999);
  CHECK_INT(scale("-"), -999);
  CHECK_INT(scale(".5"), -999);
  PsDec d; int64_t v;
  CHECK(ps_dec_parse("18446744073709551616", 20, &d)==0 && ps_dec_int64(&d, &v)!=0);
  CHECK(ps_dec_parse("-9223372036854775808", 20, &d)==0 && ps_dec_int64(&d, &v)==0 && v==INT64_MIN);
}

/* ---------------------------------------------------------------- strings, skip */

static void test_strings(void){
  PsBuf b = {0,0,0};
  PsErr err;
  const char *z; size_t n, i;
  const char *s1 = "\"plain\"";
  i = 0; CHECK(ps_json_string(s1, strlen(s1), &i, &b, &z, &n, &err)==0 && n==5 && memcmp(z, "plain", 5)==0 && i==7);
  const char *s2 = "\"caf\\u00e9 \\ud83d\\ude00 \\n\\\"\"";
  i = 0; CHECK(ps_json_string(s2, strlen(s2), &i, &b, &z, &n, &err)==0);
  CHECK(n==13 && memcmp(z, "caf\xc3\xa9 \xf0\x9f\x98\x80 \n\"", 13)==0);
  const char *s3 = "\"lone \\ud800 x\"";
  i = 0; CHECK(ps_json_string(s3, strlen(s3), &i, &b, &z, &n, &err)==0 && n==10 && memcmp(z, "lone \xef\xbf\xbd x", 10)==0);
  const char *s4 = "\"bad \\x escape\"";
  i = 0; CHECK(ps_json_string(s4, strlen(s4), &i, &b, &z, &n, &err)==PS_ERROR);
  CHECK_STR(err.msg, "byte 5: invalid escape '\\x' in string");
  const char *s5 = "\"tab\there\"";
  i = 0; CHECK(ps_json_string(s5, strlen(s5), &i, &b, &z, &n, &err)==PS_ERROR);
  CHECK_STR(err.msg, "byte 4: control character 0x09 inside a string");
  const char *s6 = "\"open";
  i = 0; CHECK(ps_json_string(s6, strlen(s6), &i, &b, &z, &n, &err)==PS_ERROR);
  CHECK_STR(err.msg, "byte 0: unterminated string");
  ps_buf_free(&b);

  const char *v1 = " {\"a\": [1, 2.5e3, true, null, {\"b\": \"x\\\"y\"}], \"c\": {}} tail";
  i = 0; CHECK(ps_json_skip(v1, strlen(v1), &i, &err)==0 && v1[i]==' ' && strcmp(v1+i, " tail")==0);
  const char *v2 = "{\"a\": [1, 2,]}";
  i = 0; CHECK(ps_json_skip(v2, strlen(v2), &i, &err)==PS_ERROR);
  CHECK_STR(err.msg, "byte 12: expected a JSON value");
  const char *v3 = "[1 2]";
  i = 0; CHECK(ps_json_skip(v3, strlen(v3), &i, &err)==PS_ERROR);
  CHECK_STR(err.msg, "byte 3: expected ',' or ']'");
  const char *v4 = "{\"a\" 1}";
  i = 0; CHECK(ps_json_skip(v4, strlen(v4), &i, &err)==PS_ERROR);
  CHECK_STR(err.msg, "byte 5: expected ':' after an object key");
  const char *v5 = "tru";
  i = 0; CHECK(ps_json_skip(v5, strlen(v5), &i, &err)==PS_ERROR);
  /* numbers: where each ends (counted by hand), or the error, whether the skip reads them itself
  ** (no exponent) or through ps_json_number; a number at the end of the input too */
  static const struct { const char *z; long end; const char *zErr; } aNum[] = {
    { "0.5,", 3, 0 }, { "-0.25]", 5, 0 }, { "12.125}", 6, 0 }, { "7", 1, 0 }, { "-0", 2, 0 },
    { "123.456", 7, 0 }, { "1e5,", 3, 0 }, { "2.5E-3 ", 6, 0 }, { "0.5e+2", 6, 0 },
    { "1.", -1, "byte 2: expected a digit after '.'" }, { "1.x", -1, "byte 2: expected a digit after '.'" },
    { "-", -1, "byte 0: expected a number" }, { "-.5", -1, "byte 0: expected a number" },
    { "1e", -1, "byte 2: expected a digit in the exponent" },
  };
  for(size_t k=0; k<sizeof(aNum)/sizeof(aNum[0]); k++){
    i = 0;
    int rc = ps_json_skip(aNum[k].z, strlen(aNum[k].z), &i, &err);
    if( aNum[k].zErr ){ CHECK(rc==PS_ERROR); CHECK_STR(err.msg, aNum[k].zErr); }
    else{ CHECK(rc==0); CHECK_INT(i, aNum[k].end); }
  }
  /* "01" and "00.5": the skip ends after the "0" (JSON has no leading zeros); the next byte is
  ** then the reader's error, as in an array: "[01]" */
  i = 0; CHECK(ps_json_skip("01", 2, &i, &err)==0 && i==1);
  i = 0; CHECK(ps_json_skip("00.5", 4, &i, &err)==0 && i==1);
  i = 0; CHECK(ps_json_skip("[01]", 4, &i, &err)==PS_ERROR);
  CHECK_STR(err.msg, "byte 2: expected ',' or ']'");
  i = 0; CHECK(ps_json_skip("{\"a\":0.5,\"b\":[1.25,-3]}", 23, &i, &err)==0 && i==23);

  /* nesting deeper than the cap is an error, not a stack overflow: 1,000,000 levels */
  size_t nDeep = 1000000;
  char *deep = malloc(2*nDeep + 1);
  memset(deep, '[', nDeep); memset(deep+nDeep, ']', nDeep); deep[2*nDeep] = 0;
  i = 0; CHECK(ps_json_skip(deep, 2*nDeep, &i, &err)==PS_ERROR);
  CHECK_STR(err.msg, "byte 10000: JSON nested deeper than 10000 levels");
  i = 0; CHECK(ps_json_skip(deep + nDeep - 100, 200, &i, &err)==0 && i==200);
  free(deep);

  size_t pv;
  const char *o = "{\"x\": {\"args\": 1}, \"args\" : {\"k\": 2}}";
  CHECK(ps_json_find_key(o, strlen(o), 0, "args", &pv)==1 && o[pv]=='{' && pv==28);
  CHECK(ps_json_find_key(o, strlen(o), 0, "nope", &pv)==0);
}

/* ---------------------------------------------------------------- gzip */

static size_t gz(const char *in, size_t n, unsigned char *out, size_t nOut){
  z_stream zs; memset(&zs, 0, sizeof(zs));
  deflateInit2(&zs, 9, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY);
  zs.next_in = (Bytef*)in; zs.avail_in = (uInt)n;
  zs.next_out = out; zs.avail_out = (uInt)nOut;
  deflate(&zs, Z_FINISH);
  size_t k = nOut - zs.avail_out;
  deflateEnd(&zs);
  return k;
}


/* A ZIP archive (APPNOTE 4.3) of one stored member "t.json" holding text[0..n); malloc'ed, *pn bytes. */
static unsigned char *zip_stored(const char *text, size_t n, size_t *pn){
  static const char zName[] = "t.json";
  const size_t nName = sizeof(zName) - 1, nLocal = 30 + nName, nCd = 46 + nName;
  unsigned char *z = calloc(1, nLocal + n + nCd + 22);
  uint32_t crc = (uint32_t)crc32(crc32(0, 0, 0), (const Bytef*)text, (uInt)n);
  #define PUT16(p, v) do{ (p)[0] = (unsigned char)(v); (p)[1] = (unsigned char)((v) >> 8); }while(0)
  #define PUT32(p, v) do{ PUT16(p, (v) & 0xFFFF); PUT16((p)+2, (uint32_t)(v) >> 16); }while(0)
  unsigned char *l = z, *c = z + nLocal + n, *e = c + nCd;
  PUT32(l, 0x04034b50); PUT16(l+4, 20); PUT32(l+14, crc); PUT32(l+18, n); PUT32(l+22, n); PUT16(l+26, nName);
  memcpy(l+30, zName, nName);
  memcpy(z + nLocal, text, n);
  PUT32(c, 0x02014b50); PUT16(c+4, 20); PUT16(c+6, 20); PUT32(c+16, crc); PUT32(c+20, n); PUT32(c+24, n);
  PUT16(c+28, nName); memcpy(c+46, zName, nName);
  PUT32(e, 0x06054b50); PUT16(e+8, 1); PUT16(e+10, 1); PUT32(e+12, nCd); PUT32(e+16, nLocal + n);
  #undef PUT16
  #undef PUT32
  *pn = nLocal + n + nCd + 22;
  return z;
}

/* A spilled stream's file (a gzip stream's, a ZIP member's: zWhat) cut short under the mapping
** (through /proc/self/map_files, the only way to reach the unnamed file; root only): the error
** names the temporary file and counts in the inflated stream (n bytes), not the compressed
** file's; cut within the last page, its last byte. */
static void spill_lost(const unsigned char *g, size_t nGz, size_t n, const char *zWhat){
  long pg = sysconf(_SC_PAGESIZE);
  for(int k=0; k<2; k++){
    PsSource src; PsErr e;
    if( ps_source_open_blob_ex(&src, g, nGz, 0, 1, 0, 0, &e)!=PS_OK || !src.bMapped ){ CHECK(0); return; }
    char zMap[80];
    uintptr_t a = (uintptr_t)src.pMap, b = (a + src.nMap + (uintptr_t)pg - 1) & ~(uintptr_t)(pg - 1);
    snprintf(zMap, sizeof(zMap), "/proc/self/map_files/%lx-%lx", (unsigned long)a, (unsigned long)b);
    int fd = open(zMap, O_RDWR);
    if( fd<0 ){
      SKIP("a spilled stream's file cut short: /proc/self/map_files cannot be opened here (root only)");
      ps_source_close(&src);
      return;
    }
    size_t cut = k==0 ? 2*(size_t)pg + 10 : n - 3;
    CHECK(ftruncate(fd, (off_t)cut)==0);
    close(fd);
    char want[300];
    if( k==0 ){
      CHECK_INT(((volatile const char*)src.z)[4*pg+1], 0);     /* gone: SIGBUS, healed */
      snprintf(want, sizeof(want), "the temporary file holding the inflated %s could not be "
               "read back (a read error on its disk, or the file was truncated): byte %ld of its "
               "%zu inflated bytes is gone", zWhat, 4*pg+1, n);
    }else{
      snprintf(want, sizeof(want), "the temporary file holding the inflated %s could not be "
               "read back (a read error on its disk, or the file was truncated): the last byte, "
               "%zu of its %zu inflated bytes is no longer what was written", zWhat, n - 1, n);
    }
    CHECK_INT(ps_source_lost_error(&src, &e), PS_ERROR);
    CHECK_STR(e.msg, want);
    ps_source_close(&src);
  }
}

/* ps_gunzip through libdeflate's one-shot decoder (the size known from the trailer) and through
** zlib alone (ps_gunzip_zlib_only): the same bytes, and for a damaged stream the same error (the
** fast path hands every failure to zlib, whose message names the compressed byte). */
static void test_gzip_paths(void){
  size_t n = 300000;
  char *text = malloc(n);
  uint32_t x = 12345;
  for(size_t i=0; i<n; i++){ x = x*1103515245u + 12345u; text[i] = "{}[],:\"ab0123 \n"[(x>>16) % 15]; }
  size_t nGz = n + 1024;
  unsigned char *g = malloc(nGz);
  nGz = gz(text, n, g, nGz);
  char *a = 0, *b = 0; size_t na = 0, nb = 0; PsErr ea, eb;
  ps_gunzip_zlib_only = 0;
  int ra = ps_gunzip(g, nGz, 0, &a, &na, &ea);
  ps_gunzip_zlib_only = 1;
  int rb = ps_gunzip(g, nGz, 0, &b, &nb, &eb);
  CHECK(ra==PS_OK && rb==PS_OK && na==n && nb==n && memcmp(a, text, n)==0 && memcmp(b, text, n)==0);
  free(a); free(b);
  /* damaged: a flipped byte in the middle, a trailer that lies about the size (larger, smaller) */
  for(int k=0; k<3; k++){
    unsigned char *h = malloc(nGz);
    memcpy(h, g, nGz);
    if( k==0 ) h[nGz/2] ^= 0x55;
    else h[nGz-4] = (unsigned char)(h[nGz-4] + (k==1 ? 1 : -1));
    ps_gunzip_zlib_only = 0;
    ra = ps_gunzip(h, nGz, 0, &a, &na, &ea);
    ps_gunzip_zlib_only = 1;
    rb = ps_gunzip(h, nGz, 0, &b, &nb, &eb);
    CHECK(ra==PS_ERROR && rb==PS_ERROR);
    CHECK_STR(ea.msg, eb.msg);
    free(h);
  }
  /* spilled into an unnamed temporary file (nSpill 1): a mapped source with the same bytes, through
  ** libdeflate and through zlib alone, and for two members (zlib, its output grown in the file);
  ** a damaged stream gives the error it gives in memory */
  unsigned char *g2 = malloc(2*nGz);
  memcpy(g2, g, nGz); memcpy(g2 + nGz, g, nGz);
  for(int z=0; z<3; z++){
    ps_gunzip_zlib_only = z==1;
    const unsigned char *in = z==2 ? g2 : g;
    size_t nIn = z==2 ? 2*nGz : nGz, want = z==2 ? 2*n : n;
    PsSource src; PsErr e;
    int rc = ps_source_open_blob_ex(&src, in, nIn, 0, 1, 0, 0, &e);
    CHECK(rc==PS_OK && src.bGzip && src.bMapped && !src.bHeap && src.n==want && ps_source_lost(&src)==0);
    if( rc==PS_OK && src.n==want ){
      CHECK(memcmp(src.z, text, n)==0 && (z<2 || memcmp(src.z + n, text, n)==0));
      ps_source_close(&src);
    }
    rc = ps_source_open_blob_ex(&src, in, nIn, 0, (uint64_t)want*8, 0, 0, &e);   /* below (nIn < 2*want): memory */
    CHECK(rc==PS_OK && src.bHeap && !src.bMapped && src.n==want);
    if( rc==PS_OK ) ps_source_close(&src);
  }
  free(g2);
  spill_lost(g, nGz, n, "gzip stream");
  /* a stored ZIP member spilled: the same bytes, then the same loss */
  size_t nZip;
  unsigned char *zip = zip_stored(text, n, &nZip);
  PsSource zs; PsErr ze;
  CHECK(ps_source_open_blob_ex(&zs, zip, nZip, 0, 1, 0, 0, &ze)==PS_OK);
  CHECK(zs.bZip && zs.bMapped && !zs.bHeap && zs.n==n && memcmp(zs.z, text, n)==0 && strcmp(zs.zMember, "t.json")==0);
  ps_source_close(&zs);
  spill_lost(zip, nZip, n, "ZIP member");
  free(zip);
  /* a file that cannot take the stream (RLIMIT_FSIZE below its size, SIGXFSZ left at its default
  ** action, which would end the process if write() went past the limit): the stream goes to
  ** memory instead, whole, through both decoders; in a child process, since the limit is the
  ** process's */
  fflush(stdout);
  pid_t pid = fork();
  if( pid==0 ){
    struct rlimit rl = { 65536, 65536 };
    setrlimit(RLIMIT_FSIZE, &rl);
    int bad = 0;
    for(int z=0; z<2; z++){
      ps_gunzip_zlib_only = z;
      PsSource src; PsErr e;
      int rc = ps_source_open_blob_ex(&src, g, nGz, 0, 1, 0, 0, &e);
      if( rc!=PS_OK || !src.bHeap || src.bMapped || src.n!=n || memcmp(src.z, text, n)!=0 ) bad |= 1 << z;
      if( rc==PS_OK ) ps_source_close(&src);
    }
    /* 20 MB through zlib: the file fails at its first 16 MiB chunk, mid-stream */
    size_t nBig = (size_t)20 << 20, nBigGz = nBig/100 + 4096;
    char *big = malloc(nBig);
    unsigned char *bigGz = malloc(nBigGz);
    for(size_t i=0; i<nBig; i++) big[i] = text[i % 1000];
    nBigGz = gz(big, nBig, bigGz, nBigGz);
    ps_gunzip_zlib_only = 1;
    PsSource src; PsErr e;
    int rc = ps_source_open_blob_ex(&src, bigGz, nBigGz, 0, 1, 0, 0, &e);
    if( rc!=PS_OK || !src.bHeap || src.n!=nBig || memcmp(src.z, big, nBig)!=0 ) bad |= 4;
    if( rc==PS_OK ) ps_source_close(&src);
    free(big); free(bigGz);
    _exit(bad);
  }
  int status = -1;
  if( pid>0 ) waitpid(pid, &status, 0);
  CHECK_INT(pid>0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0);
  /* a stream cut short that inflates to exactly the limit: the same message spilled or not */
  {
    ps_gunzip_zlib_only = 0;
    size_t cut = nGz*2/3;
    PsSource s0, s1, s2; PsErr e0, e1, e2;
    unsigned long long nGot = 0;
    int r0 = ps_source_open_blob_ex(&s0, g, cut, 0, 0, 0, 0, &e0);
    CHECK(r0==PS_ERROR && sscanf(e0.msg, "gzip stream is truncated (inflated %llu", &nGot)==1 && nGot>0);
    int r1 = ps_source_open_blob_ex(&s1, g, cut, nGot, 0, 0, 0, &e1);
    int r2 = ps_source_open_blob_ex(&s2, g, cut, nGot, 1, 0, 0, &e2);
    CHECK(r1==PS_ERROR && r2==PS_ERROR);
    CHECK_STR(e2.msg, e1.msg);
  }
  for(int k=0; k<2; k++){
    unsigned char *h = malloc(nGz);
    memcpy(h, g, nGz);
    if( k==0 ) h[nGz/2] ^= 0x55; else h[nGz-4] = (unsigned char)(h[nGz-4] + 1);
    PsSource s1, s2; PsErr e1, e2;
    ps_gunzip_zlib_only = 0;
    int r1 = ps_source_open_blob_ex(&s1, h, nGz, 0, 1, 0, 0, &e1);
    int r2 = ps_source_open_blob_ex(&s2, h, nGz, 0, 0, 0, 0, &e2);
    CHECK(r1==PS_ERROR && r2==PS_ERROR);
    CHECK_STR(e1.msg, e2.msg);
    free(h);
  }
  ps_gunzip_zlib_only = 0;
  free(g); free(text);
}

static void test_gzip(void){
  static const char json[] = "[{\"name\":\"a\",\"ph\":\"X\",\"ts\":1,\"dur\":2,\"pid\":1,\"tid\":1}]";
  unsigned char buf[512], two[1024];
  size_t k = gz(json, strlen(json), buf, sizeof(buf));
  char *out; size_t nOut; PsErr err;
  CHECK(ps_gunzip(buf, k, 0, &out, &nOut, &err)==0 && nOut==strlen(json) && memcmp(out, json, nOut)==0);
  free(out);
  /* two concatenated members read as one stream (RFC 1952) */
  memcpy(two, buf, k); memcpy(two+k, buf, k);
  CHECK(ps_gunzip(two, 2*k, 0, &out, &nOut, &err)==0 && nOut==2*strlen(json));
  free(out);
  /* every truncation is an error, never a crash */
  int nErr = 0;
  for(size_t cut=0; cut<k; cut++){
    if( ps_gunzip(buf, cut, 0, &out, &nOut, &err)!=0 ) nErr++; else free(out);
  }
  CHECK_INT(nErr, (long long)k);
  CHECK(ps_gunzip(buf, k-8, 0, &out, &nOut, &err)==PS_ERROR);
  CHECK_CONTAINS(err.msg, "gzip stream is truncated");
  /* a bomb beyond the limit */
  CHECK(ps_gunzip(buf, k, 10, &out, &nOut, &err)==PS_ERROR);
  CHECK_STR(err.msg, "inflated gzip stream exceeds the limit of 10 bytes");
  /* trailing garbage */
  memcpy(two, buf, k); memcpy(two+k, "junk", 4);
  CHECK(ps_gunzip(two, k+4, 0, &out, &nOut, &err)==PS_ERROR);
  CHECK_CONTAINS(err.msg, "unexpected data after the end of the gzip stream");
  /* through the capture loader: gzip detected by magic */
  PsCapture *cap = load_n((const char*)buf, k, &err);
  CHECK(cap && cap->ev.n==1 && cap->ev.aDur[0]==2000);
  ps_capture_free(cap);
  test_gzip_paths();
}

/* ---------------------------------------------------------------- chrome */

static void test_chrome_basic(void){
  PsErr err;
  /* X events written at completion: children before parents, same ts */
  PsCapture *cap = load("[{\"name\":\"child\",\"ph\":\"X\",\"ts\":10,\"dur\":5,\"pid\":1,\"tid\":1},"
                        " {\"name\":\"parent\",\"ph\":\"X\",\"ts\":10,\"dur\":20,\"pid\":1,\"tid\":1},"
                        " {\"name\":\"sibling\",\"ph\":\"X\",\"ts\":30,\"dur\":1,\"pid\":1,\"tid\":1}]", &err);
  CHECK(cap!=0);
  if( cap ){
    CHECK_INT(cap->ev.n, 3);
    CHECK_INT(cap->ev.aParent[0], 1);  CHECK_INT(cap->ev.aDepth[0], 1);
    CHECK_INT(cap->ev.aParent[1], -1); CHECK_INT(cap->ev.aDepth[1], 0);
    CHECK_INT(cap->ev.aParent[2], -1); /* 30 = parent end: not inside */
    ps_capture_free(cap);
  }
  /* out of order B/E (speedscope out-of-order.json): sorted per thread by ts before matching */
  cap = load("[{\"pid\":0,\"tid\":0,\"ph\":\"B\",\"name\":\"B\",\"ts\":1},{\"pid\":0,\"tid\":0,\"ph\":\"E\",\"name\":\"B\",\"ts\":9},"
             "{\"pid\":0,\"tid\":0,\"ph\":\"B\",\"name\":\"A\",\"ts\":0},{\"pid\":0,\"tid\":0,\"ph\":\"E\",\"name\":\"A\",\"ts\":10},"
             "{\"pid\":0,\"tid\":0,\"ph\":\"B\",\"name\":\"C\",\"ts\":2},{\"pid\":0,\"tid\":0,\"ph\":\"E\",\"name\":\"C\",\"ts\":8}]", &err);
  CHECK(cap!=0);
  if( cap ){
    CHECK_INT(cap->ev.n, 3);
    CHECK_STR(name_of(cap, 0), "B"); CHECK_INT(cap->ev.aDur[0], 8000); CHECK_INT(cap->ev.aParent[0], 1);
    CHECK_STR(name_of(cap, 1), "A"); CHECK_INT(cap->ev.aDur[1], 10000); CHECK_INT(cap->ev.aDepth[1], 0);
    CHECK_STR(name_of(cap, 2), "C"); CHECK_INT(cap->ev.aDur[2], 6000); CHECK_INT(cap->ev.aParent[2], 0);
    CHECK_INT(cap->ev.aDepth[2], 2);
    ps_capture_free(cap);
  }
  /* too many E (speedscope too-many-end-events.json): E gamma/delta close nothing */
  cap = load("[{\"pid\":0,\"tid\":0,\"ph\":\"B\",\"name\":\"alpha\",\"ts\":0},{\"pid\":0,\"tid\":0,\"ph\":\"B\",\"name\":\"beta\",\"ts\":1},"
             "{\"pid\":0,\"tid\":0,\"ph\":\"E\",\"name\":\"beta\",\"ts\":13},{\"pid\":0,\"tid\":0,\"ph\":\"E\",\"name\":\"alpha\",\"ts\":14},"
             "{\"pid\":0,\"tid\":0,\"ph\":\"E\",\"name\":\"gamma\",\"ts\":5},{\"pid\":0,\"tid\":0,\"ph\":\"E\",\"name\":\"delta\",\"ts\":5}]", &err);
  CHECK(cap!=0);
  if( cap ){
    CHECK_INT(cap->ev.n, 4);
    CHECK_INT(cap->ev.aDur[0], 14000); CHECK_INT(cap->ev.aDur[1], 12000);
    CHECK_INT(cap->ev.aPh[2], 'E'); CHECK_INT(cap->ev.aDur[2], PS_NULL64);
    CHECK_STR(meta_text(cap, "diagnostic", "unmatched_end_count"), "2");
    ps_capture_free(cap);
  }
  /* async: id2.local is scoped to the pid, global ids are not */
  cap = load("[{\"ph\":\"b\",\"cat\":\"c\",\"name\":\"r\",\"id2\":{\"local\":\"0x1\"},\"pid\":1,\"tid\":1,\"ts\":0},"
             " {\"ph\":\"b\",\"cat\":\"c\",\"name\":\"r\",\"id2\":{\"local\":\"0x1\"},\"pid\":2,\"tid\":1,\"ts\":1},"
             " {\"ph\":\"e\",\"cat\":\"c\",\"name\":\"r\",\"id2\":{\"local\":\"0x1\"},\"pid\":1,\"tid\":7,\"ts\":5},"
             " {\"ph\":\"e\",\"cat\":\"c\",\"name\":\"r\",\"id2\":{\"local\":\"0x1\"},\"pid\":2,\"tid\":1,\"ts\":9},"
             " {\"ph\":\"n\",\"cat\":\"c\",\"name\":\"step\",\"id2\":{\"local\":\"0x1\"},\"pid\":2,\"tid\":1,\"ts\":3}]", &err);
  CHECK(cap!=0);
  if( cap ){
    CHECK_INT(cap->ev.n, 3);
    CHECK_INT(cap->ev.aDur[0], 5000); CHECK_INT(cap->ev.aDur[1], 8000);
    CHECK(cap->ev.aTrack[0]!=cap->ev.aTrack[1]);
    CHECK_INT(cap->ev.aTrack[2], cap->ev.aTrack[1]); CHECK_INT(cap->ev.aParent[2], 1);
    ps_capture_free(cap);
  }
  /* pid/tid types: big integers are kept exactly as text; strings stay text */
  cap = load("[{\"ph\":\"i\",\"name\":\"x\",\"pid\":18446744073709551615,\"tid\":\"main\",\"ts\":\"11550183666\"}]", &err);
  CHECK(cap!=0);
  if( cap ){
    PsThread *t = &cap->aThread[cap->ev.aThread[0]];
    PsStr p = ps_pool_get(&cap->pool, t->pid.s), q = ps_pool_get(&cap->pool, t->tid.s);
    CHECK(t->pid.type==PS_VAL_TEXT && p.n==20 && memcmp(p.z, "18446744073709551615", 20)==0);
    CHECK(t->tid.type==PS_VAL_TEXT && q.n==4 && memcmp(q.z, "main", 4)==0);
    CHECK_INT(cap->ev.aTs[0], 11550183666000LL);
    ps_capture_free(cap);
  }
  /* unterminated arrays: all three forms the spec allows, plus the empty one */
  const char *aForm[] = {
    "[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":1}",
    "[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":1},",
    "\n\n[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":1},\n\n  ",
    "[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":1}, {}]",
  };
  for(int k=0; k<4; k++){
    cap = load(aForm[k], &err);
    CHECK(cap && cap->ev.n==1 && cap->ev.aDur[0]==1000);
    ps_capture_free(cap);
  }
  cap = load("[", &err); CHECK(cap && cap->ev.n==0); ps_capture_free(cap);
  /* the object form must be complete */
  cap = load("{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":1}", &err);
  CHECK(cap==0); CHECK_STR(err.msg, "the input ends inside the traceEvents array at byte 52 (line 1, column 53; cut short?): expected ',' or ']' in traceEvents");
  cap = load("{\"traceEvents\":[]} x", &err);
  CHECK(cap==0); CHECK_STR(err.msg, "byte 19 (line 1, column 20): unexpected data after the end of the trace (expected end of input)");
  cap = load("[{\"ph\":\"X\",\"ts\":1e400}]", &err);
  CHECK(cap==0); CHECK_STR(err.msg, "byte 16 (line 1, column 17): 'ts' 1e400 is out of range (more than 2^63 ns)");
  cap = load("[{\"ph\":\"i\",\"pid\":18446744073709551616}]", &err);
  CHECK(cap==0); CHECK_STR(err.msg, "byte 17 (line 1, column 18): 'pid' 18446744073709551616 is out of range (more than 64 bits)");
  cap = load("[{\"ph\":\"i\",\"tid\":-9223372036854775809}]", &err);
  CHECK(cap==0); CHECK_STR(err.msg, "byte 17 (line 1, column 18): 'tid' -9223372036854775809 is out of range (more than 64 bits)");
  /* a ph of more than one character, a ts that is no number: the event is skipped, with a
  ** diagnostic (the file still loads) */
  cap = load("[{\"ph\":\"XY\"}]", &err);
  CHECK(cap!=0 && cap->ev.n==0);
  if( cap ){ CHECK_STR(meta_text(cap, "diagnostic", "skipped_event"), "'ph' is \"XY\", not one character; event skipped"); ps_capture_free(cap); }
  /* invalid UTF-8 in a name: repaired, not an error (the text rule; test_text_rule) */
  cap = load("[{\"ph\":\"X\",\"name\":\"bad \xff utf8\"}]", &err);
  CHECK(cap!=0);
  if( cap ){ CHECK_STR(name_of(cap, 0), "bad \xef\xbf\xbd utf8"); ps_capture_free(cap); }
  cap = load("[{\"ph\":\"X\",\"ts\":\"soon\"}]", &err);
  CHECK(cap!=0 && cap->ev.n==0);
  if( cap ){ CHECK_STR(meta_text(cap, "diagnostic", "skipped_event"), "'ts' is the string \"soon\", not a number; event skipped"); ps_capture_free(cap); }
  cap = load("[{\"ph\":\"X\"}, 1]", &err);
  CHECK(cap==0); CHECK_STR(err.msg, "byte 13 (line 1, column 14): expected '{' (an event object) in traceEvents");
  cap = load("   ", &err);
  CHECK(cap==0);
  int bUnsup = 0; PsSource src;
  ps_source_open_blob(&src, "GIF89a", 6, 0, &err);
  cap = ps_capture_load(&src, 0, &err, &bUnsup);
  CHECK(cap==0 && bUnsup==1);
}

/* A B near -2^63 ns and its E near +2^63 ns: the span does not fit in int64 ns, so dur is NULL
** with an 'other' diagnostic (found in review after fuzz_lms's overflow: it was a signed
** overflow); a span that fits right at the edge (2^63 - 1 ns) keeps its value */
static void test_chrome_span_overflow(void){
  PsErr err;
  PsCapture *c = load("[{\"ph\":\"B\",\"name\":\"a\",\"ts\":-9000000000000000},"
                      "{\"ph\":\"E\",\"ts\":9000000000000000}]", &err);
  CHECK(c!=0);
  if( c ){
    CHECK(c->ev.aTs[0]==-9000000000000000000LL && c->ev.aDur[0]==PS_NULL64);
    CHECK_STR(meta_text(c, "diagnostic", "other"),
              "'B' event 'a' ends more than 2^63 ns after it begins; dur is NULL");
    ps_capture_free(c);
  }
  c = load("[{\"ph\":\"B\",\"name\":\"a\",\"ts\":-4611686018427387.904},"
           "{\"ph\":\"E\",\"ts\":4611686018427387.903}]", &err);
  CHECK(c && c->ev.aDur[0]==INT64_MAX);
  ps_capture_free(c);
}

/* 100,000 B events and then 100,000 E events whose names match none of them: every E is
** unmatched, and matching looks at a bounded number of open B's (no quadratic walk) */
static void test_chrome_unmatched_storm(void){
  size_t n = 100000, cap = n*80 + 16, k = 0;
  char *z = malloc(cap);
  z[k++] = '[';
  for(size_t i=0; i<n; i++) k += (size_t)snprintf(z+k, cap-k, "%s{\"ph\":\"B\",\"name\":\"a\",\"ts\":%zu}", i ? "," : "", i);
  for(size_t i=0; i<n; i++) k += (size_t)snprintf(z+k, cap-k, ",{\"ph\":\"E\",\"name\":\"b\",\"ts\":%zu}", n+i);
  z[k++] = ']';
  PsErr err;
  PsCapture *c = load_n(z, k, &err);
  CHECK(c!=0);
  if( c ){
    CHECK_INT(c->ev.n, 2*n);
    CHECK_STR(meta_text(c, "diagnostic", "unmatched_end_count"), "100000");
    CHECK_STR(meta_text(c, "diagnostic", "unclosed_begin_count"), "100000");
    CHECK_INT(c->ev.aDepth[n-1], (long long)n-1);    /* the open B's still nest: 99,999 deep */
    ps_capture_free(c);
  }
  free(z);
}

/* n processes, each named by a process_name M event and with one thread (plus a second
** process_name for pid 0 at the end, which wins); returns the capture's nWork, the probes of
** the name lookups. Checks every thread's process name. */
static uint64_t process_names_work(size_t n){
  PsBuf b; memset(&b, 0, sizeof(b));
  ps_buf_append(&b, "[", 1);
  for(size_t i=0; i<n; i++){
    char e[200];
    int k = snprintf(e, sizeof(e), "%s{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%zu,\"tid\":%zu,\"args\":{\"name\":\"p%zu\"}},"
                     "{\"ph\":\"X\",\"name\":\"x\",\"pid\":%zu,\"tid\":%zu,\"ts\":%zu,\"dur\":1}", i ? "," : "", i, i, i, i, i+1, i);
    ps_buf_append(&b, e, (size_t)k);
  }
  const char *zLast = ",{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,\"args\":{\"name\":\"last\"}}]";
  ps_buf_append(&b, zLast, strlen(zLast));
  PsErr err;
  PsCapture *c = load_n(b.z, b.n, &err);
  uint64_t w = 0;
  CHECK(c!=0);
  if( c ){
    size_t nBad = 0;
    for(size_t r=0; r<c->ev.n; r++){
      if( c->ev.aPh[r]!='X' ) continue;
      const PsThread *t = &c->aThread[c->ev.aThread[r]];
      char want[32]; snprintf(want, sizeof(want), t->pid.i==0 ? "last" : "p%lld", (long long)t->pid.i);
      PsStr s = ps_pool_get(&c->pool, t->processName);
      if( s.n!=strlen(want) || memcmp(s.z, want, s.n)!=0 ) nBad++;
    }
    CHECK_INT(nBad, 0);
    CHECK_INT(c->nThread, 2*n);         /* the last M has no tid: its thread is (0, 0), made already */
    w = c->nWork;
    ps_capture_free(c);
  }
  ps_buf_free(&b);
  return w;
}

/* Process names reach threads in work linear in names + threads (it was names x threads:
** 100k of each took 12-17 s): 4x the input, at most 4.5x the lookups. */
static void test_chrome_process_names_linear(void){
  uint64_t w1 = process_names_work(5000), w4 = process_names_work(20000);
  CHECK(w1 >= 5000);                    /* every name and thread was looked up (counted) */
  CHECK(w4 <= w1*9/2);
  if( w4 > w1*9/2 ) printf("  process names: work %llu at n, %llu at 4n\n", (unsigned long long)w1, (unsigned long long)w4);
}

/* every prefix of a small trace either loads (array form may be cut between events) or gives an
** error naming a byte offset inside the input; none crashes (run under ASan by make test) */
static void test_chrome_prefixes(void){
  FILE *f = fopen("tests/data/basic.json", "rb");
  CHECK(f!=0);
  if( f==0 ) return;
  char buf[4096]; size_t n = fread(buf, 1, sizeof(buf), f); fclose(f);
  int nOk = 0, nErr = 0, nBadOff = 0;
  for(size_t k=0; k<n; k++){
    PsErr err;
    PsCapture *cap = load_n(buf, k, &err);
    if( cap ){ nOk++; ps_capture_free(cap); }
    else{ nErr++; if( err.off > (int64_t)k ) nBadOff++; }
  }
  /* the object form needs its closing brace: of the proper prefixes only the one that lacks
  ** just the final newline loads */
  CHECK_INT(nOk, 1);
  CHECK_INT(nErr, (long long)n-1);
  CHECK_INT(nBadOff, 0);
  PsErr err;
  PsCapture *cap = load_n(buf, n, &err);
  CHECK(cap && cap->ev.n==14);
  ps_capture_free(cap);
}

/* timings and lms: every prefix loads or errors cleanly (under ASan by make test), and the
** complete files give the hand-computed counts of tests/data/README.md */
static void test_text_formats(void){
  static const struct { const char *zFile; size_t nRows; int bRecords; } a[] = {
    { "tests/data/timings_edge.txt", 11, 1 },
    { "tests/data/timings_edge_crlf.txt", 11, 1 },
    { "tests/data/lms_edge.csv", 5, 0 },
    { "tests/data/lms_example.csv", 3, 0 },
  };
  for(size_t k=0; k<sizeof(a)/sizeof(a[0]); k++){
    FILE *f = fopen(a[k].zFile, "rb");
    CHECK(f!=0);
    if( f==0 ) continue;
    char buf[8192]; size_t n = fread(buf, 1, sizeof(buf), f); fclose(f);
    int nBadOff = 0;
    for(size_t cut=0; cut<n; cut++){
      PsErr err;
      PsCapture *c = load_n(buf, cut, &err);
      if( c ) ps_capture_free(c); else if( err.off > (int64_t)cut ) nBadOff++;
    }
    CHECK_INT(nBadOff, 0);
    PsErr err;
    PsCapture *c = load_n(buf, n, &err);
    CHECK(c!=0);
    if( c ){
      CHECK_INT(a[k].bRecords ? c->nRec : c->ev.n, a[k].nRows);
      ps_capture_free(c);
    }
  }
  /* lms: an END before any BEGIN, then a normal pair */
  PsErr err;
  PsCapture *c = load("2,0,a\n1,0,5\n0,0,1\n1,0,2\n", &err);
  CHECK(c && c->ev.n==1 && c->ev.aTs[0]==6000 && c->ev.aDur[0]==2000);
  CHECK_STR(c ? meta_text(c, "diagnostic", "unmatched_end_count") : "", "1");
  ps_capture_free(c);
  /* an lms id far beyond the labels is a diagnostic, not a 16 GB table; its marker still
  ** advances the clock: BEGIN a at 1 µs, the skipped marker at 2, END a at 4: dur 3 µs */
  c = load("2,0,a\n0,0,1\n2,4000000000,b\n0,4000000000,1\n1,0,2\n", &err);
  CHECK(c && c->ev.n==1 && c->ev.aDur[0]==3000);
  CHECK_STR(c ? meta_text(c, "diagnostic", "unparsed_line_count") : "", "2");
  ps_capture_free(c);
  /* a diff_us that takes the running time past INT64_MAX/2000 µs (4611686018427387, so ts
  ** and END - BEGIN fit in int64 ns) is skipped with a diagnostic, in either direction and in
  ** either variant (found by fuzz_lms: signed overflow of the running time * 1000) */
  c = load("2,0,a\n0,0,1\n0,0,5000000000000000\n1,0,2\n", &err);
  CHECK(c && c->ev.n==1 && c->ev.aTs[0]==1000 && c->ev.aDur[0]==2000);
  CHECK_STR(c ? meta_text(c, "diagnostic", "unparsed_line") : "",
            "line 3: diff_us 5000000000000000 takes the running time (1 us) outside +/-4611686018427387 us (146 years); the line is skipped");
  ps_capture_free(c);
  c = load("0,-4000000000000000,a\n0,-4000000000000000,b\n1,7,a\n", &err);
  CHECK(c && c->ev.n==1 && c->ev.aTs[0]==-4000000000000000000LL && c->ev.aDur[0]==7000);
  CHECK_STR(c ? meta_text(c, "diagnostic", "unparsed_line") : "",
            "line 2: diff_us -4000000000000000 takes the running time (-4000000000000000 us) outside +/-4611686018427387 us (146 years); the line is skipped");
  ps_capture_free(c);
  /* a record whose Time minus its children's Time leaves int64 (two children of 9e18 ns under
  ** a parent of 0) gets self NULL and a diagnostic naming its line; the children keep theirs */
  c = load("Minecraft\n"
           "    a Time: 0 Count: 1 Violations: 0 RecordId: 1 ParentRecordId: none TimerId: 1\n"
           "    b Time: 9000000000000000000 Count: 1 Violations: 0 RecordId: 2 ParentRecordId: 1 TimerId: 2\n"
           "    c Time: 9000000000000000000 Count: 1 Violations: 0 RecordId: 3 ParentRecordId: 1 TimerId: 3\n"
           "# FormatVersion 1\n", &err);
  CHECK(c && c->nRec==3 && c->aRec[0].self==PS_NULL64 && c->aRec[1].self==9000000000000000000LL);
  CHECK_STR(c ? meta_text(c, "diagnostic", "other") : "",
            "line 2: Time minus the children's Time is outside int64 ns; self_ns is NULL");
  ps_capture_free(c);
  /* a legacy report with one record loads */
  c = load("Minecraft\n    Full Server Tick Time: 5 Count: 1 Avg: 5 Violations: 0\n", &err);
  CHECK(c && c->nRec==1);
  ps_capture_free(c);
}

static void test_chrome_columns(void){
  PsErr err;
  PsCapture *cap = load("[{\"ph\":\"B\",\"name\":\"p\",\"ts\":1,\"tts\":1,\"args\":{\"a\":1}},"
                        "{\"ph\":\"E\",\"ts\":3,\"tts\":2.5,\"args\":{\"b\":[2]}},"
                        "{\"ph\":\"B\",\"name\":\"q\",\"ts\":4,\"args\":{}},{\"ph\":\"E\",\"ts\":5,\"args\":{\"c\":3}}]", &err);
  CHECK(cap!=0);
  if( cap==0 ) return;
  PsOut o;
  CHECK(cap->pFormat->xColumn(cap, 0, PS_COL_ARGS, &o)==0);
  CHECK(o.n==15 && memcmp(o.z, "{\"a\":1,\"b\":[2]}", 15)==0);
  free(o.zFree);
  CHECK(cap->pFormat->xColumn(cap, 0, PS_COL_TDUR, &o)==0 && o.type==PS_META_INT && o.i==1500);
  CHECK(cap->pFormat->xColumn(cap, 1, PS_COL_ARGS, &o)==0);
  CHECK(o.n==7 && memcmp(o.z, "{\"c\":3}", 7)==0);
  free(o.zFree);
  CHECK_STR(name_of(cap, 1), "q");
  ps_capture_free(cap);
  /* thread time running backwards by more than 2^63 ns: tdur is NULL, not an overflow */
  cap = load("[{\"ph\":\"B\",\"name\":\"p\",\"ts\":1,\"tts\":9000000000000000},"
             "{\"ph\":\"E\",\"ts\":3,\"tts\":-9000000000000000}]", &err);
  CHECK(cap && cap->pFormat->xColumn(cap, 0, PS_COL_TDUR, &o)==0 && o.type==0);
  CHECK(cap && cap->pFormat->xColumn(cap, 0, PS_COL_TTS, &o)==0 && o.type==PS_META_INT && o.i==9000000000000000000LL);
  ps_capture_free(cap);
}

/* ---------------------------------------------------------------- XSpace (own encoder) */

/* A tiny protobuf encoder for building test captures by hand. */
typedef struct Pb { unsigned char z[4096]; size_t n; } Pb;
static void pb_var(Pb *b, uint64_t v){ while( v>=0x80 ){ b->z[b->n++] = (unsigned char)(v|0x80); v >>= 7; } b->z[b->n++] = (unsigned char)v; }
static void pb_v(Pb *b, unsigned f, uint64_t v){ pb_var(b, (uint64_t)f<<3); pb_var(b, v); }
static void pb_bytes(Pb *b, unsigned f, const void *p, size_t n){ pb_var(b, (uint64_t)f<<3|2); pb_var(b, n); memcpy(b->z+b->n, p, n); b->n += n; }
static void pb_s(Pb *b, unsigned f, const char *z){ pb_bytes(b, f, z, strlen(z)); }
static void pb_m(Pb *b, unsigned f, const Pb *sub){ pb_bytes(b, f, sub->z, sub->n); }
static void pb_d(Pb *b, unsigned f, double d){ pb_var(b, (uint64_t)f<<3|1); memcpy(b->z+b->n, &d, 8); b->n += 8; }

/* map entry {1: key, 2: value} */
static void pb_entry(Pb *b, unsigned f, uint64_t key, const Pb *val){
  Pb e; e.n = 0; pb_v(&e, 1, key); pb_m(&e, 2, val); pb_m(b, f, &e);
}
static void pb_statmeta(Pb *plane, uint64_t id, const char *zName){
  Pb m; m.n = 0; pb_v(&m, 1, id); pb_s(&m, 2, zName); pb_entry(plane, 5, id, &m);
}

static size_t build_xspace(unsigned char *out){
  Pb space, plane, line, ev, st, meta, plane1;
  space.n = plane.n = line.n = plane1.n = 0;
  /* plane 0: /device:GPU:0 */
  pb_v(&plane, 1, 7); pb_s(&plane, 2, "/device:GPU:0");
  /* line 3 "Stream #1" at 1000 ns, three events */
  pb_v(&line, 1, 3); pb_s(&line, 2, "Stream #1"); pb_v(&line, 3, 1000); pb_v(&line, 9, 20000000);
  ev.n = 0; pb_v(&ev, 1, 10); pb_v(&ev, 2, 0); pb_v(&ev, 3, 10000000);
  st.n = 0; pb_v(&st, 1, 1); pb_v(&st, 3, 123); pb_m(&ev, 4, &st);                 /* uint64 */
  st.n = 0; pb_v(&st, 1, 5); pb_d(&st, 2, 0.5); pb_m(&ev, 4, &st);                 /* double */
  st.n = 0; pb_v(&st, 1, 6); pb_v(&st, 4, (uint64_t)-5); pb_m(&ev, 4, &st);        /* int64 */
  st.n = 0; pb_v(&st, 1, 4); pb_bytes(&st, 6, "\x01\x02", 2); pb_m(&ev, 4, &st);   /* bytes */
  st.n = 0; pb_v(&st, 1, 7); pb_s(&st, 5, "q\"uote"); pb_m(&ev, 4, &st);          /* str */
  pb_m(&line, 4, &ev);
  ev.n = 0; pb_v(&ev, 1, 11); pb_v(&ev, 2, 2000499); pb_v(&ev, 3, 1000500); pb_m(&line, 4, &ev);
  ev.n = 0; pb_v(&ev, 1, 11); pb_v(&ev, 5, 4); pb_v(&ev, 3, 5000); pb_m(&line, 4, &ev);   /* aggregated */
  pb_m(&plane, 3, &line);
  /* event metadata after the lines, as writers order fields */
  meta.n = 0; pb_v(&meta, 1, 10); pb_s(&meta, 2, "matmul"); pb_s(&meta, 4, "MatMul");
  st.n = 0; pb_v(&st, 1, 2); pb_v(&st, 7, 3); pb_m(&meta, 5, &st);                 /* ref -> "gemm" */
  st.n = 0; pb_v(&st, 1, 1); pb_v(&st, 3, 999); pb_m(&meta, 5, &st);              /* shadowed by the event's */
  pb_entry(&plane, 4, 10, &meta);
  meta.n = 0; pb_v(&meta, 1, 11); pb_s(&meta, 2, "add"); pb_entry(&plane, 4, 11, &meta);
  pb_statmeta(&plane, 1, "flops"); pb_statmeta(&plane, 2, "kind"); pb_statmeta(&plane, 3, "gemm");
  pb_statmeta(&plane, 4, "blob"); pb_statmeta(&plane, 5, "ratio"); pb_statmeta(&plane, 6, "neg");
  pb_statmeta(&plane, 7, "label");
  pb_m(&space, 1, &plane);
  /* plane 1: no lines, a plane stat */
  pb_v(&plane1, 1, 7); pb_s(&plane1, 2, "/host:metadata");
  pb_statmeta(&plane1, 1, "note");
  st.n = 0; pb_v(&st, 1, 1); pb_s(&st, 5, "hello"); pb_m(&plane1, 6, &st);
  pb_m(&space, 1, &plane1);
  pb_s(&space, 4, "myhost");
  memcpy(out, space.z, space.n);
  return space.n;
}

/* newengine jobs: a CSV with a quoted cell holding a comma, a quote and a line break; the probe
** against Chrome's object form; every prefix of a report is an error inside the input. */
static void test_jobs(void){
  static const char zCsv[] =
    "id,status,category,source,lane,priority,dependency_group,frame_id,task_domain,task_pass,executor,"
    "name,elapsed_ms,budget_ms,frame_budget_ms,load,load_percent,over_budget,exceeded_frame_budget,"
    "gpu_wait_ms,wait_reason,scheduled,blocked,polling,waited_on_gpu,stayed_async,async_mode,"
    "started_unix_ms,ended_unix_ms,payload_bytes,output_bytes,service_id,method,plugin_id,gateway,error,detail\n"
    "j1,completed,cat,src,plugin,unspecified,unspecified,null,,,,n1,2.655800,16.670000,,0.159316,15.932,"
    "false,false,,,true,false,false,false,false,,1787314756953.000,1787314756956.000,,,,,,,,\"a, \"\"b\"\"\nc\"\r\n"
    "j2,failed,cat,src,,,,,,,,n2,0.000000,16.670000,,0.000000,0.000,false,false,,,false,false,false,false,false,,,,,,,,,,,x\n";
  PsErr err;
  PsCapture *c = load_n(zCsv, sizeof(zCsv)-1, &err);
  CHECK(c!=0);
  if( c==0 ){ printf("  (%s)\n", err.msg); return; }
  CHECK_STR(c->pFormat->zName, "newengine");
  CHECK_INT(c->nJob, 2);
  CHECK_INT(c->aJob[1].line, 4);                 /* the quoted line break counts */
  PsOut o;
  CHECK(ps_job_column(c, 0, PS_JOB_DETAIL, &o)==PS_OK && o.type==PS_META_TEXT && o.n==8 && memcmp(o.z, "a, \"b\"\nc", 8)==0);
  free(o.zFree);
  CHECK(ps_job_column(c, 0, PS_JOB_FRAME_ID, &o)==PS_OK && o.type==PS_META_TEXT && o.n==4 && memcmp(o.z, "null", 4)==0);
  CHECK(ps_job_column(c, 0, PS_JOB_TASK_DOMAIN, &o)==PS_OK && o.type==0);          /* '' is NULL */
  CHECK(ps_job_column(c, 0, PS_JOB_STARTED_UNIX_MS, &o)==PS_OK && o.type==PS_META_INT && o.i==1787314756953LL);
  CHECK(ps_job_column(c, 0, PS_JOB_ELAPSED_MS, &o)==PS_OK && o.type==PS_META_REAL && o.r==2.6558);
  CHECK(ps_job_column(c, 0, PS_JOB_SCHEDULED, &o)==PS_OK && o.type==PS_META_INT && o.i==1);
  CHECK(ps_job_column(c, 1, PS_JOB_SCHEDULED, &o)==PS_OK && o.type==PS_META_INT && o.i==0);
  CHECK(ps_job_column(c, 1, PS_JOB_DETAIL, &o)==PS_OK && o.n==1 && o.z[0]=='x');
  ps_capture_free(c);
  /* a report object beats Chrome's object-form probe; a trace object does not become a report */
  static const char zRep[] = "{\"active_jobs\": [], \"completed_jobs\": [{\"id\": \"a\", \"elapsed_ms\": 1.5, "
    "\"lane\": null, \"metadata\": {\"event\": {\"lane\": \"L\"}, \"frame_id\": null}}], "
    "\"schema\": \"newengine.profiler.report.v3\"}";
  c = load_n(zRep, sizeof(zRep)-1, &err);
  CHECK(c!=0 && strcmp(c->pFormat->zName, "newengine")==0);
  if( c ){
    CHECK(ps_job_column(c, 0, PS_JOB_LANE, &o)==PS_OK && o.type==PS_META_TEXT && o.n==1 && o.z[0]=='L');
    CHECK(ps_job_column(c, 0, PS_JOB_FRAME_ID, &o)==PS_OK && o.type==PS_META_TEXT && o.n==4);   /* JSON null: 'null' */
    CHECK(ps_job_column(c, 0, PS_JOB_PRIORITY, &o)==PS_OK && o.type==0);                         /* absent: NULL */
    CHECK(ps_job_column(c, 0, PS_JOB_LOAD_PERCENT, &o)==PS_OK && o.type==PS_META_REAL && o.r==0.0);
    ps_capture_free(c);
  }
  c = load("{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1, \"dur\": 2, \"pid\": 1, \"tid\": 1, \"name\": \"a\"}]}", &err);
  CHECK(c!=0 && strcmp(c->pFormat->zName, "chrome")==0);
  ps_capture_free(c);
  c = load("{\"completed_jobs\": [], \"schema\": \"other.v1\"}", &err);
  CHECK(c==0); CHECK_CONTAINS(err.msg, "schema is not newengine.profiler.report.v*");
  int nBad = 0, nLoaded = 0;
  for(size_t cut=1; cut<sizeof(zRep)-1; cut++){
    c = load_n(zRep, cut, &err);
    if( c ){ nLoaded++; ps_capture_free(c); }
    else if( err.off > (int64_t)cut || err.msg[0]==0 ) nBad++;
  }
  CHECK_INT(nBad, 0);
  CHECK_INT(nLoaded, 0);
}

/* Line scalars after the events (legal protobuf, not the writers' order), a timestamp between
** events, and sparse event-metadata ids: the same rows as the writers' order gives. */
static void test_xspace_field_order(void){
  Pb space, plane, line, ev, meta;
  space.n = plane.n = line.n = 0;
  pb_v(&plane, 1, 1); pb_s(&plane, 2, "/device:TPU:0");
  ev.n = 0; pb_v(&ev, 1, 5); pb_v(&ev, 2, 1000); pb_v(&ev, 3, 9000); pb_m(&line, 4, &ev);
  pb_v(&line, 3, 700);                       /* timestamp_ns between the events */
  ev.n = 0; pb_v(&ev, 1, 900000); pb_v(&ev, 2, 2000); pb_v(&ev, 3, 1000); pb_m(&line, 4, &ev);
  pb_v(&line, 1, 42); pb_s(&line, 2, "XLA Ops");   /* id and name last */
  pb_m(&plane, 3, &line);
  meta.n = 0; pb_v(&meta, 1, 5); pb_s(&meta, 2, "fusion"); pb_entry(&plane, 4, 5, &meta);
  meta.n = 0; pb_v(&meta, 1, 900000); pb_s(&meta, 2, "copy"); pb_entry(&plane, 4, 900000, &meta);
  pb_m(&space, 1, &plane);
  PsErr err;
  PsCapture *c = load_n((const char*)space.z, space.n, &err);
  CHECK(c!=0);
  if( c==0 ){ printf("  (%s)\n", err.msg); return; }
  CHECK_INT(c->ev.n, 2);
  CHECK_INT(c->ev.aTs[0], 701); CHECK_INT(c->ev.aTs[1], 702);      /* 700 ns + 1000/2000 ps */
  CHECK_INT(c->ev.aDur[0], 9); CHECK_INT(c->ev.aDur[1], 1);
  CHECK_INT(c->ev.aParent[1], 0); CHECK_INT(c->ev.aDepth[1], 1);
  CHECK_STR(name_of(c, 0), "fusion"); CHECK_STR(name_of(c, 1), "copy");
  const PsThread *th = &c->aThread[c->ev.aThread[0]];
  CHECK(c->ev.aThread[1]==c->ev.aThread[0] && c->ev.aTrack[1]==c->ev.aTrack[0]);
  CHECK_INT(th->tid.i, 42); CHECK_INT(th->pid.i, 0);
  CHECK(c->ev.aTrack[0]==th->track);
  PsStr tn = ps_pool_get(&c->pool, th->threadName);
  CHECK(tn.n==7 && memcmp(tn.z, "XLA Ops", 7)==0);
  ps_capture_free(c);
  /* the id between the events: both rows on the line's thread (the first one stayed on thread 0
  ** when the id came after it and before the next) */
  space.n = plane.n = line.n = 0;
  pb_v(&plane, 1, 1); pb_s(&plane, 2, "/device:TPU:0");
  Pb other; other.n = 0; pb_v(&other, 1, 7); pb_s(&other, 2, "Other");          /* thread 0: another line */
  ev.n = 0; pb_v(&ev, 1, 5); pb_v(&ev, 2, 1000); pb_v(&ev, 3, 500); pb_m(&other, 4, &ev);
  pb_m(&plane, 3, &other);
  ev.n = 0; pb_v(&ev, 1, 5); pb_v(&ev, 2, 1000); pb_v(&ev, 3, 500); pb_m(&line, 4, &ev);
  pb_v(&line, 1, 42);
  ev.n = 0; pb_v(&ev, 1, 5); pb_v(&ev, 2, 3000); pb_v(&ev, 3, 500); pb_m(&line, 4, &ev);
  pb_m(&plane, 3, &line);
  meta.n = 0; pb_v(&meta, 1, 5); pb_s(&meta, 2, "fusion"); pb_entry(&plane, 4, 5, &meta);
  pb_m(&space, 1, &plane);
  c = load_n((const char*)space.z, space.n, &err);
  CHECK(c!=0);
  if( c==0 ){ printf("  (%s)\n", err.msg); return; }
  CHECK_INT(c->ev.n, 3);
  CHECK_INT(c->aThread[c->ev.aThread[1]].tid.i, 42);
  CHECK_INT(c->aThread[c->ev.aThread[2]].tid.i, 42);
  CHECK(c->ev.aTrack[1]==c->aThread[c->ev.aThread[1]].track);
  ps_capture_free(c);
}

static void test_xspace(void){
  unsigned char z[4096];
  size_t n = build_xspace(z);
  PsErr err;
  PsCapture *c = load_n((const char*)z, n, &err);
  CHECK(c!=0);
  if( c==0 ){ printf("  (%s)\n", err.msg); return; }
  CHECK_STR(c->pFormat->zName, "xspace");
  CHECK_INT(c->nPlane, 2); CHECK_INT(c->nLine, 1); CHECK_INT(c->ev.n, 3);
  CHECK_STR(c->zHost, "myhost");
  /* ts = 1000 ns + offset_ps/1000 rounded; dur = duration_ps/1000 rounded (halves up) */
  CHECK_INT(c->ev.aTs[0], 1000); CHECK_INT(c->ev.aDur[0], 10000);
  CHECK_INT(c->ev.aTs[1], 3000); CHECK_INT(c->ev.aDur[1], 1001);   /* 2000.499 -> 2000, 1000.5 -> 1001 */
  CHECK_INT(c->ev.aDepth[1], 1); CHECK_INT(c->ev.aParent[1], 0);
  CHECK_STR(name_of(c, 0), "matmul"); CHECK_STR(name_of(c, 1), "add");
  PsOut o;
  CHECK(c->pFormat->xColumn(c, 0, PS_COL_ARGS, &o)==PS_OK);
  CHECK(o.z && o.n==strlen("{\"flops\":123,\"ratio\":0.5,\"neg\":-5,\"blob\":{\"bytes\":2,\"hex\":\"0102\"},\"label\":\"q\\\"uote\",\"kind\":\"gemm\"}")
        && memcmp(o.z, "{\"flops\":123,\"ratio\":0.5,\"neg\":-5,\"blob\":{\"bytes\":2,\"hex\":\"0102\"},\"label\":\"q\\\"uote\",\"kind\":\"gemm\"}", o.n)==0);
  free(o.zFree);
  CHECK(c->pFormat->xColumn(c, 0, PS_COL_DISPLAY_NAME, &o)==PS_OK && o.n==6 && memcmp(o.z, "MatMul", 6)==0);
  CHECK(c->pFormat->xColumn(c, 1, PS_COL_OFFSET_PS, &o)==PS_OK && o.type==PS_META_INT && o.i==2000499);
  CHECK(c->pFormat->xColumn(c, 2, PS_COL_NUM_OCC, &o)==PS_OK && o.type==PS_META_INT && o.i==4);
  CHECK(c->pFormat->xColumn(c, 2, PS_COL_OFFSET_PS, &o)==PS_OK && o.type==0);
  CHECK_STR(meta_text(c, "/host:metadata", "stats"), "{\"note\":\"hello\"}");
  CHECK_STR(meta_text(c, "capture", "stats"), "8");
  ps_capture_free(c);
  /* every truncation is an error with an offset inside the input, never a crash */
  int nBad = 0, nLoaded = 0;
  for(size_t cut=1; cut<n; cut++){
    c = load_n((const char*)z, cut, &err);
    if( c ){ nLoaded++; ps_capture_free(c); }
    else if( err.off > (int64_t)cut ) nBad++;
  }
  CHECK_INT(nBad, 0);
  /* malformed: an 11-byte varint, a wrong wire type, a length past the end */
  unsigned char bad[64]; size_t k = 0;
  bad[k++] = 0x0a; bad[k++] = 0x0c; bad[k++] = 0x08;
  for(int i=0; i<10; i++) bad[k++] = 0xff;
  bad[k++] = 0x01;
  PsSource src; int bU;
  ps_source_open_blob(&src, bad, k, 0, &err);
  c = ps_capture_load(&src, &ps_format_xspace, &err, &bU);
  CHECK(c==0); CHECK_STR(err.msg, "byte 3: varint longer than 10 bytes in XPlane");
  unsigned char bad2[] = { 0x0a, 0x02, 0x10, 0x05 };           /* XPlane.name (2) as a varint */
  ps_source_open_blob(&src, bad2, sizeof(bad2), 0, &err);
  c = ps_capture_load(&src, &ps_format_xspace, &err, &bU);
  CHECK(c==0); CHECK_STR(err.msg, "byte 2: field name of XPlane has wire type 0, expected 2");
  unsigned char bad3[] = { 0x0a, 0x05, 0x1a, 0x09, 0x08, 0x01 };   /* XLine length past XPlane */
  ps_source_open_blob(&src, bad3, sizeof(bad3), 0, &err);
  c = ps_capture_load(&src, &ps_format_xspace, &err, &bU);
  CHECK(c==0); CHECK_STR(err.msg, "byte 1: length 5 runs past the end of XSpace (4 bytes left)");
}

/* ---------------------------------------------------------------- the text rule */

/* ps_text_repair on hand-worked cases of the "maximal subpart" practice (Python's
** bytes.decode('utf-8', 'replace') gives the same bytes for each); NUL becomes U+FFFD too. */
static void test_text_repair(void){
  static const struct { const char *z; size_t n; const char *zWant; size_t bad; } a[] = {
    { "a\0b", 3, "a\xef\xbf\xbd" "b", 1 },
    { "\xe0\x80", 2, "\xef\xbf\xbd\xef\xbf\xbd", 0 },          /* E0 needs A0..BF next: two parts */
    { "\xf0\x90\x80", 3, "\xef\xbf\xbd", 0 },                  /* a 4-byte character cut short: one */
    { "\xed\xa0\x80", 3, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", 0 },   /* a surrogate: three */
    { "\xc0\xaf", 2, "\xef\xbf\xbd\xef\xbf\xbd", 0 },          /* overlong '/' */
    { "\xf4\x90\x80\x80", 4, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", 0 },   /* > U+10FFFF */
    { "x\xc3", 2, "x\xef\xbf\xbd", 1 },
    { "\xe2\x82\xac\xe2\x82", 5, "\xe2\x82\xac\xef\xbf\xbd", 3 },
    { "\xf0\x90\x80" "A", 4, "\xef\xbf\xbd" "A", 0 },
  };
  char out[64];
  for(size_t k=0; k<sizeof(a)/sizeof(a[0]); k++){
    size_t bad = 99, m = ps_text_repair(a[k].z, a[k].n, out);
    CHECK(ps_text_check(a[k].z, a[k].n, &bad)==0); CHECK_INT(bad, a[k].bad);
    CHECK(m==strlen(a[k].zWant) && memcmp(out, a[k].zWant, m)==0 && ps_text_repair(a[k].z, a[k].n, 0)==m);
  }
  size_t bad = 99;
  CHECK(ps_text_check("caf\xc3\xa9 \xf0\x9f\x98\x80 0123456789abcdef", 27, &bad)==1 && bad==99);
  CHECK(ps_text_check("0123456789abcdef\0", 17, &bad)==0 && bad==16);   /* a NUL after an ASCII word */
  /* ps_text_cstr cuts before a character: 'é' (2 bytes) does not fit in 4 after "abc" */
  char buf[16];
  CHECK_STR(ps_text_cstr("abc\xc3\xa9z", 6, 4, buf), "abc");
  CHECK_STR(ps_text_cstr("a\0b", 3, 10, buf), "a\xef\xbf\xbd" "b");
}

/* Every parser stores text under one rule: repaired, with an 'invalid_text' diagnostic naming the
** field and the byte offset of the first bad byte (found before with strchr/memmem in the input,
** or counted by hand in the comments). Failed before: Chrome refused the name; the others kept
** the bytes (and a NUL cut XSpace's host name short). */
static void test_text_rule(void){
  PsErr err; int64_t off = -1;
  /* Chrome: the quote of "name" is byte 18, so 0xff is byte 23 */
  PsCapture *c = load("[{\"ph\":\"X\",\"name\":\"bad \xff utf8\"}]", &err);
  CHECK(c!=0);
  if( c ){
    CHECK_STR(meta_nth(c, "diagnostic", "invalid_text", 0, &off), "invalid UTF-8 (byte 0xff) in name at byte 23; replaced with U+FFFD");
    CHECK_INT(off, 23);
    ps_capture_free(c);
  }
  /* escapes before the bad byte: \u00e9 decodes to 2 bytes, so the NUL (decoded byte 2) comes
  ** from the \u0000 at byte 25 (quote at 18, \u00e9 at 19..24) */
  c = load("[{\"ph\":\"X\",\"name\":\"\\u00e9\\u0000x\",\"cat\":\"\\u00e9\\ud800\\\"\xfe\"}]", &err);
  CHECK(c!=0);
  if( c ){
    CHECK_STR(name_of(c, 0), "\xc3\xa9\xef\xbf\xbdx");
    CHECK_STR(meta_nth(c, "diagnostic", "invalid_text", 0, &off), "a NUL byte in name at byte 25; replaced with U+FFFD");
    CHECK_INT(off, 25);
    /* cat: \u00e9 (2 bytes) \ud800 (a lone surrogate: U+FFFD, 3) \" (1), then 0xfe (decoded byte
    ** 6): its quote is byte 40, \u00e9 41..46, \ud800 47..52, \" 53..54, 0xfe 55 */
    CHECK_STR(meta_nth(c, "diagnostic", "invalid_text", 1, &off), "invalid UTF-8 (byte 0xfe) in cat at byte 55; replaced with U+FFFD");
    CHECK_INT(off, 55);
    PsStr cs = ps_pool_get(&c->pool, c->ev.aCat[0]);
    CHECK(cs.n==9 && memcmp(cs.z, "\xc3\xa9\xef\xbf\xbd\"\xef\xbf\xbd", 9)==0);
    ps_capture_free(c);
  }
  /* the same bad name twice: one pool string, a diagnostic for each (0xc3 at 19 and 42) */
  c = load("[{\"ph\":\"i\",\"name\":\"\xc3(\"},{\"ph\":\"i\",\"name\":\"\xc3(\"}]", &err);
  CHECK(c!=0);
  if( c ){
    CHECK(c->ev.n==2 && c->ev.aName[0]==c->ev.aName[1]);
    CHECK_STR(name_of(c, 0), "\xef\xbf\xbd(");
    meta_nth(c, "diagnostic", "invalid_text", 1, &off); CHECK_INT(off, 42);
    CHECK_STR(meta_text(c, "diagnostic", "invalid_text_count"), "2");
    ps_capture_free(c);
  }
  /* a track's text (made when read: PS_META_TRACK) of more than 511 bytes is cut before the
  ** character that would pass byte 511: "async cat=" (10 bytes) and 250 of the 300 "é" (2 bytes
  ** each) of the category; the 251st, whose first byte is byte 511, is left out whole (it was
  ** cut in two, and the lone byte became U+FFFD: issue 32) */
  {
    PsBuf t; memset(&t, 0, sizeof(t));
    for(int e=0; e<2; e++){
      ps_buf_puts(&t, e ? ",{\"ph\":\"e\",\"ts\":2" : "[{\"ph\":\"b\",\"ts\":1");
      ps_buf_puts(&t, ",\"pid\":1,\"tid\":1,\"name\":\"r\",\"id\":\"0x1\",\"cat\":\"");
      for(int k=0; k<300; k++) ps_buf_puts(&t, "\xc3\xa9");
      ps_buf_puts(&t, "\"}");
    }
    ps_buf_puts(&t, "]");
    c = load_n(t.z, t.n, &err);
    CHECK(c!=0);
    if( c ){
      char want[600] = "async cat=";
      for(int k=0; k<250; k++) strcat(want, "\xc3\xa9");   /* cut before the 251st (issue 32) */
      CHECK_STR(meta_nth(c, "track", "1", 0, &off), want);
      CHECK_INT(off, -1);
      CHECK_STR(meta_nth(c, "track", "0", 0, 0), "thread pid=1 tid=1");
      CHECK_STR(meta_nth(c, "track", "2", 0, 0), "(absent)");
      ps_capture_free(c);
    }
    ps_buf_free(&t);
  }
  /* a top-level key with a NUL is a key with U+FFFD, not a key cut at the NUL: the key's \u0000
  ** is byte 3; the value's quote is byte 12, v 13, \u00e9 14..19, 0xff 20 */
  c = load("{\"k\\u0000x\":\"v\\u00e9\xff\",\"traceEvents\":[]}", &err);
  CHECK(c!=0);
  if( c ){
    CHECK_STR(meta_text(c, "trace", "k\xef\xbf\xbdx"), "v\xc3\xa9\xef\xbf\xbd");
    CHECK_STR(meta_nth(c, "diagnostic", "invalid_text", 0, &off), "a NUL byte in an object key at byte 3; replaced with U+FFFD");
    CHECK_STR(meta_nth(c, "diagnostic", "invalid_text", 1, &off), "invalid UTF-8 (byte 0xff) in trace 'k\xef\xbf\xbdx' at byte 20; replaced with U+FFFD");
    ps_capture_free(c);
  }
  /* a metadata event's name cut to 120 bytes for its key is cut before a character:
  ** "process_", 111 '0' and an 'é' (2 bytes) give "process_" and the 111 '0' alone, not a
  ** repaired half character (it was "...0\xef\xbf\xbd") */
  char zM[400], zKey[200];
  snprintf(zM, sizeof(zM), "[{\"ph\":\"M\",\"pid\":1,\"name\":\"process_%0111d\xc3\xa9\",\"args\":{\"name\":\"n\"}}]", 0);
  c = load(zM, &err);
  CHECK(c!=0);
  if( c ){
    snprintf(zKey, sizeof(zKey), "process_%0111d", 0);
    CHECK_STR(meta_text(c, "process:1", zKey), "n");
    ps_capture_free(c);
  }
  /* lms: the label starts at byte 4, 0xff is byte 5 */
  static const char zLms[] = "2,0,a\xff" "b\n0,0,5\n1,0,5\n";
  c = load_n(zLms, sizeof(zLms)-1, &err);
  CHECK(c!=0 && strcmp(c->pFormat->zName, "lms")==0);
  if( c ){
    CHECK_STR(name_of(c, 0), "a\xef\xbf\xbd" "b");
    CHECK_STR(meta_nth(c, "diagnostic", "invalid_text", 0, &off), "invalid UTF-8 (byte 0xff) in a label at byte 5; replaced with U+FFFD");
    CHECK_INT(off, 5);
    ps_capture_free(c);
  }
  /* timings: category "Cat\xfe" (0xfe at 3); the record line starts at 5, its name at 9, the NUL at
  ** 10; '# Ke\0y v\xff' at 46: the key's NUL at 50, the value's 0xff at 54 */
  static const char zTm[] = "Cat\xfe\n    N\0ame Time: 5 Count: 1 Violations: 0\n# Ke\0y v\xff\n";
  c = load_n(zTm, sizeof(zTm)-1, &err);
  CHECK(c!=0 && strcmp(c->pFormat->zName, "timings")==0);
  if( c ){
    PsStr nm = ps_pool_get(&c->pool, c->aRec[0].name), ct = ps_pool_get(&c->pool, c->aRec[0].category);
    CHECK(nm.n==7 && memcmp(nm.z, "N\xef\xbf\xbd" "ame", 7)==0);
    CHECK(ct.n==6 && memcmp(ct.z, "Cat\xef\xbf\xbd", 6)==0);
    CHECK_STR(meta_nth(c, "diagnostic", "invalid_text", 0, &off), "invalid UTF-8 (byte 0xfe) in a category line at byte 3; replaced with U+FFFD");
    CHECK_STR(meta_nth(c, "diagnostic", "invalid_text", 1, &off), "a NUL byte in a record name at byte 10; replaced with U+FFFD");
    CHECK_STR(meta_nth(c, "diagnostic", "invalid_text", 2, &off), "a NUL byte in a '# Key' at byte 50; replaced with U+FFFD");
    CHECK_STR(meta_nth(c, "diagnostic", "invalid_text", 3, &off), "invalid UTF-8 (byte 0xff) in report 'Ke\xef\xbf\xbdy' at byte 54; replaced with U+FFFD");
    CHECK_STR(meta_text(c, "report", "Ke\xef\xbf\xbdy"), "v\xef\xbf\xbd");
    ps_capture_free(c);
  }
  /* XSpace: a plane name, a line name, a hostname with a NUL, a plane stat's string value */
  Pb space, plane, line, ev, st;
  space.n = plane.n = line.n = ev.n = st.n = 0;
  pb_v(&plane, 1, 1); pb_bytes(&plane, 2, "/dev\xff", 5);
  pb_v(&line, 1, 2); pb_bytes(&line, 2, "L\0" "1", 3); pb_v(&line, 3, 100);
  Pb est; est.n = 0;
  pb_v(&est, 1, 9); pb_bytes(&est, 5, "\xff\0", 2);        /* an event stat: read lazily, as args */
  pb_v(&ev, 1, 1); pb_v(&ev, 3, 5000); pb_m(&ev, 4, &est); pb_m(&line, 4, &ev);
  pb_m(&plane, 3, &line);
  pb_statmeta(&plane, 9, "note");
  pb_v(&st, 1, 9); pb_bytes(&st, 5, "x\xc3", 2); pb_m(&plane, 6, &st);
  pb_m(&space, 1, &plane);
  pb_bytes(&space, 4, "h\0st", 4);
  const unsigned char *zs = space.z;
  size_t oPlane = (size_t)((const unsigned char*)memmem(zs, space.n, "/dev\xff", 5) - zs) + 4;
  size_t oLine = (size_t)((const unsigned char*)memmem(zs, space.n, "L\0" "1", 3) - zs) + 1;
  size_t oStat = (size_t)((const unsigned char*)memmem(zs, space.n, "x\xc3", 2) - zs) + 1;
  size_t oHost = (size_t)((const unsigned char*)memmem(zs, space.n, "h\0st", 4) - zs) + 1;
  c = load_n((const char*)space.z, space.n, &err);
  CHECK(c!=0);
  if( c==0 ){ printf("  (%s)\n", err.msg); return; }
  CHECK_STR(c->zHost, "h\xef\xbf\xbdst");                     /* was "h": the NUL cut it */
  CHECK_STR(meta_text(c, "xspace", "hostname"), "h\xef\xbf\xbdst");
  PsStr pn = ps_pool_get(&c->pool, c->aPlane[0].name), lnm = ps_pool_get(&c->pool, c->aLine[0].name);
  CHECK(pn.n==7 && memcmp(pn.z, "/dev\xef\xbf\xbd", 7)==0);
  CHECK(lnm.n==5 && memcmp(lnm.z, "L\xef\xbf\xbd" "1", 5)==0);
  CHECK_STR(meta_text(c, "/dev\xef\xbf\xbd", "stats"), "{\"note\":\"x\xef\xbf\xbd\"}");
  char zWant[160];
  snprintf(zWant, sizeof(zWant), "invalid UTF-8 (byte 0xff) in XPlane.name at byte %zu; replaced with U+FFFD", oPlane);
  CHECK_STR(meta_nth(c, "diagnostic", "invalid_text", 0, &off), zWant); CHECK_INT(off, oPlane);
  snprintf(zWant, sizeof(zWant), "a NUL byte in XLine.name at byte %zu; replaced with U+FFFD", oLine);
  CHECK_STR(meta_nth(c, "diagnostic", "invalid_text", 1, &off), zWant); CHECK_INT(off, oLine);
  snprintf(zWant, sizeof(zWant), "a NUL byte in xspace 'hostname' at byte %zu; replaced with U+FFFD", oHost);
  CHECK_STR(meta_nth(c, "diagnostic", "invalid_text", 2, &off), zWant); CHECK_INT(off, oHost);
  snprintf(zWant, sizeof(zWant), "invalid UTF-8 (byte 0xc3) in XStat.str_value at byte %zu; replaced with U+FFFD", oStat);
  CHECK_STR(meta_nth(c, "diagnostic", "invalid_text", 3, &off), zWant); CHECK_INT(off, oStat);
  CHECK_STR(meta_text(c, "diagnostic", "invalid_text_count"), "4");      /* none for the event stat */
  PsOut o;
  CHECK(c->pFormat->xColumn(c, 0, PS_COL_ARGS, &o)==PS_OK && o.n==17 && memcmp(o.z, "{\"note\":\"\xef\xbf\xbd\xef\xbf\xbd\"}", 17)==0);
  free(o.zFree);
  ps_capture_free(c);
}

/* XSpace: a negative duration_ps (int64 on the wire) is an error like Chrome's negative 'dur'
** (it was kept as a negative duration); the offset is the XEvent's. */
static void test_xspace_negative_dur(void){
  Pb space, plane, line, ev;
  space.n = plane.n = line.n = ev.n = 0;
  pb_v(&plane, 1, 1); pb_s(&plane, 2, "/device:GPU:0");
  pb_v(&line, 1, 2); pb_s(&line, 2, "Stream #1"); pb_v(&line, 3, 100);
  pb_v(&ev, 1, 1); pb_v(&ev, 2, 0); pb_v(&ev, 3, (uint64_t)-5000); pb_m(&line, 4, &ev);
  pb_m(&plane, 3, &line);
  pb_m(&space, 1, &plane);
  size_t oEv = (size_t)((const unsigned char*)memmem(space.z, space.n, ev.z, ev.n) - space.z);
  PsErr err;
  PsCapture *c = load_n((const char*)space.z, space.n, &err);
  CHECK(c==0);
  char zWant[160];
  snprintf(zWant, sizeof(zWant), "byte %zu: XEvent duration_ps is negative (-5000 ps) in plane '/device:GPU:0' line 'Stream #1'", oEv);
  CHECK_STR(err.msg, zWant);
  ps_capture_free(c);
}

/* Duplicate JSON keys: the last one wins, each repeat a 'duplicate_key' diagnostic. */
static void test_duplicate_keys(void){
  PsErr err; int64_t off = -1; size_t v = 0;
  /* the lazy lookup returns the last "a" (its value at byte 11); it returned the first (5) */
  CHECK(ps_json_find_key("{\"a\":1,\"a\":2}", 13, 0, "a", &v)==1); CHECK_INT(v, 11);
  CHECK(ps_json_find_key("{\"a\":1,\"b\":2}", 13, 0, "a", &v)==1); CHECK_INT(v, 5);
  /* an event's second "ts" (at byte 18; the first at 11) */
  PsCapture *c = load("[{\"ph\":\"X\",\"ts\":1,\"ts\":2,\"name\":\"a\",\"dur\":1,\"args\":{\"k\":1},\"args\":{\"k\":2}}]", &err);
  CHECK(c!=0);
  if( c ){
    CHECK_INT(c->ev.aTs[0], 2000);
    CHECK_STR(meta_nth(c, "diagnostic", "duplicate_key", 0, &off), "key \"ts\" given again in an event (before at byte 11); the last one is used");
    CHECK_INT(off, 18);
    PsOut o;
    CHECK(c->pFormat->xColumn(c, 0, PS_COL_ARGS, &o)==PS_OK && o.n==7 && memcmp(o.z, "{\"k\":2}", 7)==0);
    free(o.zFree);
    ps_capture_free(c);
  }
  /* a second traceEvents replaces the first, threads and process names included; a repeated
  ** top-level key keeps its last value only */
  c = load("{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1,\"dur\":1,\"pid\":1,\"tid\":1,\"name\":\"old\"},"
           "{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"P\"}}],\"k\":1,"
           "\"traceEvents\":[{\"ph\":\"X\",\"ts\":5,\"dur\":1,\"pid\":2,\"tid\":2,\"name\":\"new\"}],\"k\":2}", &err);
  CHECK(c!=0);
  if( c ){
    CHECK_INT(c->ev.n, 1); CHECK_STR(name_of(c, 0), "new");
    CHECK_INT(c->nThread, 1); CHECK_INT(c->aThread[0].pid.i, 2); CHECK_INT(c->aThread[0].processName, 0);
    CHECK_STR(meta_text(c, "trace", "k"), "2");
    CHECK_STR(meta_nth(c, "trace", "k", 1, 0), "(absent)");
    CHECK_STR(meta_text(c, "process:1", "process_name"), "(absent)");
    CHECK_STR(meta_text(c, "capture", "threads"), "1");
    CHECK_STR(meta_text(c, "diagnostic", "duplicate_key_count"), "2");
    ps_capture_free(c);
  }
  /* the async track of a key the first array used is made again for the second (one thread
  ** track and one async track in all, numbered as if the first array had not been there) */
  c = load("{\"traceEvents\":[{\"ph\":\"b\",\"cat\":\"x\",\"id\":1,\"ts\":1,\"pid\":1,\"tid\":1,\"name\":\"a\"},"
           "{\"ph\":\"C\",\"ts\":1,\"pid\":1,\"name\":\"m\",\"args\":{\"v\":1}}],"
           "\"traceEvents\":[{\"ph\":\"b\",\"cat\":\"x\",\"id\":1,\"ts\":2,\"pid\":1,\"tid\":1,\"name\":\"a\"},"
           "{\"ph\":\"e\",\"cat\":\"x\",\"id\":1,\"ts\":5,\"pid\":1,\"tid\":1,\"name\":\"a\"}]}", &err);
  CHECK(c!=0);
  if( c ){
    CHECK_INT(c->ev.n, 1); CHECK_INT(c->ev.aDur[0], 3000);
    CHECK_INT(c->nTrack, 2); CHECK_INT(c->ev.aTrack[0], 1); CHECK_INT(c->aTrack[1].kind, PS_TRACK_ASYNC);
    ps_capture_free(c);
  }
  /* a report: the last completed_jobs and the last run section count */
  static const char zRep[] = "{\"completed_jobs\":[{\"name\":\"a\"}],\"run\":{\"x\":1},"
    "\"completed_jobs\":[{\"name\":\"b\",\"name\":\"c\"}],\"run\":{\"y\":2,\"y\":3},"
    "\"schema\":\"newengine.profiler.report.v3\"}";
  c = load_n(zRep, sizeof(zRep)-1, &err);
  CHECK(c!=0);
  if( c ){
    PsOut o;
    CHECK_INT(c->nJob, 1);
    CHECK(ps_job_column(c, 0, PS_JOB_NAME, &o)==PS_OK && o.n==1 && o.z[0]=='c');
    free(o.zFree);
    CHECK_STR(meta_text(c, "run", "x"), "(absent)"); CHECK_STR(meta_text(c, "run", "y"), "3");
    CHECK_STR(meta_text(c, "capture", "jobs"), "1");
    CHECK_STR(meta_text(c, "diagnostic", "duplicate_key_count"), "4");
    CHECK_STR(meta_nth(c, "diagnostic", "duplicate_key", 1, &off), "key \"name\" given again in a job (before at byte 66); the last one is used");
    CHECK_INT(off, 77);        /* counted: the second completed_jobs' '{' is byte 65 */
    ps_capture_free(c);
  }
}

/* newengine numbers beyond the double range: an error naming the byte offset and the key (they
** came out as Inf); a literal longer than 63 characters is read whole (it was cut to 63). */
static void test_jobs_numbers(void){
  PsErr err;
  PsCapture *c = load("{\"completed_jobs\":[{\"elapsed_ms\":1e400}],\"schema\":\"newengine.profiler.report.v3\"}", &err);
  CHECK(c==0); CHECK_STR(err.msg, "byte 33 (line 1, column 34): 'elapsed_ms' 1e400 is out of range (beyond the double range, +/-1.8e308)");
  c = load("{\"completed_jobs\":[{\"metadata\":{\"event\":{\"lane\":-2e308}}}],\"schema\":\"newengine.profiler.report.v3\"}", &err);
  CHECK(c==0); CHECK_STR(err.msg, "byte 48 (line 1, column 49): 'metadata/event/lane' -2e308 is out of range (beyond the double range, +/-1.8e308)");
  c = load("id,status,category,source,elapsed_ms\nj,s,c,x,1e400\n", &err);
  CHECK(c==0); CHECK_STR(err.msg, "byte 45: line 2: 'elapsed_ms' 1e400 is out of range (beyond the double range, +/-1.8e308)");
  char zRep[300];
  snprintf(zRep, sizeof(zRep), "{\"completed_jobs\":[{\"elapsed_ms\":1%070d.5}],\"schema\":\"newengine.profiler.report.v3\"}", 0);
  c = load(zRep, &err);
  CHECK(c!=0);
  if( c ){
    PsOut o;
    CHECK(ps_job_column(c, 0, PS_JOB_ELAPSED_MS, &o)==PS_OK && o.type==PS_META_REAL && o.r==1e70);
    ps_capture_free(c);
  }
  /* a CSV cell "inf" or "NaN" is not a number (strtod took them): NULL */
  c = load("id,status,category,source,elapsed_ms,load\nj,s,c,x,inf,NaN\n", &err);
  CHECK(c!=0);
  if( c ){
    PsOut o;
    CHECK(ps_job_column(c, 0, PS_JOB_ELAPSED_MS, &o)==PS_OK && o.type==0);
    CHECK(ps_job_column(c, 0, PS_JOB_LOAD, &o)==PS_OK && o.type==0);
    ps_capture_free(c);
  }
}

/* ---------------------------------------------------------------- two-thread parse */

extern size_t ps_chrome_parallel_min, ps_chrome_splits_merged, ps_chrome_splits_abandoned, ps_parse_threads;
extern size_t ps_chrome_merge_step;

/* 1 when the two captures hold the same rows, threads, tracks and metadata (strings compared by
** content, since pool ids may differ). */
static int same_capture(PsCapture *a, PsCapture *b, char *zWhy, size_t nWhy){
#define DIFF(...) do{ snprintf(zWhy, nWhy, __VA_ARGS__); return 0; }while(0)
#define SAMESTR(x, y) (ps_pool_get(&a->pool, x).n==ps_pool_get(&b->pool, y).n \
   && (ps_pool_get(&a->pool, x).n==0 || memcmp(ps_pool_get(&a->pool, x).z, ps_pool_get(&b->pool, y).z, ps_pool_get(&a->pool, x).n)==0))
  if( a->ev.n!=b->ev.n ) DIFF("rows %zu vs %zu", a->ev.n, b->ev.n);
  for(size_t r=0; r<a->ev.n; r++){
    PsEvents *x = &a->ev, *y = &b->ev;
    if( x->aTs[r]!=y->aTs[r] || x->aDur[r]!=y->aDur[r] || x->aOff[r]!=y->aOff[r]
     || x->aParent[r]!=y->aParent[r] || x->aDepth[r]!=y->aDepth[r] || x->aPh[r]!=y->aPh[r]
     || x->aFlags[r]!=y->aFlags[r] || x->aThread[r]!=y->aThread[r] || x->aTrack[r]!=y->aTrack[r]
     || (x->aEndOff ? x->aEndOff[r] : 0)!=(y->aEndOff ? y->aEndOff[r] : 0) ) DIFF("row %zu differs", r);
    if( !SAMESTR(x->aName[r], y->aName[r]) || !SAMESTR(x->aCat[r], y->aCat[r]) ) DIFF("row %zu name/cat", r);
    if( ps_capture_link(a, (int32_t)r)!=ps_capture_link(b, (int32_t)r) ) DIFF("row %zu link", r);
  }
  if( a->nThread!=b->nThread || a->nTrack!=b->nTrack ) DIFF("threads/tracks %zu/%zu vs %zu/%zu", a->nThread, a->nTrack, b->nThread, b->nTrack);
  for(size_t t=0; t<a->nThread; t++){
    PsThread *x = &a->aThread[t], *y = &b->aThread[t];
    if( x->pid.type!=y->pid.type || x->pid.i!=y->pid.i || x->tid.type!=y->tid.type || x->tid.i!=y->tid.i
     || !SAMESTR(x->pid.s, y->pid.s) || !SAMESTR(x->tid.s, y->tid.s) || x->track!=y->track
     || !SAMESTR(x->threadName, y->threadName) || !SAMESTR(x->processName, y->processName) ) DIFF("thread %zu", t);
  }
  for(size_t t=0; t<a->nTrack; t++){
    if( a->aTrack[t].kind!=b->aTrack[t].kind || a->aTrack[t].thread!=b->aTrack[t].thread
     || a->aTrack[t].scope!=b->aTrack[t].scope || a->aTrack[t].cpu!=b->aTrack[t].cpu
     || !SAMESTR(a->aTrack[t].name, b->aTrack[t].name) ) DIFF("track %zu", t);
  }
  if( a->nMeta!=b->nMeta ) DIFF("meta rows %zu vs %zu", a->nMeta, b->nMeta);
  for(size_t k=0; k<a->nMeta; k++){
    PsMeta *x = &a->aMeta[k], *y = &b->aMeta[k];
    if( !SAMESTR(x->scope, y->scope) || !SAMESTR(x->key, y->key) || x->type!=y->type || x->i!=y->i
     || x->n!=y->n || (x->n && memcmp(x->z, y->z, x->n)) || x->off!=y->off ) DIFF("meta row %zu", k);
  }
  return 1;
#undef DIFF
#undef SAMESTR
}

static void check_split_equal(const char *z, size_t n, const char *zWhat){
  PsErr e1, e2;
  size_t save = ps_chrome_parallel_min;
  ps_chrome_parallel_min = (size_t)-1;
  PsCapture *a = load_n(z, n, &e1);
  ps_chrome_parallel_min = 0;
  PsCapture *b = load_n(z, n, &e2);
  ps_chrome_parallel_min = save;
  char why[200] = "";
  if( a==0 || b==0 ){
    CHECK(a==0 && b==0);
    if( a==0 && b==0 ){ CHECK_STR(e2.msg, e1.msg); }
    else printf("  (%s: serial %s, split %s)\n", zWhat, a ? "ok" : e1.msg, b ? "ok" : e2.msg);
  }else{
    int same = same_capture(a, b, why, sizeof(why));
    if( !same ) printf("  (%s: %s)\n", zWhat, why);
    CHECK(same);
  }
  ps_capture_free(a); ps_capture_free(b);
}

static void test_split(void){
  /* a trace with every kind of event on both sides of the middle: B/E pairs and async pairs
  ** crossing it, M events late, new threads and tracks in the second half, a diagnostic */
  size_t cap = 1<<20, k = 0;
  char *z = malloc(cap);
  k += (size_t)snprintf(z+k, cap-k, "{\"traceEvents\":[\n");
  for(int i=0; i<3000; i++){
    int tid = 1 + i % 7 + (i > 1500 ? 10 : 0);
    const char *ph = (i%11==0) ? "B" : (i%11==5) ? "E" : (i%13==0) ? "b" : (i%13==7) ? "e" : (i%17==0) ? "C" : "X";
    k += (size_t)snprintf(z+k, cap-k, "%s{\"ph\":\"%s\",\"name\":\"n%d\",\"cat\":\"c%d\",\"pid\":%d,\"tid\":%d,"
                          "\"ts\":%d.%d,\"dur\":%d,\"id\":\"0x%x\",\"args\":{\"i\":%d,\"s\":\"a},{b\"}}",
                          i ? ",\n" : "", ph, i%5, i%3, 1 + i%2, tid, i*10, i%10, 5 + i%7, i%4, i);
    if( i==2000 ) k += (size_t)snprintf(z+k, cap-k, ",{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":12,\"args\":{\"name\":\"late\"}},{}");
    if( i==2500 ) k += (size_t)snprintf(z+k, cap-k, ",{\"name\":\"noph\",\"ts\":1}");
  }
  k += (size_t)snprintf(z+k, cap-k, "],\"displayTimeUnit\":\"ns\"}");
  size_t saveThreads = ps_parse_threads;
  /* 3..7 parts (more than this machine's cores is fine: threads, not cores): every part proven
  ** and merged, the capture exactly the serial one */
  for(size_t parts=3; parts<=7; parts++){
    char what[64];
    snprintf(what, sizeof(what), "generated object, %zu parts", parts);
    ps_parse_threads = parts;
    size_t m1 = ps_chrome_splits_merged;
    check_split_equal(z, k, what);
    CHECK_INT(ps_chrome_splits_merged, m1 + parts - 1);
  }
  ps_parse_threads = 2;                          /* the two-part cases below count one split */
  size_t m0 = ps_chrome_splits_merged, a0 = ps_chrome_splits_abandoned;
  check_split_equal(z, k, "generated object");
  CHECK_INT(ps_chrome_splits_merged, m0 + 1);     /* the split was proven and merged */
  /* the array form, unterminated */
  memset(z, ' ', 15);             /* '{"traceEvents":' -> spaces; the '[' at byte 15 stays */
  size_t kk = k; while( z[kk-1]!=']' ) kk--; kk--;
  check_split_equal(z, kk, "generated array, unterminated");
  CHECK_INT(ps_chrome_splits_merged, m0 + 2);     /* it loads, and its split was merged too */
  /* a split candidate that lies inside a string: the first half must notice and go on alone */
  k = 0;
  k += (size_t)snprintf(z+k, cap-k, "[");
  for(int i=0; i<40; i++) k += (size_t)snprintf(z+k, cap-k, "{\"ph\":\"X\",\"name\":\"a\",\"ts\":%d,\"dur\":1},", i);
  k += (size_t)snprintf(z+k, cap-k, "{\"ph\":\"X\",\"name\":\"");
  for(int i=0; i<200; i++) k += (size_t)snprintf(z+k, cap-k, "},{");
  k += (size_t)snprintf(z+k, cap-k, "\",\"ts\":1,\"dur\":1}");
  for(int i=0; i<40; i++) k += (size_t)snprintf(z+k, cap-k, ",{\"ph\":\"X\",\"name\":\"b\",\"ts\":%d,\"dur\":1}", i);
  k += (size_t)snprintf(z+k, cap-k, "]");
  m0 = ps_chrome_splits_merged;
  check_split_equal(z, k, "candidate inside a string");
  CHECK_INT(ps_chrome_splits_merged, m0);         /* not merged: */
  CHECK_INT(ps_chrome_splits_abandoned, a0 + 1);  /* abandoned, the first half went on alone */
  /* errors in the second half are reported with their offsets */
  memcpy(z + k - 20, "@@@@", 4);
  check_split_equal(z, k, "error in the second half");
  /* with 5 parts: the candidate inside the string abandons the parts after it, the error is the
  ** serial parse's */
  ps_parse_threads = 5;
  check_split_equal(z, k, "error and a string candidate, 5 parts");
  /* a large one: the second part's rows are copied in steps, each step's pages of the part given
  ** back once copied (ch_merge, ps_events_release_rows); 700k rows, so each part has more rows
  ** than one 2 MB unit of its 8-byte columns holds (262,144) */
  {
    size_t nBig = 700000, capBig = nBig*64 + 64, kb = 0;
    char *zb = malloc(capBig);
    kb += (size_t)snprintf(zb+kb, capBig-kb, "[");
    for(size_t i=0; i<nBig; i++){
      kb += (size_t)snprintf(zb+kb, capBig-kb, "%s{\"ph\":\"X\",\"name\":\"n%zu\",\"tid\":%zu,\"ts\":%zu,\"dur\":%zu}",
                             i ? "," : "", i%9, i%3, i, 1 + i%5);
    }
    kb += (size_t)snprintf(zb+kb, capBig-kb, "]");
    ps_parse_threads = 2;
    m0 = ps_chrome_splits_merged;
    check_split_equal(zb, kb, "700k events, 2 parts");
    /* steps of 100,000 rows: a unit is given back while the step after the one that finished
    ** it is copied, so giving back a step too early would zero rows still to be copied */
    size_t saveStep = ps_chrome_merge_step;
    ps_chrome_merge_step = 100000;
    check_split_equal(zb, kb, "700k events, 2 parts, merged in steps of 100,000 rows");
    ps_chrome_merge_step = saveStep;
    CHECK_INT(ps_chrome_splits_merged, m0 + 2);
    free(zb);
  }
  ps_parse_threads = saveThreads;
  free(z);
  /* and the hand-made file */
  FILE *f = fopen("tests/data/basic.json", "rb");
  if( f ){
    char buf[4096]; size_t n = fread(buf, 1, sizeof(buf), f); fclose(f);
    check_split_equal(buf, n, "basic.json");
  }
}

/* ---------------------------------------------------------------- XSpace events in parts */

extern size_t ps_xspace_parallel_min, ps_xspace_batch;

/* Appends the encoded fields of b to the heap buffer out. */
static void big_raw(unsigned char *out, size_t *pn, const Pb *b){
  memcpy(out + *pn, b->z, b->n); *pn += b->n;
}

/* Appends field f (length-delimited, payload p[0..n)) to the heap buffer out. */
static void big_field(unsigned char *out, size_t *pn, unsigned f, const void *p, size_t n){
  Pb h; h.n = 0; pb_var(&h, (uint64_t)f<<3|2); pb_var(&h, n);
  big_raw(out, pn, &h);
  memcpy(out + *pn, p, n); *pn += n;
}

/* Loads z serially, then with batches of 1, 2, 7 and 1000 rows (a big file: 7 and 1000), each
** split into 2, 3 and 5 parts: the same capture, or the same error. */
static void check_xspace_parts(const char *z, size_t n, const char *zWhat){
  size_t saveMin = ps_xspace_parallel_min, saveBatch = ps_xspace_batch, saveThreads = ps_parse_threads;
  PsErr e1, e2;
  ps_xspace_parallel_min = (size_t)-1; ps_xspace_batch = (size_t)-1;
  PsCapture *a = load_n(z, n, &e1);
  static const size_t aBatch[] = { 1, 2, 7, 1000 };
  size_t iBatch0 = n > 100000 ? 2 : 0;      /* (a big file's batches of 1 and 2: a thread per row) */
  static const size_t aThreads[] = { 2, 3, 5 };
  for(size_t i=iBatch0; i<sizeof(aBatch)/sizeof(aBatch[0]); i++){
    for(size_t t=0; t<sizeof(aThreads)/sizeof(aThreads[0]); t++){
      ps_xspace_parallel_min = 0; ps_xspace_batch = aBatch[i]; ps_parse_threads = aThreads[t];
      PsCapture *b = load_n(z, n, &e2);
      char why[200] = "";
      if( a==0 || b==0 ){
        CHECK(a==0 && b==0);
        if( a==0 && b==0 ){ CHECK_STR(e2.msg, e1.msg); }
        else printf("  (%s, batch %zu, %zu parts: serial %s, parts %s)\n", zWhat, aBatch[i], aThreads[t], a ? "ok" : e1.msg, b ? "ok" : e2.msg);
      }else{
        int same = same_capture(a, b, why, sizeof(why));
        if( !same ) printf("  (%s, batch %zu, %zu parts: %s)\n", zWhat, aBatch[i], aThreads[t], why);
        CHECK(same);
      }
      ps_capture_free(b);
    }
  }
  ps_capture_free(a);
  ps_xspace_parallel_min = saveMin; ps_xspace_batch = saveBatch; ps_parse_threads = saveThreads;
}

/* A two-plane XSpace for test_xspace_parts, into zSpace (returns its size): lines with their
** scalars first and last, a timestamp between events, events of every shape (stats,
** num_occurrences, an unknown field that only the general reader takes), sparse metadata ids.
** bad 1: line 0's event 150 has a negative duration_ps and its event 390 a bad XStat (in
** another part when the line is cut in two);
** bad 2: line 2's event 300 has a bad XStat and the line then a timestamp_ns of the wrong wire
** type. */
static size_t build_parts_space(unsigned char *zSpace, int bad){
  size_t cap = 1<<20;
  unsigned char *zPlane = malloc(cap), *zLine = malloc(cap);
  size_t nSpace = 0;
  Pb ev, st, meta, hdr;
  for(int iPlane=0; iPlane<2; iPlane++){
    hdr.n = 0; pb_v(&hdr, 1, 9); pb_s(&hdr, 2, iPlane ? "/host:CPU" : "/device:GPU:0");
    size_t nPlane = 0;
    big_raw(zPlane, &nPlane, &hdr);
    for(int iLine=0; iLine<4; iLine++){
      hdr.n = 0;
      if( iLine!=1 ){ pb_v(&hdr, 1, (uint64_t)(10 + iLine)); pb_s(&hdr, 2, "Stream"); pb_v(&hdr, 3, 1000000 + (uint64_t)iLine); }
      size_t nLine = 0;
      big_raw(zLine, &nLine, &hdr);
      int nEv = iLine==3 ? 3 : 400 + 37*iLine;
      for(int e=0; e<nEv; e++){
        ev.n = 0;
        pb_v(&ev, 1, (uint64_t)(iPlane ? 1 + (e%5)*100000 : 1 + e%5));
        if( e%9==4 ) pb_v(&ev, 5, 3); else pb_v(&ev, 2, (uint64_t)e * 1500 + 499);
        if( bad==1 && iPlane==0 && iLine==0 && e==150 ) pb_v(&ev, 3, (uint64_t)-2000);
        else pb_v(&ev, 3, (uint64_t)(e%13) * 1000 + 500);
        if( e%3==0 ){ st.n = 0; pb_v(&st, 1, 1); pb_v(&st, 3, (uint64_t)e); pb_m(&ev, 4, &st); }
        int bBadStat = iPlane==0 && ((bad==1 && iLine==0 && e==390) || (bad==2 && iLine==2 && e==300));
        if( e%7==0 || bBadStat ){
          st.n = 0; pb_v(&st, 1, 2);
          if( bBadStat ) pb_v(&st, 5, 1);                                /* str_value as a varint */
          else pb_s(&st, 5, "s");
          pb_m(&ev, 4, &st);
        }
        if( e%11==0 ) pb_v(&ev, 15, 1);                                  /* unknown: the general reader */
        big_field(zLine, &nLine, 4, ev.z, ev.n);
        if( iLine==2 && e==200 ){ hdr.n = 0; pb_v(&hdr, 3, 5000); big_raw(zLine, &nLine, &hdr); }
      }
      if( iLine==1 ){ hdr.n = 0; pb_v(&hdr, 3, 777); pb_v(&hdr, 1, 11); pb_s(&hdr, 2, "Late"); big_raw(zLine, &nLine, &hdr); }
      if( bad==2 && iPlane==0 && iLine==2 ){ hdr.n = 0; pb_s(&hdr, 3, "x"); big_raw(zLine, &nLine, &hdr); }
      big_field(zPlane, &nPlane, 3, zLine, nLine);
    }
    for(int k=0; k<5; k++){
      char nm[16]; snprintf(nm, sizeof(nm), "op%d", k);
      uint64_t id = iPlane ? 1 + (uint64_t)k*100000 : 1 + (uint64_t)k;
      meta.n = 0; pb_v(&meta, 1, id); pb_s(&meta, 2, nm);
      hdr.n = 0; pb_entry(&hdr, 4, id, &meta); big_raw(zPlane, &nPlane, &hdr);
    }
    hdr.n = 0; pb_statmeta(&hdr, 1, "flops"); pb_statmeta(&hdr, 2, "label");
    big_raw(zPlane, &nPlane, &hdr);
    big_field(zSpace, &nSpace, 1, zPlane, nPlane);
  }
  free(zPlane); free(zLine);
  return nSpace;
}

/* XSpace events decoded in parts: the same capture, and the same first error, as serially. */
static void test_xspace_parts(void){
  unsigned char *z = malloc(1<<20);
  size_t n = build_parts_space(z, 0);
  PsErr err;
  PsCapture *c = load_n((const char*)z, n, &err);
  CHECK(c!=0);
  if( c ){
    /* 2 planes x (400 + 437 + 474 + 3) events; line 2's timestamp is the last one given (5000);
    ** line 1's scalars come after its events */
    CHECK_INT(c->ev.n, 2*(400 + 437 + 474 + 3));
    CHECK_INT(c->ev.aTs[400 + 437], 5000);                     /* line 2, event 0: 499 ps -> 0 ns */
    CHECK_INT(c->ev.aTs[400 + 1], 777 + 2);                    /* line 1, event 1: 1999 ps -> 2 ns */
    CHECK_INT(c->ev.aDur[400 + 1], 2);                         /* 1500 ps -> 2 ns */
    CHECK_STR(name_of(c, 400 + 1), "op1");
    CHECK_STR(name_of(c, 1314 + 3), "op3");                    /* the host plane's sparse ids */
    CHECK_INT(c->aThread[c->ev.aThread[400]].tid.i, 11);
    ps_capture_free(c);
  }else printf("  (%s)\n", err.msg);
  check_xspace_parts((const char*)z, n, "generated XSpace");
  /* the negative duration comes first in the bytes: it is the error, in every split */
  n = build_parts_space(z, 1);
  Pb ev; ev.n = 0; pb_v(&ev, 1, 1 + 150%5); pb_v(&ev, 2, 150*1500 + 499); pb_v(&ev, 3, (uint64_t)-2000);
  const unsigned char *hit = memmem(z, n, ev.z, ev.n);       /* (the payload starts with field 1) */
  CHECK(hit!=0);
  size_t offBad = hit ? (size_t)(hit - z) : 0;
  c = load_n((const char*)z, n, &err);
  CHECK(c==0);
  char zWant[200];
  snprintf(zWant, sizeof(zWant), "byte %zu: XEvent duration_ps is negative (-2000 ps) in plane '/device:GPU:0' line 'Stream'", offBad);
  CHECK_CONTAINS(err.msg, zWant);           /* (so early in the file that detection hedges) */
  ps_capture_free(c);
  check_xspace_parts((const char*)z, n, "a negative duration, then a bad XStat");
  /* a bad XStat, then a bad line field: the XStat's error, though the line is read first */
  n = build_parts_space(z, 2);
  static const unsigned char aStat[] = { 0x08, 0x02, 0x28, 0x01 }, aLineField[] = { 0x1a, 0x01, 'x' };
  hit = memmem(z, n, aStat, sizeof(aStat));
  const unsigned char *hitLine = hit ? memmem(hit, n - (size_t)(hit - z), aLineField, sizeof(aLineField)) : 0;
  CHECK(hit!=0 && hitLine!=0);
  c = load_n((const char*)z, n, &err);
  CHECK(c==0);
  CHECK_CONTAINS(err.msg, "XStat");
  CHECK(hit && err.off==(int64_t)(hit - z) + 2);             /* str_value's tag */
  ps_capture_free(c);
  check_xspace_parts((const char*)z, n, "a bad XStat, then a bad line field");
  free(z);
  /* real files: the repository's example and the corpus' XSpaces (when ../shared is there) */
  static const char *const azFile[] = {
    "examples/gpu_host.xplane.pb",
    "../shared/corpus/xplane/tpu_inference_2.xplane.pb",
    "../shared/corpus/xplane/tracelens-jax_te_fused_attn-934987a2fc2f.xplane.pb",
    "../shared/corpus/xplane/tracelens-mi300-jax08_gemm-tw003.xplane.pb",
  };
  for(size_t k=0; k<sizeof(azFile)/sizeof(azFile[0]); k++){
    FILE *f = fopen(azFile[k], "rb");
    if( f==0 ){
      char why[300];
      snprintf(why, sizeof(why), "XSpace in parts: %s absent (../shared/corpus absent)", azFile[k]);
      if( k==0 ) CHECK(f!=0); else SKIP(why);
      continue;
    }
    fseek(f, 0, SEEK_END); long nf = ftell(f); fseek(f, 0, SEEK_SET);
    char *zf = malloc((size_t)nf + 1);
    size_t got = fread(zf, 1, (size_t)nf, f); fclose(f);
    CHECK_INT(got, nf);
    check_xspace_parts(zf, got, azFile[k]);
    free(zf);
  }
}

/* A host asking to stop: every parser polls PsSource.xInterrupt every few thousand rows and
** ends with PS_INTERRUPT "interrupted"; nothing is left allocated (ASan run). */
static int always_stop(void *p){ (*(int*)p)++; return 1; }
static void test_interrupt(void){
  PsBuf b; memset(&b, 0, sizeof(b));
  const char *aFmt[] = { "chrome", "timings", "lms", "xspace" };
  for(int f=0; f<4; f++){
    b.n = 0;
    if( f==0 ){
      ps_buf_append(&b, "[", 1);
      for(int i=0; i<20000; i++){ char e[120]; int k = snprintf(e, sizeof(e), "%s{\"ph\":\"X\",\"ts\":%d,\"dur\":1,\"pid\":1,\"tid\":1,\"name\":\"a\"}", i ? "," : "", i*2); ps_buf_append(&b, e, (size_t)k); }
      ps_buf_append(&b, "]", 1);
    }else if( f==1 ){
      ps_buf_append(&b, "Minecraft\n", 10);
      for(int i=0; i<20000; i++){ char e[120]; int k = snprintf(e, sizeof(e), "    t%d Time: 100 Count: 1 Avg: 100 Violations: 0\n", i); ps_buf_append(&b, e, (size_t)k); }
    }else if( f==2 ){
      for(int i=0; i<140000; i++){ char e[40]; int k = snprintf(e, sizeof(e), "%d,1,%d\n", i&1, i); ps_buf_append(&b, e, (size_t)k); }
    }else{
      Pb plane, ev; plane.n = 0;
      static unsigned char big[200000]; size_t nb = 0;
      pb_v(&plane, 1, 1); pb_s(&plane, 2, "/device:GPU:0");
      /* plane: lines with many events, built into a large buffer by hand */
      Pb head; head.n = 0; pb_v(&head, 1, 3);
      memcpy(big, head.z, head.n); nb = head.n;
      for(int i=0; i<9000; i++){ ev.n = 0; pb_v(&ev, 1, 1); pb_v(&ev, 2, (uint64_t)i*10); pb_v(&ev, 3, 5);
        big[nb++] = 0x22; big[nb++] = (unsigned char)ev.n; memcpy(big+nb, ev.z, ev.n); nb += ev.n; }
      /* XSpace{ planes: XPlane{ id, name, lines: XLine{big} } } with varint lengths */
      unsigned char *out = malloc(nb + 64); size_t k = 0;
      unsigned char pl[64]; size_t np = 0;
      memcpy(pl, plane.z, plane.n); np = plane.n;
      size_t lineLen = nb, planeLen = np + 1 + 3 + lineLen;
      out[k++] = 0x0a; out[k++] = (unsigned char)(planeLen|0x80); out[k++] = (unsigned char)((planeLen>>7)|0x80); out[k++] = (unsigned char)(planeLen>>14);
      memcpy(out+k, pl, np); k += np;
      out[k++] = 0x1a; out[k++] = (unsigned char)(lineLen|0x80); out[k++] = (unsigned char)((lineLen>>7)|0x80); out[k++] = (unsigned char)(lineLen>>14);
      memcpy(out+k, big, nb); k += nb;
      ps_buf_append(&b, (const char*)out, k);
      free(out);
    }
    PsSource src; PsErr err; int bU, nCalls = 0;
    CHECK(ps_source_open_blob(&src, b.z, b.n, 0, &err)==PS_OK);
    src.xInterrupt = always_stop; src.pInterruptArg = &nCalls;
    PsCapture *c = ps_capture_load(&src, ps_format_find(aFmt[f]), &err, &bU);
    CHECK(c==0);
    if( c ){ printf("  %s: loaded (%zu rows) despite the interrupt\n", aFmt[f], c->ev.n); ps_capture_free(c); continue; }
    CHECK_INT(err.rc, PS_INTERRUPT);
    CHECK_STR(err.msg, "interrupted");
    CHECK_INT(nCalls, 1);
  }
  ps_buf_free(&b);
}


/* ---------------------------------------------------------------- a mapped file cut short */

#if defined(__SANITIZE_ADDRESS__)
#define PS_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PS_TEST_ASAN 1
#endif
#endif
#ifndef PS_TEST_ASAN
#define PS_TEST_ASAN 0
#endif

/* n bytes, byte i = 'A' + i % 26, written to a new temporary file; its path into zPath. */
static void shrink_file(char *zPath, size_t n){
  strcpy(zPath, "/tmp/ps_shrinkXXXXXX");
  int fd = mkstemp(zPath);
  char *z = malloc(n);
  for(size_t i=0; i<n; i++) z[i] = (char)('A' + i%26);
  CHECK(fd>=0 && write(fd, z, n)==(ssize_t)n);
  close(fd); free(z);
}

/* The guard chains to the handler it replaced: faults outside a registered mapping still reach
** the host's own SIGBUS handler (or the default action). Run first, in children, before this
** process has installed the guard. */
static void on_host_sigbus(int sig){ (void)sig; _exit(42); }
static void test_shrink_chain(void){
  long pg = sysconf(_SC_PAGESIZE);
  for(int k=0; k<2; k++){
    fflush(stdout);
    pid_t pid = fork();
    if( pid==0 ){
      int devnull = open("/dev/null", O_WRONLY);
      dup2(devnull, 2);                                    /* ASan's report of the fault below */
      if( k==0 ) signal(SIGBUS, on_host_sigbus);          /* the host's handler, installed first */
      char zA[64], zB[64];
      shrink_file(zA, 3*pg); shrink_file(zB, 3*pg);
      PsSource src; PsErr err;
      if( ps_source_open_file(&src, zA, 0, &err) || src.pLost==0 ) _exit(10);   /* installs the guard */
      truncate(zA, 1);
      if( src.z[2*pg]!=0 || ps_source_lost(&src)!=(uint64_t)2*pg+1 ) _exit(11);  /* guarded: survives */
      ps_source_close(&src); unlink(zA);
      int fd = open(zB, O_RDONLY);
      volatile char *p = mmap(0, 3*pg, PROT_READ, MAP_PRIVATE, fd, 0);   /* not ours */
      truncate(zB, 1); unlink(zB);
      char c = p[2*pg];                                    /* SIGBUS: the previous disposition */
      _exit(20 + c);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    if( k==0 ){
      CHECK(WIFEXITED(st) && WEXITSTATUS(st)==42);
    }else{
#if PS_TEST_ASAN
      CHECK(WIFEXITED(st) && WEXITSTATUS(st)==1);          /* ASan's own SIGBUS handler reports it */
#else
      CHECK(WIFSIGNALED(st) && WTERMSIG(st)==SIGBUS);
#endif
    }
  }
}

/* Reads past the new end heal into zeros and are recorded (mapguard.c); the bytes still in the
** file read as before; the error names the lowest byte found gone. */
static void test_shrink(void){
  long pg = sysconf(_SC_PAGESIZE);
  size_t n = 4*(size_t)pg + 100;
  char zPath[64];
  shrink_file(zPath, n);
  PsSource src; PsErr err;
  CHECK(ps_source_open_file(&src, zPath, 0, &err)==PS_OK);
  CHECK(src.bMapped && src.pLost!=0);
  CHECK_INT(ps_source_lost(&src), 0);
  CHECK_INT(src.z[2*pg+5], 'A' + (2*pg+5)%26);
  CHECK(truncate(zPath, pg + 10)==0);
  CHECK_INT(((volatile const char*)src.z)[pg+20], 0);       /* the kept page's tail: zeroed, no fault */
  CHECK_INT(ps_mapguard_lost(src.pLost), 0);
  CHECK_INT(((volatile const char*)src.z)[3*pg+7], 0);      /* gone: SIGBUS, healed */
  CHECK_INT(ps_mapguard_lost(src.pLost), 3*pg+7+1);
  CHECK_INT(((volatile const char*)src.z)[2*pg+1], 0);      /* a lower byte: the lowest is kept */
  CHECK_INT(ps_source_lost(&src), 2*pg+1+1);
  CHECK_INT(src.z[5], 'A' + 5);                             /* still in the file */
  CHECK_INT(src.z[pg+9], 'A' + (pg+9)%26);
  char want[200];
  snprintf(want, sizeof(want), "the file shrank while it was being read (another process truncated or "
           "rewrote it): byte %ld of its %zu bytes is gone", 2*pg+1, n);
  CHECK_INT(ps_source_lost_error(&src, &err), PS_ERROR);
  CHECK_STR(err.msg, want);
  ps_source_close(&src);
  unlink(zPath);

  /* cut within the last page: no SIGBUS, but the last byte is now 0 */
  shrink_file(zPath, n);
  CHECK(ps_source_open_file(&src, zPath, 0, &err)==PS_OK);
  CHECK(truncate(zPath, n - 10)==0);
  CHECK_INT(ps_source_lost(&src), n);
  ps_source_close(&src);
  unlink(zPath);

  /* a parse over a file cut short: the load fails with that error, whatever the zeros parsed to */
  PsBuf b; memset(&b, 0, sizeof(b));
  ps_buf_append(&b, "[", 1);
  for(int i=0; i<3000; i++){ char e[120]; int k = snprintf(e, sizeof(e), "%s{\"ph\":\"X\",\"ts\":%d,\"dur\":1,\"pid\":1,\"tid\":1,\"name\":\"a\"}", i ? "," : "", i*2); ps_buf_append(&b, e, (size_t)k); }
  ps_buf_append(&b, "]", 1);
  strcpy(zPath, "/tmp/ps_shrinkXXXXXX");
  int fd = mkstemp(zPath);
  CHECK(write(fd, b.z, b.n)==(ssize_t)b.n);
  close(fd);
  CHECK(ps_source_open_file(&src, zPath, 0, &err)==PS_OK);
  CHECK(truncate(zPath, 3*pg)==0);
  int bU = 0;
  PsCapture *c = ps_capture_load(&src, 0, &err, &bU);
  CHECK(c==0);
  if( c ) ps_capture_free(c);
  snprintf(want, sizeof(want), "byte %ld of its %zu bytes is gone", 3*pg, b.n);
  CHECK_CONTAINS(err.msg, want);
  unlink(zPath);
  ps_buf_free(&b);
}

/* ext/wire/pb.c: the shortest double form, base64, the JSON rules and detection, on bytes written by
** hand here (each expected value is worked out in the comment beside it). */
static char *pb_render(const uint8_t *z, size_t n, const PbMsgDef *d){
  PsBuf b; memset(&b, 0, sizeof(b));
  if( pb_json(z, 0, n, d, &pb_xprof_registry, &b, 0) || ps_buf_append(&b, "", 1) ){ ps_buf_free(&b); return strdup("nomem"); }
  return b.z;
}

/* pb_varint_word against the spec's encoding (7 bits a byte, low group first, the high bit
** saying more follow): every length 1-8 at its edges, and 9- and 10-byte varints (0: the word
** has no last byte); then the readers that use it, at each value, with bytes after the varint
** (they must not be read as its own). */
static void test_pb_varint(void){
  static const uint64_t av[] = { 0, 1, 127, 128, 300, 16383, 16384, 2097151, 2097152, 268435455, 268435456,
    34359738367ull, 34359738368ull, 4398046511103ull, 4398046511104ull, 562949953421311ull, 562949953421312ull,
    72057594037927935ull, 72057594037927936ull, 9223372036854775807ull, 18446744073709551615ull,
    123456789012ull, 987654321ull };
  for(size_t k=0; k<sizeof(av)/sizeof(av[0]); k++){
    uint8_t buf[24]; size_t n = 0;
    uint64_t x = av[k];
    do{ buf[n] = (uint8_t)(x & 0x7F); x >>= 7; if( x ) buf[n] |= 0x80; n++; }while( x );
    memset(buf + n, 0xff, sizeof(buf) - n);               /* continuation bits after it */
    uint64_t v = 7;
    unsigned len = pb_varint_word(buf, 0, sizeof(buf), &v);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__==__ORDER_LITTLE_ENDIAN__
    if( n<=8 ){ CHECK_INT(len, n); CHECK(v==av[k]); }
    else CHECK_INT(len, 0);
#endif
    size_t i = 0; v = 7;
    CHECK(pb_varint(buf, sizeof(buf), &i, &v, "test", 0)==PS_OK && i==n && v==av[k]);
    i = 0; v = 7;                                          /* the message ends right after it */
    CHECK(pb_varint(buf, n, &i, &v, "test", 0)==PS_OK && i==n && v==av[k]);
    if( n>1 ){ i = 0; CHECK(pb_varint(buf, n - 1, &i, &v, "test", 0)==PS_ERROR); }   /* cut short */
  }
}

static void test_pb(void){
  char t[40];
  ps_fmt_double(0.1, 0, t); CHECK_STR(t, "0.1");
  ps_fmt_double(2.977057142857143, 0, t); CHECK_STR(t, "2.977057142857143");   /* needs 16 digits */
  ps_fmt_double(1.0/3, 0, t); CHECK_STR(t, "0.3333333333333333");
  ps_fmt_double(2.2250738585072014e-308, 0, t); CHECK_STR(t, "2.2250738585072014e-308");   /* DBL_MIN: 17 */
  ps_fmt_double((double)0.1f, 1, t); CHECK_STR(t, "0.1");                     /* as a float */
  ps_fmt_double(1.0/0.0, 0, t); CHECK_STR(t, "Infinity");
  ps_fmt_double(-0.0, 0, t); CHECK_STR(t, "-0");
  /* KernelReport: name "k" (0a 01 6b), block_dim packed [32,1,1] (2a 03 20 01 01), grid_dim
  ** unpacked 7 then 2 (30 07 30 02), total_duration_ns 300 (38 ac 02), occupancy_pct 0.5f
  ** (75 00 00 00 3f), field 99 varint 5 (unknown: 98 06 05) */
  static const uint8_t kr[] = { 0x0a,0x01,'k', 0x2a,0x03,0x20,0x01,0x01, 0x30,0x07,0x30,0x02, 0x38,0xac,0x02,
                                0x75,0x00,0x00,0x00,0x3f, 0x98,0x06,0x05 };
  char *z = pb_render(kr, sizeof(kr), &pb_KernelReport);
  CHECK_STR(z, "{\"name\":\"k\",\"registers_per_thread\":0,\"static_shmem_bytes\":0,\"dynamic_shmem_bytes\":0,"
               "\"block_dim\":[32,1,1],\"grid_dim\":[7,2],\"total_duration_ns\":300,\"min_duration_ns\":0,"
               "\"max_duration_ns\":0,\"is_kernel_using_tensor_core\":false,\"is_op_tensor_core_eligible\":false,"
               "\"op_name\":\"\",\"occurrences\":0,\"occupancy_pct\":0.5,\"#99\":5}");
  free(z);
  /* an Any: type_url ".../tensorflow.profiler.StepSummary" is not in the registry -> base64 of
  ** the payload 09 00..00 f0 3f (average 1.0) = "CQAAAAAAAPA/" */
  static const char zUrl[] = "type.googleapis.com/tensorflow.profiler.StepSummary";
  uint8_t any[128]; size_t n = 0;
  any[n++] = 0x42; any[n++] = (uint8_t)(2 + sizeof(zUrl)-1 + 2 + 9);      /* field 8 of IPA */
  any[n++] = 0x0a; any[n++] = (uint8_t)(sizeof(zUrl)-1); memcpy(any+n, zUrl, sizeof(zUrl)-1); n += sizeof(zUrl)-1;
  any[n++] = 0x12; any[n++] = 9; any[n++] = 0x09; memset(any+n, 0, 6); n += 6; any[n++] = 0xf0; any[n++] = 0x3f;
  PsBuf b; memset(&b, 0, sizeof(b));
  CHECK_INT(pb_json_field(any, 0, n, &pb_InputPipelineAnalysisResult, 8, &pb_xprof_registry, &b, 0), PS_OK);
  ps_buf_append(&b, "", 1);
  CHECK_STR(b.z, "{\"@type\":\"type.googleapis.com/tensorflow.profiler.StepSummary\",\"average\":1,"
                 "\"standard_deviation\":0,\"minimum\":0,\"maximum\":0}");   /* StepSummary is registered */
  ps_buf_free(&b);
  /* pb_check: field 6 of TfStatsRecord (a double) sent as a varint, at byte 2 of the record */
  static const uint8_t bad[] = { 0x22, 0x06, 0x0a, 0x04, 0x08, 0x01, 0x30, 0x05 };
  PsErr err; memset(&err, 0, sizeof(err));
  CHECK_INT(pb_check(bad, 0, sizeof(bad), &pb_TfStatsDatabase, &pb_xprof_registry, &err), PS_ERROR);
  CHECK_STR(err.msg, "byte 6: field total_time_in_us of TfStatsRecord has wire type 0, expected 1");
  /* a length past its parent: the record says 9 bytes, the table holds 4 */
  static const uint8_t cut[] = { 0x22, 0x04, 0x0a, 0x09, 0x08, 0x01 };
  CHECK_INT(pb_check(cut, 0, sizeof(cut), &pb_TfStatsDatabase, &pb_xprof_registry, &err), PS_ERROR);
  CHECK_STR(err.msg, "byte 3: length 9 runs past the end of TfStatsTable (2 bytes left)");
  /* detection: a KernelStatsDb and an old-shape Trace both begin with field 1; each fits its own
  ** schema and not the XSpace's (a Trace device entry {key 1, Device{name "d"}} has a varint
  ** where an XPlane has its name) */
  static const uint8_t ks[] = { 0x0a, 0x07, 0x0a, 0x01, 'k', 0x10, 0x20, 0x68, 0x01 };   /* reports {name, registers, occurrences 1 (68 01)} */
  int sc; const PbMsgDef *pf = ps_protobuf_fit((const char*)ks, sizeof(ks), &sc);
  CHECK(pf==&pb_KernelStatsDb); CHECK_INT(sc, 4);                     /* reports, name, registers, occurrences */
  static const uint8_t tr[] = { 0x0a, 0x07, 0x08, 0x01, 0x12, 0x03, 0x0a, 0x01, 'd',
                                0x22, 0x06, 0x08, 0x01, 0x1a, 0x02, 'o', 'p' };   /* + trace_events {device_id 1, name "op"} */
  pf = ps_protobuf_fit((const char*)tr, sizeof(tr), &sc);
  CHECK(pf==&pb_OldTrace);                                                   /* read as xprof_trace */
  CHECK(pb_fit(tr, sizeof(tr), &pb_XSpace, &pb_xprof_registry, 4096) < pb_fit(tr, sizeof(tr), &pb_OldTrace, &pb_xprof_registry, 4096));
  /* an InputPipelineAnalysisResult whose step_details Any holds an InputPipelineAnalysisResult,
  ** 200 deep (hostile: without a limit the check and the JSON recursed until the stack ran out) */
  {
    static const char zIpa[] = "type.googleapis.com/tensorflow.profiler.InputPipelineAnalysisResult";
    size_t cap = 200 * 128 + 64, nIn = 0;
    uint8_t *in = malloc(cap), *out = malloc(cap);
    for(int d=0; d<200 && in && out; d++){
      size_t o = 0, nAny = 2 + (sizeof(zIpa)-1) + 1 + (nIn < 128 ? 1 : 2) + nIn;
      out[o++] = 0x22;                                         /* step_details = 4 */
      if( nAny < 128 ) out[o++] = (uint8_t)nAny; else { out[o++] = (uint8_t)(0x80 | (nAny & 0x7f)); out[o++] = (uint8_t)(nAny >> 7); }
      out[o++] = 0x0a; out[o++] = (uint8_t)(sizeof(zIpa)-1); memcpy(out+o, zIpa, sizeof(zIpa)-1); o += sizeof(zIpa)-1;
      out[o++] = 0x12;                                         /* value */
      if( nIn < 128 ) out[o++] = (uint8_t)nIn; else { out[o++] = (uint8_t)(0x80 | (nIn & 0x7f)); out[o++] = (uint8_t)(nIn >> 7); }
      memcpy(out+o, in, nIn); o += nIn;
      uint8_t *t = in; in = out; out = t; nIn = o;
    }
    memset(&err, 0, sizeof(err));
    CHECK_INT(pb_check(in, 0, nIn, &pb_InputPipelineAnalysisResult, &pb_xprof_registry, &err), PS_ERROR);
    CHECK(strstr(err.msg, "InputPipelineAnalysisResult nested more than 100 messages deep")!=0);
    free(in); free(out);
  }
  /* text is not a protobuf */
  pf = ps_protobuf_fit("Minecraft\n    Full Server Tick Time: 1", 36, &sc);
  CHECK(pf==0);
}

/* The row columns across their allocation regimes (capture.c: malloc below 1 MB, then 2 MB-aligned
** mappings grown by mremap): 700,000 rows added one at a time cross malloc -> mapping for the 8-,
** 4- and 1-byte columns and grow each mapping several times, with the optional columns asked for
** at different sizes. Every value written must read back, and every row never written must hold
** its column's default (aEndOff/aLen 0, aStack/aCpu -1, aWeight 1), including the rows that
** existed before the column was asked for. */
static void test_columns_grow(void){
  PsCapture *cap = ps_capture_new();
  CHECK(cap!=0);
  if( cap==0 ) return;
  const size_t N = 700000;
  int bad = 0;
  for(size_t i=0; i<N && !bad; i++){
    if( i==1000 ) bad |= ps_events_want_endoff(cap)!=PS_OK;
    if( i==5 ) bad |= ps_events_want_len(cap)!=PS_OK;
    if( i==200000 ) bad |= ps_events_want_stack(cap)!=PS_OK;
    if( i==300000 ) bad |= ps_events_want_weight(cap)!=PS_OK;
    if( i==500000 ) bad |= ps_events_want_cpu(cap)!=PS_OK;
    int64_t r = ps_events_add(cap);
    if( r!=(int64_t)i ){ bad = 1; break; }
    PsEvents *e = &cap->ev;
    e->aTs[r] = (int64_t)i*3 - 7; e->aDur[r] = (int64_t)i ^ 0x5555; e->aOff[r] = (uint64_t)i << 20;
    e->aName[r] = (uint32_t)(i*7); e->aCat[r] = (uint32_t)(i+1); e->aThread[r] = (uint32_t)(i%13);
    e->aTrack[r] = (uint32_t)(i%17); e->aParent[r] = (int32_t)i - 1; e->aDepth[r] = (int32_t)(i%5);
    e->aPh[r] = (uint8_t)(i*31); e->aFlags[r] = (uint8_t)(i>>3);
    if( i%3==0 && e->aEndOff ) e->aEndOff[r] = i + 11;
    if( i%4==0 && e->aLen ) e->aLen[r] = (uint32_t)i + 1;
    if( i%5==0 && e->aStack ) e->aStack[r] = (int32_t)i;
    if( i%6==0 && e->aWeight ) e->aWeight[r] = (int64_t)i * 2;
    if( i%7==0 && e->aCpu ) e->aCpu[r] = (int32_t)(i % 64);
  }
  CHECK(!bad);
  CHECK_INT(cap->ev.n, N);
  CHECK(cap->ev.nAlloc >= N);
  size_t nWrong = 0;
  const PsEvents *e = &cap->ev;
  for(size_t i=0; i<cap->ev.n && !bad; i++){
    int ok = e->aTs[i]==(int64_t)i*3 - 7 && e->aDur[i]==((int64_t)i ^ 0x5555) && e->aOff[i]==(uint64_t)i << 20
          && e->aName[i]==(uint32_t)(i*7) && e->aCat[i]==(uint32_t)(i+1) && e->aThread[i]==(uint32_t)(i%13)
          && e->aTrack[i]==(uint32_t)(i%17) && e->aParent[i]==(int32_t)i - 1 && e->aDepth[i]==(int32_t)(i%5)
          && e->aPh[i]==(uint8_t)(i*31) && e->aFlags[i]==(uint8_t)(i>>3)
          && e->aEndOff[i]==(i>=1000 && i%3==0 ? i + 11 : 0)
          && e->aLen[i]==(i>=5 && i%4==0 ? (uint32_t)i + 1 : 0)
          && e->aStack[i]==(i>=200000 && i%5==0 ? (int32_t)i : -1)
          && e->aWeight[i]==(i>=300000 && i%6==0 ? (int64_t)i * 2 : 1)
          && e->aCpu[i]==(i>=500000 && i%7==0 ? (int32_t)(i % 64) : -1);
    if( !ok && nWrong++ < 3 ) printf("  (row %zu reads back wrong)\n", i);
  }
  CHECK_INT(nWrong, 0);
  /* a reserve far past the rows (a mapping grown to 4M rows) keeps them too */
  CHECK_INT(ps_events_reserve(cap, 4000000), PS_OK);
  /* row 699,999: 699999 % 3 == 0 (aEndOff set), % 7 == 6 (aCpu not) */
  CHECK(cap->ev.aTs[N-1]==(int64_t)(N-1)*3 - 7 && cap->ev.aCpu[N-1]==-1 && cap->ev.aEndOff[N-1]==N-1+11);
  ps_capture_free(cap);
}


/* ---------------------------------------------------------------- hash flooding (issue 32) */
/* The keys an attacker who knows the hash picks: every one lands in one slot. The hash before
** issue 32 was public and invertible; it is kept as ps_hash_fixed (for colours), so the test
** inverts it the way the attack did and checks that the generated keys really collide under it
** (the check that makes the input adversarial to the old code), then that the keyed tables take
** bounded work on them: the probes (ps_nProbe) of a load of colliding keys are at most 3x those
** of random keys of the same size. Before the keyed hash, 20k colliding names made the pool
** probe about n^2/2 = 2e8 slots against ~3e4. */

#include "flood.h"

/* Loads a Chrome trace of n X events named names[] (one per name, one thread); returns the
** probes the load made; checks that every name is one distinct row name. */
static uint64_t flood_chrome_names(const char *names, size_t n){
  PsBuf b; memset(&b, 0, sizeof(b));
  ps_buf_append(&b, "[", 1);
  for(size_t i=0; i<n; i++){
    char e[120];
    int k = snprintf(e, sizeof(e), "%s{\"ph\":\"X\",\"name\":\"%.16s\",\"pid\":1,\"tid\":1,\"ts\":%zu,\"dur\":1}",
                     i ? "," : "", names + 16*i, 2*i);
    ps_buf_append(&b, e, (size_t)k);
  }
  ps_buf_append(&b, "]", 1);
  PsErr err;
  uint64_t p0 = ps_nProbe;
  PsCapture *c = load_n(b.z, b.n, &err);
  uint64_t nProbe = ps_nProbe - p0;
  CHECK(c!=0);
  if( c ){
    CHECK_INT(c->ev.n, n);
    size_t nBad = 0;
    for(size_t r=0; r<c->ev.n && r<n; r++){
      PsStr s = ps_pool_get(&c->pool, c->ev.aName[r]);
      if( s.n!=16 || memcmp(s.z, names + 16*r, 16)!=0 ) nBad++;
    }
    CHECK_INT(nBad, 0);
    ps_capture_free(c);
  }
  ps_buf_free(&b);
  return nProbe;
}

/* tids whose thread key (the 48-byte {type, i, s} x 2 of pid 1 and the tid) collides in the low
** 16 bits of the old thread hash (ps_hash_fixed of those words), or random tids; loads a trace
** of one event per tid and returns the probes made; checks one thread per tid. */
static uint64_t flood_chrome_tids(size_t n, int bCollide){
  PsBuf b; memset(&b, 0, sizeof(b));
  ps_buf_append(&b, "[", 1);
  size_t nCollide = 0;
  for(size_t i=0; i<n; i++){
    int64_t tid = fl_tid(bCollide);
    if( bCollide ){
      uint64_t k[6] = { PS_VAL_INT, 1, 0, PS_VAL_INT, (uint64_t)tid, 0 };
      if( (ps_hash_fixed(k, sizeof(k)) & 0xffff)==0 ) nCollide++;
    }
    char e[160];
    int k = snprintf(e, sizeof(e), "%s{\"ph\":\"X\",\"name\":\"x\",\"pid\":1,\"tid\":%lld,\"ts\":%zu,\"dur\":1}",
                     i ? "," : "", (long long)tid, i);
    ps_buf_append(&b, e, (size_t)k);
  }
  ps_buf_append(&b, "]", 1);
  if( bCollide ) CHECK_INT(nCollide, n);     /* every key collides in the old table */
  PsErr err;
  uint64_t p0 = ps_nProbe;
  PsCapture *c = load_n(b.z, b.n, &err);
  uint64_t nProbe = ps_nProbe - p0;
  CHECK(c!=0);
  if( c ){ CHECK_INT(c->nThread, n); ps_capture_free(c); }
  ps_buf_free(&b);
  return nProbe;
}

static void test_hash_flooding(void){
  enum { N = 20000 };
  char *aCollide = malloc(16*N), *aRandom = malloc(16*N);
  CHECK(aCollide && aRandom);
  if( aCollide==0 || aRandom==0 ){ free(aCollide); free(aRandom); return; }
  flood_names(aCollide, N, 1);
  flood_names(aRandom, N, 0);
  size_t nSame = 0;
  for(size_t i=0; i<N; i++) nSame += (ps_hash_fixed(aCollide + 16*i, 16) & 0xffff)==0;
  CHECK_INT(nSame, N);                    /* all in one slot of the old hash's 64k-slot table */
  /* the string pool alone */
  PsPool pool;
  uint64_t aProbe[2];
  for(int r=0; r<2; r++){
    CHECK(ps_pool_init(&pool)==0);
    uint64_t p0 = ps_nProbe;
    const char *a = r ? aRandom : aCollide;
    for(size_t i=0; i<N; i++) ps_pool_intern(&pool, a + 16*i, 16, 0);
    aProbe[r] = ps_nProbe - p0;
    CHECK_INT(pool.n, N + 1);             /* (id 0 is no string) */
    ps_pool_free(&pool);
  }
  CHECK(aProbe[1] >= N);
  CHECK(aProbe[0] <= 3*aProbe[1]);
  if( aProbe[0] > 3*aProbe[1] ) printf("  pool: %llu probes for colliding names, %llu for random\n",
                                       (unsigned long long)aProbe[0], (unsigned long long)aProbe[1]);
  /* through the Chrome reader (names) */
  uint64_t c0 = flood_chrome_names(aCollide, N), c1 = flood_chrome_names(aRandom, N);
  CHECK(c0 <= 3*c1);
  if( c0 > 3*c1 ) printf("  chrome names: %llu probes colliding, %llu random\n", (unsigned long long)c0, (unsigned long long)c1);
  /* the thread table */
  uint64_t t0 = flood_chrome_tids(N, 1), t1 = flood_chrome_tids(N, 0);
  CHECK(t0 <= 3*t1);
  if( t0 > 3*t1 ) printf("  threads: %llu probes colliding, %llu random\n", (unsigned long long)t0, (unsigned long long)t1);
  free(aCollide); free(aRandom);
}

/* The keyed hashes: the same key gives the same value; the seed changes the values (the key
** is used); no slot takes much more than its share of 2^16 consecutive integers or strings. */
static void test_hash_keyed(void){
  CHECK(ps_hash("abc", 3)==ps_hash("abc", 3));
  CHECK(ps_hash_u64(7)==ps_hash_u64(7));
  CHECK(ps_hash_pair(1, 2)!=ps_hash_pair(2, 1));
  CHECK(ps_hash("", 0)!=ps_hash("\0", 1));
  unsigned aCount[256]; memset(aCount, 0, sizeof(aCount));
  for(uint64_t i=0; i<65536; i++) aCount[ps_hash_u64(i << 20) & 255]++;   /* ids 2^20 apart */
  unsigned nMax = 0; for(int i=0; i<256; i++) if( aCount[i]>nMax ) nMax = aCount[i];
  CHECK(nMax < 400);                      /* 256 expected; a multiplicative hash put all in one */
  memset(aCount, 0, sizeof(aCount));
  for(uint64_t i=0; i<65536; i++){ char z[24]; int k = snprintf(z, sizeof(z), "frame%llu", (unsigned long long)i); aCount[ps_hash(z, (size_t)k) & 255]++; }
  nMax = 0; for(int i=0; i<256; i++) if( aCount[i]>nMax ) nMax = aCount[i];
  CHECK(nMax < 400);
}

int main(void){
  test_columns_grow();
  test_shrink_chain();
  test_numbers();
  test_fmt_fixed();
  test_strings();
  test_gzip();
  test_chrome_basic();
  test_chrome_prefixes();
  test_chrome_unmatched_storm();
  test_chrome_process_names_linear();
  test_chrome_span_overflow();
  test_chrome_columns();
  test_text_formats();
  test_xspace();
  test_xspace_field_order();
  test_jobs();
  test_text_repair();
  test_text_rule();
  test_xspace_negative_dur();
  test_duplicate_keys();
  test_jobs_numbers();
  test_interrupt();
  test_split();
  test_xspace_parts();
  test_shrink();
  test_pb_varint();
  test_pb();
  test_hash_keyed();
  test_hash_flooding();
  return tl_done();
}
