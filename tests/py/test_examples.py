"""examples/questions/*.sql run in the sqlite3 shell without an error, and their first answers
are the ones the inputs give (checked here with a second route: Python over the tables, or the
hand-made report's own numbers). examples/python/query.py prints the same five slices through
sqlite3 and, with pandas installed (.ci/run installs python3-pandas), through pd.read_sql; both
are checked against totals computed here from the JSON with Python's json module. The same holds
through apsw where sqlite3 cannot load extensions (simulated; apsw from python3-apsw), and with
neither, or without the library, query.py exits 2 with the routes that work, not a traceback."""
import collections
import glob
import importlib.util
import json
import os
import subprocess
import sys

from testlib import check, connect, done, skip_part

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

# cpu_profile.sql: the function with the most self time of examples/node_app.cpuprofile, from
# the JSON: a sample's time runs to the next sample (the last one's to endTime), µs
prof = json.load(open("examples/node_app.cpuprofile"))
fname = {n["id"]: n["callFrame"]["functionName"] for n in prof["nodes"]}
ts, t = [], prof["startTime"]
for d in prof["timeDeltas"]:
    t += d
    ts.append(t)
selfus = collections.Counter()
for i, node in enumerate(prof["samples"]):
    nxt = ts[i + 1] if i + 1 < len(ts) else prof["endTime"]
    selfus[fname[node]] += max(nxt - ts[i], 0) if i + 1 == len(ts) else nxt - ts[i]
top, top_us = selfus.most_common(1)[0]
rows = outs.get("examples/questions/cpu_profile.sql", "").split("\n")
first = [c.strip() for c in rows[3].strip("│").split("│")] if len(rows) > 3 else []
check(len(first) >= 2 and first[0] == top and abs(float(first[1]) - top_us / 1000) < 0.051,
      f"cpu profile: the most self time {first} is the JSON's {top} {top_us} us")

# cpu_threads.sql: the thread with the most time on CPU 0 of examples/ftrace_sched.txt, from the
# sched_switch lines read here: a thread runs on a CPU from the switch that names it next_pid to
# the CPU's next switch (the last interval to the trace's last timestamp)
import re as _re
ev = []
for line in open("examples/ftrace_sched.txt", encoding="utf-8"):
    m = _re.match(r"\s*(.+?)-(\d+)\s+\(\s*[-\d]+\)\s+\[(\d+)\]\s+\S+\s+(\d+)\.(\d+): (\w+):(.*)", line)
    if m:
        ev.append((int(m.group(3)), int(m.group(4)) * 10**6 + int(m.group(5)), m.group(6), m.group(7)))
last_ts = max(t for _, t, _, _ in ev)
run = {}
on = {}
for cpu, t, name, body in ev:
    if name != "sched_switch":
        continue
    if cpu in on:
        tid, t0 = on[cpu]
        if cpu == 0 and tid:
            run[tid] = run.get(tid, 0) + t - t0
    on[cpu] = (int(_re.search(r"next_pid=(\d+)", body).group(1)), t)
if 0 in on and on[0][0]:
    run[on[0][0]] = run.get(on[0][0], 0) + last_ts - on[0][1]
top_tid, top_us = max(run.items(), key=lambda kv: kv[1])
rows = outs.get("examples/questions/cpu_threads.sql", "").split("\n")
first = [c.strip() for c in rows[3].strip("│").split("│")] if len(rows) > 3 else []
check(len(first) >= 4 and int(first[1]) == top_tid and abs(float(first[3]) - top_us / 1000) < 0.051,
      f"cpu threads: the most CPU-0 time {first} is the trace's tid {top_tid} {top_us} us")

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


def check_output(route, r):
    """query.py's stdout on one route: the five rows, then the pandas frame (or the note)."""
    lines = r.stdout.splitlines()
    check(r.returncode == 0 and lines[:1] == ["Which slices take the most time?"], f"query.py, {route}, runs: {r.stderr[-300:]}")
    got = [l.split() for l in lines[1:6]]
    check(len(got) == 5 and all(g[0] == w[0] and int(g[1]) == w[1] and abs(float(g[2]) - w[2]) < 0.0006 and g[3] == "ms"
                                for g, w in zip(got, want)),
          f"query.py, {route}: the five names, counts and ms of the JSON: {got} vs {want}")
    if have_pandas:
        frame = [l.split() for l in lines[6:]]
        check(frame[:1] == [["name", "n", "total_ms"]] and len(frame) == 6
              and all(f[0] == w[0] and int(f[1]) == w[1] and abs(float(f[2]) - w[2]) < 0.0006 for f, w in zip(frame[1:], want)),
              f"query.py, {route}, pandas: the same five rows: {frame}")
    else:
        check(lines[6:7] and lines[6].startswith("(pandas is not installed"), f"query.py, {route}, says pandas is missing")


