/*
** mapguard.c — the SIGBUS guard over memory-mapped capture files. See mapguard.h for the contract.
**
** The slot table is written by ps_mapguard_add / ps_mapguard_remove (under g_mutex, any thread)
** and read by the SIGBUS handler (no lock: a handler that waited for a mutex the interrupted
** thread holds would never return). The handler needs the pair (base, len) of one registration:
** a base from one and a len from the next one to use the slot would make it map zero pages from
** the faulting page to base + that len, over whatever follows the faulting mapping (another
** capture, the heap). Each slot is therefore a seqlock (Boehm, "Can seqlocks get along with
** programming language memory models?", 2012, the variant with release stores and acquire loads):
**
**   writer (g_mutex held)              handler
**   seq = s+1          (relaxed)       s1 = seq               (acquire)
**   base, len, lost    (release)       b = base, n = len      (acquire)
**   seq = s+2          (release)       s2 = seq               (relaxed)
**
** An odd seq is a slot being changed; s1 != s2 one changed while the handler read it. Either way
** the handler skips the slot rather than retrying (it must not spin on another thread): the
** mapping that faulted cannot be in such a slot, because its owner registers it before its first
** read and removes it only after its last, so its slot is stable from before the fault until the
** handler returns. A base and len read between equal even counts belong to one registration. All
** fields are accessed atomically, so ThreadSanitizer sees no data race; the counter is 64 bits
** (no wrap). (Fault and handler run on the faulting thread, never inside add/remove: those touch
** no mapped file page.)
*/
#define _GNU_SOURCE 1      /* dladdr, RTLD_NODELETE */
#include "mapguard.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

typedef struct Slot {
  uint64_t seq;         /* even: stable; odd: being changed (the seqlock above) */
  uintptr_t base;       /* 0: free */
  size_t len;           /* bytes mapped at base (the last page is guarded whole) */
  uint64_t lost;        /* 0, or 1 + lowest faulting offset */
} Slot;

static Slot g_slots[PS_MAPGUARD_SLOTS];
static pthread_mutex_t g_mutex = PTHREAD_MUTEX_INITIALIZER;   /* add/remove only, never the handler */
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static struct sigaction g_old;        /* the handler replaced, for every fault not ours */
static int g_installed;
static uintptr_t g_page;

/* The previous disposition, as if this handler were not there. */
static void chain(int sig, siginfo_t *si, void *uc){
  if( g_old.sa_flags & SA_SIGINFO ){
    if( g_old.sa_sigaction ) g_old.sa_sigaction(sig, si, uc);
    return;
  }
  if( g_old.sa_handler==SIG_IGN ){
    if( si && si->si_code<=0 ) return;          /* sent with kill(): ignored, as before */
    /* a fault cannot be ignored (the kernel forces the default action): fall through */
  }else if( g_old.sa_handler!=SIG_DFL ){
    g_old.sa_handler(sig);
    return;
  }
  /* default action: restore it; the faulting instruction runs again and ends the process (a
  ** signal sent with kill() is raised again) */
  struct sigaction d;
  memset(&d, 0, sizeof(d));
  d.sa_handler = SIG_DFL;
  sigemptyset(&d.sa_mask);
  sigaction(sig, &d, 0);
  if( si==0 || si->si_code<=0 ) raise(sig);
}

static void on_sigbus(int sig, siginfo_t *si, void *uc){
  int savedErrno = errno;
  if( si && si->si_code>0 ){
    uintptr_t a = (uintptr_t)si->si_addr;
    for(int i=0; i<PS_MAPGUARD_SLOTS; i++){
      uint64_t s1 = __atomic_load_n(&g_slots[i].seq, __ATOMIC_ACQUIRE);
      if( s1 & 1 ) continue;                    /* being changed: not the faulting mapping's */
      uintptr_t b = __atomic_load_n(&g_slots[i].base, __ATOMIC_ACQUIRE);
      size_t n = __atomic_load_n(&g_slots[i].len, __ATOMIC_ACQUIRE);
      if( __atomic_load_n(&g_slots[i].seq, __ATOMIC_RELAXED)!=s1 ) continue;   /* changed meanwhile */
      if( b==0 || a<b ) continue;
      uintptr_t end = (b + n + g_page - 1) & ~(g_page - 1);   /* the mapping's last page too */
      if( a >= end ) continue;
      uintptr_t pg = a & ~(g_page - 1);
      long r = syscall(SYS_mmap, (void*)pg, (size_t)(end - pg), PROT_READ,
                       MAP_PRIVATE|MAP_ANONYMOUS|MAP_FIXED, -1, 0);
      if( r==-1 ) break;                        /* cannot heal: behave as without the guard */
      uint64_t off = (uint64_t)(a - b) + 1, cur = __atomic_load_n(&g_slots[i].lost, __ATOMIC_RELAXED);
      while( (cur==0 || off<cur)
          && !__atomic_compare_exchange_n(&g_slots[i].lost, &cur, off, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED) ){}
      errno = savedErrno;
      return;
    }
  }
  errno = savedErrno;
  chain(sig, si, uc);
}

static void install(void){
  /* The handler stays installed for the life of the process, so its code must too: a host
  ** that closes its last connection unloads the extension (SQLite dlclose()s it), which would
  ** leave SIGBUS pointing at unmapped code. Mark the library NODELETE. (Linked into a program,
  ** statically or not, the code is the program's and dlopen finds no library by that name: nothing
  ** to pin, nothing that can be unloaded.) */
  Dl_info info;
  if( dladdr((void*)on_sigbus, &info) && info.dli_fname ){
    dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
  }
  long pg = sysconf(_SC_PAGESIZE);
  g_page = pg>0 ? (uintptr_t)pg : 4096;
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_sigaction = on_sigbus;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  if( sigaction(SIGBUS, &sa, &g_old)==0 ) g_installed = 1;
}

/* Writes a slot's registration (p, n), or frees it (0, 0), as one seqlock update; g_mutex held. */
static void slot_set(Slot *s, uintptr_t p, size_t n){
  uint64_t q = __atomic_load_n(&s->seq, __ATOMIC_RELAXED);
  __atomic_store_n(&s->seq, q+1, __ATOMIC_RELAXED);
  __atomic_store_n(&s->base, p, __ATOMIC_RELEASE);
  __atomic_store_n(&s->len, n, __ATOMIC_RELEASE);
  __atomic_store_n(&s->lost, 0, __ATOMIC_RELEASE);
  __atomic_store_n(&s->seq, q+2, __ATOMIC_RELEASE);
}

uint64_t *ps_mapguard_add(const void *p, size_t n){
  pthread_once(&g_once, install);
  if( !g_installed || p==0 || n==0 ) return 0;
  uint64_t *pLost = 0;
  pthread_mutex_lock(&g_mutex);
  for(int i=0; i<PS_MAPGUARD_SLOTS; i++){
    if( __atomic_load_n(&g_slots[i].base, __ATOMIC_RELAXED)==0 ){
      slot_set(&g_slots[i], (uintptr_t)p, n);
      pLost = &g_slots[i].lost;
      break;
    }
  }
  pthread_mutex_unlock(&g_mutex);
  return pLost;
}

void ps_mapguard_remove(uint64_t *pLost){
  if( pLost==0 ) return;
  Slot *s = (Slot*)((char*)pLost - offsetof(Slot, lost));
  pthread_mutex_lock(&g_mutex);
  slot_set(s, 0, 0);
  pthread_mutex_unlock(&g_mutex);
}
