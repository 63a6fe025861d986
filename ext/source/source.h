/*
** source.h — getting a capture's bytes into memory, whatever they came from.
**
**   ps_source_open_file(path)  memory-maps a plain file (no copy); a gzip file (magic 1f 8b,
**                              whatever its name) is inflated with zlib into a heap buffer.
**   ps_source_open_blob(p, n)  copies the bytes (the caller's buffer is only borrowed for the
**                              call), inflating them when they are gzip.
**
** Limits: an inflated stream larger than PS_MAX_INFLATED bytes is an error (a gzip bomb must not
** take the host process down). Concatenated gzip members are read as one stream (RFC 1952 2.2).
** Errors name what failed: "cannot open 'x': No such file or directory",
** "gzip stream is truncated (inflated 1234 bytes before the end of input)", ...
*/
#ifndef PS_SOURCE_H
#define PS_SOURCE_H

#include "../util/ps_util.h"
#include "mapguard.h"
#include "spill.h"
#include "zipsrc.h"
#include "htmlsrc.h"
#include <stdint.h>
#include <string.h>


typedef struct PsSource {
  const char *z;       /* the capture's bytes (decompressed); z[n] is readable and is 0 for heap buffers */
  size_t n;            /* number of bytes */
  int bGzip;           /* 1 when the input was gzip and z is the inflated stream */
  int bMapped;         /* 1 when z is a read-only mmap of the file (munmap on close) */
  int bHeap;           /* 1 when z is a malloc'ed buffer owned by this PsSource (free on close) */
  void *pMap;          /* mmap base when bMapped */
  size_t nMap;         /* mmap length */
  uint64_t nRaw;       /* size of the input before inflating */
  size_t nDropped;     /* mapped bytes [0, nDropped) already released by ps_source_done_before */
  uint64_t *pLost;     /* the mapping's SIGBUS guard word (mapguard.h); NULL when not mapped */
  char lastByte;       /* z[n-1] when mapped (a zeroed tail shows a truncation within the last page) */
  int bZip;            /* 1 when the input was a ZIP archive and z is the member read (zipsrc.c) */
  int bHtml;           /* 1 when the input was a systrace HTML document and z its trace data (htmlsrc.c) */
  char *zText;         /* systrace HTML with a JSON block and ftrace text blocks: z is the JSON and
                       ** zText[0..nText) the text (malloc'ed, NUL-terminated; the Chrome parser
                       ** reads it after the JSON: ps_ftrace_read); NULL otherwise */
  size_t nText;
  /* stopping a long parse: xInterrupt (set by the host, called from the loading thread only)
  ** returns non-zero to stop; pAbort points at the flag every thread of one parse shares */
  int (*xInterrupt)(void*);
  void *pInterruptArg;
  volatile int *pAbort;
  volatile int abortFlag;
  char zMember[128];   /* ... that member's name */
  int maxJsonDepth;    /* JSON nesting limit for parsing these bytes (0: PS_JSON_MAX_DEPTH); set by
                       ** the loader from its connection's setting, never process-wide */
  uint64_t nWork;      /* work units counted by ps_work since it last polled */
  int64_t tPoll;       /* CLOCK_MONOTONIC ns of the last host poll (ps_source_poll; 0: none yet) */
} PsSource;

