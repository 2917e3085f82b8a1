#!/usr/bin/env python3
"""Runs ptxopt_reference on every launch spec in tests/emu/specs (and, with --clang-specs,
tests/emu/specs-clang) and checks the results.

For every spec S.json (not the S.compare.json comparison rules) it runs
    ptxopt_reference --spec S.json --out WORK/S
and checks that the program exits 0 and wrote every buffer parameter as <name>.bin with the
size the spec gives, plus stdout.txt. It also checks that
  * every kernel file tests/kernels/K.cu has a spec for each of its `// kernel:` entries
    (spec stems K or K.<variant>, whose "kernel" field names one of those entries),
  * with --clang-specs/--clang-kernels (by default specs-clang beside the specs directory and
    clang/ in the kernels directory, when both exist): every kernel file tests/kernels/clang/F.cu has a spec
    E.json (or E.<variant>.json) in tests/emu/specs-clang for each of its `// kernel:` entries E
    (clang_F), whose "kernel" field is E, and every spec there is named after such an entry,
  * with --group SPECS KERNELS PREFIX (tests/emu/specs-triton tests/kernels/triton triton_, and
    the same for numba): every kernel file KERNELS/F.py names its entry in a `# kernel:` line and
    has a spec PREFIX F.json (or PREFIX F.<variant>.json) in SPECS, unless a `# no-spec:` line
    says why it cannot be run (then it has none); every spec there belongs to such a file, and a
    spec's "kernel" field, where it has one, is that entry (numba's specs leave it out: the
    PTX's one entry has a mangled name),
  * every spec has a registered reference and every registered reference a spec (in one of the
    two directories; a stem may not be in both), and
  * every S.compare.json belongs to a spec of its directory, names only its buffers, and stays in
    bounds.
Prints a one-line summary; exits 1 on any failure.
"""
import argparse
import json
import os
import re
import subprocess
import sys

from specs import ELEM_BYTES, buffer_params

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
        if key != "ignore" or not isinstance(val, dict):
            errors.append(f"{name}: unknown or malformed rule '{key}'")
            continue
        for buf, rule in val.items():
            if buf not in bufs:
                errors.append(f"{name}: {key}: no buffer parameter '{buf}'")
                continue
            count = bufs[buf][1]
            if not isinstance(rule, list) or not all(
                    isinstance(r, list) and len(r) == 2 and 0 <= r[0] <= r[1] < count for r in rule):
                errors.append(f"{name}: ignore.{buf}: expected [[first, last], ...] within 0..{count - 1}")


def load_specs(directory, origin, specs, spec_dirs, errors):
    """Reads every S.json (not S.compare.json) of directory into specs[S]; returns the
    S.compare.json file names. A stem already loaded from another directory is an error."""
    files = sorted(os.listdir(directory))
    for f in files:
        if not f.endswith(".json") or f.endswith(".compare.json"):
            continue
        stem = f[:-len(".json")]
        if stem in spec_dirs:
            errors.append(f"{f}: spec '{stem}' is in both {spec_dirs[stem]} and {directory}")
            continue
        try:
            with open(os.path.join(directory, f), encoding="utf-8") as fh:
                specs[stem] = json.load(fh)
            spec_dirs[stem] = directory
        except (OSError, ValueError) as e:
            errors.append(f"{origin}{f}: {e}")
    return [f for f in files if f.endswith(".compare.json")]


def check_nvcc_kernels(kernels_dir, specs, errors):
    """tests/kernels/K.cu: spec stems K or K.<variant>, whose "kernel" names an entry of K.cu."""
    kernel_files = sorted(f[:-3] for f in os.listdir(kernels_dir) if f.endswith(".cu"))
    for k in kernel_files:
        entries = header_kernels(os.path.join(kernels_dir, k + ".cu"))
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
    return kernel_files


