/*
** xprof.c — readers for the TensorFlow profiler's own result files, the protobufs a TF 2.x
** profile run writes next to the XSpace (plugins/profile/<run>/<host>.<tool>.pb), mapped onto
** the capture model with the field's terms. Schemas: ext/formats/schemas.c; wire reader: ext/wire/pb.c.
**
** Format (name)     message                              rows
**   tf_stats        TfStatsDatabase                      records: one per TfStatsRecord of
**                                                        with_idle, then of without_idle
**   kernel_stats    KernelStatsDb                        records: one per KernelReport
**   input_pipeline  InputPipelineAnalysisResult          events: one per step_details entry;
**                                                        records: one per input_op_details
**   overview_page   OverviewPage                         its input_analysis as input_pipeline;
**                                                        records: analysis.top_device_ops
**   memory_profile  MemoryProfile                        events: a counter row per snapshot
**   xprof_trace     Trace (trace_events_old.proto, and   events: one per TraceEvent
**                   trace_events.proto's newer shape)
** Every record keeps its whole message for the attrs column and every event its message for
** args (pb_json's rules, pb.h); every other field of the file is a profile_metadata row, so
** nothing in the file is lost. Times: TfStatsRecord's µs and the ms of steps and input ops are
** taken as the shortest decimal that reads back as the stored double and scaled exactly to ns
** (half away from zero); ps are rounded to the nearest ns (half away from zero).
**
** Detection: these messages carry no magic number. ps_protobuf_fit() (schemas.c) walks the start of the
** input against each schema (and XSpace's) and picks the one that explains the most of its
** structure (pb_fit); a message that is none of them is not claimed.
**
** The whole file is checked against its schema before any row is made (pb_check), so a
** truncated or corrupt file is an error naming the byte offset and the field, and the lazy
** columns (attrs, args) never meet bytes they cannot read.
*/
#include "formats.h"
#include "../wire/json.h"
#include "../wire/pb.h"
#include "schemas.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Xp {
  PsCapture *cap;
  PsErr *err;
  const uint8_t *z;
  size_t n;
  int32_t thSteps;            /* thread of step rows, -1 before the first */
  size_t offPoll;             /* the offset xp_poll last counted work to */
} Xp;

/* ------------------------------------------------------------------ helpers */

static int xp_intern(Xp *p, const PbField *f, const char *zField, uint32_t *pId){
  if( ps_intern(p->cap, (const char*)p->z + f->off, f->len, (int64_t)f->off, zField, pId) ) return ps_nomem(p->err);
  return PS_OK;
}

/* String field num of message [off, off+len), interned; absent (proto3 leaves "" off the wire)
** it is "", as the message means. */
static int xp_string(Xp *p, size_t off, size_t len, uint32_t num, const char *zField, uint32_t *pId){
  PbField f;
  if( !pb_get(p->z, off, len, num, WT_LEN, &f) ){ f.off = 0; f.len = 0; }
  return xp_intern(p, &f, zField, pId);
}

static int xp_intern_c(Xp *p, const char *z, uint32_t *pId){
  if( ps_intern(p->cap, z, strlen(z), -1, "name", pId) ) return ps_nomem(p->err);
  return PS_OK;
}

/* A double field as exact ns: the shortest decimal of v times 10^scale, half away from zero.
** PS_NULL64 for NaN, infinities and values beyond int64. */
static int64_t xp_ns(double v, int scale){
  static const double aPow[] = { 1, 10, 100, 1e3, 1e4, 1e5, 1e6 };
  if( !isfinite(v) ) return PS_NULL64;
  /* the product in double differs from the decimal's by about an ulp: unless it lies within a
  ** few ulps of a half, both round to the same integer (the decimal route costs a printf) */
  double y = v * aPow[scale];
  if( fabs(y) < 4503599627370496.0 ){                 /* 2^52: a fraction is representable */
    double fl = floor(y), fr = y - fl;
    if( fabs(fr - 0.5) > 8 * fabs(y) * 2.220446049250313e-16 + 1e-300 ){
      return (int64_t)(fr > 0.5 ? fl + 1 : fl);
    }
  }
  char t[40];
  ps_fmt_double(v, 0, t);
  PsDec d; int64_t r;
  if( ps_dec_parse(t, strlen(t), &d) || ps_dec_scale(&d, scale, &r) ) return PS_NULL64;
  return r;
}

/* The last occurrence of field num (wire type wt) in message [off, off+len). */
static int xp_get(const Xp *p, size_t off, size_t len, uint32_t num, int wt, PbField *f){
  return pb_get(p->z, off, len, num, wt, f);
}
static double xp_double(const Xp *p, size_t off, size_t len, uint32_t num){
  PbField f;
  return xp_get(p, off, len, num, WT_I64, &f) ? pb_double(&f) : 0.0;
}
static uint64_t xp_varint(const Xp *p, size_t off, size_t len, uint32_t num){
  PbField f;
  return xp_get(p, off, len, num, WT_VARINT, &f) ? f.v : 0;
}

/* Adds a record row (record_id = its 1-based order in the file, no parent, depth 0). */
static PsRecord *xp_record(Xp *p, uint32_t recordSet, const PbMsgDef *pDef, size_t off, size_t len){
  PsCapture *cap = p->cap;
  if( len > UINT32_MAX ){ ps_err_at(p->err, (int64_t)off, "%s longer than 4 GiB", pDef->zName); return 0; }
  PsRecord *r = ps_record_add(cap);
  if( r==0 ){ ps_nomem(p->err); return 0; }
  r->msgOff = off; r->msgLen = (uint32_t)len;
  r->recordSet = recordSet; r->pMsgDef = pDef;
  return r;
}

