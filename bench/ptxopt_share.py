#!/usr/bin/env python3
"""ptxopt's time as a share of ptxas's on one PTX file, from paired runs.

  bench/ptxopt_share.py FILE.ptx PTXOPT [PTXOPT ...] [--runs 7] [--levels -O2,-O3]

Each round runs `ptxas -arch=sm_90 FILE` and then every given ptxopt binary at every level on
FILE (`-o /dev/null`), and takes each ptxopt time over that round's ptxas time; prints, per
binary and level, the median of the rounds' ratios with the smallest and largest. Several
binaries (a build before and after a change) are measured in the same rounds, so their ratios
compare directly.
"""
import argparse
import statistics
import subprocess
import time


def wall(cmd):
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("ptxopt", nargs="+")
    ap.add_argument("--ptxas", default="/usr/local/cuda/bin/ptxas")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--levels", default="-O2,-O3")
    args = ap.parse_args()
    levels = args.levels.split(",")
    ratios = {(b, l): [] for b in args.ptxopt for l in levels}
    ptxas_times = []
    for _ in range(args.runs):
        p = wall([args.ptxas, "-arch=sm_90", args.file, "-o", "/dev/null"])
        ptxas_times.append(p)
        for b in args.ptxopt:
            for l in levels:
                ratios[(b, l)].append(wall([b, l, args.file, "-o", "/dev/null"]) / p)
    print("%s: ptxas median %.3f s over %d rounds" % (args.file, statistics.median(ptxas_times), args.runs))
    for (b, l), r in ratios.items():
        print("  %-40s %s  median %5.1f%% of ptxas (min %5.1f%%, max %5.1f%%)" % (
            b, l, 100 * statistics.median(r), 100 * min(r), 100 * max(r)))


if __name__ == "__main__":
    main()
