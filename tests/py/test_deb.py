"""make deb: two packages, libprofsql (the runtime: the stripped loadable library, the sql/ helpers,
the docs) and libprofsql-dev (profsql.h, libprofsql.a, libprofsql.pc); their control data, contents
(dpkg-deb), that `file` calls the shipped library stripped, and a Description that names every
format of README.md's table. Then — in CI (CI=true) or with PROFSQL_TEST_DEB=1, as root, where no
libprofsql package is installed already — dpkg -i of both: the library loads by its bare name from
/usr/lib/<multiarch>/ in the sqlite3 shell, a program using <profsql.h> links with
`pkg-config --cflags --libs libprofsql` (no --static); dpkg -r removes every file they installed.
Elsewhere the install part is skipped with a line saying why (it changes the system)."""
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
# the packages' paths are the lines .ci/deb.sh prints last (make -C ... adds its own lines around them)
debs = [l for l in r.stdout.splitlines() if l.endswith(".deb")]
arch = subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True).stdout.strip()
triplet = subprocess.run(["cc", "-print-multiarch"], capture_output=True, text=True).stdout.strip()
want_names = [f"libprofsql_{version}_{arch}.deb", f"libprofsql-dev_{version}_{arch}.deb"]
check(r.returncode == 0 and r.stderr == "" and [os.path.basename(d) for d in debs[-2:]] == want_names
      and all(os.path.isfile(d) for d in debs[-2:]),
      f"make deb builds {' and '.join(want_names)}, without a word on stderr", [debs, r.stderr[-400:]])
if len(debs) < 2 or not all(os.path.isfile(d) for d in debs[-2:]):
    done()
deb, devdeb = debs[-2:]


def field(pkg, f):
    return subprocess.run(["dpkg-deb", "-f", pkg, f], capture_output=True, text=True).stdout.strip()


def contents(pkg):
    return subprocess.run(["dpkg-deb", "-c", pkg], capture_output=True, text=True).stdout


# ---- the runtime package
check(field(deb, "Package") == "libprofsql" and field(deb, "Version") == version and field(deb, "Architecture") == arch
      and field(deb, "Section") == "libs", "libprofsql: Package, Version, Architecture, Section libs")
depends = field(deb, "Depends")
# the loadable library reaches SQLite through the host (sqlite3ext.h), so SQLite is no Depends
check("zlib1g" in depends and "libminizip" in depends and "sqlite" not in depends,
      "Depends names zlib's and minizip's packages (found by dpkg -S), not SQLite's", depends)
check(field(deb, "Recommends") == "sqlite3", "Recommends: sqlite3 (a host to load it)")
listing = contents(deb)
for path in [f"./usr/lib/{triplet}/libprofsql.so.{version}", f"./usr/lib/{triplet}/libprofsql.so.{major} -> libprofsql.so.{version}",
             f"./usr/lib/{triplet}/libprofsql.so -> libprofsql.so.{major}",
             "./usr/share/libprofsql/sql/event_tree.sql", "./usr/share/doc/libprofsql/copyright"]:
    check(path in listing, f"libprofsql holds {path}")
for name in ["libprofsql.a", "libprofsql.pc", "profsql.h", "/usr/include/"]:
    check(name not in listing, f"libprofsql does not hold {name} (libprofsql-dev does)")
check(" root/root " in listing and "DESTDIR" not in listing, "files are owned by root")
x = tempfile.mkdtemp(prefix="profsql-deb-x-")
subprocess.run(["dpkg-deb", "-x", deb, x], check=True)
so = os.path.join(x, "usr", "lib", triplet, f"libprofsql.so.{version}")
if shutil.which("file"):
    what = subprocess.run(["file", "-b", so], capture_output=True, text=True).stdout
    check(", stripped" in what and "not stripped" not in what and "with debug_info" not in what,
          "`file` says the shipped library is stripped", what)
else:
    skip_part("`file` check of the shipped library: file is not installed")
secs = subprocess.run(["readelf", "-S", so], capture_output=True, text=True).stdout
check(".symtab" not in secs and ".debug_info" not in secs, "no .symtab, no .debug_* sections (readelf -S)")
r = subprocess.run(["sqlite3", ":memory:", f".load {so}", "SELECT profsql_version()"], capture_output=True, text=True)
check(r.stdout.strip() == version, "the stripped library still loads", r.stdout + r.stderr)
shutil.rmtree(x)
# every format of README.md's table "What it reads", in the Description (the package's summary)
desc = field(deb, "Description")
readme = open("README.md", encoding="utf-8").read()
table = readme[readme.index("## What it reads"):]
table = table[:table.index("\n\n", table.index("|"))]
formats = ["Trace Event Format", "PocketMine-MP timings", "Spigot/Bukkit", "lms profiler CSV", "XSpace", "tf_stats",
           "kernel_stats", "input_pipeline", "overview_page", "memory_profile", "xprof_trace", "DataTable JSON",
           "cpuprofile", "pprof", "perf script", "folded / collapsed", "speedscope", "ftrace", "systrace", "StarProfiler"]
