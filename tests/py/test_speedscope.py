"""speedscope's file format (format 'speedscope', ext/formats/speedscope.c), checked against an independent
reading of the same files with Python's json module (decimal arithmetic, no binary floating point):

  1. per call-tree node (its path of frame indices within its profile: count, self_ns, time_ns,
     name, category, record_set, depth, attrs), per row (sampled: ts, dur, stack, args; evented:
     ts, dur, depth, parent, stack) and per function of each profile the self and total weight
     and time — totals computed in SQL from profile_records with a recursive CTE over each node's
     ancestors (a recursive function counted once) against Python's — for the corpus files
     ../shared/corpus/stacks/speedscope-file-simple.speedscope.json (evented, unit none: the
     collapsed simple.txt: a;b;c 5, a;b;d 4, a;b 5) and speedscope-file-two-sampled.speedscope.json
     (two sampled profiles, seconds, weights 1,1,4,3,5) and the hand-made
     tests/data/stacks/speedscope_multi.speedscope.json (evented ms with recursion, bytes,
     microseconds with decimal weights); metadata as written;
  2. the damaged file speedscope_edge.speedscope.json: every diagnostic and the values worked out
     by hand in the comments below;
  3. detection (and that no other corpus file is claimed), errors with their messages, every
     prefix of two files, hostile numbers.
Corpus parts skip with a SKIP line when ../shared/corpus is absent."""
import decimal
import json
import os
import sqlite3

import testlib
from testlib import check, connect, done, skip_part

D = decimal.Decimal
DATA = os.path.join("tests", "data", "stacks")
CORPUS = os.path.join("..", "shared", "corpus", "stacks")
SIMPLE = os.path.join(CORPUS, "speedscope-file-simple.speedscope.json")
TWO = os.path.join(CORPUS, "speedscope-file-two-sampled.speedscope.json")
MULTI = os.path.join(DATA, "speedscope_multi.speedscope.json")
EDGE = os.path.join(DATA, "speedscope_edge.speedscope.json")
FMT = "speedscope"
SCALE = {"nanoseconds": 0, "microseconds": 3, "milliseconds": 6, "seconds": 9}

db = connect()


def rows(sql, args=()):
    return testlib.rows(db, sql, args)


def error(sql, args=()):
    return testlib.error(db, sql, args)


def to_ns(v, scale):
    return int(D(str(v)).scaleb(scale).quantize(D(1), rounding=decimal.ROUND_HALF_UP))


# ---------------------------------------------------------------------------------------------
# The reference reader (clean files: every event matched, every index valid)

