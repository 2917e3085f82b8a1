#!/usr/bin/env python3
"""ptxopt's output depends on its input and flags only (issue #32, item 5): not on -j, ASLR or
the allocator, so not on where the heap put a block or an instruction.

`ptxopt -O3 --remarks` runs over the corpus and over switch-heavy kernels from `ptxfuzz gen`
(the shapes whose lowering once followed std::set<BasicBlock*> order), once for reference
(`-j 1`) and then in each of these variations; the PTX, the remarks, the diagnostics and the
exit status of every run must equal the reference's byte for byte:
  j2       -j 2: functions optimized on two worker threads, whose new blocks and instructions
           come from other arenas than the main thread's.
  no-aslr  setarch -R: address space randomization off (the other runs have it as the system
           has it; the script says when that is off too).
and two variations of the allocator ptxopt is linked with, through its environment:
 jemalloc (the static ptxopt links libjemalloc.a where the build found it), MALLOC_CONF:
  retain   retain:false,junk:true: freed address space goes back to the system and new extents
           are mapped where the kernel puts them, below the older ones; memory is filled with
           junk when allocated and freed.
  arenas   -j 2 with tcache:false,percpu_arena:percpu: no thread caches (freed regions come back
           lowest address first), and an arena per CPU, so a thread's arena depends on where
           the scheduler runs it.
 glibc's malloc, GLIBC_TUNABLES (read by a static program too):
  tcache   -j 2 with glibc.malloc.tcache_count=0:glibc.malloc.perturb=165: freed memory comes
           back in another order, and freed or fresh memory holds 165s, not zeros.
  mmap     glibc.malloc.mmap_threshold=0: every allocation a mapping of its own, each below the
           one before, so objects made later lie at lower addresses (the heap's order reversed).
           A system call per allocation: only the light inputs (the corpus's switch kernels up
           to 16 KB and the small fuzz kernels).
The script checks that the settings take effect (jemalloc's stats_print lists the options it
read; with mmap_threshold=0 each allocation costs glibc a page fault, many times the minor faults
of a plain run) and says SKIPPED for the allocator variations when neither does. Without the
corpus (no nvcc when the build was configured) only the fuzz kernels run, and the corpus part
says SKIPPED.

Before the fix (2026-11-27), with glibc's malloc the mmap variation changed the output of
dense_switch (the three nvcc variants that predicate it: an `or.pred` with its operands swapped)
and of 5 of 300 small and 70 of 400 random-size switch-heavy kernels, and tcache that of fuzz
seeds 11 and 39; with jemalloc, retain changed 7 of those 400 kernels (seeds 5, 121, 188, 196,
242, 244 and 300, all run here).
"""
import argparse
import concurrent.futures
import os
import platform
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from skip import finish  # noqa: E402

ALLOCATOR_VARIABLES = ("GLIBC_TUNABLES", "MALLOC_CONF", "MALLOC_PERTURB_", "MALLOC_ARENA_MAX")
MMAP_ENV = {"GLIBC_TUNABLES": "glibc.malloc.mmap_threshold=0"}
GLIBC_CONFIGS = [
    {"name": "tcache", "jobs": 2, "env": {"GLIBC_TUNABLES": "glibc.malloc.tcache_count=0:glibc.malloc.perturb=165"}, "light": False},
    {"name": "mmap", "jobs": 1, "env": MMAP_ENV, "light": True},
]
JEMALLOC_CONFIGS = [
    {"name": "retain", "jobs": 1, "env": {"MALLOC_CONF": "retain:false,junk:true"}, "light": False},
    {"name": "arenas", "jobs": 2, "env": {"MALLOC_CONF": "tcache:false,percpu_arena:percpu"}, "light": False},
]
LIGHT_BYTES = 16 * 1024


def seeds(text):
    """The seeds of "1..40,121,188": ranges and single seeds."""
    out = []
    for part in text.split(","):
        lo, _, hi = part.partition("..")
        out += range(int(lo), int(hi or lo) + 1)
    return out


def setarch_prefix():
    """The command prefix that runs a program with ASLR off, or None."""
    for prefix in (["setarch", "-R"], ["setarch", platform.machine(), "-R"]):
        if shutil.which(prefix[0]) and subprocess.run(prefix + ["true"], capture_output=True).returncode == 0:
            return prefix
    return None


def plain_environment():
    return {k: v for k, v in os.environ.items() if k not in ALLOCATOR_VARIABLES}


def minor_faults(cmd, env):
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    return usage.ru_minflt if status == 0 else None


def jemalloc_reads(cmd, conf):
    """Whether ptxopt runs on jemalloc and reads each option of `conf` from MALLOC_CONF (its
    stats_print lists the options in effect, `opt.retain: false`, `opt.junk: "true"`)."""
    r = subprocess.run(cmd, env={**plain_environment(), "MALLOC_CONF": conf + ",stats_print:true"},
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, errors="replace")
    if "jemalloc statistics" not in r.stderr:
        return False
    lines = {line.strip() for line in r.stderr.splitlines()}
    return all(f"opt.{k}: {v}" in lines or f'opt.{k}: "{v}"' in lines
               for k, v in (o.split(":", 1) for o in conf.split(",")))


def allocator_configs(ptxopt, probe):
    """The allocator variations that take effect on this ptxopt: (configs, what, why not)."""
    cmd = [ptxopt, "-O3", probe, "-o", os.devnull]
    if all(jemalloc_reads(cmd, c["env"]["MALLOC_CONF"]) for c in JEMALLOC_CONFIGS):
        return JEMALLOC_CONFIGS, "jemalloc, MALLOC_CONF", None
    plain, mapped = minor_faults(cmd, plain_environment()), minor_faults(cmd, {**plain_environment(), **MMAP_ENV})
    if plain is not None and mapped is not None and mapped >= 4 * plain:
        return GLIBC_CONFIGS, f"glibc's malloc, GLIBC_TUNABLES: {plain} minor page faults plain, {mapped} with mmap_threshold=0", None
    return [], None, (f"ptxopt reads neither MALLOC_CONF (jemalloc) nor GLIBC_TUNABLES (minor page faults on "
                      f"{os.path.basename(probe)}: {plain} plain, {mapped} with mmap_threshold=0): no allocator variations")


