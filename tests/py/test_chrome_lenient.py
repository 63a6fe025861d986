"""Chrome JSON read as Perfetto's trace_processor reads it (ext/formats/chrome.c; the leniency of
ext/wire/json.c, which only the Chrome reader turns on):

  - a trailing comma (',' right before ']' or '}') anywhere: the traceEvents array, an event, any
    value nested in one (args, id2, arrays), the top-level object; each is a 'lenient_json'
    diagnostic naming the comma's byte offset;
  - raw control characters inside strings: kept, a 'lenient_json' diagnostic each (a NUL also
    meets the text rule: U+FFFD with an 'invalid_text' diagnostic);
  - the JSON text handed out (args, metadata values, frame attrs) is RFC 8259 text all the same:
    the trailing commas dropped, control characters written \\u00XX (checked with Python's json
    module, which reads raw control characters only with strict=False, and with SQLite's
    json_valid / json_tree);
  - 'ts' / 'dur' / 'tts' / 'tdur' strings that are not numbers, and a 'ph' that is not one
    character, skip the event ('skipped_event'); an M event ignores such a time; a bad 's' or 'bp'
    is ignored ('other');
  - a pid without a tid is the process's main thread (tid = pid);
  - 's':'g' / 's':'p' instants on a global / per-process instant track; async and counter tracks
    scoped (profile_tracks' kind, when this build has profile_tracks);
  - 'T' and 'p' keep their dur;
  - the split (parallel) parse, forced through ctypes on small inputs, gives exactly the serial
    parse's rows and metadata.
Other JSON formats stay strict. Offsets below are counted by hand (and checked against the bytes)."""
import ctypes
import json
import os
import random
import sqlite3

from testlib import check, connect, done, skip_part

db = connect()
COLS = ("id, ts, dur, name, cat, ph, pid, tid, process_name, thread_name, depth, parent_id, track, args, "
        "tts, tdur, async_id, scope, flow_id, flow_in, flow_out, slice_id, byte_offset, stack_id, cpu")


def events(b, cols=COLS, where=""):
    return db.execute(f"SELECT {cols} FROM profile_events(?) {where} ORDER BY id", (b,)).fetchall()


def meta(b, where="1"):
    return db.execute(f"SELECT scope, key, value, byte_offset FROM profile_metadata(?) WHERE {where}", (b,)).fetchall()


def diags(b, kind):
    return db.execute("SELECT value, byte_offset FROM profile_metadata(?) WHERE scope = 'diagnostic' AND key = ?",
                      (b, kind)).fetchall()


def count(b, kind):
    r = db.execute("SELECT value FROM profile_metadata(?) WHERE scope = 'diagnostic' AND key = ?",
                   (b, kind + "_count")).fetchall()
    return r[0][0] if r else 0


def error(sql, *args):
    try:
        db.execute(sql, args).fetchall()
        return None
    except sqlite3.Error as e:
        return str(e)


COMMA = ("a trailing comma before '%s' at byte %d; read as if absent (RFC 8259 forbids it; trace_processor "
         "and the Perfetto UI accept it)")
CTRL = "a raw control character 0x%02x inside a string at byte %d; kept as it is"


def comma_diags(b, offs):
    """The lenient_json rows the trailing commas at offs make (each checked to be a ',' followed,
    after whitespace, by ']' or '}')."""
    out = []
    for o in offs:
        assert b[o:o + 1] == b",", (o, b[o:o + 8])
        c = b[o + 1:].lstrip(b" \t\r\n")[:1].decode()
        assert c in "]}", (o, c)
        out.append((COMMA % (c, o), o))
    return out


# ---- trailing commas: the hand-counted offsets
# [{"ph":"X","ts":1,"dur":2,},]
#  0 '['  1 '{'  2-5 "ph"  6 ':'  7-9 "X"  10 ','  11-14 "ts"  15 ':'  16 '1'  17 ','  18-22 "dur"
#  23 ':'  24 '2'  25 ','  26 '}'  27 ','  28 ']'
A = b'[{"ph":"X","ts":1,"dur":2,},]'
check(events(A, "ts, dur, ph") == [(1000, 2000, "X")], "an event and the array with trailing commas", events(A))
check(diags(A, "lenient_json") == [(COMMA % ("}", 25), 25), (COMMA % ("]", 27), 27)],
      "each trailing comma: a lenient_json diagnostic at its byte", diags(A, "lenient_json"))
check(count(A, "lenient_json") == 2, "lenient_json_count")
# the spec's unterminated array, with or without its last comma, stays as it was (no diagnostic)
for b in (b'[{"ph":"X","ts":1,"dur":2},', b'[{"ph":"X","ts":1,"dur":2},\n', b'[{"ph":"X","ts":1,"dur":2}'):
    check(events(b, "ts, dur") == [(1000, 2000)] and diags(b, "lenient_json") == [],
          "an unterminated array: the spec's, no lenient_json", b)

