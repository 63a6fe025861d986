/*
** gen_trace.c — writes a deterministic Trace Event Format JSON trace for benchmarks and the demo.
**
**   gen_trace N [seed [shape]] > trace.json      seed defaults to 42, shape to bench
**
** The loop stops once N events are written, so a trace holds N events or a few more (the last
** group of events is finished). The same N, seed and shape always give the same bytes (a fixed
** LCG, no libc rand(); name vocabularies are built from their own fixed LCG, so they do not
** change with the seed). An unknown shape is a usage error (exit status 2). Bytes per event
** below are `wc -c` / N for N = 1,000,000 and seed 42; name counts exclude the M events' names.
**
** bench (the default; 142.7 bytes per event)
**   4 processes x 4 threads (16 process_name/thread_name M events); on each thread, per step:
**   60 % a 3-level nest of X slices (a parent, two children, one grandchild), 20 % a B/E pair
**   with a thread-scoped instant inside, 10 % an async b/e pair, 10 % a C counter with two
**   series; every slice has an args object; 18 distinct names (16 slice names, Mark, Memory).
**
** names (242.3 bytes per event): many distinct names, like GPU kernel names
**   The bench structure and mix (same header with "shape":"names" in otherData, same M
**   events, the same 60/20/10/10 steps), but every X slice and B/E pair is named from a fixed
**   vocabulary of 10,000 names. Name k (0..9999) is a C++-template-like kernel name ("void
**   at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<...>, ...>(...)"
**   built from fixed pieces) trimmed to its length and ended by "_kkkk" (its 4-digit index, so
**   all are distinct); lengths are 20..300 bytes, spread evenly over the range (each length
**   35 or 36 times) and shuffled over the ranks; no byte needs a JSON escape. Each slice picks
**   its name by a Zipf law with exponent s = 1.0 over rank 1..10000 (P(r) = 1/(r H), the CDF
**   precomputed once, sampled by binary search with the LCG): rank 1 gets ~10.2 % of the
**   slices, rank r ~10.2/r %; at N = 1M (0.79M named X and B) 9,998 of the 10,000 names occur.
**   Small args: the parent {"seq":n}, the others {"depth":d}, B {"seq":n}, E {}. Events: ~73 %
**   X, 6 % each B, E, i, 3 % each b, e, C (as bench).
**
** args (361.9 bytes per event): args-heavy, with flow events and B/E pairs
**   Same header and M events ("shape":"args"); per step one thread is picked and: 40 % a B/E
**   pair, 40 % one X slice, 20 % a flow: an X slice on that thread with a flow start
**   {"ph":"s","id":"0x..","bp":"e"} inside it, and an X slice on another thread, starting
**   after the start, with the flow end {"ph":"f",same id,"bp":"e"} inside it (Chrome's flow
**   v1; both bind to their enclosing slice). Events: ~40 % B/E, ~40 % X, ~20 % s/f. Every
**   B, E and X carries its own args object of 6..12 members (uniform): one nested object
**   {"id","kind" (a 10..20 byte string),"flags","pending"}, one array of 2..4 numbers, and
**   the rest scalars, in turn integers, decimals and strings of 10..80 bytes (uniform);
**   225 slice names (15 classes x 15 methods, uniform); flow events reuse their source
**   slice's name, so 225 distinct names in all. No timestamps go backwards on a thread.
**
** kineto (260.5 bytes per event): like a PyTorch profiler (Kineto) trace
**   Laid out as Kineto writes it (one key per few lines, 2/4/6-space indents): a top-level
**   object with "schemaVersion":1, "distributedInfo" {"backend":"nccl","rank":0,
**   "world_size":8}, "deviceProperties" (one A100-like object), "displayTimeUnit",
**   "baseTimeNanoseconds", "traceEvents", then "traceName". Events: 14 M events (process
**   name/labels/sort index for the CPU process 2814 and for GPU pid 0, thread names and sort
**   indices for the CPU thread 2814 and the streams 7, 13, 20); then per iteration a
**   "ProfilerStep#i" X slice (cat user_annotation) on the CPU thread holding 60..179 ops
**   (uniform). Each op is a cpu_op X slice (40 names like "aten::mm", uniform; args External
**   id, Sequence number, Fwd thread id, Record function id, Ev Idx) holding a cuda_runtime X
**   slice (args External id, cbid, correlation), an ac2g flow start ("ph":"s","bp":"e") at the
**   runtime call's start on the CPU thread, an ac2g flow end ("ph":"f","bp":"e", same id) at
**   the GPU slice's start (Kineto itself writes "bp" on the "f" only), and the GPU slice
**   (pid 0, tid = stream): 5 events per op, so ~60 % X, 20 % s, 20 % f. The GPU
**   slice is a cat kernel slice named from 300 templated names of 60..250 bytes (built as in
**   names, uniform choice), on stream 7 (70 %), 13 (20 %) or 20 (10 %), with Kineto's kernel
**   args (External id, queued, device, context, stream, correlation, registers per thread,
**   shared memory, blocks per SM, warps per SM, grid, block, est. achieved occupancy %);
**   every 50th kernel op is "ncclDevKernel_AllReduce_Sum_f32_RING_LL" on stream 20. Each
**   step's first op ("aten::to") is a cudaMemcpyAsync with a gpu_memcpy slice "Memcpy HtoD
**   (Pinned -> Device)" and its last ("aten::item") one with "Memcpy DtoH (Device ->
**   Pageable)" that waits for every stream (the CPU waits too). Timestamps are µs with 3
**   decimals, never go backwards on a thread or stream, and a GPU slice starts after its
**   launch. 346 distinct names (40 cpu_op, 2 runtime, ac2g, 300 + 1 kernel, 2 memcpy) plus one
**   ProfilerStep#i per step (~600 events): 2,005 distinct names at 1M events.
*/
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static long long n = 0;     /* events written so far */
static int first = 1;       /* no event written yet */
#define SEP() do{ if(!first) fputs(",\n", stdout); first = 0; n++; }while(0)
#define TS(x) (x)/1000, (x)%1000   /* ns as µs with 3 decimals: "%lld.%03lld" */

