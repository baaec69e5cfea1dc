#!/usr/bin/env bash
# boinc_server_e2e.sh: helix deployed into a real BOINC project and run by the
# real client, every kind, as a project admin would do it (docs/deploy.md):
#
#   1. builds the upstream BOINC server (1.6.2, from its source tarball) once
#      into BUILD_DIR/boinc-server;
#   2. starts a private MariaDB and a private Apache with PHP on loopback ports
#      (services.sh; nothing of the system's services is touched), runs
#      make_project, deploys helix's release tree (make_release.sh --from-build,
#      xadd, update_versions, homogeneous app version), the wrapper scripts and
#      the daemons: feeder, transitioner, file_deleter, then script_validator and
#      script_assimilator calling helix's shipped wrappers;
#   3. submits WUs of every kind with helix-wu's create_work scripts (names over
#      33 characters, inputs shared between WUs) and attaches Debian's
#      boinc-client on 127.0.0.1;
#   4. while the validator is still off: one task is killed with SIGSEGV (a
#      client error) and, once everything is reported, one returned summary is
#      forged; then the validator and the assimilator start.
#
# It passes when: every WU gets a canonical result that is assimilated, with no
# error; the forged result is marked invalid and the killed task's WU is
# retried; the results database equals the one made from standalone runs of the
# same WUs (helix-assimilate query, and hmmsearch's merged whole-database
# report); file_deleter removed the WUs' own inputs but kept the shared ones;
# a second release installs with update_versions beside the first.
#
#   boinc_server_e2e.sh SOURCE_DIR BUILD_DIR TARBALL
#
# TARBALL: the BOINC server source (HELIX_BOINC_SERVER_TARBALL; ../shared/boinc/
# holds it). Exit 0 pass, 77 skip (no tarball, or not root: MariaDB and Apache
# are started as root and Apache serves the project as www-data), else fail with
# the logs. HELIX_SERVER_E2E_KEEP=1 keeps the work directory after a pass;
# HELIX_SERVER_E2E_STAY=1 (scripts/local-project.sh) also leaves the server, its
# daemons and the client running, and prints where to look and how to stop.
set -euo pipefail

