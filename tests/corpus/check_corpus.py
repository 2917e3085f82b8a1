#!/usr/bin/env python3
"""Round-trip check of the kernel corpus.

For every PTX file under --corpus (real output of nvcc and clang, built by the `corpus` target):
  1. `ptxopt IN -o OUT1 --verify --stats` succeeds and the IR verifies;
  2. nothing is lost: the statistics (functions, blocks, instructions, per-opcode counts) of
     OUT1 equal those of IN;
  3. printing is idempotent: `ptxopt OUT1 -o OUT2` gives OUT2 == OUT1 byte for byte;
  4. ptxas accepts OUT1 (`ptxas -arch=<the module's target>`, with `-c` only where ptxas also
     needs it for the input because of unresolved externals).
Exits 1 listing every failure. Without ptxas, step 4 is SKIPPED and says so.
"""
import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import time


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def stats_body(text):
    # The statistics block without its title line (which names the file) and without the
    # warnings printed before it (which name the file too).
    lines = text.splitlines()
    for k, line in enumerate(lines):
        if line.startswith("statistics for "):
            return "\n".join(lines[k + 1:])
    return text


def target_arch(path):
    with open(path, errors="replace") as f:
        for line in f:
            m = re.match(r"\s*\.target\s+(sm_\w+)", line)
            if m:
                return m.group(1)
    return "sm_90"


def check(path, args):
    rel = os.path.relpath(path, args.corpus)
    base = os.path.join(args.work, rel.replace(os.sep, "__"))
    out1, out2 = base + ".1.ptx", base + ".2.ptx"
    r = run([args.ptxopt, path, "-o", out1, "--verify", "--stats"])
    if r.returncode != 0:
        return rel, "ptxopt failed on the input:\n" + r.stderr[-2000:]
    stats_in = stats_body(r.stderr)
    r2 = run([args.ptxopt, out1, "-o", out2, "--verify", "--stats"])
    if r2.returncode != 0:
        return rel, "ptxopt failed on its own output:\n" + r2.stderr[-2000:]
    if stats_body(r2.stderr) != stats_in:
        return rel, "statistics changed in the round trip:\n--- input\n%s\n--- output\n%s" % (stats_in, stats_body(r2.stderr))
    with open(out1, "rb") as a, open(out2, "rb") as b:
        if a.read() != b.read():
            return rel, "printing is not idempotent: %s and %s differ" % (out1, out2)
    if not args.ptxas:
        return rel, None
    arch = target_arch(path)
    cubin = base + ".cubin"
    r = run([args.ptxas, "-arch=" + arch, out1, "-o", cubin])
    if r.returncode != 0:
        # Unresolved externals need -c; accept -c only when the input needs it as well.
        rin = run([args.ptxas, "-arch=" + arch, path, "-o", cubin])
        if rin.returncode == 0:
            return rel, "ptxas rejects the output but accepts the input:\n" + r.stderr[-2000:]
        rc = run([args.ptxas, "-c", "-arch=" + arch, out1, "-o", cubin])
        if rc.returncode != 0:
            return rel, "ptxas -c rejects the output:\n" + rc.stderr[-2000:]
    return rel, None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ptxopt", required=True)
    ap.add_argument("--ptxas", default="")
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("-j", type=int, default=os.cpu_count() or 2)
    args = ap.parse_args()
    if args.ptxas and not os.path.exists(args.ptxas):
        args.ptxas = ""

    files = []
    for root, _, names in os.walk(args.corpus):
        files += [os.path.join(root, n) for n in names if n.endswith(".ptx")]
    files.sort()
    if not files:
        print("SKIPPED: the corpus is empty (nvcc and clang++-14 were not found when the build was configured)")
        return 0
    if not args.ptxas:
        print("SKIPPED (partly): ptxas not found; checking round trip and idempotence only")
    os.makedirs(args.work, exist_ok=True)

    start = time.time()
    failures = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.j) as pool:
        for rel, err in pool.map(lambda p: check(p, args), files):
            if err:
                failures.append((rel, err))
                print("FAIL %s\n%s\n" % (rel, err))
    groups = {}
    for f in files:
        g = os.path.relpath(f, args.corpus).split(os.sep)[0]
        groups[g] = groups.get(g, 0) + 1
    total_bytes = sum(os.path.getsize(f) for f in files)
    print("corpus: %d files (%s), %.1f MB, checked in %.1f s" % (
        len(files), ", ".join("%s: %d" % kv for kv in sorted(groups.items())), total_bytes / 1e6, time.time() - start))
    print("round trip + verify + idempotence%s: %d passed, %d failed" % (
        " + ptxas" if args.ptxas else "", len(files) - len(failures), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
