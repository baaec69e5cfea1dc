#!/usr/bin/python3
"""make_client_dir.py: what the e2e tests need from a helix work unit, in the
shapes the BOINC client makes: a client data directory holding the WU as one
task, or a slot of BOINC soft links for a run without the client's files.

    python3 make_client_dir.py client DATA HELIX_BINARY WU_DIR WU_NAME
    python3 make_client_dir.py slot SLOT_DIR WU_DIR WU_NAME
    python3 make_client_dir.py outputs WU_DIR WU_NAME

    DATA          client data directory to create
    HELIX_BINARY  the built app (build/app/helix)
    WU_DIR        what `helix-wu <kind> make --out WU_DIR` wrote for WU_NAME:
                  WU_NAME.wu_template.xml, WU_NAME.result_template.xml,
                  WU_NAME.create_work.sh and the input files it stages
    SLOT_DIR      directory to create; its logical input names become soft-link
                  files (<soft_link>RELATIVE PATH</soft_link>) to the WU's files,
                  as the client makes them, so the app names the inputs the same way
    WU_NAME       the work unit's name

Every kind's WU has the same shape: the WU template's <file_ref>s give each
input's open name and file number; file number n is the n-th file that the WU's
create_work.sh stages (create_work's order), so nothing here knows a kind.

`client` writes the task as a scheduler reply would have given it: the
workunit takes its input open names and resource bounds (rsc_*) from the WU
template, the result its output open names, size limits and <copy_file/> flags
from the result template, so the test runs the templates the project would
deploy. docs/boinc-e2e.md explains each piece:
    DATA/account_helix.invalid.xml   the client keeps only projects it has an account file for
    DATA/client_state.xml            project, app, app version, workunit, result (state 2)
    DATA/cc_config.xml               unsigned apps, no GPUs, no benchmarks, no network side trips
    DATA/global_prefs_override.xml   run at once whatever the user does; checkpoint every second
    DATA/projects/helix.invalid/     app binary, libboinc_api.so.7, libboinc.so.7, WU input files
It prints the project directory; output file n appears there as WU_NAME_0_n
(BOINC's <OUTFILE_n/>: result name, "_", n).

`outputs` prints the output open names, one a line, in result-file order.
"""
import os
import re
import shutil
import sys
import time
import xml.etree.ElementTree as ET
from xml.sax.saxutils import escape

MASTER_URL = "http://helix.invalid/"    # .invalid never resolves (RFC 2606)
PROJECT_DIR_NAME = "helix.invalid"      # the client's escaped form of MASTER_URL
# The client classifies a <url> of an output file as an upload URL only when it
# names file_upload_handler; <upload_url> says so outright.
UPLOAD_URL = MASTER_URL + "helix_cgi/file_upload_handler"
PLATFORM = "x86_64-pc-linux-gnu"
VERSION_NUM = 10                        # helix 0.1.0 -> 10 (BOINC versions are integers)
APP_FILE = "helix_0.1.0_" + PLATFORM
LIBDIR = "/usr/lib/x86_64-linux-gnu"
LIBRARIES = ["libboinc_api.so.7", "libboinc.so.7"]


def install(source, project, name, mode):
    target = os.path.join(project, name)
    shutil.copyfile(source, target)
    os.chmod(target, mode)
    return os.path.getsize(target)


def file_xml(name, nbytes=None, executable=False, output_max_nbytes=None):
    """A <file> of client_state.xml: present (status 1) input, or an output still to be made."""
    lines = ["<file>", f"    <name>{escape(name)}</name>"]
    if output_max_nbytes is None:
        lines += [f"    <nbytes>{nbytes}</nbytes>", "    <status>1</status>"]
        if executable:
            lines.append("    <executable/>")
    else:
        lines += [f"    <max_nbytes>{output_max_nbytes}</max_nbytes>", "    <generated_locally/>",
                  "    <upload_when_present/>", f"    <upload_url>{UPLOAD_URL}</upload_url>"]
    lines.append("</file>")
    return "\n".join(lines)


