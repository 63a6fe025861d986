"""profile_open(source, prefix, 'perfetto'): trace_processor's schema over a capture (sql/perfetto.sql,
vtab/perfetto.c, docs/perfetto.md).

1. trace_processor's own diff tests of its JSON importer (../shared/perfetto/diff_tests.json, run as
   ../shared/perfetto/run.py runs them): every test passes except the deliberate deviations named in
   DEVIATIONS, and for each of those libprofsql's own rule is asserted instead.
2. Checks written here from hand computation and Python's json: args flattening, counters, flows,
   overlapping slices and their import log, scheduling, extract_arg, errors, empty tables.
Skips part 1 with a line when ../shared is absent."""
import json
import os
import sqlite3
import sys
import tempfile

import testlib
from testlib import check, done, skip_part

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHARED = os.path.join(os.path.dirname(ROOT), "shared", "perfetto")
LIB = os.path.join(ROOT, "libprofsql.so")

# trace_processor test -> why libprofsql answers otherwise (docs/perfetto.md, "Deviations")
DEVIATIONS = {
    "test_string_pid_tid": "'ph' \"XXX\" is not one character (the spec's ph is a single character): "
                           "the event is skipped with a 'skipped_event' diagnostic; trace_processor reads "
                           "its first character",
}

tmp = tempfile.mkdtemp(prefix="profsql-perfetto-")


def write(name, text):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def opened(path, prefix=""):
    db = testlib.connect()
    db.execute("SELECT profile_open(?, ?, 'perfetto')", (path, prefix))
    return db


def q(db, sql, args=()):
    return [tuple(r) for r in db.execute(sql, args).fetchall()]


# ---------------------------------------------------------------- 1. trace_processor's diff tests
if not os.path.isfile(os.path.join(SHARED, "diff_tests.json")):
    skip_part("../shared/perfetto/diff_tests.json is absent: trace_processor's diff tests not run")
else:
    sys.path.insert(0, SHARED)
    import run as tp_run  # ../shared/perfetto/run.py
    tests = json.load(open(os.path.join(SHARED, "diff_tests.json")))
    ok, bad = tp_run.run(tests, LIB)
    failed_names = {b.split("::")[1].split(":")[0] for b in bad}
    check(failed_names == set(DEVIATIONS), "diff tests: the failures are exactly the named deviations",
          sorted(failed_names))
    check(ok == len(tests) - len(DEVIATIONS), f"diff tests: {len(tests) - len(DEVIATIONS)}/{len(tests)} pass", ok)
    print(f"ok {ok}/{len(tests)} perfetto diff tests pass; deviations: {', '.join(sorted(DEVIATIONS))}")
    # the deviation's own rule
    t = [t for t in tests if t["name"] == "test_string_pid_tid"][0]
    path = write("string_pid_tid.json", t["trace"])
    db = opened(path)
    check(q(db, "SELECT count(*) FROM slice") == [(0,)], "deviation: the 'XXX' event is no slice")
    diag = q(db, "SELECT value FROM profile_metadata(?) WHERE scope = 'diagnostic' AND key = 'skipped_event'", (path,))
    check(len(diag) == 1 and "'ph'" in diag[0][0] and "XXX" in diag[0][0], "deviation: skipped_event names ph", diag)

# ---------------------------------------------------------------- 2. args, as Python flattens them
trace = {"traceEvents": [
    {"ph": "X", "pid": 1, "tid": 2, "ts": 10, "dur": 5, "name": "a",
     "args": {"s": "x", "i": -3, "r": 2.5, "t": True, "f": False, "n": None, "o": {"p": {"q": 1}},
              "arr": [7, {"k": "v"}, [8]], "dot.key": 4, "e": {}, "big": 9007199254740993}},
    {"ph": "X", "pid": 1, "tid": 2, "ts": 11, "dur": 1, "name": "b"},
]}
path = write("args.json", json.dumps(trace))
db = opened(path)


