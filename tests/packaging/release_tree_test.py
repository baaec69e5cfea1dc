#!/usr/bin/python3
"""release_tree_test.py: lays out a release with packaging/make_release.sh from an
already-built tree (--from-build: no fat build in CI) and checks what BOINC's
bin/update_versions, the scheduler and create_work will read.

    release_tree_test.py SOURCE_DIR BUILD_DIR WORK_DIR

Checks:
  * apps/helix/<MAJOR.MINOR>/ holds exactly a CPU (x86_64-pc-linux-gnu) and a GPU
    (x86_64-pc-linux-gnu__cuda<NN>) app version directory;
  * each version.xml parses, names one main program, every file it names exists,
    every file present is named (update_versions would ship strays), api_version
    is X.Y.Z; every shared library the program needs beyond glibc/libstdc++
    (the BOINC libraries, parasail, zlib) is shipped, copied into the slot, and
    is the one loaded with the slot on LD_LIBRARY_PATH, as the client runs it;
  * each main program runs `--version` from a slot holding the <copy_file/>
    files under their logical names (as the client runs it) and prints the
    version the directory is named for; every file but the main program is
    named LOGICAL__<sha256 prefix> (BOINC files are immutable: a second release
    reuses an unchanged file's name and gives a changed one a new name); the
    files it copies into the slot fit the allowance helix-wu adds to every WU's
    rsc_disk_bound (kAppVersionDiskBytes);
  * plan_class_spec.xml parses and defines the GPU directory's plan class
    (nvidia, cuda, numeric minimum CUDA/driver/compute capability/GPU RAM, cpu_frac);
  * every registered kind (`helix-wu kinds`) has a <kind>_out, and a <kind>_in
    unless its input names differ per WU; every template parses; input
    templates number their files 0..n-1 and refer to each once; the open names,
    in order, and the <no_delete/> marks are those of a real WU the kind's work
    generator makes (`helix-wu <kind> example`; a kind whose example data is
    missing is said and passed over), and the app's code resolves each input
    (runtime.resolve("name")); max_error/total/success_results are set as
    create_work needs;
  * bin/ holds the three scripts script_validator and script_assimilator run,
    executable; the validator scripts exit 3 (transient) while helix-validate
    is missing or not executable; installed in a project's bin/ beside this build's
    helix-validate and helix-assimilate, helix_assimilate called as
    script_assimilator calls it for a failed WU records the error in the
    project's results.sqlite (the tests/e2e restart scenario runs all three
    on a real result).
Exit 0 pass, 1 fail (one line per problem), 77 skip (no built app).
"""
import glob
import hashlib
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import xml.etree.ElementTree as ET

SKIP = 77
PLATFORM = "x86_64-pc-linux-gnu"
# Libraries a volunteer's Linux host is assumed to have; everything else the
# app needs must ship in its app version directory.
SYSTEM_LIBRARIES = {"libc.so.6", "libm.so.6", "libstdc++.so.6", "libgcc_s.so.1", "libpthread.so.0",
                    "libdl.so.2", "librt.so.1", "linux-vdso.so.1"}
problems = []


def fail(message):
    problems.append(message)


def parse_xml(path):
    try:
        return ET.parse(path).getroot()
    except (ET.ParseError, OSError) as error:
        fail(f"{path}: does not parse: {error}")
        return None


