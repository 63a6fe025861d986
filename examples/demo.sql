-- The queries `make demo` runs on examples/browser_trace.json (written by tests/bench/gen_trace.c:
-- 4 renderer processes, nested X slices, B/E pairs, async requests, counters, instants).
.headers on
.mode box

.print "== Which slices take the most time?"
SELECT name, count(*) AS n, round(sum(dur) / 1e6, 3) AS total_ms, round(avg(dur) / 1e3, 1) AS avg_us
  FROM profile_events('examples/browser_trace.json')
 WHERE ph IN ('X', 'B') GROUP BY name ORDER BY total_ms DESC LIMIT 5;

.print "== Self time (dur minus children) of the top-level work"
SELECT p.name, round(sum(p.dur - coalesce(c.child, 0)) / 1e6, 3) AS self_ms
  FROM profile_events('examples/browser_trace.json') p
  LEFT JOIN (SELECT parent_id, sum(dur) AS child FROM profile_events('examples/browser_trace.json')
              WHERE dur IS NOT NULL GROUP BY parent_id) c ON c.parent_id = p.id
 WHERE p.depth = 0 AND p.ph IN ('X', 'B') GROUP BY p.name ORDER BY self_ms DESC LIMIT 5;

.print "== How busy is each main thread? (top-level thread-track slice time / the capture's span)"
SELECT process_name, thread_name, count(*) AS slices,
       round(100.0 * sum(dur) / (SELECT max(ts + coalesce(dur, 0)) - min(ts)
                                   FROM profile_events('examples/browser_trace.json')
                                  WHERE ts IS NOT NULL AND kind <> 'metadata'), 1) AS busy_pct
  FROM profile_events('examples/browser_trace.json')
 WHERE depth = 0 AND kind = 'slice' AND thread_name = 'CrRendererMain'
   AND track IN (SELECT id FROM profile_tracks('examples/browser_trace.json') WHERE kind = 'thread')
 GROUP BY utid ORDER BY busy_pct DESC;

.print "== Slowest async requests (b/e pairs on their own tracks)"
SELECT async_id, json_extract(args, '$.url') AS url, round(dur / 1e6, 3) AS ms
  FROM profile_events('examples/browser_trace.json') WHERE ph = 'b' ORDER BY dur DESC LIMIT 3;

.print "== Peak of each counter series"
SELECT process_name, max(json_extract(args, '$.heap_kb')) AS heap_kb, max(json_extract(args, '$.gpu_kb')) AS gpu_kb
  FROM profile_events('examples/browser_trace.json') WHERE ph = 'C' GROUP BY pid;

.print "== What the importer noticed"
SELECT scope, key, value FROM profile_metadata('examples/browser_trace.json')
 WHERE scope IN ('capture', 'diagnostic') OR (scope = 'trace' AND key = 'displayTimeUnit');

.print "== Other formats, same SQL: a PocketMine-MP timings report ..."
SELECT group_name, count(*) AS timers, round(sum(self_ns) / 1e6, 1) AS self_ms
  FROM profile_records('examples/server_timings.txt') GROUP BY group_name ORDER BY self_ms DESC LIMIT 3;
SELECT key, round(value, 2) AS value FROM profile_metadata('examples/server_timings.txt') WHERE scope = 'derived';

-- (which XLA ops dominate GPU time in a JAX/TensorFlow XSpace: examples/questions/gpu_ops.sql, which
-- make demo asks after these)

.print "== ... and an lms profiler CSV"
SELECT name, count(*) AS n, round(sum(dur) / 1e3) AS total_us FROM profile_events('examples/lms_markers.csv')
 GROUP BY name ORDER BY total_us DESC LIMIT 3;
