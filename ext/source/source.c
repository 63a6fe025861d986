/*
** source.c — reads a capture's bytes: mmap for plain files, inflate for gzip input (libdeflate's
** one-shot decoder where the stream's size is known, zlib's chunked one otherwise and for every
** error message), the capture member of a ZIP archive (zipsrc.c), a private copy for BLOB
** arguments. See source.h for the contract.
*/
#define _GNU_SOURCE            /* O_TMPFILE, mremap */
#include "source.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include <libdeflate.h>

static int is_gzip(const unsigned char *p, size_t n){
  return n>=2 && p[0]==0x1f && p[1]==0x8b;
}

int ps_gunzip(const unsigned char *in, size_t nIn, uint64_t maxOut,
              char **pzOut, size_t *pnOut, PsErr *err){
  return ps_gunzip_poll(in, nIn, maxOut, pzOut, pnOut, 0, err);
}

/* The inflated size the gzip trailer gives (ISIZE: the last 4 bytes, the size mod 2^32), or 0 when
** there is no trailer or it is not to be trusted: a truncated or hostile stream has an arbitrary
** one, so it is taken only up to 64x the input. */
static size_t gz_size_hint(const unsigned char *in, size_t nIn){
  if( nIn<18 ) return 0;
  uint32_t isz = (uint32_t)in[nIn-4] | (uint32_t)in[nIn-3]<<8
               | (uint32_t)in[nIn-2]<<16 | (uint32_t)in[nIn-1]<<24;
  return (uint64_t)isz <= (uint64_t)nIn*64 ? (size_t)isz : 0;
}

/* The largest stream the one-shot decoder takes: libdeflate inflates about 1 GB/s with no way to
** poll for an interrupt in between, so bigger streams take zlib's chunked loop (polled every
** PS_INFLATE_STEP bytes). */
#define PS_DEFLATE_ONESHOT_MAX ((size_t)1 << 30)

int ps_gunzip_zlib_only = 0;     /* source.h */

/* The fast path (issue 18): libdeflate's gzip decoder, 2.5x zlib's inflate on a Chrome trace
** (docs/performance.md), into a buffer of the size the gzip trailer gives (ISIZE). Handles
** concatenated members while they fit. Returns PS_OK with the output in o->z, or -1 when this
** path does not apply or the stream is not one it could read to the end (a corrupt or truncated
** stream, a size past the trailer's, bytes after the stream): the caller then runs zlib, whose
** errors name the compressed byte (o is left as it was given). */
static int gunzip_oneshot(const unsigned char *in, size_t nIn, uint64_t maxOut,
                          PsSpill *o, size_t *pnOut, PsSource *pPoll, PsErr *err){
  if( ps_gunzip_zlib_only ) return -1;
  size_t isz = gz_size_hint(in, nIn);
  if( isz==0 || isz > PS_DEFLATE_ONESHOT_MAX || (uint64_t)isz > maxOut ) return -1;
  if( pPoll && ps_source_poll(pPoll) ) return ps_interrupted(err);
  struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
  if( d==0 ) return -1;
  char *zOut = malloc(isz + 1);
  if( zOut==0 ){ libdeflate_free_decompressor(d); return -1; }
  ps_hugepages(zOut, isz + 1);
  size_t iIn = 0, nOut = 0;
  int ok = 1;
  while( iIn<nIn ){
    size_t nUsed = 0, nGot = 0;
    if( !is_gzip(in+iIn, nIn-iIn) ){ ok = 0; break; }
    enum libdeflate_result r = libdeflate_gzip_decompress_ex(d, in+iIn, nIn-iIn, zOut+nOut, isz-nOut,
                                                             &nUsed, &nGot);
    if( r!=LIBDEFLATE_SUCCESS || nUsed==0 ){ ok = 0; break; }
    iIn += nUsed; nOut += nGot;
  }
  libdeflate_free_decompressor(d);
  if( !ok ){ free(zOut); return -1; }
  zOut[nOut] = 0;
  o->z = zOut; o->nAlloc = isz + 1;
  *pnOut = nOut;
  return PS_OK;
}

