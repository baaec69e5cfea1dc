#!/usr/bin/env python3
"""app_rusage.py: the helix app's whole-run cost on one work unit, for
several builds or settings side by side: wall time, host CPU (user and
system), page faults and context switches, each run in a fresh slot as the
BOINC client would run it, the variants alternating so that they share the
machine's drifts.

    python3 bench/app_rusage.py CREATE_WORK REPEATS VARIANT [VARIANT ...]

CREATE_WORK  a work unit's <name>.create_work.sh (host_cpu_load.sh make
             writes them under OUT/<kind>/)
VARIANT      LABEL=HELIX[,VAR=VALUE...]: a label for the table, the app
             binary, and environment variables set for that variant only
             (a malloc tunable, say)

Each run is `HELIX --device 0` (HELIX_APP_FLAGS overrides, e.g. "--cpu")
in a fresh slot (tests/e2e/make_client_dir.py slot); its usage is what the
kernel adds to this script's children when the app is reaped. Prints one
line per run (with the app's phase line, the last stderr line that has
"wall / host CPU", when it prints one), then a markdown table of medians
per variant. Every run's result files must be the same bytes (md5 over the
slot's outputs), else the script fails: a setting that changes a result is
not a speed-up.
"""
import hashlib
import os
import resource
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SLOT_TOOL = os.path.join(HERE, "..", "tests", "e2e", "make_client_dir.py")


def parse_variant(text):
    label, _, rest = text.partition("=")
    parts = rest.split(",")
    env = dict(part.split("=", 1) for part in parts[1:])
    return label, os.path.realpath(parts[0]), env


def outputs_md5(slot, before):
    """md5 over the files the run wrote in the slot (not its logs), by name."""
    digest = hashlib.md5()
    for name in sorted(os.listdir(slot)):
        path = os.path.join(slot, name)
        if name in before or os.path.islink(path) or not os.path.isfile(path):
            continue
        if name.startswith(("stderr", "boinc_", "init_data")) or name.endswith((".xml", ".txt")):
            continue
        digest.update(name.encode())
        with open(path, "rb") as f:
            digest.update(f.read())
    return digest.hexdigest()[:12]


def phase_line(slot):
    try:
        with open(os.path.join(slot, "stderr.txt"), errors="replace") as f:
            lines = [line.strip() for line in f if "wall / host CPU" in line]
    except FileNotFoundError:
        return ""
    return lines[-1] if lines else ""


def run_once(helix, env, wu_dir, wu_name, slot):
    subprocess.run(["rm", "-rf", slot], check=True)
    subprocess.run([sys.executable, SLOT_TOOL, "slot", slot, wu_dir, wu_name], check=True, stdout=subprocess.DEVNULL)
    before_files = set(os.listdir(slot))
    flags = os.environ.get("HELIX_APP_FLAGS", "--device 0").split()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    done = subprocess.run([helix, *flags], cwd=slot, env={**os.environ, **env},
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0 or os.path.exists(os.path.join(slot, "boinc_temporary_exit")):
        sys.exit(f"app_rusage: {helix} failed on {wu_name} (exit {done.returncode}); see {slot}/stderr.txt")
    return {
        "wall": wall,
        "user": after.ru_utime - before.ru_utime,
        "system": after.ru_stime - before.ru_stime,
        "faults": after.ru_minflt - before.ru_minflt,
        "voluntary": after.ru_nvcsw - before.ru_nvcsw,
        "md5": outputs_md5(slot, before_files),
        "phases": phase_line(slot),
    }


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    create_work, repeats = os.path.realpath(sys.argv[1]), int(sys.argv[2])
    variants = [parse_variant(v) for v in sys.argv[3:]]
    wu_dir = os.path.dirname(create_work)
    wu_name = os.path.basename(create_work)[: -len(".create_work.sh")]
    slot = os.path.join(wu_dir, "slot_app_rusage")
    runs = {label: [] for label, _, _ in variants}
    for r in range(repeats):
        for label, helix, env in variants:
            run = run_once(helix, env, wu_dir, wu_name, slot)
            runs[label].append(run)
            cpu = run["user"] + run["system"]
            print(f"run {r + 1} {label}: wall {run['wall']:.2f} s, cpu {cpu:.2f} s ({100 * cpu / run['wall']:.1f} %), "
                  f"system {run['system']:.2f} s, faults {run['faults']}, voluntary switches {run['voluntary']}, "
                  f"outputs {run['md5']}; {run['phases']}", flush=True)
    digests = {run["md5"] for label_runs in runs.values() for run in label_runs}
    if len(digests) != 1:
        sys.exit(f"app_rusage: the variants wrote different results: {sorted(digests)}")
    print("\n| variant | wall | host CPU | share of one core | system | page faults | voluntary switches |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for label, label_runs in runs.items():
        def median(key):
            return statistics.median(key(run) for run in label_runs)
        cpu = median(lambda run: run["user"] + run["system"])
        print(f"| {label} | {median(lambda run: run['wall']):.2f} s | {cpu:.2f} s | "
              f"{100 * median(lambda run: (run['user'] + run['system']) / run['wall']):.1f} % | "
              f"{median(lambda run: run['system']):.2f} s | {median(lambda run: run['faults']) / 1000:.0f} k | "
              f"{median(lambda run: run['voluntary']):.0f} |")


if __name__ == "__main__":
    main()
