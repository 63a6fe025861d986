/*
** pprof.c — pprof profiles: the perftools.profiles.Profile protobuf of github.com/google/pprof
** (proto/profile.proto), as Go's runtime/pprof and net/http/pprof, `pprof -proto`, Google's
** perf_data_converter (perf.data -> pprof) and many language profilers write it. On disk the
** message is gzip-compressed; the source layer inflates it, so this reader sees the message.
**
**   SELECT name, count, time_ns / 1e6 AS ms FROM profile_records('cpu.pprof')
**    ORDER BY time_ns DESC LIMIT 10;
**   SELECT json_extract(args, '$."alloc_space/bytes"') FROM profile_events('heap.pb.gz');
**
** The message (field numbers from profile.proto; pprof's profile/encode.go writes sample_type,
** sample, mapping, location, function, string_table, then the scalars, Go 1.10's runtime wrote
** time_nanos first — the corpus file; any order is read, samples after the tables they use)
**   Profile    sample_type[] (ValueType {type, unit}: one per Sample.value column), sample[],
**              mapping[], location[], function[], string_table[] (every text of the file; the
**              other fields hold indexes into it; [0] must be ''), drop_frames, keep_frames,
**              time_nanos (start, ns since the epoch), duration_nanos, period_type, period,
**              comment[], default_sample_type, doc_url (15, as pprof's encode.go reads it)
**   Sample     location_id[] (leaf FIRST), value[] (one per sample_type), label[]
**              (Label {key, str | num, num_unit}); Go writes location_id and value packed when
**              a sample has more than two, unpacked otherwise: every repeated scalar of the file
**              is read in both encodings (and in a mix of them)
**   Location   id, mapping_id, address, line[] (Line {function_id, line, column}: several when
**              functions were inlined, the innermost callee FIRST and the caller into which it
**              was inlined last), is_folded
**   Function   id, name, system_name, filename, start_line
**   Mapping    id, memory_start, memory_limit, file_offset, filename, build_id, has_* flags
** Facts from the corpus (../shared/corpus/README.md section 8, speedscope-pprof-simple.prof, a
** Go 1.10 CPU profile): sample_type [samples/count, cpu/nanoseconds], period_type
** cpu/nanoseconds, every location with exactly one line and no mapping.
**
** profile_records: the call tree, built root first with a PsStackTrie (ext/model/stacks.h)
**   Each sample's stack is its location_id list reversed (root first); a location stands for
**   its lines in reverse (the caller first, the innermost inlined callee last), so a location
**   with lines [L0, L1] is the path ... -> L1's function -> L0's function. A location without
**   lines is one frame named by its address ('0x4a3b2c').
**   Frame key = (name, category): one function under one parent is one node whatever the
**   line or location it was reached through, as pprof's flame graph merges by function (two
**   Functions of the same name and filename are one frame; so are two lines of one location
**   that name the same frame).
**   name       Function.name; when that is '' (or not in string_table), its system_name; when
**              that is too, or the line has no function, the location's address '0x...'
**   category   Function.filename; when '' or the frame has no function, the location's
**              Mapping.filename; else NULL
**   count      Σ weight of the samples whose leaf is the node; time_ns / self_ns: Σ dur
**              (ext/model/stacks.h: inclusive / self), NULL when no sample has a dur
**   attrs      of the location through which the node was first reached:
**              {"function": name, "system_name", "filename", "start_line", "line", "column",
**               "inlined": true (a line other than its location's last), "address": "0x..",
**               "location_id", "is_folded": true, "mapping": {"id", "filename", "build_id"}}
**              with the .proto's names; each member only when present (non-zero, non-empty;
**              "function" whenever the frame has a Function; a string index outside
**              string_table gives null)
**   line       NULL (a binary format); record_id = 1-based order of first appearance
** profile_events: one row per Sample, in file order
**   ph 'P'; byte_offset = the Sample message's first byte
**   ts         the label timestamp_ns when the sample has one (perf_data_converter's: ns since
**              boot, as written), else the profile's time_nanos — pprof samples have no time of
**              their own, so every sample carries the profile's START; NULL without either
**   dur        the value of the time column converted to ns: the sample_type whose type is
**              default_sample_type's, else period_type's, if its unit is a time (nanoseconds,
**              microseconds, milliseconds, seconds, or ns / us / ms / s; singular too); else
**              the first sample_type with a time unit; NULL when the profile has none
**   weight     (records' count) the value of the first sample_type whose unit is 'count'
**              ('samples/count', heap 'alloc_objects/count'), else 1
**   name       the leaf frame's name; cat = the time column's "type/unit" ('cpu/nanoseconds'),
**              else the default_sample_type column's, else the last sample_type's (pprof's
**              default); stack_id = the leaf node's record_id (NULL for an empty stack)
**   pid, tid   labels 'pid' and 'tid' (else 'thread') when the sample has them (perf_data_
**              converter's numeric labels; a str label gives TEXT), else NULL; process_name /
**              thread_name from labels 'comm' / 'thread_comm'
**   args       built on demand from the Sample's bytes: {"<type>/<unit>": value, ... for each
**              value in sample_type order (a value beyond sample_type: "#<index>"; a type/unit
**              given twice: "#<index>" appended), "labels": {key: str or num, ...},
**              "num_unit": {key: unit, ...}} (labels / num_unit only when present; a label
**              without str is a number, 0 when num is absent too; a key given more than once
**              holds an array of its values in file order, and its num_unit an array too; a key
**              outside string_table is written "#<index>"). The string table is kept for it in the
**              capture arena (PsCapture.pFmtData)
** profile_metadata: scope 'pprof', each field present in the file (byte_offset = its field):
**   sample_type (one row per entry, "type/unit"), period_type ("type/unit"), period,
**   time_nanos, duration_nanos, drop_frames, keep_frames, comment (one row each),
**   default_sample_type, doc_url (TEXT from string_table), mapping (one JSON row per Mapping,
**   every field with the strings resolved); our choice of columns: dur_sample_type,
**   weight_sample_type; counts: samples, locations, functions, mappings, strings; '#<n>' for a
**   top-level field the schema does not know (its value, or its length for bytes).
**
** Errors (PS_ERROR, "byte N: ..."): the top-level message is damaged (a truncated varint, a
** length past the end, a group wire type) — nothing after it can be trusted, and pprof's own
** reader rejects such a file too; a file read as pprof by request whose top level holds no
** Profile field. Diagnostics, the rest read (profile_metadata scope 'diagnostic'):
**   other         damage inside a sub-message (what was read before it is kept), a known field
**                 with the wrong wire type (skipped), string_table[0] not '' (index 0 reads as
**                 ''), a string index outside string_table (reads as NULL), a sample whose
**                 value count differs from sample_type's, a negative or out-of-range time or
**                 count value (dur NULL / weight 0), time_nanos given twice (two concatenated
**                 profiles; the last is used)
**   unknown_id    a location_id with no Location (the frame is left out of the stack), a
**                 function_id with no Function / a mapping_id with no Mapping (read as none)
**   duplicate_id  a Location / Function / Mapping id used again: the last one is used, as
**                 pprof's reader (encode.go postDecode) does
**   invalid_text  a string that is not UTF-8 (stored repaired)
**
** Detection: a protobuf has no magic; ps_protobuf_fit (ext/formats/schemas.c) scores every known
** schema with pb_fit, and this format claims the bytes when Profile explains them best.
** Work: two walks of the top level (tables, then samples), ids mapped with a direct array for
** small ids and a keyed hash for the others; no allocation per sample. A sample walks the trie
** only from where its stack parts from the previous sample's, and a stack written before (the
** same location_id bytes) takes its leaf from a cache that points into the file's bytes (no
** copy of the ids: a profile of 400k distinct deep stacks held 88 MB of them). Polls for
** interrupt by work done (ps_work: the bytes read and the frames walked), not by samples.
** Parser only: nothing here includes SQLite.
*/
#include "formats.h"
#include "../wire/json.h"
#include "../wire/pb.h"
#include "schemas.h"
#include "../model/stacks.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ schema */
/* The fields of the messages read here (schemas.c holds perftools.profiles.Profile), for the
** field names of the errors and metadata keys: Profile, and through it Sample's Label, Mapping,
** Location and Location's Line. */
#define PP_F_PROFILE  (pb_pprof_Profile.aField)
#define PP_F_LABEL    (PP_F_PROFILE[1].pSub->aField[2].pSub->aField)   /* Profile.sample -> Sample.label */
#define PP_F_MAPPING  (PP_F_PROFILE[2].pSub->aField)                   /* Profile.mapping */
#define PP_F_LOCATION (PP_F_PROFILE[3].pSub->aField)                   /* Profile.location */
#define PP_F_LINE     (PP_F_LOCATION[3].pSub->aField)                  /* Location.line */

/* ------------------------------------------------------------------ parse state */

typedef struct PpStr { uint64_t off, n; } PpStr;            /* a string_table entry */
/* A ValueType, and once resolved (pp_type_resolve) its strings and "type/unit" text */
typedef struct PpType {
  int64_t type, unit; uint64_t off;
  uint32_t idType, idUnit, idText;  /* pool ids (type / unit 0: outside string_table) */
  const char *zText; size_t nText;  /* "type/unit" in the arena */
} PpType;

