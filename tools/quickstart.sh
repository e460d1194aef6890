#!/usr/bin/env bash
# Install nova_lite into .venv and run the whole control plane in the
# foreground until Ctrl-C or SIGTERM.
#
# With the RabbitMQ and database named in the config reachable
# (etc/nova-lite/nova-lite.conf, or $NOVA_LITE_CONF), every daemon runs as
# its own process: api :8774, placement :8778, network :9696, conductor,
# scheduler and $NOVA_LITE_COMPUTES (default 2) fake computes. Otherwise it
# says so and runs them all in one process (nova-lite-all) on the in-memory
# transport and SQLite. Either way it boots a demo server, prints the server
# list and how to reach the API, and stops every daemon it started on exit.
# Logs and generated configs go to $NOVA_LITE_STATE (default ./state).
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
REPO_ROOT=$PWD
VENV=${NOVA_LITE_VENV:-$REPO_ROOT/.venv}
SERVICE_WAIT_SECONDS=${NOVA_LITE_SERVICE_WAIT_SECONDS:-60}
CONF=${NOVA_LITE_CONF:-$REPO_ROOT/etc/nova-lite/nova-lite.conf}
STATE=${NOVA_LITE_STATE:-$REPO_ROOT/state}
COMPUTES=${NOVA_LITE_COMPUTES:-2}
API=http://127.0.0.1:8774

# shellcheck source=tools/common.sh
. tools/common.sh

ensure_venv
BIN=$VENV/bin
mkdir -p "$STATE/logs"
pids=()

