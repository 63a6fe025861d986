"""examples/questions/*.sql run in the sqlite3 shell without an error, and their first answers
are the ones the inputs give (checked here with a second route: Python over the tables, or the
hand-made report's own numbers). examples/python/query.py prints the same five slices through
sqlite3 and, with pandas installed (.ci/run installs python3-pandas), through pd.read_sql; both
are checked against totals computed here from the JSON with Python's json module."""
import collections
import glob
import json
import subprocess
import sys

from testlib import check, connect, done

db = connect()
outs = {}
for f in sorted(glob.glob("examples/questions/*.sql")):
    r = subprocess.run(["sqlite3", "-batch", "-init", "/dev/null", "-cmd", ".load ./libprofsql", "-cmd", ".mode list",
                        ":memory:"], stdin=open(f), capture_output=True, text=True)
    outs[f] = r.stdout
    check(r.returncode == 0 and "Error" not in r.stderr and r.stdout.strip(), f"{f} runs: {r.stderr[:200]}")
fb = outs.get("examples/questions/frame_budget.sql", "")
check("render.api" in fb.split("\n")[3] if len(fb.split("\n")) > 3 else False,
      "frame budget: render.api first (job a: 20 ms of the 25.5 ms completed)")
gpu = db.execute("SELECT name FROM profile_events('examples/gpu_host.xplane.pb') WHERE process_name LIKE '/device:GPU%' "
                 "AND depth = 0 GROUP BY name ORDER BY sum(dur) DESC LIMIT 1").fetchone()[0]
check(gpu in outs.get("examples/questions/gpu_ops.sql", ""), f"gpu ops names {gpu}")

# main_thread.sql: the longest complete ('X') slice of a thread named CrRendererMain, from the JSON
trace = json.load(open("examples/browser_trace.json"))
evs = trace["traceEvents"] if isinstance(trace, dict) else trace
main = {(e["pid"], e["tid"]) for e in evs if e.get("ph") == "M" and e.get("name") == "thread_name"
        and e.get("args", {}).get("name") == "CrRendererMain"}
longest = max((e for e in evs if e.get("ph") == "X" and (e["pid"], e["tid"]) in main), key=lambda e: e["dur"])
rows = outs.get("examples/questions/main_thread.sql", "").split("\n")    # .mode box: row 1 is line 3
first = [c.strip() for c in rows[3].strip("│").split("│")] if len(rows) > 3 else []
check(len(first) >= 3 and first[1] == longest["name"] and abs(float(first[2]) - longest["dur"] / 1000) < 0.0006,
      f"main thread: the longest task {first} is the JSON's {longest['name']} {longest['dur']} us")

# examples/python/query.py: the independent totals of examples/browser_trace.json, by name, of
# every event with a duration: X (dur), B/E pairs per thread, b/e async pairs per (cat, id),
# instants (0); the events are well nested, so a plain stack matches them
trace = json.load(open("examples/browser_trace.json"))
tot = collections.defaultdict(lambda: [0, 0.0])
stacks, pending = collections.defaultdict(list), {}
for e in trace["traceEvents"] if isinstance(trace, dict) else trace:
    ph = e.get("ph")
    if ph == "X" and "dur" in e:
        tot[e["name"]][0] += 1; tot[e["name"]][1] += e["dur"]
    elif ph == "i":
        tot[e["name"]][0] += 1
    elif ph == "B":
        stacks[(e["pid"], e["tid"])].append(e)
    elif ph == "E":
        b = stacks[(e["pid"], e["tid"])].pop()
        tot[b["name"]][0] += 1; tot[b["name"]][1] += e["ts"] - b["ts"]
    elif ph == "b":
        pending[(e.get("cat"), e.get("id"), e["name"])] = e
    elif ph == "e":
        b = pending.pop((e.get("cat"), e.get("id"), e["name"]))
        tot[b["name"]][0] += 1; tot[b["name"]][1] += e["ts"] - b["ts"]
want = sorted(((k, n, us / 1000) for k, (n, us) in tot.items()), key=lambda r: -r[2])[:5]
r = subprocess.run([sys.executable, "examples/python/query.py"], capture_output=True, text=True)
lines = r.stdout.splitlines()
check(r.returncode == 0 and lines[0] == "Which slices take the most time?", f"query.py runs: {r.stderr[-300:]}")
got = [l.split() for l in lines[1:6]]
check(len(got) == 5 and all(g[0] == w[0] and int(g[1]) == w[1] and abs(float(g[2]) - w[2]) < 0.0006 and g[3] == "ms"
                            for g, w in zip(got, want)),
      f"query.py, sqlite3: the five names, counts and ms of the JSON: {got} vs {want}")
try:
    import pandas  # noqa: F401
    have_pandas = True
except ImportError:
    have_pandas = False
if have_pandas:
    frame = [l.split() for l in lines[6:]]
    check(frame[0] == ["name", "n", "total_ms"] and len(frame) == 6
          and all(f[0] == w[0] and int(f[1]) == w[1] and abs(float(f[2]) - w[2]) < 0.0006 for f, w in zip(frame[1:], want)),
          f"query.py, pandas (pd.read_sql): the same five rows: {frame}")
else:
    print("pandas is not installed: the pd.read_sql branch was not run")
    check(lines[6].startswith("(pandas is not installed"), "query.py says pandas is missing")
done()
