"""The loaders of bindings/ as users install them, each asserting the same answer: the count and
sum(dur) of the complete ('X') slices of examples/browser_trace.json, computed here from the
JSON with Python's json module (dur is in microseconds, the table's in nanoseconds).

Python (bindings/python): `pip install ./bindings/python` as documented, with build isolation,
without network (--no-index: the build backend is the package's own, standard library only), into
a venv that sees the system's packages, leaving nothing in the source folder; the module is
profsql (libprofsql, its former name, is the same module); from there profsql.load() loads
./libprofsql.so into sqlite3 ($LIBPROFSQL_PATH) and into
apsw (python3-apsw), the entry point and the search order are pinned, and a sqlite3 without
extension loading (simulated) gets the message that names python3-apsw and /usr/bin/python3.

Node (bindings/node): npm installs better-sqlite3 and node-sqlite3 once into
build/node-loader/<key> (the key hashes bindings/node/package.json, the dependencies and the node
version; the first install compiles both, at -O0 to be quick, about 40 s; later runs reuse it),
and installs ./bindings/node into a temporary folder each run; load() is run through both. A
machine without npm, or without the registry, prints SKIP for that part.

docs/install.md's two examples (From Python, From Node) run as the page says and must print the
output it shows. Each command's time is printed at the end (a warm run takes about 3 s).
"""
import atexit
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time

from testlib import check, done, skip_part

ROOT = os.getcwd()                              # tests/run.sh runs from the repository root
LIB = os.path.join(ROOT, "libprofsql.so")
TRACE = os.path.join(ROOT, "examples", "browser_trace.json")
VERSION = open("VERSION").read().strip()
QUERY = "SELECT count(*), sum(dur) FROM profile_events(?) WHERE ph = 'X'"

trace = json.load(open(TRACE))
events = trace["traceEvents"] if isinstance(trace, dict) else trace
WANT = [sum(1 for e in events if e.get("ph") == "X"),
        sum(round(e["dur"] * 1000) for e in events if e.get("ph") == "X")]
check(WANT[0] > 100, f"the trace has complete slices: {WANT}")
# the standard places, after $LIBPROFSQL_PATH and the package's own folder
TRIPLET = sysconfig.get_config_var("MULTIARCH") or (shutil.which("gcc") and subprocess.run(
    ["gcc", "-print-multiarch"], capture_output=True, text=True).stdout.strip())
SYSTEM_PATHS = [f"/usr/local/lib/{TRIPLET}/libprofsql.so", "/usr/local/lib/libprofsql.so",
                f"/usr/lib/{TRIPLET}/libprofsql.so", "/usr/lib/libprofsql.so"]   # ld.so's order


def doc_example(heading, lang):
    """docs/install.md's first `lang` block under `heading` and the output block after it."""
    text = open("docs/install.md", encoding="utf-8").read()
    at = text.find(heading + "\n")
    m = re.compile("```" + lang + r"\n(.*?)```\n```\n(.*?)```", re.S).search(text, at) if at >= 0 else None
    check(m is not None, f"docs/install.md has a {lang} example with its output under {heading!r}")
    return (m.group(1), m.group(2).strip()) if m else ("", "")


tmp = tempfile.mkdtemp(prefix="profsql-bindings-")
atexit.register(shutil.rmtree, tmp, True)
timings = []                                    # (command, seconds), printed at the end


def run(cmd, env=None, cwd=None, timeout=600, **kw):
    """Runs cmd (output captured, as text), recording how long it took."""
    t0 = time.time()
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                       env=dict(os.environ, **(env or {})), cwd=cwd or tmp, **kw)
    words = [os.path.basename(a) if a.startswith("/") else a.strip().split("\n")[0][:30] for a in cmd[:4]]
    timings.append((" ".join(words), time.time() - t0))
    return r


def results(r, what):
    """The JSON object a checks script printed, or {} (and a failed check) when it did not."""
    try:
        out = json.loads(r.stdout) if r.returncode == 0 else None
    except ValueError:
        out = None
    check(isinstance(out, dict), f"{what} run: {r.stdout[-500:]} {r.stderr[-1500:]}")
    return out if isinstance(out, dict) else {}


