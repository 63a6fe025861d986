/*
** json_model.c — the JSON readers' bridge onto the capture model (see json_model.h): metadata
** rows from JSON values, interning decoded strings with their diagnostics, duplicate keys.
*/
#include "json_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ps_json_meta_value(PsCapture *cap, const char *z, size_t n, size_t v, size_t e,
                       const char *zScope, const char *zKey, PsBuf *scratch, PsErr *err){
  char c = z[v];
  if( c=='"' ){
    const char *s; size_t sn, i = v;
    int rc = ps_json_string(z, n, &i, scratch, &s, &sn, err);
    if( rc ) return rc;
    if( s!=z+v+1 ){                   /* decoded: a copy, the diagnostic named here */
      char zField[PS_JSON_KEY_BUF+80];
      snprintf(zField, sizeof(zField), "%.40s '%.*s'", zScope, PS_JSON_KEY_BUF, zKey);
      if( ps_json_text_diag(cap, z, n, v, s, sn, zField) ) return ps_nomem(err);
      if( (s = ps_arena_strdup(&cap->arena, s, sn))==0 ) return ps_nomem(err);
    }
    return ps_meta_text(cap, zScope, zKey, s, sn, PS_META_TEXT, (int64_t)v) ? ps_nomem(err) : PS_OK;
  }
  if( c=='-' || (c>='0' && c<='9') ){
    PsDec d; size_t i = v; int64_t iv;
    if( ps_json_number(z, n, &i, &d, err) ) return PS_ERROR;
    if( d.bInt && ps_dec_int64(&d, &iv)==0 ) return ps_meta_int(cap, zScope, zKey, iv, (int64_t)v) ? ps_nomem(err) : PS_OK;
    if( d.bInt ){                     /* beyond int64: the digits, exact */
      return ps_meta_text(cap, zScope, zKey, z+v, e-v, PS_META_TEXT, (int64_t)v) ? ps_nomem(err) : PS_OK;
    }
    char buf[64], *t = e-v < sizeof(buf) ? buf : malloc(e-v+1);
    if( t==0 ) return ps_nomem(err);
    memcpy(t, z+v, e-v); t[e-v] = 0;
    double r = strtod(t, 0);
    if( t!=buf ) free(t);
    return ps_meta_real(cap, zScope, zKey, r, (int64_t)v) ? ps_nomem(err) : PS_OK;
  }
  if( c=='t' || c=='f' ) return ps_meta_int(cap, zScope, zKey, c=='t', (int64_t)v) ? ps_nomem(err) : PS_OK;
  if( c=='n' ) return ps_meta_text(cap, zScope, zKey, 0, 0, PS_META_TEXT, (int64_t)v) ? ps_nomem(err) : PS_OK;
  return ps_meta_text(cap, zScope, zKey, z+v, e-v, PS_META_JSON, (int64_t)v) ? ps_nomem(err) : PS_OK;
}

int ps_json_intern(PsCapture *cap, const char *zJson, size_t nJson, size_t iQuote,
                   const char *z, size_t n, const char *zField, uint32_t *pId){
  uintptr_t a = (uintptr_t)zJson, b = (uintptr_t)z;
  if( b>=a && b - a < nJson ){
    /* no escapes: the decoded bytes are the source bytes */
    return ps_intern(cap, z, n, (int64_t)(b - a), zField, pId);
  }
  size_t bad;
  *pId = ps_pool_intern_text(&cap->pool, z, n, 0, &bad);
  if( *pId==0 ) return PS_NOMEM;
  if( bad==PS_TEXT_OK ) return PS_OK;
  return ps_text_diag(cap, (int64_t)ps_json_string_offset(zJson, nJson, iQuote, bad), zField, z, n, bad);
}

int ps_json_text_diag(PsCapture *cap, const char *zJson, size_t nJson, size_t iQuote,
                      const char *z, size_t n, const char *zField){
  uintptr_t a = (uintptr_t)zJson, b = (uintptr_t)z;
  size_t bad;
  if( ps_text_check(z, n, &bad) ) return PS_OK;
  int64_t off = (b>=a && b - a < nJson) ? (int64_t)(b - a + bad) : (int64_t)ps_json_string_offset(zJson, nJson, iQuote, bad);
  return ps_text_diag(cap, off, zField, z, n, bad);
}

int ps_json_key_text(PsCapture *cap, const char *zJson, size_t nJson, size_t iQuote,
                     const char *k, size_t kn, char *buf){
  ps_text_cstr(k, kn, PS_JSON_KEY_MAX, buf);
  return ps_json_text_diag(cap, zJson, nJson, iQuote, k, kn, "an object key");
}

int ps_json_dup_diag(PsCapture *cap, const char *z, size_t keyOff, size_t keyLen, size_t prevOff,
                     const char *zWhere){
  return ps_diag(cap, PS_DIAG_DUPLICATE_KEY, (int64_t)keyOff - 1,
                 "key \"%.*s\" given again in %s (before at byte %lld); the last one is used",
                 (int)(keyLen > 80 ? 80 : keyLen), z + keyOff, zWhere, (long long)prevOff - 1);
}