def run_one(ptxopt, config, name, path, work):
    """Runs ptxopt on one input in one configuration; returns the outputs' bytes."""
    base = os.path.join(work, config["name"], name)
    out, remarks = base + ".ptx", base + ".remarks"
    cmd = config["prefix"] + [ptxopt, "-O3", "-j", str(config["jobs"]), path, "-o", out, "--remarks", remarks]
    env = {**plain_environment(), **config["env"]}
    r = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    result = {"status": str(r.returncode).encode(), "stdout": r.stdout, "stderr": r.stderr}
    for what, f in (("ptx", out), ("remarks", remarks)):
        if os.path.exists(f):
            with open(f, "rb") as fh:
                result[what] = fh.read()
    return result


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ptxopt", required=True)
    ap.add_argument("--ptxfuzz", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--work", required=True)
    # 121..300: seeds whose kernels jemalloc's retain variation changed before the fix.
    ap.add_argument("--fuzz-seeds", default="1..40,121,188,196,242,244,300", help="switch-heavy kernels of random size")
    ap.add_argument("--small-seeds", default="2000..2059", help="small switch-heavy kernels (also run in the mmap variation)")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="ptxopt processes at a time")
    a = ap.parse_args()
    start = time.time()
    failures, skips = [], []
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)

    # The inputs: (name, path, light).
    inputs = []
    corpus = sorted(os.path.join(d, f) for d, _, fs in os.walk(a.corpus) for f in fs if f.endswith(".ptx")) if os.path.isdir(a.corpus) else []
    if not corpus:
        skips.append(f"no corpus PTX under {a.corpus} (nvcc missing when the build was configured?): fuzz kernels only")
    for p in corpus:
        light = "switch" in os.path.basename(p) and os.path.getsize(p) <= LIGHT_BYTES
        inputs.append((os.path.relpath(p, a.corpus).replace(os.sep, "__"), p, light))
    for kind, text, extra in (("fuzz", a.fuzz_seeds, []), ("fuzz-small", a.small_seeds, ["--size", "small"])):
        d = os.path.join(a.work, kind)
        for s in seeds(text):
            cmd = [a.ptxfuzz, "gen", "--seed", str(s), "--switch-heavy", *extra, "-o", d]
            r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if r.returncode != 0:
                failures.append(f"{' '.join(cmd)} exited {r.returncode}: {r.stdout.strip()}")
                continue
            inputs.append((f"{kind}__fuzz_{s}", os.path.join(d, f"fuzz_{s}.ptx"), kind == "fuzz-small"))

    # The variations.
    configs = [{"name": "reference", "jobs": 1, "env": {}, "prefix": [], "light": False},
               {"name": "j2", "jobs": 2, "env": {}, "prefix": [], "light": False}]
    prefix = setarch_prefix()
    if prefix:
        configs.append({"name": "no-aslr", "jobs": 1, "env": {}, "prefix": prefix, "light": False})
    else:
        skips.append("setarch -R does not run here: no run with ASLR off")
    try:
        with open("/proc/sys/kernel/randomize_va_space") as f:
            if f.read().strip() == "0":
                print("note: ASLR is off on this system; no-aslr is the same as the reference")
    except OSError:
        pass
    probe = next((p for _, p, light in inputs if light), inputs[0][1] if inputs else None)
    if probe:
        extra, what, why = allocator_configs(a.ptxopt, probe)
        if why:
            skips.append(why)
        else:
            print(f"allocator: {what}")
        configs += [{**c, "prefix": []} for c in extra]
    for c in configs:
        os.makedirs(os.path.join(a.work, c["name"]))

    # Every run, then every comparison with the reference.
    runs = [(c, name, path) for c in configs for name, path, light in inputs if light or not c["light"]]
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
        results = list(pool.map(lambda t: run_one(a.ptxopt, t[0], t[1], t[2], a.work), runs))
    by = {(c["name"], name): r for (c, name, _), r in zip(runs, results)}
    differing = {}
    for (c, name, path), r in zip(runs, results):
        ref = by[("reference", name)]
        if c["name"] == "reference":
            if r["status"] != b"0":
                failures.append(f"ptxopt -O3 {path} exited {r['status'].decode()}: {r['stderr'].decode(errors='replace').strip()[:300]}")
            continue
        what = [k for k in ("status", "ptx", "remarks", "stdout", "stderr") if r.get(k) != ref.get(k)]
        if what:
            differing.setdefault(c["name"], []).append(f"{name} ({', '.join(what)})")
    for c in configs[1:]:
        n = sum(1 for name, _, light in inputs if light or not c["light"])
        bad = differing.get(c["name"], [])
        print(f"{c['name']:10} {n:4} inputs, {len(bad)} differ from the reference")
        if bad:
            failures.append(f"{c['name']}: {len(bad)} of {n} outputs differ from -j 1's (outputs under {a.work}/{c['name']} "
                            f"and {a.work}/reference): " + "; ".join(bad[:8]) + (" ..." if len(bad) > 8 else ""))
    print(f"{len(inputs)} inputs, {len(runs)} ptxopt runs in {time.time() - start:.1f} s")
    for f in failures:
        print("FAILED: " + f)
    return finish(failures, skips)


if __name__ == "__main__":
    sys.exit(main())
