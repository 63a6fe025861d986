"""The sharded recipe of docs/scaling.md, in its one-machine form: examples/scaling/shard.sh deals
8 rank traces into 4 shards and imports each into its own SQLite file with one sqlite3 process per
shard under GNU parallel; examples/scaling/merge.sh copies the shards into one file in plain SQL.
Checked: the merged totals (rows, count and sum(dur) per name, per file) equal what one process
reading all 8 traces as a glob source finds; each shard holds its 2 captures; the per-rank step
events (rank k: dur (k+1) ms, written by this test) add up to the hand sum 36 ms; a shard whose
capture is damaged makes shard.sh exit non-zero with the worker's error. Skips without GNU
parallel."""
import os
import shutil
import sqlite3
import subprocess
import tempfile

from testlib import check, connect, done, skip_part, write_rank_traces

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SQLITE3 = os.environ.get("SQLITE3", "sqlite3")
env = dict(os.environ, LIBPROFSQL=os.path.join(ROOT, "libprofsql"), SQLITE3=SQLITE3, JOBS="2")

if shutil.which("parallel") is None:
    skip_part("sharded recipe: GNU parallel is not installed (Debian package parallel)")
    done()
    raise SystemExit(0)

tmp = tempfile.mkdtemp()
ranks = [p for p, _ in write_rank_traces(tmp, 8, ROOT)]

out = os.path.join(tmp, "shards")
r = subprocess.run(["sh", os.path.join(ROOT, "examples/scaling/shard.sh"), out, "4"] + ranks,
                   cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
check(r.returncode == 0, "shard.sh: 4 shards imported by GNU parallel", r.stderr[-400:])
shards = [os.path.join(out, f"shard_{k}.db") for k in range(4)]
for k, s in enumerate(shards):
    files = [row[0] for row in sqlite3.connect(s).execute("SELECT DISTINCT file FROM events ORDER BY file")]
    want = sorted(os.path.basename(ranks[i]) for i in range(8) if i % 4 == k)
    check([f.split("_", 1)[1] for f in map(os.path.basename, files)] == want, f"shard {k} holds ranks {want}", files)

merged = os.path.join(tmp, "merged.db")
r = subprocess.run(["sh", os.path.join(ROOT, "examples/scaling/merge.sh"), merged] + shards,
                   cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
check(r.returncode == 0, "merge.sh: the shards copied into one file", r.stderr[-400:])

m = sqlite3.connect(merged)                    # plain SQLite: no extension
db = connect()
glob = os.path.join(tmp, "rank*.json")
Q = "SELECT name, count(*), sum(dur) FROM {} GROUP BY name ORDER BY name"
got = m.execute(Q.format("events")).fetchall()
want = db.execute(Q.format("profile_events(?)"), (glob,)).fetchall()
check(got == want and len(got) > 5, f"merged count and sum(dur) per name = one process over the glob ({len(got)} names)")
got = m.execute("SELECT count(*), count(DISTINCT file), sum(dur) FROM events").fetchone()
want = db.execute("SELECT count(*), count(DISTINCT file), sum(dur) FROM profile_events(?)", (glob,)).fetchone()
check(got == want and got[1] == 8, "merged rows, files and total dur = one process", (got, want))
n_base = db.execute("SELECT count(*) FROM profile_events('examples/browser_trace.json')").fetchone()[0]
per_file = [r[0] for r in m.execute("SELECT count(*) FROM events GROUP BY file ORDER BY file")]
check(per_file == [n_base + 1] * 8, f"each rank: the example's {n_base} rows and its step", per_file)
step = m.execute("SELECT count(*), sum(dur) FROM events WHERE name = 'rank_step'").fetchone()
check(step == (8, sum(1_000_000 * (k + 1) for k in range(8))), "rank steps: 8 rows, 36 ms by hand", step)
meta = m.execute("SELECT count(DISTINCT file) FROM metadata").fetchone()[0]
check(meta == 8, "merged metadata of the 8 captures", meta)

# a damaged capture: that shard's worker fails, and shard.sh says so
bad = os.path.join(tmp, "rank_bad.json")
with open(bad, "w") as f:
    f.write('{"traceEvents": [{"name": "x", "ph": "X", "ts": 1, "dur": ')
r = subprocess.run(["sh", os.path.join(ROOT, "examples/scaling/shard.sh"), os.path.join(tmp, "bad"), "2", ranks[0], bad],
                   cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
check(r.returncode != 0 and "rank_bad.json" in r.stderr, "a damaged capture: non-zero exit, the worker's error", (r.returncode, r.stderr[-300:]))

# the Slurm array job's task (examples/scaling/slurm_task.sh), run as Slurm runs it: ranks whose
# files share a base name (rankK/trace.json) are linked under their line numbers, so none is lost
lists, sout = os.path.join(tmp, "lists"), os.path.join(tmp, "slurm")
os.makedirs(lists)
same = []
for k in range(4):
    d = os.path.join(tmp, f"rank{k}")
    os.makedirs(d)
    shutil.copy(ranks[k], os.path.join(d, "trace.json"))
    same.append(os.path.join(d, "trace.json"))
for k in range(2):
    with open(os.path.join(lists, f"shard_{k}.txt"), "w") as f:
        f.write("\n".join(same[k::2]) + "\n")
for k in range(2):
    r = subprocess.run(["sh", os.path.join(ROOT, "examples/scaling/slurm_task.sh"), lists, sout], cwd=ROOT,
                       env=dict(env, SLURM_ARRAY_TASK_ID=str(k)), capture_output=True, text=True, timeout=300)
    check(r.returncode == 0, f"slurm_task.sh: task {k}", r.stderr[-300:])
got = []
for k in range(2):
    with sqlite3.connect(os.path.join(sout, f"shard_{k}.db")) as sh:
        got += [r[0] for r in sh.execute("SELECT count(DISTINCT file) FROM events")]
one = connect()
want = one.execute("SELECT count(*), sum(dur) FROM profile_events(?)", (os.path.join(tmp, "rank*", "trace.json"),)).fetchone()
tot = [0, 0]
for k in range(2):
    with sqlite3.connect(os.path.join(sout, f"shard_{k}.db")) as sh:
        c, d = sh.execute("SELECT count(*), sum(dur) FROM events").fetchone()
        tot[0] += c; tot[1] += d
check(got == [2, 2] and tuple(tot) == want, "slurm_task.sh: rank0/trace.json .. rank3/trace.json all imported, "
      "their totals those of one process reading the glob", (got, tot, want))
r = subprocess.run(["sh", os.path.join(ROOT, "examples/scaling/slurm_task.sh"), lists, sout], cwd=ROOT,
                   env={k: v for k, v in env.items() if k != "SLURM_ARRAY_TASK_ID"}, capture_output=True, text=True)
check(r.returncode != 0 and "SLURM_ARRAY_TASK_ID" in r.stderr, "slurm_task.sh outside Slurm: says what is missing", r.stderr)
done()
