#include "harness/engine/command_args.h"

#include "harness/engine/evaluate.h"
#include "reference/wire/psn.h"

namespace mr::engine {

Args::Args(const script::Command& c, TestContext& ctx)
    : c_(c), ctx_(ctx), spec_(script::find_command(c.actor, c.name)) {
  // A script from parse_script never gets here with an unknown name; one built in code can.
  if (spec_ == nullptr) {
    ctx.error(c.pos, "'" + c.actor + " " + c.name + "' is not a command of the language");
    return;
  }
  for (const auto& a : c.args) {
    if (spec_->arg(a.name) == nullptr) {
      ctx.error(a.pos, c.actor + " " + c.name + ": unknown argument '" + a.name + "'");
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
  const script::ArgSpec* spec = spec_->arg(n);
  if (spec->wraps) return *v & wire::kPsnMask;  // a PSN, modulo 2^24 as on the wire
  if (*v > spec->max) {
    ctx_.error(it->second->pos, what(n) + ": " + std::to_string(*v) + " does not fit (at most " +
                                    std::to_string(spec->max) + ")");
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

std::vector<uint64_t> Args::numbers(const std::string& n) {
  auto it = args_.find(n);
  if (it == args_.end()) return {};
  const script::Expr& list = it->second->value;
  if (list.kind != script::Expr::Kind::kList) {
    ctx_.error(it->second->pos, what(n) + ": expected a list such as [1, 2]");
    return {};
  }
  const uint64_t max = spec_->arg(n)->max;
  std::vector<uint64_t> out;
  for (const script::Expr& item : list.items) {
    auto v = evaluate_number(item, ctx_.symbols);
    if (!v || *v > max) {
      ctx_.error(item.pos,
                 what(n) + ": " +
                     (v ? std::to_string(*v) + " does not fit (at most " + std::to_string(max) + ")"
                        : v.error()));
      return {};
    }
    out.push_back(*v);
  }
  return out;
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
