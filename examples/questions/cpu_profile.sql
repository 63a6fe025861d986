-- Which functions burn the CPU, self and total? (a V8 CPU profile, examples/node_app.cpuprofile,
-- written by `node --cpu-prof` running examples/node_app.js; any sampled format reads the same)
--   sqlite3 :memory: -cmd '.load ./libprofsql' < examples/questions/cpu_profile.sql
-- self = samples whose leaf is the function; total = samples with it anywhere on the stack,
-- counted once per sample even when it recurses (evaluate does).
.mode list
.output /dev/null
SELECT profile_open('examples/node_app.cpuprofile');
.output
.headers on
.mode box
SELECT name, round(self_ns / 1e6, 1) AS self_ms, round(total_ns / 1e6, 1) AS total_ms,
       round(100.0 * self_ns / (SELECT sum(self_ns) FROM stack_functions), 1) AS self_pct
  FROM stack_functions ORDER BY self_ns DESC, name LIMIT 6;
