-- Which threads used CPU 0 the most, and what atrace slices were they in? (Linux ftrace text,
-- examples/ftrace_sched.txt: the kernel's sched_switch events, and atrace markers the app wrote)
--   sqlite3 :memory: -cmd '.load ./libprofsql' < examples/questions/cpu_threads.sql
-- sched_switch becomes one row per running interval on a CPU (cat 'sched', ph 'X').
.headers on
.mode box
SELECT thread_name, tid, count(*) AS intervals, round(sum(dur) / 1e6, 1) AS cpu0_ms
  FROM profile_events('examples/ftrace_sched.txt')
 WHERE cat = 'sched' AND ph = 'X' AND cpu = 0 AND tid <> 0
 GROUP BY tid ORDER BY sum(dur) DESC LIMIT 3;
-- the app's atrace slices (depth 1: layout and draw inside each frame), their wall time and how
-- much of it the thread spent running on CPU 0 (its running intervals overlapping the slice)
WITH s AS (SELECT name, ts, dur, tid FROM profile_events('examples/ftrace_sched.txt')
            WHERE cat = 'atrace' AND ph = 'B' AND depth = 1),
     r AS (SELECT ts, dur, tid FROM profile_events('examples/ftrace_sched.txt')
            WHERE cat = 'sched' AND ph = 'X' AND cpu = 0)
SELECT name, count(*) AS n, round(sum(dur) / 1e6, 1) AS wall_ms,
       round(sum((SELECT sum(max(0, min(s.ts + s.dur, r.ts + r.dur) - max(s.ts, r.ts))) FROM r
                   WHERE r.tid = s.tid AND r.ts < s.ts + s.dur AND r.ts + r.dur > s.ts)) / 1e6, 1) AS on_cpu0_ms
  FROM s GROUP BY name ORDER BY on_cpu0_ms DESC;
