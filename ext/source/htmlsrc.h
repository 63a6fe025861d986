/*
** htmlsrc.h — systrace HTML input, a container unwrapped below the source (htmlsrc.c): the
** document's bytes in, its trace data out.
*/
#ifndef PS_HTMLSRC_H
#define PS_HTMLSRC_H

#include "../util/ps_util.h"
#include <stdint.h>

/* Systrace HTML (htmlsrc.c): 1 when the bytes start an HTML document; the trace data its
** <script class="trace-data"> blocks or linuxPerfData string hold, unescaped / inflated, into *pz
** (malloc'ed, NUL-terminated). A document with one JSON block and ftrace text blocks gives the
** JSON in *pz and the joined text in *pzText (malloc'ed; NULL when there is no such text). */
int ps_is_html(const void *p, size_t n);
int ps_html_trace(const void *p, size_t n, uint64_t maxOut, char **pz, size_t *pn,
                  char **pzText, size_t *pnText, PsErr *err);

#endif
