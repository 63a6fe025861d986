/*
** folded.c — reader for collapsed ("folded") stacks: the text Brendan Gregg's stackcollapse-*.pl
** scripts write and flamegraph.pl reads (also inferno, speedscope's "Brendan Gregg collapsed
** stack" import, async-profiler's collapsed output). Format name 'folded'.
**
** The text (FlameGraph's flamegraph.pl, which reads a line with /^(.*)\s+?(\d+(?:\.\d*)?)$/;
** shared/corpus README section 8):
**   frame;frame;...;leaf COUNT        one stack per line, root first, ';' between frames
**   frame names are anything but ';' (spaces, parentheses, "_[k]" annotations are kept as written)
**   COUNT is the last blank-separated token: digits, optionally ".digits" (flamegraph.pl takes
**         fractional counts); blanks between the stack and the count are not part of the stack
**   a line may carry two counts, "stack C1 C2" (difffolded.pl's differential input): the flame
**         graph is sized by C2 (flamegraph.pl's $samples2), so C2 is the line's weight
**   the same stack may come on several lines, not only adjacent ones: they add up; a stack may be
**   a prefix of another (its count is that frame's self count); blank lines are skipped; lines end
**   in LF or CRLF; the last line needs no line end. Trailing ';' (an empty last frame) is dropped,
**   as Perl's split drops trailing empty fields.
**
** Rows
**   profile_records   the call tree of all stacks (a trie: one node per distinct path from a
**                     root, the same node for every line that passes through it): record_id in
**                     order of first appearance, name = the frame as written, category NULL,
**                     count = Σ weight of the lines whose stack ends at the node (its self
**                     count), time_ns / self_ns NULL (counts are not times), line = the 1-based
**                     line that first made the node, attrs NULL (a frame is only its name).
**   profile_events    one row per stack line, ph 'P', in file order: ts and dur NULL (no time in
**                     this format), name = the leaf frame, cat NULL, pid / tid NULL (one thread),
**                     stack_id = the leaf (NULL for a line with no frames: "  5"), weight = the
**                     count, byte_offset = the line's offset. args (re-read from the line) =
**                     {"count": N} (the number as written: 7, 2.5), and {"count": C2, "count1":
**                     C1, "count2": C2} for a two-count line.
**   profile_metadata  'capture' / 'samples' = stack lines read, 'capture' / 'total_count' = Σ
**                     weight.
** Diagnostics (the rest is read): a line that does not end in a blank and a count
** ('unparsed_line', the line skipped); a count beyond int64 ('unparsed_line', the line skipped);
** a fractional count ('other': the weight is the count rounded to the nearest integer, halves
** away from zero; args keeps the number as written). Error: no stack line at all.
**
** Speed: lines are found with memchr and nothing is allocated per line; the frames a line shares
** with the previous line's stack (stackcollapse output is sorted, so most) are not looked up
** again: only the rest of the line is split, interned and walked in the trie (a keyed hash: no
** choice of frames makes it slow). Interrupts are polled by bytes read (ps_work), not by lines.
*/
#include "formats.h"
#include "../model/stacks.h"
#include "../wire/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- counts */

static int fd_ws(char c){ return c==' ' || c=='\t'; }
static int fd_digit(char c){ return c>='0' && c<='9'; }
static size_t fd_trim_end(const char *z, size_t a, size_t b){ while( b>a && fd_ws(z[b-1]) ) b--; return b; }

/* The count that ends z[a..e): \d+(\.\d*)? after a blank. 1 and *pk = its first byte, else 0. */
static int fd_count_at(const char *z, size_t a, size_t e, size_t *pk){
  size_t k = e;
  while( k>a && fd_digit(z[k-1]) ) k--;
  if( k>a && z[k-1]=='.' ){
    size_t d = k-1;
    k = d;
    while( k>a && fd_digit(z[k-1]) ) k--;
    if( k==d ) return 0;
  }else if( k==e ){
    return 0;
  }
  if( k==a || !fd_ws(z[k-1]) ) return 0;
  *pk = k;
  return 1;
}

