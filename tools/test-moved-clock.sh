#!/usr/bin/env bash
# The date-sensitive suites under a system clock moved far from today (Debian's faketime, libfaketime): a test that
# reads the real date where it meant its own fixed clock fails here the day it is written, not a week later.
# The moved day, 2028-03-25 15:55 UTC, is 23:55 in Asia/Shanghai: the site's midnight passes five minutes into the
# run while the UTC date stays the 25th, and the site day that starts is the day Europe's clocks move (26 March).
# The PostgreSQL server keeps the real clock, so the API suites run here on SQLite only.
set -euo pipefail
if ! command -v faketime >/dev/null 2>&1; then
  echo "faketime is missing: apt-get install faketime" >&2
  exit 1
fi
export MOVED_CLOCK="${MOVED_CLOCK:-2028-03-25 15:55:00}"
# Timers run on the monotonic clock: left real, so a timeout of 1 s is still 1 s.
export FAKETIME_DONT_FAKE_MONOTONIC=1
export TZ=UTC
exec faketime -f "@${MOVED_CLOCK}" npx vitest run --project api-sqlite --project unit --project web "$@"
