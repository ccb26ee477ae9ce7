#include "harness/script/expr_text.h"

#include <cstdio>

namespace mr::script {
namespace {

int precedence(const Expr& e) {
  if (e.kind != Expr::Kind::kBinary) return 3;
  return e.op == '*' ? 2 : 1;
}

std::string number_text(uint64_t v) {
  if (v <= 9) return std::to_string(v);
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string quoted(const std::string& bytes) {
  std::string s = "b\"";
  for (const char c : bytes) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      s += '\\';
      s += c;
    } else if (u >= 0x20 && u < 0x7f) {
      s += c;
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      s += buf;
    }
  }
  return s + "\"";
}

// A child is wrapped when it binds more loosely than its parent, or, on the right of '-',
// as loosely (P-(1+2) is not P-1+2).
std::string child(const Expr* e, int parent, bool right_of_minus) {
  if (e == nullptr) return "?";
  const std::string text = expr_text(*e);
  const int p = precedence(*e);
  return p < parent || (right_of_minus && p == parent) ? "(" + text + ")" : text;
}

}  // namespace

std::string expr_text(const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::kNumber:
      return number_text(e.number);
    case Expr::Kind::kSymbol:
    case Expr::Kind::kName:
      return e.text;
    case Expr::Kind::kBinary: {
      const int p = precedence(e);
      return child(e.lhs.get(), p, false) + e.op + child(e.rhs.get(), p, e.op == '-');
    }
    case Expr::Kind::kBytes:
      return quoted(e.bytes);
    case Expr::Kind::kBytesOfLength:
      return "bytes(" + (e.lhs ? expr_text(*e.lhs) : std::string("?")) + ")";
    case Expr::Kind::kWildcard:
      return "*";
    case Expr::Kind::kPercent: {
      // Parts per million back to a percentage, without trailing zeros.
      std::string s = std::to_string(e.number / 10000);
      if (const uint64_t frac = e.number % 10000; frac != 0) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "%04llu", static_cast<unsigned long long>(frac));
        std::string f = buf;
        while (!f.empty() && f.back() == '0') f.pop_back();
        s += "." + f;
      }
      return s + "%";
    }
    case Expr::Kind::kList: {
      std::string s = "[";
      for (const Expr& item : e.items) s += (s.size() > 1 ? ", " : "") + expr_text(item);
      return s + "]";
    }
  }
  return "?";
}

bool is_literal(const Expr& e) {
  return e.kind == Expr::Kind::kNumber || e.kind == Expr::Kind::kBytes ||
         e.kind == Expr::Kind::kWildcard || e.kind == Expr::Kind::kPercent;
}

}  // namespace mr::script
