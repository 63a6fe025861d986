/*
** writer.c — output files for the report writers (see writer.h): text buffers, CSV and
** Markdown cells, JSON re-indentation, atomic file writes, report sets committed as a set, and
** ZIP archives through minizip (Debian's libminizip, zlib's contrib/minizip).
**
** How a file reaches its path (every writer): the target is looked at first (nothing there, or
** a regular file; a device, FIFO, socket, directory or symbolic link is refused by name); the
** bytes go to "<dir>/.<name>.tmp.<hex>" (a name too long for that: a shortened one, temp_stem)
** created with O_EXCL and mode 0666 (so the umask
** applies), which takes the replaced file's permission bits (and owner, where the process may
** set it); the temporary file is flock()ed for its whole life, fsync()ed and renamed over the
** target. A run killed mid-write leaves its temporary file unlocked: the next write to the same
** target removes those older than two seconds (a live writer's is locked and kept).
*/
#include "writer.h"

#include "../source/source.h"          /* ps_file_type, ps_interrupted */

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <minizip/zip.h>
#include <libdeflate.h>


/* A cell a spreadsheet would read as a formula (OWASP "CSV injection"): its first byte is
** '=', '+', '-', '@', a tab or a carriage return. */
static int csv_formula_lead(const char *z, size_t n){
  return n>0 && (z[0]=='=' || z[0]=='+' || z[0]=='-' || z[0]=='@' || z[0]=='\t' || z[0]=='\r');
}

