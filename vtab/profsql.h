/*
** profsql.h — what the SQLite-facing files of libprofsql share: the per-connection state
** (the capture cache), loading a capture from SQL arguments, and each module's register function.
**
** Loading (ps_vt_acquire): `source` is a file path (TEXT) or the capture's bytes (BLOB); the
** optional `format` names the format ('chrome'), NULL/''/'auto' detects it from the content.
** Parsed captures are cached per connection:
**   - a path is reused while (path, size, mtime, inode) are unchanged; a changed file is re-read;
**   - a BLOB is reused while an identical BLOB (same size and bytes) is passed again;
**   - at most PS_CACHE_MAX unused captures are kept (least recently used goes first).
** Cursors hold a reference, so a capture evicted or replaced while a query runs stays valid.
*/
#ifndef PROFSQL_H
#define PROFSQL_H

#include <sqlite3ext.h>
#include "../ext/capture.h"
#include "../ext/formats.h"

#ifndef PROFSQL_VERSION
#define PROFSQL_VERSION "0.0.0-dev"
#endif

#define PS_CACHE_MAX 4

typedef struct PsCacheEntry PsCacheEntry;

/* Per-connection state, shared by the modules and functions of one connection. */
typedef struct PsConn {
  int nRef;                 /* one per registered module/function using it */
  PsCacheEntry *pFirst;     /* cached captures, most recently used first */
  uint64_t nLoads;          /* captures parsed (for profsql_debug()/tests) */
  uint64_t nHits;           /* cache hits */
} PsConn;

struct PsCacheEntry {
  PsCacheEntry *pNext;
  PsConn *pConn;            /* NULL once removed from the cache */
  int nRef;                 /* cursors using it + 1 while in the cache */
  char *zPath;              /* file path, or NULL for a BLOB */
  void *pBlob; size_t nBlob;/* BLOB bytes as passed (copy), for comparison */
  int64_t size, mtimeNs; uint64_t dev, ino;
  const PsFormat *pFmt;     /* format asked for, NULL when detected */
  PsCapture *cap;           /* the parsed capture, owned */
};

PsConn *ps_conn_new(void);
void ps_conn_release(void *pConn);          /* sqlite3 destructor signature */

/* Loads (or finds cached) the capture for source/format. On error returns NULL and sets *pzErr
** to an sqlite3_malloc'ed message that starts with zTable ("profile_events: ..."). */
PsCacheEntry *ps_vt_acquire(PsConn *pConn, const char *zTable, sqlite3_value *pSource,
                            sqlite3_value *pFormat, char **pzErr);
void ps_vt_release(PsCacheEntry *p);

/* Sets an SQL result from a PsOut (frees pOut->zFree). */
void ps_vt_result(sqlite3_context *ctx, PsOut *pOut);
/* Replaces pVtab->zErrMsg with a printf-style message. */
void ps_vt_error(sqlite3_vtab *pVtab, const char *zFmt, ...);

int ps_events_register(sqlite3 *db, PsConn *pConn);
int ps_metadata_register(sqlite3 *db, PsConn *pConn);

#endif
