"""Call stacks in Chrome trace JSON (Trace Event Format, "Stack frames" and "Samples"): the
top-level stackFrames dictionary as profile_records, the top-level samples array as sample rows,
sf / stack on events as stack_id, P events as samples; stack_functions / stack_folded over them.

Every corpus trace with stackFrames, samples or sf is checked against Python's json module:
frames (id, parent, name, category), per-frame self weight (the samples and P events whose leaf
it is, weights summed), per-function self and total weight with a function counted once per
sample however often it recurses, the folded stacks, and the rows' stack_id, ts and cpu.
A hand-made file (tests/data/stacks/chrome_stacks_edge.json) pins the edge cases by hand:
non-integer ids, a parent cycle, a missing parent, undefined sf ids, inline stacks, esf on an E
kept alone, string weights and cpus, samples without pid finding their thread by tid."""
import collections
import decimal
import gzip
import json
import os

from testlib import check, connect, done, rows, skip_part

CORPUS = os.path.join("..", "shared", "corpus", "chrome")
EDGE = "tests/data/stacks/chrome_stacks_edge.json"


def ns(v):
    d = decimal.Decimal(str(v)) * 1000
    return int(d.quantize(decimal.Decimal(1), rounding=decimal.ROUND_HALF_UP))


def load(path):
    raw = open(path, "rb").read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return json.loads(raw.decode("utf-8"), parse_float=decimal.Decimal)


def frame_id(v):
    return int(v)


def reference(doc):
    """Python's own reading: frames, per-frame self weight, per-function self/total weight."""
    frames = {frame_id(k): f for k, f in doc.get("stackFrames", {}).items()}
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    leaves = []                       # (leaf frame id, weight) per sample
    for s in doc.get("samples", []):
        if "sf" in s:
            leaves.append((frame_id(s["sf"]), int(s.get("weight", 1))))
    for e in events:
        if e.get("ph") == "P" and "sf" in e:
            leaves.append((frame_id(e["sf"]), 1))
    self_w = collections.Counter()
    fn_self = collections.Counter()
    fn_total = collections.Counter()
    folded = collections.Counter()
    for leaf, w in leaves:
        if leaf not in frames:
            continue
        self_w[leaf] += w
        path, seen, x = [], set(), leaf
        while x is not None and x in frames and x not in seen:
            seen.add(x)
            path.append(x)
            p = frames[x].get("parent")
            x = frame_id(p) if p is not None else None
        key = lambda f: (frames[f].get("name"), frames[f].get("category"))
        fn_self[key(leaf)] += w
        for k in set(key(f) for f in path):
            fn_total[k] += w
        folded[";".join(frames[f].get("name") for f in reversed(path))] += w
    return frames, self_w, fn_self, fn_total, folded


def fn_name(cf):
    """A V8 call frame's function as stack_functions names it: its name, or for an unnamed one
    '(anonymous) <the url's last part>:<lineNumber + 1>' (DevTools' line numbering)."""
    if cf.get("functionName"):
        return cf["functionName"]
    if cf.get("lineNumber") is None:
        return "(anonymous)"
    return "(anonymous) %s:%d" % ((cf.get("url") or "").rsplit("/", 1)[-1], cf["lineNumber"] + 1)


