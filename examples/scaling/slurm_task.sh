#!/bin/sh
# examples/scaling/slurm_task.sh — one task of the Slurm array job of docs/scaling.md: links the
# captures of its shard list (LISTS/shard_K.txt, one path per line, K = SLURM_ARRAY_TASK_ID) into
# OUT/shard_K/, each under its line number and base name (rank0/trace.json and rank1/trace.json stay
# two files), and imports them into OUT/shard_K.db with profile_import.
#
#   sbatch --array=0-63 examples/scaling/slurm_task.sh LISTS OUT
#
# Environment: SLURM_ARRAY_TASK_ID (set by Slurm), LIBPROFSQL (what `.load` takes; default
# /opt/libprofsql/libprofsql), SQLITE3 (default sqlite3). Exit status non-zero, with sqlite3's error
# on stderr, when the import fails.
#SBATCH --cpus-per-task=1 --mem=8G
set -eu
[ $# -eq 2 ] || { echo "usage: slurm_task.sh LISTS OUT" >&2; exit 2; }
lists=$1; out=$2
k=${SLURM_ARRAY_TASK_ID:?slurm_task.sh: SLURM_ARRAY_TASK_ID is not set (run it with sbatch --array)}
LIBPROFSQL=${LIBPROFSQL:-/opt/libprofsql/libprofsql}; SQLITE3=${SQLITE3:-sqlite3}
rm -rf "$out/shard_$k" "$out/shard_$k.db"
mkdir -p "$out/shard_$k"
i=0
while IFS= read -r f || [ -n "$f" ]; do
  [ -n "$f" ] || continue
  case $f in /*) abs=$f ;; *) abs=$(pwd)/$f ;; esac
  ln -s "$abs" "$out/shard_$k/$(printf '%06d' "$i")_$(basename "$f")"
  i=$((i+1))
done < "$lists/shard_$k.txt"
"$SQLITE3" -batch -init /dev/null -bail -cmd ".load $LIBPROFSQL" "$out/shard_$k.db" \
  "SELECT profile_import('$out/shard_$k')" > /dev/null
