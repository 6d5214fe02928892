#!/usr/bin/env python3
"""Compile latency against module size (issue 13): for generated modules
of N functions with N requests (gen_module.py), the time of `tanjit run
m.ll --entry first` (the first call of one function, df0, and its
derivative) in five modes:

  cold      eager, --jobs 1, an empty object cache (compile and store)
  warm      the same command again: a second process adds the cached object
  lazy      --compile lazy, no cache: only what the first call reaches
  jobs1     eager, --jobs 1, no cache
  jobs2     eager, --jobs 2, no cache (partitions on two threads)

The machine may be shared: the modes are interleaved, each is run REPS
times and the best (least) wall-clock time is kept, with the CPU time
(user + system) of that run beside it, and the load average around the
runs is recorded (column `load`).  Every mode must print the same
result bits as the first (cold) run, or the script fails.

usage: compile_bench.py BUILD_DIR CSV [PNG] [--sizes 10,100,400,1000] [--reps 3]
       compile_bench.py --plot CSV PNG   (redraw; needs matplotlib, Debian's
                                          python3-matplotlib)
"""
import argparse
import csv
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MODES = ("cold", "warm", "lazy", "jobs1", "jobs2")


def run(cmd):
    """(wall seconds, cpu seconds, stdout) of one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE).stdout
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, out


def measure(tanjit, module, work, reps):
    best = {m: (float("inf"), 0.0) for m in MODES}
    expected = None
    cache = os.path.join(work, "cache")
    base = [tanjit, "run", module, "--entry", "first"]
    for _ in range(reps):
        shutil.rmtree(cache, ignore_errors=True)
        commands = {
            "cold": base + ["--jobs", "1", "--cache-dir", cache],
            "warm": base + ["--jobs", "1", "--cache-dir", cache],
            "lazy": base + ["--compile", "lazy", "--no-cache"],
            "jobs1": base + ["--jobs", "1", "--no-cache"],
            "jobs2": base + ["--jobs", "2", "--no-cache"],
        }
        for mode in MODES:  # cold before warm, every repetition
            wall, cpu, out = run(commands[mode])
            if expected is None:
                expected = out
            if out != expected:
                sys.exit(f"{module} {mode}: {out!r} differs from {expected!r}")
            if wall < best[mode][0]:
                best[mode] = (wall, cpu)
    return best


def plot(rows, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = [r["functions"] for r in rows]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    labels = {
        "cold": "cold (compile, store)",
        "warm": "warm (second process, cached object)",
        "lazy": "lazy: first call of one function",
        "jobs1": "eager, --jobs 1",
        "jobs2": "eager, --jobs 2",
    }
    for mode in MODES:
        ax.plot(sizes, [r[f"{mode}_s"] for r in rows], marker="o", label=labels[mode])
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("functions in the module (each with a derivative request)")
    ax.set_ylabel("seconds to the first result (best of runs)")
    ax.set_title("tanjit compile latency against module size")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--plot":
        with open(sys.argv[2], newline="") as f:
            rows = [{k: float(v) for k, v in r.items()} for r in csv.DictReader(f)]
        plot(rows, sys.argv[3])
        return
    p = argparse.ArgumentParser()
    p.add_argument("build")
    p.add_argument("csv")
    p.add_argument("png", nargs="?")
    p.add_argument("--sizes", default="10,100,400,1000")
    p.add_argument("--reps", type=int, default=3)
    a = p.parse_args()
    tanjit = os.path.join(a.build, "src", "cli", "tanjit")
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for n in map(int, a.sizes.split(",")):
            module = os.path.join(work, f"m{n}.ll")
            with open(module, "w") as f:
                subprocess.run([sys.executable, os.path.join(HERE, "gen_module.py"), str(n)],
                               check=True, stdout=f)
            load_before = os.getloadavg()[0]
            best = measure(tanjit, module, work, a.reps)
            row = {"functions": n}
            for mode in MODES:
                row[f"{mode}_s"] = round(best[mode][0], 4)
                row[f"{mode}_cpu_s"] = round(best[mode][1], 4)
            # the machine's 1-minute load average around the runs: with
            # other work on the cores the wall times carry it
            row["load"] = round((load_before + os.getloadavg()[0]) / 2, 2)
            rows.append(row)
            print(f"{n:5d} functions: " + ", ".join(
                f"{m} {row[m + '_s']:.3f} s (cpu {row[m + '_cpu_s']:.3f})" for m in MODES) +
                f"; cold/warm {row['cold_s'] / row['warm_s']:.1f}x,"
                f" lazy/jobs1 {100 * row['lazy_s'] / row['jobs1_s']:.1f}%,"
                f" jobs1/jobs2 {row['jobs1_s'] / row['jobs2_s']:.2f}x;"
                f" load {row['load']}", flush=True)
    with open(a.csv, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    if a.png:
        try:
            plot(rows, a.png)
        except ImportError:
            print("matplotlib missing (Debian: python3-matplotlib): no plot", file=sys.stderr)


if __name__ == "__main__":
    main()
