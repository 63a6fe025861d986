"""profile_flamegraph and profile_flamegraph_folded: the SVG's frames against sums computed here from
the relational rows (profile_events / profile_records: self = dur minus the children's dur), from
Python's json over the input file (jobs) and by hand (folded rows); every option (filters by thread,
plane, time range and name pattern; the dur / self / samples weights) and every error; rendered in
headless Chromium (Debian's chromium) where a script measures the widest first-level frame with
getBBox. The interactions (zoom, search, hover) are tests/py/test_flame_browser.py's."""
import json
import os
import re
import shutil
import sqlite3
import subprocess
import tempfile
import xml.etree.ElementTree as ET
from collections import defaultdict

from testlib import check, connect, done, skip_part

db = connect()
tmp = tempfile.mkdtemp(prefix="profsql-flame-")
NS = "{http://www.w3.org/2000/svg}"


def frames(path):
    """(title name, ms (or samples, calls ...), y, width) of every frame."""
    out = []
    for g in ET.parse(path).getroot().iter(NS + "g"):
        if g.get("class") != "f":
            continue                    # the Reset Zoom and Search controls
        t = g.find(NS + "title").text
        r = g.find(NS + "rect")
        name, rest = t.rsplit(" — ", 1)
        out.append((name, float(rest.split(" ")[0]), float(r.get("y")), float(r.get("width"))))
    return out


def widest_at(fr, y):
    level = [f for f in fr if abs(f[2] - y) < 0.5]
    return max(level, key=lambda f: f[3])


trace = "examples/browser_trace.json"
rows_all = db.execute("SELECT id, parent_id, name, dur, process_name, thread_name, track FROM profile_events(?) "
                      "WHERE dur IS NOT NULL AND ph IN ('X','B','b')", (trace,)).fetchall()
track_name = {int(k): v for k, v in db.execute("SELECT key, value FROM profile_metadata(?) WHERE scope = 'track'", (trace,))}
# async tracks ("async cat=loading id=0x1") are left out unless {"async": true}
async_tracks = {t for t, v in track_name.items() if v.startswith("async ")}
check(len(async_tracks) == 11, "the browser trace has 11 async tracks", len(async_tracks))
rows = [r for r in rows_all if r[6] not in async_tracks]
child = defaultdict(int)
kids = defaultdict(list)
for i, p, n, d, pn, tn, tr in rows:
    if p is not None:
        child[p] += d
        kids[p].append(i)
selfns = {i: max(d - child[i], 0) for i, p, n, d, pn, tn, tr in rows}
total = sum(selfns.values())
total_all = sum(max(d - c, 0) for (i, d, c) in ((r[0], r[3], sum(q[3] for q in rows_all if q[1] == r[0])) for r in rows_all))   # async tracks too
by = {i: (p, n, pn, tn) for i, p, n, d, pn, tn, tr in rows}
per_track = defaultdict(int)             # "process / thread"
for i, p, n, d, pn, tn, tr in rows:
    per_track[f"{pn} / {tn}"] += selfns[i]


def subtree(i):
    return selfns[i] + sum(subtree(k) for k in kids[i])


per_thread = defaultdict(int)
for i, (p, n, pn, tn) in by.items():
    per_thread[f"{pn} / {tn}"] += selfns[i]
roots = defaultdict(int)
for i, (p, n, pn, tn) in by.items():
    if p is None or p not in by:
        roots[n] += subtree(i)

res = db.execute("SELECT profile_flamegraph(?, ?)", (trace, os.path.join(tmp, "t.svg"))).fetchone()[0]
check(f'"total_ms":{total / 1e6:.3f}' in res, f"total = the summed self time {total / 1e6:.3f} ms: {res}")
fr = frames(os.path.join(tmp, "t.svg"))
top = widest_at(fr, 51)
want_track = max(per_track, key=per_track.get)
check(top[0] == want_track and abs(top[1] - per_track[want_track] / 1e6) < 0.0015,
      f"default, per track: widest first-level frame {top[:2]} == {want_track} {per_track[want_track] / 1e6:.3f}")
level1 = sorted((f[0], round(f[1], 3)) for f in fr if abs(f[2] - 51) < 0.5)
check(level1 == sorted((k, round(v / 1e6, 3)) for k, v in per_track.items()),
      f"one first-level frame per track with a slice, each its self time: {set(level1) ^ set((k, round(v / 1e6, 3)) for k, v in per_track.items())}")
db.execute("SELECT profile_flamegraph(?, ?, '{\"group\": \"thread\"}')", (trace, os.path.join(tmp, "th.svg"))).fetchone()
top = widest_at(frames(os.path.join(tmp, "th.svg")), 51)
want_thread = max(per_thread, key=per_thread.get)
check(top[0] == want_thread and abs(top[1] - per_thread[want_thread] / 1e6) < 0.0015,
      f"per thread: widest thread frame {top[:2]} == {want_thread} {per_thread[want_thread] / 1e6:.3f}")
db.execute("SELECT profile_flamegraph(?, ?, '{\"group\": \"none\", \"title\": \"merged\"}')", (trace, os.path.join(tmp, "m.svg"))).fetchone()
fm = frames(os.path.join(tmp, "m.svg"))
top = widest_at(fm, 51)
want_root = max(roots, key=roots.get)
check(top[0] == want_root and abs(top[1] - roots[want_root] / 1e6) < 0.0015,
      f"merged: widest root frame {top[:2]} == {want_root} {roots[want_root] / 1e6:.3f}")
