/*
** ps_vtab.h — what the SQLite-facing files of libprofsql share: the per-connection state
** (the capture cache), loading a capture from SQL arguments, and each module's register function.
**
** Loading (ps_vt_acquire): `source` is a file path (TEXT) or the capture's bytes (BLOB); the
** optional `format` names the format ('chrome'), NULL/''/'auto' detects it from the content.
** Parsed captures are cached per connection:
**   - a path is reused while (path, size, mtime, ctime, device, inode) are unchanged; a changed
**     file is re-read (ctime catches a rewrite in place that restored the size and mtime);
**   - a BLOB is reused while an identical BLOB (same size and bytes) is passed again;
**   - at most PS_CACHE_MAX unused captures are kept (least recently used goes first).
** Cursors hold a reference, so a capture evicted or replaced while a query runs stays valid.
*/
#ifndef PS_VTAB_H
#define PS_VTAB_H

#include <sqlite3ext.h>
#include "../ext/model/capture.h"
#include "../ext/formats/formats.h"

#ifndef PROFSQL_VERSION
#define PROFSQL_VERSION "0.0.0-dev"
#endif

#define PS_CACHE_MAX 4

typedef struct PsCacheEntry PsCacheEntry;

/* Per-connection state, shared by the modules and functions of one connection. */
/* The default of profsql_config 'max_parse_memory': half the machine's physical memory, at
** least 2 GiB; in a noio connection (untrusted SQL) PS_NOIO_PARSE_MEMORY, 2 GiB. */
#define PS_NOIO_PARSE_MEMORY ((int64_t)2 << 30)
int64_t ps_parse_memory_default(void);

typedef struct PsConn {
  int nRef;                 /* one per registered module/function using it */
  PsCacheEntry *pFirst;     /* cached captures, most recently used first */
  uint64_t nLoads;          /* captures parsed (for profsql_debug()/tests) */
  uint64_t nHits;           /* cache hits */
  int nLive, nLivePeak;     /* captures of this connection in memory now (cached or in use by a
                            ** cursor), and the most at once (profsql_debug: live, live_peak) */
  /* limits (profsql_config) */
  uint64_t maxInflated;     /* largest inflated gzip/ZIP capture, bytes (PS_MAX_INFLATED) */
  int nCacheMax;            /* unused captures kept (PS_CACHE_MAX) */
  int maxJsonDepth;         /* deepest JSON nesting a parse accepts (PS_JSON_MAX_DEPTH) */
  int bNoIo;                /* loaded by sqlite3_profsql_noio_init: BLOB sources only */
  int bMmap;                /* map plain files (1, default) or read them into memory (0) */
  uint64_t nSpill;          /* gzip streams of this inflated size or more go to an unnamed temporary
                            ** file (ext/source/source.c); 0: never (PS_GZIP_SPILL; 0 in a noio connection) */
  int64_t maxParseMemory;   /* bytes one load's own blocks may hold at once (ps_budget: the copy of
                            ** a BLOB, an inflated stream, the columns and tables the parse builds);
                            ** ps_parse_memory_default(), PS_NOIO_PARSE_MEMORY in a noio connection */
  sqlite3 *db;              /* the connection (for noticing sqlite3_interrupt during a parse) */
} PsConn;

struct PsCacheEntry {
  PsCacheEntry *pNext;
  PsConn *pConn;            /* NULL once removed from the cache */
  PsConn *pOwner;           /* the connection that loaded it (its nLive counts it) */
  int nRef;                 /* cursors using it + 1 while in the cache */
  char *zPath;              /* file path, or NULL for a BLOB */
  void *pBlob; size_t nBlob;/* BLOB bytes as passed (copy), for comparison */
  int64_t size, mtimeNs, ctimeNs; uint64_t dev, ino;   /* the file when it was read: a hit needs
                            ** all five equal (ctime: an in-place rewrite that restores size and
                            ** mtime still changes it; no program can set it back) */
  const PsFormat *pFmt;     /* format asked for, NULL when detected */
  PsCapture *cap;           /* the parsed capture, owned */
};