/* The header and the 4 x (1 + 4) M events of the bench, names and args shapes. */
static void chrome_head(long long nWant, const char *zShape){
  if( zShape ){
    printf("{\"displayTimeUnit\":\"ms\",\"otherData\":{\"generator\":\"libprofsql gen_trace\",\"events\":%lld,\"shape\":\"%s\"},\n"
           "\"traceEvents\":[\n", nWant, zShape);
  }else{
    printf("{\"displayTimeUnit\":\"ms\",\"otherData\":{\"generator\":\"libprofsql gen_trace\",\"events\":%lld},\n"
           "\"traceEvents\":[\n", nWant);
  }
  for(int p=1; p<=4; p++){
    SEP(); printf("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":0,\"args\":{\"name\":\"Renderer %d\"}}", p, p);
    for(int t=1; t<=4; t++){
      SEP(); printf("{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":\"%s\"}}",
                    p, p*100+t, t==1 ? "CrRendererMain" : t==2 ? "Compositor" : t==3 ? "ThreadPoolWorker" : "IOThread");
    }
  }
}

/* ---------------------------------------------------------------------------------- bench */
static void gen_bench(long long nWant){
  chrome_head(nWant, 0);
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
}

/* ------------------------------------------------------- templated GPU-kernel-like names */
static const char *const azKNs[] = {
  "at::native::", "at::native::(anonymous namespace)::", "at::native::reduce_kernel_impl::",
  "cutlass::", "cub::CUB_200200_800_NS::", "flash::", "at::cuda::", "xmma_cudnn::"
};
static const char *const azKFn[] = {
  "elementwise_kernel", "vectorized_elementwise_kernel", "unrolled_elementwise_kernel",
  "reduce_kernel", "index_elementwise_kernel", "softmax_warp_forward", "softmax_warp_backward",
  "cunn_SoftMaxForward", "vectorized_layer_norm_kernel", "RowwiseMomentsCUDAKernel",
  "GammaBetaBackwardCUDAKernel", "Kernel", "DeviceRadixSortOnesweepKernel", "flash_fwd_kernel",
  "flash_bwd_dq_dk_dv_loop_kernel", "gemm_kernel", "indexSelectLargeIndex",
  "embedding_backward_feature_kernel", "multi_tensor_apply_kernel", "fused_dropout_kernel"
};
static const char *const azKArg[] = {
  "128", "4", "256", "512", "8", "1", "2", "true", "false", "float", "c10::Half",
  "c10::BFloat16", "long", "int", "unsigned int",
  "at::native::BinaryFunctor<float, float, float, at::native::binary_internal::MulFunctor<float> >",
  "at::native::CUDAFunctor_add<float>", "at::native::FillFunctor<float>",
  "at::native::AbsFunctor<c10::Half>", "at::detail::Array<char*, 3>", "at::detail::Array<char*, 2>",
  "OffsetCalculator<2, unsigned int, false>", "OffsetCalculator<1, unsigned int, false>",
  "at::native::memory::LoadWithoutCast", "at::native::memory::StoreWithoutCast",
  "at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned int, float, 4>",
  "at::native::func_wrapper_t<float, at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>",
  "cutlass::gemm::GemmShape<128, 128, 32>", "cutlass::arch::Sm80",
  "Flash_fwd_kernel_traits<128, 64, 64, 4, false, false, cutlass::half_t>",
  "at::native::(anonymous namespace)::TensorSizeStride<unsigned int, 4u>", "std::array<char*, 2ul>"
};
static const char *const azKPar[] = {
  "(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)",
  "(int, float*, float const*, float const*)",
  "(at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, unsigned int, float, 4>)",
  "(at::cuda::detail::TensorInfo<long, unsigned int>, at::cuda::detail::TensorInfo<float, unsigned int>, int, int, unsigned int, unsigned int, long)",
  "(Flash_fwd_params)", "(cutlass::gemm::kernel::Params)",
  "(long, long, float, float const*, float const*, float*, float*)"
};
#define NELEM(a) ((int)(sizeof(a)/sizeof((a)[0])))

