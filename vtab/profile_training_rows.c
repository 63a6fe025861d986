/*
** profile_training_rows.c — the profile_training_rows table-valued function: the rows a
** distributed-training analysis reads (ext/model/training.h), found in one pass over each
** capture, with each device activity's launch call and step joined in C. sql/training.sql's
** views read it; a directory or glob streams, one rank's capture at a time.
**
**   SELECT rank, count(*), sum(dur) FROM profile_training_rows('run/rank*.json.gz')
**    WHERE kind = 'kernel' GROUP BY rank;
**
** Arguments (HIDDEN columns): source (path TEXT or BLOB: a file, directory or glob), format
** (optional, as profile_events).
** Columns (times in ns, as profile_events)
**   id           the row's id in profile_events (its event), per file
**   file         the capture file (NULL for a BLOB)
**   rank         the trace's distributedInfo.rank (Kineto), else the file; NULL for a BLOB
**                without one
**   kind         'kernel' (a device activity: a kernel, memory copy or set) or 'step'
**   stream       a kernel's stream (args.stream; an XSpace stream line's id)
**   ts, dur, name, cat   the event's
**   correlation  the id that joins a kernel to its launch (args.correlation; XSpace's
**                correlation_id stat)
**   external_id  args."External id" (Kineto: the CPU op the launch belongs to)
**   launch_id, launch_name, launch_ts, launch_dur   the launch call (cudaLaunchKernel,
**                hipLaunchKernel, ... a cuda_runtime / cuda_driver slice; an XSpace host plane's
**                event) with the kernel's correlation in the same file; NULL without one
**   step         a step's number (ProfilerStep#N, an XSpace "Steps" line event); a kernel's:
**                the step of its file that contains its start (NULL outside every step)
**   last_step    the largest step number of the file (HTA leaves the last step out)
**   class        a kernel's class: the class of the first pair of the classes argument whose
**                pattern its name matches (LIKE: case-insensitive ASCII, % and _); NULL when none
**                matches or without the argument. classes (HIDDEN): a JSON array of
**                [pattern, class] pairs of strings ('[["%nccl%", "communication"]]'), tried in
**                order; anything else is an error naming the shape
** A kind = 'kernel' / 'step' constraint narrows the rows as they are found ('step' reads no
** args; a kernel's step still needs the steps found), and SQLite tests each row as usual.
** GROUP BY file (with rank, name, or class beside name) takes the rows a file at a time without
** a sort: SQLite asks only that equal rows be adjacent (sqlite3_vtab_distinct), and a file's
** rows come grouped by name when name is grouped on (GROUP BY file, class alone sorts).
** Rows: per file, its kernels in event order, then its steps by start. The rules are
** ext/model/training.h's. Errors: those of loading (vtab/loader.c). Interruptible.
** SQLITE_VTAB_DIRECTONLY: it reads files.
*/
#include "ps_vtab.h"
SQLITE_EXTENSION_INIT3

#include <string.h>
#include "../ext/model/training.h"
#include "../ext/wire/json.h"

#define TR_SCHEMA "CREATE TABLE x(id INTEGER, file TEXT, rank, kind TEXT, stream INTEGER, ts INTEGER, " \
                  "dur INTEGER, name TEXT, cat TEXT, correlation INTEGER, external_id INTEGER, " \
                  "launch_id INTEGER, launch_name TEXT, launch_ts INTEGER, launch_dur INTEGER, " \
                  "step INTEGER, last_step INTEGER, class TEXT, source HIDDEN, format HIDDEN, classes HIDDEN)"
enum { TR_ID, TR_FILE, TR_RANK, TR_KIND, TR_STREAM, TR_TS, TR_DUR, TR_NAME, TR_CAT, TR_CORR,
       TR_EXT, TR_LAUNCH_ID, TR_LAUNCH_NAME, TR_LAUNCH_TS, TR_LAUNCH_DUR, TR_STEP, TR_LAST_STEP,
       TR_CLASS, TR_SOURCE, TR_FORMAT, TR_CLASSES };
/* idxNum bits past ps_vt_eq_constraints' (source 1, format 2, classes 4, kind 8) */
#define TR_IDX_FILE    16
#define TR_IDX_FILE_IN 32
#define TR_IDX_BY_NAME 64     /* a file's kernels grouped by name (a GROUP BY that includes name) */

