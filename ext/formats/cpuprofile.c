/*
** cpuprofile.c — V8 CPU profiles (format 'cpuprofile'): the JSON that Chrome DevTools' Profiler /
** Performance panel, `node --cpu-prof` and the inspector protocol's Profiler.stop save as
** .cpuprofile, and the older tree-shaped JSON of v8-profiler / pm2 that DevTools still opens as
** its "legacy format". The node and sample readers are exported (cpuprofile.h) for the Chrome
** trace reader's 'Profile' / 'ProfileChunk' / 'CpuProfile' events.
**
**   SELECT name, count, self_ns / 1e6 AS self_ms, time_ns / 1e6 AS total_ms
**     FROM profile_records('app.cpuprofile') ORDER BY self_ns DESC LIMIT 10;
**
** Input (facts: corpus README section 8; V8's include/v8-profiler.h and the inspector protocol's
** Profiler.Profile type; DevTools' CPUProfileDataModel; speedscope's import/chrome.ts and
** v8cpuFormatter.ts)
**   new   {"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"",
**          "lineNumber":-1,"columnNumber":-1},"hitCount":0,"children":[2,3],
**          "positionTicks":[{"line":16,"ticks":13}],"deoptReason":"..."}, ...],
**          "startTime":163140599286,"endTime":163140647178,          (µs, V8's clock)
**          "samples":[2,5,5,...],                                    (node ids, one per tick)
**          "timeDeltas":[11575,1060,...]}                            (µs; sample i is at
**          startTime + timeDeltas[0] + ... + timeDeltas[i]; deltas can be negative)
**   old   {"head":{"functionName":"(root)","url":"","lineNumber":-1,"callUID":..,"bailoutReason":"",
**          "id":1,"scriptId":0,"hitCount":0,"children":[ {node}, ... ]},   (nested objects)
**          "startTime":163140,"endTime":163140,                      (whole SECONDS)
**          "samples":[...], "timestamps":[163140599286, ...]}        (absolute µs)
**         with optional "typeId", "uid", "title" before "head" (v8-profiler). timestamps has one
**         entry per sample as v8-profiler writes it; with one MORE entry than samples (speedscope's
**         convertToOld.js, the corpus file speedscope-node10-example.cpuprofile) timestamps[0] is
**         the profile's start and sample i is at timestamps[i+1], which reads that file exactly
**         as the new-shape file it was made from. (DevTools and speedscope pair sample i with
**         timestamps[i] in both cases; for such a file that puts every sample one interval early.)
**   Either shape's nodes may carry "parent" instead of "children" (Chrome trace ProfileChunk
**   nodes do), and "functionName"/"url" directly instead of a callFrame (legacy nodes).
**
** profile_records: one row per node, in file order (the old shape: in the order of its '{', a
** parent before its children)
**   record_id        the node's "id"      parent_record_id  its parent's id (NULL for a root)
**   name             callFrame.functionName as written: V8 writes '' for anonymous functions and
**                    that stays '' (DevTools and speedscope display '(anonymous)'); '(root)',
**                    '(program)', '(idle)', '(garbage collector)' are nodes like any other
**   category         callFrame.url, NULL when ''
**   count            samples whose node this is (self samples), from "samples" — not hitCount,
**                    which V8 fills separately and which can disagree (the corpus file's first
**                    sample hits node 2, whose hitCount is 0)
**   self_ns, time_ns Σ dur of those samples / plus the children's time_ns (inclusive)
**   depth            0 for the roots       line  NULL
**   attrs            the node object as written, every member but "children" (callFrame with
**                    scriptId, lineNumber, columnNumber (0-based), hitCount, positionTicks,
**                    deoptReason; old shape: its flat members, callUID, bailoutReason, ...)
** profile_events: one row per sample, file order: ph 'P', ts = the sample's time in ns (exact:
**   µs decimals scaled), dur = the time to the next sample in time order and, for the last
**   sample, endTime - its ts when that is >= 0, else NULL (DevTools instead gives the last sample
**   the average interval, speedscope gives it 0; endTime is where the profiler stopped), name =
**   the node's functionName, cat NULL, pid/tid NULL (the file names no thread), stack_id = the
**   node id, byte_offset = the sample's element in "samples". No args.
** profile_metadata: scope 'cpuprofile': startTime, endTime and any other top-level member as
**   written (title, typeId, uid, ...: a string as TEXT, an integer as INTEGER, another number as
**   REAL, an object or array as JSON); 'shape' ('nodes' or 'head'), and the counts 'nodes',
**   'samples', 'timeDeltas' / 'timestamps'.
**
** Errors (PS_ERROR "byte N: ..."): not JSON (the lexer's message; the whole document is checked
** before any row is made), bytes after it, not an object, neither "nodes" nor "head", a member of
** the wrong type (nodes/samples/timeDeltas/timestamps not an array, head not an object).
** Diagnostics, the rest still read: a node that is not an object or has no integer id (left
** out), a duplicate node id ('duplicate'), a parent or "children" cycle ('cycle'), a parent that
** is no node ('missing_parent'), a "children" entry or a sample naming no node ('unknown_id'), a
** node in two children lists, samples and timeDeltas of different lengths, a sample or delta
** that is not a number, samples out of time order, duplicate keys, invalid UTF-8.
**
** Detection: a JSON object whose top-level keys (read in the first 4 KiB) include "nodes" (an
** array whose first node has a "callFrame") or "head" (an object with a "functionName"), and no
** "traceEvents": 3, above the Chrome probe's 1 for any object.
**
** Parser only: nothing here includes SQLite. Linear in the input (the old shape's nested tree is
** walked with an explicit stack, never C recursion); polls for interrupt by work done (the bytes
** of the items read, ps_work), node ids looked up in a keyed hash (ps_hash_u64).
*/
#define _GNU_SOURCE            /* memmem */
#include "formats.h"
#include "json_model.h"
#include "cpuprofile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ walking JSON */

/* The next member of an object (*pi: after its '{' or after the previous member; k: members
** read so far). Returns 1 with *m (its value skipped and validated when bSkip, else m->e = 0),
** 0 at the '}' (*pi past it), -1 with v->err set on bytes that are not JSON. */
static int v8_member(PsV8 *v, size_t *pi, size_t k, PsV8Mem *m, int bSkip){
  PsJsonMember jm;
  int r = ps_json_member(v->z, v->n, pi, k, &jm, bSkip, v->err);
  if( r==1 ){ m->q = jm.q; m->kn = jm.kn; m->v = jm.v; m->e = jm.e; m->bOld = 0; }
  return r;
}