static uint32_t vrnd(uint64_t *p){
  *p = *p*6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(*p >> 33);
}

/* nName distinct names, lengths spread evenly over [mn,mx] and shuffled; each is
** "void <ns><fn><<targs>>(<params>)" trimmed to its length less 5, then "_kkkk". Built from
** its own LCG (vocabSeed), so the vocabulary is the same for every seed. */
static char **build_vocab(int nName, int mn, int mx, uint64_t vocabSeed){
  uint64_t v = vocabSeed;
  int *aLen = malloc(sizeof(int)*nName);
  char **az = malloc(sizeof(char*)*nName);
  if( !aLen || !az ){ perror("malloc"); exit(1); }
  for(int k=0; k<nName; k++) aLen[k] = mn + (int)((long long)k*(mx-mn+1)/nName);
  for(int k=nName-1; k>0; k--){ int j = (int)(vrnd(&v) % (uint32_t)(k+1)), t = aLen[k]; aLen[k] = aLen[j]; aLen[j] = t; }
  char zBuf[1024];
  for(int k=0; k<nName; k++){
    int body = aLen[k] - 5, len;
    const char *zPar = azKPar[vrnd(&v)%NELEM(azKPar)];
    int nPar = (int)strlen(zPar) + 1;   /* ">" + params */
    len = snprintf(zBuf, sizeof(zBuf), "void %s%s<", azKNs[vrnd(&v)%NELEM(azKNs)], azKFn[vrnd(&v)%NELEM(azKFn)]);
    for(int i=0; len + nPar < body; i++){
      len += snprintf(zBuf+len, sizeof(zBuf)-len, "%s%s", i ? ", " : "", azKArg[vrnd(&v)%NELEM(azKArg)]);
    }
    len += snprintf(zBuf+len, sizeof(zBuf)-len, ">%s", zPar);
    if( len>body ) len = body;
    az[k] = malloc(aLen[k] + 1);
    if( !az[k] ){ perror("malloc"); exit(1); }
    memcpy(az[k], zBuf, len);
    snprintf(az[k]+len, 6, "_%04d", k);
  }
  free(aLen);
  return az;
}

/* ---------------------------------------------------------------------------------- names */
#define NAMES_N 10000
static double aCdf[NAMES_N];
static char **azVocab;
static const char *zipf_name(void){
  double u = ((double)rnd() + 0.5) / 2147483648.0;
  int lo = 0, hi = NAMES_N-1;
  while( lo<hi ){ int mid = (lo+hi)/2; if( aCdf[mid]<u ) lo = mid+1; else hi = mid; }
  return azVocab[lo];
}

