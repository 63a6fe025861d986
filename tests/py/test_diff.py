"""profile_diff(baseline, test [, options]) against computations made here with Python's json, never
from libprofsql itself:
  - the .cpuprofile pair of examples/diff (one program run before and after a change): per
    function the samples with it on their stack (once per sample however it recurses), their
    time (a sample lasts until the next one in time order, the last one until endTime), the time
    of the samples whose leaf it is; per stack (root-to-leaf names) the samples and their time;
  - the Chrome trace pair of examples/diff (Node's trace events): per name the complete slices
    (X, and B/E matched per thread) on thread tracks, nested per thread with a stack: count,
    time of the outermost ones, self time = duration less the children's;
  - HTA TraceDiff's change categories by count, the ratio and the shares from those numbers;
  - options: where (a name filter done here too), async spans apart, normalize, step windows,
    and the errors (side named, reason given)."""
import collections
import json
import os
import tempfile

from testlib import check, connect, done, error

db = connect()
B_CP, T_CP = "examples/diff/before.cpuprofile", "examples/diff/after.cpuprofile"
B_TR, T_TR = "examples/diff/before.trace.json", "examples/diff/after.trace.json"


def diff(base, test, opts=None):
    q = "SELECT key, base_count, test_count, base_ns, test_ns, base_self_ns, test_self_ns, delta_ns, ratio, " \
        "base_share, test_share, change FROM profile_diff(?, ?" + (", ?" if opts is not None else "") + ")"
    args = (base, test) + ((json.dumps(opts),) if opts is not None else ())
    cols = ["key", "bc", "tc", "bns", "tns", "bself", "tself", "delta", "ratio", "bshare", "tshare", "change"]
    return [dict(zip(cols, r)) for r in db.execute(q, args)]


def category(bc, tc):
    """HTA TraceDiff's categories, by count."""
    if bc == 0 and tc > 0:
        return "added"
    if tc == 0 and bc > 0:
        return "deleted"
    return "increased" if tc > bc else "decreased" if tc < bc else "unchanged"


def cpuprofile(path):
    """per function: (count, inclusive ns, self ns); per stack: (samples, ns)."""
    prof = json.load(open(path))
    nodes = {n["id"]: n for n in prof["nodes"]}
    parent = {c: n["id"] for n in prof["nodes"] for c in n.get("children", [])}

    def label(cf):
        if cf["functionName"]:
            return cf["functionName"]
        last = cf["url"].rsplit("/", 1)[-1]
        return "(anonymous) %s:%d" % (last, cf["lineNumber"] + 1) if last else "(anonymous)"
    ts, t = [], prof["startTime"]
    for d in prof["timeDeltas"]:
        t += d
        ts.append(t)
    order = sorted(range(len(ts)), key=lambda i: ts[i])
    fn = collections.defaultdict(lambda: [0, 0, 0])
    stacks = collections.defaultdict(lambda: [0, 0])
    for k, i in enumerate(order):
        end = ts[order[k + 1]] if k + 1 < len(order) else prof["endTime"]
        dur = (end - ts[i]) * 1000
        chain, x = [], prof["samples"][i]
        while x is not None:
            chain.append(label(nodes[x]["callFrame"]))
            x = parent.get(x)
        for name in set(chain):
            fn[name][0] += 1
            fn[name][1] += dur
        fn[chain[0]][2] += dur
        st = stacks[";".join(reversed(chain))]
        st[0] += 1
        st[1] += dur
    return fn, stacks


