/*
** perfscript.c — reader for the text `perf script` prints (Linux perf), with or without
** --header: the sampled call stacks as a call tree (profile_records) and one event row per
** sample (profile_events). Format name 'perf_script'.
**
** The text, as perf writes it (tools/perf/builtin-script.c: perf_sample__fprintf_start,
** process_event; tools/perf/util/evsel_fprintf.c: sample__fprintf_callchain; shared/corpus
** README section 8; the readers speedscope src/import/linux-tools-perf.ts and Brendan Gregg's
** stackcollapse-perf.pl agree on it):
**
**   # captured on: Wed Aug 15 16:01:24 2018      '# key : value' lines (--header), first
**   # ========                                   (rules and a lone '#' carry nothing)
**   comm  pid/tid [cpu] secs.frac: period event: rest      one header line per sample
**   \t          4005f8 _Z4betav+0x1f (/root/a.out)          its call chain, leaf first
**   \t ffffffff8104f45a native_write_msr_safe ([kernel.kallsyms])
**   (blank line)                                 ends a sample that has a call chain
**
**   comm     "%s " (or "%16s ", right-aligned); may hold spaces ("Web Content"), so the header is
**            read from the pid: the first token -?N or -?N/-?N that is followed by an optional
**            [cpu] and a time token. Absent with -F without comm.
**   pid/tid  "%7d/%-7d " (older perf: "%5d/%-5d "), or one number "%7d ": perf's default fields
**            print the TID alone there (PID only with -F pid and no tid), so a lone number is
**            the tid and pid is NULL, as speedscope and stackcollapse-perf.pl read it.
**   [cpu]    "[%03d] " when the CPU field is on.
**   time     "%lu.%06lu: " (--ns: 9 digits): read exactly as integer ns (no floating point).
**   period   "%10lu " when on: a token of digits followed by the event token or the line end.
**   event    "%*s: ", the event's name right-aligned ("cycles:HG", "sched:sched_switch",
**            "cpu-clock"): a token ending in ':', the ':' dropped.
**   rest     what follows (a tracepoint's fields, flags, ...), trailing blanks trimmed. Without
**            a call chain perf puts the sample's "ip sym+off (dso)" at the end of this line and
**            no blank line between samples: that frame is the sample's stack.
**   frames   "\t%16lx sym+0xoff (dso)" per line, leaf first: an optional hex address, the
**            symbol as written (C++ signatures with spaces and parentheses), then the DSO in
**            the parenthesised group that closes the line (matched from the end, so
**            "(/lib/x.so (deleted))" is one DSO); "(inlined)" there marks an inlined frame
**            (no DSO). -F +srcline adds a line "  file.c:12" after a frame: kept in its attrs.
**   Non-sample records (--show-task-events ...: "... time: PERF_RECORD_COMM ...") are counted
**   (profile_metadata 'capture' / 'non_sample_records') and skipped.
**
** Rows
**   profile_records   one per node of the call tree, root first. The root of every stack is
**                     the sample's comm (as stackcollapse-perf.pl puts the process name at the
**                     root of a flame graph; no root frame when the line has no comm; comm
**                     frames have category NULL and attrs {"comm": ...}); below it the frames,
**                     caller to callee. A frame is keyed by (symbol without its "+0x..." offset,
**                     DSO): name = that symbol ('[unknown]' stays as written; a frame without a
**                     symbol is named by its address), category = the DSO, attrs = {"address",
**                     "symbol" (as written, offset kept), "dso", "inlined": true, "srcline"}
**                     re-read from the line that made the node (pf_record_column; keys only
**                     when present; the node keeps the line's place in msgOff / msgLen). count =
**                     samples whose leaf it is; time_ns / self_ns = Σ dur (below), NULL when no
**                     sample has one; line = the 1-based line that first made the node.
**   profile_events    one per sample, ph 'P': ts = the time (ns), pid / tid as above,
**                     thread_name = the thread's first comm (process_name too when pid = tid),
**                     cpu, name = the leaf frame's name (the comm for a sample without frames),
**                     cat = the event name, dur = the period when the event counts time in ns
**                     (cpu-clock, task-clock, with any ":modifier"), else NULL; stack_id = the
**                     leaf; weight 1; byte_offset = the header line's offset. args (re-read from
**                     the header line) = {"comm", "period", "event", "rest"}, keys only when
**                     present.
**   profile_metadata  scope 'perf_script': each '# key : value' line (key trimmed, value
**                     trimmed; INTEGER when it is a plain integer), a '#' line without ':' under
**                     key 'comment'; 'capture' / 'samples' = the sample count.
** Diagnostics (the rest is read): a line that is neither a sample header nor inside a sample
** ('unparsed_line': the lines up to the next blank line or header are skipped); a frame line
** with neither an address nor a (dso) ('unparsed_line': kept, its text as the symbol).
** Errors: no sample and no header line at all.
**
** Speed (a 100 MB file at least as fast per byte as the Chrome JSON parser, memory under the
** file's size): lines are found with memchr, nothing is allocated per line, each distinct
** (symbol, dso) is interned once (a cache keyed by their bytes), and a sample whose callers came
** before costs one comparison of their bytes (the stack cache below). The caches are bounded
** (in bytes, and in the work of one lookup whatever the input).
*/
#include "formats.h"
#include "../model/stacks.h"
#include "../wire/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define PF_LINES_MAX_BYTES (4u<<20)    /* the frame-line cache starts again empty past this */
#define PF_STACK_MAX_BYTES (8u<<20)    /* the stack cache starts again empty past this */
#define PF_CACHE_MAX_LINE  4096         /* longer names are interned every time */
#define PF_STACK_MAX_BLOCK (64u<<10)    /* a sample's frame lines up to this are remembered */
#define PF_MAX_PROBE   64                /* a cache lookup looks at most at this many slots, */
#define PF_MAX_COMPARE 4                 /* and compares at most this many blocks in full */
#define PF_COMM_KEY ((uint64_t)UINT32_MAX << 32)  /* trie key bit of a comm (root) frame */
#define PF_REC_COMM 0x80000000u    /* PsRecord.msgLen bit: the record is a comm, at msgOff */

/* ---------------------------------------------------------------- small scanners */

static int pf_ws(char c){ return c==' ' || c=='\t'; }
static int pf_digit(char c){ return c>='0' && c<='9'; }
static int pf_hex(char c){ return pf_digit(c) || (c>='a' && c<='f') || (c>='A' && c<='F'); }
static size_t pf_skip_ws(const char *z, size_t i, size_t b){ while( i<b && pf_ws(z[i]) ) i++; return i; }
static size_t pf_tok_end(const char *z, size_t i, size_t b){ while( i<b && !pf_ws(z[i]) ) i++; return i; }
static size_t pf_trim_end(const char *z, size_t a, size_t b){ while( b>a && pf_ws(z[b-1]) ) b--; return b; }

