#!/usr/bin/env bash
# Measures Padlock and Redisson side by side on one Redis server and prints one table; also writes
# bench.md and acquisitions.png (default: benchmarks/target/bench). Builds what it needs first (quietly).
#   ./bench.sh [--seconds N] [--rounds N] [--scenarios 1,1b,2,3,3b,4,5,6a,6b] [--out DIR] [--redis URI] [--no-jmh]
# Without --redis it starts its own redis-server (the one on the PATH, else the one embedded-redis ships).
set -euo pipefail
cd "$(dirname "$0")"

# Maven's output is shown only when it fails.
quiet_mvn() {
    local log
    log=$(mktemp)
    if ! mvn -B -q "$@" >"$log" 2>&1; then
        cat "$log" >&2
        rm -f "$log"
        echo "bench.sh: the build failed (mvn $*)" >&2
        exit 1
    fi
    rm -f "$log"
}

quiet_mvn -Dmaven.test.skip=true install
quiet_mvn -pl benchmarks dependency:build-classpath \
    -Dmdep.outputFile=target/classpath.txt -Dmdep.includeScope=runtime

exec java -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
    -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" dev.padlock.bench.Bench "$@"
