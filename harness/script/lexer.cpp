#include "harness/script/lexer.h"

#include <cctype>
#include <optional>
#include <utility>

#include "reference/error/expected.h"

namespace mr::script {
namespace {

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// A lexical error: the index in the line where it is, and what it is.
struct LexError {
  size_t at;
  std::string message;
};
using Lexed = mr::Expected<Token, LexError>;

mr::Unexpected<LexError> lex_error(size_t at, std::string message) {
  return mr::Unexpected(LexError{at, std::move(message)});
}

// The character a Python escape \e stands for, nothing for an unknown escape.
std::optional<char> escaped(char e) {
  switch (e) {
    case 'n':
      return '\n';
    case 't':
      return '\t';
    case '0':
      return '\0';
    case '\\':
      return '\\';
    case '"':
      return '"';
    default:
      return std::nullopt;
  }
}

// Byte strings b"..." and strings "...", with Python escapes \xNN \\ \" \n \t \0; `i` is at
// the b or the opening quote, and after the closing quote on success.
Lexed string_token(std::string_view line, size_t& i, Position pos) {
  const bool is_bytes = line[i] != '"';
  const size_t start = i;
  i += is_bytes ? 2 : 1;
  std::string value;
  while (i < line.size() && line[i] != '"') {
    const char d = line[i];
    if (d != '\\' || i + 1 == line.size()) {
      value.push_back(d);
      ++i;
      continue;
    }
    const char e = line[i + 1];
    if (e == 'x' && i + 3 < line.size() && hex_digit(line[i + 2]) >= 0 &&
        hex_digit(line[i + 3]) >= 0) {
      value.push_back(static_cast<char>(hex_digit(line[i + 2]) * 16 + hex_digit(line[i + 3])));
      i += 4;
      continue;
    }
    const std::optional<char> mapped = escaped(e);
    if (!mapped) return lex_error(i, std::string("unknown escape '\\") + e + "' in string");
    value.push_back(*mapped);
    i += 2;
  }
  if (i == line.size()) return lex_error(start, "string not closed before the end of the line");
  ++i;
  return Token{is_bytes ? Token::Kind::kBytes : Token::Kind::kString,
               std::string(line.substr(start, i - start)), std::move(value), pos};
}

// 42, 0x1f, 0.5: whether a point may be there is the parser's call (a time, a percentage).
Lexed number_token(std::string_view line, size_t& i, Position pos) {
  const size_t start = i;
  if (line[i] == '0' && i + 1 < line.size() && (line[i + 1] == 'x' || line[i + 1] == 'X')) {
    i += 2;
    while (i < line.size() && hex_digit(line[i]) >= 0) ++i;
    if (i == start + 2) return lex_error(start, "hex number without digits");
  } else {
    while (i < line.size() && (std::isdigit(static_cast<unsigned char>(line[i])) || line[i] == '.'))
      ++i;
  }
  if (i < line.size() && ident_start(line[i])) {
    return lex_error(i, "unexpected '" + std::string(1, line[i]) + "' after number " +
                            std::string(line.substr(start, i - start)));
  }
  return Token{Token::Kind::kNumber, std::string(line.substr(start, i - start)), "", pos};
}

// The token that starts at line[i], which is not white space; `i` goes past it.
Lexed next_token(std::string_view line, size_t& i, Position pos) {
  const char c = line[i];
  if (c == '"' || ((c == 'b' || c == 'B') && i + 1 < line.size() && line[i + 1] == '"'))
    return string_token(line, i, pos);
  if (ident_start(c)) {
    const size_t start = i;
    while (i < line.size() && ident_char(line[i])) ++i;
    return Token{Token::Kind::kIdent, std::string(line.substr(start, i - start)), "", pos};
  }
  if (std::isdigit(static_cast<unsigned char>(c))) return number_token(line, i, pos);
  static constexpr std::string_view kPunct = "()[],=/+-*<>~:%!";
  if (kPunct.find(c) != std::string_view::npos) {
    ++i;
    return Token{Token::Kind::kPunct, std::string(1, c), "", pos};
  }
  return lex_error(i, "unexpected character '" + std::string(1, c) + "'");
}

}  // namespace

std::string Diagnostic::to_string() const {
  return file + ":" + std::to_string(pos.line) + ":" + std::to_string(pos.column) + ": " + message;
}

std::string describe(const Token& t) {
  switch (t.kind) {
    case Token::Kind::kIdent:
      return "identifier '" + t.text + "'";
    case Token::Kind::kNumber:
      return "number " + t.text;
    case Token::Kind::kBytes:
    case Token::Kind::kString:
      return "string " + t.text;
    case Token::Kind::kPunct:
      return "'" + t.text + "'";
    case Token::Kind::kEnd:
      return "end of line";
  }
  return "?";
}

LexResult lex_line(std::string_view line, int line_no, const std::string& file) {
  LexResult out;
  size_t i = 0;
  while (i < line.size()) {
    if (std::isspace(static_cast<unsigned char>(line[i]))) {
      ++i;
      continue;
    }
    Lexed token = next_token(line, i, {line_no, static_cast<int>(i) + 1});
    if (!token) {
      out.error = Diagnostic{file,
                             {line_no, static_cast<int>(token.error().at) + 1},
                             std::move(token.error().message)};
      break;
    }
    out.tokens.push_back(std::move(*token));
  }
  out.tokens.push_back({Token::Kind::kEnd, "", "", {line_no, static_cast<int>(line.size()) + 1}});
  return out;
}

}  // namespace mr::script
