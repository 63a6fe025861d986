/*
** ftrace.c — reader for Linux ftrace text: what `cat /sys/kernel/tracing/trace` prints, what
** atrace / old systrace write, `trace-cmd report`-like text with the same line layout. Format
** name 'ftrace'.
**
** The text (the kernel's Documentation/trace/ftrace.rst "Output format"; kernel/trace/
** trace_output.c; catapult tracing/extras/importer/linux_perf_importer.html; shared/corpus
** README section 7):
**
**   # tracer: nop                                        header lines start with '#'
**   # entries-in-buffer/entries-written: 140080/250280   #P:4
**   #                              _-----=> irqs-off      (legend of the flag columns)
**   #           TASK-PID     TGID   CPU#  ||||   TIMESTAMP  FUNCTION
**             bash-1977  (  1977) [000] d..2 17284.993652: sched_switch: prev_comm=bash ...
**
**   cpus=N    optional first line (trace-cmd, atrace): profile_metadata ('ftrace', 'cpus').
**   task      the comm right-aligned in 16 columns, '-', the pid: the comm is everything before
**             the LAST '-' that is followed by the pid and the columns below (comms hold '-',
**             '/', '$', digits and spaces: "irq/409-inv_irq-99"). "<...>" is a comm the kernel
**             did not know: not a name (the thread is named by another line, or not at all).
**   (TGID)    optional (options/record-tgid): "(  123)" or "(-----)" when unknown.
**   [CPU]     "[%03d]".
**   flags     optional (the irqs-off / need-resched / hardirq / preempt-depth columns, 4 or 5
**             characters such as "d..2", "dNh1."): a token between [CPU] and the time, or glued
**             to the time ("....316.196720:", as some writers leave it).
**   time      "secs.micros:" (6 fraction digits; 9 with a ns clock): read exactly as integer ns.
**   function  the event's name followed by ':' ("sched_switch:"), or for the function tracer
**             the function itself ("sys_close <-system_call_fastpath": no ':').
**   body      the rest: "key=value key=value ..." for most events (values may hold spaces:
**             "prev_comm=foo bar prev_pid=..."), free text otherwise.
**   Every line may end in "\r" (CRLF) and, in the escaped form copied out of old systrace HTML
**   (corpus catapult-android_systrace.txt), in a literal backslash-n-backslash "\n\" (the last
**   line of such a block in a literal "\n"): both are read transparently. Other JavaScript
**   escapes inside lines are not undone.
**
** atrace markers (userspace writes to trace_marker; catapult and Perfetto read them so): the
** body of `tracing_mark_write:`, of the old `0:` function form and of `print:` (after its
** "ip: " prefix) is
**   B|pid|name          begin a slice on the thread (pid = the process, the line's pid = tid)
**   E  or  E|pid...     end the innermost open slice of the line's thread
**   S|pid|name|cookie   begin an async slice;   F|pid|name|cookie   end it
**   C|pid|name|value    a counter sample
**   trace_event_clock_sync: ...   a clock sync mark (profile_metadata; the line stays a row)
**
** Rows (profile_events)
**   raw events   one per event line that is not a B/E/S/F/C marker: ph 'i', dur 0, cat 'ftrace',
**                name = the function column without ':', ts = the time in ns, tid = the task's
**                pid, pid = the TGID column (NULL for "(-----)"; without the column, the pid the
**                same tid has in an atrace marker or TGID column anywhere in the file, else
**                NULL), thread_name = the comm (the first seen for the tid), cpu = [CPU].
**                args = {"flags": "d..2" (when the column is there), "fields": {key: value}
**                (integers as JSON numbers) or "text": the body}.
**   atrace slices  one per B, ph 'B', cat 'atrace', dur = E − B (NULL when never ended), nested
**                (depth, parent_id) per thread. S/F: ph 'b', on a PS_TRACK_ASYNC track per
**                (pid, name, cookie) named "atrace async pid=P name=N cookie=C". C: ph 'C', dur
**                NULL, on a PS_TRACK_COUNTER track per (pid, name) named "atrace counter pid=P
**                name=N". args = {"flags", "marker": the marker text, "value" (C: a JSON number
**                when it is an integer), "cookie" (S)}. The E / F line makes no row of its own
**                (so counts per name are counts of slices).
**   scheduling   one row per running interval from sched_switch: ph 'X', cat 'sched', name =
**                next_comm, tid = next_pid (pid as for raw events), cpu = the CPU, on the CPU's
**                PS_TRACK_CPU track ("cpu N"), ts = the switch that put the thread on the CPU,
**                dur = until the next sched_switch on that CPU; the last interval of each CPU
**                lasts until the trace's last timestamp. Nothing is made for the time before a
**                CPU's first sched_switch. args = {"prio": next_prio, "prev_state": the
**                thread's state when switched out (from the ending sched_switch's prev_state),
**                or "until_end": true}. The idle task (tid 0) has intervals too.
**                CPU time per thread: SELECT tid, sum(dur) FROM profile_events(f)
**                  WHERE cat = 'sched' AND ph = 'X' AND tid <> 0 GROUP BY tid;
**                The sched_switch line itself also stays a raw 'i' row.
** profile_metadata scope 'ftrace': tracer, entries-in-buffer, entries-written, #P (CPU count),
**   trace_event_clock_sync (the marker's text), lost_events ("CPU:N [LOST M EVENTS]" lines),
**   header (every other non-empty '#' line, as written); 'capture' / 'events' = event lines read.
** Diagnostics (each names its line; the rest is read): a line that is neither a header nor an
**   event ('unparsed_line'), an E / F without an open B / S ('unmatched_end'), a B / S never
**   ended ('unclosed_begin'), a sched_switch without next_comm / next_pid ('unparsed_line'), time
**   going backwards within a slice or CPU interval ('other': dur 0).
** Errors: no event line and no header at all.
**
** Embedded text: ps_ftrace_read (formats.h) reads ftrace text that came with a Chrome trace (its
**   'systemTraceEvents' string; a systrace HTML document's text blocks beside its JSON block) into
**   that capture, after its rows, the same way; profile_events' origin column says 'ftrace' for
**   them, and their byte offsets are into that text.
**
** Speed: lines found with memchr, nothing allocated per line, names and comms interned through a
** small cache of recently seen byte strings, args built only when read.
*/
#include "formats.h"
#include "../wire/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FT_NOPID INT64_MIN
#define FT_MAX_CPU 4096            /* a larger [CPU] is damage */
#define FT_CACHE 256               /* interning cache slots (power of two) */

/* ---------------------------------------------------------------- small scanners */

