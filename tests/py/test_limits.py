"""A load's memory and time limits (issue 32): the parse's own memory is counted against the
connection's max_parse_memory and comes from SQLite's allocator (so PRAGMA hard_heap_limit sees
it); a progress handler (what Datasette and other hosts use as a time limit) runs during a parse
at every interrupt poll, not once per 250 of them; a parse polls by work done, so a few very long
lines cannot run on unpolled.

Every check fails on the code before issue 32: there was no max_parse_memory setting, ext/ used
malloc (hard_heap_limit ignored it), and the poll ran "SELECT 1" (4 VM steps) every 65,536 lines.
The independent values: Python's own count of the folded lines' frames and of a trace's events."""
import gzip
import json
import os
import resource
import sqlite3
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from testlib import check, connect, connect_noio as noio, done, error  # noqa: E402

LIB = os.path.abspath("libprofsql")


def amplifier(n_lines, depth):
    """Folded lines whose stacks share no prefix (a distinct first frame), each `depth` frames
    deep: every frame is a new call-tree node, 2 bytes of input each, and gzip squeezes the runs.
    The attack's shape: a 522 KB gzip BLOB once built 7.6 GB."""
    body = ";a" * depth
    text = "".join(f"r{i}{body} 1\n" for i in range(n_lines)).encode()
    return text, gzip.compress(text, 6)


