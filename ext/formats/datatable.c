/*
** datatable.c — the TensorBoard profile plugin's pre-rendered tool output: Google Visualization
** DataTable JSON ("xprof_datatable"), e.g. the overview page's <run>.overview_page.json, read
** generically so that any tool output of the same shape reads too.
**
**   SELECT record_set, name, category, json_extract(attrs, '$.selfTimePercent') AS self
**     FROM profile_records('profile_demo.overview_page.json');
**   SELECT key, value FROM profile_metadata('profile_demo.overview_page.json')
**    WHERE scope = 'table 2';
**
** Input (after an optional UTF-8 BOM and whitespace)
**   [ table, table, ... ]     a JSON array of DataTables (table i is the i-th element, 0-based)
**   table                     one DataTable object on its own (table 0)
** where a table is {"cols":[{"id":..,"label":..,"type":..,"p":{..}},..],
**                   "rows":[{"c":[{"v":..,"f":..,"p":{..}} or null,..]},..], "p":{..}}.
**
** profile_records: one row per row of every table, in file order
**   record_id    1-based order of the row over the whole file
**   record_set   'table <i>'
**   name         the row's cell of the first column of type "string" that is not the category
**                column: its formatted value "f" when that is a string, else its value "v"
**                (a string decoded; null: NULL; another value: its JSON text)
**   category     the cell "v" of the column whose id (else label) is 'category' (ASCII case
**                ignored), as name; NULL when the table has no such column
**   attrs        JSON object: column key -> the cell's "v" exactly as written (numbers keep their
**                digits, strings their escapes); a null cell, a cell without "v" and a missing
**                trailing cell give null. Column key: its id, else its label when the id is
**                empty, else its 0-based index; a key an earlier column of the table already has
**                gets "#<index>" appended (a 'duplicate_key' diagnostic), so no key repeats.
**   line         1-based line of the row's '{'
**   parent_record_id NULL, depth 0; time_ns, self_ns, count and the other columns NULL: a
**                DataTable states no unit, so none is guessed (the values are in attrs).
** profile_metadata: scope 'table <i>' (each row's byte_offset is that of its value)
**   'cols'       the cols array as written (JSON), when present
**   'p'          the table's p object as written (JSON), when present
**   <key>        each member of p (the last one of a key given twice): a string as TEXT, an
**                integer as INTEGER (beyond int64: its digits as TEXT), another number as REAL,
**                true/false as 1/0, null as NULL, an object or array as JSON text. A key named
**                'cols', 'p' or 'rows' is written 'p.cols', 'p.p', 'p.rows'.
**   'rows'       the number of rows (INTEGER; 0 without a rows member)
**   <member>     any other member of the table object, as JSON text
**   'empty'      1 for a table written {} (xprof's writer puts {} for a table it has nothing
**                for: its overview_page output, the 2020 input_pipeline.json): no rows, 'rows' 0
** and ('capture', 'tables', N), ('capture', 'empty_tables', N) when some are {}.
**
** Errors (PS_ERROR, "byte N: ..."; indexes are 0-based): malformed JSON (the lexer's message; the
** whole document is validated before any row is made, so lazy attrs never meet bad bytes);
** bytes after the document; a table that is not an object, or a non-empty one that holds none of
** cols/rows/p ("table 5 has none of 'cols', 'rows' and 'p': not a DataTable"); cols,
** rows or c not an array, p not an object; a column or row that is not an object; a column's
** id/label/type not a string; a cell that is neither an object nor null; a row with more cells
** than the table has columns; a table with rows but no cols. Diagnostics: a row with fewer cells
** than columns ('other': the rest are null), keys given twice in one object ('duplicate_key':
** the last one is read, as JSON.parse and Python's json do), text that breaks the text rule
** ('invalid_text': a column key, name, category, metadata value, or a row whose attrs will hold
** it repaired).
**
** Detection: after the BOM and whitespace, '[' then (past up to 64 leading {}) '{' whose first
** key is "cols", "rows" or "p", or '{' whose first key is "cols" (keys as written, followed by ':'): 3, above the Chrome
** probe (2 for "[{", 1 for '{"'), which would read such a file as events without 'ph'.
**
** attrs is built on demand from the row's bytes (PsRecord.msgOff/msgLen) and the table's column
** keys, which PsRecord.pMsgDef points to (a DtTable in the capture arena: the per-record schema
** pointer ext/formats/xprof.c uses for a PbMsgDef; only the format's own hook reads it).
**
** Parser only: nothing here includes SQLite. Linear in the input; polls for interrupt every
** 4096 rows.
*/
#include "formats.h"
#include "json_model.h"
#include "../wire/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A table's columns, for the lazy attrs column (in the capture arena; PsRecord.pMsgDef points
** here). */
typedef struct DtTable {
  uint32_t nCol;
  const uint32_t *aOff;       /* key of column k: zKeys[aOff[k] .. aOff[k+1]), a JSON string */
  const char *zKeys;
} DtTable;

/* An object member: the key's opening quote, the value [v, e). */
typedef struct DtMem { size_t q, kn, v, e; } DtMem;