def flatten(v, key, flat, out):
    """trace_processor's json_utils: objects add '.k' to both keys, arrays '[i]' to key only; nulls
    and empty containers give no row."""
    if isinstance(v, dict):
        for k, x in v.items():
            flatten(x, key + "." + k, flat + "." + k, out)
    elif isinstance(v, list):
        for i, x in enumerate(v):
            flatten(x, f"{key}[{i}]", flat, out)
    elif v is not None:
        out.append((flat, key, v))
    return out


want = flatten(trace["traceEvents"][0]["args"], "args", "args", [])
got = q(db, "SELECT a.flat_key, a.key, a.int_value, a.string_value, a.real_value, a.value_type, a.display_value "
            "FROM slice s JOIN args a USING (arg_set_id) WHERE s.name = 'a' ORDER BY a.id")
check([(g[0], g[1]) for g in got] == [(w[0], w[1]) for w in want], "args: keys and flat keys in document order",
      got)
for (flat, key, v), g in zip(want, got):
    if isinstance(v, bool):
        check(g[2] == int(v) and g[5] == "bool" and g[6] == ("true" if v else "false"), f"args: bool {key}", g)
    elif isinstance(v, int):
        check(g[2] == v and g[5] == "int" and g[6] == str(v), f"args: int {key}", g)
    elif isinstance(v, float):
        check(g[4] == v and g[5] == "real", f"args: real {key}", g)
    else:
        check(g[3] == v and g[5] == "string" and g[6] == v, f"args: string {key}", g)
check(q(db, "SELECT arg_set_id FROM slice WHERE name = 'b'") == [(None,)], "args: a slice without args has none")
# the default schema's args view: the same rows, per file
db2 = testlib.connect()
db2.execute("SELECT profile_open(?)", (path,))
got2 = q(db2, "SELECT flat_key, key FROM args WHERE arg_set_id = 0 ORDER BY id")
check(got2 == [(w[0], w[1]) for w in want], "profile_open's args view: the same keys", got2)
check(q(db2, "SELECT DISTINCT file FROM args") == [(path,)], "profile_open's args view: the file")
check(q(db, "SELECT extract_arg(arg_set_id, 'args.o.p.q'), extract_arg(arg_set_id, 'args.s'), "
            "extract_arg(arg_set_id, 'args.nope') FROM slice WHERE name = 'a'") == [(1, "x", None)], "extract_arg")

# ---------------------------------------------------------------- counters
trace = [
    {"ph": "C", "pid": 5, "tid": 6, "ts": 1, "name": "mem", "args": {"heap": 10, "rss": "20.5"}},
    {"ph": "C", "pid": 5, "tid": 6, "ts": 2, "name": "mem", "args": {"heap": 11, "rss": "x"}},
    {"ph": "C", "pid": 5, "tid": 6, "ts": 3, "name": "q", "id": "7", "args": {"len": 3}},
]
db = opened(write("counters.json", json.dumps(trace)))
got = q(db, "SELECT t.name, c.ts, c.value, p.pid FROM counter c JOIN process_counter_track t ON c.track_id = t.id "
            "JOIN process p USING (upid) ORDER BY t.name, c.ts")
check(got == [("mem heap", 1000, 10.0, 5), ("mem heap", 2000, 11.0, 5), ("mem rss", 1000, 20.5, 5),
              ("q id: 7 len", 3000, 3.0, 5)], "counters: one track per (counter, key), 'x' is no value", got)
check(q(db, "SELECT count(*) FROM counter_track") == [(3,)], "counters: three counter tracks")
check(q(db, "SELECT count(*) FROM slice") == [(0,)], "counters: no slices")

