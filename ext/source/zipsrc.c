/*
** zipsrc.c — a capture inside a ZIP archive (the newengine StarProfiler's dated report
** archive, or any ZIP holding one capture), read from memory through zlib's minizip.
**
** Which member is the capture: the one manifest.json names in "entries.json" (the StarProfiler
** archive's manifest v2), else "latest.json"; without a manifest, the archive's only member.
** The member is inflated into a heap buffer that becomes the capture's bytes, or, a big one, into
** an unnamed temporary file that is mapped (PsSpill, as gzip streams are). Errors: a member
** name that is empty, absolute or has a ".." component, a member larger than the inflate limit, a bad CRC, a
** damaged archive, or an archive that does not say which member to read.
*/
#include "zipsrc.h"
#include "../wire/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <minizip/unzip.h>
#include <zlib.h>

int ps_is_zip(const void *p, size_t n){
  const unsigned char *z = p;
  return n>=4 && z[0]=='P' && z[1]=='K' && z[2]==3 && z[3]==4;
}

/* ------------------------------------------------------------------ memory I/O for minizip */
typedef struct MemFile { const unsigned char *p; uint64_t n, pos; } MemFile;

static voidpf mem_open(voidpf opaque, const void *zName, int mode){ (void)zName; (void)mode; return opaque; }
static uLong mem_read(voidpf opaque, voidpf stream, void *buf, uLong size){
  MemFile *m = stream; (void)opaque;
  uint64_t k = m->pos >= m->n ? 0 : m->n - m->pos;
  if( k > size ) k = size;
  memcpy(buf, m->p + m->pos, (size_t)k);
  m->pos += k;
  return (uLong)k;
}
static uLong mem_write(voidpf opaque, voidpf stream, const void *buf, uLong size){
  (void)opaque; (void)stream; (void)buf; (void)size; return 0;
}
static ZPOS64_T mem_tell(voidpf opaque, voidpf stream){ (void)opaque; return ((MemFile*)stream)->pos; }
/* A relative seek backwards comes as an unsigned offset that wraps (minizip seeks back over an
** extra field it has just read), so the new position is computed modulo 2^64. */
static long mem_seek(voidpf opaque, voidpf stream, ZPOS64_T off, int origin){
  MemFile *m = stream; (void)opaque;
  uint64_t base = origin==ZLIB_FILEFUNC_SEEK_SET ? 0 : origin==ZLIB_FILEFUNC_SEEK_CUR ? m->pos : m->n;
  uint64_t pos = base + (uint64_t)off;
  if( origin==ZLIB_FILEFUNC_SEEK_SET ? off > m->n : pos > m->n ) return -1;
  m->pos = pos;
  return 0;
}
static int mem_close(voidpf opaque, voidpf stream){ (void)opaque; (void)stream; return 0; }
static int mem_error(voidpf opaque, voidpf stream){ (void)opaque; (void)stream; return 0; }

/* ------------------------------------------------------------------ reading a member
** minizip walks the directory, checks the local header and says where the member's data starts
** (unzGetCurrentFileZStreamPos64); the data is then read here, from memory. minizip 1.1 as
** Debian ships it never reads the zip64 extra field (it compares the 32-bit size with
** (unsigned long)-1), so a member over 4 GiB - or one whose writer used zip64 from 2 GiB on, as
** Python's zipfile does - came out with the sizes 0xFFFFFFFF and failed with "zlib error -1".
** The sizes are taken from the zip64 extra field here, and the inflate loop is our own. */

/* The 64-bit sizes from the central directory's zip64 extra field (id 0x0001), whose 8-byte
** values come in this order for the fields that are 0xFFFFFFFF in the fixed record:
** uncompressed size, compressed size (APPNOTE 4.5.3). Returns 0, or -1 when damaged. */
static int zip64_sizes(const unsigned char *x, size_t nx, uint64_t *pUsize, uint64_t *pCsize){
  size_t i = 0;
  while( i+4<=nx ){
    unsigned id = x[i] | x[i+1]<<8, len = x[i+2] | x[i+3]<<8;
    if( i+4+len > nx ) return -1;
    if( id==0x0001 ){
      const unsigned char *p = x+i+4;
      size_t k = 0;
      uint64_t *apWant[2] = { pUsize, pCsize };
      for(int f=0; f<2; f++){
        if( *apWant[f]!=0xFFFFFFFFu ) continue;
        if( k+8 > len ) return -1;
        uint64_t v = 0;
        for(int b=7; b>=0; b--) v = v<<8 | p[k+b];
        *apWant[f] = v; k += 8;
      }
      return 0;
    }
    i += 4 + len;
  }
  return 0;
}