/* A JSON metadata value built in b (freed here). */
static int xp_meta_json(Xp *p, const char *zScope, const char *zKey, PsBuf *b, int64_t off){
  char *z = ps_arena_strdup(&p->cap->arena, b->z ? b->z : "", b->n);
  size_t n = b->n;
  ps_buf_free(b);
  if( z==0 || ps_meta_text(p->cap, zScope, zKey, z, n, PS_META_JSON, off) ) return ps_nomem(p->err);
  return PS_OK;
}

/* Field fd of message [off, off+len) as a metadata row (zScope, zKey or the field's name):
** a singular scalar as INT / REAL / TEXT (its default when absent), a message or Any as JSON
** (no row when absent), a repeated field or map as a JSON array / object. */
static int xp_meta_field(Xp *p, const char *zScope, const char *zKey, size_t off, size_t len,
                         const PbMsgDef *pDef, const PbFieldDef *fd){
  PsCapture *cap = p->cap;
  if( zKey==0 ) zKey = fd->zName;
  PbField f;
  int bHave = 0;
  if( !fd->bRepeated ){
    bHave = xp_get(p, off, len, fd->num, pb_type_wt(fd->type), &f);
    int64_t at = bHave ? (int64_t)f.at : -1;
    switch( fd->type ){
      case PB_MESSAGE: case PB_ANY: case PB_BYTES: case PB_ENUM: case PB_FLOAT: break;
      case PB_DOUBLE:
        return ps_meta_real(cap, zScope, zKey, bHave ? pb_double(&f) : 0.0, at) ? ps_nomem(p->err) : PS_OK;
      case PB_STRING: {
        const char *z = bHave ? (const char*)p->z + f.off : "";
        if( ps_meta_text(cap, zScope, zKey, z, bHave ? f.len : 0, PS_META_TEXT, at) ) return ps_nomem(p->err);
        return PS_OK;
      }
      case PB_BOOL:
        return ps_meta_int(cap, zScope, zKey, bHave && f.v ? 1 : 0, at) ? ps_nomem(p->err) : PS_OK;
      case PB_INT32: case PB_SFIXED32:
        return ps_meta_int(cap, zScope, zKey, bHave ? (int64_t)(int32_t)(uint32_t)f.v : 0, at) ? ps_nomem(p->err) : PS_OK;
      case PB_UINT32: case PB_FIXED32:
        return ps_meta_int(cap, zScope, zKey, bHave ? (int64_t)(uint32_t)f.v : 0, at) ? ps_nomem(p->err) : PS_OK;
      case PB_UINT64: case PB_FIXED64:
        if( bHave && f.v > (uint64_t)INT64_MAX ){      /* beyond INTEGER: the exact digits as TEXT */
          return ps_meta_printf(cap, zScope, zKey, at, "%llu", (unsigned long long)f.v) ? ps_nomem(p->err) : PS_OK;
        }
        return ps_meta_int(cap, zScope, zKey, bHave ? (int64_t)f.v : 0, at) ? ps_nomem(p->err) : PS_OK;
      default:                      /* int64, sint64, sfixed64 */
        return ps_meta_int(cap, zScope, zKey, bHave ? (int64_t)f.v : 0, at) ? ps_nomem(p->err) : PS_OK;
    }
    if( !bHave && (fd->type==PB_MESSAGE || fd->type==PB_ANY) ) return PS_OK;
  }
  PsBuf b = {0,0,0};
  if( pb_json_field(p->z, off, len, pDef, fd->num, &pb_xprof_registry, &b, 0) ){ ps_buf_free(&b); return ps_nomem(p->err); }
  return xp_meta_json(p, zScope, zKey, &b, bHave ? (int64_t)f.at : -1);
}

/* Every field of message [off, off+len) but those in aSkip (0-terminated) as metadata. */
static int xp_meta_all(Xp *p, const char *zScope, size_t off, size_t len, const PbMsgDef *pDef, const uint32_t *aSkip){
  for(int k=0; k<pDef->nField; k++){
    const PbFieldDef *fd = &pDef->aField[k];
    int bSkip = 0;
    for(int j=0; aSkip && aSkip[j]; j++) if( aSkip[j]==fd->num ) bSkip = 1;
    if( !bSkip && xp_meta_field(p, zScope, 0, off, len, pDef, fd) ) return PS_ERROR;
  }
  return PS_OK;
}

/* A file forced to a format (the second argument) whose top level holds none of the message's
** fields is another message: an error, not an empty capture. */
static int xp_claim(Xp *p, const PbMsgDef *pDef){
  PbMsg m = { p->z, 0, p->n, pDef->zName };
  PbField f; int rc;
  while( (rc = pb_next(&m, &f, 0))==PS_OK ){
    if( pb_def_field(pDef, f.num) ) return PS_OK;
  }
  if( rc!=3 || p->n==0 ) return PS_OK;     /* damaged bytes: the reader's walk says where */
  char zList[400]; size_t k = 0;
  for(int i=0; i<pDef->nField && k + 64 < sizeof(zList); i++){
    k += (size_t)snprintf(zList+k, sizeof(zList)-k, "%s%u %s", i ? ", " : "", pDef->aField[i].num, pDef->aField[i].zName);
  }
  return ps_err_at(p->err, 0, "none of the fields of %s (%s) is in the file: it is another message",
                   pDef->zName, zList);
}

