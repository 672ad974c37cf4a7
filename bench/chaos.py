#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""chaos.py — the driver of bench/chaos.sh: a campaign under random faults, then its
invariants (bench/chaos_check.py).

A 6-cell campaign (batch_size 100/200/300 x concurrency 2/4, 1 s warmup + 4 s each, request
timeout 2 s, an index per cell) from a coordinator and 3 agent processes (separate, as on
hosts: `bulkfleet-agent --coordinator`) against the scripted fault server
(tests/support/fault_server.py: its _count is the ground truth, the documents it acknowledged),
or with --cluster URL against a real dev cluster (scripts/devcluster.sh; its _count after a
_refresh, 3 s after the campaign, is the truth). As root (--net N, default 1) the agents run on
hosts of their own: network namespaces bfcN-a1..a3 on a bridge bfcN-br (10.214.N.0/24; the
coordinator on 10.214.N.2), reaching the target through a forwarder on 10.214.N.1:19200
(bench/chaos_forward.py); without root, or with --net 0, everything is on 127.0.0.1.
While it runs, N faults drawn from the seed hit it at random moments of the first D seconds,
each lasting 0.5 to 3 s, overlapping freely:

  kill_agent        kill -9 of an agent; it is started again (same id) when the fault ends
  stop_agent        SIGSTOP of an agent, SIGCONT when the fault ends
  kill_coordinator  kill -9 of the coordinator; `run --resume DIR` when the fault ends
  stop_coordinator  SIGSTOP / SIGCONT of the coordinator
  stop_target       SIGSTOP / SIGCONT of the fault server, or with --cluster of the forwarder in
                    front of the cluster (the cluster stops answering)
  mode              the fault server answers as MODE for a while (PUT /_fault/mode): reject429
                    (whole-request 429), mixed (429 / 400 / 409 items), too_large (413: the cell
                    fails), reset (RST after reading), hangup (FIN without a reply), stall (no
                    answer: request.timeout), notjson_rare (every 10th answer an HTML 200); not
                    with --cluster
  disk_full         the results tmpfs (16 MiB) is filled to the last byte, freed when the fault
                    ends (root only: mount; without root the fault is not drawn, and it says so)
  partition         (--net) an agent host's link goes down (`ip link set eth0 down` in its
                    namespace: fleet and target traffic both cut), up when the fault ends
  net_delay         (--net) the forwarder delays every chunk it forwards by 50, 200, 800 or
                    2500 ms, both ways: this kernel has no sch_netem, so `tc netem` cannot
  net_loss          (--net) the forwarder holds each chunk, with probability 5, 20 or 50 %,
                    200-600 ms first: what a lost segment costs a TCP stream (a retransmission)
  slow_disk         the results directory answers each write, fsync, open for writing, flush
                    and rename 200, 500, 1000 or 2000 ms late, for 1 to 8 s (not 0.5 to 3
                    as the others): the coordinator and the agents
                    run under the LD_PRELOAD shim tests/support/bf_slowdisk.c
                    (libbf_slowdisk.so in the build), whose control file the driver sets

