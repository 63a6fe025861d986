/*
** json.c — JSON lexing primitives: validating skip, string decoding, exact decimal numbers.
** See json.h. Follows RFC 8259 unless ps_json_lenient is set (the Chrome reader's trailing
** commas and raw control characters, read on the error paths only); the Trace Event Format's
** own leniencies (unterminated arrays, empty {} events) are handled by the format parser.
*/
#include "json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const unsigned char ps_json_cls[256] = {
  /* 0x00-0x1f: control characters: string attention (2); \t \n \r also whitespace (1) */
  2,2,2,2,2,2,2,2,2,3,3,2,2,3,2,2, 2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,
  /* 0x20 ' ' is whitespace, 0x22 '"' needs attention */
  1,0,2,0,0,0,0,0,0,0,0,0,0,0,0,0, 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
  0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0, 0,0,0,0,0,0,0,0,0,0,0,0,2,0,0,0, /* 0x5c '\\' */
  0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0, 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,
};

_Thread_local const PsJsonLenient *ps_json_lenient = 0;

/* A leniency met (ps_json_lenient is set): told to its xNote, if any. */
static void lenient_note(int kind, size_t off, int c){
  const PsJsonLenient *l = ps_json_lenient;
  if( l && l->xNote ) l->xNote(l->pArg, kind, off, c);
}

/* The offset of the ',' before the whitespace that ends at i (a trailing comma's, found from the
** ']' or '}' after it: the walk back crosses only the whitespace the reader just skipped). */
static size_t comma_before(const char *z, size_t i){
  while( i>0 && z[i-1]!=',' ) i--;
  return i ? i-1 : 0;
}

/* Scans string content from just after the opening quote; returns the offset of the closing
** quote or of the first byte needing attention ('"', '\\' or a control character). Eight bytes
** at a time (SWAR): the lowest flagged byte of these bit tricks is always exact. */
#define SWAR_ONES  0x0101010101010101ull
#define SWAR_HIGHS 0x8080808080808080ull
static inline size_t str_scan(const char *z, size_t n, size_t i){
  /* most strings in traces are short (phases, keys, names): look at 4 bytes one by one first */
  if( i+4<=n ){
    if( ps_json_cls[(unsigned char)z[i]]&2 ) return i;
    if( ps_json_cls[(unsigned char)z[i+1]]&2 ) return i+1;
    if( ps_json_cls[(unsigned char)z[i+2]]&2 ) return i+2;
    if( ps_json_cls[(unsigned char)z[i+3]]&2 ) return i+3;
    i += 4;
  }
  while( i+8<=n ){
    uint64_t w; memcpy(&w, z+i, 8);
    uint64_t q = w ^ (SWAR_ONES * '"'), b = w ^ (SWAR_ONES * '\\');
    uint64_t m = ((q - SWAR_ONES) & ~q) | ((b - SWAR_ONES) & ~b) | ((w - SWAR_ONES * 0x20) & ~w);
    m &= SWAR_HIGHS;
    if( m ) return i + (size_t)(__builtin_ctzll(m) >> 3);
    i += 8;
  }
  while( i<n && !(ps_json_cls[(unsigned char)z[i]]&2) ) i++;
  return i;
}

static int hexval(int c){
  if( c>='0' && c<='9' ) return c-'0';
  if( c>='a' && c<='f' ) return c-'a'+10;
  if( c>='A' && c<='F' ) return c-'A'+10;
  return -1;
}

static int read_hex4(const char *z, size_t n, size_t i, unsigned *pv){
  if( i+4>n ) return -1;
  unsigned v = 0;
  for(int k=0; k<4; k++){
    int h = hexval((unsigned char)z[i+k]);
    if( h<0 ) return -1;
    v = v<<4 | (unsigned)h;
  }
  *pv = v;
  return 0;
}

static int put_utf8(PsBuf *b, unsigned cp){
  char t[4]; size_t k;
  if( cp<0x80 ){ t[0] = (char)cp; k = 1; }
  else if( cp<0x800 ){ t[0] = (char)(0xC0|cp>>6); t[1] = (char)(0x80|(cp&0x3F)); k = 2; }
  else if( cp<0x10000 ){
    t[0] = (char)(0xE0|cp>>12); t[1] = (char)(0x80|((cp>>6)&0x3F)); t[2] = (char)(0x80|(cp&0x3F)); k = 3;
  }else{
    t[0] = (char)(0xF0|cp>>18); t[1] = (char)(0x80|((cp>>12)&0x3F));
    t[2] = (char)(0x80|((cp>>6)&0x3F)); t[3] = (char)(0x80|(cp&0x3F)); k = 4;
  }
  return ps_buf_append(b, t, k);
}

/* A string that runs to the end of the input (the quote at i0 is never closed): an error that
** ps_capture_load words as a file cut short. */
static int unterminated(PsErr *err, size_t i0){
  ps_err_at(err, (int64_t)i0, "unterminated string");
  if( err ) err->bEnd = 1;
  return PS_ERROR;
}