/* The whole file against its schema (every later pass may then read without checks), and claimed. */
static int xp_check(Xp *p, const PbMsgDef *pDef){
  if( pb_check(p->z, 0, p->n, pDef, &pb_xprof_registry, p->err) ) return PS_ERROR;
  return xp_claim(p, pDef);
}

static int xp_poll(Xp *p, size_t k, size_t off){
  if( (k & 0xFFF)==0 ) ps_source_done_before(&p->cap->src, off);
  /* by bytes: the distance from the last message polled (messages are read in order) */
  size_t nDone = off > p->offPoll ? off - p->offPoll : 1;
  p->offPoll = off;
  if( ps_work(&p->cap->src, nDone) ) return ps_interrupted(p->err);
  return PS_OK;
}

/* ------------------------------------------------------------------ tf_stats */

static int tfs_parse(PsCapture *cap, PsErr *err){
  Xp p = { cap, err, (const uint8_t*)cap->src.z, cap->src.n, -1, 0 };
  /* one walk checks (pb_check_field, field by field) and reads: a record is 33 scalar fields, and
  ** walking it twice cost a third of the load */
  if( xp_claim(&p, &pb_TfStatsDatabase) ) return PS_ERROR;
  PbMsg m = { p.z, 0, p.n, "TfStatsDatabase" };
  PbField f;
  size_t nRec = 0;
  int rcTop;
  while( (rcTop = pb_next(&m, &f, err))==PS_OK ){
    if( (f.num!=4 && f.num!=5) || f.wt!=WT_LEN ){
      if( pb_check_field(p.z, &pb_TfStatsDatabase, &f, &pb_xprof_registry, err) ) return PS_ERROR;
      continue;
    }
    const char *zSet = f.num==4 ? "with_idle" : "without_idle";
    uint32_t set;
    if( xp_intern_c(&p, zSet, &set) ) return PS_NOMEM;
    int64_t nRecords = 0, nOcc = 0, selfSum = 0;
    struct { uint32_t hd; int64_t self; } aHd[16]; int nHd = 0;
    PbMsg t = pb_sub(&m, &f, "TfStatsTable");
    PbField g;
    int rcT;
    size_t aLastOff[4] = {0,0,0,0}, aLastLen[4] = {0,0,0,0}; uint32_t aLastId[4] = {0,0,0,0};
    while( (rcT = pb_next(&t, &g, err))==PS_OK ){
      if( g.num!=1 || g.wt!=WT_LEN ){
        if( pb_check_field(p.z, &pb_TfStatsTable, &g, &pb_xprof_registry, err) ) return PS_ERROR;
        continue;
      }
      if( xp_poll(&p, nRec++, g.off) ) return PS_ERROR;
      PsRecord *r = xp_record(&p, set, &pb_TfStatsRecord, g.off, g.len);
      if( r==0 ) return err->rc;
      /* one pass over the record for the columns (the last occurrence of a field wins) */
      PbField aStr[5]; memset(aStr, 0, sizeof(aStr));
      double tot = 0, self = 0; uint64_t occ = 0;
      PbMsg rm = pb_sub(&t, &g, "TfStatsRecord");
      PbField h;
      int rcR;
      while( (rcR = pb_next(&rm, &h, err))==PS_OK ){
        if( pb_check_field(p.z, &pb_TfStatsRecord, &h, &pb_xprof_registry, err) ) return PS_ERROR;
        switch( h.num ){
          case 2: case 3: case 4: if( h.wt==WT_LEN ) aStr[h.num] = h; break;
          case 5: if( h.wt==WT_VARINT ) occ = h.v; break;
          case 6: if( h.wt==WT_I64 ) tot = pb_double(&h); break;
          case 8: if( h.wt==WT_I64 ) self = pb_double(&h); break;
        }
      }
      if( rcR!=3 ) return PS_ERROR;
      /* host_or_device and op_type repeat from record to record: the previous record's id is
      ** reused when the bytes are the same (a compare instead of a hash and a probe) */
      for(int k=2; k<=3; k++){
        PbField *a = &aStr[k];
        if( aLastLen[k]==a->len && memcmp(p.z + aLastOff[k], p.z + a->off, a->len)==0 && aLastId[k] ){
          if( k==2 ) r->group = aLastId[k]; else r->category = aLastId[k];
          continue;
        }
        uint32_t id;
        if( xp_intern(&p, a, k==2 ? "host_or_device" : "op_type", &id) ) return PS_NOMEM;
        if( k==2 ) r->group = id; else r->category = id;
        aLastOff[k] = a->off; aLastLen[k] = a->len; aLastId[k] = id;
      }
      if( xp_intern(&p, &aStr[4], "op_name", &r->name) ) return PS_NOMEM;
      r->count = (int64_t)occ;
      r->time = xp_ns(tot, 3);
      r->self = xp_ns(self, 3);
      nRecords++;
      nOcc += r->count;
      if( r->self!=PS_NULL64 ){
        __builtin_add_overflow(selfSum, r->self, &selfSum);
        int k = 0;
        while( k<nHd && aHd[k].hd!=r->group ) k++;
        if( k==nHd && nHd<16 ){ aHd[nHd].hd = r->group; aHd[nHd].self = 0; nHd++; }
        if( k<nHd ) __builtin_add_overflow(aHd[k].self, r->self, &aHd[k].self);
      }
    }
    if( rcT!=3 ) return PS_ERROR;
    char zKey[300];
    PbField h;
    snprintf(zKey, sizeof(zKey), "%s.host_tf_pprof_key", zSet);
    const char *zv = xp_get(&p, f.off, f.len, 2, WT_LEN, &h) ? (const char*)p.z + h.off : "";
    if( ps_meta_text(cap, "tf_stats", zKey, zv, *zv ? h.len : 0, PS_META_TEXT, -1) ) return ps_nomem(err);
    snprintf(zKey, sizeof(zKey), "%s.device_tf_pprof_key", zSet);
    zv = xp_get(&p, f.off, f.len, 3, WT_LEN, &h) ? (const char*)p.z + h.off : "";
    if( ps_meta_text(cap, "tf_stats", zKey, zv, *zv ? h.len : 0, PS_META_TEXT, -1) ) return ps_nomem(err);
    snprintf(zKey, sizeof(zKey), "%s.records", zSet);
    if( ps_meta_int(cap, "tf_stats", zKey, nRecords, (int64_t)f.off) ) return ps_nomem(err);
    snprintf(zKey, sizeof(zKey), "%s.occurrences", zSet);
    if( ps_meta_int(cap, "tf_stats", zKey, nOcc, -1) ) return ps_nomem(err);
    snprintf(zKey, sizeof(zKey), "%s.total_self_time_ns", zSet);
    if( ps_meta_int(cap, "tf_stats", zKey, selfSum, -1) ) return ps_nomem(err);
    for(int k=0; k<nHd; k++){
      PsStr s = ps_pool_get(&cap->pool, aHd[k].hd);
      char zHd[3*80+1];
      ps_text_cstr(s.z ? s.z : "", s.n, 80, zHd);
      snprintf(zKey, sizeof(zKey), "%s.%s.total_self_time_ns", zSet, zHd);
      if( ps_meta_int(cap, "tf_stats", zKey, aHd[k].self, -1) ) return ps_nomem(err);
    }
  }
  if( rcTop!=3 ) return PS_ERROR;
  static const uint32_t aSkip[] = { 4, 5, 0 };
  if( xp_meta_all(&p, "tf_stats", 0, p.n, &pb_TfStatsDatabase, aSkip) ) return err->rc;
  return PS_OK;
}

