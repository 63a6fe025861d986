/*
** loader.c — SQL arguments -> cached PsCapture, shared by every profile_* table. See ps_vtab.h for
** the caching rules. Error messages start with the table name and name the file:
**   profile_events: cannot open 'x.json': No such file or directory
**   profile_events: 'x.bin' is not a supported capture (supported: chrome)
**   profile_events: trace.json: byte 18231: expected ',' or ']' in traceEvents
*/
#include "ps_vtab.h"
#include "../ext/wire/json.h"
SQLITE_EXTENSION_INIT3

#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int64_t ps_parse_memory_default(void){
  long nPage = sysconf(_SC_PHYS_PAGES), nSize = sysconf(_SC_PAGESIZE);
  int64_t n = nPage>0 && nSize>0 ? (int64_t)nPage * nSize / 2 : 0;
  return n > PS_NOIO_PARSE_MEMORY ? n : PS_NOIO_PARSE_MEMORY;
}

PsConn *ps_conn_new(void){
  PsConn *p = sqlite3_malloc(sizeof(*p));
  if( p ){
    memset(p, 0, sizeof(*p));
    p->maxInflated = PS_MAX_INFLATED;
    p->nCacheMax = PS_CACHE_MAX;
    p->maxJsonDepth = PS_JSON_MAX_DEPTH;
    p->bMmap = 1;
    p->nSpill = PS_GZIP_SPILL;
    p->maxParseMemory = ps_parse_memory_default();
  }
  return p;
}

static void entry_free(PsCacheEntry *e){
  if( e->pOwner ) e->pOwner->nLive--;
  ps_capture_free(e->cap);
  sqlite3_free(e->zPath);
  sqlite3_free(e->pBlob);
  sqlite3_free(e);
}

static void cache_trim(PsConn *c);

void ps_vt_release(PsCacheEntry *e){
  if( e==0 ) return;
  if( --e->nRef==0 ){ entry_free(e); return; }
  /* only the cache holds it now: keep at most nCacheMax such entries (cache_size 0 keeps none) */
  if( e->nRef==1 && e->pConn ) cache_trim(e->pConn);
}

/* Removes e from its connection's list and drops the cache's reference. */
static void entry_unlink(PsCacheEntry *e){
  PsConn *c = e->pConn;
  if( c==0 ) return;
  for(PsCacheEntry **pp=&c->pFirst; *pp; pp=&(*pp)->pNext){
    if( *pp==e ){ *pp = e->pNext; break; }
  }
  e->pConn = 0; e->pNext = 0;
  ps_vt_release(e);
}

void ps_conn_release(void *pv){
  PsConn *c = pv;
  if( c==0 || --c->nRef>0 ) return;
  while( c->pFirst ) entry_unlink(c->pFirst);
  sqlite3_free(c);
}

/* Keeps at most nCacheMax (profsql_config 'cache_size') entries that no cursor uses. */
static void cache_trim(PsConn *c){
  int n = 0;
  PsCacheEntry *e = c->pFirst;
  while( e ){
    PsCacheEntry *nx = e->pNext;
    if( e->nRef==1 && ++n > c->nCacheMax ) entry_unlink(e);
    e = nx;
  }
}

static void move_front(PsConn *c, PsCacheEntry *e){
  for(PsCacheEntry **pp=&c->pFirst; *pp; pp=&(*pp)->pNext){
    if( *pp==e ){ *pp = e->pNext; break; }
  }
  e->pNext = c->pFirst; c->pFirst = e;
}

static char *load_error(const char *zTable, const char *zName, int bGzip, const PsErr *err){
  if( err->off>=0 ){
    return sqlite3_mprintf("%s: %s%s: %s", zTable, zName, bGzip ? " (after gunzip)" : "", err->msg);
  }
  return sqlite3_mprintf("%s: %s: %s", zTable, zName, err->msg);
}

/* The format name z (NULL, '' and 'auto': detect) into *ppFmt. Returns 0, or -1 with *pzErr. */
static int format_name(const char *zTable, const char *z, const PsFormat **ppFmt, char **pzErr){
  *ppFmt = 0;
  if( z==0 || z[0]==0 || strcmp(z, "auto")==0 ) return 0;
  if( (*ppFmt = ps_format_find(z))!=0 ) return 0;
  *pzErr = sqlite3_mprintf("%s: unknown format '%s' (supported: %s)", zTable, z, ps_format_list());
  return -1;
}

