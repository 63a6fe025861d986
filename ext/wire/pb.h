/*
** pb.h — the one protobuf wire-format reader of libprofsql, and the schema tables that let it
** turn any described message into JSON, check it, and tell messages apart by content.
**
** Readers: ext/formats/xspace.c (XSpace), ext/formats/xprof.c (the TensorFlow profiler's result messages).
** The wire rules followed: https://protobuf.dev/programming-guides/encoding/ — varints of at
** most 10 bytes, wire types 0 (varint), 1 (fixed64), 2 (length-delimited), 5 (fixed32); groups
** (3, 4) are refused. Every length must fit inside the message that holds it ("length N runs past
** the end of X"), so a nested message can never be read past its parent. Errors name the byte
** offset (PsErr.off) and the message being read.
**
** Nothing here includes SQLite.
*/
#ifndef PS_PB_H
#define PS_PB_H

#include "../util/ps_util.h"
#include "json.h"
#include <stdint.h>
#include <string.h>

#define WT_VARINT 0
#define WT_I64    1
#define WT_LEN    2
#define WT_I32    5

/* A message being decoded: bytes [i, end) of z; zMsg names it in errors. */
typedef struct PbMsg {
  const uint8_t *z;
  size_t i, end;
  const char *zMsg;
} PbMsg;

/* One field as read: its number, wire type, value (varint / fixed) or payload [off, off+len). */
typedef struct PbField {
  uint32_t num;
  int wt;
  uint64_t v;
  size_t off, len;
  size_t at;                  /* offset of the tag */
} PbField;

int pb_varint_slow(const uint8_t *z, size_t end, size_t *pi, uint64_t *pv, const char *zMsg, PsErr *err);

/* A varint of at most 8 bytes at z[i] read as one word, when 8 bytes remain before end: its value
** into *pv and its length; 0 when fewer remain or none of the 8 bytes ends it (a longer varint):
** the caller then reads it byte by byte. The 7-bit groups are joined by three mask-and-shift steps instead of a loop of up to
** 8 rounds (an XEvent's offset_ps and duration_ps take 4 to 6 bytes each). Little-endian hosts
** only; elsewhere always 0. */
static inline unsigned pb_varint_word(const uint8_t *z, size_t i, size_t end, uint64_t *pv){
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__==__ORDER_LITTLE_ENDIAN__
  if( i>=end || end - i < 8 ) return 0;
  uint64_t w;
  memcpy(&w, z + i, 8);
  uint64_t stop = ~w & 0x8080808080808080ull;        /* the bytes without a continuation bit */
  if( stop==0 ) return 0;
  unsigned len = ((unsigned)__builtin_ctzll(stop) >> 3) + 1;
  if( len<8 ) w &= ((uint64_t)1 << (8*len)) - 1;
  w = ((w & 0x7F007F007F007F00ull) >> 1) | (w & 0x007F007F007F007Full);   /* 14 bits per 16 */
  w = ((w & 0x3FFF00003FFF0000ull) >> 2) | (w & 0x00003FFF00003FFFull);   /* 28 bits per 32 */
  w = ((w & 0x0FFFFFFF00000000ull) >> 4) | (w & 0x000000000FFFFFFFull);   /* 56 bits */
  *pv = w;
  return len;
#else
  (void)z; (void)i; (void)end; (void)pv;
  return 0;
#endif
}

/* Reads a varint at *pi (bytes before end). err may be NULL (a probe). */
static inline int pb_varint(const uint8_t *z, size_t end, size_t *pi, uint64_t *pv, const char *zMsg, PsErr *err){
  size_t i = *pi;
  if( i+1<end ){
    if( z[i]<0x80 ){ *pv = z[i]; *pi = i+1; return PS_OK; }
    if( z[i+1]<0x80 ){ *pv = (uint64_t)(z[i]&0x7F) | (uint64_t)z[i+1]<<7; *pi = i+2; return PS_OK; }
  }
  return pb_varint_slow(z, end, pi, pv, zMsg, err);
}

