#!/bin/sh
# tests/fuzz/run.sh SECONDS — runs every libFuzzer target for SECONDS (0: only replays the seed
# inputs and the regression inputs in tests/fuzz/regressions/), seeded from tests/data,
# examples and (when present) ../shared/corpus; fuzz_gzip's seeds are gzip copies of those.
# fuzz_gzip (whose mutator works inside the gzip stream), fuzz_report and fuzz_tree take every
# format's dictionary. With SECONDS > 0 (make fuzz) the truncation run follows
# (tests/fuzz/truncate.py: prefixes of every seed capture, each through its format's target).
# Exits non-zero on any crash, leak or timeout; a crashing input is kept in build/fuzz/ and
# should become a regression input.
cd "$(dirname "$0")/../.." || exit 1
secs=${1:-60}
mkdir -p build/fuzz
status=0
cat tests/fuzz/*.dict > build/fuzz/all.dict
for t in chrome timings lms xspace xprof xprof_datatable newengine cpuprofile speedscope pprof perf_script folded ftrace gzip zip sql report tree; do
  seeds=build/fuzz/seeds_$t
  rm -rf "$seeds"; mkdir -p "$seeds"
  cp tests/data/*.json tests/data/*.gz tests/data/*.txt tests/data/*.csv examples/*.json examples/*.txt examples/*.csv examples/*.pb tests/data/*.zip "$seeds"/ 2>/dev/null
  cp tests/data/stacks/* tests/data/ftrace/* examples/*.cpuprofile "$seeds"/ 2>/dev/null
  [ -d tests/fuzz/regressions ] && cp tests/fuzz/regressions/* "$seeds"/ 2>/dev/null
  if [ -d ../shared/corpus ]; then
    for f in ../shared/corpus/chrome/* ../shared/corpus/pmmp/* ../shared/corpus/aikar/* ../shared/corpus/xplane/* ../shared/corpus/newengine/* ../shared/corpus/stacks/* ../shared/corpus/ftrace/*; do
      [ "$(wc -c < "$f")" -lt 300000 ] && cp "$f" "$seeds"/
    done
  fi
  if [ "$t" = xprof ]; then
    # the result protobufs (tests/data/xprof, the corpus' xprof/), each behind fuzz_xprof's first
    # byte (6: detect the format by content); the other seeds stay, as input no reader claims
    for f in tests/data/xprof/*.pb ../shared/corpus/xprof/*.pb; do
      [ -f "$f" ] && [ "$(wc -c < "$f")" -lt 300000 ] && { printf '\006'; cat "$f"; } > "$seeds/xprof-$(basename "$f")"
    done
  fi
  if [ "$t" = xprof_datatable ]; then
    cp tests/data/xprof/*.json "$seeds"/ 2>/dev/null
    [ -d ../shared/corpus/xprof ] && cp ../shared/corpus/xprof/*.json "$seeds"/ 2>/dev/null
  fi
  if [ "$t" = gzip ]; then
    # what the gzip target parses is what it inflates: every other seed, gzipped
    for f in "$seeds"/*; do
      case $f in *.gz) ;; *.zip) rm -f "$f" ;; *) gzip -n -c "$f" > "$f.gz" && rm -f "$f" ;; esac
    done
  fi
  # a report or a tree of a multi-megabyte capture takes seconds: not the big gzip seeds there
  case $t in report|tree) find "$seeds" -name '*.gz' -size +16k -exec rm -f {} + ;; esac
  corpus=build/fuzz/corpus_$t; mkdir -p "$corpus"
  case $t in xprof) dict=tests/fuzz/xspace.dict ;; gzip|report|tree) dict=build/fuzz/all.dict ;; *) dict=tests/fuzz/$t.dict ;; esac
  [ -f "$dict" ] || dict=tests/fuzz/chrome.dict
  if [ "$secs" -eq 0 ]; then
    args="-runs=0"; dirs=$seeds       # the replay: seeds and regressions, not what fuzzing kept
  else
    args="-max_total_time=$secs"; dirs="$corpus $seeds"
  fi
  echo "fuzz_$t: $args"
  if ! ./build/fuzz_$t $args -timeout=10 -rss_limit_mb=4096 -max_len=300000 \
        -dict=$dict -artifact_prefix=build/fuzz/ $dirs \
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
if [ "$secs" -ne 0 ]; then
  echo "truncation run: prefixes of every seed capture under 300 KB (tests/fuzz/truncate.py)"
  ${PYTHON:-python3} tests/fuzz/truncate.py || status=1
fi
exit $status
