"""Timings reports: profile_records, the derived metadata and the timings viewer's figures
(sql/timings.sql: timings_summary, timings_records, timings_list) against an independent
computation in Python over the report text, for examples/server_timings.txt, the hand-made
reports in tests/data/ and every report in ../shared/corpus/pmmp and ../shared/corpus/aikar (that
part is skipped when ../shared/corpus is absent); and the reader's diagnostics.

The Python side applies the pmmp/timings viewer's rules (lib/Parser/Parser.php,
lib/TimingsReport.php; quoted in ../shared/corpus/README.md "Facts") with Python's re module:
  record  ^(.+?) Time: (\\d+) Count: (\\d+)(?: Avg: ([\\d\\.]+))? Violations: (\\d+)(?: RecordId: ...)?$
  sample  ^Sample time (\\d+) \\(([\\d.]+s)\\)$  (case-insensitive, multi-line, any CRLF): the first
  version ^# FormatVersion (\\d+)$ (case-insensitive, any CRLF), else 0; ' ThreadId: N' ends a
          category line only from version 3 on; Peak is shown only from version 2 on
  list    records keyed by (group, name as shown: "** " stripped, "Plugin: P Event: E" shown as
          "Event: E" in group P, "Task: P Runnable: R" as "Task: R"), summed; Ticks only for a
          single record, Peak the largest
  ticks   Count of the 'Server Tick Update Cycle' list entry, else of 'Full Server Tick'; of
          entries in several groups the LAST group (in order of the group's first record) wins
  TPS     ticks / (sample s x 20) x 20;  load %  Full Server Tick time / sample time x 100
  per tick  time / ticks in ms;  Pct Tick = that / 50 ms x 100
The Spigot <spigotConfig> block is cut out first, as the Spigot viewer does.
Prints "RESULT <passed> <failed> <skipped>" last."""
import glob
import os
import re
import sqlite3

from testlib import check, connect, done, rows, skip_part

CORPUS = os.path.join("..", "shared", "corpus")
RECORD = re.compile(r"^(.+?) Time: (\d+) Count: (\d+)(?: Avg: ([\d\.]+))? Violations: (\d+)"
                    r"(?: RecordId: (\d+) ParentRecordId: (\d+|none) TimerId: (\d+)(?: Ticks: (\d+) Peak: (\d+))?)?$")
SAMPLE = re.compile(r"^Sample time (\d+) \(([\d.]+s)\)\r?$", re.I | re.M)
VERSION = re.compile(r"^# FormatVersion (\d+)\r?$", re.I | re.M)
BREAKDOWN = "Minecraft - Breakdown"
ENTITIES = [("&lt;", "<"), ("&gt;", ">"), ("&quot;", '"'), ("&#039;", "'"), ("&#39;", "'"), ("&amp;", "&")]


def decode(s):
    """PHP's htmlspecialchars_decode (the five entities; &amp; last, so '&amp;lt;' gives '&lt;')."""
    for e, c in ENTITIES:
        s = s.replace(e, c)
    return s


def meta_value(text, key):
    m = re.search(r"^# " + re.escape(key) + r" (.*?)\r?$", text, re.M)
    return m.group(1) if m else None


