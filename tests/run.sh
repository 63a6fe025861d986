#!/bin/sh
# tests/run.sh — everything `make test` runs, ending with one line "N passed, N failed, N skipped".
#
#   1. C unit tests of the parsers (no SQLite)           build/test_parser
#   2. C tests of the extension through the SQLite C API  build/test_sql
#   3. the same two under AddressSanitizer + UBSan        build/*.asan
#   4. SQL transcripts: tests/sql/X.sql run by the sqlite3 CLI, diffed with tests/expected/X.out
#   5. Python: the registered API (pragma_function_list / pragma_module_list) and a client query
#   6. corpus: every file in ../shared/corpus/chrome against an independent Python json computation
#   7. the libFuzzer targets replay their seeds and regression inputs (make fuzz runs them longer)
# The units run side by side, NPROC (default: the number of cores) at a time; results print in
# the order above.
# C and Python tests print "RESULT <passed> <failed> [<skipped>]" as their last line; each check
# counts. A part that cannot run here (no ../shared/corpus, a missing tool) prints "SKIP <why>"
# and is counted as skipped, never as passed.
cd "$(dirname "$0")/.." || exit 1
SQLITE3=${SQLITE3:-sqlite3}
PYTHON=${PYTHON:-/usr/bin/python3}
pass=0
fail=0
skipped=0     # checks that cannot run here (each says why on a SKIP line), e.g. without ../shared

add_result() {   # $1 = name, $2 = output file, $3 = exit code
  line=$(grep '^RESULT ' "$2" | tail -n 1)
  if [ -n "$line" ]; then
    p=$(echo "$line" | cut -d' ' -f2); f=$(echo "$line" | cut -d' ' -f3)
    s=$(echo "$line" | cut -d' ' -f4); [ -n "$s" ] || s=0
  else
    p=0; f=0; s=0
  fi
  if [ "$3" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  pass=$((pass + p)); fail=$((fail + f)); skipped=$((skipped + s))
  if [ "$f" -ne 0 ]; then
    echo "FAIL $1 ($p passed, $f failed, exit $3):"; grep -v '^ok ' "$2" | tail -n 40
  elif [ "$s" -ne 0 ]; then
    echo "ok   $1 ($p checks, $s skipped)"
    grep '^SKIP ' "$2" | sed 's/^/       /'
  else
    echo "ok   $1 ($p checks)"
  fi
}

# one unit of the suite: `sh tests/run.sh --one KIND NAME DIR` runs it and leaves DIR/NAME.out and
# DIR/NAME.rc (the units run side by side, NPROC at a time; they share no output file)
if [ "${1:-}" = "--one" ]; then
  kind=$2; name=$3; dir=$4; key=$(echo "$name" | tr '/' '_')
  case $kind in
    c)    ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 "./build/$name" > "$dir/$key.out" 2>&1 ;;
    sql)  base=$(basename "$name" .sql)
          "$SQLITE3" -batch -init /dev/null -cmd '.load ./libprofsql' :memory: < "$name" > "$dir/$key.got" 2>&1
          diff -u "tests/expected/$base.out" "$dir/$key.got" > "$dir/$key.out" ;;
    py)   "$PYTHON" "$name" > "$dir/$key.out" 2>&1 ;;
    fuzz) sh tests/fuzz/run.sh 0 > "$dir/$key.out" 2>&1 ;;
  esac
  echo $? > "$dir/$key.rc"
  exit 0
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# every unit's temporary files (Python's tempfile, mktemp, SQLite's) go under this run's directory,
# so they go with it, and two runs on one machine share none
mkdir "$tmp/tmp" && TMPDIR=$tmp/tmp && export TMPDIR
rm -f libprofsql          # a stray file of that name once came from a test; the check below keeps it out

# the units, slowest first so that the last ones to start are short
units="fuzz seeds
c test_sql_fault
py tests/py/test_hostile.py
py tests/py/test_writers.py
py tests/py/test_import.py
c test_parser.asan"
for t in test_parser test_sql test_sql.asan test_fault test_threads; do units="$units
c $t"; done
for py in tests/py/test_*.py; do
  case $py in */test_hostile.py|*/test_writers.py|*/test_import.py) ;; *) units="$units
py $py" ;; esac
done
for sql in tests/sql/*.sql; do units="$units
sql $sql"; done
NPROC=${NPROC:-$(nproc 2>/dev/null || echo 2)}
# xargs appends each line's two words (kind, name) after the fixed arguments
echo "$units" | xargs -P "$NPROC" -L 1 sh -c 'SQLITE3="$0" PYTHON="$1" sh tests/run.sh --one "$3" "$4" "$2"' "$SQLITE3" "$PYTHON" "$tmp"

# the results, in a fixed order
for t in test_parser test_sql test_parser.asan test_sql.asan test_fault test_sql_fault test_threads; do
  add_result "$t" "$tmp/$t.out" "$(cat "$tmp/$t.rc" 2>/dev/null || echo 1)"
done
for sql in tests/sql/*.sql; do
  key=$(echo "$sql" | tr '/' '_'); name=$(basename "$sql" .sql)
  if [ "$(cat "$tmp/$key.rc" 2>/dev/null || echo 1)" -eq 0 ]; then
    pass=$((pass + 1)); echo "ok   sql/$name"
  else
    fail=$((fail + 1)); echo "FAIL sql/$name:"; head -n 40 "$tmp/$key.out"
  fi
done
for py in tests/py/test_*.py; do
  key=$(echo "$py" | tr '/' '_'); name=$(basename "$py" .py)
  add_result "py/$name" "$tmp/$key.out" "$(cat "$tmp/$key.rc" 2>/dev/null || echo 1)"
done
if [ "$(cat "$tmp/seeds.rc" 2>/dev/null || echo 1)" -eq 0 ]; then
  pass=$((pass + 1)); echo "ok   fuzz targets replay their seeds"
else
  fail=$((fail + 1)); echo "FAIL fuzz seed replay:"; tail -n 30 "$tmp/seeds.out"
fi
if [ -e libprofsql ]; then
  fail=$((fail + 1)); echo "FAIL a file named 'libprofsql' appeared in the repository root during the tests"
fi

echo "$pass passed, $fail failed, $skipped skipped"
[ "$fail" -eq 0 ]
