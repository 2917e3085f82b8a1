// libcudart.so.13 in place of NVIDIA's: the CUDA runtime API of an unmodified program (built
// with `nvcc -cudart shared`) over ptxrun's emulated device (issue #33, docs/CUDART.md).
//
// The program's start-up code registers each .cu file's fat binary: the PTX entry of the highest
// architecture ptxrun runs is parsed, verified and loaded on one process-wide emu::Device, and
// the host addresses nvcc gives kernels and __device__/__constant__ variables are mapped to
// their names. Device pointers are the device's addresses (not host memory: a host dereference
// faults, as with a GPU). Launches run to completion when they are made, in order: streams and
// events keep their order trivially. A kernel's fault is reported at once on stderr (kernel,
// launch, where) and returned by the next synchronizing call, after which every call returns it
// (CUDA's sticky errors).
//
// Environment (set by `ptxrun exec`, or by hand): PTXRUN_JOBS (host threads for a launch's
// CTAs, default all cores), PTXRUN_VERBOSE=1 (a line per registration and launch on stderr),
// PTXRUN_PASSES (a pipeline, "-O3" or "pass,pass,...": each module is optimized by ptxopt when
// it is registered, and the optimized module runs), PTXRUN_PROFILE_USE (a branch profile the
// passes' cost models read, e.g. one PTXRUN_PROFILE_OUT wrote), PTXRUN_PROFILE_OUT (one branch
// profile over every launch of the run, written at exit, for `ptxopt --profile-use`),
// PTXRUN_COMPARE=1 (with PTXRUN_PASSES: every launch also runs on the optimized module, on a
// second device kept in step, and the first difference in memory or printf output stops the
// program with exit status 5), PTXRUN_METRICS (a JSON file written at exit: each module's text
// as it ran and hash, and per kernel its launches and dynamic figures, in total and by PTX line),
// PTXRUN_CHECK_RACES=1 (every launch checked for races; each is reported on stderr, and the
// number of racy launches is written at exit to PTXRUN_REPORT when set), PTXRUN_REPORT (a file
// `ptxrun exec` reads afterwards: "stand-in" when this library is loaded, then racy-launches).
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "../common/MetricsJson.h"
#include "../common/PipelineFlags.h"
#include "ptxopt/analysis/Profile.h"
#include "ptxopt/cudart/Fatbin.h"
#include "ptxopt/emu/Device.h"
#include "ptxopt/emu/TensorMap.h"
#include "ptxopt/passes/Pass.h"
#include "ptxopt/passes/PassManager.h"
#include "ptxopt/ptx/Parser.h"
#include "ptxopt/ptx/Printer.h"
#include "ptxopt/support/File.h"

namespace {

using ptxopt::emu::Device;

// The exit status of a program that --compare stopped.
constexpr int kCompareExit = 5;

class Runtime;
Runtime& rt();

// A line for `ptxrun exec` in PTXRUN_REPORT (appended: the program may be several processes).
void report(const std::string& line) {
  const char* path = std::getenv("PTXRUN_REPORT");
  if (!path || !*path) return;
  if (FILE* f = std::fopen(path, "a")) {
    std::fprintf(f, "%s\n", line.c_str());
    std::fclose(f);
  }
}

// `ptxrun exec` learns that the program loaded this library, not another libcudart.
__attribute__((constructor)) void announce() { report("stand-in"); }

// The highest PTX architecture the emulator runs (an sm_90 device).
constexpr uint32_t kMaxArch = 90;

// What a fat binary handle (the `void**` the program keeps) stands for.
struct FatbinHandle {
  void* slot = nullptr;  // first: the handle is its address
  int module = -1;       // -1: the module could not be loaded (the reason was printed)
  bool noImage = false;  // ... because it holds no PTX ptxrun runs (cubins only, -rdc)
  std::string name;
};

struct Kernel {
  int module = -1;
  bool noImage = false;  // its fat binary holds no PTX ptxrun runs
  std::string name;
  const void* hostFun = nullptr;
  // Dynamic shared memory a launch may ask for: 48 KiB unless cudaFuncSetAttribute raised it.
  size_t maxDynamicShared = 48 << 10;
};

// The most dynamic shared memory cudaFuncSetAttribute may allow (an H100's opt-in limit).
constexpr size_t kMaxDynamicSharedOptin = 227 << 10;

struct Variable {
  int module = -1;
  std::string name;
  size_t size = 0;
};

struct LaunchConfig {
  dim3 grid, block;
  size_t shared = 0;
  void* stream = nullptr;
};

struct Event {
  std::chrono::steady_clock::time_point at{};
  bool recorded = false;
};

class Runtime {
 public:
  Runtime() {
    if (const char* j = std::getenv("PTXRUN_JOBS")) jobs_ = static_cast<unsigned>(std::max(1L, std::strtol(j, nullptr, 10)));
    else jobs_ = std::max(1u, std::thread::hardware_concurrency());
    const char* v = std::getenv("PTXRUN_VERBOSE");
    verbose_ = v && *v && std::strcmp(v, "0") != 0;
    if (const char* p = std::getenv("PTXRUN_LOC_SELF"); p && *p && std::strcmp(p, "0") != 0) locSelf_ = true;
    if (const char* p = std::getenv("PTXRUN_PASSES"); p && *p) configurePasses(p, std::getenv("PTXRUN_KNOBS"));
    if (const char* p = std::getenv("PTXRUN_PROFILE_USE"); p && *p) profileUse_ = p;
    if (const char* p = std::getenv("PTXRUN_COMPARE"); p && *p && std::strcmp(p, "0") != 0) {
      if (passes_) {
        shadow_ = std::make_unique<Device>(/*mapHostMemory=*/false);
        std::atexit([] {
          Runtime& r = rt();
          std::lock_guard<std::mutex> g(r.mu);
          warn("--compare: " + std::to_string(r.compared) + " launch(es) of the modules " + r.passesText_ +
               " made left the same memory and output as the modules as built");
        });
      }
      else warn("PTXRUN_COMPARE needs PTXRUN_PASSES (what would it compare?); the program runs without it");
    }
    if (const char* p = std::getenv("PTXRUN_METRICS"); p && *p) {
      metricsOut_ = p;
      std::atexit([] { rt().writeMetrics(); });
    }
    if (const char* p = std::getenv("PTXRUN_CHECK_RACES"); p && *p && std::strcmp(p, "0") != 0) {
      checkRaces_ = true;
      strictRaces_ = std::strcmp(p, "strict") == 0;
      std::atexit([] {
        Runtime& r = rt();
        std::lock_guard<std::mutex> g(r.mu);
        std::string notes = r.sameValueRaces_ ? " (" + std::to_string(r.sameValueRaces_) + " same-value write race(s) noted" +
                                                    (r.strictRaces_ ? ", counted: strict)" : ")")
                                              : "";
        warn(r.racyLaunches_ ? "--check-races: " + std::to_string(r.racyLaunches_) + " of " + std::to_string(r.launches) +
                                   " launch(es) had races (above)" + notes
                             : "--check-races: no races in " + std::to_string(r.launches) + " launch(es)" + notes);
        // For ptxrun exec, which exits 4 when the program succeeded after races.
        report("racy-launches " + std::to_string(r.racyLaunches_));
      });
    }
    if (const char* p = std::getenv("PTXRUN_PROFILE_OUT"); p && *p && passes_) {
      warn("PTXRUN_PROFILE_OUT is ignored with PTXRUN_PASSES: a profile describes the program as it was built");
    } else if (p && *p) {
      profileOut_ = p;
      std::atexit([] { rt().writeProfile(); });
    }
  }

  // The branch profile of every launch so far into PTXRUN_PROFILE_OUT: per module (named by its
  // text hash), merged by (function, line).
  void writeProfile() {
    std::lock_guard<std::mutex> g(mu);
    std::vector<ptxopt::BranchProfile> all;
    for (auto& [id, p] : profiles_) all.push_back(p);
    std::string error;
    if (!ptxopt::writeFile(profileOut_, ptxopt::branchProfilesJson(all, "(every module of the program)", "(every kernel launched)"), error))
      warn(error);
    else log("wrote the branch profile of " + std::to_string(launches) + " launch(es) to " + profileOut_);
  }

  // PTXRUN_METRICS: every module as it ran, and per kernel its launches and dynamic figures.
  void writeMetrics() {
    std::lock_guard<std::mutex> g(mu);
    nlohmann::ordered_json j;
    j["format"] = "ptxrun-exec-metrics";
    j["version"] = 1;
    j["passes"] = passesText_.empty() ? "(none: the modules as built)" : passesText_;
    j["launches"] = launches;
    j["modules"] = nlohmann::ordered_json::array();
    for (const ModuleRecord& m : records_) {
      nlohmann::ordered_json r = {{"name", m.name}, {"hash", m.hash}, {"ptx", m.text}};
      if (!passesText_.empty()) r["optimized"] = m.optimized;  // false: the passes failed and it ran as built
      j["modules"].push_back(r);
    }
    j["kernels"] = nlohmann::ordered_json::array();
    ptxopt::emu::Metrics total;
    for (const auto& [key, f] : figures_) {
      nlohmann::ordered_json k;
      k["module"] = records_[size_t(key.first)].name;
      k["kernel"] = key.second;
      k["launches"] = f.launches;
      k["warps"] = f.warps;
      nlohmann::json figures = ptxopt::tools::metricsJson(f.metrics, /*perLine=*/true);
      for (auto& [name, v] : figures.items()) k[name] = v;
      j["kernels"].push_back(k);
      total.add(f.metrics);
    }
    j["total"] = ptxopt::tools::metricsJson(total, /*perLine=*/false);
    std::string error;
    if (!ptxopt::writeFile(metricsOut_, j.dump(1) + "\n", error)) warn(error);
    else log("wrote the metrics of " + std::to_string(launches) + " launch(es) to " + metricsOut_);
  }

