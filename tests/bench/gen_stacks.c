/*
** gen_stacks.c — deterministic sampled-profile generators for make bench:
**   gen_stacks perf N    `perf script` text: N samples of 4 threads, cpu-clock, 1-12 frames each
**                        (leaf first, "addr sym+0xoff (dso)"), a blank line after each sample
**   gen_stacks pprof N   an uncompressed pprof Profile: N samples (values samples/count and
**                        cpu/nanoseconds), 2000 functions, 4000 locations, 1-12 locations each
** Stacks come from a fixed pool of 5000 (so the call tree is realistic: many samples per stack).
** The shapes follow what perf 4.x-6.x and Go's runtime/pprof write (corpus README section 8).
*/
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

static uint64_t g_seed = 88172645463325252ull;
static uint64_t rnd(void){ g_seed ^= g_seed << 13; g_seed ^= g_seed >> 7; g_seed ^= g_seed << 17; return g_seed; }

#define NSTACK 5000
#define NFUNC  2000
#define MAXD   12
static int aDepth[NSTACK];
static int aFrame[NSTACK][MAXD];    /* function index per level, root first */

static void make_stacks(void){
  for(int s=0; s<NSTACK; s++){
    aDepth[s] = 1 + (int)(rnd() % MAXD);
    /* shared prefixes: the first levels come from few functions, the leaves from many */
    for(int d=0; d<aDepth[s]; d++){
      int spread = d<2 ? 4 : d<5 ? 60 : NFUNC;
      aFrame[s][d] = (int)(rnd() % (uint64_t)spread) + (d<2 ? d*4 : 0);
    }
  }
}

/* ---------------------------------------------------------------- perf script */
static void gen_perf(long n){
  static const char *azComm[4] = { "server", "Web Content", "worker", "gc thread" };
  uint64_t t = 198792000000ull;        /* µs */
  for(long i=0; i<n; i++){
    int th = (int)(i % 4);
    int s = (int)(rnd() % NSTACK);
    t += 1000 + rnd() % 50;
    printf("%s %5d/%-5d [%03d] %llu.%06llu:    1001001 cpu-clock: \n", azComm[th], 1000, 1000 + th,
           th, (unsigned long long)(t / 1000000), (unsigned long long)(t % 1000000));
    for(int d=aDepth[s]-1; d>=0; d--){
      int f = aFrame[s][d];
      printf("\t    %12llx func_%d+0x%x (/usr/lib/libbench%d.so)\n",
             (unsigned long long)(0x7f0000000000ull + (uint64_t)f*64), f, (unsigned)(f % 97), f % 7);
    }
    printf("\n");
  }
}

/* ---------------------------------------------------------------- pprof */
static void put_varint(FILE *o, uint64_t v){
  while( v>=0x80 ){ fputc((int)(v & 0x7f) | 0x80, o); v >>= 7; }
  fputc((int)v, o);
}
static int varint_len(uint64_t v){ int k = 1; while( v>=0x80 ){ v >>= 7; k++; } return k; }
static void put_tag(FILE *o, int field, int wt){ put_varint(o, (uint64_t)(field<<3 | wt)); }
static void put_bytes(FILE *o, int field, const void *p, size_t n){
  put_tag(o, field, 2); put_varint(o, n); fwrite(p, 1, n, o);
}