/* Functions, mappings and locations start with (id, off) so that one id map serves all three. */
typedef struct PpFunc {
  uint64_t id, off;
  int64_t name, sysName, file, startLine;
  uint32_t idName, idFile;          /* pool ids: the frame's name and category (0: none) */
} PpFunc;
typedef struct PpMapping {
  uint64_t id, off;
  uint64_t start, limit, fileOffset;
  int64_t file, buildId;
  uint8_t aFlag[4];                 /* has_functions, has_filenames, has_line_numbers, has_inline_frames */
  uint32_t idFile;
} PpMapping;
typedef struct PpLine { uint64_t fnId; int64_t line, column; uint64_t off; } PpLine;
typedef struct PpLoc {
  uint64_t id, off;
  uint64_t mapId, addr;
  size_t iLine, nLine;              /* its lines: aLine[iLine .. iLine+nLine) */
  size_t iFrame, nFrame;            /* its frames, root first: aFrame[iFrame .. iFrame+nFrame) */
  uint8_t bFolded;
} PpLoc;
/* One frame of a location, ready for the trie. */
typedef struct PpFrame {
  uint64_t key;
  uint32_t name, cat;
  int64_t fn, map;                  /* indexes or -1 */
  size_t loc;
  int64_t line;                     /* index into aLine or -1 */
} PpFrame;

/* id -> index: ids below nDense in a direct array, the others in an open-addressing hash whose
** slots come from the keyed ps_hash_u64 (issue 32: with (id * G >> 17), 160k chosen location ids
** took 20 s); every slot examined counts in ps_nProbe. */
typedef struct PpIds {
  uint32_t *aDense; uint64_t nDense;   /* index + 1, 0 = none */
  uint64_t *aKey; uint32_t *aVal; size_t nHash;
} PpIds;

/* A value and the byte it is at (a comment's string index). */
typedef struct PpRef { uint64_t id, at; } PpRef;

/* Roles of label keys (by string index) */
#define PP_ROLE_PID    1
#define PP_ROLE_TID    2
#define PP_ROLE_THREAD 3
#define PP_ROLE_TS     4
#define PP_ROLE_COMM   5
#define PP_ROLE_TCOMM  6

/* What the lazy args column needs, in the capture arena (PsCapture.pFmtData). */
typedef struct PpArgs {
  const PpStr *aStr; size_t nStr;
  const char *const *azKey;         /* per sample type: its args key as a JSON string literal */
  size_t nType;
} PpArgs;

/* A stack seen before: the bytes of its Sample's location_id fields z[off, off+len) (one packed
** field, or unpacked ones back to back), their keyed hash h and the leaf row; len 0: empty. */
typedef struct PpStackEnt { uint64_t h, off; uint32_t len; int32_t leaf; } PpStackEnt;
#define PP_SC_MAX (1u << 20)          /* stacks the cache holds at most (a 48 MiB table) */

typedef struct Pp {
  PsCapture *cap;
  PsErr *err;
  const uint8_t *z;
  size_t n;
  PpStr *aStr; size_t nStr, nStrAlloc;
  uint32_t *aStrId;                 /* pool id of string k once interned, else 0 */
  uint8_t *aRole;                   /* PP_ROLE_* of string k as a label key */
  uint32_t idEmpty;                 /* pool id of '' */
  PpType *aType; size_t nType, nTypeAlloc;
  PpFunc *aFunc; size_t nFunc, nFuncAlloc;
  PpMapping *aMap; size_t nMap, nMapAlloc;
  PpLoc *aLoc; size_t nLoc, nLocAlloc;
  PpLine *aLine; size_t nLine, nLineAlloc;
  PpFrame *aFrame; size_t nFrame, nFrameAlloc;
  PpIds fnIds, mapIds, locIds;
  uint64_t *aRefId; uint64_t *aRefAt; size_t nRef, nRefAlloc, nRefAtAlloc;   /* the sample's location_ids
                                    ** (back to back: their keyed hash is one ps_hash) and bytes */
  /* stacks seen before: a sample's location_id bytes -> its leaf row, so a profile that repeats
  ** few stacks over many samples walks the trie once per distinct stack (only stacks whose
  ** every location exists are kept, so each sample's diagnostics stay its own). The entries
  ** point into the file's bytes: a profile of distinct stacks costs 48 bytes a sample, not a
  ** copy of every id */
  PpStackEnt *aSC; size_t nSC, nSCUsed;            /* open addressing, nSC a power of two */
  /* the previous sample's stack, root first, while its locations exist: location_id and the
  ** row its frames end at; a sample walks the trie only from where it parts from it */
  uint64_t *aPrevId; int32_t *aPrevRow; size_t nPrev, nPrevIdAlloc, nPrevRowAlloc;
  PbField aScalar[16];              /* the last varint of fields 7..15 (num 0: absent) */
  PpType periodType; int bPeriodType;
  PpRef *aComment; size_t nComment, nCommentAlloc;   /* comment[]: (string index, byte) */
  PbField *aUnknown; size_t nUnknown, nUnknownAlloc;
  size_t nSample;
  int64_t iDur, iWeight, iCat;      /* sample type columns, -1 for none */
  int64_t durMul;                   /* ns per unit of the dur column */
  uint32_t idCat;
  uint32_t idDef;                   /* default_sample_type's string, 0 when absent */
  PsBuf buf;                        /* scratch for attrs */
  PsStackTrie trie;
  int64_t thLast; PsValue pidLast, tidLast;
} Pp;

/* ------------------------------------------------------------------ helpers */

static int pp_nomem(Pp *p){ return ps_nomem(p->err); }

/* A diagnostic "byte N: <message>" about byte off. PS_OK or PS_NOMEM. */
static int pp_diag(Pp *p, int kind, uint64_t off, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 4, 5)))
#endif
  ;
static int pp_diag(Pp *p, int kind, uint64_t off, const char *fmt, ...){
  char t[400];
  va_list ap; va_start(ap, fmt);
  vsnprintf(t, sizeof(t), fmt, ap);
  va_end(ap);
  if( ps_diag(p->cap, kind, (int64_t)off, "byte %llu: %s", (unsigned long long)off, t) ) return pp_nomem(p);
  return PS_OK;
}

/* A known field read with the wrong wire type: skipped, with a diagnostic. 1 when f has wt. */
static int pp_wt(Pp *p, const PbField *f, int wt, const char *zMsg, const char *zField, int *pRc){
  if( f->wt==wt ) return 1;
  *pRc = pp_diag(p, PS_DIAG_OTHER, f->at, "%s.%s has wire type %d, expected %d; skipped", zMsg, zField, f->wt, wt);
  return 0;
}

/* The end of the walk of a sub-message: rc 3 is its end; an error is damage inside it, which
** its length keeps from the rest of the file: a diagnostic, and what was read before is kept. */
static int pp_sub_end(Pp *p, int rc, const PsErr *e, const char *zMsg){
  if( rc==3 ) return PS_OK;
  const char *m = e->msg;
  if( strncmp(m, "byte ", 5)==0 && (m = strstr(m, ": "))!=0 ) m += 2; else m = e->msg;
  return pp_diag(p, PS_DIAG_OTHER, e->off>=0 ? (uint64_t)e->off : 0, "%s; the rest of this %s is not read", m, zMsg);
}

/* Repeated scalars come one varint per field or packed in one length-delimited field. */
typedef struct PpRun { const uint8_t *z; size_t i, end; uint64_t v; int state; } PpRun;
static void pp_run_init(PpRun *r, const uint8_t *z, const PbField *f){
  r->z = z;
  if( f->wt==WT_VARINT ){ r->state = 1; r->v = f->v; r->i = f->at; }
  else{ r->state = 2; r->i = f->off; r->end = f->off + f->len; }
}
/* 1: *pv (at byte *pAt), 0: the end, -1: a damaged packed run (*pAt: where). */
static int pp_run_next(PpRun *r, uint64_t *pv, uint64_t *pAt){
  if( r->state==1 ){ r->state = 0; *pv = r->v; *pAt = r->i; return 1; }
  if( r->state!=2 || r->i>=r->end ) return 0;
  *pAt = r->i;
  if( pb_varint(r->z, r->end, &r->i, pv, "", 0) ){ r->state = 0; return -1; }
  return 1;
}
static int pp_run_field(const PbField *f){ return f->wt==WT_VARINT || f->wt==WT_LEN; }

static int pp_run_damage(Pp *p, uint64_t at, const char *zField){
  return pp_diag(p, PS_DIAG_OTHER, at, "a truncated varint in packed %s; the rest of it is not read", zField);
}

/* ------------------------------------------------------------------ strings */

/* The pool id of string_table[idx] for field zField of the message at byte off: index 0 is ''
** (whatever the table holds); an index outside the table is a diagnostic and reads as NULL (0).
** Each string is interned once (its invalid_text diagnostic names its own bytes). */
static int pp_str(Pp *p, int64_t idx, uint64_t off, const char *zField, uint32_t *pId){
  *pId = 0;
  if( idx==0 ){ *pId = p->idEmpty; return PS_OK; }
  if( idx<0 || (uint64_t)idx>=p->nStr ){
    return pp_diag(p, PS_DIAG_OTHER, off, "%s %lld is not an index of string_table (%zu strings); read as NULL",
                   zField, (long long)idx, p->nStr);
  }
  if( p->aStrId[idx]==0 ){
    const PpStr *s = &p->aStr[idx];
    size_t bad;
    uint32_t id = ps_pool_intern_text(&p->cap->pool, (const char*)p->z + s->off, (size_t)s->n, 0, &bad);
    if( id==0 ) return pp_nomem(p);
    if( bad!=PS_TEXT_OK ){
      char zF[64];
      snprintf(zF, sizeof(zF), "string_table[%lld]", (long long)idx);
      if( ps_text_diag(p->cap, (int64_t)(s->off + bad), zF, (const char*)p->z + s->off, (size_t)s->n, bad) ) return pp_nomem(p);
    }
    p->aStrId[idx] = id;
  }
  *pId = p->aStrId[idx];
  return PS_OK;
}

