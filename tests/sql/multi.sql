-- sources naming several files: a directory (non-captures skipped and listed) and a glob
.mode list
SELECT file, count(*), sum(dur) FROM profile_events('tests/data/multi') GROUP BY file ORDER BY file;
SELECT file, count(*) FROM profile_events('tests/data/multi/*.json') GROUP BY file;
SELECT scope, key, value FROM profile_metadata('tests/data/multi') WHERE scope = 'files' OR key = 'format';
-- name order across files (the GROUP BY consumes a merged order)
SELECT name, count(*) FROM profile_events('tests/data/multi') GROUP BY name;
-- lookups are per file: the same id names one row in each
SELECT file, id, name FROM profile_events('tests/data/multi') WHERE id = 1 ORDER BY file;
SELECT file, id, name FROM profile_events('tests/data/multi') WHERE parent_id = 2 ORDER BY file, id;
-- a directory of timings reports and the tree views (joins on file are the user's to write)
SELECT file, count(*) FROM profile_records('tests/data/timings_edge*.txt') GROUP BY file;
-- profile_open on a directory: the tree views keep the files apart
SELECT profile_open('tests/data/multi');
SELECT file, count(*), sum(self_ns), max(depth) FROM event_tree GROUP BY file;
