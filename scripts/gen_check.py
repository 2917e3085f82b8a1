#!/usr/bin/env python3
"""Checks the kernels of `ptxfuzz gen` over a range of seeds.

For each seed: ptxas -arch=sm_90 accepts the module; ptxrun --check-races runs it without
faults or races under the round-robin schedule and under a random one, and both runs leave
identical buffers; ptxopt -O2 --verify-each optimizes it, ptxas accepts the result and
ptxrun --compare finds the same buffers. Prints a summary (acceptance rates, generation speed,
instruction counts, shape distribution) and lists every failing seed with its message.

  scripts/gen_check.py --build build-gen --from 1 --to 2000 [--size random] [--jobs 2]
                       [--warp-sz] [--keep DIR] [--json summary.json]

Failures of the optimizer step (ptxopt crashed, --verify-each failed, the optimized module is
rejected by ptxas or computes something else) are optimizer bugs, not generator bugs: they are
reported separately.
"""
import argparse
import collections
import concurrent.futures
import filecmp
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

PTXAS = os.environ.get("PTXAS", "/usr/local/cuda/bin/ptxas")


def run(cmd, timeout):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
        return p.returncode, p.stdout.decode(errors="replace")
    except subprocess.TimeoutExpired:
        return 124, "timed out after %ss" % timeout


def first_lines(text, n=4):
    lines = [l for l in text.splitlines() if l.strip() and not l.startswith("ptxrun: no races")]
    return " | ".join(lines[:n])


def same_dirs(a, b):
    fa, fb = sorted(os.listdir(a)), sorted(os.listdir(b))
    if fa != fb:
        return False, "different buffer sets"
    for f in fa:
        if not filecmp.cmp(os.path.join(a, f), os.path.join(b, f), shallow=False):
            return False, "buffer %s differs" % f
    return True, ""


