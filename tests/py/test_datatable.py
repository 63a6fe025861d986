"""The TensorBoard profile plugin's pre-rendered tool output as Google Visualization DataTable JSON
(format 'xprof_datatable', ext/formats/datatable.c), checked against an independent reading of the same
bytes with Python's json module (numbers kept as their literals, offsets found by a small walker
over json.JSONDecoder.raw_decode):

  1. every profile_records row (record_id, record_set, name, category, line, attrs with its keys in
     column order and every number exactly as written) and every 'table <i>' profile_metadata row
     (value, type, byte_offset) of the hand-made files tests/data/xprof/datatable_*.json and of the
     corpus file ../shared/corpus/xprof/xprof-demo-profile_demo.overview_page.json, plus the
     edge file's diagnostics and what the corpus README states about that file;
  2. detection: every such file without the format argument; the corpus's Chrome, XSpace and xprof
     files keep their formats; Chrome-like JSON is not claimed;
  3. errors: each structural error and malformed JSON names its byte (messages pinned); invalid
     UTF-8 is repaired with a diagnostic; the connection's max_json_depth holds; every prefix of
     the files is either the whole document or an error naming a byte, forced or detected;
  4. profile_events, profile_report and profile_import accept the format; record_id lookups;
  5. {} for an absent table (xprof's writer): an empty table, recorded in profile_metadata.
Corpus parts skip (with a SKIP line) when ../shared is absent."""
import json
import os
import re
import sqlite3
import tempfile

import testlib
from testlib import check, connect, done, skip_part

DATA = os.path.join("tests", "data", "xprof")
HAND = ["datatable_overview.json", "datatable_edge.json", "datatable_single.json"]
CORPUS = os.path.join("..", "shared", "corpus")
DEMO = os.path.join(CORPUS, "xprof", "xprof-demo-profile_demo.overview_page.json")
FMT = "xprof_datatable"

db = connect()


def rows(sql, args=()):
    return testlib.rows(db, sql, args)


def error(sql, args=()):
    """The error message of a query, or None when it runs."""
    return testlib.error(db, sql, args)


# ---------------------------------------------------------------------------------------------
# The reference reader

class Num(str):
    """A JSON number, kept as the literal the file has."""


DEC = json.JSONDecoder(parse_int=Num, parse_float=Num, parse_constant=Num)


def loads(text):
    return DEC.decode(text)


def tag(x):
    """x with its JSON types spelled out, so that the string "42" never equals the number 42 and
    objects compare with their key order."""
    if isinstance(x, Num):
        return ("number", str(x))
    if isinstance(x, str):
        return ("string", x)
    if isinstance(x, dict):
        return ("object", [(k, tag(v)) for k, v in x.items()])
    if isinstance(x, list):
        return ("array", [tag(v) for v in x])
    return x


def ws(s, i):
    while i < len(s) and s[i] in " \t\n\r":
        i += 1
    return i


def members(s, i):
    """(key, value start, value end) of each member of the object at s[i], in file order."""
    out = []
    i = ws(s, i + 1)
    if s[i] == "}":
        return out
    while True:
        key, i = DEC.raw_decode(s, i)
        i = ws(s, i)
        assert s[i] == ":"
        v = ws(s, i + 1)
        _, e = DEC.raw_decode(s, v)
        out.append((key, v, e))
        i = ws(s, e)
        if s[i] == ",":
            i = ws(s, i + 1)
            continue
        assert s[i] == "}"
        return out


def elements(s, i):
    """(start, end) of each element of the array at s[i]."""
    out = []
    i = ws(s, i + 1)
    if s[i] == "]":
        return out
    while True:
        _, e = DEC.raw_decode(s, i)
        out.append((i, e))
        i = ws(s, e)
        if s[i] == ",":
            i = ws(s, i + 1)
            continue
        assert s[i] == "]"
        return out


def last(mem):
    """The members whose key is not given again later in the object (the one JSON.parse keeps)."""
    return [m for k, m in enumerate(mem) if all(m[0] != n[0] for n in mem[k + 1:])]


