/*
** json.h — JSON lexing primitives (RFC 8259) shared by the JSON-based format parsers
** (Chrome Trace Event Format now; the newengine report later). They work on a byte range
** z[0..n) that need not be NUL-terminated and never read past n.
**
** The parsers drive the structure themselves and use these to
**   - skip a whole value while validating it (strings, numbers, literals, nesting up to
**     PS_JSON_MAX_DEPTH levels: deeper input is an error, never a stack overflow);
**   - read a string, decoding escapes (incl. \uXXXX surrogate pairs) only when present;
**   - read a number as an exact decimal (mantissa, exponent) so that microseconds convert
**     to integer nanoseconds without binary floating-point error.
** Every failure is reported as PS_ERROR with "byte N: expected ..." in the PsErr.
*/
#ifndef PS_JSON_H
#define PS_JSON_H

#include "../util/ps_util.h"

#define PS_JSON_MAX_DEPTH 10000
/* The nesting limit in force in this thread (1..PS_JSON_MAX_DEPTH; default PS_JSON_MAX_DEPTH).
** Thread-local, never process-wide: ps_capture_load sets it from PsSource.maxJsonDepth (the
** loading connection's profsql_config('max_json_depth')) for the parse and restores it after, and
** every thread of a split parse sets its own from the same source. */
extern _Thread_local int ps_json_depth_limit;

/* Character classes: bit 1 whitespace, bit 2 "string content byte needing attention"
** ('"', '\\' or a control character). */
extern const unsigned char ps_json_cls[256];
#define PS_JSON_WS(c)   (ps_json_cls[(unsigned char)(c)] & 1)

static inline size_t ps_json_ws(const char *z, size_t n, size_t i){
  if( i<n && (unsigned char)z[i] > ' ' ) return i;     /* the common case: no whitespace */
  while( i<n && PS_JSON_WS(z[i]) ) i++;
  return i;
}

/* ---- writing JSON */
/* v as serde_json writes an f64 (the ryu crate's format64): the shortest decimal that reads back
** as v (round to nearest, ties to even among the shortest), laid out as
**   0.0 / -0.0,  1.0 and 12340000000.0 (integers below 1e16 keep ".0"),  12.34,
**   0.001234 (down to 1e-5),  1e16, 1.2345678901234568e17, 1e-7, 5e-324 (exponent: no '+',
**   no leading zeros);
** NaN and infinities as "null" (serde_json writes them as null). buf holds PS_FLOAT_BUF bytes;
** returns the length (NUL-terminated). Python's repr() gives the same digits but puts
** exponents as '1e-07' / '1e+16' and switches to them at 1e-5 instead of below it. */
#define PS_FLOAT_BUF 32
size_t ps_fmt_float(char *buf, double v);

/* z[0..n) as a JSON string the serde_json way: '"' and '\\' escaped, \b \f \n \r \t, other
** control characters as \u00XX (lower-case hex), everything else (UTF-8, '/', DEL) as it is.
** Text that breaks the text rule (a character cut in two, invalid UTF-8, a NUL) is written
** repaired (ps_text_repair: U+FFFD), so the output is always valid JSON in valid UTF-8; so is
** every string ps_json_pretty writes. -1 when out of memory. */
int ps_json_serde_string(PsBuf *b, const char *z, size_t n);

/* Appends z[0..n) as a JSON string literal (quotes, escapes for '"', '\\' and control
** characters). Text that breaks the text rule (ps_util.h) is written repaired; *pBad (if not
** NULL) = offset in z of its first bad byte, left alone when there is none. 0 ok, -1 nomem. */
int ps_json_quote(PsBuf *b, const char *z, size_t n, size_t *pBad);
/* d in the shortest decimal form that reads back as the same double ("0.1", "2.977057142857143",
** "1e+300"; at most 17 significant digits); a float (bFloat) in the shortest form that reads
** back as the same float. NaN and infinities give "NaN", "Infinity", "-Infinity" (callers quote
** them: they are not JSON numbers). buf holds at least 32 bytes; returns its length. */
int ps_fmt_double(double d, int bFloat, char *buf);

