#!/usr/bin/env bash
# Measures Padlock and Redisson side by side on one Redis server, or on a 3-master Redis Cluster,
# and prints one table; also writes bench.md and the chart (default: benchmarks/target/bench, with
# acquisitions.png; on a cluster benchmarks/target/bench/cluster, with acquisitions-cluster.png).
# Builds what it needs first (quietly).
#   scripts/bench.sh [--topology single|cluster] [--seconds N] [--rounds N]
#              [--scenarios 1,1b,2,3,3b,4,5,6,7,8,9,10,11,12] [--out DIR] [--redis URI] [--no-jmh]
# 6 is the wake-up latencies 6a-6c (6c: the waiter in another JVM); 7 the lock family 7a-7i (one
# row per lock kind); 8, 9 and 10 one lock contended by worker JVMs of 4 threads each: a plain lock
# (8a-8d: 1, 2, 4, 8 JVMs), a fair lock (9a-9c: 1, 2, 4), a read-write lock at 90 % reads (10a-10b:
# 2, 4); 11 (11a) one semaphore of 4 permits contended by 4 such JVMs (16 threads), its permits on
# Redis checked after the run; 12 (12a, 12b) one thread's lock() + unlock() of a multi lock of 100
# and of 1,000 plain locks, no lock key left after the run (on a cluster also 12c: 100 locks with a
# hash tag per master). A number selects its lettered ids; --help says more. Without
# --redis it starts its own redis-server (the one on the PATH, else the one embedded-redis ships);
# --topology cluster always starts its own cluster from that binary (no --redis) and sums the
# servers' figures over the masters.
exec "$(dirname "$0")/run-main.sh" benchmarks dev.padlock.bench.Bench \
    -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -- "$@"