try:
    import pandas  # noqa: F401
    have_pandas = True
except ImportError:
    have_pandas = False
    print("pandas is not installed: the pd.read_sql branch was not run")
check_output("sqlite3 (pd.read_sql)", subprocess.run([sys.executable, "examples/python/query.py"], capture_output=True, text=True))

# Where sqlite3 cannot load extensions (pyenv, macOS) query.py takes apsw, and with no apsw it
# says what to do and exits 2. Simulated: a sqlite3.Connection without enable_load_extension,
# and apsw made unimportable.
NOEXT = """import runpy, sqlite3, sys
class NoExt(sqlite3.Connection):
    def __getattribute__(self, name):
        if name in ("enable_load_extension", "load_extension"):
            raise AttributeError(name)
        return super().__getattribute__(name)
connect = sqlite3.connect
sqlite3.connect = lambda *a, **k: connect(*a, factory=NoExt, **k)
if sys.argv[1] == "no-apsw":
    sys.modules["apsw"] = None
sys.argv = ["examples/python/query.py"]
runpy.run_path("examples/python/query.py", run_name="__main__")
"""
if importlib.util.find_spec("apsw"):
    check_output("apsw (no extension loading in sqlite3)",
                 subprocess.run([sys.executable, "-c", NOEXT, "apsw"], capture_output=True, text=True))
else:
    skip_part("query.py's apsw route: apsw is not importable (apt-get install python3-apsw)")
r = subprocess.run([sys.executable, "-c", NOEXT, "no-apsw"], capture_output=True, text=True)
check(r.returncode == 2 and r.stdout == "" and "Traceback" not in r.stderr and "apt-get install python3-apsw" in r.stderr
      and "/usr/bin/python3" in r.stderr, f"query.py, neither sqlite3 loading nor apsw: exit 2 and the routes: {r.returncode} {r.stderr!r}")

# README's busy % (a thread's top-level thread-track slice time over the capture's span) against
# Python over the JSON: per thread the union of its X and B/E intervals (the top-level slices,
# which nest), over the span of every event with a time (metadata events have none)
readme = open("README.md").read()
sql = readme.split("Per-thread utilisation", 1)[1].split("```sql\n", 1)[1].split("```", 1)[0]
got = [(r[0], r[1], r[4]) for r in db.execute(sql).fetchall()]
trace = json.load(open("examples/browser_trace.json"))
evs = trace["traceEvents"] if isinstance(trace, dict) else trace
iv, open_b, times = collections.defaultdict(list), collections.defaultdict(list), []
for e in sorted((e for e in evs if "ts" in e and e.get("ph") != "M"), key=lambda e: e["ts"]):
    k = (e.get("pid"), e.get("tid", e.get("pid")))
    times.append(e["ts"])
    if "dur" in e:
        times.append(e["ts"] + e["dur"])
    if e["ph"] == "X" and "dur" in e:
        iv[k].append((e["ts"], e["ts"] + e["dur"]))
    elif e["ph"] == "B":
        open_b[k].append(e["ts"])
    elif e["ph"] == "E" and open_b[k]:
        iv[k].append((open_b[k].pop(), e["ts"]))
        times.append(e["ts"])
span = max(times) - min(times)


def union(xs):
    total, cur = 0, None
    for a, b in sorted(xs):
        if cur is None or a > cur[1]:
            total += (cur[1] - cur[0]) if cur else 0
            cur = [a, b]
        else:
            cur[1] = max(cur[1], b)
    return total + ((cur[1] - cur[0]) if cur else 0)


want = sorted(((k[0], k[1], round(100 * union(v) / span, 1)) for k, v in iv.items()), key=lambda r: -r[2])[:5]
check(got == want, "README busy %: top-level thread-track slice time / the capture's span, as Python computes it", (got, want))

r = subprocess.run([sys.executable, "examples/python/query.py"], capture_output=True, text=True,
                   env=dict(os.environ, LIBPROFSQL_PATH="/nonexistent/libprofsql.so"))
check(r.returncode == 2 and "Traceback" not in r.stderr and "LIBPROFSQL_PATH='/nonexistent/libprofsql.so' names no library" in r.stderr,
      f"query.py, no library: exit 2 and where it looked: {r.returncode} {r.stderr!r}")
done()