def check_clang_kernels(kernels_dir, specs, errors):
    """tests/kernels/clang/F.cu: the spec stems are the entry names E (or E.<variant>) of the
    file's `// kernel:` lines, and each such spec's "kernel" is E."""
    kernel_files = sorted(f[:-3] for f in os.listdir(kernels_dir) if f.endswith(".cu"))
    entry_file = {}
    for k in kernel_files:
        entries = header_kernels(os.path.join(kernels_dir, k + ".cu"))
        if not entries:
            errors.append(f"clang kernel {k}.cu has no `// kernel:` line")
        for e in entries:
            if e in entry_file:
                errors.append(f"clang kernel entry '{e}' is declared by both {entry_file[e]}.cu and {k}.cu")
                continue
            entry_file[e] = k
            if not any(s == e or s.startswith(e + ".") for s in specs):
                errors.append(f"clang kernel {k}.cu: entry '{e}' has no spec {e}.json")
    for s, sp in specs.items():
        base = s.split(".")[0]
        if base not in entry_file:
            errors.append(f"{s}.json: '{base}' is not a `// kernel:` entry of any clang kernel file")
            continue
        kern = sp.get("kernel", "")
        if kern != base:
            errors.append(f"{s}.json: kernel '{kern}' should be '{base}', the entry of {entry_file[base]}.cu "
                          f"the spec is named after")
    return kernel_files


def header_field(path, field):
    """The values of the file's `# field: value` lines (Python kernel files)."""
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"#\s*" + re.escape(field) + r":\s*(.*\S)", line)
            if m:
                out.append(m.group(1))
    return out