check(sum(f[1] for f in fm if abs(f[2] - 51) < 0.5) - total / 1e6 < 0.01, "root frames add up to the total")
svg = open(os.path.join(tmp, "m.svg")).read()
check("http" not in svg.replace("http://www.w3.org/2000/svg", "") and not re.search(r"href|src=|url\(|@import", svg),
      "self-contained: no link, no external reference")
check(svg.count("<script") == 1 and "Reset Zoom" in svg and ">Search<" in svg, "interactive: a script, Reset Zoom and Search")
check(">merged — " in svg, "the title option")

# a timings report: records by ParentRecordId, self_ns
rec = db.execute("SELECT record_id, parent_record_id, name, self_ns, time_ns FROM profile_records('examples/server_timings.txt')").fetchall()
ids = {r[0] for r in rec}
rkids = defaultdict(list)
for r in rec:
    if r[1] is not None and r[1] in ids:
        rkids[r[1]].append(r)
rselfs = {r[0]: (r[3] if r[3] is not None else r[4]) for r in rec}


def rsub(i):
    return max(rselfs[i], 0) + sum(rsub(k[0]) for k in rkids[i])


rroots = defaultdict(int)
for r in rec:
    if r[1] is None or r[1] not in ids:
        rroots[r[2]] += rsub(r[0])
db.execute("SELECT profile_flamegraph('examples/server_timings.txt', ?, '{\"group\":\"none\"}')", (os.path.join(tmp, "r.svg"),)).fetchone()
top = widest_at(frames(os.path.join(tmp, "r.svg")), 51)
want = max(rroots, key=rroots.get)
check(top[0] == want, f"timings: widest root record {top[0]!r} == {want!r}")

# ParentRecordId cycles end (the cycle's first row starts its stack)
db.execute("SELECT profile_flamegraph('tests/data/timings_edge.txt', ?, '{\"group\":\"none\"}')", (os.path.join(tmp, "c.svg"),)).fetchone()
names = {f[0] for f in frames(os.path.join(tmp, "c.svg"))}
check({"Cycle A", "Cycle B", "Under cycle", "Orphan"} <= names, f"records in a parent cycle are drawn: {sorted(names)[:5]}")

# a thread without names, with string ids: its frame names the ids as written
db.execute("SELECT profile_flamegraph(?, ?)", (b'[{"ph":"X","ts":1,"dur":5,"pid":"p1","tid":"t1","name":"a"}]',
                                                 os.path.join(tmp, "s.svg"))).fetchone()
check("pid 'p1' / tid 't1'" in {f[0] for f in frames(os.path.join(tmp, "s.svg"))},
      f"string pid/tid label: {sorted({f[0] for f in frames(os.path.join(tmp, 's.svg'))})}")

for sql, args, msg in [
    ("SELECT profile_flamegraph(?, ?)", (b'{"traceEvents": []}', os.path.join(tmp, "x.svg")),
     "profile_flamegraph: the capture has no parent tree (no slices, timer records or jobs)"),
    ("SELECT profile_flamegraph(?, ?, 'bad')", (trace, os.path.join(tmp, "x.svg")),
     "profile_flamegraph: options_json must be a JSON object, e.g. {\"group\": \"track\", \"weight\": \"self\"}"),
]:
    try:
        db.execute(sql, args).fetchone()
        check(False, f"{msg} expected")
    except sqlite3.OperationalError as e:
        check(str(e) == msg, f"error {e}")

# durations near 2^63 ns: two roots 'a' of 9e18 ns merge into one frame, whose width saturates
# at 2^63 - 1 ns (about 9223372036854.776 ms; the %.3f of a double) instead of wrapping round
db.execute("SELECT profile_flamegraph(?, ?, '{\"group\":\"none\"}')", (
    b'[{"ph":"X","name":"a","ts":0,"dur":9000000000000000,"pid":1,"tid":1},'
    b'{"ph":"X","name":"a","ts":9000000000000000,"dur":9000000000000000,"pid":1,"tid":1}]',
    os.path.join(tmp, "big.svg"))).fetchone()
big = frames(os.path.join(tmp, "big.svg"))
check([f[0] for f in big] == ["all", "a"] and all(abs(f[1] - (2**63 - 1) / 1e6) < 0.01 and f[3] == 1200.0 for f in big),
      f"saturated frame: {big}")

# rendered in headless Chromium: the widest first-level frame, measured by the browser
chromium = shutil.which("chromium") or shutil.which("chromium-browser")
if chromium:
    body = open(os.path.join(tmp, "t.svg")).read().split("\n", 1)[1]
    page = os.path.join(tmp, "page.html")
    open(page, "w").write("<!DOCTYPE html><html><head><title>pending</title></head><body>" + body + """<script>
let best = null, bw = -1;
for (const g of document.querySelectorAll('g')) {
  const r = g.querySelector('rect');
  if (Math.abs(parseFloat(r.getAttribute('y')) - 51) > 0.5) continue;
  const w = r.getBBox().width;
  if (w > bw) { bw = w; best = g.querySelector('title').textContent.split(' \u2014 ')[0]; }
}
document.title = 'widest:' + best;
</script></body></html>""")
    r = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", "file://" + page],
                       capture_output=True, text=True, timeout=120)
    m = re.search(r"<title>widest:([^<]*)</title>", r.stdout)
    check(m is not None and m.group(1) == want_track, f"chromium renders it: {m.group(1) if m else r.stderr[-200:]!r}")
