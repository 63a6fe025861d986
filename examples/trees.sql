-- Trees over the example captures (run from the repository root after `make`):
--   sqlite3 -cmd '.load ./libprofsql' :memory: < examples/trees.sql
.headers on
.mode column

-- 1. The five hottest subtrees of a PocketMine-MP timings report: which timer, under the
--    server tick, holds the most time with everything below it?
SELECT profile_open('examples/server_timings.txt', 'pm_') AS views;
SELECT t.path, t.inclusive_ns / 1e6 AS inclusive_ms, round(100 * t.share_of_root, 1) AS pct_of_tick,
       (SELECT count(*) FROM pm_record_descendants d WHERE d.record_id = t.record_id) AS timers_below
  FROM pm_record_tree t WHERE t.depth = 1 ORDER BY t.inclusive_ns DESC LIMIT 5;

-- ... and the server figures the PocketMine viewer shows
SELECT key, round(value, 2) AS value FROM pm_metadata WHERE scope = 'derived';

-- 2. The self-time flame graph input of a Chrome trace: folded stacks for flamegraph.pl or
--    speedscope. To a file, in list mode without headers (column mode's header and padding make
--    flamegraph.pl skip the lines), under a directory of your own, out=$(mktemp -d):
--      sqlite3 -cmd '.load ./libprofsql' -cmd '.output /dev/null' \
--        -cmd "SELECT profile_open('examples/browser_trace.json')" -cmd '.output' :memory: \
--        "SELECT line FROM event_folded" > "$out/trace.folded"
SELECT profile_open('examples/browser_trace.json') AS views;
SELECT line FROM event_folded ORDER BY self_ns DESC LIMIT 8;

-- 3. The lms profiler CSV: which modules take the most time, nested by time
SELECT name, count(*) AS n, sum(dur) / 1e3 AS total_us, max(depth) AS max_depth
  FROM profile_events('examples/lms_markers.csv') GROUP BY name ORDER BY total_us DESC;
