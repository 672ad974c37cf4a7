#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# deploy_ansible — the Ansible deployment applied over SSH to real hosts: three network namespaces
# (coordinator 192.168.237.10, agents .11 and .12) on a test bridge (.1), each with its own sshd.
#
#   1. builds the .deb with cpack from BF_BUILD_DIR and lints deploy/ansible (ansible-lint);
#   2. site.yml over SSH: package, user, environment files; a second run must change nothing;
#   3. checks what the roles wrote: package files (dpkg -V), the unit (systemd-analyze verify),
#      the account, each host's agent.env;
#   4. starts each agent exactly as its unit would (tests/deploy/unit_exec.py: User=, Environment=,
#      EnvironmentFile=, ExecStart=), since the namespaces have no systemd of their own;
#   5. campaign.yml: copies a 1-cell scenario to the coordinator, runs it with both agents against
#      the test cluster (reached through a socat forwarder on the bridge), fetches the results;
#      checks matrix.csv (1 row, docs/s > 0, 2 agents, verified) and that both agents sent samples.
#
# The namespaces share the host's file system: the package, the bulkfleet account and
# /var/lib/bulkfleet are installed once for all "hosts"; /etc/bulkfleet is per host (ip netns exec
# bind-mounts /etc/netns/<ns>/bulkfleet over it). Traffic stays on the bridge and 127.0.0.1.
# Everything the test created is removed on exit; a bulkfleet package installed before the test is
# left installed (at the version the test installed). Skips (77) only without root or ip netns.
# Takes about a minute.
set -euo pipefail

if [ "$(id -u)" != 0 ]; then
    echo "SKIP: deploy_ansible needs root (network namespaces, package install)"
    exit 77
fi
if ! ip netns list >/dev/null 2>&1 || ! ip netns add bfd-probe 2>/dev/null; then
    echo "SKIP: deploy_ansible needs network namespaces (ip netns)"
    exit 77
fi
ip netns del bfd-probe

source "$(dirname "$0")/lib.sh"
for tool in ansible-playbook ansible-lint /usr/sbin/sshd ssh ssh-keygen socat sudo cpack dpkg-deb \
    systemd-analyze python3 flock; do
    command -v "$tool" >/dev/null || fail "$tool is missing (run scripts/install-deps.sh)"
done
[ -x "$AGENT" ] && [ -x "$COORD" ] || fail "build bulkfleet first ($AGENT, $COORD)"

