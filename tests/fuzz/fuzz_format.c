/*
** fuzz_format.c — libFuzzer target for one format parser and the capture passes, without SQLite;
** built once per parser with -DFUZZ_FORMAT=ps_format_<name> (build/fuzz_chrome, fuzz_timings,
** fuzz_lms, fuzz_xspace, fuzz_newengine). Jobs are read back through every job column. Every accepted input is also read back through every lazy column, the children
** index, the name/cat order and the flame graph, so those paths see hostile bytes too.
**   make fuzz   (clang -fsanitize=fuzzer,address,undefined)
*/
#include "../../ext/formats.h"
#include "../../ext/jobs.h"
#include "../../ext/flame.h"
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size){
  PsSource src; PsErr err; int bUnsup;
  if( ps_source_open_blob(&src, data, size, (uint64_t)64 << 20, &err) ) return 0;
  PsCapture *cap = ps_capture_load(&src, &FUZZ_FORMAT, &err, &bUnsup);
  if( cap==0 ) return 0;
  for(size_t r=0; r<cap->ev.n && cap->pFormat->xColumn; r++){
    for(int c=PS_COL_ARGS; c<=PS_COL_NUM_OCC; c++){
      PsOut o;
      if( cap->pFormat->xColumn(cap, r, c, &o)==PS_OK ) free(o.zFree);
    }
    (void)ps_capture_link(cap, (int32_t)r);
  }
  for(size_t r=0; r<cap->nJob; r++){
    for(int c=0; c<PS_JOB_NCOL; c++){
      PsOut o;
      if( ps_job_column(cap, r, c, &o)==PS_OK ) free(o.zFree);
    }
  }
  ps_capture_children(cap);
  ps_capture_order_by_str(cap, 0);
  ps_capture_order_by_str(cap, 1);
  {
    /* the flame graph over the hostile tree, in one of its three groupings */
    PsBuf svg; memset(&svg, 0, sizeof(svg));
    PsErr e2;
    (void)ps_flame_svg(cap, (int)(size % 3), "fuzz", &svg, &e2);
    ps_buf_free(&svg);
  }
  ps_capture_free(cap);
  return 0;
}