# every place at once, the object form:
# {"traceEvents":[{"ph":"b","cat":"c","name":"n","id2":{"local":7,},"ts":1,"args":{"a":[1,],},}],"k":{"x":1,},}
#  0 '{'  1-13 "traceEvents"  14 ':'  15 '['  16 '{'  17-20 "ph"  21 ':'  22-24 "b"  25 ','  26-30 "cat"
#  31 ':'  32-34 "c"  35 ','  36-41 "name"  42 ':'  43-45 "n"  46 ','  47-51 "id2"  52 ':'  53 '{'
#  54-60 "local"  61 ':'  62 '7'  63 ',' (id2)  64 '}'  65 ','  66-69 "ts"  70 ':'  71 '1'  72 ','
#  73-78 "args"  79 ':'  80 '{'  81-83 "a"  84 ':'  85 '['  86 '1'  87 ',' (array)  88 ']'
#  89 ',' (args)  90 '}'  91 ',' (event)  92 '}'  93 ']'  94 ','  95-97 "k"  98 ':'  99 '{'
#  100-102 "x"  103 ':'  104 '1'  105 ',' (k)  106 '}'  107 ',' (top level)  108 '}'
B = b'{"traceEvents":[{"ph":"b","cat":"c","name":"n","id2":{"local":7,},"ts":1,"args":{"a":[1,],},}],"k":{"x":1,},}'
B_OFFS = [63, 87, 89, 91, 105, 107]
check(len(B) == 109, "B as counted")
check(diags(B, "lenient_json") == comma_diags(B, B_OFFS), "trailing commas in id2, an array, args, an event, "
      "a metadata value and the top-level object", diags(B, "lenient_json"))
check(events(B, "ts, ph, name, cat, args, async_id") == [(1000, "b", "n", "c", '{"a":[1]}', 7)],
      "the event as if the commas were absent; args without them", events(B, "ts, ph, name, cat, args, async_id"))
check(meta(B, "scope = 'trace'") == [("trace", "k", '{"x":1}', 99)], "a top-level value without its comma",
      meta(B, "scope = 'trace'"))
# the same file with each trailing comma made a space (offsets unchanged) reads the same, strictly
Bs = bytearray(B)
for o in B_OFFS:
    Bs[o] = 0x20
Bs = bytes(Bs)
check(diags(Bs, "lenient_json") == [], "the strict twin has no leniency")
strip = lambda rows: [tuple(json.loads(v) if isinstance(v, str) and v[:1] in "{[" else v for v in r) for r in rows]
check(strip(events(B)) == strip(events(Bs)), "every column as the strict twin's (args compared as JSON)")
check(meta(B, "scope <> 'diagnostic' AND key <> 'k'") == meta(Bs, "scope <> 'diagnostic' AND key <> 'k'"),
      "metadata as the strict twin's")
check(db.execute("SELECT json_valid(args), (SELECT count(*) FROM json_tree(args)) FROM profile_events(?)", (B,)).fetchall()
      == [(1, 3)], "json_valid / json_tree read the args (SQLite here has no JSON5)")

# not everything with a comma is a trailing comma: still errors, at the byte
for b, want in [
        (b'[{"ph":"X","args":{"a":[1,,2]}}]', "byte 26 (line 1, column 27): expected a JSON value"),
        (b'[{"ph":"X","args":[,]}]', "byte 19 (line 1, column 20): expected a JSON value"),
        (b'[{"ph":"X","args":{,}}]', "byte 19 (line 1, column 20): expected a string key or '}'"),
        (b'[{"ph":"X",,"ts":1}]', "byte 11 (line 1, column 12): expected a string key in an event object"),
        (b'[{"ph":"X"},,]', "byte 12 (line 1, column 13): expected '{' (an event object) in traceEvents"),
        (b'{"traceEvents":[],,}', "byte 18 (line 1, column 19): expected a string key in the top-level object"),
        (b'[{"ph":"X","args":{"a":1,]}}]', "byte 25 (line 1, column 26): expected a string key"),
        (b'[{"ph":"X","args":[1,}]}]', "byte 21 (line 1, column 22): expected a JSON value")]:
    check(error("SELECT count(*) FROM profile_events(?)", b) == "profile_events: BLOB: " + want,
          "still an error: %r" % b, error("SELECT count(*) FROM profile_events(?)", b))