def reference(path):
    """{(profile, path): {count, self, time, name, file, attrs}}, rows per profile, functions."""
    doc = json.loads(open(path, encoding="utf-8").read(), parse_float=D)
    frames = doc["shared"]["frames"]
    nodes, evrows, funcs = {}, [], {}

    def node(p, path):
        f = frames[path[-1]]
        return nodes.setdefault((p, path), {"count": 0, "self": 0, "calls": 0, "name": f.get("name"),
                                            "file": f.get("file") or None, "attrs": f})

    for p, prof in enumerate(doc["profiles"]):
        scale = SCALE.get(prof["unit"])
        timed = scale is not None
        if prof["type"] == "sampled":
            t = to_ns(prof["startValue"], scale) if timed else None
            for stack, w in zip(prof["samples"], prof["weights"]):
                path = tuple(stack)
                wv = to_ns(w, scale) if timed else int(w)
                evrows.append({"prof": p, "ph": "P", "ts": t, "dur": wv if timed else None,
                               "path": path or None, "weight": w})
                if path:
                    for k in range(1, len(path) + 1):
                        node(p, path[:k])
                    n = node(p, path)
                    n["count"] += 1 if timed else wv
                    n["self"] += wv
                if timed:
                    t += wv
        else:
            stack, last, opened = [], None, []
            for ev in prof["events"]:
                at = to_ns(ev["at"], scale) if timed else int(ev["at"])
                if stack:
                    node(p, tuple(stack))["self"] += at - last
                last = at
                if ev["type"] == "O":
                    stack.append(ev["frame"])
                    node(p, tuple(stack))["calls"] += 1
                    row = {"prof": p, "ph": "X", "ts": at if timed else None, "dur": None, "path": tuple(stack),
                           "depth": len(stack) - 1, "parent": opened[-1][0] if opened else None, "open": at}
                    opened.append((len(evrows), row))
                    evrows.append(row)
                else:
                    assert stack[-1] == ev["frame"]
                    stack.pop()
                    _, row = opened.pop()
                    if timed:
                        row["dur"] = at - row["open"]
            for n in (v for k, v in nodes.items() if k[0] == p):
                if timed:
                    n["count"] = n["calls"]
                else:
                    n["count"] = n["self"]
        # per function of this profile: self and total (once per path) of the node selves
        for (q, path), n in nodes.items():
            if q != p:
                continue
            fs = funcs.setdefault(p, {})
            leaf = frames[path[-1]].get("name")
            fs.setdefault(leaf, [0, 0])[0] += n["self"]
            for name in {frames[x].get("name") for x in path}:
                fs.setdefault(name, [0, 0])[1] += n["self"]
        for n in (v for k, v in nodes.items() if k[0] == p):
            n["timed"] = timed
            n["evented"] = prof["type"] == "evented"
    return doc, nodes, evrows, funcs


TOTALS_SQL = """
WITH RECURSIVE r AS (SELECT record_id, parent_record_id, record_set, name, count, self_ns FROM profile_records(?1)),
anc(leaf, node) AS (SELECT record_id, record_id FROM r
                    UNION SELECT anc.leaf, r.parent_record_id FROM anc JOIN r ON r.record_id = anc.node
                    WHERE r.parent_record_id IS NOT NULL),
fn AS (SELECT DISTINCT anc.leaf, n.name FROM anc JOIN r n ON n.record_id = anc.node)
SELECT l.record_set AS prof, fn.name AS name, sum(l.count) AS total, sum(l.self_ns) AS total_ns
  FROM fn JOIN r l ON l.record_id = fn.leaf GROUP BY l.record_set, fn.name"""


def paths(recs, frame_of):
    """record_id -> (its root's record_set, tuple of frame indices), frame_of: record -> index."""
    byid = {r["record_id"]: r for r in recs}
    out = {}
    for r in recs:
        path, x = [], r
        while x is not None:
            path.append(frame_of(x))
            x = byid.get(x["parent_record_id"])
        out[r["record_id"]] = tuple(reversed(path))
    return out


