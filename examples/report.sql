-- profile_report on three formats (make demo runs this after demo.sql; examples/demo.sh makes
-- the directories). Each call writes the StarProfiler report set and returns its manifest.
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
  FROM (SELECT profile_report('examples/browser_trace.json', 'build/demo-report/chrome') AS m)
UNION ALL
SELECT 'timings', json_extract(m, '$.archive')
  FROM (SELECT profile_report('examples/server_timings.txt', 'build/demo-report/timings', '{"budgets_ms": {"*": 50}}') AS m)
UNION ALL
SELECT 'newengine', json_extract(m, '$.archive')
  FROM (SELECT profile_report('examples/newengine_report.json', 'build/demo-report/newengine') AS m);
