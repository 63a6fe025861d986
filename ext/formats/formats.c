/*
** formats.c — format registry, content-based detection and the load pipeline
** (bytes -> parser -> capture). See formats.h.
*/
#define _GNU_SOURCE            /* memmem */
#include "formats.h"
#include "../wire/json.h"
#include "schemas.h"
#include "../wire/pb.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

const PsFormat *const ps_formats[] = {
  &ps_format_chrome,
  &ps_format_timings,
  &ps_format_lms,
  &ps_format_xspace,
  &ps_format_newengine,
  &ps_format_tf_stats,
  &ps_format_kernel_stats,
  &ps_format_input_pipeline,
  &ps_format_overview_page,
  &ps_format_memory_profile,
  &ps_format_xprof_trace,
  &ps_format_xprof_datatable,
  &ps_format_cpuprofile,
  &ps_format_speedscope,
  &ps_format_pprof,
  &ps_format_perf_script,
  &ps_format_folded,
  &ps_format_ftrace,
  0
};

const PsFormat *ps_format_find(const char *zName){
  for(int i=0; ps_formats[i]; i++){
    if( strcmp(ps_formats[i]->zName, zName)==0 ) return ps_formats[i];
  }
  return 0;
}

const PsFormat *ps_format_detect(const char *z, size_t n){
  const PsFormat *pBest = 0;
  int best = 0;
  ps_protobuf_fit_memo(z, n, 1);           /* the protobuf probes share one schema walk */
  for(int i=0; ps_formats[i]; i++){
    int s = ps_formats[i]->xProbe(z, n);
    if( s>best ){ best = s; pBest = ps_formats[i]; }
  }
  ps_protobuf_fit_memo(z, n, 0);
  return pBest;
}

/* The format damaged bytes look most like, when no probe claims them: looser signs than the
** probes' (a first byte, a key, a word), used only to say where such a file breaks. */
static const PsFormat *format_guess(const char *z, size_t n){
  size_t lim = n < 65536 ? n : 65536, i = 0;
  if( n>=2 && (unsigned char)z[0]==0x0a ) return &ps_format_xspace;     /* XSpace field 1 */
  if( memmem(z, lim < 4096 ? lim : 4096, "newengine.profiler", 18) ) return &ps_format_newengine;
  if( memmem(z, lim, "Time: ", 6) && memmem(z, lim, "Count: ", 7) ) return &ps_format_timings;
  if( n>=3 && (unsigned char)z[0]==0xEF && (unsigned char)z[1]==0xBB && (unsigned char)z[2]==0xBF ) i = 3;
  i = ps_json_ws(z, n, i);
  if( i<n && (z[i]=='[' || z[i]=='{') ) return &ps_format_chrome;
  if( n>=2 && z[0]>='0' && z[0]<='2' && z[1]==',' ) return &ps_format_lms;
  return 0;
}

/* The binary formats: their errors name a byte, not a line and column. */
static int is_protobuf(const PsFormat *p){
  return p==&ps_format_xspace || p==&ps_format_tf_stats || p==&ps_format_kernel_stats
      || p==&ps_format_input_pipeline || p==&ps_format_overview_page || p==&ps_format_memory_profile
      || p==&ps_format_xprof_trace || p==&ps_format_pprof;
}

/* What to add to "not a supported capture" for bytes that are a well-formed protobuf message (its
** top-level fields read to the end): that no known schema explains them, rather than a guess. */
static const char *pb_note(const char *z, size_t n){
  /* plain text (every one of the first 256 bytes printable ASCII or a line break) is not taken
  ** for a protobuf, even where its bytes happen to read as fields */
  size_t lim = n < 256 ? n : 256, k;
  for(k=0; k<lim; k++){
    unsigned char c = (unsigned char)z[k];
    if( (c<0x20 && c!='\t' && c!='\n' && c!='\r') || c>=0x7F ) break;
  }
  if( k==lim ) return "";
  /* the fields of the first 64 KiB read without an error (a field cut by that window counts) */
  size_t win = n < 65536 ? n : 65536;
  PbMsg m = { (const uint8_t*)z, 0, win, "" };
  PbField f; int rc, nField = 0;
  while( (rc = pb_next(&m, &f, 0))==PS_OK ) nField++;
  if( (rc!=3 && win==n) || nField==0 ) return "";
  return ": a well-formed protobuf, but none of the messages tried (XSpace, TfStatsDatabase, "
         "KernelStatsDb, InputPipelineAnalysisResult, OverviewPage, MemoryProfile, Trace, pprof Profile)";
}

