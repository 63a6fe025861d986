-- record_tree.sql — the timer tree of a timings report's records, as TEMP views.
--
-- Input: a table or view `records` with at least file, record_id, parent_record_id, name,
-- time_ns, depth — e.g.
--   CREATE TEMP VIEW records AS SELECT * FROM profile_records('timings.txt');
--   .read sql/record_tree.sql
-- (profile_open() creates `records` and these views for you.) Reports without record ids
-- (legacy v1) have no tree: every record is a root.
--
-- Views
--   record_tree(file, record_id, parent_record_id, root_id, depth, name, path, stack,
--               inclusive_ns, self_ns, share_of_parent, share_of_root)
--       (record ids are per file: several reports keep their trees apart; file may be NULL)
--       every record reached from a root (ParentRecordId none, or naming a record that does not
--       exist): path = names from the root joined with ' > ', stack = joined with ';',
--       self_ns = time minus the children's time, shares as fractions of parent's / root's time
--   record_ancestors(file, record_id, ancestor_id, distance)
--   record_descendants(file, record_id, descendant_id, distance)
--   record_folded(stack, self_ns, line)   folded stacks: 'a;b;c <self ns>' (negative as 0)
-- Cycle-safe: records in a ParentRecordId cycle (depth NULL in profile_records) are never
-- reached from a root, the walks skip them, and every walk stops at depth 100000.
DROP VIEW IF EXISTS temp.record_tree;
CREATE TEMP VIEW record_tree AS
WITH RECURSIVE
  -- one read of `records`; SQLite indexes the copy for the joins below
  node(file, id, parent_id, name, t, in_tree) AS MATERIALIZED (
    SELECT coalesce(file, ''), record_id, parent_record_id, name, time_ns, depth IS NOT NULL FROM records),
  child(file, parent_id, total) AS MATERIALIZED (
    SELECT file, parent_id, sum(t) FROM node WHERE parent_id IS NOT NULL AND in_tree GROUP BY file, parent_id),
  walk(file, record_id, parent_record_id, root_id, depth, name, path, stack, t, parent_t, root_t) AS (
    SELECT n.file, n.id, n.parent_id, n.id, 0, n.name, n.name, n.name, n.t, NULL, n.t
      FROM node n
     WHERE n.parent_id IS NULL
        OR NOT EXISTS (SELECT 1 FROM node p WHERE p.id = n.parent_id AND p.file = n.file)
    UNION ALL
    SELECT c.file, c.id, c.parent_id, w.root_id, w.depth + 1, c.name,
           w.path || ' > ' || c.name, w.stack || ';' || c.name, c.t, w.t, w.root_t
      FROM walk w JOIN node c ON c.parent_id = w.record_id AND c.file = w.file
     WHERE c.in_tree AND w.depth < 100000
  )
SELECT nullif(w.file, '') AS file, w.record_id, w.parent_record_id, w.root_id, w.depth, w.name, w.path, w.stack,
       w.t AS inclusive_ns,
       w.t - coalesce(k.total, 0) AS self_ns,
       CASE WHEN w.parent_t > 0 THEN 1.0 * w.t / w.parent_t END AS share_of_parent,
       CASE WHEN w.root_t > 0 THEN 1.0 * w.t / w.root_t END AS share_of_root
  FROM walk w LEFT JOIN child k ON k.parent_id = w.record_id AND k.file = w.file;

DROP VIEW IF EXISTS temp.record_ancestors;
CREATE TEMP VIEW record_ancestors AS
WITH RECURSIVE
  node(file, id, parent_id) AS MATERIALIZED (
    SELECT coalesce(file, ''), record_id, parent_record_id FROM records WHERE depth IS NOT NULL),
  up(file, record_id, ancestor_id, distance) AS (
    SELECT n.file, n.id, n.parent_id, 1 FROM node n
     WHERE EXISTS (SELECT 1 FROM node q WHERE q.id = n.parent_id AND q.file = n.file)
    UNION ALL
    SELECT u.file, u.record_id, p.parent_id, u.distance + 1
      FROM up u JOIN node p ON p.id = u.ancestor_id AND p.file = u.file
     WHERE EXISTS (SELECT 1 FROM node q WHERE q.id = p.parent_id AND q.file = p.file) AND u.distance < 100000
  )
SELECT nullif(file, '') AS file, record_id, ancestor_id, distance FROM up;

DROP VIEW IF EXISTS temp.record_descendants;
CREATE TEMP VIEW record_descendants AS
WITH RECURSIVE
  node(file, id, parent_id) AS MATERIALIZED (
    SELECT coalesce(file, ''), record_id, parent_record_id FROM records WHERE depth IS NOT NULL),
  down(file, record_id, descendant_id, distance) AS (
    SELECT file, parent_id, id, 1 FROM node WHERE parent_id IS NOT NULL
    UNION ALL
    SELECT d.file, d.record_id, c.id, d.distance + 1
      FROM down d JOIN node c ON c.parent_id = d.descendant_id AND c.file = d.file
     WHERE d.distance < 100000
  )
SELECT nullif(file, '') AS file, record_id, descendant_id, distance FROM down;

DROP VIEW IF EXISTS temp.record_folded;
CREATE TEMP VIEW record_folded AS
SELECT stack, sum(max(self_ns, 0)) AS self_ns, stack || ' ' || sum(max(self_ns, 0)) AS line
  FROM record_tree GROUP BY stack;
