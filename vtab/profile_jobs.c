/*
** profile_jobs.c — the profile_jobs table-valued function: one row per job.
**
**   SELECT category, count(*), sum(elapsed_ms) FROM profile_jobs('profiler_report_latest.json')
**    GROUP BY 1 ORDER BY 3 DESC;
**
** Arguments (HIDDEN): capture (path TEXT or BLOB; a directory or glob reads every capture),
** format (optional: 'newengine', 'chrome', ...). The first argument is called `capture` here,
** not `source`, because `source` is one of the writer's columns.
**
** Columns: the 37 columns of the StarProfiler's profiler_jobs_latest.csv in its order
**   id, status, category, source, lane, priority, dependency_group, frame_id, task_domain,
**   task_pass, executor, name, elapsed_ms, budget_ms, frame_budget_ms, load, load_percent,
**   over_budget, exceeded_frame_budget, gpu_wait_ms, wait_reason, scheduled, blocked, polling,
**   waited_on_gpu, stayed_async, async_mode, started_unix_ms, ended_unix_ms, payload_bytes,
**   output_bytes, service_id, method, plugin_id, gateway, error, detail
** (times in milliseconds, REAL; load = elapsed_ms / budget_ms; flags 0/1; the fall-back rules
** and the null-versus-absent rule are in ext/formats/jobs.h), then
**   metadata            the job's metadata object (JSON text), chrome: the event's args
**   active_elapsed_ms, current_load, progress   active jobs of a report
**   owner               the StarProfiler's owner key: the metadata's service id, else
**                       'plugin:<id>', 'gateway:<id>', else '<source>:<category>' (ext/formats/jobs.h)
**   method_name         the metadata's method (/method, /method_name, ...), else NULL
**   job_list            'completed_jobs' or 'active_jobs' (the report array it came from)
**   self_ms             the job's own time, ms: what is left of elapsed_ms once the time of the
**                       jobs nested in it is taken away, so that summing it over any set of
**                       jobs counts no time twice (below); a report job: elapsed_ms
**   byte_offset         offset of the job object / CSV record / event in the capture
**   file                the capture file (NULL for a BLOB)
**
** Other formats give one completed job per complete slice on a thread's own track (Chrome X /
** matched B-E, XSpace XEvent, lms marker pair, ftrace atrace slice; not async spans, nor CPU
** scheduling intervals: ext/model/tracks.h) or per record (a timings report's timer record, a
** sampled capture's call-tree node, an xprof result file's record), mapped as follows:
**   id = the row id (profile_events.id / profile_records.record_id) as text, status 'completed'
**   category = cat (the format name when the capture has no categories; timings: group_name;
**              call-tree nodes and xprof records: the format name)
**   source = process / plane name ('pid N' without one; timings: plugin, else the category;
**            call-tree nodes and xprof records: the record's category (module, file, DSO),
**            else the format name)
**   lane = thread / line name ('tid N' without one; timings: the category; records: NULL)
**   name = name, elapsed_ms = dur / 1e6 (records: time_ns / 1e6, a timer's whole time over
**          the sample, a call-tree node's inclusive sampled time)
**   self_ms = (dur minus the dur of the complete slices whose parent is this one) / 1e6, as
**          sql/event_tree.sql's self_ns (negative when children overlap their parent's end);
**          records: self_ns / 1e6 (NULL for a timings report without a record tree)
**   budget_ms = args.budget_ms when a Chrome event has a numeric one (> 0), else NULL: these
**   formats have no budget (profile_report's budget_ms / budgets_ms options give one)
**   load = elapsed_ms / budget_ms and load_percent = load * 100 (NULL without a budget),
**   over_budget = load >= 1 (0 without a budget); started_unix_ms / ended_unix_ms = ts / 1e6
**   and (ts+dur) / 1e6 on the capture's own clock (not Unix time; NULL for records); every
**   other column NULL or 0.
** Errors: as profile_events (vtab/loader.c). SQLITE_VTAB_DIRECTONLY: it reads files.
*/
#include "ps_vtab.h"
#include "../ext/formats/jobs.h"
#include "../ext/wire/json.h"
#include "../ext/model/tracks.h"
SQLITE_EXTENSION_INIT3

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PJ_JOB_LIST   (PS_JOB_NCOL)
#define PJ_SELF       (PS_JOB_NCOL + 1)
#define PJ_OFFSET     (PS_JOB_NCOL + 2)
#define PJ_FILE       (PS_JOB_NCOL + 3)
#define PJ_CAPTURE    (PS_JOB_NCOL + 4)
#define PJ_FORMAT     (PS_JOB_NCOL + 5)

