#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# docs_commands — every command the README and docs/*.md show (each line of a ```sh block, each
# "$ " line of a transcript) is run here, against the real test cluster, or is named below with
# the test that runs it (the few that need root, Ansible, make or minutes). A page that shows a
# command this test does not know fails it, naming the page and line; an entry no page shows
# any more fails it too. What runs here runs as shown, with only these rewrites: /etc/bulkfleet
# becomes a folder here, the cluster is the test cluster (BF_TARGET), coord:7100 and
# 0.0.0.0:7100 a free port on 127.0.0.1, 10.1.0.0/16 127.0.0.1, results/<name>-<time> the
# directory an earlier command wrote, and a campaign's cells are cut to a short window
# (--warmup 1s --duration 3s when the command gives none: the cluster is warmed first). Transcripts are compared with the
# program's output: every line shown appears, in order ("..." stands for lines left out).
source "$(dirname "$0")/lib.sh"
D="$TMP/docs"
mkdir -p "$D/bin"
cp -r "$SRC/examples" "$D/examples"
cp -r "$SRC/examples/dict" "$SRC/examples/mappings" "$D/"
ln -s "$BUILD" "$D/build"
ln -s "$COORD" "$D/bin/bulkfleet-coordinator"
ln -s "$AGENT" "$D/bin/bulkfleet-agent"
cd "$D"
P=$(free_port)
warm_cluster "$ES"

python3 - "$SRC" "$D" "$ES" "$P" <<'PY'
import os, re, signal, subprocess, sys, glob, time

SRC, D, ES, PORT = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
ENV = dict(os.environ, PATH=f"{D}/bin:" + os.environ["PATH"], BF_TARGET=ES)
ENV.pop("ES_PASSWORD", None)


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def commands(path):
    """(line, command) of every command the page shows."""
    out, block, lines = [], None, []

    def flush():
        dollar = any(l.startswith("$ ") for _, l in lines)
        for k, (no, l) in enumerate(lines):
            if block in ("sh", "bash", "console") and not dollar:
                c = l.strip()
                if c and not c.startswith("#"):
                    out.append((no, re.sub(r"\s+#.*$", "", c), None))
            elif l.startswith("$ "):
                # the transcript: the lines after it up to the next "$ "
                shown = []
                for _, m in lines[k + 1:]:
                    if m.startswith("$ "):
                        break
                    shown.append(m)
                out.append((no, re.sub(r"\s+#.*$", "", l[2:].strip()), shown))

    for no, line in enumerate(open(path), 1):
        s = line.rstrip("\n")
        m = re.match(r"^\s*```(\w*)\s*$", s)
        if m:
            if block is None:
                block, lines = m.group(1), []
            else:
                flush()
                block = None
            continue
        if block is not None:
            lines.append((no, s))
    return out


pages = [f"{SRC}/README.md"] + sorted(glob.glob(f"{SRC}/docs/*.md"))
shown = {}
for p in pages:
    for no, c, transcript in commands(p):
        shown.setdefault(c, []).append((os.path.relpath(p, SRC), no, transcript))

