"""profile_report's ranked groupings (vtab/report/report_groups.c: six groupings from one scan, a
grouping with more groups than max(4096, jobs / 16) left to SQL's GROUP BY), checked against two
independent references:
- a Chrome trace of 10,000 slices built here, 5,000 of them with a name of their own (the
  offender grouping, key owner::name, has more than 4,096 groups: SQL computes it; the other
  groupings have a handful: the scan does), against Python: count, failed, slow, total (summed
  in file order, as the writer sums), average, max and share of each group, the rank order
  (total descending, then key), the first job's category/source/name, every CSV cell as "%.6f"
  and every JSON number as the same double;
- the Markdown's threads and names by self time (rank, slices, self ms, share, slowest slice,
  each name's categories in the order first seen), of the same trace (names: SQL) and of a small
  one (names: the scan), against Python;
- the columns of profile_jobs a report of a capture other than a StarProfiler report does not
  read (its format's rows have them NULL or 0), over every capture in examples/ and tests/data/;
- a StarProfiler report JSON built here whose lanes mix 3, 3.0, "3", "", a missing lane and
  text, with integer and real elapsed times, a failed job and a null elapsed time, against
  SQLite's GROUP BY of the same rows of profile_jobs (the query the report ran before the scan
  replaced it): NULL and '' keys, an integer and a real of the same value in one group, an
  integer sum staying an integer."""
import csv
import io
import json
import math
import os
import sqlite3
import tempfile

from testlib import check, connect, done

db = connect()


def report(src, opts='{"write_archive": false}'):
    out = tempfile.mkdtemp(prefix="profsql-groups-")
    db.execute("SELECT profile_report(?, ?, ?)", (src, out, opts)).fetchone()
    return out


def csv_rows(out, kind):
    with open(os.path.join(out, "profiler_%s_latest.csv" % kind), encoding="utf-8") as f:
        return list(csv.reader(io.StringIO(f.read())))


def report_json(out):
    with open(os.path.join(out, "profiler_report_latest.json"), encoding="utf-8") as f:
        return json.load(f)


# ---------------------------------------------------------------- a Chrome trace, against Python
N = 10000
events = [{"name": "process_name", "ph": "M", "pid": 1, "tid": 0, "args": {"name": "Proc"}},
          {"name": "thread_name", "ph": "M", "pid": 1, "tid": 10, "args": {"name": "Main"}},
          {"name": "thread_name", "ph": "M", "pid": 1, "tid": 11, "args": {"name": "Worker"}}]
slices = []
for i in range(N):
    ns = 1000 + (i * 7919) % 100003          # durations in whole ns, written as microseconds
    name = "u%05d" % i if i % 2 == 0 else "work %d" % (i % 7)
    ev = {"name": name, "cat": "c%d" % (i % 3), "ph": "X", "pid": 1, "tid": 10 + (i % 5 == 0),
          "ts": i * 200, "dur": ns / 1000.0}
    events.append(ev)
    slices.append((name, ev["cat"], "Main" if ev["tid"] == 10 else "Worker", ns / 1e6))
