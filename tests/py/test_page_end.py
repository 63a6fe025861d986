"""Captures that end exactly at a page boundary, read through the memory-mapped path.

A plain file is memory-mapped (ext/source/source.c), and so is a large gzip stream spilled into its
temporary file. Unlike a heap buffer, such a mapping has no NUL byte after its last byte: when
the file's size is a multiple of the page size, the byte after the end is not mapped, and a
parser that read one byte too far would fault. The fuzzers parse heap copies, so they cannot
see this.

Every capture in tests/data and examples (and ../shared/corpus when present) is cut to the
largest multiple of 4096 bytes below its size, written to a file, and read whole through every
table by a `sqlite3` process. A parse error is fine. A signal (a crash) or a hang is a failure.
Captures under 4096 bytes are padded instead, when their format allows trailing bytes: the JSON
ones get spaces after the last bracket. The same cuts are also gzipped and read with
gzip_spill_bytes 1, so that the spilled mapping ends at the same byte."""
import glob
import gzip
import os
import shutil
import subprocess
import tempfile

from testlib import check, done, skip_part

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.chdir(ROOT)
LIB = os.path.abspath("libprofsql")
PAGE = 4096

paths = sorted(p for p in glob.glob("tests/data/**/*", recursive=True) + glob.glob("examples/**/*", recursive=True)
               if os.path.isfile(p) and not p.endswith((".py", ".sh", ".sql", ".c", ".js", ".md")))
corpus = os.path.join(ROOT, "..", "shared", "corpus")
if os.path.isdir(corpus):
    paths += sorted(p for p in glob.glob(os.path.join(corpus, "**", "*"), recursive=True)
                    if os.path.isfile(p) and os.path.getsize(p) < (8 << 20) and not p.endswith((".md", ".proto")))
else:
    skip_part(f"the corpus: {corpus} not found (it ships beside the repository, not in it); the repository's captures only")

tmp = tempfile.mkdtemp()
SQL = """SELECT profsql_config('gzip_spill_bytes', 1);
SELECT count(*), total(length(args)) FROM profile_events('{p}');
SELECT count(*) FROM profile_records('{p}');
SELECT count(*), total(length(value)) FROM profile_metadata('{p}');
SELECT count(*) FROM profile_jobs('{p}');
"""
cases = 0
for i, src in enumerate(paths):
    data = open(src, "rb").read()
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except Exception:
            continue                      # a damaged gzip: its own tests cover it
    if len(data) >= PAGE:
        cut = data[:len(data) // PAGE * PAGE]
    elif data.lstrip()[:1] in (b"[", b"{") and data:
        cut = data + b" " * (PAGE - len(data))
    else:
        continue
    for kind in ("plain", "gzip"):
        p = os.path.join(tmp, "c%d.%s" % (i, kind))
        with open(p, "wb") as f:
            f.write(cut if kind == "plain" else gzip.compress(cut))
        try:
            r = subprocess.run(["sqlite3", "-batch", "-init", "/dev/null", "-cmd", ".load " + LIB, ":memory:"],
                               input=SQL.format(p=p.replace("'", "''")), capture_output=True, text=True, timeout=120)
            rc = r.returncode
        except subprocess.TimeoutExpired:
            rc = "timeout"
        cases += 1
        # sqlite3 exits 1 on an SQL error; a signal is a negative return code
        check(rc in (0, 1), f"{os.path.relpath(src, ROOT)} cut to {len(cut)} bytes ({kind}): no crash or hang",
              (rc, (r.stderr if rc != "timeout" else "")[-300:]))
        os.unlink(p)

check(cases >= 20, "enough captures were cut", cases)
shutil.rmtree(tmp)
done()
