"""gzip captures (and ZIP members) inflated into an unnamed temporary file instead of memory (issue 18, "the inflated
bytes are not held once parsed columns exist"; ext/source/source.c, profsql_config 'gzip_spill_bytes').

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
- a noio connection (untrusted SQL) starts at 0 and cannot turn spilling on;
- ZIP members, deflated and stored, from a file and a BLOB, and the StarProfiler's dated archive
  (its member named by manifest.json) spill the same way with the same rows; a CRC mismatch and a
  damaged archive give the same error spilled or not; a spill file the process's RLIMIT_FSIZE
  cannot take sends the member to memory, whole."""
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


def with_spill(spill, env, fn):
    """fn(db) on a fresh connection with gzip_spill_bytes = spill and SQLITE_TMPDIR / TMPDIR as env
    gives them; (its result, the mappings found in SQLITE_TMPDIR / TMPDIR while the capture is
    cached)."""
    saved = {k: os.environ.get(k) for k in ("SQLITE_TMPDIR", "TMPDIR")}
    for k in saved:
        if env.get(k) is None: os.environ.pop(k, None)
        else: os.environ[k] = env[k]
    try:
        db = connect()
        db.execute("SELECT profsql_config('gzip_spill_bytes', ?)", (spill,))
        got = fn(db)
        maps = (spill_maps(dirA), spill_maps(dirB))     # the capture is still in the connection's cache
        db.close()
        return got, maps
    finally:
        for k, v in saved.items():
            if v is None: os.environ.pop(k, None)
            else: os.environ[k] = v


def run(spill, src, env):
    """(rows, args, the mappings found in SQLITE_TMPDIR / TMPDIR while the capture is cached)."""
    (rows, args), maps = with_spill(spill, env, lambda db: (db.execute(ALL, (src,)).fetchall(),
                                                            [json.loads(r[0]) for r in db.execute(ARGS, (src,))]))
    return rows, args, maps


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

# ZIP members take the same path (ext/source/zipsrc.c): the member inflated (or copied, when stored) into
# the unnamed file in chunks, its CRC checked over the chunks, then mapped
import io
import zipfile
zips = {}
for method, label in ((zipfile.ZIP_DEFLATED, "deflated"), (zipfile.ZIP_STORED, "stored")):
    zb = io.BytesIO()
    with zipfile.ZipFile(zb, "w", method) as z:
        z.writestr("trace.json", raw)
    zips[label] = zb.getvalue()
    zpath = os.path.join(tmp, "trace_%s.zip" % label)
    with open(zpath, "wb") as f:
        f.write(zips[label])
    for what, src in (("a file", zpath), ("a BLOB", zips[label])):
        ref, ref_args, ref_maps = run(0, src, both)
        rows, args, maps = run(1, src, both)
        check(rows == ref and len(rows) == want_n, f"ZIP, {label} member, {what}, spilled: every column of every row as in memory",
              (len(rows), len(ref)))
        check(args == want_args and ref_args == want_args, f"ZIP, {label} member, {what}: args, spilled and not, equal Python's")
        check(len(maps[0]) == 1 and maps[1] == [] and ref_maps == ([], []),
              f"ZIP, {label} member, {what}: one unnamed file, in $SQLITE_TMPDIR; none with spilling off", (maps, ref_maps))
