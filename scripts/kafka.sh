#!/usr/bin/env bash
# Single-node Apache Kafka (KRaft, combined broker+controller) for tests.
#
#   scripts/kafka.sh up        start (no-op if already running); waits until ready
#   scripts/kafka.sh down      stop and wait
#   scripts/kafka.sh status    exit 0 if the broker is up and answers metadata
#   scripts/kafka.sh reset     stop and delete all broker state
#   scripts/kafka.sh topics ARGS...        org.apache.kafka.tools.TopicCommand
#   scripts/kafka.sh produce TOPIC         console producer, one message per stdin line
#   scripts/kafka.sh consume TOPIC [ARGS]  console consumer from the beginning
#   scripts/kafka.sh run CLASS [ARGS...]   any main class on the Kafka classpath
#
# Secure listeners (for tests of TLS and SASL): with WEIR_KAFKA_SECURE_DIR set to a
# directory holding ca.pem, server.pem and server.key (PEM; the server key
# unencrypted), 'up' adds, beside PLAINTEXT on the port:
#   SASL_SSL        on port + 2  (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER)
#   SSL             on port + 3  (client certificates signed by ca.pem required)
#   SASL_PLAINTEXT  on port + 4  (the same mechanisms as SASL_SSL)
# with one user, ${WEIR_KAFKA_SASL_USER:-weir} / ${WEIR_KAFKA_SASL_PASSWORD:-weir-secret}
# (SCRAM credentials are created when the storage is formatted, so set these
# before the first 'up' of a state directory). OAUTHBEARER uses Kafka's
# unsecured JWT validator: any unsigned token with 'sub', 'iat' and 'exp' passes.
#
# Jars come from Maven Central once and are cached in
#   ${WEIR_CACHE:-~/.cache/weir}/kafka-<version>/libs
# State (config, data, logs, pid) lives in ${WEIR_KAFKA_STATE:-<repo>/.weir/kafka}.
# Tool subcommands add --bootstrap-server 127.0.0.1:<port> unless one is given.
set -euo pipefail

KAFKA_VERSION="${WEIR_KAFKA_VERSION:-4.4.0}"
# Kafka's own distribution ships SLF4J 1.7 with the log4j2 1.x-binding; match it.
LOG4J_VERSION="${WEIR_LOG4J_VERSION:-2.25.5}"
SLF4J_VERSION="1.7.36"
PORT="${WEIR_KAFKA_PORT:-9092}"
CONTROLLER_PORT="${WEIR_KAFKA_CONTROLLER_PORT:-9093}"
HOST=127.0.0.1
READY_TIMEOUT="${WEIR_KAFKA_READY_TIMEOUT:-90}"
HEAP="${WEIR_KAFKA_HEAP:-512m}"

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE_ROOT="${WEIR_CACHE:-${HOME:-/tmp}/.cache/weir}"
DIST="$CACHE_ROOT/kafka-$KAFKA_VERSION"
LIBS="$DIST/libs"
STATE="${WEIR_KAFKA_STATE:-$REPO_ROOT/.weir/kafka}"
DATA="$STATE/data"
CONF="$STATE/server.properties"
PIDFILE="$STATE/kafka.pid"
OUTFILE="$STATE/kafka.out"
BOOTSTRAP="$HOST:$PORT"
SECURE_DIR="${WEIR_KAFKA_SECURE_DIR:-}"
SASL_USER="${WEIR_KAFKA_SASL_USER:-weir}"
SASL_PASSWORD="${WEIR_KAFKA_SASL_PASSWORD:-weir-secret}"
SASL_SSL_PORT=$((PORT + 2))
SSL_PORT=$((PORT + 3))
SASL_PLAINTEXT_PORT=$((PORT + 4))

