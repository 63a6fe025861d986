"""Shared by the Python tests: check() counts passes and failures, skip_part() counts a part
that cannot run here (saying why), done() prints the "RESULT <passed> <failed> <skipped>" line
tests/run.sh reads and exits non-zero on failure."""
import os
import sqlite3
import sys

passed = failed = skipped = 0


def check(cond, what, got=None):
    """Counts one check; on failure prints what was checked and, when given, what came instead."""
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL", what if got is None else f"{what}: got {got!r}")


def skip_part(what):
    """Counts one part of a test that cannot run here (e.g. ../shared/corpus is absent) and says
    why on a SKIP line; the test goes on with the rest."""
    global skipped
    skipped += 1
    print(f"SKIP {what}")


def done():
    print(f"RESULT {passed} {failed} {skipped}")
    sys.exit(1 if failed else 0)


def connect():
    """A connection with ./libprofsql loaded (run from the repository root)."""
    db = sqlite3.connect(":memory:")
    db.enable_load_extension(True)
    db.load_extension(os.path.abspath("libprofsql"))
    return db


def connect_noio():
    """A connection with ./libprofsql loaded through its noio entry point (BLOB sources only, no
    writers, limits that can only be lowered). (SQL's load_extension: Python 3.11's
    Connection.load_extension takes no entry point.)"""
    db = sqlite3.connect(":memory:")
    db.enable_load_extension(True)
    db.execute("SELECT load_extension(?, 'sqlite3_profsql_noio_init')", (os.path.abspath("libprofsql"),))
    return db


def skip(what):
    """Ends a test that has nothing to run here (e.g. ../shared/corpus is absent)."""
    print(f"SKIP {what}")
    print(f"RESULT {passed} {failed} {skipped + 1}")
    sys.exit(1 if failed else 0)


def rows(db, sql, args=()):
    """The rows of a query as dicts keyed by column name."""
    cur = db.execute(sql, args)
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


def error(db, sql, args=()):
    """The error message of a query, or None when it runs."""
    import sqlite3
    try:
        db.execute(sql, args).fetchall()
        return None
    except sqlite3.Error as e:
        return str(e)


def read_varint(buf, i):
    """A protobuf varint at buf[i]: (value, offset after it)."""
    v = shift = 0
    while True:
        b = buf[i]
        i += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return v, i


def pb_fields(buf):
    """(field, wire type, value) of one protobuf message, as a reader independent of libprofsql:
    varints as ints, length-delimited fields as bytes, fixed 64 / 32 bit as their bytes."""
    i, out = 0, []
    while i < len(buf):
        key, i = read_varint(buf, i)
        f, wt = key >> 3, key & 7
        if wt == 0:
            v, i = read_varint(buf, i)
        elif wt == 2:
            n, i = read_varint(buf, i)
            v, i = buf[i:i + n], i + n
        elif wt == 1:
            v, i = buf[i:i + 8], i + 8
        elif wt == 5:
            v, i = buf[i:i + 4], i + 4
        else:
            raise ValueError("wire type %d" % wt)
        out.append((f, wt, v))
    return out


def pb_varint(v):
    """A protobuf varint; a negative (int64) as ten bytes of two's complement."""
    v &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def pb_field(no, v):
    """Field no of a protobuf message: an int as a varint, str / bytes length-delimited."""
    if isinstance(v, int):
        return pb_varint(no << 3) + pb_varint(v)
    if isinstance(v, str):
        v = v.encode()
    return pb_varint(no << 3 | 2) + pb_varint(len(v)) + v


def write_rank_traces(directory, n, root="."):
    """Writes n rank traces rank0.json .. rank<n-1>.json into directory, each the events of
    examples/browser_trace.json with its integer pids moved by 1000 * (k + 1) and its times 10 s
    later per rank, plus one 'rank_step' X slice (pid 1, tid 1, ts 5 µs) of (k + 1) ms. Returns
    [(path, events)] in rank order (the events as written, for independent sums)."""
    import json
    base = json.load(open(os.path.join(root, "examples", "browser_trace.json"), encoding="utf-8"))
    events = base["traceEvents"] if isinstance(base, dict) else base
    out = []
    for k in range(n):
        evs = []
        for e in events:
            e = dict(e)
            if isinstance(e.get("pid"), int):
                e["pid"] += 1000 * (k + 1)
            if "ts" in e:
                e["ts"] = e["ts"] + 10_000_000 * k
            evs.append(e)
        evs.append({"name": "rank_step", "ph": "X", "pid": 1, "tid": 1, "ts": 5, "dur": 1000 * (k + 1), "cat": "step"})
        p = os.path.join(directory, f"rank{k}.json")
        with open(p, "w", encoding="utf-8") as f:
            json.dump({"traceEvents": evs}, f)
        out.append((p, evs))
    return out
