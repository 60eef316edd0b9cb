#!/usr/bin/env bash
# Schema registry for tests: Apicurio Registry (in-memory storage), which
# serves the Confluent-compatible REST API under /apis/ccompat/v7.
#
#   scripts/registry.sh up        start (no-op if already running); waits until ready
#   scripts/registry.sh down      stop and wait
#   scripts/registry.sh status    exit 0 if the registry answers
#   scripts/registry.sh url       print the Confluent-compatible base URL
#
# The application (a Quarkus runner jar with its lib/ folder, the
# io.apicurio:apicurio-registry-app:<version>:zip:all artifact) comes from
# Maven Central once and is cached in
#   ${WEIR_CACHE:-~/.cache/weir}/apicurio-registry-<version>
# Listens on 127.0.0.1:${WEIR_REGISTRY_PORT:-58081} only. Schemas live in
# memory: a restart forgets them. State (pid, log) lives in
# ${WEIR_REGISTRY_STATE:-<repo>/.weir/registry[-<port>]}; registry.out there is its log.
set -euo pipefail

VERSION="${WEIR_REGISTRY_VERSION:-2.6.13.Final}"
PORT="${WEIR_REGISTRY_PORT:-58081}"
HOST=127.0.0.1
READY_TIMEOUT="${WEIR_REGISTRY_READY_TIMEOUT:-90}"
HEAP="${WEIR_REGISTRY_HEAP:-384m}"

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE_ROOT="${WEIR_CACHE:-${HOME:-/tmp}/.cache/weir}"
DIST="$CACHE_ROOT/apicurio-registry-$VERSION"
JAR="$DIST/apicurio-registry-app-$VERSION-runner.jar"
DEFAULT_STATE="$REPO_ROOT/.weir/registry"
[[ "$PORT" == 58081 ]] || DEFAULT_STATE="$REPO_ROOT/.weir/registry-$PORT"
STATE="${WEIR_REGISTRY_STATE:-$DEFAULT_STATE}"
PIDFILE="$STATE/registry.pid"
OUTFILE="$STATE/registry.out"
BASE="http://$HOST:$PORT/apis/ccompat/v7"

JAVA="java"
if [[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/java" ]]; then
  JAVA="$JAVA_HOME/bin/java"
fi

log() { printf 'registry.sh: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
# shellcheck source=lib/service.sh
source "$REPO_ROOT/scripts/lib/service.sh"


fetch_app() {
  [[ -f "$DIST/.complete" ]] && return 0
  command -v mvn >/dev/null 2>&1 || die "mvn not found; needed once to fetch Apicurio Registry"
  mkdir -p "$DIST"
  exec 8>"$DIST/.fetch.lock"
  flock 8
  if [[ -f "$DIST/.complete" ]]; then
    exec 8>&-
    return 0
  fi
  log "fetching Apicurio Registry $VERSION from Maven Central into $DIST"
  local tmp
  tmp="$(mktemp -d "$DIST/.fetch.XXXXXX")"
  if ! mvn -B -q dependency:copy \
      -Dartifact="io.apicurio:apicurio-registry-app:$VERSION:zip:all" \
      -DoutputDirectory="$tmp" >"$tmp/mvn.log" 2>&1; then
    cat "$tmp/mvn.log" >&2
    rm -rf "$tmp"
    die "maven could not fetch io.apicurio:apicurio-registry-app:$VERSION:zip:all"
  fi
  local zip="$tmp/apicurio-registry-app-$VERSION-all.zip"
  if command -v unzip >/dev/null 2>&1; then
    unzip -q -o "$zip" -d "$tmp/app"
  else
    mkdir -p "$tmp/app" && (cd "$tmp/app" && jar xf "$zip")
  fi
  [[ -f "$tmp/app/apicurio-registry-app-$VERSION-runner.jar" ]] || { rm -rf "$tmp"; die "runner jar missing after fetch"; }
  (cd "$tmp/app" && cp -r . "$DIST/")
  rm -rf "$tmp"
  touch "$DIST/.complete"
  exec 8>&-
  log "cached $(find "$DIST/lib" -name '*.jar' | wc -l) jars"
}


# True if the pid file names a live registry started for this port.
proc_alive() {
  local pid
  pid="$(read_pid)" || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "-Dquarkus.http.port=$PORT "
}

port_open() { (exec 3<>"/dev/tcp/$HOST/$PORT") 2>/dev/null; }

answers() {
  curl -fsS --max-time 5 -o /dev/null "$BASE/subjects" 2>/dev/null
}



cmd_up() {
  need_java "Apicurio Registry $VERSION"
  command -v curl >/dev/null 2>&1 || die "curl not found"
  fetch_app
  lock_state
  if proc_alive && answers; then
    log "already running (pid $(read_pid)) on $BASE"
    return 0
  fi
  if proc_alive; then
    log "process $(read_pid) exists but does not answer; restarting"
    stop_proc 30
  fi
  rm -f "$PIDFILE"
  port_open && die "port $HOST:$PORT is already in use by another process"

  : >"$OUTFILE"
  # Loopback only; in-memory (H2) storage; no authentication (tests only).
  # setsid and redirected stdio: callers capturing our output are not held open.
  setsid "$JAVA" -Xms64m -Xmx"$HEAP" -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
    -XX:+ExitOnOutOfMemoryError -Djava.awt.headless=true \
    -Dquarkus.http.host=$HOST -Dquarkus.http.port="$PORT" \
    -jar "$JAR" </dev/null >>"$OUTFILE" 2>&1 9>&- &
  echo $! >"$PIDFILE"
  log "starting Apicurio Registry $VERSION (pid $!) on $HOST:$PORT"

  await_ready "the registry" "$READY_TIMEOUT" 30 0.3 answers
  log "ready on $BASE"
}

cmd_down() {
  lock_state
  if proc_alive; then
    log "stopping (pid $(read_pid))"
    stop_proc 30
    log "stopped"
  else
    rm -f "$PIDFILE"
    log "not running"
  fi
}

cmd_status() {
  if proc_alive && answers; then
    echo "registry: up (pid $(read_pid)) on $BASE"
    return 0
  fi
  echo "registry: down"
  return 1
}

usage() {
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}" >&2
  exit 2
}

case "${1:-}" in
  up) cmd_up ;;
  down) cmd_down ;;
  status) cmd_status ;;
  url) echo "$BASE" ;;
  *) usage ;;
esac
