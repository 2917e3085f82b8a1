#!/usr/bin/env python3
"""Checks ptxrun against the C++ reference implementations, kernel by kernel.

For every launch spec S.json in --specs (the kernel file is the stem before the first dot) it
  1. runs `ptxopt_reference --spec S.json --out WORK/ref/S`, then
  2. for every PTX build directory given with --ptx-dir (e.g. corpus/nvcc-sm90), runs
     `ptxrun --launch S.json DIR/K.ptx --dump WORK/<dir>/S` and compares every buffer bit for
     bit with the reference, and the kernel's printf output with the reference's stdout.txt.
Builds named with --uncontracted-ptx-dir (nvcc -G) did not contract a * b + c into fma; their
reference runs with `ptxopt_reference --no-contract`.
An optional S.compare.json lists element ranges to ignore ({"ignore": {"buf": [[a, b], ...]}})
for results of `.approx` instructions, whose bits the emulator does not promise.
More groups of specs, each with the PTX builds it runs on, come with --group PREFIX SPECS DIR...
(tests/emu/specs-triton on the Triton builds, prefix triton_: the spec triton_K.json runs
DIR/K.ptx); NOT_RUNNABLE names the (build, spec) pairs left out by design, with why (EXCLUDED). --skipped
REASON (builds that could not be made, e.g. without the Triton/numba-cuda environment) prints
SKIPPED and makes the exit code 77 (tests/skip.py).
With --ptxopt, every PTX file is also optimized (`ptxopt LEVEL --verify`, --level, default -O2)
and the optimized PTX must match the same reference: the optimizer's passes preserve results on
the whole corpus.
Prints one line per mismatch and a summary; exits 1 on any mismatch.
"""
import argparse
import concurrent.futures
import json
import os
import struct
import subprocess
import sys

from specs import ELEM_FORMAT, buffer_params, first_difference, ignored, kernel_file, load_rules, spec_stems
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from skip import finish, skipped  # noqa: E402

# (PTX build directory name, spec stem) pairs that are not launched, with why: the kernel's PTX in
# that build has instructions ptxrun does not run by design (docs/EMULATOR.md).
NOT_RUNNABLE = {
}


def compare_buffer(label, name, typ, got, want, skip):
    d = first_difference(got, want, typ, skip)
    if d is None:
        return []
    i, a, b = d
    if i is None:
        return [f"{label}: {name}: {len(got)} bytes, reference has {len(want)}"]
    fmt = "<" + ELEM_FORMAT[typ]
    return [f"{label}: {name}[{i}]: ptxrun {struct.unpack(fmt, a)[0]!r} (0x{a[::-1].hex()}), "
            f"reference {struct.unpack(fmt, b)[0]!r} (0x{b[::-1].hex()})"]


def run_one(args, specs_dir, stem, ptx_dir, ref_kind, prefix):
    spec_path = os.path.join(specs_dir, stem + ".json")
    with open(spec_path, encoding="utf-8") as f:
        spec = json.load(f)
    rules = load_rules(specs_dir, stem)
    kernel = kernel_file(stem, prefix)
    ptx = os.path.join(ptx_dir, kernel + ".ptx")
    label = f"{os.path.basename(ptx_dir)}/{stem}"
    if not os.path.isfile(ptx):
        return [f"{label}: {ptx} missing"]
    errors = check_run(args, spec, rules, spec_path, ptx, label, os.path.join(args.work, os.path.basename(ptx_dir), stem),
                       os.path.join(args.work, ref_kind, stem))
    if args.ptxopt:
        lv = args.level
        out = os.path.join(args.work, os.path.basename(ptx_dir) + lv, stem)
        os.makedirs(out, exist_ok=True)
        opt = os.path.join(out, kernel + "." + lv[1:] + ".ptx")
        r = subprocess.run([args.ptxopt, lv, "--verify", ptx, "-o", opt], capture_output=True)
        if r.returncode != 0:
            return errors + [f"{label}: ptxopt {lv} exited {r.returncode}: {r.stderr.decode(errors='replace')[:2000]}"]
        errors += check_run(args, spec, rules, spec_path, opt, label + f" (ptxopt {lv})", out, os.path.join(args.work, ref_kind, stem))
    return errors


