#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# devcluster.sh - build / start / stop a local dev cluster (N nodes in one JVM, all on 127.0.0.1):
# OpenSearch 2.19.6 by default, or --engine opensearch3 | opensearch1 | elasticsearch8 |
# elasticsearch9 | elasticsearch7.
# See deploy/devcluster/README.md and deploy/devcluster-es/README.md.
#
#   scripts/devcluster.sh build [--engine E]
#   scripts/devcluster.sh start [--engine E] [--nodes N] [--http-port P] [--transport-port T] [--state-dir DIR] [-- LAUNCHER-ARGS...]
#   scripts/devcluster.sh stop [--state-dir DIR]
#   scripts/devcluster.sh status [--state-dir DIR]
#
# start prints the node URLs on stdout, one per line, node 0 first; everything else goes to stderr.
# LAUNCHER-ARGS after "--" go to the launcher; --setting key=value (repeatable) adds a node
# setting to every node, e.g. a small write thread pool that rejects under load (static
# settings, so at start only):
#   start --engine elasticsearch8 -- --setting thread_pool.write.size=1 --setting thread_pool.write.queue_size=16
#
# Environment:
#   BF_STATE_DIR                 default state dir is $BF_STATE_DIR, else <repo>/.state/devcluster
#   BF_DEVCLUSTER_PORT           default HTTP port of node 0 (9200); node i gets port+i
#   BF_DEVCLUSTER_TRANSPORT_PORT default transport port of node 0 (HTTP port + 100)
#   BF_DEVCLUSTER_TIMEOUT        seconds to wait for GREEN on start (240)
#   BF_DEVCLUSTER_STOP_TIMEOUT   seconds to wait after SIGTERM before SIGKILL (60)
#   BF_DEVCLUSTER_HEAP           JVM heap, e.g. 2g (default 1g per node, at most 6g)
#   BF_DEVCLUSTER_MAX_LIFETIME   launcher self-stop after this many seconds (7200)
#   BF_DEVCLUSTER_JAVA           java binary (default: java on PATH; OpenSearch 3: a Java 21+)
#   BF_DEVCLUSTER_OPENSEARCH     2 (default: OpenSearch 2.19.6, deploy/devcluster, Java 17+) or
#                                3 (OpenSearch 3.8.0, deploy/devcluster-os3, Java 21+)
#   BF_DEVCLUSTER_ENGINE         opensearch2 | opensearch3 | opensearch1 (1.3.20,
#                                deploy/devcluster-os1, Java 17+) | elasticsearch8 (8.17.0,
#                                deploy/devcluster-es8, Java 17+) | elasticsearch9 (9.5.3,
#                                deploy/devcluster-es9, Java 21+) | elasticsearch7 (7.17.29,
#                                deploy/devcluster-es7, Java 17+); --engine overrides it
#   BF_DEVCLUSTER_LOG_LEVEL      OpenSearch console log level (warn)
#   BF_DEVCLUSTER_SCRIPTING      1: the OpenSearch 2 dev cluster loads lang-painless and lang-expression too
set -u

SCRIPT_DIR=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$SCRIPT_DIR/.." && pwd)
OS_MAJOR=${BF_DEVCLUSTER_OPENSEARCH:-2}
ENGINE=${BF_DEVCLUSTER_ENGINE:-opensearch$OS_MAJOR}
# --engine E anywhere before a "--" picks the engine (it is removed from the arguments)
ARGS=()
while [ $# -gt 0 ]; do
    case "$1" in
        --engine) ENGINE=${2:-}; shift 2 || shift ;;
        --engine=*) ENGINE=${1#*=}; shift ;;
        --) ARGS+=("$@"); break ;;
        *) ARGS+=("$1"); shift ;;
    esac
done
set -- ${ARGS[@]+"${ARGS[@]}"}

die() { echo "devcluster: ERROR: $*" >&2; exit 1; }
note() { echo "devcluster: $*" >&2; }