trace = json.dumps({"traceEvents": events}).encode()
# the scan's cap: the offender grouping (owner::name) exceeds it, the others do not
n_names = len(set(s[0] for s in slices))
check(n_names > max(4096, N // 16), "the trace has more offender keys than the cap", n_names)

# owner of a Chrome slice without service/plugin/gateway args: "<source>:<category>"
owners = dict(db.execute("SELECT DISTINCT category, owner FROM profile_jobs(?)", (trace,)).fetchall())
check(owners == {"c0": "Proc:c0", "c1": "Proc:c1", "c2": "Proc:c2"}, "owner = source:category", owners)

total = 0.0
for s in slices:
    total += s[3]


def groups(keyf, catf):
    """{key: [count, total, max, first index]} in file order, plain addition as the writer adds"""
    g = {}
    for i, s in enumerate(slices):
        k = keyf(s)
        if k not in g:
            g[k] = [0, 0.0, None, i]
        e = g[k]
        e[0] += 1
        e[1] += s[3]
        e[2] = s[3] if e[2] is None or s[3] > e[2] else e[2]
    ranked = sorted(g.items(), key=lambda kv: (-kv[1][1], kv[0]))
    return [(r + 1, k, catf(slices[v[3]]), v) for r, (k, v) in enumerate(ranked)]


def f6(x):
    return "%.6f" % x


kinds = {
    "top_offenders": (lambda s: "Proc:%s::%s" % (s[1], s[0]), lambda s: s[1]),
    "sources": (lambda s: "Proc", lambda s: "*"),
    "methods": (lambda s: "Proc:%s::<no-method>" % s[1], lambda s: s[1]),
    "lanes": (lambda s: s[2], lambda s: s[1]),
}
out = report(trace)
js = report_json(out)
json_key = {"top_offenders": "top_offenders_by_total_elapsed", "sources": "by_source_ranked",
            "methods": "by_method_ranked", "lanes": "by_lane_ranked"}
for kind, (keyf, catf) in kinds.items():
    want = groups(keyf, catf)[:64]
    rows = csv_rows(out, kind)
    check(rows[0] == ["rank", "key", "category", "source", "sample_name", "count", "failed", "slow",
                      "total_elapsed_ms", "total_share_percent", "average_elapsed_ms", "max_elapsed_ms",
                      "max_load", "total_payload_bytes", "total_output_bytes"], kind + " header", rows[0])
    exp = [[str(r), k, cat, "Proc", slices[v[3]][0], str(v[0]), "0", str(sum(1 for s in slices if keyf(s) == k and s[3] >= 16.67)),
            f6(v[1]), f6(v[1] / total * 100.0), f6(v[1] / v[0]), f6(v[2]), f6(0.0), "0", "0"] for r, k, cat, v in want]
    check(rows[1:] == exp, "%s CSV: %d ranked groups, every cell as Python computes it" % (kind, len(exp)),
          [(a, b) for a, b in zip(rows[1:], exp) if a != b][:2])
    arr = js["analysis"][json_key[kind]]
    check([(o["key"], o["count"], o["total_elapsed_ms"], o["max_elapsed_ms"], o["average_elapsed_ms"],
            o["total_share_percent"]) for o in arr]
          == [(k, v[0], v[1], v[2], v[1] / v[0], v[1] / total * 100.0) for r, k, cat, v in want],
          "%s in the JSON: the same groups, every number the same double" % json_key[kind])
cats = csv_rows(out, "categories")
want = groups(lambda s: s[1], lambda s: s[1])
check(cats[1:] == [[str(r), k, str(v[0]), "0", str(sum(1 for s in slices if s[1] == k and s[3] >= 16.67)), f6(v[1]),
                    f6(v[1] / total * 100.0), f6(v[1] / v[0]), f6(v[2])] for r, k, c, v in want],
      "categories CSV: count, slow, total, share, average, max of each category", cats[1:])
check(js["summary"]["total_elapsed_ms"] == total and js["summary"]["completed_jobs_kept"] == N,
      "summary total = the plain sum in file order", js["summary"]["total_elapsed_ms"])


def pcts(vals):
    """the writer's percentiles: sorted[round((n-1)*q)], round half away from zero as C's round()"""
    v = sorted(vals)
    return {"p%d" % int(q * 100): v[int(math.floor((len(v) - 1) * q + 0.5))] for q in (0.5, 0.9, 0.95, 0.99)}


check(js["summary"]["elapsed_percentiles_ms"] == pcts([s[3] for s in slices]),
      "elapsed percentiles = the sorted values' elements", js["summary"]["elapsed_percentiles_ms"])



def md_table(out, title):
    """the rows of the Markdown table under '## title', as lists of cells"""
    with open(os.path.join(out, "profiler_report_latest.md"), encoding="utf-8") as f:
        lines = f.read().split("\n")
    i = lines.index("## " + title) + 4
    rows = []
    while i < len(lines) and lines[i].startswith("|"):
        rows.append([c.strip() for c in lines[i].strip("|").split("|")])
        i += 1
    return rows


def md_expect(slc, keyf, catf=None):
    """the Markdown's top-15 rows of a self-time grouping (no slice nests here: self = elapsed), then
    the '(n more)' row: rank, key, [categories], slices, self ms, share %, slowest ms"""
    g = {}
    for s in slc:
        e = g.setdefault(keyf(s), [0, 0.0, 0.0, []])
        e[0] += 1
        e[1] += s[3]
        e[2] = max(e[2], s[3])
        if s[1] not in e[3]:
            e[3].append(s[1])
    tot = 0.0
    for s in slc:
        tot += s[3]
    ranked = sorted(g.items(), key=lambda kv: (-kv[1][1], kv[0]))
    rows = []
    for r, (k, (n, v, mx, cats)) in enumerate(ranked[:15]):
        rows.append([str(r + 1)] + list(k if isinstance(k, tuple) else (k, ",".join(cats)))
                    + [str(n), "%.3f" % v, "%.3f" % (v * 100.0 / tot), "%.3f" % mx])
    if len(ranked) > 15:
        v = sum(kv[1][1] for kv in ranked[15:])
        rows.append(["", "(%d more)" % (len(ranked) - 15), "", "", "%.3f" % v, "%.3f" % sum(kv[1][1] * 100.0 / tot for kv in ranked[15:]), ""])
    return rows, tot


# the Markdown of the trace: threads (2 groups: the scan) and names (5,007 groups: SQL)
want, tot = md_expect(slices, lambda s: ("Proc", s[2]))
check(md_table(out, "Threads by self time") == want, "Markdown threads by self time", md_table(out, "Threads by self time"))
want, tot = md_expect(slices, lambda s: s[0])
got = md_table(out, "Names by self time")
check(got[:15] == want[:15] and got[15][1] == want[15][1], "Markdown names by self time (top 15, then the rest)", (got[:2], want[:2]))
# a smaller trace: its names (5 groups, 4 categories each) come from the scan, categories in the
# order first seen
small = [{"name": "process_name", "ph": "M", "pid": 1, "tid": 0, "args": {"name": "Proc"}},
         {"name": "thread_name", "ph": "M", "pid": 1, "tid": 10, "args": {"name": "Main"}}]
sslices = []
for i in range(300):
    ns = 2000 + (i * 613) % 9001
    ev = {"name": "n%d" % (i % 5), "cat": "k%d" % ((i * 7) % 4), "ph": "X", "pid": 1, "tid": 10,
          "ts": i * 100, "dur": ns / 1000.0}
    small.append(ev)
    sslices.append((ev["name"], ev["cat"], "Main", ns / 1e6))
out_small = report(json.dumps({"traceEvents": small}).encode())
want, tot = md_expect(sslices, lambda s: s[0])
check(md_table(out_small, "Names by self time") == want, "Markdown names: slices, self ms, share, slowest, categories in first-seen order",
      (md_table(out_small, "Names by self time"), want))
with open(os.path.join(out_small, "profiler_report_latest.md"), encoding="utf-8") as f:
    md = f.read()
check("of the %.3f ms of slice self time" % tot in md, "the quick answer's total self time", tot)
# percentiles of many equal values (the selection's worst case for a poor pivot)
eq = [{"name": "e", "ph": "X", "pid": 1, "tid": 1, "ts": i * 10, "dur": [2.0, 1.0, 3.0][i % 3] if i % 50 else 7.0}
      for i in range(3000)]
js_eq = report_json(report(json.dumps({"traceEvents": eq}).encode()))
check(js_eq["summary"]["elapsed_percentiles_ms"] == pcts([e["dur"] / 1000.0 for e in eq]),
      "percentiles of values with many ties", js_eq["summary"]["elapsed_percentiles_ms"])

# ---------------------------------------------------------------- the columns the report does not read
# For a capture that is not a StarProfiler report, profile_report asks profile_jobs only for the
# columns it fills (RJ_COLS_DERIVED): the 27 others must be NULL or 0 in every row of every format.
CONST = ["priority", "dependency_group", "frame_id", "task_domain", "task_pass", "executor", "frame_budget_ms",
         "gpu_wait_ms", "wait_reason", "async_mode", "payload_bytes", "output_bytes", "service_id", "method",
         "plugin_id", "gateway", "error", "detail", "active_elapsed_ms", "current_load", "progress"]
ZERO = ["exceeded_frame_budget", "scheduled", "blocked", "polling", "waited_on_gpu", "stayed_async"]
files = []
for d in ("examples", "tests/data", "tests/data/ftrace", "tests/data/stacks", "tests/data/xprof"):
    for f in sorted(os.listdir(d)):
        p = os.path.join(d, f)
        if os.path.isfile(p) and not f.endswith((".md", ".py", ".c", ".sh", ".sql", ".js")):
            files.append(p)
formats = set()
for p in files:
    try:
        fmt = db.execute("SELECT value FROM profile_metadata(?) WHERE scope='capture' AND key='format'", (p,)).fetchone()
        if fmt is None or fmt[0] in ("newengine", "mixed"):
            continue
        bad = db.execute("SELECT count(*), sum(" + " OR ".join("%s IS NOT NULL" % c for c in CONST) + " OR "
                         + " OR ".join("%s IS NOT 0" % c for c in ZERO) + ") FROM profile_jobs(?)", (p,)).fetchone()
    except Exception:
        continue                      # not a capture, or a broken one (tests of errors)
    formats.add(fmt[0])
    check(bad[0] == 0 or bad[1] == 0, "%s (%s): the 27 columns the report skips are NULL or 0 in all %d jobs" % (p, fmt[0], bad[0]), bad)
check(len(formats) >= 8, "the formats checked", sorted(formats))

# ---------------------------------------------------------------- typed keys, against SQLite's GROUP BY
jobs = []
lanes = [3, 3.0, "3", "", None, "a", 3, "a", 2.5, "", 3.0, "b"]
for i, lane in enumerate(lanes):
    j = {"id": "j%d" % i, "status": "failed" if i == 4 else "completed", "category": "render" if i % 2 else "io",
         "name": "n%d" % (i % 4), "source": "engine.%d" % (i % 3), "started_unix_ms": 1000 + i, "ended_unix_ms": 1010 + i,
         "elapsed_ms": (i + 1) if i % 3 == 0 else (i + 0.1), "payload_bytes": i * 10}
    if i == 7:
        j["elapsed_ms"] = None
    if lane is not None:
        j["lane"] = lane
    jobs.append(j)
rep = json.dumps({"schema": "newengine.profiler.report.v3", "completed_jobs": jobs, "active_jobs": [],
                  "analysis": {}, "summary": {}, "diagnostics": []}).encode()
ref = db.execute(
    "WITH j AS (SELECT rowid AS k, *, ifnull(elapsed_ms,0.0) AS e_, status='failed' AS failed_, "
    "  ifnull(CAST(payload_bytes AS INTEGER),0) AS pb_, "
    "  CASE WHEN trim(ifnull(lane,''))='' THEN 'unspecified' ELSE lane END AS lkey_ "
    "  FROM profile_jobs(?1) WHERE job_list='completed_jobs') "
    "SELECT lkey_, count(*), sum(failed_), sum(e_), max(e_), sum(pb_), typeof(sum(e_)) FROM j GROUP BY lkey_ "
    "ORDER BY sum(e_) DESC, lkey_", (rep,)).fetchall()
check(len(ref) == 6 and [r[0] for r in ref].count(3) == 1 and "3" in [r[0] for r in ref],
      "the reference: 3 and 3.0 one group (its key the last row's, 3.0), '3' another", ref)
out = report(rep)
rows = csv_rows(out, "lanes")
got = [(r[1], int(r[5]), int(r[6]), r[8], r[11], int(r[13])) for r in rows[1:]]
exp = [(str(k), n, f, f6(t), f6(m), pb) for k, n, f, t, m, pb, _ in ref]
check(got == exp, "lanes CSV of typed keys = SQLite's GROUP BY", (got, exp))
arr = report_json(out)["analysis"]["by_lane_ranked"]
check([(o["key"], o["count"], o["failed"], o["total_elapsed_ms"], o["total_payload_bytes"]) for o in arr]
      == [(k, n, f, float(t), pb) for k, n, f, t, m, pb, _ in ref],
      "by_lane_ranked of typed keys = SQLite's GROUP BY",
      [(o["key"], o["count"], o["total_elapsed_ms"]) for o in arr])


# ---------------------------------------------------------------- the scan's internal function
for call, what in (("profsql_rp_row(1, 2, 3)", "called from SQL"), ("profsql_rp_row()", "with no arguments"),
                   ("profsql_rp_row(?1, 2)", "given a text where its state goes")):
    try:
        db.execute("SELECT " + call, ("profsql_rp_scan",) if "?1" in call else ()).fetchone()
        err = None
    except sqlite3.Error as e:
        err = str(e)
    check(err == "profsql_rp_row: internal to profile_report, not for use in SQL",
          "profsql_rp_row " + what + ": a clear error", err)

done()
