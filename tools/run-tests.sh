#!/usr/bin/env bash
# Run nova_lite's tests: the unit tests, then the functional tests against the
# local RabbitMQ and MariaDB (started here if they are down).
#
#   tools/run-tests.sh                  unit, then functional
#   tools/run-tests.sh unit [FILTER..]  only the unit tests (stestr filters)
#   tools/run-tests.sh functional [..]  only the functional tests
#   tools/run-tests.sh eventlet [..]    the functional boot tests with every
#                                       daemon in eventlet mode
#
# Creates .venv (or $NOVA_LITE_VENV) and installs the pinned requirements
# when they changed. Needs no terminal. The last line is the summary over all
# the runs, "N passed, N failed, N skipped"; the exit status is non-zero when
# anything failed.
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
REPO_ROOT=$PWD
VENV=${NOVA_LITE_VENV:-$REPO_ROOT/.venv}
FUNCTIONAL_CONCURRENCY=${NOVA_LITE_FUNCTIONAL_CONCURRENCY:-2}
SERVICE_WAIT_SECONDS=${NOVA_LITE_SERVICE_WAIT_SECONDS:-120}


suite=all
case "${1:-}" in
  unit|functional|eventlet|all) suite=$1; shift ;;
  -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac

# shellcheck source=tools/common.sh
. tools/common.sh

passed=0 failed=0 skipped=0
failures=$(mktemp)
trap 'rm -f "$failures"' EXIT

# run_suite NAME TEST_PATH CONCURRENCY [stestr filter...]
run_suite() {
  local name=$1 test_path=$2 concurrency=$3; shift 3
  local counts listed rc list_rc
  counts=$(mktemp)
  listed=$("$VENV/bin/stestr" --test-path "$test_path" list "$@" 2>&1)
  list_rc=$?
  if [ "$list_rc" = 0 ] && ! grep -q '^tests\.' <<<"$listed"; then
    log "$name: no tests${*:+ match $*}"
    rm -f "$counts"
    return 0
  fi
  log "$name tests ($test_path)"
  "$VENV/bin/stestr" --test-path "$test_path" run --subunit \
      --concurrency "$concurrency" "$@" </dev/null \
    | "$VENV/bin/python" tools/subunit_trace.py "$counts"
  rc=${PIPESTATUS[0]}
  local p=0 f=0 s=0
  if [ -s "$counts" ]; then
    read -r p f s <"$counts"
    tail -n +2 "$counts" >>"$failures"
  fi
  rm -f "$counts"
  if [ "$rc" != 0 ] || { [ "$list_rc" != 0 ] && [ "$f" = 0 ]; }; then
    # The runner itself broke (an import error, a crashed worker): say so
    # and count it, so the summary can never look green.
    printf 'run-tests: the %s run failed (stestr exit %s)\n' "$name" "$rc" >&2
    ((f == 0)) && f=1
  fi
  log "$name: $p passed, $f failed, $s skipped"
  passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
}

# run_functional NAME CONCURRENCY [stestr filter...]
run_functional() {
  local name=$1; shift
  if ensure_rabbitmq && ensure_mariadb; then
    run_suite "$name" ./tests/functional "$@"
  else
    echo "run-tests: the $name tests did not run: RabbitMQ or MariaDB is down"
    failed=$((failed + 1))
  fi
}

ensure_venv
# stestr list needs the results repository, which only stestr run would create.
[ -d .stestr ] || "$VENV/bin/stestr" init >/dev/null || die "stestr init failed"

case "$suite" in
  unit) run_suite unit ./tests/unit 0 "$@" ;;
  functional) run_functional functional "$FUNCTIONAL_CONCURRENCY" "$@" ;;
  eventlet)
    [ $# -gt 0 ] || set -- boot
    NOVA_LITE_CONCURRENCY_BACKEND=eventlet run_functional eventlet 1 "$@" ;;
  all)
    run_suite unit ./tests/unit 0 "$@"
    run_functional functional "$FUNCTIONAL_CONCURRENCY" "$@" ;;
esac

status=0
[ "$failed" = 0 ] || status=1
if [ $# -gt 0 ] && ((passed + failed + skipped == 0)); then
  echo "run-tests: no test matched: $*"
  status=1
fi
# The failed tests again, just above the summary, where a log cut to its
# tail still shows them.
[ -s "$failures" ] && cat "$failures"
printf '%d passed, %d failed, %d skipped\n' "$passed" "$failed" "$skipped"
exit "$status"