  // PTXRUN_PASSES: "-O0".."-O3" or a comma list of passes; PTXRUN_KNOBS: a comma list of
  // PASS.KNOB=VALUE. A pipeline that does not configure is reported and the modules run as they
  // are.
  void configurePasses(std::string_view text, const char* knobs) {
    ptxopt::PassManagerOptions o;
    if (text.size() == 3 && text[0] == '-' && text[1] == 'O' && text[2] >= '0' && text[2] <= '3') {
      for (std::string_view n : ptxopt::pipelineForLevel(unsigned(text[2] - '0'))) o.pipeline.emplace_back(n);
    } else {
      o.pipeline = ptxopt::splitList(text);
    }
    for (const std::string& kv : ptxopt::splitList(knobs ? knobs : "")) {
      size_t eq = kv.find('=');
      if (eq == std::string::npos || kv.find('.') > eq) {
        warn("PTXRUN_KNOBS: '" + kv + "' is not PASS.KNOB=VALUE; it is left out");
        continue;
      }
      o.knobs[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    std::string error;
    passes_ = std::make_unique<ptxopt::PassManager>();
    if (!passes_->configure(o, error)) {
      warn("PTXRUN_PASSES=" + std::string(text) + ": " + error + "; the modules run unoptimized");
      passes_.reset();
    }
    passesText_ = text;
  }

  std::mutex mu;
  Device device;
  std::deque<FatbinHandle> fatbins;
  std::vector<std::unique_ptr<ptxopt::Module>> modules;  // by module id
  std::deque<Kernel> kernels;
  std::unordered_map<const void*, Kernel*> kernelByHostFun;
  std::unordered_map<const void*, Variable> variables;
  std::vector<LaunchConfig> configs;
  std::deque<Event> events;
  std::map<const void*, size_t> hostAllocations;  // cudaMallocHost/cudaHostAlloc: address -> size
  std::set<std::string> unsupportedSeen;  // API functions reported as not implemented
  // CUDA arrays (cudaMallocArray, cudaMalloc3DArray): an allocation of packed rows of `width`
  // elements, `height` rows per slice, `depth` slices; the cudaArray_t is its device address.
  struct ArrayRec {
    cudaChannelFormatDesc desc{};
    size_t width = 0, height = 0, depth = 0;  // as asked (0: the dimension is absent)
    unsigned flags = 0;
    size_t elemBytes() const { return size_t(desc.x + desc.y + desc.z + desc.w) / 8; }
    size_t rowBytes() const { return width * elemBytes(); }
    size_t rows() const { return std::max<size_t>(height, 1); }
    size_t slices() const { return std::max<size_t>(depth, 1); }
  };
  std::map<uint64_t, ArrayRec> arrays;
  // Texture objects: what the program described, by handle.
  struct TextureRec {
    cudaResourceDesc res{};
    cudaTextureDesc tex{};
    cudaResourceViewDesc view{};
    bool hasView = false;
  };
  std::map<uint64_t, TextureRec> textures;
  uint64_t createTexture(const ptxopt::emu::TextureDesc& d, std::string& e) {
    uint64_t h = device.createTexture(d, e);
    if (h && shadow_) {
      std::string e2;
      if (shadow_->createTexture(d, e2) != h) {
        warn("--compare: the optimized run's device cannot create texture " + std::to_string(h) + " alike; --compare stops");
        stopComparing();
      }
    }
    return h;
  }
  bool destroyTexture(uint64_t h) {
    if (shadow_) shadow_->destroyTexture(h);
    return device.destroyTexture(h);
  }
  unsigned deviceFlags = 0;
  // cudaDeviceSetLimit/GetLimit: an H100's defaults (the emulator does not enforce them).
  std::map<cudaLimit, size_t> limits = {{cudaLimitStackSize, 1024},
                                        {cudaLimitPrintfFifoSize, 1 << 20},
                                        {cudaLimitMallocHeapSize, 8 << 20},
                                        {cudaLimitDevRuntimeSyncDepth, 2},
                                        {cudaLimitDevRuntimePendingLaunchCount, 2048},
                                        {cudaLimitMaxL2FetchGranularity, 32},
                                        {cudaLimitPersistingL2CacheSize, 0}};
  bool isHostAllocation(const void* p) const {
    auto it = hostAllocations.upper_bound(p);
    if (it == hostAllocations.begin()) return false;
    --it;
    return reinterpret_cast<uintptr_t>(p) - reinterpret_cast<uintptr_t>(it->first) < it->second;
  }
  cudaError_t lastError = cudaSuccess;  // what cudaGetLastError returns and clears
  cudaError_t sticky = cudaSuccess;     // a kernel fault: every later call returns it
  uint64_t launches = 0, mallocs = 0;  // numbered from 1, for messages
  uint64_t compared = 0;               // launches --compare found the same
  unsigned jobs_ = 1;
  bool verbose_ = false;
  std::unique_ptr<ptxopt::PassManager> passes_;
  // PTXRUN_COMPARE: a second device that runs the optimized modules, in step with `device`.
  std::unique_ptr<Device> shadow_;
  std::vector<std::unique_ptr<ptxopt::Module>> shadowModules;
  std::string passesText_, profileUse_, profileOut_, metricsOut_;
  std::map<int, ptxopt::BranchProfile> profiles_;  // PTXRUN_PROFILE_OUT: by module id, merged over launches
  // Each loaded module (by id): its name, the hash of the text nvcc embedded, and the text that
  // runs (the optimized module's printed text with PTXRUN_PASSES and without PTXRUN_COMPARE).
  struct ModuleRecord {
    std::string name, hash, text;
    bool optimized = false;  // the text is the passes' output
  };
  std::vector<ModuleRecord> records_;
  // PTXRUN_METRICS: by (module id, kernel).
  struct KernelFigures {
    uint64_t launches = 0, warps = 0;  // warps: launched, over every launch
    ptxopt::emu::Metrics metrics;
  };
  std::map<std::pair<int, std::string>, KernelFigures> figures_;
  bool checkRaces_ = false, strictRaces_ = false;  // strict: same-value write races count too
  bool locSelf_ = false;                            // PTXRUN_LOC_SELF
  uint64_t racyLaunches_ = 0, sameValueRaces_ = 0;

  // Records `e` as the last error and returns it.
  cudaError_t fail(cudaError_t e) {
    if (e != cudaSuccess) lastError = e;
    return e;
  }
  // The result of a call that synchronizes: a pending fault first.
  cudaError_t sync() { return sticky != cudaSuccess ? fail(sticky) : cudaSuccess; }

  void log(const std::string& s) const {
    if (verbose_) std::fprintf(stderr, "ptxrun: %s\n", s.c_str());
  }
  static void warn(const std::string& s) { std::fprintf(stderr, "ptxrun: %s\n", s.c_str()); }

  FatbinHandle* handleOf(void** h) { return reinterpret_cast<FatbinHandle*>(h); }

  void** registerFatbin(const void* wrapper) {
    FatbinHandle& h = fatbins.emplace_back();
    h.name = "fat binary #" + std::to_string(fatbins.size() - 1);
    load(wrapper, h);
    return &h.slot;
  }

  void load(const void* wrapper, FatbinHandle& h) {
    struct Wrapper {
      uint32_t magic, version;
      const uint8_t* data;
      const void* extra;
    };
    const auto* w = static_cast<const Wrapper*>(wrapper);
    if (!w || w->magic != ptxopt::cudart::kFatbinWrapperMagic || !w->data) {
      warn(h.name + ": not a fat binary wrapper (magic " + (w ? std::to_string(w->magic) : "none") + "): its kernels cannot run");
      return;
    }
    // The image's own header gives its size.
    uint64_t entries = 0;
    std::memcpy(&entries, w->data + 8, 8);
    std::span<const uint8_t> bytes(w->data, ptxopt::cudart::kFatbinImageHeaderSize + entries);
    std::vector<ptxopt::cudart::FatbinImage> images(1);  // choosePtxEntry's entry points into it
    const ptxopt::cudart::FatbinImage& image = images[0];
    std::string error;
    if (!ptxopt::cudart::parseFatbinImage(bytes, images[0], error)) {
      warn(h.name + ": " + error);
      return;
    }
    const ptxopt::cudart::FatbinEntry* e = ptxopt::cudart::choosePtxEntry(images, kMaxArch);
    if (!e) {
      const ContainerFile* file = containerOf(w->data);
      if (file && file->relocatable)
        warn(h.name + ": " + file->path + " was built with relocatable device code (-rdc=true or -dc): its fat binary is "
             "nvlink's device-linked cubin, and ptxrun runs PTX, one .cu file at a time, without linking device code "
             "across files: its kernels cannot run (cudaErrorNoKernelImageForDevice). Rebuild without -rdc=true/-dc.");
      else
        warn(h.name + ": the fat binary holds no PTX for sm_" + std::to_string(kMaxArch) +
             " or below (only cubins, or PTX for a newer architecture): its kernels cannot run "
             "(cudaErrorNoKernelImageForDevice). Build with -gencode arch=compute_90,code=compute_90 (or any "
             "compute_XX up to 90).");
      h.noImage = true;
      return;
    }
    std::string text;
    if (!ptxopt::cudart::entryPtx(*e, text, error)) {
      warn(h.name + ": " + error);
      return;
    }
    h.name = entryFileName(w->data, image, *e, fatbins.size() - 1);
    ptxopt::DiagEngine diags;
    std::unique_ptr<ptxopt::Module> m = ptxopt::loadModule(text, h.name, diags);
    if (!m) {
      warn(h.name + ": the embedded PTX does not load:\n" + diags.str());
      return;
    }
    // With PTXRUN_COMPARE the device runs the module as built and the shadow device the
    // optimized one; otherwise the optimized module is the one that runs.
    std::string optimizedText;
    std::unique_ptr<ptxopt::Module> optimized = passes_ ? optimize(text, h.name, optimizedText) : nullptr;
    std::string hash = ptxopt::ptxTextHash(text);
    bool ranOptimized = optimized && !shadow_;
    if (ranOptimized) {
      m = std::move(optimized);
      text = std::move(optimizedText);
    }
    int id = device.load(*m, h.name, error);
    if (id < 0) {
      warn(h.name + ": " + error);
      return;
    }
    if (shadow_) {
      int twin = shadow_->load(optimized ? *optimized : *m, h.name + " (optimized)", error);
      if (twin != id) {
        warn(h.name + " (optimized): " + (twin < 0 ? error : "loaded as another module") + "; --compare stops");
        stopComparing();
      }
      if (shadowModules.size() <= size_t(id)) shadowModules.resize(size_t(id) + 1);
      shadowModules[size_t(id)] = std::move(optimized);
    }
    if (modules.size() <= size_t(id)) modules.resize(size_t(id) + 1);
    modules[size_t(id)] = std::move(m);
    if (records_.size() <= size_t(id)) records_.resize(size_t(id) + 1);
    records_[size_t(id)] = {h.name, hash, std::move(text), ranOptimized};
    h.module = id;
    log("loaded " + h.name + " (" + std::to_string(records_[size_t(id)].text.size()) + " bytes of PTX, text hash " + hash + ")");
  }

  // The module `text` holds, optimized with PTXRUN_PASSES (and PTXRUN_PROFILE_USE's entries for
  // its functions), as parsed back from its printed text `printed` (so that lines in messages and
  // metrics are the printed text's); nullptr, with a message, when the passes fail (the module
  // then runs as built).
  std::unique_ptr<ptxopt::Module> optimize(const std::string& text, const std::string& name, std::string& printed) {
    ptxopt::DiagEngine diags;
    std::unique_ptr<ptxopt::Module> m = ptxopt::loadModule(text, name, diags);
    if (!m) return nullptr;
    ptxopt::BranchProfile profile;
    if (!profileUse_.empty()) {
      std::string warnings, error;
      if (!ptxopt::tools::loadProfile(profileUse_, *m, text, name, /*onlyFunctionsOf=*/true, profile, warnings, error)) {
        warn(error + "; " + name + " is optimized without a profile");
        profile = {};
      } else if (!warnings.empty()) {
        warn(warnings);
      }
    }
    passes_->setProfile(profileUse_.empty() ? nullptr : &profile);
    ptxopt::PassRunResult pr = passes_->run(*m, diags);
    passes_->setProfile(nullptr);
    if (!pr.ok || diags.hasErrors()) {
      warn(name + ": " + passesText_ + " failed; the module runs unoptimized:\n" + diags.str());
      return nullptr;
    }
    log("optimized " + name + " with " + passesText_ +
        (profileUse_.empty() ? "" : " and " + std::to_string(profile.branches.size()) + " profiled branch(es)"));
    // PTXRUN_LOC_SELF: with `.loc` lines naming the printed text's own lines (ptxopt
    // --loc-self), so that ptxas -lineinfo ties SASS to the lines the metrics count.
    ptxopt::PrintOptions po;
    if (locSelf_) po.locSelf = name;
    printed = ptxopt::printModule(*m, po);
    std::unique_ptr<ptxopt::Module> back = ptxopt::loadModule(printed, name + " (" + passesText_ + ")", diags);
    if (!back) warn(name + ": the text " + passesText_ + " printed does not load back; the module runs unoptimized:\n" + diags.str());
    return back;
  }

  // The executable or shared library that holds `data` (as dladdr names it), read once.
  struct ContainerFile {
    std::string path, bytes;
    std::vector<ptxopt::cudart::FatbinImage> images;
    bool relocatable = false;  // built with relocatable device code: nvcc's __nv_relfatbin section
  };
  std::map<std::string, ContainerFile> files_;  // by path

  const ContainerFile* containerOf(const void* data) {
    Dl_info info;
    if (!dladdr(data, &info) || !info.dli_fname) return nullptr;
    std::string path = info.dli_fname;
    if (path.empty()) {  // the main program
      char self[4096];
      ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
      path = n > 0 ? std::string(self, size_t(n)) : "/proc/self/exe";
    }
    auto [it, fresh] = files_.try_emplace(path);
    ContainerFile& f = it->second;
    if (fresh) {
      f.path = path;
      std::string error;
      if (ptxopt::readFile(path, f.bytes, error)) {
        std::span<const uint8_t> file(reinterpret_cast<const uint8_t*>(f.bytes.data()), f.bytes.size());
        ptxopt::cudart::findFatbinImages(file, f.images, error);
        std::vector<ptxopt::cudart::ElfSection> sections;
        if (ptxopt::cudart::elfSections(file, sections, error))
          for (const auto& sec : sections) f.relocatable |= sec.name == "__nv_relfatbin";
      }
    }
    return &f;
  }

  // The name of the PTX entry `e` of `image` (at `data` in memory): the one `ptxrun extract-ptx`
  // gives it, "<file>.<entry number>.sm_<arch>.ptx", where the file is the executable or shared
  // library that holds the image, so that file:line in messages names a file a user can extract;
  // "module<k>.sm_<arch>.ptx" when the image is not found in a file.
  std::string entryFileName(const void* data, const ptxopt::cudart::FatbinImage& image, const ptxopt::cudart::FatbinEntry& e,
                            size_t k) {
    std::string arch = ".sm_" + std::to_string(e.arch) + ".ptx";
    const ContainerFile* f = containerOf(data);
    if (!f) return "module" + std::to_string(k) + arch;
    size_t index = 0;
    for (const ptxopt::cudart::FatbinImage& candidate : f->images) {
      if (candidate.size == image.size && candidate.offset + image.size <= f->bytes.size() &&
          std::memcmp(f->bytes.data() + candidate.offset, data, image.size) == 0)
        return f->path.substr(f->path.find_last_of('/') + 1) + "." + std::to_string(index + size_t(&e - image.entries.data())) + arch;
      index += candidate.entries.size();
    }
    return "module" + std::to_string(k) + arch;
  }

  cudaError_t launch(const Kernel& k, dim3 grid, dim3 block, void** args, size_t shared) {
    if (sticky != cudaSuccess) return fail(sticky);
    if (k.module < 0) {
      warn("kernel '" + k.name + "' cannot run: its module did not load (see above)");
      return fail(k.noImage ? cudaErrorNoKernelImageForDevice : cudaErrorInvalidDeviceFunction);
    }
    if (shared > k.maxDynamicShared) {
      warn("launch of '" + k.name + "' asks for " + std::to_string(shared) + " bytes of dynamic shared memory, over its " +
           std::to_string(k.maxDynamicShared) + (k.maxDynamicShared == (48 << 10) ? " (raise it with cudaFuncSetAttribute)" : ""));
      return fail(cudaErrorInvalidValue);
    }
    std::vector<ptxopt::emu::ParamSlot> slots;
    uint64_t blockSize = 0;
    if (!device.kernelParams(k.module, k.name, slots, blockSize)) return fail(cudaErrorInvalidDeviceFunction);
    ptxopt::emu::DeviceLaunch l;
    l.kernel = k.name;
    l.grid = {grid.x, grid.y, grid.z};
    l.block = {block.x, block.y, block.z};
    l.dynamicShared = static_cast<uint32_t>(shared);
    l.params.assign(blockSize, 0);
    for (size_t i = 0; i < slots.size(); ++i) {
      if (!args || !args[i]) return fail(cudaErrorInvalidValue);
      std::memcpy(l.params.data() + slots[i].offset, args[i], slots[i].size);
    }
    ptxopt::emu::RunOptions o;
    o.jobs = jobs_;
    o.branchProfile = !profileOut_.empty();
    o.perLineMetrics = !metricsOut_.empty();
    o.checkRaces = checkRaces_;
    uint64_t n = launches + 1;  // a refused launch takes no number
    if (verbose_)  // built only when printed: a launch costs about 2 µs
      log("launch " + std::to_string(n) + ": " + k.name + " <<<(" + std::to_string(grid.x) + "," + std::to_string(grid.y) +
          "," + std::to_string(grid.z) + "), (" + std::to_string(block.x) + "," + std::to_string(block.y) + "," +
          std::to_string(block.z) + ")>>>");
    // The device checks the configuration (grid, block, shared memory, launch bounds).
    if (shadow_)  // host-mapped memory as the host left it
      for (auto [addr, size] : device.hostMappedAllocations())
        if (std::string e; !shadow_->write(addr, reinterpret_cast<const void*>(addr), size, e)) warn("--compare: " + e);
    ptxopt::emu::RunResult r = device.launch(k.module, l, o);
    if (!r.error.empty()) {
      warn(r.error + " (refused: cudaErrorInvalidConfiguration)");
      return fail(cudaErrorInvalidConfiguration);
    }
    launches = n;
    if (shadow_) compareLaunch(n, k, l, o, r);
    if (!r.stdoutText.empty()) {
      std::fwrite(r.stdoutText.data(), 1, r.stdoutText.size(), stdout);
      std::fflush(stdout);
    }
    if (o.branchProfile) {
      ptxopt::BranchProfile& p = profiles_[k.module];
      p.ptx = records_[size_t(k.module)].name;
      p.module = records_[size_t(k.module)].hash;
      for (auto& [key, counts] : ptxopt::profileFromOutcomes(*modules[size_t(k.module)], r.metrics.branchOutcomes).branches)
        p.branches[key].add(counts);
    }
    if (!metricsOut_.empty()) {
      KernelFigures& f = figures_[{k.module, k.name}];
      ++f.launches;
      f.warps += uint64_t{grid.x} * grid.y * grid.z * ((uint64_t{block.x} * block.y * block.z + 31) / 32);
      f.metrics.add(r.metrics);
    }
    bool racy = false;
    for (const ptxopt::emu::RaceReport& race : r.races) {
      bool counts = !race.sameValue || strictRaces_;
      racy |= counts;
      sameValueRaces_ += race.sameValue;
      warn(std::string(counts ? "" : "note: ") + "launch " + std::to_string(n) + " of '" + k.name + "': " +
           race.description + " (" + std::to_string(race.occurrences) + " time(s))");
    }
    racyLaunches_ += racy;
    if (!r.fault.empty()) {
      warn("kernel fault in launch " + std::to_string(n) + " of '" + k.name + "': " + r.fault);
      sticky = r.faultKind == ptxopt::emu::FaultKind::Address ? cudaErrorIllegalAddress : cudaErrorLaunchFailure;
    }
    return cudaSuccess;
  }

  // Memory operations on the device and, when comparing, the same on the shadow device (whose
  // allocations must land at the same addresses for the kernels' pointers to mean the same).
  // `hostMapped`: memory the host reaches at the device address too (cudaMallocManaged, and
  // cudaMallocHost/cudaHostAlloc, which kernels reach as under unified addressing). The shadow
  // device's twin is a plain allocation at the same address, refreshed from it before each
  // launch (the host writes it without calls).
  uint64_t allocate(uint64_t size, const std::string& name, bool hostMapped = false) {
    uint64_t a = hostMapped ? device.allocateHostMapped(size, name) : device.allocate(size, name);
    if (shadow_ && a && shadow_->allocateAt(a, size, name) != a) {
      warn("--compare: the optimized run's device cannot allocate " + name + " at the same address; --compare stops");
      stopComparing();
    }
    return a;
  }
  bool release(uint64_t addr) {
    if (shadow_) shadow_->release(addr);
    return device.release(addr);
  }
  bool write(uint64_t addr, const void* src, uint64_t n, std::string& e) {
    if (shadow_) shadow_->write(addr, src, n, e);
    return device.write(addr, src, n, e);
  }
  bool fill(uint64_t addr, uint8_t v, uint64_t n, std::string& e) {
    if (shadow_) shadow_->fill(addr, v, n, e);
    return device.fill(addr, v, n, e);
  }
  bool copyOnDevice(uint64_t dst, uint64_t src, uint64_t n, std::string& e) {
    if (shadow_) shadow_->copy(dst, src, n, e);
    return device.copy(dst, src, n, e);
  }

  // Ends the program for --compare (the lock is held: no exit handlers, which take it).
  [[noreturn]] static void stopComparing() {
    std::fflush(nullptr);
    std::_Exit(kCompareExit);
  }

  // --compare: the optimized module's run of the same launch, from the same memory, must leave
  // the same memory and print the same; the first difference stops the program.
  void compareLaunch(uint64_t n, const Kernel& k, const ptxopt::emu::DeviceLaunch& l, const ptxopt::emu::RunOptions& o,
                     const ptxopt::emu::RunResult& r) {
    ptxopt::emu::RunResult s = shadow_->launch(k.module, l, o);
    std::string what = "launch " + std::to_string(n) + " of '" + k.name + "'";
    std::string diff;
    if (r.fault.empty() != s.fault.empty() || !s.error.empty())
      diff = "the original " + (r.fault.empty() ? "ran" : "failed (" + r.fault + ")") + ", the optimized " +
             (s.fault.empty() && s.error.empty() ? "ran" : "failed (" + s.fault + s.error + ")");
    else if (r.stdoutText != s.stdoutText)
      diff = "the device printf output differs";
    else
      diff = device.firstDifference(*shadow_);
    if (diff.empty()) {
      ++compared;
      return;
    }
    warn("--compare: " + what + " differs between the module as built and the one " + passesText_ + " made: " + diff);
    stopComparing();
  }

  bool isDevice(const void* p) {
    uint8_t probe;
    std::string e;
    return p && device.read(reinterpret_cast<uint64_t>(p), &probe, 1, e);
  }

  cudaError_t copy(void* dst, const void* src, size_t n, cudaMemcpyKind kind) {
    if (sticky != cudaSuccess) return fail(sticky);
    if (n == 0) return cudaSuccess;
    if (!dst || !src) return fail(cudaErrorInvalidValue);
    if (kind == cudaMemcpyDefault) {
      bool d = isDevice(dst), s = isDevice(src);
      kind = d ? (s ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice) : (s ? cudaMemcpyDeviceToHost : cudaMemcpyHostToHost);
    }
    std::string e;
    bool ok = true;
    auto addr = [](const void* p) { return reinterpret_cast<uint64_t>(p); };
    switch (kind) {
      case cudaMemcpyHostToHost: std::memmove(dst, src, n); break;
      case cudaMemcpyHostToDevice: ok = write(addr(dst), src, n, e); break;
      case cudaMemcpyDeviceToHost: ok = device.read(addr(src), dst, n, e); break;
      case cudaMemcpyDeviceToDevice: ok = copyOnDevice(addr(dst), addr(src), n, e); break;
      default: return fail(cudaErrorInvalidMemcpyDirection);
    }
    if (!ok) {
      warn("cudaMemcpy: " + e);
      return fail(cudaErrorInvalidValue);
    }
    return cudaSuccess;
  }

  // cudaMemcpyToSymbol (toSymbol) and cudaMemcpyFromSymbol: `other` is the source or the
  // destination, host or device memory as `kind` says (cudaMemcpyDefault: looked up).
  cudaError_t symbolCopy(const void* hostVar, size_t offset, void* other, size_t count, cudaMemcpyKind kind, bool toSymbol) {
    if (sticky != cudaSuccess) return fail(sticky);
    uint64_t addr = 0, size = 0;
    if (cudaError_t e = symbol(hostVar, addr, size)) return e;
    if (offset > size || count > size - offset) return fail(cudaErrorInvalidValue);
    cudaMemcpyKind hostSide = toSymbol ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
    if (kind == cudaMemcpyDefault) kind = isDevice(other) ? cudaMemcpyDeviceToDevice : hostSide;
    if (kind != hostSide && kind != cudaMemcpyDeviceToDevice) return fail(cudaErrorInvalidMemcpyDirection);
    void* at = reinterpret_cast<void*>(addr + offset);
    return toSymbol ? copy(at, other, count, kind) : copy(other, at, count, kind);
  }

  // A registered variable's device address and size.
  cudaError_t symbol(const void* hostVar, uint64_t& addr, uint64_t& size) {
    auto it = variables.find(hostVar);
    if (it == variables.end() || it->second.module < 0) return fail(cudaErrorInvalidSymbol);
    if (!device.symbol(it->second.module, it->second.name, addr, size)) return fail(cudaErrorInvalidSymbol);
    return cudaSuccess;
  }
};

Runtime& rt() {
  static Runtime* r = new Runtime;  // never destroyed: programs call the API from their own destructors
  return *r;
}

// Records an error from a call that does not hold the runtime's lock.
cudaError_t fail(cudaError_t e) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  return r.fail(e);
}

// The answer of a query: `*out = value`, or cudaErrorInvalidValue without a place to put it.
cudaError_t answer(int* out, int value) {
  if (!out) return fail(cudaErrorInvalidValue);
  *out = value;
  return cudaSuccess;
}

}  // namespace

extern "C" {

// ---- registration (called by the code nvcc generates) -------------------------------------------

void** __cudaRegisterFatBinary(void* fatCubin) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  return r.registerFatbin(fatCubin);
}

void __cudaRegisterFatBinaryEnd(void**) {}

void __cudaUnregisterFatBinary(void**) {}

char __cudaInitModule(void**) { return 1; }

void __cudaRegisterFunction(void** handle, const char* hostFun, char*, const char* deviceName, int, uint3*, uint3*, dim3*,
                            dim3*, int*) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  Kernel& k = r.kernels.emplace_back();
  k.module = r.handleOf(handle)->module;
  k.noImage = r.handleOf(handle)->noImage;
  k.name = deviceName;
  k.hostFun = hostFun;
  r.kernelByHostFun[hostFun] = &k;
}

