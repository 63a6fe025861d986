"""pprof profiles (perftools.profiles.Profile, ext/formats/pprof.c), checked against an independent decoder
and against values worked out by hand:

  1. the corpus file ../shared/corpus/stacks/speedscope-pprof-simple.prof (a gzip'd Go 1.10 CPU
     profile): decoded with `protoc --decode` over our own transcription of profile.proto
     (tests/data/stacks/pprof_profile.proto), a few lines of Python compute per function the self
     and total (once per sample, however often the function recurses) sample counts and CPU ns,
     the call tree's paths with their counts, each sample's dur / args, and the metadata; SQL over
     profile_records (a recursive CTE walking each node's ancestors) and profile_events must give
     the same; plus the facts ../shared/corpus/README.md section 8 states;
  2. tests/data/stacks/pprof_small.pb: byte for byte `protoc --encode` of pprof_small.txtpb, whose
     header states every row (inlined frames, a location without lines, mappings, labels);
  3. hand-made files written here with a small varint writer: packed, unpacked and mixed
     location_id / value encodings; a time type that is not the first sample type (period_type,
     default_sample_type, µs / ms / s units); labels (str and num, num_unit, a key given twice,
     pid / tid / thread, comm, thread_comm, timestamp_ns); ids beyond the dense range;
  4. damage: ids that point nowhere, duplicate ids, string indexes outside string_table,
     string_table[0] not '', negative and huge values, value counts that differ, a wrong wire type,
     a damaged sub-message, time_nanos twice — each a diagnostic naming its byte, the rest read;
     errors for a damaged top level and for another message read as pprof; every prefix of the
     seed files and random byte flips (no crash; what loads reads back as valid JSON); an empty
     file and an empty Profile;
  5. detection: the corpus file, the seeds and the hand files detect as 'pprof' without the format
     argument, and the other corpus stacks files do not.
Parts needing ../shared/corpus or protoc skip with a SKIP line. Speed is not asserted."""
import codecs
import gzip
import json
import os
import random
import shutil
import subprocess
import tempfile

import testlib
from testlib import check, connect, done, skip_part

DATA = os.path.join("tests", "data", "stacks")
PROTO = "pprof_profile.proto"
CORPUS = os.path.join("..", "shared", "corpus", "stacks")
PROF = os.path.join(CORPUS, "speedscope-pprof-simple.prof")
SMALL = os.path.join(DATA, "pprof_small.pb")
EDGE = os.path.join(DATA, "pprof_edge.pb")
TMP = tempfile.mkdtemp(prefix="test_pprof.")
HAVE_PROTOC = shutil.which("protoc") is not None

db = connect()


def rows(sql, args=()):
    return testlib.rows(db, sql, args)


def error(sql, args=()):
    return testlib.error(db, sql, args)


def recs(src, fmt=None):
    return rows("SELECT * FROM profile_records(?, ?) ORDER BY record_id", (src, fmt))


def evs(src, fmt=None):
    return rows("SELECT * FROM profile_events(?, ?) ORDER BY id", (src, fmt))


def meta(src, scope="pprof", fmt=None):
    """scope's metadata: key -> value (a key given more than once: the list of its values)."""
    out = {}
    for r in rows("SELECT key, value FROM profile_metadata(?, ?) WHERE scope = ?", (src, fmt, scope)):
        if r["key"] in out:
            if not isinstance(out[r["key"]], list) or r["key"] not in ("sample_type", "comment", "mapping"):
                out[r["key"]] = [out[r["key"]]]
            out[r["key"]].append(r["value"])
        else:
            out[r["key"]] = [r["value"]] if r["key"] in ("sample_type", "comment", "mapping") else r["value"]
    return out


def diags(src, fmt=None):
    """The diagnostic rows: (kind, message, byte_offset)."""
    return [(r["key"], r["value"], r["byte_offset"]) for r in rows(
        "SELECT key, value, byte_offset FROM profile_metadata(?, ?) WHERE scope = 'diagnostic' "
        "AND key NOT LIKE '%\\_count' ESCAPE '\\'", (src, fmt))]


def fmt_of(src):
    """The detected format, or None when the source does not load."""
    if error("SELECT count(*) FROM profile_metadata(?)", (src,)):
        return None
    r = rows("SELECT value FROM profile_metadata(?) WHERE scope = 'capture' AND key = 'format'", (src,))
    return r[0]["value"] if r else None


