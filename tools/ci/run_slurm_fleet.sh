#!/usr/bin/env bash
# Bazel test: fleet qualification on a real Slurm, all on this host (issue 25,
# docs/scale-out.md). It starts munged, slurmctld and slurmd from Debian's packages with a
# configuration of its own in a temporary folder (free ports, one node: this host), then:
#   1. a fleet of eight rows against the embedded reference, some pinned to this host's node
#      and some not: four that pass, one on a mutant (wrong-msn) that must fail, one with a
#      profile that does not exist, one with an agent that cannot be reached and one whose
#      node has no such verbs device (verbs:DEVICE: the agent the task starts refuses it),
#      which must all be errors, never passes. `fleet` submits, `fleet --collect --wait` collects; the
#      fleet report lists every row, the mutant first, and junit.xml is well-formed;
#   2. a task cancelled (scancel: SIGTERM) while its suite runs is reported as killed
#      (inconc), and a row pinned to a node that does not exist, which sbatch refuses, as
#      never ran (error).
# The daemons are stopped by their pid files and the folder removed on exit, always. Every
# wait is bounded. Not root, or a package missing: "SKIPPED: reason" (a failure under CI).
set -uo pipefail
metaroce=$(realpath "$1")
# Bazel's test PATH lacks the sbin folders, where the daemons are.
export PATH="$PATH:/usr/sbin:/sbin"
if [[ $(id -u) -ne 0 ]]; then echo "SKIPPED: needs root to run munged, slurmctld and slurmd"; exit 0; fi
for tool in munged slurmctld slurmd sbatch squeue sinfo scancel xmllint; do
  if ! command -v "$tool" >/dev/null; then
    echo "SKIPPED: $tool is missing (./metaroce test installs the slurm group)"
    exit 0
  fi
done
test_start=$(date +%s.%N)
# The suite and the catalog are in the runfiles, where the test runs.
export METAROCE_ROOT=$PWD

d=$(mktemp -d /tmp/mrslurm.XXXXXX)
chmod 755 "$d"
export SLURM_CONF="$d/slurm.conf"
fleets=()  # fleet folders whose jobs must be cancelled on exit

stop_daemon() {  # PIDFILE: TERM, then KILL after 10 s
  local pid
  [[ -s "$1" ]] || return 0
  pid=$(cat "$1")
  kill "$pid" 2>/dev/null || return 0
  for _ in $(seq 100); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  kill -9 "$pid" 2>/dev/null
}
cleanup() {
  local ids
  for f in "${fleets[@]}"; do
    ids=$(python3 -c 'import json,sys; print(",".join(a["job_id"] for a in json.load(open(sys.argv[1]))["arrays"] if a["job_id"]))' "$f/plan.json" 2>/dev/null)
    [[ -n "$ids" ]] && scancel "${ids//,/ }" 2>/dev/null
  done
  stop_daemon "$d/slurmd.pid"
  stop_daemon "$d/slurmctld.pid"
  stop_daemon "$d/munged.pid"
  rm -rf "$d"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"
  for log in munged.log slurmctld.log slurmd.log; do
    [[ -f "$d/$log" ]] && { echo "--- $log (last 20 lines)"; tail -20 "$d/$log"; }
  done
  exit 1
}

