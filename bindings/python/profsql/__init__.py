"""profsql: find libprofsql.so, the SQLite extension, and load it into a SQLite connection.

    import sqlite3, profsql
    db = sqlite3.connect(":memory:")
    profsql.load(db)                            # sqlite3.Connection, or apsw.Connection
    db.execute("SELECT count(*) FROM profile_events('trace.json')").fetchone()

    profsql.loadable_path()                     # '/usr/local/lib/x86_64-linux-gnu/libprofsql.so'
    profsql.load(db, entrypoint="sqlite3_profsql_noio_init")      # BLOB sources only, no writers

The distribution is named libprofsql (`pip install ./bindings/python`); the module is profsql,
not libprofsql, because Python takes any `libprofsql.so` on its path for an extension module of
that name: a script saved beside the library (the repository root, where `make` puts it) would
import the library and fail ("dynamic module does not define module export function
(PyInit_libprofsql)"). `import libprofsql` still works elsewhere, as before: it is this module
under its old name.

This package holds no C code: it finds the library that `make` built or `make install`
installed, and loads it the way the connection's module allows.

loadable_path() returns the full path of the file, `.so` included (SQLite accepts the name with
or without the suffix; with it, the path names exactly one file). It looks, in this order, at:

  1. $LIBPROFSQL_PATH: the file (`.so` may be left off, as for `.load`) or a directory holding
     libprofsql.so. When the variable is set, nothing else is searched: a path that names no
     file is an error, not a reason to load some other copy.
  2. libprofsql.so inside this package's folder (a package built with a copy of the library
     placed beside this file; the plain source package ships none).
  3. /usr/local/lib/<triplet>/, /usr/local/lib/, /usr/lib/<triplet>/, /usr/lib/ (ld.so's order), where
     <triplet> is the Debian multiarch name (x86_64-linux-gnu): sysconfig's MULTIARCH, else
     `gcc -print-multiarch`. `make install` puts the library in /usr/local/lib/<triplet>/ (LIBDIR).

load(conn, entrypoint=None) turns extension loading on, loads the library and turns it off again
(also when loading fails), so SQL run later on the connection cannot call load_extension().
conn is a sqlite3.Connection (the standard module, when its SQLite allows extension loading) or
an apsw.Connection (either spelling of its methods: load_extension, or loadextension in apsw
before 3.42, which Debian 12's python3-apsw is). entrypoint names another init function, e.g.
"sqlite3_profsql_noio_init" for hosts that run untrusted SQL; None lets SQLite derive
sqlite3_profsql_init from the file name. Returns the path it loaded.

Errors:
  LibraryNotFound (a FileNotFoundError): no library where it looked; the message lists every
    place and says how to get one (make, make install, LIBPROFSQL_PATH).
  LoadingUnavailable (a RuntimeError): the connection's sqlite3 module was built without
    extension loading (no enable_load_extension: pyenv's and macOS's system Pythons); the
    message names the routes that work (Debian's python3-apsw, /usr/bin/python3).
  TypeError: conn is neither kind of connection.
  sqlite3.OperationalError / apsw.ExtensionLoadingError: SQLite refused the file (not a
    SQLite extension, built for another machine, a missing shared library); SQLite's message.
"""
import os
import shutil
import subprocess
import sys
import sysconfig

__version__ = "0.1.0"
__all__ = ["loadable_path", "load", "search_path", "Error", "LibraryNotFound", "LoadingUnavailable"]

LIBRARY = "libprofsql.so"   # the file `make` builds and `make install` installs
ENV = "LIBPROFSQL_PATH"


class Error(Exception):
    """Base of this package's errors."""


class LibraryNotFound(Error, FileNotFoundError):
    """libprofsql.so is not where loadable_path() looked (the message lists the places)."""


class LoadingUnavailable(Error, RuntimeError):
    """The connection's module cannot load extensions (the message names routes that can)."""


# ---- where the library is ------------------------------------------------------------------

