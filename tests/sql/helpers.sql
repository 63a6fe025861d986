-- sql/self_time.sql over tests/data/basic.json (hand computation in tests/data/README.md:
-- RunTask 50500 - 20000 - 9001 = 21499; Layout 20000 (its only child, a flow event, has no dur);
-- Paint 9001 - 0 (the instant Mark); Load, Handle without children)
.mode list
CREATE TEMP VIEW events AS SELECT * FROM profile_events('tests/data/basic.json');
.read sql/self_time.sql
SELECT id, name, dur, child_ns, self_ns FROM events_self_time ORDER BY id;
