"""The track model as tables (vtab/profile_tracks.c, ext/model/tracks.c): profile_tracks,
profile_threads, profile_processes, and profile_events' columns utid and kind, checked against values
worked out here, by hand or by Python over the same bytes (json, re, a protobuf wire walker), never
copied from the library's output:

  1. Chrome JSON, a trace written inline with every event annotated by hand (its row kind, the track
     it lies on, the end of a merged pair): threads numbered in order of first appearance (a TEXT
     pid "foo", a missing or null tid read as the pid, names from thread_name / process_name 'M'
     events, is_main_thread, is_idle for tid 0 in pid 0 and a thread named swapper*), processes
     (upid per distinct pid in the order of their first thread, name, main_utid, threads), tracks
     (kind per track: thread, process_async for id2.local, global_async for a plain id and
     id2.global, process_counter per (pid, name, id), global_instant / process_instant for 's':'g' /
     's':'p'), each track's rows, first_row, start_ts / end_ts (µs * 1000, end = ts + dur) and name
     (a thread track: its thread's; async and counter: their first row's; instants NULL), the spans
     and rows of threads (process-level 'M' left out) and processes ('M' left out, global tracks
     not theirs), profile_events.utid = the thread of (pid, tid), profile_events.kind per phase;
     the same structure (threads, processes and names, counter and instant tracks, rows) from Python's
     json for examples/browser_trace.json, tests/data/basic.json and the Chrome corpus;
  2. ftrace text (an inline file and examples/ftrace_sched.txt, the corpus systrace): 'cpu' tracks
     with their CPU numbers and rows of kind 'sched' on them, is_idle for the <idle> / swapper task,
     atrace counters and async slices on process-scoped tracks;
  3. XSpace (examples/gpu_host.xplane.pb, the corpus): planes with lines as processes (pid = plane
     index, name = plane name), lines as threads (tid = line id), rows and spans per line;
  4. sampled formats (a V8 .cpuprofile and perf script in examples/, folded inline, speedscope in
     tests/data): rows of kind 'sample' on the thread of each profile;
  5. directory and glob sources (ids per file, the file column, WHERE file = ?), a BLOB source;
  6. errors, named by each table as the other tables name them (vtab/loader.c).
Parts on ../shared/corpus skip with a SKIP line when it is absent."""
import decimal
import gzip
import json
import os
import re
import shutil
import tempfile

import testlib
from testlib import check, connect, done, read_varint, rows, skip_part

D = decimal.Decimal
CORPUS = os.path.join("..", "shared", "corpus")
TABLES = ("profile_tracks", "profile_threads", "profile_processes")
db = connect()


def ns(us):
    """µs as written in a trace (a Python number) -> integer ns, exactly."""
    return int((D(str(us)) * 1000).to_integral_value(rounding=decimal.ROUND_HALF_UP))


def key(v):
    """A pid or tid as a comparable key: 7 and "7" stay apart, as the library keeps them."""
    return json.dumps(v)


def span(spans, k, start, end):
    lo, hi = spans.get(k, (None, None))
    spans[k] = (start if lo is None or start < lo else lo, end if hi is None or end > hi else hi)


# ================================================================== 1. Chrome JSON, by hand
# Each entry: (event, the kind of the row it makes or None when it makes none (an E/e/F that closes
# its begin), the track of that row, the end in µs of a row whose end is not ts + dur (a merged
# B/E, b/e, S/F pair)). "T" is the thread track of the event's (pid, tid or pid).
E = []


def ev(e, kind=None, track="T", end=None):
    E.append((e, kind, track if kind else None, end))


ev({"name": "process_name", "ph": "M", "pid": 10, "tid": 11, "args": {"name": "Renderer"}}, "metadata")
ev({"name": "thread_name", "ph": "M", "pid": 10, "tid": 11, "args": {"name": "Main"}}, "metadata")
ev({"name": "A", "cat": "c", "ph": "X", "pid": 10, "tid": 11, "ts": 1, "dur": 5}, "slice")
ev({"name": "B1", "cat": "c", "ph": "B", "pid": 10, "tid": 12, "ts": 2}, "slice", end=4.5)
ev({"name": "B1", "cat": "c", "ph": "E", "pid": 10, "tid": 12, "ts": 4.5})
ev({"name": "main10", "ph": "X", "pid": 10, "tid": 10, "ts": 3, "dur": 1}, "slice")
ev({"name": "foo_ev", "ph": "X", "pid": "foo", "tid": 1, "ts": 7, "dur": 2}, "slice")
ev({"name": "thread_name", "ph": "M", "pid": "foo", "tid": 1, "args": {"name": "FooT"}}, "metadata")
ev({"name": "process_name", "ph": "M", "pid": "foo", "tid": 1, "args": {"name": "FooProc"}}, "metadata")
ev({"name": "notid", "ph": "i", "s": "t", "pid": 20, "ts": 8}, "instant")                 # tid = pid
ev({"name": "process_name", "ph": "M", "pid": 30, "args": {"name": "P30"}}, "metadata")  # thread (30, 30)
ev({"name": "loc", "cat": "net", "ph": "b", "id2": {"local": "0x1"}, "pid": 10, "tid": 11, "ts": 2}, "slice",
   ("process_async", 10, "net", "0x1"), end=6)
ev({"name": "loc", "cat": "net", "ph": "e", "id2": {"local": "0x1"}, "pid": 10, "tid": 12, "ts": 6})
ev({"name": "glob", "cat": "net", "ph": "b", "id": "0x2", "pid": 10, "tid": 11, "ts": 3}, "slice",
   ("global_async", "net", "0x2"), end=9.25)
ev({"name": "glob", "cat": "net", "ph": "e", "id": "0x2", "pid": "foo", "tid": 1, "ts": 9.25})
ev({"name": "g2_first", "cat": "net", "ph": "n", "id2": {"global": "0x3"}, "pid": 20, "tid": 20, "ts": 1}, "instant",
   ("global_async", "net", "0x3"))
ev({"name": "g2", "cat": "net", "ph": "b", "id2": {"global": "0x3"}, "pid": 20, "tid": 20, "ts": 1.5}, "slice",
   ("global_async", "net", "0x3"), end=4)
ev({"name": "g2", "cat": "net", "ph": "e", "id2": {"global": "0x3"}, "pid": 20, "tid": 20, "ts": 4})
ev({"name": "Mem", "ph": "C", "pid": 10, "tid": 11, "ts": 1, "args": {"v": 1}}, "counter", ("process_counter", 10, "Mem", None))
ev({"name": "Mem", "ph": "C", "pid": 10, "tid": 12, "ts": 5, "args": {"v": 2}}, "counter", ("process_counter", 10, "Mem", None))
ev({"name": "Mem", "ph": "C", "id": "7", "pid": 10, "tid": 11, "ts": 3, "args": {"v": 3}}, "counter",
   ("process_counter", 10, "Mem", "7"))
