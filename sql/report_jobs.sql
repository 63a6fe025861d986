-- report_jobs.sql — the report model of a StarProfiler report (newengine): the writer's own
-- sections, order and headings. Consumers are offenders (owner::method, else the job's name),
-- methods, lanes and categories, ranked by the completed jobs' elapsed time; the budget is each
-- job's own (load = elapsed_ms / budget_ms, over at load >= 1).
-- Run by profile_report after sql/report_model.sql (its header says how, and what the sections
-- are). It reads profsql_rj (the jobs), the ranked groupings report.c made (profsql_ag_o
-- offenders, _m methods, _l lanes: rank, key, category, source, count, failed, slow, tot, share,
-- avg, mx, ml), its job lists (profsql_jl: list l, position pos, job k) and the CSVs of the set
-- that take no parameter, as views (profsql_rp_csv_first, profsql_rp_csv_categories).

CREATE TEMP VIEW profsql_rp_jobs_head AS
SELECT 'written by libprofsql ' || profsql_version() || ' (`profile_report`), the StarProfiler''s report set' AS bullet
UNION ALL SELECT '`load = elapsed_ms / budget_ms`; a job is over budget when `load >= 1`';

CREATE TEMP VIEW profsql_rp_jobs_quick AS
SELECT coalesce((SELECT printf('**Worst offender:** `%s` — %s ms total, %s%% of captured time, %d calls, '
    || 'max load %sx, slow/over-budget %d, failed %d.', replace(key,'`',''''), profile_fixed(tot,6),
    profile_fixed(share,1), count, profile_fixed(ml,2), slow, failed)
  FROM temp.profsql_ag_o ORDER BY rank LIMIT 1), 'No completed jobs were captured.');

CREATE TEMP VIEW profsql_rp_jobs_bars AS
SELECT 'captured time share  ' AS label, share AS value, 100.0 AS max, printf('%5s%%', profile_fixed(share,1)) AS after
  FROM (SELECT * FROM temp.profsql_ag_o ORDER BY rank LIMIT 1)
UNION ALL
SELECT 'max budget load      ', min(ifnull(ml,0.0), 4.0), 4.0, printf('%5sx', profile_fixed(ifnull(ml,0.0),2))
  FROM (SELECT * FROM temp.profsql_ag_o ORDER BY rank LIMIT 1);

CREATE TEMP VIEW profsql_rp_jobs_categories AS
SELECT rank, category, CAST(total_elapsed_ms AS REAL), CAST(total_share_percent AS REAL) FROM temp.profsql_rp_csv_categories;

CREATE TEMP VIEW profsql_rp_jobs_lanes AS
SELECT rank, key, tot, share FROM temp.profsql_ag_l ORDER BY rank;

CREATE TEMP VIEW profsql_rp_jobs_offenders_chart AS
SELECT rank, key, tot, share FROM temp.profsql_ag_o ORDER BY rank;

CREATE TEMP VIEW profsql_rp_jobs_offenders AS
SELECT rank AS Rank, key AS Offender, source AS Source, category AS Category, count AS Calls,
       profile_fixed(tot,6) AS "Total ms", profile_fixed(share,6) AS "Share %", profile_fixed(ml,6) AS "Max load",
       slow AS Slow, failed AS Failed
  FROM temp.profsql_ag_o ORDER BY rank LIMIT 16;

CREATE TEMP VIEW profsql_rp_jobs_methods AS
SELECT rank AS Rank, key AS Method, source AS Source, count AS Calls, profile_fixed(tot,6) AS "Total ms",
       profile_fixed(share,6) AS "Share %", profile_fixed(avg,6) AS "Avg ms", profile_fixed(ml,6) AS "Max load"
  FROM temp.profsql_ag_m ORDER BY rank LIMIT 16;

CREATE TEMP VIEW profsql_rp_jobs_budget AS
SELECT row_number() OVER (ORDER BY l_ DESC, e_ DESC, ifnull(name,''), k) AS Rank, ifnull(id,'') AS Id,
       ifnull(name,'') AS Name, profile_fixed(e_,3) AS "Elapsed ms", profile_fixed(budget2_,3) AS "Budget ms",
       profile_fixed(l_,2) || 'x' AS Load, ifnull(status,'') AS Status
  FROM (SELECT k AS top_k FROM temp.profsql_jl WHERE l = 1 AND pos < 16) JOIN profsql_rj ON k = top_k
 ORDER BY l_ DESC, e_ DESC, ifnull(name,''), k;

CREATE TEMP VIEW profsql_rp_jobs_frame AS
SELECT ifnull(id,'') AS Id, ifnull(name,'') AS Name, profile_fixed(e_,3) AS "Elapsed ms",
       profile_fixed(frame_budget_ms,3) AS "Frame budget ms"
  FROM (SELECT k AS top_k FROM temp.profsql_jl WHERE l = 2 AND pos < 16) JOIN profsql_rj ON k = top_k
 ORDER BY max(e_ - ifnull(frame_budget_ms,0.0), 0.0) DESC, e_ DESC, ifnull(name,''), k;

CREATE TEMP VIEW profsql_rp_jobs_top_elapsed AS
SELECT ifnull(id,'') AS Id, ifnull(name,'') AS Name, ifnull(category,'') AS Category,
       profile_fixed(e_,3) AS "Elapsed ms", profile_fixed(l_,2) || 'x' AS Load, ifnull(status,'') AS Status
  FROM (SELECT k AS top_k FROM temp.profsql_jl WHERE l = 3 AND pos < 16) JOIN profsql_rj ON k = top_k
 ORDER BY e_ DESC, ifnull(name,''), k;

CREATE TEMP VIEW profsql_rp_jobs_top_load AS
SELECT ifnull(id,'') AS Id, ifnull(name,'') AS Name, ifnull(category,'') AS Category,
       profile_fixed(l_,2) || 'x' AS Load, profile_fixed(e_,3) AS "Elapsed ms", ifnull(status,'') AS Status
  FROM (SELECT k AS top_k FROM temp.profsql_jl WHERE l = 4 AND pos < 16) JOIN profsql_rj ON k = top_k
 ORDER BY l_ DESC, ifnull(name,''), k;

CREATE TEMP VIEW profsql_rp_jobs_active AS
SELECT ifnull(id,'') AS Id, ifnull(name,'') AS Name, ifnull(status,'') AS Status,
       profile_fixed(active_elapsed_ms,3) AS "Active ms", profile_fixed(current_load,2) || 'x' AS Load
  FROM profsql_rj WHERE NOT done_ AND (SELECT n_active FROM temp.profsql_rp_counts) > 0 ORDER BY k;

-- facts the sections' choice reads: no profiler-first counter set; no completed job names a method
CREATE TEMP TABLE profsql_rp_jobs_facts AS
SELECT (SELECT ifnull(sum(scheduled),0) + ifnull(sum(blocked),0) + ifnull(sum(polling),0) + ifnull(sum(waited_on_gpu),0)
          + ifnull(sum(stayed_async),0) + ifnull(sum(exceeded_frame_budget),0) = 0 FROM profsql_rj WHERE done_) AS first_zero,
       (SELECT count(*) FILTER (WHERE method_name IS NOT NULL) = 0 AND count(*) > 0 FROM profsql_rj WHERE done_) AS no_method;

CREATE TEMP TABLE profsql_rp_sections AS
SELECT column1 AS kind, column2 AS title, column3 AS source, column4 AS unit, column5 AS text, column6 AS show
  FROM (VALUES
  ('head', NULL, 'profsql_rp_jobs_head', NULL, NULL, 1),
  ('line', 'Quick answer — кто жрёт время', 'profsql_rp_jobs_quick', NULL, NULL, 1),
  ('bars', NULL, 'profsql_rp_jobs_bars', NULL, NULL, 1),
  ('text', 'Profiler-first telemetry view', NULL, NULL,
   'No completed job was scheduled, blocked, polling, waiting on the GPU, async or over its frame budget: '
   || 'every counter of `profiler_first_latest.csv` is 0.', (SELECT first_zero FROM temp.profsql_rp_jobs_facts)),
  ('table', 'Profiler-first telemetry view', 'profsql_rp_csv_first', NULL, NULL,
   (SELECT NOT first_zero FROM temp.profsql_rp_jobs_facts)),
  ('chart', 'Load chart — категории по суммарному времени', 'profsql_rp_jobs_categories', 'ms', NULL, 1),
  ('chart', 'Load chart — lanes', 'profsql_rp_jobs_lanes', 'ms', NULL, 1),
  ('chart', 'Load chart — top offenders', 'profsql_rp_jobs_offenders_chart', 'ms', NULL, 1),
  ('table', 'Top offenders by total elapsed time', 'profsql_rp_jobs_offenders', NULL, NULL, 1),
  ('text', 'Top methods by total elapsed time', NULL, NULL,
   'No completed job names a method (every method key is `<owner>::<no-method>`): the grouping by method is '
   || 'the grouping by owner, see the offenders above.', (SELECT no_method FROM temp.profsql_rp_jobs_facts)),
  ('table', 'Top methods by total elapsed time', 'profsql_rp_jobs_methods', NULL, NULL,
   (SELECT NOT no_method FROM temp.profsql_rp_jobs_facts)),
  ('table', 'Budget violations — что пробило кадр/лимит', 'profsql_rp_jobs_budget', NULL,
   'None: no completed job reached its budget (`load >= 1`) or the slow threshold (`slow_job_warn_ms`).', 1),
  ('table', 'Frame budget violations — explicit frame envelope misses', 'profsql_rp_jobs_frame', NULL,
   'None: no completed job exceeded an explicit frame budget (`exceeded_frame_budget`).', 1),
  ('table', 'Top single jobs by elapsed time', 'profsql_rp_jobs_top_elapsed', NULL, NULL, 1),
  ('table', 'Top single jobs by budget load', 'profsql_rp_jobs_top_load', NULL, NULL, 1),
  ('table', 'Active jobs', 'profsql_rp_jobs_active', NULL, 'None: no job was still running when the report was written.', 1));
