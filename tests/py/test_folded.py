"""Collapsed / folded stacks (format 'folded', ext/formats/folded.c), checked against an independent reading
of the same bytes with flamegraph.pl's own line rule (/^(.*)\\s+?(\\d+(?:\\.\\d*)?)$/, the last
count sizing a two-count line) in a few lines of Python:

  1. per function (name): self and total weight (total once per line under recursion, as flame
     graphs count), computed in SQL from profile_records with a recursive walk of each leaf's
     ancestors, for the corpus files ../shared/corpus/stacks/speedscope-collapsed-*.txt and the
     hand-made tests/data/stacks/folded_*.txt; the trie (one record per distinct path, count per
     path, repeated stacks summed, a prefix keeping its own self count);
  2. every event row: name (leaf), stack_id (the leaf's path), ts / dur / cat NULL, byte_offset,
     args {"count"} as written; the edge file's diagnostics (a line without a count, a count
     beyond int64, a fractional count rounded);
  3. detection: the corpus's collapsed files, no other corpus file claimed, crafted near-misses
     (perf script, ftrace, timings, lms CSV, Chrome JSON, '#' lines);
  4. every prefix of a small file loads or fails with a message (forced and detected), an empty
     input, a file of 20000 generated lines against the Python reading.
Corpus parts skip (with a SKIP line) when ../shared is absent."""
import decimal
import json
import os
import random
import re
import sqlite3
import tempfile

import testlib
from testlib import check, connect, done, skip_part

DATA = os.path.join("tests", "data", "stacks")
CORPUS = os.path.join("..", "shared", "corpus")
STACKS = os.path.join(CORPUS, "stacks")
FMT = "folded"
INT64_MAX = 2**63 - 1

db = connect()


def rows(sql, args=()):
    return testlib.rows(db, sql, args)


# ---------------------------------------------------------------------------------------------
# The reference reader (flamegraph.pl's rule; blanks after the count, CRLF and a trailing ';'
# tolerated as the format page says)

LINE = re.compile(r"^(.*)\s+?(\d+(?:\.\d*)?)$", re.S)


def read_folded(raw):
    """[(stack list root first, weight, args dict, byte offset)] of the lines that read."""
    out, off = [], 0
    for bl in raw.split(b"\n"):
        start = off
        off += len(bl) + 1
        line = bl.decode("utf-8")
        if line.endswith("\r"):
            line = line[:-1]
        line = line.rstrip(" \t")
        if line.strip(" \t") == "":
            continue
        m = LINE.match(line)
        if not m:
            continue
        stack, c2 = m.group(1), m.group(2)
        c1 = None
        m2 = LINE.match(stack)
        if m2:
            stack, c1 = m2.group(1), m2.group(2)
        counts = [c for c in (c1, c2) if c is not None]
        if any(int(decimal.Decimal(c)) > INT64_MAX for c in counts):
            continue
        w = int(decimal.Decimal(c2).quantize(decimal.Decimal(1), rounding=decimal.ROUND_HALF_UP))
        stack = stack.rstrip(" \t").rstrip(";")
        frames = stack.split(";") if stack else []
        args = {"count": decimal.Decimal(c2)}
        if c1 is not None:
            args = {"count": decimal.Decimal(c2), "count1": decimal.Decimal(c1), "count2": decimal.Decimal(c2)}
        out.append((frames, w, args, start))
    return out


def expected_per_function(lines):
    out = {}
    for frames, w, _, _ in lines:
        if not frames:
            continue
        out.setdefault(frames[-1], [0, 0])
        out[frames[-1]][0] += w
        for name in set(frames):
            out.setdefault(name, [0, 0])
            out[name][1] += w
    return {k: v for k, v in out.items() if v != [0, 0]}


