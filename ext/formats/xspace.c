/*
** xspace.c — decoder for TensorFlow/JAX/PyTorch-XLA profiler captures: the `XSpace` protobuf
** (`<logdir>/plugins/profile/<run>/<host>.xplane.pb`), read with a wire-format decoder of our own
** (no generated code), in one pass over the mapped bytes, strings referenced in place.
**
** Messages (tensorflow.profiler, xplane.proto), field numbers:
**   XSpace{planes=1, errors=2, warnings=3, hostnames=4}
**   XPlane{id=1, name=2, lines=3, event_metadata=4 (map int64->XEventMetadata),
**          stat_metadata=5 (map int64->XStatMetadata), stats=6}
**   XLine{id=1, display_id=10, name=2, display_name=11, timestamp_ns=3, duration_ps=9, events=4}
**   XEvent{metadata_id=1, offset_ps=2 | num_occurrences=5, duration_ps=3, stats=4}
**   XStat{metadata_id=1, double_value=2, uint64_value=3, int64_value=4, str_value=5,
**         bytes_value=6, ref_value=7}
**   XEventMetadata{id=1, name=2, display_name=4, metadata=3, stats=5, child_id=6}
**   XStatMetadata{id=1, name=2, description=3}
** Unknown fields are skipped by wire type. Every length must fit inside its parent message;
** a varint longer than 10 bytes, a length past the end, a wrong wire type for a known field, or
** a group wire type is an error naming the byte offset and the message being read.
**
** Rows (profile_events): one per XEvent. ts = XLine.timestamp_ns + offset_ps / 1000 and dur =
** duration_ps / 1000, both rounded to the nearest ns (halves up); the exact offset_ps and
** duration_ps are columns too. pid = plane index (plane ids are not unique in real files),
** tid = line id, process_name = plane name, thread_name = line name; events nest per line.
** args = the event's stats merged with its metadata's stats (the event's win), keyed by stat
** name; ref_value is resolved to the referenced stat metadata's name, bytes_value becomes
** {"bytes": N, "hex": "<first 16 bytes>"}; built lazily from the XEvent bytes (aOff, aLen).
** Planes and lines are in PsCapture.aPlane / aLine (profile_xplanes).
*/
#include "formats.h"
#include "../wire/json.h"
#include "../wire/pb.h"
#include "schemas.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ per-plane tables */

typedef struct XMeta { int64_t id; uint32_t name, displayName; size_t off, len; } XMeta;

static int xmeta_cmp(const void *a, const void *b){
  const XMeta *x = a, *y = b;
  return x->id < y->id ? -1 : (x->id > y->id);
}

static const XMeta *xmeta_find(const XMeta *a, size_t n, int64_t id){
  size_t lo = 0, hi = n;
  while( lo<hi ){ size_t m = (lo+hi)/2; if( a[m].id < id ) lo = m+1; else hi = m; }
  return (lo<n && a[lo].id==id) ? &a[lo] : 0;
}

typedef struct XsRows XsRows;

typedef struct Xs {
  const uint8_t *z; size_t n;
  PsCapture *cap;
  PsErr *err;
  size_t nStats;
  XsRows *aPart;                      /* [PS_MAX_PARTS]: a batch's parts (xs_rows_decode), on the
                                      ** heap: a host's thread may have a small stack */
} Xs;

/* Interns the string field f (zField names it in an 'invalid_text' diagnostic). */
static int xs_string(Xs *p, const PbField *f, const char *zField, uint32_t *pId){
  if( ps_intern(p->cap, (const char*)p->z + f->off, f->len, (int64_t)f->off, zField, pId) ) return ps_nomem(p->err);
  return PS_OK;
}

/* Walks a XStat message, checking its structure (lazy columns decode it again); counts it. */
static int xs_check_stat(const PbMsg *parent, const PbField *f, PsErr *err, size_t *pnStats){
  PbMsg m = pb_sub(parent, f, "XStat");
  PbField g; int rc;
  while( (rc = pb_next(&m, &g, err))==PS_OK ){
    if( g.num==2 && pb_want(&g, WT_I64, "double_value", "XStat", err) ) return PS_ERROR;
    if( (g.num==1 || g.num==3 || g.num==4 || g.num==7) && pb_want(&g, WT_VARINT, "value", "XStat", err) ) return PS_ERROR;
    if( (g.num==5 || g.num==6) && pb_want(&g, WT_LEN, "str/bytes_value", "XStat", err) ) return PS_ERROR;
  }
  (*pnStats)++;
  return rc==3 ? PS_OK : rc;
}

/* map entry {key=1, value=2}: returns the value's field (len 0 if absent) and the key. */
static int xs_map_entry(Xs *p, const PbMsg *parent, const PbField *f, const char *zMsg, int64_t *pKey, PbField *pVal){
  PbMsg m = pb_sub(parent, f, zMsg);
  PbField g; int rc;
  *pKey = 0; memset(pVal, 0, sizeof(*pVal));
  while( (rc = pb_next(&m, &g, p->err))==PS_OK ){
    if( g.num==1 ){ if( pb_want(&g, WT_VARINT, "key", zMsg, p->err) ) return PS_ERROR; *pKey = (int64_t)g.v; }
    else if( g.num==2 ){ if( pb_want(&g, WT_LEN, "value", zMsg, p->err) ) return PS_ERROR; *pVal = g; }
  }
  return rc==3 ? PS_OK : rc;
}

