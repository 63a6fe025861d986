"""Corpus test: every Trace Event file in ../shared/corpus/chrome loads, and per file our numbers
match an independent computation with Python's json module (decimal arithmetic, no floats):
  - events per phase (profile_metadata scope 'ph') = events in the file, per ph;
  - complete slices (ph 'X' with dur): count and sum(dur) in ns per name, and sum(ts);
  - every B is a row; every B row with a dur consumed exactly one E; one more row per entry of
    the top-level 'samples' array;
  - displayTimeUnit as written.
Skips with a message when ../shared/corpus is absent (a user's checkout does not have it).
Prints "RESULT <passed> <failed>" last."""
import collections
import decimal
import gzip
import json
import os
import sqlite3

CORPUS = os.path.join("..", "shared", "corpus", "chrome")
from testlib import check, connect, done, skip


def ns(v):
    """µs (number or numeric string) -> integer ns, rounded to nearest, ties away from zero."""
    d = decimal.Decimal(str(v)) * 1000
    return int(d.quantize(decimal.Decimal(1), rounding=decimal.ROUND_HALF_UP))


def load_json(path):
    raw = open(path, "rb").read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    text = raw.decode("utf-8")
    try:
        doc = json.loads(text, parse_float=decimal.Decimal)
    except json.JSONDecodeError:
        # the spec's unterminated array: drop a trailing comma, close the array
        t = text.rstrip()
        if t.endswith(","):
            t = t[:-1]
        doc = json.loads(t + "]", parse_float=decimal.Decimal)
    events = doc if isinstance(doc, list) else doc.get("traceEvents", [])
    return doc, [e for e in events if e != {}]


if not os.path.isdir(CORPUS):
    skip(f"corpus: {CORPUS} not found (the corpus ships beside the repository, not in it)")

db = connect()

files = sorted(os.listdir(CORPUS))
for name in files:
    path = os.path.join(CORPUS, name)
    doc, events = load_json(path)
    try:
        rows = db.execute("SELECT count(*) FROM profile_events(?)", (path,)).fetchone()[0]
    except sqlite3.Error as e:
        check(False, f"{name}: does not load: {e}")
        continue
    check(True, f"{name} loads")

    ph_file = collections.Counter(e.get("ph") if e.get("ph") is not None else "NULL" for e in events)
    ph_ours = dict(db.execute("SELECT key, value FROM profile_metadata(?) WHERE scope = 'ph'", (path,)).fetchall())
    check(dict(ph_file) == ph_ours, f"{name}: events per ph {dict(ph_file)} != {ph_ours}")

    x_file = collections.defaultdict(lambda: [0, 0])
    x_ts = 0
    for e in events:
        if e.get("ph") == "X" and e.get("dur") is not None:
            x_file[e.get("name")][0] += 1
            x_file[e.get("name")][1] += ns(e["dur"])
            x_ts += ns(e.get("ts", 0)) % 2147483647   # (mod: epoch-ns sums overflow int64)
    x_ours = {r[0]: [r[1], r[2]] for r in db.execute(
        "SELECT name, count(*), sum(dur) FROM profile_events(?) WHERE ph = 'X' AND dur IS NOT NULL GROUP BY name",
        (path,))}
    check(dict(x_file) == x_ours, f"{name}: X count/sum(dur) per name differ: "
          f"{sorted(set(map(str, x_file.items())) ^ set(map(str, x_ours.items())))[:4]}")
    ours_ts = db.execute("SELECT coalesce(sum(ts % 2147483647), 0) FROM profile_events(?) WHERE ph = 'X' AND dur IS NOT NULL",
                         (path,)).fetchone()[0]
    check(ours_ts == x_ts, f"{name}: sum(ts) of X {ours_ts} != {x_ts}")

    n_b = ph_file.get("B", 0)
    b_rows, b_closed = db.execute(
        "SELECT count(*), count(dur) FROM profile_events(?) WHERE ph = 'B'", (path,)).fetchone()
    check(b_rows == n_b, f"{name}: {b_rows} B rows, file has {n_b} B events")
    merged = b_closed + db.execute(
        "SELECT count(dur) FROM profile_events(?) WHERE ph IN ('b', 'S')", (path,)).fetchone()[0]
    # the top-level 'samples' array and DevTools' V8 profiles (ProfileChunk / CpuProfile events):
    # one row per sample, after the events
    n_samples = len(doc.get("samples", [])) if isinstance(doc, dict) else 0
    for e in events:
        data = (e.get("args") or {}).get("data") if isinstance(e.get("args"), dict) else None
        if isinstance(data, dict) and isinstance(data.get("cpuProfile"), dict) and (
                (e.get("ph") == "P" and e.get("name") == "ProfileChunk") or e.get("name") == "CpuProfile"):
            n_samples += len(data["cpuProfile"].get("samples", []))
    check(rows == len(events) - merged + n_samples,
          f"{name}: {rows} rows != {len(events)} events - {merged} merged ends + {n_samples} samples")

    if isinstance(doc, dict) and "displayTimeUnit" in doc:
        dtu = db.execute("SELECT value FROM profile_metadata(?) WHERE scope = 'trace' AND key = 'displayTimeUnit'",
                         (path,)).fetchone()
        check(dtu is not None and dtu[0] == doc["displayTimeUnit"], f"{name}: displayTimeUnit {dtu}")

print(f"{len(files)} corpus files")
done()