# ---------------------------------------------------------------- flows
trace = [
    {"ph": "X", "pid": 1, "tid": 1, "ts": 0, "dur": 10, "name": "send"},
    {"ph": "s", "pid": 1, "tid": 1, "ts": 5, "id": 9, "cat": "c", "name": "f"},
    {"ph": "X", "pid": 1, "tid": 2, "ts": 20, "dur": 10, "name": "recv"},
    {"ph": "f", "pid": 1, "tid": 2, "ts": 25, "id": 9, "cat": "c", "name": "f", "bp": "e"},
    {"ph": "X", "pid": 1, "tid": 1, "ts": 40, "dur": 5, "name": "v2out", "bind_id": "0x2", "flow_out": True},
    {"ph": "X", "pid": 1, "tid": 2, "ts": 50, "dur": 5, "name": "v2in", "bind_id": "0x2", "flow_in": True},
]
db = opened(write("flows.json", json.dumps(trace)))
got = q(db, "SELECT o.name, i.name FROM flow f JOIN slice o ON o.id = f.slice_out JOIN slice i ON i.id = f.slice_in "
            "ORDER BY o.ts")
check(got == [("send", "recv"), ("v2out", "v2in")], "flows: v1 s->f and v2 bind_id pairs", got)

# ---------------------------------------------------------------- overlapping X: kept, logged
trace = [{"ph": "X", "ts": 100, "dur": 100, "pid": 1, "tid": 1, "name": "outer"},
         {"ph": "X", "ts": 150, "dur": 100, "pid": 1, "tid": 1, "name": "inner"}]
db = opened(write("overlap.json", json.dumps(trace)))
check(q(db, "SELECT name, ts, dur FROM slice ORDER BY id") == [("outer", 100000, 100000), ("inner", 150000, 100000)],
      "overlap: both slices kept")
got = dict(q(db, "SELECT a.key, a.display_value FROM _trace_import_logs l JOIN args a USING (arg_set_id)"))
check(got == {"conflicting_slice_dur": "100000", "conflicting_slice_name": "outer", "conflicting_slice_ts": "100000",
              "event_name": "inner", "event_phase": "X", "overlap_end": "200000", "overlap_start": "150000"},
      "overlap: the import log's args (hand computed)", got)
stats = dict(q(db, "SELECT name, value FROM stats"))
check(stats.get("slice_spill_overlapping_complete_event") == 1 and stats.get("slice_drop_overlapping_complete_event") == 0
      and stats.get("profsql_overlap") == 1, "overlap: stats", stats)

# ---------------------------------------------------------------- threads, processes, tracks
trace = [
    {"ph": "M", "pid": 7, "tid": 0, "name": "process_name", "args": {"name": "P7"}},
    {"ph": "M", "pid": 7, "tid": 8, "name": "thread_name", "args": {"name": "T8"}},
    {"ph": "X", "pid": 7, "tid": 8, "ts": 1, "dur": 2, "name": "work"},
    {"ph": "b", "pid": 7, "tid": 8, "ts": 3, "name": "req", "cat": "net", "id2": {"local": 1}},
    {"ph": "e", "pid": 7, "tid": 8, "ts": 9, "name": "req", "cat": "net", "id2": {"local": 1}},
    {"ph": "b", "pid": 7, "tid": 8, "ts": 4, "name": "glob", "cat": "net", "id": 2},
    {"ph": "e", "pid": 7, "tid": 8, "ts": 6, "name": "glob", "cat": "net", "id": 2},
    {"ph": "i", "pid": 7, "tid": 8, "ts": 5, "name": "gi", "s": "g"},
    {"ph": "i", "pid": 7, "tid": 8, "ts": 5, "name": "pi", "s": "p"},
]
db = opened(write("model.json", json.dumps(trace)))
check(q(db, "SELECT utid, tid, name, upid FROM thread ORDER BY utid")[0] == (0, 0, None, 0), "thread: utid 0 is the idle thread")
check(q(db, "SELECT t.tid, t.name, p.pid, p.name, t.is_main_thread FROM thread t JOIN process p USING (upid) "
            "WHERE p.pid = 7 ORDER BY t.tid") == [(7, None, 7, "P7", 1), (8, "T8", 7, "P7", 0)],
      "thread: the process's main thread and its named thread")
