-- report_training.sql — the report model of a PyTorch profiler (Kineto) trace, or a directory of
-- rank traces, with device kernels: it leads with what training people ask (HTA's analyses,
-- sql/training.sql) per rank — GPU idle, computation and communication time, the overlap of
-- communication by computation, the top kernels of each class, launch delays, the slowest step
-- and the straggler ranks — then gives the CPU side as the slices model does (threads and names
-- by self time on thread tracks, async spans apart).
-- Run by profile_report after sql/report_model.sql (its header says how, and what the sections
-- are); ?1 is the source.

-- the slices' figures and sections, kept after the GPU's below: the CPU side only (a device
-- activity is a slice of a GPU stream's track, whose time the GPU sections count)
.read sql/report_slices.sql
DELETE FROM temp.profsql_rp_threads;
INSERT INTO temp.profsql_rp_threads
SELECT ifnull(source,'') || ' / ' || ifnull(lane,''), ifnull(source,''), ifnull(lane,''), count(*), sum(self_ms), max(e_)
  FROM profsql_rj WHERE done_ AND ifnull(category,'') NOT IN ('kernel', 'gpu_memcpy', 'gpu_memset', 'mtia_ccp_events') GROUP BY source, lane;
DELETE FROM temp.profsql_rp_names;
INSERT INTO temp.profsql_rp_names
SELECT ifnull(name,''), group_concat(DISTINCT category), count(*), sum(self_ms), max(e_)
  FROM profsql_rj WHERE done_ AND ifnull(category,'') NOT IN ('kernel', 'gpu_memcpy', 'gpu_memset', 'mtia_ccp_events') GROUP BY name;
CREATE TEMP VIEW profsql_rp_slowest AS
SELECT row_number() OVER (ORDER BY e_ DESC, ifnull(name,''), k) AS Rank, ifnull(id,'') AS Id,
       ifnull(name,'') AS Name, ifnull(source,'') AS Process, ifnull(lane,'') AS Thread,
       profile_fixed(e_,3) AS "Elapsed ms", profile_fixed(self_ms,3) AS "Self ms"
  FROM (SELECT k AS top_k FROM profsql_rj WHERE done_ AND ifnull(category,'') NOT IN ('kernel', 'gpu_memcpy', 'gpu_memset', 'mtia_ccp_events')
         ORDER BY e_ DESC, ifnull(name,''), k LIMIT 16) JOIN profsql_rj ON k = top_k
 ORDER BY e_ DESC, ifnull(name,''), k;

-- the capture sql/training.sql reads; its rows read once (one pass over the files), the views
-- then read the table
CREATE TEMP TABLE profsql_rp_training_source AS SELECT ?1 AS source;
.read sql/training.sql
CREATE TEMP TABLE profsql_rp_tr_rows AS SELECT * FROM temp.profsql_rp_training_rows;
DROP VIEW temp.profsql_rp_training_rows;
CREATE TEMP VIEW profsql_rp_training_rows AS SELECT * FROM temp.profsql_rp_tr_rows;

-- the per-rank figures, computed once: a row per file (two files of one rank stay two rows)
CREATE TEMP TABLE profsql_rp_tr_rank AS
WITH k AS (SELECT file, count(*) AS n FROM temp.profsql_rp_gpu_kernels GROUP BY file),
s AS (SELECT file, max(dur) AS slowest FROM temp.profsql_rp_training_steps GROUP BY file),
g AS (SELECT file, sum(straggler) AS n FROM temp.profsql_rp_step_stragglers GROUP BY file)
SELECT t.rank, t.kernel_ns, t.idle_pct, t.compute_pct, t.non_compute_pct, o.comm_ns, o.overlap_pct,
       ifnull(k.n, 0) AS kernels, s.slowest AS slowest_step_ns, ifnull(g.n, 0) AS straggler_steps, t.file
  FROM temp.profsql_rp_gpu_temporal_breakdown t LEFT JOIN temp.profsql_rp_comm_comp_overlap o ON o.file IS t.file
       LEFT JOIN k ON k.file IS t.file LEFT JOIN s ON s.file IS t.file LEFT JOIN g ON g.file IS t.file;

CREATE TEMP VIEW profsql_rp_tr_quick AS
WITH r AS (SELECT * FROM temp.profsql_rp_tr_rank),
worst AS (SELECT * FROM r ORDER BY idle_pct DESC, rank LIMIT 1),
slow AS (SELECT * FROM temp.profsql_rp_step_stragglers ORDER BY ratio DESC, dur DESC, rank LIMIT 1)
SELECT printf('**GPU:** %d rank%s; idle %.1f %% of the kernel span on average (the most: rank `%s`, %.1f %%), '
              || 'computation %.1f %%, communication and memory alone %.1f %%%s.',
              (SELECT count(*) FROM r), CASE WHEN (SELECT count(*) FROM r) = 1 THEN '' ELSE 's' END,
              (SELECT avg(idle_pct) FROM r), replace(worst.rank, '`', ''''), worst.idle_pct,
              (SELECT avg(compute_pct) FROM r), (SELECT avg(non_compute_pct) FROM r),
              CASE WHEN (SELECT sum(comm_ns) FROM r) > 0
                   THEN printf('; %.1f %% of the communication overlapped by computation', (SELECT sum(comm_ns * overlap_pct) / sum(comm_ns) FROM r WHERE comm_ns > 0))
                   ELSE '; no communication kernels' END)
    || ifnull((SELECT printf(' **Slowest step:** step %d on rank `%s`, %.3f ms, %.2f× the median over the ranks%s.',
              slow.step, replace(slow.rank, '`', ''''), slow.dur / 1e6, slow.ratio,
              CASE WHEN slow.straggler THEN ': a straggler' ELSE '' END) FROM slow), ' No `ProfilerStep#N` slices: no step times.')
  FROM worst;

