"""profile_report per format: the Markdown's headline figures of each format against an independent
computation, never from libprofsql itself:
  - timings: the timings viewer's formulas (pmmp/timings lib/TimingsReport.php) over the report
    text, parsed here with the viewer's record regex: TPS = ticks / sample seconds, server load =
    Full Server Tick time / sample time x 100, ticks = Count of "Server Tick Update Cycle", else of
    "Full Server Tick"; group self time = a record's time minus its children's (ParentRecordId);
  - Chrome: per-thread self time from Python's json (slices nested per thread with a stack; async
    b/e slices on their own tracks); with a budget, the slices over it counted in Python;
  - XSpace: device self time per op from a small protobuf wire reader written here (xplane.proto
    field numbers) and xprof's op naming (hlo_op stat, else tf_op 'name:type', else the event name);
  - sampled stacks: self time per function from Python's json over the .cpuprofile (a sample lasts
    until the next one in time, the last one until endTime);
  - StarProfiler input: the twelve sections in the order and with the headings the StarProfiler
    documents (../shared/corpus/README.md, "newengine StarProfiler").
And for every format: the shares of each share table add up to 100 +- 0.05, chart labels are
distinct, and nothing is called over budget unless the options give a budget."""
import collections
import json
import os
import re
import tempfile

from testlib import check, connect, done, pb_fields, skip_part

db = connect()
CORPUS = os.path.join("..", "shared", "corpus")


def report(src, opts=None):
    out = tempfile.mkdtemp(prefix="profsql-fmt-")
    o = {"write_archive": False, "write_flamegraph": False}
    o.update(opts or {})
    db.execute("SELECT profile_report(?, ?, ?)", (src, out, json.dumps(o))).fetchone()
    md = open(os.path.join(out, "profiler_report_latest.md"), encoding="utf-8").read()
    return out, md


def section(md, title):
    """The body of '## title' up to the next heading."""
    m = re.search(r"^## " + re.escape(title) + r"\n(.*?)(?=^## |\Z)", md, re.S | re.M)
    return m.group(1).strip() if m else None


def table(md, title):
    """The rows of the Markdown table under '## title' as dicts by column name."""
    body = section(md, title)
    if body is None:
        return None
    lines = [l for l in body.splitlines() if l.startswith("|")]
    if len(lines) < 2:
        return []
    split = lambda l: [c.strip() for c in re.split(r"(?<!\\)\|", l)[1:-1]]
    head = split(lines[0])
    return [dict(zip(head, split(l))) for l in lines[2:]]


def chart_labels(md):
    """Per chart (```text block under a '## ' heading, bars '['), its labels."""
    out = {}
    for m in re.finditer(r"^## ([^\n]*)\n\n```text\n(.*?)```", md, re.S | re.M):
        rows = [l for l in m.group(2).splitlines() if " [" in l]
        out[m.group(1)] = [l[:l.index(" [")].rstrip() for l in rows]
    return out


def common(md, out, name, share_tables, budget=False):
    """Shares add to 100, labels distinct, no budget claim without a budget."""
    for t in share_tables:
        rows = table(md, t)
        col = [c for c in (rows[0] if rows else {}) if "%" in c and ("Share" in c or c.startswith("Self %"))]
        if not rows or not col:
            check(False, f"{name}: share table '{t}' present", rows)
            continue
        total = sum(float(r[col[0]]) for r in rows)
        check(abs(total - 100.0) <= 0.05, f"{name}: '{t}' shares add up to 100", total)
    for title, labels in chart_labels(md).items():
        check(len(set(labels)) == len(labels), f"{name}: chart '{title}' labels distinct", labels)
        check(all(len(l) <= 40 for l in labels), f"{name}: chart '{title}' labels at most 40 characters")
    bv = open(os.path.join(out, "profiler_budget_violations_latest.csv")).read().splitlines()
    jobs = open(os.path.join(out, "profiler_jobs_latest.csv")).read().splitlines()
    hdr = jobs[0].split(",")
    if not budget:
        check(len(bv) == 1, f"{name}: no budget: budget_violations.csv has its header only", len(bv))
        check(section(md, "Budget violations") is not None and "Not applicable to" in section(md, "Budget violations"),
              f"{name}: 'Budget violations' says it is not applicable")
        claims = [l for l in md.splitlines() if re.search(r"over (the |its |their )?budget", l) and "nothing here is" not in l]
        check(claims == [], f"{name}: no over-budget claim without a budget", claims[:2])
        ib = hdr.index("budget_ms")
        check(all(l.split(",")[ib] == "" for l in jobs[1:50] if l.count(",") == len(hdr) - 1),
              f"{name}: jobs.csv budget_ms empty (no made-up budget)")