/* Unsigned decimal z[i..j) (all digits) into *pv; -1 when empty, not digits or beyond int64. */
static int pf_uint(const char *z, size_t i, size_t j, int64_t *pv){
  uint64_t v = 0;
  if( i>=j ) return -1;
  for(; i<j; i++){
    if( !pf_digit(z[i]) || v > ((uint64_t)INT64_MAX - (uint64_t)(z[i]-'0'))/10 ) return -1;
    v = v*10 + (uint64_t)(z[i]-'0');
  }
  *pv = (int64_t)v;
  return 0;
}

/* An optionally negative decimal z[i..j) of at most 10 digits (a pid, tid or cpu). */
static int pf_small(const char *z, size_t i, size_t j, int64_t *pv){
  int neg = i<j && z[i]=='-';
  if( j-i-neg > 10 || pf_uint(z, i+neg, j, pv) ) return -1;
  if( neg ) *pv = -*pv;
  return 0;
}

/* The time token "secs.frac:" z[i..j), frac 1..9 digits, into integer ns; -1 if not one. */
static int pf_time(const char *z, size_t i, size_t j, int64_t *pNs){
  if( j-i<4 || z[j-1]!=':' ) return -1;
  j--;
  size_t k = i;
  while( k<j && pf_digit(z[k]) ) k++;
  if( k==i || k>=j || z[k]!='.' || k-i>12 ) return -1;
  int64_t s, f = 0;
  if( pf_uint(z, i, k, &s) ) return -1;
  size_t f0 = ++k;
  while( k<j && pf_digit(z[k]) && k-f0<9 ){ f = f*10 + (z[k]-'0'); k++; }
  if( k!=j || k==f0 ) return -1;                    /* (a 10th digit stops the loop short of j) */
  for(size_t d=k-f0; d<9; d++) f *= 10;
  if( s > (INT64_MAX - f)/1000000000 ) return -1;
  *pNs = s*1000000000 + f;
  return 0;
}

/* ---------------------------------------------------------------- the sample header line */

typedef struct PfHdr {
  size_t commA, commB;        /* comm (empty when absent) */
  int64_t pid, tid;           /* bPid 0: only tid is known */
  int bPid;
  int32_t cpu;                /* -1: none */
  int64_t ts;                 /* ns; PS_NULL64 when the line has no time (bTs 0) */
  int bTs;
  int bPeriod; int64_t period;
  size_t evA, evB;            /* event name without its ':' (empty when absent) */
  size_t restA, restB;        /* the rest, trimmed */
  size_t restWs;              /* where the blanks before the rest start */
  int bRecord;                /* a PERF_RECORD_* line, not a sample */
} PfHdr;

/* Reads what follows the time (or, on a line without one, the pid / [cpu]) from z[t..b): the
** optional period, the event token, the rest (into h). */
static void pf_header_tail(const char *z, size_t t, size_t b, PfHdr *h){
  size_t pe = t;                  /* the end of the last field read */
  size_t j = pf_skip_ws(z, t, b);
  t = pf_tok_end(z, j, b);
  int64_t per;
  h->bPeriod = 0; h->bRecord = 0;
  if( j<b && pf_uint(z, j, t, &per)==0 ){
    size_t k = pf_skip_ws(z, t, b), u = pf_tok_end(z, k, b);
    if( k>=b || z[u-1]==':' ){ h->bPeriod = 1; h->period = per; pe = t; j = k; t = u; }
  }
  h->evA = h->evB = j;
  if( b-j>=12 && memcmp(z+j, "PERF_RECORD_", 12)==0 ) h->bRecord = 1;
  else if( t-j>=2 && z[t-1]==':' ){ h->evA = j; h->evB = t-1; pe = t; j = pf_skip_ws(z, t, b); }
  h->restWs = pe; h->restA = j; h->restB = b;
}

/* 1 when z[j..) (after a pid and its optional [cpu]) is, without a time, "[period] event:":
** the token ending in ':' that names the event, the period (digits) optionally before it. */
static int pf_untimed_event(const char *z, size_t j, size_t b){
  size_t t = pf_tok_end(z, j, b);
  int64_t v;
  if( j<b && pf_uint(z, j, t, &v)==0 ){ j = pf_skip_ws(z, t, b); t = pf_tok_end(z, j, b); }
  if( t-j<2 || z[t-1]!=':' || (b-j>=12 && memcmp(z+j, "PERF_RECORD_", 12)==0) ) return 0;
  for(size_t k=j; k<t-1; k++) if( !pf_digit(z[k]) && z[k]!='.' ) return 1;
  return 0;                                       /* "123:" or "1.5:" is no event name */
}

/* 1 when z[a..b) is a sample header line (filled into *h); else 0. Linear in the line: each
** token is looked at once as a pid candidate plus two tokens of lookahead.
** A line without a time (perf script -F comm,tid,event,...; old perf: "java  3244 cpu-clock:",
** as in FlameGraph's test/perf-vertx-stacks-01.txt) is a header when it starts with its comm in
** the first column, a pid[/tid] follows (and an optional [cpu]), then "[period] event:" - the
** rule stackcollapse-perf.pl reads headers by (`^(\S.+?)\s+(\d+)\/?(\d+)?\s+`, its
** quantifiers shown as `?`), narrowed by the event token; ts is then PS_NULL64. A line that also
** reads with a time takes that reading. */
static int pf_header(const char *z, size_t a, size_t b, PfHdr *h){
  b = pf_trim_end(z, a, b);
  size_t i = pf_skip_ws(z, a, b), commA = i, prevEnd = i;
  int bUntimed = 0;                   /* an untimed reading was found (in *h); a timed one wins */
  while( i<b ){
    size_t e = pf_tok_end(z, i, b);
    size_t sl = i;
    while( sl<e && z[sl]!='/' ) sl++;
    int64_t v1, v2 = 0;
    if( e<b && pf_small(z, i, sl, &v1)==0 && (sl==e || pf_small(z, sl+1, e, &v2)==0) ){
      size_t j = pf_skip_ws(z, e, b), t = pf_tok_end(z, j, b);
      int64_t cpu = -1, ts;
      if( j<b && z[j]=='[' ){
        if( t-j<3 || z[t-1]!=']' || pf_small(z, j+1, t-1, &cpu) || cpu<0 ) goto next;
        j = pf_skip_ws(z, t, b); t = pf_tok_end(z, j, b);
      }
      int bTime = pf_time(z, j, t, &ts)==0;
      if( bTime || (!bUntimed && commA==a && prevEnd>commA && pf_untimed_event(z, j, b)) ){
        h->commA = commA; h->commB = prevEnd;
        h->bPid = sl<e;
        h->pid = h->bPid ? v1 : 0;
        h->tid = h->bPid ? v2 : v1;
        h->cpu = (int32_t)cpu;
        h->bTs = bTime; h->ts = bTime ? ts : PS_NULL64;
        pf_header_tail(z, bTime ? t : j, b, h);
        if( bTime ) return 1;
        bUntimed = 1;
      }
    }
  next:
    prevEnd = e;
    i = pf_skip_ws(z, e, b);
  }
  return bUntimed;
}