/* Opens the file at zPath. On success fills *pSrc and returns PS_OK. On failure returns
** PS_ERROR/PS_NOMEM with err set ("cannot open 'x': <strerror>"). maxInflated = 0 means default. */
int ps_source_open_file(PsSource *pSrc, const char *zPath, uint64_t maxInflated, PsErr *err);
/* The same, with bMmap 0: the file is read into memory instead of mapped, at the cost of holding
** the whole file in memory. A mapped file that another process truncates while it is read does not
** take the host down: the lost bytes read as zeros (mapguard.h) and ps_source_lost() says so, and
** every reader of the bytes checks it and reports an error instead of rows. A gzip or ZIP file
** that shrinks while it is inflated gives "'x' shrank while being read ...". When the guard
** cannot be set up (mapguard.h: every slot taken), the file is read into memory.
** nSpill not 0: a gzip stream whose trailer gives nSpill inflated bytes or more (or whose
** compressed bytes alone are nSpill/4 or more: the trailer holds the size mod 2^32) is inflated
** into an unnamed temporary file (O_TMPFILE in $SQLITE_TMPDIR, $TMPDIR, /var/tmp, /usr/tmp or
** /tmp, the first that takes one) with write(), then mapped: the source is then a mapped one
** (bMapped, bGzip), whose pages the parse releases (ps_source_release) and the kernel can write
** back and drop, instead of a heap buffer held whole. A failed write (a full disk) or no usable
** directory: memory, as without nSpill. A ZIP member of nSpill bytes or more by its directory
** entry (or nSpill/4 compressed) the same way (bMapped, bZip: ps_unzip_capture).
** A spilled source's `nRaw` is the compressed size, as for a gzip file inflated into memory. */
int ps_source_open_file_ex(PsSource *pSrc, const char *zPath, uint64_t maxInflated, uint64_t nSpill,
                           int bMmap, int (*xInterrupt)(void*), void *pInterruptArg, PsErr *err);

/* 0 while every byte read of a mapped source was still in the file; else 1 + the offset of the
** first byte found gone (another process truncated the file). Always 0 for heap buffers.
** Catches a truncation that only shortens the last page (no SIGBUS: the kernel zeroes the page's
** tail) by the last byte no longer being what it was, unless that byte was 0. */
static inline uint64_t ps_source_lost(const PsSource *pSrc){
  if( pSrc->pLost==0 ) return 0;
  /* the last byte read again: a truncation removes its page (a SIGBUS, healed and recorded) or,
  ** when the file still reaches into that page, zeroes the page's tail */
  char c = *(const volatile char*)(pSrc->z + pSrc->n - 1);
  uint64_t lost = ps_mapguard_lost(pSrc->pLost);
  return lost==0 && c!=pSrc->lastByte ? (uint64_t)pSrc->n : lost;
}

/* PS_OK while ps_source_lost() is 0; else PS_ERROR with err "the file shrank while it was being
** read (another process truncated or rewrote it): byte N of its M bytes is gone" (or "the file
** changed ...: its last byte (N of M) is no longer what was read"). For a spilled gzip stream or
** ZIP member (bGzip or bZip, and mapped): "the temporary file holding the inflated gzip stream
** (ZIP member) could not be read back (a read error on its disk, or the file was truncated): byte
** N of its M inflated bytes is gone", N and M counted in the inflated stream. */
int ps_source_lost_error(const PsSource *pSrc, PsErr *err);

/* Copies (or inflates) n bytes at p. The caller keeps ownership of p. */
int ps_source_open_blob(PsSource *pSrc, const void *p, size_t n, uint64_t maxInflated, PsErr *err);
/* The _ex forms also set the host's interrupt hook (PsSource.xInterrupt, pInterruptArg), which
** is polled while a file is read into memory (every 64 MiB) and while gzip or ZIP input is
** inflated (every 16 MiB of output): PS_ERROR with err.rc PS_INTERRUPT ("interrupted") when it
** says stop. The hook stays set in *pSrc for the parse. */
int ps_source_open_blob_ex(PsSource *pSrc, const void *p, size_t n, uint64_t maxInflated, uint64_t nSpill,
                           int (*xInterrupt)(void*), void *pInterruptArg, PsErr *err);

/* 1 when the parse must stop (the host's xInterrupt said so, now or in another thread of the same
** parse); the parser then returns ps_interrupted(err). The host is asked at its first call and
** then at most once per PS_POLL_NS (a clock read in between); another thread's stop is seen at
** every call. Loops call it through ps_work, by work done. */
int ps_source_poll(PsSource *pSrc);

