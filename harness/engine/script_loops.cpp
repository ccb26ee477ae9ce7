#include "harness/engine/script_loops.h"

#include "harness/engine/evaluate.h"
#include "reference/wire/psn.h"

namespace mr::engine {

ScriptLoops::ScriptLoops(const std::vector<script::Statement>& statements)
    : statements_(statements) {
  std::vector<size_t> open;
  for (size_t i = 0; i < statements.size(); ++i) {
    const auto* c = std::get_if<script::Command>(&statements[i]);
    if (c == nullptr) continue;
    if (c->actor == "repeat") open.push_back(i);
    if (c->actor == "end" && !open.empty()) {  // the parser guarantees the balance
      partner_[open.back()] = i;
      partner_[i] = open.back();
      open.pop_back();
    }
  }
}

size_t ScriptLoops::enter(size_t pc, TestContext& ctx) {
  const auto& c = std::get<script::Command>(statements_[pc]);
  const script::FieldArg* max = nullptr;
  const script::FieldArg* until = nullptr;
  const script::FieldArg* equals = nullptr;
  for (const auto& a : c.args) {
    if (a.name == "max") max = &a;
    if (a.name == "until") until = &a;
    if (a.name == "equals") equals = &a;
  }
  const size_t exit = partner_.at(pc);
  if (max == nullptr || until == nullptr || equals == nullptr) {
    ctx.error(c.pos, "repeat needs max=N until EXPR == EXPR");
    return exit;
  }
  auto limit = evaluate_number(max->value, ctx.symbols);
  auto lhs = evaluate_number(until->value, ctx.symbols);
  auto rhs = evaluate_number(equals->value, ctx.symbols);
  if (!limit || !lhs || !rhs) {
    ctx.error(c.pos, "repeat: " + (!limit ? limit.error() : !lhs ? lhs.error() : rhs.error()));
    return exit;
  }
  if (((*lhs - *rhs) & wire::kPsnMask) == 0) {
    passes_.erase(pc);
    return exit;
  }
  if (passes_[pc]++ >= *limit) {
    ctx.fail(c.pos, "repeat", "the condition true within " + std::to_string(*limit) + " passes",
             "still false", "the loop did not reach its end condition");
    passes_.erase(pc);
    return exit;
  }
  return pc;
}

}  // namespace mr::engine
