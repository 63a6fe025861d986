"""Android systrace HTML (ext/source/htmlsrc.c): the trace inside the document is unwrapped below the
parsers, like gzip, and read as what it is. Checked: the corpus' old-form document (the trace in
a `var linuxPerfData = "..."` JavaScript string) gives the four counter markers its README lists;
a new-form `<script class="trace-data">` block of ftrace text, the same block zlib- and
raw-deflate-compressed and base64-encoded (systrace --compress), and a block of Trace Event JSON
each give exactly the rows the bare text / JSON file gives (compared row by row); BLOBs as files;
a JSON block beside text blocks (and a Chrome trace's systemTraceEvents string) gives the JSON's
rows then the text's, told apart by the origin column; and the errors: no trace data, two JSON
blocks, a non-Chrome JSON block beside text, damaged base64, an unclosed string."""
import base64
import json
import os
import tempfile
import zlib

from testlib import check, connect, done, error, skip_part

CORPUS = os.path.join("..", "shared", "corpus", "ftrace", "catapult-trivial_systrace.html")
TEXT = "tests/data/ftrace/tgid_flags.txt"
JSON = "tests/data/basic.json"
COLS = "ts, dur, name, ph, pid, tid, cpu, depth, args"
db = connect()
tmp = tempfile.mkdtemp()


def html(*blocks, head="<!DOCTYPE html>\n<html><head><title>trace</title></head><body>\n"):
    """A systrace-like document: the viewer's own scripts, then the trace-data blocks."""
    doc = head + "<script>var viewer = 'not trace data';</script>\n"
    for b in blocks:
        doc += '<script class="trace-data" type="application/text">' + b + "</script>\n"
    return doc + "</body></html>\n"


def write(name, text):
    p = os.path.join(tmp, name)
    with open(p, "w", encoding="utf-8") as f:
        f.write(text)
    return p


def rows(src):
    return db.execute(f"SELECT {COLS} FROM profile_events(?) ORDER BY id", (src,)).fetchall()


# ---- the corpus' old-form document: the README's four counter markers, as written
if os.path.exists(CORPUS):
    got = db.execute("SELECT name, ph, pid, tid, cpu, ts, json_extract(args, '$.value') FROM profile_events(?)",
                     (CORPUS,)).fetchall()
    want = [("VSYNC", "C", 124, 336, 0, 50260929925000, 1), ("StatusBar", "C", 124, 340, 0, 50260935656000, 1),
            ("VSYNC", "C", 124, 336, 0, 50260946573000, 0), ("iq", "C", 360, 419, 0, 50262538578000, 1)]
    check(got == want, "old systrace HTML: the four counters of its linuxPerfData string", got)
    meta = dict(db.execute("SELECT key, value FROM profile_metadata(?) WHERE scope = 'capture'", (CORPUS,)).fetchall())
    check(meta.get("format") == "ftrace" and meta.get("html_bytes") == os.path.getsize(CORPUS), "old systrace HTML: metadata", meta)
    blob = open(CORPUS, "rb").read()
    check(db.execute("SELECT count(*) FROM profile_events(?)", (blob,)).fetchone()[0] == 4, "old systrace HTML as a BLOB")
else:
    skip_part(f"old systrace HTML: {CORPUS} not found (../shared/corpus absent)")

# ---- new-form trace-data blocks give the rows of the bare file
text = open(TEXT, encoding="utf-8").read()
want = rows(TEXT)
check(len(want) > 10, f"the bare ftrace text has rows ({len(want)})")
check(rows(write("plain.html", html(text))) == want, "a trace-data block of ftrace text: the bare text's rows")
b64 = base64.b64encode(zlib.compress(text.encode())).decode()
b64 = "\n".join(b64[i:i + 76] for i in range(0, len(b64), 76))        # line-wrapped, as written
check(rows(write("zlib.html", html(b64))) == want, "a compressed block (zlib + base64): the bare text's rows")
co = zlib.compressobj(9, zlib.DEFLATED, -15)
raw = base64.b64encode(co.compress(text.encode()) + co.flush()).decode()
check(rows(write("deflate.html", html(raw))) == want, "a compressed block (raw deflate + base64): the bare text's rows")
half = text.splitlines(keepends=True)
cut = len(half) // 2
check(rows(write("two.html", html("".join(half[:cut]), "".join(half[cut:])))) == want,
      "two text blocks read as one text")
js = open(JSON, encoding="utf-8").read()
check(rows(write("json.html", html(js))) == rows(JSON), "a block of Trace Event JSON: the JSON file's rows")
check(db.execute("SELECT count(*) FROM profile_events(?)", (html(text).encode(),)).fetchone()[0] == len(want),
      "a trace-data document as a BLOB")

