#include "harness/engine/evaluate.h"

namespace mr::engine {

using script::Expr;

Expected<uint64_t, std::string> evaluate_number(const Expr& e, const SymbolTable& symbols) {
  switch (e.kind) {
    case Expr::Kind::kNumber:
      return e.number;
    case Expr::Kind::kSymbol: {
      if (auto v = symbols.get(e.text)) return *v;
      if (auto v = enum_value(e.text)) return *v;
      if (e.text.starts_with("param."))
        return Unexpected("'" + e.text +
                          "': the PIXIT's parameters have no whole number of that name (a "
                          "fraction is read only by the commands that judge with it)");
      if (e.text.starts_with("limits."))
        return Unexpected("'" + e.text + "': the DUT's capabilities state no limit of that name");
      return Unexpected("unknown symbol '" + e.text + "'");
    }
    case Expr::Kind::kName: {
      if (auto v = enum_value(e.text)) return *v;
      if (auto v = symbols.get(e.text)) return *v;
      return Unexpected("unknown name '" + e.text + "'");
    }
    case Expr::Kind::kBinary: {
      auto l = evaluate_number(*e.lhs, symbols);
      if (!l) return l;
      auto r = evaluate_number(*e.rhs, symbols);
      if (!r) return r;
      switch (e.op) {
        case '+':
          return *l + *r;
        case '-':
          return *l - *r;
        default:
          return *l * *r;
      }
    }
    case Expr::Kind::kWildcard:
      return Unexpected(std::string("'*' is not a number here"));
    case Expr::Kind::kPercent:
      return Unexpected(std::string("a percentage is a rate (impair loss=2%), not a number here"));
    case Expr::Kind::kBytes:
    case Expr::Kind::kBytesOfLength:
      return Unexpected(std::string("a byte string is not a number"));
    case Expr::Kind::kList:
      return Unexpected(std::string("a list is not a number"));
  }
  return Unexpected(std::string("bad expression"));
}

Expected<std::vector<uint8_t>, std::string> evaluate_bytes(const Expr& e,
                                                           const SymbolTable& symbols) {
  constexpr uint64_t kMaxBytes = 1 << 24;
  switch (e.kind) {
    case Expr::Kind::kBytes:
      return std::vector<uint8_t>(e.bytes.begin(), e.bytes.end());
    case Expr::Kind::kBytesOfLength: {
      auto n = evaluate_number(*e.lhs, symbols);
      if (!n) return Unexpected(n.error());
      if (*n > kMaxBytes)
        return Unexpected("bytes(" + std::to_string(*n) + ") is larger than 16 MiB");
      return std::vector<uint8_t>(*n, 0);
    }
    case Expr::Kind::kBinary: {
      // b"ab" * 3 repeats, as in Python.
      if (e.op != '*') return Unexpected(std::string("only '*' applies to byte strings"));
      auto b = evaluate_bytes(*e.lhs, symbols);
      if (!b) return b;
      auto n = evaluate_number(*e.rhs, symbols);
      if (!n) return Unexpected(n.error());
      if (*n * b->size() > kMaxBytes)
        return Unexpected(std::string("repeated byte string is larger than 16 MiB"));
      std::vector<uint8_t> out;
      for (uint64_t i = 0; i < *n; ++i) out.insert(out.end(), b->begin(), b->end());
      return out;
    }
    default:
      return Unexpected(std::string("expected a byte string (b\"...\" or bytes(N))"));
  }
}

}  // namespace mr::engine
