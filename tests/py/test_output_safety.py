"""Output that is what it says (issue 32): every writer's file read back by an independent, strict
reader, whatever the names in the capture or the query hold.
- UTF-8: labels cut inside a character (a thread name over 399 bytes, a text pid, a folded title
  of 300+ bytes) and TEXT that is not UTF-8 at all (CAST(x'ff' AS TEXT)) reach profile_report's
  JSON, Markdown, CSVs and SVG, profile_write_csv/_markdown and the flame graphs: every file
  decodes as strict UTF-8, the JSON with Python's json, the SVG with xml.dom.minidom (expat), also
  with U+FFFE, U+FFFF and control characters in frame names (not XML characters);
- Markdown: capture, thread and frame names carrying HTML, links, images, code spans and line
  breaks are rendered by Python-Markdown (the `markdown` module, tables extension) and parsed
  with html.parser: no tag or attribute comes from a name, and each name renders as its own text;
- CSV: profile_write_csv's {"formula_prefix": true} (OWASP) puts a ' before TEXT cells starting
  with = + - @ tab CR, never before numbers; without it the cells are as the StarProfiler writes
  them; Python's csv reads both back; bad options are named;
- file names of 238..255 bytes (legal, NAME_MAX) can be written by every writer;
- the flame graph's trie under keys chosen to collide with the old fixed fl_key formula does the
  same work (profsql_debug('hash_probes')) as under random keys of the same shape: ratio <= 3;
  and profile_flamegraph_folded polls the host by work done: one row of 600k frames is stopped by
  a progress handler (the old code polled only between rows, and never while drawing)."""
import csv
import html.parser
import io
import json
import os
import random
import sqlite3
import sys
import tempfile
import xml.dom.minidom

from testlib import check, connect, done, error, skip_part

db = connect()
tmp = tempfile.mkdtemp(prefix="profsql-outsafe-")

try:
    import markdown
except ImportError:            # Debian's python3-markdown (deps.sh installs it)
    markdown = None


def utf8(path):
    """The file's text when it is valid UTF-8, else None."""
    try:
        return open(path, "rb").read().decode("utf-8", errors="strict")
    except UnicodeDecodeError:
        return None


def xml_ok(path):
    """None when the file is well-formed XML for expat (xml.dom.minidom), else the error."""
    try:
        xml.dom.minidom.parse(path)
        return None
    except Exception as e:          # expat's ExpatError, or a decode error
        return str(e)


def err_of(sql, args=()):
    return error(db, sql, args)


# ---------------------------------------------------------------- 1. valid UTF-8, JSON and XML
LONG_THREAD = "t" * 399 + "é" * 10            # pj_label cuts at 399 bytes: inside an 'é'
TEXT_PID = "p" + "é" * 150                    # ps_value_text cuts at 200 bytes, "pid '<80>'" too
BAD_FRAME = "a\ufffeb\uffffc\x01d\x0be"       # valid UTF-8, but not XML characters
trace = os.path.join(tmp, "cut.json")
with open(trace, "w", encoding="utf-8") as f:
    json.dump({"traceEvents": [
        {"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": LONG_THREAD}},
        {"ph": "X", "name": BAD_FRAME, "pid": 1, "tid": 1, "ts": 0, "dur": 10},
        {"ph": "X", "name": "inner", "pid": 1, "tid": 1, "ts": 1, "dur": 3},
        {"ph": "X", "name": "x", "pid": TEXT_PID, "tid": 2, "ts": 0, "dur": 5},
    ]}, f)
rep = os.path.join(tmp, "rep")
os.mkdir(rep)
man = db.execute("SELECT profile_report(?, ?, '{\"write_archive\": false}')", (trace, rep)).fetchone()[0]
check(json.loads(man)["latest"]["flamegraph"] == "profiler_flamegraph_latest.svg", "report: a flame graph is written")
files = sorted(f for f in os.listdir(rep) if "latest" in f)
bad = [f for f in files if utf8(os.path.join(rep, f)) is None]
check(len(files) >= 15 and bad == [], "report: every latest file is valid UTF-8", bad)
try:
    js = json.load(open(os.path.join(rep, "profiler_report_latest.json"), encoding="utf-8"))
    lanes = {j.get("lane") for j in js["completed_jobs"]}
    want = "t" * 399                           # the cut falls before the first 'é'
    check(want in lanes, "report JSON: the long thread name cut before a character", sorted(map(len, filter(None, lanes))))
except Exception as e:
    check(False, "report JSON loads with Python's json", str(e))
