#!/usr/bin/env bash
# Runs the fault-schedule soak (lock-tests' FaultScheduleSoakTest) for longer than CI does: worker
# JVMs on one lock and a fenced resource while a seeded schedule of faults hits the lock's
# redis-server (its own, on a free loopback port). Prints the report and exits non-zero when a
# check fails. See docs/contributing.md.
#   scripts/soak.sh [seconds] [seed] [-Dpadlock.soak.PROPERTY=VALUE ...]
# seconds: default 300; seed: default from the clock (printed, so a run can be repeated).
# More properties: padlock.soak.processes (4), padlock.soak.threads (3), and
# padlock.soak.check.<id>=false to report a check without failing on it.
# MVN_ARGS adds Maven options, e.g. MVN_ARGS=-o for an offline build.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=300
seed=$(date +%s)
if [ $# -gt 0 ] && [[ $1 != -D* ]]; then seconds=$1; shift; fi
if [ $# -gt 0 ] && [[ $1 != -D* ]]; then seed=$1; shift; fi
if ! [[ $seconds =~ ^[0-9]+$ ]] || [ "$seconds" -lt 20 ]; then
    echo "$(basename "$0"): seconds must be a whole number of at least 20, got '$seconds'" >&2
    exit 2
fi
if ! [[ $seed =~ ^-?[0-9]+$ ]]; then
    echo "$(basename "$0"): seed must be a whole number, got '$seed'" >&2
    exit 2
fi
dir="$PWD/lock-tests/target/soak/seed-$seed-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$dir"
echo "soak: $seconds s, seed $seed; logs and report in $dir"
status=0
# shellcheck disable=SC2086
mvn -B -q ${MVN_ARGS:-} -pl lock-tests -am test \
    -Dtest=FaultScheduleSoakTest -Dsurefire.failIfNoSpecifiedTests=false \
    -Dpadlock.soak.seconds="$seconds" -Dpadlock.soak.seed="$seed" -Dpadlock.soak.dir="$dir" \
    "$@" >"$dir/maven.log" 2>&1 || status=$?
if [ -f "$dir/report.txt" ]; then
    cat "$dir/report.txt"
else
    tail -n 60 "$dir/maven.log" >&2
fi
if [ "$status" -ne 0 ]; then
    echo "soak: FAILED (seed $seed); Maven's output: $dir/maven.log" >&2
else
    echo "soak: passed (seed $seed)"
fi
exit "$status"