int ps_csv_cell_ex(PsBuf *b, const char *z, size_t n, unsigned flags){
  if( !ps_text_check(z, n, 0) ){
    /* a broken character: the repaired text is the cell (rare: TEXT that SQLite was handed as
    ** it was, CAST(x'ff' AS TEXT)) */
    size_t m = ps_text_repair(z, n, 0);
    char *zFix = malloc(m ? m : 1);
    if( zFix==0 ) return -1;
    ps_text_repair(z, n, zFix);
    int rc = ps_csv_cell_ex(b, zFix, m, flags);
    free(zFix);
    return rc;
  }
  int bPrefix = (flags & PS_CSV_FORMULA_PREFIX) && csv_formula_lead(z, n);
  int bQuote = 0;
  for(size_t i=0; i<n; i++){
    char c = z[i];
    if( c==',' || c=='"' || c=='\n' || c=='\r' ){ bQuote = 1; break; }
  }
  if( !bQuote ){
    if( bPrefix && ps_buf_append(b, "'", 1) ) return -1;
    return ps_buf_append(b, z, n);
  }
  if( ps_buf_append(b, bPrefix ? "\"'" : "\"", bPrefix ? 2 : 1) ) return -1;
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

int ps_csv_cell(PsBuf *b, const char *z, size_t n){ return ps_csv_cell_ex(b, z, n, 0); }

/* A byte that is part of a word for emphasis rules: an ASCII letter or digit, or any byte of a
** non-ASCII character (CommonMark and Python-Markdown count Unicode letters as word characters). */
static int md_word(unsigned char c){
  return (c>='0' && c<='9') || (c>='a' && c<='z') || (c>='A' && c<='Z') || c>=0x80;
}

int ps_md_cell(PsBuf *b, const char *zIn, size_t nIn){
  PsBuf t; memset(&t, 0, sizeof(t));
  const char *z = zIn; size_t n = nIn;
  if( !ps_text_check(zIn, nIn, 0) ){
    if( ps_buf_text(&t, zIn, nIn) ){ ps_buf_free(&t); return -1; }
    z = t.z; n = t.n;
  }
  /* an underscore inside a word never opens or closes emphasis; one elsewhere can, but emphasis
  ** takes two of them: a cell with fewer than two such keeps its underscores as they are, so
  ** ordinary names ("render_frame", "Module._compile") read the same in the Markdown source */
  int nEdge = 0;
  for(size_t i=0; i<n && nEdge<2; i++){
    if( z[i]=='_' && !(i>0 && i+1<n && md_word((unsigned char)z[i-1]) && md_word((unsigned char)z[i+1])) ) nEdge++;
  }
  size_t s = 0;
  int bad = 0;
  for(size_t i=0; i<n && !bad; i++){
    unsigned char c = (unsigned char)z[i];
    const char *r = 0;
    switch( c ){
      case '|': r = "\\|"; break;
      case '\\': r = "\\\\"; break;
      case '`': r = "\\`"; break;
      case '*': r = "\\*"; break;
      case '[': r = "\\["; break;
      case ']': r = "\\]"; break;
      case '<': r = "&lt;"; break;
      case '>': r = "&gt;"; break;
      case '&': r = "&amp;"; break;
      case '_':
        if( nEdge>=2 && !(i>0 && i+1<n && md_word((unsigned char)z[i-1]) && md_word((unsigned char)z[i+1])) ) r = "\\_";
        break;
      default:
        if( c<0x20 ) r = " ";                              /* line breaks and other controls */
    }
    if( r ){
      bad = ps_buf_append(b, z+s, i-s) || ps_buf_puts(b, r);
      s = i+1;
    }
  }
  if( !bad ) bad = ps_buf_append(b, z+s, n-s);
  ps_buf_free(&t);
  return bad ? -1 : 0;
}

int ps_md_code(PsBuf *b, const char *zIn, size_t nIn){
  PsBuf t; memset(&t, 0, sizeof(t));
  if( ps_buf_text(&t, zIn, nIn) ){ ps_buf_free(&t); return -1; }
  size_t nRun = 0, nMax = 0;
  for(size_t i=0; i<t.n; i++){
    if( (unsigned char)t.z[i]<0x20 ) t.z[i] = ' ';         /* one line: a break would end the span */
    if( t.z[i]=='`' ){ if( ++nRun>nMax ) nMax = nRun; }else nRun = 0;
  }
  /* a fence of more backticks than the longest run inside; a space between it and content that
  ** begins or ends with a backtick (both renderers strip it) */
  int bPad = t.n==0 || t.z[0]=='`' || t.z[t.n-1]=='`' || t.z[0]==' ' || t.z[t.n-1]==' ';
  int bad = 0;
  for(size_t k=0; k<=nMax && !bad; k++) bad = ps_buf_append(b, "`", 1);
  if( bPad && !bad ) bad = ps_buf_append(b, " ", 1);
  if( !bad && t.n ) bad = ps_buf_append(b, t.z, t.n);
  if( bPad && !bad ) bad = ps_buf_append(b, " ", 1);
  for(size_t k=0; k<=nMax && !bad; k++) bad = ps_buf_append(b, "`", 1);
  ps_buf_free(&t);
  return bad ? -1 : 0;
}

/* ------------------------------------------------------------------ serde_json's forms */

/* The number literal z[0..n) (valid JSON) as serde_json writes the value it reads: an integer
** within i64/u64 as it is, "-0" as -0.0 (serde reads it as a float), anything else as the
** shortest float (ps_fmt_float). */
static int json_number(PsBuf *b, const char *z, size_t n){
  int bInt = 1;
  for(size_t i=0; i<n; i++) if( z[i]=='.' || z[i]=='e' || z[i]=='E' ){ bInt = 0; break; }
  if( bInt ){
    int neg = z[0]=='-';
    const char *d = z + neg; size_t nd = n - (size_t)neg;
    const char *zMax = neg ? "9223372036854775808" : "18446744073709551615";
    size_t nMax = strlen(zMax);
    int bFits = nd < nMax || (nd==nMax && memcmp(d, zMax, nMax)<=0);
    if( neg && nd==1 && d[0]=='0' ) bFits = 0;                /* -0 */
    if( bFits ) return ps_buf_append(b, z, n);
  }
  char t[400], f[40];
  size_t m = n < sizeof(t)-1 ? n : sizeof(t)-1;
  memcpy(t, z, m); t[m] = 0;
  size_t k = ps_fmt_float(f, strtod(t, 0));
  return ps_buf_append(b, f, k);
}

static int indent(PsBuf *b, int depth){
  if( ps_buf_append(b, "\n", 1) ) return -1;
  for(int k=0; k<depth; k++) if( ps_buf_append(b, "  ", 2) ) return -1;
  return 0;
}

int ps_json_pretty(PsBuf *b, const char *z, size_t n){
  int depth = 0;
  PsBuf scratch; memset(&scratch, 0, sizeof(scratch));
  int rc = 0;
  for(size_t i=0; i<n && rc==0; i++){
    char c = z[i];
    switch( c ){
      case '"': {
        size_t s = i++;
        int bEsc = 0;
        while( i<n && z[i]!='"' ){ if( z[i]=='\\' ){ i++; bEsc = 1; } i++; }
        size_t e = i<n ? i+1 : n;
        size_t nIn = (i<n ? i : n) - (s+1);               /* the bytes between the quotes */
        if( !bEsc && ps_text_check(z+s+1, nIn, 0) ){ rc = ps_buf_append(b, z+s, e-s); break; }
        if( !bEsc ){ rc = ps_json_serde_string(b, z+s+1, nIn); break; }   /* repaired */
        /* escapes: decoded and written again as serde_json escapes ("\/" is "/", "\u00e9"
        ** is the UTF-8 of é, controls other than \b \f \n \r \t as \u00XX) */
        size_t j = s; const char *d; size_t dn;
        if( ps_json_string(z, n, &j, &scratch, &d, &dn, 0) ) rc = ps_buf_append(b, z+s, e-s);
        else rc = ps_json_serde_string(b, d, dn);
        break;
      }
      case '{': case '[': {
        size_t j = i+1;
        while( j<n && (z[j]==' ' || z[j]=='\n' || z[j]=='\t' || z[j]=='\r') ) j++;
        if( j<n && (z[j]=='}' || z[j]==']') ){                /* empty: {} / [] */
          char e[2] = { c, z[j] };
          rc = ps_buf_append(b, e, 2);
          i = j;
          break;
        }
        rc = ps_buf_append(b, &c, 1) || indent(b, ++depth) ? -1 : 0;
        break;
      }
      case '}': case ']':
        rc = indent(b, --depth) || ps_buf_append(b, &c, 1) ? -1 : 0;
        break;
      case ',':
        rc = ps_buf_append(b, ",", 1) || indent(b, depth) ? -1 : 0;
        break;
      case ':':
        rc = ps_buf_append(b, ": ", 2);
        break;
      case ' ': case '\n': case '\t': case '\r':
        break;
      default:
        if( c=='-' || (c>='0' && c<='9') ){
          size_t s = i;
          while( i+1<n && (z[i+1]=='-' || z[i+1]=='+' || z[i+1]=='.' || z[i+1]=='e' || z[i+1]=='E'
                           || (z[i+1]>='0' && z[i+1]<='9')) ) i++;
          rc = json_number(b, z+s, i+1-s);
        }else{
          rc = ps_buf_append(b, &c, 1);
        }
    }
  }
  ps_buf_free(&scratch);
  return rc;
}

int ps_safe_name(const char *zName){
  if( zName==0 || zName[0]==0 ) return 0;
  if( strcmp(zName, ".")==0 || strcmp(zName, "..")==0 ) return 0;
  return strchr(zName, '/')==0 && strchr(zName, '\\')==0;
}

/* ------------------------------------------------------------------ targets */

/* Looks at what zPath names before a writer replaces it. PS_OK with *pbExists 0 (nothing there)
** or 1 (a regular file, *pSt its stat: the replacement keeps its permission bits and owner);
** anything else at the path is an error naming it. */
static int target_check(const char *zPath, int *pbExists, struct stat *pSt, PsErr *err){
  char zFit[PS_PATH_FIT+1];
  const char *zP = ps_path_fit(zPath, zFit);
  *pbExists = 0;
  if( lstat(zPath, pSt)!=0 ){
    if( errno==ENOENT ) return PS_OK;
    return ps_err(err, "cannot write '%s': %s", zP, strerror(errno));
  }
  if( !S_ISREG(pSt->st_mode) ){
    return ps_err(err, "cannot write '%s': it is %s, and writers replace regular files only",
                  zP, ps_file_type(pSt->st_mode));
  }
  *pbExists = 1;
  return PS_OK;
}

/* Gives the new file fd the permission bits and owner of the file it replaces (pOld). The owner
** is kept only where the process may set it (root); failing that the writer owns it. */
static void keep_mode(int fd, int bExists, const struct stat *pOld){
  if( !bExists ) return;
  if( pOld->st_uid!=geteuid() || pOld->st_gid!=getegid() ){
    (void)!fchown(fd, pOld->st_uid, pOld->st_gid);     /* may fail: the writer then owns it */
  }
  fchmod(fd, pOld->st_mode & 0777);
}

/* The directory part of zPath ("." when it has none) into buf; the base name's offset. */
static size_t split_dir(const char *zPath, char *buf, size_t nBuf){
  const char *slash = strrchr(zPath, '/');
  size_t nDir = slash ? (size_t)(slash - zPath) + 1 : 0;
  if( nDir==0 ) snprintf(buf, nBuf, ".");
  else snprintf(buf, nBuf, "%.*s", (int)(nDir > 1 ? nDir-1 : 1), zPath);
  return nDir;
}

/* Removes the regular files in the directory fd (one level; what a staging directory holds). */
static void remove_dir_files(int fd){
  int fd2 = dup(fd);
  if( fd2<0 ) return;
  DIR *d = fdopendir(fd2);
  if( d==0 ){ close(fd2); return; }
  struct dirent *e;
  while( (e = readdir(d))!=0 ){
    struct stat st;
    if( fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW)==0 && S_ISREG(st.st_mode) ){
      unlinkat(fd, e->d_name, 0);
    }
  }
  closedir(d);
}