svg = os.path.join(rep, "profiler_flamegraph_latest.svg")
check(xml_ok(svg) is None, "report SVG is well-formed XML (U+FFFE, U+FFFF, controls, cut labels)", xml_ok(svg))
if xml_ok(svg) is None:
    titles = [t.firstChild.data if t.firstChild else "" for t in xml.dom.minidom.parse(svg).getElementsByTagName("title")]
    check(any(t.startswith("a\ufffdb\ufffdc d e") for t in titles), "SVG: U+FFFE/U+FFFF as U+FFFD, controls as spaces",
          [t for t in titles if t.startswith("a")])
    check(any(t.startswith("pid 'p" + "é" * 99 + "'") for t in titles),
          "SVG: the text pid's group label cut before a character, its quote kept",
          [t[:30] for t in titles if t.startswith("pid")])
rows = list(csv.DictReader(io.StringIO(utf8(os.path.join(rep, "profiler_jobs_latest.csv")) or "", newline="")))
check({r["source"] for r in rows} == {"pid 1", "pid p" + "é" * 39}, "jobs CSV: source labels cut before a character",
      {r["source"] for r in rows})

# profile_flamegraph and profile_flamegraph_folded on their own: names, a long title
fg = os.path.join(tmp, "fg.svg")
db.execute("SELECT profile_flamegraph(?, ?)", (trace, fg)).fetchone()
check(xml_ok(fg) is None and utf8(fg) is not None, "profile_flamegraph: well-formed UTF-8 XML", xml_ok(fg))
ff = os.path.join(tmp, "ff.svg")
title = "T" + "€" * 120                        # 361 bytes: the 300-byte title buffer cuts it
db.execute("SELECT profile_flamegraph_folded(?, 'SELECT column1, column2 FROM (VALUES (CAST(x''61ff62'' AS TEXT) || '';'' || char(65534) || '';x'', 3), (char(1, 65535) || '';y'', 2))', ?)",
           (ff, json.dumps({"title": title}))).fetchone()
check(xml_ok(ff) is None, "profile_flamegraph_folded: well-formed XML with invalid UTF-8 and U+FFFE in frames", xml_ok(ff))
if xml_ok(ff) is None:
    doc = xml.dom.minidom.parse(ff)
    texts = [t.firstChild.data for t in doc.getElementsByTagName("text") if t.firstChild]
    head = [t for t in texts if t.startswith("T€")]
    check(head and head[0].startswith("T" + "€" * 99 + " —"), "folded: the title cut before a character", head[:1])
    names = {t.firstChild.data.split(" — ")[0] for t in doc.getElementsByTagName("title") if t.firstChild}
    check({"a\ufffdb", "\ufffd", " \ufffd"} <= names, "folded: frames repaired (U+FFFD) and controls as spaces", names)

# profile_write_csv / _markdown: TEXT that is not UTF-8, and a cut character
for fn, ext in (("profile_write_csv", "csv"), ("profile_write_markdown", "md")):
    p = os.path.join(tmp, "bytes." + ext)
    db.execute(f"SELECT {fn}(?, 'SELECT CAST(x''41ff42'' AS TEXT) AS a, CAST(x''43c3'' AS TEXT) AS b')", (p,)).fetchone()
    t = utf8(p)
    check(t is not None and "A\ufffdB" in t and "C\ufffd" in t, f"{fn}: invalid UTF-8 written repaired (U+FFFD)", t)

# ---------------------------------------------------------------- 2. Markdown renders as text
NAMES = [
    "<img src=x onerror=alert(1)>",
    "<script>alert(2)</script>",
    "[click](javascript:alert(3))",
    "![i](http://x/y.png)",
    "a`<img src=x onerror=alert(4)>`b",
    "*strong* and _em_ and __x__",
    "pipe | cell \\ back",
    "&lt;b&gt; entity &amp;",
    "render_frame (x.y) #1 a-b+c.d!",
    "Module._compile",
    "http://example.com/<b>",
]


class Tags(html.parser.HTMLParser):
    """The tags, attributes and td/th texts of rendered HTML."""
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.attrs, self.cells, self.codes, self._cell, self._code = set(), [], [], [], None, None

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        # the renderers' own: a table cell's alignment, a ```text block's class
        self.attrs += [a for a in attrs if a[0] != "align" and not (a[0] == "class" and a[1] == "language-text")]
        if tag in ("td", "th"):
            self._cell = ""
        if tag == "code":
            self._code = ""

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.cells.append(self._cell.strip())
            self._cell = None
        if tag == "code" and self._code is not None:
            self.codes.append(self._code)
            self._code = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data
        if self._code is not None:
            self._code += data


SAFE_TAGS = {"h1", "h2", "p", "ul", "li", "code", "pre", "table", "thead", "tbody", "tr", "th", "td", "strong"}


