"""make install / uninstall into a temporary DESTDIR: the versioned library in Debian's multiarch
directory (soname checked with readelf), profsql.h, libprofsql.pc (read back by pkg-config), the
sql/ helpers and docs; the installed library loads in the sqlite3 shell; a C program that uses only
the public header links libprofsql.a (flags from the installed .pc) and answers a query whose
value is counted independently with Python's json; make uninstall leaves nothing."""
import json
import os
import shutil
import subprocess
import tempfile

from testlib import check, done, skip_part

version = open("VERSION").read().strip()
major = version.split(".")[0]
triplet = subprocess.run(["cc", "-print-multiarch"], capture_output=True, text=True).stdout.strip()
libdir = "usr/lib/" + triplet if triplet else "usr/lib"
dest = tempfile.mkdtemp(prefix="profsql-install-")
r = subprocess.run(["make", "-s", "install", f"DESTDIR={dest}", "PREFIX=/usr"], capture_output=True, text=True)
check(r.returncode == 0, f"make install: {r.stderr[-300:]}")
for rel in [f"{libdir}/libprofsql.so.{version}", f"{libdir}/libprofsql.a", f"{libdir}/pkgconfig/libprofsql.pc",
            "usr/include/profsql.h", "usr/share/libprofsql/sql/event_tree.sql",
            "usr/share/libprofsql/sql/record_tree.sql", "usr/share/doc/libprofsql/profile_events.md",
            "usr/share/doc/libprofsql/LICENSE"]:
    check(os.path.isfile(os.path.join(dest, rel)), f"installed {rel}")
for link, target in [("libprofsql.so", f"libprofsql.so.{major}"), (f"libprofsql.so.{major}", f"libprofsql.so.{version}")]:
    p = os.path.join(dest, libdir, link)
    check(os.path.islink(p) and os.readlink(p) == target, f"{libdir}/{link} -> {target}")
lib = os.path.join(dest, libdir, "libprofsql.so")
r = subprocess.run(["readelf", "-d", lib], capture_output=True, text=True)
check(f"Library soname: [libprofsql.so.{major}]" in r.stdout, "the soname is libprofsql.so.MAJOR", r.stdout[-300:])
r = subprocess.run(["sqlite3", ":memory:", f".load {lib[:-3]}", "SELECT profsql_version()"], capture_output=True, text=True)
check(r.stdout.strip() == version, f"installed library loads: {r.stdout!r} {r.stderr!r}")

# the .pc, read back by pkg-config from the DESTDIR (its prefix is /usr: rebased with --define-prefix
# would hide a wrong libdir, so the variables are checked as written)
pcdir = os.path.join(dest, libdir, "pkgconfig")
env = dict(os.environ, PKG_CONFIG_PATH=pcdir)
if shutil.which("pkg-config"):
    r = subprocess.run(["pkg-config", "--modversion", "libprofsql"], capture_output=True, text=True, env=env)
    check(r.stdout.strip() == version, "pkg-config --modversion libprofsql", r.stdout + r.stderr)
    r = subprocess.run(["pkg-config", "--variable=libdir", "libprofsql"], capture_output=True, text=True, env=env)
    check(r.stdout.strip() == "/" + libdir, "libprofsql.pc: libdir is the multiarch directory", r.stdout)
    r = subprocess.run(["pkg-config", "--static", "--libs", "libprofsql"], capture_output=True, text=True, env=env)
    libs = r.stdout.split()
    check(r.returncode == 0 and "-l:libprofsql.a" in libs and "-lminizip" in libs and "-lz" in libs and "-lsqlite3" in libs,
          "pkg-config --static --libs names libprofsql and what it links", r.stdout + r.stderr)
else:
    skip_part("pkg-config checks: pkg-config is not installed (Debian package pkg-config)")
    libs = ["-l:libprofsql.a", "-lsqlite3", "-lminizip", "-lz", "-lpthread", "-lm"]