#define PJ_SCHEMA "CREATE TABLE x(id TEXT, status TEXT, category TEXT, source TEXT, lane, " \
  "priority, dependency_group, frame_id, task_domain, task_pass, executor, name TEXT, " \
  "elapsed_ms REAL, budget_ms REAL, frame_budget_ms REAL, load REAL, load_percent REAL, " \
  "over_budget INTEGER, exceeded_frame_budget INTEGER, gpu_wait_ms REAL, wait_reason TEXT, " \
  "scheduled INTEGER, blocked INTEGER, polling INTEGER, waited_on_gpu INTEGER, " \
  "stayed_async INTEGER, async_mode TEXT, started_unix_ms, ended_unix_ms, payload_bytes, " \
  "output_bytes, service_id, method, plugin_id, gateway, error TEXT, detail TEXT, " \
  "metadata TEXT, active_elapsed_ms REAL, current_load REAL, progress REAL, owner TEXT, " \
  "method_name TEXT, job_list TEXT, self_ms REAL, " \
  "byte_offset INTEGER, file TEXT, capture HIDDEN, format HIDDEN)"

/* What a part's rows are. */
enum { PJ_JOBS, PJ_EVENTS, PJ_RECORDS };

typedef struct PjCursor {
  sqlite3_vtab_cursor base;
  PsSet set;
  int iPart;
  PsCapture *cap;             /* the current part's capture; NULL at the end of the parts */
  int kind;                   /* PJ_* of the current part */
  const PsModel *pModel;      /* PJ_EVENTS: the current part's track model (which rows are jobs) */
  int64_t iRow;
  double *aChild;             /* per event row of part iChildPart: summed dur (ns) of the complete
                              ** slices whose parent it is (sqlite3_malloc'ed; NULL until asked;
                              ** a double: a sum of int64 durations must not overflow) */
  int iChildPart;
  int iReleasePart;           /* the part whose mapped source bytes below oRelease this scan has */
  size_t oRelease;            /* released (pj_release) */
  /* What the current event row's source bytes give, each read once per row (several columns
  ** use it): bit PJ_HAVE_* of mHave says which of these hold event row iHaveRow of part
  ** iHavePart (pj_have clears mHave when the cursor has moved on) */
  int64_t iHaveRow;
  int iHavePart;
  unsigned mHave;
  size_t oArgs;               /* PJ_HAVE_ARGS: where the args object starts ((size_t)-1: none) */
  double rBudget;             /* PJ_HAVE_BUDGET: budget_ms (0: none) */
  PsOut own, meth;            /* PJ_HAVE_KEYS: owner and method_name (malloc'ed) */
} PjCursor;
#define PJ_HAVE_ARGS   1
#define PJ_HAVE_BUDGET 2
#define PJ_HAVE_KEYS   4

static const PsCapture *pj_cap(const PjCursor *c){ return c->cap; }

static int pj_kind(const PsCapture *cap){
  if( cap->nJob || cap->aJobCsvCol || strcmp(cap->pFormat->zName, "newengine")==0 ) return PJ_JOBS;
  if( cap->nRec ) return PJ_RECORDS;
  return PJ_EVENTS;
}

static int64_t pj_count(const PjCursor *c){
  const PsCapture *cap = pj_cap(c);
  switch( c->kind ){
    case PJ_JOBS: return (int64_t)cap->nJob;
    case PJ_RECORDS: return (int64_t)cap->nRec;
    default: return (int64_t)cap->ev.n;
  }
}

