// Reading the CUDA fat binaries that nvcc embeds in host executables and objects: the images in
// an ELF file's .nv_fatbin section, their entries (PTX text or cubin ELF, per architecture), and
// the PTX text of an entry, decompressed (docs/CUDART.md has the layout).
//
// Every reader here is bounds-checked: truncated or malformed input gives `false` and an error
// string, never a read outside the bytes it was given.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace ptxopt::cudart {

// Magic numbers of a fatbin image header and of the wrapper records in .nvFatBinSegment.
constexpr uint32_t kFatbinImageMagic = 0xBA55ED50u;
constexpr uint32_t kFatbinWrapperMagic = 0x466243B1u;

// The image header (16 bytes) and the part of an entry header that the reader interprets.
constexpr size_t kFatbinImageHeaderSize = 16;
constexpr size_t kFatbinEntryHeaderMinSize = 64;

// Entry kinds (the u16 at offset 0 of an entry header).
constexpr uint16_t kFatbinKindPtx = 1;
constexpr uint16_t kFatbinKindElf = 2;

// Bits of an entry's flags (the u64 at offset 40) that say how its payload is compressed.
constexpr uint64_t kFatbinFlagLz4 = 0x2000;
constexpr uint64_t kFatbinFlagZstd = 0x8000;

// The largest uncompressed size the reader accepts (a guard against absurd headers).
constexpr uint64_t kFatbinMaxUncompressedSize = uint64_t(1) << 31;

enum class Compression { None, Lz4, Zstd };

const char* compressionName(Compression c);

struct FatbinEntry {
  uint16_t kind = 0;         // kFatbinKindPtx, kFatbinKindElf or another value
  uint32_t arch = 0;         // e.g. 75 for sm_75 / compute_75
  uint16_t versionMajor = 0; // PTX ISA version (e.g. 9.0) of a PTX entry
  uint16_t versionMinor = 0;
  uint32_t headerSize = 0;   // bytes of the entry header
  uint64_t flags = 0;
  Compression compression = Compression::None;
  uint64_t headerOffset = 0;     // of the entry header, from the start of the image
  uint64_t payloadOffset = 0;    // of the payload, from the start of the image
  uint64_t storedSize = 0;       // bytes of payload in the image (padding included)
  uint64_t compressedSize = 0;   // bytes of compressed data at the payload's start (0: none)
  uint64_t uncompressedSize = 0; // size after decompression (the stored size when not compressed)
  // The bytes as stored: the compressed stream when compressed, else the whole payload. Points
  // into the span given to parseFatbinImage.
  std::span<const uint8_t> data;

  bool isPtx() const { return kind == kFatbinKindPtx; }
  bool isElf() const { return kind == kFatbinKindElf; }
};

const char* entryKindName(uint16_t kind);

struct FatbinImage {
  uint64_t offset = 0;     // of the image in the container it was found in
  uint16_t version = 0;
  uint16_t headerSize = 0;
  uint64_t size = 0;       // of the whole image: header and entries
  std::vector<FatbinEntry> entries;
};

// Parses the image at the start of `bytes` (which may go on past the image). Returns false and
// sets `error` when the image is truncated or malformed.
bool parseFatbinImage(std::span<const uint8_t> bytes, FatbinImage& image, std::string& error);

// Parses every image in `bytes` (the contents of a .nv_fatbin section or a .fatbin file): the
// images follow one another, each at the next occurrence of the image magic.
bool parseFatbinImages(std::span<const uint8_t> bytes, std::vector<FatbinImage>& images, std::string& error);

// The entry's payload, decompressed when it is compressed.
bool entryContents(const FatbinEntry& entry, std::string& contents, std::string& error);

// The PTX text of a PTX entry: its contents without the trailing NUL bytes.
bool entryPtx(const FatbinEntry& entry, std::string& text, std::string& error);

// The PTX entry of the highest architecture not above `maxArch` (the first one in order when
// several have that architecture); nullptr when there is none.
const FatbinEntry* choosePtxEntry(const std::vector<FatbinImage>& images, uint32_t maxArch);

// Where a file's fatbin images are: the sections named .nv_fatbin (executables, objects) and
// __nv_relfatbin (objects compiled with -rdc) of a 64-bit little-endian ELF file.
struct ElfSection {
  std::string name;
  uint64_t offset = 0;
  uint64_t size = 0;
  uint64_t address = 0;
};
bool elfSections(std::span<const uint8_t> file, std::vector<ElfSection>& sections, std::string& error);

// The shared libraries a dynamically linked ELF file names (its DT_NEEDED entries, in order);
// false when it has no dynamic section (a static program, an object) or is not such a file.
bool elfNeededLibraries(std::span<const uint8_t> file, std::vector<std::string>& needed, std::string& error);

// Every fatbin image of `file`: an ELF executable, shared library or object with embedded fat
// binaries, or a fatbin file itself (nvcc -fatbin). Images' offsets are from the file's start.
// A file with no fatbin section is an error.
bool findFatbinImages(std::span<const uint8_t> file, std::vector<FatbinImage>& images, std::string& error);

}  // namespace ptxopt::cudart
