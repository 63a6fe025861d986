/*
** tracks.c — the track model (tracks.h): processes, threads and the kind of every track, derived
** once per capture from the threads and tracks the reader recorded and from one pass over the
** rows (their track, ts and dur).
*/
#include "tracks.h"

#include <stdlib.h>
#include <string.h>

const char *const ps_track_kind_names[PS_TK_N] = {
  "thread", "process_async", "global_async", "thread_async",
  "process_counter", "thread_counter", "cpu_counter", "global_counter",
  "cpu", "process_instant", "global_instant"
};

void ps_model_free(PsModel *m){
  if( m==0 ) return;
  free(m->aProc); free(m->aThread); free(m->aTrack);
  free(m);
}

static void model_free(void *p){ ps_model_free((PsModel*)p); }

static int value_same(const PsValue *a, const PsValue *b){
  if( a->type!=b->type ) return 0;
  if( a->type==PS_VAL_INT ) return a->i==b->i;
  if( a->type==PS_VAL_TEXT ) return a->s==b->s;
  return 1;
}

/* The track kind of PsTrack kind + scope. */
static uint8_t track_kind(const PsTrack *t){
  switch( t->kind ){
    case PS_TRACK_ASYNC:
      return t->scope==PS_SCOPE_PROCESS ? PS_TK_PROCESS_ASYNC
           : t->scope==PS_SCOPE_GLOBAL ? PS_TK_GLOBAL_ASYNC : PS_TK_THREAD_ASYNC;
    case PS_TRACK_COUNTER:
      return t->scope==PS_SCOPE_PROCESS ? PS_TK_PROCESS_COUNTER
           : t->scope==PS_SCOPE_GLOBAL ? PS_TK_GLOBAL_COUNTER
           : t->scope==PS_SCOPE_CPU ? PS_TK_CPU_COUNTER : PS_TK_THREAD_COUNTER;
    case PS_TRACK_CPU: return PS_TK_CPU;
    case PS_TRACK_INSTANT:
      return t->scope==PS_SCOPE_GLOBAL ? PS_TK_GLOBAL_INSTANT : PS_TK_PROCESS_INSTANT;
    default: return PS_TK_THREAD;
  }
}

/* Chrome's process-level metadata events ('M' named process_*): they name a process, not the
** thread whose (pid, tid) they carry. */
static int process_metadata(const PsCapture *cap, size_t r){
  if( cap->ev.aPh[r]!='M' ) return 0;
  PsStr s = ps_pool_get(&cap->pool, cap->ev.aName[r]);
  return s.n>=8 && memcmp(s.z, "process_", 8)==0;
}

static void span(int64_t *pStart, int64_t *pEnd, int64_t ts, int64_t dur){
  if( ts==PS_NULL64 ) return;
  int64_t end = ts;
  if( dur!=PS_NULL64 && dur>0 && ts <= INT64_MAX - dur ) end = ts + dur;
  if( *pStart==PS_NULL64 || ts < *pStart ) *pStart = ts;
  if( *pEnd==PS_NULL64 || end > *pEnd ) *pEnd = end;
}

/* The idle task: named <idle> or swapper* (ftrace), or an unnamed thread whose pid and tid are
** both 0 as the file writes them (the kernel's idle task; a format that numbers its own threads
** from 0 names them) */
static int is_idle(const PsCapture *cap, const PsThread *th){
  PsStr s = ps_pool_get(&cap->pool, th->threadName);
  if( s.n==6 && memcmp(s.z, "<idle>", 6)==0 ) return 1;
  if( s.n>=7 && memcmp(s.z, "swapper", 7)==0 ) return 1;
  return s.n==0 && th->pid.type==PS_VAL_INT && th->pid.i==0 && th->tid.type==PS_VAL_INT && th->tid.i==0;
}

const char *const ps_row_kind_names[PS_RK_N] = {
  "slice", "instant", "counter", "metadata", "flow", "sample", "step", "end", "object", "sched",
  "ftrace_event", "other"
};