def viewer(path):
    """The report as the viewer reads it: a dict of headline figures, the records (in file order)
    and the list view entries."""
    text = open(path, encoding="utf-8", newline="").read()
    text = re.sub(r"<spigotConfig>.*?</spigotConfig>", "", text, flags=re.S)
    vm = VERSION.search(text)
    fv = int(vm.group(1)) if vm else None
    fv_read = fv if fv is not None else 0
    recs, cat, thread = [], None, None
    for lineno, raw in enumerate(text.split("\n"), 1):
        line = raw.strip("\r\n")
        if not line or line[0] == "#":
            continue
        if line[0] != " ":
            if SAMPLE.match(line):
                continue
            cat, thread = line.strip(), None
            m = re.search(r" ThreadId: (\d+)$", cat)
            if fv_read >= 3 and m:
                cat, thread = cat[:m.start()], int(m.group(1))
            continue
        m = RECORD.match(line)
        if not m:
            continue
        name = m.group(1).strip()
        shown, group, by_name = decode(name), cat, True
        pm = re.match(r"^Plugin: (.+) Event: (.+)$", shown)
        tm = re.match(r"^Task: (.+) Runnable: (.+)$", shown)
        if shown.startswith("** "):
            shown, group = shown[3:], BREAKDOWN
        elif pm:
            shown, group = "Event: " + pm.group(2), pm.group(1)
        elif tm:
            shown, group = "Task: " + tm.group(2), tm.group(1)
        else:
            by_name = False
            if group in ("Custom Timings",) or (group or "").startswith("Minecraft - ** indicates"):
                group = "Minecraft"          # the legacy viewer's mapping, as profile_records
        recs.append(dict(line=lineno, name=name, shown=shown, group=group, thread=thread,
                         key_thread=None if by_name else thread,
                         time=int(m.group(2)), count=int(m.group(3)), violations=int(m.group(5)),
                         rid=m.group(6), parent=m.group(7),
                         timer=int(m.group(8)) if m.group(8) else None,
                         ticks=int(m.group(9)) if m.group(9) else None,
                         peak=int(m.group(10)) if m.group(10) else None))
    # the list view: entries keyed by (group, thread of a category group, shown name)
    entries, group_first = {}, {}
    for r in recs:
        gk = (r["group"], r["key_thread"])
        group_first.setdefault(gk, r["line"])
        k = gk + (r["shown"],)
        e = entries.get(k)
        if e is None:
            entries[k] = dict(n=1, time=r["time"], count=r["count"], violations=r["violations"],
                              ticks=r["ticks"], peak=r["peak"], timers={r["timer"]}, first=r["line"])
        else:
            e["n"] += 1
            e["time"] += r["time"]
            e["count"] += r["count"]
            e["violations"] += r["violations"]
            e["ticks"] = None
            if r["peak"] is not None:
                e["peak"] = r["peak"] if e["peak"] is None else max(e["peak"], r["peak"])
            e["timers"].add(r["timer"])

    def timer(nm):
        """The viewer's loop over the groups in order: the last entry with the name wins."""
        found = None
        for gk in sorted(group_first, key=group_first.get):
            for k, e in entries.items():
                if k[:2] == gk and k[2] == nm:
                    found = e
        return found
    cycle, full = timer("Server Tick Update Cycle"), timer("Full Server Tick")
    ticks = (cycle or full or {}).get("count")
    sm = SAMPLE.search(text)
    sample = int(sm.group(1)) if sm else None
    head = dict(sample=sample, ticks=ticks, fv=fv, fv_read=fv_read,
                tick_timer="Server Tick Update Cycle" if cycle else "Full Server Tick" if full else None,
                full=full["time"] if full else None,
                tps=ticks / (sample / 1e9 * 20) * 20 if ticks is not None and sample else None,
                load=full["time"] / sample * 100 if full and sample else None,
                version=meta_value(text, "Version"), pm=meta_value(text, "PocketMine-MP"))
    # self time of a tree report: time minus the children's time (parents by RecordId)
    child = {}
    for r in recs:
        if r["parent"] not in (None, "none"):
            child[r["parent"]] = child.get(r["parent"], 0) + r["time"]
    for r in recs:
        r["self"] = r["time"] - child.get(r["rid"], 0) if r["rid"] is not None else None
    return head, recs, entries


def close(a, b, rel=1e-12):
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


def per_tick(t, ticks):
    return None if t is None or not ticks else t / ticks / 1e6


def pct_tick(t, ticks):
    return None if t is None or not ticks else t / ticks / 50e6 * 100


