// The CUDA fat binary reader (src/cudart/Fatbin.cpp) on images built byte by byte here.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include <lz4.h>
#include <zstd.h>

#include "ptxopt/cudart/Fatbin.h"

using namespace ptxopt::cudart;

namespace {

using Bytes = std::vector<uint8_t>;

void put(Bytes& b, size_t at, uint64_t v, size_t n) {
  if (b.size() < at + n) b.resize(at + n);
  for (size_t i = 0; i < n; ++i) b[at + i] = uint8_t(v >> (8 * i));
}

struct EntrySpec {
  uint16_t kind = kFatbinKindPtx;
  uint32_t arch = 75;
  std::string contents;     // uncompressed
  Compression compression = Compression::None;
  uint32_t headerSize = 80; // as nvcc writes PTX entries (64 for cubins)
};

// An entry laid out as nvcc 13 writes it: the header, then the payload padded to 8 bytes.
Bytes entryBytes(const EntrySpec& s) {
  Bytes payload;
  uint64_t flags = 0x11;
  if (s.compression == Compression::None) {
    payload.assign(s.contents.begin(), s.contents.end());
  } else if (s.compression == Compression::Zstd) {
    payload.resize(ZSTD_compressBound(s.contents.size()));
    size_t n = ZSTD_compress(payload.data(), payload.size(), s.contents.data(), s.contents.size(), 3);
    EXPECT_FALSE(ZSTD_isError(n));
    payload.resize(n);
    flags |= kFatbinFlagZstd;
  } else {
    payload.resize(LZ4_compressBound(int(s.contents.size())));
    int n = LZ4_compress_default(s.contents.data(), reinterpret_cast<char*>(payload.data()), int(s.contents.size()),
                                 int(payload.size()));
    EXPECT_GT(n, 0);
    payload.resize(size_t(n));
    flags |= kFatbinFlagLz4;
  }
  size_t compressed = payload.size();
  payload.resize((payload.size() + 7) / 8 * 8);
  Bytes h(s.headerSize, 0);
  put(h, 0, s.kind, 2);
  put(h, 2, 0x0101, 2);
  put(h, 4, s.headerSize, 4);
  put(h, 8, payload.size(), 8);
  if (s.compression != Compression::None) put(h, 16, compressed, 4);
  put(h, 24, 0, 2);  // version 9.0
  put(h, 26, 9, 2);
  put(h, 28, s.arch, 4);
  put(h, 40, flags, 8);
  if (s.compression != Compression::None) put(h, 56, s.contents.size(), 8);
  h.insert(h.end(), payload.begin(), payload.end());
  return h;
}

Bytes imageBytes(const std::vector<EntrySpec>& entries) {
  Bytes body;
  for (const EntrySpec& e : entries) {
    Bytes b = entryBytes(e);
    body.insert(body.end(), b.begin(), b.end());
  }
  Bytes img;
  put(img, 0, kFatbinImageMagic, 4);
  put(img, 4, 1, 2);
  put(img, 6, 16, 2);
  put(img, 8, body.size(), 8);
  img.insert(img.end(), body.begin(), body.end());
  return img;
}

const std::string kPtx = ".version 9.0\n.target sm_75\n.address_size 64\n\n.visible .entry k()\n{\nret;\n}\n";

std::string parseError(const Bytes& b) {
  FatbinImage image;
  std::string error;
  EXPECT_FALSE(parseFatbinImage(b, image, error));
  return error;
}

TEST(Fatbin, PlainPtxAndCubinEntries) {
  EntrySpec elf{kFatbinKindElf, 90, std::string("\x7f" "ELF....", 8), Compression::None, 64};
  EntrySpec ptx{kFatbinKindPtx, 90, kPtx + std::string("\0\0\0", 3), Compression::None, 80};
  Bytes b = imageBytes({elf, ptx});
  FatbinImage image;
  std::string error;
  ASSERT_TRUE(parseFatbinImage(b, image, error)) << error;
  EXPECT_EQ(image.size, b.size());
  ASSERT_EQ(image.entries.size(), 2u);
  EXPECT_TRUE(image.entries[0].isElf());
  EXPECT_EQ(image.entries[0].arch, 90u);
  EXPECT_EQ(image.entries[0].headerSize, 64u);
  EXPECT_TRUE(image.entries[1].isPtx());
  EXPECT_EQ(image.entries[1].versionMajor, 9u);
  EXPECT_EQ(image.entries[1].versionMinor, 0u);
  EXPECT_EQ(image.entries[1].compression, Compression::None);
  std::string text;
  ASSERT_TRUE(entryPtx(image.entries[1], text, error)) << error;
  EXPECT_EQ(text, kPtx);  // the trailing NULs stripped
  EXPECT_FALSE(entryPtx(image.entries[0], text, error));
  EXPECT_NE(error.find("not PTX"), std::string::npos);
}

TEST(Fatbin, ZstdEntry) {
  Bytes b = imageBytes({{kFatbinKindPtx, 75, kPtx + '\0', Compression::Zstd, 80}});
  FatbinImage image;
  std::string error, text;
  ASSERT_TRUE(parseFatbinImage(b, image, error)) << error;
  ASSERT_EQ(image.entries.size(), 1u);
  EXPECT_EQ(image.entries[0].compression, Compression::Zstd);
  EXPECT_EQ(image.entries[0].uncompressedSize, kPtx.size() + 1);
  ASSERT_TRUE(entryPtx(image.entries[0], text, error)) << error;
  EXPECT_EQ(text, kPtx);
}

TEST(Fatbin, Lz4Entry) {
  Bytes b = imageBytes({{kFatbinKindPtx, 75, kPtx + '\0', Compression::Lz4, 80}});
  FatbinImage image;
  std::string error, text;
  ASSERT_TRUE(parseFatbinImage(b, image, error)) << error;
  EXPECT_EQ(image.entries[0].compression, Compression::Lz4);
  ASSERT_TRUE(entryPtx(image.entries[0], text, error)) << error;
  EXPECT_EQ(text, kPtx);
}

TEST(Fatbin, CorruptCompressedData) {
  for (Compression c : {Compression::Zstd, Compression::Lz4}) {
    Bytes b = imageBytes({{kFatbinKindPtx, 75, kPtx, c, 80}});
    // Overwrite the start of the compressed stream.
    for (size_t i = 16 + 80; i < 16 + 80 + 8; ++i) b[i] = 0xff;
    FatbinImage image;
    std::string error, text;
    ASSERT_TRUE(parseFatbinImage(b, image, error)) << error;
    EXPECT_FALSE(entryPtx(image.entries[0], text, error));
    EXPECT_NE(error.find("decompression"), std::string::npos) << error;
  }
  // A wrong uncompressed size is an error too, not a short or long text.
  Bytes b = imageBytes({{kFatbinKindPtx, 75, kPtx, Compression::Lz4, 80}});
  put(b, 16 + 56, kPtx.size() + 5, 8);
  FatbinImage image;
  std::string error, text;
  ASSERT_TRUE(parseFatbinImage(b, image, error)) << error;
  EXPECT_FALSE(entryPtx(image.entries[0], text, error));
}

TEST(Fatbin, BadMagic) {
  Bytes b = imageBytes({{kFatbinKindPtx, 75, kPtx}});
  b[0] ^= 1;
  EXPECT_NE(parseError(b).find("not a fatbin image"), std::string::npos);
}

TEST(Fatbin, EveryTruncationIsAnError) {
  Bytes b = imageBytes({{kFatbinKindElf, 75, std::string(40, 'x'), Compression::None, 64},
                        {kFatbinKindPtx, 75, kPtx, Compression::Zstd, 80}});
  for (size_t n = 0; n < b.size(); ++n) {
    // A copy of exactly n bytes, so that a read past the end is an address sanitizer error.
    Bytes cut(b.begin(), b.begin() + long(n));
    std::string error = parseError(cut);
    EXPECT_NE(error.find("truncated"), std::string::npos) << n << ": " << error;
  }
}

TEST(Fatbin, MalformedHeaders) {
  Bytes good = imageBytes({{kFatbinKindPtx, 75, kPtx}});
  Bytes b = good;
  put(b, 6, 8, 2);  // image header size below 16
  EXPECT_NE(parseError(b).find("header size"), std::string::npos);
  b = good;
  put(b, 16 + 4, 0, 4);  // entry header size 0: would never advance
  EXPECT_NE(parseError(b).find("header size of 0"), std::string::npos);
  b = good;
  put(b, 16 + 8, ~uint64_t(0), 8);  // payload size that overflows
  EXPECT_NE(parseError(b).find("truncated"), std::string::npos);
  b = good;
  put(b, 16 + 40, 0x11 | kFatbinFlagZstd | kFatbinFlagLz4, 8);
  EXPECT_NE(parseError(b).find("both"), std::string::npos);
  b = good;
  put(b, 16 + 40, 0x11 | kFatbinFlagZstd, 8);  // compressed, but a compressed size of 0
  EXPECT_NE(parseError(b).find("compressed byte(s)"), std::string::npos);
  b = good;
  put(b, 16 + 40, 0x11 | kFatbinFlagZstd, 8);
  put(b, 16 + 16, 8, 4);
  put(b, 16 + 56, uint64_t(1) << 40, 8);  // absurd uncompressed size
  EXPECT_NE(parseError(b).find("limit"), std::string::npos);
}

TEST(Fatbin, SeveralImagesAndChoosingPtx) {
  Bytes a = imageBytes({{kFatbinKindElf, 75, "elf-bits", Compression::None, 64}});
  Bytes b = imageBytes({{kFatbinKindPtx, 90, "ptx90", Compression::None, 80},
                        {kFatbinKindPtx, 75, "ptx75", Compression::Zstd, 80},
                        {kFatbinKindPtx, 100, "ptx100", Compression::None, 80}});
  Bytes all = a;
  all.resize(all.size() + 8, 0);  // padding between images
  all.insert(all.end(), b.begin(), b.end());
  std::vector<FatbinImage> images;
  std::string error, text;
  ASSERT_TRUE(parseFatbinImages(all, images, error)) << error;
  ASSERT_EQ(images.size(), 2u);
  EXPECT_EQ(images[1].offset, a.size() + 8);
  EXPECT_EQ(choosePtxEntry(images, 70), nullptr);
  const FatbinEntry* e = choosePtxEntry(images, 89);
  ASSERT_NE(e, nullptr);
  ASSERT_TRUE(entryPtx(*e, text, error)) << error;
  EXPECT_EQ(text, "ptx75");
  e = choosePtxEntry(images, 90);
  ASSERT_TRUE(e && entryPtx(*e, text, error));
  EXPECT_EQ(text, "ptx90");
  e = choosePtxEntry(images, 120);
  ASSERT_TRUE(e && entryPtx(*e, text, error));
  EXPECT_EQ(text, "ptx100");
  // A raw fatbin file is found as it is.
  ASSERT_TRUE(findFatbinImages(all, images, error)) << error;
  EXPECT_EQ(images.size(), 2u);
}

// A minimal ELF64 file: header, one .nv_fatbin section holding `contents`, the section name
// table, then the section headers.
Bytes elfWith(const Bytes& contents, const std::string& sectionName = ".nv_fatbin") {
  // (Sized once and filled with memcpy: GCC 12's -Warray-bounds misfires on vector::insert here.)
  std::string names = std::string("\0", 1) + sectionName + '\0' + ".shstrtab" + '\0';
  size_t dataOff = 64, namesOff = dataOff + contents.size();
  size_t shoff = (namesOff + names.size() + 7) / 8 * 8;
  Bytes f(shoff + 3 * 64, 0);
  std::memcpy(f.data(), "\x7f" "ELF", 4);
  f[4] = 2;  // ELFCLASS64
  f[5] = 1;  // little-endian
  f[6] = 1;
  if (!contents.empty()) std::memcpy(f.data() + dataOff, contents.data(), contents.size());
  std::memcpy(f.data() + namesOff, names.data(), names.size());
  auto sect = [&](size_t i, uint32_t name, uint32_t type, uint64_t off, uint64_t size) {
    size_t at = shoff + 64 * i;
    put(f, at, name, 4);
    put(f, at + 4, type, 4);
    put(f, at + 24, off, 8);
    put(f, at + 32, size, 8);
  };
  sect(1, 1, 1, dataOff, contents.size());
  sect(2, uint32_t(1 + sectionName.size() + 1), 3, namesOff, names.size());
  put(f, 0x28, shoff, 8);
  put(f, 0x3a, 64, 2);
  put(f, 0x3c, 3, 2);
  put(f, 0x3e, 2, 2);
  return f;
}

TEST(Fatbin, ImagesInAnElfFile) {
  Bytes img = imageBytes({{kFatbinKindPtx, 75, kPtx, Compression::Zstd, 80}});
  Bytes f = elfWith(img);
  std::vector<FatbinImage> images;
  std::string error, text;
  ASSERT_TRUE(findFatbinImages(f, images, error)) << error;
  ASSERT_EQ(images.size(), 1u);
  EXPECT_EQ(images[0].offset, 64u);
  ASSERT_TRUE(entryPtx(images[0].entries[0], text, error)) << error;
  EXPECT_EQ(text, kPtx);

  EXPECT_FALSE(findFatbinImages(elfWith(img, ".data"), images, error));
  EXPECT_NE(error.find("no .nv_fatbin"), std::string::npos) << error;
  Bytes notElf = f;
  notElf[1] = 'X';
  EXPECT_FALSE(findFatbinImages(notElf, images, error));
  EXPECT_NE(error.find("neither an ELF file nor a fatbin"), std::string::npos) << error;
  Bytes elf32 = f;
  elf32[4] = 1;
  EXPECT_FALSE(findFatbinImages(elf32, images, error));
  EXPECT_NE(error.find("64-bit"), std::string::npos) << error;
  // Every truncation of the file is an error, never a read past its end.
  for (size_t n = 0; n < f.size(); ++n) {
    Bytes cut(f.begin(), f.begin() + long(n));
    EXPECT_FALSE(findFatbinImages(cut, images, error)) << n;
  }
  // Section headers that point outside the file.
  Bytes bad = f;
  put(bad, 0x28, f.size() - 10, 8);
  EXPECT_FALSE(findFatbinImages(bad, images, error));
  bad = f;
  put(bad, 0x3e, 7, 2);
  EXPECT_FALSE(findFatbinImages(bad, images, error));
  EXPECT_NE(error.find("name table index"), std::string::npos) << error;
}

}  // namespace
