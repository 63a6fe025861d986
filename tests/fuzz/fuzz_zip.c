/*
** fuzz_zip.c — libFuzzer target for the ZIP input path (ext/zipsrc.c: ps_unzip_capture through
** minizip from memory), capped at 16 MiB of output so that bombs end in the limit error.
*/
#include "../../ext/source.h"
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size){
  char *out; size_t n; PsErr err; char zMember[128];
  if( ps_unzip_capture(data, size, (uint64_t)16 << 20, &out, &n, zMember, sizeof(zMember), 0, &err)==PS_OK ) free(out);
  return 0;
}