/* ---------------------------------------------------------------- frame lines */

typedef struct PfFrame {
  size_t addrA, addrB;        /* hex address (empty: none) */
  size_t symA, symB;          /* the symbol as written */
  size_t nameB;               /* [symA, nameB): the symbol without its "+0x..." offset */
  size_t dsoA, dsoB;
  int bDso, bInlined;
} PfFrame;

/* The '(' that opens the parenthesised group closing z[i..b) (z[b-1] is ')'), matched from the
** end so that "(/lib/x.so (deleted))" is one group, when a blank (or i) comes before it; else
** (size_t)-1. */
static size_t pf_group_open(const char *z, size_t i, size_t b){
  if( b<=i || z[b-1]!=')' ) return (size_t)-1;
  size_t k = b;
  int64_t d = 0;
  while( k>i ){
    k--;
    if( z[k]==')' ) d++;
    else if( z[k]=='(' && --d==0 ) return k==i || pf_ws(z[k-1]) ? k : (size_t)-1;
  }
  return (size_t)-1;
}

/* Reads a frame "addr symbol (dso)" from z[a..b) (leading/trailing blanks allowed); returns 1
** when it has an address or a parenthesised DSO, else 0 (then the text is all symbol). */
static int pf_frame(const char *z, size_t a, size_t b, PfFrame *f){
  memset(f, 0, sizeof(*f));
  b = pf_trim_end(z, a, b);
  size_t i = pf_skip_ws(z, a, b), e = i;
  while( e<b && pf_hex(z[e]) ) e++;
  f->addrA = f->addrB = i;
  if( e>i && e<b && pf_ws(z[e]) ){ f->addrB = e; i = pf_skip_ws(z, e, b); }
  else if( e>i && e==b ){ f->addrB = e; i = e; }
  size_t se = b, k = pf_group_open(z, i, b);
  if( k!=(size_t)-1 ){
    f->dsoA = k+1; f->dsoB = b-1; f->bDso = 1;
    se = pf_trim_end(z, i, k);
    if( f->dsoB-f->dsoA==7 && memcmp(z+f->dsoA, "inlined", 7)==0 ){ f->bDso = 0; f->bInlined = 1; }
  }
  f->symA = i; f->symB = f->nameB = se;
  k = se;
  while( k>i && pf_hex(z[k-1]) ) k--;
  if( k<se && k>=i+3 && z[k-1]=='x' && z[k-2]=='0' && z[k-3]=='+' ) f->nameB = k-3;
  return f->addrB>f->addrA || f->bDso || f->bInlined;
}

/* ---------------------------------------------------------------- the reader */

/* A distinct frame seen before: its name and DSO text (a copy: nName bytes, then nDso), how it
** read (flags), and their pool ids. len = nName + nDso + 1 (0: an empty slot). */
typedef struct PfEnt { uint64_t h; uint32_t off, len, nName, name, cat; uint8_t flags, bBad; } PfEnt;

/* A frame line of the sample being read (leaf first); its names are read when the sample ends
** and its stack is not one seen before. */
typedef struct PfFr {
  uint64_t off; uint32_t len;         /* the frame's text (trimmed) */
  uint32_t line;
  uint32_t name, cat;
  uint8_t bBad;
} PfFr;

/* The callers of a leaf seen before: the bytes of their frame lines (a copy), the comm, the trie
** row they end at (the leaf's parent) and how many lines they are; and the last leaf seen under
** them (its frame key and trie row), which is most often the next one's too. */
typedef struct PfStk {
  uint64_t key; uint32_t off, len, comm, nLine; int32_t node;
  int32_t lastLeaf; uint64_t lastKey;
} PfStk;

typedef struct Pf {
  PsCapture *cap;
  const char *z; size_t n;
  PsStackTrie trie;
  /* frame-line cache */
  PfEnt *aEnt; size_t nSlot, nEnt;
  PsBuf bytes;
  /* stack cache: a sample's callers (frame lines below the leaf) as one block -> their node */
  PfStk *aStk; size_t nStkSlot, nStk;
  PsBuf stkBytes;
  size_t qFrom, qAt;                  /* the first "\n\n" at or after qFrom is at qAt (n: none) */
  /* the sample being read */
  int bOpen;
  PfHdr h;
  uint64_t hdrOff; uint32_t hdrLine;
  size_t hdrNext;                     /* where the line after the header starts */
  PfFr *aFr; size_t nFr, nFrAlloc;
  int bLastFrame;                     /* the previous line was a frame or the header */
  /* last-value caches */
  char zComm[64]; size_t nComm; uint32_t commId;
  uint32_t commNodeId; int32_t commNode;  /* the root node of comm commNodeId */
  char zEv[64]; size_t nEv; uint32_t evId; int bEvTime;
  int lastBPid; int64_t lastPid, lastTid; int64_t lastThread;
  uint32_t leafName;                  /* name of the sample's leaf (for its row) */
  size_t nSamples, nRecords;
  size_t nUntimed;                    /* samples whose header has no time (ts NULL) */
} Pf;

/* Interns z[0..n) (source offset off) unless it is the string cached in zBuf; *pId. */
static int pf_intern_cached(Pf *p, const char *z, size_t n, uint64_t off, const char *zField,
                            char *zBuf, size_t *pnBuf, uint32_t *pId){
  if( *pId && n==*pnBuf && memcmp(zBuf, z, n)==0 ) return PS_OK;
  if( ps_intern(p->cap, z, n, (int64_t)off, zField, pId) ) return PS_NOMEM;
  if( n<=64 ){ memcpy(zBuf, z, n); *pnBuf = n; } else { *pnBuf = (size_t)-1; }
  return PS_OK;
}

static int pf_cache_reset(Pf *p, size_t nSlot){
  free(p->aEnt);
  p->aEnt = calloc(nSlot, sizeof(PfEnt));
  if( p->aEnt==0 ){ p->nSlot = 0; return PS_NOMEM; }
  p->nSlot = nSlot; p->nEnt = 0; p->bytes.n = 0;
  return PS_OK;
}

static int pf_cache_grow(Pf *p){
  PfEnt *aOld = p->aEnt;
  size_t nOld = p->nSlot, nNew = nOld*2;
  PfEnt *a = calloc(nNew, sizeof(PfEnt));
  if( a==0 ) return PS_NOMEM;
  for(size_t k=0; k<nOld; k++){
    if( aOld[k].len==0 ) continue;
    size_t j = (size_t)aOld[k].h & (nNew-1);
    while( a[j].len ){ ps_nProbe++; j = (j+1) & (nNew-1); }
    a[j] = aOld[k];
  }
  free(aOld);
  p->aEnt = a; p->nSlot = nNew;
  return PS_OK;
}