if (($# != 3)); then
  echo "usage: $0 SOURCE_DIR BUILD_DIR TARBALL" >&2
  exit 2
fi
source_dir=$(realpath "$1") build_dir=$(realpath "$2") tarball=$3
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/server_e2e/services.sh
source "$here/services.sh"

start_s=$SECONDS
log() { printf '[server e2e %4ds] %s\n' $((SECONDS - start_s)) "$*"; }
skip() { echo "SKIP [server e2e]: $*"; exit 77; }

[[ -f $tarball ]] || skip "no BOINC server source at '$tarball': set HELIX_BOINC_SERVER_TARBALL to boinc-server-*.tar.xz (../shared/boinc/ holds one) and re-run cmake"
[[ $(id -u) == 0 ]] || skip "needs root (a private MariaDB and Apache; Apache serves the project as www-data)"

helix=$build_dir/app/helix helix_wu=$build_dir/workunit/helix-wu
helix_validate=$build_dir/validator/helix-validate helix_assimilate=$build_dir/assimilator/helix-assimilate
client_dir_tool=$source_dir/tests/e2e/make_client_dir.py
# Loopback only, under /tmp: www-data (Apache) must reach the project tree.
work=$(mktemp -d "${TMPDIR:-/tmp}/helix_server_e2e.XXXXXX")
chmod 755 "$work"
project=$work/project client=$work/client db=helix_e2e
client_pid=

fail() {
  echo "FAIL [server e2e]: $*" >&2
  for file in "$project"/log_*/*.log "$client/stdoutdae.txt" "$work/web/logs/error.log"; do
    [[ -f $file ]] && { echo "---- $file (last 40 lines) ----"; tail -n 40 "$file"; } >&2
  done
  echo "work directory kept: $work" >&2
  keep=1
  exit 1
}

keep=${HELIX_SERVER_E2E_KEEP:-} stay=
cleanup() {
  [[ -n $stay ]] && return 0
  [[ -n $client_pid ]] && { kill "$client_pid" 2>/dev/null || true; wait "$client_pid" 2>/dev/null || true; }
  [[ -d $project/bin ]] && (cd "$project" && bin/stop >/dev/null 2>&1 || true)
  stop_services
  [[ -n $keep ]] || rm -rf "$work"
}
trap cleanup EXIT

# Polls COMMAND every second for up to SECONDS; fails naming WHAT.
wait_for() {
  local seconds=$1 what=$2 tick
  shift 2
  for ((tick = 0; tick < seconds; tick++)); do
    "$@" && return 0
    sleep 1
  done
  fail "no $what after $seconds s"
}

sql() { mariadb_query "USE $db; $1"; }

# ---------------------------------------------------------------- 1. the server, built once
boinc_src=$build_dir/boinc-server/src
build_boinc_server() {
  local stamp=$build_dir/boinc-server/built-from
  if [[ -f $stamp && $(cat "$stamp") == "$(realpath "$tarball")" ]]; then return 0; fi
  log "building the BOINC server from $(basename "$tarball") (once per build tree, about 4 min on 2 cores)"
  rm -rf "$build_dir/boinc-server"
  mkdir -p "$boinc_src"
  tar -xJf "$tarball" -C "$boinc_src" --strip-components=1
  # lib/ and sched/ each name their own library twice (libboinc.la and
  # ../lib/libboinc.la), so a parallel make there can run two makes that write
  # the same objects ("... is not a valid libtool object"). Building those
  # libraries first leaves the second make nothing to do.
  (cd "$boinc_src" && ./_autosetup && ./configure --disable-client --disable-manager --enable-server --disable-fcgi &&
    make -C lib -j"$(nproc)" libboinc.la libboinc_crypt.la &&
    make -C sched -j"$(nproc)" libsched.la &&
    make -j"$(nproc)") >"$build_dir/boinc-server/build.log" 2>&1 ||
    { tail -n 40 "$build_dir/boinc-server/build.log" >&2; fail "the BOINC server did not build (log: $build_dir/boinc-server/build.log)"; }
  realpath "$tarball" >"$stamp"
}
build_boinc_server
log "BOINC server built in $boinc_src"

# ---------------------------------------------------------------- 2. project and deployment
db_port=$(free_port) http_port=$(free_port) rpc_port=$(free_port)
url=http://127.0.0.1:$http_port/helix/
start_mariadb "$work/db" "$db_port" || fail "MariaDB did not start"
log "MariaDB on 127.0.0.1:$db_port"

# make_project is Python and wants `python` (python3 with MySQLdb) and $USER.
mkdir -p "$work/pybin"
ln -s /usr/bin/python3 "$work/pybin/python"
export PATH=$work/pybin:$PATH USER=${USER:-$(id -un)}
(cd "$boinc_src/tools" && ./make_project --srcdir "$boinc_src" --project_root "$project" --url_base "http://127.0.0.1:$http_port/" \
  --db_host "127.0.0.1:$db_port" --db_user boincadm --db_passwd boincadm --db_name "$db" \
  --project_host "$(hostname)" --no_query helix "helix e2e") >"$work/make_project.log" 2>&1 ||
  { cat "$work/make_project.log" >&2; fail "make_project failed"; }
sed -i 's/REPLACE WITH PROJECT NAME/helix e2e/' "$project/html/project/project.inc"
log "make_project: $project"

# The release, as docs/deploy.md installs it.
bash "$source_dir/packaging/make_release.sh" --from-build "$build_dir" --out "$work/release" >"$work/release.log" ||
  fail "make_release.sh failed"
cp -r "$work/release/apps/helix" "$project/apps/"
cp "$work/release/templates/"* "$project/templates/"
cp "$work/release/plan_class_spec.xml" "$project/plan_class_spec.xml"
cp "$work/release/bin/"* "$helix_validate" "$helix_assimilate" "$project/bin/"
mkdir -p "$project/helix_inputs"
/usr/bin/python3 - "$project/project.xml" <<'EOF'
import sys
path = sys.argv[1]
text = open(path).read().replace(
    "</boinc>", "    <app>\n        <name>helix</name>\n        <user_friendly_name>helix</user_friendly_name>\n    </app>\n</boinc>")
open(path, "w").write(text)
EOF
(cd "$project" && bin/xadd && bin/update_versions < <(yes)) >"$work/deploy.log" 2>&1 || { cat "$work/deploy.log" >&2; fail "xadd/update_versions failed"; }
# xadd ignores <homogeneous_app_version>: set it in the database (docs/deploy.md section 2).
sql "UPDATE app SET homogeneous_app_version=1 WHERE name='helix'"
# Job size matching (docs/deploy.md section 3a): two size classes, a fixed
# speed threshold between them (the feeder will not start without the file),
# job scoring by class, and size_regulator releasing each class's results.
sql "UPDATE app SET n_size_classes=2 WHERE name='helix'"
echo 1e11 >"$project/size_census_helix"
/usr/bin/python3 - "$project/config.xml" <<'EOF'
import sys
path = sys.argv[1]
text = open(path).read()
open(path, "w").write(text.replace("<config>", "<config>\n        <size_classes/>", 1))
EOF
[[ $(sql "SELECT count(*) FROM app_version") == 2 ]] || fail "update_versions did not add the CPU and GPU app versions"
log "release installed: app versions $(sql "SELECT group_concat(concat(version_num, ' ', if(plan_class='', 'cpu', plan_class)) SEPARATOR ', ') FROM app_version")"

# Daemons: first without the validator and the assimilator (section 4 adds them).
set_daemons() {
  /usr/bin/python3 - "$project/config.xml" "$@" <<'EOF'
import sys
path, commands = sys.argv[1], sys.argv[2:]
text = open(path).read()
daemons = "<daemons>\n" + "".join(f"        <daemon><cmd>{c}</cmd></daemon>\n" for c in commands) + "    </daemons>"
start, end = text.index("<daemons>"), text.index("</daemons>") + len("</daemons>")
open(path, "w").write(text[:start] + daemons + text[end:])
EOF
}
base_daemons=("feeder -d 3" "transitioner -d 3" "file_deleter -d 3"
              "size_regulator --app_name helix --lo 10 --hi 100 --sleep_time 5")
set_daemons "${base_daemons[@]}"
chmod -R a+rwX "$project"   # Apache's CGIs (scheduler, upload handler) write logs and uploads as www-data
start_apache "$work/web" "$http_port" "$project/helix.httpd.conf" || fail "Apache did not start"
(cd "$project" && bin/start) >/dev/null || fail "bin/start failed"
log "Apache on 127.0.0.1:$http_port, daemons: ${base_daemons[*]}"

# ---------------------------------------------------------------- 3. work of every kind
inputs=$work/inputs
mkdir -p "$inputs"
hmmer_examples=/usr/share/doc/hmmer/examples/tutorial
mmseqs_db=/usr/share/doc/mmseqs2/example-data/DB.fasta.gz
zcat "$mmseqs_db" | awk '/^>/ { n++ } n <= 3000' >"$inputs/db.fasta"
out=$project/helix_inputs
# mrf: a name of 46 characters (BOINC's 64-byte result template field held 33).
"$helix_wu" mrf phantom --out "$inputs" --size 64 64 16 --seed 5 >/dev/null
# Every WU has a size class (GPU for mrf and swsearch, CPU for the others):
# BOINC creates their results INACTIVE and size_regulator releases them.
"$helix_wu" mrf make --volume "$inputs/phantom.nii.gz" --name e2e_mrf_named_longer_than_thirty_three_bytes --out "$out" \
  --size-class gpu >/dev/null
/usr/bin/python3 "$source_dir/scripts/make_plates.py" "$inputs/plates" 96 40 >/dev/null
"$helix_wu" glcm make --image-dir "$inputs/plates" --detect-well --distances 1,2 --map-distance 1 --name e2e_glcm --out "$out" \
  --size-class cpu >/dev/null
# swsearch: two query batches against one chunk (the chunk and the matrix are shared).
awk '/^>/ { n++ } n <= 6' "$hmmer_examples/globins45.fa" >"$inputs/queries.fa"
"$helix_wu" swsearch make --db "$inputs/db.fasta" --queries "$inputs/queries.fa" --queries-per-wu 3 \
  --chunk-residues 100000000 --top-hits 5 --alignments 2 --name e2e_sw --out "$out" --size-class gpu >/dev/null
# hmmsearch: two chunks (the profiles are shared).
"$helix_wu" hmmsearch make --name e2e_hmm --profiles "$hmmer_examples/globins4.hmm" --database "$inputs/db.fasta" \
  --chunk-residues 600000 --out "$out" --size-class cpu >/dev/null
mapfile -t scripts < <(ls "$out"/*.create_work.sh)
for script in "${scripts[@]}"; do (cd "$project" && bash "$script") >>"$work/create_work.log" 2>&1 || fail "$script failed"; done
wu_count=${#scripts[@]}
[[ $(sql "SELECT count(*) FROM workunit") == "$wu_count" ]] || fail "create_work made $(sql "SELECT count(*) FROM workunit") of $wu_count WUs"
log "$wu_count WUs submitted: $(sql "SELECT group_concat(name SEPARATOR ' ') FROM workunit")"
[[ $(sql "SELECT count(*) FROM workunit WHERE size_class <> IF(name LIKE 'e2e_mrf%' OR name LIKE 'e2e_sw%', 1, 0)") == 0 ]] ||
  fail "size classes: $(sql "SELECT group_concat(concat(name, ' ', size_class) SEPARATOR ', ') FROM workunit")"

# The client, attached through the project's own account creation RPC.
mkdir -p "$client"
cat >"$client/cc_config.xml" <<EOF
<cc_config>
  <log_flags><task_debug>1</task_debug><sched_op_debug>1</sched_op_debug></log_flags>
  <options><no_gpus>1</no_gpus><skip_cpu_benchmarks>1</skip_cpu_benchmarks><no_info_fetch>1</no_info_fetch>
    <dont_contact_ref_site>1</dont_contact_ref_site><ncpus>2</ncpus><no_priority_change>1</no_priority_change></options>
</cc_config>
EOF
cat >"$client/global_prefs_override.xml" <<EOF
<global_preferences>
  <run_on_batteries>1</run_on_batteries><run_if_user_active>1</run_if_user_active><cpu_usage_limit>100</cpu_usage_limit>
  <max_ncpus_pct>100</max_ncpus_pct><work_buf_min_days>0.05</work_buf_min_days><work_buf_additional_days>0.05</work_buf_additional_days>
  <disk_max_used_gb>20</disk_max_used_gb><disk_min_free_gb>0.1</disk_min_free_gb><disk_max_used_pct>95</disk_max_used_pct>
</global_preferences>
EOF
printf e2e >"$client/gui_rpc_auth.cfg"
(cd "$client" && exec /usr/bin/boinc --dir "$client" --gui_rpc_port "$rpc_port" --redirectio >/dev/null 2>&1) &
client_pid=$!
client_cmd() { boinccmd --host "127.0.0.1:$rpc_port" --passwd e2e "$@"; }
wait_for 30 "client GUI RPC" client_cmd --get_cc_status >/dev/null 2>&1
account=$(client_cmd --create_account "$url" e2e@helix.invalid e2e-password e2e) || fail "create_account: $account"
authenticator=$(sed -n 's/^account key: //p' <<<"$account")
[[ -n $authenticator ]] || fail "create_account gave no account key: $account"
client_cmd --project_attach "$url" "$authenticator" >/dev/null || fail "project_attach failed"
log "client attached to $url"

# Asks the client to contact the scheduler now (report, fetch), at most every 10 s.
last_update=0
nudge_client() {
  if ((SECONDS - last_update >= 10)); then
    client_cmd --project "$url" update >/dev/null 2>&1 || true
    last_update=$SECONDS
  fi
}

# ---------------------------------------------------------------- 4. an error, a forgery
# A client error: SIGSEGV to the first task that runs (BOINC's diagnostics make it
# a compute error); max_error_results lets the transitioner send another replica.
app_pid() { pgrep -f "helix_[0-9.]*_x86_64-pc-linux-gnu" | head -n 1; }
running_app() { nudge_client; [[ -n $(app_pid) ]]; }
wait_for 300 "running task" running_app
sleep 0.5
kill -SEGV "$(app_pid)" || fail "could not signal the app"
log "sent SIGSEGV to a running task"

# Everything computed and reported, the killed task included (outcome 3).
reported() {
  nudge_client
  [[ $(sql "SELECT count(*) FROM result WHERE server_state=5 AND outcome=3") -ge 1 &&
     $(sql "SELECT count(*) FROM workunit w WHERE (SELECT count(*) FROM result r WHERE r.workunitid=w.id AND r.server_state=5 AND r.outcome=1) < 2") == 0 ]]
}
wait_for 900 "two successful results of every WU reported" reported
log "all results reported; client errors: $(sql "SELECT group_concat(name) FROM result WHERE outcome=3")"

# A forgery: one replica of the mrf WU says its energy is one unit lower.
forged=$(sql "SELECT r.name FROM result r JOIN workunit w ON r.workunitid=w.id WHERE w.name LIKE 'e2e_mrf%' AND r.outcome=1 ORDER BY r.id LIMIT 1")
forged_summary=$(find "$project/upload" -name "${forged}_r*_1" | head -n 1)
[[ -f $forged_summary ]] || fail "no uploaded summary of $forged"
/usr/bin/python3 - "$forged_summary" <<'EOF'
import json, sys
path = sys.argv[1]
summary = json.load(open(path))
summary["final_energy"] -= 1
json.dump(summary, open(path, "w"), indent=1)
EOF
log "forged the summary of $forged"

# Now the validator and the assimilator, as docs/deploy.md section 4 configures
# them (the script name alone: server 1.6.2's script_validator and
# script_assimilator drop keywords given after it).
set_daemons "${base_daemons[@]}" "script_validator -d 3 --app helix --init_script helix_validate_init --compare_script helix_validate_compare" \
  "script_assimilator -d 3 --app helix --script helix_assimilate"
(cd "$project" && bin/stop && bin/start) >/dev/null || fail "restarting the daemons failed"
# A WU whose last result was reported just before the restart can be met by
# the new validator before that result counts as viable: it finds too few for
# the quorum, clears need_validate and leaves the WU to the transitioner, whose
# next look is the WU's delay bound (a week) away. Every 30 s, such a WU
# (no canonical result, not waiting for the validator, two successful results)
# is handed back to the transitioner now, which asks the validator again.
last_revisit=$SECONDS
revisit_stalled_wus() {
  ((SECONDS - last_revisit >= 30)) || return 0
  last_revisit=$SECONDS
  sql "UPDATE workunit w SET transition_time=UNIX_TIMESTAMP() WHERE w.canonical_resultid=0 AND w.need_validate=0
       AND w.transition_time > UNIX_TIMESTAMP() + 60
       AND (SELECT count(*) FROM result r WHERE r.workunitid=w.id AND r.server_state=5 AND r.outcome=1) >= 2" >/dev/null
}
all_assimilated() {
  nudge_client
  revisit_stalled_wus
  [[ $(sql "SELECT count(*) FROM workunit WHERE assimilate_state=2") == "$wu_count" ]]
}
wait_for 900 "assimilation of all $wu_count WUs" all_assimilated
log "all WUs assimilated"

# ---------------------------------------------------------------- 5. checks
[[ $(sql "SELECT count(*) FROM workunit WHERE canonical_resultid=0 OR error_mask<>0") == 0 ]] ||
  fail "WUs without a canonical result or with errors: $(sql "SELECT name, error_mask FROM workunit WHERE canonical_resultid=0 OR error_mask<>0")"
[[ $(sql "SELECT validate_state FROM result WHERE name='$forged'") == 2 ]] ||
  fail "the forged result $forged is not invalid (validate_state $(sql "SELECT validate_state FROM result WHERE name='$forged'"))"
errored_wu=$(sql "SELECT w.name FROM result r JOIN workunit w ON r.workunitid=w.id WHERE r.outcome=3 LIMIT 1")
[[ -n $errored_wu ]] || fail "no client error was recorded"
log "forged result invalid; client error of $errored_wu retried; every WU canonical, no error"

# The results database against standalone runs of the same WUs, stored under the same WU ids.
standalone_db=$work/standalone.sqlite
while read -r wu_id wu_name; do
  slot=$work/standalone/$wu_name
  /usr/bin/python3 "$client_dir_tool" slot "$slot" "$out" "$wu_name"
  (cd "$slot" && "$helix" --cpu) >/dev/null 2>&1 || fail "standalone run of $wu_name failed"
  mapfile -t names < <(/usr/bin/python3 "$client_dir_tool" outputs "$out" "$wu_name")
  files=()
  for n in "${!names[@]}"; do cp "$slot/${names[n]}" "$slot/${wu_name}_0_$n"; files+=("$slot/${wu_name}_0_$n"); done
  "$helix_assimilate" --db "$standalone_db" "$wu_id" "${files[@]}" || fail "storing the standalone $wu_name failed"
done < <(sql "SELECT id, name FROM workunit ORDER BY id")
diff <("$helix_assimilate" --db "$project/results.sqlite" query) <("$helix_assimilate" --db "$standalone_db" query) >"$work/query.diff" ||
  fail "the project's results database differs from the standalone runs' ($work/query.diff)"
mkdir -p "$work/report_server" "$work/report_standalone"
"$helix_wu" hmmsearch report --results "$project/results.sqlite" --search e2e_hmm --out "$work/report_server" >/dev/null ||
  fail "helix-wu hmmsearch report on the project's database failed"
"$helix_wu" hmmsearch report --results "$standalone_db" --search e2e_hmm --out "$work/report_standalone" >/dev/null
diff -r "$work/report_server" "$work/report_standalone" >/dev/null || fail "hmmsearch's merged report differs from the standalone runs'"
log "results database and hmmsearch's merged report equal the standalone runs'"

# file_deleter: the WUs' own inputs go, the shared ones stay.
in_download() { find "$project/download" -name "$1" | grep -q .; }
own_inputs_deleted() { ! in_download 'e2e_mrf_named_longer_than_thirty_three_bytes.volume.hxv' && ! in_download 'e2e_sw_b0_c0.queries.fa'; }
wait_for 120 "deletion of the WUs' own inputs by file_deleter" own_inputs_deleted
for shared in e2e_sw.BLOSUM62 e2e_sw.chunk_0.hxsw e2e_hmm.profiles.hmm; do
  in_download "$shared" || fail "file_deleter deleted the shared input $shared"
done
log "file_deleter removed the WUs' own inputs and kept the shared ones"

# A second release beside the first: new main programs, unchanged libraries
# under their old names, and one changed library (libz.so.1 with a byte more,
# as a rebuilt Debian package would be) under the new name make_release.sh gives
# it (SONAME__<sha256 prefix>): with the soname as its name update_versions
# refused it ("BOINC files are immutable").
version=$("$helix" --version | awk '{ print $2 }')
next_dir=$(awk -F. '{ printf "%d.%d", $1, $2 + 1 }' <<<"$version")
next_version=$(awk -F. '{ printf "%d.%d.0", $1, $2 + 1 }' <<<"$version")
rm -rf "$project/apps/helix"/*
cp -r "$work/release/apps/helix/"* "$project/apps/helix/"
mv "$project/apps/helix/$(ls "$project/apps/helix")" "$project/apps/helix/$next_dir"
for dir in "$project/apps/helix/$next_dir"/*; do
  program=$(basename "$dir/helix_${version}_"*)
  mv "$dir/$program" "$dir/${program/$version/$next_version}"
  sed -i "s/$program/${program/$version/$next_version}/" "$dir/version.xml"
  old_zlib=$(basename "$dir"/libz.so.1__*)
  printf '\0' >>"$dir/$old_zlib"
  new_zlib=libz.so.1__$(sha256sum "$dir/$old_zlib" | cut -c1-12)
  mv "$dir/$old_zlib" "$dir/$new_zlib"
  sed -i "s/$old_zlib/$new_zlib/" "$dir/version.xml"
done
(cd "$project" && bin/update_versions < <(yes)) >"$work/deploy2.log" 2>&1 || { cat "$work/deploy2.log" >&2; fail "the second release did not install"; }
[[ $(sql "SELECT count(*) FROM app_version") == 4 ]] || fail "after the second release: $(sql "SELECT count(*) FROM app_version") app versions, want 4"
log "a second release ($next_dir) installed beside the first"

log "PASS ($wu_count WUs of 4 kinds through BOINC server $(basename "$tarball" .tar.xz))"

if [[ -n ${HELIX_SERVER_E2E_STAY:-} ]]; then
  cat >"$work/stop.sh" <<STOP
#!/usr/bin/env bash
# Stops the local helix project made by scripts/local-project.sh and removes it.
kill $client_pid 2>/dev/null
(cd "$project" && bin/stop) >/dev/null 2>&1
apache2 -f "$work/web/httpd.conf" -k stop 2>/dev/null
kill \$(cat "$work/db/mysqld.pid") 2>/dev/null
sleep 2
rm -rf "$work"
STOP
  chmod +x "$work/stop.sh"
  stay=1
  cat <<WHERE

The local helix project keeps running:
  web pages        $url  (the project's own pages; results under "Your account")
  project          $project  (config.xml; log_$(hostname)/ holds the daemons' logs)
  results          $helix_assimilate --db $project/results.sqlite query
  hmmsearch report $work/report_server/
  database         mariadb --no-defaults -S $work/db/mysqld.sock -uroot $db
  client           $client (boinccmd --host 127.0.0.1:$rpc_port --passwd e2e --get_tasks)
  stop and remove  $work/stop.sh
WHERE
fi
