-- perfetto.sql — Perfetto trace_processor's schema over any capture, as TEMP views.
--
-- profile_open(source, prefix, 'perfetto') runs this file with $P replaced by the prefix, after
-- creating $Pevents, $Precords, $Ptracks, $Pthreads, $Pprocesses and $P_pf_meta (profile_metadata:
-- $Pmetadata is trace_processor's metadata here) over the source. The views
-- take trace_processor's names and columns (its documented schema, prelude/after_eof/*.sql and
-- stdlib slices/with_context.sql; units ns) so that SQL written for trace_processor runs unchanged:
--   slice, instant, thread, process, track, thread_track, process_track, cpu_track, counter_track,
--   process_counter_track, thread_counter_track, cpu_counter_track, counter, args, flow, sched,
--   sched_slice, thread_state, cpu, stats, metadata, stack_profile_frame, stack_profile_callsite,
--   cpu_profile_stack_sample, perf_sample, _trace_import_logs, and the stdlib's thread_slice,
--   process_slice, thread_or_process_slice.
-- The mapping from the track model (profile_tracks, profile_threads, profile_processes) and each
-- format onto it, and where libprofsql deliberately differs: docs/perfetto.md.
--
-- A line that starts with '--@<format> ' is part of the SQL only when the capture has rows of that
-- format (profile_open reads one capture here: its format, and 'ftrace' too for a Chrome trace or
-- systrace document with ftrace text), so that a capture's views carry no other format's arms.
--
-- Ids: slice.id = profile_events.id; track.id = profile_tracks.id, and a counter series (one
-- per counter track and args key, as trace_processor splits a 'C' event) gets an id after the
-- last track; utid / upid are the model's + 1, with 0 kept for trace_processor's idle thread and
-- process (the 'zero' and 'none' rules below); arg_set_id = the event id for an event's args, 2^40 + utid for a thread's,
-- 2^41 + upid for a process's, 2^42 + n for an import log's.

