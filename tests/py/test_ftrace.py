"""Linux ftrace text (format 'ftrace', ext/formats/ftrace.c), checked against an independent reading of
the same bytes in Python written from the kernel's Documentation/trace/ftrace.rst line layout and
catapult's linux_perf_importer regexes:

  1. per file (the corpus catapult-android_systrace.txt in its escaped "\\n\\" form, the text
     inside catapult-trivial_systrace.html extracted here and read through a BLOB, and the
     hand-made tests/data/ftrace/*.txt): raw event rows per name, atrace slices (count and
     sum(dur) per (name, tid)), async slices, counters (pid, name, ts, value), CPU time per
     thread from sched_switch intervals, every row's ts / tid / cpu;
  2. args (fields, flags, text), metadata (tracer, entries, #P), diagnostics with line numbers;
  3. detection: ftrace files detected (the systrace HTML's trace too), other formats' files not
     claimed;
  4. every prefix of a small file loads or fails with a message; an empty input; CRLF and no
     final newline read as the LF form.
Corpus parts skip (with a SKIP line) when ../shared is absent."""
import json
import os
import re
import sqlite3

import testlib
from testlib import check, connect, done, skip_part

DATA = os.path.join("tests", "data", "ftrace")
CORPUS = os.path.join("..", "shared", "corpus", "ftrace")
db = connect()

# ---------------------------------------------------------------- the reference reader
LINE = re.compile(r"^\s*(.+)-(\d+)\s+(?:\(\s*(\d+|-+)\)\s+)?\[(\d+)\]\s+(?:(\S{1,8})\s+)?"
                  r"(\d+)\.(\d+):\s+(\S+?):?(?:\s+(.*))?$")
SWITCH = re.compile(r"prev_comm=(.+) prev_pid=(\d+) prev_prio=(\d+) prev_state=(\S+) ==> "
                    r"next_comm=(.+) next_pid=(\d+) next_prio=(\d+)")


def lines_of(text):
    out = []
    esc = text.split("\n", 1)[0].rstrip("\r").endswith("\\n\\")
    for ln in text.split("\n"):
        ln = ln.rstrip("\r")
        if ln.endswith("\\n\\"):
            ln = ln[:-3]
        elif esc and ln.endswith("\\n"):
            ln = ln[:-2]
        out.append(ln.rstrip(" \t\r"))
    return out


def reference(text):
    """What the file says: raw events, slices, async slices, counters, cpu time per tid."""
    raw, slices, asyncs, counters, cpu_time = {}, {}, {}, [], {}
    stacks, open_async, running = {}, {}, {}
    last_ts = None
    for ln in lines_of(text):
        if not ln.strip() or ln.lstrip().startswith("#"):
            continue
        m = LINE.match(ln)
        if not m:
            continue
        comm, tid, tgid, cpu, flags, s, f, name, body = m.groups()
        tid, cpu = int(tid), int(cpu)
        ts = int(s) * 10**9 + int(f.ljust(9, "0"))
        last_ts = ts if last_ts is None else max(last_ts, ts)
        body = body or ""
        marker = None
        if name in ("tracing_mark_write", "0"):
            marker = body
        elif name == "print":
            marker = body.split(": ", 1)[1] if ": " in body else body
        if marker is not None:
            parts = marker.split("|")
            if parts[0] == "E" and (marker == "E" or marker.startswith("E|")):
                st = stacks.get(tid, [])
                if st:
                    b = st.pop()
                    key = (b[0], tid)
                    c, d = slices.get(key, (0, 0))
                    slices[key] = (c + 1, d + ts - b[1])
                continue
            if len(parts) >= 3 and parts[0] == "B" and parts[1].isdigit():
                stacks.setdefault(tid, []).append(("|".join(parts[2:]), ts))
                continue
            if len(parts) >= 4 and parts[0] in "CSF" and len(parts[0]) == 1 and parts[1].isdigit():
                pid, nm, v = int(parts[1]), parts[2], parts[3]
                if parts[0] == "C":
                    counters.append((pid, nm, ts, int(v)))
                elif parts[0] == "S":
                    open_async.setdefault((pid, nm, v), []).append(ts)
                elif open_async.get((pid, nm, v)):
                    t0 = open_async[(pid, nm, v)].pop()
                    c, d = asyncs.get(nm, (0, 0))
                    asyncs[nm] = (c + 1, d + ts - t0)
                continue
        raw[name] = raw.get(name, 0) + 1
        if name == "sched_switch":
            sm = SWITCH.search(body)
            if sm:
                if cpu in running:
                    rt, rts = running[cpu]
                    cpu_time[rt] = cpu_time.get(rt, 0) + ts - rts
                running[cpu] = (int(sm.group(6)), ts)
    for cpu, (rt, rts) in running.items():
        cpu_time[rt] = cpu_time.get(rt, 0) + last_ts - rts
    for tid, st in stacks.items():
        for nm, t0 in st:
            key = (nm, tid)
            c, d = slices.get(key, (0, 0))
            slices[key] = (c + 1, d)          # never ended: counted, dur NULL (sum ignores)
    return raw, slices, asyncs, counters, cpu_time