typedef struct TrCursor {
  sqlite3_vtab_cursor base;
  PsSet set;                  /* the captures (references held while open) */
  int iPart;                  /* current part */
  int iBuilt;                 /* the part tr was built for, -1 none */
  size_t iRow;                /* row of tr */
  PsCapture *cap;             /* the current part's capture */
  PsTraining tr;              /* its rows */
  int bByName;                /* TR_IDX_BY_NAME */
  int eKind;                  /* a kind = 'kernel' / 'step' constraint: PS_TR_KERNEL, PS_TR_STEP; else 0 */
  int nClass;                 /* the classes argument: (pattern, class) pairs, first match wins */
  char **azPattern, **azClass;
  int32_t *aNameClass;        /* per name id of the part: -2 not looked at, -1 no class, else k */
  char *zName; size_t nNameAlloc;   /* a name NUL-terminated, for sqlite3_strlike */
} TrCursor;

static void tr_classes_free(TrCursor *c){
  for(int k=0; k<c->nClass; k++){ sqlite3_free(c->azPattern[k]); sqlite3_free(c->azClass[k]); }
  sqlite3_free(c->azPattern); sqlite3_free(c->azClass);
  c->azPattern = c->azClass = 0; c->nClass = 0;
}

/* The classes argument: a JSON array of [pattern, class] pairs of strings, in the order they are
** tried (sql/training.sql passes gpu_kernel_classes by priority). SQLITE_OK, or an error set. */
static int tr_classes_parse(TrCursor *c, sqlite3_value *pVal){
  tr_classes_free(c);
  if( pVal==0 || sqlite3_value_type(pVal)==SQLITE_NULL ) return SQLITE_OK;
  const char *z = (const char*)sqlite3_value_text(pVal);
  size_t n = (size_t)sqlite3_value_bytes(pVal);
  if( z==0 ) return SQLITE_NOMEM;
  PsBuf scratch = {0,0,0};
  int rc = SQLITE_OK, nAlloc = 0;
  size_t i = ps_json_ws(z, n, 0);
  if( i>=n || z[i]!='[' ) goto bad;
  i++;
  for(size_t k=0;; k++){
    int r = ps_json_elem(z, n, &i, k, 0);
    if( r==0 ) break;
    if( r<0 || z[i]!='[' ) goto bad;
    i++;
    char *az[2] = {0, 0};
    for(size_t m=0; m<3; m++){
      int r2 = ps_json_elem(z, n, &i, m, 0);
      if( r2==0 && m==2 ) break;
      const char *zs; size_t ns;
      if( r2<=0 || m==2 || z[i]!='"' || ps_json_string(z, n, &i, &scratch, &zs, &ns, 0) ){
        sqlite3_free(az[0]); sqlite3_free(az[1]); goto bad;
      }
      az[m] = sqlite3_mprintf("%.*s", (int)ns, zs);
      if( az[m]==0 ){ sqlite3_free(az[0]); ps_buf_free(&scratch); return SQLITE_NOMEM; }
    }
    if( c->nClass==nAlloc ){
      nAlloc = nAlloc ? 2*nAlloc : 16;
      char **a1 = sqlite3_realloc64(c->azPattern, nAlloc*sizeof(char*));
      if( a1 ) c->azPattern = a1;
      char **a2 = a1 ? sqlite3_realloc64(c->azClass, nAlloc*sizeof(char*)) : 0;
      if( a2 ) c->azClass = a2;
      if( a1==0 || a2==0 ){ sqlite3_free(az[0]); sqlite3_free(az[1]); ps_buf_free(&scratch); return SQLITE_NOMEM; }
    }
    c->azPattern[c->nClass] = az[0]; c->azClass[c->nClass] = az[1]; c->nClass++;
  }
  if( ps_json_ws(z, n, i)!=n ) goto bad;             /* (only whitespace after the array) */
  ps_buf_free(&scratch);
  return rc;
bad:
  ps_buf_free(&scratch);
  return ps_vt_error(c->base.pVtab, sqlite3_mprintf("profile_training_rows: classes must be a JSON array of "
                     "[pattern, class] pairs of strings, e.g. '[[\"%%nccl%%\", \"communication\"]]'"), SQLITE_ERROR);
}

