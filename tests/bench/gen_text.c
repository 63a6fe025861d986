/*
** gen_text.c — writes deterministic text captures for the benchmarks.
**
**   gen_text timings N > report.txt   a PocketMine-MP tree-style timings report of N records:
**                                     a tree of depth up to 6 under 'Full Server Tick' (times
**                                     add up: a record's time covers its children), records
**                                     printed after their first child a third of the time (as
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
  /* a tree: each record's parent is an earlier record of a smaller depth; a record's time is
  ** its own (random) self time plus its children's; the whole tree holds ~10% of the sample
  ** time, as a healthy server would. About a third of the records are printed after their
  ** first child, as the real writer does. */
  long long *aParent = malloc(sizeof(long long) * (size_t)n);
  long long *aTime = malloc(sizeof(long long) * (size_t)n);
  int *aDepth = malloc(sizeof(int) * (size_t)n);
  int *aName = malloc(sizeof(int) * (size_t)n);
  long long selfMax = 2 * 6000000000LL / (n > 0 ? n : 1) + 2;
  aParent[0] = -1; aDepth[0] = 0; aName[0] = -1;
  for(long long i=0; i<n; i++){
    if( i>0 ){
      long long p;
      do{ p = (long long)(rnd() % (uint32_t)i); }while( aDepth[p] >= 6 );
      aParent[i] = p; aDepth[i] = aDepth[p] + 1; aName[i] = (int)(rnd()%10);
    }
    aTime[i] = 1 + (long long)(rnd() % (uint64_t)selfMax);
  }
  for(long long i=n-1; i>0; i--) aTime[aParent[i]] += aTime[i];
  printf("Minecraft\n");
  long long held = -1;
  for(long long i=0; i<n; i++){
    long long id = 100000 + i, c = i==0 ? 1232 : 1 + rnd()%5000;
    char line[512];
    if( i==0 ){
      snprintf(line, sizeof(line), "    Full Server Tick Time: %lld Count: %lld Avg: %lld.%04u Violations: 5 RecordId: %lld ParentRecordId: none TimerId: 13 Ticks: 1232 Peak: %lld\n",
               aTime[i], c, aTime[i]/c, rnd()%10000, id, aTime[i]/100);
    }else{
      const char *pre = (i % 97 == 0) ? "** " : "";
      snprintf(line, sizeof(line), "    %s%s Time: %lld Count: %lld Avg: %lld.%04u Violations: %u RecordId: %lld ParentRecordId: %lld TimerId: %u Ticks: %lld Peak: %lld\n",
               pre, azTimer[aName[i]], aTime[i], c, aTime[i]/c, rnd()%10000, rnd()%3, id, 100000 + aParent[i],
               20 + rnd()%100, c < 1232 ? c : 1232, aTime[i]/c + 1);
    }
    if( held<0 && i>0 && i+1<n && rnd()%3==0 ){ held = i; continue; }   /* print it later */
    fputs(line, stdout);
    if( held>=0 ){
      /* re-print the held record now (its line is rebuilt the same way) */
      long long h = held; held = -1;
      long long hc = 1 + (h*7919) % 5000;
      printf("    %s Time: %lld Count: %lld Violations: 0 RecordId: %lld ParentRecordId: %lld TimerId: %u Ticks: %lld Peak: %lld\n",
             azTimer[aName[h]], aTime[h], hc, 100000 + h, 100000 + aParent[h], 20 + (unsigned)(h % 100),
             hc < 1232 ? hc : 1232, aTime[h]/hc + 1);
    }
    if( i>0 && i % 50000 == 0 ) printf("Plugin%lld v1.0.0\n", i/50000);
  }
  if( held>=0 ){
    long long h = held, hc = 1 + (h*7919) % 5000;
    printf("    %s Time: %lld Count: %lld Violations: 0 RecordId: %lld ParentRecordId: %lld TimerId: %u Ticks: %lld Peak: %lld\n",
           azTimer[aName[h]], aTime[h], hc, 100000 + h, 100000 + aParent[h], 20 + (unsigned)(h % 100),
           hc < 1232 ? hc : 1232, aTime[h]/hc + 1);
  }
  printf("# Version v1.19.70\n# PocketMine-MP 4.18.4+dev\n# Entities 265\n# LivingEntities 1\n# FormatVersion 1\n");
  printf("Sample time 61662563000 (61.662563s)\n");
  free(aParent); free(aTime); free(aDepth); free(aName);
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