void __cudaRegisterVar(void** handle, char* hostVar, char*, const char* deviceName, int, size_t size, int, int) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  r.variables[hostVar] = Variable{r.handleOf(handle)->module, deviceName, size};
}

// A __managed__ variable: the host reaches it through *hostVarPtrAddress (nvcc rewrites each
// host use of the variable into a dereference of that pointer), set to the variable's device
// address, at which the device mapped its pages into the program.
void __cudaRegisterManagedVar(void** handle, void** hostVarPtrAddress, char*, const char* deviceName, int, size_t size,
                              int, int) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  int module = r.handleOf(handle)->module;
  r.variables[hostVarPtrAddress] = Variable{module, deviceName, size};
  uint64_t addr = 0, bytes = 0;
  if (module < 0 || !r.device.symbol(module, deviceName, addr, bytes)) return;  // the module's failure was reported
  if (!r.device.isHostMapped(addr, bytes)) {
    Runtime::warn(std::string("__managed__ variable '") + deviceName + "' could not be mapped into the program (no free "
                  "address at its device address): the host cannot reach it");
    return;
  }
  *hostVarPtrAddress = reinterpret_cast<void*>(addr);
}

unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem, struct CUstream_st* stream) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  r.configs.push_back({gridDim, blockDim, sharedMem, stream});
  return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3* gridDim, dim3* blockDim, size_t* sharedMem, void* stream) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  if (r.configs.empty()) return r.fail(cudaErrorMissingConfiguration);
  LaunchConfig c = r.configs.back();
  r.configs.pop_back();
  *gridDim = c.grid;
  *blockDim = c.block;
  *sharedMem = c.shared;
  *static_cast<void**>(stream) = c.stream;
  return cudaSuccess;
}

