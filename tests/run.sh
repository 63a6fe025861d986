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

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for t in test_parser test_sql test_parser.asan test_sql.asan test_fault test_sql_fault test_threads; do
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ./build/$t > "$tmp/$t.out" 2>&1
  add_result "$t" "$tmp/$t.out" $?
done

for sql in tests/sql/*.sql; do
  name=$(basename "$sql" .sql)
  "$SQLITE3" -batch -init /dev/null -cmd '.load ./libprofsql' :memory: < "$sql" > "$tmp/$name.out" 2>&1
  if diff -u "tests/expected/$name.out" "$tmp/$name.out" > "$tmp/$name.diff"; then
    pass=$((pass + 1)); echo "ok   sql/$name"
  else
    fail=$((fail + 1)); echo "FAIL sql/$name:"; head -n 40 "$tmp/$name.diff"
  fi
done

for py in tests/py/test_*.py; do
  name=$(basename "$py" .py)
  "$PYTHON" "$py" > "$tmp/$name.out" 2>&1
  add_result "py/$name" "$tmp/$name.out" $?
done

if sh tests/fuzz/run.sh 0 > "$tmp/fuzz.out" 2>&1; then
  pass=$((pass + 1)); echo "ok   fuzz targets replay their seeds"
else
  fail=$((fail + 1)); echo "FAIL fuzz seed replay:"; tail -n 30 "$tmp/fuzz.out"
fi

echo "$pass passed, $fail failed, $skipped skipped"
[ "$fail" -eq 0 ]
