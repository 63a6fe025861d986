"""Settings belong to one connection, untrusted SQL can only lower them, and what the loader
accepts as a capture path (issue 12, items 2, 5 and 6): a FIFO never blocks a query, and a file
rewritten in place is re-read even when its size and mtime were put back.

Expected values are computed here from the inputs this file builds (counts, names)."""
import gzip
import json
import os
import sqlite3
import subprocess
import sys
import tempfile

from testlib import check, connect, connect_noio as noio, done

LIB = os.path.abspath("libprofsql")


def err(db, sql, *args):
    try:
        db.execute(sql, args).fetchall()
    except sqlite3.Error as e:
        return str(e)
    return None


EV = "SELECT count(*) FROM profile_events(?)"
# one X event whose args nest 5 levels; the limit counts the levels of a skipped value (args
# starts at byte 60, so at a limit of 3 the fourth '[' at byte 63 is refused)
nested = b'[{"ph":"X","ts":1,"dur":1,"pid":1,"tid":1,"name":"a","args":[[[[[]]]]]}]'

# ---- 2. settings are per connection: a noio connection lowering its depth limit does not
# reach a trusted connection (it did: max_json_depth was process-wide)
trusted, untrusted = connect(), noio()
check(untrusted.execute("SELECT profsql_config('max_json_depth', 3)").fetchone()[0] == 3,
      "noio may lower max_json_depth")
check(trusted.execute("SELECT profsql_config('max_json_depth')").fetchone()[0] == 10000,
      "the trusted connection's max_json_depth is its own",
      trusted.execute("SELECT profsql_config('max_json_depth')").fetchone()[0])
check(trusted.execute(EV, (nested,)).fetchone()[0] == 1, "the trusted connection loads 5 levels of args")
check(err(untrusted, EV, nested) == "profile_events: BLOB: byte 63 (line 1, column 64): JSON nested deeper than 3 levels",
      "the noio connection's own limit applies to it", err(untrusted, EV, nested))

# untrusted SQL can only lower a limit
for name, v in (("max_inflated_bytes", 1 << 62), ("cache_size", 1000), ("max_json_depth", 10000), ("mmap", 1)):
    cur = untrusted.execute("SELECT profsql_config(?)", (name,)).fetchone()[0]
    if v <= cur:
        continue
    check(err(untrusted, "SELECT profsql_config(?, ?)", name, v)
          == f"profsql_config: '{name}' can only be lowered in this connection (loaded with "
             f"sqlite3_profsql_noio_init): {v} is above the current {cur}",
          f"noio cannot raise {name}", err(untrusted, "SELECT profsql_config(?, ?)", name, v))
check(untrusted.execute("SELECT profsql_config('cache_size', 1)").fetchone()[0] == 1, "noio may lower cache_size")
check(untrusted.execute("SELECT profsql_config('max_inflated_bytes', 2097152)").fetchone()[0] == 2097152,
      "noio may lower max_inflated_bytes")
check(err(untrusted, "SELECT profsql_config('max_inflated_bytes', 2097153)") is not None,
      "noio cannot raise it back, even by one byte")
check(trusted.execute("SELECT profsql_config('max_inflated_bytes', 1 << 40)").fetchone()[0] == 1 << 40,
      "a trusted connection may raise its own limit")
check(untrusted.execute("SELECT profsql_config('max_inflated_bytes')").fetchone()[0] == 2097152,
      "... which does not reach the noio connection")

# ---- 2. a BLOB inflates no further than SQLITE_LIMIT_LENGTH, whatever max_inflated_bytes says
events = [{"ph": "X", "ts": i, "dur": 1, "pid": 1, "tid": 1, "name": "e"} for i in range(60000)]
raw = json.dumps(events).encode()                   # about 3.5 MB inflated
blob = gzip.compress(raw)
lim = connect()
lim.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, 2_000_000)
msg = err(lim, EV, blob) or ""
check(msg.startswith("profile_events: BLOB: inflated gzip stream exceeds the limit of 2000000 bytes")
      and "SQLITE_LIMIT_LENGTH of this connection" in msg, "SQLITE_LIMIT_LENGTH bounds a BLOB's inflation", msg)
lim.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, len(raw) + 1)
check(lim.execute(EV, (blob,)).fetchone()[0] == 60000, "within SQLITE_LIMIT_LENGTH it loads whole",
      err(lim, EV, blob))

# ---- 5. a FIFO as a capture path (directly or matched by a glob) is an error, never a block.
# Run in a child process with a timeout: the old code blocked in open() for ever.
d = tempfile.mkdtemp()
fifo = os.path.join(d, "b.json")
os.mkfifo(fifo)
with open(os.path.join(d, "a.json"), "w") as f:
    json.dump(events[:3], f)
child = f"""
import sqlite3, sys
db = sqlite3.connect(':memory:'); db.enable_load_extension(True); db.load_extension({LIB!r})
for src in sys.argv[1:]:
    try:
        print(db.execute("SELECT count(*) FROM profile_events(?)", (src,)).fetchone()[0])
    except sqlite3.Error as e:
        print(e)
"""
try:
    out = subprocess.run([sys.executable, "-c", child, fifo, os.path.join(d, "*.json"), d],
                         capture_output=True, text=True, timeout=60).stdout.splitlines()
except subprocess.TimeoutExpired:
    out = ["timed out"] * 3
check(out[0] == f"profile_events: cannot open '{fifo}': it is a FIFO, not a regular file",
      "a FIFO path is refused at once", out[0])
# (a glob skips a file it cannot read, as a directory does, naming it in profile_metadata: issue 32)
check(out[1] == "3", "a FIFO matched by a glob is skipped at once, the regular file read", out[1])
check(out[2] == "3", "a directory scan skips the FIFO and reads the regular file", out[2])

# ---- 6. a file rewritten in place with its size and mtime put back is read again (the cache key
# has ctime; before, rows mixed the old capture's names with the new file's args)
db = connect()
live = os.path.join(d, "live.json")
old = b'[{"ph":"X","ts":1,"dur":1,"pid":1,"tid":1,"name":"aaaa","args":{"v":1}}]'
new = b'[{"ph":"X","ts":1,"dur":1,"pid":1,"tid":1,"name":"bbbb","args":{"v":2}}]'
assert len(old) == len(new)
with open(live, "wb") as f:
    f.write(old)
st = os.stat(live)
Q = "SELECT name, args FROM profile_events(?)"
check(db.execute(Q, (live,)).fetchall() == [("aaaa", '{"v":1}')], "the first version")
with open(live, "r+b") as f:                        # in place: same inode, same size
    f.write(new)
os.utime(live, ns=(st.st_atime_ns, st.st_mtime_ns))  # mtime put back
st2 = os.stat(live)
check((st2.st_size, st2.st_mtime_ns, st2.st_ino) == (st.st_size, st.st_mtime_ns, st.st_ino),
      "the rewrite kept size, mtime and inode")
rows = db.execute(Q, (live,)).fetchall()
check(rows == [("bbbb", '{"v":2}')], "the rewritten file is read again, never a mix", rows)

done()
