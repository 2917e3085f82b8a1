#!/usr/bin/env python3
"""Runs ptxopt_reference on every launch spec in tests/emu/specs and checks the results.

For every spec S.json (not the S.compare.json comparison rules) it runs
    ptxopt_reference --spec S.json --out WORK/S
and checks that the program exits 0 and wrote every buffer parameter as <name>.bin with the
size the spec gives, plus stdout.txt. It also checks that
  * every kernel file tests/kernels/K.cu has a spec for each of its `// kernel:` entries
    (spec stems K or K.<variant>, whose "kernel" field names one of those entries), and
  * every S.compare.json belongs to a spec, names only its buffers, and stays in bounds.
Prints a one-line summary; exits 1 on any failure.
"""
import argparse
import json
import os
import re
import subprocess
import sys

ELEM_BYTES = {"s8": 1, "u8": 1, "s16": 2, "u16": 2, "f16": 2, "bf16": 2,
              "s32": 4, "u32": 4, "f32": 4, "s64": 8, "u64": 8, "f64": 8}
FLOAT_TYPES = {"f16", "bf16", "f32", "f64"}


def buffer_params(spec):
    out = {}
    for p in spec.get("params", []):
        if "buffer" in p:
            b = p["buffer"]
            count = b.get("count")
            if count is None:
                init = b.get("init")
                count = len(init["values"]) if isinstance(init, dict) and "values" in init else 0
            out[p["name"]] = (b["type"], count)
    return out


def header_kernels(cu_path):
    names = []
    with open(cu_path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"\s*//\s*kernel:\s*(\S+)", line)
            if m:
                names.append(m.group(1))
    return names


def check_compare(path, spec, errors):
    name = os.path.basename(path)
    try:
        with open(path, encoding="utf-8") as f:
            rules = json.load(f)
    except (OSError, ValueError) as e:
        errors.append(f"{name}: {e}")
        return
    bufs = buffer_params(spec)
    for key, val in rules.items():
        if key == "comment":
            continue
        if key not in ("ignore", "tolerance") or not isinstance(val, dict):
            errors.append(f"{name}: unknown or malformed rule '{key}'")
            continue
        for buf, rule in val.items():
            if buf not in bufs:
                errors.append(f"{name}: {key}: no buffer parameter '{buf}'")
                continue
            typ, count = bufs[buf]
            if key == "ignore":
                if not isinstance(rule, list) or not all(
                        isinstance(r, list) and len(r) == 2 and 0 <= r[0] <= r[1] < count for r in rule):
                    errors.append(f"{name}: ignore.{buf}: expected [[first, last], ...] within 0..{count - 1}")
            else:
                if typ not in FLOAT_TYPES or not isinstance(rule, dict) or not isinstance(rule.get("ulps"), int):
                    errors.append(f"{name}: tolerance.{buf}: expected {{\"ulps\": N}} on a float buffer")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reference", required=True, help="the ptxopt_reference program")
    ap.add_argument("--specs", required=True, help="tests/emu/specs")
    ap.add_argument("--kernels", required=True, help="tests/kernels")
    ap.add_argument("--work", required=True, help="output directory")
    args = ap.parse_args()

    errors = []
    files = sorted(os.listdir(args.specs))
    spec_files = [f for f in files if f.endswith(".json") and not f.endswith(".compare.json")]
    compare_files = [f for f in files if f.endswith(".compare.json")]
    specs = {}
    for f in spec_files:
        stem = f[:-len(".json")]
        try:
            with open(os.path.join(args.specs, f), encoding="utf-8") as fh:
                specs[stem] = json.load(fh)
        except (OSError, ValueError) as e:
            errors.append(f"{f}: {e}")

    # Run every reference.
    ran = 0
    for stem, spec in sorted(specs.items()):
        out = os.path.join(args.work, stem)
        os.makedirs(out, exist_ok=True)
        for old in os.listdir(out):
            os.remove(os.path.join(out, old))
        r = subprocess.run([args.reference, "--spec", os.path.join(args.specs, stem + ".json"), "--out", out],
                           capture_output=True, text=True)
        if r.returncode != 0:
            errors.append(f"{stem}: ptxopt_reference exited {r.returncode}: {r.stderr.strip()}")
            continue
        ran += 1
        for name, (typ, count) in buffer_params(spec).items():
            path = os.path.join(out, name + ".bin")
            want = count * ELEM_BYTES.get(typ, 0)
            if not os.path.isfile(path):
                errors.append(f"{stem}: {name}.bin missing")
            elif os.path.getsize(path) != want:
                errors.append(f"{stem}: {name}.bin has {os.path.getsize(path)} bytes, expected {want}")
        if not os.path.isfile(os.path.join(out, "stdout.txt")):
            errors.append(f"{stem}: stdout.txt missing")

    # Every kernel entry of every corpus file has a spec.
    kernel_files = sorted(f[:-3] for f in os.listdir(args.kernels) if f.endswith(".cu"))
    for k in kernel_files:
        entries = header_kernels(os.path.join(args.kernels, k + ".cu"))
        mine = {s: sp for s, sp in specs.items() if s == k or s.startswith(k + ".")}
        if not mine:
            errors.append(f"kernel {k}.cu has no spec")
            continue
        covered = set()
        for s, sp in mine.items():
            kern = sp.get("kernel", "")
            if entries and kern not in entries:
                errors.append(f"{s}.json: kernel '{kern}' is not an entry of {k}.cu ({', '.join(entries)})")
            covered.add(kern)
        for e in entries:
            if e not in covered:
                errors.append(f"kernel {k}.cu: entry '{e}' has no spec")
    for s in specs:
        if s.split(".")[0] not in kernel_files:
            errors.append(f"{s}.json: no kernel file {s.split('.')[0]}.cu")

    # Every registered reference has a spec (a stale name is a typo or a leftover).
    r = subprocess.run([args.reference, "--list"], capture_output=True, text=True)
    if r.returncode != 0:
        errors.append(f"ptxopt_reference --list exited {r.returncode}: {r.stderr.strip()}")
    else:
        for name in r.stdout.split():
            if name not in specs:
                errors.append(f"reference '{name}' has no spec {name}.json")

    # Comparison rules belong to a spec and stay within its buffers.
    for f in compare_files:
        stem = f[:-len(".compare.json")]
        if stem not in specs:
            errors.append(f"{f}: no spec {stem}.json")
            continue
        check_compare(os.path.join(args.specs, f), specs[stem], errors)

    for e in errors:
        print("FAIL: " + e)
    status = "ok" if not errors else f"{len(errors)} error(s)"
    print(f"emu-references: {ran}/{len(specs)} specs ran, {len(kernel_files)} kernel files, "
          f"{len(compare_files)} comparison rule files: {status}")
    return 0 if not errors else 1


if __name__ == "__main__":
    sys.exit(main())
