"""The folded views (event_folded, record_folded of sql/event_tree.sql and sql/record_tree.sql,
stack_folded of sql/stacks.sql) cost the capture plus their output (issue 32).

They used to build the full stack text of every distinct stack, zero-self ones included, each from
its parent's: a chain d deep cost O(d^2 x name length) even under LIMIT 1, spilled to SQLite's
temporary files (an 8,000-deep .cpuprofile chain with 60-byte names: 3.8 GB of temp files). Now
the walks carry integer keys and the text is built only for the rows a folded file holds: the
stacks with self time (stack_folded: the call-tree nodes with samples).

Inputs are generated here, in a temporary directory: a "comb", a chain d deep whose nodes have no
self time except the leaf's, with four side leaves hanging off it (two siblings of one name, which
fold into one line; one with no self time, which has no line) and one chain node with self time
of its own. Its folded output is 4 lines of at most d names (stack_folded: 5 rows): linear in
the capture. Written as
  - a Chrome trace of nested 'X' events (a parent's interval is its children's, end to end:
    nested by file order), read by event_folded;
  - a V8 .cpuprofile (the self time from its samples, 1 ms each), read by record_folded and
    stack_folded (one row per node with samples: the two siblings stay two rows);
  - a PocketMine-MP tree report (RecordId / ParentRecordId), read by record_folded.
Checks, never by time:
  1. values: every view's rows equal Python's folding of the generated tree, at d = 100,000;
  2. space: with PRAGMA temp_store = MEMORY SQLite's temporary tables live in its heap, so the
     heap's high-water mark over the query (sqlite3_status64 SQLITE_STATUS_MEMORY_USED) is the
     temp space a file-backed temp store would have written; at d = 100,000 it stays under
     2 KiB per node and the bytes allocated (an allocator installed with
     sqlite3_config(SQLITE_CONFIG_MALLOC) counts them) under 32 KiB per node (the old
     stack_folded, which kept no big table, copied 425 GB of strings); PRAGMA hard_heap_limit
     (1 GiB above the loaded capture) stops a quadratic view with "out of memory" instead of
     letting it fill the machine;
  3. growth: at d and 2d (3,000 and 6,000, names of 60 bytes) the VM steps, the bytes allocated
     and the high-water mark grow at most 2.5x (the old views: ~4x the bytes and the space, and
     at 6,000 deep "out of memory");
  4. a hand-made `events` table whose ids repeat, with a parent cycle through the repeated id:
     a slice links to the first slice of its parent's id (as event_tree's path and stack do), so
     the walk ends, and every slice's self time is counted once.
The C API is reached through ctypes (the sqlite3 module exposes neither counter), on the
libsqlite3 Python's sqlite3 module uses; the allocator must be in place before SQLite
initializes, so before anything imports sqlite3 (testlib does). Run from the repository root.
Prints testlib's RESULT line last (tests/run.sh reads it)."""
import ctypes
import json
import os
import shutil
import tempfile

# ---------------------------------------------------------------- counters (before testlib)

from sqlite_counters import LIB, SQLITE_STATUS_MEMORY_USED, Db as CDb, config_rc  # noqa: E402  (before testlib: sqlite3_config)

from testlib import check, done   # noqa: E402  (imports sqlite3: after sqlite3_config)
from treelib import inclusive, timings_txt   # noqa: E402

HEAP_BUDGET = 1 << 30                 # hard_heap_limit above what the loaded capture holds


def memory_used():
    cur, hi = ctypes.c_int64(), ctypes.c_int64()
    LIB.sqlite3_status64(SQLITE_STATUS_MEMORY_USED, ctypes.byref(cur), ctypes.byref(hi), 0)
    return cur.value


class Db(CDb):
    """A connection through the C API, with ./libprofsql loaded and temp_store = MEMORY."""

    def __init__(self):
        super().__init__()
        self.exec("PRAGMA temp_store = MEMORY")   # before any TEMP view: setting it drops them

    def open(self, path):
        """profile_open(path), the capture loaded (read once through every table the folded views
        read), then a heap limit HEAP_BUDGET above what is held."""
        self.exec("PRAGMA hard_heap_limit = 0")
        self.exec(f"SELECT profile_open('{path}')")
        self.exec("SELECT count(*) FROM events; SELECT count(*) FROM records")
        self.exec(f"PRAGMA hard_heap_limit = {memory_used() + HEAP_BUDGET}")


# ---------------------------------------------------------------- the comb and its files
# A tree is a list of (parent index or None, name, self µs) in pre-order (a parent before its
# children, a subtree contiguous): the index is the slice's id in profile_events (file order),
# the node's id - 1 in the .cpuprofile and its RecordId - 1.