def check_report(db, path):
    """One report: profile_records, the derived metadata and the three views against viewer()."""
    name = os.path.basename(path)
    head, recs, entries = viewer(path)
    try:
        db.execute("SELECT profile_open(?)", (path,)).fetchone()
    except sqlite3.Error as e:
        check(False, f"{name}: profile_open fails: {e}")
        return
    n = db.execute("SELECT count(*) FROM records").fetchone()[0]
    check(n == len(recs), f"{name}: {n} records, the viewer's regex finds {len(recs)}")
    ours = {(r["line"]): (r["group_name"], r["thread_id"], r["time_ns"], r["count"])
            for r in rows(db, "SELECT line, group_name, thread_id, time_ns, count FROM records")}
    py = {r["line"]: (decode(r["group"]) if r["group"] is not None else None, r["thread"], r["time"], r["count"]) for r in recs}
    check(ours == py, f"{name}: records' group / thread / time / count differ from the viewer's")

    s = rows(db, "SELECT * FROM timings_summary")
    check(len(s) == 1, f"{name}: one timings_summary row", len(s))
    s = s[0]
    check(s["file"] == path, f"{name}: summary file", s["file"])
    for col, want in (("sample_time_ns", head["sample"]), ("ticks", head["ticks"]), ("tick_timer", head["tick_timer"]),
                      ("full_server_tick_ns", head["full"]), ("format_version", head["fv"]),
                      ("format_version_read", head["fv_read"]), ("version", head["version"]),
                      ("pocketmine_version", head["pm"]), ("record_count", len(recs))):
        check(s[col] == want, f"{name}: summary {col} = {want!r}", s[col])
    check(close(s["tps"], head["tps"]), f"{name}: tps {head['tps']}", s["tps"])
    check(close(s["server_load_percent"], head["load"]), f"{name}: load {head['load']}", s["server_load_percent"])
    check(close(s["sample_seconds"], head["sample"] / 1e9 if head["sample"] is not None else None),
          f"{name}: sample_seconds", s["sample_seconds"])
    # the reader's own derived metadata says the same
    meta = {(r[0], r[1]): r[2] for r in db.execute("SELECT scope, key, value FROM metadata")}
    check(meta.get(("derived", "ticks")) == head["ticks"], f"{name}: derived ticks", meta.get(("derived", "ticks")))
    check(close(meta.get(("derived", "average_tps")), head["tps"] and head["ticks"] / (head["sample"] / 1e9)),
          f"{name}: derived average_tps", meta.get(("derived", "average_tps")))
    check(close(meta.get(("derived", "server_load_pct")), head["load"]), f"{name}: derived server_load_pct",
          meta.get(("derived", "server_load_pct")))

    # timings_records: per record, by line
    got = {r["line"]: r for r in rows(db, "SELECT * FROM timings_records")}
    bad = []
    for r in recs:
        g = got.get(r["line"])
        want_peak = r["peak"] if head["fv_read"] >= 2 else None
        if g is None or not (close(g["avg_per_tick_ms"], per_tick(r["time"], head["ticks"]))
                             and close(g["pct_tick"], pct_tick(r["time"], head["ticks"]))
                             and close(g["count_per_tick"], r["count"] / head["ticks"] if head["ticks"] else None)
                             and close(g["avg_ns"], r["time"] / r["count"] if r["count"] else None)
                             and close(g["pct_of_sample"], r["time"] / head["sample"] * 100 if head["sample"] else None)
                             and g["peak_ns"] == want_peak and g["ticks_active"] == r["ticks"]
                             and g["violations"] == r["violations"] and g["name"] == r["name"]):
            bad.append(r["line"])
    check(not bad and len(got) == len(recs), f"{name}: timings_records per-tick figures (lines {bad[:5]})")
    if recs and recs[0]["rid"] is not None:
        # a tree report: self figures from Python's own self time, for the records in the tree
        in_tree = {r[0] for r in db.execute("SELECT line FROM records WHERE depth IS NOT NULL")}
        bad = [r["line"] for r in recs if r["line"] in in_tree and not (
            close(got[r["line"]]["self_per_tick_ms"], per_tick(r["self"], head["ticks"]))
            and close(got[r["line"]]["self_pct_tick"], pct_tick(r["self"], head["ticks"])))]
        check(not bad, f"{name}: timings_records self figures (lines {bad[:5]})")

    # timings_list: the viewer's list view
    lst = {(r["group_name"], r["thread_id"], r["name"]): r
           for r in rows(db, "SELECT * FROM timings_list")}
    want_keys = {(decode(k[0]), k[1], k[2]) for k in entries}
    check(set(lst) == want_keys, f"{name}: list view entries {sorted(set(lst) ^ want_keys, key=str)[:4]}")
    bad = []
    for k, e in entries.items():
        g = lst.get((decode(k[0]), k[1], k[2]))
        want_peak = e["peak"] if head["fv_read"] >= 2 else None
        timer_id = next(iter(e["timers"])) if len(e["timers"]) == 1 else None
        if g is None or not (g["record_count"] == e["n"] and g["time_ns"] == e["time"] and g["count"] == e["count"]
                             and g["violations"] == e["violations"] and g["ticks_active"] == e["ticks"]
                             and g["peak_ns"] == want_peak and g["first_line"] == e["first"]
                             and g["timer_id"] == timer_id
                             and g["timers"] == len({t for t in e["timers"] if t is not None})
                             and close(g["avg_per_tick_ms"], per_tick(e["time"], head["ticks"]))
                             and close(g["pct_tick"], pct_tick(e["time"], head["ticks"]))
                             and close(g["pct_of_sample"], e["time"] / head["sample"] * 100 if head["sample"] else None)):
            bad.append(k)
    check(not bad, f"{name}: list view figures differ for {bad[:3]}")
    return head, recs, entries