/* The names of the frame whose trimmed text is z[s..e): its symbol without offset (or address)
** and DSO, interned once per distinct pair (the cache is keyed by their bytes, so lines that
** differ only in the sampled address share an entry); *pOut = its cache entry. */
static int pf_frame_names(Pf *p, size_t s, size_t e, PfEnt *pOut){
  const char *z = p->z;
  PfFrame f;
  int bBad = !pf_frame(z, s, e, &f);
  size_t nA = f.symA, nB = f.nameB;
  if( nB==nA && f.addrB>f.addrA ){ nA = f.addrA; nB = f.addrB; }   /* no symbol: its address */
  size_t nName = nB - nA, nDso = f.bDso ? f.dsoB - f.dsoA : 0;
  uint8_t flags = (uint8_t)(f.bDso | bBad<<1);
  size_t len = nName + nDso + 1, j = 0;
  int bCache = len<=PF_CACHE_MAX_LINE;
  uint64_t h = 0;
  if( bCache ){
    h = ps_hash(z+nA, nName) ^ (ps_hash(z+f.dsoA, nDso) * 0x9E3779B97F4A7C15ull) ^ flags;
    j = (size_t)h & (p->nSlot-1);
    int nProbe = 0;                     /* bounded work whatever the input (see pf_stk_find) */
    while( p->aEnt[j].len ){
      const PfEnt *x = &p->aEnt[j];
      ps_nProbe++;
      if( x->h==h && x->len==len && x->nName==nName && x->flags==flags
       && memcmp(p->bytes.z + x->off, z+nA, nName)==0
       && memcmp(p->bytes.z + x->off + nName, z+f.dsoA, nDso)==0 ){ *pOut = *x; return PS_OK; }
      if( ++nProbe>=PF_MAX_PROBE ){ bCache = 0; break; }
      j = (j+1) & (p->nSlot-1);
    }
  }
  PfEnt x; memset(&x, 0, sizeof(x));
  x.bBad = (uint8_t)bBad; x.flags = flags;
  if( ps_intern(p->cap, z+nA, nName, (int64_t)nA, "a frame's symbol", &x.name) ) return PS_NOMEM;
  if( f.bDso && ps_intern(p->cap, z+f.dsoA, nDso, (int64_t)f.dsoA, "a frame's dso", &x.cat) ) return PS_NOMEM;
  if( bCache ){
    if( p->bytes.n + len > PF_LINES_MAX_BYTES ){
      if( pf_cache_reset(p, p->nSlot) ) return PS_NOMEM;
      j = (size_t)h & (p->nSlot-1);
    }
    x.h = h; x.len = (uint32_t)len; x.nName = (uint32_t)nName; x.off = (uint32_t)p->bytes.n;
    if( ps_buf_append(&p->bytes, z+nA, nName) || ps_buf_append(&p->bytes, z+f.dsoA, nDso)
     || ps_buf_append(&p->bytes, "", 1) ) return PS_NOMEM;
    p->aEnt[j] = x;
    if( ++p->nEnt*2 > p->nSlot && pf_cache_grow(p) ) return PS_NOMEM;
  }
  *pOut = x;
  return PS_OK;
}

/* Appends ,"key":<z[0..n) as a JSON string> to the attrs scratch. */
static int pf_json_str(PsBuf *b, const char *zKey, const char *z, size_t n){
  if( ps_buf_append(b, b->n>1 ? ",\"" : "\"", b->n>1 ? 2 : 1) || ps_buf_append(b, zKey, strlen(zKey))
   || ps_buf_append(b, "\":", 2) ) return PS_NOMEM;
  return ps_json_quote(b, z, n, 0) ? PS_NOMEM : PS_OK;
}

/* The thread of the current header (pid/tid cached from the previous sample). */
static int pf_thread(Pf *p, uint32_t *pThread){
  const PfHdr *h = &p->h;
  if( p->lastThread<0 || p->lastBPid!=h->bPid || p->lastPid!=h->pid || p->lastTid!=h->tid ){
    PsValue pid, tid;
    memset(&pid, 0, sizeof(pid)); memset(&tid, 0, sizeof(tid));
    if( h->bPid ){ pid.type = PS_VAL_INT; pid.i = h->pid; }
    tid.type = PS_VAL_INT; tid.i = h->tid;
    int64_t t = ps_thread_get(p->cap, &pid, &tid);
    if( t<0 ) return PS_NOMEM;
    p->lastThread = t; p->lastBPid = h->bPid; p->lastPid = h->pid; p->lastTid = h->tid;
  }
  PsThread *t = &p->cap->aThread[p->lastThread];
  if( t->threadName==0 && p->commId ) t->threadName = p->commId;
  if( t->processName==0 && p->commId && h->bPid && h->pid==h->tid ) t->processName = p->commId;
  *pThread = (uint32_t)p->lastThread;
  return PS_OK;
}

/* Appends the frame line z[s..e) (trimmed) to the open sample. */
static int pf_push(Pf *p, size_t s, size_t e, uint32_t line){
  if( ps_grow((void**)&p->aFr, sizeof(PfFr), &p->nFrAlloc, p->nFr+1) ) return PS_NOMEM;
  PfFr *fr = &p->aFr[p->nFr++];
  memset(fr, 0, sizeof(*fr));
  fr->off = s; fr->len = (uint32_t)(e - s); fr->line = line;
  return PS_OK;
}

/* A one-line sample (no call chain): the " ip sym (dso)" perf puts at the end of the header line
** (" %16lx": the address right-aligned in 16 columns after a blank), as a frame: the first hex
** token of the rest with that padding before it and the group closing the line after it (found
** once, so a long rest costs one pass). */
static int pf_inline_frame(Pf *p){
  const char *z = p->z;
  size_t i = p->h.restA, b = p->h.restB, pe = p->h.restWs;
  size_t g = pf_group_open(z, i, b);
  if( g==(size_t)-1 ) return PS_OK;
  while( i<g ){
    size_t e = pf_tok_end(z, i, b), k = i;
    while( k<e && pf_hex(z[k]) ) k++;
    if( k==e && e-pe>=17 ) return pf_push(p, i, b, p->hdrLine);
    pe = e;
    i = pf_skip_ws(z, e, b);
  }
  return PS_OK;
}

/* ---------------------------------------------------------------- the stack cache
** A sample's frame lines below its leaf (the callers), as one block of bytes from the line after
** the leaf to the end of the last frame line (the sample ended by an empty line), under its comm,
** end at the same trie node each time they come again. The leaf line is read on its own, since
** the sampled address in it varies from sample to sample while the callers' return addresses do
** not. So a sample whose callers came before costs one comparison of bytes, one frame-line cache
** lookup and one trie step. Only blocks whose every line read as a frame are kept (identical
** bytes then read identically); the key is cheap (the block's length, its first, middle and last
** 16 bytes, the comm): the comparison decides. */