/* Line and column (1-based; the column counts UTF-8 characters) of byte off of z. Linear in
** off; only run for an error. */
static void line_col(const char *z, size_t off, size_t *pLine, size_t *pCol){
  size_t line = 1, start = 0;
  for(const char *c = z; (c = memchr(c, '\n', (size_t)(z + off - c)))!=0; c++){ line++; start = (size_t)(c - z) + 1; }
  size_t col = 1;
  for(size_t k=start; k<off; k++) col += ((unsigned char)z[k] & 0xC0)!=0x80;
  *pLine = line; *pCol = col;
}

/* Rewrites a parse error of a text format so that it says where: "byte N: x" becomes "byte N
** (line L, column C): x", and an error the reader hit at the end of the input (a string, value
** or event left open) says the input ends early, first: "the input ends inside an event at byte
** 45 (line 2, column 9; cut short?): byte 37 (line 2, column 1): unterminated string". */
static void err_locate(const PsSource *src, const PsFormat *pFormat, PsErr *err){
  if( err->rc!=PS_ERROR || err->off<0 || (uint64_t)err->off > src->n ) return;
  int bText = !is_protobuf(pFormat);
  int bEnd = err->bEnd || (uint64_t)err->off>=src->n;
  const char *zIn = err->zIn;
  char zRest[sizeof(err->msg)], zAt[96] = "", zEnd[sizeof(err->msg)+128] = "", zMsg[2*sizeof(err->msg)];
  const char *m = err->msg;
  if( strncmp(m, "byte ", 5)==0 && (m = strstr(m, ": "))!=0 ) m += 2; else m = err->msg;
  snprintf(zRest, sizeof(zRest), "%s", m);
  if( strncmp(zRest, "line ", 5)==0 ) bText = 0;   /* a CSV reader's message already has its line */
  const char *zWhat = zRest;
  if( bEnd && strncmp(zWhat, "unexpected end of input", 23)==0 ){   /* said first below */
    zWhat += 23;
    if( strncmp(zWhat, ", ", 2)==0 ) zWhat += 2;
    else if( strncmp(zWhat, " inside ", 8)==0 ){ if( zIn==0 ) zIn = zWhat + 8; zWhat = ""; }
  }
  size_t line, col;
  if( bText ){
    line_col(src->z, (size_t)err->off, &line, &col);
    snprintf(zAt, sizeof(zAt), "byte %lld (line %zu, column %zu)", (long long)err->off, line, col);
  }else{
    snprintf(zAt, sizeof(zAt), "byte %lld", (long long)err->off);
  }
  if( bEnd && bText ){
    line_col(src->z, src->n, &line, &col);
    snprintf(zEnd, sizeof(zEnd), "the input ends inside %s at byte %zu (line %zu, column %zu; cut short?)",
             zIn ? zIn : "a value", src->n, line, col);
  }else if( bEnd ){
    snprintf(zEnd, sizeof(zEnd), "the input ends inside %s at byte %zu (cut short?)",
             zIn ? zIn : "a message", src->n);
  }
  if( !bEnd ) snprintf(zMsg, sizeof(zMsg), "%s: %s", zAt, zWhat);
  else if( (uint64_t)err->off>=src->n ) snprintf(zMsg, sizeof(zMsg), "%s%s%s", zEnd, zWhat[0] ? ": " : "", zWhat);
  else snprintf(zMsg, sizeof(zMsg), "%s: %s: %s", zEnd, zAt, zWhat);
  size_t k = strlen(zMsg) < sizeof(err->msg)-1 ? strlen(zMsg) : sizeof(err->msg)-1;
  memcpy(err->msg, zMsg, k); err->msg[k] = 0;
  err->bEnd = (uint8_t)bEnd;
}

static char azList[256];
static void format_list_init(void){
  size_t k = 0;
  for(int i=0; ps_formats[i]; i++){
    size_t l = strlen(ps_formats[i]->zName);
    if( k + l + 3 >= sizeof(azList) ) break;
    if( i ){ azList[k++] = ','; azList[k++] = ' '; }
    memcpy(azList+k, ps_formats[i]->zName, l); k += l;
  }
  azList[k] = 0;
}

const char *ps_format_list(void){
  static pthread_once_t once = PTHREAD_ONCE_INIT;   /* connections in several threads ask */
  pthread_once(&once, format_list_init);
  return azList;
}