/* The value of the count z[k..e): *pv = rounded to the nearest integer (halves away from zero),
** *pbFrac = 1 when a fraction digit is not 0. -1 when beyond int64. */
static int fd_count_value(const char *z, size_t k, size_t e, int64_t *pv, int *pbFrac){
  uint64_t v = 0;
  *pbFrac = 0;
  while( k<e && fd_digit(z[k]) ){
    if( v > ((uint64_t)INT64_MAX - (uint64_t)(z[k]-'0'))/10 ) return -1;
    v = v*10 + (uint64_t)(z[k]-'0');
    k++;
  }
  if( k<e ){                                   /* '.' and the fraction */
    int bUp = k+1<e && z[k+1]>='5';
    for(size_t j=k+1; j<e; j++) if( z[j]!='0' ) *pbFrac = 1;
    if( bUp ){
      if( v==(uint64_t)INT64_MAX ) return -1;
      v++;
    }
  }
  *pv = (int64_t)v;
  return 0;
}

/* Appends the count z[k..e) as a JSON number: leading zeros and a bare trailing '.' dropped. */
static int fd_count_json(PsBuf *b, const char *z, size_t k, size_t e){
  size_t d = k;
  while( d<e && fd_digit(z[d]) ) d++;
  size_t i = k;
  while( i+1<d && z[i]=='0' ) i++;
  if( ps_buf_append(b, z+i, d-i) ) return -1;
  if( e-d>1 && ps_buf_append(b, z+d, e-d) ) return -1;
  return 0;
}

/* One stack line z[a..b) (line end excluded): its stack [a, *pse) and counts. 1 when it reads,
** 0 when it does not end in a count. *pk2 = the weight's count; *pk1 = a first count (two-count
** line) or 0 with *pe1 = 0. */
static int fd_line(const char *z, size_t a, size_t b, size_t *pse, size_t *pk1, size_t *pe1,
                   size_t *pk2, size_t *pe2){
  size_t e = fd_trim_end(z, a, b), k, k1;
  if( !fd_count_at(z, a, e, &k) ) return 0;
  *pk2 = k; *pe2 = e;
  *pk1 = *pe1 = 0;
  size_t se = fd_trim_end(z, a, k);
  if( fd_count_at(z, a, se, &k1) ){
    *pk1 = k1; *pe1 = se;
    se = fd_trim_end(z, a, k1);
  }
  while( se>a && z[se-1]==';' ) se--;
  *pse = se;
  return 1;
}

/* ---------------------------------------------------------------- the reader */

typedef struct Fd {
  PsCapture *cap;
  PsErr *err;
  const char *z;
  PsStackTrie trie;
  size_t prevA, prevN;              /* the previous line's stack */
  size_t *aEnd; int32_t *aRow;      /* its frames: end (relative to prevA) and trie row */
  size_t nFrame, nAlloc, nAlloc2;
} Fd;

/* Length of the common prefix of x[0..n) and y[0..n). */
static size_t fd_common(const char *x, const char *y, size_t n){
  size_t k = 0;
  while( k+8<=n ){
    uint64_t u, v;
    memcpy(&u, x+k, 8); memcpy(&v, y+k, 8);
    if( u!=v ) break;
    k += 8;
  }
  while( k<n && x[k]==y[k] ) k++;
  return k;
}