/* A varint with no error reporting: 0, or -1 when malformed / past end. */
static inline int fast_varint(const uint8_t *z, size_t end, size_t *pi, uint64_t *pv){
  size_t i = *pi;
  uint64_t v = 0;
  unsigned len;
  if( i<end && z[i]<0x80 ){ *pv = z[i]; *pi = i + 1; return 0; }
  if( (len = pb_varint_word(z, i, end, &v))!=0 ){ *pi = i + len; *pv = v; return 0; }
  for(int k=0; k<10 && i<end; k++){
    uint8_t b = z[i++];
    v |= (uint64_t)(b & 0x7F) << (7*k);
    if( b<0x80 ){ *pi = i; *pv = v; return 0; }
  }
  return -1;
}

/* The common XEvent shape, decoded in one tight loop: fields 1, 2, 3, 5 (varints) and 4 (XStat
** of fields 1-7 with their proper wire types). Returns -1 on anything else, and the caller
** decodes the event with the general reader (which also words any error). */
static int xs_event_fast(const uint8_t *z, size_t i, size_t end, int64_t *pMeta, int64_t *pOff,
                         int64_t *pDur, size_t *pnStats){
  uint64_t v;
  while( i<end ){
    uint8_t t = z[i++];
    switch( t ){
      case 0x08: if( fast_varint(z, end, &i, &v) ) return -1; *pMeta = (int64_t)v; break;
      case 0x10: if( fast_varint(z, end, &i, &v) ) return -1; *pOff = (int64_t)v; break;
      case 0x18: if( fast_varint(z, end, &i, &v) ) return -1; *pDur = (int64_t)v; break;
      case 0x28: if( fast_varint(z, end, &i, &v) ) return -1; break;
      case 0x22: {
        if( fast_varint(z, end, &i, &v) || v > end - i ) return -1;
        size_t j = i, e = i + (size_t)v;
        while( j<e ){
          uint8_t u = z[j++];
          switch( u ){
            case 0x08: case 0x18: case 0x20: case 0x38:
              if( fast_varint(z, e, &j, &v) ) return -1;
              break;
            case 0x11:
              if( e - j < 8 ) return -1;
              j += 8;
              break;
            case 0x2a: case 0x32:
              if( fast_varint(z, e, &j, &v) || v > e - j ) return -1;
              j += (size_t)v;
              break;
            default: return -1;
          }
        }
        i = e;
        (*pnStats)++;
        break;
      }
      default: return -1;
    }
  }
  return 0;
}

/* The thread (pid = plane index, tid = line id) of a line's rows; -1 when out of memory. */
static int64_t xs_line_thread(PsCapture *cap, size_t iPlane, int64_t lineId){
  PsValue pid, tid; memset(&pid, 0, sizeof(pid)); memset(&tid, 0, sizeof(tid));
  pid.type = PS_VAL_INT; pid.i = (int64_t)iPlane; tid.type = PS_VAL_INT; tid.i = lineId;
  return ps_thread_get(cap, &pid, &tid);
}

/* ------------------------------------------------------------------ events, decoded in parts */

/* A line's events are decoded in batches. Reading the line records each XEvent's place in the
** row columns (aOff, aLen): a tag and a length per event. A batch (the line's rows since the last
** one, at most ps_xspace_batch) is then decoded in parts, each part's rows by a thread of its
** own, with the line's timestamp, thread and track of the moment, while this thread waits. The
** parts write disjoint rows and only read the rest (the bytes, the plane's metadata tables; the
** string pool for an error's words). Each part stops at its first bad row; the error kept is the
** one of the first part in row order that has one, which is the error a serial decode meets
** first. On the 3M-event bench file, reading the lines is most of the load: it waits on the
** mapped file's pages. (Decoding a batch in other threads while this one reads on was slower on
** the 2-core bench machine: the two compete for the memory both wait on; docs/performance.md.) */
size_t ps_xspace_parallel_min = 16384;         /* rows in a batch before it is split */
size_t ps_xspace_batch = (size_t)1 << 18;      /* rows in a full batch (tests lower both) */

struct XsRows {
  Xs *p;                                  /* read only while the parts run */
  const XMeta *aEv; size_t nEv;           /* the plane's event metadata, by id */
  const uint32_t *aNameOf; size_t nNameOf;/* or ids from aEv[0].id, direct (0 = not used) */
  uint32_t planeName, lineName; int64_t lineId;     /* for an error's words */
  int64_t ts;                             /* XLine.timestamp_ns the rows are placed at */
  uint32_t thread, track;
  size_t r0, r1;                          /* the rows [r0, r1) */
  size_t nStats;                          /* XStats met */
  int rc;                                 /* PS_OK, or the part's first error, in err */
  PsErr err;
  PsBudget *pBudget;                      /* the loader's memory budget (ps_budget), shared */
};

