"""profile_flamegraph: the SVG's frames against sums computed here from the relational rows
(profile_events / profile_records: self = dur minus the children's dur), and rendered in headless
Chromium (Debian's chromium) where a script measures the widest first-level frame with getBBox."""
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
    """(title name, ms, y, width) of every frame."""
    out = []
    for g in ET.parse(path).getroot().iter(NS + "g"):
        t = g.find(NS + "title").text
        r = g.find(NS + "rect")
        name, rest = t.rsplit(" — ", 1)
        out.append((name, float(rest.split(" ms")[0]), float(r.get("y")), float(r.get("width"))))
    return out


def widest_at(fr, y):
    level = [f for f in fr if abs(f[2] - y) < 0.5]
    return max(level, key=lambda f: f[3])


trace = "examples/browser_trace.json"
rows = db.execute("SELECT id, parent_id, name, dur, process_name, thread_name, track FROM profile_events(?) "
                  "WHERE dur IS NOT NULL AND ph IN ('X','B','b')", (trace,)).fetchall()
track_name = {int(k): v for k, v in db.execute("SELECT key, value FROM profile_metadata(?) WHERE scope = 'track'", (trace,))}
child = defaultdict(int)
kids = defaultdict(list)
for i, p, n, d, pn, tn, tr in rows:
    if p is not None:
        child[p] += d
        kids[p].append(i)
selfns = {i: max(d - child[i], 0) for i, p, n, d, pn, tn, tr in rows}
total = sum(selfns.values())
by = {i: (p, n, pn, tn) for i, p, n, d, pn, tn, tr in rows}
per_track = defaultdict(int)             # "process / thread", or "process / async cat=.. id=.."
for i, p, n, d, pn, tn, tr in rows:
    label = track_name[tr] if not track_name[tr].startswith("thread ") else tn
    per_track[f"{pn} / {label}"] += selfns[i]


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
      f"per thread (async under its thread): widest thread frame {top[:2]} == {want_thread} {per_thread[want_thread] / 1e6:.3f}")
db.execute("SELECT profile_flamegraph(?, ?, '{\"group\": \"none\", \"title\": \"merged\"}')", (trace, os.path.join(tmp, "m.svg"))).fetchone()
fm = frames(os.path.join(tmp, "m.svg"))
top = widest_at(fm, 51)
want_root = max(roots, key=roots.get)
check(top[0] == want_root and abs(top[1] - roots[want_root] / 1e6) < 0.0015,
      f"merged: widest root frame {top[:2]} == {want_root} {roots[want_root] / 1e6:.3f}")
check(sum(f[1] for f in fm if abs(f[2] - 51) < 0.5) - total / 1e6 < 0.01, "root frames add up to the total")
svg = open(os.path.join(tmp, "m.svg")).read()
check("http" not in svg.replace("http://www.w3.org/2000/svg", "") and "<script" not in svg, "self-contained: no link, no script")
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
    ("SELECT profile_flamegraph(?, ?)", ("tests/data/jobs_report.json", os.path.join(tmp, "x.svg")),
     "profile_flamegraph: the capture has no parent tree (no slices or timer records)"),
    ("SELECT profile_flamegraph(?, ?, 'bad')", (trace, os.path.join(tmp, "x.svg")),
     "profile_flamegraph: options_json must be an object like {\"group\": \"track\"|\"thread\"|\"none\", \"title\": \"...\"}"),
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
done()
