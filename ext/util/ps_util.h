/*
** ps_util.h — small shared helpers for the libprofsql parsers and capture model.
**
** Nothing here includes SQLite: parsers and the capture model are plain C so they can be
** unit-tested and fuzzed on their own.
**
**   PsErr    a parse/load error: a message and, when known, the byte offset it refers to.
**   PsArena  a bump allocator for strings owned by a capture (freed all at once).
**   ps_hash  keyed 64-bit hashes of byte strings and integers (every hash table's slots).
**   ps_text_*  the text rule: every TEXT value is valid UTF-8 (RFC 3629) without NUL bytes.
*/
#ifndef PS_UTIL_H
#define PS_UTIL_H

#include <stddef.h>
#include <stdint.h>

/* ---- memory (issue 32). Every allocation of ext/ goes through ps_malloc / ps_calloc /
** ps_realloc / ps_free / ps_strdup: the Makefile compiles ext/ with -DPS_EXT_ALLOC, which maps
** malloc, calloc, realloc, free and strdup to them below; vtab/ calls them by name for what it
** allocates or frees of ext/'s. They serve two ends:
**   - the host's allocator: once the extension is loaded, blocks come from SQLite's
**     (sqlite3_malloc64 ..., set by ps_set_allocator), so PRAGMA hard_heap_limit and
**     sqlite3_memory_used() see a parse's memory. Blocks of PS_BIG_ALLOC bytes or more, which
**     SQLite's allocator refuses (it takes none of 2^31 - 256 bytes or more), come from the C
**     library, recorded in a small table so that ps_free knows them. Without a host (the C
**     tests, the fuzzers) every block is the C library's.
**   - a budget: while a load runs, ps_budget (per thread; a split parse's threads share their
**     loader's) counts the bytes its blocks hold (allocated minus freed), and an allocation
**     that would pass the budget's limit fails as out of memory would, with bOver set: the
**     loader then names the limit (profsql_config 'max_parse_memory') rather than "out of
**     memory". A block freed after its load counts against no budget. */
typedef struct PsAllocator {
  void *(*xMalloc)(unsigned long long);          /* sqlite3_malloc64's shape */
  void *(*xRealloc)(void*, unsigned long long);  /* sqlite3_realloc64's */
  void (*xFree)(void*);                          /* sqlite3_free's */
  unsigned long long (*xSize)(void*);            /* sqlite3_msize's: the usable size of a block */
} PsAllocator;
/* Installs the host's allocator for every ext/ allocation made from now on, once per process:
** the first call wins (two SQLite libraries in one process each loading libprofsql must not
** free each other's blocks), later calls change nothing. Returns 1 when p is (now) the one in
** force, 0 when another was installed first. */
int ps_set_allocator(const PsAllocator *p);
#define PS_BIG_ALLOC ((size_t)1 << 30)

typedef struct PsBudget {
  int64_t nLimit;        /* bytes the load's blocks may hold at once; <= 0: no limit */
  int64_t nUsed;         /* bytes they hold now (atomic: a split parse's threads share it) */
  int64_t nPeak;         /* the most they held */
  int bOver;             /* an allocation was refused for the limit */
} PsBudget;
extern _Thread_local PsBudget *ps_budget;

void *ps_malloc(size_t n);
void *ps_calloc(size_t a, size_t b);
void *ps_realloc(void *p, size_t n);
void  ps_free(void *p);
char *ps_strdup(const char *z);

/* Allocation-failure injection (tests/c/test_fault.c builds ext/ with -DPS_FAULT_INJECT): every
** allocation through ps_malloc & co. goes through a counter that can make the k-th one fail. */
#ifdef PS_FAULT_INJECT
extern long ps_fi_countdown;   /* allocations left before one fails; negative: never fail */
extern long ps_fi_count;       /* allocations made so far */
#endif

