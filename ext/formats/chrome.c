/*
** chrome.c — parser for the Chrome/Catapult Trace Event Format (JSON).
**
** Spec: "Trace Event Format" (Google, docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU),
** with the behaviour of real writers and readers recorded in shared/corpus/README.md.
**
** Input forms
**   [ {event}, ... ]                 array form; the closing ']' may be missing, with or without a
**                                    trailing comma and whitespace (the spec allows it)
**   { "traceEvents": [...], ... }    object form; every other top-level key becomes a
**                                    profile_metadata row ('trace', key, JSON text)
**   {}                               empty events (TensorBoard appends one) are skipped and counted
** JSON as trace_processor reads it: a trailing comma (',' right before ']' or '}') anywhere, and
** raw control characters inside strings, are read (as if the comma were absent; the character
** kept) with a 'lenient_json' diagnostic each (ps_json_lenient, set for this reader only: json.h).
** JSON text the capture hands out cut from the source (args, metadata values, frame attrs) is
** given back as RFC 8259 text (ps_json_normalize) once the capture has met either.
**
** What each event becomes (one row per event unless merged):
**   ts, dur        µs in the file -> integer ns, rounded to nearest (ties away from zero), exact
**                  for decimal input (no binary floating point: 1.1 -> 1100); a number written
**                  as a string ("300") reads as the number
**   skipped        no row, a 'skipped_event' diagnostic: a 'ph' that is not one character
**                  ("XY", "", 5), a 'ts', 'dur', 'tts' or 'tdur' that is a string but not a
**                  number ("100a"); an M event keeps its row and ignores such a time (an
**                  'other' diagnostic). A bad 's' or 'bp' is ignored (an 'other' diagnostic)
**   pid, tid       a pid without a tid (or with "tid":null) is on its process's main thread:
**                  tid = pid (as trace_processor reads it; Linux's main thread has tid = pid)
**   B/E            matched per thread in ts order (E closes the innermost open B of the same
**                  name among the 256 innermost; an E with no name closes the innermost B) into
**                  one row ph='B' with dur; a B never ended
**                  keeps dur NULL ('unclosed_begin'); an E that closes nothing is kept as its own
**                  row ('unmatched_end')
**   b/e, S/F       the same, per async track: category + id (id2.local ids scoped to the pid:
**                  a process-scoped track; id2.global and plain ids: a global one), plus the
**                  optional 'scope' string
**   n, T, p        async instants/steps on their async track (T and p keep a 'dur' they give)
**   X              a complete slice (an X without dur is an instant-like row with dur NULL)
**   i/I/R          instants; thread-scoped ones (s absent or 't') nest in the thread's slices;
**                  "s":"p" on one instant track per pid ("process instants pid=<pid>"), "s":"g"
**                  on one for the whole capture ("global instants"); these have depth NULL
**   s/t/f          flow events: nest on the thread; linked to the slice they bind to
**                  (s and t: the enclosing slice; f: the next slice to begin, or the enclosing
**                  one with "bp":"e")
**   C              counters, on a process-scoped track per (pid, name, id); every series stays
**                  in args
**   M              metadata events: process_name/thread_name name the threads; also rows in
**                  profile_metadata
**   others         (P, O/N/D, V/v, c, '(' ')', unknown) rows with their ph
**   stacks         the top-level stackFrames (frame records), samples (sample rows after the
**                  events), sf / stack on events (stack_id), P events (samples), DevTools'
**                  Profile / ProfileChunk / CpuProfile V8 profiles (sample rows on the profiled
**                  thread): see ch_stacks and ch_v8_profiles below, and ext/model/stacks.h
** Rows are numbered in file order of their first event. depth/parent_id come from containment
** per track (capture.c: ps_capture_nest).
*/
#include "formats.h"
#include "json_model.h"
#include "../wire/json.h"
#include "../model/stacks.h"
#include "cpuprofile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* aFlags format bits */
#define CH_BP_E    PS_EV_FMT1      /* flow 'f' with "bp":"e" binds to the enclosing slice */
#define CH_HAS_STACK PS_EV_FMT2    /* the event has sf / stack / esf / estack (ch_stacks reads them) */

/* ------------------------------------------------------------------ parser state */

typedef struct ChEvent {
  size_t off;                 /* offset of '{' */
  int nKey;
  uint8_t ph, s, bp;
  /* values read that cannot be used (0: none; else the value's offset; a later valid one of the
  ** same key clears it, the last one winning): 'ph', 's', 'bp' not one character; 'ts', 'dur',
  ** 'tts', 'tdur' strings that are not numbers */
  size_t badPh, badS, badBp, badTs, badDur, badTts, badTdur;
  uint8_t hasTs, hasDur;
  int64_t ts, dur;
  uint32_t name, cat;
  PsValue pid, tid;
  uint8_t hasId, idLocal;     /* id present; id came from id2.local */
  PsBuf id;                   /* the id as text (decoded string or number literal) */
  PsBuf scope;                /* the optional "scope" string */
  size_t argsOff;             /* offset of the args value, 0 if none */
  uint8_t hasStack;           /* sf, stack, esf or estack present (read after the parse) */
} ChEvent;

/* A row's PsEvents.aLen: where the parse saw its args value, so that the lazy columns do not look
** for it again: CH_ARGS_SEARCH not noted (look in the event object), CH_ARGS_NONE the event has
** none, else CH_ARGS_AT + the offset of the value from the event's '{'. */
#define CH_ARGS_SEARCH 0
#define CH_ARGS_NONE   1
#define CH_ARGS_AT     2

typedef struct ProcName { PsValue pid; uint32_t name; } ProcName;

/* An entry of ch_string_id's cache: a string's first and last 8 bytes (zero-padded; the same
** bytes twice when it is shorter than 16), its length and pool id (0: empty). A string of at
** most 16 bytes is the entry's when these match, with no look at the pool. */
typedef struct ChRecent { uint64_t w0, w1; uint32_t n, id; } ChRecent;

typedef struct Chrome {
  const char *z; size_t n;
  PsCapture *cap;
  PsErr *err;
  PsBuf scratch;              /* decoded strings */
  PsBuf key;                  /* composite track keys */
  ChEvent ev;
  int64_t lastThread;         /* cache of the last (pid, tid) lookup */
  PsValue lastPid, lastTid;
  uint32_t *aKeyTrack; size_t nKeyTrack;   /* pool id of a track key -> track + 1 */
  ProcName *aProc; size_t nProc, nProcAlloc;
  size_t nEmpty;
  size_t aPhCount[256];
  int bTopArray;
  size_t regionStart, regionEnd;  /* bytes this parser covers (for the row estimate) */
  size_t stopAt;              /* parallel parse: stop when an event starts exactly here */
  ChRecent aRecent[256][2];   /* recently interned names/categories: a 2-way cache (ch_string_id) */
  PsJsonKeys kTop;            /* keys of the top-level object (duplicates: the last one wins) */
  size_t (*aMember)[2];       /* per top-level member: the metadata rows [m0, m1) its value made */
  size_t nMember, nMemberAlloc;
  const char *zSystem;        /* the decoded 'systemTraceEvents' string (capture arena), or NULL */
  size_t nSystem;
  PsJsonLenient lenient;      /* ps_json_lenient while this parser reads: ch_note */
  size_t noteNext;            /* leniencies before this offset were noted (by an earlier read) */
  int bNoteNomem;             /* a note's diagnostic ran out of memory */
  PsBuf norm;                 /* ps_json_normalize's output */
} Chrome;

/* A leniency (json.h) met while this parser reads: a 'lenient_json' diagnostic. The bytes are
** read in file order, and some again later (an M event's args, the keys of an event with a
** repeated key, stacks): a leniency at or before the last one noted was noted already. */
static void ch_note(void *pArg, int kind, size_t off, int c){
  Chrome *p = pArg;
  if( off < p->noteNext ) return;
  p->noteNext = off+1;
  int rc = kind==PS_JSON_LENIENT_COMMA
    ? ps_diag(p->cap, PS_DIAG_LENIENT_JSON, (int64_t)off, "a trailing comma before '%c' at byte %zu; read as if "
              "absent (RFC 8259 forbids it; trace_processor and the Perfetto UI accept it)", c, off)
    : ps_diag(p->cap, PS_DIAG_LENIENT_JSON, (int64_t)off, "a raw control character 0x%02x inside a string at "
              "byte %zu; kept as it is", c, off);
  if( rc ) p->bNoteNomem = 1;
}
/* Lenient reading without diagnostics: the reads after the parse (stacks, lazy columns) and the
** split search, which looks ahead of the parse. */
static const PsJsonLenient ch_quiet = { 0, 0 };
static void ch_lenient_init(Chrome *p){ p->lenient.xNote = ch_note; p->lenient.pArg = p; }

/* The source's JSON text z[v..e) as RFC 8259 text into *pz, *pn: the bytes themselves, or, when
** the capture has met lenient JSON (a 'lenient_json' diagnostic) and this text has some, its
** rewrite (ps_json_normalize) in the capture arena. PS_OK or PS_NOMEM. */
static int ch_strict_json(Chrome *p, size_t v, size_t e, const char **pz, size_t *pn){
  *pz = p->z + v; *pn = e - v;
  if( p->cap->nDiag[PS_DIAG_LENIENT_JSON]==0 ) return PS_OK;
  p->norm.n = 0;
  int r = ps_json_normalize(p->z + v, e - v, &p->norm);
  if( r<0 ) return PS_NOMEM;
  if( r==0 ) return PS_OK;
  char *c = ps_arena_alloc(&p->cap->arena, p->norm.n + 1);
  if( c==0 ) return PS_NOMEM;
  memcpy(c, p->norm.z, p->norm.n); c[p->norm.n] = 0;
  *pz = c; *pn = p->norm.n;
  return PS_OK;
}

/* ps_meta_text(..., PS_META_JSON) of the source's JSON text z[v..e), given back as RFC 8259 text
** (ch_strict_json). A rewritten copy no longer points into the source, so the 'invalid_text'
** diagnostic ps_meta_text gives text from the source that breaks the text rule is given here,
** in the same words. PS_OK or PS_NOMEM. */
static int ch_meta_json(Chrome *p, const char *zScope, const char *zKey, size_t v, size_t e, int64_t off){
  const char *z; size_t n, bad;
  if( ch_strict_json(p, v, e, &z, &n) ) return PS_NOMEM;
  if( z!=p->z + v && !ps_text_check(p->z + v, e - v, &bad) ){
    char zField[300];
    snprintf(zField, sizeof(zField), "%s '%s'", zScope, zKey);
    if( ps_text_diag(p->cap, (int64_t)(v + bad), zField, p->z + v, e - v, bad) ) return PS_NOMEM;
  }
  return ps_meta_text(p->cap, zScope, zKey, z, n, PS_META_JSON, off);
}

/* Inputs at least this big are parsed in parallel (see ch_events). Tests lower it to force
** the split on small inputs and compare with the serial parse. */
size_t ps_chrome_parallel_min = (size_t)32 << 20;
#define CH_MAX_PARTS PS_MAX_PARTS
/* Number of parts merged, and of parts abandoned, over all parses (for tests). */
size_t ps_chrome_splits_merged, ps_chrome_splits_abandoned;

static int ch_err(Chrome *p, size_t off, const char *zExpected){
  if( off>=p->n ) return ps_err_at(p->err, (int64_t)off, "unexpected end of input, %s", zExpected);
  return ps_err_at(p->err, (int64_t)off, "%s", zExpected);
}
/* The same for the event array, which a file cut short leaves open (ps_capture_load then says
** "the input ends inside the traceEvents array ..."). */
static int ch_err_array(Chrome *p, size_t off, const char *zExpected){
  ch_err(p, off, zExpected);
  p->err->zIn = "the traceEvents array";
  return PS_ERROR;
}

static inline size_t ws(Chrome *p, size_t i){ return ps_json_ws(p->z, p->n, i); }

/* Interns the string z[0..n) that ps_json_string read at iQuote, under the text rule (invalid
** UTF-8 or a NUL is stored as U+FFFD, with an 'invalid_text' diagnostic). */
static int ch_intern(Chrome *p, const char *z, size_t n, size_t iQuote, const char *zWhat, uint32_t *pId){
  if( ps_json_intern(p->cap, p->z, p->n, iQuote, z, n, zWhat, pId) ) return ps_nomem(p->err);
  return PS_OK;
}

/* Reads a string value at i (must be '"'); interns it. */
static int ch_string_id(Chrome *p, size_t *pi, const char *zWhat, uint32_t *pId){
  const char *z; size_t n; size_t i0 = *pi;
  if( *pi>=p->n || p->z[*pi]!='"' ){
    char buf[80]; snprintf(buf, sizeof(buf), "expected a string for '%s'", zWhat);
    return ch_err(p, *pi, buf);
  }
  if( ps_json_string(p->z, p->n, pi, &p->scratch, &z, &n, p->err) ) return PS_ERROR;
  /* names and categories repeat: look in a small cache keyed by length and first/last bytes
  ** before hashing the whole string into the pool. Two ways a set, the newest first: with one,
  ** two strings of one slot that alternated missed every time. A hit of up to 16 bytes is
  ** decided by the words alone: no memcmp, no read of the pool. */
  uint64_t w0 = 0, w1 = 0;
  if( n>=8 ){
    memcpy(&w0, z, 8);                  /* (fixed sizes: one load each, not a call) */
    if( n>8 ) memcpy(&w1, z + n - 8, 8);
  }else{
    for(size_t k=0; k<n; k++) w0 |= (uint64_t)(unsigned char)z[k] << (8*k);
  }
  ChRecent *set = p->aRecent[(size_t)(((w0 ^ (w1*31) ^ ((uint64_t)n << 56)) * 0x9E3779B97F4A7C15ull) >> 56)];
  for(int w=0; w<2; w++){
    const ChRecent *r = &set[w];
    if( r->id==0 ) break;
    if( r->w0!=w0 || r->w1!=w1 || r->n!=n ) continue;
    if( n>16 ){
      PsStr s = ps_pool_get(&p->cap->pool, r->id);
      if( memcmp(s.z + 8, z + 8, n - 16)!=0 ) continue;
    }
    *pId = r->id;
    return PS_OK;
  }
  int rc = ch_intern(p, z, n, i0, zWhat, pId);
  if( rc==PS_OK && n<=UINT32_MAX ){
    /* only a string the pool holds as written: one that broke the text rule is stored repaired,
    ** and each time it comes it must go through ch_intern again, for its diagnostic */
    PsStr s = ps_pool_get(&p->cap->pool, *pId);
    if( s.n==n && memcmp(s.z, z, n)==0 ){
      set[1] = set[0];
      set[0].w0 = w0; set[0].w1 = w1; set[0].n = (uint32_t)n; set[0].id = *pId;
    }
  }
  return rc;
}

/* Fast path for the common literal: [-]digits[.digits] with at most 15 integer digits and no
** exponent. Returns 1 and the ns value (rounded to nearest, ties away from zero) with *pi past
** the literal, or 0 to let the exact general path (ps_json_number + ps_dec_scale) handle it. */
static inline int ch_fast_us(const char *z, size_t n, size_t *pi, int64_t *pNs){
  size_t i = *pi;
  int neg = 0;
  if( i<n && z[i]=='-' ){ neg = 1; i++; }
  size_t i0 = i;
  uint64_t v = 0;
  while( i<n && (unsigned)(z[i]-'0')<10 ){ v = v*10 + (uint64_t)(z[i]-'0'); i++; }
  size_t nInt = i - i0;
  if( nInt==0 || nInt>15 || (nInt>1 && z[i0]=='0') ) return 0;
  uint64_t frac = 0; int nf = 0, roundUp = 0;
  if( i<n && z[i]=='.' ){
    i++;
    size_t f0 = i;
    while( i<n && (unsigned)(z[i]-'0')<10 ){
      if( nf<3 ){ frac = frac*10 + (uint64_t)(z[i]-'0'); nf++; }
      else if( nf==3 ){ roundUp = z[i]>='5'; nf = 4; }
      i++;
    }
    if( i==f0 ) return 0;
  }
  if( i<n && (z[i]=='e' || z[i]=='E') ) return 0;
  if( nf>3 ) nf = 3;
  static const uint64_t s[4] = {1000, 100, 10, 1};
  uint64_t ns = v*1000 + frac*s[nf] + (uint64_t)roundUp;
  *pNs = neg ? -(int64_t)ns : (int64_t)ns;
  *pi = i;
  return 1;
}

/* ch_time, ch_char: a value read (*pi past it) that is not what the key needs: no error, the
** event decides what becomes of it. */
#define CH_BAD_VALUE 4

