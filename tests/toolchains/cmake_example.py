#!/usr/bin/env python3
"""CMake through ptxopt-ptxas: examples/cmake-project, configured with
-DCMAKE_CUDA_FLAGS=--ptxas-prefix=ptxopt-ptxas and built. Checks that
  1. the compiler-identification probe went through ptxopt-ptxas too (configure succeeds and
     leaves a kept call), and the build of the example's kernel did;
  2. the executable holds, byte for byte, the cubin NVIDIA's ptxas makes, with the arguments nvcc
     gave it, of `ptxopt in.ptx` (tests/toolchains/kept.py; the test adds -no-compress so that
     the fat binary holds the cubin as ptxas wrote it);
  3. ptxopt changed the kernel.
PTXOPT_STRICT=1, so that a failure of ptxopt's fails the build. Exits 77 (SKIPPED) without nvcc.
"""
import argparse
import os
import shutil
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
from skip import finish, skipped  # noqa: E402
import kept  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--wrapper", required=True, help="ptxopt-ptxas")
    ap.add_argument("--ptxopt", required=True)
    ap.add_argument("--nvcc", default="")
    ap.add_argument("--cmake", default="cmake")
    ap.add_argument("--project", required=True, help="examples/cmake-project")
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    if not args.nvcc or not os.path.exists(args.nvcc):
        return skipped(["nvcc not found: the CMake example is not built"])
    args.wrapper, args.ptxopt, args.work = map(os.path.abspath, (args.wrapper, args.ptxopt, args.work))
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    start = time.time()
    failures = []
    build = os.path.join(args.work, "build")
    env = dict(os.environ, PTXOPT_STRICT="1", CUDACXX=args.nvcc)
    env.pop("PTXOPT_PTXAS", None)
    r = kept.run([args.cmake, "-S", args.project, "-B", build, "-G", "Ninja",
                  "-DCMAKE_CUDA_FLAGS=--ptxas-prefix=%s -no-compress" % args.wrapper],
                 env=dict(env, PTXOPT_KEEP_DIR=os.path.join(args.work, "keep-configure")))
    if r.returncode != 0:
        failures.append("configure failed:\n" + r.stdout[-3000:] + r.stderr[-3000:])
    elif not kept.calls(os.path.join(args.work, "keep-configure")):
        failures.append("the compiler-identification probe did not go through ptxopt-ptxas")
    if not failures:
        keep = os.path.join(args.work, "keep-build")
        r = kept.run([args.cmake, "--build", build], env=dict(env, PTXOPT_KEEP_DIR=keep))
        calls = kept.calls(keep) if os.path.isdir(keep) else []
        if r.returncode != 0:
            failures.append("build failed:\n" + r.stdout[-3000:] + r.stderr[-3000:])
        elif len(calls) != 1 or not os.path.basename(calls[0][0]).startswith("_Z9apply_ops"):
            failures.append("expected one ptxas call for apply_ops, found %s" % [s for s, _ in calls])
        else:
            stem, call = calls[0]
            ref, why = kept.reference_object(stem, call, args.ptxopt, args.work)
            with open(os.path.join(build, "apply_ops"), "rb") as f:
                exe = f.read()
            if ref is None:
                failures.append(why)
            elif ref not in exe:
                failures.append("the executable does not hold the cubin of ptxas on `ptxopt in.ptx` (%s)" % call["args"])
            if not kept.changed(stem, args.ptxopt):
                failures.append("ptxopt did not change apply_ops")
    print("CMake example through ptxopt-ptxas: %s, %.0f s" % ("ok" if not failures else "FAILED", time.time() - start))
    for f in failures:
        print("FAIL: " + f)
    return finish(failures, [])


if __name__ == "__main__":
    sys.exit(main())
