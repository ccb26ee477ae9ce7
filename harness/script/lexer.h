// File: lexer.h
//
// Tokens of one .mrt line. Lines are independent: a statement never spans lines.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "harness/script/ast.h"

namespace mr::script {

struct Token {
  enum class Kind : uint8_t { kIdent, kNumber, kBytes, kString, kPunct, kEnd };
  Kind kind = Kind::kEnd;
  std::string text;   // identifier, punctuation, or number as written
  std::string value;  // decoded contents of a string or byte string
  Position pos;
};

// Splits `line` (1-based line number `line_no`) into tokens; on a lexical error returns a
// Diagnostic instead.
struct LexResult {
  std::vector<Token> tokens;  // ends with a kEnd token
  std::optional<Diagnostic> error;
};

LexResult lex_line(std::string_view line, int line_no, const std::string& file);

std::string describe(const Token& t);  // "identifier 'psn'", "',' ", "end of line"

}  // namespace mr::script
