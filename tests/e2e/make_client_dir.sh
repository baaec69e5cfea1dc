#!/usr/bin/env bash
# make_client_dir.sh: builds a BOINC client data directory that holds one helix
# task, ready to run with the real client (/usr/bin/boinc) and no server.
#
#   make_client_dir.sh DATA HELIX_BINARY WU_NAME PARAMS_FILE VOLUME_FILE
#
#   DATA          directory to create (must not exist or be empty)
#   HELIX_BINARY  the built app (build/app/helix)
#   WU_NAME       work-unit name; physical file names derive from it
#   PARAMS_FILE   the WU's "params" input (helix-wu mrf make: WU.params.json)
#   VOLUME_FILE   the WU's "volume" input (helix-wu mrf make: WU.volume.hxv)
#
# What it writes (docs/boinc-e2e.md explains every piece):
#   DATA/account_helix.invalid.xml      the client only keeps projects it has an account file for
#   DATA/client_state.xml               project, app, app version, workunit, result (state 2: files downloaded)
#   DATA/cc_config.xml                  unsigned apps, no GPUs, no benchmarks, no network side trips
#   DATA/global_prefs_override.xml      run at once whatever the user does; checkpoint every second
#   DATA/projects/helix.invalid/        app binary, libboinc_api.so.7, libboinc.so.7, WU input files
#
# Prints the project directory. The result's output files will appear there as
# WU_NAME_0_labels and WU_NAME_0_summary.
set -euo pipefail

