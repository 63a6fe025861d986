/*
** flame.c — a self-contained, interactive SVG flame graph (icicle: roots on top), without SQLite.
**
** What is drawn (ps_flame_source): a capture with stack samples (ext/model/stacks.h) from its samples
** (width = sampled time, their dur, or the sample count / weight when no sample has a duration:
** folded stacks, perf cycles); else its timer/statistics records by ParentRecordId (self_ns);
** else its slices by parent_id (self = dur minus the children's dur, never negative); else its
** newengine jobs (category -> lane -> job name, width = elapsed_ms). Or folded stacks given row
** by row (PsFlameFolded). Frames are merged by stack (the names from the root down, as folded
** stacks are); a frame's width is the self time of everything under it, i.e. its inclusive time.
** The first level is each thread track or CPU track, named from the track model (flame.h:
** "process / thread", "CPU n"; timings: the category), or the roots. Async tracks are drawn
** only with PsFlameOpt.bAsync (one group per kind), counters never. A V8 frame without a name
** reads "(anonymous) file:line" (fl_frame_name).
**
** The pipeline: (1) the source's rows, kept by the thread and time filters, add their self value
** at their node of a trie of stacks; (2) the name filters zero the nodes whose stack has (or
** lacks) a matching frame; (3) a reversed trie is built for the self weight; (4) values are summed
** upwards (children are created after their parents, so one reverse pass does it); (5) the SVG.
** Every step is linear in the rows and the trie's nodes (the reversed trie: at most
** PS_FLAME_MAX_REVERSED + 1 frames per node). The tries' and the sample pairs' hash tables take
** their slots from the keyed ps_hash_pair (chosen names cannot make them quadratic; every slot
** looked at counts in ps_nProbe), and every step polls the host's interrupt by work done
** (fl_work), not by row count.
**
** The SVG: one <g class="f"> per frame holding a <title> ("<name> — <ms> ms (<share>%)"), its
** <rect> and a <text> label, then a script (no external reference: it works from file:// offline)
** that does what flamegraph.pl's does: click a frame to zoom (it spans the width, its ancestors
** stay full width and faded, its descendants rescale, everything else hides), "Reset Zoom",
** "Search" (a JavaScript regular expression asked with prompt(); Ctrl-F or F3 too; matches
** filled rgb(230,0,230) and "Matched: 12.3%" = the union of the matched frames' widths over the
** root's, nested matches counted once), the hovered frame's title on a details line, and labels
** fitted to their frame (elided in the middle with U+2026 by the measured width; refitted on zoom
** and resize). The SVG is width="100%": the script sets its viewBox to the window's width and
** lays the frames out again on resize (the file's coordinates are for 1200 px: K scales them).
** Without script the frames, titles and labels are there as before.
*/
#include "flame.h"
#include "../formats/jobs.h"
#include "../model/forest.h"
#include "../model/stacks.h"
#include "../model/tracks.h"
#include "writer.h"

#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---------------------------------------------------------------- polling by work done */
/* Work done since a drawing began, and when the host was last asked to stop (fl_work). */
typedef struct FlWork {
  uint64_t nWork;         /* units counted by fl_work */
  uint64_t nLast;         /* nWork + ps_nProbe at the last look at the clock */
  int64_t tPoll;          /* CLOCK_MONOTONIC ns of the last xInterrupt call (0: none yet) */
} FlWork;
#define FL_WORK_STEP ((uint64_t)1 << 16)
#define FL_POLL_NS ((int64_t)5000000)      /* 5 ms */

/* ---------------------------------------------------------------- the trie of stacks */
typedef struct FNode {
  uint32_t name;          /* pool id (0: unnamed); with bThread 1 a group label index */
  int32_t parent, firstChild, nextSibling;
  int64_t value;          /* self value added here; inclusive after the sum pass */
  int64_t nRows;          /* source rows added here; summed up likewise */
  uint8_t bThread;        /* 0 a frame, 1 a first-level group, 2 "(deeper callers)" */
} FNode;

typedef struct Fl {
  FNode *a; size_t n, nAlloc;
  uint32_t *aHash; size_t nHash;      /* (parent, name, bThread) -> node + 1; nHash a power of 2 */
} Fl;

static void fl_free(Fl *f){ free(f->a); free(f->aHash); memset(f, 0, sizeof(*f)); }

/* The home slot of (parent, name, bThread) in a table of nHash (a power of two) slots: the keyed
** hash of the pair (ps_hash_pair), so no input can choose nodes that share a slot. (The fixed
** formula it replaces, parent * golden ^ name << 2 with its low bits taken as they were, let a
** 2 MB folded capture take 3.85 s to draw instead of 0.07 s: issue 32.) */
static size_t fl_slot(int32_t parent, uint32_t name, int bThread, size_t nHash){
  return (size_t)ps_hash_pair((uint64_t)(uint32_t)parent, ((uint64_t)name << 2) | (uint64_t)bThread)
         & (nHash - 1);
}

/* Doubles the table (1024 slots at first) and places every node again. Each slot looked at
** counts one in ps_nProbe. -1 when out of memory. */
static int fl_rehash(Fl *f){
  size_t nh = f->nHash ? f->nHash*2 : 1024;
  uint32_t *h = calloc(nh, sizeof(uint32_t));
  if( h==0 ) return -1;
  for(size_t i=0; i<f->n; i++){
    size_t j = fl_slot(f->a[i].parent, f->a[i].name, f->a[i].bThread, nh);
    ps_nProbe++;
    while( h[j] ){ j = (j+1) & (nh-1); ps_nProbe++; }
    h[j] = (uint32_t)i + 1;
  }
  free(f->aHash); f->aHash = h; f->nHash = nh;
  return 0;
}

/* *pV += d, saturating at ±INT64_MAX: hostile captures can hold durations near 2^63 ns, and a
** frame wider than that is drawn full width rather than wrapping around. */
static void fl_add(int64_t *pV, int64_t d){
  if( __builtin_add_overflow(*pV, d, pV) || *pV==INT64_MIN ) *pV = d>0 ? INT64_MAX : -INT64_MAX;
}

/* The child of parent named name (created when missing); -1 when out of memory. The table is
** at most half full, so a lookup looks at about 1.5 slots (each counted in ps_nProbe). */
static int32_t fl_child(Fl *f, int32_t parent, uint32_t name, int bThread){
  if( f->n*2 >= f->nHash && fl_rehash(f) ) return -1;
  if( f->n >= INT32_MAX-1 ) return -1;
  size_t j = fl_slot(parent, name, bThread, f->nHash);
  ps_nProbe++;
  while( f->aHash[j] ){
    FNode *x = &f->a[f->aHash[j]-1];
    if( x->parent==parent && x->name==name && x->bThread==bThread ) return (int32_t)(f->aHash[j]-1);
    j = (j+1) & (f->nHash-1);
    ps_nProbe++;
  }
  if( ps_grow((void**)&f->a, sizeof(FNode), &f->nAlloc, f->n+1) ) return -1;
  int32_t id = (int32_t)f->n++;
  FNode *x = &f->a[id];
  x->name = name; x->parent = parent; x->firstChild = -1; x->value = 0; x->nRows = 0;
  x->bThread = (uint8_t)bThread;
  x->nextSibling = parent>=0 ? f->a[parent].firstChild : -1;
  if( parent>=0 ) f->a[parent].firstChild = id;
  f->aHash[j] = (uint32_t)id + 1;
  return id;
}

/* What is drawn, and how its names are found. */
typedef struct FlGraph {
  const PsPool *pPool;    /* frame names (the capture's, or a graph-local pool) */
  char **azGroup;         /* escaped first-level labels by key (malloc'ed; NULL until used) */
  size_t nGroup;
  Fl f;                   /* the trie; node 0 is the root */
  int bTime, bWeighted;
  const char *zUnit;      /* without bTime: "samples", "weight" or "calls" */
  FlWork w;               /* work done, for polling the host's interrupt */
  const PsModel *pModel;  /* the capture's track model (slices and samples), or NULL */
  PsPool extra;           /* names made here (anonymous V8 functions): ids | FL_EXTRA */
  int bExtra;             /* extra initialised */
  /* a differential graph (fl_diff): each node's inclusive value in the baseline, -1 where the
  ** baseline has no such frame; the baseline's total; the scale the baseline's values take
  ** (normalize: total / baseline total; else 1) */
  int64_t *aBase;
  int64_t baseTotal;
  double baseScale;
} FlGraph;

/* A name id of FlGraph.extra rather than of pPool. */
#define FL_EXTRA 0x80000000u

/* The text of name id (pPool's, or extra's with FL_EXTRA). */
static PsStr fl_name(const FlGraph *g, uint32_t id){
  if( id & FL_EXTRA ) return ps_pool_get(&g->extra, id & ~FL_EXTRA);
  return ps_pool_get(g->pPool, id);
}

/* z[0..n) as XML text (element content and attribute values alike), so that the SVG is
** well-formed whatever a name holds: '<' '>' '&' '"' as entities; invalid UTF-8 (a character
** cut in two, a stray byte) and NUL repaired as U+FFFD (ps_text_repair); the code points XML 1.0
** has no place for (https://www.w3.org/TR/xml/#charsets) replaced: control characters (a tab
** kept; line breaks too, as spaces: a label is one line) by a space, U+FFFE and U+FFFF by
** U+FFFD. -1 when out of memory. */
static int xml_text(PsBuf *b, const char *zIn, size_t nIn){
  if( nIn==0 ) return 0;                /* (zIn may then be NULL) */
  const unsigned char *z = (const unsigned char*)zIn;
  size_t n = nIn;
  char *zFix = 0;
  if( !ps_text_check(zIn, nIn, 0) ){
    n = ps_text_repair(zIn, nIn, 0);
    if( (zFix = malloc(n ? n : 1))==0 ) return -1;
    ps_text_repair(zIn, nIn, zFix);
    z = (const unsigned char*)zFix;
  }
  int bad = 0;
  size_t s = 0;
  for(size_t i=0; i<n && !bad; i++){
    unsigned char c = z[i];
    const char *r = 0;
    size_t nSkip = 1;
    if( c=='<' ) r = "&lt;";
    else if( c=='>' ) r = "&gt;";
    else if( c=='&' ) r = "&amp;";
    else if( c=='"' ) r = "&quot;";
    else if( c<0x20 && c!='\t' ) r = " ";
    else if( c==0xEF && i+2<n && z[i+1]==0xBF && (z[i+2]==0xBE || z[i+2]==0xBF) ){
      r = "\xEF\xBF\xBD"; nSkip = 3;                      /* U+FFFE, U+FFFF: not XML characters */
    }
    if( r ){
      bad = ps_buf_append(b, (const char*)z+s, i-s) || ps_buf_puts(b, r);
      i += nSkip-1;
      s = i+1;
    }
  }
  if( !bad ) bad = ps_buf_append(b, (const char*)z+s, n-s);
  free(zFix);
  return bad ? -1 : 0;
}