#if defined(PS_EXT_ALLOC) || defined(PS_FAULT_INJECT)
#include <stdlib.h>
#include <string.h>
#define malloc(n) ps_malloc(n)
#define calloc(a, b) ps_calloc(a, b)
#define realloc(p, n) ps_realloc(p, n)
#define free(p) ps_free(p)
#define strdup(z) ps_strdup(z)
#endif

/* Status codes shared by every loader and parser. */
#define PS_OK     0
#define PS_ERROR  1   /* bad input: PsErr.msg says what and where */
#define PS_NOMEM  2   /* out of memory: told apart from a parse error */
#define PS_INTERRUPT 3   /* PsErr.rc only: the host asked to stop (sqlite3_interrupt) */

/* An error: msg is a complete sentence fragment such as
** "byte 18231: expected ',' or ']' in traceEvents". off is the byte offset (or -1). */
typedef struct PsErr {
  int rc;             /* PS_ERROR or PS_NOMEM: what set it last */
  int64_t off;        /* byte offset in the (decompressed) input, -1 if none */
  char msg[768];      /* NUL-terminated message */
  uint8_t bEnd;       /* the reader ran into the end of the input (a string, number or value
                      ** left open): ps_capture_load words it "the input ends inside ..." */
  const char *zIn;    /* static text: what was being read then ("an event"), or NULL */
} PsErr;

/* A path or name for a PsErr message: z itself when it is at most PS_PATH_FIT bytes, else its
** first 60 and last 130 bytes around "...", written into buf (at least PS_PATH_FIT+1 bytes).
** Messages put such a name before the reason ("cannot open 'x': No such file or directory");
** fitting the name keeps the reason inside msg[] whatever the path's length. */
#define PS_PATH_FIT 200
const char *ps_path_fit(const char *z, char *buf);

/* Sets err (if not NULL) with a printf-style message; returns PS_ERROR. */
int ps_err(PsErr *err, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 2, 3)))
#endif
  ;
/* Sets err to "byte OFF: <message>"; returns PS_ERROR. */
int ps_err_at(PsErr *err, int64_t off, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 3, 4)))
#endif
  ;
/* Sets err to "out of memory"; returns PS_NOMEM. */
int ps_nomem(PsErr *err);
/* Sets err to "interrupted" with err->rc PS_INTERRUPT (the host asked to stop); returns
** PS_ERROR. */
int ps_interrupted(PsErr *err);

/* Bump allocator: many small allocations, one free. */
typedef struct PsArenaBlock PsArenaBlock;
typedef struct PsArena {
  PsArenaBlock *pHead;   /* newest block first */
  size_t nUsed;          /* bytes used in pHead */
  size_t nTotal;         /* bytes allocated over all blocks (for memory accounting) */
} PsArena;

void  ps_arena_init(PsArena *a);
void  ps_arena_free(PsArena *a);
/* Returns n bytes aligned to 8, or NULL when out of memory. Owned by the arena. */
void *ps_arena_alloc(PsArena *a, size_t n);
/* Moves every block of src into dst (pointers into them stay valid); src is left empty. */
void ps_arena_adopt(PsArena *dst, PsArena *src);
/* Copies z[0..n) into the arena and NUL-terminates it; NULL when out of memory. */
char *ps_arena_strdup(PsArena *a, const char *z, size_t n);

/* Growable scratch buffer for decoded strings. */
typedef struct PsBuf { char *z; size_t n, nAlloc; } PsBuf;
void ps_buf_free(PsBuf *b);
int  ps_buf_append(PsBuf *b, const char *z, size_t n);   /* 0 ok, -1 out of memory */
/* Appends; -1 when out of memory (the buffer then stays as it was). */
int ps_buf_puts(PsBuf *b, const char *z);
int ps_buf_printf(PsBuf *b, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 2, 3)))
#endif
  ;
/* Appends z[0..n) as text that obeys the text rule (below): copied when it is valid UTF-8
** without NUL bytes, else repaired (each invalid sequence and each NUL as U+FFFD). -1 when out
** of memory. */
int ps_buf_text(PsBuf *b, const char *z, size_t n);