# ---------------------------------------------------------------- timings
REC = re.compile(r"^(.+?) Time: (\d+) Count: (\d+)(?: Avg: ([\d\.]+))? Violations: (\d+)"
                 r"(?: RecordId: (\d+) ParentRecordId: (\d+|none) TimerId: (\d+)(?: Ticks: (\d+) Peak: (\d+))?)?$")


def viewer(path):
    """The timings viewer's figures and per-group self time, from the text."""
    text = open(path, encoding="utf-8", errors="replace").read()
    recs, cat = [], None
    for line in text.splitlines():
        line = line.rstrip("\r\n")
        if not line or line.startswith("#"):
            continue
        if not line.startswith(" "):
            cat = line
            continue
        m = REC.match(line.strip())
        if m:
            recs.append(dict(name=m.group(1), time=int(m.group(2)), count=int(m.group(3)), cat=cat,
                             id=m.group(6), parent=m.group(7)))
    sample = re.search(r"^Sample time (\d+) \(", text, re.M)
    # groups: '** ' records are 'Minecraft - Breakdown'; 'Plugin: P Event: E' / 'Task: P Runnable: R' are P's
    for i, r in enumerate(recs):
        n = r["name"]
        m = re.match(r"^(?:Plugin|Task): (.+?) (?:Event|Runnable): ", n)
        r["group"] = "Minecraft - Breakdown" if n.startswith("** ") else m.group(1) if m else r["cat"]
        r["i"] = i
    # the viewer's tick timers: a name's list entry (its group's records of that shown name,
    # summed); of several groups, the one whose first record comes last wins (the viewer's loop
    # assigns each match in list order)
    first = {}
    for r in recs:
        first.setdefault(r["group"], r["i"])
    def find(n):
        rs = [r for r in recs if r["name"].removeprefix("** ") == n]
        if not rs:
            return None
        g = max({r["group"] for r in rs}, key=lambda g: first[g])
        mine = [r for r in rs if r["group"] == g]
        return dict(time=sum(r["time"] for r in mine), count=sum(r["count"] for r in mine))
    tick = find("Server Tick Update Cycle") or find("Full Server Tick")
    fst = find("Full Server Tick")
    ticks, sample_ns, fst_ns = tick["count"], int(sample.group(1)), fst["time"]
    child = collections.Counter()
    ids = {r["id"] for r in recs}
    for r in recs:
        if r["parent"] not in (None, "none") and r["parent"] in ids:
            child[r["parent"]] += r["time"]
    selfg = collections.Counter()
    for r in recs:
        selfg[r["group"]] += r["time"] - child[r["id"]]
    return dict(tps=ticks / (sample_ns / 1e9), load=fst_ns * 100.0 / sample_ns, ticks=ticks,
                sample_s=sample_ns / 1e9, fst_ms=fst_ns / 1e6, self_groups=selfg, tree=recs[0]["id"] is not None)


