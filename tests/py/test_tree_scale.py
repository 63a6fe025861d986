"""The tree views of sql/event_tree.sql and sql/record_tree.sql grow linearly (issue 12, item 7).

Inputs are generated here, in a temporary directory, as a Chrome trace (nested 'X' events) and a
PocketMine-MP tree report (RecordId / ParentRecordId), each at size n and 4n:
  chain  one slice under the other, n deep, long names: event_tree / record_tree queries that do
         not read path or stack (one as the right side of a LEFT JOIN, where SQLite merges the
         view into the query only while the view is not a join), and the deepest row's path;
  wide   bounded depth (<= 6), names from a set of 8, so stacks repeat: ancestors, descendants,
         path and stack of every row, folded;
  ticks  k ticks, each the same call chain d deep with a side call at every level (k = d, so
         2d^2 slices in 2d distinct stacks): folded, whose old form built one string per slice.
For each query, work(4n) / work(n) <= 4.5 by two counters, never by time:
  - SQLite's VM steps (sqlite3_stmt_status SQLITE_STMTSTATUS_VM_STEP);
  - the bytes SQLite allocates while the statement runs, counted by an allocator installed with
    sqlite3_config(SQLITE_CONFIG_MALLOC). VM steps alone do not see string building: on the
    chain, the old `w.path || ' > ' || name` walk took 4.0x the steps at 4n but 16x the bytes.
Both come from the C API through ctypes (the sqlite3 module exposes neither), on the
libsqlite3 that Python's sqlite3 module uses; the allocator must be in place before SQLite
initializes, so before anything imports sqlite3 (testlib does).
The values are checked against an independent computation in Python from the generated trees:
counts, depths, path / stack of every row, self times, every folded line. Run from the
repository root. Prints testlib's RESULT line last (tests/run.sh reads it)."""
import json
import os
import random
import shutil
import tempfile

# ---------------------------------------------------------------- counters (before testlib)

from sqlite_counters import Db as CDb, config_rc  # noqa: E402  (before testlib: sqlite3_config)

from testlib import check, done   # noqa: E402  (imports sqlite3: after sqlite3_config)
from treelib import inclusive, timings_txt   # noqa: E402

class Db(CDb):
    """A connection through the C API, with ./libprofsql loaded; run raises on an error."""

    def run(self, sql, *args):
        """Runs one statement; returns (rows, VM steps, bytes allocated while it ran)."""
        rows, steps, used, _, err = super().run(sql, *args)
        if err is not None:
            raise RuntimeError(err)
        return rows, steps, used


# ---------------------------------------------------------------- trees and their files
# A tree is a list of (parent index or None, name, self µs) in pre-order (a parent before its
# children, a subtree contiguous), so the index is also the slice's id in profile_events (file
# order) and its RecordId - 1.