/* Parses the optional format argument: a format name (NULL, '' or 'auto': detect), or a JSON
** object of options {"format": <name>, "strict": true|false} (read with the connection's
** json_each). *ppFmt = NULL for auto; *pbStrict (may be NULL) = the "strict" option: a directory
** or glob source then fails on its first file that does not load, instead of listing it in
** profile_metadata (scope 'files') and reading the others. Returns 0, or -1 with *pzErr:
** "unknown format 'x' (supported: ...)", "the format argument is not a JSON object: ...",
** "unknown option 'x' in the format argument (known: format, strict)", "option \"strict\" must
** be true or false", "option \"format\" must be a format name". */
static int parse_format(PsConn *c, const char *zTable, sqlite3_value *pFormat, const PsFormat **ppFmt,
                        int *pbStrict, char **pzErr){
  *ppFmt = 0;
  if( pbStrict ) *pbStrict = 0;
  if( pFormat==0 || sqlite3_value_type(pFormat)==SQLITE_NULL ) return 0;
  const char *z = (const char*)sqlite3_value_text(pFormat);
  if( z==0 ){ *pzErr = sqlite3_mprintf("%s: out of memory", zTable); return -1; }
  size_t i = ps_json_ws(z, strlen(z), 0);
  if( z[i]!='{' ) return format_name(zTable, z, ppFmt, pzErr);
  sqlite3_stmt *st = 0;
  int rc = c->db ? sqlite3_prepare_v2(c->db, "SELECT key, type, atom FROM json_each(?1) "
                                      "WHERE json_type(?1)='object'", -1, &st, 0) : SQLITE_ERROR;
  if( rc!=SQLITE_OK ){
    *pzErr = sqlite3_mprintf("%s: the format argument's options cannot be read here (no JSON functions)", zTable);
    return -1;
  }
  sqlite3_bind_value(st, 1, pFormat);
  while( (rc = sqlite3_step(st))==SQLITE_ROW ){
    const char *zKey = (const char*)sqlite3_column_text(st, 0);
    const char *zType = (const char*)sqlite3_column_text(st, 1);
    if( zKey && strcmp(zKey, "format")==0 ){
      if( zType==0 || (strcmp(zType, "text")!=0 && strcmp(zType, "null")!=0) ){
        *pzErr = sqlite3_mprintf("%s: option \"format\" must be a format name (supported: %s)", zTable, ps_format_list());
        break;
      }
      if( format_name(zTable, (const char*)sqlite3_column_text(st, 2), ppFmt, pzErr) ) break;
    }else if( zKey && strcmp(zKey, "strict")==0 ){
      if( zType==0 || (strcmp(zType, "true")!=0 && strcmp(zType, "false")!=0) ){
        *pzErr = sqlite3_mprintf("%s: option \"strict\" must be true or false", zTable);
        break;
      }
      if( pbStrict ) *pbStrict = zType[0]=='t';
    }else{
      *pzErr = sqlite3_mprintf("%s: unknown option '%s' in the format argument (known: format, strict)",
                               zTable, zKey ? zKey : "");
      break;
    }
  }
  if( *pzErr==0 && rc!=SQLITE_DONE && rc!=SQLITE_ROW ){
    *pzErr = sqlite3_mprintf("%s: the format argument is not a JSON object: %s", zTable, sqlite3_errmsg(c->db));
  }
  sqlite3_finalize(st);
  return *pzErr ? -1 : 0;
}

/* Why acquire() failed (*pWhy): any other failure is 0. */
#define LOAD_UNSUPPORTED 1      /* no format matched (a directory scan skips such files) */
#define LOAD_INTERRUPTED 2      /* sqlite3_interrupt() stopped the parse */
#define LOAD_DAMAGED     3      /* the file could not be read or its content does not parse (a
                                ** directory or glob source lists it and reads the others) */
static PsCacheEntry *acquire(PsConn *c, const char *zTable, const char *zPath, const void *pBlob,
                             size_t nBlob, const PsFormat *pFmt, char **pzErr, int *pWhy);

/* The SQLite code of an acquire() failure. */
static int load_rc(int why){ return why==LOAD_INTERRUPTED ? SQLITE_INTERRUPT : SQLITE_ERROR; }

void ps_result_load_error(sqlite3_context *ctx, char *zErr, int rc){
  if( zErr==0 ){ sqlite3_result_error_nomem(ctx); return; }
  sqlite3_result_error(ctx, zErr, -1);
  sqlite3_result_error_code(ctx, rc);
  sqlite3_free(zErr);
}

char *ps_noio_error(const char *zTable){
  return sqlite3_mprintf("%s: file paths are disabled in this connection (loaded with "
                         "sqlite3_profsql_noio_init); pass the capture's bytes as a BLOB", zTable);
}

PsCacheEntry *ps_vt_acquire(PsConn *c, const char *zTable, sqlite3_value *pSource,
                            sqlite3_value *pFormat, char **pzErr, int *pRc){
  const PsFormat *pFmt = 0;
  int why = 0;
  *pzErr = 0;
  if( pRc ) *pRc = SQLITE_ERROR;
  if( parse_format(c, zTable, pFormat, &pFmt, 0, pzErr) ) return 0;
  int eType = pSource ? sqlite3_value_type(pSource) : SQLITE_NULL;
  if( eType!=SQLITE_TEXT && eType!=SQLITE_BLOB ){
    *pzErr = sqlite3_mprintf("%s: the source argument must be a file path (TEXT) or the capture's "
                             "bytes (BLOB), got %s", zTable,
                             eType==SQLITE_NULL ? (pSource ? "NULL" : "nothing") :
                             eType==SQLITE_INTEGER ? "an INTEGER" : "a REAL");
    return 0;
  }
  if( eType==SQLITE_TEXT && c->bNoIo ){
    *pzErr = ps_noio_error(zTable);
    return 0;
  }
  if( eType==SQLITE_TEXT ){
    const char *zPath = (const char*)sqlite3_value_text(pSource);
    if( zPath==0 ){ *pzErr = sqlite3_mprintf("%s: out of memory", zTable); return 0; }
    PsCacheEntry *e = acquire(c, zTable, zPath, 0, 0, pFmt, pzErr, &why);
    if( e==0 && pRc ) *pRc = load_rc(why);
    return e;
  }
  const void *pBlob = sqlite3_value_blob(pSource);
  size_t nBlob = (size_t)sqlite3_value_bytes(pSource);
  PsCacheEntry *e = acquire(c, zTable, 0, pBlob ? pBlob : "", nBlob, pFmt, pzErr, &why);
  if( e==0 && pRc ) *pRc = load_rc(why);
  return e;
}

/* The parsers' interrupt check (PsSource.xInterrupt): SQLite 3.40 has no
** sqlite3_is_interrupted(), but a statement stepped while the connection is interrupted (and
** the query that loads this capture is still running) returns SQLITE_INTERRUPT. The statement
** also runs the host's progress handler (sqlite3_progress_handler, which hosts such as Datasette
** use as a time limit), which SQLite calls once per N virtual-machine steps of a statement: it
** takes about 5,000 steps (a 300-row recursive count, ~40 us), so a handler of period up to
** 5,000 runs at every poll (ext/source/source.h: at most every 10 ms of parsing), and one of period N
** every N/5,000 polls; a non-zero answer stops the statement with SQLITE_INTERRUPT, and the parse
** with it. (It was "SELECT 1", 4 steps: a handler of period 1,000 ran once per 250 polls.) */
#define PS_POLL_SQL \
  "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x<300) SELECT count(*) FROM c"
