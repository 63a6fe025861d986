/*
** fuzz_common.h — what the parser targets share (fuzz_format.c, fuzz_gzip.c): after a load,
** every accepted capture is read back through every lazy column, the parent links, every job
** column, the children index, the name/cat order and the flame graph, so those paths see hostile
** bytes too. Header-only: each target is one translation unit built straight from ext/.
*/
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include "../../ext/formats/formats.h"
#include "../../ext/formats/jobs.h"
#include "../../ext/writers/flame.h"
#include "../../ext/wire/json.h"
#include <stdlib.h>
#include <string.h>

/* A lazy column that says it is JSON must be one whole JSON value: anything else is a bug. */
static void fuzz_check_json(const PsOut *o){
  if( o->type!=PS_META_JSON ) return;
  size_t i = 0; PsErr e;
  if( ps_json_skip(o->z, o->n, &i, &e) || ps_json_ws(o->z, o->n, i)!=o->n ) abort();
}

/* Reads the capture back as a query would, then frees it. cap may be NULL (a load that failed).
** seed picks one of the flame graph's three groupings. */
static void fuzz_read_back(PsCapture *cap, size_t seed){
  if( cap==0 ) return;
  for(size_t r=0; r<cap->ev.n && cap->pFormat->xColumn; r++){
    for(int c=PS_COL_ARGS; c<=PS_COL_NUM_OCC; c++){
      PsOut o;
      if( cap->pFormat->xColumn(cap, r, c, &o)==PS_OK ){ fuzz_check_json(&o); free(o.zFree); }
    }
    (void)ps_capture_link(cap, (int32_t)r);
  }
  for(size_t r=0; r<cap->nRec; r++){
    PsOut o; memset(&o, 0, sizeof(o));
    if( cap->pFormat->xRecordColumn && cap->pFormat->xRecordColumn(cap, r, PS_COL_ATTRS, &o)==PS_OK ){
      fuzz_check_json(&o); free(o.zFree);
    }
    if( o.type==0 && cap->aRec[r].zAttrs ){
      /* a stack frame's attrs (ext/model/stacks.h), as profile_records returns them */
      o.type = PS_META_JSON; o.z = cap->aRec[r].zAttrs; o.n = cap->aRec[r].nAttrs; o.zFree = 0;
      fuzz_check_json(&o);
    }
    /* a record's parent is a record (or none), never itself */
    int32_t p = cap->aRec[r].parent;
    if( p>=(int32_t)cap->nRec || p==(int32_t)r ) abort();
  }
  /* a row's stack is a record (or none) */
  for(size_t r=0; r<cap->ev.n && cap->ev.aStack; r++){
    if( cap->ev.aStack[r]>=(int32_t)cap->nRec ) abort();
  }
  for(size_t r=0; r<cap->nJob; r++){
    for(int c=0; c<PS_JOB_NCOL; c++){
      PsOut o;
      if( ps_job_column(cap, r, c, &o)==PS_OK ) free(o.zFree);
    }
  }
  ps_capture_children(cap);
  ps_capture_order_by_str(cap, 0);
  ps_capture_order_by_str(cap, 1);
  {
    /* the flame graph over the hostile tree, in one of its three groupings */
    PsBuf svg; memset(&svg, 0, sizeof(svg));
    PsErr e2;
    (void)ps_flame_svg(cap, (int)(seed % 3), "fuzz", &svg, 0, &e2);
    ps_buf_free(&svg);
  }
  ps_capture_free(cap);
}

/* Loads the bytes in src (ownership moves, as for ps_capture_load) as pFormat (NULL: detected,
** as a real load does) and reads the capture back. */
static void fuzz_load_and_read(PsSource *src, const PsFormat *pFormat, size_t seed){
  PsErr err; int bUnsup;
  fuzz_read_back(ps_capture_load(src, pFormat, &err, &bUnsup), seed);
}

#endif
