"""V8 CPU profiles (format 'cpuprofile', ext/formats/cpuprofile.c), checked against an independent reading
of the same files with Python's json module (decimal arithmetic, no binary floating point):

  1. per node (record_id, parent, name, category, count, self_ns, time_ns, depth, attrs) and per
     sample row (ts, dur, name, stack_id, byte_offset) of the corpus files
     ../shared/corpus/stacks/speedscope-chrome65-simple.cpuprofile (new shape) and
     speedscope-node10-example.cpuprofile (old 'head' shape), and of the hand-made
     tests/data/stacks/cpuprofile_{basic,old,parent}.cpuprofile; per function the self and total
     sample counts and times, the totals computed in SQL from profile_records (a recursive CTE over
     each node's ancestors, a recursive function counted once per sample) against Python's;
     the corpus README's facts (times, 29 samples, hitCount sum 28, node 2);
  2. the damaged file cpuprofile_edge.cpuprofile: every diagnostic and the values worked out by
     hand in the comments below;
  3. detection, errors with their messages, every prefix of two files (an error or a capture,
     never a crash), an empty file, hostile numbers, a deep old-shape tree.
Corpus parts skip with a SKIP line when ../shared/corpus is absent."""
import decimal
import json
import os
import sqlite3
import tempfile

import testlib
from testlib import check, connect, done, skip_part

D = decimal.Decimal
DATA = os.path.join("tests", "data", "stacks")
CORPUS = os.path.join("..", "shared", "corpus", "stacks")
NEW = os.path.join(CORPUS, "speedscope-chrome65-simple.cpuprofile")
OLD = os.path.join(CORPUS, "speedscope-node10-example.cpuprofile")
FMT = "cpuprofile"

db = connect()


def rows(sql, args=()):
    return testlib.rows(db, sql, args)


def error(sql, args=()):
    return testlib.error(db, sql, args)


def ns(v, scale=3):
    """A JSON number (µs, or seconds with scale 9) -> integer ns, halves away from zero."""
    d = D(str(v)).scaleb(scale)
    return int(d.quantize(D(1), rounding=decimal.ROUND_HALF_UP))


# ---------------------------------------------------------------------------------------------
# The reference reader

def reference(path):
    """Nodes {id: {parent, name, category, attrs}} and samples [(node id, ts or None, dur or None,
    offset)] as the docs define them, read with json and decimal."""
    text = open(path, encoding="utf-8").read()
    doc = json.loads(text, parse_float=D)
    nodes = {}
    if "nodes" in doc:
        for n in doc["nodes"]:
            cf = n.get("callFrame", {})
            nodes.setdefault(n["id"], {
                "parent": n.get("parent"), "name": cf.get("functionName"),
                "category": cf.get("url") or None, "order": len(nodes),
                "attrs": {k: v for k, v in n.items() if k != "children"}})
        for n in doc["nodes"]:
            for c in n.get("children", []):
                if nodes[c]["parent"] is None:
                    nodes[c]["parent"] = n["id"]
        start, end = ns(doc["startTime"]), ns(doc["endTime"])
    else:
        def walk(n, parent):
            nodes[n["id"]] = {"parent": parent, "name": n.get("functionName"),
                              "category": n.get("url") or None, "order": len(nodes),
                              "attrs": {k: v for k, v in n.items() if k != "children"}}
            for c in n["children"]:
                walk(c, n["id"])
        walk(doc["head"], None)
        start, end = ns(doc["startTime"], 9), ns(doc["endTime"], 9)
    samples = doc["samples"]
    if "timeDeltas" in doc:
        ts, t = [], start
        for d in doc["timeDeltas"]:
            t += ns(d)
            ts.append(t)
    else:
        stamps = [ns(x) for x in doc["timestamps"]]
        ts = stamps[1:] if len(stamps) == len(samples) + 1 else stamps
    # byte offsets of the sample elements: the samples array as written
    i = text.index("[", text.index('"samples"')) + 1
    offs = []
    for _ in samples:
        while text[i] in " \t\r\n,":
            i += 1
        offs.append(i)
        while text[i] not in ",] \t\r\n":
            i += 1
    # dur: to the next sample in time order; the last one: endTime - ts when >= 0
    order = sorted(range(len(samples)), key=lambda k: (ts[k], k))
    dur = [None] * len(samples)
    for a, b in zip(order, order[1:]):
        dur[a] = ts[b] - ts[a]
    if order and end - ts[order[-1]] >= 0:
        dur[order[-1]] = end - ts[order[-1]]
    return doc, nodes, [(samples[k], ts[k], dur[k], offs[k]) for k in range(len(samples))]


