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
--       line = 'a;b;c <self ns>', one per distinct stack with self time (self_ns > 0: stacks
--       whose slices have none, such as every level of a chain above its leaf, have no line,
--       as in a folded file; negative self time, from overlapping slices, counts as 0)
-- Cycle-safe: the walks start at roots and stop at depth 100000, so a parent cycle (possible in
-- imported or hand-made tables) is never entered and never loops.
--
-- Cost (n slices, d deep): the walk carries ids and numbers, never a built string, so a
-- query that does not read path or stack (count(*), sum(self_ns), depth = 0, the shares, ...)
-- is linear in n, whatever the depth and the name lengths. path and stack are built only for
-- the rows a query reads them from, each from that row's own ancestors: d lookups, a sort of
-- those d names and one group_concat, so a path costs about its length. Reading them for every
-- slice of a chain d deep is O(d^2) bytes of output, inherent. SQLite computes every selected
-- column of each row that enters a sort, and every column of a subquery it cannot merge into
-- the outer query (`(SELECT * FROM event_tree ORDER BY x)`, a UNION arm): so `SELECT path ...
-- ORDER BY x` with no WHERE (or LIMIT) builds every path. Name only the columns you need and
-- pick the rows first: `WHERE id IN (SELECT id FROM event_tree ORDER BY x LIMIT 10)`.
-- event_folded walks a trie of the distinct stacks, not the slices: the children of a
-- stack's slices are merged by name, and a trie row holds integer keys only (its parent row's,
-- its slices'), never a string; the stack text is built only for the rows with self time, each
-- from its own parent rows. So it costs the input plus its output, however many slices share a
-- stack and however deep the tree: a chain 100,000 deep with self time at its leaf gives one
-- line, built once (it used to build all 100,000 stacks above it: O(d^2) bytes, spilled to
-- temporary files).
-- Ids that repeat within a file (hand-made tables): the walk of event_tree takes every row with
-- the parent's id as a parent, as before; path and stack follow the first of them (in `events`
-- order), and so does event_folded: a slice hangs under the first slice with its parent's id
-- only, so its self time counts once and a cycle through a repeated id is never entered.
DROP VIEW IF EXISTS temp.event_tree;
CREATE TEMP VIEW event_tree AS
WITH RECURSIVE
  -- one read of `events`; SQLite indexes the copy for the joins below (k: the row's number)
  node(k, file, id, parent_id, name, dur) AS MATERIALIZED (
    SELECT row_number() OVER (), coalesce(file, ''), id, parent_id, name, dur
      FROM events WHERE dur IS NOT NULL),
  child(file, parent_id, total) AS MATERIALIZED (
    SELECT file, parent_id, sum(dur) FROM node WHERE parent_id IS NOT NULL GROUP BY file, parent_id),
  -- the walk carries no built string: a row costs the same at any depth
  walk(file, id, parent_id, root_id, depth, name, dur, parent_dur, root_dur) AS (
    SELECT n.file, n.id, n.parent_id, n.id, 0, n.name, n.dur, NULL, n.dur
      FROM node n
     WHERE n.parent_id IS NULL
        OR NOT EXISTS (SELECT 1 FROM node p WHERE p.id = n.parent_id AND p.file = n.file)
    UNION ALL
    SELECT c.file, c.id, c.parent_id, w.root_id, w.depth + 1, c.name, c.dur, w.dur, w.root_dur
      FROM walk w JOIN node c ON c.parent_id = w.id AND c.file = w.file
     WHERE w.depth < 100000
  )
SELECT nullif(w.file, '') AS file, w.id, w.parent_id, w.root_id, w.depth, w.name,
       CASE WHEN w.depth = 0 THEN w.name ELSE (
         -- the row and its ancestors up to the root (d = their depth; of rows sharing the
         -- parent's id, the first), then their names root first
         WITH RECURSIVE up(d, pid, name) AS (
           SELECT w.depth, w.parent_id, w.name
           UNION ALL
           SELECT u.d - 1, p.parent_id, p.name
             FROM up u JOIN node p ON p.id = u.pid AND p.file = w.file
            WHERE u.d > 0 AND p.k = (SELECT min(q.k) FROM node q WHERE q.id = u.pid AND q.file = w.file))
         SELECT CASE WHEN max(d = 0 AND name IS NULL) THEN NULL
                     ELSE group_concat(coalesce(name, ''), ' > ') END
           FROM (SELECT d, name FROM up ORDER BY d)) END AS path,
       CASE WHEN w.depth = 0 THEN w.name ELSE (
         WITH RECURSIVE up(d, pid, name) AS (
           SELECT w.depth, w.parent_id, w.name
           UNION ALL
           SELECT u.d - 1, p.parent_id, p.name
             FROM up u JOIN node p ON p.id = u.pid AND p.file = w.file
            WHERE u.d > 0 AND p.k = (SELECT min(q.k) FROM node q WHERE q.id = u.pid AND q.file = w.file))
         SELECT CASE WHEN max(d = 0 AND name IS NULL) THEN NULL
                     ELSE group_concat(coalesce(name, ''), ';') END
           FROM (SELECT d, name FROM up ORDER BY d)) END AS stack,
       w.dur AS inclusive_ns,
       w.dur - coalesce((SELECT k.total FROM child k WHERE k.parent_id = w.id AND k.file = w.file), 0)
         AS self_ns,
       CASE WHEN w.parent_dur > 0 THEN 1.0 * w.dur / w.parent_dur END AS share_of_parent,
       CASE WHEN w.root_dur > 0 THEN 1.0 * w.dur / w.root_dur END AS share_of_root
  FROM walk w;

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
WITH RECURSIVE
  node(k, file, id, parent_id, name, dur) AS MATERIALIZED (
    SELECT row_number() OVER (), coalesce(file, ''), id, parent_id, name, dur
      FROM events WHERE dur IS NOT NULL),
  -- each slice with up = the k of its parent: the first slice with its parent_id (of slices
  -- sharing an id, the first, as path and stack in event_tree; NULL for a root)
  link(k, up, root, name, dur) AS MATERIALIZED (
    SELECT n.k, (SELECT min(p.k) FROM node p WHERE p.id = n.parent_id AND p.file = n.file),
           n.parent_id IS NULL OR NOT EXISTS (SELECT 1 FROM node p WHERE p.id = n.parent_id AND p.file = n.file),
           n.name, n.dur
      FROM node n),
  child(up, total) AS MATERIALIZED (SELECT up, sum(dur) FROM link WHERE up IS NOT NULL GROUP BY up),
  -- the stack trie: one row per distinct stack, named by tk (the smallest k of its members: each
  -- slice is the member of one row at most) with up = its parent row's tk, and members = JSON
  -- array of the k of the slices the walk reaches with that stack; a row's children are the
  -- children of its members grouped by name. Integer keys only: no row holds its stack's text.
  trie(tk, up, depth, name, members) AS (
    SELECT min(k), NULL, 0, name, json_group_array(k) FROM link WHERE root GROUP BY name, typeof(name)
    UNION ALL
    SELECT json_extract(g.value, '$[0]'), t.tk, t.depth + 1,
           (SELECT coalesce(name, '') FROM link WHERE k = json_extract(g.value, '$[0]')),
           json_extract(g.value, '$[1]')
      FROM trie t, json_each((
             SELECT json_group_array(json_array(first, json(members))) FROM (
               SELECT min(c.k) AS first, json_group_array(c.k) AS members
                 FROM json_each(t.members) j CROSS JOIN link c ON c.up = j.value
                GROUP BY coalesce(c.name, '') || ''))) g
     WHERE t.depth < 100000
  ),
  -- the self time of each trie row, summed over its members (a column: computed once)
  folded(tk, up, depth, name, self) AS MATERIALIZED (
    SELECT tk, up, depth, name, (SELECT sum(max(l.dur - coalesce(c.total, 0), 0))
                                   FROM json_each(t.members) j CROSS JOIN link l ON l.k = j.value
                                   LEFT JOIN child c ON c.up = l.k)
      FROM trie t),
  -- the stack text, only for the rows with self time: the names of the row and of its parent
  -- rows up to the root, root first (a NULL root name makes it NULL); built once per row here, where
  -- the GROUP BY below would build it for its key and again for each column naming it
  lines(stack, self) AS MATERIALIZED (
    SELECT CASE WHEN f.depth = 0 THEN f.name ELSE (
             WITH RECURSIVE up(d, tk, name) AS (
               SELECT f.depth, f.up, f.name
               UNION ALL
               SELECT p.depth, p.up, p.name FROM up u JOIN folded p ON p.tk = u.tk)
             SELECT CASE WHEN max(d = 0 AND name IS NULL) THEN NULL ELSE group_concat(name, ';') END
               FROM (SELECT d, name FROM up ORDER BY d)) END, f.self
      FROM folded f WHERE f.self > 0)
-- two trie rows can spell one stack (a name holding ';'; 5 and '5'): GROUP BY merges them
SELECT stack, sum(self) AS self_ns, stack || ' ' || sum(self) AS line FROM lines GROUP BY stack;
