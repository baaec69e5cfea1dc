#!/usr/bin/env bash
# boinc_client_e2e.sh: end-to-end tests of helix under the REAL BOINC client
# (/usr/bin/boinc 7.20.5), with no server, for one kind of work: the kind's
# example work unit (`helix-wu KIND example`), computed standalone (`helix
# --cpu`, the reference bytes), then under the client in the scenarios asked for:
#
#   storm      `boinc --run_test_app`: the client's own test mode, which runs the
#              app in a bare directory and suspends and resumes it every 0.3 s;
#              the app must finish with the reference bytes.
#   restart    a client data directory holding the WU as a task (state 2); the
#              client is stopped after the task's first checkpoint (the app
#              held with SIGSTOP until the client asks it to quit, so that a
#              busy machine cannot let it finish first) and started
#              again; the task resumes from the checkpoint and finishes with the
#              reference bytes; helix-validate accepts the result,
#              helix-assimilate stores it.
#   crash      the app is killed with SIGSEGV while the client runs it: the
#              client records a compute error and no output file.
#   disk_full  the slots directory is a tmpfs (in a user and mount namespace)
#              that is filled once the app runs: the app's next write gets a
#              real ENOSPC and the app makes a BOINC temporary exit: the task is
#              postponed, not an error, and there is no result.
#
#   boinc_client_e2e.sh HELIX HELIX_WU HELIX_VALIDATE HELIX_ASSIMILATE WORKDIR KIND SCENARIO...
#
#   KIND: any registered kind (`helix-wu kinds`); its WU is `helix-wu KIND
#   example`, about 3-5 s on one core.
# Exit: 0 pass; 77 skip (no /usr/bin/boinc; disk_full without user namespaces;
# the kind's example data missing, as helix-wu says); anything else fails, with the
# client's log and the task's stderr printed. The client's exit code is never
# the verdict: the task's files and client_state.xml are.
# docs/boinc-e2e.md explains the client data directory and what the client does.
#
# Environment (optional): HELIX_E2E_KEEP=1 keeps WORKDIR after a pass.
set -euo pipefail

