#!/bin/sh
# .ci/deb.sh VERSION BUILD — `make deb`: a Debian binary package of libprofsql, built with
# dpkg-deb from `make install DESTDIR=<staging> PREFIX=/usr` (LIBDIR /usr/lib/<multiarch>).
#
#   BUILD/libprofsql_<VERSION>_<arch>.deb   (the path is printed last)
#
# One package holds the loadable library (libprofsql.so -> .so.MAJOR -> .so.VERSION: SQLite's
# `.load libprofsql` needs the unversioned name), libprofsql.a, profsql.h, libprofsql.pc, the sql/
# helpers and the docs. Depends: the packages that own the shared libraries libprofsql.so links
# (found with ldd and dpkg -S), so it installs wherever those do; SQLite is not among them (the
# extension calls the host's SQLite through sqlite3ext.h), so it is Recommends: sqlite3. tests/py/test_deb.py installs
# and removes it with dpkg.
set -eu
version=$1
build=$2
command -v dpkg-deb >/dev/null || { echo "make deb: dpkg-deb not found (Debian package dpkg)" >&2; exit 1; }
arch=$(dpkg --print-architecture)
stage=$build/deb/root
rm -rf "$build/deb"
mkdir -p "$stage/DEBIAN"
make --no-print-directory -s install DESTDIR="$PWD/$stage" PREFIX=/usr >/dev/null

# Depends: the package of each shared library the extension links, but libc (dpkg's own)
deps=""
for lib in $(ldd libprofsql.so | awk '/=> \// { print $3 }'); do
  real=$(readlink -f "$lib")
  pkg=$(dpkg -S "$lib" 2>/dev/null | head -n 1 | cut -d: -f1 || true)
  [ -n "$pkg" ] || pkg=$(dpkg -S "$real" 2>/dev/null | head -n 1 | cut -d: -f1 || true)
  [ -n "$pkg" ] || continue
  case " $deps " in *" $pkg "*) ;; *) deps="$deps $pkg" ;; esac
done
depends=$(echo $deps | sed 's/ /, /g')

size=$(du -sk "$stage" | cut -f1)
cat > "$stage/DEBIAN/control" <<EOF
Package: libprofsql
Version: $version
Architecture: $arch
Maintainer: libprofsql developers <libprofsql@localhost>
Installed-Size: $size
Depends: $depends
Recommends: sqlite3
Section: libs
Priority: optional
Description: SQLite extension that turns profiler captures into SQL tables
 libprofsql reads Chrome/Catapult Trace Event Format JSON, TensorFlow/JAX XSpace protobufs,
 PocketMine-MP timings, the lms profiler CSV and the newengine job profiler report, and exposes
 them as the virtual tables profile_events, profile_records, profile_jobs, profile_xplanes and
 profile_metadata. Load it with ".load libprofsql" in the sqlite3 shell.
EOF
# the docs directory wants a copyright file
cp LICENSE "$stage/usr/share/doc/libprofsql/copyright"
out="$build/libprofsql_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$stage" "$out" >/dev/null
echo "$out"
