/*
** stacks.h — the call-stack model every sampled format shares (stacks.c), without SQLite.
**
**   frames   A stack frame, or a node of a call tree, is a record (PsRecord, profile_records):
**            recordId = the frame/node id as the file has it (formats without ids: the node's
**            1-based order of first appearance), parent / parentId = the caller's, name = the
**            function, category = the frame's category (Chrome), script URL (V8), file or
**            module (pprof, speedscope), DSO (perf). zAttrs = the frame's particulars as a JSON
**            object: the file's own frame object for JSON formats, else one built from its
**            fields with the format's names (source line, column, address, ...).
**            count  = Σ weight of the samples whose leaf is this frame (self samples),
**            self   = Σ dur of those samples (ns), time = self plus the children's time
**            (inclusive); self/time stay NULL when no sample of the capture has a duration.
**   samples  An event row flagged PS_EV_SAMPLE, ph 'P' unless the file says otherwise; aStack
**            = the record row of its leaf frame, aWeight = how many samples it stands for (a
**            folded line's count, a pprof sample's count value; 1 when the array is NULL).
**            Slices may carry a stack too (Chrome sf/stack): aStack set, no PS_EV_SAMPLE.
**
** Formats whose stacks are lists of frames (pprof, perf script, folded stacks, speedscope) build
** the call tree with a PsStackTrie: one record per distinct path from a root, so the records are
** exactly a flame graph's nodes. Formats with their own node/frame ids (Chrome stackFrames, V8 CPU
** profiles) add frames with ps_frame_add and let ps_stacks_finish resolve the parents by id.
*/
#ifndef PS_STACKS_H
#define PS_STACKS_H

#include "capture.h"

/* ---------------------------------------------------------------- the call tree as a trie */
/* Parse-time index of the trie: (parent row, frame key) -> record row. Zero-initialise; free
** with ps_stack_trie_free once the parse is done (the records stay in the capture). The slots'
** places come from a keyed hash (ps_hash_pair), so no choice of frames makes one probe run long;
** they hold 4-byte indexes into the nodes (a table of a quarter the size of one holding the
** nodes: more of it stays in cache on a deep walk). */
typedef struct PsStackNode {
  uint64_t key;                       /* the frame key */
  int32_t parent;                     /* the parent's record row, -1 for a root */
  int32_t row;                        /* the node's record row */
} PsStackNode;
typedef struct PsStackTrie {
  PsStackNode *a; size_t n, nAlloc;   /* the nodes, in creation order */
  uint32_t *aSlot; size_t nSlot;      /* open addressing: index into a + 1, 0 empty; nSlot a power
                                      ** of 2 (0 before the first node), at least 2n */
} PsStackTrie;
void ps_stack_trie_free(PsStackTrie *t);

/* The record under record row `parent` (-1: a root) whose frame is `key` — a value the parser
** chooses so that equal frames have equal keys (e.g. the pool ids of name and category, a pprof
** function id): found, or created as a frame record with recordId = its 1-based order among all
** records, parentId = the parent's recordId (PS_NULL64 for a root), depth = the parent's + 1,
** name and category as given, count 0, time/self NULL. *pbNew (may be NULL) = 1 when created
** (the caller then sets line, zAttrs, ...). Returns the row, or -1 when out of memory. */
int32_t ps_stack_child(PsCapture *cap, PsStackTrie *t, int32_t parent, uint64_t key,
                       uint32_t name, uint32_t category, int *pbNew);
/* The frame key of (name, category) pool ids: the default key. */
static inline uint64_t ps_stack_key(uint32_t name, uint32_t category){
  return ((uint64_t)category << 32) | name;
}

/* ---------------------------------------------------------------- frames with ids */
/* Appends a frame record with the file's id and parent id (PS_NULL64: a root); the parent is
** resolved by ps_stacks_finish(cap, 1, ...). count 0, time/self NULL. NULL when out of memory. */
PsRecord *ps_frame_add(PsCapture *cap, int64_t id, int64_t parentId, uint32_t name, uint32_t category);