PsConn *ps_conn_new(void);
void ps_conn_release(void *pConn);          /* sqlite3 destructor signature */

/* Loads (or finds cached) the capture for source/format. On error returns NULL, sets *pzErr
** to an sqlite3_malloc'ed message that starts with zTable ("profile_events: ...") and, when pRc
** is not NULL, *pRc to the SQLite code to report (SQLITE_INTERRUPT for an interrupted parse,
** else SQLITE_ERROR). */
PsCacheEntry *ps_vt_acquire(PsConn *pConn, const char *zTable, sqlite3_value *pSource,
                            sqlite3_value *pFormat, char **pzErr, int *pRc);
void ps_vt_release(PsCacheEntry *p);
/* A function's result for a failed ps_vt_acquire: the message (freed here) with code rc, or
** out of memory when there is no message. */
void ps_result_load_error(sqlite3_context *ctx, char *zErr, int rc);
/* The error of a TEXT (path) source in a noio connection (sqlite3_malloc'ed). */
char *ps_noio_error(const char *zTable);

/* ---- plumbing every profile_* table shares */

/* The table object of every profile_* module: configuration only (the cache). */
typedef struct PsVtab {
  sqlite3_vtab base;
  PsConn *pConn;              /* per-connection cache, owned by the module registration; its db is
                              ** the connection (tables that run SQL of their own: profile_diff's "where") */
} PsVtab;

/* xConnect: declares zSchema, marks the table SQLITE_VTAB_DIRECTONLY (it reads files, so a
** schema from an untrusted database must not reach it) and allocates a PsVtab. */
int ps_vt_connect(sqlite3 *db, void *pAux, const char *zSchema, sqlite3_vtab **ppVtab);
int ps_vt_disconnect(sqlite3_vtab *pVtab);

/* xBestIndex: for each column aCol[k] (aCol[0] must be the source column) finds a usable
** '=' constraint, gives it argv index in k order and omits it; returns the idxNum bits (1<<k for
** each one used), or -1 when the source constraint exists but is not usable (the caller returns
** SQLITE_CONSTRAINT). */
int ps_vt_eq_constraints(sqlite3_index_info *pInfo, const int *aCol, int nCol);

/* The captures a source names: one file or BLOB, or every capture of a directory or glob
** pattern (run/<glob>.xplane.pb, a TensorBoard run directory, a folder of timings reports). Every
** table reads the parts in order and tells them apart by its `file` column.
**
** A set of several files is read one capture at a time when the cursor's plan scans the parts in
** order (bStream): ps_set_use() loads part i when the scan reaches it and releases the part it
** leaves, so a scan of 64 rank traces holds one trace at a time (a part left by such a scan is not
** kept in the connection's cache either when the set has more parts than the cache holds: a
** least-recently-used cache never hits on a sequential scan larger than itself). A plan that must
** revisit parts (id / parent_id lookups, rows merged in name order across files) loads every part
** up front and holds them all until the cursor closes: that is the memory cost of such a query. */
typedef struct PsSet {
  int nPart;
  PsCacheEntry **ap;          /* each part's capture (reference held), NULL while not loaded */
  char **azFile;              /* each part's path; NULL for a BLOB source */
  char *zKey;                 /* the source path it was made from (reused within a statement) */
  int nSkipped;               /* files of a directory or glob that did not load ... */
  char **azSkipped;           /* ... their paths (shown by profile_metadata, scope 'files') ... */
  char **azSkipWhy;           /* ... and why (the load error without table and file name; NULL:
                              ** "not a supported capture") */
  int iFirstDamaged;          /* the first skipped file that was damaged (not only unclaimed), -1 */
  int bMany;                  /* a directory or glob: files that do not load are skipped */
  int bStrict;                /* the format argument's {"strict": true}: only a directory's
                              ** files no format claims are skipped; any other failure fails */
  /* lazily loaded sets (bStream) */
  int bStream;                /* parts load on use, one at a time */
  int bDir;                   /* a directory: parts that are not captures are skipped (strict too) */
  unsigned char *aSkip;       /* per part: 1 once it turned out not to be a capture (listed in
                              ** azSkipped; a rescan passes over it); NULL until one does */
  int nLoaded;                /* parts that loaded (none, in a directory: an error) */
  int bFiltered;              /* a file = ? / IN constraint chose the parts (no reuse by zKey) */
  PsConn *pConn;              /* where parts are loaded and cached */
  const PsFormat *pFmt;       /* the format asked for, NULL: detected */
  const char *zTable;         /* the table name, for messages */
} PsSet;

