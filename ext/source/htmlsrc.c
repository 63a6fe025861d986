/*
** htmlsrc.c — the trace inside an Android systrace HTML document, as a container the source
** layer unwraps before detection (like gzip and ZIP): the bytes it yields are ftrace text or
** Trace Event Format JSON, which the format probes then tell apart.
**
** Where systrace puts the trace (catapult's systrace and trace2html; shared/corpus README 7):
**   old   a plain <script> holding  var linuxPerfData = "\
**         # tracer: nop\n\
**         ...\n";                    a JavaScript string: each line ends in \n and a
**                                    backslash-newline continuation
**   new   <script class="trace-data"> ... </script> blocks, one per trace: raw JSON, raw ftrace
**         text, or (systrace --compress) base64 of zlib/deflate-compressed data
** The JS string is unescaped (\n \r \t \\ \" \' and line continuations); a trace-data block is
** taken as written, base64 blocks are decoded and inflated with zlib.
** Several blocks of ftrace text are read as one text (joined by line ends). A document with a
** JSON block and text blocks (newer systrace: the Chrome trace beside the atrace/ftrace data)
** yields the JSON as the capture's bytes and the text beside it (PsSource.zText), which the
** Chrome parser reads into the same capture (rows told apart by profile_events' format
** column). Several JSON blocks are an error naming what was found.
** Errors: "an HTML document with no trace data (...)", a block that is not valid base64 or whose
** compressed data is damaged, the inflate limit. Nothing here includes SQLite.
*/
#include "htmlsrc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

/* ---------------------------------------------------------------- detection */

int ps_is_html(const void *pv, size_t n){
  const char *z = pv;
  size_t i = 0, lim = n < 1024 ? n : 1024;
  if( n>=3 && (unsigned char)z[0]==0xEF && (unsigned char)z[1]==0xBB && (unsigned char)z[2]==0xBF ) i = 3;
  while( i<lim && isspace((unsigned char)z[i]) ) i++;
  if( lim-i >= 14 && strncasecmp(z+i, "<!DOCTYPE html", 14)==0 ) return 1;
  if( lim-i >= 5 && strncasecmp(z+i, "<html", 5)==0 ) return 1;
  return 0;
}

/* ---------------------------------------------------------------- blocks */

typedef struct HtBlock { char *z; size_t n; int bJson; } HtBlock;

/* First occurrence of the ASCII needle (case-insensitive) in z[i..n), or n. */
static size_t ht_find(const char *z, size_t n, size_t i, const char *zNeedle){
  size_t k = strlen(zNeedle);
  for(; i+k<=n; i++){
    if( strncasecmp(z+i, zNeedle, k)==0 ) return i;
  }
  return n;
}

static int ht_b64(int c){
  if( c>='A' && c<='Z' ) return c-'A';
  if( c>='a' && c<='z' ) return c-'a'+26;
  if( c>='0' && c<='9' ) return c-'0'+52;
  if( c=='+' || c=='-' ) return 62;
  if( c=='/' || c=='_' ) return 63;
  return -1;
}

/* 1 when z[0..n) is only base64 characters, padding and white space (and at least 8 of them). */
static int ht_is_base64(const char *z, size_t n){
  size_t m = 0;
  for(size_t i=0; i<n; i++){
    unsigned char c = (unsigned char)z[i];
    if( isspace(c) || c=='=' ) continue;
    if( ht_b64(c)<0 ) return 0;
    m++;
  }
  return m>=8;
}