# ---- Python: pip install ./bindings/python into a venv -----------------------------------
# A copy of the folder is installed (the documented command, build isolation on), so that what
# the build leaves behind can be listed; --no-index is the machine without network: the build
# must need nothing from PyPI (setuptools>=61 was fetched before, and failed offline).


def listing(top):
    return sorted(os.path.relpath(os.path.join(d, f), top) for d, _, fs in os.walk(top) for f in fs + ["."])


venv = os.path.join(tmp, "venv")
py = os.path.join(venv, "bin", "python")
r = run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", venv])
check(r.returncode == 0, f"python3 -m venv: {r.stderr[-400:]}")
pysrc = os.path.join(tmp, "pysrc")
shutil.copytree("bindings/python", pysrc, ignore=shutil.ignore_patterns("__pycache__"))
before = listing(pysrc)
r = run([py, "-m", "pip", "install", "--no-index", "--quiet", pysrc])
check(r.returncode == 0, f"pip install ./bindings/python, offline, build isolation on: {r.stdout[-400:]} {r.stderr[-800:]}")
check(listing(pysrc) == before, "pip install leaves the source folder as it was (no build/, no *.egg-info)",
      sorted(set(listing(pysrc)) - set(before)))
r2 = run([py, "-m", "pip", "wheel", "--no-index", "--no-build-isolation", "--no-deps", "--quiet", "-w",
          os.path.join(tmp, "wheels"), pysrc])
check(r2.returncode == 0 and os.listdir(os.path.join(tmp, "wheels")) == [f"libprofsql-{VERSION}-py3-none-any.whl"],
      "--no-build-isolation works too (no setuptools, no wheel needed): a pure wheel",
      [r2.stderr[-800:], os.listdir(os.path.join(tmp, "wheels")) if r2.returncode == 0 else None])

