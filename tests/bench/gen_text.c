/*
** gen_text.c — writes deterministic text captures for the benchmarks.
**
**   gen_text timings N > report.txt   a PocketMine-MP tree-style timings report of N records:
**                                     trees of depth up to 6 under 'Full Server Tick', parents
**                                     written after their children in a third of the cases (as
**                                     the real writer does), plugin categories, "** " records
**   gen_text lms N > markers.csv      an lms profiler CSV of about N markers: 8 labels, nested
**                                     BEGIN/END pairs with a second interleaved "thread"
** The same arguments always give the same bytes (a fixed LCG).
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t s_state = 42;
static uint32_t rnd(void){
  s_state = s_state*6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(s_state >> 33);
}

static const char *const azTimer[] = {
  "Connection Handler", "Player Network Receive", "Player Network Send", "Scheduler",
  "World Tick", "Entity Tick", "Block Update", "Player Movement", "Memory Manager", "Chunk Load"
};

static void gen_timings(long long n){
  /* record ids are assigned in a shuffled order; each record's parent is an earlier record of
  ** a smaller depth, and about a third are printed before their parent */
  long long next = 100000;
  printf("Minecraft\n");
  printf("    Full Server Tick Time: %lld Count: %lld Avg: 1305765.344296 Violations: 5 RecordId: %lld ParentRecordId: none TimerId: 13 Ticks: 1232 Peak: 70335100\n",
         n * 1000000LL, 4865LL, next);
  long long root = next++;
  long long *aId = malloc(sizeof(long long) * (size_t)(n + 1));
  int *aDepth = malloc(sizeof(int) * (size_t)(n + 1));
  aId[0] = root; aDepth[0] = 0;
  long long pending = -1;   /* a child held back to be printed after its parent */
  char pendingLine[512] = "";
  for(long long i=1; i<n; i++){
    long long p;
    do{ p = (long long)(rnd() % (uint32_t)i); }while( aDepth[p] >= 6 );
    aId[i] = next++; aDepth[i] = aDepth[p] + 1;
    const char *nm = azTimer[rnd()%10];
    long long t = 1000 + rnd()%900000, c = 1 + rnd()%5000;
    char line[512];
    if( i % 97 == 0 ){
      snprintf(line, sizeof(line), "    ** %s Time: %lld Count: %lld Avg: %lld Violations: 0 RecordId: %lld ParentRecordId: %lld TimerId: %u Ticks: %lld Peak: %lld\n",
               nm, t, c, t/c, aId[i], aId[p], 20 + rnd()%100, c, t);
    }else{
      snprintf(line, sizeof(line), "    %s Time: %lld Count: %lld Avg: %lld.%04u Violations: %u RecordId: %lld ParentRecordId: %lld TimerId: %u Ticks: %lld Peak: %lld\n",
               nm, t, c, t/c, rnd()%10000, rnd()%3, aId[i], aId[p], 20 + rnd()%100, c, t);
    }
    if( pending<0 && rnd()%3==0 && i+1<n ){
      /* hold this one back: its child (next record) may come first */
      memcpy(pendingLine, line, sizeof(line)); pending = i;
      continue;
    }
    fputs(line, stdout);
    if( pending>=0 ){ fputs(pendingLine, stdout); pending = -1; }
    if( i % 50000 == 0 ) printf("Plugin%lld v1.0.0\n", i/50000);
  }
  if( pending>=0 ) fputs(pendingLine, stdout);
  printf("# Version v1.19.70\n# PocketMine-MP 4.18.4+dev\n# Entities 265\n# LivingEntities 1\n# FormatVersion 1\n");
  printf("Sample time 61662563000 (61.662563s)\n");
  free(aId); free(aDepth);
}

static void gen_lms(long long n){
  static const char *const azLabel[] = {
    "render.importer_1", "render.camera", "physics.step", "net.receive", "ai.plan", "audio.mix",
    "render.draw", "io.log"
  };
  for(int k=0; k<8; k++) printf("2,%d,%s\n", k, azLabel[k]);
  long long m = 0;
  while( m < n ){
    int outer = (int)(rnd()%4), inner = 4 + (int)(rnd()%4);
    printf("0,%d,%u\n", outer, 1 + rnd()%50);
    printf("0,%d,%u\n", inner, 1 + rnd()%20);
    if( rnd()%4==0 ){ printf("0,%d,%u\n", (inner+1)%8, rnd()%5); printf("1,%d,%u\n", (inner+1)%8, rnd()%30); m += 2; }
    printf("1,%d,%u\n", inner, 1 + rnd()%200);
    printf("1,%d,%u\n", outer, 1 + rnd()%100);
    m += 4;
  }
}

int main(int argc, char **argv){
  if( argc<3 ){ fprintf(stderr, "usage: gen_text timings|lms N [seed]\n"); return 2; }
  long long n = atoll(argv[2]);
  if( argc>3 ) s_state = (uint64_t)atoll(argv[3]);
  if( strcmp(argv[1], "timings")==0 ) gen_timings(n);
  else if( strcmp(argv[1], "lms")==0 ) gen_lms(n);
  else{ fprintf(stderr, "unknown kind %s\n", argv[1]); return 2; }
  return 0;
}