def v8_reference(doc):
    """DevTools' V8 profiles in a trace, read with Python: per profile (pid, id) the Profile's
    startTime, the chunks' nodes (id, parent, functionName), samples and timeDeltas (a running µs
    clock); a sample's time runs to the next sample of its profile (in time order), the last
    one's to the chunk endTime when one is given (else it has none). Per function (name and
    script url, as stack_functions tells functions apart): self samples, self µs, total samples
    (once per sample however often it recurses), total µs."""
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    profs = {}
    for e in events:
        if e.get("ph") != "P" or e.get("name") not in ("Profile", "ProfileChunk"):
            continue
        key = (e["pid"], e.get("id"))
        data = (e.get("args") or {}).get("data") or {}
        pr = profs.setdefault(key, {"clock": data.get("startTime", e["ts"]) if e["name"] == "Profile" else e["ts"],
                                    "nodes": {}, "samples": [], "end": None})
        if e["name"] != "ProfileChunk":
            continue
        cpu = data.get("cpuProfile") or {}
        for n in cpu.get("nodes", []):
            pr["nodes"][n["id"]] = n
        deltas = data.get("timeDeltas", cpu.get("timeDeltas", []))
        for i, sid in enumerate(cpu.get("samples", [])):
            pr["clock"] += deltas[i]
            pr["samples"].append((pr["clock"], sid))
        if "endTime" in data:
            pr["end"] = data["endTime"]
    fself, fselft, ftot, ftott = (collections.Counter() for _ in range(4))
    n_rows = 0
    for pr in profs.values():
        smp = sorted(pr["samples"], key=lambda t: t[0])
        n_rows += len(smp)
        for i, (ts, sid) in enumerate(smp):
            if sid not in pr["nodes"]:
                continue
            nxt = smp[i + 1][0] if i + 1 < len(smp) else pr["end"]
            dur = (nxt - ts) if nxt is not None and nxt >= ts else 0
            nm = lambda x: (fn_name(pr["nodes"][x]["callFrame"]), pr["nodes"][x]["callFrame"].get("url") or None)
            fself[nm(sid)] += 1
            fselft[nm(sid)] += dur
            seen, x = set(), sid
            while x is not None and x in pr["nodes"]:
                seen.add(nm(x))
                x = pr["nodes"][x].get("parent")
            for f in seen:
                ftot[f] += 1
                ftott[f] += dur
    return n_rows, {f: (fself[f], ftot[f], int(fselft[f] * 1000), int(ftott[f] * 1000)) for f in ftot}


def check_file(db, path, name):
    doc = load(path)
    if not isinstance(doc, dict):
        return
    frames, self_w, fn_self, fn_total, folded = reference(doc)
    recs = {r["record_id"]: r for r in rows(db, "SELECT * FROM profile_records(?)", (path,))}
    check(set(recs) == set(frames), f"{name}: frame ids", sorted(set(recs) ^ set(frames))[:5])
    bad = [i for i, f in frames.items() if i in recs and (
        recs[i]["name"] != f.get("name") or recs[i]["category"] != f.get("category")
        or recs[i]["parent_record_id"] != (frame_id(f["parent"]) if f.get("parent") is not None else None))]
    check(not bad, f"{name}: frame name/category/parent", bad[:5])
    got_self = {i: r["count"] for i, r in recs.items() if r["count"]}
    check(got_self == dict(self_w), f"{name}: self weight per frame",
          sorted(set(got_self.items()) ^ set(self_w.items()))[:5])
    db.execute("SELECT profile_open(?)", (path,))
    fn = {(r["name"], r["category"]): (r["self_samples"], r["total_samples"])
          for r in rows(db, "SELECT * FROM stack_functions")}
    ref = {k: (fn_self.get(k, 0), t) for k, t in fn_total.items()}
    check(fn == ref, f"{name}: stack_functions self/total", sorted(set(fn.items()) ^ set(ref.items()))[:5])
    # (frames of equal names under equal parents' names fold into one stack, as flamegraph.pl adds them)
    got_folded = dict(db.execute("SELECT stack, sum(samples) FROM stack_folded GROUP BY stack").fetchall())
    check(got_folded == dict(folded), f"{name}: stack_folded", sorted(set(got_folded.items()) ^ set(folded.items()))[:3])
    # the sample rows: one per entry of 'samples', after the events, in file order
    samples = doc.get("samples", [])
    if samples:
        got = db.execute("SELECT ts, stack_id, cpu FROM profile_events(?) ORDER BY id DESC LIMIT ?",
                         (path, len(samples))).fetchall()[::-1]
        want = [(ns(s["ts"]), frame_id(s["sf"]) if "sf" in s else None,
                 int(s["cpu"]) if "cpu" in s and int(s["cpu"]) >= 0 else None) for s in samples]
        check(got == want, f"{name}: sample rows (ts, stack_id, cpu)", [g for g, w in zip(got, want) if g != w][:3])
    # events with sf keep it as stack_id
    events = [e for e in doc["traceEvents"] if e != {}]
    # (an end event's sf is the end stack of the row its begin made: not the row's stack_id)
    n_sf = sum(1 for e in events if "sf" in e and e.get("ph") not in ("E", "e", "F"))
    got_sf = db.execute("SELECT count(*) FROM profile_events(?) WHERE stack_id IS NOT NULL", (path,)).fetchone()[0]
    check(got_sf == n_sf + sum(1 for s in samples if "sf" in s), f"{name}: rows with a stack_id", got_sf)