/* Moves *pi to element k of an array (*pi: after its '[' or after element k-1). Returns 1 with
** *pi at the element's first byte, 0 at the ']' (*pi past it), -1 with v->err set. */
static int v8_elem(PsV8 *v, size_t *pi, size_t k){
  return ps_json_elem(v->z, v->n, pi, k, v->err);
}

/* 1 when member m's key is zKey (raw bytes, as ps_json_find_key compares keys). */
static int v8_key_is(const PsV8 *v, const PsV8Mem *m, const char *zKey){
  size_t l = strlen(zKey);
  return m->kn==l && memcmp(v->z + m->q + 1, zKey, l)==0;
}

static int v8_is_num(char c){ return c=='-' || (c>='0' && c<='9'); }

/* The number at *pi (moved past it): 1 with *d, 0 when the value there is not a number (*pi
** past that value), -1 with v->err set on bytes that are not JSON. */
static int v8_number(PsV8 *v, size_t *pi, PsDec *d){
  if( *pi<v->n && v8_is_num(v->z[*pi]) ) return ps_json_number(v->z, v->n, pi, d, v->err) ? -1 : 1;
  return ps_json_skip(v->z, v->n, pi, v->err) ? -1 : 0;
}

/* The integer value at off (already validated): 0 with *pv, -1 when it is not an integer that
** fits in int64. */
static int v8_int_at(const PsV8 *v, size_t off, int64_t *pv){
  PsDec d; size_t i = off;
  if( off>=v->n || !v8_is_num(v->z[off]) ) return -1;
  if( ps_json_number(v->z, v->n, &i, &d, 0) ) return -1;
  return ps_dec_int64(&d, pv);
}

/* raw + idBase as a node id into *pId: -1 when it leaves int64 or is -2^63 (PS_NULL64, which
** stands for SQL NULL in the id columns). */
static int v8_id(int64_t raw, int64_t idBase, int64_t *pId){
  return __builtin_add_overflow(raw, idBase, pId) || *pId==PS_NULL64 ? -1 : 0;
}

/* Called at each item (a node, a sample) whose first byte is off: counts the bytes read since
** the last item (ps_work, by work done: an item of megabytes counts as that, not as one item)
** and, when a poll is due, releases the mapped bytes before off. */
static int v8_poll(PsV8 *v, size_t off){
  PsSource *pSrc = &v->cap->src;
  uint64_t nUnit = 1 + (off > v->nPoll ? off - v->nPoll : 0);
  v->nPoll = off;
  if( pSrc->nWork + nUnit >= PS_WORK_STEP ) ps_source_done_before(pSrc, off);
  return ps_work(pSrc, nUnit) ? ps_interrupted(v->err) : PS_OK;
}

/* Counts nUnit units of work that v8_poll's offsets do not see (an element of a second array
** read in step with the samples, an entry of a node's children list): 1 when the host said stop
** (v->err set). */
static int v8_work(PsV8 *v, uint64_t nUnit){
  return ps_work(&v->cap->src, nUnit) ? ps_interrupted(v->err) : PS_OK;
}

static int v8_push_mem(PsV8 *v, const PsV8Mem *m){
  if( ps_grow((void**)&v->aMem, sizeof(PsV8Mem), &v->nMemAlloc, v->nMem+1) ) return ps_nomem(v->err);
  v->aMem[v->nMem++] = *m;
  return PS_OK;
}

/* Marks the members [m0, nMem) that a later member with the same key supersedes (bOld), with a
** 'duplicate_key' diagnostic each, zWhere naming the object ("a node"). */
static int v8_dups(PsV8 *v, size_t m0, const char *zWhere){
  ps_json_keys_reset(&v->keys);
  for(size_t k=m0; k<v->nMem; k++){
    PsV8Mem *m = &v->aMem[k];
    uint32_t prev; size_t prevOff;
    int r = ps_json_keys_put(&v->keys, v->z, m->q+1, m->kn, (uint32_t)(k - m0), &prev, &prevOff);
    if( r<0 ) return ps_nomem(v->err);
    if( r ){
      v->aMem[m0 + prev].bOld = 1;
      if( ps_json_dup_diag(v->cap, v->z, m->q+1, m->kn, prevOff, zWhere) ) return ps_nomem(v->err);
    }
  }
  return PS_OK;
}

/* ------------------------------------------------------------------ node id -> record row */

/* The first slot of node id in a table of nHash (a power of 2) slots: keyed (ps_hash_u64), so
** ids a file picks cannot share one (issue 32: with id * G, 80k chosen ids took 20 s). Probe
** loops count each slot they examine in ps_nProbe. */
static size_t v8_hash_slot(int64_t id, size_t nHash){
  return (size_t)ps_hash_u64((uint64_t)id) & (nHash-1);
}

/* The record row of node id (with idBase), -1 when no node has it. */
static int32_t v8_lookup(const PsV8 *v, int64_t id){
  if( v->nHash==0 ) return -1;
  size_t j = v8_hash_slot(id, v->nHash);
  ps_nProbe++;
  while( v->aHashRow[j]>=0 ){
    if( v->aHashId[j]==id ) return v->aHashRow[j];
    j = (j+1) & (v->nHash-1);
    ps_nProbe++;
  }
  return -1;
}

/* Notes row as node id's record unless an earlier record has the id (links go to the first,
** as ps_records_tree resolves them). */
static int v8_hash_put(PsV8 *v, int64_t id, int32_t row){
  if( (v->nHashUsed+1)*2 > v->nHash ){
    size_t nh = v->nHash ? v->nHash*2 : 256;
    int64_t *aId = malloc(nh*sizeof(int64_t));
    int32_t *aRow = malloc(nh*sizeof(int32_t));
    if( aId==0 || aRow==0 ){ free(aId); free(aRow); return ps_nomem(v->err); }
    for(size_t j=0; j<nh; j++) aRow[j] = -1;
    for(size_t j=0; j<v->nHash; j++){
      if( v->aHashRow[j]<0 ) continue;
      size_t s = v8_hash_slot(v->aHashId[j], nh);
      ps_nProbe++;
      while( aRow[s]>=0 ){ s = (s+1) & (nh-1); ps_nProbe++; }
      aId[s] = v->aHashId[j]; aRow[s] = v->aHashRow[j];
    }
    free(v->aHashId); free(v->aHashRow);
    v->aHashId = aId; v->aHashRow = aRow; v->nHash = nh;
  }
  size_t j = v8_hash_slot(id, v->nHash);
  ps_nProbe++;
  while( v->aHashRow[j]>=0 ){
    if( v->aHashId[j]==id ) return PS_OK;
    j = (j+1) & (v->nHash-1);
    ps_nProbe++;
  }
  v->aHashId[j] = id; v->aHashRow[j] = row;
  v->nHashUsed++;
  return PS_OK;
}

