#!/bin/sh
# examples/scaling/shard.sh — the one-machine form of the sharded recipe in docs/scaling.md:
# deals the captures named on the command line round-robin into N shards and imports each shard
# into its own SQLite file, OUT/shard_K.db (K = 0..N-1), one `sqlite3` process per shard, run side
# by side by GNU parallel. Each worker holds one capture at a time (profile_import reads a shard
# directory file by file); the shard files need no extension to be read afterwards.
#
#   sh examples/scaling/shard.sh OUT N capture...
#
# Environment: LIBPROFSQL (what `.load` takes; default ./libprofsql), SQLITE3 (default sqlite3),
# JOBS (parallel workers; default: one per core). A shard is a directory OUT/shard_K/ of symbolic
# links to its captures; its import is `SELECT profile_import('OUT/shard_K')` into OUT/shard_K.db.
# Exit status: non-zero when a worker failed (GNU parallel's count of failed jobs), with the
# worker's error on stderr.
set -eu
[ $# -ge 3 ] || { echo "usage: shard.sh OUT N capture..." >&2; exit 2; }
out=$1; n=$2; shift 2
LIBPROFSQL=${LIBPROFSQL:-./libprofsql}; SQLITE3=${SQLITE3:-sqlite3}
case $n in ''|*[!0-9]*|0) echo "shard.sh: N must be a positive integer, not '$n'" >&2; exit 2 ;; esac
mkdir -p "$out"
k=0
while [ $k -lt "$n" ]; do rm -rf "$out/shard_$k" "$out/shard_$k.db"; mkdir "$out/shard_$k"; k=$((k+1)); done
i=0
for f in "$@"; do
  case $f in /*) abs=$f ;; *) abs=$(pwd)/$f ;; esac
  # a rank number in front keeps the shard's files in the order given
  ln -s "$abs" "$out/shard_$((i % n))/$(printf '%06d' "$i")_$(basename "$f")"
  i=$((i+1))
done
seq 0 $((n-1)) | parallel --will-cite ${JOBS:+-j "$JOBS"} --halt never \
  "$SQLITE3" -batch -init /dev/null -bail -cmd "'.load $LIBPROFSQL'" "'$out/shard_{}.db'" \
  "\"SELECT profile_import('$out/shard_{}')\"" > /dev/null