stop_all() {
  trap - INT TERM EXIT
  if [ ${#pids[@]} -gt 0 ]; then
    log "stopping ${#pids[@]} daemon(s)"
    kill -TERM "${pids[@]}" 2>/dev/null
    wait "${pids[@]}" 2>/dev/null
  fi
  exit 0
}
trap stop_all INT TERM EXIT

start() {  # name command...
  local name=$1; shift
  "$@" >"$STATE/logs/$name.log" 2>&1 &
  pids+=($!)
  log "started $name (pid $!, log $STATE/logs/$name.log)"
}

# Is the broker and database of the config reachable? Prints the reason if not.
reachable=$("$BIN/python" - "$CONF" <<'PY'
import sys, warnings
warnings.filterwarnings('ignore')
from nova_lite import config, conf
config.parse_args(['--config-file', sys.argv[1]], configure_logging=False)
c = conf.CONF
try:
    import kombu
    url = c.transport_url or ''
    if not url.startswith('rabbit://'):
        raise Exception('no rabbit:// transport_url in the config')
    with kombu.Connection(url.replace('rabbit://', 'amqp://', 1),
                          connect_timeout=3) as connection:
        connection.ensure_connection(max_retries=1)
    from nova_lite.db import api as db_api
    for url in (c.api_database.connection, c.database.connection):
        if not url:
            raise Exception('no database connection in the config')
        if url.startswith('mysql'):
            import sqlalchemy as sa
            server = sa.engine.make_url(url).set(database='')
            sa.create_engine(server).connect().close()
    print('yes')
except Exception as e:
    print('no: %s' % e)
PY
)

# nova-lite-manage with this deployment's config (manage_args, set below).
manage() { "$BIN/nova-lite-manage" "${manage_args[@]}" "$@"; }

if [ "$reachable" = yes ]; then
  log "RabbitMQ and the database in $CONF are reachable: one process per daemon"
  manage_args=(--config-file "$CONF")
  manage api_db sync && manage db sync && manage cell_v2 simple_cell_setup >/dev/null \
    || die "preparing the databases failed"
  transport=$("$BIN/python" -c "
import sys; from nova_lite import config, conf
config.parse_args(['--config-file', sys.argv[1]], configure_logging=False)
print(conf.CONF.transport_url)" "$CONF" 2>/dev/null)
  common=(--config-file "$CONF" --config-file "$STATE/quickstart.conf")
  printf '[scheduler]\ndiscover_hosts_in_cells_interval = 2\n' >"$STATE/quickstart.conf"
  for daemon in conductor scheduler api placement network; do
    start "$daemon" "$BIN/nova-lite-$daemon" "${common[@]}"
  done
  for i in $(seq 1 "$COMPUTES"); do
    # Computes get no database credentials: only the broker and their name.
    printf '[DEFAULT]\nhost = compute%s\ntransport_url = %s\n' "$i" "$transport" \
      >"$STATE/compute$i.conf"
    start "compute$i" "$BIN/nova-lite-compute" --config-file "$STATE/compute$i.conf"
  done
else
  log "No broker/database reachable (${reachable#no: }):"
  log "running every service in one process on fake:// and SQLite in $STATE"
  printf '[DEFAULT]\nstate_path = %s\n[api]\nbind_host = 127.0.0.1\n' "$STATE" \
    >"$STATE/embedded.conf"
  start all "$BIN/nova-lite-all" --config-file "$STATE/embedded.conf" \
    --computes "$COMPUTES"
  # nova-lite-all writes the databases and auth it chose there at start.
  manage_args=(--config-file "$STATE/embedded.conf"
               --config-file "$STATE/nova-lite-manage.conf")
fi

# shellcheck disable=SC2317
api_up() { curl -sf "$API/" >/dev/null; }
wait_for "the Compute API on $API" api_up || die "the API did not start; see $STATE/logs"
# shellcheck disable=SC2317
hosts_up() {
  [ "$(curl -sf -H 'X-Auth-Token: admin' "$API/v2.1/os-hypervisors" \
        | grep -o '"state": "up"' | wc -l)" -ge "$COMPUTES" ]
}
wait_for "$COMPUTES computes reporting" hosts_up || die "computes did not come up; see $STATE/logs"

manage flavor list 2>/dev/null | grep -q ' m1.small ' || \
  manage flavor create m1.small --id 2 --ram 2048 --vcpus 1 --disk 20 >/dev/null
manage image list 2>/dev/null | grep -q ' cirros ' || \
  manage image create cirros --min-disk 1 >/dev/null
image=$(manage image list | awk '/ cirros /{print $2}')

log "booting a demo server"
sleep 3  # let the scheduler map the new computes
curl -sf -X POST -H 'X-Auth-Token: admin' -H 'Content-Type: application/json' \
  -d "{\"server\": {\"name\": \"demo\", \"flavorRef\": \"2\", \"imageRef\": \"$image\"}}" \
  "$API/v2.1/servers" >/dev/null || die "the demo boot was refused"
# shellcheck disable=SC2317
demo_settled() {
  curl -sf -H 'X-Auth-Token: admin' "$API/v2.1/servers/detail" \
    | grep -q -e '"status": "ACTIVE"' -e '"status": "ERROR"'
}
wait_for "the demo server" demo_settled

"$BIN/python" - "$API" <<'PY'
import json, sys, urllib.request
request = urllib.request.Request(sys.argv[1] + '/v2.1/servers/detail',
                                 headers={'X-Auth-Token': 'admin'})
servers = json.load(urllib.request.urlopen(request))['servers']
print('\n%-38s %-10s %-8s %s' % ('ID', 'NAME', 'STATUS', 'HOST'))
for s in servers:
    print('%-38s %-10s %-8s %s' % (s['id'], s['name'], s['status'],
                                  s.get('OS-EXT-SRV-ATTR:host')))
PY
cat <<TXT

nova_lite is running, authenticating nobody (noauth2), on 127.0.0.1 only.
Compute API: $API/v2.1  (token: admin:admin)
  curl -H 'X-Auth-Token: admin:admin' $API/v2.1/servers/detail
  openstack CLI: see "Using the openstack CLI and openstacksdk" in README.md
Operator commands, with this deployment's config:
  $BIN/nova-lite-manage ${manage_args[*]} audit
Logs: $STATE/logs. Press Ctrl-C to stop every daemon.
TXT
wait