/* Per member of an object: 1 when a later member has the same key (the last one is read). */
typedef struct DtSuper { uint8_t *a; size_t nAlloc; } DtSuper;

/* Parser state. */
typedef struct Dt {
  PsCapture *cap;
  PsErr *err;
  const char *z; size_t n;    /* the source bytes */
  PsBuf scratch;              /* decoded strings */
  PsJsonKeys kObj;            /* keys of the object being read (duplicates) */
  uint32_t iTable;            /* index of the table being read */
  size_t nRow;                /* rows read over the file */
  uint32_t nEmpty;            /* tables written as {} (empty tables) */
  size_t lineAt; uint64_t line;   /* byte lineAt is on line `line` (1-based) */
  DtSuper table, props;      /* members of the table object / of its p that a later member
                              ** with the same key supersedes */
  /* the columns of the table being read */
  PsBuf kText;                /* final keys, concatenated (text rule applied) */
  size_t *aKOff; size_t nKOffAlloc;      /* key k: kText[aKOff[k] .. aKOff[k+1]) */
  uint32_t *aHash; size_t nHash;         /* open addressing: column index + 1, 0 empty */
  PsBuf quoted;               /* the keys as JSON strings */
} Dt;

/* ------------------------------------------------------------------ walking validated JSON */

/* The next member of an object whose '{' is before *pi (start with *pi = '{' offset + 1).
** Returns 1 with *m, 0 at the closing '}' (*pi past it), -1 on bytes that are not JSON (only when
** they changed since they were validated). */
static int dt_member(const char *z, size_t n, size_t *pi, DtMem *m){
  size_t i = ps_json_ws(z, n, *pi);
  PsJsonMember jm;
  int r = ps_json_member(z, n, &i, i<n && z[i]==',', &jm, 1, 0);
  if( r==1 ){ m->q = jm.q; m->kn = jm.kn; m->v = jm.v; m->e = jm.e; }
  *pi = i;
  return r;
}

/* The next element of an array whose '[' is before *pi: 1 with [*pv, *pe), 0 at ']', -1 as
** above. */
static int dt_elem(const char *z, size_t n, size_t *pi, size_t *pv, size_t *pe){
  size_t i = ps_json_ws(z, n, *pi);
  int r = ps_json_elem(z, n, &i, i<n && z[i]==',', 0);
  if( r!=1 ){ *pi = i; return r; }
  *pv = i;
  if( ps_json_skip(z, n, &i, 0) ) return -1;
  *pe = *pi = i;
  return 1;
}

static int dt_hex(int c){
  if( c>='0' && c<='9' ) return c-'0';
  if( c>='a' && c<='f' ) return c-'a'+10;
  if( c>='A' && c<='F' ) return c-'A'+10;
  return -1;
}

/* 1 when the JSON string whose opening quote is at z[q] decodes to the ASCII text zLit
** (bNoCase: ASCII letters compared without case). Escapes are decoded, so "\u0063ols" is "cols",
** as JSON.parse reads it. */
static int dt_str_is(const char *z, size_t n, size_t q, const char *zLit, int bNoCase){
  size_t i = q+1;
  const char *l = zLit;
  for(;;){
    if( i>=n ) return 0;
    int c = (unsigned char)z[i];
    if( c=='"' ) return *l==0;
    if( c=='\\' ){
      if( i+1>=n ) return 0;
      int e = z[i+1];
      i += 2;
      switch( e ){
        case 'b': c = '\b'; break;  case 'f': c = '\f'; break;  case 'n': c = '\n'; break;
        case 'r': c = '\r'; break;  case 't': c = '\t'; break;
        case 'u': {
          if( i+4>n ) return 0;
          int v = 0;
          for(int k=0; k<4; k++){ int h = dt_hex((unsigned char)z[i+k]); if( h<0 ) return 0; v = v*16 + h; }
          if( v>=0x80 ) return 0;              /* the literals are ASCII */
          c = v; i += 4;
          break;
        }
        default: c = e;                       /* '"', '\\', '/' */
      }
    }else{
      i++;
    }
    if( c==0 || *l==0 ) return 0;
    int a = c, b = (unsigned char)*l;
    if( bNoCase ){ if( a>='A' && a<='Z' ) a += 32; if( b>='A' && b<='Z' ) b += 32; }
    if( a!=b ) return 0;
    l++;
  }
}

/* ------------------------------------------------------------------ parse helpers */

/* Where a duplicate key was seen, for its diagnostic. */
enum { W_TABLE, W_P, W_COL, W_ROW, W_CELL };
static const char *dt_where(const Dt *p, int kind, size_t a, size_t b, char *buf, size_t nBuf){
  switch( kind ){
    case W_TABLE: snprintf(buf, nBuf, "table %u", p->iTable); break;
    case W_P:     snprintf(buf, nBuf, "table %u's 'p'", p->iTable); break;
    case W_COL:   snprintf(buf, nBuf, "table %u column %zu", p->iTable, a); break;
    case W_ROW:   snprintf(buf, nBuf, "table %u row %zu", p->iTable, a); break;
    default:      snprintf(buf, nBuf, "table %u row %zu cell %zu", p->iTable, a, b); break;
  }
  return buf;
}

