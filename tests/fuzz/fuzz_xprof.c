/*
** fuzz_xprof.c — libFuzzer target for the TensorFlow profiler's result protobufs (ext/formats/xprof.c on
** ext/wire/pb.c): the first byte picks the reader (tf_stats, kernel_stats, input_pipeline,
** overview_page, memory_profile, xprof_trace, or detection by content), the rest is the file.
** Every accepted capture is read back through every lazy column, attrs included, and each JSON
** value they give must be one whole JSON value (fuzz_common.h).
**   make fuzz   (clang -fsanitize=fuzzer,address,undefined)
*/
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size){
  static const PsFormat *const ap[] = {
    &ps_format_tf_stats, &ps_format_kernel_stats, &ps_format_input_pipeline,
    &ps_format_overview_page, &ps_format_memory_profile, &ps_format_xprof_trace, 0
  };
  if( size==0 ) return 0;
  const PsFormat *pFormat = ap[data[0] % 7];
  PsSource src; PsErr err;
  if( ps_source_open_blob(&src, data+1, size-1, (uint64_t)64 << 20, &err) ) return 0;
  fuzz_load_and_read(&src, pFormat, size);
  return 0;
}