int ps_poll_interrupt(void *pArg){
  PsPoll *p = pArg;
  if( p->st==0 ){
    /* an interrupt that came before the first poll fails the prepare itself (SQLite checks the
    ** flag there too): that is a stop, not "cannot poll" (a test saw the parse run on) */
    int rc = sqlite3_prepare_v2(p->db, PS_POLL_SQL, -1, &p->st, 0);
    if( rc!=SQLITE_OK ) return rc==SQLITE_INTERRUPT;
  }
  int rc;
  while( (rc = sqlite3_step(p->st))==SQLITE_ROW ){}
  sqlite3_reset(p->st);
  return rc==SQLITE_INTERRUPT;
}

/* Loads (or finds cached) one capture: a file (zPath) or bytes (pBlob, nBlob). */
static PsCacheEntry *acquire(PsConn *c, const char *zTable, const char *zPath, const void *pBlob,
                             size_t nBlob, const PsFormat *pFmt, char **pzErr, int *pWhy){
  PsErr err; err.rc = PS_OK; err.off = -1; err.msg[0] = 0;
  *pzErr = 0; *pWhy = 0;
  PsSource src;
  PsCacheEntry *e;
  struct stat st;
  int rc, bLengthLimit = 0;      /* a BLOB's inflation was bounded by SQLITE_LIMIT_LENGTH */
  PsPoll poll = { c->db, 0 };     /* the host's interrupt, polled from the read on */
  /* the load's memory, from the read on (ext/util/ps_util.h): past max_parse_memory an allocation
  ** fails, and the load with it, naming the limit */
  PsBudget budget = { c->maxParseMemory, 0, 0, 0 };
  if( zPath ){
    if( stat(zPath, &st)!=0 ){
      *pzErr = sqlite3_mprintf("%s: cannot open '%s': %s", zTable, zPath, strerror(errno));
      *pWhy = LOAD_DAMAGED;
      return 0;
    }
    if( !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode) ){   /* a FIFO would block the open */
      *pWhy = LOAD_DAMAGED;
      *pzErr = sqlite3_mprintf("%s: cannot open '%s': it is %s, not a regular file", zTable, zPath,
                               ps_file_type(st.st_mode));
      return 0;
    }
    int64_t mt = (int64_t)st.st_mtim.tv_sec*1000000000 + st.st_mtim.tv_nsec;
    int64_t ct = (int64_t)st.st_ctim.tv_sec*1000000000 + st.st_ctim.tv_nsec;
    for(e=c->pFirst; e; e=e->pNext){
      if( e->zPath && strcmp(e->zPath, zPath)==0 && e->pFmt==pFmt ){
        if( e->size==(int64_t)st.st_size && e->mtimeNs==mt && e->ctimeNs==ct && e->ino==(uint64_t)st.st_ino
         && e->dev==(uint64_t)st.st_dev && ps_source_lost(&e->cap->src)==0 ){
          move_front(c, e); e->nRef++; c->nHits++;
          return e;
        }
        entry_unlink(e);   /* the file changed: re-read it */
        break;
      }
    }
    ps_budget = &budget;
    rc = ps_source_open_file_ex(&src, zPath, c->maxInflated, c->nSpill, c->bMmap,
                                c->db ? ps_poll_interrupt : 0, &poll, &err);
  }else{
    for(e=c->pFirst; e; e=e->pNext){
      if( e->zPath==0 && e->pFmt==pFmt && e->nBlob==nBlob && memcmp(e->pBlob, pBlob, nBlob)==0 ){
        move_front(c, e); e->nRef++; c->nHits++;
        return e;
      }
    }
    /* bytes from SQL inflate no further than a value of this connection may be long
    ** (SQLITE_LIMIT_LENGTH), whatever max_inflated_bytes says: untrusted SQL cannot turn a
    ** small BLOB into gigabytes */
    uint64_t maxOut = c->maxInflated;
    int nLimit = c->db ? sqlite3_limit(c->db, SQLITE_LIMIT_LENGTH, -1) : 0;
    if( nLimit>0 && (uint64_t)nLimit < maxOut ){ maxOut = (uint64_t)nLimit; bLengthLimit = 1; }
    ps_budget = &budget;
    rc = ps_source_open_blob_ex(&src, pBlob, nBlob, maxOut, c->nSpill,
                                c->db ? ps_poll_interrupt : 0, &poll, &err);
  }
  const char *zName = zPath ? zPath : "BLOB";
  PsCapture *cap = 0;
  src.maxJsonDepth = c->maxJsonDepth;             /* this connection's limit, for this parse */
  int bGzip = src.bGzip, bUnsupported = 0, bEmpty = 0;
  if( rc==PS_OK && src.n==0 ){
    ps_source_close(&src);
    bEmpty = 1;
  }else if( rc==PS_OK ){
    cap = ps_capture_load(&src, pFmt, &err, &bUnsupported);
    if( cap ){ cap->src.xInterrupt = 0; cap->src.pInterruptArg = 0; }
  }
  ps_budget = 0;
  sqlite3_finalize(poll.st);                      /* the interrupt poll ends with the load */
  if( budget.bOver ){
    /* an allocation refused for the limit: no capture, even one whose parse went on without
    ** what it could not allocate (an optional table), for it would not be the whole file */
    if( cap ){ ps_capture_free(cap); cap = 0; }
    *pzErr = sqlite3_mprintf("%s: reading %s needs more memory than max_parse_memory allows (%lld bytes; "
                             "profsql_config('max_parse_memory', N) sets it for this connection)",
                             zTable, zName, (long long)c->maxParseMemory);
    return 0;
  }
  if( cap==0 ){
    if( !bEmpty && err.rc==PS_INTERRUPT ){        /* stopped while reading, inflating or parsing */
      *pzErr = sqlite3_mprintf("%s: interrupted while reading %s", zTable, zName);
      *pWhy = LOAD_INTERRUPTED;
    }else if( rc ){                               /* the file or BLOB could not be read */
      if( rc!=PS_NOMEM ) *pWhy = LOAD_DAMAGED;
      *pzErr = rc==PS_NOMEM ? sqlite3_mprintf("%s: out of memory reading %s", zTable, zName)
             : zPath && strncmp(err.msg, "cannot ", 7)==0 ? sqlite3_mprintf("%s: %s", zTable, err.msg)
             : load_error(zTable, zName, 0, &err);
      if( *pzErr && bLengthLimit && strstr(err.msg, "the limit of") ){
        char *z = sqlite3_mprintf("%s (SQLITE_LIMIT_LENGTH of this connection, which bounds a BLOB's "
                                  "inflated size; raise it with sqlite3_limit())", *pzErr);
        sqlite3_free(*pzErr); *pzErr = z;
      }
    }else if( bEmpty || bUnsupported ){           /* a directory scan skips both */
      *pWhy = LOAD_UNSUPPORTED;
      *pzErr = bEmpty ? (zPath ? sqlite3_mprintf("%s: '%s' is empty (0 bytes)", zTable, zPath)
                               : sqlite3_mprintf("%s: the BLOB is empty (0 bytes)", zTable))
             : zPath ? sqlite3_mprintf("%s: '%s' is %s", zTable, zPath, err.msg)
                     : sqlite3_mprintf("%s: the BLOB is %s", zTable, err.msg);
    }else{
      if( err.rc!=PS_NOMEM ) *pWhy = LOAD_DAMAGED;
      *pzErr = load_error(zTable, zName, bGzip, &err);
    }
    return 0;
  }
  c->nLoads++;
  e = sqlite3_malloc(sizeof(*e));
  if( e==0 ){ ps_capture_free(cap); *pzErr = sqlite3_mprintf("%s: out of memory", zTable); return 0; }
  memset(e, 0, sizeof(*e));
  e->cap = cap; e->pFmt = pFmt;
  if( zPath ){
    e->zPath = sqlite3_mprintf("%s", zPath);
    e->size = (int64_t)st.st_size;
    e->mtimeNs = (int64_t)st.st_mtim.tv_sec*1000000000 + st.st_mtim.tv_nsec;
    e->ctimeNs = (int64_t)st.st_ctim.tv_sec*1000000000 + st.st_ctim.tv_nsec;
    e->ino = (uint64_t)st.st_ino; e->dev = (uint64_t)st.st_dev;
    if( e->zPath==0 ){ entry_free(e); *pzErr = sqlite3_mprintf("%s: out of memory", zTable); return 0; }
  }else{
    e->pBlob = sqlite3_malloc64(nBlob ? nBlob : 1);
    if( e->pBlob==0 ){ entry_free(e); *pzErr = sqlite3_mprintf("%s: out of memory", zTable); return 0; }
    memcpy(e->pBlob, pBlob, nBlob);
    e->nBlob = nBlob;
  }
  e->pConn = c;
  e->pOwner = c;
  if( ++c->nLive > c->nLivePeak ) c->nLivePeak = c->nLive;
  e->nRef = 2;              /* the cache's and the caller's */
  e->pNext = c->pFirst; c->pFirst = e;
  cache_trim(c);
  return e;
}

