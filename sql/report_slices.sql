-- report_slices.sql — the report model of a capture of slices (Chrome JSON, ftrace, systrace,
-- lms, xprof trace files, a mixed directory): consumers are threads and slice names, ranked by
-- slice self time on thread tracks; async spans, and a CPU's scheduling intervals (ftrace) with
-- its idle time, are figures of their own, never added into the threads' time.
-- Run by profile_report after sql/report_model.sql (its header says how, and what the sections
-- are); ?1 is the source. It reads profsql_rj (the jobs: the complete slices on thread tracks)
-- and the groupings of them report.c's scan made (profsql_rp_gth by thread, _gnm by name, _gma
-- all: columns key, k0, n, v (self ms), mx (slowest ms), cats, kl (the group's last job)).

-- threads and names by self time (read by several sections: tables)
CREATE TEMP TABLE profsql_rp_threads AS
SELECT ifnull(r.source,'') || ' / ' || ifnull(r.lane,'') AS key, ifnull(r.source,'') AS proc,
       ifnull(r.lane,'') AS thr, g.n AS n, g.v AS v, g.mx AS mx
  FROM temp.profsql_rp_gth g JOIN profsql_rj r ON r.k = g.kl;

CREATE TEMP TABLE profsql_rp_names AS
SELECT ifnull(key,'') AS key, cats, n, v, mx FROM temp.profsql_rp_gnm;

-- async spans (complete slices on async tracks) by name: not a thread's work
CREATE TEMP TABLE profsql_rp_async AS
SELECT ifnull(e.name,'') AS name, count(*) AS n, sum(e.dur) / 1e6 AS ms, max(e.dur) / 1e6 AS mx
  FROM profile_events(?1) e
 WHERE e.kind = 'slice' AND e.dur IS NOT NULL AND e.track IN
       (SELECT id FROM profile_tracks(?1) WHERE kind IN ('process_async', 'global_async', 'thread_async'))
 GROUP BY e.name;

CREATE TEMP TABLE profsql_rp_async_all AS
SELECT ifnull(sum(n), 0) AS n, ifnull(sum(ms), 0) AS ms FROM temp.profsql_rp_async;

-- a CPU's scheduling intervals by (CPU, thread), the idle task flagged: CPU time, not wall time
CREATE TEMP TABLE profsql_rp_cpu AS
SELECT e.cpu AS cpu, th.utid AS utid, ifnull(th.name, 'tid ' || th.tid) AS thr, th.is_idle AS idle,
       count(*) AS n, sum(e.dur) / 1e6 AS ms
  FROM profile_events(?1) e JOIN profile_threads(?1) th ON th.utid = e.utid
 WHERE e.kind = 'sched' AND e.dur IS NOT NULL
 GROUP BY e.cpu, th.utid;

CREATE TEMP TABLE profsql_rp_cpu_all AS
SELECT count(*) AS n, ifnull(sum(ms), 0) AS ms, count(DISTINCT cpu) AS cpus,
       ifnull(sum(CASE WHEN idle THEN ms END), 0) AS idle FROM temp.profsql_rp_cpu;

CREATE TEMP VIEW profsql_rp_quick AS
WITH th AS (SELECT * FROM temp.profsql_rp_threads), nm AS (SELECT * FROM temp.profsql_rp_names),
t(tot, n) AS (SELECT a.v, ifnull(a.n,0) FROM (SELECT 1) LEFT JOIN temp.profsql_rp_gma a),
top1 AS (SELECT * FROM th ORDER BY v DESC, key LIMIT 1),
top2 AS (SELECT * FROM nm ORDER BY v DESC, key LIMIT 1),
slow AS (SELECT name, lane, e_ FROM (SELECT k AS top_k FROM temp.profsql_jl WHERE l = 3 AND pos < 1)
         JOIN profsql_rj ON k = top_k)
SELECT CASE WHEN t.n = 0 THEN 'No complete slices were captured.' ELSE
  printf('**Most self time:** %s — %.3f ms of the %.3f ms of slice self time on thread tracks (%.1f %% of it) in %d slices. '
    || 'The name with the most self time is `%s` (%.3f ms, %.1f %% of that self time); the slowest single slice is `%s`%s (%.3f ms elapsed).',
    -- (profile_jobs labels a thread without ids 'pid ?' / 'tid ?': an lms CSV's one track)
    CASE WHEN top1.thr = 'tid ?' AND top1.proc = 'pid ?' THEN 'an unnamed thread (its file gives no pid or tid)'
         WHEN top1.proc = 'pid ?' THEN printf('thread `%s`', replace(top1.thr,'`',''''))
         ELSE printf('thread `%s` of `%s`', replace(top1.thr,'`',''''), replace(top1.proc,'`','''')) END,
    top1.v, t.tot, CASE WHEN t.tot<>0 THEN top1.v*100.0/t.tot ELSE 0 END, top1.n,
    replace(top2.key,'`',''''), top2.v, CASE WHEN t.tot<>0 THEN top2.v*100.0/t.tot ELSE 0 END,
    replace(ifnull(slow.name,''),'`',''''),
    CASE WHEN ifnull(slow.lane,'tid ?') = 'tid ?' THEN '' ELSE printf(' on `%s`', replace(slow.lane,'`','''')) END, slow.e_) END
  || ifnull((SELECT printf(' Async spans, counted apart (their own tracks: they overlap the threads'' work): %d, %.3f ms in all.', n, ms)
             FROM temp.profsql_rp_async_all WHERE n > 0), '')
  || ifnull((SELECT printf(' CPU time from scheduling, a measure of its own: %.3f ms on %d CPUs, of which %.3f ms idle.', ms, cpus, idle)
             FROM temp.profsql_rp_cpu_all WHERE n > 0), '')
  FROM t LEFT JOIN top1 LEFT JOIN top2 LEFT JOIN slow;

-- the groupings ranked (rn, share; the first 15 and the rest in one row: report.c's '.rank')
.rank profsql_rp_threads
.rank profsql_rp_names

CREATE TEMP VIEW profsql_rp_threads_table AS
SELECT rn AS Rank, proc AS Process, thr AS Thread, n AS Slices, profile_fixed(v,3) AS "Self ms",
       profile_fixed(share,3) AS "Share %", profile_fixed(mx,3) AS "Slowest slice ms"
  FROM temp.profsql_rp_threads_r WHERE rn <= 15
UNION ALL SELECT '', '(' || n || ' more)', '', '', profile_fixed(v,3), profile_fixed(share,3), ''
  FROM temp.profsql_rp_threads_rest ORDER BY 1;

CREATE TEMP VIEW profsql_rp_names_table AS
SELECT rn AS Rank, key AS Name, ifnull(cats,'') AS Category, n AS Slices, profile_fixed(v,3) AS "Self ms",
       profile_fixed(share,3) AS "Share %", profile_fixed(mx,3) AS "Slowest ms"
  FROM temp.profsql_rp_names_r WHERE rn <= 15
UNION ALL SELECT '', '(' || n || ' more)', '', '', profile_fixed(v,3), profile_fixed(share,3), ''
  FROM temp.profsql_rp_names_rest ORDER BY 1;

CREATE TEMP VIEW profsql_rp_slowest AS
SELECT row_number() OVER (ORDER BY e_ DESC, ifnull(name,''), k) AS Rank, ifnull(id,'') AS Id,
       ifnull(name,'') AS Name, ifnull(source,'') AS Process, ifnull(lane,'') AS Thread,
       profile_fixed(e_,3) AS "Elapsed ms", profile_fixed(self_ms,3) AS "Self ms"
  FROM (SELECT k AS top_k FROM temp.profsql_jl WHERE l = 3 AND pos < 16) JOIN profsql_rj ON k = top_k
 ORDER BY e_ DESC, ifnull(name,''), k;

CREATE TEMP VIEW profsql_rp_async_table AS
SELECT row_number() OVER (ORDER BY ms DESC, name) AS Rank, name AS Name, n AS Spans,
       profile_fixed(ms,3) AS "Total ms", profile_fixed(mx,3) AS "Longest ms"
  FROM temp.profsql_rp_async ORDER BY ms DESC, name LIMIT 16;

CREATE TEMP VIEW profsql_rp_cpu_threads AS
SELECT row_number() OVER (ORDER BY sum(ms) DESC, thr) AS Rank, thr AS Thread, sum(n) AS Intervals,
       profile_fixed(sum(ms),3) AS "CPU ms",
       profile_fixed(sum(ms) * 100.0 / (SELECT ms - idle FROM temp.profsql_rp_cpu_all),1) AS "% of busy CPU time"
  FROM temp.profsql_rp_cpu WHERE NOT idle GROUP BY utid ORDER BY sum(ms) DESC, thr LIMIT 16;

CREATE TEMP VIEW profsql_rp_cpu_idle AS
SELECT cpu AS CPU, profile_fixed(sum(CASE WHEN idle THEN ms ELSE 0 END),3) AS "Idle ms",
       profile_fixed(sum(ms),3) AS "Scheduled ms",
       profile_fixed(sum(CASE WHEN idle THEN ms ELSE 0 END) * 100.0 / sum(ms),1) AS "Idle % of the CPU's time"
  FROM temp.profsql_rp_cpu GROUP BY cpu ORDER BY cpu;

CREATE TEMP TABLE profsql_rp_sections AS
SELECT column1 AS kind, column2 AS title, column3 AS source, column4 AS unit, column5 AS text, column6 AS show
  FROM (VALUES
  ('head', NULL, 'profsql_rp_head', NULL, ' (format `' || (SELECT format FROM temp.profsql_rp_model) || '`)', 1),
  ('line', 'Quick answer — кто жрёт время', 'profsql_rp_quick', NULL, NULL, 1),
  ('chart', 'Self time by thread', 'profsql_rp_threads_chart', 'ms', NULL, 1),
  ('table', 'Threads by self time', 'profsql_rp_threads_table', NULL, NULL, 1),
  ('chart', 'Self time by name', 'profsql_rp_names_chart', 'ms', NULL, 1),
  ('table', 'Names by self time', 'profsql_rp_names_table', NULL, NULL, 1),
  ('table', 'Slowest slices', 'profsql_rp_slowest', NULL, NULL, 1),
  ('table', 'Async spans — not thread time', 'profsql_rp_async_table', NULL,
   'None: the capture has no async spans (b/e, S/F on their own tracks). Spans that do are listed here, '
   || 'apart from the threads'' self time, which they would overlap.', 1),
  ('table', 'CPU time by thread — from scheduling, not wall time', 'profsql_rp_cpu_threads', NULL, NULL,
   (SELECT n > 0 FROM temp.profsql_rp_cpu_all)),
  ('table', 'Idle time per CPU', 'profsql_rp_cpu_idle', NULL, NULL, (SELECT n > 0 FROM temp.profsql_rp_cpu_all)),
  ('line', 'Budget violations', 'profsql_rp_budget_line', NULL, NULL, 1),
  ('rows', NULL, 'profsql_rp_budget_rows', NULL, NULL, 1));
