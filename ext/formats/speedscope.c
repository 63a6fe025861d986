/*
** speedscope.c — speedscope's own file format (format 'speedscope'): the JSON that speedscope's
** "Export" writes and that py-spy, rbspy, Austin, pyinstrument, dotnet-trace and others write
** for it (schema: https://www.speedscope.app/file-format-schema.json, speedscope's
** src/lib/file-format-spec.ts; the reader it mirrors: src/lib/file-format.ts).
**
**   SELECT record_set AS profile, name, count, self_ns / 1e6 AS self_ms
**     FROM profile_records('out.speedscope.json') ORDER BY self_ns DESC LIMIT 10;
**
** Input
**   {"$schema":"https://www.speedscope.app/file-format-schema.json", "version"?, "exporter"?,
**    "name"?, "activeProfileIndex"?,
**    "shared":{"frames":[{"name":"a","file"?:"x.py","line"?:3,"col"?:1}, ...]},
**    "profiles":[
**      {"type":"evented","name":..,"unit":..,"startValue":..,"endValue":..,
**       "events":[{"type":"O","frame":0,"at":0}, {"type":"C","frame":0,"at":14}, ...]},
**      {"type":"sampled","name":..,"unit":..,"startValue":..,"endValue":..,
**       "samples":[[0,1,2], ...],  (frame indices into shared.frames, root first)
**       "weights":[1, ...]} ]}
**   unit: 'nanoseconds', 'microseconds', 'milliseconds', 'seconds' (time: values convert to ns
**   exactly, decimals scaled without binary floating point), 'none' (weights are counts, as
**   speedscope treats them) or 'bytes'.
**
** profile_records: the call tree of each profile (a PsStackTrie keyed by the frame index; the
** roots of each profile are keyed with the profile's index too, so every profile is its own
** tree and a frame shared by two profiles gives a record in each), in order of first appearance
**   record_id        1-based order of first appearance over the file
**   parent_record_id the caller's record_id; NULL for a root
**   record_set       the profile's name (NULL when it has none)
**   name, category   the frame's name and file (NULL when absent)
**   attrs            the frame object of shared.frames as written ({"name","file","line","col"})
**   depth            0 for the roots; line NULL
**   count, self_ns, time_ns by profile type and unit:
**     sampled, time unit   count = samples whose stack ends here, self_ns = Σ their weights in
**                          ns, time_ns = self_ns plus the children's time_ns
**     sampled, none/bytes  count = Σ the weights of those samples; self_ns/time_ns NULL
**     evented, time unit   count = times the frame was opened at this node (calls), self_ns =
**                          the time it was on top of the stack, time_ns = self_ns plus the
**                          children's (= Σ of its open..close intervals)
**     evented, none/bytes  count = the weight (Σ of the intervals) it was on top of the stack;
**                          self_ns/time_ns NULL (for a profile converted from collapsed stacks
**                          count is then each stack's count, as the collapsed file has it)
** profile_events
**   sampled   one row per sample, file order: ph 'P', ts = startValue + the weights of the
**             samples before it and dur = its weight, in ns (time units; NULL otherwise),
**             name = the leaf frame's name, cat = the profile's name, stack_id = the leaf's
**             record_id (NULL for an empty stack), byte_offset = the sample's '[', args =
**             {"weight": <the weight as written>}
**   evented   one row per 'O' event: ph 'X', ts = its 'at' and dur = the matching 'C''s 'at' minus
**             it, in ns (time units; NULL otherwise, and dur NULL for a frame never closed), name
**             = the frame's name, cat = the profile's name, depth / parent_id from the open
**             frames, stack_id = its node, byte_offset = the 'O' event, args = {"open": <the 'O'
**             event object as written>, "close": <the 'C' event object or null>}
**   pid NULL, tid = the profile's 0-based index, thread_name = the profile's name: each profile
**   is its own track.
** profile_metadata: scope 'speedscope': every top-level member but shared and profiles as
**   written ($schema, version, exporter, name, activeProfileIndex, ...: a string as TEXT, an
**   integer as INTEGER, another number as REAL, an object or array as JSON), 'shared.<key>' for
**   members of shared other than frames, 'frames' and 'profiles' (counts), and per profile i
**   'profiles[i].<key>' for its members (type, name, unit, startValue, endValue, ...) but
**   events/samples/weights, whose counts are 'profiles[i].events' / '.samples' / '.weights'.
**
** speedscope rejects a file whose events close a frame that is not on top, go back in time or
** leave frames open, and whose samples and weights differ in length; this reader keeps the rest:
**   'C' of a frame open below the top   'unmatched_end': the frames above it close there too
**   'C' of a frame not open             'unmatched_end': ignored
**   a frame still open at the end       'unclosed': its row's dur is NULL; its time counts up
**                                       to the profile's last event
**   an 'at' before the previous event's 'other': taken as the previous event's
**   a frame index not in shared.frames  'unknown_id': the event is ignored / the sample's row
**                                       has no stack
**   samples and weights of different lengths   'other': a sample without a weight has dur NULL
**                                       (time units) or weight 1, extra weights are ignored
**   a negative weight                   'other': taken as 0
**   a weight or 'at' that is not an integer in a none/bytes profile  'other': rounded
**   a profile whose type is neither     'other': its members are metadata, it has no rows
**   an unknown unit                     'other': read as 'none'
**   and 'duplicate_key', 'invalid_text' as every JSON format.
** Errors (PS_ERROR "byte N: ..."): not JSON (the whole document is checked before any row is
** made), bytes after it, not an object, no "profiles" array, shared / frames / a profile / its
** events, samples or weights of the wrong JSON type.
**
** Detection: a JSON object whose top-level members in the first 4 KiB include "$schema" naming
** speedscope, "exporter" starting 'speedscope@', or "shared" whose first key is "frames": 3.
**
** Parser only: nothing here includes SQLite. Linear in the input (the call tree and the stacks
** seen before are keyed hashes: ext/model/stacks.c, ps_hash); polls for interrupt by work done (the
** bytes of each item and each frame of a stack, ps_work), not by items.
*/
#define _GNU_SOURCE            /* memmem */
#include "formats.h"
#include "json_model.h"
#include "../model/stacks.h"
#include "../wire/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct SsMem { size_t q, kn, v, e; uint8_t bOld; } SsMem;   /* as PsV8Mem (cpuprofile.h) */
typedef struct SsFrame { uint32_t name, file; const char *zAttrs; uint32_t nAttrs; } SsFrame;
typedef struct SsOpen { int32_t rec, row; uint32_t frame; int64_t at; } SsOpen;
/* A stack seen before in this profile: its bytes (as written) and its leaf record. */
typedef struct SsMemo { size_t off; uint32_t len; int32_t leaf; } SsMemo;
#define SS_MEMO_MAX (1u<<20)          /* distinct stacks remembered per profile */

