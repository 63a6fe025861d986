/*
** fuzz_gzip.c — libFuzzer target for the gzip input path (ext/source.c: ps_gunzip), capped at
** 16 MiB of output so that bombs end in the limit error, not in the fuzzer's RSS limit.
*/
#include "../../ext/source.h"
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size){
  char *out; size_t n; PsErr err;
  if( ps_gunzip(data, size, (uint64_t)16 << 20, &out, &n, &err)==PS_OK ) free(out);
  return 0;
}