/* Notes member m (index iMem) of the object being read in p->kObj (ps_json_keys_reset first).
** A key seen before in the object adds a 'duplicate_key' diagnostic and marks the earlier
** member superseded in pSup (when not NULL). PS_OK or PS_NOMEM. */
static int dt_key(Dt *p, const DtMem *m, uint32_t iMem, DtSuper *pSup, int kind, size_t a, size_t b){
  if( pSup && ps_grow((void**)&pSup->a, 1, &pSup->nAlloc, (size_t)iMem+1) ) return ps_nomem(p->err);
  if( pSup ) pSup->a[iMem] = 0;
  uint32_t iPrev; size_t prevOff;
  int dup = ps_json_keys_put(&p->kObj, p->z, m->q+1, m->kn, iMem, &iPrev, &prevOff);
  if( dup<0 ) return ps_nomem(p->err);
  if( dup ){
    char zWhere[120];
    if( ps_json_dup_diag(p->cap, p->z, m->q+1, m->kn, prevOff, dt_where(p, kind, a, b, zWhere, sizeof(zWhere))) ){
      return ps_nomem(p->err);
    }
    if( pSup ) pSup->a[iPrev] = 1;
  }
  return PS_OK;
}

/* The line of byte off (off never decreases between calls). */
static uint32_t dt_line(Dt *p, size_t off){
  const char *c = p->z + p->lineAt, *e = p->z + off;
  while( (c = memchr(c, '\n', (size_t)(e - c)))!=0 ){ p->line++; c++; }
  p->lineAt = off;
  return p->line > UINT32_MAX ? 0 : (uint32_t)p->line;
}

/* The cell value z[v, e) as a pool id for name/category: a string decoded, null 0, another
** value its JSON text. */
static int dt_value_id(Dt *p, size_t v, size_t e, const char *zField, uint32_t *pId){
  const char *z = p->z;
  *pId = 0;
  if( z[v]=='"' ){
    const char *s; size_t sn, i = v;
    int rc = ps_json_string(z, p->n, &i, &p->scratch, &s, &sn, p->err);
    if( rc ) return rc;
    return ps_json_intern(p->cap, z, p->n, v, s, sn, zField, pId) ? ps_nomem(p->err) : PS_OK;
  }
  if( e-v==4 && memcmp(z+v, "null", 4)==0 ) return PS_OK;
  return ps_intern(p->cap, z+v, e-v, (int64_t)v, zField, pId) ? ps_nomem(p->err) : PS_OK;
}

/* A member value of p as a metadata row (see the header). */
static int dt_meta_value(Dt *p, const char *zScope, const char *zKey, size_t v, size_t e){
  return ps_json_meta_value(p->cap, p->z, p->n, v, e, zScope, zKey, &p->scratch, p->err);
}

/* ------------------------------------------------------------------ columns */

/* Adds key s[0..sn) of column k to p->kText (repaired under the text rule); makes it unique
** among the table's keys by appending "#<k>" (a diagnostic at byte off). */
static int dt_col_key(Dt *p, size_t k, const char *s, size_t sn, size_t off){
  PsBuf *t = &p->kText;
  size_t k0 = t->n;
  if( ps_text_check(s, sn, 0) ){
    if( ps_buf_append(t, s, sn) ) return ps_nomem(p->err);
  }else{
    size_t m = ps_text_repair(s, sn, 0);
    if( ps_buf_append(t, 0, 0) || ps_grow((void**)&t->z, 1, &t->nAlloc, t->n + m + 1) ) return ps_nomem(p->err);
    ps_text_repair(s, sn, t->z + t->n);
    t->n += m; t->z[t->n] = 0;
  }
  if( ps_grow((void**)&p->aKOff, sizeof(size_t), &p->nKOffAlloc, k+2) ) return ps_nomem(p->err);
  if( p->nHash < 2*(k+1) ){                  /* grow the key table: rehash columns 0..k-1 */
    size_t nh = p->nHash ? p->nHash : 64;
    while( nh < 4*(k+1) ) nh *= 2;
    uint32_t *a = calloc(nh, sizeof(uint32_t));
    if( a==0 ) return ps_nomem(p->err);
    free(p->aHash); p->aHash = a; p->nHash = nh;
    for(size_t j=0; j<k; j++){
      size_t h = (size_t)ps_hash(t->z + p->aKOff[j], p->aKOff[j+1] - p->aKOff[j]) & (nh-1);
      while( a[h] ){ ps_nProbe++; h = (h+1) & (nh-1); }
      a[h] = (uint32_t)(j+1);
    }
  }
  int bRenamed = 0;
  for(;;){
    size_t len = t->n - k0, h = (size_t)ps_hash(t->z + k0, len) & (p->nHash-1);
    uint32_t j;
    while( (j = p->aHash[h])!=0 ){
      size_t jo = p->aKOff[j-1], jn = p->aKOff[j] - jo;
      ps_nProbe++;
      if( jn==len && memcmp(t->z + jo, t->z + k0, len)==0 ) break;
      h = (h+1) & (p->nHash-1);
    }
    if( j==0 ){
      p->aHash[h] = (uint32_t)(k+1);
      p->aKOff[k+1] = t->n;
      break;
    }
    if( !bRenamed ){
      char zOld[3*80+1];
      ps_text_cstr(t->z + k0, len, 80, zOld);
      if( ps_diag(p->cap, PS_DIAG_DUPLICATE_KEY, (int64_t)off, "table %u column %zu: key '%s' is also column %u's; "
                  "attrs names it '%s#%zu'", p->iTable, k, zOld, j-1, zOld, k) ) return ps_nomem(p->err);
      bRenamed = 1;
    }
    char zSuf[32];
    int w = snprintf(zSuf, sizeof(zSuf), "#%zu", k);
    if( ps_buf_append(t, zSuf, (size_t)w) ) return ps_nomem(p->err);
  }
  return PS_OK;
}