/* Decodes row r's XEvent (at aOff[r], aLen[r]) into its columns. */
static int xs_row(XsRows *b, size_t r){
  PsCapture *cap = b->p->cap;
  PsEvents *ev = &cap->ev;
  const uint8_t *z = b->p->z;
  size_t off = (size_t)ev->aOff[r], end = off + ev->aLen[r];
  int64_t metaId = 0, offPs = 0, durPs = 0;
  size_t nSt = 0;
  if( xs_event_fast(z, off, end, &metaId, &offPs, &durPs, &nSt)==0 ){
    b->nStats += nSt;
  }else{
    /* anything unusual (other fields, long tags, malformed bytes): the general reader, which
    ** also words the error */
    metaId = offPs = durPs = 0;
    PbMsg em = { z, off, end, "XEvent" };
    PbField h; int rc;
    while( (rc = pb_next(&em, &h, &b->err))==PS_OK ){
      switch( h.num ){
        case 1: if( pb_want(&h, WT_VARINT, "metadata_id", "XEvent", &b->err) ) return PS_ERROR; metaId = (int64_t)h.v; break;
        case 2: if( pb_want(&h, WT_VARINT, "offset_ps", "XEvent", &b->err) ) return PS_ERROR; offPs = (int64_t)h.v; break;
        case 3: if( pb_want(&h, WT_VARINT, "duration_ps", "XEvent", &b->err) ) return PS_ERROR; durPs = (int64_t)h.v; break;
        case 5: if( pb_want(&h, WT_VARINT, "num_occurrences", "XEvent", &b->err) ) return PS_ERROR; break;
        case 4: if( pb_want(&h, WT_LEN, "stats", "XEvent", &b->err) || xs_check_stat(&em, &h, &b->err, &b->nStats) ) return PS_ERROR; break;
      }
    }
    if( rc!=3 ) return PS_ERROR;
  }
  if( durPs<0 ){
    /* int64 on the wire, but a duration cannot be negative (Chrome's 'dur' is refused alike) */
    PsStr pn = ps_pool_get(&cap->pool, b->planeName), lnm = ps_pool_get(&cap->pool, b->lineName);
    char zLine[160];
    if( lnm.z ) snprintf(zLine, sizeof(zLine), "line '%.*s'", (int)(lnm.n > 100 ? 100 : lnm.n), lnm.z);
    else snprintf(zLine, sizeof(zLine), "line id %lld", (long long)b->lineId);
    return ps_err_at(&b->err, (int64_t)off, "XEvent duration_ps is negative (%lld ps) in plane '%.*s' %s",
                     (long long)durPs, (int)(pn.n > 100 ? 100 : pn.n), pn.z ? pn.z : "", zLine);
  }
  uint32_t name = 0;
  if( b->aNameOf ){
    uint64_t k = (uint64_t)metaId - (uint64_t)b->aEv[0].id;
    if( k < b->nNameOf ) name = b->aNameOf[k];
  }else{
    const XMeta *xm = xmeta_find(b->aEv, b->nEv, metaId);
    if( xm ) name = xm->name;
  }
  if( __builtin_add_overflow(pb_ps_to_ns(offPs), b->ts, &ev->aTs[r]) ){
    return ps_err_at(&b->err, (int64_t)off, "XEvent time out of range (timestamp_ns + offset_ps/1000 exceeds 2^63 ns)");
  }
  ev->aDur[r] = pb_ps_to_ns(durPs);
  ev->aName[r] = name; ev->aCat[r] = 0;
  ev->aThread[r] = b->thread; ev->aTrack[r] = b->track;
  ev->aParent[r] = -1; ev->aDepth[r] = -1;
  ev->aPh[r] = 'X'; ev->aFlags[r] = PS_EV_SLICE;
  return PS_OK;
}

/* A part: its rows in order, up to the first bad one. */
static void *xs_rows_main(void *pv){
  XsRows *b = pv;
  ps_budget = b->pBudget;                 /* (this thread's own; the loader's when run here) */
  for(size_t r=b->r0; r<b->r1; r++){
    if( xs_row(b, r) ){ b->rc = PS_ERROR; break; }
  }
  return 0;
}

/* Decodes the rows [b->r0, r1) with b's line values, in parts when there are enough of them;
** then b->r0 = r1. Returns PS_OK, or the first row's error (in p->err). */
static int xs_rows_decode(Xs *p, XsRows *b, size_t r1){
  size_t r0 = b->r0, n = r1 - r0;
  if( n==0 ) return PS_OK;
  int k = n >= ps_xspace_parallel_min && n >= 2 ? ps_parse_parts(n, ps_xspace_parallel_min/2, 2) : 1;
  if( (size_t)k > n ) k = (int)n;
  XsRows *aPart = p->aPart;
  pthread_t aTh[PS_MAX_PARTS];
  int aStarted[PS_MAX_PARTS];
  for(int j=0; j<k; j++){
    aPart[j] = *b;
    aPart[j].r0 = r0 + (size_t)((double)n * j / k);
    aPart[j].r1 = j+1<k ? r0 + (size_t)((double)n * (j+1) / k) : r1;
    aPart[j].nStats = 0; aPart[j].rc = PS_OK;
    aPart[j].err.msg[0] = 0; aPart[j].err.rc = PS_ERROR; aPart[j].err.off = -1;
    aPart[j].pBudget = ps_budget;
  }
  for(int j=1; j<k; j++) aStarted[j] = pthread_create(&aTh[j], 0, xs_rows_main, &aPart[j])==0;
  xs_rows_main(&aPart[0]);
  for(int j=1; j<k; j++){
    if( aStarted[j] ) pthread_join(aTh[j], 0);
    else xs_rows_main(&aPart[j]);       /* its thread could not start: decoded here */
  }
  for(int j=0; j<k; j++){
    if( aPart[j].rc ){ *p->err = aPart[j].err; return PS_ERROR; }
    p->nStats += aPart[j].nStats;
  }
  b->r0 = r1;
  PsEvents *ev = &p->cap->ev;
  ps_source_done_before(&p->cap->src, (size_t)ev->aOff[r1-1]);   /* decoded pages can go */
  return PS_OK;
}

