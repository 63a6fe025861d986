/*
** gen_trace.c — writes a deterministic Trace Event Format JSON trace for benchmarks and the demo.
**
**   gen_trace N [seed] > trace.json
**
** About N events (a little more: M events are added): 4 processes x 4 threads; on each thread
** nested X slices (3 levels) and B/E pairs, async b/e pairs, C counters with two series and
** thread-scoped instants; every slice has an args object. Averages ~160 bytes per event.
** The same N and seed always give the same bytes (a fixed LCG, no libc rand()).
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t s_state;
static uint32_t rnd(void){
  s_state = s_state*6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(s_state >> 33);
}

static const char *const azName[] = {
  "MessageLoop::RunTask", "ThreadControllerImpl::RunTask", "v8.callFunction", "Layout",
  "Paint", "UpdateLayerTree", "ParseHTML", "EvaluateScript", "GPUTask", "Decode Image",
  "CommitLayers", "RasterTask", "v8.compile", "FunctionCall", "TimerFire", "ResourceLoad"
};
static const char *const azSrc[] = { "frame/local_frame", "layout/layout_view", "paint/paint_layer", "dom/document" };
static const char *const azCat[] = { "toplevel", "blink", "v8", "cc", "gpu", "loading" };

int main(int argc, char **argv){
  long long nWant = argc>1 ? atoll(argv[1]) : 1000;
  s_state = argc>2 ? (uint64_t)atoll(argv[2]) : 42;
  long long n = 0;
  int first = 1;
  printf("{\"displayTimeUnit\":\"ms\",\"otherData\":{\"generator\":\"libprofsql gen_trace\",\"events\":%lld},\n"
         "\"traceEvents\":[\n", nWant);
#define SEP() do{ if(!first) fputs(",\n", stdout); first = 0; n++; }while(0)
  for(int p=1; p<=4; p++){
    SEP(); printf("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":0,\"args\":{\"name\":\"Renderer %d\"}}", p, p);
    for(int t=1; t<=4; t++){
      SEP(); printf("{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":\"%s\"}}",
                    p, p*100+t, t==1 ? "CrRendererMain" : t==2 ? "Compositor" : t==3 ? "ThreadPoolWorker" : "IOThread");
    }
  }
  /* per-thread clocks in ns (printed as µs with 3 decimals) */
  long long clock[16] = {0};
  long long asyncId = 1;
  while( n < nWant ){
    int th = (int)(rnd() % 16), pid = th/4 + 1, tid = pid*100 + th%4 + 1;
    long long t0 = clock[th] + 1000 + rnd()%5000;
    int kind = (int)(rnd() % 10);
    if( kind<6 ){
      /* a 3-level nest of X slices: parent, two children, one grandchild */
      long long d = 20000 + rnd()%200000;
      const char *nm = azName[rnd()%16];
      SEP(); printf("{\"pid\":%d,\"tid\":%d,\"ph\":\"X\",\"ts\":%lld.%03lld,\"dur\":%lld.%03lld,\"tts\":%lld.%03lld,\"name\":\"%s\",\"cat\":\"%s\",\"args\":{\"frame\":\"0x%x\",\"seq\":%lld,\"src\":\"third_party/blink/renderer/core/%s.cc\"}}",
                    pid, tid, t0/1000, t0%1000, d/1000, d%1000, (t0/2)/1000, (t0/2)%1000, nm, azCat[rnd()%6], rnd(), n,
                    azSrc[rnd()%4]);
      long long c1 = t0 + 1000, d1 = d/3;
      SEP(); printf("{\"pid\":%d,\"tid\":%d,\"ph\":\"X\",\"ts\":%lld.%03lld,\"dur\":%lld.%03lld,\"tts\":%lld.%03lld,\"name\":\"%s\",\"cat\":\"%s\",\"args\":{\"depth\":1}}",
                    pid, tid, c1/1000, c1%1000, d1/1000, d1%1000, (c1/2)/1000, (c1/2)%1000, azName[rnd()%16], azCat[rnd()%6]);
      long long g1 = c1 + 500, dg = d1/2;
      SEP(); printf("{\"pid\":%d,\"tid\":%d,\"ph\":\"X\",\"ts\":%lld.%03lld,\"dur\":%lld.%03lld,\"tts\":%lld.%03lld,\"name\":\"%s\",\"cat\":\"%s\",\"args\":{\"depth\":2,\"bytes\":%u}}",
                    pid, tid, g1/1000, g1%1000, dg/1000, dg%1000, (g1/2)/1000, (g1/2)%1000, azName[rnd()%16], azCat[rnd()%6], rnd()%65536);
      long long c2 = c1 + d1 + 1000, d2 = d/3;
      SEP(); printf("{\"pid\":%d,\"tid\":%d,\"ph\":\"X\",\"ts\":%lld.%03lld,\"dur\":%lld.%03lld,\"tts\":%lld.%03lld,\"name\":\"%s\",\"cat\":\"%s\",\"args\":{\"depth\":1}}",
                    pid, tid, c2/1000, c2%1000, d2/1000, d2%1000, (c2/2)/1000, (c2/2)%1000, azName[rnd()%16], azCat[rnd()%6]);
      clock[th] = t0 + d;
    }else if( kind<8 ){
      /* B/E pair with an instant inside */
      long long d = 5000 + rnd()%50000;
      const char *nm = azName[rnd()%16];
      SEP(); printf("{\"pid\":%d,\"tid\":%d,\"ph\":\"B\",\"ts\":%lld.%03lld,\"name\":\"%s\",\"cat\":\"%s\",\"args\":{\"url\":\"https://example.test/%u.js\"}}",
                    pid, tid, t0/1000, t0%1000, nm, azCat[rnd()%6], rnd()%1000);
      long long ti = t0 + d/2;
      SEP(); printf("{\"pid\":%d,\"tid\":%d,\"ph\":\"i\",\"s\":\"t\",\"ts\":%lld.%03lld,\"name\":\"Mark\",\"cat\":\"blink\"}",
                    pid, tid, ti/1000, ti%1000);
      long long te = t0 + d;
      SEP(); printf("{\"pid\":%d,\"tid\":%d,\"ph\":\"E\",\"ts\":%lld.%03lld,\"name\":\"%s\",\"cat\":\"%s\",\"args\":{}}",
                    pid, tid, te/1000, te%1000, nm, azCat[0]);
      clock[th] = te;
    }else if( kind<9 ){
      /* async request */
      long long d = 100000 + rnd()%900000, id = asyncId++;
      SEP(); printf("{\"pid\":%d,\"tid\":%d,\"ph\":\"b\",\"ts\":%lld.%03lld,\"name\":\"ResourceLoad\",\"cat\":\"loading\",\"id\":\"0x%llx\",\"args\":{\"url\":\"https://example.test/r/%lld\"}}",
                    pid, tid, t0/1000, t0%1000, id, id);
      long long te = t0 + d;
      SEP(); printf("{\"pid\":%d,\"tid\":%d,\"ph\":\"e\",\"ts\":%lld.%03lld,\"name\":\"ResourceLoad\",\"cat\":\"loading\",\"id\":\"0x%llx\",\"args\":{}}",
                    pid, tid, te/1000, te%1000, id);
      clock[th] = t0;
    }else{
      SEP(); printf("{\"pid\":%d,\"tid\":%d,\"ph\":\"C\",\"ts\":%lld.%03lld,\"name\":\"Memory\",\"cat\":\"memory\",\"args\":{\"heap_kb\":%u,\"gpu_kb\":%u}}",
                    pid, tid, t0/1000, t0%1000, 10000 + rnd()%50000, rnd()%90000);
      clock[th] = t0;
    }
  }
  printf("\n]}\n");
  return 0;
}