/* One profile being read. */
typedef struct SsProf {
  uint32_t index;             /* 0-based */
  uint32_t name;              /* pool id or 0 */
  uint32_t thread;
  int scale;                  /* a time unit: 1 unit = 10^scale ns; -1 none/bytes */
  int bEvented;
  size_t rec0;                /* its first record row */
  int bRounded;               /* a value was rounded (one diagnostic per profile) */
  size_t aN[3]; uint8_t abN[3];  /* elements of events / samples / weights, when read */
} SsProf;

typedef struct Ss {
  PsCapture *cap;
  PsErr *err;
  const char *z; size_t n;
  PsBuf scratch;
  PsJsonKeys keys;
  SsMem *aMem; size_t nMem, nMemAlloc;
  SsFrame *aFrame; size_t nFrame;
  PsStackTrie trie;
  int64_t *aSelf; size_t nSelfAlloc;   /* per record row: evented self weight */
  int64_t *aCalls; size_t nCallsAlloc; /* per record row: evented opens */
  size_t nAcc;                         /* rows the two arrays cover */
  SsOpen *aOpen; size_t nOpen, nOpenAlloc;
  uint32_t *aOpenCount;                /* per frame: entries of aOpen */
  uint32_t *aPrevF; int32_t *aPrevR; size_t nPrevFAlloc, nPrevRAlloc;  /* the previous sample's path */
  SsMemo *aMemo; size_t nMemo, nMemoUsed;   /* stacks by their bytes: open addressing, len 0 empty */
  size_t nPoll;                        /* byte offset of the last item ss_poll counted */
} Ss;

/* ------------------------------------------------------------------ walking JSON */

static int ss_skip(Ss *s, size_t *pi);

/* The next member (ps_json_member): 1 with *m (value skipped and validated by ss_skip, which
** polls for interrupt), 0 at '}', -1 (err). */
static int ss_member(Ss *s, size_t *pi, size_t k, SsMem *m){
  PsJsonMember jm;
  size_t i = *pi;
  int r = ps_json_member(s->z, s->n, &i, k, &jm, 0, s->err);
  if( r!=1 ){ *pi = i; return r; }
  m->q = jm.q; m->kn = jm.kn; m->v = jm.v; m->bOld = 0;
  if( ss_skip(s, &i) ) return -1;
  m->e = *pi = i;
  return 1;
}

/* As v8_elem (ps_json_elem): 1 with *pi at element k, 0 at ']', -1 (err). */
static int ss_elem(Ss *s, size_t *pi, size_t k){
  return ps_json_elem(s->z, s->n, pi, k, s->err);
}

static int ss_key_is(const Ss *s, const SsMem *m, const char *zKey){
  size_t l = strlen(zKey);
  return m->kn==l && memcmp(s->z + m->q + 1, zKey, l)==0;
}

/* 1 when the value at off is the JSON string zLit as written (no escapes compared). */
static int ss_str_is(const Ss *s, size_t off, const char *zLit){
  size_t l = strlen(zLit);
  return off + l + 2 <= s->n && s->z[off]=='"' && memcmp(s->z+off+1, zLit, l)==0 && s->z[off+l+1]=='"';
}

static int ss_is_num(char c){ return c=='-' || (c>='0' && c<='9'); }

/* Moves *pi past the JSON value there. The whole document was validated before any walk (and
** the lazy columns re-check), so this only matches brackets and strings, without the number and
** literal grammar: a fraction of the lexer's cost on big sample arrays. Bounded by n whatever the
** bytes: -1 (err) if they end early, which only bytes changed since the validation can do. */
static const unsigned char aSsBracket[256] = { ['"'] = 1, ['['] = 1, [']'] = 1, ['{'] = 1, ['}'] = 1 };
static int ss_skip(Ss *s, size_t *pi){
  const char *z = s->z; size_t n = s->n, i = *pi;
  long depth = 0;
  while( i<n ){
    char c = z[i];
    if( c=='"' ){
      i++;
      for(;;){
        const char *q = memchr(z+i, '"', n-i);
        if( q==0 ) goto end;
        size_t j = (size_t)(q - z), k = j;
        while( k>i && z[k-1]=='\\' ) k--;
        i = j+1;
        if( ((j-k)&1)==0 ) break;         /* not escaped: the string ends */
      }
      if( depth==0 ){ *pi = i; return 0; }
      while( i<n && !aSsBracket[(unsigned char)z[i]] ) i++;
      continue;
    }
    if( c=='{' || c=='[' ){
      depth++; i++;
      while( i<n && !aSsBracket[(unsigned char)z[i]] ) i++;   /* the common bytes, fast */
      continue;
    }
    if( c=='}' || c==']' ){
      if( depth==0 ) break;
      i++;
      if( --depth==0 ){ *pi = i; return 0; }
      while( i<n && !aSsBracket[(unsigned char)z[i]] ) i++;
      continue;
    }
    if( depth==0 ){
      while( i<n && z[i]!=',' && z[i]!='}' && z[i]!=']' && !PS_JSON_WS(z[i]) ) i++;
      *pi = i;
      return 0;
    }
    i++;
    while( i<n && !aSsBracket[(unsigned char)z[i]] ) i++;
  }
end:
  ps_err_at(s->err, (int64_t)i, "unexpected end of input, expected a JSON value");
  return -1;
}

/* Called at each item (a frame, a sample, an event) whose first byte is off: counts the bytes
** read since the last item as work (ps_work), so an item of megabytes counts as that, and,
** when a poll is due, releases the mapped bytes before off. PS_OK, or PS_ERROR with
** ps_interrupted(err) when the host said stop. */
static int ss_poll(Ss *s, size_t off){
  PsSource *pSrc = &s->cap->src;
  uint64_t nUnit = 1 + (off > s->nPoll ? off - s->nPoll : 0);
  s->nPoll = off;
  if( pSrc->nWork + nUnit >= PS_WORK_STEP ) ps_source_done_before(pSrc, off);
  return ps_work(pSrc, nUnit) ? ps_interrupted(s->err) : PS_OK;
}

/* Reads the members of the object at off into s->aMem from m0, marking superseded ones (bOld)
** with a 'duplicate_key' diagnostic naming zWhere; *pEnd (if not NULL) = the offset after its '}'. */
static int ss_members(Ss *s, size_t off, const char *zWhere, size_t *pEnd){
  size_t m0 = s->nMem, j = off+1, k = 0;
  SsMem m;
  int r;
  while( (r = ss_member(s, &j, k++, &m))==1 ){
    if( ps_grow((void**)&s->aMem, sizeof(SsMem), &s->nMemAlloc, s->nMem+1) ) return ps_nomem(s->err);
    s->aMem[s->nMem++] = m;
  }
  if( r<0 ) return PS_ERROR;
  if( pEnd ) *pEnd = j;
  ps_json_keys_reset(&s->keys);
  for(size_t q=m0; q<s->nMem; q++){
    SsMem *x = &s->aMem[q];
    uint32_t prev; size_t prevOff;
    int d = ps_json_keys_put(&s->keys, s->z, x->q+1, x->kn, (uint32_t)(q - m0), &prev, &prevOff);
    if( d<0 ) return ps_nomem(s->err);
    if( d ){
      s->aMem[m0 + prev].bOld = 1;
      if( ps_json_dup_diag(s->cap, s->z, x->q+1, x->kn, prevOff, zWhere) ) return ps_nomem(s->err);
    }
  }
  return PS_OK;
}

