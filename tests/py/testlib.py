"""Shared by the Python tests: check() counts passes and failures, done() prints the
"RESULT <passed> <failed>" line tests/run.sh reads and exits non-zero on failure."""
import os
import sqlite3
import sys

passed = failed = 0


def check(cond, what, got=None):
    """Counts one check; on failure prints what was checked and, when given, what came instead."""
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL", what if got is None else f"{what}: got {got!r}")


def done():
    print(f"RESULT {passed} {failed}")
    sys.exit(1 if failed else 0)


def connect():
    """A connection with ./libprofsql loaded (run from the repository root)."""
    db = sqlite3.connect(":memory:")
    db.enable_load_extension(True)
    db.load_extension(os.path.abspath("libprofsql"))
    return db


def skip(what):
    """Ends a test that has nothing to run here (e.g. ../shared/corpus is absent)."""
    print(f"SKIP {what}")
    print("RESULT 0 0")
    sys.exit(0)
