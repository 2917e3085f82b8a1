// CUDA arrays, texture and surface objects of the stand-in (docs/CUDART.md, "Textures"): they
// describe emu::TextureDesc records that the Device's global memory keeps.
#include "Runtime.h"

using namespace ptxopt::standin;

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
  if (flags & cudaArrayCubemap) {  // six square faces (six per cubemap of a layered one), as slices
    const bool layered = (flags & cudaArrayLayered) != 0;
    if (w != h || (layered ? d == 0 || d % 6 != 0 : d != 6)) {
      Runtime::warn("cudaMalloc3DArray: a cubemap's extent is (w, w, 6), a layered cubemap's (w, w, 6 * cubemaps); not (" +
                    std::to_string(w) + ", " + std::to_string(h) + ", " + std::to_string(d) + ")");
      return r.fail(cudaErrorInvalidValue);
    }
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
      if (a->flags & cudaArrayCubemap) {  // faces as the layers of a 2D layered texture
        d.cubemap = true;
        d.dims = 2;
        d.height = static_cast<uint32_t>(a->height);
        d.depth = static_cast<uint32_t>(a->depth);
      } else if (d.layered) {  // a 1D layered array is (width, 0, layers), a 2D one (width, height, layers)
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
  // A cubemap's faces are the layers of a 2D layered surface (surfCubemapread and friends
  // compile to suld/sust .a2d with the face as the layer).
  d.layered = (a->flags & (cudaArrayLayered | cudaArrayCubemap)) != 0;
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

}  // extern "C"