static int ft_digit(char c){ return c>='0' && c<='9'; }
static int ft_ws(char c){ return c==' ' || c=='\t'; }

/* Decimal z[i..j) of 1..10 digits into *pv. */
static int ft_uint(const char *z, size_t i, size_t j, int64_t *pv){
  int64_t v = 0;
  if( i>=j || j-i>10 ) return -1;
  for(; i<j; i++){ if( !ft_digit(z[i]) ) return -1; v = v*10 + (z[i]-'0'); }
  *pv = v;
  return 0;
}

/* The escaped form: the bounds of line z[a..b) without a trailing "\n\" (or "\n" when
** bEsc) and trailing blanks. */
static size_t ft_line_end(const char *z, size_t a, size_t b, int bEsc){
  if( b-a>=3 && z[b-1]=='\\' && z[b-2]=='n' && z[b-3]=='\\' ) b -= 3;
  else if( bEsc && b-a>=2 && z[b-1]=='n' && z[b-2]=='\\' ) b -= 2;
  while( b>a && (ft_ws(z[b-1]) || z[b-1]=='\r') ) b--;
  return b;
}

/* ---------------------------------------------------------------- one event line */

typedef struct FtLine {
  size_t commA, commB;
  int64_t tid;
  int64_t tgid;               /* FT_NOPID: "(-----)" or no column */
  int bTgid;                  /* the line has the TGID column */
  int64_t cpu;
  size_t flagsA, flagsB;      /* empty: no flag columns */
  int64_t ts;                 /* ns */
  size_t nameA, nameB;
  size_t bodyA, bodyB;
} FtLine;

/* "secs.frac:" at z[i..j) (frac 1..9 digits) into ns. */
static int ft_time(const char *z, size_t i, size_t j, int64_t *pNs){
  if( j-i<4 || z[j-1]!=':' ) return -1;
  j--;
  size_t k = i;
  while( k<j && ft_digit(z[k]) ) k++;
  if( k==i || k>=j || z[k]!='.' || k-i>10 ) return -1;     /* 10 digits: ns fit in int64 */
  int64_t s = 0, f = 0;
  for(size_t q=i; q<k; q++) s = s*10 + (z[q]-'0');
  size_t f0 = ++k;
  if( j-f0<1 || j-f0>9 ) return -1;
  for(; k<j; k++){ if( !ft_digit(z[k]) ) return -1; f = f*10 + (z[k]-'0'); }
  for(size_t d=j-f0; d<9; d++) f *= 10;
  if( s > (INT64_MAX - f)/1000000000 ) return -1;
  *pNs = s*1000000000 + f;
  return 0;
}

/* The task / TGID columns ending just before the '[' at q: 1 and fills L when they are there. */
static int ft_task(const char *z, size_t s, size_t q, FtLine *L){
  size_t k = q;
  while( k>s && ft_ws(z[k-1]) ) k--;
  L->bTgid = 0; L->tgid = FT_NOPID;
  if( k>s && z[k-1]==')' ){
    size_t e = k-1, o = e;
    while( o>s && e-o<16 && z[o-1]!='(' ) o--;
    if( o<=s || z[o-1]!='(' ) return 0;
    size_t c = o; while( c<e && ft_ws(z[c]) ) c++;
    size_t d = e; while( d>c && ft_ws(z[d-1]) ) d--;
    if( d==c ) return 0;
    if( z[c]=='-' ){
      for(size_t t=c; t<d; t++) if( z[t]!='-' ) return 0;
    }else if( ft_uint(z, c, d, &L->tgid) ) return 0;
    L->bTgid = 1;
    k = o-1;
    while( k>s && ft_ws(z[k-1]) ) k--;
  }
  size_t e = k;
  while( k>s && ft_digit(z[k-1]) ) k--;
  if( k==e || k<=s || z[k-1]!='-' || ft_uint(z, k, e, &L->tid) ) return 0;
  L->commA = s; L->commB = k-1;
  return 1;
}

/* Whether z[s..b) is the "cpus=N" line trace-cmd and atrace put before the events. */
static int ft_cpus_line(const char *z, size_t s, size_t b){
  if( b-s<6 || memcmp(z+s, "cpus=", 5)!=0 ) return 0;
  size_t k = s+5;
  while( k<b && ft_digit(z[k]) ) k++;
  while( k<b && ft_ws(z[k]) ) k++;
  return k==b && ft_digit(z[s+5]);
}

/* Reads an event line z[a..b) (already without its line end): 1 when it is one. */
static int ft_event(const char *z, size_t a, size_t b, FtLine *L){
  size_t s = a;
  while( s<b && ft_ws(z[s]) ) s++;
  if( s>=b || z[s]=='#' ) return 0;
  size_t i = s;
  for(;;){
    const char *p = i<b ? memchr(z+i, '[', b-i) : 0;
    if( p==0 ) return 0;
    size_t q = (size_t)(p-z), j = q+1;
    i = q+1;
    while( j<b && ft_digit(z[j]) ) j++;
    if( j==q+1 || j-q-1>6 || j>=b || z[j]!=']' || j+1>=b || !ft_ws(z[j+1]) ) continue;
    if( !ft_task(z, s, q, L) ) continue;
    ft_uint(z, q+1, j, &L->cpu);
    /* [flags] time */
    size_t t = j+1;
    while( t<b && ft_ws(z[t]) ) t++;
    size_t te = t; while( te<b && !ft_ws(z[te]) ) te++;
    L->flagsA = L->flagsB = t;
    if( ft_time(z, t, te, &L->ts) ){
      /* the irq-flags column (4 or 5 characters: irqs-off d/X/., need-resched, hard/softirq,
      ** preempt depth, migrate-disable), then the time; some writers leave no blank between
      ** the two ("....316.196720:"), as trace_processor's line pattern allows */
      size_t nf = (te-t>5 && !ft_digit(z[t+4])) ? 5 : 4;
      if( te-t>nf+1 && (z[t]=='d' || z[t]=='X' || z[t]=='.') && ft_time(z, t+nf, te, &L->ts)==0 ){
        L->flagsB = t+nf;
      }else{
        if( te-t>8 ) continue;
        L->flagsB = te;
        t = te; while( t<b && ft_ws(z[t]) ) t++;
        te = t; while( te<b && !ft_ws(z[te]) ) te++;
        if( ft_time(z, t, te, &L->ts) ) continue;
      }
    }
    /* function */
    t = te; while( t<b && ft_ws(z[t]) ) t++;
    te = t; while( te<b && !ft_ws(z[te]) ) te++;
    if( te==t ) return 0;
    L->nameA = t; L->nameB = te;
    if( z[te-1]==':' ) L->nameB--;
    if( L->nameB==L->nameA ) return 0;
    t = te; while( t<b && ft_ws(z[t]) ) t++;
    L->bodyA = t; L->bodyB = b;
    return 1;
  }
}

