#!/usr/bin/env python3
"""Emulation rate of `ptxrun exec` on a multi-launch CUDA program against `ptxrun --launch` on the
same kernels, and the cost of one launch (issue #33's speed criterion; docs/BENCHMARKS.md).

  bench/exec_rate.py [--ptxrun build/ptxrun] [--runs 7] [--rounds 8] [--small 20000] [--jobs 1,2]
  bench/exec_rate.py --callgrind [--ptxrun build/ptxrun]

Builds bench/cuda_rate.cu with `nvcc -cudart shared -arch=sm_90`, takes its PTX out with
`ptxrun extract-ptx` and uses the launch specs of bench/rate/ (the program's launches: the same
kernels, grids and buffer sizes). Before timing it checks that both sides execute the same
instructions: the branch profile of one round of the program under `ptxrun exec --profile-out`
must equal the sum of the specs' profiles (`--launch --profile-out`), counts per branch and
line, which leaves the two sides no different path to take; the warp instructions of each
launch come from `ptxrun --launch --metrics`.

Timing, per host-thread count (-j) and per run, in alternating order (exec, --launch, small in
odd runs; small, --launch, exec in even ones), each on two clocks: the wall clock and the CPU
time of the processes (user + system, every thread; on this shared 2-core machine the wall
clock also counts the time other jobs hold the cores, the CPU time counts only the work done):
  exec       `ptxrun exec -j J -- rate ROUNDS`: the program times each launch (launch +
             cudaDeviceSynchronize; steady_clock and CLOCK_PROCESS_CPUTIME_ID) and prints the
             seconds per kernel;
  --launch   per kernel, `ptxrun --launch SPEC -j J` and the same spec with grid 1 and every
             scalar 0 (same module, same buffers and initializers, next to no work): the
             difference of the two processes' times is the kernel's time, without process
             start, parsing, decoding and buffer initialization;
  small      `ptxrun exec -j J -- rate small N`: N launches of a one-warp kernel (9 warp
             instructions), timed by the program: the cost of a launch, emulation included.
The exec/--launch ratio of a run is the sum over the program's launches of stencil, reduce and
branchy of exec's seconds over the same sum of --launch's; `reduce_final` (one CTA, 741 warp
instructions, tens of microseconds) is left out of the ratio because the difference of two
process times cannot resolve it; its exec time per launch is shown. Medians over the runs, with
the smallest and largest value.

--callgrind counts instructions instead (valgrind's callgrind, deterministic, -j 1): one round of
the program (its binary run with LD_PRELOAD naming the stand-in, as `ptxrun exec` runs it) and
each spec once, collecting only inside `Launch::runAll` (the emulation of a launch, the same code
on both sides); it prints both totals, their ratio and the functions whose own instructions
differ most; then, from 2,000 launches of the small mode, the instructions of one launch in
`__cudaLaunchKernel`, inside and outside `Launch::runAll`.
"""
import argparse
import collections
import glob
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SPECS = os.path.join(HERE, "rate")
# The program's launches per round (bench/cuda_rate.cu, rate()): spec name -> launches.
PER_ROUND = {"stencil": 2, "reduce": 1, "reduce_final": 1, "branchy": 1}
HEAVY = ["stencil", "reduce", "branchy"]


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


CLOCKS = ("wall", "cpu")


