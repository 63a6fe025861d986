"""libprofsql from Python: load the extension into the standard sqlite3 module and query a
capture; with pandas (when installed) the same query becomes a DataFrame.

    python3 examples/python/query.py [capture]        (run from the repository root)
"""
import os
import sqlite3
import sys

capture = sys.argv[1] if len(sys.argv) > 1 else "examples/browser_trace.json"
db = sqlite3.connect(":memory:")
db.enable_load_extension(True)                  # Debian's python3; some builds disable it
db.load_extension(os.path.abspath("libprofsql"))
db.enable_load_extension(False)

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
    df = pd.read_sql(SQL, db, params=(capture,))
    print(df.to_string(index=False))
