-- profile_records over tests/data/timings_edge.txt (hand computation in tests/data/README.md)
.headers on
.mode list
SELECT record_id, parent_record_id, timer_id, category, name, group_name, plugin, thread_id,
       time_ns, count, avg, violations, ticks, peak_ns, self_ns, depth, line
  FROM profile_records('tests/data/timings_edge.txt');
SELECT scope, key, value FROM profile_metadata('tests/data/timings_edge.txt') WHERE scope <> 'capture' OR key IN ('format', 'kind', 'records');
-- the same report with CRLF line ends reads the same
SELECT count(*) AS differing FROM (
  SELECT record_id, parent_record_id, name, group_name, plugin, thread_id, time_ns, avg, self_ns, depth, line
    FROM profile_records('tests/data/timings_edge.txt')
  EXCEPT SELECT record_id, parent_record_id, name, group_name, plugin, thread_id, time_ns, avg, self_ns, depth, line
    FROM profile_records('tests/data/timings_edge_crlf.txt'));
SELECT count(*) AS events FROM profile_events('tests/data/timings_edge.txt');
