# Process handling shared by the scripts that run a server for the tests
# (kafka.sh, registry.sh, s3.sh). Sourced after the script has set STATE,
# PIDFILE and OUTFILE (and JAVA, for need_java) and defined log, die and
# proc_alive (whose test of the process's command line is the script's own).

need_java() { # WHAT
  command -v "$JAVA" >/dev/null 2>&1 || die "java not found ($1 needs Java 17+)"
  local v
  v="$("$JAVA" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = //p')"
  [[ "${v%%.*}" =~ ^[0-9]+$ && "${v%%.*}" -ge 17 ]] || die "Java 17+ required, found '${v:-unknown}' ($JAVA)"
}

read_pid() {
  [[ -f "$PIDFILE" ]] || return 1
  local pid
  pid="$(cat "$PIDFILE" 2>/dev/null || true)"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  printf '%s' "$pid"
}

# One script at a time per state directory.
lock_state() {
  mkdir -p "$STATE"
  exec 9>"$STATE/.lock"
  flock 9
}

stop_proc() { # SECONDS to wait for a clean stop before SIGKILL
  local pid
  pid="$(read_pid)" || return 0
  if proc_alive; then
    kill -TERM "$pid" 2>/dev/null || true
    local i
    for ((i = 0; i < $1 * 10; i++)); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
      log "pid $pid did not stop within $1s; killing"
      kill -KILL "$pid" 2>/dev/null || true
      while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
    fi
  fi
  rm -f "$PIDFILE"
}

# Waits until READY_CMD succeeds; fails (with the server's last log lines) if
# the process dies first or TIMEOUT seconds pass, stopping it in the latter case.
# Whether the process this script has just started is still there. Not
# proc_alive: right after the fork its command line is still the shell's until
# setsid has exec'd the server, which a loaded machine can stretch past the
# first check; a pid this script has just written is not a reused one.
started_alive() {
  local pid
  pid="$(read_pid)" || return 1
  kill -0 "$pid" 2>/dev/null
}

await_ready() { # NAME TIMEOUT STOP_SECONDS POLL_SECONDS READY_CMD...
  local name="$1" timeout="$2" stop_secs="$3" poll="$4"
  shift 4
  local deadline=$((SECONDS + timeout))
  until "$@"; do
    if ! started_alive; then
      tail -n 40 "$OUTFILE" >&2 || true
      rm -f "$PIDFILE"
      die "$name exited during startup"
    fi
    if ((SECONDS >= deadline)); then
      tail -n 40 "$OUTFILE" >&2 || true
      stop_proc "$stop_secs"
      die "$name is not ready after ${timeout}s"
    fi
    sleep "$poll"
  done
}
