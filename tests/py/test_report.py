"""profile_jobs and profile_report against independent sources:
- the real StarProfiler report of ../shared/corpus/newengine: the twelve CSVs it wrote in the
  same run must come out byte-identical, and the JSON summary/analysis numbers must match the
  real report's (read with Python's json module);
- the jobs CSV read on its own reproduces itself;
- a hand-made report exercising the writer's fall-back rules (values computed by hand below);
- a Chrome trace: the report's category totals equal sums computed from the JSON with Python;
- the ranked job lists (sorted once) hold in the JSON and the Markdown the jobs an independent
  query of profile_jobs ranks first, for top_limit 0, 3 and the default;
- archives pass zipfile's CRC test and keep the writer's member order; failed writes leave the
  previous files alone; the writers are refused inside a view (SQLITE_DIRECTONLY)."""
import collections
import json
import math
import io
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import zipfile

from testlib import check, connect, done, skip_part

CORPUS = "../shared/corpus/newengine"
KINDS = ["jobs", "categories", "sources", "top_offenders", "active_jobs", "diagnostics",
         "timeline", "methods", "budget_violations", "lanes", "first", "frame_budget"]

db = connect()


def report(src, opts=None):
    out = tempfile.mkdtemp(prefix="profsql-report-")
    if opts is None:
        man = db.execute("SELECT profile_report(?, ?)", (src, out)).fetchone()[0]
    else:
        man = db.execute("SELECT profile_report(?, ?, ?)", (src, out, opts)).fetchone()[0]
    return out, json.loads(man)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def close(a, b):
    return math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)