# a member of several spill buffers (PS_INFLATE_STEP, 16 MiB): 40 copies of the events, 21 MB
big_events = events * 40
big_raw = json.dumps({"traceEvents": big_events}).encode()
zb = io.BytesIO()
with zipfile.ZipFile(zb, "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("trace.json", big_raw)
big_zip = os.path.join(tmp, "big.zip")
with open(big_zip, "wb") as f:
    f.write(zb.getvalue())
def count_sum(spill, src):
    got, maps = with_spill(spill, {"SQLITE_TMPDIR": dirA}, lambda db: db.execute(
        "SELECT count(*), sum(dur), sum(length(args)), max(ts) FROM profile_events(?)", (src,)).fetchone())
    return got, maps[0]
(b0, bm0), (b1, bm) = count_sum(0, big_zip), count_sum(1, big_zip)
check(len(big_raw) > 16 << 20 and b1 == b0 and b1[:2] == (len(big_events), 40 * want_dur) and bm0 == [] and len(bm) == 1,
      "ZIP: a member of %d bytes (two spill buffers): count and sum(dur) in ns equal Python's, every args "
      "as in memory" % len(big_raw), (b0, b1))
zref = run(0, zips["deflated"], both)[0]
rows, args, maps = run(len(raw) + 1, zips["deflated"], both)
check(rows == zref and maps == ([], []), "ZIP: a member below the threshold stays in memory", maps)
rows, args, maps = run(len(raw), zips["deflated"], both)
check(len(maps[0]) == 1, "ZIP: a member of exactly the threshold is spilled", maps)
# the StarProfiler's dated archive: manifest.json names the member (read in memory), the member spills
db = connect()
nj = os.path.join(tmp, "report")
os.mkdir(nj)
db.execute("SELECT profile_report('tests/data/jobs_report.json', ?)", (nj,))
arch = [os.path.join(nj, f) for f in os.listdir(nj) if f.endswith(".zip")]
db.close()
JOBS = "SELECT * FROM profile_jobs(?) ORDER BY rowid"
def jobs(spill, src):
    got, maps = with_spill(spill, both, lambda db: db.execute(JOBS, (src,)).fetchall())
    return got, maps[0] + maps[1]
if len(arch) == 1:
    want_jobs = jobs(0, "tests/data/jobs_report.json")[0]
    got0, m0 = jobs(0, arch[0])
    got1, m1 = jobs(1, arch[0])
    check(len(want_jobs) > 0 and got0 == got1 and [r[:-2] for r in got1] == [r[:-2] for r in want_jobs],
          "the StarProfiler archive, its member spilled: the jobs as in memory and as in the loose JSON (but file, byte_offset)",
          (len(got0), len(got1), len(want_jobs)))
    check(m0 == [] and len(m1) == 1, "... spilled to one unnamed file, in memory without spilling", (m0, m1))
else:
    check(False, "profile_report wrote one archive", os.listdir(nj))
bad = bytearray(zips["stored"])
bad[bad.index(b'"traceEvents"') + 5] ^= 0x01        # a stored byte: only the CRC can tell
e0, e1 = error(0, bytes(bad)), error(1, bytes(bad))
check(e0 == "profile_events: BLOB: ZIP member 'trace.json': CRC mismatch (corrupt archive)" and e1 == e0,
      "ZIP: a stored member with a changed byte fails its CRC, spilled or not", (e0, e1))
cutz = zips["deflated"][:len(zips["deflated"]) // 2] + zips["deflated"][-22 - 56:]    # data cut, directory kept
e0, e1 = error(0, cutz), error(1, cutz)
check(e0 is not None and e1 == e0, "ZIP: a damaged archive gives the same error spilled or not", (e0, e1))
# a file that cannot take the member (RLIMIT_FSIZE below its size): read into memory instead, whole
# (a child process: the limit is the process's, and SIGXFSZ's default action would end it)
import subprocess
import sys
code = (
    "import resource, sqlite3, sys; sys.path.insert(0, 'tests/py')\n"
    "from testlib import connect\n"
    "resource.setrlimit(resource.RLIMIT_FSIZE, (65536, 65536))\n"
    "db = connect(); db.execute(\"SELECT profsql_config('gzip_spill_bytes', 1)\")\n"
    "print(db.execute('SELECT count(*), sum(dur) FROM profile_events(?)', (sys.argv[1],)).fetchone())\n")
r = subprocess.run([sys.executable, "-c", code, os.path.join(tmp, "trace_deflated.zip")], capture_output=True, text=True,
                   env=dict(os.environ, SQLITE_TMPDIR=dirA))
check(r.returncode == 0 and r.stdout.strip() == str((want_n, want_dur)),
      "ZIP: a spill file over RLIMIT_FSIZE: the member read into memory, every row", (r.returncode, r.stdout, r.stderr[-300:]))
check(os.listdir(dirA) == [] and os.listdir(dirB) == [], "ZIP: no file is left in either directory",
      (os.listdir(dirA), os.listdir(dirB)))

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