/* 1 when pool id is NULL or '' */
static int pp_blank(const Pp *p, uint32_t id){ return id==0 || id==p->idEmpty; }

/* Appends string_table[idx] to b as a JSON string ('' for 0, null outside the table). */
static int pp_json_str(PsBuf *b, const uint8_t *z, const PpStr *aStr, size_t nStr, int64_t idx){
  if( idx==0 ) return ps_buf_append(b, "\"\"", 2);
  if( idx<0 || (uint64_t)idx>=nStr ) return ps_buf_append(b, "null", 4);
  return ps_json_quote(b, (const char*)z + aStr[idx].off, (size_t)aStr[idx].n, 0);
}

static int pp_put(PsBuf *b, const char *z){ return ps_buf_append(b, z, strlen(z)); }
static int pp_put_i(PsBuf *b, const char *zFmt, long long v){
  char t[64]; int k = snprintf(t, sizeof(t), zFmt, v);
  return ps_buf_append(b, t, (size_t)k);
}
static int pp_put_u(PsBuf *b, const char *zFmt, unsigned long long v){
  char t[64]; int k = snprintf(t, sizeof(t), zFmt, v);
  return ps_buf_append(b, t, (size_t)k);
}

/* ------------------------------------------------------------------ id maps */

static void pp_ids_free(PpIds *m){ free(m->aDense); free(m->aKey); free(m->aVal); memset(m, 0, sizeof(*m)); }

static int64_t pp_ids_get(const PpIds *m, uint64_t id){
  if( id < m->nDense ) return (int64_t)m->aDense[id] - 1;
  if( m->nHash==0 ) return -1;
  size_t mask = m->nHash - 1, h = (size_t)ps_hash_u64(id) & mask;
  ps_nProbe++;
  while( m->aVal[h] ){
    if( m->aKey[h]==id ) return (int64_t)m->aVal[h] - 1;
    h = (h+1) & mask;
    ps_nProbe++;
  }
  return -1;
}

/* Builds the map of n items of size sz (each starts with uint64_t id, off). An id used again
** is a 'duplicate_id' diagnostic and maps to the last item, as pprof's reader does. */
static int pp_ids_build(Pp *p, PpIds *m, const void *aItem, size_t sz, size_t n, const char *zWhat){
  if( n >= UINT32_MAX ) return ps_err(p->err, "more than %u %s messages", UINT32_MAX-1, zWhat);
  uint64_t maxId = 0; size_t nBig = 0;
  uint64_t lim = (uint64_t)n*4 + 64;
  for(size_t k=0; k<n; k++){
    uint64_t id = *(const uint64_t*)((const char*)aItem + k*sz);
    if( id > maxId ) maxId = id;
  }
  m->nDense = maxId < lim ? maxId + 1 : lim;
  m->aDense = calloc((size_t)m->nDense ? (size_t)m->nDense : 1, sizeof(uint32_t));
  if( m->aDense==0 ) return pp_nomem(p);
  for(size_t k=0; k<n; k++){
    if( *(const uint64_t*)((const char*)aItem + k*sz) >= m->nDense ) nBig++;
  }
  if( nBig ){
    m->nHash = 16;
    while( m->nHash < nBig*2 ) m->nHash *= 2;
    m->aKey = malloc(m->nHash * sizeof(uint64_t));
    m->aVal = calloc(m->nHash, sizeof(uint32_t));
    if( m->aKey==0 || m->aVal==0 ) return pp_nomem(p);
  }
  for(size_t k=0; k<n; k++){
    const uint64_t *x = (const uint64_t*)((const char*)aItem + k*sz);
    uint64_t id = x[0];
    uint32_t *pSlot;
    if( id < m->nDense ) pSlot = &m->aDense[id];
    else{
      size_t mask = m->nHash - 1, h = (size_t)ps_hash_u64(id) & mask;
      ps_nProbe++;
      while( m->aVal[h] && m->aKey[h]!=id ){ h = (h+1) & mask; ps_nProbe++; }
      m->aKey[h] = id;
      pSlot = &m->aVal[h];
    }
    if( *pSlot ){
      const uint64_t *y = (const uint64_t*)((const char*)aItem + (*pSlot-1)*sz);
      if( pp_diag(p, PS_DIAG_DUPLICATE, x[1], "%s id %llu is used again (first at byte %llu); the last one is used",
                  zWhat, (unsigned long long)id, (unsigned long long)y[1]) ) return PS_NOMEM;
    }
    *pSlot = (uint32_t)k + 1;
  }
  return PS_OK;
}

/* ------------------------------------------------------------------ the tables (first walk) */

static int pp_value_type(Pp *p, const PbField *f, PpType *t){
  PbMsg s = { p->z, f->off, f->off + f->len, "ValueType" };
  PbField g; PsErr e; int rc, rcD = PS_OK;
  memset(t, 0, sizeof(*t));
  t->off = f->off;
  while( (rc = pb_next(&s, &g, &e))==PS_OK ){
    if( g.num!=1 && g.num!=2 ) continue;
    if( !pp_wt(p, &g, WT_VARINT, "ValueType", g.num==1 ? "type" : "unit", &rcD) ){ if( rcD ) return rcD; continue; }
    if( g.num==1 ) t->type = (int64_t)g.v; else t->unit = (int64_t)g.v;
  }
  return pp_sub_end(p, rc, &e, "ValueType");
}

static int pp_function(Pp *p, const PbField *f){
  if( ps_grow((void**)&p->aFunc, sizeof(PpFunc), &p->nFuncAlloc, p->nFunc+1) ) return pp_nomem(p);
  PpFunc *x = &p->aFunc[p->nFunc++];
  memset(x, 0, sizeof(*x));
  x->off = f->off;
  static const char *const az[] = { 0, "id", "name", "system_name", "filename", "start_line" };
  PbMsg s = { p->z, f->off, f->off + f->len, "Function" };
  PbField g; PsErr e; int rc, rcD = PS_OK;
  while( (rc = pb_next(&s, &g, &e))==PS_OK ){
    if( g.num<1 || g.num>5 ) continue;
    if( !pp_wt(p, &g, WT_VARINT, "Function", az[g.num], &rcD) ){ if( rcD ) return rcD; continue; }
    switch( g.num ){
      case 1: x->id = g.v; break;
      case 2: x->name = (int64_t)g.v; break;
      case 3: x->sysName = (int64_t)g.v; break;
      case 4: x->file = (int64_t)g.v; break;
      case 5: x->startLine = (int64_t)g.v; break;
    }
  }
  return pp_sub_end(p, rc, &e, "Function");
}

static int pp_mapping(Pp *p, const PbField *f){
  if( ps_grow((void**)&p->aMap, sizeof(PpMapping), &p->nMapAlloc, p->nMap+1) ) return pp_nomem(p);
  PpMapping *x = &p->aMap[p->nMap++];
  memset(x, 0, sizeof(*x));
  x->off = f->off;
  PbMsg s = { p->z, f->off, f->off + f->len, "Mapping" };
  PbField g; PsErr e; int rc, rcD = PS_OK;
  while( (rc = pb_next(&s, &g, &e))==PS_OK ){
    if( g.num<1 || g.num>10 ) continue;
    if( !pp_wt(p, &g, WT_VARINT, "Mapping", PP_F_MAPPING[g.num-1].zName, &rcD) ){ if( rcD ) return rcD; continue; }
    switch( g.num ){
      case 1: x->id = g.v; break;
      case 2: x->start = g.v; break;
      case 3: x->limit = g.v; break;
      case 4: x->fileOffset = g.v; break;
      case 5: x->file = (int64_t)g.v; break;
      case 6: x->buildId = (int64_t)g.v; break;
      default: x->aFlag[g.num-7] = g.v!=0; break;
    }
  }
  return pp_sub_end(p, rc, &e, "Mapping");
}

static int pp_line(Pp *p, const PbField *f, PpLine *x){
  memset(x, 0, sizeof(*x));
  x->off = f->off;
  PbMsg s = { p->z, f->off, f->off + f->len, "Line" };
  PbField g; PsErr e; int rc, rcD = PS_OK;
  while( (rc = pb_next(&s, &g, &e))==PS_OK ){
    if( g.num<1 || g.num>3 ) continue;
    if( !pp_wt(p, &g, WT_VARINT, "Line", PP_F_LINE[g.num-1].zName, &rcD) ){ if( rcD ) return rcD; continue; }
    if( g.num==1 ) x->fnId = g.v; else if( g.num==2 ) x->line = (int64_t)g.v; else x->column = (int64_t)g.v;
  }
  return pp_sub_end(p, rc, &e, "Line");
}

static int pp_location(Pp *p, const PbField *f){
  if( ps_grow((void**)&p->aLoc, sizeof(PpLoc), &p->nLocAlloc, p->nLoc+1) ) return pp_nomem(p);
  PpLoc *x = &p->aLoc[p->nLoc++];
  memset(x, 0, sizeof(*x));
  x->off = f->off;
  x->iLine = p->nLine;
  PbMsg s = { p->z, f->off, f->off + f->len, "Location" };
  PbField g; PsErr e; int rc, rcD = PS_OK;
  while( (rc = pb_next(&s, &g, &e))==PS_OK ){
    if( g.num<1 || g.num>5 ) continue;
    if( !pp_wt(p, &g, g.num==4 ? WT_LEN : WT_VARINT, "Location", PP_F_LOCATION[g.num-1].zName, &rcD) ){ if( rcD ) return rcD; continue; }
    switch( g.num ){
      case 1: x->id = g.v; break;
      case 2: x->mapId = g.v; break;
      case 3: x->addr = g.v; break;
      case 4:
        if( ps_grow((void**)&p->aLine, sizeof(PpLine), &p->nLineAlloc, p->nLine+1) ) return pp_nomem(p);
        if( pp_line(p, &g, &p->aLine[p->nLine]) ) return PS_NOMEM;
        p->nLine++; x->nLine++;
        break;
      case 5: x->bFolded = g.v!=0; break;
    }
  }
  return pp_sub_end(p, rc, &e, "Location");
}

