#!/usr/bin/env python3
"""Compiles a Triton or numba-cuda kernel file of the corpus to PTX (run by the `corpus` target
with the project's .venv Python; no GPU needed).

  python_ptx.py --triton tests/kernels/triton/K.py --out CORPUS [--target sm90a --target sm80]
      writes CORPUS/triton-<target>/K.ptx: triton.compile of the file's TRITON description
      (fn, signature, constexprs, num_warps[, num_stages]) for GPUTarget("cuda", 90|80, 32);
      Triton's sm_90 output is `.target sm_90a`.
  python_ptx.py --numba tests/kernels/numba/K.py --out CORPUS [--target sm90 --target sm75]
      writes CORPUS/numba-<target>/K.ptx: numba.cuda.compile_ptx of the file's NUMBA
      description (fn, sig) for that compute capability, through the CUDA toolkit's libNVVM.

A kernel file is imported as a module named after the file, so the names in the PTX (numba
mangles the module's name into the kernel's) do not depend on where the tree is, and compiled
under its path relative to the tree, so Triton's `.file 1` is the same in every checkout. The
output is the compilers' own, unchanged: Triton's line table also names the files of the
installed triton package it inlined (e.g. `.file 2 ".../triton/language/standard.py"` for
tl.sum), by their absolute path in .venv. When numba
cannot load libNVVM it prints `SKIPPED: ...` and writes nothing; any other failure is an error.
"""
import argparse
import os
import sys
import tempfile
import types

TRITON_TARGETS = {"sm90a": 90, "sm80": 80}
NUMBA_TARGETS = {"sm90": (9, 0), "sm75": (7, 5)}


def load(path):
    # Compiled under its path relative to the source tree (the current directory), so that the
    # file name Triton writes into the PTX's line table (`.file 1 "tests/kernels/triton/K.py"`)
    # is the same in every checkout. (An import by file location would make the path absolute.)
    name = os.path.splitext(os.path.basename(path))[0]
    rel = os.path.relpath(path)
    module = types.ModuleType(name)
    module.__file__ = rel
    sys.modules[name] = module
    with open(path, encoding="utf-8") as f:
        exec(compile(f.read(), rel, "exec"), module.__dict__)
    return name, module


def write(out_dir, group, name, text):
    directory = os.path.join(out_dir, group)
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=directory, suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, os.path.join(directory, name + ".ptx"))


def triton_source(d, ASTSource):
    """The ASTSource and compile options of a kernel file's TRITON description (fn, signature,
    constexprs, num_warps[, num_stages])."""
    options = {"num_warps": d["num_warps"]}
    if "num_stages" in d:
        options["num_stages"] = d["num_stages"]
    signature = dict(d["signature"])
    signature.update({k: "constexpr" for k in d.get("constexprs", {})})
    return ASTSource(fn=d["fn"], signature=signature, constexprs=d.get("constexprs", {})), options


def compile_triton(path, out_dir, targets, cache_dir):
    # Triton keeps a compilation cache under the home directory unless told otherwise.
    os.environ.setdefault("TRITON_CACHE_DIR", cache_dir or os.path.join(tempfile.gettempdir(), "ptxopt-triton-cache"))
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    name, module = load(path)
    for t in targets:
        src, options = triton_source(module.TRITON, ASTSource)
        kernel = triton.compile(src, target=GPUTarget("cuda", TRITON_TARGETS[t], 32), options=options)
        write(out_dir, "triton-" + t, name, kernel.asm["ptx"])


def compile_numba(path, out_dir, targets):
    if "CUDA_HOME" not in os.environ and os.path.isdir("/usr/local/cuda"):
        os.environ["CUDA_HOME"] = "/usr/local/cuda"
    from numba import cuda
    try:
        from numba.cuda.cudadrv.nvvm import NVVM
        NVVM()
    except Exception as e:  # numba-cuda raises NvvmSupportError, or whatever loading the library raised
        print(f"SKIPPED: numba-cuda cannot load libNVVM (CUDA toolkit), {os.path.basename(path)} not compiled: {e}")
        return
    name, module = load(path)
    d = module.NUMBA
    for t in targets:
        ptx, _ = cuda.compile_ptx(d["fn"], d["sig"], cc=NUMBA_TARGETS[t])
        write(out_dir, "numba-" + t, name, ptx)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    kind = ap.add_mutually_exclusive_group(required=True)
    kind.add_argument("--triton", metavar="FILE.py")
    kind.add_argument("--numba", metavar="FILE.py")
    ap.add_argument("--out", required=True, help="the corpus directory")
    ap.add_argument("--target", action="append", help="triton: sm90a, sm80; numba: sm90, sm75 (default: both)")
    ap.add_argument("--cache-dir", help="Triton's cache directory (default: one under the temporary directory)")
    ap.add_argument("--source-root", help="the file names in the PTX are relative to this directory "
                    "(default: the tree this script is in)")
    args = ap.parse_args()
    args.out = os.path.abspath(args.out)
    if args.cache_dir:
        args.cache_dir = os.path.abspath(args.cache_dir)
    source = os.path.abspath(args.triton or args.numba)
    os.chdir(args.source_root or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    if args.triton:
        targets = args.target or list(TRITON_TARGETS)
        bad = [t for t in targets if t not in TRITON_TARGETS]
        if bad:
            ap.error(f"unknown Triton target(s) {bad}")
        compile_triton(source, args.out, targets, args.cache_dir)
    else:
        targets = args.target or list(NUMBA_TARGETS)
        bad = [t for t in targets if t not in NUMBA_TARGETS]
        if bad:
            ap.error(f"unknown numba target(s) {bad}")
        compile_numba(source, args.out, targets)
    return 0


if __name__ == "__main__":
    sys.exit(main())