def compare(path, label):
    doc, nodes, evrows, funcs = reference(path)
    names = [p.get("name") for p in doc["profiles"]]
    frames = doc["shared"]["frames"]
    recs = rows("SELECT * FROM profile_records(?)", (path,))
    check(len(recs) == len(nodes), f"{label}: {len(nodes)} records", len(recs))
    # a record's frame: the one whose attrs it has (the frames of these files are all distinct)
    fidx = {json.dumps(f, sort_keys=True): k for k, f in enumerate(frames)}
    p_of = paths(recs, lambda r: fidx[json.dumps(json.loads(r["attrs"], parse_float=D), sort_keys=True)])
    prof_of = {r["record_id"]: names.index(r["record_set"]) for r in recs}
    check([r["record_id"] for r in recs] == list(range(1, len(recs) + 1)), f"{label}: record ids 1..n")
    seen = set()
    for r in recs:
        key = (prof_of[r["record_id"]], p_of[r["record_id"]])
        seen.add(key)
        n = nodes.get(key)
        if n is None:
            check(False, f"{label}: record {r['record_id']} {key} not in the reference")
            continue
        tm = n["timed"]
        # inclusive time: the selves of the node's subtree in its profile
        total = sum(v["self"] for k, v in nodes.items() if k[0] == key[0] and k[1][:len(key[1])] == key[1])
        want = (n["name"], n["file"], n["count"], n["self"] if tm else None, total if tm else None,
                len(key[1]) - 1, names[key[0]], None)
        got = (r["name"], r["category"], r["count"], r["self_ns"], r["time_ns"], r["depth"], r["record_set"], r["line"])
        check(got == want, f"{label}: node {key} {want}", got)
    check(seen == set(nodes), f"{label}: every node of the reference is a record")
    # rows
    evs = rows("SELECT * FROM profile_events(?) ORDER BY id", (path,))
    check(len(evs) == len(evrows), f"{label}: {len(evrows)} rows", len(evs))
    rec_path = {rid: (prof_of[rid], p) for rid, p in p_of.items()}
    for e, w in zip(evs, evrows):
        p = w["prof"]
        got = (e["ph"], e["ts"], e["dur"], e["cat"], e["pid"], e["tid"], e["thread_name"],
               rec_path.get(e["stack_id"]), e["name"])
        want = (w["ph"], w["ts"], w["dur"], names[p], None, p, names[p],
                (p, w["path"]) if w["path"] else None, frames[w["path"][-1]].get("name") if w["path"] else None)
        check(got == want, f"{label}: row {e['id']} {want}", got)
        if w["ph"] == "P":
            check(json.loads(e["args"], parse_float=D) == {"weight": w["weight"]}, f"{label}: row {e['id']} args", e["args"])
        else:
            parent = evs[w["parent"]]["id"] if w["parent"] is not None else None
            check((e["depth"], e["parent_id"]) == (w["depth"], parent), f"{label}: row {e['id']} depth/parent",
                  (e["depth"], e["parent_id"]))
            a = json.loads(e["args"], parse_float=D)
            check(a["open"]["type"] == "O" and a["close"]["type"] == "C" and a["open"]["frame"] == a["close"]["frame"],
                  f"{label}: row {e['id']} args open/close", e["args"])
    # per function: self from GROUP BY, totals from the ancestor walk
    ours_self = {(r["prof"], r["name"]): r["s"] for r in rows(
        "SELECT record_set AS prof, name, sum(CASE WHEN self_ns IS NULL THEN count ELSE self_ns END) AS s "
        "FROM profile_records(?) GROUP BY record_set, name", (path,))}
    ours_total = {(r["prof"], r["name"]): r for r in rows(TOTALS_SQL, (path,))}
    for p, fs in funcs.items():
        timed = SCALE.get(doc["profiles"][p]["unit"]) is not None
        evented = doc["profiles"][p]["type"] == "evented"
        for name, (sv, tv) in fs.items():
            k = (names[p], name)
            check(ours_self.get(k) == sv, f"{label}: {k} self {sv}", ours_self.get(k))
            t = ours_total.get(k)
            got = (t["total_ns"] if timed else t["total"]) if t else None
            check(got == tv, f"{label}: {k} total {tv}", got)
            if timed and not evented:        # sampled time: total samples too
                want = sum(n["count"] for (q, pth), n in nodes.items()
                           if q == p and name in {frames[x].get("name") for x in pth})
                check(t and t["total"] == want, f"{label}: {k} total samples {want}", t)
    # metadata as written
    meta = {r["key"]: r["value"] for r in rows("SELECT key, value FROM profile_metadata(?) WHERE scope = 'speedscope'", (path,))}
    for k in ("$schema", "version", "exporter", "name", "activeProfileIndex"):
        if k in doc:
            check(meta.get(k) == doc[k], f"{label}: metadata {k}", meta.get(k))
    check(meta.get("profiles") == len(doc["profiles"]) and meta.get("frames") == len(frames), f"{label}: counts", meta)
    for p, prof in enumerate(doc["profiles"]):
        for k, v in prof.items():
            key = f"profiles[{p}].{k}"
            want = len(v) if isinstance(v, list) else (float(v) if isinstance(v, D) else v)
            check(meta.get(key) == want, f"{label}: metadata {key}", meta.get(key))
    diags = rows("SELECT key, value FROM profile_metadata(?) WHERE scope = 'diagnostic'", (path,))
    check(diags == [], f"{label}: no diagnostics", diags)
    fmt = rows("SELECT value FROM profile_metadata(?) WHERE scope = 'capture' AND key = 'format'", (path,))
    check(fmt and fmt[0]["value"] == FMT, f"{label}: detected as {FMT}", fmt)
    return nodes


