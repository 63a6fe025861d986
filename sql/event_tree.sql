-- event_tree.sql — the slice tree of a capture's events, as TEMP views.
--
-- Input: a table or view `events` with at least file, id, parent_id, name, dur (ns) — e.g.
--   CREATE TEMP VIEW events AS SELECT * FROM profile_events('trace.json');
--   .read sql/event_tree.sql
-- (profile_open() creates `events` and these views for you.) Works on any table with those
-- columns, e.g. one imported from a capture. Rows without a dur (never ended, counters,
-- instants without extent) are left out.
--
-- Views
--   event_tree(file, id, parent_id, root_id, depth, name, path, stack, inclusive_ns, self_ns,
--              share_of_parent, share_of_root)
--       (ids are per file: a source that names several files keeps their trees apart; a table
--        with one capture may have file NULL)
--       every slice reached from a root (parent_id NULL or not in `events`): path = names from
--       the root joined with ' > ', stack = the same joined with ';', self_ns = dur minus the
--       dur of the children, shares as fractions (0..1) of the parent's and the root's dur
--   event_ancestors(file, id, ancestor_id, distance)      every (row, ancestor) pair; distance 1 = parent
--   event_descendants(file, id, descendant_id, distance)  every (row, descendant) pair
--   event_folded(stack, self_ns, line)   folded stacks for flamegraph.pl / speedscope:
--       line = 'a;b;c <self ns>' (negative self time, from overlapping slices, counts as 0)
-- Cycle-safe: the walks start at roots and stop at depth 100000, so a parent cycle (possible in
-- imported or hand-made tables) is never entered and never loops.
DROP VIEW IF EXISTS temp.event_tree;
CREATE TEMP VIEW event_tree AS
WITH RECURSIVE
  -- one read of `events`; SQLite indexes the copy for the joins below
  node(file, id, parent_id, name, dur) AS MATERIALIZED (
    SELECT coalesce(file, ''), id, parent_id, name, dur FROM events WHERE dur IS NOT NULL),
  child(file, parent_id, total) AS MATERIALIZED (
    SELECT file, parent_id, sum(dur) FROM node WHERE parent_id IS NOT NULL GROUP BY file, parent_id),
  walk(file, id, parent_id, root_id, depth, name, path, stack, dur, parent_dur, root_dur) AS (
    SELECT n.file, n.id, n.parent_id, n.id, 0, n.name, n.name, n.name, n.dur, NULL, n.dur
      FROM node n
     WHERE n.parent_id IS NULL
        OR NOT EXISTS (SELECT 1 FROM node p WHERE p.id = n.parent_id AND p.file = n.file)
    UNION ALL
    SELECT c.file, c.id, c.parent_id, w.root_id, w.depth + 1, c.name,
           w.path || ' > ' || coalesce(c.name, ''), w.stack || ';' || coalesce(c.name, ''),
           c.dur, w.dur, w.root_dur
      FROM walk w JOIN node c ON c.parent_id = w.id AND c.file = w.file
     WHERE w.depth < 100000
  )
SELECT nullif(w.file, '') AS file, w.id, w.parent_id, w.root_id, w.depth, w.name, w.path, w.stack,
       w.dur AS inclusive_ns,
       w.dur - coalesce(k.total, 0) AS self_ns,
       CASE WHEN w.parent_dur > 0 THEN 1.0 * w.dur / w.parent_dur END AS share_of_parent,
       CASE WHEN w.root_dur > 0 THEN 1.0 * w.dur / w.root_dur END AS share_of_root
  FROM walk w LEFT JOIN child k ON k.parent_id = w.id AND k.file = w.file;

DROP VIEW IF EXISTS temp.event_ancestors;
CREATE TEMP VIEW event_ancestors AS
WITH RECURSIVE
  node(file, id, parent_id) AS MATERIALIZED (SELECT coalesce(file, ''), id, parent_id FROM events),
  up(file, id, ancestor_id, distance) AS (
    SELECT file, id, parent_id, 1 FROM node WHERE parent_id IS NOT NULL
    UNION ALL
    SELECT u.file, u.id, p.parent_id, u.distance + 1
      FROM up u JOIN node p ON p.id = u.ancestor_id AND p.file = u.file
     WHERE p.parent_id IS NOT NULL AND p.parent_id <> u.id AND u.distance < 100000
  )
SELECT nullif(file, '') AS file, id, ancestor_id, distance FROM up;

DROP VIEW IF EXISTS temp.event_descendants;
CREATE TEMP VIEW event_descendants AS
WITH RECURSIVE
  node(file, id, parent_id) AS MATERIALIZED (SELECT coalesce(file, ''), id, parent_id FROM events),
  down(file, id, descendant_id, distance) AS (
    SELECT file, parent_id, id, 1 FROM node WHERE parent_id IS NOT NULL
    UNION ALL
    SELECT d.file, d.id, c.id, d.distance + 1
      FROM down d JOIN node c ON c.parent_id = d.descendant_id AND c.file = d.file
     WHERE c.id <> d.id AND d.distance < 100000
  )
SELECT nullif(file, '') AS file, id, descendant_id, distance FROM down;

DROP VIEW IF EXISTS temp.event_folded;
CREATE TEMP VIEW event_folded AS
SELECT stack, sum(max(self_ns, 0)) AS self_ns, stack || ' ' || sum(max(self_ns, 0)) AS line
  FROM event_tree GROUP BY stack;
