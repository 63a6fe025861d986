/*
** gen_ftrace.c — `gen_ftrace N` prints a deterministic N-line Linux ftrace text (the layout of
** /sys/kernel/tracing/trace with the TGID and irqs-off columns, 4 CPUs) for `make bench`: a mix
** of sched_switch, sched_wakeup, cpu_frequency and atrace tracing_mark_write B/E/C markers.
*/
#include <stdio.h>
#include <stdlib.h>

static unsigned long long g_seed = 88172645463325252ull;
static unsigned rnd(void){ g_seed ^= g_seed<<13; g_seed ^= g_seed>>7; g_seed ^= g_seed<<17; return (unsigned)(g_seed>>11); }

static const char *azComm[] = { "RenderThread", "main", "kworker/0:1-ev", "surfaceflinger", "Binder:123_2", "HwBinder:99_1", "adbd", "mmcqd/0" };

int main(int argc, char **argv){
  long n = argc>1 ? atol(argv[1]) : 1000;
  int cur[4] = {0, 1, 2, 3};     /* thread index running on each cpu */
  int depth[8] = {0};
  unsigned long long t = 1000000000ull;   /* µs */
  printf("# tracer: nop\n#\n# entries-in-buffer/entries-written: %ld/%ld   #P:4\n#\n", n, n);
  printf("#                                _-----=> irqs-off\n#                               / _----=> need-resched\n"
         "#                              | / _---=> hardirq/softirq\n#                              || / _--=> preempt-depth\n"
         "#                              ||| /     delay\n"
         "#           TASK-PID    TGID   CPU#  ||||    TIMESTAMP  FUNCTION\n"
         "#              | |        |      |   ||||       |         |\n");
  for(long i=0; i<n; i++){
    int cpu = (int)(rnd()%4), th = cur[cpu], k = (int)(rnd()%16);
    int tid = 1000+th, pid = 1000+(th & ~1);
    t += 1 + rnd()%20;
    printf("%16s-%-7d (%7d) [%03d] d..%d %5llu.%06llu: ", azComm[th], tid, pid, cpu, (int)(rnd()%4), t/1000000, t%1000000);
    if( k<4 ){
      int nx = (int)(rnd()%8);
      printf("sched_switch: prev_comm=%s prev_pid=%d prev_prio=120 prev_state=%s ==> next_comm=%s next_pid=%d next_prio=120\n",
             azComm[th], tid, (k&1) ? "S" : "R+", azComm[nx], 1000+nx);
      cur[cpu] = nx;
    }else if( k<7 ){
      int w = (int)(rnd()%8);
      printf("sched_wakeup: comm=%s pid=%d prio=120 target_cpu=%03d\n", azComm[w], 1000+w, (int)(rnd()%4));
    }else if( k<8 ){
      printf("cpu_frequency: state=%u cpu_id=%d\n", 300000 + (rnd()%20)*100000, cpu);
    }else if( k<12 && depth[th]<20 ){
      printf("tracing_mark_write: B|%d|slice %d\n", pid, (int)(rnd()%32));
      depth[th]++;
    }else if( k<15 && depth[th]>0 ){
      printf("tracing_mark_write: E|%d\n", pid);
      depth[th]--;
    }else{
      printf("tracing_mark_write: C|%d|counter%d|%u\n", pid, (int)(rnd()%4), rnd()%1000);
    }
  }
  return 0;
}
