/*
** test_fault.c — allocation-failure injection over every parser (built with -DPS_FAULT_INJECT
** and AddressSanitizer/LeakSanitizer): for each sample capture, a clean load counts its
** allocations N; then for k = 0..N-1 the k-th allocation fails. Every run must end in a NULL
** capture with PS_NOMEM (or a capture, when the failed allocation was optional), never a crash,
** and leak nothing (LeakSanitizer checks at exit). Lazy columns and jobs columns are read
** back under failures too. Prints the number of failure points exercised.
*/
#include "testlib.h"
#include "../../ext/formats/formats.h"
#include "../../ext/formats/jobs.h"
#include <stdio.h>

static char *slurp(const char *zPath, size_t *pn){
  FILE *f = fopen(zPath, "rb");
  if( f==0 ) return 0;
  fseek(f, 0, SEEK_END); long n = ftell(f); fseek(f, 0, SEEK_SET);
  char *z = malloc((size_t)n + 1);
  if( z && fread(z, 1, (size_t)n, f)!=(size_t)n ){ free(z); z = 0; }
  fclose(f);
  if( z ) *pn = (size_t)n;
  return z;
}

/* Loads and reads every lazy column; returns 0 done, 1 out of memory seen, 2 other error. */
static int load_all(const char *z, size_t n){
  PsSource src; PsErr err; int bU;
  if( ps_source_open_blob(&src, z, n, 0, &err) ) return err.rc==PS_NOMEM ? 1 : 2;
  PsCapture *c = ps_capture_load(&src, 0, &err, &bU);
  if( c==0 ) return err.rc==PS_NOMEM ? 1 : 2;
  int nomem = 0;
  for(size_t r=0; r<c->ev.n && r<200 && c->pFormat->xColumn; r++){
    for(int k=PS_COL_ARGS; k<=PS_COL_NUM_OCC; k++){
      PsOut o;
      if( c->pFormat->xColumn(c, r, k, &o)==PS_NOMEM ) nomem = 1; else free(o.zFree);
    }
  }
  for(size_t r=0; r<c->nRec && r<200 && c->pFormat->xRecordColumn; r++){
    PsOut o;
    if( c->pFormat->xRecordColumn(c, r, PS_COL_ATTRS, &o)==PS_NOMEM ) nomem = 1; else free(o.zFree);
  }
  for(size_t r=0; r<c->nJob; r++){
    for(int k=0; k<PS_JOB_NCOL; k++){
      PsOut o;
      if( ps_job_column(c, r, k, &o)==PS_NOMEM ) nomem = 1; else free(o.zFree);
    }
  }
  if( ps_capture_children(c)!=PS_OK ) nomem = 1;
  ps_capture_free(c);
  return nomem;
}

int main(void){
  static const char *azFile[] = {
    "tests/data/basic.json", "tests/data/basic.json.gz", "examples/server_timings.txt",
    "examples/lms_markers.csv", "examples/gpu_host.xplane.pb", "tests/data/jobs_report.json",
    "tests/data/jobs_report.zip", "tests/data/xprof/tf_stats.pb", "tests/data/xprof/kernel_stats.pb",
    "tests/data/xprof/input_pipeline.pb", "tests/data/xprof/overview_page.pb",
    "tests/data/xprof/memory_profile.pb", "tests/data/xprof/trace_old.pb", "tests/data/xprof/trace_new.pb",
    "tests/data/xprof/datatable_overview.json", "tests/data/stacks/pprof_small.pb",
    "tests/data/stacks/chrome_stacks_edge.json", "tests/data/stacks/cpuprofile_edge.cpuprofile",
    "tests/data/stacks/perf_edge.txt", "tests/data/stacks/perf_crlf.txt", "tests/data/stacks/folded_edge.txt",
    "tests/data/stacks/folded_crlf.txt", "tests/data/ftrace/tgid_flags.txt", "tests/data/ftrace/old_forms.txt",
    "tests/data/ftrace/systrace_compressed.html", "tests/data/ftrace/systrace_mixed.html",
    "tests/data/ftrace/system_trace_events.json",
    "tests/data/stacks/cpuprofile_old.cpuprofile", "tests/data/stacks/speedscope_edge.speedscope.json",
    "tests/data/stacks/speedscope_multi.speedscope.json", "tests/data/stacks/chrome_v8_profiles.json",
  };
  long nPoints = 0;
  for(size_t f=0; f<sizeof(azFile)/sizeof(azFile[0]); f++){
    size_t n = 0;
    char *z = slurp(azFile[f], &n);
    if( z==0 ){ printf("SKIP %s (absent)\n", azFile[f]); continue; }
    ps_fi_countdown = -1; ps_fi_count = 0;
    CHECK_INT(load_all(z, n), 0);
    long nAlloc = ps_fi_count;
    int nNomem = 0, nOther = 0, nDone = 0;
    for(long k=0; k<nAlloc; k++){
      ps_fi_countdown = k; ps_fi_count = 0;
      int rc = load_all(z, n);
      if( rc==1 ) nNomem++; else if( rc==2 ) nOther++; else nDone++;
    }
    ps_fi_countdown = -1;
    CHECK_INT(nOther, 0);            /* a failed allocation is never reported as bad input */
    printf("  %s: %ld allocation points: %d out-of-memory, %d completed\n", azFile[f], nAlloc, nNomem, nDone);
    nPoints += nAlloc;
    free(z);
  }
  printf("  %ld allocation-failure points exercised\n", nPoints);
  return tl_done();
}
