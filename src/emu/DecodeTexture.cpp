// Decoding of texture and surface instructions: tex, tld4, suld, sust, txq, suq (Decoder.h).
#include "Decoder.h"
#include "ptxopt/emu/Texture.h"

namespace ptxopt::emu::decoding {

// tex.{1d,2d,3d,a1d,a2d,cube,acube}{.base,.level,.grad}.v4.{f32,s32,u32}.{f32,s32} {d0, d1, d2,
// d3}, [handle, {coords}]: a texture object in a .u64 register (or an immediate); a layered
// form's layer index (.s32) comes first among the coordinates (.acube: the cubemap's index), a
// 3D or .a2d form has a fourth, unused coordinate and so has .cube (x, y, z: a direction).
bool Decoder::decodeTexture(DFunction& f, const Instruction& inst, DInst& di) {
  if (inst.is(Opcode::Txq)) return decodeQuery(f, inst, di);
  int dims = 0;
  bool layered = false, cube = false;
  const bool gather = inst.is(Opcode::Tld4);
  const char* op = gather ? "tld4" : "tex";
  // .base, .level and .grad choose a mipmap level; every texture here has one (the runtime and
  // launch specs make no mipmapped textures), which they read as tex does: their extra operands
  // (a level, two gradient vectors) are not used.
  unsigned extra = 0;
  di.texGather = 0;
  for (Mod m : inst.mods()) {
    std::string_view name = modName(m, m_.strings());
    if (gather && (name == ".r" || name == ".g" || name == ".b" || name == ".a"))
      di.texGather = static_cast<uint8_t>(std::string_view("rgba").find(name[1]) + 1);
    if (name == ".1d") dims = 1;
    else if (name == ".2d") dims = 2;
    else if (name == ".3d") dims = 3;
    else if (name == ".a1d") dims = 1, layered = true;
    else if (name == ".a2d") dims = 2, layered = true;
    else if (!gather && name == ".cube") dims = 3, cube = true;
    else if (!gather && name == ".acube") dims = 3, cube = true, layered = true;
    else if (!gather && name == ".level") extra = 1;
    else if (!gather && name == ".grad") extra = 2;
    else if (!gather && name == ".base") extra = 0;
    else if (name == ".cube" || name == ".acube" || name == ".2dms" || name == ".a2dms" || name == ".level" ||
             name == ".grad" || name == ".base")
      return fail(op + std::string(name) + " is not emulated");
  }
  if (!dims) return fail(std::string(op) + " without a geometry (.1d, .2d, .3d, .a1d, .a2d, .cube, .acube)");
  if (gather && (dims != 2 || !di.texGather)) return fail("tld4 other than .r/.g/.b/.a .2d/.a2d is not emulated");
  if (gather && inst.type(1) != ScalarType::F32) return fail("tld4 coordinates must be .f32");
  if (inst.vectorWidth() != 4) return fail("tex results other than .v4 are not emulated");
  const ScalarType dt = inst.type(0), ct = inst.type(1);
  if (dt != ScalarType::F32 && dt != ScalarType::S32 && dt != ScalarType::U32)
    return fail("tex results of type " + std::string(typeName(dt)) + " are not emulated (.f32, .s32, .u32)");
  if (ct != ScalarType::F32 && ct != ScalarType::S32) return fail("tex coordinates must be .f32 or .s32");
  if (cube && ct != ScalarType::F32) return invalid("tex.cube and tex.acube coordinates are .f32");
  if (inst.numOperands() != 2 + extra)
    return fail(std::string(op) + " with a predicate result, an offset or a depth comparison is not emulated");
  const Operand& res = inst.operand(0);
  const Operand& addr = inst.operand(1);
  if (res.kind != OperandKind::Vector || res.aux != 4) return fail("tex needs a vector of four results");
  for (const Operand& e : inst.elements(res))
    if (!dstSlot(e, di.dst[di.ndst++])) return false;
  if (addr.kind != OperandKind::Bracket || addr.aux != 2)
    return fail("tex needs [texture, {coordinates}] (texture references and separate samplers are not emulated)");
  const Operand& handle = inst.elements(addr)[0];
  const Operand& coords = inst.elements(addr)[1];
  if (handle.kind != OperandKind::Reg && handle.kind != OperandKind::Imm)
    return fail("tex through a texture reference (a .texref name) is not emulated; use a texture object");
  if (!srcSlot(f, handle, ScalarType::U64, di.src[di.nsrc++])) return false;
  std::vector<Operand> cs;
  if (coords.kind == OperandKind::Vector) {
    for (const Operand& e : inst.elements(coords)) cs.push_back(e);
  } else {
    cs.push_back(coords);
  }
  const size_t need = static_cast<size_t>(dims + (layered ? 1 : 0));
  if (cs.size() < need) return fail("tex needs " + std::to_string(need) + " coordinates");
  for (size_t k = 0; k < need; ++k)
    if (!srcSlot(f, cs[k], layered && k == 0 ? ScalarType::S32 : ct, di.src[di.nsrc++])) return false;
  di.op = XOp::Tex;
  di.texDims = static_cast<uint8_t>(dims);
  di.texLayered = layered;
  di.texCube = cube;
  di.texIntCoords = ct == ScalarType::S32;
  return true;
}

// suld.b.{1d,2d,3d,a1d,a2d}{.v2,.v4}.{b8,b16,b32,b64}{.trap,.clamp,.zero} {d...}, [surf, {coords}]
// and sust.b... [surf, {coords}], {a...}: a surface object in a .u64 register; x is in bytes,
// the other coordinates in rows and slices; a layered form's layer comes first.
bool Decoder::decodeSurface(DFunction& f, const Instruction& inst, DInst& di) {
  if (inst.is(Opcode::Suq)) return decodeQuery(f, inst, di);
  const bool store = inst.is(Opcode::Sust);
  int dims = 0;
  bool layered = false, raw = false;
  di.surfaceOob = 0;
  for (Mod m : inst.mods()) {
    std::string_view name = modName(m, m_.strings());
    if (name == ".1d") dims = 1;
    else if (name == ".2d") dims = 2;
    else if (name == ".3d") dims = 3;
    else if (name == ".a1d") dims = 1, layered = true;
    else if (name == ".a2d") dims = 2, layered = true;
    else if (name == ".b") raw = true;
    else if (name == ".trap") di.surfaceOob = 0;
    else if (name == ".clamp") di.surfaceOob = 1;
    else if (name == ".zero") di.surfaceOob = 2;
    else if (name == ".p") return fail(std::string(store ? "sust" : "suld") + ".p (formatted access) is not emulated");
  }
  if (!raw) return fail("surface access without .b is not emulated");
  if (!dims) return fail("surface access without a geometry (.1d, .2d, .3d, .a1d, .a2d)");
  const unsigned bits = typeBits(inst.type(0));
  if (bits != 8 && bits != 16 && bits != 32 && bits != 64) return fail("surface elements are .b8, .b16, .b32 or .b64");
  di.vec = static_cast<uint8_t>(inst.vectorWidth());
  di.elemBytes = static_cast<uint8_t>(bits / 8);
  if (inst.numOperands() != 2) return fail("surface access with other operands is not emulated");
  const Operand& addr = inst.operand(store ? 0 : 1);
  const Operand& data = inst.operand(store ? 1 : 0);
  if (addr.kind != OperandKind::Bracket || addr.aux != 2) return fail("surface access needs [surface, {coordinates}]");
  const Operand& handle = inst.elements(addr)[0];
  const Operand& coords = inst.elements(addr)[1];
  if (handle.kind != OperandKind::Reg && handle.kind != OperandKind::Imm)
    return fail("surface references (.surfref names) are not emulated; use a surface object");
  if (!srcSlot(f, handle, ScalarType::U64, di.src[di.nsrc++])) return false;
  std::vector<Operand> cs, ds;
  if (coords.kind == OperandKind::Vector) {
    for (const Operand& e : inst.elements(coords)) cs.push_back(e);
  } else {
    cs.push_back(coords);
  }
  if (data.kind == OperandKind::Vector) {
    for (const Operand& e : inst.elements(data)) ds.push_back(e);
  } else {
    ds.push_back(data);
  }
  const size_t need = static_cast<size_t>(dims + (layered ? 1 : 0));
  if (cs.size() < need) return fail("surface access needs " + std::to_string(need) + " coordinates");
  if (ds.size() != di.vec) return fail("surface access with " + std::to_string(ds.size()) + " values for .v" + std::to_string(di.vec));
  for (size_t k = 0; k < need; ++k)
    if (!srcSlot(f, cs[k], ScalarType::S32, di.src[di.nsrc++])) return false;
  for (const Operand& e : ds)
    if (store ? !srcSlot(f, e, inst.type(0), di.src[di.nsrc++]) : !dstSlot(e, di.dst[di.ndst++])) return false;
  di.op = store ? XOp::Sust : XOp::Suld;
  di.texDims = static_cast<uint8_t>(dims);
  di.texLayered = layered;
  return true;
}

// txq{.level}.QUERY.b32 d, [handle]{, lod} and suq.QUERY.b32 d, [handle]: an attribute of the
// texture or surface object in a .u64 register (texture and surface references and separate
// samplers are not emulated). The values are queryTexture's.
bool Decoder::decodeQuery(DFunction& f, const Instruction& inst, DInst& di) {
  const bool surface = inst.is(Opcode::Suq);
  const char* op = surface ? "suq" : "txq";
  bool level = false, found = false;
  TexQuery q = TexQuery::Width;
  for (Mod m : inst.mods()) {
    std::string_view name = modName(m, m_.strings());
    if (!surface && name == ".level") {
      level = true;
      continue;
    }
    TexQuery named;
    if (name.size() > 1 && texQueryOf(name.substr(1), named)) {
      if (found) return invalid(std::string(op) + " with two queries");
      q = named, found = true;
    }
  }
  if (!found) return fail(std::string(op) + " without a query the emulator knows");
  // Which object answers which query (the PTX ISA's lists): suq has no sampler queries and txq
  // no memory layout; .level asks for an extent.
  const bool sampler = q == TexQuery::ForceUnnormalizedCoords || q == TexQuery::FilterMode || q == TexQuery::AddrMode0 ||
                       q == TexQuery::AddrMode1 || q == TexQuery::AddrMode2;
  if (surface && (sampler || q == TexQuery::NormalizedCoords || q == TexQuery::NumMipmapLevels || q == TexQuery::NumSamples))
    return invalid(std::string("suq has no .") + texQueryName(q) + " query");
  if (!surface && q == TexQuery::MemoryLayout) return invalid("txq has no .memory_layout query (suq has)");
  if (level && q != TexQuery::Width && q != TexQuery::Height && q != TexQuery::Depth)
    return invalid(std::string("txq.level.") + texQueryName(q) + ": .level asks for .width, .height or .depth");
  if (typeBits(inst.type(0)) != 32) return invalid(std::string(op) + " results are .b32");
  if (inst.numOperands() != (level ? 3u : 2u))
    return invalid(std::string(op) + (level ? ".level takes d, [object], lod" : " takes d, [object]"));
  if (!dstSlot(inst.operand(0), di.dst[di.ndst++])) return false;
  const Operand& a = inst.operand(1);
  if (a.kind != OperandKind::Address || a.addressBase() != AddressBase::Reg || a.value != 0)
    return fail(std::string(op) + (surface ? " of a surface reference (a .surfref name) is not emulated; use a surface object"
                                           : " of a texture or sampler reference (a .texref or .samplerref name) is not emulated; "
                                             "use a texture object"));
  Operand handle;
  handle.kind = OperandKind::Reg;
  handle.id = a.id;
  if (!srcSlot(f, handle, ScalarType::U64, di.src[di.nsrc++])) return false;
  if (level && !srcSlot(f, inst.operand(2), ScalarType::S32, di.src[di.nsrc++])) return false;
  di.op = XOp::TexQuery;
  di.texQuery = static_cast<uint8_t>(q);
  di.texQuerySurface = surface;
  return true;
}

}  // namespace ptxopt::emu::decoding