CREATE TEMP VIEW profsql_rp_tr_ranks AS
SELECT rank AS Rank, kernels AS Kernels, profile_fixed(kernel_ns / 1e6, 3) AS "Kernel span ms",
       profile_fixed(idle_pct, 1) AS "Idle %", profile_fixed(compute_pct, 1) AS "Computation %",
       profile_fixed(non_compute_pct, 1) AS "Non-computation %",
       ifnull(profile_fixed(overlap_pct, 1), '') AS "Comm. overlapped %",
       ifnull(profile_fixed(slowest_step_ns / 1e6, 3), '') AS "Slowest step ms", straggler_steps AS "Straggler steps"
  FROM temp.profsql_rp_tr_rank ORDER BY rank, file;

CREATE TEMP VIEW profsql_rp_tr_kernels AS
SELECT rank AS "Rank", class AS Class, name AS Kernel,
       count AS Count, profile_fixed(sum_ns / 1e6, 3) AS "Total ms", profile_fixed(mean_ns / 1e3, 3) AS "Mean us",
       profile_fixed(class_share_pct, 1) AS "% of class", profile_fixed(total_share_pct, 1) AS "% of kernel time"
  FROM (SELECT *, row_number() OVER (PARTITION BY rank, class ORDER BY sum_ns DESC, name) AS k FROM temp.profsql_rp_gpu_kernel_breakdown)
 WHERE k <= 5 ORDER BY sum_ns DESC, rank, name LIMIT 16;

CREATE TEMP VIEW profsql_rp_tr_launch AS
SELECT rank AS "Rank", count(*) AS Launches, profile_fixed(avg(launch_delay) / 1e3, 3) AS "Mean delay us",
       profile_fixed(max(launch_delay) / 1e3, 3) AS "Max delay us", profile_fixed(avg(launch_dur) / 1e3, 3) AS "Mean launch call us"
  FROM temp.profsql_rp_kernel_launch_stats GROUP BY rank ORDER BY rank;

CREATE TEMP VIEW profsql_rp_tr_idle AS
SELECT rank AS "Rank", ifnull(stream, '') AS Stream, profile_fixed(idle_ns / 1e6, 3) AS "Idle ms",
       profile_fixed(host_wait_ns / 1e6, 3) AS "Host wait ms", profile_fixed(kernel_wait_ns / 1e6, 3) AS "Kernel wait ms"
  FROM temp.profsql_rp_gpu_idle_breakdown ORDER BY idle_ns DESC, rank LIMIT 16;

CREATE TEMP VIEW profsql_rp_tr_stragglers AS
SELECT rank AS "Rank", step AS Step, profile_fixed(dur / 1e6, 3) AS "Step ms", profile_fixed(median_dur / 1e6, 3) AS "Median ms",
       profile_fixed(ratio, 2) AS Ratio
  FROM temp.profsql_rp_step_stragglers WHERE straggler ORDER BY ratio DESC, step, rank LIMIT 16;

-- the sections: the header, the GPU's, then the slices' (their own quick answer left out)
CREATE TEMP TABLE profsql_rp_tr_sections AS
SELECT kind, title, source, unit, text, show FROM temp.profsql_rp_sections WHERE kind = 'head'
UNION ALL SELECT * FROM (VALUES
  ('line', 'Quick answer — кто жрёт время', 'profsql_rp_tr_quick', NULL, NULL, 1),
  ('table', 'GPU time per rank', 'profsql_rp_tr_ranks', NULL, NULL, 1),
  ('table', 'Top kernels by class', 'profsql_rp_tr_kernels', NULL, NULL, 1),
  ('table', 'Kernel launch delays', 'profsql_rp_tr_launch', NULL,
   'None: no launch call (cuda_runtime / cuda_driver) carries the correlation id of a kernel.', 1),
  ('table', 'GPU idle time by cause', 'profsql_rp_tr_idle', NULL, 'None: no stream was idle between two kernels.', 1),
  ('table', 'Straggler steps — 10 % or more above the step''s median over the ranks', 'profsql_rp_tr_stragglers', NULL,
   'None: no rank''s step is 10 % or more above that step''s median (or the trace has no `ProfilerStep#N` slices).', 1))
UNION ALL SELECT kind, CASE WHEN title LIKE 'Quick answer%' THEN NULL ELSE title END, source, unit, text, show
  FROM temp.profsql_rp_sections WHERE kind <> 'head' AND NOT (kind = 'line' AND title LIKE 'Quick answer%');
DELETE FROM temp.profsql_rp_sections;
INSERT INTO temp.profsql_rp_sections SELECT * FROM temp.profsql_rp_tr_sections;