/* Reads a number (or a string holding a number) in µs and converts it to ns. A string that is
** not a number: CH_BAD_VALUE. */
static int ch_time(Chrome *p, size_t *pi, const char *zWhat, int64_t *pNs, uint8_t *pHas){
  size_t i0 = *pi;
  PsDec d;
  char c = i0<p->n ? p->z[i0] : 0;
  if( c=='"' ){
    const char *z; size_t n;
    if( ps_json_string(p->z, p->n, pi, &p->scratch, &z, &n, p->err) ) return PS_ERROR;
    if( ps_dec_parse(z, n, &d) ) return CH_BAD_VALUE;
  }else if( c=='n' && i0+4<=p->n && memcmp(p->z+i0, "null", 4)==0 ){
    *pi += 4; *pHas = 0;
    return PS_OK;
  }else if( c=='-' || (c>='0' && c<='9') ){
    if( ch_fast_us(p->z, p->n, pi, pNs) ){ *pHas = 1; return PS_OK; }
    if( ps_json_number(p->z, p->n, pi, &d, p->err) ) return PS_ERROR;
  }else{
    char buf[80]; snprintf(buf, sizeof(buf), "expected a number for '%s'", zWhat);
    return ch_err(p, i0, buf);
  }
  if( ps_dec_scale(&d, 3, pNs) ){
    return ps_err_at(p->err, (int64_t)i0, "'%s' %.*s is out of range (more than 2^63 ns)", zWhat,
                     (int)((*pi-i0)>40?40:(*pi-i0)), p->z+i0);
  }
  *pHas = 1;
  return PS_OK;
}

/* pid/tid: INTEGER when an integer literal fitting int64, else TEXT (strings, and number
** literals kept exactly as written). */
static int ch_pidtid(Chrome *p, size_t *pi, const char *zWhat, PsValue *v){
  size_t i0 = *pi;
  char c = i0<p->n ? p->z[i0] : 0;
  memset(v, 0, sizeof(*v));
  if( c=='"' ){
    const char *z; size_t n;
    if( ps_json_string(p->z, p->n, pi, &p->scratch, &z, &n, p->err) ) return PS_ERROR;
    v->type = PS_VAL_TEXT;
    return ch_intern(p, z, n, i0, zWhat, &v->s);
  }
  if( c=='n' && i0+4<=p->n && memcmp(p->z+i0, "null", 4)==0 ){ *pi += 4; return PS_OK; }
  if( c>='0' && c<='9' ){
    /* fast path: a short plain integer */
    size_t i = i0; int64_t x = 0;
    while( i<p->n && i-i0<18 && (unsigned)(p->z[i]-'0')<10 ){ x = x*10 + (p->z[i]-'0'); i++; }
    if( (i>=p->n || (p->z[i]!='.' && p->z[i]!='e' && p->z[i]!='E' && (unsigned)(p->z[i]-'0')>=10))
        && !(i-i0>1 && p->z[i0]=='0') ){
      v->type = PS_VAL_INT; v->i = x; *pi = i;
      return PS_OK;
    }
  }
  if( c=='-' || (c>='0' && c<='9') ){
    PsDec d;
    if( ps_json_number(p->z, p->n, pi, &d, p->err) ) return PS_ERROR;
    if( ps_dec_int64(&d, &v->i)==0 ){ v->type = PS_VAL_INT; return PS_OK; }
    size_t nLit = *pi - i0;
    int bU64 = !d.neg && d.bInt && (nLit<20 || (nLit==20 && memcmp(p->z+i0, "18446744073709551615", 20)<=0));
    if( d.bInt && !bU64 ){
      /* an integer beyond 64 bits cannot be an id any writer meant: refuse it rather than
      ** keep digits no reader can match (unsigned 64-bit values are kept exactly, as TEXT) */
      return ps_err_at(p->err, (int64_t)i0, "'%s' %.*s is out of range (more than 64 bits)", zWhat,
                       (int)(nLit>40?40:nLit), p->z+i0);
    }
    v->type = PS_VAL_TEXT;
    return ch_intern(p, p->z+i0, *pi-i0, i0, zWhat, &v->s);
  }
  char buf[80]; snprintf(buf, sizeof(buf), "expected a number or a string for '%s'", zWhat);
  return ch_err(p, i0, buf);
}

/* id / id2 / bind_id value as text into b: strings decoded, numbers as written. */
static int ch_id_text(Chrome *p, size_t *pi, PsBuf *b, const char *zWhat){
  size_t i0 = *pi;
  char c = i0<p->n ? p->z[i0] : 0;
  b->n = 0;
  if( c=='"' ){
    const char *z; size_t n;
    if( ps_json_string(p->z, p->n, pi, &p->scratch, &z, &n, p->err) ) return PS_ERROR;
    if( ps_buf_append(b, z, n) ) return ps_nomem(p->err);
    return PS_OK;
  }
  if( c=='-' || (c>='0' && c<='9') ){
    PsDec d;
    if( ps_json_number(p->z, p->n, pi, &d, p->err) ) return PS_ERROR;
    if( ps_buf_append(b, p->z+i0, *pi-i0) ) return ps_nomem(p->err);
    return PS_OK;
  }
  char buf[80]; snprintf(buf, sizeof(buf), "expected a number or a string for '%s'", zWhat);
  return ch_err(p, i0, buf);
}

/* One-character string ("ph", "s", "bp"). Any other JSON value (a longer or empty string, a
** character that is not ASCII or is NUL, a number, ...): CH_BAD_VALUE, *pi past it. */
static int ch_char(Chrome *p, size_t *pi, const char *zWhat, uint8_t *pc){
  const char *z; size_t n; size_t i0 = *pi;
  if( i0>=p->n ){
    char buf[80]; snprintf(buf, sizeof(buf), "expected a one-character string for '%s'", zWhat);
    return ch_err(p, i0, buf);
  }
  if( p->z[i0]!='"' ) return ps_json_skip(p->z, p->n, pi, p->err) ? PS_ERROR : CH_BAD_VALUE;
  if( ps_json_string(p->z, p->n, pi, &p->scratch, &z, &n, p->err) ) return PS_ERROR;
  if( n!=1 || (unsigned char)z[0]>=0x80 || z[0]==0 ) return CH_BAD_VALUE;
  *pc = (uint8_t)z[0];
  return PS_OK;
}

/* The value at v as a diagnostic shows it (into buf, 3*40+3 bytes): a string quoted, its first
** 40 bytes decoded (cut before a character, under the text rule), another value as written
** (its first 40 bytes). *pnChar: the characters of a string (UTF-8 lead bytes), else -1. */
#define CH_SHOW_BUF (3*40 + 3)
static const char *ch_show(Chrome *p, size_t v, char *buf, int *pnChar){
  const char *z = p->z, *s; size_t n = p->n, i = v, sn;
  *pnChar = -1;
  if( z[v]=='"' && ps_json_string(z, n, &i, &p->scratch, &s, &sn, 0)==PS_OK ){
    int k = 0;
    for(size_t j=0; j<sn; j++) k += ((unsigned char)s[j] & 0xC0)!=0x80;
    *pnChar = k;
    buf[0] = '"';
    ps_text_cstr(s, sn, 40, buf+1);
    size_t m = strlen(buf);
    buf[m] = '"'; buf[m+1] = 0;
    return buf;
  }
  if( ps_json_skip(z, n, &i, 0) ) i = v;
  return ps_text_cstr(z+v, i-v, 40, buf);
}

/* id2: {"local": x} or {"global": x} */
static int ch_id2(Chrome *p, size_t *pi){
  size_t i = *pi;
  if( i>=p->n || p->z[i]!='{' ) return ch_err(p, i, "expected an object for 'id2'");
  i = ws(p, i+1);
  size_t aAt[2] = {0, 0};      /* where "local" / "global" were seen (a repeat is a duplicate) */
  while( i<p->n && p->z[i]!='}' ){
    const char *k; size_t kn, iKey = i;
    if( p->z[i]!='"' ) return ch_err(p, i, "expected a string key in 'id2'");
    if( ps_json_string(p->z, p->n, &i, &p->scratch, &k, &kn, p->err) ) return PS_ERROR;
    int isLocal = kn==5 && memcmp(k, "local", 5)==0;
    int isGlobal = kn==6 && memcmp(k, "global", 6)==0;
    if( isLocal || isGlobal ){
      if( aAt[isGlobal] && ps_json_dup_diag(p->cap, p->z, iKey+1, i-iKey-2, aAt[isGlobal]+1, "'id2'") ) return ps_nomem(p->err);
      aAt[isGlobal] = iKey;
    }
    i = ws(p, i);
    if( i>=p->n || p->z[i]!=':' ) return ch_err(p, i, "expected ':' in 'id2'");
    i = ws(p, i+1);
    if( isLocal || isGlobal ){
      if( ch_id_text(p, &i, &p->ev.id, "id2") ) return PS_ERROR;
      p->ev.hasId = 1; p->ev.idLocal = (uint8_t)isLocal;
    }else if( ps_json_skip(p->z, p->n, &i, p->err) ){
      return PS_ERROR;
    }
    i = ws(p, i);
    if( i<p->n && p->z[i]==',' ){
      size_t c = i;
      i = ws(p, i+1);
      if( i<p->n && p->z[i]=='}' ) ch_note(p, PS_JSON_LENIENT_COMMA, c, '}');   /* a trailing comma */
      continue;
    }
    if( i>=p->n || p->z[i]!='}' ) return ch_err(p, i, "expected ',' or '}' in 'id2'");
  }
  if( i>=p->n ) return ch_err(p, i, "expected '}' closing 'id2'");
  *pi = i+1;
  return PS_OK;
}

/* ------------------------------------------------------------------ tracks */

static int64_t ch_thread(Chrome *p, const PsValue *pid, const PsValue *tid){
  if( p->lastThread>=0
   && p->lastPid.type==pid->type && p->lastPid.i==pid->i && p->lastPid.s==pid->s
   && p->lastTid.type==tid->type && p->lastTid.i==tid->i && p->lastTid.s==tid->s ){
    return p->lastThread;
  }
  int64_t t = ps_thread_get(p->cap, pid, tid);
  if( t>=0 ){ p->lastThread = t; p->lastPid = *pid; p->lastTid = *tid; }
  return t;
}

static int key_add(Chrome *p, const char *z, size_t n){
  if( ps_buf_append(&p->key, z, n) || ps_buf_append(&p->key, "\x1f", 1) ) return -1;
  return 0;
}

static int key_value(Chrome *p, const PsValue *v){
  char buf[32];
  if( v->type==PS_VAL_INT ){
    int k = snprintf(buf, sizeof(buf), "i%lld", (long long)v->i);
    return key_add(p, buf, (size_t)k);
  }
  if( v->type==PS_VAL_TEXT ){
    PsStr s = ps_pool_get(&p->cap->pool, v->s);
    if( ps_buf_append(&p->key, "s", 1) ) return -1;
    return key_add(p, s.z, s.n);
  }
  return key_add(p, "n", 1);
}

/* Finds or creates the track for the composite key in p->key (its name: the key decides the
** kind and the scope, which a new track gets). */
static int64_t ch_keyed_track(Chrome *p, int kind, int scope, uint32_t thread){
  uint32_t id = ps_pool_intern(&p->cap->pool, p->key.z, p->key.n, 0);
  if( id==0 ) return -1;
  if( id >= p->nKeyTrack ){
    size_t nNew = p->nKeyTrack ? p->nKeyTrack : 64;
    while( nNew <= id ) nNew *= 2;
    uint32_t *a = realloc(p->aKeyTrack, nNew*sizeof(uint32_t));
    if( a==0 ) return -1;
    memset(a + p->nKeyTrack, 0, (nNew - p->nKeyTrack)*sizeof(uint32_t));
    p->aKeyTrack = a; p->nKeyTrack = nNew;
  }
  /* an entry counts when its track still has this key (a second traceEvents drops the tracks) */
  uint32_t t0 = p->aKeyTrack[id];
  if( t0 && t0-1 < p->cap->nTrack && p->cap->aTrack[t0-1].name==id ) return (int64_t)t0-1;
  int64_t t = ps_track_add(p->cap, kind, thread, id);
  if( t<0 ) return -1;
  p->cap->aTrack[t].scope = (uint8_t)scope;
  p->aKeyTrack[id] = (uint32_t)t+1;
  return t;
}

/* ------------------------------------------------------------------ one event */

static int ch_phase_flags(uint8_t ph, uint8_t s){
  switch( ph ){
    case 'X': case 'B': case 'b': case 'S': return PS_EV_SLICE;
    case 'i': case 'I': case 'R': return (s==0 || s=='t') ? PS_EV_POINT : 0;
    case 's': case 't': case 'f': case 'n': case 'T': case 'p': case 'P': return PS_EV_POINT;
    default: return 0;
  }
}

static int is_async(uint8_t ph){
  return ph=='b' || ph=='e' || ph=='n' || ph=='S' || ph=='T' || ph=='p' || ph=='F';
}

static int ch_m_event(Chrome *p, int64_t thread);

/* The event keys the parser reads; everything else is skipped. */
enum { CH_K_OTHER, CH_K_SLOW, CH_K_PH, CH_K_TS, CH_K_DUR, CH_K_NAME, CH_K_CAT, CH_K_PID, CH_K_TID,
       CH_K_ARGS, CH_K_ID, CH_K_ID2, CH_K_S, CH_K_BP, CH_K_SCOPE,
       CH_K_SF, CH_K_STACK, CH_K_ESF, CH_K_ESTACK,     /* stacks: only noted (CH_HAS_STACK) */
       CH_K_TTS, CH_K_TDUR,                            /* read lazily; only checked here */
       CH_K_N };

static int ch_key_code(const char *k, size_t kn){
  switch( kn ){
    case 1: return k[0]=='s' ? CH_K_S : CH_K_OTHER;
    case 2:
      if( k[0]=='s' && k[1]=='f' ) return CH_K_SF;
      if( k[0]=='p' && k[1]=='h' ) return CH_K_PH;
      if( k[0]=='t' && k[1]=='s' ) return CH_K_TS;
      if( k[0]=='i' && k[1]=='d' ) return CH_K_ID;
      if( k[0]=='b' && k[1]=='p' ) return CH_K_BP;
      return CH_K_OTHER;
    case 3:
      if( memcmp(k, "pid", 3)==0 ) return CH_K_PID;
      if( memcmp(k, "tid", 3)==0 ) return CH_K_TID;
      if( memcmp(k, "cat", 3)==0 ) return CH_K_CAT;
      if( memcmp(k, "dur", 3)==0 ) return CH_K_DUR;
      if( memcmp(k, "id2", 3)==0 ) return CH_K_ID2;
      if( memcmp(k, "esf", 3)==0 ) return CH_K_ESF;
      if( memcmp(k, "tts", 3)==0 ) return CH_K_TTS;
      return CH_K_OTHER;
    case 4:
      if( memcmp(k, "name", 4)==0 ) return CH_K_NAME;
      if( memcmp(k, "args", 4)==0 ) return CH_K_ARGS;
      if( memcmp(k, "tdur", 4)==0 ) return CH_K_TDUR;
      return CH_K_OTHER;
    case 5:
      if( memcmp(k, "stack", 5)==0 ) return CH_K_STACK;
      return memcmp(k, "scope", 5)==0 ? CH_K_SCOPE : CH_K_OTHER;
    case 6: return memcmp(k, "estack", 6)==0 ? CH_K_ESTACK : CH_K_OTHER;
  }
  return CH_K_OTHER;
}

/* Recognises a known key by the bytes after its opening quote (k[0..8) must be readable),
** closing quote included; on a match *pi moves past the closing quote. Anything else (other
** keys, escapes) returns CH_K_SLOW for the general path. */
#define K2(a,b)           ((uint64_t)(unsigned char)(a) | (uint64_t)(unsigned char)(b)<<8)
#define K3(a,b,c)         (K2(a,b) | (uint64_t)(unsigned char)(c)<<16)
#define K4(a,b,c,d)       (K3(a,b,c) | (uint64_t)(unsigned char)(d)<<24)
#define K5(a,b,c,d,e)     (K4(a,b,c,d) | (uint64_t)(unsigned char)(e)<<32)
#define K6(a,b,c,d,e,f)   (K5(a,b,c,d,e) | (uint64_t)(unsigned char)(f)<<40)
static inline int ch_key_fast(const char *k, size_t *pi){
  uint64_t w; memcpy(&w, k, 8);
  uint64_t w2 = w & 0xFFFF, w3 = w & 0xFFFFFF, w4 = w & 0xFFFFFFFF, w5 = w & 0xFFFFFFFFFFull;
  int code; size_t len;
  switch( k[0] ){
    case 'p':
      if( w3==K3('p','h','"') ){ code = CH_K_PH; len = 3; break; }
      if( w4==K4('p','i','d','"') ){ code = CH_K_PID; len = 4; break; }
      return CH_K_SLOW;
    case 't':
      if( w3==K3('t','s','"') ){ code = CH_K_TS; len = 3; break; }
      if( w4==K4('t','i','d','"') ){ code = CH_K_TID; len = 4; break; }
      return CH_K_SLOW;
    case 'd': if( w4==K4('d','u','r','"') ){ code = CH_K_DUR; len = 4; break; } return CH_K_SLOW;
    case 'c': if( w4==K4('c','a','t','"') ){ code = CH_K_CAT; len = 4; break; } return CH_K_SLOW;
    case 'n': if( w5==K5('n','a','m','e','"') ){ code = CH_K_NAME; len = 5; break; } return CH_K_SLOW;
    case 'a': if( w5==K5('a','r','g','s','"') ){ code = CH_K_ARGS; len = 5; break; } return CH_K_SLOW;
    case 'i':
      if( w3==K3('i','d','"') ){ code = CH_K_ID; len = 3; break; }
      if( w4==K4('i','d','2','"') ){ code = CH_K_ID2; len = 4; break; }
      return CH_K_SLOW;
    case 's':
      if( w2==K2('s','"') ){ code = CH_K_S; len = 2; break; }
      if( (w & 0xFFFFFFFFFFFFull)==K6('s','c','o','p','e','"') ){ code = CH_K_SCOPE; len = 6; break; }
      if( w3==K3('s','f','"') ){ code = CH_K_SF; len = 3; break; }
      return CH_K_SLOW;
    case 'b': if( w3==K3('b','p','"') ){ code = CH_K_BP; len = 3; break; } return CH_K_SLOW;
    default: return CH_K_SLOW;
  }
  *pi += 1 + len;
  return code;
}

