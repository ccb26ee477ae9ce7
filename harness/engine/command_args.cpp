#include "harness/engine/command_args.h"

#include <algorithm>

#include "harness/engine/evaluate.h"

namespace mr::engine {

std::string did_you_mean(const std::string& word, const std::set<std::string>& known) {
  // Levenshtein distance, two rows: the names are short.
  auto distance = [](const std::string& a, const std::string& b) {
    std::vector<size_t> prev(b.size() + 1);
    std::vector<size_t> cur(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
      cur[0] = i;
      for (size_t j = 1; j <= b.size(); ++j)
        cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
      std::swap(prev, cur);
    }
    return prev[b.size()];
  };
  std::string best;
  size_t best_distance = 3;  // more than two edits away is not a typo
  for (const auto& k : known) {
    const size_t d = distance(word, k);
    if (d < best_distance) {
      best_distance = d;
      best = k;
    }
  }
  return best.empty() ? "" : " (did you mean '" + best + "'?)";
}

Args::Args(const script::Command& c, TestContext& ctx, const std::set<std::string>& allowed)
    : c_(c), ctx_(ctx) {
  for (const auto& a : c.args) {
    if (!allowed.contains(a.name)) {
      std::string known;
      for (const auto& k : allowed) known += (known.empty() ? "" : ", ") + k;
      const std::string hint = did_you_mean(a.name, allowed);
      ctx.error(a.pos, c.actor + " " + c.name + ": unknown argument '" + a.name + "'" +
                           (hint.empty() ? " (takes " + known + ")" : hint));
      return;
    }
    args_[a.name] = &a;
  }
}

uint64_t Args::number(const std::string& n, uint64_t fallback) {
  auto it = args_.find(n);
  if (it == args_.end()) return fallback;
  auto v = evaluate_number(it->second->value, ctx_.symbols);
  if (!v) {
    ctx_.error(it->second->pos, what(n) + ": " + v.error());
    return fallback;
  }
  return *v;
}

std::string Args::name(const std::string& n, const std::string& fallback) {
  auto it = args_.find(n);
  if (it == args_.end()) return fallback;
  const auto& e = it->second->value;
  if (e.kind == script::Expr::Kind::kName || e.kind == script::Expr::Kind::kSymbol) return e.text;
  if (e.kind == script::Expr::Kind::kBytes) return e.bytes;
  ctx_.error(it->second->pos, what(n) + ": expected a name");
  return fallback;
}

std::vector<uint8_t> Args::bytes(const std::string& n) {
  auto it = args_.find(n);
  if (it == args_.end()) return {};
  auto v = evaluate_bytes(it->second->value, ctx_.symbols);
  if (!v) {
    ctx_.error(it->second->pos, what(n) + ": " + v.error());
    return {};
  }
  return *v;
}

uint64_t Args::ppm(const std::string& n, uint64_t fallback) {
  auto it = args_.find(n);
  if (it == args_.end()) return fallback;
  if (it->second->value.kind != script::Expr::Kind::kPercent) {
    ctx_.error(it->second->pos, what(n) + ": expected a percentage such as 2% or 0.5%");
    return fallback;
  }
  return it->second->value.number;
}

const script::Position& Args::pos(const std::string& n) const {
  auto it = args_.find(n);
  return it == args_.end() ? c_.pos : it->second->pos;
}

}  // namespace mr::engine
