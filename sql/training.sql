-- training.sql — what the people who train models ask of a PyTorch profiler (Kineto) trace or a
-- JAX/TensorFlow XSpace, as TEMP views, per rank: GPU kernel time by class, idle time,
-- communication/computation overlap, kernel launch delays, step times and stragglers — the
-- analyses of Holistic Trace Analysis (HTA) and AMD's TraceLens, in SQL, with HTA's definitions
-- (docs/training.md has them side by side).
--
-- Input: a view or table `training_source(source)` whose one row is the capture: a path (a file,
-- a directory or a glob of rank traces) or a BLOB — e.g.
--   CREATE TEMP VIEW training_source AS SELECT 'run/rank*.json.gz' AS source;
--   .read sql/training.sql
-- (profile_open() creates it and these views for a capture, directory or glob with device
-- kernels.) Every view reads `training_rows`, profile_training_rows of the source: a file's
-- kernels (each with its launch call, step and class) and steps, found in one pass over the file
-- (vtab/profile_training_rows.c says what each is). A rank is the trace's
-- `distributedInfo.rank`, else its file (NULL for a BLOB); every figure is computed per file, as
-- a directory or glob streams its files, so 64 ranks take the memory of one. Times in ns.
--
-- gpu_kernel_classes(pattern, class, priority)   a TEMP TABLE the views read: a kernel's class is
--     that of the highest-priority row whose pattern its name matches (LIKE, case-insensitive),
--     else 'computation'. Seeded once (profile_open leaves a table that has rows as it is) with
--     communication: NCCL in all its spellings (ncclKernel_*, ncclDevKernel_*), RCCL, HCCL, and XLA's
--     collectives (all-reduce, all-gather, reduce-scatter, collective-permute, all-to-all);
--     memory: Memcpy*, Memset*, hipMemcpy*, dma*. Edit it with INSERT / DELETE: no kernel-name
--     rule is in C (profile_training_rows is handed the table's rows and applies LIKE).
-- training_options(key, value)   HTA's rules that change numbers, as a TEMP TABLE to UPDATE:
--     'steps' = 'all' (default: every kernel) or 'profiled' (the kernels that start inside one of
--     their file's ProfilerStep#N, as HTA counts them); 'drop_last_step' = 0 (default) or 1 (each
--     file's last step left out, HTA's default). Seeded once, as gpu_kernel_classes.
-- training_rows   profile_training_rows of training_source, with the classes.
-- gpu_kernels(rank, file, stream, ts, dur, name, cat, class, correlation, external_id, launch_name,
--     launch_ts, launch_dur, step, launch_id)   every device activity with a duration — Kineto's (cat kernel,
--     gpu_memcpy, gpu_memset, mtia_ccp_events), or an XSpace's device plane's stream lines
--     ('/device:GPU:0', 'Stream #N(...)': the stream is the line's id, the correlation the
--     correlation_id stat) — and the call that launched it (an XSpace's host-plane events with a
--     correlation_id), and the step it starts in.
-- gpu_kernel_breakdown(rank, class, name, count, sum_ns, mean_ns, max_ns, class_share_pct,
--     total_share_pct)   per kernel name; the shares are of the class's and of all kernel time
--     of the rank (summed durations: concurrent kernels each count).
-- gpu_temporal_breakdown(rank, kernel_ns, idle_ns, compute_ns, non_compute_ns, idle_pct,
--     compute_pct, non_compute_pct, file)   HTA's temporal breakdown: kernel_ns = the last kernel's end
--     - the first kernel's start; idle_ns = kernel_ns - the union of every kernel's interval (no
--     kernel on any stream); compute_ns = the union of the computation kernels; non_compute_ns =
--     the union of all less compute_ns (communication and memory while no computation runs).
-- comm_comp_overlap(rank, comm_ns, overlapped_ns, overlap_pct, file)   comm_ns = the union of the
--     communication kernels; overlapped_ns = the part of it during which a computation kernel
--     runs on any stream (|comm ∩ comp| = |comm| + |comp| - |comm ∪ comp|); overlap_pct =
--     overlapped_ns / comm_ns (NULL without communication).
-- kernel_launch_stats(rank, correlation, launch_name, launch_ts, launch_dur, kernel_name,
--     kernel_ts, kernel_dur, launch_delay)   each kernel joined to the CPU call that launched it
--     (cuda_runtime / cuda_driver events: cudaLaunchKernel, hipLaunchKernel, ...) by the
--     trace's correlation id (args.correlation, which Kineto's ac2g flows link), in the same file
--     only (ids of different ranks never meet); launch_delay = kernel start - launch end.
-- training_steps(rank, step, ts, dur, file)   the ProfilerStep#N slices (an XSpace: its "Steps" line).
-- step_stragglers(rank, step, dur, median_dur, ratio, straggler, file)   each rank's step against the
--     median of that step over the ranks (the lower middle of an even count); straggler = 1 when
--     its time is 10 % or more above the median.
-- gpu_idle_breakdown(rank, stream, idle_ns, host_wait_ns, kernel_wait_ns)   the gaps between
--     consecutive kernels of a stream split by cause, as HTA splits GPU idle time: host wait =
--     the part of a gap before the next kernel's launch call ended (the host had not queued it);
--     kernel wait = the rest (it was queued: it waited on another stream or kernel).
-- Cost: a query of one view is one pass over the files (training_rows); the unions are
-- profile_span_union aggregates, per file as it streams (GROUP BY file needs no sort); the
-- per-name breakdown sorts the kernels by name, gpu_idle_breakdown by stream and start.