/* An event row is a job when it is a complete slice. */
/* A job of an event capture: a complete slice on a thread's own track, what a thread worked on.
** Async spans (their own tracks: they overlap the thread's work, and counting them as jobs would
** add their time into the thread's) and CPU scheduling intervals (CPU time, not a piece of work)
** are not jobs; profile_report describes them apart. */
static int pj_is_job(const PsCapture *cap, const PsModel *m, int64_t r){
  if( !(cap->ev.aFlags[r] & PS_EV_SLICE) || cap->ev.aDur[r]==PS_NULL64 ) return 0;
  uint32_t t = cap->ev.aTrack[r];
  return m==0 || t>=cap->nTrack || m->aTrack[t].kind==PS_TK_THREAD;
}

static void pj_skip(PjCursor *c){
  if( c->kind!=PJ_EVENTS ) return;
  const PsCapture *cap = pj_cap(c);
  while( c->iRow < (int64_t)cap->ev.n && !pj_is_job(cap, c->pModel, c->iRow) ) c->iRow++;
}

/* Loads part c->iPart (a directory or glob streams: ps_set_use). */
static int pj_start_part(PjCursor *c){
  c->iRow = 0;
  int rc = ps_set_use(c->base.pVtab, &c->set, &c->iPart, &c->cap);
  if( rc==SQLITE_OK && c->cap ){
    c->kind = pj_kind(c->cap);
    c->pModel = 0;
    if( c->kind==PJ_EVENTS && (c->pModel = ps_capture_model(c->cap))==0 ) return SQLITE_NOMEM;
  }
  return rc;
}

static int pj_settle(PjCursor *c){
  while( c->cap ){
    pj_skip(c);
    if( c->iRow < pj_count(c) || c->iPart+1 >= c->set.nPart ) return SQLITE_OK;
    c->iPart++;
    int rc = pj_start_part(c);
    if( rc ) return rc;
  }
  return SQLITE_OK;
}

static int pjConnect(sqlite3 *db, void *pAux, int argc, const char *const *argv,
                     sqlite3_vtab **ppVtab, char **pzErr){
  (void)argc; (void)argv; (void)pzErr;
  return ps_vt_connect(db, pAux, PJ_SCHEMA, ppVtab);
}

static int pjOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCur){
  (void)pVtab;
  return ps_vt_open(sizeof(PjCursor), ppCur);
}

static int pjClose(sqlite3_vtab_cursor *cur){
  PjCursor *c = (PjCursor*)cur;
  ps_set_clear(&c->set);
  ps_free(c->own.zFree); ps_free(c->meth.zFree);
  sqlite3_free(c->aChild);
  sqlite3_free(c);
  return SQLITE_OK;
}

/* idxNum bits (argv in this order): 1 capture = ?, 2 format = ?, 4 file = ?, 8 file IN (...). */
static int pjBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo){
  (void)pVtab;
  return ps_vt_best_source(pInfo, PJ_CAPTURE, PJ_FORMAT, PJ_FILE);
}

static int pjFilter(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr,
                    int argc, sqlite3_value **argv){
  PjCursor *c = (PjCursor*)cur;
  (void)idxStr; (void)argc;
  int k = 0;
  sqlite3_value *pSource = (idxNum & 1) ? argv[k++] : 0;
  sqlite3_value *pFormat = (idxNum & 2) ? argv[k++] : 0;
  PsFileFilter files = ps_vt_file_filter(idxNum, PS_IDX_FILE, PS_IDX_FILE_IN, argv, k);
  int rc = ps_vt_filter_set(cur->pVtab, "profile_jobs", pSource, pFormat, &files, 1, &c->set);
  if( rc!=SQLITE_OK ) return rc;
  c->iPart = 0; c->iRow = 0; c->cap = 0; c->iHaveRow = -1; c->mHave = 0;
  c->iReleasePart = -1; c->oRelease = 0;
  sqlite3_free(c->aChild); c->aChild = 0; c->iChildPart = -1;
  if( c->set.nPart==0 ) return SQLITE_OK;
  rc = pj_start_part(c);
  return rc ? rc : pj_settle(c);
}

