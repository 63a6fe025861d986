/*
** lms.c — parser for the lms framework's profiler CSV (lms-org/lms FileProfiler, written with
** `--profiling FILE`, 2015-11 to 2016-10), read into event rows like a Chrome trace.
**
** Format (shared/corpus/README.md, "Facts: lms profiler CSV"):
**   2,<id>,<label>     a label for id (ids 0, 1, 2, ... in order of first use)
**   0,<id>,<diff_us>   BEGIN of id
**   1,<id>,<diff_us>   END of id
** diff_us is the microseconds since the previous 0/1 line; time starts at 0 and is the running
** sum of diff_us over the 0/1 lines. Labels are written unescaped: everything after the second
** comma is the label, commas included. The older variant (2015-10-31 to 2015-11-01) writes
** <type>,<diff_us>,<label> with no mapping lines; it is recognised by its first line not being a
** mapping line, and BEGIN/END pair up by label.
**
** Rows: one per BEGIN, ph 'X', name = the label, ts = the BEGIN time and dur = END − BEGIN in
** integer ns (µs × 1000); an END closes the most recent open BEGIN of the same id (multi-threaded
** runs interleave ids, and an id may begin again before it ends). Rows are numbered in order of
** their BEGIN and nest by time (depth, parent_id) on one track; pid and tid are NULL.
** Diagnostics (profile_metadata, each naming its line): an END without an open BEGIN
** ('unmatched_end'), a BEGIN never ended ('unclosed_begin', the row keeps dur NULL), a marker for
** an id without a label ('unknown_id', name NULL), a line of another shape, an id above
** 2^24 or a diff_us that takes the running time past ±146 years ('unparsed_line'; such a diff
** is not added to the time).
** Whatever the diagnostic, the rest of the file is still read.
*/
#include "formats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Ids are 0, 1, 2, ... in order of first use (one per label); beyond this an id is damage. */
#define LMS_MAX_ID (1<<24)
/* The running time's bound, µs: INT64_MAX/2000, so ts in ns and END − BEGIN (ns) both fit. */
#define LMS_MAX_US (INT64_MAX/2000)

typedef struct Lms {
  PsCapture *cap;
  int32_t *aTop;       /* per id (or label id in the old variant): the innermost open row + 1 */
  size_t nTop;
  int32_t *aPrev;      /* per row: the open row of the same id below it + 1 */
  size_t nPrevAlloc;
  uint32_t *aLabel;    /* per id: pool id of its label (new variant) */
  size_t nLabel;
  uint32_t *aRowLine;  /* per row: line of its BEGIN (for the unclosed diagnostic) */
  size_t nRowLineAlloc;
} Lms;

static int lms_digits(const char *z, size_t n, size_t *pi, int64_t *pv){
  size_t i = *pi;
  int neg = 0;
  uint64_t v = 0;
  if( i<n && z[i]=='-' ){ neg = 1; i++; }
  if( i>=n || z[i]<'0' || z[i]>'9' ) return -1;
  while( i<n && z[i]>='0' && z[i]<='9' ){
    if( v > (uint64_t)(INT64_MAX/1000 - 9)/10 ) return -1;   /* µs must still fit as ns */
    v = v*10 + (uint64_t)(z[i]-'0');
    i++;
  }
  *pi = i; *pv = neg ? -(int64_t)v : (int64_t)v;
  return 0;
}

/* Grows a uint32/int32 array indexed by id so that a[id] exists (new slots zeroed). */
static int lms_slot(void **pa, size_t *pn, size_t id, size_t sz){
  if( id < *pn ) return 0;
  size_t n = *pn ? *pn : 64;
  while( n <= id ) n *= 2;
  void *p = realloc(*pa, n*sz);
  if( p==0 ) return -1;
  memset((char*)p + *pn*sz, 0, (n - *pn)*sz);
  *pa = p; *pn = n;
  return 0;
}