int ps_register_conn_function(sqlite3 *db, PsConn *pConn, const char *zName, int nMin, int nMax,
                              void (*xFunc)(sqlite3_context*, int, sqlite3_value**)){
  int rc = SQLITE_OK;
  if( nMin<0 ) nMax = nMin = -1;   /* any number of arguments: one registration */
  for(int nArg=nMin; nArg<=nMax && rc==SQLITE_OK; nArg++){
    pConn->nRef++;                 /* released by ps_conn_release, also when registration fails */
    rc = sqlite3_create_function_v2(db, zName, nArg, SQLITE_UTF8|SQLITE_DIRECTONLY, pConn,
                                    xFunc, 0, 0, ps_conn_release);
  }
  return rc;
}

int ps_vt_check_lost(sqlite3_vtab_cursor *pCur, const char *zTable, const PsSet *pSet, int iPart){
  PsErr err;
  if( iPart<0 || iPart>=pSet->nPart || pSet->ap[iPart]==0 || ps_source_lost_error(&pSet->ap[iPart]->cap->src, &err)==PS_OK ) return SQLITE_OK;
  sqlite3_free(pCur->pVtab->zErrMsg);
  pCur->pVtab->zErrMsg = sqlite3_mprintf("%s: %s: %s; run the query again to read the file as it is now",
      zTable, pSet->azFile && pSet->azFile[iPart] ? pSet->azFile[iPart] : "BLOB", err.msg);
  return pCur->pVtab->zErrMsg ? SQLITE_ERROR : SQLITE_NOMEM;
}

int ps_out_text_rule(PsOut *o){
  if( (o->type!=PS_META_TEXT && o->type!=PS_META_JSON) || o->z==0 || ps_text_check(o->z, o->n, 0) ) return SQLITE_OK;
  /* values read lazily (args, ids, job columns) are repaired as they are read; no diagnostic
  ** is possible here (docs/security.md, "Text") */
  size_t m = ps_text_repair(o->z, o->n, 0);
  char *zFix = ps_malloc(m ? m : 1);
  if( zFix==0 ) return SQLITE_NOMEM;
  ps_text_repair(o->z, o->n, zFix);
  ps_free(o->zFree);
  o->z = zFix; o->n = m; o->zFree = zFix;
  return SQLITE_OK;
}

void ps_vt_result(sqlite3_context *ctx, PsOut *o){
  switch( o->type ){
    case PS_META_INT:  sqlite3_result_int64(ctx, o->i); break;
    case PS_META_REAL: sqlite3_result_double(ctx, o->r); break;
    case PS_META_TEXT:
    case PS_META_JSON:
      if( ps_out_text_rule(o) ){
        if( o->zFree ){ ps_free(o->zFree); o->zFree = 0; }
        sqlite3_result_error_nomem(ctx);
        return;
      }
      if( o->zFree ){
        sqlite3_result_text64(ctx, o->z, o->n, ps_free, SQLITE_UTF8);
        o->zFree = 0;
        return;
      }
      sqlite3_result_text64(ctx, o->z ? o->z : "", o->n, SQLITE_TRANSIENT, SQLITE_UTF8);
      break;
    default: sqlite3_result_null(ctx); break;
  }
  if( o->zFree ){ ps_free(o->zFree); o->zFree = 0; }
}


