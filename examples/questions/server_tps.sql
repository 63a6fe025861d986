-- Why is my server's TPS low? (a PocketMine-MP timings report)
--   sqlite3 :memory: -cmd '.load ./libprofsql' < examples/questions/server_tps.sql
.headers on
.mode box
SELECT key, round(value, 2) AS value FROM profile_metadata('examples/server_timings.txt')
 WHERE scope = 'derived';
-- which timers take most of the tick, by their own (self) time
SELECT name, group_name, round(self_ns / 1e6, 1) AS self_ms, count,
       round(100.0 * self_ns / (SELECT sum(self_ns) FROM profile_records('examples/server_timings.txt')), 1) AS pct
  FROM profile_records('examples/server_timings.txt')
 ORDER BY self_ns DESC LIMIT 5;