# ('[,]' is not even taken for a Chrome trace; read as one, it fails at the comma)
check((error("SELECT count(*) FROM profile_events(?, 'chrome')", b'[,]') or "").endswith(
    "byte 1 (line 1, column 2): expected '{' (an event object) in traceEvents"), "[,]", error("SELECT count(*) FROM profile_events(?, 'chrome')", b'[,]'))

# ---- raw control characters
# [{"ph":"X","name":"a\x01b","ts":1,"dur":1,"args":{"s":"q\nz"}}]
#  18 '"'  19 'a'  20 0x01  21 'b'  22 '"' ... 46 '{'  47-49 "s"  50 ':'  51 '"'  52 'q'  53 0x0a  54 'z'  55 '"'
C = b'[{"ph":"X","name":"a\x01b","ts":1,"dur":1,"args":{"s":"q\nz"}}]'
check(events(C, "name, args") == [("a\x01b", '{"s":"q\\u000az"}')], "a control character kept in a name, escaped in args",
      events(C, "name, args"))
check(diags(C, "lenient_json") == [(CTRL % (1, 20), 20), (CTRL % (10, 53), 53)], "each: lenient_json at its byte",
      diags(C, "lenient_json"))
check(json.loads(events(C, "args")[0][0]) == json.loads(b'{"s":"q\nz"}', strict=False), "args as Python's json reads them")
# a NUL: kept by the JSON reading, then the text rule (U+FFFD, invalid_text) where it is stored
D = b'[{"ph":"X","name":"a\x00b","ts":1,"dur":1,"args":{"s":"\x00"}}]'
check(events(D, "name, args") == [("a\ufffdb", '{"s":"\\u0000"}')], "a raw NUL: U+FFFD in a name, \\u0000 in args",
      events(D, "name, args"))
# (the same bytes as C up to the args string: its '"' at 51, the NUL at 52)
check(diags(D, "lenient_json") == [(CTRL % (0, 20), 20), (CTRL % (0, 52), 52)]
      and [o for _, o in diags(D, "invalid_text")] == [20], "a NUL: lenient_json, and invalid_text for the name",
      (diags(D, "lenient_json"), diags(D, "invalid_text")))
# in a key, a top-level string, an M event's args (metadata), a string beside an id
E = (b'{"traceEvents":[{"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"T\tx","n":"a\x1fb"}},'
     b'{"ph":"M","name":"other_meta","pid":1,"tid":1,"args":{"k":"v\x02",}},'
     b'{"ph":"X","name":"x","pid":1,"tid":1,"ts":1,"dur":1,"args":{"k\x03":1}}],"s":"a\rb"}')
check(events(E, "thread_name, args", "WHERE ph = 'X'") == [("T\tx", '{"k\\u0003":1}')], "a thread name with a tab; a key escaped",
      events(E, "thread_name, args", "WHERE ph = 'X'"))
check(meta(E, "scope = 'thread:1:1' OR scope = 'trace'") ==
      [("thread:1:1", "thread_name", "T\tx", 16), ("thread:1:1", "other_meta", '{"k":"v\\u0002"}', E.index(b'{"ph":"M","name":"other')),
       ("trace", "s", "a\rb", E.index(b'"a\rb"'))],
      "metadata: decoded text as it is, JSON text escaped and without its trailing comma",
      meta(E, "scope = 'thread:1:1' OR scope = 'trace'"))
check([o for _, o in diags(E, "lenient_json")] == [E.index(b"\t"), E.index(b"\x1f"), E.index(b"\x02"), E.index(b",}}"),
                                                  E.index(b"\x03"), E.index(b"\r")], "each once, in file order", diags(E, "lenient_json"))

# ---- other JSON formats stay strict (the leniency is the Chrome reader's alone)
CPU = (b'{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","url":"","scriptId":"0","lineNumber":-1,"columnNumber":-1},"children":[]},],'
       b'"startTime":0,"endTime":10,"samples":[1],"timeDeltas":[1]}')
# {"nodes":[ 0-9  { 10  "id":1, 11-17  "callFrame": 18-29  { 30  "functionName": 31-45  "(root)" 46-53
# , 54  "url":"" 55-62  , 63  "scriptId":"0" 64-77  , 78  "lineNumber":-1 79-93  , 94  "columnNumber":-1 95-111
# } 112  , 113  "children":[] 114-126  } 127  , 128  ] 129
check(error("SELECT count(*) FROM profile_events(?)", CPU) == "profile_events: BLOB: byte 129 (line 1, column 130): expected a JSON value"
      and CPU[128:130] == b",]", "a cpuprofile with a trailing comma: still an error", error("SELECT count(*) FROM profile_events(?)", CPU))
