#!/usr/bin/env python3
"""Triton through ptxopt-ptxas (run with the project's .venv Python): with TRITON_PTXAS_PATH and
TRITON_PTXAS_BLACKWELL_PATH naming ptxopt-ptxas, Triton keeps it as its ptxas (its --version
passes Triton's check, release 13.0 of the real ptxas) and compiles every kernel of
tests/kernels/triton for sm_80 and sm_90a through it. For each:
  1. the cubin Triton got is byte for byte what NVIDIA's ptxas makes, with the arguments Triton
     gave it, of `ptxopt in.ptx` (tests/toolchains/kept.py);
  2. for sm_80, where a launch spec exists (tests/emu/specs-triton), the optimized module
     computes under ptxrun what Triton's PTX computed.
PTXOPT_STRICT=1, so that a failure of ptxopt's fails the compile instead of falling back; a
fresh Triton cache, so that nothing is reused. At least one kernel must come out changed.
Exits 77 (SKIPPED) without Triton or ptxas.
"""
import argparse
import glob
import os
import shutil
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "corpus"))
from skip import finish, skipped  # noqa: E402
import kept  # noqa: E402

TARGETS = {"sm80": 80, "sm90a": 90}
def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--wrapper", required=True, help="ptxopt-ptxas")
    ap.add_argument("--ptxopt", required=True)
    ap.add_argument("--ptxrun", required=True)
    ap.add_argument("--ptxas", default="")
    ap.add_argument("--kernels", required=True, help="tests/kernels/triton")
    ap.add_argument("--specs", required=True, help="tests/emu/specs-triton")
    ap.add_argument("--source-root", required=True, help="the project's tree (the kernels are compiled under their relative paths)")
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    args.wrapper, args.ptxopt, args.ptxrun, args.work = map(os.path.abspath, (args.wrapper, args.ptxopt, args.ptxrun, args.work))
    if not args.ptxas or not os.path.exists(args.ptxas):
        return skipped(["ptxas not found: Triton through ptxopt-ptxas not tested"])
    try:
        import triton
        from triton.backends.compiler import GPUTarget
        from triton.compiler import ASTSource
    except ImportError as e:
        return skipped(["Triton cannot be imported (%s): run this with the project's .venv Python" % e])
    import python_ptx  # tests/corpus/python_ptx.py: how a kernel file is loaded

    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    os.environ.update(TRITON_PTXAS_PATH=args.wrapper, TRITON_PTXAS_BLACKWELL_PATH=args.wrapper,
                      PTXOPT_PTXAS=os.path.abspath(args.ptxas), PTXOPT_STRICT="1",
                      TRITON_CACHE_DIR=os.path.join(args.work, "triton-cache"))
    failures = []
    tool = triton.knobs.nvidia.ptxas
    if os.path.realpath(tool.path) != os.path.realpath(args.wrapper):
        failures.append("Triton did not keep ptxopt-ptxas as its ptxas (it took %s)" % tool.path)
    if tool.version != "13.0":
        failures.append("Triton read release %s from ptxopt-ptxas --version, expected 13.0" % tool.version)

    os.chdir(args.source_root)
    start = time.time()
    changed = 0
    files = sorted(glob.glob(os.path.join(args.kernels, "*.py")))
    for path in files:
        name, module = python_ptx.load(path)
        for target, arch in TARGETS.items():
            label = "%s %s" % (name, target)
            keep = os.path.join(args.work, name + "-" + target)
            os.environ["PTXOPT_KEEP_DIR"] = keep
            src, options = python_ptx.triton_source(module.TRITON, ASTSource)
            try:
                kernel = triton.compile(src, target=GPUTarget("cuda", arch, 32), options=options)
            except Exception as e:  # Triton raises its own PTXASError, or anything else
                failures.append("%s: triton.compile failed: %s" % (label, str(e)[-2000:]))
                continue
            calls = kept.calls(keep) if os.path.isdir(keep) else []
            if len(calls) != 1:
                failures.append("%s: expected one ptxas call through ptxopt-ptxas, found %d" % (label, len(calls)))
                continue
            stem, call = calls[0]
            errors = []
            ref, why = kept.reference_object(stem, call, args.ptxopt, keep)
            if ref is None:
                errors.append(why)
            elif ref != kernel.asm["cubin"]:
                with open(stem + ".triton.cubin", "wb") as f:
                    f.write(kernel.asm["cubin"])
                errors.append("the cubin differs from ptxas on `ptxopt in.ptx` with Triton's arguments %s" % call["args"])
            was_changed = kept.changed(stem, args.ptxopt)
            changed += was_changed
            ran = ""
            # sm_80 only: Triton's sm_90a output of several kernels holds instructions ptxrun does
            # not run (tests/emu/run_emulator.py, NOT_RUNNABLE); kernels with tensor-core
            # instructions have no spec (their `# no-spec:` line).
            for spec in kept.launch_specs(args.specs, name, "triton_") if target == "sm80" else []:
                why = kept.emulate(args.ptxrun, spec, stem)
                if why:
                    errors.append(why)
                ran = ", same results under ptxrun"
            print("%-28s %s%s%s" % (label, "ok" if not errors else "FAILED", " (changed by ptxopt)" if was_changed else "", ran))
            failures += ["%s: %s" % (label, e) for e in errors]
    if files and changed == 0:
        failures.append("ptxopt changed none of the Triton kernels: the wrapper did nothing")
    print("Triton through ptxopt-ptxas: %d kernels x %d targets, %d changed by ptxopt, %d failure(s), %.0f s"
          % (len(files), len(TARGETS), changed, len(failures), time.time() - start))
    for f in failures:
        print("FAIL: " + f)
    return finish(failures, [])


if __name__ == "__main__":
    sys.exit(main())
