/*
** zipsrc.c — a capture inside a ZIP archive (the newengine StarProfiler's dated report
** archive, or any ZIP holding one capture), read from memory through zlib's minizip.
**
** Which member is the capture: the one manifest.json names in "entries.json" (the StarProfiler
** archive's manifest v2), else "latest.json"; without a manifest, the archive's only member.
** The member is inflated into a heap buffer that becomes the capture's bytes. Errors: a member
** name that is empty, absolute or has a ".." component, a member larger than the inflate limit, a bad CRC, a
** damaged archive, or an archive that does not say which member to read.
*/
#include "source.h"
#include "json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <minizip/unzip.h>

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
static long mem_seek(voidpf opaque, voidpf stream, ZPOS64_T off, int origin){
  MemFile *m = stream; (void)opaque;
  uint64_t base = origin==ZLIB_FILEFUNC_SEEK_SET ? 0 : origin==ZLIB_FILEFUNC_SEEK_CUR ? m->pos : m->n;
  if( off > m->n || base + off > m->n ) return -1;
  m->pos = base + off;
  return 0;
}
static int mem_close(voidpf opaque, voidpf stream){ (void)opaque; (void)stream; return 0; }
static int mem_error(voidpf opaque, voidpf stream){ (void)opaque; (void)stream; return 0; }

/* Inflates the current member into a new buffer (NUL-terminated). */
static int read_member(unzFile uf, const char *zName, uint64_t maxOut, char **pz, size_t *pn,
                       PsSource *pPoll, PsErr *err){
  unz_file_info64 fi;
  if( unzGetCurrentFileInfo64(uf, &fi, 0, 0, 0, 0, 0, 0)!=UNZ_OK ) return ps_err(err, "ZIP member '%s': damaged entry", zName);
  if( fi.uncompressed_size > maxOut ){
    return ps_err(err, "ZIP member '%s' inflates to %llu bytes, over the limit of %llu bytes",
                  zName, (unsigned long long)fi.uncompressed_size, (unsigned long long)maxOut);
  }
  if( unzOpenCurrentFile(uf)!=UNZ_OK ) return ps_err(err, "ZIP member '%s': unsupported or damaged (encrypted?)", zName);
  size_t cap = (size_t)fi.uncompressed_size + 1, n = 0;
  char *z = malloc(cap);
  if( z==0 ){ unzCloseCurrentFile(uf); return ps_nomem(err); }
  for(;;){
    if( n + 1 >= cap ){
      /* the directory's size was wrong: the data decides, within the limit */
      if( cap > maxOut ){ free(z); unzCloseCurrentFile(uf); return ps_err(err, "ZIP member '%s' inflates past the limit of %llu bytes", zName, (unsigned long long)maxOut); }
      char *z2 = realloc(z, cap*2);
      if( z2==0 ){ free(z); unzCloseCurrentFile(uf); return ps_nomem(err); }
      z = z2; cap *= 2;
    }
    if( pPoll && ps_source_poll(pPoll) ){ free(z); unzCloseCurrentFile(uf); return ps_interrupted(err); }
    size_t want = cap - 1 - n;
    if( want > (16u<<20) ) want = 16u<<20;   /* an interrupt poll every 16 MiB */
    int k = unzReadCurrentFile(uf, z + n, (unsigned)want);
    if( k<0 ){ free(z); unzCloseCurrentFile(uf); return ps_err(err, "ZIP member '%s': corrupt data (zlib error %d)", zName, k); }
    if( k==0 ) break;
    n += (size_t)k;
  }
  if( unzCloseCurrentFile(uf)==UNZ_CRCERROR ){ free(z); return ps_err(err, "ZIP member '%s': CRC mismatch (corrupt archive)", zName); }
  z[n] = 0;
  *pz = z; *pn = n;
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

int ps_unzip_capture(const void *p, size_t n, uint64_t maxOut, char **pz, size_t *pn,
                     char *zMember, size_t nMember, PsSource *pPoll, PsErr *err){
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
    char *zm; size_t nm;
    rc = read_member(uf, "manifest.json", 1u<<24, &zm, &nm, pPoll, err);
    if( rc ) goto out;
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
  rc = read_member(uf, zWant, maxOut, pz, pn, pPoll, err);
  if( rc==PS_OK && zMember ) snprintf(zMember, nMember, "%s", zWant);
out:
  unzClose(uf);
  return rc;
}
