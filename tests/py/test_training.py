"""sql/training.sql (profile_open's training views) against values worked out by hand on the two
hand-made rank traces of examples/training (README there), and against Python's json over the real
PyTorch profiler (Kineto) traces of ../shared/corpus (H100, B200, MI210, MI300X/ROCm): kernel
breakdown by class, the temporal breakdown (unions of kernel intervals), launch delays joined by
correlation id, the idle gaps per stream; the classes table is editable; the directory form equals
each file read alone."""
import collections
import decimal
import gzip
import json
import os
import re

from testlib import check, connect, done, skip_part

CORPUS = os.path.join("..", "shared", "corpus", "chrome")


def opened(src, db=None):
    db = db or connect()
    db.execute("SELECT profile_open(?)", (src,)).fetchone()
    return db


def q(db, sql):
    return [tuple(r) for r in db.execute(sql)]


# ---------------------------------------------------------------- by hand: examples/training
# rank 0: stream 7 [20,120] [250,350] memcpy [400,450], stream 8 NCCL [100,300] (us)
#   span 20..450 = 430; union 330 + 50 = 380 -> idle 50; compute [20,120] u [250,350] = 200;
#   non-compute 380 - 200 = 180; comm 200, overlapped by compute [100,120] + [250,300] = 70 (35 %)
#   launch delays: 20-15, 100-35, 250-210, 400-385; stream 7 gaps 120..250 (launch of the next
#   ended at 210: host 90, kernel 40) and 350..400 (385: host 35, kernel 15)
# rank 1: stream 7 [20,170] [320,420], stream 8 NCCL (the old name ncclKernel_*) [100,200]
#   span 400, union 180 + 100 = 280 -> idle 120; compute 250, non-compute 30; comm 100, overlap
#   [100,170] = 70 (70 %); delays 5, 65, 10; gap 170..320 (launch end 310: host 140, kernel 10)
# steps: rank 0 1000, 1000; rank 1 1000, 1300: the median of step 2 (lower middle of two) 1000,
#   rank 1 1.3 times it: a straggler. Correlation ids 1..3 are in both files: never joined across.
db = opened("examples/training")
us = 1000
check(q(db, "SELECT rank, kernel_ns, idle_ns, compute_ns, non_compute_ns FROM gpu_temporal_breakdown ORDER BY rank")
      == [(0, 430 * us, 50 * us, 200 * us, 180 * us), (1, 400 * us, 120 * us, 250 * us, 30 * us)],
      "temporal breakdown by hand", q(db, "SELECT * FROM gpu_temporal_breakdown"))
check(q(db, "SELECT rank, comm_ns, overlapped_ns, overlap_pct FROM comm_comp_overlap ORDER BY rank")
      == [(0, 200 * us, 70 * us, 35.0), (1, 100 * us, 70 * us, 70.0)], "comm/comp overlap by hand, NCCL's old and new names")
check(q(db, "SELECT rank, correlation, launch_delay FROM kernel_launch_stats ORDER BY 1, 2")
      == [(0, 1, 5 * us), (0, 2, 65 * us), (0, 3, 40 * us), (0, 4, 15 * us), (1, 1, 5 * us), (1, 2, 65 * us), (1, 3, 10 * us)],
      "launch delays by hand, correlation ids scoped per rank")
check(q(db, "SELECT rank, stream, idle_ns, host_wait_ns, kernel_wait_ns FROM gpu_idle_breakdown ORDER BY 1, 2")
      == [(0, 7, 180 * us, 125 * us, 55 * us), (1, 7, 150 * us, 140 * us, 10 * us)], "idle split by cause by hand")
check(q(db, "SELECT rank, step, dur, median_dur, straggler FROM step_stragglers ORDER BY step, rank")
      == [(0, 1, 1000 * us, 1000 * us, 0), (1, 1, 1000 * us, 1000 * us, 0), (0, 2, 1000 * us, 1000 * us, 0),
          (1, 2, 1300 * us, 1000 * us, 1)], "steps and the straggler by hand")
