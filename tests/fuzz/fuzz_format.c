/*
** fuzz_format.c — libFuzzer target for one format parser and the capture passes, without SQLite;
** built once per parser with -DFUZZ_FORMAT=ps_format_<name> (build/fuzz_chrome, fuzz_timings,
** fuzz_lms, fuzz_xspace, fuzz_newengine). Every accepted input is read back through every lazy
** column, the parent links, every job column, the children index, the name/cat order and the
** flame graph (fuzz_common.h), so those paths see hostile bytes too.
**   make fuzz   (clang -fsanitize=fuzzer,address,undefined)
*/
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size){
  PsSource src; PsErr err;
  if( ps_source_open_blob(&src, data, size, (uint64_t)64 << 20, &err) ) return 0;
  fuzz_load_and_read(&src, &FUZZ_FORMAT, size);
  return 0;
}
