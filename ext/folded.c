/*
** folded.c — placeholder for the folded reader (being written).
*/
#include "formats.h"
#include "stacks.h"

static int folded_probe(const char *z, size_t n){ (void)z; (void)n; return 0; }
static int folded_parse(PsCapture *cap, PsErr *err){ (void)cap; return ps_err(err, "folded: not yet implemented"); }
const PsFormat ps_format_folded = { "folded", folded_probe, folded_parse, 0, 0 };