/* A frame's label text, escaped. */
static void fl_label(const FlGraph *g, const FNode *x, PsBuf *b){
  if( x->bThread==1 ){ ps_buf_puts(b, g->azGroup[x->name]); return; }
  if( x->bThread==2 ){ ps_buf_puts(b, "(deeper callers)"); return; }
  if( x->name==0 ){ ps_buf_puts(b, "(unnamed)"); return; }
  PsStr s = fl_name(g, x->name);
  xml_text(b, s.z, s.n);
}

/* Group keys of slices and samples: thread t is t, a CPU track tr is nThread + tr, an async
** kind (by track) is nThread + nTrack + FL_ASYNC_*. Timings records: the category's pool id. */
enum { FL_ASYNC_PROCESS, FL_ASYNC_GLOBAL, FL_ASYNC_THREAD, FL_NASYNC };

/* Appends v as text ("N", or 'x' for an id written as a string), escaped. */
static void fl_value(PsBuf *b, const PsCapture *cap, const PsValue *v){
  char buf[512];
  ps_value_text(cap, v, buf, sizeof(buf));
  xml_text(b, buf, strlen(buf));
}

/* The first-level frame of group key t, escaped for SVG (malloc'ed; NULL when out of memory):
** bCategory (timings records): the category; a thread: "process / thread" (flame.h says how
** either part is named or left out); a CPU track: "CPU n"; an async kind: "async (process)". */
static char *fl_group_label(const PsCapture *cap, int bCategory, uint32_t t){
  PsBuf lb; memset(&lb, 0, sizeof(lb));
  if( bCategory ){
    PsStr s = ps_pool_get(&cap->pool, t);
    xml_text(&lb, s.z, s.n);
  }else if( t < cap->nThread ){
    char buf[4096];
    ps_thread_label(cap, t, buf, sizeof(buf));
    xml_text(&lb, buf, strlen(buf));
  }else if( t < cap->nThread + cap->nTrack ){
    const PsTrack *tr = &cap->aTrack[t - cap->nThread];
    char buf[512];
    if( tr->cpu>=0 ) ps_buf_printf(&lb, "CPU %d", (int)tr->cpu);
    else{ ps_track_text(cap, t - cap->nThread, buf, sizeof(buf)); xml_text(&lb, buf, strlen(buf)); }
  }else{
    static const char *const az[] = { "async (process)", "async (global)", "async (thread)" };
    size_t k = t - cap->nThread - cap->nTrack;
    ps_buf_puts(&lb, k < FL_NASYNC ? az[k] : "async");
  }
  if( ps_buf_append(&lb, "", 1) ){ ps_buf_free(&lb); return 0; }
  return lb.z;
}

/* The group node of key t under the root (its label made on first use); -1 when out of memory.
** A key past the label table (cannot happen for a parsed capture) is the root itself. */
static int32_t fl_group(FlGraph *g, const PsCapture *cap, int bCategory, uint32_t t){
  if( t >= g->nGroup ) return 0;
  if( g->azGroup[t]==0 && (g->azGroup[t] = fl_group_label(cap, bCategory, t))==0 ) return -1;
  return fl_child(&g->f, 0, t, 1);
}

/* Whether event row r is drawn (1) and its group key *pKey, by its track's kind: a thread's
** own track (the thread filter applies), a CPU track (none with a thread filter), an async
** track (only with bAsync; the filter by the thread of the event), never a counter or instant. */
static int fl_row_key(const FlGraph *g, const PsCapture *cap, const PsFlameOpt *o, size_t r, uint32_t *pKey){
  uint32_t tr = cap->ev.aTrack[r], th = cap->ev.aThread[r];
  int kind = g->pModel && tr < cap->nTrack ? g->pModel->aTrack[tr].kind : PS_TK_THREAD;
  int k = -1;
  switch( kind ){
    case PS_TK_THREAD: break;
    case PS_TK_CPU:
      if( o->aThreadKeep ) return 0;
      *pKey = (uint32_t)(cap->nThread + tr);
      return 1;
    case PS_TK_PROCESS_ASYNC: k = FL_ASYNC_PROCESS; break;
    case PS_TK_GLOBAL_ASYNC:  k = FL_ASYNC_GLOBAL; break;
    case PS_TK_THREAD_ASYNC:  k = FL_ASYNC_THREAD; break;
    default: return 0;
  }
  if( k>=0 && !o->bAsync ) return 0;
  if( o->aThreadKeep && (th >= cap->nThread || !o->aThreadKeep[th]) ) return 0;
  *pKey = k>=0 && o->eGroup==PS_FLAME_TRACK ? (uint32_t)(cap->nThread + cap->nTrack + (size_t)k) : th;
  return 1;
}

typedef struct FlLab { const char *z; uint32_t key; } FlLab;
static int fl_lab_cmp(const void *a, const void *b){
  int c = strcmp(((const FlLab*)a)->z, ((const FlLab*)b)->z);
  if( c ) return c;
  return ((const FlLab*)a)->key < ((const FlLab*)b)->key ? -1 : ((const FlLab*)a)->key > ((const FlLab*)b)->key;
}

/* First-level groups of one label (two threads named "work" in one process) get their tid:
** "work (tid 29268)". PS_OK or PS_NOMEM. */
static int fl_dedup_groups(FlGraph *g, const PsCapture *cap){
  size_t n = 0;
  if( g->f.n==0 || g->azGroup==0 ) return PS_OK;
  for(int32_t c = g->f.a[0].firstChild; c>=0; c = g->f.a[c].nextSibling) n += g->f.a[c].bThread==1;
  if( n<2 ) return PS_OK;
  FlLab *a = malloc(n * sizeof(FlLab));
  if( a==0 ) return PS_NOMEM;
  n = 0;
  for(int32_t c = g->f.a[0].firstChild; c>=0; c = g->f.a[c].nextSibling){
    if( g->f.a[c].bThread!=1 || g->f.a[c].name >= g->nGroup ) continue;
    a[n].z = g->azGroup[g->f.a[c].name]; a[n].key = g->f.a[c].name; n++;
  }
  qsort(a, n, sizeof(FlLab), fl_lab_cmp);
  int rc = PS_OK;
  for(size_t i=0; i<n && rc==PS_OK; ){
    size_t j = i+1;
    while( j<n && strcmp(a[j].z, a[i].z)==0 ) j++;
    for(size_t k=i; j-i>1 && k<j; k++){
      uint32_t t = a[k].key;
      if( t >= cap->nThread || cap->aThread[t].tid.type==PS_VAL_NULL ) continue;
      PsBuf lb; memset(&lb, 0, sizeof(lb));
      ps_buf_puts(&lb, g->azGroup[t]);
      ps_buf_puts(&lb, " (tid ");
      fl_value(&lb, cap, &cap->aThread[t].tid);
      if( ps_buf_append(&lb, ")", 2) ){ ps_buf_free(&lb); rc = PS_NOMEM; break; }
      free(g->azGroup[t]); g->azGroup[t] = lb.z;
    }
    i = j;
  }
  free(a);
  return rc;
}

/* A frame's name as ps_frame_label gives it (ext/model/stacks.h): its own pool id, or for an
** anonymous V8 frame "(anonymous) file:line" interned in g->extra. UINT32_MAX when out of
** memory. */
static uint32_t fl_frame_name(FlGraph *g, const PsCapture *cap, const PsRecord *x){
  if( !ps_frame_is_anonymous(cap, x) ) return x->name;
  char buf[600];
  ps_frame_label(cap, x, buf, sizeof(buf));
  if( !g->bExtra ){
    if( ps_pool_init(&g->extra) ) return UINT32_MAX;
    g->bExtra = 1;
  }
  int bNew;
  uint32_t id = ps_pool_intern(&g->extra, buf, strlen(buf), &bNew);
  return id ? (id | FL_EXTRA) : UINT32_MAX;
}

/* ---------------------------------------------------------------- filters */
/* [a, a+d) (d: PS_NULL64 for a point) against [from, to) (PS_NULL64: open): 0 outside, else 1
** and *pClip = the part of d inside (0 for a point). */
static int fl_in_range(const PsFlameOpt *o, int64_t a, int64_t d, int64_t *pClip){
  int64_t from = o->tsFrom==PS_NULL64 ? INT64_MIN : o->tsFrom;
  int64_t to = o->tsTo==PS_NULL64 ? INT64_MAX : o->tsTo;
  if( d==PS_NULL64 || d<=0 ){
    *pClip = 0;
    return a>=from && (a<to || o->tsTo==PS_NULL64);
  }
  int64_t e;
  if( __builtin_add_overflow(a, d, &e) ) e = INT64_MAX;
  if( !(a < to || o->tsTo==PS_NULL64) || !(e > from) ) return 0;
  int64_t lo = a > from ? a : from, hi = e < to ? e : to, c;
  if( __builtin_sub_overflow(hi, lo, &c) ) c = INT64_MAX;
  *pClip = c;
  return 1;
}

static int fl_has_range(const PsFlameOpt *o){ return o->tsFrom!=PS_NULL64 || o->tsTo!=PS_NULL64; }

/* Adds n units of work (a row, a frame, a byte of a name) to w and, with the slots the hash
** tables looked at meanwhile (ps_nProbe), polls: every FL_WORK_STEP units (well under a
** millisecond) it reads the clock, and asks the host (o->xInterrupt) when FL_POLL_NS have passed
** since it last did, so an interrupt lands within milliseconds whatever the input's shape (a
** million frames of one row, a hash table under chosen keys). Returns 1 when the host says stop
** (the caller then returns ps_interrupted()). */
static int fl_work(FlWork *w, const PsFlameOpt *o, uint64_t n){
  w->nWork += n;
  if( o==0 || o->xInterrupt==0 ) return 0;
  uint64_t now = w->nWork + ps_nProbe;
  if( now - w->nLast < FL_WORK_STEP ) return 0;
  w->nLast = now;
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  int64_t t = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
  if( w->tPoll && t - w->tPoll < FL_POLL_NS ) return 0;
  w->tPoll = t;
  return o->xInterrupt(o->pInterruptArg)!=0;
}

/* Name flags of a frame label: bit 1 matches pName, bit 2 matches pExclude. */
static int fl_name_flags(const PsFlameOpt *o, const char *z, size_t n, char **pzBuf, size_t *pnBuf){
  if( n+1 > *pnBuf ){
    char *zNew = realloc(*pzBuf, n+1);
    if( zNew==0 ) return -1;
    *pzBuf = zNew; *pnBuf = n+1;
  }
  memcpy(*pzBuf, z, n); (*pzBuf)[n] = 0;
  int fl = 0;
  if( o->pName && regexec((const regex_t*)o->pName, *pzBuf, 0, 0, 0)==0 ) fl |= 2;
  if( o->pExclude && regexec((const regex_t*)o->pExclude, *pzBuf, 0, 0, 0)==0 ) fl |= 4;
  return fl;
}