else:
    skip_part("chromium check: chromium is not installed (Debian package chromium)")
# a capture with stack samples is drawn from them: the total is their summed dur (perf's
# cpu-clock periods), computed here from the rows, and the widest stack root is the comm
svg = os.path.join(tempfile.mkdtemp(), "busy.svg")
res = json.loads(db.execute("SELECT profile_flamegraph('examples/busy.perf.txt', ?, '{\"group\": \"none\"}')", (svg,)).fetchone()[0])
want = db.execute("SELECT sum(dur) FROM profile_events('examples/busy.perf.txt') WHERE stack_id IS NOT NULL").fetchone()[0]
check(abs(res.get("total_ms", 0) - want / 1e6) < 0.0006, "perf samples: the flame total is the samples' summed dur", (res, want))
check("<title>busy — " in open(svg, encoding="utf-8").read(), "perf samples: the comm is the root frame")


# ------------------------------------------------------------------ options
def flame(src, opts=None, name="o.svg"):
    """The result JSON of profile_flamegraph(src, <tmp>/name, opts) and the SVG's frames."""
    path = os.path.join(tmp, name)
    r = db.execute("SELECT profile_flamegraph(?, ?, ?)", (src, path, json.dumps(opts) if opts is not None else None)).fetchone()[0]
    return json.loads(r), frames(path)


def stack_of(i):
    out = []
    while i is not None and i in by:
        out.append(by[i][1])
        i = by[i][0]
    return out[::-1]


def sel(pred):
    """The summed self time of the slices whose row satisfies pred(id)."""
    return sum(selfns[i] for i in selfns if pred(i))


# the default result names its weight and (no) filters, and counts the slices drawn
res, _ = flame(trace)
check(res["weight"] == "dur" and res["filters"] == {} and res["rows"] == len(rows), "default: weight, filters, rows", res)

# "name": only the stacks with a frame matching the pattern (POSIX ERE; Python's re agrees on it)
res, _ = flame(trace, {"name": "^(Layout|Paint)"})
want = sel(lambda i: any(re.search("^(Layout|Paint)", n) for n in stack_of(i)))
check(abs(res["total_ms"] - want / 1e6) < 0.0006 and res["filters"] == {"name": "^(Layout|Paint)"},
      "name filter: total = the self time of the stacks with a match", (res, want))
res, fr = flame(trace, {"exclude": "Layout", "group": "none"})
want = sel(lambda i: not any("Layout" in n for n in stack_of(i)))
check(abs(res["total_ms"] - want / 1e6) < 0.0006 and not any("Layout" in f[0] for f in fr),
      "exclude: the stacks through a matching frame are gone", (res["total_ms"], want))

# a thread: its self time alone
pids = dict(db.execute("SELECT id, pid FROM profile_events(?)", (trace,)).fetchall())
tid0, tn0, by_pid = db.execute("SELECT tid, thread_name, pid FROM profile_events(?) WHERE dur IS NOT NULL GROUP BY tid ORDER BY sum(dur) DESC",
                       (trace,)).fetchone()
tids = dict(db.execute("SELECT id, tid FROM profile_events(?)", (trace,)).fetchall())
for opts in ({"tid": tid0}, {"thread": tn0}, {"thread": tid0}, {"thread": tn0, "pid": by_pid}):
    key, val = next(iter(opts.items()))
    want = sum(selfns[i] for (i, p, n, d, pn, tn, tr) in rows
               if (tids[i] == val if isinstance(val, int) else tn == val) and ("pid" not in opts or pids[i] == by_pid))
    res, _ = flame(trace, opts)
    check(abs(res["total_ms"] - want / 1e6) < 0.0006 and res["filters"] == opts, f"thread filter {opts}", (res, want))

# a time range: each slice clipped to [ts_from, ts_to), self = clipped dur - the children's clipped dur
ev = [r[:4] for r in db.execute("SELECT id, parent_id, ts, dur, track FROM profile_events(?) WHERE dur IS NOT NULL AND ph IN ('X','B','b')",
                                (trace,)).fetchall() if r[4] not in async_tracks]
t0 = min(r[2] for r in ev)
t1 = max(r[2] + r[3] for r in ev)
a, b = t0 + (t1 - t0) // 3, t0 + (t1 - t0) // 2
clip = {i: max(0, min(ts + d, b) - max(ts, a)) for i, p, ts, d in ev if ts < b and ts + d > a}
csum = defaultdict(int)
for i, p, ts, d in ev:
    if i in clip and p in clip:
        csum[p] += clip[i]
want = sum(max(c - csum[i], 0) for i, c in clip.items())
res, _ = flame(trace, {"ts_from": a, "ts_to": b})
check(abs(res["total_ms"] - want / 1e6) < 0.0006 and res["rows"] == len(clip),
      "time range: rows overlapping it, clipped", (res, want / 1e6, len(clip)))

# weight "samples": one per slice; "self": reversed, the first level is each name's self time
res, _ = flame(trace, {"weight": "samples", "name": "Layout"})
want = sum(1 for i in selfns if any("Layout" in n for n in stack_of(i)))
check(res.get("total_calls") == want and res["weight"] == "samples", "weight samples: slices counted", (res, want))
res, fr = flame(trace, {"weight": "self", "group": "none"})
per_name = defaultdict(int)
for i in selfns:
    per_name[by[i][1]] += selfns[i]