db = connect()
local = ["examples/server_timings.txt"] + sorted(glob.glob("tests/data/timings_*.txt"))
for path in local:
    check_report(db, path)

corpus = []
for sub in ("pmmp", "aikar"):
    d = os.path.join(CORPUS, sub)
    if os.path.isdir(d):
        corpus += [os.path.join(d, f) for f in sorted(os.listdir(d))]
if not corpus:
    skip_part(f"timings corpus reports ({CORPUS} absent)")
for path in corpus:
    name = os.path.basename(path)
    head, recs, entries = check_report(db, path)
    if "tree" in name:
        # tree facts from the corpus README: 321 records, 2 roots, max depth 12, 28 forward parents
        n = len(recs)
        check(n == 321, f"{name}: {n} records, the corpus README says 321")
        roots, depth = db.execute("SELECT count(*) FILTER (WHERE parent_record_id IS NULL), max(depth) FROM records").fetchone()
        check((roots, depth) == (2, 12), f"{name}: roots/max depth {roots}/{depth}, expected 2/12")
        ids = {r["rid"]: i for i, r in enumerate(recs)}
        forward = sum(1 for i, r in enumerate(recs) if r["parent"] != "none" and ids.get(r["parent"], -1) > i)
        check(forward == 28, f"{name}: {forward} forward parent references, README says 28")
        self_ours = sorted(db.execute("SELECT record_id, self_ns FROM records").fetchall())
        check(self_ours == sorted((int(r["rid"]), r["self"]) for r in recs), f"{name}: self_ns differs")
        # a real report: every list entry is exactly one TimerId (the format document's list key)
        multi = db.execute("SELECT count(*) FROM timings_list WHERE timer_id IS NULL OR timers <> 1").fetchone()[0]
        check(multi == 0, f"{name}: {multi} list entries mix TimerIds")
        check(db.execute("SELECT count(*) FROM timings_list").fetchone()[0]
              == db.execute("SELECT count(DISTINCT timer_id) FROM records").fetchone()[0],
              f"{name}: one list entry per TimerId")
    if "addcn14" in name:
        # 'Full Server Tick' (group Minecraft, line 2) and '** Full Server Tick' (group Minecraft -
        # Breakdown, first record on line 3): the viewer's loop ends on the Breakdown entry
        s = rows(db, "SELECT ticks, full_server_tick_ns FROM timings_summary")[0]
        check((s["ticks"], s["full_server_tick_ns"]) == (67, 1130160570), f"{name}: the Breakdown entry gives ticks/load", s)

