"""Android systrace HTML (ext/htmlsrc.c): the trace inside the document is unwrapped below the
parsers, like gzip, and read as what it is. Checked: the corpus' old-form document (the trace in
a `var linuxPerfData = "..."` JavaScript string) gives the four counter markers its README lists;
a new-form `<script class="trace-data">` block of ftrace text, the same block zlib- and
raw-deflate-compressed and base64-encoded (systrace --compress), and a block of Trace Event JSON
each give exactly the rows the bare text / JSON file gives (compared row by row); BLOBs as files;
and the errors: no trace data, blocks of two kinds, damaged base64, an unclosed string."""
import base64
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

# the repository's compressed document (docs/ftrace.md, a fuzz seed) reads as its text
check(rows("tests/data/ftrace/systrace_compressed.html") == rows("tests/data/ftrace/old_forms.txt"),
      "tests/data/ftrace/systrace_compressed.html: the rows of old_forms.txt")

# ---- errors
e = error(db, "SELECT count(*) FROM profile_events(?)", (write("none.html", html()),))
check(e is not None and "an HTML document with no trace data" in e, "no trace data: said so", e)
e = error(db, "SELECT count(*) FROM profile_events(?)", (write("mixed.html", html(js, text)),))
check(e is not None and "1 JSON and 1 ftrace text blocks" in e and "not supported yet" in e, "blocks of two kinds: said so", e)
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