db = connect()
if os.path.isdir(CORPUS):
    n = 0
    for name in sorted(os.listdir(CORPUS)):
        path = os.path.join(CORPUS, name)
        try:
            doc = load(path)
        except ValueError:            # the unterminated-array files: no stacks in them
            doc = None
        if isinstance(doc, dict) and ("stackFrames" in doc or "samples" in doc):
            check_file(db, path, name)
            n += 1
    check(n >= 4, f"corpus traces with stacks: {n}")
    # DevTools' V8 profiles (Profile / ProfileChunk events) of Chrome 69 and Chrome 141
    for name in ("speedscope-Chrome69-simple.json", "speedscope-Chrome141-no-arg-data.json"):
        path = os.path.join(CORPUS, name)
        doc = json.load(open(path))
        n_rows, ref = v8_reference(doc)
        # (these traces have no P events but the profiles' own: every other P row is a V8 sample)
        got_rows = db.execute("SELECT count(*) FROM profile_events(?) WHERE ph = 'P' AND coalesce(name, '') NOT IN "
                              "('Profile', 'ProfileChunk')", (path,)).fetchone()[0]
        check(got_rows == n_rows, f"{name}: one row per V8 sample", (got_rows, n_rows))
        db.execute("SELECT profile_open(?)", (path,))
        got = {(r[0], r[1]): tuple(r[2:]) for r in db.execute(
            "SELECT name, category, self_samples, total_samples, self_ns, total_ns FROM stack_functions")}
        check(got == ref, f"{name}: V8 profile self/total samples and ns per function",
              sorted(set(got.items()) ^ set(ref.items()))[:4])
        check(ref and n_rows > 0, f"{name}: the reference has samples ({n_rows})")
    # the 10,441 perf samples over 13,408 frames: weights are the perf periods
    perf = os.path.join(CORPUS, "catapult-perf_sampling_trace_with_trace_events.json.gz")
    got = db.execute("SELECT count(*), sum(cpu IS NOT NULL) FROM profile_events(?) WHERE stack_id IS NOT NULL",
                     (perf,)).fetchone()
    check(got == (10441, 10441), "perf sampling: 10,441 samples with a CPU", got)
    got = db.execute("SELECT count(*) FROM profile_records(?)", (perf,)).fetchone()[0]
    check(got == 13408, "perf sampling: 13,408 frames", got)
else:
    skip_part(f"corpus traces with stacks: {CORPUS} not found (../shared/corpus absent)")

# ---- the hand-made edge file: values worked out by hand from the file
ev = rows(db, "SELECT id, ts, name, ph, pid, tid, stack_id, cpu FROM profile_events(?)", (EDGE,))
check([r["stack_id"] for r in ev] == [3, 408, 407, 405, 3, None, 3, 2, 405, 12, None, 407],
      "edge: stack_id per row (sf, inline stacks, esf of a lone E, undefined ids NULL)", [r["stack_id"] for r in ev])
check([r["cpu"] for r in ev][6:8] == [2, 3], "edge: cpu as number and string", [r["cpu"] for r in ev][6:8])
check(ev[6]["ts"] == 101500 and ev[7]["ts"] == 102000, "edge: sample ts in ns (101.5 and \"102\" µs)")
check((ev[6]["pid"], ev[6]["tid"]) == (1, 7), "edge: a sample without pid takes the thread with its tid", ev[6])
check((ev[9]["pid"], ev[9]["tid"]) == (2, 8), "edge: a sample with a pid keeps it", ev[9])
recs = {r["record_id"]: r for r in rows(db, "SELECT * FROM profile_records(?)", (EDGE,))}
# ids: integers as written; 'a' and the inline frames after the largest integer id used (404)
check(sorted(recs) == [1, 2, 3, 10, 11, 12, 405, 406, 407, 408], "edge: record ids", sorted(recs))
check((recs[405]["name"], recs[405]["parent_record_id"]) == ("named by a string", 1), "edge: non-integer key 'a'")
check([recs[i]["name"] for i in (406, 407, 408)] == ["main", "run", "0x1f"] and recs[408]["parent_record_id"] == 407,
      "edge: an inline stack is a path of frames, root first")
