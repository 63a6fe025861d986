-- lms profiler CSV into profile_events (hand computation in tests/data/README.md)
.headers on
.mode list
-- the worked example of the format's description
SELECT id, name, ph, ts, dur, depth, parent_id FROM profile_events('tests/data/lms_example.csv') ORDER BY name, ts;
-- re-entrant ids, labels with commas, unknown id, unmatched END, never-ended BEGIN, a bad line
SELECT id, name, ts, dur, depth, parent_id, pid, tid FROM profile_events('tests/data/lms_edge.csv');
SELECT scope, key, value FROM profile_metadata('tests/data/lms_edge.csv') WHERE scope = 'diagnostic' OR key = 'variant';
-- the older variant: type,diff_us,label
SELECT id, name, ts, dur, depth, parent_id FROM profile_events('tests/data/lms_old.csv');
SELECT value FROM profile_metadata('tests/data/lms_old.csv') WHERE key = 'variant';
