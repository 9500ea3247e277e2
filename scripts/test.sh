#!/usr/bin/env bash
# The README's test command: every test, in three tiers, each `mvn -B verify` run only when the
# tier before it passed, so that a broken unit stops the run in seconds, before any Redis starts.
#   1 unit         lock-lua and lock-core (lock-core's tests need no Redis)
#   2 integration  every other module's tests, against redis-server processes of their own,
#                  but the fault tests
#   3 faults       the fault and soak tests and those that kill or stop worker JVMs: the test
#                  classes tagged @Tag("faults") (tier 2 leaves them out), in the modules that
#                  have one and those they need
#   4 valkey       only when asked for (--valkey, or --tier 4): the tests that go through the
#                  scripts (lock-tests' kinds, scripts, interop and behaviour packages and
#                  LockModelTest) once more, on valkey-server from the PATH
#                  (PADLOCK_REDIS_BINARY=valkey; `mvn -B test`), its Surefire reports named
#                  TEST-<class>-valkey.xml beside tier 2's
# Tier 2 goes through the whole reactor (-Dpadlock.tier=integration), tier 3 through the modules
# with a fault test and those they need (-Dpadlock.tier=faults), two modules at a time (Maven's
# -T 2, or PADLOCK_TEST_THREADS) where the reactor's order allows, since their tests mostly wait on
# Redis rather than compute; what an earlier tier compiled is not compiled again and each tier
# runs only its own tests. A plain `mvn -B verify` runs every test at once.
#   scripts/test.sh [--tier N]... [--valkey[=all|model|scripts]] [MAVEN_ARG...]
# --tier N runs only tier N (repeatable); --valkey adds tier 4 to the tiers run (=model: only
# LockModelTest, =scripts: only the packages; all of it by default); every other
# argument goes to each tier's Maven run, e.g. -Dpadlock.model.seed=7, -o. Needs only a JDK 17+ and
# Maven (and valkey-server for tier 4). Exits with the status of the first tier that failed; each
# tier's line gives its time and the tests it ran, and the last line counts the tests of them all:
# "tests: N passed, N failed, N skipped".
set -euo pipefail
cd "$(dirname "$0")/.."

