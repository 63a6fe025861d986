"""A directory or glob source read one capture at a time (issue 18, "bounded memory over many
captures"), and the `file = ?` / `file IN (...)` constraints that load only the files they name.

Six rank traces are written from examples/browser_trace.json (each rank's pids and times moved,
plus one 'rank_step' slice of (k+1) ms) and one damaged file beside them. Checked against the
traces' own JSON read by Python (count and sum(dur) of the complete X slices per file and per
name; the hand sum of the rank steps, 21 ms): the per-file and per-name totals over the glob (the
damaged file skipped and named in profile_metadata with its error and a count; with the format
argument's {"strict": true} the query fails on it; 64 ranks with one damaged read the 63); that
a full scan holds one capture at a time (profsql_debug's live_peak is 1 and, with more files
than the cache keeps, nothing stays cached); that a glob of no more files than the cache keeps is
cached as before; that `file = ?` / `file IN` read only the named files (the damaged file is never
opened); that ORDER BY id over several files is sorted (ids repeat per file); text columns read
from a streamed file stay valid after the file is released (max(name), GROUP BY name); a lookup
join on (file, id) across files, which holds every file, still gives the Python answer."""
import json
import os
import shutil
import tempfile

import testlib
from testlib import check, connect, done, write_rank_traces

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.chdir(ROOT)

tmp = tempfile.mkdtemp()
ranks = []
per_file = {}        # path -> (count of X with dur, sum of their dur in ns)
per_name = {}        # name -> [count, sum dur ns] over all ranks (X slices)
NRANK = 6
for p, evs in write_rank_traces(tmp, NRANK):
    ranks.append(p)
    n = s = 0
    for e in evs:
        if e.get("ph") == "X" and "dur" in e:
            d = round(e["dur"] * 1000)
            n += 1; s += d
            c = per_name.setdefault(e["name"], [0, 0])
            c[0] += 1; c[1] += d
    per_file[p] = (n, s)
# a damaged capture after the ranks: a glob over everything fails on it, a file constraint never opens it
bad = os.path.join(tmp, "rank9.json")
with open(bad, "w") as f:
    f.write('{"traceEvents":[{"name":"a","ph":"X","ts":1,"dur":2,"pid":1,"tid":1},{"ph": oops')
glob_ranks = os.path.join(tmp, "rank[0-5].json")
glob_all = os.path.join(tmp, "rank*.json")


def debug(db):
    return json.loads(db.execute("SELECT profsql_debug()").fetchone()[0])


# per-file totals, read one file at a time
db = connect()
got = {f: (n, s) for f, n, s in db.execute(
    "SELECT file, count(*), sum(dur) FROM profile_events(?) WHERE ph = 'X' AND dur IS NOT NULL "
    "GROUP BY file ORDER BY file", (glob_ranks,))}
check(got == per_file, "per-file X count and sum(dur) over the glob = Python's json", got)
d = debug(db)
check(d["loads"] == NRANK, f"the scan parsed each of the {NRANK} files once", d)
check(d["live_peak"] == 1, "one capture in memory at a time while the glob is scanned", d)
check(d["live"] == 0 and d["cached"] == 0,
      f"{NRANK} files (more than the cache's 4): none kept after the scan", d)
steps = db.execute("SELECT sum(dur) FROM profile_events(?) WHERE name = 'rank_step'", (glob_ranks,)).fetchone()[0]
check(steps == 21_000_000, "the rank steps add up to the hand sum 1+2+...+6 ms = 21 ms", steps)

# GROUP BY name across files: SQLite's sorter, files still read one at a time
db = connect()
got = {name: [n, s] for name, n, s in db.execute(
    "SELECT name, count(*), sum(dur) FROM profile_events(?) WHERE ph = 'X' AND dur IS NOT NULL "
    "GROUP BY name", (glob_ranks,))}
check(got == per_name, "per-name totals over the glob = Python's json", len(got))
# a literal source is known when SQLite plans the query: a glob's name order is then SQLite's
# sorter, and the files are read one at a time (a bound parameter is not known then: the rows
# are merged in name order across the files, which holds them all, as docs/loading.md says)
db = connect()
got = {name: [n, s] for name, n, s in db.execute(
    f"SELECT name, count(*), sum(dur) FROM profile_events('{glob_ranks}') WHERE ph = 'X' AND dur IS NOT NULL "
    "GROUP BY name")}