/* ------------------------------------------------------------------ nodes */

/* What a node object says. */
typedef struct V8Node {
  int bId;                  /* id is valid */
  int64_t id, parent;       /* with idBase; parent PS_NULL64 when the node has none */
  uint32_t name, cat;       /* pool ids */
  const char *zAttrs; uint32_t nAttrs;
  size_t iKids;             /* its "children" value, 0 when absent */
} V8Node;

/* The string member value at off as a pool id (0 for null or ''-as-NULL when bEmptyNull);
** zField names it in diagnostics; another type gives a diagnostic and 0. */
static int v8_str(PsV8 *v, size_t off, const char *zField, int bEmptyNull, uint32_t *pId){
  *pId = 0;
  if( off==0 ) return PS_OK;
  const char *z = v->z;
  if( z[off]=='"' ){
    const char *s; size_t sn, i = off;
    if( ps_json_string(z, v->n, &i, &v->scratch, &s, &sn, v->err) ) return PS_ERROR;
    if( sn==0 && bEmptyNull ) return PS_OK;
    return ps_json_intern(v->cap, z, v->n, off, s, sn, zField, pId) ? ps_nomem(v->err) : PS_OK;
  }
  if( z[off]=='n' ) return PS_OK;
  return ps_diag(v->cap, PS_DIAG_OTHER, (int64_t)off, "byte %zu: %s is not a string; NULL", off, zField)
         ? ps_nomem(v->err) : PS_OK;
}

/* attrs: the members [m0, nMem) but superseded ones and "children", as written, into the
** capture arena (repaired under the text rule, with a diagnostic, when the bytes break it). */
static int v8_attrs(PsV8 *v, size_t m0, V8Node *o){
  PsBuf *b = &v->attrs;
  const char *z = v->z;
  int bFirst = 1, bBad = 0;
  b->n = 0;
  if( ps_buf_append(b, "{", 1) ) return ps_nomem(v->err);
  for(size_t k=m0; k<v->nMem; k++){
    const PsV8Mem *m = &v->aMem[k];
    if( m->bOld || v8_key_is(v, m, "children") || m->e==0 ) continue;
    size_t bad;
    if( !bBad && !ps_text_check(z + m->q, m->e - m->q, &bad) ){
      bBad = 1;
      if( ps_text_diag(v->cap, (int64_t)(m->q + bad), "a node's attrs", z + m->q, m->e - m->q, bad) ) return ps_nomem(v->err);
    }
    if( (!bFirst && ps_buf_append(b, ",", 1))
     || ps_buf_append(b, z + m->q, m->kn + 2) || ps_buf_append(b, ":", 1)
     || ps_buf_append(b, z + m->v, m->e - m->v) ) return ps_nomem(v->err);
    bFirst = 0;
  }
  if( ps_buf_append(b, "}", 1) ) return ps_nomem(v->err);
  size_t nOut = bBad ? ps_text_repair(b->z, b->n, 0) : b->n;
  if( nOut > UINT32_MAX ) return ps_err(v->err, "a node's attrs take more than 4 GiB");
  char *zOut = ps_arena_alloc(&v->cap->arena, nOut + 1);
  if( zOut==0 ) return ps_nomem(v->err);
  if( bBad ) ps_text_repair(b->z, b->n, zOut); else memcpy(zOut, b->z, nOut);
  zOut[nOut] = 0;
  o->zAttrs = zOut; o->nAttrs = (uint32_t)nOut;
  return PS_OK;
}

/* Reads the fields of the node object at off whose members are [m0, nMem) (values skipped,
** except "children" in the nested shape) into *o. */
static int v8_fields(PsV8 *v, size_t off, size_t m0, int64_t idBase, V8Node *o){
  PsCapture *cap = v->cap;
  const char *z = v->z;
  size_t iFn = 0, iUrl = 0, iCf = 0, iId = 0;
  int rc;
  memset(o, 0, sizeof(*o));
  o->parent = PS_NULL64;
  if( (rc = v8_dups(v, m0, "a node"))!=PS_OK ) return rc;
  for(size_t k=m0; k<v->nMem; k++){
    const PsV8Mem *m = &v->aMem[k];
    if( m->bOld ) continue;
    if( v8_key_is(v, m, "id") ) iId = m->v;
    else if( v8_key_is(v, m, "callFrame") ){
      if( z[m->v]=='{' ) iCf = m->v;
      else if( z[m->v]!='n' && ps_diag(cap, PS_DIAG_OTHER, (int64_t)m->v, "byte %zu: callFrame is not an object; ignored", m->v) ) return ps_nomem(v->err);
    }
    else if( v8_key_is(v, m, "functionName") ) iFn = m->v;
    else if( v8_key_is(v, m, "url") ) iUrl = m->v;
    else if( v8_key_is(v, m, "children") ) o->iKids = m->v;
    else if( v8_key_is(v, m, "parent") && z[m->v]!='n' ){
      int64_t p;
      if( v8_int_at(v, m->v, &p) || v8_id(p, idBase, &o->parent) ){
        o->parent = PS_NULL64;
        if( ps_diag(cap, PS_DIAG_OTHER, (int64_t)m->v, "byte %zu: a node's parent is not an integer node id; ignored", m->v) ) return ps_nomem(v->err);
      }
    }
  }
  if( iId ){
    int64_t id;
    if( v8_int_at(v, iId, &id)==0 && v8_id(id, idBase, &o->id)==0 ) o->bId = 1;
  }
  if( !o->bId ){
    if( ps_diag(cap, PS_DIAG_OTHER, (int64_t)off, "byte %zu: a node without an integer 'id' is left out "
                "(the nodes its children list names become roots)", off) ) return ps_nomem(v->err);
    return PS_OK;
  }
  if( iCf ){                          /* callFrame's own functionName / url (the last of each) */
    size_t m1 = v->nMem, j = iCf+1, k = 0;
    PsV8Mem m;
    int r;
    while( (r = v8_member(v, &j, k++, &m, 1))==1 ){
      if( (rc = v8_push_mem(v, &m))!=PS_OK ) return rc;
    }
    if( r<0 ) return PS_ERROR;
    rc = v8_dups(v, m1, "a callFrame");
    for(size_t q=m1; rc==PS_OK && q<v->nMem; q++){
      if( v->aMem[q].bOld ) continue;
      if( v8_key_is(v, &v->aMem[q], "functionName") ) iFn = v->aMem[q].v;
      else if( v8_key_is(v, &v->aMem[q], "url") ) iUrl = v->aMem[q].v;
    }
    v->nMem = m1;
    if( rc ) return rc;
  }
  if( (rc = v8_str(v, iFn, "functionName", 0, &o->name))!=PS_OK ) return rc;
  if( (rc = v8_str(v, iUrl, "url", 1, &o->cat))!=PS_OK ) return rc;
  return v8_attrs(v, m0, o);
}