/* Is z[a..b) (the function column) n bytes equal to zLit? */
static int ft_is(const char *z, size_t a, size_t b, const char *zLit){
  size_t n = strlen(zLit);
  return b-a==n && memcmp(z+a, zLit, n)==0;
}

/* The marker text of a tracing_mark_write / 0 / print line, or 0 when it is another event. */
static int ft_marker(const char *z, const FtLine *L, size_t *pA, size_t *pB){
  size_t a = L->bodyA, b = L->bodyB;
  if( ft_is(z, L->nameA, L->nameB, "print") ){
    /* "ip: text": the text after the first ": " */
    for(size_t k=a; k+1<b; k++) if( z[k]==':' && z[k+1]==' ' ){ a = k+2; break; }
  }else if( !ft_is(z, L->nameA, L->nameB, "tracing_mark_write") && !ft_is(z, L->nameA, L->nameB, "0") ){
    return 0;
  }
  *pA = a; *pB = b;
  return 1;
}

/* ---------------------------------------------------------------- maps */

/* Open-addressing map (k1, k2) -> (v1, v2); k1 = k2 = 0 is never a key (keys get +1). */
typedef struct FtSlot { uint64_t k1, k2; int64_t v1, v2; } FtSlot;
typedef struct FtMap { FtSlot *a; size_t n, nUsed; } FtMap;

/* (keyed: ps_util.h) */
static uint64_t ft_mix(uint64_t k1, uint64_t k2){
  return ps_hash_pair(k1, k2);
}

/* The slot of (k1, k2); *pbNew = 1 when it was added (v1 = v2 = 0). NULL when out of memory. */
static FtSlot *ft_map(FtMap *m, uint64_t k1, uint64_t k2, int *pbNew){
  k1++;
  if( (m->nUsed+1)*2 > m->n ){
    size_t n2 = m->n ? m->n*2 : 256;
    FtSlot *a2 = calloc(n2, sizeof(FtSlot));
    if( a2==0 ) return 0;
    for(size_t i=0; i<m->n; i++) if( m->a[i].k1 ){
      size_t h = ft_mix(m->a[i].k1, m->a[i].k2) & (n2-1);
      ps_nProbe++;
      while( a2[h].k1 ){ h = (h+1) & (n2-1); ps_nProbe++; }
      a2[h] = m->a[i];
    }
    free(m->a); m->a = a2; m->n = n2;
  }
  size_t h = ft_mix(k1, k2) & (m->n-1);
  ps_nProbe++;
  while( m->a[h].k1 ){
    if( m->a[h].k1==k1 && m->a[h].k2==k2 ){ *pbNew = 0; return &m->a[h]; }
    h = (h+1) & (m->n-1);
    ps_nProbe++;
  }
  m->a[h].k1 = k1; m->a[h].k2 = k2; m->nUsed++;
  *pbNew = 1;
  return &m->a[h];
}

/* ---------------------------------------------------------------- the parser */

typedef struct FtCache { const char *z; uint32_t n, id; } FtCache;

typedef struct FtOpen { int32_t row, prev; uint32_t line; } FtOpen;   /* an open B or S */

typedef struct FtCpu { int32_t open; int32_t track; } FtCpu;           /* row+1, track+1 */

/* cap->pFmtData: what the lazy hooks need. Rows [iRow0, ...) were read from z[0..n): the
** capture's source bytes, or ftrace text embedded in a Chrome capture (ps_ftrace_read). */
typedef struct FtFmt { const char *z; size_t n; size_t iRow0; int bEsc; } FtFmt;

typedef struct Ft {
  PsCapture *cap;
  const char *z;
  size_t iRow0;                  /* the first row this reader made */
  FtCache aCache[FT_CACHE];
  int64_t *aTid, *aPid;          /* per row until threads are made */
  size_t nTidAlloc, nPidAlloc;
  FtMap tids;                    /* tid -> (pid learned + 1 or 0, comm id) */
  FtMap stacks;                  /* tid -> top FtOpen + 1 of B slices */
  FtMap keys;                    /* async (pid,name,cookie) / counter (pid,name) -> track+1, open+1 */
  FtOpen *aOpen; size_t nOpen, nOpenAlloc;
  FtCpu *aCpu; size_t nCpu;
  uint32_t idFtrace, idAtrace, idSched;
  int64_t tsMax;
  int bAnyTs;
} Ft;

/* Interns z[a..b) through the cache. */
static int ft_name(Ft *p, size_t a, size_t b, const char *zField, uint32_t *pId){
  const char *z = p->z + a;
  uint32_t n = (uint32_t)(b-a);
  unsigned h = n ? (n*31u + (unsigned char)z[0]*7u + (unsigned char)z[n-1]*131u + (unsigned char)z[n/2]*17u) & (FT_CACHE-1) : 0;
  FtCache *c = &p->aCache[h];
  if( c->z && c->n==n && memcmp(c->z, z, n)==0 ){ *pId = c->id; return PS_OK; }
  if( ps_intern(p->cap, z, n, (int64_t)a, zField, pId) ) return PS_NOMEM;
  c->z = z; c->n = n; c->id = *pId;
  return PS_OK;
}

static int64_t ft_row(Ft *p, const FtLine *L, size_t off, uint32_t name, uint32_t cat, char ph,
                      int64_t pid, int64_t tid){
  PsCapture *cap = p->cap;
  int64_t r = ps_events_add(cap);
  if( r<0 ) return -1;
  size_t k = (size_t)r - p->iRow0;
  if( ps_grow((void**)&p->aTid, sizeof(int64_t), &p->nTidAlloc, k+1)
   || ps_grow((void**)&p->aPid, sizeof(int64_t), &p->nPidAlloc, k+1) ) return -1;
  PsEvents *e = &cap->ev;
  e->aTs[r] = L->ts; e->aOff[r] = off; e->aName[r] = name; e->aCat[r] = cat;
  e->aPh[r] = (uint8_t)ph; e->aCpu[r] = (int32_t)L->cpu; e->aTrack[r] = UINT32_MAX;
  p->aTid[k] = tid; p->aPid[k] = pid;
  return r;
}