def scalar_text(v):
    """A cell value as the name/category columns read it."""
    if v is None:
        return None
    if type(v) is str:
        return v
    if isinstance(v, Num):
        return str(v)
    if v is True or v is False:
        return "true" if v else "false"
    raise ValueError("the test data has no object or array in a name/category cell")


def meta_value(v, raw):
    if v is None:
        return None
    if type(v) is str:
        return v
    if v is True or v is False:
        return int(v)
    if isinstance(v, Num):
        if re.fullmatch(r"-?\d+", v):
            x = int(v)
            return x if -2**63 <= x < 2**63 else str(v)
        return float(v)
    return raw                                   # an object or array: its JSON text as written


def reference(text):
    """(records, metadata rows of the 'table <i>' scopes, number of tables) of a DataTable file."""
    boff = lambda i: len(text[:i].encode("utf-8"))
    i = ws(text, 1 if text.startswith("\ufeff") else 0)
    spans = elements(text, i) if text[i] == "[" else [(i, DEC.raw_decode(text, i)[1])]
    recs, meta = [], []
    for t, (tv, te) in enumerate(spans):
        obj = loads(text[tv:te])
        mem = last(members(text, tv))
        at = {k: (v, e) for k, v, e in mem}
        scope = f"table {t}"
        cols = obj.get("cols")
        keys, seen, icat, iname = [], set(), None, None
        for k, col in enumerate(cols or []):
            key = col.get("id") or col.get("label") or str(k)
            while key in seen:
                key += f"#{k}"
            seen.add(key)
            keys.append(key)
        for field in ("id", "label"):
            if icat is None:
                icat = next((k for k, c in enumerate(cols or []) if c.get(field, "").lower() == "category"), None)
        iname = next((k for k, c in enumerate(cols or []) if c.get("type") == "string" and k != icat), None)
        if "cols" in at:
            meta.append((scope, "cols", text[slice(*at["cols"])], boff(at["cols"][0])))
        if "p" in at:
            meta.append((scope, "p", text[slice(*at["p"])], boff(at["p"][0])))
            for k, v, e in last(members(text, at["p"][0])):
                key = "p." + k if k in ("cols", "p", "rows") else k
                meta.append((scope, key, meta_value(obj["p"][k], text[v:e]), boff(v)))
        row_spans = elements(text, at["rows"][0]) if "rows" in at else []
        for r, (rv, re_) in zip(obj.get("rows", []), row_spans):
            cells = r.get("c") or []
            cell = lambda k: cells[k] if k is not None and k < len(cells) and isinstance(cells[k], dict) else {}
            f = cell(iname).get("f")
            name = f if type(f) is str else scalar_text(cell(iname).get("v"))
            recs.append({"record_id": len(recs) + 1, "record_set": scope, "name": name,
                         "category": scalar_text(cell(icat).get("v")) if icat is not None else None,
                         "line": text[:rv].count("\n") + 1,
                         "attrs": tag({key: cell(k).get("v") for k, key in enumerate(keys)})})
        meta.append((scope, "rows", len(obj.get("rows", [])), boff(at["rows"][0]) if "rows" in at else None))
        for k, v, e in mem:
            if k not in ("cols", "rows", "p"):
                meta.append((scope, k, text[v:e], boff(v)))
    return recs, meta, len(spans)


def ours(src, fmt=None):
    recs = rows("SELECT * FROM profile_records(?, ?) ORDER BY record_id", (src, fmt))
    meta = [tuple(r) for r in db.execute("SELECT scope, key, value, byte_offset FROM profile_metadata(?, ?) "
                                          "WHERE scope LIKE 'table %'", (src, fmt)).fetchall()]
    return recs, meta


