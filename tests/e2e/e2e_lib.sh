# e2e_lib.sh: shell functions shared by the BOINC client e2e scenarios
# (sourced by boinc_client_e2e.sh; docs/boinc-e2e.md).
#
# The caller sets:  boinc (the client binary), work (the test's directory),
# e2e_name (for log lines), and calls use_client_dir DATA WU before it
# starts a client. The functions:
#   log MESSAGE / fail MESSAGE         a timed log line / fail with the client's logs
#   use_client_dir DATA WU             the client data directory and task the others act on
#   app_pids [DIR]                     PIDs of processes working in DIR (default: the task's slot)
#   state_field SECTION FIELD          a field of the task's result or active_task in client_state.xml
#   task_stderr                        the task's stderr_out, as the client recorded it
#   start_client [WRAPPER...]          the client, in the background (WRAPPER: e.g. unshare ...)
#   stop_client [hold]                 SIGTERM, wait for the client and its app to exit
#                                      (hold: the app frozen until the client asks it to quit)
#   wait_for SECONDS WHAT COMMAND...   polls COMMAND every 0.1 s; fails with WHAT on timeout
#   wait_until SECONDS COMMAND...      polls COMMAND every 0.1 s; returns 1 on timeout
# An EXIT trap ends the client and any app left behind (our PIDs only).

e2e_start_s=$SECONDS
data= slot= result= client_pid=

log() { printf '[%s %3ds] %s\n' "$e2e_name" $((SECONDS - e2e_start_s)) "$*"; }

dump_logs() {
  [[ -n $data ]] || return 0
  echo "---- client log (stdoutdae.txt, last 60 lines) ----"
  tail -n 60 "$data/stdoutdae.txt" 2>/dev/null || true
  echo "---- client stderr (stderrdae.txt) ----"
  cat "$data/stderrdae.txt" 2>/dev/null || true
  echo "---- slot stderr.txt ----"
  cat "$slot/stderr.txt" 2>/dev/null || true
}

fail() {
  echo "FAIL [$e2e_name]: $*" >&2
  dump_logs >&2
  exit 1
}

use_client_dir() {
  data=$1 slot=$1/slots/0 result=${2}_0
}

# PIDs of processes whose working directory is DIR: the app under the client.
app_pids() {
  local dir=${1:-$slot} line
  # One stat for every process ("/proc/PID/cwd -> DIR"): a $(readlink) per
  # process forked once each, half a second a scan, which left the restart
  # scenario too slow to stop a short example WU between its first
  # checkpoint and its end. The link's text, not its inode (-ef): the
  # disk-full scenario's slot is a tmpfs in the app's own mount namespace.
  while IFS= read -r line; do
    [[ $line == *" -> $dir" ]] || continue
    line=${line#/proc/}
    echo "${line%%/*}"
  done < <(QUOTING_STYLE=literal stat -c '%N' /proc/[0-9]*/cwd 2>/dev/null)
  return 0
}

# Ends the client we started (and only it) and an app it left behind.
end_client_and_app() {
  if [[ -n $client_pid ]] && kill -0 "$client_pid" 2>/dev/null; then
    kill -TERM "$client_pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$client_pid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$client_pid" 2>/dev/null || true
  fi
  client_pid=
  local pid
  for pid in $(app_pids); do kill -KILL "$pid" 2>/dev/null || true; done
}
trap end_client_and_app EXIT

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

task_stderr() { state_field result stderr_out; }

# Output files of the result that client_state.xml marks present (status 1).
outputs_marked_present() {
  python3 - "$data/client_state.xml" "$result" <<'EOF'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
for node in root.iter("file"):
    if node.findtext("name", "").startswith(sys.argv[2] + "_") and node.findtext("status", "0").strip() == "1":
        print(node.findtext("name"))
EOF
}

start_client() {
  (cd "$data" && exec "$@" "$boinc" --dir "$data" --no_gui_rpc --redirectio >/dev/null 2>&1) &
  client_pid=$!
  log "client started (pid $client_pid)"
}

# Stops the client the way a volunteer's shutdown does: SIGTERM. The client
# asks a running app to quit (shared memory; the app's BOINC API exits within
# its 0.1 s timer tick), waits up to 15 s, then kills it, waits up to 5 s
# more, writes its state and exits. The client runs the app at idle priority:
# on a busy machine the app may get no CPU in those 15 s and be killed instead.
# Either way the task resumes from its last checkpoint, so the bounds here
# catch a hang, not a slow machine.
#   stop_client          SIGTERM and wait
#   stop_client hold     the same, with the app frozen (SIGSTOP) from before the
#                        SIGTERM until the client has asked it to quit: the app
#                        cannot finish the task during the stop, however the
#                        machine's load shares the CPU out
stop_client() {
  local hold=${1:-} pids= asked_s app_s
  if [[ $hold == hold ]]; then
    pids=$(app_pids)
    [[ -n $pids ]] || fail "no app to hold in $slot"
    kill -STOP $pids
  fi
  kill -TERM "$client_pid"
  if [[ $hold == hold ]]; then
    wait_for 120 "client asking its task to quit" client_requested_task_exit
    kill -CONT $pids 2>/dev/null || true
  fi
  asked_s=$EPOCHREALTIME
  wait_until 120 no_app || fail "the app still runs 120 s after the client's SIGTERM (pids $(app_pids))"
  app_s=$(seconds_since "$asked_s")
  wait_until 120 no_client || fail "the client still runs 120 s after SIGTERM"
  wait "$client_pid" 2>/dev/null || true
  client_pid=
  if grep -q "haven't exited after .* killing them" "$data/stdoutdae.txt" 2>/dev/null; then
    log "stop: the client killed the app ${app_s} s after asking it to quit (no CPU for it to quit in 15 s); client gone after $(seconds_since "$asked_s") s"
  else
    log "stop: the app left ${app_s} s after the client asked it to quit; client gone after $(seconds_since "$asked_s") s"
  fi
}

seconds_since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'; }
no_app() { [[ -z $(app_pids) ]]; }
no_client() { ! kill -0 "$client_pid" 2>/dev/null; }

client_requested_task_exit() { grep -q "requesting tasks to exit" "$data/stdoutdae.txt" 2>/dev/null; }

# Polls COMMAND every 0.1 s for up to SECONDS; returns 1 if it never succeeded.
wait_until() {
  local seconds=$1 tick
  shift
  for ((tick = 0; tick < seconds * 10; tick++)); do
    "$@" && return 0
    sleep 0.1
  done
  return 1
}

# Polls COMMAND every 0.1 s until it succeeds; fails after SECONDS, or at once
# when the client we started has exited on its own.
wait_for() {
  local seconds=$1 what=$2 tick
  shift 2
  for ((tick = 0; tick < seconds * 10; tick++)); do
    "$@" && return 0
    [[ -z $client_pid ]] || kill -0 "$client_pid" 2>/dev/null || fail "client exited on its own while waiting for $what"
    sleep 0.1
  done
  fail "no $what after $seconds s"
}
