# Shell helpers shared by tools/run-tests.sh and tools/quickstart.sh:
# the project virtualenv and the local RabbitMQ and MariaDB. Sourced, not run;
# expects REPO_ROOT, VENV and SERVICE_WAIT_SECONDS to be set.

log() { printf '==> %s\n' "$*"; }
die() { printf '%s: %s\n' "$(basename "$0")" "$*" >&2; exit 2; }

# The *_ready and port_open functions run through wait_for.
# shellcheck disable=SC2317
port_open() {  # host port
  timeout 2 bash -c ": </dev/tcp/$1/$2" 2>/dev/null
}

wait_for() {  # description command...
  local what=$1; shift
  local deadline=$((SECONDS + SERVICE_WAIT_SECONDS))
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS >= deadline)); then
      echo "$(basename "$0"): $what is not up after ${SERVICE_WAIT_SECONDS}s" >&2
      return 1
    fi
    sleep 1
  done
}

apt_install() {  # package...
  command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ] || return 1
  log "installing $* from the distribution's packages"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" </dev/null \
    >/dev/null 2>&1 || {
    apt-get update -q </dev/null >/dev/null 2>&1
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" </dev/null >/dev/null
  }
}

# shellcheck disable=SC2317
rabbitmq_ready() {
  port_open 127.0.0.1 5672 && rabbitmqctl -q await_startup --timeout 5
}

ensure_rabbitmq() {
  if ! command -v rabbitmqctl >/dev/null 2>&1; then
    apt_install rabbitmq-server || {
      echo "$(basename "$0"): RabbitMQ is not installed (no rabbitmqctl)" >&2; return 1; }
  fi
  if ! rabbitmqctl status >/dev/null 2>&1; then
    log "starting RabbitMQ"
    rabbitmq-server -detached </dev/null >/dev/null 2>&1 || true
  fi
  wait_for "RabbitMQ (127.0.0.1:5672)" rabbitmq_ready
}

# shellcheck disable=SC2317
mariadb_ready() {
  mysqladmin -uroot -h127.0.0.1 ping
}

ensure_mariadb() {
  if ! command -v mysqladmin >/dev/null 2>&1 || [ ! -x /usr/sbin/mariadbd ]; then
    apt_install mariadb-server mariadb-client || {
      echo "$(basename "$0"): MariaDB is not installed (no mysqladmin or mariadbd)" >&2; return 1; }
  fi
  if ! mysqladmin -uroot ping >/dev/null 2>&1; then
    log "starting MariaDB"
    install -d -o mysql -g mysql /run/mysqld 2>/dev/null || true
    start-stop-daemon --start --oknodo --background \
      --exec /usr/sbin/mariadbd </dev/null >/dev/null 2>&1 || true
  fi
  wait_for "MariaDB (127.0.0.1:3306)" mariadb_ready
}

ensure_venv() {
  if [ ! -x "$VENV/bin/python" ]; then
    log "creating $VENV"
    python3 -m venv "$VENV" || die "python3 -m venv $VENV failed"
  fi
  # Reinstall only when what pins the environment changed, or the checkout moved.
  local key stamp
  key=$(cat constraints.txt requirements.txt test-requirements.txt setup.cfg pyproject.toml \
        <(printf '%s\n' "$REPO_ROOT") | sha256sum | cut -c1-16)
  stamp="$VENV/.nova-lite-deps-$key"
  if [ ! -e "$stamp" ]; then
    log "installing requirements into $VENV"
    local pip_log="$VENV/pip-install.log"
    if ! PIP_NO_INPUT=1 "$VENV/bin/python" -m pip install --disable-pip-version-check \
        -c constraints.txt -r requirements.txt -r test-requirements.txt -e . \
        </dev/null >"$pip_log" 2>&1; then
      tail -n 40 "$pip_log" >&2
      die "pip install failed; the whole log is in $pip_log"
    fi
    rm -f "$VENV"/.nova-lite-deps-*
    : >"$stamp"
  fi
}

