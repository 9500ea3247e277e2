#!/usr/bin/env bash
# Builds one module and what it needs quietly (Maven's output only when it fails), in one reactor
# and without installing anything into ~/.m2, then runs a main class of that module with its
# runtime class path. Used by scripts/bench.sh and scripts/jmh.sh.
#   scripts/run-main.sh MODULE MAIN_CLASS [JVM_OPTION...] -- [ARG...]
set -euo pipefail
cd "$(dirname "$0")/.."
module=$1 main=$2
shift 2
jvm_options=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do jvm_options+=("$1"); shift; done
[ $# -gt 0 ] && shift

quiet_mvn() {
    local log
    log=$(mktemp)
    if ! mvn -B -q "$@" >"$log" 2>&1; then
        cat "$log" >&2
        rm -f "$log"
        echo "$(basename "$0"): the build failed (mvn $*)" >&2
        exit 1
    fi
    rm -f "$log"
}

quiet_mvn -pl "$module" -am -Dmaven.test.skip=true package dependency:build-classpath \
    -Dmdep.outputFile=target/classpath.txt -Dmdep.includeScope=runtime

exec java "${jvm_options[@]}" -cp "$module/target/classes:$(cat "$module/target/classpath.txt")" "$main" "$@"