ev({"name": "GI", "ph": "i", "s": "g", "pid": 10, "tid": 11, "ts": 2.5}, "instant", ("global_instant",))
ev({"name": "GI2", "ph": "I", "s": "g", "pid": 20, "tid": 20, "ts": 9}, "instant", ("global_instant",))
ev({"name": "PI", "ph": "i", "s": "p", "pid": 10, "tid": 12, "ts": 4}, "instant", ("process_instant", 10))
ev({"name": "PI2", "ph": "i", "s": "p", "pid": 20, "tid": 20, "ts": 5}, "instant", ("process_instant", 20))
ev({"name": "fl", "cat": "f", "ph": "s", "id": 5, "pid": 10, "tid": 11, "ts": 1.5}, "flow")
ev({"name": "fl", "cat": "f", "ph": "t", "id": 5, "pid": 10, "tid": 11, "ts": 1.75}, "flow")
ev({"name": "fl", "cat": "f", "ph": "f", "bp": "e", "id": 5, "pid": 10, "tid": 12, "ts": 2.5}, "flow")
ev({"name": "Snap", "ph": "O", "id": "0x9", "pid": 10, "tid": 11, "ts": 2}, "object")
ev({"name": "Obj", "ph": "N", "id": "0x9", "pid": 10, "tid": 11, "ts": 1.25}, "object")
ev({"name": "Obj", "ph": "D", "id": "0x9", "pid": 10, "tid": 11, "ts": 5.5}, "object")
ev({"name": "samp", "ph": "P", "pid": 10, "tid": 11, "ts": 2}, "sample")
ev({"name": "Stray", "ph": "E", "pid": 10, "tid": 10, "ts": 8}, "end")                    # closes nothing
ev({"name": "S1", "cat": "x", "ph": "S", "id": "0x7", "pid": 10, "tid": 11, "ts": 1}, "slice", ("global_async", "x", "0x7"), end=3)
ev({"name": "S1", "cat": "x", "ph": "T", "id": "0x7", "pid": 10, "tid": 11, "ts": 2, "args": {"step": "a"}}, "step",
   ("global_async", "x", "0x7"))
ev({"name": "S1", "cat": "x", "ph": "p", "id": "0x7", "pid": 10, "tid": 11, "ts": 2.5, "args": {"step": "b"}}, "step",
   ("global_async", "x", "0x7"))
ev({"name": "S1", "cat": "x", "ph": "F", "id": "0x7", "pid": 10, "tid": 11, "ts": 3})
ev({"name": "mk", "ph": "R", "pid": 10, "tid": 11, "ts": 3.5}, "instant")
ev({"name": "nodur", "ph": "X", "pid": 10, "tid": 11, "ts": 5.75}, "other")               # an X without dur
ev({"name": "odd", "ph": "Q", "pid": 10, "tid": 11, "ts": 5.8}, "other")                  # an unknown phase
ev({"name": "lone_e", "cat": "net", "ph": "e", "id": "0x44", "pid": 10, "tid": 11, "ts": 6.5}, "end",
   ("global_async", "net", "0x44"))
ev({"name": "nulltid", "ph": "X", "pid": 20, "tid": None, "ts": 6, "dur": 1}, "slice")   # tid null = pid
ev({"name": "idle", "ph": "X", "pid": 0, "tid": 0, "ts": 9.5, "dur": 0.5}, "slice")     # the idle task
ev({"name": "thread_name", "ph": "M", "pid": 10, "tid": 13, "args": {"name": "swapper/3"}}, "metadata")

# --- what these say, worked out from the annotations
THREADS = []                      # (pid, tid) in order of first appearance (every event counts)
for e, _, _, _ in E:
    t = (e["pid"], e["tid"] if e.get("tid") is not None else e["pid"])
    if t not in THREADS:
        THREADS.append(t)
UTID = {t: u for u, t in enumerate(THREADS)}
PIDS = []
for p, _ in THREADS:
    if p not in PIDS:
        PIDS.append(p)
UPID = {p: u for u, p in enumerate(PIDS)}
TNAME = {(e["pid"], e["tid"]): e["args"]["name"] for e, _, _, _ in E if e["ph"] == "M" and e["name"] == "thread_name"}
PNAME = {e["pid"]: e["args"]["name"] for e, _, _, _ in E if e["ph"] == "M" and e["name"] == "process_name"}

ROWS = []                         # per row: event, kind, track key, start ns, end ns, thread
for e, kind, track, end in E:
    if kind is None:
        continue
    th = (e["pid"], e["tid"] if e.get("tid") is not None else e["pid"])
    if track == "T":
        track = ("thread",) + th
    start = ns(e.get("ts", 0))                    # 'M' events without ts: 0 (profile_events.md)
    stop = ns(end) if end is not None else start + ns(e["dur"]) if "dur" in e else start
    ROWS.append((e, kind, track, start, stop, th))

TRACKS = {}                       # key -> first row, rows, start, end
for r, (e, kind, track, start, stop, th) in enumerate(ROWS):
    t = TRACKS.setdefault(track, {"first": r, "rows": 0, "span": (None, None)})
    t["rows"] += 1
    if e["ph"] == "M":            # metadata events have no time: no part of a span
        continue
    lo, hi = t["span"]
    t["span"] = (start if lo is None else min(lo, start), stop if hi is None else max(hi, stop))
for th in THREADS:                # a thread without rows has its track too (first_row NULL)
    TRACKS.setdefault(("thread",) + th, {"first": None, "rows": 0, "span": (None, None)})


def track_upid(k):
    if k[0] == "thread":
        return UPID[k[1]]
    if k[0].startswith("process_"):
        return UPID[k[1]]
    return None


TH_ROWS, TH_SPAN, PR_SPAN = {}, {}, {}
for e, kind, track, start, stop, th in ROWS:
    if not (e["ph"] == "M" and e["name"].startswith("process_")):   # rows carrying the thread, any track
        TH_ROWS[th] = TH_ROWS.get(th, 0) + 1
        if e["ph"] != "M":                 # metadata events have no time: no part of a span
            span(TH_SPAN, th, start, stop)
    if track_upid(track) is not None and e["ph"] != "M":
        span(PR_SPAN, track_upid(track), start, stop)

tmp = tempfile.TemporaryDirectory(prefix="profsql-tracks-")
TRACE = os.path.join(tmp.name, "trace.json")
with open(TRACE, "w", encoding="utf-8") as f:
    json.dump({"traceEvents": [e for e, _, _, _ in E]}, f)