/* One XPlane: metadata maps first (they follow the lines in the bytes), then lines and events. */
static int xs_plane(Xs *p, const PbMsg *space, const PbField *pf, size_t iPlane){
  PsCapture *cap = p->cap;
  PbMsg m = pb_sub(space, pf, "XPlane");
  PbField f; int rc;
  PsPlane pl; memset(&pl, 0, sizeof(pl));
  pl.index = (uint32_t)iPlane; pl.off = pf->off; pl.len = pf->len;
  XMeta *aEv = 0, *aSt = 0; size_t nEv = 0, nEvAlloc = 0, nSt = 0, nStAlloc = 0;
  uint32_t *aNameOf = 0; size_t nNameOf = 0;
  /* pass 1: scalars, maps, plane stats */
  while( (rc = pb_next(&m, &f, p->err))==PS_OK ){
    switch( f.num ){
      case 1: if( pb_want(&f, WT_VARINT, "id", "XPlane", p->err) ) goto fail; pl.id = (int64_t)f.v; break;
      case 2: if( pb_want(&f, WT_LEN, "name", "XPlane", p->err) || xs_string(p, &f, "XPlane.name", &pl.name) ) goto fail; break;
      case 3: if( pb_want(&f, WT_LEN, "lines", "XPlane", p->err) ) goto fail; break;
      case 4: case 5: {
        int64_t key; PbField val;
        const char *zEntry = f.num==4 ? "XPlane.event_metadata entry" : "XPlane.stat_metadata entry";
        if( pb_want(&f, WT_LEN, "metadata map", "XPlane", p->err) || xs_map_entry(p, &m, &f, zEntry, &key, &val) ) goto fail;
        XMeta x; memset(&x, 0, sizeof(x));
        x.id = key; x.off = val.off; x.len = val.len;
        PbMsg vm = { m.z, val.off, val.off + val.len, f.num==4 ? "XEventMetadata" : "XStatMetadata" };
        PbField g;
        while( (rc = pb_next(&vm, &g, p->err))==PS_OK ){
          if( g.num==2 ){
            if( pb_want(&g, WT_LEN, "name", vm.zMsg, p->err)
             || xs_string(p, &g, f.num==4 ? "XEventMetadata.name" : "XStatMetadata.name", &x.name) ) goto fail;
          }
          else if( f.num==4 && g.num==4 ){ if( pb_want(&g, WT_LEN, "display_name", vm.zMsg, p->err) || xs_string(p, &g, "XEventMetadata.display_name", &x.displayName) ) goto fail; }
          else if( f.num==4 && g.num==5 ){ if( pb_want(&g, WT_LEN, "stats", vm.zMsg, p->err) || xs_check_stat(&vm, &g, p->err, &p->nStats) ) goto fail; }
        }
        if( rc!=3 ) goto fail;
        if( f.num==4 ){
          if( ps_grow((void**)&aEv, sizeof(XMeta), &nEvAlloc, nEv+1) ){ ps_nomem(p->err); goto fail; }
          aEv[nEv++] = x;
        }else{
          if( ps_grow((void**)&aSt, sizeof(XMeta), &nStAlloc, nSt+1) ){ ps_nomem(p->err); goto fail; }
          aSt[nSt++] = x;
        }
        break;
      }
      case 6: if( pb_want(&f, WT_LEN, "stats", "XPlane", p->err) || xs_check_stat(&m, &f, p->err, &p->nStats) ) goto fail; break;
    }
  }
  if( rc!=3 ) goto fail;
  if( nEv>1 ) qsort(aEv, nEv, sizeof(XMeta), xmeta_cmp);
  if( nSt>1 ) qsort(aSt, nSt, sizeof(XMeta), xmeta_cmp);
  /* writers number event metadata 1..N: a direct id -> name table then replaces the binary
  ** search per event (sparse ids keep the search) */
  if( nEv && (uint64_t)(aEv[nEv-1].id - aEv[0].id) < 2*(uint64_t)nEv + 64 && aEv[0].id >= 0 ){
    nNameOf = (size_t)(aEv[nEv-1].id - aEv[0].id) + 1;
    aNameOf = calloc(nNameOf, sizeof(uint32_t));
    if( aNameOf==0 ){ ps_nomem(p->err); goto fail; }
    for(size_t k=0; k<nEv; k++) aNameOf[aEv[k].id - aEv[0].id] = aEv[k].name;
  }
  /* pass 2: lines */
  XsRows rows; memset(&rows, 0, sizeof(rows));
  rows.p = p; rows.aEv = aEv; rows.nEv = nEv; rows.aNameOf = aNameOf; rows.nNameOf = nNameOf;
  rows.planeName = pl.name;
  PsLine ln;
  m = pb_sub(space, pf, "XPlane");
  while( (rc = pb_next(&m, &f, p->err))==PS_OK ){
    if( f.num!=3 ) continue;
    memset(&ln, 0, sizeof(ln));
    ln.plane = (uint32_t)iPlane; ln.firstRow = (uint32_t)cap->ev.n;
    /* one pass over the line: its scalars and its events in whatever order they come. Events
    ** are recorded, and decoded at the line's end (or when a batch is full) with the line's
    ** values of that moment. A full batch within the line uses the values at the first such
    ** batch (tsApplied, thApplied) for every full batch of the line; when the line's final
    ** values differ (scalars after the events), its end completes those rows. */
    PbMsg lm = pb_sub(&m, &f, "XLine");
    PbField g;
    int bHaveId = 0;
    rows.r0 = cap->ev.n;              /* rows [firstRow, rows.r0) were decoded within the line */
    int64_t tsApplied = 0;            /* with this timestamp_ns */
    int64_t thApplied = -1;           /* and this thread (-1: none known then) */
    while( (rc = pb_next(&lm, &g, p->err))==PS_OK ){
      switch( g.num ){
        case 1: if( pb_want(&g, WT_VARINT, "id", "XLine", p->err) ) goto line_fail; ln.id = (int64_t)g.v; bHaveId = 1; continue;
        case 10: if( pb_want(&g, WT_VARINT, "display_id", "XLine", p->err) ) goto line_fail; ln.displayId = (int64_t)g.v; continue;
        case 2: if( pb_want(&g, WT_LEN, "name", "XLine", p->err) || xs_string(p, &g, "XLine.name", &ln.name) ) goto line_fail; continue;
        case 11: if( pb_want(&g, WT_LEN, "display_name", "XLine", p->err) || xs_string(p, &g, "XLine.display_name", &ln.displayName) ) goto line_fail; continue;
        case 3: if( pb_want(&g, WT_VARINT, "timestamp_ns", "XLine", p->err) ) goto line_fail; ln.timestampNs = (int64_t)g.v; continue;
        case 9: if( pb_want(&g, WT_VARINT, "duration_ps", "XLine", p->err) ) goto line_fail; ln.durationPs = (int64_t)g.v; continue;
        case 4: if( pb_want(&g, WT_LEN, "events", "XLine", p->err) ) goto line_fail; break;
        default: continue;
      }
      if( g.len > UINT32_MAX ){
        if( xs_rows_decode(p, &rows, cap->ev.n)==PS_OK ) ps_err_at(p->err, (int64_t)g.off, "XEvent longer than 4 GiB");
        goto fail;
      }
      if( cap->ev.n==cap->ev.nAlloc ){
        /* grow to what the rest of the file suggests (rows per byte so far, +5%): one or two
        ** reallocations instead of many, each of which would copy every column */
        double est = (double)cap->ev.n * ((double)p->n / (double)(g.off + 1)) * 1.05 + 4096;
        if( est > (double)INT32_MAX ) est = (double)INT32_MAX;
        if( ps_events_reserve(cap, (size_t)est) ){ ps_nomem(p->err); goto fail; }
      }
      __builtin_prefetch(p->z + g.off + 4096);   /* (never faults) the walk's next pages: it waits on memory */
      size_t r = cap->ev.n++;
      cap->ev.aOff[r] = g.off;
      cap->ev.aLen[r] = (uint32_t)g.len;
      ln.nEvents++;
      if( ps_work(&cap->src, g.len + 1) ){ ps_interrupted(p->err); goto fail; }   /* by bytes */
      if( cap->ev.n - rows.r0 >= ps_xspace_batch ){
        if( rows.r0==ln.firstRow ){
          tsApplied = ln.timestampNs;
          if( bHaveId ){
            thApplied = xs_line_thread(cap, iPlane, ln.id);
            if( thApplied<0 ){ ps_nomem(p->err); goto fail; }
          }
        }
        rows.lineName = ln.name; rows.lineId = ln.id; rows.ts = tsApplied;
        rows.thread = thApplied<0 ? 0 : (uint32_t)thApplied;
        rows.track = thApplied<0 ? 0 : cap->aThread[thApplied].track;
        if( xs_rows_decode(p, &rows, cap->ev.n) ) goto fail;
      }
    }
    if( rc!=3 ) goto line_fail;
    int64_t th = xs_line_thread(cap, iPlane, ln.id);
    if( th<0 ){ ps_nomem(p->err); goto fail; }
    cap->aThread[th].processName = pl.name;
    cap->aThread[th].threadName = ln.name;
    uint32_t track = cap->aThread[th].track;
    rows.lineName = ln.name; rows.lineId = ln.id; rows.ts = ln.timestampNs;
    rows.thread = (uint32_t)th; rows.track = track;
    size_t rApplied = rows.r0;        /* (the rows decoded within the line end there) */
    if( xs_rows_decode(p, &rows, cap->ev.n) ) goto fail;
    if( rApplied > ln.firstRow && (th!=thApplied || ln.timestampNs!=tsApplied) ){
      /* scalars after the events: complete the rows decoded within the line */
      int64_t dTs;
      if( __builtin_sub_overflow(ln.timestampNs, tsApplied, &dTs) ){
        ps_err_at(p->err, (int64_t)f.off, "XLine timestamp_ns out of range");
        goto fail;
      }
      for(size_t r=ln.firstRow; r<rApplied; r++){
        if( __builtin_add_overflow(cap->ev.aTs[r], dTs, &cap->ev.aTs[r]) ){
          ps_err_at(p->err, (int64_t)cap->ev.aOff[r], "XEvent time out of range (timestamp_ns + offset_ps/1000 exceeds 2^63 ns)");
          goto fail;
        }
        cap->ev.aThread[r] = (uint32_t)th; cap->ev.aTrack[r] = track;
      }
    }
    if( ps_grow((void**)&cap->aLine, sizeof(PsLine), &cap->nLineAlloc, cap->nLine+1) ){ ps_nomem(p->err); goto fail; }
    cap->aLine[cap->nLine++] = ln;
    pl.nLines++;
  }
  if( rc!=3 ) goto fail;
  /* the plane's metadata tables move into the arena, for the lazy columns */
  pl.aEventMeta = nEv ? ps_arena_alloc(&cap->arena, nEv*sizeof(XMeta)) : 0;
  pl.aStatMeta = nSt ? ps_arena_alloc(&cap->arena, nSt*sizeof(XMeta)) : 0;
  if( (nEv && !pl.aEventMeta) || (nSt && !pl.aStatMeta) ){ ps_nomem(p->err); goto fail; }
  if( nEv ) memcpy(pl.aEventMeta, aEv, nEv*sizeof(XMeta));
  if( nSt ) memcpy(pl.aStatMeta, aSt, nSt*sizeof(XMeta));
  pl.nEventMeta = nEv; pl.nStatMeta = nSt;
  free(aEv); free(aSt); free(aNameOf);
  if( ps_grow((void**)&cap->aPlane, sizeof(PsPlane), &cap->nPlaneAlloc, cap->nPlane+1) ) return ps_nomem(p->err);
  cap->aPlane[cap->nPlane++] = pl;
  return PS_OK;
line_fail:
  /* an error in the line's own fields: an event recorded before it and not yet decoded may hold
  ** an earlier one, which a serial decode would have met first */
  if( p->err->rc!=PS_NOMEM && rows.r0 < cap->ev.n ){
    PsErr save = *p->err;
    rows.lineName = ln.name; rows.lineId = ln.id; rows.ts = ln.timestampNs; rows.thread = 0; rows.track = 0;
    if( xs_rows_decode(p, &rows, cap->ev.n)==PS_OK ) *p->err = save;
  }
fail:
  free(aEv); free(aSt); free(aNameOf);
  return p->err->rc==PS_NOMEM ? PS_NOMEM : PS_ERROR;
}