tiers=() mvn_args=() valkey= valkey_part=
while [ $# -gt 0 ]; do
    if [ "$1" = "--tier" ]; then
        if [ $# -lt 2 ] || ! [[ $2 =~ ^[1234]$ ]]; then
            echo "$(basename "$0"): --tier takes 1, 2, 3 or 4" >&2
            exit 2
        fi
        tiers+=("$2")
        shift 2
    elif [[ $1 == --valkey || $1 == --valkey=* ]]; then
        valkey=yes
        valkey_part=${1#--valkey}
        valkey_part=${valkey_part#=}
        if ! [[ ${valkey_part:-all} =~ ^(all|model|scripts)$ ]]; then
            echo "$(basename "$0"): --valkey takes all, model or scripts, not '$valkey_part'" >&2
            exit 2
        fi
        shift
    else
        mvn_args+=("$1")
        shift
    fi
done
[ ${#tiers[@]} -gt 0 ] || tiers=(1 2 3)
[ -z "$valkey" ] || [[ " ${tiers[*]} " == *" 4 "* ]] || tiers+=(4)
if [[ " ${tiers[*]} " == *" 4 "* ]] && ! command -v valkey-server >/dev/null 2>&1; then
    echo "$(basename "$0"): tier 4 (valkey) needs valkey-server on the PATH (Debian bookworm: add the" \
        "bookworm-backports suite, then apt-get install -t bookworm-backports valkey-server)" >&2
    exit 2
fi

tier_name=([1]=unit [2]=integration [3]=faults [4]=valkey)
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
# Tier 4 runs what goes through the scripts on Valkey; the environment variable, which the fixture
# reads before -Dpadlock.redis.binary, so that no PADLOCK_REDIS_BINARY=embedded around this run
# can turn it into another server. Its own report names keep tier 2's reports of the same classes.
# --valkey=model runs LockModelTest alone, --valkey=scripts the rest, so that two runs side by side
# (CI's legs) can share tier 4. The model test runs 12 sequences here, not 25 (tier 2 runs it in
# full on Redis; a -Dpadlock.model.tries given to test.sh comes later and wins).
valkey_scripts='dev.padlock.tests.kinds.**,dev.padlock.tests.scripts.**,dev.padlock.tests.interop.**'
valkey_scripts+=',dev.padlock.tests.behaviour.**'
case ${valkey_part:-all} in
    all) valkey_tests="$valkey_scripts,LockModelTest" ;;
    model) valkey_tests=LockModelTest ;;
    scripts) valkey_tests=$valkey_scripts ;;
esac
tier_goal=([1]=verify [2]=verify [3]=verify [4]=test)
tier_env=([1]= [2]= [3]= [4]=PADLOCK_REDIS_BINARY=valkey)
tier_args=([1]="-pl lock-lua,lock-core" [2]="-T $threads -Dpadlock.tier=integration"
    [3]="-T $threads -Dpadlock.tier=faults -pl ${fault_modules:-lock-tests} -am"
    [4]="-T $threads -pl lock-tests -am -Dtest=$valkey_tests -Dsurefire.failIfNoSpecifiedTests=false -Dsurefire.reportNameSuffix=valkey -Dpadlock.model.tries=12")

# The Surefire reports written by this run (or tier), not those an earlier one left in target/.
started=$(mktemp)
tier_started=$(mktemp)
trap 'rm -f "$started" "$tier_started"' EXIT

# tests: N passed, N failed, N skipped (failed: failures and errors), from the reports written
# since the file $1 was
count_tests() {
    find . -path '*/target/surefire-reports/TEST-*.xml' -newer "$1" \
        -exec grep -h -m1 -o '<testsuite [^>]*>' {} + |
        awk '
            function attr(name,   m) { return match($0, " " name "=\"[0-9]+\"") ? substr($0, RSTART + length(name) + 3, RLENGTH - length(name) - 4) + 0 : 0 }
            { tests += attr("tests"); failed += attr("failures") + attr("errors"); skipped += attr("skipped") }
            END { printf "tests: %d passed, %d failed, %d skipped\n", tests - failed - skipped, failed, skipped }'
}

duration() { printf '%d min %02d s' $(($1 / 60)) $(($1 % 60)); }

summary=()
for tier in "${tiers[@]}"; do
    [ "$tier" != 4 ] || echo "test.sh: tier 4 (valkey) runs $(command -v valkey-server): $(valkey-server --version)"
    echo "test.sh: tier $tier (${tier_name[$tier]}): ${tier_env[$tier]:+${tier_env[$tier]} }mvn -B ${tier_goal[$tier]} ${tier_args[$tier]} ${mvn_args[*]:-}"
    start=$SECONDS
    touch "$tier_started"
    status=0
    # shellcheck disable=SC2086 # tier_env and tier_args hold whole words, split on purpose
    env ${tier_env[$tier]} mvn -B "${tier_goal[$tier]}" ${tier_args[$tier]} ${mvn_args[@]+"${mvn_args[@]}"} || status=$?
    took=$(duration $((SECONDS - start)))
    echo # Maven may end without a newline (a colour reset)
    if [ "$status" -ne 0 ]; then
        summary+=("tier $tier (${tier_name[$tier]}): FAILED after $took, $(count_tests "$tier_started")")
        printf 'test.sh: %s\n' "${summary[@]}"
        echo "test.sh: stopped at tier $tier; the tiers after it did not run" >&2
        count_tests "$started"
        exit "$status"
    fi
    summary+=("tier $tier (${tier_name[$tier]}): passed in $took, $(count_tests "$tier_started")")
done
printf 'test.sh: %s\n' "${summary[@]}"
count_tests "$started"