def check(args, work, name, seed):
    """Returns (stage, message) of the first failure, or (None, timings)."""
    ptx = os.path.join(work, name + ".ptx")
    spec = os.path.join(work, name + ".json")
    opt = os.path.join(work, name + ".O2.ptx")
    ptxrun = os.path.join(args.build, "ptxrun")
    ptxopt = os.path.join(args.build, "ptxopt")
    t = {}
    t0 = time.time()
    rc, out = run([PTXAS, "-arch=sm_90", ptx, "-o", os.devnull], args.timeout)
    t["ptxas"] = time.time() - t0
    if rc != 0:
        return "ptxas", first_lines(out)
    d1, d2 = os.path.join(work, name + ".rr"), os.path.join(work, name + ".rand")
    t0 = time.time()
    rc, out = run([ptxrun, "--launch", spec, ptx, "-j", "1", "--check-races", "--dump", d1], args.timeout)
    t["run"] = time.time() - t0
    if rc != 0:
        return {3: "fault", 4: "race", 124: "timeout"}.get(rc, "run"), "rc=%d %s" % (rc, first_lines(out))
    rc, out = run([ptxrun, "--launch", spec, ptx, "-j", "1", "--check-races", "--schedule=random", "--seed",
                   str(seed * 7 + 3), "--dump", d2], args.timeout)
    if rc != 0:
        return {3: "fault", 4: "race", 124: "timeout"}.get(rc, "run") + ".random", "rc=%d %s" % (rc, first_lines(out))
    same, why = same_dirs(d1, d2)
    if not same:
        return "schedule", why
    t0 = time.time()
    rc, out = run([ptxopt, "-O2", "--verify-each", ptx, "-o", opt], args.timeout)
    t["ptxopt"] = time.time() - t0
    if rc != 0:
        return "opt.ptxopt", "rc=%d %s" % (rc, first_lines(out))
    rc, out = run([PTXAS, "-arch=sm_90", opt, "-o", os.devnull], args.timeout)
    if rc != 0:
        return "opt.ptxas", first_lines(out)
    rc, out = run([ptxrun, "--launch", spec, ptx, "-j", "1", "--compare", opt], args.timeout)
    if rc != 0:
        return "opt.compare", "rc=%d %s" % (rc, first_lines(out))
    return None, t


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build-gen", help="directory with ptxfuzz, ptxrun, ptxopt")
    ap.add_argument("--from", dest="first", type=int, default=1)
    ap.add_argument("--to", dest="last", type=int, default=200)
    ap.add_argument("--size", default="random")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--warp-sz", action="store_true", help="let kernels use WARP_SZ (default: --no-warp-sz)")
    ap.add_argument("--show", type=int, default=20, help="print at most this many failures per stage as they come")
    ap.add_argument("--keep", help="keep the kernels of failing seeds in this directory")
    ap.add_argument("--json", help="write the summary as JSON here")
    args = ap.parse_args()

    work = tempfile.mkdtemp(prefix="gen_check_")
    count = args.last - args.first + 1
    gen = [os.path.join(args.build, "ptxfuzz"), "gen", "--seed", str(args.first), "--count", str(count), "-o", work,
           "--size", args.size, "--stats"]
    if not args.warp_sz:
        gen.append("--no-warp-sz")
    t0 = time.time()
    p = subprocess.run(gen, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=True)
    gen_seconds = time.time() - t0
    stats = [json.loads(l) for l in p.stderr.decode().splitlines() if l.startswith("{")]
    by_seed = {s["seed"]: s for s in stats}

    failures = []
    shown = collections.Counter()
    timings = collections.defaultdict(float)
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(check, args, work, "fuzz_%d" % s, s): s for s in range(args.first, args.last + 1)}
        done = 0
        for f in concurrent.futures.as_completed(futures):
            seed = futures[f]
            stage, info = f.result()
            done += 1
            if stage:
                failures.append((seed, stage, info))
                shown[stage] += 1
                if shown[stage] <= args.show:
                    print("seed %d: %s: %s" % (seed, stage, info), flush=True)
                if args.keep:
                    os.makedirs(args.keep, exist_ok=True)
                    for ext in (".ptx", ".json", ".O2.ptx"):
                        src = os.path.join(work, "fuzz_%d%s" % (seed, ext))
                        if os.path.exists(src):
                            shutil.copy(src, args.keep)
            else:
                for k, v in info.items():
                    timings[k] += v
            if done % 100 == 0:
                print("... %d/%d seeds, %d failing" % (done, count, len(failures)), file=sys.stderr, flush=True)
    shutil.rmtree(work, ignore_errors=True)

    stage_counts = collections.Counter(st for _, st, _ in failures)
    gen_fail = sum(n for st, n in stage_counts.items() if not st.startswith("opt."))
    ptxas_fail = stage_counts.get("ptxas", 0)
    clean_fail = gen_fail - ptxas_fail
    sizes = collections.Counter(s["size"] for s in stats)
    insts = [s["instructions"] for s in stats]
    by_size = collections.defaultdict(list)
    for s in stats:
        by_size[s["size"]].append(s["instructions"])
    shape_kernels = collections.Counter()
    shape_total = collections.Counter()
    for s in stats:
        for k, v in s["shapes"].items():
            shape_kernels[k] += 1
            shape_total[k] += v
    summary = {
        "seeds": [args.first, args.last],
        "kernels": count,
        "ptxas_accepted": count - ptxas_fail,
        "run_clean": count - gen_fail,
        "optimizer_failures": len(failures) - gen_fail,
        "failures_by_stage": dict(stage_counts),
        "generation_seconds": round(gen_seconds, 3),
        "kernels_per_second": round(count / gen_seconds, 1) if gen_seconds else None,
        "instructions_mean": round(sum(insts) / len(insts), 1) if insts else 0,
        "instructions_max": max(insts) if insts else 0,
        "instructions_mean_by_size": {k: round(sum(v) / len(v), 1) for k, v in sorted(by_size.items())},
        "sizes": dict(sizes),
        "seconds_total_by_tool": {k: round(v, 1) for k, v in timings.items()},
        "shapes_kernels": dict(sorted(shape_kernels.items())),
        "shapes_total": dict(sorted(shape_total.items())),
        "failures": [{"seed": s, "stage": st, "message": m} for s, st, m in sorted(failures)],
    }
    print()
    print("kernels:              %d (seeds %d..%d, size %s)" % (count, args.first, args.last, args.size))
    print("ptxas -arch=sm_90:    %d/%d accepted (%.2f%%)" % (count - ptxas_fail, count,
                                                             100.0 * (count - ptxas_fail) / count))
    print("ptxrun clean:         %d/%d (no fault, no race, same buffers under a random schedule) (%.2f%%)" %
          (count - gen_fail, count, 100.0 * (count - gen_fail) / count))
    print("ptxopt -O2 failures:  %d (optimizer bugs; see below)" % (len(failures) - gen_fail))
    print("generation:           %.3f s for %d kernels (%.0f kernels/s)" % (gen_seconds, count, count / gen_seconds))
    print("instructions:         mean %.1f, max %d; by size %s" % (summary["instructions_mean"],
                                                                   summary["instructions_max"],
                                                                   summary["instructions_mean_by_size"]))
    print("sizes:                %s" % dict(sizes))
    print("failures by stage:    %s" % dict(stage_counts))
    print("shapes (kernels containing it / total occurrences):")
    for k in sorted(shape_kernels):
        print("  %-28s %6d %8d" % (k, shape_kernels[k], shape_total[k]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(summary, f, indent=1)
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