def trace(path, names=None, want_async=False):
    """per name: (count, inclusive ns of the outermost, self ns), of the slices on thread tracks
    (X; B/E matched per thread), or of the async b/e spans (want_async)."""
    ev = json.load(open(path))["traceEvents"]
    slices = collections.defaultdict(list)              # (pid, tid) -> [start, end, name, seq]
    if want_async:
        open_ = {}
        for i, e in enumerate(ev):
            key = (e.get("cat"), e.get("id"), e.get("id2"), e["name"], e.get("pid"))
            if e["ph"] == "b":
                open_.setdefault(key, []).append(e)
            elif e["ph"] == "e" and open_.get(key):
                b = open_[key].pop()
                # nestable async: spans of one id nest on that id's track
                slices[("async",) + key[:3] + key[4:]].append([b["ts"] * 1000, e["ts"] * 1000, b["name"], i])
    else:
        stacks = collections.defaultdict(list)
        for i, e in enumerate(ev):
            th = (e.get("pid"), e.get("tid"))
            if e["ph"] == "X":
                slices[th].append([e["ts"] * 1000, (e["ts"] + e["dur"]) * 1000, e["name"], i])
            elif e["ph"] == "B":
                stacks[th].append(e)
            elif e["ph"] == "E" and stacks[th]:
                b = stacks[th].pop()
                slices[th].append([b["ts"] * 1000, e["ts"] * 1000, b["name"], i])
    out = collections.defaultdict(lambda: [0, 0, 0])
    for th, ss in slices.items():
        ss.sort(key=lambda s: (s[0], -s[1], s[3]))
        stack = []                                      # open slices: [slice, child time, same-name depth]
        active = collections.Counter()

        def close(item):
            s, child = item
            active[s[2]] -= 1
            out[s[2]][2] += (s[1] - s[0]) - child
        for s in ss:
            while stack and stack[-1][0][1] <= s[0]:
                close(stack.pop())
            if stack:
                stack[-1][1] += s[1] - s[0]
            if names is None or s[2] in names:
                out[s[2]][0] += 1
                if active[s[2]] == 0:
                    out[s[2]][1] += s[1] - s[0]
            active[s[2]] += 1
            stack.append([s, 0])
        while stack:
            close(stack.pop())
    if names is not None:
        out = {k: v for k, v in out.items() if k in names}
    return out


def compare(label, rows, base, test, count_i=0, ns_i=1, self_i=2):
    keys = set(base) | set(test)
    got = {r["key"]: r for r in rows}
    ok_keys = set(got) == {k for k in keys if any(base.get(k, [0, 0, 0])) or any(test.get(k, [0, 0, 0]))}
    check(ok_keys, f"{label}: the keys of both sides", sorted(set(got) ^ keys)[:8])
    bad = []
    bt = sum(v[self_i] for v in base.values()) if self_i is not None else None
    tt = sum(v[self_i] for v in test.values()) if self_i is not None else None
    for k in keys:
        r = got.get(k)
        if r is None:
            continue
        b, t = base.get(k, [0, 0, 0]), test.get(k, [0, 0, 0])
        want = dict(bc=b[count_i], tc=t[count_i], bns=b[ns_i], tns=t[ns_i])
        if self_i is not None:
            want.update(bself=b[self_i], tself=t[self_i])
        for c, v in want.items():
            if abs(r[c] - v) > 0.5:
                bad.append((k, c, r[c], v))
        if r["change"] != category(b[count_i], t[count_i]):
            bad.append((k, "change", r["change"], category(b[count_i], t[count_i])))
        if r["delta"] != r["tns"] - r["bns"]:
            bad.append((k, "delta", r["delta"]))
        if (r["ratio"] is None) != (r["bns"] == 0) or (r["ratio"] is not None and abs(r["ratio"] - r["tns"] / r["bns"]) > 1e-9):
            bad.append((k, "ratio", r["ratio"]))
        if self_i is not None and bt and abs(r["bshare"] - r["bself"] * 100.0 / bt) > 1e-9:
            bad.append((k, "base_share", r["bshare"]))
        if self_i is not None and tt and abs(r["tshare"] - r["tself"] * 100.0 / tt) > 1e-9:
            bad.append((k, "test_share", r["tshare"]))
    check(not bad, f"{label}: counts, times, self times, change, delta, ratio and shares as computed here", bad[:6])
    d = [abs(r["delta"]) for r in rows]
    check(d == sorted(d, reverse=True), f"{label}: rows by abs(delta_ns) descending")
    return got