# ---------------------------------------------------------------- the real report
if os.path.isdir(CORPUS):
    real_path = os.path.join(CORPUS, "profiler_report_latest.json")
    real = json.load(open(real_path))
    out, man = report(real_path)
    for k in KINDS:
        ours = read(os.path.join(out, f"profiler_{k}_latest.csv"))
        theirs = read(os.path.join(CORPUS, f"profiler_{k}_latest.csv"))
        check(ours == theirs, f"corpus: profiler_{k}_latest.csv byte-identical")

    mine = json.load(open(os.path.join(out, "profiler_report_latest.json")))
    rs, ms = real["summary"], mine["summary"]
    for key in ["total_elapsed_ms", "average_elapsed_ms", "max_elapsed_ms"]:
        check(close(ms[key], rs[key]), f"summary.{key} {ms[key]} == {rs[key]}")
    for key in ["completed_jobs_kept", "failed_jobs", "slow_or_over_budget_jobs", "over_budget_jobs",
                "active_jobs", "total_payload_bytes", "total_output_bytes"]:
        check(ms[key] == rs[key], f"summary.{key} {ms[key]} == {rs[key]}")
    for p in ["p50", "p90", "p95", "p99"]:
        check(close(ms["elapsed_percentiles_ms"][p], rs["elapsed_percentiles_ms"][p]), f"elapsed {p}")
        check(close(ms["load_percentiles"][p], rs["load_percentiles"][p]), f"load {p}")
    check(ms["by_status"] == rs["by_status"], "summary.by_status")
    for cat, v in rs["by_category"].items():
        mv = ms["by_category"].get(cat, {})
        check(all(close(mv.get(f, -1), v[f]) for f in v), f"summary.by_category[{cat}]")
    check(ms["profiler_first"] == rs["profiler_first"], "summary.profiler_first")
    ra, ma = real["analysis"], mine["analysis"]
    for lst in ["top_offenders_by_total_elapsed", "by_method_ranked", "by_source_ranked",
                "by_owner_ranked", "by_lane_ranked"]:
        check(len(ma[lst]) == len(ra[lst]), f"analysis.{lst} length")
        ok = all(a["key"] == b["key"] and a["count"] == b["count"] and close(a["total_elapsed_ms"], b["total_elapsed_ms"])
                 and close(a["total_share_percent"], b["total_share_percent"]) and close(a["max_load"], b["max_load"])
                 for a, b in zip(ma[lst], ra[lst]))
        check(ok, f"analysis.{lst} keys and numbers")
    check(ma["worst_offender"]["key"] == ra["worst_offender"]["key"], "analysis.worst_offender")
    check([c["category"] for c in ma["by_category_ranked"]] == [c["category"] for c in ra["by_category_ranked"]],
          "analysis.by_category_ranked order")
    for lst in ["top_completed_jobs_by_elapsed", "top_completed_jobs_by_load", "budget_violations",
                "frame_budget_violations"]:
        check([j["id"] for j in ma[lst]] == [j["id"] for j in ra[lst]], f"analysis.{lst} ids")

    # the archive: CRCs, the writer's member order, the manifest returned == the member
    zpath = os.path.join(out, man["archive"])
    with zipfile.ZipFile(zpath) as z:
        check(z.testzip() is None, "archive CRCs")
        names = z.namelist()
        stamp = man["archive"][len("profiler_report_"):-len(".zip")]
        want = ["manifest.json", f"profiler_report_{stamp}.json", "profiler_report_latest.json",
                f"profiler_report_{stamp}.md", "profiler_report_latest.md"]
        for k in KINDS:
            want += [f"profiler_{k}_{stamp}.csv", f"profiler_{k}_latest.csv"]
        check(names == want, f"archive member order {names[:6]}")
        check(json.loads(z.read("manifest.json")) == man, "manifest member == returned manifest")
        check(z.read("profiler_jobs_latest.csv") == read(os.path.join(CORPUS, "profiler_jobs_latest.csv")),
              "archive holds the same jobs CSV")
    if shutil.which("unzip"):
        r = subprocess.run(["unzip", "-t", zpath], capture_output=True, text=True)
        check(r.returncode == 0 and "No errors detected" in r.stdout, "unzip -t passes")
    # read back through the archive (manifest.json -> entries.json): the same twelve CSVs again
    out3, _ = report(zpath, '{"write_archive": false}')
    for k in KINDS:
        check(read(os.path.join(out3, f"profiler_{k}_latest.csv")) == read(os.path.join(CORPUS, f"profiler_{k}_latest.csv")),
              f"report -> archive -> report: profiler_{k}_latest.csv byte-identical")
    member = db.execute("SELECT value FROM profile_metadata(?) WHERE key='archive_member'", (zpath,)).fetchone()[0]
    check(member == man["entries"]["json"], f"archive member read: {member}")
    check(len(stamp) == len("20260821_121917_004Z") and stamp.endswith("Z"), f"stamp {stamp}")
    check(man["schema"] == "newengine.profiler.report_archive.manifest.v2", "manifest schema")
    check(man["latest"]["flamegraph"] is None, "a newengine report has no tree: no flame graph")
    md = open(os.path.join(out, "profiler_report_latest.md"), encoding="utf-8").read()
    heads = [l for l in md.splitlines() if l.startswith("## ")]
    check(heads[0] == "## Quick answer — кто жрёт время" and "## Active jobs" == heads[-1], f"markdown sections {heads}")
    check("starVault-assetManager-3.5.2-release.dll` — 8.220000 ms total, 19.7%" in md, "quick answer names the worst offender")

    # profile_jobs from the JSON against Python's json, per job
    rows = db.execute("SELECT id, lane, frame_id, load, load_percent, started_unix_ms, detail, job_list "
                      "FROM profile_jobs(?)", (real_path,)).fetchall()
    check(len(rows) == len(real["completed_jobs"]) + len(real["active_jobs"]), "one row per job")
    j0 = real["completed_jobs"][0]
    check(rows[0][:2] == (j0["id"], j0["lane"]), "first job id/lane")
    check(rows[0][2] == "null", "frame_id: a JSON null under /metadata is the text 'null'")
    ev = [r for r in rows if r[0] == "profiler-local-1"][0]
    check(ev[2] is None, "frame_id: absent everywhere is NULL")
    check(close(rows[0][3], j0["load"]) and close(rows[0][4], j0["load"] * 100), "load, load_percent")
    check(rows[0][5] == j0["started_unix_ms"] and isinstance(rows[0][5], int), "started_unix_ms INTEGER")

    # the jobs CSV read on its own writes itself again
    jobs_csv = os.path.join(CORPUS, "profiler_jobs_latest.csv")
    out2, _ = report(jobs_csv, '{"write_archive": false}')
    check(read(os.path.join(out2, "profiler_jobs_latest.csv")) == read(jobs_csv), "jobs CSV round trip")
    check(read(os.path.join(out2, "profiler_categories_latest.csv")) == read(os.path.join(CORPUS, "profiler_categories_latest.csv")),
          "categories from the jobs CSV alone")
    check(not any(f.endswith(".zip") for f in os.listdir(out2)), "write_archive false: no archive")
    check(any(f.startswith("profiler_report_2") and f.endswith(".json") for f in os.listdir(out2)),
          "write_archive false: dated files written loose")
    fmt = db.execute("SELECT value FROM profile_metadata(?) WHERE scope='capture' AND key='format'", (jobs_csv,)).fetchone()[0]
    check(fmt == "newengine", "the jobs CSV is detected by content")