/* The value of key zKey among the members [m0, nMem) (the last one), 0 when absent. */
static size_t ss_get(const Ss *s, size_t m0, const char *zKey){
  for(size_t q=m0; q<s->nMem; q++){
    if( !s->aMem[q].bOld && ss_key_is(s, &s->aMem[q], zKey) ) return s->aMem[q].v;
  }
  return 0;
}

/* A small non-negative integer at *pi (moved past the value): 1 with *pv, 0 when the value is
** something else (*pi still moved past it), -1 (err). The common case needs no PsDec. */
static int ss_index(Ss *s, size_t *pi, uint64_t *pv){
  const char *z = s->z; size_t n = s->n, i = *pi;
  if( i<n && z[i]>='0' && z[i]<='9' ){
    uint64_t x = 0; size_t j = i;
    while( j<n && z[j]>='0' && z[j]<='9' && j-i<10 ){ x = x*10 + (uint64_t)(z[j]-'0'); j++; }
    if( (j>=n || (z[j]!='.' && z[j]!='e' && z[j]!='E' && (z[j]<'0' || z[j]>'9'))) && (z[i]!='0' || j==i+1) ){
      *pi = j; *pv = x; return 1;
    }
  }
  PsDec d; int64_t v;
  if( i<n && ss_is_num(z[i]) ){
    if( ps_json_number(z, n, pi, &d, s->err) ) return -1;
    if( ps_dec_int64(&d, &v)==0 && v>=0 ){ *pv = (uint64_t)v; return 1; }
    return 0;
  }
  return ss_skip(s, pi) ? -1 : 0;
}

/* The number at off in the profile's units: ns for a time unit, else rounded to an integer
** (a diagnostic, once per profile, when it was not one). 1 with *pv, 0 when it is not a number
** that fits (no diagnostic: the caller says what it was), -1 nomem. */
static int ss_num(Ss *s, SsProf *pr, size_t off, int64_t *pv){
  PsDec d; size_t i = off;
  if( off==0 || !ss_is_num(s->z[off]) || ps_json_number(s->z, s->n, &i, &d, 0) ) return 0;
  if( ps_dec_scale(&d, pr->scale<0 ? 0 : pr->scale, pv) ) return 0;
  if( pr->scale<0 && !pr->bRounded ){
    int64_t t;
    if( ps_dec_int64(&d, &t) || t!=*pv ){
      pr->bRounded = 1;
      if( ps_diag(s->cap, PS_DIAG_OTHER, (int64_t)off, "byte %zu: profile %u: a value that is not an integer in a profile "
                  "whose unit is not time; rounded to the nearest", off, pr->index) ) return -1;
    }
  }
  return 1;
}

/* A member value as a metadata row (see the header). */
static int ss_meta_value(Ss *s, const char *zKey, size_t off, size_t e){
  return ps_json_meta_value(s->cap, s->z, s->n, off, e, "speedscope", zKey, &s->scratch, s->err);
}

/* Metadata rows for the members [m0, m1) but those named in azSkip, each key prefixed. */
static int ss_meta_members(Ss *s, size_t m0, size_t m1, const char *zPrefix, const char *const *azSkip){
  for(size_t q=m0; q<m1; q++){
    SsMem x = s->aMem[q];
    int bSkip = x.bOld;
    for(int k=0; !bSkip && azSkip[k]; k++) bSkip = ss_key_is(s, &x, azSkip[k]);
    if( bSkip ) continue;
    const char *t; size_t tn, qq = x.q;
    if( ps_json_string(s->z, s->n, &qq, &s->scratch, &t, &tn, s->err) ) return PS_ERROR;
    char zKey[PS_JSON_KEY_BUF], zFull[PS_JSON_KEY_BUF+48];
    if( ps_json_key_text(s->cap, s->z, s->n, x.q, t, tn, zKey) ) return ps_nomem(s->err);
    snprintf(zFull, sizeof(zFull), "%.40s%s", zPrefix, zKey);
    int rc = ss_meta_value(s, zFull, x.v, x.e);
    if( rc ) return rc;
  }
  return PS_OK;
}

/* ------------------------------------------------------------------ frames */

static int ss_frames(Ss *s, size_t iFrames){
  PsCapture *cap = s->cap;
  const char *z = s->z;
  size_t i = iFrames+1, k = 0, nAlloc = 0;
  int r, rc;
  while( (r = ss_elem(s, &i, k))==1 ){
    size_t off = i, e = i;
    if( ss_skip(s, &e) ) return PS_ERROR;
    i = e;
    if( (rc = ss_poll(s, off))!=PS_OK ) return rc;
    if( ps_grow((void**)&s->aFrame, sizeof(SsFrame), &nAlloc, k+1) ) return ps_nomem(s->err);
    SsFrame *f = &s->aFrame[k];
    memset(f, 0, sizeof(*f));
    s->nFrame = ++k;
    if( z[off]!='{' ){
      if( ps_diag(cap, PS_DIAG_OTHER, (int64_t)off, "byte %zu: frame %zu is not an object; its name is NULL", off, k-1) ) return ps_nomem(s->err);
      continue;
    }
    size_t m0 = s->nMem;
    if( (rc = ss_members(s, off, "a frame", 0))!=PS_OK ) return rc;
    size_t iName = ss_get(s, m0, "name"), iFile = ss_get(s, m0, "file");
    s->nMem = m0;
    const char *t; size_t tn, q;
    if( iName && z[iName]=='"' ){
      q = iName;
      if( ps_json_string(z, s->n, &q, &s->scratch, &t, &tn, s->err) ) return PS_ERROR;
      if( ps_json_intern(cap, z, s->n, iName, t, tn, "a frame's name", &f->name) ) return ps_nomem(s->err);
    }else if( ps_diag(cap, PS_DIAG_OTHER, (int64_t)off, "byte %zu: frame %zu has no string 'name'; NULL", off, k-1) ){
      return ps_nomem(s->err);
    }
    f = &s->aFrame[k-1];
    if( iFile && z[iFile]=='"' ){
      q = iFile;
      if( ps_json_string(z, s->n, &q, &s->scratch, &t, &tn, s->err) ) return PS_ERROR;
      if( tn && ps_json_intern(cap, z, s->n, iFile, t, tn, "a frame's file", &f->file) ) return ps_nomem(s->err);
    }
    /* attrs: the object as written (repaired, with a diagnostic, when it breaks the text rule) */
    size_t bad;
    if( e - off > UINT32_MAX ) return ps_err_at(s->err, (int64_t)off, "a frame object of more than 4 GiB");
    if( ps_text_check(z+off, e-off, &bad) ){
      f->zAttrs = z+off; f->nAttrs = (uint32_t)(e-off);
    }else{
      if( ps_text_diag(cap, (int64_t)(off+bad), "a frame's attrs", z+off, e-off, bad) ) return ps_nomem(s->err);
      size_t m = ps_text_repair(z+off, e-off, 0);
      char *zFix = ps_arena_alloc(&cap->arena, m+1);
      if( zFix==0 ) return ps_nomem(s->err);
      ps_text_repair(z+off, e-off, zFix); zFix[m] = 0;
      f->zAttrs = zFix; f->nAttrs = (uint32_t)m;
    }
  }
  return r<0 ? PS_ERROR : PS_OK;
}