/* ---------------------------------------------------------------- shared vtab plumbing */

int ps_vt_connect(sqlite3 *db, void *pAux, const char *zSchema, sqlite3_vtab **ppVtab){
  int rc = sqlite3_declare_vtab(db, zSchema);
  if( rc!=SQLITE_OK ) return rc;
  PsVtab *p = sqlite3_malloc(sizeof(*p));
  if( p==0 ) return SQLITE_NOMEM;
  memset(p, 0, sizeof(*p));
  p->pConn = pAux;
  sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
  *ppVtab = &p->base;
  return SQLITE_OK;
}

int ps_vt_disconnect(sqlite3_vtab *pVtab){
  sqlite3_free(pVtab);
  return SQLITE_OK;
}

int ps_vt_eq_constraints(sqlite3_index_info *pInfo, const int *aCol, int nCol){
  int aIdx[8], bSourceUnusable = 0;
  for(int k=0; k<nCol; k++) aIdx[k] = -1;
  for(int i=0; i<pInfo->nConstraint; i++){
    const struct sqlite3_index_constraint *pC = &pInfo->aConstraint[i];
    if( pC->op!=SQLITE_INDEX_CONSTRAINT_EQ ) continue;
    for(int k=0; k<nCol; k++){
      if( pC->iColumn!=aCol[k] ) continue;
      if( !pC->usable ){ if( k==0 ) bSourceUnusable = 1; }
      else if( aIdx[k]<0 ) aIdx[k] = i;
    }
  }
  if( bSourceUnusable && aIdx[0]<0 ) return -1;
  int idxNum = 0, nArg = 0;
  for(int k=0; k<nCol; k++){
    if( aIdx[k]<0 ) continue;
    idxNum |= 1<<k;
    pInfo->aConstraintUsage[aIdx[k]].argvIndex = ++nArg;
    pInfo->aConstraintUsage[aIdx[k]].omit = 1;
  }
  return idxNum;
}

/* Releases a part a streamed scan leaves. When the set has more captures (its parts less those
** found not to be captures) than the cache keeps, the cache's reference goes too (unless another
** cursor uses the capture): a sequential scan of more captures than the cache holds would evict
** each one before it is asked for again. */
static void set_drop(PsSet *p, int i){
  PsCacheEntry *e = p->ap[i];
  p->ap[i] = 0;
  if( e==0 ) return;
  if( p->bStream && p->pConn && p->nPart - p->nSkipped > p->pConn->nCacheMax && e->pConn && e->nRef==2 ){
    entry_unlink(e);      /* drops the cache's reference: ours is the last */
  }
  ps_vt_release(e);
}

void ps_set_clear(PsSet *p){
  for(int i=0; i<p->nPart; i++){ set_drop(p, i); sqlite3_free(p->azFile[i]); }
  for(int i=0; i<p->nSkipped; i++){ sqlite3_free(p->azSkipped[i]); sqlite3_free(p->azSkipWhy[i]); }
  sqlite3_free(p->ap); sqlite3_free(p->azFile); sqlite3_free(p->azSkipped); sqlite3_free(p->zKey);
  sqlite3_free(p->azSkipWhy);
  sqlite3_free(p->aSkip);
  memset(p, 0, sizeof(*p));
}

/* Appends a part: a loaded capture e, or (e NULL) a file to load when the scan reaches it. */
static int set_add(PsSet *p, PsCacheEntry *e, const char *zFile){
  PsCacheEntry **ap = sqlite3_realloc64(p->ap, (p->nPart+1)*sizeof(*ap));
  if( ap==0 ) return SQLITE_NOMEM;
  p->ap = ap;
  char **az = sqlite3_realloc64(p->azFile, (p->nPart+1)*sizeof(*az));
  if( az==0 ) return SQLITE_NOMEM;
  p->azFile = az;
  az[p->nPart] = zFile ? sqlite3_mprintf("%s", zFile) : 0;
  if( zFile && az[p->nPart]==0 ) return SQLITE_NOMEM;
  ap[p->nPart++] = e;
  return SQLITE_OK;
}

/* Whether a directory or glob source passes over a file whose load failed with why (acquire):
** a file no format claims is passed over in a directory always (other files live there) and in a
** glob unless strict; a damaged one (unreadable, or content that does not parse) unless strict.
** An interrupt or out of memory never. */
static int set_skippable(const PsSet *p, int why){
  if( !p->bMany ) return 0;
  if( why==LOAD_UNSUPPORTED ) return p->bDir || !p->bStrict;
  return why==LOAD_DAMAGED && !p->bStrict;
}