/* The trie row of the stack z[a..a+len) (leaf), or -1 for an empty stack. The frames it shares
** with the previous line's stack (folded files are mostly sorted) are not looked up again.
** PS_OK, PS_NOMEM, or PS_ERROR with ps_interrupted(p->err) when the host said stop (each frame
** is counted as work: one line may hold a million). */
static int fd_stack(Fd *p, size_t a, size_t len, uint32_t line, int32_t *pLeaf){
  const char *y = p->z + a;
  size_t m = p->prevN < len ? p->prevN : len;
  size_t L = fd_common(p->z + p->prevA, y, m), k = 0;
  while( k<p->nFrame && (p->aEnd[k]<L || (p->aEnd[k]==L && (L==len || y[L]==';'))) ) k++;
  int32_t node = k ? p->aRow[k-1] : -1;
  size_t pos = k ? p->aEnd[k-1]+1 : 0;
  p->nFrame = k;
  p->prevA = a; p->prevN = len;
  while( len>0 && pos<=len ){
    const char *c = pos<len ? memchr(y+pos, ';', len-pos) : 0;
    size_t fe = c ? (size_t)(c-y) : len;
    uint32_t name;
    int bNew;
    if( ps_work(&p->cap->src, 1 + (fe - pos)) ) return ps_interrupted(p->err);
    if( ps_intern(p->cap, y+pos, fe-pos, (int64_t)(a+pos), "a frame", &name) ) return PS_NOMEM;
    node = ps_stack_child(p->cap, &p->trie, node, ps_stack_key(name, 0), name, 0, &bNew);
    if( node<0 ) return PS_NOMEM;
    if( bNew ) p->cap->aRec[node].line = line;
    if( ps_grow((void**)&p->aEnd, sizeof(size_t), &p->nAlloc, p->nFrame+1)
     || ps_grow((void**)&p->aRow, sizeof(int32_t), &p->nAlloc2, p->nFrame+1) ) return PS_NOMEM;
    p->aEnd[p->nFrame] = fe; p->aRow[p->nFrame] = node; p->nFrame++;
    if( c==0 ) break;
    pos = fe+1;
  }
  *pLeaf = len ? node : -1;
  return PS_OK;
}

static int fd_parse(PsCapture *cap, PsErr *err){
  Fd F, *p = &F;
  memset(p, 0, sizeof(F));
  p->cap = cap; p->err = err; p->z = cap->src.z;
  const char *z = cap->src.z;
  size_t n = cap->src.n, i = 0, a, b;
  uint32_t line = 0;
  size_t nSamples = 0;
  int64_t total = 0;
  int bSat = 0;
  PsValue none; memset(&none, 0, sizeof(none));
  int64_t thread = ps_thread_get(cap, &none, &none);
  int rc = thread<0 ? PS_NOMEM : PS_OK;
  if( rc==PS_OK && ps_events_reserve(cap, n/32 + 16) ) rc = PS_NOMEM;
  while( rc==PS_OK && ps_next_line(z, n, &i, &a, &b) ){
    if( line<UINT32_MAX ) line++;
    /* polled by work done: the line's bytes (its frames' trie steps are fewer than its bytes),
    ** so a file of few, very long lines stops as soon as one of many short lines does */
    if( cap->src.nWork + (i - a) + 1 >= PS_WORK_STEP ) ps_source_done_before(&cap->src, p->prevA < a ? p->prevA : a);
    if( ps_work(&cap->src, (i - a) + 1) ){ rc = ps_interrupted(err); break; }
    size_t e = fd_trim_end(z, a, b), s = a;
    while( s<e && fd_ws(z[s]) ) s++;
    if( s==e ) continue;
    size_t se, k1, e1, k2, e2;
    if( !fd_line(z, a, b, &se, &k1, &e1, &k2, &e2) ){
      rc = ps_diag(cap, PS_DIAG_UNPARSED, (int64_t)a, "line %u: expected 'frame;frame;... count' "
                   "(a count after a blank at the end); the line is skipped: %.*s",
                   line, (int)(e-a > 60 ? 60 : e-a), z+a);
      continue;
    }
    int64_t w, w1;
    int bFrac, bFrac1 = 0;
    if( fd_count_value(z, k2, e2, &w, &bFrac) || (e1 && fd_count_value(z, k1, e1, &w1, &bFrac1)) ){
      rc = ps_diag(cap, PS_DIAG_UNPARSED, (int64_t)a, "line %u: the count is beyond int64; the line is skipped", line);
      continue;
    }
    if( bFrac ){
      rc = ps_diag(cap, PS_DIAG_OTHER, (int64_t)k2, "line %u: fractional count %.*s: the weight is %lld "
                   "(rounded; args has the count as written)", line, (int)(e2-k2 > 40 ? 40 : e2-k2), z+k2, (long long)w);
      if( rc ) break;
    }
    int32_t leaf = -1;
    rc = fd_stack(p, a, se-a, line, &leaf);
    if( rc ) break;
    int64_t row = ps_sample_add(cap, PS_NULL64, PS_NULL64, (uint32_t)thread, leaf, w, a);
    if( row<0 ){ rc = PS_NOMEM; break; }
    cap->ev.aName[row] = leaf>=0 ? cap->aRec[leaf].name : 0;
    nSamples++;
    if( __builtin_add_overflow(total, w, &total) ){ total = INT64_MAX; bSat = 1; }
  }
  if( rc==PS_OK && nSamples==0 ) rc = ps_err(err, "no stack line ('frame;frame;... count') found");
  if( rc==PS_OK ) rc = ps_meta_int(cap, "capture", "samples", (int64_t)nSamples, -1);
  if( rc==PS_OK ) rc = ps_meta_int(cap, "capture", "total_count", total, -1);
  if( rc==PS_OK && bSat ) rc = ps_diag(cap, PS_DIAG_OTHER, -1, "the total count is beyond int64; it is kept as %lld",
                                       (long long)INT64_MAX);
  if( rc==PS_OK && ps_stacks_finish(cap, 0, err) ) rc = PS_NOMEM;
  ps_stack_trie_free(&p->trie);
  free(p->aEnd); free(p->aRow);
  if( rc==PS_NOMEM ) ps_nomem(err);
  return rc;
}

