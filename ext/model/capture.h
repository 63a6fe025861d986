/*
** capture.h — the in-memory columnar capture: what every format parser produces and every
** virtual table reads. One PsCapture per loaded capture file or BLOB.
**
**   bytes (PsSource) -> format parser -> PsCapture -> vtab cursors -> SQL
**
** Model
**   events    one row per event/slice, columnar arrays indexed by row id (0-based, file order of
**             the event that starts the row). Times are integer nanoseconds.
**   threads   distinct (pid, tid) pairs; pid/tid are INTEGER or TEXT values as in the file.
**   tracks    timelines that rows nest on: a thread, an async (category, id) group, a counter.
**   meta      (scope, key, value, offset) rows: file-level keys, metadata events, counts and
**             import diagnostics (with the byte offset they refer to).
**   strings   interned in a pool: equal strings share one id, so names cost 4 bytes a row.
** Columns that are rarely read (args, thread time, ids) are not stored: the format's
** xColumn hook re-reads them from the source bytes at aOff[row] on demand.
**
** Nothing here includes SQLite.
*/
#ifndef PS_CAPTURE_H
#define PS_CAPTURE_H

#include "../util/ps_util.h"
#include "../source/source.h"
#include <stdint.h>

#define PS_NULL64 INT64_MIN        /* "no value" in int64 columns (dur, tts, ...) */

/* ---------------------------------------------------------------- string pool */
typedef struct PsStr { const char *z; uint32_t n; } PsStr;
typedef struct PsPool {
  PsArena arena;          /* string bytes */
  PsStr *a;               /* a[id]; id 0 is the NULL string */
  size_t n, nAlloc;
  uint32_t *aHash;        /* open addressing table of ids (0 = empty) */
  size_t nHash;           /* power of two */
} PsPool;

int  ps_pool_init(PsPool *p);
void ps_pool_free(PsPool *p);
/* Interns z[0..n); returns its id (>=1), or 0 when out of memory. *pbNew = 1 when added.
** The pool holds only text that obeys the text rule (ps_text_check): a new string that does not
** is stored as ps_text_repair makes it, and its id is the repaired string's. */
uint32_t ps_pool_intern(PsPool *p, const char *z, size_t n, int *pbNew);
/* The same; *pBad (if not NULL) = the offset in z of the first byte the repair replaced, or
** PS_TEXT_OK when z was stored as it is. */
#define PS_TEXT_OK ((size_t)-1)
uint32_t ps_pool_intern_text(PsPool *p, const char *z, size_t n, int *pbNew, size_t *pBad);
static inline PsStr ps_pool_get(const PsPool *p, uint32_t id){ return p->a[id]; }

/* ---------------------------------------------------------------- values */
#define PS_VAL_NULL 0
#define PS_VAL_INT  1
#define PS_VAL_TEXT 2
typedef struct PsValue {
  int64_t i;              /* PS_VAL_INT */
  uint32_t s;             /* PS_VAL_TEXT: pool id */
  uint8_t type;
} PsValue;

typedef struct PsThread {
  PsValue pid, tid;
  uint32_t processName;   /* pool id or 0 */
  uint32_t threadName;    /* pool id or 0 */
  uint32_t track;         /* the thread's own track */
} PsThread;

#define PS_TRACK_THREAD  1
#define PS_TRACK_ASYNC   2
#define PS_TRACK_COUNTER 3
#define PS_TRACK_CPU     4      /* one CPU's timeline (ftrace sched_switch): name = pool id of "cpu N" */
#define PS_TRACK_INSTANT 5      /* instants of a process ('s':'p') or of the whole trace ('s':'g') */
/* What a track belongs to (PsTrack.scope): its thread (the default), its thread's process, the
** whole capture, or a CPU (PsTrack.cpu). ext/model/tracks.h turns kind + scope into the track
** model's kinds ('thread', 'process_async', 'global_async', 'process_counter', ...). */
#define PS_SCOPE_THREAD  0
#define PS_SCOPE_PROCESS 1
#define PS_SCOPE_GLOBAL  2
#define PS_SCOPE_CPU     3
typedef struct PsTrack {
  uint8_t kind;           /* PS_TRACK_* */
  uint8_t scope;          /* PS_SCOPE_*: 0 (thread) unless the format says otherwise */
  int32_t cpu;            /* PS_SCOPE_CPU: the CPU; else -1 */
  uint32_t thread;        /* thread of the first event on it */
  uint32_t name;          /* pool id of a description ("async cat=x id=0x1"), or 0 */
} PsTrack;