# --- threads
got = rows(db, "SELECT * FROM profile_threads(?)", (TRACE,))
check([(r["pid"], r["tid"]) for r in got] == THREADS, "chrome threads: (pid, tid) in order of first appearance",
      [(r["pid"], r["tid"]) for r in got])
check([r["utid"] for r in got] == list(range(len(THREADS))), "chrome threads: utid 0..n-1", [r["utid"] for r in got])
by_utid = {r["utid"]: r for r in got}
for t, u in UTID.items():
    r = by_utid.get(u)
    if r is None:
        check(False, f"chrome thread {t} present")
        continue
    pid, tid = t
    want = {"name": TNAME.get(t), "upid": UPID[pid], "is_main_thread": int(key(pid) == key(tid)),
            "is_idle": int((tid == 0 and pid == 0) or (TNAME.get(t) or "").startswith("swapper") or TNAME.get(t) == "<idle>"),
            "rows": TH_ROWS.get(t, 0), "start_ts": TH_SPAN.get(t, (None, None))[0],
            "end_ts": TH_SPAN.get(t, (None, None))[1], "file": TRACE}
    for c, w in want.items():
        check(r[c] == w, f"chrome thread {t} {c} = {w!r}", r[c])
check(type(by_utid[UTID[("foo", 1)]]["pid"]) is str, "chrome: the pid \"foo\" is TEXT",
      by_utid[UTID[("foo", 1)]]["pid"])
check(by_utid[UTID[(20, 20)]]["is_main_thread"] == 1, "chrome: a missing tid (and \"tid\": null) is the pid: (20, 20) is a main thread")

# --- processes
got = rows(db, "SELECT * FROM profile_processes(?)", (TRACE,))
check([r["pid"] for r in got] == PIDS, "chrome processes: one per distinct pid, in order of their first thread",
      [r["pid"] for r in got])
check([r["upid"] for r in got] == list(range(len(PIDS))), "chrome processes: upid 0..n-1")
for r in got:
    p = r["pid"]
    if p not in UPID:
        continue
    mine = [t for t in THREADS if t[0] == p]
    main = [UTID[t] for t in mine if key(t[0]) == key(t[1])]
    want = {"name": PNAME.get(p), "parent_upid": None, "main_utid": main[0] if main else None,
            "threads": len(mine), "start_ts": PR_SPAN.get(UPID[p], (None, None))[0],
            "end_ts": PR_SPAN.get(UPID[p], (None, None))[1], "file": TRACE}
    for c, w in want.items():
        check(r[c] == w, f"chrome process {p!r} {c} = {w!r}", r[c])

# --- tracks: a thread's by its utid, the others by their first row
got = rows(db, "SELECT * FROM profile_tracks(?)", (TRACE,))
check(len(got) == len(TRACKS), f"chrome tracks: {len(TRACKS)} tracks", len(got))
want_kinds = {}
for k in TRACKS:
    want_kinds[k[0]] = want_kinds.get(k[0], 0) + 1
got_kinds = {}
for r in got:
    got_kinds[r["kind"]] = got_kinds.get(r["kind"], 0) + 1
check(got_kinds == want_kinds, "chrome tracks per kind", got_kinds)
check(sorted(r["id"] for r in got) == list(range(len(got))), "chrome tracks: id 0..n-1")
first_of = {t["first"]: k for k, t in TRACKS.items() if t["first"] is not None and k[0] != "thread"}
track_id = {}                    # key -> the library's track id
for r in got:
    if r["kind"] == "thread":
        k = ("thread",) + THREADS[r["utid"]] if r["utid"] is not None and r["utid"] < len(THREADS) else None
    else:
        k = first_of.get(r["first_row"])
    if k is None or k not in TRACKS:
        check(False, f"chrome track {r['id']} ({r['kind']}, first_row {r['first_row']}) is one written", r)
        continue
    track_id[k] = r["id"]
    t = TRACKS[k]
    if k[0] == "thread":
        name = TNAME.get(k[1:])
    elif k[0].endswith("_instant"):
        name = None
    else:
        name = ROWS[t["first"]][0]["name"]
    want = {"kind": k[0], "name": name, "utid": UTID[k[1:]] if k[0] == "thread" else None,
            "upid": track_upid(k), "cpu": None, "first_row": t["first"], "rows": t["rows"],
            "start_ts": t["span"][0], "end_ts": t["span"][1], "file": TRACE}
    for c, w in want.items():
        check(r[c] == w, f"chrome track {k} {c} = {w!r}", r[c])
meta = {int(r["key"]): r["value"] for r in rows(db, "SELECT key, value FROM profile_metadata(?) WHERE scope = 'track'", (TRACE,))}
for r in got:
    check(r["description"] == meta.get(r["id"]), f"chrome track {r['id']} description as profile_metadata's 'track' row",
          (r["description"], meta.get(r["id"])))
    if r["kind"].endswith("_instant"):          # intended: says it is an instant track (chrome.c's track names)
        check("instant" in (r["description"] or ""), f"chrome {r['kind']} track {r['id']} description names instants",
              r["description"])

# --- profile_events: utid, kind, track of every row
got = rows(db, "SELECT id, name, ph, utid, kind, track FROM profile_events(?) ORDER BY id", (TRACE,))
check(len(got) == len(ROWS), f"chrome: {len(ROWS)} rows", len(got))
for r, (e, kind, track, start, stop, th) in zip(got, ROWS):
    check(r["name"] == e["name"] and r["ph"] == e["ph"], f"chrome row {r['id']} is {e['name']} {e['ph']}", (r["name"], r["ph"]))
    check(r["utid"] == UTID[th], f"chrome row {r['id']} ({e['ph']} {e['name']}) utid = thread {th}", r["utid"])
    check(r["kind"] == kind, f"chrome row {r['id']} ({e['ph']} {e['name']}) kind = {kind}", r["kind"])
    check(r["track"] == track_id.get(track), f"chrome row {r['id']} ({e['ph']} {e['name']}) on track {track}", r["track"])
# the join of the header comment: rows per track
n = dict(db.execute("SELECT t.id, count(*) FROM profile_events(?1) e JOIN profile_tracks(?1) t ON t.id = e.track "
                    "GROUP BY t.id", (TRACE,)).fetchall())
check(n == {track_id[k]: t["rows"] for k, t in TRACKS.items() if t["rows"] and k in track_id},
      "chrome: profile_events JOIN profile_tracks ON track counts each track's rows", n)
n = db.execute("SELECT count(*) FROM profile_events(?1) e JOIN profile_threads(?1) t ON t.utid = e.utid "
               "WHERE e.pid IS t.pid AND e.tid IS coalesce(e.tid, t.tid)", (TRACE,)).fetchone()[0]
check(n == len(ROWS), "chrome: every row's utid is the thread of its pid and tid", n)


