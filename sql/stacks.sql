-- stacks.sql — what a CPU profile is for, as TEMP views: which functions burn the time, self and
-- total, and the folded stacks a flame graph is drawn from.
--
-- Input: a table or view `records` with at least file, record_id, parent_record_id, name,
-- category, count, self_ns, depth, attrs: the frames / call-tree nodes of a sampled capture (ext/model/stacks.h:
-- count = the samples whose leaf is the node, self_ns = their sampled time) — e.g.
--   CREATE TEMP VIEW records AS SELECT * FROM profile_records('cpu.pprof');
--   .read sql/stacks.sql
-- (profile_open() creates `records` and these views for a capture with stacks.)
--
-- A V8 function without a name (a .cpuprofile's or a Chrome profile's call frame) is
-- '(anonymous) <file>:<line>' (the last part of its url, its lineNumber + 1, as DevTools shows it;
-- the flame graph says the same); other formats' names stay as the file has them (a folded file's
-- empty frame stays empty, so stack_folded gives the file back).
--
-- Views
--   stack_functions(file, name, category, self_samples, total_samples, self_ns, total_ns)
--       one row per function (name and category: a function of two files or modules is two
--       rows): self = the samples whose leaf is the function; total = the samples with the
--       function anywhere on their stack, counted ONCE per sample however often the function
--       recurses on it (a;b;a;b adds 1 to a's total, not 2), as flame graph tools count.
--       self_ns / total_ns are NULL for captures whose samples carry no time (folded stacks,
--       perf events that count cycles); samples are sums of the sample weights.
--   stack_folded(file, stack, samples, self_ns)
--       one row per call-tree node with samples of its own: stack = the names from the root
--       joined with ';' (flamegraph.pl's folded form 'a;b;c'), samples = its count, self_ns.
--       `SELECT stack || ' ' || samples FROM stack_folded` is a folded file.
-- Cycle-safe as record_tree.sql: nodes out of the tree (depth NULL) are never reached; every walk
-- stops at depth 100000.
--
-- Cost (n nodes, d deep): stack_functions' walk carries a string per node (the set of functions
-- above it), so it costs O(n·d) — for a profile's call tree (thousands to a few hundred
-- thousand nodes, tens deep) well under a second; it explodes only nodes with samples of their
-- own. stack_folded's walk carries integers only, and the stack text is built only for the
-- nodes with samples, each from its own ancestors: it costs the input plus its output (a chain
-- 100,000 deep with samples at its leaf: one row, built once).
-- Node ids that repeat within a file (hand-made tables: profile_records leaves the later ones
-- out of the tree): in stack_folded a node hangs under the first node in the tree with its
-- parent's id.
DROP VIEW IF EXISTS temp.stack_functions;
CREATE TEMP VIEW stack_functions AS
WITH RECURSIVE
  node(file, id, parent_id, name, category, cnt, self_t, in_tree) AS MATERIALIZED (
    SELECT coalesce(file, ''), record_id, parent_record_id,
           CASE WHEN name <> '' THEN name
                WHEN json_valid(attrs) AND json_extract(attrs, '$.callFrame.lineNumber') IS NOT NULL
                THEN '(anonymous) ' || replace(ifnull(category, ''), rtrim(ifnull(category, ''), replace(ifnull(category, ''), '/', '')), '')
                     || ':' || (json_extract(attrs, '$.callFrame.lineNumber') + 1)
                WHEN json_valid(attrs) AND json_type(attrs, '$.callFrame') = 'object' THEN '(anonymous)'
                ELSE name END, category, count, self_ns,
           depth IS NOT NULL FROM records),
  -- a function is a (name, category) pair, numbered so the walk carries integers
  fn(k, name, category) AS MATERIALIZED (
    SELECT row_number() OVER (ORDER BY name, category), name, category
      FROM (SELECT DISTINCT name, category FROM node)),
  nk(file, id, parent_id, k, cnt, self_t, in_tree) AS MATERIALIZED (
    SELECT n.file, n.id, n.parent_id, f.k, n.cnt, n.self_t, n.in_tree
      FROM node n JOIN fn f ON f.name IS n.name AND f.category IS n.category),
  -- names: the set of functions from the root to the node, as ',k1,k2,...,'
  walk(file, id, cnt, self_t, names, depth) AS (
    SELECT n.file, n.id, n.cnt, n.self_t, ',' || n.k || ',', 0
      FROM nk n
     WHERE n.in_tree AND (n.parent_id IS NULL
        OR NOT EXISTS (SELECT 1 FROM node p WHERE p.id = n.parent_id AND p.file = n.file))
    UNION ALL
    SELECT c.file, c.id, c.cnt, c.self_t,
           CASE WHEN instr(w.names, ',' || c.k || ',') THEN w.names ELSE w.names || c.k || ',' END,
           w.depth + 1
      FROM walk w JOIN nk c ON c.parent_id = w.id AND c.file = w.file
     WHERE c.in_tree AND w.depth < 100000
  ),
  self(file, k, s, st) AS (
    SELECT file, k, sum(cnt), sum(self_t) FROM nk WHERE in_tree GROUP BY file, k),
  total(file, k, s, st) AS (
    SELECT w.file, CAST(j.value AS INTEGER), sum(w.cnt), sum(w.self_t)
      FROM walk w, json_each('[' || substr(w.names, 2, length(w.names) - 2) || ']') j
     WHERE w.cnt > 0
     GROUP BY w.file, CAST(j.value AS INTEGER))