/* The first walk: every table of the file, the scalars and the number of samples. */
static int pp_scan(Pp *p){
  PbMsg m = { p->z, 0, p->n, "Profile" };
  PbField f; int rc, rcD = PS_OK;
  while( (rc = pb_next(&m, &f, p->err))==PS_OK ){
    if( ps_work(&p->cap->src, 1 + (f.wt==WT_LEN ? f.len : 0)) ) return ps_interrupted(p->err);
    if( f.num>=1 && f.num<=15 && f.num!=13
     && !pp_wt(p, &f, (f.num<=6 || f.num==11) ? WT_LEN : WT_VARINT, "Profile", PP_F_PROFILE[f.num-1].zName, &rcD) ){
      if( rcD ) return rcD;
      continue;
    }
    switch( f.num ){
      case 1:
        if( ps_grow((void**)&p->aType, sizeof(PpType), &p->nTypeAlloc, p->nType+1) ) return pp_nomem(p);
        if( pp_value_type(p, &f, &p->aType[p->nType]) ) return PS_NOMEM;
        p->aType[p->nType++].off = f.at;
        break;
      case 2: p->nSample++; break;
      case 3: if( pp_mapping(p, &f) ) return PS_NOMEM; break;
      case 4: if( pp_location(p, &f) ) return PS_NOMEM; break;
      case 5: if( pp_function(p, &f) ) return PS_NOMEM; break;
      case 6:
        if( ps_grow((void**)&p->aStr, sizeof(PpStr), &p->nStrAlloc, p->nStr+1) ) return pp_nomem(p);
        p->aStr[p->nStr].off = f.off; p->aStr[p->nStr].n = f.len; p->nStr++;
        break;
      case 11:
        if( pp_value_type(p, &f, &p->periodType) ) return PS_NOMEM;
        p->periodType.off = f.at; p->bPeriodType = 1;
        break;
      case 13: {
        if( !pp_run_field(&f) ){ pp_wt(p, &f, WT_VARINT, "Profile", "comment", &rcD); if( rcD ) return rcD; break; }
        PpRun r; uint64_t v, at; int x;
        pp_run_init(&r, p->z, &f);
        while( (x = pp_run_next(&r, &v, &at))==1 ){
          if( ps_grow((void**)&p->aComment, sizeof(PpRef), &p->nCommentAlloc, p->nComment+1) ) return pp_nomem(p);
          p->aComment[p->nComment].id = v; p->aComment[p->nComment].at = at; p->nComment++;
        }
        if( x<0 && pp_run_damage(p, at, "Profile.comment") ) return PS_NOMEM;
        break;
      }
      case 9:
        if( p->aScalar[9].num ){
          if( pp_diag(p, PS_DIAG_OTHER, f.at, "time_nanos is given again (first at byte %llu): two profiles "
                      "concatenated? The last one is used", (unsigned long long)p->aScalar[9].at) ) return PS_NOMEM;
        }
        p->aScalar[9] = f;
        break;
      case 7: case 8: case 10: case 12: case 14: case 15: p->aScalar[f.num] = f; break;
      default:
        if( ps_grow((void**)&p->aUnknown, sizeof(PbField), &p->nUnknownAlloc, p->nUnknown+1) ) return pp_nomem(p);
        p->aUnknown[p->nUnknown++] = f;
        break;
    }
  }
  return rc==3 ? PS_OK : PS_ERROR;
}

/* ------------------------------------------------------------------ resolving */

/* Counts nUnit units of work (ps_work: about a byte read or a probe made) of a table pass: 1
** (err set) when the host asked to stop. */
static int pp_poll(Pp *p, uint64_t nUnit){
  if( ps_work(&p->cap->src, nUnit) ) return ps_interrupted(p->err);
  return PS_OK;
}

static int pp_functions(Pp *p){
  for(size_t k=0; k<p->nFunc; k++){
    PpFunc *x = &p->aFunc[k];
    if( pp_poll(p, 4) ) return PS_ERROR;
    uint32_t idSys;
    if( pp_str(p, x->name, x->off, "Function.name", &x->idName)
     || pp_str(p, x->sysName, x->off, "Function.system_name", &idSys)
     || pp_str(p, x->file, x->off, "Function.filename", &x->idFile) ) return PS_NOMEM;
    if( pp_blank(p, x->idName) ) x->idName = pp_blank(p, idSys) ? 0 : idSys;
    if( pp_blank(p, x->idFile) ) x->idFile = 0;
  }
  for(size_t k=0; k<p->nMap; k++){
    PpMapping *x = &p->aMap[k];
    uint32_t idBuild;
    if( pp_str(p, x->file, x->off, "Mapping.filename", &x->idFile)
     || pp_str(p, x->buildId, x->off, "Mapping.build_id", &idBuild) ) return PS_NOMEM;
    if( pp_blank(p, x->idFile) ) x->idFile = 0;
  }
  return PS_OK;
}

static int pp_addr_name(Pp *p, uint64_t addr, uint32_t *pId){
  char t[24];
  int k = snprintf(t, sizeof(t), "0x%llx", (unsigned long long)addr);
  *pId = ps_pool_intern(&p->cap->pool, t, (size_t)k, 0);
  return *pId ? PS_OK : pp_nomem(p);
}

static int pp_frame_push(Pp *p, PpLoc *L, size_t iLoc, uint32_t name, uint32_t cat, int64_t fn, int64_t map, int64_t line){
  uint64_t key = ps_stack_key(name, cat);
  if( p->nFrame > L->iFrame && p->aFrame[p->nFrame-1].key==key ) return PS_OK;   /* same frame again */
  if( ps_grow((void**)&p->aFrame, sizeof(PpFrame), &p->nFrameAlloc, p->nFrame+1) ) return pp_nomem(p);
  PpFrame *x = &p->aFrame[p->nFrame++];
  x->key = key; x->name = name; x->cat = cat; x->fn = fn; x->map = map; x->loc = iLoc; x->line = line;
  L->nFrame++;
  return PS_OK;
}

/* Each location's frames, root first: its lines from the last (the caller) to the first (the
** innermost inlined callee); a location without lines is one frame named by its address. */
static int pp_frames(Pp *p){
  for(size_t k=0; k<p->nLoc; k++){
    PpLoc *L = &p->aLoc[k];
    if( pp_poll(p, 2 + L->nLine) ) return PS_ERROR;
    int64_t map = -1; uint32_t idMapFile = 0, idAddr = 0;
    if( L->mapId ){
      map = pp_ids_get(&p->mapIds, L->mapId);
      if( map<0 ){
        if( pp_diag(p, PS_DIAG_UNKNOWN_ID, L->off, "Location %llu: mapping_id %llu names no Mapping; read as none",
                    (unsigned long long)L->id, (unsigned long long)L->mapId) ) return PS_NOMEM;
      }else idMapFile = p->aMap[map].idFile;
    }
    L->iFrame = p->nFrame; L->nFrame = 0;
    if( L->nLine==0 ){
      if( pp_addr_name(p, L->addr, &idAddr) || pp_frame_push(p, L, k, idAddr, idMapFile, -1, map, -1) ) return PS_NOMEM;
      continue;
    }
    for(size_t j=L->nLine; j>0; j--){
      const PpLine *ln = &p->aLine[L->iLine + j-1];
      int64_t fn = -1;
      if( ln->fnId ){
        fn = pp_ids_get(&p->fnIds, ln->fnId);
        if( fn<0 ){
          if( pp_diag(p, PS_DIAG_UNKNOWN_ID, ln->off, "Location %llu: Line.function_id %llu names no Function; "
                      "the frame is named by the address", (unsigned long long)L->id, (unsigned long long)ln->fnId) ) return PS_NOMEM;
        }
      }
      uint32_t name = fn>=0 ? p->aFunc[fn].idName : 0;
      uint32_t cat = fn>=0 && p->aFunc[fn].idFile ? p->aFunc[fn].idFile : idMapFile;
      if( name==0 ){
        if( idAddr==0 && pp_addr_name(p, L->addr, &idAddr) ) return PS_NOMEM;
        name = idAddr;
      }
      if( pp_frame_push(p, L, k, name, cat, fn, map, (int64_t)(L->iLine + j-1)) ) return PS_NOMEM;
    }
  }
  return PS_OK;
}

/* ns per unit of a time unit, or 0 when the unit is not a time. */
static int64_t pp_time_unit(const Pp *p, uint32_t id){
  static const struct { const char *z; int64_t mul; } a[] = {
    { "nanoseconds", 1 }, { "nanosecond", 1 }, { "ns", 1 },
    { "microseconds", 1000 }, { "microsecond", 1000 }, { "us", 1000 },
    { "milliseconds", 1000000 }, { "millisecond", 1000000 }, { "ms", 1000000 },
    { "seconds", 1000000000 }, { "second", 1000000000 }, { "s", 1000000000 },
  };
  if( id==0 ) return 0;
  PsStr s = ps_pool_get(&p->cap->pool, id);
  for(size_t k=0; k<sizeof(a)/sizeof(a[0]); k++){
    if( strlen(a[k].z)==s.n && memcmp(a[k].z, s.z, s.n)==0 ) return a[k].mul;
  }
  return 0;
}

