// PTX lexer: turns text into tokens with line and column; a pull lexer with a short lookahead.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ptxopt/support/Diagnostics.h"

namespace ptxopt {

enum class TokKind : uint8_t {
  Eof,
  Ident,      // foo, %r1, %tid.x, $L__BB0_1, _ (sink)
  Dot,        // .global, .shared::cta, .b32 (a directive or a modifier)
  Int,        // 42, 0x7F, 017, 0b101, with an optional U suffix
  Float,      // 0f3F800000, 0d3FF0000000000000, 1.5, 2e10
  String,     // "text" (the token text keeps the quotes)
  Comma,
  Semi,
  Colon,
  LBrace,
  RBrace,
  LBracket,
  RBracket,
  LParen,
  RParen,
  Plus,
  Minus,
  Bang,
  At,
  Pipe,
  Lt,
  Gt,
  Eq,
};

std::string_view tokKindName(TokKind k);

struct Token {
  TokKind kind = TokKind::Eof;
  bool newlineBefore = false;  // a line break separates it from the previous token
  bool spaceBefore = false;    // any whitespace (or a comment) separates it from the previous token
  std::string_view text;
  SourceLoc loc;
};

class Lexer {
 public:
  explicit Lexer(std::string_view src);

  // The token `n` positions ahead (0 = the next one). n < kLookahead.
  const Token& peek(unsigned n = 0) {
    while (count_ <= n) fill();
    return ring_[(head_ + n) % kLookahead];
  }
  Token next() {
    Token t = peek(0);
    head_ = (head_ + 1) % kLookahead;
    --count_;
    return t;
  }
  // Throws FatalDiagnostic: used for bad characters and malformed literals.
  [[noreturn]] void fail(SourceLoc loc, const char* msg) const;

  static constexpr unsigned kLookahead = 4;

 private:
  void fill();
  void lexOne(Token& t);  // the next token, into `t` (a slot of ring_)
  void skipSpaceAndComments(bool& sawNewline, bool& sawSpace);
  SourceLoc locAt(const char* p) const {
    return SourceLoc{line_, static_cast<uint32_t>(p - lineStart_) + 1};
  }

  const char* cur_;
  const char* end_;
  const char* lineStart_;
  uint32_t line_ = 1;
  Token ring_[kLookahead];
  unsigned head_ = 0;
  unsigned count_ = 0;
};

}  // namespace ptxopt