static uint64_t pf_stk_key(const char *z, size_t len, uint32_t comm){
  size_t k = len<16 ? len : 16;
  uint64_t h = ((uint64_t)len * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)comm * 0xC2B2AE3D27D4EB4Full);
  h ^= ps_hash(z, k);
  h = (h ^ (h >> 31)) * 0x94D049BB133111EBull;
  h ^= ps_hash(z + (len - k)/2, k);
  h = (h ^ (h >> 29)) * 0xBF58476D1CE4E5B9ull;
  return h ^ ps_hash(z + len - k, k);
}

/* The cached block z[a..a+len) under comm, or NULL with *pj = the empty slot for it. The work is
** bounded whatever the input (PF_MAX_PROBE slots, PF_MAX_COMPARE full comparisons): past that
** the block is taken as not cached, and *pj = (size_t)-1 (not to be added). */
static PfStk *pf_stk_find(Pf *p, uint64_t key, size_t a, size_t len, uint32_t comm, size_t *pj){
  size_t j = (size_t)key & (p->nStkSlot-1);
  int nProbe = 0, nCmp = 0;
  while( p->aStk[j].len ){
    PfStk *x = &p->aStk[j];
    ps_nProbe++;
    if( x->key==key && x->len==len && x->comm==comm ){
      if( memcmp(p->stkBytes.z + x->off, p->z + a, len)==0 ) return x;
      if( ++nCmp>=PF_MAX_COMPARE ){ *pj = (size_t)-1; return 0; }
    }
    if( ++nProbe>=PF_MAX_PROBE ){ *pj = (size_t)-1; return 0; }
    j = (j+1) & (p->nStkSlot-1);
  }
  *pj = j;
  return 0;
}

static int pf_stk_reset(Pf *p, size_t nSlot){
  free(p->aStk);
  p->aStk = calloc(nSlot, sizeof(PfStk));
  if( p->aStk==0 ){ p->nStkSlot = 0; return PS_NOMEM; }
  p->nStkSlot = nSlot; p->nStk = 0; p->stkBytes.n = 0;
  return PS_OK;
}

/* Remembers block z[a..a+len) (nLine lines) under comm -> trie row node. When the copies pass
** PF_STACK_MAX_BYTES the cache starts again empty. */
static int pf_stk_add(Pf *p, size_t a, size_t len, uint32_t nLine, uint32_t comm, int32_t node){
  if( len==0 || len>PF_STACK_MAX_BLOCK || node<0 ) return PS_OK;
  uint64_t key = pf_stk_key(p->z + a, len, comm);
  size_t j;
  if( pf_stk_find(p, key, a, len, comm, &j) || j==(size_t)-1 ) return PS_OK;
  if( p->stkBytes.n + len > PF_STACK_MAX_BYTES ){
    if( pf_stk_reset(p, p->nStkSlot) ) return PS_NOMEM;
    pf_stk_find(p, key, a, len, comm, &j);
  }
  PfStk x;
  x.key = key; x.off = (uint32_t)p->stkBytes.n; x.len = (uint32_t)len; x.comm = comm;
  x.node = node; x.nLine = nLine; x.lastLeaf = -1; x.lastKey = 0;
  if( ps_buf_append(&p->stkBytes, p->z + a, len) ) return PS_NOMEM;
  p->aStk[j] = x;
  if( ++p->nStk*2 > p->nStkSlot ){
    PfStk *aOld = p->aStk;
    size_t nOld = p->nStkSlot, nNew = nOld*2;
    PfStk *aNew = calloc(nNew, sizeof(PfStk));
    if( aNew==0 ) return PS_NOMEM;
    for(size_t k=0; k<nOld; k++){
      if( aOld[k].len==0 ) continue;
      size_t i = (size_t)aOld[k].key & (nNew-1);
      while( aNew[i].len ){ ps_nProbe++; i = (i+1) & (nNew-1); }
      aNew[i] = aOld[k];
    }
    free(aOld);
    p->aStk = aNew; p->nStkSlot = nNew;
  }
  return PS_OK;
}

/* ---------------------------------------------------------------- samples */

/* The root node of the open sample's comm (-1: the header has no comm). */
static int pf_comm_node(Pf *p, int32_t *pNode){
  PsCapture *cap = p->cap;
  const PfHdr *h = &p->h;
  int bNew;
  if( h->commB==h->commA ){ *pNode = -1; return PS_OK; }
  if( p->commNodeId==p->commId && p->commNode>=0 ){ *pNode = p->commNode; return PS_OK; }
  int32_t node = ps_stack_child(cap, &p->trie, -1, PF_COMM_KEY | p->commId, p->commId, 0, &bNew);
  if( node<0 ) return PS_NOMEM;
  if( bNew ){                        /* attrs (pf_record_column) re-read the comm */
    PsRecord *r = &cap->aRec[node];
    r->line = p->hdrLine;
    r->msgOff = h->commA; r->msgLen = (uint32_t)(h->commB - h->commA) | PF_REC_COMM;
  }
  p->commNodeId = p->commId; p->commNode = node;
  *pNode = node;
  return PS_OK;
}

/* The trie row of frame fr under parent (a new node gets its line, and the frame text's place
** for its attrs, pf_record_column). */
static int pf_step(Pf *p, int32_t parent, const PfFr *fr, int32_t *pNode){
  int bNew;
  int32_t node = ps_stack_child(p->cap, &p->trie, parent, ps_stack_key(fr->name, fr->cat), fr->name, fr->cat, &bNew);
  if( node<0 ) return PS_NOMEM;
  if( bNew ){
    PsRecord *r = &p->cap->aRec[node];
    r->line = fr->line; r->msgOff = fr->off; r->msgLen = fr->len & ~PF_REC_COMM;
  }
  *pNode = node;
  return PS_OK;
}

/* Reads the names of frame fr (a diagnostic when it does not read as a frame). */
static int pf_names(Pf *p, PfFr *fr){
  PfEnt x;
  if( pf_frame_names(p, (size_t)fr->off, (size_t)fr->off + fr->len, &x) ) return PS_NOMEM;
  fr->name = x.name; fr->cat = x.cat; fr->bBad = x.bBad;
  if( x.bBad && ps_diag(p->cap, PS_DIAG_UNPARSED, (int64_t)fr->off, "line %u: a frame line without an "
                        "address or a (dso): kept with its text as the symbol: %.*s", fr->line,
                        (int)(fr->len > 60 ? 60 : fr->len), p->z + fr->off) ) return PS_NOMEM;
  return PS_OK;
}

/* The open sample's stack in the trie: the comm at the root, then the frames caller to callee.
** *pLeaf = its leaf, *pParent = the leaf's parent; *pbBad = 1 when a frame line did not read. */
static int pf_build(Pf *p, int32_t *pLeaf, int32_t *pParent, int *pbBad){
  int32_t node;
  *pbBad = 0;
  if( pf_comm_node(p, &node) ) return PS_NOMEM;
  for(size_t k=0; k<p->nFr; k++){
    if( pf_names(p, &p->aFr[k]) ) return PS_NOMEM;
    *pbBad |= p->aFr[k].bBad;
  }
  *pParent = node;
  for(size_t k=p->nFr; k>0; k--){
    if( k==1 ) *pParent = node;
    if( pf_step(p, node, &p->aFr[k-1], &node) ) return PS_NOMEM;
  }
  *pLeaf = node;
  return PS_OK;
}