/* The 'duplicate_key' diagnostics of the event object at off (already parsed, so well formed),
** which repeats a key the parser reads: found again off the hot path, which only counts keys. */
static int ch_dup_keys(Chrome *p, size_t off){
  const char *z = p->z;
  size_t aAt[CH_K_N] = {0};
  size_t i = ps_json_ws(z, p->n, off+1);
  while( i<p->n && z[i]=='"' ){
    size_t k0 = i;
    const char *k; size_t kn;
    if( ps_json_string(z, p->n, &i, &p->scratch, &k, &kn, 0) ) break;
    int key = ch_key_code(k, kn);
    if( key>CH_K_SLOW ){
      if( aAt[key] && ps_json_dup_diag(p->cap, z, k0+1, i-k0-2, aAt[key]+1, "an event") ) return PS_NOMEM;
      aAt[key] = k0;
    }
    i = ps_json_ws(z, p->n, i);
    if( i>=p->n || z[i]!=':' ) break;
    i = ps_json_ws(z, p->n, i+1);
    if( ps_json_skip(z, p->n, &i, 0) ) break;
    i = ps_json_ws(z, p->n, i);
    if( i<p->n && z[i]==',' ) i = ps_json_ws(z, p->n, i+1);
  }
  return PS_OK;
}

/* The event just read has values it cannot use (ChEvent.bad*). A 'ph' that is not one character,
** or (but in an M event, which has no times) a time that is a string but not a number: the
** event is skipped, with a 'skipped_event' diagnostic naming the first such value (its offset
** and key): CH_BAD_VALUE. Otherwise the bad values are ignored, each with an 'other'
** diagnostic: PS_OK. PS_NOMEM when a diagnostic could not be stored. */
static int ch_bad_values(Chrome *p){
  ChEvent *e = &p->ev;
  PsCapture *cap = p->cap;
  char buf[CH_SHOW_BUF];
  int nChar;
  if( e->badPh ){
    const char *zv = ch_show(p, e->badPh, buf, &nChar);
    return ps_diag(cap, PS_DIAG_SKIPPED_EVENT, (int64_t)e->badPh, "'ph' is %s, not one %scharacter; event skipped",
                   zv, nChar==1 ? "ASCII " : "") ? ps_nomem(p->err) : CH_BAD_VALUE;
  }
  static const char *const azTime[4] = { "ts", "dur", "tts", "tdur" };
  size_t aTime[4] = { e->badTs, e->badDur, e->badTts, e->badTdur };
  if( e->ph!='M' ){
    int k = -1;
    for(int j=0; j<4; j++) if( aTime[j] && (k<0 || aTime[j] < aTime[k]) ) k = j;
    if( k>=0 ){
      const char *zv = ch_show(p, aTime[k], buf, &nChar);
      return ps_diag(cap, PS_DIAG_SKIPPED_EVENT, (int64_t)aTime[k], "'%s' is the string %s, not a number; event skipped",
                     azTime[k], zv) ? ps_nomem(p->err) : CH_BAD_VALUE;
    }
  }else{
    for(int j=0; j<4; j++){
      if( aTime[j]==0 ) continue;
      const char *zv = ch_show(p, aTime[j], buf, &nChar);
      if( ps_diag(cap, PS_DIAG_OTHER, (int64_t)aTime[j], "'%s' is the string %s, not a number; ignored (a metadata "
                  "event has no times)", azTime[j], zv) ) return ps_nomem(p->err);
    }
  }
  size_t aOne[2] = { e->badS, e->badBp };
  static const char *const azOne[2] = { "s", "bp" };
  for(int j=0; j<2; j++){
    if( aOne[j]==0 ) continue;
    const char *zv = ch_show(p, aOne[j], buf, &nChar);
    if( ps_diag(cap, PS_DIAG_OTHER, (int64_t)aOne[j], "'%s' is %s, not one %scharacter; ignored", azOne[j], zv,
                nChar==1 ? "ASCII " : "") ) return ps_nomem(p->err);
  }
  return PS_OK;
}

/* Parses the object at p->z[i]=='{'; *pi ends past '}'. */
static int ch_event(Chrome *p, size_t *pi){
  const char *z = p->z;
  size_t n = p->n, i = *pi;
  ChEvent *e = &p->ev;
  e->off = i; e->nKey = 0; e->ph = 0; e->s = 0; e->bp = 0; e->hasTs = 0; e->hasDur = 0;
  e->ts = 0; e->dur = 0; e->name = 0; e->cat = 0;
  e->pid.type = PS_VAL_NULL; e->tid.type = PS_VAL_NULL;
  e->pid.i = e->tid.i = 0; e->pid.s = e->tid.s = 0;
  e->hasId = 0; e->idLocal = 0; e->scope.n = 0; e->argsOff = 0; e->hasStack = 0;
  e->badPh = e->badS = e->badBp = e->badTs = e->badDur = e->badTts = e->badTdur = 0;

  i = ws(p, i+1);
  if( i<n && z[i]=='}' ){
    *pi = i+1;
    p->nEmpty++;
    return PS_OK;
  }
  uint32_t mSeen = 0, mDup = 0;    /* the keys read, as CH_K_* bits; those read twice (the last
                                    ** one wins; ch_dup_keys) */
  size_t iComma = 0;                /* the ',' before this key (0: the first key) */
  for(;;){
    /* key */
    if( i>=n || z[i]!='"' ){
      if( iComma && i<n && z[i]=='}' ){     /* a trailing comma */
        ch_note(p, PS_JSON_LENIENT_COMMA, iComma, '}');
        i++;
        break;
      }
      return ch_err(p, i, "expected a string key in an event object");
    }
    int key = i+9<=n ? ch_key_fast(z+i+1, &i) : CH_K_SLOW;
    if( key==CH_K_SLOW ){
      const char *k; size_t kn;
      size_t j = i+1;
      while( j<n && z[j]!='"' && z[j]!='\\' && (unsigned char)z[j]>=0x20 ) j++;
      if( j<n && z[j]=='"' ){ k = z+i+1; kn = j-i-1; i = j+1; }
      else if( ps_json_string(z, n, &i, &p->scratch, &k, &kn, p->err) ) return PS_ERROR;
      key = ch_key_code(k, kn);
    }
    uint32_t bit = (1u<<key) & ~1u;        /* CH_K_OTHER (0) is not counted */
    mDup |= mSeen & bit; mSeen |= bit;
    i = ws(p, i);
    if( i>=n || z[i]!=':' ) return ch_err(p, i, "expected ':' after a key in an event object");
    i = ws(p, i+1);
    e->nKey++;
    int rc = -1;   /* -1: not a key we read: skip its value */
    size_t v0 = i;
    switch( key ){
      case CH_K_S:
        rc = ch_char(p, &i, "s", &e->s);
        if( rc==CH_BAD_VALUE ){ e->s = 0; e->badS = v0; rc = PS_OK; } else if( rc==PS_OK ) e->badS = 0;
        break;
      case CH_K_PH:
        rc = ch_char(p, &i, "ph", &e->ph);
        if( rc==CH_BAD_VALUE ){ e->ph = 0; e->badPh = v0; rc = PS_OK; } else if( rc==PS_OK ) e->badPh = 0;
        break;
      case CH_K_TS:
        rc = ch_time(p, &i, "ts", &e->ts, &e->hasTs);
        if( rc==CH_BAD_VALUE ){ e->hasTs = 0; e->badTs = v0; rc = PS_OK; } else if( rc==PS_OK ) e->badTs = 0;
        break;
      case CH_K_ID:
        rc = ch_id_text(p, &i, &e->id, "id");
        if( rc==PS_OK ){ e->hasId = 1; e->idLocal = 0; }
        break;
      case CH_K_BP:
        rc = ch_char(p, &i, "bp", &e->bp);
        if( rc==CH_BAD_VALUE ){ e->bp = 0; e->badBp = v0; rc = PS_OK; } else if( rc==PS_OK ) e->badBp = 0;
        break;
      case CH_K_PID: rc = ch_pidtid(p, &i, "pid", &e->pid); break;
      case CH_K_TID: rc = ch_pidtid(p, &i, "tid", &e->tid); break;
      case CH_K_CAT: rc = ch_string_id(p, &i, "cat", &e->cat); break;
      case CH_K_DUR:
        rc = ch_time(p, &i, "dur", &e->dur, &e->hasDur);
        if( rc==CH_BAD_VALUE ){ e->hasDur = 0; e->badDur = v0; rc = PS_OK; }
        else if( rc==PS_OK ){
          e->badDur = 0;
          if( e->hasDur && e->dur<0 )
            rc = ps_err_at(p->err, (int64_t)v0, "'dur' is negative (%lld ns); a duration cannot be negative", (long long)e->dur);
        }
        break;
      case CH_K_TTS: case CH_K_TDUR: {
        /* read by the lazy columns; only a string that is not a number matters here */
        size_t *pBad = key==CH_K_TTS ? &e->badTts : &e->badTdur;
        *pBad = 0;
        if( i<n && z[i]=='"' ){
          const char *sz; size_t sn; PsDec d;
          rc = ps_json_string(z, n, &i, &p->scratch, &sz, &sn, p->err);
          if( rc==PS_OK && ps_dec_parse(sz, sn, &d) ) *pBad = v0;
        }
        break;
      }
      case CH_K_ID2: rc = ch_id2(p, &i); break;
      case CH_K_SF: case CH_K_STACK: case CH_K_ESF: case CH_K_ESTACK: e->hasStack = 1; break;
      case CH_K_NAME:
        if( i<n && z[i]=='n' && i+4<=n && memcmp(z+i, "null", 4)==0 ){ i += 4; e->name = 0; rc = 0; }
        else rc = ch_string_id(p, &i, "name", &e->name);
        break;
      case CH_K_ARGS:
        e->argsOff = i;
        rc = ps_json_skip(z, n, &i, p->err);
        break;
      case CH_K_SCOPE: {
        const char *sz; size_t sn;
        if( i>=n || z[i]!='"' ){ rc = ch_err(p, i, "expected a string for 'scope'"); break; }
        rc = ps_json_string(z, n, &i, &p->scratch, &sz, &sn, p->err);
        if( rc==PS_OK ){ e->scope.n = 0; if( ps_buf_append(&e->scope, sz, sn) ) rc = ps_nomem(p->err); }
        break;
      }
    }
    if( rc==-1 ) rc = ps_json_skip(z, n, &i, p->err);
    if( rc ) return rc;
    i = ws(p, i);
    if( i<n && z[i]==',' ){ iComma = i; i = ws(p, i+1); continue; }
    if( i<n && z[i]=='}' ){ i++; break; }
    return ch_err(p, i, "expected ',' or '}' in an event object");
  }
  *pi = i;
  if( mDup && ch_dup_keys(p, e->off) ) return ps_nomem(p->err);
  if( (e->badPh | e->badS | e->badBp | e->badTs | e->badDur | e->badTts | e->badTdur) ){
    int rc = ch_bad_values(p);
    if( rc==CH_BAD_VALUE ) return PS_OK;      /* skipped: no row */
    if( rc ) return rc;
  }
  /* a pid without a tid: the process's main thread (tid = pid), as trace_processor reads it */
  if( e->tid.type==PS_VAL_NULL && e->pid.type!=PS_VAL_NULL ) e->tid = e->pid;

  /* ---- the row */
  PsCapture *cap = p->cap;
  int64_t thread = ch_thread(p, &e->pid, &e->tid);
  if( thread<0 ) return ps_nomem(p->err);
  int64_t r = ps_events_add(cap);
  if( r<0 ) return ps_nomem(p->err);
  PsEvents *ev = &cap->ev;
  uint8_t ph = e->ph;
  p->aPhCount[ph]++;
  ev->aTs[r] = e->hasTs ? e->ts : 0;
  if( !e->hasTs && ph!='M' && ph!=0 ){
    /* M events have no ts by spec; elsewhere a missing ts is worth a note */
    if( ps_diag(cap, PS_DIAG_OTHER, (int64_t)e->off, "'%c' event without 'ts'; ts taken as 0", ph) )
      return ps_nomem(p->err);
  }
  /* (of the async phases only the steps T and p keep a dur: the others are matched or instants) */
  if( e->hasDur && (!is_async(ph) || ph=='T' || ph=='p') ) ev->aDur[r] = e->dur;
  if( ph=='i' || ph=='I' || ph=='R' || ph=='n' ){ if( !e->hasDur ) ev->aDur[r] = 0; }
  ev->aOff[r] = e->off;
  if( ev->aLen ){
    /* where its args are, for the lazy columns (CH_ARGS_*) */
    uint64_t d = e->argsOff ? (uint64_t)e->argsOff - e->off : 0;
    ev->aLen[r] = e->argsOff==0 ? CH_ARGS_NONE : d < UINT32_MAX - CH_ARGS_AT ? (uint32_t)d + CH_ARGS_AT : CH_ARGS_SEARCH;
  }
  ev->aName[r] = e->name;
  ev->aCat[r] = e->cat;
  ev->aThread[r] = (uint32_t)thread;
  ev->aPh[r] = ph;
  uint8_t fl = (uint8_t)ch_phase_flags(ph, e->s);
  if( ph=='X' && !e->hasDur ) fl = PS_EV_POINT;
  if( ph=='f' && e->bp=='e' ) fl |= CH_BP_E;
  if( e->hasStack ) fl |= CH_HAS_STACK;
  ev->aFlags[r] = fl;
  uint32_t track = cap->aThread[thread].track;
  if( ph==0 ){
    if( ps_diag(cap, PS_DIAG_NO_PH, (int64_t)e->off, "event without 'ph'; kept with ph NULL") )
      return ps_nomem(p->err);
  }else if( is_async(ph) ){
    /* async track key: category, scope, pid when local, id */
    p->key.n = 0;
    PsStr c = ps_pool_get(&cap->pool, e->cat);
    if( ps_buf_append(&p->key, "A\x1f", 2) || key_add(p, c.z ? c.z : "", c.n)
     || key_add(p, e->scope.z ? e->scope.z : "", e->scope.n) ) return ps_nomem(p->err);
    if( e->idLocal ){ if( key_value(p, &e->pid) ) return ps_nomem(p->err); }
    else if( key_add(p, "g", 1) ) return ps_nomem(p->err);
    if( e->hasId ){ if( key_add(p, e->id.z, e->id.n) ) return ps_nomem(p->err); }
    else if( key_add(p, "", 0) ) return ps_nomem(p->err);
    int64_t t = ch_keyed_track(p, PS_TRACK_ASYNC, e->idLocal ? PS_SCOPE_PROCESS : PS_SCOPE_GLOBAL, (uint32_t)thread);
    if( t<0 ) return ps_nomem(p->err);
    track = (uint32_t)t;
  }else if( ph=='C' ){
    p->key.n = 0;
    PsStr nm = ps_pool_get(&cap->pool, e->name);
    if( ps_buf_append(&p->key, "C\x1f", 2) || key_value(p, &e->pid) || key_add(p, nm.z ? nm.z : "", nm.n)
     || key_add(p, e->hasId ? e->id.z : "", e->hasId ? e->id.n : 0) ) return ps_nomem(p->err);
    int64_t t = ch_keyed_track(p, PS_TRACK_COUNTER, PS_SCOPE_PROCESS, (uint32_t)thread);
    if( t<0 ) return ps_nomem(p->err);
    track = (uint32_t)t;
  }else if( (ph=='i' || ph=='I' || ph=='R') && (e->s=='g' || e->s=='p') ){
    /* process- and global-scoped instants: one track per pid, one for the whole capture (as
    ** trace_processor puts them); they do not nest (depth NULL: ch_phase_flags) */
    p->key.n = 0;
    if( e->s=='g' ){
      if( ps_buf_append(&p->key, "global instants", 15) ) return ps_nomem(p->err);
    }else{
      /* the pid in full (a TEXT pid quoted, so that 1 and '1' stay two processes) */
      char b1[32];
      PsStr ps = e->pid.type==PS_VAL_TEXT ? ps_pool_get(&cap->pool, e->pid.s) : (PsStr){0, 0};
      const char *zPid = e->pid.type==PS_VAL_INT ? (snprintf(b1, sizeof(b1), "%lld", (long long)e->pid.i), b1) : "NULL";
      if( ps_buf_append(&p->key, "process instants pid=", 21)
       || (e->pid.type==PS_VAL_TEXT ? ps_buf_append(&p->key, "'", 1) || ps_buf_append(&p->key, ps.z ? ps.z : "", ps.n)
                                      || ps_buf_append(&p->key, "'", 1)
                                    : ps_buf_append(&p->key, zPid, strlen(zPid))) ) return ps_nomem(p->err);
    }
    int64_t t = ch_keyed_track(p, PS_TRACK_INSTANT, e->s=='g' ? PS_SCOPE_GLOBAL : PS_SCOPE_PROCESS, (uint32_t)thread);
    if( t<0 ) return ps_nomem(p->err);
    track = (uint32_t)t;
  }else if( ph=='M' ){
    if( ch_m_event(p, thread) ) return PS_ERROR;
  }
  ev->aTrack[r] = track;
  return PS_OK;
}

