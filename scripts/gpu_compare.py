#!/usr/bin/env python3
"""Compares ptxrun with a real GPU on the kernel corpus, in three steps.

  prepare (here):   for every launch spec and PTX build, ptxrun writes the launch's initial
                    buffers (--dump-inputs) and its results (--dump); the PTX, the inputs and a
                    manifest go into one folder (ignored by git), to be carried to the GPU machine.
  run (GPU machine): loads each PTX with CuPy (cupy.RawModule), launches it with the same
                    inputs, and writes the GPU's buffers; everything comes back as one tar file.
  compare (here):   every GPU buffer against ptxrun's, bit for bit, except the element ranges
                    that tests/emu/specs/*.compare.json leaves out (results of .approx
                    instructions); prints one line per case and a summary.

Usage:
  scripts/gpu_compare.py prepare --ptxrun build/ptxrun --corpus build/corpus --out .gpucmp
  # device run: carry .gpucmp (echo /.gpucmp/ >> .git/info/exclude first), then there:
  #   python3 scripts/gpu_compare.py run --dir .gpucmp --tar $OUT/gpu.tar
  scripts/gpu_compare.py compare --dir .gpucmp --tar /work/.device/.../gpu.tar

Not run on a GPU yet (no session so far had one); expect to adjust the `run` step the first time.
Parameters passed by value as raw bytes (structs) are launched through a NumPy structured scalar.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "emu"))
from specs import first_difference, ignored, kernel_file, load_rules, spec_stems  # noqa: E402
GROUPS = [  # (specs folder, stem prefix the PTX file lacks, PTX builds)
    ("tests/emu/specs", "", ["nvcc-sm90", "nvcc-sm75", "nvcc-sm90-G", "nvcc-sm90-lineinfo"]),
    ("tests/emu/specs-clang", "clang_", ["clang-sm75", "clang-sm80"]),
    ("tests/emu/specs-triton", "triton_", ["triton-sm90a", "triton-sm80"]),
    ("tests/emu/specs-numba", "numba_", ["numba-sm90", "numba-sm75"]),
]
NUMPY_TYPE = {"s8": "int8", "s16": "int16", "s32": "int32", "s64": "int64", "u8": "uint8",
              "u16": "uint16", "u32": "uint32", "u64": "uint64", "f16": "float16",
              "bf16": "uint16", "f32": "float32", "f64": "float64"}


def entry_names(ptx_text):
    return re.findall(r"\.entry\s+([A-Za-z_$%][\w$]*)", ptx_text)


def prepare(args):
    os.makedirs(args.out, exist_ok=True)
    cases = []
    for specs_rel, prefix, builds in GROUPS:
        specs_dir = os.path.join(ROOT, specs_rel)
        if not os.path.isdir(specs_dir):
            continue
        for stem in spec_stems(specs_dir):
            f = stem + ".json"
            with open(os.path.join(specs_dir, f), encoding="utf-8") as fh:
                spec = json.load(fh)
            for build in builds:
                ptx = os.path.join(args.corpus, build, kernel_file(stem, prefix) + ".ptx")
                if not os.path.isfile(ptx):
                    print(f"skip {build}/{stem}: {ptx} missing")
                    continue
                case_id = f"{build}__{stem}"
                d = os.path.join(args.out, case_id)
                os.makedirs(d, exist_ok=True)
                shutil.copy(ptx, os.path.join(d, "k.ptx"))
                r = subprocess.run([args.ptxrun, "--launch", os.path.join(specs_dir, f), ptx, "-j", "1",
                                    "--dump-inputs", os.path.join(d, "in"), "--dump", os.path.join(d, "emu")],
                                   capture_output=True, text=True)
                if r.returncode != 0:
                    print(f"skip {case_id}: ptxrun exited {r.returncode}: {r.stderr.strip()[:300]}")
                    continue
                with open(os.path.join(d, "emu_stdout.txt"), "w", encoding="utf-8") as fh:
                    fh.write(r.stdout)
                with open(ptx, encoding="utf-8") as fh:
                    names = entry_names(fh.read())
                kernel = spec.get("kernel") or (names[0] if len(names) == 1 else None)
                params = []
                for p in spec["params"]:
                    if "buffer" in p:
                        params.append({"name": p["name"], "kind": "buffer", "type": p["buffer"]["type"]})
                    elif "value" in p:
                        params.append({"name": p["name"], "kind": "value", "type": p["type"], "value": p["value"]})
                    else:
                        params.append({"name": p["name"], "kind": "bytes", "bytes": p["bytes"]})
                grid = (spec.get("grid", [1]) + [1, 1])[:3]
                block = (spec.get("block", [1]) + [1, 1])[:3]
                cases.append({"id": case_id, "kernel": kernel, "grid": grid, "block": block,
                              "shared": spec.get("dynamic_shared_bytes", 0), "params": params,
                              "ignore": load_rules(specs_dir, stem).get("ignore", {})})
    with open(os.path.join(args.out, "manifest.json"), "w", encoding="utf-8") as fh:
        json.dump(cases, fh, indent=1)
    print(f"prepared {len(cases)} cases in {args.out}")
    return 0


def run(args):
    import numpy as np
    import cupy as cp
    with open(os.path.join(args.dir, "manifest.json"), encoding="utf-8") as fh:
        cases = json.load(fh)
    failures = 0
    for c in cases:
        d = os.path.join(args.dir, c["id"])
        out = os.path.join(d, "gpu")
        os.makedirs(out, exist_ok=True)
        try:
            mod = cp.RawModule(path=os.path.join(d, "k.ptx"))
            fn = mod.get_function(c["kernel"])
            launch_args, arrays = [], {}
            for p in c["params"]:
                if p["kind"] == "buffer":
                    raw = np.fromfile(os.path.join(d, "in", p["name"] + ".bin"), dtype=np.uint8)
                    arrays[p["name"]] = cp.asarray(raw)
                    launch_args.append(arrays[p["name"]])
                elif p["kind"] == "value":
                    launch_args.append(np.dtype(NUMPY_TYPE[p["type"]]).type(p["value"]))
                else:
                    raw = bytes(p["bytes"])
                    dt = np.dtype({"names": ["b"], "formats": [(np.uint8, len(raw))]}, align=True)
                    launch_args.append(np.frombuffer(raw, dtype=dt)[0])
            fn(tuple(c["grid"]), tuple(c["block"]), tuple(launch_args), shared_mem=c["shared"])
            cp.cuda.runtime.deviceSynchronize()
            for name, a in arrays.items():
                cp.asnumpy(a).tofile(os.path.join(out, name + ".bin"))
        except Exception as e:  # report and go on with the next case
            failures += 1
            with open(os.path.join(out, "error.txt"), "w", encoding="utf-8") as fh:
                fh.write(repr(e))
            print(f"{c['id']}: {e!r}")
    with tarfile.open(args.tar, "w") as t:
        for c in cases:
            g = os.path.join(args.dir, c["id"], "gpu")
            if os.path.isdir(g):
                t.add(g, arcname=os.path.join(c["id"], "gpu"))
    print(f"ran {len(cases)} cases, {failures} could not run; wrote {args.tar}")
    return 0


def compare(args):
    with open(os.path.join(args.dir, "manifest.json"), encoding="utf-8") as fh:
        cases = json.load(fh)
    with tarfile.open(args.tar) as t:
        t.extractall(args.dir)
    same = differ = missing = 0
    for c in cases:
        d = os.path.join(args.dir, c["id"])
        if os.path.isfile(os.path.join(d, "gpu", "error.txt")) or not os.path.isdir(os.path.join(d, "gpu")):
            missing += 1
            print(f"{c['id']}: not run on the GPU")
            continue
        first = None
        for p in c["params"]:
            if p["kind"] != "buffer":
                continue
            with open(os.path.join(d, "emu", p["name"] + ".bin"), "rb") as fh:
                emu = fh.read()
            with open(os.path.join(d, "gpu", p["name"] + ".bin"), "rb") as fh:
                gpu = fh.read()
            diff = first_difference(gpu, emu, p["type"], ignored(c, p["name"]))
            if diff:
                i, g, e = diff
                first = (f"{p['name']}: {len(gpu)} bytes from the GPU, {len(emu)} from ptxrun" if i is None else
                         f"{p['name']}[{i}]: ptxrun 0x{e[::-1].hex()}, GPU 0x{g[::-1].hex()}")
            if first:
                break
        if first:
            differ += 1
            print(f"{c['id']}: DIFFERS at {first}")
        else:
            same += 1
    print(f"{same} cases identical, {differ} differ, {missing} not run")
    return 1 if differ else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("--ptxrun", required=True)
    p.add_argument("--corpus", required=True)
    p.add_argument("--out", required=True)
    r = sub.add_parser("run")
    r.add_argument("--dir", required=True)
    r.add_argument("--tar", required=True)
    c = sub.add_parser("compare")
    c.add_argument("--dir", required=True)
    c.add_argument("--tar", required=True)
    args = ap.parse_args()
    return {"prepare": prepare, "run": run, "compare": compare}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