check(got == per_name, "per-name totals over a literal glob = Python's json", len(got))
check(debug(db)["live_peak"] == 1, "GROUP BY name over a literal glob holds one capture at a time", debug(db))
# text values that outlive the file they came from (an aggregate keeps the best one)
mx = db.execute("SELECT max(name), min(name) FROM profile_events(?) WHERE ph = 'X'", (glob_ranks,)).fetchone()
check(mx == (max(per_name), min(per_name)), "max(name) / min(name) over streamed files", mx)
# GROUP BY file, name comes out of the per-file name index without a sorter
plan = " ".join(r[3] for r in db.execute(
    "EXPLAIN QUERY PLAN SELECT file, name, count(*) FROM profile_events(?) GROUP BY file, name", (glob_ranks,)))
check("TEMP B-TREE" not in plan, "GROUP BY file, name needs no sorter", plan)
got = {}
for f, name, n, s in db.execute("SELECT file, name, count(*), sum(dur) FROM profile_events(?) "
                                "WHERE ph = 'X' AND dur IS NOT NULL GROUP BY file, name", (glob_ranks,)):
    got.setdefault(name, [0, 0]); got[name][0] += n; got[name][1] += s
check(got == per_name, "GROUP BY file, name adds up to the per-name totals", len(got))

# ORDER BY id over several files: ids repeat per file, so the order is SQLite's to make
ids = [r[0] for r in db.execute("SELECT id FROM profile_events(?) ORDER BY id", (glob_ranks,))]
nrow = db.execute("SELECT count(*) FROM profile_events(?)", (glob_ranks,)).fetchone()[0]
check(ids == sorted(ids) and len(ids) == nrow and ids[:NRANK] == [0] * NRANK, "ORDER BY id over a glob is sorted", ids[:8])
ids = [r[0] for r in db.execute(f"SELECT id FROM profile_events('{glob_ranks}') ORDER BY id")]
check(ids == sorted(ids), "... also when the glob is a literal", ids[:5])
rows = [tuple(r) for r in db.execute("SELECT file, id FROM profile_events(?) ORDER BY file, id", (glob_ranks,))]
check(rows == sorted(rows), "ORDER BY file, id comes out of the parts' own order", rows[:3])

# a glob of no more files than the cache keeps stays cached, as one file does
db = connect()
two = os.path.join(tmp, "rank[01].json")
db.execute("SELECT count(*) FROM profile_events(?)", (two,)).fetchone()
d1 = debug(db)
db.execute("SELECT count(*) FROM profile_events(?)", (two,)).fetchone()
d2 = debug(db)
check(d1["loads"] == 2 and d2["loads"] == 2 and d2["hits"] == 2, "a 2-file glob is served from the cache the second time", (d1, d2))

# file = ? and file IN (...): only the named files are opened (the damaged one never is)
# a glob over the damaged file reads the others and names it in profile_metadata (issue 32); the
# format argument's {"strict": true} makes it fail instead, naming the file and the byte
db = connect()
try:
    got = db.execute("SELECT count(DISTINCT file), count(*), sum(dur) FROM profile_events(?) WHERE ph = 'X' "
                     "AND dur IS NOT NULL", (glob_all,)).fetchone()
except Exception as e:
    got = str(e)
check(got == (NRANK, sum(n for n, _ in per_file.values()), sum(s for _, s in per_file.values())),
      "the glob over the damaged file: every other file's X rows (Python's json)", got)
try:
    sk = db.execute("SELECT key, value, file FROM profile_metadata(?) WHERE scope = 'files'", (glob_all,)).fetchall()
except Exception as e:
    sk = str(e)
check(isinstance(sk, list) and len(sk) == 2 and sk[0][0] == bad and sk[0][2] == bad
      and sk[0][1].startswith("skipped: byte ") and "rank9.json" not in sk[0][1] and sk[1] == ("skipped", 1, None),
      "... the damaged file listed with its error, and the count", sk)
try:
    db.execute("SELECT count(*) FROM profile_events(?, '{\"strict\": true}')", (glob_all,)).fetchone()
    check(False, "strict: the glob over the damaged file fails")
except Exception as e:
    check(str(e).startswith(f"profile_events: {bad}: byte "), "strict: the glob over the damaged file fails, naming it", str(e))
