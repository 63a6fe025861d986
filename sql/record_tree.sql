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
--   record_folded(stack, self_ns, line)   folded stacks: 'a;b;c <self ns>', one per distinct
--       stack with self time (self_ns > 0; negative counts as 0: a stack without has no line)
-- Cycle-safe: records out of the tree (depth NULL in profile_records: in a ParentRecordId cycle,
-- or a RecordId used again) are never roots and never reached, the walks skip them, and every
-- walk stops at depth 100000.
--
-- Cost (n records, d deep): record_tree is a plain scan of `records`: the walk from the roots
-- (root_id, the parent's and the root's time, the children's time summed) is done in C once
-- per capture (profile_records' tree columns, ext/model/stacks.c ps_records_walk), with the walk's
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
-- stack's records are merged by name, and a trie row holds integer keys only (its parent row's,
-- its records'), never a string; the stack text is built only for the rows with self time, each
-- from its own parent rows. So it costs the input plus its output, however many records share a
-- stack and however deep the tree: a .cpuprofile chain 100,000 deep with samples at its leaf
-- gives one line, built once (it used to build all 100,000 stacks above it: O(d^2) bytes,
-- spilled to temporary files).
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
  -- the records in the tree, each with up = the k of its parent (the first record in the tree
  -- with its parent_record_id) and root = 1 when it has no parent (none, or naming no record)
  link(k, up, root, name, t) AS MATERIALIZED (
    SELECT n.k, (SELECT min(p.k) FROM node p WHERE p.id = n.parent_id AND p.file = n.file AND p.in_tree),
           n.parent_id IS NULL OR NOT EXISTS (SELECT 1 FROM node p WHERE p.id = n.parent_id AND p.file = n.file),
           n.name, n.t
      FROM node n WHERE n.in_tree),
  child(up, total) AS MATERIALIZED (SELECT up, sum(t) FROM link WHERE up IS NOT NULL GROUP BY up),
  -- the stack trie: one row per distinct stack, named by tk (the smallest k of its members: each
  -- record is the member of one row) with up = its parent row's tk, and members = JSON array of
  -- the k of the records the walk reaches with that stack; a row's children are the children of
  -- its members grouped by name. Integer keys only: no row holds its stack's text.
  trie(tk, up, depth, name, members) AS (
    SELECT min(k), NULL, 0, name, json_group_array(k) FROM link WHERE root GROUP BY name, typeof(name)
    UNION ALL
    SELECT json_extract(g.value, '$[0]'), t.tk, t.depth + 1,
           (SELECT name FROM link WHERE k = json_extract(g.value, '$[0]')), json_extract(g.value, '$[1]')
      FROM trie t, json_each((
             SELECT json_group_array(json_array(first, json(members))) FROM (
               SELECT min(c.k) AS first, json_group_array(c.k) AS members
                 FROM json_each(t.members) j CROSS JOIN link c ON c.up = j.value
                GROUP BY c.name || ''))) g
     WHERE t.depth < 100000
  ),
  -- the self time of each trie row, summed over its members (a column: computed once)
  folded(tk, up, depth, name, self) AS MATERIALIZED (
    SELECT tk, up, depth, name, (SELECT sum(max(l.t - coalesce(c.total, 0), 0))
                                   FROM json_each(t.members) j CROSS JOIN link l ON l.k = j.value
                                   LEFT JOIN child c ON c.up = l.k)
      FROM trie t),
  -- the stack text, only for the rows with self time: the names of the row and of its parent
  -- rows up to the root, root first (a NULL name makes it NULL); built once per row here, where
  -- the GROUP BY below would build it for its key and again for each column naming it
  lines(stack, self) AS MATERIALIZED (
    SELECT CASE WHEN f.depth = 0 THEN f.name ELSE (
             WITH RECURSIVE up(d, tk, name) AS (
               SELECT f.depth, f.up, f.name
               UNION ALL
               SELECT p.depth, p.up, p.name FROM up u JOIN folded p ON p.tk = u.tk)
             SELECT CASE WHEN max(name IS NULL) THEN NULL ELSE group_concat(name, ';') END
               FROM (SELECT d, name FROM up ORDER BY d)) END, f.self
      FROM folded f WHERE f.self > 0)
-- two trie rows can spell one stack (a name holding ';'; 5 and '5'): GROUP BY merges them
SELECT stack, sum(self) AS self_ns, stack || ' ' || sum(self) AS line FROM lines GROUP BY stack;