def long_name(i, n):
    s = f"f{i}_"
    return (s * (n // len(s) + 1))[:n]


def chain(n, name_len):
    return [(i - 1 if i else None, long_name(i, name_len), 2) for i in range(n)]


def wide(n, name_len, seed):
    rnd, tree, open_ = random.Random(seed), [], []
    for i in range(n):
        open_ = open_[:rnd.randint(0, min(len(open_), 6))]
        tree.append((open_[-1] if open_ else None, long_name(rnd.randint(0, 7), name_len), 0))
        open_.append(i)
    return tree


def ticks(k, d, name_len):
    tree = []
    for _ in range(k):
        up = None
        for level in range(d):
            tree.append((up, long_name(level, name_len), 0))
            up = len(tree) - 1
            tree.append((up, "io_" + long_name(level, name_len - 3), 0))
    return tree


def with_times(tree):
    """Self times that leave a 1 µs gap around every child (so nesting is never ambiguous)."""
    nkids = [0] * len(tree)
    for p, _, _ in tree:
        if p is not None:
            nkids[p] += 1
    return [(p, name, max(s, 0) + nkids[i] + 1 + i % 3) for i, (p, name, s) in enumerate(tree)]


def chrome_json(tree):
    dur, ts, nxt, cursor, ev = inclusive(tree), [0] * len(tree), [0] * len(tree), 0, []
    for i, (p, name, _) in enumerate(tree):
        if p is None:
            ts[i], cursor = cursor, cursor + dur[i] + 1
        else:
            ts[i] = nxt[p]
            nxt[p] = ts[i] + dur[i] + 1
        nxt[i] = ts[i] + 1
        ev.append({"ph": "X", "name": name, "ts": ts[i], "dur": dur[i], "pid": 1, "tid": 1})
    return json.dumps({"traceEvents": ev})


def expected(tree, unit):
    """Python's own answer: per index (depth, path, stack, self ns), and the folded lines."""
    rows, folded = [], {}
    for i, (p, name, s) in enumerate(tree):
        names = [name] if p is None else rows[p][3] + [name]
        rows.append((len(names) - 1, " > ".join(names), ";".join(names), names))
        stack = ";".join(names)
        folded[stack] = folded.get(stack, 0) + s * unit
    return [r[:3] + (tree[i][2] * unit,) for i, r in enumerate(rows)], sorted(folded.items())


# ---------------------------------------------------------------- the checks

tmp = tempfile.mkdtemp(prefix="tree_scale_")
db = Db()
check(config_rc == 0, "sqlite3_config(SQLITE_CONFIG_MALLOC) before SQLite initialized", config_rc)


def open_capture(tree, kind, tag):
    path = os.path.join(tmp, tag + (".json" if kind == "event" else ".txt"))
    with open(path, "w") as f:
        f.write(chrome_json(tree) if kind == "event" else timings_txt(tree))
    views = db.run("SELECT profile_open(?)", path)[0][0][0]
    assert f"{kind}_tree" in views, views
    return path


def scales(what, kind, make, queries):
    """make(scale) -> tree; each query's VM steps and bytes at 4n must be <= 4.5x those at n."""
    got = {}
    for scale in (1, 4):
        open_capture(make(scale), kind, f"{what}_{kind}_{scale}")
        for q in queries:
            got[q, scale] = db.run(q)
    for q in queries:
        (_, s1, b1), (_, s4, b4) = got[q, 1], got[q, 4]
        s1, b1 = max(s1, 1), max(b1, 1)
        line = f"{what} {kind}: {q}: VM steps {s1} -> {s4} ({s4 / s1:.2f}x), bytes {b1} -> {b4} ({b4 / b1:.2f}x)"
        ok = s4 <= 4.5 * s1 and b4 <= 4.5 * b1
        if ok:
            print("ok  ", line)
        check(ok, line)


for kind, unit, name_len in (("event", 1000, 500), ("record", 1, 2000)):
    tree_view, folded = f"{kind}_tree", f"{kind}_folded"
    key = "id" if kind == "event" else "record_id"
    base = 0 if kind == "event" else 1          # first id: profile_events counts from 0, RecordId 1

    # 1. a chain n deep: nothing that skips path / stack may pay for them
    scales("chain", kind, lambda s: with_times(chain(300 * s, name_len)), [
        f"SELECT count(*), sum(self_ns), max(depth), sum(share_of_parent), sum(share_of_root) FROM {tree_view}",
        f"SELECT count(*) FROM {tree_view} WHERE depth = 0",
        f"SELECT count(t.depth) FROM {kind}s s LEFT JOIN {tree_view} t ON t.{key} = s.{key}",  # merged only if the view is no join
        f"SELECT length(path), length(stack) FROM {tree_view} WHERE depth = (SELECT max(depth) FROM {tree_view})",
    ])

    # 2. wide and shallow: every pair, every path, every distinct stack
    scales("wide", kind, lambda s: with_times(wide(3000 * s, 40, seed=s)), [
        f"SELECT count(*), sum(distance) FROM {kind}_ancestors",
        f"SELECT count(*), sum(distance) FROM {kind}_descendants",
        f"SELECT sum(length(path)), sum(length(stack)), sum(self_ns) FROM {tree_view}",
        f"SELECT count(*), sum(self_ns), sum(length(line)) FROM {folded}",
    ])

    # 3. k ticks of one d-deep call chain, k = d: folded work follows its output, not k * d^2
    side = {1: 25, 4: 50}                       # k = d: 4x the slices at 4n
    scales("ticks", kind, lambda s: with_times(ticks(side[s], side[s], 500)), [
        f"SELECT count(*), sum(self_ns), sum(length(line)) FROM {folded}",
    ])

    # values, against Python: a small chain, a wide tree, ticks
    for tag, tree in (("chain", with_times(chain(40, 30))), ("wide", with_times(wide(400, 12, seed=7))),
                      ("ticks", with_times(ticks(6, 9, 10)))):
        open_capture(tree, kind, f"values_{tag}_{kind}")
        rows, lines = expected(tree, unit)
        got = db.run(f"SELECT {key}, depth, path, stack, self_ns FROM {tree_view} ORDER BY {key}")[0]
        check(got == [(i + base,) + r for i, r in enumerate(rows)], f"{tag} {kind}: {tree_view} rows", got[:3])
        got = db.run(f"SELECT stack, self_ns, line FROM {folded} ORDER BY stack")[0]
        check(got == [(s, v, f"{s} {v}") for s, v in lines], f"{tag} {kind}: {folded}", got[:3])
        anc = sum(r[0] for r in rows)
        for view in ("ancestors", "descendants"):
            n = db.run(f"SELECT count(*) FROM {kind}_{view}")[0][0][0]
            check(n == anc, f"{tag} {kind}: {kind}_{view} has {anc} pairs", n)
        if tag == "chain":
            deep = db.run(f"SELECT path, stack FROM {tree_view} WHERE depth = 39")[0]
            names = [name for _, name, _ in tree]
            check(deep == [(" > ".join(names), ";".join(names))], f"chain {kind}: path of the deepest row", deep)

# ---------------------------------------------------------------- record_tree is a plain scan (issue 18)
# record_tree reads the walk from profile_records' root_id / parent_time_ns / root_time_ns /
# children_time_ns (computed in C) instead of walking the tree in SQL. Its rows must be the old
# recursive CTE's, column for column: REF_RECORD_TREE below is that view as it was, run over
# the same `records`, and a report with every kind of broken tree is also checked against
# Python's own reading of the text.

REF_RECORD_TREE = """
DROP VIEW IF EXISTS temp.ref_record_tree;
CREATE TEMP VIEW ref_record_tree AS
WITH RECURSIVE
  node(k, file, id, parent_id, name, t, in_tree) AS MATERIALIZED (
    SELECT row_number() OVER (), coalesce(file, ''), record_id, parent_record_id, name, time_ns,
           depth IS NOT NULL FROM records),
  child(file, parent_id, total) AS MATERIALIZED (
    SELECT file, parent_id, sum(t) FROM node WHERE parent_id IS NOT NULL AND in_tree GROUP BY file, parent_id),
  walk(file, record_id, parent_record_id, root_id, depth, name, t, parent_t, root_t) AS (
    SELECT n.file, n.id, n.parent_id, n.id, 0, n.name, n.t, NULL, n.t
      FROM node n
     WHERE n.in_tree AND (n.parent_id IS NULL
        OR NOT EXISTS (SELECT 1 FROM node p WHERE p.id = n.parent_id AND p.file = n.file))
    UNION ALL
    SELECT c.file, c.id, c.parent_id, w.root_id, w.depth + 1, c.name, c.t, w.t, w.root_t
      FROM walk w JOIN node c ON c.parent_id = w.record_id AND c.file = w.file
     WHERE c.in_tree AND w.depth < 100000
  )
SELECT nullif(w.file, '') AS file, w.record_id, w.parent_record_id, w.root_id, w.depth, w.name,
       CASE WHEN w.depth = 0 THEN w.name ELSE (
         WITH RECURSIVE up(d, pid, name) AS (
           SELECT w.depth, w.parent_record_id, w.name
           UNION ALL
           SELECT u.d - 1, p.parent_id, p.name
             FROM up u JOIN node p ON p.id = u.pid AND p.file = w.file
            WHERE u.d > 0 AND p.k = (SELECT min(q.k) FROM node q WHERE q.id = u.pid AND q.file = w.file))
         SELECT CASE WHEN max(name IS NULL) THEN NULL ELSE group_concat(name, ' > ') END
           FROM (SELECT d, name FROM up ORDER BY d)) END AS path,
       w.t AS inclusive_ns,
       w.t - coalesce((SELECT k.total FROM child k WHERE k.parent_id = w.record_id AND k.file = w.file), 0)
         AS self_ns,
       CASE WHEN w.parent_t > 0 THEN 1.0 * w.t / w.parent_t END AS share_of_parent,
       CASE WHEN w.root_t > 0 THEN 1.0 * w.t / w.root_t END AS share_of_root
  FROM walk w"""
COLS = "file, record_id, parent_record_id, root_id, depth, name, inclusive_ns, self_ns, share_of_parent, share_of_root"


def same_as_ref(source, what, with_path=True, rows=False):
    """profile_open(source); record_tree's rows = the old recursive CTE's, compared in SQL (as
    sets: the old walk gave them breadth-first, the scan gives them in record order, and
    (file, record_id) is unique in both). Returns the rows when asked for."""
    db.run("SELECT profile_open(?)", source)
    for stmt in REF_RECORD_TREE.split(";")[:2]:
        db.run(stmt)
    cols = COLS + (", path" if with_path else "")
    n, n_ref = (db.run(f"SELECT count(*) FROM {v}")[0][0][0] for v in ("record_tree", "ref_record_tree"))
    extra = db.run(f"SELECT {cols} FROM record_tree EXCEPT SELECT {cols} FROM ref_record_tree LIMIT 3")[0]
    missing = db.run(f"SELECT {cols} FROM ref_record_tree EXCEPT SELECT {cols} FROM record_tree LIMIT 3")[0]
    check(n == n_ref and not extra and not missing, f"{what}: record_tree = the recursive CTE's rows ({n_ref})",
          (n, n_ref, extra, "ref:", missing))
    return db.run(f"SELECT {cols} FROM record_tree")[0] if rows else n


def broken_report(n, seed, spread=1):
    """A tree report of n records (parents before or after their children, shuffled) with every
    flaw the parser tolerates: a RecordId used again (twice a parent), ParentRecordIds naming no
    record, a cycle of three with records below it, a record that is its own parent, and a
    repeated id whose first record is in the cycle. spread > 1 multiplies every id (sparse ids:
    the parser's and the walk's hash instead of their direct table). Returns (text, rows) with
    rows as (record_id, parent_id or None, name, time) in file order."""
    rnd = random.Random(seed)
    rows = []
    for i in range(n):
        p = rnd.randrange(i) if i and rnd.random() < 0.97 else None
        rows.append([i + 1, None if p is None else p + 1, f"t{rnd.randrange(12)}", rnd.randrange(10**6)])
    rows[5][0] = rows[3][0]                       # RecordId 4 twice: the second left out
    rows[7][1], rows[8][1] = 4, 4                 # ... children of id 4 go to the first
    rows[10][1], rows[11][1] = 10**9, 10**9 + 1   # parents that do not exist: roots
    base = n + 1
    rows += [[base, base + 2, "cyc", 5], [base + 1, base, "cyc", 6], [base + 2, base + 1, "cyc", 7],
             [base + 3, base + 1, "below_cycle", 8], [base + 4, base + 4, "self", 9],
             [base, 1, "dup_of_cycle", 10], [base + 5, base, "under_dup", 11]]
    order = list(range(len(rows)))
    rnd.shuffle(order)
    rows = [[rows[i][0] * spread, None if rows[i][1] is None else rows[i][1] * spread] + rows[i][2:] for i in order]
    out = ["Minecraft ThreadId: 1"]
    for rid, p, name, t in rows:
        out.append(f"    {name} Time: {t} Count: 1 Violations: 0 RecordId: {rid} "
                   f"ParentRecordId: {'none' if p is None else p} TimerId: 1")
    out += ["# Version v1.20.0", "# PocketMine-MP 5.0.0", "# FormatVersion 3", "Sample time 1000000 (0.001s)", ""]
    return "\n".join(out), [tuple(r) for r in rows]


def python_tree(rows):
    """Python's own record_tree of rows: {record_id: (parent_id, root_id, depth, name, path,
    time, self, share_of_parent, share_of_root)} for the records in the tree."""
    first = {}
    for i, (rid, _, _, _) in enumerate(rows):
        first.setdefault(rid, i)
    parent = [first.get(p) if p is not None else None for _, p, _, _ in rows]
    chain = {}                                    # row -> list of rows from the root, or None

    def up(i):
        seen, path = set(), []
        while i is not None and i not in chain:
            if i in seen or first[rows[i][0]] != i:
                break                             # a cycle, or a repeated id: out of the tree
            seen.add(i)
            path.append(i)
            i = parent[i]
        else:
            base = [] if i is None else chain[i]
            for k in reversed(path):
                base = None if base is None else base + [k]
                chain[k] = base
            return
        for k in path:
            chain[k] = None
    for i in range(len(rows)):
        up(i)
    kids = {}
    for i, c in chain.items():
        if c is not None and parent[i] is not None:
            kids.setdefault(parent[i], []).append(i)
    out = {}
    for i, c in chain.items():
        if c is None:
            continue
        rid, pid, name, t = rows[i]
        tp, tr = (rows[parent[i]][3] if parent[i] is not None else None), rows[c[0]][3]
        out[rid] = (pid, rows[c[0]][0], len(c) - 1, name, " > ".join(rows[k][2] for k in c), t,
                    t - sum(rows[k][3] for k in kids.get(i, [])),
                    t / tp if tp else None, t / tr if tr else None)
    return out


for n, spread in ((10000, 1), (2000, 10**9 + 7)):
    text, rows = broken_report(n, seed=18, spread=spread)
    what = f"broken {n // 1000}k report" + (", sparse ids" if spread > 1 else "")
    path = os.path.join(tmp, f"broken_{spread}.txt")
    with open(path, "w") as f:
        f.write(text)
    got = same_as_ref(path, what, rows=True)
    want = python_tree(rows)
    mine = {r[1]: (r[2], r[3], r[4], r[5], r[10], r[6], r[7], r[8], r[9]) for r in got}
    check(len(mine) == len(got) == len(want), f"{what}: one row per record in the tree", (len(got), len(want)))
    bad = [(k, mine.get(k), v) for k, v in want.items()
           if mine.get(k) is None or mine[k][:7] != v[:7]
           or any((a is None) != (b is None) or (a is not None and abs(a - b) > 1e-12) for a, b in zip(mine[k][7:], v[7:]))]
    check(not bad, f"{what}: every row as Python reads the text", bad[:3])
    check({"cyc", "below_cycle", "self", "under_dup"}.isdisjoint(r[5] for r in got),
          f"{what}: cycle, self-parent and what hangs below them left out")
    diags = db.run("SELECT key, count(*) FROM profile_metadata(?) WHERE scope = 'diagnostic' GROUP BY key", path)[0]
    check(len(diags) >= 3, f"{what}: duplicate, missing parent and cycle diagnostics", diags)

# the same ids in two files of one directory: the trees stay apart (file, root_id per file)
multi = os.path.join(tmp, "multi_reports")
os.makedirs(multi, exist_ok=True)
for k in (1, 2):
    with open(os.path.join(multi, f"r{k}.txt"), "w") as f:
        f.write(broken_report(300, seed=k)[0])
got = same_as_ref(multi, "two reports in a directory", rows=True)
check(len({r[0] for r in got}) == 2, "two reports: rows of both files", {r[0] for r in got})

# the walk stops at depth 100000, as the recursive CTE did
deep = os.path.join(tmp, "deep.txt")
with open(deep, "w") as f:
    f.write(timings_txt([(i - 1 if i else None, "d", 1) for i in range(100003)]))
n = same_as_ref(deep, "a chain 100003 deep", with_path=False)
got = db.run("SELECT count(*), max(depth) FROM record_tree")[0]
check(n == 100001 and got == [(100001, 100000)], "chain: depth 0 .. 100000 only", got)

# the repository's captures with records: timings edge cases, call stacks (frame ids, tries,
# NULL times), the xprof statistics (flat lists)
data = [os.path.join("tests/data", f) for f in ("timings_edge.txt", "timings_edge_crlf.txt", "timings_list.txt")]
data += sorted(os.path.join("tests/data/stacks", f) for f in os.listdir("tests/data/stacks")
               if not f.endswith((".txtpb", ".proto", ".md")))
data += [os.path.join("tests/data/xprof", f) for f in ("tf_stats.pb", "kernel_stats.pb", "datatable_edge.json")]
for src in data:
    try:
        n_rec = db.run("SELECT count(*) FROM profile_records(?)", src)[0][0][0]
    except RuntimeError:          # read only with its format named (pprof_edge.pb)
        continue
    if n_rec:
        same_as_ref(src, src)

shutil.rmtree(tmp, ignore_errors=True)
done()