# ---------------------------------------------------------------- sampled stacks
bfn, bst = cpuprofile(B_CP)
tfn, tst = cpuprofile(T_CP)
got = compare("cpuprofile by name", diff(B_CP, T_CP), bfn, tfn)
check(got.get("validate", {}).get("change") == "added" and got["render"]["change"] == "increased"
      and got["evaluate"]["change"] == "decreased", "cpuprofile: the change shows (validate added, render up, evaluate down)",
      {k: got.get(k, {}).get("change") for k in ("validate", "render", "evaluate")})
check(got["evaluate"]["bns"] < got["main"]["bns"], "cpuprofile: the recursive evaluate counted once per sample")
compare("cpuprofile by stack", diff(B_CP, T_CP, {"by": "stack"}), {k: [v[0], v[1], v[1]] for k, v in bst.items()},
        {k: [v[0], v[1], v[1]] for k, v in tst.items()})
same = diff(B_CP, B_CP)
check(same and all(r["change"] == "unchanged" and r["delta"] == 0 and r["ratio"] in (None, 1.0) for r in same),
      "cpuprofile: a capture against itself is unchanged everywhere")

# ---------------------------------------------------------------- Chrome traces (Node trace events)
got = compare("trace by name", diff(B_TR, T_TR), trace(B_TR), trace(T_TR))
check(len(got) > 5, "trace: several names compared", len(got))
compare("trace async spans", diff(B_TR, T_TR, {"async": True}), trace(B_TR, want_async=True), trace(T_TR, want_async=True))
# where: both sides filtered by the same expression
names = {"RunTimers", "MinorGC"}
compare("trace where", diff(B_TR, T_TR, {"where": "name IN ('RunTimers', 'MinorGC')"}),
        trace(B_TR, names), trace(T_TR, names), self_i=None)
# normalize: base scaled to the test's total self time
rows = diff(B_TR, T_TR, {"normalize": True})
raw = {r["key"]: r for r in diff(B_TR, T_TR)}
bt, tt = sum(r["bself"] for r in raw.values()), sum(r["tself"] for r in raw.values())
bad = [r["key"] for r in rows if abs(r["delta"] - (r["tns"] - r["bns"] * tt / bt)) > 1e-6 * max(1, abs(r["delta"]))]
check(not bad, "normalize: delta = test - base x T_test / T_base", bad[:4])

# ---------------------------------------------------------------- step windows, on a hand-made pair
tmp = tempfile.mkdtemp(prefix="profsql-diff-")


def write(name, events):
    p = os.path.join(tmp, name)
    json.dump({"traceEvents": events}, open(p, "w"))
    return p


def X(name, ts, dur, pid=1, tid=1):
    return {"ph": "X", "name": name, "ts": ts, "dur": dur, "pid": pid, "tid": tid}


# base: step 1 [0, 100) with a (30) and b (20 on another thread of the process); step 2 [100, 200)
# with a (50); c in another process inside the window (left out)
base = write("base.json", [X("ProfilerStep#1", 0, 100), X("a", 10, 30), X("b", 5, 20, tid=2), X("ProfilerStep#2", 100, 100),
                           X("a", 110, 50), X("c", 10, 10, pid=2)])
test = write("test.json", [X("ProfilerStep#1", 0, 80), X("a", 10, 10), X("a", 30, 10), X("d", 50, 5, tid=3),
                           X("ProfilerStep#2", 80, 100), X("b", 90, 40)])