def compare(label, src, text, fmt=None):
    args = (src,) if fmt is None else (src, fmt)
    tv = "profile_events(?)" if fmt is None else "profile_events(?, ?)"
    raw, slices, asyncs, counters, cpu_time = reference(text)
    got = dict(db.execute(f"SELECT name, count(*) FROM {tv} WHERE cat = 'ftrace' GROUP BY name", args))
    check(got == raw, f"{label}: raw events per name", (got, raw))
    got = {(r[0], r[1]): (r[2], r[3] or 0) for r in db.execute(
        f"SELECT name, tid, count(*), sum(dur) FROM {tv} WHERE ph = 'B' GROUP BY name, tid", args)}
    check(got == slices, f"{label}: atrace slices per (name, tid)", (got, slices))
    got = {r[0]: (r[1], r[2] or 0) for r in db.execute(
        f"SELECT name, count(*), sum(dur) FROM {tv} WHERE ph = 'b' GROUP BY name", args)}
    want = {k: v for k, v in asyncs.items()}
    got_closed = {k: v for k, v in got.items()}
    check(set(got_closed) >= set(want) and all(got_closed[k][1] == want[k][1] for k in want),
          f"{label}: async slices", (got, want))
    got = [(r[0], r[1], r[2], r[3]) for r in db.execute(
        f"SELECT pid, name, ts, json_extract(args, '$.value') FROM {tv} WHERE ph = 'C' ORDER BY id", args)]
    check(got == counters, f"{label}: counters", (got, counters))
    got = dict(db.execute(f"SELECT tid, sum(dur) FROM {tv} WHERE cat = 'sched' AND ph = 'X' GROUP BY tid", args))
    check(got == cpu_time, f"{label}: CPU time per thread from sched_switch", (got, cpu_time))
    return raw, slices, counters, cpu_time


# ---------------------------------------------------------------- detection
def detected(src):
    try:
        r = db.execute("SELECT value FROM profile_metadata(?) WHERE scope='capture' AND key='format'", (src,)).fetchone()
        return r[0] if r else None
    except sqlite3.Error:
        return None

# ---------------------------------------------------------------- corpus
txt = os.path.join(CORPUS, "catapult-android_systrace.txt")
html = os.path.join(CORPUS, "catapult-trivial_systrace.html")
if os.path.exists(txt):
    text = open(txt, encoding="utf-8").read()
    raw, slices, counters, cpu_time = compare("android_systrace", txt, text)
    check(raw == {"sched_switch": 58, "sched_wakeup": 33}, "android_systrace: 58 + 33 events (README)", raw)
    check(len(cpu_time) > 5, "android_systrace: several threads ran", len(cpu_time))
    r = db.execute("SELECT min(ts), max(ts), count(DISTINCT cpu) FROM profile_events(?) WHERE cat='ftrace'", (txt,)).fetchone()
    check(r == (50260647576000, 50260767491000, 1), "android_systrace: ts range exact ns, one cpu", r)
    th = dict(db.execute("SELECT tid, thread_name FROM profile_events(?) WHERE cat='ftrace'", (txt,)))
    check(th.get(99) == "irq/409-inv_irq" and th.get(13696) == "kworker/0:0" and th.get(0) == "<idle>",
          "android_systrace: comms with '-' and '/'", th)
    states = [r[0] for r in db.execute("SELECT json_extract(args, '$.prev_state') FROM profile_events(?) "
                                       "WHERE cat='sched' AND args LIKE '%prev_state%'", (txt,))]
    want = [m.group(4) for m in (SWITCH.search(l) for l in lines_of(text)) if m][1:]
    check(states == want, "android_systrace: interval prev_state = the next switch's", (len(states), len(want)))
    fmt = db.execute("SELECT value FROM profile_metadata(?) WHERE key='format'", (txt,)).fetchone()
    check(fmt == ("ftrace",), "android_systrace detected as ftrace", fmt)
    diag = db.execute("SELECT count(*) FROM profile_metadata(?) WHERE scope='diagnostic'", (txt,)).fetchone()[0]
    check(diag == 0, "android_systrace: no diagnostics", diag)
