/*
** cpuprofile.c — placeholder for the cpuprofile reader (being written).
*/
#include "formats.h"
#include "stacks.h"

static int cpuprofile_probe(const char *z, size_t n){ (void)z; (void)n; return 0; }
static int cpuprofile_parse(PsCapture *cap, PsErr *err){ (void)cap; return ps_err(err, "cpuprofile: not yet implemented"); }
const PsFormat ps_format_cpuprofile = { "cpuprofile", cpuprofile_probe, cpuprofile_parse, 0, 0 };