-- ---------------------------------------------------------------- threads and processes
-- How this capture's pids and tids meet trace_processor's idle process and thread (upid 0, utid
-- 0, always present): 'zero' = a pid 0 as written is the idle process, and tid 0 in pid 0 or in
-- no known process the idle thread (the kernel's numbering: Chrome, ftrace, perf); 'none' = a missing pid or tid counts as 0, and a tid 0 in
-- another process is its main thread (trace_processor's JSON rules: Chrome only). Other formats
-- (XSpace planes, the sampled formats' one thread, ...) keep every process and thread their own.
CREATE TEMP VIEW $P_pf_rules AS
SELECT 0
--@chrome + 1
--@ftrace + 1
--@perf_script + 1
       AS zero,
       0
--@chrome + 1
       AS none;

-- Model process -> trace_processor upid.
CREATE TEMP VIEW $P_pf_upid AS
SELECT p.upid AS model_upid,
       CASE WHEN (r.zero AND p.pid = 0) OR (r.none AND p.pid IS NULL) THEN 0 ELSE p.upid + 1 END AS upid,
       p.pid AS pid, p.main_utid AS main_utid
FROM $Pprocesses p, $P_pf_rules r;

-- Model thread -> trace_processor utid; a process without a thread whose tid is its pid gets one
-- under the 'none' rule (utid after the model's threads).
CREATE TEMP VIEW $P_pf_utid AS
SELECT t.utid AS model_utid,
       CASE WHEN (r.zero AND t.tid = 0 AND coalesce(t.pid, 0) = 0)
              OR (r.none AND u.upid = 0 AND coalesce(t.tid, 0) = 0) THEN 0
            WHEN r.none AND u.upid <> 0 AND coalesce(t.tid, 0) = 0 THEN
              coalesce(u.main_utid + 1, (SELECT count(*) FROM $Pthreads) + 1 + u.model_upid)
            ELSE t.utid + 1 END AS utid,
       u.upid AS upid
FROM $Pthreads t JOIN $P_pf_upid u ON u.model_upid = t.upid, $P_pf_rules r;

-- start_ts / end_ts are trace_processor's: when the process or thread began or ended, which none of
-- these formats records (its task_newtask / sched_process_exit are not read), so NULL; the span of a
-- thread's rows is profile_threads' start_ts / end_ts.
CREATE TEMP VIEW $Pprocess AS
SELECT 0 AS id, 0 AS upid, 0 AS pid,
       (SELECT p.name FROM $Pprocesses p JOIN $P_pf_upid u ON u.model_upid = p.upid WHERE u.upid = 0
        LIMIT 1) AS name,
       NULL AS start_ts, NULL AS end_ts, NULL AS parent_upid, NULL AS uid, NULL AS android_appid,
       NULL AS android_user_id, NULL AS cmdline, NULL AS arg_set_id, NULL AS machine_id
UNION ALL
SELECT u.upid, u.upid, p.pid,
       coalesce(p.name, CASE WHEN typeof(p.pid) = 'text' THEN p.pid END),
       NULL, NULL, NULL, NULL, NULL, NULL, NULL,
       CASE WHEN EXISTS (SELECT 1 FROM $P_pf_process_args a WHERE a.upid = u.upid)
            THEN 2199023255552 + u.upid END,
       NULL
FROM $Pprocesses p JOIN $P_pf_upid u ON u.model_upid = p.upid
WHERE u.upid <> 0;

CREATE TEMP VIEW $Pthread AS
SELECT 0 AS id, 0 AS utid, 0 AS tid,
       (SELECT t.name FROM $Pthreads t JOIN $P_pf_utid m ON m.model_utid = t.utid WHERE m.utid = 0
        LIMIT 1) AS name,
       NULL AS start_ts, NULL AS end_ts, 0 AS upid, 1 AS is_main_thread, 1 AS is_idle,
       NULL AS machine_id, NULL AS arg_set_id
UNION ALL
SELECT m.utid, m.utid, t.tid,
       coalesce(t.name, CASE WHEN typeof(t.tid) = 'text' THEN t.tid END),
       NULL, NULL, m.upid, t.is_main_thread, t.is_idle, NULL,
       CASE WHEN EXISTS (SELECT 1 FROM $P_pf_thread_args a WHERE a.utid = m.utid)
            THEN 1099511627776 + m.utid END
FROM $Pthreads t JOIN $P_pf_utid m ON m.model_utid = t.utid
WHERE m.utid = t.utid + 1 AND (t.rows > 0 OR t.is_main_thread)
UNION ALL
SELECT (SELECT count(*) FROM $Pthreads) + 1 + u.model_upid, (SELECT count(*) FROM $Pthreads) + 1 + u.model_upid,
       u.pid, NULL, NULL, NULL, u.upid, 1, 0, NULL, NULL
FROM $P_pf_upid u, $P_pf_rules r
WHERE r.none AND u.upid <> 0 AND u.main_utid IS NULL
UNION ALL
SELECT t.utid, t.utid, t.thread_id, 'Server thread', NULL, NULL, 0, 0, 0, NULL, NULL
FROM $P_pf_timings_thread t;

-- Process and thread arg sets: the sort-index hints of Chrome's 'M' events.
CREATE TEMP VIEW $P_pf_process_args AS
SELECT u.upid AS upid, 'process_sort_index_hint' AS key,
       CAST(json_extract(m.value, '$.sort_index') AS INTEGER) AS value, m.byte_offset AS byte_offset
FROM $P_pf_meta m JOIN $Pprocesses p
  ON m.scope = 'process:' || CASE WHEN typeof(p.pid) = 'text' THEN '''' || p.pid || '''' ELSE p.pid END
JOIN $P_pf_upid u ON u.model_upid = p.upid
WHERE m.key = 'process_sort_index' AND json_valid(m.value)
  AND json_type(m.value, '$.sort_index') IN ('integer', 'real');

CREATE TEMP VIEW $P_pf_thread_args AS
SELECT u.utid AS utid, 'thread_sort_index_hint' AS key,
       CAST(json_extract(m.value, '$.sort_index') AS INTEGER) AS value, m.byte_offset AS byte_offset
FROM $P_pf_meta m JOIN $Pthreads t
  ON m.scope = 'thread:' || CASE WHEN typeof(t.pid) = 'text' THEN '''' || t.pid || '''' ELSE coalesce(t.pid, 'NULL') END
            || ':' || CASE WHEN typeof(t.tid) = 'text' THEN '''' || t.tid || '''' ELSE coalesce(t.tid, 'NULL') END
JOIN $P_pf_utid u ON u.model_utid = t.utid
WHERE m.key = 'thread_sort_index' AND json_valid(m.value)
  AND json_type(m.value, '$.sort_index') IN ('integer', 'real');

-- ---------------------------------------------------------------- records and jobs as slices
-- A timings report's records are slices of its server thread: ts 0 (a report has totals, not
-- times), dur = the record's time_ns, nested by ParentRecordId (depth, parent_id), on one thread
-- track per thread id (a synthetic thread 'Server thread' when the report names none). The
-- StarProfiler's jobs are slices on one track per lane: ts = started_unix_ms, dur = elapsed_ms
-- (-1 for a job still running), ns (profile_jobs' jobs made from other formats' slices are those
-- slices already). Their ids start at 2^44 (records: + RecordId, jobs: 2^45 + row).
CREATE TEMP VIEW $P_pf_timings_thread AS
SELECT DISTINCT coalesce(r.thread_id, 0) AS thread_id,
       17592186044416 + coalesce(r.thread_id, 0) AS track_id,
       (SELECT count(*) FROM $Pthreads) + (SELECT count(*) FROM $Pprocesses) + 1 + coalesce(r.thread_id, 0) AS utid
FROM $Precords r
WHERE 0
--@timings OR 1
;

CREATE TEMP VIEW $P_pf_job_lane AS
SELECT l.lane AS lane, 35184372088832 + l.n AS track_id
FROM (SELECT lane, row_number() OVER (ORDER BY lane) AS n
      FROM (SELECT DISTINCT coalesce(lane, '') AS lane FROM $P_pf_jobs
            WHERE started_unix_ms IS NOT NULL AND (0
--@newengine OR 1
            ))) l;

-- Android binder transactions in ftrace text, as trace_processor makes slices of them: a
-- synchronous binder_transaction is a 'binder transaction' slice on the sending thread until it
-- receives the reply (binder_transaction_received of a reply) or a failed / dead reply
-- (binder_return BR_FAILED_REPLY / BR_DEAD_REPLY); its receipt a 'binder reply' slice on the
-- receiving thread until that thread sends the reply (binder_transaction reply=1). A one-way
-- transaction (flags bit 0x1) is an instant 'binder transaction async' where it is sent and
-- 'binder async rcv' where it is received. On the thread's own track, depth 0; ids 2^47 + the id
-- of the event that starts it.
CREATE TEMP VIEW $P_pf_binder AS
WITH b AS MATERIALIZED (
  SELECT e.id AS id, e.ts AS ts, e.utid AS mu, e.name AS name,
         CAST(json_extract(e.args, '$.fields.transaction') AS INTEGER) AS txn,
         CAST(json_extract(e.args, '$.fields.reply') AS INTEGER) AS reply,
         (instr('0123456789abcdef', lower(substr(json_extract(e.args, '$.fields.flags'), -1))) - 1) % 2 AS oneway,
         json_extract(e.args, '$.fields.cmd') AS cmd
  FROM $Pevents e
  WHERE e.kind = 'ftrace_event'
    AND e.name IN ('binder_transaction', 'binder_transaction_received', 'binder_return')),
tx AS MATERIALIZED (SELECT txn, reply, oneway FROM b WHERE name = 'binder_transaction'),
rcv AS MATERIALIZED (
  SELECT b.id, b.ts, b.mu, t.reply, t.oneway FROM b JOIN tx t ON t.txn = b.txn
  WHERE b.name = 'binder_transaction_received'),
ends AS MATERIALIZED (
  SELECT mu, ts FROM rcv WHERE reply = 1
  UNION ALL
  SELECT mu, ts FROM b WHERE name = 'binder_return' AND (cmd GLOB '*BR_FAILED_REPLY*' OR cmd GLOB '*BR_DEAD_REPLY*')),
sent AS MATERIALIZED (SELECT mu, ts FROM b WHERE name = 'binder_transaction' AND reply = 1),
s AS (
  SELECT b.id, b.ts, b.mu, 'binder transaction' AS name,
         (SELECT min(x.ts) FROM ends x WHERE x.mu = b.mu AND x.ts >= b.ts) AS end_ts
  FROM b WHERE b.name = 'binder_transaction' AND b.reply = 0 AND b.oneway = 0
  UNION ALL
  SELECT r.id, r.ts, r.mu, 'binder reply', (SELECT min(x.ts) FROM sent x WHERE x.mu = r.mu AND x.ts >= r.ts)
  FROM rcv r WHERE r.reply = 0 AND r.oneway = 0
  UNION ALL
  SELECT b.id, b.ts, b.mu, 'binder transaction async', b.ts
  FROM b WHERE b.name = 'binder_transaction' AND b.reply = 0 AND b.oneway = 1
  UNION ALL
  SELECT r.id, r.ts, r.mu, 'binder async rcv', r.ts FROM rcv r WHERE r.reply = 0 AND r.oneway = 1)
SELECT 140737488355328 + s.id AS id, s.ts AS ts, coalesce(s.end_ts - s.ts, -1) AS dur, th.track_id AS track_id,
       s.name AS name
FROM s JOIN $Pthreads th ON th.utid = s.mu;

-- ---------------------------------------------------------------- tracks
-- trace_processor's track type of each model kind.
CREATE TEMP VIEW $P_pf_track AS
SELECT t.id AS id, t.kind AS kind,
       CASE t.kind WHEN 'thread' THEN NULL ELSE t.name END AS name,
       CASE t.kind
         WHEN 'thread' THEN 'thread_execution'
         WHEN 'process_async' THEN 'legacy_async_process_slice'
         WHEN 'thread_async' THEN 'legacy_async_process_slice'
         WHEN 'global_async' THEN 'legacy_async_global_slice'
         WHEN 'process_instant' THEN 'chrome_process_instant'
         WHEN 'global_instant' THEN 'legacy_chrome_global_instants'
         WHEN 'cpu' THEN 'cpu_sched'
         ELSE t.kind END AS type,
       m.utid AS utid,
       CASE WHEN t.kind IN ('process_async', 'thread_async', 'process_instant', 'process_counter')
            THEN u.upid END AS upid,
       t.cpu AS cpu
FROM $Ptracks t
LEFT JOIN $P_pf_utid m ON m.model_utid = t.utid
LEFT JOIN $P_pf_upid u ON u.model_upid = t.upid;

-- Counter series: trace_processor makes one counter track per (counter, args key), named
-- '<name>[ id: <id>] <key>', and one counter row per numeric value ('C' args; strings that are
-- a whole number count, as trace_processor's StringToDouble reads them).
-- An atrace counter ('C|pid|name|value' in ftrace text) is one series named after the counter, its
-- value args.value (series_key NULL).
CREATE TEMP VIEW $P_pf_counter_values AS
SELECT e.id AS event_id, e.ts AS ts, e.track AS model_track, e.name AS name, e.async_id AS async_id,
       j.key AS series_key, j.id AS jid,
       CASE WHEN j.type IN ('integer', 'real') THEN j.value
            WHEN j.type = 'text' THEN profsql_number(j.value) END AS value
FROM $Pevents e, json_each(CASE WHEN json_valid(e.args) THEN e.args END) j
WHERE e.ph = 'C' AND e.origin <> 'ftrace' AND j.type NOT IN ('object', 'array')
UNION ALL
SELECT e.id, e.ts, e.track, e.name, NULL, NULL, 0, profsql_number(json_extract(e.args, '$.value'))
FROM $Pevents e
WHERE e.ph = 'C' AND e.origin = 'ftrace';

CREATE TEMP VIEW $P_pf_counter_series AS
SELECT DISTINCT model_track, coalesce(series_key, '') AS series_key, name, async_id
FROM $P_pf_counter_values WHERE value IS NOT NULL;

CREATE TEMP VIEW $P_pf_counter_track AS
SELECT (SELECT coalesce(max(id), -1) FROM $Ptracks) + row_number() OVER (ORDER BY s.model_track, s.series_key) AS id,
       s.model_track AS model_track, s.series_key AS series_key,
       coalesce(s.name, '') || CASE WHEN coalesce(s.async_id, '') <> '' THEN ' id: ' || s.async_id ELSE '' END
         || CASE WHEN s.series_key <> '' THEN ' ' || s.series_key ELSE '' END AS name,
       t.kind AS kind, t.utid AS utid, t.upid AS upid, t.cpu AS cpu
FROM (SELECT model_track, series_key, min(name) AS name, min(async_id) AS async_id
      FROM $P_pf_counter_series GROUP BY model_track, series_key) s
JOIN $P_pf_track t ON t.id = s.model_track;

-- The CPU counters of ftrace's kernel events, as trace_processor names them: cpu_frequency
-- (state, cpu_id) -> 'cpufreq', cpu_idle -> 'cpuidle', cpu_frequency_limits (min_freq / max_freq,
-- or min / max) -> 'Cpu N Min Freq Limit' / 'Cpu N Max Freq Limit'; one series per (name, CPU),
-- ids from 2^46.
CREATE TEMP VIEW $P_pf_kernel_counter_values AS
WITH ev AS MATERIALIZED (
  SELECT e.id AS id, e.ts AS ts, e.name AS name, e.args AS args FROM $Pevents e
  WHERE e.kind = 'ftrace_event'
    AND e.name IN ('cpu_frequency', 'cpu_idle', 'cpu_frequency_limits'))
SELECT id AS event_id, 0 AS n, ts, 'cpufreq' AS name, 'cpu_frequency' AS type,
       CAST(json_extract(args, '$.fields.cpu_id') AS INTEGER) AS cpu,
       CAST(json_extract(args, '$.fields.state') AS REAL) AS value
FROM ev WHERE name = 'cpu_frequency'
UNION ALL
SELECT id, 0, ts, 'cpuidle', 'cpu_idle', CAST(json_extract(args, '$.fields.cpu_id') AS INTEGER),
       CAST(json_extract(args, '$.fields.state') AS REAL)
FROM ev WHERE name = 'cpu_idle'
UNION ALL
SELECT ev.id, k.n, ev.ts, 'Cpu ' || json_extract(ev.args, '$.fields.cpu_id') || k.suffix, k.type,
       CAST(json_extract(ev.args, '$.fields.cpu_id') AS INTEGER),
       CAST(coalesce(json_extract(ev.args, k.path1), json_extract(ev.args, k.path2)) AS REAL)
FROM ev CROSS JOIN (SELECT 1 AS n, ' Max Freq Limit' AS suffix, 'cpu_max_frequency_limit' AS type,
                 '$.fields.max_freq' AS path1, '$.fields.max' AS path2
          UNION ALL SELECT 2, ' Min Freq Limit', 'cpu_min_frequency_limit', '$.fields.min_freq', '$.fields.min') k
WHERE ev.name = 'cpu_frequency_limits';

CREATE TEMP VIEW $P_pf_kernel_counter_track AS
SELECT 70368744177664 + row_number() OVER (ORDER BY name, cpu) AS id, name, type, cpu
FROM (SELECT DISTINCT name, type, cpu FROM $P_pf_kernel_counter_values WHERE value IS NOT NULL);

CREATE TEMP VIEW $Pcounter_track AS
SELECT id, name, NULL AS parent_id,
       CASE kind WHEN 'process_counter' THEN 'json_counter' WHEN 'thread_counter' THEN 'json_counter_thread_fallback'
                 ELSE kind END AS type,
       NULL AS dimension_arg_set_id, NULL AS source_arg_set_id, NULL AS machine_id, NULL AS unit,
       NULL AS description
FROM $P_pf_counter_track
UNION ALL
SELECT id, name, NULL, type, NULL, NULL, NULL, NULL, NULL FROM $P_pf_kernel_counter_track;

CREATE TEMP VIEW $Pprocess_counter_track AS
SELECT c.id, c.name, 'json_counter' AS type, NULL AS parent_id, NULL AS source_arg_set_id,
       NULL AS machine_id, NULL AS unit, NULL AS description, c.upid AS upid
FROM $P_pf_counter_track c WHERE c.kind = 'process_counter';

CREATE TEMP VIEW $Pthread_counter_track AS
SELECT c.id, c.name, 'json_counter_thread_fallback' AS type, NULL AS parent_id, NULL AS source_arg_set_id,
       NULL AS machine_id, NULL AS unit, NULL AS description, c.utid AS utid
FROM $P_pf_counter_track c WHERE c.kind = 'thread_counter';

CREATE TEMP VIEW $Pcpu_counter_track AS
SELECT c.id, c.name, 'cpu_counter' AS type, NULL AS parent_id, NULL AS source_arg_set_id,
       NULL AS machine_id, NULL AS unit, NULL AS description, c.cpu AS cpu
FROM $P_pf_counter_track c WHERE c.kind = 'cpu_counter'
UNION ALL
SELECT k.id, k.name, k.type, NULL, NULL, NULL, NULL, NULL, k.cpu FROM $P_pf_kernel_counter_track k;

CREATE TEMP VIEW $Pcounter AS
SELECT v.event_id * 65536 + v.jid AS id, v.ts AS ts, c.id AS track_id, v.value AS value,
       NULL AS arg_set_id
FROM $P_pf_counter_values v
JOIN $P_pf_counter_track c ON c.model_track = v.model_track AND c.series_key = coalesce(v.series_key, '')
WHERE v.value IS NOT NULL
UNION ALL
SELECT v.event_id * 65536 + v.n, v.ts, k.id, v.value, NULL
FROM $P_pf_kernel_counter_values v CROSS JOIN $P_pf_kernel_counter_track k
  ON k.name = v.name AND k.cpu IS v.cpu
WHERE v.value IS NOT NULL;

CREATE TEMP VIEW $Ptrack AS
SELECT id, name, type, NULL AS dimension_arg_set_id, NULL AS parent_id, NULL AS source_arg_set_id,
       NULL AS machine_id, NULL AS track_group_id
FROM $P_pf_track WHERE kind NOT IN ('process_counter', 'thread_counter', 'cpu_counter', 'global_counter')
UNION ALL
SELECT id, name, type, NULL, NULL, NULL, NULL, NULL FROM $Pcounter_track
UNION ALL
SELECT track_id, NULL, 'thread_execution', NULL, NULL, NULL, NULL, NULL FROM $P_pf_timings_thread
UNION ALL
SELECT track_id, lane, 'newengine_lane', NULL, NULL, NULL, NULL, NULL FROM $P_pf_job_lane;

CREATE TEMP VIEW $Pthread_track AS
SELECT id, name, type, NULL AS parent_id, NULL AS source_arg_set_id, NULL AS machine_id, utid
FROM $P_pf_track WHERE kind = 'thread'
UNION ALL
SELECT track_id, NULL, 'thread_execution', NULL, NULL, NULL, utid FROM $P_pf_timings_thread;

CREATE TEMP VIEW $Pprocess_track AS
SELECT id, name, type, NULL AS parent_id, NULL AS source_arg_set_id, NULL AS machine_id, upid
FROM $P_pf_track WHERE kind IN ('process_async', 'thread_async', 'process_instant');

CREATE TEMP VIEW $Pcpu_track AS
SELECT id, name, type, NULL AS parent_id, NULL AS source_arg_set_id, NULL AS machine_id, cpu
FROM $P_pf_track WHERE kind = 'cpu';

-- ---------------------------------------------------------------- slices
-- A slice: a row of kind 'slice' or 'instant' (profile_events.kind) with a start. Not slices:
-- counters, metadata, an end that closed nothing, flow events, async steps, samples, object
-- events, an 'X' without dur, and CPU scheduling intervals (those are sched).
CREATE TEMP VIEW $Pslice AS
SELECT e.id AS id, e.ts AS ts, coalesce(e.dur, -1) AS dur, e.track AS track_id,
       e.cat AS category, e.name AS name, coalesce(e.depth, 0) AS depth, e.parent_id AS parent_id,
       CASE WHEN e.args IS NOT NULL THEN e.id END AS arg_set_id,
       e.tts AS thread_ts, e.tdur AS thread_dur, NULL AS thread_instruction_count,
       NULL AS thread_instruction_delta, e.cat AS cat, e.id AS slice_id
FROM $Pevents e
WHERE e.kind IN ('slice', 'instant') AND e.ts IS NOT NULL
--@timings UNION ALL
--@timings SELECT 17592186044416 + r.record_id, 0, coalesce(r.time_ns, -1), t.track_id, r.group_name, r.name,
--@timings        coalesce(r.depth, 0), 17592186044416 + r.parent_record_id, NULL, NULL, NULL, NULL, NULL,
--@timings        r.group_name, 17592186044416 + r.record_id
--@timings FROM $Precords r JOIN $P_pf_timings_thread t ON t.thread_id = coalesce(r.thread_id, 0)
--@newengine UNION ALL
--@newengine SELECT 35184372088832 + (j.job_row & 1099511627775), CAST(j.started_unix_ms * 1000000 AS INTEGER),
--@newengine        coalesce(CAST(j.elapsed_ms * 1000000 AS INTEGER),
--@newengine                 CAST((j.ended_unix_ms - j.started_unix_ms) * 1000000 AS INTEGER), -1),
--@newengine        l.track_id, j.category, j.name, 0, NULL, NULL, NULL, NULL, NULL, NULL, j.category,
--@newengine        35184372088832 + (j.job_row & 1099511627775)
--@newengine FROM $P_pf_jobs j JOIN $P_pf_job_lane l ON l.lane = coalesce(j.lane, '')
--@newengine WHERE j.started_unix_ms IS NOT NULL
--@ftrace UNION ALL
--@ftrace SELECT id, ts, dur, track_id, 'binder', name, 0, NULL, NULL, NULL, NULL, NULL, NULL, 'binder', id
--@ftrace FROM $P_pf_binder
;

CREATE TEMP VIEW $Pslices AS SELECT * FROM $Pslice;

CREATE TEMP VIEW $Pinstant AS
SELECT ts, track_id, name, arg_set_id FROM $Pslice WHERE dur = 0;

-- (the stdlib's slices.with_context; each joins the few tracks once, materialised, so that a
-- scan of the slices stays linear)
CREATE TEMP VIEW $Pthread_slice AS
WITH tt AS MATERIALIZED (
  SELECT tt.id AS track_id, tt.name AS track_name, th.name AS thread_name, th.utid AS utid,
         th.tid AS tid, th.is_main_thread AS is_main_thread, p.name AS process_name, p.upid AS upid,
         p.pid AS pid
  FROM $Pthread_track tt JOIN $Pthread th USING (utid) LEFT JOIN $Pprocess p USING (upid))
SELECT s.id AS id, s.ts AS ts, s.dur AS dur, s.category AS category, s.name AS name,
       s.track_id AS track_id, tt.track_name AS track_name, tt.thread_name AS thread_name,
       tt.utid AS utid, tt.tid AS tid, tt.is_main_thread AS is_main_thread,
       tt.process_name AS process_name, tt.upid AS upid, tt.pid AS pid, s.depth AS depth,
       s.parent_id AS parent_id, s.arg_set_id AS arg_set_id, s.thread_ts AS thread_ts,
       s.thread_dur AS thread_dur
FROM $Pslice s JOIN tt ON tt.track_id = s.track_id;

CREATE TEMP VIEW $Pprocess_slice AS
WITH pt AS MATERIALIZED (
  SELECT pt.id AS track_id, pt.name AS track_name, p.name AS process_name, p.upid AS upid, p.pid AS pid
  FROM $Pprocess_track pt JOIN $Pprocess p USING (upid))
SELECT s.id AS id, s.ts AS ts, s.dur AS dur, s.category AS category, s.name AS name,
       s.track_id AS track_id, pt.track_name AS track_name, pt.process_name AS process_name,
       pt.upid AS upid, pt.pid AS pid, s.depth AS depth, s.parent_id AS parent_id,
       s.arg_set_id AS arg_set_id, s.thread_ts AS thread_ts, s.thread_dur AS thread_dur
FROM $Pslice s JOIN pt ON pt.track_id = s.track_id;

CREATE TEMP VIEW $Pthread_or_process_slice AS
SELECT id, ts, dur, category, name, track_id, track_name, thread_name, utid, tid, process_name,
       upid, pid, depth, parent_id, arg_set_id
FROM $Pthread_slice
UNION ALL
SELECT id, ts, dur, category, name, track_id, track_name, NULL AS thread_name, NULL AS utid,
       NULL AS tid, process_name, upid, pid, depth, parent_id, arg_set_id
FROM $Pprocess_slice;

-- ---------------------------------------------------------------- args
-- An event's args: one row per leaf of its 'args' object (key 'args.a.b', arrays as 'args.a[0]'
-- in key and 'args.a' in flat_key; JSON nulls and empty containers have no row), then the
-- threads' and processes' hints and the import logs' details.
CREATE TEMP VIEW $Pargs AS
SELECT e.id * 16777216 + j.id AS id, e.id AS arg_set_id,
       profsql_arg_key(j.fullkey, 1) AS flat_key, profsql_arg_key(j.fullkey, 0) AS key,
       CASE WHEN j.type IN ('integer', 'true', 'false') THEN j.value END AS int_value,
       CASE WHEN j.type = 'text' THEN j.value END AS string_value,
       CASE WHEN j.type = 'real' THEN j.value END AS real_value,
       CASE j.type WHEN 'integer' THEN 'int' WHEN 'real' THEN 'real' WHEN 'text' THEN 'string'
                   ELSE 'bool' END AS value_type,
       CASE j.type WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' ELSE CAST(j.value AS TEXT) END AS display_value
FROM $Pevents e, json_tree(CASE WHEN json_valid(e.args) THEN e.args END) j
WHERE j.type NOT IN ('null', 'object', 'array')
UNION ALL
SELECT 1099511627776 * 2 + 1099511627776 + a.utid, 1099511627776 + a.utid, a.key, a.key, a.value, NULL, NULL,
       'int', CAST(a.value AS TEXT)
FROM $P_pf_thread_args a
UNION ALL
SELECT 1099511627776 * 4 + a.upid, 2199023255552 + a.upid, a.key, a.key, a.value, NULL, NULL,
       'int', CAST(a.value AS TEXT)
FROM $P_pf_process_args a
UNION ALL
SELECT 1099511627776 * 8 + x.lid * 16 + x.n, 4398046511104 + x.lid, x.key, x.key,
       CASE WHEN x.kind = 'int' THEN x.v END, CASE WHEN x.kind = 'string' THEN x.v END, NULL,
       x.kind, CAST(x.v AS TEXT)
FROM (SELECT l.id AS lid, k.n AS n, k.key AS key, k.kind AS kind,
             CASE k.n WHEN 0 THEN l.outer_dur WHEN 1 THEN l.outer_name WHEN 2 THEN l.outer_ts
                      WHEN 3 THEN l.name WHEN 4 THEN l.ph WHEN 5 THEN l.outer_ts + l.outer_dur
                      ELSE l.ts END AS v
      FROM $P_pf_overlaps l,
           (SELECT 0 AS n, 'conflicting_slice_dur' AS key, 'int' AS kind
            UNION ALL SELECT 1, 'conflicting_slice_name', 'string' UNION ALL SELECT 2, 'conflicting_slice_ts', 'int'
            UNION ALL SELECT 3, 'event_name', 'string' UNION ALL SELECT 4, 'event_phase', 'string'
            UNION ALL SELECT 5, 'overlap_end', 'int' UNION ALL SELECT 6, 'overlap_start', 'int') k) x;

-- ---------------------------------------------------------------- import logs and stats
-- A slice that starts inside another on its track but ends after it: libprofsql keeps it (nested
-- under the enclosing slice, an 'overlap' diagnostic); trace_processor spills it onto an overflow
-- track and logs 'slice_spill_overlapping_complete_event' with the slice it overlaps.
CREATE TEMP VIEW $P_pf_overlaps AS
WITH o AS (
  SELECT d.byte_offset AS byte_offset, e.ts AS ts, e.name AS name, e.ph AS ph,
         -- the slice it overlaps: on its track, started at or before it, ended inside it (the latest)
         (SELECT x.id FROM $Pevents x WHERE x.track = e.track AND x.ts <= e.ts AND x.id <> e.id
            AND x.ts + x.dur > e.ts AND x.ts + x.dur < e.ts + e.dur ORDER BY x.ts DESC, x.id LIMIT 1) AS outer_id
  FROM $P_pf_meta d JOIN $Pevents e ON e.byte_offset = d.byte_offset
  WHERE d.scope = 'diagnostic' AND d.key = 'overlap')
SELECT row_number() OVER (ORDER BY o.byte_offset) - 1 AS id, o.ts AS ts, o.name AS name, o.ph AS ph,
       o.byte_offset AS byte_offset, x.name AS outer_name, x.ts AS outer_ts, x.dur AS outer_dur
FROM o LEFT JOIN $Pevents x ON x.id = o.outer_id;

CREATE TEMP VIEW $P_trace_import_logs AS
SELECT id, NULL AS trace_id, ts, byte_offset, 'error' AS severity,
       'slice_spill_overlapping_complete_event' AS name, 4398046511104 + id AS arg_set_id
FROM $P_pf_overlaps;

-- Every stat trace_processor's JSON import keeps (0 when nothing happened), then each of
-- libprofsql's diagnostic kinds as 'profsql_<kind>'.
CREATE TEMP VIEW $Pstats AS
WITH d AS (SELECT key, value FROM $P_pf_meta WHERE scope = 'diagnostic' AND key GLOB '*_count'
           UNION ALL
           -- (a Chrome trace's displayTimeUnit: trace_processor notes it, and reads ts in us anyway)
           SELECT 'display_time_unit', 1 FROM $P_pf_meta WHERE scope = 'trace' AND key = 'displayTimeUnit'),
names(name, severity, source, ours) AS (VALUES
  ('json_tokenizer_failure', 'error', 'trace', 'skipped_event_count'),
  ('json_parser_failure', 'error', 'trace', NULL),
  ('json_display_time_unit', 'info', 'trace', 'display_time_unit'),
  ('slice_drop_overlapping_complete_event', 'error', 'analysis', NULL),
  ('slice_spill_overlapping_complete_event', 'error', 'analysis', 'overlap_count'),
  ('misplaced_end_event', 'data_loss', 'analysis', NULL),
  ('slice_negative_duration', 'error', 'analysis', NULL),
  ('slice_max_depth_exceeded', 'error', 'analysis', NULL),
  ('flow_duplicate_id', 'error', 'trace', NULL),
  ('flow_no_enclosing_slice', 'error', 'trace', NULL),
  ('flow_invalid_id', 'error', 'trace', NULL),
  ('flow_without_direction', 'error', 'trace', NULL),
  ('flow_step_without_start', 'info', 'trace', NULL),
  ('flow_end_without_start', 'info', 'trace', NULL))
SELECT row_number() OVER () - 1 AS id, name, NULL AS key, NULL AS idx, severity, source,
       coalesce((SELECT d.value FROM d WHERE d.key = names.ours), 0) AS value,
       NULL AS description, NULL AS machine_id, NULL AS trace_id
FROM names
UNION ALL
SELECT NULL, 'profsql_' || substr(d.key, 1, length(d.key) - 6), NULL, NULL, 'info', 'trace', d.value,
       'libprofsql diagnostic: see profile_metadata scope ''diagnostic''', NULL, NULL
FROM d WHERE d.key GLOB '*_count';

-- Trace-level metadata: the trace's format and size, and the members of a Chrome trace's
-- top-level 'metadata' object as 'json_metadata.<key>'.
CREATE TEMP VIEW $Pmetadata AS
SELECT 0 AS id, 'trace_type' AS name, 'single' AS key_type, NULL AS int_value,
       (SELECT value FROM $P_pf_meta WHERE scope = 'capture' AND key = 'format' LIMIT 1) AS str_value
UNION ALL
SELECT 1, 'trace_size_bytes', 'single',
       (SELECT value FROM $P_pf_meta WHERE scope = 'capture' AND key = 'bytes' LIMIT 1), NULL
UNION ALL
SELECT 2 + j.id, 'json_metadata.' || j.key, 'single',
       CASE WHEN j.type IN ('integer', 'true', 'false') THEN j.value END,
       CASE WHEN j.type = 'text' THEN j.value WHEN j.type IN ('real', 'object', 'array') THEN CAST(j.value AS TEXT) END
FROM $P_pf_meta m, json_each(CASE WHEN json_valid(m.value) THEN m.value END) j
WHERE m.scope = 'trace' AND m.key = 'metadata';

-- ---------------------------------------------------------------- flows
-- Flow v1 ('s' -> 't' ... -> 'f' of one id and category, each bound to a slice) and v2 (slices'
-- bind_id with flow_out / flow_in): each step that receives (flow_in) comes from the latest
-- earlier step of its flow that sends (flow_out), in ts order, so a flow may fan out as
-- trace_processor's does (one sender, several receivers of one id).
CREATE TEMP VIEW $Pflow AS
WITH f AS (
  SELECT CASE WHEN e.ph IN ('s', 't', 'f') THEN e.slice_id ELSE e.id END AS sid, e.ts AS ts, e.id AS eid,
         e.flow_id AS flow_id, e.flow_in AS flow_in, e.flow_out AS flow_out,
         CASE WHEN e.ph IN ('s', 't', 'f') THEN 'v1 ' || coalesce(e.cat, '') ELSE 'v2' END AS kind
  FROM $Pevents e WHERE e.flow_id IS NOT NULL AND (e.flow_in = 1 OR e.flow_out = 1)),
n AS (
  SELECT f.*, row_number() OVER (PARTITION BY flow_id, kind ORDER BY ts, eid) AS rn FROM f),
p AS (
  SELECT n.*, max(CASE WHEN flow_out = 1 AND sid IS NOT NULL THEN rn END) OVER
           (PARTITION BY flow_id, kind ORDER BY rn ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS out_rn
  FROM n)
SELECT row_number() OVER (ORDER BY p.ts, p.eid) - 1 AS id, o.sid AS slice_out, p.sid AS slice_in,
       NULL AS trace_id, NULL AS arg_set_id
FROM p JOIN n o ON o.flow_id = p.flow_id AND o.kind = p.kind AND o.rn = p.out_rn
WHERE p.flow_in = 1 AND p.sid IS NOT NULL;

-- ---------------------------------------------------------------- scheduling
-- thread_state: Chrome's 'T' events of category 'thread_state' (ts, dur, state = name, args
-- cpu / io_wait / blocked_function), and ftrace's sched_switch intervals as 'Running'.
-- sched: the 'Running' intervals that name a CPU.
CREATE TEMP VIEW $P_pf_thread_state AS
SELECT e.id AS id, e.ts AS ts, e.dur AS dur,
       CAST(json_extract(e.args, '$.cpu') AS INTEGER) AS cpu, u.utid AS utid, e.name AS state,
       CAST(json_extract(e.args, '$.io_wait') AS INTEGER) AS io_wait,
       json_extract(e.args, '$.blocked_function') AS blocked_function
FROM $Pevents e JOIN $P_pf_utid u ON u.model_utid = e.utid
WHERE e.ph = 'T' AND e.cat = 'thread_state'
UNION ALL
SELECT e.id, e.ts, e.dur, e.cpu, u.utid, 'Running', NULL, NULL
FROM $Pevents e JOIN $P_pf_utid u ON u.model_utid = e.utid
WHERE e.kind = 'sched'
--@ftrace UNION ALL
--@ftrace SELECT id, ts, dur, NULL, utid, state, io_wait, blocked_function FROM $P_pf_ftrace_sleep
;

-- ftrace's states between a thread's running intervals, as trace_processor derives them: from the
-- sched_switch that took it off its CPU it is in that switch's prev_state ('S', 'D', 'R', 'R+',
-- ...) until a sched_waking / sched_wakeup of it makes it runnable ('R'), or until it runs again;
-- a sched_blocked_reason of it inside a 'D' state gives that state's io_wait and
-- blocked_function. A state that never ends has dur -1. Ids from 2^43 (states) and 2^43 + 2^42
-- (the runnable part after a wakeup), over the id of the interval before.
CREATE TEMP VIEW $P_pf_ftrace_sleep AS
WITH run AS MATERIALIZED (
  SELECT e.id AS id, e.ts + e.dur AS end_ts, e.tid AS tid, e.utid AS mu,
         json_extract(e.args, '$.prev_state') AS st,
         lead(e.ts) OVER (PARTITION BY e.utid ORDER BY e.ts, e.id) AS next_run, e.ts AS ts
  FROM $Pevents e WHERE e.kind = 'sched' AND e.tid <> 0),
-- one sequence per tid in ts order: a state opens (k 0) where a run ends, a waking (1) or a
-- blocked reason (2) may fall inside it, the next run (3) closes it. seg numbers the stretches
-- between opens and closes, so a state's wakings and blocked reasons share its seg: linear
-- (window functions and GROUP BY), whatever the numbers of threads and states.
mark AS (
  SELECT tid, end_ts AS ts, 0 AS k, id AS gid, mu, st, next_run, NULL AS io_wait, NULL AS caller
  FROM run WHERE st IS NOT NULL
  UNION ALL
  SELECT CAST(json_extract(e.args, '$.fields.pid') AS INTEGER), e.ts,
         CASE e.name WHEN 'sched_blocked_reason' THEN 2 ELSE 1 END, NULL, NULL, NULL, NULL,
         json_extract(e.args, '$.fields.iowait'), json_extract(e.args, '$.fields.caller')
  FROM $Pevents e
  WHERE e.kind = 'ftrace_event'
    AND e.name IN ('sched_waking', 'sched_wakeup', 'sched_wakeup_new', 'sched_blocked_reason')
  UNION ALL
  SELECT tid, ts, 3, NULL, NULL, NULL, NULL, NULL, NULL FROM run),
seq AS MATERIALIZED (
  SELECT m.*, sum(CASE WHEN k IN (0, 3) THEN 1 ELSE 0 END) OVER
           (PARTITION BY tid ORDER BY ts, k ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS seg
  FROM mark m),
state AS MATERIALIZED (
  SELECT tid, seg, max(gid) AS gid, max(mu) AS mu, max(st) AS st, max(ts) AS open_ts,
         max(next_run) AS next_run
  FROM seq WHERE k = 0 GROUP BY tid, seg),
woke AS MATERIALIZED (SELECT tid, seg, min(ts) AS woken FROM seq WHERE k = 1 GROUP BY tid, seg),
why AS MATERIALIZED (SELECT tid, seg, min(ts) AS ts, io_wait, caller FROM seq WHERE k = 2 GROUP BY tid, seg),
gap AS MATERIALIZED (
  SELECT s.gid AS id, s.open_ts AS end_ts, s.mu AS mu, s.st AS st, s.next_run AS next_run,
         CASE WHEN s.st IN ('R', 'R+') THEN NULL ELSE w.woken END AS woken,
         CASE WHEN y.ts < coalesce(w.woken, y.ts + 1) THEN y.io_wait END AS io_wait,
         CASE WHEN y.ts < coalesce(w.woken, y.ts + 1) THEN y.caller END AS caller
  FROM state s LEFT JOIN woke w ON w.tid = s.tid AND w.seg = s.seg
  LEFT JOIN why y ON y.tid = s.tid AND y.seg = s.seg),
um AS MATERIALIZED (SELECT model_utid, utid FROM $P_pf_utid)
SELECT 8796093022208 + g.id AS id, g.end_ts AS ts,
       coalesce(coalesce(g.woken, g.next_run) - g.end_ts, -1) AS dur,
       u.utid AS utid, g.st AS state,
       CASE WHEN g.st = 'D' THEN g.io_wait END AS io_wait,
       CASE WHEN g.st = 'D' THEN g.caller END AS blocked_function
FROM gap g JOIN um u ON u.model_utid = g.mu
UNION ALL
SELECT 8796093022208 + 4398046511104 + g.id, g.woken, coalesce(g.next_run - g.woken, -1), u.utid, 'R', NULL, NULL
FROM gap g JOIN um u ON u.model_utid = g.mu
WHERE g.woken IS NOT NULL;

-- The ending state and priority of ftrace's running intervals (sched_switch's prev_state and
-- next_prio).
CREATE TEMP VIEW $P_pf_sched_end AS
SELECT e.id AS id, json_extract(e.args, '$.prev_state') AS end_state,
       json_extract(e.args, '$.prio') AS priority
FROM $Pevents e WHERE e.kind = 'sched';

CREATE TEMP VIEW $Pthread_state AS
SELECT id, ts, dur, cpu, utid, state, io_wait, blocked_function, NULL AS waker_utid,
       NULL AS waker_id, NULL AS irq_context, cpu AS ucpu
FROM $P_pf_thread_state;

CREATE TEMP VIEW $Psched_slice AS
SELECT t.id AS id, t.ts AS ts, t.dur AS dur, t.cpu AS cpu, t.utid AS utid,
       (SELECT x.end_state FROM $P_pf_sched_end x WHERE x.id = t.id) AS end_state,
       (SELECT x.priority FROM $P_pf_sched_end x WHERE x.id = t.id) AS priority, t.cpu AS ucpu
FROM $P_pf_thread_state t WHERE t.state = 'Running' AND t.cpu IS NOT NULL;

CREATE TEMP VIEW $Psched AS
SELECT id, ts, dur, cpu, utid, end_state, priority, ucpu, ts + dur AS ts_end FROM $Psched_slice;

CREATE TEMP VIEW $Pcpu AS
SELECT cpu AS id, cpu AS ucpu, cpu, NULL AS cluster_id, NULL AS processor, NULL AS machine_id,
       NULL AS capacity, NULL AS arg_set_id
FROM (SELECT DISTINCT cpu FROM $P_pf_thread_state WHERE cpu IS NOT NULL
      UNION SELECT cpu FROM $Ptracks WHERE cpu IS NOT NULL
      UNION SELECT cpu FROM $Pevents WHERE cpu IS NOT NULL);

-- ftrace_event (trace_processor's raw ftrace table): each event line of ftrace text that is no
-- atrace marker (profile_events' rows of cat 'ftrace'); its args are the line's fields.
CREATE TEMP VIEW $Pftrace_event AS
SELECT e.id AS id, e.ts AS ts, e.name AS name, e.cpu AS cpu, u.utid AS utid,
       CASE WHEN e.args IS NOT NULL THEN e.id END AS arg_set_id,
       json_extract(e.args, '$.flags') AS common_flags, e.cpu AS ucpu
FROM $Pevents e JOIN $P_pf_utid u ON u.model_utid = e.utid
WHERE e.kind = 'ftrace_event';

CREATE TEMP VIEW $Praw AS SELECT * FROM $Pftrace_event;

-- ---------------------------------------------------------------- call stacks
-- Frames and callsites from profile_records (the frame records of the sampled formats and of
-- Chrome's stackFrames: each record is a node of the call tree, so it is both a callsite and
-- that callsite's frame), samples from the sample rows (ph 'P').
CREATE TEMP VIEW $P_pf_frames AS
SELECT r.* FROM $Precords r
WHERE (SELECT value FROM $P_pf_meta WHERE scope = 'capture' AND key = 'format' LIMIT 1)
      IN ('chrome', 'cpuprofile', 'pprof', 'perf_script', 'folded', 'speedscope');

CREATE TEMP VIEW $Pstack_profile_frame AS
SELECT r.record_id AS id, r.name AS name, NULL AS mapping, NULL AS rel_pc, NULL AS symbol_set_id,
       NULL AS deobfuscated_name
FROM $P_pf_frames r;

CREATE TEMP VIEW $Pstack_profile_callsite AS
SELECT r.record_id AS id, r.depth AS depth, r.parent_record_id AS parent_id, r.record_id AS frame_id
FROM $P_pf_frames r;

CREATE TEMP VIEW $Pcpu_profile_stack_sample AS
SELECT e.id AS id, e.ts AS ts, e.stack_id AS callsite_id, u.utid AS utid, NULL AS process_priority
FROM $Pevents e JOIN $P_pf_utid u ON u.model_utid = e.utid
WHERE e.ph = 'P' AND e.stack_id IS NOT NULL;

-- perf_sample: the samples of a perf capture (perf script text, pprof from perf)
CREATE TEMP VIEW $Pperf_sample AS
SELECT e.id AS id, e.ts AS ts, u.utid AS utid, e.cpu AS cpu, NULL AS cpu_mode,
       e.stack_id AS callsite_id, NULL AS unwind_error, NULL AS perf_session_id
FROM $Pevents e JOIN $P_pf_utid u ON u.model_utid = e.utid
WHERE e.ph = 'P' AND e.stack_id IS NOT NULL AND (0
--@perf_script OR 1
--@pprof OR 1
  );
