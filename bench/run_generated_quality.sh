#!/usr/bin/env bash
# Figures for docs/BENCHMARKS.md ("Generated kernels"): the code-quality benchmark on kernels the
# fuzzer's generator writes, a sample no cost model was tuned on. Generates COUNT small kernels
# (nesting-heavy unless SHAPE says otherwise) with their launch specs, measures PIPELINES with
# ptxopt-bench (ptxas, nvdisasm and the emulator, as for the corpus) and prints, per pipeline,
# the geometric mean of the estimated dynamic SASS instructions against -O0, how many kernels
# got more than 1% and 2% worse, and the five worst.
# Usage: bench/run_generated_quality.sh [BUILD_DIR] [FIRST_SEED] [COUNT] [PIPELINES] [OUT_DIR] [SHAPE]
# (SHAPE: the generator's setting, --nesting-heavy by default; --ifelse-heavy, --switch-heavy, ...)
# (after `make build`; 200 kernels and five pipelines take about 4 minutes on 2 cores)
set -euo pipefail
build=${1:-build}
seed=${2:-700001}
count=${3:-200}
pipelines=${4:--O0,-O2,-O2@profile,-O3,-O3@profile}
out=${5:-/tmp/ptxopt-generated-quality}
shape=${6:---nesting-heavy}
case "$pipelines" in -O0,*) ;; *) echo "PIPELINES must start with -O0 (the baseline)"; exit 1 ;; esac
rm -rf "$out" && mkdir -p "$out/kernels"
"$build/ptxfuzz" gen --seed "$seed" --count "$count" --size small "$shape" -o "$out/kernels" >/dev/null
"$build/ptxopt-bench" -q --second-arch none --specs "$out/kernels" -o "$out/report" -j 2 \
  --pipelines="$pipelines" "$out/kernels" >/dev/null
python3 - "$out/report/quality.json" <<'EOF'
import collections, json, math, sys
rows = json.load(open(sys.argv[1]))
est = collections.defaultdict(dict)
pipes, failed = [], 0
for r in rows:
    if r["pipeline"] not in pipes:
        pipes.append(r["pipeline"])
    if r.get("error"):
        failed += 1
        continue
    est[r["kernel"]][r["pipeline"]] = r["dyn_sass_estimate"]
kernels = [k for k, v in est.items() if len(v) == len(pipes) and v["-O0"] > 0]
print(f"{len(kernels)} kernels measured under every pipeline ({failed} measurements failed)")
for p in pipes[1:]:
    ratios = sorted(((est[k][p] / est[k]["-O0"], k) for k in kernels), reverse=True)
    geo = math.exp(sum(math.log(r) for r, _ in ratios) / len(ratios))
    worse1 = sum(1 for r, _ in ratios if r > 1.01)
    worse2 = sum(1 for r, _ in ratios if r > 1.02)
    worst = ", ".join(f"{k} {r:.3f}" for r, k in ratios[:5])
    print(f"{p:<14} geomean {geo:.4f}  worse >1%: {worse1}  >2%: {worse2}  worst: {worst}")
EOF
