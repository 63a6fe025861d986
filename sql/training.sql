-- training.sql — what the people who train models ask of a PyTorch profiler (Kineto) trace, as TEMP
-- views, per rank: GPU kernel time by class, idle time, communication/computation overlap, kernel
-- launch delays, step times and stragglers — the analyses of Holistic Trace Analysis (HTA) and
-- AMD's TraceLens, in SQL, with HTA's definitions (docs/training.md has them side by side).
--
-- Input: a table or view `events` (profile_events of the capture: file, ts, dur, name, cat, pid,
-- tid, args, ...) and `metadata` (profile_metadata of it) — e.g.
--   CREATE TEMP VIEW events AS SELECT * FROM profile_events('rank0.json.gz');
--   CREATE TEMP VIEW metadata AS SELECT * FROM profile_metadata('rank0.json.gz');
--   .read sql/training.sql
-- (profile_open() creates both and these views for a capture, directory or glob with device
-- kernels.) A directory or glob of rank traces is one source: every view is per rank, where a
-- rank is the trace's `distributedInfo.rank`, else its file (NULL for a BLOB). Times in ns.
--
-- gpu_kernel_classes(pattern, class, priority)   a TEMP TABLE the views read: a kernel's class is
--     that of the highest-priority row whose pattern its name matches (LIKE, case-insensitive),
--     else 'computation'. Seeded once (profile_open leaves a table that has rows as it is) with
--     communication: NCCL in all its spellings (ncclKernel_*, ncclDevKernel_*), RCCL, HCCL, and XLA's
--     collectives (all-reduce, all-gather, reduce-scatter, collective-permute, all-to-all);
--     memory: Memcpy*, Memset*, hipMemcpy*, dma*. Edit it with INSERT / DELETE: no kernel-name
--     rule is in C.
-- gpu_kernels(rank, file, stream, ts, dur, name, cat, class, correlation, external_id, launch_name,
--     launch_ts, launch_dur)   every device activity with a duration — Kineto's (cat kernel,
--     gpu_memcpy, gpu_memset), or an XSpace's device plane's stream lines ('/device:GPU:0',
--     'Stream #N(...)': the stream is the line's id, the correlation the correlation_id stat) — and
--     the call that launched it (below; an XSpace's host-plane events with a correlation_id).
-- gpu_kernel_breakdown(rank, class, name, count, sum_ns, mean_ns, max_ns, class_share_pct,
--     total_share_pct)   per kernel name; the shares are of the class's and of all kernel time
--     of the rank (summed durations: concurrent kernels each count).
-- gpu_temporal_breakdown(rank, kernel_ns, idle_ns, compute_ns, non_compute_ns, idle_pct,
--     compute_pct, non_compute_pct)   HTA's temporal breakdown: kernel_ns = the last kernel's end
--     - the first kernel's start; idle_ns = kernel_ns - the union of every kernel's interval (no
--     kernel on any stream); compute_ns = the union of the computation kernels; non_compute_ns =
--     the union of all less compute_ns (communication and memory while no computation runs).
-- comm_comp_overlap(rank, comm_ns, overlapped_ns, overlap_pct)   comm_ns = the union of the
--     communication kernels; overlapped_ns = the part of it during which a computation kernel
--     runs on any stream; overlap_pct = overlapped_ns / comm_ns (NULL without communication).
-- kernel_launch_stats(rank, correlation, launch_name, launch_ts, launch_dur, kernel_name,
--     kernel_ts, kernel_dur, launch_delay)   each kernel joined to the CPU call that launched it
--     (cuda_runtime / cuda_driver events: cudaLaunchKernel, hipLaunchKernel, ...) by the
--     trace's correlation id (args.correlation, which Kineto's ac2g flows link), in the same file
--     only (ids of different ranks never meet); launch_delay = kernel start - launch end.
-- training_options(key, value)   HTA's rules that change numbers, as a TEMP TABLE to UPDATE:
--     'steps' = 'all' (default: every kernel) or 'profiled' (the kernels that start inside one of
--     their rank's ProfilerStep#N, as HTA counts them); 'drop_last_step' = 0 (default) or 1 (each
--     rank's last step left out, HTA's default). Seeded once, as gpu_kernel_classes.
-- training_steps(rank, step, ts, dur)   the ProfilerStep#N slices.
-- step_stragglers(rank, step, dur, median_dur, ratio, straggler)   each rank's step against the
--     median of that step over the ranks (the lower middle of an even count); straggler = 1 when
--     its time is 10 % or more above the median.
-- gpu_idle_breakdown(rank, stream, idle_ns, host_wait_ns, kernel_wait_ns)   the gaps between
--     consecutive kernels of a stream split by cause, as HTA splits GPU idle time: host wait =
--     the part of a gap before the next kernel's launch call ended (the host had not queued it);
--     kernel wait = the rest (it was queued: it waited on another stream or kernel).
-- Cost: a query of one view reads `events` once (training_rows, materialized) and `metadata` once
-- (the ranks); the unions are window functions over the kernels sorted by start (linear after the
-- sort). Over a directory or glob each read parses every file again (docs/performance.md).

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

-- each file's rank: distributedInfo.rank of a Kineto trace, else the file
DROP VIEW IF EXISTS temp.training_ranks;
CREATE TEMP VIEW training_ranks AS
SELECT f.file, coalesce((SELECT json_extract(m.value, '$.rank') FROM metadata m
                          WHERE m.file IS f.file AND m.scope = 'trace' AND m.key = 'distributedInfo'
                            AND json_valid(m.value) LIMIT 1), f.file) AS rank
  FROM (SELECT DISTINCT file FROM metadata WHERE scope = 'capture') f;

-- the rows every view reads, from one scan of `events`: device activities ('kernel'), launch
-- calls ('launch') and steps ('step'), with the args they are joined by
DROP VIEW IF EXISTS temp.training_rows;
CREATE TEMP VIEW training_rows AS
SELECT e.file, e.cat, e.name, e.ts, e.dur,
       CASE WHEN e.cat IN ('kernel', 'gpu_memcpy', 'gpu_memset') OR e.process_name LIKE '/device:%' THEN 'kernel'
            WHEN e.cat IN ('cuda_runtime', 'cuda_driver') OR e.process_name LIKE '/host:%' THEN 'launch' ELSE 'step' END AS kind,
       coalesce(json_extract(e.args, '$.stream'), CASE WHEN e.process_name LIKE '/device:%' THEN e.tid END) AS stream,
       coalesce(json_extract(e.args, '$.correlation'), json_extract(e.args, '$.correlation_id')) AS correlation,
       json_extract(e.args, '$."External id"') AS external_id
  FROM events e
 WHERE e.dur IS NOT NULL AND (e.cat IN ('kernel', 'gpu_memcpy', 'gpu_memset', 'cuda_runtime', 'cuda_driver')
                              OR e.name LIKE 'ProfilerStep#%'
                              -- an XSpace: a device plane's stream lines; a host plane's events with a correlation
                              OR (e.process_name LIKE '/device:%' AND e.thread_name LIKE 'Stream #%')
                              OR (e.process_name LIKE '/host:%' AND json_extract(e.args, '$.correlation_id') IS NOT NULL));

-- the steps (the 'profiled' option restricts the kernels to them)
DROP VIEW IF EXISTS temp.training_steps;
CREATE TEMP VIEW training_steps AS
WITH r AS MATERIALIZED (SELECT * FROM training_ranks),
s AS (SELECT r.rank, CAST(substr(t.name, 14) AS INTEGER) AS step, t.ts, t.dur
        FROM training_rows t LEFT JOIN r ON r.file IS t.file WHERE t.kind = 'step'),
s2 AS MATERIALIZED (SELECT * FROM s)
SELECT rank, step, ts, dur FROM s2
 WHERE NOT (SELECT value FROM temp.training_options WHERE key = 'drop_last_step')
    OR step < (SELECT max(step) FROM s2 s3 WHERE s3.rank IS s2.rank);

-- the kernels, each with its launch call's start and end (one scan of the rows)
DROP VIEW IF EXISTS temp.gpu_kernels;
CREATE TEMP VIEW gpu_kernels AS
WITH r AS MATERIALIZED (SELECT * FROM training_ranks),
t AS MATERIALIZED (SELECT * FROM training_rows),
st AS MATERIALIZED (SELECT r.rank, CAST(substr(t.name, 14) AS INTEGER) AS step, t.ts, t.dur
                      FROM t LEFT JOIN r ON r.file IS t.file WHERE t.kind = 'step'),
keep AS MATERIALIZED (SELECT * FROM st WHERE NOT (SELECT value FROM temp.training_options WHERE key = 'drop_last_step')
                        OR step < (SELECT max(step) FROM st s3 WHERE s3.rank IS st.rank)),
l AS MATERIALIZED (SELECT file, correlation, name, ts, dur FROM t WHERE kind = 'launch' AND correlation IS NOT NULL),
cls AS MATERIALIZED (SELECT rowid AS rid, * FROM temp.gpu_kernel_classes)
SELECT r.rank, k.file, k.stream, k.ts, k.dur, k.name, k.cat,
       coalesce((SELECT c.class FROM cls c WHERE k.name LIKE c.pattern ORDER BY c.priority DESC, c.rid LIMIT 1),
                'computation') AS class,
       k.correlation, k.external_id, l.name AS launch_name, l.ts AS launch_ts, l.dur AS launch_dur
  FROM t k LEFT JOIN r ON r.file IS k.file
       LEFT JOIN l ON l.file IS k.file AND l.correlation = k.correlation
 WHERE k.kind = 'kernel'
   AND ((SELECT value FROM temp.training_options WHERE key = 'steps') IS NOT 'profiled'
        OR EXISTS (SELECT 1 FROM keep s WHERE s.rank IS r.rank AND k.ts >= s.ts AND k.ts < s.ts + s.dur));

DROP VIEW IF EXISTS temp.gpu_kernel_breakdown;
CREATE TEMP VIEW gpu_kernel_breakdown AS
WITH k AS MATERIALIZED (SELECT rank, class, name, dur FROM gpu_kernels),
byname AS (SELECT rank, class, name, count(*) AS count, sum(dur) AS sum_ns, max(dur) AS max_ns FROM k GROUP BY rank, class, name),
byclass AS (SELECT rank, class, sum(dur) AS ns FROM k GROUP BY rank, class),
byrank AS (SELECT rank, sum(dur) AS ns FROM k GROUP BY rank)
SELECT n.rank, n.class, n.name, n.count, n.sum_ns, n.sum_ns * 1.0 / n.count AS mean_ns, n.max_ns,
       n.sum_ns * 100.0 / nullif(c.ns, 0) AS class_share_pct, n.sum_ns * 100.0 / nullif(r.ns, 0) AS total_share_pct
  FROM byname n JOIN byclass c ON c.rank IS n.rank AND c.class = n.class JOIN byrank r ON r.rank IS n.rank;

-- the union of intervals: sorted by start, each interval adds what lies beyond the furthest end
-- before it (group g: 'all', 'computation', 'communication')
DROP VIEW IF EXISTS temp.training_unions;
CREATE TEMP VIEW training_unions AS
WITH k AS MATERIALIZED (SELECT rank, class, ts, ts + dur AS te FROM gpu_kernels),
g AS (SELECT rank, 'all' AS grp, ts, te FROM k
      UNION ALL SELECT rank, class, ts, te FROM k WHERE class IN ('computation', 'communication')),
w AS (SELECT rank, grp, ts, te, max(te) OVER (PARTITION BY rank, grp ORDER BY ts, te
                                              ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS before FROM g)
SELECT rank, grp, min(ts) AS first_ts, max(te) AS last_te,
       sum(max(0, te - max(ts, coalesce(before, ts)))) AS union_ns
  FROM w GROUP BY rank, grp;

DROP VIEW IF EXISTS temp.gpu_temporal_breakdown;
CREATE TEMP VIEW gpu_temporal_breakdown AS
WITH u AS (SELECT rank, max(CASE WHEN grp = 'all' THEN last_te - first_ts END) AS kernel_ns,
                  max(CASE WHEN grp = 'all' THEN union_ns END) AS all_ns,
                  ifnull(max(CASE WHEN grp = 'computation' THEN union_ns END), 0) AS compute_ns
             FROM training_unions GROUP BY rank)
SELECT rank, kernel_ns, kernel_ns - all_ns AS idle_ns, compute_ns, all_ns - compute_ns AS non_compute_ns,
       (kernel_ns - all_ns) * 100.0 / nullif(kernel_ns, 0) AS idle_pct,
       compute_ns * 100.0 / nullif(kernel_ns, 0) AS compute_pct,
       (all_ns - compute_ns) * 100.0 / nullif(kernel_ns, 0) AS non_compute_pct
  FROM u;

-- overlap: a sweep over the boundaries of the communication and computation kernels; a stretch
-- between two boundaries counts when both kinds are running (the running counts > 0)
DROP VIEW IF EXISTS temp.comm_comp_overlap;
CREATE TEMP VIEW comm_comp_overlap AS
WITH k AS MATERIALIZED (SELECT rank, class, ts, ts + dur AS te FROM gpu_kernels WHERE class IN ('computation', 'communication')),
b AS (SELECT rank, ts AS t, CASE class WHEN 'communication' THEN 1 ELSE 0 END AS dcomm,
             CASE class WHEN 'computation' THEN 1 ELSE 0 END AS dcomp FROM k
      UNION ALL SELECT rank, te, CASE class WHEN 'communication' THEN -1 ELSE 0 END,
             CASE class WHEN 'computation' THEN -1 ELSE 0 END FROM k),
p AS (SELECT rank, t, sum(dcomm) AS dcomm, sum(dcomp) AS dcomp FROM b GROUP BY rank, t),
run AS (SELECT rank, t, sum(dcomm) OVER w AS ncomm, sum(dcomp) OVER w AS ncomp,
               lead(t) OVER (PARTITION BY rank ORDER BY t) AS t2
          FROM p WINDOW w AS (PARTITION BY rank ORDER BY t ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)),
s AS (SELECT rank, sum(CASE WHEN ncomm > 0 THEN t2 - t ELSE 0 END) AS comm_ns,
             sum(CASE WHEN ncomm > 0 AND ncomp > 0 THEN t2 - t ELSE 0 END) AS overlapped_ns
        FROM run WHERE t2 IS NOT NULL GROUP BY rank)
SELECT rank, comm_ns, overlapped_ns, overlapped_ns * 100.0 / nullif(comm_ns, 0) AS overlap_pct FROM s;

DROP VIEW IF EXISTS temp.kernel_launch_stats;
CREATE TEMP VIEW kernel_launch_stats AS
SELECT rank, correlation, launch_name, launch_ts, launch_dur, name AS kernel_name, ts AS kernel_ts, dur AS kernel_dur,
       ts - (launch_ts + launch_dur) AS launch_delay
  FROM gpu_kernels WHERE launch_ts IS NOT NULL;

DROP VIEW IF EXISTS temp.step_stragglers;
CREATE TEMP VIEW step_stragglers AS
WITH s AS (SELECT rank, step, dur, row_number() OVER (PARTITION BY step ORDER BY dur) AS k,
                  count(*) OVER (PARTITION BY step) AS n FROM training_steps),
m AS (SELECT step, dur AS median_dur FROM s WHERE k = (n + 1) / 2)
SELECT s.rank, s.step, s.dur, m.median_dur, s.dur * 1.0 / nullif(m.median_dur, 0) AS ratio,
       s.dur >= 1.1 * m.median_dur AS straggler
  FROM s JOIN m USING (step);

DROP VIEW IF EXISTS temp.gpu_idle_breakdown;
CREATE TEMP VIEW gpu_idle_breakdown AS
WITH k AS (SELECT rank, stream, ts, ts + dur AS te, launch_ts + launch_dur AS launch_end,
                  max(ts + dur) OVER (PARTITION BY rank, stream ORDER BY ts, ts + dur
                                      ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_end
             FROM gpu_kernels),
gap AS (SELECT rank, stream, ts - prev_end AS idle,
               max(0, min(ts, coalesce(launch_end, prev_end)) - prev_end) AS host
          FROM k WHERE prev_end IS NOT NULL AND ts > prev_end)
SELECT rank, stream, sum(idle) AS idle_ns, sum(host) AS host_wait_ns, sum(idle - host) AS kernel_wait_ns
  FROM gap GROUP BY rank, stream;