/* Opens the sample whose header h is the line z[a..) (line `line`; the next line starts at next). */
static int pf_open(Pf *p, const PfHdr *h, size_t a, size_t next, uint32_t line){
  const char *z = p->z;
  p->h = *h; p->bOpen = 1; p->hdrOff = a; p->hdrLine = line; p->hdrNext = next;
  p->nFr = 0; p->bLastFrame = 1;
  if( h->commB==h->commA ){ p->commId = 0; p->nComm = 0; return PS_OK; }
  return pf_intern_cached(p, z+h->commA, h->commB-h->commA, h->commA, "comm", p->zComm, &p->nComm, &p->commId);
}

/* The open sample's event row, its stack's leaf being leaf; closes the sample. */
static int pf_emit(Pf *p, int32_t leaf){
  PsCapture *cap = p->cap;
  const PfHdr *h = &p->h;
  const char *z = p->z;
  uint32_t ev = 0;
  int bTime = 0;
  p->bOpen = 0;
  if( h->evB>h->evA ){
    size_t n = h->evB - h->evA;
    uint32_t evOld = p->evId;
    if( pf_intern_cached(p, z+h->evA, n, h->evA, "an event name", p->zEv, &p->nEv, &p->evId) ) return PS_NOMEM;
    if( p->evId!=evOld ){
      /* cpu-clock / task-clock count time: their period is in ns */
      size_t m = 0;
      while( m<n && z[h->evA+m]!=':' ) m++;
      p->bEvTime = (m==9 && memcmp(z+h->evA, "cpu-clock", 9)==0) || (m==10 && memcmp(z+h->evA, "task-clock", 10)==0);
    }
    ev = p->evId; bTime = p->bEvTime;
  }
  uint32_t thread;
  if( pf_thread(p, &thread) ) return PS_NOMEM;
  int64_t row = ps_sample_add(cap, h->ts, bTime && h->bPeriod ? h->period : PS_NULL64, thread, leaf, 1, p->hdrOff);
  if( row<0 ) return PS_NOMEM;
  cap->ev.aName[row] = leaf>=0 ? p->leafName : 0;
  cap->ev.aCat[row] = ev;
  if( h->cpu>=0 ){
    if( ps_events_want_cpu(cap) ) return PS_NOMEM;
    cap->ev.aCpu[row] = h->cpu;
  }
  p->nSamples++;
  p->nUntimed += !h->bTs;
  return PS_OK;
}

/* Ends the open sample: its stack built, its row added. blank = the offset of the empty line
** that ends it (lineBlank its number), else (size_t)-1: the callers of a sample ended so, whose
** frame lines all read and start with a tab, go into the stack cache. */
static int pf_close(Pf *p, size_t blank, uint32_t lineBlank){
  if( !p->bOpen ) return PS_OK;
  PsCapture *cap = p->cap;
  const char *z = p->z;
  if( p->h.bRecord ){ p->bOpen = 0; p->nRecords++; return PS_OK; }
  int bInline = p->nFr==0;
  if( bInline && pf_inline_frame(p) ) return PS_NOMEM;
  int32_t leaf, parent;
  int bBad;
  if( pf_build(p, &leaf, &parent, &bBad) ) return PS_NOMEM;
  p->leafName = leaf>=0 ? cap->aRec[leaf].name : 0;
  if( !bInline && !bBad && p->nFr>1 && blank!=(size_t)-1 && z[blank]=='\n' && z[p->hdrNext]=='\t' ){
    const char *e = memchr(z + p->hdrNext, '\n', blank - p->hdrNext);
    size_t c = e ? (size_t)(e - z) + 1 : blank;        /* the callers start here */
    if( c<blank && z[c]=='\t'
     && pf_stk_add(p, c, blank-1-c, lineBlank-p->hdrLine-2, p->commId, parent) ) return PS_NOMEM;
  }
  return pf_emit(p, leaf);
}

/* The offset of the first "\n\n" at or after z[i], or n. */
static size_t pf_find_blank(const char *z, size_t i, size_t n){
#if defined(__SSE2__)
  const __m128i nl = _mm_set1_epi8('\n');
  unsigned carry = 0;                 /* the byte before this block is a '\n' */
  while( i+16<=n ){
    unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i*)(z+i)), nl));
    if( carry && (m & 1u) ) return i-1;
    unsigned pair = m & (m>>1);
    if( pair ) return i + (size_t)__builtin_ctz(pair);
    carry = (m>>15) & 1u;
    i += 16;
  }
  if( carry && i<n && z[i]=='\n' ) return i-1;
#endif
  while( i<n ){
    const char *e = memchr(z+i, '\n', n-i);
    if( e==0 || (size_t)(e-z)+1>=n ) return n;
    if( e[1]=='\n' ) return (size_t)(e-z);
    i = (size_t)(e-z)+1;
  }
  return n;
}

/* The fast way through a sample whose frame lines start at z[i] (the line after its header): when
** its callers (the lines after the leaf line up to the next empty line) are in the stack cache,
** or there are none, and the leaf line reads as a frame, its row is added, *pNext = where the line
** after the empty line starts, *pnLine = the lines passed, *pHit = 1. */
static int pf_fast(Pf *p, size_t i, size_t *pNext, uint32_t *pnLine, int *pHit){
  const char *z = p->z;
  size_t n = p->n, q;
  *pHit = 0;
  if( p->qFrom<=i && i<=p->qAt ){
    q = p->qAt;
  }else{
    q = pf_find_blank(z, i, n);
    p->qFrom = i; p->qAt = q;
  }
  if( q>=n ) return PS_OK;
  const char *e = memchr(z+i, '\n', q+1-i);
  size_t le = (size_t)(e - z);                        /* the leaf line is z[i..le) */
  int32_t parent;
  uint32_t nLine = 0;
  PfStk *pStk = 0;
  if( le==q ){
    if( pf_comm_node(p, &parent) ) return PS_NOMEM;
  }else{
    size_t c = le+1, j;
    if( q-c>PF_STACK_MAX_BLOCK || z[c]!='\t' ) return PS_OK;
    pStk = pf_stk_find(p, pf_stk_key(z+c, q-c, p->commId), c, q-c, p->commId, &j);
    if( pStk==0 ) return PS_OK;
    parent = pStk->node; nLine = pStk->nLine;
  }
  PfFr fr;
  memset(&fr, 0, sizeof(fr));
  fr.off = pf_skip_ws(z, i, le);
  fr.len = (uint32_t)(pf_trim_end(z, (size_t)fr.off, le) - fr.off);
  fr.line = p->hdrLine + 1;
  if( fr.len==0 ) return PS_OK;
  PfEnt x;
  if( pf_frame_names(p, (size_t)fr.off, (size_t)fr.off + fr.len, &x) ) return PS_NOMEM;
  if( x.bBad ) return PS_OK;                          /* the slow way writes its diagnostic */
  fr.name = x.name; fr.cat = x.cat;
  int32_t leaf;
  uint64_t key = ps_stack_key(fr.name, fr.cat);
  if( pStk && pStk->lastLeaf>=0 && pStk->lastKey==key ){
    leaf = pStk->lastLeaf;
  }else{
    if( pf_step(p, parent, &fr, &leaf) ) return PS_NOMEM;
    if( pStk ){ pStk->lastLeaf = leaf; pStk->lastKey = key; }
  }
  p->leafName = fr.name;
  *pNext = q+2; *pnLine = nLine + 2; *pHit = 1;
  return pf_emit(p, leaf);
}