/* Remembers the tid's comm and pid (the first known). The comm is the first one of the task
** column (bTask), else the first next_comm of a sched_switch. */
#define FT_TASK_COMM ((int64_t)1<<40)
static int ft_learn(Ft *p, int64_t tid, int64_t pid, uint32_t comm, int bTask){
  int bNew;
  FtSlot *s = ft_map(&p->tids, (uint64_t)tid, 0, &bNew);
  if( s==0 ) return PS_NOMEM;
  if( s->v1==0 && pid!=FT_NOPID ) s->v1 = pid + 1;
  if( comm && (s->v2==0 || (bTask && !(s->v2 & FT_TASK_COMM))) ) s->v2 = comm | (bTask ? FT_TASK_COMM : 0);
  return PS_OK;
}

/* The track for key (k1, k2) (made on first use with a name from zFmt). */
static int64_t ft_keyed_track(Ft *p, int kind, uint64_t k1, uint64_t k2, int64_t pid, int64_t tid,
                              uint32_t nameId, const char *zExtra, size_t nExtra, FtSlot **ppSlot){
  int bNew;
  FtSlot *s = ft_map(&p->keys, k1, k2, &bNew);
  if( s==0 ) return -1;
  *ppSlot = s;
  if( !bNew ) return s->v1 - 1;
  PsCapture *cap = p->cap;
  PsValue vp, vt; memset(&vp, 0, sizeof(vp)); memset(&vt, 0, sizeof(vt));
  vp.type = vt.type = PS_VAL_INT; vp.i = pid; vt.i = tid;
  int64_t th = ps_thread_get(cap, &vp, &vt);
  if( th<0 ) return -1;
  PsStr nm = ps_pool_get(&cap->pool, nameId);
  char buf[400];
  int k = snprintf(buf, sizeof(buf), "atrace %s pid=%lld name=%.*s%s%.*s",
                   kind==PS_TRACK_ASYNC ? "async" : "counter", (long long)pid,
                   (int)(nm.n>200?200:nm.n), nm.z ? nm.z : "", nExtra ? " cookie=" : "",
                   (int)(nExtra>100?100:nExtra), zExtra ? zExtra : "");
  if( k<0 ) return -1;
  if( k>=(int)sizeof(buf) ) k = (int)sizeof(buf)-1;
  uint32_t id;
  if( ps_intern(cap, buf, (size_t)k, -1, "a track name", &id) ) return -1;
  int64_t t = ps_track_add(cap, kind, (uint32_t)th, id);
  if( t<0 ) return -1;
  cap->aTrack[t].scope = PS_SCOPE_PROCESS;     /* atrace async and counter tracks are per pid */
  s = ft_map(&p->keys, k1, k2, &bNew);    /* (the map did not grow: same slot) */
  s->v1 = t + 1;
  *ppSlot = s;
  return t;
}

/* Splits "P|rest" at z[*pi..b): the pid into *pPid and *pi past its '|'; -1 if not one. */
static int ft_field(const char *z, size_t *pi, size_t b, size_t *pA, size_t *pB){
  size_t i = *pi, k = i;
  while( k<b && z[k]!='|' ) k++;
  *pA = i; *pB = k;
  *pi = k<b ? k+1 : b;
  return 0;
}

/* An atrace marker z[a..b) of line L: makes its row. 1 when it is a marker, 0 when not (the line
** is then a raw event), -1 out of memory. */
static int ft_atrace(Ft *p, const FtLine *L, size_t off, uint32_t line, size_t a, size_t b){
  const char *z = p->z;
  PsCapture *cap = p->cap;
  if( b-a<1 ) return 0;
  char c = z[a];
  if( c=='E' && (b-a==1 || z[a+1]=='|') ){
    int bNew;
    FtSlot *s = ft_map(&p->stacks, (uint64_t)L->tid, 0, &bNew);
    if( s==0 ) return -1;
    if( s->v1==0 ){
      return ps_diag(cap, PS_DIAG_UNMATCHED_END, (int64_t)off, "line %u: E of tid %lld without an open B",
                     line, (long long)L->tid) ? -1 : 1;
    }
    FtOpen *o = &p->aOpen[s->v1-1];
    int64_t d = L->ts - cap->ev.aTs[o->row];
    if( d<0 ){
      if( ps_diag(cap, PS_DIAG_OTHER, (int64_t)off, "line %u: E is earlier than its B (line %u); dur 0",
                  line, o->line) ) return -1;
      d = 0;
    }
    cap->ev.aDur[o->row] = d;
    s->v1 = o->prev;
    o->row = -1;
    return 1;
  }
  if( b-a<3 || z[a+1]!='|' || (c!='B' && c!='S' && c!='F' && c!='C') ) return 0;
  size_t i = a+2, pA, pB, nA, nB, vA = b, vB = b;
  int64_t pid;
  ft_field(z, &i, b, &pA, &pB);
  if( ft_uint(z, pA, pB, &pid) ) return 0;
  if( c=='B' ){ nA = i; nB = b; }
  else{
    if( i>=b ) return 0;
    ft_field(z, &i, b, &nA, &nB);
    if( i>=b && z[b-1]!='|' ) return 0;        /* no value / cookie */
    ft_field(z, &i, b, &vA, &vB);
  }
  uint32_t name;
  if( ft_name(p, nA, nB, "an atrace name", &name) ) return -1;
  if( c=='F' ){
    uint32_t ck;
    if( ps_intern(cap, z+vA, vB-vA, (int64_t)vA, "a cookie", &ck) ) return -1;
    int bNew;
    FtSlot *s = ft_map(&p->keys, ((uint64_t)pid<<32) | name, (uint64_t)ck | (2ull<<40), &bNew);
    if( s==0 ) return -1;
    if( s->v2==0 ){
      return ps_diag(cap, PS_DIAG_UNMATCHED_END, (int64_t)off, "line %u: F of '%.*s' cookie %.*s without an open S",
                     line, (int)(nB-nA>80?80:nB-nA), z+nA, (int)(vB-vA>40?40:vB-vA), z+vA) ? -1 : 1;
    }
    FtOpen *o = &p->aOpen[s->v2-1];
    int64_t d = L->ts - cap->ev.aTs[o->row];
    if( d<0 ){
      if( ps_diag(cap, PS_DIAG_OTHER, (int64_t)off, "line %u: F is earlier than its S (line %u); dur 0",
                  line, o->line) ) return -1;
      d = 0;
    }
    cap->ev.aDur[o->row] = d;
    s->v2 = o->prev;
    o->row = -1;
    return 1;
  }
  int64_t r = ft_row(p, L, off, name, p->idAtrace, c=='B' ? 'B' : c=='S' ? 'b' : 'C', pid, L->tid);
  if( r<0 || ft_learn(p, L->tid, pid, 0, 0) ) return -1;
  if( c=='C' ){
    FtSlot *s;
    int64_t t = ft_keyed_track(p, PS_TRACK_COUNTER, ((uint64_t)pid<<32) | name, 1ull<<40, pid, L->tid, name, 0, 0, &s);
    if( t<0 ) return -1;
    cap->ev.aTrack[r] = (uint32_t)t;
    cap->ev.aFlags[r] = PS_EV_FMT2;
    return 1;
  }
  if( ps_grow((void**)&p->aOpen, sizeof(FtOpen), &p->nOpenAlloc, p->nOpen+1) ) return -1;
  FtOpen *o = &p->aOpen[p->nOpen];
  o->row = (int32_t)r; o->line = line;
  cap->ev.aFlags[r] = PS_EV_SLICE | PS_EV_FMT2;
  FtSlot *s;
  if( c=='B' ){
    int bNew;
    s = ft_map(&p->stacks, (uint64_t)L->tid, 0, &bNew);
    if( s==0 ) return -1;
    o->prev = (int32_t)s->v1;
    s->v1 = (int64_t)++p->nOpen;
  }else{
    uint32_t ck;
    if( ps_intern(cap, z+vA, vB-vA, (int64_t)vA, "a cookie", &ck) ) return -1;
    int64_t t = ft_keyed_track(p, PS_TRACK_ASYNC, ((uint64_t)pid<<32) | name, (uint64_t)ck | (2ull<<40),
                               pid, L->tid, name, z+vA, vB-vA, &s);
    if( t<0 ) return -1;
    cap->ev.aTrack[r] = (uint32_t)t;
    o = &p->aOpen[p->nOpen];
    o->prev = (int32_t)s->v2;
    s->v2 = (int64_t)++p->nOpen;
  }
  return 1;
}