/* What a forced format's content must be, for the error of a forced format that does not fit
** (ps_capture_load): the noun, and what its reader found none of. One row per format. */
static const struct { const char *zName, *zWhat, *zNone; } aForced[] = {
  { "chrome",          "a Chrome trace",               "no traceEvents array and no event objects" },
  { "timings",         "a timings report",             "no '<name> Time: N Count: N' record line" },
  { "lms",             "an lms profiler CSV",          "no '<type>,<diff_us>,<label>' line" },
  { "xspace",          "an XSpace",                    "no XPlane" },
  { "newengine",       "a StarProfiler report or jobs CSV", "no job" },
  { "tf_stats",        "a TfStatsDatabase",            "no TfStatsRecord" },
  { "kernel_stats",    "a KernelStatsDb",              "no KernelReport" },
  { "input_pipeline",  "an InputPipelineAnalysisResult", "no step or input op" },
  { "overview_page",   "an OverviewPage",              "no step, op or analysis row" },
  { "memory_profile",  "a MemoryProfile",              "no snapshot or allocation" },
  { "xprof_trace",     "an xprof Trace",               "no trace event" },
  { "xprof_datatable", "a DataTable JSON",             "no table row" },
  { "cpuprofile",      "a V8 CPU profile",             "no nodes array and no head node" },
  { "speedscope",      "a speedscope file",            "no profile with samples or events" },
  { "pprof",           "a pprof Profile",              "no sample and no location" },
  { "perf_script",     "perf script text",             "no sample header line" },
  { "folded",          "folded stacks",                "no 'frame;frame count' line" },
  { "ftrace",          "ftrace text",                  "no event line" },
};

/* PS_ERROR with err "not <what> (format '<name>' was forced): <none>[; the content reads as
** <detected>]" when the format was forced, detection does not pick it for the bytes (another
** format's probe scores higher, or none claims them: a weak claim such as Chrome's for any JSON
** object does not count when a stronger one is there) and the parse made no row of any table
** (events, records, XPlanes, jobs; for Chrome, no event with a 'ph'): the reader found nothing
** of its format there, and an empty table would say nothing. A protobuf format whose parse succeeded counts as found unless another
** format claims the bytes (a sparse message of the schema decodes the same). Else PS_OK. Runs the probes once more (the first 64 KiB or so). */
static int forced_mismatch(const PsCapture *cap, PsErr *err){
  const PsFormat *pFormat = cap->pFormat;
  /* Chrome forced onto another format's JSON reads its objects as events without 'ph' (each a
  ** diagnostic): none with a 'ph' is nothing of a Chrome trace either */
  int bPhless = 0;
  if( cap->ev.n && !cap->nRec && !cap->nPlane && !cap->nJob && strcmp(pFormat->zName, "chrome")==0 ){
    bPhless = 1;
    for(size_t r=0; r<cap->ev.n && bPhless; r++) bPhless = cap->ev.aPh[r]==0;
  }
  if( !bPhless && (cap->ev.n || cap->nRec || cap->nPlane || cap->nJob) ) return PS_OK;
  const PsFormat *pIs = ps_format_detect(cap->src.z, cap->src.n);
  if( pIs==pFormat ) return PS_OK;
  /* a protobuf that decoded under the forced schema without an error and that no other format
  ** claims is a sparse message of it (an empty pprof Profile: only string_table ['']), not
  ** another format's bytes: the lenient readers are the JSON and text ones */
  if( pIs==0 && is_protobuf(pFormat) ) return PS_OK;
  const char *zWhat = pFormat->zName, *zNone = "nothing of that format";
  for(size_t k=0; k<sizeof(aForced)/sizeof(aForced[0]); k++){
    if( strcmp(aForced[k].zName, pFormat->zName)==0 ){ zWhat = aForced[k].zWhat; zNone = aForced[k].zNone; break; }
  }
  if( bPhless ) zNone = "no event has a 'ph'";
  return ps_err(err, "not %s (format '%s' was forced): %s%s%s", zWhat, pFormat->zName, zNone,
                pIs ? "; the content reads as " : "", pIs ? pIs->zName : "");
}