# ---------------------------------------------------------------- hand-checked figures

def summary(path):
    db.execute("SELECT profile_open(?)", (path,)).fetchone()
    return rows(db, "SELECT * FROM timings_summary")[0]


def diags(path):
    return [r[0] for r in db.execute("SELECT value FROM profile_metadata(?) WHERE scope = 'diagnostic' AND key = 'other'", (path,))]


# timings_list.txt (FormatVersion 2): ticks = Count of Server Tick Update Cycle = 96; sample 5 s:
# TPS = 96 / (5 x 20) x 20 = 19.2; load = 2e9 / 5e9 x 100 = 40 %; Full Server Tick per tick =
# 2e9 / 96 = 20.8333 ms = 41.667 % of 50 ms.
s = summary("tests/data/timings_list.txt")
check((s["ticks"], s["tick_timer"]) == (96, "Server Tick Update Cycle"), "timings_list: ticks from Server Tick Update Cycle", s)
check(close(s["tps"], 19.2) and close(s["server_load_percent"], 40.0), "timings_list: TPS 19.2, load 40 %", s)
r = rows(db, "SELECT avg_per_tick_ms, pct_tick, peak_ns, self_pct_tick FROM timings_records WHERE record_id = 1")[0]
# self = 2e9 - 1.9e9 = 1e8 ns -> 1e8 / 96 / 50e6 x 100 = 2.0833 %
check(close(r["avg_per_tick_ms"], 2e9 / 96 / 1e6) and close(r["pct_tick"], 125 / 3) and r["peak_ns"] == 60000000
      and close(r["self_pct_tick"], 1e8 / 96 / 50e6 * 100), "timings_list: Full Server Tick per tick", r)
# Player Network Send: records 5 (1e8 ns, 500, 0 violations, Peak 1.5e6) and 6 (1.5e8, 700, 1,
# 2.5e6) under different parents, one TimerId 5 -> 2.5e8 ns, 1200, 1, Ticks unknown, Peak 2.5e6
e = rows(db, "SELECT * FROM timings_list WHERE name = 'Player Network Send'")
check(len(e) == 1 and (e[0]["record_count"], e[0]["timer_id"], e[0]["time_ns"], e[0]["count"], e[0]["violations"],
                       e[0]["ticks_active"], e[0]["peak_ns"]) == (2, 5, 250000000, 1200, 1, None, 2500000),
      "timings_list: Player Network Send merged", e)
# the plugin's event, under two parents: group 'Shop v1.2', shown as 'Event: ...', 5e7 ns, 500
e = rows(db, "SELECT group_name, name, time_ns, count, peak_ns FROM timings_list WHERE group_name = 'Shop v1.2'")
check(e == [{"group_name": "Shop v1.2", "name": "Event: shop\\Main->onMove(PlayerMoveEvent)", "time_ns": 50000000,
             "count": 500, "peak_ns": 600000}], "timings_list: the plugin event's entry", e)
e = rows(db, "SELECT group_name, name FROM timings_list WHERE name LIKE '%Chunk Load'")
check(e == [{"group_name": "Minecraft - Breakdown", "name": "Chunk Load"}], "timings_list: '** Chunk Load' shown without '** '", e)
check(diags("tests/data/timings_list.txt") == [], "timings_list: no diagnostic", diags("tests/data/timings_list.txt"))