/* Removes what killed writers left in zDir: regular files and (staging) directories whose name
** starts with zPrefix, that no live writer holds locked and that were last modified more than
** PS_STALE_SECONDS ago (a writer takes its lock right after creating the entry: the age covers
** that instant). Best effort: whatever cannot be removed stays. */
#define PS_STALE_SECONDS 2
static void clean_stale(const char *zDir, const char *zPrefix){
  DIR *d = opendir(zDir);
  if( d==0 ) return;
  int dfd = dirfd(d);
  size_t nPre = strlen(zPrefix);
  time_t now = time(0);
  struct dirent *e;
  while( (e = readdir(d))!=0 ){
    if( strncmp(e->d_name, zPrefix, nPre)!=0 ) continue;
    int fd = openat(dfd, e->d_name, O_RDONLY|O_NOFOLLOW|O_NONBLOCK|O_CLOEXEC|O_NOCTTY);
    if( fd<0 ) continue;
    struct stat st;
    if( fstat(fd, &st)==0 && (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))
     && st.st_mtime < now - PS_STALE_SECONDS && flock(fd, LOCK_EX|LOCK_NB)==0 ){
      if( S_ISDIR(st.st_mode) ){
        remove_dir_files(fd);
        unlinkat(dfd, e->d_name, AT_REMOVEDIR);
      }else{
        unlinkat(dfd, e->d_name, 0);
      }
    }
    close(fd);
  }
  closedir(d);
}

/* A name no other writer uses: pid, a process-wide counter, the clock. */
static unsigned long long unique_tag(int nTry){
  static unsigned nCounter = 0;
  unsigned k = __atomic_fetch_add(&nCounter, 1, __ATOMIC_RELAXED);
  struct timespec ts; clock_gettime(CLOCK_REALTIME, &ts);
  unsigned long long x = ((unsigned long long)getpid() << 40) ^ ((unsigned long long)k << 20)
                       ^ (unsigned long long)ts.tv_nsec ^ ((unsigned long long)nTry * 0x9E3779B97F4A7C15ull);
  return x & 0xffffffffffffull;
}