A slow disk by a preload shim, not by the kernel (said so in the output): this kernel has no
device-mapper driver for dm-delay (/dev/mapper/control: "No such device"), cgroup v1 blkio does
not throttle buffered writes, and FUSE, though the kernel has it (/dev/fuse opens, a mount of
type fuse succeeds), has no libfuse installed to serve a delaying file system. --no-slow-disk
draws the schedules of the runs before slow_disk was in the menu (bench/RESULTS.md);
--slow-disk-ms MS slows the results directory from the start to the end (MS per call, the
calls of --slow-disk-ops only when given), faults or not.
The coordinator is resumed (`--resume`) whenever it ended while faults were still to come or
with exit 3 (environment), at most 10 times. Afterwards every process it started is stopped
and the history checked; the last line is "faults N, invariant violations V" (N: faults
applied). Exit 0 without violations, 1 with, 2 on bad arguments. Traffic only to 127.0.0.1;
bounded: the campaign is interrupted --duration + 240 s after the start.
"""

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import chaos_check  # noqa: E402

MODES = ("reject429", "mixed", "too_large", "reset", "hangup", "stall", "notjson_rare")
AGENTS = ("a1", "a2", "a3")
BATCHES, CONCS = (100, 200, 300), (2, 4)


def secs(text):
    t = text.strip()
    mult = {"s": 1, "m": 60, "h": 3600}.get(t[-1:], None)
    return int(float(t[:-1]) * mult) if mult else int(t)


def schedule(seed, n, dur, root, net=False, cluster=False, slow=False):
    """The faults of seed: n of them at uniform moments of [1, dur), sorted. Pure. Without net,
    cluster and slow the draws are those of the first runs (bench/RESULTS.md, 20 seeds); without
    slow those of the runs before slow_disk was in the menu."""
    rng = random.Random(seed)
    kinds = ["kill_agent", "stop_agent", "kill_coordinator", "stop_coordinator", "stop_target"]
    if not cluster:
        kinds += ["mode", "mode", "mode"]  # the fault server's scripted answers
    kinds += ["disk_full"] if root else []
    if net:
        kinds += ["partition", "partition", "net_delay", "net_loss"]
    if slow:
        kinds += ["slow_disk", "slow_disk"]
    out = []
    for _ in range(n):
        k = rng.choice(kinds)
        f = {"t": round(rng.uniform(1.0, dur), 2), "kind": k, "for_s": round(rng.uniform(0.5, 3.0), 2)}
        if k in ("kill_agent", "stop_agent", "partition"):
            f["agent"] = rng.choice(AGENTS)
        if k == "mode":
            f["mode"] = rng.choice(MODES)
        if k == "net_delay":
            f["delay_ms"] = rng.choice((50, 200, 800, 2500))
        if k == "net_loss":
            f["loss"] = rng.choice((0.05, 0.2, 0.5))
        if k == "slow_disk":
            f["delay_ms"] = rng.choice((200, 500, 1000, 2000))
            f["for_s"] = round(rng.uniform(1.0, 8.0), 2)  # a disk stays slow for a while
        out.append(f)
    out.sort(key=lambda f: f["t"])
    return out


class Chaos:
    def __init__(self, a):
        self.a = a
        self.out = a.out or tempfile.mkdtemp(prefix="bf-chaos.", dir=os.environ.get("TMPDIR"))
        os.makedirs(self.out, exist_ok=True)
        self.build = os.environ.get("BF_BUILD_DIR", os.path.join(SRC, "build"))
        self.coord_bin = os.path.join(self.build, "coordinator", "bulkfleet-coordinator")
        self.agent_bin = os.path.join(self.build, "agent", "bulkfleet-agent")
        self.root = os.geteuid() == 0
        self.res = os.path.join(self.out, "results")
        self.mounted = False
        self.procs = []  # every process started: {"pid", "what"}
        self.agents = {}
        self.coord = None
        self.fs = None
        self.resumes = 0
        self.log_f = open(os.path.join(self.out, "chaos.log"), "a")
        self.applied = []
        self.notes = []
        self.net = a.net  # 0: everything on 127.0.0.1; N: agents in namespaces of 10.214.N.0/24
        self.cluster = a.cluster  # "" : the fault server; URL: the dev cluster there
        self.fwd = None
        self.netns = []
        self.shim = os.path.join(self.build, "tests", "libbf_slowdisk.so")
        self.sd_ctl = os.path.join(self.out, "slowdisk.ms")
        self.sd_log = os.path.join(self.out, "slowdisk.log")
        self.sd_base = a.slow_disk_ms  # the delay outside slow_disk faults (0: none)

    def log(self, msg):
        line = f"chaos: {time.time() - self.t0:7.2f} s {msg}" if hasattr(self, "t0") else f"chaos: {msg}"
        print(line, file=self.log_f, flush=True)
        if self.a.verbose:
            print(line, file=sys.stderr, flush=True)

    def slow_env(self):
        """the environment of the coordinator and the agents: under the slow-disk shim (its
        control file says the delay now), unless --no-slow-disk without --slow-disk-ms"""
        env = dict(os.environ)
        if self.slow:
            env.update(LD_PRELOAD=self.shim, BF_SLOWDISK_DIR=os.path.abspath(self.res),
                       BF_SLOWDISK_CONTROL=self.sd_ctl, BF_SLOWDISK_LOG=self.sd_log)
            if self.a.slow_disk_ops:
                env["BF_SLOWDISK_OPS"] = self.a.slow_disk_ops
        return env

    def set_slow(self, ms):
        tmp = self.sd_ctl + ".tmp"
        with open(tmp, "w") as fh:
            fh.write(f"{int(ms)}\n")
        os.replace(tmp, self.sd_ctl)

    def cur_slow(self, without=None):
        """the largest delay of the slow_disk faults still on (but `without`), else the base"""
        return max([g["delay_ms"] for g, _ in self.active
                    if g["kind"] == "slow_disk" and g is not without] or [self.sd_base])

    def slowed(self):
        """(calls slowed, seconds slept) from the shim's log"""
        n, ms = 0, 0
        try:
            with open(self.sd_log) as fh:
                for ln in fh:
                    parts = ln.split(" ", 2)
                    if len(parts) >= 2 and parts[1].isdigit():
                        n += 1
                        ms += int(parts[1])
        except OSError:
            pass
        return n, ms / 1000.0

    def spawn(self, argv, what, out):
        p = subprocess.Popen(argv, stdout=open(out + ".out", "ab"), stderr=open(out + ".err", "ab"),
                             stdin=subprocess.DEVNULL, start_new_session=True, env=self.slow_env())
        self.procs.append({"pid": p.pid, "what": what})
        return p

    # --- parts -------------------------------------------------------------------------------

    def start_fs(self):
        ready = os.path.join(self.out, "fs.ready")
        self.fs = subprocess.Popen(
            [sys.executable, os.path.join(SRC, "tests", "support", "fault_server.py"), "--port", "0",
             "--mode", "ok", "--log", os.path.join(self.out, "fs.log"),
             "--max-lifetime", str(self.dur + 600)],
            stdout=open(ready, "w"), stderr=open(os.path.join(self.out, "fs.err"), "w"),
            stdin=subprocess.DEVNULL, start_new_session=True)
        self.procs.append({"pid": self.fs.pid, "what": "fault server"})
        for _ in range(100):
            with open(ready) as fh:
                for ln in fh:
                    if ln.startswith("READY"):
                        self.fs_port = int(ln.split()[1])
                        return
            time.sleep(0.1)
        raise SystemExit("chaos: the fault server did not start")

    def fs_unstopped(self):
        """OSError while the fault server is SIGSTOPped (stop_target): a PUT to it would block
        the driver for its 5 s timeout, and every fault due meanwhile would come late (seed 1:
        a 1.07 s stop_target lasted 10.6 s, a partition came 4.4 s late); tried again later"""
        if not self.cluster and any(g["kind"] == "stop_target" for g, _ in self.active):
            raise OSError("the fault server is stopped (stop_target)")

    def fs_call(self, method, path):
        """HTTP to the target itself (the fault server or the cluster), not through the forwarder"""
        req = urllib.request.Request(f"http://{self.target_hostport()}{path}", method=method)
        with urllib.request.urlopen(req, timeout=5) as r:
            return json.loads(r.read() or b"{}")

    # --- the network: a bridge, 3 agent hosts (namespaces) and the forwarder ------------------

    def ns(self, aid):
        return f"bfc{self.net}-{aid}"

    def coord_addr(self):
        return f"10.214.{self.net}.2" if self.net else "127.0.0.1"

    def fwd_addr(self):
        return f"10.214.{self.net}.1"

    def net_teardown(self):
        n = self.net
        for ns in subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout.split("\n"):
            name = ns.split(" ")[0]
            if name.startswith(f"bfc{n}-a"):
                pids = subprocess.run(["ip", "netns", "pids", name], capture_output=True, text=True).stdout.split()
                for pid in pids:
                    try:
                        os.kill(int(pid), signal.SIGKILL)
                    except (ProcessLookupError, ValueError):
                        pass
                subprocess.run(["ip", "netns", "del", name], check=False)
        links = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True).stdout
        for ln in links.split("\n"):
            parts = ln.split(": ")
            if len(parts) > 1 and parts[1].split("@")[0].startswith(f"bfc{n}-"):
                subprocess.run(["ip", "link", "del", parts[1].split("@")[0]], check=False,
                               stderr=subprocess.DEVNULL)

    def net_setup(self):
        n = self.net
        self.net_teardown()  # left over from a run that was killed
        sh = lambda *c: subprocess.run(list(c), check=True)  # noqa: E731
        sh("ip", "link", "add", f"bfc{n}-br", "type", "bridge")
        sh("ip", "addr", "add", f"10.214.{n}.1/24", "dev", f"bfc{n}-br")
        sh("ip", "addr", "add", f"10.214.{n}.2/24", "dev", f"bfc{n}-br")
        sh("ip", "link", "set", f"bfc{n}-br", "up")
        for i, aid in enumerate(AGENTS, 1):
            ns = self.ns(aid)
            sh("ip", "netns", "add", ns)
            self.netns.append(ns)
            sh("ip", "link", "add", f"{ns}-h", "type", "veth", "peer", "name", f"{ns}-g")
            sh("ip", "link", "set", f"{ns}-g", "netns", ns)
            sh("ip", "-n", ns, "link", "set", f"{ns}-g", "name", "eth0")
            sh("ip", "-n", ns, "addr", "add", f"10.214.{n}.{10 + i}/24", "dev", "eth0")
            sh("ip", "-n", ns, "link", "set", "eth0", "up")
            sh("ip", "-n", ns, "link", "set", "lo", "up")
            sh("ip", "link", "set", f"{ns}-h", "master", f"bfc{n}-br")
            sh("ip", "link", "set", f"{ns}-h", "up")
        self.log(f"net 10.214.{n}.0/24: bridge bfc{n}-br, agent hosts {', '.join(self.netns)}")

    def start_fwd(self):
        """the forwarder on 10.214.N.1:19200 to the target on 127.0.0.1 (chaos_forward.py)"""
        self.fwd_ctl = os.path.join(self.out, "fwd.json")
        self.set_fwd(0, 0)
        ready = os.path.join(self.out, "fwd.ready")
        self.fwd = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "chaos_forward.py"), "--listen",
             f"{self.fwd_addr()}:19200", "--to", self.target_hostport(), "--control",
             self.fwd_ctl, "--seed", str(self.a.seed)],
            stdout=open(ready, "w"), stderr=open(os.path.join(self.out, "fwd.err"), "w"),
            stdin=subprocess.DEVNULL, start_new_session=True)
        self.procs.append({"pid": self.fwd.pid, "what": "forwarder"})
        for _ in range(100):
            with open(ready) as fh:
                if "READY" in fh.read():
                    return
            time.sleep(0.1)
        raise SystemExit("chaos: the forwarder did not start")

    def set_fwd(self, delay_ms, loss):
        tmp = self.fwd_ctl + ".tmp"
        with open(tmp, "w") as fh:
            json.dump({"delay_ms": delay_ms, "loss": loss}, fh)
        os.replace(tmp, self.fwd_ctl)

    def target_hostport(self):
        if self.cluster:
            return self.cluster.split("://", 1)[-1].rstrip("/")
        return f"127.0.0.1:{self.fs_port}"

    def target_url(self):
        """what the scenario's target.hosts says: the forwarder with a net, else the target"""
        return f"http://{self.fwd_addr()}:19200" if self.net else f"http://{self.target_hostport()}"

    def start_agent(self, aid):
        argv = [self.agent_bin, "--coordinator", f"tcp://{self.coord_addr()}:{self.port}",
                "--insecure", "--id", aid, "--threads", "1", "-q", "--deadman", "5s"]
        if self.net:
            argv = ["ip", "netns", "exec", self.ns(aid)] + argv + ["--allow-target", self.fwd_addr()]
        self.agents[aid] = self.spawn(argv, f"agent {aid}", os.path.join(self.out, f"agent-{aid}"))

    def start_coord(self):
        argv = [self.coord_bin, "run", self.scenario, "--agents", "3", "--min-agents", "1",
                "--insecure", "--bind", f"tcp://{self.coord_addr()}:{self.port}", "--lost", "3s",
                "--wait", "20s", "--cluster-wait", "15s", "-q"]
        camp = self.campaign_dir()
        if camp:
            argv += ["--resume", camp]
            self.resumes += 1
        else:
            argv += ["--results", self.res]
        self.coord = self.spawn(argv, "coordinator", os.path.join(self.out, "coordinator"))
        self.log(f"coordinator started{' --resume' if camp else ''} (pid {self.coord.pid})")

    def campaign_dir(self):
        try:
            ds = [d for d in os.listdir(self.res) if d.startswith("chaos-")]
        except OSError:
            return None
        return os.path.join(self.res, sorted(ds)[0]) if ds else None

    def write_scenario(self):
        self.scenario = os.path.join(self.out, "scenario.yaml")
        with open(self.scenario, "w") as fh:
            fh.write(f"""name: chaos
target:
  hosts: [{self.target_url()}]
index:
  name: chaos-b{{batch_size}}-c{{concurrency}}
  recreate: true
  settings: {{number_of_shards: 1, number_of_replicas: 0}}
variables:
  - {{name: n, type: range, from: 1, to: 1000}}
document:
  action: index
  source: '{{"n": $[[n]], "msg": "chaos $[[n]]"}}'
request:
  timeout: 2s
run: {{warmup: 1s, first_warmup: 1s, duration: 4s, seed: {self.a.seed}}}
matrix:
  batch_size: [{", ".join(map(str, BATCHES))}]
  concurrency: [{", ".join(map(str, CONCS))}]
""")

    # --- faults ------------------------------------------------------------------------------

    def signal(self, p, sig):
        if p is not None and p.poll() is None:
            try:
                os.kill(p.pid, sig)
            except ProcessLookupError:
                pass

    def apply(self, f):
        k = f["kind"]
        if k == "kill_agent":
            self.signal(self.agents.get(f["agent"]), signal.SIGKILL)
        elif k == "stop_agent":
            self.signal(self.agents.get(f["agent"]), signal.SIGSTOP)
        elif k == "kill_coordinator":
            self.killed_coord = True
            self.signal(self.coord, signal.SIGKILL)
        elif k == "stop_coordinator":
            self.signal(self.coord, signal.SIGSTOP)
        elif k == "stop_target":
            # the fault server, or with a cluster the forwarder in front of it (the JVM itself
            # is not stopped: its own threads would time out as no real cluster's do)
            self.signal(self.fwd if self.cluster else self.fs, signal.SIGSTOP)
        elif k == "partition":
            subprocess.run(["ip", "-n", self.ns(f["agent"]), "link", "set", "eth0", "down"], check=True)
        elif k == "net_delay":
            self.set_fwd(f["delay_ms"], self.cur_loss())
        elif k == "net_loss":
            self.set_fwd(self.cur_delay(), f["loss"])
        elif k == "mode":
            self.fs_unstopped()
            self.fs_call("PUT", f"/_fault/mode/{f['mode']}")
        elif k == "slow_disk":
            self.set_slow(max(f["delay_ms"], self.cur_slow()))
        elif k == "disk_full":
            fill = os.path.join(self.res, ".chaos-fill")
            try:
                with open(fill, "wb") as fh:
                    chunk = b"\0" * (1 << 20)
                    while True:
                        fh.write(chunk)
            except OSError:
                pass
        self.applied.append(f)
        self.log(f"fault {json.dumps(f, sort_keys=True)}")

    def restore(self, f):
        k = f["kind"]
        if k == "kill_agent":
            p = self.agents.get(f["agent"])
            if p is not None and p.poll() is None:
                # alive: an overlapping kill_agent of the same agent ended first and started it
                # again (waiting here for it would hang the driver: seed 26 with --net 1)
                self.log(f"agent {f['agent']} already running again")
                return
            self.start_agent(f["agent"])
        elif k == "stop_agent":
            self.signal(self.agents.get(f["agent"]), signal.SIGCONT)
        elif k == "stop_coordinator":
            self.signal(self.coord, signal.SIGCONT)
        elif k == "stop_target":
            self.signal(self.fwd if self.cluster else self.fs, signal.SIGCONT)
        elif k == "partition":
            if not any(g["kind"] == "partition" and g is not f and g["agent"] == f["agent"]
                       for g, _ in self.active):
                subprocess.run(["ip", "-n", self.ns(f["agent"]), "link", "set", "eth0", "up"],
                               check=True)
        elif k in ("net_delay", "net_loss"):
            self.set_fwd(self.cur_delay(f), self.cur_loss(f))
        elif k == "slow_disk":
            self.set_slow(self.cur_slow(f))
        elif k == "mode":
            # back to "ok" once no other mode fault is still on
            if not any(g["kind"] == "mode" and g is not f for g, _ in self.active):
                self.fs_unstopped()
                self.fs_call("PUT", "/_fault/mode/ok")
        elif k == "disk_full":
            if not any(g["kind"] == "disk_full" and g is not f for g, _ in self.active):
                try:
                    os.unlink(os.path.join(self.res, ".chaos-fill"))
                except OSError:
                    pass
        self.log(f"restored {k}")

    def cur_delay(self, without=None):
        """the largest delay of the net_delay faults still on (but `without`)"""
        return max([g["delay_ms"] for g, _ in self.active
                    if g["kind"] == "net_delay" and g is not without] or [0])

    def cur_loss(self, without=None):
        return max([g["loss"] for g, _ in self.active
                    if g["kind"] == "net_loss" and g is not without] or [0])

    # --- the run -----------------------------------------------------------------------------

    def run(self):
        a = self.a
        self.dur = secs(a.duration)
        self.slow = not a.no_slow_disk or self.sd_base > 0
        if self.slow and not os.path.exists(self.shim):
            raise SystemExit(f"chaos: {self.shim} is missing: build it (cmake --build "
                             f"{self.build} --target bf_slowdisk), or run with --no-slow-disk")
        self.faults = schedule(a.seed, a.faults, self.dur, self.root, bool(self.net),
                               bool(self.cluster), slow=not a.no_slow_disk)
        if a.schedule:
            # a schedule printed by an earlier run (one JSON object a line, or a JSON list)
            with open(a.schedule) as fh:
                text = fh.read().strip()
            fs = json.loads(text) if text.startswith("[") else [
                json.loads(ln) for ln in text.split("\n") if ln.strip()]
            self.faults = sorted(fs, key=lambda f: f["t"])[:a.faults]
        if not self.root:
            self.notes.append("disk_full not drawn: not root (a tmpfs needs mount)")
        if not self.net:
            self.notes.append("partitions, delay and loss not drawn: --net 0 (or not root)")
        else:
            self.notes.append("delay and loss by the forwarder (chaos_forward.py): this kernel "
                              "has no sch_netem for tc netem")
        if self.cluster:
            self.notes.append("the fault server's modes not drawn: a real cluster (" + self.cluster + ")")
        if self.slow:
            self.notes.append("slow disk by an LD_PRELOAD shim (tests/support/bf_slowdisk.c) in "
                              "the coordinator and the agents: this kernel has no device-mapper "
                              "driver for dm-delay, cgroup v1 blkio does not throttle buffered "
                              "writes, libfuse is not installed")
        if a.no_slow_disk:
            self.notes.append("slow_disk not drawn: --no-slow-disk (the earlier menu's schedules)")
        if self.sd_base:
            self.notes.append(f"the results directory slowed {self.sd_base} ms per call "
                              f"({a.slow_disk_ops or 'every call'}) for the whole campaign")
        os.makedirs(self.res, exist_ok=True)
        self.set_slow(self.sd_base)
        self.active = []
        if self.root:
            subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", self.res], check=True)
            self.mounted = True
        self.port = a.port
        self.t0 = time.time()
        if not self.cluster:
            self.start_fs()
        if self.net:
            self.net_setup()
            self.start_fwd()
        self.write_scenario()
        for aid in AGENTS:
            self.start_agent(aid)
        self.start_coord()
        pending = list(self.faults)
        self.active = []  # (fault, end time)
        self.killed_coord = False
        snaps = {}
        deadline = self.t0 + self.dur + 240
        finished = False
        last_snap = 0.0
        while time.time() < deadline:
            now = time.time() - self.t0
            while pending and pending[0]["t"] <= now:
                f = pending.pop(0)
                try:
                    self.apply(f)
                except OSError as exc:  # the fault server stopped (stop_target): try later
                    self.log(f"fault {f['kind']} not applied now ({exc}); again in 0.5 s")
                    f["t"] = round(now + 0.5, 2)
                    pending.insert(0, f)
                    break
                self.active.append((f, now + f["for_s"]))
            for item in [x for x in self.active if x[1] <= now]:
                try:
                    self.restore(item[0])
                except OSError as exc:
                    self.log(f"restore {item[0]['kind']} failed now ({exc}); again in 0.5 s")
                    continue
                self.active.remove(item)
            if time.time() - last_snap >= 1.0:
                camp = self.campaign_dir()
                if camp:
                    for s in chaos_check.snapshot(camp):
                        snaps[s["path"]] = s
                last_snap = time.time()
            rc = self.coord.poll()
            if rc is not None:
                coord_faults = any(f["kind"] == "kill_coordinator" for f, _ in self.active)
                if coord_faults:
                    pass  # resumed when the fault ends
                elif self.killed_coord or pending or self.active or rc == 3:
                    self.log(f"coordinator exit {rc}; resuming")
                    self.killed_coord = False
                    if self.resumes >= 10:
                        self.notes.append("gave up after 10 resumes")
                        break
                    self.start_coord()
                else:
                    self.log(f"campaign ended: coordinator exit {rc}")
                    finished = True
                    break
            time.sleep(0.05)
        if not finished:
            self.notes.append("interrupted at the time bound")
            self.signal(self.coord, signal.SIGCONT)
            self.signal(self.coord, signal.SIGINT)
        # the stopped target first: the fault server's mode is put back through it
        for f, _ in sorted(self.active, key=lambda x: x[0]["kind"] != "stop_target"):
            try:
                self.restore(f)
            except OSError:
                pass
            self.active = [x for x in self.active if x[0] is not f]
        return finished, snaps

    def stop_all(self):
        for p in list(self.agents.values()) + [self.coord]:
            self.signal(p, signal.SIGCONT)
            self.signal(p, signal.SIGTERM)
        end = time.time() + 10
        for p in list(self.agents.values()) + [self.coord]:
            if p is None:
                continue
            try:
                p.wait(max(0.1, end - time.time()))
            except subprocess.TimeoutExpired:
                self.notes.append(f"pid {p.pid} ignored SIGTERM for 10 s: killed")
                p.kill()
                p.wait()

    def truth(self):
        t = {}
        self.signal(self.fs, signal.SIGCONT)
        self.signal(self.fwd, signal.SIGCONT)
        if self.cluster:
            time.sleep(3)  # what the cluster still works on after its clients went away
        for b in BATCHES:
            for c in CONCS:
                idx = f"chaos-b{b}-c{c}"
                try:
                    if self.cluster:
                        self.fs_call("POST", f"/{idx}/_refresh")
                    t[idx] = self.fs_call("GET", f"/{idx}/_count").get("count", 0)
                except urllib.error.HTTPError as exc:
                    if exc.code == 404:
                        t[idx] = 0  # never created: no cell got that far
                    else:
                        self.notes.append(f"_count of {idx}: {exc}")
                except OSError as exc:
                    self.notes.append(f"_count of {idx}: {exc}")
        if self.cluster:
            try:
                self.fs_call("DELETE", "/chaos-b*")
            except OSError as exc:
                self.notes.append(f"deleting the chaos-b* indices: {exc}")
        return t

    def finish(self):
        for p in (self.fwd,):
            if p is not None:
                self.signal(p, signal.SIGCONT)
                self.signal(p, signal.SIGTERM)
                try:
                    p.wait(10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        if self.net:
            self.net_teardown()
        if self.fs is not None:
            self.signal(self.fs, signal.SIGCONT)
            self.signal(self.fs, signal.SIGTERM)
            try:
                self.fs.wait(10)
            except subprocess.TimeoutExpired:
                self.fs.kill()
                self.fs.wait()
        if self.mounted:
            # keep the results: copy them out of the tmpfs before it goes
            subprocess.run(["cp", "-a", self.res, self.res + ".saved"], check=False)
            subprocess.run(["umount", "-l", self.res], check=False)
            self.mounted = False


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--faults", type=int, required=True)
    ap.add_argument("--duration", default="30s", help="window of the faults (30s)")
    ap.add_argument("--port", type=int, default=0, help="coordinator port (data port + 1)")
    ap.add_argument("--out", default="", help="work directory (default: a new one under TMPDIR)")
    ap.add_argument("--net", type=int, default=-1,
                    help="agents in network namespaces of 10.214.N.0/24 (N 1..9; default 1 as "
                         "root with ip netns, else 0: all on 127.0.0.1)")
    ap.add_argument("--cluster", default="",
                    help="a running dev cluster (http://127.0.0.1:PORT) as the target instead of "
                         "the fault server")
    ap.add_argument("--no-slow-disk", action="store_true",
                    help="no slow_disk in the menu: the schedules of the earlier runs")
    ap.add_argument("--slow-disk-ms", type=int, default=0,
                    help="slow the results directory by MS per call for the whole campaign")
    ap.add_argument("--slow-disk-ops", default="",
                    help="with the shim, only these calls (comma list of open, write, fsync, "
                         "flush, rename; default all)")
    ap.add_argument("--schedule", default="",
                    help="replay these faults (a file of the schedule lines a violation prints) "
                         "instead of drawing them from --seed; --faults caps how many")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    if a.net < 0:
        a.net = 1 if os.geteuid() == 0 and subprocess.run(
            ["ip", "netns", "list"], capture_output=True).returncode == 0 else 0
    if a.net > 9:
        ap.error("--net N: 0 to 9")
    if a.cluster and not a.cluster.startswith("http://127.0.0.1:"):
        ap.error("--cluster: http://127.0.0.1:PORT (traffic only to this host)")
    if a.slow_disk_ms < 0 or a.slow_disk_ms > 60000:
        ap.error("--slow-disk-ms: 0 to 60000")
    if a.faults < 0 or secs(a.duration) < 5:
        ap.error("--faults >= 0 and --duration >= 5s")
    if a.port == 0:
        import socket
        for _ in range(100):
            p = random.randint(22000, 32000)
            ok = True
            for q in (p, p + 1):
                s = socket.socket()
                try:
                    s.bind(("127.0.0.1", q))
                except OSError:
                    ok = False
                finally:
                    s.close()
            if ok:
                a.port = p
                break
    c = Chaos(a)
    finished = False
    snaps = {}
    truth = {}
    try:
        finished, snaps = c.run()
        c.stop_all()
        truth = c.truth()
    finally:
        try:
            c.stop_all()
        except Exception:  # noqa: BLE001 — stopping is best effort here, checked by I6
            pass
        camp_before = c.campaign_dir()
        c.finish()
    camp = camp_before
    if camp and c.root:
        camp = camp.replace(c.res, c.res + ".saved", 1)
        snaps = {k.replace(c.res, c.res + ".saved", 1): dict(v, path=v["path"].replace(c.res, c.res + ".saved", 1))
                 for k, v in snaps.items()}
    cells = [{"id": f"i1-s1-r0-b{b}-c{cc}", "index": f"chaos-b{b}-c{cc}"}
             for b in BATCHES for cc in CONCS]
    h = chaos_check.history_from(camp or os.path.join(c.out, "none"), cells, truth,
                                 list(snaps.values()), c.procs, c.applied, seed=a.seed,
                                 nfaults=len(c.applied), duration=a.duration,
                                 resumes=c.resumes, notes=c.notes, finished=finished)
    with open(os.path.join(c.out, "history.json"), "w") as fh:
        json.dump(h, fh, indent=1)
    if c.net:
        left = [n.split(" ")[0] for n in subprocess.run(["ip", "netns", "list"], capture_output=True,
                text=True).stdout.split("\n") if n.startswith(f"bfc{c.net}-")]
        h["processes"] += [{"pid": 0, "what": f"namespace {n}", "alive": True} for n in left]
    v = chaos_check.check(h)
    print(f"chaos: seed {a.seed}, {len(c.applied)} of {a.faults} faults applied over "
          f"{a.duration}, {c.resumes} resumes, work dir {c.out}")
    for n in c.notes:
        print(f"chaos: note: {n}")
    kinds = {}
    for f in c.applied:
        key = f["kind"] + (":" + f["mode"] if f["kind"] == "mode" else "")
        kinds[key] = kinds.get(key, 0) + 1
    print("chaos: faults by kind: " + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())))
    if c.slow:
        n, sl = c.slowed()
        print(f"chaos: slow disk: {n} calls on the results directory slowed, {sl:.1f} s in all")
    for cid in [x["id"] for x in cells]:
        r = h["rows"].get(cid)
        if r:
            idx = [x["index"] for x in cells if x["id"] == cid][0]
            state = "failed" if r.get("failed") else "verified" if r.get("verified") else "unverified"
            print(f"chaos: cell {cid}: {state}, ok {r.get('docs_ok_all')}, unknown "
                  f"{r.get('docs_unknown_all')}, counted {r.get('docs_counted')}, target "
                  f"{truth.get(idx)}{', degraded' if r.get('degraded') else ''}")
    print(chaos_check.report(h, v))
    return 0 if not v else 1


if __name__ == "__main__":
    sys.exit(main())