PY_CHECKS = r"""
import json, os, sqlite3, sys, sysconfig
import importlib.metadata
import profsql
import libprofsql as old_name
LIB, TRACE, QUERY = sys.argv[1:4]
out = {"file": profsql.__file__, "version": profsql.__version__, "old_name": old_name is profsql,
       "dist_version": importlib.metadata.version("libprofsql")}
db = sqlite3.connect(":memory:")
out["loaded"] = profsql.load(db)
out["sqlite3"] = list(db.execute(QUERY, (TRACE,)).fetchone())
try:
    db.execute("SELECT load_extension('x')")
    out["off_after"] = "load_extension() still allowed"
except sqlite3.OperationalError as e:
    out["off_after"] = str(e)
noio = sqlite3.connect(":memory:")
profsql.load(noio, entrypoint="sqlite3_profsql_noio_init")
try:
    noio.execute(QUERY, (TRACE,)).fetchone()
    out["noio_path"] = "read a path"
except sqlite3.OperationalError as e:
    out["noio_path"] = str(e)
out["noio_blob"] = list(noio.execute(QUERY, (open(TRACE, "rb").read(),)).fetchone())
try:
    import apsw
except ImportError:
    out["apsw"] = None
else:
    a = apsw.Connection(":memory:")
    profsql.load(a)
    out["apsw"] = list(list(a.execute(QUERY, (TRACE,)))[0])
    a = apsw.Connection(":memory:")
    profsql.load(a, "sqlite3_profsql_noio_init")
    out["apsw_noio"] = list(list(a.execute(QUERY, (open(TRACE, "rb").read(),)))[0])

class NoExt(sqlite3.Connection):        # a sqlite3 built without extension loading
    def __getattribute__(self, name):
        if name in ("enable_load_extension", "load_extension"):
            raise AttributeError(name)
        return super().__getattribute__(name)
try:
    profsql.load(sqlite3.connect(":memory:", factory=NoExt))
    out["noext"] = "loaded"
except profsql.LoadingUnavailable as e:
    out["noext"] = str(e)
try:
    profsql.load(object())
    out["not_conn"] = "loaded"
except TypeError as e:
    out["not_conn"] = str(e)

os.environ["LIBPROFSQL_PATH"] = LIB[:-3]          # as for .load: the suffix may be left off
out["env_nosuffix"] = profsql.loadable_path()
os.environ["LIBPROFSQL_PATH"] = os.path.dirname(LIB)
out["env_dir"] = profsql.loadable_path()
os.environ["LIBPROFSQL_PATH"] = "/nonexistent/libprofsql.so"
try:
    out["env_missing"] = profsql.loadable_path()
except FileNotFoundError as e:
    out["env_missing"] = str(e)
del os.environ["LIBPROFSQL_PATH"]
out["search_path"] = profsql.search_path()
try:
    out["unset"] = profsql.loadable_path()
except profsql.LibraryNotFound as e:
    out["unset"] = str(e)
shipped = os.path.join(os.path.dirname(profsql.__file__), "libprofsql.so")
import shutil; shutil.copy(LIB, shipped)          # a package built with a copy inside
db = sqlite3.connect(":memory:")
out["shipped"] = [profsql.load(db), list(db.execute(QUERY, (TRACE,)).fetchone())]
os.remove(shipped)
sysconfig.get_config_var = lambda name: None      # no MULTIARCH: gcc -print-multiarch
out["multiarch"] = [profsql._multiarch(), sysconfig.get_config_vars().get("MULTIARCH")]
print(json.dumps(out))
"""
if r.returncode == 0:
    r = run([py, "-c", PY_CHECKS, LIB, TRACE, QUERY], env={"LIBPROFSQL_PATH": LIB})
    out = results(r, "the Python checks")
    check(out.get("file", "").startswith(venv) and out.get("file", "").endswith("/profsql/__init__.py"),
          "profsql is imported from the venv, not the checkout", out.get("file"))
    check(out.get("version") == VERSION and out.get("dist_version") == VERSION,
          f"profsql.__version__ and the distribution's version are VERSION ({VERSION})",
          [out.get("version"), out.get("dist_version")])
    check(out.get("old_name") is True, "import libprofsql (the former name) gives the profsql module", out.get("old_name"))
    check(out.get("loaded") == LIB, "load() returns the file it loaded, $LIBPROFSQL_PATH", out.get("loaded"))
    check(out.get("sqlite3") == WANT, f"sqlite3 + profsql.load(): count and sum(dur) of the X slices are {WANT}",
          out.get("sqlite3"))
    check(out.get("off_after") == "not authorized", "load() turns extension loading off again", out.get("off_after"))
    check("file paths are disabled" in out.get("noio_path", "") and out.get("noio_blob") == WANT,
          "entrypoint='sqlite3_profsql_noio_init': no paths, BLOBs answer", [out.get("noio_path"), out.get("noio_blob")])
    if out and out.get("apsw") is None:
        skip_part("the apsw route: apsw is not importable (apt-get install python3-apsw)")
    else:
        check(out.get("apsw") == WANT and out.get("apsw_noio") == WANT,
              "apsw.Connection + profsql.load(), with and without an entry point", [out.get("apsw"), out.get("apsw_noio")])
    msg = out.get("noext", "")
    check("cannot load SQLite extensions" in msg and "apt-get install python3-apsw" in msg and "/usr/bin/python3" in msg
          and "apsw.Connection(" in msg, "sqlite3 without enable_load_extension: the routes that work", msg)
    check("sqlite3.Connection or an apsw.Connection" in out.get("not_conn", ""), "another object: TypeError",
          out.get("not_conn"))
    check(out.get("env_nosuffix") == LIB and out.get("env_dir") == LIB,
          "LIBPROFSQL_PATH without .so, or a directory", [out.get("env_nosuffix"), out.get("env_dir")])
    check("LIBPROFSQL_PATH='/nonexistent/libprofsql.so' names no library" in out.get("env_missing", ""),
          "LIBPROFSQL_PATH naming nothing is an error", out.get("env_missing"))
    sp = out.get("search_path", [])
    site = os.path.dirname(out.get("file", "/"))
    check(sp == [os.path.join(site, "libprofsql.so")] + SYSTEM_PATHS,
          "the search order: package, /usr/local/lib/<triplet>, /usr/local/lib, /usr/lib/<triplet>, /usr/lib", sp)
    unset = out.get("unset", "")
    check(unset in sp or (all(p in unset for p in sp) and "make install" in unset and "LIBPROFSQL_PATH" in unset),
          "LIBPROFSQL_PATH unset: an installed library, or the places looked at and how to get one", unset)
    check(out.get("shipped") == [os.path.join(site, "libprofsql.so"), WANT], "a copy inside the package is found and loads",
          out.get("shipped"))
    check(out.get("multiarch", [0, 1])[0] == TRIPLET or not shutil.which("gcc"),
          "the triplet from gcc -print-multiarch without MULTIARCH", out.get("multiarch"))
    # docs/install.md's example, run as the page says: a script saved in the repository root,
    # beside libprofsql.so (here a folder of its own holding a link to it: tests write only
    # under their temporary folder), run from the root. The script's folder is sys.path[0]:
    # `import libprofsql` there imported the library file (PyInit_libprofsql).
    code, shown = doc_example("### From Python", "python")
    root_like = os.path.join(tmp, "root")
    os.makedirs(root_like)
    os.symlink(LIB, os.path.join(root_like, "libprofsql.so"))
    with open(os.path.join(root_like, "example.py"), "w") as f:
        f.write(code)
    r = run([py, os.path.join(root_like, "example.py")], env={"LIBPROFSQL_PATH": LIB}, cwd=ROOT)
    check(r.stdout.strip() == shown == str(tuple(WANT)), "docs/install.md, From Python: the output shown",
          [r.stdout, r.stderr[-500:], shown])