/* Polling by work done, not by rows (issue 32: 65,536 lines of a hostile input could take
** seconds). A loop calls ps_work(pSrc, n) with the work it just did, in units of about a byte
** read or a probe made (a line: its length; a trie step: 1 + the bytes compared). Every
** PS_WORK_STEP units (tens of microseconds) it calls ps_source_poll, which asks the host once
** PS_POLL_NS have passed since it last did, so an interrupt or a progress handler lands within
** about that, whatever the input.
** Returns 1 when the parse must stop (then return ps_interrupted(err)). */
#define PS_WORK_STEP ((uint64_t)1 << 16)
#define PS_POLL_NS   ((int64_t)10000000)   /* 10 ms */
int ps_work_poll(PsSource *pSrc);
/* ps_work as a callback (pArg the PsSource): for a lower layer's loop that takes the caller's
** poll, such as ps_json_skip_poll's whole-document check. */
int ps_work_cb(void *pArg, size_t n);
static inline int ps_work(PsSource *pSrc, uint64_t n){
  if( (pSrc->nWork += n) < PS_WORK_STEP ) return 0;
  return ps_work_poll(pSrc);
}
/* The n bytes of the open file fd read into a heap buffer (*pz, malloc'ed, NUL-terminated; *pn
** bytes: fewer when the file was cut short meanwhile), polling pPoll (may be NULL) for an
** interrupt between reads: the no-mmap mode of a source, a spilled gzip stream, a report's staged
** CSV read back. Errors: "cannot read '<zPath>': <reason>", PS_NOMEM, an interrupt. */
int ps_read_fd(int fd, size_t n, const char *zPath, char **pz, size_t *pn, PsSource *pPoll, PsErr *err);

/* Tells the source that a sequential parser is done with bytes [0, off): for a memory-mapped
** file, pages behind it are released from the process (MADV_DONTNEED) in 4 MiB steps. They stay
** in the OS page cache and fault back in when a lazy column re-reads them, so a parse of a file
** bigger than RAM does not hold the whole file resident. No effect on heap buffers. */
void ps_source_done_before(PsSource *pSrc, size_t off);
/* The same for a reader that keeps its own mark (a cursor re-reading the bytes of rows in file
** order after the parse): bytes [0, done) are released already; releases up to 4 MiB behind off
** and returns the new mark. */
size_t ps_source_release(const PsSource *pSrc, size_t done, size_t off);

/* Line reader for the text formats: the line starting at *pi is z[*pa..*pb) without its "\n"
** or "\r\n"; *pi moves to the next line. Returns 0 at the end of input. */
static inline int ps_next_line(const char *z, size_t n, size_t *pi, size_t *pa, size_t *pb){
  size_t i = *pi;
  if( i>=n ) return 0;
  const char *e = memchr(z+i, '\n', n-i);
  size_t b = e ? (size_t)(e - z) : n;
  *pa = i;
  *pi = e ? b+1 : n;
  if( b>i && z[b-1]=='\r' ) b--;
  *pb = b;
  return 1;
}

/* What a stat() mode is, for messages: "a regular file", "a directory", "a FIFO", "a character
** device", "a block device", "a socket", "a symbolic link", "an unknown kind of file". */
const char *ps_file_type(unsigned mode);

/* Releases the bytes. Safe on a zeroed PsSource. */
void ps_source_close(PsSource *pSrc);

/* Inflates gzip bytes in[0..nIn) into a new malloc'ed buffer (NUL-terminated, not counted in *pnOut).
** Exposed for unit tests and the fuzzers. */
int ps_gunzip(const unsigned char *in, size_t nIn, uint64_t maxOut,
              char **pzOut, size_t *pnOut, PsErr *err);
/* The same, polling pPoll (ps_source_poll) every 16 MiB of output: ps_interrupted() when it
** says stop. */
int ps_gunzip_poll(const unsigned char *in, size_t nIn, uint64_t maxOut,
                   char **pzOut, size_t *pnOut, PsSource *pPoll, PsErr *err);
/* 1: every gzip stream takes zlib's loop instead of libdeflate's one-shot decoder (default 0);
** set by the tests and `make bench` (tests/bench/load_time.c) to compare the two. Process-wide. */
extern int ps_gunzip_zlib_only;

#endif
