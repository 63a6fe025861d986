"""profile_report's max_csv_rows option (the cap of the per-row CSVs, for traces of millions of
jobs), on a small Chrome trace built here:
- with the option 0 every row is written, and each row of the jobs and timeline CSVs is the
  trace's slice (name, category, elapsed_ms = dur / 1000 as "%.6f") in file order;
- a cap keeps exactly the first rows of the uncapped files, byte for byte, and says so: a
  'csv_rows_capped' row per cut file in the diagnostics CSV and the JSON's diagnostics, and a
  "Capped files" section in the Markdown; every other file is the same as uncapped;
- without the option a small trace is not cut (the default, 100000, is documented);
- a value that is not an integer >= 0 is refused."""
import csv
import io
import json
import os
import tempfile

from testlib import check, connect, done

db = connect()

# 30 complete slices on two threads, names with a comma and a quote (quoted cells), then one
# instant (not a job)
events = [{"name": "process_name", "ph": "M", "pid": 1, "tid": 0, "args": {"name": "Proc"}}]
for i in range(30):
    events.append({"name": "work %d" % (i % 4) if i % 5 else 'a, "b"', "cat": "c%d" % (i % 3), "ph": "X",
                   "pid": 1, "tid": 10 + i % 2, "ts": 1000 + i * 10, "dur": 3 + i * 0.25, "args": {"seq": i}})
events.append({"name": "mark", "ph": "i", "pid": 1, "tid": 10, "ts": 5000, "s": "t"})
trace = json.dumps({"traceEvents": events}).encode()
slices = [e for e in events if e["ph"] == "X"]


def report(opts):
    out = tempfile.mkdtemp(prefix="profsql-scale-")
    if opts is None:
        db.execute("SELECT profile_report(?, ?)", (trace, out)).fetchone()
    else:
        db.execute("SELECT profile_report(?, ?, ?)", (trace, out, opts)).fetchone()
    return out


def read(out, name):
    with open(os.path.join(out, name), "rb") as f:
        return f.read()


def rows(out, kind):
    return list(csv.reader(io.StringIO(read(out, "profiler_%s_latest.csv" % kind).decode())))


full = report('{"max_csv_rows": 0, "write_archive": false}')
cut = report('{"max_csv_rows": 7, "write_archive": false}')
dflt = report('{"write_archive": false}')

# ---- uncapped: every row, exactly the trace's slices in file order
jobs = rows(full, "jobs")
h = jobs[0]
check(len(jobs) == 1 + len(slices), "uncapped jobs CSV: a row per slice", len(jobs))
want = [(e["name"], e["cat"], "%.6f" % (e["dur"] / 1000.0)) for e in slices]
got = [(r[h.index("name")], r[h.index("category")], r[h.index("elapsed_ms")]) for r in jobs[1:]]
check(got == want, "uncapped jobs rows: name, category, elapsed_ms of each slice in file order", got[:3])
tl = rows(full, "timeline")
th = tl[0]
check([(r[th.index("name")], r[th.index("elapsed_ms")]) for r in tl[1:]] == [(w[0], w[2]) for w in want],
      "uncapped timeline rows: each slice in file order")
check(b'"a, ""b"""' in read(full, "profiler_jobs_latest.csv"), "a name with a comma and a quote is quoted")
check(rows(full, "diagnostics")[1:] == [], "uncapped: no csv_rows_capped row")
check(b"Capped files" not in read(full, "profiler_report_latest.md"), "uncapped: no Capped files section")

# ---- capped: the first 7 rows of the uncapped files, byte for byte, and the cut stated
for kind in ("jobs", "timeline"):
    a = read(full, "profiler_%s_latest.csv" % kind).split(b"\n")
    b = read(cut, "profiler_%s_latest.csv" % kind)
    check(b == b"\n".join(a[:8]) + b"\n", "capped %s CSV = header + the first 7 uncapped rows" % kind)
diag = rows(cut, "diagnostics")
check(diag[0] == ["at_unix_ms", "level", "code", "job_id", "message"], "diagnostics header", diag[0])
capped = [r for r in diag[1:] if r[2] == "csv_rows_capped"]
check(len(capped) == 2 and all(r[1] == "warn" for r in capped), "two csv_rows_capped rows (jobs, timeline)", capped)
check(capped and capped[0][4].startswith("profiler_jobs_latest.csv") and "first 7 of the 30 completed jobs" in capped[0][4]
      and "max_csv_rows: 7" in capped[0][4], "the jobs row names the file, the rows kept and the rows there are", capped[:1])
check(len(capped) > 1 and capped[1][4].startswith("profiler_timeline_latest.csv"), "the timeline row", capped[1:])
md = read(cut, "profiler_report_latest.md").decode()
check("## Capped files" in md and md.count("first 7 of the 30 completed jobs") == 2, "the Markdown states the cap")
rj = json.loads(read(cut, "profiler_report_latest.json"))
check([d["code"] for d in rj["diagnostics"]] == ["csv_rows_capped", "csv_rows_capped"]
      and rj["diagnostics"][0]["message"] == capped[0][4], "the JSON's diagnostics state the cap")
rf = json.loads(read(full, "profiler_report_latest.json"))
check(rj["summary"] == rf["summary"] and rj["analysis"] == rf["analysis"], "the JSON's numbers count every job")
for kind in ("categories", "sources", "top_offenders", "active_jobs", "methods", "budget_violations",
             "lanes", "first", "frame_budget"):
    check(read(cut, "profiler_%s_latest.csv" % kind) == read(full, "profiler_%s_latest.csv" % kind),
          "capped: %s CSV unchanged" % kind)

# ---- the default does not cut a small trace; bad values are refused
check(read(dflt, "profiler_jobs_latest.csv") == read(full, "profiler_jobs_latest.csv")
      and rows(dflt, "diagnostics")[1:] == [], "default max_csv_rows: a 30-job trace is whole")
for bad, msg in (('"ten"', 'not text "ten"'), ("-1", "not integer -1"), ("1.5", "not real 1.5")):
    try:
        report('{"max_csv_rows": %s}' % bad)
        check(False, "max_csv_rows %s refused" % bad)
    except Exception as e:
        check("option 'max_csv_rows' must be an integer >= 0" in str(e) and msg in str(e),
              "max_csv_rows %s refused" % bad, str(e))
done()