/* ---------------------------------------------------------------- metadata */
#define PS_META_INT  1
#define PS_META_REAL 2
#define PS_META_TEXT 3
#define PS_META_JSON 4    /* text that is a JSON value */
#define PS_META_TRACK 5   /* a track's row (scope 'track'): i = the track; its key (i in decimal) and
                          ** its TEXT value (ps_track_text) are made when read (ps_meta_key,
                          ** ps_meta_value) */
#define PS_META_DROPPED 0xFF  /* while parsing: a row ps_meta_compact removes */
typedef struct PsMeta {
  uint32_t scope, key;    /* pool ids */
  uint8_t type;
  int64_t i; double r;    /* INT / REAL */
  const char *z; size_t n;/* TEXT/JSON: into the source bytes or the capture arena */
  int64_t off;            /* byte offset it refers to, or -1 */
} PsMeta;

/* Diagnostic kinds (names in ps_diag_names): each is counted; see ps_diag(). */
enum { PS_DIAG_UNMATCHED_END, PS_DIAG_UNCLOSED, PS_DIAG_OVERLAP, PS_DIAG_NO_PH,
       PS_DIAG_EMPTY, PS_DIAG_OTHER, PS_DIAG_UNPARSED, PS_DIAG_MISSING_PARENT, PS_DIAG_CYCLE,
       PS_DIAG_DUPLICATE, PS_DIAG_UNKNOWN_ID,
       PS_DIAG_INVALID_TEXT,      /* text repaired under the text rule (ps_intern, ps_meta_text) */
       PS_DIAG_DUPLICATE_KEY,     /* a JSON key given twice in one object: the last one is used */
       PS_DIAG_LENIENT_JSON,      /* JSON that breaks RFC 8259 but is read as its writer meant (a
                                  ** trailing comma, a raw control character in a string) */
       PS_DIAG_SKIPPED_EVENT,     /* an event left out: a field it cannot be read without is invalid */
       PS_DIAG_N };

/* ---------------------------------------------------------------- events */
/* aFlags bits */
#define PS_EV_SLICE   0x01   /* has an extent [ts, ts+dur): nests and can be a parent */
#define PS_EV_POINT   0x02   /* an instant on its track: gets a parent, is never one */
#define PS_EV_DEAD    0x04   /* merged into another row; removed by ps_capture_compact */
#define PS_EV_SAMPLE  0x08   /* a stack sample: counts toward its leaf record (ext/model/stacks.h) */
#define PS_EV_FMT1    0x10   /* format-specific bits */
#define PS_EV_FMT2    0x20
#define PS_EV_FMT3    0x40
#define PS_EV_FMT4    0x80

typedef struct PsEvents {
  size_t n, nAlloc;
  int64_t  *aTs;          /* start, ns */
  int64_t  *aDur;         /* duration, ns, PS_NULL64 when unknown */
  uint64_t *aOff;         /* byte offset of the event in the source bytes */
  uint64_t *aEndOff;      /* chrome: offset of the event that ended this row (0 = none); NULL if unused */
  uint32_t *aLen;         /* format-specific, NULL if unused: xspace, xprof, pprof: length of the
                          ** message at aOff; chrome: where its args value is (chrome.c CH_ARGS_*) */
  uint32_t *aName;        /* pool id */
  uint32_t *aCat;         /* pool id */
  uint32_t *aThread;      /* index into threads */
  uint32_t *aTrack;       /* index into tracks */
  int32_t  *aParent;      /* parent row id, -1 for none */
  int32_t  *aDepth;       /* nesting depth on the track, -1 for NULL */
  uint8_t  *aPh;          /* phase character ('X', 'B', ...) or 0 */
  uint8_t  *aFlags;       /* PS_EV_* */
  /* stacks (ext/model/stacks.h); each NULL until a parser asks for it (ps_events_want_stack) */
  int32_t  *aStack;       /* record row of the leaf frame of the row's stack, -1 for none */
  int64_t  *aWeight;      /* samples a sample row stands for (folded counts, pprof values); 1 when NULL */
  int32_t  *aCpu;         /* CPU the row ran on, -1 for none (perf script, Chrome samples, ftrace) */
} PsEvents;

/* A row's stack named by frame id, resolved once every frame is known (ext/model/stacks.h). */
typedef struct PsStackRef { int32_t row; int64_t id; uint64_t off; } PsStackRef;