# Two free TCP ports, held open together so that they differ.
read -r ctld_port slurmd_port < <(python3 -c '
import socket
a, b = socket.socket(), socket.socket()
a.bind(("127.0.0.1", 0)); b.bind(("127.0.0.1", 0))
print(a.getsockname()[1], b.getsockname()[1])')
node=$(hostname -s)

# munge: a key of our own (root's: munged runs as root here), a socket in our folder.
dd if=/dev/urandom of="$d/munge.key" bs=1024 count=1 status=none
chmod 400 "$d/munge.key"
munged --force --key-file="$d/munge.key" --socket="$d/munge.socket" --pid-file="$d/munged.pid" \
  --log-file="$d/munged.log" --seed-file="$d/munge.seed" 2>"$d/munged.stderr" ||
  fail "munged did not start: $(cat "$d/munged.stderr")"

mkdir -p "$d/state" "$d/spool"
cat >"$d/slurm.conf" <<EOF
ClusterName=mrfleet
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
AuthInfo=socket=$d/munge.socket
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/slurmctld.log
SlurmdLogFile=$d/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
KillWait=5
MinJobAge=600
NodeName=$node NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=mrfleet Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld -f "$d/slurm.conf" || fail "slurmctld did not start"
slurmd -f "$d/slurm.conf" || fail "slurmd did not start"
idle=""
for _ in $(seq 300); do  # bounded: 30 s for the node to come up idle
  if sinfo -h -N -o '%N %t' 2>/dev/null | grep -q "^$node idle"; then idle=1; break; fi
  sleep 0.1
done
[[ -n "$idle" ]] || fail "node $node not idle after 30 s: $(sinfo -h -N -o '%N %t' 2>&1)"
echo "slurm up: node $node idle, slurmctld on port $ctld_port, slurmd on $slurmd_port"

# --- 1. eight rows: four pass, the mutant fails, three cannot run ----------------------
printf 'no-agent-answers\n' >"$d/token"
cat >"$d/lab.fleet.json" <<EOF
{"fleet": "slurm-test", "time_limit_min": 5,
 "rows": [
  {"name": "pinned-ack", "node": "$node", "dut": "reference", "filter": "RC-ACK-*"},
  {"name": "pinned-wf", "node": "$node", "dut": "reference", "filter": "RC-WF-00*"},
  {"name": "mutant-wrong-msn", "node": "$node", "dut": "reference", "filter": "RC-ACK-*",
   "mutants": ["wrong-msn"]},
  {"name": "any-ack", "dut": "reference", "filter": "RC-ACK-*"},
  {"name": "any-psn", "dut": "reference", "filter": "RC-PSN-00*"},
  {"name": "bad-profile", "dut": "reference", "profile": "no-such-profile", "filter": "RC-ACK-001"},
  {"name": "unreachable-agent", "dut": "agent://127.0.0.1:1", "token_file": "token",
   "iface": "lo", "filter": "RC-ACK-001"},
  {"name": "missing-nic", "dut": "verbs:mr-no-such-device", "iface": "lo", "filter": "RC-ACK-001"}
 ]}
EOF
fleet="$d/fleet"
fleets+=("$fleet")
"$metaroce" fleet "$d/lab.fleet.json" --out "$fleet" --dry-run >"$d/dry.log" 2>&1 ||
  fail "fleet --dry-run: $(cat "$d/dry.log")"
[[ $(grep -c '^sbatch --parsable ' "$d/dry.log") == 2 ]] || fail "dry run: not 2 sbatch lines: $(cat "$d/dry.log")"
grep -q "job_id\": \"\"" "$fleet/plan.json" || fail "dry run submitted something"
rm -rf "$fleet"

submit_start=$(date +%s.%N)
"$metaroce" fleet "$d/lab.fleet.json" --out "$fleet" >"$d/submit.log" 2>&1 ||
  fail "fleet: $(cat "$d/submit.log")"
cat "$d/submit.log"
collect_start=$(date +%s.%N)
"$metaroce" fleet --collect "$fleet" --wait 300 >"$d/collect.log" 2>&1
collect_code=$?
collect_end=$(date +%s.%N)
cat "$d/collect.log"
[[ $collect_code == 1 ]] || fail "fleet --collect exited $collect_code, expected 1 (a node failed)"
# Collecting again (nothing to wait for) measures the collection alone.
again_start=$(date +%s.%N)
"$metaroce" fleet --collect "$fleet" >/dev/null 2>&1
again_end=$(date +%s.%N)

python3 - "$fleet" "$node" <<'PY' || fail "fleet report"
import json, re, sys
fleet, node = sys.argv[1], sys.argv[2]
report = json.load(open(f"{fleet}/fleet.json"))
plan = json.load(open(f"{fleet}/plan.json"))
nodes = {n["name"]: n for n in report["nodes"]}
want = {"pinned-ack": "pass", "pinned-wf": "pass", "any-ack": "pass", "any-psn": "pass",
        "mutant-wrong-msn": "fail", "bad-profile": "error", "unreachable-agent": "error",
        "missing-nic": "error"}
errors = []
if sorted(nodes) != sorted(want):
    errors.append(f"fleet.json lists {sorted(nodes)}, want {sorted(want)}")
for name, verdict in want.items():
    n = nodes.get(name, {})
    if n.get("overall") != verdict:
        errors.append(f"{name}: {n.get('overall')} ({n.get('reason')}), want {verdict}")
    if n.get("status") != "finished":
        errors.append(f"{name}: status {n.get('status')}, want finished")
    if n.get("host") != node and n.get("host", "").split(".")[0] != node:
        errors.append(f"{name}: ran on {n.get('host')!r}, want {node!r}")
mutant = nodes.get("mutant-wrong-msn", {})
if "MR-AK-03" not in mutant.get("failing_clauses", []):
    errors.append(f"mutant: failing clauses {mutant.get('failing_clauses')} lack MR-AK-03")
if "MR-AK-03" not in mutant.get("outlier_clauses", []):
    errors.append(f"mutant: not an outlier on MR-AK-03: {mutant.get('outlier_clauses')}")
if report["nodes"][0]["name"] != "mutant-wrong-msn":
    errors.append(f"fleet.json's first node is {report['nodes'][0]['name']}")
for name, said in (("bad-profile", "no-such-profile.pics.json: cannot read"),
                   ("unreachable-agent", "agent://127.0.0.1:1: "),
                   ("missing-nic", "--dut verbs:mr-no-such-device: local agent: ")):
    reason = nodes.get(name, {}).get("reason", "")
    output = re.search(r"its messages are in (slurm/\S+\.out)", reason)
    if "without a report.json" not in reason or not output:
        errors.append(f"{name}: reason {reason!r}")
    elif said not in open(f"{fleet}/{output.group(1)}").read():
        errors.append(f"{name}: {output.group(1)} does not say {said!r}")
# The pinned rows ran in the array pinned to this node, the others in the partition's.
pinned = next(a for a in plan["arrays"] if a["node"] == node)
anywhere = next(a for a in plan["arrays"] if a["node"] == "")
for name, array in (("pinned-ack", pinned), ("any-ack", anywhere)):
    status = json.load(open(f"{fleet}/nodes/{name}/status.json"))
    if status["slurm"]["array_job_id"] != array["job_id"]:
        errors.append(f"{name}: ran in job {status['slurm']['array_job_id']}, want {array['job_id']}")
    if "findings" not in json.load(open(f"{fleet}/nodes/{name}/doctor.json"))["host"]:
        errors.append(f"{name}: doctor.json has no host findings")
html = open(f"{fleet}/index.html").read()
links = re.findall(r'<a class="mono" href="nodes/([^/]+)/run/index.html">', html)
if not links or links[0] != "mutant-wrong-msn":
    errors.append(f"index.html's first node link is {links[:1]}, want mutant-wrong-msn")
first_row = html.find('id="node-')
if html.find("mutant-wrong-msn", first_row) > html.find("pinned-ack", first_row):
    errors.append("index.html names pinned-ack before the mutant")
if "outlier" not in html:
    errors.append("index.html marks no outlier cell")
for e in errors:
    print(e)
sys.exit(1 if errors else 0)
PY
xmllint --noout "$fleet/junit.xml" || fail "junit.xml is not well-formed"
[[ $(grep -c '<testsuite ' "$fleet/junit.xml") == 8 ]] || fail "junit.xml: not one testsuite per row"
grep -q '<testsuite name="bad-profile" tests="1" failures="0" errors="1"' "$fleet/junit.xml" ||
  fail "junit.xml: bad-profile is not one error"
xmllint --html --noout "$fleet/index.html" 2>"$d/html.err" || fail "index.html: $(cat "$d/html.err")"
# One task, from its own status: started_at to finished_at (seconds).
task_s=$(python3 -c '
import json, sys, datetime
s = json.load(open(sys.argv[1]))
p = lambda t: datetime.datetime.strptime(t, "%Y-%m-%dT%H:%M:%SZ")
print(int((p(s["finished_at"]) - p(s["started_at"])).total_seconds()))' "$fleet/nodes/pinned-ack/status.json")

# --- 2. a cancelled task and a node that does not exist ---------------------------------
cat >"$d/cancel.fleet.json" <<EOF
{"fleet": "slurm-cancel", "time_limit_min": 5,
 "rows": [
  {"name": "whole-suite", "dut": "reference"},
  {"name": "nowhere", "node": "no-such-node", "dut": "reference", "filter": "RC-ACK-001"}
 ]}
EOF
cancel="$d/cancel"
fleets+=("$cancel")
"$metaroce" fleet "$d/cancel.fleet.json" --out "$cancel" >"$d/cancel-submit.log" 2>&1
code=$?
cat "$d/cancel-submit.log"
[[ $code == 2 ]] || fail "fleet with a node sbatch refuses exited $code, expected 2"
job=$(python3 -c 'import json,sys; print([a["job_id"] for a in json.load(open(sys.argv[1]))["arrays"] if a["node"] == ""][0])' "$cancel/plan.json")
[[ -n "$job" ]] || fail "the partition's array was not submitted"
running=""
for _ in $(seq 600); do  # bounded: 60 s for the task to start its suite
  if grep -q '"state": "running"' "$cancel/nodes/whole-suite/status.json" 2>/dev/null &&
    [[ -f "$cancel/nodes/whole-suite/doctor.json" ]]; then running=1; break; fi
  sleep 0.1
done
[[ -n "$running" ]] || fail "the whole-suite task did not start"
scancel "$job" || fail "scancel $job"
"$metaroce" fleet --collect "$cancel" --wait 60 >"$d/cancel-collect.log" 2>&1
code=$?
cat "$d/cancel-collect.log"
[[ $code == 1 ]] || fail "collect of a cancelled fleet exited $code, expected 1"
python3 - "$cancel" <<'PY' || fail "cancelled fleet report"
import json, sys
nodes = {n["name"]: n for n in json.load(open(f"{sys.argv[1]}/fleet.json"))["nodes"]}
errors = []
w, n = nodes["whole-suite"], nodes["nowhere"]
if (w["status"], w["overall"]) != ("killed", "inconc") or "SIGTERM" not in w["reason"]:
    errors.append(f"whole-suite: {w['status']} {w['overall']} {w['reason']!r}, want killed inconc by SIGTERM")
if (n["status"], n["overall"]) != ("never-ran", "error"):
    errors.append(f"nowhere: {n['status']} {n['overall']}, want never-ran error")
for e in errors:
    print(e)
sys.exit(1 if errors else 0)
PY

test_end=$(date +%s.%N)
printf 'timings: whole test %.1f s; fleet 1 submit to collected %.1f s; one task %s s (pinned-ack, status.json); collect with --wait %.1f s; collect alone %.2f s\n' \
  "$(echo "$test_end - $test_start" | bc)" "$(echo "$collect_end - $submit_start" | bc)" \
  "$task_s" "$(echo "$collect_end - $collect_start" | bc)" "$(echo "$again_end - $again_start" | bc)"
echo "PASS: fleet on Slurm: 8 rows judged (4 pass, mutant fail, 3 error), cancelled task inconc, unknown node never ran"
