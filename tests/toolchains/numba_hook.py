#!/usr/bin/env python3
"""Checks python/ptxopt_numba.py, the hook that runs numba-cuda's PTX through ptxopt (no GPU).

  .venv/bin/python tests/toolchains/numba_hook.py --ptxopt build/ptxopt --work DIR

Every kernel of tests/kernels/numba is compiled as numba's kernel dispatcher compiles it
(compile_cuda, then the kernel fixup), for sm_90 and sm_75, without and with LTO, and linked to
a cubin by the code library's get_cubin, which goes through numba's _Linker as a launch does.
For each:

* hooked: the cubin is byte-identical to one this script builds by hand: the PTX (without LTO:
  numba's PTX; with LTO: the LTO-IR linked to PTX by nvJitLink -ptx) run through the ptxopt
  command line, then linked without LTO by a fresh _Linker. PTXOPT_KEEP_DIR holds exactly that
  input and output, named <kernel>-<16 hex digits>; nothing is printed; enable() twice wraps once;
* failing ptxopt (PTXOPT names a script that exits 1): numba's own cubin, one warning line per
  PTX module; with PTXOPT_STRICT=1 the link raises PtxoptError;
* ptxopt output that nvJitLink rejects: numba's own cubin, one warning, the module kept in
  PTXOPT_FINDINGS_DIR; PtxoptError under PTXOPT_STRICT=1;
* PTXOPT_FLAGS=-O0: numba's own cubin, ptxopt not run; a malformed PTXOPT_TIMEOUT: a warning;
* disable(): numba's methods and numba's own cubin are back.

Also: at least one module's ptxopt output differs from ptxopt -O0's round trip of it (ptxopt
really optimized something), remarks land in PTXOPT_REMARKS as JSON lines, a missing PTXOPT
makes enable() raise, if_else with lineinfo=True goes through, and if_else with debug=True is
left alone unless PTXOPT_FLAGS has --optimize-debug (as ptxopt-ptxas under ptxas -g).
Exit 0: all passed; 1: a check failed (each printed); 77 after `SKIPPED: <reason>` when
numba-cuda, libNVVM, libdevice or nvJitLink is missing.
"""
import argparse
import contextlib
import glob
import io
import json
import os
import shlex
import shutil
import subprocess
import sys
import time

sys.dont_write_bytecode = True      # no __pycache__ in the source tree

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CCS = {"sm90": (9, 0), "sm75": (7, 5)}
PTXOPT_ENV = ("PTXOPT", "PTXOPT_FLAGS", "PTXOPT_PROFILE_USE", "PTXOPT_REMARKS", "PTXOPT_KEEP_DIR",
              "PTXOPT_FINDINGS_DIR", "PTXOPT_STRICT", "PTXOPT_VERBOSE", "PTXOPT_TIMEOUT")
BROKEN_PTX = (".version 8.0\n.target sm_75\n.address_size 64\n\n"
              ".visible .entry broken()\n{\n\tbogus.instruction %r1;\n\tret;\n}\n")


sys.path.insert(0, os.path.join(ROOT, "tests"))
from skip import skipped  # noqa: E402  (77, or an error under CI where every tool must be there)


def skip(reason):
    sys.exit(skipped([reason]))


def script(path, text):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, 0o755)
    return path


class Checker:
    def __init__(self):
        self.failures = []

    def __call__(self, ok, what):
        if not ok:
            self.failures.append(what)
            print(f"  FAIL: {what}", flush=True)
        return ok