def timed(cmd):
    """Runs cmd; returns ((wall seconds, CPU seconds of it and its children), stdout)."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    s = time.perf_counter()
    p = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    w = time.perf_counter() - s
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (w, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)), p.stdout


def program_json(out):
    for line in out.splitlines():
        if line.startswith("{"):
            return json.loads(line)
    raise RuntimeError("no JSON line in the program's output:\n" + out)


def profile_counts(path, into, times=1):
    for b in json.load(open(path))["branches"]:
        c = into.setdefault((b["function"], b["line"]), [0, 0, 0])
        c[0] += times * b["all_taken"]
        c[1] += times * b["all_not_taken"]
        c[2] += times * b["divergent"]


def stats(v):
    return statistics.median(v), min(v), max(v)


def fmt(v, scale=1.0, digits=1):
    m, lo, hi = stats(v)
    f = "%%.%df" % digits
    return (f + " (" + f + ".." + f + ")") % (m * scale, lo * scale, hi * scale)


def callgrind(cmd, out, env=None, toggle=None):
    """Runs cmd under callgrind; returns the collected instructions (only inside `toggle`)."""
    vg = ["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out]
    if toggle:
        vg.append("--toggle-collect=" + toggle)
    r = subprocess.run(vg + cmd, check=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       env=dict(os.environ, **(env or {})))
    return int(re.search(r"I\s+refs:\s+([\d,]+)", r.stderr).group(1).replace(",", "")), r.stdout


def annotate(path, inclusive=False):
    """Instructions per function (file prefixes and object suffixes dropped; inlined parts summed
    when self, the largest entry when inclusive)."""
    out = run(["callgrind_annotate", "--threshold=100", "--auto=no",
               "--inclusive=" + ("yes" if inclusive else "no"), path]).stdout
    d, started = collections.Counter(), False
    for line in out.splitlines():
        if "file:function" in line:
            started = True
            continue
        m = started and re.match(r"\s*([\d,]+) \([ \d.]+%\)\s+(.*)", line)
        if m:
            name = re.sub(r"^[^:]*:", "", re.sub(r" \[.*\]$", "", m.group(2)), count=1)
            c = int(m.group(1).replace(",", ""))
            d[name] = max(d[name], c) if inclusive else d[name] + c
    return d


def count_instructions(ptxrun, prog, ptx, specs, work):
    cudart = os.environ.get("PTXRUN_CUDART") or os.path.join(os.path.dirname(ptxrun), "cudart", "libcudart.so.13")
    env = {"LD_PRELOAD": cudart, "PTXRUN_JOBS": "1"}
    toggle = "ptxopt::emu::Launch::runAll(ptxopt::emu::RunResult&)"
    e, out = callgrind([prog, "rate", "1"], os.path.join(work, "exec.cg"), env, toggle)
    if program_json(out)["mismatches"]:
        sys.exit("exec_rate: the program's results differ from its CPU reference")
    self_e, self_l = annotate(os.path.join(work, "exec.cg")), collections.Counter()
    total_l = 0
    print("callgrind, -j 1: instructions inside Launch::runAll (the emulation of a launch)")
    print("| kernel | launches per round | `--launch`, per launch |")
    print("|---|---|---|")
    for k, n in PER_ROUND.items():
        cg = os.path.join(work, k + ".cg")
        c, _ = callgrind([ptxrun, "--launch", specs[k], ptx, "-j", "1"], cg, toggle=toggle)
        total_l += n * c
        for f, v in annotate(cg).items():
            self_l[f] += n * v
        print("| %s | %d | %s |" % (k, n, format(c, ",")))
    print("one round: exec %s, --launch %s (the specs' sum): exec / --launch **%.4f**" % (
        format(e, ","), format(total_l, ","), e / total_l))
    print("functions whose own instructions differ most (exec, --launch, difference):")
    for f in sorted(set(self_e) | set(self_l), key=lambda f: -abs(self_e[f] - self_l[f]))[:6]:
        print("  %15s %15s %+15s  %s" % (format(self_e[f], ","), format(self_l[f], ","),
                                          format(self_e[f] - self_l[f], ","), f[:100]))
    n = 2000
    cg = os.path.join(work, "small.cg")
    callgrind([prog, "small", str(n)], cg, env)
    inc = annotate(cg, inclusive=True)
    launch = max(v for f, v in inc.items() if f.startswith("__cudaLaunchKernel"))
    emu = max(v for f, v in inc.items() if f.startswith("ptxopt::emu::Launch::runAll(ptxopt::emu::RunResult&)"))
    print("small, %d launches (+1 untimed) of a one-warp kernel: per launch %d instructions in __cudaLaunchKernel, "
          "%d of them in Launch::runAll, %d outside" % (n, launch / (n + 1), emu / (n + 1), (launch - emu) / (n + 1)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ptxrun", default=os.path.join(ROOT, "build", "ptxrun"),
                    help="ptxrun (its stand-in: cudart/libcudart.so.13 beside it)")
    ap.add_argument("--nvcc", default="nvcc")
    ap.add_argument("--runs", type=int, default=7, help="paired runs per -j")
    ap.add_argument("--rounds", type=int, default=8, help="rounds of the program (5 launches each)")
    ap.add_argument("--small", type=int, default=20000, help="launches of the small mode")
    ap.add_argument("--jobs", default="1,2", help="host thread counts")
    ap.add_argument("--workdir", help="where the program and its PTX go (default: a temporary directory)")
    ap.add_argument("--callgrind", action="store_true", help="count instructions under callgrind instead of timing")
    args = ap.parse_args()
    ptxrun = os.path.abspath(args.ptxrun)
    work = args.workdir or tempfile.mkdtemp(prefix="exec_rate.")
    os.makedirs(work, exist_ok=True)

    prog = os.path.join(work, "rate")
    run([args.nvcc, "-cudart", "shared", "-arch=sm_90", "-o", prog, os.path.join(HERE, "cuda_rate.cu")])
    run([ptxrun, "extract-ptx", prog, "-o", os.path.join(work, "ptx")])
    ptx = [p for p in glob.glob(os.path.join(work, "ptx", "*.ptx")) if ".entry stencil" in open(p).read()]
    if len(ptx) != 1:
        sys.exit("exec_rate: expected one PTX entry with the kernels, found %d" % len(ptx))
    ptx = ptx[0]

    specs = {k: os.path.join(SPECS, k + ".json") for k in PER_ROUND}
    small_spec = os.path.join(SPECS, "tiny.json")
    # The setup variants: grid 1, every scalar 0.
    setup = {}
    for k, path in specs.items():
        s = json.load(open(path))
        s["grid"] = [1, 1, 1]
        for p in s["params"]:
            if "value" in p:
                p["value"] = 0
        setup[k] = os.path.join(work, k + ".setup.json")
        json.dump(s, open(setup[k], "w"))

    # Warp instructions per launch, and the check that both sides take the same paths.
    warp, thread = {}, {}
    for k in list(specs) + ["tiny"]:
        m = json.loads(run([ptxrun, "--launch", specs.get(k, small_spec), ptx, "--metrics", "-j", "1"]).stdout)
        warp[k], thread[k] = m["warp_instructions"], m["thread_instructions"]
    want, got = {}, {}
    for k, n in PER_ROUND.items():
        p = os.path.join(work, k + ".profile.json")
        run([ptxrun, "--launch", specs[k], ptx, "-j", "1", "--profile-out", p])
        profile_counts(p, want, n)
    p = os.path.join(work, "exec.profile.json")
    out = run([ptxrun, "exec", "-j", "1", "--profile-out", p, "--", prog, "rate", "1"]).stdout
    if program_json(out)["mismatches"]:
        sys.exit("exec_rate: the program's results differ from its CPU reference:\n" + out)
    profile_counts(p, got)
    got = {key: c for key, c in got.items() if any(c)}
    want = {key: c for key, c in want.items() if any(c)}
    if got != want:
        sys.exit("exec_rate: the program's branch profile is not the specs' (exec %d branches, specs %d)" %
                 (len(got), len(want)))
    heavy_warp = sum(PER_ROUND[k] * warp[k] for k in HEAVY)
    if args.callgrind:
        count_instructions(ptxrun, prog, ptx, specs, work)
        return

    print("ptxrun: %s\nprogram: %s rate %d = %d rounds of %s; PTX %s" % (
        ptxrun, prog, args.rounds, args.rounds, ", ".join("%d %s" % (n, k) for k, n in PER_ROUND.items()), ptx))
    print("checked: one round's branch profile under exec = the specs' (%d branch lines); results = the CPU reference" %
          len(got))
    print("warp (thread) instructions per launch: " + ", ".join(
        "%s %d (%d)" % (k, warp[k], thread[k]) for k in list(PER_ROUND) + ["tiny"]))
    print("%d paired runs per -j, medians (min..max)\n" % args.runs)

    for j in [int(x) for x in args.jobs.split(",")]:
        # Per clock ("wall", "cpu"): per kernel the seconds of one launch, per run.
        ex = {c: {k: [] for k in PER_ROUND} for c in CLOCKS}
        la = {c: {k: [] for k in HEAVY} for c in CLOCKS}
        ratio = {c: [] for c in CLOCKS}
        rate_ex = {c: [] for c in CLOCKS}
        rate_la = {c: [] for c in CLOCKS}
        small_us = {c: [] for c in CLOCKS}
        exec_wall, small_wall = [], []
        for r in range(args.runs):
            def do_exec():
                (w, _), out = timed([ptxrun, "exec", "-j", str(j), "--", prog, "rate", str(args.rounds)])
                o = program_json(out)
                exec_wall.append(w)
                if o["mismatches"]:
                    sys.exit("exec_rate: mismatches in run %d" % r)
                for k in PER_ROUND:
                    e = o["kernels"][k]
                    ex["wall"][k].append(e["seconds"] / e["launches"])
                    ex["cpu"][k].append(e["cpu_seconds"] / e["launches"])

            def do_launch():
                for k in HEAVY:
                    full, _ = timed([ptxrun, "--launch", specs[k], ptx, "-j", str(j)])
                    base, _ = timed([ptxrun, "--launch", setup[k], ptx, "-j", str(j)])
                    for i, c in enumerate(CLOCKS):
                        la[c][k].append(full[i] - base[i])

            def do_small():
                (w, _), out = timed([ptxrun, "exec", "-j", str(j), "--", prog, "small", str(args.small)])
                o = program_json(out)
                small_wall.append(w)
                small_us["wall"].append(o["us_per_launch"])
                small_us["cpu"].append(o["cpu_us_per_launch"])

            order = [do_exec, do_launch, do_small] if r % 2 == 0 else [do_small, do_launch, do_exec]
            for f in order:
                f()
            for c in CLOCKS:
                te = sum(PER_ROUND[k] * ex[c][k][-1] for k in HEAVY)
                tl = sum(PER_ROUND[k] * la[c][k][-1] for k in HEAVY)
                ratio[c].append(te / tl)
                rate_ex[c].append(heavy_warp / te)
                rate_la[c].append(heavy_warp / tl)
            print("  -j %d run %d: exec/--launch %.3f (wall), %.3f (CPU)" % (j, r + 1, ratio["wall"][-1], ratio["cpu"][-1]),
                  file=sys.stderr, flush=True)

        print("-j %d: ms per launch, CPU time of the process (wall-clock time below)" % j)
        print("| kernel | warp instr. per launch | `--launch` | `exec` | exec / --launch, CPU | exec / --launch, wall |")
        print("|---|---|---|---|---|---|")
        for k in PER_ROUND:
            if k in HEAVY:
                rr = {c: [e / l for e, l in zip(ex[c][k], la[c][k])] for c in CLOCKS}
                print("| %s | %s | %s | %s | %s | %s |" % (
                    k, format(warp[k], ","), fmt(la["cpu"][k], 1e3, 1), fmt(ex["cpu"][k], 1e3, 1),
                    fmt(rr["cpu"], 1, 3), fmt(rr["wall"], 1, 3)))
            else:
                print("| %s | %s | (not resolved) | %s | - | - |" % (k, format(warp[k], ","), fmt(ex["cpu"][k], 1e3, 3)))
        print("| **program** (stencil, reduce, branchy; Mwarp-instr/s) | %s per round | %s | %s | **%s** | **%s** |" % (
            format(heavy_warp, ","), fmt(rate_la["cpu"], 1e-6), fmt(rate_ex["cpu"], 1e-6),
            fmt(ratio["cpu"], 1, 3), fmt(ratio["wall"], 1, 3)))
        print("wall clock: program rate --launch %s, exec %s Mwarp-instr/s; ms per launch: %s" % (
            fmt(rate_la["wall"], 1e-6), fmt(rate_ex["wall"], 1e-6),
            ", ".join("%s --launch %s exec %s" % (k, fmt(la["wall"][k], 1e3, 1), fmt(ex["wall"][k], 1e3, 1)) for k in HEAVY)))
        print("exec whole process, %d rounds: %s s wall (in its launches: %s s)" % (
            args.rounds, fmt(exec_wall, 1, 2),
            fmt([sum(args.rounds * n * ex["wall"][k][i] for k, n in PER_ROUND.items()) for i in range(args.runs)], 1, 2)))
        print("small: %d launches of a one-warp kernel (%d warp instructions): %s us per launch wall, %s CPU; "
              "whole process %s s\n" % (args.small, warp["tiny"], fmt(small_us["wall"], 1, 2), fmt(small_us["cpu"], 1, 2),
                                       fmt(small_wall, 1, 3)))

if __name__ == "__main__":
    main()