/* M events: name threads/processes and record a metadata row. */
static int ch_m_event(Chrome *p, int64_t thread){
  ChEvent *e = &p->ev;
  PsCapture *cap = p->cap;
  PsStr nm = ps_pool_get(&cap->pool, e->name);
  char scope[160], b1[64], b2[64];
  int isProc = nm.n>=8 && memcmp(nm.z, "process_", 8)==0;
  if( isProc ) snprintf(scope, sizeof(scope), "process:%s", ps_value_text(cap, &e->pid, b1, sizeof(b1)));
  else snprintf(scope, sizeof(scope), "thread:%s:%s", ps_value_text(cap, &e->pid, b1, sizeof(b1)),
                ps_value_text(cap, &e->tid, b2, sizeof(b2)));
  char key[3*120+1];                             /* cut before a character, not inside one */
  ps_text_cstr(nm.z ? nm.z : "", nm.n, 120, key);
  if( e->argsOff==0 ){
    return ps_meta_text(cap, scope, key, 0, 0, 0, (int64_t)e->off) ? ps_nomem(p->err) : PS_OK;
  }
  size_t v;
  int f = ps_json_find_key(p->z, p->n, e->argsOff, "name", &v);
  if( f==1 && p->z[v]=='"' ){
    const char *s; size_t sn; size_t iv = v;
    if( ps_json_string(p->z, p->n, &iv, &p->scratch, &s, &sn, p->err) ) return PS_ERROR;
    uint32_t id;
    if( ch_intern(p, s, sn, v, "args.name of a metadata event", &id) ) return PS_ERROR;
    if( nm.n==12 && memcmp(nm.z, "process_name", 12)==0 ){
      if( ps_grow((void**)&p->aProc, sizeof(ProcName), &p->nProcAlloc, p->nProc+1) ) return ps_nomem(p->err);
      p->aProc[p->nProc].pid = e->pid; p->aProc[p->nProc].name = id; p->nProc++;
    }else if( nm.n==11 && memcmp(nm.z, "thread_name", 11)==0 ){
      cap->aThread[thread].threadName = id;
    }
    PsStr sv = ps_pool_get(&cap->pool, id);
    return ps_meta_text(cap, scope, key, sv.z, sv.n, PS_META_TEXT, (int64_t)e->off) ? ps_nomem(p->err) : PS_OK;
  }
  size_t ia = e->argsOff;
  if( ps_json_skip(p->z, p->n, &ia, p->err) ) return PS_ERROR;
  return ch_meta_json(p, scope, key, e->argsOff, ia, (int64_t)e->off) ? ps_nomem(p->err) : PS_OK;
}

/* ------------------------------------------------------------------ the event array */

/* Parses events from the '{' at i up to the end of the array. bTop: the array is the whole
** file (may be unterminated). *pi ends past the ']' (or at the end of input). Returns PS_OK,
** an error, or CH_STOPPED with *pi == p->stopAt when the parse reached the split point. */
#define CH_STOPPED 3
static int ch_event_loop(Chrome *p, size_t i, int bTop, size_t *pi){
  const char *z = p->z;
  size_t n = p->n, iWork = i;     /* iWork: where the work last counted (ps_work) ended */
  size_t iComma = 0;              /* the ',' before this event (0: the first one read here) */
  for(;;){
    if( i>=n ){
      if( bTop ){ *pi = i; return PS_OK; }   /* unterminated array (allowed) */
      return ch_err_array(p, i, "expected an event or ']' in traceEvents");
    }
    if( z[i]!='{' ){
      if( iComma && z[i]==']' ){           /* a trailing comma */
        ch_note(p, PS_JSON_LENIENT_COMMA, iComma, ']');
        *pi = i+1;
        return PS_OK;
      }
      return ch_err(p, i, "expected '{' (an event object) in traceEvents");
    }
    if( p->stopAt && i >= p->stopAt ){
      if( i==p->stopAt ){ *pi = i; return CH_STOPPED; }
      p->stopAt = 0;        /* the candidate split was not an event boundary: go on alone */
    }
    if( p->cap->ev.n==p->cap->ev.nAlloc && i > p->regionStart ){
      /* grow to the row count the rest of the region suggests (+5%), not by a fixed factor:
      ** keeps peak memory close to what the capture needs */
      double est = (double)p->cap->ev.n * ((double)(p->regionEnd - p->regionStart)
                                           / (double)(i - p->regionStart)) * 1.05 + 1024;
      if( est > (double)INT32_MAX ) est = (double)INT32_MAX;
      if( ps_events_reserve(p->cap, (size_t)est) ) return ps_nomem(p->err);
    }
    if( (p->cap->ev.n & 0xFFF)==0 ) ps_source_done_before(&p->cap->src, i);
    if( ps_work(&p->cap->src, i - iWork) ) return ps_interrupted(p->err);   /* by bytes parsed */
    iWork = i;
    int rc = ch_event(p, &i);
    if( rc ){
      if( rc==PS_ERROR && p->err->zIn==0 ) p->err->zIn = "an event";   /* for a file cut short */
      return rc;
    }
    i = ws(p, i);
    if( i<n && z[i]==',' ){ iComma = i; i = ws(p, i+1); continue; }
    if( i<n && z[i]==']' ){ *pi = i+1; return PS_OK; }
    if( i>=n && bTop ){ *pi = i; return PS_OK; }
    return ch_err_array(p, i, "expected ',' or ']' in traceEvents");
  }
}

/* ---- parallel parse
** A big event array is cut into parts (one per core, ch_parts) at candidate event boundaries
** ('}' ',' '{' with optional whitespace) near the 1/k points. Each part after the first is
** parsed by a thread of its own into its own capture, stopping where the next part begins,
** while this thread parses the first part. A candidate is proven only when the parse of the part
** before it arrives at it as the start of an event; if that parse jumps over it (the bytes were
** inside a string or an args object), it goes on alone to the end and the later parts' work is
** thrown away. Proven parts are merged in order so that ids, tracks and metadata come out
** exactly as a serial parse would make them (tests/c/test_parser.c compares them for 2..7
** parts). */
typedef struct ChHalf {
  Chrome p;                   /* the second parser, on its own capture */
  size_t start, end;          /* in: first event; out: position after the array */
  int bTop, rc;
  PsErr err;
  uint64_t nProbe;            /* out: the hash probes its thread made (added to the loader's) */
  PsBudget *pBudget;          /* the loader's memory budget (ps_budget), shared */
} ChHalf;

static void *ch_half_main(void *pArg){
  ChHalf *h = pArg;
  if( h->p.cap->src.maxJsonDepth>0 ) ps_json_depth_limit = h->p.cap->src.maxJsonDepth;   /* this thread's own */
  uint64_t nProbe0 = ps_nProbe;
  PsBudget *pPrev = ps_budget;
  const PsJsonLenient *pLenient = ps_json_lenient;   /* (this thread's: run here when no thread
                                                     ** could start, the loader's) */
  ps_budget = h->pBudget;
  ch_lenient_init(&h->p);
  ps_json_lenient = &h->p.lenient;
  h->rc = ch_event_loop(&h->p, h->start, h->bTop, &h->end);
  if( h->p.bNoteNomem && (h->rc==PS_OK || h->rc==CH_STOPPED) ) h->rc = ps_nomem(&h->err);
  ps_json_lenient = pLenient;
  h->nProbe = ps_nProbe - nProbe0;
  ps_budget = pPrev;
  return 0;
}

/* A candidate split point at or after 'from': the offset of a '{' preceded by '}' ',' that
** starts a well-formed object followed by ',' or ']' (which rules out most look-alikes inside
** strings; the first half's parse is what proves it). */
static size_t ch_find_split(const char *z, size_t n, size_t from){
  size_t lim = from + ((size_t)4 << 20) < n ? from + ((size_t)4 << 20) : n;
  for(size_t i=from; i<lim; i++){
    const char *c = memchr(z+i, ',', lim-i);
    if( c==0 ) return 0;
    i = (size_t)(c - z);
    size_t a = i, b = i+1;
    while( a>from && PS_JSON_WS(z[a-1]) ) a--;
    while( b<lim && PS_JSON_WS(z[b]) ) b++;
    if( a>from && z[a-1]=='}' && b<lim && z[b]=='{' ){
      size_t j = b;
      if( ps_json_skip(z, lim, &j, 0)==PS_OK ){
        j = ps_json_ws(z, lim, j);
        if( j<lim && (z[j]==',' || z[j]==']') ) return b;
      }
    }
  }
  return 0;
}

static int ch_merge(Chrome *pa, Chrome *pb);

/* A second 'traceEvents' in the top-level object: the last one wins, so what the earlier
** array made goes (its rows, threads, tracks, process names, counts; its metadata rows are
** dropped by the caller, its diagnostics stay). */
static void ch_reset_events(Chrome *p){
  PsCapture *cap = p->cap;
  cap->ev.n = 0;
  cap->nThread = 0; cap->nTrack = 0;
  /* no pass over the old tables (a file of many repeats must stay linear): the thread table
  ** starts again from nothing, and ch_keyed_track checks aKeyTrack's entries against aTrack */
  free(cap->aThreadHash); cap->aThreadHash = 0; cap->nThreadHash = 0;
  p->nProc = 0; p->nEmpty = 0; p->lastThread = -1;
  memset(p->aPhCount, 0, sizeof(p->aPhCount));
}

#include <pthread.h>

/* Frees a part's parser and its capture (whose bytes are borrowed). */
static void ch_part_free(ChHalf *h){
  memset(&h->p.cap->src, 0, sizeof(h->p.cap->src));
  ps_capture_free(h->p.cap);
  ps_buf_free(&h->p.scratch); ps_buf_free(&h->p.key); ps_buf_free(&h->p.ev.id); ps_buf_free(&h->p.ev.scope);
  ps_buf_free(&h->p.norm);
  free(h->p.aKeyTrack); free(h->p.aProc);
}

/* The number of parts a big array is cut into: ps_parse_threads, or (0) one per online core,
** at most CH_MAX_PARTS, and no part smaller than ps_chrome_parallel_min / 2 (but two parts). */
static int ch_parts(size_t nBytes){
  return ps_parse_parts(nBytes, ps_chrome_parallel_min/2, 2);
}

/* Parses the array at p->z[*pi]=='['. bTop: the array is the whole file (may be unterminated). */
static int ch_events(Chrome *p, size_t *pi, int bTop){
  size_t n = p->n, i = ws(p, *pi+1);
  if( i<n && p->z[i]==']' ){ *pi = i+1; return PS_OK; }
  p->regionStart = i; p->regionEnd = n;
  /* the parts: this thread parses [i, aSplit[0]), part k parses [aSplit[k], aSplit[k+1]) in a
  ** thread of its own (the last one to the end of the array) */
  size_t aSplit[CH_MAX_PARTS];
  ChHalf *aPart[CH_MAX_PARTS];
  pthread_t aTh[CH_MAX_PARTS];
  int nPart = 0;
  if( n - i >= ps_chrome_parallel_min && n - i >= 1024 ){
    /* (the search reads ahead of the parse: leniently, but what it meets is noted by the parse) */
    const PsJsonLenient *pLenient = ps_json_lenient;
    ps_json_lenient = &ch_quiet;
    int k = ch_parts(n - i);
    for(int j=1; j<k; j++){
      size_t from = i + (size_t)((double)(n-i) * j / k);
      if( nPart && from <= aSplit[nPart-1] ) from = aSplit[nPart-1] + 1;
      size_t s = from<n ? ch_find_split(p->z, n, from) : 0;
      if( s && (nPart==0 || s > aSplit[nPart-1]) ) aSplit[nPart++] = s;
    }
    ps_json_lenient = pLenient;
  }
  int nRun = 0;                       /* parts set up (their parsers allocated) */
  for(int k=0; k<nPart; k++){
    ChHalf *h = calloc(1, sizeof(*h));
    PsCapture *cb = h ? ps_capture_new() : 0;
    size_t end = k+1<nPart ? aSplit[k+1] : n;
    if( cb==0 || ps_events_reserve(cb, (end - aSplit[k])/400 + 16) || ps_events_want_len(cb) ){ ps_capture_free(cb); free(h); break; }
    cb->src = p->cap->src;            /* borrowed bytes: released before ps_capture_free */
    cb->src.xInterrupt = 0;           /* only the loading thread asks the host; all see pAbort */
    cb->src.bMapped = p->cap->src.bMapped; cb->src.bHeap = 0;
    cb->src.nDropped = aSplit[k] & ~(size_t)4095;
    h->p.z = p->z; h->p.n = n; h->p.cap = cb; h->p.err = &h->err; h->p.lastThread = -1;
    h->p.regionStart = aSplit[k]; h->p.regionEnd = end;
    h->p.stopAt = k+1<nPart ? aSplit[k+1] : 0;
    h->start = aSplit[k]; h->bTop = bTop; h->pBudget = ps_budget;
    aPart[nRun++] = h;
  }
  if( nRun && nRun<nPart ){ aPart[nRun-1]->p.stopAt = 0; aPart[nRun-1]->p.regionEnd = n; }  /* no thread runs yet */
  int aStarted[CH_MAX_PARTS];
  for(int k=0; k<nRun; k++) aStarted[k] = pthread_create(&aTh[k], 0, ch_half_main, aPart[k])==0;
  if( nRun ) p->stopAt = aSplit[0];   /* (its regionEnd stays n: it reserves rows for the whole
                                      ** array, and the merges append to them in place) */
  int rc = ch_event_loop(p, i, bTop, pi);
  for(int k=0; k<nRun; k++){
    if( aStarted[k] ){ pthread_join(aTh[k], 0); ps_nProbe += aPart[k]->nProbe; }
    else ch_half_main(aPart[k]);      /* its thread could not start: parsed here, in order */
  }
  /* merge in order while each part stopped exactly where the next began; a part that ran past
  ** its stop (the candidate was inside a string) parsed the rest itself: the later parts go */
  int k = 0;
  for(; k<nRun && rc==CH_STOPPED; k++){
    ChHalf *h = aPart[k];
    if( h->rc && h->rc!=CH_STOPPED ){ *p->err = h->err; rc = h->rc; }
    else{
      int rc2 = ch_merge(p, &h->p);
      rc = rc2 ? rc2 : h->rc==CH_STOPPED ? CH_STOPPED : PS_OK;
      *pi = h->end;
    }
    __atomic_fetch_add(&ps_chrome_splits_merged, 1, __ATOMIC_RELAXED);   /* (parses of other connections) */
  }
  if( nRun>k ) __atomic_fetch_add(&ps_chrome_splits_abandoned, (size_t)(nRun - k), __ATOMIC_RELAXED);
  for(int j=0; j<nRun; j++){ ch_part_free(aPart[j]); free(aPart[j]); }
  if( rc==CH_STOPPED ) rc = PS_OK;    /* (cannot happen: the last part has no stop) */
  p->stopAt = 0; p->regionEnd = n;
  return rc;
}

/* Remaps a PsValue from capture b's pool to capture a's. */
static void ch_remap_value(PsValue *v, const uint32_t *aMapS){
  if( v->type==PS_VAL_TEXT ) v->s = aMapS[v->s];
}

/* The rows ch_merge copies a step, before it gives the step's pages of the part back: 256k,
** whole 2 MB units of the 8-byte columns. A variable for the tests, which make it smaller. */
size_t ps_chrome_merge_step = (size_t)1 << 18;

