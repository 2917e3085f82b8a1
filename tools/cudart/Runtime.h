// The CUDA runtime stand-in's state (docs/CUDART.md): the process-wide Runtime over one emulated
// Device, what the program registered, and the helpers every part of the API shares. Internal to
// libcudart.so.13 (tools/cudart): Runtime.cpp holds registration, launches, memory, streams and
// the rest of the API, Textures.cpp CUDA arrays, texture and surface objects,
// DeviceProperties.cpp the device's description.
#pragma once

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
#include "ptxopt/passes/Pass.h"
#include "ptxopt/passes/PassManager.h"
#include "ptxopt/ptx/Parser.h"
#include "ptxopt/ptx/Printer.h"
#include "ptxopt/support/File.h"

namespace ptxopt::standin {


using ptxopt::emu::Device;

// The exit status of a program that --compare stopped.
constexpr int kCompareExit = 5;

class Runtime;
Runtime& rt();

// A line for `ptxrun exec` in PTXRUN_REPORT (appended: the program may be several processes).
inline void report(const std::string& line) {
  const char* path = std::getenv("PTXRUN_REPORT");
  if (!path || !*path) return;
  if (FILE* f = std::fopen(path, "a")) {
    std::fprintf(f, "%s\n", line.c_str());
    std::fclose(f);
  }
}


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

// The process-wide runtime (Runtime.cpp).
Runtime& rt();

// Records an error from a call that does not hold the runtime's lock.
inline cudaError_t fail(cudaError_t e) {
  Runtime& r = rt();
  std::lock_guard<std::mutex> g(r.mu);
  return r.fail(e);
}

// The answer of a query: `*out = value`, or cudaErrorInvalidValue without a place to put it.
inline cudaError_t answer(int* out, int value) {
  if (!out) return fail(cudaErrorInvalidValue);
  *out = value;
  return cudaSuccess;
}

}  // namespace ptxopt::standin