/* ------------------------------------------------------------------ kernel_stats */

static int ks_parse(PsCapture *cap, PsErr *err){
  Xp p = { cap, err, (const uint8_t*)cap->src.z, cap->src.n, -1, 0 };
  if( xp_check(&p, &pb_KernelStatsDb) ) return PS_ERROR;
  uint32_t set;
  if( xp_intern_c(&p, "reports", &set) ) return PS_NOMEM;
  PbMsg m = { p.z, 0, p.n, "KernelStatsDb" };
  PbField f;
  size_t nRec = 0;
  while( pb_next(&m, &f, err)==PS_OK ){
    if( f.num!=1 || f.wt!=WT_LEN ) continue;
    if( xp_poll(&p, nRec++, f.off) ) return PS_ERROR;
    PsRecord *r = xp_record(&p, set, &pb_KernelReport, f.off, f.len);
    if( r==0 ) return err->rc;
    if( xp_string(&p, f.off, f.len, 1, "KernelReport.name", &r->name) ) return PS_NOMEM;
    if( xp_string(&p, f.off, f.len, 12, "KernelReport.op_name", &r->category) ) return PS_NOMEM;
    r->count = (int64_t)(uint32_t)xp_varint(&p, f.off, f.len, 13);
    uint64_t tot = xp_varint(&p, f.off, f.len, 7), mx = xp_varint(&p, f.off, f.len, 9);
    r->time = r->self = tot > (uint64_t)INT64_MAX ? PS_NULL64 : (int64_t)tot;
    r->peak = mx > (uint64_t)INT64_MAX ? PS_NULL64 : (int64_t)mx;
  }
  if( ps_meta_int(cap, "kernel_stats", "reports", (int64_t)nRec, -1) ) return ps_nomem(err);
  return PS_OK;
}

/* ------------------------------------------------------------------ input_pipeline */

