"""Behaviour unchanged? The identity check of a refactor (issue 33), run by hand:

    /usr/bin/python3 tests/identity.py OLD_LIB NEW_LIB

(each the path of a libprofsql.so, e.g. one built from a clone of the commit before; run from the
repository root). For every file under examples/, tests/data/ and ../shared/corpus/ it compares
what the two libraries make of it: every profile_metadata row, and, for each capture that has
jobs, every file profile_report writes under six option sets (hashed, with the times of day, the
epoch times and the milliseconds in the dated names masked: they differ between any two runs).
Both libraries write their reports into one directory, made here, so the paths the reports name
are the same. Prints what differs and the counts; exits 1 on a difference."""
import hashlib
import os
import re
import shutil
import sqlite3
import sys
import tempfile

OPTS = ['{"write_archive": false}', '{"write_archive": false, "budget_ms": 16.67}',
        '{"write_archive": false, "top_limit": 3}', '{"write_archive": false, "max_csv_rows": 5}',
        '{"write_archive": false, "slow_job_warn_ms": 1}',
        '{"write_archive": false, "write_flamegraph": false, "budgets_ms": {"*": 2}}']


def masked(b):
    """A written file's bytes without what differs between two runs: times and dated names."""
    b = re.sub(rb"20\d\d-?\d\d-?\d\d[T_ -]?\d\d[:-]?\d\d[:-]?\d\d(\.\d+)?Z?", b"<TS>", b)
    b = re.sub(rb"_\d{3}Z", b"_<MS>Z", b)
    b = re.sub(rb"\b1[5-9]\d{11}\b", b"<EPOCHMS>", b)
    return re.sub(rb"\b1[5-9]\d{8}(\.\d+)?\b", b"<EPOCH>", b)


def run(lib, caps, work):
    """[(what, value)] for every capture: its metadata rows, each report file's masked hash."""
    db = sqlite3.connect(":memory:")
    db.enable_load_extension(True)
    db.load_extension(os.path.abspath(lib))
    out = []
    for c in caps:
        try:
            rows = db.execute("SELECT * FROM profile_metadata(?)", (c,)).fetchall()
        except sqlite3.Error as e:
            out.append((f"{c} metadata", f"ERR {e}"))
            continue
        out.append((f"{c} metadata", repr(rows)))
        try:
            db.execute("SELECT count(*) FROM profile_jobs(?)", (c,)).fetchall()
        except sqlite3.Error:
            continue
        for k, o in enumerate(OPTS):
            shutil.rmtree(work, ignore_errors=True)
            os.makedirs(work)
            try:
                db.execute("SELECT profile_report(?, ?, ?)", (c, work, o)).fetchall()
            except sqlite3.Error as e:
                out.append((f"{c} report {k}", f"ERR {e}"))
                continue
            for n in sorted(os.listdir(work)):
                with open(os.path.join(work, n), "rb") as f:
                    h = hashlib.sha256(masked(f.read())).hexdigest()
                out.append((f"{c} report {k} {re.sub(r'[0-9]+', 'N', n)}", h))
    db.close()
    return out


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    caps = []
    for root in ("examples", "tests/data", "../shared/corpus"):
        for d, _, names in os.walk(root):
            caps += [os.path.join(d, n) for n in names]
    caps.sort()
    tmp = tempfile.mkdtemp()
    try:
        a = run(sys.argv[1], caps, os.path.join(tmp, "report"))
        b = run(sys.argv[2], caps, os.path.join(tmp, "report"))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    diff = [(x, y) for x, y in zip(a, b) if x != y]
    if len(a) != len(b):
        diff.append((("count", len(a)), ("count", len(b))))
    for x, y in diff[:20]:
        print("DIFF", x, "\n    ", y)
    loaded = sum(1 for what, v in a if what.endswith(" metadata") and not v.startswith("ERR"))
    reports = len({what.rsplit(" ", 1)[0] for what, _ in a if " report " in what and not _.startswith("ERR")})
    files = sum(1 for what, _ in a if " report " in what)
    print(f"{len(caps)} files, {loaded} loaded: metadata and {reports} reports ({files} files) compared, "
          f"{len(diff)} differ")
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main())
