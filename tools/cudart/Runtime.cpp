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
#include "Runtime.h"

#include "ptxopt/emu/TensorMap.h"

using namespace ptxopt::standin;

namespace {

// `ptxrun exec` learns that the program loaded this library, not another libcudart.
__attribute__((constructor)) void announce() { report("stand-in"); }

}  // namespace

namespace ptxopt::standin {

Runtime& rt() {
  static Runtime* r = new Runtime;  // never destroyed: programs call the API from their own destructors
  return *r;
}

}  // namespace ptxopt::standin


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

extern "C" {

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

// cuTensorMapEncodeTiled, the driver function a program reaches through
// cudaGetDriverEntryPoint{ByVersion}: it writes this emulator's tensor-map layout
// (include/ptxopt/emu/TensorMap.h) for cp.async.bulk.tensor. Interleave, element strides other
// than 1 and a swizzle of an innermost box other than its span (32, 64 or 128 bytes) are not
// emulated (CUDA_ERROR_NOT_SUPPORTED); the L2 promotion and the out-of-bounds fill change
// nothing (outside elements read as zeros).
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
  if (interleave != 0) return bad("interleave is not emulated", kNotSupported);
  // CU_TENSOR_MAP_SWIZZLE_32B, _64B, _128B (1 to 3) with an innermost box of that many bytes.
  if (swizzle < 0 || swizzle > 3) return bad("swizzle " + std::to_string(swizzle) + " is not emulated", kNotSupported);
  if (swizzle && uint64_t(boxDim[0]) * kElemBytes[dataType] != (16u << swizzle))
    return bad("a " + std::to_string(16u << swizzle) + "-byte swizzle of an innermost box of " +
                   std::to_string(uint64_t(boxDim[0]) * kElemBytes[dataType]) + " bytes is not emulated (only the swizzle's span)",
               kNotSupported);
  ptxopt::emu::TensorMapDesc d;
  d.rank = rank;
  d.elemBytes = kElemBytes[dataType];
  // The PTX ISA's element-type numbering (tensormap.replace's .elemtype) puts f32.ftz before f64
  // and bf16: CUDA's 8 (FLOAT64), 9 (BFLOAT16), 10 (FLOAT32_FTZ) are its 9, 10, 8.
  d.elemType = dataType == 8 ? 9 : dataType == 9 ? 10 : dataType == 10 ? 8 : dataType;
  d.base = reinterpret_cast<uint64_t>(globalAddress);
  d.swizzle = static_cast<uint8_t>(swizzle);
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
  if (!symbol || !funcPtr) return fail(cudaErrorInvalidValue);
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