/* The rows of an InputPipelineAnalysisResult [off, off+len): a step row per step_details entry,
** a record per input_op_details, the other fields in scope 'input_pipeline'. */
static int ip_rows(Xp *p, size_t off, size_t len){
  PsCapture *cap = p->cap;
  PsErr *err = p->err;
  uint32_t catStep, setOps, hwName = 0, lineName;
  if( xp_intern_c(p, "step", &catStep) || xp_intern_c(p, "input_op_details", &setOps) || xp_intern_c(p, "Steps", &lineName) ) return PS_NOMEM;
  PbField h;
  if( xp_get(p, off, len, 9, WT_LEN, &h) && xp_intern(p, &h, "hardware_type", &hwName) ) return PS_NOMEM;
  if( ps_events_want_len(cap) ) return ps_nomem(err);
  PbMsg m = { p->z, off, off+len, "InputPipelineAnalysisResult" };
  PbField f;
  size_t nSteps = 0, nOps = 0;
  while( pb_next(&m, &f, err)==PS_OK ){
    if( f.wt!=WT_LEN ) continue;
    if( f.num==4 ){
      if( xp_poll(p, nSteps, f.off) ) return PS_ERROR;
      if( p->thSteps<0 ){
        PsValue pid, tid; memset(&pid, 0, sizeof(pid)); memset(&tid, 0, sizeof(tid));
        pid.type = tid.type = PS_VAL_INT;
        int64_t th = ps_thread_get(cap, &pid, &tid);
        if( th<0 ) return ps_nomem(err);
        cap->aThread[th].processName = hwName;
        cap->aThread[th].threadName = lineName;
        p->thSteps = (int32_t)th;
      }
      int64_t r = ps_events_add(cap);
      if( r<0 ) return ps_nomem(err);
      PsEvents *e = &cap->ev;
      e->aThread[r] = (uint32_t)p->thSteps; e->aTrack[r] = cap->aThread[p->thSteps].track;
      e->aTs[r] = PS_NULL64;
      e->aPh[r] = 'X'; e->aCat[r] = catStep;
      e->aOff[r] = f.off; e->aLen[r] = (uint32_t)f.len;
      PbField url, val;
      int bUrl = xp_get(p, f.off, f.len, 1, WT_LEN, &url);
      int bVal = xp_get(p, f.off, f.len, 2, WT_LEN, &val);
      if( bUrl && pb_registry_find(&pb_xprof_registry, (const char*)p->z + url.off, url.len)==&pb_PerGenericStepDetails ){
        size_t vo = bVal ? val.off : 0, vl = bVal ? val.len : 0;
        int32_t num = (int32_t)(uint32_t)xp_varint(p, vo, vl, 1);
        uint32_t name = 0;
        if( xp_get(p, vo, vl, 14, WT_LEN, &h) && h.len && xp_intern(p, &h, "step_name", &name) ) return PS_NOMEM;
        if( name==0 ){
          char t[32]; snprintf(t, sizeof(t), "step %d", (int)num);
          if( xp_intern_c(p, t, &name) ) return PS_NOMEM;
        }
        e->aName[r] = name;
        e->aDur[r] = xp_ns(xp_double(p, vo, vl, 2), 6);
      }else{
        char zUrl[3*100+1];
        ps_text_cstr(bUrl ? (const char*)p->z + url.off : "", bUrl ? url.len : 0, 100, zUrl);
        e->aFlags[r] = PS_EV_FMT1;              /* args: the Any itself */
        if( ps_diag(cap, PS_DIAG_OTHER, (int64_t)f.off, "step_details[%zu] holds '%s', not a "
                    "PerGenericStepDetails: its row has no name or dur; args keep the payload", nSteps, zUrl) ) return ps_nomem(err);
      }
      nSteps++;
    }else if( f.num==6 ){
      if( xp_poll(p, nOps++, f.off) ) return PS_ERROR;
      PsRecord *r = xp_record(p, setOps, &pb_InputOpDetails, f.off, f.len);
      if( r==0 ) return err->rc;
      if( xp_string(p, f.off, f.len, 1, "InputOpDetails.op_name", &r->name) ) return PS_NOMEM;
      if( xp_string(p, f.off, f.len, 7, "InputOpDetails.category", &r->category) ) return PS_NOMEM;
      uint64_t c = xp_varint(p, f.off, f.len, 2);
      r->count = c > (uint64_t)INT64_MAX ? PS_NULL64 : (int64_t)c;
      r->time = xp_ns(xp_double(p, f.off, f.len, 3), 6);
      r->self = xp_ns(xp_double(p, f.off, f.len, 5), 6);
    }
  }
  static const uint32_t aSkip[] = { 4, 6, 0 };
  if( xp_meta_all(p, "input_pipeline", off, len, &pb_InputPipelineAnalysisResult, aSkip) ) return err->rc;
  if( ps_meta_int(cap, "input_pipeline", "steps", (int64_t)nSteps, -1)
   || ps_meta_int(cap, "input_pipeline", "input_op_details", (int64_t)nOps, -1) ) return ps_nomem(err);
  return PS_OK;
}

static int ip_parse(PsCapture *cap, PsErr *err){
  Xp p = { cap, err, (const uint8_t*)cap->src.z, cap->src.n, -1, 0 };
  if( xp_check(&p, &pb_InputPipelineAnalysisResult) ) return PS_ERROR;
  return ip_rows(&p, 0, p.n);
}

/* ------------------------------------------------------------------ overview_page */

static int ov_parse(PsCapture *cap, PsErr *err){
  Xp p = { cap, err, (const uint8_t*)cap->src.z, cap->src.n, -1, 0 };
  if( xp_check(&p, &pb_OverviewPage) ) return PS_ERROR;
  PbField f;
  if( xp_get(&p, 0, p.n, 2, WT_LEN, &f) && ip_rows(&p, f.off, f.len) ) return err->rc;
  if( xp_get(&p, 0, p.n, 3, WT_LEN, &f) ){
    uint32_t set;
    if( xp_intern_c(&p, "top_device_ops", &set) ) return PS_NOMEM;
    PbMsg m = { p.z, f.off, f.off + f.len, "OverviewPageAnalysis" };
    PbField g;
    while( pb_next(&m, &g, err)==PS_OK ){
      if( g.num!=4 || g.wt!=WT_LEN ) continue;
      PsRecord *r = xp_record(&p, set, &pb_OverviewTfOp, g.off, g.len);
      if( r==0 ) return err->rc;
      if( xp_string(&p, g.off, g.len, 1, "OverviewTfOp.name", &r->name) ) return PS_NOMEM;
      if( xp_string(&p, g.off, g.len, 2, "OverviewTfOp.category", &r->category) ) return PS_NOMEM;
    }
  }
  static const uint32_t aSkip[] = { 2, 0 };
  if( xp_meta_all(&p, "overview_page", 0, p.n, &pb_OverviewPage, aSkip) ) return err->rc;
  return PS_OK;
}