/* The name filters: a node's stack is the frames from the root down to it (first-level group
** labels not included); its own value stays only when "name" matches a frame of that stack and
** "exclude" matches none. Names are tested once per distinct name. PS_OK, PS_NOMEM, or
** PS_INTERRUPT (the host asked to stop: fl_work). */
static int fl_filter_names(FlGraph *g, const PsFlameOpt *o){
  if( o->pName==0 && o->pExclude==0 ) return PS_OK;
  Fl *f = &g->f;
  uint8_t *aFlag = calloc(f->n ? f->n : 1, 1);
  size_t nBase = g->pPool->n + 1;                   /* extra names cached after the pool's */
  uint8_t *aCache = calloc(nBase + (g->bExtra ? g->extra.n : 0) + 1, 1);   /* per name id: bit 0 known, bits 1-2 flags */
  char *zBuf = 0; size_t nBuf = 0;
  int rc = PS_NOMEM;
  if( aFlag==0 || aCache==0 ) goto out;
  for(size_t i=0; i<f->n; i++){
    FNode *x = &f->a[i];
    if( fl_work(&g->w, o, 1) ){ rc = PS_INTERRUPT; goto out; }
    int fl = x->parent>=0 ? aFlag[x->parent] : 0;
    if( i>0 && x->bThread==0 ){
      uint32_t id = x->name < g->pPool->n ? x->name : 0;
      if( (x->name & FL_EXTRA) && g->bExtra && (x->name & ~FL_EXTRA) < g->extra.n ) id = x->name;
      size_t ic = (id & FL_EXTRA) ? nBase + (id & ~FL_EXTRA) : id;
      if( !(aCache[ic] & 1) ){
        PsStr s = id ? fl_name(g, id) : (PsStr){"(unnamed)", 9};
        int k = fl_name_flags(o, s.z, s.n, &zBuf, &nBuf);
        if( k<0 ) goto out;
        if( fl_work(&g->w, o, s.n) ){ rc = PS_INTERRUPT; goto out; }   /* a regexec per byte */
        aCache[ic] = (uint8_t)(k | 1);
      }
      fl |= aCache[ic] & 6;
    }
    aFlag[i] = (uint8_t)fl;
    int keep = (o->pName==0 || (fl & 2)) && (o->pExclude==0 || !(fl & 4));
    if( !keep ){ x->value = 0; x->nRows = 0; }
  }
  rc = PS_OK;
out:
  free(aFlag); free(aCache); free(zBuf);
  return rc;
}

/* The self weight: a reversed trie. Under each group, the node a value was added at, then its
** parent, and so on up to the group (at most PS_FLAME_MAX_REVERSED frames; the rest merge into
** one "(deeper callers)" frame). Replaces g->f. PS_OK, PS_NOMEM or PS_INTERRUPT. */
static int fl_reverse(FlGraph *g, const PsFlameOpt *o){
  Fl *f = &g->f, r; memset(&r, 0, sizeof(r));
  int32_t *aGroup = malloc((f->n ? f->n : 1) * sizeof(int32_t));   /* node -> its group node or -1 */
  int32_t aUp[PS_FLAME_MAX_REVERSED];
  int rc = PS_NOMEM;
  if( aGroup==0 || fl_child(&r, -1, 0, 0)<0 ) goto out;
  aGroup[0] = -1;
  for(size_t i=1; i<f->n; i++){
    aGroup[i] = f->a[i].bThread==1 ? (int32_t)i : aGroup[f->a[i].parent];
  }
  for(size_t i=1; i<f->n; i++){
    const FNode *x = &f->a[i];
    if( x->bThread==1 || (x->value<=0 && x->nRows==0) ) continue;
    int nUp = 0, bDeeper = 0;
    int32_t j = (int32_t)i;
    while( j>0 && f->a[j].bThread!=1 ){
      if( nUp==PS_FLAME_MAX_REVERSED ){ bDeeper = 1; break; }
      aUp[nUp++] = j;
      j = f->a[j].parent;
    }
    int32_t q = 0;
    if( aGroup[i]>=0 ){ q = fl_child(&r, 0, f->a[aGroup[i]].name, 1); if( q<0 ) goto out; }
    for(int k=0; k<nUp; k++){
      q = fl_child(&r, q, f->a[aUp[k]].name, 0);
      if( q<0 ) goto out;
    }
    if( bDeeper && (q = fl_child(&r, q, 0, 2))<0 ) goto out;
    fl_add(&r.a[q].value, f->a[i].value);
    r.a[q].nRows += f->a[i].nRows;
    if( fl_work(&g->w, o, 1 + (uint64_t)nUp) ){ rc = PS_INTERRUPT; goto out; }
  }
  fl_free(f);
  *f = r; memset(&r, 0, sizeof(r));
  rc = PS_OK;
out:
  fl_free(&r); free(aGroup);
  return rc;
}

/* ---------------------------------------------------------------- the SVG */
/* The script: flamegraph.pl's interactions (see the header comment). Kept in ES5 so any
** browser that runs SVG script runs it. W and PAD are the graph's width and left margin. */
static const char zScript[] =
"(function(){\n"
"var HL='rgb(230,0,230)', E=0.02, doc=document, frames=[], charW=6.5, rootW=W, searching=false, zoomed=null, K=1;\n"
"var details=doc.getElementById('details'), matched=doc.getElementById('matched');\n"
"var stext=doc.getElementById('searchtext');\n"
"function num(e,a){return parseFloat(e.getAttribute(a));}\n"
"var gs=doc.querySelectorAll('g.f');\n"
"for(var i=0;i<gs.length;i++){\n"
"  var g=gs[i], r=g.querySelector('rect'), ti=g.querySelector('title').textContent, k=ti.lastIndexOf(' \\u2014 ');\n"
"  var f={g:g, r:r, t:g.querySelector('text'), title:ti, name:k>=0?ti.substring(0,k):ti,\n"
"         x:num(r,'x'), w:num(r,'width'), y:num(r,'y'), fill:r.getAttribute('fill'), up:g.getAttribute('data-up')=='1'};\n"
"  frames.push(f); bind(f);\n"
"}\n"
"function bind(f){\n"
"  f.g.addEventListener('click', function(){ zoom(f); });\n"
"  f.g.addEventListener('mouseover', function(){ details.textContent=f.title; });\n"
"  f.g.addEventListener('mouseout', function(){ details.textContent=' '; });\n"
"}\n"
"if(frames.length) rootW=frames[0].w;\n"
"(function(){ var m=doc.createElementNS('http://www.w3.org/2000/svg','text');\n"
"  m.textContent='abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ 0123456789_.:/';\n"
"  m.setAttribute('class','lbl'); doc.documentElement.appendChild(m);\n"
"  var L=m.getComputedTextLength(); if(L>0) charW=L/m.textContent.length; m.parentNode.removeChild(m); })();\n"
"function fit(f){\n"
"  var t=f.t, x=num(f.r,'x'), a=num(f.r,'width')-6, s=f.name, n, h;\n"
"  t.setAttribute('x', (x+3).toFixed(2));\n"
"  if(a<3*charW){ t.textContent=''; return; }\n"
"  if(s.length*charW<=a){ t.textContent=s; if(t.getComputedTextLength()<=a) return; }\n"
"  for(n=Math.min(s.length-1, Math.floor(a/charW)); n>=3; n--){\n"
"    h=Math.ceil((n-1)/2); t.textContent=s.substring(0,h)+'\\u2026'+s.substring(s.length-(n-1-h));\n"
"    if(t.getComputedTextLength()<=a) return;\n"
"  }\n"
"  t.textContent='';\n"
"}\n"
"function place(f,x,w,cls){\n"
"  f.g.setAttribute('class', 'f'+(cls?' '+cls:''));\n"
"  if(cls=='hide') return;\n"
"  f.r.setAttribute('x', (PAD+(x-PAD)*K).toFixed(2)); f.r.setAttribute('width', (w*K).toFixed(2)); fit(f);\n"
"}\n"
"function zoom(n){\n"
"  zoomed=n;\n"
"  var x0=n.x, x1=n.x+n.w, s=W/n.w;\n"
"  for(var i=0;i<frames.length;i++){ var f=frames[i];\n"
"    if(f.up!=n.up){ place(f, f.x, f.w, ''); continue; }\n"
"    var anc=n.up ? f.y>n.y : f.y<n.y;\n"
"    if(anc && f.x<=x0+E && f.x+f.w>=x1-E) place(f, PAD, W, 'parent');\n"
"    else if(!anc && f.x>=x0-E && f.x+f.w<=x1+E) place(f, PAD+(f.x-x0)*s, f.w*s, '');\n"
"    else place(f, 0, 0, 'hide');\n"
"  }\n"
"}\n"
"function unzoom(){ zoomed=null; for(var i=0;i<frames.length;i++) place(frames[i], frames[i].x, frames[i].w, ''); }\n"
"function at(id,a,v){ var e=doc.getElementById(id); if(e) e.setAttribute(a, v.toFixed(2)); }\n"
"function layout(){\n"
"  var svg=details.ownerSVGElement, vw=svg.getBoundingClientRect().width||window.innerWidth||(W+2*PAD);\n"
"  if(vw<200) vw=200;\n"
"  var vb=svg.viewBox.baseVal; svg.setAttribute('viewBox', '0 0 '+vw.toFixed(0)+' '+vb.height);\n"
"  var w=vw-2*PAD; K=w/W;\n"
"  at('searchbox','x',PAD+w-96); at('searchtext','x',PAD+w-48); at('title','x',PAD+w/2); at('matched','x',PAD+w);\n"
"  if(zoomed) zoom(zoomed); else unzoom();\n"
"}\n"
"function search(term){\n"
"  var re; try{ re=new RegExp(term); }catch(e){ matched.textContent='Bad regular expression: '+e.message; return; }\n"
"  var sp=[];\n"
"  for(var i=0;i<frames.length;i++){ var f=frames[i];\n"
"    if(re.test(f.name)){ f.r.setAttribute('fill', HL); sp.push([f.x, f.w]); } else f.r.setAttribute('fill', f.fill);\n"
"  }\n"
"  sp.sort(function(a,b){ return a[0]-b[0] || b[1]-a[1]; });\n"
"  var sum=0, end=-1e300;\n"
"  for(var j=0;j<sp.length;j++){ var a=sp[j][0], b=a+sp[j][1];\n"
"    if(b<=end+E) continue; sum+= a>=end ? b-a : b-end; end=b; }\n"
"  var pct=rootW>0 ? Math.min(100, 100*sum/rootW) : 0;\n"
"  matched.textContent='Matched: '+pct.toFixed(1)+'%';\n"
"  searching=true; stext.textContent='Reset Search';\n"
"}\n"
"function resetSearch(){\n"
"  for(var i=0;i<frames.length;i++) frames[i].r.setAttribute('fill', frames[i].fill);\n"
"  matched.textContent=' '; searching=false; stext.textContent='Search';\n"
"}\n"
"function searchPrompt(){\n"
"  if(searching){ resetSearch(); return; }\n"
"  var t=prompt('Search frames by regular expression (JavaScript syntax):', '');\n"
"  if(t!=null && t!=='') search(t);\n"
"}\n"
"doc.getElementById('unzoom').addEventListener('click', unzoom);\n"
"doc.getElementById('search').addEventListener('click', searchPrompt);\n"
"doc.addEventListener('keydown', function(e){\n"
"  if(((e.ctrlKey||e.metaKey) && e.keyCode==70) || e.keyCode==114){ e.preventDefault(); searchPrompt(); }\n"
"  else if(e.keyCode==27){ resetSearch(); unzoom(); }\n"
"});\n"
"layout();\n"
"window.addEventListener('resize', layout);\n"
"window.flamegraph={zoom:function(i){zoom(frames[i]);}, unzoom:unzoom, search:search, resetSearch:resetSearch, layout:layout};\n"
"})();\n";