/* the class of name id of the current part: the first pattern it matches (LIKE), or -1 */
static int tr_class_of(TrCursor *c, uint32_t id){
  if( c->nClass==0 || id==0 || id>=c->cap->pool.n ) return -1;
  if( c->aNameClass[id]!=-2 ) return c->aNameClass[id];
  PsStr s = ps_pool_get(&c->cap->pool, id);
  if( s.n+1>c->nNameAlloc ){
    char *z = sqlite3_realloc64(c->zName, s.n+1);
    if( z==0 ) return -1;
    c->zName = z; c->nNameAlloc = s.n+1;
  }
  memcpy(c->zName, s.z, s.n); c->zName[s.n] = 0;
  int k = 0;
  while( k<c->nClass && sqlite3_strlike(c->azPattern[k], c->zName, 0)!=0 ) k++;
  return c->aNameClass[id] = k<c->nClass ? k : -1;
}

/* The part's rows grouped by name (a stable counting sort by name id), steps among them. */
static int tr_group_by_name(TrCursor *c){
  size_t nK = c->tr.n, nId = c->cap->pool.n + 1;
  if( nK<2 ) return 0;
  size_t *aStart = sqlite3_malloc64(nId*sizeof(size_t));
  PsTrainRow *aOut = sqlite3_malloc64(nK*sizeof(PsTrainRow));
  if( aStart==0 || aOut==0 ){ sqlite3_free(aStart); sqlite3_free(aOut); return 1; }
  memset(aStart, 0, nId*sizeof(size_t));
  const uint32_t *aName = c->cap->ev.aName;
  for(size_t i=0; i<nK; i++){ uint32_t id = aName[c->tr.a[i].row]; aStart[id<nId-1 ? id : nId-1]++; }
  size_t sum = 0;
  for(size_t id=0; id<nId; id++){ size_t k = aStart[id]; aStart[id] = sum; sum += k; }
  for(size_t i=0; i<nK; i++){
    uint32_t id = aName[c->tr.a[i].row];
    aOut[aStart[id<nId-1 ? id : nId-1]++] = c->tr.a[i];
  }
  memcpy(c->tr.a, aOut, nK*sizeof(PsTrainRow));
  sqlite3_free(aStart); sqlite3_free(aOut);
  return 0;
}

/* Moves past exhausted parts, loading each as the scan reaches it and finding its rows. */
static int tr_settle(TrCursor *c){
  while( c->iPart < c->set.nPart ){
    int rc = ps_set_use(c->base.pVtab, &c->set, &c->iPart, &c->cap);
    if( rc ) return rc;
    if( c->cap==0 ) return SQLITE_OK;
    if( c->iBuilt!=c->iPart ){
      ps_training_free(&c->tr);
      PsVtab *v = (PsVtab*)c->base.pVtab;
      PsPoll poll = { v->pConn->db, 0 };
      int prc = ps_training_build(c->cap, &c->tr, c->eKind==PS_TR_STEP, ps_poll_interrupt, &poll);
      sqlite3_finalize(poll.st);
      if( prc==PS_INTERRUPT ) return SQLITE_INTERRUPT;
      if( prc ) return SQLITE_NOMEM;
      c->iBuilt = c->iPart;
      if( c->bByName && tr_group_by_name(c) ) return SQLITE_NOMEM;
      if( c->nClass ){
        sqlite3_free(c->aNameClass);
        c->aNameClass = sqlite3_malloc64((c->cap->pool.n ? c->cap->pool.n : 1)*sizeof(int32_t));
        if( c->aNameClass==0 ) return SQLITE_NOMEM;
        for(size_t k=0; k<c->cap->pool.n; k++) c->aNameClass[k] = -2;
      }
    }
    /* a kind = ? constraint: the other kind's rows passed over */
    while( c->iRow < c->tr.n && c->eKind && c->tr.a[c->iRow].kind!=c->eKind ) c->iRow++;
    if( c->iRow < c->tr.n ) return SQLITE_OK;
    c->iPart++; c->iRow = 0;
  }
  return SQLITE_OK;
}

static int trConnect(sqlite3 *db, void *pAux, int argc, const char *const *argv,
                     sqlite3_vtab **ppVtab, char **pzErr){
  (void)argc; (void)argv; (void)pzErr;
  return ps_vt_connect(db, pAux, TR_SCHEMA, ppVtab);
}