/* ------------------------------------------------------------------ memory_profile */

static int mp_parse(PsCapture *cap, PsErr *err){
  Xp p = { cap, err, (const uint8_t*)cap->src.z, cap->src.n, -1, 0 };
  if( xp_check(&p, &pb_MemoryProfile) ) return PS_ERROR;
  if( ps_events_want_len(cap) ) return ps_nomem(err);
  uint32_t aCat[2];
  if( xp_intern_c(&p, "memory_profile_snapshots", &aCat[0]) || xp_intern_c(&p, "sampled_timeline_snapshots", &aCat[1]) ) return PS_NOMEM;
  PbMsg m = { p.z, 0, p.n, "MemoryProfile" };
  PbField f;
  size_t nAll = 0;
  while( pb_next(&m, &f, err)==PS_OK ){
    if( f.num!=1 || f.wt!=WT_LEN ) continue;
    PbField key, val;
    int bKey = xp_get(&p, f.off, f.len, 1, WT_LEN, &key);
    int bVal = xp_get(&p, f.off, f.len, 2, WT_LEN, &val);
    size_t vo = bVal ? val.off : 0, vl = bVal ? val.len : 0;
    uint32_t idName = 0;
    if( bKey && xp_intern(&p, &key, "memory_id", &idName) ) return PS_NOMEM;
    PsValue pid, tid; memset(&pid, 0, sizeof(pid)); memset(&tid, 0, sizeof(tid));
    pid.type = PS_VAL_TEXT; pid.s = idName; tid.type = PS_VAL_INT;
    if( idName==0 ){ pid.type = PS_VAL_INT; }
    int64_t th = ps_thread_get(cap, &pid, &tid);
    if( th<0 ) return ps_nomem(err);
    cap->aThread[th].processName = idName;
    size_t nSnap = 0;
    for(int k=0; k<2; k++){
      int64_t track = ps_track_add(cap, PS_TRACK_COUNTER, (uint32_t)th, aCat[k]);
      if( track<0 ) return ps_nomem(err);
      PbMsg a = { p.z, vo, vo+vl, "PerAllocatorMemoryProfile" };
      PbField g;
      while( pb_next(&a, &g, err)==PS_OK ){
        if( g.num!=(k==0 ? 1u : 5u) || g.wt!=WT_LEN ) continue;
        if( xp_poll(&p, nAll++, g.off) ) return PS_ERROR;
        int64_t r = ps_events_add(cap);
        if( r<0 ) return ps_nomem(err);
        PsEvents *e = &cap->ev;
        e->aTs[r] = pb_ps_to_ns((int64_t)xp_varint(&p, g.off, g.len, 1));
        e->aName[r] = idName; e->aCat[r] = aCat[k];
        e->aThread[r] = (uint32_t)th; e->aTrack[r] = (uint32_t)track;
        e->aPh[r] = 'C';
        e->aOff[r] = g.off; e->aLen[r] = (uint32_t)g.len;
        nSnap++;
      }
    }
    char zScope[3*120+1];
    ps_text_cstr(bKey ? (const char*)p.z + key.off : "", bKey ? key.len : 0, 120, zScope);
    static const uint32_t aSkip[] = { 1, 5, 0 };
    if( xp_meta_all(&p, zScope, vo, vl, &pb_PerAllocatorMemoryProfile, aSkip) ) return err->rc;
    if( ps_meta_int(cap, zScope, "snapshots", (int64_t)nSnap, (int64_t)f.off) ) return ps_nomem(err);
  }
  static const uint32_t aSkip[] = { 1, 0 };
  if( xp_meta_all(&p, "memory_profile", 0, p.n, &pb_MemoryProfile, aSkip) ) return err->rc;
  return PS_OK;
}

/* ------------------------------------------------------------------ xprof_trace */

typedef struct TrName { uint64_t dev, res; uint32_t name; } TrName;
static int trname_cmp(const void *a, const void *b){
  const TrName *x = a, *y = b;
  if( x->dev!=y->dev ) return x->dev < y->dev ? -1 : 1;
  return x->res < y->res ? -1 : (x->res > y->res);
}

/* A uint64 id as a pid / tid: INTEGER, or TEXT digits beyond 2^63 - 1 (exact, never negative). */
static int tr_id(Xp *p, uint64_t v, PsValue *pv){
  memset(pv, 0, sizeof(*pv));
  if( v <= (uint64_t)INT64_MAX ){ pv->type = PS_VAL_INT; pv->i = (int64_t)v; return PS_OK; }
  char t[32]; snprintf(t, sizeof(t), "%llu", (unsigned long long)v);
  pv->type = PS_VAL_TEXT;
  return xp_intern_c(p, t, &pv->s);
}

static uint64_t tr_id_value(const PsCapture *cap, const PsValue *v){
  if( v->type==PS_VAL_INT ) return (uint64_t)v->i;
  PsStr s = ps_pool_get(&cap->pool, v->s);
  uint64_t x = 0;
  for(uint32_t k=0; k<s.n; k++) x = x*10 + (uint64_t)(s.z[k]-'0');
  return x;
}

/* Which shape: the newer trace_events.proto has min_timestamp_ps (varint) as field 4, the old
** one repeated TraceEvent (length-delimited). */
static int tr_is_old(const uint8_t *z, size_t n){
  PbMsg m = { z, 0, n, "Trace" };
  PbField f;
  while( pb_next(&m, &f, 0)==PS_OK ){
    if( f.num==4 ) return f.wt==WT_LEN;
    if( f.num>=5 ) return 0;
  }
  return 1;
}