static void fl_diff_colour(const FlGraph *g, size_t i, double maxDelta, int *pr, int *pg, int *pb);

/* The drawing's geometry: the graph's width, a frame's height, the left and right margins. */
#define FL_W 1200.0
#define FL_H 17.0
#define FL_PAD 10.0

/* The SVG's start: the style, the Reset Zoom and Search controls, the title (zTitle, then the
** total of the graph's unit) and the details and matched lines at the bottom of height. */
static int fl_svg_head(const FlGraph *g, const char *zTitle, int64_t total, double height, PsBuf *out){
  const double W = FL_W, pad = FL_PAD;
  const char *zUnit = g->zUnit ? g->zUnit : "samples";
  int bad = ps_buf_printf(out,
    "<?xml version=\"1.0\" standalone=\"no\"?>\n"
    "<svg version=\"1.1\" width=\"100%%\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" preserveAspectRatio=\"xMinYMin meet\" xmlns=\"http://www.w3.org/2000/svg\">\n"
    "<style>text{font-family:Verdana,sans-serif;font-size:11px;fill:#000}"
    "g.f text{pointer-events:none}g.f{cursor:pointer}"
    "g.f rect{stroke:#fff;stroke-width:0.5}g.f:hover rect{stroke:#000;stroke-width:1}"
    ".parent{opacity:0.5}.hide{display:none}"
    ".btn{cursor:pointer}.btn rect{fill:#e4e4e4;stroke:#888;stroke-width:1}.btn text{pointer-events:none}</style>\n"
    "<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" fill=\"#f8f8f8\"/>\n"
    "<g id=\"unzoom\" class=\"btn\"><rect x=\"%.0f\" y=\"6\" width=\"84\" height=\"20\" rx=\"3\"/>"
    "<text x=\"%.0f\" y=\"20\">Reset Zoom</text></g>\n"
    "<g id=\"search\" class=\"btn\"><rect id=\"searchbox\" x=\"%.0f\" y=\"6\" width=\"96\" height=\"20\" rx=\"3\"/>"
    "<text id=\"searchtext\" x=\"%.0f\" y=\"20\" text-anchor=\"middle\">Search</text></g>\n"
    "<text id=\"title\" x=\"%.0f\" y=\"22\" text-anchor=\"middle\" style=\"font-size:15px\">",
    height, W + 2*pad, height, pad, pad + 8, pad + W - 96, pad + W - 48, pad + W/2);
  PsBuf tb; memset(&tb, 0, sizeof(tb));
  bad |= xml_text(&tb, zTitle, strlen(zTitle));
  bad |= ps_buf_append(out, tb.z ? tb.z : "", tb.n);
  ps_buf_free(&tb);
  if( g->bTime ) bad |= ps_buf_printf(out, " — %.3f ms in all (width = time, hover a frame)</text>\n", total/1e6);
  else bad |= ps_buf_printf(out, " — %lld %s in all (width = %s, hover a frame)</text>\n",
                            (long long)total, zUnit, g->bWeighted ? "sample weight" : zUnit);
  bad |= ps_buf_printf(out, "<text id=\"details\" x=\"%.0f\" y=\"%.0f\"> </text>\n"
                            "<text id=\"matched\" x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\"> </text>\n",
                       pad, height - 10, pad + W, height - 10);
  return bad;
}

/* The SVG's end: the script (zScript), which zooms, searches and refits the frames. */
static int fl_svg_tail(PsBuf *out){
  int bad = ps_buf_printf(out, "<script type=\"text/ecmascript\"><![CDATA[\nvar W=%.0f, PAD=%.0f;\n", FL_W, FL_PAD);
  bad |= ps_buf_puts(out, zScript);
  bad |= ps_buf_puts(out, "]]></script>\n</svg>\n");
  return bad;
}

/* The depth of every node under iTop (-1 for the others: parents come before their children)
** into aDepth; returns the deepest. */
static int fl_depths(const Fl *f, int32_t iTop, int32_t *aDepth){
  int maxDepth = 0;
  for(size_t i=0; i<f->n; i++) aDepth[i] = -1;
  aDepth[iTop] = 0;
  for(size_t i=(size_t)iTop+1; i<f->n; i++){
    int32_t p = f->a[i].parent;
    if( p<0 || aDepth[p]<0 ) continue;
    aDepth[i] = aDepth[p] + 1;
    if( aDepth[i]>maxDepth ) maxDepth = aDepth[i];
  }
  return maxDepth;
}

/* The frames of g under node iTop (iTop itself the widest, full width = total), depth-first,
** children by value (largest first): from yTop down, or (bUp: an inverted graph, the callers of a
** sandwich) from yTop + nDepth frames up, a frame's children above it, its group marked
** data-up="1" for the script. iTop 0 draws "all". PS_OK, PS_NOMEM, or PS_INTERRUPT (fl_work: a
** frame and the bytes of its label are its work). */
static int fl_svg_frames(FlGraph *g, const PsFlameOpt *o, PsBuf *out, PsFlameInfo *pInfo, int32_t iTop,
                         int64_t total, double yTop, int bUp, int nDepth){
  Fl *f = &g->f;
  const char *zUnit = g->zUnit ? g->zUnit : "samples";
  int32_t *aDepth = malloc(f->n * sizeof(int32_t));
  double *aX = malloc(f->n * sizeof(double));
  int32_t *aStack = malloc(f->n * sizeof(int32_t));
  int32_t *aK = malloc(f->n * sizeof(int32_t));
  if( aDepth==0 || aX==0 || aStack==0 || aK==0 ){ free(aDepth); free(aX); free(aStack); free(aK); return PS_NOMEM; }
  int bStop = 0, bad = 0;
  fl_depths(f, iTop, aDepth);
  aX[iTop] = 0;
  const double W = FL_W, H = FL_H, pad = FL_PAD;
  /* a differential graph: the largest change of a frame the baseline has, which saturates */
  double maxDelta = 0;
  if( g->aBase ){
    for(size_t i=0; i<f->n; i++){
      if( g->aBase[i]<0 ) continue;
      double d = (double)f->a[i].value - (double)g->aBase[i] * g->baseScale;
      if( d<0 ) d = -d;
      if( d>maxDelta ) maxDelta = d;
    }
  }
  /* DFS with an explicit stack; each child's x = parent's x + the widths of its elder siblings */
  int nSt = 0;
  aStack[nSt++] = iTop;
  while( nSt>0 && !bad && !bStop ){
    int32_t i = aStack[--nSt];
    FNode *x = &f->a[i];
    double w = total>0 ? (double)x->value / (double)total * W : 0;
    if( w < 0.1 ) continue;
    double y = bUp ? yTop + (nDepth - aDepth[i]) * H : yTop + aDepth[i] * H;
    PsBuf lab; memset(&lab, 0, sizeof(lab));
    if( i==0 ) ps_buf_puts(&lab, "all");
    else fl_label(g, x, &lab);
    double share = total>0 ? 100.0 * (double)x->value / (double)total : 0;
    /* a warm colour from the name's hash, as flamegraph.pl does */
    uint64_t h = ps_hash_fixed(lab.z ? lab.z : "", lab.n);
    int rr = 205 + (int)(h % 50), gg = (int)((h >> 8) % 180) + 40, bb = (int)((h >> 16) % 55);
    if( x->bThread==1 ){ rr = 160; gg = 190; bb = 230; }
    if( i==0 ){ rr = 230; gg = 230; bb = 230; }
    if( g->aBase ) fl_diff_colour(g, (size_t)i, maxDelta, &rr, &gg, &bb);
    if( pInfo ) pInfo->nFrames++;
    bad |= ps_buf_puts(out, bUp ? "<g class=\"f\" data-up=\"1\"><title>" : "<g class=\"f\"><title>");
    bad |= ps_buf_append(out, lab.z, lab.n);
    if( g->bTime ) bad |= ps_buf_printf(out, " — %.3f ms (%.2f%%)", x->value/1e6, share);
    else bad |= ps_buf_printf(out, " — %lld %s (%.2f%%)", (long long)x->value, zUnit, share);
    if( g->aBase ){
      /* both values and the change (the script takes the name from before the last " — ") */
      if( g->aBase[i]<0 ) bad |= ps_buf_puts(out, ", not in the baseline");
      else{
        double b = (double)g->aBase[i] * g->baseScale, d = (double)x->value - b;
        const char *zN = g->baseScale!=1.0 ? " normalized" : "";
        if( g->bTime ) bad |= ps_buf_printf(out, ", baseline%s %.3f ms, change %+.3f ms", zN, b/1e6, d/1e6);
        else bad |= ps_buf_printf(out, ", baseline%s %.0f %s, change %+.0f", zN, b, zUnit, d);
        if( b>0 ) bad |= ps_buf_printf(out, " (%+.1f%%)", d * 100.0 / b);
      }
    }
    bad |= ps_buf_printf(out, "</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"rgb(%d,%d,%d)\"/>",
                         pad + aX[i], y, w, H - 1, rr, gg, bb);
    /* the label as the script would fit it with ~6.5 px per character (the script refits it) */
    bad |= ps_buf_printf(out, "<text x=\"%.2f\" y=\"%.1f\">", pad + aX[i] + 3, y + H - 5);
    size_t nFit = w > 6 ? (size_t)((w - 6) / 6.5) : 0;
    if( lab.n <= nFit ) bad |= ps_buf_append(out, lab.z, lab.n);
    else if( nFit > 2 ){
      size_t k = nFit - 2;
      while( k>0 && ((unsigned char)lab.z[k] & 0xC0)==0x80 ) k--;      /* whole UTF-8 chars */
      while( k>0 && lab.z[k-1]=='&' ) k--;
      const char *amp = memchr(lab.z, '&', k);                          /* no cut entity */
      while( amp ){
        const char *semi = memchr(amp, ';', (size_t)(lab.z + lab.n - amp));
        if( semi && (size_t)(semi - lab.z) >= k ){ k = (size_t)(amp - lab.z); break; }
        amp = semi ? memchr(semi, '&', (size_t)(lab.z + k - semi)) : 0;
      }
      if( k>0 ) bad |= ps_buf_append(out, lab.z, k) | ps_buf_puts(out, "..");
    }
    bad |= ps_buf_puts(out, "</text></g>\n");
    if( fl_work(&g->w, o, 1 + lab.n) ) bStop = 1;
    ps_buf_free(&lab);
    /* children, largest first: push in ascending order */
    int nKids = 0;
    for(int32_t c = x->firstChild; c>=0; c = f->a[c].nextSibling) aK[nKids++] = c;
    if( nKids==0 ) continue;
    /* siblings by value, descending (a merge sort would be O(k log k); siblings are few, but a
    ** hostile file can make thousands: qsort) */
    {
      int32_t *a = aK;
      for(int s2=1; s2<nKids && nKids<=32; s2++){ int32_t t = a[s2]; int b2 = s2; while( b2>0 && f->a[a[b2-1]].value < f->a[t].value ){ a[b2] = a[b2-1]; b2--; } a[b2] = t; }
      if( nKids>32 ){
        /* shell sort: no comparator context needed */
        for(int gap=nKids/2; gap>0; gap/=2){
          for(int s2=gap; s2<nKids; s2++){
            int32_t t = a[s2]; int b2 = s2;
            while( b2>=gap && f->a[a[b2-gap]].value < f->a[t].value ){ a[b2] = a[b2-gap]; b2 -= gap; }
            a[b2] = t;
          }
        }
      }
    }
    double cx = aX[i];
    for(int a=0; a<nKids; a++){ aX[aK[a]] = cx; cx += total>0 ? (double)f->a[aK[a]].value / (double)total * W : 0; }
    for(int a=nKids; a-- > 0; ) aStack[nSt++] = aK[a];
  }
  free(aDepth); free(aX); free(aStack); free(aK);
  return bad ? PS_NOMEM : bStop ? PS_INTERRUPT : PS_OK;
}

