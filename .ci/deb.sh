#!/bin/sh
# .ci/deb.sh VERSION BUILD — `make deb`: the Debian binary packages of libprofsql, built with
# dpkg-deb from `make install DESTDIR=<staging> PREFIX=/usr` (LIBDIR /usr/lib/<multiarch>).
#
#   BUILD/libprofsql_<VERSION>_<arch>.deb       runtime (the two paths are printed last)
#   BUILD/libprofsql-dev_<VERSION>_<arch>.deb   development
#
# libprofsql, the runtime: the loadable library, stripped (libprofsql.so -> .so.MAJOR ->
# .so.VERSION; the unversioned name stays here, unlike most libraries' -dev links, because it is
# what SQLite's `.load libprofsql` opens), the sql/ helpers and the docs. Depends: the packages
# that own the shared libraries libprofsql.so links (found with ldd and dpkg -S); SQLite is not
# among them (the extension calls the host's SQLite through sqlite3ext.h), so it is Recommends:
# sqlite3. Debug symbols are dropped (strip --strip-unneeded), not shipped in a -dbgsym package.
#
# libprofsql-dev: profsql.h, libprofsql.a (debug sections stripped) and libprofsql.pc, for
# programs that link the extension statically. Depends: libprofsql of the same version, and the
# -dev packages of the .pc's Requires (sqlite3 zlib minizip libdeflate), whose .pc files and
# libraries pkg-config and the linker need.
#
# tests/py/test_deb.py checks both (control fields, contents, `file` says stripped) and, in CI,
# installs and removes them with dpkg.
set -eu
version=$1
build=$2
command -v dpkg-deb >/dev/null || { echo "make deb: dpkg-deb not found (Debian package dpkg)" >&2; exit 1; }
arch=$(dpkg --print-architecture)
root=$build/deb/root
rm -rf "$build/deb"
mkdir -p "$root"
make --no-print-directory -s install DESTDIR="$PWD/$root" PREFIX=/usr >/dev/null
libdir=$(cd "$root" && dirname "$(find usr/lib -name "libprofsql.so.$version")")

# ---- split the staged install: the runtime keeps what the -dev package does not take
run=$build/deb/libprofsql
dev=$build/deb/libprofsql-dev
mkdir -p "$run/DEBIAN" "$dev/DEBIAN" "$dev/$libdir/pkgconfig" "$dev/usr/include" "$dev/usr/share/doc/libprofsql-dev"
mv "$root/$libdir/libprofsql.a" "$dev/$libdir/"
mv "$root/$libdir/pkgconfig/libprofsql.pc" "$dev/$libdir/pkgconfig/"
rmdir "$root/$libdir/pkgconfig"
mv "$root/usr/include/profsql.h" "$dev/usr/include/"
rmdir "$root/usr/include"
cp -a "$root/." "$run/"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$run/$libdir/libprofsql.so.$version"
strip --strip-debug "$dev/$libdir/libprofsql.a"
# the docs directories want a copyright file
cp LICENSE "$run/usr/share/doc/libprofsql/copyright"
cp LICENSE "$dev/usr/share/doc/libprofsql-dev/copyright"

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

# the formats (README.md's table "What it reads"), for both descriptions
formats=' It reads these formats, recognised by content (gzip, ZIP, systrace HTML unwrapped):
  - Chrome / Catapult / Perfetto / PyTorch Trace Event Format JSON;
  - PocketMine-MP timings and Spigot/Bukkit timings reports;
  - the lms profiler CSV;
  - TensorFlow / JAX XSpace protobufs (*.xplane.pb);
  - TensorFlow profiler result files (tf_stats, kernel_stats, input_pipeline,
    overview_page, memory_profile, xprof_trace) and xprof DataTable JSON;
  - sampled call stacks: V8 .cpuprofile, pprof profile.proto, Linux perf script
    text, folded / collapsed stacks, speedscope JSON, Chrome trace stacks;
  - Linux ftrace text (atrace, systrace HTML);
  - newengine StarProfiler job reports (JSON, dated ZIP archive, jobs CSV).
 The tables are profile_events, profile_records, profile_jobs, profile_xplanes and
 profile_metadata; profile_report writes a report set, profile_flamegraph an SVG.'

cat > "$run/DEBIAN/control" <<EOF
Package: libprofsql
Version: $version
Architecture: $arch
Maintainer: libprofsql developers <libprofsql@localhost>
Installed-Size: $(du -sk "$run" | cut -f1)
Depends: $depends
Recommends: sqlite3
Suggests: libprofsql-dev
Section: libs
Priority: optional
Description: SQLite extension that turns profiler captures into SQL tables
 libprofsql is a SQLite loadable extension: ".load libprofsql" in the sqlite3
 shell (or load_extension from any SQLite host) makes profiler captures tables.
$formats
EOF

cat > "$dev/DEBIAN/control" <<EOF
Package: libprofsql-dev
Version: $version
Architecture: $arch
Maintainer: libprofsql developers <libprofsql@localhost>
Installed-Size: $(du -sk "$dev" | cut -f1)
Depends: libprofsql (= $version), libsqlite3-dev, zlib1g-dev, libminizip-dev, libdeflate-dev
Section: libdevel
Priority: optional
Description: SQLite extension that turns profiler captures into SQL tables (development files)
 The header profsql.h, the static library libprofsql.a and libprofsql.pc, for
 programs that link SQLite and register libprofsql on their own connections:
 cc prog.c \$(pkg-config --cflags --libs libprofsql).
$formats
EOF

out="$build/libprofsql_${version}_${arch}.deb"
outdev="$build/libprofsql-dev_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$run" "$out" >/dev/null
dpkg-deb --root-owner-group -Zxz --build "$dev" "$outdev" >/dev/null
echo "$out"
echo "$outdev"
