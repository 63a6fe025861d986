#!/bin/sh
# make valgrind: the C unit tests and every SQL transcript under Valgrind's memcheck (the
# non-sanitizer builds). Fails on any memory error or definite leak. Prints one line per run.
cd "$(dirname "$0")/.." || exit 1
SQLITE3=${SQLITE3:-sqlite3}
VG="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite --show-leak-kinds=definite"
status=0
tmp=$(mktemp -d)              # the run's own scratch file: two runs on one machine do not share it
trap 'rm -rf "$tmp"' EXIT
vg_out=$tmp/vg.out
for t in build/test_parser build/test_sql; do
  if $VG "$t" > "$vg_out" 2>&1; then echo "clean $t"; else echo "FAIL $t"; tail -n 30 "$vg_out"; status=1; fi
done
for sql in tests/sql/*.sql; do
  if $VG "$SQLITE3" -batch -init /dev/null -cmd '.load ./libprofsql' :memory: < "$sql" > "$vg_out" 2>&1 \
     || grep -q "^==[0-9]*==" "$vg_out"; then
    if grep -q "^==[0-9]*==" "$vg_out"; then echo "FAIL $sql"; grep "^==" "$vg_out" | head -30; status=1; continue; fi
  fi
  echo "clean $sql"
done
exit $status