# ================================================================== 1b. Chrome files, by json
def chrome_reference(data):
    """What Python's json says of a Chrome trace: threads (pid, tid or pid; then those of the
    top-level samples, whose sample without a pid is on the first event thread with its tid) in order, thread and process names, counter tracks (pid, name, id), whether there are
    global instants, the pids with process instants."""
    d = json.loads(data)
    evs = d["traceEvents"] if isinstance(d, dict) else d
    thr, tnames, pnames, ctr, gi, pi = [], {}, {}, set(), 0, set()
    seen = set()

    def add(pid, tid):
        k = (key(pid), key(tid if tid is not None else pid))
        if k not in seen:
            seen.add(k)
            thr.append(k)
        return k
    for e in evs:
        if not isinstance(e, dict) or not e:
            continue
        k = add(e.get("pid"), e.get("tid"))
        ph = e.get("ph")
        if ph == "M" and e.get("name") == "thread_name" and isinstance(e.get("args"), dict):
            tnames.setdefault(k, set()).add(e["args"].get("name"))
        if ph == "M" and e.get("name") == "process_name" and isinstance(e.get("args"), dict):
            pnames.setdefault(k[0], set()).add(e["args"].get("name"))
        if ph == "C":
            ctr.add((key(e.get("pid")), e.get("name"), key(e.get("id"))))
        if ph in ("i", "I", "R") and e.get("s") == "g":
            gi = 1
        if ph in ("i", "I", "R") and e.get("s") == "p":
            pi.add(key(e.get("pid")))
    if isinstance(d, dict) and isinstance(d.get("samples"), list):
        first = {}                    # a sample without a pid: the first event thread with its tid
        for p, t in thr:
            first.setdefault(t, p)
        for s in d["samples"]:
            if isinstance(s, dict):
                pid = s.get("pid")
                k = (key(pid) if "pid" in s else first.get(key(s.get("tid")), "null"), key(s.get("tid")))
                if k not in seen:
                    seen.add(k)
                    thr.append(k)
    return thr, tnames, pnames, ctr, gi, pi


def check_chrome_file(path, label, names=True):
    raw = open(path, "rb").read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    try:
        thr, tnames, pnames, ctr, gi, pi = chrome_reference(raw)
    except ValueError:
        return False                               # not JSON to Python (the lenient corpus files)
    th = rows(db, "SELECT * FROM profile_threads(?)", (path,))
    check([(key(r["pid"]), key(r["tid"])) for r in th] == thr, f"{label}: threads (pid, tid) in order of first appearance")
    pids = []
    for p, _ in thr:
        if p not in pids:
            pids.append(p)
    pr = rows(db, "SELECT * FROM profile_processes(?)", (path,))
    check([key(r["pid"]) for r in pr] == pids, f"{label}: processes, one per pid in order")
    check(sum(r["threads"] for r in pr) == len(thr), f"{label}: threads per process add up", [r["threads"] for r in pr])
    for r in pr:
        main = [u for u, t in enumerate(thr) if t[0] == key(r["pid"]) and t[1] == t[0] and t[0] != "null"]
        check(r["main_utid"] == (main[0] if main else None), f"{label}: process {r['pid']!r} main_utid", r["main_utid"])
        if names and len(pnames.get(key(r["pid"]), ())) == 1:
            check(r["name"] == next(iter(pnames[key(r["pid"])])), f"{label}: process {r['pid']!r} name", r["name"])
    if names:
        for r in th:
            k = (key(r["pid"]), key(r["tid"]))
            if len(tnames.get(k, ())) == 1:
                check(r["name"] == next(iter(tnames[k])), f"{label}: thread {k} name", r["name"])
    tr = rows(db, "SELECT kind, count(*) AS n, sum(rows) AS r FROM profile_tracks(?) GROUP BY kind", (path,))
    kinds = {r["kind"]: r["n"] for r in tr}
    check(kinds.get("thread") == len(thr), f"{label}: a thread track per thread", kinds)
    check(kinds.get("process_counter", 0) == len(ctr), f"{label}: a process_counter track per (pid, name, id) of 'C'", kinds)
    check(kinds.get("global_instant", 0) == gi, f"{label}: one global_instant track when there are 's':'g' instants", kinds)
    check(kinds.get("process_instant", 0) == len(pi), f"{label}: a process_instant track per pid of 's':'p' instants", kinds)
    for k in kinds:
        check(k in ("thread", "process_async", "global_async", "process_counter", "global_instant", "process_instant"),
              f"{label}: Chrome track kind {k}")
    n_ev = db.execute("SELECT count(*) FROM profile_events(?)", (path,)).fetchone()[0]
    check(sum(r["r"] for r in tr) == n_ev, f"{label}: the tracks' rows add up to the rows", (sum(r["r"] for r in tr), n_ev))
    bad = db.execute("SELECT count(*) FROM profile_events(?1) e LEFT JOIN profile_threads(?1) t ON t.utid = e.utid "
                     "WHERE t.utid IS NULL OR e.pid IS NOT t.pid OR (e.tid IS NOT t.tid AND NOT (e.tid IS NULL AND t.tid IS e.pid))",
                     (path,)).fetchone()[0]
    check(bad == 0, f"{label}: every row's utid is the thread of its (pid, tid)", bad)
    # kind as the phase says (tracks.h ps_row_kind), counters by their track
    for ph, dur_null, on_counter, kind, n in db.execute(
            "SELECT e.ph, e.dur IS NULL, t.kind LIKE '%counter', e.kind, count(*) FROM profile_events(?1) e "
            "JOIN profile_tracks(?1) t ON t.id = e.track GROUP BY 1, 2, 3, 4", (path,)):
        want = ("counter" if on_counter else
                {"X": "other" if dur_null else "slice", "B": "slice", "b": "slice", "S": "slice",
                 "i": "instant", "I": "instant", "R": "instant", "n": "instant", "C": "counter", "M": "metadata",
                 "s": "flow", "t": "flow", "f": "flow", "P": "sample", "T": "step", "p": "step",
                 "E": "end", "e": "end", "F": "end", "N": "object", "O": "object", "D": "object"}.get(ph, "other"))
        check(kind == want, f"{label}: {n} rows ph {ph!r} are kind {want}", kind)
    return True


check_chrome_file(os.path.join("examples", "browser_trace.json"), "examples/browser_trace.json")
check_chrome_file(os.path.join("tests", "data", "basic.json"), "tests/data/basic.json")
check_chrome_file(TRACE, "the inline trace")
# by hand, examples/browser_trace.json: its 'M' events name pids 1 and 2 with tid 0
got = rows(db, "SELECT pid, name, threads, main_utid FROM profile_processes('examples/browser_trace.json')")
d = json.load(open(os.path.join("examples", "browser_trace.json"), encoding="utf-8"))
evs = d["traceEvents"] if isinstance(d, dict) else d
want = {e["pid"]: e["args"]["name"] for e in evs if e.get("ph") == "M" and e.get("name") == "process_name"}
check({r["pid"]: r["name"] for r in got if r["pid"] in want} == want, "examples/browser_trace.json: process names", got)

