"""XSpace corpus test: every .xplane.pb in ../shared/corpus/xplane is decoded by Debian's
`protoc --decode_raw` (an independent decoder) and by libprofsql, and per file these agree:
planes, lines per plane, events per line, stats (on planes, on event metadata, on events),
event-/stat-metadata entries per plane, and the sum of duration_ps per plane.
XSpace field numbers (xplane.proto): XSpace.planes=1; XPlane.lines=3, event_metadata=4 (map entry
value=2), stat_metadata=5, stats=6; XLine.events=4; XEvent.duration_ps=3, stats=4;
XEventMetadata.stats=5. The upstream file tpu_inference_2.xplane.pb is corrupt (non-UTF-8 bytes
replaced by U+FFFD): protoc rejects it, and libprofsql must give an error with a byte offset.
Skips when the corpus or protoc is absent. Prints "RESULT <passed> <failed>" last."""
import os
import shutil
import sqlite3
import subprocess

from testlib import check, connect, done, skip

CORPUS = os.path.join("..", "shared", "corpus", "xplane")
if not os.path.isdir(CORPUS):
    skip(f"xplane corpus: {CORPUS} not found")
if not shutil.which("protoc"):
    skip("xplane corpus: protoc not installed (Debian package protobuf-compiler)")


def decode_raw(path):
    """protoc --decode_raw as a tree: each node is (field, value or list of children)."""
    out = subprocess.run(["protoc", "--decode_raw"], stdin=open(path, "rb"), capture_output=True, text=True,
                         errors="replace")
    if out.returncode != 0:
        return None
    root = []
    stack = [root]
    for line in out.stdout.splitlines():
        s = line.strip()
        if s == "}":
            stack.pop()
        elif s.endswith("{"):
            node = (int(s.split()[0]), [])
            stack[-1].append(node)
            stack.append(node[1])
        elif s:
            field, _, value = s.partition(": ")
            stack[-1].append((int(field), value))
    return root


def kids(node, field):
    return [c for c in node if c[0] == field and isinstance(c[1], list)]


def scalar(node, field):
    for c in node:
        if c[0] == field and not isinstance(c[1], list):
            return int(c[1])
    return 0


db = connect()
for name in sorted(os.listdir(CORPUS)):
    path = os.path.join(CORPUS, name)
    tree = decode_raw(path)
    if tree is None:
        # the corrupt upstream file: a clear error naming a byte offset, no rows
        try:
            db.execute("SELECT count(*) FROM profile_events(?)", (path,)).fetchone()
            check(False, f"{name}: protoc rejects it but libprofsql loaded it")
        except sqlite3.Error as e:
            check(str(e) == f"profile_events: {path}: byte 1: length 28501368332271 runs past the end of XSpace "
                             "(1365932 bytes left)", f"{name}: error {e}")
        continue
    planes = kids(tree, 1)
    n_planes = db.execute("SELECT count(DISTINCT plane_index) FROM profile_xplanes(?)", (path,)).fetchone()[0]
    check(n_planes == len(planes), f"{name}: {n_planes} planes, protoc {len(planes)}")
    stats = 0
    for i, (_, plane) in enumerate(planes):
        lines = kids(plane, 3)
        ours = db.execute("SELECT line_id, event_count FROM profile_xplanes(?) WHERE plane_index = ? AND line_id IS NOT NULL",
                          (path, i)).fetchall()
        theirs = [(scalar(ln, 1), len(kids(ln, 4))) for _, ln in lines]
        # line ids are int64 in the proto; protoc prints the raw varint (uint64)
        theirs = [(lid - (1 << 64) if lid >= (1 << 63) else lid, n) for lid, n in theirs]
        check(ours == theirs, f"{name} plane {i}: lines/events {ours[:4]} != {theirs[:4]}")
        dur = sum(scalar(ev, 3) for _, ln in lines for _, ev in kids(ln, 4))
        ours_dur = db.execute("SELECT coalesce(sum(duration_ps), 0) FROM profile_events(?) WHERE pid = ?",
                              (path, i)).fetchone()[0]
        check(ours_dur == dur, f"{name} plane {i}: sum(duration_ps) {ours_dur} != {dur}")
        emeta = kids(plane, 4)
        smeta = kids(plane, 5)
        plane_name = next((c[1] for c in plane if c[0] == 2 and not isinstance(c[1], list)), '""')[1:-1]
        m = dict(db.execute("SELECT key, value FROM profile_metadata(?) WHERE scope = ?", (path, plane_name)))
        if sum(1 for _, q in planes if f'"{plane_name}"' in [c[1] for c in q if c[0] == 2]) == 1:
            # (metadata rows are scoped by plane name: checked where the name is unique)
            check((m.get("event_metadata"), m.get("stat_metadata"), m.get("plane_index")) == (len(emeta), len(smeta), i),
                  f"{name} plane {i}: metadata entries {m} != {len(emeta)}/{len(smeta)}")
        stats += len(kids(plane, 6))
        stats += sum(len(kids(v, 5)) for _, e in emeta for _, v in kids(e, 2))
        stats += sum(len(kids(ev, 4)) for _, ln in lines for _, ev in kids(ln, 4))
    ours_stats = db.execute("SELECT value FROM profile_metadata(?) WHERE scope = 'capture' AND key = 'stats'",
                            (path,)).fetchone()[0]
    check(ours_stats == stats, f"{name}: {ours_stats} stats, protoc {stats}")
    n_events = db.execute("SELECT count(*) FROM profile_events(?)", (path,)).fetchone()[0]
    check(n_events == sum(len(kids(ln, 4)) for _, p in planes for _, ln in kids(p, 3)), f"{name}: events {n_events}")
# many files at once: a glob over the run's hosts; host comes from the file name
pattern = os.path.join(CORPUS, "tracelens-*.xplane.pb")
hosts = db.execute("SELECT DISTINCT host, file FROM profile_xplanes(?) ORDER BY file", (pattern,)).fetchall()
expect = [(f[:-len(".xplane.pb")], os.path.join(CORPUS, f)) for f in sorted(os.listdir(CORPUS)) if f.startswith("tracelens-")]
check(hosts == expect, f"hosts of the glob {hosts} != {expect}")
per_file = dict(db.execute("SELECT file, count(*) FROM profile_events(?) GROUP BY file", (pattern,)))
single = {f: db.execute("SELECT count(*) FROM profile_events(?)", (f,)).fetchone()[0] for _, f in expect}
check(per_file == single, f"events per file of the glob {per_file} != {single}")
done()