/* Validates one escape at z[i]=='\\' (decoding into b when b != NULL); returns the offset
** after it, or 0 on error (err set). */
static size_t do_escape(const char *z, size_t n, size_t i, PsBuf *b, PsErr *err, int *pNomem){
  if( i+1>=n ){ unterminated(err, i); return 0; }
  char c = z[i+1], o;
  switch( c ){
    case '"': o = '"'; break;   case '\\': o = '\\'; break;  case '/': o = '/'; break;
    case 'b': o = '\b'; break;  case 'f': o = '\f'; break;   case 'n': o = '\n'; break;
    case 'r': o = '\r'; break;  case 't': o = '\t'; break;
    case 'u': {
      unsigned cp, lo;
      if( read_hex4(z, n, i+2, &cp) ){
        ps_err_at(err, (int64_t)i, "expected four hex digits after \\u");
        return 0;
      }
      size_t j = i+6;
      if( cp>=0xD800 && cp<=0xDBFF ){
        if( j+6<=n && z[j]=='\\' && z[j+1]=='u' && read_hex4(z, n, j+2, &lo)==0
         && lo>=0xDC00 && lo<=0xDFFF ){
          cp = 0x10000 + ((cp-0xD800)<<10) + (lo-0xDC00);
          j += 6;
        }else{
          cp = 0xFFFD;     /* lone high surrogate */
        }
      }else if( cp>=0xDC00 && cp<=0xDFFF ){
        cp = 0xFFFD;       /* lone low surrogate */
      }
      if( b && put_utf8(b, cp) ){ *pNomem = 1; return 0; }
      return j;
    }
    default:
      ps_err_at(err, (int64_t)i, "invalid escape '\\%c' in string", (c>=0x20 && c<0x7f) ? c : '?');
      return 0;
  }
  if( b && ps_buf_append(b, &o, 1) ){ *pNomem = 1; return 0; }
  return i+2;
}

int ps_json_string(const char *z, size_t n, size_t *pi, PsBuf *scratch,
                   const char **pz, size_t *pn, PsErr *err){
  size_t i0 = *pi, i = i0+1;
  size_t j = str_scan(z, n, i);
  if( j<n && z[j]=='"' ){
    *pz = z+i; *pn = j-i; *pi = j+1;
    return PS_OK;
  }
  scratch->n = 0;
  int nomem = 0;
  for(;;){
    if( j>=n ) return unterminated(err, i0);
    if( ps_buf_append(scratch, z+i, j-i) ) return ps_nomem(err);
    if( z[j]=='"' ) break;
    if( z[j]=='\\' ){
      i = do_escape(z, n, j, scratch, err, &nomem);
      if( i==0 ) return nomem ? ps_nomem(err) : PS_ERROR;
    }else if( ps_json_lenient ){
      /* a raw control character: kept, appended with the bytes after it */
      lenient_note(PS_JSON_LENIENT_CTRL, j, (unsigned char)z[j]);
      i = j;
      j = str_scan(z, n, j+1);
      continue;
    }else{
      return ps_err_at(err, (int64_t)j, "control character 0x%02x inside a string", (unsigned char)z[j]);
    }
    j = str_scan(z, n, i);
  }
  if( scratch->z==0 && ps_buf_append(scratch, "", 0) ) return ps_nomem(err);
  *pz = scratch->z; *pn = scratch->n; *pi = j+1;
  return PS_OK;
}

/* Validating string skip: *pi at the opening quote. */
static int skip_string(const char *z, size_t n, size_t *pi, PsErr *err){
  size_t i0 = *pi, j = str_scan(z, n, i0+1);
  int nomem = 0;
  for(;;){
    if( j>=n ) return unterminated(err, i0);
    if( z[j]=='"' ){ *pi = j+1; return PS_OK; }
    if( z[j]=='\\' ){
      size_t k = do_escape(z, n, j, 0, err, &nomem);
      if( k==0 ) return PS_ERROR;
      j = str_scan(z, n, k);
    }else if( ps_json_lenient ){
      lenient_note(PS_JSON_LENIENT_CTRL, j, (unsigned char)z[j]);
      j = str_scan(z, n, j+1);
    }else{
      return ps_err_at(err, (int64_t)j, "control character 0x%02x inside a string", (unsigned char)z[j]);
    }
  }
}

