/*
** pb.c — the protobuf wire reader (pb.h): varints and fields with offsets in every error, and
** the schema-driven passes over a described message: check, JSON, fit (detection), field get.
** No generated code and no libprotobuf: the schemas are tables (PbMsgDef) in the readers.
*/
#include "pb.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ wire reader */

int pb_varint_slow(const uint8_t *z, size_t end, size_t *pi, uint64_t *pv, const char *zMsg, PsErr *err){
  size_t i = *pi;
  uint64_t v = 0;
  unsigned len;
  if( (len = pb_varint_word(z, i, end, &v))!=0 ){ *pi = i + len; *pv = v; return PS_OK; }
  for(int k=0; k<10; k++){
    if( i>=end ){
      if( err ) ps_err_at(err, (int64_t)*pi, "truncated varint in %s", zMsg);
      return PS_ERROR;
    }
    uint8_t b = z[i++];
    v |= (uint64_t)(b & 0x7F) << (7*k);
    if( (b & 0x80)==0 ){ *pi = i; *pv = v; return PS_OK; }
  }
  if( err ) ps_err_at(err, (int64_t)*pi, "varint longer than 10 bytes in %s", zMsg);
  return PS_ERROR;
}

int pb_want(const PbField *f, int wt, const char *zField, const char *zMsg, PsErr *err){
  if( f->wt==wt ) return PS_OK;
  return ps_err_at(err, (int64_t)f->at, "field %s of %s has wire type %d, expected %d", zField, zMsg, f->wt, wt);
}

int64_t pb_ps_to_ns(int64_t ps){
  uint64_t a = ps >= 0 ? (uint64_t)ps : 0 - (uint64_t)ps;
  uint64_t q = a / 1000 + (a % 1000 >= 500);
  return ps >= 0 ? (int64_t)q : -(int64_t)q;
}

int pb_get(const uint8_t *z, size_t off, size_t len, uint32_t num, int wt, PbField *pf){
  PbMsg m = { z, off, off+len, "" };
  PbField f; int bFound = 0;
  while( pb_next(&m, &f, 0)==PS_OK ){
    if( f.num==num && f.wt==wt ){ *pf = f; bFound = 1; }
  }
  return bFound;
}

/* ------------------------------------------------------------------ schemas */

static const char *short_name(const PbMsgDef *d){
  if( d->zShort ) return d->zShort;
  const char *z = strrchr(d->zName, '.');
  return z ? z+1 : d->zName;
}

static const PbFieldDef *def_field(const PbMsgDef *d, uint32_t num, int *pIdx){
  /* tables that list fields 1, 2, 3, ... in order (most do) are indexed directly */
  if( num>=1 && num<=(uint32_t)d->nField && d->aField[num-1].num==num ){
    if( pIdx ) *pIdx = (int)num-1;
    return &d->aField[num-1];
  }
  for(int k=0; k<d->nField; k++){
    if( d->aField[k].num==num ){ if( pIdx ) *pIdx = k; return &d->aField[k]; }
  }
  return 0;
}

int pb_type_wt(int t){
  switch( t ){
    case PB_DOUBLE: case PB_FIXED64: case PB_SFIXED64: return WT_I64;
    case PB_FLOAT: case PB_FIXED32: case PB_SFIXED32: return WT_I32;
    case PB_STRING: case PB_BYTES: case PB_MESSAGE: case PB_ANY: return WT_LEN;
    default: return WT_VARINT;
  }
}
static int type_packable(int t){ return pb_type_wt(t)!=WT_LEN; }

const PbMsgDef *pb_registry_find(const PbRegistry *r, const char *zUrl, size_t nUrl){
  if( r==0 ) return 0;
  const char *zSlash = 0;
  for(size_t k=0; k<nUrl; k++) if( zUrl[k]=='/' ) zSlash = zUrl + k;
  const char *zName = zSlash ? zSlash+1 : zUrl;
  size_t nName = nUrl - (size_t)(zName - zUrl);
  for(int k=0; r->ap[k]; k++){
    if( strlen(r->ap[k]->zName)==nName && memcmp(r->ap[k]->zName, zName, nName)==0 ) return r->ap[k];
  }
  return 0;
}

/* The type URL and payload of an Any message [off, off+len) (last occurrences). */
static void any_parts(const uint8_t *z, size_t off, size_t len, PbField *pUrl, int *pbUrl, PbField *pVal, int *pbVal){
  *pbUrl = pb_get(z, off, len, 1, WT_LEN, pUrl);
  *pbVal = pb_get(z, off, len, 2, WT_LEN, pVal);
}