/* Part *piPart of the set, loaded (a streamed set loads it now, releasing the part it held). A
** directory's file that turns out not to be a capture is listed as skipped and passed over, so
** *piPart moves to the next part that loads, or to p->nPart: then *ppCap is NULL (no more
** parts). Returns SQLITE_OK, or an error with pVtab's message set ("profile_events: 'dir' holds
** no supported capture", or the load error of the part). */
int ps_set_use(sqlite3_vtab *pVtab, PsSet *p, int *piPart, PsCapture **ppCap);

/* How a table returns text that lives in a capture's string pool: SQLITE_STATIC while the
** capture outlives the statement, SQLITE_TRANSIENT (copied) when the set is streamed, since a
** part is freed as the scan leaves it and SQLite keeps static values (a GROUP BY key, max())
** past the row that gave them. */
static inline sqlite3_destructor_type ps_set_text(const PsSet *p){
  return p->bStream ? SQLITE_TRANSIENT : SQLITE_STATIC;
}

/* String id of cap's pool as the SQL result (NULL for id 0), with the set's lifetime rule
** (ps_set_text): the name-like columns of profile_events, profile_records, profile_xplanes and
** profile_metadata. */
void ps_vt_result_pool(sqlite3_context *ctx, const PsCapture *cap, uint32_t id, const PsSet *pSet);
/* A pid / tid value as the SQL result: INTEGER, TEXT (with xDel: ps_set_text) or NULL. */
void ps_vt_result_value(sqlite3_context *ctx, const PsCapture *cap, const PsValue *v, sqlite3_destructor_type xDel);

/* The values of a `file = ?` or `file IN (...)` constraint, for ps_vt_filter_set: pVal is the
** argument, bIn says it is an IN list taken whole (sqlite3_vtab_in). */
typedef struct PsFileFilter { sqlite3_value *pVal; int bIn; } PsFileFilter;

/* xBestIndex helper for the `file` column: finds a usable `file = ?` / `file IN (...)`
** constraint, gives it the argv index after those already given and omits it; an IN list is
** asked for whole when the SQLite library has sqlite3_vtab_in (3.38+). A constraint in a
** collation other than BINARY is not used (the names are compared byte for byte). Returns 1
** when used (*pbIn: an IN list), else 0. */
int ps_vt_file_constraint(sqlite3_index_info *pInfo, int iFileCol, int *pbIn);

/* What the plan's source constraint names, when its value is known at planning time
** (sqlite3_vtab_rhs_value, SQLite 3.38+): PS_SOURCE_ONE, one capture (a path of a regular file,
** a BLOB); PS_SOURCE_MANY, a directory or a glob pattern; PS_SOURCE_UNKNOWN, a value bound later
** (a parameter, a join), an older SQLite, or a connection without file access (profsql_noio:
** no path is looked at, not even to plan). */
#define PS_SOURCE_UNKNOWN 0
#define PS_SOURCE_ONE     1
#define PS_SOURCE_MANY    2
int ps_vt_source_kind(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo, int iSourceCol);

/* xBestIndex of a table whose only inputs are source (column iSource), format (iFormat) and its
** file column (iFile): idxNum bits 1 source = ?, 2 format = ?, PS_IDX_FILE file = ?,
** PS_IDX_FILE_IN file IN (...) taken whole (argv in that order); ps_vt_file_filter reads the
** last back in xFilter. */
#define PS_IDX_FILE     4
#define PS_IDX_FILE_IN  8
int ps_vt_best_source(sqlite3_index_info *pInfo, int iSource, int iFormat, int iFile);
/* The file filter of argv[k] when idxNum has bFile (file = ?) or bFileIn (file IN): the
** PsFileFilter for ps_vt_filter_set (pVal NULL when neither bit is set). */
static inline PsFileFilter ps_vt_file_filter(int idxNum, int bFile, int bFileIn, sqlite3_value **argv, int k){
  PsFileFilter f = { (idxNum & (bFile|bFileIn)) ? argv[k] : 0, (idxNum & bFileIn)!=0 };
  return f;
}

