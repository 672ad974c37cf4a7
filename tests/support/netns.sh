# SPDX-License-Identifier: MIT
# netns.sh — multi-host fleet tests on one machine (sourced after tests/integration/lib.sh).
#
# Layout of net N (N = 1..9; each test script takes its own N, so scripts may run in parallel):
#
#   root namespace: bridge bfnN-br with 10.213.N.1 (TCP forwarder to the test cluster on
#                   127.0.0.1) and 10.213.N.2 (the coordinator)
#   agent host i:   namespace bfnN-ai, eth0 = 10.213.N.(10+i), veth bfnN-ai-h on the bridge
#
# Traffic goes only to 127.0.0.0/8 and these addresses. Every namespace, link, bridge and
# process made here is removed by the EXIT trap, whatever happens. Needs root and `ip netns`:
# otherwise the test exits 77 (skipped).

NETNS_PIDS=()
NETNS_NAMES=()
NETNS_NET=""

netns_require() {
    if [ "$(id -u)" != 0 ]; then
        echo "SKIP: the netns tests need root (network namespaces)"; exit 77
    fi
    if ! command -v ip > /dev/null || ! ip netns list > /dev/null 2>&1; then
        echo "SKIP: ip netns is not available"; exit 77
    fi
    if ! command -v tc > /dev/null; then
        echo "SKIP: tc (iproute2) is not available"; exit 77
    fi
}

# netns_track PID — kill this process at cleanup.
netns_track() { NETNS_PIDS+=("$1"); }