def compare(name, path):
    """Part 1 for one file: every record and every table metadata row against the reference."""
    text = open(path, "rb").read().decode("utf-8")
    want_recs, want_meta, n_tables = reference(text)
    got_recs, got_meta = ours(path)
    check(len(got_recs) == len(want_recs), f"{name}: {len(want_recs)} records", len(got_recs))
    for g, w in zip(got_recs, want_recs):
        rid = w["record_id"]
        for col in ("record_id", "record_set", "name", "category", "line"):
            check(g[col] == w[col], f"{name} record {rid}: {col} = {w[col]!r}", g[col])
        check(tag(loads(g["attrs"])) == w["attrs"], f"{name} record {rid}: attrs (keys in column order, "
              f"numbers as written)", g["attrs"])
        check(g["parent_record_id"] is None and g["depth"] == 0 and g["time_ns"] is None and g["self_ns"] is None
              and g["count"] is None and g["avg"] is None and g["group_name"] is None and g["file"] == path,
              f"{name} record {rid}: no parent, depth 0, no times or counts", g)
    check(len(got_meta) == len(want_meta), f"{name}: {len(want_meta)} table metadata rows", len(got_meta))
    for g, w in zip(got_meta, want_meta):
        same = g == w and type(g[2]) is type(w[2])
        check(same, f"{name}: metadata {w[:2]} = {w[2]!r} ({type(w[2]).__name__}) at byte {w[3]}", g)
    got_tables = db.execute("SELECT value FROM profile_metadata(?) WHERE scope = 'capture' AND key = 'tables'",
                            (path,)).fetchone()
    check(got_tables == (n_tables,), f"{name}: capture tables = {n_tables}", got_tables)
    # the same with the format named
    check(ours(path, FMT) == (got_recs, got_meta), f"{name}: read the same with format '{FMT}'")


# ---------------------------------------------------------------------------------------------
# 1. rows and metadata against the reference
for name in HAND:
    compare(name, os.path.join(DATA, name))

# what the hand files hold, as written in them (not only as the reference reads them)
edge = os.path.join(DATA, "datatable_edge.json")
r = rows("SELECT name, category, attrs FROM profile_records(?) "
         "ORDER BY record_id", (edge,))
check([x["name"] for x in r] == ["Formatted", "時間 🚀", "3123", None, None], "edge: names (f, v, a number, none)",
      [x["name"] for x in r])
check([x["category"] for x in r] == ["kernels", None, "", None, None], "edge: category from the label 'CATEGORY'",
      [x["category"] for x in r])
check('"big":18446744073709551615' in r[0]["attrs"] and '"Größe (µs)":1.50' in r[0]["attrs"]
      and '"name#3":1e400' in r[0]["attrs"] and '"2":-0' in r[0]["attrs"], "edge: numbers exactly as written", r[0]["attrs"])
check(json.loads(r[0]["attrs"])['esc"\\/\né'] == 'tab\there "q" \U0001F680 时间', "edge: escaped key and value",
      r[0]["attrs"])
check(json.loads(r[1]["attrs"])['esc"\\/\né'] == "last v wins", "edge: a cell's repeated 'v': the last one")
diag = [tuple(x) for x in db.execute("SELECT key, value, byte_offset FROM profile_metadata(?) WHERE scope = 'diagnostic'",
                                     (edge,)).fetchall()]
check(diag == [
    ("duplicate_key", "table 0 column 3: key 'name' is also column 0's; attrs names it 'name#3'", 166),
    ("duplicate_key", "key \"dup\" given again in table 0's 'p' (before at byte 1058); the last one is used", 1072),
    ("duplicate_key", "key \"v\" given again in table 0 row 1 cell 5 (before at byte 691); the last one is used", 699),
    ("other", "table 0 row 2 has 5 cells for 8 columns: the missing ones are null", 780),
    ("other", "table 0 row 3 has 0 cells for 8 columns: the missing ones are null", 870),
    ("other", "table 0 row 4 has 0 cells for 8 columns: the missing ones are null", 883),
    ("other_count", 3, None), ("duplicate_key_count", 3, None)], "edge: diagnostics", diag)