/* Reads the cols array at v: the keys into p->kText / p->aKOff, *piName / *piCat the name and
** category columns (-1 none), *pnCol the number of columns. */
static int dt_cols(Dt *p, size_t v, uint32_t *pnCol, int64_t *piName, int64_t *piCat){
  const char *z = p->z; size_t n = p->n;
  size_t i = v+1, cv, ce;
  int64_t iCatId = -1, iCatLabel = -1;
  uint32_t nCol = 0;
  uint8_t *aString = 0; size_t nStrAlloc = 0;
  int rc = PS_OK, r;
  p->kText.n = 0;
  if( ps_grow((void**)&p->aKOff, sizeof(size_t), &p->nKOffAlloc, 1) ) return ps_nomem(p->err);
  p->aKOff[0] = 0;
  /* a big table's key table is dropped, not cleared: clearing it for each of many small
  ** tables after it would cost its size each time */
  if( p->nHash > 256 ){ free(p->aHash); p->aHash = 0; p->nHash = 0; }
  else if( p->aHash ) memset(p->aHash, 0, p->nHash*sizeof(uint32_t));
  while( (r = dt_elem(z, n, &i, &cv, &ce))==1 ){
    if( nCol==UINT32_MAX-1 ){ rc = ps_err_at(p->err, (int64_t)cv, "table %u: more than 2^32 columns", p->iTable); goto out; }
    if( z[cv]!='{' ){ rc = ps_err_at(p->err, (int64_t)cv, "table %u column %u: expected a column object", p->iTable, nCol); goto out; }
    size_t aV[3] = {0,0,0};                 /* id, label, type: the value's offset (0 absent) */
    static const char *const azKey[3] = { "id", "label", "type" };
    DtMem m; size_t j = cv+1; uint32_t iMem = 0;
    ps_json_keys_reset(&p->kObj);
    while( (r = dt_member(z, n, &j, &m))==1 ){
      if( (rc = dt_key(p, &m, iMem++, 0, W_COL, nCol, 0))!=PS_OK ) goto out;
      for(int k=0; k<3; k++){
        if( !dt_str_is(z, n, m.q, azKey[k], 0) ) continue;
        if( z[m.v]!='"' ){
          rc = ps_err_at(p->err, (int64_t)m.v, "table %u column %u: '%s' is not a string", p->iTable, nCol, azKey[k]);
          goto out;
        }
        aV[k] = m.v;
      }
    }
    if( r<0 ){ rc = ps_err_at(p->err, (int64_t)j, "table %u column %u: not JSON", p->iTable, nCol); goto out; }
    /* the key: id, else label, else the index (an escape never decodes to nothing) */
    size_t kv = 0;
    if( aV[0] && z[aV[0]+1]!='"' ) kv = aV[0];
    else if( aV[1] && z[aV[1]+1]!='"' ) kv = aV[1];
    if( kv ){
      const char *s; size_t sn, q = kv;
      if( (rc = ps_json_string(z, n, &q, &p->scratch, &s, &sn, p->err))!=PS_OK ) goto out;
      if( ps_json_text_diag(p->cap, z, n, kv, s, sn, kv==aV[0] ? "a column id" : "a column label") ){ rc = ps_nomem(p->err); goto out; }
      rc = dt_col_key(p, nCol, s, sn, kv);
    }else{
      char t[24]; int w = snprintf(t, sizeof(t), "%u", nCol);
      rc = dt_col_key(p, nCol, t, (size_t)w, cv);
    }
    if( rc ) goto out;
    if( iCatId<0 && aV[0] && dt_str_is(z, n, aV[0], "category", 1) ) iCatId = nCol;
    if( iCatLabel<0 && aV[1] && dt_str_is(z, n, aV[1], "category", 1) ) iCatLabel = nCol;
    if( ps_grow((void**)&aString, 1, &nStrAlloc, (size_t)nCol+1) ){ rc = ps_nomem(p->err); goto out; }
    aString[nCol] = aV[2] && dt_str_is(z, n, aV[2], "string", 0);
    nCol++;
  }
  if( r<0 ){ rc = ps_err_at(p->err, (int64_t)i, "table %u: 'cols' is not JSON", p->iTable); goto out; }
  *piCat = iCatId>=0 ? iCatId : iCatLabel;
  *piName = -1;
  for(uint32_t k=0; k<nCol; k++){
    if( aString[k] && (int64_t)k!=*piCat ){ *piName = k; break; }
  }
  *pnCol = nCol;
out:
  free(aString);
  return rc;
}