static int pjNext(sqlite3_vtab_cursor *cur){
  PjCursor *c = (PjCursor*)cur;
  c->iRow++;
  return pj_settle(c);
}

static int pjEof(sqlite3_vtab_cursor *cur){
  PjCursor *c = (PjCursor*)cur;
  return c->cap==0 || c->iRow >= pj_count(c);
}

static void result_pool_or(sqlite3_context *ctx, const PsCapture *cap, uint32_t id, const char *zElse){
  if( id ){
    PsStr s = ps_pool_get(&cap->pool, id);
    sqlite3_result_text(ctx, s.z, (int)s.n, SQLITE_TRANSIENT);
  }else if( zElse ){
    sqlite3_result_text(ctx, zElse, -1, SQLITE_TRANSIENT);
  }else{
    sqlite3_result_null(ctx);
  }
}

/* How many of the n bytes of the valid UTF-8 text z a cut at nMax bytes keeps: nMax or fewer,
** so that the cut falls before a character and never inside one (issue 32: a label cut inside a
** character made the report's JSON and CSVs invalid UTF-8). */
static size_t pj_cut(const char *z, size_t n, size_t nMax){
  if( n<=nMax ) return n;
  size_t m = nMax;
  while( m>0 && ((unsigned char)z[m] & 0xC0)==0x80 ) m--;
  return m;
}

/* A thread's process (or thread) name, or "pid N" / "tid N" without one, into buf: at most
** nBuf-1 bytes (a name of 80, cut before a character). */
static void pj_label(const PsCapture *cap, uint32_t name, const char *zWhat, const PsValue *v, char *buf, size_t nBuf){
  if( name ){
    PsStr s = ps_pool_get(&cap->pool, name);
    size_t n = pj_cut(s.z, s.n, nBuf-1);
    if( n ) memcpy(buf, s.z, n);
    buf[n] = 0;
  }else if( v->type==PS_VAL_INT ) snprintf(buf, nBuf, "%s %lld", zWhat, (long long)v->i);
  else if( v->type==PS_VAL_TEXT ){
    PsStr s = ps_pool_get(&cap->pool, v->s);
    size_t nMax = strlen(zWhat) + 2 < nBuf ? nBuf - strlen(zWhat) - 2 : 0;
    snprintf(buf, nBuf, "%s %.*s", zWhat, (int)pj_cut(s.z ? s.z : "", s.n, nMax < 80 ? nMax : 80), s.z ? s.z : "");
  }else snprintf(buf, nBuf, "%s ?", zWhat);
}

/* The PJ_HAVE_* bits of what is cached for the current row (none once the cursor has moved). */
static unsigned pj_have(PjCursor *c){
  if( c->iHaveRow!=c->iRow || c->iHavePart!=c->iPart ){
    c->iHaveRow = c->iRow; c->iHavePart = c->iPart; c->mHave = 0;
  }
  return c->mHave;
}

/* A Chrome event's bytes are read as the Chrome reader read them: with its leniency (trailing
** commas, raw control characters: ext/wire/json.h), noted already at the parse, so quietly. */
static const PsJsonLenient pjQuiet = { 0, 0 };
#define PJ_LENIENT(cap, stmt) do{ \
    const PsJsonLenient *pSaved_ = ps_json_lenient; \
    if( (cap)->pFormat==&ps_format_chrome ) ps_json_lenient = &pjQuiet; \
    stmt; \
    ps_json_lenient = pSaved_; \
  }while(0)