/* Inflates in[0..nIn) into o (on entry o->z NULL; o->fd >= 0: spill into that file). PS_OK with
** *pnOut bytes: in o->z (NUL-terminated) when o->fd is -1, else in the file (o->z may still hold
** the whole stream: the one-shot path writes its buffer out, and the caller frees it); on
** failure o is freed. A spilled stream whose file cannot be written is inflated again into
** memory (a full disk costs a second inflate, not the query). Past the one-shot decoder: the
** chunked inflate loop of zlib's examples/zpipe.c, over an in-memory input, reading concatenated
** members, with every return code handled. */
static int gunzip_to(const unsigned char *in, size_t nIn, uint64_t maxOut, PsSpill *o,
                     size_t *pnOut, PsSource *pPoll, PsErr *err){
  z_stream zs;
  size_t nOut = 0;
  int rc;
  *pnOut = 0;
  if( maxOut==0 ) maxOut = PS_MAX_INFLATED;
  rc = gunzip_oneshot(in, nIn, maxOut, o, pnOut, pPoll, err);
  if( rc>0 ){ ps_spill_free(o); return rc; }
  if( rc==PS_OK ){
    if( o->fd>=0 && ps_spill_flush(o, *pnOut) ){ close(o->fd); o->fd = -1; o->nFlushed = 0; }
    return PS_OK;
  }
  /* zlib's chunked inflate: any size, polled, and the precise error of a damaged stream.
  ** The trailer's size is a hint for the first allocation (in memory; a spilled stream goes
  ** through a buffer of PS_INFLATE_STEP bytes). */
  size_t nAlloc = 1<<16;
  size_t isz = gz_size_hint(in, nIn);
  if( isz > nAlloc && isz < maxOut ) nAlloc = isz + 1;
  if( nAlloc < nIn ) nAlloc = nIn + 1;
  if( nAlloc > maxOut + 1 ) nAlloc = (size_t)maxOut + 1;
  if( o->fd>=0 ) nAlloc = PS_INFLATE_STEP + 1;
  o->z = malloc(nAlloc);
  if( o->z==0 ){ ps_spill_free(o); return ps_nomem(err); }
  o->nAlloc = nAlloc;
  if( o->fd<0 ) ps_hugepages(o->z, nAlloc);
  memset(&zs, 0, sizeof(zs));
  if( inflateInit2(&zs, 15+16)!=Z_OK ){ ps_spill_free(o); return ps_nomem(err); }
  size_t iIn = 0;
  for(;;){
    /* zlib counts in uInt: feed at most 1 GiB at a time. */
    size_t chunkIn = nIn - iIn; if( chunkIn > (1u<<30) ) chunkIn = 1u<<30;
    zs.next_in = (Bytef*)(in + iIn);
    zs.avail_in = (uInt)chunkIn;
    size_t nBuf = nOut - o->nFlushed;          /* bytes in the buffer */
    if( nOut >= maxOut ){
      /* at the limit and not at the end (each inflate call is given at most maxOut - nOut bytes
      ** of room): the same message spilled or in memory */
      inflateEnd(&zs); ps_spill_free(o);
      return ps_err(err, "inflated gzip stream exceeds the limit of %llu bytes", (unsigned long long)maxOut);
    }
    if( nBuf + 1 >= o->nAlloc && o->fd>=0 ){
      if( ps_spill_flush(o, nBuf) ){
        /* the file cannot take it: start again, in memory */
        inflateEnd(&zs); ps_spill_free(o);
        return gunzip_to(in, nIn, maxOut, o, pnOut, pPoll, err);
      }
      nBuf = 0;
    }else if( nBuf + 1 >= o->nAlloc ){
      size_t nNew = o->nAlloc*2;                  /* (> nOut + 1: nOut < maxOut here) */
      if( nNew > maxOut + 1 ) nNew = (size_t)maxOut + 1;
      char *z = realloc(o->z, nNew);
      if( z==0 ){ inflateEnd(&zs); ps_spill_free(o); return ps_nomem(err); }
      o->z = z; o->nAlloc = nNew;
    }
    if( pPoll && ps_source_poll(pPoll) ){ inflateEnd(&zs); ps_spill_free(o); return ps_interrupted(err); }
    size_t chunkOut = o->nAlloc - 1 - nBuf; if( chunkOut > PS_INFLATE_STEP ) chunkOut = PS_INFLATE_STEP;
    if( chunkOut > maxOut - nOut ) chunkOut = (size_t)(maxOut - nOut);   /* (so nOut never passes maxOut) */
    zs.next_out = (Bytef*)(o->z + nBuf);
    zs.avail_out = (uInt)chunkOut;
    rc = inflate(&zs, Z_NO_FLUSH);
    iIn += chunkIn - zs.avail_in;
    nOut += chunkOut - zs.avail_out;
    if( rc==Z_STREAM_END ){
      /* another member may follow (concatenated gzip); anything else is an error */
      if( iIn==nIn ) break;
      if( !is_gzip(in+iIn, nIn-iIn) ){
        inflateEnd(&zs); ps_spill_free(o);
        return ps_err(err, "compressed byte %llu: unexpected data after the end of the gzip stream",
                      (unsigned long long)iIn);
      }
      inflateReset(&zs);
      continue;
    }
    if( rc==Z_MEM_ERROR ){ inflateEnd(&zs); ps_spill_free(o); return ps_nomem(err); }
    if( rc==Z_DATA_ERROR || rc==Z_NEED_DICT || rc==Z_STREAM_ERROR ){
      ps_err(err, "compressed byte %llu: corrupt gzip stream (%s)",
             (unsigned long long)iIn, zs.msg ? zs.msg : "invalid data");
      inflateEnd(&zs); ps_spill_free(o);
      return PS_ERROR;
    }
    if( rc==Z_BUF_ERROR || rc==Z_OK ){
      if( iIn==nIn && zs.avail_out>0 ){
        /* all input used, output space left, and no end: the stream is cut short */
        inflateEnd(&zs); ps_spill_free(o);
        return ps_err(err, "gzip stream is truncated (inflated %llu bytes before the input ended)",
                      (unsigned long long)nOut);
      }
      continue;
    }
    inflateEnd(&zs); ps_spill_free(o);
    return ps_err(err, "zlib inflate failed with code %d", rc);
  }
  inflateEnd(&zs);
  if( o->fd>=0 ){
    if( ps_spill_flush(o, nOut - o->nFlushed) ){
      ps_spill_free(o);
      return gunzip_to(in, nIn, maxOut, o, pnOut, pPoll, err);
    }
    free(o->z); o->z = 0; o->nAlloc = 0;
  }else{
    o->z[nOut] = 0;
  }
  *pnOut = nOut;
  return PS_OK;
}