lvl1 = {f[0]: f[1] for f in fr if abs(f[2] - 51) < 0.5}
check(abs(res["total_ms"] - total / 1e6) < 0.0006 and lvl1 and
      all(abs(ms - per_name[n] / 1e6) < 0.0006 for n, ms in lvl1.items()) and
      set(lvl1) == {n for n, v in per_name.items() if v / total * 1200 >= 0.1},
      "weight self: first level = each name's summed self time", len(lvl1))

# XSpace: a plane by name or index; the GPU streams alone
xs = "examples/gpu_host.xplane.pb"
xrows = db.execute("SELECT id, parent_id, dur, pid, process_name FROM profile_events(?) WHERE dur IS NOT NULL", (xs,)).fetchall()
xchild = defaultdict(int)
for i, p, d, pid, pn in xrows:
    if p is not None:
        xchild[p] += d
for opts, keep in (({"plane": "/device:GPU:0"}, lambda pid, pn: pn == "/device:GPU:0"), ({"plane": 2}, lambda pid, pn: pid == 2)):
    want = sum(max(d - xchild[i], 0) for i, p, d, pid, pn in xrows if keep(pid, pn))
    res, fr = flame(xs, opts)
    check(want > 0 and abs(res["total_ms"] - want / 1e6) < 0.0006, f"xspace {opts}: the plane's time", (res, want))
    check(all(f[0].startswith(("/device:GPU:0 /" if "GPU" in str(opts) else "/device:GPU:2 /")) for f in fr if abs(f[2] - 51) < 0.5),
          f"xspace {opts}: only its lines")
jax = "../shared/corpus/xplane/tracelens-jax_te_fused_attn-934987a2fc2f.xplane.pb"
if os.path.exists(jax):
    jr = db.execute("SELECT id, parent_id, dur, name FROM profile_events(?) WHERE dur IS NOT NULL", (jax,)).fetchall()
    jby = {r[0]: r for r in jr}
    jchild = defaultdict(int)
    for i, p, d, n in jr:
        if p in jby:
            jchild[p] += d

    def under_start_trace(i):
        while i is not None and i in jby:
            if "start_trace" in jby[i][3]:
                return True
            i = jby[i][1]
        return False
    want = sum(max(d - jchild[i], 0) for i, p, d, n in jr if not under_start_trace(i))
    res, _ = flame(jax, {"exclude": "start_trace"})
    check(abs(res["total_ms"] - want / 1e6) < 0.0006, "real XSpace without the profiler's start_trace", (res, want))
else:
    skip_part("start_trace exclusion on a real XSpace (../shared/corpus absent)")

# ------------------------------------------------------------------ first-level groups from the track model
def level1(fr):
    return {f[0]: f[1] for f in fr if abs(f[2] - 51) < 0.5}


# a .cpuprofile names no process or thread: its one group is "main"; anonymous functions read
# "(anonymous) <file>:<line>" (the url's last path component, lineNumber + 1), from Python's json
cp = "examples/node_app.cpuprofile"
res, fr = flame(cp)
check(list(level1(fr)) == ["main"] and abs(level1(fr)["main"] - res["total_ms"]) < 0.0006, "cpuprofile: one group, 'main'", level1(fr))
anon = set()
for node in json.load(open(cp))["nodes"]:
    c = node["callFrame"]
    if c["functionName"] == "":
        f = re.split(r"[/\\]", c["url"])[-1] if c["url"] else ""
        anon.add(f"(anonymous) {f}:{c['lineNumber'] + 1}" if f and c["lineNumber"] >= 0 else "(anonymous) " + f if f else "(anonymous)")
names = {f[0] for f in fr}
check(len(anon) >= 5 and anon <= names and "(anonymous) node_app.js:1" in names and "" not in names,
      "cpuprofile: anonymous functions named by file and line", sorted(anon - names))

# perf script ("comm tid time: ..." headers, no pid): the group is the comm
comms = {m.group(1) for m in re.finditer(r"^(\S+)\s+\d+\s+[\d.]+:", open("examples/busy.perf.txt").read(), re.M)}
res, fr = flame("examples/busy.perf.txt")
check(set(level1(fr)) == comms == {"busy"}, "perf script: the group is the comm", (level1(fr), comms))

# ftrace scheduling: one group per CPU ("CPU n", from the lines' [00n] fields), not named after a task
cpus = {f"CPU {int(m.group(1))}" for m in re.finditer(r"\[(\d+)\].*sched_switch", open("examples/ftrace_sched.txt").read())}
res, fr = flame("examples/ftrace_sched.txt")
check(cpus == {"CPU 0", "CPU 1"} and cpus <= set(level1(fr)), "ftrace: CPU tracks are 'CPU n'", (sorted(level1(fr)), cpus))

# two threads of one name in one process: the tid tells them apart
two = json.dumps({"traceEvents": [
    {"ph": "M", "name": "process_name", "pid": 7, "tid": 29268, "args": {"name": "app"}},
    {"ph": "M", "name": "thread_name", "pid": 7, "tid": 29268, "args": {"name": "work"}},
    {"ph": "M", "name": "thread_name", "pid": 7, "tid": 29269, "args": {"name": "work"}},
    {"ph": "M", "name": "thread_name", "pid": 7, "tid": 3, "args": {"name": "io"}},
    {"ph": "X", "name": "a", "pid": 7, "tid": 29268, "ts": 0, "dur": 5},
    {"ph": "X", "name": "b", "pid": 7, "tid": 29269, "ts": 0, "dur": 3},
    {"ph": "X", "name": "c", "pid": 7, "tid": 3, "ts": 0, "dur": 2},
    {"ph": "X", "name": "d", "pid": 8, "tid": 9, "ts": 0, "dur": 1}]}).encode()
