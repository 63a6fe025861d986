/*
** timings.c — parser for game-server timings reports: PocketMine-MP tree-style reports
** (`# FormatVersion 1` to 3; version 3's category lines end in " ThreadId: N") and the legacy
** v1 text report that PocketMine-MP, Spigot and Bukkit servers write.
**
** Follows the writers and the pmmp/timings viewer as recorded in shared/corpus/README.md
** ("Facts: PocketMine / Spigot timings text"):
**   category line   a line whose first byte is neither a space nor '#'
**   record line     indented: <name> Time: N Count: N [Avg: X] Violations: N
**                   [RecordId: N ParentRecordId: N|none TimerId: N [Ticks: N Peak: N]]
**                   (the name is everything before the first " Time: " from which the rest of
**                   the line parses; so names may hold '#', ':', '\', parentheses)
**   '# Key value'   report metadata (Version, PocketMine-MP, Entities, LivingEntities,
**                   FormatVersion, ...)
**   Sample time N (Xs)          the sample length in ns
**   <spigotConfig> ... </spigotConfig>   (Spigot appends spigot.yml after Sample time; also
**                   HTML-escaped) kept as one metadata value, never read as records or categories
** Lines end in LF or CRLF. A line that is none of these is kept as a diagnostic with its line
** number (the viewer drops such lines silently).
**
** FormatVersion (the viewer's rule, pmmp/timings lib/Parser/Parser.php; tm_format_version): the
** first line '# FormatVersion <digits>' (case-insensitive, found before the records are read, as
** it sits in the footer), else 0 (VERSION_INITIAL): a report with RecordIds and no such line is
** read as version 0, with an 'other' diagnostic. From version 3 (VERSION_THREAD_TIMINGS) a
** category line's " ThreadId: N" suffix gives the thread; below it the suffix stays in the
** category name. (Below 2, VERSION_PEAK_FIXED, the viewer shows no Peak: peak_ns keeps the number
** as written; sql/timings.sql leaves it out.) The version read is ('capture', 'format_version').
**
** Regrouping as the viewer does: a "** " prefix means "already counted by another timer" and
** goes to group 'Minecraft - Breakdown'; "Plugin: <P> Event: <E>" and "Task: <P> Runnable: <R>"
** go to group <P> (plugin <P>; split at the last separator, as the viewer's greedy pattern);
** categories 'Custom Timings' and 'Minecraft - ** indicates it's already counted by another
** timing' are group 'Minecraft'. Group and plugin names have HTML entities decoded (the viewer's
** htmlspecialchars_decode); `name` stays exactly as written.
**
** Tree: ParentRecordId links are resolved after the whole file is read (parents may come later);
** a parent that does not exist, or a cycle, is a diagnostic and never loops: such records get
** depth NULL (cycles) or become roots of their subtree (missing parent). self = time minus the
** children's time. Reports without ids have record ids in file order and no tree.
**
** What the format document (pmmp/timings docs/FILE_FORMAT.md) requires and a report lacks is an
** 'other' diagnostic, and the report is still read: no 'Minecraft' category ("MUST be present"),
** no 'Sample time' line (or 'Sample time 0'), no 'Full Server Tick' record (the viewer rejects
** the report).
**
** Derived figures (the viewer's lib/TimingsReport.php; tm_find_timers): ticks = Count of
** 'Server Tick Update Cycle', else of 'Full Server Tick', looked up as the viewer does in its
** list view (name without the "** " prefix, same-group records summed, of several groups the one
** whose first record comes last); average TPS = ticks / sample seconds; server load % = Full
** Server Tick time / sample time × 100. sql/timings.sql computes the same in SQL.
*/
#include "formats.h"
#include "../model/stacks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Tm {
  const char *z; size_t n;
  PsCapture *cap;
  PsErr *err;
  uint32_t category;          /* current category (pool id), 0 before the first */
  int64_t threadId;           /* " ThreadId: N" of the current category, or PS_NULL64 */
  int bTree;                  /* some record has a RecordId */
  int bMinecraft;             /* a 'Minecraft' category line was seen (tm_is_minecraft_category) */
  int64_t formatVersion;      /* the first '# FormatVersion N' line's N, or -1 (tm_format_version) */
  int64_t versionRead;        /* the version the report is read as: formatVersion, else 0 */
  char buf[3*200+1];           /* a '# Key' as a C string (ps_text_cstr) */
} Tm;

