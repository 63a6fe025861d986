"""profile_sandwich(source, function [, options]): the callers and callees of one function, checked
by hand on a folded file with recursion (every value below is worked out in the comments) and on a
trace whose slice recurses; the depth limit, the options' errors and an unknown function."""
import json
import os
import tempfile

from testlib import check, connect, done, error

db = connect()
tmp = tempfile.mkdtemp(prefix="profsql-sandwich-")


def sandwich(src, fn, opts=None):
    q = "SELECT direction, depth, path, self_ns, total_ns, count FROM profile_sandwich(?, ?" + (", ?" if opts else "") + ")"
    return [tuple(r) for r in db.execute(q, (src, fn) + ((json.dumps(opts),) if opts else ()))]


folded = os.path.join(tmp, "rec.folded")
open(folded, "w").write("main;a;b;a;c 4\nmain;a;d 2\nmain;x;a 3\nmain;b 1\n")
# 'a' occurs outermost under main (the first two stacks: 6 samples) and under main;x (3 samples);
# the a inside a;b;a is part of the first. Samples carry no time: ns are sample counts.
#   callers: a (self 3: the samples whose leaf is a, all of them under x; total 9, 9 samples),
#            a;main (the 6), a;x (the 3, all self), a;x;main
#   callees: a (self 3, total 9), a;b (4), a;d (2, all self), a;b;a (4), a;b;a;c (4, all self)
want = [("caller", 0, "a", 3, 9, 9), ("caller", 1, "a;main", 0, 6, 6), ("caller", 1, "a;x", 3, 3, 3),
        ("caller", 2, "a;x;main", 3, 3, 3),
        ("callee", 0, "a", 3, 9, 9), ("callee", 1, "a;b", 0, 4, 4), ("callee", 1, "a;d", 2, 2, 2),
        ("callee", 2, "a;b;a", 0, 4, 4), ("callee", 3, "a;b;a;c", 4, 4, 4)]
got = sandwich(folded, "a")
check(got == want, "folded: the callers and callees of a recursive function, by hand", got)
got = sandwich(folded, "a", {"max_depth": 1})
check(got == [w for w in want if w[1] <= 1], "max_depth 1: the function and its direct callers and callees", got)
# b is called by a (inside a's recursion) and by main: two outermost occurrences
got = {(r[0], r[2]): r[3:] for r in sandwich(folded, "b")}
check(got[("caller", "b")] == (1, 5, 5) and got[("caller", "b;a")] == (0, 4, 4) and got[("caller", "b;main")] == (1, 1, 1)
      and got[("caller", "b;a;main")] == (0, 4, 4), "folded: b's callers (under a 4 samples, under main 1)", got)

trace = os.path.join(tmp, "rec.json")
json.dump({"traceEvents": [{"ph": "X", "name": n, "ts": ts, "dur": d, "pid": 1, "tid": 1}
                           for n, ts, d in (("a", 0, 100), ("a", 10, 50), ("b", 20, 10))]}, open(trace, "w"))
# a(100 us) holds a(50) which holds b(10): a's self is 50 + 40 us; one outermost call
got = sandwich(trace, "a")
check(got == [("caller", 0, "a", 90000, 100000, 1), ("callee", 0, "a", 90000, 100000, 1),
              ("callee", 1, "a;a", 40000, 50000, 1), ("callee", 2, "a;a;b", 10000, 10000, 1)],
      "trace: a recursive slice, by hand", got)

# the examples: the callees of handleRequest add up to its time less its self time
rows = sandwich("examples/diff/after.cpuprofile", "handleRequest", {"max_depth": 1})
root = [r for r in rows if r[0] == "callee" and r[1] == 0][0]
kids = [r for r in rows if r[0] == "callee" and r[1] == 1]
check(root[4] - root[3] == sum(r[4] for r in kids) and any(r[2] == "handleRequest;validate" for r in kids),
      "cpuprofile: the direct callees' totals add up to the function's total less its self time", (root, kids))

e = error(db, "SELECT * FROM profile_sandwich(?, ?)", (folded, "nosuch"))
check(e and "nosuch" in e and "no frame, slice or record" in e, "error: a function the source does not have", e)
e = error(db, "SELECT * FROM profile_sandwich(?, ?, ?)", (folded, "a", '{"depth": 1}'))
check(e and "unknown option" in e, "error: an unknown option", e)
e = error(db, "SELECT * FROM profile_sandwich(?, ?, ?)", (folded, "a", '{"max_depth": -1}'))
check(e and "max_depth" in e, "error: a negative max_depth", e)
e = error(db, "SELECT * FROM profile_sandwich(?)", (folded,))
check(e is not None, "error: no function", e)
# a frame named only in a parent cycle (never reached from a root) is no occurrence: an error, for
# the table and for the flame graph's sandwich (which once read before its frames' array)
cyc = os.path.join(tmp, "cycle.json")
json.dump({"traceEvents": [{"ph": "X", "name": "a", "ts": 0, "dur": 10, "pid": 1, "tid": 1, "sf": "3"},
                           {"ph": "P", "name": "s", "ts": 1, "pid": 1, "tid": 1, "sf": "1"}],
           "stackFrames": {"1": {"name": "evil", "parent": "2"}, "2": {"name": "x", "parent": "1"}, "3": {"name": "ok"}}},
          open(cyc, "w"))
e = error(db, "SELECT * FROM profile_sandwich(?, 'evil')", (cyc,))
check(e and "no frame, slice or record" in e, "a name only in a parent cycle: no occurrence", e)
e = error(db, "SELECT profile_flamegraph(?, ?, '{\"sandwich\": \"evil\"}')", (cyc, os.path.join(tmp, "cyc.svg")))
check(e and "no frame, slice or record is named 'evil'" in e, "flame graph sandwich: a name only in a parent cycle", e)
# 60,000 unclosed B slices (rows of no kind: no duration), then 60,000 slices f: each f's callers
# skip the B rows in one step (ps_forest_occurrences' aUp), where a climb per f once took n^2
deep = os.path.join(tmp, "deep.json")
json.dump({"traceEvents": [{"ph": "B", "name": "u%d" % i, "ts": i, "pid": 1, "tid": 1} for i in range(60000)]
           + [{"ph": "X", "name": "f", "ts": 60000 + 2 * i, "dur": 1, "pid": 1, "tid": 1} for i in range(60000)]},
          open(deep, "w"))
got = db.execute("SELECT direction, depth, count, total_ns FROM profile_sandwich(?, 'f') ORDER BY direction", (deep,)).fetchall()
check(got == [("callee", 0, 60000, 60000000), ("caller", 0, 60000, 60000000)], "callers past 60,000 rows of no kind", got)
done()