int ps_json_number(const char *z, size_t n, size_t *pi, PsDec *d, PsErr *err){
  size_t i = *pi, i0 = i;
  uint64_t m = 0; int nd = 0; int32_t e = 0; int inexact = 0, dropped = 0;
  memset(d, 0, sizeof(*d));
  d->bInt = 1;
  if( i<n && z[i]=='-' ){ d->neg = 1; i++; }
  if( i>=n || z[i]<'0' || z[i]>'9' ) return ps_err_at(err, (int64_t)i0, "expected a number");
  if( z[i]=='0' ){
    i++;
  }else{
    while( i<n && z[i]>='0' && z[i]<='9' ){
      if( nd<19 ){ m = m*10 + (uint64_t)(z[i]-'0'); if( m ) nd++; }
      else { e++; dropped = 1; if( z[i]!='0' ) inexact = 1; }
      i++;
    }
  }
  if( i<n && z[i]=='.' ){
    i++; d->bInt = 0;
    if( i>=n || z[i]<'0' || z[i]>'9' ) return ps_err_at(err, (int64_t)i, "expected a digit after '.'");
    while( i<n && z[i]>='0' && z[i]<='9' ){
      if( nd<19 ){ m = m*10 + (uint64_t)(z[i]-'0'); e--; if( m ) nd++; }
      else { dropped = 1; if( z[i]!='0' ) inexact = 1; }
      i++;
    }
  }
  if( i<n && (z[i]=='e' || z[i]=='E') ){
    i++; d->bInt = 0;
    int eneg = 0; int64_t x = 0;
    if( i<n && (z[i]=='+' || z[i]=='-') ){ eneg = z[i]=='-'; i++; }
    if( i>=n || z[i]<'0' || z[i]>'9' ) return ps_err_at(err, (int64_t)i, "expected a digit in the exponent");
    while( i<n && z[i]>='0' && z[i]<='9' ){
      if( x<100000000 ) x = x*10 + (z[i]-'0');
      i++;
    }
    e += (int32_t)(eneg ? -x : x);
  }
  d->mant = m; d->exp10 = e; d->bInexact = (uint8_t)inexact; d->bDropped = (uint8_t)dropped;
  *pi = i;
  return PS_OK;
}

int ps_dec_parse(const char *z, size_t n, PsDec *d){
  size_t i = 0;
  if( n==0 ) return -1;
  if( ps_json_number(z, n, &i, d, 0) ) return -1;
  return i==n ? 0 : -1;
}

static const uint64_t p10[20] = {
  1ull,10ull,100ull,1000ull,10000ull,100000ull,1000000ull,10000000ull,100000000ull,
  1000000000ull,10000000000ull,100000000000ull,1000000000000ull,10000000000000ull,
  100000000000000ull,1000000000000000ull,10000000000000000ull,100000000000000000ull,
  1000000000000000000ull,10000000000000000000ull
};

int ps_dec_scale(const PsDec *d, int scale, int64_t *pOut){
  uint64_t m = d->mant, r;
  int64_t e = (int64_t)d->exp10 + scale;
  if( m==0 ){ *pOut = 0; return 0; }
  if( e>=0 ){
    if( e>19 ) return -1;
    if( m > UINT64_MAX / p10[e] ) return -1;
    r = m * p10[e];
  }else{
    if( e < -19 ){ *pOut = 0; return 0; }   /* |value| < 10^-19 of a unit: rounds to 0 */
    uint64_t div = p10[-e], q = m / div, rem = m % div;
    /* round half away from zero; a dropped non-zero digit breaks an exact tie upwards */
    uint64_t half = div/2;
    if( rem > half || (rem==half && (div%2==0)) ) q++;
    else if( rem==half && d->bInexact ) q++;
    r = q;
  }
  if( d->neg ){
    if( r > (uint64_t)INT64_MAX + 1 ) return -1;
    *pOut = (int64_t)(0 - r);
  }else{
    if( r > (uint64_t)INT64_MAX ) return -1;
    *pOut = (int64_t)r;
  }
  return 0;
}

int ps_dec_int64(const PsDec *d, int64_t *pOut){
  if( !d->bInt || d->bDropped ) return -1;
  return ps_dec_scale(d, 0, pOut);
}

/* ---------------------------------------------------------------- skip */

static int skip_literal(const char *z, size_t n, size_t *pi, const char *lit, size_t k, PsErr *err){
  if( *pi + k > n || memcmp(z + *pi, lit, k)!=0 )
    return ps_err_at(err, (int64_t)*pi, "expected a JSON value");
  *pi += k;
  return PS_OK;
}

/* Skips an object key and its ':' (and the whitespace after it); *pi ends at the value. */
static int skip_key(const char *z, size_t n, size_t *pi, const char *zExpected, PsErr *err){
  size_t i = *pi;
  if( i>=n || z[i]!='"' ) return ps_err_at(err, (int64_t)i, "%s", zExpected);
  if( skip_string(z, n, &i, err) ) return PS_ERROR;
  i = ps_json_ws(z, n, i);
  if( i>=n || z[i]!=':' ) return ps_err_at(err, (int64_t)i, "expected ':' after an object key");
  *pi = ps_json_ws(z, n, i+1);
  return PS_OK;
}

_Thread_local int ps_json_depth_limit = PS_JSON_MAX_DEPTH;

int ps_json_skip(const char *z, size_t n, size_t *pi, PsErr *err){
  return ps_json_skip_poll(z, n, pi, err, 0, 0);
}