/* Inflates base64 text (zlib or raw deflate, as systrace --compress writes) into a heap buffer. */
static int ht_inflate_b64(const char *z, size_t n, size_t off, uint64_t maxOut, HtBlock *b, PsErr *err){
  unsigned char *raw = malloc(n/4*3 + 4);
  if( raw==0 ) return ps_nomem(err);
  size_t m = 0; unsigned acc = 0; int bits = 0;
  for(size_t i=0; i<n; i++){
    int v = ht_b64((unsigned char)z[i]);
    if( v<0 ) continue;
    acc = (acc<<6) | (unsigned)v; bits += 6;
    if( bits>=8 ){ bits -= 8; raw[m++] = (unsigned char)(acc >> bits); }
  }
  int rc = PS_ERROR;
  for(int w=0; w<2 && rc==PS_ERROR; w++){
    /* a zlib (or gzip) stream first, then raw deflate */
    z_stream s; memset(&s, 0, sizeof(s));
    if( inflateInit2(&s, w==0 ? 15+32 : -15)!=Z_OK ){ free(raw); return ps_nomem(err); }
    size_t cap = m*4 + 1024, nOut = 0;
    char *out = malloc(cap + 1);
    int zr = Z_OK;
    s.next_in = raw; s.avail_in = (uInt)m;
    while( out && zr==Z_OK ){
      if( nOut==cap ){
        if( cap*2 > maxOut + 1 ){ zr = Z_MEM_ERROR; break; }
        char *o2 = realloc(out, cap*2 + 1);
        if( o2==0 ){ free(out); out = 0; break; }
        out = o2; cap *= 2;
      }
      s.next_out = (Bytef*)out + nOut; s.avail_out = (uInt)(cap - nOut);
      zr = inflate(&s, Z_NO_FLUSH);
      nOut = cap - s.avail_out;
      if( zr==Z_BUF_ERROR && s.avail_in==0 ) break;
      if( zr==Z_BUF_ERROR ) zr = Z_OK;
    }
    inflateEnd(&s);
    if( out==0 ){ free(raw); return ps_nomem(err); }
    if( zr==Z_STREAM_END ){
      out[nOut] = 0;
      b->z = out; b->n = nOut;
      rc = PS_OK;
    }else free(out);
  }
  free(raw);
  if( rc ) return ps_err_at(err, (int64_t)off, "a systrace trace-data block is base64 but not compressed data this reader can inflate");
  return PS_OK;
}

/* The JavaScript string literal whose opening quote is at z[i]: unescaped into a heap buffer. */
static int ht_js_string(const char *z, size_t n, size_t i, HtBlock *b, PsErr *err){
  char q = z[i++];
  char *out = malloc(n - i + 1);
  size_t m = 0;
  if( out==0 ) return ps_nomem(err);
  while( i<n && z[i]!=q ){
    char c = z[i++];
    if( c!='\\' || i>=n ){ out[m++] = c; continue; }
    c = z[i++];
    switch( c ){
      case 'n': out[m++] = '\n'; break;
      case 'r': out[m++] = '\r'; break;
      case 't': out[m++] = '\t'; break;
      case '\r': if( i<n && z[i]=='\n' ) i++; break;     /* a line continuation */
      case '\n': break;
      default: out[m++] = c; break;                      /* \\ \" \' and the rest as the char */
    }
  }
  if( i>=n ){ free(out); return ps_err_at(err, (int64_t)i, "the systrace linuxPerfData string is not closed"); }
  out[m] = 0;
  b->z = out; b->n = m;
  return PS_OK;
}

static int ht_is_json(const char *z, size_t n){
  size_t i = 0;
  while( i<n && isspace((unsigned char)z[i]) ) i++;
  return i<n && (z[i]=='{' || z[i]=='[');
}

static int ht_add(HtBlock **pa, size_t *pn, size_t *pnAlloc, HtBlock b){
  if( ps_grow((void**)pa, sizeof(HtBlock), pnAlloc, *pn+1) ){ free(b.z); return PS_NOMEM; }
  b.bJson = ht_is_json(b.z, b.n);
  (*pa)[(*pn)++] = b;
  return PS_OK;
}