got = q(db, "SELECT s.name, t.type, t.name FROM slice s JOIN track t ON s.track_id = t.id ORDER BY s.ts, s.name")
check(got == [("work", "thread_execution", None), ("req", "legacy_async_process_slice", "req"),
              ("glob", "legacy_async_global_slice", "glob"), ("gi", "legacy_chrome_global_instants", None),
              ("pi", "chrome_process_instant", None)], "tracks: each slice's track type", got)
got = q(db, "SELECT name, thread_name, process_name FROM thread_or_process_slice ORDER BY ts, name")
check(got == [("work", "T8", "P7"), ("req", None, "P7"), ("pi", None, "P7")],
      "thread_or_process_slice: thread and process tracks only", got)
check(q(db, "SELECT name, dur FROM slice WHERE name = 'req'") == [("req", 6000)], "async slice: e - b")

# ---------------------------------------------------------------- scheduling (Linux ftrace text)
ftrace = """# tracer: nop
#
          <idle>-0     [000] d..3  100.000100: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=app next_pid=42 next_prio=120
             app-42    [000] d..3  100.000400: sched_switch: prev_comm=app prev_pid=42 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
"""
db = opened(write("sched.txt", ftrace))
got = q(db, "SELECT s.ts, s.dur, s.cpu, t.tid FROM sched s JOIN thread t USING (utid) ORDER BY s.ts")
check(got[:1] == [(100000100000, 300000, 0, 42)], "sched: the interval app ran on cpu 0 (hand computed)", got)
check(q(db, "SELECT cpu FROM cpu") == [(0,)], "cpu: the CPU seen")


# ---------------------------------------------------------------- ftrace text as trace_processor reads it
# (traces written here; every figure below computed by hand from the lines)
systrace = """cpus=4
          <idle>-0     [001] d..2  50.000100: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=disk_io next_pid=700 next_prio=120
           <...>-700   [001] d..3  50.000150: sched_wake_idle_without_ipi: cpu=2
         disk_io-700   [001] d..2  50.000300: sched_switch: prev_comm=disk_io prev_pid=700 prev_prio=120 prev_state=D ==> next_comm=swapper/1 next_pid=0 next_prio=120
          <idle>-0     [001] d.s4  50.000310: sched_blocked_reason: pid=700 iowait=1 caller=io_schedule+0x10/0x40
          <idle>-0     [002] d.h3  50.000700: sched_waking: comm=disk_io pid=700 prio=120 target_cpu=001
          <idle>-0     [001] d..2  50.000900: sched_switch: prev_comm=swapper/1 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=disk_io next_pid=700 next_prio=120
         disk_io-700   [001] ....50.001000: tracing_mark_write: B|700|read_block
         disk_io-700   [001] .... 50.001500: tracing_mark_write: E|700
          <idle>-0     [003] ....  50.002000: cpu_frequency_limits: min_freq=300000 max_freq=1800000 cpu_id=3
          <idle>-0     [003] ....  50.002000: cpu_frequency: state=1200000 cpu_id=3
          client-800   [000] ..... 50.003000: binder_transaction: transaction=11 dest_node=1 dest_proc=900 dest_thread=0 reply=0 flags=0x10 code=0x1
          server-900   [002] ..... 50.003040: binder_transaction_received: transaction=11
          server-900   [002] ..... 50.003100: binder_transaction: transaction=12 dest_node=0 dest_proc=800 dest_thread=800 reply=1 flags=0x0 code=0x1
          client-800   [000] ..... 50.003130: binder_transaction_received: transaction=12
          client-800   [000] ..... 50.004000: binder_transaction: transaction=13 dest_node=1 dest_proc=900 dest_thread=0 reply=0 flags=0x11 code=0x2
          server-900   [002] ..... 50.004020: binder_transaction_received: transaction=13
          client-800   [000] ..... 50.005000: binder_transaction: transaction=14 dest_node=1 dest_proc=900 dest_thread=0 reply=0 flags=0x0 code=0x3
          client-800   [000] ..... 50.005250: binder_return: cmd=0x7211 BR_FAILED_REPLY
"""
db = opened(write("kernel.systrace", systrace))
S = 50 * 10**9
check(q(db, "SELECT value FROM profile_metadata(?) WHERE scope = 'ftrace' AND key = 'cpus'", (os.path.join(tmp, "kernel.systrace"),)) == [(4,)],
      "ftrace: the 'cpus=4' line is a header")