static int trOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCur){
  (void)pVtab;
  int rc = ps_vt_open(sizeof(TrCursor), ppCur);
  if( rc==SQLITE_OK ) ((TrCursor*)*ppCur)->iBuilt = -1;
  return rc;
}

static int trClose(sqlite3_vtab_cursor *cur){
  TrCursor *c = (TrCursor*)cur;
  ps_training_free(&c->tr);
  ps_set_clear(&c->set);
  tr_classes_free(c);
  sqlite3_free(c->aNameClass);
  sqlite3_free(c->zName);
  sqlite3_free(c);
  return SQLITE_OK;
}

/* idxNum: source, format, classes, kind = ?, then file = ? / IN (argv in that order). Rows come
** a part at a time, so GROUP BY file (and rank, one per file) needs no sort: the grouping is
** consumed when SQLite asks only that equal rows be adjacent (sqlite3_vtab_distinct). */
static int trBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo){
  (void)pVtab;
  static const int aCol[4] = { TR_SOURCE, TR_FORMAT, TR_CLASSES, TR_KIND };
  int idxNum = ps_vt_eq_constraints(pInfo, aCol, 4), bIn = 0;
  if( idxNum<0 ) return SQLITE_CONSTRAINT;
  /* kind = ? narrows the rows made, and SQLite still tests each (its collation, its type) */
  for(int i=0; i<pInfo->nConstraint; i++){
    if( pInfo->aConstraint[i].iColumn==TR_KIND && pInfo->aConstraintUsage[i].argvIndex>0 ) pInfo->aConstraintUsage[i].omit = 0;
  }
  if( ps_vt_file_constraint(pInfo, TR_FILE, &bIn) ) idxNum |= bIn ? TR_IDX_FILE_IN : TR_IDX_FILE;
  /* grouping by file, rank (one per file), name, and class beside name (one per name): a part's
  ** kernels grouped by name when name is asked for */
  int bFile = 0, bName = 0, bClass = 0, bOther = 0;
  for(int i=0; i<pInfo->nOrderBy; i++){
    int col = pInfo->aOrderBy[i].iColumn;
    if( col==TR_FILE ) bFile = 1;
    else if( col==TR_NAME ) bName = 1;
    else if( col==TR_CLASS ) bClass = 1;
    else if( col!=TR_RANK ) bOther = 1;
  }
  if( bClass && !bName ) bOther = 1;     /* rows grouped by name are not grouped by class */
  if( pInfo->nOrderBy>0 && bFile && !bOther && sqlite3_libversion_number()>=3038000
   && sqlite3_vtab_distinct(pInfo)==1 ){
    pInfo->orderByConsumed = 1;
    if( bName ) idxNum |= TR_IDX_BY_NAME;
  }
  pInfo->idxNum = idxNum;
  pInfo->estimatedCost = 1000.0;
  pInfo->estimatedRows = 100;
  return SQLITE_OK;
}

static int trFilter(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr,
                    int argc, sqlite3_value **argv){
  TrCursor *c = (TrCursor*)cur;
  (void)idxStr; (void)argc;
  int k = 0;
  sqlite3_value *pSource = (idxNum & 1) ? argv[k++] : 0;
  sqlite3_value *pFormat = (idxNum & 2) ? argv[k++] : 0;
  sqlite3_value *pClasses = (idxNum & 4) ? argv[k++] : 0;
  sqlite3_value *pKind = (idxNum & 8) ? argv[k++] : 0;
  PsFileFilter files = ps_vt_file_filter(idxNum, TR_IDX_FILE, TR_IDX_FILE_IN, argv, k);
  ps_training_free(&c->tr);
  c->iBuilt = -1;
  c->eKind = 0;
  c->bByName = (idxNum & TR_IDX_BY_NAME)!=0;
  if( pKind && sqlite3_value_type(pKind)==SQLITE_TEXT ){
    /* the rows of that kind only ('step': no args read); any other value: every row, for SQLite's test */
    const char *z = (const char*)sqlite3_value_text(pKind);
    c->eKind = z && strcmp(z, "kernel")==0 ? PS_TR_KERNEL : z && strcmp(z, "step")==0 ? PS_TR_STEP : 0;
  }
  int rc0 = tr_classes_parse(c, pClasses);
  if( rc0 ) return rc0;
  int rc = ps_vt_filter_set(cur->pVtab, "profile_training_rows", pSource, pFormat, &files, 1, &c->set);
  if( rc!=SQLITE_OK ) return rc;
  c->iPart = 0; c->iRow = 0; c->cap = 0;
  return tr_settle(c);
}