/* Where the args object of the current event row starts in the source, for a Chrome event
** ((size_t)-1 for none and for the rows of other formats); looked up once per row. */
static size_t pj_args(PjCursor *c){
  if( !(pj_have(c) & PJ_HAVE_ARGS) ){
    const PsCapture *cap = pj_cap(c);
    size_t v;
    c->oArgs = (size_t)-1;
    int f = 0;
    if( strcmp(ps_row_format(cap, (size_t)c->iRow), "chrome")==0 ){
      PJ_LENIENT(cap, f = ps_json_find_key(cap->src.z, cap->src.n, (size_t)cap->ev.aOff[c->iRow], "args", &v));
    }
    if( f==1 ) c->oArgs = v;
    c->mHave |= PJ_HAVE_ARGS;
  }
  return c->oArgs;
}

/* budget_ms of a Chrome event whose args object starts at a ((size_t)-1: none): a numeric
** args.budget_ms > 0, else 0 (none: no other format has a budget, and none is made up). */
static double pj_event_budget(const PsCapture *cap, size_t a){
  const char *z = cap->src.z; size_t n = cap->src.n, b;
  if( a==(size_t)-1 || a>=n || z[a]!='{' ) return 0.0;
  if( ps_json_find_key(z, n, a, "budget_ms", &b)!=1 ) return 0.0;
  char buf[64]; size_t k = 0;
  while( b+k<n && k<sizeof(buf)-1 && strchr("0123456789.eE+-", z[b+k]) ){ buf[k] = z[b+k]; k++; }
  buf[k] = 0;
  char *e; double v = strtod(buf, &e);
  return (k && *e==0 && v > 0 && v < 1e300) ? v : 0.0;
}

/* The summed dur of each event row's child slices (c->aChild, for the current part), computed
** once per part in one pass over the rows. SQLITE_NOMEM or SQLITE_OK. */
static int pj_children(PjCursor *c){
  if( c->aChild && c->iChildPart==c->iPart ) return SQLITE_OK;
  const PsEvents *e = &pj_cap(c)->ev;
  sqlite3_free(c->aChild);
  c->aChild = sqlite3_malloc64((e->n ? e->n : 1) * sizeof(double));
  if( c->aChild==0 ) return SQLITE_NOMEM;
  for(size_t r=0; r<(e->n ? e->n : 1); r++) c->aChild[r] = 0.0;
  c->iChildPart = c->iPart;
  for(size_t r=0; r<e->n; r++){
    int32_t p = e->aParent ? e->aParent[r] : -1;
    if( p>=0 && (size_t)p<e->n && pj_is_job(pj_cap(c), c->pModel, (int64_t)r) ) c->aChild[p] += (double)e->aDur[r];
  }
  return SQLITE_OK;
}

/* A scan that re-reads the source bytes of every event (owner, budget_ms, metadata: the args)
** would fault the whole mapped file back into the process (the parse released it: ext/source/source.h,
** ps_source_done_before). Rows are in file order, so the pages more than 4 MiB behind the
** current row's offset are released again in 4 MiB steps (ps_source_release, with this
** cursor's own mark: they stay in the page cache and fault back in if a later row or query reads
** them); a report over a 1M-event trace keeps its RSS near the capture's. No effect on a source
** read into memory. */
static void pj_release(PjCursor *c, const PsCapture *cap, size_t off){
  if( c->iReleasePart!=c->iPart ){ c->iReleasePart = c->iPart; c->oRelease = 0; }
  c->oRelease = ps_source_release(&cap->src, c->oRelease, off);
}

/* budget_ms of the current event row, looked up once per row (four columns use it). */
static double pj_budget(PjCursor *c){
  if( !(pj_have(c) & PJ_HAVE_BUDGET) ){
    size_t a = pj_args(c);
    PJ_LENIENT(pj_cap(c), c->rBudget = pj_cap(c)->pFormat->xColumn ? pj_event_budget(pj_cap(c), a) : 0.0);
    pj_release(c, pj_cap(c), (size_t)pj_cap(c)->ev.aOff[c->iRow]);
    c->mHave |= PJ_HAVE_BUDGET;
  }
  return c->rBudget;
}