/* Moves a file that does not load to the skipped list (zFile is taken over). zErr: the load's
** message ("<table>: <reason>"; taken over, may be NULL), kept as the reason profile_metadata
** shows without the table's name and the file's (NULL for a file no format claims, when no
** format was forced: "not a supported capture"). */
static int set_skip(PsSet *p, char *zFile, char *zErr, int why){
  char *zWhy = 0;
  if( zErr && (why!=LOAD_UNSUPPORTED || p->pFmt) ){
    const char *z = zErr;
    size_t nt = strlen(p->zTable), nf = strlen(zFile);
    if( strncmp(z, p->zTable, nt)==0 && strncmp(z+nt, ": ", 2)==0 ) z += nt+2;
    if( strncmp(z, zFile, nf)==0 && strncmp(z+nf, ": ", 2)==0 ) z += nf+2;
    else if( z[0]=='\'' && strncmp(z+1, zFile, nf)==0 && strncmp(z+1+nf, "' is ", 5)==0 ) z += nf+6;
    zWhy = sqlite3_mprintf("%s", z);
    if( zWhy==0 ){ sqlite3_free(zFile); sqlite3_free(zErr); return SQLITE_NOMEM; }
  }
  sqlite3_free(zErr);
  char **az = sqlite3_realloc64(p->azSkipped, (p->nSkipped+1)*sizeof(char*));
  if( az ) p->azSkipped = az;
  char **aw = az ? sqlite3_realloc64(p->azSkipWhy, (p->nSkipped+1)*sizeof(char*)) : 0;
  if( aw ) p->azSkipWhy = aw;
  if( az==0 || aw==0 ){ sqlite3_free(zFile); sqlite3_free(zWhy); return SQLITE_NOMEM; }
  az[p->nSkipped] = zFile; aw[p->nSkipped] = zWhy;
  if( why==LOAD_DAMAGED && p->iFirstDamaged<0 ) p->iFirstDamaged = p->nSkipped;
  p->nSkipped++;
  return SQLITE_OK;
}

/* The error of a directory or glob source none of whose files loaded: "'x' holds no supported
** capture" when none was damaged; else "no file of 'x' loads (N skipped; the first damaged,
** <file>: <reason>)". */
static char *no_load_error(const PsSet *p, const char *zSrc){
  if( p->iFirstDamaged<0 ){
    return sqlite3_mprintf("%s: '%s' holds no supported capture (supported: %s)", p->zTable, zSrc, ps_format_list());
  }
  return sqlite3_mprintf("%s: no file of '%s' loads (%d skipped; the first damaged, %s: %s)", p->zTable, zSrc,
                         p->nSkipped, p->azSkipped[p->iFirstDamaged], p->azSkipWhy[p->iFirstDamaged]
                         ? p->azSkipWhy[p->iFirstDamaged] : "not a supported capture");
}

static int str_cmp(const void *a, const void *b){ return strcmp(*(char*const*)a, *(char*const*)b); }

int ps_vt_error(sqlite3_vtab *pVtab, char *zErr, int rc){
  sqlite3_free(pVtab->zErrMsg);
  pVtab->zErrMsg = zErr;
  return zErr ? rc : SQLITE_NOMEM;
}

int ps_set_use(sqlite3_vtab *pVtab, PsSet *p, int *piPart, PsCapture **ppCap){
  int i = *piPart;
  *ppCap = 0;
  if( i>=0 && i<p->nPart && p->ap[i] ){ *ppCap = p->ap[i]->cap; return SQLITE_OK; }
  if( p->bStream ){
    for(int k=0; k<p->nPart; k++) if( k!=i ) set_drop(p, k);   /* one capture at a time */
  }
  for(; i>=0 && i<p->nPart; i++){
    if( p->aSkip && p->aSkip[i] ) continue;                   /* known not to be a capture */
    char *zErr = 0; int why = 0;
    PsCacheEntry *e = acquire(p->pConn, p->zTable, p->azFile[i], 0, 0, p->pFmt, &zErr, &why);
    if( e ){ p->ap[i] = e; p->nLoaded++; *piPart = i; *ppCap = e->cap; return SQLITE_OK; }
    if( !set_skippable(p, why) ) return ps_vt_error(pVtab, zErr, load_rc(why));
    /* not a capture, or damaged: listed as skipped (once) and passed over */
    if( p->aSkip==0 ){
      if( (p->aSkip = sqlite3_malloc64((size_t)p->nPart))==0 ){ sqlite3_free(zErr); return SQLITE_NOMEM; }
      memset(p->aSkip, 0, (size_t)p->nPart);
    }
    char *zFile = sqlite3_mprintf("%s", p->azFile[i]);
    if( zFile==0 ){ sqlite3_free(zErr); return SQLITE_NOMEM; }
    if( set_skip(p, zFile, zErr, why) ) return SQLITE_NOMEM;
    p->aSkip[i] = 1;
  }
  *piPart = p->nPart;
  if( p->nLoaded==0 && p->bMany && !p->bFiltered ){
    return ps_vt_error(pVtab, no_load_error(p, p->zKey), SQLITE_ERROR);   /* (a path set: zKey set) */
  }
  return SQLITE_OK;
}

/* Whether zFile passes the file = ? / IN filter (no filter: every file). */
static int file_wanted(const PsFileFilter *pF, const char *zFile){
  if( pF==0 || pF->pVal==0 ) return 1;
  if( !pF->bIn ){
    const char *z = sqlite3_value_type(pF->pVal)==SQLITE_TEXT ? (const char*)sqlite3_value_text(pF->pVal) : 0;
    return z && zFile && strcmp(z, zFile)==0;
  }
  sqlite3_value *v = 0;
  for(int rc = sqlite3_vtab_in_first(pF->pVal, &v); rc==SQLITE_OK && v; rc = sqlite3_vtab_in_next(pF->pVal, &v)){
    if( sqlite3_value_type(v)==SQLITE_TEXT && zFile && strcmp((const char*)sqlite3_value_text(v), zFile)==0 ) return 1;
  }
  return 0;
}

