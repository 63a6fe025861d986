"""ODBC, the way BI tools (Excel, Power BI, Tableau, LibreOffice Base) reach SQLite: Debian's
unixodbc (isql) and libsqliteodbc. A DSN whose LoadExt loads libprofsql.so runs a profile_events
query; a DSN without the extension reads a database written by profile_import. The DSNs live in
a temporary odbc.ini (ODBCINI/ODBCSYSINI), never in /etc."""
import os
import shutil
import subprocess
import tempfile

from testlib import check, connect, done, skip

DRIVER = "/usr/lib/x86_64-linux-gnu/odbc/libsqlite3odbc.so"
if not shutil.which("isql") or not os.path.exists(DRIVER):
    skip("isql (unixodbc) or the SQLite ODBC driver (libsqliteodbc) is not installed")

tmp = tempfile.mkdtemp(prefix="profsql-odbc-")
dbfile = os.path.join(tmp, "imported.db")
db = connect()
db.execute("ATTACH ? AS imp", (dbfile,))
db.execute("SELECT profile_import('examples/browser_trace.json', 'imp')").fetchone()
db.execute("DETACH imp")
open(os.path.join(tmp, "odbc.ini"), "w").write(f"""[profsql]
Driver = {DRIVER}
Database = :memory:
LoadExt = {os.path.abspath('libprofsql.so')}

[imported]
Driver = {DRIVER}
Database = {dbfile}
""")
open(os.path.join(tmp, "odbcinst.ini"), "w").write("")
env = dict(os.environ, ODBCINI=os.path.join(tmp, "odbc.ini"), ODBCSYSINI=tmp)


def isql(dsn, sql):
    r = subprocess.run(["isql", "-b", "-d,", dsn], input=sql + "\n", capture_output=True, text=True, env=env)
    return r.stdout.strip(), r.stderr.strip()


want = db.execute("SELECT count(*), sum(dur) FROM profile_events('examples/browser_trace.json')").fetchone()
out, err = isql("profsql", "SELECT count(*), sum(dur) FROM profile_events('examples/browser_trace.json');")
check(out == f"{want[0]},{want[1]}", f"ODBC with LoadExt: {out!r} {err[:200]!r}")
out, err = isql("imported", "SELECT count(*), sum(dur) FROM events;")
check(out == f"{want[0]},{want[1]}", f"ODBC without the extension, imported file: {out!r} {err[:200]!r}")
top = db.execute("SELECT name FROM profile_events('examples/browser_trace.json') WHERE dur IS NOT NULL "
                 "GROUP BY name ORDER BY sum(dur) DESC, name LIMIT 1").fetchone()[0]
out, err = isql("imported", "SELECT name FROM event_tree GROUP BY name ORDER BY sum(inclusive_ns) DESC, name LIMIT 1;")
check(out == top, f"the tree views through ODBC: {out!r} vs {top!r}")
done()
