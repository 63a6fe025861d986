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

/* Allocation-failure injection (tests/c/test_fault.c builds ext/ with -DPS_FAULT_INJECT): every
** malloc/calloc/realloc/strdup of ext/ goes through a counter that can make the k-th one fail. */
#ifdef PS_FAULT_INJECT
#include <stdlib.h>
#include <string.h>
extern long ps_fi_countdown;   /* allocations left before one fails; negative: never fail */
extern long ps_fi_count;       /* allocations made so far */
void *ps_fi_malloc(size_t n);
void *ps_fi_calloc(size_t a, size_t b);
void *ps_fi_realloc(void *p, size_t n);
char *ps_fi_strdup(const char *z);
#define malloc(n) ps_fi_malloc(n)
#define calloc(a, b) ps_fi_calloc(a, b)
#define realloc(p, n) ps_fi_realloc(p, n)
#define strdup(z) ps_fi_strdup(z)
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

/* Threads a parser may split one capture across (ext/chrome.c: an event array's byte ranges;
** ext/xspace.c: a line's recorded events): 0 = one per online core. Tests and the bench set it
** (1 = serial) to compare 1, 2 and N threads with the serial parse. Process-wide, like the
** cores it counts; it changes no result, only how many threads compute it. */
extern size_t ps_parse_threads;
#define PS_MAX_PARTS 16
/* The number of parts nWork units are cut into: ps_parse_threads (or one per online core), at
** most PS_MAX_PARTS, fewer when a part would hold less than nMinPart units; at least nMin. */
int ps_parse_parts(size_t nWork, size_t nMinPart, int nMin);

#endif