else:
    skip_part("corpus checks: ../shared/corpus/newengine is absent (the corpus ships beside the repository, not in it)")

# ---------------------------------------------------------------- hand-made report: fall-backs
hand = {
    "schema": "newengine.profiler.report.v3",
    "run": {"started_unix_ms": 1000},
    "completed_jobs": [
        {"id": "a", "status": "completed", "category": "c1", "source": "s", "name": "n1",
         "elapsed_ms": 20.0, "budget_ms": 10.0, "load": 2.0, "lane": "",
         "started_unix_ms": 1005, "ended_unix_ms": 1025, "payload_bytes": 7,
         "metadata": {"event": {"lane": "from-event"}, "frame_id": 5, "method": "tick",
                      "service_id": "svc"}},
        {"id": "b", "status": "failed", "category": "c1", "source": "s", "name": "n2",
         "elapsed_ms": 1.5, "budget_ms": 16.67, "load": 0.09, "lane": None, "error": "x, \"y\"",
         "metadata": {"metadata": {"lane": "deep", "priority": None}}},
    ],
    "active_jobs": [
        {"id": "z", "status": "running", "category": "c2", "source": "s2", "name": "long",
         "active_elapsed_ms": 40.0, "budget_ms": 16.0, "current_load": 2.5, "started_unix_ms": 1001}
    ],
    "diagnostics": [{"at_unix_ms": 1002, "level": "warn", "code": "k", "job_id": "a", "message": "m"}],
}
blob = json.dumps(hand).encode()
out, man = report(blob, '{"write_archive": false, "write_markdown": false}')
jobs = open(os.path.join(out, "profiler_jobs_latest.csv")).read().splitlines()
a = jobs[1].split(",")
check(a[4] == "from-event", f"lane '' falls back to /metadata/event/lane: {a[4]}")
check(a[7] == "5.000", f"frame_id number printed %.3f: {a[7]}")
check(a[15:18] == ["2.000000", "200.000", "true"], f"load, load_percent, over_budget {a[15:18]}")
check(a[27:30] == ["1005.000", "1025.000", "7.000"], f"started/ended/payload {a[27:30]}")
check(a[31:33] == ["svc", "tick"], f"service_id, method {a[31:33]}")
check(jobs[2].split(",")[4] == "deep" and jobs[2].split(",")[5] == "null", "lane null -> /metadata/metadata/lane; priority JSON null -> 'null'")
check(jobs[2].endswith(',"x, ""y""",'), f"error cell quoted RFC 4180: {jobs[2][-20:]}")
methods = open(os.path.join(out, "profiler_methods_latest.csv")).read().splitlines()
check(methods[1].startswith("1,svc::tick,c1,s,n1,1,0,1,20.000000,93.023256,"), f"methods row {methods[1]}")
check(methods[2].startswith("2,s:c1::<no-method>,c1,s,n2,1,1,0,1.500000,6.976744,"), f"methods row 2 {methods[2]}")
bv = open(os.path.join(out, "profiler_budget_violations_latest.csv")).read().splitlines()
check(len(bv) == 2 and bv[1].startswith("1,a,completed"), "one budget violation (load 2.0)")
act = open(os.path.join(out, "profiler_active_jobs_latest.csv")).read().splitlines()
check(len(act) == 2 and ",40.000000,16.000000,,2.500000,250.000,true," in act[1], f"active job row {act[1]}")
tl = open(os.path.join(out, "profiler_timeline_latest.csv")).read().splitlines()
check(tl[1].split(",")[5:7] == ["5", "25"], f"timeline offsets from run.started_unix_ms {tl[1]}")
diag = open(os.path.join(out, "profiler_diagnostics_latest.csv")).read().splitlines()
check(diag[1] == "1002.000,warn,k,a,m", f"diagnostics row {diag[1]}")
check(not os.path.exists(os.path.join(out, "profiler_report_latest.md")), "write_markdown false")
owners = dict(db.execute("SELECT id, owner FROM profile_jobs(?)", (blob,)).fetchall())
check(owners == {"a": "svc", "b": "s:c1", "z": "s2:c2"}, f"owner keys {owners}")
hand_file = "tests/data/jobs_report.json"
own2 = db.execute("SELECT group_concat(owner || '/' || ifnull(method_name, '-'), ' ') FROM profile_jobs(?)", (hand_file,)).fetchone()[0]
check(own2 == "engine.io:io/- render.api/tick engine.render:render/- plugin:p/-", f"owner/method_name {own2}")
out, _ = report(hand_file, '{"write_archive": false, "max_recent_jobs": 2}')
mj = json.load(open(os.path.join(out, "profiler_report_latest.json")))
cats = open(os.path.join(out, "profiler_categories_latest.csv")).read().splitlines()
check([j["id"] for j in mj["completed_jobs"]] == ["b", "c"] and sum(int(l.split(",")[2]) for l in cats[1:]) == 3,
      "max_recent_jobs keeps the last jobs in the JSON, the CSVs count all")