/* A sched_switch line: ends the CPU's running interval and starts the next one. */
static int ft_switch(Ft *p, const FtLine *L, size_t off, uint32_t line){
  const char *z = p->z;
  PsCapture *cap = p->cap;
  size_t a = L->bodyA, b = L->bodyB, cA = 0, pA = 0, k;
  for(k=a; k+10<=b; k++){
    if( z[k]=='n' && memcmp(z+k, "next_comm=", 10)==0 && (k==a || z[k-1]==' ') ){ cA = k+10; break; }
  }
  for(k=b; cA && k>cA+9; k--){
    if( z[k-10]==' ' && memcmp(z+k-9, "next_pid=", 9)==0 ){ pA = k; break; }
  }
  size_t pB = pA;
  while( pB<b && ft_digit(z[pB]) ) pB++;
  int64_t tid;
  if( cA==0 || pA==0 || ft_uint(z, pA, pB, &tid) ){
    return ps_diag(cap, PS_DIAG_UNPARSED, (int64_t)off, "line %u: sched_switch without next_comm= and next_pid=; "
                   "no CPU interval", line);
  }
  if( L->cpu >= FT_MAX_CPU ) return PS_OK;
  if( (size_t)L->cpu >= p->nCpu ){
    size_t n2 = (size_t)L->cpu + 1;
    FtCpu *a2 = realloc(p->aCpu, n2*sizeof(FtCpu));
    if( a2==0 ) return PS_NOMEM;
    memset(a2 + p->nCpu, 0, (n2 - p->nCpu)*sizeof(FtCpu));
    p->aCpu = a2; p->nCpu = n2;
  }
  FtCpu *c = &p->aCpu[L->cpu];
  if( c->open ){
    int32_t r = c->open-1;
    int64_t d = L->ts - cap->ev.aTs[r];
    if( d<0 ){
      if( ps_diag(cap, PS_DIAG_OTHER, (int64_t)off, "line %u: time goes back on cpu %lld; the interval "
                  "before gets dur 0", line, (long long)L->cpu) ) return PS_NOMEM;
      d = 0;
    }
    cap->ev.aDur[r] = d;
    cap->ev.aEndOff[r] = off + 1;       /* +1: 0 means none */
  }
  if( c->track==0 ){
    char buf[32];
    int nb = snprintf(buf, sizeof(buf), "cpu %lld", (long long)L->cpu);
    uint32_t id;
    if( ps_intern(cap, buf, (size_t)nb, -1, "a track name", &id) ) return PS_NOMEM;
    int64_t t = ps_track_add(cap, PS_TRACK_CPU, 0, id);
    if( t<0 ) return PS_NOMEM;
    cap->aTrack[t].scope = PS_SCOPE_CPU;
    cap->aTrack[t].cpu = (int32_t)L->cpu;
    c->track = (int32_t)t + 1;
  }
  uint32_t name;
  if( ft_name(p, cA, pA-10, "next_comm", &name) ) return PS_NOMEM;
  int64_t r = ft_row(p, L, off, name, p->idSched, 'X', FT_NOPID, tid);
  if( r<0 ) return PS_NOMEM;
  cap->ev.aTrack[r] = (uint32_t)(c->track-1);
  cap->ev.aFlags[r] = PS_EV_SLICE | PS_EV_FMT1;
  c->open = (int32_t)r + 1;
  return ft_learn(p, tid, FT_NOPID, name, 0);
}

/* A '#' header line z[a..b). */
static int ft_header(Ft *p, size_t a, size_t b){
  const char *z = p->z;
  PsCapture *cap = p->cap;
  size_t i = a;
  while( i<b && (z[i]=='#' || ft_ws(z[i])) ) i++;
  if( i>=b ) return PS_OK;
  if( b-i>=7 && memcmp(z+i, "tracer:", 7)==0 ){
    size_t v = i+7; while( v<b && ft_ws(z[v]) ) v++;
    return ps_meta_text(cap, "ftrace", "tracer", z+v, b-v, PS_META_TEXT, (int64_t)a);
  }
  if( b-i>=34 && memcmp(z+i, "entries-in-buffer/entries-written:", 34)==0 ){
    size_t k = i+34, e; int64_t v;
    while( k<b && ft_ws(z[k]) ) k++;
    e = k; while( e<b && ft_digit(z[e]) ) e++;
    if( ft_uint(z, k, e, &v)==0 && ps_meta_int(cap, "ftrace", "entries-in-buffer", v, (int64_t)a) ) return PS_NOMEM;
    if( e<b && z[e]=='/' ){
      k = e+1; e = k; while( e<b && ft_digit(z[e]) ) e++;
      if( ft_uint(z, k, e, &v)==0 && ps_meta_int(cap, "ftrace", "entries-written", v, (int64_t)a) ) return PS_NOMEM;
    }
    for(; e+3<b; e++) if( z[e]=='#' && z[e+1]=='P' && z[e+2]==':' ){
      k = e+3; e = k; while( e<b && ft_digit(z[e]) ) e++;
      if( ft_uint(z, k, e, &v)==0 && ps_meta_int(cap, "ftrace", "#P", v, (int64_t)a) ) return PS_NOMEM;
      break;
    }
    return PS_OK;
  }
  return ps_meta_text(cap, "ftrace", "header", z+a, b-a, PS_META_TEXT, (int64_t)a);
}