int ps_gunzip_poll(const unsigned char *in, size_t nIn, uint64_t maxOut,
                   char **pzOut, size_t *pnOut, PsSource *pPoll, PsErr *err){
  PsSpill o = { 0, 0, -1, 0 };
  *pzOut = 0; *pnOut = 0;
  int rc = gunzip_to(in, nIn, maxOut, &o, pnOut, pPoll, err);
  if( rc==PS_OK ) *pzOut = o.z;
  return rc;
}

/* pSrc reads the n bytes of the mapping p (a plain file's, or a spilled gzip stream's file),
** guarded by pLost (mapguard.h), whose last byte was read as 'last' (ps_source_lost); the parse
** releases its pages as it goes (ps_source_release). */
static void source_set_mapped(PsSource *pSrc, void *p, size_t n, uint64_t *pLost, char last){
  madvise(p, n, MADV_SEQUENTIAL);
  pSrc->z = p; pSrc->n = n;
  pSrc->bMapped = 1; pSrc->pMap = p; pSrc->nMap = n; pSrc->pLost = pLost;
  pSrc->lastByte = last;
}


/* The n bytes of a complete inflated stream in o (gunzip_to, ps_unzip_capture) into pSrc: a
** spilled one mapped from its file (guarded as a plain file's mapping: a read error on the file's
** pages later is a SIGBUS), else, or when it cannot be mapped, a heap buffer. zWhat names the
** stream in messages ("gzip stream", "ZIP member"). The caller sets bGzip / bZip. */
static int source_from_spill(PsSource *pSrc, PsSpill *o, size_t n, const char *zWhat, PsErr *err){
  int rc;
  if( o->fd>=0 && n>0 ){
    void *p = mmap(0, n, PROT_READ, MAP_SHARED, o->fd, 0);
    uint64_t *pLost = p==MAP_FAILED ? 0 : ps_mapguard_add(p, n);
    if( pLost ){
      close(o->fd);                               /* (the mapping keeps the file) */
      free(o->z);
      source_set_mapped(pSrc, p, n, pLost, ((const char*)p)[n-1]);
      return PS_OK;
    }
    if( p!=MAP_FAILED ) munmap(p, n);
    if( o->z==0 ){
      /* the stream is only in the file: read it back */
      size_t nGot = 0;
      rc = lseek(o->fd, 0, SEEK_SET)==0 ? ps_read_fd(o->fd, n, "the temporary file of the inflated stream", &o->z, &nGot, pSrc, err)
                                        : ps_err(err, "cannot read back the inflated %s: %s", zWhat, strerror(errno));
      if( rc==PS_OK && nGot!=n ){
        free(o->z); o->z = 0;
        rc = ps_err(err, "cannot read back the inflated %s: %zu of its %zu bytes read", zWhat, nGot, n);
      }
      if( rc ){ ps_spill_free(o); return rc; }
    }
  }
  if( o->fd>=0 ){ close(o->fd); o->fd = -1; }
  if( o->z==0 ){ o->z = malloc(1); if( o->z==0 ) return ps_nomem(err); o->z[0] = 0; }   /* (an empty stream) */
  pSrc->z = o->z; pSrc->n = n; pSrc->bHeap = 1;
  return PS_OK;
}

