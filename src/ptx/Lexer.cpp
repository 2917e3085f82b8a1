#include "ptxopt/ptx/Lexer.h"

#include <cstdio>

#include "ptxopt/ir/Operand.h"

namespace ptxopt {
namespace {

enum CharClass : uint8_t {
  kIdentStart = 1,  // letters, _ $ %
  kIdentBody = 2,   // letters, digits, _ $
  kDigit = 4,
  kHex = 8,
  kSpace = 16,
};

struct CharTable {
  uint8_t c[256] = {};
  constexpr CharTable() {
    for (int ch = 'a'; ch <= 'z'; ++ch) c[ch] |= kIdentStart | kIdentBody;
    for (int ch = 'A'; ch <= 'Z'; ++ch) c[ch] |= kIdentStart | kIdentBody;
    for (int ch = '0'; ch <= '9'; ++ch) c[ch] |= kIdentBody | kDigit | kHex;
    for (int ch = 'a'; ch <= 'f'; ++ch) c[ch] |= kHex;
    for (int ch = 'A'; ch <= 'F'; ++ch) c[ch] |= kHex;
    c[static_cast<unsigned char>('_')] |= kIdentStart | kIdentBody;
    c[static_cast<unsigned char>('$')] |= kIdentStart | kIdentBody;
    c[static_cast<unsigned char>('%')] |= kIdentStart;
    c[static_cast<unsigned char>(' ')] |= kSpace;
    c[static_cast<unsigned char>('\t')] |= kSpace;
    c[static_cast<unsigned char>('\r')] |= kSpace;
    c[static_cast<unsigned char>('\f')] |= kSpace;
    c[static_cast<unsigned char>('\v')] |= kSpace;
  }
};
constexpr CharTable kChars;

inline bool is(char ch, uint8_t cls) { return kChars.c[static_cast<unsigned char>(ch)] & cls; }

// The end of the run of `cls` characters at p. The scanning loops use a local pointer: a char
// read may alias the lexer's own cur_, so a loop that advanced cur_ itself stored it on every
// character.
inline const char* skipClass(const char* p, const char* end, uint8_t cls) {
  while (p < end && is(*p, cls)) ++p;
  return p;
}

}  // namespace

std::string_view tokKindName(TokKind k) {
  switch (k) {
    case TokKind::Eof: return "end of file";
    case TokKind::Ident: return "identifier";
    case TokKind::Dot: return "directive";
    case TokKind::Int: return "integer";
    case TokKind::Float: return "floating-point number";
    case TokKind::String: return "string";
    case TokKind::Comma: return "','";
    case TokKind::Semi: return "';'";
    case TokKind::Colon: return "':'";
    case TokKind::LBrace: return "'{'";
    case TokKind::RBrace: return "'}'";
    case TokKind::LBracket: return "'['";
    case TokKind::RBracket: return "']'";
    case TokKind::LParen: return "'('";
    case TokKind::RParen: return "')'";
    case TokKind::Plus: return "'+'";
    case TokKind::Minus: return "'-'";
    case TokKind::Bang: return "'!'";
    case TokKind::At: return "'@'";
    case TokKind::Pipe: return "'|'";
    case TokKind::Lt: return "'<'";
    case TokKind::Gt: return "'>'";
    case TokKind::Eq: return "'='";
  }
  return "token";
}

Lexer::Lexer(std::string_view src) : cur_(src.data()), end_(src.data() + src.size()), lineStart_(src.data()) {
  // PTX handed over as a C string keeps its terminator: nvJitLink's linked PTX (numba-cuda's LTO
  // path) ends in NUL bytes. They end the text; a NUL before other text is still an error.
  while (end_ > cur_ && end_[-1] == '\0') --end_;
}

void Lexer::fail(SourceLoc loc, const char* msg) const { throw FatalDiagnostic(loc, msg); }

void Lexer::fill() {
  lexOne(ring_[(head_ + count_) % kLookahead]);
  ++count_;
}

void Lexer::skipSpaceAndComments(bool& sawNewline, bool& sawSpace) {
  const char* p = cur_;  // (a local pointer, as in skipClass)
  while (p < end_) {
    char ch = *p;
    if (is(ch, kSpace)) {
      sawSpace = true;
      ++p;
    } else if (ch == '\n') {
      sawNewline = sawSpace = true;
      ++p;
      ++line_;
      lineStart_ = p;
    } else if (ch == '/' && p + 1 < end_ && p[1] == '/') {
      sawSpace = true;
      while (p < end_ && *p != '\n') ++p;
    } else if (ch == '/' && p + 1 < end_ && p[1] == '*') {
      SourceLoc start = locAt(p);
      sawSpace = true;
      p += 2;
      for (;;) {
        if (p >= end_) fail(start, "unterminated block comment");
        if (*p == '*' && p + 1 < end_ && p[1] == '/') {
          p += 2;
          break;
        }
        if (*p == '\n') {
          sawNewline = true;
          ++line_;
          lineStart_ = p + 1;
        }
        ++p;
      }
    } else {
      break;
    }
  }
  cur_ = p;
}

void Lexer::lexOne(Token& t) {
  bool nl = false, sp = false;
  // Most tokens follow one blank or none: the loop over whitespace, line breaks and comments
  // runs only when more follows.
  if (cur_ < end_ && (*cur_ == ' ' || *cur_ == '\t')) {
    sp = true;
    ++cur_;
  }
  if (cur_ < end_ && (is(*cur_, kSpace) || *cur_ == '\n' || *cur_ == '/')) skipSpaceAndComments(nl, sp);
  t.newlineBefore = nl;
  t.spaceBefore = sp;
  t.loc = locAt(cur_);
  const char* start = cur_;
  if (cur_ >= end_) {
    t.kind = TokKind::Eof;
    t.text = {};
    return;
  }
  char ch = *cur_;

  auto single = [&](TokKind k) {
    ++cur_;
    t.kind = k;
    t.text = std::string_view(start, 1);
  };

  if (is(ch, kIdentStart)) {
    cur_ = skipClass(cur_ + 1, end_, kIdentBody);
    if (ch == '%' && cur_ == start + 1) fail(t.loc, "expected a register name after '%'");
    // A vector component written onto a register: %tid.x, %v.w
    if (ch == '%' && cur_ + 1 < end_ && *cur_ == '.') {
      bool comp = lookupComponent(std::string_view(cur_, 2)).has_value();  // the one table of components
      if (comp && (cur_ + 2 >= end_ || !is(cur_[2], kIdentBody))) cur_ += 2;
    }
    t.kind = TokKind::Ident;
    t.text = std::string_view(start, static_cast<size_t>(cur_ - start));
    return;
  }

  if (ch == '.') {
    ++cur_;
    if (cur_ >= end_ || !is(*cur_, kIdentBody)) fail(t.loc, "expected a directive or modifier name after '.'");
    for (;;) {
      cur_ = skipClass(cur_, end_, kIdentBody);
      // `::` joins the parts of qualified modifiers: .shared::cta, .L2::cache_hint
      if (cur_ + 2 < end_ && cur_[0] == ':' && cur_[1] == ':' && is(cur_[2], kIdentBody)) {
        cur_ += 2;
        continue;
      }
      break;
    }
    t.kind = TokKind::Dot;
    t.text = std::string_view(start, static_cast<size_t>(cur_ - start));
    return;
  }

  if (is(ch, kDigit)) {
    // Hexadecimal float bit patterns: 0f + 8 hex digits, 0d + 16 hex digits.
    if (ch == '0' && cur_ + 1 < end_ && (cur_[1] == 'f' || cur_[1] == 'F' || cur_[1] == 'd' || cur_[1] == 'D')) {
      unsigned want = (cur_[1] == 'f' || cur_[1] == 'F') ? 8 : 16;
      const char* p = skipClass(cur_ + 2, end_, kHex);
      if (static_cast<unsigned>(p - (cur_ + 2)) != want || (p < end_ && is(*p, kIdentBody)))
        fail(t.loc, want == 8 ? "a 0f float literal needs exactly 8 hexadecimal digits"
                              : "a 0d double literal needs exactly 16 hexadecimal digits");
      cur_ = p;
      t.kind = TokKind::Float;
      t.text = std::string_view(start, static_cast<size_t>(cur_ - start));
      return;
    }
    if (ch == '0' && cur_ + 1 < end_ && (cur_[1] == 'x' || cur_[1] == 'X')) {
      cur_ += 2;
      const char* digits = cur_;
      cur_ = skipClass(cur_, end_, kHex);
      if (cur_ == digits) fail(t.loc, "expected hexadecimal digits after '0x'");
    } else if (ch == '0' && cur_ + 1 < end_ && (cur_[1] == 'b' || cur_[1] == 'B') && cur_ + 2 < end_ &&
               (cur_[2] == '0' || cur_[2] == '1')) {
      cur_ += 2;
      while (cur_ < end_ && (*cur_ == '0' || *cur_ == '1')) ++cur_;
    } else {
      cur_ = skipClass(cur_, end_, kDigit);
      bool isFloat = false;
      if (cur_ < end_ && *cur_ == '.' && (cur_ + 1 >= end_ || !is(cur_[1], kIdentStart))) {
        isFloat = true;
        cur_ = skipClass(cur_ + 1, end_, kDigit);
      }
      if (cur_ < end_ && (*cur_ == 'e' || *cur_ == 'E')) {
        const char* p = cur_ + 1;
        if (p < end_ && (*p == '+' || *p == '-')) ++p;
        if (p < end_ && is(*p, kDigit)) {
          while (p < end_ && is(*p, kDigit)) ++p;
          cur_ = p;
          isFloat = true;
        }
      }
      if (isFloat) {
        if (cur_ < end_ && is(*cur_, kIdentBody)) fail(locAt(cur_), "invalid character in number");
        t.kind = TokKind::Float;
        t.text = std::string_view(start, static_cast<size_t>(cur_ - start));
        return;
      }
    }
    if (cur_ < end_ && (*cur_ == 'U' || *cur_ == 'u')) ++cur_;
    if (cur_ < end_ && is(*cur_, kIdentBody)) fail(locAt(cur_), "invalid character in number");
    t.kind = TokKind::Int;
    t.text = std::string_view(start, static_cast<size_t>(cur_ - start));
    return;
  }

  switch (ch) {
    case ',': return single(TokKind::Comma);
    case ';': return single(TokKind::Semi);
    case ':': return single(TokKind::Colon);
    case '{': return single(TokKind::LBrace);
    case '}': return single(TokKind::RBrace);
    case '[': return single(TokKind::LBracket);
    case ']': return single(TokKind::RBracket);
    case '(': return single(TokKind::LParen);
    case ')': return single(TokKind::RParen);
    case '+': return single(TokKind::Plus);
    case '-': return single(TokKind::Minus);
    case '!': return single(TokKind::Bang);
    case '@': return single(TokKind::At);
    case '|': return single(TokKind::Pipe);
    case '<': return single(TokKind::Lt);
    case '>': return single(TokKind::Gt);
    case '=': return single(TokKind::Eq);
    case '"': {
      ++cur_;
      while (cur_ < end_ && *cur_ != '"') {
        if (*cur_ == '\n') fail(t.loc, "unterminated string");
        if (*cur_ == '\\' && cur_ + 1 < end_ && cur_[1] != '\n') ++cur_;
        ++cur_;
      }
      if (cur_ >= end_) fail(t.loc, "unterminated string");
      ++cur_;
      t.kind = TokKind::String;
      t.text = std::string_view(start, static_cast<size_t>(cur_ - start));
      return;
    }
    case '#': fail(t.loc, "preprocessor directives are not supported; run the C preprocessor first");
    default: break;
  }
  char buf[64];
  unsigned char uc = static_cast<unsigned char>(ch);
  if (uc >= 0x20 && uc < 0x7f)
    std::snprintf(buf, sizeof buf, "unexpected character '%c'", ch);
  else
    std::snprintf(buf, sizeof buf, "unexpected byte 0x%02X", uc);
  fail(t.loc, buf);
}

}  // namespace ptxopt