/* ---- leniency: what trace_processor and the Perfetto UI read but RFC 8259 forbids
** Off by default: every reader stays strict unless it sets ps_json_lenient, which is
** thread-local like ps_json_depth_limit (only the Chrome reader sets it, for its parse, the
** threads of its split parse and its lazy columns, and puts back what was there). While set,
** every function here (skip, member / element walks, key lookup, string reading) also reads
**   - a trailing comma: a ',' directly before ']' or '}' (whitespace between allowed), after at
**     least one member (never "[,]" or "{,}", never two commas), read as if absent;
**   - a raw control character (0x00-0x1f) inside a string, kept as it is (ps_json_string
**     decodes it to itself; a NUL then meets the text rule where the string is stored);
** and calls xNote (when not NULL) once per reading of each, with its byte offset. The checks sit
** where strict reading fails (ps_json_elem aside, which compares the byte after each ',' with
** ']'), and the thread-local is read only there: strict input costs no more work per byte.
** ps_json_normalize turns what was read leniently into RFC 8259 text. */
#define PS_JSON_LENIENT_COMMA 1    /* off: the ','; c: the ']' or '}' after it */
#define PS_JSON_LENIENT_CTRL  2    /* off: the control character; c: its value */
typedef struct PsJsonLenient {
  void (*xNote)(void *pArg, int kind, size_t off, int c);
  void *pArg;
} PsJsonLenient;
extern _Thread_local const PsJsonLenient *ps_json_lenient;

/* The value z[0..n) (valid JSON under the lenient reading) as RFC 8259 text: its trailing commas
** dropped and the raw control characters of its strings escaped as \u00XX (lower-case hex),
** every other byte as it is. 0 when z already is such text (b untouched); 1 when the rewritten
** text was appended to b; -1 when out of memory. Linear: one pass, each byte looked at at most
** twice (the whitespace after a comma). */
int ps_json_normalize(const char *z, size_t n, PsBuf *b);

/* Skips the value starting at *pi (after whitespace). On success *pi is just past it. */
int ps_json_skip(const char *z, size_t n, size_t *pi, PsErr *err);
/* The same, calling xPoll(pArg, nBytes) after about every PS_JSON_POLL_STEP bytes skipped (the
** caller's interrupt check: a whole document checked before its parse, a gigabyte of it, must be
** stoppable); a non-zero answer stops the skip: PS_ERROR with err "interrupted", err->rc
** PS_INTERRUPT. */
#define PS_JSON_POLL_STEP ((size_t)1 << 16)
int ps_json_skip_poll(const char *z, size_t n, size_t *pi, PsErr *err,
                      int (*xPoll)(void*, size_t), void *pArg);

/* Reads the string whose opening quote is at *pi. Sets *pz,*pn to the decoded bytes: a pointer
** into z when the string has no escapes, else into scratch (valid until its next use).
** *pi ends past the closing quote. Raw control characters (unless ps_json_lenient) and bad
** escapes are errors; a lone surrogate escape decodes to U+FFFD. */
int ps_json_string(const char *z, size_t n, size_t *pi, PsBuf *scratch,
                   const char **pz, size_t *pn, PsErr *err);

/* An exact decimal number: value = (neg ? -1 : 1) * mant * 10^exp10, where mant holds the first
** 19 significant digits; bInexact is set when further non-zero digits were dropped. */
typedef struct PsDec {
  uint64_t mant;
  int32_t exp10;
  uint8_t neg;
  uint8_t bInexact;
  uint8_t bInt;          /* literal had no fraction and no exponent */
  uint8_t bDropped;      /* digits beyond the 19th were dropped (whatever their value) */
} PsDec;

/* Parses the JSON number at *pi (strict grammar). *pi ends past it. */
int ps_json_number(const char *z, size_t n, size_t *pi, PsDec *d, PsErr *err);

/* Parses a whole byte range as a number (for numbers written as strings: "ts":"1155").
** Leading/trailing spaces are not allowed. Returns 0 on success, -1 if not a number. */
int ps_dec_parse(const char *z, size_t n, PsDec *d);

/* round(value * 10^scale) to nearest, ties away from zero, into *pOut.
** Returns 0, or -1 when the result does not fit in int64. */
int ps_dec_scale(const PsDec *d, int scale, int64_t *pOut);

/* If the value is an integer that fits in int64 exactly, stores it and returns 0; else -1. */
int ps_dec_int64(const PsDec *d, int64_t *pOut);

/* Within the object whose '{' is at z[i], finds key zKey (raw, unescaped comparison of keys
** without escapes) and sets *pv to the offset of its value. Returns 1 found, 0 not found,
** -1 on malformed input. A key given more than once: the last one (as JSON.parse and Python's
** json read it), so the whole object is read. For lazy column extraction from
** already-validated objects. */
int ps_json_find_key(const char *z, size_t n, size_t i, const char *zKey, size_t *pv);