int ps_json_skip_poll(const char *z, size_t n, size_t *pi, PsErr *err,
                      int (*xPoll)(void*, size_t), void *pArg){
  /* Iterative: a stack of container kinds bounded by PS_JSON_MAX_DEPTH. 1 bit per level. */
  unsigned char stk[(PS_JSON_MAX_DEPTH+7)/8];
  int depth = 0;
  /* profsql_config('max_json_depth'), never beyond the stack above */
  const int lim = ps_json_depth_limit < PS_JSON_MAX_DEPTH ? ps_json_depth_limit : PS_JSON_MAX_DEPTH;
  size_t i = ps_json_ws(z, n, *pi), iPoll = i;
  PsDec d;
  for(;;){
    /* expect a value at i */
    if( xPoll && i - iPoll >= PS_JSON_POLL_STEP ){
      if( xPoll(pArg, i - iPoll) ){
        ps_err(err, "interrupted");
        if( err ) err->rc = PS_INTERRUPT;
        return PS_ERROR;
      }
      iPoll = i;
    }
    if( i>=n ) return ps_err_at(err, (int64_t)i, "unexpected end of input, expected a JSON value");
    switch( z[i] ){
      case '"': if( skip_string(z, n, &i, err) ) return PS_ERROR; break;
      case '{': case '[': {
        int obj = z[i]=='{';
        if( depth>=lim )
          return ps_err_at(err, (int64_t)i, "JSON nested deeper than %d levels", lim);
        if( obj ) stk[depth>>3] |= (unsigned char)(1<<(depth&7));
        else stk[depth>>3] &= (unsigned char)~(1<<(depth&7));
        depth++;
        i = ps_json_ws(z, n, i+1);
        if( i<n && z[i]==(obj ? '}' : ']') ){ i++; depth--; break; }
        if( obj && skip_key(z, n, &i, "expected a string key or '}'", err) ) return PS_ERROR;
        continue;   /* parse the first member's value */
      }
      case 't': if( skip_literal(z, n, &i, "true", 4, err) ) return PS_ERROR; break;
      case 'f': if( skip_literal(z, n, &i, "false", 5, err) ) return PS_ERROR; break;
      case 'n': if( skip_literal(z, n, &i, "null", 4, err) ) return PS_ERROR; break;
      default:
        if( z[i]=='-' || (z[i]>='0' && z[i]<='9') ){
          /* numbers without an exponent (the common case: args, and a Chrome event's "tts")
          ** need no decimal conversion: -?(0|[1-9][0-9]*)(.[0-9]+)? ends where ps_json_number
          ** would; anything else (an exponent, a bad literal) goes to it, for its errors */
          size_t j = i + (z[i]=='-');
          if( j<n && (unsigned)(z[j]-'0')<10 ){
            if( z[j]=='0' ) j++;
            else while( j<n && (unsigned)(z[j]-'0')<10 ) j++;
            int ok = 1;
            if( j<n && z[j]=='.' ){
              size_t f = ++j;
              while( j<n && (unsigned)(z[j]-'0')<10 ) j++;
              ok = j>f;
            }
            if( ok && (j>=n || (z[j]!='e' && z[j]!='E' && (unsigned)(z[j]-'0')>=10)) ){ i = j; break; }
          }
          if( ps_json_number(z, n, &i, &d, err) ) return PS_ERROR;
        }else if( z[i]==']' && depth>0 && !((stk[(depth-1)>>3] >> ((depth-1)&7)) & 1) && ps_json_lenient ){
          /* a value expected in an array, a ']' found: only after a ',' (an empty array closed
          ** at its '['), so a trailing comma */
          lenient_note(PS_JSON_LENIENT_COMMA, comma_before(z, i), ']');
          i++; depth--;
        }else{
          return ps_err_at(err, (int64_t)i, "expected a JSON value");
        }
    }
    /* after a value: close containers or move to the next member */
    for(;;){
      if( depth==0 ){ *pi = i; return PS_OK; }
      int obj = (stk[(depth-1)>>3] >> ((depth-1)&7)) & 1;
      i = ps_json_ws(z, n, i);
      if( i<n && z[i]==',' ){
        i = ps_json_ws(z, n, i+1);
        if( obj && (i>=n || z[i]!='"') && i<n && z[i]=='}' && ps_json_lenient ){
          lenient_note(PS_JSON_LENIENT_COMMA, comma_before(z, i), '}');   /* a trailing comma */
          i++; depth--;
          continue;
        }
        if( obj && skip_key(z, n, &i, "expected a string key", err) ) return PS_ERROR;
        break;   /* next value */
      }
      if( i<n && z[i]==(obj ? '}' : ']') ){ i++; depth--; continue; }
      if( i>=n ) return ps_err_at(err, (int64_t)i, "unexpected end of input inside %s",
                                  obj ? "an object" : "an array");
      return ps_err_at(err, (int64_t)i, obj ? "expected ',' or '}'" : "expected ',' or ']'");
    }
  }
}