def file_ref_xml(name, open_name=None, main_program=False, copy_file=False):
    lines = ["    <file_ref>", f"        <file_name>{escape(name)}</file_name>"]
    if open_name:
        lines.append(f"        <open_name>{escape(open_name)}</open_name>")
    if main_program:
        lines.append("        <main_program/>")
    if copy_file:
        lines.append("        <copy_file/>")
    lines.append("    </file_ref>")
    return "\n".join(lines)


def staged_files(wu_dir, wu):
    """The input files of the WU in create_work's order (file number n is the n-th)."""
    with open(os.path.join(wu_dir, wu + ".create_work.sh")) as f:
        return re.findall(r'bin/stage_file --copy "\$here/([^"]+)"', f.read())


def input_refs(wu_dir, wu):
    """(open name, file name, copy_file) of each input, from the WU template."""
    files = staged_files(wu_dir, wu)
    workunit = ET.parse(os.path.join(wu_dir, wu + ".wu_template.xml")).getroot().find("workunit")
    return workunit, [(ref.findtext("open_name"), files[int(ref.findtext("file_number"))],
                       ref.find("copy_file") is not None) for ref in workunit.findall("file_ref")]


def output_refs(wu_dir, wu):
    """(open name, max_nbytes, copy_file) of each output, from the result template."""
    template = ET.parse(os.path.join(wu_dir, wu + ".result_template.xml")).getroot()
    infos = template.findall("file_info")
    return [(ref.findtext("open_name"), infos[number].findtext("max_nbytes"), ref.find("copy_file") is not None)
            for number, ref in enumerate(template.find("result").findall("file_ref"))]


def write_slot(slot, wu_dir, wu):
    os.makedirs(slot, exist_ok=True)
    for open_name, file_name, _ in input_refs(wu_dir, wu)[1]:
        target = os.path.relpath(os.path.join(wu_dir, file_name), slot)
        with open(os.path.join(slot, open_name), "w") as f:
            f.write(f"<soft_link>{escape(target)}</soft_link>\n")