# ---- Node: better-sqlite3 and node-sqlite3 (cached), ./bindings/node (each run) -----------
NODE_DEPS = {"better-sqlite3": "^12.4.0", "sqlite3": "^6.0.1"}
NET = re.compile(r"ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|network|ENOTCACHED")

NODE_CHECKS = r"""
const fs = require("fs"), path = require("path");
const [LIB, TRACE, QUERY] = process.argv.slice(2);
const lp = require("libprofsql");
const Database = require("better-sqlite3");
const sqlite3 = require("sqlite3");
const QUERY_OBJ = QUERY.replace("count(*), sum(dur)", "count(*) AS n, sum(dur) AS d");
(async () => {
  const out = {file: require.resolve("libprofsql")};
  const db = new Database(":memory:");
  out.loaded = lp.load(db);
  const row = db.prepare(QUERY_OBJ).get(TRACE);
  out.better = [row.n, row.d];
  const noio = new Database(":memory:");
  lp.load(noio, {entryPoint: "sqlite3_profsql_noio_init"});
  try { noio.prepare(QUERY_OBJ).get(TRACE); out.noio_path = "read a path"; } catch (e) { out.noio_path = e.message; }
  const r2 = noio.prepare(QUERY_OBJ).get(fs.readFileSync(TRACE));
  out.noio_blob = [r2.n, r2.d];
  const ndb = new sqlite3.Database(":memory:");
  const p = lp.load(ndb);
  out.promise = p instanceof Promise;
  out.loaded_async = await p;
  out.node_sqlite3 = await new Promise((res, rej) => ndb.get(QUERY_OBJ, [TRACE], (e, r) => e ? rej(e) : res([r.n, r.d])));
  try { await lp.load(ndb, {entryPoint: "x"}); out.async_ep = "loaded"; } catch (e) { out.async_ep = e.code; }
  try { lp.load({}); out.bad_db = "loaded"; } catch (e) { out.bad_db = e.code; }
  process.env.LIBPROFSQL_PATH = LIB.slice(0, -3);
  out.env_nosuffix = lp.getLoadablePath();
  process.env.LIBPROFSQL_PATH = "/nonexistent/libprofsql.so";
  try { out.env_missing = lp.getLoadablePath(); } catch (e) { out.env_missing = e.code + " " + e.message; }
  try { await lp.load(new sqlite3.Database(":memory:")); out.async_missing = "loaded"; } catch (e) { out.async_missing = e.code; }
  delete process.env.LIBPROFSQL_PATH;
  out.search_path = lp.searchPath();
  try { out.unset = lp.getLoadablePath(); } catch (e) { out.unset = e.message; }
  const shipped = path.join(path.dirname(out.file), "libprofsql.so");
  fs.copyFileSync(LIB, shipped);
  const sdb = new Database(":memory:");
  out.shipped = [lp.load(sdb), Object.values(sdb.prepare(QUERY_OBJ).get(TRACE))];
  fs.unlinkSync(shipped);
  console.log(JSON.stringify(out));
})().catch((e) => { console.error(e.stack); process.exit(1); });
"""


