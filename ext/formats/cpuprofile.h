/*
** cpuprofile.h — V8 CPU profiles on the JSON lexer (ext/wire/json.h): the pieces that read a profile's
** nodes and samples into the call-stack model (ext/model/stacks.h). The standalone .cpuprofile reader
** (format 'cpuprofile', cpuprofile.c) is built on them, and so is the Chrome trace reader for
** DevTools' 'Profile' / 'ProfileChunk' / 'CpuProfile' trace events (chrome.c), so both read V8
** profiles through one implementation. Nothing here includes SQLite.
**
** The model (docs/cpuprofile.md has the details):
**   node    a record: recordId = idBase + the node's "id"; parent from its "parent" field, else
**           from the "children" id lists of the other nodes (resolved by ps_v8_finish, then by
**           ps_stacks_finish), or from nesting (the old 'head' shape); name = functionName (''
**           stays ''), category = url (NULL when ''), attrs = the node object as written without
**           its "children" (a copy in the capture arena), msgOff = the node's '{'.
**   sample  an event row (ps_sample_add: ph 'P', weight 1): ts = the running clock, stack = the
**           node named, name = that node's functionName, cat = PsV8Profile.cat; aOff = the byte
**           offset of the sample's element in "samples". dur = the time to the profile's next
**           sample in time order; the last sample's dur = endNs - its ts when that is >= 0, else
**           NULL (ps_v8_profile_end).
**
** Use from a reader of several profiles (a Chrome trace):
**     PsV8 v; ps_v8_init(&v, cap, err);
**     per profile:  PsV8Profile p; ps_v8_profile_init(&p, startNs, idBase, thread);
**                   per chunk: ps_v8_nodes(&v, iNodes, p.idBase);
**                              ps_v8_samples(&v, &p, iSamples, iDeltas);
**                   once every chunk is read: ps_v8_profile_end(&v, &p, endNs);
**                   ps_v8_profile_free(&p);
**     ps_v8_finish(&v); ps_v8_free(&v);
**     ... then ps_stacks_finish(cap, 1, err) once for the whole capture (it resolves the parents
**     by id and computes count/self/time).
** or, for an object holding a whole profile (a .cpuprofile, a 'CpuProfile' event's
** args.data.cpuProfile): ps_v8_profile_object(). Offsets are byte offsets into cap->src.z of the
** value's first byte ('[' / '{'); 0 means "absent" (a nested value is never at byte 0).
** idBase keeps the ids of different profiles (and of other records of the capture, e.g. Chrome
** stackFrames) apart: every node id and every id a sample names is offset by it.
** Every function returns PS_OK, PS_ERROR (bad JSON: err says "byte N: ...") or PS_NOMEM, or
** PS_ERROR with ps_interrupted(err) when the host asked to stop.
*/
#ifndef PS_CPUPROFILE_H
#define PS_CPUPROFILE_H

#include "../model/stacks.h"
#include "../wire/json.h"

/* An object member: key quote at q (kn bytes of key as written), value [v, e); bOld: a later
** member of the same object has the same key (the last one is read). */
typedef struct PsV8Mem { size_t q, kn, v, e; uint8_t bOld; } PsV8Mem;
/* A "children" entry: node child's parent is node parent (both with idBase); off = the entry. */
typedef struct PsV8Link { int64_t child, parent; uint64_t off; } PsV8Link;

/* The reader's state for one capture (zero it with ps_v8_init). */
typedef struct PsV8 {
  PsCapture *cap;
  PsErr *err;
  const char *z; size_t n;            /* cap->src */
  PsBuf scratch;                      /* decoded strings */
  PsBuf attrs;                        /* a node's attrs being built */
  PsJsonKeys keys;                    /* keys of the object being read (duplicates) */
  PsV8Mem *aMem; size_t nMem, nMemAlloc;      /* members of the objects being read */
  PsV8Link *aLink; size_t nLink, nLinkAlloc;  /* pending parents from "children" lists */
  int64_t *aHashId; int32_t *aHashRow;        /* node id (with idBase) -> record row, first */
  size_t nHash, nHashUsed;                    /* record of an id only; open addressing */
  size_t nNode;                       /* nodes read (records added) */
  size_t nPoll;                       /* byte offset of the last item counted by ps_work (v8_poll) */
} PsV8;