/* ------------------------------------------------------------------ check */

static int check_msg(const uint8_t *z, size_t off, size_t len, const PbMsgDef *d, const PbRegistry *r,
                     const char *zMsg, PsErr *err, int depth);
static int check_field(const uint8_t *z, const PbMsgDef *d, const PbField *f, const PbRegistry *r, PsErr *err, int depth);

/* A packed run of scalars [off, off+len) of type t. */
static int check_packed(const uint8_t *z, size_t off, size_t len, const PbFieldDef *fd, const char *zMsg, PsErr *err){
  int wt = pb_type_wt(fd->type);
  if( wt==WT_I64 || wt==WT_I32 ){
    size_t w = wt==WT_I64 ? 8 : 4;
    if( len % w ) return ps_err_at(err, (int64_t)off, "packed field %s of %s holds %zu bytes, not a multiple of %zu", fd->zName, zMsg, len, w);
    return PS_OK;
  }
  size_t i = off, end = off+len; uint64_t v;
  while( i<end ){
    if( pb_varint(z, end, &i, &v, zMsg, err) ) return PS_ERROR;
  }
  return PS_OK;
}

static int check_any(const uint8_t *z, size_t off, size_t len, const PbRegistry *r, PsErr *err, int depth){
  PbMsg m = { z, off, off+len, "google.protobuf.Any" };
  PbField f; int rc;
  while( (rc = pb_next(&m, &f, err))==PS_OK ){
    if( (f.num==1 || f.num==2) && pb_want(&f, WT_LEN, f.num==1 ? "type_url" : "value", "google.protobuf.Any", err) ) return PS_ERROR;
  }
  if( rc!=3 ) return rc;
  PbField url, val; int bUrl, bVal;
  any_parts(z, off, len, &url, &bUrl, &val, &bVal);
  const PbMsgDef *pd = bUrl ? pb_registry_find(r, (const char*)z + url.off, url.len) : 0;
  if( pd && bVal ) return check_msg(z, val.off, val.len, pd, r, short_name(pd), err, depth+1);
  return PS_OK;
}

static int check_field(const uint8_t *z, const PbMsgDef *d, const PbField *f, const PbRegistry *r, PsErr *err, int depth){
  const PbFieldDef *fd = def_field(d, f->num, 0);
  if( fd==0 ) return PS_OK;                           /* unknown: kept, skipped by wire type */
  const char *zMsg = short_name(d);
  int wt = pb_type_wt(fd->type);
  if( f->wt!=wt ){
    if( fd->bRepeated && f->wt==WT_LEN && type_packable(fd->type) ) return check_packed(z, f->off, f->len, fd, zMsg, err);
    return pb_want(f, wt, fd->zName, zMsg, err);
  }
  if( fd->type==PB_MESSAGE ) return check_msg(z, f->off, f->len, fd->pSub, r, short_name(fd->pSub), err, depth+1);
  if( fd->type==PB_ANY ) return check_any(z, f->off, f->len, r, err, depth+1);
  return PS_OK;
}

int pb_check_field(const uint8_t *z, const PbMsgDef *d, const PbField *f, const PbRegistry *r, PsErr *err){
  return check_field(z, d, f, r, err, 1);
}

/* An Any may hold a message that holds an Any (an InputPipelineAnalysisResult in step_details):
** hostile bytes could nest them until the stack ran out, so nesting has a limit far above any
** real file's (a handful of levels); pb_json then never recurses deeper than this check did. */
#define PB_MAX_DEPTH 100

static int check_msg(const uint8_t *z, size_t off, size_t len, const PbMsgDef *d, const PbRegistry *r,
                     const char *zMsg, PsErr *err, int depth){
  if( depth > PB_MAX_DEPTH ){
    return ps_err_at(err, (int64_t)off, "%s nested more than %d messages deep", zMsg, PB_MAX_DEPTH);
  }
  PbMsg m = { z, off, off+len, zMsg };
  PbField f; int rc;
  while( (rc = pb_next(&m, &f, err))==PS_OK ){
    if( check_field(z, d, &f, r, err, depth) ) return PS_ERROR;
  }
  return rc==3 ? PS_OK : rc;
}

int pb_check(const uint8_t *z, size_t off, size_t len, const PbMsgDef *pDef, const PbRegistry *r, PsErr *err){
  return check_msg(z, off, len, pDef, r, short_name(pDef), err, 0);
}