cudaError_t __cudaGetKernel(cudaKernel_t* kernel, const void* funcAddr) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  auto it = r.kernelByHostFun.find(funcAddr);
  if (it == r.kernelByHostFun.end()) return r.fail(cudaErrorInvalidDeviceFunction);
  *kernel = reinterpret_cast<cudaKernel_t>(it->second);
  return cudaSuccess;
}

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void** args, size_t sharedMem,
                               cudaStream_t) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  if (!kernel) return r.fail(cudaErrorInvalidDeviceFunction);
  return r.launch(*reinterpret_cast<const Kernel*>(kernel), gridDim, blockDim, args, sharedMem);
}

cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void** args, size_t sharedMem,
                                    cudaStream_t stream) {
  return __cudaLaunchKernel(kernel, gridDim, blockDim, args, sharedMem, stream);
}

// ---- launches --------------------------------------------------------------------------------------

cudaError_t cudaLaunchKernel(const void* func, dim3 gridDim, dim3 blockDim, void** args, size_t sharedMem, cudaStream_t) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  auto it = r.kernelByHostFun.find(func);
  if (it == r.kernelByHostFun.end()) return r.fail(cudaErrorInvalidDeviceFunction);
  return r.launch(*it->second, gridDim, blockDim, args, sharedMem);
}

cudaError_t cudaFuncSetAttribute(const void* func, cudaFuncAttribute attr, int value) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  auto it = r.kernelByHostFun.find(func);
  if (it == r.kernelByHostFun.end()) return r.fail(cudaErrorInvalidDeviceFunction);
  switch (attr) {
    case cudaFuncAttributeMaxDynamicSharedMemorySize:
      if (value < 0 || size_t(value) > kMaxDynamicSharedOptin) return r.fail(cudaErrorInvalidValue);
      it->second->maxDynamicShared = size_t(value);
      return cudaSuccess;
    case cudaFuncAttributePreferredSharedMemoryCarveout:
      // A hint about the L1/shared split, which the emulator does not have.
      return value >= -1 && value <= 100 ? cudaSuccess : r.fail(cudaErrorInvalidValue);
    default:
      Runtime::warn("cudaFuncSetAttribute: attribute " + std::to_string(int(attr)) + " is not supported by ptxrun");
      return r.fail(cudaErrorNotSupported);
  }
}

// What can be told of a kernel without ptxas: its static shared memory (every module-scope
// .shared variable, which any kernel of the module may use, and its own), its .local bytes, its
// thread limit (.maxntid/.reqntid, else 1024), the PTX's version, and as registers the PTX's
// virtual registers up to 255 (ptxas's allocation is not known here).
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, const void* func) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  if (!attr) return r.fail(cudaErrorInvalidValue);
  auto it = r.kernelByHostFun.find(func);
  if (it == r.kernelByHostFun.end() || it->second->module < 0) return r.fail(cudaErrorInvalidDeviceFunction);
  const Kernel& k = *it->second;
  const ptxopt::Module& m = *r.modules[size_t(k.module)];
  const ptxopt::Function* f = m.findFunction(k.name);
  if (!f) return r.fail(cudaErrorInvalidDeviceFunction);
  std::memset(attr, 0, sizeof *attr);
  for (const ptxopt::Variable& v : m.globals())
    if (ptxopt::isSharedSpace(v.space)) attr->sharedSizeBytes += v.sizeInBytes();
    else if (v.space == ptxopt::StateSpace::Const) attr->constSizeBytes += v.sizeInBytes();
  for (const ptxopt::Decl& d : f->decls())
    if (d.kind == ptxopt::Decl::Kind::Var && ptxopt::isSharedSpace(d.var.space)) attr->sharedSizeBytes += d.var.sizeInBytes();
    else if (d.kind == ptxopt::Decl::Kind::Var && d.var.space == ptxopt::StateSpace::Local) attr->localSizeBytes += d.var.sizeInBytes();
  ptxopt::LaunchBounds b = f->launchBounds();
  uint64_t limit = 1024;
  if (b.reqntid) limit = (*b.reqntid)[0] * (*b.reqntid)[1] * (*b.reqntid)[2];
  else if (b.maxntid) limit = std::min<uint64_t>(limit, (*b.maxntid)[0] * (*b.maxntid)[1] * (*b.maxntid)[2]);
  attr->maxThreadsPerBlock = int(limit);
  attr->numRegs = int(std::min<size_t>(255, f->regs().size()));
  attr->ptxVersion = int(m.versionMajor * 10 + m.versionMinor);
  attr->binaryVersion = 90;
  attr->maxDynamicSharedSizeBytes = int(k.maxDynamicShared);
  attr->preferredShmemCarveout = -1;
  return cudaSuccess;
}

cudaError_t cudaFuncSetCacheConfig(const void* func, cudaFuncCache) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  return r.kernelByHostFun.count(func) ? cudaSuccess : r.fail(cudaErrorInvalidDeviceFunction);
}

// ---- memory ----------------------------------------------------------------------------------------

cudaError_t cudaMalloc(void** devPtr, size_t size) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  if (r.sticky != cudaSuccess) return r.fail(r.sticky);
  if (!devPtr) return r.fail(cudaErrorInvalidValue);
  if (size == 0) {
    *devPtr = nullptr;
    return cudaSuccess;
  }
  uint64_t a = r.allocate(size, "cudaMalloc #" + std::to_string(++r.mallocs));
  if (!a) return r.fail(cudaErrorMemoryAllocation);
  *devPtr = reinterpret_cast<void*>(a);
  return cudaSuccess;
}

cudaError_t cudaFree(void* devPtr) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  if (r.sticky != cudaSuccess) return r.fail(r.sticky);
  if (!devPtr) return cudaSuccess;
  if (r.hostAllocations.count(devPtr)) return r.fail(cudaErrorInvalidValue);  // cudaFreeHost's
  return r.release(reinterpret_cast<uint64_t>(devPtr)) ? cudaSuccess : r.fail(cudaErrorInvalidValue);
}

// Page-locked host memory is host-mapped device memory: kernels reach it at the address the host
// uses, as with unified addressing on a GPU. (Where no address of the device's window is free in
// the process, it is plain host memory that only copies reach.)
cudaError_t cudaMallocHost(void** ptr, size_t size) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  if (r.sticky != cudaSuccess) return r.fail(r.sticky);
  if (!ptr) return r.fail(cudaErrorInvalidValue);
  uint64_t a = r.allocate(std::max<size_t>(size, 1), "cudaMallocHost #" + std::to_string(++r.mallocs), /*hostMapped=*/true);
  *ptr = a ? reinterpret_cast<void*>(a) : std::malloc(std::max<size_t>(size, 1));
  if (!*ptr) return r.fail(cudaErrorMemoryAllocation);
  r.hostAllocations[*ptr] = std::max<size_t>(size, 1);
  return cudaSuccess;
}

cudaError_t cudaHostAlloc(void** ptr, size_t size, unsigned int) { return cudaMallocHost(ptr, size); }

cudaError_t cudaMallocManaged(void** devPtr, size_t size, unsigned int flags) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  if (r.sticky != cudaSuccess) return r.fail(r.sticky);
  if (!devPtr || size == 0 || (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost)) return r.fail(cudaErrorInvalidValue);
  uint64_t a = r.allocate(size, "cudaMallocManaged #" + std::to_string(++r.mallocs), /*hostMapped=*/true);
  if (!a) {
    r.warn("cudaMallocManaged: no address of the emulated device's window is free in this process (under a "
           "sanitizer, its shadow memory takes them)");
    return r.fail(cudaErrorMemoryAllocation);
  }
  *devPtr = reinterpret_cast<void*>(a);
  return cudaSuccess;
}

cudaError_t cudaFreeHost(void* ptr) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  if (r.sticky != cudaSuccess) return r.fail(r.sticky);
  if (!ptr) return cudaSuccess;
  if (!r.hostAllocations.erase(ptr)) return r.fail(cudaErrorInvalidValue);
  if (!r.release(reinterpret_cast<uint64_t>(ptr))) std::free(ptr);
  return cudaSuccess;
}

cudaError_t cudaHostGetDevicePointer(void** pDevice, void* pHost, unsigned int flags) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  if (!pDevice || flags != 0) return r.fail(cudaErrorInvalidValue);
  if (!r.device.isHostMapped(reinterpret_cast<uint64_t>(pHost), 1)) return r.fail(cudaErrorInvalidValue);
  *pDevice = pHost;
  return cudaSuccess;
}

// Copies from and to any host memory work without registration; kernels reach only the host
// memory this runtime allocated (cudaMallocHost, cudaHostAlloc, cudaMallocManaged).
cudaError_t cudaHostRegister(void* ptr, size_t size, unsigned int flags) {
  if (!ptr || size == 0) return fail(cudaErrorInvalidValue);
  if (flags & (cudaHostRegisterMapped | cudaHostRegisterIoMemory)) {
    Runtime::warn("cudaHostRegister with cudaHostRegisterMapped: kernels on ptxrun cannot reach memory the program "
                  "allocated itself; allocate it with cudaMallocHost or cudaHostAlloc");
    return fail(cudaErrorNotSupported);
  }
  return cudaSuccess;
}

cudaError_t cudaHostUnregister(void* ptr) { return ptr ? cudaSuccess : fail(cudaErrorInvalidValue); }

cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attributes, const void* ptr) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  if (!attributes) return r.fail(cudaErrorInvalidValue);
  *attributes = {};
  auto addr = reinterpret_cast<uint64_t>(ptr);
  if (r.isDevice(ptr)) {
    bool mapped = r.device.isHostMapped(addr, 1);
    bool pinned = mapped && r.isHostAllocation(ptr);
    attributes->type = pinned ? cudaMemoryTypeHost : mapped ? cudaMemoryTypeManaged : cudaMemoryTypeDevice;
    attributes->device = 0;
    attributes->devicePointer = const_cast<void*>(ptr);
    attributes->hostPointer = mapped ? const_cast<void*>(ptr) : nullptr;
  } else {
    attributes->type = cudaMemoryTypeUnregistered;
    attributes->device = -2;
  }
  return cudaSuccess;
}

