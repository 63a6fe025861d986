#!/bin/sh
# make demo: load the extension into the sqlite3 shell, query the example capture, write a report
# set, and ask each example capture its question (examples/questions/, one per format).
cd "$(dirname "$0")/.." || exit 1
SQLITE3=${SQLITE3:-sqlite3}
echo "sqlite3 :memory:  -- .load ./libprofsql ; SELECT profsql_version();"
"$SQLITE3" -batch -init /dev/null -cmd '.load ./libprofsql' :memory: "SELECT 'libprofsql ' || profsql_version();"
"$SQLITE3" -batch -init /dev/null -cmd '.load ./libprofsql' :memory: < examples/demo.sql
# the report sets go to a directory of this run's own (OUT, or a new one from mktemp -d), which is
# kept for reading afterwards
out=${OUT:-$(mktemp -d)} || exit 1
mkdir -p "$out/chrome" "$out/timings" "$out/newengine" || exit 1
"$SQLITE3" -batch -init /dev/null -cmd '.load ./libprofsql' -cmd ".parameter set \$out '$out'" :memory: < examples/report.sql
echo "$out/chrome/profiler_categories_latest.csv:"
head -n 4 "$out/chrome/profiler_categories_latest.csv"
echo "$out/chrome/profiler_report_latest.md (quick answer):"
# from its heading to the next one
awk '/^## Quick answer/ { on = 1; print; next } on && /^## / { exit } on' "$out/chrome/profiler_report_latest.md"
for q in server_tps main_thread gpu_ops frame_budget cpu_profile cpu_threads; do
  echo
  head -n 1 "examples/questions/$q.sql" | sed 's/^-- //'
  "$SQLITE3" -batch -init /dev/null -cmd '.load ./libprofsql' :memory: < "examples/questions/$q.sql"
done