CPU2 = CPU.replace(b",]", b"]").replace(b'"(root)"', b'"(ro\x01ot)"')
check(error("SELECT count(*) FROM profile_events(?)", CPU2) == "profile_events: BLOB: byte 50 (line 1, column 51): control character 0x01 inside a string"
      and CPU2[50] == 1, "a cpuprofile with a raw control character: still an error", error("SELECT count(*) FROM profile_events(?)", CPU2))
SS = (b'{"$schema":"https://www.speedscope.app/file-format-schema.json","shared":{"frames":[{"name":"a"},]},'
      b'"profiles":[]}')
check((error("SELECT count(*) FROM profile_events(?)", SS) or "").endswith("expected a JSON value"),
      "speedscope with a trailing comma: still an error", error("SELECT count(*) FROM profile_events(?)", SS))

# ---- times that are strings but not numbers; ph that is not one character
T = (b'[{"ph":"X","ts":"100a","dur":1},'                                   # 1: ts
     b'{"ph":"X","name":"d","ts":1,"dur":"50a"},'                          # 32: dur
     b'{"ph":"X","name":"t","ts":1,"dur":1,"tts":"invalid"},'              # tts
     b'{"ph":"X","name":"u","ts":1,"dur":1,"tdur":"x","tts":"also bad"},'  # the first by offset: tdur
     b'{"ph":"X","name":"ok","ts":"300","dur":"200.5","tts":"50.5","tdur":"7"},'
     b'{"ph":"X","name":"dup","ts":"bad","ts":5,"dur":1},'                 # the last one wins
     b'{"ph":"M","name":"thread_name","pid":1,"tid":1,"ts":"invalid","args":{"name":"Main"}},'
     b'{"ph":"X","name":"named","pid":1,"tid":1,"ts":2,"dur":1},'
     b'{"ph":"XXX","ts":1},{"ph":"","ts":1},{"ph":5,"ts":1},{"ph":"\xc3\xa9","ts":1},'
     b'{"ph":"i","name":"s","s":"xx","ts":3},{"ph":"f","name":"bp","id":1,"bp":"ee","ts":3}]')
want_skipped = [
    ("'ts' is the string \"100a\", not a number; event skipped", 16),
    ("'dur' is the string \"50a\", not a number; event skipped", T.index(b'"50a"')),
    ("'tts' is the string \"invalid\", not a number; event skipped", T.index(b'"invalid"')),
    ("'tdur' is the string \"x\", not a number; event skipped", T.index(b'"x"')),
    ("'ph' is \"XXX\", not one character; event skipped", T.index(b'"XXX"')),
    ("'ph' is \"\", not one character; event skipped", T.index(b'"",')),
    ("'ph' is 5, not one character; event skipped", T.index(b'5,"ts"')),
    ("'ph' is \"\u00e9\", not one ASCII character; event skipped", T.index(b'"\xc3\xa9"'))]
# the first event is bytes 1-30, its ',' 31; the second: {"ph":"X", 32-41  "name":"d", 42-52  "ts":1, 53-59
# "dur": 60-65  "50a" 66
check(T.index(b'"50a"') == 66, "offset of \"50a\" counted by hand")
check(diags(T, "skipped_event") == want_skipped, "skipped events: one diagnostic each, at the bad value", diags(T, "skipped_event"))
check(events(T, "name, ph, ts, dur, tts, tdur, tid, thread_name") == [
    ("ok", "X", 300000, 200500, 50500, 7000, None, None),
    ("dup", "X", 5000, 1000, None, None, None, None),
    ("thread_name", "M", 0, None, None, None, 1, "Main"),
    ("named", "X", 2000, 1000, None, None, 1, "Main"),
    ("s", "i", 3000, 0, None, None, None, None),
    ("bp", "f", 3000, None, None, None, None, None)],
    "the rows kept: numeric strings read as numbers, the M event's thread_name applies",
    events(T, "name, ph, ts, dur, tts, tdur, tid, thread_name"))
check(diags(T, "other") == [
    ("'ts' is the string \"invalid\", not a number; ignored (a metadata event has no times)", T.index(b'"invalid","args"')),
    ("'s' is \"xx\", not one character; ignored", T.index(b'"xx"')),
    ("'bp' is \"ee\", not one character; ignored", T.index(b'"ee"'))],
    "an M event's bad ts, a bad s and bp: ignored with an 'other' diagnostic", diags(T, "other"))
check(sorted(meta(T, "scope = 'ph'")) == [("ph", "M", 1, None), ("ph", "X", 3, None), ("ph", "f", 1, None), ("ph", "i", 1, None)],
      "the ph counts leave the skipped events out", meta(T, "scope = 'ph'"))
