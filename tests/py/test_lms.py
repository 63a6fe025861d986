"""A generated lms profiler CSV of 180,000 markers with nesting and interleaving, checked against
values computed by hand from the generator's pattern (no lms capture exists publicly).

Each of N iterations writes, with diffs in µs:
  0,0,1  outer BEGIN at T+1      0,1,2  inner BEGIN at T+3     0,2,1  t2 BEGIN at T+4
  1,1,3  inner END at T+7        1,0,4  outer END at T+11      1,2,2  t2 END at T+13
so outer lasts 10 µs, inner 4 µs (depth 1 under outer) and t2 9 µs; t2 starts inside inner but
outlasts inner and outer: 2 'overlap' diagnostics per iteration and t2 is a root. Iteration k
starts at T = 13k. Prints "RESULT <passed> <failed>" last."""
import os
import tempfile

from testlib import check, connect, done

N = 30000
lines = ["2,0,outer", "2,1,inner", "2,2,t2"]
for _ in range(N):
    lines += ["0,0,1", "0,1,2", "0,2,1", "1,1,3", "1,0,4", "1,2,2"]
fd, path = tempfile.mkstemp(suffix=".csv")
with os.fdopen(fd, "w") as f:
    f.write("\n".join(lines) + "\n")
try:
    db = connect()
    rows = dict((r[0], r[1:]) for r in db.execute(
        "SELECT name, count(*), sum(dur), min(dur), max(dur), max(depth), min(depth) "
        "FROM profile_events(?) GROUP BY name", (path,)))
    check(rows.get("outer") == (N, N * 10000, 10000, 10000, 0, 0), f"outer {rows.get('outer')}")
    check(rows.get("inner") == (N, N * 4000, 4000, 4000, 1, 1), f"inner {rows.get('inner')}")
    check(rows.get("t2") == (N, N * 9000, 9000, 9000, 0, 0), f"t2 {rows.get('t2')}")
    last = db.execute("SELECT ts, dur FROM profile_events(?) WHERE name = 'outer' ORDER BY id DESC LIMIT 1",
                      (path,)).fetchone()
    check(last == ((13 * (N - 1) + 1) * 1000, 10000), f"last outer {last}")
    parents_ok = db.execute(
        "SELECT count(*) FROM profile_events(?) c JOIN profile_events(?) p ON p.id = c.parent_id "
        "WHERE c.name = 'inner' AND p.name = 'outer' AND p.id = c.id - 1", (path, path)).fetchone()[0]
    check(parents_ok == N, f"inner rows under their outer: {parents_ok}")
    meta = dict(((r[0], r[1]), r[2]) for r in db.execute("SELECT scope, key, value FROM profile_metadata(?)", (path,)))
    check(meta.get(("diagnostic", "overlap_count")) == 2 * N, f"overlaps {meta.get(('diagnostic', 'overlap_count'))}")
    check(meta.get(("capture", "markers")) == 6 * N, f"markers {meta.get(('capture', 'markers'))}")
    check(meta.get(("capture", "duration_ns")) == 13 * N * 1000, f"duration {meta.get(('capture', 'duration_ns'))}")
    check(("diagnostic", "unmatched_end_count") not in meta, "no unmatched ends")
finally:
    os.unlink(path)
done()
