-- input forms: an unterminated array (allowed by the spec) and nesting in it
.mode list
SELECT id, name, ts, dur, depth, parent_id FROM profile_events('tests/data/unterminated.json');
SELECT value FROM profile_metadata('tests/data/unterminated.json') WHERE key = 'form';