def check_app_version(directory, version, version_dir, work, app_version_disk_allowance):
    root = parse_xml(os.path.join(directory, "version.xml"))
    if root is None:
        return
    if root.tag != "version":
        fail(f"{directory}/version.xml: root is <{root.tag}>, not <version>")
    files = root.findall("file")
    names = [f.findtext("physical_name", "").strip() for f in files]
    mains = [f.findtext("physical_name", "").strip() for f in files if f.find("main_program") is not None]
    if len(mains) != 1:
        fail(f"{directory}/version.xml: {len(mains)} main programs, want 1")
    for name in names:
        if not name or "/" in name or not os.path.isfile(os.path.join(directory, name)):
            fail(f"{directory}/version.xml names '{name}', which is not a file there")
    present = sorted(f for f in os.listdir(directory) if f != "version.xml" and not f.endswith(".sig"))
    if sorted(names) != present:
        fail(f"{directory}: files {present} but version.xml names {sorted(names)}")
    # BOINC files are immutable (update_versions refuses other bytes under a
    # name it has): every file but the main program is named for its content.
    for f in files:
        physical = f.findtext("physical_name", "").strip()
        logical = f.findtext("logical_name", "").strip()
        if f.find("main_program") is not None or not os.path.isfile(os.path.join(directory, physical)):
            continue
        digest = hashlib.sha256(open(os.path.join(directory, physical), "rb").read()).hexdigest()[:12]
        if physical != f"{logical}__{digest}":
            fail(f"{directory}/version.xml: '{physical}' (logical '{logical}') is not named LOGICAL__<sha256 prefix>")
    # What the main program loads as the client starts it: a slot holding the
    # <copy_file/> files under their logical names, on LD_LIBRARY_PATH.
    slot = os.path.join(work, "slot_" + os.path.basename(directory))
    shutil.rmtree(slot, ignore_errors=True)
    os.makedirs(slot)
    for f in files:
        if f.find("copy_file") is not None:
            physical = f.findtext("physical_name", "").strip()
            logical = f.findtext("logical_name", "").strip() or physical
            if os.path.isfile(os.path.join(directory, physical)):
                shutil.copy(os.path.join(directory, physical), os.path.join(slot, logical))
    slot_env = dict(os.environ, LD_LIBRARY_PATH=slot)
    ldd = ""
    if len(mains) == 1:
        ldd = subprocess.run(["ldd", os.path.join(directory, mains[0])], capture_output=True, text=True,
                             timeout=30, env=slot_env).stdout
    loaded = dict(re.findall(r"^\s*(\S+) => (\S+)", ldd, re.M))
    shipped = sorted(name for name in loaded if name not in SYSTEM_LIBRARIES)
    for library in shipped + ["libboinc_api.so.7", "libboinc.so.7"]:
        entry = [f for f in files if (f.findtext("logical_name", "").strip() or f.findtext("physical_name", "").strip()) == library]
        if not entry or entry[0].find("copy_file") is None:
            fail(f"{directory}/version.xml: {library} missing or not <copy_file/>")
        elif os.path.dirname(os.path.realpath(loaded.get(library, "/"))) != os.path.realpath(slot):
            fail(f"{directory}: {library} is not loaded from the slot ({loaded.get(library)})")
    if "not found" in ldd:
        fail(f"{directory}: unresolved libraries: {ldd}")
    api = (root.findtext("api_version") or "").strip()
    if not re.fullmatch(r"\d+\.\d+\.\d+", api):
        fail(f"{directory}/version.xml: api_version '{api}' is not X.Y.Z")
    if len(mains) != 1:
        return
    program = os.path.join(directory, mains[0])
    if not os.access(program, os.X_OK):
        fail(f"{program} is not executable")
        return
    if mains[0] != f"helix_{version}_{os.path.basename(directory)}":
        fail(f"{program}: name does not say the release and app version")
    run = subprocess.run([program, "--version"], capture_output=True, text=True, timeout=30, env=slot_env)
    if run.returncode != 0 or run.stdout.strip() != f"helix {version}":
        fail(f"{program} --version: exit {run.returncode}, '{run.stdout.strip()}', want 'helix {version}'")
    if ".".join(version.split(".")[:2]) != version_dir:
        fail(f"version {version} is in directory {version_dir}")
    # The client copies <copy_file/> files into the slot and counts the slot
    # against rsc_disk_bound (the main program stays in the project directory).
    total = sum(os.path.getsize(os.path.join(slot, name)) for name in os.listdir(slot))
    if total >= app_version_disk_allowance:
        fail(f"{directory}: the app version's <copy_file/> files take {total} bytes of a task's slot; helix-wu's "
             f"rsc_disk_bound allows {app_version_disk_allowance:.0f} (kAppVersionDiskBytes, workunit/workunit_writer.h)")