/* Adds the record of node o whose object is at off. */
static int v8_record(PsV8 *v, const V8Node *o, size_t off){
  PsCapture *cap = v->cap;
  if( cap->nRec >= INT32_MAX-1 ) return ps_err_at(v->err, (int64_t)off, "more than 2^31 nodes");
  PsRecord *r = ps_frame_add(cap, o->id, o->parent, o->name, o->cat);
  if( r==0 ) return ps_nomem(v->err);
  r->msgOff = off;
  r->zAttrs = o->zAttrs; r->nAttrs = o->nAttrs;
  v->nNode++;
  return v8_hash_put(v, o->id, (int32_t)(cap->nRec - 1));
}

/* The "children" id list at iKids of node parent: pending links. */
static int v8_links(PsV8 *v, size_t iKids, int64_t parent, int64_t idBase){
  const char *z = v->z;
  if( z[iKids]!='[' ){
    if( z[iKids]=='n' ) return PS_OK;
    return ps_diag(v->cap, PS_DIAG_OTHER, (int64_t)iKids, "byte %zu: children of node %lld is not an array; ignored",
                   iKids, (long long)parent) ? ps_nomem(v->err) : PS_OK;
  }
  size_t i = iKids+1, k = 0;
  int r;
  while( (r = v8_elem(v, &i, k++))==1 ){
    size_t off = i;
    int64_t c;
    if( ps_json_skip(z, v->n, &i, v->err) ) return PS_ERROR;
    if( v8_work(v, 1 + (i - off)) ) return PS_ERROR;
    if( v8_int_at(v, off, &c) || v8_id(c, idBase, &c) ){
      if( ps_diag(v->cap, PS_DIAG_OTHER, (int64_t)off, "byte %zu: an entry of node %lld's children is not an integer node id; ignored",
                  off, (long long)parent) ) return ps_nomem(v->err);
      continue;
    }
    if( ps_grow((void**)&v->aLink, sizeof(PsV8Link), &v->nLinkAlloc, v->nLink+1) ) return ps_nomem(v->err);
    PsV8Link *l = &v->aLink[v->nLink++];
    l->child = c; l->parent = parent; l->off = off;
  }
  return r<0 ? PS_ERROR : PS_OK;
}

int ps_v8_nodes(PsV8 *v, size_t iNodes, int64_t idBase){
  const char *z = v->z;
  if( iNodes==0 ) return PS_OK;
  if( z[iNodes]!='[' ){
    return ps_diag(v->cap, PS_DIAG_OTHER, (int64_t)iNodes, "byte %zu: 'nodes' is not an array; ignored", iNodes)
           ? ps_nomem(v->err) : PS_OK;
  }
  size_t i = iNodes+1, k = 0;
  int r, rc;
  while( (r = v8_elem(v, &i, k))==1 ){
    size_t off = i;
    if( (rc = v8_poll(v, off))!=PS_OK ) return rc;
    if( z[off]!='{' ){
      if( ps_json_skip(z, v->n, &i, v->err) ) return PS_ERROR;
      if( ps_diag(v->cap, PS_DIAG_OTHER, (int64_t)off, "byte %zu: node %zu is not an object; skipped", off, k) ) return ps_nomem(v->err);
      k++;
      continue;
    }
    size_t m0 = v->nMem, j = off+1, q = 0;
    PsV8Mem m;
    while( (r = v8_member(v, &j, q++, &m, 1))==1 ){
      if( (rc = v8_push_mem(v, &m))!=PS_OK ) return rc;
    }
    if( r<0 ) return PS_ERROR;
    i = j;
    V8Node o;
    rc = v8_fields(v, off, m0, idBase, &o);
    v->nMem = m0;
    if( rc ) return rc;
    if( o.bId ){
      if( (rc = v8_record(v, &o, off))!=PS_OK ) return rc;
      if( o.iKids && (rc = v8_links(v, o.iKids, o.id, idBase))!=PS_OK ) return rc;
    }
    k++;
  }
  return r<0 ? PS_ERROR : PS_OK;
}

/* The old shape: the node tree nested under "head" (children are node objects), walked with an
** explicit stack. Each node gets an entry in pre-order when its '{' is met, filled when its '}'
** is; the records are then added in that order, each with its nearest parent entry's id. */
typedef struct V8Ent { V8Node o; int32_t parent; size_t off; } V8Ent;
typedef struct V8Frame {
  size_t ent;               /* the node's entry */
  size_t i;                 /* cursor: in its members, or in its children array when bKids */
  size_t m0, k;             /* its first member in v->aMem; members read */
  size_t kk; int bKids;     /* children read; 1 while inside its children array */
} V8Frame;

