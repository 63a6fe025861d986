/*
** writer.h — output files for the report writers, without SQLite: a growable text buffer,
** the StarProfiler's CSV cell quoting, Markdown cell escaping, JSON re-indentation, files
** written under a temporary name and renamed into place, and ZIP archives (zlib's minizip).
**
** Safety rules every writer follows (writer.c says how):
**   - only a regular file is ever replaced: a device, FIFO, socket, directory or symbolic link at
**     the target is an error naming it, and nothing is written;
**   - a file is written to "<dir>/.<name>.tmp.<hex>" in the same directory (for a name of over
**     237 bytes, ".<its first 200 bytes>.<hash>.tmp.<hex>": any legal name can be written) and renamed over
**     <name> only when complete and fsync()ed (a failure leaves the previous file untouched and
**     removes the temporary one); a run killed meanwhile leaves an unlocked temporary file that
**     the next write of the same target removes;
**   - a new file gets mode 0666 less the umask; a replaced file's mode (and owner, as root) is
**     kept;
**   - a set of files (a report) is written whole into a staging directory beside the targets
**     and only then renamed into place, so a failure while writing leaves the previous set;
**   - member and file names never contain '/', '\\' or "..".
*/
#ifndef PS_WRITER_H
#define PS_WRITER_H

#include "../util/ps_util.h"
#include "../wire/json.h"

/* A CSV cell as the StarProfiler writes it: quoted (with "" doubling) only when it holds
** ',', '"', '\n' or '\r'. A cell that starts with '=', '+', '-' or '@' is written as it is (the
** StarProfiler's byte-identical contract; docs/security.md, "CSV cells and spreadsheets").
** Text that breaks the text rule (a cut character, invalid UTF-8, a NUL) is written repaired
** (ps_text_repair), so the file is valid UTF-8. -1 when out of memory. */
int ps_csv_cell(PsBuf *b, const char *z, size_t n);
/* ps_csv_cell with flags: PS_CSV_FORMULA_PREFIX puts a "'" before a cell whose first byte is
** '=', '+', '-', '@', a tab or a carriage return (OWASP's defence against CSV injection: a
** spreadsheet shows the cell as text instead of running it as a formula), inside the quotes
** when the cell is quoted. The caller decides which cells may take it (profile_write_csv: TEXT
** and BLOB values, never numbers: "-1.5" stays a number). */
#define PS_CSV_FORMULA_PREFIX 1
int ps_csv_cell_ex(PsBuf *b, const char *z, size_t n, unsigned flags);
/* A Markdown table cell that renders as the text it holds, in GitHub's (GFM, CommonMark) and
** Python-Markdown's renderers alike: '<', '>' and '&' as the entities &lt; &gt; &amp; (no raw
** HTML, no autolink, no entity of the input's), '\\', '`', '*', '[', ']', '|' backslash-escaped
** (no code span, emphasis, link or image, no cell split), '_' escaped unless it sits inside a
** word or is the only one outside words (no renderer reads either as emphasis, which takes two:
** "render_frame" and "Module._compile" stay as they are), line breaks and
** other control characters as spaces; invalid UTF-8 repaired. Other punctuation ('#', '+',
** '-', '.', '!', '(', ')') acts only at the start of a line, which a cell never is. -1 when out
** of memory. */
int ps_md_cell(PsBuf *b, const char *z, size_t n);
/* z[0..n) as one Markdown code span (for a name inside running text): a fence of one backtick
** more than the longest run of backticks in z, padded with a space when z begins or ends with
** a backtick or a space; line breaks and control characters as spaces (a span is one line);
** invalid UTF-8 repaired. Inside a code span neither renderer reads HTML or Markdown. -1 when
** out of memory. */
int ps_md_code(PsBuf *b, const char *z, size_t n);
/* Re-indents the JSON text z (already valid) with 2 spaces and ": " into b, writing its values
** as serde_json's to_vec_pretty writes the value it would read from z (the StarProfiler's
** report JSON): numbers with a fraction or an exponent, "-0" and integers beyond i64/u64 as the
** shortest round-trip float (ps_fmt_float); other integers as they are; strings with escapes
** decoded and escaped again the serde way (ps_json_serde_string); keys keep their order. */
int ps_json_pretty(PsBuf *b, const char *z, size_t n);

