#!/usr/bin/env bash
# Runs the Padlock demo: worker JVMs contend on one lock and update a Redis counter inside it.
# Needs only a JDK 17+ and Maven; builds what it needs first (quietly).
#   ./demo.sh [--redis URI] [--processes N] [--threads N] [--seconds N] [--lease-ms N]
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
        echo "demo.sh: the build failed (mvn $*)" >&2
        exit 1
    fi
    rm -f "$log"
}

quiet_mvn -Dmaven.test.skip=true install
quiet_mvn -pl lock-tests dependency:build-classpath \
    -Dmdep.outputFile=target/classpath.txt -Dmdep.includeScope=runtime

exec java -cp "lock-tests/target/classes:$(cat lock-tests/target/classpath.txt)" dev.padlock.demo.Demo "$@"
