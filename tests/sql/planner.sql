-- query plans: id = ? and parent_id = ? are direct lookups; GROUP BY name needs no sorter
.mode list
EXPLAIN QUERY PLAN SELECT * FROM profile_events('tests/data/basic.json') WHERE id = 3;
EXPLAIN QUERY PLAN SELECT * FROM profile_events('tests/data/basic.json') WHERE parent_id = 2;
EXPLAIN QUERY PLAN SELECT name, count(*) FROM profile_events('tests/data/basic.json') GROUP BY name;
EXPLAIN QUERY PLAN SELECT name FROM profile_events('tests/data/basic.json') ORDER BY name COLLATE NOCASE;
SELECT id, name FROM profile_events('tests/data/basic.json') WHERE id = 3;
SELECT id, name FROM profile_events('tests/data/basic.json') WHERE parent_id = 2;
SELECT id, name FROM profile_events('tests/data/basic.json') WHERE parent_id = 2 AND id = 4;
SELECT count(*) FROM profile_events('tests/data/basic.json') WHERE id = 99;
SELECT id, name FROM profile_events('tests/data/basic.json') WHERE id = 3.0;
SELECT count(*) FROM profile_events('tests/data/basic.json') WHERE id = 3.5;
SELECT count(*) FROM profile_events('tests/data/basic.json') WHERE parent_id = '2';
SELECT group_concat(name, ',') FROM (SELECT name FROM profile_events('tests/data/basic.json') ORDER BY name);
SELECT group_concat(cat, ',') FROM (SELECT cat FROM profile_events('tests/data/basic.json') ORDER BY cat);
SELECT name, count(*) FROM profile_events('tests/data/basic.json') GROUP BY name;
-- child -> parent self-join
SELECT c.name, p.name FROM profile_events('tests/data/basic.json') c
  JOIN profile_events('tests/data/basic.json') p ON p.id = c.parent_id ORDER BY c.id;