/* gzip input into pSrc: into a temporary file (a mapped source, like a plain file) when nSpill
** is not 0 and the stream's trailer gives nSpill bytes or more, or the compressed input alone is
** a quarter of that (the trailer holds the size mod 2^32); else, or when no file can be had or
** written, into memory (a heap buffer). */
static int gunzip_source(PsSource *pSrc, const unsigned char *in, size_t nIn, uint64_t maxOut,
                         uint64_t nSpill, PsErr *err){
  PsSpill o = { 0, 0, -1, 0 };
  if( nSpill && ((uint64_t)gz_size_hint(in, nIn) >= nSpill || (uint64_t)nIn >= nSpill/4) ) o.fd = ps_spill_open();
  size_t n = 0;
  int rc = gunzip_to(in, nIn, maxOut, &o, &n, pSrc, err);
  if( rc==PS_OK ) rc = source_from_spill(pSrc, &o, n, "gzip stream", err);
  if( rc==PS_OK ) pSrc->bGzip = 1;
  return rc;
}

/* A spilled stream's file (source_from_spill) is unnamed and ours: no other process rewrites it
** by name, so bytes gone from it are a read error of its disk (or a truncation through /proc);
** the offsets are of the inflated stream, not of the compressed file. */
static int spill_lost_error(const char *zWhat, uint64_t at, uint64_t n, int bLast, PsErr *err){
  return ps_err(err, "the temporary file holding the inflated %s could not be read back "
                "(a read error on its disk, or the file was truncated): %s %llu of its %llu inflated "
                "bytes %s", zWhat, bLast ? "the last byte," : "byte", (unsigned long long)at,
                (unsigned long long)n, bLast ? "is no longer what was written" : "is gone");
}