/* A (row -> row) link, e.g. the slice a flow event binds to. Sorted by row after parsing. */
typedef struct PsLink { int32_t row, target; } PsLink;

/* ---------------------------------------------------------------- timer records */
/* One record line of a timings report (PocketMine-MP, Spigot/Bukkit): see ext/formats/timings.c.
** int64 fields are PS_NULL64 when the report does not have them. */
typedef struct PsRecord {
  int64_t recordId;       /* RecordId, or the 1-based line order for reports without ids */
  int64_t parentId;       /* ParentRecordId as written (PS_NULL64 for 'none' / no tree) */
  int64_t timerId, threadId;
  int64_t time, count, violations, ticks, peak;   /* ns, -, -, ticks, ns */
  int64_t self;           /* time minus the children's time (PS_NULL64 without a tree) */
  uint64_t avgOff;        /* the Avg literal in the source (avgLen 0: absent) */
  uint32_t avgLen;
  uint32_t line;          /* 1-based line number */
  int32_t parent;         /* row of the resolved parent, -1 for roots and unresolvable ones */
  int32_t depth;          /* depth in the tree (0 = root), -1 when in a parent cycle */
  uint32_t category, name, group, plugin;         /* pool ids */
  /* protobuf records (ext/formats/xprof.c): the record's message in the source, its schema (a
  ** PbMsgDef, for the attrs column) and the repeated field it came from (record_set) */
  uint64_t msgOff;
  uint32_t msgLen;
  uint32_t recordSet;     /* pool id or 0 */
  const void *pMsgDef;    /* the format's per-record schema for attrs (xprof.c: a PbMsgDef,
                          ** datatable.c: the table's column keys); NULL: no attrs */
  /* stack frames (ext/model/stacks.h): the frame's attrs, a JSON object as the file gives the frame
  ** (into the source bytes or the capture arena), used when the format has no xRecordColumn */
  const char *zAttrs;
  uint32_t nAttrs;
} PsRecord;

/* A record's place in the record tree as the walk of sql/record_tree.sql meets it: from the roots
** (depth not NULL, ParentRecordId none or naming no record) down to the records (depth not
** NULL) whose ParentRecordId is a reached record's RecordId. Built once per capture, on first
** use, by ps_records_walk (ext/model/stacks.h); profile_records' root_id, parent_time_ns,
** root_time_ns and children_time_ns columns read it. */
typedef struct PsRecTree {
  int64_t childTime;      /* Σ time of the records in the tree whose ParentRecordId is this
                          ** RecordId (NULL times skipped; 0 when none has one); PS_NULL64 for a
                          ** record out of the tree, or when the sum is beyond int64 */
  int32_t root;           /* row of the root the walk reaches the record from; -1: not reached */
  int32_t parent;         /* row of the record the walk reaches it through; -1: a root, or not
                          ** reached */
} PsRecTree;

/* ---------------------------------------------------------------- XSpace planes and lines */
/* An XPlane of an XSpace capture (ext/formats/xspace.c); keyed by its index in the file. */
typedef struct PsPlane {
  uint32_t index;
  int64_t id;             /* XPlane.id (not unique in real files) */
  uint32_t name;          /* pool id */
  uint32_t nLines;
  size_t off, len;        /* the XPlane message in the source */
  void *aEventMeta;       /* sorted event metadata table (xspace.c's XMeta), in the capture arena */
  void *aStatMeta;        /* sorted stat metadata table */
  size_t nEventMeta, nStatMeta;
} PsPlane;

/* An XLine. */
typedef struct PsLine {
  uint32_t plane;         /* plane index */
  int64_t id, displayId;
  uint32_t name, displayName;     /* pool ids */
  int64_t timestampNs, durationPs;
  uint32_t nEvents, firstRow;
} PsLine;

/* A newengine job (jobs.c): where its JSON object (or CSV record) is in the source bytes. */
typedef struct PsJob {
  uint64_t off;           /* '{' of the job object, or the first byte of the CSV record */
  uint32_t len;           /* bytes of the object / record (without the line end) */
  uint8_t bActive;        /* 1 for an entry of active_jobs */
  uint32_t line;          /* CSV: 1-based line of the record; JSON: 0 */
} PsJob;