/* The table's column keys as a DtTable in the capture arena. */
static int dt_table_keys(Dt *p, uint32_t nCol, const DtTable **ppT){
  PsCapture *cap = p->cap;
  p->quoted.n = 0;
  DtTable *t = ps_arena_alloc(&cap->arena, sizeof(DtTable));
  uint32_t *aOff = ps_arena_alloc(&cap->arena, ((size_t)nCol+1)*sizeof(uint32_t));
  if( t==0 || aOff==0 ) return ps_nomem(p->err);
  aOff[0] = 0;
  for(uint32_t k=0; k<nCol; k++){
    size_t o = p->aKOff[k];
    if( ps_json_quote(&p->quoted, p->kText.z + o, p->aKOff[k+1] - o, 0) ) return ps_nomem(p->err);
    if( p->quoted.n > UINT32_MAX ) return ps_err(p->err, "table %u: the column keys take more than 4 GiB", p->iTable);
    aOff[k+1] = (uint32_t)p->quoted.n;
  }
  char *zKeys = ps_arena_strdup(&cap->arena, p->quoted.z ? p->quoted.z : "", p->quoted.n);
  if( zKeys==0 ) return ps_nomem(p->err);
  t->nCol = nCol; t->aOff = aOff; t->zKeys = zKeys;
  *ppT = t;
  return PS_OK;
}

/* ------------------------------------------------------------------ tables */

/* A record for the row object [v, e). */
static PsRecord *dt_record(Dt *p, uint32_t set, const DtTable *t, size_t v, size_t e){
  PsCapture *cap = p->cap;
  if( e - v > UINT32_MAX ){ ps_err_at(p->err, (int64_t)v, "table %u: a row longer than 4 GiB", p->iTable); return 0; }
  PsRecord *r = ps_record_add(cap);
  if( r==0 ){ ps_nomem(p->err); return 0; }
  r->line = dt_line(p, v);
  r->msgOff = v; r->msgLen = (uint32_t)(e - v);
  r->recordSet = set; r->pMsgDef = t;
  return r;
}

/* The rows array at v of a table whose columns are t (NULL and !bCols: the table has no cols);
** iName / iCat: the name and category columns (-1 none). *pnRow = the rows read. */
static int dt_rows(Dt *p, size_t v, int bCols, const DtTable *t, int64_t iName, int64_t iCat, size_t *pnRow){
  const char *z = p->z; size_t n = p->n;
  PsCapture *cap = p->cap;
  uint32_t nCol = t ? t->nCol : 0;
  char zSet[32];
  snprintf(zSet, sizeof(zSet), "table %u", p->iTable);
  uint32_t set;
  if( ps_intern(cap, zSet, strlen(zSet), -1, "record_set", &set) ) return ps_nomem(p->err);
  size_t i = v+1, rv, re, nRow = 0;
  int r;
  while( (r = dt_elem(z, n, &i, &rv, &re))==1 ){
    if( !bCols ) return ps_err_at(p->err, (int64_t)rv, "table %u has rows but no 'cols': its cells have no keys", p->iTable);
    if( z[rv]!='{' ) return ps_err_at(p->err, (int64_t)rv, "table %u row %zu: expected a row object", p->iTable, nRow);
    p->nRow++;
    if( cap->src.nWork + (re - rv) >= PS_WORK_STEP ) ps_source_done_before(&cap->src, rv);
    if( ps_work(&cap->src, re - rv) ) return ps_interrupted(p->err);   /* by the row's bytes */
    /* the row's "c" (the last one) */
    DtMem m; size_t j = rv+1, cv = 0; uint32_t iMem = 0;
    ps_json_keys_reset(&p->kObj);
    while( (r = dt_member(z, n, &j, &m))==1 ){
      int rc = dt_key(p, &m, iMem++, 0, W_ROW, nRow, 0);
      if( rc ) return rc;
      if( dt_str_is(z, n, m.q, "c", 0) ) cv = m.v;
    }
    if( r<0 ) return ps_err_at(p->err, (int64_t)j, "table %u row %zu: not JSON", p->iTable, nRow);
    if( cv && z[cv]!='[' && z[cv]!='n' ){
      return ps_err_at(p->err, (int64_t)cv, "table %u row %zu: 'c' is not an array", p->iTable, nRow);
    }
    PsRecord *rec = dt_record(p, set, t, rv, re);
    if( rec==0 ) return p->err->rc;
    size_t bad;
    if( !ps_text_check(z+rv, re-rv, &bad) ){      /* attrs will hold it repaired: say so once */
      char zField[64];
      snprintf(zField, sizeof(zField), "table %u row %zu", p->iTable, nRow);
      if( ps_text_diag(cap, (int64_t)(rv+bad), zField, z+rv, re-rv, bad) ) return ps_nomem(p->err);
    }
    uint32_t name = 0, cat = 0;
    size_t nCell = 0;
    if( cv && z[cv]=='[' ){
      size_t k = cv+1, ev, ee;
      while( (r = dt_elem(z, n, &k, &ev, &ee))==1 ){
        if( nCell>=nCol ){
          return ps_err_at(p->err, (int64_t)ev, "table %u row %zu: more cells than the table's %u columns",
                           p->iTable, nRow, nCol);
        }
        if( z[ev]=='{' ){
          size_t vv = 0, ve = 0, fv = 0, fe = 0, q = ev+1;
          ps_json_keys_reset(&p->kObj);
          iMem = 0;
          while( (r = dt_member(z, n, &q, &m))==1 ){
            int rc = dt_key(p, &m, iMem++, 0, W_CELL, nRow, nCell);
            if( rc ) return rc;
            if( dt_str_is(z, n, m.q, "v", 0) ){ vv = m.v; ve = m.e; }
            else if( dt_str_is(z, n, m.q, "f", 0) ){ fv = m.v; fe = m.e; }
          }
          if( r<0 ) return ps_err_at(p->err, (int64_t)q, "table %u row %zu cell %zu: not JSON", p->iTable, nRow, nCell);
          int rc = PS_OK;
          if( (int64_t)nCell==iName ){
            if( fv && z[fv]=='"' ) rc = dt_value_id(p, fv, fe, "name", &name);
            else if( vv ) rc = dt_value_id(p, vv, ve, "name", &name);
          }
          if( rc==PS_OK && (int64_t)nCell==iCat && vv ) rc = dt_value_id(p, vv, ve, "category", &cat);
          if( rc ) return rc;
        }else if( !(ee-ev==4 && memcmp(z+ev, "null", 4)==0) ){
          return ps_err_at(p->err, (int64_t)ev, "table %u row %zu cell %zu: expected a cell object or null",
                           p->iTable, nRow, nCell);
        }
        nCell++;
      }
      if( r<0 ) return ps_err_at(p->err, (int64_t)k, "table %u row %zu: 'c' is not JSON", p->iTable, nRow);
    }
    rec = &cap->aRec[cap->nRec-1];
    rec->name = name; rec->category = cat;
    if( nCell<nCol && ps_diag(cap, PS_DIAG_OTHER, (int64_t)rv, "table %u row %zu has %zu cells for %u columns: "
                              "the missing ones are null", p->iTable, nRow, nCell, nCol) ) return ps_nomem(p->err);
    nRow++;
  }
  if( r<0 ) return ps_err_at(p->err, (int64_t)i, "table %u: 'rows' is not JSON", p->iTable);
  *pnRow = nRow;
  return PS_OK;
}