def timings_case(path, name):
    out, md = report(path)
    v = viewer(path)
    fig = table(md, "The timings viewer's figures")
    check(fig and len(fig) == 1, f"{name}: the viewer's figures table", fig)
    if not fig:
        return
    f = fig[0]
    check(abs(float(f["TPS"]) - v["tps"]) <= 0.005, f"{name}: TPS {f['TPS']} = ticks / sample seconds {v['tps']:.4f}")
    check(abs(float(f["Server load %"]) - v["load"]) <= 0.005,
          f"{name}: load {f['Server load %']} = Full Server Tick / sample time x 100 ({v['load']:.4f})")
    check(int(f["Ticks"]) == v["ticks"], f"{name}: ticks", (f["Ticks"], v["ticks"]))
    check(abs(float(f["Sample time s"]) - v["sample_s"]) < 1e-9, f"{name}: sample time", f["Sample time s"])
    check(abs(float(f["Full Server Tick ms"]) - v["fst_ms"]) <= 0.0005, f"{name}: Full Server Tick ms", f["Full Server Tick ms"])
    qa = section(md, "Quick answer — кто жрёт время")
    check(qa.startswith("**Server:** %.2f TPS, server load %.2f %%" % (v["tps"], v["load"])), f"{name}: quick answer leads with TPS and load", qa[:80])
    check("381" not in qa and "max load" not in qa, f"{name}: no job-profiler load in the quick answer")
    if v["tree"]:
        groups = {r["Group"]: float(r["Self ms"]) for r in table(md, "Groups by self time")}
        for g, ns in v["self_groups"].items():
            check(abs(groups.get(g, -1) - ns / 1e6) <= 0.0006, f"{name}: self time of group {g}", (groups.get(g), ns / 1e6))
        common(md, out, name, ["Groups by self time"])
    else:
        check("no record tree" in section(md, "Self time by group"), f"{name}: legacy report: self shares not applicable")
        common(md, out, name, [])
    # ranked by time per tick, % of the 50 ms tick
    rows = table(md, "Timers by time per tick")
    per = [float(r["ms per tick"]) for r in rows]
    check(per == sorted(per, reverse=True) and rows, f"{name}: timers ranked by time per tick")
    r0 = rows[0]
    check(abs(float(r0["% of tick"]) - float(r0["Time ms"]) / v["ticks"] / 50 * 100) <= 0.006, f"{name}: % of the 50 ms tick", r0)
    return md


timings_case("examples/server_timings.txt", "server_timings.txt")
pm = os.path.join(CORPUS, "pmmp", "pm-tree-v1-pocketmine-4.18.4dev-pmmp-timings-docs.txt")
if os.path.exists(pm):
    md = timings_case(pm, "pm-tree")
    check("**Server:** 19.98 TPS, server load 10.30 %" in md, "pm-tree: the real server's 19.98 TPS and 10.3 % load")
    labels = chart_labels(md)["Self time by timer"]
    check(any("…" in l for l in labels) and not any(l.endswith("Minecraft - Breakd") for l in labels),
          "pm-tree: labels shortened in the middle", labels[:3])
    sp = os.path.join(CORPUS, "aikar", "spigot-1.9.2-michael1011.txt")
    timings_case(sp, "spigot")
    timings_case(os.path.join(CORPUS, "pmmp", "pm-v1-legacy-pocketmine-4.18.4dev-pmmp-timings-examples.txt"), "pm-legacy")
    # 'Full Server Tick' in two groups (Minecraft, and '** ' in Minecraft - Breakdown): the
    # later group's entry gives the figures, as the viewer's loop leaves it (1130160570 ns, not
    # the first record's 1130508423), the same figures as timings_summary (sql/timings.sql)
    cn = os.path.join(CORPUS, "pmmp", "pm-v1-legacy-pocketmine-1.5dev-addcn14.txt")
    md = timings_case(cn, "pm-addcn14")
    check(viewer(cn)["fst_ms"] == 1130.16057 and "| 1130.161 |" in md, "pm-addcn14: Full Server Tick of the later group, 1130.161 ms")
else:
    skip_part("timings corpus reports (../shared/corpus absent)")

# ---------------------------------------------------------------- Chrome
TRACE = "examples/browser_trace.json"