/* Appends the second half (pb) to the first (pa): strings, threads, tracks, rows, metadata. */
static int ch_merge(Chrome *pa, Chrome *pb){
  PsCapture *a = pa->cap, *b = pb->cap;
  int rc = PS_NOMEM;
  uint32_t *aMapS = malloc(b->pool.n * sizeof(uint32_t));
  uint32_t *aMapT = malloc((b->nThread ? b->nThread : 1) * sizeof(uint32_t));
  uint32_t *aMapTr = malloc((b->nTrack ? b->nTrack : 1) * sizeof(uint32_t));
  if( aMapS==0 || aMapT==0 || aMapTr==0 ) goto out;
  aMapS[0] = 0;
  for(size_t k=1; k<b->pool.n; k++){
    PsStr s = ps_pool_get(&b->pool, (uint32_t)k);
    aMapS[k] = ps_pool_intern(&a->pool, s.z, s.n, 0);
    if( aMapS[k]==0 ) goto out;
  }
  /* tracks (and the threads they belong to) in b's order of creation: new ones are appended in
  ** the order a serial parse would have created them */
  for(size_t t=0; t<b->nTrack; t++){
    PsTrack *tr = &b->aTrack[t];
    if( tr->kind==PS_TRACK_THREAD ){
      PsThread *bt = &b->aThread[tr->thread];
      PsValue pid = bt->pid, tid = bt->tid;
      ch_remap_value(&pid, aMapS); ch_remap_value(&tid, aMapS);
      int64_t ta = ps_thread_get(a, &pid, &tid);
      if( ta<0 ) goto out;
      aMapT[tr->thread] = (uint32_t)ta;
      if( bt->threadName ) a->aThread[ta].threadName = aMapS[bt->threadName];
      aMapTr[t] = a->aThread[ta].track;
      continue;
    }
    /* keyed tracks: same key string -> same track */
    pa->key.n = 0;
    PsStr s = ps_pool_get(&b->pool, tr->name);
    if( ps_buf_append(&pa->key, s.z, s.n) ) goto out;
    int64_t ta = ch_keyed_track(pa, tr->kind, tr->scope, aMapT[tr->thread]);
    if( ta<0 ) goto out;
    aMapTr[t] = (uint32_t)ta;
  }
  /* rows */
  size_t n0 = a->ev.n, nb = b->ev.n;
  if( ps_events_reserve(a, n0 + nb) ) goto out;
  PsEvents *ea = &a->ev, *eb = &b->ev;
  /* in steps (ps_chrome_merge_step rows), each step's rows of b given back once copied: a's new
  ** pages can then be b's (ps_events_release_rows) */
  size_t step = ps_chrome_merge_step ? ps_chrome_merge_step : 1;
  for(size_t r0=0; r0<nb; r0+=step){
    size_t m = nb - r0 < step ? nb - r0 : step, d = n0 + r0;
    memcpy(ea->aTs + d, eb->aTs + r0, m*sizeof(int64_t));
    memcpy(ea->aDur + d, eb->aDur + r0, m*sizeof(int64_t));
    memcpy(ea->aOff + d, eb->aOff + r0, m*sizeof(uint64_t));
    memcpy(ea->aParent + d, eb->aParent + r0, m*sizeof(int32_t));
    memcpy(ea->aDepth + d, eb->aDepth + r0, m*sizeof(int32_t));
    memcpy(ea->aPh + d, eb->aPh + r0, m);
    memcpy(ea->aFlags + d, eb->aFlags + r0, m);
    if( ea->aLen && eb->aLen ) memcpy(ea->aLen + d, eb->aLen + r0, m*sizeof(uint32_t));
    for(size_t r=r0; r<r0+m; r++){
      ea->aName[n0+r] = aMapS[eb->aName[r]];
      ea->aCat[n0+r] = aMapS[eb->aCat[r]];
      ea->aThread[n0+r] = aMapT[eb->aThread[r]];
      ea->aTrack[n0+r] = aMapTr[eb->aTrack[r]];
    }
    ps_events_release_rows(b, r0, r0 + m);
  }
  ea->n = n0 + nb;
  /* metadata rows (values point into the source or b's arenas, which a adopts); diagnostic
  ** rows keep the per-kind cap over both halves, the totals add up */
  size_t aRows[PS_DIAG_N];
  for(int d=0; d<PS_DIAG_N; d++) aRows[d] = a->nDiag[d] < PS_DIAG_ROWS ? a->nDiag[d] : PS_DIAG_ROWS;
  for(size_t k=0; k<b->nMeta; k++){
    PsMeta m = b->aMeta[k];
    PsStr sc = ps_pool_get(&b->pool, m.scope), ky = ps_pool_get(&b->pool, m.key);
    if( sc.n==10 && memcmp(sc.z, "diagnostic", 10)==0 ){
      int kind = -1;
      for(int d=0; d<PS_DIAG_N; d++) if( strlen(ps_diag_names[d])==ky.n && memcmp(ps_diag_names[d], ky.z, ky.n)==0 ) kind = d;
      if( kind>=0 && aRows[kind]++ >= PS_DIAG_ROWS ) continue;
    }
    m.scope = aMapS[m.scope]; m.key = aMapS[m.key];
    if( ps_grow((void**)&a->aMeta, sizeof(PsMeta), &a->nMetaAlloc, a->nMeta+1) ) goto out;
    a->aMeta[a->nMeta++] = m;
  }
  for(int d=0; d<PS_DIAG_N; d++) a->nDiag[d] += b->nDiag[d];
  ps_arena_adopt(&a->arena, &b->arena);
  ps_arena_adopt(&a->arena, &b->pool.arena);
  for(size_t k=0; k<pb->nProc; k++){
    if( ps_grow((void**)&pa->aProc, sizeof(ProcName), &pa->nProcAlloc, pa->nProc+1) ) goto out;
    ProcName pn = pb->aProc[k];
    ch_remap_value(&pn.pid, aMapS); pn.name = aMapS[pn.name];
    pa->aProc[pa->nProc++] = pn;
  }
  for(int c=0; c<256; c++) pa->aPhCount[c] += pb->aPhCount[c];
  pa->nEmpty += pb->nEmpty;
  pa->lastThread = -1;
  rc = PS_OK;
out:
  free(aMapS); free(aMapT); free(aMapTr);
  if( rc ) ps_nomem(pa->err);
  return rc;
}

/* ------------------------------------------------------------------ post-processing */

typedef struct MatchKey { int64_t ts; int32_t row; } MatchKey;
static int matchkey_cmp(const void *a, const void *b){
  const MatchKey *x = a, *y = b;
  if( x->ts!=y->ts ) return x->ts < y->ts ? -1 : 1;
  return x->row < y->row ? -1 : (x->row > y->row);
}

#define CH_MATCH_DEPTH 256   /* open begins an end event is matched against, from the innermost */

static int begin_kind(uint8_t ph){ return ph=='B' ? 1 : ph=='b' ? 2 : ph=='S' ? 3 : 0; }
static int end_kind(uint8_t ph){ return ph=='E' ? 1 : ph=='e' ? 2 : ph=='F' ? 3 : 0; }

/* Matches begin/end pairs per track: B/E on threads, b/e and S/F on async tracks. */
static int ch_match(Chrome *p){
  PsCapture *cap = p->cap;
  PsEvents *e = &cap->ev;
  size_t n = e->n, nT = cap->nTrack, m = 0;
  int rc = PS_NOMEM;
  size_t *aStart = calloc(nT+2, sizeof(size_t));
  MatchKey *aKey = 0;
  int32_t *aStack = 0; size_t nStack = 0, nStackAlloc = 0;
  if( aStart==0 ) return ps_nomem(p->err);
  for(size_t r=0; r<n; r++){
    if( begin_kind(e->aPh[r]) || end_kind(e->aPh[r]) ){ aStart[e->aTrack[r]+2]++; m++; }
  }
  if( m==0 ){ free(aStart); return PS_OK; }
  if( ps_events_want_endoff(cap) ) goto out;
  for(size_t t=0; t<nT; t++) aStart[t+2] += aStart[t+1];
  aKey = malloc(m*sizeof(MatchKey));
  if( aKey==0 ) goto out;
  for(size_t r=0; r<n; r++){
    if( begin_kind(e->aPh[r]) || end_kind(e->aPh[r]) ){
      MatchKey *k = &aKey[aStart[e->aTrack[r]+1]++];
      k->ts = e->aTs[r]; k->row = (int32_t)r;
    }
  }
  /* aStart[t]..aStart[t+1] is track t's range */
  for(size_t t=0; t<nT; t++){
    size_t a = aStart[t], b = aStart[t+1];
    int sorted = 1;
    for(size_t k=a+1; k<b; k++) if( aKey[k-1].ts > aKey[k].ts ){ sorted = 0; break; }
    if( !sorted ) qsort(aKey+a, b-a, sizeof(MatchKey), matchkey_cmp);
    nStack = 0;
    for(size_t k=a; k<b; k++){
      int32_t r = aKey[k].row;
      uint8_t ph = e->aPh[r];
      if( begin_kind(ph) ){
        if( ps_grow((void**)&aStack, sizeof(int32_t), &nStackAlloc, nStack+1) ) goto out;
        aStack[nStack++] = r;
        continue;
      }
      int kind = end_kind(ph);
      int64_t found = -1;
      /* look at most CH_MATCH_DEPTH open begins down: an end whose name matches nothing must
      ** not cost a walk of the whole stack (hostile input: 10^5 B then 10^5 unrelated E) */
      size_t sLow = nStack > CH_MATCH_DEPTH ? nStack - CH_MATCH_DEPTH : 0;
      for(size_t s=nStack; s>sLow; s--){
        int32_t b0 = aStack[s-1];
        if( begin_kind(e->aPh[b0])!=kind ) continue;
        if( e->aName[r]==0 || e->aName[r]==e->aName[b0] ){ found = (int64_t)(s-1); break; }
      }
      if( found<0 ){
        char b1[64], b2[64];
        PsThread *th = &cap->aThread[e->aThread[r]];
        PsStr s = ps_pool_get(&cap->pool, e->aName[r]);
        if( ps_diag(cap, PS_DIAG_UNMATCHED_END, (int64_t)e->aOff[r],
                    "'%c' event '%.*s' on pid %s tid %s closes no open '%c'; kept as its own row",
                    ph, (int)(s.n>80?80:s.n), s.z ? s.z : "", ps_value_text(cap, &th->pid, b1, sizeof(b1)),
                    ps_value_text(cap, &th->tid, b2, sizeof(b2)), kind==1 ? 'B' : kind==2 ? 'b' : 'S') ) goto out;
        continue;
      }
      int32_t b0 = aStack[found];
      memmove(aStack+found, aStack+found+1, (nStack-(size_t)found-1)*sizeof(int32_t));
      nStack--;
      if( __builtin_sub_overflow(e->aTs[r], e->aTs[b0], &e->aDur[b0]) ){
        /* a begin near -2^63 ns and an end near +2^63 ns: the span does not fit; dur stays NULL */
        e->aDur[b0] = PS_NULL64;
        PsStr s = ps_pool_get(&cap->pool, e->aName[b0]);
        if( ps_diag(cap, PS_DIAG_OTHER, (int64_t)e->aOff[b0],
                    "'%c' event '%.*s' ends more than 2^63 ns after it begins; dur is NULL", e->aPh[b0],
                    (int)(s.n>80?80:s.n), s.z ? s.z : "") ) goto out;
      }
      e->aEndOff[b0] = e->aOff[r];
      if( e->aName[b0]==0 ) e->aName[b0] = e->aName[r];
      e->aFlags[r] |= PS_EV_DEAD;
    }
    for(size_t s=0; s<nStack; s++){
      int32_t b0 = aStack[s];
      PsStr nm = ps_pool_get(&cap->pool, e->aName[b0]);
      if( ps_diag(cap, PS_DIAG_UNCLOSED, (int64_t)e->aOff[b0],
                  "'%c' event '%.*s' is never ended; dur is NULL", e->aPh[b0],
                  (int)(nm.n>80?80:nm.n), nm.z ? nm.z : "") ) goto out;
    }
  }
  rc = PS_OK;
out:
  free(aStart); free(aKey); free(aStack);
  if( rc ) ps_nomem(p->err);
  return rc;
}

typedef struct SliceKey { uint32_t track; int64_t ts; int32_t row; } SliceKey;
static int slicekey_cmp(const void *a, const void *b){
  const SliceKey *x = a, *y = b;
  if( x->track!=y->track ) return x->track < y->track ? -1 : 1;
  if( x->ts!=y->ts ) return x->ts < y->ts ? -1 : 1;
  return x->row < y->row ? -1 : (x->row > y->row);
}

/* Flow events s/t/f: link each to the slice it binds to. */
static int ch_bind_flows(Chrome *p){
  PsCapture *cap = p->cap;
  PsEvents *e = &cap->ev;
  size_t n = e->n, nF = 0, nNext = 0, nS = 0;
  for(size_t r=0; r<n; r++){
    uint8_t ph = e->aPh[r];
    if( ph=='s' || ph=='t' || ph=='f' ){
      nF++;
      if( ph=='f' && !(e->aFlags[r] & CH_BP_E) ) nNext++;
    }
  }
  if( nF==0 ) return PS_OK;
  SliceKey *aS = 0;
  if( nNext ){
    for(size_t r=0; r<n; r++) if( e->aFlags[r] & PS_EV_SLICE ) nS++;
    aS = malloc((nS ? nS : 1)*sizeof(SliceKey));
    if( aS==0 ) return ps_nomem(p->err);
    size_t k = 0;
    for(size_t r=0; r<n; r++) if( e->aFlags[r] & PS_EV_SLICE ){
      aS[k].track = e->aTrack[r]; aS[k].ts = e->aTs[r]; aS[k].row = (int32_t)r; k++;
    }
    qsort(aS, nS, sizeof(SliceKey), slicekey_cmp);
  }
  for(size_t r=0; r<n; r++){
    uint8_t ph = e->aPh[r];
    if( ph!='s' && ph!='t' && ph!='f' ) continue;
    int32_t target = e->aParent[r];
    if( ph=='f' && !(e->aFlags[r] & CH_BP_E) ){
      /* first slice on the same track with ts >= the flow's ts */
      size_t lo = 0, hi = nS;
      uint32_t tr = e->aTrack[r]; int64_t ts = e->aTs[r];
      while( lo<hi ){
        size_t mid = (lo+hi)/2;
        if( aS[mid].track < tr || (aS[mid].track==tr && aS[mid].ts < ts) ) lo = mid+1; else hi = mid;
      }
      target = (lo<nS && aS[lo].track==tr) ? aS[lo].row : -1;
    }
    if( ps_grow((void**)&cap->aLink, sizeof(PsLink), &cap->nLinkAlloc, cap->nLink+1) ){
      free(aS); return ps_nomem(p->err);
    }
    cap->aLink[cap->nLink].row = (int32_t)r;
    cap->aLink[cap->nLink].target = target;
    cap->nLink++;
  }
  free(aS);
  ps_capture_sort_links(cap);   /* rows were visited in order: already sorted */
  return PS_OK;
}

/* Process names apply to every thread of the pid, whenever the thread appeared; the last
** process_name of a pid wins. One pass: a hash of pid -> name (open addressing, the last entry
** of a pid overwrites), then one lookup per thread, so the work is linear in names + threads
** (cap->nWork counts the probes: tests assert it grows linearly). Polls for interrupt. */
static int ch_process_names(Chrome *p){
  PsCapture *cap = p->cap;
  if( p->nProc==0 ) return PS_OK;
  size_t nHash = 64;
  while( nHash < 2*p->nProc ) nHash *= 2;
  uint32_t *aHash = calloc(nHash, sizeof(uint32_t));       /* aProc index + 1, 0 = empty */
  if( aHash==0 ) return ps_nomem(p->err);
  for(size_t k=0; k<p->nProc; k++){
    const PsValue *w = &p->aProc[k].pid;
    size_t h = (size_t)ps_value_hash(w) & (nHash-1);
    for(;;){
      cap->nWork++; ps_nProbe++;
      uint32_t j = aHash[h];
      if( j==0 ){ aHash[h] = (uint32_t)k+1; break; }
      const PsValue *v = &p->aProc[j-1].pid;
      if( v->type==w->type && v->i==w->i && v->s==w->s ){ aHash[h] = (uint32_t)k+1; break; }
      h = (h+1) & (nHash-1);
    }
  }
  for(size_t t=0; t<cap->nThread; t++){
    if( ps_work(&cap->src, 1) ){ free(aHash); return ps_interrupted(p->err); }
    const PsValue *v = &cap->aThread[t].pid;
    size_t h = (size_t)ps_value_hash(v) & (nHash-1);
    uint32_t j;
    while( (j = aHash[h])!=0 ){
      cap->nWork++; ps_nProbe++;
      const PsValue *w = &p->aProc[j-1].pid;
      if( v->type==w->type && v->i==w->i && v->s==w->s ){ cap->aThread[t].processName = p->aProc[j-1].name; break; }
      h = (h+1) & (nHash-1);
    }
  }
  free(aHash);
  return PS_OK;
}