/* Lays out and writes the graph (fl_svg_head, fl_svg_frames from "all", fl_svg_tail). PS_OK,
** PS_NOMEM or PS_INTERRUPT. */
static int fl_svg(FlGraph *g, const PsFlameOpt *o, const char *zTitle, PsBuf *out, PsFlameInfo *pInfo){
  Fl *f = &g->f;
  int64_t total = f->a[0].value;
  if( pInfo ){
    pInfo->total = total; pInfo->bTime = g->bTime; pInfo->bWeighted = g->bWeighted;
    pInfo->zUnit = g->bTime ? "ms" : (g->zUnit ? g->zUnit : "samples"); pInfo->nRows = f->a[0].nRows; pInfo->nFrames = 0;
  }
  int32_t *aDepth = malloc(f->n * sizeof(int32_t));
  if( aDepth==0 ) return PS_NOMEM;
  int maxDepth = fl_depths(f, 0, aDepth);
  free(aDepth);
  double height = (maxDepth + 1) * FL_H + 60;
  if( fl_svg_head(g, zTitle, total, height, out) ) return PS_NOMEM;
  int rc = fl_svg_frames(g, o, out, pInfo, 0, total, 34, 0, maxDepth);
  if( rc==PS_OK && fl_svg_tail(out) ) rc = PS_NOMEM;
  return rc;
}

/* Steps (2) to (4) of the pipeline: the name filters, the reversal (self weight), the sums
** (a node's value becomes its inclusive value). PS_OK, PS_NOMEM or PS_INTERRUPT. */
static int fl_prepare(FlGraph *g, const PsFlameOpt *o){
  int rc;
  Fl *f = &g->f;
  if( (rc = fl_filter_names(g, o))!=PS_OK ) return rc;
  if( o->eWeight==PS_FLAME_W_SELF && (rc = fl_reverse(g, o))!=PS_OK ) return rc;
  for(size_t i=f->n; i-- > 1; ){
    if( f->a[i].value<0 ) f->a[i].value = 0;
    fl_add(&f->a[f->a[i].parent].value, f->a[i].value);
    f->a[f->a[i].parent].nRows += f->a[i].nRows;
    if( fl_work(&g->w, o, 1) ) return PS_INTERRUPT;
  }
  if( f->a[0].value<0 ) f->a[0].value = 0;
  return PS_OK;
}

static void fl_graph_free(FlGraph *g){
  if( g->azGroup ){ for(size_t i=0; i<g->nGroup; i++) free(g->azGroup[i]); free(g->azGroup); }
  if( g->bExtra ) ps_pool_free(&g->extra);
  free(g->aBase);
  fl_free(&g->f);
  memset(g, 0, sizeof(*g));
}

/* err for rc (PS_NOMEM, PS_INTERRUPT); rc. */
static int fl_rc(int rc, PsErr *err){
  if( rc==PS_NOMEM ) ps_nomem(err);
  if( rc==PS_INTERRUPT ) rc = ps_interrupted(err);
  return rc;
}

/* Steps (2) to (5) of the pipeline, then frees g. */
static int fl_finish(FlGraph *g, const PsFlameOpt *o, PsBuf *out, PsFlameInfo *pInfo, PsErr *err){
  int rc = fl_prepare(g, o);
  if( rc==PS_OK ) rc = fl_svg(g, o, o->zTitle ? o->zTitle : "Flame graph", out, pInfo);
  fl_graph_free(g);
  return fl_rc(rc, err);
}

/* ---------------------------------------------------------------- differential graphs */
/* A baseline node found by (parent, label): an open-addressing table over g0's nodes. */
typedef struct FlMatch { uint32_t *aSlot; size_t nSlot; uint64_t *aHash; } FlMatch;

/* g->aBase: each node of g (prepared: inclusive values) matched with the node of g0 (prepared)
** reached by the same labels from the root (the first-level groups by their label too); -1 where
** g0 has none. Frames are compared by their escaped label text, so two captures' name pools
** need not agree. Linear in the nodes and their labels' bytes. PS_OK, PS_NOMEM, PS_INTERRUPT. */
static int fl_diff(FlGraph *g, FlGraph *g0, const PsFlameOpt *o){
  const Fl *f = &g->f, *f0 = &g0->f;
  FlMatch m; memset(&m, 0, sizeof(m));
  int32_t *aMatch = malloc((f->n ? f->n : 1) * sizeof(int32_t));
  PsBuf lab; memset(&lab, 0, sizeof(lab));
  int rc = PS_NOMEM;
  g->aBase = malloc((f->n ? f->n : 1) * sizeof(int64_t));
  m.nSlot = 1024;
  while( m.nSlot < f0->n * 2 ) m.nSlot *= 2;
  m.aSlot = calloc(m.nSlot, sizeof(uint32_t));
  m.aHash = malloc((f0->n ? f0->n : 1) * sizeof(uint64_t));
  if( aMatch==0 || g->aBase==0 || m.aSlot==0 || m.aHash==0 ) goto out;
  for(size_t i=1; i<f0->n; i++){          /* g0's nodes by (parent, label hash, kind) */
    const FNode *x = &f0->a[i];
    lab.n = 0;
    fl_label(g0, x, &lab);
    m.aHash[i] = ps_hash_pair(ps_hash_pair((uint64_t)(uint32_t)x->parent, ps_hash(lab.z ? lab.z : "", lab.n)), x->bThread);
    size_t j = (size_t)m.aHash[i] & (m.nSlot-1);
    while( m.aSlot[j] ){ j = (j+1) & (m.nSlot-1); ps_nProbe++; }
    m.aSlot[j] = (uint32_t)i;
    if( fl_work(&g->w, o, 1 + lab.n/16) ){ rc = PS_INTERRUPT; goto out; }
  }
  PsBuf lab0; memset(&lab0, 0, sizeof(lab0));
  aMatch[0] = 0;
  g->aBase[0] = f0->n ? f0->a[0].value : 0;
  for(size_t i=1; i<f->n; i++){           /* parents before children: ids grow down the trie */
    const FNode *x = &f->a[i];
    int32_t mp = x->parent>=0 ? aMatch[x->parent] : -1;
    aMatch[i] = -1;
    g->aBase[i] = -1;
    if( mp<0 ) continue;
    lab.n = 0;
    fl_label(g, x, &lab);
    uint64_t h = ps_hash_pair(ps_hash_pair((uint64_t)(uint32_t)mp, ps_hash(lab.z ? lab.z : "", lab.n)), x->bThread);
    for(size_t j = (size_t)h & (m.nSlot-1); m.aSlot[j]; j = (j+1) & (m.nSlot-1)){
      uint32_t c = m.aSlot[j];
      ps_nProbe++;
      if( m.aHash[c]!=h || f0->a[c].parent!=mp || f0->a[c].bThread!=x->bThread ) continue;
      lab0.n = 0;
      fl_label(g0, &f0->a[c], &lab0);
      if( lab0.n==lab.n && (lab.n==0 || memcmp(lab0.z, lab.z, lab.n)==0) ){
        aMatch[i] = (int32_t)c; g->aBase[i] = f0->a[c].value;
        break;
      }
    }
    if( fl_work(&g->w, o, 1 + lab.n/16) ){ ps_buf_free(&lab0); rc = PS_INTERRUPT; goto out; }
  }
  ps_buf_free(&lab0);
  g->baseTotal = f0->n ? f0->a[0].value : 0;
  g->baseScale = o->bNormalize && g->baseTotal>0 ? (double)f->a[0].value / (double)g->baseTotal : 1.0;
  rc = PS_OK;
out:
  free(aMatch); free(m.aSlot); free(m.aHash); ps_buf_free(&lab);
  return rc;
}

/* flamegraph.pl's differential colour (color_scale): delta > 0 a red whose green and blue are
** 210 * (max - delta) / max, delta < 0 a blue whose red and green are 210 * (max + delta) / max,
** white at 0; a frame the baseline does not have is full red. */
static void fl_diff_colour(const FlGraph *g, size_t i, double maxDelta, int *pr, int *pg, int *pb){
  double t = (double)g->f.a[i].value, b = g->aBase[i]<0 ? 0.0 : (double)g->aBase[i] * g->baseScale;
  double d = t - b;
  *pr = *pg = *pb = 255;
  if( g->aBase[i]<0 || (g->aBase[i]==0 && t>0) ){ *pg = *pb = 0; return; }
  if( !(maxDelta>0) ) return;
  if( d>0 ) *pg = *pb = (int)(210.0 * (maxDelta - d) / maxDelta);
  else if( d<0 ) *pr = *pg = (int)(210.0 * (maxDelta + d) / maxDelta);
}

/* ---------------------------------------------------------------- sources */
static int fl_has_samples(const PsCapture *cap, int *pbTime){
  const PsEvents *e = &cap->ev;
  int bAny = 0, bDur = 0;
  if( e->aStack==0 ) return 0;
  for(size_t r=0; r<e->n; r++){
    if( !(e->aFlags[r] & PS_EV_SAMPLE) || e->aStack[r]<0 ) continue;
    bAny = 1;
    if( e->aDur[r]!=PS_NULL64 ){ bDur = 1; break; }
  }
  *pbTime = bDur;
  return bAny;
}