def long_name(i, n):
    s = f"f{i}_"
    return (s * (n // len(s) + 1))[:n]


def comb(d, name_len):
    """A chain d deep, self time only at the leaf (7 µs) and at one node a third of the way down
    (3 µs), with side leaves at a quarter, a half (two siblings named 'io', 5 and 6 µs) and three
    quarters (none of its own: no line) of the depth."""
    side = {d // 4: [("side_a", 4)], d // 2: [("io", 5), ("io", 6)], 3 * d // 4: [("side_zero", 0)]}
    tree = [(level - 1 if level else None, long_name(level, name_len),
             7 if level == d - 1 else 3 if level == d // 3 else 0) for level in range(d)]
    # pre-order: the subtree of chain node L is the chain below it, then the side leaves of the
    # levels below L (deepest first), then L's own
    for level in sorted(side, reverse=True):
        tree += [(level, name, s) for name, s in side[level]]
    return tree


def python_stack(tree, i):
    """The names from the root to tree[i], joined with ';' (walked up: a list per node would be
    quadratic here too)."""
    names = []
    while i is not None:
        names.append(tree[i][1])
        i = tree[i][0]
    return ";".join(reversed(names))


def python_folded(tree, unit):
    """Python's folding: {stack: self} over the nodes with self time."""
    folded = {}
    for i, (_, _, s) in enumerate(tree):
        if s:
            stack = python_stack(tree, i)
            folded[stack] = folded.get(stack, 0) + s * unit
    return folded


def python_nodes(tree):
    """Python's stack_folded: sorted (stack, samples, self ns) of the nodes with samples (1 ms each)."""
    return sorted((python_stack(tree, i), s, s * 1000000) for i, (_, _, s) in enumerate(tree) if s)


def chrome_json(tree):
    """'X' events in pre-order; a node's children end to end from its start, its self time after
    them (equal intervals nest in file order)."""
    dur, ts, nxt = inclusive(tree), [0] * len(tree), [0] * len(tree)
    for i, (p, _, _) in enumerate(tree):
        ts[i] = 0 if p is None else nxt[p]
        if p is not None:
            nxt[p] += dur[i]
        nxt[i] = ts[i]
    return json.dumps({"traceEvents": [{"ph": "X", "name": name, "ts": ts[i], "dur": dur[i], "pid": 1, "tid": 1}
                                       for i, (_, name, _) in enumerate(tree)]})


def cpuprofile(tree):
    """A V8 .cpuprofile: node i + 1 for tree[i]; a node with self s has s samples, 1000 µs apart."""
    kids = [[] for _ in tree]
    for i, (p, _, _) in enumerate(tree):
        if p is not None:
            kids[p].append(i + 1)
    nodes = [{"id": i + 1, "callFrame": {"functionName": name, "scriptId": "1", "url": "file:///app.js",
                                         "lineNumber": i, "columnNumber": 0},
              "hitCount": s, "children": kids[i]} for i, (_, name, s) in enumerate(tree)]
    samples = [i + 1 for i, (_, _, s) in enumerate(tree) for _ in range(s)]
    return json.dumps({"nodes": nodes, "startTime": 0, "endTime": 1000 * (len(samples) + 1),
                       "samples": samples, "timeDeltas": [1000] * len(samples)})


def summary(rows):
    """Rows with each stack as (its depth, its last name): a failure prints no 100,000-name line."""
    return [(None if r[0] is None else (r[0].count(";"), r[0].rsplit(";", 1)[-1]),) + r[1:2] for r in rows]


# (format, writer, file suffix, [(view, query, expected rows from the tree)])
FOLDED_Q = "SELECT stack, self_ns, line FROM {v} ORDER BY stack"
NODES_Q = "SELECT stack, samples, self_ns FROM stack_folded ORDER BY stack, samples"


def folded_rows(tree, unit):
    return [(s, v, f"{s} {v}") for s, v in sorted(python_folded(tree, unit).items())]


FORMATS = {
    "chrome": (chrome_json, ".json", [("event_folded", FOLDED_Q.format(v="event_folded"),
                                       lambda t: folded_rows(t, 1000))]),
    "cpuprofile": (cpuprofile, ".cpuprofile", [("record_folded", FOLDED_Q.format(v="record_folded"),
                                                lambda t: folded_rows(t, 1000000)),
                                               ("stack_folded", NODES_Q, python_nodes)]),
    "timings": (timings_txt, ".txt", [("record_folded", FOLDED_Q.format(v="record_folded"),
                                       lambda t: folded_rows(t, 1))]),
}

# without the counting allocator there is nothing to measure: stop, not a check that passes
assert config_rc == 0, f"sqlite3_config(SQLITE_CONFIG_MALLOC) before SQLite initialized: {config_rc}"
tmp = tempfile.mkdtemp(prefix="folded_scale_")
db = Db()


def write(tree, fmt, tag):
    writer, suffix, _ = FORMATS[fmt]
    path = os.path.join(tmp, tag + suffix)
    with open(path, "w") as f:
        f.write(writer(tree))
    return path


def report(ok, line, detail):
    """One check: its figures on an "ok" line when it holds, with the rows that differ when not."""
    if ok:
        print("ok  ", line)
    check(ok, line, detail)


# ---------------------------------------------------------------- 1, 2: values and space at 100,000 deep
# one check per view: the rows are Python's, and the space and the bytes stay within the bounds

DEEP, DEEP_NAME = 100000, 16
PEAK_PER_NODE, ALLOC_PER_NODE = 2048, 32768     # measured: about 1 KiB and 7-16 KiB a node
deep = comb(DEEP, DEEP_NAME)
for fmt in ("chrome", "cpuprofile"):
    db.open(write(deep, fmt, f"deep_{fmt}"))
    for view, query, want in FORMATS[fmt][2]:
        rows, steps, used, peak, err = db.run(query)
        exp = want(deep)
        ok = (err is None and rows == exp and peak <= PEAK_PER_NODE * len(deep)
              and used <= ALLOC_PER_NODE * len(deep))
        report(ok, f"{fmt} chain {DEEP} deep: {view}: {len(exp)} rows = Python's folding, heap high-water "
               f"{peak} bytes over the query (bound {PEAK_PER_NODE * len(deep)}), bytes allocated {used} "
               f"(bound {ALLOC_PER_NODE * len(deep)}), VM steps {steps}",
               (err, summary(rows), "want", summary(exp)))
    # LIMIT 1 does not make it cheaper (the GROUP BY reads every row), but it must not cost more
    if fmt == "chrome":
        rows, _, _, peak, err = db.run("SELECT line FROM event_folded LIMIT 1")
        check(err is None and len(rows) == 1 and peak <= PEAK_PER_NODE * len(deep),
              f"chrome chain {DEEP} deep: event_folded LIMIT 1 within the same space", (err, peak))

# ---------------------------------------------------------------- 3: work at d and 2d
# one check per view: the rows at both depths are Python's, and the work grows at most GROW times

GROW = 2.5
for fmt in ("chrome", "cpuprofile", "timings"):
    got = {}
    for d in (3000, 6000):
        tree = comb(d, 60)
        db.open(write(tree, fmt, f"grow_{fmt}_{d}"))
        for view, query, want in FORMATS[fmt][2]:
            rows, steps, used, peak, err = db.run(query)
            exp = want(tree)
            got[view, d] = (max(steps, 1), max(used, 1), max(peak, 1),
                            None if err is None and rows == exp else (d, err, summary(rows), "want", summary(exp)))
    for view, _, _ in FORMATS[fmt][2]:
        (s1, b1, p1, e1), (s2, b2, p2, e2) = got[view, 3000], got[view, 6000]
        ok = e1 is None and e2 is None and s2 <= GROW * s1 and b2 <= GROW * b1 and p2 <= GROW * p1
        report(ok, f"{fmt} {view}, chain 3000 -> 6000 deep: rows = Python's folding, VM steps {s1} -> {s2} "
               f"({s2 / s1:.2f}x), bytes allocated {b1} -> {b2} ({b2 / b1:.2f}x), heap high-water {p1} -> {p2} "
               f"({p2 / p1:.2f}x)", e1 or e2)

# ---------------------------------------------------------------- 4: ids that repeat (hand-made table)
# A (id 1, root, 10 ns) > B (id 2, 6 ns) > C (id 1 again, parent 2, 3 ns) > D (id 3, parent 1,
# 2 ns), and E (id 4, parent 1, 1 ns). Parent id 1 means A, the first slice with id 1: B, D and E
# hang under A, C under B. The old walk took every slice with id 1 as a parent, so B (and D, E)
# hung under C too, and A > B > C > B > C ... went round to depth 100,000. By hand: A's self
# 10 - 6 - 2 - 1 = 1, B's 6 - 3 = 3, C's 3, D's 2, E's 1.
with open("sql/event_tree.sql") as f:
    event_tree_sql = f.read()
db.exec("PRAGMA hard_heap_limit = 0")
db.exec("DROP VIEW IF EXISTS temp.events; CREATE TEMP TABLE events(file, id, parent_id, name, dur);"
        "INSERT INTO events VALUES (NULL, 1, NULL, 'A', 10), (NULL, 2, 1, 'B', 6), (NULL, 1, 2, 'C', 3),"
        " (NULL, 3, 1, 'D', 2), (NULL, 4, 1, 'E', 1)")
db.exec(event_tree_sql)
db.exec(f"PRAGMA hard_heap_limit = {memory_used() + HEAP_BUDGET}")
rows, steps, _, _, err = db.run("SELECT line FROM event_folded ORDER BY stack")
want = [("A 1",), ("A;B 3",), ("A;B;C 3",), ("A;D 2",), ("A;E 1",)]
check(err is None and rows == want, "repeated ids: each slice under the first slice of its parent's id, once",
      (err, rows[:6], steps))
check(err is None and steps < 100000, "repeated ids: the walk ends at once (VM steps)", (err, steps))

shutil.rmtree(tmp, ignore_errors=True)
done()