else:
    skip_part("android_systrace (../shared/corpus absent)")
if os.path.exists(html):
    h = open(html, encoding="utf-8").read()
    # the document itself is a container (ext/source/htmlsrc.c, tests/py/test_systrace_html.py): its
    # trace reads as ftrace; here the text is cut out by Python and read as a BLOB
    check(detected(html) == "ftrace", "trivial_systrace.html: its trace reads as ftrace")
    body = h.split('var linuxPerfData = "\\\n', 1)[1].split('";', 1)[0]
    blob = body.encode()
    raw, slices, counters, cpu_time = compare("trivial_systrace text", blob, body)
    check(counters == [(124, "VSYNC", 50260929925000, 1), (124, "StatusBar", 50260935656000, 1),
                       (124, "VSYNC", 50260946573000, 0), (360, "iq", 50262538578000, 1)],
          "trivial_systrace: the 4 counter markers (README)", counters)
    tr = db.execute("SELECT count(DISTINCT track) FROM profile_events(?) WHERE ph='C'", (blob,)).fetchone()[0]
    check(tr == 3, "trivial_systrace: one counter track per (pid, name)", tr)
else:
    skip_part("trivial_systrace (../shared/corpus absent)")

# ---------------------------------------------------------------- hand-made files
# (the .html there is a systrace document: tests/py/test_systrace_html.py reads it)
for name in sorted(n for n in os.listdir(DATA) if n.endswith(".txt")):
    p = os.path.join(DATA, name)
    compare(name, p, open(p, encoding="utf-8", newline="").read())
# ftrace text that comes with a Chrome trace: a systemTraceEvents string, and the same text as a
# compressed block beside the JSON block of a systrace HTML document (the Chrome events there
# are X / M rows of cat 'app', so the comparisons above see only the text's rows)
SYS = os.path.join(DATA, "system_trace_events.json")
sys_text = json.load(open(SYS, encoding="utf-8"))["systemTraceEvents"]
compare("system_trace_events.json", SYS, sys_text)
compare("systrace_mixed.html", os.path.join(DATA, "systrace_mixed.html"), sys_text)

tg = os.path.join(DATA, "tgid_flags.txt")
meta = {(r[0], r[1]): r[2] for r in db.execute("SELECT scope, key, value FROM profile_metadata(?)", (tg,))}
check(meta.get(("ftrace", "tracer")) == "nop" and meta.get(("ftrace", "#P")) == 2
      and meta.get(("ftrace", "entries-written")) == 24, "tgid_flags: header metadata", meta)
check(meta.get(("ftrace", "trace_event_clock_sync")) == "parent_ts=100.002500", "tgid_flags: clock sync")
diags = [r[0] for r in db.execute("SELECT value FROM profile_metadata(?) WHERE scope='diagnostic' "
                                  "AND key NOT LIKE '%_count' ORDER BY value", (tg,))]
check(diags == ["line 13: B of 'draw' is never ended; dur is NULL",
                "line 23: E of tid 200 without an open B",
                "line 24: B of 'never ends' is never ended; dur is NULL",
                "line 28: not an ftrace event line: this line is damaged"], "tgid_flags: diagnostics", diags)
r = db.execute("SELECT pid, tid, thread_name, cpu, args FROM profile_events(?) WHERE name='sched_wakeup'", (tg,)).fetchone()
check(r == (31, 31, "kworker/1:1-ev", 1, '{"flags":"d.h2","fields":{"comm":"main","pid":200,"prio":120,"target_cpu":0}}'),
      "tgid_flags: TGID column, comm with '-', flags, fields", r)