check(count(T, "skipped_event") == 8 and count(T, "duplicate_key") == 1, "counts")
# a bad 's' leaves a thread instant: it nests
check(events(T, "depth", "WHERE name = 's'") == [(0,)], "an instant whose 's' is ignored is a thread instant")
# the file that failed to load before: one bad event no longer costs the rest
check(events(b'[{"ph":"X","ts":"soon"},{"ph":"X","ts":1,"dur":1}]', "ts") == [(1000,)], "the rest of the file loads")

# ---- pid without tid: the process's main thread
P = (b'[{"ph":"M","name":"process_name","pid":7,"args":{"name":"Proc"}},'
     b'{"ph":"M","name":"thread_name","pid":7,"args":{"name":"Main"}},'
     b'{"ph":"X","name":"a","pid":7,"ts":1,"dur":1},'
     b'{"ph":"X","name":"b","pid":7,"tid":null,"ts":2,"dur":1},'
     b'{"ph":"X","name":"c","pid":7,"tid":7,"ts":3,"dur":1},'
     b'{"ph":"X","name":"d","pid":"s","ts":4,"dur":1},'
     b'{"ph":"X","name":"e","ts":5,"dur":1}]')
check(events(P, "name, pid, tid, process_name, thread_name, track") == [
    ("process_name", 7, 7, "Proc", "Main", 0), ("thread_name", 7, 7, "Proc", "Main", 0),
    ("a", 7, 7, "Proc", "Main", 0), ("b", 7, 7, "Proc", "Main", 0), ("c", 7, 7, "Proc", "Main", 0),
    ("d", "s", "s", None, None, 1), ("e", None, None, None, None, 2)],
    "tid = pid when absent (or null), one thread per process; no pid: NULL", events(P, "name, pid, tid, process_name, thread_name, track"))
check(meta(P, "scope = 'capture' AND key = 'threads'") == [("capture", "threads", 3, None)], "three threads, no (7, NULL)")
check(meta(P, "scope LIKE 'process:%' OR scope LIKE 'thread:%'") ==
      [("process:7", "process_name", "Proc", 1), ("thread:7:7", "thread_name", "Main", P.index(b'{"ph":"M","name":"thread_name"'))],
      "process-level M events stay process-level; thread_name names (7, 7)", meta(P, "scope LIKE 'process:%' OR scope LIKE 'thread:%'"))

# ---- instants by scope, T / p durations
I = (b'[{"ph":"X","name":"outer","pid":1,"tid":1,"ts":0,"dur":100},'
     b'{"ph":"i","name":"t","s":"t","pid":1,"tid":1,"ts":10},'
     b'{"ph":"i","name":"g1","s":"g","pid":1,"tid":1,"ts":11},'
     b'{"ph":"I","name":"g2","s":"g","pid":2,"tid":5,"ts":12},'
     b'{"ph":"R","name":"p1","s":"p","pid":1,"tid":2,"ts":13},'
     b'{"ph":"i","name":"p2","s":"p","pid":1,"tid":1,"ts":14},'
     b'{"ph":"i","name":"p3","s":"p","pid":2,"tid":5,"ts":15},'
     b'{"ph":"i","name":"p4","s":"p","pid":"1","tid":1,"ts":16},'
     b'{"ph":"S","name":"async","cat":"c","id":9,"pid":1,"tid":1,"ts":20},'
     b'{"ph":"T","name":"async","cat":"c","id":9,"pid":1,"tid":1,"ts":30,"dur":3},'
     b'{"ph":"p","name":"async","cat":"c","id":9,"pid":1,"tid":1,"ts":40,"dur":4.5},'
     b'{"ph":"T","name":"async","cat":"c","id":9,"pid":1,"tid":1,"ts":50},'
     b'{"ph":"F","name":"async","cat":"c","id":9,"pid":1,"tid":1,"ts":60}]')
r = {n: (ph, dur, depth, track) for n, ph, dur, depth, track in events(I, "name, ph, dur, depth, track")
     if n != "async"}
check(r["t"] == ("i", 0, 1, 0) and r["outer"][3] == 0, "a thread instant nests on its thread's track", r)
check(r["g1"][3] == r["g2"][3] and r["g1"][2] is None and r["g2"][2] is None,
      "global instants: one track for every pid, depth NULL", r)
check(r["p1"][3] == r["p2"][3] and r["p3"][3] != r["p1"][3] and r["p4"][3] not in (r["p1"][3], r["p3"][3])
      and len({r["g1"][3], r["p1"][3], r["p3"][3], r["p4"][3], r["t"][3]}) == 5
      and all(r[k][2] is None for k in ("p1", "p2", "p3", "p4")),
      "process instants: one track per pid (1 and '1' two), depth NULL", r)