/* Inflates (or copies) the current member into o (PsSpill: a new buffer, NUL-terminated, or, with
** o->fd >= 0, the spill file, the buffer then freed), at most maxOut bytes, checking its CRC
** (over each chunk as it is made). mf: the archive's bytes. A spill file that cannot take the
** member (a full disk): the member is read again, into memory. */
static int read_member(unzFile uf, const MemFile *mf, const char *zName, uint64_t maxOut, uint64_t nSpill,
                       PsSpill *o, size_t *pn, int (*xPoll)(void*), void *pPollArg, PsErr *err){
  unz_file_info64 fi;
  unsigned char *aExtra = malloc(65536);
  if( aExtra==0 ) return ps_nomem(err);
  if( unzGetCurrentFileInfo64(uf, &fi, 0, 0, aExtra, 65535, 0, 0)!=UNZ_OK ){
    free(aExtra); return ps_err(err, "ZIP member '%s': damaged entry", zName);
  }
  uint64_t usize = fi.uncompressed_size, csize = fi.compressed_size;
  int rcX = zip64_sizes(aExtra, fi.size_file_extra < 65535 ? fi.size_file_extra : 65535, &usize, &csize);
  free(aExtra);
  if( rcX ) return ps_err(err, "ZIP member '%s': damaged zip64 extra field", zName);
  if( fi.flag & 1 ) return ps_err(err, "ZIP member '%s' is encrypted (not supported)", zName);
  if( fi.compression_method!=0 && fi.compression_method!=Z_DEFLATED ){
    return ps_err(err, "ZIP member '%s': compression method %lu is not supported (only stored and deflate)",
                  zName, (unsigned long)fi.compression_method);
  }
  if( usize > maxOut ){
    return ps_err(err, "ZIP member '%s' inflates to %llu bytes, over the limit of %llu bytes",
                  zName, (unsigned long long)usize, (unsigned long long)maxOut);
  }
  if( unzOpenCurrentFile(uf)!=UNZ_OK ){
    /* minizip 1.1 cannot follow a zip64 offset either: a member past 4 GiB lands here too */
    return ps_err(err, "ZIP member '%s': its local header is damaged or lies beyond the archive's first 4 GiB", zName);
  }
  uint64_t pos = unzGetCurrentFileZStreamPos64(uf);
  unzCloseCurrentFile(uf);
  if( pos > mf->n || csize > mf->n - pos ){
    return ps_err(err, "ZIP member '%s': its %llu bytes of data run past the end of the archive (truncated?)",
                  zName, (unsigned long long)csize);
  }
  const unsigned char *zIn = mf->p + pos;
  if( nSpill && (usize >= nSpill || csize >= nSpill/4) ) o->fd = ps_spill_open();
  /* room for what the header says, but never more than the data can make (deflate inflates at
  ** most 1032 to 1) nor than the limit: a lying header costs no memory; the data decides. A
  ** spilled member: a buffer of at most PS_INFLATE_STEP bytes, written out each time it fills. */
  uint64_t want = usize, most = fi.compression_method==0 ? csize : csize*1032 + 1024;
  if( want > most ) want = most;
  if( want > maxOut ) want = maxOut;
  if( o->fd>=0 && want > PS_INFLATE_STEP ) want = PS_INFLATE_STEP;
  o->nAlloc = (size_t)want + 1;
  size_t nBuf = 0;                     /* bytes in o->z (not yet written out, when spilled) */
  uint64_t nOut = 0;                   /* bytes made */
  o->z = malloc(o->nAlloc);
  if( o->z==0 ){ ps_spill_free(o); return ps_nomem(err); }
  z_stream zs;
  memset(&zs, 0, sizeof(zs));
  int bDeflate = fi.compression_method==Z_DEFLATED, zrc = Z_OK;
  if( bDeflate && inflateInit2(&zs, -MAX_WBITS)!=Z_OK ){ ps_spill_free(o); return ps_nomem(err); }
  uint64_t inLeft = csize;
  const unsigned char *pIn = zIn;
  uLong crc = crc32(0, 0, 0);
  int rc = PS_OK;
  for(;;){
    if( !bDeflate && inLeft==0 ) break;
    if( nOut >= maxOut ){
      /* more to come (a deflate stream ends by Z_STREAM_END, seen below) and no room left */
      rc = ps_err(err, "ZIP member '%s' inflates past the limit of %llu bytes", zName, (unsigned long long)maxOut);
      break;
    }
    if( nBuf + 1 >= o->nAlloc ){
      if( o->fd>=0 ){
        if( ps_spill_flush(o, nBuf) ){
          /* the file cannot take it: again, in memory */
          if( bDeflate ) inflateEnd(&zs);
          ps_spill_free(o);
          return read_member(uf, mf, zName, maxOut, 0, o, pn, xPoll, pPollArg, err);
        }
        nBuf = 0;
      }else{
        size_t nNew = o->nAlloc*2;      /* (> nOut + 1: nOut < maxOut here) */
        if( nNew > maxOut + 1 ) nNew = (size_t)maxOut + 1;
        char *z2 = realloc(o->z, nNew);
        if( z2==0 ){ rc = ps_nomem(err); break; }
        o->z = z2; o->nAlloc = nNew;
      }
    }
    if( xPoll && xPoll(pPollArg) ){ rc = ps_interrupted(err); break; }
    size_t chunk = o->nAlloc - 1 - nBuf;
    if( chunk > PS_INFLATE_STEP ) chunk = PS_INFLATE_STEP;   /* an interrupt poll every 16 MiB */
    if( chunk > maxOut - nOut ) chunk = (size_t)(maxOut - nOut);   /* (nOut never passes maxOut) */
    char *zOut = o->z + nBuf;
    if( !bDeflate ){
      if( chunk > inLeft ) chunk = (size_t)inLeft;
      memcpy(zOut, pIn, chunk);
      pIn += chunk; inLeft -= chunk;
    }else{
      if( zs.avail_in==0 ){
        uInt k = inLeft > (1u<<30) ? (1u<<30) : (uInt)inLeft;
        zs.next_in = (Bytef*)pIn; zs.avail_in = k;
        pIn += k; inLeft -= k;
      }
      zs.next_out = (Bytef*)zOut; zs.avail_out = (uInt)chunk;
      zrc = inflate(&zs, Z_NO_FLUSH);
      chunk -= zs.avail_out;
    }
    crc = crc32_z(crc, (const Bytef*)zOut, chunk);
    nBuf += chunk; nOut += chunk;
    if( !bDeflate ) continue;
    if( zrc==Z_STREAM_END ) break;
    if( zrc==Z_BUF_ERROR && zs.avail_in==0 && inLeft==0 ){
      rc = ps_err(err, "ZIP member '%s': the deflate data ends early (truncated archive?)", zName);
      break;
    }
    if( zrc!=Z_OK && zrc!=Z_BUF_ERROR ){
      rc = zrc==Z_MEM_ERROR ? ps_nomem(err) : ps_err(err, "ZIP member '%s': corrupt data (zlib error %d)", zName, zrc);
      break;
    }
  }
  if( bDeflate ) inflateEnd(&zs);
  if( rc==PS_OK && crc!=fi.crc ) rc = ps_err(err, "ZIP member '%s': CRC mismatch (corrupt archive)", zName);
  if( rc==PS_OK && o->fd>=0 ){
    if( ps_spill_flush(o, nBuf) ){
      ps_spill_free(o);
      return read_member(uf, mf, zName, maxOut, 0, o, pn, xPoll, pPollArg, err);
    }
    free(o->z); o->z = 0; o->nAlloc = 0;
  }
  if( rc ){ ps_spill_free(o); return rc; }
  if( o->fd<0 ) o->z[nBuf] = 0;
  *pn = (size_t)nOut;
  return PS_OK;
}

