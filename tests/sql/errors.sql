-- every error message is pinned; the CLI prints them with the line of the statement
.bail off
SELECT count(*) FROM profile_events('tests/data/no-such-file.json');
SELECT count(*) FROM profile_events('tests/data/not_a_trace.txt');
SELECT count(*) FROM profile_events('tests/data/truncated.json');
SELECT count(*) FROM profile_events('tests/data/missing_comma.json');
SELECT count(*) FROM profile_events('tests/data/corrupt.gz');
SELECT count(*) FROM profile_events('tests/data/corrupt_data.gz');
SELECT count(*) FROM profile_events('tests/data/basic.json', 'nosuchformat');
SELECT count(*) FROM profile_events(42);
SELECT count(*) FROM profile_events(NULL);
SELECT count(*) FROM profile_metadata('tests/data/no-such-*.json');
SELECT count(*) FROM profile_events('tests/data/multi/c_*');
SELECT count(*) FROM profile_events('tests/data/*.gz', '{"strict": true}');
SELECT count(*) FROM profile_events(x'1f8b0800');
-- a glob with damaged files reads the others and lists the damaged ones (issue 32)
SELECT count(*) FROM profile_events('tests/data/*.gz');
SELECT key, value FROM profile_metadata('tests/data/*.gz') WHERE scope = 'files';
-- a forced format the content is not: an error, not an empty table (issue 32)
SELECT count(*) FROM profile_events('tests/data/stacks/cpuprofile_basic.cpuprofile', 'chrome');
SELECT count(*) FROM profile_events('tests/data/basic.json', 'speedscope');
SELECT count(*) FROM profile_records('tests/data/stacks/folded_edge.txt', 'perf_script');
SELECT count(*) FROM profile_records('tests/data/stacks/speedscope_edge.speedscope.json', 'chrome');
SELECT count(*) FROM profile_records('tests/data/xprof/tf_stats.pb', 'pprof');
SELECT count(*) FROM profile_records('tests/data/timings_edge.txt', 'perf_script');
SELECT count(*) FROM profile_events('tests/data/lms_example.csv', 'folded');
SELECT count(*) FROM profile_events('tests/data/stacks/speedscope_edge.speedscope.json', 'cpuprofile');
-- Chrome forced onto xprof's DataTable JSON: objects, but none with a 'ph'
SELECT count(*) FROM profile_events('tests/data/xprof/datatable_empty.json', 'chrome');
-- ... and forcing the right one still reads
SELECT count(*) FROM profile_events('tests/data/basic.json', 'chrome');
SELECT count(*) FROM profile_records('tests/data/stacks/cpuprofile_basic.cpuprofile', '{"format": "cpuprofile"}');
SELECT 'still running after errors';