# ---------------------------------------------------------------------------------------------
# 1. clean files

compare(MULTI, "multi")
# worked out by hand: the evented profile (ms): main 0.5..20 with work 1.25..7 > work 2..6.125 >
# leaf 3.5..4, and leaf 8..9.999999 under main
r = rows("SELECT name, count, self_ns, time_ns, depth FROM profile_records(?) WHERE record_set = 'thread 1'", (MULTI,))
check(r == [{"name": "main", "count": 1, "self_ns": 11750001, "time_ns": 19500000, "depth": 0},
            {"name": "work", "count": 1, "self_ns": 1625000, "time_ns": 5750000, "depth": 1},
            {"name": "work", "count": 1, "self_ns": 3625000, "time_ns": 4125000, "depth": 2},
            {"name": "leaf", "count": 1, "self_ns": 500000, "time_ns": 500000, "depth": 3},
            {"name": "leaf", "count": 1, "self_ns": 1999999, "time_ns": 1999999, "depth": 1}], "multi: evented by hand", r)
r = rows("SELECT name, category, count, self_ns FROM profile_records(?) WHERE record_set = 'allocs'", (MULTI,))
check(r == [{"name": "main", "category": "app.py", "count": 0, "self_ns": None},
            {"name": "work", "category": "app.py", "count": 1024, "self_ns": None},
            {"name": "alloc", "category": None, "count": 2560, "self_ns": None},
            {"name": "alloc", "category": None, "count": 512, "self_ns": None}], "multi: bytes by hand (file '' is NULL)", r)
r = rows("SELECT ts, dur, name FROM profile_events(?) WHERE cat = 'cpu'", (MULTI,))
check(r == [{"ts": 100000, "dur": 10500, "name": "leaf"}, {"ts": 110500, "dur": 20000, "name": "work"},
            {"ts": 130500, "dur": 1, "name": "leaf"}, {"ts": 130501, "dur": 3000, "name": "été"},
            {"ts": 133501, "dur": 1, "name": "work"}], "multi: µs weights 10.5, 20, 0.001, 3, 1e-3 exactly", r)
r = rows("SELECT count(*) AS n FROM profile_events(?) WHERE cat = 'allocs' AND stack_id IS NULL", (MULTI,))
check(r == [{"n": 1}], "multi: the empty stack is a row without a stack", r)

if not os.path.isdir(CORPUS):
    skip_part(f"speedscope corpus files ({CORPUS} absent)")
else:
    compare(SIMPLE, "simple")
    compare(TWO, "two-sampled")
    # the README's facts: simple.txt as collapsed stacks (a;b;c 5, a;b;d 4, a;b 5; 14 in all)
    r = {(x["p"], x["name"]): x["count"] for x in rows(
        "SELECT (SELECT name FROM profile_records(?1) WHERE record_id = r.parent_record_id) AS p, name, count "
        "FROM profile_records(?1) AS r", (SIMPLE,))}
    check(r == {(None, "a"): 0, ("a", "b"): 5, ("b", "c"): 5, ("b", "d"): 4}, "simple: the collapsed counts", r)
    r = rows("SELECT count(*) AS n, sum(dur) AS d FROM profile_events(?) WHERE cat = 'one'", (TWO,))
    check(r == [{"n": 5, "d": 14000000000}], "two-sampled: 5 samples, 1+1+4+3+5 s", r)
    r = rows("SELECT record_set, count(*) AS n FROM profile_records(?) GROUP BY record_set", (TWO,))
    check(r == [{"record_set": "one", "n": 4}, {"record_set": "two", "n": 4}], "two-sampled: a tree per profile", r)
    r = rows("SELECT DISTINCT tid, thread_name FROM profile_events(?)", (TWO,))
    check(r == [{"tid": 0, "thread_name": "one"}, {"tid": 1, "thread_name": "two"}], "two-sampled: a track per profile", r)