/* Sets the table's error message zErr (sqlite3_malloc'ed, taken; NULL: out of memory); returns
** rc, or SQLITE_NOMEM when there is no message. */
int ps_vt_error(sqlite3_vtab *pVtab, char *zErr, int rc);

/* xOpen: a zeroed cursor of nByte bytes (the table's cursor struct, base first). */
int ps_vt_open(size_t nByte, sqlite3_vtab_cursor **ppCur);

/* The `file` column of every table: part iPart's path, NULL for a BLOB source. */
void ps_vt_result_file(sqlite3_context *ctx, const PsSet *pSet, int iPart);

/* xFilter: loads the captures for (pSource, pFormat) into *pSet (replacing what it held);
** on failure sets the table's error message and returns SQLITE_ERROR (or SQLITE_NOMEM).
**   a directory:  every regular, non-hidden file in it, in name order; files that are not
**                 supported captures are skipped (listed in profile_metadata, scope 'files')
**   a pattern with * ? [ (glob(3)) that is not itself a file: every match, in name order;
**                 a match that does not load is an error
** pFiles (may be NULL): only the files whose path equals one of its values are parts (a file
** named by no value is never opened). bCanStream: the cursor scans the parts in order, so a set
** of several parts is streamed (see PsSet); 0 loads every part now.
** Errors: "no file matches 'x'", "'dir' holds no supported capture", and those of one file. */
int ps_vt_filter_set(sqlite3_vtab *pVtab, const char *zTable, sqlite3_value *pSource,
                     sqlite3_value *pFormat, const PsFileFilter *pFiles, int bCanStream,
                     PsSet *pSet);
void ps_set_clear(PsSet *pSet);
/* The host of an XSpace part: its file name without ".xplane.pb" / ".xspace.pb" (or the
** capture's hostnames[0] for a BLOB). Written into buf; returns it, or NULL when unknown. */
const char *ps_set_host(const PsSet *pSet, int iPart, char *buf, size_t nBuf);

/* A mapped capture file that another process truncated while this query read it (mapguard.h:
** the lost bytes read as zeros). Each table's xColumn and xNext call this: SQLITE_OK while part
** iPart is intact (or there is no such part), else SQLITE_ERROR with the table's error message
** "profile_events: F: the file shrank while it was being read (another process truncated or
** rewrote it): byte N of its M bytes is gone; run the query again to read the file as it is now".
** Rows returned before the check saw it came from the intact file. */
int ps_vt_check_lost(sqlite3_vtab_cursor *pCur, const char *zTable, const PsSet *pSet, int iPart);
static inline int ps_vt_intact(sqlite3_vtab_cursor *pCur, const char *zTable, const PsSet *pSet, int iPart){
  if( iPart<0 || iPart>=pSet->nPart || pSet->ap[iPart]==0
   || ps_source_lost(&pSet->ap[iPart]->cap->src)==0 ) return SQLITE_OK;
  return ps_vt_check_lost(pCur, zTable, pSet, iPart);
}

/* Defines X##ColumnChecked and X##NextChecked, the xColumn and xNext a module registers: X##Column
** then ps_vt_intact() on the row's part, and ps_vt_intact() before X##Next moves on (a string
** returned SQLITE_STATIC from the mapping is read by SQLite after xColumn returns, so xNext checks
** the part whose row SQLite just consumed). PART is an expression of the cursor c (CURSOR *). */
#define PS_VT_CHECKED(X, CURSOR, TABLE, PART)                                          \
  static int X##ColumnChecked(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int iCol){ \
    int rc = X##Column(cur, ctx, iCol);                                                \
    CURSOR *c = (CURSOR*)cur;                                                          \
    return rc==SQLITE_OK ? ps_vt_intact(cur, TABLE, &c->set, (PART)) : rc;             \
  }                                                                                    \
  static int X##NextChecked(sqlite3_vtab_cursor *cur){                                 \
    CURSOR *c = (CURSOR*)cur;                                                          \
    int rc = ps_vt_intact(cur, TABLE, &c->set, (PART));                                \
    return rc==SQLITE_OK ? X##Next(cur) : rc;                                          \
  }

