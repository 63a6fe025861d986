-- record_tree.sql — the timer tree of a timings report's records, as TEMP views.
--
-- Input: a table or view `records` with at least file, record_id, parent_record_id, name,
-- time_ns, depth and the tree columns root_id, parent_time_ns, root_time_ns, children_time_ns
-- (profile_records has them all, and so does a profile_import table) — e.g.
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
-- Cycle-safe: records out of the tree (depth NULL in profile_records: in a ParentRecordId cycle,
-- or a RecordId used again) are never roots and never reached, the walks skip them, and every
-- walk stops at depth 100000.
--
-- Cost (n records, d deep): record_tree is a plain scan of `records`: the walk from the roots
-- (root_id, the parent's and the root's time, the children's time summed) is done in C once
-- per capture (profile_records' tree columns, ext/stacks.c ps_records_walk), with the walk's
-- rules: roots are the records with depth not NULL whose parent_record_id is NULL or names no
-- record; children are the records with depth not NULL whose parent_record_id is the record's
-- record_id; the walk stops at depth 100000. Rows come in record order (the recursive walk
-- gave them breadth-first). A query that does not read path or stack (count(*), sum(self_ns),
-- depth = 1, the shares, ...) is one scan, whatever the depth and the name lengths. path and
-- stack are built only for the rows a query reads them from (the first such row reads
-- `records` once into `node`), each from that row's own ancestors: d lookups, a sort of
-- those d names and one group_concat, so a path costs about its length. Reading them for every
-- record of a chain d deep is O(d^2) bytes of output, inherent. SQLite computes every selected
-- column of each row that enters a sort, and every column of a subquery it cannot merge into
-- the outer query (`(SELECT * FROM record_tree ORDER BY x)`, a UNION arm): so `SELECT path ...
-- ORDER BY x` with no WHERE (or LIMIT) builds every path. Name only the columns you need and
-- pick the rows first: `WHERE record_id IN (SELECT record_id FROM record_tree ORDER BY x LIMIT 10)`.
-- record_folded walks a trie of the distinct stacks, not the records: the children of a
-- stack's records are merged by name (the trie rows hold integer keys, no strings) and each
-- distinct stack's string is built once from its parent's, so it costs the input plus its
-- output, however many records share a stack.
-- A RecordId used twice (profile_records keeps both, with a diagnostic, and leaves the later
-- ones out of the tree: depth NULL): links by that id go to the first, as depth, path and stack
-- do; the other views take every record of the id as a parent.
DROP VIEW IF EXISTS temp.record_tree;
CREATE TEMP VIEW record_tree AS
WITH RECURSIVE
  -- for path and stack only (never read by a query that does not ask for them): one read of
  -- `records`, which SQLite indexes for the walk up (k: the row's number)
  node(k, file, id, parent_id, name) AS MATERIALIZED (
    SELECT row_number() OVER (), coalesce(file, ''), record_id, parent_record_id, name FROM records)
-- a plain scan: root_id, parent_time_ns, root_time_ns and children_time_ns are the walk from
-- the roots, done once per capture in C (profile_records); the walk stopped at depth 100000
SELECT nullif(r.file, '') AS file, r.record_id, r.parent_record_id, r.root_id, r.depth, r.name,
       CASE WHEN r.depth = 0 THEN r.name ELSE (
         -- the record and its ancestors up to the root (d = their depth; of records sharing the
         -- parent's id, the first), then their names root first (a NULL name makes it NULL)
         WITH RECURSIVE up(d, pid, name) AS (
           SELECT r.depth, r.parent_record_id, r.name
           UNION ALL
           SELECT u.d - 1, p.parent_id, p.name
             FROM up u JOIN node p ON p.id = u.pid AND p.file = coalesce(r.file, '')
            WHERE u.d > 0 AND p.k = (SELECT min(q.k) FROM node q WHERE q.id = u.pid AND q.file = coalesce(r.file, '')))
         SELECT CASE WHEN max(name IS NULL) THEN NULL ELSE group_concat(name, ' > ') END
           FROM (SELECT d, name FROM up ORDER BY d)) END AS path,
       CASE WHEN r.depth = 0 THEN r.name ELSE (
         WITH RECURSIVE up(d, pid, name) AS (
           SELECT r.depth, r.parent_record_id, r.name
           UNION ALL
           SELECT u.d - 1, p.parent_id, p.name
             FROM up u JOIN node p ON p.id = u.pid AND p.file = coalesce(r.file, '')
            WHERE u.d > 0 AND p.k = (SELECT min(q.k) FROM node q WHERE q.id = u.pid AND q.file = coalesce(r.file, '')))
         SELECT CASE WHEN max(name IS NULL) THEN NULL ELSE group_concat(name, ';') END
           FROM (SELECT d, name FROM up ORDER BY d)) END AS stack,
       r.time_ns AS inclusive_ns,
       r.time_ns - r.children_time_ns AS self_ns,
       CASE WHEN r.parent_time_ns > 0 THEN 1.0 * r.time_ns / r.parent_time_ns END AS share_of_parent,
       CASE WHEN r.root_time_ns > 0 THEN 1.0 * r.time_ns / r.root_time_ns END AS share_of_root
  FROM records r
 WHERE r.root_id IS NOT NULL AND r.depth <= 100000;

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
WITH RECURSIVE
  node(k, file, id, parent_id, name, t, in_tree) AS MATERIALIZED (
    SELECT row_number() OVER (), coalesce(file, ''), record_id, parent_record_id, name, time_ns,
           depth IS NOT NULL FROM records),
  child(file, parent_id, total) AS MATERIALIZED (
    SELECT file, parent_id, sum(t) FROM node WHERE parent_id IS NOT NULL AND in_tree GROUP BY file, parent_id),
  -- the stack trie: one row per distinct stack (names root first), members = JSON array of
  -- the k of the records the walk reaches with that stack; a row's children are the children
  -- of its members grouped by name, found by integer keys
  trie(depth, stack, members) AS (
    SELECT 0, name, json_group_array(k)
      FROM node n
     WHERE n.in_tree AND (n.parent_id IS NULL
        OR NOT EXISTS (SELECT 1 FROM node p WHERE p.id = n.parent_id AND p.file = n.file))
     GROUP BY name, typeof(name)
    UNION ALL
    SELECT t.depth + 1, t.stack || ';' || (SELECT name FROM node WHERE k = json_extract(g.value, '$[0]')),
           json_extract(g.value, '$[1]')
      FROM trie t, json_each((
             SELECT json_group_array(json_array(first, json(members))) FROM (
               SELECT min(c.k) AS first, json_group_array(c.k) AS members
                 FROM json_each(t.members) j CROSS JOIN node m ON m.k = j.value
                 JOIN node c ON c.parent_id = m.id AND c.file = m.file
                WHERE c.in_tree
                GROUP BY c.name || ''))) g
     WHERE t.depth < 100000
  ),
  -- the self time of each trie row, summed over its members (a column: computed once)
  folded(stack, self) AS MATERIALIZED (
    SELECT stack, (SELECT sum(max(n.t - coalesce(c.total, 0), 0))
                     FROM json_each(t.members) j CROSS JOIN node n ON n.k = j.value
                     LEFT JOIN child c ON c.parent_id = n.id AND c.file = n.file)
      FROM trie t)
-- two trie rows can spell one stack (a name holding ';'; 5 and '5'): GROUP BY merges them
SELECT stack, sum(self) AS self_ns, stack || ' ' || sum(self) AS line FROM folded GROUP BY stack;
