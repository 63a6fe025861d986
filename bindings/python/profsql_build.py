"""profsql_build: the PEP 517 build backend of bindings/python, in the package's own folder.

`pip install ./bindings/python` builds a wheel before installing it. With setuptools as the
backend, pip first downloads setuptools from PyPI into an isolated environment (so the command
fails offline), and with --no-build-isolation it needs Debian's setuptools *and* wheel. This
backend needs nothing but the standard library: pyproject.toml names it with `requires = []`
and `backend-path = ["."]`, so pip has nothing to fetch, with build isolation or without, in a
venv with or without the system's packages, on any Python 3.7+.

It writes only into the directory pip passes (a temporary one): no build/ or *.egg-info in the
checkout.

    build_wheel     libprofsql-<version>-py3-none-any.whl: the modules profsql and libprofsql
                    (the former name, an alias), the metadata below. A libprofsql.so copied into
                    profsql/ beforehand goes in too, and the wheel is then tagged for this
                    platform (py3-none-linux_x86_64): it holds machine code.
    build_sdist     libprofsql-<version>.tar.gz: this folder's sources and PKG-INFO.
    build_editable  (pip install -e, PEP 660) a wheel holding a .pth file naming this folder.

The version is profsql.__version__ (tests/py/test_bindings.py checks it against VERSION).
"""
import base64
import hashlib
import io
import os
import re
import sysconfig
import tarfile
import time
import zipfile

NAME = "libprofsql"                     # the distribution (pip's name)
MODULES = ["profsql", "libprofsql"]     # the import packages, each a folder here
HERE = os.path.dirname(os.path.abspath(__file__))
SDIST_FILES = ["pyproject.toml", "profsql_build.py", "README.md"]

METADATA = """\
Metadata-Version: 2.1
Name: {name}
Version: {version}
Summary: Find and load libprofsql, the SQLite extension that turns profiler captures into SQL tables
License: MIT
Classifier: License :: OSI Approved :: MIT License
Classifier: Programming Language :: Python :: 3
Classifier: Topic :: Database
Requires-Python: >=3.7
Provides-Extra: apsw
Requires-Dist: apsw; extra == "apsw"
Description-Content-Type: text/markdown

{readme}"""


def _version():
    """profsql.__version__, read from the source (the module is not imported)."""
    text = open(os.path.join(HERE, "profsql", "__init__.py"), encoding="utf-8").read()
    return re.search(r'^__version__ = "([^"]+)"', text, re.M).group(1)


def _metadata():
    readme = open(os.path.join(HERE, "README.md"), encoding="utf-8").read()
    return METADATA.format(name=NAME, version=_version(), readme=readme)


def _package_files():
    """(path in the wheel, file here) of every module file, and whether a .so is among them."""
    out, binary = [], False
    for mod in MODULES:
        for name in sorted(os.listdir(os.path.join(HERE, mod))):
            if name.endswith(".py") or name.endswith(".so"):
                out.append((f"{mod}/{name}", os.path.join(HERE, mod, name)))
                binary = binary or name.endswith(".so")
    return out, binary


def _write_wheel(directory, files, tag):
    """Writes the wheel of files ((name, bytes) pairs) into directory; returns its file name."""
    dist = f"{NAME}-{_version()}"
    wheel = f"{dist}-{tag}.whl"
    info = f"{dist}.dist-info"
    files = files + [
        (f"{info}/METADATA", _metadata().encode()),
        (f"{info}/WHEEL", (f"Wheel-Version: 1.0\nGenerator: profsql_build\nRoot-Is-Purelib: true\n"
                           f"Tag: {tag}\n").encode()),
        (f"{info}/top_level.txt", "".join(m + "\n" for m in MODULES).encode()),
    ]
    record = []
    path = os.path.join(directory, wheel)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files:
            z.writestr(_zipinfo(name), data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            record.append(f"{name},sha256={digest},{len(data)}\n")
        record.append(f"{info}/RECORD,,\n")
        z.writestr(_zipinfo(f"{info}/RECORD"), "".join(record))
    return wheel


def _zipinfo(name):
    zi = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))   # reproducible
    zi.external_attr = 0o644 << 16
    zi.compress_type = zipfile.ZIP_DEFLATED
    return zi


# ---- the PEP 517 / PEP 660 hooks ---------------------------------------------------------

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    files, binary = _package_files()
    plat = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    tag = f"py3-none-{plat}" if binary else "py3-none-any"
    return _write_wheel(wheel_directory, [(n, open(p, "rb").read()) for n, p in files], tag)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory, [(f"{NAME}.pth", (HERE + "\n").encode())], "py3-none-any")


def build_sdist(sdist_directory, config_settings=None):
    dist = f"{NAME}-{_version()}"
    name = f"{dist}.tar.gz"
    files, _ = _package_files()
    members = [(f, os.path.join(HERE, f)) for f in SDIST_FILES] + [(n, p) for n, p in files if n.endswith(".py")]
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz", format=tarfile.PAX_FORMAT) as t:
        for arc, path in members:
            data = open(path, "rb").read()
            _add(t, f"{dist}/{arc}", data)
        _add(t, f"{dist}/PKG-INFO", _metadata().encode())
    return name


def _add(t, name, data):
    ti = tarfile.TarInfo(name)
    ti.size, ti.mode, ti.mtime = len(data), 0o644, int(time.time())
    t.addfile(ti, io.BytesIO(data))