JAVA="java"
if [[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/java" ]]; then
  JAVA="$JAVA_HOME/bin/java"
fi

log() { printf 'kafka.sh: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
# shellcheck source=lib/service.sh
source "$REPO_ROOT/scripts/lib/service.sh"

# ---------------------------------------------------------------- jars

fetch_libs() {
  if [[ -f "$LIBS/.complete" ]]; then
    return 0
  fi
  command -v mvn >/dev/null 2>&1 || die "mvn not found; needed once to fetch Kafka jars"
  mkdir -p "$DIST"
  exec 8>"$DIST/.fetch.lock"
  flock 8
  if [[ -f "$LIBS/.complete" ]]; then
    exec 8>&-
    return 0
  fi
  log "fetching Kafka $KAFKA_VERSION jars from Maven Central into $LIBS"
  local tmp
  tmp="$(mktemp -d "$DIST/.fetch.XXXXXX")"
  cat >"$tmp/pom.xml" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>weir.local</groupId>
  <artifactId>kafka-runtime</artifactId>
  <version>0</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka_2.13</artifactId><version>$KAFKA_VERSION</version></dependency>
    <dependency>
      <groupId>org.apache.kafka</groupId><artifactId>kafka-tools</artifactId><version>$KAFKA_VERSION</version>
      <!-- only needed by the connect-plugin-path tool; pulls in Jetty/Jersey -->
      <exclusions><exclusion><groupId>org.apache.kafka</groupId><artifactId>connect-runtime</artifactId></exclusion></exclusions>
    </dependency>
    <dependency><groupId>org.slf4j</groupId><artifactId>slf4j-api</artifactId><version>$SLF4J_VERSION</version></dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-api</artifactId><version>$LOG4J_VERSION</version></dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-core</artifactId><version>$LOG4J_VERSION</version></dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-slf4j-impl</artifactId><version>$LOG4J_VERSION</version></dependency>
  </dependencies>
</project>
EOF
  if ! mvn -B -q -f "$tmp/pom.xml" dependency:copy-dependencies \
      -DincludeScope=runtime -DoutputDirectory="$tmp/libs" >"$tmp/mvn.log" 2>&1; then
    cat "$tmp/mvn.log" >&2
    rm -rf "$tmp"
    die "maven could not resolve Kafka $KAFKA_VERSION"
  fi
  [[ -f "$tmp/libs/kafka_2.13-$KAFKA_VERSION.jar" ]] || { rm -rf "$tmp"; die "kafka_2.13 jar missing after fetch"; }
  touch "$tmp/libs/.complete"
  rm -rf "$LIBS"
  mv "$tmp/libs" "$LIBS"
  rm -rf "$tmp"
  exec 8>&-
  log "cached $(find "$LIBS" -name '*.jar' | wc -l) jars"
}

# ---------------------------------------------------------------- config

# The listeners' lines of server.properties.
listener_config() {
  if [[ -z "$SECURE_DIR" ]]; then
    cat <<EOF
listeners=PLAINTEXT://$HOST:$PORT,CONTROLLER://$HOST:$CONTROLLER_PORT
advertised.listeners=PLAINTEXT://$HOST:$PORT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
EOF
    return
  fi
  local tls="$STATE/tls" f l m
  mkdir -p "$tls"
  for f in ca.pem server.pem server.key; do
    [[ -r "$SECURE_DIR/$f" ]] || die "WEIR_KAFKA_SECURE_DIR: $SECURE_DIR/$f missing"
  done
  # A PEM key store is the key followed by its certificate chain.
  cat "$SECURE_DIR/server.key" "$SECURE_DIR/server.pem" >"$tls/keystore.pem"
  cp "$SECURE_DIR/ca.pem" "$tls/ca.pem"
  chmod 600 "$tls/keystore.pem"
  cat <<EOF
listeners=PLAINTEXT://$HOST:$PORT,CONTROLLER://$HOST:$CONTROLLER_PORT,SASL_SSL://$HOST:$SASL_SSL_PORT,SSL://$HOST:$SSL_PORT,SASL_PLAINTEXT://$HOST:$SASL_PLAINTEXT_PORT
advertised.listeners=PLAINTEXT://$HOST:$PORT,SASL_SSL://$HOST:$SASL_SSL_PORT,SSL://$HOST:$SSL_PORT,SASL_PLAINTEXT://$HOST:$SASL_PLAINTEXT_PORT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SASL_SSL:SASL_SSL,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT
sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512,OAUTHBEARER
ssl.keystore.type=PEM
ssl.keystore.location=$tls/keystore.pem
ssl.truststore.type=PEM
ssl.truststore.location=$tls/ca.pem
listener.name.ssl.ssl.client.auth=required
EOF
  for l in sasl_ssl sasl_plaintext; do
    echo "listener.name.$l.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_$SASL_USER=\"$SASL_PASSWORD\";"
    for m in scram-sha-256 scram-sha-512; do
      echo "listener.name.$l.$m.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;"
    done
    echo "listener.name.$l.oauthbearer.sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredLoginStringClaim_sub=\"$SASL_USER\";"
    echo "listener.name.$l.oauthbearer.sasl.server.callback.handler.class=org.apache.kafka.common.security.oauthbearer.internals.unsecured.OAuthBearerUnsecuredValidatorCallbackHandler"
  done
}

write_config() {
  mkdir -p "$STATE" "$DATA" "$STATE/logs"
  local listeners
  listeners="$(listener_config)"
  cat >"$CONF.tmp" <<EOF
# Generated by scripts/kafka.sh; rewritten on every 'up'.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@$HOST:$CONTROLLER_PORT
$listeners
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
log.dirs=$DATA
num.partitions=1
default.replication.factor=1
min.insync.replicas=1
auto.create.topics.enable=true
delete.topic.enable=true
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=1
transaction.max.timeout.ms=900000
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
# Let a process group ask for sessions from 1 s with heartbeats from 200 ms
# (weir run --session-timeout; 6 s and 1 s by default), so a killed member is
# noticed in seconds rather than 45 s (Kafka's defaults: KIP-848 groups 45 s
# and 5 s, classic groups such as a single-owner task's owners 6 s).
group.consumer.min.session.timeout.ms=1000
group.consumer.min.heartbeat.interval.ms=200
group.min.session.timeout.ms=1000
num.network.threads=2
num.io.threads=4
num.recovery.threads.per.data.dir=1
log.retention.hours=168
EOF
  mv "$CONF.tmp" "$CONF"

  # Broker logging: everything to $STATE/logs/server.log, nothing on stdout.
  cat >"$STATE/log4j2.xml" <<'EOF'
<?xml version="1.0" encoding="UTF-8"?>
<Configuration status="warn">
  <Appenders>
    <RollingFile name="server" fileName="${sys:kafka.logs.dir}/server.log"
                 filePattern="${sys:kafka.logs.dir}/server.log.%i">
      <PatternLayout pattern="[%d] %p %m (%c)%n"/>
      <Policies><SizeBasedTriggeringPolicy size="20 MB"/></Policies>
      <DefaultRolloverStrategy max="3"/>
    </RollingFile>
  </Appenders>
  <Loggers>
    <Logger name="kafka.request.logger" level="warn"/>
    <Logger name="org.apache.kafka.metadata" level="warn"/>
    <Logger name="org.apache.kafka.image" level="warn"/>
    <Root level="info"><AppenderRef ref="server"/></Root>
  </Loggers>
</Configuration>
EOF
}

# Command-line tools: warnings and errors only, to stderr.
tools_log_config() {
  local f="$DIST/log4j2-tools.xml"
  cat >"$f.$$" <<'EOF'
<?xml version="1.0" encoding="UTF-8"?>
<Configuration status="warn" shutdownHook="disable">
  <Appenders>
    <Console name="stderr" target="SYSTEM_ERR"><PatternLayout pattern="[%d] %p %m (%c)%n"/></Console>
  </Appenders>
  <Loggers>
    <Root level="warn"><AppenderRef ref="stderr"/></Root>
  </Loggers>
</Configuration>
EOF
  mv -f "$f.$$" "$f"
  printf '%s' "$f"
}

# ---------------------------------------------------------------- processes

run_tool() { # CLASS ARGS...
  local cls="$1"
  shift
  "$JAVA" -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Djava.awt.headless=true \
    -Dlog4j2.configurationFile="$(tools_log_config)" \
    -cp "$LIBS/*" "$cls" "$@"
}

# Runs a tool that takes --bootstrap-server, adding it unless given.
run_bootstrap_tool() { # CLASS ARGS...
  local cls="$1" a
  shift
  for a in "$@"; do
    if [[ "$a" == --bootstrap-server || "$a" == --bootstrap-server=* ]]; then
      run_tool "$cls" "$@"
      return
    fi
  done
  run_tool "$cls" --bootstrap-server "$BOOTSTRAP" "$@"
}


# True if the pid file names a live Kafka process started from this state dir.
proc_alive() {
  local pid
  pid="$(read_pid)" || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF "kafka.Kafka $CONF"
}

port_open() { # PORT
  (exec 3<>"/dev/tcp/$HOST/$1") 2>/dev/null
}

metadata_ok() {
  timeout 30 "$JAVA" -Xmx128m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
    -Dlog4j2.configurationFile="$(tools_log_config)" -cp "$LIBS/*" \
    org.apache.kafka.tools.TopicCommand --bootstrap-server "$BOOTSTRAP" --list \
    >/dev/null 2>&1
}

log_tail() {
  log "---- last lines of $STATE/logs/server.log ----"
  tail -n 60 "$STATE/logs/server.log" >&2 2>/dev/null || true
  if [[ -s "$OUTFILE" ]]; then
    log "---- last lines of $OUTFILE ----"
    tail -n 30 "$OUTFILE" >&2 || true
  fi
}


cmd_up() {
  need_java "Kafka $KAFKA_VERSION"
  fetch_libs
  lock_state
  if proc_alive && port_open "$PORT"; then
    log "already running (pid $(read_pid)) on $BOOTSTRAP"
    return 0
  fi
  if proc_alive; then
    log "process $(read_pid) exists but $BOOTSTRAP is closed; restarting"
    stop_proc 60
  fi
  rm -f "$PIDFILE"
  local p
  local ports=("$PORT" "$CONTROLLER_PORT")
  [[ -z "$SECURE_DIR" ]] || ports+=("$SASL_SSL_PORT" "$SSL_PORT" "$SASL_PLAINTEXT_PORT")
  for p in "${ports[@]}"; do
    if port_open "$p"; then
      die "port $HOST:$p is already in use by another process"
    fi
  done

  write_config
  if [[ ! -f "$DATA/meta.properties" ]]; then
    local cluster_id
    cluster_id="$(run_tool kafka.tools.StorageTool random-uuid)"
    log "formatting storage in $DATA (cluster id $cluster_id)"
    local scram=()
    if [[ -n "$SECURE_DIR" ]]; then
      scram=(--add-scram "SCRAM-SHA-256=[name=$SASL_USER,password=$SASL_PASSWORD]"
        --add-scram "SCRAM-SHA-512=[name=$SASL_USER,password=$SASL_PASSWORD]")
    fi
    run_tool kafka.tools.StorageTool format -t "$cluster_id" -c "$CONF" "${scram[@]}" >/dev/null
  fi

  : >"$OUTFILE"
  # setsid: detach from the caller's session; all stdio redirected so callers
  # that capture our output (CI, $(...)) are not held open by the broker.
  setsid "$JAVA" -server -Xms256m -Xmx"$HEAP" -XX:+UseG1GC -XX:MaxGCPauseMillis=20 \
    -XX:+ExitOnOutOfMemoryError -Djava.awt.headless=true \
    -Dkafka.logs.dir="$STATE/logs" -Dlog4j2.configurationFile="$STATE/log4j2.xml" \
    -cp "$LIBS/*" kafka.Kafka "$CONF" </dev/null >>"$OUTFILE" 2>&1 9>&- &
  echo $! >"$PIDFILE"
  log "starting Kafka $KAFKA_VERSION (pid $!) on $BOOTSTRAP, state in $STATE"

  local deadline=$((SECONDS + READY_TIMEOUT))
  until port_open "$PORT" && metadata_ok; do
    if ! started_alive; then
      log_tail
      rm -f "$PIDFILE"
      die "Kafka exited during startup"
    fi
    if ((SECONDS >= deadline)); then
      log_tail
      stop_proc 60
      die "Kafka not ready after ${READY_TIMEOUT}s"
    fi
    sleep 0.5
  done
  log "ready on $BOOTSTRAP"
}


cmd_down() {
  lock_state
  if proc_alive; then
    log "stopping (pid $(read_pid))"
    stop_proc 60
    log "stopped"
  else
    rm -f "$PIDFILE"
    log "not running"
  fi
}

cmd_status() {
  if proc_alive && port_open "$PORT"; then
    if [[ -f "$LIBS/.complete" ]] && metadata_ok; then
      echo "kafka: up (pid $(read_pid)) on $BOOTSTRAP, state $STATE"
      return 0
    fi
    echo "kafka: process $(read_pid) running but not answering metadata on $BOOTSTRAP"
    return 1
  fi
  echo "kafka: down"
  return 1
}

cmd_reset() {
  cmd_down
  rm -rf "$STATE"
  log "removed $STATE"
}

usage() {
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}" >&2
  exit 2
}

main() {
  local cmd="${1:-}"
  [[ $# -gt 0 ]] && shift
  case "$cmd" in
    up) cmd_up ;;
    down) cmd_down ;;
    status) cmd_status ;;
    reset) cmd_reset ;;
    topics)
      need_java "Kafka $KAFKA_VERSION"
      fetch_libs
      run_bootstrap_tool org.apache.kafka.tools.TopicCommand "$@"
      ;;
    produce)
      [[ $# -ge 1 ]] || usage
      need_java "Kafka $KAFKA_VERSION"
      fetch_libs
      local topic="$1"
      shift
      run_bootstrap_tool org.apache.kafka.tools.ConsoleProducer --topic "$topic" "$@"
      ;;
    consume)
      [[ $# -ge 1 ]] || usage
      need_java "Kafka $KAFKA_VERSION"
      fetch_libs
      local topic="$1"
      shift
      run_bootstrap_tool org.apache.kafka.tools.consumer.ConsoleConsumer --topic "$topic" --from-beginning "$@"
      ;;
    run)
      [[ $# -ge 1 ]] || usage
      need_java "Kafka $KAFKA_VERSION"
      fetch_libs
      run_tool "$@"
      ;;
    *) usage ;;
  esac
}

main "$@"
