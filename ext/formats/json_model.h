/*
** json_model.h — the JSON readers' bridge onto the capture model: a JSON value as a metadata row,
** a decoded string interned with its 'invalid_text' diagnostic, an object key as a metadata key,
** a repeated key's diagnostic. The JSON lexer (ext/wire/json.h) knows nothing of the model; the
** readers of this layer (chrome.c, cpuprofile.c, speedscope.c, datatable.c, jobs.c, ...) reach
** the model for what they read through these (json_model.c).
*/
#ifndef PS_JSON_MODEL_H
#define PS_JSON_MODEL_H
#include "../wire/json.h"
#include "../model/capture.h"

/* ---- a JSON value as a profile_metadata row */
/* The value [v, e) of zJson (already validated) as a metadata row (zScope, zKey) at offset v: a
** string as TEXT (decoded; a string that breaks the text rule gets the 'invalid_text' diagnostic
** naming "<zScope> '<zKey>'"), an integer as INTEGER (beyond int64: its digits as TEXT, exact),
** another number as REAL, true/false as 1/0, null as NULL, an object or array as JSON text.
** scratch holds decoded strings. PS_OK, PS_ERROR or PS_NOMEM (err set). One rule for every JSON
** reader's metadata (cpuprofile.c, speedscope.c, datatable.c). */
int ps_json_meta_value(PsCapture *cap, const char *zJson, size_t nJson, size_t v, size_t e,
                       const char *zScope, const char *zKey, PsBuf *scratch, PsErr *err);

/* ps_intern (capture.h) for the string z[0..n) that ps_json_string read from zJson at iQuote:
** the 'invalid_text' diagnostic names the source byte that became the first bad byte.
** PS_OK or PS_NOMEM. */
int ps_json_intern(PsCapture *cap, const char *zJson, size_t nJson, size_t iQuote,
                   const char *z, size_t n, const char *zField, uint32_t *pId);
/* Only the diagnostic, for a decoded string stored elsewhere: a metadata value (pass
** ps_meta_text a copy, which it stores repaired without a second diagnostic). PS_OK or
** PS_NOMEM. */
int ps_json_text_diag(PsCapture *cap, const char *zJson, size_t nJson, size_t iQuote,
                      const char *z, size_t n, const char *zField);
/* An object key k[0..kn) that ps_json_string read at iQuote, as a C string for a metadata key,
** into buf (PS_JSON_KEY_BUF bytes): its first PS_JSON_KEY_MAX bytes (cut before a character)
** under the text rule, so a NUL becomes U+FFFD rather than the end of the key; a key that
** breaks the rule also gets the 'invalid_text' diagnostic. PS_OK or PS_NOMEM. */
int ps_json_key_text(PsCapture *cap, const char *zJson, size_t nJson, size_t iQuote,
                     const char *k, size_t kn, char *buf);

/* The 'duplicate_key' diagnostic for the key z[keyOff..keyOff+keyLen) (its bytes; the quote is
** at keyOff-1) seen again in zWhere ("an event") after the one at prevOff. PS_OK or PS_NOMEM. */
int ps_json_dup_diag(PsCapture *cap, const char *z, size_t keyOff, size_t keyLen, size_t prevOff,
                     const char *zWhere);

#endif