res, fr = flame(two)
check(level1(fr) == {"app / work (tid 29268)": 0.005, "app / work (tid 29269)": 0.003, "app / io": 0.002, "pid 8 / tid 9": 0.001},
      "same-named threads: the tid added; unnamed: pid N / tid N", level1(fr))

# a real Node trace (tests/data/flame/README.md): its async tracks (PROMISE, Timeout, ...) are left
# out by default, drawn with {"async": true} as one group per kind; slices of the main thread's
# own track add up, from Python's json, to its group's width (the sum of its top-level slices)
nt = "tests/data/flame/node_trace.json"
tev = json.load(open(nt))["traceEvents"]
tnames = {(e["pid"], e["tid"]): e["args"]["name"] for e in tev if e["ph"] == "M" and e["name"] == "thread_name"}
main = next(k for k, v in tnames.items() if v == "JavaScriptMainThread")
pname = next(e["args"]["name"] for e in tev if e["ph"] == "M" and e["name"] == "process_name")
spans = defaultdict(list)                # (pid, tid) -> [(ts, end)] of the thread's own slices (X, B/E)
open_b = defaultdict(list)
for e in sorted((e for e in tev if e["ph"] in "XBE"), key=lambda e: e["ts"]):
    k = (e["pid"], e["tid"])
    if e["ph"] == "X" and e.get("dur", 0) > 0:
        spans[k].append((e["ts"], e["ts"] + e["dur"]))
    elif e["ph"] == "B":
        open_b[k].append(e["ts"])
    elif e["ph"] == "E" and open_b[k]:
        spans[k].append((open_b[k].pop(), e["ts"]))


def top_level_us(sp):
    tot, end = 0, -1
    for a, b in sorted(sp, key=lambda s: (s[0], -s[1])):
        if a >= end:                     # not inside an earlier top-level slice
            tot += b - a
            end = b
    return tot


main_us = top_level_us(spans[main])
async_ids = {(e.get("cat"), e.get("id")) for e in tev if e["ph"] in "be"}
check(len(async_ids) > 50 and main_us > 0, "the Node trace has many async ids and main-thread slices", (len(async_ids), main_us))
want_label = f"{pname} / JavaScriptMainThread"
res, fr = flame(nt)
check(level1(fr) == {want_label: round(main_us / 1e3, 3)} and abs(res["total_ms"] - main_us / 1e3) < 0.0006,
      "node trace: async left out, the main thread alone, its top-level slices' time", (level1(fr), main_us))
res_a, fr_a = flame(nt, {"async": True})
l1 = level1(fr_a)
check(set(l1) == {want_label, "async (global)"} and l1["async (global)"] > 0
      and abs(res_a["total_ms"] - (main_us / 1e3 + l1["async (global)"])) < 0.002 and res_a["filters"] == {},
      "node trace, async: one group for every async track", l1)
for opts in ({"thread": "JavaScriptMainThread"}, {"thread": str(main[1])}, {"tid": main[1]}):
    res, fr = flame(nt, opts)
    check(set(level1(fr)) == {want_label} and abs(res["total_ms"] - main_us / 1e3) < 0.0006,
          f"node trace, thread filter {opts}: the main thread's own slices", (res, main_us))
res, fr = flame(nt, {"thread": "JavaScriptMainThread", "async": True})
check(abs(res["total_ms"] - res_a["total_ms"]) < 0.0006, "thread filter with async: its async tracks too", res)
# the browser trace's async tracks ('b' without an id2.local: global), drawn: one "async (global)" group, the total of every slice
res, fr = flame(trace, {"async": True})
l1 = level1(fr)
check(abs(res["total_ms"] - total_all / 1e6) < 0.0006 and "async (global)" in l1 and not any("async cat" in k for k in l1),
      "browser trace, async: the slices of every track, one async group", (res, sorted(l1)))
try:
    flame(nt, {"async": 1})
    check(False, "async: 1 is an error")
except sqlite3.OperationalError as e:
    check(str(e) == 'profile_flamegraph: option "async" must be true or false, not integer', "async must be a boolean", str(e))

# no first-level (or any) label reads NULL, over every capture in examples/
nfiles = 0
for fn in sorted(os.listdir("examples")):
    path = os.path.join("examples", fn)
    if not os.path.isfile(path):
        continue
    for opts in (None, {"async": True}, {"group": "thread", "async": True}):
        try:
            res, fr = flame(path, opts)
        except sqlite3.OperationalError:
            break                        # not a capture (a script, SQL)
        nfiles += opts is None
        bad = [f[0] for f in fr if "NULL" in f[0]]
        check(not bad, f"{fn} {opts}: no label reads NULL", bad[:3])
check(nfiles >= 8, "every example capture drawn", nfiles)

