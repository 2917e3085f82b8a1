"""What the toolchain tests check of every ptxas call ptxopt-ptxas made: the object the toolchain
got is byte for byte the one NVIDIA's ptxas makes, with the same arguments, of `ptxopt in.ptx`
(the ptxopt command, not the wrapper's in-process path), and where a launch spec exists, the
optimized module computes under ptxrun what the input computed.

ptxopt-ptxas leaves, for each input, STEM.in.ptx, STEM.opt.ptx and STEM.json (the ptxas call) in
PTXOPT_KEEP_DIR; these functions read them back.
"""
import glob
import json
import os
import subprocess
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "emu"))
from specs import kernel_file, spec_stems  # noqa: E402


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def calls(keep_dir):
    """The kept ptxas calls: (stem, call dict) sorted by stem."""
    out = []
    for path in sorted(glob.glob(os.path.join(keep_dir, "*.json"))):
        with open(path) as f:
            out.append((path[:-len(".json")], json.load(f)))
    return out


def output_of(args):
    """The -o/--output-file of a ptxas argument list (ptxas's default elf.o without one)."""
    for k, a in enumerate(args):
        if a in ("-o", "--output-file") and k + 1 < len(args):
            return k + 1, args[k + 1]
        for prefix in ("-o=", "--output-file="):
            if a.startswith(prefix):
                return k, a[len(prefix):]
    return None, "elf.o"


def reference_object(stem, call, ptxopt, work, ptxopt_flags=()):
    """Builds the object of `call` by hand: `ptxopt STEM.in.ptx`, then the real ptxas with the
    call's arguments, the input replaced by that file and the output by one in `work`. Returns
    (object bytes, None) or (None, why)."""
    opt = os.path.abspath(os.path.join(work, os.path.basename(stem) + ".ref.ptx"))
    r = run([ptxopt, *ptxopt_flags, stem + ".in.ptx", "-o", opt])
    if r.returncode != 0:
        return None, "ptxopt failed on %s.in.ptx: %s" % (stem, r.stderr.strip())
    args = list(call["args"])
    k = call["input_index"]
    inputs = [i for i, a in enumerate(args) if os.path.basename(os.path.dirname(a.split(",")[0])).startswith("ptxopt-ptxas-")]
    if len(inputs) != 1 or k != 0:
        return None, "%s: expected one optimized input in %s" % (stem, args)
    args[inputs[0]] = opt
    obj = os.path.join(work, os.path.basename(stem) + ".ref.o")
    obj = os.path.abspath(obj)
    at, _ = output_of(args)
    if at is None:
        args += ["-o", obj]
    elif args[at].startswith("-"):
        args[at] = args[at].split("=", 1)[0] + "=" + obj
    else:
        args[at] = obj
    # In the call's directory: ptxas reads the files that relative `.file` lines name (-lineinfo).
    r = run([call["ptxas"], *args], cwd=call["cwd"])
    if r.returncode != 0:
        return None, "ptxas failed on %s: %s" % (opt, r.stderr.strip())
    with open(obj, "rb") as f:
        return f.read(), None


def changed(stem, ptxopt):
    """Whether ptxopt's passes changed the module: the optimized text differs from the input
    printed back unoptimized (`ptxopt -O0`, which normalizes the layout)."""
    r = run([ptxopt, "-O0", stem + ".in.ptx"])
    with open(stem + ".opt.ptx") as f:
        return r.returncode != 0 or r.stdout != f.read()


def launch_specs(specs_dir, name, prefix=""):
    """The launch specs (paths) of the kernel file `name` in a specs folder (tests/emu/specs.py:
    S.json and S.VARIANT.json; a group's specs carry its prefix, e.g. triton_)."""
    return [os.path.join(specs_dir, s + ".json") for s in spec_stems(specs_dir) if kernel_file(s, prefix) == name]


def emulate(ptxrun, spec, stem):
    """ptxrun --compare of the input and the optimized module on a launch spec; None or why not."""
    r = run([ptxrun, "--launch", spec, stem + ".in.ptx", "--compare", stem + ".opt.ptx"], timeout=600)
    if r.returncode != 0:
        return "ptxrun --compare %s: %s%s" % (os.path.basename(stem), r.stdout.strip()[-800:], r.stderr.strip()[-800:])
    return None