# ---------------------------------------------------------------------------------------------
# 2. the damaged file
# profile 0 'ev' (ns): O a@0, O b@10, O c@20, C b@30 (c on top: c and b close at 30), C c@35 (not
# open: ignored, time does not move), O frame 9 (ignored), O b@25 (back in time: at 30), X/junk/no
# 'at' (ignored), O frame 4 with "at" twice (the last, 70), C 4@90; a and the second b never close.
# Selves: a 10 (0..10) + 0, b 10 (10..20) + 40 (30..70), c 10, frame 4 20; calls: b 2.
r = rows("SELECT record_id AS id, parent_record_id AS par, record_set AS p, name, category AS cat, count, "
         "self_ns AS s, time_ns AS t FROM profile_records(?)", (EDGE,))
check(r == [{"id": 1, "par": None, "p": "ev", "name": "a", "cat": None, "count": 1, "s": 10, "t": 90},
            {"id": 2, "par": 1, "p": "ev", "name": "b", "cat": None, "count": 2, "s": 50, "t": 80},
            {"id": 3, "par": 2, "p": "ev", "name": "c", "cat": None, "count": 1, "s": 10, "t": 10},
            {"id": 4, "par": 2, "p": "ev", "name": None, "cat": "nameless.js", "count": 1, "s": 20, "t": 20},
            # profile 1 's' (none): [0,1] w1, [0,7] bad frame, [0,1,2] w-3 -> 0, [0] w1.5 -> 2,
            # "x" (no stack), [1] without a weight -> 1
            {"id": 5, "par": None, "p": "s", "name": "a", "cat": None, "count": 2, "s": None, "t": None},
            {"id": 6, "par": 5, "p": "s", "name": "b", "cat": None, "count": 1, "s": None, "t": None},
            {"id": 7, "par": 6, "p": "s", "name": "c", "cat": None, "count": 0, "s": None, "t": None},
            {"id": 8, "par": None, "p": "s", "name": "b", "cat": None, "count": 1, "s": None, "t": None},
            # profile 3 'u': unit furlongs read as none
            {"id": 9, "par": None, "p": "u", "name": "c", "cat": None, "count": 5, "s": None, "t": None}], "edge: records", r)
r = rows("SELECT id, ts, dur, name, depth, parent_id AS par, stack_id AS st FROM profile_events(?) WHERE cat = 'ev'", (EDGE,))
check(r == [{"id": 0, "ts": 0, "dur": None, "name": "a", "depth": 0, "par": None, "st": 1},
            {"id": 1, "ts": 10, "dur": 20, "name": "b", "depth": 1, "par": 0, "st": 2},
            {"id": 2, "ts": 20, "dur": 10, "name": "c", "depth": 2, "par": 1, "st": 3},
            {"id": 3, "ts": 30, "dur": None, "name": "b", "depth": 1, "par": 0, "st": 2},
            {"id": 4, "ts": 70, "dur": 20, "name": None, "depth": 2, "par": 3, "st": 4}], "edge: slices", r)
r = rows("SELECT json_extract(args, '$.close.at') AS c FROM profile_events(?) WHERE id = 2", (EDGE,))
check(r == [{"c": 30}], "edge: c's row is closed by b's 'C'", r)
r = rows("SELECT stack_id AS st, json(args) AS a FROM profile_events(?) WHERE cat = 's'", (EDGE,))
check(r == [{"st": 6, "a": '{"weight":1}'}, {"st": None, "a": '{"weight":2}'}, {"st": 7, "a": '{"weight":-3}'},
            {"st": 5, "a": '{"weight":1.5}'}, {"st": None, "a": '{"weight":4}'}, {"st": 8, "a": None}], "edge: sample rows", r)