rows = {r["key"]: r for r in diff(base, test, {"step": "ProfilerStep#1"})}
want = {"ProfilerStep#1": (1, 1, 100000, 80000), "a": (1, 2, 30000, 20000), "b": (1, 0, 20000, 0), "d": (0, 1, 0, 5000)}
check({k: (r["bc"], r["tc"], r["bns"], r["tns"]) for k, r in rows.items()} == want,
      "step: the rows of the step's window on every thread of its process, on each side", rows)
check(rows["b"]["change"] == "deleted" and rows["d"]["change"] == "added" and rows["a"]["change"] == "increased",
      "step: change categories by count")
check(rows["ProfilerStep#1"]["bself"] == 100000 - 30000, "step: the step's self time less its child a (30 us)", rows["ProfilerStep#1"])
# recursion: a inside a is counted once in the inclusive time, twice in the count
rec = write("rec.json", [X("a", 0, 100), X("a", 10, 50), X("b", 20, 10)])
r = {x["key"]: x for x in diff(rec, rec)}
check((r["a"]["bc"], r["a"]["bns"], r["a"]["bself"]) == (2, 100000, 50000 + 40000),
      "recursion: count 2, inclusive 100 us (outermost), self 50 + 40 us", r["a"])
# by path and category and thread on the same pair
p = {x["key"]: x for x in diff(rec, rec, {"by": "path"})}
check(set(p) == {"a", "a;a", "a;a;b"} and p["a;a"]["bns"] == 50000 and p["a;a;b"]["bself"] == 10000,
      "by path: the names from the root joined by ';'", sorted(p))
th = {x["key"]: x for x in diff(base, test, {"by": "thread"})}
check(th.get("pid 1 / tid 2", {}).get("bns") == 20000 and th.get("pid 1 / tid 1", {}).get("bns") == 200000,
      "by thread: each thread's outermost slices ('pid N / tid N' labels)", sorted(th))

# ---------------------------------------------------------------- errors: the side and the reason
def err(sql, *args):
    return error(db, sql, args)


e = err("SELECT * FROM profile_diff(?, ?)", B_CP, os.path.join(tmp, "nope.json"))
check(e and e.startswith("profile_diff: test:") and "nope.json" in e, "error: a missing test file names the side", e)
e = err("SELECT * FROM profile_diff(?, ?, ?)", B_TR, T_TR, '{"by": "stack"}')
check(e and "baseline" in e and "no sampled stacks" in e, "error: 'stack' of a trace without samples", e)
e = err("SELECT * FROM profile_diff(?, ?, ?)", B_TR, T_TR, '{"where": "1) UNION SELECT (2"}')
check(e and "one SQL expression" in e, "error: a where that is not one expression is rejected", e)
e = err("SELECT * FROM profile_diff(?, ?, ?)", B_TR, T_TR, '{"where": "nosuchcolumn = 1"}')
check(e and "where" in e and "nosuchcolumn" in e, "error: a where naming no column says so", e)
e = err("SELECT * FROM profile_diff(?, ?, ?)", base, test, '{"step": "ProfilerStep#9"}')
check(e and "baseline" in e and "ProfilerStep#9" in e, "error: a step no file has", e)
e = err("SELECT * FROM profile_diff(?, ?, ?)", base, test, '{"bye": 1}')
check(e and "unknown option" in e and "bye" in e, "error: an unknown option", e)
e = err("SELECT * FROM profile_diff(?, ?, ?)", base, test, '[1]')
check(e and "JSON object" in e, "error: options that are not an object", e)
e = err("SELECT * FROM profile_diff(?)", base)
check(e is not None, "error: one argument", e)
# a directory is one side, summed over its files
d = os.path.join(tmp, "dir")
os.mkdir(d)
for i in range(2):
    json.dump({"traceEvents": [X("a", 0, 10 * (i + 1))]}, open(os.path.join(d, f"r{i}.json"), "w"))
