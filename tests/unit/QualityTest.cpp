// ptxopt-bench's readers on canned tool output: nvdisasm SASS text and `ptxas -v`, and the
// dynamic estimate on hand-made blocks. The lit tests in tests/lit/quality run the real tools.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>

#include "ptxopt/quality/Measure.h"
#include "ptxopt/quality/Program.h"
#include "ptxopt/quality/Report.h"
#include "ptxopt/quality/Sass.h"
#include "ptxopt/support/File.h"

using namespace ptxopt;
using namespace ptxopt::quality;

namespace {

// nvdisasm -c --print-line-info of a small sm_80 kernel. Its `.sectioninfo` line right after
// the `.section` line once closed the function (the census of every sm_80 kernel was 0).
const char* kSm80 = R"(	.target	sm_80

//--------------------- .text.k   --------------------------
	.section	.text.k,"ax",@progbits
	.sectioninfo	@"SHI_REGISTERS=15"
	.align	128
        .global         k
        .type           k,@function
        .other          k,@"STO_CUDA_ENTRY STV_DEFAULT"
k:
.text.k:
	//## File "k.ptx", line 21
        /*0000*/                   IMAD.MOV.U32 R1, RZ, RZ, c[0x0][0x28] ;
	//## File "k.ptx", line 37
        /*0010*/                   ISETP.GE.AND P0, PT, R0, c[0x0][0x170], PT ;
	//## File "k.ptx", line 39
        /*0020*/               @P0 BRA `(.L_x_0) ;
	//## File "k.ptx", line 41
        /*0030*/                   STG.E [R2.64], R0 ;
.L_x_0:
	//## File "k.ptx", line 45
        /*0040*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;
        /*0050*/                   EXIT ;
.L_x_1:
        /*0060*/                   BRA `(.L_x_1);
        /*0070*/                   NOP;
.L_x_2:

//--------------------- .text.helper   --------------------------
	.section	.text.helper,"ax",@progbits
        .type           helper,@function
helper:
	//## File "k.ptx", line 60
        /*0000*/                   IADD3 R4, R4, 0x1, RZ ;
        /*0010*/                   RET.REL.NODEC R20 `(k) ;

//--------------------- .nv.constant0.k   --------------------------
	.section	.nv.constant0.k,"a",@progbits
        /*0000*/ 	.byte	0x00, 0x00
)";

TEST(Quality, ParsesNvdisasmFunctionsLinesAndLabels) {
  auto fs = parseNvdisasm(kSm80);
  ASSERT_EQ(fs.size(), 2u);
  EXPECT_EQ(fs[0].name, "k");
  EXPECT_TRUE(fs[0].isEntry);
  EXPECT_FALSE(fs[1].isEntry);
  ASSERT_EQ(fs[0].instructions.size(), 8u);
  const SassInstruction& bra = fs[0].instructions[2];
  EXPECT_EQ(bra.base, "BRA");
  EXPECT_EQ(bra.predicate, "@P0");
  EXPECT_EQ(bra.target, ".L_x_0");
  EXPECT_EQ(bra.ptxLine, 39u);
  EXPECT_EQ(fs[0].instructions[4].label, ".L_x_0");
  EXPECT_EQ(fs[0].instructions[5].ptxLine, 45u);  // no new "//##" line: the line above holds
  EXPECT_EQ(fs[1].instructions.size(), 2u);         // the .byte data of .nv.constant0 is not code
}

TEST(Quality, CensusLeavesOutPaddingAndCountsKinds) {
  auto fs = parseNvdisasm(kSm80);
  SassCensus c = census(fs[0]);
  EXPECT_EQ(c.instructions, 6u);  // the self-loop BRA and the NOP are padding
  EXPECT_EQ(c.bra, 1u);
  EXPECT_EQ(c.bar, 1u);
  EXPECT_EQ(c.exit, 1u);
  EXPECT_EQ(c.predicated, 1u);
  EXPECT_EQ(kernelFunctions(fs, "k").size(), 2u);      // the entry and the non-entry function
  EXPECT_EQ(kernelFunctions(fs, "other").size(), 1u);  // another entry's module: only the callee
}

TEST(Quality, BlocksEndAtLabelsAndTransfers) {
  auto fs = parseNvdisasm(kSm80);
  auto blocks = sassBlocks(fs[0]);
  // [0..2] ends with @P0 BRA; [3] ends at the label; [4..5] ends with EXIT; then the padding:
  // [6] the self-loop BRA, [7] the NOP.
  ASSERT_EQ(blocks.size(), 5u);
  EXPECT_EQ(blocks[0].first, 0u);
  EXPECT_EQ(blocks[0].last, 2u);
  EXPECT_EQ(blocks[1].first, 3u);
  EXPECT_EQ(blocks[1].last, 3u);
  EXPECT_EQ(blocks[2].first, 4u);
  EXPECT_EQ(blocks[2].last, 5u);
  EXPECT_EQ(blocks[3].first, 6u);
  EXPECT_EQ(blocks[4].first, 7u);
}

TEST(Quality, EstimateWeighsBlocksByTheirLines) {
  auto fs = parseNvdisasm(kSm80);
  std::vector<SassFunction> kernel = {fs[0]};
  std::map<uint32_t, emu::LineMetrics> perLine;
  perLine[21].warpInstructions = 4;
  perLine[37].warpInstructions = 4;
  perLine[39].warpInstructions = 4;
  perLine[41].warpInstructions = 1;  // the store ran in one warp of four
  perLine[45].warpInstructions = 4;
  double coverage = 0;
  // 3 x 4 + 1 x 1 + 2 x 4 (BAR and EXIT; EXIT inherits line 45) = 21.
  EXPECT_DOUBLE_EQ(estimateDynamicSass(kernel, perLine, &coverage), 21.0);
  EXPECT_DOUBLE_EQ(coverage, 1.0);
}

TEST(Quality, EstimateTakesTheMajorityCountOfABlock) {
  // An if-converted block: four parent instructions (count 8) and two guarded ones from a side
  // that ran 3 times. The block issues 8 times.
  SassFunction f;
  f.name = "k";
  f.isEntry = true;
  uint32_t lines[] = {10, 11, 12, 20, 21, 13};
  for (uint32_t l : lines) {
    SassInstruction i;
    i.base = i.opcode = "IADD3";
    i.ptxLine = l;
    if (l >= 20) i.predicate = "@P1";
    f.instructions.push_back(i);
  }
  f.instructions.back().base = f.instructions.back().opcode = "EXIT";
  std::map<uint32_t, emu::LineMetrics> perLine;
  for (uint32_t l : {10u, 11u, 12u, 13u}) perLine[l].warpInstructions = 8;
  for (uint32_t l : {20u, 21u}) perLine[l].warpInstructions = 3;
  EXPECT_DOUBLE_EQ(estimateDynamicSass({f}, perLine), 6.0 * 8.0);
}

namespace {
// A SASS instruction for the estimate tests: opcode, PTX line, guard, branch target, label.
SassInstruction sass(const char* op, uint32_t line, const char* pred = "", const char* target = "", const char* label = "") {
  SassInstruction i;
  i.opcode = op;
  i.base = std::string(op).substr(0, std::string(op).find('.'));
  i.ptxLine = line;
  i.predicate = pred;
  i.target = target;
  i.label = label;
  return i;
}
}  // namespace

TEST(Quality, EstimateBoundsAFullyUnrolledLoopByItsEntry) {
  // ptxas unrolled a 16-trip loop completely: one straight block after `@P0 EXIT` holds the
  // body's copies, whose line ran 64 times (16 trips x 4 warps); the block issues 4 times, as
  // often as the block before it. Without the bound: 3 x 4 + 10 x 64 = 652.
  SassFunction f;
  f.name = "k";
  f.isEntry = true;
  f.instructions = {sass("IADD3", 10), sass("ISETP.GE.AND", 10), sass("EXIT", 11, "@P0")};
  for (int k = 0; k < 8; ++k) f.instructions.push_back(sass("IMAD", 50));
  f.instructions.push_back(sass("STG.E", 60));
  f.instructions.push_back(sass("EXIT", 61));
  std::map<uint32_t, emu::LineMetrics> perLine;
  for (uint32_t l : {10u, 11u, 60u, 61u}) perLine[l].warpInstructions = 4;
  perLine[50].warpInstructions = 64;
  EXPECT_DOUBLE_EQ(estimateDynamicSass({f}, perLine), 3.0 * 4 + 10.0 * 4);
}

TEST(Quality, EstimateBoundsOnlyByBoundsNotByVotes) {
  // A diamond whose BSYNC block votes for the else side's count (2 of 4 warps): the block after
  // it still issues 4 times (the bound is the sides' bounds added up, 8, not the BSYNC's vote).
  SassFunction f;
  f.name = "k";
  f.isEntry = true;
  f.instructions = {sass("ISETP.NE.AND", 10), sass("BRA", 11, "@P0", ".L1"),   // 4
                    sass("IADD3", 20), sass("BRA", 21, "", ".L2"),              // then: 2
                    sass("IADD3", 30, "", "", ".L1"),                           // else: 2
                    sass("BSYNC", 30, "", "", ".L2"),                           // votes 2
                    sass("STG.E", 40), sass("EXIT", 41)};                       // 4
  std::map<uint32_t, emu::LineMetrics> perLine;
  for (uint32_t l : {10u, 11u, 40u, 41u}) perLine[l].warpInstructions = 4;
  for (uint32_t l : {20u, 21u, 30u}) perLine[l].warpInstructions = 2;
  EXPECT_DOUBLE_EQ(estimateDynamicSass({f}, perLine), 2.0 * 4 + 2.0 * 2 + 1.0 * 2 + 1.0 * 2 + 2.0 * 4);
}

TEST(Quality, EstimateLetsFreelyPlacedInstructionsVoteLast) {
  // mma_ldmatrix_gemm's main loop (4 warps x 8 trips = 32): ptxas hoisted a constant load and the
  // BSSY of an inner copy loop that never runs (its lines count 0) into the loop's header, where
  // they outvoted the header's own compare 2 to 1; the whole loop then counted 0. They vote only
  // in a block without other votes.
  SassFunction f;
  f.name = "k";
  f.isEntry = true;
  f.instructions = {sass("IADD3", 10),                                               // 4
                    sass("ISETP.GT.AND", 20, "", "", ".LH"), sass("ULDC", 70),         // header: 32
                    sass("BSSY", 70), sass("BRA", 21, "@P0", ".LX"),
                    sass("LDG.E", 30), sass("STS", 31),                                // body: 32
                    sass("BSYNC", 40, "", "", ".LX"),                                  // 32 (BSYNC alone)
                    sass("ISETP.LE.AND", 50), sass("BRA", 51, "@!P0", ".LH"),          // latch: 32
                    sass("EXIT", 60)};                                                 // 4
  std::map<uint32_t, emu::LineMetrics> perLine;
  for (uint32_t l : {10u, 60u}) perLine[l].warpInstructions = 4;
  for (uint32_t l : {20u, 21u, 30u, 31u, 40u, 50u, 51u}) perLine[l].warpInstructions = 32;
  perLine[70].warpInstructions = 0;
  EXPECT_DOUBLE_EQ(estimateDynamicSass({f}, perLine), 1.0 * 4 + 4.0 * 32 + 2.0 * 32 + 1.0 * 32 + 2.0 * 32 + 1.0 * 4);
}

TEST(Quality, EstimateDividesALineAmongItsUnrolledCopies) {
  // ptxas unrolled a 10-trip loop by four: a main loop with four copies of line 50 (and its
  // control, lines 51-52, once) and a remainder loop with one copy of each. The lines ran 40
  // times (10 trips x 4 warps). Line 50 has five copies (8 each), lines 51-52 two (20 each): the
  // main loop's block takes 8 (four votes against three), the remainder's 20. Without the
  // division: 3 x 4 + 7 x 40 + 4 x 40 + 2 x 4 = 460; the true figure is 8 + 7 x 8 + 4 x 8 + 8 = 104.
  SassFunction f;
  f.name = "k";
  f.isEntry = true;
  f.instructions = {sass("IADD3", 10), sass("ISETP.GE.AND", 10), sass("EXIT", 11, "@P0")};
  f.instructions.push_back(sass("IMAD", 50, "", "", ".L1"));
  for (int k = 0; k < 3; ++k) f.instructions.push_back(sass("IMAD", 50));
  f.instructions.push_back(sass("IADD3", 51));
  f.instructions.push_back(sass("ISETP.NE.AND", 52));
  f.instructions.push_back(sass("BRA", 52, "@P1", ".L1"));
  f.instructions.push_back(sass("IMAD", 50, "", "", ".L2"));
  f.instructions.push_back(sass("IADD3", 51));
  f.instructions.push_back(sass("ISETP.NE.AND", 52));
  f.instructions.push_back(sass("BRA", 52, "@P2", ".L2"));
  f.instructions.push_back(sass("STG.E", 60));
  f.instructions.push_back(sass("EXIT", 61));
  std::map<uint32_t, emu::LineMetrics> perLine;
  for (uint32_t l : {10u, 11u, 60u, 61u}) perLine[l].warpInstructions = 4;
  for (uint32_t l : {50u, 51u, 52u}) perLine[l].warpInstructions = 40;
  EXPECT_DOUBLE_EQ(estimateDynamicSass({f}, perLine), 3.0 * 4 + 7.0 * 8 + 4.0 * 20 + 2.0 * 4);
}

TEST(Quality, ReadsPtxasVerbose) {
  const char* text =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function 'k' for 'sm_90'\n"
      "ptxas info    : Function properties for k\n"
      "    8 bytes stack frame, 12 bytes spill stores, 16 bytes spill loads\n"
      "ptxas info    : Used 17 registers, used 0 barriers\n"
      "ptxas info    : Function properties for helper\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n";
  auto r = parsePtxasVerbose(text);
  EXPECT_EQ(r["k"].registers, 17);
  EXPECT_EQ(r["k"].stackFrame, 8u);
  EXPECT_EQ(r["k"].spillStores, 12u);
  EXPECT_EQ(r["k"].spillLoads, 16u);
  EXPECT_EQ(r["helper"].registers, -1);
}

TEST(Quality, ParsesPipelines) {
  fuzz::Pipeline p;
  std::string error;
  ASSERT_TRUE(parsePipeline("branch-opt+dce@branch-opt.max-thread-depth=3", p, error)) << error;
  EXPECT_EQ(p.passes, (std::vector<std::string>{"branch-opt", "dce"}));
  EXPECT_EQ(p.knobs.at("branch-opt.max-thread-depth"), "3");
  ASSERT_TRUE(parsePipeline("-O0", p, error));
  EXPECT_TRUE(p.passes.empty());
  EXPECT_FALSE(parsePipeline("no-such-pass", p, error));
  EXPECT_NE(error.find("unknown pass 'no-such-pass'"), std::string::npos);
  EXPECT_FALSE(parsePipeline("-O2@oops", p, error));
}

// ptxopt-bench --program reads `ptxrun exec --metrics` back: modules, kernels, per-line counts.
TEST(Quality, ReadsProgramMetrics) {
  const char* json = R"({"format": "ptxrun-exec-metrics", "version": 1, "passes": "-O3", "launches": 3,
    "modules": [{"name": "module0.sm_75.ptx", "hash": "ab", "ptx": ".version 9.0", "optimized": false}],
    "kernels": [{"module": "module0.sm_75.ptx", "kernel": "k", "launches": 3, "warps": 6, "barriers": 2,
                 "branches": 4, "divergent_branches": 1, "max_reconvergence_depth": 2, "simt_efficiency": 0.5,
                 "thread_instructions": 100, "warp_instructions": 40,
                 "per_line": {"21": {"warp_instructions": 6, "thread_instructions": 192}, "23": {"warp_instructions": 3}}}],
    "total": {}})";
  ProgramRun run;
  std::string error;
  ASSERT_TRUE(readProgramRun(json, run, error)) << error;
  EXPECT_EQ(run.passes, "-O3");
  ASSERT_EQ(run.modules.size(), 1u);
  EXPECT_FALSE(run.modules[0].optimized);
  ASSERT_EQ(run.kernels.size(), 1u);
  const ProgramRun::Kernel& k = run.kernels[0];
  EXPECT_EQ(k.kernel, "k");
  EXPECT_EQ(k.launches, 3u);
  EXPECT_EQ(k.warps, 6u);
  EXPECT_EQ(k.metrics.warpInstructions, 40u);
  EXPECT_EQ(k.metrics.barriers, 2u);
  EXPECT_EQ(k.metrics.maxReconvergenceDepth, 2u);
  ASSERT_EQ(k.metrics.perLine.size(), 2u);
  EXPECT_EQ(k.metrics.perLine.at(21).threadInstructions, 192u);
  EXPECT_EQ(k.metrics.perLine.at(23).warpInstructions, 3u);
  ProgramRun bad;
  EXPECT_FALSE(readProgramRun("{\"format\": \"something else\"}", bad, error));
  EXPECT_FALSE(readProgramRun("not json", bad, error));

  // A module that ran as built (the passes failed on it) cannot be measured.
  Tools none;  // no ptxas: the SASS figures would be skipped anyway
  std::vector<Measurement> ms = measureProgramRun(run, "app", "-O3", none, "/nonexistent/work");  // nothing is written
  ASSERT_EQ(ms.size(), 1u);
  EXPECT_EQ(ms[0].file, "app/module0.sm_75.ptx");
  EXPECT_NE(ms[0].error.find("ran as built"), std::string::npos) << ms[0].error;
}

TEST(Quality, ProgramTotalSumsTheKernels) {
  Measurement a, b;
  a.kernel = "a";
  b.kernel = "b";
  a.file = b.file = "app/module0.sm_75.ptx";
  a.metrics.warpInstructions = 10;
  b.metrics.warpInstructions = 5;
  a.warps = 2;
  b.warps = 1;
  a.main.census.instructions = 30;
  b.main.census.instructions = 10;
  a.main.census.bra = 2;
  a.main.registers = 12;
  b.main.registers = 20;
  a.dynSassEstimate = 100;
  b.dynSassEstimate = 40;
  a.lineCoverage = 1;
  b.lineCoverage = 0.5;
  a.ptxasSeconds = b.ptxasSeconds = 0.25;  // one ptxas run of their module
  Measurement t = programTotal({a, b}, "app", "-O2");
  EXPECT_EQ(t.file, "app");
  EXPECT_EQ(t.kernel, "(total)");
  EXPECT_TRUE(t.error.empty());
  EXPECT_EQ(t.metrics.warpInstructions, 15u);
  EXPECT_EQ(t.warps, 3u);
  EXPECT_EQ(t.main.census.instructions, 40u);
  EXPECT_EQ(t.main.census.bra, 2u);
  EXPECT_EQ(t.main.registers, 20);
  ASSERT_TRUE(t.dynSassEstimate.has_value());
  EXPECT_EQ(*t.dynSassEstimate, 140);
  EXPECT_DOUBLE_EQ(t.lineCoverage, 35.0 / 40.0);
  EXPECT_DOUBLE_EQ(t.ptxasSeconds, 0.25);
  // A kernel without an estimate leaves the total without one; an error carries over.
  b.dynSassEstimate.reset();
  b.error = "broken";
  t = programTotal({a, b}, "app", "-O2");
  EXPECT_FALSE(t.dynSassEstimate.has_value());
  EXPECT_EQ(t.error, "b: broken");

  // A total row is shown but is not a kernel of the geometric means.
  std::vector<Row> rows(4);
  rows[0].m = a;
  rows[0].m.pipeline = "-O0";
  rows[1].m = a;
  rows[1].m.pipeline = "-O2";
  rows[1].m.dynSassEstimate = 50;
  rows[2].m = programTotal({a}, "app", "-O0");
  rows[3].m = programTotal({a}, "app", "-O2");
  rows[3].m.dynSassEstimate = 1;
  rows[2].total = rows[3].total = true;
  size_t n = 0;
  EXPECT_DOUBLE_EQ(geometricMeanRatio(rows, "-O0", "-O2", "dyn_sass_estimate", &n), 0.5);
  EXPECT_EQ(n, 1u);
  ReportOptions ro;
  ro.pipelines = {"-O0", "-O2"};
  std::string md = summaryMarkdown(rows, ro);
  EXPECT_NE(md.find("1 kernels x 2 pipelines"), std::string::npos) << md;
  EXPECT_NE(md.find("| app | -O2 | 1 (0.0100) |"), std::string::npos) << md;
  EXPECT_NE(rowJson(rows[3]).find("\"total\": true"), std::string::npos);
}

TEST(Quality, ComparesProgramOutputs) {
  namespace fs = std::filesystem;
  std::string root = ::testing::TempDir() + "/ptxopt-outputs-XXXXXX", error;
  ASSERT_NE(mkdtemp(root.data()), nullptr);
  for (const char* d : {"/a/sub", "/b/sub"}) ASSERT_TRUE(makeDirectory(root + d, error)) << error;
  ASSERT_TRUE(writeFile(root + "/a/sub/x.txt", "12345", error));
  ASSERT_TRUE(writeFile(root + "/b/sub/x.txt", "12045", error));
  ASSERT_TRUE(writeFile(root + "/a/gone.txt", "g", error));
  ASSERT_TRUE(writeFile(root + "/b/new.txt", "n", error));
  ProgramOutputs a, b, a2;
  ASSERT_TRUE(collectOutputs(root + "/a", "hello\n", a, error)) << error;
  ASSERT_TRUE(collectOutputs(root + "/b", "help\n", b, error)) << error;
  ASSERT_TRUE(collectOutputs(root + "/a", "hello\n", a2, error)) << error;
  EXPECT_EQ(a.files.size(), 2u);
  EXPECT_TRUE(a.files.count("sub/x.txt"));
  EXPECT_TRUE(compareOutputs(a, a2).empty());
  EXPECT_EQ(outputsDigest(a), outputsDigest(a2));
  EXPECT_NE(outputsDigest(a), outputsDigest(b));
  EXPECT_EQ(compareOutputs(a, b), (std::vector<std::string>{
                                      "stdout differs at byte 3 (6 and 5 bytes)",
                                      "file gone.txt is missing",
                                      "file sub/x.txt differs at byte 2 (5 and 5 bytes)",
                                      "file new.txt was not written by the baseline",
                                  }));
  fs::remove_all(root);
}

}  // namespace
