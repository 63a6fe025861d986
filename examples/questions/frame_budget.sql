-- Which plugin eats the frame budget? (a newengine StarProfiler report)
--   sqlite3 :memory: -cmd '.load ./libprofsql' < examples/questions/frame_budget.sql
.headers on
.mode box
SELECT owner, count(*) AS jobs, round(sum(elapsed_ms), 3) AS total_ms, round(max(load), 2) AS max_load,
       sum(over_budget) AS over_budget, sum(status = 'failed') AS failed
  FROM profile_jobs('examples/newengine_report.json') WHERE job_list = 'completed_jobs'
 GROUP BY owner ORDER BY total_ms DESC;