/* After the lines: threads for every row, the open intervals and slices. */
static int ft_finish(Ft *p, uint32_t nLine){
  PsCapture *cap = p->cap;
  PsEvents *e = &cap->ev;
  (void)nLine;
  int64_t lastPid = 0, lastTid = 0, lastTh = -1;
  uint8_t *bSet = calloc(cap->nTrack+1, 1);
  if( bSet==0 ) return PS_NOMEM;
  for(size_t r=p->iRow0; r<e->n; r++){
    int64_t tid = p->aTid[r-p->iRow0], pid = p->aPid[r-p->iRow0];
    if( pid==FT_NOPID ){
      int bNew;
      FtSlot *s = ft_map(&p->tids, (uint64_t)tid, 0, &bNew);
      if( s==0 ){ free(bSet); return PS_NOMEM; }
      if( s->v1 ) pid = s->v1 - 1;
    }
    if( lastTh<0 || pid!=lastPid || tid!=lastTid ){
      PsValue vp, vt; memset(&vp, 0, sizeof(vp)); memset(&vt, 0, sizeof(vt));
      if( pid!=FT_NOPID ){ vp.type = PS_VAL_INT; vp.i = pid; }
      vt.type = PS_VAL_INT; vt.i = tid;
      size_t n0 = cap->nThread;
      lastTh = ps_thread_get(cap, &vp, &vt);
      if( lastTh<0 ){ free(bSet); return PS_NOMEM; }
      lastPid = pid; lastTid = tid;
      if( cap->aThread[lastTh].threadName==0 || cap->nThread>n0 ){
        int bNew;
        FtSlot *s = ft_map(&p->tids, (uint64_t)tid, 0, &bNew);
        if( s==0 ){ free(bSet); return PS_NOMEM; }
        cap->aThread[lastTh].threadName = (uint32_t)(s->v2 & ~FT_TASK_COMM);
      }
    }
    e->aThread[r] = (uint32_t)lastTh;
    if( e->aTrack[r]==UINT32_MAX ) e->aTrack[r] = cap->aThread[lastTh].track;
    else if( bSet && !bSet[e->aTrack[r]] ){
      bSet[e->aTrack[r]] = 1;               /* a CPU / async / counter track: its first row's thread */
      cap->aTrack[e->aTrack[r]].thread = (uint32_t)lastTh;
    }
  }
  free(bSet);
  for(size_t c=0; c<p->nCpu; c++){
    if( p->aCpu[c].open ){
      int32_t r = p->aCpu[c].open-1;
      e->aDur[r] = p->tsMax - e->aTs[r];
    }
  }
  for(size_t k=0; k<p->nOpen; k++){
    FtOpen *o = &p->aOpen[k];
    if( o->row<0 ) continue;
    PsStr s = ps_pool_get(&cap->pool, e->aName[o->row]);
    if( ps_diag(cap, PS_DIAG_UNCLOSED, (int64_t)e->aOff[o->row], "line %u: %s of '%.*s' is never ended; dur is NULL",
                o->line, e->aPh[o->row]=='B' ? "B" : "S", (int)(s.n>80?80:s.n), s.z ? s.z : "") ) return PS_NOMEM;
  }
  return PS_OK;
}

/* Reads the ftrace text z[0..n) into cap, after the rows it already has; *pnEvents = the event
** lines read. Does not nest (the caller runs ps_capture_nest once over every row). */
static int ft_read(PsCapture *cap, const char *z, size_t n, size_t *pnEvents, PsErr *err){
  size_t i = 0, a, b;
  int bSource = z==cap->src.z;           /* reading the source itself: its pages can be released */
  Ft P;
  memset(&P, 0, sizeof(P));
  P.cap = cap; P.z = z; P.iRow0 = cap->ev.n;
  int rc = PS_OK;
  FtFmt *pFmt = ps_arena_alloc(&cap->arena, sizeof(FtFmt));
  if( pFmt==0 ) return ps_nomem(err);
  memset(pFmt, 0, sizeof(*pFmt));
  pFmt->z = z; pFmt->n = n; pFmt->iRow0 = P.iRow0;
  cap->pFmtData = pFmt;
  if( ps_events_want_cpu(cap) || ps_events_want_endoff(cap)
   || ps_intern(cap, "ftrace", 6, -1, "cat", &P.idFtrace)
   || ps_intern(cap, "atrace", 6, -1, "cat", &P.idAtrace)
   || ps_intern(cap, "sched", 5, -1, "cat", &P.idSched) ) return ps_nomem(err);
  uint32_t line = 0;
  size_t nEvents = 0, nHeader = 0;
  int bFirst = 1;
  while( rc==PS_OK && ps_next_line(z, n, &i, &a, &b) ){
    line++;
    if( (line & 0xFFFF)==0 && bSource ) ps_source_done_before(&cap->src, a);
    if( ps_work(&cap->src, b - a + 1) ){ rc = ps_interrupted(err); break; }   /* by bytes read */
    if( bFirst && b-a>=3 && z[b-1]=='\\' && z[b-2]=='n' && z[b-3]=='\\' ) pFmt->bEsc = 1;
    b = ft_line_end(z, a, b, pFmt->bEsc);
    size_t s = a;
    while( s<b && ft_ws(z[s]) ) s++;
    if( s>=b ) continue;
    if( bFirst && ft_cpus_line(z, s, b) ){
      bFirst = 0; nHeader++;
      int64_t v;
      size_t k = s+5; while( k<b && ft_digit(z[k]) ) k++;
      if( ft_uint(z, s+5, k, &v)==0 ) rc = ps_meta_int(cap, "ftrace", "cpus", v, (int64_t)s);
      continue;
    }
    bFirst = 0;
    if( z[s]=='#' ){ nHeader++; rc = ft_header(&P, s, b); continue; }
    FtLine L;
    if( !ft_event(z, a, b, &L) ){
      if( b-s>4 && memcmp(z+s, "CPU:", 4)==0 && memchr(z+s, 'L', b-s) ){
        rc = ps_meta_text(cap, "ftrace", "lost_events", z+s, b-s, PS_META_TEXT, (int64_t)s);
        continue;
      }
      rc = ps_diag(cap, PS_DIAG_UNPARSED, (int64_t)a, "line %u: not an ftrace event line: %.*s",
                   line, (int)(b-s>60?60:b-s), z+s);
      continue;
    }
    nEvents++;
    if( !P.bAnyTs || L.ts>P.tsMax ){ P.tsMax = L.ts; P.bAnyTs = 1; }
    uint32_t comm = 0;
    /* "<...>": the kernel did not know the task's comm when it wrote the line (not a name) */
    int bUnknown = L.commB-L.commA==5 && memcmp(z+L.commA, "<...>", 5)==0;
    if( (!bUnknown && ft_name(&P, L.commA, L.commB, "a comm", &comm)) || ft_learn(&P, L.tid, L.tgid, comm, 1) ){ rc = PS_NOMEM; break; }
    size_t mA, mB;
    if( ft_marker(z, &L, &mA, &mB) ){
      int k = ft_atrace(&P, &L, a, line, mA, mB);
      if( k<0 ){ rc = PS_NOMEM; break; }
      if( k>0 ){
        continue;
      }
      if( mB-mA>=23 && memcmp(z+mA, "trace_event_clock_sync:", 23)==0 ){
        size_t v = mA+23; while( v<mB && ft_ws(z[v]) ) v++;
        if( ps_meta_text(cap, "ftrace", "trace_event_clock_sync", z+v, mB-v, PS_META_TEXT, (int64_t)a) ){ rc = PS_NOMEM; break; }
      }
    }
    uint32_t name;
    if( ft_name(&P, L.nameA, L.nameB, "an event name", &name) ){ rc = PS_NOMEM; break; }
    int64_t r = ft_row(&P, &L, a, name, P.idFtrace, 'i', L.tgid, L.tid);
    if( r<0 ){ rc = PS_NOMEM; break; }
    cap->ev.aDur[r] = 0;
    cap->ev.aFlags[r] = PS_EV_POINT;
    if( ft_is(z, L.nameA, L.nameB, "sched_switch") ) rc = ft_switch(&P, &L, a, line);
  }
  if( rc==PS_OK && nEvents==0 && nHeader==0 ) rc = ps_err(err, "no ftrace event or '#' header line found");
  if( rc==PS_OK ) rc = ft_finish(&P, line);
  free(P.aTid); free(P.aPid); free(P.tids.a); free(P.stacks.a); free(P.keys.a); free(P.aOpen); free(P.aCpu);
  if( rc==PS_NOMEM ) ps_nomem(err);
  *pnEvents = nEvents;
  return rc;
}