# budgets_ms override: c1 at 100 ms -> job a load 0.2, no violation
out, _ = report(blob, '{"write_archive": false, "budgets_ms": {"c1": 100}}')
bv = open(os.path.join(out, "profiler_budget_violations_latest.csv")).read().splitlines()
check(len(bv) == 2 and bv[1].split(",")[16] == "0.200000", f"budgets_ms override recomputes load {bv[1:]}")
out, _ = report(blob, '{"write_archive": false, "budgets_ms": {"c1": 100}, "slow_job_warn_ms": 50}')
bv = open(os.path.join(out, "profiler_budget_violations_latest.csv")).read().splitlines()
check(len(bv) == 1, "slow_job_warn_ms option: no violation left")

# ---------------------------------------------------------------- a Chrome trace
trace = "examples/browser_trace.json"
doc = json.load(open(trace))
evs = doc["traceEvents"] if isinstance(doc, dict) else doc
n_jobs = db.execute("SELECT count(*) FROM profile_jobs(?)", (trace,)).fetchone()[0]
# a job per complete slice on a thread's own track: X with dur, B/E pairs (Python's json, matched by
# name per thread); async b/e spans are not jobs (they overlap the thread's work)
n_slices = sum(1 for e in evs if e.get("ph") == "X" and "dur" in e)
open_b = collections.defaultdict(list)
for e in sorted((e for e in evs if e.get("ph") in ("B", "E")), key=lambda e: e["ts"]):
    k = (e.get("pid"), e.get("tid"))
    if e["ph"] == "B":
        open_b[k].append(e.get("name"))
    elif open_b[k]:
        open_b[k].pop()
        n_slices += 1
n_async = sum(1 for e in evs if e.get("ph") == "b")
check(n_jobs == n_slices and n_jobs > 0 and n_async > 0,
      f"one job per complete thread-track slice, none per async span ({n_jobs} == {n_slices}; {n_async} async)")
outf, manf = report(trace)
check(manf["latest"]["flamegraph"] == "profiler_flamegraph_latest.svg"
      and os.path.getsize(os.path.join(outf, "profiler_flamegraph_latest.svg")) > 1000, "a Chrome report includes the flame graph")
with zipfile.ZipFile(os.path.join(outf, manf["archive"])) as z:
    check(z.namelist()[-2:] == [manf["entries"]["flamegraph"], "profiler_flamegraph_latest.svg"],
          "the flame graph members come last in the archive")
xonly = json.dumps([e for e in evs if e.get("ph") == "X"]).encode()
out, _ = report(xonly, '{"write_archive": false}')
cats = {}
for line in open(os.path.join(out, "profiler_categories_latest.csv")).read().splitlines()[1:]:
    f = line.split(",")
    cats[f[1]] = float(f[5])
want = {}
for e in evs:
    if e.get("ph") == "X":
        want[e.get("cat", "chrome")] = want.get(e.get("cat", "chrome"), 0.0) + e["dur"] / 1000.0
check(all(abs(cats.get(c, -1) - v) < 5e-7 for c, v in want.items()) and want.keys() == cats.keys(),
      f"chrome: category totals (X events) {sorted(want.items())[:3]} vs {sorted(cats.items())[:3]}")