def _multiarch():
    """The Debian multiarch triplet (x86_64-linux-gnu), or None where there is none."""
    triplet = sysconfig.get_config_var("MULTIARCH")
    if triplet:
        return triplet
    gcc = shutil.which("gcc")
    if gcc is None:
        return None
    try:
        out = subprocess.run([gcc, "-print-multiarch"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None


def search_path():
    """The files loadable_path() tries when LIBPROFSQL_PATH is not set, in order."""
    dirs = [os.path.dirname(os.path.abspath(__file__))]
    triplet = _multiarch()
    if triplet:
        dirs += [f"/usr/local/lib/{triplet}", "/usr/local/lib", f"/usr/lib/{triplet}", "/usr/lib"]
    else:
        dirs += ["/usr/local/lib", "/usr/lib"]
    return [os.path.join(d, LIBRARY) for d in dirs]


def _from_env(value):
    """The file $LIBPROFSQL_PATH names: itself, itself + '.so', or libprofsql.so in it."""
    path = os.path.abspath(os.path.expanduser(value))
    if os.path.isdir(path):
        candidates = [os.path.join(path, LIBRARY)]
    elif path.endswith(".so"):
        candidates = [path]
    else:
        candidates = [path + ".so", path]       # `.load ./libprofsql` style, as SQLite tries it
    for c in candidates:
        if os.path.isfile(c) and os.path.getsize(c) > 0:
            return c
    raise LibraryNotFound(
        f"libprofsql: {ENV}={value!r} names no library (tried {', '.join(candidates)}); point it "
        f"at the libprofsql.so that `make` built, or unset it to search {', '.join(search_path())}")


def loadable_path():
    """The full path of libprofsql.so to pass to load_extension (see the module docstring)."""
    value = os.environ.get(ENV)
    if value:
        return _from_env(value)
    tried = search_path()
    for path in tried:
        if os.path.isfile(path):
            return path
    raise LibraryNotFound(
        "libprofsql: libprofsql.so not found. Looked in:\n"
        + "".join(f"  {p}\n" for p in [f"${ENV} (not set)"] + tried)
        + "Build it with `make` in a libprofsql checkout and set "
          f"{ENV}=/path/to/checkout/libprofsql.so, or install it with `sudo make install` "
          "(/usr/local/lib/<multiarch>/libprofsql.so).")


# ---- loading it --------------------------------------------------------------------------

def unavailable_message(kind="this Python's sqlite3 module"):
    """The text of LoadingUnavailable: why, and the routes that work."""
    return (
        f"libprofsql: {kind} cannot load SQLite extensions: it has no enable_load_extension "
        f"(Python {sys.version.split()[0]} at {sys.executable} was built without "
        "--enable-loadable-sqlite-extensions, as pyenv's and macOS's system Pythons are).\n"
        "Routes that work:\n"
        "  - apsw: on Debian/Ubuntu `sudo apt-get install python3-apsw`, then under /usr/bin/python3\n"
        "      import apsw, profsql; db = apsw.Connection(':memory:'); profsql.load(db)\n"
        "    (elsewhere `pip install apsw` into this Python)\n"
        "  - the system /usr/bin/python3 (Debian, Ubuntu), whose sqlite3 loads extensions\n"
        "  - a Python built with ./configure --enable-loadable-sqlite-extensions "
        "(pyenv: PYTHON_CONFIGURE_OPTS=--enable-loadable-sqlite-extensions pyenv install ...)")


def _methods(conn):
    """(enable, load) bound methods of conn, in either spelling, or (None, None)."""
    for enable, load in (("enable_load_extension", "load_extension"),
                         ("enableloadextension", "loadextension")):      # apsw before 3.42
        try:
            return getattr(conn, enable), getattr(conn, load)
        except AttributeError:
            continue
    return None, None


def _is_sqlite3(conn):
    """True for a connection of the standard module (or pysqlite3, its twin)."""
    mod = type(conn).__module__ or ""
    if mod.split(".")[0] in ("sqlite3", "pysqlite3"):
        return True
    sqlite3 = sys.modules.get("sqlite3")
    return sqlite3 is not None and isinstance(conn, getattr(sqlite3, "Connection", ()))


def load(conn, entrypoint=None):
    """Loads libprofsql into conn (sqlite3 or apsw); returns the path loaded. See the docstring."""
    enable, load_extension = _methods(conn)
    if enable is None:
        if _is_sqlite3(conn):
            raise LoadingUnavailable(unavailable_message())
        raise TypeError(f"profsql.load() takes a sqlite3.Connection or an apsw.Connection, "
                        f"not {type(conn).__module__}.{type(conn).__qualname__}")
    path = loadable_path()
    enable(True)
    try:
        if entrypoint is None:
            load_extension(path)
        elif not _is_sqlite3(conn):
            load_extension(path, entrypoint)                    # apsw: positional
        elif sys.version_info >= (3, 12):
            load_extension(path, entrypoint=entrypoint)         # sqlite3: keyword-only
        else:
            # sqlite3 before Python 3.12 takes no entry point; the SQL function, which the
            # same switch enables, does
            conn.execute("SELECT load_extension(?, ?)", (path, entrypoint)).fetchall()
    finally:
        enable(False)
    return path
