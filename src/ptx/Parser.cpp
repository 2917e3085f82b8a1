#include "ptxopt/ptx/Parser.h"

#include <algorithm>
#include <cassert>
#include <charconv>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "ptxopt/ir/Cfg.h"
#include "ptxopt/ir/Verifier.h"
#include "ptxopt/ptx/Lexer.h"
#include "ptxopt/support/NameMap.h"

namespace ptxopt {
namespace {

constexpr int64_t kUnresolvedLabel = -1;

// Registers, labels and pending label references of one open `{ }` scope.
struct Scope {
  uint32_t id = 0;
  NameMap<RegId> regNames;  // registers declared by name (not as a range %r<N>)
  struct Range {
    RegId first = 0;
    uint32_t count = 0;
  };
  NameMap<Range> ranges;  // by prefix: %r<100> is "%r" -> {first RegId, 100}
  std::unordered_map<uint32_t, uint32_t> labelDefs;  // name id -> label index
  struct PendingLabel {
    Operand* op;
    SourceLoc loc;
  };
  std::vector<PendingLabel> pending;
};

enum class IdentRole { Value, Label };

class Parser {
 public:
  Parser(std::string_view text, const std::string& file, const ParseOptions& opts)
      : lex_(text), file_(file), opts_(opts), sourceBytes_(text.size()) {}

  std::unique_ptr<Module> run() {
    module_ = std::make_unique<Module>();
    module_->fileName = file_;
    module_->sourceBytes = sourceBytes_;
    M().intern("");
    parseModule();
    return std::move(module_);
  }

 private:
  Module& M() { return *module_; }

  // ---- token helpers ------------------------------------------------------------------------
  const Token& peek(unsigned n = 0) { return lex_.peek(n); }
  Token next() { return lex_.next(); }
  bool at(TokKind k) { return peek().kind == k; }
  bool atDot(std::string_view s) { return peek().kind == TokKind::Dot && peek().text == s; }
  bool accept(TokKind k) {
    if (!at(k)) return false;
    next();
    return true;
  }
  [[noreturn]] void fail(SourceLoc loc, const std::string& msg) { throw FatalDiagnostic(loc, msg); }
  [[noreturn]] void unexpected(const Token& t, std::string_view what) {
    std::string found;
    if (t.kind == TokKind::Eof)
      found = "end of file";
    else
      found = "'" + std::string(t.text.substr(0, 40)) + (t.text.size() > 40 ? "...'" : "'");
    fail(t.loc, "expected " + std::string(what) + ", found " + found);
  }
  Token expect(TokKind k, std::string_view what) {
    if (!at(k)) unexpected(peek(), what);
    return next();
  }
  uint32_t intern(std::string_view s) { return M().intern(s); }

  // Everything up to (and consuming) `;`, or up to the end of the line when `toEol`; tokens are
  // joined with one space where the source had whitespace between them.
  std::string collectRaw(bool toEol, bool stopAtBrace = false) {
    std::string out;
    bool first = true;
    for (;;) {
      const Token& t = peek();
      if (t.kind == TokKind::Eof) {
        if (toEol) break;
        unexpected(t, "';'");
      }
      if (toEol && !first && t.newlineBefore) break;
      if (t.kind == TokKind::Semi) {
        next();
        break;
      }
      if (stopAtBrace && t.kind == TokKind::LBrace) break;
      if (!first && t.spaceBefore) out += ' ';
      out += t.text;
      first = false;
      next();
    }
    return out;
  }

  // ---- literals -----------------------------------------------------------------------------
  // Parses an Int token into its 64-bit value; sets Hex / UnsignedSuffix flags.
  uint64_t intValue(const Token& t, uint8_t& flags) {
    std::string_view s = t.text;
    if (!s.empty() && (s.back() == 'U' || s.back() == 'u')) {
      flags |= OperandFlag::UnsignedSuffix;
      s.remove_suffix(1);
    }
    int base = 10;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
      base = 16;
      s.remove_prefix(2);
      flags |= OperandFlag::Hex;
    } else if (s.size() > 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) {
      base = 2;
      s.remove_prefix(2);
    } else if (s.size() > 1 && s[0] == '0') {
      base = 8;
      s.remove_prefix(1);
    }
    uint64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
    if (ec != std::errc() || p != s.data() + s.size()) {
      if (ec == std::errc::result_out_of_range) fail(t.loc, "integer literal does not fit in 64 bits");
      fail(t.loc, "malformed integer literal '" + std::string(t.text) + "'");
    }
    return v;
  }

  Operand intOperand(const Token& t, bool minus) {
    Operand o;
    o.kind = OperandKind::Imm;
    uint64_t v = intValue(t, o.flags);
    if (minus) {
      if (v > (uint64_t(1) << 63)) fail(t.loc, "negative integer literal does not fit in 64 bits");
      o.flags |= OperandFlag::Minus;
      v = ~v + 1;
    }
    o.value = static_cast<int64_t>(v);
    return o;
  }