/* ------------------------------------------------------------------ the call tree */

/* The record of frame f under record row parent (-1: a root of profile pr). */
static int32_t ss_node(Ss *s, SsProf *pr, int32_t parent, uint32_t f){
  PsCapture *cap = s->cap;
  uint64_t key = parent<0 ? (((uint64_t)pr->index + 1) << 32) | f : f;
  const SsFrame *fr = &s->aFrame[f];
  int bNew;
  int32_t row = ps_stack_child(cap, &s->trie, parent, key, fr->name, fr->file, &bNew);
  if( row<0 ){ ps_nomem(s->err); return -1; }
  if( bNew ){
    PsRecord *r = &cap->aRec[row];
    r->zAttrs = fr->zAttrs; r->nAttrs = fr->nAttrs;
    r->recordSet = pr->name;
    if( (size_t)row >= s->nAcc ){
      size_t need = (size_t)row + 1;
      if( ps_grow((void**)&s->aSelf, sizeof(int64_t), &s->nSelfAlloc, need)
       || ps_grow((void**)&s->aCalls, sizeof(int64_t), &s->nCallsAlloc, need) ){ ps_nomem(s->err); return -1; }
      for(size_t k=s->nAcc; k<need; k++){ s->aSelf[k] = 0; s->aCalls[k] = 0; }
      s->nAcc = need;
    }
  }
  return row;
}

/* *pV += d (d >= 0) saturating at INT64_MAX. */
static void ss_sat_add(int64_t *pV, int64_t d){
  if( __builtin_add_overflow(*pV, d, pV) ) *pV = INT64_MAX;
}

/* ------------------------------------------------------------------ sampled profiles */

/* The end of the stack array at off when it holds only numbers (the first ']'), with its hash
** in *pH; 0 when it holds anything else (it is then read the slow way, not remembered). */
static size_t ss_stack_end(const Ss *s, size_t off, uint64_t *pH){
  const char *z = s->z;
  const char *q = memchr(z+off, ']', s->n-off);
  if( q==0 ) return 0;
  size_t e = (size_t)(q - z) + 1;
  for(size_t k=off+1; k+1<e; k++){
    char c = z[k];
    if( !((c>='0' && c<='9') || c==',' || PS_JSON_WS(c)) ) return 0;
  }
  if( e - off > UINT32_MAX ) return 0;
  *pH = ps_hash(z+off, e-off);
  return e;
}

/* The memo slot of the stack bytes z[off, e): its entry, or the empty slot for it. */
static SsMemo *ss_memo_slot(const Ss *s, size_t off, size_t e, uint64_t h){
  size_t mask = s->nMemo-1, j = (size_t)h & mask, len = e - off;
  for(;;){
    SsMemo *m = &s->aMemo[j];
    ps_nProbe++;
    if( m->len==0 || (m->len==len && memcmp(s->z+m->off, s->z+off, len)==0) ) return m;
    j = (j+1) & mask;
  }
}

static int ss_memo_put(Ss *s, size_t off, size_t e, uint64_t h, int32_t leaf){
  if( s->nMemoUsed >= SS_MEMO_MAX ) return PS_OK;
  if( (s->nMemoUsed+1)*2 > s->nMemo ){
    size_t nOld = s->nMemo, nNew = nOld ? nOld*2 : 1024;
    SsMemo *aOld = s->aMemo, *aNew = calloc(nNew, sizeof(SsMemo));
    if( aNew==0 ) return ps_nomem(s->err);
    s->aMemo = aNew; s->nMemo = nNew;
    for(size_t j=0; j<nOld; j++){
      if( aOld[j].len ) *ss_memo_slot(s, aOld[j].off, aOld[j].off + aOld[j].len, ps_hash(s->z + aOld[j].off, aOld[j].len)) = aOld[j];
    }
    free(aOld);
  }
  SsMemo *m = ss_memo_slot(s, off, e, h);
  if( m->len ) return PS_OK;
  m->off = off; m->len = (uint32_t)(e - off); m->leaf = leaf;
  s->nMemoUsed++;
  return PS_OK;
}

