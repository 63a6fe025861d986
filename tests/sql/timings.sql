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
-- a RecordId used twice (found by fuzz_tree: the tree views looped 1 -> 2 -> the second 1 -> 2 ...):
-- the second record is out of the tree (depth NULL), links go to the first; by hand: R self =
-- 10 - 10 (C) = 0, C self = 10 (D is not its child in the tree), D depth NULL
SELECT record_id, parent_record_id, name, self_ns, depth, line
  FROM profile_records('tests/fuzz/regressions/timings-duplicate-record-id-cycle.txt');
SELECT value FROM profile_metadata('tests/fuzz/regressions/timings-duplicate-record-id-cycle.txt') WHERE key = 'duplicate_id';
SELECT profile_open('tests/fuzz/regressions/timings-duplicate-record-id-cycle.txt') IS NOT NULL AS opened;
SELECT record_id, depth, path, self_ns FROM record_tree ORDER BY depth;
SELECT line FROM record_folded ORDER BY line;