int ps_json_member(const char *z, size_t n, size_t *pi, size_t k, PsJsonMember *m, int bSkip, PsErr *err){
  size_t i = ps_json_ws(z, n, *pi);
  if( i<n && z[i]=='}' ){ *pi = i+1; return 0; }
  if( k>0 && i<n ){
    if( z[i]!=',' ){ ps_err_at(err, (int64_t)i, "expected ',' or '}'"); return -1; }
    i = ps_json_ws(z, n, i+1);
  }
  if( i>=n ){ ps_err_at(err, (int64_t)i, "unexpected end of input inside an object"); return -1; }
  if( z[i]!='"' ){
    if( k>0 && z[i]=='}' && ps_json_lenient ){
      lenient_note(PS_JSON_LENIENT_COMMA, comma_before(z, i), '}');   /* a trailing comma */
      *pi = i+1;
      return 0;
    }
    ps_err_at(err, (int64_t)i, "expected a string key");
    return -1;
  }
  m->q = i;
  if( ps_json_skip(z, n, &i, err) ) return -1;
  m->kn = i - m->q - 2;
  i = ps_json_ws(z, n, i);
  if( i>=n || z[i]!=':' ){
    ps_err_at(err, (int64_t)i, i>=n ? "unexpected end of input inside an object" : "expected ':'");
    return -1;
  }
  m->v = i = ps_json_ws(z, n, i+1);
  m->e = 0;
  if( bSkip ){
    if( ps_json_skip(z, n, &i, err) ) return -1;
    m->e = i;
  }else if( i>=n ){
    ps_err_at(err, (int64_t)i, "unexpected end of input, expected a JSON value");
    return -1;
  }
  *pi = i;
  return 1;
}

int ps_json_elem(const char *z, size_t n, size_t *pi, size_t k, PsErr *err){
  size_t i = ps_json_ws(z, n, *pi);
  if( i<n && z[i]==']' ){ *pi = i+1; return 0; }
  if( k>0 && i<n ){
    if( z[i]!=',' ){ ps_err_at(err, (int64_t)i, "expected ',' or ']'"); return -1; }
    i = ps_json_ws(z, n, i+1);
    if( i<n && z[i]==']' && ps_json_lenient ){
      lenient_note(PS_JSON_LENIENT_COMMA, comma_before(z, i), ']');   /* a trailing comma */
      *pi = i+1;
      return 0;
    }
  }
  if( i>=n ){ ps_err_at(err, (int64_t)i, "unexpected end of input inside an array"); return -1; }
  *pi = i;
  return 1;
}

int ps_json_find_key(const char *z, size_t n, size_t i, const char *zKey, size_t *pv){
  size_t nKey = strlen(zKey);
  int bFound = 0;
  if( i>=n || z[i]!='{' ) return -1;
  i = ps_json_ws(z, n, i+1);
  if( i<n && z[i]=='}' ) return 0;
  for(;;){
    if( i>=n || z[i]!='"' ){
      /* a '}' where a key belongs: after a ',' (an empty object ends above), a trailing comma */
      if( i<n && z[i]=='}' && ps_json_lenient ){
        lenient_note(PS_JSON_LENIENT_COMMA, comma_before(z, i), '}');
        return bFound;
      }
      return -1;
    }
    size_t k0 = i+1;
    if( skip_string(z, n, &i, 0) ) return -1;
    size_t kn = i-1-k0;
    i = ps_json_ws(z, n, i);
    if( i>=n || z[i]!=':' ) return -1;
    i = ps_json_ws(z, n, i+1);
    /* a key given twice: the last one counts (JSON.parse, Python's json), so read on */
    if( kn==nKey && memcmp(z+k0, zKey, nKey)==0 ){ *pv = i; bFound = 1; }
    if( ps_json_skip(z, n, &i, 0) ) return -1;
    i = ps_json_ws(z, n, i);
    if( i<n && z[i]==',' ){ i = ps_json_ws(z, n, i+1); continue; }
    if( i<n && z[i]=='}' ) return bFound;
    return -1;
  }
}

/* past the string whose opening quote is at i (escapes stepped over), or n */
static size_t valid_string_end(const char *z, size_t n, size_t i){
  for(i++; i<n; ){
    const char *q = memchr(z+i, '"', n-i);
    if( q==0 ) return n;
    size_t j = (size_t)(q - z), k = j;
    while( k>i && z[k-1]=='\\' ) k--;
    if( ((j-k) & 1)==0 ) return j+1;      /* an even run of backslashes: the quote ends it */
    i = j+1;
  }
  return n;
}

int ps_json_skip_valid(const char *z, size_t n, size_t *pi){
  size_t i = *pi;
  if( i>=n ) return -1;
  char c = z[i];
  if( c=='"' ){
    i = valid_string_end(z, n, i);
  }else if( c=='{' || c=='[' ){
    size_t depth = 0;
    while( i<n ){
      c = z[i];
      if( c=='"' ){ i = valid_string_end(z, n, i); continue; }
      i++;
      if( c=='{' || c=='[' ) depth++;
      else if( (c=='}' || c==']') && --depth==0 ) break;
    }
    if( depth ) return -1;
  }else{
    while( i<n && z[i]!=',' && z[i]!='}' && z[i]!=']' && z[i]!=' ' && z[i]!='\n' && z[i]!='\r' && z[i]!='\t' ) i++;
  }
  *pi = i;
  return 0;
}