/* Asks whether sqlite3_interrupt() was called on db while the current statement runs (SQLite
** 3.40 has no sqlite3_is_interrupted(): a tiny statement is stepped, and fails with
** SQLITE_INTERRUPT then). The xInterrupt of PsSource and of the writers, with pArg a PsPoll
** { db, 0 }; sqlite3_finalize(poll.st) when done. */
typedef struct PsPoll { sqlite3 *db; sqlite3_stmt *st; } PsPoll;
int ps_poll_interrupt(void *pArg);

/* Sets an SQL result from a PsOut (frees pOut->zFree). */
void ps_vt_result(sqlite3_context *ctx, PsOut *pOut);
/* The text rule for values read lazily (docs/security.md, "Text"), which ps_vt_result applies:
** a TEXT or JSON value that is not valid UTF-8 text is repaired into a malloc'ed copy (o->zFree).
** SQLITE_OK or SQLITE_NOMEM. */
int ps_out_text_rule(PsOut *o);

/* Registers a function of the connection state (user data pConn, one reference per arity) for
** every argument count nMin..nMax (nMin -1: any count, once), SQLITE_UTF8|SQLITE_DIRECTONLY:
** everything that reads a path or writes a file. Stops at the first failure and returns its code. */
int ps_register_conn_function(sqlite3 *db, PsConn *pConn, const char *zName, int nMin, int nMax,
                              void (*xFunc)(sqlite3_context*, int, sqlite3_value**));

int ps_events_register(sqlite3 *db, PsConn *pConn);
int ps_metadata_register(sqlite3 *db, PsConn *pConn);
int ps_records_register(sqlite3 *db, PsConn *pConn);
int ps_open_register(sqlite3 *db, PsConn *pConn);
int ps_xplanes_register(sqlite3 *db, PsConn *pConn);
int ps_jobs_register(sqlite3 *db, PsConn *pConn);
int ps_report_register(sqlite3 *db, PsConn *pConn);
int ps_import_register(sqlite3 *db, PsConn *pConn);
int ps_flamegraph_register(sqlite3 *db, PsConn *pConn);
int ps_tracks_register(sqlite3 *db, PsConn *pConn);
int ps_diff_register(sqlite3 *db, PsConn *pConn);        /* profile_diff.c */
int ps_sandwich_register(sqlite3 *db, PsConn *pConn);    /* profile_sandwich.c */
int ps_training_rows_register(sqlite3 *db, PsConn *pConn);   /* profile_training_rows.c */
int ps_span_union_register(sqlite3 *db);                     /* span_union.c: profile_span_union */
int ps_perfetto_register(sqlite3 *db, PsConn *pConn);
/* perfetto.c: runs zSql (sql/perfetto.sql) with zPrefix for each "$P" (each view replaced) and
** the lines marked "--@<format> " kept when zFormat (the formats the capture has rows of,
** space-separated: "chrome ftrace" for a Chrome trace with ftrace text) names that format,
** appends ,"<view>" to pNames for each public view, and creates <prefix>extract_arg over
** <prefix>args. Refuses a prefix whose view names TEMP tables hold. An SQLite code; *pzErr an
** sqlite3_malloc'ed message. */
int ps_perfetto_create(sqlite3 *db, const char *zSql, const char *zPrefix, const char *zFormat,
                       sqlite3_str *pNames, char **pzErr);
/* profile_open.c: zSql with zPrefix before each view name of the sql/ helpers (sqlite3_malloc'ed). */
char *ps_sql_prefixed(const char *zSql, const char *zPrefix);   /* report.c: profile_report and the file writers */

#endif