static int lost_error(uint64_t lost, uint64_t n, PsErr *err){
  return ps_err(err, "the file shrank while it was being read (another process truncated or "
                "rewrote it): byte %llu of its %llu bytes is gone",
                (unsigned long long)(lost - 1), (unsigned long long)n);
}

static int changed_error(uint64_t n, PsErr *err){
  return ps_err(err, "the file changed while it was being read (another process truncated or "
                "rewrote it): its last byte (%llu of %llu) is no longer what was read",
                (unsigned long long)(n - 1), (unsigned long long)n);
}

int ps_source_lost_error(const PsSource *pSrc, PsErr *err){
  uint64_t lost = ps_source_lost(pSrc);
  if( lost==0 ) return PS_OK;
  if( pSrc->bGzip || pSrc->bZip ){             /* (mapped: spilled) */
    const char *zWhat = pSrc->bGzip ? "gzip stream" : "ZIP member";
    uint64_t at = ps_mapguard_lost(pSrc->pLost);
    return at ? spill_lost_error(zWhat, at - 1, pSrc->n, 0, err) : spill_lost_error(zWhat, pSrc->n - 1, pSrc->n, 1, err);
  }
  /* no read fell past the end: the last byte is other than it was */
  if( ps_mapguard_lost(pSrc->pLost)==0 ) return changed_error(pSrc->n, err);
  return lost_error(lost, pSrc->nRaw, err);
}

/* ps_source_poll as the callback a container reader takes (zipsrc.h) */
static int source_poll_cb(void *pArg){ return ps_source_poll((PsSource*)pArg); }

/* Zeroes a PsSource and sets the host's interrupt hook (polled while reading and inflating). */
static void source_reset(PsSource *pSrc, int (*xInterrupt)(void*), void *pArg){
  memset(pSrc, 0, sizeof(*pSrc));
  pSrc->xInterrupt = xInterrupt;
  pSrc->pInterruptArg = pArg;
}

/* gzip, ZIP or systrace HTML bytes p[0..n): inflates / extracts them into pSrc (a heap buffer; bGzip / bZip) and sets
** *pbDone; plain bytes: *pbDone 0 and pSrc untouched. The one place input is unwrapped, for
** BLOBs, files read into memory and mapped files alike. */
static int unwrap(PsSource *pSrc, const void *p, size_t n, uint64_t maxInflated, uint64_t nSpill,
                  int *pbDone, PsErr *err){
  int bGzip = is_gzip(p, n), bZip = !bGzip && ps_is_zip(p, n), bHtml = !bGzip && !bZip && ps_is_html(p, n);
  *pbDone = bGzip || bZip || bHtml;
  if( !*pbDone ) return PS_OK;
  if( bGzip ) return gunzip_source(pSrc, p, n, maxInflated, nSpill, err);
  size_t nz;
  if( bZip ){
    PsSpill o = { 0, 0, -1, 0 };
    int rc = ps_unzip_capture(p, n, maxInflated, nSpill, &o, &nz, pSrc->zMember, sizeof(pSrc->zMember),
                              source_poll_cb, pSrc, err);
    if( rc==PS_OK ) rc = source_from_spill(pSrc, &o, nz, "ZIP member", err);
    if( rc==PS_OK ) pSrc->bZip = 1;
    return rc;
  }
  char *z;
  int rc = ps_html_trace(p, n, maxInflated ? maxInflated : PS_MAX_INFLATED, &z, &nz, &pSrc->zText, &pSrc->nText, err);
  if( rc ) return rc;
  pSrc->z = z; pSrc->n = nz; pSrc->bHeap = 1; pSrc->bHtml = 1;
  return PS_OK;
}

int ps_source_open_file(PsSource *pSrc, const char *zPath, uint64_t maxInflated, PsErr *err){
  return ps_source_open_file_ex(pSrc, zPath, maxInflated, 0, 1, 0, 0, err);
}

