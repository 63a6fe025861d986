#!/bin/sh
# make demo: load the extension into the sqlite3 shell, query the example capture, write a report
# set, and ask each example capture its question (examples/questions/, one per format).
cd "$(dirname "$0")/.." || exit 1
SQLITE3=${SQLITE3:-sqlite3}
echo "sqlite3 :memory:  -- .load ./libprofsql ; SELECT profsql_version();"
"$SQLITE3" -batch -init /dev/null -cmd '.load ./libprofsql' :memory: "SELECT 'libprofsql ' || profsql_version();"
"$SQLITE3" -batch -init /dev/null -cmd '.load ./libprofsql' :memory: < examples/demo.sql
mkdir -p build/demo-report/chrome build/demo-report/timings build/demo-report/newengine
"$SQLITE3" -batch -init /dev/null -cmd '.load ./libprofsql' :memory: < examples/report.sql
echo "build/demo-report/chrome/profiler_categories_latest.csv:"
head -n 4 build/demo-report/chrome/profiler_categories_latest.csv
echo "build/demo-report/chrome/profiler_report_latest.md (quick answer):"
sed -n '/^## Quick answer/,/^## Profiler-first/p' build/demo-report/chrome/profiler_report_latest.md | sed '$d'
for q in server_tps main_thread gpu_ops frame_budget cpu_profile cpu_threads; do
  echo
  head -n 1 "examples/questions/$q.sql" | sed 's/^-- //'
  "$SQLITE3" -batch -init /dev/null -cmd '.load ./libprofsql' :memory: < "examples/questions/$q.sql"
done