static int pp_is(const Pp *p, uint32_t id, const char *z){
  if( id==0 ) return 0;
  PsStr s = ps_pool_get(&p->cap->pool, id);
  return strlen(z)==s.n && memcmp(z, s.z, s.n)==0;
}

/* Resolves t's strings once (a diagnostic for an index outside string_table) and makes its
** "type/unit" text (NULL strings as ''). */
static int pp_type_resolve(Pp *p, PpType *t){
  if( t->zText ) return PS_OK;
  if( pp_str(p, t->type, t->off, "ValueType.type", &t->idType)
   || pp_str(p, t->unit, t->off, "ValueType.unit", &t->idUnit) ) return PS_NOMEM;
  PsStr sa = t->idType ? ps_pool_get(&p->cap->pool, t->idType) : (PsStr){ "", 0 };
  PsStr sb = t->idUnit ? ps_pool_get(&p->cap->pool, t->idUnit) : (PsStr){ "", 0 };
  char *z = ps_arena_alloc(&p->cap->arena, sa.n + sb.n + 2);
  if( z==0 ) return pp_nomem(p);
  memcpy(z, sa.z, sa.n); z[sa.n] = '/'; memcpy(z + sa.n + 1, sb.z, sb.n); z[sa.n + sb.n + 1] = 0;
  t->zText = z; t->nText = sa.n + sb.n + 1;
  if( (t->idText = ps_pool_intern(&p->cap->pool, z, t->nText, 0))==0 ) return pp_nomem(p);
  return PS_OK;
}

/* The sample types: their args keys, and which column gives dur, weight and cat. */
static int pp_types(Pp *p, PpArgs *a){
  PsCapture *cap = p->cap;
  size_t nT = p->nType;
  for(size_t k=0; k<nT; k++) if( pp_type_resolve(p, &p->aType[k]) ) return PS_NOMEM;
  if( p->bPeriodType && pp_type_resolve(p, &p->periodType) ) return PS_NOMEM;
  if( p->aScalar[14].num && pp_str(p, (int64_t)p->aScalar[14].v, p->aScalar[14].at, "default_sample_type", &p->idDef) ) return PS_NOMEM;
  /* args keys: "type/unit" as a JSON string, "#<index>" appended when it repeats */
  const char **azKey = ps_arena_alloc(&cap->arena, (nT ? nT : 1) * sizeof(char*));
  uint8_t *aSeen = calloc(cap->pool.n + 1, 1);
  PsBuf b = {0, 0, 0};
  int rc = PS_NOMEM;
  if( azKey==0 || aSeen==0 ) goto out;
  for(size_t k=0; k<nT; k++){
    uint32_t id = p->aType[k].idText;
    b.n = 0;
    if( ps_json_quote(&b, p->aType[k].zText, p->aType[k].nText, 0) ) goto out;
    if( aSeen[id] ){
      char t[32]; int m = snprintf(t, sizeof(t), "#%zu\"", k);
      b.n--;                                              /* before the closing quote */
      if( ps_buf_append(&b, t, (size_t)m) ) goto out;
    }
    aSeen[id] = 1;
    if( (azKey[k] = ps_arena_strdup(&cap->arena, b.z, b.n))==0 ) goto out;
  }
  /* dur: default_sample_type's column, else period_type's, if a time; else the first time */
  p->iDur = p->iWeight = p->iCat = -1;
  uint32_t idPer = p->bPeriodType ? p->periodType.idType : 0;
  int64_t iDef = -1;
  for(size_t k=0; k<nT && iDef<0; k++) if( !pp_blank(p, p->idDef) && p->aType[k].idType==p->idDef ) iDef = (int64_t)k;
  for(int pass=0; pass<3 && p->iDur<0; pass++){
    for(size_t k=0; k<nT; k++){
      int64_t mul = pp_time_unit(p, p->aType[k].idUnit);
      if( mul==0 ) continue;
      if( (pass==0 && (int64_t)k==iDef) || (pass==1 && !pp_blank(p, idPer) && p->aType[k].idType==idPer) || pass==2 ){
        p->iDur = (int64_t)k; p->durMul = mul; break;
      }
    }
  }
  for(size_t k=0; k<nT && p->iWeight<0; k++) if( pp_is(p, p->aType[k].idUnit, "count") ) p->iWeight = (int64_t)k;
  p->iCat = p->iDur>=0 ? p->iDur : iDef>=0 ? iDef : (int64_t)nT - 1;
  p->idCat = p->iCat>=0 ? p->aType[p->iCat].idText : 0;
  a->azKey = azKey; a->nType = nT;
  rc = PS_OK;
out:
  free(aSeen); ps_buf_free(&b);
  return rc ? pp_nomem(p) : PS_OK;
}

/* Label-key roles: the string indexes of 'pid', 'tid', ... */
static int pp_roles(Pp *p){
  static const struct { const char *z; uint8_t role; } a[] = {
    { "pid", PP_ROLE_PID }, { "tid", PP_ROLE_TID }, { "thread", PP_ROLE_THREAD },
    { "timestamp_ns", PP_ROLE_TS }, { "comm", PP_ROLE_COMM }, { "thread_comm", PP_ROLE_TCOMM },
  };
  p->aRole = calloc(p->nStr ? p->nStr : 1, 1);
  p->aStrId = calloc(p->nStr ? p->nStr : 1, sizeof(uint32_t));
  if( p->aRole==0 || p->aStrId==0 ) return pp_nomem(p);
  for(size_t k=1; k<p->nStr; k++){
    if( p->aStr[k].n > 12 ) continue;
    for(size_t j=0; j<sizeof(a)/sizeof(a[0]); j++){
      if( strlen(a[j].z)==p->aStr[k].n && memcmp(a[j].z, p->z + p->aStr[k].off, (size_t)p->aStr[k].n)==0 ) p->aRole[k] = a[j].role;
    }
  }
  return PS_OK;
}

/* ------------------------------------------------------------------ metadata */

static int pp_meta_str(Pp *p, const char *zKey, int64_t idx, uint64_t at){
  uint32_t id;
  if( pp_str(p, idx, at, zKey, &id) ) return PS_NOMEM;
  if( id==0 ) return ps_meta_text(p->cap, "pprof", zKey, 0, 0, PS_META_TEXT, (int64_t)at) ? pp_nomem(p) : PS_OK;
  PsStr s = ps_pool_get(&p->cap->pool, id);
  return ps_meta_text(p->cap, "pprof", zKey, s.z, s.n, PS_META_TEXT, (int64_t)at) ? pp_nomem(p) : PS_OK;
}

static int pp_meta_mapping(Pp *p, const PpMapping *x){
  PsBuf *b = &p->buf;
  b->n = 0;
  int rc = pp_put_u(b, "{\"id\":%llu", x->id) || pp_put_u(b, ",\"memory_start\":%llu", x->start)
        || pp_put_u(b, ",\"memory_limit\":%llu", x->limit) || pp_put_u(b, ",\"file_offset\":%llu", x->fileOffset)
        || pp_put(b, ",\"filename\":") || pp_json_str(b, p->z, p->aStr, p->nStr, x->file)
        || pp_put(b, ",\"build_id\":") || pp_json_str(b, p->z, p->aStr, p->nStr, x->buildId);
  static const char *const az[] = { "has_functions", "has_filenames", "has_line_numbers", "has_inline_frames" };
  for(int k=0; k<4 && !rc; k++){
    rc = pp_put(b, ",\"") || pp_put(b, az[k]) || pp_put(b, x->aFlag[k] ? "\":true" : "\":false");
  }
  if( rc || pp_put(b, "}") ) return pp_nomem(p);
  char *z = ps_arena_strdup(&p->cap->arena, b->z, b->n);
  if( z==0 || ps_meta_text(p->cap, "pprof", "mapping", z, b->n, PS_META_JSON, (int64_t)x->off) ) return pp_nomem(p);
  return PS_OK;
}