/* ------------------------------------------------------------------ stats as JSON */

static const XMeta *plane_stat_meta(const PsPlane *pl, int64_t id){
  return xmeta_find((const XMeta*)pl->aStatMeta, pl->nStatMeta, id);
}

/* Appends the stats of message [off, off+len) (fields numbered statField) to b as JSON members;
** names already in the object (earlier = the event's own) are skipped. */
static int stats_json(const PsCapture *cap, const PsPlane *pl, size_t off, size_t len, uint32_t statField,
                      PsBuf *b, int *pnMembers, uint32_t *aSeen, size_t *pnSeen, int64_t *pBadOff){
  PbMsg m = { (const uint8_t*)cap->src.z, off, off+len, "XEvent" };
  PbField f; PsErr err;
  char tmp[64];
  while( pb_next(&m, &f, &err)==PS_OK ){
    if( f.num!=statField || f.wt!=WT_LEN ) continue;
    PbMsg sm = pb_sub(&m, &f, "XStat");
    PbField g;
    int64_t metaId = 0; int kind = 0; PbField val; memset(&val, 0, sizeof(val));
    while( pb_next(&sm, &g, &err)==PS_OK ){
      if( g.num==1 ) metaId = (int64_t)g.v;
      else if( g.num>=2 && g.num<=7 ){ kind = (int)g.num; val = g; }
    }
    const XMeta *sx = plane_stat_meta(pl, metaId);
    uint32_t nameId = sx ? sx->name : 0;
    int dup = 0;
    for(size_t k=0; k<*pnSeen; k++) if( aSeen[k]==nameId && nameId ){ dup = 1; break; }
    if( dup || kind==0 ) continue;
    if( *pnSeen < 256 ) aSeen[(*pnSeen)++] = nameId;
    PsStr nm = ps_pool_get(&cap->pool, nameId);
    if( *pnMembers && ps_buf_append(b, ",", 1) ) return PS_NOMEM;
    if( !nm.z ) snprintf(tmp, sizeof(tmp), "stat_%lld", (long long)metaId);
    if( ps_json_quote(b, nm.z ? nm.z : tmp, nm.z ? nm.n : strlen(tmp), 0) || ps_buf_append(b, ":", 1) ) return PS_NOMEM;
    (*pnMembers)++;
    switch( kind ){
      case 2: {
        double d; memcpy(&d, &val.v, 8);
        if( isfinite(d) ) snprintf(tmp, sizeof(tmp), "%.17g", d); else snprintf(tmp, sizeof(tmp), "null");
        if( ps_buf_append(b, tmp, strlen(tmp)) ) return PS_NOMEM;
        break;
      }
      case 3: snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)val.v); if( ps_buf_append(b, tmp, strlen(tmp)) ) return PS_NOMEM; break;
      case 4: snprintf(tmp, sizeof(tmp), "%lld", (long long)(int64_t)val.v); if( ps_buf_append(b, tmp, strlen(tmp)) ) return PS_NOMEM; break;
      case 7: case 5: {
        const char *s; size_t sn;
        if( kind==7 ){
          const XMeta *rx = plane_stat_meta(pl, (int64_t)val.v);
          PsStr r = ps_pool_get(&cap->pool, rx ? rx->name : 0);
          s = r.z ? r.z : ""; sn = r.n;
        }else{ s = cap->src.z + val.off; sn = val.len; }
        /* the text rule applies to the string before it is written as JSON (ps_json_quote):
        ** invalid UTF-8 and NUL become U+FFFD; the first such byte is reported to the caller */
        size_t bad = (size_t)-1;
        if( ps_json_quote(b, s, sn, &bad) ) return PS_NOMEM;
        if( bad!=(size_t)-1 && pBadOff && *pBadOff<0 ) *pBadOff = (int64_t)(val.off + bad);
        break;
      }
      case 6: {
        /* bytes (often serialized protos): never raw binary in JSON */
        int k = snprintf(tmp, sizeof(tmp), "{\"bytes\":%zu,\"hex\":\"", val.len);
        if( ps_buf_append(b, tmp, (size_t)k) ) return PS_NOMEM;
        for(size_t j=0; j<val.len && j<16; j++){
          snprintf(tmp, sizeof(tmp), "%02x", (unsigned char)cap->src.z[val.off+j]);
          if( ps_buf_append(b, tmp, 2) ) return PS_NOMEM;
        }
        if( ps_buf_append(b, "\"}", 2) ) return PS_NOMEM;
        break;
      }
    }
  }
  return PS_OK;
}

