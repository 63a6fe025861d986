-- profile_events over tests/data/basic.json; every value below is computed by hand in
-- tests/data/README.md (µs -> ns, B/E merge, nesting, flows).
.headers on
.mode list
SELECT id, ts, dur, name, cat, ph, pid, tid, depth, parent_id FROM profile_events('tests/data/basic.json');
SELECT id, process_name, thread_name, typeof(pid), typeof(tid) FROM profile_events('tests/data/basic.json') WHERE id IN (2, 11);
SELECT id, args FROM profile_events('tests/data/basic.json') WHERE args IS NOT NULL;
SELECT id, tts, tdur FROM profile_events('tests/data/basic.json') WHERE tts IS NOT NULL OR tdur IS NOT NULL;
SELECT id, name, ph, async_id, scope, flow_id, flow_in, flow_out, slice_id FROM profile_events('tests/data/basic.json')
 WHERE async_id IS NOT NULL OR scope IS NOT NULL OR flow_id IS NOT NULL;
-- the same trace gzip-compressed, and as a BLOB
SELECT count(*), sum(dur), sum(depth) FROM profile_events('tests/data/basic.json.gz');
SELECT count(*), sum(dur) FROM profile_events(readfile('tests/data/basic.json'), 'chrome');
-- self time of each slice: its dur minus its children's
SELECT p.name, p.dur - coalesce(sum(c.dur), 0) AS self_ns
  FROM profile_events('tests/data/basic.json') p
  LEFT JOIN profile_events('tests/data/basic.json') c ON c.parent_id = p.id
 WHERE p.ph IN ('X', 'B') AND p.dur IS NOT NULL GROUP BY p.id ORDER BY p.id;