# a program that knows libprofsql only through <profsql.h>, linked statically
prog = os.path.join(tempfile.mkdtemp(prefix="profsql-static-"), "p")
src = prog + ".c"
open(src, "w").write('''#include <sqlite3.h>
#include <stdio.h>
#include <profsql.h>
int main(void){
  sqlite3 *db; sqlite3_stmt *st;
  sqlite3_open(":memory:", &db);
  if( sqlite3_profsql_init(db, 0, 0) ) return 1;
  sqlite3_prepare_v2(db, "SELECT profsql_version(), count(*), sum(dur) FROM profile_events('tests/data/basic.json') WHERE ph = 'X'", -1, &st, 0);
  if( sqlite3_step(st)==SQLITE_ROW ) printf("%s %d %lld\\n", sqlite3_column_text(st, 0), sqlite3_column_int(st, 1), sqlite3_column_int64(st, 2));
  sqlite3_finalize(st); sqlite3_close(db);
  return 0;
}
''')
libs = [("-L" + os.path.join(dest, libdir)) if a.startswith("-L") else a for a in libs]
r = subprocess.run(["cc", "-Wall", "-Werror", "-o", prog, src, "-I" + os.path.join(dest, "usr/include"),
                    os.path.join(dest, libdir, "libprofsql.a")] + [a for a in libs if a != "-l:libprofsql.a" and not a.startswith("-L")],
                   capture_output=True, text=True)
check(r.returncode == 0, f"a program using only profsql.h links libprofsql.a: {r.stderr[-400:]}")
# independent: the X events of basic.json and their durations (us -> ns, half away from zero)
doc = json.load(open("tests/data/basic.json"))
evs = doc["traceEvents"] if isinstance(doc, dict) else doc
xs = [e for e in evs if e.get("ph") == "X"]
want = f"{version} {len(xs)} {sum(int(e['dur'] * 1000 + 0.5) for e in xs)}"
if r.returncode == 0:
    out = subprocess.run([prog], capture_output=True, text=True).stdout.strip()
    check(out == want, f"the static program answers what Python counts ({want})", out)

# the same program built as the .pc says, without --static: an archive carries none of its
# dependencies, so plain --libs must name them all (it gave only -l:libprofsql.a: llround, the
# SQLite API and zlib were undefined). PKG_CONFIG_SYSROOT_DIR puts the DESTDIR before the .pc's
# -I and -L.
if shutil.which("pkg-config"):
    r = subprocess.run(["pkg-config", "--cflags", "--libs", "libprofsql"], capture_output=True, text=True,
                       env=dict(env, PKG_CONFIG_SYSROOT_DIR=dest))
    flags = r.stdout.split()
    check(r.returncode == 0 and "-L" + os.path.join(dest, libdir) in flags and "-I" + os.path.join(dest, "usr/include") in flags,
          "pkg-config --cflags --libs libprofsql: the installed -I and -L", r.stdout + r.stderr)
    plain = prog + "_pc"
    r = subprocess.run(["cc", "-Wall", "-Werror", "-o", plain, src] + flags, capture_output=True, text=True)
    check(r.returncode == 0, "cc prog.c $(pkg-config --cflags --libs libprofsql), no --static, links", r.stderr[-400:])
    if r.returncode == 0:
        out = subprocess.run([plain], capture_output=True, text=True).stdout.strip()
        check(out == want, f"that program answers the same ({want})", out)
else:
    skip_part("pkg-config --libs link: pkg-config is not installed (Debian package pkg-config)")

# the loadable library linked into a program and called with pApi 0: SQLITE_MISUSE (21), no crash
so_prog = prog + "_so"
r = subprocess.run(["cc", "-o", so_prog, src, "-I" + os.path.join(dest, "usr/include"), "-L" + os.path.join(dest, libdir),
                    "-Wl,-rpath," + os.path.join(dest, libdir), "-lprofsql", "-lsqlite3"], capture_output=True, text=True)
if r.returncode == 0:
    p = subprocess.run([so_prog], capture_output=True, text=True)
    check(p.returncode == 1 and p.stdout == "", "libprofsql.so called directly with pApi 0 fails cleanly (SQLITE_MISUSE)",
          (p.returncode, p.stdout))
else:
    check(False, "a program links libprofsql.so", r.stderr[-300:])

r = subprocess.run(["make", "-s", "uninstall", f"DESTDIR={dest}", "PREFIX=/usr"], capture_output=True, text=True)
left = [os.path.join(d, f) for d, _, fs in os.walk(dest) for f in fs]
check(r.returncode == 0 and left == [], f"make uninstall leaves nothing: {left[:3]}")
shutil.rmtree(dest)
done()
