#!/usr/bin/env bash
# Measures Padlock and Redisson side by side on one Redis server and prints one table; also writes
# bench.md and acquisitions.png (default: benchmarks/target/bench). Builds what it needs first (quietly).
#   ./bench.sh [--seconds N] [--rounds N] [--scenarios 1,1b,2,3,3b,4,5,6a,6b] [--out DIR] [--redis URI] [--no-jmh]
# Without --redis it starts its own redis-server (the one on the PATH, else the one embedded-redis ships).
exec "$(dirname "$0")/scripts/run-main.sh" benchmarks dev.padlock.bench.Bench \
    -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -- "$@"