def chrome_slices(path):
    """Complete slices (pid, tid, name, ts_us, dur_us, self_us) with self = dur minus the direct
    children's dur: synchronous slices (X, B/E) nested per thread by a stack; async b/e slices each
    on its own track (ids differ), so nothing nests in them."""
    d = json.load(open(path))
    ev = d["traceEvents"] if isinstance(d, dict) else d
    names = {}
    for e in ev:
        if e.get("ph") == "M" and e.get("name") in ("process_name", "thread_name"):
            names[(e["name"], e["pid"], e.get("tid", 0) if e["name"] == "thread_name" else 0)] = e["args"]["name"]
    sync, asyn, open_b, open_a = [], [], collections.defaultdict(list), {}
    for e in ev:
        ph = e.get("ph")
        if ph == "X":
            sync.append([e["pid"], e["tid"], e["name"], e["ts"], e["dur"]])
        elif ph == "B":
            open_b[(e["pid"], e["tid"])].append(e)
        elif ph == "E":
            b = open_b[(e["pid"], e["tid"])].pop()
            sync.append([b["pid"], b["tid"], b["name"], b["ts"], e["ts"] - b["ts"]])
        elif ph == "b":
            open_a[(e["pid"], e.get("cat"), e["id"], e["name"])] = e
        elif ph == "e":
            b = open_a.pop((e["pid"], e.get("cat"), e["id"], e["name"]))
            asyn.append([b["pid"], b["tid"], b["name"], b["ts"], e["ts"] - b["ts"]])
    out = []
    by_thread = collections.defaultdict(list)
    for s in sync:
        by_thread[(s[0], s[1])].append(s)
    for th, sl in by_thread.items():
        sl.sort(key=lambda s: (s[3], -s[4]))
        stack = []
        for s in sl:
            s.append(s[4])                        # self, less the children below
            while stack and s[3] >= stack[-1][3] + stack[-1][4]:
                stack.pop()
            if stack:
                stack[-1][5] -= s[4]
            stack.append(s)
        out += sl
    label = lambda p, t: (names.get(("process_name", p, 0), f"pid {p}"), names.get(("thread_name", p, t), f"tid {t}"))
    chrome_slices.asyn = asyn           # the async spans: the report lists them apart
    return [(label(s[0], s[1]), s[2], s[3], s[4], s[5]) for s in out]


out, md = report(TRACE)
sl = chrome_slices(TRACE)
want = collections.Counter()
for th, _, _, _, self_us in sl:
    want[th] += self_us / 1000.0
rows = table(md, "Threads by self time")
got = {(r["Process"], r["Thread"]): float(r["Self ms"]) for r in rows if r["Rank"]}
check(len(got) >= 15, "chrome: the threads table", len(got))
for th, ms in got.items():
    check(abs(ms - want[th]) <= 0.0006, f"chrome: self time of {th}", (ms, want[th]))
total = sum(want.values())
qa = section(md, "Quick answer — кто жрёт время")
top = max(want.items(), key=lambda kv: kv[1])
check(f"thread `{top[0][1]}` of `{top[0][0]}` — {top[1]:.3f} ms of the {total:.3f} ms" in qa,
      "chrome: quick answer names the thread with the most self time", qa[:120])
slow = table(md, "Slowest slices")
check(abs(float(slow[0]["Elapsed ms"]) - max(s[3] for s in sl) / 1000) <= 0.0005, "chrome: the slowest slice", slow[0])
# async spans: apart from the threads' self time, in their own section and one sentence of the quick answer
asyn = chrome_slices.asyn
check(len(asyn) == 11, "chrome: the trace's async spans (Python's json)", len(asyn))
arows = table(md, "Async spans — not thread time")
by_name = collections.defaultdict(list)
for a in asyn:
    by_name[a[2]].append(a[4])
check({r["Name"]: (int(r["Spans"]), r["Total ms"], r["Longest ms"]) for r in arows}
      == {n: (len(d), "%.3f" % (sum(d) / 1000), "%.3f" % (max(d) / 1000)) for n, d in by_name.items()},
      "chrome: async spans by name (count, total, longest)", arows)
check("Async spans, counted apart (their own tracks: they overlap the threads' work): %d, %.3f ms in all."
      % (len(asyn), sum(a[4] for a in asyn) / 1000) in qa, "chrome: the quick answer counts the async spans apart", qa[-160:])
check("of slice self time on thread tracks" in qa, "chrome: the quick answer says what its percentage is of", qa[:160])
common(md, out, "chrome", ["Threads by self time", "Names by self time"])

