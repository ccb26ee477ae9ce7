// File: expr_text.h
//
// An expression as a script writes it, for messages that show the script's expression beside
// the value it came to (`psn: expected P+1 = 0x372fea (3616746)`). Parentheses only where
// the precedence needs them; numbers are printed as they came out of the lexer (decimal, or
// hex above 9), which may differ in spelling from the source but never in meaning.
#pragma once

#include <string>

#include "harness/script/ast.h"

namespace mr::script {

std::string expr_text(const Expr& e);

// True when the expression is a plain literal, whose text would only repeat its value.
bool is_literal(const Expr& e);

}  // namespace mr::script