/* The JSON object of a stats list: an event's stats plus its metadata's (event first).
** *pBadOff (if not NULL, set to -1 first by the caller) = the source offset of the first byte of
** a string value that the text rule replaced. */
static int stats_object(const PsCapture *cap, uint32_t iPlane, size_t off, size_t len, uint32_t statField,
                        size_t metaOff, size_t metaLen, PsOut *o, int64_t *pBadOff){
  PsBuf b = {0,0,0};
  uint32_t aSeen[256]; size_t nSeen = 0;
  int nMembers = 0;
  const PsPlane *pl = &cap->aPlane[iPlane];
  if( ps_buf_append(&b, "{", 1) ) return PS_NOMEM;
  if( stats_json(cap, pl, off, len, statField, &b, &nMembers, aSeen, &nSeen, pBadOff) ){ ps_buf_free(&b); return PS_NOMEM; }
  if( metaLen && stats_json(cap, pl, metaOff, metaLen, 5, &b, &nMembers, aSeen, &nSeen, pBadOff) ){ ps_buf_free(&b); return PS_NOMEM; }
  if( ps_buf_append(&b, "}", 1) ){ ps_buf_free(&b); return PS_NOMEM; }
  if( nMembers==0 ){ ps_buf_free(&b); return PS_OK; }
  o->type = PS_META_JSON; o->z = b.z; o->n = b.n; o->zFree = b.z;
  return PS_OK;
}