def node_cache(npm):
    """build/node-loader/<key> with better-sqlite3 and sqlite3 built, or (None, why) to skip."""
    node_version = run(["node", "--version"]).stdout.strip()
    key = hashlib.sha256(open("bindings/node/package.json", "rb").read() + json.dumps(NODE_DEPS).encode()
                         + node_version.encode()).hexdigest()[:16]
    base = os.path.join(ROOT, "build", "node-loader")
    cache = os.path.join(base, key)
    if os.path.isfile(os.path.join(cache, "ok")):
        return cache, None
    try:                                                # offline, say so at once (no retries)
        r = run([npm, "ping"], env={"npm_config_fetch_retries": "0"}, timeout=60)
    except subprocess.TimeoutExpired:
        return None, "npm ping did not answer in 60 s (is the npm registry reachable?)"
    if r.returncode != 0:
        m = NET.search(r.stdout + r.stderr)
        return None, "the npm registry is not reachable (npm ping: " + (m.group(0) if m else r.stderr.strip()[-200:]) + ")"
    os.makedirs(base, exist_ok=True)
    work = tempfile.mkdtemp(prefix=key + ".", dir=base)
    with open(os.path.join(work, "package.json"), "w") as f:
        json.dump({"name": "libprofsql-loader-test", "private": True, "dependencies": NODE_DEPS}, f)
    env = {"npm_config_build_from_source": "true",    # no prebuilt-binary download (GitHub)
           "CFLAGS": "-O0", "CXXFLAGS": "-O0", "JOBS": "max"}
    if os.path.isfile("/usr/include/node/node.h"):
        env["npm_config_nodedir"] = "/usr"              # node-gyp: these headers, not a download
    if os.path.isfile("/usr/include/sqlite3.h"):
        env["npm_config_sqlite"] = "/usr"               # node-sqlite3: link the system SQLite
    try:
        r = run([npm, "install", "--no-audit", "--no-fund", "--foreground-scripts"], env=env, cwd=work, timeout=900)
    except subprocess.TimeoutExpired:
        shutil.rmtree(work, ignore_errors=True)
        return None, "npm install did not finish in 900 s (is the npm registry reachable?)"
    log = r.stdout + r.stderr
    if r.returncode != 0:
        shutil.rmtree(work, ignore_errors=True)
        if NET.search(log):
            return None, "npm install failed for lack of network: " + NET.search(log).group(0)
        check(False, f"npm install better-sqlite3 sqlite3: {log[-1500:]}")
        return None, None
    open(os.path.join(work, "ok"), "w").close()
    try:
        os.rename(work, cache)
    except OSError:                                     # another run finished first: use its
        shutil.rmtree(work, ignore_errors=True)
    for old in os.listdir(base):                        # caches of older keys
        if old != key and not old.startswith(key + "."):
            shutil.rmtree(os.path.join(base, old), ignore_errors=True)
    return cache, None


npm = shutil.which("npm")
if not npm or not shutil.which("node"):
    skip_part("node loader: node or npm is not installed")