# ------------------------------------------------------------------ a job report: category -> lane -> name
ne = "examples/newengine_report.json"
jobs = json.load(open(ne))["completed_jobs"]                 # the active job has no elapsed_ms: not drawn
lanes = {r[0]: r[1] for r in db.execute("SELECT name, lane FROM profile_jobs(?) WHERE job_list = 'completed_jobs'", (ne,))}
res, fr = flame(ne)
check(abs(res["total_ms"] - sum(j["elapsed_ms"] for j in jobs)) < 0.0006 and res["rows"] == len(jobs),
      "jobs: total = the summed elapsed_ms (Python json)", res)
got = {(f[0], round(f[1], 3), f[2]) for f in fr}
cat = defaultdict(float)
for j in jobs:
    cat[j["category"]] += j["elapsed_ms"]
want = {(c, round(v, 3), 51.0) for c, v in cat.items()} | {(j["name"], round(j["elapsed_ms"], 3), 85.0) for j in jobs} \
    | {(lanes[j["name"]], round(j["elapsed_ms"], 3), 68.0) for j in jobs}
check(want <= got, "jobs: categories, lanes and names with their elapsed_ms", want - got)
res, _ = flame(ne, {"weight": "samples"})
check(res.get("total_calls") == len(jobs), "jobs: weight samples counts them", res)
res, fr = flame(ne, {"ts_from": 1028 * 10**6})                # only load:p.dll (1030..1034 ms) ends after it
check(abs(res["total_ms"] - 4.0) < 1e-9 and "load:p.dll" in {f[0] for f in fr}, "jobs: a time range", res)
for f in ("../shared/corpus/newengine/profiler_jobs_latest.csv",):
    if os.path.exists(f):
        import csv
        want = sum(float(r["elapsed_ms"]) for r in csv.DictReader(open(f, newline="")) if r["elapsed_ms"])
        res, _ = flame(f)
        check(abs(res["total_ms"] - round(want, 3)) < 0.0011, "real job CSV: total = its summed elapsed_ms", (res, want))
    else:
        skip_part("real job CSV (../shared/corpus absent)")

# ------------------------------------------------------------------ profile_flamegraph_folded
def folded(query, opts=None, name="f.svg"):
    path = os.path.join(tmp, name)
    r = db.execute("SELECT profile_flamegraph_folded(?, ?, ?)", (path, query, json.dumps(opts) if opts is not None else None)).fetchone()[0]
    return json.loads(r), frames(path)


# by hand: a = 5 + 3 + 2 = 10 (b 7, c 3), d 10, all 20; empty frames dropped ('a;;b;' is a;b)
q = "SELECT * FROM (VALUES ('a;b', 5), ('a;c', 3), ('a;;b;', 2), ('d', 10))"
res, fr = folded(q)
svgf = open(os.path.join(tmp, "f.svg"), encoding="utf-8").read()
check(res.get("total_samples") == 20 and res["rows"] == 4, "folded: total 20", res)
for nm, v in (("a", 10), ("b", 7), ("c", 3), ("d", 10)):
    check(f"<title>{nm} — {v} samples ({v / 20 * 100:.2f}%)</title>" in svgf, f"folded: {nm} = {v}")
res, fr = folded(q, {"weight": "self"})
# reversed: the first level is where the values were added (b 7, d 10, c 3), a (0 of its own) below b and c
check(sorted((f[0], f[1]) for f in fr if f[2] == 51.0) == [("b", 7), ("c", 3), ("d", 10)]
      and sorted((f[0], f[1]) for f in fr if f[2] == 68.0) == [("a", 3), ("a", 7)], "folded self: reversed", fr)
res, fr = folded(q, {"exclude": "^c$", "title": "t"})
check(res.get("total_samples") == 17 and res["filters"] == {"exclude": "^c$"}, "folded exclude", res)
# the rows of a view: event_folded (sql/event_tree.sql) of the trace, in ns: the trace's total self time
db.execute("SELECT profile_open(?)", (trace,)).fetchone()
res, _ = folded("SELECT stack, self_ns FROM event_folded", {"unit": "ns"})
check(abs(res["total_ms"] - total_all / 1e6) < 0.0006, "folded event_folded rows in ns: the summed self time (async too)", (res, total_all))

# ------------------------------------------------------------------ errors
xs_path = os.path.join(tmp, "e.svg")

# ------------------------------------------------------------------ differential graphs
def colour_scale(value, mx):
    """flamegraph.pl's color_scale (brendangregg/FlameGraph flamegraph.pl, --diff): red for growth,
    blue for shrinkage, the other two channels int(210 * (max - |value|) / max)."""
    r = g = b = 255
    if value > 0:
        g = b = int(210 * (mx - value) / mx)
    elif value < 0:
        r = g = int(210 * (mx + value) / mx)
    return (r, g, b)


def fills(path):
    out = {}
    for gg in ET.parse(path).getroot().iter(NS + "g"):
        if gg.get("class") == "f":
            t = gg.find(NS + "title").text
            out[t.rsplit(" — ", 1)[0]] = (t, tuple(int(x) for x in re.findall(r"\d+", gg.find(NS + "rect").get("fill"))))
    return out


# a hand-made pair: base a;b 10, a;c 10; test a;b 30, a;c 5, a;d 5. Inclusive deltas: all +20,
# a +20, b +20, c -5; d is new (full red). The largest change of a frame the baseline has: 20.
base_q = "VALUES ('a;b', 10), ('a;c', 10)"
test_q = "VALUES ('a;b', 30), ('a;c', 5), ('a;d', 5)"
res, fr = folded(test_q, {"baseline": base_q}, name="diff.svg")
fl = fills(os.path.join(tmp, "diff.svg"))
want = {"all": colour_scale(20, 20), "a": colour_scale(20, 20), "b": colour_scale(20, 20), "c": colour_scale(-5, 20)}
check(all(fl[k][1] == v for k, v in want.items()) and fl["d"][1] == (255, 0, 0),
      "differential: flamegraph.pl's colours (red grew, blue shrank, by the largest change; new = full red)",
      {k: v[1] for k, v in fl.items()})