m = dict(db.execute("SELECT key, value FROM profile_metadata(?) WHERE scope = 'table 0' AND key NOT IN ('cols', 'p')",
                    (edge,)).fetchall())
check(m == {"s": "text é\n", "i": 42, "neg": -7, "r": 0.1, "e": 0.0015, "big": "18446744073709551615", "t": 1,
            "f": 0, "n": None, "o": '{"k":[1,2]}', "a": "[]", "p.rows": "p key named rows", "dup": "second",
            "kéy": "escaped key", "rows": 5}, "edge: p's members typed; 'rows' renamed 'p.rows'", m)
m = [tuple(x) for x in db.execute("SELECT scope, key, value FROM profile_metadata(?) WHERE scope IN ('table 1', "
                                  "'table 2', 'table 3', 'table 4')", (edge,)).fetchall()]
check(m == [("table 1", "cols", "[]"), ("table 1", "p", "{}"), ("table 1", "rows", 0),
            ("table 2", "p", '{"only":"p"}'), ("table 2", "only", "p"), ("table 2", "rows", 0),
            ("table 3", "cols", '[{"id":"a","label":"A","type":"string"}]'), ("table 3", "rows", 0),
            ("table 4", "cols", '[{"id":"a","type":"string"}]'), ("table 4", "rows", 0),
            ("table 4", "version", "0.6"), ("table 4", "extra", '{"x":[1]}')],
      "edge: empty tables, a table with only p, other members of a table", m)
single = os.path.join(DATA, "datatable_single.json")
check(open(single, "rb").read()[:4] == b'\xef\xbb\xbf{', "single: starts with a BOM and one object")
r = [tuple(x) for x in db.execute("SELECT record_set, name, attrs, line FROM profile_records(?)", (single,)).fetchall()]
check(r == [("table 0", "a", '{"k":"a","v":1}', 2), ("table 0", "b", '{"k":"b","v":2.5}', 3)], "single: rows", r)

if not os.path.exists(DEMO):
    skip_part(f"corpus DataTable: {DEMO} not found (the corpus ships beside the repository, not in it)")
else:
    compare("corpus overview_page.json", DEMO)
    # the corpus README's facts about this file
    r = rows("SELECT * FROM profile_records(?) ORDER BY record_id", (DEMO,))
    sets = [x["record_set"] for x in r]
    check([sets.count(f"table {i}") for i in range(4)] == [10, 5, 0, 3], "demo: 10 top ops, 5 steps, 0, 3 tips",
          [sets.count(f"table {i}") for i in range(4)])
    check(r[0]["name"] == "infeed" and r[0]["category"] == "" and '"selfTimePercent":0.82859041259087063' in r[0]["attrs"],
          "demo: 'infeed' first, category '', 17 significant digits kept", r[0])
    check(r[1]["name"] == "RGB/inception_i3d/Conv3d_1a_7x7/conv_3d/convolution" and r[1]["category"] == "Conv3D",
          "demo: the Conv3D op", r[1])
    check(r[2]["name"] == "XLA_Args:", "demo: 'XLA_Args:'", r[2]["name"])
    steps = [x for x in r if x["record_set"] == "table 1"]
    check([x["name"] for x in steps] == ["3123", "3124", "3125", "3126", "3127"]
          and all(json.loads(x["attrs"])["stepnum"] == x["name"] for x in steps), "demo: stepnum as strings", steps)
    check(json.loads(steps[0]["attrs"])["tooltip"].startswith("step 3123:\nTime waiting for input data = 1.494 ms"),
          "demo: the tooltip's '\\n' and '\\u003d'")
    m = dict(db.execute("SELECT key, value FROM profile_metadata(?) WHERE scope = 'table 2'", (DEMO,)).fetchall())
    check(m.get("device_type") == "DragonFish" and m.get("host_count") == "1"
          and m.get("device_core_count") == "16 (Replica count = 1, num cores per replica = 16)",
          "demo: table 2 is the run environment", m)
    m = dict(db.execute("SELECT key, value FROM profile_metadata(?) WHERE scope = 'table 0'", (DEMO,)).fetchall())
    check(m.get("host_idle_time_percent") == "88.0%" and m.get("mxu_utilization_percent") == "0.8%",
          "demo: table 0's p holds the analysis as strings", m)
    tips = [x for x in r if x["record_set"] == "table 3"]
    check(all(x["name"] == "host" for x in tips) and 'mailto:tf-data-users@gmail.com' in json.loads(tips[0]["attrs"])["link"],
          "demo: three host tips, HTML decoded in the value", tips)
    diag = db.execute("SELECT count(*) FROM profile_metadata(?) WHERE scope = 'diagnostic'", (DEMO,)).fetchone()[0]
    check(diag == 0, "demo: no diagnostics", diag)