static int pj_event_column(PjCursor *c, sqlite3_context *ctx, int iCol){
  const PsCapture *cap = pj_cap(c);
  const PsEvents *e = &cap->ev;
  int64_t r = c->iRow;
  const PsThread *th = &cap->aThread[e->aThread[r]];
  double elapsed = (double)e->aDur[r] / 1e6;
  switch( iCol ){
    case PS_JOB_ID: {
      char buf[24]; int k = (int)sizeof(buf);
      uint64_t v = (uint64_t)r;                 /* a row index: never negative */
      do{ buf[--k] = (char)('0' + v%10); v /= 10; }while( v );
      sqlite3_result_text(ctx, buf+k, (int)sizeof(buf)-k, SQLITE_TRANSIENT);
      break;
    }
    case PS_JOB_STATUS: sqlite3_result_text(ctx, "completed", -1, SQLITE_STATIC); break;
    case PS_JOB_CATEGORY: result_pool_or(ctx, cap, e->aCat[r], cap->pFormat->zName); break;
    case PS_JOB_SOURCE: case PS_JOB_LANE: {
      char buf[400];
      if( iCol==PS_JOB_SOURCE ) pj_label(cap, th->processName, "pid", &th->pid, buf, sizeof(buf));
      else pj_label(cap, th->threadName, "tid", &th->tid, buf, sizeof(buf));
      sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
      break;
    }
    case PS_JOB_NAME: result_pool_or(ctx, cap, e->aName[r], 0); break;
    case PS_JOB_ELAPSED_MS: sqlite3_result_double(ctx, elapsed); break;
    case PS_JOB_BUDGET_MS: case PS_JOB_LOAD: case PS_JOB_LOAD_PERCENT: {
      double budget = pj_budget(c);
      if( !(budget > 0) ) sqlite3_result_null(ctx);
      else if( iCol==PS_JOB_BUDGET_MS ) sqlite3_result_double(ctx, budget);
      else sqlite3_result_double(ctx, elapsed / budget * (iCol==PS_JOB_LOAD ? 1.0 : 100.0));
      break;
    }
    case PS_JOB_OVER_BUDGET: sqlite3_result_int(ctx, pj_budget(c) > 0 && elapsed / pj_budget(c) >= 1.0); break;
    case PJ_SELF: {
      if( pj_children(c) ) return SQLITE_NOMEM;
      sqlite3_result_double(ctx, ((double)e->aDur[r] - c->aChild[r]) / 1e6);
      break;
    }
    case PS_JOB_EXCEEDED_FRAME_BUDGET: case PS_JOB_SCHEDULED: case PS_JOB_BLOCKED:
    case PS_JOB_POLLING: case PS_JOB_WAITED_ON_GPU: case PS_JOB_STAYED_ASYNC:
      sqlite3_result_int(ctx, 0); break;
    case PS_JOB_STARTED_UNIX_MS: sqlite3_result_double(ctx, (double)e->aTs[r] / 1e6); break;
    case PS_JOB_ENDED_UNIX_MS: sqlite3_result_double(ctx, ((double)e->aTs[r] + (double)e->aDur[r]) / 1e6); break;
    case PS_JOB_METADATA: {
      if( cap->pFormat->xColumn==0 ){ sqlite3_result_null(ctx); break; }
      PsOut o; memset(&o, 0, sizeof(o));
      if( cap->pFormat->xColumn(cap, (size_t)r, PS_COL_ARGS, &o) ) return SQLITE_NOMEM;
      pj_release(c, cap, (size_t)e->aOff[r]);
      ps_vt_result(ctx, &o);
      break;
    }
    case PS_JOB_OWNER: case PS_JOB_METHOD_NAME: {
      /* the writer's keys from the event's args (Chrome), else "<source>:<category>"; once per row */
      if( pj_have(c) & PJ_HAVE_KEYS ){
        const PsOut *o = iCol==PS_JOB_OWNER ? &c->own : &c->meth;
        if( o->type==0 ) sqlite3_result_null(ctx);
        else sqlite3_result_text(ctx, o->z, (int)o->n, SQLITE_TRANSIENT);
        break;
      }
      char zSrc[200], zCat[200];
      pj_label(cap, th->processName, "pid", &th->pid, zSrc, sizeof(zSrc));
      if( e->aCat[r] ){ PsStr cs = ps_pool_get(&cap->pool, e->aCat[r]); snprintf(zCat, sizeof(zCat), "%.*s", (int)pj_cut(cs.z, cs.n, 190), cs.z); }
      else snprintf(zCat, sizeof(zCat), "%s", cap->pFormat->zName);
      size_t a = pj_args(c);
      ps_free(c->own.zFree); ps_free(c->meth.zFree);
      memset(&c->own, 0, sizeof(c->own)); memset(&c->meth, 0, sizeof(c->meth));
      int rcKeys = 0;
      PJ_LENIENT(cap, rcKeys = ps_job_keys(cap->src.z, cap->src.n, a, zSrc, strlen(zSrc), zCat, strlen(zCat), &c->own, &c->meth));
      if( rcKeys ) return SQLITE_NOMEM;
      if( ps_out_text_rule(&c->own) || ps_out_text_rule(&c->meth) ) return SQLITE_NOMEM;
      c->mHave |= PJ_HAVE_KEYS;
      pj_release(c, cap, (size_t)e->aOff[r]);
      const PsOut *o = iCol==PS_JOB_OWNER ? &c->own : &c->meth;
      if( o->type==0 ) sqlite3_result_null(ctx);
      else sqlite3_result_text(ctx, o->z, (int)o->n, SQLITE_TRANSIENT);
      break;
    }
    case PJ_JOB_LIST: sqlite3_result_text(ctx, "completed_jobs", -1, SQLITE_STATIC); break;
    case PJ_OFFSET: sqlite3_result_int64(ctx, (sqlite3_int64)e->aOff[r]); break;
    default: sqlite3_result_null(ctx); break;
  }
  return SQLITE_OK;
}