/* Keyed hashing (ps_util.c): every hash table's slots come from these. The key is a secret drawn
** once per process (PROFSQL_HASH_SEED fixes it for tests), so an input cannot pick colliding keys;
** no result may depend on it (a table's iteration order never reaches the output).
**   ps_hash       a byte string
**   ps_hash_u64   one integer (an id, a packed key)
**   ps_hash_pair  two integers (a trie's parent and child key, a pid and a tid)
**   ps_hash_fixed the same in every process, unkeyed: for what is shown (a colour), never slots */
uint64_t ps_hash(const void *p, size_t n);
uint64_t ps_hash_u64(uint64_t x);
uint64_t ps_hash_pair(uint64_t a, uint64_t b);
uint64_t ps_hash_fixed(const void *p, size_t n);
/* Slots examined by this thread's hash-table lookups and inserts, every table: each probe loop
** adds one per slot it looks at. Tests read it to assert bounded work under chosen keys (a count,
** not a time: the same on any machine). */
extern _Thread_local uint64_t ps_nProbe;

/* The text rule (docs/security.md, "Text"): every TEXT value libprofsql returns is valid UTF-8
** (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF) without NUL bytes.
** ps_text_check returns 1 when z[0..n) obeys it; else 0 and *pBad (if not NULL) = the offset of
** the first byte that breaks it. Costs one pass (ASCII eight bytes at a time), copies nothing. */
int ps_text_check(const char *z, size_t n, size_t *pBad);
/* Writes the repaired z[0..n) to zOut and returns its length; zOut NULL: only returns the length
** (at most 3n). Each maximal invalid subsequence (Unicode's "maximal subpart" practice, as the
** WHATWG decoder and Python's bytes.decode('utf-8', 'replace') do) and each NUL byte becomes
** U+FFFD (EF BF BD); everything valid is copied as it is. */
size_t ps_text_repair(const char *z, size_t n, char *zOut);
/* z[0..n) as a C string for a key or label: its first nMax bytes (cut before a character, not
** inside one) repaired as above, so a NUL becomes U+FFFD rather than the end of the string, into
** buf (3*nMax+1 bytes). Returns buf. */
char *ps_text_cstr(const char *z, size_t n, size_t nMax, char *buf);

/* Grows a malloc'ed array *pa of element size sz so that it can hold at least need elements.
** *pnAlloc is the current capacity, updated. Returns 0, or -1 when out of memory. */
int ps_grow(void **pa, size_t sz, size_t *pnAlloc, size_t need);

/* Asks for transparent huge pages (madvise MADV_HUGEPAGE) on the 2 MiB-aligned part of a block of
** at least 8 MiB that is about to be written once: faulting tens of MB in 4 KiB pages costs more
** kernel time than the decode that fills them (docs/performance.md). A no-op elsewhere. */
void ps_hugepages(void *p, size_t nByte);

/* Threads a parser may split one capture across (ext/formats/chrome.c: an event array's byte ranges;
** ext/formats/xspace.c: a line's recorded events): 0 = one per online core. Tests and the bench set it
** (1 = serial) to compare 1, 2 and N threads with the serial parse. Process-wide, like the
** cores it counts; it changes no result, only how many threads compute it. */
extern size_t ps_parse_threads;
#define PS_MAX_PARTS 16
/* The number of parts nWork units are cut into: ps_parse_threads (or one per online core), at
** most PS_MAX_PARTS, fewer when a part would hold less than nMinPart units; at least nMin. */
int ps_parse_parts(size_t nWork, size_t nMinPart, int nMin);

/* a + b, saturating at INT64_MIN / INT64_MAX */
static inline int64_t ps_add_sat(int64_t a, int64_t b){
  int64_t r;
  if( __builtin_add_overflow(a, b, &r) ) return b > 0 ? INT64_MAX : INT64_MIN;
  return r;
}

#endif
