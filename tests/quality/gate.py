#!/usr/bin/env python3
"""The code-quality regression gate and the corpus report. Runs ptxopt-bench over the kernel
corpus (nvcc sm_90 PTX with the launch specs of tests/emu/specs, each launch variant its own
kernel) at -O0, -O2, -O3 and both with the launch's branch profile (-O2@profile, -O3@profile),
sm_90 only, writes the report (index.html, summary.md, quality.json) into --out, and fails,
printing the kernel and its figures, when -O2 or -O3 makes a kernel's static SASS grow by more
than 5% or its estimated dynamic SASS by more than 2% over -O0, when a profiled pipeline makes
the estimate grow by more than 1% (with the profile the cost models know which branches split),
or when any pipeline changes a result. Exits 77 (SKIPPED) when
ptxas or nvdisasm is missing (tests/skip.py). The full report (-O0, -O1, -O2, and the sm_80
census) is `make bench`'s: CI's time budget keeps the gate to what it checks.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from skip import skipped  # noqa: E402

STATIC_LIMIT = 1.05
# Estimated dynamic SASS against the first pipeline (-O0), by pipeline.
DYNAMIC_LIMITS = {"-O2": 1.02, "-O2@profile": 1.01, "-O3": 1.02, "-O3@profile": 1.01}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", required=True)
    ap.add_argument("--ptxas", default="")
    ap.add_argument("--corpus", required=True, help="a PTX build directory of the corpus (corpus/nvcc-sm90)")
    ap.add_argument("--specs", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--pipelines", default="-O0,-O2,-O2@profile,-O3,-O3@profile")
    args = ap.parse_args()
    if not args.ptxas or not os.path.exists(args.ptxas):
        return skipped(["ptxas not found: no SASS to measure"])
    if not os.path.isdir(args.corpus):
        return skipped(["no corpus at %s (it needs nvcc)" % args.corpus])
    shutil.rmtree(args.out, ignore_errors=True)
    start = time.time()
    r = subprocess.run([args.bench, "-q", "--pipelines=" + args.pipelines, "--second-arch", "none", "--ptxas", args.ptxas,
                        "--specs", args.specs,
                        args.corpus, "-o", args.out], capture_output=True, text=True)
    sys.stdout.write(r.stdout)
    sys.stderr.write(r.stderr)
    print("ptxopt-bench took %.0f s" % (time.time() - start))
    if "SKIPPED" in r.stderr:
        return skipped(["ptxopt-bench had no SASS figures (nvdisasm missing)"])
    report = os.path.join(args.out, "quality.json")
    if not os.path.exists(report):
        print("error: ptxopt-bench wrote no %s (exit %d)" % (report, r.returncode))
        return 1
    rows = json.load(open(report))
    by_kernel = {}
    for row in rows:
        by_kernel.setdefault((row["file"], row["kernel"]), {})[row["pipeline"]] = row
    failures = []
    pipelines = args.pipelines.split(",")
    base = pipelines[0]
    for (path, kernel), cells in sorted(by_kernel.items()):
        name = "%s (%s)" % (kernel, os.path.basename(path))
        for p, row in cells.items():
            if row.get("error"):
                failures.append("%s %s: %s" % (name, p, row["error"]))
            elif not row.get("identical"):
                failures.append("%s %s: results differ from %s" % (name, p, base))
        b = cells.get(base)
        for last in pipelines[1:]:
            a = cells.get(last)
            if not b or not a or b.get("error") or a.get("error"):
                continue
            if "sass_instructions" not in b or "sass_instructions" not in a:
                failures.append("%s: no SASS figures (%s)" % (name, a.get("sass_error", b.get("sass_error", "?"))))
                continue
            if a["sass_instructions"] > b["sass_instructions"] * STATIC_LIMIT:
                failures.append("%s: %s static SASS %d vs %d under %s (+%.1f%%, limit +5%%)" % (
                    name, last, a["sass_instructions"], b["sass_instructions"], base,
                    100.0 * (a["sass_instructions"] / b["sass_instructions"] - 1)))
            limit = DYNAMIC_LIMITS.get(last, 1.02)
            if a["dyn_sass_estimate"] > b["dyn_sass_estimate"] * limit:
                failures.append("%s: %s estimated dynamic SASS %.0f vs %.0f under %s (+%.1f%%, limit +%.0f%%)" % (
                    name, last, a["dyn_sass_estimate"], b["dyn_sass_estimate"], base,
                    100.0 * (a["dyn_sass_estimate"] / b["dyn_sass_estimate"] - 1), 100.0 * (limit - 1)))
    for f in failures:
        print("FAIL: " + f)
    print("%d kernels checked; %d failures; report: %s" % (len(by_kernel), len(failures),
                                                          os.path.join(args.out, "index.html")))
    if r.returncode != 0 and not failures:
        print("error: ptxopt-bench exited %d" % r.returncode)
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