int ps_flame_source(const PsCapture *cap){
  int bTime = 0;
  if( fl_has_samples(cap, &bTime) ) return PS_FLAME_SRC_SAMPLES;
  int bSlices = 0;
  for(size_t r=0; r<cap->ev.n && !bSlices; r++){
    bSlices = (cap->ev.aFlags[r] & PS_EV_SLICE) && cap->ev.aDur[r]!=PS_NULL64;
  }
  /* timer/statistics records; a capture whose records are stack frames without samples draws
  ** its slices when it has any */
  if( cap->nRec && (cap->ev.aStack==0 || !bSlices) ) return PS_FLAME_SRC_RECORDS;
  if( bSlices ) return PS_FLAME_SRC_SLICES;
  if( cap->nJob ) return PS_FLAME_SRC_JOBS;
  if( cap->ev.n ) return PS_FLAME_SRC_SLICES;      /* events without extent: an empty graph */
  return PS_FLAME_SRC_NONE;
}

typedef struct FlPair { uint32_t group; int32_t leaf; int64_t value, nRows; } FlPair;

/* Stack samples: values summed per (group, leaf frame) first (profiles repeat few stacks over
** many samples), then each distinct pair's frames from the root placed once. */
static int fl_samples(FlGraph *g, const PsCapture *cap, const PsFlameOpt *o, PsErr *err){
  const PsEvents *e = &cap->ev;
  int eGroup = o->eGroup;
  size_t nh = 1024, nPair = 0, nAlloc = 0;
  FlPair *a = 0; uint32_t *h = 0; int32_t *aChain = 0;
  int rc = PS_NOMEM;
  int bTime = g->bTime && o->eWeight!=PS_FLAME_W_SAMPLES;
  h = calloc(nh, sizeof(uint32_t));
  aChain = malloc((cap->nRec ? cap->nRec : 1) * sizeof(int32_t));
  if( h==0 || aChain==0 ) goto out;
  for(size_t r=0; r<e->n; r++){
    if( fl_work(&g->w, o, 1) ){ rc = ps_interrupted(err); goto out; }
    int32_t leaf = e->aStack[r];
    if( !(e->aFlags[r] & PS_EV_SAMPLE) || leaf<0 || (size_t)leaf>=cap->nRec ) continue;
    uint32_t gk = 0;
    if( !fl_row_key(g, cap, o, r, &gk) ) continue;
    if( eGroup==PS_FLAME_MERGED ) gk = 0;
    int64_t clip = 0;
    if( fl_has_range(o) && !fl_in_range(o, e->aTs[r], e->aDur[r], &clip) ) continue;
    int64_t d = fl_has_range(o) ? clip : e->aDur[r];
    int64_t v = bTime ? (d!=PS_NULL64 && d>0 ? d : 0) : (e->aWeight ? e->aWeight[r] : 1);
    if( (nPair+1)*2 > nh ){
      size_t nh2 = nh*2;
      uint32_t *h2 = calloc(nh2, sizeof(uint32_t));
      if( h2==0 ) goto out;
      for(size_t k=0; k<nPair; k++){
        size_t j = (size_t)ps_hash_pair(a[k].group, (uint32_t)a[k].leaf) & (nh2-1);
        ps_nProbe++;
        while( h2[j] ){ j = (j+1) & (nh2-1); ps_nProbe++; }
        h2[j] = (uint32_t)k + 1;
      }
      free(h); h = h2; nh = nh2;
    }
    /* (group, leaf) pairs: the keyed hash, so no input can make them share a slot */
    size_t j = (size_t)ps_hash_pair(gk, (uint32_t)leaf) & (nh-1);
    ps_nProbe++;
    while( h[j] && !(a[h[j]-1].group==gk && a[h[j]-1].leaf==leaf) ){ j = (j+1) & (nh-1); ps_nProbe++; }
    if( h[j]==0 ){
      if( ps_grow((void**)&a, sizeof(FlPair), &nAlloc, nPair+1) ) goto out;
      a[nPair].group = gk; a[nPair].leaf = leaf; a[nPair].value = 0; a[nPair].nRows = 0;
      h[j] = (uint32_t)++nPair;
    }
    fl_add(&a[h[j]-1].value, v);
    a[h[j]-1].nRows++;
  }
  for(size_t k=0; k<nPair; k++){
    int32_t parentNode = 0;
    if( eGroup!=PS_FLAME_MERGED ){
      parentNode = fl_group(g, cap, 0, a[k].group);
      if( parentNode<0 ) goto out;
    }
    /* the frames from the leaf up (a parent walk never repeats a record: at most nRec steps) */
    size_t nChain = 0;
    for(int32_t x = a[k].leaf; x>=0 && nChain<cap->nRec; x = cap->aRec[x].parent) aChain[nChain++] = x;
    if( fl_work(&g->w, o, 1 + nChain) ){ rc = ps_interrupted(err); goto out; }
    while( nChain>0 ){
      uint32_t nm = fl_frame_name(g, cap, &cap->aRec[aChain[--nChain]]);
      if( nm==UINT32_MAX ) goto out;
      parentNode = fl_child(&g->f, parentNode, nm, 0);
      if( parentNode<0 ) goto out;
    }
    fl_add(&g->f.a[parentNode].value, a[k].value);
    g->f.a[parentNode].nRows += a[k].nRows;
  }
  rc = PS_OK;
out:
  if( rc==PS_NOMEM ) ps_nomem(err);
  free(a); free(h); free(aChain);
  return rc;
}

/* Slices (bRec 0) or records (bRec 1) by their parent links. Rows are placed in an order where
** parents come first: file order, with unplaced parents placed on demand (walk up to the first
** placed ancestor, a root, or a row already on this walk: a parent cycle, whose first row then
** starts the stack; then place the chain top down). */
static int fl_tree(FlGraph *g, const PsCapture *cap, const PsFlameOpt *o, int bRec, int bRecCount, PsErr *err){
  size_t nRows = bRec ? cap->nRec : cap->ev.n;
  int eGroup = o->eGroup;
  int32_t *aNode = malloc((nRows ? nRows : 1) * sizeof(int32_t));   /* row -> trie node */
  size_t *aChain = malloc((nRows ? nRows : 1) * sizeof(size_t));
  int64_t *aSelf = bRec ? 0 : malloc((nRows ? nRows : 1) * sizeof(int64_t));  /* slices: clipped dur, then self */
  int rc = PS_NOMEM;
  if( aNode==0 || aChain==0 || (!bRec && aSelf==0) ) goto out;
  /* aNode: -1 not yet placed, -3 on the chain being walked, -2 not drawn */
  for(size_t r=0; r<nRows; r++){
    aNode[r] = -1;
    if( bRec ) continue;
    int keep = (cap->ev.aFlags[r] & PS_EV_SLICE) && cap->ev.aDur[r]!=PS_NULL64;
    uint32_t gk;
    if( keep && !fl_row_key(g, cap, o, r, &gk) ) keep = 0;
    int64_t clip = cap->ev.aDur[r];
    if( keep && fl_has_range(o) && !fl_in_range(o, cap->ev.aTs[r], cap->ev.aDur[r], &clip) ) keep = 0;
    if( !keep ) aNode[r] = -2;
    aSelf[r] = keep ? clip : 0;
  }
  for(size_t r0=0; r0<nRows; r0++){
    if( fl_work(&g->w, o, 1) ){ rc = ps_interrupted(err); goto out; }
    size_t nChain = 0;
    size_t r = r0;
    while( aNode[r]==-1 ){
      aNode[r] = -3;
      aChain[nChain++] = r;
      int32_t p = bRec ? cap->aRec[r].parent : cap->ev.aParent[r];
      if( p<0 ) break;
      r = (size_t)p;
    }
    while( nChain>0 ){
      size_t x = aChain[--nChain];
      int32_t p = bRec ? cap->aRec[x].parent : cap->ev.aParent[x];
      int32_t parentNode;
      if( p>=0 && aNode[p]>=0 ) parentNode = aNode[p];
      else if( eGroup!=PS_FLAME_MERGED ){
        uint32_t t = 0;
        if( bRec ) t = cap->aRec[x].category;
        else fl_row_key(g, cap, o, x, &t);
        parentNode = fl_group(g, cap, bRec, t);
        if( parentNode<0 ) goto out;
      }else parentNode = 0;
      uint32_t nm = bRec ? fl_frame_name(g, cap, &cap->aRec[x]) : cap->ev.aName[x];
      if( nm==UINT32_MAX ) goto out;
      int32_t node = fl_child(&g->f, parentNode, nm, 0);
      if( node<0 ) goto out;
      aNode[x] = node;
    }
  }
  /* self values into each node */
  if( bRec ){
    for(size_t r=0; r<nRows; r++){
      if( aNode[r]<0 ) continue;
      int64_t s;
      if( o->eWeight==PS_FLAME_W_SAMPLES ) s = cap->aRec[r].count;
      else s = bRecCount ? cap->aRec[r].count
             : cap->aRec[r].self!=PS_NULL64 ? cap->aRec[r].self : cap->aRec[r].time;
      if( s!=PS_NULL64 && s>0 ) fl_add(&g->f.a[aNode[r]].value, s);
      g->f.a[aNode[r]].nRows++;
    }
  }else{
    /* a row's self = its (clipped) dur minus its drawn children's, never negative */
    for(size_t r=0; r<nRows; r++){
      int32_t p = cap->ev.aParent[r];
      if( aNode[r]>=0 && p>=0 && aNode[p]>=0 ) fl_add(&aSelf[p], -aSelf[r]);
    }
    for(size_t r=0; r<nRows; r++){
      if( aNode[r]<0 ) continue;
      int64_t s = o->eWeight==PS_FLAME_W_SAMPLES ? 1 : aSelf[r];
      if( s>0 ) fl_add(&g->f.a[aNode[r]].value, s);
      g->f.a[aNode[r]].nRows++;
    }
  }
  rc = PS_OK;
out:
  if( rc==PS_NOMEM ) ps_nomem(err);
  free(aNode); free(aChain); free(aSelf);
  return rc;
}

/* A job column as a frame name interned into pool (zNull when NULL); 0 when out of memory. */
static uint32_t fl_job_frame(const PsCapture *cap, size_t r, int iCol, PsPool *pool, const char *zNull){
  PsOut o; memset(&o, 0, sizeof(o));
  if( ps_job_column(cap, r, iCol, &o)!=PS_OK ) return 0;
  char buf[64];
  const char *z = zNull; size_t n = strlen(zNull);
  if( (o.type==PS_META_TEXT || o.type==PS_META_JSON) && o.z ){ z = o.z; n = o.n; }
  else if( o.type==PS_META_INT ){ n = (size_t)snprintf(buf, sizeof(buf), "%lld", (long long)o.i); z = buf; }
  else if( o.type==PS_META_REAL ){ n = (size_t)snprintf(buf, sizeof(buf), "%.17g", o.r); z = buf; }
  int bNew;
  uint32_t id = ps_pool_intern(pool, n ? z : zNull, n ? n : strlen(zNull), &bNew);
  free(o.zFree);
  return id;
}