int ps_json_find_keys_valid(const char *z, size_t n, size_t i, const char *const *azKey, int nKey, size_t *aV){
  for(int k=0; k<nKey; k++) aV[k] = (size_t)-1;
  if( i>=n || z[i]!='{' ) return -1;
  i++;
  for(;;){
    i = ps_json_ws(z, n, i);
    if( i<n && z[i]==',' ){ i++; continue; }        /* (between members, and a trailing one) */
    if( i>=n ) return -1;
    if( z[i]=='}' ){
      int nFound = 0;
      for(int k=0; k<nKey; k++) nFound += aV[k]!=(size_t)-1;
      return nFound;
    }
    if( z[i]!='"' ) return -1;
    size_t k0 = i+1;
    i = valid_string_end(z, n, i);
    if( i>=n ) return -1;
    size_t kn = i-1-k0;
    i = ps_json_ws(z, n, i);
    if( i>=n || z[i]!=':' ) return -1;
    i = ps_json_ws(z, n, i+1);
    for(int k=0; k<nKey; k++){          /* a key given twice: the last one, as JSON.parse */
      if( strlen(azKey[k])==kn && memcmp(z+k0, azKey[k], kn)==0 ) aV[k] = i;
    }
    if( ps_json_skip_valid(z, n, &i) ) return -1;
  }
}

int ps_json_find_key_valid(const char *z, size_t n, size_t i, const char *zKey, size_t *pv){
  size_t v;
  int rc = ps_json_find_keys_valid(z, n, i, &zKey, 1, &v);
  if( rc==1 ) *pv = v;
  return rc;
}

/* ---------------------------------------------------------------- leniency undone */

int ps_json_normalize(const char *z, size_t n, PsBuf *b){
  size_t s = 0;            /* z[s..) is still to be written (once bOut) */
  int bOut = 0;
  size_t i = 0;
  while( i<n ){
    unsigned char c = (unsigned char)z[i];
    if( c=='"' ){
      /* a string: to its closing quote, escapes stepped over, raw control characters escaped */
      size_t j = str_scan(z, n, i+1);
      for(;;){
        if( j>=n ){ i = n; break; }
        if( z[j]=='"' ){ i = j+1; break; }
        if( z[j]=='\\' ){ j = str_scan(z, n, j+2 < n ? j+2 : n); continue; }
        char e[8];
        snprintf(e, sizeof(e), "\\u%04x", (unsigned char)z[j]);
        if( ps_buf_append(b, z+s, j-s) || ps_buf_append(b, e, 6) ) return -1;
        bOut = 1; s = j+1;
        j = str_scan(z, n, j+1);
      }
      continue;
    }
    if( c==',' ){
      size_t j = ps_json_ws(z, n, i+1);
      if( j<n && (z[j]==']' || z[j]=='}') ){
        if( ps_buf_append(b, z+s, i-s) ) return -1;     /* the comma left out */
        bOut = 1; s = i+1;
      }
      i = j;
      continue;
    }
    i++;
  }
  if( !bOut ) return 0;
  return ps_buf_append(b, z+s, n-s) ? -1 : 1;
}

/* ---------------------------------------------------------------- the text rule */

size_t ps_json_string_offset(const char *z, size_t n, size_t iQuote, size_t k){
  size_t i = iQuote+1, d = 0;
  while( i<n && z[i]!='"' ){
    size_t nRaw = 1, nDec = 1;
    if( z[i]=='\\' && i+1<n ){
      nRaw = 2;
      if( z[i+1]=='u' ){
        unsigned cp, lo;
        nRaw = 6;
        if( read_hex4(z, n, i+2, &cp) ) return i;
        if( cp>=0xD800 && cp<=0xDBFF && i+12<=n && z[i+6]=='\\' && z[i+7]=='u'
         && read_hex4(z, n, i+8, &lo)==0 && lo>=0xDC00 && lo<=0xDFFF ){
          nRaw = 12; nDec = 4;
        }else if( cp>=0xD800 && cp<=0xDFFF ){
          nDec = 3;                    /* a lone surrogate decodes to U+FFFD */
        }else{
          nDec = cp<0x80 ? 1 : cp<0x800 ? 2 : 3;
        }
      }
    }
    if( k < d + nDec ) return i;
    d += nDec; i += nRaw;
  }
  return i;
}


/* ---------------------------------------------------------------- duplicate keys */

void ps_json_keys_free(PsJsonKeys *k){ free(k->a); memset(k, 0, sizeof(*k)); }

void ps_json_keys_reset(PsJsonKeys *k){ k->gen++; k->nUsed = 0; }