static int ss_sampled(Ss *s, SsProf *pr, size_t iS, size_t iW, int64_t start){
  PsCapture *cap = s->cap;
  const char *z = s->z;
  int bS = iS!=0, bW = iW!=0, bTime = pr->scale>=0, r, rc;
  size_t is = iS+1, iw = iW+1, nS = 0, nW = 0, nPrev = 0;
  int64_t clock = start;
  if( ps_events_want_endoff(cap) ) return ps_nomem(s->err);
  free(s->aMemo); s->aMemo = 0; s->nMemo = s->nMemoUsed = 0;   /* each profile is its own tree */
  while( bS || bW ){
    size_t wOff = 0;
    int64_t w = 0;
    int bHave = 0;
    if( bW ){
      if( (r = ss_elem(s, &iw, nW))<0 ) return PS_ERROR;
      if( r==0 ) bW = 0;
      else{
        wOff = iw;
        if( ss_skip(s, &iw) ) return PS_ERROR;
        nW++;
        if( (r = ss_num(s, pr, wOff, &w))<0 ) return ps_nomem(s->err);
        if( r==0 ){
          if( ps_diag(cap, PS_DIAG_OTHER, (int64_t)wOff, "byte %zu: profile %u: a weight that is not a number%s; "
                      "taken as 0", wOff, pr->index, bTime ? " of its unit within int64 ns" : "") ) return ps_nomem(s->err);
          w = 0;
        }else if( w<0 ){
          if( ps_diag(cap, PS_DIAG_OTHER, (int64_t)wOff, "byte %zu: profile %u: a negative weight (speedscope "
                      "rejects it); taken as 0", wOff, pr->index) ) return ps_nomem(s->err);
          w = 0;
        }
        bHave = 1;
      }
    }
    if( !bS ) continue;
    if( (r = ss_elem(s, &is, nS))<0 ) return PS_ERROR;
    if( r==0 ){ bS = 0; continue; }
    size_t off = is;
    if( (rc = ss_poll(s, off))!=PS_OK ) return rc;
    int32_t leaf = -1;
    if( z[off]!='[' ){
      if( ss_skip(s, &is) ) return PS_ERROR;
      if( ps_diag(cap, PS_DIAG_OTHER, (int64_t)off, "byte %zu: profile %u: sample %zu is not an array of frame indices; "
                  "the row has no stack", off, pr->index, nS) ) return ps_nomem(s->err);
      nPrev = 0;
    }else{
      uint64_t h = 0;
      size_t se = ss_stack_end(s, off, &h);
      SsMemo *mm = (se && s->nMemo) ? ss_memo_slot(s, off, se, h) : 0;
      if( mm && mm->len ){                  /* written the same way before */
        leaf = mm->leaf; is = se; nPrev = 0;
        goto row;
      }
      /* the stack, root first; the prefix shared with the previous sample is not looked up again */
      size_t j = off+1, d = 0;
      int bSame = 1, bBad = 0;
      while( (r = ss_elem(s, &j, d))==1 ){
        size_t fo = j;
        uint64_t f;
        int ri = ss_index(s, &j, &f);
        if( ri<0 ) return PS_ERROR;
        if( ps_work(&cap->src, 1 + (j - fo)) ) return ps_interrupted(s->err);
        if( bBad ){ d++; continue; }
        if( ri==0 || f>=s->nFrame ){
          if( ps_diag(cap, PS_DIAG_UNKNOWN_ID, (int64_t)fo, "byte %zu: profile %u: sample %zu names frame %.*s, which "
                      "shared.frames (%zu frames) does not have; the row has no stack", fo, pr->index, nS,
                      (int)(j-fo > 40 ? 40 : j-fo), z+fo, s->nFrame) ) return ps_nomem(s->err);
          bBad = 1; nPrev = d; leaf = -1; d++;
          continue;
        }
        if( bSame && d<nPrev && s->aPrevF[d]==(uint32_t)f ){
          leaf = s->aPrevR[d];
        }else{
          bSame = 0;
          if( (leaf = ss_node(s, pr, leaf, (uint32_t)f))<0 ) return PS_NOMEM;
          if( ps_grow((void**)&s->aPrevF, sizeof(uint32_t), &s->nPrevFAlloc, d+1)
           || ps_grow((void**)&s->aPrevR, sizeof(int32_t), &s->nPrevRAlloc, d+1) ) return ps_nomem(s->err);
          s->aPrevF[d] = (uint32_t)f; s->aPrevR[d] = leaf;
        }
        d++;
      }
      if( r<0 ) return PS_ERROR;
      is = j;
      if( !bBad ) nPrev = d;
      else leaf = -1;
      if( se && !bBad && (rc = ss_memo_put(s, off, se, h, leaf))!=PS_OK ) return rc;
    }
row:;
    int64_t ts = PS_NULL64, dur = PS_NULL64, weight = 1;
    if( bTime ){
      ts = clock;
      if( bHave ){
        dur = w;
        if( clock!=PS_NULL64 && __builtin_add_overflow(clock, w, &clock) ){
          if( ps_diag(cap, PS_DIAG_OTHER, (int64_t)wOff, "byte %zu: profile %u: the sum of the weights leaves int64 ns; "
                      "the samples from here have no ts", wOff, pr->index) ) return ps_nomem(s->err);
          clock = PS_NULL64;
        }
      }
    }else if( bHave ){
      weight = w;
    }
    if( cap->ev.n >= INT32_MAX-1 ) return ps_err_at(s->err, (int64_t)off, "more than 2^31 rows");
    int64_t row = ps_sample_add(cap, ts, dur, pr->thread, leaf, weight, off);
    if( row<0 ) return ps_nomem(s->err);
    cap->ev.aName[row] = leaf>=0 ? cap->aRec[leaf].name : 0;
    cap->ev.aCat[row] = pr->name;
    cap->ev.aEndOff[row] = wOff;
    nS++;
  }
  pr->aN[1] = nS; pr->aN[2] = nW; pr->abN[1] = pr->abN[2] = 1;
  if( iS && iW && nS!=nW && ps_diag(cap, PS_DIAG_OTHER, (int64_t)iS, "byte %zu: profile %u has %zu samples but %zu weights "
                                   "(speedscope rejects it); %s", iS, pr->index, nS, nW,
                                   nS>nW ? (bTime ? "the samples without one have dur NULL" : "the samples without one weigh 1")
                                         : "the extra weights are ignored") ) return ps_nomem(s->err);
  return PS_OK;
}

/* ------------------------------------------------------------------ evented profiles */

/* Closes the top open frame at `at` (the 'C' event at cOff). */
static void ss_pop(Ss *s, SsProf *pr, int64_t at, size_t cOff){
  PsEvents *e = &s->cap->ev;
  SsOpen *o = &s->aOpen[--s->nOpen];
  s->aOpenCount[o->frame]--;
  int64_t d;
  if( pr->scale>=0 && at!=PS_NULL64 && !__builtin_sub_overflow(at, o->at, &d) ) e->aDur[o->row] = d;
  e->aEndOff[o->row] = cOff;
}