# ---------------------------------------------------------------------------------------------
# 2. detection


def detected(src):
    try:
        return db.execute("SELECT value FROM profile_metadata(?) WHERE scope = 'capture' AND key = 'format'",
                          (src,)).fetchone()[0]
    except sqlite3.Error as e:
        return "error: " + str(e)


for name in HAND:
    got = detected(os.path.join(DATA, name))
    check(got == FMT, f"{name}: detected as {FMT}", got)
for blob, want in [(b'[{"cols":[]}]', FMT), (b' \n[ {\n "rows" : []}]', FMT), (b'[{"p":{}}]', FMT),
                   (b'\xef\xbb\xbf{"cols":[]}', FMT),
                   (b'[{"pid":1,"tid":1,"ph":"X","ts":1,"dur":2,"name":"a"}]', "chrome"),
                   (b'{"traceEvents":[{"ph":"i","ts":1,"name":"a","pid":1,"tid":1}]}', "chrome"),
                   (b'[{"cols_x":1,"ph":"i","ts":1,"name":"a","pid":1,"tid":1}]', "chrome"),
                   (b'{"rows":[]}', "chrome")]:      # only the array form is claimed by "rows" / "p"
    got = detected(blob)
    check(got == want, f"{blob[:40]!r} detected as {want}", got)
got = detected(b'[{"cols"}]')                      # not a key (no ':' after it): Chrome's to refuse
check(got.endswith("expected ':' after a key in an event object"), "'[{\"cols\"}]' is left to Chrome", got)
if not os.path.isdir(CORPUS):
    skip_part(f"corpus detection: {CORPUS} not found")
else:
    for sub, want in [("chrome", "chrome"), ("xplane", "xspace"), ("xprof", None)]:
        d = os.path.join(CORPUS, sub)
        for f in sorted(os.listdir(d)):
            path = os.path.join(d, f)
            if not os.path.isfile(path):
                continue
            got = detected(path)
            if f == "tpu_inference_2.xplane.pb":     # corrupt upstream (see the corpus README)
                check(got.startswith("error: ") and "XSpace" in got, f"corpus {sub}/{f}: still read as an XSpace", got)
                continue
            if sub == "xprof":
                want = FMT if f.endswith(".json") else {"tensorflow_stats": "tf_stats"}.get(f.split(".")[-2], f.split(".")[-2])
            check(got == want, f"corpus {sub}/{f}: detected as {want}", got)
    got = error("SELECT count(*) FROM profile_records(?, ?)", (os.path.join(CORPUS, "chrome", sorted(os.listdir(
        os.path.join(CORPUS, "chrome")))[0]), FMT))
    check(got is not None and "byte " in got, f"a Chrome trace read as {FMT} is an error naming a byte", got)