/* ------------------------------------------------------------------ JSON */

static int put(PsBuf *b, const char *z){ return ps_buf_append(b, z, strlen(z)) ? PS_NOMEM : PS_OK; }

static int put_base64(PsBuf *b, const uint8_t *z, size_t n){
  static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  char q[4];
  if( ps_buf_append(b, "\"", 1) ) return PS_NOMEM;
  for(size_t i=0; i<n; i+=3){
    uint32_t v = (uint32_t)z[i] << 16 | (i+1<n ? (uint32_t)z[i+1] << 8 : 0) | (i+2<n ? z[i+2] : 0);
    q[0] = a[v>>18]; q[1] = a[(v>>12)&63];
    q[2] = i+1<n ? a[(v>>6)&63] : '=';
    q[3] = i+2<n ? a[v&63] : '=';
    if( ps_buf_append(b, q, 4) ) return PS_NOMEM;
  }
  return ps_buf_append(b, "\"", 1) ? PS_NOMEM : PS_OK;
}

static int put_text(PsBuf *b, const uint8_t *z, size_t off, size_t n, int64_t *pBad){
  size_t bad = (size_t)-1;
  if( ps_json_quote(b, (const char*)z + off, n, &bad) ) return PS_NOMEM;
  if( bad!=(size_t)-1 && pBad && *pBad<0 ) *pBad = (int64_t)(off + bad);
  return PS_OK;
}

static int put_double(PsBuf *b, double d, int bFloat){
  char t[40];
  int k = ps_fmt_double(d, bFloat, t);
  if( isfinite(d) ) return ps_buf_append(b, t, (size_t)k) ? PS_NOMEM : PS_OK;
  if( ps_buf_append(b, "\"", 1) || ps_buf_append(b, t, (size_t)k) || ps_buf_append(b, "\"", 1) ) return PS_NOMEM;
  return PS_OK;
}

/* A scalar value v (wire value as read) of type t. bKey: as a map key (always a string). */
static int put_scalar(PsBuf *b, const PbFieldDef *fd, uint64_t v, int bKey){
  char t[48]; int k = 0;
  switch( fd->type ){
    case PB_DOUBLE: { double d; memcpy(&d, &v, 8); return put_double(b, d, 0); }
    case PB_FLOAT: { uint32_t w = (uint32_t)v; float x; memcpy(&x, &w, 4); return put_double(b, (double)x, 1); }
    case PB_INT64: case PB_SFIXED64: k = snprintf(t, sizeof(t), "%lld", (long long)(int64_t)v); break;
    case PB_UINT64: case PB_FIXED64: k = snprintf(t, sizeof(t), "%llu", (unsigned long long)v); break;
    case PB_INT32: case PB_SFIXED32: k = snprintf(t, sizeof(t), "%d", (int)(int32_t)(uint32_t)v); break;
    case PB_UINT32: case PB_FIXED32: k = snprintf(t, sizeof(t), "%u", (unsigned)(uint32_t)v); break;
    case PB_SINT64: k = snprintf(t, sizeof(t), "%lld", (long long)(int64_t)((v >> 1) ^ (0 - (v & 1)))); break;
    case PB_SINT32: { uint32_t w = (uint32_t)v; k = snprintf(t, sizeof(t), "%d", (int)(int32_t)((w >> 1) ^ (0 - (w & 1)))); break; }
    case PB_BOOL: k = snprintf(t, sizeof(t), "%s", v ? "true" : "false"); break;
    case PB_ENUM: {
      int32_t e = (int32_t)(uint32_t)v;
      if( fd->azEnum ){
        for(int j=0; fd->azEnum[j]; j++){
          if( j==e ) return ps_json_quote(b, fd->azEnum[j], strlen(fd->azEnum[j]), 0) ? PS_NOMEM : PS_OK;
        }
      }
      k = snprintf(t, sizeof(t), "%d", (int)e);
      break;
    }
  }
  if( bKey && ps_buf_append(b, "\"", 1) ) return PS_NOMEM;
  if( ps_buf_append(b, t, (size_t)k) ) return PS_NOMEM;
  if( bKey && ps_buf_append(b, "\"", 1) ) return PS_NOMEM;
  return PS_OK;
}

static int json_msg(const uint8_t *z, size_t off, size_t len, const PbMsgDef *d, const PbRegistry *r,
                    PsBuf *b, int64_t *pBad, int bBraces, int *pnMembers);