static int ss_evented(Ss *s, SsProf *pr, size_t iE){
  PsCapture *cap = s->cap;
  PsEvents *ev = &cap->ev;
  const char *z = s->z;
  size_t i = iE+1, k = 0;
  int r, rc, bLast = 0;
  int64_t last = 0;
  if( ps_events_want_endoff(cap) || ps_events_want_stack(cap) ) return ps_nomem(s->err);
  if( s->aOpenCount==0 && (s->aOpenCount = calloc(s->nFrame ? s->nFrame : 1, sizeof(uint32_t)))==0 ) return ps_nomem(s->err);
  s->nOpen = 0;
  while( (r = ss_elem(s, &i, k))==1 ){
    size_t off = i;
    if( ss_skip(s, &i) ) return PS_ERROR;
    k++;
    if( (rc = ss_poll(s, off))!=PS_OK ) return rc;
    if( z[off]!='{' ){
      if( ps_diag(cap, PS_DIAG_OTHER, (int64_t)off, "byte %zu: profile %u: an event that is not an object; ignored", off, pr->index) ) return ps_nomem(s->err);
      continue;
    }
    size_t m0 = s->nMem;
    if( (rc = ss_members(s, off, "an event", 0))!=PS_OK ) return rc;
    size_t iType = ss_get(s, m0, "type"), iFrame = ss_get(s, m0, "frame"), iAt = ss_get(s, m0, "at");
    s->nMem = m0;
    int64_t at;
    if( (r = ss_num(s, pr, iAt, &at))<0 ) return ps_nomem(s->err);
    if( r==0 ){
      if( ps_diag(cap, PS_DIAG_OTHER, (int64_t)off, "byte %zu: profile %u: an event without a numeric 'at'%s; ignored", off,
                  pr->index, pr->scale>=0 ? " (within int64 ns)" : "") ) return ps_nomem(s->err);
      continue;
    }
    int bOpen = ss_str_is(s, iType, "O");
    if( !bOpen && !ss_str_is(s, iType, "C") ){
      if( ps_diag(cap, PS_DIAG_OTHER, (int64_t)off, "byte %zu: profile %u: an event whose type is neither 'O' nor 'C'; ignored",
                  off, pr->index) ) return ps_nomem(s->err);
      continue;
    }
    uint64_t f = 0;
    size_t fj = iFrame;
    int ri = iFrame ? ss_index(s, &fj, &f) : 0;
    if( ri<0 ) return PS_ERROR;
    if( ri==0 || f>=s->nFrame ){
      if( ps_diag(cap, PS_DIAG_UNKNOWN_ID, (int64_t)off, "byte %zu: profile %u: the event names frame %.*s, which "
                  "shared.frames (%zu frames) does not have; ignored", off, pr->index,
                  iFrame ? (int)(fj-iFrame > 40 ? 40 : fj-iFrame) : 6, iFrame ? z+iFrame : "(none)", s->nFrame) ) return ps_nomem(s->err);
      continue;
    }
    if( !bOpen && s->aOpenCount[f]==0 ){
      PsStr nm = ps_pool_get(&cap->pool, s->aFrame[f].name);
      if( ps_diag(cap, PS_DIAG_UNMATCHED_END, (int64_t)off, "byte %zu: profile %u: 'C' of frame %llu ('%.*s'), which is not "
                  "open; ignored", off, pr->index, (unsigned long long)f, (int)(nm.n > 60 ? 60 : nm.n), nm.z ? nm.z : "") ) return ps_nomem(s->err);
      continue;
    }
    /* the event stands: time moves to it, and the frame on top until now is credited */
    if( bLast && at<last ){
      if( ps_diag(cap, PS_DIAG_OTHER, (int64_t)iAt, "byte %zu: profile %u: 'at' goes back in time (speedscope rejects the "
                  "file); taken as the previous event's", iAt, pr->index) ) return ps_nomem(s->err);
      at = last;
    }
    if( s->nOpen && bLast ){
      int64_t d;
      if( __builtin_sub_overflow(at, last, &d) ) d = INT64_MAX;
      ss_sat_add(&s->aSelf[s->aOpen[s->nOpen-1].rec], d);
    }
    last = at; bLast = 1;
    if( bOpen ){
      int32_t parent = s->nOpen ? s->aOpen[s->nOpen-1].rec : -1;
      int32_t rec = ss_node(s, pr, parent, (uint32_t)f);
      if( rec<0 ) return PS_NOMEM;
      s->aCalls[rec]++;
      if( ev->n >= INT32_MAX-1 ) return ps_err_at(s->err, (int64_t)off, "more than 2^31 rows");
      int64_t row = ps_events_add(cap);
      if( row<0 ) return ps_nomem(s->err);
      ev->aTs[row] = pr->scale>=0 ? at : PS_NULL64;
      ev->aOff[row] = off;
      ev->aName[row] = cap->aRec[rec].name;
      ev->aCat[row] = pr->name;
      ev->aThread[row] = pr->thread;
      ev->aTrack[row] = cap->aThread[pr->thread].track;
      ev->aParent[row] = s->nOpen ? s->aOpen[s->nOpen-1].row : -1;
      ev->aDepth[row] = (int32_t)s->nOpen;
      ev->aPh[row] = 'X';
      ev->aFlags[row] = PS_EV_SLICE;
      ev->aStack[row] = rec;
      if( ps_grow((void**)&s->aOpen, sizeof(SsOpen), &s->nOpenAlloc, s->nOpen+1) ) return ps_nomem(s->err);
      SsOpen *o = &s->aOpen[s->nOpen++];
      o->rec = rec; o->row = (int32_t)row; o->frame = (uint32_t)f; o->at = at;
      s->aOpenCount[f]++;
      continue;
    }
    if( s->aOpen[s->nOpen-1].frame!=f ){
      size_t nAbove = 0;
      while( s->aOpen[s->nOpen-1-nAbove].frame!=f ) nAbove++;
      const SsFrame *fr = &s->aFrame[s->aOpen[s->nOpen-1].frame];
      PsStr nm = ps_pool_get(&cap->pool, fr->name);
      if( ps_diag(cap, PS_DIAG_UNMATCHED_END, (int64_t)off, "byte %zu: profile %u: 'C' of frame %llu while frame %u ('%.*s') "
                  "is on top (speedscope rejects the file); the %zu frame%s above it close here too", off, pr->index,
                  (unsigned long long)f, s->aOpen[s->nOpen-1].frame, (int)(nm.n > 60 ? 60 : nm.n), nm.z ? nm.z : "",
                  nAbove, nAbove==1 ? "" : "s") ) return ps_nomem(s->err);
      while( nAbove-- ) ss_pop(s, pr, at, off);
    }
    ss_pop(s, pr, at, off);
  }
  if( r<0 ) return PS_ERROR;
  pr->aN[0] = k; pr->abN[0] = 1;
  while( s->nOpen ){
    SsOpen *o = &s->aOpen[s->nOpen-1];
    if( ps_diag(cap, PS_DIAG_UNCLOSED, (int64_t)ev->aOff[o->row], "byte %llu: profile %u: frame %u is never closed "
                "(speedscope rejects the file); its dur is NULL", (unsigned long long)ev->aOff[o->row], pr->index, o->frame) ) return ps_nomem(s->err);
    s->aOpenCount[o->frame]--;
    s->nOpen--;
  }
  return PS_OK;
}

/* ------------------------------------------------------------------ profiles */

static const struct { const char *z; int scale; } aSsUnit[] = {
  { "nanoseconds", 0 }, { "microseconds", 3 }, { "milliseconds", 6 }, { "seconds", 9 },
  { "none", -1 }, { "bytes", -1 },
};