def render(path):
    t = Tags()
    t.feed(markdown.markdown(open(path, encoding="utf-8", errors="replace").read(), extensions=["tables", "fenced_code"]))
    return t


if markdown is None:
    skip_part("Markdown rendering: the markdown module (python3-markdown) is not installed")
else:
    # profile_write_markdown: every name is a cell that renders as its own text
    md = os.path.join(tmp, "names.md")
    db.execute("CREATE TEMP TABLE names(name TEXT)")
    db.executemany("INSERT INTO temp.names VALUES (?)", [(n,) for n in NAMES] + [("line\nbreak\r\n<i>x</i>",)])
    db.execute("SELECT profile_write_markdown(?, 'SELECT name AS \"<b>Name</b>\" FROM temp.names ORDER BY rowid')", (md,)).fetchone()
    t = render(md)
    check(t.tags <= {"table", "thead", "tbody", "tr", "th", "td"}, "profile_write_markdown: no tag from a name", t.tags)
    check(t.attrs == [], "profile_write_markdown: no attribute from a name", t.attrs)
    check(t.cells == ["<b>Name</b>"] + NAMES + ["line break  <i>x</i>"],
          "profile_write_markdown: every cell renders as the name's text", t.cells)

    # profile_report's Markdown: the capture's file name, thread, process and slice names
    evil = os.path.join(tmp, "cap`<img src=x onerror=alert(9)>` [x](javascript:alert(8)).json")
    ev = [{"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "<script>alert('p')</script>"}}]
    for k, n in enumerate(NAMES + ["x\n\n<script>alert('nl')</script>"]):
        ev.append({"ph": "M", "name": "thread_name", "pid": 1, "tid": k + 1, "args": {"name": n}})
        ev.append({"ph": "X", "name": n, "pid": 1, "tid": k + 1, "ts": k * 100, "dur": 90 - k})
    with open(evil, "w", encoding="utf-8") as f:
        json.dump({"traceEvents": ev}, f)
    out = os.path.join(tmp, "evil")
    os.mkdir(out)
    db.execute("SELECT profile_report(?, ?, '{\"write_archive\": false, \"write_flamegraph\": false}')", (evil, out)).fetchone()
    t = render(os.path.join(out, "profiler_report_latest.md"))
    check(t.tags <= SAFE_TAGS, "report Markdown: no tag from a name", t.tags - SAFE_TAGS)
    check(t.attrs == [], "report Markdown: no attribute from a name", t.attrs)
    check(evil in t.codes, "report Markdown: the capture's path renders whole in a code span",
          [c for c in t.codes if "cap" in c])
    check(all(n in t.cells for n in NAMES), "report Markdown: each thread/slice name renders as its text in the tables",
          [n for n in NAMES if n not in t.cells])

# ---------------------------------------------------------------- 3. CSV cells and formulas
Q = ("SELECT '=1+1' AS f, '+x' AS p, '-cmd' AS m, '@SUM(A1)' AS a, char(9) || 't' AS tab, "
     "'=a,b' AS q, -5 AS n, -2.5 AS r, 'plain' AS s, NULL AS z")
plain = os.path.join(tmp, "plain.csv")
pref = os.path.join(tmp, "prefixed.csv")
db.execute("SELECT profile_write_csv(?, ?)", (plain, Q)).fetchone()
got = err_of("SELECT profile_write_csv(?, ?, '{\"formula_prefix\": true}')", (pref, Q))
check(got is None, "profile_write_csv takes options_json {\"formula_prefix\": true}", got)
read = lambda p: list(csv.reader(open(p, encoding="utf-8", errors="replace", newline="")))
check(read(plain)[1] == ["=1+1", "+x", "-cmd", "@SUM(A1)", "\tt", "=a,b", "-5", "-2.5", "plain", ""],
      "default: cells as the StarProfiler writes them", read(plain)[1])
if got is None:
    check(read(pref)[1] == ["'=1+1", "'+x", "'-cmd", "'@SUM(A1)", "'\tt", "'=a,b", "-5", "-2.5", "plain", ""],
          "formula_prefix: a ' before TEXT cells starting with = + - @ tab; numbers as they are", read(pref)[1])
    check(open(pref, encoding="utf-8").read().splitlines()[1].startswith("'=1+1,'+x,'-cmd,'@SUM(A1),'\tt,\"'=a,b\",-5,"),
          "formula_prefix: the ' inside the quotes of a quoted cell")
e = err_of("SELECT profile_write_csv(?, ?, NULL)", (pref, Q))
check(e is None and read(pref) == read(plain), "formula_prefix: NULL options are the default", e)
for opts, want in (('{"formula_prefix": "yes"}', "option 'formula_prefix' must be true or false, not text \"yes\""),
                   ('{"prefix": true}', "unknown option 'prefix' (options: formula_prefix)"),
                   ('[1]', "options_json must be a JSON object"),
                   (7, "options_json must be a JSON object")):
    e = err_of("SELECT profile_write_csv(?, 'SELECT 1', ?)", (pref, opts))
    check(e is not None and e.startswith("profile_write_csv: ") and want in e, f"bad options {opts!r}: named", e)

# ---------------------------------------------------------------- 4. 255-byte file names
for n_name, stem in ((255, "x" * 251), (238, "y" * 234), (255, "é" * 125 + "z")):
    name = stem + ".csv"
    check(len(name.encode()) == n_name, f"test name is {n_name} bytes")
    p = os.path.join(tmp, name)
    e = err_of("SELECT profile_write_csv(?, 'SELECT 1 AS a')", (p,))
    check(e is None and os.path.exists(p) and open(p).read() == "a\n1\n", f"profile_write_csv to a {n_name}-byte name", e)
    e2 = err_of("SELECT profile_write_csv(?, 'SELECT 2 AS a')", (p,))
    check(e2 is None and open(p).read() == "a\n2\n", f"replacing a {n_name}-byte name", e2)
long_svg = os.path.join(tmp, "f" * 251 + ".svg")
e = err_of("SELECT profile_flamegraph_folded(?, 'SELECT ''a;b'', 1')", (long_svg,))
check(e is None and xml_ok(long_svg) is None, "profile_flamegraph_folded to a 255-byte name", e)
left = [n for n in os.listdir(tmp) if ".tmp." in n]
check(left == [], "no temporary file is left behind", left)

# ---------------------------------------------------------------- 5. the flame graph's trie
G = 0x9E3779B97F4A7C15
K = 16                     # the table ends with 2^16 slots (20k nodes, half full at most)
M = 1 << (K - 2)           # first-level frames f1..fM: node i has name id i


def folded_rows(colliding, seed=1):
    """Rows (stack, value): M first-level frames, then a child under each parent p whose
    p*G & 3 == 0, named so that the OLD fl_key (p*G ^ name<<2, low bits) is 0 mod 2^K for all
    of them (colliding), or named at random (the same count of rows and nodes)."""
    rnd = random.Random(seed)
    rows = [(f"f{i}", 1) for i in range(1, M + 1)]
    for p in range(1, M + 1):
        if (p * G) & 3:
            continue
        n = ((p * G) & ((1 << K) - 1)) >> 2
        if n == 0:
            continue
        if not colliding:
            n = rnd.randrange(1, M + 1)
        rows.append((f"f{p};f{n}", 1))
    return rows


def probes(rows):
    db.execute("DROP TABLE IF EXISTS temp.fold")
    db.execute("CREATE TEMP TABLE fold(stack TEXT, v INTEGER)")
    db.executemany("INSERT INTO temp.fold VALUES (?, ?)", rows)
    before = db.execute("SELECT profsql_debug('hash_probes')").fetchone()[0]
    db.execute("SELECT profile_flamegraph_folded(?, 'SELECT stack, v FROM temp.fold ORDER BY rowid')",
               (os.path.join(tmp, "trie.svg"),)).fetchone()
    return db.execute("SELECT profsql_debug('hash_probes')").fetchone()[0] - before


hostile, fair = folded_rows(True), folded_rows(False)
check(len(hostile) == len(fair) and len(hostile) > M + M // 5, "the two inputs have the same size", (len(hostile), len(fair)))
ph, pf = probes(hostile), probes(fair)
check(pf >= len(fair), "the trie counts its probes (hash_probes >= rows)", pf)
check(pf > 0 and ph <= 3 * pf, "colliding keys of the old fl_key: probes within 3x of random keys", (ph, pf))

# the interrupt by work done: one row of 600k distinct frames (no VM step while it is added)
db.execute("DROP TABLE IF EXISTS temp.deep")
db.execute("CREATE TEMP TABLE deep(stack TEXT, v INTEGER)")
db.execute("INSERT INTO temp.deep VALUES (?, 1)", (";".join(f"d{i}" for i in range(600000)),))
calls = [0]


def handler():
    calls[0] += 1
    return 1                       # stop at the first chance


db.set_progress_handler(handler, 2000)
e = err_of("SELECT profile_flamegraph_folded(?, 'SELECT stack, v FROM temp.deep')", (os.path.join(tmp, "deep.svg"),))
db.set_progress_handler(None, 0)
check(e is not None and "interrupt" in e.lower(), "profile_flamegraph_folded: a progress handler stops the adds", e)
check(not os.path.exists(os.path.join(tmp, "deep.svg")), "an interrupted graph writes no file")

done()