def app_version_disk_allowance(source):
    """kAppVersionDiskBytes of workunit/workunit_writer.h: what every WU's rsc_disk_bound allows for the app version."""
    text = open(os.path.join(source, "workunit", "workunit_writer.h")).read()
    m = re.search(r"kAppVersionDiskBytes\s*=\s*([\d.]+)\s*\*\s*\(1 << (\d+)\)", text)
    if not m:
        fail("workunit/workunit_writer.h: no kAppVersionDiskBytes = X * (1 << N)")
        return 0
    return float(m.group(1)) * (1 << int(m.group(2)))


def check_plan_class(path, plan_class):
    root = parse_xml(path)
    if root is None:
        return
    classes = {c.findtext("name", "").strip(): c for c in root.findall("plan_class")}
    spec = classes.get(plan_class)
    if spec is None:
        fail(f"{path}: no plan class '{plan_class}' (has {sorted(classes)})")
        return
    if (spec.findtext("gpu_type") or "").strip() != "nvidia" or spec.find("cuda") is None:
        fail(f"{path}: {plan_class} is not <gpu_type>nvidia</gpu_type> with <cuda/>")
    for tag in ["min_cuda_version", "min_driver_version", "min_nvidia_compcap", "min_gpu_ram_mb"]:
        if not re.fullmatch(r"\d+", (spec.findtext(tag) or "").strip()):
            fail(f"{path}: {plan_class} <{tag}> is not a whole number")
    try:
        if not 0 < float(spec.findtext("cpu_frac")) <= 1:
            raise ValueError
    except (TypeError, ValueError):
        fail(f"{path}: {plan_class} <cpu_frac> is not in (0, 1]")


def example_names(helix_wu, kind, work):
    """(inputs or None, outputs, shared inputs) of the WU `helix-wu KIND example` makes,
    read from its own templates; inputs None when the kind names its inputs per WU
    (a packaged input template cannot match them). None when the data is missing."""
    out = os.path.join(work, "example", kind)
    run = subprocess.run([helix_wu, kind, "example", "--out", out], capture_output=True, text=True, timeout=300)
    if run.returncode == 77:
        print(f"{kind}: example data missing, templates not compared: {run.stderr.strip()}")
        return None
    if run.returncode != 0:
        fail(f"helix-wu {kind} example failed ({run.returncode}): {run.stderr.strip()}")
        return None
    wu = sorted(glob.glob(os.path.join(out, "*.wu_template.xml")))[0]
    wu_root, result_root = parse_xml(wu), parse_xml(wu.replace(".wu_template.xml", ".result_template.xml"))
    if wu_root is None or result_root is None:
        return None
    refs = wu_root.findall("workunit/file_ref")
    names = [r.findtext("open_name") for r in refs]
    shared = [name for info, name in zip(wu_root.findall("file_info"), names) if info.find("no_delete") is not None]
    wu_name = os.path.basename(wu)[: -len(".wu_template.xml")]
    per_wu = any(wu_name in name for name in names)  # logical names made from the WU's name
    outputs = [r.findtext("open_name") for r in result_root.findall("result/file_ref")]
    return (None if per_wu else names), outputs, shared


