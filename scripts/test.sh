#!/usr/bin/env bash
# The README's test command: every test, in three tiers, each `mvn -B verify` run only when the
# tier before it passed, so that a broken unit stops the run in seconds, before any Redis starts.
#   1 unit         lock-lua and lock-core (lock-core's tests need no Redis)
#   2 integration  every other module's tests, against redis-server processes of their own,
#                  but the fault tests
#   3 faults       the fault and soak tests and those that kill or stop worker JVMs: the test
#                  classes tagged @Tag("faults") (tier 2 leaves them out), in the modules that
#                  have one and those they need
# Tier 2 goes through the whole reactor (-Dpadlock.tier=integration), tier 3 through the modules
# with a fault test and those they need (-Dpadlock.tier=faults), two modules at a time (Maven's
# -T 2, or PADLOCK_TEST_THREADS) where the reactor's order allows, since their tests mostly wait on
# Redis rather than compute; what an earlier tier compiled is not compiled again and each tier
# runs only its own tests. A plain `mvn -B verify` runs every test at once.
#   scripts/test.sh [--tier N]... [MAVEN_ARG...]
# --tier N runs only tier N (repeatable); every other argument goes to each tier's Maven run,
# e.g. -Dpadlock.model.seed=7, -o. Needs only a JDK 17+ and Maven. Exits with the status of the
# first tier that failed; the last line counts the tests that ran: "tests: N passed, N failed, N skipped".
set -euo pipefail
cd "$(dirname "$0")/.."

tiers=() mvn_args=()
while [ $# -gt 0 ]; do
    if [ "$1" = "--tier" ]; then
        if [ $# -lt 2 ] || ! [[ $2 =~ ^[123]$ ]]; then
            echo "$(basename "$0"): --tier takes 1, 2 or 3" >&2
            exit 2
        fi
        tiers+=("$2")
        shift 2
    else
        mvn_args+=("$1")
        shift
    fi
done
[ ${#tiers[@]} -gt 0 ] || tiers=(1 2 3)

tier_name=([1]=unit [2]=integration [3]=faults)
threads=${PADLOCK_TEST_THREADS:-2}
if ! [[ $threads =~ ^[1-9][0-9]*$ ]]; then
    echo "$(basename "$0"): PADLOCK_TEST_THREADS must be a positive whole number, not '$threads'" >&2
    exit 2
fi
# Tier 3 builds only the modules with a test class tagged @Tag("faults") and those they need (-am):
# the others have no test to run there, and building them again (the Kotlin compiler, the shaded
# CLI jar, the Boot samples' jars, a test JVM each) would take time for nothing.
fault_modules=$({ grep -rl --include='*.java' --include='*.kt' '@Tag("faults")' -- */src/test 2>/dev/null || true; } |
    cut -d/ -f1 | sort -u | paste -sd, -)
tier_args=([1]="-pl lock-lua,lock-core" [2]="-T $threads -Dpadlock.tier=integration"
    [3]="-T $threads -Dpadlock.tier=faults -pl ${fault_modules:-lock-tests} -am")

# The Surefire reports written by this run, not those an earlier one left in target/.
started=$(mktemp)
trap 'rm -f "$started"' EXIT

# tests: N passed, N failed, N skipped (failed: failures and errors), from this run's reports
count_tests() {
    find . -path '*/target/surefire-reports/TEST-*.xml' -newer "$started" \
        -exec grep -h -m1 -o '<testsuite [^>]*>' {} + |
        awk '
            function attr(name,   m) { return match($0, " " name "=\"[0-9]+\"") ? substr($0, RSTART + length(name) + 3, RLENGTH - length(name) - 4) + 0 : 0 }
            { tests += attr("tests"); failed += attr("failures") + attr("errors"); skipped += attr("skipped") }
            END { printf "tests: %d passed, %d failed, %d skipped\n", tests - failed - skipped, failed, skipped }'
}

duration() { printf '%d min %02d s' $(($1 / 60)) $(($1 % 60)); }

summary=()
for tier in "${tiers[@]}"; do
    echo "test.sh: tier $tier (${tier_name[$tier]}): mvn -B verify ${tier_args[$tier]} ${mvn_args[*]:-}"
    start=$SECONDS
    status=0
    # shellcheck disable=SC2086 # tier_args holds whole Maven options, split on purpose
    mvn -B verify ${tier_args[$tier]} ${mvn_args[@]+"${mvn_args[@]}"} || status=$?
    took=$(duration $((SECONDS - start)))
    echo # Maven may end without a newline (a colour reset)
    if [ "$status" -ne 0 ]; then
        summary+=("tier $tier (${tier_name[$tier]}): FAILED after $took")
        printf 'test.sh: %s\n' "${summary[@]}"
        echo "test.sh: stopped at tier $tier; the tiers after it did not run" >&2
        count_tests
        exit "$status"
    fi
    summary+=("tier $tier (${tier_name[$tier]}): passed in $took")
done
printf 'test.sh: %s\n' "${summary[@]}"
count_tests