check(q(db, "SELECT rank, class, name, count, sum_ns, round(total_share_pct, 4) FROM gpu_kernel_breakdown WHERE rank = 0 ORDER BY sum_ns DESC, name")
      == [(0, "communication", "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 1, 200 * us, round(200 / 4.5, 4)),
          (0, "computation", "sgemm_128", 2, 200 * us, round(200 / 4.5, 4)),
          (0, "memory", "Memcpy HtoD (Pageable -> Device)", 1, 50 * us, round(50 / 4.5, 4))], "kernel breakdown by hand")
# the classes are data: sgemm made communication by a row of higher priority
db.execute("INSERT INTO gpu_kernel_classes VALUES ('sgemm%', 'communication', 20)")
check(q(db, "SELECT class FROM gpu_kernels WHERE name = 'sgemm_128' GROUP BY class") == [("communication",)]
      and q(db, "SELECT compute_ns FROM gpu_temporal_breakdown WHERE rank = 0") == [(0,)], "gpu_kernel_classes: an INSERT reclassifies")
db.execute("SELECT profile_open('examples/training')").fetchone()
check(q(db, "SELECT count(*) FROM gpu_kernel_classes WHERE pattern = 'sgemm%'") == [(1,)],
      "gpu_kernel_classes: a second profile_open keeps the user's rows")
# HTA's rules as options: steps #1 [0,100) and #2 [100,200) us, kernels starting at 50, 150 and 250
import tempfile as _tf
_d = _tf.mkdtemp(prefix="profsql-training-opt-")
_p = os.path.join(_d, "steps.json")
json.dump({"traceEvents": [{"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{i + 1}", "ts": 100 * i, "dur": 100,
                            "pid": 1, "tid": 1} for i in range(2)] +
                          [{"ph": "X", "cat": "kernel", "name": "k", "ts": t, "dur": 10, "pid": 0, "tid": 7, "args": {"stream": 7}}
                           for t in (50, 150, 250)]}, open(_p, "w"))
dbo = opened(_p)
check(q(dbo, "SELECT count(*) FROM gpu_kernels") == [(3,)], "options: by default every kernel")
dbo.execute("UPDATE training_options SET value = 'profiled' WHERE key = 'steps'")
check(q(dbo, "SELECT count(*) FROM gpu_kernels") == [(2,)], "options: steps 'profiled': the kernels inside a step (HTA)")
dbo.execute("UPDATE training_options SET value = 1 WHERE key = 'drop_last_step'")
check(q(dbo, "SELECT count(*) FROM gpu_kernels") == [(1,)] and q(dbo, "SELECT step FROM training_steps") == [(1,)],
      "options: drop_last_step leaves the last step and its kernels out (HTA's default)")
dbo.execute("SELECT profile_open(?)", (_p,)).fetchone()
check(q(dbo, "SELECT value FROM training_options WHERE key = 'steps'") == [("profiled",)], "options: kept by a second profile_open")
# the directory form equals each file read alone (the rank from distributedInfo)
for f, r in (("examples/training/rank0.json", 0), ("examples/training/rank1.json", 1)):
    one = opened(f)
    for v in ("gpu_temporal_breakdown", "comm_comp_overlap", "gpu_idle_breakdown", "kernel_launch_stats", "gpu_kernel_breakdown"):
        d2 = opened("examples/training")
        check(sorted(q(one, f"SELECT * FROM {v}")) == sorted(q(d2, f"SELECT * FROM {v} WHERE rank = {r}")),
              f"{v}: rank {r} alone = rank {r} of the directory")


# ---------------------------------------------------------------- an XSpace's device planes
# the kernels are the events of the device planes' stream lines (XSpace.planes=1; XPlane.name=2,
# lines=3, event_metadata=4 (key=1, value: name=2); XLine.name=2, display_name=11, events=4;
# XEvent.metadata_id=1, duration_ps=3), read here with a protobuf wire reader: count and ns per name
from testlib import pb_fields


def pb(buf):
    return [(f, v) for f, _, v in pb_fields(buf)]


xs = collections.Counter()
xn = collections.Counter()
for f, plane in pb(open("examples/gpu_host.xplane.pb", "rb").read()):
    pf = pb(plane) if f == 1 else []
    if not next((v.decode() for g, v in pf if g == 2), "").startswith("/device:"):
        continue
    names = {}
    for g, entry in pf:
        if g == 4:
            ef = pb(entry)
            names[next(v for w, v in ef if w == 1)] = next((v.decode() for w, v in pb(next(v for w, v in ef if w == 2)) if w == 2), "")
    for g, line in pf:
        lf = pb(line) if g == 3 else []
        if not any(w in (2, 11) and v.decode().startswith("Stream #") for w, v in lf):
            continue
        for w, e in lf:
            if w == 4:
                ef = pb(e)
                nm = names.get(next((v for r, v in ef if r == 1), 0), "")
                xn[nm] += 1
                xs[nm] += round(next((v for r, v in ef if r == 3), 0) / 1000)
dbx = opened("examples/gpu_host.xplane.pb")
got = {n: (c, t) for n, c, t in dbx.execute("SELECT name, count, sum_ns FROM gpu_kernel_breakdown")}
check(got == {n: (xn[n], xs[n]) for n in xn} and sum(xn.values()) == 384,
      "XSpace: the device planes' stream-line kernels per name = the wire's", (len(got), sum(xn.values())))
check(q(dbx, "SELECT class FROM gpu_kernels WHERE name LIKE 'all-reduce%' GROUP BY class") == [("communication",)],
      "XSpace: XLA's all-reduce is communication")

# ---------------------------------------------------------------- profile_report of a training capture
import tempfile
out = tempfile.mkdtemp(prefix="profsql-training-report-")
db = connect()
db.execute("SELECT profile_report('examples/training', ?, '{\"write_archive\": false}')", (out,)).fetchone()
md = open(os.path.join(out, "profiler_report_latest.md"), encoding="utf-8").read()
heads = [l[3:] for l in md.splitlines() if l.startswith("## ")]
check(heads[:2] == ["Quick answer — кто жрёт время", "GPU time per rank"], "report: leads with the GPU answers", heads[:4])
qa = md.split("## Quick answer — кто жрёт время\n\n", 1)[1].split("\n", 1)[0]
# by hand: idle 50/430 and 120/400 -> mean 20.8 %; overlap (200 x 35 + 100 x 70) / 300 = 46.7 %; step 2 of rank 1 1.30x
check("2 ranks; idle 20.8 %" in qa and "rank `1`, 30.0 %" in qa and "46.7 % of the communication overlapped" in qa
      and "step 2 on rank `1`, 1.300 ms, 1.30× the median over the ranks: a straggler" in qa, "report: the quick answer by hand", qa)
rows = [l for l in md.split("## GPU time per rank", 1)[1].split("\n\n", 2)[1].splitlines()[2:]]
check(rows == ["| 0 | 4 | 0.430 | 11.6 | 46.5 | 41.9 | 35.0 | 1.000 | 0 |", "| 1 | 3 | 0.400 | 30.0 | 62.5 | 7.5 | 70.0 | 1.300 | 1 |"],
      "report: GPU time per rank by hand", rows)
thr = md.split("## Threads by self time", 1)[1].split("\n\n", 2)[1]
check("GPU 0" not in thr and "| python | tid 100 |" in thr, "report: the CPU threads apart from the GPU streams", thr)
b200 = os.path.join(CORPUS, "tracelens-pytorch-b200-eager_trace.json.gz")
if os.path.exists(b200):
    out = tempfile.mkdtemp(prefix="profsql-training-report-")
    db.execute("SELECT profile_report(?, ?, '{\"write_archive\": false}')", (b200, out)).fetchone()
    md = open(os.path.join(out, "profiler_report_latest.md"), encoding="utf-8").read()
    check("- ranked: per rank: GPU time" in md and "0.0 % of the communication overlapped" in md
          and "| communication | ncclDevKernel_AllGather_RING_LL" in md,
          "report of a real B200 trace: the training model; its renamed NCCL kernel is communication")

# ---------------------------------------------------------------- real Kineto traces vs Python's json
def ns(x):
    return int(decimal.Decimal(str(x)) * 1000)


def union(iv):
    iv = sorted(iv)
    tot, end = 0, None
    for a, b in iv:
        if end is None or a > end:
            tot += b - a
            end = b
        elif b > end:
            tot += b - end
            end = b
    return tot


def klass(name):
    if re.search("nccl|rccl|hccl", name, re.I) or re.match("(all-reduce|all-gather|reduce-scatter|collective-permute|all-to-all)", name, re.I):
        return "communication"
    if re.match("(memcpy|memset|hipmemcpy|hipmemset|dma)", name, re.I):
        return "memory"
    return "computation"


files = [os.path.join(CORPUS, f) for f in ("tracelens-pytorch-h100-bert-small.json.gz", "tracelens-pytorch-b200-eager_trace.json.gz",
                                            "tracelens-pytorch-mi210-gpu_only_trace.json.gz",
                                            "tracelens-pytorch-torch_compile_triton-trace.json.gz")]
if not os.path.exists(files[0]):
    skip_part("real Kineto traces: ../shared/corpus absent")
for f in files:
    if not os.path.exists(f):
        continue
    name = os.path.basename(f)
    ev = json.loads(gzip.open(f).read(), parse_float=decimal.Decimal)["traceEvents"]
    ks = [e for e in ev if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset") and "dur" in e]
    kv = [(ns(e["ts"]), ns(e["ts"]) + ns(e["dur"]), klass(e["name"]), e["name"], e.get("args", {})) for e in ks]
    db = opened(f)
    # breakdown: count and summed ns per (class, name)
    want = collections.Counter()
    cnt = collections.Counter()
    for a, b, c, n, _ in kv:
        want[(c, n)] += b - a
        cnt[(c, n)] += 1
    got = {(c, n): (k, s) for c, n, k, s in db.execute("SELECT class, name, count, sum_ns FROM gpu_kernel_breakdown")}
    check(got == {k: (cnt[k], v) for k, v in want.items()}, f"{name}: kernel breakdown = Python's", len(got))
    # temporal breakdown
    if kv:
        span = max(b for a, b, *_ in kv) - min(a for a, *_ in kv)
        u = union([(a, b) for a, b, *_ in kv])
        uc = union([(a, b) for a, b, c, *_ in kv if c == "computation"])
        row = q(db, "SELECT kernel_ns, idle_ns, compute_ns, non_compute_ns FROM gpu_temporal_breakdown")
        check(row == [(span, span - u, uc, u - uc)], f"{name}: temporal breakdown = Python's unions", (row, span, u, uc))
    # launches joined by correlation (runtime/driver calls with a duration)
    launch = {}
    for e in ev:
        if e.get("ph") == "X" and e.get("cat") in ("cuda_runtime", "cuda_driver") and "dur" in e and "correlation" in e.get("args", {}):
            launch.setdefault(e["args"]["correlation"], []).append(ns(e["ts"]) + ns(e["dur"]))
    delays = sorted(a - le for a, b, c, n, args in kv if "correlation" in args for le in launch.get(args["correlation"], []))
    got = sorted(r[0] for r in db.execute("SELECT launch_delay FROM kernel_launch_stats"))
    check(got == delays and len(got) > 0, f"{name}: launch delays = Python's join by correlation", (len(got), len(delays)))
    # idle gaps per stream, split at the next kernel's launch end
    idle = collections.Counter()
    host = collections.Counter()
    bystream = collections.defaultdict(list)
    for a, b, c, n, args in kv:
        le = launch.get(args.get("correlation"), [None])[0] if "correlation" in args else None
        bystream[args.get("stream")].append((a, b, le))
    for s, lst in bystream.items():
        lst.sort(key=lambda t: (t[0], t[1]))
        end = None
        for a, b, le in lst:
            if end is not None and a > end:
                idle[s] += a - end
                host[s] += max(0, min(a, le if le is not None else end) - end)
            end = b if end is None else max(end, b)
    got = {s: (i, h) for s, i, h in db.execute("SELECT stream, idle_ns, host_wait_ns FROM gpu_idle_breakdown")}
    check(got == {s: (idle[s], host[s]) for s in idle}, f"{name}: idle per stream and host wait = Python's", (got, dict(idle)))
done()