# the feature version of a java binary (17, 21, 25), 0 if it does not run
java_feature() {
    "$1" -XshowSettings:properties -version 2>&1 |
        awk -F'= ' '/java.specification.version/ { print $2; found = 1 } END { if (!found) print 0 }'
}

# a java binary of at least feature version $1: BF_DEVCLUSTER_JAVA, java on PATH, /usr/lib/jvm/*
find_java() {
    JAVA_BIN=${BF_DEVCLUSTER_JAVA:-}
    if [ -z "$JAVA_BIN" ]; then
        for j in java /usr/lib/jvm/*/bin/java; do
            command -v "$j" >/dev/null 2>&1 || continue
            if [ "$(java_feature "$j")" -ge "$1" ] 2>/dev/null; then
                JAVA_BIN=$j
                break
            fi
        done
    fi
}

IS_ES=0
case "$ENGINE" in
    opensearch2) OS_MAJOR=2 ;;
    opensearch3) OS_MAJOR=3 ;;
    elasticsearch8)
        IS_ES=1; OS_MAJOR=es8
        DC_DIR="$REPO/deploy/devcluster-es8"
        find_java 17
        [ -n "$JAVA_BIN" ] || die "Elasticsearch 8 needs Java 17 or newer and none was found (java on PATH, /usr/lib/jvm/*): apt-get install -y openjdk-17-jdk-headless or set BF_DEVCLUSTER_JAVA"
        ;;
    elasticsearch9)
        IS_ES=1; OS_MAJOR=es9
        DC_DIR="$REPO/deploy/devcluster-es9"
        find_java 21
        [ -n "$JAVA_BIN" ] || die "Elasticsearch 9 needs Java 21 or newer and none was found (java on PATH, /usr/lib/jvm/*): install one (e.g. a Temurin 21+ JDK) or set BF_DEVCLUSTER_JAVA"
        ;;
    # the class-path launchers (deploy/devcluster-common ClasspathLauncher): Elasticsearch 7.17
    # and OpenSearch 1.3 take their plugins from the class path, the 7.x way
    elasticsearch7)
        OS_MAJOR=es7
        DC_DIR="$REPO/deploy/devcluster-es7"
        find_java 17
        [ -n "$JAVA_BIN" ] || die "Elasticsearch 7.17 needs Java 17 (or 11) and none was found: apt-get install -y openjdk-17-jdk-headless or set BF_DEVCLUSTER_JAVA"
        ;;
    opensearch1)
        OS_MAJOR=os1
        DC_DIR="$REPO/deploy/devcluster-os1"
        find_java 17
        [ -n "$JAVA_BIN" ] || die "OpenSearch 1.3 needs Java 17 (or 11) and none was found: apt-get install -y openjdk-17-jdk-headless or set BF_DEVCLUSTER_JAVA"
        ;;
    *) die "--engine must be opensearch2, opensearch3, opensearch1, elasticsearch8, elasticsearch9 or elasticsearch7, got '$ENGINE'" ;;
esac

case "$OS_MAJOR" in
    es8|es9|es7|os1) ;;
    2)
        DC_DIR="$REPO/deploy/devcluster"
        JAVA_BIN=${BF_DEVCLUSTER_JAVA:-java}
        ;;
    3)
        DC_DIR="$REPO/deploy/devcluster-os3"
        # OpenSearch 3 needs Java 21+: the given one, else java on PATH, else a JDK under
        # /usr/lib/jvm (Temurin 25 on the test machine)
        JAVA_BIN=${BF_DEVCLUSTER_JAVA:-}
        if [ -z "$JAVA_BIN" ]; then
            for j in java /usr/lib/jvm/*/bin/java; do
                command -v "$j" >/dev/null 2>&1 || continue
                if [ "$(java_feature "$j")" -ge 21 ] 2>/dev/null; then
                    JAVA_BIN=$j
                    break
                fi
            done
        fi
        [ -n "$JAVA_BIN" ] || die "OpenSearch 3 needs Java 21 or newer and none was found (java on PATH, /usr/lib/jvm/*): install one (e.g. a Temurin 21+ JDK) or set BF_DEVCLUSTER_JAVA"
        ;;
    *) die "BF_DEVCLUSTER_OPENSEARCH must be 2 or 3, got '$OS_MAJOR'" ;;