/* A quick hash of a key (keys are short: one multiply per 8 bytes). */
/* (keyed: ps_util.h; an object's keys are the input's to choose) */
static inline size_t keys_hash(const char *z, size_t n){
  return (size_t)ps_hash(z, n);
}

/* The slot of the key at z[off..off+len) in the table: its entry, or a free one. */
static PsJsonKeySlot *keys_slot(PsJsonKeys *k, const char *z, size_t off, size_t len){
  size_t mask = k->nSlot - 1, h = keys_hash(z+off, len) & mask;
  for(;;){
    ps_nProbe++;
    PsJsonKeySlot *e = &k->a[h];
    if( e->gen!=k->gen || (e->len==len && memcmp(z+e->off, z+off, len)==0) ) return e;
    h = (h+1) & mask;
  }
}

int ps_json_keys_put(PsJsonKeys *k, const char *z, size_t off, size_t len, uint32_t val,
                     uint32_t *pPrev, size_t *pPrevOff){
  if( k->gen==0 ) k->gen = 1;
  if( (k->nUsed+1)*2 > k->nSlot ){
    /* grow, keeping this object's keys (entries of older objects are dropped) */
    size_t nOld = k->nSlot;
    PsJsonKeySlot *aOld = k->a;
    k->nSlot = nOld ? nOld*2 : 64;
    k->a = calloc(k->nSlot, sizeof(PsJsonKeySlot));
    if( k->a==0 ){ k->a = aOld; k->nSlot = nOld; return -1; }
    for(size_t j=0; j<nOld; j++){
      if( aOld[j].gen==k->gen ) *keys_slot(k, z, aOld[j].off, aOld[j].len) = aOld[j];
    }
    free(aOld);
  }
  PsJsonKeySlot *e = keys_slot(k, z, off, len);
  int bSeen = e->gen==k->gen;
  if( bSeen ){
    if( pPrev ) *pPrev = e->val;
    if( pPrevOff ) *pPrevOff = e->off;
  }else{
    k->nUsed++;
  }
  e->gen = k->gen; e->off = off; e->len = len; e->val = val;
  return bSeen;
}


/* ---------------------------------------------------------------- writing JSON */

/* The shortest digits of v > 0 (finite): *pm the digits as an integer (no trailing zeros), *pn
** how many, *pk the power of ten of the last one (v reads back from pm * 10^pk). For each
** precision p = 1..17 the correctly rounded p-digit decimal (glibc's "%.*e", exact) is tried,
** then the p-digit decimals next to it: at a power of two the gap below v is half the gap
** above, so the nearest p-digit decimal can miss while the one above it still reads back. */
static void float_digits(double v, uint64_t *pm, int *pn, int *pk){
  char t[40];
  for(int p=1; p<=17; p++){
    snprintf(t, sizeof(t), "%.*e", p-1, v);
    uint64_t m = 0;
    const char *q = t;
    for(; *q && *q!='e'; q++) if( *q>='0' && *q<='9' ) m = m*10 + (uint64_t)(*q - '0');
    int e = atoi(q+1), k = e - (p-1);
    uint64_t lo = 1;
    for(int j=1; j<p; j++) lo *= 10;                /* 10^(p-1): the smallest p-digit m */
    int found = 0;
    if( strtod(t, 0)==v ) found = 1;
    for(int d=0; d<2 && !found; d++){
      uint64_t m2 = d==0 ? m+1 : m-1;
      int k2 = k;
      if( m2 < lo ){ m2 = m2*10 + 9; k2--; }       /* 10..0 - 1 = 9..9: one digit more, same p */
      if( m2 >= lo*10 ){ m2 /= 10; k2++; }
      snprintf(t, sizeof(t), "%llue%d", (unsigned long long)m2, k2);
      if( strtod(t, 0)==v ){ m = m2; k = k2; found = 1; }
    }
    if( found ){
      while( m && m%10==0 ){ m /= 10; k++; }
      int n = 0;
      for(uint64_t x=m; x; x/=10) n++;
      *pm = m; *pn = n; *pk = k;
      return;
    }
  }
  /* not reached: 17 significant digits always read back */
  *pm = 0; *pn = 1; *pk = 0;
}