missing_readme = [f for f in formats if f.replace("`", "") not in table.replace("*", "").replace("`", "")]
check(missing_readme == [], "the formats looked for are README's", missing_readme)
missing = [f for f in formats if f not in desc]
check(missing == [], "the Description names every format of README's table", missing)

# ---- the development package
check(field(devdeb, "Package") == "libprofsql-dev" and field(devdeb, "Version") == version
      and field(devdeb, "Section") == "libdevel", "libprofsql-dev: Package, Version, Section libdevel")
devdeps = [d.strip() for d in field(devdeb, "Depends").split(",")]
check(devdeps[:1] == [f"libprofsql (= {version})"] and set(devdeps[1:]) == {"libsqlite3-dev", "zlib1g-dev", "libminizip-dev", "libdeflate-dev"},
      "libprofsql-dev Depends on libprofsql of its version and the -dev packages of the .pc's Requires", devdeps)
devlist = contents(devdeb)
for path in [f"./usr/lib/{triplet}/libprofsql.a", f"./usr/lib/{triplet}/pkgconfig/libprofsql.pc", "./usr/include/profsql.h",
             "./usr/share/doc/libprofsql-dev/copyright"]:
    check(path in devlist, f"libprofsql-dev holds {path}")
check("libprofsql.so" not in devlist and "/sql/" not in devlist, "libprofsql-dev holds no library or helper of the runtime's")

want_install = os.environ.get("CI") == "true" or os.environ.get("PROFSQL_TEST_DEB") == "1"
status = subprocess.run(["dpkg-query", "-W", "-f=${db:Status-Status}", "libprofsql"], capture_output=True, text=True).stdout
if not want_install:
    skip_part("dpkg -i / dpkg -r of the package: it changes the system; runs in CI or with PROFSQL_TEST_DEB=1")
elif os.geteuid() != 0:
    skip_part("dpkg -i / dpkg -r of the package: needs root")
elif status == "installed":
    skip_part("dpkg -i / dpkg -r of the package: a libprofsql package is installed already")
else:
    r = subprocess.run(["dpkg", "-i", deb, devdeb], capture_output=True, text=True)
    check(r.returncode == 0, "dpkg -i installs both", r.stdout[-300:] + r.stderr[-300:])
    files = []
    try:
        r = subprocess.run(["sqlite3", ":memory:", ".load libprofsql", "SELECT profsql_version(), count(*) FROM profile_events('tests/data/basic.json') WHERE ph = 'X'"],
                           capture_output=True, text=True, cwd=os.getcwd())
        check(r.stdout.strip() == f"{version}|3", "`.load libprofsql` finds the installed library by its name", r.stdout + r.stderr)
        files = [f for p in ("libprofsql", "libprofsql-dev")
                 for f in subprocess.run(["dpkg", "-L", p], capture_output=True, text=True).stdout.split()]
        check(f"/usr/lib/{triplet}/libprofsql.so.{version}" in files, f"installed in /usr/lib/{triplet}/")
        d = tempfile.mkdtemp(prefix="profsql-deb-")
        open(os.path.join(d, "p.c"), "w").write('#include <profsql.h>\nint main(void){ sqlite3 *db; sqlite3_open(":memory:", &db);\n'
                                                '  return sqlite3_profsql_init(db, 0, 0); }\n')
        flags = subprocess.run(["pkg-config", "--cflags", "--libs", "libprofsql"], capture_output=True, text=True).stdout.split()
        r = subprocess.run(["cc", "-o", os.path.join(d, "p"), os.path.join(d, "p.c")] + flags, capture_output=True, text=True)
        check(r.returncode == 0 and subprocess.run([os.path.join(d, "p")]).returncode == 0,
              "a program built with `pkg-config --cflags --libs libprofsql` links and initialises it", r.stderr[-300:])
        shutil.rmtree(d)
    finally:
        r = subprocess.run(["dpkg", "-r", "libprofsql-dev", "libprofsql"], capture_output=True, text=True)
    check(r.returncode == 0, "dpkg -r removes both", r.stderr[-300:])
    left = [f for f in files if os.path.isfile(f) or os.path.islink(f)]
    check(left == [], "no file of the packages is left", left[:5])
done()