/* The temporary files of a target are named "<dir>/<stem>.tmp.<12 hex>". The stem is "." and
** the base name, or, for a base name too long for that to fit in NAME_MAX (over 237 bytes:
** names of 238 to 255 bytes are legal), "." and its first TEMP_HEAD bytes (cut before a
** character) and "." and 16 hex digits of a fixed hash of the whole base name (ps_hash_fixed:
** the same in every process, so the next write of the same target finds what a killed one left).
** Writes the stem into zStem (TEMP_STEM_MAX bytes). */
#define TEMP_SUFFIX_LEN 17          /* ".tmp." and 12 hex digits */
#define TEMP_HEAD 200
#define TEMP_STEM_MAX (NAME_MAX + 1)     /* at most ".", NAME_MAX - 17 bytes of name, NUL */
static void temp_stem(const char *zBase, char *zStem){
  size_t nBase = strlen(zBase);
  if( 1 + nBase + TEMP_SUFFIX_LEN <= NAME_MAX ){
    snprintf(zStem, TEMP_STEM_MAX, ".%s", zBase);
    return;
  }
  size_t nHead = TEMP_HEAD < nBase ? TEMP_HEAD : nBase;
  while( nHead>0 && ((unsigned char)zBase[nHead] & 0xC0)==0x80 ) nHead--;
  snprintf(zStem, TEMP_STEM_MAX, ".%.*s.%016llx", (int)nHead, zBase,
           (unsigned long long)ps_hash_fixed(zBase, nBase));
}

/* Creates and locks the temporary file "<dir>/<stem>.tmp.<hex>" next to zPath (temp_stem; mode
** 0666 less the umask), after removing stale ones of the same target. Returns the fd, *pzTmp
** (malloc'ed); -1 with err set. */
static int temp_open(const char *zPath, char **pzTmp, PsErr *err){
  char zFit[PS_PATH_FIT+1];
  const char *zP = ps_path_fit(zPath, zFit);
  char zDir[4096];
  size_t nDir = split_dir(zPath, zDir, sizeof(zDir));
  const char *zBase = zPath + nDir;
  if( zBase[0]==0 ){ ps_err(err, "'%s' names a directory, not a file", zP); return -1; }
  char zStem[TEMP_STEM_MAX];
  temp_stem(zBase, zStem);
  size_t n = nDir + sizeof(zStem) + 32;
  char *zTmp = malloc(n);
  if( zTmp==0 ){ ps_nomem(err); return -1; }
  snprintf(zTmp, n, "%s.tmp.", zStem);
  if( nDir < sizeof(zDir) ) clean_stale(zDir, zTmp);   /* never a cut-short (other) directory */
  int fd = -1, e = 0;
  for(int nTry=0; nTry<100 && fd<0; nTry++){
    snprintf(zTmp, n, "%.*s%s.tmp.%012llx", (int)nDir, zPath, zStem, unique_tag(nTry));
    fd = open(zTmp, O_RDWR|O_CREAT|O_EXCL|O_CLOEXEC|O_NOFOLLOW, 0666);
    e = errno;
    if( fd<0 && e!=EEXIST ) break;
  }
  if( fd<0 ){
    free(zTmp);
    struct stat st;
    if( nDir && stat(zDir, &st)!=0 ){
      char zDirFit[PS_PATH_FIT+1];
      ps_err(err, "cannot write '%s': directory '%s' does not exist", zP, ps_path_fit(zDir, zDirFit));
      return -1;
    }
    ps_err(err, "cannot write '%s': %s", zP, strerror(e));
    return -1;
  }
  flock(fd, LOCK_EX);                     /* new and ours: never waits */
  *pzTmp = zTmp;
  return fd;
}

/* The last step of every write: the target is looked at again (something may have been put
** there meanwhile), then zTmp replaces it. Frees zTmp, closes fd (the lock goes with it). */
static int temp_commit(int fd, char *zTmp, const char *zPath, int bCommit, PsErr *err){
  char zFit[PS_PATH_FIT+1];
  int rc = PS_OK, bExists;
  struct stat st;
  if( bCommit && (fsync(fd)!=0) ){
    rc = ps_err(err, "cannot write '%s': %s", ps_path_fit(zPath, zFit), strerror(errno));
    bCommit = 0;
  }
  if( bCommit && target_check(zPath, &bExists, &st, err) ){ rc = PS_ERROR; bCommit = 0; }
  if( bCommit && rename(zTmp, zPath)!=0 ){
    rc = ps_err(err, "cannot write '%s': %s", ps_path_fit(zPath, zFit), strerror(errno));
    bCommit = 0;
  }
  if( !bCommit ) unlink(zTmp);
  close(fd);
  free(zTmp);
  return rc;
}

static int write_all(int fd, const void *p, size_t n){
  const char *c = p;
  size_t done = 0;
  while( done<n ){
    ssize_t w = write(fd, c+done, n-done > (1u<<30) ? (1u<<30) : n-done);
    if( w<0 && errno==EINTR ) continue;
    if( w<=0 ) return w<0 ? errno : ENOSPC;
    done += (size_t)w;
  }
  return 0;
}

