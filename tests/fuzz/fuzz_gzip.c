/*
** fuzz_gzip.c — libFuzzer target for the gzip input path: ps_gunzip (ext/source/source.c), and, when
** the bytes inflate, the rest of a real load of a gzip BLOB: the inflated bytes in a PsSource
** as ps_source_open_blob leaves them (heap buffer, bGzip, nRaw), detected (ps_format_detect, or
** the loose guess that says where damaged bytes break), parsed and read back like the format
** targets read theirs (fuzz_common.h). Output is capped at 16 MiB so that bombs end in the
** limit error, not in the fuzzer's RSS limit. Every gzip input is also inflated spilled into a
** temporary file (fuzz_spill): the same bytes or the same error.
**
** A custom mutator keeps the parsers within reach: three mutations in four inflate the input,
** mutate the capture inside (with the dictionary) and gzip it again; the fourth, and any input
** that does not inflate, mutates the compressed bytes themselves (the inflater's paths).
*/
#include "fuzz_common.h"
#include <zlib.h>

/* The same stream spilled into an unnamed temporary file (nSpill 1, ext/source/source.c): the same
** bytes, mapped, or the same error as in memory. */
static void fuzz_spill(const unsigned char *data, size_t size, int rc0, const char *out, size_t n, const PsErr *e0){
  PsSource s; PsErr e;
  int rc = ps_source_open_blob_ex(&s, data, size, (uint64_t)16 << 20, 1, 0, 0, &e);
  if( rc!=rc0 ) __builtin_trap();
  if( rc!=PS_OK ){
    if( strcmp(e.msg, e0->msg)!=0 ) __builtin_trap();
    return;
  }
  if( s.n!=n || !s.bGzip || (n && memcmp(s.z, out, n)!=0) ) __builtin_trap();
  ps_source_close(&s);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size){
  char *out; size_t n; PsErr err; PsSource src;
  int rc = ps_gunzip(data, size, (uint64_t)16 << 20, &out, &n, &err);
  if( size>=2 && data[0]==0x1f && data[1]==0x8b ) fuzz_spill(data, size, rc, out, n, &err);
  if( rc!=PS_OK ) return 0;
  memset(&src, 0, sizeof(src));      /* what source.c's unwrap() makes of a gzip BLOB */
  src.z = out; src.n = n; src.bHeap = 1; src.bGzip = 1; src.nRaw = size;
  fuzz_load_and_read(&src, 0, size);   /* src's buffer moves into the capture */
  return 0;
}

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t maxSize);

/* Inflates data, mutates the inflated bytes, deflates them back into data (at most maxSize
** bytes). Returns the new size, or 0 when the input does not inflate (within 4 MiB) or the
** result does not fit. */
static size_t fuzz_gzip_mutate_inside(uint8_t *data, size_t size, size_t maxSize, unsigned seed){
  char *out; size_t n; PsErr err;
  if( ps_gunzip(data, size, (uint64_t)4 << 20, &out, &n, &err)!=PS_OK ) return 0;
  size_t nMax = n + n/2 + 4096;
  char *p = realloc(out, nMax);
  if( p==0 ){ free(out); return 0; }
  n = LLVMFuzzerMutate((uint8_t*)p, n, nMax);
  z_stream zs; memset(&zs, 0, sizeof(zs));
  size_t nOut = 0;
  if( deflateInit2(&zs, (seed>>2) % 10, Z_DEFLATED, 15+16, 8, Z_DEFAULT_STRATEGY)==Z_OK ){
    zs.next_in = (Bytef*)p; zs.avail_in = (uInt)n;
    zs.next_out = data; zs.avail_out = (uInt)maxSize;
    if( deflate(&zs, Z_FINISH)==Z_STREAM_END ) nOut = zs.total_out;
    deflateEnd(&zs);
  }
  free(p);
  return nOut;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t maxSize, unsigned int seed){
  size_t n = 0;
  if( seed % 4 ){
    /* data is overwritten only once deflate succeeds into a copy: a failure leaves it whole */
    uint8_t *tmp = malloc(maxSize ? maxSize : 1);
    if( tmp ){
      memcpy(tmp, data, size);
      n = fuzz_gzip_mutate_inside(tmp, size, maxSize, seed);
      if( n ) memcpy(data, tmp, n);
      free(tmp);
    }
  }
  return n ? n : LLVMFuzzerMutate(data, size, maxSize);
}