# self weight: frame 3 = sample (10) + P event sf "3" (1); 2 = "4"; 'a' = 1; 12 = 1; inline run = 1
check({i: r["count"] for i, r in recs.items() if r["count"]} == {3: 11, 2: 4, 405: 1, 12: 1, 407: 1},
      "edge: self weight per frame", {i: r["count"] for i, r in recs.items() if r["count"]})
check(recs[10]["depth"] is None and recs[11]["depth"] is None, "edge: a parent cycle is out of the tree")
check(recs[12]["depth"] == 0, "edge: a missing parent makes a root")
diag = db.execute("SELECT key, value FROM profile_metadata(?) WHERE scope = 'diagnostic'", (EDGE,)).fetchall()
check(("unknown_id", "byte 550: stack frame id 99 is not defined; the row has no stack") in diag, "edge: undefined sf 99", diag)
check(("missing_parent", "byte 902: parent 404 of frame id 12 does not exist; the record is a root") in diag,
      "edge: missing parent diagnostic", diag)
check(sum(1 for k, _ in diag if k == "parent_cycle") == 2, "edge: both cycle members named", diag)
db.execute("SELECT profile_open(?)", (EDGE,))
fn = {r["name"]: (r["self_samples"], r["total_samples"]) for r in rows(db, "SELECT * FROM stack_functions")}
# by hand: main(app) is on the stacks of 3 (11), 2 (4), 'a' (1) -> total 16; loop: 15; leaf: 11
check(fn.get("leaf") == (11, 11) and fn.get("loop") == (4, 15) and fn.get("named by a string") == (1, 1),
      "edge: stack_functions by hand", fn)
# ---- DevTools' V8 profiles, by hand (tests/data/stacks/chrome_v8_profiles.json): profile 0x1 of
# pid 1 starts at 1000 µs; chunk 1's deltas 10, 20, 30 put samples 3, 3, 2 at 1010, 1030, 1060,
# chunk 2's 5, 15 put 4, 3 at 1065, 1080; endTime 1095. The same id on pid 2 is another profile
# (ids offset by 2^32); a CpuProfile event (Chrome <= 65) a third (2 * 2^32).
V8 = "tests/data/stacks/chrome_v8_profiles.json"
got = db.execute("SELECT ts, dur, name, pid, tid, stack_id, parent_id FROM profile_events(?) WHERE id >= 8", (V8,)).fetchall()
want = [(1010000, 20000, "work", 1, 10, 3, 1), (1030000, 30000, "work", 1, 10, 3, 1), (1060000, 5000, "main", 1, 10, 2, 1),
        (1065000, 15000, "work", 1, 10, 4, 1), (1080000, 15000, "work", 1, 10, 3, 1),
        (600000, 100000, "idle", 2, 20, 2**32 + 2, None), (700000, None, "idle", 2, 20, 2**32 + 2, None),
        (10000, 10000, "old", 3, 30, 2 * 2**32 + 2, None), (20000, 20000, "old", 3, 30, 2 * 2**32 + 2, None)]
check(got == want, "v8: sample rows on the Profile's thread, ts from the running clock, dur to the next sample", got)
recs = {r[0]: r[1:] for r in db.execute("SELECT record_id, parent_record_id, count, self_ns, time_ns FROM profile_records(?)", (V8,))}
check(recs.get(3) == (2, 3, 65000, 80000) and recs.get(4) == (3, 1, 15000, 15000) and recs.get(1) == (None, 0, 0, 85000),
      "v8: node 3 self 20+30+15 µs, inclusive with node 4's 15", recs)