int ps_read_fd(int fd, size_t n, const char *zPath, char **pz, size_t *pn, PsSource *pPoll, PsErr *err){
  char *z = malloc(n + 1);
  if( z==0 ) return ps_nomem(err);
  size_t k = 0;
  while( k<n ){
    if( pPoll && ps_source_poll(pPoll) ){ free(z); return ps_interrupted(err); }
    ssize_t r = read(fd, z+k, n-k > (64u<<20) ? (64u<<20) : n-k);
    if( r<0 && errno==EINTR ) continue;
    if( r<0 ){ int e = errno; free(z); return ps_err(err, "cannot read '%s': %s", zPath, strerror(e)); }
    if( r==0 ) break;                       /* truncated meanwhile: what was there */
    k += (size_t)r;
  }
  z[k] = 0;
  *pz = z; *pn = k;
  return PS_OK;
}

const char *ps_file_type(unsigned mode){
  switch( mode & S_IFMT ){
    case S_IFREG:  return "a regular file";
    case S_IFDIR:  return "a directory";
    case S_IFIFO:  return "a FIFO";
    case S_IFCHR:  return "a character device";
    case S_IFBLK:  return "a block device";
    case S_IFSOCK: return "a socket";
    case S_IFLNK:  return "a symbolic link";
    default:       return "an unknown kind of file";
  }
}

int ps_source_open_file_ex(PsSource *pSrc, const char *zPath, uint64_t maxInflated, uint64_t nSpill,
                           int bMmap, int (*xInterrupt)(void*), void *pInterruptArg, PsErr *err){
  struct stat st;
  int fd;
  char zFit[PS_PATH_FIT+1];
  const char *zP = ps_path_fit(zPath, zFit);     /* in messages: the reason always fits */
  source_reset(pSrc, xInterrupt, pInterruptArg);
  /* O_NONBLOCK: a FIFO (or a device) put at the path must not block the open; it is refused
  ** below. On a regular file the flag changes nothing. */
  fd = open(zPath, O_RDONLY|O_CLOEXEC|O_NONBLOCK|O_NOCTTY);
  if( fd<0 ) return ps_err(err, "cannot open '%s': %s", zP, strerror(errno));
  if( fstat(fd, &st)!=0 ){
    int e = errno; close(fd);
    return ps_err(err, "cannot stat '%s': %s", zP, strerror(e));
  }
  if( S_ISDIR(st.st_mode) ){
    close(fd);
    return ps_err(err, "cannot open '%s': Is a directory", zP);
  }
  if( !S_ISREG(st.st_mode) ){
    close(fd);
    return ps_err(err, "cannot open '%s': it is %s, not a regular file", zP, ps_file_type(st.st_mode));
  }
  if( st.st_size==0 ){
    close(fd);
    pSrc->z = "";
    return PS_OK;
  }
  size_t n = (size_t)st.st_size;
  void *p = MAP_FAILED;
  uint64_t *pLost = 0;
  if( bMmap ){
    p = mmap(0, n, PROT_READ, MAP_PRIVATE, fd, 0);
    if( p==MAP_FAILED ){
      int e = errno; close(fd);
      return ps_err(err, "cannot map '%s': %s", zP, strerror(e));
    }
    pLost = ps_mapguard_add(p, n);
    if( pLost==0 ){ munmap(p, n); p = MAP_FAILED; }   /* unguarded: read it instead */
  }
  int bDone, rc;
  if( p==MAP_FAILED ){
    char *zr = 0;
    rc = ps_read_fd(fd, n, zP, &zr, &n, pSrc, err);
    close(fd);
    if( rc ) return rc;
    pSrc->nRaw = n;
    rc = unwrap(pSrc, zr, n, maxInflated, nSpill, &bDone, err);
    if( bDone ){ free(zr); return rc; }
    pSrc->z = zr; pSrc->n = n; pSrc->bHeap = 1;   /* plain: the buffer read is the capture */
    return PS_OK;
  }
  close(fd);
  pSrc->nRaw = n;
  char last = ((const char*)p)[n-1];
  rc = unwrap(pSrc, p, n, maxInflated, nSpill, &bDone, err);
  if( bDone ){
    /* inflated from the mapping: it may have shrunk meanwhile */
    int bChanged = *(const volatile char*)((const char*)p + n - 1)!=last;   /* may fault: read first */
    uint64_t lost = ps_mapguard_lost(pLost);
    ps_mapguard_remove(pLost);
    munmap(p, n);
    if( lost || bChanged ){
      if( rc==PS_OK ){ ps_source_close(pSrc); source_reset(pSrc, xInterrupt, pInterruptArg); }
      return lost ? lost_error(lost, n, err) : changed_error(n, err);
    }
    return rc;
  }
  source_set_mapped(pSrc, p, n, pLost, last);
  return PS_OK;
}