check(q(db, "SELECT name FROM thread WHERE tid = 700") == [("disk_io",)], "ftrace: '<...>' is no name; the comm is")
check(q(db, "SELECT name, ts, dur FROM slice WHERE name = 'read_block'") == [("read_block", S + 1000000, 500000)],
      "ftrace: flags glued to the time ('....50.001000')")
got = q(db, "SELECT ts, dur, state, io_wait, blocked_function FROM thread_state JOIN thread USING (utid) "
            "WHERE tid = 700 ORDER BY ts")
check(got[:4] == [(S + 100000, 200000, "Running", None, None),        # 100..300 us on cpu 1
                  (S + 300000, 400000, "D", 1, "io_schedule+0x10/0x40"),  # switched out in D until woken at 700
                  (S + 700000, 200000, "R", None, None),              # runnable from the waking to 900
                  (S + 900000, got[3][1] if len(got) > 3 else None, "Running", None, None)],
      "ftrace thread_state: Running, D (io_wait from sched_blocked_reason), R after sched_waking, Running", got)
got = q(db, "SELECT t.name, c.ts, c.value FROM counter c JOIN cpu_counter_track t ON t.id = c.track_id "
            "WHERE t.cpu = 3 ORDER BY t.name")
check(got == [("Cpu 3 Max Freq Limit", S + 2000000, 1800000.0), ("Cpu 3 Min Freq Limit", S + 2000000, 300000.0),
              ("cpufreq", S + 2000000, 1200000.0)], "ftrace: cpu_frequency_limits and cpu_frequency counters", got)
got = q(db, "SELECT s.name, s.ts - ?, s.dur, t.tid FROM slice s JOIN thread_track tt ON tt.id = s.track_id "
            "JOIN thread t USING (utid) WHERE s.category = 'binder' ORDER BY s.ts, s.name", (S,))
check(got == [("binder transaction", 3000000, 130000, 800),   # sent at 3000, reply received at 3130
              ("binder reply", 3040000, 60000, 900),          # received at 3040, reply sent at 3100
              ("binder transaction async", 4000000, 0, 800),  # flags 0x11: one-way
              ("binder async rcv", 4020000, 0, 900),
              ("binder transaction", 5000000, 250000, 800)],  # ended by BR_FAILED_REPLY at 5250
      "ftrace: binder transactions as slices", got)
check(q(db, "SELECT count(*) FROM ftrace_event WHERE name = 'sched_switch'") == [(3,)], "ftrace_event: the raw lines")
check(q(db, "SELECT count(*) FROM slice WHERE name = 'sched_switch'") == [(0,)], "ftrace: raw lines are no slices")


# a Chrome trace that carries ftrace text ('systemTraceEvents'): its scheduling too
trace = {"traceEvents": [{"ph": "X", "pid": 5, "tid": 5, "ts": 1, "dur": 2, "name": "js"}],
         "systemTraceEvents": "# tracer: nop\n"
         "          <idle>-0     [000] d..2  0.000010: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 "
         "prev_state=R ==> next_comm=app next_pid=42 next_prio=120\n"
         "             app-42    [000] d..2  0.000030: sched_switch: prev_comm=app prev_pid=42 prev_prio=120 "
         "prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120\n"
         "          <idle>-0     [000] d..2  0.000050: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 "
         "prev_state=R ==> next_comm=app next_pid=42 next_prio=120\n"}