counts = {r["key"]: r["value"] for r in rows("SELECT key, value FROM profile_metadata(?) WHERE scope = 'diagnostic' AND key LIKE '%_count'", (EDGE,))}
check(counts == {"unmatched_end_count": 2, "unclosed_begin_count": 2, "other_count": 13, "unknown_id_count": 2,
                 "duplicate_key_count": 1}, "edge: diagnostic counts", counts)
msgs = [r["value"] for r in rows("SELECT value FROM profile_metadata(?) WHERE scope = 'diagnostic' AND key NOT LIKE '%_count'", (EDGE,))]
for want in ["frame 3 is not an object; its name is NULL", "frame 4 has no string 'name'; NULL",
             "'C' of frame 1 while frame 2 ('c') is on top (speedscope rejects the file); the 1 frame above it close here too",
             "'C' of frame 2 ('c'), which is not open; ignored",
             "the event names frame 9, which shared.frames (5 frames) does not have; ignored",
             "'at' goes back in time", "neither 'O' nor 'C'", "an event that is not an object",
             "an event without a numeric 'at'", 'key "at" given again in an event',
             "frame 1 is never closed", "frame 0 is never closed",
             "sample 1 names frame 7, which shared.frames (5 frames) does not have; the row has no stack",
             "a negative weight (speedscope rejects it); taken as 0",
             "a value that is not an integer in a profile whose unit is not time; rounded to the nearest",
             "sample 4 is not an array of frame indices", "profile 1 has 6 samples but 5 weights",
             "profile 2: no 'unit'; read as 'none'", "profile 2: its type is neither 'evented' nor 'sampled'",
             "profile 3: a unit speedscope does not know; read as 'none'"]:
    check(any(want in m for m in msgs), f"edge: diagnostic {want!r}", msgs)
m = {r["key"]: r["value"] for r in rows("SELECT key, value FROM profile_metadata(?) WHERE scope = 'speedscope'", (EDGE,))}
check(m.get("shared.note") == "extra" and m.get("profiles[2].type") == "mystery" and m.get("profiles[3].unit") == "furlongs",
      "edge: metadata keeps what it does not read", m)

# ---------------------------------------------------------------------------------------------
# 3. detection, errors, prefixes, hostile input


def fmt_of(x):
    try:
        return db.execute("SELECT value FROM profile_metadata(?) WHERE scope = 'capture' AND key = 'format'", (x,)).fetchone()[0]
    except sqlite3.Error as e:
        return "error: " + str(e)


check(fmt_of(EDGE) == FMT, "detected: no $schema, 'shared' first with 'frames'")
check(fmt_of(b'{"exporter":"speedscope@1.20.0","profiles":[],"shared":{"frames":[]}}') == FMT, "detected: exporter speedscope@")
check(fmt_of(b'{"version":"0.0.1","$schema":"https://www.speedscope.app/file-format-schema.json","profiles":[]}') == FMT,
      "detected: $schema after version")
check(fmt_of(b'{"traceEvents":[],"shared":{"frames":[]}}') == "chrome", "a Chrome trace object stays chrome")
check(fmt_of(b'{"profiles":[],"shared":{"frames":[]}}') == FMT, "detected: sorted keys without $schema")
check(fmt_of(b'{"$schema":"https://json-schema.org/draft-07/schema","profiles":[]}') != FMT, "another $schema is not claimed")
if os.path.isdir(os.path.join("..", "shared", "corpus")):
    claimed = []
    for d, _, fs in os.walk(os.path.join("..", "shared", "corpus")):
        for f in fs:
            if f.endswith(".md") or f.endswith(".proto"):
                continue
            p = os.path.join(d, f)
            if (fmt_of(p) == FMT) != f.endswith(".speedscope.json"):
                claimed.append((p, fmt_of(p)))
    check(claimed == [], "corpus: exactly the .speedscope.json files are speedscope", claimed)