  Operand floatOperand(const Token& t, bool minus) {
    Operand o;
    o.kind = OperandKind::FImm;
    std::string_view s = t.text;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'f' || s[1] == 'F' || s[1] == 'd' || s[1] == 'D')) {
      if (minus) fail(t.loc, "a hexadecimal floating-point literal cannot be negated; write the sign bit");
      bool f32 = s[1] == 'f' || s[1] == 'F';
      uint64_t bits = 0;
      std::from_chars(s.data() + 2, s.data() + s.size(), bits, 16);
      o.aux = static_cast<uint16_t>(f32 ? FloatForm::F32Hex : FloatForm::F64Hex);
      o.value = static_cast<int64_t>(bits);
      return o;
    }
    double d = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
    if (ec != std::errc() || p != s.data() + s.size())
      fail(t.loc, "malformed floating-point literal '" + std::string(t.text) + "'");
    if (minus) d = -d;
    uint64_t bits;
    std::memcpy(&bits, &d, sizeof bits);
    o.aux = static_cast<uint16_t>(FloatForm::Decimal);
    o.value = static_cast<int64_t>(bits);
    return o;
  }

  uint32_t smallInt(std::string_view what) {
    Token t = expect(TokKind::Int, what);
    uint8_t flags = 0;
    uint64_t v = intValue(t, flags);
    if (v > 0xFFFFFFFFu) fail(t.loc, std::string(what) + " is too large");
    return static_cast<uint32_t>(v);
  }

  // ---- module level -------------------------------------------------------------------------
  void parseModule() {
    bool sawVersion = false;
    for (;;) {
      const Token& t = peek();
      if (t.kind == TokKind::Eof) break;
      if (t.kind != TokKind::Dot) unexpected(t, "a directive");
      std::string_view d = t.text;
      if (d == ".version") {
        if (sawVersion) fail(t.loc, "duplicate .version directive");
        next();  // "version"
        Token num = next();
        if (num.kind != TokKind::Float || num.text.find('.') == std::string_view::npos)
          fail(num.loc, "expected a version number such as 9.0 after .version");
        auto dot = num.text.find('.');
        uint32_t major = 0, minor = 0;
        auto r1 = std::from_chars(num.text.data(), num.text.data() + dot, major);
        auto r2 = std::from_chars(num.text.data() + dot + 1, num.text.data() + num.text.size(), minor);
        if (r1.ec != std::errc() || r2.ec != std::errc() || r2.ptr != num.text.data() + num.text.size())
          fail(num.loc, "malformed version number '" + std::string(num.text) + "'");
        M().versionMajor = major;
        M().versionMinor = minor;
        M().items().push_back({TopItem::Kind::Version, 0});
        sawVersion = true;
      } else if (!sawVersion) {
        fail(t.loc, "a PTX module must begin with a .version directive");
      } else if (d == ".target") {
        if (!M().targets.empty()) fail(t.loc, "duplicate .target directive");
        next();
        for (;;) {
          Token name = expect(TokKind::Ident, "a target name");
          M().targets.push_back(intern(name.text));
          if (at(TokKind::Comma) && !peek().newlineBefore) {
            next();
            continue;
          }
          break;
        }
        M().items().push_back({TopItem::Kind::Target, 0});
      } else if (d == ".address_size") {
        if (M().addressSize) fail(t.loc, "duplicate .address_size directive");
        next();
        uint32_t bits = smallInt("an address size");
        if (bits != 32 && bits != 64) fail(t.loc, ".address_size must be 32 or 64");
        M().addressSize = bits;
        M().items().push_back({TopItem::Kind::AddressSize, 0});
      } else if (d == ".file") {
        next();
        FileDirective f;
        f.index = smallInt("a file number");
        Token path = expect(TokKind::String, "a quoted file name");
        f.path = intern(path.text.substr(1, path.text.size() - 2));
        if (at(TokKind::Comma) && !peek().newlineBefore) {
          next();
          f.extra = intern(collectRaw(true));
        }
        M().files().push_back(f);
        M().items().push_back({TopItem::Kind::File, static_cast<uint32_t>(M().files().size() - 1)});
      } else if (d == ".section") {
        parseSection();
      } else if (d == ".pragma" || d == ".alias") {
        next();
        std::string text(d);
        text += ' ';
        text += collectRaw(false);
        M().raw().push_back(intern(text));
        M().items().push_back({TopItem::Kind::Raw, static_cast<uint32_t>(M().raw().size() - 1)});
      } else {
        parseLinkageItem();
      }
    }
    if (!sawVersion) fail(SourceLoc{1, 1}, "a PTX module must begin with a .version directive");
  }

  void parseSection() {
    next();  // .section
    Token name = next();
    if (name.kind != TokKind::Dot && name.kind != TokKind::Ident) unexpected(name, "a section name");
    Section s;
    s.name = intern(name.text);
    expect(TokKind::LBrace, "'{' to open the section");
    while (!at(TokKind::RBrace)) {
      if (at(TokKind::Eof)) unexpected(peek(), "'}' to close the section");
      Token first = peek();
      if (first.kind == TokKind::Ident && peek(1).kind == TokKind::Colon) {
        next();
        next();
        s.lines.push_back(intern(std::string(first.text) + ":"));
        continue;
      }
      if (first.kind != TokKind::Dot) unexpected(first, "a data directive (.b8, .b16, .b32, .b64) or a label");
      std::string line = collectRaw(true);
      s.lines.push_back(intern(line));
    }
    next();
    M().sections().push_back(std::move(s));
    M().items().push_back({TopItem::Kind::Section, static_cast<uint32_t>(M().sections().size() - 1)});
  }

  static bool isDataSpace(std::string_view d) {
    return d == ".global" || d == ".const" || d == ".shared" || d == ".local" || d == ".tex";
  }

  void parseLinkageItem() {
    uint8_t linkage = Linkage::None;
    for (;;) {
      const Token& t = peek();
      if (t.kind != TokKind::Dot) unexpected(t, "a directive");
      if (t.text == ".visible") linkage |= Linkage::Visible;
      else if (t.text == ".extern") linkage |= Linkage::Extern;
      else if (t.text == ".weak") linkage |= Linkage::Weak;
      else if (t.text == ".common") linkage |= Linkage::Common;
      else break;
      next();
    }
    const Token& t = peek();
    if (t.kind == TokKind::Dot && (t.text == ".entry" || t.text == ".func")) {
      parseFunction(linkage);
      return;
    }
    if (t.kind == TokKind::Dot && isDataSpace(t.text)) {
      std::vector<Variable> vars = parseVariableDecl(linkage, /*allowInit=*/true);
      for (Variable& v : vars) {
        M().globals().push_back(std::move(v));
        M().items().push_back({TopItem::Kind::Variable, static_cast<uint32_t>(M().globals().size() - 1)});
      }
      return;
    }
    if (t.kind == TokKind::Dot)
      fail(t.loc, "unknown or misplaced directive '" + std::string(t.text) + "' at module scope");
    unexpected(t, "a directive");
  }

  static std::optional<StateSpace> spaceFromDirective(std::string_view d) {
    if (d == ".tex") return StateSpace::Global;  // .tex variables are global texture references
    if (d == ".reg") return StateSpace::Reg;
    if (auto m = lookupKnownMod(d); m != Mod::None) return modSpace(m);
    return std::nullopt;
  }

  // `.space [attributes] .type name[dims] [= init] (, name ...)* ;`
  std::vector<Variable> parseVariableDecl(uint8_t linkage, bool allowInit) {
    Token spaceTok = next();
    Variable proto;
    proto.linkage = linkage;
    proto.loc = spaceTok.loc;
    auto space = spaceFromDirective(spaceTok.text);
    if (!space) fail(spaceTok.loc, "expected a state space, found '" + std::string(spaceTok.text) + "'");
    proto.space = *space;
    if (spaceTok.text == ".tex") proto.type = ScalarType::TexRef;
    parseVarAttributes(proto, /*isParam=*/false);
    std::vector<Variable> out;
    for (;;) {
      Variable v = proto;
      Token name = expect(TokKind::Ident, "a variable name");
      v.name = intern(name.text);
      v.loc = name.loc;
      parseDims(v);
      if (at(TokKind::Eq)) {
        if (!allowInit) fail(peek().loc, "an initializer is not allowed here");
        next();
        v.hasInit = true;
        parseInitializer(v.init, 0);
      }
      out.push_back(std::move(v));
      if (accept(TokKind::Comma)) continue;
      break;
    }
    expect(TokKind::Semi, "';' after the declaration");
    return out;
  }

  // Attributes between the state space and the name, in any order; `.ptr` opens the pointee
  // attributes of a kernel parameter.
  void parseVarAttributes(Variable& v, bool isParam) {
    bool sawType = v.type == ScalarType::TexRef;
    for (;;) {
      const Token& t = peek();
      if (t.kind != TokKind::Dot) break;
      std::string_view d = t.text;
      if (d == ".align") {
        next();
        uint32_t a = smallInt("an alignment");
        if (a == 0 || (a & (a - 1))) fail(t.loc, "alignment must be a power of two");
        if (v.isPtr)
          v.ptrAlign = a;
        else
          v.align = a;
      } else if (d == ".v2" || d == ".v4" || d == ".v8") {
        next();
        v.vec = static_cast<uint8_t>(d[2] - '0');
      } else if (d == ".ptr") {
        if (!isParam) fail(t.loc, ".ptr is only allowed on kernel parameters");
        next();
        v.isPtr = true;
      } else if (d == ".attribute") {
        next();
        expect(TokKind::LParen, "'(' after .attribute");
        std::string text;
        int depth = 1;
        bool first = true;
        while (depth > 0) {
          const Token& a = peek();
          if (a.kind == TokKind::Eof || a.kind == TokKind::Semi) unexpected(a, "')' to close .attribute");
          if (a.kind == TokKind::LParen) ++depth;
          if (a.kind == TokKind::RParen && --depth == 0) {
            next();
            break;
          }
          if (!first && a.spaceBefore) text += ' ';
          text += a.text;
          first = false;
          next();
        }
        v.attributes.push_back(intern(text));
      } else if (auto m = lookupKnownMod(d); m != Mod::None && modType(m)) {
        if (sawType) fail(t.loc, "a declaration has one type");
        next();
        v.type = *modType(m);
        sawType = true;
      } else if (v.isPtr && m != Mod::None && modSpace(m)) {
        next();
        v.ptrSpace = *modSpace(m);
      } else {
        fail(t.loc, "unexpected '" + std::string(d) + "' in a declaration");
      }
    }
    if (!sawType) unexpected(peek(), "a type such as .b32 or .u64");
  }

  void parseDims(Variable& v) {
    while (at(TokKind::LBracket)) {
      next();
      if (accept(TokKind::RBracket)) {
        v.dims.push_back(-1);
        continue;
      }
      Token n = expect(TokKind::Int, "an array size");
      uint8_t fl = 0;
      uint64_t size = intValue(n, fl);
      if (size > (uint64_t(1) << 48)) fail(n.loc, "array size is too large");
      v.dims.push_back(static_cast<int64_t>(size));
      expect(TokKind::RBracket, "']'");
      if (v.dims.size() > 8) fail(n.loc, "too many array dimensions");
    }
  }

  void parseInitializer(std::vector<InitItem>& out, unsigned depth) {
    if (depth > opts_.maxNesting) fail(peek().loc, "initializer nested too deeply");
    if (accept(TokKind::LBrace)) {
      out.push_back({InitItem::Kind::Open, 0, 0, 0});
      if (!at(TokKind::RBrace)) {
        for (;;) {
          parseInitializer(out, depth + 1);
          if (accept(TokKind::Comma)) continue;
          break;
        }
      }
      expect(TokKind::RBrace, "'}' or ',' in the initializer");
      out.push_back({InitItem::Kind::Close, 0, 0, 0});
      return;
    }
    bool minus = accept(TokKind::Minus);
    const Token& t = peek();
    if (t.kind == TokKind::Int) {
      Token tok = next();
      Operand o = intOperand(tok, minus);
      out.push_back({InitItem::Kind::Int, o.flags, 0, o.value});
      return;
    }
    if (t.kind == TokKind::Float) {
      Token tok = next();
      Operand o = floatOperand(tok, minus);
      out.push_back({InitItem::Kind::Float, static_cast<uint8_t>(o.aux), 0, o.value});
      return;
    }
    if (minus) unexpected(t, "a number after '-'");
    if (t.kind == TokKind::Ident) {
      Token name = next();
      InitItem item;
      if (name.text == "generic" && at(TokKind::LParen)) {
        next();
        Token sym = expect(TokKind::Ident, "a symbol inside generic( )");
        expect(TokKind::RParen, "')'");
        item.kind = InitItem::Kind::Generic;
        item.id = intern(sym.text);
      } else if (at(TokKind::Eq)) {
        next();
        Token val = next();
        if (val.kind != TokKind::Ident && val.kind != TokKind::Int) unexpected(val, "a value");
        item.kind = InitItem::Kind::KeyValue;
        item.id = intern(name.text);
        item.value = intern(val.text);
        out.push_back(item);
        return;
      } else {
        item.kind = InitItem::Kind::Symbol;
        item.id = intern(name.text);
      }
      if (at(TokKind::Plus) || at(TokKind::Minus)) {
        item.value = parseOffset("an offset");
        item.flags |= OperandFlag::HasOffset;
      }
      out.push_back(item);
      return;
    }
    unexpected(t, "an initializer value");
  }

  // ---- functions ----------------------------------------------------------------------------
  void parseFunction(uint8_t linkage) {
    Token kind = next();
    bool isEntry = kind.text == ".entry";
    std::vector<Variable> rets;
    bool hasRets = false;
    if (!isEntry && at(TokKind::LParen)) {
      hasRets = true;
      rets = parseParamList();
    }
    Token name = expect(TokKind::Ident, "a function name");
    Function* f = M().addFunction(intern(name.text));
    F_ = f;
    f->isEntry = isEntry;
    f->linkage = linkage;
    f->loc = name.loc;
    f->hasReturnList = hasRets;
    f->returnParams = std::move(rets);
    if (at(TokKind::LParen)) {
      f->hasParamList = true;
      f->params = parseParamList();
    }
    // Performance directives and attributes between the signature and the body.
    while (at(TokKind::Dot)) {
      Token d = next();
      static constexpr std::string_view kKnown[] = {
          ".maxntid",          ".reqntid",         ".minnctapersm",      ".maxnctapersm", ".maxnreg",
          ".maxclusterrank",   ".reqnctapercluster", ".explicitcluster", ".blocksareclusters",
          ".noreturn",         ".pragma",          ".abi_preserve",      ".abi_preserve_control"};
      bool known = false;
      for (std::string_view k : kKnown) known |= d.text == k;
      if (!known) fail(d.loc, "unexpected directive '" + std::string(d.text) + "' before a function body");
      FunctionDirective fd;
      fd.name = intern(d.text);
      if (d.text == ".noreturn") {
        f->noreturn = true;
      } else if (d.text == ".pragma") {
        fd.text = intern(collectRaw(false));
      } else if (!(at(TokKind::LBrace) || at(TokKind::Semi) || peek().newlineBefore)) {
        fd.text = intern(collectRaw(true, /*stopAtBrace=*/true));
      }
      f->directives.push_back(fd);
    }
    if (accept(TokKind::Semi)) {
      f->hasBody = false;
      return;
    }
    if (!at(TokKind::LBrace)) unexpected(peek(), "'{' to start the function body or ';'");
    f->hasBody = true;
    parseBody();
    F_ = nullptr;
  }

  std::vector<Variable> parseParamList() {
    expect(TokKind::LParen, "'('");
    std::vector<Variable> params;
    if (accept(TokKind::RParen)) return params;
    for (;;) {
      Token space = peek();
      if (!(atDot(".param") || atDot(".reg"))) unexpected(space, "'.param' or '.reg'");
      next();
      Variable v;
      v.space = space.text == ".reg" ? StateSpace::Reg : StateSpace::Param;
      v.loc = space.loc;
      parseVarAttributes(v, /*isParam=*/true);
      Token name = next();
      if (name.kind != TokKind::Ident) unexpected(name, "a parameter name");
      v.name = intern(name.text);
      parseDims(v);
      params.push_back(std::move(v));
      if (accept(TokKind::Comma)) continue;
      expect(TokKind::RParen, "',' or ')' in the parameter list");
      return params;
    }
  }

  // Registers declared as `.reg` parameters are visible in the body.
  void declareParamRegisters(Scope& s) {
    for (auto* list : {&F_->returnParams, &F_->params})
      for (const Variable& v : *list)
        if (v.space == StateSpace::Reg) {
          RegInfo r;
          r.name = v.name;
          r.type = v.type;
          r.vec = v.vec;
          r.decl = UINT32_MAX;
          RegId id = static_cast<RegId>(F_->regs().size());
          F_->regs().push_back(r);
          s.regNames.insert(M().str(v.name), id);
        }
  }

  void parseBody() {
    expect(TokKind::LBrace, "'{'");
    scopes_.clear();
    scopes_.emplace_back();
    declareParamRegisters(scopes_.back());
    cur_ = F_->createBlock();
    F_->blocks().push_back(cur_);
    needBlock_ = false;
    curLoc_ = 0;
    pendingLocs_.clear();
    for (;;) {
      const Token& t = peek();
      switch (t.kind) {
        case TokKind::Eof: unexpected(t, "'}' to close the function body");
        case TokKind::RBrace: {
          Token close = next();
          if (scopes_.size() == 1) {
            closeScope(close.loc);
            finishFunction();
            return;
          }
          closeScope(close.loc);
          Instruction* i = newInst(Opcode::ScopeEnd, close.loc);
          append(i);
          break;
        }
        case TokKind::LBrace: {
          Token open = next();
          if (scopes_.size() > opts_.maxNesting) fail(open.loc, "scopes nested too deeply");
          Instruction* i = newInst(Opcode::ScopeBegin, open.loc);
          append(i);
          uint32_t parent = scopes_.back().id;
          scopes_.emplace_back();
          scopes_.back().id = static_cast<uint32_t>(F_->scopeParents().size());
          F_->scopeParents().push_back(parent);
          i->setPayload(scopes_.back().id);
          break;
        }
        case TokKind::Dot: parseBodyDirective(); break;
        case TokKind::At: {
          Token at = next();
          bool neg = accept(TokKind::Bang);
          Token g = expect(TokKind::Ident, "a predicate register after '@'");
          RegId r = lookupReg(g.text);
          if (r == kNoReg) fail(g.loc, "use of undeclared register '" + std::string(g.text) + "'");
          parseInstruction(at.loc, r, neg);
          break;
        }
        case TokKind::Ident: {
          if (peek(1).kind == TokKind::Colon) {
            if (peek(2).kind == TokKind::Dot &&
                (peek(2).text == ".branchtargets" || peek(2).text == ".calltargets" ||
                 peek(2).text == ".callprototype")) {
              parseLabeledDirective();
            } else {
              Token name = next();
              next();
              defineLabel(name);
            }
            break;
          }
          parseInstruction(t.loc, kNoReg, false);
          break;
        }
        default: unexpected(t, "an instruction, a label or a declaration");
      }
    }
  }

  void parseBodyDirective() {
    const Token& t = peek();
    std::string_view d = t.text;
    if (d == ".reg") {
      parseRegDecl();
    } else if (d == ".local" || d == ".shared" || d == ".param" || d == ".const" || d == ".global") {
      SourceLoc loc = t.loc;
      std::vector<Variable> vars = parseVariableDecl(Linkage::None, /*allowInit=*/d == ".const" || d == ".global");
      for (Variable& v : vars) {
        Decl decl;
        decl.kind = Decl::Kind::Var;
        decl.scope = scopes_.back().id;
        decl.var = std::move(v);
        decl.loc = loc;
        addDecl(std::move(decl), loc);
      }
    } else if (d == ".loc") {
      next();  // "loc"
      DebugLoc dl;
      dl.file = smallInt("a file number");
      dl.line = smallInt("a line number");
      dl.col = smallInt("a column number");
      if (at(TokKind::Comma) && !peek().newlineBefore) {
        next();
        dl.extra = intern(collectRaw(true));
      }
      pendingLocs_.push_back(dl);
    } else if (d == ".pragma") {
      Token dir = next();
      Instruction* i = newInst(Opcode::Pragma, dir.loc);
      i->setPayload(intern(collectRaw(false)));
      append(i);
    } else {
      fail(t.loc, "unexpected directive '" + std::string(d) + "' in a function body");
    }
  }

  void addDecl(Decl decl, SourceLoc loc) {
    uint32_t index = static_cast<uint32_t>(F_->decls().size());
    bool nested = decl.scope != 0;
    F_->decls().push_back(std::move(decl));
    if (nested) {
      Instruction* i = newInst(Opcode::Decl, loc);
      i->setPayload(index);
      append(i);
    }
  }

  void parseRegDecl() {
    Token dir = next();
    Decl decl;
    decl.kind = Decl::Kind::Reg;
    decl.scope = scopes_.back().id;
    decl.loc = dir.loc;
    bool sawType = false;
    while (at(TokKind::Dot)) {
      Token a = next();
      if (a.text == ".v2" || a.text == ".v4" || a.text == ".v8") {
        decl.vec = static_cast<uint8_t>(a.text[2] - '0');
        continue;
      }
      auto m = lookupKnownMod(a.text);
      if (m == Mod::None || !modType(m)) fail(a.loc, "expected a register type, found '" + std::string(a.text) + "'");
      if (sawType) fail(a.loc, "a register declaration has one type");
      decl.type = *modType(m);
      sawType = true;
    }
    if (!sawType) unexpected(peek(), "a register type such as .b32");
    uint32_t declIndex = static_cast<uint32_t>(F_->decls().size());
    Scope& s = scopes_.back();
    for (;;) {
      Token name = expect(TokKind::Ident, "a register name");
      if (name.text == "_") fail(name.loc, "'_' cannot be declared as a register");
      RegDeclEntry e;
      e.name = intern(name.text);
      e.first = static_cast<RegId>(F_->regs().size());
      if (accept(TokKind::Lt)) {
        Token n = expect(TokKind::Int, "a register count");
        uint8_t fl = 0;
        uint64_t count = intValue(n, fl);
        if (count == 0) fail(n.loc, "a register range needs at least one register");
        if (count + F_->regs().size() > opts_.maxRegistersPerFunction)
          fail(n.loc, "too many registers in one function (at most " + std::to_string(opts_.maxRegistersPerFunction) + ")");
        expect(TokKind::Gt, "'>'");
        e.count = static_cast<uint32_t>(count);
        std::string_view prefix = M().str(e.name);
        if (!s.ranges.insert(prefix, {e.first, e.count}))
          fail(name.loc, "redeclaration of registers '" + std::string(prefix) + "<N>'");
        for (uint32_t k = 0; k < e.count; ++k) {
          RegInfo r;
          r.name = e.name;
          r.index = k;
          r.ranged = true;
          r.type = decl.type;
          r.vec = decl.vec;
          r.scope = s.id;
          r.decl = declIndex;
          F_->regs().push_back(r);
        }
      } else {
        if (F_->regs().size() + 1 > opts_.maxRegistersPerFunction) fail(name.loc, "too many registers in one function");
        RegInfo r;
        r.name = e.name;
        r.type = decl.type;
        r.vec = decl.vec;
        r.scope = s.id;
        r.decl = declIndex;
        F_->regs().push_back(r);
        if (!s.regNames.insert(M().str(e.name), e.first))
          fail(name.loc, "redeclaration of register '" + std::string(name.text) + "'");
      }
      decl.regs.push_back(e);
      if (accept(TokKind::Comma)) continue;
      break;
    }
    expect(TokKind::Semi, "';' after the register declaration");
    addDecl(std::move(decl), dir.loc);
  }

  // `name: .branchtargets L1, L2;`, `name: .calltargets f, g;`, `name: .callprototype ...;`
  void parseLabeledDirective() {
    Token name = next();
    next();  // ':'
    Token d = next();
    Opcode op = d.text == ".branchtargets" ? Opcode::BranchTargets
                : d.text == ".calltargets" ? Opcode::CallTargets
                                           : Opcode::CallPrototype;
    Instruction* i = newInst(op, name.loc);
    i->setPayload(intern(name.text));
    if (op == Opcode::CallPrototype) {
      i->addOperand(Operand::symbol(intern(collectRaw(false))));
    } else {
      for (;;) {
        Token target = expect(TokKind::Ident, op == Opcode::BranchTargets ? "a label" : "a function name");
        if (op == Opcode::BranchTargets) {
          Operand o = Operand::label(intern(target.text));
          o.value = kUnresolvedLabel;
          i->addOperand(o);
        } else {
          i->addOperand(Operand::symbol(intern(target.text)));
        }
        if (accept(TokKind::Comma)) continue;
        break;
      }
      expect(TokKind::Semi, "';'");
    }
    append(i);
    notePendingLabels(*i);
  }

  void defineLabel(const Token& name) {
    uint32_t nameId = intern(name.text);
    Scope& s = scopes_.back();
    uint32_t index = static_cast<uint32_t>(F_->labels().size());
    if (!s.labelDefs.emplace(nameId, index).second)
      fail(name.loc, "redefinition of label '" + std::string(name.text) + "'");
    if (!(cur_->empty() && !cur_->hasLabel())) {
      cur_ = F_->createBlock();
      F_->blocks().push_back(cur_);
    }
    needBlock_ = false;
    cur_->setLabel(index);
    F_->labels().push_back(LabelInfo{nameId, s.id, cur_});
  }

  void closeScope(SourceLoc) {
    Scope& s = scopes_.back();
    Scope* parent = scopes_.size() > 1 ? &scopes_[scopes_.size() - 2] : nullptr;
    for (Scope::PendingLabel& p : s.pending) {
      auto it = s.labelDefs.find(p.op->id);
      if (it != s.labelDefs.end()) {
        p.op->id = it->second;
        p.op->value = 0;
      } else if (parent) {
        parent->pending.push_back(p);
      } else {
        fail(p.loc, "use of undefined label '" + std::string(M().str(p.op->id)) + "'");
      }
    }
    scopes_.pop_back();
  }

  void finishFunction() {
    buildCfg(*F_);
  }

  Instruction* newInst(Opcode op, SourceLoc loc) {
    Instruction* i = F_->createInstruction(op);
    i->setLoc(loc);
    return i;
  }

  void append(Instruction* i) {
    if (!i->info().isPseudo()) {
      if (needBlock_) {
        cur_ = F_->createBlock();
        F_->blocks().push_back(cur_);
        needBlock_ = false;
      }
      if (!pendingLocs_.empty()) startLocGroup();
      i->setDebugLoc(curLoc_);
    }
    cur_->append(i);
    if (i->info().isTerminator()) needBlock_ = true;
  }

  // The .loc lines read since the last instruction become the group in force, unless they
  // repeat the group already in force.
  void startLocGroup() {
    auto& locs = F_->debugLocs();
    auto& groups = F_->debugLocGroups();
    auto current = F_->locGroup(curLoc_);
    bool same = current.size() == pendingLocs_.size() && std::equal(current.begin(), current.end(), pendingLocs_.begin());
    if (!same) {
      groups.push_back(DebugLocGroup{static_cast<uint32_t>(locs.size()), static_cast<uint32_t>(pendingLocs_.size())});
      locs.insert(locs.end(), pendingLocs_.begin(), pendingLocs_.end());
      curLoc_ = static_cast<uint32_t>(groups.size());
    }
    pendingLocs_.clear();
  }

  void notePendingLabels(Instruction& i) {
    Scope& s = scopes_.back();
    i.forEachLeaf([&](Operand& o) {
      if (o.kind == OperandKind::Label && o.value == kUnresolvedLabel) s.pending.push_back({&o, i.loc()});
    });
  }

  // ---- registers ----------------------------------------------------------------------------
  RegId lookupReg(std::string_view name) {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
      if (const RegId* found = it->regNames.find(name)) return *found;
    size_t digits = name.size();
    while (digits > 0 && name[digits - 1] >= '0' && name[digits - 1] <= '9') --digits;
    if (digits == name.size() || digits == 0) return kNoReg;
    std::string_view prefix = name.substr(0, digits);
    std::string_view number = name.substr(digits);
    // A range's index: decimal, no leading zero, fits in 32 bits.
    if ((number.size() > 1 && number[0] == '0') || number.size() > 10) return kNoReg;
    uint64_t wide = 0;
    for (char c : number) wide = wide * 10 + static_cast<uint64_t>(c - '0');
    if (wide > UINT32_MAX) return kNoReg;
    uint32_t n = static_cast<uint32_t>(wide);
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it)
      if (const Scope::Range* r = it->ranges.find(prefix); r && n < r->count) return r->first + n;
    return kNoReg;
  }

  std::optional<Operand> specialRegister(std::string_view base, Component comp, SourceLoc loc) {
    if (auto s = lookupSpecialReg(base)) {
      const SpecialRegInfo& info = specialRegInfo(*s);
      if (info.shape == SpecialShape::Numbered) return std::nullopt;
      if (info.shape == SpecialShape::Vector && comp == Component::None)
        fail(loc, "special register '" + std::string(base) + "' needs a component (.x, .y or .z)");
      return Operand::special(*s, comp);
    }
    // Numbered special registers: %envreg3, %pm0, %pm0_64, %reserved_smem_offset_1
    std::string_view n = base;
    bool pm64 = false;
    if (n.size() > 3 && n.substr(n.size() - 3) == "_64") {
      pm64 = true;
      n.remove_suffix(3);
    }
    size_t digits = n.size();
    while (digits > 0 && n[digits - 1] >= '0' && n[digits - 1] <= '9') --digits;
    if (digits == n.size()) return std::nullopt;
    auto s = lookupSpecialReg(n.substr(0, digits));
    if (!s || specialRegInfo(*s).shape != SpecialShape::Numbered) return std::nullopt;
    if (pm64 && *s != SpecialReg::Pm) return std::nullopt;
    uint32_t number = 0;
    std::from_chars(n.data() + digits, n.data() + n.size(), number);
    if (number > kMaxSpecialRegNumber) return std::nullopt;
    Operand o = Operand::special(*s, comp);
    o.value = number;
    if (pm64) o.flags |= OperandFlag::Pm64;
    return o;
  }

  // ---- instructions -------------------------------------------------------------------------
  void parseInstruction(SourceLoc loc, RegId guard, bool guardNeg) {
    Token m = expect(TokKind::Ident, "an instruction");
    // The opcode is the longest table mnemonic that the name and the dotted components written
    // onto it (no space between) begin with; its first component is m itself, so only the
    // mnemonics that begin with m can match, and they have at most maxComps components (fewer
    // than the lexer's lookahead).
    unsigned maxComps = maxOpcodeComponents(m.text);
    assert(maxComps <= Lexer::kLookahead);
    unsigned dots = 0;  // components after m that may belong to the opcode, in the lookahead
    while (dots + 1 < maxComps && peek(dots).kind == TokKind::Dot && !peek(dots).spaceBefore) ++dots;
    Opcode op = Opcode::Unknown;
    for (unsigned k = maxComps ? dots + 1 : 0; k-- > 0;) {
      std::string_view last = k == 0 ? m.text : peek(k - 1).text;
      size_t length = static_cast<size_t>(last.data() + last.size() - m.text.data());
      if (auto found = lookupOpcode(std::string_view(m.text.data(), length))) {
        op = *found;
        for (unsigned used = 0; used < k; ++used) next();
        break;
      }
    }
    Instruction* inst = newInst(op, loc);
    inst->setGuard(guard, guardNeg);
    if (op == Opcode::Unknown) inst->setPayload(intern(m.text));
    while (at(TokKind::Dot) && !peek().spaceBefore) inst->addMod(lookupMod(next().text, M().strings()));

    if (!at(TokKind::Semi)) {
      unsigned index = 0;
      for (;;) {
        IdentRole role = IdentRole::Value;
        if (signatureOf(op).labelAt(index)) role = IdentRole::Label;
        inst->addOperand(parseOperand(*inst, role, 0));
        ++index;
        if (index > 64) fail(peek().loc, "too many operands");
        if (accept(TokKind::Comma)) continue;
        break;
      }
    }
    expect(TokKind::Semi, "';' at the end of the instruction");
    if (op == Opcode::Unknown)
      warnings_.push_back({loc, "unknown instruction '" + std::string(m.text) + "' is kept verbatim"});
    append(inst);
    notePendingLabels(*inst);
  }

  Operand parseOperand(Instruction& inst, IdentRole role, unsigned depth) {
    if (depth > 8) fail(peek().loc, "operand nested too deeply");
    const Token& t = peek();
    switch (t.kind) {
      case TokKind::Bang: {
        next();
        Operand o = parseOperand(inst, role, depth + 1);
        if (o.kind != OperandKind::Reg) fail(t.loc, "'!' applies to a predicate register");
        o.flags |= OperandFlag::Negated;
        return o;
      }
      case TokKind::Minus: {
        next();
        Token n = next();
        if (n.kind == TokKind::Int) return intOperand(n, true);
        if (n.kind == TokKind::Float) return floatOperand(n, true);
        unexpected(n, "a number after '-'");
      }
      case TokKind::Int: {
        Token n = next();
        return intOperand(n, false);
      }
      case TokKind::Float: {
        Token n = next();
        return floatOperand(n, false);
      }
      case TokKind::LBracket: return parseAddress(inst, depth);
      case TokKind::LBrace:
      case TokKind::LParen: {
        Token open = next();
        TokKind close = open.kind == TokKind::LBrace ? TokKind::RBrace : TokKind::RParen;
        InlineVec<Operand, 8> elems;
        if (!at(close)) {
          for (;;) {
            elems.push_back(parseOperand(inst, role, depth + 1));
            if (elems.size() > 1024) fail(open.loc, "too many elements");
            if (accept(TokKind::Comma)) continue;
            break;
          }
        }
        expect(close, close == TokKind::RBrace ? "'}' or ','" : "')' or ','");
        return inst.makeComposite(open.kind == TokKind::LBrace ? OperandKind::Vector : OperandKind::List,
                                  std::span<const Operand>(elems.begin(), elems.end()));
      }
      case TokKind::Ident: {
        Operand first = parseIdentOperand(role);
        if (at(TokKind::Pipe)) {
          next();
          Operand second = parseIdentOperand(role);
          Operand pair[2] = {first, second};
          return inst.makeComposite(OperandKind::Pair, pair);
        }
        return first;
      }
      default: unexpected(t, "an operand");
    }
  }

  Operand parseIdentOperand(IdentRole role) {
    Token t = expect(TokKind::Ident, "a register, label or symbol");
    if (t.text == "_") {
      Operand o;
      o.kind = OperandKind::Sink;
      return o;
    }
    if (role == IdentRole::Label) {
      Operand o = Operand::label(intern(t.text));
      o.value = kUnresolvedLabel;
      return o;
    }
    std::string_view base = t.text;
    Component comp = Component::None;
    if (base.size() > 2 && base[0] == '%' && base[base.size() - 2] == '.') {
      comp = *lookupComponent(base.substr(base.size() - 2));
      base.remove_suffix(2);
    }
    RegId r = lookupReg(base);
    if (r != kNoReg) {
      Operand o = Operand::reg(r, comp);
      // A video instruction's selector, written onto the register: %r1.b3210, %r2.h10.
      if (comp == Component::None && at(TokKind::Dot) && !peek().spaceBefore)
        if (auto sel = lookupVideoSelector(peek().text)) {
          next();
          o.value = packVideoSelector(*sel);
        }
      return o;
    }
    if (base[0] == '%') {
      if (auto s = specialRegister(base, comp, t.loc)) return *s;
      fail(t.loc, "use of undeclared register '" + std::string(t.text) + "'");
    }
    if (comp != Component::None) fail(t.loc, "unexpected component on '" + std::string(t.text) + "'");
    if (auto c = lookupPredefinedConstant(base)) {
      Operand o = Operand::imm(predefinedConstant(*c).value);
      o.flags |= OperandFlag::Predefined;
      o.aux = *c;
      if ((at(TokKind::Plus) || at(TokKind::Minus)) && (peek(1).kind == TokKind::Int || peek(1).kind == TokKind::Minus))
        o.value += parseOffset("an offset");
      return o;
    }
    Operand o = Operand::symbol(intern(base));
    if ((at(TokKind::Plus) || at(TokKind::Minus)) && (peek(1).kind == TokKind::Int || peek(1).kind == TokKind::Minus)) {
      o.value = parseOffset("an offset");
      o.flags |= OperandFlag::HasOffset;
    }
    return o;
  }

  // `+ N`, `- N` or `+ -N` after a symbol or register (the sign is the current token).
  int64_t parseOffset(std::string_view what) {
    bool neg = next().kind == TokKind::Minus;
    if (accept(TokKind::Minus)) neg = !neg;
    return intOperand(expect(TokKind::Int, what), neg).value;
  }

  Operand parseAddress(Instruction& inst, unsigned depth) {
    next();  // [
    Operand a;
    a.kind = OperandKind::Address;
    const Token& t = peek();
    if (t.kind == TokKind::Ident) {
      Token name = next();
      if (at(TokKind::Comma)) {
        // Texture / surface form: [tex, {coords}] or [tex, sampler, {coords}]
        InlineVec<Operand, 4> elems;
        elems.push_back(identInAddress(name));
        while (accept(TokKind::Comma)) elems.push_back(parseOperand(inst, IdentRole::Value, depth + 1));
        expect(TokKind::RBracket, "']'");
        return inst.makeComposite(OperandKind::Bracket, std::span<const Operand>(elems.begin(), elems.end()));
      }
      Operand base = identInAddress(name);
      if (base.kind == OperandKind::Reg) {
        if (base.component() != Component::None) fail(name.loc, "a component is not allowed in an address");
        a.aux = static_cast<uint16_t>(AddressBase::Reg);
      } else if (base.kind == OperandKind::Symbol) {
        a.aux = static_cast<uint16_t>(AddressBase::Symbol);
      } else {
        fail(name.loc, "an address is a register or a symbol, optionally plus an offset");
      }
      a.id = base.id;
      if (at(TokKind::Plus) || at(TokKind::Minus)) {
        a.value = parseOffset("an integer offset");
        a.flags |= OperandFlag::HasOffset;
      }
    } else if (t.kind == TokKind::Int || t.kind == TokKind::Minus) {
      bool neg = accept(TokKind::Minus);
      Token n = expect(TokKind::Int, "an address");
      a.aux = static_cast<uint16_t>(AddressBase::None);
      a.value = intOperand(n, neg).value;
    } else {
      unexpected(t, "an address");
    }
    expect(TokKind::RBracket, "']' to close the address");
    return a;
  }

  Operand identInAddress(const Token& name) {
    std::string_view base = name.text;
    Component comp = Component::None;
    if (base.size() > 2 && base[0] == '%' && base[base.size() - 2] == '.') {
      comp = *lookupComponent(base.substr(base.size() - 2));
      base.remove_suffix(2);
    }
    RegId r = lookupReg(base);
    if (r != kNoReg) return Operand::reg(r, comp);
    if (base[0] == '%') fail(name.loc, "use of undeclared register '" + std::string(name.text) + "'");
    return Operand::symbol(intern(base));
  }

 public:
  struct Warning {
    SourceLoc loc;
    std::string message;
  };
  std::vector<Warning> warnings_;

 private:
  Lexer lex_;
  std::string file_;
  const ParseOptions& opts_;
  size_t sourceBytes_;
  std::unique_ptr<Module> module_;
  Function* F_ = nullptr;
  std::vector<Scope> scopes_;
  BasicBlock* cur_ = nullptr;
  bool needBlock_ = false;
  uint32_t curLoc_ = 0;
  std::vector<DebugLoc> pendingLocs_;
};

}  // namespace

std::unique_ptr<Module> parseModule(std::string_view text, const std::string& fileName, DiagEngine& diags,
                                    const ParseOptions& options) {
  Parser parser(text, fileName, options);
  try {
    std::unique_ptr<Module> m = parser.run();
    for (const auto& w : parser.warnings_) diags.warning(fileName, w.loc, w.message);
    return m;
  } catch (const FatalDiagnostic& e) {
    diags.error(fileName, e.loc, e.what());
  } catch (const std::bad_alloc&) {
    diags.error(fileName, SourceLoc{}, "out of memory while parsing");
  } catch (const std::length_error& e) {
    diags.error(fileName, SourceLoc{}, e.what());
  }
  return nullptr;
}

std::unique_ptr<Module> loadModule(std::string_view text, const std::string& fileName, DiagEngine& diags,
                                   const ParseOptions& options) {
  std::unique_ptr<Module> m = parseModule(text, fileName, diags, options);
  if (m && !verifyModule(*m, diags)) return nullptr;
  return m;
}

}  // namespace ptxopt
