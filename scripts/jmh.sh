#!/usr/bin/env bash
# Runs the JMH suite of the benchmarks module (Padlock and Redisson side by side; every trial
# starts a redis-server of its own) with JMH's own command line: the arguments go to
# org.openjdk.jmh.Main as they are. Builds the module first (quietly, nothing installed).
#   scripts/jmh.sh -l                                      # list the benchmarks
#   scripts/jmh.sh -f 1 -wi 1 -i 2 -t 4 -prof gc 'Uncontended'
#   scripts/jmh.sh -h                                      # JMH's options
# The figures the README reports come from scripts/bench.sh; see docs/performance/.
# The forks log at WARN (the benchmarks' @Fork(jvmArgsAppend)); -jvmArgsAppend adds to that.
exec "$(dirname "$0")/run-main.sh" benchmarks org.openjdk.jmh.Main -- "$@"