static int json_any(const uint8_t *z, size_t off, size_t len, const PbRegistry *r, PsBuf *b, int64_t *pBad, int bType){
  PbField url, val; int bUrl, bVal;
  any_parts(z, off, len, &url, &bUrl, &val, &bVal);
  int n = 0;
  if( ps_buf_append(b, "{", 1) ) return PS_NOMEM;
  if( bType && (bUrl || bVal) ){
    if( put(b, "\"@type\":") || put_text(b, z, bUrl ? url.off : 0, bUrl ? url.len : 0, pBad) ) return PS_NOMEM;
    n++;
  }
  const PbMsgDef *pd = bUrl ? pb_registry_find(r, (const char*)z + url.off, url.len) : 0;
  if( pd ){
    if( json_msg(z, bVal ? val.off : 0, bVal ? val.len : 0, pd, r, b, pBad, 0, &n) ) return PS_NOMEM;
  }else if( bUrl || bVal ){
    if( put(b, n ? ",\"value\":" : "\"value\":") || put_base64(b, z + (bVal ? val.off : 0), bVal ? val.len : 0) ) return PS_NOMEM;
  }
  return ps_buf_append(b, "}", 1) ? PS_NOMEM : PS_OK;
}

/* One value of field fd as read in f (not packed). */
static int json_value(const uint8_t *z, const PbFieldDef *fd, const PbField *f, const PbRegistry *r, PsBuf *b, int64_t *pBad){
  switch( fd->type ){
    case PB_STRING: return put_text(b, z, f->off, f->len, pBad);
    case PB_BYTES:  return put_base64(b, z + f->off, f->len);
    case PB_MESSAGE: return json_msg(z, f->off, f->len, fd->pSub, r, b, pBad, 1, 0);
    case PB_ANY: return json_any(z, f->off, f->len, r, b, pBad, 1);
    default: return put_scalar(b, fd, f->v, 0);
  }
}

/* The default of a singular scalar field. */
static int json_default(const PbFieldDef *fd, PsBuf *b){
  if( fd->type==PB_STRING || fd->type==PB_BYTES ) return put(b, "\"\"");
  return put_scalar(b, fd, 0, 0);
}

/* A map entry [off, off+len) written as "key":value. */
static int json_map_entry(const uint8_t *z, size_t off, size_t len, const PbMsgDef *e, const PbRegistry *r,
                          PsBuf *b, int64_t *pBad){
  const PbFieldDef *kd = def_field(e, 1, 0), *vd = def_field(e, 2, 0);
  PbField kf, vf;
  int bK = kd && pb_get(z, off, len, 1, pb_type_wt(kd->type), &kf);
  int bV = vd && pb_get(z, off, len, 2, pb_type_wt(vd->type), &vf);
  if( kd->type==PB_STRING ){
    if( put_text(b, z, bK ? kf.off : 0, bK ? kf.len : 0, pBad) ) return PS_NOMEM;
  }else{
    if( put_scalar(b, kd, bK ? kf.v : 0, 1) ) return PS_NOMEM;
  }
  if( ps_buf_append(b, ":", 1) ) return PS_NOMEM;
  if( bV ) return json_value(z, vd, &vf, r, b, pBad);
  if( vd->type==PB_MESSAGE ) return put(b, "{}");
  return json_default(vd, b);
}

/* The value of field fd of message [off, off+len): pLast = its last occurrence (singular
** fields; NULL when absent: the default), or every occurrence (repeated: an array, a map: an
** object). */
static int json_field(const uint8_t *z, size_t off, size_t len, const PbMsgDef *d, const PbFieldDef *fd,
                      const PbField *pLast, const PbRegistry *r, PsBuf *b, int64_t *pBad){
  if( !fd->bRepeated ){
    if( pLast==0 ) return fd->type==PB_MESSAGE || fd->type==PB_ANY ? put(b, "{}") : json_default(fd, b);
    return json_value(z, fd, pLast, r, b, pBad);
  }
  int bMap = fd->type==PB_MESSAGE && fd->pSub->bMap;
  if( ps_buf_append(b, bMap ? "{" : "[", 1) ) return PS_NOMEM;
  int nItem = 0, wt = pb_type_wt(fd->type);
  PbMsg m = { z, off, off+len, d->zName };
  PbField f;
  while( pb_next(&m, &f, 0)==PS_OK ){
    if( f.num!=fd->num ) continue;
    if( f.wt==wt ){
      if( nItem++ && ps_buf_append(b, ",", 1) ) return PS_NOMEM;
      if( bMap ){ if( json_map_entry(z, f.off, f.len, fd->pSub, r, b, pBad) ) return PS_NOMEM; }
      else if( json_value(z, fd, &f, r, b, pBad) ) return PS_NOMEM;
    }else if( f.wt==WT_LEN && type_packable(fd->type) ){
      size_t i = f.off, end = f.off + f.len;
      while( i<end ){
        uint64_t v = 0;
        if( wt==WT_I64 ){ if( end-i<8 ) break; memcpy(&v, z+i, 8); i += 8; }
        else if( wt==WT_I32 ){ uint32_t w; if( end-i<4 ) break; memcpy(&w, z+i, 4); i += 4; v = w; }
        else if( pb_varint(z, end, &i, &v, "", 0) ) break;
        if( nItem++ && ps_buf_append(b, ",", 1) ) return PS_NOMEM;
        if( put_scalar(b, fd, v, 0) ) return PS_NOMEM;
      }
    }
  }
  return ps_buf_append(b, bMap ? "}" : "]", 1) ? PS_NOMEM : PS_OK;
}