/* ---------------------------------------------------------------- format hooks */
/* A value produced by a format's lazy column hook; the vtab turns it into an SQL result. */
typedef struct PsOut {
  int type;               /* PS_META_* or 0 for NULL */
  int64_t i; double r;
  const char *z; size_t n;
  char *zFree;            /* if set, z was malloc'ed and the receiver frees it */
} PsOut;

typedef struct PsCapture PsCapture;
typedef struct PsFormat {
  const char *zName;                                /* 'chrome', ... */
  int (*xProbe)(const char *z, size_t n);           /* >0 when the bytes look like this format */
  int (*xParse)(PsCapture *cap, PsErr *err);        /* fills cap from cap->src */
  /* Lazy columns: fills *pOut for column iCol (PS_COL_*) of row; PS_OK or PS_NOMEM.
  ** NULL for a format without any (every lazy column is then NULL). */
  int (*xColumn)(const PsCapture *cap, size_t row, int iCol, PsOut *pOut);
  /* The same for record rows (profile_records); NULL when the format has no lazy record
  ** columns. */
  int (*xRecordColumn)(const PsCapture *cap, size_t row, int iCol, PsOut *pOut);
} PsFormat;

/* Lazy column ids understood by xColumn */
#define PS_COL_ARGS      1
#define PS_COL_TTS       2
#define PS_COL_TDUR      3
#define PS_COL_ASYNC_ID  4
#define PS_COL_SCOPE     5
#define PS_COL_FLOW_ID   6
#define PS_COL_FLOW_IN   7
#define PS_COL_FLOW_OUT  8
#define PS_COL_DISPLAY_NAME 9
#define PS_COL_OFFSET_PS    10
#define PS_COL_DURATION_PS  11
#define PS_COL_NUM_OCC      12
#define PS_COL_ATTRS        13     /* records: the record's fields as JSON */

struct PsCapture {
  const PsFormat *pFormat;
  PsSource src;           /* the bytes; strings and offsets point into src.z */
  PsArena arena;          /* other strings owned by the capture */
  PsPool pool;
  PsEvents ev;
  PsThread *aThread; size_t nThread, nThreadAlloc;
  uint32_t *aThreadHash; size_t nThreadHash;     /* (pid, tid) -> thread index + 1 */
  PsTrack *aTrack;   size_t nTrack, nTrackAlloc;
  PsMeta *aMeta;     size_t nMeta, nMetaAlloc;
  PsLink *aLink;     size_t nLink, nLinkAlloc;    /* flow binding: event row -> slice row */
  PsRecord *aRec;    size_t nRec, nRecAlloc;      /* timer records (timings reports), stack frames */
  PsStackRef *aStackRef; size_t nStackRef, nStackRefAlloc;  /* pending until ps_stacks_finish */
  PsPlane *aPlane;   size_t nPlane, nPlaneAlloc;  /* XSpace planes */
  PsLine *aLine;     size_t nLine, nLineAlloc;    /* XSpace lines */
  char *zHost;                                    /* XSpace hostnames[0] (arena), or NULL */
  const void *pFmtData;   /* the format's own tables for its lazy hooks (in the arena), or NULL */
  /* Linux ftrace text embedded in a capture of another format (a systrace HTML document's text
  ** blocks beside its JSON block, a Chrome trace's 'systemTraceEvents' string): its rows are
  ** [iFtraceRow, ev.n), read by ps_ftrace_read (formats.h), their lazy columns by
  ** ps_ftrace_column and their byte offsets into that text (pFmtData holds it) */
  int bFtrace;
  size_t iFtraceRow;
  PsJob *aJob;       size_t nJob, nJobAlloc;      /* newengine jobs */
  int8_t *aJobCsvCol;     /* jobs CSV: cell index of each PS_JOB_* column, -1 absent (arena) */
  /* built on first use by ps_capture_children() */
  int32_t *aChildStart;   /* n+1 offsets into aChildList */
  int32_t *aChildList;    /* row ids grouped by parent, in row order */
  int32_t *aRoots;        /* rows without a parent */
  size_t nRoots;
  int32_t *aByStr[2];     /* rows ordered by (name, row) / (cat, row) string order; built on use */
  int32_t *aRecById;      /* record rows ordered by (recordId, row); built on use */
  int32_t *aRecByParent;  /* record rows ordered by (parentId, row); built on use */
  PsRecTree *aRecTree;    /* per record row: its place in the record tree; built on use */
  void *pModel;           /* the track model (ext/model/tracks.h); built on use ... */
  void (*xModelFree)(void*);  /* ... and how it is freed (tracks.c sets both: capture.c frees it
                          ** without depending on tracks.c) */
  size_t nDiag[PS_DIAG_N];/* diagnostics per kind, for capping the rows written */
  uint64_t nWork;         /* probes/steps of the post-parse passes that pair or look up rows: tests
                          ** scale an input 4x and assert this grows linearly (no timing) */
};