/* A '#' line: "# key : value" into profile_metadata (rules of '=' and a lone '#' skipped). */
static int pf_comment(Pf *p, size_t a, size_t b){
  const char *z = p->z;
  size_t s = pf_skip_ws(z, a+1, b);
  b = pf_trim_end(z, s, b);
  if( s==b ) return PS_OK;
  size_t k = s;
  while( k<b && z[k]=='=' ) k++;
  if( k==b ) return PS_OK;
  const char *c = memchr(z+s, ':', b-s);
  size_t ke = c ? pf_trim_end(z, s, (size_t)(c-z)) : s;
  char zKey[3*120+1];
  size_t vs = s;
  if( c && ke>s ){ ps_text_cstr(z+s, ke-s, 120, zKey); vs = pf_skip_ws(z, (size_t)(c-z)+1, b); }
  else memcpy(zKey, "comment", 8);
  int64_t v;
  if( vs<b && b-vs<=18 && pf_uint(z, vs, b, &v)==0 ) return ps_meta_int(p->cap, "perf_script", zKey, v, (int64_t)a);
  return ps_meta_text(p->cap, "perf_script", zKey, z+vs, b-vs, PS_META_TEXT, (int64_t)a);
}

/* 1 when z[a..b) reads as a frame with both an address and a (dso): a frame line perf did not
** indent (FlameGraph's test/perf-java-stacks-02.txt; stackcollapse-perf.pl takes any line
** matching `^\s*(\w+)\s*(.+) \((\S*)\)` as a frame). */
static int pf_frame_line(const char *z, size_t a, size_t b){
  PfFrame f;
  return pf_frame(z, a, b, &f) && f.addrB>f.addrA && f.bDso;
}

/* "  file.c:12" after a frame (-F +srcline): two spaces, then text that is not a frame. */
static int pf_is_srcline(const char *z, size_t a, size_t b){
  PfFrame f;
  return b-a>2 && z[a]==' ' && z[a+1]==' ' && !pf_ws(z[a+2]) && !pf_frame(z, a, b, &f);
}

static int pf_parse(PsCapture *cap, PsErr *err){
  Pf P, *p = &P;
  memset(p, 0, sizeof(P));
  p->cap = cap; p->z = cap->src.z; p->n = cap->src.n;
  p->lastThread = -1; p->commNode = -1;
  const char *z = p->z;
  size_t n = p->n, i = 0, a, b, iWork = 0;
  uint32_t line = 0;
  int rc = pf_cache_reset(p, 1024);
  if( rc==PS_OK ) rc = pf_stk_reset(p, 1024);
  int bSkip = 0;                      /* after a bad line: skipping its sample */
  size_t nHeader = 0;
  const size_t NONE = (size_t)-1;
  if( rc==PS_OK && ps_events_reserve(cap, n/256 + 16) ) rc = PS_NOMEM;
  while( rc==PS_OK && ps_next_line(z, n, &i, &a, &b) ){
    if( line<UINT32_MAX ) line++;
    /* interrupt by work done: the bytes passed since the last line (pf_fast's too) */
    if( cap->src.nWork + (i - iWork) >= PS_WORK_STEP ) ps_source_done_before(&cap->src, p->bOpen ? (size_t)p->hdrOff : a);
    if( ps_work(&cap->src, i - iWork) ){ rc = ps_interrupted(err); break; }
    iWork = i;
    if( p->bOpen && z[a]=='\t' ){                 /* the common line: a frame */
      size_t s = pf_skip_ws(z, a, b);
      if( s<b ){
        rc = pf_push(p, s, pf_trim_end(z, s, b), line);
        p->bLastFrame = 1;
        continue;
      }
    }
    size_t s = pf_skip_ws(z, a, b);
    if( s==b ){ rc = pf_close(p, a, line); bSkip = 0; continue; }
    char c = z[a];
    if( c=='#' ){
      rc = pf_close(p, NONE, 0);
      if( rc==PS_OK ) rc = pf_comment(p, a, b);
      bSkip = 0; nHeader++;
      continue;
    }
    if( bSkip && pf_ws(c) ) continue;
    if( p->bOpen && p->bLastFrame && pf_is_srcline(z, a, b) ){
      p->bLastFrame = 0;                          /* read again by pf_record_column */
      continue;
    }
    PfHdr h;
    if( pf_header(z, a, b, &h) ){
      bSkip = 0;
      rc = pf_close(p, NONE, 0);
      if( rc==PS_OK ) rc = pf_open(p, &h, a, i, line);
      if( rc==PS_OK && !h.bRecord && i<n && z[i]=='\t' ){
        size_t next; uint32_t nLine; int bHit;
        rc = pf_fast(p, i, &next, &nLine, &bHit);
        if( bHit ){ i = next; line = line > UINT32_MAX - nLine ? UINT32_MAX : line + nLine; }
      }
      continue;
    }
    if( p->bOpen && (pf_ws(c) || pf_frame_line(z, a, b)) ){
      rc = pf_push(p, s, pf_trim_end(z, s, b), line);   /* (unindented: "addr sym (dso)") */
      p->bLastFrame = 1;
      continue;
    }
    rc = pf_close(p, NONE, 0);
    if( rc==PS_OK ) rc = ps_diag(cap, PS_DIAG_UNPARSED, (int64_t)a, "line %u: expected a sample header "
        "(comm pid[/tid] [cpu] secs.frac: ...); skipped up to the next blank line or header: %.*s",
        line, (int)(b-a > 60 ? 60 : b-a), z+a);
    bSkip = 1;
  }
  if( rc==PS_OK ) rc = pf_close(p, NONE, 0);
  if( rc==PS_OK && p->nSamples==0 && p->nRecords==0 && nHeader==0 )
    rc = ps_err(err, "no perf script sample header line (comm pid[/tid] [cpu] secs.frac: event:) found");
  if( rc==PS_OK ) rc = ps_meta_int(cap, "capture", "samples", (int64_t)p->nSamples, -1);
  if( rc==PS_OK && p->nRecords ) rc = ps_meta_int(cap, "capture", "non_sample_records", (int64_t)p->nRecords, -1);
  if( rc==PS_OK && p->nUntimed ) rc = ps_meta_int(cap, "capture", "samples_without_time", (int64_t)p->nUntimed, -1);
  if( rc==PS_OK && ps_stacks_finish(cap, 0, err) ) rc = PS_NOMEM;
  ps_stack_trie_free(&p->trie);
  free(p->aEnt); free(p->aFr); free(p->aStk);
  ps_buf_free(&p->bytes); ps_buf_free(&p->stkBytes);
  if( rc==PS_NOMEM ) ps_nomem(err);
  return rc;
}

