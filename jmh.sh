#!/usr/bin/env bash
# Runs the JMH suite of the benchmarks module (Padlock and Redisson side by side; every trial
# starts a redis-server of its own) with JMH's own command line: the arguments go to
# org.openjdk.jmh.Main as they are. Builds the module first (quietly, nothing installed).
#   ./jmh.sh -l                                      # list the benchmarks
#   ./jmh.sh -f 1 -wi 1 -i 2 -t 4 -prof gc 'Uncontended'
#   ./jmh.sh -h                                      # JMH's options
# The figures the README reports come from ./bench.sh; see "JMH suite" in the README.
# The forks log at WARN (the benchmarks' @Fork(jvmArgsAppend)); -jvmArgsAppend adds to that.
exec "$(dirname "$0")/scripts/run-main.sh" benchmarks org.openjdk.jmh.Main -- "$@"