db = connect()
n = db.execute("SELECT count(*), sum(dur) FROM profile_events(?) WHERE file = ? AND ph = 'X' AND dur IS NOT NULL",
               (glob_all, ranks[3])).fetchone()
check(tuple(n) == per_file[ranks[3]], "file = ? reads that file alone", n)
check(debug(db)["loads"] == 1, "file = ? parsed one file", debug(db))
db = connect()
rows = db.execute("SELECT file, count(*) FROM profile_events(?) WHERE file IN (?, ?) AND ph = 'X' AND dur IS NOT NULL "
                  "GROUP BY file ORDER BY file", (glob_all, ranks[1], ranks[4])).fetchall()
check(rows == [(ranks[1], per_file[ranks[1]][0]), (ranks[4], per_file[ranks[4]][0])], "file IN (...) reads those files", rows)
check(debug(db)["loads"] == 2, "file IN (a, b) parsed two files", debug(db))
n = db.execute("SELECT count(*) FROM profile_events(?) WHERE file = 'nowhere.json'", (glob_all,)).fetchone()[0]
check(n == 0, "file = a path the glob does not name: no rows, no error", n)
for table, where in (("profile_metadata", ""), ("profile_records", ""), ("profile_jobs", ""), ("profile_xplanes", "")):
    try:
        db.execute(f"SELECT count(*) FROM {table}(?) WHERE file = ?", (glob_all, ranks[2])).fetchone()
        check(True, f"{table}: file = ? skips the damaged file")
    except Exception as e:
        check(False, f"{table}: file = ? skips the damaged file", str(e))
n = db.execute("SELECT count(*) FROM profile_jobs(?) WHERE file = ?", (glob_all, ranks[2])).fetchone()[0]
want = db.execute("SELECT count(*) FROM profile_events(?) WHERE dur IS NOT NULL AND ph IN ('X', 'B')", (ranks[2],)).fetchone()[0]
check(n == want and n >= per_file[ranks[2]][0], "profile_jobs: one job per complete thread-track slice of the named file",
      (n, want))

# a lookup join across files holds them all (the documented cost) and stays right
db = connect()
got = db.execute(
    "SELECT count(*) FROM profile_events(?1) c JOIN profile_events(?1) p "
    "ON p.file = c.file AND p.id = c.parent_id", (glob_ranks,)).fetchone()[0]
want = db.execute("SELECT count(*) FROM profile_events(?) WHERE parent_id IS NOT NULL", (glob_ranks,)).fetchone()[0]
check(got == want and want > 0, "a child -> parent join on (file, id) across the files", (got, want))

# a directory whose files are not captures: the error says so, streamed or not
empty = os.path.join(tmp, "notes")
os.mkdir(empty)
for k in range(3):
    with open(os.path.join(empty, f"n{k}.txt"), "w") as f:
        f.write("just some notes\n")
for sql in ("SELECT count(*) FROM profile_events(?)", "SELECT count(*) FROM profile_metadata(?)"):
    try:
        db.execute(sql, (empty,)).fetchone()
        check(False, "a directory of no capture fails")
    except Exception as e:
        check("holds no supported capture" in str(e), "a directory of no capture: 'holds no supported capture'", str(e))

# a directory streamed with files that are not captures between the captures: each is listed
# once as skipped (scope 'files'), the captures' rows are all there
mixed = os.path.join(tmp, "mixed")
os.mkdir(mixed)
for k, p in enumerate(ranks):
    shutil.copy(p, os.path.join(mixed, f"r{k}.json"))
    with open(os.path.join(mixed, f"r{k}.note"), "w") as f:
        f.write("not a capture\n")
db = connect()
got = db.execute("SELECT count(DISTINCT file), count(*) FROM profile_events(?) WHERE ph = 'X' AND dur IS NOT NULL",
                 (mixed,)).fetchone()
check(tuple(got) == (NRANK, sum(n for n, _ in per_file.values())), "a directory with notes between the captures: every capture's X rows", got)
skipped = [r[0] for r in db.execute("SELECT key FROM profile_metadata(?) WHERE scope = 'files' AND file IS NOT NULL "
                                     "ORDER BY key", (mixed,))]