# ---------------------------------------------------------------- a Node trace: ~100 async spans, one busy thread
NODE = "tests/data/flame/node_trace.json"
out, md = report(NODE)
nsl = chrome_slices(NODE)
main = [s for s in nsl if s[0][1] == "JavaScriptMainThread"]
main_ms = sum(s[4] for s in main) / 1000
qa = section(md, "Quick answer — кто жрёт время")
check(qa.startswith("**Most self time:** thread `JavaScriptMainThread` of `node` — %.3f ms" % main_ms),
      "node: the main thread's self time is its thread-track slices' (Python), no async span in it", (qa[:100], main_ms))
check("%d, %.3f ms in all" % (len(chrome_slices.asyn), sum(a[4] for a in chrome_slices.asyn) / 1000) in qa,
      "node: the async spans counted apart", qa[-120:])

# ---------------------------------------------------------------- ftrace: CPU time and idle apart from the markers
FT = "examples/ftrace_sched.txt"
out, md = report(FT)
# a regex reading of the text: per CPU, each sched_switch starts next_pid's interval, which the CPU's
# next switch ends; the last one lasts to the trace's last timestamp (the reader's rule)
line_re = re.compile(r"^\s*(.+?)-(\d+)\s+(?:\(\s*[-\d]+\)\s+)?\[(\d+)\]\s+\S*\s*(\d+\.\d+):\s+(\S+?):?\s(.*)$")
sw, last = collections.defaultdict(list), 0
for ln in open(FT):
    m = line_re.match(ln)
    if not m:
        continue
    t = round(float(m.group(4)) * 1e6)
    last = max(last, t)
    if m.group(5) == "sched_switch":
        nxt = re.search(r"next_comm=(.+?) next_pid=(\d+)", m.group(6))
        sw[int(m.group(3))].append((t, nxt.group(1), int(nxt.group(2))))
cpu_us, idle_us = collections.Counter(), collections.Counter()
for cpu, xs in sw.items():
    for k, (t, comm, pid) in enumerate(xs):
        end = xs[k + 1][0] if k + 1 < len(xs) else last
        if pid == 0:
            idle_us[cpu] += end - t
        else:
            cpu_us[pid] += end - t
rows = {r["CPU"]: r["Idle ms"] for r in table(md, "Idle time per CPU")}
check(rows == {str(c): "%.3f" % (idle_us[c] / 1000) for c in sw}, "ftrace: idle per CPU (regex reading)", (rows, idle_us))
top = table(md, "CPU time by thread — from scheduling, not wall time")[0]
tp = max(cpu_us.items(), key=lambda kv: kv[1])
check(top["CPU ms"] == "%.3f" % (tp[1] / 1000), "ftrace: the busiest thread's CPU time", (top, tp))
qa = section(md, "Quick answer — кто жрёт время")
check("CPU time from scheduling, a measure of its own: %.3f ms on %d CPUs, of which %.3f ms idle."
      % ((sum(cpu_us.values()) + sum(idle_us.values())) / 1000, len(sw), sum(idle_us.values()) / 1000) in qa,
      "ftrace: the quick answer states CPU time and idle apart from the markers' wall time", qa[-140:])
check("<idle>" not in qa.split("CPU time")[0], "ftrace: the idle task is no consumer", qa[:120])



def report_budget(src, budget):
    """A report with the frame budget option {"budget_ms": ms}."""
    try:
        return report(src, {"budget_ms": budget})
    except Exception as e:      # noqa: BLE001 (the option must exist: the failure says so, and the rest still runs)
        check(False, "the option budget_ms is accepted", str(e))
        return report(src, {"budgets_ms": {"*": budget}})


# with a budget: the violations are the slices longer than it (Python's count)
for budget in (0.1, 0.25):
    out, md = report_budget(TRACE, budget)
    n_over = sum(1 for s in sl if s[3] / 1000.0 >= budget)
    body = section(md, "Budget violations")
    check(body is not None and body.startswith(f"**{n_over} of {len(sl)} slices** with a budget are over it"),
          f"chrome budget_ms {budget}: {n_over} slices over it", body and body[:80])
    bv = open(os.path.join(out, "profiler_budget_violations_latest.csv")).read().splitlines()
    check(len(bv) - 1 == min(n_over, 64), f"chrome budget_ms {budget}: budget_violations.csv rows", len(bv) - 1)
    common(md, out, f"chrome budget {budget}", [], budget=True)