int ps_row_kind_code(const PsCapture *cap, const PsModel *m, size_t r){
  const PsEvents *ev = &cap->ev;
  uint32_t t = ev->aTrack[r];
  if( t<cap->nTrack ){
    uint8_t k = m->aTrack[t].kind;
    if( k==PS_TK_CPU ) return PS_RK_SCHED;
    if( k>=PS_TK_PROCESS_COUNTER && k<=PS_TK_GLOBAL_COUNTER ) return PS_RK_COUNTER;
  }
  if( ev->aFlags[r] & PS_EV_SAMPLE ) return PS_RK_SAMPLE;
  if( m->idFtraceCat && ev->aCat[r]==m->idFtraceCat && ev->aPh[r]=='i'
   && strcmp(ps_row_format(cap, r), "ftrace")==0 ) return PS_RK_FTRACE_EVENT;
  switch( ev->aPh[r] ){
    case 'X': return ev->aDur[r]==PS_NULL64 ? PS_RK_OTHER : PS_RK_SLICE;
    case 'B': case 'b': case 'S': return PS_RK_SLICE;
    case 'i': case 'I': case 'R': case 'n': return PS_RK_INSTANT;
    case 'C': return PS_RK_COUNTER;
    case 'M': return PS_RK_METADATA;
    case 's': case 't': case 'f': return PS_RK_FLOW;
    case 'P': return PS_RK_SAMPLE;
    case 'T': case 'p': return PS_RK_STEP;
    case 'E': case 'e': case 'F': return PS_RK_END;
    case 'N': case 'O': case 'D': return PS_RK_OBJECT;
    default: return PS_RK_OTHER;
  }
}

const char *ps_row_kind(const PsCapture *cap, const PsModel *m, size_t r){
  return ps_row_kind_names[ps_row_kind_code(cap, m, r)];
}

const PsModel *ps_capture_model(PsCapture *cap){
  if( cap->pModel ) return (const PsModel*)cap->pModel;
  PsModel *m = calloc(1, sizeof(PsModel));
  if( m==0 ) return 0;
  size_t nTh = cap->nThread, nTr = cap->nTrack;
  m->aThread = calloc(nTh ? nTh : 1, sizeof(PsThreadInfo));
  m->aTrack = calloc(nTr ? nTr : 1, sizeof(PsTrackInfo));
  m->aProc = calloc(nTh ? nTh : 1, sizeof(PsProcess));   /* at most one per thread */
  uint32_t *aHash = 0;
  size_t nHash = 16;
  while( nHash < 2*nTh ) nHash *= 2;
  aHash = calloc(nHash, sizeof(uint32_t));
  if( m->aThread==0 || m->aTrack==0 || m->aProc==0 || aHash==0 ){ free(aHash); ps_model_free(m); return 0; }

  /* processes: distinct pids, in the order of their first thread (a keyed hash: linear) */
  for(size_t t=0; t<nTh; t++){
    const PsThread *th = &cap->aThread[t];
    size_t h = (size_t)ps_value_hash(&th->pid) & (nHash-1);
    uint32_t k;
    ps_nProbe++;
    while( (k = aHash[h])!=0 && !value_same(&m->aProc[k-1].pid, &th->pid) ){ h = (h+1) & (nHash-1); ps_nProbe++; }
    if( k==0 ){
      PsProcess *p = &m->aProc[m->nProc++];
      p->pid = th->pid; p->mainThread = PS_NONE32; p->startTs = p->endTs = PS_NULL64;
      aHash[h] = k = (uint32_t)m->nProc;
    }
    PsProcess *p = &m->aProc[k-1];
    PsThreadInfo *ti = &m->aThread[t];
    ti->upid = k-1;
    ti->startTs = ti->endTs = PS_NULL64;
    ti->bMain = th->pid.type!=PS_VAL_NULL && value_same(&th->pid, &th->tid);
    ti->bIdle = (uint8_t)is_idle(cap, th);
    p->nThreads++;
    if( p->name==0 && th->processName ) p->name = th->processName;
    if( ti->bMain && p->mainThread==PS_NONE32 ) p->mainThread = (uint32_t)t;
  }
  free(aHash);

  /* tracks: kind and owner */
  for(size_t k=0; k<nTr; k++){
    const PsTrack *tr = &cap->aTrack[k];
    PsTrackInfo *ti = &m->aTrack[k];
    ti->kind = track_kind(tr);
    ti->firstRow = PS_NONE32;
    ti->startTs = ti->endTs = PS_NULL64;
    ti->upid = ti->utid = PS_NONE32;
    int bThread = tr->thread < nTh;
    switch( ti->kind ){
      case PS_TK_THREAD: case PS_TK_THREAD_ASYNC: case PS_TK_THREAD_COUNTER:
        if( bThread ){ ti->utid = tr->thread; ti->upid = m->aThread[tr->thread].upid; }
        break;
      case PS_TK_PROCESS_ASYNC: case PS_TK_PROCESS_COUNTER: case PS_TK_PROCESS_INSTANT:
        if( bThread ) ti->upid = m->aThread[tr->thread].upid;
        break;
      default: break;
    }
  }

  /* rows: counts and time spans of tracks, threads and processes */
  const PsEvents *ev = &cap->ev;
  for(size_t r=0; r<ev->n; r++){
    uint32_t k = ev->aTrack[r];
    if( k>=nTr ) continue;
    PsTrackInfo *ti = &m->aTrack[k];
    int64_t ts = ev->aTs[r], dur = ev->aDur[r];
    int bMeta = ev->aPh[r]=='M';         /* metadata events have no time (the spec) */
    if( ti->firstRow==PS_NONE32 ) ti->firstRow = (uint32_t)r;
    ti->nRows++;
    if( !bMeta ) span(&ti->startTs, &ti->endTs, ts, dur);
    uint32_t u = ev->aThread[r];
    if( u<nTh && !process_metadata(cap, r) ){
      PsThreadInfo *th = &m->aThread[u];
      th->nRows++;
      if( !bMeta ) span(&th->startTs, &th->endTs, ts, dur);
    }
    if( ti->upid!=PS_NONE32 && !bMeta ){
      PsProcess *p = &m->aProc[ti->upid];
      span(&p->startTs, &p->endTs, ts, dur);
    }
  }
  /* ftrace's raw event rows (ext/formats/ftrace.c: cat 'ftrace', ph 'i'), in an ftrace capture or
  ** the ftrace text a Chrome trace carries */
  if( cap->pFormat && (strcmp(cap->pFormat->zName, "ftrace")==0 || cap->bFtrace) ){
    m->idFtraceCat = ps_pool_intern(&cap->pool, "ftrace", 6, 0);
    if( m->idFtraceCat==0 ){ ps_model_free(m); return 0; }
  }
  cap->pModel = m;
  cap->xModelFree = model_free;
  return m;
}