static void gen_names(long long nWant){
  azVocab = build_vocab(NAMES_N, 20, 300, 0x6e616d6573ull);
  double h = 0;
  for(int r=1; r<=NAMES_N; r++){ h += 1.0/r; aCdf[r-1] = h; }   /* Zipf, s = 1.0 */
  for(int r=0; r<NAMES_N; r++) aCdf[r] /= h;
  aCdf[NAMES_N-1] = 1.0;
  chrome_head(nWant, "names");
  long long clock[16] = {0};
  long long asyncId = 1;
  while( n < nWant ){
    int th = (int)(rnd() % 16), pid = th/4 + 1, tid = pid*100 + th%4 + 1;
    long long t0 = clock[th] + 1000 + rnd()%5000;
    int kind = (int)(rnd() % 10);
    if( kind<6 ){
      long long d = 20000 + rnd()%200000;
      const char *nm = zipf_name();
      SEP(); printf("{\"pid\":%d,\"tid\":%d,\"ph\":\"X\",\"ts\":%lld.%03lld,\"dur\":%lld.%03lld,\"tts\":%lld.%03lld,\"name\":\"%s\",\"cat\":\"%s\",\"args\":{\"seq\":%lld}}",
                    pid, tid, TS(t0), TS(d), TS(t0/2), nm, azCat[rnd()%6], n);
      long long c1 = t0 + 1000, d1 = d/3;
      nm = zipf_name();
      SEP(); printf("{\"pid\":%d,\"tid\":%d,\"ph\":\"X\",\"ts\":%lld.%03lld,\"dur\":%lld.%03lld,\"tts\":%lld.%03lld,\"name\":\"%s\",\"cat\":\"%s\",\"args\":{\"depth\":1}}",
                    pid, tid, TS(c1), TS(d1), TS(c1/2), nm, azCat[rnd()%6]);
      long long g1 = c1 + 500, dg = d1/2;
      nm = zipf_name();
      SEP(); printf("{\"pid\":%d,\"tid\":%d,\"ph\":\"X\",\"ts\":%lld.%03lld,\"dur\":%lld.%03lld,\"tts\":%lld.%03lld,\"name\":\"%s\",\"cat\":\"%s\",\"args\":{\"depth\":2}}",
                    pid, tid, TS(g1), TS(dg), TS(g1/2), nm, azCat[rnd()%6]);
      long long c2 = c1 + d1 + 1000, d2 = d/3;
      nm = zipf_name();
      SEP(); printf("{\"pid\":%d,\"tid\":%d,\"ph\":\"X\",\"ts\":%lld.%03lld,\"dur\":%lld.%03lld,\"tts\":%lld.%03lld,\"name\":\"%s\",\"cat\":\"%s\",\"args\":{\"depth\":1}}",
                    pid, tid, TS(c2), TS(d2), TS(c2/2), nm, azCat[rnd()%6]);
      clock[th] = t0 + d;
    }else if( kind<8 ){
      long long d = 5000 + rnd()%50000;
      const char *nm = zipf_name();
      SEP(); printf("{\"pid\":%d,\"tid\":%d,\"ph\":\"B\",\"ts\":%lld.%03lld,\"name\":\"%s\",\"cat\":\"%s\",\"args\":{\"seq\":%lld}}",
                    pid, tid, TS(t0), nm, azCat[rnd()%6], n);
      long long ti = t0 + d/2;
      SEP(); printf("{\"pid\":%d,\"tid\":%d,\"ph\":\"i\",\"s\":\"t\",\"ts\":%lld.%03lld,\"name\":\"Mark\",\"cat\":\"blink\"}",
                    pid, tid, TS(ti));
      long long te = t0 + d;
      SEP(); printf("{\"pid\":%d,\"tid\":%d,\"ph\":\"E\",\"ts\":%lld.%03lld,\"name\":\"%s\",\"cat\":\"%s\",\"args\":{}}",
                    pid, tid, TS(te), nm, azCat[0]);
      clock[th] = te;
    }else if( kind<9 ){
      long long d = 100000 + rnd()%900000, id = asyncId++;
      SEP(); printf("{\"pid\":%d,\"tid\":%d,\"ph\":\"b\",\"ts\":%lld.%03lld,\"name\":\"ResourceLoad\",\"cat\":\"loading\",\"id\":\"0x%llx\",\"args\":{\"url\":\"https://example.test/r/%lld\"}}",
                    pid, tid, TS(t0), id, id);
      long long te = t0 + d;
      SEP(); printf("{\"pid\":%d,\"tid\":%d,\"ph\":\"e\",\"ts\":%lld.%03lld,\"name\":\"ResourceLoad\",\"cat\":\"loading\",\"id\":\"0x%llx\",\"args\":{}}",
                    pid, tid, TS(te), id);
      clock[th] = t0;
    }else{
      SEP(); printf("{\"pid\":%d,\"tid\":%d,\"ph\":\"C\",\"ts\":%lld.%03lld,\"name\":\"Memory\",\"cat\":\"memory\",\"args\":{\"heap_kb\":%u,\"gpu_kb\":%u}}",
                    pid, tid, TS(t0), 10000 + rnd()%50000, rnd()%90000);
      clock[th] = t0;
    }
  }
  printf("\n]}\n");
}

/* ----------------------------------------------------------------------------------- args */
static const char *const azAClass[] = {
  "RenderFrameImpl", "LocalFrameView", "PaintLayer", "LayoutBlockFlow", "Document", "HTMLDocumentParser",
  "V8ScriptRunner", "ResourceFetcher", "CompositorFrameSink", "GpuChannel", "SkiaRenderer",
  "TaskQueueImpl", "ThreadControllerImpl", "URLLoader", "StyleEngine"
};
static const char *const azAMethod[] = {
  "Run", "Update", "Commit", "Paint", "Layout", "Dispatch", "Prepare", "Flush", "Schedule",
  "Resolve", "Invalidate", "Compile", "Load", "Decode", "Notify"
};
static const char *const azAKey[] = {   /* the scalar members, in turn integer, decimal, string */
  "seq", "ratio", "url", "size", "load", "frame", "priority", "score", "src_file",
  "task_id", "weight", "function", "bytes", "cpu_pct", "policy"
};

/* len bytes of [a-z0-5] (no JSON escapes) */
static void rstr(int len){
  static const char al[] = "abcdefghijklmnopqrstuvwxyz012345";
  char b[128];
  for(int i=0; i<len; ){
    uint32_t r = rnd();
    for(int j=0; j<6 && i<len; j++){ b[i++] = al[r&31]; r >>= 5; }
  }
  fwrite(b, 1, len, stdout);
}