int ps_vt_filter_set(sqlite3_vtab *pVtab, const char *zTable, sqlite3_value *pSource,
                     sqlite3_value *pFormat, const PsFileFilter *pFiles, int bCanStream,
                     PsSet *pSet){
  PsConn *c = ((PsVtab*)pVtab)->pConn;
  char *zErr = 0;
  const PsFormat *pFmt = 0;
  int why = 0, rc = SQLITE_OK;
  int bFiltered = pFiles && pFiles->pVal;
  int eType = pSource ? sqlite3_value_type(pSource) : SQLITE_NULL;
  if( eType!=SQLITE_TEXT || c->bNoIo ){
    ps_set_clear(pSet);
    if( bFiltered ) return SQLITE_OK;     /* its file is NULL: no `file = ?` value names it */
    PsCacheEntry *e = ps_vt_acquire(c, zTable, pSource, pFormat, &zErr, &rc);
    if( e==0 ) return ps_vt_error(pVtab, zErr, rc);
    if( set_add(pSet, e, 0) ){ ps_vt_release(e); return SQLITE_NOMEM; }
    return SQLITE_OK;
  }
  const char *zSrc = (const char*)sqlite3_value_text(pSource);
  if( zSrc==0 ) return SQLITE_NOMEM;
  /* A cursor filtered again within its statement (the inner side of a join, a recursive CTE)
  ** with the same path keeps its set: a set that holds its captures sees one version of the
  ** files, and the stat() of the cache check is not paid per row. A streamed set starts again at
  ** its first part and ps_set_use loads each part anew, as the first pass did (memory stays at
  ** one capture; a file rewritten in between is read as it is then: docs/loading.md, "A rescan
  ** of the source in the same statement ... reads the files again"). */
  if( !bFiltered && !pSet->bFiltered && pSet->zKey && strcmp(pSet->zKey, zSrc)==0
   && (pFormat==0 || sqlite3_value_type(pFormat)==SQLITE_NULL) && pSet->pFmt==0 ){
    return SQLITE_OK;
  }
  int bStrict = 0;
  if( parse_format(c, zTable, pFormat, &pFmt, &bStrict, &zErr) ) return ps_vt_error(pVtab, zErr, SQLITE_ERROR);
  /* the files the source names, in name order */
  char **az = 0; int n = 0, bDir = 0, bGlob = 0;
  struct stat st;
  int bStat = stat(zSrc, &st)==0;
  if( bStat && S_ISDIR(st.st_mode) ){
    bDir = 1;
    DIR *d = opendir(zSrc);
    if( d==0 ) return ps_vt_error(pVtab, sqlite3_mprintf("%s: cannot open '%s': %s", zTable, zSrc, strerror(errno)), SQLITE_ERROR);
    struct dirent *de;
    while( (de = readdir(d))!=0 ){
      if( de->d_name[0]=='.' ) continue;
      char *zFile = sqlite3_mprintf("%s%s%s", zSrc, zSrc[0] && zSrc[strlen(zSrc)-1]=='/' ? "" : "/", de->d_name);
      struct stat fs;
      if( zFile==0 ){ rc = SQLITE_NOMEM; break; }
      if( !file_wanted(pFiles, zFile) || stat(zFile, &fs)!=0 || !S_ISREG(fs.st_mode) ){ sqlite3_free(zFile); continue; }
      char **az2 = sqlite3_realloc64(az, (n+1)*sizeof(char*));
      if( az2==0 ){ sqlite3_free(zFile); rc = SQLITE_NOMEM; break; }
      az = az2; az[n++] = zFile;
    }
    closedir(d);
  }else if( !bStat && strpbrk(zSrc, "*?[") ){
    bGlob = 1;
    glob_t g;
    int grc = glob(zSrc, 0, 0, &g);
    if( grc==GLOB_NOMATCH ){
      zErr = sqlite3_mprintf("%s: no file matches '%s'", zTable, zSrc);
      rc = SQLITE_ERROR;
    }else if( grc!=0 ){
      zErr = sqlite3_mprintf("%s: cannot expand '%s'", zTable, zSrc);
      rc = SQLITE_ERROR;
    }else{
      for(size_t i=0; i<g.gl_pathc && rc==SQLITE_OK; i++){
        if( !file_wanted(pFiles, g.gl_pathv[i]) ) continue;
        char **az2 = sqlite3_realloc64(az, (n+1)*sizeof(char*));
        if( az2==0 ){ rc = SQLITE_NOMEM; break; }
        az = az2;
        if( (az[n++] = sqlite3_mprintf("%s", g.gl_pathv[i]))==0 ) rc = SQLITE_NOMEM;
      }
    }
    if( grc==0 ) globfree(&g);
  }else if( file_wanted(pFiles, zSrc) ){
    az = sqlite3_malloc64(sizeof(char*));
    if( az==0 || (az[0] = sqlite3_mprintf("%s", zSrc))==0 ) rc = SQLITE_NOMEM;
    else n = 1;
  }
  if( n>1 ) qsort(az, (size_t)n, sizeof(char*), str_cmp);
  PsSet set; memset(&set, 0, sizeof(set));
  set.bDir = bDir; set.bFiltered = bFiltered; set.pConn = c; set.pFmt = pFmt; set.zTable = zTable;
  set.bMany = bDir || bGlob; set.bStrict = bStrict; set.iFirstDamaged = -1;
  set.bStream = bCanStream && n>1;
  if( rc==SQLITE_OK && (set.zKey = sqlite3_mprintf("%s", zSrc))==0 ) rc = SQLITE_NOMEM;
  for(int i=0; i<n && rc==SQLITE_OK; i++){
    if( set.bStream ){ rc = set_add(&set, 0, az[i]); continue; }
    PsCacheEntry *e = acquire(c, zTable, az[i], 0, 0, pFmt, &zErr, &why);
    if( e ){ rc = set_add(&set, e, az[i]); if( rc ) ps_vt_release(e); }
    else if( set_skippable(&set, why) ){
      rc = set_skip(&set, az[i], zErr, why); az[i] = 0; zErr = 0;
    }else rc = zErr ? load_rc(why) : SQLITE_NOMEM;
  }
  for(int i=0; i<n; i++) sqlite3_free(az[i]);
  sqlite3_free(az);
  if( rc==SQLITE_OK && set.bMany && !bFiltered && !set.bStream && set.nPart==0 ){
    zErr = no_load_error(&set, zSrc);
    rc = SQLITE_ERROR;
  }
  if( rc!=SQLITE_OK ){
    ps_set_clear(&set);
    if( rc==SQLITE_NOMEM && zErr==0 ) return SQLITE_NOMEM;
    return ps_vt_error(pVtab, zErr, rc);
  }
  ps_set_clear(pSet);
  *pSet = set;
  return SQLITE_OK;
}