# timings_no_sample.txt (legacy, no Sample time): 'Full Server Tick' in Minecraft (line 2, 60
# ticks) and '** Full Server Tick' in the Breakdown group (first record line 3, 1.1e9 ns, 55):
# the later group wins -> ticks 55; no sample -> no TPS, load or share of the sample.
s = summary("tests/data/timings_no_sample.txt")
check((s["sample_time_ns"], s["ticks"], s["full_server_tick_ns"], s["tps"], s["server_load_percent"])
      == (None, 55, 1100000000, None, None), "timings_no_sample: summary", s)
r = rows(db, "SELECT pct_tick, pct_of_sample FROM timings_records WHERE line = 2")[0]
check(close(r["pct_tick"], 1.2e9 / 55 / 50e6 * 100) and r["pct_of_sample"] is None, "timings_no_sample: per tick without a sample", r)
d = diags("tests/data/timings_no_sample.txt")
check(len(d) == 1 and d[0].startswith("no 'Sample time <ns> (<s>s)' line"), "timings_no_sample: the missing Sample time diagnostic", d)

# timings_no_minecraft.txt: category 'Server' only -> diagnostic, read anyway (TPS 20 / 1 s = 20, load 50 %)
s = summary("tests/data/timings_no_minecraft.txt")
check(close(s["tps"], 20.0) and close(s["server_load_percent"], 50.0), "timings_no_minecraft: read anyway", s)
d = diags("tests/data/timings_no_minecraft.txt")
check(len(d) == 1 and d[0].startswith("no 'Minecraft' category"), "timings_no_minecraft: the Minecraft diagnostic", d)

# timings_no_format_version.txt: RecordIds, category 'Minecraft ThreadId: 1', no FormatVersion:
# read as version 0 -> the suffix stays in the category (so no 'Minecraft' category either),
# thread_id NULL, Peak as written in profile_records but not shown by the views
s = summary("tests/data/timings_no_format_version.txt")
check((s["format_version"], s["format_version_read"], s["ticks"]) == (None, 0, 18) and close(s["tps"], 18.0)
      and close(s["server_load_percent"], 90.0), "timings_no_format_version: summary", s)
r = rows(db, "SELECT category, group_name, thread_id, plugin, peak_ns FROM records WHERE record_id = 1")[0]
check(r == {"category": "Minecraft ThreadId: 1", "group_name": "Minecraft ThreadId: 1", "thread_id": None,
            "plugin": None, "peak_ns": 80000000}, "timings_no_format_version: category kept whole", r)
check(db.execute("SELECT peak_ns FROM timings_records WHERE record_id = 1").fetchone()[0] is None,
      "timings_no_format_version: the views show no Peak for version 0")
d = diags("tests/data/timings_no_format_version.txt")
check(len(d) == 2 and d[0].startswith("no 'Minecraft' category")
      and d[1].startswith("RecordIds but no '# FormatVersion N' line: read as FormatVersion 0"),
      "timings_no_format_version: the diagnostics", d)

# FormatVersion 3 (timings_edge.txt, LF and CRLF): the suffix moves to thread_id
for path in ("tests/data/timings_edge.txt", "tests/data/timings_edge_crlf.txt"):
    t = db.execute("SELECT group_concat(DISTINCT category || '/' || thread_id) FROM profile_records(?)", (path,)).fetchone()[0]
    check(t == "Minecraft/1,Events/1,Foo v2.0/2", f"{os.path.basename(path)}: categories and thread ids", t)
    check(diags(path) == [], f"{os.path.basename(path)}: no 'other' diagnostic", diags(path))
for path in ["examples/server_timings.txt"] + corpus:
    d = [x for x in diags(path) if x.startswith(("no 'Minecraft'", "no 'Sample time", "RecordIds but no"))]
    check(d == [], f"{os.path.basename(path)}: none of the new diagnostics", d)

