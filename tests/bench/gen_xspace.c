/*
** gen_xspace.c — writes a deterministic XSpace protobuf (.xplane.pb) for the benchmarks.
**
**   gen_xspace N > host.xplane.pb     about N events: 4 device planes x 8 lines, nested events
**                                     (a kernel with 4 stats incl. a kernel_details string, as
**                                     GPU kernels carry, and two children with one stat each),
**                                     stats of every type on events and event metadata, a
**                                     /host:metadata plane with plane stats
** Same N, same bytes (a fixed LCG).
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Buf { unsigned char *z; size_t n, cap; } Buf;
static void need(Buf *b, size_t k){
  if( b->n + k <= b->cap ) return;
  while( b->n + k > b->cap ) b->cap = b->cap ? b->cap*2 : 4096;
  b->z = realloc(b->z, b->cap);
  if( !b->z ){ perror("realloc"); exit(1); }
}
static void var(Buf *b, uint64_t v){ need(b, 10); while( v>=0x80 ){ b->z[b->n++] = (unsigned char)(v|0x80); v >>= 7; } b->z[b->n++] = (unsigned char)v; }
static void fv(Buf *b, unsigned f, uint64_t v){ var(b, (uint64_t)f<<3); var(b, v); }
static void fb(Buf *b, unsigned f, const void *p, size_t n){ var(b, (uint64_t)f<<3|2); var(b, n); need(b, n); memcpy(b->z+b->n, p, n); b->n += n; }
static void fs(Buf *b, unsigned f, const char *z){ fb(b, f, z, strlen(z)); }
static void fm(Buf *b, unsigned f, Buf *sub){ fb(b, f, sub->z, sub->n); sub->n = 0; }
static void fd(Buf *b, unsigned f, double d){ var(b, (uint64_t)f<<3|1); need(b, 8); memcpy(b->z+b->n, &d, 8); b->n += 8; }

static uint64_t s_state = 42;
static uint32_t rnd(void){ s_state = s_state*6364136223846793005ull + 1442695040888963407ull; return (uint32_t)(s_state >> 33); }

static const char *const azOp[] = { "fusion.1", "gemm_fusion_dot", "copy.3", "reduce.7", "all-reduce.2",
  "convolution.4", "transpose.9", "add.12" };

int main(int argc, char **argv){
  long long nWant = argc>1 ? atoll(argv[1]) : 100000;
  Buf out = {0}, plane = {0}, line = {0}, ev = {0}, st = {0}, meta = {0}, ent = {0};
  long long perLine = nWant / 32 / 3 + 1;
  for(int p=0; p<4; p++){
    char name[64]; snprintf(name, sizeof(name), "/device:GPU:%d", p);
    fv(&plane, 1, (uint64_t)p); fs(&plane, 2, name);
    for(int l=0; l<8; l++){
      char ln[64]; snprintf(ln, sizeof(ln), "Stream #%d(Kernel)", l+10);
      fv(&line, 1, (uint64_t)(l+10)); fs(&line, 2, ln); fv(&line, 3, 1700000000000000000ull + (uint64_t)p*1000);
      uint64_t t = 0;
      for(long long e=0; e<perLine; e++){
        uint64_t dur = 100000 + rnd()%5000000;
        /* a kernel and two children inside it */
        fv(&ev, 1, 1 + rnd()%8); fv(&ev, 2, t); fv(&ev, 3, dur);
        fv(&st, 1, 1); fv(&st, 3, rnd()); fm(&ev, 4, &st);                 /* uint64 correlation_id */
        fv(&st, 1, 2); fv(&st, 7, 10 + rnd()%8); fm(&ev, 4, &st);          /* ref hlo_op */
        char kd[96];
        snprintf(kd, sizeof(kd), " grid:%u,1,1 block:256,1,1 private_mem:0 group_mem:%u occ_pct:%u",
                 1 + rnd()%4096, rnd()%65536, rnd()%100);
        fv(&st, 1, 7); fs(&st, 5, kd); fm(&ev, 4, &st);                    /* str kernel_details */
        fv(&st, 1, 4); fd(&st, 2, (double)(rnd()%10000)/100.0); fm(&ev, 4, &st);       /* double */
        fm(&line, 4, &ev);
        fv(&ev, 1, 1 + rnd()%8); fv(&ev, 2, t + 1000); fv(&ev, 3, dur/3);
        fv(&st, 1, 3); fv(&st, 4, (uint64_t)-(int64_t)(rnd()%100)); fm(&ev, 4, &st);   /* int64 */
        fm(&line, 4, &ev);
        fv(&ev, 1, 1 + rnd()%8); fv(&ev, 2, t + 2000 + dur/3); fv(&ev, 3, dur/3);
        fv(&st, 1, 4); fd(&st, 2, (double)(rnd()%1000)/7.0); fm(&ev, 4, &st);          /* double */
        fm(&line, 4, &ev);
        t += dur + 1000 + rnd()%100000;
      }
      fv(&line, 9, t);
      fm(&plane, 3, &line);
    }
    /* event metadata with str and bytes stats; stat metadata (names, and the ref targets) */
    for(int m=1; m<=8; m++){
      fv(&meta, 1, (uint64_t)m); fs(&meta, 2, azOp[m-1]); fs(&meta, 4, azOp[m-1]);
      fv(&st, 1, 5); fs(&st, 5, "XlaModule:jit_step"); fm(&meta, 5, &st);
      fv(&st, 1, 6); fb(&st, 6, "\x08\x01\x12\x04hlo!", 8); fm(&meta, 5, &st);
      fv(&ent, 1, (uint64_t)m); fm(&ent, 2, &meta); fm(&plane, 4, &ent);
    }
    static const char *const azStat[] = { "", "correlation_id", "hlo_op", "stream_delta", "occupancy",
      "tf_op", "hlo_proto", "kernel_details" };
    for(int s=1; s<=7; s++){
      fv(&meta, 1, (uint64_t)s); fs(&meta, 2, azStat[s]); fv(&ent, 1, (uint64_t)s); fm(&ent, 2, &meta); fm(&plane, 5, &ent);
    }
    for(int s=10; s<18; s++){
      fv(&meta, 1, (uint64_t)s); fs(&meta, 2, azOp[s-10]); fv(&ent, 1, (uint64_t)s); fm(&ent, 2, &meta); fm(&plane, 5, &ent);
    }
    fm(&out, 1, &plane);
  }
  fv(&plane, 1, 0); fs(&plane, 2, "/host:metadata");
  fv(&meta, 1, 1); fs(&meta, 2, "device_type"); fv(&ent, 1, 1); fm(&ent, 2, &meta); fm(&plane, 5, &ent);
  fv(&st, 1, 1); fs(&st, 5, "GPU"); fm(&plane, 6, &st);
  fm(&out, 1, &plane);
  fs(&out, 4, "benchhost");
  fwrite(out.z, 1, out.n, stdout);
  return 0;
}