db = opened(write("chrome_systrace.json", json.dumps(trace)))
got = q(db, "SELECT ts, dur, state FROM thread_state JOIN thread USING (utid) WHERE tid = 42 ORDER BY ts")
check(got[:2] == [(10000, 20000, "Running"), (30000, 20000, "S")], "Chrome + ftrace text: thread states of the text", got)
check(q(db, "SELECT name FROM slice") == [("js",)], "Chrome + ftrace text: the raw lines are no slices")

# ---------------------------------------------------------------- flows fan out (v2: one sender, two receivers)
trace = [
    {"ph": "X", "pid": 1, "tid": 1, "ts": 0, "dur": 10, "name": "send", "bind_id": "0x7", "flow_out": True},
    {"ph": "X", "pid": 1, "tid": 2, "ts": 20, "dur": 10, "name": "relay", "bind_id": "0x7", "flow_in": True, "flow_out": True},
    {"ph": "X", "pid": 1, "tid": 3, "ts": 40, "dur": 10, "name": "recv1", "bind_id": "0x7", "flow_in": True},
    {"ph": "X", "pid": 1, "tid": 4, "ts": 50, "dur": 10, "name": "recv2", "bind_id": "0x7", "flow_in": True},
]
db = opened(write("fanout.json", json.dumps(trace)))
got = q(db, "SELECT o.name, i.name FROM flow f JOIN slice o ON o.id = f.slice_out JOIN slice i ON i.id = f.slice_in "
            "ORDER BY i.ts")
check(got == [("send", "relay"), ("relay", "recv1"), ("relay", "recv2")], "flows: each receiver from the latest sender", got)

# ---------------------------------------------------------------- nesting at one ts (a deliberate deviation)
# libprofsql nests by containment, the longer slice first at one ts, whatever the file order:
# a zero-length X at the start of a B..E slice is its child; two zero-length X at one ts are siblings.
# trace_processor nests in file order (its test_same_ts_* tests).
trace = [{"name": "zero", "ph": "X", "ts": 1000, "dur": 0, "pid": 1, "tid": 1},
         {"name": "long", "ph": "B", "ts": 1000, "pid": 1, "tid": 1},
         {"name": "long", "ph": "E", "ts": 1100, "pid": 1, "tid": 1},
         {"name": "zero2", "ph": "X", "ts": 2000, "dur": 0, "pid": 1, "tid": 1},
         {"name": "zero3", "ph": "X", "ts": 2000, "dur": 0, "pid": 1, "tid": 1}]
db = opened(write("same_ts.json", json.dumps(trace)))
check(q(db, "SELECT name, depth FROM slice ORDER BY ts, depth, name") ==
      [("long", 0), ("zero", 1), ("zero2", 0), ("zero3", 0)], "nesting at one ts: by containment")


# ---------------------------------------------------------------- profile_events' kind constraint
# (kind = ? and kind IN (...) are taken by the table, which skips the other rows itself: the same
# rows as SQLite's own filter, which `kind || ''` forces; one file, a directory, name order, ids)
db = testlib.connect()
for src in ["examples/browser_trace.json", "examples/ftrace_sched.txt", "tests/data/multi"]:
    for where in ["kind = 'slice'", "kind IN ('slice', 'instant')", "kind IN ('sched', 'nope')", "kind = 'nope'",
                  "kind = 'counter' AND id < 400"]:
        forced = where.replace("kind", "kind || ''")
        for order in ["file, id", "name, file, id"]:
            a = q(db, f"SELECT file, id FROM profile_events(?) WHERE {where} ORDER BY {order}", (src,))
            b = q(db, f"SELECT file, id FROM profile_events(?) WHERE {forced} ORDER BY {order}", (src,))
            check(a == b, f"kind constraint: {src} WHERE {where} ORDER BY {order} ({len(b)} rows)", (len(a), len(b)))


