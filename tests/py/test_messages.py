"""Error messages say what to fix (issue 12, item 12): a damaged capture names the format it looked
like and where it broke, a file cut short says it ends early, JSON errors give line and column as
well as the byte, and a long path never pushes the reason out of the message.

Every expected position is computed here from the bytes (Python's str.count / rfind), not copied
from the library's output."""
import os
import sqlite3
import tempfile

from testlib import check, connect, done

db = connect()


def err(sql, *args):
    try:
        db.execute(sql, args).fetchall()
    except sqlite3.Error as e:
        return str(e)
    return None


def where(b, off):
    """1-based line and column (in characters) of byte off, computed independently."""
    line = b.count(b"\n", 0, off) + 1
    start = b.rfind(b"\n", 0, off) + 1
    return line, len(b[start:off].decode("utf-8", "replace")) + 1


EV = "SELECT count(*) FROM profile_events(?)"
d = tempfile.mkdtemp()

# ---- line and column in a pretty-printed file (non-ASCII before the error: columns count
# characters, not bytes)
pretty = ('{\n  "traceEvents": [\n    {"ph": "X", "name": "\u00e9t\u00e9", "ts": 1, "dur": 1, "pid": 1, "tid": 1},\n'
          '    {"ph": "X", "name": "b", "ts": 2 "dur": 1}\n  ]\n}\n').encode()
off = pretty.index(b'"dur": 1}')
line, col = where(pretty, off)
check((line, col) == (4, 38), "hand check of the position", (line, col))
check(err(EV, pretty) == f"profile_events: BLOB: byte {off} (line {line}, column {col}): expected ',' or '}}' in an event object",
      "a JSON error gives line and column", err(EV, pretty))

# ---- a file cut short says so first, where the input ends and where the open token began
whole = b'[{"ph":"X","name":"a","ts":1,"dur":1,"pid":1,"tid":1},\n {"ph":"X","name":"bcd","ts":2,"dur":1,"pid":1,"tid":1}]'
cut = whole[:whole.index(b'bcd') + 2]               # inside the name string of the second event
l_end, c_end = where(cut, len(cut))
q = cut.index(b'"bcd') if b'"bcd' in cut else cut.rindex(b'"')
l_q, c_q = where(cut, q)
check(err(EV, cut) == f"profile_events: BLOB: the input ends inside an event at byte {len(cut)} (line {l_end}, column {c_end}; "
                      f"cut short?): byte {q} (line {l_q}, column {c_q}): unterminated string",
      "a file cut inside a string", err(EV, cut))
cut2 = whole[:whole.index(b'"ts":2') + 4]          # after a key, before its ':'
l2, c2 = where(cut2, len(cut2))
check(err(EV, cut2) == f"profile_events: BLOB: the input ends inside an event at byte {len(cut2)} (line {l2}, column {c2}; "
                       f"cut short?): expected ':' after a key in an event object",
      "a file cut after a key (it said only \"expected ':' after an object key\")", err(EV, cut2))
cut3 = whole[:whole.index(b'},') + 1] + b" "        # between events of an object-form file
obj = b'{"traceEvents":' + cut3
check(err(EV, obj) == f"profile_events: BLOB: the input ends inside the traceEvents array at byte {len(obj)} "
                      f"(line 1, column {len(obj) + 1}; cut short?): expected ',' or ']' in traceEvents",
      "an object-form file cut between events", err(EV, obj))

# ---- a damaged capture that no probe claims: the closest format's reader says where it breaks
# (before: "not a supported capture" and nothing else)
SUP = "chrome, timings, lms, xspace, newengine, tf_stats, kernel_stats, input_pipeline, overview_page, memory_profile, xprof_trace, xprof_datatable, cpuprofile, speedscope, pprof, perf_script, folded, ftrace"
tm = b"Minecraft\n    Full Server Tick Time: 12x Count: 5 Avg: 1\n"
p = os.path.join(d, "damaged_timings.txt")
with open(p, "wb") as f:
    f.write(tm)
check(err(EV, p) == f"profile_events: '{p}' is not a supported capture (supported: {SUP}); read as timings it fails: "
                    "no timings record found (expected indented '<name> Time: N Count: N ...' lines)",
      "a damaged timings report", err(EV, p))
# an XSpace whose first plane length runs past the end and no plane name follows early
xs = bytes([0x0a, 0xff, 0x01, 0x08, 0x01]) + b"\x00" * 8
check(err(EV, xs) == f"profile_events: the BLOB is not a supported capture (supported: {SUP}); read as xspace it fails: "
                     "byte 1: length 255 runs past the end of XSpace (10 bytes left)",   # 13 bytes - tag - 2-byte varint
      "a damaged XSpace", err(EV, xs))
# bytes that look like nothing stay as they were
check(err(EV, b"\x00\x01\x02 hello") == f"profile_events: the BLOB is not a supported capture (supported: {SUP})",
      "unknown bytes")
# a protobuf of another schema: said so, not guessed (field 1 = 1, field 2 = 2, field 3 = "abc":
# an XPlane would need field 3 to be an XLine, a Trace field 1 a map entry)
pb = bytes([0x08, 0x01, 0x10, 0x02, 0x1a, 0x03]) + b"abc"
check(err(EV, pb) == f"profile_events: the BLOB is not a supported capture (supported: {SUP}): a well-formed "
                     "protobuf, but none of the messages tried (XSpace, TfStatsDatabase, KernelStatsDb, "
                     "InputPipelineAnalysisResult, OverviewPage, MemoryProfile, Trace, pprof Profile)",
      "a protobuf of no known message", err(EV, pb))
# a directory scan still skips files that are not captures, damaged or not
with open(os.path.join(d, "good.json"), "wb") as f:
    f.write(whole)
check(db.execute(EV, (d,)).fetchone()[0] == 2, "a directory scan skips the damaged file")
check(db.execute("SELECT count(*) FROM profile_metadata(?) WHERE scope = 'files'", (d,)).fetchone()[0] >= 1,
      "... and lists it")

# ---- a long path: the reason stays in the message (ps_path_fit keeps head and tail)
longdir = os.path.join(d, "x" * 240, "y" * 240)
os.makedirs(longdir)
lp = os.path.join(longdir, "trace.json")
with open(lp, "wb") as f:
    f.write(cut2)
m = err(EV, lp) or ""
check(m.startswith("profile_events: " + lp + ": the input ends inside an event"), "a long path is named whole at SQL level", m[:80])
check(m.endswith("expected ':' after a key in an event object"), "and the reason is whole", m[-80:])

done()