r = db.execute("SELECT json_extract(args, '$.fields.next_comm'), pid FROM profile_events(?) WHERE id=0", (tg,)).fetchone()
check(r == ("Render Thread", None), "tgid_flags: value with a space; (-----) is NULL pid", r)
r = db.execute("SELECT name, depth, parent_id FROM profile_events(?) WHERE ph='B' ORDER BY id", (tg,)).fetchall()
check(r == [("draw", 0, None), ("flush|x", 1, 2), ("never ends", 0, None)], "tgid_flags: B nesting", r)
r = db.execute("SELECT count(DISTINCT track), min(dur) FROM profile_events(?) WHERE ph='b'", (tg,)).fetchone()
check(r == (1, 500000), "tgid_flags: S/F async slice", r)
r = db.execute("SELECT name, ts, dur, tid, pid, json_extract(args, '$.prev_state') FROM profile_events(?) "
               "WHERE cat='sched' AND cpu=1 ORDER BY ts", (tg,)).fetchall()
check(r == [("kworker/1:1-ev", 100000650000, 1350000, 31, 31, "D"), ("swapper/1", 100002000000, 1000000, 0, None, None)],
      "tgid_flags: cpu 1 intervals (last until the trace's end)", r)
tracks = [r[0] for r in db.execute("SELECT DISTINCT value FROM profile_metadata(?) WHERE scope='track'", (tg,))]
old = os.path.join(DATA, "old_forms.txt")
r = db.execute("SELECT name, ts, args FROM profile_events(?) WHERE cat='ftrace' ORDER BY id", (old,)).fetchall()
check(r == [("sys_close", 50262000001000, '{"text":"<-system_call_fastpath"}'),
            ("sched_wakeup", 50262000002123, '{"fields":{"comm":"bash","pid":1977,"prio":120,"success":1,"target_cpu":0}}')],
      "old_forms: function tracer line, 9-digit time", r)
r = db.execute("SELECT name, pid, tid, dur FROM profile_events(?) WHERE ph='B'", (old,)).fetchall()
check(r == [("composite", 124, 124, 250000)], "old_forms: print: form", r)

# CRLF / no final newline: the same rows as the LF form
crlf = os.path.join(DATA, "crlf_nofinal.txt")
lf = open(crlf, "rb").read().replace(b"\r\n", b"\n") + b"\n"
q = "SELECT ts, dur, name, ph, pid, tid, cpu, args FROM profile_events(?) ORDER BY id"
a, b = db.execute(q, (crlf,)).fetchall(), db.execute(q, (lf,)).fetchall()
check(a == b and len(a) == 3, "CRLF without a final newline reads as LF", (a, b))

for name in sorted(os.listdir(DATA)):
    want = "chrome" if name in ("system_trace_events.json", "systrace_mixed.html") else "ftrace"
    check(detected(os.path.join(DATA, name)) == want, f"detect {name} ({want})")
perf = b"perf  2111 [001] 519980.623332:   3120373 cycles:HG:  ffffffff8104f45a native_write_msr_safe ([kernel.kallsyms])\n" * 3
check(detected(perf) != "ftrace", "perf script line not claimed")
for p in ("tests/data/stacks/perf_edge.txt", "tests/data/lms_edge.csv", "tests/data/timings_edge.txt"):
    if os.path.exists(p):
        check(detected(p) != "ftrace", f"{p} not claimed")

# ---------------------------------------------------------------- prefixes, empty, hostile
data = open(tg, "rb").read()
ok = True
for k in range(len(data) + 1):
    for fmt in ("ftrace", None):
        try:
            if fmt:
                db.execute("SELECT count(*), sum(length(args)) FROM profile_events(?, ?)", (data[:k], fmt)).fetchall()
            else:
                db.execute("SELECT count(*) FROM profile_events(?)", (data[:k],)).fetchall()
        except sqlite3.Error as e:
            if not str(e):
                ok = False
check(ok, f"every prefix of tgid_flags.txt ({len(data) + 1}) loads or fails with a message")
e = testlib.error(db, "SELECT count(*) FROM profile_events(X'', 'ftrace')")
check(e is not None, "empty input is an error", e)
hostile = (b"  a-99999999999 [000] 1.0: x: y\n  b-1 [9999999] 1.0: x: y\n  c-1 [000] 99999999999.9999999999: x: y\n"
           b"  d-1 [4095] 1.5: sched_switch: next_comm= next_pid=4294967296\n  e-1 [000] 2.0: x: y\n")
r = db.execute("SELECT count(*) FROM profile_events(?, 'ftrace')", (hostile,)).fetchone()
check(r[0] >= 1, "hostile numbers: the good line is read", r)
done()
