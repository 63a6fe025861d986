/*
** writer.h — output files for the report writers, without SQLite: a growable text buffer,
** the StarProfiler's CSV cell quoting, Markdown cell escaping, JSON re-indentation, files
** written under a temporary name and renamed into place, and ZIP archives (zlib's minizip).
**
** Safety rules every writer follows: a file is written to "<dir>/.<name>.tmp.XXXXXX" in the
** same directory and renamed over <name> only when complete (a failure leaves the previous file
** untouched and removes the temporary one); member names never contain '/', '\\' or "..".
*/
#ifndef PS_WRITER_H
#define PS_WRITER_H

#include "ps_util.h"
#include "json.h"

/* Appends; -1 when out of memory (the buffer then stays as it was). */
int ps_buf_puts(PsBuf *b, const char *z);
int ps_buf_printf(PsBuf *b, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 2, 3)))
#endif
  ;
/* A CSV cell as the StarProfiler writes it: quoted (with "" doubling) only when it holds
** ',', '"', '\n' or '\r'. */
int ps_csv_cell(PsBuf *b, const char *z, size_t n);
/* A Markdown table cell: '|' escaped as "\|", line breaks as spaces. */
int ps_md_cell(PsBuf *b, const char *z, size_t n);
/* Re-indents the JSON text z (already valid) with 2 spaces and ": " (serde_json's pretty form)
** into b. */
int ps_json_pretty(PsBuf *b, const char *z, size_t n);

/* Writes n bytes to zPath atomically (temporary file + rename). PS_OK, or PS_ERROR with err
** naming the path and the system's reason. */
int ps_write_file(const char *zPath, const void *p, size_t n, PsErr *err);

/* A ZIP archive being written to a temporary file next to zPath. */
typedef struct PsZip PsZip;
PsZip *ps_zip_open(const char *zPath, PsErr *err);
/* Adds a member (deflated). zName must be a plain file name (no directories). */
int ps_zip_add(PsZip *z, const char *zName, const void *p, size_t n, PsErr *err);
/* Closes the archive and renames it into place (bCommit), or discards it. */
int ps_zip_close(PsZip *z, int bCommit, PsErr *err);

/* 1 when zName is a safe member / file name: not empty, no '/', '\\', NUL, not "." or "..". */
int ps_safe_name(const char *zName);

#endif
