#!/usr/bin/env python3
"""nvcc through ptxopt-ptxas: `nvcc --ptxas-prefix=ptxopt-ptxas` builds every kernel of the corpus
(tests/kernels/*.cu, -arch=sm_90 -cubin). For each:
  1. the cubin nvcc wrote is byte for byte what NVIDIA's ptxas makes, with the arguments nvcc
     gave it, of `ptxopt in.ptx` (tests/toolchains/kept.py);
  2. where a launch spec exists (tests/emu/specs), the optimized module computes under ptxrun
     what nvcc's PTX computed;
and, on a few kernels: the same through NVCC_APPEND_FLAGS and through the shadow nvcc of
docs/PTXOPT_PTXAS.md (its own nvcc.profile); -G (ptxas gets -g: the PTX goes through untouched,
the object equals plain nvcc's); -rdc=true -c (ptxas --compile-only).
PTXOPT_STRICT=1 throughout, so that any failure of ptxopt's fails the build instead of falling
back. At least one kernel must come out changed. Exits 77 (SKIPPED) without nvcc.
"""
import argparse
import concurrent.futures
import glob
import os
import re
import shutil
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from skip import finish, skipped  # noqa: E402
import kept  # noqa: E402


def masked(path):
    """The object's bytes with nvcc's temporary file names (tmpxft_PID_N) masked."""
    with open(path, "rb") as f:
        return re.sub(rb"tmpxft_[0-9a-f]{8}_[0-9a-f]{8}", b"tmpxft_xxxxxxxx_xxxxxxxx", f.read())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--wrapper", required=True, help="ptxopt-ptxas")
    ap.add_argument("--ptxopt", required=True)
    ap.add_argument("--ptxrun", required=True)
    ap.add_argument("--nvcc", default="")
    ap.add_argument("--kernels", required=True, help="tests/kernels")
    ap.add_argument("--specs", required=True, help="tests/emu/specs")
    ap.add_argument("--work", required=True)
    ap.add_argument("-j", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--every", type=int, default=1,
                    help="build every Nth kernel only (the sanitizer build; the other build's run takes them all)")
    args = ap.parse_args()
    if not args.nvcc or not os.path.exists(args.nvcc):
        return skipped(["nvcc not found: nvcc --ptxas-prefix not tested"])
    args.wrapper, args.ptxopt, args.ptxrun = map(os.path.abspath, (args.wrapper, args.ptxopt, args.ptxrun))
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    env = dict(os.environ, PTXOPT_STRICT="1")
    env.pop("PTXOPT_PTXAS", None)  # nvcc's own ptxas, from its first argument
    failures = []
    changed = 0
    start = time.time()

    def one(src):
        name = os.path.splitext(os.path.basename(src))[0]
        work = os.path.join(args.work, name)
        os.makedirs(work)
        keep = os.path.join(work, "keep")
        cubin = os.path.join(work, name + ".cubin")
        r = kept.run([args.nvcc, "-arch=sm_90", "-cubin", "--ptxas-prefix=" + args.wrapper, src, "-o", cubin],
                     env=dict(env, PTXOPT_KEEP_DIR=keep))
        if r.returncode != 0:
            return name, ["nvcc --ptxas-prefix failed: " + r.stderr.strip()[-2000:]], False
        calls = kept.calls(keep)
        if len(calls) != 1:
            return name, ["expected one kept ptxas call, found %d" % len(calls)], False
        stem, call = calls[0]
        errors = []
        ref, why = kept.reference_object(stem, call, args.ptxopt, work)
        with open(cubin, "rb") as f:
            got = f.read()
        if ref is None:
            errors.append(why)
        elif ref != got:
            errors.append("the cubin differs from ptxas on `ptxopt in.ptx` with nvcc's arguments %s" % call["args"])
        for spec in kept.launch_specs(args.specs, name):
            why = kept.emulate(args.ptxrun, spec, stem)
            if why:
                errors.append(why)
        return name, errors, kept.changed(stem, args.ptxopt)

    sources = sorted(glob.glob(os.path.join(args.kernels, "*.cu")))
    if args.every > 1:
        # Every Nth, and the kernels the other ways in below use.
        sources = [s for k, s in enumerate(sources)
                   if k % args.every == 0 or os.path.basename(s) in ("divergent_if_else.cu", "dense_switch.cu")]
        print("NOTE: every %dth kernel (%d), the other build's run builds them all" % (args.every, len(sources)))
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.j) as pool:
        for name, errors, was_changed in pool.map(one, sources):
            changed += was_changed
            print("%-28s %s%s" % (name, "ok" if not errors else "FAILED", " (changed by ptxopt)" if was_changed else ""))
            failures += ["%s: %s" % (name, e) for e in errors]
    if sources and changed == 0:
        failures.append("ptxopt changed none of the %d kernels: the wrapper did nothing" % len(sources))

    # The other ways in, on a few kernels.
    some = [s for s in sources if os.path.basename(s) in ("divergent_if_else.cu", "dense_switch.cu")]
    for src in some:
        name = os.path.splitext(os.path.basename(src))[0]
        work = os.path.join(args.work, "other-" + name)
        os.makedirs(work)
        # NVCC_APPEND_FLAGS: the same cubin as with the option on the command line.
        cubin = os.path.join(work, "append.cubin")
        r = kept.run([args.nvcc, "-arch=sm_90", "-cubin", src, "-o", cubin],
                     env=dict(env, NVCC_APPEND_FLAGS="--ptxas-prefix=" + args.wrapper))
        with open(os.path.join(args.work, name, name + ".cubin"), "rb") as f:
            want = f.read()
        if r.returncode != 0 or open(cubin, "rb").read() != want:
            failures.append("%s: NVCC_APPEND_FLAGS=--ptxas-prefix=... did not give the same cubin: %s" % (name, r.stderr.strip()))
        # -G: ptxas gets -g and the PTX untouched; nothing is kept. The object names nvcc's
        # temporary PTX file, which differs from run to run: compared with that name masked.
        keep = os.path.join(work, "keep-G")
        a, b = os.path.join(work, "Gw", "g.cubin"), os.path.join(work, "Gp", "g.cubin")
        os.makedirs(os.path.dirname(a))
        os.makedirs(os.path.dirname(b))
        r1 = kept.run([args.nvcc, "-arch=sm_90", "-G", "-cubin", "--ptxas-prefix=" + args.wrapper, src, "-o", a],
                      env=dict(env, PTXOPT_KEEP_DIR=keep))
        r2 = kept.run([args.nvcc, "-arch=sm_90", "-G", "-cubin", src, "-o", b])
        if r1.returncode or r2.returncode:
            failures.append("%s: nvcc -G failed: %s %s" % (name, r1.stderr.strip(), r2.stderr.strip()))
        elif masked(a) != masked(b) or os.path.exists(keep):
            failures.append("%s: under -G the PTX did not go to ptxas untouched" % name)
        # -rdc=true -c: ptxas --compile-only, a relocatable object inside the host object.
        keep = os.path.join(work, "keep-rdc")
        obj = os.path.join(work, "rdc.o")
        r = kept.run([args.nvcc, "-arch=sm_90", "-rdc=true", "-c", "--ptxas-prefix=" + args.wrapper, src, "-o", obj],
                     env=dict(env, PTXOPT_KEEP_DIR=keep))
        calls = kept.calls(keep) if os.path.isdir(keep) else []
        if r.returncode != 0:
            failures.append("%s: nvcc -rdc=true -c failed: %s" % (name, r.stderr.strip()[-2000:]))
        elif len(calls) != 1 or "--compile-only" not in calls[0][1]["args"]:
            failures.append("%s: -rdc=true: expected one ptxas --compile-only call, found %s" % (name, [c["args"] for _, c in calls]))
        else:
            ref, why = kept.reference_object(calls[0][0], calls[0][1], args.ptxopt, work)
            if ref is None:
                failures.append("%s: -rdc=true: %s" % (name, why))
        # The fallback of docs/PTXOPT_PTXAS.md: a shadow nvcc whose nvcc.profile puts a "ptxas"
        # that is ptxopt-ptxas first on the PATH; the same cubin as --ptxas-prefix.
        shadow = os.path.join(work, "shadow")
        os.makedirs(os.path.join(shadow, "bin"))
        os.makedirs(os.path.join(shadow, "ptxas"))
        os.symlink(os.path.realpath(args.nvcc), os.path.join(shadow, "bin", "nvcc"))
        os.symlink(args.wrapper, os.path.join(shadow, "ptxas", "ptxas"))
        top = os.path.dirname(os.path.dirname(os.path.realpath(args.nvcc)))
        with open(os.path.join(os.path.dirname(os.path.realpath(args.nvcc)), "nvcc.profile")) as f:
            profile = f.read()
        profile = re.sub(r"(?m)^TOP\s*=.*$", "TOP = " + top, profile)
        profile = re.sub(r"(?m)^PATH\s*\+=.*$", "PATH += %s:$(CICC_PATH):$(TOP)/bin:" % os.path.join(shadow, "ptxas"), profile)
        with open(os.path.join(shadow, "bin", "nvcc.profile"), "w") as f:
            f.write(profile)
        cubin = os.path.join(work, "shadow.cubin")
        r = kept.run([os.path.join(shadow, "bin", "nvcc"), "-arch=sm_90", "-cubin", src, "-o", cubin],
                     env=dict(env, PTXOPT_KEEP_DIR=os.path.join(work, "keep-shadow")))
        if r.returncode != 0 or open(cubin, "rb").read() != want or not os.path.isdir(os.path.join(work, "keep-shadow")):
            failures.append("%s: the shadow nvcc of docs/PTXOPT_PTXAS.md did not give the same cubin through ptxopt-ptxas: %s"
                            % (name, r.stderr.strip()))
        print("%-28s %s" % ("other ways: " + name, "checked"))

    print("nvcc --ptxas-prefix: %d kernels, %d changed by ptxopt, %d failure(s), %.0f s"
          % (len(sources), changed, len(failures), time.time() - start))
    for f in failures:
        print("FAIL: " + f)
    return finish(failures, [])


if __name__ == "__main__":
    sys.exit(main())