static int v8_head(PsV8 *v, size_t iHead, int64_t idBase){
  const char *z = v->z; size_t n = v->n;
  V8Ent *aEnt = 0; size_t nEnt = 0, nEntAlloc = 0;
  V8Frame *aF = 0; size_t nF = 0, nFAlloc = 0;
  int rc = PS_OK, r;
  const int lim = ps_json_depth_limit < PS_JSON_MAX_DEPTH ? ps_json_depth_limit : PS_JSON_MAX_DEPTH;
  size_t start = iHead;                     /* the node object to enter, 0 none */
  int32_t parentEnt = -1;
  for(;;){
    if( start ){
      if( (rc = v8_poll(v, start))!=PS_OK ) goto out;
      if( nF >= (size_t)lim ){ rc = ps_err_at(v->err, (int64_t)start, "JSON nested deeper than %d levels", lim); goto out; }
      if( ps_grow((void**)&aEnt, sizeof(V8Ent), &nEntAlloc, nEnt+1)
       || ps_grow((void**)&aF, sizeof(V8Frame), &nFAlloc, nF+1) ){ rc = ps_nomem(v->err); goto out; }
      memset(&aEnt[nEnt], 0, sizeof(V8Ent));
      aEnt[nEnt].parent = parentEnt; aEnt[nEnt].off = start;
      V8Frame *f = &aF[nF++];
      f->ent = nEnt++; f->i = start+1; f->m0 = v->nMem; f->k = 0; f->kk = 0; f->bKids = 0;
      start = 0;
    }
    if( nF==0 ) break;
    V8Frame *f = &aF[nF-1];
    if( f->bKids ){
      r = v8_elem(v, &f->i, f->kk);
      if( r<0 ){ rc = PS_ERROR; goto out; }
      if( r==0 ){ f->bKids = 0; continue; }
      f->kk++;
      if( z[f->i]=='{' ){ start = f->i; parentEnt = (int32_t)f->ent; continue; }
      size_t off = f->i;
      if( ps_json_skip(z, n, &f->i, v->err) ){ rc = PS_ERROR; goto out; }
      if( ps_diag(v->cap, PS_DIAG_OTHER, (int64_t)off, "byte %zu: a child that is not a node object; skipped", off) ){ rc = ps_nomem(v->err); goto out; }
      continue;
    }
    PsV8Mem m;
    r = v8_member(v, &f->i, f->k, &m, 0);
    if( r<0 ){ rc = PS_ERROR; goto out; }
    if( r==1 ){
      f->k++;
      if( v8_key_is(v, &m, "children") && z[m.v]=='[' ){
        /* walked in place (skipping it would cost its whole subtree at every level); a
        ** "children" given twice is walked twice, after a 'duplicate_key' diagnostic */
        f->i = m.v+1; f->kk = 0; f->bKids = 1;
      }else{
        size_t j = m.v;
        if( ps_json_skip(z, n, &j, v->err) ){ rc = PS_ERROR; goto out; }
        m.e = f->i = j;
      }
      if( (rc = v8_push_mem(v, &m))!=PS_OK ) goto out;
      continue;
    }
    /* the node's '}': its fields, then back to its parent's children array */
    V8Ent *e = &aEnt[f->ent];
    rc = v8_fields(v, e->off, f->m0, idBase, &e->o);
    v->nMem = f->m0;
    if( rc ) goto out;
    size_t end = f->i;
    nF--;
    if( nF ) aF[nF-1].i = end;
  }
  for(size_t k=0; k<nEnt; k++){
    V8Ent *e = &aEnt[k];
    if( !e->o.bId ) continue;
    e->o.parent = (e->parent>=0 && aEnt[e->parent].o.bId) ? aEnt[e->parent].o.id : PS_NULL64;
    if( (rc = v8_record(v, &e->o, e->off))!=PS_OK ) goto out;
  }
out:
  free(aEnt); free(aF);
  return rc;
}

/* ------------------------------------------------------------------ samples */

void ps_v8_profile_init(PsV8Profile *p, int64_t startNs, int64_t idBase, uint32_t thread){
  memset(p, 0, sizeof(*p));
  p->clock = startNs; p->idBase = idBase; p->thread = thread;
}

void ps_v8_profile_free(PsV8Profile *p){
  free(p->aRow); free(p->aPend);
  memset(p, 0, sizeof(*p));
}

/* Appends the sample row at off (the element in "samples") with ts (PS_NULL64: none) naming
** node id (with idBase; bId 0: the element is not a node id). */
static int v8_row(PsV8 *v, PsV8Profile *p, int64_t ts, size_t off, int bId, int64_t id){
  PsCapture *cap = v->cap;
  if( cap->ev.n >= INT32_MAX-1 ) return ps_err_at(v->err, (int64_t)off, "more than 2^31 rows");
  int64_t r = ps_sample_add(cap, ts, PS_NULL64, p->thread, -1, 1, off);
  if( r<0 ) return ps_nomem(v->err);
  cap->ev.aCat[r] = p->cat;
  if( ts!=PS_NULL64 ){
    if( ps_grow((void**)&p->aRow, sizeof(int32_t), &p->nRowAlloc, p->nRow+1) ) return ps_nomem(v->err);
    p->aRow[p->nRow++] = (int32_t)r;
  }
  if( !bId ) return PS_OK;
  int32_t rec = v8_lookup(v, id);
  if( rec>=0 ){
    cap->ev.aStack[r] = rec;
    cap->ev.aName[r] = cap->aRec[rec].name;
  }else{
    if( ps_grow((void**)&p->aPend, sizeof(int32_t), &p->nPendAlloc, p->nPend+1) ) return ps_nomem(v->err);
    p->aPend[p->nPend++] = (int32_t)r;
  }
  return PS_OK;
}

/* The sample element at *pi (moved past it): *pbId / *pId (with the profile's idBase). */
static int v8_sample_id(PsV8 *v, PsV8Profile *p, size_t *pi, int *pbId, int64_t *pId){
  size_t off = *pi;
  PsDec d; int64_t id;
  int r = v8_number(v, pi, &d);
  if( r<0 ) return PS_ERROR;
  *pbId = r==1 && ps_dec_int64(&d, &id)==0 && v8_id(id, p->idBase, pId)==0;
  if( !*pbId && ps_diag(v->cap, PS_DIAG_OTHER, (int64_t)off, "byte %zu: a sample that is not an integer node id; "
                        "the row has no stack", off) ) return ps_nomem(v->err);
  return PS_OK;
}

/* The time element at *pi (moved past it) in ns: µs scaled (bAbs: an absolute timestamp, else
** a delta). 1 with *pNs, 0 when it is not a number that fits (a diagnostic). */
static int v8_time(PsV8 *v, size_t *pi, int bAbs, int64_t *pNs){
  size_t off = *pi;
  PsDec d;
  int r = v8_number(v, pi, &d);
  if( r<0 ) return -1;
  if( r==1 && ps_dec_scale(&d, 3, pNs)==0 ) return 1;
  const char *zWhat = bAbs ? "a timestamp" : "a timeDelta";
  if( ps_diag(v->cap, PS_DIAG_OTHER, (int64_t)off, "byte %zu: %s that is not a number of µs within int64 ns; %s", off, zWhat,
              bAbs ? "its sample has no ts" : "taken as 0") ){ ps_nomem(v->err); return -1; }
  return 0;
}