db.execute("SELECT profile_open(?)", (V8,))
fn = {(r[0], r[1]): r[2:] for r in db.execute("SELECT name, category, self_samples, total_samples FROM stack_functions")}
check(fn.get(("work", "app.js")) == (4, 4) and fn.get(("main", "app.js")) == (1, 5),
      "v8: work recursing (4 under 3) counts once per sample", fn)

# the flame graph draws the samples' stacks: width = sample weight (no sample has a duration)
import json as _json, tempfile
svg = os.path.join(tempfile.mkdtemp(), "edge.svg")
res = _json.loads(db.execute("SELECT profile_flamegraph(?, ?, '{\"group\": \"none\"}')", (EDGE, svg)).fetchone()[0])
# by hand: the rows with a stack that are samples: P sf "3" (1), weights 10, "4", 1 ('a'), 1 (12),
# 1 (inline) = 18; the P with sf 99 and the sample with sf 77 have no stack
check(res.get("total_weight") == 18 and "total_ms" not in res, "edge: flame graph total weight", res)
body = open(svg, encoding="utf-8").read()
check("<title>leaf — 11 weight (61.11%)</title>" in body, "edge: the leaf frame's width is its 11 of 18")

# stack_functions over a .cpuprofile names its unnamed functions as fn_name does: the set of
# functions on some sampled stack, from the profile's nodes with Python's json
prof = json.load(open("examples/node_app.cpuprofile"))
parent = {c: n["id"] for n in prof["nodes"] for c in n.get("children", [])}
frame = {n["id"]: n["callFrame"] for n in prof["nodes"]}
want_fns = set()
for sid in set(prof["samples"]):
    x = sid
    while x is not None:
        want_fns.add(fn_name(frame[x]))
        x = parent.get(x)
db.execute("SELECT profile_open('examples/node_app.cpuprofile', 'np_')")
got_fns = {r[0] for r in db.execute("SELECT name FROM np_stack_functions")}
check(got_fns == want_fns and any(f.startswith("(anonymous) node_app.js:") for f in got_fns),
      "stack_functions: a .cpuprofile's functions, unnamed ones as '(anonymous) file:line'",
      sorted(got_fns ^ want_fns)[:5])


# A row added after the parse (a V8 profile's samples) has no noted args offset: B/E pairs first
# (their E rows merged away, so rows move down) then a profile whose sample rows come last. Every
# args value read back is one JSON value (Python's json), as the fuzzers check it.
_d = tempfile.mkdtemp(prefix="profsql-args-")
_ev = []
for k in range(40):
    _ev.append({"ph": "B", "name": "b%d" % k, "pid": 1, "tid": 1, "ts": k * 10, "args": {"k": k, "s": "x" * (k % 7)}})
    _ev.append({"ph": "E", "pid": 1, "tid": 1, "ts": k * 10 + 5, "args": {"e": k}})
_ev.append({"ph": "P", "name": "Profile", "id": "0x1", "pid": 1, "tid": 1, "ts": 1000, "args": {"data": {"startTime": 1000}}})
_ev.append({"ph": "P", "name": "ProfileChunk", "id": "0x1", "pid": 1, "tid": 1, "ts": 1100,
            "args": {"data": {"cpuProfile": {"nodes": [{"id": 1, "callFrame": {"functionName": "(root)", "url": "", "lineNumber": -1, "columnNumber": -1, "scriptId": 0}},
                                                        {"id": 2, "parent": 1, "callFrame": {"functionName": "f", "url": "a.js", "lineNumber": 1, "columnNumber": 1, "scriptId": 1}}],
                                              "samples": [2] * 30}, "timeDeltas": [10] * 30}}})
_p = os.path.join(_d, "be_then_samples.json")
_json.dump({"traceEvents": _ev}, open(_p, "w"))
_args = [a for (a,) in connect().execute("SELECT args FROM profile_events(?) WHERE args IS NOT NULL", (_p,))]
_bad = []
for a in _args:
    try:
        _json.loads(a)
    except ValueError:
        _bad.append(a)
check(len(_args) >= 40 and not _bad, "args of rows added after the parse: every one JSON", (len(_args), _bad[:3]))

done()
