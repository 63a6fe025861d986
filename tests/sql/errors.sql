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
SELECT count(*) FROM profile_events('tests/data/*.gz');
SELECT count(*) FROM profile_events(x'1f8b0800');
SELECT 'still running after errors';