# --- the commands run by another test, and why not here --------------------------------------
ELSEWHERE = {
    "make demo": ("make demo", "scripts/demo.sh: a cluster on 9200 and 5 minutes of load; "
                  "integration_examples runs examples/demo.yaml scaled down"),
    "make check": ("make check", "the whole suite, this test in it"),
    "scripts/devcluster.sh start --nodes 1 --http-port 9200 --state-dir .state/mine":
        ("devcluster_start", "the same script, the test cluster's ports"),
    "scripts/devcluster.sh stop --state-dir .state/mine": ("devcluster_stop", "the same script"),
    "(cd build && cpack -G DEB)": ("deploy_ansible", "builds the .deb with cpack (root)"),
    "cp -r deploy/ansible/inventory/example deploy/ansible/inventory/prod":
        ("deploy_ansible", "its inventory is the example's shape, written for its hosts"),
    "cd deploy/ansible": ("deploy_ansible", "runs the playbooks from deploy/ansible"),
    "ansible-playbook -i inventory/prod site.yml": ("deploy_ansible", "site.yml over SSH (root)"),
    "ansible-playbook -i inventory/prod campaign.yml -e bulkfleet_scenario=../../examples/shard-study.yaml":
        ("deploy_ansible", "campaign.yml with a 1-cell scenario (root)"),
    "build/coordinator/bulkfleet-coordinator find-max examples/find-max.yaml --local-agents 2":
        ("integration_findmax", "a short find-max on the real test cluster (minutes here)"),
    "BF_TARGET=http://127.0.0.1:19700 bulkfleet-coordinator find-max examples/find-max.yaml --local-agents 2 -q":
        ("integration_findmax", "its output's shape: the path table and the answer line"),
    "bulkfleet-coordinator import-rally vectorsearch --workload-params vectorsearch/params/lucene-sift-128-l2.json":
        ("integration_import_vectors", "the published workload needs its HDF5 data set; the test "
         "imports a vectorsearch workload of the same shape with --workload-params"),
    "bulkfleet-coordinator import-rally random_vector --track-params dims:768":
        ("integration_import_vectors", "a random_vector track of the same shape, with "
         "--track-params"),
}
tests_known = open(f"{SRC}/tests/CMakeLists.txt").read()
for c, (test, why) in ELSEWHERE.items():
    if not test.startswith("make ") and test not in tests_known:
        fail(f"ELSEWHERE names {test}, which tests/CMakeLists.txt does not register")


# --- the commands run here ---------------------------------------------------------------------
def sh(cmd, rc=0, timeout=180, env=None):
    r = subprocess.run(["bash", "-c", cmd], cwd=D, env=env or ENV, capture_output=True,
                       text=True, timeout=timeout)
    if rc is not None and r.returncode != rc:
        fail(f"`{cmd}` exit {r.returncode}, expected {rc}\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}")
    return r


def newest_results(before):
    dirs = sorted(set(glob.glob(f"{D}/results/*")) - before, key=os.path.getmtime)
    if not dirs:
        fail("no results directory written")
    return dirs[-1]


def campaign(cmd):
    """Run a campaign (short window unless the command gives one); return its results dir."""
    before = set(glob.glob(f"{D}/results/*"))
    if "--duration" not in cmd:
        cmd += " --warmup 1s --duration 3s"
    if "--first-warmup" not in cmd:
        # the quickstart's first cell warms a fresh JVM for 30 s (run.first_warmup, which
        # --warmup no longer shortens); the test cluster is warm by now
        cmd += " --first-warmup 0s"
    if "--bind" not in cmd:
        cmd += f" --bind tcp://127.0.0.1:{PORT}"
    # exit 1 is accepted only for a row flagged stalled or few-requests: on a loaded 2-core
    # host a 3 s window may see no bulk answer complete; the row must still be verified
    r = sh(cmd, None)
    d = newest_results(before)
    import json
    m = json.load(open(f"{d}/matrix.json"))
    for row in m["rows"]:
        if not row.get("verified"):
            fail(f"`{cmd}`: row {row.get('cell')} not verified: {row.get('reason')}")
        for bad in ("failed", "aborted", "degraded", "target_missed"):
            if row.get(bad):
                fail(f"`{cmd}`: row {row.get('cell')} {bad}: {row.get('reason')}")
    if r.returncode not in (0, 1) or (r.returncode == 1 and not any(
            row.get("stalled") or row.get("few_requests") for row in m["rows"])):
        fail(f"`{cmd}` exit {r.returncode}\n{r.stderr[-3000:]}")
    return d, m


def keydirs(cmd):
    return cmd.replace("/etc/bulkfleet", f"{D}/etc")


ran = {}


def did(c, what):
    if c not in shown:
        fail(f"this test runs `{c}`, which no page shows any more: update the test")
    ran[c] = what
    print(f"PASS: {c}  ->  {what}")


def transcript_check(c, out):
    for page, no, t in shown[c]:
        if t is None:
            continue
        got = out.splitlines()
        i = 0
        for line in t:
            if line.strip() in ("...", ""):
                continue
            while i < len(got) and got[i].rstrip() != line.rstrip():
                i += 1
            if i == len(got):
                fail(f"{page}:{no}: `{c}` does not print, in this order, the line\n  {line}\n"
                     f"it printed:\n{out}")
            i += 1