/* One profile's sample clock and rows (a .cpuprofile, or one Chrome 'Profile' id). */
typedef struct PsV8Profile {
  int64_t clock;          /* ns: startTime plus the timeDeltas read so far (PS_NULL64: unknown) */
  int64_t idBase;         /* added to the node ids its samples name */
  uint32_t thread;        /* thread index (ps_thread_get) its rows go on */
  uint32_t cat;           /* pool id for the rows' cat, 0 for NULL */
  int32_t *aRow; size_t nRow, nRowAlloc;      /* its sample rows that have a ts, in file order */
  int32_t *aPend; size_t nPend, nPendAlloc;   /* rows naming a node not read yet */
  size_t nSample;         /* samples read */
  size_t nTime;           /* timeDeltas (or timestamps) read */
} PsV8Profile;

void ps_v8_init(PsV8 *v, PsCapture *cap, PsErr *err);
void ps_v8_free(PsV8 *v);
void ps_v8_profile_init(PsV8Profile *p, int64_t startNs, int64_t idBase, uint32_t thread);
void ps_v8_profile_free(PsV8Profile *p);

/* The array of node objects at iNodes ("nodes" of a .cpuprofile or of a ProfileChunk's
** cpuProfile): one record per node (ps_frame_add), id = idBase + "id". The parent is the
** node's "parent" when it has one (Chrome trace chunks), else the node whose "children" list
** names it (pending until ps_v8_finish). Diagnostics: a node that is not an object or has no
** integer id (skipped; the nodes its "children" name become roots), a "children" entry that is
** not an integer, duplicate keys. A node id used twice is reported by ps_stacks_finish. */
int ps_v8_nodes(PsV8 *v, size_t iNodes, int64_t idBase);

/* Appends one sample row per element of the array at iSamples (node ids), in order. The
** element at the same index of the array at iDeltas (µs, a number; may be negative and
** fractional, converted exactly) is added to p->clock first and the row's ts is the clock.
** iDeltas 0: no deltas (rows without ts). Counts that differ: a diagnostic; samples beyond the
** deltas have no ts, deltas beyond the samples still move the clock. A sample that is not an
** integer: a row without a stack ('other' diagnostic). Either array may be 0 (absent). */
int ps_v8_samples(PsV8 *v, PsV8Profile *p, size_t iSamples, size_t iDeltas);

/* After the profile's last chunk: gives each of its rows its stack and name (a sample naming
** no node: 'unknown_id' diagnostic, no stack), then its dur: the time to the profile's next
** sample in time order (samples given out of time order — negative timeDeltas — are ordered
** by ts, ties by row, as DevTools orders them, with one 'other' diagnostic), and for the last
** one endNs - ts when endNs is not PS_NULL64 and that is >= 0, else NULL. */
int ps_v8_profile_end(PsV8 *v, PsV8Profile *p, int64_t endNs);

/* After every ps_v8_nodes call: the parents the "children" lists give (a node with a "parent"
** field keeps it; a "children" entry naming no node: 'unknown_id'; a node in two lists, or
** whose "parent" field says otherwise: 'other', the first parent is kept). Call before
** ps_stacks_finish(cap, 1, err). */
int ps_v8_finish(PsV8 *v);

/* A whole profile object at iObj, in either shape V8 has written:
**   new  {nodes:[...], startTime, endTime (µs), samples:[ids], timeDeltas:[µs]}
**   old  {head:{... children:[node objects]}, startTime, endTime (whole seconds), samples,
**         timestamps:[absolute µs]} (v8-profiler, DevTools' "legacy format")
** read with idBase, rows on thread with cat (pool id or 0), and ended (ps_v8_profile_end);
** ps_v8_finish is left to the caller. zScope non-NULL: also writes profile_metadata rows of
** that scope (every member other than nodes/head/samples/timeDeltas/timestamps as written,
** and the counts 'nodes', 'samples', 'timeDeltas' / 'timestamps', and 'shape' = 'nodes' or
** 'head'). An object with neither "nodes" nor "head" is an error naming its byte. */
int ps_v8_profile_object(PsV8 *v, size_t iObj, int64_t idBase, uint32_t thread, uint32_t cat,
                         const char *zScope);

#endif