if (($# != 5)); then
  echo "usage: $0 DATA HELIX_BINARY WU_NAME PARAMS_FILE VOLUME_FILE" >&2
  exit 2
fi
data=$1 helix=$2 wu=$3 params=$4 volume=$5

master_url=http://helix.invalid/           # .invalid never resolves (RFC 2606)
project_dir_name=helix.invalid             # the client's escaped form of master_url
platform=x86_64-pc-linux-gnu
version_num=10                             # helix 0.1.0 -> 10 (BOINC versions are integers)
app_file=helix_0.1.0_${platform}
libdir=/usr/lib/x86_64-linux-gnu
result=${wu}_0

project=$data/projects/$project_dir_name
mkdir -p "$project"
install -m 0755 "$helix" "$project/$app_file"
install -m 0755 "$libdir/libboinc_api.so.7" "$project/libboinc_api.so.7"
install -m 0755 "$libdir/libboinc.so.7" "$project/libboinc.so.7"
install -m 0644 "$params" "$project/$wu.params.json"
install -m 0644 "$volume" "$project/$wu.volume.hxv"

size() { stat -c %s "$1"; }
now=$(date +%s)
deadline=$((now + 7 * 86400))

cat > "$data/account_$project_dir_name.xml" <<EOF
<account>
    <master_url>$master_url</master_url>
    <authenticator>helix_e2e_no_server</authenticator>
    <project_name>helix e2e</project_name>
</account>
EOF

# A file with <status>1</status> is present; <nbytes> is checked against the
# file on disk. App-version files need no signature with <unsigned_apps_ok>.
# Output files carry an upload URL, as a real result template gives them: the
# client deletes finished output files that are neither uploadable nor sticky.
# With network activity suspended (<user_network_request>3) the upload never
# starts, so a finished result stays in state 4 (FILES_UPLOADING) with its
# output files kept in the project directory.
cat > "$data/client_state.xml" <<EOF
<client_state>
<project>
    <master_url>$master_url</master_url>
    <project_name>helix e2e</project_name>
    <dont_request_more_work/>
</project>
<app>
    <name>helix</name>
    <user_friendly_name>helix</user_friendly_name>
</app>
<file>
    <name>$app_file</name>
    <nbytes>$(size "$project/$app_file")</nbytes>
    <max_nbytes>0</max_nbytes>
    <status>1</status>
    <executable/>
</file>
<file>
    <name>libboinc_api.so.7</name>
    <nbytes>$(size "$project/libboinc_api.so.7")</nbytes>
    <status>1</status>
    <executable/>
</file>
<file>
    <name>libboinc.so.7</name>
    <nbytes>$(size "$project/libboinc.so.7")</nbytes>
    <status>1</status>
    <executable/>
</file>
<app_version>
    <app_name>helix</app_name>
    <version_num>$version_num</version_num>
    <platform>$platform</platform>
    <avg_ncpus>1</avg_ncpus>
    <max_ncpus>1</max_ncpus>
    <flops>1000000000</flops>
    <api_version>7.20.5</api_version>
    <cmdline>--cpu</cmdline>
    <file_ref>
        <file_name>$app_file</file_name>
        <main_program/>
    </file_ref>
    <file_ref>
        <file_name>libboinc_api.so.7</file_name>
        <copy_file/>
    </file_ref>
    <file_ref>
        <file_name>libboinc.so.7</file_name>
        <copy_file/>
    </file_ref>
</app_version>
<file>
    <name>$wu.params.json</name>
    <nbytes>$(size "$project/$wu.params.json")</nbytes>
    <status>1</status>
</file>
<file>
    <name>$wu.volume.hxv</name>
    <nbytes>$(size "$project/$wu.volume.hxv")</nbytes>
    <status>1</status>
</file>
<workunit>
    <name>$wu</name>
    <app_name>helix</app_name>
    <version_num>$version_num</version_num>
    <rsc_fpops_est>30000000000</rsc_fpops_est>
    <rsc_fpops_bound>1000000000000000</rsc_fpops_bound>
    <rsc_memory_bound>2000000000</rsc_memory_bound>
    <rsc_disk_bound>2000000000</rsc_disk_bound>
    <file_ref>
        <file_name>$wu.params.json</file_name>
        <open_name>params</open_name>
    </file_ref>
    <file_ref>
        <file_name>$wu.volume.hxv</file_name>
        <open_name>volume</open_name>
    </file_ref>
</workunit>
<file>
    <name>${result}_labels</name>
    <max_nbytes>1000000000</max_nbytes>
    <generated_locally/>
    <upload_when_present/>
    <upload_url>${master_url}helix_cgi/file_upload_handler</upload_url>
</file>
<file>
    <name>${result}_summary</name>
    <max_nbytes>100000000</max_nbytes>
    <generated_locally/>
    <upload_when_present/>
    <upload_url>${master_url}helix_cgi/file_upload_handler</upload_url>
</file>
<result>
    <name>$result</name>
    <wu_name>$wu</wu_name>
    <platform>$platform</platform>
    <version_num>$version_num</version_num>
    <plan_class></plan_class>
    <final_cpu_time>0</final_cpu_time>
    <final_elapsed_time>0</final_elapsed_time>
    <exit_status>0</exit_status>
    <state>2</state>
    <received_time>$now</received_time>
    <report_deadline>$deadline</report_deadline>
    <file_ref>
        <file_name>${result}_labels</file_name>
        <open_name>labels</open_name>
    </file_ref>
    <file_ref>
        <file_name>${result}_summary</file_name>
        <open_name>summary</open_name>
    </file_ref>
</result>
<user_network_request>3</user_network_request>
</client_state>
EOF

cat > "$data/cc_config.xml" <<EOF
<cc_config>
    <log_flags>
        <task_debug>1</task_debug>
        <checkpoint_debug>1</checkpoint_debug>
        <sched_op_debug>1</sched_op_debug>
    </log_flags>
    <options>
        <unsigned_apps_ok>1</unsigned_apps_ok>
        <no_gpus>1</no_gpus>
        <skip_cpu_benchmarks>1</skip_cpu_benchmarks>
        <no_info_fetch>1</no_info_fetch>
        <dont_contact_ref_site>1</dont_contact_ref_site>
        <fetch_minimal_work>1</fetch_minimal_work>
        <ncpus>1</ncpus>
        <max_stderr_file_size>1000000</max_stderr_file_size>
    </options>
</cc_config>
EOF

cat > "$data/global_prefs_override.xml" <<EOF
<global_preferences>
    <run_on_batteries>1</run_on_batteries>
    <run_if_user_active>1</run_if_user_active>
    <run_gpu_if_user_active>1</run_gpu_if_user_active>
    <idle_time_to_run>0</idle_time_to_run>
    <suspend_if_no_recent_input>0</suspend_if_no_recent_input>
    <suspend_cpu_usage>0</suspend_cpu_usage>
    <start_hour>0</start_hour>
    <end_hour>0</end_hour>
    <leave_apps_in_memory>0</leave_apps_in_memory>
    <cpu_scheduling_period_minutes>60</cpu_scheduling_period_minutes>
    <disk_interval>1</disk_interval>
    <disk_max_used_gb>0</disk_max_used_gb>
    <disk_max_used_pct>100</disk_max_used_pct>
    <disk_min_free_gb>0</disk_min_free_gb>
    <ram_max_used_busy_pct>90</ram_max_used_busy_pct>
    <ram_max_used_idle_pct>90</ram_max_used_idle_pct>
    <max_ncpus_pct>100</max_ncpus_pct>
    <cpu_usage_limit>100</cpu_usage_limit>
    <work_buf_min_days>0</work_buf_min_days>
    <work_buf_additional_days>0</work_buf_additional_days>
</global_preferences>
EOF

echo "$project"