# checks without a cluster
c = "build/coordinator/bulkfleet-coordinator validate examples/quickstart.yaml"
sh(c); did(c, "exit 0")
c = "build/coordinator/bulkfleet-coordinator plan examples/shard-study.yaml --agents 4"
r = sh(c)
if "51 cells" not in r.stdout:
    fail(f"plan shard-study: no '51 cells'\n{r.stdout[:2000]}")
did(c, "exit 0, 51 cells")
c = "build/agent/bulkfleet-agent render examples/quickstart.yaml --cell 1 --requests 1 | head -c 600"
r = sh(c)
if not r.stdout.startswith("{"):
    fail(f"render: not NDJSON: {r.stdout[:200]}")
did(c, "NDJSON")

# the README's mistakes, in files that have them where it says
open(f"{D}/bad.yaml", "w").write(
    "name: t\ntarget: {hosts: [http://127.0.0.1:9200]}\ndocument: {source: '{\"a\": 1}'}\n"
    "matrix: {batch_size: [10]}\nindex:\n  setings: {refresh_interval: 1s}\n\n\n\n\n"
    "run: {warmup: 1s, durration: 10s, repeat: two}\n")
open(f"{D}/later.yaml", "w").write("""name: t
target: {hosts: [http://127.0.0.1:9200]}
variables:
  - {name: uuid, type: uuid}
  - {name: n, type: range, from: 1, to: 9}
document:
  id: $[[uid]]
  source: '{"a": $[[nope]], "b": "$[[n]]", "c": "$[[alsonot]]", "d": $[[n}'
matrix:
  shards: [1, 1]
  batch_size: [500, big, 0]
  compression: [gzip, zip]
  concurency: [2, 4]
  exclude:
    - {shards: 7}
""")
for c in ("bulkfleet-coordinator validate bad.yaml", "bulkfleet-coordinator validate later.yaml"):
    r = sh(c, 2)
    transcript_check(c, r.stderr)
    did(c, "exit 2, the lines shown")

# docs/scenario.md's annotated example, duration misspelt on its line 61
text = open(f"{SRC}/docs/scenario.md").read()
block = re.search(r"```yaml\n(.*?)```", text[text.index("## A complete annotated example"):], re.S)[1]
lines = block.split("\n")
if "duration:" not in lines[60]:
    fail(f"docs/scenario.md: the annotated example's line 61 is not run.duration: {lines[60]!r}")
lines[60] = lines[60].replace("duration:", "durration:", 1)
open(f"{D}/broken.yaml", "w").write("\n".join(lines))
c = "ES_PASSWORD=x bulkfleet-coordinator validate broken.yaml"
r = sh(c, 2)
transcript_check(c, r.stderr)
did(c, "exit 2, the lines shown")
did("echo $?", "2, above")

# the scenario reference's first commands, on the README's sketch saved as my.yaml
readme = open(f"{SRC}/README.md").read()
sketch = re.search(r"```yaml\n(.*?)```", readme, re.S)[1]
open(f"{D}/my.yaml", "w").write(sketch)
c = "bulkfleet-coordinator validate my.yaml"
sh(c); did(c, "exit 0 (the README's sketch)")
c = "bulkfleet-coordinator plan my.yaml --agents 4"
r = sh(c)
if "8 cells" not in r.stdout:
    fail(f"plan my.yaml: not 8 cells\n{r.stdout[:2000]}")
did(c, "exit 0, 8 cells")
c = "bulkfleet-agent render my.yaml --cell 1 --requests 1"
r = sh(c)
if r.stdout.count("\n") != 2 * 500:
    fail(f"render my.yaml: {r.stdout.count(chr(10))} lines, expected 1000 (batch 500)")
did(c, "1000 lines: 500 documents")

c = "bulkfleet-coordinator size --daily-gb 100 --days 30 --warm-days 365 --ram-gb 64 --failover"
r = sh(c)
transcript_check(c, r.stdout)
did(c, "the output shown")

