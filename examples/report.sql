-- profile_report on three formats (make demo runs this after demo.sql). Each call writes the
-- StarProfiler report set under the shell parameter $out (a directory of your own, holding the
-- subdirectories chrome/, timings/ and newengine/; examples/demo.sh makes them) and returns its
-- manifest. By hand, from the repository root:
--   out=$(mktemp -d); mkdir "$out/chrome" "$out/timings" "$out/newengine"
--   sqlite3 -cmd '.load ./libprofsql' -cmd ".parameter set \$out '$out'" :memory: < examples/report.sql
.headers on
.mode box

SELECT 'Which plugin / service eats the frame budget? (a newengine StarProfiler report)' AS question;
SELECT coalesce(service_id, 'plugin:' || plugin_id, source || ':' || category) AS owner,
       count(*) AS jobs, round(sum(elapsed_ms), 3) AS total_ms, round(max(load), 3) AS max_load,
       sum(over_budget) AS over_budget
  FROM profile_jobs('examples/newengine_report.json')
 WHERE job_list = 'completed_jobs' GROUP BY owner ORDER BY total_ms DESC;

SELECT 'The report set for a Chrome trace, a timings report and a newengine report' AS question;
SELECT 'chrome' AS capture, json_extract(m, '$.archive') AS archive
  FROM (SELECT profile_report('examples/browser_trace.json', $out || '/chrome') AS m)
UNION ALL
SELECT 'timings', json_extract(m, '$.archive')
  FROM (SELECT profile_report('examples/server_timings.txt', $out || '/timings', '{"budgets_ms": {"*": 50}}') AS m)
UNION ALL
SELECT 'newengine', json_extract(m, '$.archive')
  FROM (SELECT profile_report('examples/newengine_report.json', $out || '/newengine') AS m);