if (($# < 7)); then
  echo "usage: $0 HELIX HELIX_WU HELIX_VALIDATE HELIX_ASSIMILATE WORKDIR KIND SCENARIO..." >&2
  exit 2
fi
helix=$(realpath "$1") helix_wu=$(realpath "$2") helix_validate=$(realpath "$3") helix_assimilate=$(realpath "$4")
work=$5 kind=$6
shift 6
scenarios=("$@")
here=$(cd "$(dirname "$0")" && pwd)
client_dir_tool=$here/make_client_dir.py
boinc=/usr/bin/boinc
e2e_name="e2e $kind"
# shellcheck source=tests/e2e/e2e_lib.sh
source "$here/e2e_lib.sh"

skip() {
  echo "SKIP [$e2e_name]: $*"
  exit 77
}
[[ -x $boinc ]] || skip "$boinc is missing (Debian package boinc-client)"

rm -rf "$work"
mkdir -p "$work"
work=$(realpath "$work")

# Makes the kind's example work unit in $work/wu (`helix-wu KIND example`:
# real data from Debian packages, 3-5 s on one core, several checkpoints); sets
# wu (its name: the first *.create_work.sh there) and outputs (from its result
# template). The restart needs the client to see the first checkpoint (1-3 s
# after the start) and to stop the app (1-2 s more) before the task ends, so
# each kind's example checkpoints well before half its work. helix-wu exits 77
# with one line when the machine lacks the example's data: the test skips.
make_work_unit() {
  local status=0 message scripts
  message=$("$helix_wu" "$kind" example --out "$work/wu" 2>&1 >/dev/null) || status=$?
  ((status != 77)) || skip "$message"
  ((status == 0)) || fail "helix-wu $kind example failed (exit $status): $message"
  scripts=("$work"/wu/*.create_work.sh)
  [[ -s ${scripts[0]} ]] || fail "helix-wu $kind example wrote no *.create_work.sh in $work/wu"
  wu=$(basename "${scripts[0]}" .create_work.sh)
  mapfile -t outputs < <(python3 "$client_dir_tool" outputs "$work/wu" "$wu")
  ((${#outputs[@]} > 0)) || fail "work unit $wu: no outputs in $wu.result_template.xml"
  log "work unit $wu (helix-wu $kind example): outputs ${outputs[*]}"
}

# The reference: the same WU in a slot of BOINC soft links (as the client makes
# them, so the app names its inputs the same way), run with --cpu.
run_standalone() {
  local dir=$work/standalone start_s=$SECONDS name
  python3 "$client_dir_tool" slot "$dir" "$work/wu" "$wu"
  (cd "$dir" && "$helix" --cpu) || fail "standalone run failed: $(cat "$dir/stderr.txt")"
  for name in "${outputs[@]}"; do [[ -s $dir/$name ]] || fail "standalone run wrote no $name"; done
  log "standalone --cpu run: $((SECONDS - start_s)) s"
}

# Fails unless output n of the run is byte-identical to the reference's.
#   same_bytes_as_standalone WHAT PATH_OF_OUTPUT_0 PATH_OF_OUTPUT_1 ...
same_bytes_as_standalone() {
  local what=$1 n=0 path
  shift
  for path in "$@"; do
    cmp -s "$path" "$work/standalone/${outputs[n]}" || fail "$what: ${outputs[n]} differs from the standalone run"
    n=$((n + 1))
  done
  log "$what: ${#outputs[@]} outputs identical to the standalone run, byte for byte"
}

# Output n of the client's result in the project directory (WU_0_n).
client_outputs() {
  local n
  for n in "${!outputs[@]}"; do echo "$project/${result}_$n"; done
}

no_client_outputs() {
  local present
  present=$(outputs_marked_present)
  [[ -z $present ]] || fail "outputs marked present in client_state.xml: $present"
  compgen -G "$project/${result}_*" >/dev/null && fail "output files in $project: $(ls "$project")"
  return 0
}

result_state_at_least() { [[ $(state_field result state) -ge $1 ]] 2>/dev/null; }
app_is_running() { [[ -n $(app_pids) ]] && grep -q '^helix ' "${1:-$slot}/stderr.txt" 2>/dev/null; }
no_app_in() { [[ -z $(app_pids "$1") ]]; }
client_checkpointed() { grep -q "\[checkpoint\] result $result checkpointed" "$data/stdoutdae.txt" 2>/dev/null; }
client_postponed() { grep -q "Task $result postponed for" "$data/stdoutdae.txt" 2>/dev/null; }

# A fresh client data directory for one scenario; sets data, slot, result, project.
make_client() {
  use_client_dir "$work/$1" "$wu"
  project=$(python3 "$client_dir_tool" client "$data" "$helix" "$work/wu" "$wu")
}

# ---------------------------------------------------------------- storm
# boinc --run_test_app (client/app_start.cpp, run_test_app()): the client runs
# ./test_app in the current directory as a task with no files, command line
# --critical_section, and loops: suspend, 0.1 s, resume, 0.2 s, until the app
# exits; then it logs "test app finished - exiting" and exits.
client_gone() { ! kill -0 "$client_pid" 2>/dev/null; }

scenario_storm() {
  local dir=$work/test_app start_s=$SECONDS cycles tick
  data=$dir slot=$dir result=
  python3 "$client_dir_tool" slot "$dir" "$work/wu" "$wu"
  ln -s "$helix" "$dir/test_app"
  # Read by the test mode too: cpu_sched logs each suspend ("Preempting") and
  # resume; normal priority, as in the client data directories.
  cat >"$dir/cc_config.xml" <<'EOF'
<cc_config>
    <log_flags><cpu_sched>1</cpu_sched></log_flags>
    <options><no_priority_change>1</no_priority_change></options>
</cc_config>
EOF
  (cd "$dir" && exec "$boinc" --run_test_app >client_log.txt 2>&1) &
  client_pid=$!
  log "storm: boinc --run_test_app started (pid $client_pid)"
  # Not wait_for: the client's own exit is what we wait for. An app that never
  # exits (say, hung while suspended) fails here.
  for ((tick = 0; tick < 6000; tick++)); do client_gone && break; sleep 0.1; done
  client_gone || fail "storm: the client still runs the app after 600 s: $(tail -n 3 "$dir/client_log.txt")"
  wait "$client_pid" 2>/dev/null || true
  client_pid=
  grep -q 'test app finished - exiting' "$dir/client_log.txt" ||
    fail "storm: the client ended without seeing the app finish: $(tail -n 3 "$dir/client_log.txt")"
  cycles=$(grep -c 'Preempting test result' "$dir/client_log.txt" || true)
  log "storm: app finished after $((SECONDS - start_s)) s and $cycles suspend/resume cycles"
  ((cycles >= 10)) || fail "storm: only $cycles suspend/resume cycles: the client did not drive the app"
  [[ $(head -n 1 "$dir/boinc_finish_called") == 0 ]] || fail "storm: boinc_finish_called says $(cat "$dir/boinc_finish_called")"
  [[ $(grep -c 'called boinc_finish(0)' "$dir/stderr.txt") == 1 ]] || fail "storm: stderr.txt: not one boinc_finish(0)"
  grep -q 'helix: error' "$dir/stderr.txt" && fail "storm: the app reported an error"
  same_bytes_as_standalone "storm" "${outputs[@]/#/$dir/}"
}

# The project's side as a BOINC server has it (docs/deploy.md): bin/ with the
# scripts script_validator and script_assimilator run (packaging/server/bin)
# beside helix-validate and helix-assimilate, helix_inputs/ with the WU's
# inputs (here the client's copies). Sets server.
make_server() {
  server=$work/server
  mkdir -p "$server/bin" "$server/cgi-bin"
  cp "$here/../../packaging/server/bin/"* "$server/bin/"
  ln -sf "$helix_validate" "$server/bin/helix-validate"
  ln -sf "$helix_assimilate" "$server/bin/helix-assimilate"
  ln -sfn "$project" "$server/helix_inputs"
}

# Runs bin/NAME with ARGS as the daemons do: ../bin/NAME, only their keywords'
# values as arguments.
server_script() {
  local name=$1
  shift
  (cd "$server/cgi-bin" && "../bin/$name" "$@")
}

# ---------------------------------------------------------------- restart
scenario_restart() {
  local checkpoint_cpu_s fraction_done state stderr_out
  make_client restart
  start_client
  # Stop once the CLIENT knows of a checkpoint (log line from <checkpoint_debug>),
  # not merely when the file appears: the client records checkpoint_cpu_time only
  # after the app reports boinc_checkpoint_completed() through shared memory.
  wait_for 120 "checkpoint reported to the client" client_checkpointed
  result_state_at_least 3 && fail "task finished before the stop: make the WU longer"
  [[ -n $(app_pids) ]] || fail "no app process in $slot"
  # Held: the app cannot run on to the end of the task while the client,
  # which a busy machine may also slow down, gets round to asking it to quit.
  stop_client hold
  # A quit that reached an app already inside boinc_finish() (a critical
  # section, so the quit waits) would leave nothing to resume.
  [[ -e $slot/boinc_finish_called ]] && fail "the task finished while the client stopped: make the WU longer"
  [[ $(state_field result state) == 2 ]] || fail "after the stop the result is in state $(state_field result state), not 2"
  checkpoint_cpu_s=$(state_field active_task checkpoint_cpu_time)
  fraction_done=$(state_field active_task checkpoint_fraction_done)
  log "restart: stopped at checkpoint_cpu_time $checkpoint_cpu_s s, checkpoint_fraction_done $fraction_done"
  [[ -s $slot/helix_checkpoint.state ]] || fail "the checkpoint did not survive the stop"
  python3 -c "import sys; sys.exit(0 if float(sys.argv[1] or 0) > 0 and float(sys.argv[2] or 0) > 0 else 1)" \
    "$checkpoint_cpu_s" "$fraction_done" || fail "client state has no checkpoint_cpu_time and fraction_done > 0"

  start_client
  wait_for 300 "finished task after the restart" result_state_at_least 3
  stop_client
  # 4, RESULT_FILES_UPLOADING: computed, outputs accepted, upload pending (the
  # network is off). 3 would be a compute error.
  state=$(state_field result state)
  [[ $state == 4 ]] || fail "result state $state (4 expected: files uploading)"
  [[ $(state_field result exit_status) == 0 ]] || fail "exit_status $(state_field result exit_status)"
  stderr_out=$(task_stderr)
  printf '%s\n' "---- task stderr (client_state.xml) ----" "$stderr_out" "----"
  # The second start resumed from the checkpoint (BoincRuntime says so) and
  # the task finished once, without an error.
  [[ $(grep -c 'helix: resuming from the checkpoint' <<<"$stderr_out") == 1 ]] || fail "no resume from the checkpoint in the task's stderr"
  [[ $(grep -c 'called boinc_finish(0)' <<<"$stderr_out") == 1 ]] || fail "not one boinc_finish(0) in the task's stderr"
  grep -q 'helix: error' <<<"$stderr_out" && fail "the task's stderr reports an error"
  log "restart: state 4, cpu $(state_field result final_cpu_time) s, elapsed $(state_field result final_elapsed_time) s"

  mapfile -t files < <(client_outputs)
  same_bytes_as_standalone "restart" "${files[@]}"
  make_server
  server_script helix_validate_init "${files[@]}" || fail "helix_validate_init rejected the client's result (exit $?)"
  local n reference=()
  for n in "${!outputs[@]}"; do   # the reference as BOINC would name replica 1's files
    cp "$work/standalone/${outputs[n]}" "$work/${wu}_1_$n"
    reference+=("$work/${wu}_1_$n")
  done
  server_script helix_validate_compare "${files[@]}" "${reference[@]}" ||
    fail "helix_validate_compare: client and standalone differ (exit $?)"
  server_script helix_assimilate 1 "${files[@]}" || fail "helix_assimilate failed (exit $?)"
  [[ -s $server/results.sqlite ]] || fail "helix_assimilate wrote no $server/results.sqlite"
  log "restart: valid, equivalent to the standalone run, assimilated (packaging/server/bin scripts)"
}

# ---------------------------------------------------------------- crash
scenario_crash() {
  local pid stderr_out
  make_client crash
  start_client
  wait_for 120 "running app" app_is_running
  sleep 0.5
  pid=$(app_pids | head -n 1)
  kill -SEGV "$pid"
  log "crash: sent SIGSEGV to the app (pid $pid)"
  wait_for 60 "compute error" result_state_at_least 3
  stop_client
  # 3, RESULT_COMPUTE_ERROR: the client reports the task as failed.
  [[ $(state_field result state) == 3 ]] || fail "crash: result state $(state_field result state), 3 expected"
  [[ $(state_field result exit_status) != 0 ]] || fail "crash: exit_status 0 after a SIGSEGV"
  stderr_out=$(task_stderr)
  grep -q 'SIGSEGV' <<<"$stderr_out" || fail "crash: the task's stderr does not name SIGSEGV: $stderr_out"
  no_client_outputs
  log "crash: compute error (exit_status $(state_field result exit_status)), no output files"
}

# ---------------------------------------------------------------- disk_full
# Space left on the slots tmpfs once it is filled: none. The app's error line
# and BOINC's boinc_temporary_exit note (a page each) must come out of the
# pages the app reserved at its start (app/disk_reserve.h). Before it did, a
# disk with no page left (swsearch's 9,939-byte checkpoint took the last of
# 12 KiB) had the note written empty: the task restarted every 2 s and was
# never postponed.
disk_full_slack_bytes=0

free_bytes_in() { echo $(($(stat -f -c '%a' "$1") * $(stat -f -c '%S' "$1"))); }

# Fills the file system of DIR with DIR/filler until BYTES are left. The app
# writes meanwhile, so the first pass may hit ENOSPC itself; shrinking the
# filler (tmpfs frees the pages) then gives the space back.
fill_leaving() {
  local bytes=$1 dir=$2 left
  head -c $(($(free_bytes_in "$dir") - bytes)) /dev/zero >"$dir/filler" 2>/dev/null || true
  left=$(free_bytes_in "$dir")
  ((left >= bytes)) || truncate -s -$((bytes - left)) "$dir/filler"
}

scenario_disk_full() {
  unshare -rm sh -c 'mount -t tmpfs -o size=1m helix_e2e_probe "$1"' sh "$work" >/dev/null 2>&1 ||
    skip "disk_full: cannot mount a tmpfs in a user namespace here (unshare -rm); it needs unprivileged user namespaces"
  local slots free_bytes stderr_text
  make_client disk_full
  mkdir -p "$data/slots"
  # The client in its own user and mount namespace, where slots/ is a tmpfs.
  start_client unshare -rm sh -c 'mount -t tmpfs -o size=64m helix_e2e_slots slots && exec "$@"' sh
  # That tmpfs as the client sees it, from outside its namespace.
  slots=/proc/$client_pid/root$data/slots
  wait_for 120 "running app" app_is_running "$slots/0"
  fill_leaving "$disk_full_slack_bytes" "$slots"
  log "disk_full: slots tmpfs filled, $(free_bytes_in "$slots") bytes left"
  wait_for 120 "postponed task" client_postponed
  grep "Task $result postponed" "$data/stdoutdae.txt" | sed 's/^/  client: /'
  stderr_text=$(cat "$slots/0/stderr.txt")
  grep -q 'helix: disk full, will retry later: .*No space left on device' <<<"$stderr_text" ||
    fail "disk_full: no disk-full line in the app's stderr: $stderr_text"
  [[ $(head -n 2 "$slots/0/boinc_temporary_exit" | tr '\n' ' ') == "600 disk full " ]] ||
    fail "disk_full: boinc_temporary_exit holds '$(cat "$slots/0/boinc_temporary_exit")'"
  [[ ! -e $slots/0/boinc_finish_called ]] || fail "disk_full: the app called boinc_finish"
  compgen -G "$slots/0/*.tmp" >/dev/null && fail "disk_full: temp files left in the slot: $(ls "$slots/0")"
  local name
  for name in "${outputs[@]}"; do
    [[ ! -e $slots/0/$name ]] || fail "disk_full: output $name left in the slot"
  done
  stop_client
  [[ $(state_field result state) == 2 ]] || fail "disk_full: result state $(state_field result state), 2 expected (task waiting)"
  [[ $(state_field result exit_status) == 0 ]] || fail "disk_full: exit_status $(state_field result exit_status)"
  no_client_outputs
  log "disk_full: temporary exit, task postponed, no error and no output"
}

make_work_unit
for scenario in "${scenarios[@]}"; do
  [[ $scenario == storm || $scenario == restart ]] && { [[ -d $work/standalone ]] || run_standalone; }
done
for scenario in "${scenarios[@]}"; do
  declare -F "scenario_$scenario" >/dev/null || { echo "unknown scenario '$scenario'" >&2; exit 2; }
  "scenario_$scenario"
done
log "PASS (${scenarios[*]})"
[[ ${HELIX_E2E_KEEP:-0} == 1 ]] || rm -rf "$work"