-- the classes, seeded once
CREATE TEMP TABLE IF NOT EXISTS gpu_kernel_classes(pattern TEXT NOT NULL, class TEXT NOT NULL, priority INTEGER NOT NULL DEFAULT 0);
INSERT INTO temp.gpu_kernel_classes(pattern, class, priority)
SELECT column1, column2, column3 FROM (VALUES
  ('%nccl%', 'communication', 10), ('%rccl%', 'communication', 10), ('%hccl%', 'communication', 10),
  ('all-reduce%', 'communication', 10), ('all-gather%', 'communication', 10), ('reduce-scatter%', 'communication', 10),
  ('collective-permute%', 'communication', 10), ('all-to-all%', 'communication', 10),
  ('Memcpy%', 'memory', 5), ('Memset%', 'memory', 5), ('hipMemcpy%', 'memory', 5), ('hipMemset%', 'memory', 5),
  ('dma%', 'memory', 5))
 WHERE NOT EXISTS (SELECT 1 FROM temp.gpu_kernel_classes);

-- HTA's rules that change numbers, as options (a TEMP TABLE you UPDATE): steps = 'all' (every
-- kernel of the trace) or 'profiled' (only the kernels that start inside a ProfilerStep#N of their
-- rank, as HTA counts them); drop_last_step = 1 leaves out each rank's last step (HTA's default:
-- it is often cut short) from training_steps, step_stragglers and, with 'profiled', the kernels
CREATE TEMP TABLE IF NOT EXISTS training_options(key TEXT PRIMARY KEY, value);
INSERT OR IGNORE INTO temp.training_options VALUES ('steps', 'all'), ('drop_last_step', 0);

-- the rows every view reads: profile_training_rows of the source, handed the classes by priority
DROP VIEW IF EXISTS temp.training_rows;
CREATE TEMP VIEW training_rows AS
SELECT * FROM profile_training_rows((SELECT source FROM training_source), NULL,
       (SELECT json_group_array(json_array(pattern, class))
          FROM (SELECT pattern, class FROM temp.gpu_kernel_classes ORDER BY priority DESC, rowid)));

DROP VIEW IF EXISTS temp.training_steps;
CREATE TEMP VIEW training_steps AS
SELECT rank, step, ts, dur, file FROM training_rows
 WHERE kind = 'step'
   AND (NOT (SELECT value FROM temp.training_options WHERE key = 'drop_last_step') OR step < last_step);

DROP VIEW IF EXISTS temp.gpu_kernels;
CREATE TEMP VIEW gpu_kernels AS
SELECT rank, file, stream, ts, dur, name, cat, ifnull(class, 'computation') AS class, correlation, external_id,
       launch_name, launch_ts, launch_dur, step, launch_id
  FROM training_rows
 WHERE kind = 'kernel'
   AND ((SELECT value FROM temp.training_options WHERE key = 'steps') IS NOT 'profiled'
        OR (step IS NOT NULL
            AND (NOT (SELECT value FROM temp.training_options WHERE key = 'drop_last_step') OR step < last_step)));

DROP VIEW IF EXISTS temp.gpu_kernel_breakdown;
CREATE TEMP VIEW gpu_kernel_breakdown AS
WITH n AS MATERIALIZED (SELECT file, rank, class, name, count(*) AS count, sum(dur) AS sum_ns, max(dur) AS max_ns
                          FROM gpu_kernels GROUP BY file, rank, name),