size_t ps_fmt_float(char *buf, double v){
  if( !isfinite(v) ){ memcpy(buf, "null", 5); return 4; }
  size_t i = 0;
  if( signbit(v) ){ buf[i++] = '-'; v = -v; }
  if( v==0 ){ memcpy(buf+i, "0.0", 4); return i+3; }
  uint64_t m; int n, k;
  float_digits(v, &m, &n, &k);
  char d[24];
  snprintf(d, sizeof(d), "%llu", (unsigned long long)m);
  int kk = n + k;                                  /* 10^(kk-1) <= v < 10^kk */
  if( k>=0 && kk<=16 ){                            /* 1234e7 -> 12340000000.0 */
    memcpy(buf+i, d, (size_t)n); i += (size_t)n;
    for(int j=n; j<kk; j++) buf[i++] = '0';
    memcpy(buf+i, ".0", 2); i += 2;
  }else if( kk>0 && kk<=16 ){                      /* 1234e-2 -> 12.34 */
    memcpy(buf+i, d, (size_t)kk); i += (size_t)kk;
    buf[i++] = '.';
    memcpy(buf+i, d+kk, (size_t)(n-kk)); i += (size_t)(n-kk);
  }else if( kk>-5 && kk<=0 ){                      /* 1234e-6 -> 0.001234 */
    buf[i++] = '0'; buf[i++] = '.';
    for(int j=0; j<-kk; j++) buf[i++] = '0';
    memcpy(buf+i, d, (size_t)n); i += (size_t)n;
  }else{                                           /* 1e30, 1234e30 -> 1.234e33, 1e-7 */
    buf[i++] = d[0];
    if( n>1 ){ buf[i++] = '.'; memcpy(buf+i, d+1, (size_t)(n-1)); i += (size_t)(n-1); }
    i += (size_t)snprintf(buf+i, 8, "e%d", kk-1);
  }
  buf[i] = 0;
  return i;
}

int ps_json_serde_string(PsBuf *b, const char *z, size_t n){
  if( !ps_text_check(z, n, 0) ){
    /* a cut or broken character (or a NUL): written repaired, so the JSON stays valid UTF-8 */
    PsBuf t; memset(&t, 0, sizeof(t));
    int rc = ps_buf_text(&t, z, n) ? -1 : ps_json_serde_string(b, t.z ? t.z : "", t.n);
    ps_buf_free(&t);
    return rc;
  }
  if( ps_buf_append(b, "\"", 1) ) return -1;
  size_t s = 0;
  for(size_t i=0; i<n; i++){
    unsigned char c = (unsigned char)z[i];
    if( c>=0x20 && c!='"' && c!='\\' ) continue;
    char e[8];
    size_t m = 2;
    e[0] = '\\';
    switch( c ){
      case '"': e[1] = '"'; break;
      case '\\': e[1] = '\\'; break;
      case '\b': e[1] = 'b'; break;
      case '\f': e[1] = 'f'; break;
      case '\n': e[1] = 'n'; break;
      case '\r': e[1] = 'r'; break;
      case '\t': e[1] = 't'; break;
      default: snprintf(e, sizeof(e), "\\u%04x", c); m = 6;
    }
    if( ps_buf_append(b, z+s, i-s) || ps_buf_append(b, e, m) ) return -1;
    s = i+1;
  }
  if( ps_buf_append(b, z+s, n-s) ) return -1;
  return ps_buf_append(b, "\"", 1);
}

int ps_json_quote(PsBuf *b, const char *z, size_t n, size_t *pBad){
  char *zFix = 0; size_t bad;
  if( !ps_text_check(z, n, &bad) ){
    if( pBad ) *pBad = bad;
    size_t m = ps_text_repair(z, n, 0);
    zFix = malloc(m ? m : 1);
    if( zFix==0 ) return -1;
    ps_text_repair(z, n, zFix);
    z = zFix; n = m;
  }
  int rc = ps_buf_append(b, "\"", 1);
  size_t i = 0;
  while( rc==0 && i<n ){
    size_t j = i;
    while( j<n && (unsigned char)z[j]>=0x20 && z[j]!='"' && z[j]!='\\' ) j++;
    if( j>i ) rc = ps_buf_append(b, z+i, j-i);
    if( rc || j>=n ){ i = j; break; }
    char esc[8];
    unsigned char c = (unsigned char)z[j];
    if( c=='"' || c=='\\' ){ esc[0] = '\\'; esc[1] = (char)c; rc = ps_buf_append(b, esc, 2); }
    else if( c=='\n' ) rc = ps_buf_append(b, "\\n", 2);
    else if( c=='\t' ) rc = ps_buf_append(b, "\\t", 2);
    else if( c=='\r' ) rc = ps_buf_append(b, "\\r", 2);
    else { snprintf(esc, sizeof(esc), "\\u%04x", c); rc = ps_buf_append(b, esc, 6); }
    i = j+1;
  }
  free(zFix);
  if( rc==0 ) rc = ps_buf_append(b, "\"", 1);
  return rc;
}

int ps_fmt_double(double d, int bFloat, char *buf){
  if( isnan(d) ) return snprintf(buf, 32, "NaN");
  if( isinf(d) ) return snprintf(buf, 32, d>0 ? "Infinity" : "-Infinity");
  /* a shorter form that reads back exactly is also what %.15g prints (it drops trailing
  ** zeros), so trying 15, 16 and 17 digits finds the shortest (floats: 6 to 9) */
  int k = 0;
  for(int p = bFloat ? 6 : 15; p <= (bFloat ? 9 : 17); p++){
    k = snprintf(buf, 32, "%.*g", p, d);
    if( bFloat ? strtof(buf, 0)==(float)d : strtod(buf, 0)==d ) break;
  }
  return k;
}
