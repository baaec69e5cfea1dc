#!/usr/bin/env python3
"""host_cpu_while_gpu.py: the host CPU the helix app takes while the GPU is
busy, beside its whole-run share (host_cpu_load.sh gives only the latter).

    python3 bench/host_cpu_while_gpu.py HELIX OUT [REPEATS]

For each kind with a work unit under OUT/<kind>/ (host_cpu_load.sh make
writes them), REPEATS times (default 3): a fresh slot of BOINC soft links
(tests/e2e/make_client_dir.py slot), `HELIX --device 0` in it, and every
100 ms the process's CPU time (/proc/PID/stat: user + system of all its
threads) beside the GPU's utilisation (`nvidia-smi -lms 100`: the share of
the last sample period in which a kernel ran). An interval counts as "GPU
busy" when the utilisation read at its end is above 0; the figure is the CPU
time accrued in busy intervals over their length. Coarse by nature (the
driver's utilisation window, 10 ms CPU ticks), so it is reported beside the
whole-run share, medians of the repeats. Prints a markdown table.

It tells phases apart, not interleaved work: where the host and the GPU
take turns every few milliseconds (swsearch's queries, hmmsearch's blocks),
every window holds a kernel and the host's turns count as "busy". The GPU
busy time is an upper bound for the same reason.
"""
import glob
import os
import resource
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SLOT_TOOL = os.path.join(HERE, "..", "tests", "e2e", "make_client_dir.py")
TICKS = os.sysconf("SC_CLK_TCK")
PERIOD_S = 0.1


def process_cpu_s(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime (fields 14, 15)


class GpuUtilisation:
    """nvidia-smi streaming the utilisation every 100 ms; latest() is the last value read."""

    def __init__(self):
        self.process = subprocess.Popen(
            ["nvidia-smi", "--query-gpu=utilization.gpu", "--format=csv,noheader,nounits", "-lms", "100", "-i", "0"],
            stdout=subprocess.PIPE, text=True, bufsize=1)
        os.set_blocking(self.process.stdout.fileno(), False)
        self.value = 0

    def latest(self):
        while True:
            line = self.process.stdout.readline()
            if not line:
                return self.value
            if line.strip().isdigit():
                self.value = int(line.strip())

    def close(self):
        self.process.terminate()
        self.process.wait()


def run_once(helix, wu_dir, wu_name, slot):
    subprocess.run(["rm", "-rf", slot], check=True)
    subprocess.run([sys.executable, SLOT_TOOL, "slot", slot, wu_dir, wu_name], check=True, stdout=subprocess.DEVNULL)
    gpu = GpuUtilisation()
    time.sleep(0.5)  # nvidia-smi's first samples
    gpu.latest()
    # The whole run's CPU: what the kernel adds to our children's usage when the
    # app is reaped (nvidia-smi is reaped only after).
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    app = subprocess.Popen([helix, "--device", "0"], cwd=slot, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    busy_s = busy_cpu_s = 0.0
    last_t, last_cpu = start, 0.0
    while True:
        time.sleep(PERIOD_S)
        try:
            cpu = process_cpu_s(app.pid)  # still readable while a zombie
        except (FileNotFoundError, ProcessLookupError, IndexError):
            break
        now = time.monotonic()
        if gpu.latest() > 0:
            busy_s += now - last_t
            busy_cpu_s += cpu - last_cpu
        last_t, last_cpu = now, cpu
        if app.poll() is not None:
            break
    app.wait()
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    gpu.close()
    final_cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if os.path.exists(os.path.join(slot, "boinc_temporary_exit")) or not os.path.exists(
            os.path.join(slot, "boinc_finish_called")):
        sys.exit(f"host_cpu_while_gpu: {wu_name} did not finish in {slot}; see {slot}/stderr.txt")
    return wall, final_cpu, busy_s, busy_cpu_s


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    helix, out = os.path.realpath(sys.argv[1]), os.path.realpath(sys.argv[2])
    repeats = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    print("| kind | wall time | host CPU, whole run | GPU busy | host CPU while the GPU is busy |")
    print("| --- | --- | --- | --- | --- |")
    for kind in ["mrf", "glcm", "swsearch", "hmmsearch"]:
        scripts = sorted(glob.glob(os.path.join(out, kind, "*.create_work.sh")))
        if not scripts:
            continue
        wu_name = os.path.basename(scripts[0])[: -len(".create_work.sh")]
        runs = [run_once(helix, os.path.dirname(scripts[0]), wu_name, os.path.join(out, f"slot_{kind}"))
                for _ in range(repeats)]
        wall = statistics.median(r[0] for r in runs)
        whole = statistics.median(r[1] / r[0] for r in runs)
        busy = statistics.median(r[2] for r in runs)
        while_busy = statistics.median(r[3] / r[2] if r[2] > 0 else 0.0 for r in runs)
        print(f"| {kind} | {wall:.2f} s | {100 * whole:.1f} % | {busy:.2f} s | {100 * while_busy:.1f} % |")


if __name__ == "__main__":
    main()
