#!/usr/bin/env bash
# Builds the project quietly (Maven's output only when it fails), then runs a main class of one
# module with that module's runtime class path. Used by demo.sh and bench.sh.
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

quiet_mvn -Dmaven.test.skip=true install
quiet_mvn -pl "$module" dependency:build-classpath \
    -Dmdep.outputFile=target/classpath.txt -Dmdep.includeScope=runtime

exec java "${jvm_options[@]}" -cp "$module/target/classes:$(cat "$module/target/classpath.txt")" "$main" "$@"