def sql_per_function(src, fmt=None):
    db.execute("DROP TABLE IF EXISTS temp.rec")
    db.execute("CREATE TEMP TABLE rec AS SELECT record_id, parent_record_id, name, count FROM profile_records(?, ?)", (src, fmt))
    got = {}
    for name, c in db.execute("SELECT name, sum(count) FROM rec GROUP BY name"):
        got[name] = [c, 0]
    for name, c in db.execute(
            "WITH RECURSIVE anc(leaf, id, name) AS ("
            "  SELECT record_id, record_id, name FROM rec WHERE count > 0"
            "  UNION ALL"
            "  SELECT anc.leaf, p.record_id, p.name FROM anc JOIN rec c ON c.record_id = anc.id"
            "    JOIN rec p ON p.record_id = c.parent_record_id)"
            "SELECT d.name, sum(l.count) FROM (SELECT DISTINCT leaf, name FROM anc) d "
            "JOIN rec l ON l.record_id = d.leaf GROUP BY d.name"):
        got.setdefault(name, [0, 0])
        got[name][1] = c
    return {k: v for k, v in got.items() if v != [0, 0]}


def sql_paths(src, fmt=None):
    rec = {r["record_id"]: r for r in rows("SELECT record_id, parent_record_id, name, count FROM profile_records(?, ?)", (src, fmt))}
    out = {}
    for r in rec.values():
        path, x = [], r
        while x is not None:
            path.append(x["name"])
            x = rec.get(x["parent_record_id"])
        out[tuple(reversed(path))] = r["count"]
    return out


def check_file(path, label, fmt=None):
    raw = open(path, "rb").read() if isinstance(path, str) else path
    lines = read_folded(raw)
    want = expected_per_function(lines)
    got = sql_per_function(path, fmt)
    check(got == want, f"{label}: per-function self and total weight",
          sorted(set(map(str, got.items())) ^ set(map(str, want.items())))[:6])
    want_paths = {}
    for frames, w, _, _ in lines:
        for k in range(1, len(frames) + 1):
            want_paths.setdefault(tuple(frames[:k]), 0)
        if frames:
            want_paths[tuple(frames)] += w
    got_paths = sql_paths(path, fmt)
    check(got_paths == want_paths, f"{label}: one record per distinct path, weight per path",
          sorted(set(map(str, got_paths.items())) ^ set(map(str, want_paths.items())))[:6])
    ev = rows("SELECT e.id, ts, dur, e.name, cat, ph, pid, tid, byte_offset, args, r.name AS leaf "
              "FROM profile_events(?, ?) e LEFT JOIN profile_records(?, ?) r ON r.record_id = e.stack_id ORDER BY e.id",
              (path, fmt, path, fmt))
    check(len(ev) == len(lines), f"{label}: one row per stack line", (len(ev), len(lines)))
    bad = []
    for e, (frames, w, args, off) in zip(ev, lines):
        leaf = frames[-1] if frames else None
        g = (e["ts"], e["dur"], e["cat"], e["ph"], e["pid"], e["tid"], e["name"], e["leaf"], e["byte_offset"],
             json.loads(e["args"], parse_float=decimal.Decimal, parse_int=decimal.Decimal))
        x = (None, None, None, "P", None, None, leaf, leaf, off, args)
        if g != x:
            bad.append((e["id"], g, x))
    check(not bad, f"{label}: every row's name, stack, offset, args; ts, dur, cat NULL", bad[:2])
    tot = db.execute("SELECT value FROM profile_metadata(?, ?) WHERE scope = 'capture' AND key = 'total_count'", (path, fmt)).fetchone()
    check(tot == (sum(w for _, w, _, _ in lines),), f"{label}: capture total_count", tot)
    return lines


# ---------------------------------------------------------------------------------------------
# 1-2. hand-made files

EDGE = os.path.join(DATA, "folded_edge.txt")
lines = check_file(EDGE, "folded_edge")
check(len(lines) == 16, "folded_edge: 16 stack lines (a line without a count and a count beyond int64 skipped)", len(lines))
d = [(r["key"], r["value"]) for r in rows("SELECT key, value FROM profile_metadata(?) WHERE scope = 'diagnostic'", (EDGE,))]
check(d == [("other", "line 6: fractional count 1.5: the weight is 2 (rounded; args has the count as written)"),
            ("unparsed_line", "line 14: expected 'frame;frame;... count' (a count after a blank at the end); the line is skipped: no count on this line"),
            ("unparsed_line", "line 15: the count is beyond int64; the line is skipped"),
            ("other_count", 1), ("unparsed_line_count", 2)], "folded_edge: diagnostics name their lines", d)
