#!/bin/sh
# tests/fuzz/run.sh SECONDS — runs every libFuzzer target for SECONDS (0: only replays the seed
# inputs and the regression inputs in tests/fuzz/regressions/), seeded from tests/data,
# examples and (when present) ../shared/corpus/chrome. Exits non-zero on the first crash, leak or
# timeout; a crashing input is kept in build/fuzz/ and should become a regression input.
cd "$(dirname "$0")/../.." || exit 1
secs=${1:-60}
mkdir -p build/fuzz
status=0
for t in chrome timings lms xspace newengine gzip zip sql; do
  seeds=build/fuzz/seeds_$t
  rm -rf "$seeds"; mkdir -p "$seeds"
  cp tests/data/*.json tests/data/*.gz tests/data/*.txt tests/data/*.csv examples/*.json examples/*.txt examples/*.csv examples/*.pb tests/data/*.zip "$seeds"/ 2>/dev/null
  [ -d tests/fuzz/regressions ] && cp tests/fuzz/regressions/* "$seeds"/ 2>/dev/null
  if [ -d ../shared/corpus ]; then
    for f in ../shared/corpus/chrome/* ../shared/corpus/pmmp/* ../shared/corpus/aikar/* ../shared/corpus/xplane/* ../shared/corpus/newengine/*; do
      [ "$(wc -c < "$f")" -lt 300000 ] && cp "$f" "$seeds"/
    done
  fi
  corpus=build/fuzz/corpus_$t; mkdir -p "$corpus"
  case $t in timings|lms|xspace|newengine) dict=$t ;; *) dict=chrome ;; esac
  if [ "$secs" -eq 0 ]; then
    args="-runs=0"
  else
    args="-max_total_time=$secs"
  fi
  echo "fuzz_$t: $args"
  if ! ./build/fuzz_$t $args -timeout=10 -rss_limit_mb=4096 -max_len=300000 \
        -dict=tests/fuzz/$dict.dict -artifact_prefix=build/fuzz/ "$corpus" "$seeds" \
        > build/fuzz/fuzz_$t.log 2>&1; then
    echo "FAIL fuzz_$t (see build/fuzz/fuzz_$t.log)"
    # the finding first (a CI log may be cut short): the sanitizer's words and the input itself
    grep -a -E 'runtime error|ERROR:|SUMMARY|Test unit written|^Base64' build/fuzz/fuzz_$t.log | head -n 12 | cut -c1-400
    tail -n 8 build/fuzz/fuzz_$t.log
    status=1
  else
    grep -a -E '^(#[0-9]+ *DONE|Done [0-9]+ runs)' build/fuzz/fuzz_$t.log | tail -n 1
  fi
done
exit $status
