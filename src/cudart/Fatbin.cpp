#include "ptxopt/cudart/Fatbin.h"

#include <climits>
#include <cstdio>
#include <cstring>

#include <lz4.h>
#include <zstd.h>

#include "ptxopt/support/Text.h"

namespace ptxopt::cudart {

namespace {

// Little-endian loads; the caller has checked that the bytes are there.
uint16_t load16(const uint8_t* p) { return uint16_t(p[0] | (p[1] << 8)); }
uint32_t load32(const uint8_t* p) { return uint32_t(load16(p)) | (uint32_t(load16(p + 2)) << 16); }
uint64_t load64(const uint8_t* p) { return uint64_t(load32(p)) | (uint64_t(load32(p + 4)) << 32); }

std::string num(uint64_t v) { return std::to_string(v); }

// Entry header fields (offsets from the start of the entry header; docs/CUDART.md).
constexpr size_t kEntryKind = 0, kEntryHeaderSize = 4, kEntryStoredSize = 8, kEntryCompressedSize = 16,
                 kEntryVersionMinor = 24, kEntryVersionMajor = 26, kEntryArch = 28, kEntryFlags = 40,
                 kEntryUncompressedSize = 56;

bool parseEntry(std::span<const uint8_t> image, uint64_t at, uint64_t end, FatbinEntry& e, std::string& error) {
  std::string where = "entry at image offset " + num(at);
  uint64_t left = end - at;
  if (left < kFatbinEntryHeaderMinSize) {
    error = "truncated fatbin: " + where + " has " + num(left) + " byte(s) left, an entry header needs " +
            num(kFatbinEntryHeaderMinSize);
    return false;
  }
  const uint8_t* h = image.data() + at;
  e.kind = load16(h + kEntryKind);
  e.headerSize = load32(h + kEntryHeaderSize);
  e.storedSize = load64(h + kEntryStoredSize);
  e.versionMinor = load16(h + kEntryVersionMinor);
  e.versionMajor = load16(h + kEntryVersionMajor);
  e.arch = load32(h + kEntryArch);
  e.flags = load64(h + kEntryFlags);
  e.headerOffset = at;
  if (e.headerSize < kFatbinEntryHeaderMinSize) {
    error = "malformed fatbin: " + where + " gives a header size of " + num(e.headerSize) + " (at least " +
            num(kFatbinEntryHeaderMinSize) + " expected)";
    return false;
  }
  if (e.headerSize > left || e.storedSize > left - e.headerSize) {
    error = "truncated fatbin: " + where + " declares " + num(e.headerSize) + " header and " + num(e.storedSize) +
            " payload byte(s), but the image has " + num(left) + " byte(s) left";
    return false;
  }
  e.payloadOffset = at + e.headerSize;
  bool zstd = (e.flags & kFatbinFlagZstd) != 0, lz4 = (e.flags & kFatbinFlagLz4) != 0;
  if (zstd && lz4) {
    error = "malformed fatbin: " + where + " has flags " + hexNumber(e.flags) + ", both zstd (0x8000) and LZ4 (0x2000)";
    return false;
  }
  e.compression = zstd ? Compression::Zstd : lz4 ? Compression::Lz4 : Compression::None;
  if (e.compression == Compression::None) {
    e.compressedSize = 0;
    e.uncompressedSize = e.storedSize;
    e.data = image.subspan(e.payloadOffset, e.storedSize);
    return true;
  }
  e.compressedSize = load32(h + kEntryCompressedSize);
  e.uncompressedSize = load64(h + kEntryUncompressedSize);
  if (e.compressedSize == 0 || e.compressedSize > e.storedSize) {
    error = "malformed fatbin: " + where + " is " + compressionName(e.compression) + "-compressed with " +
            num(e.compressedSize) + " compressed byte(s) in a payload of " + num(e.storedSize);
    return false;
  }
  if (e.uncompressedSize > kFatbinMaxUncompressedSize) {
    error = "malformed fatbin: " + where + " declares an uncompressed size of " + num(e.uncompressedSize) +
            " byte(s), more than the limit of " + num(kFatbinMaxUncompressedSize);
    return false;
  }
  e.data = image.subspan(e.payloadOffset, e.compressedSize);
  return true;
}

}  // namespace

const char* compressionName(Compression c) {
  switch (c) {
    case Compression::None: return "none";
    case Compression::Lz4: return "lz4";
    case Compression::Zstd: return "zstd";
  }
  return "?";
}

const char* entryKindName(uint16_t kind) {
  switch (kind) {
    case kFatbinKindPtx: return "ptx";
    case kFatbinKindElf: return "elf";
  }
  return "unknown";
}

bool parseFatbinImage(std::span<const uint8_t> bytes, FatbinImage& image, std::string& error) {
  image = FatbinImage{};
  if (bytes.size() < kFatbinImageHeaderSize) {
    error = "truncated fatbin: " + num(bytes.size()) + " byte(s), an image header needs " + num(kFatbinImageHeaderSize);
    return false;
  }
  uint32_t magic = load32(bytes.data());
  if (magic != kFatbinImageMagic) {
    error = "not a fatbin image: magic " + hexNumber(magic) + ", expected " + hexNumber(kFatbinImageMagic);
    return false;
  }
  image.version = load16(bytes.data() + 4);
  image.headerSize = load16(bytes.data() + 6);
  uint64_t entriesSize = load64(bytes.data() + 8);
  if (image.headerSize < kFatbinImageHeaderSize || image.headerSize > bytes.size()) {
    error = "malformed fatbin: image header size " + num(image.headerSize) + " (the image has " + num(bytes.size()) +
            " byte(s); at least " + num(kFatbinImageHeaderSize) + " expected)";
    return false;
  }
  if (entriesSize > bytes.size() - image.headerSize) {
    error = "truncated fatbin: the image declares " + num(entriesSize) + " byte(s) of entries, " +
            num(bytes.size() - image.headerSize) + " follow its header";
    return false;
  }
  image.size = image.headerSize + entriesSize;
  std::span<const uint8_t> whole = bytes.first(image.size);
  for (uint64_t at = image.headerSize; at < image.size;) {
    FatbinEntry e;
    if (!parseEntry(whole, at, image.size, e, error)) return false;
    at = e.payloadOffset + e.storedSize;
    image.entries.push_back(e);
  }
  return true;
}

bool parseFatbinImages(std::span<const uint8_t> bytes, std::vector<FatbinImage>& images, std::string& error) {
  const uint8_t magic[4] = {0x50, 0xED, 0x55, 0xBA};
  uint64_t at = 0;
  while (at + sizeof magic <= bytes.size()) {
    const uint8_t* found = static_cast<const uint8_t*>(
        memmem(bytes.data() + at, bytes.size() - at, magic, sizeof magic));
    if (!found) break;
    uint64_t start = uint64_t(found - bytes.data());
    FatbinImage image;
    if (!parseFatbinImage(bytes.subspan(start), image, error)) {
      error = "image at offset " + num(start) + ": " + error;
      return false;
    }
    image.offset = start;
    at = start + image.size;
    images.push_back(std::move(image));
  }
  return true;
}

bool entryContents(const FatbinEntry& entry, std::string& contents, std::string& error) {
  contents.clear();
  switch (entry.compression) {
    case Compression::None:
      contents.assign(reinterpret_cast<const char*>(entry.data.data()), entry.data.size());
      return true;
    case Compression::Zstd: {
      uint64_t size = entry.uncompressedSize;
      if (size == 0) {
        unsigned long long framed = ZSTD_getFrameContentSize(entry.data.data(), entry.data.size());
        if (framed == ZSTD_CONTENTSIZE_ERROR || framed == ZSTD_CONTENTSIZE_UNKNOWN || framed > kFatbinMaxUncompressedSize) {
          error = "zstd-compressed entry without a usable uncompressed size";
          return false;
        }
        size = framed;
      }
      contents.resize(size);
      size_t got = ZSTD_decompress(contents.data(), contents.size(), entry.data.data(), entry.data.size());
      if (ZSTD_isError(got)) {
        error = std::string("zstd decompression failed: ") + ZSTD_getErrorName(got);
        contents.clear();
        return false;
      }
      if (got != size) {
        error = "zstd decompression gave " + num(got) + " byte(s), the entry declares " + num(size);
        contents.clear();
        return false;
      }
      return true;
    }
    case Compression::Lz4: {
      uint64_t size = entry.uncompressedSize;
      if (entry.data.size() > uint64_t(LZ4_MAX_INPUT_SIZE) || size > uint64_t(INT_MAX)) {
        error = "LZ4-compressed entry too large (" + num(entry.data.size()) + " -> " + num(size) + " bytes)";
        return false;
      }
      contents.resize(size);
      int got = LZ4_decompress_safe(reinterpret_cast<const char*>(entry.data.data()), contents.data(),
                                    static_cast<int>(entry.data.size()), static_cast<int>(size));
      if (got < 0 || uint64_t(got) != size) {
        error = got < 0 ? std::string("LZ4 decompression failed: malformed block")
                        : "LZ4 decompression gave " + num(uint64_t(got)) + " byte(s), the entry declares " + num(size);
        contents.clear();
        return false;
      }
      return true;
    }
  }
  error = "unknown compression";
  return false;
}

bool entryPtx(const FatbinEntry& entry, std::string& text, std::string& error) {
  if (!entry.isPtx()) {
    error = std::string("the entry is not PTX but ") + entryKindName(entry.kind);
    return false;
  }
  if (!entryContents(entry, text, error)) return false;
  while (!text.empty() && text.back() == '\0') text.pop_back();
  return true;
}

const FatbinEntry* choosePtxEntry(const std::vector<FatbinImage>& images, uint32_t maxArch) {
  const FatbinEntry* best = nullptr;
  for (const FatbinImage& image : images)
    for (const FatbinEntry& e : image.entries)
      if (e.isPtx() && e.arch <= maxArch && (!best || e.arch > best->arch)) best = &e;
  return best;
}

bool elfSections(std::span<const uint8_t> file, std::vector<ElfSection>& sections, std::string& error) {
  sections.clear();
  constexpr size_t kEhdrSize = 64, kShdrSize = 64;
  if (file.size() < kEhdrSize || std::memcmp(file.data(), "\x7f" "ELF", 4) != 0) {
    error = "not an ELF file";
    return false;
  }
  if (file[4] != 2 || file[5] != 1) {
    error = "not a 64-bit little-endian ELF file (class " + num(file[4]) + ", data " + num(file[5]) + ")";
    return false;
  }
  const uint8_t* h = file.data();
  uint64_t shoff = load64(h + 0x28);
  uint16_t shentsize = load16(h + 0x3a);
  uint64_t shnum = load16(h + 0x3c);
  uint64_t shstrndx = load16(h + 0x3e);
  if (shoff == 0) return true;  // no section headers
  if (shentsize < kShdrSize) {
    error = "malformed ELF file: section header size " + num(shentsize);
    return false;
  }
  auto header = [&](uint64_t i) -> const uint8_t* {
    if (shoff > file.size() || i >= (file.size() - shoff) / shentsize) return nullptr;
    return h + shoff + i * shentsize;
  };
  const uint8_t* first = header(0);
  if (!first) {
    error = "truncated ELF file: section headers at offset " + num(shoff) + " past the end (" + num(file.size()) + " bytes)";
    return false;
  }
  // More sections than fit in e_shnum, or a string table index past SHN_LORESERVE: the real
  // values are in section 0.
  if (shnum == 0) shnum = load64(first + 32);
  if (shstrndx == 0xffff) shstrndx = load32(first + 40);
  if (shnum == 0 || !header(shnum - 1)) {
    error = "truncated ELF file: " + num(shnum) + " section header(s) at offset " + num(shoff) + " do not fit in " +
            num(file.size()) + " bytes";
    return false;
  }
  if (shstrndx >= shnum) {
    error = "malformed ELF file: section name table index " + num(shstrndx) + " of " + num(shnum) + " sections";
    return false;
  }
  const uint8_t* strHeader = header(shstrndx);
  uint64_t strOff = load64(strHeader + 24), strSize = load64(strHeader + 32);
  if (strOff > file.size() || strSize > file.size() - strOff) {
    error = "truncated ELF file: the section name table lies past the end";
    return false;
  }
  std::string_view names(reinterpret_cast<const char*>(h + strOff), strSize);
  for (uint64_t i = 0; i < shnum; ++i) {
    const uint8_t* s = header(i);
    ElfSection sec;
    uint32_t nameOff = load32(s);
    uint32_t type = load32(s + 4);
    sec.address = load64(s + 16);
    sec.offset = load64(s + 24);
    sec.size = load64(s + 32);
    if (nameOff < names.size()) {
      std::string_view rest = names.substr(nameOff);
      sec.name = std::string(rest.substr(0, rest.find('\0')));
    }
    constexpr uint32_t kShtNobits = 8;
    if (type == kShtNobits) sec.size = 0;
    else if (type != 0 && (sec.offset > file.size() || sec.size > file.size() - sec.offset)) {
      error = "truncated ELF file: section " + num(i) + " ('" + sec.name + "') lies past the end";
      return false;
    }
    sections.push_back(std::move(sec));
  }
  return true;
}

bool elfNeededLibraries(std::span<const uint8_t> file, std::vector<std::string>& needed, std::string& error) {
  needed.clear();
  std::vector<ElfSection> sections;
  if (!elfSections(file, sections, error)) return false;
  const ElfSection *dyn = nullptr, *dynstr = nullptr;
  for (const ElfSection& s : sections) {
    if (s.name == ".dynamic") dyn = &s;
    if (s.name == ".dynstr") dynstr = &s;
  }
  if (!dyn || !dynstr) {
    error = "no dynamic section";
    return false;
  }
  // elfSections checked that both lie inside the file.
  constexpr uint64_t kDtNull = 0, kDtNeeded = 1;
  for (uint64_t at = 0; at + 16 <= dyn->size; at += 16) {
    uint64_t tag = load64(file.data() + dyn->offset + at), val = load64(file.data() + dyn->offset + at + 8);
    if (tag == kDtNull) break;
    if (tag != kDtNeeded || val >= dynstr->size) continue;
    std::string_view rest(reinterpret_cast<const char*>(file.data() + dynstr->offset + val), dynstr->size - val);
    needed.emplace_back(rest.substr(0, rest.find('\0')));
  }
  return true;
}

bool findFatbinImages(std::span<const uint8_t> file, std::vector<FatbinImage>& images, std::string& error) {
  images.clear();
  if (file.size() >= 4 && load32(file.data()) == kFatbinImageMagic) return parseFatbinImages(file, images, error);
  std::vector<ElfSection> sections;
  if (!elfSections(file, sections, error)) {
    if (error == "not an ELF file") error = "neither an ELF file nor a fatbin";
    return false;
  }
  bool any = false;
  for (const ElfSection& s : sections) {
    if (s.name != ".nv_fatbin" && s.name != "__nv_relfatbin") continue;
    any = true;
    std::vector<FatbinImage> found;
    if (!parseFatbinImages(file.subspan(s.offset, s.size), found, error)) {
      error = "section " + s.name + ": " + error;
      return false;
    }
    for (FatbinImage& image : found) {
      image.offset += s.offset;
      images.push_back(std::move(image));
    }
  }
  if (!any) {
    error = "no .nv_fatbin section: the file holds no CUDA fat binary";
    return false;
  }
  return true;
}

}  // namespace ptxopt::cudart