else:
    cache, why = node_cache(npm)
    if cache is None:
        if why:
            skip_part(f"node loader: {why}")
    else:
        # ./bindings/node into a folder of its own, as a user installs it (a copy, not a link)
        proj = os.path.join(tmp, "nodeproj")
        os.makedirs(proj)
        with open(os.path.join(proj, "package.json"), "w") as f:
            json.dump({"name": "libprofsql-node-test", "private": True}, f)
        r = run([npm, "install", "--offline", "--no-audit", "--no-fund", "--install-links", "--no-save",
                 os.path.join(ROOT, "bindings", "node")], cwd=proj)
        check(r.returncode == 0, f"npm install ./bindings/node: {r.stderr[-800:]}")
        with open(os.path.join(proj, "checks.js"), "w") as f:
            f.write(NODE_CHECKS)
        r = run(["node", "checks.js", LIB, TRACE, QUERY], cwd=proj,
                env={"LIBPROFSQL_PATH": LIB, "NODE_PATH": os.path.join(cache, "node_modules")})
        out = results(r, "the Node checks")
        pkg = os.path.join(proj, "node_modules", "libprofsql")
        check(out.get("file") == os.path.join(pkg, "index.js") and not os.path.islink(pkg),
              "libprofsql is required from the installed copy", out.get("file"))
        check(out.get("loaded") == LIB and out.get("better") == WANT,
              f"better-sqlite3 + load(): count and sum(dur) of the X slices are {WANT}", [out.get("loaded"), out.get("better")])
        check("file paths are disabled" in out.get("noio_path", "") and out.get("noio_blob") == WANT,
              "better-sqlite3, entryPoint sqlite3_profsql_noio_init: no paths, BLOBs answer",
              [out.get("noio_path"), out.get("noio_blob")])
        check(out.get("promise") is True and out.get("loaded_async") == LIB and out.get("node_sqlite3") == WANT,
              "node-sqlite3 + load(): a Promise of the path, then the same answer",
              [out.get("promise"), out.get("loaded_async"), out.get("node_sqlite3")])
        check(out.get("async_ep") == "LIBPROFSQL_BAD_DB" and out.get("bad_db") == "LIBPROFSQL_BAD_DB",
              "an entry point with node-sqlite3 rejects, another object throws", [out.get("async_ep"), out.get("bad_db")])
        check(out.get("env_nosuffix") == LIB, "LIBPROFSQL_PATH without .so", out.get("env_nosuffix"))
        check(out.get("env_missing", "").startswith("LIBPROFSQL_NOT_FOUND libprofsql: LIBPROFSQL_PATH='/nonexistent")
              and out.get("async_missing") == "LIBPROFSQL_NOT_FOUND",
              "LIBPROFSQL_PATH naming nothing: thrown, or the Promise rejects", [out.get("env_missing"), out.get("async_missing")])
        sp = out.get("search_path", [])
        check(sp == [os.path.join(pkg, "libprofsql.so")] + SYSTEM_PATHS,
              "the same search order as Python's", sp)
        unset = out.get("unset", "")
        check(unset in sp or (all(p in unset for p in sp) and "make install" in unset),
              "LIBPROFSQL_PATH unset: an installed library, or the places looked at", unset)
        check(out.get("shipped") == [os.path.join(pkg, "libprofsql.so"), WANT], "a copy inside the package is found",
              out.get("shipped"))
        code, shown = doc_example("### From Node", "js")
        with open(os.path.join(proj, "example.js"), "w") as f:
            f.write(code)
        r = run(["node", os.path.join(proj, "example.js")], cwd=ROOT,
                env={"LIBPROFSQL_PATH": LIB, "NODE_PATH": os.path.join(cache, "node_modules")})
        check(r.stdout.strip() == shown == f"[ {WANT[0]}, {WANT[1]} ]", "docs/install.md, From Node: the output shown",
              [r.stdout, r.stderr[-500:], shown])

for what, secs in timings:
    print(f"time {secs:6.2f} s  {what}")
done()