# ---------------------------------------------------------------------------------------------
# 3. errors
ERRORS = [
    (b'[{"cols":[{"id":"a","type":"string"}],"rows":[{"c":[{"v":1},{"v":2}]}]}]',
     "byte 60 (line 1, column 61): table 0 row 0: more cells than the table's 1 columns"),
    (b'[{"rows":[{"c":[]}]}]', "byte 10 (line 1, column 11): table 0 has rows but no 'cols': its cells have no keys"),
    (b'[{"p":{}},{"foo":1}]', "byte 10 (line 1, column 11): table 1 has none of 'cols', 'rows' and 'p': not a DataTable"),
    (b'[{"p":{}}, 5]', "byte 11 (line 1, column 12): table 1: expected a DataTable object"),
    (b'[{"cols":5}]', "byte 9 (line 1, column 10): table 0: 'cols' is not an array"),
    (b'[{"rows":{}}]', "byte 9 (line 1, column 10): table 0: 'rows' is not an array"),
    (b'[{"p":[]}]', "byte 6 (line 1, column 7): table 0: 'p' is not an object"),
    (b'[{"cols":[5]}]', "byte 10 (line 1, column 11): table 0 column 0: expected a column object"),
    (b'[{"cols":[{"id":5}]}]', "byte 16 (line 1, column 17): table 0 column 0: 'id' is not a string"),
    (b'[{"cols":[{"type":["string"]}]}]', "byte 18 (line 1, column 19): table 0 column 0: 'type' is not a string"),
    (b'[{"cols":[{"type":"string"}],"rows":[5]}]', "byte 37 (line 1, column 38): table 0 row 0: expected a row object"),
    (b'[{"cols":[{"type":"string"}],"rows":[{"c":5}]}]', "byte 42 (line 1, column 43): table 0 row 0: 'c' is not an array"),
    (b'[{"cols":[{"type":"string"}],"rows":[{"c":[5]}]}]',
     "byte 43 (line 1, column 44): table 0 row 0 cell 0: expected a cell object or null"),
    (b'[{"cols":[]},\n {"cols":[] "rows":[]}]', "byte 26 (line 2, column 13): expected ',' or '}'"),
    (b'[{"cols":[]}] x', "byte 14 (line 1, column 15): unexpected bytes after the DataTable JSON"),
    (b'[{"p":{"a":"\x01"}}]', "byte 12 (line 1, column 13): control character 0x01 inside a string"),
    (b'[{"p":{"a":01}}]', "byte 12 (line 1, column 13): expected ',' or '}'"),
    (b'[{"p":{"a":"x}}]', "the input ends inside a value at byte 16 (line 1, column 17; cut short?): "
                          "byte 11 (line 1, column 12): unterminated string"),
    (b'[{"cols":[]}', "the input ends inside an array at byte 12 (line 1, column 13; cut short?)"),
]
for blob, want in ERRORS:
    for fmt in (None, FMT):
        got = error("SELECT count(*) FROM profile_records(?, ?)", (blob, fmt))
        check(got == "profile_records: BLOB: " + want, f"error for {blob!r} (format {fmt})", got)
got = error("SELECT count(*) FROM profile_records(?, ?)", (b"  ", FMT))
check(got == "profile_records: BLOB: the input ends inside a value at byte 2 (line 1, column 3; cut short?): "
      "expected a DataTable JSON array '[' or object '{'", "blanks read as a DataTable", got)

# invalid UTF-8: repaired to U+FFFD, with a diagnostic naming the byte
bad = b'[{"cols":[{"id":"\xff","type":"string"}],"rows":[{"c":[{"v":"a\xfeb"}]}],"p":{"k":"\xfd"}}]'
r = rows("SELECT name, attrs FROM profile_records(?)", (bad,))
check(r == [{"name": "a\ufffdb", "attrs": '{"\ufffd":"a\ufffdb"}'}], "invalid UTF-8 repaired in name and attrs", r)
d = [tuple(x) for x in db.execute("SELECT value, byte_offset FROM profile_metadata(?) WHERE key = 'invalid_text'",
                                  (bad,)).fetchall()]