r = {x["key"]: x for x in diff(d, rec)}
check(r["a"]["bc"] == 2 and r["a"]["bns"] == 30000, "a directory side sums its files", r.get("a"))
# ---------------------------------------------------------------- profile_report with a baseline
import csv
out = tempfile.mkdtemp(prefix="profsql-diff-report-")
db.execute("SELECT profile_report(?, ?, ?)", (T_CP, out, json.dumps({"baseline": B_CP, "write_archive": False}))).fetchone()
rows = list(csv.DictReader(open(os.path.join(out, "profiler_diff_latest.csv"), newline="", encoding="utf-8")))
ref = diff(B_CP, T_CP)
check([r["key"] for r in rows] == [r["key"] for r in ref] and all(int(a["test_self_ns"]) == b["tself"] and a["change"] == b["change"]
      for a, b in zip(rows, ref)), "report: profiler_diff_latest.csv holds profile_diff's rows, in its order", len(rows))
md = open(os.path.join(out, "profiler_report_latest.md"), encoding="utf-8").read()
sec = md[md.find("## What changed — largest changes of self time"):]
first = [l for l in sec.splitlines() if l.startswith("| 1 |")]
top = max(ref, key=lambda r: (abs(r["tself"] - r["bself"]), ""))
check(first and f"| {top['key']} |" in first[0], "report: 'What changed' leads with the largest change of self time", first)
check("## What changed — names added" in md and "| validate |" in md[md.find("## What changed — names added"):],
      "report: validate() among the names added")
n_added = sum(1 for r in ref if r["change"] == "added")
check(f"{n_added} added" in md, "report: the count of names added", n_added)
out2 = tempfile.mkdtemp(prefix="profsql-diff-report-")
db.execute("SELECT profile_report(?, ?, '{\"write_archive\": false}')", (T_CP, out2)).fetchone()
check(not os.path.exists(os.path.join(out2, "profiler_diff_latest.csv")) and "What changed" not in
      open(os.path.join(out2, "profiler_report_latest.md"), encoding="utf-8").read(), "report: no comparison without a baseline")
# "where" on the file column of a directory side: each file's rows selected while it is read (a
# file = ... there once made profile_events read that one file as part 0, another file's rows)
both = os.path.join(tmp, "both")
os.makedirs(both, exist_ok=True)
for nm, src in (("a.json", B_TR), ("b.json", T_TR)):
    with open(src, "rb") as f_in, open(os.path.join(both, nm), "wb") as f_out:
        f_out.write(f_in.read())
want = sum(r["tc"] for r in diff(T_TR, T_TR))
for w in ("file = '%s'" % os.path.join(both, "b.json"), "file LIKE '%b.json'"):
    got = sum(r["tc"] for r in diff(both, both, {"where": w}))
    check(got == want, "where %s on a directory side = that file alone" % w, (got, want))
# frame names longer than any label buffer stay whole and apart (two 5,001-byte names, 3 and 2 samples)
long_a, long_b = "f" * 5000 + "A", "f" * 5000 + "B"
cpu = os.path.join(tmp, "long.cpuprofile")
json.dump({"nodes": [{"id": 1, "callFrame": {"functionName": "(root)", "scriptId": "0", "url": "", "lineNumber": -1, "columnNumber": -1}, "children": [2, 3]},
                     {"id": 2, "callFrame": {"functionName": long_a, "scriptId": "1", "url": "a.js", "lineNumber": 1, "columnNumber": 1}},
                     {"id": 3, "callFrame": {"functionName": long_b, "scriptId": "1", "url": "a.js", "lineNumber": 2, "columnNumber": 1}}],
           "startTime": 0, "endTime": 50, "samples": [2, 2, 2, 3, 3], "timeDeltas": [10] * 5}, open(cpu, "w"))
got = {r["key"]: r["tc"] for r in diff(cpu, cpu) if r["key"] in (long_a, long_b)}
check(got == {long_a: 3, long_b: 2}, "names of 5,001 bytes: whole, apart", {k[-1]: v for k, v in got.items()})
done()