esac
JAR="$DC_DIR/target/devcluster.jar"

# usage — the header comment after the SPDX line (the synopsis and the environment) on stdout
# (--help: a user reads it: it began with the licence line)
usage() {
    sed -n '3,/^set -u/p' "$0" | sed -n 's/^# \{0,1\}//p'
}

# ---------------------------------------------------------------------------------------------
# build

needs_build() {
    [ -f "$JAR" ] || return 0
    [ -d "$DC_DIR/target/lib" ] || return 0
    [ -n "$(find "$DC_DIR/pom.xml" "$DC_DIR/src" "$REPO/deploy/devcluster-common/src" "$REPO/deploy/devcluster-es/src" -newer "$JAR" -print -quit 2>/dev/null)" ] && return 0
    return 1
}

cmd_build() {
    if ! needs_build; then
        return 0
    fi
    command -v mvn >/dev/null 2>&1 || die "mvn not found (install Maven 3.8+: apt-get install -y maven)"
    command -v "$JAVA_BIN" >/dev/null 2>&1 || die "java not found (install a JDK 17: apt-get install -y openjdk-17-jdk-headless)"
    note "building $JAR ..."
    local log
    log=$(mktemp "${TMPDIR:-/tmp}/devcluster-build.XXXXXX")
    # Maven compiles with the JDK that runs the cluster (OpenSearch 3 needs --release 21)
    local java_home
    java_home=$(dirname "$(dirname "$(readlink -f "$(command -v "$JAVA_BIN")")")")
    if ! JAVA_HOME="$java_home" mvn -B -q -Dstyle.color=never -f "$DC_DIR/pom.xml" -DskipTests package >"$log" 2>&1; then
        tail -n 60 "$log" >&2
        rm -f "$log"
        die "maven build of deploy/devcluster failed"
    fi
    rm -f "$log"
    [ -f "$JAR" ] || die "build finished but $JAR is missing"
    touch "$JAR"
}

# ---------------------------------------------------------------------------------------------
# helpers

STATE_DIR=${BF_STATE_DIR:-$REPO/.state/devcluster}

set_paths() {
    mkdir -p "$STATE_DIR" || die "cannot create state dir $STATE_DIR"
    STATE_DIR=$(cd "$STATE_DIR" && pwd)
    PID_FILE="$STATE_DIR/devcluster.pid"
    LOG_FILE="$STATE_DIR/devcluster.log"
    READY_FILE="$STATE_DIR/ready"
    DATA_DIR="$STATE_DIR/data"
}

# is PID alive (a zombie counts as dead)?
alive() {
    kill -0 "$1" 2>/dev/null || return 1
    if [ -r "/proc/$1/stat" ]; then
        local st
        st=$(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)
        [ "$st" = Z ] && return 1
    fi
    return 0
}

# is PID alive and our launcher for this state dir?
is_ours() {
    local pid=$1
    [ -n "$pid" ] || return 1
    alive "$pid" || return 1
    if [ -r "/proc/$pid/cmdline" ]; then
        local cl
        cl=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)
        case "$cl" in
            *devcluster.jar*"$READY_FILE"*) return 0 ;;
            *) return 1 ;;
        esac
    fi
    return 0
}

read_pid() {
    [ -f "$PID_FILE" ] && tr -dc '0-9' <"$PID_FILE"
}

port_in_use() {
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

healthy() { # $1 = base url
    local h
    h=$(curl -s -m 5 "$1/_cluster/health" 2>/dev/null) || return 1
    case "$h" in
        *'"status":"green"'* | *'"status":"yellow"'*) return 0 ;;
    esac
    return 1
}

