/*
** gen_flood.c — the hash-flooding inputs of make bench (issue 32): Chrome traces of N X events
** whose names (16 bytes each, one per event) or tids collide under libprofsql's old public hash,
** and the same with random names or tids, so that the bench can time each against its random twin.
**
**   build/gen_flood names|tids collide|random N > trace.json
**
** The keys come from tests/c/flood.h (the old hash walked back). Deterministic (a fixed xorshift
** seed): the same bytes every run.
*/
#include "../c/flood.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv){
  if( argc!=4 || (strcmp(argv[1], "names") && strcmp(argv[1], "tids"))
   || (strcmp(argv[2], "collide") && strcmp(argv[2], "random")) ){
    fprintf(stderr, "usage: gen_flood names|tids collide|random N\n");
    return 2;
  }
  int bNames = strcmp(argv[1], "names")==0, bCollide = strcmp(argv[2], "collide")==0;
  size_t n = (size_t)strtoull(argv[3], 0, 10);
  char *aName = bNames ? malloc(16*(n ? n : 1)) : 0;
  if( bNames && aName==0 ){ fprintf(stderr, "gen_flood: out of memory\n"); return 1; }
  if( bNames ) flood_names(aName, n, bCollide);
  fputc('[', stdout);
  for(size_t i=0; i<n; i++){
    if( bNames ){
      printf("%s{\"ph\":\"X\",\"name\":\"%.16s\",\"pid\":1,\"tid\":1,\"ts\":%zu,\"dur\":1}", i ? "," : "", aName + 16*i, 2*i);
    }else{
      printf("%s{\"ph\":\"X\",\"name\":\"x\",\"pid\":1,\"tid\":%lld,\"ts\":%zu,\"dur\":1}", i ? "," : "",
             (long long)fl_tid(bCollide), i);
    }
  }
  fputs("]\n", stdout);
  free(aName);
  return 0;
}
