#!/bin/sh
# .ci/deps.sh — the one list of the Debian packages libprofsql needs, and the step that installs
# the missing ones. The Makefile runs it before building (make, make demo: `build`; make test:
# `test`), .ci/run runs it, and README.md / docs/install.md quote `sh .ci/deps.sh list ...`.
#
#   sh .ci/deps.sh list build|test|test-core|bench     prints the package names
#   sh .ci/deps.sh missing build|test|test-core|bench  prints those not installed (dpkg's view)
#   sh .ci/deps.sh ensure build|test|test-core|bench   installs the missing ones: with apt-get as
#                                      root, with `sudo -n apt-get` where that works, else prints
#                                      the one `apt-get install` line to run and exits 1
# test is everything the tests use (CI installs it: .ci/run); test-core leaves out the optional
# stacks (TEST_OPTIONAL below), whose tests print a SKIP line when they are missing.
# PROFSQL_TEST_MINIMAL=1 turns `test` into `test-core` (PROFSQL_TEST_MINIMAL=1 make test).
# When another apt-get or dpkg holds its lock, ensure waits for it (up to 10 minutes) instead of
# failing: apt-get's DPkg::Lock::Timeout covers dpkg's lock, not `apt-get update`'s, hence the
# retry loop too.
# On a system without dpkg it says which packages it would want and exits 0: the build then
# finds out for itself.
set -eu

# build: the C compiler and make, SQLite (headers and the sqlite3 shell the demo runs), zlib,
# minizip (ZIP archives in and out), libdeflate (gzip captures inflated 2.5x faster than zlib
# does when their size is known: docs/performance.md; zlib stays the fallback)
BUILD="build-essential pkg-config libsqlite3-dev sqlite3 zlib1g-dev libminizip-dev libdeflate-dev"
# test: Debian's python3 (loads extensions) and its venv, clang with the sanitizer runtime
# (ASan/UBSan/TSan/libFuzzer), protoc (--decode_raw checks XSpace), unzip (-t), unixodbc and the
# SQLite ODBC driver (the BI tools' route), chromium and chromium-driver (render the flame graph SVG
# and drive its clicks and search through WebDriver), GNU parallel (the sharded recipe of
# docs/scaling.md), pandas (the
# pd.read_sql route of examples/python/query.py), apsw (the route for Pythons that cannot load
# extensions), pip (the bindings/python package installed in a venv), gzip,
# dpkg-dev (make deb: dpkg-deb, dpkg-architecture), libprotobuf-dev (google/protobuf/any.proto, which
# the xprof .proto files import, so that protoc can encode and decode them) and python3-protobuf (the
# independent decoder the xprof tests compare every row and JSON value with), python3-markdown
# (renders the Markdown writers' output: no name may become live HTML). bindings/python needs no
# setuptools or wheel: its build backend is its own (bindings/python/profsql_build.py).
TEST_CORE="$BUILD python3 python3-venv python3-pip python3-pandas python3-apsw clang libclang-rt-dev gzip \
protobuf-compiler libprotobuf-dev python3-protobuf unzip parallel dpkg-dev python3-markdown"
# optional: the ODBC stack (tests/py/test_odbc.py), the browser (tests/py/test_flame_browser.py,
# test_flamegraph.py's rendering check), and Slurm with munge (tests/py/test_slurm.py runs the Slurm
# array job of docs/scaling.md on a one-node cluster it starts): about 400 MB; their tests skip with
# a line without them
TEST_OPTIONAL="unixodbc libsqliteodbc chromium chromium-driver slurm-wlm munge"
TEST="$TEST_CORE $TEST_OPTIONAL"

# bench (make bench, not CI): the tests' python3, protoc and python3-protobuf (baselines of the XSpace
# and tf_stats rows), gzip, and simdjson (libsimdjson-dev, with g++ from build-essential): the
# On-Demand aggregate issue 18 compares the GROUP BY query with (tests/bench/simdjson_agg.cpp)
BENCH="$BUILD python3 protobuf-compiler libprotobuf-dev python3-protobuf gzip libsimdjson-dev"

what=${2:-build}
if [ "$what" = test ] && [ "${1:-}" = ensure ] && [ -n "${PROFSQL_TEST_MINIMAL:-}" ] && [ "$PROFSQL_TEST_MINIMAL" != 0 ]; then
  what=test-core
fi
case $what in
  build) pkgs=$BUILD ;;
  test)  pkgs=$TEST ;;
  test-core) pkgs=$TEST_CORE ;;
  bench) pkgs=$BENCH ;;
  *) echo "deps.sh: expected build, test, test-core or bench, not '$what'" >&2; exit 2 ;;
esac

# apt_wait CMD...: runs CMD (an apt-get command line); while it fails because another apt-get or
# dpkg holds a lock, waits and runs it again, for up to 10 minutes
apt_wait() {
  err=$(mktemp)
  waited=0
  while :; do
    if "$@" 2>"$err"; then cat "$err" >&2; rm -f "$err"; return 0; fi
    if grep -q -e 'Could not get lock' -e 'Unable to acquire the dpkg frontend lock' -e 'Unable to lock' "$err" \
       && [ "$waited" -lt 600 ]; then
      [ "$waited" -gt 0 ] || echo "deps.sh: another apt-get or dpkg holds the lock; waiting for it (up to 10 minutes)" >&2
      sleep 5; waited=$((waited + 5))
      continue
    fi
    cat "$err" >&2; rm -f "$err"; return 1
  done
}

missing() {
  for p in $pkgs; do
    s=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
    [ "$s" = installed ] || printf '%s ' "$p"
  done
}

case ${1:-} in
  list) echo $pkgs ;;
  missing)
    command -v dpkg-query >/dev/null 2>&1 || { echo "deps.sh: no dpkg here" >&2; exit 2; }
    m=$(missing); echo ${m} ;;
  ensure)
    if ! command -v dpkg-query >/dev/null 2>&1; then
      echo "deps.sh: not a Debian system; libprofsql's $what needs the equivalents of: $pkgs" >&2
      exit 0
    fi
    m=$(missing)
    [ -n "$m" ] || exit 0
    echo "libprofsql's $what needs Debian packages that are not installed: $m"
    if [ "$(id -u)" -eq 0 ]; then
      SUDO=""
    elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
      SUDO="sudo -n"
    else
      echo "Install them with:" >&2
      echo "  sudo apt-get install -y --no-install-recommends $m" >&2
      echo "then run make again." >&2
      if [ "$what" = test ]; then
        echo "(or leave out the optional ODBC and browser stack, whose tests then skip: PROFSQL_TEST_MINIMAL=1 make test)" >&2
      fi
      exit 1
    fi
    export DEBIAN_FRONTEND=noninteractive
    # shellcheck disable=SC2086
    apt_wait $SUDO apt-get -o DPkg::Lock::Timeout=600 update -q
    # shellcheck disable=SC2086
    apt_wait $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends $m
    ;;
  *) echo "usage: sh .ci/deps.sh list|missing|ensure build|test|test-core|bench" >&2; exit 2 ;;
esac