# SIGTERM, wait, SIGKILL. $1 = pid
terminate() {
    local pid=$1 limit=${2:-${BF_DEVCLUSTER_STOP_TIMEOUT:-60}} i=0
    kill -TERM "$pid" 2>/dev/null || return 0
    while alive "$pid"; do
        if [ $i -ge $((limit * 5)) ]; then
            note "pid $pid still alive ${limit}s after SIGTERM, sending SIGKILL"
            kill -KILL "$pid" 2>/dev/null
            sleep 1
            break
        fi
        sleep 0.2
        i=$((i + 1))
    done
    wait "$pid" 2>/dev/null
    return 0
}

cleanup_state() {
    rm -f "$PID_FILE" "$READY_FILE" "$READY_FILE.tmp"
    rm -rf "$DATA_DIR"
}

# ---------------------------------------------------------------------------------------------
# start

cmd_start() {
    local nodes=1 http_port=${BF_DEVCLUSTER_PORT:-9200} transport_port=${BF_DEVCLUSTER_TRANSPORT_PORT:-}
    local extra=()
    while [ $# -gt 0 ]; do
        case "$1" in
            --nodes) nodes=${2:?--nodes needs a value}; shift 2 ;;
            --nodes=*) nodes=${1#*=}; shift ;;
            --http-port) http_port=${2:?--http-port needs a value}; shift 2 ;;
            --http-port=*) http_port=${1#*=}; shift ;;
            --transport-port) transport_port=${2:?--transport-port needs a value}; shift 2 ;;
            --transport-port=*) transport_port=${1#*=}; shift ;;
            --state-dir) STATE_DIR=${2:?--state-dir needs a value}; shift 2 ;;
            --state-dir=*) STATE_DIR=${1#*=}; shift ;;
            --) shift; extra=("$@"); break ;;
            -h|--help) usage; exit 0 ;;
            *) die "start: unknown argument '$1' (see: $0 --help)" ;;
        esac
    done
    case "$nodes" in ''|*[!0-9]*) die "--nodes must be a number, got '$nodes'" ;; esac
    case "$http_port" in ''|*[!0-9]*) die "--http-port must be a number, got '$http_port'" ;; esac
    [ "$nodes" -ge 1 ] && [ "$nodes" -le 9 ] || die "--nodes must be between 1 and 9"
    [ -n "$transport_port" ] || transport_port=$((http_port + 100))
    case "$transport_port" in *[!0-9]*) die "--transport-port must be a number" ;; esac
    set_paths
    command -v curl >/dev/null 2>&1 || die "curl not found (apt-get install -y curl)"

    local timeout=${BF_DEVCLUSTER_TIMEOUT:-240}
    local pid
    pid=$(read_pid)

    # --- an existing cluster from this state dir?
    if [ -n "$pid" ] && is_ours "$pid"; then
        if [ -f "$READY_FILE" ]; then
            local have_nodes have_url
            have_nodes=$(grep -c '^http' "$READY_FILE")
            have_url=$(head -n 1 "$READY_FILE")
            if [ "$have_nodes" != "$nodes" ] || [ "$have_url" != "http://127.0.0.1:$http_port" ]; then
                die "a dev cluster (pid $pid, $have_nodes node(s) at $have_url) is already running from $STATE_DIR; run '$0 stop --state-dir $STATE_DIR' first"
            fi
            if healthy "$have_url"; then
                note "reusing running dev cluster (pid $pid)"
                cat "$READY_FILE"
                return 0
            fi
            note "running dev cluster (pid $pid) is not healthy; restarting it"
            terminate "$pid"
            cleanup_state
        else
            note "a dev cluster (pid $pid) is starting from $STATE_DIR; waiting for it"
            wait_ready "$pid" "$timeout" "$http_port"
            return $?
        fi
    elif [ -n "$pid" ]; then
        note "removing stale state of dead pid $pid"
        cleanup_state
    else
        rm -f "$READY_FILE" "$READY_FILE.tmp"
        rm -rf "$DATA_DIR"
    fi

    # --- ports free?
    local i p
    for i in $(seq 0 $((nodes - 1))); do
        p=$((http_port + i))
        port_in_use "$p" && die "HTTP port $p on 127.0.0.1 is already in use by another process (needed for node-$i; pick another with --http-port or BF_DEVCLUSTER_PORT)"
        p=$((transport_port + i))
        port_in_use "$p" && die "transport port $p on 127.0.0.1 is already in use by another process (needed for node-$i; pick another with --transport-port)"
    done

    cmd_build || exit 1

    local heap=${BF_DEVCLUSTER_HEAP:-}
    if [ -z "$heap" ]; then
        heap=$((nodes > 6 ? 6 : nodes))g
    fi
    local heap_mb
    case "$heap" in
        *[gG]) heap_mb=$(( ${heap%[gG]} * 1024 )) ;;
        *[mM]) heap_mb=${heap%[mM]} ;;
        *) die "BF_DEVCLUSTER_HEAP must look like 2g or 1536m, got '$heap'" ;;
    esac
    local launcher_wait=$timeout
    [ "$timeout" -gt 20 ] && launcher_wait=$((timeout - 10))

    ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

    # OpenSearch's own jvm.options: COMPAT before JDK 23 (it is gone in 23), CLDR from 23 on
    local locale_providers=SPI,COMPAT
    [ "$(java_feature "$JAVA_BIN")" -ge 23 ] 2>/dev/null && locale_providers=SPI,CLDR
    local engine_opts=(
        "-Djava.locale.providers=$locale_providers"
        -Dopensearch.set.netty.runtime.available.processors=false
    )
    # Elasticsearch: the server and its libraries are Java modules (lib/ on the module path, as
    # the distribution starts them); the launcher is on the class path; CLDR locales
    local main=(-jar "$JAR")
    if [ "$OS_MAJOR" = es7 ]; then
        engine_opts=("-Djava.locale.providers=$locale_providers" -Des.set.netty.runtime.available.processors=false)
    fi
    if [ "$IS_ES" = 1 ]; then
        engine_opts=(-Des.set.netty.runtime.available.processors=false)
        main=(-cp "$JAR" --module-path "$DC_DIR/target/lib" --add-modules ALL-MODULE-PATH
              io.bulkfleet.devcluster.EsLauncher)
    fi
    local jvm=(
        "-Xms$heap" "-Xmx$heap" "-XX:MaxDirectMemorySize=$((heap_mb / 2))m"
        -XX:+UseG1GC -XX:G1ReservePercent=25 -XX:InitiatingHeapOccupancyPercent=30
        -Xss1m -Djava.awt.headless=true -Dfile.encoding=UTF-8 -XX:-OmitStackTraceInFastThrow
        -Dio.netty.noUnsafe=true -Dio.netty.noKeySetOptimization=true
        -Dio.netty.recycler.maxCapacityPerThread=0 -Dio.netty.allocator.numDirectArenas=0
        -Dlog4j.shutdownHookEnabled=false -Dlog4j2.disable.jmx=true
        -Djna.nosys=true "${engine_opts[@]}"
        "-Ddevcluster.log.level=${BF_DEVCLUSTER_LOG_LEVEL:-warn}"
        -XX:+HeapDumpOnOutOfMemoryError "-XX:HeapDumpPath=$STATE_DIR"
    )
    note "starting $nodes node(s), HTTP $http_port..$((http_port + nodes - 1)), heap $heap, log $LOG_FILE"
    START_TS=$(date +%s.%N)
    nohup "$JAVA_BIN" "${jvm[@]}" "${main[@]}" \
        --nodes "$nodes" --http-port "$http_port" --transport-port "$transport_port" \
        --data-dir "$DATA_DIR" --ready-file "$READY_FILE" \
        --wait-timeout "$launcher_wait" --max-lifetime "${BF_DEVCLUSTER_MAX_LIFETIME:-7200}" \
        ${extra[@]+"${extra[@]}"} \
        >"$LOG_FILE" 2>&1 </dev/null &
    pid=$!
    echo "$pid" >"$PID_FILE"
    wait_ready "$pid" "$timeout" "$http_port"
}