/* ------------------------------------------------------------------ stacks */
/* Call stacks (ext/model/stacks.h): the top-level 'stackFrames' dictionary becomes frame records,
** the top-level 'samples' array sample rows, and events with 'sf' or 'stack' (an E kept alone:
** its 'esf' or 'estack') get their stack; 'P' events are samples. Frame ids: every real file keys
** stackFrames by integers written as strings ("7") and refers to them by number or string (7,
** "7"): those are the record ids. Ids that are not integers, and the frames of inline 'stack'
** arrays, get ids after the largest integer id the file uses, in order of first appearance. */

typedef struct ChIds {
  uint32_t *aStr; int64_t *aId;    /* open addressing: pool id of a non-integer id -> its id */
  size_t n, nHash;
  int64_t next;                    /* the next id to give */
} ChIds;

/* The next id to give (ids near 2^63 from a hostile file stop counting rather than overflow:
** the ids then repeat, which the tree reports as 'duplicate'). */
static int64_t ch_ids_next(ChIds *m){
  return m->next<INT64_MAX ? m->next++ : m->next;
}

/* The id for the non-integer id text str (a pool id), given on first use. -1 when out of memory. */
static int64_t ch_ids_get(ChIds *m, uint32_t str){
  if( (m->n+1)*2 > m->nHash ){
    size_t nh = m->nHash ? m->nHash*2 : 64;
    uint32_t *a = calloc(nh, sizeof(uint32_t)); int64_t *b = malloc(nh*sizeof(int64_t));
    if( a==0 || b==0 ){ free(a); free(b); return -1; }
    for(size_t k=0; k<m->nHash; k++) if( m->aStr[k] ){
      size_t j = (size_t)ps_hash_u64(m->aStr[k]) & (nh-1);
      ps_nProbe++;
      while( a[j] ){ j = (j+1) & (nh-1); ps_nProbe++; }
      a[j] = m->aStr[k]; b[j] = m->aId[k];
    }
    free(m->aStr); free(m->aId); m->aStr = a; m->aId = b; m->nHash = nh;
  }
  size_t j = (size_t)ps_hash_u64(str) & (m->nHash-1);
  ps_nProbe++;
  while( m->aStr[j] ){
    if( m->aStr[j]==str ) return m->aId[j];
    j = (j+1) & (m->nHash-1);
    ps_nProbe++;
  }
  m->aStr[j] = str; m->aId[j] = ch_ids_next(m); m->n++;
  return m->aId[j];
}

/* The frame id written at v (a number or a string). 1: an integer (*pId); 0: another id, whose
** text (decoded) is interned as *pStr; -1: malformed or out of memory (err set). */
static int ch_id_value(Chrome *p, size_t v, const char *zWhat, int64_t *pId, uint32_t *pStr){
  const char *z = p->z; size_t n = p->n, i = v;
  const char *s; size_t sn;
  if( i<n && z[i]=='"' ){
    if( ps_json_string(z, n, &i, &p->scratch, &s, &sn, p->err) ) return -1;
  }else{
    if( ps_json_skip(z, n, &i, p->err) ) return -1;
    s = z+v; sn = i-v;
  }
  PsDec d;
  if( ps_dec_parse(s, sn, &d)==0 && ps_dec_int64(&d, pId)==0 && *pId<INT64_MAX/2 && *pId>INT64_MIN/2 ) return 1;
  if( ps_json_intern(p->cap, z, n, v, s, sn, zWhat, pStr) ){ ps_nomem(p->err); return -1; }
  return 0;
}

/* The record id for the id at v (ch_id_value, non-integers through m). -1 on error. */
static int ch_frame_id(Chrome *p, ChIds *m, size_t v, const char *zWhat, int64_t *pId){
  uint32_t str;
  int k = ch_id_value(p, v, zWhat, pId, &str);
  if( k<0 ) return PS_ERROR;
  if( k==0 && (*pId = ch_ids_get(m, str))<0 ) return ps_nomem(p->err);
  return PS_OK;
}

/* Member iteration over an object or array already validated by the parse (ps_json_member /
** ps_json_elem): *pi is just past its '{' / '[' (bObj 1 / 0) or just past a member. Returns 1
** with *pkq = the offset of the member's key quote (0 for arrays) and *pv = its value's offset,
** with *pi past the value; 0 at the end. */
static int ch_member(Chrome *p, size_t *pi, int bObj, size_t *pkq, size_t *pv){
  size_t i = ps_json_ws(p->z, p->n, *pi);
  int bMore = i<p->n && p->z[i]==',';
  if( bObj ){
    PsJsonMember m;
    if( ps_json_member(p->z, p->n, &i, bMore, &m, 1, 0)!=1 ) return 0;
    *pkq = m.q; *pv = m.v;
  }else{
    if( ps_json_elem(p->z, p->n, &i, bMore, 0)!=1 ) return 0;
    *pkq = 0; *pv = i;
    if( ps_json_skip(p->z, p->n, &i, 0) ) return 0;
  }
  *pi = i;
  return 1;
}

/* The value of key zKey in the object at off, or 0 when absent. */
static size_t ch_field(Chrome *p, size_t off, const char *zKey){
  size_t v;
  return ps_json_find_key(p->z, p->n, off, zKey, &v)==1 ? v : 0;
}

/* The metadata row (scope 'trace') of top-level key zKey holding JSON: its value's offset, or 0. */
static size_t ch_top_value(Chrome *p, const char *zKey){
  PsCapture *cap = p->cap;
  size_t k = strlen(zKey), v = 0;
  for(size_t m=0; m<cap->nMeta; m++){
    PsStr sc = ps_pool_get(&cap->pool, cap->aMeta[m].scope), ky = ps_pool_get(&cap->pool, cap->aMeta[m].key);
    if( cap->aMeta[m].type==PS_META_JSON && sc.n==5 && memcmp(sc.z, "trace", 5)==0 && ky.n==k
     && memcmp(ky.z, zKey, k)==0 && cap->aMeta[m].off>=0 ) v = (size_t)cap->aMeta[m].off;
  }
  return v;
}

/* The largest integer frame id at v (an id value), into *pMax. */
static void ch_max_id(Chrome *p, size_t v, int64_t *pMax){
  int64_t id; uint32_t str;
  PsErr e0; memset(&e0, 0, sizeof(e0));
  PsErr *keep = p->err; p->err = &e0;
  if( v && ch_id_value(p, v, "sf", &id, &str)==1 && id>*pMax ) *pMax = id;
  p->err = keep;
}

/* An inline 'stack' array at v (root first): its frames interned as a path of the trie; the leaf
** record row into *pLeaf (-1 for an empty array). */
static int ch_inline_stack(Chrome *p, ChIds *m, PsStackTrie *t, size_t v, int32_t *pLeaf){
  PsCapture *cap = p->cap;
  const char *z = p->z;
  int32_t parent = -1;
  size_t i = v+1, w, kq;
  *pLeaf = -1;
  if( z[v]!='[' ) return ps_diag(cap, PS_DIAG_OTHER, (int64_t)v, "'stack' is not an array; the row has no stack") ? ps_nomem(p->err) : PS_OK;
  while( ch_member(p, &i, 0, &kq, &w) ){
    const char *s; size_t sn, j = w;
    uint32_t name = 0;
    if( z[w]=='"' ){
      if( ps_json_string(z, p->n, &j, &p->scratch, &s, &sn, 0) ) break;
    }else{ s = z+w; sn = i-w; }
    if( ps_json_intern(cap, z, p->n, w, s, sn, "stack frame", &name) ) return ps_nomem(p->err);
    int bNew;
    int32_t r = ps_stack_child(cap, t, parent, ps_stack_key(name, 0), name, 0, &bNew);
    if( r<0 ) return ps_nomem(p->err);
    if( bNew ){
      PsRecord *x = &cap->aRec[r];
      x->recordId = ch_ids_next(m);
      x->parentId = parent>=0 ? cap->aRec[parent].recordId : PS_NULL64;
      x->msgOff = w;
    }
    parent = r;
  }
  *pLeaf = parent;
  return PS_OK;
}

/* A row's stack from its 'sf' (or 'esf') id or its inline 'stack' ('estack'). */
static int ch_row_stack(Chrome *p, ChIds *m, PsStackTrie *t, int32_t row, size_t off, int bEnd){
  size_t v = ch_field(p, off, bEnd ? "esf" : "sf");
  if( v ){
    int64_t id;
    if( ch_frame_id(p, m, v, bEnd ? "esf" : "sf", &id) ) return PS_ERROR;
    return ps_stack_ref(p->cap, row, id, v) ? ps_nomem(p->err) : PS_OK;
  }
  v = ch_field(p, off, bEnd ? "estack" : "stack");
  if( v ){
    int32_t leaf;
    if( ch_inline_stack(p, m, t, v, &leaf) ) return PS_ERROR;
    if( ps_events_want_stack(p->cap) ) return ps_nomem(p->err);
    p->cap->ev.aStack[row] = leaf;
  }
  return PS_OK;
}

/* The thread of a sample without a pid: the first thread of the trace events with its tid (as
** catapult finds a sample's thread by tid), else (NULL, tid). */
static int64_t ch_sample_thread(Chrome *p, const PsValue *pid, const PsValue *tid,
                                uint32_t **paTid, size_t *pnTid){
  PsCapture *cap = p->cap;
  if( pid->type!=PS_VAL_NULL || tid->type==PS_VAL_NULL ) return ch_thread(p, pid, tid);
  if( *paTid==0 ){
    /* tid -> first thread, over the threads the trace events made */
    size_t nh = 64;
    while( nh < 2*cap->nThread + 2 ) nh *= 2;
    *paTid = calloc(nh, sizeof(uint32_t));
    if( *paTid==0 ) return -1;
    *pnTid = nh;
    for(size_t th=0; th<cap->nThread; th++){
      const PsValue *v = &cap->aThread[th].tid;
      size_t h = (size_t)ps_value_hash(v) & (nh-1);
      ps_nProbe++;
      while( (*paTid)[h] ){
        const PsValue *w = &cap->aThread[(*paTid)[h]-1].tid;
        if( w->type==v->type && w->i==v->i && w->s==v->s ) break;
        h = (h+1) & (nh-1);
        ps_nProbe++;
      }
      if( (*paTid)[h]==0 ) (*paTid)[h] = (uint32_t)th + 1;
    }
  }
  size_t h = (size_t)ps_value_hash(tid) & (*pnTid-1);
  ps_nProbe++;
  while( (*paTid)[h] ){
    const PsThread *th = &cap->aThread[(*paTid)[h]-1];
    if( th->tid.type==tid->type && th->tid.i==tid->i && th->tid.s==tid->s ) return (int64_t)((*paTid)[h]-1);
    h = (h+1) & (*pnTid-1);
    ps_nProbe++;
  }
  return ch_thread(p, pid, tid);
}

/* One element of the top-level 'samples' array: {cpu, tid, ts, name, sf | stack, weight, ...}. */
static int ch_sample(Chrome *p, ChIds *m, PsStackTrie *t, size_t off, uint32_t **paTid, size_t *pnTid){
  PsCapture *cap = p->cap;
  const char *z = p->z;
  if( z[off]!='{' ){
    return ps_diag(cap, PS_DIAG_OTHER, (int64_t)off, "a 'samples' entry is not an object; skipped") ? ps_nomem(p->err) : PS_OK;
  }
  PsValue pid, tid; memset(&pid, 0, sizeof(pid)); memset(&tid, 0, sizeof(tid));
  int64_t ts = 0, weight = 1, cpu = -1; uint8_t hasTs = 0;
  uint32_t name = 0;
  size_t v, i;
  if( (v = ch_field(p, off, "pid"))!=0 ){ i = v; if( ch_pidtid(p, &i, "pid", &pid) ) return PS_ERROR; }
  if( (v = ch_field(p, off, "tid"))!=0 ){ i = v; if( ch_pidtid(p, &i, "tid", &tid) ) return PS_ERROR; }
  if( (v = ch_field(p, off, "ts"))!=0 ){
    i = v;
    int rc = ch_time(p, &i, "ts", &ts, &hasTs);
    if( rc==CH_BAD_VALUE ){
      /* (a sample is no event: it stays an error) */
      const char *s; size_t sn; i = v;
      if( ps_json_string(z, p->n, &i, &p->scratch, &s, &sn, p->err) ) return PS_ERROR;
      return ps_err_at(p->err, (int64_t)v, "expected a number for 'ts', found the string \"%.*s\"",
                       (int)(sn>40?40:sn), s);
    }
    if( rc ) return PS_ERROR;
  }
  if( (v = ch_field(p, off, "name"))!=0 && z[v]=='"' ){ i = v; if( ch_string_id(p, &i, "name", &name) ) return PS_ERROR; }
  if( (v = ch_field(p, off, "weight"))!=0 ){
    int64_t w; uint32_t str;
    int k = ch_id_value(p, v, "weight", &w, &str);
    if( k<0 ) return PS_ERROR;
    if( k==1 && w>=0 ) weight = w;
    else if( ps_diag(cap, PS_DIAG_OTHER, (int64_t)v, "a sample's 'weight' is not a non-negative integer; taken as 1") ) return ps_nomem(p->err);
  }
  if( (v = ch_field(p, off, "cpu"))!=0 ){
    int64_t c; uint32_t str;
    int k = ch_id_value(p, v, "cpu", &c, &str);
    if( k<0 ) return PS_ERROR;
    if( k==1 && c>=0 && c<INT32_MAX ) cpu = c;      /* Hermes writes "-1": no CPU */
  }
  if( !hasTs && ps_diag(cap, PS_DIAG_OTHER, (int64_t)off, "a sample without 'ts'; ts taken as 0") ) return ps_nomem(p->err);
  int64_t th = ch_sample_thread(p, &pid, &tid, paTid, pnTid);
  if( th<0 ) return ps_nomem(p->err);
  int64_t r = ps_sample_add(cap, ts, PS_NULL64, (uint32_t)th, -1, weight, off);
  if( r<0 ) return ps_nomem(p->err);
  cap->ev.aName[r] = name;
  if( cpu>=0 ){
    if( ps_events_want_cpu(cap) ) return ps_nomem(p->err);
    cap->ev.aCpu[r] = (int32_t)cpu;
  }
  if( (v = ch_field(p, off, "comm"))!=0 && z[v]=='"' && cap->aThread[th].threadName==0 ){
    i = v;
    if( ch_string_id(p, &i, "comm", &cap->aThread[th].threadName) ) return PS_ERROR;
  }
  return ch_row_stack(p, m, t, (int32_t)r, off, 0);
}

/* ---- DevTools' V8 CPU profiles in the trace (ext/formats/cpuprofile.h reads the nodes and samples).
** A 'Profile' event (ph 'P', args.data.startTime µs) starts a profile; its 'ProfileChunk'
** events (ph 'P', the same pid and id, often written by another thread: the sampler) bring
** args.data.cpuProfile.nodes (with "parent"), .samples (node ids) and args.data.timeDeltas
** (µs, the running clock continues across chunks; cpuProfile.timeDeltas in some versions) and,
** in the last chunk, args.data.endTime. A profile is keyed by (pid, id); its sample rows go on
** the thread of its 'Profile' event (the profiled thread, as DevTools shows them), with cat
** from that event. A 'CpuProfile' event (Chrome 65 and older) holds a whole profile in
** args.data.cpuProfile. Node ids are offset per profile so that they stay apart: the k-th
** profile (0-based, order of first appearance) has idBase k * 2^32, one more when the trace
** also has stackFrames or sf ids; record_id = idBase + the node's id. */

typedef struct ChV8 {
  uint32_t key;               /* pool id of "pid\x1fid" */
  PsV8Profile prof;
  int64_t endNs;              /* args.data.endTime of a chunk, PS_NULL64 until one says */
} ChV8;

/* args.data.<zKey> of the event at off, or 0. */
static size_t ch_data_field(Chrome *p, size_t off, const char *zKey){
  size_t a = ch_field(p, off, "args");
  if( a==0 || p->z[a]!='{' ) return 0;
  size_t d = ch_field(p, a, "data");
  if( d==0 || p->z[d]!='{' ) return 0;
  return ch_field(p, d, zKey);
}

/* A µs number (or numeric string) at v, in ns; PS_NULL64 when absent or not a number. */
static int64_t ch_us_value(Chrome *p, size_t v){
  if( v==0 ) return PS_NULL64;
  size_t i = v; int64_t ns; uint8_t has = 0;
  PsErr e0; memset(&e0, 0, sizeof(e0));
  PsErr *keep = p->err; p->err = &e0;
  int rc = ch_time(p, &i, "startTime", &ns, &has);
  p->err = keep;
  return rc==PS_OK && has ? ns : PS_NULL64;
}

/* The event names of V8 profiles, as pool ids (ch_stacks interns them once). */
typedef struct ChV8Names { uint32_t idProfile, idChunk, idCpu; } ChV8Names;