int ps_v8_samples(PsV8 *v, PsV8Profile *p, size_t iS, size_t iD){
  PsCapture *cap = v->cap;
  const char *z = v->z;
  int bS = iS && z[iS]=='[', bD = iD && z[iD]=='[', r, rc;
  if( iS && !bS && ps_diag(cap, PS_DIAG_OTHER, (int64_t)iS, "byte %zu: 'samples' is not an array; ignored", iS) ) return ps_nomem(v->err);
  if( iD && !bD && ps_diag(cap, PS_DIAG_OTHER, (int64_t)iD, "byte %zu: 'timeDeltas' is not an array; ignored", iD) ) return ps_nomem(v->err);
  size_t is = iS+1, id = iD+1, nS = 0, nD = 0;
  int bBad = 0;
  while( bS || bD ){
    int bTime = 0;
    if( bD ){
      if( (r = v8_elem(v, &id, nD))<0 ) return PS_ERROR;
      if( r==0 ) bD = 0;
      else{
        int64_t d = 0;
        size_t dOff = id;
        if( (r = v8_time(v, &id, 0, &d))<0 ) return v->err->rc==PS_NOMEM ? PS_NOMEM : PS_ERROR;
        if( v8_work(v, 1 + (id - dOff)) ) return PS_ERROR;
        if( p->clock!=PS_NULL64 && __builtin_add_overflow(p->clock, d, &p->clock) ){
          if( !bBad && ps_diag(cap, PS_DIAG_OTHER, (int64_t)(id), "byte %zu: the running sum of timeDeltas leaves int64 ns; "
                               "the samples from here have no ts", id) ) return ps_nomem(v->err);
          bBad = 1;
          p->clock = PS_NULL64;
        }
        nD++; bTime = 1;
      }
    }
    if( bS ){
      if( (r = v8_elem(v, &is, nS))<0 ) return PS_ERROR;
      if( r==0 ) bS = 0;
      else{
        size_t off = is;
        int bId; int64_t nodeId = 0;
        if( (rc = v8_poll(v, off))!=PS_OK ) return rc;
        if( (rc = v8_sample_id(v, p, &is, &bId, &nodeId))!=PS_OK ) return rc;
        if( (rc = v8_row(v, p, bTime ? p->clock : PS_NULL64, off, bId, nodeId))!=PS_OK ) return rc;
        nS++;
      }
    }
  }
  p->nSample += nS; p->nTime += nD;
  if( iS && iD && nS!=nD && ps_diag(cap, PS_DIAG_OTHER, (int64_t)iS, "byte %zu: %zu samples but %zu timeDeltas; %s", iS, nS, nD,
                                   nS > nD ? "the samples beyond them have no ts" : "the deltas beyond them only move the clock") ) return ps_nomem(v->err);
  if( iS && !iD && nS && ps_diag(cap, PS_DIAG_OTHER, (int64_t)iS, "byte %zu: samples without timeDeltas have no ts", iS) ) return ps_nomem(v->err);
  return PS_OK;
}

/* Samples timed by absolute timestamps (µs), the old shape: sample k at timestamps[k+shift]. */
static int v8_stamps(PsV8 *v, PsV8Profile *p, size_t iS, size_t iT, size_t shift){
  PsCapture *cap = v->cap;
  int bS = iS!=0, bT = iT!=0, r, rc;
  size_t is = iS+1, it = iT+1, nS = 0, nT = 0;
  while( bS || bT ){
    int64_t ts = PS_NULL64;
    if( bT ){
      if( (r = v8_elem(v, &it, nT))<0 ) return PS_ERROR;
      if( r==0 ) bT = 0;
      else{
        int64_t t;
        size_t tOff = it;
        if( (r = v8_time(v, &it, 1, &t))<0 ) return v->err->rc==PS_NOMEM ? PS_NOMEM : PS_ERROR;
        if( v8_work(v, 1 + (it - tOff)) ) return PS_ERROR;
        if( r==1 ) p->clock = ts = t;
        nT++;
        if( nT<=shift ) continue;         /* timestamps[0]: the profile's start */
      }
    }
    if( bS ){
      if( (r = v8_elem(v, &is, nS))<0 ) return PS_ERROR;
      if( r==0 ) bS = 0;
      else{
        size_t off = is;
        int bId; int64_t nodeId = 0;
        if( (rc = v8_poll(v, off))!=PS_OK ) return rc;
        if( (rc = v8_sample_id(v, p, &is, &bId, &nodeId))!=PS_OK ) return rc;
        if( (rc = v8_row(v, p, ts, off, bId, nodeId))!=PS_OK ) return rc;
        nS++;
      }
    }
  }
  p->nSample += nS; p->nTime += nT;
  size_t at = iS ? iS : iT;
  if( nT!=nS+shift && ps_diag(cap, PS_DIAG_OTHER, (int64_t)at, "byte %zu: %zu samples but %zu timestamps; "
                              "the samples beyond them have no ts", at, nS, nT) ) return ps_nomem(v->err);
  return PS_OK;
}

/* ------------------------------------------------------------------ the end of a profile */

typedef struct V8TsRow { int64_t ts; int32_t row; } V8TsRow;
static int v8_tsrow_cmp(const void *a, const void *b){
  const V8TsRow *x = a, *y = b;
  if( x->ts!=y->ts ) return x->ts < y->ts ? -1 : 1;
  return x->row < y->row ? -1 : (x->row > y->row);
}

int ps_v8_profile_end(PsV8 *v, PsV8Profile *p, int64_t endNs){
  PsCapture *cap = v->cap;
  PsEvents *e = &cap->ev;
  /* rows naming a node read after them */
  for(size_t k=0; k<p->nPend; k++){
    int32_t r = p->aPend[k];
    int64_t id;
    if( v8_int_at(v, (size_t)e->aOff[r], &id) || v8_id(id, p->idBase, &id) ) continue;
    int32_t rec = v8_lookup(v, id);
    if( rec>=0 ){ e->aStack[r] = rec; e->aName[r] = cap->aRec[rec].name; continue; }
    if( ps_diag(cap, PS_DIAG_UNKNOWN_ID, (int64_t)e->aOff[r], "byte %llu: the sample names node %lld, which no node has; "
                "the row has no stack", (unsigned long long)e->aOff[r], (long long)(id - p->idBase)) ) return ps_nomem(v->err);
  }
  p->nPend = 0;
  /* durations: to the next sample in time order */
  size_t n = p->nRow, nBack = 0;
  if( n==0 ) return PS_OK;
  for(size_t k=1; k<n; k++) nBack += e->aTs[p->aRow[k]] < e->aTs[p->aRow[k-1]];
  if( nBack ){
    V8TsRow *a = malloc(n*sizeof(V8TsRow));
    if( a==0 ) return ps_nomem(v->err);
    for(size_t k=0; k<n; k++){ a[k].row = p->aRow[k]; a[k].ts = e->aTs[a[k].row]; }
    qsort(a, n, sizeof(V8TsRow), v8_tsrow_cmp);
    for(size_t k=0; k<n; k++) p->aRow[k] = a[k].row;
    free(a);
    if( ps_diag(cap, PS_DIAG_OTHER, (int64_t)e->aOff[p->aRow[0]], "%zu samples are earlier than the sample before them "
                "(negative timeDeltas); each sample's dur is the time to the next one in time order, as DevTools "
                "orders them", nBack) ) return ps_nomem(v->err);
  }
  for(size_t k=0; k+1<n; k++){
    int32_t a = p->aRow[k], b = p->aRow[k+1];
    int64_t d;
    e->aDur[a] = __builtin_sub_overflow(e->aTs[b], e->aTs[a], &d) ? PS_NULL64 : d;
  }
  int32_t last = p->aRow[n-1];
  int64_t d;
  if( endNs!=PS_NULL64 && endNs>=e->aTs[last] && !__builtin_sub_overflow(endNs, e->aTs[last], &d) ) e->aDur[last] = d;
  return PS_OK;
}