int ps_write_file(const char *zPath, const void *p, size_t n, PsErr *err){
  int bExists;
  struct stat st;
  if( target_check(zPath, &bExists, &st, err) ) return PS_ERROR;
  char *zTmp = 0;
  int fd = temp_open(zPath, &zTmp, err);
  if( fd<0 ) return err->rc==PS_NOMEM ? PS_NOMEM : PS_ERROR;
  keep_mode(fd, bExists, &st);
  int e = write_all(fd, p, n);
  if( e ){
    char zFit[PS_PATH_FIT+1];
    temp_commit(fd, zTmp, zPath, 0, err);
    return ps_err(err, "cannot write '%s': %s", ps_path_fit(zPath, zFit), strerror(e));
  }
  return temp_commit(fd, zTmp, zPath, 1, err);
}

/* ------------------------------------------------------------------ ZIP archives */

struct PsZip {
  zipFile zf;
  int fd;               /* the locked temporary file; minizip writes through a dup of it */
  char *zPath, *zTmp;   /* where it goes, and its temporary name beside it */
  char *zShow;          /* the path messages name (a staged archive: its final path) */
  /* ps_zip_add's last member, deflated, with its size and CRC: ps_zip_add_again stores it again */
  struct libdeflate_compressor *pDeflate;
  size_t nLast; uint32_t crcLast;
  unsigned char *aDeflated; size_t nDeflated, nDeflatedAlloc;
};

/* minizip's open, on the temporary file already created (and locked) by temp_open: no second
** open by name, so nothing can be swapped in between. */
static voidpf ZCALLBACK zip_fd_open(voidpf opaque, const void *zName, int mode){
  (void)zName; (void)mode;
  int fd = dup(*(int*)opaque);
  if( fd<0 ) return 0;
  FILE *f = fdopen(fd, "w+b");
  if( f==0 ) close(fd);
  return f;
}

/* ps_zip_open, with zShow (NULL: zPath) the path its messages name. */
static PsZip *zip_open(const char *zPath, const char *zShow, PsErr *err){
  int bExists;
  struct stat st;
  if( target_check(zPath, &bExists, &st, err) ) return 0;
  PsZip *z = calloc(1, sizeof(*z));
  char *zP = strdup(zPath), *zS = strdup(zShow ? zShow : zPath);
  if( z==0 || zP==0 || zS==0 ){ free(z); free(zP); free(zS); ps_nomem(err); return 0; }
  z->fd = temp_open(zPath, &z->zTmp, err);
  if( z->fd<0 ){ free(z); free(zP); free(zS); return 0; }
  keep_mode(z->fd, bExists, &st);
  z->zPath = zP; z->zShow = zS;
  zlib_filefunc64_def ff;
  fill_fopen64_filefunc(&ff);
  ff.zopen64_file = zip_fd_open;
  ff.opaque = &z->fd;
  z->zf = zipOpen2_64(z->zTmp, APPEND_STATUS_CREATE, 0, &ff);
  if( z->zf==0 ){
    char zFit[PS_PATH_FIT+1];
    ps_err(err, "cannot write '%s': cannot create the archive", ps_path_fit(zS, zFit));
    temp_commit(z->fd, z->zTmp, zPath, 0, 0);
    free(z->zPath); free(z->zShow); free(z);
    return 0;
  }
  return z;
}

PsZip *ps_zip_open(const char *zPath, PsErr *err){ return zip_open(zPath, 0, err); }

/* A member's file info: dated now (UTC). */
static void zip_member_info(zip_fileinfo *zi){
  memset(zi, 0, sizeof(*zi));
  time_t now = time(0);
  struct tm tm; gmtime_r(&now, &tm);
  zi->tmz_date.tm_sec = (unsigned)tm.tm_sec; zi->tmz_date.tm_min = (unsigned)tm.tm_min;
  zi->tmz_date.tm_hour = (unsigned)tm.tm_hour; zi->tmz_date.tm_mday = (unsigned)tm.tm_mday;
  zi->tmz_date.tm_mon = (unsigned)tm.tm_mon; zi->tmz_date.tm_year = (unsigned)tm.tm_year + 1900;
}

