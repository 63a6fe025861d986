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
check(q(db, "SELECT count(*), sum(e.name = k.launch_name AND e.ts = k.launch_ts) FROM gpu_kernels k "
            "JOIN events e ON e.file = k.file AND e.id = k.launch_id") == [(7, 7)],
      "gpu_kernels.launch_id is the launch call's id in profile_events")
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


# ---------------------------------------------------------------- profile_training_rows and profile_span_union by hand
import random
import struct
tmp = tempfile.mkdtemp(prefix="profsql-training-rows-")


def write_json(path, events, extra=None):
    doc = dict(extra or {})
    doc["traceEvents"] = events
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def X(name, cat, ts, dur, pid=1, tid=1, **args):
    e = {"ph": "X", "name": name, "cat": cat, "ts": ts, "dur": dur, "pid": pid, "tid": tid}
    if args:
        e["args"] = {k.replace("_", " ") if k == "External_id" else k: v for k, v in args.items()}
    return e


# launches: correlation 7 launched twice (at 5 and 20 us); a kernel joins the latest launch starting at
# or before it, else the first of the id; correlation 9 has no launch. Steps #1 [0,100), #2 [100,200),
# #3 [150,160) inside #2: a kernel at 155 is in #3 (the latest-starting step that holds it), at 170 in #2
# (#3 ended), at 250 in none; last_step 3
trace = write_json(os.path.join(tmp, "rows.json"), [
    X("ProfilerStep#1", "user_annotation", 0, 100), X("ProfilerStep#2", "user_annotation", 100, 100),
    X("ProfilerStep#3", "user_annotation", 150, 10),
    X("cudaLaunchKernel", "cuda_runtime", 5, 2, correlation=7), X("cudaLaunchKernel", "cuda_runtime", 20, 3, correlation=7),
    X("k_a", "kernel", 10, 4, pid=0, tid=7, stream=7, correlation=7, External_id=70),
    X("k_b", "kernel", 30, 4, pid=0, tid=7, stream=7, correlation=7),
    X("k_c", "kernel", 2, 1, pid=0, tid=8, stream=8, correlation=7),
    X("ncclDevKernel_x", "kernel", 155, 4, pid=0, tid=9, stream=9, correlation=9),
    X("Memcpy HtoD", "gpu_memcpy", 170, 4, pid=0, tid=9, stream=9),
    X("k_a", "kernel", 250, 4, pid=0, tid=7, stream=7),
    X("aten::mm", "cpu_op", 0, 50)], {"distributedInfo": {"rank": 3, "world_size": 4}})
db = connect()
got = q(db, "SELECT rank, kind, name, ts, stream, correlation, external_id, launch_ts, launch_dur, step, last_step "
            "FROM profile_training_rows(?) ORDER BY kind, ts".replace("?", "'%s'" % trace))
check(got == [(3, "kernel", "k_c", 2000, 8, 7, None, 5000, 2000, 1, 3),
              (3, "kernel", "k_a", 10000, 7, 7, 70, 5000, 2000, 1, 3),
              (3, "kernel", "k_b", 30000, 7, 7, None, 20000, 3000, 1, 3),
              (3, "kernel", "ncclDevKernel_x", 155000, 9, 9, None, None, None, 3, 3),
              (3, "kernel", "Memcpy HtoD", 170000, 9, None, None, None, None, 2, 3),
              (3, "kernel", "k_a", 250000, 7, None, None, None, None, None, 3),
              (3, "step", "ProfilerStep#1", 0, None, None, None, None, None, 1, 3),
              (3, "step", "ProfilerStep#2", 100000, None, None, None, None, None, 2, 3),
              (3, "step", "ProfilerStep#3", 150000, None, None, None, None, None, 3, 3)],
      "profile_training_rows: launches joined (latest at or before, else the first), steps, rank, by hand", got)
src = "'%s'" % trace
check(q(db, "SELECT count(*) FROM profile_training_rows(%s) WHERE kind = 'step'" % src) == [(3,)]
      and q(db, "SELECT count(*) FROM profile_training_rows(%s) WHERE kind = 'kernel'" % src) == [(6,)]
      and q(db, "SELECT count(*) FROM profile_training_rows(%s) WHERE kind = 'launch'" % src) == [(0,)],
      "profile_training_rows: the kind constraint")
classes = '[["%%nccl%%", "communication"], ["memcpy%%", "memory"], ["k_%%", "mine"]]'
check(q(db, "SELECT name, class FROM profile_training_rows(%s, NULL, '%s') WHERE kind = 'kernel' GROUP BY name ORDER BY name" % (src, classes))
      == [("Memcpy HtoD", "memory"), ("k_a", "mine"), ("k_b", "mine"), ("k_c", "mine"), ("ncclDevKernel_x", "communication")],
      "profile_training_rows: classes by LIKE (case-insensitive), first match")