/* an args object: 6..12 members; one nested object, one short array, the rest scalars */
static void args_obj(void){
  int m = 6 + (int)(rnd()%7);
  int iObj = (int)(rnd()%m), iArr = (iObj + 1 + (int)(rnd()%(m-1))) % m;
  int k = (int)(rnd()%NELEM(azAKey));
  putchar('{');
  for(int i=0; i<m; i++){
    if( i ) putchar(',');
    if( i==iObj ){
      printf("\"detail\":{\"id\":%u,\"kind\":\"", rnd()%100000);
      rstr(10 + (int)(rnd()%11));
      printf("\",\"flags\":%u,\"pending\":%s}", rnd()%256, (rnd()&1) ? "true" : "false");
    }else if( i==iArr ){
      int c = 2 + (int)(rnd()%3);
      fputs("\"ids\":[", stdout);
      for(int j=0; j<c; j++) printf("%s%u", j ? "," : "", rnd()%100000);
      putchar(']');
    }else{
      const char *zKey = azAKey[k];
      switch( k%3 ){
        case 0: printf("\"%s\":%u", zKey, rnd()%1000000); break;
        case 1: { uint32_t r = rnd(); printf("\"%s\":%u.%04u", zKey, r%1000, (r/1000)%10000); break; }
        default: printf("\"%s\":\"", zKey); rstr(10 + (int)(rnd()%71)); putchar('"'); break;
      }
      k = (k+1) % NELEM(azAKey);
    }
  }
  putchar('}');
}

static void args_x(int pid, int tid, long long t0, long long d, const char *nm){
  SEP(); printf("{\"pid\":%d,\"tid\":%d,\"ph\":\"X\",\"ts\":%lld.%03lld,\"dur\":%lld.%03lld,\"name\":\"%s\",\"cat\":\"%s\",\"args\":",
                pid, tid, TS(t0), TS(d), nm, azCat[rnd()%6]);
  args_obj();
  putchar('}');
}

static void gen_args(long long nWant){
  char azNm[NELEM(azAClass)*NELEM(azAMethod)][48];
  for(int c=0; c<NELEM(azAClass); c++){
    for(int m=0; m<NELEM(azAMethod); m++){
      snprintf(azNm[c*NELEM(azAMethod)+m], sizeof(azNm[0]), "%s::%s", azAClass[c], azAMethod[m]);
    }
  }
  const uint32_t nNm = NELEM(azNm);
  chrome_head(nWant, "args");
  long long clock[16] = {0};
  long long flowId = 1;
  while( n < nWant ){
    int th = (int)(rnd() % 16), pid = th/4 + 1, tid = pid*100 + th%4 + 1;
    long long t0 = clock[th] + 1000 + rnd()%5000;
    int kind = (int)(rnd() % 5);
    const char *nm = azNm[rnd()%nNm];
    if( kind<2 ){
      /* B/E pair, each with its own args */
      long long d = 5000 + rnd()%50000, te = t0 + d;
      SEP(); printf("{\"pid\":%d,\"tid\":%d,\"ph\":\"B\",\"ts\":%lld.%03lld,\"name\":\"%s\",\"cat\":\"%s\",\"args\":",
                    pid, tid, TS(t0), nm, azCat[rnd()%6]);
      args_obj(); putchar('}');
      SEP(); printf("{\"pid\":%d,\"tid\":%d,\"ph\":\"E\",\"ts\":%lld.%03lld,\"name\":\"%s\",\"cat\":\"%s\",\"args\":",
                    pid, tid, TS(te), nm, azCat[rnd()%6]);
      args_obj(); putchar('}');
      clock[th] = te;
    }else if( kind<4 ){
      long long d = 5000 + rnd()%200000;
      args_x(pid, tid, t0, d, nm);
      clock[th] = t0 + d;
    }else{
      /* a flow from a slice on this thread to a later slice on another thread */
      long long d = 20000 + rnd()%100000, ts = t0 + d/2, id = flowId++;
      args_x(pid, tid, t0, d, nm);
      SEP(); printf("{\"pid\":%d,\"tid\":%d,\"ph\":\"s\",\"ts\":%lld.%03lld,\"name\":\"%s\",\"cat\":\"disabled-by-default-toplevel.flow\",\"id\":\"0x%llx\",\"bp\":\"e\"}",
                    pid, tid, TS(ts), nm, id);
      clock[th] = t0 + d;
      int th2 = (th + 1 + (int)(rnd()%15)) % 16, pid2 = th2/4 + 1, tid2 = pid2*100 + th2%4 + 1;
      long long u0 = clock[th2] + 1000 + rnd()%5000, u1 = ts + 1000 + rnd()%20000;
      if( u1>u0 ) u0 = u1;
      long long d2 = 5000 + rnd()%100000, tf = u0 + d2/2;
      args_x(pid2, tid2, u0, d2, azNm[rnd()%nNm]);
      SEP(); printf("{\"pid\":%d,\"tid\":%d,\"ph\":\"f\",\"ts\":%lld.%03lld,\"name\":\"%s\",\"cat\":\"disabled-by-default-toplevel.flow\",\"id\":\"0x%llx\",\"bp\":\"e\"}",
                    pid2, tid2, TS(tf), nm, id);
      clock[th2] = u0 + d2;
    }
  }
  printf("\n]}\n");
}