/* A numeric job column in ms as ns (saturating); 0 when NULL or not a number. */
static int fl_job_ns(const PsCapture *cap, size_t r, int iCol, int64_t *pNs, int *pNomem){
  PsOut o; memset(&o, 0, sizeof(o));
  if( ps_job_column(cap, r, iCol, &o)!=PS_OK ){ *pNomem = 1; return 0; }
  double ms = o.type==PS_META_REAL ? o.r : o.type==PS_META_INT ? (double)o.i : NAN;
  free(o.zFree);
  if( isnan(ms) ) return 0;
  double ns = ms * 1e6;
  *pNs = ns >= 9.2e18 ? INT64_MAX : ns <= -9.2e18 ? -INT64_MAX : (int64_t)llround(ns);
  return 1;
}

/* Jobs: root -> category -> lane -> job name, value = elapsed_ms (jobs without a numeric
** elapsed_ms, such as active jobs, are left out). */
static int fl_jobs(FlGraph *g, const PsCapture *cap, const PsFlameOpt *o, PsPool *pool, PsErr *err){
  for(size_t r=0; r<cap->nJob; r++){
    if( fl_work(&g->w, o, 1) ) return ps_interrupted(err);
    int bNomem = 0;
    int64_t ns = 0, s = 0, e = 0;
    if( !fl_job_ns(cap, r, PS_JOB_ELAPSED_MS, &ns, &bNomem) ){ if( bNomem ) return ps_nomem(err); continue; }
    if( fl_has_range(o) ){
      if( !fl_job_ns(cap, r, PS_JOB_STARTED_UNIX_MS, &s, &bNomem)
       || !fl_job_ns(cap, r, PS_JOB_ENDED_UNIX_MS, &e, &bNomem) ){ if( bNomem ) return ps_nomem(err); continue; }
      if( (o->tsTo!=PS_NULL64 && s >= o->tsTo) || (o->tsFrom!=PS_NULL64 && e < o->tsFrom) ) continue;
    }
    uint32_t aId[3];
    aId[0] = fl_job_frame(cap, r, PS_JOB_CATEGORY, pool, "(no category)");
    aId[1] = fl_job_frame(cap, r, PS_JOB_LANE, pool, "(no lane)");
    aId[2] = fl_job_frame(cap, r, PS_JOB_NAME, pool, "(unnamed)");
    if( aId[0]==0 || aId[1]==0 || aId[2]==0 ) return ps_nomem(err);
    int32_t q = 0;
    for(int k=0; k<3; k++) if( (q = fl_child(&g->f, q, aId[k], 0))<0 ) return ps_nomem(err);
    int64_t v = o->eWeight==PS_FLAME_W_SAMPLES ? 1 : ns;
    if( v>0 ) fl_add(&g->f.a[q].value, v);
    g->f.a[q].nRows++;
  }
  return PS_OK;
}

void ps_flame_opt_init(PsFlameOpt *pOpt){
  memset(pOpt, 0, sizeof(*pOpt));
  pOpt->eGroup = PS_FLAME_TRACK;
  pOpt->tsFrom = pOpt->tsTo = PS_NULL64;
}

/* Step (1): the trie of cap's stacks into g (jobPool: a job report's names). *peSrc the source
** drawn. On failure g is freed. */
static int fl_build(const PsCapture *cap, const PsFlameOpt *o, FlGraph *pG, PsPool *pJobPool, int *peSrc, PsErr *err){
  FlGraph g; memset(&g, 0, sizeof(g));
  PsPool *jp = pJobPool;                /* (the graph points into it: the caller's) */
  memset(jp, 0, sizeof(*jp));
  int eSrc = ps_flame_source(cap);
  int rc = PS_OK;
  int bRecCount = 0;
  *peSrc = eSrc;
  g.pPool = &cap->pool;
  g.bTime = 1;
  if( fl_child(&g.f, -1, 0, 0)<0 ){ rc = ps_nomem(err); goto fail; }
  switch( eSrc ){
    case PS_FLAME_SRC_SAMPLES: {
      int bTime = 0;
      fl_has_samples(cap, &bTime);
      g.bTime = bTime && o->eWeight!=PS_FLAME_W_SAMPLES;
      g.bWeighted = !g.bTime && cap->ev.aWeight!=0;
      g.zUnit = g.bWeighted ? "weight" : "samples";
      break;
    }
    case PS_FLAME_SRC_RECORDS: {
      int bRecTime = 0;
      for(size_t r=0; r<cap->nRec && !bRecTime; r++){
        bRecTime = cap->aRec[r].self!=PS_NULL64 || cap->aRec[r].time!=PS_NULL64;
      }
      /* stack frames whose samples carry no time (an evented speedscope profile in 'none'
      ** units): widths are their counts */
      bRecCount = !bRecTime && cap->ev.aStack!=0;
      g.bTime = !bRecCount && o->eWeight!=PS_FLAME_W_SAMPLES;
      g.zUnit = bRecCount ? "samples" : "calls";
      if( fl_has_range(o) ){ rc = ps_err(err, "ts_from/ts_to: the capture's records have no timestamps"); goto fail; }
      if( o->aThreadKeep ){ rc = ps_err(err, "the capture's records have no threads to filter by"); goto fail; }
      break;
    }
    case PS_FLAME_SRC_JOBS:
      g.bTime = o->eWeight!=PS_FLAME_W_SAMPLES;
      g.zUnit = "calls";
      if( o->aThreadKeep ){ rc = ps_err(err, "a job report has no threads to filter by"); goto fail; }
      if( ps_pool_init(jp) ){ rc = ps_nomem(err); goto fail; }
      g.pPool = jp;
      break;
    default:
      g.bTime = o->eWeight!=PS_FLAME_W_SAMPLES;
      g.zUnit = "calls";
      break;
  }
  if( eSrc==PS_FLAME_SRC_SLICES || eSrc==PS_FLAME_SRC_SAMPLES ){
    /* the track model names the groups and says which rows are drawn (it is built once per
    ** capture and kept with it: the const is cast away as every reader of it does) */
    g.pModel = ps_capture_model((PsCapture*)cap);
    if( g.pModel==0 ){ rc = ps_nomem(err); goto fail; }
  }
  if( o->eGroup!=PS_FLAME_MERGED && eSrc!=PS_FLAME_SRC_JOBS ){
    size_t nLab = eSrc==PS_FLAME_SRC_RECORDS ? cap->pool.n + 1 : cap->nThread + cap->nTrack + FL_NASYNC;
    g.azGroup = calloc(nLab ? nLab : 1, sizeof(char*));
    if( g.azGroup==0 ){ rc = ps_nomem(err); goto fail; }
    g.nGroup = nLab;
  }
  switch( eSrc ){
    case PS_FLAME_SRC_SAMPLES: rc = fl_samples(&g, cap, o, err); break;
    case PS_FLAME_SRC_RECORDS: rc = fl_tree(&g, cap, o, 1, bRecCount, err); break;
    case PS_FLAME_SRC_JOBS:    rc = fl_jobs(&g, cap, o, jp, err); break;
    case PS_FLAME_SRC_SLICES:  rc = fl_tree(&g, cap, o, 0, 0, err); break;
    default: break;
  }
  if( rc ) goto fail;
  if( eSrc!=PS_FLAME_SRC_RECORDS && fl_dedup_groups(&g, cap) ){ rc = ps_nomem(err); goto fail; }
  *pG = g;
  return PS_OK;
fail:
  fl_graph_free(&g);
  ps_pool_free(jp);
  return rc;
}

int ps_flame_svg_opt(const PsCapture *cap, const PsFlameOpt *o, PsBuf *out,
                     PsFlameInfo *pInfo, PsErr *err){
  FlGraph g;
  PsPool jobPool;
  int eSrc = PS_FLAME_SRC_NONE;
  if( pInfo ) memset(pInfo, 0, sizeof(*pInfo));     /* (its eSource: fl_build's, below) */
  int rc = fl_build(cap, o, &g, &jobPool, &eSrc, err);
  if( rc ) return rc;
  rc = fl_finish(&g, o, out, pInfo, err);
  ps_pool_free(&jobPool);
  if( pInfo ) pInfo->eSource = eSrc;
  return rc;
}

/* The test graph (g, built) drawn against the baseline graph (g0, built): both prepared, g's
** nodes matched with g0's (fl_diff), g drawn with the differential colours. Frees both. */
static int fl_finish_diff(FlGraph *g, FlGraph *g0, const PsFlameOpt *o, const PsFlameOpt *o0, PsBuf *out,
                          PsFlameInfo *pInfo, PsErr *err){
  g0->w = g->w;
  int rc = fl_prepare(g0, o0);
  g->w = g0->w;
  if( rc==PS_OK ) rc = fl_prepare(g, o);
  if( rc==PS_OK ) rc = fl_diff(g, g0, o);
  if( rc==PS_OK ) rc = fl_svg(g, o, o->zTitle ? o->zTitle : "Differential flame graph", out, pInfo);
  fl_graph_free(g0);
  fl_graph_free(g);
  return fl_rc(rc, err);
}

int ps_flame_svg_diff(const PsCapture *cap, const PsCapture *base, const PsFlameOpt *o, const PsFlameOpt *oBase,
                      PsBuf *out, PsFlameInfo *pInfo, PsErr *err){
  FlGraph g, g0;
  PsPool jobPool, jobPool0;
  int eSrc = PS_FLAME_SRC_NONE, eSrc0 = PS_FLAME_SRC_NONE;
  if( pInfo ) memset(pInfo, 0, sizeof(*pInfo));     /* (its eSource: fl_build's, below) */
  int rc = fl_build(cap, o, &g, &jobPool, &eSrc, err);
  if( rc ) return rc;
  /* (without oBase: o's drawing options, without its thread filter, whose flags are cap's threads) */
  PsFlameOpt oB = oBase ? *oBase : *o;
  if( oBase==0 ) oB.aThreadKeep = 0;
  rc = fl_build(base, &oB, &g0, &jobPool0, &eSrc0, err);
  if( rc ){ fl_graph_free(&g); ps_pool_free(&jobPool); return rc; }
  rc = fl_finish_diff(&g, &g0, o, &oB, out, pInfo, err);
  ps_pool_free(&jobPool); ps_pool_free(&jobPool0);
  if( pInfo ) pInfo->eSource = eSrc;
  return rc;
}

int ps_flame_svg(const PsCapture *cap, int eGroup, const char *zTitle, PsBuf *out,
                 PsFlameInfo *pInfo, PsErr *err){
  PsFlameOpt o;
  ps_flame_opt_init(&o);
  o.eGroup = eGroup;
  o.zTitle = zTitle;
  return ps_flame_svg_opt(cap, &o, out, pInfo, err);
}

