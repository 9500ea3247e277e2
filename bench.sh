#!/usr/bin/env bash
# Measures Padlock and Redisson side by side on one Redis server, or on a 3-master Redis Cluster,
# and prints one table; also writes bench.md and the chart (default: benchmarks/target/bench, with
# acquisitions.png; on a cluster benchmarks/target/bench/cluster, with acquisitions-cluster.png).
# Builds what it needs first (quietly).
#   ./bench.sh [--topology single|cluster] [--seconds N] [--rounds N]
#              [--scenarios 1,1b,2,3,3b,4,5,6a,6b,7] [--out DIR] [--redis URI] [--no-jmh]
# Scenario 7 is the lock family, 7a-7i (one row per lock kind). Without --redis it starts its own
# redis-server (the one on the PATH, else the one embedded-redis ships); --topology cluster always
# starts its own cluster from that binary (no --redis) and sums the servers' figures over the masters.
exec "$(dirname "$0")/scripts/run-main.sh" benchmarks dev.padlock.bench.Bench \
    -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -- "$@"