cudaError_t cudaMemPrefetchAsync(const void* devPtr, size_t count, cudaMemLocation, unsigned int, cudaStream_t) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  return r.device.isHostMapped(reinterpret_cast<uint64_t>(devPtr), count) ? r.sync() : r.fail(cudaErrorInvalidValue);
}

cudaError_t cudaMemAdvise(const void* devPtr, size_t count, cudaMemoryAdvise, cudaMemLocation) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  return r.device.isHostMapped(reinterpret_cast<uint64_t>(devPtr), count) ? cudaSuccess : r.fail(cudaErrorInvalidValue);
}

cudaError_t cudaMemGetInfo(size_t* free, size_t* total) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  constexpr size_t kTotal = size_t(80) << 30;
  size_t used = r.device.bytesInUse();
  if (free) *free = used < kTotal ? kTotal - used : 0;
  if (total) *total = kTotal;
  return cudaSuccess;
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind kind) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  return r.copy(dst, src, count, kind);
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind, cudaStream_t) {
  return cudaMemcpy(dst, src, count, kind);
}

cudaError_t cudaMemset(void* devPtr, int value, size_t count) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  if (r.sticky != cudaSuccess) return r.fail(r.sticky);
  if (count == 0) return cudaSuccess;
  std::string e;
  if (!r.fill(reinterpret_cast<uint64_t>(devPtr), static_cast<uint8_t>(value), count, e)) {
    Runtime::warn("cudaMemset: " + e);
    return r.fail(cudaErrorInvalidValue);
  }
  return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void* devPtr, int value, size_t count, cudaStream_t) { return cudaMemset(devPtr, value, count); }

cudaError_t cudaMemcpyToSymbol(const void* symbol, const void* src, size_t count, size_t offset, cudaMemcpyKind kind) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  return r.symbolCopy(symbol, offset, const_cast<void*>(src), count, kind, /*toSymbol=*/true);
}

cudaError_t cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t count, size_t offset, cudaMemcpyKind kind) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  return r.symbolCopy(symbol, offset, dst, count, kind, /*toSymbol=*/false);
}

cudaError_t cudaMemcpyToSymbolAsync(const void* symbol, const void* src, size_t count, size_t offset, cudaMemcpyKind kind,
                                    cudaStream_t) {
  return cudaMemcpyToSymbol(symbol, src, count, offset, kind);
}

cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const void* symbol, size_t count, size_t offset, cudaMemcpyKind kind,
                                      cudaStream_t) {
  return cudaMemcpyFromSymbol(dst, symbol, count, offset, kind);
}

cudaError_t cudaGetSymbolAddress(void** devPtr, const void* symbol) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  uint64_t addr = 0, size = 0;
  if (cudaError_t e = r.symbol(symbol, addr, size)) return e;
  if (devPtr) *devPtr = reinterpret_cast<void*>(addr);
  return cudaSuccess;
}

cudaError_t cudaGetSymbolSize(size_t* sz, const void* symbol) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  uint64_t addr = 0, size = 0;
  if (cudaError_t e = r.symbol(symbol, addr, size)) return e;
  if (sz) *sz = size;
  return cudaSuccess;
}

// ---- device, synchronization, errors ----------------------------------------------------------------

cudaError_t cudaDeviceSynchronize() {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  return r.sync();
}

cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaDeviceSynchronize(); }

cudaError_t cudaGetLastError() {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  cudaError_t e = r.sticky != cudaSuccess ? r.sticky : r.lastError;
  r.lastError = cudaSuccess;
  return e;
}

cudaError_t cudaPeekAtLastError() {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  return r.sticky != cudaSuccess ? r.sticky : r.lastError;
}

cudaError_t cudaGetDeviceCount(int* count) { return answer(count, 1); }

cudaError_t cudaGetDevice(int* device) { return answer(device, 0); }

cudaError_t cudaSetDevice(int device) { return device == 0 ? cudaSuccess : fail(cudaErrorInvalidDevice); }

cudaError_t cudaRuntimeGetVersion(int* v) { return answer(v, CUDART_VERSION); }

cudaError_t cudaDriverGetVersion(int* v) { return answer(v, CUDART_VERSION); }

}  // extern "C"

// ---- error names ------------------------------------------------------------------------------------

namespace {

struct ErrorName {
  cudaError_t code;
  const char* name;
};

#define E(x) {x, #x}
constexpr ErrorName kErrorNames[] = {
    {cudaSuccess, "cudaSuccess"},
    E(cudaErrorInvalidValue), E(cudaErrorMemoryAllocation), E(cudaErrorInitializationError),
    E(cudaErrorCudartUnloading), E(cudaErrorProfilerDisabled), E(cudaErrorProfilerNotInitialized),
    E(cudaErrorProfilerAlreadyStarted), E(cudaErrorProfilerAlreadyStopped), E(cudaErrorInvalidConfiguration),
    E(cudaErrorInvalidPitchValue), E(cudaErrorInvalidSymbol), E(cudaErrorInvalidHostPointer),
    E(cudaErrorInvalidDevicePointer), E(cudaErrorInvalidTexture), E(cudaErrorInvalidTextureBinding),
    E(cudaErrorInvalidChannelDescriptor), E(cudaErrorInvalidMemcpyDirection), E(cudaErrorAddressOfConstant),
    E(cudaErrorTextureFetchFailed), E(cudaErrorTextureNotBound), E(cudaErrorSynchronizationError),
    E(cudaErrorInvalidFilterSetting), E(cudaErrorInvalidNormSetting), E(cudaErrorMixedDeviceExecution),
    E(cudaErrorNotYetImplemented), E(cudaErrorMemoryValueTooLarge), E(cudaErrorStubLibrary),
    E(cudaErrorInsufficientDriver), E(cudaErrorCallRequiresNewerDriver), E(cudaErrorInvalidSurface),
    E(cudaErrorDuplicateVariableName), E(cudaErrorDuplicateTextureName), E(cudaErrorDuplicateSurfaceName),
    E(cudaErrorDevicesUnavailable), E(cudaErrorIncompatibleDriverContext), E(cudaErrorMissingConfiguration),
    E(cudaErrorPriorLaunchFailure), E(cudaErrorLaunchMaxDepthExceeded), E(cudaErrorLaunchFileScopedTex),
    E(cudaErrorLaunchFileScopedSurf), E(cudaErrorSyncDepthExceeded), E(cudaErrorLaunchPendingCountExceeded),
    E(cudaErrorInvalidDeviceFunction), E(cudaErrorNoDevice), E(cudaErrorInvalidDevice),
    E(cudaErrorDeviceNotLicensed), E(cudaErrorSoftwareValidityNotEstablished), E(cudaErrorInvalidKernelImage),
    E(cudaErrorDeviceUninitialized), E(cudaErrorMapBufferObjectFailed), E(cudaErrorUnmapBufferObjectFailed),
    E(cudaErrorArrayIsMapped), E(cudaErrorAlreadyMapped), E(cudaErrorNoKernelImageForDevice),
    E(cudaErrorAlreadyAcquired), E(cudaErrorNotMapped), E(cudaErrorNotMappedAsArray),
    E(cudaErrorNotMappedAsPointer), E(cudaErrorECCUncorrectable), E(cudaErrorUnsupportedLimit),
    E(cudaErrorDeviceAlreadyInUse), E(cudaErrorPeerAccessUnsupported), E(cudaErrorInvalidPtx),
    E(cudaErrorInvalidGraphicsContext), E(cudaErrorNvlinkUncorrectable), E(cudaErrorJitCompilerNotFound),
    E(cudaErrorUnsupportedPtxVersion), E(cudaErrorJitCompilationDisabled), E(cudaErrorUnsupportedExecAffinity),
    E(cudaErrorUnsupportedDevSideSync), E(cudaErrorContained), E(cudaErrorInvalidSource),
    E(cudaErrorFileNotFound), E(cudaErrorSharedObjectSymbolNotFound), E(cudaErrorSharedObjectInitFailed),
    E(cudaErrorOperatingSystem), E(cudaErrorInvalidResourceHandle), E(cudaErrorIllegalState),
    E(cudaErrorLossyQuery), E(cudaErrorSymbolNotFound), E(cudaErrorNotReady), E(cudaErrorIllegalAddress),
    E(cudaErrorLaunchOutOfResources), E(cudaErrorLaunchTimeout), E(cudaErrorLaunchIncompatibleTexturing),
    E(cudaErrorPeerAccessAlreadyEnabled), E(cudaErrorPeerAccessNotEnabled), E(cudaErrorSetOnActiveProcess),
    E(cudaErrorContextIsDestroyed), E(cudaErrorAssert), E(cudaErrorTooManyPeers),
    E(cudaErrorHostMemoryAlreadyRegistered), E(cudaErrorHostMemoryNotRegistered),
    E(cudaErrorHardwareStackError), E(cudaErrorIllegalInstruction), E(cudaErrorMisalignedAddress),
    E(cudaErrorInvalidAddressSpace), E(cudaErrorInvalidPc), E(cudaErrorLaunchFailure),
    E(cudaErrorCooperativeLaunchTooLarge), E(cudaErrorTensorMemoryLeak), E(cudaErrorNotPermitted),
    E(cudaErrorNotSupported), E(cudaErrorSystemNotReady), E(cudaErrorSystemDriverMismatch),
    E(cudaErrorCompatNotSupportedOnDevice), E(cudaErrorMpsConnectionFailed), E(cudaErrorMpsRpcFailure),
    E(cudaErrorMpsServerNotReady), E(cudaErrorMpsMaxClientsReached), E(cudaErrorMpsMaxConnectionsReached),
    E(cudaErrorMpsClientTerminated), E(cudaErrorCdpNotSupported), E(cudaErrorCdpVersionMismatch),
    E(cudaErrorStreamCaptureUnsupported), E(cudaErrorStreamCaptureInvalidated), E(cudaErrorStreamCaptureMerge),
    E(cudaErrorStreamCaptureUnmatched), E(cudaErrorStreamCaptureUnjoined), E(cudaErrorStreamCaptureIsolation),
    E(cudaErrorStreamCaptureImplicit), E(cudaErrorCapturedEvent), E(cudaErrorStreamCaptureWrongThread),
    E(cudaErrorTimeout), E(cudaErrorGraphExecUpdateFailure), E(cudaErrorExternalDevice),
    E(cudaErrorInvalidClusterSize), E(cudaErrorFunctionNotLoaded), E(cudaErrorInvalidResourceType),
    E(cudaErrorInvalidResourceConfiguration), E(cudaErrorUnknown),
};
#undef E

const char* errorName(cudaError_t e) {
  for (const ErrorName& n : kErrorNames)
    if (n.code == e) return n.name;
  return nullptr;
}

}  // namespace