else:
    skip_part("detection over the corpus (../shared/corpus absent)")

E = "SELECT count(*) FROM profile_events(?, 'speedscope')"
for blob, want in [
        (b" ", "the input ends inside a value at byte 1 (line 1, column 2; cut short?): expected a speedscope JSON object '{'"),
        (b"[]", "byte 0 (line 1, column 1): expected a speedscope JSON object '{'"),
        (b'{"shared":{"frames":[]}}', "byte 0 (line 1, column 1): a speedscope file has a 'profiles' array; this object has none"),
        (b'{"profiles":{}}', "byte 12 (line 1, column 13): 'profiles' is not an array"),
        (b'{"profiles":[],"shared":[]}', "byte 24 (line 1, column 25): 'shared' is not an object"),
        (b'{"profiles":[],"shared":{"frames":{}}}', "byte 34 (line 1, column 35): 'frames' is not an array"),
        (b'{"profiles":[1]}', "byte 13 (line 1, column 14): profile 0 is not an object"),
        (b'{"profiles":[{"type":"evented","events":{}}]}', "byte 40 (line 1, column 41): profile 0: 'events' is not an array"),
        (b'{"profiles":[]} []', "byte 16 (line 1, column 17): unexpected bytes after the speedscope JSON"),
        (b'{"profiles":[{"samples":[[0,]]}]}', "byte 28 (line 1, column 29): expected a JSON value")]:
    got = error(E, (blob,))
    check(got is not None and got.endswith(want), f"error for {blob!r}: ...{want}", got)

for path in (MULTI, EDGE):
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

# hostile numbers: frame indices beyond 2^32, negative, fractional, as strings; weights beyond int64
# ns, whose running sum leaves int64; an 'at' beyond int64 ns
hostile = (b'{"shared":{"frames":[{"name":"a"}]},"profiles":['
           b'{"type":"sampled","name":"s","unit":"seconds","startValue":0,"samples":[[4294967296],[-1],[0.5],["0"],[0],[0],[0]],'
           b'"weights":[1,1,1,1e300,9000000000,9000000000,1]},'
           b'{"type":"evented","name":"e","unit":"seconds","events":[{"type":"O","frame":0,"at":1e300},{"type":"O","frame":0,"at":1},'
           b'{"type":"C","frame":0,"at":9223372036.854775807}]}]}')
r = rows("SELECT id, ts, dur, stack_id FROM profile_events(?, 'speedscope') WHERE cat = 's'", (hostile,))
check(r == [{"id": 0, "ts": 0, "dur": 1000000000, "stack_id": None}, {"id": 1, "ts": 1000000000, "dur": 1000000000, "stack_id": None},
            {"id": 2, "ts": 2000000000, "dur": 1000000000, "stack_id": None}, {"id": 3, "ts": 3000000000, "dur": 0, "stack_id": None},
            {"id": 4, "ts": 3000000000, "dur": 9000000000000000000, "stack_id": 1},
            {"id": 5, "ts": 9000000003000000000, "dur": 9000000000000000000, "stack_id": 1},
            {"id": 6, "ts": None, "dur": 1000000000, "stack_id": 1}], "hostile: sampled rows", r)
r = rows("SELECT ts, dur FROM profile_events(?, 'speedscope') WHERE cat = 'e'", (hostile,))
check(r == [{"ts": 1000000000, "dur": 9223372035854775807}], "hostile: the 'at' beyond int64 ns is ignored", r)
msgs = [r["value"] for r in rows("SELECT value FROM profile_metadata(?, 'speedscope') WHERE scope = 'diagnostic'", (hostile,))]
for want in ["names frame 4294967296", "names frame -1", "names frame 0.5", 'names frame "0"',
             "a weight that is not a number of its unit within int64 ns; taken as 0",
             "the sum of the weights leaves int64 ns", "an event without a numeric 'at' (within int64 ns)"]:
    check(any(want in m for m in msgs), f"hostile: diagnostic {want!r}", msgs)

done()