/* ---------------------------------------------------------------- sandwich graphs */
/* The name id node i of forest f is drawn by in g (a frame's ps_frame_label name, a slice's or a
** record's name); UINT32_MAX when out of memory. */
static uint32_t fl_forest_name(FlGraph *g, const PsCapture *cap, const PsForest *f, size_t i){
  if( f->eKind==PS_FOREST_SLICES ) return cap->ev.aName[i];
  if( f->eKind==PS_FOREST_SAMPLES ) return fl_frame_name(g, cap, &cap->aRec[i]);
  return cap->aRec[i].name;
}

int ps_flame_svg_sandwich(const PsCapture *cap, const char *zFn, const PsFlameOpt *o, PsBuf *out,
                          PsFlameInfo *pInfo, PsErr *err){
  PsFlameOpt oo = *o;
  oo.eWeight = PS_FLAME_W_DUR;          /* (a sandwich's halves are the tries as built) */
  o = &oo;
  PsOccur oc;
  FlGraph gu, gd;                       /* the callers (drawn upwards), the callees */
  memset(&gu, 0, sizeof(gu)); memset(&gd, 0, sizeof(gd));
  int32_t *aRow = 0;
  size_t nFn = strlen(zFn);
  int rc;
  if( pInfo ) memset(pInfo, 0, sizeof(*pInfo));
  rc = ps_forest_occurrences((PsCapture*)cap, o->bAsync, zFn, nFn, &oc, o->xInterrupt, o->pInterruptArg);
  if( rc ) goto out;
  PsForest fo = oc.f;
  if( fo.eKind==PS_FOREST_NONE ){ rc = ps_err(err, "the capture has no slices, samples or records to draw"); goto out; }
  if( !oc.bAny ){ rc = ps_err(err, "sandwich: no frame, slice or record is named '%s'", zFn); goto out; }
  const int32_t *aOrder = oc.aOrder;
  const uint8_t *aTop = oc.aTop;
  const size_t n = fo.n, nOrder = oc.nOrder;
  rc = PS_NOMEM;
  if( (aRow = malloc(sizeof(int32_t) * (n ? n : 1)))==0 ) goto out;
  if( fo.eKind==PS_FOREST_SAMPLES ) ps_forest_subtree(&oc.f, aOrder, nOrder, 0);
  rc = PS_NOMEM;
  FlGraph *ag[2] = { &gu, &gd };
  for(int k=0; k<2; k++){
    ag[k]->pPool = &cap->pool;
    ag[k]->bTime = fo.eKind!=PS_FOREST_SAMPLES || fo.bTime;
    ag[k]->bWeighted = !ag[k]->bTime && cap->ev.aWeight!=0;
    ag[k]->zUnit = fo.eKind==PS_FOREST_SAMPLES ? (ag[k]->bWeighted ? "weight" : "samples") : "calls";
    if( fl_child(&ag[k]->f, -1, 0, 0)<0 ) goto out;
  }
  int32_t iFnU = -1, iFnD = -1;
  /* the callees: every node under an outermost occurrence, merged by the labels from it, its
  ** own self value; the callers: from each outermost occurrence up its ancestors, its inclusive
  ** value at the last (PS_FLAME_MAX_REVERSED callers at most, as a reversed graph) */
  for(size_t i=0; i<n; i++) aRow[i] = -1;
  for(size_t k=0; k<nOrder; k++){
    int32_t i = aOrder[k], p = fo.a[i].parent, t;
    if( fl_work(&gd.w, o, 1) ){ rc = ps_interrupted(err); goto out; }
    if( aTop[i] ){
      if( iFnD<0 ){
        uint32_t nm = fl_forest_name(&gd, cap, &fo, (size_t)i), nmU = fl_forest_name(&gu, cap, &fo, (size_t)i);
        if( nm==UINT32_MAX || nmU==UINT32_MAX ) goto out;
        if( (iFnD = fl_child(&gd.f, 0, nm, 0))<0 || (iFnU = fl_child(&gu.f, 0, nmU, 0))<0 ) goto out;
      }
      t = iFnD;
      /* its callers */
      int32_t q = iFnU, a = oc.aUp[i];
      for(int nUp=0; a>=0 && nUp<PS_FLAME_MAX_REVERSED; a = oc.aUp[a]){
        uint32_t nm = fl_forest_name(&gu, cap, &fo, (size_t)a);
        if( nm==UINT32_MAX || (q = fl_child(&gu.f, q, nm, 0))<0 ) goto out;
        nUp++;
      }
      fl_add(&gu.f.a[q].value, fo.a[i].tot);
      gu.f.a[q].nRows++;
    }else if( p>=0 && aRow[p]>=0 && ps_forest_in_kind(&fo, (size_t)i) ){
      uint32_t nm = fl_forest_name(&gd, cap, &fo, (size_t)i);
      if( nm==UINT32_MAX || (t = fl_child(&gd.f, aRow[p], nm, 0))<0 ) goto out;
    }else continue;
    aRow[i] = t;
    fl_add(&gd.f.a[t].value, fo.a[i].self);
    gd.f.a[t].nRows++;
  }
  if( iFnD<0 ){ rc = ps_err(err, "sandwich: no frame, slice or record is named '%s'", zFn); goto out; }
  if( (rc = fl_prepare(&gu, o))!=PS_OK || (rc = fl_prepare(&gd, o))!=PS_OK ) goto out;
  int64_t total = gd.f.a[iFnD].value;
  int32_t *aDepth = malloc(sizeof(int32_t) * (gu.f.n > gd.f.n ? gu.f.n : gd.f.n));
  if( aDepth==0 ){ rc = PS_NOMEM; goto out; }
  int dUp = fl_depths(&gu.f, iFnU, aDepth), dDown = fl_depths(&gd.f, iFnD, aDepth);
  free(aDepth);
  double yMid = 34 + (dUp + 1) * FL_H + 6;
  if( pInfo ){
    pInfo->total = total; pInfo->bTime = gd.bTime; pInfo->bWeighted = gd.bWeighted;
    pInfo->zUnit = gd.bTime ? "ms" : gd.zUnit; pInfo->nRows = gd.f.a[iFnD].nRows;
    pInfo->eSource = fo.eKind==PS_FOREST_SAMPLES ? PS_FLAME_SRC_SAMPLES : fo.eKind==PS_FOREST_SLICES ? PS_FLAME_SRC_SLICES : PS_FLAME_SRC_RECORDS;
  }
  char zT[600];
  snprintf(zT, sizeof(zT), "%s — callers of %s above, callees below", o->zTitle ? o->zTitle : "Flame graph", zFn);
  rc = fl_svg_head(&gd, zT, total, yMid + (dDown + 1) * FL_H + 60 - 34, out) ? PS_NOMEM : PS_OK;
  if( rc==PS_OK ) rc = fl_svg_frames(&gu, o, out, pInfo, iFnU, total, 34, 1, dUp);
  if( rc==PS_OK ) rc = fl_svg_frames(&gd, o, out, pInfo, iFnD, total, yMid, 0, dDown);
  if( rc==PS_OK && fl_svg_tail(out) ) rc = PS_NOMEM;
out:
  ps_occur_free(&oc);
  free(aRow);
  fl_graph_free(&gu); fl_graph_free(&gd);
  if( rc==PS_NOMEM || rc==PS_INTERRUPT ) return fl_rc(rc, err);
  return rc;
}

/* ---------------------------------------------------------------- folded rows */
struct PsFlameFolded {
  PsPool pool;            /* frame names */
  Fl f;                   /* node 0 the root */
  PsFlameOpt oPoll;       /* only xInterrupt, pInterruptArg: what ps_flame_folded_add polls */
  FlWork w;               /* work done by the adds (frames, and ps_nProbe's slots) */
};

void ps_flame_folded_interrupt(PsFlameFolded *p, int (*xInterrupt)(void*), void *pArg){
  p->oPoll.xInterrupt = xInterrupt;
  p->oPoll.pInterruptArg = pArg;
}

PsFlameFolded *ps_flame_folded_new(void){
  PsFlameFolded *p = calloc(1, sizeof(*p));
  if( p==0 ) return 0;
  ps_flame_opt_init(&p->oPoll);
  if( ps_pool_init(&p->pool) || fl_child(&p->f, -1, 0, 0)<0 ){ ps_flame_folded_free(p); return 0; }
  return p;
}

void ps_flame_folded_free(PsFlameFolded *p){
  if( p==0 ) return;
  ps_pool_free(&p->pool);
  fl_free(&p->f);
  free(p);
}

int ps_flame_folded_add(PsFlameFolded *p, const char *z, size_t n, int64_t v, PsErr *err){
  int32_t q = 0;
  size_t i = 0;
  while( i<n ){
    const char *e = memchr(z+i, ';', n-i);
    size_t j = e ? (size_t)(e - z) : n;
    if( j>i ){
      int bNew;
      uint32_t id = ps_pool_intern(&p->pool, z+i, j-i, &bNew);
      if( id==0 ) return ps_nomem(err);
      if( (q = fl_child(&p->f, q, id, 0))<0 ) return ps_nomem(err);
      if( fl_work(&p->w, &p->oPoll, 1 + (j-i)/16) ) return ps_interrupted(err);
    }
    i = j+1;
  }
  if( q==0 ) return ps_err(err, "the stack has no frame");
  if( v>0 ) fl_add(&p->f.a[q].value, v);
  p->f.a[q].nRows++;
  return PS_OK;
}

/* The graph of p's rows (the graph takes p's trie: p is drawn once). */
static void fl_folded_graph(PsFlameFolded *p, const PsFlameOpt *o, FlGraph *g){
  memset(g, 0, sizeof(*g));
  g->pPool = &p->pool;
  g->f = p->f; memset(&p->f, 0, sizeof(p->f));
  g->bTime = o->bNs;
  g->zUnit = "samples";
  g->w = p->w;
}

int ps_flame_folded_svg(PsFlameFolded *p, const PsFlameOpt *o, PsBuf *out,
                        PsFlameInfo *pInfo, PsErr *err){
  FlGraph g;
  fl_folded_graph(p, o, &g);
  if( pInfo ){ memset(pInfo, 0, sizeof(*pInfo)); }
  return fl_finish(&g, o, out, pInfo, err);
}

int ps_flame_folded_svg_diff(PsFlameFolded *p, PsFlameFolded *pBase, const PsFlameOpt *o, PsBuf *out,
                             PsFlameInfo *pInfo, PsErr *err){
  FlGraph g, g0;
  fl_folded_graph(p, o, &g);
  fl_folded_graph(pBase, o, &g0);
  if( pInfo ){ memset(pInfo, 0, sizeof(*pInfo)); }
  return fl_finish_diff(&g, &g0, o, o, out, pInfo, err);
}