CHROME = os.path.join(CORPUS, "chrome")
if os.path.isdir(CHROME):
    n = 0
    for name in sorted(os.listdir(CHROME)):
        n += check_chrome_file(os.path.join(CHROME, name), f"corpus {name}", names=True)
    check(n >= 30, f"Chrome corpus: {n} files read by Python's json and checked", n)
else:
    skip_part(f"Chrome corpus track model: {CHROME} not found (a fresh checkout has no ../shared)")

# ================================================================== 2. ftrace
FTRACE = """# tracer: nop
#
#           TASK-PID     TGID   CPU#  ||||    TIMESTAMP  FUNCTION
          <idle>-0     (-----) [000] d..2  200.000000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=app next_pid=300 next_prio=120
             app-300   (  300) [000] ...1  200.000100: tracing_mark_write: B|300|work
          <idle>-0     (-----) [002] d..2  200.000150: sched_switch: prev_comm=swapper/2 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=worker next_pid=301 next_prio=120
          worker-301   (  300) [002] ...1  200.000200: tracing_mark_write: C|300|queue|5
          worker-301   (  300) [002] ...1  200.000250: tracing_mark_write: S|300|fetch|42
             app-300   (  300) [000] ...1  200.000400: tracing_mark_write: E|300
             app-300   (  300) [000] ...1  200.000450: tracing_mark_write: C|300|queue|2
          worker-301   (  300) [002] ...1  200.000500: tracing_mark_write: F|300|fetch|42
          worker-301   (  300) [002] d..2  200.000600: sched_switch: prev_comm=worker prev_pid=301 prev_prio=120 prev_state=S ==> next_comm=swapper/2 next_pid=0 next_prio=120
             app-300   (  300) [000] d..2  200.001000: sched_switch: prev_comm=app prev_pid=300 prev_prio=120 prev_state=S ==> next_comm=kthread next_pid=77 next_prio=120
"""
FT = os.path.join(tmp.name, "sched.txt")
with open(FT, "w", encoding="utf-8") as f:
    f.write(FTRACE)
S = 200 * 10**9                     # 200.000000 s in ns
US = 1000
# by hand: CPU 0 runs app from 0 to 1000 µs, then kthread until the trace's last time (1000 µs, dur 0);
# CPU 2 runs worker from 150 to 600 µs, then the idle task until 1000 µs
got = rows(db, "SELECT * FROM profile_tracks(?) WHERE kind = 'cpu' ORDER BY cpu", (FT,))
check([(r["cpu"], r["name"], r["rows"], r["start_ts"], r["end_ts"], r["utid"], r["upid"]) for r in got]
      == [(0, "cpu 0", 2, S, S + 1000 * US, None, None), (2, "cpu 2", 2, S + 150 * US, S + 1000 * US, None, None)],
      "ftrace: a 'cpu' track per CPU that switched, with its CPU, rows and span",
      [(r["cpu"], r["name"], r["rows"], r["start_ts"], r["end_ts"], r["utid"], r["upid"]) for r in got])
got = rows(db, "SELECT e.ts, e.dur, e.tid, e.cpu, e.kind, t.cpu AS track_cpu, th.tid AS utid_tid FROM profile_events(?1) e "
               "JOIN profile_tracks(?1) t ON t.id = e.track LEFT JOIN profile_threads(?1) th ON th.utid = e.utid "
               "WHERE t.kind = 'cpu' ORDER BY e.ts, e.cpu", (FT,))
check([(r["ts"], r["dur"], r["tid"], r["cpu"], r["kind"], r["track_cpu"], r["utid_tid"]) for r in got]
      == [(S, 1000 * US, 300, 0, "sched", 0, 300), (S + 150 * US, 450 * US, 301, 2, "sched", 2, 301),
          (S + 600 * US, 400 * US, 0, 2, "sched", 2, 0), (S + 1000 * US, 0, 77, 0, "sched", 0, 77)],
      "ftrace: the CPU intervals are the rows of kind 'sched' on their CPU's track, on the thread put on the CPU",
      [(r["ts"], r["dur"], r["tid"], r["cpu"], r["kind"], r["track_cpu"], r["utid_tid"]) for r in got])
got = {r["tid"]: r for r in rows(db, "SELECT * FROM profile_threads(?)", (FT,))}
check(sorted(got) == [0, 77, 300, 301], "ftrace: threads: the task-column tids and next_pids", sorted(got))
# rows that carry the thread, on any track: its own lines' raw events (instants), its atrace rows,
# and the CPU intervals it was put on
want = {0: (None, "<idle>", 1, 0, 3, S, S + 1000 * US),            # two sched_switch lines, CPU 2 600..1000 µs
        77: (None, "kthread", 0, 0, 1, S + 1000 * US, S + 1000 * US),  # only put on CPU 0 at 1000 µs (dur 0)
        300: (300, "app", 0, 1, 4, S, S + 1000 * US),              # CPU 0 0..1000, B work, C at 450, its switch
        301: (300, "worker", 0, 0, 4, S + 150 * US, S + 600 * US)}  # CPU 2 150..600, C, S/F fetch, its switch
for tid, w in want.items():
    r = got.get(tid)
    g = r and (r["pid"], r["name"], r["is_idle"], r["is_main_thread"], r["rows"], r["start_ts"], r["end_ts"])
    check(g == w, f"ftrace thread {tid}: (pid, name, is_idle, is_main_thread, rows, start_ts, end_ts) = {w}", g)
check(got[300]["upid"] == got[301]["upid"] and got[0]["upid"] == got[77]["upid"] != got[300]["upid"],
      "ftrace: threads of TGID 300 share a process; the threads without a pid share the NULL-pid one")
got = rows(db, "SELECT * FROM profile_processes(?) ORDER BY pid", (FT,))
check([(r["pid"], r["threads"], r["start_ts"], r["end_ts"]) for r in got]
      == [(None, 2, S, S + 150 * US), (300, 2, S + 100 * US, S + 1000 * US)],
      "ftrace: processes (pid, threads, start_ts, end_ts)", [(r["pid"], r["threads"], r["start_ts"], r["end_ts"]) for r in got])
up300 = [r["upid"] for r in got if r["pid"] == 300][0]
main = [r["main_utid"] for r in got if r["pid"] == 300][0]
check(main is not None and db.execute("SELECT tid FROM profile_threads(?) WHERE utid = ?", (FT, main)).fetchone()[0] == 300,
      "ftrace: main_utid of pid 300 is thread 300", main)