check(res.get("total_samples") == 40 and [f[3] for f in fr if f[0] == "b"][0] > [f[3] for f in fr if f[0] == "c"][0],
      "differential: widths are the test's", res)
check("b — 30 samples (75.00%), baseline 10 samples, change +20 (+200.0%)" == fl["b"][0]
      and fl["d"][0].endswith("not in the baseline"), "differential: the title holds both values and the change", fl["b"][0])
# normalize: the baseline scaled by 40/20 = 2: b 30 - 20 = +10, c 5 - 20 = -15, a and all 0
res, fr = folded(test_q, {"baseline": base_q, "normalize": True}, name="diffn.svg")
fl = fills(os.path.join(tmp, "diffn.svg"))
want = {"all": colour_scale(0, 15), "a": colour_scale(0, 15), "b": colour_scale(10, 15), "c": colour_scale(-15, 15)}
check(all(fl[k][1] == v for k, v in want.items()), "differential, normalized: the baseline scaled to the test's total",
      {k: v[1] for k, v in fl.items()})
# a capture against another: the Node program before and after its change (examples/diff)
path = os.path.join(tmp, "cpu_diff.svg")
r = json.loads(db.execute("SELECT profile_flamegraph(?, ?, ?)", ("examples/diff/after.cpuprofile", path,
               json.dumps({"baseline": "examples/diff/before.cpuprofile"}))).fetchone()[0])
fl = fills(path)
check(fl["validate"][1] == (255, 0, 0) and fl["render"][1][0] == 255 and fl["render"][1][1] < 255
      and fl["evaluate"][1][2] == 255 and fl["evaluate"][1][0] < 255, "cpuprofile pair: validate new, render red, evaluate blue",
      {k: fl[k][1] for k in ("validate", "render", "evaluate") if k in fl})
# ------------------------------------------------------------------ sandwich graphs
# the folded file of tests/py/test_sandwich.py: a under main (a;b;a;c 4, a;d 2) and under main;x
# (3). Callers drawn upwards: a 9, then main 6 and x 3, then main 3 above x; callees below: a 9,
# b 4, d 2, then a 4 under b, then c 4.
sw_src = os.path.join(tmp, "rec.folded")
open(sw_src, "w").write("main;a;b;a;c 4\nmain;a;d 2\nmain;x;a 3\nmain;b 1\n")
sw_svg = os.path.join(tmp, "sandwich.svg")
r = json.loads(db.execute("SELECT profile_flamegraph(?, ?, '{\"sandwich\": \"a\"}')", (sw_src, sw_svg)).fetchone()[0])
up, down = [], []
for gg in ET.parse(sw_svg).getroot().iter(NS + "g"):
    if gg.get("class") == "f":
        t = gg.find(NS + "title").text
        (up if gg.get("data-up") == "1" else down).append((t.rsplit(" — ", 1)[0], int(t.rsplit(" — ", 1)[1].split(" ")[0]),
                                                           float(gg.find(NS + "rect").get("y"))))
ys_up = sorted({y for _, _, y in up}, reverse=True)
lvl = lambda fr, ys, k: sorted((nm, v) for nm, v, y in fr if y == ys[k])
ys_dn = sorted({y for _, _, y in down})
check(r["total_weight"] == 9 and lvl(up, ys_up, 0) == [("a", 9)] and lvl(up, ys_up, 1) == [("main", 6), ("x", 3)]
      and lvl(up, ys_up, 2) == [("main", 3)], "sandwich graph: the callers drawn upwards, by hand", up)
check(lvl(down, ys_dn, 0) == [("a", 9)] and lvl(down, ys_dn, 1) == [("b", 4), ("d", 2)] and lvl(down, ys_dn, 2) == [("a", 4)]
      and lvl(down, ys_dn, 3) == [("c", 4)] and min(ys_dn) > max(ys_up), "sandwich graph: the callees below, by hand", down)
e = None
try:
    db.execute("SELECT profile_flamegraph(?, ?, '{\"sandwich\": \"nosuch\"}')", (sw_src, sw_svg)).fetchone()
except sqlite3.OperationalError as x:
    e = str(x)
check(e and "no frame, slice or record is named 'nosuch'" in e, "sandwich graph: an unknown function", e)
# options a sandwich or a single graph would take silently, refused with their names
for opts, want in [('{"sandwich": "a", "thread": "main"}', 'option "sandwich" merges every occurrence in the capture: not with "thread"'),
                   ('{"sandwich": "a", "ts_from": 0}', 'not with "ts_from"'),
                   ('{"sandwich": "a", "group": "none"}', 'not with "group"'),
                   ('{"normalize": true}', 'option "normalize" scales a "baseline", and none is given')]:
    e = None
    try:
        db.execute("SELECT profile_flamegraph(?, ?, ?)", (sw_src, sw_svg, opts)).fetchone()
    except sqlite3.OperationalError as x:
        e = str(x)
    check(e and want in e, "refused: %s" % opts, e)