/* ---------------------------------------------------------------- small scanners */

/* Reads decimal digits at z[*pi] into *pv; 0 on success, -1 if none or overflow. */
static int tm_digits(const char *z, size_t n, size_t *pi, int64_t *pv){
  size_t i = *pi;
  uint64_t v = 0;
  if( i>=n || z[i]<'0' || z[i]>'9' ) return -1;
  while( i<n && z[i]>='0' && z[i]<='9' ){
    if( v > (uint64_t)(INT64_MAX - 9)/10 ) return -1;
    v = v*10 + (uint64_t)(z[i]-'0');
    i++;
  }
  *pi = i; *pv = (int64_t)v;
  return 0;
}

static int tm_lit(const char *z, size_t n, size_t *pi, const char *zLit){
  size_t k = strlen(zLit);
  if( *pi + k > n || memcmp(z + *pi, zLit, k)!=0 ) return -1;
  *pi += k;
  return 0;
}

typedef struct TmFields {
  int64_t time, count, violations, recordId, parentId, timerId, ticks, peak;
  size_t avgOff, avgLen;
} TmFields;

/* Parses "Time: ..." to the end of the line z[i..n). */
static int tm_tail(const char *z, size_t n, size_t i, TmFields *f){
  f->violations = f->recordId = f->parentId = f->timerId = f->ticks = f->peak = PS_NULL64;
  f->avgLen = 0;
  if( tm_lit(z, n, &i, "Time: ") || tm_digits(z, n, &i, &f->time) ) return -1;
  if( tm_lit(z, n, &i, " Count: ") || tm_digits(z, n, &i, &f->count) ) return -1;
  if( tm_lit(z, n, &i, " Avg: ")==0 ){
    size_t a = i;
    while( i<n && ((z[i]>='0' && z[i]<='9') || z[i]=='.') ) i++;
    if( i==a ) return -1;
    f->avgOff = a; f->avgLen = i-a;
  }
  if( i==n ) return 0;                       /* very early Bukkit: no Violations */
  if( tm_lit(z, n, &i, " Violations: ") || tm_digits(z, n, &i, &f->violations) ) return -1;
  if( i==n ) return 0;
  if( tm_lit(z, n, &i, " RecordId: ") || tm_digits(z, n, &i, &f->recordId) ) return -1;
  if( tm_lit(z, n, &i, " ParentRecordId: ") ) return -1;
  if( tm_lit(z, n, &i, "none") && tm_digits(z, n, &i, &f->parentId) ) return -1;
  if( tm_lit(z, n, &i, " TimerId: ") || tm_digits(z, n, &i, &f->timerId) ) return -1;
  if( i==n ) return 0;
  if( tm_lit(z, n, &i, " Ticks: ") || tm_digits(z, n, &i, &f->ticks) ) return -1;
  if( tm_lit(z, n, &i, " Peak: ") || tm_digits(z, n, &i, &f->peak) ) return -1;
  return i==n ? 0 : -1;
}

/* Finds the first occurrence of zNeedle in z[a..b), or -1. */
static int64_t tm_find(const char *z, size_t a, size_t b, const char *zNeedle){
  size_t k = strlen(zNeedle);
  for(size_t i=a; i+k<=b; i++){
    if( z[i]==zNeedle[0] && memcmp(z+i, zNeedle, k)==0 ) return (int64_t)i;
  }
  return -1;
}

/* The last occurrence of zNeedle in z[a..b) that has at least one byte after it in z[..b), or -1:
** where the viewer's greedy '^Plugin: (.+) Event: (.+)$' splits a name. */
static int64_t tm_find_last(const char *z, size_t a, size_t b, const char *zNeedle){
  size_t k = strlen(zNeedle);
  for(size_t i = b > k ? b-k : 0; i-- > a; ){
    if( i+k < b && z[i]==zNeedle[0] && memcmp(z+i, zNeedle, k)==0 ) return (int64_t)i;
  }
  return -1;
}