/* The members of p (an object at v) as metadata rows of zScope. */
static int dt_props(Dt *p, const char *zScope, size_t v){
  const char *z = p->z; size_t n = p->n;
  DtMem m; size_t j = v+1; uint32_t iMem = 0;
  int r;
  ps_json_keys_reset(&p->kObj);
  while( (r = dt_member(z, n, &j, &m))==1 ){
    int rc = dt_key(p, &m, iMem++, &p->props, W_P, 0, 0);
    if( rc ) return rc;
  }
  if( r<0 ) return ps_err_at(p->err, (int64_t)j, "table %u: 'p' is not JSON", p->iTable);
  j = v+1; iMem = 0;
  while( dt_member(z, n, &j, &m)==1 ){
    if( p->props.a[iMem++] ) continue;      /* a later member has the same key */
    const char *k; size_t kn, q = m.q;
    int rc = ps_json_string(z, n, &q, &p->scratch, &k, &kn, p->err);
    if( rc ) return rc;
    char zKey[PS_JSON_KEY_BUF + 2];
    if( ps_json_key_text(p->cap, z, n, m.q, k, kn, zKey+2) ) return ps_nomem(p->err);
    const char *zk = zKey+2;
    if( strcmp(zk, "cols")==0 || strcmp(zk, "p")==0 || strcmp(zk, "rows")==0 ){
      zKey[0] = 'p'; zKey[1] = '.'; zk = zKey;
    }
    if( (rc = dt_meta_value(p, zScope, zk, m.v, m.e))!=PS_OK ) return rc;
  }
  return PS_OK;
}