static int json_msg(const uint8_t *z, size_t off, size_t len, const PbMsgDef *d, const PbRegistry *r,
                    PsBuf *b, int64_t *pBad, int bBraces, int *pnMembers){
  PbField aLast[64];
  uint8_t aHave[64];
  int nF = d->nField < 64 ? d->nField : 64, nUnknown = 0;
  memset(aHave, 0, sizeof(aHave));
  PbMsg m = { z, off, off+len, d->zName };
  PbField f;
  while( pb_next(&m, &f, 0)==PS_OK ){
    int k;
    const PbFieldDef *fd = def_field(d, f.num, &k);
    if( fd==0 || k>=64 ){ nUnknown++; continue; }
    if( fd->bRepeated || f.wt==pb_type_wt(fd->type) ){ aLast[k] = f; aHave[k] = 1; }
  }
  int n = pnMembers ? *pnMembers : 0;
  if( bBraces && ps_buf_append(b, "{", 1) ) return PS_NOMEM;
  for(int k=0; k<nF; k++){
    const PbFieldDef *fd = &d->aField[k];
    if( !fd->bRepeated && !aHave[k] && (fd->type==PB_MESSAGE || fd->type==PB_ANY) ) continue;
    if( put(b, n ? ",\"" : "\"") || put(b, fd->zName) || put(b, "\":") ) return PS_NOMEM;
    n++;
    if( json_field(z, off, len, d, fd, aHave[k] ? &aLast[k] : 0, r, b, pBad) ) return PS_NOMEM;
  }
  if( nUnknown ){
    PbMsg m2 = { z, off, off+len, d->zName };
    while( pb_next(&m2, &f, 0)==PS_OK ){
      int k;
      const PbFieldDef *fd = def_field(d, f.num, &k);
      if( fd && k<64 ) continue;
      char t[48];
      snprintf(t, sizeof(t), "%s\"#%u\":", n ? "," : "", f.num);
      if( put(b, t) ) return PS_NOMEM;
      n++;
      if( f.wt==WT_LEN ){ if( put_base64(b, z + f.off, f.len) ) return PS_NOMEM; }
      else{ snprintf(t, sizeof(t), "%llu", (unsigned long long)f.v); if( put(b, t) ) return PS_NOMEM; }
    }
  }
  if( pnMembers ) *pnMembers = n;
  if( bBraces && ps_buf_append(b, "}", 1) ) return PS_NOMEM;
  return PS_OK;
}

int pb_json_field(const uint8_t *z, size_t off, size_t len, const PbMsgDef *pDef, uint32_t num,
                  const PbRegistry *r, PsBuf *b, int64_t *pBad){
  const PbFieldDef *fd = def_field(pDef, num, 0);
  if( fd==0 ) return put(b, "null");
  PbField f;
  int bHave = !fd->bRepeated && pb_get(z, off, len, num, pb_type_wt(fd->type), &f);
  return json_field(z, off, len, pDef, fd, bHave ? &f : 0, r, b, pBad);
}

const PbFieldDef *pb_def_field(const PbMsgDef *pDef, uint32_t num){ return def_field(pDef, num, 0); }

int pb_json(const uint8_t *z, size_t off, size_t len, const PbMsgDef *pDef, const PbRegistry *r,
            PsBuf *b, int64_t *pBad){
  return json_msg(z, off, len, pDef, r, b, pBad, 1, 0);
}