/* Reads the next field of m. Returns PS_OK with f filled, PS_ERROR (err set; err may be NULL),
** or 3 at the end. */
static inline int pb_next(PbMsg *m, PbField *f, PsErr *err){
  if( m->i >= m->end ) return 3;
  f->at = m->i;
  uint64_t tag = 0;
  if( pb_varint(m->z, m->end, &m->i, &tag, m->zMsg, err) ) return PS_ERROR;
  f->num = (uint32_t)(tag >> 3);
  f->wt = (int)(tag & 7);
  if( f->num==0 || (tag>>3) > 0x1FFFFFFF ){
    if( err ) ps_err_at(err, (int64_t)f->at, "invalid field number in %s", m->zMsg);
    return PS_ERROR;
  }
  switch( f->wt ){
    case WT_VARINT: return pb_varint(m->z, m->end, &m->i, &f->v, m->zMsg, err);
    case WT_I64:
      if( m->end - m->i < 8 ){ if( err ) ps_err_at(err, (int64_t)m->i, "truncated fixed64 in %s", m->zMsg); return PS_ERROR; }
      memcpy(&f->v, m->z + m->i, 8); m->i += 8;
      return PS_OK;
    case WT_I32: {
      if( m->end - m->i < 4 ){ if( err ) ps_err_at(err, (int64_t)m->i, "truncated fixed32 in %s", m->zMsg); return PS_ERROR; }
      uint32_t w; memcpy(&w, m->z + m->i, 4); m->i += 4; f->v = w;
      return PS_OK;
    }
    case WT_LEN: {
      uint64_t len = 0; size_t at = m->i;
      if( pb_varint(m->z, m->end, &m->i, &len, m->zMsg, err) ) return PS_ERROR;
      if( len > m->end - m->i ){
        if( err ) ps_err_at(err, (int64_t)at, "length %llu runs past the end of %s (%llu byte%s left)",
                            (unsigned long long)len, m->zMsg, (unsigned long long)(m->end - m->i),
                            m->end - m->i == 1 ? "" : "s");
        return PS_ERROR;
      }
      f->off = m->i; f->len = (size_t)len; m->i += (size_t)len;
      return PS_OK;
    }
    default:
      if( err ) ps_err_at(err, (int64_t)f->at, "wire type %d of field %u is not supported in %s", f->wt, f->num, m->zMsg);
      return PS_ERROR;
  }
}


/* PS_OK when f has wire type wt, else an error "field <zField> of <zMsg> has wire type ...". */
int pb_want(const PbField *f, int wt, const char *zField, const char *zMsg, PsErr *err);

/* The sub-message held by the length-delimited field f of m. */
static inline PbMsg pb_sub(const PbMsg *m, const PbField *f, const char *zMsg){
  PbMsg s = { m->z, f->off, f->off + f->len, zMsg };
  return s;
}

/* ps -> ns rounded half away from zero, exact for every int64. */
int64_t pb_ps_to_ns(int64_t ps);

/* ------------------------------------------------------------------ schemas
** A message's fields as its .proto declares them. The tables in ext/formats/xprof.c and ext/formats/xspace.c
** are transcribed from the .proto files they cite; field names are the .proto names. */
enum {
  PB_DOUBLE = 1, PB_FLOAT, PB_INT64, PB_UINT64, PB_INT32, PB_UINT32, PB_SINT64, PB_SINT32,
  PB_FIXED64, PB_FIXED32, PB_SFIXED64, PB_SFIXED32, PB_BOOL, PB_ENUM, PB_STRING, PB_BYTES,
  PB_MESSAGE,                 /* pSub; a map<K,V> is a repeated PB_MESSAGE whose pSub->bMap is 1 */
  PB_ANY                      /* google.protobuf.Any {type_url = 1, value = 2} */
};

typedef struct PbMsgDef PbMsgDef;
typedef struct PbFieldDef {
  uint32_t num;
  const char *zName;
  uint8_t type;               /* PB_* */
  uint8_t bRepeated;
  const PbMsgDef *pSub;       /* PB_MESSAGE */
  const char *const *azEnum;  /* PB_ENUM: names by value (NULL-terminated), or NULL */
} PbFieldDef;

struct PbMsgDef {
  const char *zName;          /* full name, "tensorflow.profiler.TfStatsRecord" */
  const PbFieldDef *aField;
  int nField;
  uint8_t bMap;               /* a map entry: key = field 1, value = field 2 */
  const char *zShort;         /* the name errors use ("TfStatsRecord"); NULL: after the last '.' */
};