big = os.path.join(CORPUS, "chrome", "catapult-big_trace.json")
if os.path.exists(big):
    out, md = report_budget(big, 16.67)
    bsl = chrome_slices(big)
    n_over = sum(1 for s in bsl if s[3] / 1000.0 > 16.67)
    body = section(md, "Budget violations")
    check(body.startswith(f"**{n_over} of "), "catapult big trace, budget 16.67 ms: violations = Python's dur > 16.67 ms", (body[:60], n_over))
else:
    skip_part("chrome corpus trace with a 16.67 ms budget (../shared/corpus absent)")

# a hand-made trace whose names share long beginnings: labels stay apart
long_names = [f"Minecraft - Breakdown:Minecraft - Breakdown::Entity Tick {k}" for k in range(12)]
evs = [{"ph": "X", "pid": 1, "tid": 1, "ts": k * 10, "dur": 5 + k, "name": n} for k, n in enumerate(long_names)]
tmp = tempfile.mkdtemp(prefix="profsql-fmt-")
p = os.path.join(tmp, "long.json")
json.dump(evs, open(p, "w"))
out, md = report(p)
labels = chart_labels(md)["Self time by name"]
check(len(labels) == 12 and len(set(labels)) == 12, "long shared names: 12 distinct labels", labels)
check(all("…" in l and l.endswith(l2.split("Tick ")[1]) for l, l2 in zip(labels, sorted(long_names, key=lambda n: -int(n.split()[-1])))),
      "long shared names: shortened in the middle, the differing end kept", labels[:2])

# ---------------------------------------------------------------- XSpace
def xspace_device_ops(path):
    """Per op of the device planes: self time (ps) = dur minus the events nested in it on its line.
    XSpace.planes=1; XPlane.name=2, lines=3, event_metadata=4 (entry: key=1, value=2 with name=2),
    stat_metadata=5 (value name=2); XLine.events=4; XEvent.metadata_id=1, offset_ps=2,
    duration_ps=3, stats=4; XStat.metadata_id=1, str_value=5, ref_value=7."""
    ops = collections.Counter()
    for f, _, plane in pb_fields(open(path, "rb").read()):
        if f != 1:
            continue
        pf = pb_fields(plane)
        pname = next((v.decode() for g, _, v in pf if g == 2), "")
        if not pname.startswith("/device:"):
            continue
        meta = lambda field: {k: n for k, n in
                              ((next(x for g, _, x in pb_fields(e) if g == 1),
                                next((y.decode() for g2, _, y in pb_fields(next(x for g, _, x in pb_fields(e) if g == 2)) if g2 == 2), ""))
                               for g, _, e in pf if g == field)}
        ev_names, st_names = meta(4), meta(5)
        ev_stats = {}                          # XEventMetadata.stats=5: stats every event of it has
        for g, _, entry in pf:
            if g == 4:
                em = pb_fields(next(x for q, _, x in pb_fields(entry) if q == 2))
                ev_stats[next((x for q, _, x in em if q == 1), 0)] = [x for q, _, x in em if q == 5]
        for g, _, line in pf:
            if g != 3:
                continue
            events = []
            for h, _, e in pb_fields(line):
                if h != 4:
                    continue
                ef = pb_fields(e)
                val = lambda k: next((v for q, _, v in ef if q == k), 0)
                stats = {}
                for s in ev_stats.get(val(1), []) + [x for q, _, x in ef if q == 4]:   # the event's own last
                    sf = pb_fields(s)
                    sid = next(v for r, _, v in sf if r == 1)
                    for r, _, v in sf:
                        if r == 5:
                            stats[st_names.get(sid)] = v.decode()
                        elif r == 7:
                            stats[st_names.get(sid)] = st_names.get(v)
                name = ev_names.get(val(1), "")
                if "hlo_op" in stats:
                    op = stats["hlo_op"].split("::")[-1]
                elif "tf_op" in stats:
                    op = stats["tf_op"].split(":")[0]     # 'name:type' (here XlaModule:jit_step)
                else:
                    op = name
                events.append([val(2), val(3), op, val(3)])
            events.sort(key=lambda x: (x[0], -x[1]))
            stack = []
            for x in events:
                while stack and x[0] >= stack[-1][0] + stack[-1][1]:
                    stack.pop()
                if stack:
                    stack[-1][3] -= x[1]
                stack.append(x)
            for x in events:
                ops[x[2]] += x[3]
    return ops