int pb_json_any(const uint8_t *z, size_t off, size_t len, const PbRegistry *r, int bType, PsBuf *b, int64_t *pBad){
  return json_any(z, off, len, r, b, pBad, bType);
}

/* ------------------------------------------------------------------ fit */

typedef struct Fit {
  const uint8_t *z; size_t n;
  const PbRegistry *r;
  int nBudget;
  int nKnown, nUnknown;
  const PbFieldDef *aSeen[256]; int nSeen;
  int bStop;
} Fit;

static void fit_seen(Fit *p, const PbFieldDef *fd){
  for(int k=0; k<p->nSeen; k++) if( p->aSeen[k]==fd ) return;
  if( p->nSeen < 256 ) p->aSeen[p->nSeen++] = fd;
}

/* 0 fits so far, -1 does not */
static int fit_msg(Fit *p, size_t off, size_t end, const PbMsgDef *d, int depth){
  size_t i = off;
  while( i<end && !p->bStop ){
    if( p->nBudget-- <= 0 ){ p->bStop = 1; break; }
    uint64_t tag, v;
    if( pb_varint(p->z, end, &i, &tag, "", 0) ){
      if( end==p->n ){ p->bStop = 1; break; }        /* cut short */
      return -1;
    }
    uint32_t num = (uint32_t)(tag >> 3); int wt = (int)(tag & 7);
    if( num==0 || (tag>>3) > 0x1FFFFFFF ) return -1;
    size_t fo = 0, fl = 0;
    int bCut = 0;
    switch( wt ){
      case WT_VARINT:
        if( pb_varint(p->z, end, &i, &v, "", 0) ){ if( end==p->n ){ p->bStop = 1; return 0; } return -1; }
        break;
      case WT_I64: if( end-i<8 ){ if( end==p->n ){ p->bStop = 1; return 0; } return -1; } i += 8; break;
      case WT_I32: if( end-i<4 ){ if( end==p->n ){ p->bStop = 1; return 0; } return -1; } i += 4; break;
      case WT_LEN:
        if( pb_varint(p->z, end, &i, &v, "", 0) ){ if( end==p->n ){ p->bStop = 1; return 0; } return -1; }
        if( v > end - i ){
          if( end!=p->n ) return -1;
          v = end - i;                                /* cut short: what is there is looked at */
          bCut = 1;
        }
        fo = i; fl = (size_t)v; i += (size_t)v;
        break;
      default: return -1;
    }
    const PbFieldDef *fd = def_field(d, num, 0);
    if( fd==0 ){ p->nUnknown++; goto next; }
    int want = pb_type_wt(fd->type);
    if( wt!=want ){
      if( fd->bRepeated && wt==WT_LEN && type_packable(fd->type) ){ p->nKnown++; fit_seen(p, fd); goto next; }
      return -1;
    }
    p->nKnown++;
    if( fd->type==PB_STRING ){
      /* a string cut short may end inside a character */
      size_t bad;
      if( !ps_text_check((const char*)p->z + fo, fl, &bad) && !(bCut && fl - bad < 4) ) goto next;   /* not counted */
    }else if( fd->type==PB_MESSAGE && depth<32 ){
      if( fit_msg(p, fo, fo+fl, fd->pSub, depth+1) ) return -1;
    }else if( fd->type==PB_ANY && depth<32 && !bCut ){
      PbField url, val; int bUrl, bVal;
      any_parts(p->z, fo, fl, &url, &bUrl, &val, &bVal);
      const PbMsgDef *pd = bUrl ? pb_registry_find(p->r, (const char*)p->z + url.off, url.len) : 0;
      if( pd==0 ) goto next;
      if( bVal && fit_msg(p, val.off, val.off + val.len, pd, depth+1) ) return -1;
    }
    fit_seen(p, fd);
  next:
    if( bCut ) p->bStop = 1;
  }
  return 0;
}

int pb_fit(const uint8_t *z, size_t n, const PbMsgDef *pDef, const PbRegistry *r, int nBudget){
  Fit fit, *p = &fit;                 /* no allocation: a probe cannot fail for want of memory */
  memset(p, 0, sizeof(*p));
  p->z = z; p->n = n; p->r = r; p->nBudget = nBudget;
  int rc = fit_msg(p, 0, n, pDef, 0);
  int score = (rc==0 && p->nKnown>0 && p->nUnknown <= p->nKnown) ? p->nSeen : -1;
  return score;
}