static int pp_meta(Pp *p){
  PsCapture *cap = p->cap;
  for(size_t k=0; k<p->nType; k++){
    const PpType *t = &p->aType[k];
    if( ps_meta_text(cap, "pprof", "sample_type", t->zText, t->nText, PS_META_TEXT, (int64_t)t->off) ) return pp_nomem(p);
  }
  if( p->bPeriodType ){
    const PpType *t = &p->periodType;
    if( ps_meta_text(cap, "pprof", "period_type", t->zText, t->nText, PS_META_TEXT, (int64_t)t->off) ) return pp_nomem(p);
  }
  static const struct { uint32_t num; uint8_t bStr; } a[] = {
    { 12, 0 }, { 9, 0 }, { 10, 0 }, { 7, 1 }, { 8, 1 }, { 14, 1 }, { 15, 1 },
  };
  for(size_t k=0; k<sizeof(a)/sizeof(a[0]); k++){
    const PbField *f = &p->aScalar[a[k].num];
    if( f->num==0 ) continue;
    const char *zKey = PP_F_PROFILE[a[k].num-1].zName;
    if( a[k].num==14 ){                     /* resolved (and diagnosed) by pp_types */
      PsStr s = p->idDef ? ps_pool_get(&cap->pool, p->idDef) : (PsStr){ 0, 0 };
      if( ps_meta_text(cap, "pprof", zKey, s.z, s.n, PS_META_TEXT, (int64_t)f->at) ) return pp_nomem(p);
    }else if( a[k].bStr ){ if( pp_meta_str(p, zKey, (int64_t)f->v, f->at) ) return PS_NOMEM; }
    else if( ps_meta_int(cap, "pprof", zKey, (int64_t)f->v, (int64_t)f->at) ) return pp_nomem(p);
  }
  for(size_t k=0; k<p->nComment; k++){
    if( pp_meta_str(p, "comment", (int64_t)p->aComment[k].id, p->aComment[k].at) ) return PS_NOMEM;
  }
  for(size_t k=0; k<p->nMap; k++) if( pp_meta_mapping(p, &p->aMap[k]) ) return PS_NOMEM;
  for(size_t k=0; k<p->nUnknown; k++){
    const PbField *f = &p->aUnknown[k];
    char zKey[16];
    snprintf(zKey, sizeof(zKey), "#%u", f->num);
    int64_t v = f->wt==WT_LEN ? (int64_t)f->len : (int64_t)f->v;
    if( ps_meta_int(cap, "pprof", zKey, v, (int64_t)f->at) ) return pp_nomem(p);
  }
  if( p->iDur>=0 ){
    const PpType *t = &p->aType[p->iDur];
    if( ps_meta_text(cap, "pprof", "dur_sample_type", t->zText, t->nText, PS_META_TEXT, -1) ) return pp_nomem(p);
  }
  if( p->iWeight>=0 ){
    const PpType *t = &p->aType[p->iWeight];
    if( ps_meta_text(cap, "pprof", "weight_sample_type", t->zText, t->nText, PS_META_TEXT, -1) ) return pp_nomem(p);
  }
  if( ps_meta_int(cap, "pprof", "samples", (int64_t)p->nSample, -1)
   || ps_meta_int(cap, "pprof", "locations", (int64_t)p->nLoc, -1)
   || ps_meta_int(cap, "pprof", "functions", (int64_t)p->nFunc, -1)
   || ps_meta_int(cap, "pprof", "mappings", (int64_t)p->nMap, -1)
   || ps_meta_int(cap, "pprof", "strings", (int64_t)p->nStr, -1) ) return pp_nomem(p);
  return PS_OK;
}

/* ------------------------------------------------------------------ samples (second walk) */

/* The attrs of a new node: the frame's particulars as the file gives them. */
static int pp_attrs(Pp *p, PsRecord *r, const PpFrame *fr){
  PsBuf *b = &p->buf;
  const PpLoc *L = &p->aLoc[fr->loc];
  int rc = 0, n = 0;
  b->n = 0;
  rc |= pp_put(b, "{");
#define SEP() (n++ ? pp_put(b, ",") : 0)
  if( fr->fn>=0 ){
    const PpFunc *x = &p->aFunc[fr->fn];
    rc |= SEP() || pp_put(b, "\"function\":") || pp_json_str(b, p->z, p->aStr, p->nStr, x->name);
    if( x->sysName ) rc |= SEP() || pp_put(b, "\"system_name\":") || pp_json_str(b, p->z, p->aStr, p->nStr, x->sysName);
    if( x->file ) rc |= SEP() || pp_put(b, "\"filename\":") || pp_json_str(b, p->z, p->aStr, p->nStr, x->file);
    if( x->startLine ) rc |= SEP() || pp_put_i(b, "\"start_line\":%lld", (long long)x->startLine);
  }
  if( fr->line>=0 ){
    const PpLine *ln = &p->aLine[fr->line];
    if( ln->line ) rc |= SEP() || pp_put_i(b, "\"line\":%lld", (long long)ln->line);
    if( ln->column ) rc |= SEP() || pp_put_i(b, "\"column\":%lld", (long long)ln->column);
    if( (size_t)fr->line + 1 < L->iLine + L->nLine ) rc |= SEP() || pp_put(b, "\"inlined\":true");
  }
  if( L->addr ) rc |= SEP() || pp_put_u(b, "\"address\":\"0x%llx\"", (unsigned long long)L->addr);
  rc |= SEP() || pp_put_u(b, "\"location_id\":%llu", (unsigned long long)L->id);
  if( L->bFolded ) rc |= SEP() || pp_put(b, "\"is_folded\":true");
  if( fr->map>=0 ){
    const PpMapping *x = &p->aMap[fr->map];
    rc |= SEP() || pp_put_u(b, "\"mapping\":{\"id\":%llu", (unsigned long long)x->id);
    if( x->file ) rc |= pp_put(b, ",\"filename\":") || pp_json_str(b, p->z, p->aStr, p->nStr, x->file);
    if( x->buildId ) rc |= pp_put(b, ",\"build_id\":") || pp_json_str(b, p->z, p->aStr, p->nStr, x->buildId);
    rc |= pp_put(b, "}");
  }
#undef SEP
  rc |= pp_put(b, "}");
  if( rc ) return pp_nomem(p);
  char *z = ps_arena_strdup(&p->cap->arena, b->z, b->n);
  if( z==0 ) return pp_nomem(p);
  r->zAttrs = z; r->nAttrs = (uint32_t)b->n;
  return PS_OK;
}

static int pp_value_eq(const PsValue *a, const PsValue *b){
  return a->type==b->type && (a->type!=PS_VAL_INT || a->i==b->i) && (a->type!=PS_VAL_TEXT || a->s==b->s);
}

/* What a sample's labels say about where and when it ran. */
typedef struct PpWhere { PsValue pid, tid, thread; int64_t ts; uint32_t comm, tcomm; } PpWhere;

static int pp_label(Pp *p, const PbField *f, PpWhere *w){
  int64_t key = 0, str = 0, num = 0, unit = 0;
  PbMsg s = { p->z, f->off, f->off + f->len, "Label" };
  PbField g; PsErr e; int rc, rcD = PS_OK;
  while( (rc = pb_next(&s, &g, &e))==PS_OK ){
    if( g.num<1 || g.num>4 ) continue;
    if( !pp_wt(p, &g, WT_VARINT, "Label", PP_F_LABEL[g.num-1].zName, &rcD) ){ if( rcD ) return rcD; continue; }
    if( g.num==1 ) key = (int64_t)g.v; else if( g.num==2 ) str = (int64_t)g.v;
    else if( g.num==3 ) num = (int64_t)g.v; else unit = (int64_t)g.v;
  }
  if( pp_sub_end(p, rc, &e, "Label") ) return PS_NOMEM;
  /* an index outside string_table: a diagnostic, and the label is read without it */
  if( (key<0 || (uint64_t)key>=p->nStr) && key!=0 ){ uint32_t id; if( pp_str(p, key, f->off, "Label.key", &id) ) return PS_NOMEM; return PS_OK; }
  if( (str<0 || (uint64_t)str>=p->nStr) && str!=0 ){ uint32_t id; if( pp_str(p, str, f->off, "Label.str", &id) ) return PS_NOMEM; str = 0; }
  if( (unit<0 || (uint64_t)unit>=p->nStr) && unit!=0 ){ uint32_t id; if( pp_str(p, unit, f->off, "Label.num_unit", &id) ) return PS_NOMEM; }
  int role = key>0 && (uint64_t)key<p->nStr ? p->aRole[key] : 0;
  if( role==0 ) return PS_OK;
  PsValue v; memset(&v, 0, sizeof(v));
  if( str ){
    v.type = PS_VAL_TEXT;
    if( pp_str(p, str, f->off, "Label.str", &v.s) ) return PS_NOMEM;
  }else{ v.type = PS_VAL_INT; v.i = num; }
  switch( role ){
    case PP_ROLE_PID: w->pid = v; break;
    case PP_ROLE_TID: w->tid = v; break;
    case PP_ROLE_THREAD: w->thread = v; break;
    case PP_ROLE_TS: if( v.type==PS_VAL_INT ) w->ts = v.i; break;
    case PP_ROLE_COMM: if( v.type==PS_VAL_TEXT ) w->comm = v.s; break;
    case PP_ROLE_TCOMM: if( v.type==PS_VAL_TEXT ) w->tcomm = v.s; break;
  }
  return PS_OK;
}

/* The thread of a sample (one thread of NULL pid and tid when no label says). */
static int64_t pp_thread(Pp *p, PpWhere *w){
  PsValue *tid = w->tid.type ? &w->tid : &w->thread;
  if( p->thLast>=0 && pp_value_eq(&w->pid, &p->pidLast) && pp_value_eq(tid, &p->tidLast) ) return p->thLast;
  int64_t th = ps_thread_get(p->cap, &w->pid, tid);
  if( th<0 ) return -1;
  p->thLast = th; p->pidLast = w->pid; p->tidLast = *tid;
  return th;
}

/* A value of the time column as ns, or PS_NULL64 (a diagnostic when negative or too big). */
static int pp_dur(Pp *p, int64_t v, uint64_t at, int64_t *pDur){
  int64_t ns;
  *pDur = PS_NULL64;
  if( v<0 ) return pp_diag(p, PS_DIAG_OTHER, at, "the time value %lld is negative; dur is NULL", (long long)v);
  if( __builtin_mul_overflow(v, p->durMul, &ns) ){
    return pp_diag(p, PS_DIAG_OTHER, at, "the time value %lld is beyond int64 ns; dur is NULL", (long long)v);
  }
  *pDur = ns;
  return PS_OK;
}

/* Keeps the stack whose location_id bytes are z[off, off+len) (hash h) with its leaf row in the
** stack cache. */
static int pp_sc_add(Pp *p, uint64_t h, size_t off, size_t len, int32_t leaf){
  if( (p->nSCUsed+1)*2 > p->nSC ){
    size_t nNew = p->nSC ? p->nSC*2 : 1024;
    PpStackEnt *a = calloc(nNew, sizeof(PpStackEnt));
    if( a==0 ) return pp_nomem(p);
    for(size_t i=0; i<p->nSC; i++){
      if( p->aSC[i].len==0 ) continue;
      size_t j = (size_t)p->aSC[i].h & (nNew-1);
      ps_nProbe++;
      while( a[j].len ){ j = (j+1) & (nNew-1); ps_nProbe++; }
      a[j] = p->aSC[i];
    }
    free(p->aSC); p->aSC = a; p->nSC = nNew;
  }
  size_t j = (size_t)h & (p->nSC-1);
  ps_nProbe++;
  while( p->aSC[j].len ){ j = (j+1) & (p->nSC-1); ps_nProbe++; }
  PpStackEnt *x = &p->aSC[j];
  x->h = h; x->off = off; x->len = (uint32_t)len; x->leaf = leaf;
  p->nSCUsed++;
  return PS_OK;
}