# ---- a JSON block and text blocks (newer systrace): one capture, the rows of both files, told
# apart by the origin column; the same for a Chrome trace's 'systemTraceEvents' string
ORIGIN = f"SELECT {COLS} FROM profile_events(?) WHERE origin = ? ORDER BY id"
want_json, want_text = rows(JSON), rows(TEXT)
for label, doc in (("JSON block, then text", html(js, text)), ("text, then JSON block", html(text, js)),
                   ("JSON block, text in two blocks", html("".join(half[:cut]), js, "".join(half[cut:])))):
    p = write("mixed.html", doc)
    got_json = db.execute(ORIGIN, (p, "chrome")).fetchall()
    got_text = db.execute(ORIGIN, (p, "ftrace")).fetchall()
    check(got_json == want_json and got_text == want_text,
          f"{label}: the JSON file's rows and the text file's rows, origin chrome / ftrace", (len(got_json), len(got_text)))
    n = db.execute("SELECT count(*), min(id) FROM profile_events(?) WHERE origin = 'ftrace'", (p,)).fetchone()
    check(n == (len(want_text), len(want_json)), f"{label}: the text's rows follow the JSON's", n)
meta = dict(db.execute("SELECT key, value FROM profile_metadata(?) WHERE scope = 'capture'", (p,)).fetchall())
joined = "".join(half[:cut]).strip() + "\n" + "".join(half[cut:]).strip()     # blocks are trimmed, then joined
check(meta.get("format") == "chrome" and meta.get("html_ftrace_text_bytes") == len(joined),
      "mixed document: format chrome, the text's size in metadata", meta)
check(db.execute("SELECT value FROM profile_metadata(?) WHERE scope = 'ftrace' AND key = 'tracer'", (p,)).fetchone() == ("nop",),
      "mixed document: the text's '# tracer:' header in metadata")
obj = json.loads(js)
obj = obj if isinstance(obj, dict) else {"traceEvents": obj}
want_obj = rows(write("object.json", json.dumps(obj)))
obj["systemTraceEvents"] = text
p = write("system.json", json.dumps(obj))
check(db.execute(ORIGIN, (p, "chrome")).fetchall() == want_obj and db.execute(ORIGIN, (p, "ftrace")).fetchall() == want_text,
      "a Chrome trace with a systemTraceEvents string: its events, then the string's ftrace rows")
obj["systemTraceEvents"] = "Windows ETW data, not ftrace"
p = write("etw.json", json.dumps(obj))
got = db.execute("SELECT count(*) FROM profile_events(?) WHERE origin = 'ftrace'", (p,)).fetchone()[0]
diag = db.execute("SELECT value FROM profile_metadata(?) WHERE scope = 'diagnostic' AND value LIKE '%systemTraceEvents%'", (p,)).fetchall()
check(got == 0 and len(diag) == 1 and "not Linux ftrace text" in diag[0][0],
      "a systemTraceEvents string that is not ftrace: no rows, a diagnostic, the string kept in metadata", (got, diag))

# the repository's compressed document (docs/ftrace.md, a fuzz seed) reads as its text
check(rows("tests/data/ftrace/systrace_compressed.html") == rows("tests/data/ftrace/old_forms.txt"),
      "tests/data/ftrace/systrace_compressed.html: the rows of old_forms.txt")

# ---- errors
e = error(db, "SELECT count(*) FROM profile_events(?)", (write("none.html", html()),))
check(e is not None and "an HTML document with no trace data" in e, "no trace data: said so", e)
e = error(db, "SELECT count(*) FROM profile_events(?)", (write("two_json.html", html(js, text, js)),))
check(e is not None and "2 JSON blocks" in e and "1 ftrace text blocks" in e, "two JSON blocks: said so", e)
e = error(db, "SELECT count(*) FROM profile_events(?)",
          (write("v8_text.html", html(open("examples/node_app.cpuprofile", encoding="utf-8").read(), text)),))
check(e is not None and "read as cpuprofile" in e and "ftrace text" in e,
      "a JSON block that is not a Chrome trace beside ftrace text: said so, not dropped", e)
e = error(db, "SELECT count(*) FROM profile_events(?)", (write("bad64.html", html("QUJD" * 40)),))
check(e is not None and "base64 but not compressed data" in e, "damaged compressed data: said so", e)
e = error(db, "SELECT count(*) FROM profile_events(?)",
          (write("open.html", '<!DOCTYPE html><script>var linuxPerfData = "\\\n# tracer: nop\\n\\\n'),))
check(e is not None and "linuxPerfData string is not closed" in e, "an unclosed JS string: said so", e)
# every prefix of a small document: an error or rows, never a crash
doc = html(text[:600]).encode()
bad = 0
for k in range(1, len(doc)):
    try:
        db.execute("SELECT count(*) FROM profile_events(?)", (doc[:k],)).fetchone()
    except Exception as ex:               # an error is fine; a crash would end the process
        bad += "not a supported" not in str(ex) and "no trace data" not in str(ex) and "not closed" not in str(ex) \
               and "expected" not in str(ex) and "empty" not in str(ex) and "line" not in str(ex)
check(bad == 0, f"every prefix of a document loads or fails with a message ({len(doc) - 1} prefixes)", bad)
done()