/* ---------------------------------------------------------------- args (lazy) */

/* args of a line's row: {"count": N} or {"count": C2, "count1": C1, "count2": C2}. */
static int fd_column(const PsCapture *cap, size_t row, int iCol, PsOut *o){
  memset(o, 0, sizeof(*o));
  if( iCol!=PS_COL_ARGS ) return PS_OK;
  const char *z = cap->src.z;
  size_t a = (size_t)cap->ev.aOff[row], n = cap->src.n;
  if( a>=n ) return PS_OK;
  const char *c = memchr(z+a, '\n', n-a);
  size_t b = c ? (size_t)(c-z) : n, se, k1, e1, k2, e2;
  if( b>a && z[b-1]=='\r' ) b--;
  if( !fd_line(z, a, b, &se, &k1, &e1, &k2, &e2) ) return PS_OK;
  PsBuf buf = {0,0,0};
  int rc = ps_buf_append(&buf, "{\"count\":", 9) || fd_count_json(&buf, z, k2, e2);
  if( !rc && e1 ){
    rc = ps_buf_append(&buf, ",\"count1\":", 10) || fd_count_json(&buf, z, k1, e1)
      || ps_buf_append(&buf, ",\"count2\":", 10) || fd_count_json(&buf, z, k2, e2);
  }
  if( !rc ) rc = ps_buf_append(&buf, "}", 1);
  if( rc ){ ps_buf_free(&buf); return PS_NOMEM; }
  o->type = PS_META_JSON; o->z = buf.z; o->n = buf.n; o->zFree = buf.z;
  return PS_OK;
}

/* ---------------------------------------------------------------- detection */

/* Folded stacks: among the first (up to 32) non-blank lines of the first 4 KiB, the first and at
** least 3 in 4 start with a byte other than a blank or '#' and end in a blank and a count after
** a non-empty stack (a damaged line further on is a diagnostic, not another format), and none
** holds a control character; 3 when a good line has a ';' (a stack of two frames or more), 1
** when all are single frames (plausible only). */
static int fd_probe(const char *z, size_t n){
  size_t lim = n < 4096 ? n : 4096, i = 0, a, b;
  int nLine = 0, nGood = 0, bSemi = 0;
  while( nLine<32 && ps_next_line(z, lim, &i, &a, &b) ){
    if( i==lim && lim<n && z[lim-1]!='\n' ) break;      /* cut by the window */
    size_t e = fd_trim_end(z, a, b), se, k1, e1, k2, e2;
    if( e==a ) continue;
    for(size_t k=a; k<e; k++){
      unsigned char c = (unsigned char)z[k];
      if( (c<0x20 && c!='\t') || c==0x7F ) return 0;
    }
    int bGood = !fd_ws(z[a]) && z[a]!='#' && fd_line(z, a, b, &se, &k1, &e1, &k2, &e2) && se>a;
    if( nLine==0 && !bGood ) return 0;
    nLine++;
    if( bGood ){
      nGood++;
      if( memchr(z+a, ';', se-a) ) bSemi = 1;
    }
  }
  if( nLine==0 || nGood*4 < nLine*3 ) return 0;
  return bSemi ? 3 : 1;
}

const PsFormat ps_format_folded = { "folded", fd_probe, fd_parse, fd_column, 0 };