/* Opens member zName (deflated by minizip, dated now; zip64 when it may reach 4 GiB). */
static int zip_member_open(PsZip *z, const char *zName, uint64_t n){
  zip_fileinfo zi;
  zip_member_info(&zi);
  return zipOpenNewFileInZip64(z->zf, zName, &zi, 0, 0, 0, 0, 0, Z_DEFLATED, Z_DEFAULT_COMPRESSION,
                               n >= 0xffffffffu)==ZIP_OK ? 0 : -1;
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

/* minizip reports only that a write failed: errno, read right after, says why. */
static int zip_add_failed(PsZip *z, const char *zName, PsErr *err){
  int e = errno;
  char zFit[PS_PATH_FIT+1];
  return ps_err(err, "cannot write '%s': adding member '%s' failed: %s",
                ps_path_fit(z->zShow, zFit), zName, e ? strerror(e) : "disk full?");
}

/* Deflates p[0..n) into z->aDeflated (libdeflate, level 6: zlib's default level, done faster).
** PS_OK, or PS_NOMEM (z->nDeflated is then 0). */
static int zip_deflate(PsZip *z, const void *p, size_t n, uint32_t crc){
  z->nDeflated = 0;
  if( z->pDeflate==0 && (z->pDeflate = libdeflate_alloc_compressor(6))==0 ) return PS_NOMEM;
  size_t nBound = libdeflate_deflate_compress_bound(z->pDeflate, n);
  if( nBound > z->nDeflatedAlloc ){
    unsigned char *a = realloc(z->aDeflated, nBound);
    if( a==0 ) return PS_NOMEM;
    z->aDeflated = a; z->nDeflatedAlloc = nBound;
  }
  z->nDeflated = libdeflate_deflate_compress(z->pDeflate, p, n, z->aDeflated, z->nDeflatedAlloc);
  if( z->nDeflated==0 ) return PS_NOMEM;     /* (the bound always fits) */
  z->nLast = n; z->crcLast = crc;
  return PS_OK;
}

/* Stores z's deflated bytes (z->aDeflated: z->nLast bytes with CRC z->crcLast) as member zName. */
static int zip_store_deflated(PsZip *z, const char *zName, PsErr *err){
  size_t n = z->nLast;
  uint32_t crc = z->crcLast;
  errno = 0;
  /* the member as minizip opens it (deflated, dated now), written raw: the deflated bytes,
  ** then the size and CRC of what they inflate to */
  zip_fileinfo zi;
  zip_member_info(&zi);
  if( zipOpenNewFileInZip2_64(z->zf, zName, &zi, 0, 0, 0, 0, 0, Z_DEFLATED, Z_DEFAULT_COMPRESSION, 1,
                              n >= 0xffffffffu || z->nDeflated >= 0xffffffffu)!=ZIP_OK
      || zip_write_all(z->zf, z->aDeflated, z->nDeflated)
      || zipCloseFileInZipRaw64(z->zf, (ZPOS64_T)n, crc)!=ZIP_OK ){
    return zip_add_failed(z, zName, err);
  }
  return PS_OK;
}

int ps_zip_add(PsZip *z, const char *zName, const void *p, size_t n, PsErr *err){
  if( !ps_safe_name(zName) ) return ps_err(err, "'%s' is not a safe archive member name", zName);
  if( zip_deflate(z, p, n, (uint32_t)libdeflate_crc32(0, p, n)) ) return ps_nomem(err);
  return zip_store_deflated(z, zName, err);
}

int ps_zip_add_again(PsZip *z, const char *zName, PsErr *err){
  if( !ps_safe_name(zName) ) return ps_err(err, "'%s' is not a safe archive member name", zName);
  if( z->nDeflated==0 ) return ps_err(err, "'%s': no member was added before it", zName);
  return zip_store_deflated(z, zName, err);
}

int ps_zip_add_file(PsZip *z, const char *zName, const char *zSrc, uint64_t maxBytes,
                    int (*xInterrupt)(void*), void *pArg, PsErr *err){
  char zFit[PS_PATH_FIT+1];
  const char *zS = ps_path_fit(zSrc, zFit);
  if( !ps_safe_name(zName) ) return ps_err(err, "'%s' is not a safe archive member name", zName);
  /* O_NONBLOCK: a FIFO or device at the path must not block the open; it is refused below */
  int fd = open(zSrc, O_RDONLY|O_CLOEXEC|O_NONBLOCK|O_NOCTTY);
  if( fd<0 ) return ps_err(err, "cannot read '%s': %s", zS, strerror(errno));
  struct stat st;
  if( fstat(fd, &st)!=0 ){
    int e = errno; close(fd);
    return ps_err(err, "cannot read '%s': %s", zS, strerror(e));
  }
  if( !S_ISREG(st.st_mode) ){
    close(fd);
    return ps_err(err, "cannot read '%s': it is %s, not a regular file", zS, ps_file_type(st.st_mode));
  }
  uint64_t n = (uint64_t)st.st_size;
  if( maxBytes && n > maxBytes ){
    close(fd);
    return ps_err(err, "cannot read '%s': its %llu bytes are over the limit of %llu "
                  "(profsql_config('max_inflated_bytes'))", zS, (unsigned long long)n,
                  (unsigned long long)maxBytes);
  }
  size_t nBuf = 1u << 20;
  char *buf = malloc(nBuf);
  if( buf==0 ){ close(fd); return ps_nomem(err); }
  int rc = PS_OK;
  errno = 0;
  if( zip_member_open(z, zName, n) ) rc = zip_add_failed(z, zName, err);
  /* the size at the open is the member's size: a file that grows meanwhile is cut there, one
  ** that shrinks ends the member early */
  uint64_t k = 0, nSincePoll = 0;
  while( rc==PS_OK && k<n ){
    if( xInterrupt && nSincePoll >= PS_WRITE_POLL_STEP ){
      nSincePoll = 0;
      if( xInterrupt(pArg) ){ rc = ps_interrupted(err); break; }
    }
    ssize_t r = read(fd, buf, n-k > nBuf ? nBuf : (size_t)(n-k));
    if( r<0 && errno==EINTR ) continue;
    if( r<0 ){ rc = ps_err(err, "cannot read '%s': %s", zS, strerror(errno)); break; }
    if( r==0 ) break;
    if( zipWriteInFileInZip(z->zf, buf, (unsigned)r)!=ZIP_OK ){ rc = zip_add_failed(z, zName, err); break; }
    k += (uint64_t)r; nSincePoll += (uint64_t)r;
  }
  if( zipCloseFileInZip(z->zf)!=ZIP_OK && rc==PS_OK ) rc = zip_add_failed(z, zName, err);
  free(buf);
  close(fd);
  return rc;
}

int ps_zip_close(PsZip *z, int bCommit, PsErr *err){
  int rc = PS_OK;
  if( z==0 ) return PS_OK;
  errno = 0;
  if( zipClose(z->zf, 0)!=ZIP_OK && bCommit ){
    int e = errno;
    char zFit[PS_PATH_FIT+1];
    rc = ps_err(err, "cannot write '%s': closing the archive failed: %s", ps_path_fit(z->zShow, zFit),
                e ? strerror(e) : "disk full?");
    bCommit = 0;
  }
  if( temp_commit(z->fd, z->zTmp, z->zPath, bCommit, err) ) rc = PS_ERROR;
  libdeflate_free_compressor(z->pDeflate); free(z->aDeflated);
  free(z->zPath); free(z->zShow); free(z);
  return rc;
}

/* ------------------------------------------------------------------ report sets */

struct PsStage {
  char *zDir;           /* the target directory */
  char *zStage;         /* "<dir>/.profsql-stage.<hex>": the set is written here first */
  int fdStage;          /* the staging directory, locked while the set is being written */
  int nName, nAlloc;
  char **azName;        /* the files staged, in the order they move into place */
};

PsStage *ps_stage_open(const char *zDir, PsErr *err){
  char zFit[PS_PATH_FIT+1];
  const char *zD = ps_path_fit(zDir, zFit);
  clean_stale(zDir, PS_STAGE_PREFIX);
  PsStage *s = calloc(1, sizeof(*s));
  size_t n = strlen(zDir) + sizeof(PS_STAGE_PREFIX) + 32;
  char *zStage = malloc(n);
  char *zD2 = strdup(zDir);
  if( s==0 || zStage==0 || zD2==0 ){ free(s); free(zStage); free(zD2); ps_nomem(err); return 0; }
  int e = 0, bMade = 0;
  for(int nTry=0; nTry<100 && !bMade; nTry++){
    snprintf(zStage, n, "%s/" PS_STAGE_PREFIX "%012llx", zDir, unique_tag(nTry));
    bMade = mkdir(zStage, 0700)==0;
    e = errno;
    if( !bMade && e!=EEXIST ) break;
  }
  if( !bMade ){
    ps_err(err, "cannot write into '%s': %s", zD, strerror(e));
    free(s); free(zStage); free(zD2);
    return 0;
  }
  s->fdStage = open(zStage, O_RDONLY|O_DIRECTORY|O_CLOEXEC|O_NOFOLLOW);
  if( s->fdStage<0 ){
    ps_err(err, "cannot write into '%s': %s", zD, strerror(errno));
    rmdir(zStage);
    free(s); free(zStage); free(zD2);
    return 0;
  }
  flock(s->fdStage, LOCK_EX);             /* new and ours: never waits */
  s->zDir = zD2; s->zStage = zStage;
  return s;
}

PsZip *ps_stage_zip_open(PsStage *s, const char *zName, PsErr *err){
  if( !ps_safe_name(zName) ){ ps_err(err, "'%s' is not a safe file name", zName); return 0; }
  size_t n = strlen(s->zStage) + strlen(s->zDir) + strlen(zName) + 2;
  char *zPath = malloc(n), *zShow = malloc(n);
  PsZip *z = 0;
  if( zPath && zShow ){
    snprintf(zPath, n, "%s/%s", s->zStage, zName);
    snprintf(zShow, n, "%s/%s", s->zDir, zName);
    z = zip_open(zPath, zShow, err);
  }else{
    ps_nomem(err);
  }
  free(zPath); free(zShow);
  return z;
}

int ps_stage_note(PsStage *s, const char *zName, PsErr *err){
  if( !ps_safe_name(zName) ) return ps_err(err, "'%s' is not a safe file name", zName);
  if( s->nName==s->nAlloc ){
    int nNew = s->nAlloc ? s->nAlloc*2 : 32;
    char **a = realloc(s->azName, sizeof(char*) * (size_t)nNew);
    if( a==0 ) return ps_nomem(err);
    s->azName = a; s->nAlloc = nNew;
  }
  char *z = strdup(zName);
  if( z==0 ) return ps_nomem(err);
  s->azName[s->nName++] = z;
  return PS_OK;
}

/* The path of zName in the staging directory (malloc'ed), or NULL. */
static char *stage_path(PsStage *s, const char *zName){
  size_t nPath = strlen(s->zStage) + strlen(zName) + 2;
  char *zPath = malloc(nPath);
  if( zPath ) snprintf(zPath, nPath, "%s/%s", s->zStage, zName);
  return zPath;
}

/* A staged file as messages name it: by its target, "<dir>/<zName>" (the directory fitted). */
#define STAGE_SHOWN_MAX (PS_PATH_FIT + 1 + 300)
static void stage_shown(PsStage *s, const char *zName, char zT[STAGE_SHOWN_MAX]){
  char zFit[PS_PATH_FIT+1];
  snprintf(zT, STAGE_SHOWN_MAX, "%s/%s", ps_path_fit(s->zDir, zFit), zName);
}

/* "cannot <zVerb> '<dir>/<zName>'<zWhere>: <errno e's text>" */
static int stage_err(PsStage *s, const char *zVerb, const char *zName, const char *zWhere, int e, PsErr *err){
  char zT[STAGE_SHOWN_MAX];
  stage_shown(s, zName, zT);
  return ps_err(err, "cannot %s '%s'%s: %s", zVerb, zT, zWhere, strerror(e));
}

int ps_stage_put(PsStage *s, const char *zName, const void *p, size_t n, PsErr *err){
  if( !ps_safe_name(zName) ) return ps_err(err, "'%s' is not a safe file name", zName);
  char *zPath = stage_path(s, zName);
  if( zPath==0 ) return ps_nomem(err);
  int fd = open(zPath, O_WRONLY|O_CREAT|O_EXCL|O_CLOEXEC|O_NOFOLLOW, 0666);
  int e = fd<0 ? errno : write_all(fd, p, n);
  if( e==0 && fsync(fd)!=0 ) e = errno;
  if( fd>=0 && close(fd)!=0 && e==0 ) e = errno;
  free(zPath);
  return e ? stage_err(s, "write", zName, "", e, err) : PS_OK;
}

int ps_stage_write(PsStage *s, const char *zName, const void *p, size_t n, PsErr *err){
  int rc = ps_stage_put(s, zName, p, n, err);
  return rc ? rc : ps_stage_note(s, zName, err);
}

int ps_stage_read(PsStage *s, const char *zName, PsBuf *b, PsErr *err){
  if( !ps_safe_name(zName) ) return ps_err(err, "'%s' is not a safe file name", zName);
  char *zPath = stage_path(s, zName);
  if( zPath==0 ) return ps_nomem(err);
  int fd = open(zPath, O_RDONLY|O_CLOEXEC|O_NOFOLLOW);
  free(zPath);
  struct stat st;
  int e = fd<0 ? errno : fstat(fd, &st)!=0 ? errno : !S_ISREG(st.st_mode) ? EINVAL : 0;
  int rc = e ? stage_err(s, "read back", zName, " from the staging directory", e, err) : PS_OK;
  if( rc==PS_OK ){
    char zT[STAGE_SHOWN_MAX];
    stage_shown(s, zName, zT);
    ps_buf_free(b);
    rc = ps_read_fd(fd, (size_t)st.st_size, zT, &b->z, &b->n, 0, err);
    if( rc==PS_OK ) b->nAlloc = b->n + 1;
  }
  if( fd>=0 ) close(fd);
  return rc;
}

int ps_stage_commit(PsStage *s, PsErr *err){
  char zFit[PS_PATH_FIT+1];
  size_t nMax = strlen(s->zDir) + strlen(s->zStage) + 600;
  char *zFrom = malloc(nMax), *zTo = malloc(nMax);
  if( zFrom==0 || zTo==0 ){ free(zFrom); free(zTo); return ps_nomem(err); }
  int rc = PS_OK;
  /* 1. every target is looked at before anything moves: one that is not a regular file stops
  **    the set whole; a replaced file's mode and owner go to its successor */
  for(int k=0; k<s->nName && rc==PS_OK; k++){
    int bExists;
    struct stat st;
    snprintf(zTo, nMax, "%s/%s", s->zDir, s->azName[k]);
    if( target_check(zTo, &bExists, &st, err) ){ rc = PS_ERROR; break; }
    if( bExists ){
      snprintf(zFrom, nMax, "%s/%s", s->zStage, s->azName[k]);
      int fd = open(zFrom, O_RDONLY|O_CLOEXEC|O_NOFOLLOW);
      if( fd>=0 ){ keep_mode(fd, 1, &st); close(fd); }
    }
  }
  /* 2. renames within one file system: no data block is allocated, so a full disk cannot stop
  **    the set half-way */
  for(int k=0; k<s->nName && rc==PS_OK; k++){
    snprintf(zFrom, nMax, "%s/%s", s->zStage, s->azName[k]);
    snprintf(zTo, nMax, "%s/%s", s->zDir, s->azName[k]);
    if( rename(zFrom, zTo)!=0 ){
      rc = ps_err(err, "cannot write '%s/%s': %s (%d of the set's %d files were already in place)",
                  ps_path_fit(s->zDir, zFit), s->azName[k], strerror(errno), k, s->nName);
    }
  }
  if( rc==PS_OK ){
    int fdDir = open(s->zDir, O_RDONLY|O_DIRECTORY|O_CLOEXEC);
    if( fdDir>=0 ){ fsync(fdDir); close(fdDir); }
  }
  free(zFrom); free(zTo);
  return rc;
}

void ps_stage_close(PsStage *s){
  if( s==0 ) return;
  remove_dir_files(s->fdStage);
  close(s->fdStage);
  rmdir(s->zStage);
  for(int k=0; k<s->nName; k++) free(s->azName[k]);
  free(s->azName); free(s->zStage); free(s->zDir); free(s);
}
