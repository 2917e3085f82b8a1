#!/usr/bin/env python3
"""ptxopt's time as a share of ptxas's on one PTX file, from paired runs.

  bench/ptxopt_share.py FILE.ptx PTXOPT [PTXOPT ...] [--runs 7] [--levels -O2,-O3]
  bench/ptxopt_share.py DIR PTXOPT [PTXOPT ...] [--runs 3] [--levels -O0,-O2,-O3]

With a directory, every .ptx file under it is measured the same way and the summary gives, per
binary and level, the median over the files of each file's median ratio, with the 10th and 90th
percentiles (-O0 is parse, verify and print alone).

Each round runs `ptxas -arch=ARCH FILE` (ARCH the file's `.target`) and then every given ptxopt binary at every level on
FILE (`-o /dev/null`), and takes each ptxopt time over that round's ptxas time; prints, per
binary and level, the median of the rounds' ratios with the smallest and largest. Several
binaries (a build before and after a change) are measured in the same rounds, so their ratios
compare directly.
"""
import argparse
import glob
import os
import statistics
import subprocess
import sys
import time

# A file's own target (`.target sm_90a`), so that ptxas accepts it: the corpus check's reading.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "corpus"))
from check_corpus import target_arch  # noqa: E402


def wall(cmd):
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def measure(path, binaries, levels, runs, ptxas):
    """Per (binary, level): this file's ratios over `runs` rounds; and ptxas's times."""
    ratios = {(b, l): [] for b in binaries for l in levels}
    ptxas_times = []
    arch = target_arch(path)
    for _ in range(runs):
        p = wall([ptxas, "-arch=" + arch, path, "-o", "/dev/null"])
        ptxas_times.append(p)
        for b in binaries:
            for l in levels:
                ratios[(b, l)].append(wall([b, l, path, "-o", "/dev/null"]) / p)
    return ratios, ptxas_times


def percentile(values, q):
    v = sorted(values)
    return v[min(len(v) - 1, int(q * (len(v) - 1) + 0.5))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("ptxopt", nargs="+")
    ap.add_argument("--ptxas", default="/usr/local/cuda/bin/ptxas")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--levels", default="-O2,-O3")
    args = ap.parse_args()
    levels = args.levels.split(",")
    if os.path.isdir(args.file):
        files = sorted(glob.glob(os.path.join(args.file, "**", "*.ptx"), recursive=True))
        per = {(b, l): [] for b in args.ptxopt for l in levels}
        for f in files:
            ratios, _ = measure(f, args.ptxopt, levels, args.runs, args.ptxas)
            for key, r in ratios.items():
                per[key].append(statistics.median(r))
        print("%s: %d files, %d rounds each; per file the median ratio, then over the files:" % (args.file, len(files), args.runs))
        for (b, l), r in per.items():
            print("  %-40s %s  median %5.1f%% of ptxas (p10 %5.1f%%, p90 %5.1f%%)" % (
                b, l, 100 * statistics.median(r), 100 * percentile(r, 0.1), 100 * percentile(r, 0.9)))
        return
    ratios, ptxas_times = measure(args.file, args.ptxopt, levels, args.runs, args.ptxas)
    print("%s: ptxas median %.3f s over %d rounds" % (args.file, statistics.median(ptxas_times), args.runs))
    for (b, l), r in ratios.items():
        print("  %-40s %s  median %5.1f%% of ptxas (min %5.1f%%, max %5.1f%%)" % (
            b, l, 100 * statistics.median(r), 100 * min(r), 100 * max(r)))


if __name__ == "__main__":
    main()