int ps_html_trace(const void *pv, size_t n, uint64_t maxOut, char **pz, size_t *pn,
                  char **pzText, size_t *pnText, PsErr *err){
  const char *z = pv;
  HtBlock *a = 0; size_t nA = 0, nAlloc = 0;
  int rc = PS_OK;
  size_t i = 0;
  while( rc==PS_OK && (i = ht_find(z, n, i, "<script"))<n ){
    size_t tagEnd = i;
    while( tagEnd<n && z[tagEnd]!='>' ) tagEnd++;
    if( tagEnd>=n ) break;
    size_t body = tagEnd + 1, end = ht_find(z, n, body, "</script");
    size_t cls = ht_find(z, tagEnd, i, "trace-data");
    if( cls<tagEnd ){
      HtBlock b; memset(&b, 0, sizeof(b));
      size_t s = body, e = end;
      while( s<e && isspace((unsigned char)z[s]) ) s++;
      while( e>s && isspace((unsigned char)z[e-1]) ) e--;
      if( !ht_is_json(z+s, e-s) && ht_is_base64(z+s, e-s) ){
        rc = ht_inflate_b64(z+s, e-s, s, maxOut, &b, err);
      }else{
        b.z = malloc(e-s+1);
        if( b.z==0 ) rc = ps_nomem(err);
        else{ memcpy(b.z, z+s, e-s); b.z[e-s] = 0; b.n = e-s; }
      }
      if( rc==PS_OK && b.n ) rc = ht_add(&a, &nA, &nAlloc, b) ? ps_nomem(err) : PS_OK;
      else free(b.z);
    }else{
      size_t v = ht_find(z, end, body, "linuxPerfData");
      if( v<end ){
        v += 13;
        while( v<end && (isspace((unsigned char)z[v]) || z[v]=='=') ) v++;
        if( v<end && (z[v]=='"' || z[v]=='\'') ){
          HtBlock b; memset(&b, 0, sizeof(b));
          rc = ht_js_string(z, end, v, &b, err);
          if( rc==PS_OK ) rc = ht_add(&a, &nA, &nAlloc, b) ? ps_nomem(err) : PS_OK;
        }
      }
    }
    i = end;
  }
  size_t nJson = 0, nText = 0, total = 0;
  for(size_t k=0; k<nA; k++){ if( a[k].bJson ) nJson++; else nText++; total += a[k].n + 1; }
  *pzText = 0; *pnText = 0;
  if( rc==PS_OK ){
    if( nA==0 ){
      rc = ps_err(err, "an HTML document with no trace data (no <script class=\"trace-data\"> block and no "
                  "linuxPerfData string, as Android's systrace writes them)");
    }else if( nJson>1 ){
      rc = ps_err(err, "a systrace HTML document with %zu JSON blocks of trace data (and %zu ftrace text "
                  "blocks): reading several JSON traces into one capture is not supported", nJson, nText);
    }else if( total > maxOut ){
      rc = ps_err(err, "the trace data of the HTML document exceeds the limit of %llu bytes", (unsigned long long)maxOut);
    }else{
      /* the JSON block (if any) is the capture; the text blocks, joined, are its ftrace text
      ** (or the capture itself when there is no JSON) */
      char *zJoin = 0; size_t m = 0;
      if( nText ){
        zJoin = malloc(total + 1);
        if( zJoin==0 ) rc = ps_nomem(err);
        else{
          size_t kText = 0;
          for(size_t k=0; k<nA; k++){
            if( a[k].bJson ) continue;
            memcpy(zJoin+m, a[k].z, a[k].n); m += a[k].n;
            if( ++kText<nText && (m==0 || zJoin[m-1]!='\n') ) zJoin[m++] = '\n';
          }
          zJoin[m] = 0;
        }
      }
      if( rc==PS_OK && nJson ){
        for(size_t k=0; k<nA; k++){
          if( !a[k].bJson ) continue;
          *pz = a[k].z; *pn = a[k].n;          /* the block's buffer moves to the caller */
          a[k].z = 0;
        }
        *pzText = zJoin; *pnText = m;
      }else if( rc==PS_OK ){
        *pz = zJoin; *pn = m;
      }
    }
  }
  for(size_t k=0; k<nA; k++) free(a[k].z);
  free(a);
  return rc;
}