def ancestors(nodes, nid):
    out = []
    while nid is not None:
        out.append(nid)
        nid = nodes[nid]["parent"]
    return out


def ref_functions(nodes, samples):
    """{name: [self samples, total samples, self ns, total ns]}: a function counts once per sample
    in its total, however often it is on the stack."""
    f = {}
    for nid, _, dur, _ in samples:
        path = ancestors(nodes, nid)
        leaf = nodes[nid]["name"]
        f.setdefault(leaf, [0, 0, 0, 0])
        f[leaf][0] += 1
        f[leaf][2] += dur or 0
        for name in {nodes[x]["name"] for x in path}:
            f.setdefault(name, [0, 0, 0, 0])
            f[name][1] += 1
            f[name][3] += dur or 0
    return f


TOTALS_SQL = """
WITH RECURSIVE r AS (SELECT record_id, parent_record_id, name, count, self_ns FROM profile_records(?1)),
anc(leaf, node) AS (SELECT record_id, record_id FROM r
                    UNION SELECT anc.leaf, r.parent_record_id FROM anc JOIN r ON r.record_id = anc.node
                    WHERE r.parent_record_id IS NOT NULL),
fn AS (SELECT DISTINCT anc.leaf, n.name FROM anc JOIN r n ON n.record_id = anc.node)
SELECT fn.name AS name, sum(l.count) AS total, sum(coalesce(l.self_ns, 0)) AS total_ns
  FROM fn JOIN r l ON l.record_id = fn.leaf GROUP BY fn.name"""


def compare(path, label):
    doc, nodes, samples = reference(path)
    recs = rows("SELECT * FROM profile_records(?)", (path,))
    check(len(recs) == len(nodes), f"{label}: {len(nodes)} records", len(recs))
    byid = {r["record_id"]: r for r in recs}
    check([r["record_id"] for r in recs] == sorted(nodes, key=lambda k: nodes[k]["order"]),
          f"{label}: records in file order", [r["record_id"] for r in recs])
    # per node: self count/time from the samples, inclusive time over the subtree
    cnt = {k: 0 for k in nodes}
    self_ns = {k: 0 for k in nodes}
    for nid, _, dur, _ in samples:
        cnt[nid] += 1
        self_ns[nid] += dur or 0
    total_ns = dict(self_ns)
    for k in nodes:
        for a in ancestors(nodes, nodes[k]["parent"]):
            total_ns[a] += self_ns[k]
    for k, n in nodes.items():
        r = byid.get(k)
        if r is None:
            check(False, f"{label}: node {k} missing")
            continue
        want = (n["parent"], n["name"], n["category"], cnt[k], self_ns[k], total_ns[k],
                len(ancestors(nodes, k)) - 1, None, None)
        got = (r["parent_record_id"], r["name"], r["category"], r["count"], r["self_ns"], r["time_ns"],
               r["depth"], r["line"], r["record_set"])
        check(got == want, f"{label}: node {k} {want}", got)
        check(json.loads(r["attrs"], parse_float=D) == n["attrs"] and
              list(json.loads(r["attrs"])) == list(n["attrs"]),
              f"{label}: node {k} attrs = the node object without children, in its order", r["attrs"])
    # samples
    evs = rows("SELECT * FROM profile_events(?) ORDER BY id", (path,))
    check(len(evs) == len(samples), f"{label}: {len(samples)} sample rows", len(evs))
    for e, (nid, ts, dur, off) in zip(evs, samples):
        want = (ts, dur, nodes[nid]["name"], None, "P", None, None, nid, off, None, None, None)
        got = (e["ts"], e["dur"], e["name"], e["cat"], e["ph"], e["pid"], e["tid"], e["stack_id"],
               e["byte_offset"], e["args"], e["depth"], e["cpu"])
        check(got == want, f"{label}: sample row {e['id']} {want}", got)
    # per function: self from GROUP BY name, totals from the ancestor walk in SQL
    ref = ref_functions(nodes, samples)
    ours_self = {r["name"]: [r["c"], r["s"]] for r in rows(
        "SELECT name, sum(count) AS c, sum(self_ns) AS s FROM profile_records(?) GROUP BY name", (path,))}
    ours_total = {r["name"]: [r["total"], r["total_ns"]] for r in rows(TOTALS_SQL, (path,))}
    for name, (sc, tc, sn, tn) in ref.items():
        check(ours_self.get(name) == [sc, sn], f"{label}: {name!r} self samples/ns {sc}/{sn}", ours_self.get(name))
        check(ours_total.get(name) == [tc, tn], f"{label}: {name!r} total samples/ns {tc}/{tn}", ours_total.get(name))
    check(set(ours_self) == set(ref) | {n["name"] for n in nodes.values()}, f"{label}: the same functions", sorted(ours_self, key=str))
    # metadata
    meta = {r["key"]: r["value"] for r in rows("SELECT key, value FROM profile_metadata(?) WHERE scope = 'cpuprofile'", (path,))}
    check(meta.get("samples") == len(samples) and meta.get("nodes") == len(nodes),
          f"{label}: metadata samples/nodes", meta)
    check(meta.get("shape") == ("nodes" if "nodes" in doc else "head"), f"{label}: metadata shape", meta.get("shape"))
    for k in ("startTime", "endTime", "title", "typeId", "uid"):
        if k in doc:
            v = doc[k]
            check(meta.get(k) == (float(v) if isinstance(v, D) else v), f"{label}: metadata {k}", meta.get(k))
    fmt = rows("SELECT value FROM profile_metadata(?) WHERE scope = 'capture' AND key = 'format'", (path,))
    check(fmt and fmt[0]["value"] == FMT, f"{label}: detected as {FMT}", fmt)
    diags = rows("SELECT key, value FROM profile_metadata(?) WHERE scope = 'diagnostic'", (path,))
    check(diags == [], f"{label}: no diagnostics", diags)
    return nodes, samples


