/*
** spill.c — the unnamed temporary file an inflated stream can go to (spill.h).
*/
#define _GNU_SOURCE 1      /* O_TMPFILE */
#include "spill.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

/* ---- where an inflated stream goes
** Into a malloc'ed buffer, or (fd >= 0, a "spilled" stream) written to an unnamed temporary file
** and mapped from it afterwards: the bytes are then page cache the kernel can write back and
** drop, and the parse releases the pages it has read (ps_source_release) as it does a plain
** file's, so a big .json.gz (or ZIP member: zipsrc.c) is not held in the process's memory twice
** (inflated bytes and parsed columns). PsSpill (source.h) is the state. The file is written with write(), not through a shared writable mapping: a fault per
** fresh 4 KiB page cache page, zeroed first, made the 1M-event trace's load 0.15 s slower. */

/* An unnamed temporary file (O_TMPFILE: nothing to clean up, nothing another process can open by
** name) in the first of $SQLITE_TMPDIR, $TMPDIR, /var/tmp, /usr/tmp, /tmp that takes one (the
** directories SQLite's unix VFS uses for its own temporary files, in its order), or -1. */
int ps_spill_open(void){
#ifdef O_TMPFILE
  const char *az[5] = { getenv("SQLITE_TMPDIR"), getenv("TMPDIR"), "/var/tmp", "/usr/tmp", "/tmp" };
  for(int k=0; k<5; k++){
    if( az[k]==0 || az[k][0]==0 ) continue;
    int fd = open(az[k], O_TMPFILE|O_RDWR|O_CLOEXEC, 0600);
    if( fd>=0 ) return fd;
  }
#endif
  return -1;
}

/* Writes o->z[0..n) at the end of the file. 0, or -1 (a full disk: ENOSPC comes from write(),
** which reserves the blocks, never later as a fault on the mapping). */
int ps_spill_flush(PsSpill *o, size_t n){
  /* past the process's file size limit, write() would raise SIGXFSZ, whose default action ends
  ** the host: such a stream goes to memory instead */
  struct rlimit rl;
  if( getrlimit(RLIMIT_FSIZE, &rl)==0 && rl.rlim_cur!=RLIM_INFINITY
   && (uint64_t)o->nFlushed + n > (uint64_t)rl.rlim_cur ) return -1;
  size_t k = 0;
  while( k<n ){
    ssize_t r = write(o->fd, o->z + k, n - k);
    if( r<0 && errno==EINTR ) continue;
    if( r<=0 ) return -1;
    k += (size_t)r;
  }
  o->nFlushed += n;
  return 0;
}

void ps_spill_free(PsSpill *o){
  if( o->fd>=0 ) close(o->fd);
  free(o->z);
  o->z = 0; o->nAlloc = 0; o->fd = -1; o->nFlushed = 0;
}