XS = "examples/gpu_host.xplane.pb"
out, md = report(XS)
ops = xspace_device_ops(XS)
rows = table(md, "Device: top ops by self time")
got = {r["Op"]: float(r["Self ms"]) for r in rows if r["Rank"]}
check(set(got) == set(ops), "xspace: the device ops", (sorted(got), sorted(ops)))
for op, ps in ops.items():
    check(abs(got.get(op, -1) - ps / 1e9) <= 0.0006, f"xspace: device self time of {op}", (got.get(op), ps / 1e9))
top = max(ops.items(), key=lambda kv: kv[1])
check(f"**Device:** `{top[0]}" in section(md, "Quick answer — кто жрёт время"), "xspace: quick answer names the top device op")
check("Host: top events by self time" in md, "xspace: the host is reported apart")
common(md, out, "xspace", ["Device: top ops by self time"])

# ---------------------------------------------------------------- sampled stacks
CP = "examples/node_app.cpuprofile"
prof = json.load(open(CP))
nodes = {n["id"]: n["callFrame"] for n in prof["nodes"]}
ts, t = [], prof["startTime"]
for d in prof["timeDeltas"]:
    t += d
    ts.append(t)
order = sorted(range(len(ts)), key=lambda i: ts[i])
self_us = collections.Counter()
for k, i in enumerate(order):
    dur = (ts[order[k + 1]] if k + 1 < len(order) else prof["endTime"]) - ts[i]
    cf = nodes[prof["samples"][i]]
    # an unnamed function is '(anonymous) <the url's last part>:<lineNumber + 1>', as DevTools shows it
    fn = cf["functionName"] or "(anonymous) %s:%d" % (cf["url"].rsplit("/", 1)[-1], cf["lineNumber"] + 1)
    self_us[(fn, cf["url"])] += dur
out, md = report(CP)
rows = table(md, "Functions by self time")
for r in rows:
    if not r["Rank"]:
        continue
    key = (r["Function"], r["Module"])
    check(abs(float(r["Self ms"]) - self_us[key] / 1000.0) <= 0.0006, f"cpuprofile: self time of {key}", (r["Self ms"], self_us[key] / 1000))
top = max(self_us.items(), key=lambda kv: kv[1])
check(rows[0]["Function"] == top[0][0], "cpuprofile: the function with the most self time first", rows[0])
ev = [r for r in rows if r["Function"] == "evaluate"]
check(ev and float(ev[0]["Self ms"]) < 1296, "cpuprofile: evaluate is not the sum of its recursive nodes' inclusive times", ev)
# the quick answer names each base: self time of the sampled time, the stack share of the sample count
parent = {c: n["id"] for n in prof["nodes"] for c in n.get("children", [])}
on_stack = 0
for sid in prof["samples"]:
    x, seen = sid, False
    while x is not None:
        cf = nodes[x]
        seen = seen or (cf["functionName"] == top[0][0] and cf["url"] == top[0][1])
        x = parent.get(x)
    on_stack += seen
total_us = sum(self_us.values())
qa = section(md, "Quick answer — кто жрёт время")
check("(%.1f %% of the sampled time)" % (top[1] * 100.0 / total_us) in qa
      and "on the stack of %.1f %% of the samples (a share of the sample count, not of time)"
      % (on_stack * 100.0 / len(prof["samples"])) in qa,
      "cpuprofile: the quick answer's two shares, each with its base (Python over the profile)", qa)