@contextlib.contextmanager
def environment(**values):
    """os.environ with these set (None: unset), as it was afterwards."""
    saved = {k: os.environ.get(k) for k in values}
    for k, v in values.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ptxopt", required=True, help="the ptxopt executable")
    ap.add_argument("--work", required=True, help="a scratch directory (emptied first)")
    ap.add_argument("--kernels", default=os.path.join(ROOT, "tests", "kernels", "numba"),
                    help="directory of numba kernel files with a NUMBA description")
    ap.add_argument("--module-dir", default=os.path.join(ROOT, "python"),
                    help="where ptxopt_numba.py is")
    ap.add_argument("--target", action="append", choices=sorted(CCS), help="default: all")
    ap.add_argument("--flags", default="", help="PTXOPT_FLAGS for the hook and the reference")
    args = ap.parse_args()

    for name in PTXOPT_ENV:
        os.environ.pop(name, None)
    if "CUDA_HOME" not in os.environ and os.path.isdir("/usr/local/cuda"):
        os.environ["CUDA_HOME"] = "/usr/local/cuda"

    try:
        from numba.core import sigutils
        from numba.cuda import compiler, types
        from numba.cuda.cudadrv import driver, nvvm
    except ImportError as e:
        skip(f"numba-cuda is not importable: {e}")
    try:
        nvvm.NVVM()
    except Exception as e:
        skip(f"numba-cuda cannot load libNVVM (CUDA toolkit): {e}")
    try:
        from numba.cuda.cudadrv.libs import open_libdevice
        open_libdevice()
    except Exception as e:
        skip(f"numba-cuda cannot read libdevice (CUDA toolkit): {e}")
    if not driver._have_nvjitlink():
        skip("numba-cuda finds no nvJitLink (cuda-bindings / CUDA toolkit)")

    ptxopt = os.path.abspath(args.ptxopt)
    if not (os.path.isfile(ptxopt) and os.access(ptxopt, os.X_OK)):
        print(f"FAIL: {args.ptxopt} is not an executable")
        return 1
    work = os.path.abspath(args.work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    sys.path.insert(0, os.path.abspath(args.module_dir))
    sys.path.insert(0, os.path.join(ROOT, "tests", "corpus"))
    import ptxopt_numba
    from python_ptx import load

    flags = shlex.split(args.flags)
    failing = script(os.path.join(work, "failing-ptxopt"),
                     "#!/bin/sh\necho 'failing-ptxopt: refusing on purpose' >&2\nexit 1\n")
    broken = script(os.path.join(work, "broken-ptxopt"),
                    "#!/bin/sh\ncat >/dev/null\nprintf '%s' '" + BROKEN_PTX + "'\n")
    remarks = os.path.join(work, "remarks.jsonl")
    check = Checker()
    Linker = driver._Linker
    numba_methods = {m: Linker.__dict__[m] for m in ("add_ptx", "add_cu", "complete")}

    def cli(ptx, options=None):
        """ptxopt OPTIONS (default: --flags) - -o -, run by this script."""
        options = flags if options is None else options
        r = subprocess.run([ptxopt, *options, "-", "-o", "-"], input=ptx,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if r.returncode != 0:
            raise RuntimeError(f"{' '.join(['ptxopt', *options])} failed ({r.returncode}): "
                               f"{r.stderr.decode(errors='replace').strip()[:500]}")
        return r.stdout

    def compile_kernel(fn, sig, cc, lto, debug=False, lineinfo=False):
        # What numba.cuda.dispatcher._Kernel does, without asking a device for its cc.
        argtys, _ = sigutils.normalize_signature(sig)
        opts = {"fastmath": False, "opt": 0 if debug else 3}
        if debug:
            opts["g"] = None
        cres = compiler.compile_cuda(fn, types.void, argtys, debug=debug, lineinfo=lineinfo,
                                     nvvm_options=opts, cc=cc, lto=lto)
        lib = cres.library
        kernel = lib.get_function(cres.fndesc.llvm_func_name)
        lib._entry_name = cres.fndesc.llvm_func_name
        compiler.kernel_fixup(kernel, debug)
        nvvm.set_launch_bounds(kernel, None)
        return lib

    def cubin(lib, cc):
        lib._cubin_cache.pop(cc, None)      # the library keeps one cubin per cc
        lib._linkerinfo_cache.pop(cc, None)
        return bytes(lib.get_cubin(cc=cc).code)

    def reference(lib, cc, lto):
        """(cubin, input PTX modules, ptxopt outputs), by hand with numba's own _Linker."""
        if lto:
            to_ptx = Linker(max_registers=lib._max_registers, cc=cc, lto=True, additional_flags=["-ptx"])
            to_ptx.add_ltoir(lib.get_ltoir(cc=cc))
            ins = [bytes(to_ptx.get_linked_ptx())]
        else:
            ins = [p.encode() for p in lib.get_asm_strs(cc=cc)]
        outs = [cli(p) for p in ins]
        final = Linker(max_registers=lib._max_registers, cc=cc)
        for p in outs:
            final.add_ptx(p)
        for path in sorted(lib._linking_files):
            final.add_file_guess_ext(path)
        return bytes(final.complete().code), ins, outs

    def hooked(lib, cc):
        """(cubin or None, the exception or None, what went to stderr)."""
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            try:
                return cubin(lib, cc), None, err.getvalue()
            except Exception as e:   # noqa: BLE001 - reported by the caller
                return None, e, err.getvalue()

    def warnings_in(text):
        return [line for line in text.splitlines() if line.startswith("ptxopt_numba:")]

    # enable() without a ptxopt to find: a clear error, nothing wrapped.
    with environment(PTXOPT=os.path.join(work, "no-such-ptxopt")):
        try:
            ptxopt_numba.enable()
            check(False, "enable() with PTXOPT naming a missing file did not raise")
        except ptxopt_numba.PtxoptNotFoundError as e:
            check("no-such-ptxopt" in str(e), f"enable()'s error does not name the missing file: {e}")
    check(not ptxopt_numba.is_enabled(), "a failed enable() left the hook enabled")

    kernels = sorted(glob.glob(os.path.join(args.kernels, "*.py")))
    if not kernels:
        print(f"FAIL: no kernels in {args.kernels}")
        return 1
    loaded = []
    for path in kernels:
        name, module = load(path)
        loaded.append((name, module.NUMBA))
    targets = args.target or list(CCS)
    # (kernel, description, cc, lto, compile options, what PTXOPT_FLAGS adds for the hook)
    configs = [(name, d, CCS[t], lto, {}, [])
               for t in targets for lto in (False, True) for name, d in loaded]
    by_name = dict(loaded)
    if "if_else" in by_name:
        cc = CCS[targets[0]]
        for lto in (False, True):
            configs.append(("if_else", by_name["if_else"], cc, lto, {"lineinfo": True}, []))
        # debug with LTO is left out: nvJitLink 13.0 crashes (SIGSEGV) in numba's own link of it.
        configs.append(("if_else", by_name["if_else"], cc, False, {"debug": True}, []))
        configs.append(("if_else", by_name["if_else"], cc, False, {"debug": True}, ["--optimize-debug"]))

    start = time.monotonic()
    optimized_something = []
    cubins_changed = 0
    nul_ended = 0
    lto_inputs = 0
    for name, d, cc, lto, options, hook_flags in configs:
        t0 = time.monotonic()
        tag = f"{name} sm_{cc[0]}{cc[1]} lto={lto}" + "".join(f" {k}" for k in options) + "".join(
            f" {f}" for f in hook_flags)
        failures_before = len(check.failures)
        skipped_debug = options.get("debug") and "--optimize-debug" not in hook_flags
        try:
            lib = compile_kernel(d["fn"], d["sig"], cc, lto, **options)
            check(not lib.needs_cudadevrt, f"{tag}: needs cudadevrt (the reference does not add it)")
            own = cubin(lib, cc)
            ref, ins, outs = reference(lib, cc, lto)
        except Exception as e:   # noqa: BLE001
            check(False, f"{tag}: compiling or the reference failed: {type(e).__name__}: {e}")
            continue
        if lto:
            lto_inputs += 1
            nul_ended += ins[0].endswith(b"\0")
        if skipped_debug:
            check(all(b", debug" in p for p in ins), f"{tag}: numba's debug PTX has no `.target ..., debug`")
            ref, ins, outs = own, [], []        # ptxopt-ptxas leaves -g alone, and so does the hook
        hook_env = " ".join([*(shlex.quote(f) for f in flags), *hook_flags]) or None

        # Hooked.
        keep = os.path.join(work, "keep", tag.replace(" ", "_").replace("=", "-"))
        ptxopt_numba.enable(ptxopt)
        ptxopt_numba.enable(ptxopt)              # a second enable() must not wrap again
        with environment(PTXOPT_KEEP_DIR=keep, PTXOPT_REMARKS=remarks, PTXOPT_FLAGS=hook_env):
            got, exc, err = hooked(lib, cc)
        if check(exc is None, f"{tag}: hooked link raised {type(exc).__name__}: {exc}"):
            check(got == ref, f"{tag}: hooked cubin differs from the by-hand reference")
            cubins_changed += got != own
        check(err == "", f"{tag}: the hook printed {err!r}")
        kept = sorted(os.listdir(keep)) if os.path.isdir(keep) else []
        kept_in = [f for f in kept if f.endswith(".in.ptx")]
        if check(len(kept_in) == len(ins) and len(kept) == 2 * len(ins),
                 f"{tag}: PTXOPT_KEEP_DIR has {kept}, expected {len(ins)} .in.ptx/.opt.ptx pair(s)"):
            for f in kept_in:
                stem = f[:-len(".in.ptx")]
                with open(os.path.join(keep, f), "rb") as fh:
                    kin = fh.read()
                with open(os.path.join(keep, stem + ".opt.ptx"), "rb") as fh:
                    kout = fh.read()
                check(kin in ins, f"{tag}: kept input {f} is not the PTX the link received")
                check(kout in outs, f"{tag}: kept output {stem}.opt.ptx is not ptxopt's output")
                kernel, _, digits = stem.rpartition("-")
                check(len(digits) == 16 and all(c in "0123456789abcdef" for c in digits)
                      and 0 < len(kernel) <= 64 and kernel in lib._entry_name,
                      f"{tag}: kept file {f} is not <kernel name, 64 at most>-<16 hex digits>.in.ptx")
                if kout != cli(kin, ["-O0"]):      # a round trip only
                    optimized_something.append(tag)

        # A ptxopt that fails: numba's own cubin, one warning per PTX module.
        expected = 0 if skipped_debug else len(ins)
        with environment(PTXOPT=failing, PTXOPT_FLAGS=hook_env):
            ptxopt_numba.enable()
            got, exc, err = hooked(lib, cc)
            if check(exc is None, f"{tag}: link with a failing ptxopt raised {type(exc).__name__}: {exc}"):
                check(got == own, f"{tag}: cubin with a failing ptxopt differs from numba's own")
            warned = warnings_in(err)
            check(len(warned) == expected and len(err.splitlines()) == expected
                  and all(w.endswith("; using the original PTX") and "status 1: failing-ptxopt" in w
                          for w in warned),
                  f"{tag}: expected {expected} warning line(s) about a failing ptxopt, got {err!r}")
            with environment(PTXOPT_STRICT="1"):
                _, exc, err = hooked(lib, cc)
            if expected:
                check(isinstance(exc, ptxopt_numba.PtxoptError),
                      f"{tag}: PTXOPT_STRICT=1 with a failing ptxopt: expected PtxoptError, got {exc!r}")
                check(err == "", f"{tag}: PTXOPT_STRICT=1 still printed {err!r}")

        # ptxopt output that nvJitLink rejects: numba's own cubin, one warning, the module kept.
        findings = os.path.join(work, "findings", tag.replace(" ", "_").replace("=", "-"))
        with environment(PTXOPT_FINDINGS_DIR=findings, PTXOPT_FLAGS=hook_env):
            ptxopt_numba.enable(broken)
            got, exc, err = hooked(lib, cc)
            if check(exc is None, f"{tag}: link of rejected PTX raised {type(exc).__name__}: {exc}"):
                check(got == own, f"{tag}: cubin after nvJitLink rejected ptxopt's PTX differs from numba's own")
            warned = warnings_in(err)
            check(len(warned) == min(expected, 1) and len(err.splitlines()) == len(warned)
                  and all("nvJitLink rejected the optimized PTX" in w and findings in w for w in warned),
                  f"{tag}: expected {min(expected, 1)} warning about rejected PTX, got {err!r}")
            found = sorted(os.listdir(findings)) if os.path.isdir(findings) else []
            check(len(found) == 3 * expected, f"{tag}: PTXOPT_FINDINGS_DIR has {found}")
            with environment(PTXOPT_STRICT="1"):
                _, exc, _ = hooked(lib, cc)
            if expected:
                check(isinstance(exc, ptxopt_numba.PtxoptError),
                      f"{tag}: PTXOPT_STRICT=1 with rejected PTX: expected PtxoptError, got {exc!r}")

        # PTXOPT_FLAGS=-O0 turns the hook off; a malformed PTXOPT_TIMEOUT is a warning.
        ptxopt_numba.enable(ptxopt)
        off = os.path.join(work, "keep-off")
        with environment(PTXOPT_FLAGS="-O0", PTXOPT_KEEP_DIR=off):
            got, exc, err = hooked(lib, cc)
        check(exc is None and got == own and err == "" and not os.path.exists(off),
              f"{tag}: PTXOPT_FLAGS=-O0 did not leave numba's link alone ({exc!r}, {err!r})")
        with environment(PTXOPT_TIMEOUT="soon", PTXOPT_FLAGS=hook_env):
            got, exc, err = hooked(lib, cc)
        check(exc is None and got == own and len(warnings_in(err)) == expected
              and all("PTXOPT_TIMEOUT=soon" in w for w in warnings_in(err)),
              f"{tag}: PTXOPT_TIMEOUT=soon: expected numba's cubin and {expected} warning(s), got {err!r}")

        # disable(): numba's own behaviour.
        ptxopt_numba.disable()
        check(all(Linker.__dict__[m] is f for m, f in numba_methods.items()),
              f"{tag}: disable() did not restore _Linker's methods")
        check(cubin(lib, cc) == own, f"{tag}: cubin after disable() differs from numba's own")

        ok = len(check.failures) == failures_before
        what = "not optimized (debug)" if skipped_debug else f"{len(ins)} PTX module(s)"
        print(f"{'ok  ' if ok else 'FAIL'} {tag}: {what}, "
              f"{'cubin changed' if got is not None and ref != own else 'cubin unchanged'}, "
              f"{time.monotonic() - t0:.1f}s", flush=True)

    check(bool(optimized_something),
          "ptxopt's output equals its -O0 round trip for every kernel: nothing was optimized "
          "(pick a pipeline with --flags)")
    lines = []
    if os.path.exists(remarks):
        with open(remarks, encoding="utf-8") as f:
            lines = [line for line in f.read().splitlines() if line.strip()]
    bad = []
    for line in lines:
        try:
            json.loads(line)
        except ValueError:
            bad.append(line)
    check(not bad, f"PTXOPT_REMARKS holds lines that are not JSON: {bad[:3]}")
    check(bool(lines) or not optimized_something, "ptxopt optimized modules but PTXOPT_REMARKS is empty")
    if lto_inputs:
        print(f"note: {nul_ended} of {lto_inputs} PTX modules linked from LTO-IR end in a NUL byte "
              "(passed to ptxopt as they are)")
    print(f"note: ptxopt's output differs from its -O0 round trip for: {', '.join(optimized_something) or 'none'}")
    print(f"note: {len(optimized_something)} of {len(configs)} configurations differ from ptxopt -O0; "
          f"{cubins_changed} cubins differ from numba's own; {len(lines)} remark lines")
    elapsed = time.monotonic() - start
    if check.failures:
        print(f"FAILED: {len(check.failures)} check(s) in {elapsed:.1f}s")
        return 1
    print(f"PASSED: {len(configs)} configurations in {elapsed:.1f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
