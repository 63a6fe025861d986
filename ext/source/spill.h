/*
** spill.h — where an inflated stream goes (source.c's gzip inflate, zipsrc.c's ZIP member): into a
** heap buffer, or into an unnamed temporary file that the source maps afterwards (a "spilled"
** stream). Bytes in, bytes out: below the source, which maps what is spilled, and below the ZIP
** reader, which fills it; nothing here knows either.
*/
#ifndef PS_SPILL_H
#define PS_SPILL_H

#include "../util/ps_util.h"
#include <stdint.h>

/* Default cap on the size of an inflated gzip stream: 16 GiB. */
#define PS_MAX_INFLATED ((uint64_t)16 << 30)
/* The default inflated size from which a gzip stream goes to a temporary file instead of memory
** (ps_source_open_file_ex's nSpill; profsql_config 'gzip_spill_bytes'). */
#define PS_GZIP_SPILL ((uint64_t)64 << 20)

/* Output bytes inflated between two interrupt polls (about 50 ms of zlib); a spilled stream's
** buffer (PsSpill) holds at most this many. */
#define PS_INFLATE_STEP ((size_t)16 << 20)

/* Where an inflated stream goes (source.c's gzip inflate, zipsrc.c's ZIP member): a malloc'ed
** buffer z of nAlloc bytes that holds the whole stream, or, with fd >= 0 (a "spilled" stream), an
** unnamed temporary file the stream is written to with write(), z being a buffer of the next
** bytes, flushed when full; the source maps the file once the stream is complete. nFlushed: the
** bytes already written to fd. Starts as { 0, 0, -1, 0 }. */
typedef struct PsSpill {
  char *z; size_t nAlloc;
  int fd;
  size_t nFlushed;
} PsSpill;
/* An unnamed temporary file (O_TMPFILE) in the first of $SQLITE_TMPDIR, $TMPDIR, /var/tmp,
** /usr/tmp, /tmp that takes one, or -1. */
int ps_spill_open(void);
/* Writes o->z[0..n) at the end of o->fd: 0, or -1 when the file cannot take them (a full disk, or
** past RLIMIT_FSIZE, where write() would raise SIGXFSZ): the caller then starts again in memory. */
int ps_spill_flush(PsSpill *o, size_t n);
/* Closes the file and frees the buffer; o is then as at its start. */
void ps_spill_free(PsSpill *o);

#endif
