#!/usr/bin/env bash
# Runs the Padlock demo: worker JVMs contend on one lock and update a Redis counter inside it.
# Needs only a JDK 17+ and Maven; builds what it needs first (quietly).
#   ./demo.sh [--redis URI] [--processes N] [--threads N] [--seconds N] [--lease-ms N]
# Without --redis it starts its own redis-server (the one on the PATH, else the one embedded-redis ships).
exec "$(dirname "$0")/scripts/run-main.sh" lock-tests dev.padlock.demo.Demo -- "$@"