/* --------------------------------------------------------------------------------- kineto */
typedef struct Buf { char *z; size_t n, cap; } Buf;
static void bput(Buf *b, const char *zFmt, ...) __attribute__((format(printf, 2, 3)));
static void bput(Buf *b, const char *zFmt, ...){
  for(;;){
    va_list ap;
    va_start(ap, zFmt);
    int k = vsnprintf(b->z ? b->z + b->n : 0, b->z ? b->cap - b->n : 0, zFmt, ap);
    va_end(ap);
    if( k<0 ){ perror("vsnprintf"); exit(1); }
    if( b->z && b->n + (size_t)k < b->cap ){ b->n += (size_t)k; return; }
    while( b->n + (size_t)k >= b->cap ) b->cap = b->cap ? b->cap*2 : 65536;
    b->z = realloc(b->z, b->cap);
    if( !b->z ){ perror("realloc"); exit(1); }
  }
}
/* start an event in b: the "," separator, count it */
static void kev(Buf *b){ if( !first ) bput(b, ","); first = 0; n++; }

static const char *const azAten[] = {
  "aten::to", "aten::item", "aten::mm", "aten::add_", "aten::addmm", "aten::linear", "aten::relu",
  "aten::layer_norm", "aten::native_layer_norm", "aten::softmax", "aten::_softmax", "aten::matmul",
  "aten::bmm", "aten::mul", "aten::div", "aten::sum", "aten::mean", "aten::copy_", "aten::_to_copy",
  "aten::empty", "aten::zeros", "aten::fill_", "aten::cat", "aten::gelu", "aten::dropout",
  "aten::native_dropout", "aten::embedding", "aten::index_select", "aten::log_softmax",
  "aten::nll_loss", "aten::addcmul_", "aten::addcdiv_", "aten::sqrt", "aten::_foreach_add_",
  "aten::t", "aten::convolution", "aten::cudnn_convolution", "aten::mul_", "aten::tanh",
  "aten::embedding_dense_backward"
};

#define K_PID 2814
#define K_NKERN 300