static int ss_profile(Ss *s, size_t off, uint32_t index, SsProf *pr, size_t *pEnd){
  PsCapture *cap = s->cap;
  const char *z = s->z;
  int rc;
  memset(pr, 0, sizeof(*pr));
  pr->index = index; pr->scale = -1; pr->rec0 = cap->nRec;
  if( z[off]!='{' ) return ps_err_at(s->err, (int64_t)off, "profile %u is not an object", index);
  size_t m0 = s->nMem;
  if( (rc = ss_members(s, off, "a profile", pEnd))!=PS_OK ) return rc;
  size_t m1 = s->nMem;
  size_t iType = ss_get(s, m0, "type"), iName = ss_get(s, m0, "name"), iUnit = ss_get(s, m0, "unit");
  size_t iStart = ss_get(s, m0, "startValue"), iEv = ss_get(s, m0, "events");
  size_t iS = ss_get(s, m0, "samples"), iW = ss_get(s, m0, "weights");
  static const char *const azArr[3] = { "events", "samples", "weights" };
  size_t aArr[3] = { iEv, iS, iW };
  for(int k=0; k<3; k++){
    if( aArr[k] && z[aArr[k]]!='[' ){
      rc = ps_err_at(s->err, (int64_t)aArr[k], "profile %u: '%s' is not an array", index, azArr[k]);
      goto out;
    }
  }
  if( iName && z[iName]=='"' ){
    const char *t; size_t tn, q = iName;
    if( (rc = ps_json_string(z, s->n, &q, &s->scratch, &t, &tn, s->err))!=PS_OK ) goto out;
    if( ps_json_intern(cap, z, s->n, iName, t, tn, "a profile's name", &pr->name) ){ rc = ps_nomem(s->err); goto out; }
  }
  int bUnit = 0;
  for(size_t k=0; iUnit && k<sizeof(aSsUnit)/sizeof(aSsUnit[0]); k++){
    if( ss_str_is(s, iUnit, aSsUnit[k].z) ){ pr->scale = aSsUnit[k].scale; bUnit = 1; }
  }
  if( !bUnit && ps_diag(cap, PS_DIAG_OTHER, (int64_t)(iUnit ? iUnit : off), "byte %zu: profile %u: %s; read as 'none'",
                        iUnit ? iUnit : off, index, iUnit ? "a unit speedscope does not know" : "no 'unit'") ){
    rc = ps_nomem(s->err); goto out;
  }
  /* its own track: pid NULL, tid = its index, thread_name = its name */
  PsValue pid = { 0, 0, PS_VAL_NULL }, tid = { (int64_t)index, 0, PS_VAL_INT };
  int64_t th = ps_thread_get(cap, &pid, &tid);
  if( th<0 ){ rc = ps_nomem(s->err); goto out; }
  pr->thread = (uint32_t)th;
  cap->aThread[th].threadName = pr->name;
  if( ss_str_is(s, iType, "evented") ){
    pr->bEvented = 1;
    rc = iEv ? ss_evented(s, pr, iEv) : PS_OK;
  }else if( ss_str_is(s, iType, "sampled") ){
    int64_t start = 0;
    if( pr->scale>=0 && iStart && ss_num(s, pr, iStart, &start)!=1 ){
      if( ps_diag(cap, PS_DIAG_OTHER, (int64_t)iStart, "byte %zu: profile %u: startValue is not a number within int64 ns; "
                  "the samples' ts count from 0", iStart, index) ){ rc = ps_nomem(s->err); goto out; }
      start = 0;
    }
    rc = ss_sampled(s, pr, iS, iW, start);
  }else{
    rc = ps_diag(cap, PS_DIAG_OTHER, (int64_t)(iType ? iType : off), "byte %zu: profile %u: its type is neither 'evented' "
                 "nor 'sampled'; it has no rows", iType ? iType : off, index) ? ps_nomem(s->err) : PS_OK;
  }
  if( rc ) goto out;
  /* metadata */
  char zPre[48];
  snprintf(zPre, sizeof(zPre), "profiles[%u].", index);
  static const char *const azSkip[] = { "events", "samples", "weights", 0 };
  if( (rc = ss_meta_members(s, m0, m1, zPre, azSkip))!=PS_OK ) goto out;
  for(int k=0; k<3; k++){
    if( !aArr[k] ) continue;
    char zKey[64];
    size_t cnt = pr->aN[k], j = aArr[k]+1;
    int r = 0;
    snprintf(zKey, sizeof(zKey), "%s%s", zPre, azArr[k]);
    while( !pr->abN[k] && (r = ss_elem(s, &j, cnt))==1 ){   /* an array this type does not read */
      if( ss_skip(s, &j) ){ rc = PS_ERROR; goto out; }
      cnt++;
    }
    if( r<0 ){ rc = PS_ERROR; goto out; }
    if( ps_meta_int(cap, "speedscope", zKey, (int64_t)cnt, (int64_t)aArr[k]) ){ rc = ps_nomem(s->err); goto out; }
  }
out:
  s->nMem = m0;
  return rc;
}

/* After ps_stacks_finish: the counts and times the header gives for each profile's records. */
static void ss_totals(Ss *s, const SsProf *pr, size_t rec1){
  PsRecord *a = s->cap->aRec;
  if( !pr->bEvented ){
    if( pr->scale<0 ) for(size_t r=pr->rec0; r<rec1; r++) a[r].self = a[r].time = PS_NULL64;
    return;
  }
  for(size_t r=pr->rec0; r<rec1; r++){
    if( pr->scale>=0 ){ a[r].count = s->aCalls[r]; a[r].self = a[r].time = s->aSelf[r]; }
    else{ a[r].count = s->aSelf[r]; a[r].self = a[r].time = PS_NULL64; }
  }
  if( pr->scale<0 ) return;
  /* a trie child's row comes after its parent's */
  for(size_t r=rec1; r>pr->rec0; r--){
    const PsRecord *x = &a[r-1];
    if( x->parent>=0 ) ss_sat_add(&a[x->parent].time, x->time);
  }
}

static size_t ss_start(const char *z, size_t n){
  size_t i = 0;
  if( n>=3 && (unsigned char)z[0]==0xEF && (unsigned char)z[1]==0xBB && (unsigned char)z[2]==0xBF ) i = 3;
  return ps_json_ws(z, n, i);
}

static int ss_parse(PsCapture *cap, PsErr *err){
  const char *z = cap->src.z; size_t n = cap->src.n;
  size_t i = ss_start(z, n), e = i;
  Ss s; memset(&s, 0, sizeof(s));
  SsProf *aProf = 0; size_t nProfAlloc = 0;
  size_t *aRecEnd = 0, nRecEndAlloc = 0;
  uint32_t nProf = 0;
  int rc = PS_OK;
  s.cap = cap; s.err = err; s.z = z; s.n = n;
  err->msg[0] = 0; err->rc = PS_ERROR;
  if( i>=n || z[i]!='{' ){
    return ps_err_at(err, (int64_t)i, "%sexpected a speedscope JSON object '{'", i>=n ? "unexpected end of input, " : "");
  }
  if( ps_json_skip_poll(z, n, &e, err, ps_work_cb, &cap->src) ) return PS_ERROR;   /* (polled) */
  size_t t = ps_json_ws(z, n, e);
  if( t<n ) return ps_err_at(err, (int64_t)t, "unexpected bytes after the speedscope JSON");
  if( (rc = ss_members(&s, i, "the file object", 0))!=PS_OK ) goto out;
  size_t m1 = s.nMem;
  size_t iShared = ss_get(&s, 0, "shared"), iProfiles = ss_get(&s, 0, "profiles"), iFrames = 0;
  if( !iProfiles || z[iProfiles]!='[' ){
    rc = ps_err_at(err, (int64_t)(iProfiles ? iProfiles : i), "%s", iProfiles ? "'profiles' is not an array"
                   : "a speedscope file has a 'profiles' array; this object has none");
    goto out;
  }
  if( iShared && z[iShared]!='{' ){ rc = ps_err_at(err, (int64_t)iShared, "'shared' is not an object"); goto out; }
  size_t ms = s.nMem;
  if( iShared ){
    if( (rc = ss_members(&s, iShared, "shared", 0))!=PS_OK ) goto out;
    iFrames = ss_get(&s, ms, "frames");
    if( iFrames && z[iFrames]!='[' ){ rc = ps_err_at(err, (int64_t)iFrames, "'frames' is not an array"); goto out; }
    static const char *const azSkipShared[] = { "frames", 0 };
    if( (rc = ss_meta_members(&s, ms, s.nMem, "shared.", azSkipShared))!=PS_OK ) goto out;
    s.nMem = ms;
  }
  if( !iFrames && ps_diag(cap, PS_DIAG_OTHER, (int64_t)(iShared ? iShared : i), "byte %zu: no shared.frames: every frame "
                          "index is unknown", iShared ? iShared : i) ){ rc = ps_nomem(err); goto out; }
  if( iFrames && (rc = ss_frames(&s, iFrames))!=PS_OK ) goto out;
  /* the file's own members, then the profiles */
  static const char *const azSkipTop[] = { "shared", "profiles", 0 };
  if( (rc = ss_meta_members(&s, 0, m1, "", azSkipTop))!=PS_OK ) goto out;
  if( ps_meta_int(cap, "speedscope", "frames", (int64_t)s.nFrame, iFrames ? (int64_t)iFrames : -1) ){ rc = ps_nomem(err); goto out; }
  size_t j = iProfiles+1, pv;
  int r;
  while( (r = ss_elem(&s, &j, nProf))==1 ){
    pv = j;
    if( z[pv]!='{' ){ rc = ps_err_at(err, (int64_t)pv, "profile %u is not an object", nProf); goto out; }
    if( nProf==UINT32_MAX-1 ){ rc = ps_err_at(err, (int64_t)pv, "more than 2^32 profiles"); goto out; }
    if( ps_grow((void**)&aProf, sizeof(SsProf), &nProfAlloc, (size_t)nProf+1)
     || ps_grow((void**)&aRecEnd, sizeof(size_t), &nRecEndAlloc, (size_t)nProf+1) ){ rc = ps_nomem(err); goto out; }
    if( (rc = ss_profile(&s, pv, nProf, &aProf[nProf], &j))!=PS_OK ) goto out;
    aRecEnd[nProf] = cap->nRec;
    nProf++;
  }
  if( r<0 ){ rc = PS_ERROR; goto out; }
  if( ps_meta_int(cap, "speedscope", "profiles", (int64_t)nProf, (int64_t)iProfiles) ){ rc = ps_nomem(err); goto out; }
  if( (rc = ps_stacks_finish(cap, 0, err))!=PS_OK ) goto out;
  for(uint32_t k=0; k<nProf; k++) ss_totals(&s, &aProf[k], aRecEnd[k]);
out:
  ps_buf_free(&s.scratch); ps_json_keys_free(&s.keys);
  ps_stack_trie_free(&s.trie);
  free(s.aMem); free(s.aFrame); free(s.aSelf); free(s.aCalls); free(s.aOpen); free(s.aOpenCount);
  free(s.aPrevF); free(s.aPrevR); free(s.aMemo);
  free(aProf); free(aRecEnd);
  return rc;
}