/* The message an Any's type URL names ("type.googleapis.com/<full name>"): looked up in a
** NULL-terminated list of known messages. NULL when unknown. */
typedef struct PbRegistry { const PbMsgDef *const *ap; } PbRegistry;
const PbMsgDef *pb_registry_find(const PbRegistry *r, const char *zUrl, size_t nUrl);

/* Checks message [off, off+len) of z against pDef all the way down (wire types of known
** fields, lengths, nested messages, Any payloads of known types), as a parse does before any
** row is made, so that a later pb_json of the same bytes cannot fail. zMsg names the message.
** PS_OK or PS_ERROR with err naming the byte offset and the field. */
int pb_check(const uint8_t *z, size_t off, size_t len, const PbMsgDef *pDef, const PbRegistry *r, PsErr *err);

/* pb_check for one field f read from a message of schema d (its wire type, and what it holds all
** the way down): for a reader that walks a message itself and checks as it goes. */
int pb_check_field(const uint8_t *z, const PbMsgDef *d, const PbField *f, const PbRegistry *r, PsErr *err);

/* Appends message [off, off+len) of z as JSON to b, by these rules (proto3's JSON mapping with
** the .proto field names): fields in declaration order; an absent scalar is written with its
** default (0, false, ""; proto2 messages too, as protobuf's MessageToDict with
** including_default_value_fields does); an absent sub-message is left out; repeated
** fields and maps are [] / {} when empty; 64-bit integers are JSON numbers; doubles and floats
** in the shortest form that reads back to the same value, NaN / infinities as the strings
** "NaN", "Infinity", "-Infinity"; enums by name (number when unknown); bytes as base64; maps as
** objects keyed by the key as text; an Any as {"@type": url, ...the unpacked message's fields}
** when r knows the type, else {"@type": url, "value": "<base64>"}; a field the schema does not
** know as "#<number>": its value (varint/fixed as a number, length-delimited as base64). A
** singular field given twice: the last one is used (a message: the last one). Strings obey the
** text rule (invalid UTF-8 written as U+FFFD); *pBad (if not NULL) = offset of the first such
** byte, left alone when none.
** Returns PS_OK or PS_NOMEM; bytes that pb_check accepted are always rendered. */
int pb_json(const uint8_t *z, size_t off, size_t len, const PbMsgDef *pDef, const PbRegistry *r,
            PsBuf *b, int64_t *pBad);
/* An Any message [off, off+len) as pb_json writes it; bType 0 leaves out the "@type" member of a
** payload r knows (the caller knows the type). */
int pb_json_any(const uint8_t *z, size_t off, size_t len, const PbRegistry *r, int bType, PsBuf *b, int64_t *pBad);

/* Only the value of field num of message [off, off+len), by the rules of pb_json: a singular
** field's last occurrence (absent: its default, {} for a message), a repeated field's array, a
** map's object; "null" when pDef has no such field. PS_OK or PS_NOMEM. */
int pb_json_field(const uint8_t *z, size_t off, size_t len, const PbMsgDef *pDef, uint32_t num,
                  const PbRegistry *r, PsBuf *b, int64_t *pBad);
/* The schema's field num, or NULL. */
const PbFieldDef *pb_def_field(const PbMsgDef *pDef, uint32_t num);

/* How well the bytes fit pDef, for detection: walks at most nBudget fields from the start
** (nested ones included). Returns -1 on a wire type a known field cannot have, a malformed
** varint, a length past its parent (a length past the end of the whole input is taken as a
** cut-short file and ends the walk), a string field that is not UTF-8, or more unknown fields
** than known ones; else the number of distinct (message, field) pairs seen — a schema that
** explains more of the structure scores higher. */
int pb_fit(const uint8_t *z, size_t n, const PbMsgDef *pDef, const PbRegistry *r, int nBudget);

/* One field of message [off, off+len): the last occurrence of field num with wire type wt
** (*pf filled, returns 1), or 0 when absent. The bytes must have passed pb_check. */
int pb_get(const uint8_t *z, size_t off, size_t len, uint32_t num, int wt, PbField *pf);
/* The wire type a (non-packed) value of PB_* type t has. */
int pb_type_wt(int t);

/* A double / float / signed field value from a PbField. */
static inline double pb_double(const PbField *f){ double d; memcpy(&d, &f->v, 8); return d; }

#endif