check("Total % of sampled time" in rows[0], "cpuprofile: the table's Total % says its base", list(rows[0]))
common(md, out, "cpuprofile", ["Functions by self time"])

# ---------------------------------------------------------------- ftrace and lms: per-thread self time, shares
for path, name in (("examples/ftrace_sched.txt", "ftrace"), ("examples/lms_markers.csv", "lms")):
    out, md = report(path)
    check(f"(format `{name}`)" in md, f"{name}: read as {name}")
    common(md, out, name, ["Threads by self time", "Names by self time"])

# ---------------------------------------------------------------- StarProfiler input
STAR = ["Quick answer — кто жрёт время", "Profiler-first telemetry view", "Load chart — категории по суммарному времени",
        "Load chart — lanes", "Load chart — top offenders", "Top offenders by total elapsed time",
        "Top methods by total elapsed time", "Budget violations — что пробило кадр/лимит",
        "Frame budget violations — explicit frame envelope misses", "Top single jobs by elapsed time",
        "Top single jobs by budget load", "Active jobs"]
for path in ("examples/newengine_report.json", os.path.join(CORPUS, "newengine", "profiler_report_latest.json")):
    if not os.path.exists(path):
        skip_part(f"{path} (../shared/corpus absent)")
        continue
    out, md = report(path)
    heads = [l[3:] for l in md.splitlines() if l.startswith("## ")]
    check(heads == STAR, f"{path}: the StarProfiler's sections, order and headings", heads)
    for title, labels in chart_labels(md).items():
        check(len(set(labels)) == len(labels), f"{path}: chart '{title}' labels distinct", labels)
real = os.path.join(CORPUS, "newengine", "profiler_report_latest.json")
if os.path.exists(real):
    out, md = report(real)
    jobs = json.load(open(real))["completed_jobs"]
    if all(not ((j.get("metadata") or {}).get("method") or (j.get("metadata") or {}).get("method_name")) for j in jobs):
        check(section(md, "Top methods by total elapsed time").strip().startswith("No completed job names a method"),
              "real report: all methods <no-method>: one line instead of the table")

# ---------------------------------------------------------------- the report model (sql/report_model.sql)
# Each capture gets the model its format calls for, and the header says what it ranks, what time
# counts and what idle is; a StarProfiler report keeps the writer's own header. The model's
# views and tables are gone after the report.
MODELS = [("tests/data/basic.json", "ranked: a thread"), ("examples/ftrace_sched.txt", "ranked: a thread"),
          ("examples/lms_markers.csv", "ranked: a thread"), ("tests/data/multi", "ranked: a thread"),
          ("examples/node_app.cpuprofile", "ranked: a function"), ("examples/busy.perf.txt", "ranked: a function"),
          ("examples/server_timings.txt", "ranked: a timer"), ("examples/gpu_host.xplane.pb", "ranked: an op"),
          ("tests/data/xprof/kernel_stats.pb", "ranked: a record"), ("examples/training", "ranked: per rank: GPU time"),
          ("examples/newengine_report.json", None)]
for path, want in MODELS:
    if not os.path.exists(path):
        check(False, f"model: {path} exists")
        continue
    out, md = report(path)
    bullets = [l[2:] for l in md.split("\n\n")[1].splitlines()]
    ranked = [b for b in bullets if b.startswith("ranked: ")]
    if want is None:
        check(not ranked and "the StarProfiler's report set" in bullets[1], f"model: {path}: the StarProfiler's own header", bullets)
    else:
        check(len(ranked) == 1 and ranked[0].startswith(want) and "; time counted: " in ranked[0],
              f"model: {path}: '{want}', and what time counts", ranked)
    if path == "examples/ftrace_sched.txt":
        check("idle: the idle task" in ranked[0], "model: ftrace: idle is the idle task's time, per CPU", ranked)
    left = [r[0] for r in db.execute("SELECT name FROM temp.sqlite_schema WHERE name LIKE 'profsql%'")]
    check(left == [], f"model: {path}: nothing of the report left in temp", left)

done()
