-- event_tree.sql — the slice tree of a capture's events, as TEMP views.
--
-- Input: a table or view `events` with at least id, parent_id, name, dur (ns), depth — e.g.
--   CREATE TEMP VIEW events AS SELECT * FROM profile_events('trace.json');
--   .read sql/event_tree.sql
-- (profile_open() creates `events` and these views for you.) Works on any table with those
-- columns, e.g. one imported from a capture. Rows without a dur (never ended, counters,
-- instants without extent) are left out.
--
-- Views
--   event_tree(id, parent_id, root_id, depth, name, path, stack, inclusive_ns, self_ns,
--              share_of_parent, share_of_root)
--       every slice reached from a root (parent_id NULL or not in `events`): path = names from
--       the root joined with ' > ', stack = the same joined with ';', self_ns = dur minus the
--       dur of the children, shares as fractions (0..1) of the parent's and the root's dur
--   event_ancestors(id, ancestor_id, distance)      every (slice, ancestor) pair; distance 1 = parent
--   event_descendants(id, descendant_id, distance)  every (slice, descendant) pair
--   event_folded(stack, self_ns, line)   folded stacks for flamegraph.pl / speedscope:
--       line = 'a;b;c <self ns>' (negative self time, from overlapping slices, counts as 0)
-- Cycle-safe: the walks start at roots and stop at depth 100000, so a parent cycle (possible in
-- imported or hand-made tables) is never entered and never loops.
DROP VIEW IF EXISTS temp.event_tree;
CREATE TEMP VIEW event_tree AS
WITH RECURSIVE
  -- one read of `events`; SQLite indexes the copy for the joins below
  node(id, parent_id, name, dur) AS MATERIALIZED (
    SELECT id, parent_id, name, dur FROM events WHERE dur IS NOT NULL),
  child(parent_id, total) AS MATERIALIZED (
    SELECT parent_id, sum(dur) FROM node WHERE parent_id IS NOT NULL GROUP BY parent_id),
  walk(id, parent_id, root_id, depth, name, path, stack, dur, parent_dur, root_dur) AS (
    SELECT n.id, n.parent_id, n.id, 0, n.name, n.name, n.name, n.dur, NULL, n.dur
      FROM node n
     WHERE n.parent_id IS NULL OR n.parent_id NOT IN (SELECT id FROM node)
    UNION ALL
    SELECT c.id, c.parent_id, w.root_id, w.depth + 1, c.name,
           w.path || ' > ' || coalesce(c.name, ''), w.stack || ';' || coalesce(c.name, ''),
           c.dur, w.dur, w.root_dur
      FROM walk w JOIN node c ON c.parent_id = w.id
     WHERE w.depth < 100000
  )
SELECT w.id, w.parent_id, w.root_id, w.depth, w.name, w.path, w.stack,
       w.dur AS inclusive_ns,
       w.dur - coalesce(k.total, 0) AS self_ns,
       CASE WHEN w.parent_dur > 0 THEN 1.0 * w.dur / w.parent_dur END AS share_of_parent,
       CASE WHEN w.root_dur > 0 THEN 1.0 * w.dur / w.root_dur END AS share_of_root
  FROM walk w LEFT JOIN child k ON k.parent_id = w.id;

DROP VIEW IF EXISTS temp.event_ancestors;
CREATE TEMP VIEW event_ancestors AS
WITH RECURSIVE
  node(id, parent_id) AS MATERIALIZED (SELECT id, parent_id FROM events),
  up(id, ancestor_id, distance) AS (
    SELECT id, parent_id, 1 FROM node WHERE parent_id IS NOT NULL
    UNION ALL
    SELECT u.id, p.parent_id, u.distance + 1
      FROM up u JOIN node p ON p.id = u.ancestor_id
     WHERE p.parent_id IS NOT NULL AND p.parent_id <> u.id AND u.distance < 100000
  )
SELECT id, ancestor_id, distance FROM up;

DROP VIEW IF EXISTS temp.event_descendants;
CREATE TEMP VIEW event_descendants AS
WITH RECURSIVE
  node(id, parent_id) AS MATERIALIZED (SELECT id, parent_id FROM events),
  down(id, descendant_id, distance) AS (
    SELECT parent_id, id, 1 FROM node WHERE parent_id IS NOT NULL
    UNION ALL
    SELECT d.id, c.id, d.distance + 1
      FROM down d JOIN node c ON c.parent_id = d.descendant_id
     WHERE c.id <> d.id AND d.distance < 100000
  )
SELECT id, descendant_id, distance FROM down;

DROP VIEW IF EXISTS temp.event_folded;
CREATE TEMP VIEW event_folded AS
SELECT stack, sum(max(self_ns, 0)) AS self_ns, stack || ' ' || sum(max(self_ns, 0)) AS line
  FROM event_tree GROUP BY stack;