# The ranked job lists are sorted once and read by the JSON and the CSVs (their first top_limit)
# and by the Markdown's tables (their first 16): with top_limit 0, 3 and the default, each reader
# holds the jobs an independent query of profile_jobs ranks first (elapsed_ms desc, name, row).
want16 = [r[0] for r in db.execute(
    "SELECT id FROM profile_jobs(?) WHERE job_list='completed_jobs' "
    "ORDER BY ifnull(elapsed_ms,0.0) DESC, ifnull(name,''), rowid LIMIT 16", (trace,))]
for top in [0, 3, None]:
    opts = {"write_archive": False} if top is None else {"write_archive": False, "top_limit": top}
    o, _ = report(trace, json.dumps(opts))
    md = open(os.path.join(o, "profiler_report_latest.md")).read()
    sec = md.split("## Slowest slices\n", 1)[1].split("\n## ", 1)[0]
    ids = [l.split("|")[2].strip() for l in sec.splitlines() if l.startswith("| ") and not l.startswith("| Rank")]
    check(ids == want16, f"top_limit {top}: the Markdown's slowest slices are the 16 slowest jobs {ids[:4]} vs {want16[:4]}")
    js = json.load(open(os.path.join(o, "profiler_report_latest.json")))
    n = 64 if top is None else top
    got = [j["id"] for j in js["analysis"]["top_completed_jobs_by_elapsed"]]
    want = [r[0] for r in db.execute(
        "SELECT id FROM profile_jobs(?) WHERE job_list='completed_jobs' "
        "ORDER BY ifnull(elapsed_ms,0.0) DESC, ifnull(name,''), rowid LIMIT ?", (trace, n))]
    check(got == want, f"top_limit {top}: the JSON's top_completed_jobs_by_elapsed holds the first {n} ({len(got)} jobs)")

# The four ranked lists are picked in C from the groupings' scan: their order must be SQLite's
# ORDER BY's, checked here against Python's sort: times an ulp apart, equal times broken by name
# (NULL as '', then byte order: 'A' < 'a' < 'a\u00e9' < 'b') and then by row, loads and frame
# overruns with ties. (A report's elapsed_ms are reals, integers in the JSON too.) A report JSON
# of its own, in a temporary file.
jobs = []
vals = [5, 5.0, 5.000000000000001, 4.999999999999999, 9007199254740993, 9007199254740992.0,
        9007199254740992, 0, 0.0, 7.25, 7.25, 7.25, 1, 1.0, 16.67, 3]
for i in range(48):
    e = vals[i % len(vals)]
    job = {"id": "j%02d" % i, "elapsed_ms": e, "category": "c%d" % (i % 3),
           "load": [0.5, 1, 1.0, 2.5, 0.25][i % 5], "budget_ms": 4.0,
           "exceeded_frame_budget": i % 4 == 0, "frame_budget_ms": [2, 2.0, 7.25, None][i % 4]}
    if i % 7:
        job["name"] = ["b", "a", "a\u00e9", "A", ""][i % 5]
    if job["frame_budget_ms"] is None:
        del job["frame_budget_ms"]
    jobs.append(job)
tmpd = tempfile.mkdtemp(prefix="profsql-lists-")
rp = os.path.join(tmpd, "lists_report.json")
with open(rp, "w") as f:
    json.dump({"schema": "newengine.profiler.report.v3", "analysis": {}, "active_jobs": [], "completed_jobs": jobs}, f)
rows = db.execute("SELECT rowid, id, name, elapsed_ms, load, frame_budget_ms, exceeded_frame_budget FROM profile_jobs(?) "
                  "WHERE job_list='completed_jobs'", (rp,)).fetchall()
check(len(rows) == 48 and len({r[3] for r in rows}) == 9, "lists: the report's 48 jobs and their 9 distinct times")


def ekey(r):
    return r[3] if r[3] is not None else 0.0


def lkey(r):
    return r[4] if r[4] is not None else 0.0


def over(r):
    d = ekey(r) - (r[5] if r[5] is not None else 0.0)
    return d if d > 0.0 else 0.0


def nm(r):
    return (r[2] or "").encode()