PsCapture *ps_capture_new(void);
void ps_capture_free(PsCapture *cap);
/* Approximate bytes of memory held (not counting the source bytes). */
size_t ps_capture_memory(const PsCapture *cap);

/* Appends a record row of a flat list (protobuf and DataTable statistics, ext/formats/xprof.c,
** ext/formats/datatable.c): record_id = its 1-based order, no parent, depth 0, every int64 column NULL,
** the rest zero. NULL when out of memory. */
PsRecord *ps_record_add(PsCapture *cap);

/* Appends a zeroed event row (parent -1, depth -1, dur NULL); returns its index or -1 (nomem). */
int64_t ps_events_add(PsCapture *cap);
/* Reserves room for at least n rows in total. */
int ps_events_reserve(PsCapture *cap, size_t n);
/* Gives the memory of the rows before row 'to' back to the system, in the row columns that live
** in pages of their own (whole 2 MB units only, those not given back by an earlier call with
** 'from' = that call's 'to'); the rows may then read as zero. For the part of a split parse
** whose rows have just been copied into the whole (ch_merge), so that the copy's fresh pages are
** the ones just freed: on a VM whose host backs a guest page only at its first touch, a fresh
** page costs ~35x one the process had before (docs/performance.md). */
void ps_events_release_rows(PsCapture *cap, size_t from, size_t to);
/* Allocates ev.aEndOff / ev.aLen (zeroed) if not yet. */
int ps_events_want_endoff(PsCapture *cap);
int ps_events_want_len(PsCapture *cap);
/* Allocates ev.aStack (every row -1), ev.aWeight (every row 1) / ev.aCpu (every row -1) if not yet. */
int ps_events_want_stack(PsCapture *cap);
int ps_events_want_weight(PsCapture *cap);
int ps_events_want_cpu(PsCapture *cap);

/* Finds or adds the thread (pid, tid); returns its index or -1 when out of memory.
** A new thread also gets a PS_TRACK_THREAD track. */
int64_t ps_thread_get(PsCapture *cap, const PsValue *pid, const PsValue *tid);
int64_t ps_track_add(PsCapture *cap, int kind, uint32_t thread, uint32_t name);

/* ---------------------------------------------------------------- the text rule
** Every TEXT value a parser stores obeys the text rule (ps_util.h: valid UTF-8, no NUL bytes).
** ps_intern interns text read for field zField (a phrase for the diagnostic: "name",
** "XLine.name") whose first byte z[0] is source byte off (-1: not known). A string that breaks
** the rule is stored repaired and adds an 'invalid_text' diagnostic naming the field and the
** offset of its first bad byte. PS_OK or PS_NOMEM. */
int ps_intern(PsCapture *cap, const char *z, size_t n, int64_t off, const char *zField, uint32_t *pId);
/* The 'invalid_text' diagnostic for z[0..n), whose first bad byte z[bad] is source byte off. */
int ps_text_diag(PsCapture *cap, int64_t off, const char *zField, const char *z, size_t n, size_t bad);

/* Metadata rows. zScope/zKey are interned. Return PS_OK or PS_NOMEM. A TEXT or JSON value is
** stored repaired when it breaks the text rule (in the capture arena); a value that points into
** the source bytes then also gets an 'invalid_text' diagnostic naming its bad byte. */
int ps_meta_int(PsCapture *cap, const char *zScope, const char *zKey, int64_t v, int64_t off);
int ps_meta_real(PsCapture *cap, const char *zScope, const char *zKey, double v, int64_t off);
int ps_meta_text(PsCapture *cap, const char *zScope, const char *zKey, const char *z, size_t n,
                 int type, int64_t off);
