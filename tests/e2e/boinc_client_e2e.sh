#!/usr/bin/env bash
# boinc_client_e2e.sh: end-to-end test of helix under the REAL BOINC client
# (/usr/bin/boinc), with no server: one mrf work unit is computed by the client,
# stopped after its first checkpoint, restarted, finished, then validated,
# compared with a standalone run and assimilated.
#
#   boinc_client_e2e.sh HELIX HELIX_WU HELIX_VALIDATE HELIX_ASSIMILATE WORKDIR
#
# Exit: 0 pass; 77 skip (no /usr/bin/boinc); anything else fails, with the
# client's log and the task's stderr printed. docs/boinc-e2e.md explains the
# client data directory and what the client does with it.
#
# Environment (optional):
#   HELIX_E2E_SIZE="NX NY NZ"   phantom size (default "384 384 128": ~10 s on one core)
#   HELIX_E2E_KEEP=1            keep WORKDIR's client data directory after a pass
set -euo pipefail

if (($# != 5)); then
  echo "usage: $0 HELIX HELIX_WU HELIX_VALIDATE HELIX_ASSIMILATE WORKDIR" >&2
  exit 2
fi
helix=$(realpath "$1") helix_wu=$(realpath "$2") helix_validate=$(realpath "$3") helix_assimilate=$(realpath "$4")
work=$5
here=$(cd "$(dirname "$0")" && pwd)
boinc=/usr/bin/boinc
if [[ ! -x $boinc ]]; then
  echo "SKIP: $boinc is missing (Debian package boinc-client)"
  exit 77
fi

read -r nx ny nz <<<"${HELIX_E2E_SIZE:-384 384 128}"
wu=e2e_mrf
result=${wu}_0
start_s=$SECONDS

rm -rf "$work"
mkdir -p "$work"
work=$(realpath "$work")
data=$work/client
slot=$data/slots/0
client_pid=

log() { printf '[e2e %3ds] %s\n' $((SECONDS - start_s)) "$*"; }

dump_logs() {
  echo "---- client log (stdoutdae.txt, last 60 lines) ----"
  tail -n 60 "$data/stdoutdae.txt" 2>/dev/null || true
  echo "---- client stderr (stderrdae.txt) ----"
  cat "$data/stderrdae.txt" 2>/dev/null || true
  echo "---- slot stderr.txt ----"
  cat "$slot/stderr.txt" 2>/dev/null || true
}

fail() {
  echo "FAIL: $*" >&2
  dump_logs >&2
  exit 1
}

# Ends the client we started (and only it) if the test exits early.
cleanup() {
  if [[ -n $client_pid ]] && kill -0 "$client_pid" 2>/dev/null; then
    kill -TERM "$client_pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$client_pid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$client_pid" 2>/dev/null || true
  fi
  # An app left behind by a killed client: found by its working directory.
  for pid in $(app_pids); do kill -KILL "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT

# PIDs of processes whose working directory is the task's slot.
app_pids() {
  local proc
  for proc in /proc/[0-9]*; do
    [[ $(readlink "$proc/cwd" 2>/dev/null) == "$slot" ]] && echo "${proc#/proc/}"
  done
  return 0
}

# Reads one field of the client's state file; prints "" when absent.
#   state_field result|active_task FIELD
state_field() {
  python3 - "$data/client_state.xml" "$result" "$1" "$2" <<'EOF'
import sys, xml.etree.ElementTree as ET
path, result, section, field = sys.argv[1:]
try:
    root = ET.parse(path).getroot()
except (OSError, ET.ParseError):
    print(""); sys.exit(0)
for node in root.iter(section):
    if node.findtext("result_name", node.findtext("name")) == result:
        value = node.find(field)
        print("" if value is None else (value.text or "present").strip())
        break
else:
    print("")
EOF
}

start_client() {
  (cd "$data" && exec "$boinc" --dir "$data" --no_gui_rpc --redirectio >/dev/null 2>&1) &
  client_pid=$!
  log "client started (pid $client_pid)"
}

# Stops the client the way a volunteer's shutdown does: SIGTERM. The client
# asks the app to quit (it checkpoints and exits), writes its state and exits.
stop_client() {
  kill -TERM "$client_pid"
  for _ in $(seq 1 300); do kill -0 "$client_pid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$client_pid" 2>/dev/null; then fail "client did not exit within 30 s of SIGTERM"; fi
  wait "$client_pid" 2>/dev/null || true
  client_pid=
  [[ -z $(app_pids) ]] || fail "the app outlived the client (pids $(app_pids))"
  log "client stopped"
}

# 1. The work unit: a phantom large enough to run for a while on one core.
log "making the work unit (${nx}x${ny}x${nz} phantom)"
"$helix_wu" mrf phantom --out "$work/phantom" --size "$nx" "$ny" "$nz" --noise 200 --seed 11 >/dev/null
"$helix_wu" mrf make --volume "$work/phantom/phantom.nii.gz" --name "$wu" --out "$work/wu" \
  --max-sweeps 100000 --tolerance 0 >/dev/null
for file in params.json volume.hxv wu_template.xml result_template.xml; do
  [[ -s $work/wu/$wu.$file ]] || fail "helix-wu mrf make wrote no $wu.$file"
done
rm -rf "$work/phantom"   # 30 MB we no longer need

# 2. The standalone reference: the same WU in a slot whose logical files are
#    BOINC soft links to the WU files (as the client makes them), so the
#    summary names the volume file exactly as under the client.
mkdir -p "$work/standalone"
printf '<soft_link>../wu/%s.params.json</soft_link>\n' "$wu" >"$work/standalone/params"
printf '<soft_link>../wu/%s.volume.hxv</soft_link>\n' "$wu" >"$work/standalone/volume"
log "standalone --cpu run"
standalone_start=$SECONDS
(cd "$work/standalone" && "$helix" --cpu) || fail "standalone run failed: $(cat "$work/standalone/stderr.txt")"
log "standalone run took $((SECONDS - standalone_start)) s"
for file in labels summary; do [[ -s $work/standalone/$file ]] || fail "standalone run wrote no $file"; done

# 3. The client data directory, from the WU's own templates (docs/boinc-e2e.md).
project=$(python3 "$here/make_client_dir.py" "$data" "$helix" "$work/wu" "$wu")

# 4. First client session: run until the task has checkpointed, then stop.
start_client
# Stop once the CLIENT knows of a checkpoint (log line from <checkpoint_debug>),
# not merely when the file appears: the client records checkpoint_cpu_time only
# after the app reports boinc_checkpoint_completed() through shared memory.
for _ in $(seq 1 1200); do
  [[ -s $slot/helix_checkpoint.state ]] && grep -q "\[checkpoint\] result $result checkpointed" "$data/stdoutdae.txt" && break
  [[ $(state_field result state) -ge 3 ]] 2>/dev/null && fail "task finished before its first checkpoint: make the WU longer (HELIX_E2E_SIZE)"
  kill -0 "$client_pid" 2>/dev/null || fail "client exited on its own"
  sleep 0.1
done
grep -q "\[checkpoint\] result $result checkpointed" "$data/stdoutdae.txt" ||
  fail "no checkpoint reported to the client after 120 s"
[[ -n $(app_pids) ]] || fail "no app process in $slot"
log "task checkpointed (app pid $(app_pids | tr '\n' ' '))"
stop_client

[[ $(state_field result state) == 2 ]] || fail "after the stop the result is in state $(state_field result state), not 2 (files downloaded)"
checkpoint_cpu_s=$(state_field active_task checkpoint_cpu_time)
fraction_done=$(state_field active_task checkpoint_fraction_done)
log "kept: slot checkpoint $(stat -c %s "$slot/helix_checkpoint.state") bytes, checkpoint_cpu_time $checkpoint_cpu_s s, checkpoint_fraction_done $fraction_done"
[[ -s $slot/helix_checkpoint.state ]] || fail "the checkpoint did not survive the stop"
python3 -c "import sys; sys.exit(0 if float(sys.argv[1] or 0) > 0 else 1)" "$checkpoint_cpu_s" ||
  fail "client state has no checkpoint_cpu_time > 0 for the task"
# No app message is required here: with boinc_init()'s default options the
# BOINC API itself exits the app on the client's quit request (docs/boinc-e2e.md).

# 5. Second client session: resume from the checkpoint and finish.
start_client
for _ in $(seq 1 3000); do
  [[ $(state_field result state) -ge 3 ]] 2>/dev/null && break
  kill -0 "$client_pid" 2>/dev/null || fail "client exited on its own"
  sleep 0.1
done
state=$(state_field result state)
[[ $state -ge 3 ]] 2>/dev/null || fail "task not finished 300 s after the restart"
stop_client

# RESULT_FILES_UPLOADING (4): computation done, outputs accepted and waiting
# for an upload that never starts (network suspended). 3 is a compute error.
[[ $state == 4 ]] || fail "result state $state (4 expected: files uploading)"
[[ $(state_field result exit_status) == 0 ]] || fail "exit_status $(state_field result exit_status)"
stderr_out=$(state_field result stderr_out)
echo "---- task stderr (from client_state.xml) ----"
python3 - "$data/client_state.xml" "$result" <<'EOF'
import sys, xml.etree.ElementTree as ET
for node in ET.parse(sys.argv[1]).getroot().iter("result"):
    if node.findtext("name") == sys.argv[2]:
        print(node.findtext("stderr_out", "").strip())
EOF
echo "----"
python3 - "$data/client_state.xml" "$result" <<'EOF' || fail "task stderr shows an error or no boinc_finish(0)"
import sys, xml.etree.ElementTree as ET
for node in ET.parse(sys.argv[1]).getroot().iter("result"):
    if node.findtext("name") == sys.argv[2]:
        text = node.findtext("stderr_out", "")
        ok = "called boinc_finish(0)" in text and "error" not in text.lower()
        ok = ok and text.count("voxels on") == 2   # two app runs: before and after the restart
        sys.exit(0 if ok else 1)
sys.exit(1)
EOF
labels=$project/${result}_labels
summary=$project/${result}_summary
[[ -s $labels && -s $summary ]] || fail "output files missing from $project"
log "client result: state $state, exit 0, cpu $(state_field result final_cpu_time) s, elapsed $(state_field result final_elapsed_time) s"

# 6. Server side: validate, compare with the standalone run, assimilate.
"$helix_validate" init --inputs "$project" "$labels" "$summary" || fail "helix-validate init rejected the client's result (exit $?)"
"$helix_validate" init --inputs "$work/wu" "$work/standalone/labels" "$work/standalone/summary" ||
  fail "helix-validate init rejected the standalone result (exit $?)"
"$helix_validate" compare "$labels" "$summary" "$work/standalone/labels" "$work/standalone/summary" ||
  fail "helix-validate compare: client and standalone results differ (exit $?)"
cmp -s "$labels" "$work/standalone/labels" || fail "labels differ byte-wise from the standalone run"
cmp -s "$summary" "$work/standalone/summary" || fail "summary differs byte-wise from the standalone run"
log "valid; identical to the standalone run (labels and summary byte for byte)"

"$helix_assimilate" --db "$work/results.sqlite" 1 "$labels" "$summary" || fail "helix-assimilate failed (exit $?)"
"$helix_assimilate" --db "$work/results.sqlite" query || fail "helix-assimilate query failed (exit $?)"

log "PASS"
[[ ${HELIX_E2E_KEEP:-0} == 1 ]] || rm -rf "$data"
