/*
** fuzz_zip.c — libFuzzer target for the ZIP input path (ext/source/zipsrc.c: ps_unzip_capture through
** minizip from memory), capped at 16 MiB of output so that bombs end in the limit error. Inputs
** of odd length take the spill path (an unnamed temporary file, written in chunks), even ones
** memory.
*/
#include "../../ext/source/source.h"
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size){
  PsSpill o = { 0, 0, -1, 0 };
  size_t n; PsErr err; char zMember[128];
  if( ps_unzip_capture(data, size, (uint64_t)16 << 20, size & 1, &o, &n, zMember, sizeof(zMember), 0, 0, &err)==PS_OK ){
    ps_spill_free(&o);
  }
  return 0;
}