e = None
try:
    db.execute("SELECT profile_flamegraph(?, ?, ?)", ("examples/diff/after.cpuprofile", path, '{"baseline": "nope.json"}')).fetchone()
except sqlite3.OperationalError as x:
    e = str(x)
check(e and e.startswith("profile_flamegraph: baseline:") and "nope.json" in e, "differential: a missing baseline named", e)

for sql, args, msg in [
    ("SELECT profile_flamegraph(?, ?, '{\"foo\": 1}')", (trace, xs_path),
     "profile_flamegraph: unknown option 'foo' (known: group, async, title, weight, pid, tid, process, thread, plane, ts_from, ts_to, name, exclude, baseline, normalize, sandwich)"),
    ("SELECT profile_flamegraph(?, ?, '{\"weight\": \"max\"}')", (trace, xs_path),
     "profile_flamegraph: option \"weight\" must be \"dur\", \"self\" or \"samples\", not max"),
    ("SELECT profile_flamegraph(?, ?, '{\"group\": 1}')", (trace, xs_path),
     "profile_flamegraph: option \"group\" must be \"track\", \"thread\" or \"none\", not integer"),
    ("SELECT profile_flamegraph(?, ?, '{\"name\": \"(\"}')", (trace, xs_path),
     "profile_flamegraph: option \"name\": invalid regular expression '(': Unmatched ( or \\("),
    ("SELECT profile_flamegraph(?, ?, '{\"exclude\": 3}')", (trace, xs_path),
     "profile_flamegraph: option \"exclude\" must be a string (a POSIX extended regular expression)"),
    ("SELECT profile_flamegraph(?, ?, '{\"ts_from\": 1.5}')", (trace, xs_path),
     "profile_flamegraph: option \"ts_from\" must be an integer (ns on the capture's clock)"),
    ("SELECT profile_flamegraph(?, ?, '{\"ts_from\": 5, \"ts_to\": 5}')", (trace, xs_path),
     "profile_flamegraph: ts_from must be less than ts_to"),

    ("SELECT profile_flamegraph(?, ?, '{\"pid\": [1]}')", (trace, xs_path),
     "profile_flamegraph: option \"pid\" must be a name (string) or an id (integer)"),
    ("SELECT profile_flamegraph(?, ?, '{\"plane\": 0}')", (trace, xs_path),
     "profile_flamegraph: option \"plane\" applies to XSpace captures, not to chrome"),
    ("SELECT profile_flamegraph(?, ?, '{\"plane\": \"/device:GPU:9\"}')", (xs, xs_path),
     "profile_flamegraph: no thread matches the filters {\"plane\":\"/device:GPU:9\"}"),
    ("SELECT profile_flamegraph(?, ?, '{\"ts_to\": 5}')", ("examples/server_timings.txt", xs_path),
     "profile_flamegraph: ts_from/ts_to: the capture's records have no timestamps"),
    ("SELECT profile_flamegraph(?, ?, '{\"thread\": \"main\"}')", (ne, xs_path),
     "profile_flamegraph: a job report has no threads to filter by"),
    ("SELECT profile_flamegraph_folded(?, 'SELECT 1', NULL)", (xs_path,),
     "profile_flamegraph_folded: query must return 2 columns (stack, value), not 1"),
    ("SELECT profile_flamegraph_folded(?, 'SELECT ''a'', 1; SELECT 2')", (xs_path,),
     "profile_flamegraph_folded: query must be one statement"),
    ("SELECT profile_flamegraph_folded(?, 'SELECT x FROM nowhere')", (xs_path,),
     "profile_flamegraph_folded: query: no such table: nowhere"),
    ("SELECT profile_flamegraph_folded(?, 'VALUES (''a'', 1), (''b'', -2)')", (xs_path,),
     "profile_flamegraph_folded: row 2: value must be an INTEGER >= 0, not -2"),
    ("SELECT profile_flamegraph_folded(?, 'VALUES (''a'', 1.5)')", (xs_path,),
     "profile_flamegraph_folded: row 1: value must be an INTEGER >= 0, not REAL 1.5"),
    ("SELECT profile_flamegraph_folded(?, 'VALUES (''a'', ''7'')')", (xs_path,),
     "profile_flamegraph_folded: row 1: value must be an INTEGER >= 0, not TEXT 7"),
    ("SELECT profile_flamegraph_folded(?, 'VALUES (NULL, 1)')", (xs_path,),
     "profile_flamegraph_folded: row 1: stack is NULL, not TEXT"),
    ("SELECT profile_flamegraph_folded(?, 'VALUES ('';;'', 1)')", (xs_path,),
     "profile_flamegraph_folded: row 1: the stack has no frame"),
    ("SELECT profile_flamegraph_folded(?, 'VALUES (''a'', 1)', '{\"group\": \"none\"}')", (xs_path,),
     "profile_flamegraph_folded: unknown option 'group' (known: title, unit, weight, name, exclude, baseline, normalize)"),
    ("SELECT profile_flamegraph_folded(?, 'VALUES (''a'', 1)', '{\"unit\": \"ms\"}')", (xs_path,),
     "profile_flamegraph_folded: option \"unit\" must be \"samples\" or \"ns\", not ms"),
]:
    try:
        db.execute(sql, args).fetchone()
        check(False, f"{msg} expected")
    except sqlite3.OperationalError as e:
        check(str(e) == msg, f"error {msg}", str(e))
done()