SELECT nullif(t.file, '') AS file, f.name, f.category,
       coalesce(s.s, 0) AS self_samples, t.s AS total_samples,
       CASE WHEN t.st IS NULL THEN NULL ELSE coalesce(s.st, 0) END AS self_ns, t.st AS total_ns
  FROM total t JOIN fn f ON f.k = t.k
  LEFT JOIN self s ON s.file = t.file AND s.k = t.k;

DROP VIEW IF EXISTS temp.stack_folded;
CREATE TEMP VIEW stack_folded AS
WITH RECURSIVE
  node(k, file, id, parent_id, name, cnt, self_t, in_tree) AS MATERIALIZED (
    SELECT row_number() OVER (), coalesce(file, ''), record_id, parent_record_id,
           CASE WHEN name <> '' THEN name
                WHEN json_valid(attrs) AND json_extract(attrs, '$.callFrame.lineNumber') IS NOT NULL
                THEN '(anonymous) ' || replace(ifnull(category, ''), rtrim(ifnull(category, ''), replace(ifnull(category, ''), '/', '')), '')
                     || ':' || (json_extract(attrs, '$.callFrame.lineNumber') + 1)
                WHEN json_valid(attrs) AND json_type(attrs, '$.callFrame') = 'object' THEN '(anonymous)'
                ELSE name END, count, self_ns,
           depth IS NOT NULL FROM records),
  -- the nodes in the tree, each with up = the k of its parent (the first node in the tree with its
  -- parent_record_id) and root = 1 when it has no parent (none, or naming no node)
  link(k, up, root, file, name, cnt, self_t) AS MATERIALIZED (
    SELECT n.k, (SELECT min(p.k) FROM node p WHERE p.id = n.parent_id AND p.file = n.file AND p.in_tree),
           n.parent_id IS NULL OR NOT EXISTS (SELECT 1 FROM node p WHERE p.id = n.parent_id AND p.file = n.file),
           n.file, n.name, n.cnt, n.self_t
      FROM node n WHERE n.in_tree),
  -- the walk carries integers, no stack text
  walk(k, up, file, name, cnt, self_t, depth) AS (
    SELECT k, up, file, name, cnt, self_t, 0 FROM link WHERE root
    UNION ALL
    SELECT c.k, c.up, c.file, c.name, c.cnt, c.self_t, w.depth + 1
      FROM walk w JOIN link c ON c.up = w.k
     WHERE w.depth < 100000
  )
-- the stack text only for the nodes with samples: the names of the node and of its parents up
-- to the root, root first
SELECT nullif(w.file, '') AS file,
       CASE WHEN w.depth = 0 THEN coalesce(w.name, '') ELSE (
         WITH RECURSIVE up(d, k, name) AS (
           SELECT w.depth, w.up, w.name
           UNION ALL
           SELECT u.d - 1, p.up, p.name FROM up u JOIN link p ON p.k = u.k WHERE u.d > 0)
         SELECT group_concat(coalesce(name, ''), ';') FROM (SELECT d, name FROM up ORDER BY d)) END AS stack,
       w.cnt AS samples, w.self_t AS self_ns
  FROM walk w WHERE w.cnt > 0;