static void gen_kineto(long long nWant){
  char **azKern = build_vocab(K_NKERN, 60, 250, 0x6b696e65746full);
  static const int aRegs[] = { 16, 24, 32, 38, 40, 48, 64, 72, 96, 128, 168, 255 };
  static const int aShm[] = { 0, 0, 0, 1024, 4096, 8192, 16384, 24576, 49152, 65536, 98304, 166912 };
  static const int aBlock[] = { 64, 128, 128, 256, 256, 512, 1024 };
  printf("{\n  \"schemaVersion\": 1,\n"
         "  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 0, \"world_size\": 8},\n"
         "  \"deviceProperties\": [\n"
         "    {\n"
         "    \"id\": 0, \"name\": \"NVIDIA A100-SXM4-80GB\", \"totalGlobalMem\": 85097971712,\n"
         "    \"computeMajor\": 8, \"computeMinor\": 0,\n"
         "    \"maxThreadsPerBlock\": 1024, \"maxThreadsPerMultiprocessor\": 2048,\n"
         "    \"regsPerBlock\": 65536, \"regsPerMultiprocessor\": 65536, \"warpSize\": 32,\n"
         "    \"sharedMemPerBlock\": 49152, \"sharedMemPerMultiprocessor\": 167936,\n"
         "    \"numSms\": 108, \"sharedMemPerBlockOptin\": 166912\n"
         "    }\n"
         "  ],\n"
         "  \"displayTimeUnit\": \"ms\",\n"
         "  \"baseTimeNanoseconds\": 1700000000000000000,\n"
         "  \"traceEvents\": [");
  Buf b = {0, 0, 0};
  /* metadata: the CPU process and thread, the GPU and its streams */
  static const struct { int pid; const char *zName, *zLabel; int sort; } aProc[] = {
    { K_PID, "python3", "CPU", K_PID }, { 0, "GPU 0", "NVIDIA A100-SXM4-80GB", 0x1000000 } };
  for(int i=0; i<2; i++){
    kev(&b); bput(&b, "\n  {\n    \"name\": \"process_name\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": %d, \"tid\": 0,\n    \"args\": {\n      \"name\": \"%s\"\n    }\n  }", aProc[i].pid, aProc[i].zName);
    kev(&b); bput(&b, "\n  {\n    \"name\": \"process_labels\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": %d, \"tid\": 0,\n    \"args\": {\n      \"labels\": \"%s\"\n    }\n  }", aProc[i].pid, aProc[i].zLabel);
    kev(&b); bput(&b, "\n  {\n    \"name\": \"process_sort_index\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": %d, \"tid\": 0,\n    \"args\": {\n      \"sort_index\": %d\n    }\n  }", aProc[i].pid, aProc[i].sort);
  }
  static const int aStream[] = { 7, 13, 20 };
  for(int i=0; i<4; i++){
    char zName[40];
    int pid = i==0 ? K_PID : 0, tid = i==0 ? K_PID : aStream[i-1];
    if( i==0 ) snprintf(zName, sizeof(zName), "thread %d (python3)", K_PID);
    else snprintf(zName, sizeof(zName), "stream %d", tid);
    kev(&b); bput(&b, "\n  {\n    \"name\": \"thread_name\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": %d, \"tid\": %d,\n    \"args\": {\n      \"name\": \"%s\"\n    }\n  }", pid, tid, zName);
    kev(&b); bput(&b, "\n  {\n    \"name\": \"thread_sort_index\", \"ph\": \"M\", \"ts\": 0.000, \"pid\": %d, \"tid\": %d,\n    \"args\": {\n      \"sort_index\": %d\n    }\n  }", pid, tid, i==0 ? K_PID : tid);
  }
  fwrite(b.z, 1, b.n, stdout); b.n = 0;

  long long cpu = 1000000, gpu[3] = { 1000000, 1000000, 1000000 };  /* ns; gpu[] per stream */
  long long ext = 1, seqNo = 1, evIdx = 0, corr = 10, nOpKern = 0;
  for(int step=0; n < nWant; step++){
    long long tStep = cpu + 5000 + rnd()%20000, stepExt = ext++, stepEv = evIdx++;
    kev(&b);   /* the ProfilerStep slice: counted now, printed (before its ops) once its end is known */
    size_t nStepHead = b.n;
    cpu = tStep + 2000 + rnd()%5000;
    int nOps = 60 + (int)(rnd()%120);
    for(int i=0; i<nOps && n < nWant; i++){
      int bLast = i==nOps-1 || n+5 >= nWant, bMem = i==0 || bLast, si, stream;
      const char *zOp = bMem ? azAten[i==0 ? 0 : 1] : azAten[rnd()%NELEM(azAten)];
      long long k = ext++, c = corr++;
      long long t0 = cpu + 1000 + rnd()%8000;
      long long tl = t0 + 2000 + rnd()%10000, dl = 3000 + rnd()%12000;
      long long tg, dg;
      if( bMem ){
        si = 0; stream = 7;
        tg = tl + 4000 + rnd()%10000;
        if( i==0 ){
          if( tg < gpu[0] + 1000 ) tg = gpu[0] + 1000;
        }else{
          for(int s=0; s<3; s++) if( tg < gpu[s] + 1000 ) tg = gpu[s] + 1000;
        }
      }else{
        int bNccl = ++nOpKern % 50 == 0;
        uint32_t r = rnd()%10;
        si = bNccl || r==9 ? 2 : r>=7 ? 1 : 0; stream = aStream[si];
        tg = tl + 4000 + rnd()%20000;
        if( tg < gpu[si] + 1000 ) tg = gpu[si] + 1000 + rnd()%2000;
      }
      /* the cpu_op, the runtime call inside it, the flow start */
      long long dOp;
      if( bMem ){
        uint32_t bytes = i==0 ? (1u<<20) * (1 + rnd()%16) : 4;
        uint32_t bw = i==0 ? 18 + rnd()%6 : 1;          /* GB/s = bytes/ns */
        dg = i==0 ? bytes / bw : 1500 + rnd()%1000;
        if( i!=0 ) bw = 0;
        /* a synchronous copy: the runtime call lasts until the copy ends */
        if( tl + dl < tg + dg + 2000 ) dl = tg + dg + 2000 - tl;
        dOp = tl + dl + 1000 + rnd()%5000 - t0;
        kev(&b); bput(&b, "\n  {\n    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"%s\", \"pid\": %d, \"tid\": %d,\n    \"ts\": %lld.%03lld, \"dur\": %lld.%03lld,\n    \"args\": {\n      \"External id\": %lld, \"Sequence number\": %lld, \"Fwd thread id\": 0, \"Record function id\": 0, \"Ev Idx\": %lld\n    }\n  }",
                          zOp, K_PID, K_PID, TS(t0), TS(dOp), k, seqNo++, evIdx++);
        kev(&b); bput(&b, "\n  {\n    \"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaMemcpyAsync\", \"pid\": %d, \"tid\": %d,\n    \"ts\": %lld.%03lld, \"dur\": %lld.%03lld,\n    \"args\": {\n      \"External id\": %lld, \"cbid\": 41, \"correlation\": %lld\n    }\n  }",
                          K_PID, K_PID, TS(tl), TS(dl), k, c);
        kev(&b); bput(&b, "\n  {\n    \"ph\": \"s\", \"id\": %lld, \"pid\": %d, \"tid\": %d, \"ts\": %lld.%03lld,\n    \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"\n  }",
                          c, K_PID, K_PID, TS(tl));
        unsigned long long bwMicro = bw ? (unsigned long long)bw*1000000ull
                                        : (unsigned long long)bytes*1000000ull/(unsigned long long)dg;
        kev(&b); bput(&b, "\n  {\n    \"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"%s\", \"pid\": 0, \"tid\": %d,\n    \"ts\": %lld.%03lld, \"dur\": %lld.%03lld,\n    \"args\": {\n      \"External id\": %lld, \"device\": 0, \"context\": 1, \"stream\": %d, \"correlation\": %lld, \"bytes\": %u, \"memory bandwidth (GB/s)\": %llu.%06llu\n    }\n  }",
                          i==0 ? "Memcpy HtoD (Pinned -> Device)" : "Memcpy DtoH (Device -> Pageable)",
                          stream, TS(tg), TS(dg), k, stream, c, bytes, bwMicro/1000000, bwMicro%1000000);
      }else{
        const char *zKern;
        if( nOpKern % 50 == 0 ){
          zKern = "ncclDevKernel_AllReduce_Sum_f32_RING_LL";
          dg = 50000 + rnd()%750000;
        }else{
          zKern = azKern[rnd()%K_NKERN];
          dg = rnd()%100<85 ? 2000 + rnd()%38000 : 40000 + rnd()%560000;
        }
        dOp = tl + dl + 1000 + rnd()%5000 - t0;
        kev(&b); bput(&b, "\n  {\n    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"%s\", \"pid\": %d, \"tid\": %d,\n    \"ts\": %lld.%03lld, \"dur\": %lld.%03lld,\n    \"args\": {\n      \"External id\": %lld, \"Sequence number\": %lld, \"Fwd thread id\": 0, \"Record function id\": 0, \"Ev Idx\": %lld\n    }\n  }",
                          zOp, K_PID, K_PID, TS(t0), TS(dOp), k, seqNo++, evIdx++);
        kev(&b); bput(&b, "\n  {\n    \"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": %d, \"tid\": %d,\n    \"ts\": %lld.%03lld, \"dur\": %lld.%03lld,\n    \"args\": {\n      \"External id\": %lld, \"cbid\": 211, \"correlation\": %lld\n    }\n  }",
                          K_PID, K_PID, TS(tl), TS(dl), k, c);
        kev(&b); bput(&b, "\n  {\n    \"ph\": \"s\", \"id\": %lld, \"pid\": %d, \"tid\": %d, \"ts\": %lld.%03lld,\n    \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"\n  }",
                          c, K_PID, K_PID, TS(tl));
        unsigned gx = 1 + rnd()%4096, gy = rnd()%4==0 ? 1 + rnd()%64 : 1, bx = (unsigned)aBlock[rnd()%NELEM(aBlock)];
        unsigned long long bps = (unsigned long long)gx*gy*1000000ull/108, wps = bps*bx/32;
        kev(&b); bput(&b, "\n  {\n    \"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": %d,\n    \"ts\": %lld.%03lld, \"dur\": %lld.%03lld,\n    \"args\": {\n      \"External id\": %lld, \"queued\": 0, \"device\": 0, \"context\": 1, \"stream\": %d, \"correlation\": %lld, \"registers per thread\": %d, \"shared memory\": %d, \"blocks per SM\": %llu.%06llu, \"warps per SM\": %llu.%06llu, \"grid\": [%u, %u, 1], \"block\": [%u, 1, 1], \"est. achieved occupancy %%\": %u\n    }\n  }",
                          zKern, stream, TS(tg), TS(dg), k, stream, c, aRegs[rnd()%NELEM(aRegs)], aShm[rnd()%NELEM(aShm)],
                          bps/1000000, bps%1000000, wps/1000000, wps%1000000, gx, gy, bx, rnd()%101);
      }
      kev(&b); bput(&b, "\n  {\n    \"ph\": \"f\", \"id\": %lld, \"pid\": 0, \"tid\": %d, \"ts\": %lld.%03lld,\n    \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"\n  }",
                        c, stream, TS(tg));
      gpu[si] = tg + dg;
      cpu = t0 + dOp;
    }
    long long tEnd = cpu + 2000 + rnd()%8000;
    printf("%s\n  {\n    \"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#%d\", \"pid\": %d, \"tid\": %d,\n    \"ts\": %lld.%03lld, \"dur\": %lld.%03lld,\n    \"args\": {\n      \"External id\": %lld, \"Record function id\": 0, \"Ev Idx\": %lld\n    }\n  }",
           nStepHead ? "," : "", step, K_PID, K_PID, TS(tStep), TS(tEnd - tStep), stepExt, stepEv);
    fwrite(b.z + nStepHead, 1, b.n - nStepHead, stdout); b.n = 0;
    cpu = tEnd;
  }
  printf("\n  ],\n  \"traceName\": \"gen_trace_kineto.json\"\n}\n");
  free(b.z);
}

int main(int argc, char **argv){
  long long nWant = argc>1 ? atoll(argv[1]) : 1000;
  s_state = argc>2 ? (uint64_t)atoll(argv[2]) : 42;
  const char *zShape = argc>3 ? argv[3] : "bench";
  if( argc>4 ) zShape = "";
  if( strcmp(zShape, "bench")==0 ) gen_bench(nWant);
  else if( strcmp(zShape, "names")==0 ) gen_names(nWant);
  else if( strcmp(zShape, "args")==0 ) gen_args(nWant);
  else if( strcmp(zShape, "kineto")==0 ) gen_kineto(nWant);
  else{
    fprintf(stderr, "usage: gen_trace N [seed [shape]]   shape: bench (default), names, args, kineto\n");
    if( argc>4 ) fprintf(stderr, "gen_trace: too many arguments\n");
    else fprintf(stderr, "gen_trace: unknown shape '%s'\n", zShape);
    return 2;
  }
  return 0;
}