/* A record's category, source and lane: a timings report's group, plugin (else category) and
** category; other records' (call-tree nodes, xprof records) the format name, the record's
** category (module, file) else the format name, and none. */
static int pj_record_column(PjCursor *c, sqlite3_context *ctx, int iCol){
  const PsCapture *cap = pj_cap(c);
  const PsRecord *rec = &cap->aRec[c->iRow];
  double elapsed = rec->time==PS_NULL64 ? 0.0 : (double)rec->time / 1e6;
  const char *zFmt = cap->pFormat->zName;
  if( strcmp(zFmt, "timings")!=0 ){
    switch( iCol ){
      case PS_JOB_CATEGORY: sqlite3_result_text(ctx, zFmt, -1, SQLITE_STATIC); return SQLITE_OK;
      case PS_JOB_SOURCE: result_pool_or(ctx, cap, rec->category, zFmt); return SQLITE_OK;
      case PS_JOB_LANE: sqlite3_result_null(ctx); return SQLITE_OK;
      case PS_JOB_OWNER: {
        PsStr so = ps_pool_get(&cap->pool, rec->category);
        char *z = so.z && so.n ? sqlite3_mprintf("%.*s:%s", (int)so.n, so.z, zFmt) : sqlite3_mprintf("%s:%s", zFmt, zFmt);
        if( z==0 ) return SQLITE_NOMEM;
        sqlite3_result_text(ctx, z, -1, sqlite3_free);
        return SQLITE_OK;
      }
      default: break;
    }
  }
  switch( iCol ){
    case PS_JOB_ID: {
      char buf[32]; snprintf(buf, sizeof(buf), "%lld", (long long)rec->recordId);
      sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
      break;
    }
    case PS_JOB_STATUS: sqlite3_result_text(ctx, "completed", -1, SQLITE_STATIC); break;
    case PS_JOB_CATEGORY: result_pool_or(ctx, cap, rec->group, "timings"); break;
    case PS_JOB_SOURCE: result_pool_or(ctx, cap, rec->plugin ? rec->plugin : rec->category, "server"); break;
    case PS_JOB_LANE: result_pool_or(ctx, cap, rec->category, "unspecified"); break;
    case PS_JOB_NAME: result_pool_or(ctx, cap, rec->name, 0); break;
    case PS_JOB_ELAPSED_MS: sqlite3_result_double(ctx, elapsed); break;
    case PS_JOB_OWNER: {
      PsStr so = ps_pool_get(&cap->pool, rec->plugin ? rec->plugin : rec->category);
      PsStr ca = ps_pool_get(&cap->pool, rec->group);
      char *z = sqlite3_mprintf("%.*s:%.*s", (int)so.n, so.z ? so.z : "server", (int)ca.n, ca.z ? ca.z : "timings");
      if( z==0 ) return SQLITE_NOMEM;
      sqlite3_result_text(ctx, z, -1, sqlite3_free);
      break;
    }
    case PS_JOB_OVER_BUDGET: case PS_JOB_EXCEEDED_FRAME_BUDGET: case PS_JOB_SCHEDULED: case PS_JOB_BLOCKED:
    case PS_JOB_POLLING: case PS_JOB_WAITED_ON_GPU: case PS_JOB_STAYED_ASYNC:
      sqlite3_result_int(ctx, 0); break;
    case PJ_JOB_LIST: sqlite3_result_text(ctx, "completed_jobs", -1, SQLITE_STATIC); break;
    case PJ_SELF:
      if( rec->self==PS_NULL64 ) sqlite3_result_null(ctx);
      else sqlite3_result_double(ctx, (double)rec->self / 1e6);
      break;
    default: sqlite3_result_null(ctx); break;
  }
  return SQLITE_OK;
}