def check_templates(source, build, templates, work):
    helix_wu = os.path.join(build, "workunit", "helix-wu")
    kinds = subprocess.run([helix_wu, "kinds"], capture_output=True, text=True, check=True).stdout.split()
    app_main = open(os.path.join(source, "app", "main.cpp")).read()
    for kind in kinds:
        in_path, out_path = os.path.join(templates, f"{kind}_in"), os.path.join(templates, f"{kind}_out")
        if not os.path.exists(out_path):
            fail(f"{out_path} is missing")
        names = example_names(helix_wu, kind, work)
        if names is None:
            continue
        inputs, outputs, shared = names
        kind_dir = os.path.join(source, "kernels", kind)
        job_text = app_main + "".join(open(p).read() for p in glob.glob(os.path.join(kind_dir, "*.cpp")))
        resolved = set(re.findall(r'resolve\("([^"]+)"\)', job_text))
        for name in inputs or []:
            if name not in resolved:
                fail(f"kernels/{kind}: '{name}' is staged by helix-wu but the app never resolves it")
        if inputs is None:  # per-WU logical names (glcm): helix-wu writes each WU's input template
            if os.path.exists(in_path):
                fail(f"{in_path}: {kind}'s input names are per WU; a fixed template cannot match them")
        elif not os.path.exists(in_path):
            fail(f"{in_path} is missing")
        else:
            root = parse_xml(in_path)
            if root is not None:
                numbers = [int(n.text) for n in root.iter("number")]
                refs = root.findall("workunit/file_ref")
                if numbers != list(range(len(numbers))) or sorted(int(r.findtext("file_number")) for r in refs) != numbers:
                    fail(f"{in_path}: file_info numbers {numbers} and file_refs do not match")
                names = [r.findtext("open_name") for r in refs]
                if names != inputs:
                    fail(f"{in_path}: open names {names}, helix-wu's example stages {inputs}")
                for tag in ["rsc_fpops_est", "rsc_fpops_bound", "rsc_memory_bound", "rsc_disk_bound"]:
                    if not re.fullmatch(r"\d+", root.findtext(f"workunit/{tag}") or ""):
                        fail(f"{in_path}: <{tag}> is not a whole number")
                infos = root.findall("file_info")
                for info, name in zip(infos, names):
                    if (info.find("no_delete") is not None) != (name in shared):
                        fail(f"{in_path}: input '{name}' {'lacks' if name in shared else 'has'} <no_delete/> "
                             f"(shared inputs: {shared})")
                if int(root.findtext("workunit/rsc_disk_bound") or 0) < app_version_disk_allowance(source):
                    fail(f"{in_path}: rsc_disk_bound leaves no room for the app version's files")
                limits = {tag: int(root.findtext(f"workunit/{tag}") or 0) for tag in
                          ["target_nresults", "max_error_results", "max_total_results", "max_success_results"]}
                if not (0 < limits["target_nresults"] <= limits["max_success_results"] <= limits["max_total_results"]
                        and 1 < limits["max_error_results"] <= limits["max_total_results"]):
                    fail(f"{in_path}: replica limits {limits}: create_work's defaults of 1 fail a WU at its first error")
        if not os.path.exists(out_path):
            continue
        root = parse_xml(out_path)
        if root is None:
            continue
        infos = root.findall("file_info")
        refs = root.findall("result/file_ref")
        for i, (info, ref) in enumerate(zip(infos, refs)):
            if info.find(f"name/OUTFILE_{i}") is None or ref.find(f"file_name/OUTFILE_{i}") is None:
                fail(f"{out_path}: output {i} is not <OUTFILE_{i}/>")
            if info.find("url/UPLOAD_URL") is None or not re.fullmatch(r"\d+", info.findtext("max_nbytes") or ""):
                fail(f"{out_path}: output {i} lacks <url><UPLOAD_URL/></url> or a whole max_nbytes")
        names = [r.findtext("open_name") for r in refs]
        if len(infos) != len(refs) or names != outputs:
            fail(f"{out_path}: open names {names}, helix-wu's example expects {outputs}")


SERVER_SCRIPTS = ["helix_validate_init", "helix_validate_compare", "helix_assimilate"]


