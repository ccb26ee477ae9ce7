#include "harness/engine/script_values.h"

#include <map>
#include <optional>
#include <string>

#include "harness/engine/evaluate.h"
#include "harness/engine/packet_synthesis.h"
#include "harness/engine/symbols.h"
#include "harness/script/expr_text.h"

namespace mr::engine {
namespace {

std::optional<uint64_t> value_of(const script::Expr& e, TestContext& ctx, const char* what) {
  auto v = evaluate_number(e, ctx.symbols);
  if (!v) {
    ctx.error(e.pos, std::string(what) + ": " + v.error());
    return std::nullopt;
  }
  return *v;
}

// "E1 = 0xc003 (49155)": the expression as written, then its value.
std::string shown(const script::Expr& e, uint64_t v) {
  if (e.kind == script::Expr::Kind::kNumber) return format_value(v, 16);
  return script::expr_text(e) + " = " + format_value(v, 16);
}

// A false `check` fails the test; a false `assume` ends it inconclusive, as the case is one
// the test cannot judge (parser.cpp, assertion), not a fault of the DUT's. `message` follows
// the statement's name: " distinct: ...", ": the comparison is false".
void unmet(const script::Command& c, TestContext& ctx, const script::Position& pos,
           std::string expected, std::string actual, const std::string& message) {
  if (c.actor == "assume") {
    return ctx.inconclusive(pos, "assume: expected " + expected + ", actual " + actual + " (" +
                                     c.actor + message + "): the test cannot judge this case");
  }
  ctx.fail(pos, "check", std::move(expected), std::move(actual), c.actor + message);
}

// `check distinct [...]`: every value differs (the first repeat is shown with the value it
// repeats); `check at_least N distinct [...]`: at least N different values.
void check_distinct(const script::Command& c, TestContext& ctx) {
  const bool counted = c.args.size() == 2;
  const script::Expr& list = c.args.back().value;
  std::optional<uint64_t> least;
  if (counted && !(least = value_of(c.args.front().value, ctx, "check at_least"))) return;
  std::map<uint64_t, const script::Expr*> seen;
  for (const script::Expr& item : list.items) {
    const auto v = value_of(item, ctx, "check distinct");
    if (!v) return;
    auto [it, fresh] = seen.emplace(*v, &item);
    if (!fresh && !counted) {
      return unmet(c, ctx, item.pos, "distinct values",
                   shown(*it->second, *v) + " and " + shown(item, *v),
                   " distinct: two values are equal");
    }
  }
  if (counted && seen.size() < *least) {
    std::string values;
    for (const auto& [v, e] : seen) values += (values.empty() ? "" : ", ") + format_value(v, 16);
    unmet(c, ctx, c.pos, "at least " + std::to_string(*least) + " distinct values",
          std::to_string(seen.size()) + ": " + values,
          " at_least: too few distinct values among " + std::to_string(list.items.size()));
  }
}

}  // namespace

void bind_value(const script::Command& c, TestContext& ctx) {
  if (enum_value(c.target)) {
    return ctx.error(c.pos, "let: '" + c.target + "' is a constant of the language (" +
                                format_value(*enum_value(c.target), 16) + "); choose another name");
  }
  // A limit the DUT does not state (capabilities limits): the test cannot know where the
  // DUT's resource ends, which is no fault of the script's or the DUT's.
  const script::Expr& e = c.args.at(0).value;
  if (e.kind == script::Expr::Kind::kSymbol && e.text.starts_with("limits.") &&
      !ctx.symbols.get(e.text)) {
    return ctx.inconclusive(c.pos, "let: the DUT's capabilities state no " + e.text +
                                       " (docs/dut-control-protocol.md, capabilities)");
  }
  if (auto v = value_of(c.args.at(0).value, ctx, "let")) ctx.symbols.set(c.target, *v);
}

void check_values(const script::Command& c, TestContext& ctx) {
  if (c.name == "distinct") return check_distinct(c, ctx);
  const script::Expr& lhs = c.args.at(0).value;
  const script::Expr& rhs = c.args.at(1).value;
  const auto a = value_of(lhs, ctx, "check");
  const auto b = value_of(rhs, ctx, "check");
  if (!a || !b) return;
  struct Relation {
    std::string_view name;
    const char* symbol;
    bool (*holds)(uint64_t, uint64_t);
    const char* otherwise;
    const char* message;
  };
  static constexpr Relation kRelations[] = {
      {"equal", " == ", [](uint64_t x, uint64_t y) { return x == y; }, "they differ",
       "the values differ"},
      {"differ", " != ", [](uint64_t x, uint64_t y) { return x != y; }, "they are equal",
       "the values are equal"},
      {"at_most", " <= ", [](uint64_t x, uint64_t y) { return x <= y; }, "the first is larger",
       "the comparison is false"},
      {"at_least", " >= ", [](uint64_t x, uint64_t y) { return x >= y; }, "the first is smaller",
       "the comparison is false"},
      {"below", " < ", [](uint64_t x, uint64_t y) { return x < y; }, "the first is not smaller",
       "the comparison is false"},
      {"above", " > ", [](uint64_t x, uint64_t y) { return x > y; }, "the first is not larger",
       "the comparison is false"},
  };
  for (const Relation& r : kRelations) {
    if (c.name != r.name) continue;
    if (r.holds(*a, *b)) return;
    return unmet(c, ctx, c.pos, shown(lhs, *a) + r.symbol + shown(rhs, *b), r.otherwise,
                 std::string(": ") + r.message);
  }
}

}  // namespace mr::engine