/* A JSON member given again (the last one wins): marks the metadata rows [m0, m1) that the
** earlier member's value produced as dropped, except diagnostics (they stay true of the file);
** the parser calls ps_meta_compact once it is done. */
void ps_meta_drop(PsCapture *cap, size_t m0, size_t m1);
void ps_meta_compact(PsCapture *cap);
/* A PS_META_TRACK row for track t, after the rows so far: no text is made or kept until it is
** read (a Chrome trace has a track per async id: 150k at 5M events, whose texts cost 3.5 % of the
** load's instructions and ~20 MB). PS_OK or PS_NOMEM. */
int ps_meta_track(PsCapture *cap, size_t t);
/* How every reader sees metadata row m. Its key: the pool's string (z NULL for id 0), or, for a
** PS_META_TRACK row, the track in decimal written into zBuf (PS_META_KEY_BUF bytes). Its value
** (type 0 for NULL): as stored, or a PS_META_TRACK row's ps_track_text written into zBuf
** (PS_META_TRACK_BUF bytes: at most 511 bytes, cut before a character, never inside one; a
** reader applies the text rule to it as to every value read lazily: ps_vt_result). */
#define PS_META_KEY_BUF 24
#define PS_META_TRACK_BUF 512
PsStr ps_meta_key(const PsCapture *cap, const PsMeta *m, char *zBuf);
void ps_meta_value(const PsCapture *cap, const PsMeta *m, PsOut *o, char *zBuf);
/* Formats a TEXT value into the arena. */
int ps_meta_printf(PsCapture *cap, const char *zScope, const char *zKey, int64_t off,
                   const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 5, 6)))
#endif
  ;
/* Diagnostic kinds: each is counted; at most PS_DIAG_ROWS rows per kind are kept, and a final
** ('diagnostic', '<kind>_count', N) row gives the total. */
#define PS_DIAG_ROWS 1000
int ps_diag(PsCapture *cap, int kind, int64_t off, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 4, 5)))
#endif
  ;
/* Writes the *_count rows for the diagnostics (call once, after parsing). */
int ps_diag_finish(PsCapture *cap);
extern const char *const ps_diag_names[PS_DIAG_N];

/* Removes rows flagged PS_EV_DEAD and renumbers parents/links. */
int ps_capture_compact(PsCapture *cap);
/* Computes aDepth/aParent by containment per track for PS_EV_SLICE/PS_EV_POINT rows:
** rows sorted by (ts, longer first, row id); a row is the child of the innermost open slice
** that contains it. An open slice that a new slice starts inside but outlasts is closed for
** nesting (reported as 'overlap'), so partial overlaps never cascade into deep chains.
** Slices with unknown dur (never ended) extend to the end of the track. */
int ps_capture_nest(PsCapture *cap, PsErr *err);
/* Builds the parent -> children index (idempotent). */
int ps_capture_children(PsCapture *cap);
/* Rows ordered by the BINARY (memcmp) order of their name (iWhich 0) or cat (1) string, NULL
** first, ties in row order: what ORDER BY / GROUP BY name needs without a sorter. Built once per
** capture on first use (counting sort over string ranks). Returns NULL when out of memory. */
const int32_t *ps_capture_order_by_str(PsCapture *cap, int iWhich);
/* Record rows whose recordId (bParent 0) or parentId (bParent 1) equals v: *pn rows from the
** returned position of an index built on first use; NULL when out of memory. */
const int32_t *ps_capture_records_eq(PsCapture *cap, int bParent, int64_t v, size_t *pn);
/* Returns the target of row's link or -1. */
int32_t ps_capture_link(const PsCapture *cap, int32_t row);
/* Sorts links by row (call after adding them). */
void ps_capture_sort_links(PsCapture *cap);

/* The name of the format row was read as: the capture's, or "ftrace" for a row of embedded
** ftrace text (bFtrace). */
static inline const char *ps_row_format(const PsCapture *cap, size_t row){
  return (cap->bFtrace && row>=cap->iFtraceRow) ? "ftrace" : cap->pFormat->zName;
}

/* Formats a PsValue as text into buf (for descriptions). */
const char *ps_value_text(const PsCapture *cap, const PsValue *v, char *buf, size_t nBuf);
/* A value's slot hash (keyed: ps_util.h) for the tables keyed by a pid or tid value. */
uint64_t ps_value_hash(const PsValue *v);
/* Describes track t into buf (truncated to nBuf): "thread pid=1 tid=2", "cpu 2",
** "async cat=x id=0x1[ scope=s][ local to pid=p]", "counter pid=1 name=Memory[ id=i]"
** (profile_metadata scope 'track', flame graph labels). */
const char *ps_track_text(const PsCapture *cap, size_t t, char *buf, size_t nBuf);

#endif