for top in [3, 64, 5000]:     # (5000: beyond the heaps' cap, max(4096, jobs / 32): SQL sorts)
    o, _ = report(rp, json.dumps({"write_archive": False, "top_limit": top, "slow_job_warn_ms": 5}))
    js = json.load(open(os.path.join(o, "profiler_report_latest.json")))["analysis"]
    want = {
        "budget_violations": sorted([r for r in rows if lkey(r) >= 1.0 or ekey(r) >= 5],
                                    key=lambda r: (-lkey(r), -ekey(r), nm(r), r[0])),
        "frame_budget_violations": sorted([r for r in rows if r[6]], key=lambda r: (-over(r), -ekey(r), nm(r), r[0])),
        "top_completed_jobs_by_elapsed": sorted(rows, key=lambda r: (-ekey(r), nm(r), r[0])),
        "top_completed_jobs_by_load": sorted(rows, key=lambda r: (-lkey(r), nm(r), r[0])),
    }
    for key, w in want.items():
        got = [j["id"] for j in js[key]]
        check(got == [r[1] for r in w[:top]], f"lists, top_limit {top}: {key} in SQLite's order {got[:6]} vs {[r[1] for r in w[:6]]}")
shutil.rmtree(tmpd, ignore_errors=True)

# The source read from a TEMP table by the caller's own statement: the report's temp tables
# cannot be dropped then (SQLITE_LOCKED); they are emptied instead of keeping a row per job until
# the connection closes, and a second report in the same state gives the same files.
dbt = connect()
dbt.execute("CREATE TEMP TABLE src(b BLOB)")
dbt.execute("INSERT INTO src VALUES (?)", (open(trace, "rb").read(),))
outs = []
for _ in range(2):
    o = tempfile.mkdtemp(prefix="profsql-report-")
    dbt.execute("SELECT profile_report(b, ?, '{\"write_archive\": false}') FROM temp.src", (o,)).fetchone()
    outs.append(o)
left = [r[0] for r in dbt.execute("SELECT name FROM temp.sqlite_schema WHERE type='table' AND name LIKE 'profsql%'")]
rows = {t: dbt.execute(f'SELECT count(*) FROM temp."{t}"').fetchone()[0] for t in left}
check(left and all(n == 0 for n in rows.values()), f"report over a TEMP table: its tables left empty {rows}")
check(all(read(os.path.join(outs[0], f)) == read(os.path.join(outs[1], f)) for f in os.listdir(outs[0]) if f.endswith("_latest.csv")),
      "report over a TEMP table: the second run writes the same CSVs")
dbt.close()

# ---------------------------------------------------------------- safety
tmp = tempfile.mkdtemp(prefix="profsql-safe-")
target = os.path.join(tmp, "keep.csv")
open(target, "w").write("precious\n")
try:
    db.execute("SELECT profile_write_csv(?, 'SELECT no_such_column FROM sqlite_master')", (target,)).fetchone()
    check(False, "a failing query is an error")
except sqlite3.OperationalError as e:
    check("profile_write_csv: no such column: no_such_column" in str(e), f"error text: {e}")
check(open(target).read() == "precious\n", "a failed write leaves the previous file untouched")
check(not [f for f in os.listdir(tmp) if ".tmp." in f], "no temporary file left behind")
n = db.execute("SELECT profile_write_csv(?, 'SELECT 1 AS a, ''x,y'' AS b, NULL AS c')", (target,)).fetchone()[0]
check(n == 1 and open(target).read() == 'a,b,c\n1,"x,y",\n', "profile_write_csv writes RFC 4180")
md = os.path.join(tmp, "t.md")
db.execute("SELECT profile_write_markdown(?, 'SELECT ''a|b'' AS x')", (md,)).fetchone()
check(open(md).read() == "| x |\n|---|\n| a\\|b |\n", "profile_write_markdown escapes |")
zp = os.path.join(tmp, "a.zip")
check(db.execute("SELECT profile_zip(?, ?, ?)", (zp, target, md)).fetchone()[0] == 2, "profile_zip count")
with zipfile.ZipFile(zp) as z:
    check(z.namelist() == ["keep.csv", "t.md"] and z.read("t.md") == read(md), "profile_zip members")
for sql, args, want in [
    ("SELECT profile_write_csv(?, 'SELECT 1')", (os.path.join(tmp, "nodir", "x.csv"),), "does not exist"),
    ("SELECT profile_report(?, ?)", ("examples/browser_trace.json", os.path.join(tmp, "nodir")), "is not an existing directory"),
    ("SELECT profile_report(?, ?, 'not json')", ("examples/browser_trace.json", tmp), "options_json must be a JSON object"),
    ("SELECT profile_zip(?, ?)", (zp, os.path.join(tmp, "missing.txt")), "cannot read"),
]:
    try:
        db.execute(sql, args).fetchone()
        check(False, f"{sql} should fail")
    except sqlite3.OperationalError as e:
        check(want in str(e), f"error '{e}' has '{want}'")
