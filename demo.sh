#!/usr/bin/env bash
# Runs the Padlock demo (./padlock demo): worker JVMs contend on one lock and update a Redis counter
# inside it. Needs only a JDK 17+ and Maven; builds what it needs first (quietly).
#   ./demo.sh [--kind lock|fair|rw|fenced|spin|multi|red] [--redis URI[,URI,URI]] [--processes N]
#             [--threads N] [--seconds N] [--lease-ms N]
# --kind picks the lock (default lock): fair, spin, fenced (tokens checked inside the lock), rw
# (3 in 4 iterations read under the read lock, 1 in 4 increment under the write lock), multi (3 locks,
# named in a different order by each thread), red (the Redlock over 3 independent servers).
# Without --redis it starts its own redis-server (the one on the PATH, else the one embedded-redis
# ships); three of them for --kind red, which takes 3 comma-separated URIs after --redis.
exec "$(dirname "$0")/padlock" demo "$@"
