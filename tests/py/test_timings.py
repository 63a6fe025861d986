"""Timings corpus test: every report in ../shared/corpus/pmmp and ../shared/corpus/aikar loads
through profile_records, and its record count, time per category, ticks, average TPS and server
load % match an independent computation that applies the pmmp/timings viewer's regular
expressions (quoted in shared/corpus/README.md) with Python's re module:
  record  ^(.+?) Time: (\\d+) Count: (\\d+)(?: Avg: ([\\d\\.]+))? Violations: (\\d+)(?: RecordId: ...)?$
  sample  ^Sample time (\\d+) \\(([\\d.]+s)\\)$  (case-insensitive, multi-line, any CRLF)
  ticks   Count of 'Server Tick Update Cycle', else 'Full Server Tick' (without '** ' prefix)
  TPS     ticks / sample seconds;  load %  Full Server Tick time / sample time x 100
The Spigot <spigotConfig> block is cut out first, as the Spigot viewer does.
Skips when ../shared/corpus is absent. Prints "RESULT <passed> <failed>" last."""
import os
import re
import sqlite3

from testlib import check, connect, done, skip

CORPUS = os.path.join("..", "shared", "corpus")
RECORD = re.compile(r"^(.+?) Time: (\d+) Count: (\d+)(?: Avg: ([\d\.]+))? Violations: (\d+)"
                    r"(?: RecordId: (\d+) ParentRecordId: (\d+|none) TimerId: (\d+)(?: Ticks: (\d+) Peak: (\d+))?)?$")
SAMPLE = re.compile(r"^Sample time (\d+) \(([\d.]+s)\)\r?$", re.I | re.M)   # ANYCRLF, as the viewer

files = []
for sub in ("pmmp", "aikar"):
    d = os.path.join(CORPUS, sub)
    if os.path.isdir(d):
        files += [os.path.join(d, f) for f in sorted(os.listdir(d))]
if not files:
    skip(f"timings corpus: {CORPUS} not found")

db = connect()

for path in files:
    name = os.path.basename(path)
    text = open(path, encoding="utf-8", newline="").read()
    text = re.sub(r"<spigotConfig>.*?</spigotConfig>", "", text, flags=re.S)
    records, per_cat, cat = [], {}, None
    for raw in text.split("\n"):
        line = raw.strip("\r\n")
        if not line:
            continue
        if line[0] not in " #":
            if SAMPLE.match(line):
                continue
            cat = line
            continue
        if line[0] == " ":
            m = RECORD.match(line)
            if m:
                records.append((m.group(1).strip(), int(m.group(2)), int(m.group(3)), m.group(6), m.group(7)))
                per_cat[cat] = per_cat.get(cat, 0) + int(m.group(2))
    try:
        n = db.execute("SELECT count(*) FROM profile_records(?)", (path,)).fetchone()[0]
    except sqlite3.Error as e:
        check(False, f"{name}: does not load: {e}")
        continue
    check(n == len(records), f"{name}: {n} records, the viewer's regex finds {len(records)}")
    ours = dict(db.execute("SELECT category, sum(time_ns) FROM profile_records(?) GROUP BY category", (path,)))
    check(ours == per_cat, f"{name}: time per category {ours} != {per_cat}")

    def timer(nm):
        plain = [r for r in records if r[0] == nm]
        starred = [r for r in records if r[0] == "** " + nm]
        return (plain or starred or [None])[0]
    sm = SAMPLE.search(text)
    sample_ns = int(sm.group(1))
    ticks_rec = timer("Server Tick Update Cycle") or timer("Full Server Tick")
    full = timer("Full Server Tick")
    meta = dict(((r[0], r[1]), r[2]) for r in db.execute("SELECT scope, key, value FROM profile_metadata(?)", (path,)))
    check(meta.get(("report", "sample_time_ns")) == sample_ns, f"{name}: sample time {meta.get(('report', 'sample_time_ns'))}")
    check(meta.get(("derived", "ticks")) == ticks_rec[2], f"{name}: ticks {meta.get(('derived', 'ticks'))} != {ticks_rec[2]}")
    tps = ticks_rec[2] / (sample_ns / 1e9)
    load = full[1] / sample_ns * 100
    check(abs(meta.get(("derived", "average_tps"), -1) - tps) < 1e-9, f"{name}: TPS {meta.get(('derived', 'average_tps'))} != {tps}")
    check(abs(meta.get(("derived", "server_load_pct"), -1) - load) < 1e-9, f"{name}: load {meta.get(('derived', 'server_load_pct'))} != {load}")
    if "tree" in name:
        # tree facts from the corpus README: 321 records, 2 roots, max depth 12, 28 forward parents
        check(n == 321, f"{name}: {n} records, the corpus README says 321")
        roots, depth = db.execute("SELECT count(*) FILTER (WHERE parent_record_id IS NULL), max(depth) "
                                  "FROM profile_records(?)", (path,)).fetchone()
        check((roots, depth) == (2, 12), f"{name}: roots/max depth {roots}/{depth}, expected 2/12")
        ids = {r[3]: i for i, r in enumerate(records)}
        forward = sum(1 for i, r in enumerate(records) if r[4] != "none" and ids.get(r[4], -1) > i)
        check(forward == 28, f"{name}: {forward} forward parent references, README says 28")
        missing = db.execute("SELECT count(*) FROM profile_records(?) c WHERE parent_record_id IS NOT NULL AND depth IS NULL",
                             (path,)).fetchone()[0]
        check(missing == 0, f"{name}: {missing} records left out of the tree")
        # self time = time - children's time, computed here from the parsed lines
        child = {}
        for r in records:
            if r[4] != "none":
                child[r[4]] = child.get(r[4], 0) + r[1]
        self_py = sorted((int(r[3]), r[1] - child.get(r[3], 0)) for r in records)
        self_ours = sorted(db.execute("SELECT record_id, self_ns FROM profile_records(?)", (path,)).fetchall())
        check(self_py == self_ours, f"{name}: self_ns differs")
done()