netns_cleanup() {
    local rc=$?
    set +e
    for p in "${NETNS_PIDS[@]}"; do kill -TERM "$p" 2> /dev/null; done
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        local alive=0
        for p in "${NETNS_PIDS[@]}"; do kill -0 "$p" 2> /dev/null && alive=1; done
        [ $alive = 0 ] && break
        sleep 0.3
    done
    for p in "${NETNS_PIDS[@]}"; do kill -KILL "$p" 2> /dev/null; done
    netns_teardown
    if [ $rc != 0 ] && [ -d "$TMP" ]; then
        # the logs are what tells why: show their ends before they go
        for f in "$TMP"/*.log; do
            [ -f "$f" ] || continue
            echo "---- $(basename "$f") (last 25 lines)" >&2
            tail -n 25 "$f" >&2
        done
    fi
    rm -rf "$TMP"
    exit $rc
}

netns_teardown() {
    [ -n "$NETNS_NET" ] || return 0
    local n=$NETNS_NET
    # processes still inside our namespaces (should be none) go first
    for ns in $(ip netns list | awk '{print $1}' | grep "^bfn$n-a" || true); do
        for p in $(ip netns pids "$ns" 2> /dev/null); do kill -KILL "$p" 2> /dev/null || true; done
        ip netns del "$ns" 2> /dev/null || true
    done
    for l in $(ip -o link show | awk -F': ' '{print $2}' | cut -d@ -f1 | grep "^bfn$n-" || true); do
        ip link del "$l" 2> /dev/null || true
    done
}

# netns_setup N HOSTS — the bridge and HOSTS agent namespaces of net N.
netns_setup() {
    NETNS_NET=$1
    local n=$1 hosts=$2
    trap netns_cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    netns_teardown  # left over from a run that was killed
    ip link add "bfn$n-br" type bridge
    ip addr add "10.213.$n.1/24" dev "bfn$n-br"
    ip addr add "10.213.$n.2/24" dev "bfn$n-br"
    ip link set "bfn$n-br" up
    for i in $(seq 1 "$hosts"); do
        local ns="bfn$n-a$i"
        ip netns add "$ns"
        ip link add "$ns-h" type veth peer name "$ns-g"
        ip link set "$ns-g" netns "$ns"
        ip -n "$ns" link set "$ns-g" name eth0
        ip -n "$ns" addr add "10.213.$n.$((10 + i))/24" dev eth0
        ip -n "$ns" link set eth0 up
        ip -n "$ns" link set lo up
        ip link set "$ns-h" master "bfn$n-br"
        ip link set "$ns-h" up
        NETNS_NAMES+=("$ns")
    done
    # the bridge takes a moment to forward (no STP on a fresh bridge, but the links settle)
    for i in $(seq 1 "$hosts"); do
        local ok=0
        for _ in $(seq 1 50); do
            if ip netns exec "bfn$n-a$i" python3 -c "import socket,sys; s=socket.socket(); s.settimeout(0.2); sys.exit(0 if s.connect_ex(('10.213.$n.1', 9)) in (0, 111) else 1)" 2> /dev/null; then
                ok=1; break
            fi
            sleep 0.1
        done
        [ $ok = 1 ] || fail "namespace bfn$n-a$i cannot reach 10.213.$n.1"
    done
}

netns_ip() { echo "10.213.$NETNS_NET.$((10 + $1))"; }   # address of agent host i
netns_fwd_addr() { echo "10.213.$NETNS_NET.1"; }
netns_coord_addr() { echo "10.213.$NETNS_NET.2"; }

# netns_forwarder — forward 10.213.N.1:19200 to the test cluster; per-source bytes in $TMP/fwd.ndjson
netns_forwarder() {
    local to=${ES#http://}
    python3 "$SRC/tests/support/netns_forward.py" --listen "$(netns_fwd_addr):19200" --to "$to" \
        --log "$TMP/fwd.ndjson" > "$TMP/forwarder.log" 2>&1 &
    netns_track $!
    for _ in $(seq 1 50); do
        curl -s -o /dev/null "http://$(netns_fwd_addr):19200/" && return 0
        sleep 0.1
    done
    fail "the forwarder on $(netns_fwd_addr):19200 does not answer"
}

# netns_keys — CURVE keys: $TMP/keys/coord (coordinator.key, agents/) and $TMP/keys/aI per agent
# (agent.key + the pinned coordinator.pub). Agents listed in ALLOWED are put in the allow-list.
netns_keys() {
    local hosts=$1; shift
    mkdir -p "$TMP/keys"
    "$COORD" keygen "$TMP/keys/coord" > /dev/null
    for i in $(seq 1 "$hosts"); do
        "$AGENT" keygen "$TMP/keys/a$i" > /dev/null
        cp "$TMP/keys/coord/coordinator.pub" "$TMP/keys/a$i/"
    done
    for i in "$@"; do cp "$TMP/keys/a$i/agent.pub" "$TMP/keys/coord/agents/a$i.pub"; done
}

# netns_agent I [ARGS...] — bulkfleet-agent in namespace I (id aI, keys aI), log $TMP/aI.log
netns_agent() {
    local i=$1; shift
    ip netns exec "bfn$NETNS_NET-a$i" "$AGENT" --coordinator "tcp://$(netns_coord_addr):7100" \
        --id "a$i" --keys "$TMP/keys/a$i" --threads 1 "$@" > "$TMP/a$i.log" 2>&1 &
    netns_track $!
    eval "AGENT_PID_$i=$!"
}

# netns_cut I / netns_heal I — drop (both ways) the fleet traffic between agent host I and the
# coordinator address, leaving the agent's traffic to the cluster alone. htb + pfifo limit 0
# + u32: tc actions and netem are not always available.
netns_cut() {
    local i=$1 h="bfn$NETNS_NET-a$1-h" ns="bfn$NETNS_NET-a$1" c; c=$(netns_coord_addr)
    _drop() {
        $1 tc qdisc add dev "$2" root handle 1: htb default 1 2> /dev/null
        $1 tc class add dev "$2" parent 1: classid 1:1 htb rate 1gbit 2> /dev/null
        $1 tc class add dev "$2" parent 1: classid 1:2 htb rate 1gbit 2> /dev/null
        $1 tc qdisc add dev "$2" parent 1:2 handle 20: pfifo limit 0
        $1 tc filter add dev "$2" parent 1: protocol ip prio 1 u32 match ip "$3" "$c/32" flowid 1:2
    }
    _drop "" "$h" src || fail "tc: cannot cut $h"
    _drop "ip netns exec $ns" eth0 dst || fail "tc: cannot cut eth0 in $ns"
}
netns_heal() {
    tc qdisc del dev "bfn$NETNS_NET-a$1-h" root 2> /dev/null
    ip netns exec "bfn$NETNS_NET-a$1" tc qdisc del dev eth0 root 2> /dev/null
    return 0
}

# netns_scenario NAME INDEX_PREFIX DURATION MATRIX_YAML — a small scenario aimed at the forwarder
netns_scenario() {
    cat > "$TMP/$1.yaml" <<YAML
name: $1
target:
  hosts: [http://$(netns_fwd_addr):19200]
index:
  name: $2-{shards}s-{batch_size}b
  recreate: true
  settings: {refresh_interval: 1s}
variables:
  - {name: uuid, type: uuid}
  - {name: n, type: range, from: 1, to: 1000}
  - {name: word, type: file, path: words.txt}
document:
  action: create
  id: \$[[uuid]]
  source: '{"n": \$[[n]], "w": "\$[[word]]"}'
request: {timeout: 10s}
run: {warmup: 1s, duration: $3}
matrix:
$4
YAML
    printf 'alpha\nbravo\ncharlie\ndelta\necho\n' > "$TMP/words.txt"
}

# netns_wait PID SECONDS — wait for a background process (never `timeout CMD &`: killing the
# timeout process would leave CMD running); past SECONDS it is killed. Sets WAIT_RC.
netns_wait() {
    local i
    for i in $(seq 1 $(($2 * 10))); do
        kill -0 "$1" 2> /dev/null || break
        sleep 0.1
    done
    if kill -0 "$1" 2> /dev/null; then
        kill -TERM "$1"; sleep 1; kill -KILL "$1" 2> /dev/null
        WAIT_RC=124
        wait "$1" 2> /dev/null || true
        return 0
    fi
    WAIT_RC=0
    wait "$1" || WAIT_RC=$?
}

# now — wall clock in seconds (float), the forwarder log's time base
now() { python3 -c 'import time; print(f"{time.time():.3f}")'; }

# fwd_last SRC SINCE — last time (wall s) bytes from SRC reached the cluster after SINCE, or 0
fwd_last() {
    python3 - "$TMP/fwd.ndjson" "$1" "$2" <<'PY'
import json, sys
path, src, since = sys.argv[1], sys.argv[2], float(sys.argv[3])
last = 0.0
for line in open(path):
    r = json.loads(line)
    if r["src"] == src and r["t"] > since and r["bytes"] > 0:
        last = max(last, r["t"])
print(f"{last:.3f}")
PY
}

# wait_log FILE REGEX SECONDS — wait until FILE has a line matching REGEX
wait_log() {
    local i
    for i in $(seq 1 $(($3 * 10))); do
        grep -qE "$2" "$1" 2> /dev/null && return 0
        sleep 0.1
    done
    return 1
}