/* The table object at v: its records and metadata. */
static int dt_table(Dt *p, size_t v){
  const char *z = p->z; size_t n = p->n;
  PsCapture *cap = p->cap;
  char zScope[32];
  snprintf(zScope, sizeof(zScope), "table %u", p->iTable);
  /* the members: cols / rows / p by their last occurrence; the others are written last */
  size_t aV[3] = {0,0,0}, aE[3] = {0,0,0};
  static const char *const azKey[3] = { "cols", "rows", "p" };
  DtMem m; size_t j = v+1; uint32_t iMem = 0;
  int r, rc, bOther = 0;
  ps_json_keys_reset(&p->kObj);
  while( (r = dt_member(z, n, &j, &m))==1 ){
    if( (rc = dt_key(p, &m, iMem, &p->table, W_TABLE, 0, 0))!=PS_OK ) return rc;
    int k = 0;
    while( k<3 && !dt_str_is(z, n, m.q, azKey[k], 0) ) k++;
    if( k<3 ){ aV[k] = m.v; aE[k] = m.e; }
    else bOther = 1;
    iMem++;
  }
  if( r<0 ) return ps_err_at(p->err, (int64_t)j, "table %u is not JSON", p->iTable);
  if( iMem==0 ){
    /* {}: xprof's own writer puts it for a table it has nothing for (its overview_page output,
    ** the 2020 input_pipeline.json): an empty table, said so in its metadata */
    p->nEmpty++;
    if( ps_meta_int(cap, zScope, "empty", 1, (int64_t)v) || ps_meta_int(cap, zScope, "rows", 0, -1) ) return ps_nomem(p->err);
    return PS_OK;
  }
  if( !aV[0] && !aV[1] && !aV[2] ){
    return ps_err_at(p->err, (int64_t)v, "table %u has none of 'cols', 'rows' and 'p': not a DataTable", p->iTable);
  }
  if( aV[0] && z[aV[0]]!='[' ) return ps_err_at(p->err, (int64_t)aV[0], "table %u: 'cols' is not an array", p->iTable);
  if( aV[1] && z[aV[1]]!='[' ) return ps_err_at(p->err, (int64_t)aV[1], "table %u: 'rows' is not an array", p->iTable);
  if( aV[2] && z[aV[2]]!='{' ) return ps_err_at(p->err, (int64_t)aV[2], "table %u: 'p' is not an object", p->iTable);
  const DtTable *t = 0;
  int64_t iName = -1, iCat = -1;
  if( aV[0] ){
    uint32_t nCol = 0;
    if( (rc = dt_cols(p, aV[0], &nCol, &iName, &iCat))!=PS_OK ) return rc;
    if( (rc = dt_table_keys(p, nCol, &t))!=PS_OK ) return rc;
    if( ps_meta_text(cap, zScope, "cols", z+aV[0], aE[0]-aV[0], PS_META_JSON, (int64_t)aV[0]) ) return ps_nomem(p->err);
  }
  if( aV[2] ){
    if( ps_meta_text(cap, zScope, "p", z+aV[2], aE[2]-aV[2], PS_META_JSON, (int64_t)aV[2]) ) return ps_nomem(p->err);
    if( (rc = dt_props(p, zScope, aV[2]))!=PS_OK ) return rc;
  }
  size_t nRow = 0;
  if( aV[1] && (rc = dt_rows(p, aV[1], aV[0]!=0, t, iName, iCat, &nRow))!=PS_OK ) return rc;
  if( ps_meta_int(cap, zScope, "rows", (int64_t)nRow, aV[1] ? (int64_t)aV[1] : -1) ) return ps_nomem(p->err);
  /* the other members (a DataTable has none), each by its last occurrence, as JSON text */
  j = v+1; iMem = 0;
  while( bOther && dt_member(z, n, &j, &m)==1 ){
    if( p->table.a[iMem++] ) continue;
    int k = 0;
    while( k<3 && !dt_str_is(z, n, m.q, azKey[k], 0) ) k++;
    if( k<3 ) continue;
    const char *s; size_t sn, q = m.q;
    if( (rc = ps_json_string(z, n, &q, &p->scratch, &s, &sn, p->err))!=PS_OK ) return rc;
    char zKey[PS_JSON_KEY_BUF];
    if( ps_json_key_text(cap, z, n, m.q, s, sn, zKey) ) return ps_nomem(p->err);
    if( ps_meta_text(cap, zScope, zKey, z+m.v, m.e-m.v, PS_META_JSON, (int64_t)m.v) ) return ps_nomem(p->err);
  }
  return PS_OK;
}

static size_t dt_start(const char *z, size_t n){
  size_t i = 0;
  if( n>=3 && (unsigned char)z[0]==0xEF && (unsigned char)z[1]==0xBB && (unsigned char)z[2]==0xBF ) i = 3;
  return ps_json_ws(z, n, i);
}

static int dt_parse(PsCapture *cap, PsErr *err){
  Dt p; memset(&p, 0, sizeof(p));
  p.cap = cap; p.err = err; p.z = cap->src.z; p.n = cap->src.n; p.line = 1;
  const char *z = p.z; size_t n = p.n;
  size_t i = dt_start(z, n), e = i;
  uint32_t nTable = 0;
  int rc = PS_OK;
  err->msg[0] = 0; err->rc = PS_ERROR;
  if( i>=n || (z[i]!='[' && z[i]!='{') ){
    rc = ps_err_at(err, (int64_t)i, "%sexpected a DataTable JSON array '[' or object '{'", i>=n ? "unexpected end of input, " : "");
    goto out;
  }
  /* the whole document first: the lexer's errors name the byte, and nothing below or in the
  ** lazy attrs column meets bytes that are not JSON */
  if( ps_json_skip(z, n, &e, err) ){ rc = PS_ERROR; goto out; }
  size_t t = ps_json_ws(z, n, e);
  if( t<n ){ rc = ps_err_at(err, (int64_t)t, "unexpected bytes after the DataTable JSON"); goto out; }
  if( z[i]=='{' ){
    rc = dt_table(&p, i);
    nTable = 1;
  }else{
    size_t k = i+1, tv, te;
    int r;
    while( (r = dt_elem(z, n, &k, &tv, &te))==1 ){
      p.iTable = nTable;
      if( z[tv]!='{' ){ rc = ps_err_at(err, (int64_t)tv, "table %u: expected a DataTable object", nTable); goto out; }
      if( (rc = dt_table(&p, tv))!=PS_OK ) goto out;
      if( nTable==UINT32_MAX ){ rc = ps_err_at(err, (int64_t)tv, "more than 2^32 tables"); goto out; }
      nTable++;
    }
    if( r<0 ) rc = ps_err_at(err, (int64_t)k, "the DataTable array is not JSON");
  }
  if( rc==PS_OK && ps_meta_int(cap, "capture", "tables", (int64_t)nTable, -1) ) rc = ps_nomem(err);
  if( rc==PS_OK && p.nEmpty && ps_meta_int(cap, "capture", "empty_tables", (int64_t)p.nEmpty, -1) ) rc = ps_nomem(err);
out:
  ps_buf_free(&p.scratch); ps_buf_free(&p.kText); ps_buf_free(&p.quoted);
  ps_json_keys_free(&p.kObj);
  free(p.table.a); free(p.props.a); free(p.aKOff); free(p.aHash);
  return rc;
}

