#include "harness/script/lexer.h"

#include <cctype>

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
  auto fail = [&](size_t at, std::string message) {
    out.error = Diagnostic{file, {line_no, static_cast<int>(at) + 1}, std::move(message)};
  };
  while (i < line.size() && !out.error) {
    const char c = line[i];
    const Position pos{line_no, static_cast<int>(i) + 1};
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    // Byte strings b"..." and strings "...", with Python escapes \xNN \\ \" \n \t \0.
    if (c == '"' || ((c == 'b' || c == 'B') && i + 1 < line.size() && line[i + 1] == '"')) {
      const bool is_bytes = c != '"';
      const size_t start = i;
      i += is_bytes ? 2 : 1;
      std::string value;
      bool closed = false;
      while (i < line.size()) {
        const char d = line[i];
        if (d == '"') {
          closed = true;
          ++i;
          break;
        }
        if (d == '\\' && i + 1 < line.size()) {
          const char e = line[i + 1];
          if (e == 'x' && i + 3 < line.size() && hex_digit(line[i + 2]) >= 0 &&
              hex_digit(line[i + 3]) >= 0) {
            value.push_back(
                static_cast<char>(hex_digit(line[i + 2]) * 16 + hex_digit(line[i + 3])));
            i += 4;
            continue;
          }
          const char mapped = e == 'n'    ? '\n'
                              : e == 't'  ? '\t'
                              : e == '0'  ? '\0'
                              : e == '\\' ? '\\'
                              : e == '"'  ? '"'
                                          : 0;
          if (mapped == 0 && e != '0') {
            fail(i, std::string("unknown escape '\\") + e + "' in string");
            break;
          }
          value.push_back(mapped);
          i += 2;
          continue;
        }
        value.push_back(d);
        ++i;
      }
      if (out.error) break;
      if (!closed) {
        fail(start, "string not closed before the end of the line");
        break;
      }
      out.tokens.push_back({is_bytes ? Token::Kind::kBytes : Token::Kind::kString,
                            std::string(line.substr(start, i - start)), value, pos});
      continue;
    }
    if (ident_start(c)) {
      const size_t start = i;
      while (i < line.size() && ident_char(line[i])) ++i;
      out.tokens.push_back(
          {Token::Kind::kIdent, std::string(line.substr(start, i - start)), "", pos});
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      const size_t start = i;
      if (c == '0' && i + 1 < line.size() && (line[i + 1] == 'x' || line[i + 1] == 'X')) {
        i += 2;
        while (i < line.size() && hex_digit(line[i]) >= 0) ++i;
        if (i == start + 2) {
          fail(start, "hex number without digits");
          break;
        }
      } else {
        while (i < line.size() &&
               (std::isdigit(static_cast<unsigned char>(line[i])) || line[i] == '.'))
          ++i;
      }
      if (i < line.size() && ident_start(line[i])) {
        fail(i, "unexpected '" + std::string(1, line[i]) + "' after number " +
                    std::string(line.substr(start, i - start)));
        break;
      }
      out.tokens.push_back(
          {Token::Kind::kNumber, std::string(line.substr(start, i - start)), "", pos});
      continue;
    }
    static constexpr std::string_view kPunct = "()[],=/+-*<>~:%";
    if (kPunct.find(c) != std::string_view::npos) {
      out.tokens.push_back({Token::Kind::kPunct, std::string(1, c), "", pos});
      ++i;
      continue;
    }
    fail(i, "unexpected character '" + std::string(1, c) + "'");
  }
  out.tokens.push_back({Token::Kind::kEnd, "", "", {line_no, static_cast<int>(line.size()) + 1}});
  return out;
}

}  // namespace mr::script
