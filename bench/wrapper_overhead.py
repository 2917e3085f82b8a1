#!/usr/bin/env python3
"""The time ptxopt-ptxas adds to a ptxas call, as a ratio to the real ptxas's time.

  bench/wrapper_overhead.py --build build [--reps 9] [--json out.json] [--only F.ptx] [GROUP ...]

For every PTX file of the corpus groups (default: nvcc-sm90, cccl-sm90, triton-sm80,
triton-sm90a), with the call its toolchain makes (nvcc: `-arch=sm_90 -m64 F -o O`; Triton:
`-lineinfo -v --gpu-name=sm_XX F -o O`), three commands run in turn, --reps times each:
  A  ptxas on the file;
  B  ptxas on `ptxopt F` (made once beforehand): what ptxas itself takes for the optimized module;
  W  ptxopt-ptxas on the file (PTXOPT_PTXAS naming the same ptxas);
  Z  ptxopt-ptxas with PTXOPT_FLAGS=-O0, which starts, reads its settings and hands the call to
     ptxas (exec): the price of a second executable in the call, whatever it does;
  F  with --floor: bench/exec_floor.c, a static C program that only execs ptxas (compiled here
     with cc -O2 -static): the least any wrapper costs.
A small kernel's ptxas time varies by a third from run to run on a shared machine (its CPU time
too), so each command's time is its minimum over the runs (the medians are in the JSON). Per
file, as ratios to A:
  added  = W - A       what a user pays: the issue's figure, goal at most 3% (median over files);
  own    = W - B       ptxopt-ptxas itself: start-up, parse, passes, verify, print, temporary file;
  start  = Z - A       the start-up alone;
  input  = B - A       ptxas's own time on the optimized module against the original;
  passes               the wrapper's own clock around the optimization (PTXOPT_VERBOSE).
Prints one line per file and, per group and over all files, the median with the 10th and 90th
percentiles and the largest. --stat median counts each command by its median instead (with many
--reps on one file, --only F.ptx).
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

GROUPS = {
    "nvcc-sm90": lambda f, o: ["-arch=sm_90", "-m64", f, "-o", o],
    "cccl-sm90": lambda f, o: ["-arch=sm_90", "-m64", f, "-o", o],
    "triton-sm80": lambda f, o: ["-lineinfo", "-v", "--gpu-name=sm_80", f, "-o", o],
    "triton-sm90a": lambda f, o: ["-lineinfo", "-v", "--gpu-name=sm_90a", f, "-o", o],
}


def timed(cmd, env):
    """(wall seconds, stderr)."""
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, env=env)
        _, status, _ = os.wait4(p.pid, 0)
        elapsed = time.perf_counter() - start
        err.seek(0)
        text = err.read().decode(errors="replace")
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError("%s failed: %s" % (" ".join(cmd), text[-500:]))
    return elapsed, text


def percentile(values, p):
    v = sorted(values)
    k = (len(v) - 1) * p / 100.0
    lo, hi = int(k), min(int(k) + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (k - lo)


def summary(label, ratios):
    return "  %-13s %3d files: median %6.2f%%, p10 %6.2f%%, p90 %6.2f%%, max %6.2f%%" % (
        label, len(ratios), 100 * statistics.median(ratios), 100 * percentile(ratios, 10),
        100 * percentile(ratios, 90), 100 * max(ratios))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--ptxas", default="/usr/local/cuda/bin/ptxas")
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--json", help="write the per-file figures here")
    ap.add_argument("--flags", default=None, help="PTXOPT_FLAGS for the wrapper (default: unset, the -O2 pipeline)")
    ap.add_argument("--floor", action="store_true", help="also time bench/exec_floor.c (needs cc)")
    ap.add_argument("--stat", choices=["min", "median"], default="min", help="how each command's runs count")
    ap.add_argument("--only", action="append", default=[], help="only this file name (repeatable), e.g. atomics_float.ptx")
    ap.add_argument("groups", nargs="*", default=list(GROUPS))
    args = ap.parse_args()
    wrapper = os.path.abspath(os.path.join(args.build, "ptxopt-ptxas"))
    ptxopt = os.path.abspath(os.path.join(args.build, "ptxopt"))
    env = dict(os.environ, PTXOPT_PTXAS=args.ptxas, PTXOPT_VERBOSE="1")
    for k in ("PTXOPT_FLAGS", "PTXOPT_KEEP_DIR", "PTXOPT_REMARKS", "PTXOPT_PROFILE_USE"):
        env.pop(k, None)
    if args.flags is not None:
        env["PTXOPT_FLAGS"] = args.flags
    off = dict(env, PTXOPT_FLAGS="-O0")
    work = tempfile.mkdtemp(prefix="wrapper-overhead-")
    floor = None
    if args.floor:
        floor = os.path.join(work, "exec_floor")
        subprocess.run(["cc", "-O2", "-static", '-DPTXAS="%s"' % args.ptxas,
                        os.path.join(os.path.dirname(os.path.abspath(__file__)), "exec_floor.c"), "-o", floor], check=True)
    stat = min if args.stat == "min" else statistics.median
    obj = os.path.join(work, "x.o")
    rows, by_group = [], {}
    for group in args.groups:
        directory = os.path.join(args.build, "corpus", group)
        if not os.path.isdir(directory):
            print("SKIPPED: %s (no %s)" % (group, directory))
            continue
        for name in sorted(os.listdir(directory)):
            if not name.endswith(".ptx") or (args.only and name not in args.only):
                continue
            f = os.path.join(directory, name)
            # The optimized module under the same base name (ptxas's messages, not its object,
            # name the file).
            opt = os.path.join(work, "opt", name)
            os.makedirs(os.path.dirname(opt), exist_ok=True)
            subprocess.run([ptxopt, *(args.flags.split() if args.flags else []), f, "-o", opt], check=True)
            times = {"A": [], "B": [], "W": [], "Z": [], "F": []}
            passes = []
            for _ in range(args.reps):
                times["A"].append(timed([args.ptxas, *GROUPS[group](f, obj)], env)[0])
                times["B"].append(timed([args.ptxas, *GROUPS[group](opt, obj)], env)[0])
                t, err = timed([wrapper, *GROUPS[group](f, obj)], env)
                times["W"].append(t)
                m = re.search(r"optimized in ([0-9.]+) ms", err)
                passes.append(float(m.group(1)) / 1000 if m else 0.0)
                times["Z"].append(timed([wrapper, *GROUPS[group](f, obj)], off)[0])
                if floor:
                    times["F"].append(timed([floor, *GROUPS[group](f, obj)], env)[0])
            a, b, w, z = (stat(times[k]) for k in "ABWZ")
            row = dict(group=group, file=name, bytes=os.path.getsize(f), ptxas_s=a, ptxas_optimized_s=b, wrapper_s=w,
                       passes_s=stat(passes), medians_s={k: statistics.median(v) for k, v in times.items() if v},
                       added=(w - a) / a, own=(w - b) / a, start=(z - a) / a, input=(b - a) / a,
                       passes=stat(passes) / a)
            if floor:
                row["floor"] = (stat(times["F"]) - a) / a
            rows.append(row)
            by_group.setdefault(group, []).append(row)
            print("%-13s %-30s %7d B  ptxas %7.1f ms  added %6.1f ms (%6.1f%%)  own %6.1f%%  start %6.1f%%  "
                  "input %6.1f%%  passes %6.1f%%" % (group, name, row["bytes"], 1000 * a, 1000 * (w - a), 100 * row["added"],
                                                     100 * row["own"], 100 * row["start"], 100 * row["input"],
                                                     100 * row["passes"]) +
                  ("  floor %6.1f%%" % (100 * row["floor"]) if floor else ""), flush=True)
    if not rows:
        return 1
    print("\nratios to ptxas's time on the original file (%s of %d runs of each command):" % (args.stat, args.reps))
    for key, what in (("added", "added (ptxopt-ptxas - ptxas)"), ("own", "own (ptxopt-ptxas - ptxas on the optimized module)"),
                      ("start", "start (ptxopt-ptxas with PTXOPT_FLAGS=-O0 - ptxas)"),
                      ("input", "input (ptxas on the optimized module - ptxas)"), ("passes", "passes (the optimization alone)"),
                      ("floor", "floor (exec_floor - ptxas)")):
        if key == "floor" and not floor:
            continue
        print(what + ":")
        for group, rs in by_group.items():
            print(summary(group, [r[key] for r in rs]))
        print(summary("all", [r[key] for r in rows]))
    if args.json:
        with open(args.json, "w") as fp:
            json.dump(rows, fp, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
