/*
** mapguard.h — keeps the host process alive when a memory-mapped capture file shrinks under it.
**
** Reading a file mapping past the file's current end raises SIGBUS (POSIX mmap(): "references
** within the address range ... to whole pages following the end of an object shall result in
** delivery of a SIGBUS signal"). A capture that another process truncates or rewrites (open with
** O_TRUNC, then write) while a query still reads its strings and lazy columns would otherwise kill
** the host: the sqlite3 shell, a Python service, a BI tool.
**
** source.c registers each mapping here. The first registration installs a process-wide SIGBUS
** handler (SA_SIGINFO | SA_ONSTACK) that remembers the handler it replaces. On a fault inside a
** registered mapping it maps anonymous zero pages over the lost part (the faulting page to the
** end of the mapping, MAP_FIXED), records the lowest faulting offset and returns: the read is
** retried and sees zeros, and the owner turns that into an error through ps_mapguard_lost().
** Any other SIGBUS goes to the previous handler as if this one were not there (SIG_DFL: the
** default action runs, with its core dump).
**
** Installing the handler also marks the library RTLD_NODELETE: SQLite unloads an extension when
** its last connection closes, and the handler must outlive that.
**
** The handler is async-signal-safe: atomic loads of a fixed slot table (a seqlock per slot, so
** that it never pairs one registration's base with another's length: mapguard.c), mmap through
** syscall(2), no allocation, no locks. A host that installs its own SIGBUS handler later replaces this one
** (the guard then no longer applies; docs/security.md says so).
*/
#ifndef PS_MAPGUARD_H
#define PS_MAPGUARD_H

#include <stddef.h>
#include <stdint.h>

/* Most mappings guarded at once in the process; a mapping beyond that is not made (source.c then
** reads the file into memory instead). */
#define PS_MAPGUARD_SLOTS 1024

/* Registers the mapping [p, p+n). Returns the slot's "lost" word (see ps_mapguard_lost), or NULL
** when the handler cannot be installed or every slot is taken. */
uint64_t *ps_mapguard_add(const void *p, size_t n);

/* Forgets a mapping (before it is unmapped). pLost is what ps_mapguard_add returned. */
void ps_mapguard_remove(uint64_t *pLost);

/* 0 while every byte read of the mapping was in the file; else 1 + the offset of the first
** byte a read found gone (the lowest seen so far). */
static inline uint64_t ps_mapguard_lost(const uint64_t *pLost){
  return pLost ? __atomic_load_n(pLost, __ATOMIC_ACQUIRE) : 0;
}

#endif