int ps_vt_file_constraint(sqlite3_index_info *pInfo, int iFileCol, int *pbIn){
  int iArgv = 0;
  *pbIn = 0;
  for(int i=0; i<pInfo->nConstraint; i++){
    if( pInfo->aConstraintUsage[i].argvIndex > iArgv ) iArgv = pInfo->aConstraintUsage[i].argvIndex;
  }
  iArgv++;
  for(int i=0; i<pInfo->nConstraint; i++){
    const struct sqlite3_index_constraint *pC = &pInfo->aConstraint[i];
    if( pC->iColumn!=iFileCol || pC->op!=SQLITE_INDEX_CONSTRAINT_EQ || !pC->usable ) continue;
    /* the files are picked by their names byte for byte: a comparison in another collation
    ** (file = 'A.JSON' COLLATE NOCASE) is left to SQLite */
    const char *zColl = sqlite3_vtab_collation(pInfo, i);
    if( zColl && sqlite3_stricmp(zColl, "BINARY")!=0 ) continue;
    pInfo->aConstraintUsage[i].argvIndex = iArgv;
    pInfo->aConstraintUsage[i].omit = 1;
    /* sqlite3_vtab_in came with SQLite 3.38: an older host library has no such entry */
    if( sqlite3_libversion_number()>=3038000 && sqlite3_vtab_in(pInfo, i, -1) ){
      *pbIn = sqlite3_vtab_in(pInfo, i, 1);
    }
    return 1;
  }
  return 0;
}

int ps_vt_source_kind(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo, int iSourceCol){
  /* a connection without file access reads no path, not even to plan (xFilter refuses it) */
  if( sqlite3_libversion_number()<3038000 || ((PsVtab*)pVtab)->pConn->bNoIo ) return PS_SOURCE_UNKNOWN;
  for(int i=0; i<pInfo->nConstraint; i++){
    const struct sqlite3_index_constraint *pC = &pInfo->aConstraint[i];
    if( pC->iColumn!=iSourceCol || pC->op!=SQLITE_INDEX_CONSTRAINT_EQ || !pC->usable ) continue;
    sqlite3_value *v = 0;
    if( sqlite3_vtab_rhs_value(pInfo, i, &v)!=SQLITE_OK || v==0 ) return PS_SOURCE_UNKNOWN;
    if( sqlite3_value_type(v)==SQLITE_BLOB ) return PS_SOURCE_ONE;
    if( sqlite3_value_type(v)!=SQLITE_TEXT ) return PS_SOURCE_UNKNOWN;
    struct stat st;
    const char *z = (const char*)sqlite3_value_text(v);
    if( z==0 ) return PS_SOURCE_UNKNOWN;
    if( stat(z, &st)==0 ) return S_ISDIR(st.st_mode) ? PS_SOURCE_MANY : PS_SOURCE_ONE;
    return strpbrk(z, "*?[") ? PS_SOURCE_MANY : PS_SOURCE_ONE;   /* a missing file: its error */
  }
  return PS_SOURCE_UNKNOWN;
}

const char *ps_set_host(const PsSet *p, int iPart, char *buf, size_t nBuf){
  const char *zFile = p->azFile[iPart];
  if( zFile ){
    const char *zBase = strrchr(zFile, '/');
    zBase = zBase ? zBase+1 : zFile;
    size_t n = strlen(zBase);
    static const char *const azExt[] = { ".xplane.pb", ".xspace.pb" };
    for(int k=0; k<2; k++){
      size_t m = strlen(azExt[k]);
      if( n>m && strcmp(zBase+n-m, azExt[k])==0 ){ n -= m; break; }
    }
    snprintf(buf, nBuf, "%.*s", (int)n, zBase);
    return buf;
  }
  const PsCapture *cap = p->ap[iPart]->cap;
  if( cap->zHost ){ snprintf(buf, nBuf, "%s", cap->zHost); return buf; }
  return 0;
}

int ps_vt_best_source(sqlite3_index_info *pInfo, int iSource, int iFormat, int iFile){
  int aCol[2] = { iSource, iFormat };
  int idxNum = ps_vt_eq_constraints(pInfo, aCol, 2), bIn = 0;
  if( idxNum<0 ) return SQLITE_CONSTRAINT;
  if( ps_vt_file_constraint(pInfo, iFile, &bIn) ) idxNum |= bIn ? PS_IDX_FILE_IN : PS_IDX_FILE;
  pInfo->idxNum = idxNum;
  pInfo->estimatedCost = 1000.0;
  pInfo->estimatedRows = 100;
  return SQLITE_OK;
}

int ps_vt_open(size_t nByte, sqlite3_vtab_cursor **ppCur){
  sqlite3_vtab_cursor *c = sqlite3_malloc64(nByte);
  if( c==0 ) return SQLITE_NOMEM;
  memset(c, 0, nByte);
  *ppCur = c;
  return SQLITE_OK;
}

void ps_vt_result_value(sqlite3_context *ctx, const PsCapture *cap, const PsValue *v, sqlite3_destructor_type xDel){
  if( v->type==PS_VAL_INT ) sqlite3_result_int64(ctx, v->i);
  else if( v->type==PS_VAL_TEXT ){
    PsStr s = ps_pool_get(&cap->pool, v->s);
    sqlite3_result_text(ctx, s.z, (int)s.n, xDel);
  }else sqlite3_result_null(ctx);
}

void ps_vt_result_pool(sqlite3_context *ctx, const PsCapture *cap, uint32_t id, const PsSet *pSet){
  if( id==0 ){ sqlite3_result_null(ctx); return; }
  PsStr s = ps_pool_get(&cap->pool, id);
  sqlite3_result_text(ctx, s.z, (int)s.n, ps_set_text(pSet));
}

void ps_vt_result_file(sqlite3_context *ctx, const PsSet *pSet, int iPart){
  const char *z = pSet->azFile[iPart];
  if( z ) sqlite3_result_text(ctx, z, -1, SQLITE_TRANSIENT);
  else sqlite3_result_null(ctx);
}
