/*
** formats.c — format registry, content-based detection and the load pipeline
** (bytes -> parser -> capture). See formats.h.
*/
#include "formats.h"
#include "json.h"

#include <pthread.h>
#include <string.h>

const PsFormat *const ps_formats[] = {
  &ps_format_chrome,
  &ps_format_timings,
  &ps_format_lms,
  &ps_format_xspace,
  &ps_format_newengine,
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
  for(int i=0; ps_formats[i]; i++){
    int s = ps_formats[i]->xProbe(z, n);
    if( s>best ){ best = s; pBest = ps_formats[i]; }
  }
  return pBest;
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

PsCapture *ps_capture_load(PsSource *src, const PsFormat *pFormat, PsErr *err, int *pbUnsupported){
  *pbUnsupported = 0;
  if( pFormat==0 ) pFormat = ps_format_detect(src->z, src->n);
  if( pFormat==0 ){
    if( ps_source_lost_error(src, err)==PS_OK ){      /* not bytes zeroed under the probe */
      *pbUnsupported = 1;
      ps_err(err, "not a supported capture (supported: %s)", ps_format_list());
    }
    ps_source_close(src);
    return 0;
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
  int depthSaved = ps_json_depth_limit;          /* the connection's limit, for this parse only */
  if( cap->src.maxJsonDepth>0 ) ps_json_depth_limit = cap->src.maxJsonDepth;
  if( rc==PS_OK ) rc = pFormat->xParse(cap, err);
  ps_json_depth_limit = depthSaved;
  if( rc==PS_OK ) rc = ps_diag_finish(cap);
  /* a mapped file cut short by another process read as zeros: whatever the parse made of them,
  ** the capture is not the file's */
  if( ps_source_lost(&cap->src) ) rc = ps_source_lost_error(&cap->src, err);
  if( rc!=PS_OK ){
    if( rc==PS_NOMEM ) ps_nomem(err);
    else if( cap->src.abortFlag ) ps_interrupted(err);
    ps_capture_free(cap);
    return 0;
  }
  return cap;
}
