// File: line_parser.h
//
// Recursive descent over the tokens of one .mrt line (lexer.h): the expressions, layers,
// packets, times, loop headers and arguments that statements are made of. A line gets at
// most one diagnostic, its first: later ones are consequences. Part of the parser
// (parser.cpp), which decides what kind of line it reads.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "harness/script/ast.h"
#include "harness/script/lexer.h"

namespace mr::script {

// Upper-case names with digits or underscores (RC_SEND_ONLY, ACK, E1) name constants; other
// identifiers are symbols (P, A.qpn, a script's own `let` names such as e1).
bool is_enum_name(const std::string& s);

class LineParser {
 public:
  LineParser(std::vector<Token> tokens, const std::string& file, std::vector<Diagnostic>& diags)
      : t_(std::move(tokens)), file_(file), diags_(diags) {}

  const Token& peek(size_t k = 0) const { return t_[std::min(i_ + k, t_.size() - 1)]; }
  bool at_punct(std::string_view p, size_t k = 0) const {
    return peek(k).kind == Token::Kind::kPunct && peek(k).text == p;
  }
  bool at_end() const { return peek().kind == Token::Kind::kEnd; }
  const Token& next() { return t_[std::min(i_++, t_.size() - 1)]; }
  bool failed() const { return failed_; }

  void error(const Token& at, std::string message);
  bool expect_punct(std::string_view p, std::string_view context);

  Expr expression();                      // 1, P+1, b"...", bytes(N), *, 2%
  PacketExpr packet();                    // none, or BTH(...)/AETH(...) to the end of the line
  TimeSpec time_spec();                   // *, 0.5, +0.1, +0~0.1
  std::vector<FieldArg> loop_header();    // after `repeat`: max=N until EXPR == EXPR
  std::vector<FieldArg> arguments();      // a command's name=value ... to the end of the line
  double seconds(std::string_view what);  // a number of seconds; `what` names it in the error

 private:
  // Parentheses nest at most kMaxDepth deep: the descent is recursive, and a hostile script
  // must get an error, not a stack overflow.
  static constexpr int kMaxDepth = 64;
  // A list holds an EV set (at most 4,096 entries, section 30) or the PSNs of a SACK bitmap;
  // more than that is a typo, not a test.
  static constexpr size_t kMaxListItems = 4096;
  // And a line has at most kMaxOperators + - *: a chain of them is as deep a tree to
  // evaluate and to free as nested parentheses.
  static constexpr int kMaxOperators = 256;

  Expr term();
  Expr atom();
  Layer layer();
  bool more_operators(const Token& at);
  bool deeper(const Token& at);
  bool ends_value(size_t k) const;

  std::vector<Token> t_;
  size_t i_ = 0;
  const std::string& file_;
  std::vector<Diagnostic>& diags_;
  bool failed_ = false;
  int depth_ = 0;
  int operators_ = 0;
};

}  // namespace mr::script