int ps_source_open_blob(PsSource *pSrc, const void *p, size_t n, uint64_t maxInflated, PsErr *err){
  return ps_source_open_blob_ex(pSrc, p, n, maxInflated, 0, 0, 0, err);
}

int ps_source_open_blob_ex(PsSource *pSrc, const void *p, size_t n, uint64_t maxInflated, uint64_t nSpill,
                           int (*xInterrupt)(void*), void *pInterruptArg, PsErr *err){
  source_reset(pSrc, xInterrupt, pInterruptArg);
  pSrc->nRaw = n;
  int bDone, rc = unwrap(pSrc, p, n, maxInflated, nSpill, &bDone, err);
  if( bDone ) return rc;
  char *z = malloc(n+1);
  if( z==0 ) return ps_nomem(err);
  if( n ) memcpy(z, p, n);
  z[n] = 0;
  pSrc->z = z; pSrc->n = n; pSrc->bHeap = 1;
  return PS_OK;
}

size_t ps_source_release(const PsSource *pSrc, size_t done, size_t off){
  static const size_t STEP = (size_t)4 << 20;
  if( !pSrc->bMapped || off < done + 2*STEP ) return done;
  size_t end = (off - STEP) & ~(STEP-1);     /* keep the last 4 MiB: the reader may look back */
  if( end <= done ) return done;
  madvise((char*)pSrc->pMap + done, end - done, MADV_DONTNEED);
  return end;
}

void ps_source_done_before(PsSource *pSrc, size_t off){
  pSrc->nDropped = ps_source_release(pSrc, pSrc->nDropped, off);
}

/* the monotonic clock in ns */
static int64_t source_now(void){
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec*1000000000 + ts.tv_nsec;
}

int ps_source_poll(PsSource *pSrc){
  if( pSrc->pAbort && *pSrc->pAbort ) return 1;
  if( pSrc->xInterrupt==0 ) return 0;
  /* the host is asked at most once per PS_POLL_NS (its poll runs a statement: loader.c) */
  int64_t t = source_now();
  if( pSrc->tPoll!=0 && t - pSrc->tPoll < PS_POLL_NS ) return 0;
  pSrc->tPoll = t;
  if( pSrc->xInterrupt(pSrc->pInterruptArg) ){
    if( pSrc->pAbort ) *pSrc->pAbort = 1;
    return 1;
  }
  return 0;
}

int ps_work_cb(void *pArg, size_t n){
  return ps_work((PsSource*)pArg, n);
}

int ps_work_poll(PsSource *pSrc){
  pSrc->nWork = 0;
  return ps_source_poll(pSrc);
}


void ps_source_close(PsSource *pSrc){
  if( pSrc->bMapped ){
    ps_mapguard_remove(pSrc->pLost);
    munmap(pSrc->pMap, pSrc->nMap);
  }else if( pSrc->bHeap ){
    free((void*)pSrc->z);
  }
  free(pSrc->zText);
  memset(pSrc, 0, sizeof(*pSrc));
}
