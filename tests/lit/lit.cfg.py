# lit configuration of ptxopt's FileCheck tests. Run through CTest (`ctest -R lit`), which
# passes the generated site configuration as `--param site=...`.
import os

import lit.formats

site = lit_config.params.get("site") or os.environ.get("PTXOPT_LIT_SITE")
if not hasattr(config, "ptxopt_bin_dir"):
    if not site:
        lit_config.fatal("run the lit tests through ctest, or pass --param site=BUILD/tests/lit/lit.site.cfg.py")
    lit_config.load_config(config, site)

config.name = "ptxopt"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".ptx", ".test"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)

path = [config.ptxopt_bin_dir, config.llvm_tools_dir, config.environment.get("PATH", os.environ.get("PATH", ""))]
config.environment["PATH"] = os.pathsep.join(path)

for var in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"):
    if var in os.environ:
        config.environment[var] = os.environ[var]

config.substitutions.append(("%ptxopt", os.path.join(config.ptxopt_bin_dir, "ptxopt")))
config.substitutions.append(("%ptxrun", os.path.join(config.ptxopt_bin_dir, "ptxrun")))
config.substitutions.append(("%ptxfuzz", os.path.join(config.ptxopt_bin_dir, "ptxfuzz")))
config.substitutions.append(("%ptxopt-bench", os.path.join(config.ptxopt_bin_dir, "ptxopt-bench")))

import shutil

# Tests declare the tools they need (REQUIRES: ptxas, REQUIRES: dot); without the tool lit
# reports them UNSUPPORTED, never passed. Under CI every tool is installed by the setup, so a
# missing one is an error rather than a silent skip.
missing = []
if shutil.which("dot"):
    config.available_features.add("dot")
else:
    missing.append("Graphviz 'dot' (tests with REQUIRES: dot)")
if config.ptxas and os.path.exists(config.ptxas):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", config.ptxas))
else:
    missing.append("ptxas (tests with REQUIRES: ptxas)")
# nvcc builds the executables whose fat binaries the tests of tests/lit/cudart read.
nvcc = getattr(config, "nvcc", "")
if nvcc and os.path.exists(nvcc):
    config.available_features.add("nvcc")
    config.substitutions.append(("%nvcc", nvcc))
else:
    missing.append("nvcc (tests with REQUIRES: nvcc)")
# A shared library that is not a CUDA runtime (exec-compare.test: a program that does not load
# the stand-in).
import ctypes.util
libm = ctypes.util.find_library("m")
for d in ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64"):
    if libm and os.path.exists(os.path.join(d, libm)):
        config.substitutions.append(("%libm", os.path.join(d, libm)))
        break
# ptxrun's libcudart.so.13 (built where the CUDA headers are): `ptxrun exec` and LD_PRELOAD.
shim = os.path.join(config.ptxopt_bin_dir, "cudart", "libcudart.so.13")
if os.path.exists(shim):
    config.available_features.add("cudart-shim")
    config.substitutions.append(("%cudart_shim", shim))
elif getattr(config, "sanitize", ""):
    # A sanitizer build has none: an instrumented shared library cannot be loaded into the
    # uninstrumented programs nvcc builds. Its tests are left out here (not reported as skipped:
    # the GCC build runs them).
    # (lit matches the names of files and directories: "programs" is the directory programs/.)
    # Every cudart/exec-*.test runs a program under ptxrun exec.
    exec_tests = sorted(f for f in os.listdir(os.path.join(config.test_source_root, "cudart")) if f.startswith("exec-"))
    exec_tests.append("bench-program.test")
    config.excludes = list(config.excludes) + exec_tests + ["programs"]
    lit_config.note("SKIPPED: cudart/" + ", ".join(exec_tests) + " and programs/ in a sanitizer build, which builds "
                    "no libcudart.so.13 (the GCC build runs them)")
else:
    missing.append("ptxrun's libcudart.so.13 (tests with REQUIRES: cudart-shim)")
# The reducer under ASan/UBSan at -O0 takes 98 s of the sanitizer build's lit run (5 s in the
# GCC build): reduce-planted-bug.test is the GCC build's; find-planted-bug.test runs in both.
if getattr(config, "sanitize", ""):
    config.excludes = list(config.excludes) + ["reduce-planted-bug.test"]
    lit_config.note("SKIPPED: fuzz/reduce-planted-bug.test in a sanitizer build (98 s there; the GCC build runs it)")
# nvdisasm comes from the nvidia-cuda-nvdisasm wheel in the project's .venv (scripts/setup.sh).
nvdisasm = shutil.which("nvdisasm") or os.path.join(config.ptxopt_src_root, ".venv", "bin", "nvdisasm")
if os.path.exists(nvdisasm) and "ptxas" in config.available_features:
    config.available_features.add("nvdisasm")
    config.substitutions.append(("%nvdisasm", nvdisasm))
else:
    missing.append("nvdisasm or ptxas (tests with REQUIRES: nvdisasm; scripts/setup.sh installs nvdisasm into .venv)")
for what in missing:
    if os.environ.get("CI"):
        lit_config.fatal("CI: %s not found; those tests would be skipped" % what)
    lit_config.warning("SKIPPED: %s not found; those tests are UNSUPPORTED" % what)

# A file lit would not run is a test that passes by accident: everything under the test tree is
# a test (.ptx, .test), an input (Inputs/) or the configuration.
stray = []
for root, dirs, files in os.walk(config.test_source_root):
    dirs[:] = [d for d in dirs if d not in ("Inputs", "Output", "__pycache__")]
    for name in files:
        if not (name.endswith(".ptx") or name.endswith(".test") or name.startswith("lit.")):
            stray.append(os.path.relpath(os.path.join(root, name), config.test_source_root))
if stray:
    lit_config.fatal("files under tests/lit that are neither tests nor inputs (move them to Inputs/ or delete them): " +
                     ", ".join(sorted(stray)[:10]) + (" ..." if len(stray) > 10 else ""))