/* ---------------------------------------------------------------- args (lazy) */

/* args of a sample row: {"comm", "period", "event", "rest"} re-read from its header line. */
static int pf_column(const PsCapture *cap, size_t row, int iCol, PsOut *o){
  memset(o, 0, sizeof(*o));
  if( iCol!=PS_COL_ARGS ) return PS_OK;
  const char *z = cap->src.z;
  size_t a = (size_t)cap->ev.aOff[row], n = cap->src.n;
  if( a>=n ) return PS_OK;
  const char *e = memchr(z+a, '\n', n-a);
  size_t b = e ? (size_t)(e-z) : n;
  if( b>a && z[b-1]=='\r' ) b--;
  PfHdr h;
  if( !pf_header(z, a, b, &h) ) return PS_OK;
  PsBuf buf = {0,0,0};
  int rc = ps_buf_append(&buf, "{", 1) ? PS_NOMEM : PS_OK;
  if( rc==PS_OK && h.commB>h.commA ) rc = pf_json_str(&buf, "comm", z+h.commA, h.commB-h.commA);
  if( rc==PS_OK && h.bPeriod ){
    char t[40];
    int k = snprintf(t, sizeof(t), "%s\"period\":%lld", buf.n>1 ? "," : "", (long long)h.period);
    if( ps_buf_append(&buf, t, (size_t)k) ) rc = PS_NOMEM;
  }
  if( rc==PS_OK && h.evB>h.evA ) rc = pf_json_str(&buf, "event", z+h.evA, h.evB-h.evA);
  if( rc==PS_OK && h.restB>h.restA ) rc = pf_json_str(&buf, "rest", z+h.restA, h.restB-h.restA);
  if( rc==PS_OK && ps_buf_append(&buf, "}", 1) ) rc = PS_NOMEM;
  if( rc ){ ps_buf_free(&buf); return PS_NOMEM; }
  o->type = PS_META_JSON; o->z = buf.z; o->n = buf.n; o->zFree = buf.z;
  return PS_OK;
}

/* attrs of a record: a comm node's {"comm"}, a frame's {"address", "symbol", "dso", "inlined",
** "srcline"} re-read from the line that made it (msgOff, msgLen) and the srcline after it. */
static int pf_record_column(const PsCapture *cap, size_t row, int iCol, PsOut *o){
  memset(o, 0, sizeof(*o));
  const PsRecord *r = &cap->aRec[row];
  if( iCol!=PS_COL_ATTRS || r->msgLen==0 ) return PS_OK;
  const char *z = cap->src.z;
  size_t n = cap->src.n, a = (size_t)r->msgOff, len = r->msgLen & ~PF_REC_COMM;
  if( a>n || len>n-a ) return PS_OK;
  PsBuf b = {0,0,0};
  int rc = ps_buf_append(&b, "{", 1) ? PS_NOMEM : PS_OK;
  if( r->msgLen & PF_REC_COMM ){
    if( rc==PS_OK ) rc = pf_json_str(&b, "comm", z+a, len);
  }else{
    PfFrame f;
    pf_frame(z, a, a+len, &f);
    if( rc==PS_OK && f.addrB>f.addrA ) rc = pf_json_str(&b, "address", z+f.addrA, f.addrB-f.addrA);
    if( rc==PS_OK && f.symB>f.symA ) rc = pf_json_str(&b, "symbol", z+f.symA, f.symB-f.symA);
    if( rc==PS_OK && f.bDso ) rc = pf_json_str(&b, "dso", z+f.dsoA, f.dsoB-f.dsoA);
    if( rc==PS_OK && f.bInlined && ps_buf_append(&b, b.n>1 ? ",\"inlined\":true" : "\"inlined\":true", b.n>1 ? 15 : 14) ) rc = PS_NOMEM;
    /* the next line, when it is a srcline (-F +srcline) */
    const char *e = memchr(z+a+len, '\n', n-a-len);
    if( rc==PS_OK && e ){
      size_t s = (size_t)(e-z)+1, t;
      const char *e2 = memchr(z+s, '\n', n-s);
      t = e2 ? (size_t)(e2-z) : n;
      if( t>s && z[t-1]=='\r' ) t--;
      if( pf_is_srcline(z, s, t) ){
        size_t u = pf_skip_ws(z, s, t);
        rc = pf_json_str(&b, "srcline", z+u, pf_trim_end(z, u, t)-u);
      }
    }
  }
  if( rc==PS_OK && ps_buf_append(&b, "}", 1) ) rc = PS_NOMEM;
  if( rc ){ ps_buf_free(&b); return PS_NOMEM; }
  o->type = PS_META_JSON; o->z = b.z; o->n = b.n; o->zFree = b.z;
  return PS_OK;
}

/* ---------------------------------------------------------------- detection */

/* `perf script` text: past any '#' lines and blank lines, the first line is a sample header; 4
** when a frame line follows it (tab-indented, or any "addr symbol (dso)" line: FlameGraph's
** test/perf-js-stacks-01.txt indents with spaces, perf-java-stacks-02.txt not at all), else 3; a
** header without a time counts only with a frame line after it. Only the first 16 KiB are read (a '--header' block longer than that
** still counts when it opens with perf's "# ========" / "# captured on" lines). */
static int pf_probe(const char *z, size_t n){
  size_t lim = n < 16384 ? n : 16384, i = 0, a, b;
  while( ps_next_line(z, lim, &i, &a, &b) ){
    if( i==lim && lim<n && z[lim-1]!='\n' ){
      /* the window cuts this line: only a long --header block gets this far */
      return lim>24 && memcmp(z, "# ========\n# captured on", 24)==0 ? 3 : 0;
    }
    size_t s = pf_skip_ws(z, a, b);
    if( s==b || z[a]=='#' ) continue;
    PfHdr h;
    PfFrame f;
    if( !pf_header(z, a, b, &h) || h.bRecord ) return 0;
    if( ps_next_line(z, lim, &i, &a, &b) && pf_frame(z, a, b, &f)
     && (z[a]=='\t' || (f.addrB>f.addrA && f.bDso)) ) return 4;
    if( !h.bTs ) return 0;                        /* a line without a time needs its frames */
    return h.evB>h.evA || h.bPeriod ? 3 : 0;     /* perf's default fields have the event */
  }
  return 0;
}

const PsFormat ps_format_perf_script = { "perf_script", pf_probe, pf_parse, pf_column, pf_record_column };
