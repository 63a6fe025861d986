"""make install / uninstall into a temporary DESTDIR, the installed library loads in the sqlite3
shell, and make static gives a libprofsql.a a C program linking SQLite can initialise itself."""
import os
import shutil
import subprocess
import tempfile

from testlib import check, done

dest = tempfile.mkdtemp(prefix="profsql-install-")
r = subprocess.run(["make", "-s", "install", f"DESTDIR={dest}", "PREFIX=/usr"], capture_output=True, text=True)
check(r.returncode == 0, f"make install: {r.stderr[-300:]}")
lib = os.path.join(dest, "usr/lib/libprofsql.so")
for rel in ["usr/lib/libprofsql.so", "usr/lib/libprofsql.a", "usr/share/libprofsql/sql/event_tree.sql",
            "usr/share/libprofsql/sql/record_tree.sql", "usr/share/doc/libprofsql/profile_events.md",
            "usr/share/doc/libprofsql/LICENSE"]:
    check(os.path.isfile(os.path.join(dest, rel)), f"installed {rel}")
version = open("VERSION").read().strip()
r = subprocess.run(["sqlite3", ":memory:", f".load {lib[:-3]}", "SELECT profsql_version()"], capture_output=True, text=True)
check(r.stdout.strip() == version, f"installed library loads: {r.stdout!r} {r.stderr!r}")
r = subprocess.run(["make", "-s", "uninstall", f"DESTDIR={dest}", "PREFIX=/usr"], capture_output=True, text=True)
left = [os.path.join(d, f) for d, _, fs in os.walk(dest) for f in fs]
check(r.returncode == 0 and left == [], f"make uninstall leaves nothing: {left[:3]}")
shutil.rmtree(dest)

prog = os.path.join(tempfile.mkdtemp(prefix="profsql-static-"), "p")
src = prog + ".c"
open(src, "w").write('''#include <sqlite3.h>
#include <stdio.h>
int sqlite3_profsql_init(sqlite3*, char**, const void*);
int main(void){
  sqlite3 *db; sqlite3_stmt *st;
  sqlite3_open(":memory:", &db);
  if( sqlite3_profsql_init(db, 0, 0) ) return 1;
  sqlite3_prepare_v2(db, "SELECT profsql_version(), count(*) FROM profile_events('tests/data/basic.json')", -1, &st, 0);
  if( sqlite3_step(st)==SQLITE_ROW ) printf("%s %d\\n", sqlite3_column_text(st, 0), sqlite3_column_int(st, 1));
  sqlite3_finalize(st); sqlite3_close(db);
  return 0;
}
''')
r = subprocess.run(["make", "-s", "static"], capture_output=True, text=True)
check(r.returncode == 0 and os.path.isfile("libprofsql.a"), f"make static: {r.stderr[-300:]}")
r = subprocess.run(["cc", "-o", prog, src, "libprofsql.a", "-lsqlite3", "-lminizip", "-lz", "-lpthread", "-lm"],
                   capture_output=True, text=True)
check(r.returncode == 0, f"a program links libprofsql.a: {r.stderr[-300:]}")
if r.returncode == 0:
    out = subprocess.run([prog], capture_output=True, text=True).stdout.strip()
    check(out == f"{version} 14", f"the static library answers: {out!r}")
done()