# $1 pid, $2 timeout s, $3 http port
wait_ready() {
    local pid=$1 timeout=$2 port=$3 i=0 what=""
    : "${START_TS:=$(date +%s.%N)}"
    while :; do
        if [ -f "$READY_FILE" ]; then
            break
        fi
        if ! alive "$pid"; then
            wait "$pid" 2>/dev/null
            local rc=$?
            what="the dev cluster process (pid $pid) exited with status $rc before becoming ready"
            [ "$rc" = 127 ] && what="the dev cluster process (pid $pid) exited before becoming ready"
            break
        fi
        if [ $i -ge $((timeout * 5)) ]; then
            what="the dev cluster was not ready (GREEN with all nodes) within ${timeout}s (BF_DEVCLUSTER_TIMEOUT)"
            break
        fi
        sleep 0.2
        i=$((i + 1))
    done
    if [ -n "$what" ]; then
        echo "devcluster: ERROR: $what" >&2
        echo "devcluster: last 30 lines of $LOG_FILE:" >&2
        tail -n 30 "$LOG_FILE" 2>/dev/null | sed 's/^/    /' >&2
        terminate "$pid" 30
        cleanup_state
        exit 1
    fi
    local secs
    secs=$(awk -v a="$START_TS" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    note "ready in ${secs}s (pid $pid)"
    cat "$READY_FILE"
}

# ---------------------------------------------------------------------------------------------
# stop / status

parse_state_dir_only() {
    while [ $# -gt 0 ]; do
        case "$1" in
            --state-dir) STATE_DIR=${2:?--state-dir needs a value}; shift 2 ;;
            --state-dir=*) STATE_DIR=${1#*=}; shift ;;
            -h|--help) usage; exit 0 ;;
            *) die "unknown argument '$1'" ;;
        esac
    done
}

