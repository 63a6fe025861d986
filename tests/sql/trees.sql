-- profile_open() and the tree views of sql/event_tree.sql and sql/record_tree.sql (values checked
-- by hand: tests/data/README.md for the slices and records; share = dur / parent's or root's dur)
.mode list
SELECT profile_open('tests/data/basic.json');
SELECT id, parent_id, root_id, depth, path, inclusive_ns, self_ns, round(share_of_parent, 4), round(share_of_root, 4)
  FROM event_tree ORDER BY id;
SELECT * FROM event_ancestors ORDER BY id, distance;
SELECT * FROM event_descendants WHERE id = 2 ORDER BY descendant_id;
SELECT line FROM event_folded ORDER BY stack;  -- stacks with self time: none for GlobalMark, RunTask;Paint;Mark
SELECT count(*) FROM metadata WHERE scope = 'ph';
-- the timings report, with a prefix: cycles (records 6, 7, 8) never enter the tree
SELECT profile_open('tests/data/timings_edge.txt', 'pm_');
SELECT record_id, parent_record_id, root_id, depth, path, inclusive_ns, self_ns, round(share_of_parent, 4)
  FROM pm_record_tree ORDER BY record_id;
SELECT * FROM pm_record_ancestors ORDER BY record_id, distance;
SELECT * FROM pm_record_descendants WHERE record_id = 1 ORDER BY descendant_id;
SELECT line FROM pm_record_folded ORDER BY stack;
-- a BLOB source is kept in temp.profsql_sources for the views
SELECT profile_open(readfile('tests/data/lms_example.csv'), 'b_');
SELECT name, ts, dur FROM b_events ORDER BY id;
-- opening again replaces the views
SELECT profile_open('tests/data/lms_example.csv');
SELECT count(*) FROM events;
.bail off
SELECT profile_open('tests/data/basic.json', 'bad prefix');
SELECT profile_open('tests/data/nope.json');