int ps_v8_finish(PsV8 *v){
  PsCapture *cap = v->cap;
  if( v->nLink==0 ) return PS_OK;
  uint8_t *aSet = calloc(cap->nRec ? cap->nRec : 1, 1);   /* 1: parent from a "parent" field, 2: from a list */
  if( aSet==0 ) return ps_nomem(v->err);
  int rc = PS_OK;
  for(size_t k=0; k<v->nLink && rc==PS_OK; k++){
    const PsV8Link *l = &v->aLink[k];
    int32_t r = v8_lookup(v, l->child);
    if( r<0 ){
      rc = ps_diag(cap, PS_DIAG_UNKNOWN_ID, (int64_t)l->off, "byte %llu: the children of node %lld name node %lld, "
                   "which no node has", (unsigned long long)l->off, (long long)l->parent, (long long)l->child);
      continue;
    }
    PsRecord *c = &cap->aRec[r];
    if( aSet[r]==0 && c->parentId!=PS_NULL64 ) aSet[r] = 1;
    if( aSet[r]==0 ){ c->parentId = l->parent; aSet[r] = 2; continue; }
    if( c->parentId==l->parent ) continue;
    rc = ps_diag(cap, PS_DIAG_OTHER, (int64_t)l->off, "byte %llu: node %lld is in the children of node %lld, but its "
                 "parent is node %lld (%s); that one is kept", (unsigned long long)l->off, (long long)l->child,
                 (long long)l->parent, (long long)c->parentId, aSet[r]==1 ? "its 'parent' field" : "an earlier children list");
  }
  free(aSet);
  v->nLink = 0;
  return rc ? ps_nomem(v->err) : PS_OK;
}

/* ------------------------------------------------------------------ a whole profile object */

void ps_v8_init(PsV8 *v, PsCapture *cap, PsErr *err){
  memset(v, 0, sizeof(*v));
  v->cap = cap; v->err = err; v->z = cap->src.z; v->n = cap->src.n;
}

void ps_v8_free(PsV8 *v){
  ps_buf_free(&v->scratch); ps_buf_free(&v->attrs);
  ps_json_keys_free(&v->keys);
  free(v->aMem); free(v->aLink); free(v->aHashId); free(v->aHashRow);
  memset(v, 0, sizeof(*v));
}

/* A member value as a metadata row: a string as TEXT, an integer as INTEGER (beyond int64: its
** digits as TEXT), another number as REAL, true/false 1/0, null NULL, else JSON text. */
static int v8_meta_value(PsV8 *v, const char *zScope, const char *zKey, size_t off, size_t e){
  return ps_json_meta_value(v->cap, v->z, v->n, off, e, zScope, zKey, &v->scratch, v->err);
}

/* The number at off in ns: the value times 10^scale. PS_NULL64 when off is 0 or the value is not
** a number that fits. */
static int64_t v8_ns_at(const PsV8 *v, size_t off, int scale){
  PsDec d; size_t i = off; int64_t ns;
  if( off==0 || !v8_is_num(v->z[off]) || ps_json_number(v->z, v->n, &i, &d, 0) || ps_dec_scale(&d, scale, &ns) ) return PS_NULL64;
  return ns;
}

/* Elements of the array at off. */
static int v8_count(PsV8 *v, size_t off, size_t *pn){
  size_t i = off+1, k = 0;
  int r;
  while( (r = v8_elem(v, &i, k))==1 ){
    size_t e0 = i;
    if( ps_json_skip(v->z, v->n, &i, v->err) || v8_work(v, 1 + (i - e0)) ) return PS_ERROR;
    k++;
  }
  *pn = k;
  return r<0 ? PS_ERROR : PS_OK;
}

enum { K_NODES, K_HEAD, K_SAMPLES, K_DELTAS, K_STAMPS, K_START, K_END, K_N };
static const char *const azV8Key[K_N] = { "nodes", "head", "samples", "timeDeltas", "timestamps", "startTime", "endTime" };