static int tr_parse(PsCapture *cap, PsErr *err){
  Xp p = { cap, err, (const uint8_t*)cap->src.z, cap->src.n, -1, 0 };
  int bOld = tr_is_old(p.z, p.n);
  const PbMsgDef *pDef = bOld ? &pb_OldTrace : &pb_Trace;
  if( xp_check(&p, pDef) ) return PS_ERROR;
  /* devices (map entries {key, Device{name, device_id, resources{key, Resource{name}}}}):
  ** the names of processes (resource id ~0: the device itself) and threads */
  TrName *aN = 0; size_t nN = 0, nNAlloc = 0;
  PbMsg m = { p.z, 0, p.n, "Trace" };
  PbField f, g, h, k;
  int rc = PS_OK;
  while( pb_next(&m, &f, err)==PS_OK ){
    if( f.num!=1 || f.wt!=WT_LEN ) continue;
    uint64_t dev = xp_varint(&p, f.off, f.len, 1);
    if( !xp_get(&p, f.off, f.len, 2, WT_LEN, &g) ) continue;
    uint32_t nm = 0;
    if( xp_get(&p, g.off, g.len, 1, WT_LEN, &h) && xp_intern(&p, &h, "Device.name", &nm) ){ rc = PS_NOMEM; goto done; }
    if( ps_grow((void**)&aN, sizeof(TrName), &nNAlloc, nN+1) ){ rc = ps_nomem(err); goto done; }
    aN[nN].dev = dev; aN[nN].res = UINT64_MAX; aN[nN].name = nm; nN++;
    PbMsg dm = { p.z, g.off, g.off + g.len, "Device" };
    while( pb_next(&dm, &h, err)==PS_OK ){
      if( h.num!=3 || h.wt!=WT_LEN ) continue;
      uint64_t res = xp_varint(&p, h.off, h.len, 1);
      uint32_t rn = 0;
      if( xp_get(&p, h.off, h.len, 2, WT_LEN, &k) ){
        PbField q;
        if( xp_get(&p, k.off, k.len, 1, WT_LEN, &q) && xp_intern(&p, &q, "Resource.name", &rn) ){ rc = PS_NOMEM; goto done; }
      }
      if( ps_grow((void**)&aN, sizeof(TrName), &nNAlloc, nN+1) ){ rc = ps_nomem(err); goto done; }
      aN[nN].dev = dev; aN[nN].res = res; aN[nN].name = rn; nN++;
    }
  }
  if( nN>1 ) qsort(aN, nN, sizeof(TrName), trname_cmp);
  if( bOld ){
    if( ps_events_want_len(cap) ){ rc = ps_nomem(err); goto done; }
    m.i = 0;
    size_t nEv = 0;
    while( pb_next(&m, &f, err)==PS_OK ){
      if( f.num!=4 || f.wt!=WT_LEN ) continue;
      if( xp_poll(&p, nEv++, f.off) ){ rc = PS_ERROR; goto done; }
      if( f.len > UINT32_MAX ){ rc = ps_err_at(err, (int64_t)f.off, "TraceEvent longer than 4 GiB"); goto done; }
      uint64_t dev = xp_varint(&p, f.off, f.len, 1), res = xp_varint(&p, f.off, f.len, 2);
      uint64_t ts = xp_varint(&p, f.off, f.len, 9), dur = xp_varint(&p, f.off, f.len, 10);
      if( ts > (uint64_t)INT64_MAX || dur > (uint64_t)INT64_MAX ){
        rc = ps_err_at(err, (int64_t)f.off, "TraceEvent %s %llu ps is beyond 2^63", ts > (uint64_t)INT64_MAX ? "timestamp_ps" : "duration_ps",
                       (unsigned long long)(ts > (uint64_t)INT64_MAX ? ts : dur));
        goto done;
      }
      PsValue pid, tid;
      if( tr_id(&p, dev, &pid) || tr_id(&p, res, &tid) ){ rc = PS_NOMEM; goto done; }
      int64_t th = ps_thread_get(cap, &pid, &tid);
      if( th<0 ){ rc = ps_nomem(err); goto done; }
      int64_t r = ps_events_add(cap);
      if( r<0 ){ rc = ps_nomem(err); goto done; }
      PsEvents *e = &cap->ev;
      uint32_t nm = 0;
      if( xp_get(&p, f.off, f.len, 3, WT_LEN, &h) && xp_intern(&p, &h, "TraceEvent.name", &nm) ){ rc = PS_NOMEM; goto done; }
      e->aTs[r] = pb_ps_to_ns((int64_t)ts);
      e->aDur[r] = pb_ps_to_ns((int64_t)dur);
      e->aName[r] = nm;
      e->aThread[r] = (uint32_t)th; e->aTrack[r] = cap->aThread[th].track;
      e->aPh[r] = 'X'; e->aFlags[r] = PS_EV_SLICE;
      e->aOff[r] = f.off; e->aLen[r] = (uint32_t)f.len;
    }
    /* thread and process names from the devices map */
    for(size_t t=0; t<cap->nThread; t++){
      PsThread *th = &cap->aThread[t];
      uint64_t dev = tr_id_value(cap, &th->pid), res = tr_id_value(cap, &th->tid);
      TrName key = { dev, UINT64_MAX, 0 };
      const TrName *x = nN ? bsearch(&key, aN, nN, sizeof(TrName), trname_cmp) : 0;
      if( x ) th->processName = x->name;
      key.res = res;
      x = nN ? bsearch(&key, aN, nN, sizeof(TrName), trname_cmp) : 0;
      if( x ) th->threadName = x->name;
    }
  }
  static const uint32_t aSkipOld[] = { 4, 0 };
  if( xp_meta_all(&p, "xprof_trace", 0, p.n, pDef, bOld ? aSkipOld : 0) ){ rc = err->rc; goto done; }
  if( ps_meta_text(cap, "xprof_trace", "shape", bOld ? "trace_events_old.proto" : "trace_events.proto",
                   bOld ? 22 : 18, PS_META_TEXT, -1) ){ rc = ps_nomem(err); goto done; }
  rc = ps_capture_nest(cap, err);
done:
  free(aN);
  return rc;
}

