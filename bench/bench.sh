#!/bin/sh
# make bench: see bench/bench.py
cd "$(dirname "$0")/.." || exit 1
exec "${PYTHON:-/usr/bin/python3}" bench/bench.py