int ps_v8_profile_object(PsV8 *v, size_t iObj, int64_t idBase, uint32_t thread, uint32_t cat,
                         const char *zScope){
  PsCapture *cap = v->cap;
  const char *z = v->z;
  size_t m0 = v->nMem, j = iObj+1, k = 0, aV[K_N] = {0};
  PsV8Mem m;
  PsV8Profile p;
  int r, rc;
  memset(&p, 0, sizeof(p));
  if( z[iObj]!='{' ) return ps_err_at(v->err, (int64_t)iObj, "expected a CPU profile object '{'");
  while( (r = v8_member(v, &j, k++, &m, 1))==1 ){
    if( (rc = v8_push_mem(v, &m))!=PS_OK ) return rc;
  }
  if( r<0 ) return PS_ERROR;
  if( (rc = v8_dups(v, m0, "the profile object"))!=PS_OK ) goto out;
  size_t m1 = v->nMem;
  for(size_t q=m0; q<m1; q++){
    if( v->aMem[q].bOld ) continue;
    for(int t=0; t<K_N; t++) if( v8_key_is(v, &v->aMem[q], azV8Key[t]) ) aV[t] = v->aMem[q].v;
  }
  static const char acWant[K_N] = { '[', '{', '[', '[', '[', 0, 0 };
  for(int t=0; t<K_N; t++){
    if( aV[t] && acWant[t] && z[aV[t]]!=acWant[t] ){
      rc = ps_err_at(v->err, (int64_t)aV[t], "'%s' is not %s", azV8Key[t], acWant[t]=='[' ? "an array" : "an object");
      goto out;
    }
  }
  if( !aV[K_NODES] && !aV[K_HEAD] ){
    rc = ps_err_at(v->err, (int64_t)iObj, "a V8 CPU profile has 'nodes' or 'head'; this object has neither");
    goto out;
  }
  int bHead = aV[K_NODES]==0;
  if( aV[K_NODES] && aV[K_HEAD] && ps_diag(cap, PS_DIAG_OTHER, (int64_t)aV[K_HEAD], "byte %zu: the profile has both 'nodes' "
                                           "and 'head'; 'head' is ignored", aV[K_HEAD]) ){ rc = ps_nomem(v->err); goto out; }
  /* the old shape's startTime / endTime are whole seconds, the new shape's µs (as DevTools reads them) */
  int scale = bHead ? 9 : 3;
  int64_t startNs = v8_ns_at(v, aV[K_START], scale), endNs = v8_ns_at(v, aV[K_END], scale);
  size_t nNode0 = v->nNode;
  if( aV[K_DELTAS] && startNs==PS_NULL64 ){
    if( ps_diag(cap, PS_DIAG_OTHER, (int64_t)iObj, "byte %zu: no startTime (a number of %s): the sample times count from 0",
                iObj, bHead ? "seconds" : "µs") ){ rc = ps_nomem(v->err); goto out; }
    startNs = 0;
  }
  ps_v8_profile_init(&p, startNs, idBase, thread);
  p.cat = cat;
  rc = bHead ? v8_head(v, aV[K_HEAD], idBase) : ps_v8_nodes(v, aV[K_NODES], idBase);
  if( rc ) goto out;
  if( aV[K_DELTAS] || !aV[K_STAMPS] ){
    rc = ps_v8_samples(v, &p, aV[K_SAMPLES], aV[K_DELTAS]);
  }else{
    size_t nS = 0, nT = 0;
    if( aV[K_SAMPLES] && (rc = v8_count(v, aV[K_SAMPLES], &nS))!=PS_OK ) goto out;
    if( (rc = v8_count(v, aV[K_STAMPS], &nT))!=PS_OK ) goto out;
    rc = v8_stamps(v, &p, aV[K_SAMPLES], aV[K_STAMPS], nT==nS+1 ? 1 : 0);
  }
  if( rc==PS_OK ) rc = ps_v8_profile_end(v, &p, endNs);
  if( rc || zScope==0 ) goto out;
  /* metadata: the other members as written, then the counts */
  for(size_t q=m0; q<m1; q++){
    PsV8Mem *x = &v->aMem[q];
    int t = 0;
    while( t<K_N && !v8_key_is(v, x, azV8Key[t]) ) t++;
    if( x->bOld || (t<K_N && t!=K_START && t!=K_END) ) continue;
    const char *s; size_t sn, qq = x->q;
    if( ps_json_string(z, v->n, &qq, &v->scratch, &s, &sn, v->err) ){ rc = PS_ERROR; goto out; }
    char zKey[PS_JSON_KEY_BUF];
    if( ps_json_key_text(cap, z, v->n, x->q, s, sn, zKey) ){ rc = ps_nomem(v->err); goto out; }
    if( (rc = v8_meta_value(v, zScope, zKey, x->v, x->e))!=PS_OK ) goto out;
  }
  if( ps_meta_text(cap, zScope, "shape", bHead ? "head" : "nodes", bHead ? 4 : 5, PS_META_TEXT, (int64_t)(bHead ? aV[K_HEAD] : aV[K_NODES]))
   || ps_meta_int(cap, zScope, "nodes", (int64_t)(v->nNode - nNode0), (int64_t)(bHead ? aV[K_HEAD] : aV[K_NODES]))
   || ps_meta_int(cap, zScope, "samples", (int64_t)p.nSample, aV[K_SAMPLES] ? (int64_t)aV[K_SAMPLES] : -1)
   || (aV[K_DELTAS] && ps_meta_int(cap, zScope, "timeDeltas", (int64_t)p.nTime, (int64_t)aV[K_DELTAS]))
   || (!aV[K_DELTAS] && aV[K_STAMPS] && ps_meta_int(cap, zScope, "timestamps", (int64_t)p.nTime, (int64_t)aV[K_STAMPS])) ){
    rc = ps_nomem(v->err);
  }
out:
  v->nMem = m0;
  ps_v8_profile_free(&p);
  return rc;
}

/* ------------------------------------------------------------------ the .cpuprofile format */

static size_t cp_start(const char *z, size_t n){
  size_t i = 0;
  if( n>=3 && (unsigned char)z[0]==0xEF && (unsigned char)z[1]==0xBB && (unsigned char)z[2]==0xBF ) i = 3;
  return ps_json_ws(z, n, i);
}

static int cp_parse(PsCapture *cap, PsErr *err){
  const char *z = cap->src.z; size_t n = cap->src.n;
  size_t i = cp_start(z, n), e = i;
  err->msg[0] = 0; err->rc = PS_ERROR;
  if( i>=n || z[i]!='{' ){
    return ps_err_at(err, (int64_t)i, "%sexpected a V8 CPU profile JSON object '{'", i>=n ? "unexpected end of input, " : "");
  }
  /* the whole document first: the lexer names the byte where it breaks, and nothing below
  ** meets bytes that are not JSON (polled by the bytes it skips) */
  if( ps_json_skip_poll(z, n, &e, err, ps_work_cb, &cap->src) ) return PS_ERROR;
  size_t t = ps_json_ws(z, n, e);
  if( t<n ) return ps_err_at(err, (int64_t)t, "unexpected bytes after the CPU profile JSON");
  PsValue none = { 0, 0, PS_VAL_NULL };
  int64_t thread = ps_thread_get(cap, &none, &none);
  if( thread<0 ) return ps_nomem(err);
  PsV8 v;
  ps_v8_init(&v, cap, err);
  int rc = ps_v8_profile_object(&v, i, 0, (uint32_t)thread, 0, "cpuprofile");
  if( rc==PS_OK ) rc = ps_v8_finish(&v);
  ps_v8_free(&v);
  if( rc==PS_OK ) rc = ps_stacks_finish(cap, 1, err);
  return rc;
}

/* Reads the top-level keys in the first 4 KiB (see the header): 3 for a V8 CPU profile. */
static int cp_probe(const char *z, size_t n){
  size_t lim = n < 4096 ? n : 4096, i = cp_start(z, lim), k = 0;
  if( i>=lim || z[i]!='{' ) return 0;
  i++;
  int score = 0;
  for(;;){
    i = ps_json_ws(z, lim, i);
    if( i<lim && k>0 && z[i]==',' ) i = ps_json_ws(z, lim, i+1);
    if( i>=lim || z[i]!='"' ) break;
    size_t q = i;
    if( ps_json_skip(z, lim, &i, 0) ) break;
    const char *key = z+q+1; size_t kn = i-q-2;
    i = ps_json_ws(z, lim, i);
    if( i>=lim || z[i]!=':' ) break;
    i = ps_json_ws(z, lim, i+1);
    if( i>=lim ) break;
    if( kn==11 && memcmp(key, "traceEvents", 11)==0 ) return 0;
    if( kn==5 && memcmp(key, "nodes", 5)==0 && z[i]=='[' ){
      size_t j = ps_json_ws(z, lim, i+1);
      if( j<lim && z[j]=='{' && memmem(z+j, lim-j, "\"callFrame\"", 11) ) score = 3;
    }
    if( kn==4 && memcmp(key, "head", 4)==0 && z[i]=='{' && memmem(z+i, lim-i, "\"functionName\"", 14) ) score = 3;
    if( score ) return score;
    if( ps_json_skip(z, lim, &i, 0) ) break;
    k++;
  }
  return 0;
}

const PsFormat ps_format_cpuprofile = { "cpuprofile", cp_probe, cp_parse, 0, 0 };