/* ------------------------------------------------------------------ lazy columns */

/* attrs of a record: {"<column key>": <the cell's "v" as written>, ...}. Bytes that are no
** longer JSON (a mapped file rewritten since it was loaded) give NULL. */
static int dt_record_column(const PsCapture *cap, size_t row, int iCol, PsOut *o){
  memset(o, 0, sizeof(*o));
  const PsRecord *r = &cap->aRec[row];
  const DtTable *t = r->pMsgDef;
  if( iCol!=PS_COL_ATTRS || t==0 ) return PS_OK;
  const char *z = cap->src.z;
  size_t n = (size_t)r->msgOff + r->msgLen, j = (size_t)r->msgOff + 1, cv = 0;
  if( n > cap->src.n ) return PS_OK;
  DtMem m;
  int rc;
  while( (rc = dt_member(z, n, &j, &m))==1 ){
    if( dt_str_is(z, n, m.q, "c", 0) ) cv = m.v;
  }
  if( rc<0 ) return PS_OK;
  PsBuf b = {0,0,0};
  size_t k = cv && z[cv]=='[' ? cv+1 : 0, ev, ee;
  int bCells = k!=0;
  if( ps_buf_append(&b, "{", 1) ) return PS_NOMEM;
  for(uint32_t c=0; c<t->nCol; c++){
    const char *zv = "null"; size_t nv = 4;
    if( bCells ){
      rc = dt_elem(z, n, &k, &ev, &ee);
      if( rc<0 ){ ps_buf_free(&b); return PS_OK; }
      if( rc==0 ) bCells = 0;
      else if( z[ev]=='{' ){
        size_t q = ev+1;
        while( (rc = dt_member(z, n, &q, &m))==1 ){
          if( dt_str_is(z, n, m.q, "v", 0) ){ zv = z + m.v; nv = m.e - m.v; }
        }
        if( rc<0 ){ ps_buf_free(&b); return PS_OK; }
      }
    }
    if( (c && ps_buf_append(&b, ",", 1))
     || ps_buf_append(&b, t->zKeys + t->aOff[c], t->aOff[c+1] - t->aOff[c])
     || ps_buf_append(&b, ":", 1) || ps_buf_append(&b, zv, nv) ){ ps_buf_free(&b); return PS_NOMEM; }
  }
  if( ps_buf_append(&b, "}", 1) ){ ps_buf_free(&b); return PS_NOMEM; }
  o->type = PS_META_JSON; o->z = b.z; o->n = b.n; o->zFree = b.z;
  return PS_OK;
}

/* ------------------------------------------------------------------ detection */

/* See the header: 3 for a DataTable array or object, else 0. */
static int dt_probe(const char *z, size_t n){
  size_t i = dt_start(z, n);
  int bArray = 0;
  if( i>=n ) return 0;
  if( z[i]=='[' ){
    bArray = 1;
    i = ps_json_ws(z, n, i+1);
    for(int k=0; k<64 && i<n && z[i]=='{'; k++){     /* leading empty tables {} (xprof's writer) */
      size_t e = ps_json_ws(z, n, i+1);
      if( e>=n || z[e]!='}' ) break;
      e = ps_json_ws(z, n, e+1);
      if( e>=n || z[e]!=',' ) return 0;
      i = ps_json_ws(z, n, e+1);
    }
    if( i>=n || z[i]!='{' ) return 0;
  }else if( z[i]!='{' ){
    return 0;
  }
  i = ps_json_ws(z, n, i+1);
  static const char *const az[3] = { "\"cols\"", "\"rows\"", "\"p\"" };
  for(int k=0; k<(bArray ? 3 : 1); k++){
    size_t l = strlen(az[k]);
    if( n - i >= l && memcmp(z+i, az[k], l)==0 ){
      size_t j = ps_json_ws(z, n, i+l);
      return j<n && z[j]==':' ? 3 : 0;
    }
  }
  return 0;
}

const PsFormat ps_format_xprof_datatable = { "xprof_datatable", dt_probe, dt_parse, 0, dt_record_column };