o1, o2, o3 = bad.index(b"\xff"), bad.index(b"\xfe"), bad.index(b"\xfd")
check(("invalid UTF-8 (byte 0xff) in a column id at byte %d; replaced with U+FFFD" % o1, o1) in d
      and ("invalid UTF-8 (byte 0xfe) in table 0 row 0 at byte %d; replaced with U+FFFD" % o2, o2) in d
      and ("invalid UTF-8 (byte 0xfe) in name at byte %d; replaced with U+FFFD" % o2, o2) in d
      and ("invalid UTF-8 (byte 0xfd) in table 0 'k' at byte %d; replaced with U+FFFD" % o3, o3) in d,
      "invalid UTF-8: diagnostics name the bytes", d)

# the connection's nesting limit
deep = b'[{"cols":[{"id":"a"}],"rows":[{"c":[{"v":' + b"[" * 40 + b"]" * 40 + b"}]}]}]"
check(len(rows("SELECT * FROM profile_records(?)", (deep,))) == 1, "40 levels in a cell: read")
db.execute("SELECT profsql_config('max_json_depth', 20)").fetchall()
got = error("SELECT count(*) FROM profile_records(?)", (deep + b" ",))
# level 21: the file's array, the table, rows, the row, c and the cell are levels 1-6, so the
# cell value's 15th '[' is the first one too deep
at = deep.index(b"[" * 40) + 14
check(got == f"profile_records: BLOB: byte {at} (line 1, column {at + 1}): JSON nested deeper than 20 levels",
      "max_json_depth 20: an error naming the byte", got)
db.execute("SELECT profsql_config('max_json_depth', 10000)").fetchall()

# every prefix: the whole document loads as the file does, a cut one is an error naming a byte;
# detected, a prefix too short for the probe may read as Chrome's (which allows an open array)
PROBE = re.compile(rb'^(\xef\xbb\xbf)?[ \t\r\n]*(\[[ \t\r\n]*\{[ \t\r\n]*"(cols|rows|p)"|\{[ \t\r\n]*"cols")[ \t\r\n]*:')
prefix_files = [os.path.join(DATA, n) for n in HAND] + ([DEMO] if os.path.exists(DEMO) else [])
for path in prefix_files:
    data = open(path, "rb").read()
    full = rows("SELECT * FROM profile_records(?)", (data,))
    bad_forced, bad_detected = [], []
    for k in range(1, len(data) + 1):
        b = data[:k]
        try:
            loads(b.decode("utf-8-sig"))
            whole = True
        except (ValueError, UnicodeDecodeError):
            whole = False
        for fmt in (FMT, None):
            try:
                got = rows("SELECT * FROM profile_records(?, ?)", (b, fmt))
                ok = (whole and [dict(x, file=None) for x in got] == [dict(x, file=None) for x in full]) \
                    or (fmt is None and not PROBE.match(b) and got == [])
                msg = f"loaded {len(got)} rows"
            except sqlite3.Error as e:
                # before the probe can tell (a BOM cut short, "[", "[{"), another reader's refusal
                ok = not whole and (re.search(r"byte \d+", str(e)) is not None or (fmt is None and not PROBE.match(b)))
                msg = str(e)
            if not ok:
                (bad_forced if fmt else bad_detected).append((k, msg))
    check(not bad_forced, f"{os.path.basename(path)}: every prefix forced: the whole file or an error naming a byte",
          bad_forced[:3])
    check(not bad_detected, f"{os.path.basename(path)}: every prefix detected: the same (or Chrome's empty trace "
          "before the probe can tell)", bad_detected[:3])
if not os.path.exists(DEMO):
    skip_part("corpus prefixes: the corpus file is absent")

# ---------------------------------------------------------------------------------------------
# 4. the other table functions
ov = os.path.join(DATA, "datatable_overview.json")
check(db.execute("SELECT count(*) FROM profile_events(?)", (ov,)).fetchone()[0] == 0, "profile_events: no event rows")
r = rows("SELECT record_id, name FROM profile_records(?) WHERE record_id = 4", (ov,))
check(r == [{"record_id": 4, "name": "1"}], "record_id lookup", r)
r = [tuple(x) for x in db.execute(
    "SELECT name, json_extract(attrs, '$.computeTimeMs') + json_extract(attrs, '$.inputTimeMs') FROM profile_records(?) "
    "WHERE record_set = 'table 1'", (ov,)).fetchall()]