/* ------------------------------------------------------------------ lazy columns */

/* The JSON value at off (validated at load; NULL when the bytes changed since) appended to b. */
static int ss_out_value(const PsCapture *cap, size_t off, PsBuf *b, int *pbOk){
  size_t e = off;
  if( off==0 || off>=cap->src.n || ps_json_skip(cap->src.z, cap->src.n, &e, 0) ){ *pbOk = 0; return PS_OK; }
  return ps_buf_append(b, cap->src.z + off, e - off) ? PS_NOMEM : PS_OK;
}

/* args: {"weight": ...} for a sample, {"open": {...}, "close": {...} or null} for a slice. */
static int ss_column(const PsCapture *cap, size_t row, int iCol, PsOut *o){
  memset(o, 0, sizeof(*o));
  const PsEvents *e = &cap->ev;
  if( iCol!=PS_COL_ARGS || e->aEndOff==0 ) return PS_OK;
  uint64_t end = e->aEndOff[row];
  int bSlice = e->aPh[row]=='X', bOk = 1;
  if( !bSlice && end==0 ) return PS_OK;
  PsBuf b = {0,0,0};
  int rc;
  if( bSlice ){
    rc = ps_buf_append(&b, "{\"open\":", 8);
    if( rc==0 ) rc = ss_out_value(cap, (size_t)e->aOff[row], &b, &bOk);
    if( rc==0 ) rc = ps_buf_append(&b, ",\"close\":", 9);
    if( rc==0 ) rc = end ? ss_out_value(cap, (size_t)end, &b, &bOk) : ps_buf_append(&b, "null", 4);
  }else{
    rc = ps_buf_append(&b, "{\"weight\":", 10);
    if( rc==0 ) rc = ss_out_value(cap, (size_t)end, &b, &bOk);
  }
  if( rc==0 ) rc = ps_buf_append(&b, "}", 1);
  if( rc ){ ps_buf_free(&b); return PS_NOMEM; }
  if( !bOk ){ ps_buf_free(&b); return PS_OK; }
  if( !ps_text_check(b.z, b.n, 0) ){           /* the text rule: stored repaired */
    size_t m = ps_text_repair(b.z, b.n, 0);
    char *zFix = malloc(m + 1);
    if( zFix==0 ){ ps_buf_free(&b); return PS_NOMEM; }
    ps_text_repair(b.z, b.n, zFix); zFix[m] = 0;
    ps_buf_free(&b);
    o->type = PS_META_JSON; o->z = o->zFree = zFix; o->n = m;
    return PS_OK;
  }
  o->type = PS_META_JSON; o->z = o->zFree = b.z; o->n = b.n;
  return PS_OK;
}

/* ------------------------------------------------------------------ detection */

/* Reads the top-level members in the first 4 KiB (see the header): 3 for speedscope's format. */
static int ss_probe(const char *z, size_t n){
  size_t lim = n < 4096 ? n : 4096, i = ss_start(z, lim), k = 0;
  if( i>=lim || z[i]!='{' ) return 0;
  i++;
  for(;;){
    i = ps_json_ws(z, lim, i);
    if( i<lim && k>0 && z[i]==',' ) i = ps_json_ws(z, lim, i+1);
    if( i>=lim || z[i]!='"' ) break;
    size_t q = i;
    if( ps_json_skip(z, lim, &i, 0) ) break;
    const char *key = z+q+1; size_t kn = i-q-2;
    i = ps_json_ws(z, lim, i);
    if( i>=lim || z[i]!=':' ) break;
    i = ps_json_ws(z, lim, i+1);
    if( i>=lim ) break;
    size_t v = i;
    if( kn==11 && memcmp(key, "traceEvents", 11)==0 ) return 0;
    if( ps_json_skip(z, lim, &i, 0) ){
      if( kn==6 && memcmp(key, "shared", 6)==0 && z[v]=='{' ){
        size_t j = ps_json_ws(z, lim, v+1);
        if( lim-j>=8 && memcmp(z+j, "\"frames\"", 8)==0 ) return 3;
      }
      break;
    }
    if( kn==7 && memcmp(key, "$schema", 7)==0 && z[v]=='"' && memmem(z+v, i-v, "speedscope", 10) ) return 3;
    if( kn==8 && memcmp(key, "exporter", 8)==0 && i-v>12 && memcmp(z+v, "\"speedscope@", 12)==0 ) return 3;
    if( kn==6 && memcmp(key, "shared", 6)==0 && z[v]=='{' ){
      size_t j = ps_json_ws(z, lim, v+1);
      if( lim-j>=8 && memcmp(z+j, "\"frames\"", 8)==0 ) return 3;
    }
    k++;
  }
  return 0;
}

const PsFormat ps_format_speedscope = { "speedscope", ss_probe, ss_parse, ss_column, 0 };