# ---------------------------------------------------------------------------------------------
# 1. clean files: the corpus and the hand-made ones

for name in ("cpuprofile_basic.cpuprofile", "cpuprofile_old.cpuprofile", "cpuprofile_parent.cpuprofile"):
    compare(os.path.join(DATA, name), name)

# hand-made facts, worked out by hand (not read from the output)
basic = os.path.join(DATA, "cpuprofile_basic.cpuprofile")
r = rows("SELECT name, category, count, self_ns, time_ns FROM profile_records(?) WHERE record_id IN (7, 9, 1) ORDER BY record_id", (basic,))
check(r == [{"name": "(root)", "category": None, "count": 0, "self_ns": 0, "time_ns": 3000000},
            {"name": 'für "q"', "category": "https://x.example/é.js", "count": 2, "self_ns": 560000, "time_ns": 560000},
            {"name": "", "category": "file:///app/main.js", "count": 1, "self_ns": 100500, "time_ns": 100500}],
      "basic: root covers first sample..endTime (5004000.5 - 5001000.5 µs), escapes decoded, '' kept", r)
r = rows("SELECT ts, dur FROM profile_events(?) WHERE id IN (0, 4, 10) ORDER BY id", (basic,))
check(r == [{"ts": 5001000500, "dur": 250250}, {"ts": 5001975749, "dur": 1000000}, {"ts": 5003900000, "dur": 100500}],
      "basic: fractional µs deltas summed exactly; last dur = endTime - ts", r)
old = os.path.join(DATA, "cpuprofile_old.cpuprofile")
r = rows("SELECT ts, dur FROM profile_events(?) WHERE id IN (0, 6) ORDER BY id", (old,))
check(r == [{"ts": 1500000000100000000, "dur": 100000000}, {"ts": 1500000000800000000, "dur": 200000000}],
      "old shape: timestamps as many as samples: sample i at timestamps[i]; endTime in seconds", r)
r = rows("SELECT record_id, parent_record_id, depth FROM profile_records(?) WHERE record_id = 6", (old,))
check(r == [{"record_id": 6, "parent_record_id": 5, "depth": 3}], "old shape: 'id' after 'children' (sorted keys)", r)

if not os.path.isdir(CORPUS):
    skip_part(f"cpuprofile corpus files ({CORPUS} absent)")