# the converters
c = "build/coordinator/bulkfleet-coordinator import-loadgen loadgen.yml -c 100 -d 60 > scenario.yaml"
sh(f"cp {SRC}/tests/fixtures/loadgen/003-loadgen2.yml loadgen.yml && cp -r {SRC}/tests/fixtures/loadgen/dict . && cp {SRC}/tests/fixtures/loadgen/nginx.log .")
sh(c)
sh("bulkfleet-coordinator validate scenario.yaml")
did(c, "a scenario that validates")
os.makedirs(f"{D}/home/rally-tracks/http_logs", exist_ok=True)
tr = f"{D}/home/rally-tracks/http_logs"
open(f"{tr}/documents.json", "w").write("".join('{"status": %d, "n": %d}\n' % (200 + i % 3, i) for i in range(100)))
open(f"{tr}/index.json", "w").write('{"settings": {"index.number_of_shards": 1}, "mappings": {"properties": {"status": {"type": "integer"}}}}')
open(f"{tr}/track.json", "w").write("""{"version": 2, "indices": [{"name": "logs", "body": "index.json"}],
 "corpora": [{"name": "logs", "documents": [{"source-file": "documents.json", "document-count": 100, "target-index": "logs"}]}],
 "challenges": [{"name": "c", "default": true, "schedule": [
   {"operation": {"name": "bulk", "operation-type": "bulk", "bulk-size": 50}, "clients": 2}]}]}""")
c = "build/coordinator/bulkfleet-coordinator import-rally ~/rally-tracks/http_logs -o http_logs.yaml"
sh(c, env=dict(ENV, HOME=f"{D}/home"))
did(c, "http_logs.yaml written")
c = "build/coordinator/bulkfleet-coordinator validate http_logs.yaml"
sh(c); did(c, "exit 0")
c = "build/coordinator/bulkfleet-coordinator plan http_logs.yaml --agents 4"
r = sh(c)
if "1 cell" not in r.stdout:
    fail(f"plan http_logs.yaml: not 1 cell\n{r.stdout[:2000]}")
did(c, "exit 0, 1 cell")

# a first campaign on one host
c = "BF_TARGET=http://127.0.0.1:9200 build/coordinator/bulkfleet-coordinator run examples/quickstart.yaml --local-agents 2"
d1, m = campaign(c.replace("http://127.0.0.1:9200", ES) + " --cells 1")
did(c, f"cell 1, verified ({os.path.basename(d1)})")
c = "build/agent/bulkfleet-agent run examples/quickstart.yaml --cell 1 --threads 2 --warmup 2s --duration 10s"
sh(c.replace("--duration 10s", "--duration 2s --first-warmup 0s"))
did(c, "exit 0 (2 s window)")

# across hosts: keys, two agents, the campaign over CURVE
c = "bulkfleet-coordinator keygen /etc/bulkfleet"
sh(keydirs(c)); did(c, "coordinator.key/.pub, agents/")
c = "bulkfleet-agent keygen /etc/bulkfleet"
for a in ("load1", "load2"):
    sh(keydirs(c).replace(f"{D}/etc", f"{D}/etc-{a}"))
    sh(f"cp etc-{a}/agent.pub etc/agents/{a}.pub && cp etc/coordinator.pub etc-{a}/")
did(c, "agent.key/.pub, twice")
c = "bulkfleet-agent --coordinator tcp://coord:7100 --keys /etc/bulkfleet --id load1 --allow-target 10.1.0.0/16"
agents = []
for a in ("load1", "load2"):
    cmd = (c.replace("tcp://coord:7100", f"tcp://127.0.0.1:{PORT}")
           .replace("/etc/bulkfleet", f"{D}/etc-{a}").replace("load1", a)
           .replace("10.1.0.0/16", "127.0.0.1"))
    agents.append(subprocess.Popen(["bash", "-c", "exec timeout 120 " + cmd], cwd=D, env=ENV,
                                   stdout=open(f"{D}/{a}.out", "w"), stderr=subprocess.STDOUT))
c2 = "BF_TARGET=http://es1:9200 bulkfleet-coordinator run examples/quickstart.yaml --bind tcp://0.0.0.0:7100 --keys /etc/bulkfleet --agents 2"
try:
    d2, m = campaign(keydirs(c2).replace("http://es1:9200", ES)
                     .replace("0.0.0.0:7100", f"127.0.0.1:{PORT}") + " --cells 1")
finally:
    for p in agents:
        p.send_signal(signal.SIGTERM)
        p.wait(30)