static int pjColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int iCol){
  PjCursor *c = (PjCursor*)cur;
  if( iCol==PJ_FILE ){ ps_vt_result_file(ctx, &c->set, c->iPart); return SQLITE_OK; }
  if( c->kind==PJ_EVENTS ) return pj_event_column(c, ctx, iCol);
  if( c->kind==PJ_RECORDS ) return pj_record_column(c, ctx, iCol);
  const PsCapture *cap = pj_cap(c);
  const PsJob *j = &cap->aJob[c->iRow];
  if( iCol==PJ_JOB_LIST ){
    sqlite3_result_text(ctx, j->bActive ? "active_jobs" : "completed_jobs", -1, SQLITE_STATIC);
    return SQLITE_OK;
  }
  if( iCol==PJ_OFFSET ){ sqlite3_result_int64(ctx, (sqlite3_int64)j->off); return SQLITE_OK; }
  if( iCol==PJ_SELF ) iCol = PS_JOB_ELAPSED_MS;     /* report jobs do not nest */
  if( iCol >= PS_JOB_NCOL ){ sqlite3_result_null(ctx); return SQLITE_OK; }
  PsOut o;
  if( ps_job_column(cap, (size_t)c->iRow, iCol, &o) ) return SQLITE_NOMEM;
  ps_vt_result(ctx, &o);
  return SQLITE_OK;
}

static int pjRowid(sqlite3_vtab_cursor *cur, sqlite_int64 *pRowid){
  PjCursor *c = (PjCursor*)cur;
  *pRowid = ((sqlite_int64)c->iPart << 40) | c->iRow;
  return SQLITE_OK;
}

PS_VT_CHECKED(pj, PjCursor, "profile_jobs", c->iPart)

static sqlite3_module pjModule = {
  0, 0, pjConnect, pjBestIndex, ps_vt_disconnect, 0, pjOpen, pjClose, pjFilter, pjNextChecked, pjEof,
  pjColumnChecked, pjRowid, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
};

int ps_jobs_register(sqlite3 *db, PsConn *pConn){
  pConn->nRef++;
  return sqlite3_create_module_v2(db, "profile_jobs", &pjModule, pConn, ps_conn_release);
}