check(events(I, "ph, dur", "WHERE name = 'async'") == [("S", 40000), ("T", 3000), ("p", 4500), ("T", None)],
      "T and p keep the dur they give", events(I, "ph, dur", "WHERE name = 'async'"))

# track kinds (the scopes the reader sets) through profile_tracks, when this build has it
K = (b'[{"ph":"b","cat":"c","name":"l","id2":{"local":1},"pid":1,"tid":1,"ts":1},'
     b'{"ph":"e","cat":"c","name":"l","id2":{"local":1},"pid":1,"tid":1,"ts":2},'
     b'{"ph":"b","cat":"c","name":"g","id2":{"global":1},"pid":1,"tid":1,"ts":1},'
     b'{"ph":"n","cat":"c","name":"i","id":3,"pid":1,"tid":1,"ts":1},'
     b'{"ph":"C","name":"ctr","pid":1,"tid":1,"ts":1,"args":{"v":1}},'
     b'{"ph":"i","name":"gi","s":"g","pid":1,"tid":1,"ts":1},'
     b'{"ph":"i","name":"pi","s":"p","pid":1,"tid":1,"ts":1}]')
try:
    kinds = db.execute("SELECT e.name, t.kind FROM profile_events(?1) e JOIN profile_tracks(?1) t ON t.id = e.track "
                       "ORDER BY e.id", (K,)).fetchall()
except sqlite3.Error as ex:
    kinds = None
    skip_part("profile_tracks is not in this build (%s): track scopes unchecked" % ex)
if kinds is not None:
    check(kinds == [("l", "process_async"), ("g", "global_async"), ("i", "global_async"), ("ctr", "process_counter"),
                    ("gi", "global_instant"), ("pi", "process_instant")],
          "id2.local: process_async; id2.global and id: global_async; C: process_counter; s g / p instants", kinds)

# ---- Python's json module against the normalised text: random args with trailing commas and raw
# control characters written in; the args read back must be strict JSON equal to the value
rnd = random.Random(7)
CTRLS = [c for c in range(0x20) if c != 0]        # (a NUL is repaired as text, checked above)


def rand_value(d):
    k = rnd.random()
    if d > 3 or k < 0.3:
        return rnd.choice([1, -2.5, True, None, "s", "x" + chr(rnd.choice(CTRLS)) + "y", "\u00e9\\\"", "a,]", "b, }\\",
                           "\\\\,\n]"])
    if k < 0.65:
        return [rand_value(d + 1) for _ in range(rnd.randint(0, 4))]
    return {("k%d" % j) + ("" if rnd.random() < 0.8 else chr(rnd.choice(CTRLS))): rand_value(d + 1)
            for j in range(rnd.randint(0, 4))}


def write(v, out):
    """v as JSON with raw control characters in its strings and a trailing comma after half of its
    non-empty containers' last members; returns (commas, control characters) written."""
    if isinstance(v, str):
        # '"' and '\\' escaped, control characters raw (RFC 8259 wants them escaped)
        out.append('"' + "".join("\\" + ch if ch in '"\\' else ch for ch in v) + '"')
        return 0, sum(ord(ch) < 0x20 for ch in v)
    if isinstance(v, list) or isinstance(v, dict):
        items = list(v.items()) if isinstance(v, dict) else list(v)
        out.append("{" if isinstance(v, dict) else "[")
        nc = nk = 0
        for j, it in enumerate(items):
            if j:
                out.append(", " if rnd.random() < 0.3 else ",")
            if isinstance(v, dict):
                a, b = write(it[0], out)
                nc += a; nk += b
                out.append(":")
                it = it[1]
            a, b = write(it, out)
            nc += a; nk += b
        if items and rnd.random() < 0.5:
            out.append(rnd.choice([",", ", ", ",\n\t"]))
            nc += 1
        out.append("}" if isinstance(v, dict) else "]")
        return nc, nk
    out.append(json.dumps(v))
    return 0, 0


ok = True
n_commas = n_ctrl = 0
for trial in range(200):
    v = {"a": rand_value(0), "b": rand_value(1)}
    out = []
    nc, nk = write(v, out)
    n_commas += nc; n_ctrl += nk
    text = "".join(out)
    doc = ('[{"ph":"X","name":"r","ts":1,"dur":1,"args":' + text + '}]').encode()
    got = db.execute("SELECT args, json_valid(args) FROM profile_events(?)", (doc,)).fetchall()
    if not got or got[0][1] != 1:
        ok = False
        print("FAIL trial", trial, "not valid JSON:", got, text)
        break
    try:
        back = json.loads(got[0][0])          # strict: no raw control characters, no trailing commas
    except ValueError as ex:
        ok = False
        print("FAIL trial", trial, ex, got[0][0])
        break
    if back != v or count(doc, "lenient_json") != nc + nk:
        ok = False
        print("FAIL trial", trial, back, v, count(doc, "lenient_json"), nc, nk)
        break