static int pp_sample(Pp *p, const PbField *f){
  PsCapture *cap = p->cap;
  PbMsg s = { p->z, f->off, f->off + f->len, "Sample" };
  PbField g; PsErr e; int rc, rcD = PS_OK;
  PpWhere w; memset(&w, 0, sizeof(w));
  w.ts = PS_NULL64;
  uint64_t nVal = 0, atDur = 0, atWeight = 0;
  int64_t vDur = 0, vWeight = 1;
  int bDur = 0, bWeight = 0;
  size_t idA = 0, idB = 0;            /* the location_id fields' bytes, while back to back */
  int bIdRun = 1;
  p->nRef = 0;
  if( f->len > UINT32_MAX ) return ps_err_at(p->err, (int64_t)f->off, "a Sample longer than 4 GiB");
  while( (rc = pb_next(&s, &g, &e))==PS_OK ){
    if( g.num==1 || g.num==2 ){
      if( !pp_run_field(&g) ){ pp_wt(p, &g, WT_VARINT, "Sample", g.num==1 ? "location_id" : "value", &rcD); if( rcD ) return rcD; continue; }
      PpRun r; uint64_t v, at; int x;
      if( g.num==1 ){
        if( idB==0 ) idA = g.at;
        else if( g.at!=idB ) bIdRun = 0;
        idB = s.i;
      }
      pp_run_init(&r, p->z, &g);
      while( (x = pp_run_next(&r, &v, &at))==1 ){
        if( g.num==1 ){
          if( p->nRef>=p->nRefAlloc && (ps_grow((void**)&p->aRefId, sizeof(uint64_t), &p->nRefAlloc, p->nRef+1)
                                     || ps_grow((void**)&p->aRefAt, sizeof(uint64_t), &p->nRefAtAlloc, p->nRef+1)) ) return pp_nomem(p);
          p->aRefId[p->nRef] = v; p->aRefAt[p->nRef] = at; p->nRef++;
        }else{
          if( (int64_t)nVal==p->iDur ){ vDur = (int64_t)v; bDur = 1; atDur = at; }
          if( (int64_t)nVal==p->iWeight ){ vWeight = (int64_t)v; bWeight = 1; atWeight = at; }
          nVal++;
        }
      }
      if( x<0 && pp_run_damage(p, at, g.num==1 ? "Sample.location_id" : "Sample.value") ) return PS_NOMEM;
    }else if( g.num==3 ){
      if( !pp_wt(p, &g, WT_LEN, "Sample", "label", &rcD) ){ if( rcD ) return rcD; continue; }
      if( pp_label(p, &g, &w) ) return PS_NOMEM;
    }
  }
  if( pp_sub_end(p, rc, &e, "Sample") ) return PS_NOMEM;
  if( nVal!=p->nType && pp_diag(p, PS_DIAG_OTHER, f->off, "a Sample with %llu values for %zu sample types",
                                (unsigned long long)nVal, p->nType) ) return PS_NOMEM;
  /* the stack, root first: its leaf from the cache, else from where it parts from the previous
  ** sample's stack */
  int32_t parent = -1;
  size_t idLen = bIdRun ? idB - idA : 0;
  uint64_t h = idLen ? ps_hash(p->z + idA, idLen) : 0;
  PpStackEnt *hit = 0;
  if( idLen && p->nSC ){
    size_t j = (size_t)h & (p->nSC-1);
    ps_nProbe++;
    for(; p->aSC[j].len; j = (j+1) & (p->nSC-1), ps_nProbe++){
      PpStackEnt *x = &p->aSC[j];
      if( x->h==h && x->len==idLen && memcmp(p->z + x->off, p->z + idA, idLen)==0 ){ hit = x; break; }
    }
  }
  int bKnown = 1;   /* every location exists: only such stacks are cached and followed */
  if( hit ){
    parent = hit->leaf;
    p->nPrev = 0;
  }else{
    if( ps_grow((void**)&p->aPrevId, sizeof(uint64_t), &p->nPrevIdAlloc, p->nRef)
     || ps_grow((void**)&p->aPrevRow, sizeof(int32_t), &p->nPrevRowAlloc, p->nRef) ) return pp_nomem(p);
    size_t d = 0;                     /* depth in locations, root first */
    int bSame = 1;
    for(size_t k=p->nRef; k>0; k--, d++){
      uint64_t id = p->aRefId[k-1], at = p->aRefAt[k-1];
      if( bSame && d<p->nPrev && p->aPrevId[d]==id ){ parent = p->aPrevRow[d]; continue; }
      if( bSame ){ bSame = 0; p->nPrev = d; }
      int64_t loc = pp_ids_get(&p->locIds, id);
      if( loc<0 ){
        bKnown = 0;
        if( pp_diag(p, PS_DIAG_UNKNOWN_ID, at, "Sample.location_id %llu names no Location; the frame is left out",
                    (unsigned long long)id) ) return PS_NOMEM;
        continue;
      }
      const PpLoc *L = &p->aLoc[loc];
      /* the walk is work the sample's bytes do not bound (a location of many inlined lines named
      ** again and again): counted for the interrupt poll */
      if( ps_work(&cap->src, 1 + L->nFrame) ) return ps_interrupted(p->err);
      for(size_t j=0; j<L->nFrame; j++){
        const PpFrame *fr = &p->aFrame[L->iFrame + j];
        int bNew;
        int32_t row = ps_stack_child(cap, &p->trie, parent, fr->key, fr->name, fr->cat, &bNew);
        if( row<0 ) return pp_nomem(p);
        if( bNew ){
          PsRecord *r = &cap->aRec[row];
          r->msgOff = L->off;
          if( pp_attrs(p, r, fr) ) return PS_NOMEM;
        }
        parent = row;
      }
      if( bKnown ){ p->aPrevId[d] = id; p->aPrevRow[d] = parent; p->nPrev = d+1; }
    }
    if( bSame ) p->nPrev = d;         /* the same stack, or a prefix of the previous one */
  }
  if( !hit && bKnown && parent>=0 && idLen && p->nSCUsed < PP_SC_MAX && pp_sc_add(p, h, idA, idLen, parent) ) return PS_NOMEM;
  /* the row */
  int64_t ts = w.ts!=PS_NULL64 ? w.ts : p->aScalar[9].num ? (int64_t)p->aScalar[9].v : PS_NULL64;
  int64_t dur = PS_NULL64;
  if( bDur && pp_dur(p, vDur, atDur, &dur) ) return PS_NOMEM;
  if( bWeight && vWeight<0 ){
    if( pp_diag(p, PS_DIAG_OTHER, atWeight, "the count value %lld is negative; the sample's weight is 0", (long long)vWeight) ) return PS_NOMEM;
    vWeight = 0;
  }
  int64_t th = pp_thread(p, &w);
  if( th<0 ) return pp_nomem(p);
  PsThread *t = &cap->aThread[th];
  if( w.comm && t->processName==0 ) t->processName = w.comm;
  if( w.tcomm && t->threadName==0 ) t->threadName = w.tcomm;
  int64_t row = ps_sample_add(cap, ts, dur, (uint32_t)th, parent, vWeight, f->off);
  if( row<0 ) return pp_nomem(p);
  cap->ev.aName[row] = parent>=0 ? cap->aRec[parent].name : 0;
  cap->ev.aCat[row] = p->idCat;
  cap->ev.aLen[row] = (uint32_t)f->len;
  return PS_OK;
}

static int pp_samples(Pp *p){
  PbMsg m = { p->z, 0, p->n, "Profile" };
  PbField f;
  size_t k = 0;
  if( ps_events_reserve(p->cap, p->nSample) || ps_events_want_len(p->cap) || ps_events_want_stack(p->cap) ) return pp_nomem(p);
  while( pb_next(&m, &f, 0)==PS_OK ){               /* the first walk read the top level whole */
    if( f.num!=2 || f.wt!=WT_LEN ){
      if( ps_work(&p->cap->src, 1) ) return ps_interrupted(p->err);
      continue;
    }
    if( (k++ & 0xFFF)==0 ) ps_source_done_before(&p->cap->src, f.at);
    if( ps_work(&p->cap->src, 1 + f.len) ) return ps_interrupted(p->err);
    int rc = pp_sample(p, &f);
    if( rc ) return rc;
  }
  return PS_OK;
}

/* ------------------------------------------------------------------ parse */

/* A file read as pprof by request whose top level holds none of Profile's fields is another
** message: an error, not an empty capture. */
static int pp_claim(Pp *p){
  PbMsg m = { p->z, 0, p->n, "Profile" };
  PbField f; int rc;
  while( (rc = pb_next(&m, &f, 0))==PS_OK ){
    if( f.num>=1 && f.num<=15 ) return PS_OK;
  }
  if( rc!=3 || p->n==0 ) return PS_OK;              /* damaged bytes: the first walk says where */
  return ps_err_at(p->err, 0, "none of the fields of perftools.profiles.Profile (1 sample_type .. "
                   "15 doc_url) is in the file: it is another message");
}