check(r == [("1", 3.0), ("2", 4.0)], "attrs through json_extract", r)
tmp = tempfile.mkdtemp(prefix="profsql-datatable-")
try:
    man = db.execute("SELECT profile_report(?, ?, '{\"write_archive\": false}')", (ov, tmp)).fetchone()[0]
    check(json.loads(man) is not None and os.path.exists(os.path.join(tmp, "profiler_report_latest.md")), "profile_report")
except sqlite3.Error as e:
    check(False, "profile_report", str(e))
try:
    res = json.loads(db.execute("SELECT profile_import(?, 'main', 'dt_')", (ov,)).fetchone()[0])
    n_m = db.execute("SELECT count(*) FROM profile_metadata(?)", (ov,)).fetchone()[0]
    check(res == {"dt_metadata": n_m, "dt_records": 5}, "profile_import: metadata and records", res)
    got = db.execute("SELECT record_set, name, attrs FROM dt_records ORDER BY record_id").fetchall()
    check(got == db.execute("SELECT record_set, name, attrs FROM profile_records(?) ORDER BY record_id", (ov,)).fetchall(),
          "profile_import: the records copied")
except sqlite3.Error as e:
    check(False, "profile_import", str(e))


# ---------------------------------------------------------------------------------------------
# 5. {} for an absent table (issue 32): xprof's writer puts {} where a tool has no table (its
# overview_page output, the 2020 input_pipeline.json); tests/data/xprof/datatable_empty.json,
# hand-checked figures in tests/data/README.md, row counts also from Python's json
emp = os.path.join(DATA, "datatable_empty.json")
doc = json.load(open(emp, encoding="utf-8"))
want_rows = {f"table {i}": len(t.get("rows", [])) for i, t in enumerate(doc) if t.get("rows")}
check(detected(emp) == FMT, "a DataTable array whose first table is {}: detected", detected(emp))
got = dict(db.execute("SELECT record_set, count(*) FROM profile_records(?) GROUP BY record_set", (emp,)).fetchall()) \
    if detected(emp) == FMT else {}
check(got == want_rows == {"table 1": 2, "table 3": 1, "table 4": 1}, "{} tables: the other tables' rows (Python's json)", got)
try:
    m = db.execute("SELECT scope, key, value, byte_offset FROM profile_metadata(?, ?) WHERE key IN ('empty', 'tables', "
                   "'empty_tables') OR (key = 'rows' AND scope IN ('table 0', 'table 5')) ORDER BY scope, key",
                   (emp, FMT)).fetchall()
except sqlite3.Error as e:
    m = str(e)
raw = open(emp, "rb").read()
off0 = raw.index(b"{}")
off5 = raw.rindex(b"{}")
check(m == [("capture", "empty_tables", 2, None), ("capture", "tables", 6, None),
            ("table 0", "empty", 1, off0), ("table 0", "rows", 0, None),
            ("table 5", "empty", 1, off5), ("table 5", "rows", 0, None)],
      "{} tables: recorded in profile_metadata ('empty' at the {}'s byte, rows 0; the capture's counts)", m)
check(db.execute("SELECT json_extract(attrs, '$.selfTimePercent') FROM profile_records(?) WHERE record_set = 'table 4'",
                 (emp,)).fetchall() == [(0.82859041259087063,)] if detected(emp) == FMT else False,
      "{} tables: a later table reads as before")
# an object with members but none of cols / rows / p is still not a DataTable
e = error("SELECT count(*) FROM profile_records(?, 'xprof_datatable')", (b'[{"p":{}},{}, {"foo":1}]',))
check(e == "profile_records: BLOB: byte 14 (line 1, column 15): table 2 has none of 'cols', 'rows' and 'p': not a DataTable",
      "a non-empty table without cols / rows / p: still an error", e)

done()
