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
#   stop_client                        SIGTERM, wait for the client and its app to exit
#   wait_for SECONDS WHAT COMMAND...   polls COMMAND every 0.1 s; fails with WHAT on timeout
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
  local dir=${1:-$slot} proc
  for proc in /proc/[0-9]*; do
    [[ $(readlink "$proc/cwd" 2>/dev/null) == "$dir" ]] && echo "${proc#/proc/}"
  done
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
# asks a running app to quit, waits for it, writes its state and exits.
stop_client() {
  kill -TERM "$client_pid"
  for _ in $(seq 1 300); do kill -0 "$client_pid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$client_pid" 2>/dev/null; then fail "client did not exit within 30 s of SIGTERM"; fi
  wait "$client_pid" 2>/dev/null || true
  client_pid=
  [[ -z $(app_pids) ]] || fail "the app outlived the client (pids $(app_pids))"
  log "client stopped"
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
