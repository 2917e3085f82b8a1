#!/usr/bin/env python3
"""Round-trip check of the kernel corpus.

For every PTX file under --corpus (real output of nvcc, clang, Triton and numba-cuda, built by
the `corpus` target):
  1. `ptxopt -O0 IN -o OUT1 --verify --stats` succeeds and the IR verifies;
  2. nothing is lost: the statistics (functions, blocks, instructions, per-opcode counts) of
     OUT1 equal those of IN;
  3. printing is idempotent: `ptxopt OUT1 -o OUT2` gives OUT2 == OUT1 byte for byte;
  4. ptxas accepts OUT1 (`ptxas -arch=<the module's own .target>`, e.g. sm_90a for Triton's
     Hopper output, with `-c` only where ptxas also needs it for the input because of
     unresolved externals);
  5. the -O1, -O2 and -O3 pipelines (`--verify-each`) succeed; the -O1 output prints
     idempotently, and ptxas accepts it.
  6. with --ptxrun: the emulator can decode every instruction (`ptxrun --list-unsupported`
     prints nothing) except matrix, texture and surface operations, which it does not model.
Exits 1 listing every failure. A check that cannot run (no ptxas; --skipped REASON, a part of
the corpus that could not be built, e.g. no Triton/numba-cuda environment) is printed as
SKIPPED and the exit code is 77 (tests/skip.py). Files of EXCLUDED are left out, each with its
reason printed.
"""
import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from skip import finish, skipped  # noqa: E402


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


# Corpus files (relative to --corpus) left out of the check, with why: real compiler output that
# ptxopt or ptxrun does not handle yet. Each is a bug to fix, not a permanent exception.
EXCLUDED = {
}

# Instruction families the emulator leaves out by design (see docs/EMULATOR.md).
NOT_EMULATED = re.compile(r": [^:]*: (?:@!?%\w+ )?(?:w?mma|ldmatrix|stmatrix|tex|tld4|txq|suld|sust|sured|suq)\.")


def check(path, args):
    rel = os.path.relpath(path, args.corpus)
    base = os.path.join(args.work, rel.replace(os.sep, "__"))
    out1, out2 = base + ".1.ptx", base + ".2.ptx"
    r = run([args.ptxopt, "-O0", path, "-o", out1, "--verify", "--stats"])
    if r.returncode != 0:
        return rel, "ptxopt failed on the input:\n" + r.stderr[-2000:]
    stats_in = stats_body(r.stderr)
    r2 = run([args.ptxopt, "-O0", out1, "-o", out2, "--verify", "--stats"])
    if r2.returncode != 0:
        return rel, "ptxopt failed on its own output:\n" + r2.stderr[-2000:]
    if stats_body(r2.stderr) != stats_in:
        return rel, "statistics changed in the round trip:\n--- input\n%s\n--- output\n%s" % (stats_in, stats_body(r2.stderr))
    with open(out1, "rb") as a, open(out2, "rb") as b:
        if a.read() != b.read():
            return rel, "printing is not idempotent: %s and %s differ" % (out1, out2)
    # The -O1 pipeline, verified after every pass.
    opt1, opt2 = base + ".O1.ptx", base + ".O1.again.ptx"
    r3 = run([args.ptxopt, "-O1", "--verify-each", "--verify", path, "-o", opt1])
    if r3.returncode != 0:
        return rel, "ptxopt -O1 failed:\n" + r3.stderr[-2000:]
    r4 = run([args.ptxopt, "-O0", opt1, "-o", opt2])
    if r4.returncode != 0:
        return rel, "ptxopt cannot read its own -O1 output:\n" + r4.stderr[-2000:]
    with open(opt1, "rb") as a, open(opt2, "rb") as b:
        if a.read() != b.read():
            return rel, "the -O1 output does not print idempotently: %s and %s differ" % (opt1, opt2)
    # The -O2 and -O3 pipelines, verified after every pass (their outputs are assembled and
    # run by the emu-corpus test).
    for level in ("-O2", "-O3"):
        rl = run([args.ptxopt, level, "--verify-each", "--verify", path, "-o", base + level + ".ptx"])
        if rl.returncode != 0:
            return rel, "ptxopt %s failed:\n%s" % (level, rl.stderr[-2000:])
    if args.ptxrun:
        r5 = run([args.ptxrun, "--list-unsupported", path])
        if r5.returncode != 0:
            return rel, "ptxrun cannot load the file:\n" + r5.stderr[-2000:]
        left = [l for l in r5.stdout.splitlines() if not NOT_EMULATED.search(l)]
        if left:
            return rel, "ptxrun cannot emulate:\n" + "\n".join(left[:20])
    if not args.ptxas:
        return rel, None
    for produced, what in ((out1, "round-trip output"), (opt1, "-O1 output")):
        err = ptxas_check(args, path, produced, base)
        if err:
            return rel, "ptxas rejects the %s:\n%s" % (what, err)
    return rel, None