def check_run(args, spec, rules, spec_path, ptx, label, out, ref):
    os.makedirs(out, exist_ok=True)
    cmd = [args.ptxrun, "--launch", spec_path, ptx, "--dump", out, "-j", str(args.ptxrun_jobs)]
    r = subprocess.run(cmd, capture_output=True)
    if r.returncode != 0:
        return [f"{label}: ptxrun exited {r.returncode}: "
                f"{r.stderr.decode(errors='replace').strip()[:2000]}\n  command: {' '.join(cmd)}"]
    errors = []
    for name, (typ, _) in buffer_params(spec).items():
        with open(os.path.join(out, name + ".bin"), "rb") as f:
            got = f.read()
        with open(os.path.join(ref, name + ".bin"), "rb") as f:
            want = f.read()
        errors += compare_buffer(label, name, typ, got, want, ignored(rules, name))
    with open(os.path.join(ref, "stdout.txt"), "rb") as f:
        want_stdout = f.read()
    if sorted(r.stdout.splitlines()) != sorted(want_stdout.splitlines()):
        errors.append(f"{label}: printf output differs:\n--- ptxrun\n{r.stdout.decode(errors='replace')[:1000]}"
                      f"\n--- reference\n{want_stdout.decode(errors='replace')[:1000]}")
    return errors


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ptxrun", required=True)
    ap.add_argument("--reference", required=True)
    ap.add_argument("--specs", required=True)
    ap.add_argument("--ptx-dir", action="append", default=[])
    ap.add_argument("--uncontracted-ptx-dir", action="append", default=[])
    ap.add_argument("--clang-specs", help="specs of tests/kernels/clang (stems clang_<file>)")
    ap.add_argument("--clang-ptx-dir", action="append", default=[])
    ap.add_argument("--group", nargs="+", action="append", default=[], metavar="PREFIX SPECS DIR",
                    help="a spec directory whose stems are PREFIX<file> and the PTX build directories it runs on")
    ap.add_argument("--skipped", action="append", default=[], metavar="REASON",
                    help="PTX builds that were not made, and why (printed as SKIPPED)")
    ap.add_argument("--work", required=True)
    ap.add_argument("--ptxopt", help="also check the PTX that `ptxopt LEVEL` makes of every file")
    ap.add_argument("--level", default="-O2", choices=["-O1", "-O2", "-O3"], help="the pipeline of --ptxopt (default -O2)")
    ap.add_argument("--only", help="run only specs whose stem starts with this")
    ap.add_argument("-j", type=int, default=os.cpu_count() or 1, help="runs at a time")
    ap.add_argument("--ptxrun-jobs", type=int, default=1, help="ptxrun's own -j (results must not depend on it)")
    args = ap.parse_args()
    for g in args.group:
        if len(g) < 3:
            ap.error("--group needs PREFIX SPECS and at least one PTX directory")
    skips = list(args.skipped)

    def present(dirs):
        for d in dirs:
            if not os.path.isdir(d):
                skips.append(f"{d}: no such PTX build (compiler not found when configuring?)")
        return [d for d in dirs if os.path.isdir(d)]

    def stems_of(specs_dir):
        return [s for s in spec_stems(specs_dir) if not args.only or s.startswith(args.only)]

    # (specs directory, stem prefix the PTX file name lacks, [(PTX build, reference kind)])
    groups = [(args.specs, "", [(d, "ref") for d in present(args.ptx_dir)] +
               [(d, "ref-nc") for d in present(args.uncontracted_ptx_dir)])]
    if args.clang_specs:
        groups.append((args.clang_specs, "clang_", [(d, "ref") for d in present(args.clang_ptx_dir)]))
    for prefix, specs_dir, *dirs in args.group:
        groups.append((specs_dir, prefix, [(d, "ref") for d in present(dirs)]))
    groups = [g for g in groups if g[2]]
    if not groups:
        return skipped(skips + ["emu-corpus: none of the PTX builds exist"])

    errors, jobs, builds, nspecs = [], [], 0, 0
    for specs_dir, prefix, dirs in groups:
        stems = stems_of(specs_dir)
        nspecs += len(stems)
        builds += len(dirs)
        extra_of = {"ref": [], "ref-nc": ["--no-contract"]}
        for kind in sorted({k for _, k in dirs}):
            for stem in stems:
                out = os.path.join(args.work, kind, stem)
                os.makedirs(out, exist_ok=True)
                r = subprocess.run([args.reference, "--spec", os.path.join(specs_dir, stem + ".json"),
                                    "--out", out] + extra_of[kind], capture_output=True, text=True)
                if r.returncode != 0:
                    errors.append(f"{stem}: ptxopt_reference exited {r.returncode}: {r.stderr.strip()}")
        for d, kind in dirs:
            for s in stems:
                why = NOT_RUNNABLE.get((os.path.basename(os.path.normpath(d)), s))
                if why:
                    print(f"EXCLUDED: {os.path.basename(os.path.normpath(d))}/{s}: {why}")
                else:
                    jobs.append((specs_dir, s, d, kind, prefix))
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.j) as pool:
        for errs in pool.map(lambda job: run_one(args, *job), jobs):
            errors += errs
    for e in errors:
        print("FAIL: " + e)
    print(f"emu-corpus: {len(jobs)} runs ({nspecs} specs, {builds} builds"
          + (", each also after ptxopt " + args.level if args.ptxopt else "") + "): "
          + ("all match the references" if not errors else f"{len(errors)} mismatch(es)"))
    return finish(errors, skips)


if __name__ == "__main__":
    sys.exit(main())