else:
    n_new, s_new = compare(NEW, "chrome65")
    n_old, s_old = compare(OLD, "node10")
    # the README's facts
    m = {r["key"]: r["value"] for r in rows("SELECT key, value FROM profile_metadata(?) WHERE scope = 'cpuprofile'", (NEW,))}
    check(m.get("startTime") == 163140599286 and m.get("endTime") == 163140647178 and m.get("timeDeltas") == 29,
          "chrome65: startTime, endTime, 29 timeDeltas", m)
    r = rows("SELECT sum(count) AS n, sum(json_extract(attrs, '$.hitCount')) AS hits FROM profile_records(?)", (NEW,))
    check(r == [{"n": 29, "hits": 28}], "chrome65: 29 samples counted, hitCount sum 28", r)
    r = rows("SELECT count, json_extract(attrs, '$.hitCount') AS hit, name FROM profile_records(?) WHERE record_id = 2", (NEW,))
    check(r == [{"count": 1, "hit": 0, "name": ""}], "chrome65: node 2 has the first sample but hitCount 0", r)
    r = rows("SELECT ts FROM profile_events(?) WHERE id = 0", (NEW,))
    check(r == [{"ts": (163140599286 + 11575) * 1000}], "chrome65: first sample at startTime + 11575 µs", r)
    # the old file was made from the new one: the same samples at the same times; its endTime is
    # whole seconds (before the samples), so only its last sample's dur is NULL
    check([x[:2] for x in s_old] == [x[:2] for x in s_new], "node10: same samples and ts as chrome65")
    check([x[2] for x in s_old[:-1]] == [x[2] for x in s_new[:-1]] and s_old[-1][2] is None and s_new[-1][2] == 1972000,
          "node10: same durations but the last (NULL; chrome65: 1972 µs)")
    a = {r["name"]: r["c"] for r in rows("SELECT name, sum(count) AS c FROM profile_records(?) GROUP BY name", (NEW,))}
    b = {r["name"]: r["c"] for r in rows("SELECT name, sum(count) AS c FROM profile_records(?) GROUP BY name", (OLD,))}
    check(a == b == {"(root)": 0, "": 1, "a": 0, "b": 0, "c": 0, "d": 28}, "both shapes: the same self samples", (a, b))

# ---------------------------------------------------------------------------------------------
# 2. the damaged file
edge = os.path.join(DATA, "cpuprofile_edge.cpuprofile")
# startTime 1000 µs; deltas 10, 20, -15, 30, 5, 5, 5 -> ts 1010, 1030, 1015, 1045, 1050, 1055, 1060 and
# no ts for the 8th sample (7 deltas). In time order the durations are 5, 15 (1015), 15 (1030), 5, 5,
# 5, and 2000 - 1060 = 940 for the last.
r = rows("SELECT id, ts, dur, name, stack_id FROM profile_events(?) ORDER BY id", (edge,))
check(r == [{"id": 0, "ts": 1010000, "dur": 5000, "name": "f", "stack_id": 2},
            {"id": 1, "ts": 1030000, "dur": 15000, "name": "h2", "stack_id": 4},
            {"id": 2, "ts": 1015000, "dur": 15000, "name": None, "stack_id": None},
            {"id": 3, "ts": 1045000, "dur": 5000, "name": "orphan", "stack_id": 5},
            {"id": 4, "ts": 1050000, "dur": 5000, "name": None, "stack_id": None},
            {"id": 5, "ts": 1055000, "dur": 5000, "name": "c1", "stack_id": 10},
            {"id": 6, "ts": 1060000, "dur": 940000, "name": "p", "stack_id": 6},
            {"id": 7, "ts": None, "dur": None, "name": "h2", "stack_id": 4}], "edge: sample rows", r)
# nodes: 4 is the child of 2 (the first list), named h2 (the last functionName); the second id 2 is
# out of the tree; 5 is a root (its lister has no id); 10/11 form a cycle; 6's parent is its field;
# 8's parent 77 does not exist (a root)
r = rows("SELECT record_id AS id, parent_record_id AS par, name, count, self_ns AS s, time_ns AS t, depth FROM profile_records(?)", (edge,))
check(r == [{"id": 1, "par": None, "name": "(root)", "count": 0, "s": 0, "t": 960000, "depth": 0},
            {"id": 2, "par": 1, "name": "f", "count": 1, "s": 5000, "t": 20000, "depth": 1},
            {"id": 3, "par": 1, "name": "g", "count": 0, "s": 0, "t": 0, "depth": 1},
            {"id": 4, "par": 2, "name": "h2", "count": 2, "s": 15000, "t": 15000, "depth": 2},
            {"id": 2, "par": None, "name": "dup", "count": 0, "s": 0, "t": 0, "depth": None},
            {"id": 5, "par": None, "name": "orphan", "count": 1, "s": 5000, "t": 5000, "depth": 0},
            {"id": 10, "par": 11, "name": "c1", "count": 1, "s": 5000, "t": 5000, "depth": None},
            {"id": 11, "par": 10, "name": "c2", "count": 0, "s": 0, "t": 0, "depth": None},
            {"id": 6, "par": 1, "name": "p", "count": 1, "s": 940000, "t": 940000, "depth": 1},
            {"id": 8, "par": 77, "name": "lost", "count": 0, "s": 0, "t": 0, "depth": 0}], "edge: records", r)