/* Interns z[0..n) with HTML entities decoded (&amp; &lt; &gt; &quot; &#039; &#39;). */
static uint32_t tm_intern_decoded(Tm *p, const char *z, size_t n){
  char stackBuf[512], *b = n < sizeof(stackBuf) ? stackBuf : malloc(n+1);
  if( b==0 ) return 0;
  size_t k = 0;
  for(size_t i=0; i<n; i++){
    static const struct { const char *e; char c; } ent[] = {
      {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&#039;", '\''}, {"&#39;", '\''}
    };
    int done = 0;
    if( z[i]=='&' ){
      for(size_t e=0; e<sizeof(ent)/sizeof(ent[0]); e++){
        size_t l = strlen(ent[e].e);
        if( i+l<=n && memcmp(z+i, ent[e].e, l)==0 ){ b[k++] = ent[e].c; i += l-1; done = 1; break; }
      }
    }
    if( !done ) b[k++] = z[i];
  }
  uint32_t id = ps_pool_intern(&p->cap->pool, b, k, 0);
  if( b!=stackBuf ) free(b);
  return id;
}

/* ---------------------------------------------------------------- lines */

/* The category lines that are Minecraft's own: 'Minecraft', and the two headers the viewer reads
** as it ('Custom Timings', old Bukkit's "Minecraft - ** indicates it's already counted by another
** timing", also HTML-escaped). */
static int tm_is_minecraft_category(const char *z, size_t n){
  return (n==9 && memcmp(z, "Minecraft", 9)==0)
      || (n==14 && memcmp(z, "Custom Timings", 14)==0)
      || (n>=23 && memcmp(z, "Minecraft - ** indicates", 23)==0);
}

static int tm_category(Tm *p, const char *z, size_t n){
  p->threadId = PS_NULL64;
  /* PM5 (FormatVersion 3, the viewer's VERSION_THREAD_TIMINGS): "<group> ThreadId: <id>": the
  ** last such suffix. Below version 3 the viewer keeps the suffix in the group name, so do we. */
  int64_t t = -1, f = -1;
  if( p->versionRead>=3 ){
    while( (f = tm_find(z, (size_t)(f+1), n, " ThreadId: "))>=0 ) t = f;
  }
  if( t>=0 ){
    size_t j = (size_t)t + 11;
    int64_t id;
    if( tm_digits(z, n, &j, &id)==0 && j==n ){ p->threadId = id; n = (size_t)t; }
  }
  if( tm_is_minecraft_category(z, n) ) p->bMinecraft = 1;
  return ps_intern(p->cap, z, n, n ? (int64_t)(z - p->z) : -1, "a category line", &p->category);
}

static int tm_is_minecraft_group(PsStr s){
  return (s.n==9 && memcmp(s.z, "Minecraft", 9)==0)
      || (s.n==21 && memcmp(s.z, "Minecraft - Breakdown", 21)==0)
      || (s.n==6 && memcmp(s.z, "Events", 6)==0);
}

/* The viewer's name rewriting: a name "** X" is group 'Minecraft - Breakdown'; "Plugin: <P>
** Event: <E>" and "Task: <P> Runnable: <R>" are group <P> (split where the viewer's greedy
** '^Plugin: (.+) Event: (.+)$' splits: the last separator with text on both sides). Returns 1 and
** sets the group (*pzg, *png) when the name decides it (*pzPlugin = <P>, or 0 for "** ");
** 0 otherwise. pzPlugin may be 0. */
static int tm_name_group(const char *zName, size_t nName, const char **pzg, size_t *png, const char **pzPlugin){
  int64_t e;
  if( pzPlugin ) *pzPlugin = 0;
  if( nName>=3 && memcmp(zName, "** ", 3)==0 ){
    *pzg = "Minecraft - Breakdown"; *png = 21;
    return 1;
  }
  if( nName>8 && memcmp(zName, "Plugin: ", 8)==0 && (e = tm_find_last(zName, 9, nName, " Event: "))>=0 ){
    *pzg = zName+8; *png = (size_t)e-8;
  }else if( nName>6 && memcmp(zName, "Task: ", 6)==0 && (e = tm_find_last(zName, 7, nName, " Runnable: "))>=0 ){
    *pzg = zName+6; *png = (size_t)e-6;
  }else{
    return 0;
  }
  if( pzPlugin ) *pzPlugin = *pzg;
  return 1;
}

/* A record line (z[0..n) is the line without its end, off its offset in the file). */
static int tm_record(Tm *p, const char *z, size_t n, size_t off, uint32_t line){
  size_t a = 0;
  while( a<n && (z[a]==' ' || z[a]=='\t') ) a++;
  TmFields f;
  int64_t at = -1;
  for(size_t s=a; s<n; ){
    int64_t k = tm_find(z, s, n, " Time: ");
    if( k<0 ) break;
    if( (size_t)k>a && tm_tail(z, n, (size_t)k+1, &f)==0 ){ at = k; break; }
    s = (size_t)k+1;
  }
  if( at<0 ){
    return ps_diag(p->cap, PS_DIAG_UNPARSED, (int64_t)off,
                   "line %u: not a timings record (expected '<name> Time: N Count: N ...'): %.*s",
                   line, (int)(n-a > 60 ? 60 : n-a), z+a);
  }
  PsCapture *cap = p->cap;
  if( ps_grow((void**)&cap->aRec, sizeof(PsRecord), &cap->nRecAlloc, cap->nRec+1) ) return PS_NOMEM;
  PsRecord *r = &cap->aRec[cap->nRec];
  memset(r, 0, sizeof(*r));
  const char *zName = z+a; size_t nName = (size_t)at - a;
  if( ps_intern(cap, zName, nName, (int64_t)(off + a), "a record name", &r->name) ) return PS_NOMEM;
  if( f.recordId!=PS_NULL64 ) p->bTree = 1;
  r->recordId = f.recordId!=PS_NULL64 ? f.recordId : (int64_t)cap->nRec + 1;
  r->parentId = f.parentId; r->timerId = f.timerId; r->threadId = p->threadId;
  r->time = f.time; r->count = f.count; r->violations = f.violations;
  r->ticks = f.ticks; r->peak = f.peak; r->self = PS_NULL64;
  r->avgOff = f.avgLen ? off + f.avgOff : 0; r->avgLen = (uint32_t)f.avgLen;
  r->line = line; r->parent = -1; r->depth = -1;
  r->category = p->category;
  const char *zPlugin;
  /* regrouping */
  PsStr cat = ps_pool_get(&cap->pool, p->category);
  const char *zg = cat.z ? cat.z : ""; size_t ng = cat.n;
  int bByName = tm_name_group(zName, nName, &zg, &ng, &zPlugin);
  if( !bByName && tm_is_minecraft_category(zg, ng) ){ zg = "Minecraft"; ng = 9; }
  r->group = tm_intern_decoded(p, zg, ng);
  if( r->group==0 ) return PS_NOMEM;
  if( zPlugin ){
    r->plugin = r->group;
  }else if( !bByName && cat.n ){
    /* records under a plugin's own category (a " ThreadId: N" suffix that FormatVersion < 3
    ** leaves in the category does not make Minecraft's own categories a plugin's) */
    size_t nc = cat.n;
    int64_t t = -1, f = -1;
    while( (f = tm_find(cat.z, (size_t)(f+1), cat.n, " ThreadId: "))>=0 ) t = f;
    if( t>=0 ){
      size_t j = (size_t)t + 11; int64_t id;
      if( tm_digits(cat.z, cat.n, &j, &id)==0 && j==cat.n ) nc = (size_t)t;
    }
    PsStr c = { cat.z, nc };
    if( !tm_is_minecraft_category(c.z, c.n) && !tm_is_minecraft_group(c) ) r->plugin = r->group;
  }
  cap->nRec++;
  return PS_OK;
}

/* "# Key value" */
static int tm_meta_line(Tm *p, const char *z, size_t n, size_t off){
  size_t i = 1;
  while( i<n && z[i]==' ' ) i++;
  size_t k0 = i;
  while( i<n && z[i]!=' ' ) i++;
  size_t k1 = i;
  while( i<n && z[i]==' ' ) i++;
  if( k1==k0 ) return PS_OK;
  size_t bad;
  ps_text_cstr(z+k0, k1-k0, 200, p->buf);
  if( !ps_text_check(z+k0, k1-k0, &bad) && ps_text_diag(p->cap, (int64_t)(off+k0+bad), "a '# Key'", z+k0, k1-k0, bad) ) return PS_NOMEM;
  if( strcmp(p->buf, "FormatVersion")==0 || strcmp(p->buf, "Entities")==0 || strcmp(p->buf, "LivingEntities")==0 ){
    size_t j = i; int64_t v;
    if( tm_digits(z, n, &j, &v)==0 && j==n ) return ps_meta_int(p->cap, "report", p->buf, v, (int64_t)off);
  }
  return ps_meta_text(p->cap, "report", p->buf, i<n ? z+i : 0, n-i, PS_META_TEXT, (int64_t)off);
}

/* ---------------------------------------------------------------- tree */

static int tm_tree(Tm *p){
  PsCapture *cap = p->cap;
  size_t n = cap->nRec;
  PsRecord *a = cap->aRec;
  if( !p->bTree ){
    for(size_t r=0; r<n; r++){ a[r].depth = 0; }
    return PS_OK;
  }
  if( ps_records_tree(cap, "RecordId", "ParentRecordId", p->err) ) return PS_NOMEM;
  /* self time; a difference beyond int64 ns (hostile Time values) leaves self NULL */
  for(size_t r=0; r<n; r++) a[r].self = a[r].time;
  for(size_t r=0; r<n; r++){
    if( a[r].parent<0 || a[r].depth<0 ) continue;
    PsRecord *q = &a[a[r].parent];
    if( q->self==PS_NULL64 ) continue;
    if( __builtin_sub_overflow(q->self, a[r].time, &q->self) || q->self==PS_NULL64 ){
      q->self = PS_NULL64;
      if( ps_diag(cap, PS_DIAG_OTHER, -1, "line %u: Time minus the children's Time is outside int64 ns; self_ns is NULL",
                  q->line) ) return ps_nomem(p->err);
    }
  }
  return PS_OK;
}

/* ---------------------------------------------------------------- derived figures */

/* The viewer (pmmp/timings lib/Parser/Parser.php) finds 'Full Server Tick' and 'Server Tick
** Update Cycle' in its list view: records keyed by group and by name without the "** " prefix
** (trimmed), same-key records summed, the groups in the order their first record comes; of the
** entries with the name, the one in the LAST such group wins (the loop assigns each match). A
** group is the record's group_name, and for records grouped by their category also the
** category's ThreadId (the viewer's group is the whole category line, FormatVersion 3). */
typedef struct TmKey { uint32_t group; int64_t thread; size_t idx; } TmKey;

static int tm_key_cmp(const void *a, const void *b){
  const TmKey *x = a, *y = b;
  if( x->group!=y->group ) return x->group < y->group ? -1 : 1;
  if( x->thread!=y->thread ) return x->thread < y->thread ? -1 : 1;
  return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The viewer's name of a record: without a "** " prefix and trailing blanks (the viewer trims
** the name; the leading ones are gone already). */
static PsStr tm_timer_name(PsCapture *cap, const PsRecord *r, int *pbStar){
  PsStr s = ps_pool_get(&cap->pool, r->name);
  *pbStar = s.n>=3 && memcmp(s.z, "** ", 3)==0;
  if( *pbStar ){ s.z += 3; s.n -= 3; }
  while( s.n>0 && (s.z[s.n-1]==' ' || s.z[s.n-1]=='\t' || s.z[s.n-1]=='\v') ) s.n--;
  return s;
}

typedef struct TmTimer {
  const char *zName;
  int bFound, bOverflow;
  size_t first;               /* the first record of the entry's group (its place in the order) */
  int64_t time, count;        /* summed over the entry's records */
} TmTimer;

/* Fills a[0..2) (names set) by the rule above; PS_NOMEM or PS_OK. */
static int tm_find_timers(PsCapture *cap, TmTimer *a, int nTimer){
  size_t n = cap->nRec;
  TmKey *k = malloc((n ? n : 1)*sizeof(TmKey));
  if( k==0 ) return PS_NOMEM;
  for(size_t r=0; r<n; r++){
    PsStr s = ps_pool_get(&cap->pool, cap->aRec[r].name);
    const char *zg; size_t ng;
    k[r].group = cap->aRec[r].group;
    /* grouped by its name ("** ", Plugin:, Task:): no thread in the viewer's group */
    k[r].thread = tm_name_group(s.z, s.n, &zg, &ng, 0) ? PS_NULL64 : cap->aRec[r].threadId;
    k[r].idx = r;
  }
  qsort(k, n, sizeof(TmKey), tm_key_cmp);
  for(size_t a0=0, b0; a0<n; a0=b0){
    for(b0=a0+1; b0<n && k[b0].group==k[a0].group && k[b0].thread==k[a0].thread; b0++){}
    for(int t=0; t<nTimer; t++){
      size_t kn = strlen(a[t].zName);
      int bHere = 0, bOver = 0;
      int64_t time = 0, count = 0;
      for(size_t j=a0; j<b0; j++){
        const PsRecord *r = &cap->aRec[k[j].idx];
        int bStar;
        PsStr s = tm_timer_name(cap, r, &bStar);
        if( s.n!=kn || memcmp(s.z, a[t].zName, kn)!=0 ) continue;
        bHere = 1;
        if( __builtin_add_overflow(time, r->time, &time) || __builtin_add_overflow(count, r->count, &count) ) bOver = 1;
      }
      if( bHere && (!a[t].bFound || k[a0].idx > a[t].first) ){
        a[t].bFound = 1; a[t].bOverflow = bOver; a[t].first = k[a0].idx;
        a[t].time = time; a[t].count = count;
      }
    }
  }
  free(k);
  return PS_OK;
}

static int tm_derived(Tm *p, int64_t sampleNs){
  PsCapture *cap = p->cap;
  TmTimer a[2] = { { "Server Tick Update Cycle", 0, 0, 0, 0, 0 }, { "Full Server Tick", 0, 0, 0, 0, 0 } };
  if( tm_find_timers(cap, a, 2) ) return PS_NOMEM;
  for(int t=0; t<2; t++){
    if( a[t].bFound && a[t].bOverflow ){
      a[t].bFound = 0;
      if( ps_diag(cap, PS_DIAG_OTHER, -1, "'%s': Time or Count summed over its records is outside int64; no figure from it", a[t].zName) ) return PS_NOMEM;
    }
  }
  const TmTimer *pFull = a[1].bFound ? &a[1] : 0;
  const TmTimer *pTicks = a[0].bFound ? &a[0] : pFull;
  if( pFull==0 && !a[1].bOverflow ){
    if( ps_diag(cap, PS_DIAG_OTHER, -1, "no 'Full Server Tick' record: the viewer rejects such a report; no load figure") ) return PS_NOMEM;
  }
  if( pTicks && ps_meta_int(cap, "derived", "ticks", pTicks->count, -1) ) return PS_NOMEM;
  if( sampleNs>0 ){
    double sec = (double)sampleNs / 1e9;
    if( pTicks && ps_meta_real(cap, "derived", "average_tps", (double)pTicks->count / sec, -1) ) return PS_NOMEM;
    if( pFull && ps_meta_real(cap, "derived", "server_load_pct", (double)pFull->time / (double)sampleNs * 100.0, -1) ) return PS_NOMEM;
  }
  return PS_OK;
}

/* ---------------------------------------------------------------- what the format requires */

/* The format document (pmmp/timings docs/FILE_FORMAT.md) requires a 'Minecraft' category and a
** 'Sample time' line; a report without them is still read, with an 'other' diagnostic each. A
** tree report (RecordIds) without a '# FormatVersion' line is read as FormatVersion 0, as the
** viewer does; a diagnostic says so. */
static int tm_checks(Tm *p, int64_t sampleNs){
  PsCapture *cap = p->cap;
  if( !p->bMinecraft && ps_diag(cap, PS_DIAG_OTHER, -1,
        "no 'Minecraft' category: the format document (pmmp/timings docs/FILE_FORMAT.md) says it "
        "MUST be present; the records are read as they are") ) return PS_NOMEM;
  if( sampleNs==PS_NULL64 ){
    if( ps_diag(cap, PS_DIAG_OTHER, -1,
          "no 'Sample time <ns> (<s>s)' line: the format document requires it (the viewer rejects "
          "the report); no TPS, server load or share of the sample") ) return PS_NOMEM;
  }else if( sampleNs==0 ){
    if( ps_diag(cap, PS_DIAG_OTHER, -1, "'Sample time 0': no TPS, server load or share of the sample") ) return PS_NOMEM;
  }
  if( p->bTree && p->formatVersion<0 && ps_diag(cap, PS_DIAG_OTHER, -1,
        "RecordIds but no '# FormatVersion N' line: read as FormatVersion 0, the viewer's default "
        "(a ' ThreadId: N' suffix stays in the category name; the viewer shows no Peak)") ) return PS_NOMEM;
  return PS_OK;
}

/* ---------------------------------------------------------------- format version */

/* The <spigotConfig> block Spigot appends (also HTML-escaped, as old viewer pastes kept it). */
static int tm_config_open(const char *l, size_t ln){
  return (ln>=14 && memcmp(l, "<spigotConfig>", 14)==0) || (ln>=20 && memcmp(l, "&lt;spigotConfig&gt;", 20)==0);
}
static int tm_config_close(const char *l, size_t ln){
  return tm_find(l, 0, ln, "</spigotConfig>")>=0 || tm_find(l, 0, ln, "&lt;/spigotConfig&gt;")>=0;
}

/* The version the report is read as, by the viewer's rule (pmmp/timings lib/Parser/Parser.php,
** before it reads any record): the first line '# FormatVersion <digits>' (the regex
** '^# FormatVersion (\d+)$', case-insensitive, CRLF allowed), else VERSION_INITIAL = 0. The
** versions: 1 the first tree reports (Peak counted across all of a tick's activations, so the
** viewer shows none), 2 VERSION_PEAK_FIXED, 3 VERSION_THREAD_TIMINGS (category lines end in
** " ThreadId: N"). The footer comes last, so this is a pass of its own over the '#' lines
** (outside the Spigot config block); it polls for interrupt as the main loop does. Sets
** p->formatVersion (-1: no such line) and p->versionRead; PS_OK or ps_interrupted(). */
static int tm_format_version(Tm *p, size_t i){
  size_t a, b;
  int bConfig = 0;
  p->formatVersion = -1;
  while( ps_next_line(p->z, p->n, &i, &a, &b) ){
    if( ps_work(&p->cap->src, b - a + 1) ) return ps_interrupted(p->err);   /* by bytes read */
    const char *l = p->z+a; size_t ln = b-a;
    if( bConfig ){ bConfig = !tm_config_close(l, ln); continue; }
    if( tm_config_open(l, ln) ){ bConfig = 1; continue; }
    if( ln>16 && l[0]=='#' && strncasecmp(l, "# FormatVersion ", 16)==0 ){
      size_t j = 16; uint64_t v = 0;
      while( j<ln && l[j]>='0' && l[j]<='9' ){
        v = v > (uint64_t)INT64_MAX/10 ? (uint64_t)INT64_MAX : v*10 + (uint64_t)(l[j]-'0');   /* PHP's (int) saturates */
        j++;
      }
      if( j==ln ){ p->formatVersion = v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v; break; }
    }
  }
  p->versionRead = p->formatVersion>=0 ? p->formatVersion : 0;
  return PS_OK;
}

/* ---------------------------------------------------------------- entry points */

static int tm_parse(PsCapture *cap, PsErr *err){
  Tm p;
  memset(&p, 0, sizeof(p));
  p.z = cap->src.z; p.n = cap->src.n; p.cap = cap; p.err = err; p.threadId = PS_NULL64;
  const char *z = p.z;
  size_t n = p.n, i = 0, cfgStart = 0;
  uint32_t line = 0;
  int bConfig = 0, rc = PS_OK;
  int64_t sampleNs = PS_NULL64;
  if( n>=3 && (unsigned char)z[0]==0xEF && (unsigned char)z[1]==0xBB && (unsigned char)z[2]==0xBF ) i = 3;
  if( (rc = tm_format_version(&p, i))!=PS_OK ) return rc;
  size_t a, b;
  while( rc==PS_OK && ps_next_line(z, n, &i, &a, &b) ){
    line++;
    if( (line & 0xFFF)==0 ) ps_source_done_before(&cap->src, a);
    if( ps_work(&cap->src, b - a + 1) ){ rc = ps_interrupted(err); break; }   /* by bytes read */
    const char *l = z+a; size_t ln = b-a;
    if( bConfig ){
      if( tm_config_close(l, ln) ){
        rc = ps_meta_text(cap, "report", "spigotConfig", z+cfgStart, a-cfgStart, PS_META_TEXT, (int64_t)cfgStart);
        bConfig = 0;
      }
      continue;
    }
    if( ln==0 ) continue;
    if( tm_config_open(l, ln) ){
      bConfig = 1; cfgStart = i;
      continue;
    }
    if( ln>12 && (l[0]=='S' || l[0]=='s') && strncasecmp(l, "Sample time ", 12)==0 ){
      size_t j = 12; int64_t v;
      if( tm_digits(l, ln, &j, &v)==0 ){
        if( sampleNs==PS_NULL64 ) sampleNs = v;      /* the viewer's regex takes the first */
        rc = ps_meta_int(cap, "report", "sample_time_ns", v, (int64_t)a);
        continue;
      }
    }
    if( l[0]=='#' ){ rc = tm_meta_line(&p, l, ln, a); continue; }
    if( l[0]==' ' || l[0]=='\t' ){
      if( p.category==0 && (rc = tm_category(&p, "", 0))!=PS_OK ) break;
      rc = tm_record(&p, l, ln, a, line);
      continue;
    }
    rc = tm_category(&p, l, ln);
  }
  if( rc==PS_OK && bConfig ){
    rc = ps_meta_text(cap, "report", "spigotConfig", z+cfgStart, n-cfgStart, PS_META_TEXT, (int64_t)cfgStart);
    if( rc==PS_OK ) rc = ps_diag(cap, PS_DIAG_OTHER, (int64_t)cfgStart, "<spigotConfig> is never closed");
  }
  if( rc==PS_OK && cap->nRec==0 ){
    rc = ps_err(err, "no timings record found (expected indented '<name> Time: N Count: N ...' lines)");
  }
  if( rc==PS_OK ) rc = ps_meta_text(cap, "capture", "kind", p.bTree ? "tree" : "legacy", p.bTree ? 4 : 6, PS_META_TEXT, -1);
  if( rc==PS_OK ) rc = ps_meta_int(cap, "capture", "records", (int64_t)cap->nRec, -1);
  /* the version the report is read as (tm_format_version): '# FormatVersion N', else 0 */
  if( rc==PS_OK ) rc = ps_meta_int(cap, "capture", "format_version", p.versionRead, -1);
  if( rc==PS_OK ) rc = tm_tree(&p);
  if( rc==PS_OK ) rc = tm_checks(&p, sampleNs);
  if( rc==PS_OK ) rc = tm_derived(&p, sampleNs);
  return rc;
}

/* Looks like a timings report when, within the first 64 KiB, an indented line has the record
** shape "... Time: <digits> Count: <digits>". */
static int tm_probe(const char *z, size_t n){
  size_t lim = n < 65536 ? n : 65536, i = 0, a, b;
  while( ps_next_line(z, lim, &i, &a, &b) ){
    if( b>a && (z[a]==' ' || z[a]=='\t') ){
      int64_t k = tm_find(z, a, b, " Time: ");
      if( k>=0 ){
        size_t j = (size_t)k+7; int64_t v;
        if( tm_digits(z, b, &j, &v)==0 && tm_lit(z, b, &j, " Count: ")==0 ) return 3;
      }
    }
  }
  return 0;
}


const PsFormat ps_format_timings = { "timings", tm_probe, tm_parse, 0, 0 };   /* no lazy columns */
