#!/usr/bin/env bash
# Hunts flaky tests: runs the whole suite (scripts/test.sh) round after round while CPU burners
# keep every core busy, as on a loaded CI machine. Prints each round's result and wall time and
# stops at the first failing round, with test.sh's exit status. See docs/contributing.md.
#   scripts/flake-hunt.sh [--rounds N] [--burners N] [TEST_SH_ARG...]
# --rounds: default 1; --burners: busy loops to start, default one a core. Every other argument
# goes to scripts/test.sh (e.g. --tier 3, -Dpadlock.model.seed=7, -o). Each round's output is
# kept in target/flake-hunt/<time>/round-<n>.log. The burners are this script's own processes,
# stopped by their PIDs when it exits, however it exits (but kill -9).
set -euo pipefail
cd "$(dirname "$0")/.."

rounds=1
burners=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
args=()
while [ $# -gt 0 ]; do
    case $1 in
        --rounds)
            if [ $# -lt 2 ] || ! [[ $2 =~ ^[0-9]+$ ]] || [ "$2" -lt 1 ]; then
                echo "$(basename "$0"): --rounds takes a whole number of at least 1" >&2
                exit 2
            fi
            rounds=$2
            shift 2
            ;;
        --burners)
            if [ $# -lt 2 ] || ! [[ $2 =~ ^[0-9]+$ ]]; then
                echo "$(basename "$0"): --burners takes a whole number" >&2
                exit 2
            fi
            burners=$2
            shift 2
            ;;
        *)
            args+=("$1")
            shift
            ;;
    esac
done

dir="$PWD/target/flake-hunt/$(date +%Y%m%d-%H%M%S)"
mkdir -p "$dir"

pids=()
stop_burners() {
    if [ ${#pids[@]} -gt 0 ]; then
        kill "${pids[@]}" 2>/dev/null || true
        wait "${pids[@]}" 2>/dev/null || true
        echo "flake-hunt: stopped the burners (PIDs ${pids[*]})"
        pids=()
    fi
}
trap stop_burners EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

for ((i = 0; i < burners; i++)); do
    sh -c 'while :; do :; done' &
    pids+=($!)
done
echo "flake-hunt: $burners CPU burner(s) (PIDs ${pids[*]:-none}), $rounds round(s) of scripts/test.sh ${args[*]:-}"
echo "flake-hunt: logs in $dir"

duration() { printf '%d min %02d s' $(($1 / 60)) $(($1 % 60)); }

for ((round = 1; round <= rounds; round++)); do
    log="$dir/round-$round.log"
    start=$SECONDS
    status=0
    scripts/test.sh ${args[@]+"${args[@]}"} >"$log" 2>&1 || status=$?
    took=$(duration $((SECONDS - start)))
    tests=$(grep -E '^tests: ' "$log" | tail -n 1 || true)
    if [ "$status" -ne 0 ]; then
        echo "flake-hunt: round $round/$rounds FAILED after $took (${tests:-no test count})"
        grep -E '^test\.sh: |<<< (FAILURE|ERROR)!' "$log" | sed 's/^/  /' || true
        echo "flake-hunt: the whole output: $log" >&2
        exit "$status"
    fi
    echo "flake-hunt: round $round/$rounds passed in $took ($tests)"
done
echo "flake-hunt: $rounds round(s) passed"