/* The lazy args column's tables, in the arena (cap->pFmtData). */
static int pp_args_tables(Pp *p, PpArgs *a){
  PsCapture *cap = p->cap;
  PpStr *aStr = ps_arena_alloc(&cap->arena, (p->nStr ? p->nStr : 1) * sizeof(PpStr));
  PpArgs *pA = ps_arena_alloc(&cap->arena, sizeof(PpArgs));
  if( aStr==0 || pA==0 ) return pp_nomem(p);
  if( p->nStr ) memcpy(aStr, p->aStr, p->nStr * sizeof(PpStr));
  *pA = *a;
  pA->aStr = aStr; pA->nStr = p->nStr;
  cap->pFmtData = pA;
  return PS_OK;
}

static void pp_free(Pp *p){
  free(p->aStr); free(p->aStrId); free(p->aRole); free(p->aType); free(p->aFunc); free(p->aMap);
  free(p->aLoc); free(p->aLine); free(p->aFrame); free(p->aRefId); free(p->aRefAt); free(p->aComment);
  free(p->aUnknown); free(p->aSC); free(p->aPrevId); free(p->aPrevRow);
  pp_ids_free(&p->fnIds); pp_ids_free(&p->mapIds); pp_ids_free(&p->locIds);
  ps_buf_free(&p->buf);
  ps_stack_trie_free(&p->trie);
}

static int pprof_parse(PsCapture *cap, PsErr *err){
  Pp p;
  memset(&p, 0, sizeof(p));
  p.cap = cap; p.err = err;
  p.z = (const uint8_t*)cap->src.z; p.n = cap->src.n;
  p.thLast = -1;
  PpArgs a; memset(&a, 0, sizeof(a));
  int rc;
  if( (rc = pp_claim(&p)) || (rc = pp_scan(&p)) ) goto out;
  if( (p.idEmpty = ps_pool_intern(&cap->pool, "", 0, 0))==0 ){ rc = pp_nomem(&p); goto out; }
  if( p.nStr && p.aStr[0].n
   && (rc = pp_diag(&p, PS_DIAG_OTHER, p.aStr[0].off, "string_table[0] holds %llu bytes; it must be '' "
                    "and index 0 reads as ''", (unsigned long long)p.aStr[0].n)) ) goto out;
  if( (rc = pp_roles(&p))
   || (rc = pp_ids_build(&p, &p.fnIds, p.aFunc, sizeof(PpFunc), p.nFunc, "Function"))
   || (rc = pp_ids_build(&p, &p.mapIds, p.aMap, sizeof(PpMapping), p.nMap, "Mapping"))
   || (rc = pp_ids_build(&p, &p.locIds, p.aLoc, sizeof(PpLoc), p.nLoc, "Location"))
   || (rc = pp_functions(&p)) || (rc = pp_frames(&p)) || (rc = pp_types(&p, &a)) || (rc = pp_meta(&p))
   || (rc = pp_samples(&p)) || (rc = ps_stacks_finish(cap, 0, err)) ) goto out;
  rc = pp_args_tables(&p, &a);
out:
  pp_free(&p);
  return rc;
}

static int pprof_probe(const char *z, size_t n){
  int s;
  if( ps_protobuf_fit(z, n, &s)!=&pb_pprof_Profile ) return 0;
  return s>=3 ? 4 : 2;
}

/* ------------------------------------------------------------------ args */

typedef struct PpLab { int64_t key, str, num, unit; size_t pos, first; } PpLab;
/* by key, then file order */
static int pp_lab_cmp(const void *x, const void *y){
  const PpLab *a = x, *b = y;
  if( a->key!=b->key ) return a->key < b->key ? -1 : 1;
  return a->pos < b->pos ? -1 : (a->pos > b->pos);
}
/* by the first appearance of the key, then file order: keys come out in file order */
static int pp_lab_cmp_first(const void *x, const void *y){
  const PpLab *a = x, *b = y;
  if( a->first!=b->first ) return a->first < b->first ? -1 : 1;
  return a->pos < b->pos ? -1 : (a->pos > b->pos);
}

static int pp_args_key(PsBuf *b, const PpArgs *a, const uint8_t *z, int64_t key){
  if( key>=0 && (uint64_t)key < (a->nStr ? a->nStr : 1) ) return pp_json_str(b, z, a->aStr, a->nStr, key);
  return pp_put_i(b, "\"#%lld\"", (long long)key);
}

/* One member per key of aL (grouped): key: value, or key: [values] for a key given more than
** once; bUnit: the num_unit members instead (keys without any unit left out). */
static int pp_args_group(PsBuf *b, const PpArgs *a, const uint8_t *z, const PpLab *aL, size_t nL, int bUnit){
  int rc = 0, nOut = 0;
  for(size_t i=0, j; i<nL && !rc; i=j){
    int bAny = 0;
    for(j=i; j<nL && aL[j].key==aL[i].key; j++) bAny |= aL[j].unit!=0;
    if( bUnit && !bAny ) continue;
    rc = (nOut++ ? pp_put(b, ",") : 0) || pp_args_key(b, a, z, aL[i].key) || pp_put(b, j-i>1 ? ":[" : ":");
    for(size_t k=i; k<j && !rc; k++){
      if( k>i ) rc = pp_put(b, ",");
      if( bUnit ) rc = rc || (aL[k].unit ? pp_json_str(b, z, a->aStr, a->nStr, aL[k].unit) : pp_put(b, "null"));
      else if( aL[k].str ) rc = rc || pp_json_str(b, z, a->aStr, a->nStr, aL[k].str);
      else rc = rc || pp_put_i(b, "%lld", (long long)aL[k].num);
    }
    if( j-i>1 ) rc = rc || pp_put(b, "]");
  }
  return rc;
}

/* The labels of a sample: "labels": {...}[, "num_unit": {...}] members, keys in file order. */
static int pp_args_labels(PsBuf *b, const PpArgs *a, const uint8_t *z, PpLab *aL, size_t nL, int bComma){
  int bUnit = 0;
  qsort(aL, nL, sizeof(PpLab), pp_lab_cmp);
  for(size_t i=0, j; i<nL; i=j){
    for(j=i; j<nL && aL[j].key==aL[i].key; j++){ aL[j].first = aL[i].pos; bUnit |= aL[j].unit!=0; }
  }
  qsort(aL, nL, sizeof(PpLab), pp_lab_cmp_first);
  if( pp_put(b, bComma ? ",\"labels\":{" : "\"labels\":{") || pp_args_group(b, a, z, aL, nL, 0) || pp_put(b, "}") ) return 1;
  if( !bUnit ) return 0;
  return pp_put(b, ",\"num_unit\":{") || pp_args_group(b, a, z, aL, nL, 1) || pp_put(b, "}");
}

/* The args of sample row: its values by sample type and its labels, from the Sample's bytes. */
static int pp_args(const PpArgs *a, const uint8_t *z, size_t off, size_t len, PsBuf *b){
  PpLab *aL = 0; size_t nL = 0, nLAlloc = 0;
  uint64_t nVal = 0;
  int rc = pp_put(b, "{");
  PbMsg s = { z, off, off + len, "Sample" };
  PbField g;
  while( !rc && pb_next(&s, &g, 0)==PS_OK ){
    if( g.num==2 && pp_run_field(&g) ){
      PpRun r; uint64_t v, at;
      pp_run_init(&r, z, &g);
      while( !rc && pp_run_next(&r, &v, &at)==1 ){
        rc = (nVal ? pp_put(b, ",") : 0)
          || (nVal < a->nType ? pp_put(b, a->azKey[nVal]) : pp_put_u(b, "\"#%llu\"", (unsigned long long)nVal))
          || pp_put_i(b, ":%lld", (long long)(int64_t)v);
        nVal++;
      }
    }else if( g.num==3 && g.wt==WT_LEN ){
      if( ps_grow((void**)&aL, sizeof(PpLab), &nLAlloc, nL+1) ){ rc = 1; break; }
      PpLab *x = &aL[nL];
      memset(x, 0, sizeof(*x));
      x->pos = nL++;
      PbMsg t = { z, g.off, g.off + g.len, "Label" };
      PbField h;
      while( pb_next(&t, &h, 0)==PS_OK ){
        if( h.wt!=WT_VARINT ) continue;
        if( h.num==1 ) x->key = (int64_t)h.v; else if( h.num==2 ) x->str = (int64_t)h.v;
        else if( h.num==3 ) x->num = (int64_t)h.v; else if( h.num==4 ) x->unit = (int64_t)h.v;
      }
    }
  }
  if( !rc && nL ) rc = pp_args_labels(b, a, z, aL, nL, nVal>0);
  free(aL);
  return rc || pp_put(b, "}") ? PS_NOMEM : PS_OK;
}

static int pprof_column(const PsCapture *cap, size_t row, int iCol, PsOut *o){
  memset(o, 0, sizeof(*o));
  if( iCol!=PS_COL_ARGS || cap->ev.aLen==0 ) return PS_OK;
  const uint8_t *z = (const uint8_t*)cap->src.z;
  size_t off = (size_t)cap->ev.aOff[row], len = cap->ev.aLen[row];
  const PpArgs *a = (const PpArgs*)cap->pFmtData;
  PsBuf b = {0, 0, 0};
  if( a==0 ) return PS_OK;
  if( pp_args(a, z, off, len, &b) ){ ps_buf_free(&b); return PS_NOMEM; }
  o->type = PS_META_JSON; o->z = b.z ? b.z : "{}"; o->n = b.z ? b.n : 2; o->zFree = b.z;
  return PS_OK;
}

const PsFormat ps_format_pprof = { "pprof", pprof_probe, pprof_parse, pprof_column, 0 };
