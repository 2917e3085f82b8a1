#!/usr/bin/env python3
"""CI smoke campaign of the differential fuzzer (issue #8).

1. `ptxfuzz run` over generated kernels: each is optimized with -O2 and with a random pipeline
   (random pass order and knobs), assembled with ptxas, and run against the original under the
   emulator. Any mismatch, crash or bad generated kernel fails the test; the reproducers are
   left under WORK/findings.
2. Barrier-heavy kernels (`--barrier-heavy`) through `dead-sync` alone and with the -O2
   passes, compared and race-checked under round-robin and two random warp schedules (no
   ptxas: dead-sync only deletes barriers, which ptxas accepts either way).
3. `ptxfuzz mutate --campaign`: broken variants of the corpus kernels; ptxopt must accept every
   mutant ptxas accepts and reject at least 99% of those ptxas rejects for operand count,
   operand kind, undeclared names and missing labels.
Without ptxas the first part runs without the ptxas checks and the second is SKIPPED.
"""
import argparse
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from skip import finish  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ptxfuzz", required=True)
    ap.add_argument("--ptxas", default="")
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--seeds", default="1..120")
    ap.add_argument("--mutants", type=int, default=300)
    ap.add_argument("--barrier-seeds", default="1..120")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    a = ap.parse_args()

    failures, skips = [], []
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    ptxas = a.ptxas if a.ptxas and os.path.exists(a.ptxas) else ""

    cmd = [a.ptxfuzz, "run", "--seeds", a.seeds, "-j", str(a.jobs), "-q", "--out", os.path.join(a.work, "findings")]
    cmd += ["--ptxas", ptxas] if ptxas else ["--no-ptxas"]
    if not ptxas:
        skips.append("ptxas not found: the campaign ran without assembling originals and outputs")
    print("$ " + " ".join(cmd), flush=True)
    r = subprocess.run(cmd)
    if r.returncode != 0:
        failures.append(f"ptxfuzz run exited {r.returncode} (reproducers under {a.work}/findings)")

    cmd = [a.ptxfuzz, "run", "--seeds", a.barrier_seeds, "--barrier-heavy", "--random-schedules", "2",
           "--passes", "dead-sync", "--passes", "dead-sync,branch-opt,dce", "--no-ptxas", "-j", str(a.jobs), "-q",
           "--out", os.path.join(a.work, "findings-barriers")]
    print("$ " + " ".join(cmd), flush=True)
    r = subprocess.run(cmd)
    if r.returncode != 0:
        failures.append(f"ptxfuzz run --barrier-heavy exited {r.returncode} (reproducers under {a.work}/findings-barriers)")
    if not ptxas:
        skips.append("ptxas not found: the mutation campaign compares ptxopt with ptxas")
    elif not os.path.isdir(a.corpus) or not any(f.endswith(".ptx") for _, _, fs in os.walk(a.corpus) for f in fs):
        skips.append(f"no corpus PTX under {a.corpus} (nvcc missing when the build was configured?)")
    else:
        cmd = [a.ptxfuzz, "mutate", "--campaign", str(a.mutants), "-j", str(a.jobs), "--ptxas", ptxas, a.corpus]
        print("$ " + " ".join(cmd), flush=True)
        r = subprocess.run(cmd)
        if r.returncode != 0:
            failures.append(f"ptxfuzz mutate exited {r.returncode}")

    for f in failures:
        print("FAILED: " + f)
    return finish(failures, skips)


if __name__ == "__main__":
    sys.exit(main())