extern "C" {

const char* cudaGetErrorName(cudaError_t error) {
  const char* n = errorName(error);
  return n ? n : "cudaErrorUnknown";
}

// The name without its prefix, in words: "cudaErrorIllegalAddress" -> "illegal address"; a few
// that programs print most often say more.
const char* cudaGetErrorString(cudaError_t error) {
  switch (error) {
    case cudaSuccess: return "no error";
    case cudaErrorIllegalAddress: return "an illegal memory access was encountered (ptxrun printed where)";
    case cudaErrorLaunchFailure: return "unspecified launch failure (ptxrun printed the kernel's fault)";
    case cudaErrorInvalidDeviceFunction: return "invalid device function (no PTX ptxrun can run, see its message)";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidValue: return "invalid argument";
    default: break;
  }
  static std::mutex mu;
  static std::unordered_map<int, std::string> words;
  std::lock_guard<std::mutex> g(mu);
  auto it = words.find(int(error));
  if (it == words.end()) {
    std::string n = cudaGetErrorName(error), w;
    const char* prefix = "cudaError";
    if (n.rfind(prefix, 0) == 0) n = n.substr(std::strlen(prefix));
    for (char c : n) {
      if (std::isupper(static_cast<unsigned char>(c)) && !w.empty()) w += ' ';
      w += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    it = words.emplace(int(error), w).first;
  }
  return it->second.c_str();
}

}  // extern "C"

// ---- the device's description ----------------------------------------------------------------------
// An sm_90 device with an H100 SXM's figures, so that programs size their grids as they would on
// one; the name says it is ptxrun's.

namespace {

cudaDeviceProp deviceProperties() {
  cudaDeviceProp p;
  std::memset(&p, 0, sizeof p);
  std::snprintf(p.name, sizeof p.name, "ptxrun (emulated sm_90)");
  p.totalGlobalMem = size_t(80) << 30;
  p.sharedMemPerBlock = 48 << 10;
  p.regsPerBlock = 65536;
  p.warpSize = 32;
  p.memPitch = size_t(2147483647);
  p.maxThreadsPerBlock = 1024;
  p.maxThreadsDim[0] = 1024;
  p.maxThreadsDim[1] = 1024;
  p.maxThreadsDim[2] = 64;
  p.maxGridSize[0] = 2147483647;
  p.maxGridSize[1] = 65535;
  p.maxGridSize[2] = 65535;
  p.totalConstMem = 64 << 10;
  p.major = 9;
  p.minor = 0;
  p.textureAlignment = 512;
  p.texturePitchAlignment = 32;
  p.multiProcessorCount = 132;
  p.canMapHostMemory = 1;
  p.concurrentKernels = 1;
  p.asyncEngineCount = 2;
  p.unifiedAddressing = 1;
  p.memoryBusWidth = 5120;
  p.l2CacheSize = 50 << 20;
  p.maxThreadsPerMultiProcessor = 2048;
  p.globalL1CacheSupported = 1;
  p.localL1CacheSupported = 1;
  p.sharedMemPerMultiprocessor = 228 << 10;
  p.regsPerMultiprocessor = 65536;
  p.sharedMemPerBlockOptin = 227 << 10;
  p.maxBlocksPerMultiProcessor = 32;
  p.reservedSharedMemPerBlock = 1 << 10;
  p.cooperativeLaunch = 1;
  p.clusterLaunch = 1;
  p.hostNumaId = -1;
  return p;
}

}  // namespace

extern "C" {

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  if (!prop) return fail(cudaErrorInvalidValue);
  if (device != 0) return fail(cudaErrorInvalidDevice);
  *prop = deviceProperties();
  return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
  if (!value) return fail(cudaErrorInvalidValue);
  if (device != 0) return fail(cudaErrorInvalidDevice);
  static const cudaDeviceProp p = deviceProperties();
  switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: *value = p.maxThreadsPerBlock; break;
    case cudaDevAttrMaxBlockDimX: *value = p.maxThreadsDim[0]; break;
    case cudaDevAttrMaxBlockDimY: *value = p.maxThreadsDim[1]; break;
    case cudaDevAttrMaxBlockDimZ: *value = p.maxThreadsDim[2]; break;
    case cudaDevAttrMaxGridDimX: *value = p.maxGridSize[0]; break;
    case cudaDevAttrMaxGridDimY: *value = p.maxGridSize[1]; break;
    case cudaDevAttrMaxGridDimZ: *value = p.maxGridSize[2]; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *value = int(p.sharedMemPerBlock); break;
    case cudaDevAttrTotalConstantMemory: *value = int(p.totalConstMem); break;
    case cudaDevAttrWarpSize: *value = p.warpSize; break;
    case cudaDevAttrMaxRegistersPerBlock: *value = p.regsPerBlock; break;
    case cudaDevAttrMultiProcessorCount: *value = p.multiProcessorCount; break;
    case cudaDevAttrComputeCapabilityMajor: *value = p.major; break;
    case cudaDevAttrComputeCapabilityMinor: *value = p.minor; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *value = p.maxThreadsPerMultiProcessor; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *value = int(p.sharedMemPerMultiprocessor); break;
    case cudaDevAttrMaxRegistersPerMultiprocessor: *value = p.regsPerMultiprocessor; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = int(p.sharedMemPerBlockOptin); break;
    case cudaDevAttrMaxBlocksPerMultiprocessor: *value = p.maxBlocksPerMultiProcessor; break;
    case cudaDevAttrL2CacheSize: *value = p.l2CacheSize; break;
    case cudaDevAttrGlobalMemoryBusWidth: *value = p.memoryBusWidth; break;
    case cudaDevAttrConcurrentKernels: *value = p.concurrentKernels; break;
    case cudaDevAttrUnifiedAddressing: *value = p.unifiedAddressing; break;
    case cudaDevAttrCooperativeLaunch: *value = p.cooperativeLaunch; break;
    case cudaDevAttrAsyncEngineCount: *value = p.asyncEngineCount; break;
    case cudaDevAttrCanMapHostMemory: *value = p.canMapHostMemory; break;
    case cudaDevAttrIntegrated: *value = 0; break;
    case cudaDevAttrManagedMemory: *value = 0; break;
    case cudaDevAttrTextureAlignment: *value = int(p.textureAlignment); break;
    default:
      Runtime::warn("cudaDeviceGetAttribute: attribute " + std::to_string(int(attr)) + " is not described by ptxrun's device");
      return fail(cudaErrorInvalidValue);
  }
  return cudaSuccess;
}

cudaError_t cudaDeviceReset() {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  // Memory and errors go; registered modules stay (as the program's registrations do), their
  // variables with the values they have.
  for (auto& [p, size] : r.hostAllocations)  // page-locked memory that is plain host memory
    if (!r.device.isHostMapped(reinterpret_cast<uint64_t>(p), 1)) std::free(const_cast<void*>(p));
  r.hostAllocations.clear();
  r.arrays.clear();
  for (auto& [h, rec] : r.textures) r.destroyTexture(h);
  r.textures.clear();
  r.device.releaseAll();
  if (r.shadow_) r.shadow_->releaseAll();
  r.sticky = cudaSuccess;
  r.lastError = cudaSuccess;
  return cudaSuccess;
}

// ---- streams and events: launches and copies run when they are issued, so every stream is in
// order and complete; an event records the host time (cudaEventElapsedTime is host time) ------------

cudaError_t cudaStreamCreate(cudaStream_t* s) {
  if (!s) return fail(cudaErrorInvalidValue);
  static char streams[1024];  // distinct non-null handles
  static std::atomic<unsigned> next{0};
  *s = reinterpret_cast<cudaStream_t>(&streams[next++ % sizeof streams]);
  return cudaSuccess;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned int) { return cudaStreamCreate(s); }

cudaError_t cudaStreamDestroy(cudaStream_t) { return cudaSuccess; }

cudaError_t cudaStreamQuery(cudaStream_t) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  return r.sync();
}

// The work before the event is done already: nothing to wait for.
cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t e, unsigned int flags) {
  if (!e) return fail(cudaErrorInvalidResourceHandle);
  return flags & ~unsigned(cudaEventWaitExternal) ? fail(cudaErrorInvalidValue) : cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t* e) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  if (!e) return r.fail(cudaErrorInvalidValue);
  *e = reinterpret_cast<cudaEvent_t>(&r.events.emplace_back());
  return cudaSuccess;
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned int) { return cudaEventCreate(e); }

cudaError_t cudaEventDestroy(cudaEvent_t) { return cudaSuccess; }

cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t) {
  if (!e) return fail(cudaErrorInvalidResourceHandle);
  Event& ev = *reinterpret_cast<Event*>(e);
  ev.at = std::chrono::steady_clock::now();
  ev.recorded = true;
  return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t e) {
  if (!e) return fail(cudaErrorInvalidResourceHandle);
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  return r.sync();
}

cudaError_t cudaEventQuery(cudaEvent_t e) { return cudaEventSynchronize(e); }

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  if (!ms || !start || !end) return fail(cudaErrorInvalidValue);
  const Event &a = *reinterpret_cast<Event*>(start), &b = *reinterpret_cast<Event*>(end);
  if (!a.recorded || !b.recorded) return fail(cudaErrorInvalidResourceHandle);
  *ms = std::chrono::duration<float, std::milli>(b.at - a.at).count();
  return cudaSuccess;
}

// ---- pitched memory ---------------------------------------------------------------------------------

cudaError_t cudaMallocPitch(void** devPtr, size_t* pitch, size_t width, size_t height) {
  if (!pitch) return fail(cudaErrorInvalidValue);
  *pitch = (width + 511) / 512 * 512;
  return cudaMalloc(devPtr, *pitch * height);
}

cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                         cudaMemcpyKind kind) {
  if (width > dpitch || width > spitch) return fail(cudaErrorInvalidPitchValue);
  for (size_t row = 0; row < height; ++row)
    if (cudaError_t e = cudaMemcpy(static_cast<char*>(dst) + row * dpitch, static_cast<const char*>(src) + row * spitch,
                                   width, kind))
      return e;
  return cudaSuccess;
}

cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                              cudaMemcpyKind kind, cudaStream_t) {
  return cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind);
}

// ---- more of the API: limits, flags, priorities, occupancy, host functions, stream-ordered memory --

cudaError_t cudaDeviceSetLimit(cudaLimit limit, size_t value) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  auto it = r.limits.find(limit);
  if (it == r.limits.end()) return r.fail(cudaErrorUnsupportedLimit);
  it->second = value;
  return cudaSuccess;
}

cudaError_t cudaDeviceGetLimit(size_t* value, cudaLimit limit) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  auto it = r.limits.find(limit);
  if (!value) return r.fail(cudaErrorInvalidValue);
  if (it == r.limits.end()) return r.fail(cudaErrorUnsupportedLimit);
  *value = it->second;
  return cudaSuccess;
}

cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache) { return cudaSuccess; }

cudaError_t cudaDeviceGetCacheConfig(cudaFuncCache* config) {
  if (!config) return fail(cudaErrorInvalidValue);
  *config = cudaFuncCachePreferNone;
  return cudaSuccess;
}

cudaError_t cudaSetDeviceFlags(unsigned int flags) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  r.deviceFlags = flags;
  return cudaSuccess;
}

cudaError_t cudaGetDeviceFlags(unsigned int* flags) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  if (!flags) return r.fail(cudaErrorInvalidValue);
  *flags = r.deviceFlags;
  return cudaSuccess;
}

cudaError_t cudaInitDevice(int device, unsigned int, unsigned int) { return device == 0 ? cudaSuccess : fail(cudaErrorInvalidDevice); }

cudaError_t cudaChooseDevice(int* device, const cudaDeviceProp*) { return answer(device, 0); }

cudaError_t cudaDeviceCanAccessPeer(int* canAccessPeer, int device, int peerDevice) {
  if (device != 0 || peerDevice != 0) return fail(cudaErrorInvalidDevice);
  return answer(canAccessPeer, 0);
}

cudaError_t cudaDeviceGetStreamPriorityRange(int* leastPriority, int* greatestPriority) {
  if (leastPriority) *leastPriority = 0;
  if (greatestPriority) *greatestPriority = -5;  // an H100's range
  return cudaSuccess;
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t* s, unsigned int, int) { return cudaStreamCreate(s); }

cudaError_t cudaStreamGetPriority(cudaStream_t, int* priority) { return answer(priority, 0); }

cudaError_t cudaStreamGetFlags(cudaStream_t, unsigned int* flags) {
  if (!flags) return fail(cudaErrorInvalidValue);
  *flags = cudaStreamDefault;
  return cudaSuccess;
}

cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int) {
  return cudaEventRecord(event, stream);
}

// A host function runs when the stream reaches it: at once (the runtime's lock is not held, so
// it may call the API, which CUDA forbids but does not check).
cudaError_t cudaLaunchHostFunc(cudaStream_t, cudaHostFn_t fn, void* userData) {
  if (!fn) return fail(cudaErrorInvalidValue);
  {
    Runtime& r = rt();
    std::lock_guard<std::mutex> g(r.mu);
    if (r.sticky != cudaSuccess) return r.fail(r.sticky);
  }
  fn(userData);
  return cudaSuccess;
}

cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void* userData, unsigned int flags) {
  if (!callback || flags != 0) return fail(cudaErrorInvalidValue);
  cudaError_t status;
  {
    Runtime& r = rt();
    std::lock_guard<std::mutex> g(r.mu);
    status = r.sticky;
  }
  callback(stream, status, userData);
  return cudaSuccess;
}

cudaError_t cudaMallocAsync(void** devPtr, size_t size, cudaStream_t) { return cudaMalloc(devPtr, size); }

cudaError_t cudaFreeAsync(void* devPtr, cudaStream_t) { return cudaFree(devPtr); }

