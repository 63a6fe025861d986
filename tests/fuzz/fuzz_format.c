/*
** fuzz_format.c — libFuzzer target for one format parser and the capture passes, without SQLite;
** built once per parser with -DFUZZ_FORMAT=ps_format_<name> (build/fuzz_chrome, fuzz_timings,
** fuzz_lms, fuzz_xspace, fuzz_newengine). Every accepted input is read back through every lazy
** column, the parent links, every job column, the children index, the name/cat order and the
** flame graph (fuzz_common.h), so those paths see hostile bytes too. Every parse that can be
** split in parts is, however small (a Chrome event array in 2 byte ranges, an XSpace line's
** events in batches of 8 rows in 2 parts), so that the split sees them as well.
**   make fuzz   (clang -fsanitize=fuzzer,address,undefined)
*/
#include "fuzz_common.h"

extern size_t ps_chrome_parallel_min, ps_xspace_parallel_min, ps_xspace_batch, ps_parse_threads;

int LLVMFuzzerInitialize(int *argc, char ***argv){
  (void)argc; (void)argv;
  ps_chrome_parallel_min = 0; ps_xspace_parallel_min = 0; ps_xspace_batch = 8; ps_parse_threads = 2;
  return 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size){
  PsSource src; PsErr err;
  if( ps_source_open_blob(&src, data, size, (uint64_t)64 << 20, &err) ) return 0;
  fuzz_load_and_read(&src, &FUZZ_FORMAT, size);
  return 0;
}