/* The same for text a parse has validated already (the lazy columns re-reading a capture's
** events): values are stepped over without being checked — strings to their closing quote,
** objects and arrays by their brackets — so what a lenient parse accepted (a trailing comma, a
** raw control character) reads as it did then. Never reads past n; on bytes that are not JSON
** it returns -1 or a value's offset that may be wrong, never more. */
int ps_json_find_key_valid(const char *z, size_t n, size_t i, const char *zKey, size_t *pv);
/* The same for several keys in one walk: aV[k] = the offset of key azKey[k]'s value (its last
** occurrence), (size_t)-1 when absent. Returns how many of the keys were found, -1 as above. */
int ps_json_find_keys_valid(const char *z, size_t n, size_t i, const char *const *azKey, int nKey, size_t *aV);
/* Steps over the validated value at *pi (as ps_json_find_key_valid): 0; -1 when *pi is at the end
** of z or an object or array is not closed before it (a string or a scalar cut short ends at n). */
int ps_json_skip_valid(const char *z, size_t n, size_t *pi);

/* ---- walking an object or an array member by member */
/* A member of an object: its key's opening quote at q, the key's kn bytes as written (escapes
** undecoded), its value [v, e) (e 0 when the value was not skipped). */
typedef struct PsJsonMember { size_t q, kn, v, e; } PsJsonMember;
/* The next member of the object whose '{' precedes *pi (start just past the '{'; k = members
** read so far, so a ',' is required before every member but the first). Returns 1 with *m and
** *pi past its value (bSkip: the value skipped and validated with ps_json_skip) or at its first
** byte (bSkip 0), 0 at the '}' (*pi past it), -1 on bytes that are not JSON, with err (may be
** NULL) set "byte N: expected ...". One walker for every JSON reader (chrome.c, cpuprofile.c,
** speedscope.c, datatable.c). */
int ps_json_member(const char *z, size_t n, size_t *pi, size_t k, PsJsonMember *m, int bSkip, PsErr *err);
/* The same for element k of an array: 1 with *pi at the element's first byte (not skipped), 0 at
** the ']' (*pi past it), -1 with err set. */
int ps_json_elem(const char *z, size_t n, size_t *pi, size_t k, PsErr *err);

/* ---- the text rule (ps_util.h) for strings decoded from JSON */
/* The source offset of byte k of the string whose opening quote is at z[iQuote], as
** ps_json_string decodes it (the bytes an escape decodes to map to its backslash). */
size_t ps_json_string_offset(const char *z, size_t n, size_t iQuote, size_t k);
/* The bytes of an object key a metadata key keeps (ps_json_key_text, json_model.h), and the
** buffer that holds it under the text rule. */
#define PS_JSON_KEY_MAX 120
#define PS_JSON_KEY_BUF (3*PS_JSON_KEY_MAX + 1)

/* ---- duplicate keys: one rule for every JSON format, the last occurrence of a key in an
** object wins (JSON.parse, Python's json); each later occurrence a parser sees while loading
** adds a 'duplicate_key' diagnostic. Keys are compared as their raw bytes, as
** ps_json_find_key compares them. */
typedef struct PsJsonKeySlot {
  uint64_t gen;               /* the object it belongs to (PsJsonKeys.gen when current) */
  size_t off, len;            /* the key's bytes in the source, without quotes */
  uint32_t val;               /* the caller's value for its last occurrence */
} PsJsonKeySlot;
/* The keys of the object being read (zero-initialise; ps_json_keys_reset per object). */
typedef struct PsJsonKeys { PsJsonKeySlot *a; size_t nSlot, nUsed; uint64_t gen; } PsJsonKeys;
void ps_json_keys_reset(PsJsonKeys *k);
void ps_json_keys_free(PsJsonKeys *k);
/* Notes the key z[off..off+len) with value val. Returns 0 when it is new in the object, 1 when
** it was seen before (*pPrev, *pPrevOff: the value and offset of its previous occurrence; the
** entry now holds this one), -1 when out of memory. */
int ps_json_keys_put(PsJsonKeys *k, const char *z, size_t off, size_t len, uint32_t val,
                     uint32_t *pPrev, size_t *pPrevOff);

#endif