cudaError_t cudaMemset2D(void* devPtr, size_t pitch, int value, size_t width, size_t height) {
  if (width > pitch) return fail(cudaErrorInvalidPitchValue);
  for (size_t row = 0; row < height; ++row)
    if (cudaError_t e = cudaMemset(static_cast<char*>(devPtr) + row * pitch, value, width)) return e;
  return cudaSuccess;
}

cudaError_t cudaMemset2DAsync(void* devPtr, size_t pitch, int value, size_t width, size_t height, cudaStream_t) {
  return cudaMemset2D(devPtr, pitch, value, width, height);
}

// Blocks of a kernel that fit on one multiprocessor of the device cudaGetDeviceProperties
// describes, by threads (2,048), blocks (32) and shared memory (228 KiB, 1 KiB of it reserved
// per block); registers are not counted (ptxas's allocation is not known here).
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* numBlocks, const void* func, int blockSize,
                                                                   size_t dynamicSMemSize, unsigned int) {
  if (!numBlocks || blockSize <= 0) return fail(cudaErrorInvalidValue);
  cudaFuncAttributes a;
  if (cudaError_t e = cudaFuncGetAttributes(&a, func)) return e;
  if (blockSize > a.maxThreadsPerBlock) {
    *numBlocks = 0;
    return cudaSuccess;
  }
  int byThreads = 64 / ((blockSize + 31) / 32);  // 2,048 threads: 64 warps
  size_t shared = a.sharedSizeBytes + dynamicSMemSize;
  int byShared = int((228u << 10) / (shared + (1u << 10)));
  *numBlocks = std::min({32, byThreads, byShared});
  return cudaSuccess;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, const void* func, int blockSize,
                                                          size_t dynamicSMemSize) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize, dynamicSMemSize, 0);
}

cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, cudaChannelFormatKind f) {
  return cudaChannelFormatDesc{x, y, z, w, f};
}

}  // extern "C"

// ---- CUDA arrays and texture objects (docs/CUDART.md, "Textures") ---------------------------------

namespace {

using ptxopt::emu::TexAddressMode;
using ptxopt::emu::TexChannelKind;
using ptxopt::emu::TexFilter;
using ptxopt::emu::TexReadMode;
using ptxopt::emu::TexResource;
using ptxopt::emu::TextureDesc;

// A channel format the emulator reads: 1, 2 or 4 channels of one size, signed, unsigned or float.
bool texelFormat(const cudaChannelFormatDesc& c, TextureDesc& d) {
  const int bits[4] = {c.x, c.y, c.z, c.w};
  int n = 0;
  while (n < 4 && bits[n] > 0) ++n;
  for (int k = n; k < 4; ++k)
    if (bits[k] != 0) return false;
  if (n != 1 && n != 2 && n != 4) return false;
  for (int k = 1; k < n; ++k)
    if (bits[k] != bits[0]) return false;
  if (c.f != cudaChannelFormatKindSigned && c.f != cudaChannelFormatKindUnsigned && c.f != cudaChannelFormatKindFloat) return false;
  d.channels = static_cast<uint8_t>(n);
  d.channelBits = static_cast<uint8_t>(bits[0]);
  d.kind = c.f == cudaChannelFormatKindSigned ? TexChannelKind::Signed
           : c.f == cudaChannelFormatKindUnsigned ? TexChannelKind::Unsigned
                                                   : TexChannelKind::Float;
  return d.channelBits == 8 || d.channelBits == 16 || d.channelBits == 32;
}

Runtime::ArrayRec* arrayOf(Runtime& r, const void* a) {
  auto it = r.arrays.find(reinterpret_cast<uint64_t>(a));
  return it == r.arrays.end() ? nullptr : &it->second;
}

cudaError_t mallocArray(cudaArray_t* array, const cudaChannelFormatDesc* desc, size_t w, size_t h, size_t d, unsigned flags) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  if (r.sticky != cudaSuccess) return r.fail(r.sticky);
  if (!array || !desc || w == 0) return r.fail(cudaErrorInvalidValue);
  TextureDesc probe;
  if (!texelFormat(*desc, probe)) {
    Runtime::warn("cudaMallocArray: channel format {" + std::to_string(desc->x) + ", " + std::to_string(desc->y) + ", " +
                  std::to_string(desc->z) + ", " + std::to_string(desc->w) +
                  "} is not one the emulator reads (1, 2 or 4 channels of 8, 16 or 32 bits)");
    return r.fail(cudaErrorInvalidChannelDescriptor);
  }
  Runtime::ArrayRec rec;
  rec.desc = *desc;
  rec.width = w, rec.height = h, rec.depth = d, rec.flags = flags;
  uint64_t a = r.allocate(rec.rowBytes() * rec.rows() * rec.slices(), "cudaArray #" + std::to_string(++r.mallocs));
  if (!a) return r.fail(cudaErrorMemoryAllocation);
  r.arrays[a] = rec;
  *array = reinterpret_cast<cudaArray_t>(a);
  return cudaSuccess;
}

// Copies a `widthBytes` x `height` x `depth` box between an array (at element wOffset, row hOffset,
// slice zOffset) and memory `other` with the given pitches, the direction as `toArray` says.
cudaError_t arrayCopy(Runtime& r, const void* array, size_t wOffsetBytes, size_t hOffset, size_t zOffset, void* other, size_t pitch,
                      size_t slicePitch, size_t widthBytes, size_t height, size_t depth, cudaMemcpyKind kind, bool toArray) {
  if (r.sticky != cudaSuccess) return r.fail(r.sticky);
  Runtime::ArrayRec* a = arrayOf(r, array);
  if (!a) return r.fail(cudaErrorInvalidResourceHandle);
  if (wOffsetBytes + widthBytes > a->rowBytes() || hOffset + height > a->rows() || zOffset + depth > a->slices())
    return r.fail(cudaErrorInvalidValue);
  if (widthBytes > pitch && height > 1) return r.fail(cudaErrorInvalidPitchValue);
  const uint64_t base = reinterpret_cast<uint64_t>(array);
  if (kind == cudaMemcpyDefault) kind = r.isDevice(other) ? cudaMemcpyDeviceToDevice : toArray ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
  for (size_t z = 0; z < depth; ++z)
    for (size_t y = 0; y < height; ++y) {
      void* at = reinterpret_cast<void*>(base + ((zOffset + z) * a->rows() + hOffset + y) * a->rowBytes() + wOffsetBytes);
      char* o = static_cast<char*>(other) + z * slicePitch + y * pitch;
      if (cudaError_t e = toArray ? r.copy(at, o, widthBytes, kind) : r.copy(o, at, widthBytes, kind)) return e;
    }
  return cudaSuccess;
}

}  // namespace

extern "C" {

cudaError_t cudaMallocArray(cudaArray_t* array, const cudaChannelFormatDesc* desc, size_t width, size_t height, unsigned int flags) {
  return mallocArray(array, desc, width, height, 0, flags);
}

cudaError_t cudaMalloc3DArray(cudaArray_t* array, const cudaChannelFormatDesc* desc, cudaExtent extent, unsigned int flags) {
  return mallocArray(array, desc, extent.width, extent.height, extent.depth, flags);
}

cudaError_t cudaFreeArray(cudaArray_t array) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  if (!array) return cudaSuccess;
  auto it = r.arrays.find(reinterpret_cast<uint64_t>(array));
  if (it == r.arrays.end()) return r.fail(cudaErrorInvalidValue);
  r.arrays.erase(it);
  return r.release(reinterpret_cast<uint64_t>(array)) ? cudaSuccess : r.fail(cudaErrorInvalidValue);
}

cudaError_t cudaArrayGetInfo(cudaChannelFormatDesc* desc, cudaExtent* extent, unsigned int* flags, cudaArray_t array) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  Runtime::ArrayRec* a = arrayOf(r, array);
  if (!a) return r.fail(cudaErrorInvalidResourceHandle);
  if (desc) *desc = a->desc;
  if (extent) *extent = cudaExtent{a->width, a->height, a->depth};
  if (flags) *flags = a->flags;
  return cudaSuccess;
}

cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void* src, size_t spitch, size_t width,
                                size_t height, cudaMemcpyKind kind) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  return arrayCopy(r, dst, wOffset, hOffset, 0, const_cast<void*>(src), spitch, 0, width, height, 1, kind, true);
}

cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset, const void* src, size_t spitch, size_t width,
                                     size_t height, cudaMemcpyKind kind, cudaStream_t) {
  return cudaMemcpy2DToArray(dst, wOffset, hOffset, src, spitch, width, height, kind);
}

cudaError_t cudaMemcpy2DFromArray(void* dst, size_t dpitch, cudaArray_const_t src, size_t wOffset, size_t hOffset, size_t width,
                                  size_t height, cudaMemcpyKind kind) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  return arrayCopy(r, src, wOffset, hOffset, 0, dst, dpitch, 0, width, height, 1, kind, false);
}

cudaError_t cudaMemcpy2DFromArrayAsync(void* dst, size_t dpitch, cudaArray_const_t src, size_t wOffset, size_t hOffset, size_t width,
                                       size_t height, cudaMemcpyKind kind, cudaStream_t) {
  return cudaMemcpy2DFromArray(dst, dpitch, src, wOffset, hOffset, width, height, kind);
}

// The deprecated linear forms: `count` bytes from (wOffset, hOffset) on, row after row.
cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void* src, size_t count, cudaMemcpyKind kind) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  Runtime::ArrayRec* a = arrayOf(r, dst);
  if (!a) return r.fail(cudaErrorInvalidResourceHandle);
  const size_t start = hOffset * a->rowBytes() + wOffset, total = a->rowBytes() * a->rows() * a->slices();
  if (start > total || count > total - start) return r.fail(cudaErrorInvalidValue);
  return r.copy(reinterpret_cast<void*>(reinterpret_cast<uint64_t>(dst) + start), src, count,
                kind == cudaMemcpyDefault ? (r.isDevice(src) ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice) : kind);
}

cudaError_t cudaMemcpyFromArray(void* dst, cudaArray_const_t src, size_t wOffset, size_t hOffset, size_t count, cudaMemcpyKind kind) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  Runtime::ArrayRec* a = arrayOf(r, src);
  if (!a) return r.fail(cudaErrorInvalidResourceHandle);
  const size_t start = hOffset * a->rowBytes() + wOffset, total = a->rowBytes() * a->rows() * a->slices();
  if (start > total || count > total - start) return r.fail(cudaErrorInvalidValue);
  return r.copy(dst, reinterpret_cast<const void*>(reinterpret_cast<uint64_t>(src) + start), count,
                kind == cudaMemcpyDefault ? (r.isDevice(dst) ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost) : kind);
}

// cudaMemcpy3D between an array and pitched memory (either way), or between pitched memories.
cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms* p) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  if (!p) return r.fail(cudaErrorInvalidValue);
  const cudaExtent ext = p->extent;
  if (p->srcArray && p->dstArray) return r.fail(cudaErrorNotSupported);
  if (p->dstArray || p->srcArray) {
    const bool toArray = p->dstArray != nullptr;
    Runtime::ArrayRec* a = arrayOf(r, toArray ? p->dstArray : p->srcArray);
    if (!a) return r.fail(cudaErrorInvalidResourceHandle);
    const cudaPitchedPtr& m = toArray ? p->srcPtr : p->dstPtr;
    const cudaPos& ap = toArray ? p->dstPos : p->srcPos;
    const cudaPos& mp = toArray ? p->srcPos : p->dstPos;
    const size_t eb = a->elemBytes();  // with an array, widths and x positions count elements
    char* mem = static_cast<char*>(m.ptr) + mp.z * m.pitch * m.ysize + mp.y * m.pitch + mp.x * eb;
    return arrayCopy(r, toArray ? p->dstArray : p->srcArray, ap.x * eb, ap.y, ap.z, mem, m.pitch, m.pitch * m.ysize, ext.width * eb,
                     std::max<size_t>(ext.height, 1), std::max<size_t>(ext.depth, 1), p->kind, toArray);
  }
  for (size_t z = 0; z < std::max<size_t>(ext.depth, 1); ++z)
    for (size_t y = 0; y < std::max<size_t>(ext.height, 1); ++y) {
      const cudaPitchedPtr &s = p->srcPtr, &d = p->dstPtr;
      char* dp = static_cast<char*>(d.ptr) + (p->dstPos.z + z) * d.pitch * d.ysize + (p->dstPos.y + y) * d.pitch + p->dstPos.x;
      const char* sp = static_cast<const char*>(s.ptr) + (p->srcPos.z + z) * s.pitch * s.ysize + (p->srcPos.y + y) * s.pitch + p->srcPos.x;
      if (cudaError_t e = r.copy(dp, sp, ext.width, p->kind)) return e;
    }
  return cudaSuccess;
}