/* ---------------------------------------------------------------- labels */
const char *ps_thread_label(const PsCapture *cap, uint32_t t, char *buf, size_t nBuf){
  if( nBuf==0 ) return buf;
  buf[0] = 0;
  if( t >= cap->nThread ) return buf;
  const PsThread *th = &cap->aThread[t];
  size_t n = 0;
  char v[512];                               /* (as ps_value_text cuts a text id: the flame graph's rule) */
  /* appends "%.*s" without running past buf */
#define TL_ADD(z, len) do{ size_t l_ = (len); if( l_ > nBuf-1-n ) l_ = nBuf-1-n; memcpy(buf+n, (z), l_); n += l_; buf[n] = 0; }while(0)
  if( th->processName ){ PsStr s = ps_pool_get(&cap->pool, th->processName); TL_ADD(s.z, s.n); }
  else if( th->pid.type!=PS_VAL_NULL ){ ps_value_text(cap, &th->pid, v, sizeof(v)); TL_ADD("pid ", 4); TL_ADD(v, strlen(v)); }
  int bProc = th->processName || th->pid.type!=PS_VAL_NULL;
  if( th->threadName ){
    PsStr s = ps_pool_get(&cap->pool, th->threadName);
    if( bProc ) TL_ADD(" / ", 3);
    TL_ADD(s.z, s.n);
  }else if( th->tid.type!=PS_VAL_NULL ){
    ps_value_text(cap, &th->tid, v, sizeof(v));
    if( bProc ) TL_ADD(" / ", 3);
    TL_ADD("tid ", 4); TL_ADD(v, strlen(v));
  }else if( !bProc ) TL_ADD("main", 4);
#undef TL_ADD
  return buf;
}