static int lms_parse(PsCapture *cap, PsErr *err){
  const char *z = cap->src.z;
  size_t n = cap->src.n, i = 0;
  Lms L;
  memset(&L, 0, sizeof(L));
  L.cap = cap;
  int rc = PS_OK;
  int64_t tUs = 0;                   /* running time, µs */
  uint32_t line = 0;
  size_t nMarkers = 0;
  PsValue none; memset(&none, 0, sizeof(none));
  int64_t thread = ps_thread_get(cap, &none, &none);
  if( thread<0 ) return ps_nomem(err);
  uint32_t track = cap->aThread[thread].track;
  /* the variant: the new one starts with a mapping line */
  int bOld = !(n>=2 && z[0]=='2' && z[1]==',');
  if( ps_events_reserve(cap, n/24 + 16) ) return ps_nomem(err);
  size_t a, b;
  while( rc==PS_OK && ps_next_line(z, n, &i, &a, &b) ){
    line++;
    if( (line & 0xFFFF)==0 ) ps_source_done_before(&cap->src, a);
    if( ps_work(&cap->src, b - a + 1) ){ rc = ps_interrupted(err); break; }   /* by bytes read */
    if( b==a ) continue;
    size_t j = a;
    int64_t type, v2 = 0, dUs = 0;
    const char *zLabel = 0; size_t nLabel = 0;
    int bad = lms_digits(z, b, &j, &type) || j>=b || z[j]!=',' || type<0 || type>2;
    if( !bad ){
      j++;
      if( bOld ){
        /* <type>,<diff_us>,<label> */
        bad = type==2 || lms_digits(z, b, &j, &dUs) || j>=b || z[j]!=',';
        if( !bad ){ zLabel = z+j+1; nLabel = b-j-1; }
      }else{
        bad = lms_digits(z, b, &j, &v2) || j>=b || z[j]!=',' || v2<0;
        if( !bad && type!=2 ){
          size_t k = j+1;
          bad = lms_digits(z, b, &k, &dUs) || k!=b;
          if( !bad ){ zLabel = 0; nLabel = 0; }
        }else if( !bad ){ zLabel = z+j+1; nLabel = b-j-1; }
      }
    }
    if( bad ){
      rc = ps_diag(cap, PS_DIAG_UNPARSED, (int64_t)a, "line %u: expected '0|1|2,<int>,<...>': %.*s",
                   line, (int)(b-a > 60 ? 60 : b-a), z+a);
      continue;
    }
    if( type!=2 ){
      /* the running time stays within ±LMS_MAX_US, so ts and END − BEGIN fit in int64 ns */
      if( dUs > LMS_MAX_US - tUs || dUs < -LMS_MAX_US - tUs ){
        rc = ps_diag(cap, PS_DIAG_UNPARSED, (int64_t)a, "line %u: diff_us %lld takes the running time "
                     "(%lld us) outside +/-%lld us (146 years); the line is skipped",
                     line, (long long)dUs, (long long)tUs, (long long)LMS_MAX_US);
        continue;
      }
      tUs += dUs;
    }
    if( !bOld && v2 > LMS_MAX_ID ){
      /* ids count labels from 0: a huge one is damage, and must not size the per-id tables */
      rc = ps_diag(cap, PS_DIAG_UNPARSED, (int64_t)a, "line %u: id %lld is out of range (at most %d)",
                   line, (long long)v2, LMS_MAX_ID);
      continue;
    }
    if( !bOld && type==2 ){
      uint32_t id;
      if( ps_intern(cap, zLabel, nLabel, (int64_t)(zLabel - z), "a label", &id)
       || lms_slot((void**)&L.aLabel, &L.nLabel, (size_t)v2, sizeof(uint32_t)) ){ rc = PS_NOMEM; break; }
      L.aLabel[v2] = id;
      continue;
    }
    nMarkers++;
    /* the marker's key: the id (new variant) or the label's pool id (old variant) */
    size_t key; uint32_t name;
    if( bOld ){
      if( ps_intern(cap, zLabel, nLabel, (int64_t)(zLabel - z), "a label", &name) ){ rc = PS_NOMEM; break; }
      key = name;
    }else{
      key = (size_t)v2;
      name = key < L.nLabel ? L.aLabel[key] : 0;
      if( name==0 ){
        rc = ps_diag(cap, PS_DIAG_UNKNOWN_ID, (int64_t)a, "line %u: id %zu has no '2,%zu,<label>' line before it; name is NULL",
                     line, key, key);
        if( rc ) break;
      }
    }
    if( lms_slot((void**)&L.aTop, &L.nTop, key, sizeof(int32_t)) ){ rc = PS_NOMEM; break; }
    if( type==0 ){
      int64_t r = ps_events_add(cap);
      if( r<0 ){ rc = PS_NOMEM; break; }
      PsEvents *ev = &cap->ev;
      ev->aTs[r] = tUs*1000; ev->aOff[r] = a; ev->aName[r] = name; ev->aThread[r] = (uint32_t)thread;
      ev->aTrack[r] = track; ev->aPh[r] = 'X'; ev->aFlags[r] = PS_EV_SLICE;
      if( ps_grow((void**)&L.aPrev, sizeof(int32_t), &L.nPrevAlloc, (size_t)r+1)
       || ps_grow((void**)&L.aRowLine, sizeof(uint32_t), &L.nRowLineAlloc, (size_t)r+1) ){ rc = PS_NOMEM; break; }
      L.aPrev[r] = L.aTop[key]; L.aRowLine[r] = line;
      L.aTop[key] = (int32_t)r + 1;
    }else{
      int32_t top = L.aTop[key];
      if( top==0 ){
        PsStr s = ps_pool_get(&cap->pool, name);
        rc = ps_diag(cap, PS_DIAG_UNMATCHED_END, (int64_t)a, "line %u: END of '%.*s' without an open BEGIN",
                     line, (int)(s.n>80?80:s.n), s.z ? s.z : "");
        continue;
      }
      int32_t r = top-1;
      cap->ev.aDur[r] = tUs*1000 - cap->ev.aTs[r];
      L.aTop[key] = L.aPrev[r];
    }
  }
  if( rc==PS_OK ){
    for(size_t r=0; r<cap->ev.n && rc==PS_OK; r++){
      if( cap->ev.aDur[r]!=PS_NULL64 ) continue;
      PsStr s = ps_pool_get(&cap->pool, cap->ev.aName[r]);
      rc = ps_diag(cap, PS_DIAG_UNCLOSED, (int64_t)cap->ev.aOff[r], "line %u: BEGIN of '%.*s' is never ended; dur is NULL",
                   L.aRowLine[r], (int)(s.n>80?80:s.n), s.z ? s.z : "");
    }
  }
  if( rc==PS_OK && nMarkers==0 ) rc = ps_err(err, "no BEGIN/END marker lines found");
  if( rc==PS_OK ) rc = ps_meta_text(cap, "capture", "variant", bOld ? "type,diff_us,label" : "type,id,diff_us",
                                    bOld ? 18 : 15, PS_META_TEXT, -1);
  if( rc==PS_OK ) rc = ps_meta_int(cap, "capture", "markers", (int64_t)nMarkers, -1);
  if( rc==PS_OK ) rc = ps_meta_int(cap, "capture", "events", (int64_t)cap->ev.n, -1);
  if( rc==PS_OK ) rc = ps_meta_int(cap, "capture", "duration_ns", tUs*1000, -1);
  if( rc==PS_OK ) rc = ps_capture_nest(cap, err);
  free(L.aTop); free(L.aPrev); free(L.aLabel); free(L.aRowLine);
  if( rc==PS_NOMEM ) ps_nomem(err);
  return rc;
}

/* An lms CSV: the first line and at least 3 in 4 of the first (up to 64) lines are
** 0|1|2,<int>,<...> (a stray bad line further down is a diagnostic, not another format). */
static int lms_probe(const char *z, size_t n){
  size_t i = 0, nLine = 0, nGood = 0, a, b;
  while( nLine<64 && ps_next_line(z, n, &i, &a, &b) ){
    if( b>a ){
      size_t j = a+2; int64_t v;
      int good = b-a>=4 && (z[a]=='0' || z[a]=='1' || z[a]=='2') && z[a+1]==','
              && lms_digits(z, b, &j, &v)==0 && j<b && z[j]==',';
      if( nLine==0 && !good ) return 0;
      nLine++; nGood += good;
    }
  }
  return (nLine>0 && nGood*4 >= nLine*3) ? 3 : 0;
}


const PsFormat ps_format_lms = { "lms", lms_probe, lms_parse, 0, 0 };   /* no lazy columns */