# ---- max_parse_memory: the setting, its default, its range, and noio's ceiling
db = connect()
dflt = db.execute("SELECT profsql_config('max_parse_memory')").fetchone()[0]
phys = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
check(dflt == max(2 << 30, phys // 2), "max_parse_memory defaults to half the physical memory, at least 2 GiB",
      (dflt, phys))
n = noio()
check(n.execute("SELECT profsql_config('max_parse_memory')").fetchone()[0] == 2 << 30,
      "a noio connection's max_parse_memory is 2 GiB")
e = error(n, "SELECT profsql_config('max_parse_memory', 3 << 30)")
check(e is not None and "can only be lowered" in e, "noio cannot raise max_parse_memory", e)
e = error(db, "SELECT profsql_config('max_parse_memory', 1000)")
check(e is not None and "between 1048576 and" in e, "max_parse_memory's range", e)

# ---- the amplifier stops at the limit with an error naming it, in bounded memory (a child
# process: its peak RSS is its own)
text, gz = amplifier(20000, 1000)
check(len(gz) < len(text) // 50, "the amplifier compresses well", (len(gz), len(text)))
child = r"""
import resource, sqlite3, sys
db = sqlite3.connect(":memory:")
db.enable_load_extension(True)
db.execute("SELECT load_extension(?, 'sqlite3_profsql_noio_init')", (sys.argv[1],))
db.execute("SELECT profsql_config('max_parse_memory', 128 << 20)")
gz = open(sys.argv[2], "rb").read()
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
try:
    db.execute("SELECT count(*) FROM profile_records(?)", (gz,)).fetchall()
    print("LOADED")
except sqlite3.Error as e:
    print("ERR", e)
print("RSS", before, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""
import tempfile  # noqa: E402
tmp = tempfile.mkdtemp()
path = os.path.join(tmp, "amp.gz")
with open(path, "wb") as f:
    f.write(gz)
out = subprocess.run([sys.executable, "-c", child, LIB, path], capture_output=True, text=True).stdout
lines = dict(line.split(" ", 1) for line in out.strip().splitlines() if " " in line)
msg = lines.get("ERR", "")
check("needs more memory than max_parse_memory allows (134217728 bytes" in msg,
      "the amplifier fails at max_parse_memory, naming it", out)
rss = [int(x) for x in lines.get("RSS", "0 0").split()]
# KiB (Linux ru_maxrss): the load may hold 128 MiB of its own beside the inflated text (20 MB)
check(rss[1] - rss[0] < 200 * 1024, "the refused load's peak RSS stays near max_parse_memory", rss)

# the same input loads under a limit that fits it, and its rows are the lines' frames
small_text, small_gz = amplifier(300, 200)
got = n.execute("SELECT count(*), sum(count) FROM profile_records(?)", (small_gz,)).fetchone()
frames = set()
for line in small_text.decode().splitlines():
    stack = line.rsplit(" ", 1)[0].split(";")
    for k in range(1, len(stack) + 1):
        frames.add(tuple(stack[:k]))
check(got == (len(frames), 300), "a small amplifier loads: one record per call-tree node, 300 samples",
      (got, len(frames)))

# ---- PRAGMA hard_heap_limit sees a parse's memory (it comes from SQLite's allocator). The
# limit is the process's: a child process of its own. The input is a gzip BLOB of a few KB (so
# that SQLite's own copies of it fit the limit) whose parse holds tens of MB: before, the parse
# went on under an 8 MB heap limit, unseen
heap_text, heap_gz = amplifier(1000, 500)
heap_path = os.path.join(tmp, "heap.gz")
with open(heap_path, "wb") as f:
    f.write(heap_gz)
heap_child = r"""
import sqlite3, sys
gz = open(sys.argv[2], "rb").read()
def conn():
    db = sqlite3.connect(":memory:")
    db.enable_load_extension(True)
    db.load_extension(sys.argv[1])
    return db
db = conn()
print("FREE", db.execute("SELECT count(*), sum(count) FROM profile_records(?)", (gz,)).fetchone())
db.close()
db = conn()
db.execute("PRAGMA hard_heap_limit = 8000000")       # (the pragma only lowers it)
try:
    print("LIMITED", db.execute("SELECT count(*), sum(count) FROM profile_records(?)", (gz,)).fetchone())
except sqlite3.Error as e:
    print("LIMITED_ERR", e)
"""
out = subprocess.run([sys.executable, "-c", heap_child, LIB, heap_path], capture_output=True, text=True).stdout
check(len(heap_gz) < 100000 and f"FREE ({1000 * 501}, 1000)" in out,
      "without a heap limit the folded BLOB loads: 1000 x 501 call-tree nodes, 1000 samples", (len(heap_gz), out))
check("LIMITED_ERR profile_records: BLOB: out of memory" in out,
      "PRAGMA hard_heap_limit (8 MB) stops its parse", out)

# ---- a progress handler runs during a parse: period 1000, answering "stop", stops the load
# (the poll statement runs ~5,000 VM steps; "SELECT 1" ran 4, so the handler ran once per 250
# polls and a 200k-event parse, 49 polls, finished unstopped)
big = json.dumps([{"ph": "X", "name": "e", "pid": 1, "tid": 1, "ts": i, "dur": 1} for i in range(200000)]).encode()
p = connect()
calls = [0]


def stop():
    calls[0] += 1
    return 1


p.set_progress_handler(stop, 1000)
e = error(p, "SELECT count(*) FROM profile_events(?)", (big,))
check(e is not None and "interrupted while reading BLOB" in e, "a progress handler (period 1000) stops a 200k-event parse", e)
p.set_progress_handler(None, 1000)
check(p.execute("SELECT count(*) FROM profile_events(?)", (big,)).fetchone()[0] == 200000,
      "without the handler the same BLOB loads: 200000 events")

# ---- polls by work done: folded lines of 200 KB each (8 lines: the old poll came every 65,536
# lines, so never); a handler that says stop at once stops the parse
long_text = "".join("root;" + ";".join(f"f{i}_{j}" for j in range(25000)) + " 1\n" for i in range(8)).encode()
q = connect()
q.set_progress_handler(stop, 1000)
e = error(q, "SELECT count(*) FROM profile_records(?, 'folded')", (long_text,))
check(e is not None and "interrupted while reading BLOB" in e, "8 folded lines of 200 KB are polled (a handler stops them)", e)
q.set_progress_handler(None, 1000)
check(q.execute("SELECT count(*) FROM profile_records(?, 'folded')", (long_text,)).fetchone()[0] == 1 + 8 * 25000,
      "unstopped, the 8 lines make 1 + 8 x 25,000 records")

# ---- the whole-document check before a .cpuprofile's parse polls too (ps_json_skip_poll): a
# profile of one node beside 3M unread numbers (21 MB) is stopped while it is checked
cpu = ('{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","scriptId":"0","url":"","lineNumber":-1,'
       '"columnNumber":-1},"hitCount":0}],"startTime":0,"endTime":1,"samples":[],"timeDeltas":[],"x":['
       + ",".join(["1234567"] * 3000000) + ']}').encode()
r = connect()
r.set_progress_handler(stop, 1000)
e = error(r, "SELECT count(*) FROM profile_records(?)", (cpu,))
check(e is not None and "interrupted while reading BLOB" in e, "a .cpuprofile's document check is polled", e)
r.set_progress_handler(None, 1000)
check(r.execute("SELECT count(*) FROM profile_records(?)", (cpu,)).fetchone()[0] == 1, "unstopped: its one node")

for f in os.listdir(tmp):
    os.unlink(os.path.join(tmp, f))
os.rmdir(tmp)
done()
