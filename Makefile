# Front door for newcomers and CI. Every target sets up what it needs first.
#   make demo   set up, build the tools, optimize the bundled example, check it with ptxrun, build it
#               with nvcc through ptxopt-ptxas, report (ptxopt-bench)
#   make test   set up, build, run every test (GCC build + ASan/UBSan build with the fuzz smoke run)
#   make bench  build and run the benchmarks
BUILD      ?= build
ASAN_BUILD ?= build-asan
JOBS       ?= $(shell nproc)
WERROR     ?= $(if $(CI),ON,OFF)
CMAKE_FLAGS ?=

# What `make demo` runs, and nothing else (the tests, the corpus and the benchmarks are not built).
DEMO_TOOLS = ptxopt ptxopt-ptxas ptxrun ptxopt-bench
NVCC       ?= $(shell command -v nvcc 2>/dev/null || (test -x /usr/local/cuda/bin/nvcc && echo /usr/local/cuda/bin/nvcc))

.PHONY: all setup build tools demo test test-gcc test-asan bench clean

all: build

setup:
	@scripts/setup.sh

# CI builds everything once, from scratch: CMake's unity build (eight sources to a translation
# unit) and, for the GCC build, -O2 without debug information (RelWithDebInfo's code). That
# halves the compile time (docs/TESTING.md, "CI's time"). Other builds stay one object per
# source, for quick rebuilds after an edit.
CI_UNITY   = $(if $(CI),-DCMAKE_UNITY_BUILD=ON)
CI_RELEASE = $(if $(CI),-DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG")

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja -DPTXOPT_WERROR=$(WERROR) $(CI_UNITY) $(CI_RELEASE) $(CMAKE_FLAGS)

build: setup $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

tools: setup $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS) --target $(DEMO_TOOLS)

demo: tools
	$(BUILD)/ptxopt examples/demo.ptx -o $(BUILD)/demo.opt.ptx --verify --stats
	@echo "wrote $(BUILD)/demo.opt.ptx"
	@if [ -x /usr/local/cuda/bin/ptxas ]; then \
	  /usr/local/cuda/bin/ptxas -arch=sm_90 $(BUILD)/demo.opt.ptx -o $(BUILD)/demo.opt.cubin && \
	  echo "ptxas accepts $(BUILD)/demo.opt.ptx"; \
	else echo "SKIPPED: ptxas not found, output not assembled"; fi
	$(BUILD)/ptxrun --launch examples/demo.json examples/demo.ptx --check-races --compare $(BUILD)/demo.opt.ptx
	@# ptxopt in a build by one setting: nvcc's ptxas calls go through ptxopt-ptxas (docs/PTXOPT_PTXAS.md).
	@if [ -n "$(NVCC)" ]; then \
	  echo "nvcc --ptxas-prefix=$(BUILD)/ptxopt-ptxas -arch=sm_90 -cubin examples/demo.cu -o $(BUILD)/demo.cubin"; \
	  PTXOPT_VERBOSE=1 $(NVCC) --ptxas-prefix=$(abspath $(BUILD))/ptxopt-ptxas -arch=sm_90 -cubin examples/demo.cu \
	    -o $(BUILD)/demo.cubin && echo "nvcc built $(BUILD)/demo.cubin through ptxopt-ptxas"; \
	else echo "SKIPPED: nvcc not found, the nvcc build through ptxopt-ptxas not shown"; fi
	@# The report: emulator figures, SASS census and estimated dynamic SASS, -O0 against -O1 and -O2.
	$(BUILD)/ptxopt-bench --pipelines=-O0,-O1,-O2 examples -o $(BUILD)/demo-report
	@cat $(BUILD)/demo-report/summary.md
	@echo "open $(BUILD)/demo-report/index.html for the charts and the CFG pictures"

test: test-gcc test-asan
	@python3 scripts/test_summary.py $(BUILD) $(ASAN_BUILD)

test-gcc: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) --output-junit test-results/ctest.xml

# Clang with AddressSanitizer and UndefinedBehaviorSanitizer, plus the libFuzzer smoke run.
# It reuses the corpus and the reference programs that the GCC build compiled.
$(ASAN_BUILD)/build.ninja: | $(BUILD)/build.ninja
	CC=clang-14 CXX=clang++-14 cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug \
	  -DPTXOPT_WERROR=$(WERROR) -DPTXOPT_SANITIZE=address,undefined -DPTXOPT_FUZZ=ON \
	  -DPTXOPT_BUILD_BENCH=OFF -DPTXOPT_CORPUS_DIR=$(abspath $(BUILD))/corpus \
	  -DPTXOPT_REFERENCE=$(abspath $(BUILD))/tests/emu/ptxopt_reference $(CI_UNITY) $(CMAKE_FLAGS)

test-asan: build $(ASAN_BUILD)/build.ninja
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ctest --output-on-failure -j $(JOBS) --output-junit test-results/ctest.xml

bench: build
	cmake --build $(BUILD) --target bench_parse_print
	$(BUILD)/bench/bench_parse_print
	@# Code quality of the corpus at -O0, -O1, -O2 (docs/QUALITY.md); the report is in $(BUILD)/quality-report.
	$(BUILD)/ptxopt-bench --pipelines=-O0,-O1,-O2 --specs tests/emu/specs $(BUILD)/corpus/nvcc-sm90 -o $(BUILD)/quality-report

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
