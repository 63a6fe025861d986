#!/bin/sh
# make bench: see tests/bench/bench.py
cd "$(dirname "$0")/../.." || exit 1
exec "${PYTHON:-/usr/bin/python3}" tests/bench/bench.py
