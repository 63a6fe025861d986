/*
** tracks.h — the track model of a capture: its processes, threads and tracks, and the kind of
** every track, built once per capture from what the format reader recorded (PsThread, PsTrack
** and its scope). Every event row lies on exactly one track (ev.aTrack).
**
**   capture (PsThread, PsTrack, rows) -> ps_capture_model() -> PsModel -> profile_tracks,
**   profile_threads, profile_processes (vtab/profile_tracks.c) -> Perfetto's schema (sql/perfetto.sql)
**
** Processes are the distinct pid values of the threads (a NULL pid is a process too), numbered
** upid in the order of their first thread; threads are the capture's (pid, tid) pairs, numbered
** utid in the order the reader met them (file order, for most formats). A thread may carry no row
** of its own (a Chrome process_name event written on tid 0 makes one): its rows count is 0. Both are per capture: in a directory or glob source
** each file has its own (two ranks' tid 1 are two threads).
**
** Track kinds (PS_TK_*, names in ps_track_kind_names): a thread's own track ('thread'), async
** groups local to a process or global ('process_async', 'global_async'), counters
** ('process_counter', 'thread_counter', 'cpu_counter', 'global_counter'), a CPU's scheduling
** timeline ('cpu'), and instants of a process or of the whole trace ('process_instant',
** 'global_instant'). What each format puts on which: docs/perfetto.md.
**
** Nothing here includes SQLite.
*/
#ifndef PS_TRACKS_H
#define PS_TRACKS_H

#include "capture.h"

#define PS_NONE32 UINT32_MAX   /* "no such upid / utid / row" */

enum { PS_TK_THREAD, PS_TK_PROCESS_ASYNC, PS_TK_GLOBAL_ASYNC, PS_TK_THREAD_ASYNC,
       PS_TK_PROCESS_COUNTER, PS_TK_THREAD_COUNTER, PS_TK_CPU_COUNTER, PS_TK_GLOBAL_COUNTER,
       PS_TK_CPU, PS_TK_PROCESS_INSTANT, PS_TK_GLOBAL_INSTANT, PS_TK_N };
extern const char *const ps_track_kind_names[PS_TK_N];

typedef struct PsProcess {
  PsValue pid;
  uint32_t name;          /* pool id: the first name one of its threads carries, or 0 */
  uint32_t mainThread;    /* utid of its thread whose tid equals the pid, or PS_NONE32 */
  uint32_t nThreads;
  int64_t startTs, endTs; /* first start / last end of the rows of its threads and tracks, ns;
                          ** PS_NULL64 when none has a time ('M' rows left out) */
} PsProcess;

typedef struct PsThreadInfo {
  uint32_t upid;
  uint32_t nRows;         /* rows that carry its (pid, tid), whatever their track, not counting
                          ** process-level metadata events (Chrome 'M' events named process_*) */
  int64_t startTs, endTs; /* as PsProcess, over those rows ('M' rows, which have no time, left
                          ** out) */
  uint8_t bMain;          /* tid equals pid (both given) */
  uint8_t bIdle;          /* the idle task: named <idle> / swapper*, or unnamed with pid 0 and
                          ** tid 0 as written */
} PsThreadInfo;

typedef struct PsTrackInfo {
  uint8_t kind;           /* PS_TK_* */
  uint32_t upid;          /* the process it belongs to (process-scoped kinds, and a thread's) or
                          ** PS_NONE32 (global and CPU kinds) */
  uint32_t utid;          /* the thread (thread-scoped kinds) or PS_NONE32 */
  uint32_t firstRow;      /* the first row on it (file order), PS_NONE32 when none */
  uint32_t nRows;
  int64_t startTs, endTs;
} PsTrackInfo;

typedef struct PsModel {
  PsProcess *aProc; size_t nProc;
  PsThreadInfo *aThread;  /* cap->nThread entries */
  PsTrackInfo *aTrack;    /* cap->nTrack entries */
  uint32_t idFtraceCat;   /* pool id of the cat 'ftrace' of ftrace's raw event rows, 0: none */
} PsModel;

/* What row r is, whatever the format (they share the Trace Event Format's phase letters):
** 'slice' (an extent: X, B, b, S), 'instant' (i, I, R, n), 'counter' (C, or on a counter track),
** 'metadata' (M), 'flow' (s, t, f), 'sample' (a stack sample, P), 'step' (an async step: T, p),
** 'end' (an end that closed nothing: E, e, F), 'object' (N, O, D), 'sched' (on a CPU track),
** 'ftrace_event' (a kernel event line of ftrace text that is no atrace marker: its record, not a
** span of time), or 'other' (an X without dur, an unknown or missing phase). A static string. */
const char *ps_row_kind(const PsCapture *cap, const PsModel *m, size_t r);
/* The same as a code: ps_row_kind_names[ps_row_kind_code(...)] is ps_row_kind(...). */
enum { PS_RK_SLICE, PS_RK_INSTANT, PS_RK_COUNTER, PS_RK_METADATA, PS_RK_FLOW, PS_RK_SAMPLE,
       PS_RK_STEP, PS_RK_END, PS_RK_OBJECT, PS_RK_SCHED, PS_RK_FTRACE_EVENT, PS_RK_OTHER, PS_RK_N };
extern const char *const ps_row_kind_names[PS_RK_N];
int ps_row_kind_code(const PsCapture *cap, const PsModel *m, size_t r);

/* Thread t's label, into buf (at most nBuf-1 bytes), returned: "process / thread", the process
** named by its name, else "pid N", left out when the pid is NULL; the thread by its name, else
** "tid N", left out when the tid is NULL; "main" when both are left out (a .cpuprofile's or folded
** file's only thread). The flame graph's first-level frames and profile_diff's 'thread' key. */
const char *ps_thread_label(const PsCapture *cap, uint32_t t, char *buf, size_t nBuf);

/* The capture's track model, built on first use (linear in rows + threads + tracks); NULL when
** out of memory. Freed with the capture. */
const PsModel *ps_capture_model(PsCapture *cap);
void ps_model_free(PsModel *m);

#endif
