"""Shared by the Python tests: check() counts passes and failures, done() prints the
"RESULT <passed> <failed>" line tests/run.sh reads and exits non-zero on failure."""
import sys

passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL", what)


def done():
    print(f"RESULT {passed} {failed}")
    sys.exit(1 if failed else 0)
