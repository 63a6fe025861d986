"""examples/questions/*.sql run in the sqlite3 shell without an error, and their first answers
are the ones the inputs give (checked here with a second route: Python over the tables, or the
hand-made report's own numbers)."""
import glob
import subprocess

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
done()