got = rows(db, "SELECT * FROM profile_tracks(?) WHERE kind NOT IN ('cpu', 'thread') ORDER BY kind", (FT,))
check([(r["kind"], r["name"], r["upid"], r["utid"], r["rows"], r["start_ts"], r["end_ts"]) for r in got]
      == [("process_async", "fetch", up300, None, 1, S + 250 * US, S + 500 * US),
          ("process_counter", "queue", up300, None, 2, S + 200 * US, S + 450 * US)],
      "ftrace: atrace S/F and C on process-scoped tracks of pid 300",
      [(r["kind"], r["name"], r["upid"], r["utid"], r["rows"], r["start_ts"], r["end_ts"]) for r in got])
for r in got:                       # intended: the description says which counter / async group
    check(r["name"] in (r["description"] or ""), f"ftrace {r['kind']} track description names {r['name']!r}", r["description"])
got = dict(db.execute("SELECT kind, count(*) FROM profile_events(?) GROUP BY kind", (FT,)).fetchall())
check(got == {"ftrace_event": 4, "sched": 4, "slice": 2, "counter": 2},
      "ftrace: kinds: 4 raw sched_switch lines, 4 CPU intervals, B and S slices, 2 counter samples", got)

# examples/ftrace_sched.txt and the corpus systrace, by the kernel's line layout (docs/ftrace.md)
LINE = re.compile(r"^\s*(.+)-(\d+)\s+(?:\(\s*(\d+|-+)\)\s+)?\[(\d+)\]\s+(?:(\S{1,8})\s+)?"
                  r"(\d+)\.(\d+):\s+(\S+?):?(?:\s+(.*))?$")
NEXT = re.compile(r"next_comm=(.+) next_pid=(\d+)")
MARKER = re.compile(r"(?:.*: )?[BCSF]\|(\d+)\|")      # an atrace marker naming its pid


def ftrace_reference(text):
    """tids (task column and sched_switch next_pid) with their pid (TGID column, else an atrace
    marker's), per CPU the sched_switch times, the last time of the file."""
    tids, tgid, cpus, last = set(), {}, {}, None
    for ln in text.split("\n"):
        ln = ln.rstrip("\r")
        if ln.endswith("\\n\\"):
            ln = ln[:-3]
        if ln.lstrip().startswith("#"):
            continue
        m = LINE.match(ln)
        if not m:
            continue
        comm, tid, tg, cpu, _, s, fr, name, body = m.groups()
        ts = int(s) * 10**9 + int(fr.ljust(9, "0"))
        last = ts if last is None else max(last, ts)
        tids.add(int(tid))
        if tg and tg.isdigit():
            tgid[int(tid)] = int(tg)
        mk = MARKER.match(body or "") if name in ("tracing_mark_write", "0", "print") else None
        if mk:
            tgid.setdefault(int(tid), int(mk.group(1)))
        if name == "sched_switch":
            cpus.setdefault(int(cpu), []).append(ts)
            tids.add(int(NEXT.search(body).group(2)))
    return tids, tgid, cpus, last


def check_ftrace_file(path, label):
    tids, tgid, cpus, last = ftrace_reference(open(path, encoding="utf-8", errors="replace").read())
    got = rows(db, "SELECT cpu, name, rows, start_ts, end_ts FROM profile_tracks(?) WHERE kind = 'cpu' ORDER BY cpu", (path,))
    check([(r["cpu"], r["name"], r["rows"], r["start_ts"], r["end_ts"]) for r in got]
          == [(c, f"cpu {c}", len(v), min(v), last) for c, v in sorted(cpus.items())],
          f"{label}: cpu tracks (cpu, name, one row per sched_switch, first switch, the file's last time)", got)
    n = db.execute("SELECT count(*) FROM profile_events(?) WHERE kind = 'sched'", (path,)).fetchone()[0]
    check(n == sum(len(v) for v in cpus.values()), f"{label}: kind 'sched' rows = sched_switch lines", n)
    th = rows(db, "SELECT tid, pid, is_idle FROM profile_threads(?)", (path,))
    check(sorted(r["tid"] for r in th) == sorted(tids), f"{label}: threads = task-column tids and next_pids")
    check(sorted((r["tid"], r["pid"]) for r in th) == sorted((t, tgid.get(t)) for t in tids),
          f"{label}: a thread's pid is its TGID (or its markers' pid), else NULL")
    check([r["tid"] for r in th if r["is_idle"]] == ([0] if 0 in tids else []), f"{label}: is_idle: the tid 0 task only",
          [r["tid"] for r in th if r["is_idle"]])
    npr = db.execute("SELECT count(*) FROM profile_processes(?)", (path,)).fetchone()[0]
    nopid = any(t not in tgid for t in tids)
    check(npr == len(set(tgid.values())) + nopid, f"{label}: a process per pid (and one for the NULL pid)", npr)


check_ftrace_file(os.path.join("examples", "ftrace_sched.txt"), "examples/ftrace_sched.txt")
check_ftrace_file(os.path.join("tests", "data", "ftrace", "tgid_flags.txt"), "tests/data/ftrace/tgid_flags.txt")
check_ftrace_file(os.path.join("tests", "data", "ftrace", "old_forms.txt"), "tests/data/ftrace/old_forms.txt")
check_ftrace_file(FT, "the inline ftrace")
got = rows(db, "SELECT t.kind, t.upid, p.pid FROM profile_tracks('examples/ftrace_sched.txt') t "
               "LEFT JOIN profile_processes('examples/ftrace_sched.txt') p ON p.upid = t.upid WHERE t.kind LIKE '%counter'")
check(got == [{"kind": "process_counter", "upid": got[0]["upid"] if got else None, "pid": 1727}],
      "examples/ftrace_sched.txt: its atrace counter C|1727|queued_frames is on pid 1727's process_counter track", got)
SYSTRACE = os.path.join(CORPUS, "ftrace", "catapult-android_systrace.txt")
if os.path.isfile(SYSTRACE):
    check_ftrace_file(SYSTRACE, "corpus catapult-android_systrace.txt")
else:
    skip_part(f"ftrace corpus track model: {SYSTRACE} not found (a fresh checkout has no ../shared)")


# ================================================================== 3. XSpace
def pb_fields(buf, i, end):
    """(field, wire type, value: an int, or (start, end) of a length-delimited field)."""
    while i < end:
        k, i = read_varint(buf, i)
        f, wt = k >> 3, k & 7
        if wt == 0:
            v, i = read_varint(buf, i)
        elif wt == 2:
            n, i = read_varint(buf, i)
            v = (i, i + n)
            i += n
        elif wt == 1:
            v, i = int.from_bytes(buf[i:i + 8], "little"), i + 8
        elif wt == 5:
            v, i = int.from_bytes(buf[i:i + 4], "little"), i + 4
        else:
            raise ValueError(f"wire type {wt}")
        yield f, wt, v