def ptxas_check(args, original, produced, base):
    arch = target_arch(original)
    cubin = base + ".cubin"
    r = run([args.ptxas, "-arch=" + arch, produced, "-o", cubin])
    if r.returncode == 0:
        return None
    # Unresolved externals need -c; accept -c only when the input needs it as well.
    rin = run([args.ptxas, "-arch=" + arch, original, "-o", cubin])
    if rin.returncode == 0:
        return "(the input passes without -c)\n" + r.stderr[-2000:]
    rc = run([args.ptxas, "-c", "-arch=" + arch, produced, "-o", cubin])
    if rc.returncode != 0:
        return rc.stderr[-2000:]
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ptxopt", required=True)
    ap.add_argument("--ptxas", default="")
    ap.add_argument("--ptxrun", default="", help="also check that the emulator decodes every instruction")
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("-j", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--no-assemble", action="store_true",
                    help="leave out step 4 and the -O1 assembly (the sanitizer build: the other build's corpus "
                         "test assembles the same outputs, which depend on nothing but the input)")
    ap.add_argument("--leave-out", action="append", default=[], metavar="DIR",
                    help="a corpus directory (nvcc-sm90-G) this run leaves to the other build's (printed as a NOTE)")
    ap.add_argument("--skipped", action="append", default=[], metavar="REASON",
                    help="a part of the corpus that was not built, and why (printed as SKIPPED)")
    args = ap.parse_args()
    if args.ptxas and not os.path.exists(args.ptxas):
        args.ptxas = ""
    if args.no_assemble:
        print("NOTE: --no-assemble: the outputs are not given to ptxas here (the other build's corpus test does)")
        args.ptxas = ""

    files = []
    for root, _, names in os.walk(args.corpus):
        files += [os.path.join(root, n) for n in names if n.endswith(".ptx")]
    files.sort()
    for d in args.leave_out:
        print("NOTE: %s is left to the other build's corpus test" % d)
    files = [f for f in files if os.path.relpath(f, args.corpus).split(os.sep)[0] not in args.leave_out]
    for f in list(files):
        rel = os.path.relpath(f, args.corpus)
        if rel in EXCLUDED:
            files.remove(f)
            print("EXCLUDED %s: %s" % (rel, EXCLUDED[rel]))
    if not files:
        return skipped(["the corpus is empty (nvcc, clang++-14 and the .venv with Triton and numba-cuda "
                        "were not found when the build was configured)"] + args.skipped)
    skips = list(args.skipped)
    if not args.ptxas and not args.no_assemble:
        skips.append("ptxas not found: the outputs are not assembled (the other checks ran)")
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
    print("round trip + verify + idempotence + -O1%s: %d passed, %d failed" % (
        " + ptxas" if args.ptxas else "", len(files) - len(failures), len(failures)))
    return finish(failures, skips)


if __name__ == "__main__":
    sys.exit(main())
