/*
** zipsrc.h — ZIP input, a container unwrapped below the source (zipsrc.c): bytes in, the capture
** member's bytes out (spill.h). It knows no PsSource: the caller's interrupt check comes as a
** callback.
*/
#ifndef PS_ZIPSRC_H
#define PS_ZIPSRC_H

#include "spill.h"

/* ZIP input (zipsrc.c): 1 when the bytes start a ZIP archive; the capture member (the report
** manifest.json names, or the only member) inflated into o (PsSpill; *pn bytes): into memory
** (o->z, NUL-terminated), or, when nSpill is not 0 and the member's header gives nSpill inflated
** bytes or more (or nSpill/4 compressed), into an unnamed temporary file (o->fd; o->z freed), as
** gzip streams are (ps_source_open_file_ex); a file that cannot take it: memory. */
int ps_is_zip(const void *p, size_t n);
int ps_unzip_capture(const void *p, size_t n, uint64_t maxOut, uint64_t nSpill, PsSpill *o, size_t *pn,
                     char *zMember, size_t nMember, int (*xPoll)(void*), void *pPollArg, PsErr *err);
/* (xPoll(pPollArg), when xPoll is not NULL, is asked between steps of PS_INFLATE_STEP bytes; a
** non-zero answer stops the read: PS_ERROR with err "interrupted", err->rc PS_INTERRUPT.) */

#endif
