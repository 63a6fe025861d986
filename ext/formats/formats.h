/*
** formats.h — the registry of capture formats and content-based detection.
**
** Each format provides a PsFormat (capture.h): a probe that looks at the first bytes, a parser
** that fills a PsCapture from its PsSource, and a lazy-column hook. Detection never looks at the
** file name: ps_format_detect() returns the format whose probe scores highest.
*/
#ifndef PS_FORMATS_H
#define PS_FORMATS_H

#include "../model/capture.h"

extern const PsFormat ps_format_chrome;     /* chrome.c: Trace Event Format JSON */
extern const PsFormat ps_format_timings;    /* timings.c: PocketMine-MP / Spigot timings reports */
extern const PsFormat ps_format_lms;        /* lms.c: lms profiler CSV */
extern const PsFormat ps_format_xspace;     /* xspace.c: TensorFlow/JAX XSpace protobuf */
extern const PsFormat ps_format_newengine;  /* jobs.c: newengine StarProfiler report JSON / jobs CSV */
/* xprof.c: the TensorFlow profiler's result protobufs */
extern const PsFormat ps_format_tf_stats, ps_format_kernel_stats, ps_format_input_pipeline,
  ps_format_overview_page, ps_format_memory_profile, ps_format_xprof_trace;
extern const PsFormat ps_format_xprof_datatable;  /* datatable.c: xprof tool output as Google DataTable JSON */
/* sampled call stacks (ext/model/stacks.h) */
extern const PsFormat ps_format_cpuprofile;   /* cpuprofile.c: V8 .cpuprofile JSON (new and old shapes) */
extern const PsFormat ps_format_speedscope;   /* speedscope.c: speedscope's file format JSON */
extern const PsFormat ps_format_pprof;        /* pprof.c: pprof profile.proto (gzip unwrapped below) */
extern const PsFormat ps_format_perf_script;  /* perfscript.c: `perf script` text */
extern const PsFormat ps_format_folded;       /* folded.c: collapsed / folded stacks text */
extern const PsFormat ps_format_ftrace;       /* ftrace.c: Linux ftrace / atrace text */


/* XSpace: the JSON object of a stats list (xspace.c), for lazy columns and metadata. */
int ps_xspace_stats_json(const PsCapture *cap, uint32_t iPlane, size_t off, size_t len, uint32_t statField,
                         size_t metaOff, size_t metaLen, PsOut *o);

/* Linux ftrace text inside a capture of another format (ftrace.c; called by chrome.c for a
** systrace HTML document's text blocks and a 'systemTraceEvents' string): reads z[0..n), which
** must live as long as the capture, into rows after the ones cap has, exactly as the 'ftrace'
** format reads a file (byte offsets into z), with metadata ('ftrace', 'events', lines read).
** Sets cap->bFtrace / iFtraceRow and cap->pFmtData; does not nest (the caller runs
** ps_capture_nest once). Errors as the ftrace format's. */
int ps_ftrace_read(PsCapture *cap, const char *z, size_t n, PsErr *err);
/* The lazy columns (args) of those rows; every other row gets NULL. */
int ps_ftrace_column(const PsCapture *cap, size_t row, int iCol, PsOut *pOut);

/* All formats, NULL-terminated, in detection priority order. */
extern const PsFormat *const ps_formats[];

/* The format named zName (case-sensitive, e.g. "chrome"), or NULL. */
const PsFormat *ps_format_find(const char *zName);
/* The format the bytes look like, or NULL. */
const PsFormat *ps_format_detect(const char *z, size_t n);
/* "chrome, ..." — the supported format names, for error messages. */
const char *ps_format_list(void);

/* Loads a capture end to end: bytes already in src (ownership moves into the capture),
** pFormat NULL to detect. On error returns NULL with err set; src is released either way.
** *pbUnsupported is set to 1 when no format matched (err then says so without a file name), and
** when pFormat was forced but is not what the bytes are: detection does not pick it for them and
** its parse made no row of any table; err is then "not a Chrome trace (format 'chrome' was forced):
** no traceEvents array and no event objects; the content reads as cpuprofile" (the noun and the
** reason per format: formats.c aForced; the last part when another format claims the bytes). */
PsCapture *ps_capture_load(PsSource *src, const PsFormat *pFormat, PsErr *err, int *pbUnsupported);

#endif