# A project directory as a server has it: bin/ with the scripts and the tools.
def check_server_scripts(scripts, build, work):
    for name in SERVER_SCRIPTS:
        if not os.access(os.path.join(scripts, name), os.X_OK):
            fail(f"{scripts}/{name} is missing or not executable")
            return
    project = os.path.join(work, "project")
    os.makedirs(os.path.join(project, "bin"))
    os.makedirs(os.path.join(project, "helix_inputs"))
    for name in SERVER_SCRIPTS:
        shutil.copy(os.path.join(scripts, name), os.path.join(project, "bin", name))
    # As the daemons run them: from a sibling of bin/, as ../bin/NAME.
    cwd = os.path.join(project, "cgi-bin")
    os.makedirs(cwd)
    # Before helix-validate is installed (or while it is not executable), the
    # validator scripts say transient (3), which script_validator retries,
    # rather than exec's 127, which would mark every honest result invalid.
    validate = os.path.join(project, "bin", "helix-validate")
    for state in ("missing", "not executable"):
        if state == "not executable":
            shutil.copy(os.path.join(build, "validator", "helix-validate"), validate)
            os.chmod(validate, 0o644)
        for script, args in (("helix_validate_init", ["a_0_1"]), ("helix_validate_compare", ["a_0_1", "a_1_1"])):
            run = subprocess.run([f"../bin/{script}", *args], cwd=cwd, capture_output=True, text=True)
            if run.returncode != 3:
                fail(f"bin/{script} with helix-validate {state}: exit {run.returncode}, want 3 (transient)")
    os.remove(validate)
    os.symlink(os.path.join(build, "validator", "helix-validate"), validate)
    os.symlink(os.path.join(build, "assimilator", "helix-assimilate"), os.path.join(project, "bin", "helix-assimilate"))
    run = subprocess.run(["../bin/helix_assimilate", "--error", "32", "wu_name_7", "7", "0"], cwd=cwd,
                         capture_output=True, text=True)
    if run.returncode != 0:
        fail(f"bin/helix_assimilate --error: exit {run.returncode}: {run.stderr.strip()}")
    else:
        database = os.path.join(project, "results.sqlite")
        try:
            with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as db:
                rows = db.execute("SELECT wu_id, error_mask FROM errors").fetchall()
        except sqlite3.Error as error:
            rows = f"nothing ({error})"
        if rows != [(7, 32)]:
            fail(f"bin/helix_assimilate --error 32 ... 7 0: the project's errors table holds {rows}")


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    source, build, work = sys.argv[1:]
    if not os.access(os.path.join(build, "app", "helix"), os.X_OK) or not shutil.which("ldd"):
        print(f"skip: no built app in {build}/app/helix (or no ldd)")
        return SKIP
    out = os.path.join(work, "out")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    run = subprocess.run(["bash", os.path.join(source, "packaging", "make_release.sh"), "--from-build", build,
                          "--out", out], capture_output=True, text=True, timeout=120)
    sys.stdout.write(run.stdout)
    if run.returncode != 0:
        print(f"make_release.sh failed ({run.returncode}): {run.stderr.strip()}")
        return 1
    version_dirs = os.listdir(os.path.join(out, "apps", "helix"))
    if len(version_dirs) != 1:
        print(f"apps/helix holds {version_dirs}, want one version")
        return 1
    version_dir = version_dirs[0]
    version = subprocess.run([os.path.join(build, "app", "helix"), "--version"], capture_output=True,
                             text=True).stdout.split()[-1]
    root = os.path.join(out, "apps", "helix", version_dir)
    app_versions = sorted(os.listdir(root))
    gpu = [d for d in app_versions if re.fullmatch(rf"{PLATFORM}__cuda\d+", d)]
    if PLATFORM not in app_versions or len(gpu) != 1 or len(app_versions) != 2:
        fail(f"{root}: app versions {app_versions}, want {PLATFORM} and {PLATFORM}__cuda<NN>")
    allowance = app_version_disk_allowance(source)
    for d in app_versions:
        check_app_version(os.path.join(root, d), version, version_dir, work, allowance)
    if gpu:
        check_plan_class(os.path.join(out, "plan_class_spec.xml"), gpu[0].split("__")[1])
    check_templates(source, build, os.path.join(out, "templates"), work)
    check_server_scripts(os.path.join(out, "bin"), build, work)
    for problem in problems:
        print(f"FAIL: {problem}")
    if not problems:
        print("release tree OK")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