counts = {r["key"]: r["value"] for r in rows("SELECT key, value FROM profile_metadata(?) WHERE scope = 'diagnostic' AND key LIKE '%_count'", (edge,))}
check(counts == {"other_count": 7, "missing_parent_count": 1, "parent_cycle_count": 2, "duplicate_id_count": 1,
                 "unknown_id_count": 2, "duplicate_key_count": 1}, "edge: diagnostic counts", counts)
msgs = [r["value"] for r in rows("SELECT value FROM profile_metadata(?) WHERE scope = 'diagnostic' AND key NOT LIKE '%_count'", (edge,))]
for want in ["byte 82: the children of node 1 name node 42, which no node has",
             "node 4 is in the children of node 3, but its parent is node 2 (an earlier children list); that one is kept",
             "frame id 2 is used again",
             "a node without an integer 'id' is left out",
             "node 10 is not an object; skipped",
             "the sample names node 99, which no node has; the row has no stack",
             "a sample that is not an integer node id; the row has no stack",
             "8 samples but 7 timeDeltas; the samples beyond them have no ts",
             "1 samples are earlier than the sample before them (negative timeDeltas)",
             "frame id 10 is in a parent cycle", "parent 77 of frame id 8 does not exist",
             'key "functionName" given again in a callFrame']:
    check(any(want in m for m in msgs), f"edge: diagnostic {want!r}", msgs)
text = open(edge, encoding="utf-8").read()
check(text[82:84] == "42", "edge: the unknown child's byte offset is its entry")

# ---------------------------------------------------------------------------------------------
# 3. detection, errors, prefixes, hostile input


def fmt_of(blob):
    try:
        return db.execute("SELECT value FROM profile_metadata(?) WHERE scope = 'capture' AND key = 'format'", (blob,)).fetchone()[0]
    except sqlite3.Error as e:
        return "error: " + str(e)


check(fmt_of(b'{"startTime":1,"nodes":[{"id":1,"callFrame":{"functionName":"x"}}],"samples":[1],"timeDeltas":[1]}') == FMT,
      "detected: 'nodes' after another key")
check(fmt_of(b'{"title":"t","head":{"functionName":"(root)","id":1,"children":[]},"samples":[],"timestamps":[]}') == FMT,
      "detected: 'head' after v8-profiler's title")
check(fmt_of(b'{"traceEvents":[],"nodes":[{"callFrame":{}}]}') == "chrome", "a Chrome trace object with 'nodes' stays chrome")
check(fmt_of(b'{"nodes":[{"id":1,"label":"a graph"}],"edges":[]}') != FMT, "'nodes' without a callFrame is not claimed")
check(fmt_of(b'{"nodes":[{"id":1,"callFrame":{}}]}') == FMT, "a profile without samples is still one")
if os.path.isdir(os.path.join("..", "shared", "corpus")):
    root = os.path.join("..", "shared", "corpus")
    claimed = []
    for d, _, fs in os.walk(root):
        for f in fs:
            if f.endswith(".md") or f.endswith(".proto"):
                continue
            p = os.path.join(d, f)
            got = fmt_of(p)
            if (got == FMT) != p.endswith(".cpuprofile"):
                claimed.append((p, got))
    check(claimed == [], "corpus: exactly the .cpuprofile files are cpuprofile", claimed)
else:
    skip_part("detection over the corpus (../shared/corpus absent)")

E = "SELECT count(*) FROM profile_events(?, 'cpuprofile')"
for blob, want in [
        (b" ", "the input ends inside a value at byte 1 (line 1, column 2; cut short?): expected a V8 CPU profile JSON object '{'"),
        (b"[]", "byte 0 (line 1, column 1): expected a V8 CPU profile JSON object '{'"),
        (b'{"samples":[1]}', "byte 0 (line 1, column 1): a V8 CPU profile has 'nodes' or 'head'; this object has neither"),
        (b'{"nodes":{}}', "byte 9 (line 1, column 10): 'nodes' is not an array"),
        (b'{"head":[]}', "byte 8 (line 1, column 9): 'head' is not an object"),
        (b'{"nodes":[],"samples":1}', "byte 22 (line 1, column 23): 'samples' is not an array"),
        (b'{"nodes":[]} x', "byte 13 (line 1, column 14): unexpected bytes after the CPU profile JSON"),
        (b'{"nodes":[{"id":1,}]}', "byte 18 (line 1, column 19): expected a string key")]:
    got = error(E, (blob,))
    check(got is not None and got.endswith(want), f"error for {blob!r}: ...{want}", got)