check(q(db, "SELECT count(*) FROM profile_training_rows(%s) WHERE class IS NOT NULL" % src) == [(0,)],
      "profile_training_rows: no classes argument, no class")
for bad in ("'{}'", "'[[\"a\"]]'", "'[[\"a\", 1]]'", "'[[\"a\", \"b\", \"c\"]]'", "'[\"a\"]'"):
    try:
        db.execute("SELECT * FROM profile_training_rows(%s, NULL, %s)" % (src, bad)).fetchall()
        check(False, "classes %s refused" % bad)
    except Exception as e:
        check(str(e).startswith("profile_training_rows: classes must be a JSON array of [pattern, class] pairs of strings"),
              "classes %s refused with the shape" % bad, str(e))

# profile_span_union against the Python union, on random intervals; FILTER with no row gives 0
rnd = random.Random(37)
iv = [(rnd.randrange(0, 10000), rnd.randrange(-5, 300)) for _ in range(3000)]
db.execute("CREATE TEMP TABLE iv(g, ts, dur)")
db.executemany("INSERT INTO iv VALUES (?, ?, ?)", [(i % 3, a, d) for i, (a, d) in enumerate(iv)])
want = [(g, union([(a, a + d) for i, (a, d) in enumerate(iv) if i % 3 == g and d > 0])) for g in range(3)]
check(q(db, "SELECT g, profile_span_union(ts, dur) FROM iv GROUP BY g ORDER BY g") == want, "profile_span_union = Python's union", want)
check(q(db, "SELECT profile_span_union(ts, dur) FILTER (WHERE g = 9), profile_span_union(ts, NULL) FROM iv") == [(0, 0)],
      "profile_span_union: no interval gives 0")
check(q(db, "SELECT profile_span_union(0, 10) FROM (VALUES (1), (2))") == [(10,)]
      and q(db, "SELECT profile_span_union(column1, column2) FROM (VALUES (0, 10), (5, 10), (20, 5))") == [(20,)],
      "profile_span_union by hand: [0,10) [5,15) [20,25) cover 20")
try:
    db.execute("SELECT profile_span_union(1.5, 2)").fetchall()
    check(False, "profile_span_union of a REAL refused")
except Exception as e:
    check(str(e) == "profile_span_union: ts and dur must be integers", "profile_span_union: a REAL refused", str(e))

# GROUP BY file is served a file at a time: no sort in the plan, the same figures as a sorted copy
g = "examples/training/*.json"
plan = " ".join(r[3] for r in db.execute("EXPLAIN QUERY PLAN SELECT file, rank, profile_span_union(ts, dur) FROM profile_training_rows('%s') GROUP BY file, rank" % g))
check("TEMP B-TREE" not in plan, "GROUP BY file: no sort", plan)
plan = " ".join(r[3] for r in db.execute("EXPLAIN QUERY PLAN SELECT file, name, count(*) FROM profile_training_rows('%s') GROUP BY file, name" % g))
check("TEMP B-TREE" not in plan, "GROUP BY file, name: no sort", plan)
# rows grouped by name are not grouped by class: GROUP BY file, class is sorted (one row per class)
got = q(db, "SELECT class, count(*) FROM profile_training_rows('examples/gpu_host.xplane.pb', NULL, "
            "'[[\"all-reduce%\", \"communication\"]]') WHERE kind = 'kernel' GROUP BY file, class ORDER BY 1")
check(got == [(None, 336), ("communication", 48)], "GROUP BY file, class: one row per class", got)
db.execute("CREATE TEMP TABLE tr AS SELECT * FROM profile_training_rows('%s')" % g)
for sel in ("file, rank, count(*), sum(dur), profile_span_union(ts, dur)", "file, name, count(*), sum(dur), max(dur)"):
    grp = sel.split(", ")[0] + ", " + sel.split(", ")[1]
    a = sorted(q(db, "SELECT %s FROM profile_training_rows('%s') GROUP BY %s" % (sel, g, grp)))
    b = sorted(q(db, "SELECT %s FROM tr GROUP BY %s" % (sel, grp)))
    check(a == b and len(a) > 1, "GROUP BY %s served unsorted = over a sorted copy" % grp, (a, b))


# ---------------------------------------------------------------- an XSpace "Steps" line (xprof's step events)
from testlib import pb_field as fld