/* The current member's name into z[0..n) (NUL-terminated). minizip copies a name that does not
** fit without a terminator, so the length is checked first: a longer name is refused. */
static int member_name(unzFile uf, char *z, size_t n, PsErr *err){
  unz_file_info64 fi;
  if( unzGetCurrentFileInfo64(uf, &fi, z, (uLong)n, 0, 0, 0, 0)!=UNZ_OK ) return ps_err(err, "damaged ZIP directory");
  if( fi.size_filename >= n ){
    return ps_err(err, "ZIP member name of %lu bytes is longer than the %zu accepted (refused)",
                  (unsigned long)fi.size_filename, n - 1);
  }
  z[fi.size_filename] = 0;
  return PS_OK;
}

/* A member name that could not escape a directory it were extracted to: not empty, not
** absolute, no backslash, no ".." component. */
static int safe_member(const char *z){
  if( z[0]==0 || z[0]=='/' || strchr(z, '\\') ) return 0;
  for(const char *p = z; *p; ){
    const char *e = strchr(p, '/');
    size_t k = e ? (size_t)(e - p) : strlen(p);
    if( k==2 && p[0]=='.' && p[1]=='.' ) return 0;
    p += k + (e ? 1 : 0);
  }
  return 1;
}

int ps_unzip_capture(const void *p, size_t n, uint64_t maxOut, uint64_t nSpill, PsSpill *o, size_t *pn,
                     char *zMember, size_t nMember, int (*xPoll)(void*), void *pPollArg, PsErr *err){
  if( maxOut==0 ) maxOut = PS_MAX_INFLATED;
  MemFile mf = { p, n, 0 };
  zlib_filefunc64_def io;
  memset(&io, 0, sizeof(io));
  io.zopen64_file = mem_open; io.zread_file = mem_read; io.zwrite_file = mem_write;
  io.ztell64_file = mem_tell; io.zseek64_file = mem_seek; io.zclose_file = mem_close;
  io.zerror_file = mem_error; io.opaque = &mf;
  unzFile uf = unzOpen2_64("mem", &io);
  if( uf==0 ) return ps_err(err, "not a readable ZIP archive (no central directory: truncated?)");
  int rc = PS_OK;
  char zWant[256] = "";
  unz_global_info64 gi;
  if( unzGetGlobalInfo64(uf, &gi)!=UNZ_OK ){ rc = ps_err(err, "damaged ZIP archive"); goto out; }
  /* every member name must be safe, even those we do not read */
  for(int r = unzGoToFirstFile(uf); r==UNZ_OK; r = unzGoToNextFile(uf)){
    char zName[512];
    if( (rc = member_name(uf, zName, sizeof(zName), err))!=PS_OK ) goto out;
    if( !safe_member(zName) ){
      rc = ps_err(err, "ZIP member name '%s' is empty, absolute or has a '..' component (refused)", zName);
      goto out;
    }
  }
  if( unzLocateFile(uf, "manifest.json", 1)==UNZ_OK ){
    PsSpill om = { 0, 0, -1, 0 };
    size_t nm;
    rc = read_member(uf, &mf, "manifest.json", 1u<<24, 0, &om, &nm, xPoll, pPollArg, err);
    if( rc ) goto out;
    char *zm = om.z;
    size_t v, w;
    const char *zKey = 0;
    if( ps_json_find_key(zm, nm, ps_json_ws(zm, nm, 0), "entries", &v)==1 && zm[v]=='{'
     && ps_json_find_key(zm, nm, v, "json", &w)==1 && zm[w]=='"' ) zKey = "entries.json";
    else if( ps_json_find_key(zm, nm, ps_json_ws(zm, nm, 0), "latest", &v)==1 && zm[v]=='{'
     && ps_json_find_key(zm, nm, v, "json", &w)==1 && zm[w]=='"' ) zKey = "latest.json";
    if( zKey ){
      size_t e = w + 1;
      while( e<nm && zm[e]!='"' && zm[e]!='\\' ) e++;
      if( e - w - 1 < sizeof(zWant) ) snprintf(zWant, sizeof(zWant), "%.*s", (int)(e - w - 1), zm + w + 1);
    }
    free(zm);
    if( zWant[0]==0 ){ rc = ps_err(err, "the archive's manifest.json names no report (entries.json)"); goto out; }
    if( unzLocateFile(uf, zWant, 1)!=UNZ_OK ){ rc = ps_err(err, "the archive has no member '%s' (named by manifest.json)", zWant); goto out; }
  }else{
    if( gi.number_entry!=1 ){
      rc = ps_err(err, "the ZIP archive holds %llu members and no manifest.json saying which is the capture",
                  (unsigned long long)gi.number_entry);
      goto out;
    }
    unzGoToFirstFile(uf);
    if( (rc = member_name(uf, zWant, sizeof(zWant), err))!=PS_OK ) goto out;
  }
  rc = read_member(uf, &mf, zWant, maxOut, nSpill, o, pn, xPoll, pPollArg, err);
  if( rc==PS_OK && zMember ) snprintf(zMember, nMember, "%s", zWant);
out:
  unzClose(uf);
  return rc;
}