def check_py_kernels(kernels_dir, prefix, specs, errors):
    """KERNELS/F.py (Triton or numba-cuda): a spec PREFIX F[.variant].json for each file without a
    `# no-spec:` line, none for a file with one; each spec belongs to a file; "kernel", where a spec
    has it, is the file's `# kernel:` entry."""
    kernel_files = sorted(f[:-3] for f in os.listdir(kernels_dir) if f.endswith(".py"))
    for k in kernel_files:
        path = os.path.join(kernels_dir, k + ".py")
        entries = header_field(path, "kernel")
        if len(entries) != 1:
            errors.append(f"{path}: expected one `# kernel:` line, found {len(entries)}")
            continue
        mine = {s: sp for s, sp in specs.items() if s == prefix + k or s.startswith(prefix + k + ".")}
        no_spec = header_field(path, "no-spec")
        if no_spec and mine:
            errors.append(f"{path} says `no-spec` but has spec(s) {', '.join(sorted(mine))}")
        elif not no_spec and not mine:
            errors.append(f"kernel {path} has no spec {prefix}{k}.json (or a `# no-spec: why` line)")
        for s, sp in mine.items():
            if "kernel" in sp and sp["kernel"] != entries[0]:
                errors.append(f"{s}.json: kernel '{sp['kernel']}' is not the entry '{entries[0]}' of {k}.py")
    for s in specs:
        base = s.split(".")[0]
        if not base.startswith(prefix) or base[len(prefix):] not in kernel_files:
            errors.append(f"{s}.json: no kernel file {base[len(prefix):] if base.startswith(prefix) else base}.py "
                          f"in {kernels_dir} (spec names are {prefix}<file>)")
    return kernel_files


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reference", required=True, help="the ptxopt_reference program")
    ap.add_argument("--specs", required=True, help="tests/emu/specs")
    ap.add_argument("--kernels", required=True, help="tests/kernels")
    ap.add_argument("--clang-specs", help="tests/emu/specs-clang (specs of the clang kernels); default: the "
                    "specs-clang directory beside --specs, when it and --kernels/clang both exist")
    ap.add_argument("--clang-kernels", help="tests/kernels/clang; default: the clang directory in --kernels, "
                    "when it and the specs-clang directory beside --specs both exist")
    ap.add_argument("--group", nargs=3, action="append", default=[], metavar=("SPECS", "KERNELS", "PREFIX"),
                    help="a spec directory of Python kernel files (Triton, numba-cuda) and its stem prefix")
    ap.add_argument("--work", required=True, help="output directory")
    args = ap.parse_args()
    if (args.clang_specs is None) != (args.clang_kernels is None):
        ap.error("--clang-specs and --clang-kernels go together")
    if args.clang_specs is None:
        # The clang specs' references are registered in the same program, so without the clang
        # directories they would all be reported as references without a spec.
        specs_clang = os.path.join(os.path.dirname(os.path.abspath(args.specs)), "specs-clang")
        kernels_clang = os.path.join(args.kernels, "clang")
        if os.path.isdir(specs_clang) and os.path.isdir(kernels_clang):
            args.clang_specs, args.clang_kernels = specs_clang, kernels_clang

    errors = []
    specs, spec_dirs = {}, {}
    compare_files = [(args.specs, f) for f in load_specs(args.specs, "", specs, spec_dirs, errors)]
    nvcc_specs = dict(specs)
    clang_specs = {}
    if args.clang_specs is not None:
        clang_compare = load_specs(args.clang_specs, "clang: ", clang_specs, spec_dirs, errors)
        compare_files += [(args.clang_specs, f) for f in clang_compare]
        specs.update(clang_specs)  # load_specs refused stems already in specs
    group_specs = []
    for specs_dir, kernels_dir, prefix in args.group:
        mine = {}
        compare_files += [(specs_dir, f) for f in load_specs(specs_dir, prefix + ": ", mine, spec_dirs, errors)]
        specs.update(mine)
        group_specs.append((kernels_dir, prefix, mine))

    # The registered references.
    registered = None
    r = subprocess.run([args.reference, "--list"], capture_output=True, text=True)
    if r.returncode != 0:
        errors.append(f"ptxopt_reference --list exited {r.returncode}: {r.stderr.strip()}")
    else:
        registered = set(r.stdout.split())

    # Run every reference.
    ran = 0
    for stem, spec in sorted(specs.items()):
        if registered is not None and stem not in registered:
            errors.append(f"{stem}.json ({spec_dirs[stem]}): no registered reference named '{stem}'")
            continue
        out = os.path.join(args.work, stem)
        os.makedirs(out, exist_ok=True)
        for old in os.listdir(out):
            os.remove(os.path.join(out, old))
        r = subprocess.run([args.reference, "--spec", os.path.join(spec_dirs[stem], stem + ".json"), "--out", out],
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

    # Every kernel entry of every corpus file has a spec, and every spec a kernel.
    kernel_files = check_nvcc_kernels(args.kernels, nvcc_specs, errors)
    clang_files = []
    if args.clang_kernels is not None:
        clang_files = check_clang_kernels(args.clang_kernels, clang_specs, errors)

    group_files = 0
    for kernels_dir, prefix, mine in group_specs:
        group_files += len(check_py_kernels(kernels_dir, prefix, mine, errors))

    # Every registered reference has a spec (a stale name is a typo or a leftover).
    if registered is not None:
        for name in sorted(registered):
            if name not in specs:
                where = " or ".join([args.specs] + ([args.clang_specs] if args.clang_specs is not None else [])
                                    + [g[0] for g in args.group])
                errors.append(f"reference '{name}' has no spec {name}.json in {where}")

    # Comparison rules belong to a spec of the same directory and stay within its buffers.
    for directory, f in compare_files:
        stem = f[:-len(".compare.json")]
        if stem not in specs or spec_dirs.get(stem) != directory:
            errors.append(f"{f}: no spec {stem}.json in {directory}")
            continue
        check_compare(os.path.join(directory, f), specs[stem], errors)

    for e in errors:
        print("FAIL: " + e)
    status = "ok" if not errors else f"{len(errors)} error(s)"
    clang = f" (+{len(clang_files)} clang)" if args.clang_kernels is not None else ""
    if args.group:
        clang += f" (+{group_files} Triton/numba)"
    print(f"emu-references: {ran}/{len(specs)} specs ran, {len(kernel_files)} kernel files{clang}, "
          f"{len(compare_files)} comparison rule files: {status}")
    return 0 if not errors else 1


if __name__ == "__main__":
    sys.exit(main())