r = rows("SELECT name, count, time_ns, self_ns, category, attrs FROM profile_records(?) WHERE name = 'baz'", (EDGE,))
check(r == [{"name": "baz", "count": 7, "time_ns": None, "self_ns": None, "category": None, "attrs": None}],
      "folded_edge: non-adjacent repeats summed (3 + 4); no time, category or attrs", r)
r = rows("SELECT count FROM profile_records(?) WHERE name = 'Foo.bar(int, String)'", (EDGE,))
check(r == [{"count": 2}], "folded_edge: a stack that is a prefix of another keeps its own self count", r)
r = rows("SELECT args FROM profile_events(?) WHERE name = 'y'", (EDGE,))
check(r == [{"args": '{"count":5,"count1":3,"count2":5}'}], "folded_edge: a two-count line is sized by its last count", r)
r = [x["args"] for x in rows("SELECT args FROM profile_events(?) WHERE name IN ('qux', 'quux') ORDER BY id", (EDGE,))]
check(r == ['{"count":1.5}', '{"count":2}', '{"count":7}'], "folded_edge: counts as JSON numbers ('2.' and '007' normalised)", r)
r = rows("SELECT record_id, parent_record_id, name, line FROM profile_records(?) WHERE line = 12", (EDGE,))
check([x["name"] for x in r] == ["a", "", "b"], "folded_edge: an empty frame between ';;' is a frame named ''", r)

CRLF = os.path.join(DATA, "folded_crlf.txt")
check_file(CRLF, "folded_crlf")
r = rows("SELECT name, count FROM profile_records(?) ORDER BY record_id", (CRLF,))
check(r == [{"name": "a", "count": 0}, {"name": "b", "count": 5}, {"name": "c", "count": 5}, {"name": "d", "count": 4}],
      "folded_crlf: CRLF lines and blank lines", r)

# ---------------------------------------------------------------------------------------------
# the corpus

if not os.path.isdir(STACKS):
    skip_part(f"corpus: {STACKS} not found (../shared/corpus absent)")
else:
    simple = os.path.join(STACKS, "speedscope-collapsed-simple.txt")
    check_file(simple, "corpus simple")
    r = rows("SELECT name, count FROM profile_records(?) ORDER BY record_id", (simple,))
    check(r == [{"name": "a", "count": 0}, {"name": "b", "count": 5}, {"name": "c", "count": 5}, {"name": "d", "count": 4}],
          "corpus simple: a;b;c 5 (non-adjacent), a;b;d 4, self of b 5 (README section 8)", r)
    t = db.execute("SELECT value FROM profile_metadata(?) WHERE key = 'total_count'", (simple,)).fetchone()
    check(t == (14,), "corpus simple: total 14", t)
    rec = os.path.join(STACKS, "speedscope-collapsed-recursion.txt")
    lr = check_file(rec, "corpus recursion")
    check(len(lr) == 10 and sum(w for _, w, _, _ in lr) == 10, "corpus recursion: 10 lines of count 1", len(lr))
    alt = os.path.join(STACKS, "speedscope-collapsed-alternating.txt")
    la = check_file(alt, "corpus alternating")
    r = rows("SELECT name, count FROM profile_records(?) WHERE count > 0 ORDER BY name", (alt,))
    check(r == [{"name": "b", "count": 91}, {"name": "d", "count": 91}], "corpus alternating: a;b 91, c;d 91", r)

# ---------------------------------------------------------------------------------------------
# 3. detection


def detected(src):
    try:
        return db.execute("SELECT value FROM profile_metadata(?) WHERE scope = 'capture' AND key = 'format'",
                          (src,)).fetchone()[0]
    except sqlite3.Error as e:
        return "error: " + str(e)


for name in ["folded_edge.txt", "folded_crlf.txt"]:
    got = detected(os.path.join(DATA, name))
    check(got == FMT, f"{name}: detected", got)
