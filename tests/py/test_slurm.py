"""The Slurm array job of docs/scaling.md run for real: a one-node Slurm cluster (Debian's
slurm-wlm with munge) is started in a temporary directory (its own munge key and socket, its own
slurm.conf, free ports), examples/scaling/slurm_task.sh is submitted as a 2-task array over 4 rank
traces whose files share a base name (rankK/trace.json), the shards are merged with merge.sh, and
the merged totals (rows, count and sum(dur) per name, per file) must equal what one process reading
every file as a glob finds, and the per-rank steps add up to the hand sum 1 + 2 + 3 + 4 = 10 ms.
The daemons are stopped at the end. Skips with a line when Slurm or munge is not installed, when not
root (slurmd runs jobs as their user), or when the cluster does not come up (its log's last lines
are printed)."""
import os
import shutil
import socket
import sqlite3
import subprocess
import tempfile
import time

from testlib import check, connect, done, skip_part, write_rank_traces

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SQLITE3 = os.environ.get("SQLITE3", "sqlite3")
need = ["munged", "munge", "slurmctld", "slurmd", "sbatch", "sinfo"]
missing = [b for b in need if shutil.which(b) is None and not os.path.exists("/usr/sbin/" + b)]
if missing:
    skip_part(f"Slurm array job: {', '.join(missing)} not installed (Debian packages slurm-wlm, munge)")
    done()
    raise SystemExit(0)
if os.geteuid() != 0:
    skip_part("Slurm array job: needs root (slurmd starts the jobs as their user)")
    done()
    raise SystemExit(0)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def sbin(b):
    return shutil.which(b) or "/usr/sbin/" + b


tmp = tempfile.mkdtemp(prefix="profsql-slurm-")
host = socket.gethostname().split(".")[0]
for d in ("munge", "state", "spool", "log", "lists", "out"):
    os.makedirs(os.path.join(tmp, d))
key = os.path.join(tmp, "munge", "munge.key")
with open(key, "wb") as f:
    f.write(os.urandom(1024))
os.chmod(key, 0o600)
sock = os.path.join(tmp, "munge", "munge.socket")
conf = os.path.join(tmp, "slurm.conf")
with open(conf, "w") as f:
    f.write(f"""ClusterName=profsqltest
SlurmctldHost={host}
SlurmUser=root
SlurmdUser=root
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
AuthType=auth/munge
AuthInfo=socket={sock}
CredType=cred/munge
StateSaveLocation={tmp}/state
SlurmdSpoolDir={tmp}/spool
SlurmctldPidFile={tmp}/slurmctld.pid
SlurmdPidFile={tmp}/slurmd.pid
SlurmctldLogFile={tmp}/log/slurmctld.log
SlurmdLogFile={tmp}/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
NodeName={host} CPUs={os.cpu_count() or 1} RealMemory=1000 State=UNKNOWN
PartitionName=test Nodes={host} Default=YES MaxTime=INFINITE State=UP
""")
env = dict(os.environ, SLURM_CONF=conf, LIBPROFSQL=os.path.join(ROOT, "libprofsql"), SQLITE3=SQLITE3)


def tail(name, n=5):
    try:
        return "".join(open(os.path.join(tmp, "log", name), errors="replace").readlines()[-n:])
    except OSError:
        return "(no log)"


def stop():
    """SIGTERM to the three daemons, then up to 10 s for them to exit, then SIGKILL."""
    pids = []
    for pidfile in ("slurmd.pid", "slurmctld.pid", os.path.join("munge", "munged.pid")):
        try:
            pid = int(open(os.path.join(tmp, pidfile)).read().split()[0])
            os.kill(pid, 15)
            pids.append(pid)
        except (OSError, ValueError, IndexError):
            pass
    for _ in range(40):
        alive = []
        for pid in pids:
            try:
                os.kill(pid, 0)
                alive.append(pid)
            except OSError:
                pass
        if not alive:
            return
        time.sleep(0.25)
    for pid in alive:
        try:
            os.kill(pid, 9)
        except OSError:
            pass


try:
    subprocess.run([sbin("munged"), "--force", f"--key-file={key}", f"--socket={sock}",
                    f"--pid-file={tmp}/munge/munged.pid", f"--log-file={tmp}/log/munged.log",
                    f"--seed-file={tmp}/munge/seed"], check=True, timeout=30)
    subprocess.run([sbin("slurmctld"), "-f", conf], env=env, check=True, timeout=30)
    subprocess.run([sbin("slurmd"), "-f", conf], env=env, check=True, timeout=30)
    up = False
    for _ in range(60):
        r = subprocess.run(["sinfo", "-h", "-o", "%t"], env=env, capture_output=True, text=True)
        if r.returncode == 0 and r.stdout.strip() in ("idle", "mix", "alloc"):
            up = True
            break
        time.sleep(0.5)
    if not up:
        skip_part("Slurm array job: the one-node cluster did not come up: " + tail("slurmctld.log", 3) + tail("slurmd.log", 3))
        done()
        raise SystemExit(0)
    # 4 ranks whose files share a base name, two per shard
    src = tempfile.mkdtemp(dir=tmp)
    ranks = [p for p, _ in write_rank_traces(src, 4, ROOT)]
    same = []
    for k, p in enumerate(ranks):
        d = os.path.join(tmp, "data", f"rank{k}")
        os.makedirs(d)
        shutil.copy(p, os.path.join(d, "trace.json"))
        same.append(os.path.join(d, "trace.json"))
    for k in range(2):
        with open(os.path.join(tmp, "lists", f"shard_{k}.txt"), "w") as f:
            f.write("\n".join(same[k::2]) + "\n")
    r = subprocess.run(["sbatch", "--array=0-1", "--mem=100M", "--wait", "-o", os.path.join(tmp, "log", "task_%a.out"),
                        os.path.join(ROOT, "examples", "scaling", "slurm_task.sh"), "lists", "out"],
                       cwd=tmp, env=env, capture_output=True, text=True, timeout=300)
    check(r.returncode == 0, "sbatch --array=0-1 --wait: both tasks ran", (r.stdout, r.stderr, tail("task_0.out"), tail("task_1.out")))
    shards = [os.path.join(tmp, "out", f"shard_{k}.db") for k in range(2)]
    merged = os.path.join(tmp, "merged.db")
    r = subprocess.run(["sh", os.path.join(ROOT, "examples", "scaling", "merge.sh"), merged] + shards,
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    check(r.returncode == 0, "merge.sh over the Slurm shards", r.stderr[-300:])
    m = sqlite3.connect(merged)
    one = connect()
    glob = os.path.join(tmp, "data", "rank*", "trace.json")
    want = one.execute("SELECT name, count(*), sum(dur) FROM profile_events(?) GROUP BY name ORDER BY name", (glob,)).fetchall()
    got = m.execute("SELECT name, count(*), sum(dur) FROM events GROUP BY name ORDER BY name").fetchall()
    check(got == want and len(got) > 10, "Slurm: the merged totals per name equal one process reading the glob", (len(got), len(want)))
    files = [r[0] for r in m.execute("SELECT count(DISTINCT file) FROM events")]
    check(files == [4], "Slurm: rank0/trace.json .. rank3/trace.json, four files (none overwrote another)", files)
    step = m.execute("SELECT count(*), sum(dur) FROM events WHERE name = 'rank_step'").fetchone()
    check(step == (4, 10_000_000), "Slurm: the rank steps, 1 + 2 + 3 + 4 = 10 ms by hand", step)
finally:
    stop()
done()
