-- The queries `make demo` runs on examples/browser_trace.json (written by tests/bench/gen_trace.c:
-- 4 renderer processes, nested X slices, B/E pairs, async requests, counters, instants).
.headers on
.mode box

SELECT 'Which slices take the most time?' AS question;
SELECT name, count(*) AS n, round(sum(dur) / 1e6, 3) AS total_ms, round(avg(dur) / 1e3, 1) AS avg_us
  FROM profile_events('examples/browser_trace.json')
 WHERE ph IN ('X', 'B') GROUP BY name ORDER BY total_ms DESC LIMIT 5;

SELECT 'Self time (dur minus children) of the top-level work' AS question;
SELECT p.name, round(sum(p.dur - coalesce(c.child, 0)) / 1e6, 3) AS self_ms
  FROM profile_events('examples/browser_trace.json') p
  LEFT JOIN (SELECT parent_id, sum(dur) AS child FROM profile_events('examples/browser_trace.json')
              WHERE dur IS NOT NULL GROUP BY parent_id) c ON c.parent_id = p.id
 WHERE p.depth = 0 AND p.ph IN ('X', 'B') GROUP BY p.name ORDER BY self_ms DESC LIMIT 5;

SELECT 'How busy is each main thread? (top-level slice time / thread span)' AS question;
SELECT process_name, thread_name, count(*) AS slices,
       round(100.0 * sum(dur) / (max(ts + dur) - min(ts)), 1) AS busy_pct
  FROM profile_events('examples/browser_trace.json')
 WHERE depth = 0 AND ph IN ('X', 'B') AND thread_name = 'CrRendererMain'
 GROUP BY pid, tid ORDER BY busy_pct DESC;

SELECT 'Slowest async requests (b/e pairs on their own tracks)' AS question;
SELECT async_id, json_extract(args, '$.url') AS url, round(dur / 1e6, 3) AS ms
  FROM profile_events('examples/browser_trace.json') WHERE ph = 'b' ORDER BY dur DESC LIMIT 3;

SELECT 'Peak of each counter series' AS question;
SELECT process_name, max(json_extract(args, '$.heap_kb')) AS heap_kb, max(json_extract(args, '$.gpu_kb')) AS gpu_kb
  FROM profile_events('examples/browser_trace.json') WHERE ph = 'C' GROUP BY pid;

SELECT 'What the importer noticed' AS question;
SELECT scope, key, value FROM profile_metadata('examples/browser_trace.json')
 WHERE scope IN ('capture', 'diagnostic') OR (scope = 'trace' AND key = 'displayTimeUnit');

SELECT 'Other formats, same SQL: a PocketMine-MP timings report ...' AS question;
SELECT group_name, count(*) AS timers, round(sum(self_ns) / 1e6, 1) AS self_ms
  FROM profile_records('examples/server_timings.txt') GROUP BY group_name ORDER BY self_ms DESC LIMIT 3;
SELECT key, round(value, 2) AS value FROM profile_metadata('examples/server_timings.txt') WHERE scope = 'derived';

SELECT '... a JAX/TensorFlow XSpace: which XLA ops dominate GPU time?' AS question;
SELECT name, count(*) AS n, round(sum(dur) / 1e6, 3) AS ms, max(json_extract(args, '$.tf_op')) AS tf_op
  FROM profile_events('examples/gpu_host.xplane.pb') WHERE process_name LIKE '/device:GPU:%'
 GROUP BY name ORDER BY ms DESC LIMIT 3;

SELECT '... and an lms profiler CSV' AS question;
SELECT name, count(*) AS n, round(sum(dur) / 1e3) AS total_us FROM profile_events('examples/lms_markers.csv')
 GROUP BY name ORDER BY total_us DESC LIMIT 3;