def s64(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def xspace_reference(buf):
    """XSpace.planes (1): XPlane.name (2), lines (3): XLine.id (1), name (2), timestamp_ns (3), events
    (4): XEvent.offset_ps (2), duration_ps (3)."""
    planes = []
    for f, _, v in pb_fields(buf, 0, len(buf)):
        if f != 1:
            continue
        plane = {"name": "", "lines": []}
        for pf, _, pv in pb_fields(buf, *v):
            if pf == 2:
                plane["name"] = buf[pv[0]:pv[1]].decode("utf-8", "replace")
            elif pf == 3:
                line = {"id": 0, "name": "", "ts": 0, "events": []}
                for lf, _, lv in pb_fields(buf, *pv):
                    if lf == 1:
                        line["id"] = s64(lv)
                    elif lf == 2:
                        line["name"] = buf[lv[0]:lv[1]].decode("utf-8", "replace")
                    elif lf == 3:
                        line["ts"] = s64(lv)
                    elif lf == 4:
                        e = {"off": 0, "dur": 0}
                        for ef, _, evv in pb_fields(buf, *lv):
                            if ef == 2:
                                e["off"] = s64(evv)
                            elif ef == 3:
                                e["dur"] = s64(evv)
                        line["events"].append(e)
                plane["lines"].append(line)
        planes.append(plane)
    return planes


def check_xspace_file(path, label, exact=True):
    planes = xspace_reference(open(path, "rb").read())
    threads, procs, nev = [], [], 0
    for i, p in enumerate(planes):
        if p["lines"]:
            procs.append((i, p["name"], len({ln["id"] for ln in p["lines"]})))
        for ln in p["lines"]:
            nev += len(ln["events"])
            if (i, ln["id"]) not in [t[:2] for t in threads]:
                threads.append((i, ln["id"], ln))
    got = rows(db, "SELECT * FROM profile_processes(?)", (path,))
    check([(r["pid"], r["name"], r["threads"]) for r in got] == procs,
          f"{label}: processes = planes with lines (pid = plane index, name, threads = lines)",
          [(r["pid"], r["name"], r["threads"]) for r in got])
    got = rows(db, "SELECT * FROM profile_threads(?)", (path,))
    check([(r["pid"], r["tid"]) for r in got] == [t[:2] for t in threads],
          f"{label}: threads = lines in file order (pid = plane index, tid = line id)")
    check(sum(r["rows"] for r in got) == nev, f"{label}: rows on the lines' tracks = XEvents", sum(r["rows"] for r in got))
    if exact:
        for r, (pi, lid, ln) in zip(got, threads):
            starts = [ln["ts"] + (e["off"] + 500) // 1000 for e in ln["events"]]
            ends = [s + (e["dur"] + 500) // 1000 for s, e in zip(starts, ln["events"])]
            w = (ln["name"], len(ln["events"]), min(starts) if starts else None, max(ends) if ends else None)
            check((r["name"], r["rows"], r["start_ts"], r["end_ts"]) == w,
                  f"{label}: line {pi}/{lid} (name, rows, start_ts, end_ts) = {w}", (r["name"], r["rows"], r["start_ts"], r["end_ts"]))
    kinds = dict(db.execute("SELECT kind, count(*) FROM profile_tracks(?) GROUP BY kind", (path,)).fetchall())
    check(kinds == {"thread": len(threads)}, f"{label}: only thread tracks", kinds)
    n = db.execute("SELECT count(*) FROM profile_events(?) WHERE kind = 'slice'", (path,)).fetchone()[0]
    check(n == nev, f"{label}: every XEvent is a row of kind 'slice'", n)


XS = os.path.join("examples", "gpu_host.xplane.pb")
if os.path.isfile(XS):
    check_xspace_file(XS, XS)
else:
    skip_part(f"XSpace track model: {XS} not found")
XPLANE = os.path.join(CORPUS, "xplane")
if os.path.isdir(XPLANE):
    for name in sorted(os.listdir(XPLANE)):
        if name.startswith("tracelens-"):      # (tpu_inference_2 is corrupt upstream: test_xspace.py)
            check_xspace_file(os.path.join(XPLANE, name), f"corpus {name}", exact=False)
else:
    skip_part(f"XSpace corpus track model: {XPLANE} not found (a fresh checkout has no ../shared)")

# ================================================================== 4. sampled formats
CPUPROFILE = os.path.join("examples", "node_app.cpuprofile")
d = json.load(open(CPUPROFILE, encoding="utf-8"))
times, t = [], d["startTime"]
for delta in d["timeDeltas"]:
    t += delta
    times.append(t)
got = rows(db, "SELECT * FROM profile_tracks(?)", (CPUPROFILE,))
check([(r["kind"], r["rows"], r["first_row"], r["start_ts"]) for r in got] == [("thread", len(d["samples"]), 0, min(times) * 1000)],
      f"{CPUPROFILE}: one thread track holding every sample, from the first sample's time",
      [(r["kind"], r["rows"], r["first_row"], r["start_ts"]) for r in got])
if min(d["timeDeltas"]) >= 0 and d["endTime"] >= times[-1]:
    check(got[0]["end_ts"] == d["endTime"] * 1000, f"{CPUPROFILE}: its track ends at endTime", got[0]["end_ts"])
got = dict(db.execute("SELECT kind, count(*) FROM profile_events(?) GROUP BY kind", (CPUPROFILE,)).fetchall())
check(got == {"sample": len(d["samples"])}, f"{CPUPROFILE}: every row is a 'sample'", got)
check(db.execute("SELECT count(*) FROM profile_threads(?)", (CPUPROFILE,)).fetchone()[0] == 1
      and db.execute("SELECT count(*) FROM profile_processes(?)", (CPUPROFILE,)).fetchone()[0] == 1,
      f"{CPUPROFILE}: one thread in one process")

PERF = os.path.join("examples", "busy.perf.txt")
heads = re.findall(r"^(\S.*?)\s+(\d+)\s+(\d+\.\d+):", open(PERF, encoding="utf-8").read(), re.M)
got = rows(db, "SELECT tid, name, rows FROM profile_threads(?)", (PERF,))
want = {}
for comm, tid, _ in heads:
    want.setdefault(int(tid), [comm, 0])[1] += 1
check([(r["tid"], r["name"], r["rows"]) for r in got] == [(t, c, n) for t, (c, n) in want.items()],
      f"{PERF}: a thread per tid (named by its comm) holding its samples", got)
got = dict(db.execute("SELECT kind, count(*) FROM profile_events(?) GROUP BY kind", (PERF,)).fetchall())
check(got == {"sample": len(heads)}, f"{PERF}: every row is a 'sample'", got)

FOLDED = os.path.join(tmp.name, "stacks.folded")
with open(FOLDED, "w", encoding="utf-8") as f:
    f.write("main;parse;lex 3\nmain;render 2\nmain;parse 1\n")
got = rows(db, "SELECT kind, rows, first_row, start_ts, end_ts FROM profile_tracks(?)", (FOLDED,))
check(got == [{"kind": "thread", "rows": 3, "first_row": 0, "start_ts": None, "end_ts": None}],
      "folded: one thread track with a row per line and no times", got)
got = dict(db.execute("SELECT kind, count(*) FROM profile_events(?, 'folded') GROUP BY kind", (FOLDED,)).fetchall())
check(got == {"sample": 3}, "folded: every line is a 'sample'", got)

SPEEDSCOPE = os.path.join("tests", "data", "stacks", "speedscope_multi.speedscope.json")
d = json.load(open(SPEEDSCOPE, encoding="utf-8"))
scale = {"nanoseconds": 0, "microseconds": 3, "milliseconds": 6, "seconds": 9}
got = rows(db, "SELECT * FROM profile_threads(?)", (SPEEDSCOPE,))
check([(r["tid"], r["pid"], r["name"]) for r in got] == [(i, None, p["name"]) for i, p in enumerate(d["profiles"])],
      f"{SPEEDSCOPE}: a thread per profile (tid = its index, named by it)", [(r["tid"], r["pid"], r["name"]) for r in got])
for r, p in zip(got, d["profiles"]):
    n = len(p["samples"]) if p["type"] == "sampled" else sum(e["type"] == "O" for e in p["events"])
    check(r["rows"] == n, f"{SPEEDSCOPE}: profile {p['name']!r} holds {n} rows", r["rows"])
    if p.get("unit") in scale:
        k = D(10) ** scale[p["unit"]]
        start = D(str(p["startValue"])) * k
        end = (start + sum(D(str(w)) for w in p["weights"]) * k if p["type"] == "sampled"
               else D(str(max(e["at"] for e in p["events"]))) * k)
        check((r["start_ts"], r["end_ts"]) == (int(start), int(end)), f"{SPEEDSCOPE}: profile {p['name']!r} span",
              (r["start_ts"], r["end_ts"]))
    kinds = dict(db.execute("SELECT kind, count(*) FROM profile_events(?) WHERE utid = ? GROUP BY kind",
                            (SPEEDSCOPE, r["utid"])).fetchall())
    check(kinds == {"sample" if p["type"] == "sampled" else "slice": n}, f"{SPEEDSCOPE}: profile {p['name']!r} row kinds", kinds)

# ================================================================== 5. directory, glob, BLOB sources
DIR = os.path.join(tmp.name, "ranks")
os.mkdir(DIR)
A, B = os.path.join(DIR, "a.json"), os.path.join(DIR, "b.json")
shutil.copy(TRACE, A)
shutil.copy(TRACE, B)
one = {t: db.execute(f"SELECT * FROM {t}(?)", (TRACE,)).fetchall() for t in TABLES}
for src in (DIR, os.path.join(DIR, "*.json")):
    for t in TABLES:
        got = rows(db, f"SELECT * FROM {t}(?)", (src,))
        check(sorted({r["file"] for r in got}) == [A, B], f"{t}({src!r}): the file column names both copies",
              sorted({r["file"] for r in got}))
        for path in (A, B):
            mine = [tuple(v for c, v in r.items() if c != "file") for r in got if r["file"] == path]
            check(mine == [row[:-1] for row in one[t]], f"{t}({src!r}): {os.path.basename(path)} has the single file's rows, ids from 0",
                  mine[:3])
        got = db.execute(f"SELECT DISTINCT file FROM {t}(?) WHERE file = ?", (src, B)).fetchall()
        check(got == [(B,)], f"{t}({src!r}) WHERE file = ?: that file's rows only", got)
got = db.execute("SELECT e.file, count(*), sum(e.pid IS t.pid) FROM profile_events(?1) e JOIN profile_threads(?1) t "
                 "ON t.file = e.file AND t.utid = e.utid GROUP BY e.file", (DIR,)).fetchall()
check(got == [(A, len(ROWS), len(ROWS)), (B, len(ROWS), len(ROWS))],
      "directory: profile_events JOIN profile_threads ON (file, utid) matches each row to its own file's thread", got)
got = db.execute("SELECT count(*) FROM profile_events(?1) e JOIN profile_threads(?1) t ON t.utid = e.utid", (DIR,)).fetchone()[0]
check(got == 2 * 2 * len(ROWS), "directory: joined on utid alone, each row meets the thread of that utid in both files", got)
blob = open(TRACE, "rb").read()
for t in TABLES:
    got = db.execute(f"SELECT * FROM {t}(?)", (blob,)).fetchall()
    check([r[:-1] for r in got] == [r[:-1] for r in one[t]] and all(r[-1] is None for r in got),
          f"{t}(BLOB): the same rows, file NULL")

# ================================================================== 6. errors
missing = os.path.join(tmp.name, "nope.json")
empty = os.path.join(tmp.name, "empty")
os.mkdir(empty)
for t in TABLES:
    e = testlib.error(db, f"SELECT * FROM {t}(?)", (missing,))
    check(e == f"{t}: cannot open '{missing}': No such file or directory", f"{t}: a missing file", e)
    e = testlib.error(db, f"SELECT * FROM {t}")
    check(e == f"{t}: the source argument must be a file path (TEXT) or the capture's bytes (BLOB), got nothing",
          f"{t}: no source", e)
    e = testlib.error(db, f"SELECT * FROM {t}('tests/data/not_a_trace.txt')")
    check(e is not None and e.startswith(f"{t}: 'tests/data/not_a_trace.txt' is not a supported capture (supported: chrome, "),
          f"{t}: not a capture", e)
    e = testlib.error(db, f"SELECT * FROM {t}('tests/data/truncated.json')")
    check(e is not None and e.startswith(f"{t}: tests/data/truncated.json: ") and e.split(": ", 2)[2] ==
          testlib.error(db, "SELECT * FROM profile_events('tests/data/truncated.json')").split(": ", 2)[2],
          f"{t}: a damaged file, in profile_events' words", e)
    e = testlib.error(db, f"SELECT * FROM {t}(?, 'bogus')", (TRACE,))
    check(e is not None and e.startswith(f"{t}: unknown format 'bogus' (supported: "), f"{t}: an unknown format", e)
    e = testlib.error(db, f"SELECT * FROM {t}(?)", (os.path.join(empty, "*.json"),))
    check(e == f"{t}: no file matches '{os.path.join(empty, '*.json')}'", f"{t}: a glob that matches nothing", e)

tmp.cleanup()
done()