check(n_commas > 200 and n_ctrl > 200, "the random args had leniency to read", (n_commas, n_ctrl))
check(ok, "200 random args: strict JSON (Python's json, json_valid) equal to the value; one diagnostic per leniency")

# ---- stacks: frames with trailing commas, attrs handed out as strict JSON; a V8 profile in args
S = (b'{"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1,"sf":2,},'
     b'{"ph":"P","name":"Profile","id":"0x1","pid":1,"tid":1,"ts":0,"args":{"data":{"startTime":0,},},},'
     b'{"ph":"P","name":"ProfileChunk","id":"0x1","pid":1,"tid":2,"ts":10,"args":{"data":{"cpuProfile":{"nodes":['
     b'{"id":1,"callFrame":{"functionName":"(root)","url":"","scriptId":0,"lineNumber":-1,"columnNumber":-1,},},'
     b'{"id":2,"parent":1,"callFrame":{"functionName":"f\x01","url":"u","scriptId":1,"lineNumber":3,"columnNumber":4,},},],'
     b'"samples":[2,2,],},"timeDeltas":[5,5,],},},}],'
     b'"stackFrames":{"1":{"name":"main",},"2":{"name":"f","parent":1,"category":"c",},},}')
recs = db.execute("SELECT record_id, parent_record_id, name, attrs, json_valid(attrs) FROM profile_records(?) ORDER BY record_id",
                  (S,)).fetchall()
check(all(r[4] == 1 for r in recs) and len(recs) == 4, "every frame's attrs: valid JSON", recs)
check([(r[0], r[1], r[2]) for r in recs][:2] == [(1, None, "main"), (2, 1, "f")]
      and json.loads(recs[1][3]) == {"name": "f", "parent": 1, "category": "c"}, "stackFrames with trailing commas", recs)
check(sorted(json.loads(r[3])["callFrame"]["functionName"] for r in recs[2:]) == ["(root)", "f\x01"],
      "V8 nodes read from args with trailing commas; a raw control character escaped in their attrs", recs[2:])
check(events(S, "ph, stack_id", "WHERE stack_id IS NOT NULL") == [("X", 2)] + [("P", recs[3][0])] * 2,
      "the slice's sf and the profile's two samples", events(S, "ph, stack_id, name", "WHERE stack_id IS NOT NULL"))

# ---- bounded and linear on hostile input: every prefix of a lenient file; long runs of leniency
base = B + b""
for k in range(len(C) + 1):
    error("SELECT count(*) FROM profile_events(?)", C[:k])
for k in range(len(B) + 1):
    error("SELECT count(*) FROM profile_events(?)", B[:k])
check(True, "every prefix of two lenient files: no crash")
deep = b'[{"ph":"X","ts":1,"dur":1,"args":' + b'[' * 500 + b'1' + b',]' * 500 + b'}]'
check(count(deep, "lenient_json") == 500 and events(deep, "json_valid(args)") == [(1,)], "500 nested trailing commas")
deeper = b'[{"ph":"X","ts":1,"dur":1,"args":' + b'[' * 9000 + b'1' + b',]' * 9000 + b'}]'
check(count(deeper, "lenient_json") == 9000 and events(deeper, "length(args)") == [(2 * 9000 + 1,)],
      "9,000 nested trailing commas (within max_json_depth)")
many = b'[{"ph":"X","ts":1,"dur":1,"args":{"s":"' + b'\x01' * 200000 + b'"}}]'
check(count(many, "lenient_json") == 200000 and len(diags(many, "lenient_json")) == 1000
      and events(many, "length(args)") == [(len('{"s":""}') + 6 * 200000,)],
      "200,000 control characters: counted, 1,000 rows, escaped")

