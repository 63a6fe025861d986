"""make deb: the package's control data and contents (dpkg-deb), then — in CI (CI=true) or with
PROFSQL_TEST_DEB=1, as root, where no libprofsql package is installed already — dpkg -i: the
library loads by its bare name from /usr/lib/<multiarch>/ in the sqlite3 shell, pkg-config finds
it, a program using <profsql.h> links it; dpkg -r removes every file it installed. Elsewhere the
install part is skipped with a line saying why (it changes the system)."""
import os
import shutil
import subprocess
import tempfile

from testlib import check, done, skip, skip_part

if not shutil.which("dpkg-deb"):
    skip("make deb: dpkg-deb is not installed (Debian package dpkg)")
version = open("VERSION").read().strip()
major = version.split(".")[0]
r = subprocess.run(["make", "-s", "--no-print-directory", "deb"], capture_output=True, text=True)
# the package's path is the line .ci/deb.sh prints last (make -C ... adds its own lines around it)
debs = [l for l in r.stdout.splitlines() if l.endswith(".deb")]
deb = debs[-1] if debs else ""
check(r.returncode == 0 and os.path.isfile(deb) and r.stderr == "", "make deb builds a package, without a word on stderr",
      r.stderr[-400:])
if not os.path.isfile(deb):
    done()
arch = subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True).stdout.strip()
triplet = subprocess.run(["cc", "-print-multiarch"], capture_output=True, text=True).stdout.strip()
check(os.path.basename(deb) == f"libprofsql_{version}_{arch}.deb", f"named libprofsql_{version}_{arch}.deb", deb)
field = lambda f: subprocess.run(["dpkg-deb", "-f", deb, f], capture_output=True, text=True).stdout.strip()
check(field("Package") == "libprofsql" and field("Version") == version and field("Architecture") == arch,
      "control: Package, Version, Architecture")
depends = field("Depends")
# the loadable library reaches SQLite through the host (sqlite3ext.h), so SQLite is no Depends
check("zlib1g" in depends and "libminizip" in depends and "sqlite" not in depends,
      "Depends names zlib's and minizip's packages (found by dpkg -S), not SQLite's", depends)
check(field("Recommends") == "sqlite3", "Recommends: sqlite3 (a host to load it)")
listing = subprocess.run(["dpkg-deb", "-c", deb], capture_output=True, text=True).stdout
for path in [f"./usr/lib/{triplet}/libprofsql.so.{version}", f"./usr/lib/{triplet}/libprofsql.so.{major} -> libprofsql.so.{version}",
             f"./usr/lib/{triplet}/libprofsql.so -> libprofsql.so.{major}", f"./usr/lib/{triplet}/libprofsql.a",
             f"./usr/lib/{triplet}/pkgconfig/libprofsql.pc", "./usr/include/profsql.h",
             "./usr/share/libprofsql/sql/event_tree.sql", "./usr/share/doc/libprofsql/copyright"]:
    check(path in listing, f"the package holds {path}")
check(" root/root " in listing and "DESTDIR" not in listing, "files are owned by root")

want_install = os.environ.get("CI") == "true" or os.environ.get("PROFSQL_TEST_DEB") == "1"
status = subprocess.run(["dpkg-query", "-W", "-f=${db:Status-Status}", "libprofsql"], capture_output=True, text=True).stdout
if not want_install:
    skip_part("dpkg -i / dpkg -r of the package: it changes the system; runs in CI or with PROFSQL_TEST_DEB=1")
elif os.geteuid() != 0:
    skip_part("dpkg -i / dpkg -r of the package: needs root")
elif status == "installed":
    skip_part("dpkg -i / dpkg -r of the package: a libprofsql package is installed already")
else:
    r = subprocess.run(["dpkg", "-i", deb], capture_output=True, text=True)
    check(r.returncode == 0, "dpkg -i installs it", r.stdout[-300:] + r.stderr[-300:])
    try:
        r = subprocess.run(["sqlite3", ":memory:", ".load libprofsql", "SELECT profsql_version(), count(*) FROM profile_events('tests/data/basic.json') WHERE ph = 'X'"],
                           capture_output=True, text=True, cwd=os.getcwd())
        check(r.stdout.strip() == f"{version}|3", "`.load libprofsql` finds the installed library by its name", r.stdout + r.stderr)
        files = subprocess.run(["dpkg", "-L", "libprofsql"], capture_output=True, text=True).stdout.split()
        check(f"/usr/lib/{triplet}/libprofsql.so.{version}" in files, f"installed in /usr/lib/{triplet}/")
        d = tempfile.mkdtemp(prefix="profsql-deb-")
        open(os.path.join(d, "p.c"), "w").write('#include <profsql.h>\nint main(void){ sqlite3 *db; sqlite3_open(":memory:", &db);\n'
                                                '  return sqlite3_profsql_init(db, 0, 0); }\n')
        flags = subprocess.run(["pkg-config", "--cflags", "--libs", "--static", "libprofsql"], capture_output=True, text=True).stdout.split()
        r = subprocess.run(["cc", "-o", os.path.join(d, "p"), os.path.join(d, "p.c"), "-static-libgcc"] + flags,
                           capture_output=True, text=True)
        check(r.returncode == 0 and subprocess.run([os.path.join(d, "p")]).returncode == 0,
              "a program built with pkg-config's flags links and initialises it", r.stderr[-300:])
        shutil.rmtree(d)
    finally:
        r = subprocess.run(["dpkg", "-r", "libprofsql"], capture_output=True, text=True)
    check(r.returncode == 0, "dpkg -r removes it", r.stderr[-300:])
    left = [f for f in files if os.path.isfile(f) or os.path.islink(f)]
    check(left == [], "no file of the package is left", left[:5])
done()