static int ft_parse(PsCapture *cap, PsErr *err){
  size_t nEvents = 0;
  int rc = ft_read(cap, cap->src.z, cap->src.n, &nEvents, err);
  if( rc==PS_OK && ps_meta_int(cap, "capture", "events", (int64_t)nEvents, -1) ) rc = ps_nomem(err);
  if( rc==PS_OK ) rc = ps_capture_nest(cap, err);
  return rc;
}

int ps_ftrace_read(PsCapture *cap, const char *z, size_t n, PsErr *err){
  size_t nEvents = 0, iRow0 = cap->ev.n;
  int rc = ft_read(cap, z, n, &nEvents, err);
  if( rc==PS_OK && ps_meta_int(cap, "ftrace", "events", (int64_t)nEvents, -1) ) rc = ps_nomem(err);
  if( rc==PS_OK ){ cap->bFtrace = 1; cap->iFtraceRow = iRow0; }
  return rc;
}

/* ---------------------------------------------------------------- args (lazy) */

/* The line at byte off, without its line end (the escaped form too); *pB its end. */
static size_t ft_line_at(const FtFmt *f, uint64_t off, size_t *pB){
  const char *z = f->z;
  size_t n = f->n, a = (size_t)off;
  if( a>=n ){ *pB = a; return a; }
  const char *e = memchr(z+a, '\n', n-a);
  size_t b = e ? (size_t)(e-z) : n;
  *pB = ft_line_end(z, a, b, f->bEsc);
  return a;
}

static int ft_key(PsBuf *b, const char *zKey){
  if( b->n>1 && ps_buf_append(b, ",", 1) ) return -1;
  if( ps_buf_append(b, "\"", 1) || ps_buf_append(b, zKey, strlen(zKey)) || ps_buf_append(b, "\":", 2) ) return -1;
  return 0;
}

/* A value as a JSON number when it is a plain decimal integer (leading zeros allowed, as in
** "target_cpu=000"), else as a string. */
static int ft_value(PsBuf *b, const char *z, size_t n){
  size_t i = (n>0 && z[0]=='-') ? 1 : 0;
  if( n>i && n-i<=18 ){
    int64_t v = 0;
    size_t k = i;
    for(; k<n && ft_digit(z[k]); k++) v = v*10 + (z[k]-'0');
    if( k==n ){
      char t[32];
      int m = snprintf(t, sizeof(t), "%lld", (long long)(i ? -v : v));
      return ps_buf_append(b, t, (size_t)m);
    }
  }
  return ps_json_quote(b, z, n, 0);
}

/* Is z[k..b) the start of "key=" (a C identifier and '=')? Returns the '=' position or 0. */
static size_t ft_key_at(const char *z, size_t k, size_t b){
  size_t i = k;
  if( i>=b || !((z[i]>='a' && z[i]<='z') || (z[i]>='A' && z[i]<='Z') || z[i]=='_') ) return 0;
  while( i<b && ((z[i]>='a' && z[i]<='z') || (z[i]>='A' && z[i]<='Z') || z[i]=='_' || ft_digit(z[i])) ) i++;
  return (i<b && z[i]=='=') ? i : 0;
}

/* The "fields" object of body z[a..b) ("k=v k=v", values up to the next " key="; a "==>"
** token is a separator), or "text" when the body does not start with a key. */
static int ft_body_json(PsBuf *buf, const char *z, size_t a, size_t b){
  if( a>=b ) return 0;
  size_t eq = ft_key_at(z, a, b);
  if( eq==0 ){
    if( ft_key(buf, "text") ) return -1;
    return ps_json_quote(buf, z+a, b-a, 0);
  }
  if( ft_key(buf, "fields") || ps_buf_append(buf, "{", 1) ) return -1;
  size_t k = a, nOut = 0;
  while( k<b && (eq = ft_key_at(z, k, b))!=0 ){
    size_t v = eq+1, e = v, next = b;
    for(e=v; e<b; e++){
      if( z[e]==' ' && ft_key_at(z, e+1, b) ){ next = e+1; break; }
    }
    size_t ve = e;
    while( ve>v && ft_ws(z[ve-1]) ) ve--;
    if( ve-v>=4 && memcmp(z+ve-3, "==>", 3)==0 && z[ve-4]==' ' ){ ve -= 4; while( ve>v && ft_ws(z[ve-1]) ) ve--; }
    if( (nOut++ && ps_buf_append(buf, ",", 1)) || ps_json_quote(buf, z+k, eq-k, 0)
     || ps_buf_append(buf, ":", 1) || ft_value(buf, z+v, ve-v) ) return -1;
    k = next;
  }
  return ps_buf_append(buf, "}", 1);
}