def write(name, data):
    path = os.path.join(TMP, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


# ------------------------------------------------------------------ a protobuf writer (ours)

varint = testlib.pb_varint                  # int64 negatives: ten bytes, two's complement


def tag(num, wt):
    return varint(num << 3 | wt)


def fv(num, v):
    """A varint field."""
    return tag(num, 0) + varint(v)


def fb(num, b):
    """A length-delimited field."""
    return tag(num, 2) + varint(len(b)) + b


def packed(num, vs):
    return fb(num, b"".join(varint(v) for v in vs))


def unpacked(num, vs):
    return b"".join(fv(num, v) for v in vs)


class Strings:
    """A string table: s(text) gives its index ('' is 0)."""

    def __init__(self, first=""):
        self.a = [first]
        self.ix = {first: 0}

    def s(self, t):
        if t not in self.ix:
            self.ix[t] = len(self.a)
            self.a.append(t)
        return self.ix[t]

    def vt(self, typ, unit):
        return fv(1, self.s(typ)) + fv(2, self.s(unit))

    def table(self):
        return b"".join(fb(6, t.encode() if isinstance(t, str) else t) for t in self.a)


def function(st, fid, name, filename="", system_name=None, start_line=0):
    b = fv(1, fid) + fv(2, st.s(name)) + fv(3, st.s(name if system_name is None else system_name))
    if filename:
        b += fv(4, st.s(filename))
    if start_line:
        b += fv(5, start_line)
    return fb(5, b)


def location(lid, address=0, lines=(), mapping_id=0):
    """lines: (function_id, line) pairs, innermost first."""
    b = fv(1, lid)
    if mapping_id:
        b += fv(2, mapping_id)
    if address:
        b += fv(3, address)
    for fn, ln in lines:
        b += fb(4, fv(1, fn) + (fv(2, ln) if ln else b""))
    return fb(4, b)


def sample(locs, values, labels=b"", pack=True):
    enc = packed if pack else unpacked
    return fb(2, enc(1, locs) + enc(2, values) + labels)


def label(st, key, s=None, num=None, unit=None):
    b = fv(1, st.s(key))
    if s is not None:
        b += fv(2, st.s(s))
    if num is not None:
        b += fv(3, num)
    if unit is not None:
        b += fv(4, st.s(unit))
    return fb(3, b)


# ------------------------------------------------------------------ protoc's text format, read

def parse_text(text):
    """protoc --decode output as nested dicts: field -> list of values (ints, bytes, dicts)."""
    stack = [{}]
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        if line.endswith("{"):
            d = {}
            stack[-1].setdefault(line[:-1].strip(), []).append(d)
            stack.append(d)
        elif line == "}":
            stack.pop()
        else:
            k, v = line.split(": ", 1)
            if v.startswith('"'):
                v = codecs.escape_decode(v[1:-1].encode("latin-1"))[0]
            elif v in ("true", "false"):
                v = v == "true"
            else:
                v = int(v)
            stack[-1].setdefault(k, []).append(v)
    return stack[0]


def protoc_decode(data):
    p = subprocess.run(["protoc", "-I" + DATA, "--decode=perftools.profiles.Profile", PROTO],
                       input=data, capture_output=True)
    if p.returncode != 0:
        raise RuntimeError(p.stderr.decode())
    return parse_text(p.stdout.decode("latin-1"))


def one(d, k, default=0):
    v = d.get(k)
    return v[-1] if v else default


TIME_UNITS = {"nanoseconds": 1, "microseconds": 1000, "milliseconds": 10**6, "seconds": 10**9}


class Model:
    """What a pprof profile says, computed from the decoded message by the rules of docs/pprof.md:
    per sample its frames root first, its weight and dur; per function (name) self and total."""

    def __init__(self, P):
        st = [s.decode("utf-8", "replace") for s in P.get("string_table", [])]
        self.S = lambda i: "" if i == 0 else (st[i] if 0 <= i < len(st) else None)
        self.types = [(self.S(one(t, "type")), self.S(one(t, "unit"))) for t in P.get("sample_type", [])]
        funcs = {one(f, "id"): f for f in P.get("function", [])}
        maps = {one(m, "id"): m for m in P.get("mapping", [])}
        locs = {one(l, "id"): l for l in P.get("location", [])}
        pt = P.get("period_type")
        per_type = self.S(one(pt[-1], "type")) if pt else None
        dflt = self.S(one(P, "default_sample_type")) if one(P, "default_sample_type") else None
        self.i_dur = None
        for want in (dflt, per_type, "*"):
            for k, (t, u) in enumerate(self.types):
                if u in TIME_UNITS and (t == want or want == "*") and self.i_dur is None and want:
                    self.i_dur = k
        self.i_w = next((k for k, (t, u) in enumerate(self.types) if u == "count"), None)
        self.time_nanos = one(P, "time_nanos", None)
        self.samples = []          # (frames root first as (name, category), weight, dur ns, values)
        for s in P.get("sample", []):
            frames = []
            for lid in reversed(s.get("location_id", [])):
                loc = locs[lid]
                m = maps.get(one(loc, "mapping_id"))
                mfile = (self.S(one(m, "filename")) or None) if m else None
                addr = "0x%x" % one(loc, "address")
                lines = loc.get("line", [])
                if not lines:
                    frames.append((addr, mfile))
                own = []                 # one location's frames: equal neighbours are one frame
                for ln in reversed(lines):
                    f = funcs.get(one(ln, "function_id"))
                    name = (self.S(one(f, "name")) or self.S(one(f, "system_name")) or addr) if f else addr
                    cat = (self.S(one(f, "filename")) or mfile) if f else mfile
                    if not own or own[-1] != (name, cat):
                        own.append((name, cat))
                frames += own
            vals = s.get("value", [])
            w = vals[self.i_w] if self.i_w is not None else 1
            d = vals[self.i_dur] * TIME_UNITS[self.types[self.i_dur][1]] if self.i_dur is not None else None
            self.samples.append((frames, w, d, vals))

    def per_function(self):
        """name -> [self weight, total weight, self ns, total ns] (total once per sample)."""
        out = {}
        for frames, w, d, _ in self.samples:
            if not frames:
                continue
            for name in set(n for n, _ in frames):
                e = out.setdefault(name, [0, 0, 0, 0])
                e[1] += w
                e[3] += d or 0
            e = out.setdefault(frames[-1][0], [0, 0, 0, 0])
            e[0] += w
            e[2] += d or 0
        return out

    def paths(self):
        """'a;b;c' -> [count, self ns] for every node of the call tree (count 0 for inner nodes)."""
        out = {}
        for frames, w, d, _ in self.samples:
            for k in range(1, len(frames) + 1):
                out.setdefault(";".join(n for n, _ in frames[:k]), [0, 0])
            if frames:
                e = out[";".join(n for n, _ in frames)]
                e[0] += w
                e[1] += d or 0
        return out


# ------------------------------------------------------------------ SQL side

def sql_per_function(src, fmt=None):
    """name -> [self count, total count, self ns, total ns] from profile_records alone: self sums
    the nodes of the name; total walks every node's ancestors (recursive CTE) and counts a node's
    own samples once for each distinct name on its path."""
    q = """
      WITH r AS (SELECT record_id, parent_record_id, name, count, coalesce(self_ns, 0) AS ns
                   FROM profile_records(?1, ?2)),
           anc(leaf, node) AS (SELECT record_id, record_id FROM r
                               UNION ALL
                               SELECT anc.leaf, r.parent_record_id FROM anc JOIN r ON r.record_id = anc.node
                                WHERE r.parent_record_id IS NOT NULL),
           tot AS (SELECT DISTINCT anc.leaf, rn.name FROM anc JOIN r rn ON rn.record_id = anc.node)
      SELECT s.name, s.c, t.c, s.ns, t.ns FROM
        (SELECT name, sum(count) AS c, sum(ns) AS ns FROM r GROUP BY name) s
        JOIN (SELECT tot.name, sum(l.count) AS c, sum(l.ns) AS ns FROM tot JOIN r l ON l.record_id = tot.leaf
               GROUP BY tot.name) t ON t.name = s.name"""
    return {r[0]: [r[1], r[2], r[3], r[4]] for r in db.execute(q, (src, fmt))}


def sql_paths(src, fmt=None):
    q = """
      WITH RECURSIVE r AS (SELECT * FROM profile_records(?1, ?2)),
           p(id, path) AS (SELECT record_id, name FROM r WHERE parent_record_id IS NULL
                           UNION ALL
                           SELECT r.record_id, p.path || ';' || r.name FROM r JOIN p ON r.parent_record_id = p.id)
      SELECT p.path, r.count, coalesce(r.self_ns, 0) FROM p JOIN r ON r.record_id = p.id"""
    out = {}
    for path, c, ns in db.execute(q, (src, fmt)):
        check(path not in out, f"{src}: path {path} is one node")
        out[path] = [c, ns]
    return out


def loads(text, what):
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        check(False, f"{what}: not JSON", text)
        return None


def compare_model(src, model, what, fmt=None):
    """Every check of part 1 that the model supports, for any file."""
    ours = sql_per_function(src, fmt)
    ref = model.per_function()
    check(ours == ref, f"{what}: per-function [self, total, self ns, total ns]",
          sorted(set(map(str, ours.items())) ^ set(map(str, ref.items())))[:6])
    check(sql_paths(src, fmt) == model.paths(), f"{what}: call tree paths and counts")
    ev = evs(src, fmt)
    check(len(ev) == len(model.samples), f"{what}: one event per sample", len(ev))
    for e, (frames, w, d, vals) in zip(ev, model.samples):
        check(e["dur"] == d, f"{what}: event {e['id']} dur", (e["dur"], d))
        check(e["name"] == (frames[-1][0] if frames else None), f"{what}: event {e['id']} name = leaf", e["name"])
        a = loads(e["args"], f"{what}: event {e['id']} args")
        want = {f"{t}/{u}": v for (t, u), v in zip(model.types, vals)}
        got = {k: v for k, v in (a or {}).items() if k not in ("labels", "num_unit")}
        check(got == want, f"{what}: event {e['id']} args values", (got, want))
        check(e["ph"] == "P", f"{what}: ph 'P'")
    return ev


# ------------------------------------------------------------------ 1. the corpus file

def part_corpus():
    if not os.path.exists(PROF):
        skip_part(f"pprof corpus: {PROF} not found (../shared/corpus absent)")
        return
    check(fmt_of(PROF) == "pprof", "corpus .prof detects as pprof", fmt_of(PROF))
    raw = gzip.decompress(open(PROF, "rb").read())
    for name in sorted(os.listdir(CORPUS)):
        if name != os.path.basename(PROF):
            check(fmt_of(os.path.join(CORPUS, name)) != "pprof", f"{name} is not taken for pprof")
    if not HAVE_PROTOC:
        skip_part("pprof corpus against protoc --decode: protoc not installed (Debian package protobuf-compiler)")
        return
    P = protoc_decode(raw)
    model = Model(P)
    ev = compare_model(PROF, model, "corpus")
    # the facts of ../shared/corpus/README.md section 8
    counts = [vals[0] for _, _, _, vals in model.samples]
    check(counts == [14, 26, 27, 11, 25, 22, 22, 1, 2], "corpus: sample counts as the README says", counts)
    check(sum(e["dur"] for e in ev) == 1500000000, "corpus: 1.5 s of CPU", sum(e["dur"] for e in ev))
    check(all(e["ts"] == 1537130863468834518 for e in ev), "corpus: every ts is time_nanos")
    check(all(e["cat"] == "cpu/nanoseconds" for e in ev), "corpus: cat cpu/nanoseconds")
    check(all(e["pid"] is None and e["tid"] is None for e in ev), "corpus: no pid/tid labels: NULL")
    m = meta(PROF)
    check(m.get("sample_type") == ["samples/count", "cpu/nanoseconds"], "corpus: sample_type", m.get("sample_type"))
    check(m.get("period_type") == "cpu/nanoseconds" and m.get("period") == 10000000, "corpus: period")
    check(m.get("time_nanos") == 1537130863468834518 and m.get("duration_nanos") == 1911739507, "corpus: times")
    check((m.get("samples"), m.get("locations"), m.get("functions"), m.get("mappings"), m.get("strings"))
          == (9, 30, 25, 0, 39), "corpus: counts", m)
    check(m.get("dur_sample_type") == "cpu/nanoseconds" and m.get("weight_sample_type") == "samples/count",
          "corpus: chosen columns")
    check(diags(PROF) == [], "corpus: no diagnostic", diags(PROF)[:3])
    rec = recs(PROF)
    check(sum(r["count"] for r in rec) == 150, "corpus: 150 samples in the tree")
    check(sum(r["time_ns"] for r in rec if r["parent_record_id"] is None) == 1500000000, "corpus: roots' time = 1.5 s")
    # attrs: the location through which each node was first reached (Python replays the order)
    funcs = {one(f, "id"): f for f in P["function"]}
    locs = {one(l, "id"): l for l in P["location"]}
    S = model.S
    first = {}
    for s in P["sample"]:
        path = []
        for lid in reversed(s["location_id"]):
            loc = locs[lid]
            ln = loc["line"][0]
            f = funcs[one(ln, "function_id")]
            path.append(S(one(f, "name")))
            first.setdefault(tuple(path), (loc, ln, f))
    order = list(first)                      # record_id = order of first appearance
    check(len(order) == len(rec), "corpus: one record per distinct path", (len(order), len(rec)))
    for r, path in zip(rec, order):
        loc, ln, f = first[path]
        a = loads(r["attrs"], f"corpus record {r['record_id']} attrs")
        want = {"function": S(one(f, "name")), "system_name": S(one(f, "system_name")),
                "filename": S(one(f, "filename")), "line": one(ln, "line"),
                "address": "0x%x" % one(loc, "address"), "location_id": one(loc, "id")}
        check(a == want, f"corpus record {r['record_id']} attrs", (a, want))
        check(r["name"] == path[-1] and r["category"] == S(one(f, "filename")) and r["depth"] == len(path) - 1,
              f"corpus record {r['record_id']} name/category/depth")
        check(r["line"] is None, "corpus: records have no line")


# ------------------------------------------------------------------ 2. the seed pprof_small.pb

def part_small():
    if HAVE_PROTOC:
        p = subprocess.run(["protoc", "-I" + DATA, "--encode=perftools.profiles.Profile", PROTO],
                           stdin=open(os.path.join(DATA, "pprof_small.txtpb"), "rb"), capture_output=True)
        check(p.returncode == 0 and p.stdout == open(SMALL, "rb").read(), "pprof_small.pb is protoc's encoding of its .txtpb")
        compare_model(SMALL, Model(protoc_decode(open(SMALL, "rb").read())), "pprof_small")
    else:
        skip_part("pprof_small.pb against protoc: protoc not installed (Debian package protobuf-compiler)")
    check(fmt_of(SMALL) == "pprof", "pprof_small.pb detects as pprof")
    rec = recs(SMALL)
    got = [(r["record_id"], r["parent_record_id"], r["name"], r["category"], r["count"], r["self_ns"], r["time_ns"], r["depth"])
           for r in rec]
    want = [(1, None, "main.main", "/app/main.go", 0, 0, 100000000, 0),
            (2, 1, "main.work", "/app/main.go", 4, 40000000, 90000000, 1),
            (3, 2, "strings.Index", "/usr/lib/go/src/strings/strings.go", 3, 30000000, 50000000, 2),
            (4, 3, "0x7f0000001234", "libc.so.6", 2, 20000000, 20000000, 3),
            (5, 1, "main.idle", "/app/main.go", 1, 10000000, 10000000, 1)]
    check(got == want, "pprof_small: the call tree of the .txtpb header", got)
    a = [loads(r["attrs"], "pprof_small attrs") for r in rec]
    mp1 = {"id": 1, "filename": "/app/server", "build_id": "4f1c2d"}
    check(a[1] == {"function": "main.work", "system_name": "main.work", "filename": "/app/main.go", "start_line": 20,
                   "line": 25, "address": "0x402000", "location_id": 2, "mapping": mp1},
          "pprof_small: the caller line of an inlined location", a[1])
    check(a[2].get("inlined") is True and a[2].get("line") == 105 and a[2].get("location_id") == 2,
          "pprof_small: the inlined callee", a[2])
    check(a[3] == {"address": "0x7f0000001234", "location_id": 3, "mapping": {"id": 2, "filename": "libc.so.6"}},
          "pprof_small: a location without lines", a[3])
    ev = evs(SMALL)
    got = [(e["ts"], e["dur"], e["name"], e["cat"], e["pid"], e["tid"], e["process_name"], e["thread_name"], e["stack_id"])
           for e in ev]
    T = 1700000000000000000
    want = [(T, 30000000, "strings.Index", "cpu/nanoseconds", 100, 101, "server", None, 3),
            (T, 20000000, "0x7f0000001234", "cpu/nanoseconds", 100, 101, "server", None, 4),
            (T, 40000000, "main.work", "cpu/nanoseconds", 100, 102, None, "worker", 2),
            (T, 10000000, "main.idle", "cpu/nanoseconds", None, None, None, None, 5)]
    check(got == want, "pprof_small: events", got)
    args = [loads(e["args"], "pprof_small args") for e in ev]
    check(args[0] == {"samples/count": 3, "cpu/nanoseconds": 30000000,
                      "labels": {"pid": 100, "tid": 101, "comm": "server", "request": "/api"}}, "pprof_small: args 0", args[0])
    check(args[1] == {"samples/count": 2, "cpu/nanoseconds": 20000000, "labels": {"pid": 100, "tid": 101, "size": 512},
                      "num_unit": {"size": "bytes"}}, "pprof_small: args 1 (num_unit)", args[1])
    check(list(args[0]["labels"]) == ["pid", "tid", "comm", "request"], "pprof_small: label keys in file order")
    check(args[3] == {"samples/count": 1, "cpu/nanoseconds": 10000000}, "pprof_small: no labels member without labels")
    m = meta(SMALL)
    check(len(m.get("mapping", [])) == 2, "pprof_small: two mapping rows")
    mp = loads(m["mapping"][0], "mapping metadata")
    check(mp == {"id": 1, "memory_start": 4194304, "memory_limit": 5242880, "file_offset": 0, "filename": "/app/server",
                 "build_id": "4f1c2d", "has_functions": True, "has_filenames": True, "has_line_numbers": True,
                 "has_inline_frames": True}, "pprof_small: mapping metadata", mp)
    check(diags(SMALL) == [], "pprof_small: no diagnostic", diags(SMALL))


# ------------------------------------------------------------------ 3. encodings, types, labels

def part_encodings():
    st = Strings()
    types = fb(1, st.vt("samples", "count")) + fb(1, st.vt("cpu", "nanoseconds"))
    funcs = function(st, 1, "A", "a.go") + function(st, 2, "B", "b.go") + function(st, 3, "C", "c.go")
    locs = location(1, 0x10, [(1, 1)]) + location(2, 0x20, [(2, 2)]) + location(3, 0x30, [(3, 3)])
    # the same stack C <- B <- A (leaf first: 3, 2, 1) four ways, then a two-location stack
    s1 = sample([3, 2, 1], [1, 10], pack=True)
    s2 = sample([3, 2, 1], [2, 20], pack=False)
    s3 = fb(2, fv(1, 3) + packed(1, [2, 1]) + fv(2, 4) + packed(2, [40]))          # mixed
    s4 = fb(2, packed(2, [8]) + packed(1, [3]) + unpacked(1, [2, 1]) + unpacked(2, [80]))  # values first
    s5 = sample([2, 1], [16, 160], pack=False)
    data = types + s1 + s2 + s3 + s4 + s5 + locs + funcs + st.table()
    src = write("enc.pb", data)
    check(fmt_of(src) == "pprof", "encodings: detects as pprof")
    r = {x["name"]: x for x in recs(src)}
    check(len(r) == 3 and r["C"]["count"] == 1 + 2 + 4 + 8 and r["C"]["self_ns"] == 150
          and r["B"]["count"] == 16 and r["A"]["time_ns"] == 310,
          "encodings: packed, unpacked and mixed runs read alike", {k: (v["count"], v["self_ns"]) for k, v in r.items()})
    ev = evs(src)
    check([e["dur"] for e in ev] == [10, 20, 40, 80, 160] and [e["stack_id"] for e in ev] == [3, 3, 3, 3, 2],
          "encodings: dur and stack of each sample", [(e["dur"], e["stack_id"]) for e in ev])
    check(ev[0]["ts"] is None, "encodings: no time_nanos: ts NULL", ev[0]["ts"])
    if HAVE_PROTOC:
        compare_model(src, Model(protoc_decode(data)), "encodings")

    # large and sparse ids (the hash side of the id maps)
    st = Strings()
    big = (1 << 63) + 5
    data = (fb(1, st.vt("samples", "count")) + sample([big, 7 << 40], [3])
            + location(big, 0x1, [(1 << 62, 0)]) + location(7 << 40, 0x2, [(9, 0)])
            + function(st, 1 << 62, "leaf") + function(st, 9, "root") + st.table())
    src = write("bigids.pb", data)
    r = recs(src)
    check([(x["name"], x["count"]) for x in r] == [("root", 0), ("leaf", 3)], "large ids: mapped", r)
    check(diags(src) == [], "large ids: no diagnostic", diags(src))

    # the time column is not the first type: period_type, default_sample_type and units
    def prof(types, vals, period=None, default=None, extra=b""):
        st = Strings()
        b = b"".join(fb(1, st.vt(t, u)) for t, u in types)
        b += sample([1], vals) + location(1, 0x1, [(1, 0)]) + function(st, 1, "f")
        if period:
            b += fb(11, st.vt(*period))
        if default:
            b += fv(14, st.s(default))
        return b + extra + st.table()

    cases = [  # (types, values, period_type, default, dur, weight, cat)
        ([("alloc_objects", "count"), ("alloc_space", "bytes"), ("wall", "microseconds")], [5, 4096, 7],
         None, None, 7000, 5, "wall/microseconds"),
        ([("samples", "count"), ("wall", "microseconds"), ("cpu", "milliseconds")], [2, 3, 4],
         ("cpu", "milliseconds"), None, 4000000, 2, "cpu/milliseconds"),
        ([("samples", "count"), ("wall", "microseconds"), ("cpu", "milliseconds")], [2, 3, 4],
         ("cpu", "milliseconds"), "wall", 3000, 2, "wall/microseconds"),
        ([("samples", "count"), ("delay", "seconds")], [1, 2], None, None, 2000000000, 1, "delay/seconds"),
        ([("inuse_objects", "count"), ("inuse_space", "bytes")], [6, 100], None, "inuse_space", None, 6,
         "inuse_space/bytes"),
        ([("inuse_objects", "count"), ("inuse_space", "bytes")], [6, 100], None, None, None, 6, "inuse_space/bytes"),
        ([("x", "ns"), ("y", "us")], [9, 1], ("y", "us"), None, 1000, 1, "y/us"),
    ]
    for k, (types, vals, period, default, dur, weight, cat) in enumerate(cases):
        src = write(f"types{k}.pb", prof(types, vals, period, default))
        e = evs(src, "pprof")
        r = recs(src, "pprof")
        check(len(e) == 1 and e[0]["dur"] == dur and e[0]["cat"] == cat and r[0]["count"] == weight,
              f"sample types case {k}: dur {dur}, cat {cat}, weight {weight}",
              (e[0]["dur"], e[0]["cat"], r[0]["count"]) if e and r else None)
        a = loads(e[0]["args"], f"types {k} args") if e else {}
        check(a == {f"{t}/{u}": v for (t, u), v in zip(types, vals)}, f"sample types case {k}: args", a)
    m = meta(write("types1.pb", prof(*cases[1][:4])))
    check(m.get("dur_sample_type") == "cpu/milliseconds" and m.get("weight_sample_type") == "samples/count"
          and m.get("period_type") == "cpu/milliseconds", "sample types: chosen columns in metadata", m)
    # a type/unit given twice: the second key gets "#<index>"
    src = write("dup_types.pb", prof([("cpu", "nanoseconds"), ("cpu", "nanoseconds")], [1, 2]))
    a = loads(evs(src, "pprof")[0]["args"], "dup types args")
    check(a == {"cpu/nanoseconds": 1, "cpu/nanoseconds#1": 2}, "a repeated type/unit: '#1' appended", a)

    # labels: pid/tid/thread/comm/thread_comm/timestamp_ns, a repeated key, num_unit, negative num
    st = Strings()
    L1 = (label(st, "pid", num=7) + label(st, "thread", s="main") + label(st, "comm", s="app")
          + label(st, "span", num=-3) + label(st, "span", num=4, unit="ms") + label(st, "tag", s="x")
          + label(st, "timestamp_ns", num=123456789))
    L2 = label(st, "pid", num=7) + label(st, "tid", num=8) + label(st, "thread", s="ignored") + label(st, "thread_comm", s="w1")
    L3 = label(st, "pid", s="p-text") + label(st, "tid", s="t-text")
    data = (fb(1, st.vt("samples", "count")) + sample([1], [1], L1) + sample([1], [1], L2) + sample([1], [1], L3)
            + sample([1], [1], label(st, "only", s="one"))
            + location(1, 0x1, [(1, 0)]) + function(st, 1, "f") + fv(9, 1000) + st.table())
    src = write("labels.pb", data)
    ev = evs(src)
    got = [(e["pid"], e["tid"], e["process_name"], e["thread_name"], e["ts"]) for e in ev]
    check(got == [(7, "main", "app", None, 123456789), (7, 8, None, "w1", 1000), ("p-text", "t-text", None, None, 1000),
                  (None, None, None, None, 1000)], "labels: pid/tid/thread, comm/thread_comm, timestamp_ns", got)
    a = loads(ev[0]["args"], "labels args")
    check(a == {"samples/count": 1, "labels": {"pid": 7, "thread": "main", "comm": "app", "span": [-3, 4], "tag": "x",
                                               "timestamp_ns": 123456789},
                "num_unit": {"span": [None, "ms"]}}, "labels: a key given twice is an array, num_unit aligned", a)
    if HAVE_PROTOC:
        P = protoc_decode(data)
        check(len(P["sample"][0]["label"]) == 7, "labels: the file is what the test meant (protoc)")


# ------------------------------------------------------------------ 4. damage

def damage_bytes():
    """The damaged profile of part 4 (also the fuzz seed tests/data/stacks/pprof_edge.pb) and the
    bytes of its sample with a missing location."""
    st = Strings("x")                        # string_table[0] is 'x', not ''
    types = fb(1, st.vt("samples", "count")) + fb(1, st.vt("cpu", "seconds"))
    s_missing = fb(2, fv(1, 1) + fv(1, 555) + fv(1, 2) + packed(2, [1, 10]))
    s_neg = sample([1], [-2, -5])
    s_short = sample([1], [3])
    s_huge = sample([1], [1, 1 << 62])                                 # 2^62 s is beyond int64 ns
    funcs = (function(st, 1, "leaf", "l.go") + function(st, 2, "root", "r.go")
             + fb(5, fv(1, 3) + fv(2, 999) + fv(3, st.s("sys3")))      # name outside string_table
             + fb(5, fv(1, 4) + fb(2, b"oops")))                       # name with the wrong wire type
    locs = (location(1, 0xA, [(1, 0)]) + location(2, 0xB, [(2, 0)])
            + location(3, 0xC, [(77, 0)], mapping_id=9)                # function and mapping missing
            + location(1, 0xD, [(2, 0)])                               # location 1 again: the last wins
            + fb(4, fv(1, 5) + fv(3, 0xE) + b"\x20\xff"))              # damaged: a truncated varint inside
    data = (types + s_missing + s_neg + s_short + s_huge + sample([3, 4, 5], [1, 1]) + sample([5], [1, 1])
            + locs + funcs + fv(9, 50) + fv(9, 60) + fv(16, 42) + st.table())
    return data, s_missing


def part_damage():
    data, s_missing = damage_bytes()
    src = write("damage.pb", data)
    with open(EDGE, "rb") as f:
        check(f.read() == data, "pprof_edge.pb is what this test writes (regenerate: --write-seeds)")
    d = diags(src, "pprof")
    kinds = {}
    for k, msg, off in d:
        kinds.setdefault(k, []).append((msg, off))
    at = data.index(s_missing) + 2 + 2          # tag+len of the sample, then fv(1, 1): the varint 555's tag
    check(any("location_id 555 names no Location" in m and o == at and m.startswith(f"byte {at}:")
              for m, o in kinds.get("unknown_id", [])), "damage: a location_id with no Location names its byte",
          kinds.get("unknown_id"))
    check(any("function_id 77" in m for m, _ in kinds.get("unknown_id", [])), "damage: a function_id with no Function")
    check(any("mapping_id 9" in m for m, _ in kinds.get("unknown_id", [])), "damage: a mapping_id with no Mapping")
    check(any("Location id 1 is used again" in m for m, _ in kinds.get("duplicate_id", [])), "damage: duplicate id")
    other = " | ".join(m for m, _ in kinds.get("other", []))
    for frag in ("string_table[0] holds 1 bytes", "Function.name 999 is not an index of string_table",
                 "Function.name has wire type 2, expected 0", "truncated varint in Location",
                 "the time value -5 is negative", "the count value -2 is negative", "with 1 values for 2 sample types",
                 "beyond int64 ns", "time_nanos is given again"):
        check(frag in other, f"damage: diagnostic '{frag}'", other[:600])
    ev = evs(src, "pprof")
    check(len(ev) == 6, "damage: every sample is a row", len(ev))
    # sample 0: 1 (the LAST location 1: root) then 555 (left out) then 2 (root): the stack is root <- root? no:
    # leaf first [1, 555, 2]: root first 2 -> 1, and location 1 is now the one named 'root' (function 2)
    r = {x["record_id"]: x for x in recs(src, "pprof")}
    path0 = []
    x = r.get(ev[0]["stack_id"])
    while x:
        path0.insert(0, x["name"])
        x = r.get(x["parent_record_id"])
    check(path0 == ["root", "root"], "damage: the rest of the stack is read, the last location 1 is used", path0)
    check(ev[1]["dur"] is None, "damage: a negative time gives dur NULL", ev[1]["dur"])
    check(ev[0]["dur"] == 10 * 10**9, "damage: seconds to ns", ev[0]["dur"])
    check(ev[2]["dur"] is None, "damage: a missing time value gives dur NULL", ev[2]["dur"])
    check(ev[3]["dur"] is None, "damage: a huge time value gives dur NULL", ev[3]["dur"])
    check(all(e["ts"] == 60 for e in ev), "damage: the last time_nanos is used", [e["ts"] for e in ev])
    # sample 4: [3, 4, 5]: location 4 does not exist; 3's function is missing (named by address, category
    # NULL: mapping 9 is missing too); 5 was read up to the damage (id 5, address 0xE)
    path = []
    x = r.get(ev[4]["stack_id"])
    while x:
        path.insert(0, (x["name"], x["category"]))
        x = r.get(x["parent_record_id"])
    check(path == [("0xe", None), ("0xc", None)], "damage: frames named by their address", path)
    m = meta(src, fmt="pprof")
    check(m.get("#16") == 42, "damage: an unknown top-level field in metadata", m.get("#16"))
    # the function whose name is outside string_table: read by system_name
    st2 = Strings()
    data2 = (fb(1, st2.vt("samples", "count")) + sample([1], [1]) + location(1, 0x1, [(3, 0)])
             + fb(5, fv(1, 3) + fv(2, 999) + fv(3, st2.s("sys3"))) + st2.table())
    r2 = recs(write("badname.pb", data2), "pprof")
    check([x["name"] for x in r2] == ["sys3"], "damage: a name outside string_table falls back to system_name", r2)
    a = loads(r2[0]["attrs"], "badname attrs")
    check(a.get("function", 0) is None and a.get("system_name") == "sys3", "damage: attrs name null", a)

    # strings outside string_table in the sample types: one diagnostic each, however often used
    st4 = Strings()
    data4 = (fb(1, fv(1, 99) + fv(2, st4.s("count"))) + fb(1, st4.vt("cpu", "nanoseconds")) + sample([1], [2, 5])
             + location(1, 0x1, [(1, 0)]) + function(st4, 1, "f") + fv(14, 77) + st4.table())
    src = write("badtypes.pb", data4)
    d4 = [m for k, m, _ in diags(src, "pprof")]
    check(len(d4) == 2 and sum("ValueType.type 99" in m for m in d4) == 1 and sum("default_sample_type 77" in m for m in d4) == 1,
          "sample types outside string_table: one diagnostic each", d4)
    m4 = meta(src, fmt="pprof")
    check(m4.get("sample_type") == ["/count", "cpu/nanoseconds"] and m4.get("default_sample_type") is None
          and "default_sample_type" in m4, "sample types outside string_table read as ''/NULL", m4)
    e4 = evs(src, "pprof")
    check(e4[0]["dur"] == 5 and loads(e4[0]["args"], "badtypes args") == {"/count": 2, "cpu/nanoseconds": 5},
          "sample types outside string_table: the values still read", e4[0]["args"])

    # errors
    e = error("SELECT count(*) FROM profile_events(?, 'pprof')", (b"\x0a\x05\x08",))
    check(e is not None and "byte 1" in e and "Profile" in e, "error: a length past the end names the byte", e)
    e = error("SELECT count(*) FROM profile_events(?, 'pprof')", (fv(20, 1) + fv(21, 2),))
    check(e is not None and "another message" in e, "error: another message read as pprof", e)
    e = error("SELECT count(*) FROM profile_events(?, 'pprof')", (b"\x0b\x00",))
    check(e is not None and "wire type 3" in e, "error: a group wire type", e)
    e = error("SELECT count(*) FROM profile_events(?, 'pprof')", (b"",))
    check(e is not None and "empty" in e, "error: an empty BLOB", e)
    # an empty Profile: only string_table ['']
    src = write("empty_profile.pb", b"\x32\x00")
    check(evs(src, "pprof") == [] and recs(src, "pprof") == [] and meta(src, fmt="pprof").get("strings") == 1,
          "an empty Profile: no rows")

    # a profile with samples but no frame at all: args still names the values by sample type
    st3 = Strings()
    src = write("noframes.pb", fb(1, st3.vt("samples", "count")) + sample([], [4]) + st3.table())
    e3 = evs(src, "pprof")
    check(len(e3) == 1 and e3[0]["stack_id"] is None and e3[0]["name"] is None, "no frames: a row without a stack")
    check(loads(e3[0]["args"], "noframes args") == {"samples/count": 4},
          "no frames: args names the value by its sample type", e3[0]["args"])


def load_all(data, fmt):
    """Loads data (BLOB); on success reads every lazy column back. Returns the error or None."""
    e = error("SELECT count(*) FROM profile_events(?, ?)", (data, fmt))
    if e is None:
        for (a,) in db.execute("SELECT args FROM profile_events(?, ?)", (data, fmt)):
            if a is not None:
                loads(a, "args of damaged input")
        for (a,) in db.execute("SELECT attrs FROM profile_records(?, ?)", (data, fmt)):
            if a is not None:
                loads(a, "attrs of damaged input")
        db.execute("SELECT count(*) FROM profile_metadata(?, ?)", (data, fmt)).fetchall()
    return e


def part_prefixes():
    for path in (SMALL, EDGE):
        data = open(path, "rb").read()
        bad = 0
        for n in range(1, len(data)):
            e = load_all(data[:n], "pprof")
            if e is not None and "byte" not in e:
                bad += 1
            load_all(data[:n], None)
        check(bad == 0, f"{os.path.basename(path)}: every prefix loads or fails naming a byte", bad)
        rnd = random.Random(1234)
        for _ in range(300):
            b = bytearray(data)
            for _ in range(rnd.randint(1, 4)):
                b[rnd.randrange(len(b))] = rnd.randrange(256)
            load_all(bytes(b), "pprof")
        check(True, f"{os.path.basename(path)}: 300 random byte flips, no crash")


def write_seeds():
    """--write-seeds: regenerates tests/data/stacks/pprof_edge.pb (the bytes of part 4)."""
    with open(EDGE, "wb") as f:
        f.write(damage_bytes()[0])
    print("wrote", EDGE)


if __name__ == "__main__":
    import sys
    if "--write-seeds" in sys.argv:
        write_seeds()
        sys.exit(0)
    try:
        part_corpus()
        part_small()
        part_encodings()
        part_damage()
        part_prefixes()
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
    done()