/* Resolves parentId -> parent row and depth for every record (parents may come later in the
** file). A record id used again, a parent id that names no record and a parent cycle are
** diagnostics ('duplicate', 'missing_parent', 'cycle'), never a loop: a duplicate and the
** members of a cycle (and what hangs below them) are left out of the tree (depth -1), a record
** whose parent is missing is a root. Messages name the record by zWhere: "line N" when it has
** a line, else "byte N" (msgOff); zId / zParent name the fields ("RecordId" / "ParentRecordId",
** "frame id" / "parent"). PS_OK or PS_NOMEM (err set). */
int ps_records_tree(PsCapture *cap, const char *zId, const char *zParent, PsErr *err);

/* The record tree as the recursive walk of sql/record_tree.sql (over profile_records' columns)
** finds it, for the plain scan that replaced that walk: one PsRecTree per record row, built on
** first use and kept in cap->aRecTree (freed with the capture). Ids are compared as the SQL
** joins compare them, by value: a ParentRecordId names the first record of that RecordId, in
** the tree or not; a record that names none, or has none, is a root when its depth is not -1;
** the children of a reached record are the records with depth not -1 whose ParentRecordId is
** its RecordId, in row order; a record reached twice (possible only if two records of one id
** were both in the tree, which ps_records_tree rules out) keeps its first place. Linear: a
** table of the ids (direct, or a hash when they are sparse), a children index, one
** breadth-first walk; 16 bytes a record kept. NULL when out of memory. */
const PsRecTree *ps_records_walk(PsCapture *cap);

/* ---------------------------------------------------------------- samples */
/* Appends a sample row: ph 'P', ts and dur in ns (dur PS_NULL64 when the format gives no
** interval), on thread (index into cap->aThread, and its track), leaf = record row (-1: the
** sample's stack is unknown or empty), weight (1 for one sample; any other value allocates
** aWeight). aOff = off (the sample's byte offset, or the 0-based line for text formats as the
** parser documents). Returns the row, or -1 when out of memory. */
int64_t ps_sample_add(PsCapture *cap, int64_t ts, int64_t dur, uint32_t thread, int32_t leaf,
                      int64_t weight, uint64_t off);

/* Gives event row `row` the stack whose leaf is the frame with id `id` (a record id), once
** ps_stacks_finish knows every frame (frames may be defined after the rows that use them). off
** = the byte offset (or line, for text formats) named when no frame has that id. PS_OK or
** PS_NOMEM. */
int ps_stack_ref(PsCapture *cap, int32_t row, int64_t id, uint64_t off);

/* After parsing: bResolve 1 runs ps_records_tree("frame id", "parent") first (frames with
** ids); the ps_stack_ref references are resolved ('unknown_id' diagnostic and no stack for an id
** no frame has); then every record's count, self and time are computed from the PS_EV_SAMPLE rows, in
** O(records + rows). Sums beyond int64 saturate at INT64_MAX (an 'other' diagnostic). PS_OK or
** PS_NOMEM (err set). */
int ps_stacks_finish(PsCapture *cap, int bResolve, PsErr *err);

/* The name a frame is shown by, into buf (at most nBuf-1 bytes), returned: its name; for a V8
** frame (a .cpuprofile node, a ProfileChunk's) whose functionName is '', "(anonymous) file:line"
** as DevTools shows it (the url's last path component, lineNumber + 1), or "(anonymous)". The
** flame graph, stack_functions (sql/stacks.sql says the same rule) and profile_diff name frames
** so. */
const char *ps_frame_label(const PsCapture *cap, const PsRecord *x, char *buf, size_t nBuf);
/* 1 when ps_frame_label gives x another name than its own (an anonymous V8 frame). */
int ps_frame_is_anonymous(const PsCapture *cap, const PsRecord *x);

/* "line N" or "byte N" for record r into buf (for diagnostics). */
const char *ps_record_where(const PsRecord *r, char *buf, size_t nBuf);

#endif