/* The value of field zKey in body z[a..b) (*pV, *pE), 1 when found. */
static int ft_field_of(const char *z, size_t a, size_t b, const char *zKey, size_t *pV, size_t *pE){
  size_t nk = strlen(zKey);
  for(size_t k=a; k+nk<b; k++){
    if( (k==a || z[k-1]==' ') && z[k+nk]=='=' && memcmp(z+k, zKey, nk)==0 ){
      size_t e = k+nk+1;
      while( e<b && !ft_ws(z[e]) ) e++;
      *pV = k+nk+1; *pE = e;
      return 1;
    }
  }
  return 0;
}

int ps_ftrace_column(const PsCapture *cap, size_t row, int iCol, PsOut *o){
  memset(o, 0, sizeof(*o));
  const FtFmt *f = cap->pFmtData;
  if( iCol!=PS_COL_ARGS || f==0 || row<f->iRow0 ) return PS_OK;
  const char *z = f->z;
  size_t b, a = ft_line_at(f, cap->ev.aOff[row], &b);
  FtLine L;
  if( !ft_event(z, a, b, &L) ) return PS_OK;
  PsBuf buf = {0,0,0};
  int bad = ps_buf_append(&buf, "{", 1);
  uint8_t fl = cap->ev.aFlags[row];
  if( !bad && L.flagsB>L.flagsA && !(fl & PS_EV_FMT1) ) bad = ft_key(&buf, "flags") || ps_json_quote(&buf, z+L.flagsA, L.flagsB-L.flagsA, 0);
  if( !bad && (fl & PS_EV_FMT1) ){
    size_t v, e;
    if( ft_field_of(z, L.bodyA, L.bodyB, "next_prio", &v, &e) ) bad = ft_key(&buf, "prio") || ft_value(&buf, z+v, e-v);
    uint64_t endOff = cap->ev.aEndOff ? cap->ev.aEndOff[row] : 0;
    FtLine L2;
    size_t b2, a2 = endOff ? ft_line_at(f, endOff-1, &b2) : 0;
    if( !bad && endOff && ft_event(z, a2, b2, &L2) && ft_field_of(z, L2.bodyA, L2.bodyB, "prev_state", &v, &e) ){
      bad = ft_key(&buf, "prev_state") || ps_json_quote(&buf, z+v, e-v, 0);
    }else if( !bad && !endOff ){
      bad = ft_key(&buf, "until_end") || ps_buf_append(&buf, "true", 4);
    }
  }else if( !bad && (fl & PS_EV_FMT2) ){
    size_t mA, mB;
    if( ft_marker(z, &L, &mA, &mB) ){
      bad = ft_key(&buf, "marker") || ps_json_quote(&buf, z+mA, mB-mA, 0);
      char c = z[mA];
      if( !bad && (c=='C' || c=='S') ){
        /* the 4th '|' field: value / cookie */
        size_t k = mA, nBar = 0, vA = mB, vB = mB;
        for(; k<mB; k++) if( z[k]=='|' && ++nBar==3 ){ vA = k+1; break; }
        for(vB=vA; vB<mB && z[vB]!='|'; vB++){}
        if( vA<=mB ){
          if( c=='C' ) bad = ft_key(&buf, "value") || ft_value(&buf, z+vA, vB-vA);
          else bad = ft_key(&buf, "cookie") || ps_json_quote(&buf, z+vA, vB-vA, 0);
        }
      }
    }
  }else if( !bad ){
    bad = ft_body_json(&buf, z, L.bodyA, L.bodyB);
  }
  if( !bad ) bad = ps_buf_append(&buf, "}", 1);
  if( bad ){ ps_buf_free(&buf); return PS_NOMEM; }
  o->type = PS_META_JSON; o->z = buf.z; o->n = buf.n; o->zFree = buf.z;
  return PS_OK;
}

/* ---------------------------------------------------------------- detection */

/* 4: the first non-blank line is "# tracer:"; 3: '#' lines (or a first "cpus=N" line), then
** event lines (task-pid [cpu] ... secs.frac: name) for at least half of the first (up to 16)
** other lines, the first of them included. Looks at the first 8 KB. perf script lines ("comm  pid [cpu] secs: ...") have
** no "-pid" joined to the comm and are not claimed. */
static int ft_probe(const char *z, size_t n){
  if( n>8192 ) n = 8192;
  size_t i = 0, a, b, nLine = 0, nGood = 0;
  int bEsc = 0, bFirst = 1;
  while( nLine<16 && ps_next_line(z, n, &i, &a, &b) ){
    if( i>=n && n==8192 ) break;             /* a line cut by the window */
    if( bFirst && b-a>=3 && z[b-1]=='\\' && z[b-2]=='n' && z[b-3]=='\\' ) bEsc = 1;
    b = ft_line_end(z, a, b, bEsc);
    size_t s = a;
    while( s<b && ft_ws(z[s]) ) s++;
    if( s>=b ) continue;
    if( bFirst && b-s>=9 && memcmp(z+s, "# tracer:", 9)==0 ) return 4;
    if( bFirst && (z[s]=='{' || z[s]=='[') ) return 0;   /* JSON (a Chrome trace whose systemTraceEvents string holds ftrace lines) */
    if( bFirst && ft_cpus_line(z, s, b) ){ bFirst = 0; continue; }
    bFirst = 0;
    if( z[s]=='#' ) continue;
    FtLine L;
    int good = ft_event(z, a, b, &L);
    if( nLine==0 && !good ) return 0;
    nLine++; nGood += good;
  }
  /* the first event line good, and at least half of them (a multi-line print leaves lines of its
  ** text behind, kept as 'unparsed_line' diagnostics) */
  return (nLine>0 && nGood*2 >= nLine) ? 3 : 0;
}

const PsFormat ps_format_ftrace = { "ftrace", ft_probe, ft_parse, ps_ftrace_column, 0 };