/* Writes n bytes to zPath atomically (temporary file + rename). PS_OK, or PS_ERROR with err
** naming the path and the system's reason. */
int ps_write_file(const char *zPath, const void *p, size_t n, PsErr *err);

/* A ZIP archive being written to a temporary file next to zPath (NULL with err set when the
** target is not a regular file or cannot be created). */
typedef struct PsZip PsZip;
PsZip *ps_zip_open(const char *zPath, PsErr *err);
/* Adds a member (deflated by libdeflate at zlib's default level 6, stored through minizip; the
** deflated bytes are kept, about the member's size at most, until the next add or the close).
** zName must be a plain file name (no directories). Errors: PS_NOMEM, a write that fails (the
** archive's path and the system's reason). */
int ps_zip_add(PsZip *z, const char *zName, const void *p, size_t n, PsErr *err);
/* Adds the member ps_zip_add added last again, as zName, from the same deflated bytes (a
** report's dated and latest copies of a file). Errors: those of ps_zip_add, and none added. */
int ps_zip_add_again(PsZip *z, const char *zName, PsErr *err);
/* Adds the regular file zSrc as member zName, streamed in 1 MiB reads (memory does not grow with
** the file). Errors: zSrc is not a regular file (a FIFO or device is refused without blocking),
** is larger than maxBytes (0: no limit), cannot be read; xInterrupt (may be NULL) is asked every
** PS_WRITE_POLL_STEP bytes and a yes ends it with ps_interrupted(). The member holds the file's
** bytes up to its size when opened. */
#define PS_WRITE_POLL_STEP ((uint64_t)16 << 20)
int ps_zip_add_file(PsZip *z, const char *zName, const char *zSrc, uint64_t maxBytes,
                    int (*xInterrupt)(void*), void *pArg, PsErr *err);
/* Closes the archive and renames it into place (bCommit), or discards it. */
int ps_zip_close(PsZip *z, int bCommit, PsErr *err);

/* A set of files that replaces the previous set in one step (a report): each file is written
** into the staging directory "<dir>/.profsql-stage.<hex>" (created 0700 and flock()ed, after
** removing stale ones of killed runs), then ps_stage_commit() looks at every target (each must
** be absent or a regular file, else nothing moves) and renames the files into <dir> in the
** order they were staged. Renames in one directory allocate no data blocks, so a full disk or
** a failed query stops the set before anything moved. ps_stage_close() removes the staging
** directory with whatever is left in it (call it after a commit or instead of one). */
#define PS_STAGE_PREFIX ".profsql-stage."
typedef struct PsStage PsStage;
PsStage *ps_stage_open(const char *zDir, PsErr *err);
/* A ZIP archive written into the staging directory as zName (its messages name <dir>/zName);
** after ps_zip_close(z, 1, ...) add it to the set with ps_stage_note. */
PsZip *ps_stage_zip_open(PsStage *s, const char *zName, PsErr *err);
/* Writes n bytes as file zName of the set (fsync()ed). */
int ps_stage_write(PsStage *s, const char *zName, const void *p, size_t n, PsErr *err);
/* Writes n bytes as file zName of the staging directory (fsync()ed) without adding it to the set
** yet: ps_stage_note adds it in its turn, and ps_stage_read reads it back meanwhile. For a file
** made long before its place in the set's order (a report's per-row CSVs), so that its bytes need
** not stay in memory until then. */
int ps_stage_put(PsStage *s, const char *zName, const void *p, size_t n, PsErr *err);
/* The bytes of file zName of the staging directory (ps_stage_put) into b (what b held is freed).
** Errors: "cannot read back '<dir>/<name>' from the staging directory: <reason>" (it cannot be
** opened or is not a regular file), "cannot read '<dir>/<name>': <reason>", PS_NOMEM. */
int ps_stage_read(PsStage *s, const char *zName, PsBuf *b, PsErr *err);
/* Adds zName (already written into the staging directory) to the set. */
int ps_stage_note(PsStage *s, const char *zName, PsErr *err);
int ps_stage_commit(PsStage *s, PsErr *err);
void ps_stage_close(PsStage *s);

/* 1 when zName is a safe member / file name: not empty, no '/', '\\', NUL, not "." or "..". */
int ps_safe_name(const char *zName);

#endif