int ps_xspace_stats_json(const PsCapture *cap, uint32_t iPlane, size_t off, size_t len, uint32_t statField,
                         size_t metaOff, size_t metaLen, PsOut *o){
  return stats_object(cap, iPlane, off, len, statField, metaOff, metaLen, o, 0);
}

/* ------------------------------------------------------------------ entry points */

static int xs_parse_space(Xs *p);

static int xs_parse(PsCapture *cap, PsErr *err){
  Xs p; memset(&p, 0, sizeof(p));
  p.z = (const uint8_t*)cap->src.z; p.n = cap->src.n; p.cap = cap; p.err = err;
  err->msg[0] = 0; err->rc = PS_ERROR;
  if( ps_events_want_len(cap) ) return ps_nomem(err);
  p.aPart = malloc(PS_MAX_PARTS * sizeof(XsRows));
  if( p.aPart==0 ) return ps_nomem(err);
  int rc = xs_parse_space(&p);
  free(p.aPart);
  return rc;
}

/* The XSpace's fields: its planes (xs_plane), errors, warnings and hostnames; then the plane
** stats and the counts into profile_metadata, and the nesting. */
static int xs_parse_space(Xs *pp){
  Xs p = *pp;                         /* (xs_parse's state, its parts array included) */
  PsCapture *cap = p.cap;
  PsErr *err = p.err;
  PbMsg m = { p.z, 0, p.n, "XSpace" };
  PbField f; int rc;
  size_t iPlane = 0;
  while( (rc = pb_next(&m, &f, err))==PS_OK ){
    if( f.num==1 ){
      if( pb_want(&f, WT_LEN, "planes", "XSpace", err) ) return PS_ERROR;
      rc = xs_plane(&p, &m, &f, iPlane++);
      if( rc ) return rc;
      ps_source_done_before(&cap->src, f.off + f.len);   /* a decoded plane's pages can go */
    }else if( f.num>=2 && f.num<=4 ){
      static const char *const az[] = {"", "", "error", "warning", "hostname"};
      if( pb_want(&f, WT_LEN, az[f.num], "XSpace", err) ) return PS_ERROR;
      if( ps_meta_text(cap, "xspace", az[f.num], (const char*)p.z + f.off, f.len, PS_META_TEXT, (int64_t)f.off) ) return ps_nomem(err);
      if( f.num==4 && cap->zHost==0 ){
        const PsMeta *mh = &cap->aMeta[cap->nMeta-1];    /* the value as stored: the text rule applied */
        cap->zHost = ps_arena_strdup(&cap->arena, mh->z, mh->n);
        if( cap->zHost==0 ) return ps_nomem(err);
      }
    }
  }
  if( rc!=3 ) return rc;
  if( iPlane==0 ) return ps_err(err, "no XPlane in the XSpace");
  /* plane-level stats and stat-metadata descriptions into profile_metadata */
  for(size_t k=0; k<cap->nPlane; k++){
    PsPlane *pl = &cap->aPlane[k];
    PsStr nm = ps_pool_get(&cap->pool, pl->name);
    char scope[3*190+1];                         /* cut before a character, not inside one */
    ps_text_cstr(nm.z ? nm.z : "", nm.n, 190, scope);
    PsOut o; memset(&o, 0, sizeof(o));
    int64_t bad = -1;
    if( stats_object(cap, (uint32_t)k, pl->off, pl->len, 6, 0, 0, &o, &bad) ) return ps_nomem(err);
    if( bad>=0 && ps_text_diag(cap, bad, "XStat.str_value", cap->src.z + bad, 1, 0) ){ free(o.zFree); return ps_nomem(err); }
    if( o.zFree ){
      char *z = ps_arena_strdup(&cap->arena, o.z, o.n);
      free(o.zFree);
      if( z==0 || ps_meta_text(cap, scope, "stats", z, o.n, PS_META_JSON, (int64_t)pl->off) ) return ps_nomem(err);
    }
    if( ps_meta_int(cap, scope, "plane_index", (int64_t)k, (int64_t)pl->off)
     || ps_meta_int(cap, scope, "lines", (int64_t)pl->nLines, -1)
     || ps_meta_int(cap, scope, "event_metadata", (int64_t)pl->nEventMeta, -1)
     || ps_meta_int(cap, scope, "stat_metadata", (int64_t)pl->nStatMeta, -1) ) return ps_nomem(err);
  }
  if( ps_meta_int(cap, "capture", "planes", (int64_t)cap->nPlane, -1)
   || ps_meta_int(cap, "capture", "lines", (int64_t)cap->nLine, -1)
   || ps_meta_int(cap, "capture", "events", (int64_t)cap->ev.n, -1)
   || ps_meta_int(cap, "capture", "stats", (int64_t)p.nStats, -1) ) return ps_nomem(err);
  return ps_capture_nest(cap, err);
}