static int ch_v8_profiles(Chrome *p, const ChV8Names *pN, int bOtherIds, int64_t *pMaxId){
  PsCapture *cap = p->cap;
  PsEvents *e = &cap->ev;
  uint32_t idProfile = pN->idProfile, idChunk = pN->idChunk, idCpu = pN->idCpu;
  size_t nEv = e->n, nProf = 0, nAlloc = 0, nCpu = 0;
  for(size_t r=0; r<nEv; r++){
    if( (e->aPh[r]=='P' && (e->aName[r]==idProfile || e->aName[r]==idChunk)) || e->aName[r]==idCpu ) nProf++;
  }
  if( nProf==0 ) return PS_OK;
  ChV8 *a = 0; size_t nA = 0;
  uint32_t *aHash = 0; size_t nHash = 16;
  while( nHash < 2*nProf ) nHash *= 2;
  aHash = calloc(nHash, sizeof(uint32_t));
  PsV8 v; ps_v8_init(&v, cap, p->err);
  int rc = PS_NOMEM;
  if( aHash==0 ) goto out;
  int64_t k0 = bOtherIds ? 1 : 0;
  for(size_t r=0; r<nEv; r++){
    uint32_t nm = e->aName[r];
    int bCpu = nm==idCpu;
    if( !bCpu && (e->aPh[r]!='P' || (nm!=idProfile && nm!=idChunk)) ) continue;
    if( ps_work(&cap->src, 64) ){ rc = ps_interrupted(p->err); goto out; }   /* (a profile event: its chunk) */
    size_t off = (size_t)e->aOff[r];
    if( bCpu ){
      size_t iObj = ch_data_field(p, off, "cpuProfile");
      if( iObj==0 || p->z[iObj]!='{' ) continue;
      int64_t idBase = (int64_t)(k0 + (int64_t)nA + (int64_t)nCpu) << 32;
      nCpu++;
      if( ps_v8_profile_object(&v, iObj, idBase, e->aThread[r], e->aCat[r], 0) ){ rc = PS_ERROR; goto out; }
      continue;
    }
    /* the profile: (pid, id) */
    char buf[64];
    p->key.n = 0;
    const PsValue *pid = &cap->aThread[e->aThread[r]].pid;
    const char *zPid = ps_value_text(cap, pid, buf, sizeof(buf));
    size_t vId = ch_field(p, off, "id"), vEnd = vId;
    if( ps_buf_append(&p->key, zPid, strlen(zPid)) || ps_buf_append(&p->key, "\x1f", 1) ) goto out;
    if( vId && ps_json_skip(p->z, p->n, &vEnd, 0)==0 && ps_buf_append(&p->key, p->z+vId, vEnd-vId) ) goto out;
    uint32_t key = ps_pool_intern(&cap->pool, p->key.z, p->key.n, 0);
    if( key==0 ) goto out;
    size_t j = (size_t)ps_hash_u64(key) & (nHash-1);
    ps_nProbe++;
    while( aHash[j] && a[aHash[j]-1].key!=key ){ j = (j+1) & (nHash-1); ps_nProbe++; }
    ChV8 *x;
    if( aHash[j]==0 ){
      if( ps_grow((void**)&a, sizeof(ChV8), &nAlloc, nA+1) ) goto out;
      x = &a[nA];
      int64_t start = nm==idProfile ? ch_us_value(p, ch_data_field(p, off, "startTime")) : PS_NULL64;
      if( start==PS_NULL64 ) start = e->aTs[r];
      int64_t idBase = (int64_t)(k0 + (int64_t)nA + (int64_t)nCpu) << 32;
      ps_v8_profile_init(&x->prof, start, idBase, e->aThread[r]);
      x->prof.cat = e->aCat[r];
      x->key = key; x->endNs = PS_NULL64;
      aHash[j] = (uint32_t)++nA;
      if( nm==idChunk && ps_diag(cap, PS_DIAG_OTHER, (int64_t)off,
              "a 'ProfileChunk' before its 'Profile' event; the profile starts at the chunk's ts") ) goto out;
    }else{
      x = &a[aHash[j]-1];
      if( nm==idProfile ){
        if( ps_diag(cap, PS_DIAG_DUPLICATE, (int64_t)off, "a second 'Profile' event for one pid and id; its chunks continue the first") ) goto out;
        continue;
      }
    }
    if( nm!=idChunk ) continue;
    size_t iCpu = ch_data_field(p, off, "cpuProfile");
    if( iCpu && p->z[iCpu]!='{' ) iCpu = 0;
    size_t iNodes = iCpu ? ch_field(p, iCpu, "nodes") : 0;
    size_t iSamples = iCpu ? ch_field(p, iCpu, "samples") : 0;
    size_t iDeltas = ch_data_field(p, off, "timeDeltas");
    if( iDeltas==0 && iCpu ) iDeltas = ch_field(p, iCpu, "timeDeltas");
    int64_t endNs = ch_us_value(p, ch_data_field(p, off, "endTime"));
    if( endNs!=PS_NULL64 ) x->endNs = endNs;
    if( iNodes && ps_v8_nodes(&v, iNodes, x->prof.idBase) ){ rc = PS_ERROR; goto out; }
    if( (iSamples || iDeltas) && ps_v8_samples(&v, &x->prof, iSamples, iDeltas) ){ rc = PS_ERROR; goto out; }
  }
  for(size_t k=0; k<nA; k++){
    if( ps_v8_profile_end(&v, &a[k].prof, a[k].endNs) ){ rc = PS_ERROR; goto out; }
  }
  if( ps_v8_finish(&v) ){ rc = PS_ERROR; goto out; }
  for(size_t r=0; r<cap->nRec; r++) if( cap->aRec[r].recordId > *pMaxId ) *pMaxId = cap->aRec[r].recordId;
  if( ps_meta_int(cap, "capture", "v8_profiles", (int64_t)(nA + nCpu), -1) ) goto out;
  rc = PS_OK;
out:
  if( rc==PS_NOMEM ) ps_nomem(p->err);
  for(size_t k=0; k<nA; k++) ps_v8_profile_free(&a[k].prof);
  free(a); free(aHash);
  ps_v8_free(&v);
  return rc;
}

static int ch_stacks(Chrome *p){
  PsCapture *cap = p->cap;
  PsEvents *e = &cap->ev;
  size_t vFrames = ch_top_value(p, "stackFrames"), vSamples = ch_top_value(p, "samples");
  size_t nFlagged = 0, nP = 0, nSamples = 0;
  ChV8Names nm;
  nm.idProfile = ps_pool_intern(&cap->pool, "Profile", 7, 0);
  nm.idChunk = ps_pool_intern(&cap->pool, "ProfileChunk", 12, 0);
  nm.idCpu = ps_pool_intern(&cap->pool, "CpuProfile", 10, 0);
  if( nm.idProfile==0 || nm.idChunk==0 || nm.idCpu==0 ) return ps_nomem(p->err);
  uint32_t idProfile = nm.idProfile, idChunk = nm.idChunk, idCpu = nm.idCpu;
  for(size_t r=0; r<e->n; r++){
    if( e->aFlags[r] & CH_HAS_STACK ) nFlagged++;
    if( e->aPh[r]=='P' || e->aName[r]==idCpu ) nP++;
  }
  if( vFrames==0 && vSamples==0 && nFlagged==0 && nP==0 ) return PS_OK;
  const char *z = p->z;
  size_t kq, v, i;
  ChIds m; memset(&m, 0, sizeof(m));
  PsStackTrie t; memset(&t, 0, sizeof(t));
  uint32_t *aTid = 0; size_t nTid = 0;
  int rc = PS_ERROR;
  /* the largest integer id in use, so that the ids given to other frames never meet one */
  int64_t maxId = 0;
  if( vFrames && z[vFrames]=='{' ){
    for(i = vFrames+1; ch_member(p, &i, 1, &kq, &v); ){
      ch_max_id(p, kq, &maxId);
      if( z[v]=='{' ) ch_max_id(p, ch_field(p, v, "parent"), &maxId);
    }
  }
  if( vSamples && z[vSamples]=='[' ){
    for(i = vSamples+1; ch_member(p, &i, 0, &kq, &v); ) if( z[v]=='{' ) ch_max_id(p, ch_field(p, v, "sf"), &maxId);
  }
  for(size_t r=0; r<e->n; r++){
    if( !(e->aFlags[r] & CH_HAS_STACK) ) continue;
    ch_max_id(p, ch_field(p, e->aOff[r], "sf"), &maxId);
    ch_max_id(p, ch_field(p, e->aOff[r], "esf"), &maxId);
  }
  /* V8 CPU profiles first: their ids are offset past the file's (ch_v8_profiles) */
  int64_t maxV8 = maxId;
  if( ch_v8_profiles(p, &nm, vFrames!=0 || maxId>0, &maxV8) ) goto out;
  int64_t maxAll = maxV8 > maxId ? maxV8 : maxId;
  m.next = maxAll<INT64_MAX ? maxAll + 1 : INT64_MAX;
  /* frames */
  if( vFrames && z[vFrames]!='{' ){
    if( ps_diag(cap, PS_DIAG_OTHER, (int64_t)vFrames, "'stackFrames' is not an object; no frames read") ) goto nomem;
  }else if( vFrames ){
    for(i = vFrames+1; ch_member(p, &i, 1, &kq, &v); ){
      int64_t id, parentId = PS_NULL64;
      if( ch_frame_id(p, &m, kq, "stackFrames key", &id) ) goto out;
      if( z[v]!='{' ){
        if( ps_diag(cap, PS_DIAG_OTHER, (int64_t)v, "stack frame %lld is not an object; skipped", (long long)id) ) goto nomem;
        continue;
      }
      size_t w = ch_field(p, v, "parent"), j;
      if( w && !(z[w]=='n' && memcmp(z+w, "null", 4)==0) && ch_frame_id(p, &m, w, "parent", &parentId) ) goto out;
      uint32_t name = 0, cat = 0;
      if( (w = ch_field(p, v, "name"))!=0 && z[w]=='"' ){ j = w; if( ch_string_id(p, &j, "name", &name) ) goto out; }
      if( (w = ch_field(p, v, "category"))!=0 && z[w]=='"' ){ j = w; if( ch_string_id(p, &j, "category", &cat) ) goto out; }
      PsRecord *rec = ps_frame_add(cap, id, parentId, name, cat);
      if( rec==0 ) goto nomem;
      rec->msgOff = v;
      size_t ve = v;
      if( ps_json_skip(z, p->n, &ve, 0)==0 ){ rec->zAttrs = z+v; rec->nAttrs = (uint32_t)(ve-v); }
    }
  }
  /* rows with sf / stack; P events are samples */
  for(size_t r=0; r<e->n; r++){
    if( ps_work(&cap->src, 1) ){ rc = ps_interrupted(p->err); goto out; }
    /* P events are samples; not the V8 profile's own Profile / ProfileChunk events */
    if( e->aPh[r]=='P' && e->aName[r]!=idProfile && e->aName[r]!=idChunk ) e->aFlags[r] |= PS_EV_SAMPLE;
    if( !(e->aFlags[r] & CH_HAS_STACK) ) continue;
    int bEnd = e->aPh[r]=='E';
    if( ch_row_stack(p, &m, &t, (int32_t)r, e->aOff[r], bEnd) ) goto out;
  }
  /* global samples, after the trace events */
  if( vSamples && z[vSamples]!='[' ){
    if( ps_diag(cap, PS_DIAG_OTHER, (int64_t)vSamples, "'samples' is not an array; no samples read") ) goto nomem;
  }else if( vSamples ){
    for(i = vSamples+1; ch_member(p, &i, 0, &kq, &v); nSamples++){
      if( ps_work(&cap->src, i - v + 1) ){ rc = ps_interrupted(p->err); goto out; }   /* by bytes */
      if( ch_sample(p, &m, &t, v, &aTid, &nTid) ) goto out;
    }
  }
  /* attrs cut from the source (stackFrames' frames, and the V8 nodes' members) as RFC 8259 text
  ** when the capture has met lenient JSON */
  for(size_t r=0; cap->nDiag[PS_DIAG_LENIENT_JSON] && r<cap->nRec; r++){
    PsRecord *x = &cap->aRec[r];
    if( x->zAttrs==0 ) continue;
    p->norm.n = 0;
    int k = ps_json_normalize(x->zAttrs, x->nAttrs, &p->norm);
    if( k<0 ) goto nomem;
    if( k==0 ) continue;
    if( p->norm.n > UINT32_MAX ){ ps_err(p->err, "a frame's attrs take more than 4 GiB"); goto out; }
    char *c = ps_arena_alloc(&cap->arena, p->norm.n + 1);
    if( c==0 ) goto nomem;
    memcpy(c, p->norm.z, p->norm.n); c[p->norm.n] = 0;
    x->zAttrs = c; x->nAttrs = (uint32_t)p->norm.n;
  }
  if( ps_stacks_finish(cap, 1, p->err) ) goto out;
  if( cap->nRec && ps_meta_int(cap, "capture", "stack_frames", (int64_t)cap->nRec, -1) ) goto nomem;
  if( nSamples && ps_meta_int(cap, "capture", "samples", (int64_t)nSamples, -1) ) goto nomem;
  rc = PS_OK;
  goto out;
nomem:
  rc = ps_nomem(p->err);
out:
  free(m.aStr); free(m.aId); free(aTid);
  ps_stack_trie_free(&t);
  return rc;
}

/* The Linux ftrace text that comes with the trace: a 'systemTraceEvents' string (the spec's
** object form: "String of Linux ftrace data", starting with "# tracer:") and the text blocks of
** a systrace HTML document beside its JSON block (PsSource.zText), both when there are both
** (joined). Read by the ftrace reader into rows after the events, before nesting; a string that
** is not ftrace text (Windows ETW data, the spec's other option) stays only in profile_metadata,
** with an 'other' diagnostic. */
static int ch_system_text(Chrome *p){
  PsCapture *cap = p->cap;
  const char *zSys = p->zSystem;
  size_t nSys = p->nSystem;
  if( zSys && nSys && ps_format_ftrace.xProbe(zSys, nSys)==0 ){
    if( ps_diag(cap, PS_DIAG_OTHER, -1, "'systemTraceEvents' is not Linux ftrace text (it does not start with "
                "'# tracer:' or ftrace event lines); kept as the profile_metadata row ('trace', 'systemTraceEvents')") ) return ps_nomem(p->err);
    zSys = 0; nSys = 0;
  }
  if( nSys==0 ) zSys = 0;
  const char *zText = cap->src.zText;
  size_t nText = cap->src.nText;
  if( zSys && zText ){
    char *j = ps_arena_alloc(&cap->arena, nSys + 1 + nText + 1);
    if( j==0 ) return ps_nomem(p->err);
    memcpy(j, zSys, nSys); j[nSys] = '\n';
    memcpy(j+nSys+1, zText, nText); j[nSys+1+nText] = 0;
    zText = j; nText += nSys + 1;
  }else if( zSys ){
    zText = zSys; nText = nSys;
  }
  if( zText==0 ) return PS_OK;
  return ps_ftrace_read(cap, zText, nText, p->err);
}

static int ch_finish(Chrome *p){
  PsCapture *cap = p->cap;
  if( ch_process_names(p) ) return PS_ERROR;
  if( ch_match(p) ) return PS_ERROR;
  if( ps_capture_compact(cap) ) return ps_nomem(p->err);
  if( ch_stacks(p) ) return PS_ERROR;
  if( ch_system_text(p) ) return PS_ERROR;
  if( ps_capture_nest(cap, p->err) ) return PS_NOMEM;
  if( ch_bind_flows(p) ) return PS_ERROR;
  /* counts */
  if( ps_meta_int(cap, "capture", "events", (int64_t)cap->ev.n, -1) ) return PS_NOMEM;
  if( ps_meta_int(cap, "capture", "threads", (int64_t)cap->nThread, -1) ) return PS_NOMEM;
  if( ps_meta_int(cap, "capture", "tracks", (int64_t)cap->nTrack, -1) ) return PS_NOMEM;
  if( p->nEmpty && ps_meta_int(cap, "capture", "empty_events_skipped", (int64_t)p->nEmpty, -1) ) return PS_NOMEM;
  for(int c=0; c<256; c++){
    if( p->aPhCount[c]==0 ) continue;
    char key[8];
    if( c==0 ) snprintf(key, sizeof(key), "NULL"); else snprintf(key, sizeof(key), "%c", c);
    if( ps_meta_int(cap, "ph", key, (int64_t)p->aPhCount[c], -1) ) return PS_NOMEM;
  }
  for(size_t t=0; t<cap->nTrack; t++){
    if( ps_meta_track(cap, t) ) return PS_NOMEM;      /* (its text made when read) */
  }
  return PS_OK;
}

/* ------------------------------------------------------------------ entry points */