/* ------------------------------------------------------------------ lazy columns */

static int xp_out(PsBuf *b, PsOut *o, int rc){
  if( rc ){ ps_buf_free(b); return PS_NOMEM; }
  o->type = PS_META_JSON; o->z = b->z ? b->z : "{}"; o->n = b->z ? b->n : 2; o->zFree = b->z;
  return PS_OK;
}

/* args of an event row: a step's PerGenericStepDetails (or the Any it could not unpack), a
** memory snapshot, a TraceEvent's args map. */
static int xp_column(const PsCapture *cap, size_t row, int iCol, PsOut *o){
  memset(o, 0, sizeof(*o));
  const PsEvents *e = &cap->ev;
  const uint8_t *z = (const uint8_t*)cap->src.z;
  size_t off = (size_t)e->aOff[row], len = e->aLen ? e->aLen[row] : 0;
  PsBuf b = {0,0,0};
  const PsFormat *pFmt = cap->pFormat;
  if( iCol==PS_COL_ARGS ){
    if( pFmt==&ps_format_memory_profile ) return xp_out(&b, o, pb_json(z, off, len, &pb_MemoryProfileSnapshot, &pb_xprof_registry, &b, 0));
    if( pFmt==&ps_format_xprof_trace ) return xp_out(&b, o, pb_json_field(z, off, len, &pb_OldTraceEvent, 11, &pb_xprof_registry, &b, 0));
    /* a step: the unpacked PerGenericStepDetails, or the Any it could not unpack */
    return xp_out(&b, o, pb_json_any(z, off, len, &pb_xprof_registry, (e->aFlags[row] & PS_EV_FMT1)!=0, &b, 0));
  }
  if( pFmt==&ps_format_xprof_trace && (iCol==PS_COL_OFFSET_PS || iCol==PS_COL_DURATION_PS) ){
    PbField f;                                  /* timestamp_ps / duration_ps, exact */
    o->type = PS_META_INT;
    o->i = pb_get(z, off, len, iCol==PS_COL_OFFSET_PS ? 9 : 10, WT_VARINT, &f) ? (int64_t)f.v : 0;
  }
  return PS_OK;
}

/* attrs of a record row: its message. */
static int xp_record_column(const PsCapture *cap, size_t row, int iCol, PsOut *o){
  memset(o, 0, sizeof(*o));
  const PsRecord *r = &cap->aRec[row];
  if( iCol!=PS_COL_ATTRS || r->pMsgDef==0 ) return PS_OK;
  PsBuf b = {0,0,0};
  return xp_out(&b, o, pb_json((const uint8_t*)cap->src.z, (size_t)r->msgOff, r->msgLen,
                               (const PbMsgDef*)r->pMsgDef, &pb_xprof_registry, &b, 0));
}

/* ------------------------------------------------------------------ detection */

/* Each format claims the bytes when it is the best fit: 4 when the fit is rich (three or more
** distinct fields), else 2, below the text formats' probes. */
#define XP_PROBE(fn, def1, def2) \
  static int fn(const char *z, size_t n){ \
    int s; \
    const PbMsgDef *p = ps_protobuf_fit(z, n, &s); \
    if( p==0 || (p!=&def1 && p!=&def2) ) return 0; \
    return s>=3 ? 4 : 2; \
  }
XP_PROBE(tfs_probe, pb_TfStatsDatabase, pb_TfStatsDatabase)
XP_PROBE(ks_probe, pb_KernelStatsDb, pb_KernelStatsDb)
XP_PROBE(ip_probe, pb_InputPipelineAnalysisResult, pb_InputPipelineAnalysisResult)
XP_PROBE(ov_probe, pb_OverviewPage, pb_OverviewPage)
XP_PROBE(mp_probe, pb_MemoryProfile, pb_MemoryProfile)
XP_PROBE(tr_probe, pb_OldTrace, pb_Trace)

const PsFormat ps_format_tf_stats       = { "tf_stats", tfs_probe, tfs_parse, 0, xp_record_column };
const PsFormat ps_format_kernel_stats   = { "kernel_stats", ks_probe, ks_parse, 0, xp_record_column };
const PsFormat ps_format_input_pipeline = { "input_pipeline", ip_probe, ip_parse, xp_column, xp_record_column };
const PsFormat ps_format_overview_page  = { "overview_page", ov_probe, ov_parse, xp_column, xp_record_column };
const PsFormat ps_format_memory_profile = { "memory_profile", mp_probe, mp_parse, xp_column, 0 };
const PsFormat ps_format_xprof_trace    = { "xprof_trace", tr_probe, tr_parse, xp_column, 0 };