check(skipped == sorted(os.path.join(mixed, f"r{k}.note") for k in range(NRANK)), "each note listed once as skipped", skipped)
n = db.execute("SELECT value FROM profile_metadata(?) WHERE scope = 'files' AND key = 'skipped'", (mixed,)).fetchall()
check(n == [(NRANK,)], "... and their count", n)
check(debug(db)["live_peak"] == 1, "the mixed directory is read one capture at a time", debug(db))
# a file comparison in another collation is SQLite's to make, not a name lookup (it used to
# match nothing)
r1 = os.path.join(mixed, "r1.json")
n = db.execute("SELECT count(*) FROM profile_events(?) WHERE file = ? COLLATE NOCASE", (mixed, r1.upper())).fetchone()[0]
m = db.execute("SELECT count(*) FROM profile_events(?) WHERE file = ?", (mixed, r1)).fetchone()[0]
check(n == m and m > 0, "file = UPPER(path) COLLATE NOCASE finds that file's rows", (n, m))

# 64 rank files with one damaged (issue 32): the 63 are read, the damaged one is named with its
# error in profile_metadata (a row and the count), streamed or held; strict fails; all damaged fails
many = os.path.join(tmp, "many")
os.mkdir(many)
want_n = want_s = 0
for k in range(64):
    pth = os.path.join(many, f"rank{k:02d}.json")
    if k == 37:
        with open(pth, "w") as f:       # a rank cut short mid-write
            f.write('{"traceEvents":[{"name":"step","ph":"X","ts":1,"dur":2,"pid":1,"tid":1},{"name":"st')
        continue
    evs = [{"name": "step", "ph": "X", "ts": 10 * j, "dur": k + j + 1, "pid": 1, "tid": k} for j in range(3)]
    with open(pth, "w") as f:
        json.dump({"traceEvents": evs}, f)
    want_n += len(evs); want_s += sum(round(e["dur"] * 1000) for e in evs)
dmg = os.path.join(many, "rank37.json")
for src in (many, os.path.join(many, "rank*.json")):
    db = connect()
    for sql in ("SELECT count(DISTINCT file), count(*), sum(dur) FROM profile_events(?)",
                "SELECT count(DISTINCT file), count(*), sum(dur) FROM (SELECT * FROM profile_events(?) ORDER BY name)"):
        try:
            got = db.execute(sql, (src,)).fetchone()
        except Exception as e:
            got = str(e)
        check(got == (63, want_n, want_s), f"{os.path.basename(src)}: 63 of 64 files read ({sql[-40:]})", got)
    sk = db.execute("SELECT key, value, file FROM profile_metadata(?) WHERE scope = 'files'", (src,)).fetchall()
    check(len(sk) == 2 and sk[0][0] == dmg == sk[0][2] and sk[0][1].startswith("skipped: the input ends inside an event at byte ")
          and sk[0][1].endswith("unterminated string") and sk[1] == ("skipped", 1, None),
          f"{os.path.basename(src)}: profile_metadata names the damaged file, its error, the count", sk)
    try:
        db.execute("SELECT count(*) FROM profile_events(?, '{\"strict\": true, \"format\": \"auto\"}')", (src,)).fetchone()
        check(False, f"{os.path.basename(src)}: strict fails")
    except Exception as e:
        check(str(e).startswith(f"profile_events: {dmg}: the input ends inside"), f"{os.path.basename(src)}: strict fails, naming the file", str(e))
alld = os.path.join(tmp, "alldamaged")
os.mkdir(alld)
for k in range(3):
    with open(os.path.join(alld, f"r{k}.json"), "w") as f:
        f.write('{"traceEvents":[{"ph":')
e = testlib.error(db, "SELECT count(*) FROM profile_events(?)", (alld,))
check(e is not None and e.startswith(f"profile_events: no file of '{alld}' loads (3 skipped; the first damaged, {alld}/r0.json: "),
      "every file damaged: an error naming the first", e)
for arg, msg in (('{"strict": 1}', 'option "strict" must be true or false'),
                 ('{"stric": true}', "unknown option 'stric' in the format argument (known: format, strict)"),
                 ('{"format": "nope"}', "unknown format 'nope'"),
                 ('{"strict": tru', "the format argument is not a JSON object")):
    e = testlib.error(db, "SELECT count(*) FROM profile_events(?, ?)", (many, arg))
    check(e is not None and e.startswith("profile_events: " + msg), f"format argument {arg}: an error", e)

shutil.rmtree(tmp)
done()