static int ch_parse(PsCapture *cap, PsErr *err){
  Chrome p;
  memset(&p, 0, sizeof(p));
  p.z = cap->src.z; p.n = cap->src.n; p.cap = cap; p.err = err; p.lastThread = -1;
  /* this reader reads JSON as trace_processor does (json.h: leniency), noting what it meets */
  const PsJsonLenient *pLenient = ps_json_lenient;
  ch_lenient_init(&p);
  ps_json_lenient = &p.lenient;
  int rc = PS_OK;
  size_t i = 0, n = p.n;
  const char *z = p.z;
  if( n>=3 && (unsigned char)z[0]==0xEF && (unsigned char)z[1]==0xBB && (unsigned char)z[2]==0xBF ) i = 3;
  i = ws(&p, i);
  /* a first row estimate; ch_events refines it from the bytes per event seen so far */
  if( ps_events_reserve(cap, n/400 + 16) || ps_events_want_len(cap) ){ rc = ps_nomem(err); goto out; }
  if( i>=n ){ rc = ps_err(err, "empty input: expected a Trace Event Format JSON array or object"); goto out; }
  if( z[i]=='[' ){
    p.bTopArray = 1;
    if( ps_meta_text(cap, "capture", "form", "array", 5, PS_META_TEXT, -1) ){ rc = ps_nomem(err); goto out; }
    rc = ch_events(&p, &i, 1);
    if( rc ) goto out;
  }else if( z[i]=='{' ){
    if( ps_meta_text(cap, "capture", "form", "object", 6, PS_META_TEXT, -1) ){ rc = ps_nomem(err); goto out; }
    int bEvents = 0;
    size_t iEvents = 0, iEventsKey = 0;   /* the member that holds the events, its key's offset */
    i = ws(&p, i+1);
    size_t iComma = 0;                    /* the ',' before this key (0: the first key) */
    if( i<n && z[i]=='}' ){ i++; }
    else for(;;){
      const char *k; size_t kn, i0k = i;
      if( i>=n || z[i]!='"' ){
        if( iComma && i<n && z[i]=='}' ){  /* a trailing comma */
          ch_note(&p, PS_JSON_LENIENT_COMMA, iComma, '}');
          i++;
          break;
        }
        rc = ch_err(&p, i, "expected a string key in the top-level object"); goto out;
      }
      if( ps_json_string(z, n, &i, &p.scratch, &k, &kn, err) ){ rc = PS_ERROR; goto out; }
      char key[PS_JSON_KEY_BUF];
      if( ps_json_key_text(cap, z, n, i0k, k, kn, key) ){ rc = ps_nomem(err); goto out; }
      int bTrace = strcmp(key, "traceEvents")==0 && kn==11;
      /* a key given again: the last one wins (the earlier value's rows go) */
      uint32_t iPrev = 0; size_t prevOff = 0;
      int dup = ps_json_keys_put(&p.kTop, z, i0k+1, i-i0k-2, (uint32_t)p.nMember, &iPrev, &prevOff);
      if( dup<0 || ps_grow((void**)&p.aMember, sizeof(p.aMember[0]), &p.nMemberAlloc, p.nMember+1) ){ rc = ps_nomem(err); goto out; }
      if( bTrace && bEvents && !dup ){ dup = 1; iPrev = (uint32_t)iEvents; prevOff = iEventsKey; }
      if( dup ){
        if( ps_json_dup_diag(cap, z, i0k+1, i-i0k-2, prevOff, "the top-level object") ){ rc = ps_nomem(err); goto out; }
        ps_meta_drop(cap, p.aMember[iPrev][0], p.aMember[iPrev][1]);
        if( bTrace ) ch_reset_events(&p);
      }
      p.aMember[p.nMember][0] = cap->nMeta;
      i = ws(&p, i);
      if( i>=n || z[i]!=':' ){ rc = ch_err(&p, i, "expected ':' after a top-level key"); goto out; }
      i = ws(&p, i+1);
      if( bTrace ){
        if( i>=n || z[i]!='[' ){ rc = ch_err(&p, i, "expected '[' for traceEvents"); goto out; }
        rc = ch_events(&p, &i, 0);
        if( rc ) goto out;
        bEvents = 1; iEvents = p.nMember; iEventsKey = i0k+1;
      }else{
        size_t v0 = i;
        if( i<n && z[i]=='"' ){
          const char *s; size_t sn;
          if( ps_json_string(z, n, &i, &p.scratch, &s, &sn, err) ){ rc = PS_ERROR; goto out; }
          char *c = ps_arena_strdup(&cap->arena, s, sn), zField[PS_JSON_KEY_BUF+10];
          snprintf(zField, sizeof(zField), "trace '%s'", key);
          if( c==0 || ps_json_text_diag(cap, z, n, v0, s, sn, zField)
           || ps_meta_text(cap, "trace", key, c, sn, PS_META_TEXT, (int64_t)v0) ){ rc = ps_nomem(err); goto out; }
          if( strcmp(key, "systemTraceEvents")==0 && kn==17 ){ p.zSystem = c; p.nSystem = sn; }
        }else{
          if( ps_json_skip(z, n, &i, err) ){ rc = PS_ERROR; goto out; }
          if( ch_meta_json(&p, "trace", key, v0, i, (int64_t)v0) ){ rc = ps_nomem(err); goto out; }
        }
      }
      p.aMember[p.nMember++][1] = cap->nMeta;
      i = ws(&p, i);
      if( i<n && z[i]==',' ){ iComma = i; i = ws(&p, i+1); continue; }
      if( i<n && z[i]=='}' ){ i++; break; }
      rc = ch_err(&p, i, "expected ',' or '}' in the top-level object");
      goto out;
    }
    if( !bEvents ){
      if( ps_diag(cap, PS_DIAG_OTHER, -1, "the top-level object has no 'traceEvents' array") ){ rc = ps_nomem(err); goto out; }
    }
  }else{
    rc = ch_err(&p, i, "expected '[' or '{' at the start of a Trace Event Format file");
    goto out;
  }
  i = ws(&p, i);
  if( i<n ){
    rc = ps_err_at(err, (int64_t)i, "unexpected data after the end of the trace (expected end of input)");
    goto out;
  }
  if( p.bNoteNomem ){ rc = PS_NOMEM; goto out; }
  ps_meta_compact(cap);
  ps_json_lenient = &ch_quiet;        /* read again after the parse: noted already */
  rc = ch_finish(&p);
  if( rc==PS_OK && p.bNoteNomem ) rc = PS_NOMEM;
out:
  ps_json_lenient = pLenient;
  if( rc==PS_NOMEM && err ) ps_nomem(err);
  ps_buf_free(&p.scratch); ps_buf_free(&p.key); ps_buf_free(&p.ev.id); ps_buf_free(&p.ev.scope); ps_buf_free(&p.norm);
  free(p.aKeyTrack); free(p.aProc); free(p.aMember); ps_json_keys_free(&p.kTop);
  return rc;
}

/* Looks like a Trace Event Format file: first non-space byte '[' or '{' followed by '{' / '"'.
** Scores low (1) so that more specific JSON formats can claim object files by their keys. */
static int ch_probe(const char *z, size_t n){
  size_t i = 0;
  if( n>=3 && (unsigned char)z[0]==0xEF && (unsigned char)z[1]==0xBB && (unsigned char)z[2]==0xBF ) i = 3;
  i = ps_json_ws(z, n, i);
  if( i>=n ) return 0;
  if( z[i]=='[' ){
    i = ps_json_ws(z, n, i+1);
    return (i>=n || z[i]=='{' || z[i]==']') ? 2 : 0;
  }
  if( z[i]=='{' ){
    i = ps_json_ws(z, n, i+1);
    return (i>=n || z[i]=='"' || z[i]=='}') ? 1 : 0;
  }
  return 0;
}

/* ------------------------------------------------------------------ lazy columns */

/* Finds key in the event object at off; returns 1 and the value span, 0 when absent. */
static int ev_field(const PsCapture *cap, uint64_t off, const char *zKey, size_t *pv, size_t *pEnd){
  const char *z = cap->src.z; size_t n = cap->src.n;
  size_t v;
  if( ps_json_find_key_valid(z, n, (size_t)off, zKey, &v)!=1 ) return 0;
  size_t e = v;
  if( ps_json_skip_valid(z, n, &e) ) return 0;
  *pv = v; *pEnd = e;
  return 1;
}

static int out_time(const PsCapture *cap, uint64_t off, const char *zKey, int64_t *pNs){
  size_t v, e;
  if( !ev_field(cap, off, zKey, &v, &e) ) return 0;
  const char *z = cap->src.z + v; size_t n = e - v;
  if( n>=2 && z[0]=='"' ){ z++; n -= 2; }
  PsDec d;
  if( ps_dec_parse(z, n, &d) || ps_dec_scale(&d, 3, pNs) ) return 0;
  return 1;
}

/* JSON text z[0..n) cut from the source into *o (type already set): as it is, or as RFC 8259 text
** (ps_json_normalize, a copy o owns) when the capture has met lenient JSON and the text has
** some. PS_OK or PS_NOMEM. */
static int out_json(const PsCapture *cap, const char *z, size_t n, PsOut *o){
  o->z = z; o->n = n;
  if( cap->nDiag[PS_DIAG_LENIENT_JSON]==0 ) return PS_OK;
  PsBuf b = {0,0,0};
  int k = ps_json_normalize(z, n, &b);
  if( k<0 ){ ps_buf_free(&b); return PS_NOMEM; }
  if( k==0 ){ ps_buf_free(&b); return PS_OK; }
  if( o->zFree ) free(o->zFree);
  o->zFree = b.z; o->z = b.z; o->n = b.n;
  return PS_OK;
}

/* A JSON scalar as SQL: string -> TEXT (decoded), integer -> INTEGER, else raw text. */
static int out_scalar(const PsCapture *cap, size_t v, size_t e, PsOut *o){
  const char *z = cap->src.z;
  if( z[v]=='"' ){
    PsBuf b = {0,0,0};
    const char *s; size_t sn; size_t i = v;
    if( ps_json_string(z, cap->src.n, &i, &b, &s, &sn, 0) ){ ps_buf_free(&b); return PS_OK; }
    o->type = PS_META_TEXT;
    if( s==b.z ){ o->zFree = b.z; o->z = b.z; }
    else { o->z = s; ps_buf_free(&b); }
    o->n = sn;
    return PS_OK;
  }
  PsDec d; int64_t iv;
  if( ps_dec_parse(z+v, e-v, &d)==0 && ps_dec_int64(&d, &iv)==0 ){ o->type = PS_META_INT; o->i = iv; return PS_OK; }
  if( e-v==4 && memcmp(z+v, "true", 4)==0 ){ o->type = PS_META_INT; o->i = 1; return PS_OK; }
  if( e-v==5 && memcmp(z+v, "false", 5)==0 ){ o->type = PS_META_INT; o->i = 0; return PS_OK; }
  if( e-v==4 && memcmp(z+v, "null", 4)==0 ) return PS_OK;
  o->type = PS_META_TEXT;
  return out_json(cap, z+v, e-v, o);
}

static int ch_id_out(const PsCapture *cap, uint64_t off, PsOut *o){
  size_t v, e;
  if( ev_field(cap, off, "id", &v, &e) ) return out_scalar(cap, v, e, o);
  if( ev_field(cap, off, "id2", &v, &e) ){
    size_t w;
    const char *z = cap->src.z;
    if( ps_json_find_key(z, cap->src.n, v, "local", &w)==1 || ps_json_find_key(z, cap->src.n, v, "global", &w)==1 ){
      size_t we = w;
      if( ps_json_skip(z, cap->src.n, &we, 0)==0 ) return out_scalar(cap, w, we, o);
    }
  }
  return PS_OK;
}

static int ch_column_lenient(const PsCapture *cap, size_t row, int iCol, PsOut *o);

/* The lazy columns re-read the source as the parse read it (leniently, json.h; what they meet
** was noted then). */
static int ch_column(const PsCapture *cap, size_t row, int iCol, PsOut *o){
  if( cap->bFtrace && row>=cap->iFtraceRow ) return ps_ftrace_column(cap, row, iCol, o);
  const PsJsonLenient *pLenient = ps_json_lenient;
  ps_json_lenient = &ch_quiet;
  int rc = ch_column_lenient(cap, row, iCol, o);
  ps_json_lenient = pLenient;
  return rc;
}

static int ch_column_lenient(const PsCapture *cap, size_t row, int iCol, PsOut *o){
  const PsEvents *e = &cap->ev;
  uint64_t off = e->aOff[row];
  uint64_t endOff = e->aEndOff ? e->aEndOff[row] : 0;
  uint8_t ph = e->aPh[row];
  size_t v, ve;
  memset(o, 0, sizeof(*o));
  switch( iCol ){
    case PS_COL_ARGS: {
      uint32_t at = e->aLen ? e->aLen[row] : CH_ARGS_SEARCH;
      int has;
      if( at==CH_ARGS_SEARCH ) has = ev_field(cap, off, "args", &v, &ve);
      else if( at==CH_ARGS_NONE ) has = 0;
      else{ v = ve = (size_t)off + (at - CH_ARGS_AT); has = ps_json_skip_valid(cap->src.z, cap->src.n, &ve)==0; }
      size_t w = 0, we = 0;
      int hasEnd = endOff && ev_field(cap, endOff, "args", &w, &we);
      const char *z = cap->src.z;
      if( hasEnd ){
        /* E args are merged into the B row's args (as catapult does) */
        size_t a = w+1; a = ps_json_ws(z, cap->src.n, a);
        if( z[w]!='{' || z[a]=='}' ) hasEnd = 0;
      }
      if( !has && !hasEnd ) return PS_OK;
      o->type = PS_META_JSON;
      if( !hasEnd ) return out_json(cap, z+v, ve-v, o);
      if( !has || z[v]!='{' ) return out_json(cap, z+w, we-w, o);
      /* both as RFC 8259 text first (a trailing comma in B's args would stay inside the merge) */
      PsOut ob, oe;
      memset(&ob, 0, sizeof(ob)); memset(&oe, 0, sizeof(oe));
      if( out_json(cap, z+v, ve-v, &ob) || out_json(cap, z+w, we-w, &oe) ){ free(ob.zFree); free(oe.zFree); return PS_NOMEM; }
      const char *zb = ob.z, *ze = oe.z;
      size_t nb = ob.n, ne = oe.n;
      size_t bi = ps_json_ws(zb, nb, 1);
      int bEmpty = bi<nb && zb[bi]=='}';
      size_t nOut = nb + ne + 2;
      char *m = malloc(nOut);
      if( m==0 ){ free(ob.zFree); free(oe.zFree); return PS_NOMEM; }
      size_t k = 0;
      size_t bClose = nb-1;          /* the '}' of B's args */
      memcpy(m, zb, bClose); k = bClose;
      if( !bEmpty ) m[k++] = ',';
      memcpy(m+k, ze+1, ne-1); k += ne-1;
      free(ob.zFree); free(oe.zFree);
      o->z = m; o->n = k; o->zFree = m;
      return PS_OK;
    }
    case PS_COL_TTS: {
      int64_t t;
      if( out_time(cap, off, "tts", &t) ){ o->type = PS_META_INT; o->i = t; }
      return PS_OK;
    }
    case PS_COL_TDUR: {
      int64_t t, t2;
      if( out_time(cap, off, "tdur", &t) ){ o->type = PS_META_INT; o->i = t; }
      else if( endOff && out_time(cap, off, "tts", &t) && out_time(cap, endOff, "tts", &t2)
               && !__builtin_sub_overflow(t2, t, &o->i) ){
        o->type = PS_META_INT;     /* (a difference beyond int64 ns stays NULL) */
      }
      return PS_OK;
    }
    case PS_COL_ASYNC_ID:
      if( !is_async(ph) && ph!='C' && ph!='s' && ph!='t' && ph!='f'
          && ph!='O' && ph!='N' && ph!='D' && ph!='P' ) return PS_OK;
      return ch_id_out(cap, off, o);
    case PS_COL_SCOPE:
      if( ev_field(cap, off, "s", &v, &ve) ) return out_scalar(cap, v, ve, o);
      return PS_OK;
    case PS_COL_FLOW_ID:
      if( ph=='s' || ph=='t' || ph=='f' ) return ch_id_out(cap, off, o);
      if( ev_field(cap, off, "bind_id", &v, &ve) ) return out_scalar(cap, v, ve, o);
      return PS_OK;
    case PS_COL_FLOW_IN:
    case PS_COL_FLOW_OUT: {
      int in = iCol==PS_COL_FLOW_IN;
      if( ph=='s' ){ o->type = PS_META_INT; o->i = in ? 0 : 1; return PS_OK; }
      if( ph=='t' ){ o->type = PS_META_INT; o->i = 1; return PS_OK; }
      if( ph=='f' ){ o->type = PS_META_INT; o->i = in ? 1 : 0; return PS_OK; }
      if( ev_field(cap, off, in ? "flow_in" : "flow_out", &v, &ve) ) return out_scalar(cap, v, ve, o);
      return PS_OK;
    }
  }
  return PS_OK;
}

const PsFormat ps_format_chrome = { "chrome", ch_probe, ch_parse, ch_column, 0 };
