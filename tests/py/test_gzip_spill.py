"""gzip captures inflated into an unnamed temporary file instead of memory (issue 18, "the inflated
bytes are not held once parsed columns exist"; ext/source.c, profsql_config 'gzip_spill_bytes').

A Chrome trace of 3,000 slices with args is written by Python and gzipped (and gzipped twice more:
a concatenated stream, and one cut short). Checked against Python's own reading of the JSON (count,
sum of dur in ns, every args object) and against the same query with spilling off:
- every column of every row is the same spilled and in memory, for a file and a BLOB source, for
  the libdeflate path and zlib's (a concatenated stream, which libdeflate's one-shot path leaves to
  zlib), and the args read back after the parse equal Python's;
- the spill happens where it should: the process maps an unnamed file ("(deleted)") in
  $SQLITE_TMPDIR when it is set, else in $TMPDIR; with spilling off, or below the threshold, no
  such mapping; the directories hold no file afterwards (O_TMPFILE: nothing to clean up);
- a truncated stream gives the same error spilled or not;
- a noio connection (untrusted SQL) starts at 0 and cannot turn spilling on."""
import gzip
import json
import os
import shutil
import sqlite3
import tempfile

from testlib import check, connect, done

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.chdir(ROOT)
LIB = os.path.abspath("libprofsql")

tmp = tempfile.mkdtemp()
dirA, dirB = os.path.join(tmp, "sqlite_tmpdir"), os.path.join(tmp, "tmpdir")
os.mkdir(dirA); os.mkdir(dirB)

events = []
for k in range(3000):
    events.append({"ph": "X", "name": "slice%d" % (k % 37), "cat": "c%d" % (k % 5), "pid": 1 + k % 3,
                   "tid": 10 + k % 4, "ts": k * 10.5, "dur": 3.25 + k % 7,
                   "args": {"k": k, "label": "row %d" % k, "nested": {"v": [k, k * 2]}}})
raw = json.dumps({"traceEvents": events}).encode()
path = os.path.join(tmp, "trace.json.gz")
with open(path, "wb") as f:
    f.write(gzip.compress(raw))
# two members whose inflated bytes join into one trace (an array cut in two)
cat_path = os.path.join(tmp, "two_members.json.gz")
half = raw.index(b'{"ph"', len(raw) // 2)
with open(cat_path, "wb") as f:
    f.write(gzip.compress(raw[:half]) + gzip.compress(raw[half:]))
cut_path = os.path.join(tmp, "cut.json.gz")
with open(cut_path, "wb") as f:
    f.write(gzip.compress(raw)[:-200])

want_n = len(events)
want_dur = sum(round(e["dur"] * 1000) for e in events)
want_args = [e["args"] for e in events]

ALL = "SELECT * FROM profile_events(?) ORDER BY id"
ARGS = "SELECT args FROM profile_events(?) ORDER BY ts"


def spill_maps(d):
    """The unnamed files under d that this process maps (O_TMPFILE: '<d>/#<inode> (deleted)')."""
    with open("/proc/self/maps") as f:
        return [l for l in f if os.path.realpath(d) + "/#" in l and "(deleted)" in l]


def run(spill, src, env):
    """(rows, args, the mappings found in SQLITE_TMPDIR / TMPDIR while the capture is cached)."""
    saved = {k: os.environ.get(k) for k in ("SQLITE_TMPDIR", "TMPDIR")}
    for k in saved:
        if env.get(k) is None: os.environ.pop(k, None)
        else: os.environ[k] = env[k]
    try:
        db = connect()
        db.execute("SELECT profsql_config('gzip_spill_bytes', ?)", (spill,))
        rows = db.execute(ALL, (src,)).fetchall()
        args = [json.loads(r[0]) for r in db.execute(ARGS, (src,))]
        maps = (spill_maps(dirA), spill_maps(dirB))     # the capture is still in the connection's cache
        db.close()
        return rows, args, maps
    finally:
        for k, v in saved.items():
            if v is None: os.environ.pop(k, None)
            else: os.environ[k] = v


both = {"SQLITE_TMPDIR": dirA, "TMPDIR": dirB}
mem_rows, mem_args, mem_maps = run(0, path, both)
check(len(mem_rows) == want_n, "in memory: every event is a row", len(mem_rows))
check(mem_args == want_args, "in memory: args equal Python's")
check(mem_maps == ([], []), "spilling off: no temporary file is mapped", mem_maps)

for label, src in (("a file", path), ("a BLOB", open(path, "rb").read()), ("a concatenated stream (zlib)", cat_path)):
    rows, args, maps = run(1, src, both)
    ref = run(0, src, both)[0] if src is not path else mem_rows
    check(rows == ref and len(rows) == want_n, f"{label}, spilled: every column of every row as in memory",
          (len(rows), len(ref)))
    check(args == want_args, f"{label}, spilled: args read back from the file equal Python's")
    check(len(maps[0]) == 1 and maps[1] == [], f"{label}: one unnamed file, in $SQLITE_TMPDIR", maps)

db = connect()
db.execute("SELECT profsql_config('gzip_spill_bytes', 1)")
n, s = db.execute("SELECT count(*), sum(dur) FROM profile_events(?)", (path,)).fetchone()
check((n, s) == (want_n, want_dur), "spilled: count and sum(dur) in ns equal Python's", (n, s, want_n, want_dur))
db.close()

rows, args, maps = run(1, path, {"TMPDIR": dirB})
check(rows == mem_rows and maps[0] == [] and len(maps[1]) == 1, "without SQLITE_TMPDIR: the file is in $TMPDIR", maps)
rows, args, maps = run(len(raw) + 1, path, both)
check(rows == mem_rows and maps == ([], []), "a stream below the threshold stays in memory", maps)
rows, args, maps = run(len(raw), path, both)
check(len(maps[0]) == 1, "a stream of exactly the threshold is spilled", maps)
check(os.listdir(dirA) == [] and os.listdir(dirB) == [], "no file is left in either directory",
      (os.listdir(dirA), os.listdir(dirB)))


def error(spill, src):
    db = connect()
    db.execute("SELECT profsql_config('gzip_spill_bytes', ?)", (spill,))
    try:
        db.execute("SELECT count(*) FROM profile_events(?)", (src,)).fetchone()
        return None
    except sqlite3.Error as e:
        return str(e)
    finally:
        db.close()


e0, e1 = error(0, cut_path), error(1, cut_path)
check(e0 is not None and "gzip stream is truncated" in e0 and e1 == e0, "a truncated stream: the same error spilled", (e0, e1))

untrusted = sqlite3.connect(":memory:")
untrusted.enable_load_extension(True)
untrusted.execute("SELECT load_extension(?, 'sqlite3_profsql_noio_init')", (LIB,))
check(untrusted.execute("SELECT profsql_config('gzip_spill_bytes')").fetchone()[0] == 0,
      "a noio connection does not spill")
try:
    untrusted.execute("SELECT profsql_config('gzip_spill_bytes', 1)").fetchone()
    msg = None
except sqlite3.Error as e:
    msg = str(e)
check(msg == "profsql_config: 'gzip_spill_bytes' can only be lowered in this connection (loaded with "
      "sqlite3_profsql_noio_init): 1 is above the current 0", "... and cannot turn it on", msg)
trusted = connect()
check(trusted.execute("SELECT profsql_config('gzip_spill_bytes')").fetchone()[0] == 64 << 20,
      "the default threshold is 64 MiB")

shutil.rmtree(tmp)
done()