# displayTimeUnit: noted in stats (json_display_time_unit), ts still read in us (the spec, catapult)
db = opened(write("dtu.json", json.dumps({"displayTimeUnit": "ns", "traceEvents": [
    {"ph": "X", "pid": 1, "tid": 1, "ts": 1, "dur": 2, "name": "a"}]})))
check(q(db, "SELECT value FROM stats WHERE name = 'json_display_time_unit'") == [(1,)], "stats: json_display_time_unit")
check(q(db, "SELECT ts, dur FROM slice") == [(1000, 2000)], "displayTimeUnit does not scale ts")

# ---------------------------------------------------------------- empty tables keep their columns
db = opened(write("one.json", json.dumps([{"ph": "X", "pid": 1, "tid": 1, "ts": 0, "dur": 1, "name": "x"}])))
for table, cols in [("counter", ["id", "ts", "track_id", "value", "arg_set_id"]),
                    ("flow", ["id", "slice_out", "slice_in", "trace_id", "arg_set_id"]),
                    ("sched", ["id", "ts", "dur", "cpu", "utid", "end_state", "priority", "ucpu", "ts_end"]),
                    ("thread_state", ["id", "ts", "dur", "cpu", "utid", "state", "io_wait", "blocked_function",
                                      "waker_utid", "waker_id", "irq_context", "ucpu"]),
                    ("stack_profile_frame", ["id", "name", "mapping", "rel_pc", "symbol_set_id", "deobfuscated_name"]),
                    ("cpu_profile_stack_sample", ["id", "ts", "callsite_id", "utid", "process_priority"])]:
    cur = db.execute(f"SELECT * FROM {table}")
    check(cur.fetchall() == [] and [c[0] for c in cur.description] == cols, f"empty {table} with its columns",
          [c[0] for c in cur.description])
check(q(db, "SELECT count(*) FROM slice") == [(1,)], "one slice")

# ---------------------------------------------------------------- prefixes and errors
db = testlib.connect()
db.execute("SELECT profile_open(?, 'a_', 'perfetto')", (path,))
db.execute("SELECT profile_open(?, 'b_', 'perfetto')", (os.path.join(tmp, "one.json"),))
check(q(db, "SELECT (SELECT count(*) FROM a_slice), (SELECT count(*) FROM b_slice)") == [(2, 1)],
      "two captures side by side under two prefixes")
check(q(db, "SELECT a_extract_arg(arg_set_id, 'args.s') FROM a_slice WHERE name = 'a'") == [("x",)],
      "a prefix's own extract_arg")
db.execute("SELECT profile_open(?, 'a_', 'perfetto')", (path,))
check(q(db, "SELECT count(*) FROM a_slice") == [(2,)], "opening again replaces the views")


def error_of(sql, args=(), db=None):
    db = db or testlib.connect()
    try:
        db.execute(sql, args).fetchall()
    except sqlite3.Error as e:
        return str(e)
    return None


e = error_of("SELECT profile_open(?, 'x_', 'postgres')", (path,))
check(e == "profile_open: unknown schema 'postgres' (known: 'profsql', the default, and 'perfetto')", "unknown schema", e)
db = testlib.connect()
db.execute("CREATE TEMP TABLE c_slice(x)")
e = error_of("SELECT profile_open(?, 'c_', 'perfetto')", (path,), db)
check(e == "profile_open: the prefix 'c_' clashes with TEMP table 'c_slice' (the Perfetto views would replace it): "
           "choose another prefix", "prefix clash", e)
e = error_of("SELECT profile_open(?, '', 'perfetto')", (tmp,))
check(e is not None and e.startswith("profile_open: the Perfetto schema reads one capture"), "a directory source", e)
e = error_of("SELECT profile_open(?, '', 'perfetto')", (os.path.join(tmp, "missing.json"),))
check(e is not None and e.startswith("profile_open: cannot open"), "a missing file", e)

done()
