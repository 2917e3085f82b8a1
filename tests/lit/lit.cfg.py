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

import shutil
if shutil.which("dot"):
    config.available_features.add("dot")
else:
    lit_config.warning("Graphviz 'dot' not found: the svg picture test is SKIPPED (UNSUPPORTED)")

# ptxas checks run when ptxas is installed; otherwise the check prints SKIPPED and why.
if config.ptxas and os.path.exists(config.ptxas):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", config.ptxas))
else:
    lit_config.warning("ptxas not found: every 'ptxas accepts the output' check is SKIPPED")
    config.substitutions.append(("%ptxas", "echo SKIPPED: ptxas not found, not checking"))