cmd_stop() {
    parse_state_dir_only "$@"
    if [ ! -d "$STATE_DIR" ]; then
        note "not running"
        return 0
    fi
    set_paths
    local pid
    pid=$(read_pid)
    if [ -n "$pid" ] && is_ours "$pid"; then
        terminate "$pid"
        if alive "$pid"; then
            die "pid $pid survived SIGKILL"
        fi
        note "stopped (pid $pid)"
    else
        note "not running"
    fi
    cleanup_state
    return 0
}

cmd_status() {
    parse_state_dir_only "$@"
    if [ ! -d "$STATE_DIR" ]; then
        echo "not running"
        return 1
    fi
    set_paths
    local pid
    pid=$(read_pid)
    if [ -n "$pid" ] && is_ours "$pid"; then
        if [ -f "$READY_FILE" ]; then
            local url health
            url=$(head -n 1 "$READY_FILE")
            health=$(curl -s -m 5 "$url/_cluster/health" 2>/dev/null | sed -n 's/.*"status":"\([a-z]*\)".*/\1/p')
            echo "running (pid $pid, $(grep -c '^http' "$READY_FILE") node(s), health ${health:-unreachable}): $(paste -sd, "$READY_FILE")"
        else
            echo "running (pid $pid, starting)"
        fi
        return 0
    fi
    echo "not running"
    return 1
}

# ---------------------------------------------------------------------------------------------

sub=${1:-}
[ $# -gt 0 ] && shift
case "$sub" in
    build) cmd_build ;;
    start) cmd_start "$@" ;;
    stop) cmd_stop "$@" ;;
    status) cmd_status "$@" ;;
    -h|--help|help) usage ;;
    *) usage >&2; exit 2 ;;
esac