# ---- the split parse (forced through ctypes) gives exactly the serial parse
lib = ctypes.CDLL(os.path.abspath("libprofsql.so"))
pmin = ctypes.c_size_t.in_dll(lib, "ps_chrome_parallel_min")
pthreads = ctypes.c_size_t.in_dll(lib, "ps_parse_threads")
merged = ctypes.c_size_t.in_dll(lib, "ps_chrome_splits_merged")
parts = []
for i in range(3000):
    pid, tid = 1 + i % 3, 1 + i % 5
    kind = i % 19
    if kind == 0:
        parts.append('{"ph":"X","name":"n%d","pid":%d,"tid":%d,"ts":%d,"dur":3,"args":{"a":[1,2,],"s":"x\ty",},}' % (i % 7, pid, tid, i))
    elif kind == 1:
        parts.append('{"ph":"X","name":"bad","pid":%d,"tid":%d,"ts":"%da","dur":1}' % (pid, tid, i))
    elif kind == 2:
        parts.append('{"ph":"XX","ts":%d}' % i)
    elif kind == 3:
        parts.append('{"ph":"i","name":"g","s":"g","pid":%d,"tid":%d,"ts":%d}' % (pid, tid, i))
    elif kind == 4:
        parts.append('{"ph":"i","name":"p","s":"p","pid":%d,"tid":%d,"ts":%d,}' % (pid, tid, i))
    elif kind == 5:
        parts.append('{"ph":"b","cat":"c","name":"a","id2":{"local":%d,},"pid":%d,"tid":%d,"ts":%d}' % (i % 4, pid, tid, i))
    elif kind == 6:
        parts.append('{"ph":"e","cat":"c","name":"a","id2":{"local":%d},"pid":%d,"tid":%d,"ts":%d}' % ((i - 1) % 4, pid, tid, i + 2))
    elif kind == 7:
        parts.append('{"ph":"T","cat":"c","name":"s","id":%d,"pid":%d,"ts":%d,"dur":2}' % (i % 3, pid, i))
    elif kind == 8:
        parts.append('{"ph":"C","name":"ctr","pid":%d,"tid":%d,"ts":%d,"args":{"v":%d,}}' % (pid, tid, i, i))
    elif kind == 9:
        parts.append('{"ph":"M","name":"thread_name","pid":%d,"ts":"never","args":{"name":"T%d\x01",},}' % (pid, i))
    elif kind == 10:
        parts.append('{"ph":"X","name":"x","pid":%d,"ts":%d,"dur":1,"tts":"%s"}' % (pid, i, "1.5" if i % 2 else "z"))
    else:
        parts.append('{"ph":"X","name":"n%d","pid":%d,"tid":%d,"ts":%d,"dur":1,"s":"zz"}' % (i % 7, pid, tid, i))
SPLIT = ('{"traceEvents":[' + ",\n".join(parts) + ',],"meta":{"k":[1,],},}').encode()


def read_all(b):
    c = connect()
    ev = c.execute(f"SELECT {COLS} FROM profile_events(?) ORDER BY id", (b,)).fetchall()
    md = c.execute("SELECT scope, key, value, byte_offset FROM profile_metadata(?)", (b,)).fetchall()
    try:
        tr = c.execute("SELECT id, kind, upid, utid FROM profile_tracks(?) ORDER BY id", (b,)).fetchall()
    except sqlite3.Error:
        tr = None
    c.close()
    return ev, md, tr


# profile_jobs reads a Chrome event's args as the reader did (with its leniency): the budget behind
# trailing commas is read, as a strict twin of the same event gives it
jdb = connect()
lenient = b'[{"ph":"X","pid":1,"tid":1,"ts":0,"dur":5000,"name":"job","args":{"budget_ms":2.5,"x":[1,],},},]'
strict = b'[{"ph":"X","pid":1,"tid":1,"ts":0,"dur":5000,"name":"job","args":{"budget_ms":2.5,"x":[1]}}]'
got = [jdb.execute("SELECT name, budget_ms, elapsed_ms FROM profile_jobs(?)", (b,)).fetchall() for b in (lenient, strict)]
check(got[0] == got[1] == [("job", 2.5, 5.0)], "profile_jobs: a lenient event's args read as its strict twin's", got)
jdb.close()

save_min, save_threads = pmin.value, pthreads.value
try:
    pmin.value = (1 << 64) - 1
    serial = read_all(SPLIT)
    check(len(serial[0]) > 2000 and count(SPLIT, "lenient_json") > 1000 and count(SPLIT, "skipped_event") > 300,
          "the split test's file has every leniency", (len(serial[0]), count(SPLIT, "lenient_json")))
    for n in (2, 3, 5, 7):
        pmin.value = 0
        pthreads.value = n
        m0 = merged.value
        split = read_all(SPLIT)
        check(merged.value == m0 + n - 1, "%d parts: every part proven and merged" % n, merged.value - m0)
        check(split[0] == serial[0], "%d parts: the rows are the serial parse's" % n)
        check(split[1] == serial[1], "%d parts: the metadata (diagnostics too, in order) is the serial parse's" % n,
              [(a, b) for a, b in zip(split[1], serial[1]) if a != b][:3])
        check(split[2] == serial[2], "%d parts: the tracks and their kinds are the serial parse's" % n)
finally:
    pmin.value, pthreads.value = save_min, save_threads

done()