cudaError_t cudaMemcpy3DAsync(const cudaMemcpy3DParms* p, cudaStream_t) { return cudaMemcpy3D(p); }

cudaError_t cudaCreateTextureObject(cudaTextureObject_t* texObject, const cudaResourceDesc* res, const cudaTextureDesc* tex,
                                    const cudaResourceViewDesc* view) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  if (r.sticky != cudaSuccess) return r.fail(r.sticky);
  if (!texObject || !res || !tex) return r.fail(cudaErrorInvalidValue);
  TextureDesc d;
  auto bad = [&](const std::string& why, cudaError_t e = cudaErrorInvalidValue) {
    Runtime::warn("cudaCreateTextureObject: " + why);
    return r.fail(e);
  };
  if (view) return bad("resource views are not supported", cudaErrorNotSupported);
  switch (res->resType) {
    case cudaResourceTypeArray: {
      Runtime::ArrayRec* a = arrayOf(r, res->res.array.array);
      if (!a) return bad("the resource's array is not a CUDA array", cudaErrorInvalidResourceHandle);
      texelFormat(a->desc, d);
      d.resource = TexResource::Array;
      d.base = reinterpret_cast<uint64_t>(res->res.array.array);
      d.width = static_cast<uint32_t>(a->width);
      d.layered = (a->flags & cudaArrayLayered) != 0;
      if (d.layered) {  // a 1D layered array is (width, 0, layers), a 2D one (width, height, layers)
        d.dims = a->height ? 2 : 1;
        d.height = static_cast<uint32_t>(a->height ? a->height : std::max<size_t>(a->depth, 1));
        d.depth = static_cast<uint32_t>(a->height ? std::max<size_t>(a->depth, 1) : 1);
      } else {
        d.dims = a->depth ? 3 : a->height ? 2 : 1;
        d.height = static_cast<uint32_t>(a->rows());
        d.depth = static_cast<uint32_t>(a->slices());
      }
      break;
    }
    case cudaResourceTypeLinear:
      if (!texelFormat(res->res.linear.desc, d)) return bad("a channel format the emulator does not read", cudaErrorInvalidChannelDescriptor);
      d.resource = TexResource::Linear;
      d.base = reinterpret_cast<uint64_t>(res->res.linear.devPtr);
      d.width = static_cast<uint32_t>(res->res.linear.sizeInBytes / d.texelBytes());
      if (!d.width) return bad("a linear resource of less than one texel");
      break;
    case cudaResourceTypePitch2D:
      if (!texelFormat(res->res.pitch2D.desc, d)) return bad("a channel format the emulator does not read", cudaErrorInvalidChannelDescriptor);
      d.resource = TexResource::Pitch2D;
      d.dims = 2;
      d.base = reinterpret_cast<uint64_t>(res->res.pitch2D.devPtr);
      d.width = static_cast<uint32_t>(res->res.pitch2D.width);
      d.height = static_cast<uint32_t>(res->res.pitch2D.height);
      d.pitch = res->res.pitch2D.pitchInBytes;
      break;
    default: return bad("mipmapped arrays are not supported", cudaErrorNotSupported);
  }
  for (int k = 0; k < 3; ++k) {
    if (tex->addressMode[k] < cudaAddressModeWrap || tex->addressMode[k] > cudaAddressModeBorder) return bad("an unknown address mode");
    d.addressMode[k] = static_cast<TexAddressMode>(tex->addressMode[k]);
  }
  d.filter = tex->filterMode == cudaFilterModeLinear ? TexFilter::Linear : TexFilter::Point;
  d.readMode = tex->readMode == cudaReadModeNormalizedFloat ? TexReadMode::NormalizedFloat : TexReadMode::ElementType;
  // Normalized-float reads of float texels read them as they are.
  if (d.kind == TexChannelKind::Float) d.readMode = TexReadMode::ElementType;
  d.normalizedCoords = tex->normalizedCoords != 0;
  for (int k = 0; k < 4; ++k) {
    float c = tex->borderColor[k];
    if (d.readsFloat()) std::memcpy(&d.borderColor[k], &c, 4);
    else d.borderColor[k] = static_cast<uint32_t>(static_cast<int64_t>(c));
  }
  if (tex->sRGB) return bad("sRGB conversion is not supported", cudaErrorNotSupported);
  if (d.filter == TexFilter::Linear && !d.readsFloat())
    return bad("linear filtering of a texture that reads as integers", cudaErrorInvalidFilterSetting);
  std::string e;
  uint64_t h = r.createTexture(d, e);
  if (!h) return bad(e);
  Runtime::TextureRec rec;
  rec.res = *res;
  rec.tex = *tex;
  r.textures[h] = rec;
  *texObject = h;
  return cudaSuccess;
}

cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texObject) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  if (!texObject) return cudaSuccess;
  if (!r.textures.erase(texObject) || !r.destroyTexture(texObject)) return r.fail(cudaErrorInvalidValue);
  return cudaSuccess;
}

cudaError_t cudaGetTextureObjectResourceDesc(cudaResourceDesc* res, cudaTextureObject_t texObject) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  auto it = r.textures.find(texObject);
  if (!res || it == r.textures.end()) return r.fail(cudaErrorInvalidValue);
  *res = it->second.res;
  return cudaSuccess;
}

cudaError_t cudaGetTextureObjectTextureDesc(cudaTextureDesc* tex, cudaTextureObject_t texObject) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  auto it = r.textures.find(texObject);
  if (!tex || it == r.textures.end()) return r.fail(cudaErrorInvalidValue);
  *tex = it->second.tex;
  return cudaSuccess;
}

// Surface objects over CUDA arrays: the same table as textures, marked as surfaces.
cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t* surfObject, const cudaResourceDesc* res) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  if (r.sticky != cudaSuccess) return r.fail(r.sticky);
  if (!surfObject || !res) return r.fail(cudaErrorInvalidValue);
  if (res->resType != cudaResourceTypeArray) {
    Runtime::warn("cudaCreateSurfaceObject: a surface's resource must be a CUDA array");
    return r.fail(cudaErrorInvalidValue);
  }
  Runtime::ArrayRec* a = arrayOf(r, res->res.array.array);
  if (!a) return r.fail(cudaErrorInvalidResourceHandle);
  TextureDesc d;
  texelFormat(a->desc, d);
  d.surface = true;
  d.resource = TexResource::Array;
  d.base = reinterpret_cast<uint64_t>(res->res.array.array);
  d.width = static_cast<uint32_t>(a->width);
  d.layered = (a->flags & cudaArrayLayered) != 0;
  if (d.layered) {
    d.dims = a->height ? 2 : 1;
    d.height = static_cast<uint32_t>(a->height ? a->height : std::max<size_t>(a->depth, 1));
    d.depth = static_cast<uint32_t>(a->height ? std::max<size_t>(a->depth, 1) : 1);
  } else {
    d.dims = a->depth ? 3 : a->height ? 2 : 1;
    d.height = static_cast<uint32_t>(a->rows());
    d.depth = static_cast<uint32_t>(a->slices());
  }
  std::string e;
  uint64_t h = r.createTexture(d, e);
  if (!h) {
    Runtime::warn("cudaCreateSurfaceObject: " + e);
    return r.fail(cudaErrorInvalidValue);
  }
  Runtime::TextureRec rec;
  rec.res = *res;
  r.textures[h] = rec;
  *surfObject = h;
  return cudaSuccess;
}

cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surfObject) { return cudaDestroyTextureObject(surfObject); }

cudaError_t cudaGetSurfaceObjectResourceDesc(cudaResourceDesc* res, cudaSurfaceObject_t surfObject) {
  return cudaGetTextureObjectResourceDesc(res, surfObject);
}

// cuTensorMapEncodeTiled, the driver function a program reaches through
// cudaGetDriverEntryPoint{ByVersion}: it writes this emulator's tensor-map layout
// (include/ptxopt/emu/TensorMap.h) for cp.async.bulk.tensor. Interleave, swizzle and element
// strides other than 1 are not emulated (CUDA_ERROR_NOT_SUPPORTED); the L2 promotion and the
// out-of-bounds fill change nothing (outside elements read as zeros).
static int tensorMapEncodeTiled(void* tensorMap, int dataType, unsigned rank, void* globalAddress, const uint64_t* globalDim,
                                const uint64_t* globalStrides, const unsigned* boxDim, const unsigned* elementStrides,
                                int interleave, int swizzle, int /*l2Promotion*/, int /*oobFill*/) {
  auto bad = [](const std::string& why, int code) {
    Runtime::warn("cuTensorMapEncodeTiled: " + why);
    return code;
  };
  constexpr int kInvalidValue = 1, kNotSupported = 801;  // CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_NOT_SUPPORTED
  // Bytes per element of CUtensorMapDataType 0 (UINT8) to 12 (TFLOAT32_FTZ).
  static const uint32_t kElemBytes[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4};
  if (!tensorMap || !globalDim || !boxDim || (rank > 1 && !globalStrides)) return bad("a null pointer argument", kInvalidValue);
  if (dataType < 0 || dataType >= static_cast<int>(std::size(kElemBytes)))
    return bad("data type " + std::to_string(dataType) + " is not emulated", kNotSupported);
  if (interleave != 0 || swizzle != 0) return bad("interleave and swizzle are not emulated", kNotSupported);
  ptxopt::emu::TensorMapDesc d;
  d.rank = rank;
  d.elemBytes = kElemBytes[dataType];
  d.base = reinterpret_cast<uint64_t>(globalAddress);
  for (unsigned k = 0; k < rank && k < 5; ++k) {
    if (elementStrides && elementStrides[k] != 1) return bad("element strides other than 1 are not emulated", kNotSupported);
    d.dims[k] = globalDim[k];
    d.box[k] = boxDim[k];
    if (k) d.strides[k - 1] = globalStrides[k - 1];
  }
  if (std::string why = ptxopt::emu::checkTensorMap(d); !why.empty()) return bad(why, kInvalidValue);
  ptxopt::emu::encodeTensorMap(d, static_cast<uint8_t*>(tensorMap));
  return 0;
}

cudaError_t cudaGetDriverEntryPointByVersion(const char* symbol, void** funcPtr, unsigned int, unsigned long long,
                                             cudaDriverEntryPointQueryResult* status) {
  if (!symbol || !funcPtr) return rt().fail(cudaErrorInvalidValue);
  const bool found = std::strcmp(symbol, "cuTensorMapEncodeTiled") == 0;
  *funcPtr = found ? reinterpret_cast<void*>(&tensorMapEncodeTiled) : nullptr;
  if (status) *status = found ? cudaDriverEntryPointSuccess : cudaDriverEntryPointSymbolNotFound;
  if (!found) Runtime::warn(std::string("cudaGetDriverEntryPoint: the driver function ") + symbol + " is not emulated");
  return cudaSuccess;
}

cudaError_t cudaGetDriverEntryPoint(const char* symbol, void** funcPtr, unsigned long long flags,
                                    cudaDriverEntryPointQueryResult* status) {
  return cudaGetDriverEntryPointByVersion(symbol, funcPtr, CUDART_VERSION, flags, status);
}

cudaError_t cudaProfilerStart() { return cudaSuccess; }
cudaError_t cudaProfilerStop() { return cudaSuccess; }

// Every other function of NVIDIA's libcudart.so.13 is a stub (tools/cudart/Stubs.cmake) that
// calls this: it names the function once and returns cudaErrorNotSupported, which the program's
// error check then reports.
__attribute__((visibility("hidden"))) int ptxrunUnsupported(const char* name) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  if (r.unsupportedSeen.insert(name).second)
    Runtime::warn(std::string(name) + " is not implemented by ptxrun's CUDA runtime (docs/CUDART.md lists what is): "
                  "it returns cudaErrorNotSupported");
  return r.fail(cudaErrorNotSupported);
}

}  // extern "C"
