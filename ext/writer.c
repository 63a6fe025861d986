/*
** writer.c — output files for the report writers (see writer.h): text buffers, CSV and
** Markdown cells, JSON re-indentation, atomic file writes and ZIP archives through minizip
** (Debian's libminizip, zlib's contrib/minizip).
*/
#include "writer.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <minizip/zip.h>

int ps_buf_puts(PsBuf *b, const char *z){ return ps_buf_append(b, z, strlen(z)); }

int ps_buf_printf(PsBuf *b, const char *fmt, ...){
  char small[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(small, sizeof(small), fmt, ap);
  va_end(ap);
  if( n<0 ) return -1;
  if( (size_t)n < sizeof(small) ) return ps_buf_append(b, small, (size_t)n);
  char *big = malloc((size_t)n + 1);
  if( big==0 ) return -1;
  va_start(ap, fmt);
  vsnprintf(big, (size_t)n + 1, fmt, ap);
  va_end(ap);
  int rc = ps_buf_append(b, big, (size_t)n);
  free(big);
  return rc;
}

int ps_csv_cell(PsBuf *b, const char *z, size_t n){
  int bQuote = 0;
  for(size_t i=0; i<n; i++){
    char c = z[i];
    if( c==',' || c=='"' || c=='\n' || c=='\r' ){ bQuote = 1; break; }
  }
  if( !bQuote ) return ps_buf_append(b, z, n);
  if( ps_buf_append(b, "\"", 1) ) return -1;
  size_t s = 0;
  for(size_t i=0; i<n; i++){
    if( z[i]=='"' ){                                       /* write up to it, then "" */
      if( ps_buf_append(b, z+s, i-s) || ps_buf_append(b, "\"\"", 2) ) return -1;
      s = i+1;
    }
  }
  if( ps_buf_append(b, z+s, n-s) ) return -1;
  return ps_buf_append(b, "\"", 1);
}

int ps_md_cell(PsBuf *b, const char *z, size_t n){
  size_t s = 0;
  for(size_t i=0; i<n; i++){
    const char *r = z[i]=='|' ? "\\|" : (z[i]=='\n' || z[i]=='\r') ? " " : 0;
    if( r ){
      if( ps_buf_append(b, z+s, i-s) || ps_buf_puts(b, r) ) return -1;
      s = i+1;
    }
  }
  return ps_buf_append(b, z+s, n-s);
}

static int indent(PsBuf *b, int depth){
  if( ps_buf_append(b, "\n", 1) ) return -1;
  for(int k=0; k<depth; k++) if( ps_buf_append(b, "  ", 2) ) return -1;
  return 0;
}

int ps_json_pretty(PsBuf *b, const char *z, size_t n){
  int depth = 0;
  for(size_t i=0; i<n; i++){
    char c = z[i];
    switch( c ){
      case '"': {
        size_t s = i++;
        while( i<n && z[i]!='"' ){ if( z[i]=='\\' ) i++; i++; }
        if( ps_buf_append(b, z+s, (i<n ? i+1 : n) - s) ) return -1;
        break;
      }
      case '{': case '[': {
        size_t j = i+1;
        while( j<n && (z[j]==' ' || z[j]=='\n' || z[j]=='\t' || z[j]=='\r') ) j++;
        if( j<n && (z[j]=='}' || z[j]==']') ){                /* empty: {} / [] */
          char e[2] = { c, z[j] };
          if( ps_buf_append(b, e, 2) ) return -1;
          i = j;
          break;
        }
        if( ps_buf_append(b, &c, 1) || indent(b, ++depth) ) return -1;
        break;
      }
      case '}': case ']':
        if( indent(b, --depth) || ps_buf_append(b, &c, 1) ) return -1;
        break;
      case ',':
        if( ps_buf_append(b, ",", 1) || indent(b, depth) ) return -1;
        break;
      case ':':
        if( ps_buf_append(b, ": ", 2) ) return -1;
        break;
      case ' ': case '\n': case '\t': case '\r':
        break;
      default:
        if( ps_buf_append(b, &c, 1) ) return -1;
    }
  }
  return 0;
}

int ps_safe_name(const char *zName){
  if( zName==0 || zName[0]==0 ) return 0;
  if( strcmp(zName, ".")==0 || strcmp(zName, "..")==0 ) return 0;
  return strchr(zName, '/')==0 && strchr(zName, '\\')==0;
}

/* A temporary file next to zPath: "<dir>/.<base>.tmp.XXXXXX". */
static int temp_open(const char *zPath, char **pzTmp, PsErr *err){
  const char *slash = strrchr(zPath, '/');
  size_t nDir = slash ? (size_t)(slash - zPath) + 1 : 0;
  const char *zBase = zPath + nDir;
  if( zBase[0]==0 ){ ps_err(err, "'%s' names a directory, not a file", zPath); return -1; }
  size_t n = strlen(zPath) + 16;
  char *zTmp = malloc(n);
  if( zTmp==0 ){ ps_nomem(err); return -1; }
  snprintf(zTmp, n, "%.*s.%s.tmp.XXXXXX", (int)nDir, zPath, zBase);
  int fd = mkstemp(zTmp);
  if( fd<0 ){
    int e = errno;
    free(zTmp);
    if( nDir ){
      char zDir[4096];
      snprintf(zDir, sizeof(zDir), "%.*s", (int)(nDir > 1 ? nDir-1 : 1), zPath);
      struct stat st;
      if( stat(zDir, &st)!=0 ){ ps_err(err, "cannot write '%s': directory '%s' does not exist", zPath, zDir); return -1; }
    }
    ps_err(err, "cannot write '%s': %s", zPath, strerror(e));
    return -1;
  }
  fchmod(fd, 0644);
  *pzTmp = zTmp;
  return fd;
}

int ps_write_file(const char *zPath, const void *p, size_t n, PsErr *err){
  char *zTmp = 0;
  int fd = temp_open(zPath, &zTmp, err);
  if( fd<0 ) return err->rc==PS_NOMEM ? PS_NOMEM : PS_ERROR;
  const char *c = p;
  size_t done = 0;
  while( done<n ){
    ssize_t w = write(fd, c+done, n-done);
    if( w<0 && errno==EINTR ) continue;
    if( w<=0 ){
      int e = w<0 ? errno : ENOSPC;
      close(fd); unlink(zTmp); free(zTmp);
      return ps_err(err, "cannot write '%s': %s", zPath, strerror(e));
    }
    done += (size_t)w;
  }
  if( fsync(fd)!=0 || close(fd)!=0 ){
    int e = errno;
    unlink(zTmp); free(zTmp);
    return ps_err(err, "cannot write '%s': %s", zPath, strerror(e));
  }
  if( rename(zTmp, zPath)!=0 ){
    int e = errno;
    unlink(zTmp); free(zTmp);
    return ps_err(err, "cannot write '%s': %s", zPath, strerror(e));
  }
  free(zTmp);
  return PS_OK;
}

struct PsZip {
  zipFile zf;
  char *zPath, *zTmp;
};

PsZip *ps_zip_open(const char *zPath, PsErr *err){
  char *zTmp = 0;
  int fd = temp_open(zPath, &zTmp, err);
  if( fd<0 ) return 0;
  close(fd);
  PsZip *z = calloc(1, sizeof(*z));
  char *zP = strdup(zPath);
  if( z==0 || zP==0 ){ free(z); free(zP); unlink(zTmp); free(zTmp); ps_nomem(err); return 0; }
  z->zf = zipOpen64(zTmp, APPEND_STATUS_CREATE);
  if( z->zf==0 ){
    ps_err(err, "cannot write '%s': cannot create the archive", zPath);
    unlink(zTmp); free(zTmp); free(zP); free(z);
    return 0;
  }
  z->zPath = zP; z->zTmp = zTmp;
  return z;
}

static int zip_write_all(zipFile zf, const void *p, size_t n){
  const char *c = p;
  while( n ){
    unsigned k = n > (1u<<30) ? (1u<<30) : (unsigned)n;
    if( zipWriteInFileInZip(zf, c, k)!=ZIP_OK ) return -1;
    c += k; n -= k;
  }
  return 0;
}

int ps_zip_add(PsZip *z, const char *zName, const void *p, size_t n, PsErr *err){
  if( !ps_safe_name(zName) ) return ps_err(err, "'%s' is not a safe archive member name", zName);
  zip_fileinfo zi; memset(&zi, 0, sizeof(zi));
  time_t now = time(0);
  struct tm tm; gmtime_r(&now, &tm);
  zi.tmz_date.tm_sec = (unsigned)tm.tm_sec; zi.tmz_date.tm_min = (unsigned)tm.tm_min;
  zi.tmz_date.tm_hour = (unsigned)tm.tm_hour; zi.tmz_date.tm_mday = (unsigned)tm.tm_mday;
  zi.tmz_date.tm_mon = (unsigned)tm.tm_mon; zi.tmz_date.tm_year = (unsigned)tm.tm_year + 1900;
  if( zipOpenNewFileInZip64(z->zf, zName, &zi, 0, 0, 0, 0, 0, Z_DEFLATED, Z_DEFAULT_COMPRESSION, n >= 0xffffffffu)!=ZIP_OK
   || zip_write_all(z->zf, p, n)
   || zipCloseFileInZip(z->zf)!=ZIP_OK ){
    return ps_err(err, "cannot write '%s': adding member '%s' failed (disk full?)", z->zPath, zName);
  }
  return PS_OK;
}

int ps_zip_close(PsZip *z, int bCommit, PsErr *err){
  int rc = PS_OK;
  if( z==0 ) return PS_OK;
  if( zipClose(z->zf, 0)!=ZIP_OK && bCommit ){
    rc = ps_err(err, "cannot write '%s': closing the archive failed (disk full?)", z->zPath);
    bCommit = 0;
  }
  if( bCommit && rename(z->zTmp, z->zPath)!=0 ){
    rc = ps_err(err, "cannot write '%s': %s", z->zPath, strerror(errno));
    bCommit = 0;
  }
  if( !bCommit ) unlink(z->zTmp);
  free(z->zTmp); free(z->zPath); free(z);
  return rc;
}