PsCapture *ps_capture_load(PsSource *src, const PsFormat *pFormat, PsErr *err, int *pbUnsupported){
  *pbUnsupported = 0;
  const PsFormat *pGuess = 0;
  int bForced = pFormat!=0;
  if( pFormat==0 && (pFormat = ps_format_detect(src->z, src->n))==0 ){
    if( ps_source_lost_error(src, err)==PS_OK ) pGuess = format_guess(src->z, src->n);
    if( pGuess==0 ){
      if( ps_source_lost(src)==0 ){                  /* not bytes zeroed under the probe */
        *pbUnsupported = 1;
        ps_err(err, "not a supported capture (supported: %s)%s", ps_format_list(), pb_note(src->z, src->n));
      }
      ps_source_close(src);
      return 0;
    }
    pFormat = pGuess;            /* parsed only to say where it breaks */
  }
  PsCapture *cap = ps_capture_new();
  if( cap==0 ){ ps_source_close(src); ps_nomem(err); return 0; }
  cap->src = *src;
  memset(src, 0, sizeof(*src));
  cap->src.abortFlag = 0;
  cap->src.pAbort = &cap->src.abortFlag;
  cap->pFormat = pFormat;
  int rc = ps_meta_text(cap, "capture", "format", pFormat->zName, strlen(pFormat->zName), PS_META_TEXT, -1);
  if( rc==PS_OK ) rc = ps_meta_int(cap, "capture", "bytes", (int64_t)cap->src.n, -1);
  if( rc==PS_OK && (cap->src.bGzip || cap->src.bZip) ) rc = ps_meta_int(cap, "capture", "compressed_bytes", (int64_t)cap->src.nRaw, -1);
  if( rc==PS_OK && cap->src.bZip ) rc = ps_meta_text(cap, "capture", "archive_member", cap->src.zMember, strlen(cap->src.zMember), PS_META_TEXT, -1);
  if( rc==PS_OK && cap->src.bHtml ) rc = ps_meta_int(cap, "capture", "html_bytes", (int64_t)cap->src.nRaw, -1);
  int depthSaved = ps_json_depth_limit;          /* the connection's limit, for this parse only */
  if( cap->src.maxJsonDepth>0 ) ps_json_depth_limit = cap->src.maxJsonDepth;
  if( rc==PS_OK ) rc = pFormat->xParse(cap, err);
  ps_json_depth_limit = depthSaved;
  if( rc==PS_OK && cap->src.zText && !cap->bFtrace ){
    /* a systrace HTML document's ftrace text beside a JSON block that is not a Chrome trace */
    rc = ps_err(err, "the HTML document's JSON block was read as %s, which does not read the document's "
                "%zu bytes of ftrace text beside it (only a Trace Event Format JSON block does)", pFormat->zName, cap->src.nText);
  }
  if( rc==PS_OK && cap->src.zText ) rc = ps_meta_int(cap, "capture", "html_ftrace_text_bytes", (int64_t)cap->src.nText, -1);
  if( rc==PS_OK ) rc = ps_diag_finish(cap);
  if( rc==PS_OK && bForced && !ps_source_lost(&cap->src) && (rc = forced_mismatch(cap, err))!=PS_OK ){
    *pbUnsupported = 1;          /* "'x' is not a Chrome trace ...": a directory scan passes over it */
  }
  /* a mapped file cut short by another process read as zeros: whatever the parse made of them,
  ** the capture is not the file's */
  if( ps_source_lost(&cap->src) ) rc = ps_source_lost_error(&cap->src, err);
  else if( rc==PS_ERROR && !cap->src.abortFlag ) err_locate(&cap->src, pFormat, err);
  if( pGuess && rc!=PS_NOMEM && !cap->src.abortFlag && !ps_source_lost(&cap->src) ){
    /* no probe claimed the bytes: still unsupported, but say what they looked like and where
    ** the closest reader stopped (a damaged XSpace, a timings report with a broken line) */
    char zWhy[sizeof(err->msg)];
    snprintf(zWhy, sizeof(zWhy), "%s", rc==PS_OK ? "" : err->msg);
    *pbUnsupported = 1;
    if( rc==PS_OK ) ps_err(err, "not a supported capture (supported: %s)%s", ps_format_list(), pb_note(cap->src.z, cap->src.n));
    else ps_err(err, "not a supported capture (supported: %s); read as %s it fails: %s",
                ps_format_list(), pGuess->zName, zWhy);
    rc = PS_ERROR;
  }
  if( rc!=PS_OK ){
    if( rc==PS_NOMEM ) ps_nomem(err);
    else if( cap->src.abortFlag ) ps_interrupted(err);
    ps_capture_free(cap);
    return 0;
  }
  return cap;
}