# the version line as the viewer matches it: case-insensitive, anywhere (a BLOB, file NULL);
# '#  FormatVersion 3' (two blanks) or '# FormatVersion 3x' is no version line
body = "Minecraft ThreadId: 7\n    Full Server Tick Time: 100 Count: 2 Violations: 0 RecordId: 1 ParentRecordId: none TimerId: 1 Ticks: 2 Peak: 60\n"
for footer, want in (("# formatversion 3\n", (7, 3, 60)), ("# FormatVersion 2\r\n", (None, 2, 60)),
                     ("#  FormatVersion 3\n", (None, 0, None)), ("# FormatVersion 3x\n", (None, 0, None))):
    blob = (footer + body + "Sample time 1000 (0.000001s)\n").encode()
    db.execute("SELECT profile_open(?)", (blob,)).fetchone()
    got = db.execute("SELECT r.thread_id, s.format_version_read, t.peak_ns FROM records r, timings_summary s, timings_records t").fetchone()
    check(got == want, f"version line {footer!r}: thread_id / version read / peak shown", got)
    check(db.execute("SELECT file FROM timings_summary").fetchone()[0] is None, f"version line {footer!r}: a BLOB's file is NULL")

# hostile Time values: two 'Full Server Tick' records of 9e18 ns sum beyond int64. The reader
# leaves the timer out (a diagnostic, not "no 'Full Server Tick' record"), the summary has no
# tick figures, the list view still reads (a REAL sum, 1.8e19) instead of "integer overflow"
big = ("Minecraft\n" + "    Full Server Tick Time: 9000000000000000000 Count: 1 Violations: 0\n" * 2
       + "Sample time 1000 (0.000001s)\n").encode()
db.execute("SELECT profile_open(?)", (big,)).fetchone()
d = [r[0] for r in db.execute("SELECT value FROM metadata WHERE scope = 'diagnostic' AND key = 'other'")]
check(d == ["'Full Server Tick': Time or Count summed over its records is outside int64; no figure from it"],
      "overflow: the reader's diagnostic", d)
got = db.execute("SELECT ticks, tps, server_load_percent, full_server_tick_ns FROM timings_summary").fetchone()
check(got == (None, None, None, None), "overflow: no tick figures in the summary", got)
got = db.execute("SELECT time_ns, typeof(time_ns), count, record_count FROM timings_list").fetchone()
check(got == (1.8e19, "real", 2, 2), "overflow: the list view sums as REAL", got)
check(db.execute("SELECT count(*) FROM timings_records").fetchone()[0] == 2, "overflow: timings_records reads")

# several reports at once (a glob): one summary row per file, each as when opened alone
files = sorted(glob.glob("tests/data/timings_*.txt"))
alone = {}
for p in files:
    db.execute("SELECT profile_open(?)", (p,)).fetchone()
    alone[p] = (rows(db, "SELECT * FROM timings_summary")[0], sorted(db.execute("SELECT * FROM timings_list").fetchall(), key=repr))
db.execute("SELECT profile_open('tests/data/timings_*.txt', 'g_')").fetchone()
together = {r["file"]: r for r in rows(db, "SELECT * FROM g_timings_summary")}
check(set(together) == set(files), "glob: one summary row per report", sorted(together))
for p in files:
    check(together.get(p) == alone[p][0], f"glob: {p} summary as when opened alone", together.get(p))
    lst = sorted(db.execute("SELECT * FROM g_timings_list WHERE file = ?", (p,)).fetchall(), key=repr)
    check(lst == alone[p][1], f"glob: {p} list view as when opened alone")
# a glob of other captures: the views exist and are empty
db.execute("SELECT profile_open('examples/*.json', 'o_')").fetchone()
check(db.execute("SELECT (SELECT count(*) FROM o_timings_summary) + (SELECT count(*) FROM o_timings_list)"
                 " + (SELECT count(*) FROM o_timings_records)").fetchone()[0] == 0, "a glob without timings reports: empty views")
done()
