// The Handlebars tokenizer: a hand-written copy of the state machine handlebars.js generates
// from src/handlebars.l (states INITIAL, mu, emu, com, raw; first matching rule wins).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ast.h"

namespace alknet::hbs::detail {

enum class Tok {
  kContent,
  kComment,
  kOpenRawBlock,
  kCloseRawBlock,
  kEndRawBlock,
  kOpenSexpr,
  kCloseSexpr,
  kOpenPartial,
  kOpenPartialBlock,
  kOpenBlock,
  kOpenEndBlock,
  kInverse,
  kOpenInverse,
  kOpenInverseChain,
  kOpenUnescaped,
  kOpen,
  kEquals,
  kId,
  kSep,
  kCloseUnescaped,
  kClose,
  kString,
  kData,
  kBoolean,
  kUndefined,
  kNull,
  kNumber,
  kOpenBlockParams,
  kCloseBlockParams,
  kInvalid,
  kEof,
};

const char* token_name(Tok t);

struct Token {
  Tok type;
  std::string text;  // after the lexer's own rewriting (quotes stripped, escapes removed)
  std::size_t pos;   // byte offset of the match in the source
  Loc loc;
};

// Tokenizes the whole source. A lexical error (NUL byte, unterminated comment or raw block)
// throws ParseError.
std::vector<Token> tokenize(std::string_view source, const std::string& template_name);

// 1-based line and column of a byte offset.
Loc locate(std::string_view source, std::size_t pos);

}  // namespace alknet::hbs::detail
