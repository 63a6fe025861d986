#!/bin/sh
# examples/scaling/merge.sh — the merge step of docs/scaling.md: copies the tables of shard
# databases (what shard.sh wrote) into one SQLite file, attaching one shard at a time (so any
# number of shards fits SQLite's limit of 10 attached databases), in plain SQL: no extension.
#
#   sh examples/scaling/merge.sh MERGED.db shard.db...
#
# MERGED.db gets `events` and `metadata` (and `records` / `jobs` when the shards have them) with
# every row of every shard; the `file` column keeps the captures apart. SQLITE3 as in shard.sh.
set -eu
[ $# -ge 2 ] || { echo "usage: merge.sh MERGED.db shard.db..." >&2; exit 2; }
merged=$1; shift
SQLITE3=${SQLITE3:-sqlite3}
rm -f "$merged"
for db in "$@"; do
  for t in events records jobs metadata; do
    has=$("$SQLITE3" -batch -init /dev/null "$db" "SELECT count(*) FROM sqlite_master WHERE type='table' AND name='$t'")
    [ "$has" = 1 ] || continue
    "$SQLITE3" -batch -init /dev/null -bail "$merged" "ATTACH '$db' AS s;
      CREATE TABLE IF NOT EXISTS main.$t AS SELECT * FROM s.$t WHERE 0;
      INSERT INTO main.$t SELECT * FROM s.$t;
      DETACH s;"
  done
done