for blob, want in [
        (b"a;b 1", FMT),
        (b"main;foo 12\nmain;bar 3.5\n", FMT),
        (b"single 3\nother 4\n", FMT),                                        # plausible only (score 1)
        (b"x;y 3 5\n", FMT),
        (b"# tracer: nop\n#\n  <idle>-0 [000] 1.0: a: b 1\n", None),
        (b"app 1 1.000001: cpu-clock: \n\t 4005f8 main (/bin/app)\n", "perf_script"),
        (b"0,0,1\n1,0,2\n", None),
        (b"2,0,outer\n0,0,1\n1,0,4\n", "lms"),
        (b'[{"ph":"X","ts":1,"dur":1,"name":"a;b 1","pid":1,"tid":1}]', "chrome"),
        (b"Minecraft\n    Full Server Tick Time: 100 Count: 1 Avg: 100 Violations: 0\n", None),
        (b"  a;b 1\n", None),                                                 # first line indented
        (b"# a;b 1\n", None),
        (b"a;b\x01 1\n", None),
        (b"a;b 1\nnot a stack\nnot a stack\n", None),                         # fewer than 3 in 4 good
        (b"hello world\n", None)]:
    got = detected(blob)
    ok = got == want if want else (got != FMT)
    check(ok, f"{blob[:40]!r} detected as {want or 'not folded'}", got)
if os.path.isdir(CORPUS):
    for sub in sorted(os.listdir(CORPUS)):
        dd = os.path.join(CORPUS, sub)
        if not os.path.isdir(dd):
            continue
        for f in sorted(os.listdir(dd)):
            p = os.path.join(dd, f)
            if not os.path.isfile(p):
                continue
            got = detected(p)
            if f.startswith("speedscope-collapsed"):
                check(got == FMT, f"corpus {sub}/{f}: detected as {FMT}", got)
            else:
                check(got != FMT, f"corpus {sub}/{f}: not claimed by folded", got)

# ---------------------------------------------------------------------------------------------
# 4. truncation, empty input, a generated file

data = open(EDGE, "rb").read()
bad = []
for k in range(len(data) + 1):
    for fmt in (FMT, None):
        try:
            db.execute("SELECT count(*), sum(length(args)) FROM profile_events(?, ?)", (data[:k], fmt)).fetchall()
            db.execute("SELECT count(*), sum(count) FROM profile_records(?, ?)", (data[:k], fmt)).fetchall()
        except sqlite3.Error as e:
            if not str(e).startswith(("profile_events: ", "profile_records: ")) or "BLOB" not in str(e):
                bad.append((k, fmt, str(e)))
check(not bad, f"every prefix of folded_edge.txt ({len(data) + 1}) loads or fails with a message", bad[:3])
e = testlib.error(db, "SELECT count(*) FROM profile_events(X'0a0a', 'folded')")
check(e == "profile_events: BLOB: no stack line ('frame;frame;... count') found", "blank lines only: an error", e)
e = testlib.error(db, "SELECT count(*) FROM profile_events(X'', 'folded')")
check(e is not None and "empty" in e, "an empty input is an error", e)
r = rows("SELECT count FROM profile_records(?, 'folded')", (b"a 9223372036854775807\na 1\n",))
s = db.execute("SELECT value FROM profile_metadata(?, 'folded') WHERE key IN ('other', 'total_count') ORDER BY key",
               (b"a 9223372036854775807\na 1\n",)).fetchall()
check(r == [{"count": INT64_MAX}] and sorted(x[0] for x in s[:2]) == [
      "a sample sum is beyond int64; it is kept as 9223372036854775807",
      "the total count is beyond int64; it is kept as 9223372036854775807"] and s[2][0] == INT64_MAX,
      "sums beyond int64 saturate, each with a diagnostic", (r, s))

rnd = random.Random(11)
names = ["f%d" % k for k in range(30)] + ["Foo::bar(int, char const*)", "java/lang/Thread.run", "[unknown]"]
out = []
for k in range(20000):
    st = [rnd.choice(names) for _ in range(rnd.randint(1, 12))]
    out.append("%s %d\n" % (";".join(st), rnd.randint(0, 1000)))
out.sort()                                   # stackcollapse output is sorted
fd, gen = tempfile.mkstemp(suffix=".txt")
with os.fdopen(fd, "w") as f:
    f.write("".join(out))
try:
    lg = check_file(gen, "generated 20000 lines")
    check(len(lg) == 20000, "generated: 20000 lines", len(lg))
finally:
    os.unlink(gen)

done()
