#!/usr/bin/env bash
# S3-compatible object store for tests: gofakes3 (github.com/johannesboyne/gofakes3),
# a small S3 server written in Go, keeping objects in memory.
#
#   scripts/s3.sh up        build once (Go module proxy) and start (no-op if running); waits until ready
#   scripts/s3.sh down      stop and wait
#   scripts/s3.sh status    exit 0 if the server answers
#   scripts/s3.sh url       print the endpoint URL (for AWS_ENDPOINT_URL_S3)
#
# The server is built with `go install` from the Go module proxy once and
# cached in ${WEIR_CACHE:-~/.cache/weir}/gofakes3-<version>/ (about 40 s cold,
# see docs/checkpoints.md, Object storage). Listens on 127.0.0.1:${WEIR_S3_PORT:-58333}
# only, with bucket ${WEIR_S3_BUCKET:-weir-test} created at start. It accepts any
# credentials (it checks no signature): tests only. Objects live in memory: a
# restart forgets them. State (pid, log) lives in
# ${WEIR_S3_STATE:-<repo>/.weir/s3[-<port>]}; s3.out there is its log.
set -euo pipefail

VERSION="${WEIR_S3_VERSION:-v1.2.0}"
PORT="${WEIR_S3_PORT:-58333}"
BUCKET="${WEIR_S3_BUCKET:-weir-test}"
HOST=127.0.0.1
READY_TIMEOUT="${WEIR_S3_READY_TIMEOUT:-60}"

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE_ROOT="${WEIR_CACHE:-${HOME:-/tmp}/.cache/weir}"
DIST="$CACHE_ROOT/gofakes3-$VERSION"
BIN="$DIST/gofakes3"
DEFAULT_STATE="$REPO_ROOT/.weir/s3"
[[ "$PORT" == 58333 ]] || DEFAULT_STATE="$REPO_ROOT/.weir/s3-$PORT"
STATE="${WEIR_S3_STATE:-$DEFAULT_STATE}"
PIDFILE="$STATE/s3.pid"
OUTFILE="$STATE/s3.out"
URL="http://$HOST:$PORT"

log() { printf 's3.sh: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
# read_pid, lock_state and stop_proc (the Java check there is not used).
# shellcheck source=lib/service.sh
source "$REPO_ROOT/scripts/lib/service.sh"

build_server() {
  [[ -x "$BIN" && -f "$DIST/.complete" ]] && return 0
  command -v go >/dev/null 2>&1 || die "go not found; needed once to build gofakes3 $VERSION"
  mkdir -p "$DIST"
  exec 8>"$DIST/.build.lock"
  flock 8
  if [[ -x "$BIN" && -f "$DIST/.complete" ]]; then
    exec 8>&-
    return 0
  fi
  log "building gofakes3 $VERSION from the Go module proxy into $DIST"
  local tmp
  tmp="$(mktemp -d "$DIST/.build.XXXXXX")"
  if ! GOBIN="$tmp" go install "github.com/johannesboyne/gofakes3/cmd/gofakes3@$VERSION" >"$tmp/go.log" 2>&1; then
    cat "$tmp/go.log" >&2
    rm -rf "$tmp"
    die "go could not build github.com/johannesboyne/gofakes3/cmd/gofakes3@$VERSION"
  fi
  mv "$tmp/gofakes3" "$BIN"
  rm -rf "$tmp"
  touch "$DIST/.complete"
  exec 8>&-
}

# True if the pid file names a live gofakes3 started for this port.
proc_alive() {
  local pid
  pid="$(read_pid)" || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "-host $HOST:$PORT "
}

port_open() { (exec 3<>"/dev/tcp/$HOST/$PORT") 2>/dev/null; }

answers() {
  curl -fsS --max-time 5 -o /dev/null "$URL/$BUCKET?list-type=2&max-keys=1" 2>/dev/null
}

cmd_up() {
  command -v curl >/dev/null 2>&1 || die "curl not found"
  build_server
  lock_state
  if proc_alive && answers; then
    log "already running (pid $(read_pid)) on $URL"
    return 0
  fi
  if proc_alive; then
    log "process $(read_pid) exists but does not answer; restarting"
    stop_proc 10
  fi
  rm -f "$PIDFILE"
  port_open && die "port $HOST:$PORT is already in use by another process"

  : >"$OUTFILE"
  # setsid and redirected stdio: callers capturing our output are not held open.
  setsid "$BIN" -host "$HOST:$PORT" -backend memory -initialbucket "$BUCKET" -quiet \
    </dev/null >>"$OUTFILE" 2>&1 9>&- &
  echo $! >"$PIDFILE"
  log "starting gofakes3 $VERSION (pid $!) on $HOST:$PORT"

  await_ready "gofakes3" "$READY_TIMEOUT" 10 0.2 answers
  log "ready on $URL (bucket $BUCKET)"
}

cmd_down() {
  lock_state
  if proc_alive; then
    log "stopping (pid $(read_pid))"
    stop_proc 10
    log "stopped"
  else
    rm -f "$PIDFILE"
    log "not running"
  fi
}

cmd_status() {
  if proc_alive && answers; then
    echo "s3: up (pid $(read_pid)) on $URL"
    return 0
  fi
  echo "s3: down"
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
  url) echo "$URL" ;;
  *) usage ;;
esac