def xplane(pid, name, lines, names):
    meta = b"".join(fld(4, fld(1, k) + fld(2, fld(1, k) + fld(2, n))) for k, n in names.items())
    body = fld(1, pid) + fld(2, name)
    for lid, lname, ts_ns, events in lines:
        body += fld(3, fld(1, lid) + fld(2, lname) + fld(3, ts_ns)
                    + b"".join(fld(4, fld(1, m) + fld(2, off_ps) + fld(3, dur_ps)) for m, off_ps, dur_ps in events))
    return fld(1, body + meta)


# device plane: a Steps line with steps 5 [0,100) and 6 [100,250) us, a stream line with kernels at 10 and 120 us
xsp = xplane(1, "/device:GPU:0", [(1, "Steps", 1000, [(1, 0, 100 * 10**6), (2, 100 * 10**6, 150 * 10**6)]),
                                  (7, "Stream #7(Kernel)", 1000, [(3, 10 * 10**6, 5 * 10**6), (3, 120 * 10**6, 5 * 10**6)])],
             {1: "5", 2: "6", 3: "fusion.1"})
xpath = os.path.join(tmp, "host.xplane.pb")
open(xpath, "wb").write(xsp)
got = q(db, "SELECT kind, name, step, last_step, stream FROM profile_training_rows('%s') ORDER BY kind, ts" % xpath)
check(got == [("kernel", "fusion.1", 5, 6, 7), ("kernel", "fusion.1", 6, 6, 7), ("step", "5", 5, 6, None), ("step", "6", 6, 6, None)],
      "XSpace: the Steps line's events are steps, numbered by their names; kernels get their step", got)
dbs = opened(xpath)
check(q(dbs, "SELECT step, dur FROM training_steps ORDER BY step") == [(5, 100 * us), (6, 150 * us)], "XSpace: training_steps from the Steps line")
# review mends: Kineto's gpu_user_annotation copy of a step is no step; kind = ? with a collation or
# another type as SQLite compares it; classes with text after the array refused; a row without a
# time is no row (not ts -2^63); two files of one rank stay two rows in the report
gua = write_json(os.path.join(tmp, "gua.json"), [
    X("ProfilerStep#4", "user_annotation", 0, 100), X("ProfilerStep#4", "gpu_user_annotation", 5, 90, pid=0, tid=7),
    X("k", "kernel", 10, 4, pid=0, tid=7, stream=7)])
check(q(db, "SELECT name, cat, step FROM profile_training_rows('%s') WHERE kind = 'step'" % gua) == [("ProfilerStep#4", "user_annotation", 4)],
      "a gpu_user_annotation ProfilerStep is no step")
check(q(db, "SELECT count(*) FROM profile_training_rows(%s) WHERE kind = 'KERNEL' COLLATE NOCASE" % src) == [(6,)]
      and q(db, "SELECT count(*) FROM profile_training_rows(%s) WHERE kind = CAST('kernel' AS BLOB)" % src) == [(0,)],
      "kind = ? as SQLite compares it (NOCASE: 6 kernels; a BLOB: none)")
try:
    db.execute("SELECT * FROM profile_training_rows(%s, NULL, '[[\"%%\", \"x\"]] junk')" % src).fetchall()
    check(False, "classes with text after the array refused")
except Exception as e:
    check(str(e).startswith("profile_training_rows: classes must be a JSON array"), "classes with text after the array refused", str(e))
ip = "tests/data/xprof/input_pipeline.pb"
if os.path.exists(ip):
    check(q(db, "SELECT count(*) FROM profile_training_rows('%s') WHERE ts IS NULL OR ts < 0" % ip) == [(0,)],
          "rows without a time are no rows (no ts of -2^63)")
same = os.path.join(tmp, "same_rank")
os.makedirs(same, exist_ok=True)
for k in range(2):
    write_json(os.path.join(same, "w%d.json" % k), [X("ProfilerStep#1", "user_annotation", 0, 100),
                                                     X("sgemm", "kernel", 10, 40 + k, pid=0, tid=7, stream=7)],
               {"distributedInfo": {"rank": 0, "world_size": 1}})
outr = tempfile.mkdtemp(prefix="profsql-training-report-")
db.execute("SELECT profile_report(?, ?, '{\"write_archive\": false}')", (same, outr)).fetchone()
mdr = open(os.path.join(outr, "profiler_report_latest.md"), encoding="utf-8").read()
rows_r = [l for l in mdr.split("## GPU time per rank", 1)[1].split("\n\n", 2)[1].splitlines()[2:]]
check(len(rows_r) == 2 and "2 ranks;" in mdr, "two files of rank 0: two rows, not four", rows_r)
done()