static void gen_pprof(long n){
  FILE *o = stdout;
  char buf[256];
  /* string table: "", "samples", "count", "cpu", "nanoseconds", function names, file names */
  const char *fixed[5] = { "", "samples", "count", "cpu", "nanoseconds" };
  for(int k=0; k<5; k++) put_bytes(o, 6, fixed[k], strlen(fixed[k]));
  for(int f=0; f<NFUNC; f++){ int m = snprintf(buf, sizeof(buf), "main.func%d", f); put_bytes(o, 6, buf, (size_t)m); }
  for(int k=0; k<7; k++){ int m = snprintf(buf, sizeof(buf), "/src/bench/file%d.go", k); put_bytes(o, 6, buf, (size_t)m); }
  /* sample_type (1): {type 1, unit 2}, {type 3, unit 4} */
  unsigned char vt[4];
  vt[0] = 0x08; vt[1] = 1; vt[2] = 0x10; vt[3] = 2; put_bytes(o, 1, vt, 4);
  vt[1] = 3; vt[3] = 4; put_bytes(o, 1, vt, 4);
  /* functions (5): id f+1, name 5+f, system_name 5+f, filename 5+NFUNC+f%7 */
  for(int f=0; f<NFUNC; f++){
    uint64_t id = (uint64_t)f+1, nm = 5+(uint64_t)f, fn = 5+NFUNC+(uint64_t)(f%7);
    size_t len = 1+varint_len(id) + 1+varint_len(nm) + 1+varint_len(nm) + 1+varint_len(fn);
    put_tag(o, 5, 2); put_varint(o, len);
    put_tag(o, 1, 0); put_varint(o, id); put_tag(o, 2, 0); put_varint(o, nm);
    put_tag(o, 3, 0); put_varint(o, nm); put_tag(o, 4, 0); put_varint(o, fn);
  }
  /* locations (4): id l+1, address, line {function_id l%NFUNC+1, line 10+l} */
  for(int l=0; l<2*NFUNC; l++){
    uint64_t id = (uint64_t)l+1, addr = 0x400000 + (uint64_t)l*16, fid = (uint64_t)(l % NFUNC)+1, ln = 10+(uint64_t)l;
    size_t lineLen = 1+varint_len(fid) + 1+varint_len(ln);
    size_t len = 1+varint_len(id) + 1+varint_len(addr) + 1+varint_len(lineLen)+lineLen;
    put_tag(o, 4, 2); put_varint(o, len);
    put_tag(o, 1, 0); put_varint(o, id); put_tag(o, 3, 0); put_varint(o, addr);
    put_tag(o, 4, 2); put_varint(o, lineLen); put_tag(o, 1, 0); put_varint(o, fid); put_tag(o, 2, 0); put_varint(o, ln);
  }
  /* samples (2): packed location_id (leaf first), packed value [count, ns] */
  for(long i=0; i<n; i++){
    int s = (int)(rnd() % NSTACK);
    uint64_t cnt = 1 + rnd() % 3, ns = cnt * 10000000ull;
    size_t locLen = 0;
    uint64_t aLoc[MAXD];
    for(int d=aDepth[s]-1, k=0; d>=0; d--, k++){
      /* the same function at two call sites uses two locations */
      aLoc[k] = (uint64_t)aFrame[s][d] + 1 + (d%2 ? NFUNC : 0);
      locLen += (size_t)varint_len(aLoc[k]);
    }
    size_t valLen = (size_t)(varint_len(cnt) + varint_len(ns));
    size_t len = 1+varint_len(locLen)+locLen + 1+varint_len(valLen)+valLen;
    put_tag(o, 2, 2); put_varint(o, len);
    put_tag(o, 1, 2); put_varint(o, locLen);
    for(int k=0; k<aDepth[s]; k++) put_varint(o, aLoc[k]);
    put_tag(o, 2, 2); put_varint(o, valLen); put_varint(o, cnt); put_varint(o, ns);
  }
  /* time_nanos (9), duration_nanos (10), period_type (11), period (12) */
  put_tag(o, 9, 0); put_varint(o, 1537130863468834518ull);
  put_tag(o, 10, 0); put_varint(o, 1911739507ull);
  vt[1] = 3; vt[3] = 4; put_bytes(o, 11, vt, 4);
  put_tag(o, 12, 0); put_varint(o, 10000000);
}

int main(int argc, char **argv){
  if( argc<3 || (strcmp(argv[1], "perf") && strcmp(argv[1], "pprof")) ){
    fprintf(stderr, "usage: gen_stacks perf|pprof N\n");
    return 2;
  }
  long n = atol(argv[2]);
  make_stacks();
  if( strcmp(argv[1], "perf")==0 ) gen_perf(n); else gen_pprof(n);
  return fflush(stdout)==0 ? 0 : 1;
}