def write_client_dir(data, helix, wu_dir, wu):
    project = os.path.join(data, "projects", PROJECT_DIR_NAME)
    os.makedirs(project, exist_ok=True)
    wu_template, inputs = input_refs(wu_dir, wu)
    result = wu + "_0"

    parts = ["<client_state>",
             f"<project>\n    <master_url>{MASTER_URL}</master_url>\n    <project_name>helix e2e</project_name>\n"
             "    <dont_request_more_work/>\n</project>",
             "<app>\n    <name>helix</name>\n    <user_friendly_name>helix</user_friendly_name>\n</app>"]

    # The app version: the binary is the main program; the BOINC libraries are
    # copied into the slot too (the client also puts the project directory on
    # LD_LIBRARY_PATH, and the binary's RUNPATH is $ORIGIN = the project dir).
    parts.append(file_xml(APP_FILE, install(helix, project, APP_FILE, 0o755), executable=True))
    for library in LIBRARIES:
        parts.append(file_xml(library, install(os.path.join(LIBDIR, library), project, library, 0o755),
                              executable=True))
    # A CPU app version: the app's default is the GPU, so it passes --cpu.
    parts.append("\n".join(
        ["<app_version>", "    <app_name>helix</app_name>", f"    <version_num>{VERSION_NUM}</version_num>",
         f"    <platform>{PLATFORM}</platform>", "    <avg_ncpus>1</avg_ncpus>", "    <max_ncpus>1</max_ncpus>",
         "    <flops>1000000000</flops>", "    <api_version>7.20.5</api_version>", "    <cmdline>--cpu</cmdline>",
         file_ref_xml(APP_FILE, main_program=True)]
        + [file_ref_xml(library, copy_file=True) for library in LIBRARIES] + ["</app_version>"]))

    # The workunit, from the WU template.
    input_file_refs = []
    for open_name, name, copy_file in inputs:
        parts.append(file_xml(name, install(os.path.join(wu_dir, name), project, name, 0o644)))
        input_file_refs.append(file_ref_xml(name, open_name, copy_file=copy_file))
    bounds = [f"    <{tag}>{wu_template.findtext(tag)}</{tag}>"
              for tag in ("rsc_fpops_est", "rsc_fpops_bound", "rsc_memory_bound", "rsc_disk_bound")]
    parts.append("\n".join(["<workunit>", f"    <name>{escape(wu)}</name>", "    <app_name>helix</app_name>",
                            f"    <version_num>{VERSION_NUM}</version_num>"] + bounds + input_file_refs
                           + ["</workunit>"]))

    # The result, from the result template (<OUTFILE_n/> -> WU_0_n, as BOINC names them).
    output_file_refs = []
    for number, (open_name, max_nbytes, copy_file) in enumerate(output_refs(wu_dir, wu)):
        name = f"{result}_{number}"
        parts.append(file_xml(name, output_max_nbytes=max_nbytes))
        output_file_refs.append(file_ref_xml(name, open_name, copy_file=copy_file))
    now = int(time.time())
    parts.append("\n".join(
        ["<result>", f"    <name>{escape(result)}</name>", f"    <wu_name>{escape(wu)}</wu_name>",
         f"    <platform>{PLATFORM}</platform>", f"    <version_num>{VERSION_NUM}</version_num>",
         "    <plan_class></plan_class>", "    <final_cpu_time>0</final_cpu_time>",
         "    <final_elapsed_time>0</final_elapsed_time>", "    <exit_status>0</exit_status>",
         "    <state>2</state>", f"    <received_time>{now}</received_time>",
         f"    <report_deadline>{now + 7 * 86400}</report_deadline>"] + output_file_refs + ["</result>"]))
    # Network activity: never (3). Nothing is fetched, uploaded or reported.
    parts += ["<user_network_request>3</user_network_request>", "</client_state>"]

    with open(os.path.join(data, "client_state.xml"), "w") as f:
        f.write("\n".join(parts) + "\n")
    with open(os.path.join(data, f"account_{PROJECT_DIR_NAME}.xml"), "w") as f:
        f.write(f"<account>\n    <master_url>{MASTER_URL}</master_url>\n"
                "    <authenticator>helix_e2e_no_server</authenticator>\n"
                "    <project_name>helix e2e</project_name>\n</account>\n")
    with open(os.path.join(data, "cc_config.xml"), "w") as f:
        f.write(CC_CONFIG)
    with open(os.path.join(data, "global_prefs_override.xml"), "w") as f:
        f.write(GLOBAL_PREFS)
    print(project)


CC_CONFIG = """<cc_config>
    <log_flags>
        <task_debug>1</task_debug>
        <checkpoint_debug>1</checkpoint_debug>
    </log_flags>
    <options>
        <unsigned_apps_ok>1</unsigned_apps_ok>
        <no_gpus>1</no_gpus>
        <skip_cpu_benchmarks>1</skip_cpu_benchmarks>
        <no_info_fetch>1</no_info_fetch>
        <dont_contact_ref_site>1</dont_contact_ref_site>
        <fetch_minimal_work>1</fetch_minimal_work>
        <no_priority_change>1</no_priority_change>
        <ncpus>1</ncpus>
    </options>
</cc_config>
"""

GLOBAL_PREFS = """<global_preferences>
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
"""

def main():
    command, arguments = (sys.argv[1], sys.argv[2:]) if len(sys.argv) > 1 else ("", [])
    if command == "client" and len(arguments) == 4:
        write_client_dir(*arguments)
    elif command == "slot" and len(arguments) == 3:
        write_slot(*arguments)
    elif command == "outputs" and len(arguments) == 2:
        print("\n".join(open_name for open_name, _, _ in output_refs(*arguments)))
    else:
        sys.exit("usage: make_client_dir.py client DATA HELIX_BINARY WU_DIR WU_NAME\n"
                 "       make_client_dir.py slot SLOT_DIR WU_DIR WU_NAME\n"
                 "       make_client_dir.py outputs WU_DIR WU_NAME")


if __name__ == "__main__":
    main()