row = m["rows"][0]
series = "".join(open(f).read() for f in glob.glob(f"{d2}/cells/*.ndjson"))
if row.get("agents") != 2 or '"agent":"load1"' not in series.replace(" ", "") \
        or '"agent":"load2"' not in series.replace(" ", ""):
    fail(f"the across-hosts row: {row.get('agents')} agents; load1 and load2 not both in cells/")
did(c, "two agents load1, load2 over CURVE")
did(c2, f"cell 1 on 2 agents, verified ({os.path.basename(d2)})")

# docs/results.md and docs/scenario.md: a smoke run, report, compare, trend
c = "bulkfleet-coordinator run examples/quickstart.yaml --cells 1,8 --warmup 1s --duration 3s --local-agents 2"
d3, m = campaign(c)
if len(m["rows"]) != 2:
    fail(f"--cells 1,8: {len(m['rows'])} rows")
did(c, "2 rows, verified")
c = "bulkfleet-coordinator report results/quickstart-20261129T190642Z"
sh(c.replace("results/quickstart-20261129T190642Z", d3)); did(c, "report.html redrawn")
c = "bulkfleet-coordinator compare results/base-... results/new-... [--csv]"
r = sh(f"bulkfleet-coordinator compare {d1} {d2}")
r2 = sh(f"bulkfleet-coordinator compare {d1} {d2} --csv")
if "i1-s1-r0-b500-c2" not in r.stdout or "i1-s1-r0-b500-c2" not in r2.stdout:
    fail(f"compare: cell 1 not compared\n{r.stdout}")
did(c, "cell 1 compared, text and --csv")
c = "bulkfleet-coordinator compare results/os-2.17-... results/os-2.18-... results/os-2.19-..."
r = sh(f"bulkfleet-coordinator compare {d1} {d2} {d3}")
if "#3" not in r.stdout:
    fail(f"trend: no '#3' line\n{r.stdout}")
did(c, "the trend over 3 campaigns")
c = "bulkfleet-coordinator plan examples/quickstart.yaml"
sh(c); did(c, "exit 0")
c = "bulkfleet-coordinator run examples/quickstart.yaml --cells 1,i1-s2-r0-b2000-c4 --local-agents 2"
_, m = campaign(c)
if [r["cell"] for r in m["rows"]] != ["i1-s1-r0-b500-c2", "i1-s2-r0-b2000-c4"]:
    fail(f"--cells 1,i1-s2-r0-b2000-c4: rows {[r['cell'] for r in m['rows']]}")
did(c, "cells 1 and 8, verified (3 s windows)")
c = "bulkfleet-coordinator run examples/quickstart.yaml --cells 3 --warmup 1s --duration 3s --local-agents 2"
campaign(c); did(c, "cell 3, verified")

# the metrics store: publish the smoke run into the test cluster
c = "bulkfleet-coordinator publish results/shard-study-20261201T205245Z --metrics-store http://user:pw@127.0.0.1:9200"
r = sh(c.replace("results/shard-study-20261201T205245Z", d3)
       .replace("http://user:pw@127.0.0.1:9200", ES.replace("http://", "http://user:pw@"))
       )
out = r.stdout + r.stderr
if not re.search(r"published .*: 2 rows, .* documents; (\d+) indexed, 0 dropped", out):
    fail(f"publish: not 'published ... 2 rows ... 0 dropped'\n{out}")
did(c, "2 rows published, 0 dropped")

# every command shown is run here or named with its test; nothing stale
missing = [(page, no, c) for c, where in shown.items() for page, no, _ in where
           if c not in ran and c not in ELSEWHERE]
if missing:
    fail("commands shown that no test runs (run them here, or name the test in ELSEWHERE):\n" +
         "\n".join(f"  {p}:{n}: {c}" for p, n, c in missing))
stale = [c for c in ELSEWHERE if c not in shown]
if stale:
    fail("ELSEWHERE names commands no page shows: " + "; ".join(stale))
for c, (test, why) in ELSEWHERE.items():
    print(f"ELSEWHERE: {c}  ->  {test}: {why}")
print(f"PASS: {len(ran)} commands run here, {len(ELSEWHERE)} by other tests, "
      f"{sum(len(v) for v in shown.values())} shown in {len(pages)} pages")
PY
