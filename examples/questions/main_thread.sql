-- Which main-thread tasks are longest? (a Chrome trace)
--   sqlite3 :memory: -cmd '.load ./libprofsql' < examples/questions/main_thread.sql
.headers on
.mode box
SELECT process_name, name, round(dur / 1e6, 3) AS ms, round(ts / 1e6, 3) AS at_ms
  FROM profile_events('examples/browser_trace.json')
 WHERE thread_name = 'CrRendererMain' AND depth = 0 AND ph IN ('X', 'B')   -- thread slices, not async ones
 ORDER BY dur DESC LIMIT 5;