static int trNext(sqlite3_vtab_cursor *cur){
  TrCursor *c = (TrCursor*)cur;
  c->iRow++;
  return tr_settle(c);
}

static int trEof(sqlite3_vtab_cursor *cur){
  TrCursor *c = (TrCursor*)cur;
  return c->iPart >= c->set.nPart;
}

static void result_i64(sqlite3_context *ctx, int64_t v){
  if( v==PS_NULL64 ) sqlite3_result_null(ctx); else sqlite3_result_int64(ctx, v);
}

static int trColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int iCol){
  TrCursor *c = (TrCursor*)cur;
  const PsCapture *cap = c->cap;
  const PsTrainRow *t = &c->tr.a[c->iRow];
  const PsEvents *e = &cap->ev;
  size_t r = (size_t)t->row, l = (size_t)t->launch;
  switch( iCol ){
    case TR_ID: sqlite3_result_int64(ctx, (sqlite3_int64)r); break;
    case TR_FILE: ps_vt_result_file(ctx, &c->set, c->iPart); break;
    case TR_RANK:
      if( c->tr.bRank ) sqlite3_result_int64(ctx, c->tr.rank);
      else ps_vt_result_file(ctx, &c->set, c->iPart);
      break;
    case TR_KIND: sqlite3_result_text(ctx, t->kind==PS_TR_STEP ? "step" : "kernel", -1, SQLITE_STATIC); break;
    case TR_STREAM: result_i64(ctx, t->stream); break;
    case TR_TS: result_i64(ctx, e->aTs[r]); break;
    case TR_DUR: result_i64(ctx, e->aDur[r]); break;
    case TR_NAME: ps_vt_result_pool(ctx, cap, e->aName[r], &c->set); break;
    case TR_CAT: ps_vt_result_pool(ctx, cap, e->aCat[r], &c->set); break;
    case TR_CORR: result_i64(ctx, t->correlation); break;
    case TR_EXT: result_i64(ctx, t->externalId); break;
    case TR_STEP: result_i64(ctx, t->step); break;
    case TR_LAST_STEP: result_i64(ctx, c->tr.lastStep); break;
    case TR_CLASS: {
      int k = t->kind==PS_TR_KERNEL ? tr_class_of(c, e->aName[r]) : -1;
      if( k<0 ) sqlite3_result_null(ctx);
      else sqlite3_result_text(ctx, c->azClass[k], -1, SQLITE_TRANSIENT);
      break;
    }
    case TR_LAUNCH_ID: case TR_LAUNCH_NAME: case TR_LAUNCH_TS: case TR_LAUNCH_DUR:
      if( t->launch<0 ){ sqlite3_result_null(ctx); break; }
      if( iCol==TR_LAUNCH_ID ) sqlite3_result_int64(ctx, (sqlite3_int64)l);
      else if( iCol==TR_LAUNCH_NAME ) ps_vt_result_pool(ctx, cap, e->aName[l], &c->set);
      else if( iCol==TR_LAUNCH_TS ) result_i64(ctx, e->aTs[l]);
      else result_i64(ctx, e->aDur[l]);
      break;
    default: sqlite3_result_null(ctx); break;
  }
  return SQLITE_OK;
}

static int trRowid(sqlite3_vtab_cursor *cur, sqlite_int64 *pRowid){
  TrCursor *c = (TrCursor*)cur;
  *pRowid = ((sqlite_int64)c->iPart << 40) | (sqlite_int64)c->iRow;
  return SQLITE_OK;
}

PS_VT_CHECKED(tr, TrCursor, "profile_training_rows", c->iPart)

static sqlite3_module trModule = {
  0, 0, trConnect, trBestIndex, ps_vt_disconnect, 0, trOpen, trClose, trFilter, trNextChecked, trEof,
  trColumnChecked, trRowid, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
};

int ps_training_rows_register(sqlite3 *db, PsConn *pConn){
  pConn->nRef++;
  return sqlite3_create_module_v2(db, "profile_training_rows", &trModule, pConn, ps_conn_release);
}