with tempfile.NamedTemporaryFile(suffix=".cpuprofile") as f:
    for sql in ("SELECT count(*) FROM profile_events(?)", E):
        got = error(sql, (f.name,))
        check(got is not None and got.endswith("is empty (0 bytes)"), "an empty file: the loader says so", got)
    f.write(b"\n \n")
    f.flush()
    got = error("SELECT count(*) FROM profile_events(?)", (f.name,))
    check(got is not None and "not a supported capture" in got, "a file of blanks is not detected", got)
    got = error(E, (f.name,))
    check(got is not None and got.endswith("expected a V8 CPU profile JSON object '{'"), "a file of blanks read as cpuprofile", got)

for path in (basic, old):
    raw = open(path, "rb").read()
    bad = []
    for k in range(len(raw)):
        for sql in (E, "SELECT count(*) FROM profile_records(?)"):
            try:
                db.execute(sql, (raw[:k],)).fetchall()
            except sqlite3.Error as e:
                if "byte" not in str(e) and "not a supported capture" not in str(e):
                    bad.append((k, str(e)))
    check(bad == [], f"{os.path.basename(path)}: every prefix is an error naming a byte, or a capture", bad[:3])
    check(error(E, (raw,)) is None, f"{os.path.basename(path)}: the whole file loads")

# hostile numbers: ids at the int64 ends, a startTime whose ns leave int64 after one µs, a
# sample id beyond int64, a delta beyond int64 ns
hostile = (b'{"nodes":[{"id":9223372036854775807,"callFrame":{"functionName":"max","url":""},"children":[-9223372036854775808]},'
           b'{"id":-9223372036854775808,"callFrame":{"functionName":"min","url":""}},{"id":1e400,"callFrame":{}}],'
           b'"startTime":9223372036854775,"endTime":1e999,'
           b'"samples":[9223372036854775807,-9223372036854775808,1e400,9223372036854775808],"timeDeltas":[0.0004,0.0005,1,1e30]}')
r = rows("SELECT id, ts, dur, stack_id FROM profile_events(?, 'cpuprofile')", (hostile,))
check(r == [{"id": 0, "ts": 9223372036854775000, "dur": 1, "stack_id": 9223372036854775807},
            {"id": 1, "ts": 9223372036854775001, "dur": None, "stack_id": None},
            {"id": 2, "ts": None, "dur": None, "stack_id": None},
            {"id": 3, "ts": None, "dur": None, "stack_id": None}], "hostile numbers: rows", r)
r = rows("SELECT record_id, parent_record_id, depth FROM profile_records(?, 'cpuprofile')", (hostile,))
check(r == [{"record_id": 9223372036854775807, "parent_record_id": None, "depth": 0}],
      "hostile numbers: records (-2^63 is no id: it is SQL NULL's stand-in)", r)
msgs = [r["value"] for r in rows("SELECT value FROM profile_metadata(?, 'cpuprofile') WHERE scope = 'diagnostic'", (hostile,))]
for want in ["the running sum of timeDeltas leaves int64 ns", "a timeDelta that is not a number of µs within int64 ns",
             "a node without an integer 'id'", "a sample that is not an integer node id"]:
    check(any(want in m for m in msgs), f"hostile numbers: diagnostic {want!r}", msgs)

# a deep old-shape tree: walked without recursion (ids: 1 outermost ... deep innermost)
deep = 3000
doc = "".join('{"functionName":"f%d","id":%d,"children":[' % (k, k) for k in range(1, deep + 1)) + "]}" * deep
blob = ('{"head":' + doc + ',"startTime":0,"endTime":1,"samples":[%d],"timestamps":[5]}' % deep).encode()
r = rows("SELECT max(depth) AS d, count(*) AS n, sum(count) AS c FROM profile_records(?, 'cpuprofile')", (blob,))
check(r == [{"d": deep - 1, "n": deep, "c": 1}], f"a {deep}-deep head tree", r)
r = rows("SELECT record_id, time_ns FROM profile_records(?, 'cpuprofile') WHERE depth = 0", (blob,))
check(r == [{"record_id": 1, "time_ns": 1000000000 - 5000}], "the deep tree's root has the one sample's time (endTime 1 s - 5 µs)", r)

done()