with zipfile.ZipFile(zp) as z:
    check(z.namelist() == ["keep.csv", "t.md"], "a failed profile_zip leaves the previous archive")
# a full disk (RLIMIT_FSIZE stands in for it): a clear error, the previous file intact
script = f"""
import resource, signal, sqlite3, sys, os
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
db = sqlite3.connect(':memory:'); db.enable_load_extension(True); db.load_extension(os.path.abspath('libprofsql'))
try:
    db.execute("SELECT profile_write_csv(?, 'WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c WHERE i<10000) SELECT i, hex(randomblob(20)) FROM c')", ({target!r},)).fetchone()
    print('no error')
except sqlite3.OperationalError as e:
    print(e)
"""
r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
check("cannot write" in r.stdout and "File too large" in r.stdout, f"full disk error: {r.stdout.strip()} {r.stderr[-200:]}")
check(open(target).read() == 'a,b,c\n1,"x,y",\n', "the previous file survives a full disk")
check(not [f for f in os.listdir(tmp) if ".tmp." in f], "no temporary file left after a full disk")

# ZIP input: any capture alone in an archive; hostile and broken archives are clear errors
def zbytes(members):
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members:
            z.writestr(name, data)
    return b.getvalue()

trace_bytes = read("examples/browser_trace.json")
n_direct = db.execute("SELECT count(*), sum(dur) FROM profile_events(?)", (trace_bytes,)).fetchone()
n_zip = db.execute("SELECT count(*), sum(dur) FROM profile_events(?)", (zbytes([("t.json", trace_bytes)]),)).fetchone()
check(n_direct == n_zip, f"a one-member ZIP reads like the capture itself {n_zip}")
for members, want in [
    ([("../evil.json", trace_bytes)], "has a '..' component"),
    ([("a.json", trace_bytes), ("b.json", trace_bytes)], "holds 2 members and no manifest.json"),
    ([("manifest.json", '{"entries": {"json": "missing.json"}}'), ("x.json", trace_bytes)], "no member 'missing.json'"),
]:
    try:
        db.execute("SELECT count(*) FROM profile_jobs(?)", (zbytes(members),)).fetchone()
        check(False, f"ZIP {members[0][0]} should fail")
    except sqlite3.OperationalError as e:
        check(want in str(e), f"ZIP error '{e}' has '{want}'")
good = zbytes([("t.json", trace_bytes)])
for cut in [len(good) - 10, 60, 30]:
    try:
        db.execute("SELECT count(*) FROM profile_events(?)", (good[:cut],)).fetchone()
        check(False, "a truncated ZIP should fail")
    except sqlite3.OperationalError as e:
        # minizip finds no end-of-directory record, or a damaged one, depending on the bytes cut
        check("not a readable ZIP archive (no central directory: truncated?)" in str(e)
              or "damaged ZIP directory" in str(e), f"truncated ZIP at {cut}: {e}")

# SQLITE_DIRECTONLY: a view in a database file someone else wrote cannot write files
dbfile = os.path.join(tmp, "hostile.db")
h = sqlite3.connect(dbfile)
h.execute(f"CREATE VIEW w AS SELECT profile_write_csv('{os.path.join(tmp, 'v.csv')}', 'SELECT 1') AS x")
h.commit(); h.close()
db2 = connect()
db2.execute("ATTACH ? AS h", (dbfile,))
try:
    db2.execute("SELECT * FROM h.w").fetchone()
    check(False, "a view may not call profile_write_csv")
except sqlite3.OperationalError as e:
    check("unsafe use of profile_write_csv" in str(e), f"directonly: {e}")
check(not os.path.exists(os.path.join(tmp, "v.csv")), "the view wrote nothing")
check(db.execute("SELECT profile_fixed(0.1234565, 6), profile_fixed(1787314756953, 3), profile_fixed(NULL, 2)").fetchone()
      == ("0.123457" if f"{0.1234565:.6f}" == "0.123457" else f"{0.1234565:.6f}", "1787314756953.000", None),
      "profile_fixed agrees with Python's formatting")

done()
