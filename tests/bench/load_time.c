/*
** load_time.c — times loading one capture into the capture model, without SQLite:
**   load_time FILE [FORMAT]   prints "<seconds> <MB/s> <rows> <records>"
** (mmap or inflate, detect, parse, nest; the best of 3 runs). Used by make bench to report the
** parsers' own rate next to the SQL query's. PROFSQL_BENCH_THREADS=N parses a Chrome trace or an
** XSpace in up to N parts (ps_parse_threads; 1 = serial), for the per-core scaling table. PROFSQL_BENCH_ZLIB=1
** inflates gzip with zlib alone (ps_gunzip_zlib_only), to compare with the libdeflate path.
*/
#include "../../ext/formats/formats.h"
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>

extern size_t ps_parse_threads;

static double now(void){ struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec/1e9; }

int main(int argc, char **argv){
  if( argc<2 ){ fprintf(stderr, "usage: load_time FILE [FORMAT]\n"); return 2; }
  const PsFormat *pFmt = argc>2 ? ps_format_find(argv[2]) : 0;
  const char *zThreads = getenv("PROFSQL_BENCH_THREADS");
  if( zThreads && atoi(zThreads)>0 ) ps_parse_threads = (size_t)atoi(zThreads);
  const char *zZlib = getenv("PROFSQL_BENCH_ZLIB");
  if( zZlib && atoi(zZlib)>0 ) ps_gunzip_zlib_only = 1;
  double best = 1e9; size_t nRows = 0, nRec = 0, nBytes = 0;
  for(int k=0; k<3; k++){
    PsSource src; PsErr err; int bU;
    double t0 = now();
    if( ps_source_open_file(&src, argv[1], 0, &err) ){ fprintf(stderr, "%s\n", err.msg); return 1; }
    nBytes = src.n;
    PsCapture *cap = ps_capture_load(&src, pFmt, &err, &bU);
    double dt = now() - t0;
    if( cap==0 ){ fprintf(stderr, "%s\n", err.msg); return 1; }
    nRows = cap->ev.n; nRec = cap->nRec;
    ps_capture_free(cap);
    if( dt<best ) best = dt;
  }
  printf("%.3f %.0f %zu %zu\n", best, nBytes/1e6/best, nRows, nRec);
  return 0;
}