NET=192.168.237
BR=bfd-br
declare -A ADDR=([bfd-coord]=$NET.10 [bfd-agent1]=$NET.11 [bfd-agent2]=$NET.12)
NSS=(bfd-coord bfd-agent1 bfd-agent2)
FWD_PORT=19201
ES_HOSTPORT=${ES#http://}
ES_HOSTPORT=${ES_HOSTPORT%%/*}

# One run at a time: the subnet, the names and the package are machine-wide.
T0=$(date +%s)
exec 9>/run/lock/bulkfleet-deploy-test.lock
flock -w 300 9 || fail "another deploy_ansible run holds /run/lock/bulkfleet-deploy-test.lock"
[ $(($(date +%s) - T0)) -lt 2 ] || echo "waited $(($(date +%s) - T0))s for another deploy_ansible run"
T0=$(date +%s)
step() { echo "== [$(($(date +%s) - T0))s] $*"; }

remove_network() {
    local ns
    for ns in "${NSS[@]}"; do
        if [ -e "/run/netns/$ns" ]; then
            # every process in a namespace this test created is the test's own
            ip netns pids "$ns" | xargs -r kill 2>/dev/null || true
        fi
    done
    sleep 0.5
    for ns in "${NSS[@]}"; do
        if [ -e "/run/netns/$ns" ]; then
            ip netns pids "$ns" | xargs -r kill -9 2>/dev/null || true
            ip netns del "$ns" 2>/dev/null || true
        fi
        ip link del "$ns-h" 2>/dev/null || true
        rm -rf "/etc/netns/$ns"
    done
    ip link del "$BR" 2>/dev/null || true
}
remove_network   # leftovers of an interrupted run

# What exists before the test, so that cleanup removes only what the test made.
had() { if "$@" >/dev/null 2>&1; then echo 1; else echo 0; fi; }
HAD_PKG=$(had sh -c "dpkg-query -W -f='\${Status}' bulkfleet | grep -q 'install ok installed'")
HAD_USER=$(had getent passwd bulkfleet)
HAD_GROUP=$(had getent group bulkfleet)
HAD_ETC=$(had test -e /etc/bulkfleet)
HAD_VARLIB=$(had test -e /var/lib/bulkfleet)
HAD_VARCACHE=$(had test -e /var/cache/bulkfleet)
HAD_NETNS_ETC=$(had test -e /etc/netns)
HAD_RUN_SSHD=$(had test -e /run/sshd)
FWD_PID=""

cleanup() {
    local rc=$?
    set +e
    if [ $rc != 0 ] && [ $rc != 77 ]; then
        for f in "$TMP"/*.log; do
            [ -f "$f" ] && { echo "---- $(basename "$f") (last 40 lines)"; tail -n 40 "$f"; }
        done
    fi
    if [ -n "${BF_TEST_KEEP_LOGS:-}" ]; then   # keep the logs (CI artifacts, debugging)
        mkdir -p "$BF_TEST_KEEP_LOGS" && cp "$TMP"/*.log "$BF_TEST_KEEP_LOGS"/ 2>/dev/null
    fi
    for s in "$TMP"/cp/*; do
        [ -S "$s" ] && ssh -o ControlPath="$s" -O exit x >/dev/null 2>&1
    done
    [ -n "$FWD_PID" ] && kill "$FWD_PID" 2>/dev/null
    remove_network
    if [ "$HAD_PKG" = 0 ]; then
        dpkg --purge bulkfleet >/dev/null 2>&1
    fi
    [ "$HAD_USER" = 0 ] && getent passwd bulkfleet >/dev/null && userdel bulkfleet
    [ "$HAD_GROUP" = 0 ] && getent group bulkfleet >/dev/null && groupdel bulkfleet
    [ "$HAD_VARLIB" = 0 ] && rm -rf /var/lib/bulkfleet
    [ "$HAD_VARCACHE" = 0 ] && rm -rf /var/cache/bulkfleet
    [ "$HAD_ETC" = 0 ] && rm -rf /etc/bulkfleet
    [ "$HAD_NETNS_ETC" = 0 ] && rmdir /etc/netns 2>/dev/null
    [ "$HAD_RUN_SSHD" = 0 ] && rmdir /run/sshd 2>/dev/null
    cleanup_tmp
    exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

step "package and lint"
timeout 120 cpack --config "$BUILD/CPackConfig.cmake" -G DEB -B "$TMP/pkg" > "$TMP/cpack.log" 2>&1 ||
    fail "cpack -G DEB failed"
DEB=$(ls "$TMP"/pkg/bulkfleet_*.deb)
dpkg-deb -c "$DEB" | awk '{print $6}' > "$TMP/deb-files.txt"
for f in ./usr/bin/bulkfleet-agent ./usr/bin/bulkfleet-coordinator \
    ./usr/lib/systemd/system/bulkfleet-agent.service ./usr/share/bulkfleet/agent.env.example; do
    grep -qx "$f" "$TMP/deb-files.txt" || fail "$f is not in $(basename "$DEB")"
done
# (pipelines into grep -q would die of SIGPIPE under pipefail: list to a file, then grep)
dpkg-deb --ctrl-tarfile "$DEB" | tar -t > "$TMP/deb-control.txt"
grep -qx './postinst' "$TMP/deb-control.txt" || fail "the package has no postinst"
(cd "$SRC" && timeout 180 ansible-lint --offline --nocolor deploy/ansible) > "$TMP/ansible-lint.log" 2>&1 ||
    fail "ansible-lint deploy/ansible failed"
pass "$(basename "$DEB") built; ansible-lint clean"

step "hosts: bridge $BR $NET.1/24, namespaces with sshd"
ip link add "$BR" type bridge
ip addr add "$NET.1/24" dev "$BR"
ip link set "$BR" up
mkdir -p /etc/bulkfleet /run/sshd "$TMP/ssh" "$TMP/cp"
chmod 0755 /run/sshd
ssh-keygen -q -t ed25519 -N '' -C bulkfleet-deploy-test -f "$TMP/ssh/id"
ssh-keygen -q -t ed25519 -N '' -C bulkfleet-deploy-test-host -f "$TMP/ssh/host"
cp "$TMP/ssh/id.pub" "$TMP/ssh/authorized_keys"
chmod 0600 "$TMP/ssh/authorized_keys"
for ns in "${NSS[@]}"; do
    ip netns add "$ns"
    ip link add "$ns-h" type veth peer name eth0 netns "$ns"
    ip link set "$ns-h" master "$BR" up
    ip -n "$ns" addr add "${ADDR[$ns]}/24" dev eth0
    ip -n "$ns" link set eth0 up
    ip -n "$ns" link set lo up
    # this host's own /etc/bulkfleet (ip netns exec bind-mounts /etc/netns/<ns>/* over /etc/*)
    mkdir -p "/etc/netns/$ns/bulkfleet"
    cat > "$TMP/ssh/sshd-$ns.conf" <<EOF
ListenAddress ${ADDR[$ns]}:22
HostKey $TMP/ssh/host
PidFile $TMP/ssh/sshd-$ns.pid
AuthorizedKeysFile $TMP/ssh/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
Subsystem sftp /usr/lib/openssh/sftp-server
EOF
    ip netns exec "$ns" /usr/sbin/sshd -D -e -f "$TMP/ssh/sshd-$ns.conf" > "$TMP/sshd-$ns.log" 2>&1 &
done
for ns in "${NSS[@]}"; do
    timeout 15 bash -c "until (exec 3<>/dev/tcp/${ADDR[$ns]}/22) 2>/dev/null; do sleep 0.1; done" ||
        fail "sshd in $ns did not listen on ${ADDR[$ns]}:22"
done
# The dev cluster listens on 127.0.0.1 of this namespace; the hosts reach it through the bridge.
socat "TCP-LISTEN:$FWD_PORT,bind=$NET.1,reuseaddr,fork" "TCP:$ES_HOSTPORT" > "$TMP/socat.log" 2>&1 &
FWD_PID=$!
timeout 10 bash -c "until (exec 3<>/dev/tcp/$NET.1/$FWD_PORT) 2>/dev/null; do sleep 0.1; done" ||
    fail "forwarder $NET.1:$FWD_PORT -> $ES_HOSTPORT did not start"
ip netns exec bfd-agent1 curl -sf -m 5 "http://$NET.1:$FWD_PORT/" > /dev/null ||
    fail "an agent host cannot reach the test cluster through $NET.1:$FWD_PORT"
pass "3 hosts reachable over SSH; cluster reachable from the hosts"

# CURVE keys and --allow-target are used as soon as the programs have them.
ALLOW=""
AGENT_HELP=$("$AGENT" --help 2>&1 || true)
COORD_HELP=$("$COORD" --help 2>&1 || true)
if [[ $AGENT_HELP == *--allow-target* ]]; then
    ALLOW="$NET.1"
fi
SECURE=0
KEYS="$TMP/inventory/keys"    # the roles' default: <inventory dir>/keys
mkdir -p "$TMP/inventory"
if [[ $AGENT_HELP == *keygen* && $COORD_HELP == *keygen* ]]; then
    SECURE=1
    mkdir -p "$KEYS/agents"   # keygen creates only the last directory
    "$COORD" keygen "$KEYS/coordinator" > /dev/null
    for i in 1 2; do "$AGENT" keygen "$KEYS/agents/bf-agent-$i" > /dev/null; done
fi
echo "  fleet traffic: $([ $SECURE = 1 ] && echo CURVE || echo 'plain TCP (--insecure)'); agent --allow-target: ${ALLOW:-not available}"
cat > "$TMP/inventory/hosts.yml" <<EOF
all:
  vars:
    ansible_user: root
    ansible_ssh_private_key_file: $TMP/ssh/id
    ansible_python_interpreter: /usr/bin/python3
    bulkfleet_deb: $DEB
    bulkfleet_insecure: $([ $SECURE = 1 ] && echo false || echo true)
    # the three hosts share one file system, hence one dpkg database
    bulkfleet_install_throttle: 1
  children:
    coordinator:
      hosts:
        bf-coord: {ansible_host: ${ADDR[bfd-coord]}}
    agents:
      vars:
        # no systemd inside the namespaces: the test starts the agents from the installed unit
        bulkfleet_agent_service: false
        bulkfleet_agent_allow_targets: [${ALLOW}]
      hosts:
        bf-agent-1: {ansible_host: ${ADDR[bfd-agent1]}, bulkfleet_agent_threads: 1}
        bf-agent-2: {ansible_host: ${ADDR[bfd-agent2]}, bulkfleet_agent_threads: 2}
EOF
printf '[defaults]\n' > "$TMP/ansible.cfg"
export ANSIBLE_CONFIG="$TMP/ansible.cfg"
export ANSIBLE_HOST_KEY_CHECKING=False
export ANSIBLE_SSH_ARGS="-o ControlMaster=auto -o ControlPersist=60s -o UserKnownHostsFile=/dev/null -o StrictHostKeyChecking=no -o IdentitiesOnly=yes"
export ANSIBLE_SSH_CONTROL_PATH_DIR="$TMP/cp"
export ANSIBLE_LOCAL_TEMP="$TMP/ansible-local"
export ANSIBLE_PIPELINING=True
export ANSIBLE_NOCOLOR=1
export ANSIBLE_RETRY_FILES_ENABLED=False
PLAY="$SRC/deploy/ansible"

# recap_ok LOG: every host of the recap has failed=0 unreachable=0 (and changed=0 with "idem")
recap_check() {
    python3 - "$@" <<'PY'
import re, sys
log, mode = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else ""
rows = re.findall(r"^(\S+)\s+: ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)",
                  open(log).read(), re.M)
hosts = {h for h, *_ in rows}
assert hosts == {"bf-coord", "bf-agent-1", "bf-agent-2"}, f"recap hosts {hosts}"
for h, ok, changed, unreach, failed in rows:
    assert unreach == "0" and failed == "0", f"{h}: unreachable={unreach} failed={failed}"
    if mode == "idem":
        assert changed == "0", f"{h}: changed={changed} on the second run"
    print(f"  {h}: ok={ok} changed={changed}")
PY
}

step "site.yml (first run)"
timeout 300 ansible-playbook -i "$TMP/inventory/hosts.yml" "$PLAY/site.yml" > "$TMP/site-1.log" 2>&1 ||
    fail "site.yml failed (see site-1.log above)"
recap_check "$TMP/site-1.log" || fail "site.yml recap"
step "site.yml (second run: must change nothing)"
timeout 300 ansible-playbook -i "$TMP/inventory/hosts.yml" "$PLAY/site.yml" > "$TMP/site-2.log" 2>&1 ||
    fail "site.yml failed on the second run"
recap_check "$TMP/site-2.log" idem || { grep -B3 '^changed:' "$TMP/site-2.log" >&2; fail "site.yml is not idempotent"; }
pass "site.yml applied over SSH; second run changed=0 on every host"

step "site.yml on the coordinator after a rebuild of the same version (and a stale agent key)"
sleep 1   # a new second in the package's file dates: the rebuilt .deb differs
timeout 120 cpack --config "$BUILD/CPackConfig.cmake" -G DEB -B "$TMP/pkg" > "$TMP/cpack-2.log" 2>&1 ||
    fail "cpack (rebuild) failed"
ALLOWDIR=/etc/netns/bfd-coord/bulkfleet/keys/agents
[ $SECURE = 0 ] || cp "$KEYS/agents/bf-agent-1/agent.pub" "$ALLOWDIR/retired-agent.pub"
timeout 120 ansible-playbook -i "$TMP/inventory/hosts.yml" "$PLAY/site.yml" --limit bf-coord \
    > "$TMP/site-3.log" 2>&1 || fail "site.yml --limit bf-coord failed"
sed -n '/^TASK \[bulkfleet_common : Reinstall a rebuilt package of the same version\]/,/^TASK /p' \
    "$TMP/site-3.log" > "$TMP/site-3-reinstall.txt"
grep -q '^changed: \[bf-coord\]' "$TMP/site-3-reinstall.txt" || fail "a rebuilt package of the same version was not reinstalled"
if [ $SECURE = 1 ]; then
    [ "$(ls "$ALLOWDIR")" = "$(printf 'bf-agent-1.pub\nbf-agent-2.pub')" ] ||
        fail "allow-list after revocation: $(ls "$ALLOWDIR")"
    pass "rebuilt package reinstalled; allow-list holds exactly the inventory's agents"
else
    pass "rebuilt package reinstalled"
fi

step "what the roles installed and wrote"
[ "$(dpkg-query -W -f='${Status}' bulkfleet)" = "install ok installed" ] || fail "bulkfleet is not installed"
[ "$(dpkg-query -W -f='${Version}' bulkfleet)" = "$(dpkg-deb -f "$DEB" Version)" ] ||
    fail "installed version differs from the built package"
[ -z "$(dpkg -V bulkfleet)" ] || fail "installed files differ from the package: $(dpkg -V bulkfleet)"
UNIT=$(dpkg -L bulkfleet | grep '/bulkfleet-agent\.service$')
[ "$UNIT" = /usr/lib/systemd/system/bulkfleet-agent.service ] || fail "unit installed at '$UNIT'"
systemd-analyze verify "$UNIT" > "$TMP/verify.log" 2>&1 || fail "systemd-analyze verify $UNIT: $(cat "$TMP/verify.log")"
[ ! -s "$TMP/verify.log" ] || fail "systemd-analyze verify warns: $(cat "$TMP/verify.log")"
grep -qx 'ExecStart=/usr/bin/bulkfleet-agent --coordinator ${BF_COORDINATOR} --id ${BF_AGENT_ID} $BF_AGENT_ARGS' "$UNIT" ||
    fail "unexpected ExecStart in $UNIT"
IFS=: read -r _ _ uid _ _ home shell < <(getent passwd bulkfleet)
[ "$uid" -lt 1000 ] && [ "$shell" = /usr/sbin/nologin ] && [ "$home" = /var/lib/bulkfleet ] ||
    fail "bulkfleet account: uid $uid home $home shell $shell"
[ "$(stat -c '%U:%G %a' /var/lib/bulkfleet/campaigns)" = "bulkfleet:bulkfleet 750" ] ||
    fail "coordinator campaign directory: $(stat -c '%U:%G %a' /var/lib/bulkfleet/campaigns)"
[ -z "$(ls -A /etc/bulkfleet)" ] || fail "the roles wrote into the controller's own /etc/bulkfleet"
[ ! -e /etc/netns/bfd-coord/bulkfleet/agent.env ] || fail "the coordinator host got an agent.env"
for i in 1 2; do
    envf=/etc/netns/bfd-agent$i/bulkfleet/agent.env
    [ -f "$envf" ] || fail "bf-agent-$i: no agent.env"
    [ "$(stat -c '%U:%G %a' "$envf")" = "root:bulkfleet 640" ] || fail "$envf: $(stat -c '%U:%G %a' "$envf")"
    [ "$(stat -c '%U:%G %a' "$(dirname "$envf")")" = "root:bulkfleet 750" ] || fail "$(dirname "$envf") mode"
    if [ $SECURE = 1 ]; then
        want_args="--threads $i --keys /etc/bulkfleet/keys${ALLOW:+ --allow-target $ALLOW}"
    else
        want_args="--threads $i --insecure${ALLOW:+ --allow-target $ALLOW}"
    fi
    grep -qx "BF_COORDINATOR=tcp://${ADDR[bfd-coord]}:7100" "$envf" || fail "$envf: BF_COORDINATOR: $(cat "$envf")"
    grep -qx "BF_AGENT_ID=bf-agent-$i" "$envf" || fail "$envf: BF_AGENT_ID: $(cat "$envf")"
    grep -qx "BF_AGENT_ARGS=\"$want_args\"" "$envf" || fail "$envf: BF_AGENT_ARGS: $(cat "$envf")"
done
# mode_is PATH "OWNER:GROUP MODE"
mode_is() { [ "$(stat -c '%U:%G %a' "$1")" = "$2" ] || fail "$1: $(stat -c '%U:%G %a' "$1"), expected $2"; }
if [ $SECURE = 1 ]; then
    k=/etc/netns/bfd-coord/bulkfleet/keys
    mode_is "$k" "bulkfleet:bulkfleet 700"
    mode_is "$k/coordinator.key" "bulkfleet:bulkfleet 600"
    cmp -s "$k/coordinator.key" "$KEYS/coordinator/coordinator.key" || fail "coordinator.key differs"
    for i in 1 2; do
        cmp -s "$k/agents/bf-agent-$i.pub" "$KEYS/agents/bf-agent-$i/agent.pub" || fail "allow-list: bf-agent-$i.pub"
        a=/etc/netns/bfd-agent$i/bulkfleet/keys
        mode_is "$a" "bulkfleet:bulkfleet 700"
        mode_is "$a/agent.key" "bulkfleet:bulkfleet 600"
        cmp -s "$a/agent.key" "$KEYS/agents/bf-agent-$i/agent.key" || fail "bf-agent-$i: agent.key differs"
        cmp -s "$a/coordinator.pub" "$KEYS/coordinator/coordinator.pub" || fail "bf-agent-$i: coordinator.pub"
    done
    pass "keys placed: secret keys 0600 bulkfleet, coordinator key pinned on agents, allow-list built"
fi
pass "package files intact, unit verified, account and per-host agent.env right"

step "agents started exactly as bulkfleet-agent.service would start them"
declare -A AGENT_PID
for i in 1 2; do
    ns=bfd-agent$i
    ip netns exec "$ns" python3 "$SRC/tests/deploy/unit_exec.py" --print "$UNIT" > "$TMP/argv-$i.txt" ||
        fail "unit_exec.py cannot reproduce $UNIT"
    ip netns exec "$ns" python3 "$SRC/tests/deploy/unit_exec.py" "$UNIT" > "$TMP/agent-$i.log" 2>&1 &
    AGENT_PID[$i]=$!
done
sleep 1
for i in 1 2; do
    pid=${AGENT_PID[$i]}
    kill -0 "$pid" 2>/dev/null || fail "bf-agent-$i exited: $(cat "$TMP/agent-$i.log")"
    want="/usr/bin/bulkfleet-agent --coordinator tcp://${ADDR[bfd-coord]}:7100 --id bf-agent-$i $(sed -n 's/^BF_AGENT_ARGS="\(.*\)"$/\1/p' "/etc/netns/bfd-agent$i/bulkfleet/agent.env")"
    got=$(ps -o args= -p "$pid")
    [ "$got" = "$want" ] || fail "bf-agent-$i runs as '$got', expected '$want'"
    [ "$(ps -o user= -p "$pid")" = bulkfleet ] || fail "bf-agent-$i runs as user $(ps -o user= -p "$pid")"
    echo "  bf-agent-$i: pid $pid, user bulkfleet: $got"
done

step "campaign.yml"
cat > "$TMP/deploy-campaign.yaml" <<YAML
name: deploy-campaign
target:
  hosts: [http://$NET.1:$FWD_PORT]
index:
  name: deploy-campaign-{shards}s
  recreate: true
variables:
  - {name: n, type: range, from: 1, to: 100}
document:
  action: index
  source: '{"n": \$[[n]]}'
run: {warmup: 1s, duration: 3s}
matrix:
  shards: [1]
  batch_size: [100]
  concurrency: [2]
YAML
# as a user would: scenario path relative to the current directory, results fetched to ./results
(cd "$TMP" && timeout 240 ansible-playbook -i inventory/hosts.yml "$PLAY/campaign.yml" \
    -e bulkfleet_scenario=deploy-campaign.yaml -e bulkfleet_campaign_wait=30s) > "$TMP/campaign.log" 2>&1 ||
    fail "campaign.yml failed (see campaign.log above)"
DIR=$(ls -d "$TMP"/results/deploy-campaign-*)
python3 - "$DIR" <<'PY'
import csv, json, os, sys
d = sys.argv[1]
rows = list(csv.DictReader(open(os.path.join(d, "matrix.csv"))))
assert len(rows) == 1, f"expected 1 row, got {len(rows)}"
r = rows[0]
assert float(r["docs_per_s"]) > 0, f"docs_per_s {r['docs_per_s']}"
assert r["agents"] == "2", f"agents {r['agents']}"
assert r["verified"] == "true", f"docs_counted {r['docs_counted']} != docs_ok {r['docs_ok_all']}"
assert (r["shards"], r["batch_size"], r["concurrency"]) == ("1", "100", "2"), r
lines = [json.loads(l) for l in open(os.path.join(d, "cells", r["cell"] + ".ndjson"))]
agents = {l["agent"] for l in lines if "agent" in l}
assert agents == {"bf-agent-1", "bf-agent-2"}, agents
for f in ("matrix.md", "matrix.json", "scenario.yaml"):
    assert os.path.getsize(os.path.join(d, f)) > 0, f
print(f"  matrix.csv: 1 row, {r['docs_per_s']} docs/s from agents {sorted(agents)}, verified")
PY
for i in 1 2; do
    grep -q 'welcomed by the coordinator' "$TMP/agent-$i.log" || fail "bf-agent-$i was never welcomed"
done
pass "campaign run over SSH by both agents; results fetched and checked"
step "done"