c AS (SELECT file, class, sum(sum_ns) AS ns FROM n GROUP BY file, class),
r AS (SELECT file, sum(sum_ns) AS ns FROM n GROUP BY file)
SELECT n.rank, n.class, n.name, n.count, n.sum_ns, n.sum_ns * 1.0 / n.count AS mean_ns, n.max_ns,
       n.sum_ns * 100.0 / nullif(c.ns, 0) AS class_share_pct, n.sum_ns * 100.0 / nullif(r.ns, 0) AS total_share_pct
  FROM n JOIN c ON c.file IS n.file AND c.class = n.class JOIN r ON r.file IS n.file;

DROP VIEW IF EXISTS temp.gpu_temporal_breakdown;
CREATE TEMP VIEW gpu_temporal_breakdown AS
WITH u AS (SELECT file, rank, max(ts + dur) - min(ts) AS kernel_ns, profile_span_union(ts, dur) AS all_ns,
                  profile_span_union(ts, dur) FILTER (WHERE class = 'computation') AS compute_ns
             FROM gpu_kernels GROUP BY file, rank)
SELECT rank, kernel_ns, kernel_ns - all_ns AS idle_ns, compute_ns, all_ns - compute_ns AS non_compute_ns,
       (kernel_ns - all_ns) * 100.0 / nullif(kernel_ns, 0) AS idle_pct,
       compute_ns * 100.0 / nullif(kernel_ns, 0) AS compute_pct,
       (all_ns - compute_ns) * 100.0 / nullif(kernel_ns, 0) AS non_compute_pct, file
  FROM u;

DROP VIEW IF EXISTS temp.comm_comp_overlap;
CREATE TEMP VIEW comm_comp_overlap AS
WITH u AS (SELECT file, rank, profile_span_union(ts, dur) FILTER (WHERE class = 'communication') AS comm_ns,
                  profile_span_union(ts, dur) FILTER (WHERE class = 'computation') AS comp_ns,
                  profile_span_union(ts, dur) FILTER (WHERE class IN ('communication', 'computation')) AS both_ns
             FROM gpu_kernels GROUP BY file, rank)
SELECT rank, comm_ns, comm_ns + comp_ns - both_ns AS overlapped_ns,
       (comm_ns + comp_ns - both_ns) * 100.0 / nullif(comm_ns, 0) AS overlap_pct, file
  FROM u;

DROP VIEW IF EXISTS temp.kernel_launch_stats;
CREATE TEMP VIEW kernel_launch_stats AS
SELECT rank, correlation, launch_name, launch_ts, launch_dur, name AS kernel_name, ts AS kernel_ts, dur AS kernel_dur,
       ts - (launch_ts + launch_dur) AS launch_delay
  FROM gpu_kernels WHERE launch_ts IS NOT NULL;

DROP VIEW IF EXISTS temp.step_stragglers;
CREATE TEMP VIEW step_stragglers AS
WITH s AS (SELECT rank, step, dur, file, row_number() OVER (PARTITION BY step ORDER BY dur) AS k,
                  count(*) OVER (PARTITION BY step) AS n FROM training_steps),
m AS (SELECT step, dur AS median_dur FROM s WHERE k = (n + 1) / 2)
SELECT s.rank, s.step, s.dur, m.median_dur, s.dur * 1.0 / nullif(m.median_dur, 0) AS ratio,
       s.dur >= 1.1 * m.median_dur AS straggler, s.file
  FROM s JOIN m USING (step);

DROP VIEW IF EXISTS temp.gpu_idle_breakdown;
CREATE TEMP VIEW gpu_idle_breakdown AS
WITH k AS (SELECT file, rank, stream, ts, ts + dur AS te, launch_ts + launch_dur AS launch_end,
                  max(ts + dur) OVER (PARTITION BY file, stream ORDER BY ts, ts + dur
                                      ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end
             FROM gpu_kernels),
gap AS (SELECT file, rank, stream, ts - prev_end AS idle,
               max(0, min(ts, coalesce(launch_end, prev_end)) - prev_end) AS host
          FROM k WHERE prev_end IS NOT NULL AND ts > prev_end)
SELECT rank, stream, sum(idle) AS idle_ns, sum(host) AS host_wait_ns, sum(idle - host) AS kernel_wait_ns
  FROM gap GROUP BY file, rank, stream;