/* An XSpace when its schema explains the start of the bytes better than any xprof result
** message's (ps_protobuf_fit: a Trace or a KernelStatsDb also starts with field 1). A
** damaged first length still counts when a plane name ("/host:", "/device:") follows, so that
** the parser can say where the damage is instead of "not a supported capture". */
static int xs_probe(const char *zc, size_t n){
  const uint8_t *z = (const uint8_t*)zc;
  int s;
  const PbMsgDef *p = ps_protobuf_fit(zc, n, &s);
  if( p==&pb_XSpace ) return s>=3 ? 4 : 2;
  if( p ) return 0;
  if( n<4 || z[0]!=0x0a ) return 0;
  size_t i = 1; uint64_t len = 0;
  if( pb_varint(z, n, &i, &len, "XSpace", 0) || len==0 ) return 0;
  if( len > n - i ){
    size_t lim = n < 256 ? n : 256;
    for(size_t k=i; k+6<=lim; k++){
      if( memcmp(z+k, "/host:", 6)==0 || (k+8<=lim && memcmp(z+k, "/device:", 8)==0) ) return 4;
    }
  }
  return 0;
}

static int xs_column(const PsCapture *cap, size_t row, int iCol, PsOut *o){
  const PsEvents *e = &cap->ev;
  memset(o, 0, sizeof(o[0]));
  PsThread *th = &cap->aThread[e->aThread[row]];
  uint32_t iPlane = (uint32_t)th->pid.i;
  const PsPlane *pl = &cap->aPlane[iPlane];
  size_t off = (size_t)e->aOff[row], end = off + e->aLen[row];
  PbMsg m = { (const uint8_t*)cap->src.z, off, end, "XEvent" };
  PbField f; PsErr err;
  int64_t metaId = 0, offPs = 0, durPs = 0, nOcc = 0; int hasOcc = 0, hasOff = 0;
  while( pb_next(&m, &f, &err)==PS_OK ){
    if( f.num==1 ) metaId = (int64_t)f.v;
    else if( f.num==2 ){ offPs = (int64_t)f.v; hasOff = 1; }
    else if( f.num==3 ) durPs = (int64_t)f.v;
    else if( f.num==5 ){ nOcc = (int64_t)f.v; hasOcc = 1; }
  }
  const XMeta *xm = xmeta_find((const XMeta*)pl->aEventMeta, pl->nEventMeta, metaId);
  switch( iCol ){
    case PS_COL_ARGS:
      return ps_xspace_stats_json(cap, iPlane, off, end-off, 4, xm ? xm->off : 0, xm ? xm->len : 0, o);
    case PS_COL_DISPLAY_NAME: {
      PsStr s = ps_pool_get(&cap->pool, xm ? xm->displayName : 0);
      if( s.z ){ o->type = PS_META_TEXT; o->z = s.z; o->n = s.n; }
      return PS_OK;
    }
    case PS_COL_OFFSET_PS: if( hasOff || !hasOcc ){ o->type = PS_META_INT; o->i = offPs; } return PS_OK;
    case PS_COL_DURATION_PS: o->type = PS_META_INT; o->i = durPs; return PS_OK;
    case PS_COL_NUM_OCC: if( hasOcc ){ o->type = PS_META_INT; o->i = nOcc; } return PS_OK;
  }
  return PS_OK;
}

const PsFormat ps_format_xspace = { "xspace", xs_probe, xs_parse, xs_column, 0 };
