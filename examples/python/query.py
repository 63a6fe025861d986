"""libprofsql from Python: load the extension into the standard sqlite3 module and query a
capture; with pandas (when installed) the same query becomes a DataFrame.

    python3 examples/python/query.py [capture]        (run from the repository root)

The loader is bindings/python's libprofsql package (imported from this checkout, so nothing
needs installing): it loads $LIBPROFSQL_PATH, else this checkout's ./libprofsql.so (`make`),
else an installed one (/usr/lib/<triplet>, /usr/local/lib/<triplet>, /usr/lib, /usr/local/lib).
When this Python's sqlite3 cannot load extensions (pyenv's and macOS's system Pythons), the same
query runs through apsw (Debian: apt-get install python3-apsw, for /usr/bin/python3); with
neither, or without the library, it prints what to do and exits with status 2.
"""
import os
import sqlite3
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))
sys.dont_write_bytecode = True                  # no __pycache__ left in the checkout
import profsql as libprofsql  # noqa: E402  (this checkout's loader; its import name is profsql)

if not os.environ.get(libprofsql.ENV) and os.path.isfile(os.path.join(ROOT, "libprofsql.so")):
    os.environ[libprofsql.ENV] = os.path.join(ROOT, "libprofsql.so")   # the one `make` built here


def connect():
    """A connection with libprofsql loaded: sqlite3 where it can load extensions, else apsw."""
    try:
        db = sqlite3.connect(":memory:")
        libprofsql.load(db)                     # Debian's python3; some builds disable it
        return db
    except libprofsql.LoadingUnavailable as e:
        try:
            import apsw                         # the route that works there
        except ImportError:
            raise libprofsql.LoadingUnavailable(f"{e}\n(and apsw is not importable by {sys.executable})") from None
        db = apsw.Connection(":memory:")
        libprofsql.load(db)
        return db


capture = sys.argv[1] if len(sys.argv) > 1 else "examples/browser_trace.json"
try:
    db = connect()
except libprofsql.Error as e:                   # no extension loading, no library: say what to do
    print(e, file=sys.stderr)
    sys.exit(2)

SQL = """SELECT name, count(*) AS n, round(sum(dur) / 1e6, 3) AS total_ms
           FROM profile_events(?) WHERE dur IS NOT NULL
          GROUP BY name ORDER BY total_ms DESC LIMIT 5"""
print("Which slices take the most time?")
for name, n, ms in db.execute(SQL, (capture,)):
    print(f"  {name:<32} {n:>6} {ms:>10.3f} ms")

try:
    import pandas as pd
except ImportError:
    print("(pandas is not installed: pip install pandas, or apt install python3-pandas)")
else:
    if isinstance(db, sqlite3.Connection):
        df = pd.read_sql(SQL, db, params=(capture,))
    else:                                       # pd.read_sql takes DB-API connections; apsw is not one
        df = pd.DataFrame(list(db.execute(SQL, (capture,))), columns=["name", "n", "total_ms"])
    print(df.to_string(index=False))
