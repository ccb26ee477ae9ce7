#include "harness/script/command_schema.h"

#include <algorithm>
#include <array>

#include "harness/script/did_you_mean.h"
#include "reference/transport/verbs_names.h"

namespace mr::script {
namespace {

using K = ArgKind;

constexpr uint64_t k8 = 0xff;
constexpr uint64_t k16 = 0xffff;
constexpr uint64_t k24 = 0xffffff;  // PSNs, QPNs
constexpr uint64_t k32 = 0xffffffff;

constexpr std::array<std::string_view, 2> kEventDirections{"tester", "dut"};
constexpr std::array<std::string_view, 3> kImpairDirections{"tester", "dut", "both"};
constexpr std::array<std::string_view, 1> kWaitConditions{"idle"};
// What management may set an EV to (spec section 25.1); ASSUMED_BAD is the device's finding.
constexpr std::array<std::string_view, 2> kManagedEvStates{"GOOD", "DENIED"};
constexpr std::array<std::string_view, 3> kEvStates{"GOOD", "ASSUMED_BAD", "DENIED"};
constexpr std::array<std::string_view, 2> kExtModes{"EXT", "BASE"};  // query_qp attrs.ext_mode

// Words whose lists live in reference/transport (verbs_names.h) are filled in at first use:
// a span over a function's result cannot be constant-initialised.
enum class Vocabulary : uint8_t { kNone, kQpType, kQpState, kSendOpcode, kWcStatus, kWcOpcode };

struct Arg {
  std::string_view name;
  K kind = K::kNumber;
  uint64_t max = std::numeric_limits<uint64_t>::max();
  Vocabulary vocabulary = Vocabulary::kNone;
  std::span<const std::string_view> words = {};
  bool required = false;
  bool wraps = false;
};

constexpr Arg number(std::string_view n, uint64_t max = std::numeric_limits<uint64_t>::max()) {
  return {n, K::kNumber, max};
}
constexpr Arg word(std::string_view n, Vocabulary v) { return {n, K::kWord, 0, v}; }
constexpr Arg word(std::string_view n, std::span<const std::string_view> w) {
  return {n, K::kWord, 0, Vocabulary::kNone, w};
}
constexpr Arg psn(std::string_view n) {
  Arg a{n, K::kNumber, k24};
  a.wraps = true;
  return a;
}
constexpr Arg required(Arg a) {
  a.required = true;
  return a;
}

// The QP settings both sides take (ibv_modify_qp's attributes, IBTA field widths).
constexpr std::array kQpSettings{word("type", Vocabulary::kQpType),
                                 Arg{"mtu", K::kMtu},
                                 number("mr_len", k32),
                                 number("timeout", 31),
                                 number("retry_cnt", 7),
                                 number("rnr_retry", 7),
                                 number("min_rnr_timer", 31),
                                 number("max_rd_atomic", k8),
                                 number("max_dest_rd_atomic", k8)};

// What only the DUT's create_qp takes: its connection's path, rights and set-up.
constexpr std::array kDutQpSetup{psn("rq_psn"),
                                 psn("sq_psn"),
                                 Arg{"access", K::kAccess},
                                 Arg{"mr_access", K::kAccess},
                                 Arg{"share", K::kDutQp},
                                 number("pkey", k16),
                                 number("cq_depth", k32),
                                 number("qkey", k32),
                                 number("tqkey", k32),
                                 number("ipv6", 1),
                                 number("vlan", 4095),
                                 number("pcp", 7),
                                 number("tclass", k8),
                                 number("hop_limit", k8),
                                 word("state", Vocabulary::kQpState),
                                 number("ext", 1),
                                 number("trim", 1),
                                 number("nonfatal", 1),
                                 number("resync", 1),
                                 number("multipath", 1),
                                 number("pathprobe", 1),
                                 number("adaptive", 1),
                                 number("cc", 1),
                                 number("credit", 1),
                                 number("secure", 1),
                                 number("secure_keys", 1),
                                 number("secure_rekey", uint64_t{1} << 48),
                                 number("mpr", k8),
                                 Arg{"ev_set", K::kNumbers, k16},
                                 Arg{"ev_planes", K::kNumbers, 15},
                                 Arg{"mxcap", K::kBytes}};

template <size_t N, size_t M>
constexpr std::array<Arg, N + M> concat(const std::array<Arg, N>& a, const std::array<Arg, M>& b) {
  std::array<Arg, N + M> out{};
  for (size_t i = 0; i < N; ++i) out[i] = a[i];
  for (size_t i = 0; i < M; ++i) out[N + i] = b[i];
  return out;
}

constexpr auto kDutCreateQp = concat(kQpSettings, kDutQpSetup);
constexpr auto kTesterCreateQp = kQpSettings;

constexpr Arg kPostRecv[] = {number("count", k32), number("len", k32), number("offset"),
                             number("wr_id")};
constexpr Arg kDutPostSend[] = {word("opcode", Vocabulary::kSendOpcode),
                                number("len", k32),
                                number("offset"),
                                number("remote_addr"),
                                number("rkey", k32),
                                number("imm", k32),
                                number("wr_id"),
                                number("solicited", 1),
                                number("signaled", 1),
                                number("compare_add"),
                                number("swap"),
                                number("invalidate_rkey", k32),
                                number("dest_qpn", k24),
                                number("qkey", k32),
                                number("count", k32),
                                number("stride")};
constexpr Arg kTesterPostSend[] = {word("opcode", Vocabulary::kSendOpcode),
                                   number("len", k32),
                                   number("offset"),
                                   number("remote_offset"),
                                   number("rkey", k32),
                                   number("count", k32),
                                   number("stride"),
                                   number("wr_id"),
                                   number("imm", k32),
                                   number("solicited", 1),
                                   number("signaled", 1),
                                   number("compare_add"),
                                   number("swap"),
                                   number("invalidate_rkey", k32)};
constexpr Arg kDutExpectCompletion[] = {word("status", Vocabulary::kWcStatus),
                                        word("opcode", Vocabulary::kWcOpcode),
                                        number("len", k32),
                                        number("imm", k32),
                                        number("wr_id"),
                                        number("window"),
                                        number("src_qp", k24),
                                        number("count", k32)};
constexpr Arg kTesterExpectCompletion[] = {word("status", Vocabulary::kWcStatus),
                                           word("opcode", Vocabulary::kWcOpcode),
                                           number("len", k32),
                                           number("imm", k32),
                                           number("wr_id"),
                                           number("count", k32),
                                           number("window")};
constexpr Arg kArmCq[] = {number("solicited_only", 1)};
constexpr Arg kCqEvent[] = {number("window")};
constexpr Arg kExpectCounter[] = {required({"name", K::kText}), required(number("delta"))};
constexpr Arg kExpectState[] = {word("state", Vocabulary::kQpState), word("ext_mode", kExtModes)};
constexpr Arg kSetEvState[] = {required(number("ev", k16)),
                               required(word("state", kManagedEvStates))};
constexpr Arg kExpectEvState[] = {required(number("ev", k16)), required(word("state", kEvStates))};
constexpr Arg kExpectCwnd[] = {required(number("bytes"))};
constexpr Arg kSecureInstall[] = {required(number("epoch", k16))};
constexpr Arg kSetPort[] = {required(number("plane", 15)), required(number("up", 1))};
constexpr Arg kModifyQp[] = {word("state", Vocabulary::kQpState), number("pkey", k16),
                             Arg{"access", K::kAccess}};
constexpr Arg kWriteMem[] = {number("offset"), required({"data", K::kBytes})};
constexpr Arg kFillMem[] = {number("offset"), number("len")};
constexpr Arg kExpectMem[] = {
    number("offset"), {"data", K::kBytes}, number("len"), {"pattern", K::kAnyQp}, number("from")};
constexpr Arg kWait[] = {word("until", kWaitConditions), number("max_ms"), number("ms"),
                         number("us")};
constexpr Arg kConnect[] = {required({"peer", K::kDutQp})};
constexpr Arg kImpair[] = {word("dir", kImpairDirections),
                           {"loss", K::kPercent},
                           {"duplicate", K::kPercent},
                           {"reorder", K::kPercent},
                           {"delay", K::kPercent},
                           {"corrupt", K::kPercent},
                           {"ecn", K::kPercent},
                           number("delay_us"),
                           number("seed"),
                           number("plane", k8),
                           number("ev", k16)};
constexpr Arg kBottleneckOn[] = {required(number("rate_mbps", 1'600'000)),
                                 required(number("ecn_k")), number("delay_us", 100'000'000),
                                 number("plane", 15)};
constexpr Arg kWindows[] = {number("windows", 1000)};
constexpr Arg kBottleneckGoodput[] = {required(number("capacity_mbps"))};
constexpr Arg kProbe[] = {required(psn("psn"))};
constexpr Arg kEvent[] = {required(word("dir", kEventDirections)), required(psn("psn")),
                          number("tx", k32)};
constexpr Arg kDelayEvent[] = {required(word("dir", kEventDirections)), required(psn("psn")),
                               number("tx", k32), number("us")};
constexpr Arg kCorruptEvent[] = {required(word("dir", kEventDirections)), required(psn("psn")),
                                 number("tx", k32), number("byte")};

struct CommandRow {
  std::string_view actor;
  std::string_view name;
  bool definition = false;
  Target target = Target::kNone;
  std::span<const Arg> args;
};

constexpr CommandRow kCommands[] = {
    {"dut", "create_qp", true, Target::kNone, kDutCreateQp},
    {"dut", "post_recv", false, Target::kDutQp, kPostRecv},
    {"dut", "post_send", false, Target::kDutQp, kDutPostSend},
    {"dut", "expect_completion", false, Target::kDutQp, kDutExpectCompletion},
    {"dut", "expect_no_completion", false, Target::kDutQp, kDutExpectCompletion},
    {"dut", "write_mem", false, Target::kDutQp, kWriteMem},
    {"dut", "dereg_mr", false, Target::kDutQp, {}},
    {"dut", "fill_mem", false, Target::kDutQp, kFillMem},
    {"dut", "expect_mem", false, Target::kDutQp, kExpectMem},
    {"dut", "expect_state", false, Target::kDutQp, kExpectState},
    {"dut", "modify_qp", false, Target::kDutQp, kModifyQp},
    {"dut", "arm_cq", false, Target::kDutQp, kArmCq},
    {"dut", "expect_cq_event", false, Target::kDutQp, kCqEvent},
    {"dut", "expect_no_cq_event", false, Target::kDutQp, kCqEvent},
    {"dut", "expect_counter", false, Target::kNone, kExpectCounter},
    {"dut", "set_ev_state", false, Target::kDutQp, kSetEvState},
    {"dut", "expect_ev_state", false, Target::kDutQp, kExpectEvState},
    {"dut", "set_port", false, Target::kNone, kSetPort},
    {"dut", "expect_cwnd", false, Target::kDutQp, kExpectCwnd},
    {"dut", "secure_install", false, Target::kDutQp, kSecureInstall},
    {"dut", "secure_rotate", false, Target::kDutQp, {}},
    {"tester", "create_qp", true, Target::kNone, kTesterCreateQp},
    {"tester", "post_send", false, Target::kTesterQp, kTesterPostSend},
    {"tester", "post_recv", false, Target::kTesterQp, kPostRecv},
    {"tester", "expect_completion", false, Target::kTesterQp, kTesterExpectCompletion},
    {"tester", "expect_no_completion", false, Target::kTesterQp, kTesterExpectCompletion},
    {"tester", "wait", false, Target::kTesterQp, kWait},
    {"tester", "expect_mem", false, Target::kTesterQp, kExpectMem},
    {"tester", "expect_credit_share", false, Target::kNone, kWindows},
    {"connect", "connect", false, Target::kTesterQp, kConnect},
    {"impair", "impair", false, Target::kOff, kImpair},
    {"bottleneck", "on", false, Target::kNone, kBottleneckOn},
    {"bottleneck", "expect_fair_share", false, Target::kNone, kWindows},
    {"bottleneck", "expect_utilisation", false, Target::kNone, kWindows},
    {"bottleneck", "expect_goodput", false, Target::kDutQp, kBottleneckGoodput},
    {"probe", "probe", false, Target::kDutQp, kProbe},
    {"event", "drop", false, Target::kDutQp, kEvent},
    {"event", "duplicate", false, Target::kDutQp, kEvent},
    {"event", "reorder", false, Target::kDutQp, kEvent},
    {"event", "ecn", false, Target::kDutQp, kEvent},
    {"event", "delay", false, Target::kDutQp, kDelayEvent},
    {"event", "corrupt", false, Target::kDutQp, kCorruptEvent},
};

std::span<const std::string_view> vocabulary(Vocabulary v) {
  switch (v) {
    case Vocabulary::kNone:
      return {};
    case Vocabulary::kQpType:
      return transport::qp_type_names();
    case Vocabulary::kQpState:
      return transport::qp_state_names();
    case Vocabulary::kSendOpcode:
      return transport::send_opcode_names();
    case Vocabulary::kWcStatus:
      return transport::wc_status_names();
    case Vocabulary::kWcOpcode:
      return transport::wc_opcode_names();
  }
  return {};
}

// The public specs, built once from the constant tables above.
struct Schema {
  std::vector<std::vector<ArgSpec>> args;
  std::vector<CommandSpec> commands;

  Schema() {
    args.reserve(std::size(kCommands));
    for (const CommandRow& c : kCommands) {
      auto& list = args.emplace_back();
      for (const Arg& a : c.args) {
        list.push_back({a.name, a.kind, a.max,
                        a.vocabulary == Vocabulary::kNone ? a.words : vocabulary(a.vocabulary),
                        a.required, a.wraps});
      }
      commands.push_back({c.actor, c.name, c.definition, c.target, list});
    }
  }
};

const Schema& schema() {
  static const Schema s;
  return s;
}

bool is_word(const Expr& e) { return e.kind == Expr::Kind::kName || e.kind == Expr::Kind::kSymbol; }

bool is_access(std::string_view w) {
  if (w == "ALL" || w == "NONE") return true;
  while (!w.empty()) {
    const size_t underscore = std::min(w.find('_'), w.size());
    const std::string_view part = w.substr(0, underscore);
    if (part != "READ" && part != "WRITE" && part != "ATOMIC") return false;
    w.remove_prefix(std::min(underscore + 1, w.size()));
  }
  return true;
}

// "dut post_recv"; "connect", "impair", "probe" are their own command names.
std::string in_command(const Command& c) {
  return c.actor == c.name ? c.actor : c.actor + " " + c.name;
}

}  // namespace

const ArgSpec* CommandSpec::arg(std::string_view n) const {
  auto it = std::ranges::find(args, n, &ArgSpec::name);
  return it == args.end() ? nullptr : &*it;
}

const CommandSpec* find_command(std::string_view actor, std::string_view name) {
  for (const auto& c : schema().commands) {
    if (c.actor == actor && c.name == name) return &c;
  }
  return nullptr;
}

std::vector<std::string_view> command_names(std::string_view actor) {
  std::vector<std::string_view> out;
  for (const auto& c : schema().commands) {
    if (c.actor == actor) out.push_back(c.name);
  }
  return out;
}

void CommandChecker::check(const Command& c, std::vector<Diagnostic>& out) {
  if (c.actor == "repeat" || c.actor == "end") return;  // the parser checked their shape
  const CommandSpec* spec = find_command(c.actor, c.name);
  if (spec == nullptr) {
    const auto names = command_names(c.actor);
    const std::string hint = did_you_mean(c.name, names);
    out.push_back({file_, c.pos,
                   "unknown command '" + in_command(c) + "'" +
                       (hint.empty() ? " (known: " + joined(names) + ")" : hint)});
    return;
  }
  if (spec->definition != !c.assign.empty()) {
    out.push_back(
        {file_, c.pos,
         spec->definition
             ? in_command(c) + " defines a QP: " + c.actor + " qp NAME = " + c.name + "(...)"
             : in_command(c) + " is not a definition (no 'qp NAME =' before it)"});
  }
  check_target(c, *spec, out);
  std::set<std::string_view> seen;
  for (const auto& a : c.args) {
    const ArgSpec* arg = spec->arg(a.name);
    if (arg == nullptr) {
      std::vector<std::string_view> names;
      for (const auto& s : spec->args) names.push_back(s.name);
      const std::string hint = did_you_mean(a.name, names);
      out.push_back({file_, a.pos,
                     in_command(c) + ": unknown argument '" + a.name + "'" +
                         (hint.empty() ? " (takes " + joined(names) + ")" : hint)});
      continue;
    }
    if (!seen.insert(arg->name).second) {
      out.push_back({file_, a.pos, in_command(c) + ": " + a.name + "= given twice"});
      continue;
    }
    check_arg(c, *arg, a, out);
  }
  for (const auto& s : spec->args) {
    if (s.required && !seen.contains(s.name))
      out.push_back({file_, c.pos, in_command(c) + " needs " + std::string(s.name) + "="});
  }
  if (spec->definition && !c.assign.empty()) {
    auto& names = c.actor == "tester" ? tester_qps_ : dut_qps_;
    if (dut_qps_.contains(c.assign) || tester_qps_.contains(c.assign))
      out.push_back({file_, c.pos, c.actor + " qp " + c.assign + ": the name is taken"});
    names.insert(c.assign);
  }
}

void CommandChecker::check_target(const Command& c, const CommandSpec& spec,
                                  std::vector<Diagnostic>& out) {
  switch (spec.target) {
    case Target::kNone:
      if (!c.target.empty())
        out.push_back({file_, c.pos, in_command(c) + ": unexpected '" + c.target + "'"});
      return;
    case Target::kOff:
      if (!c.target.empty() && c.target != "off")
        out.push_back({file_, c.pos,
                       in_command(c) + ": unexpected '" + c.target +
                           "' (impair off, or impair dir=... loss=...)"});
      return;
    case Target::kDutQp:
      if (!c.target.empty() && !dut_qps_.contains(c.target))
        out.push_back({file_, c.pos,
                       in_command(c) + ": no DUT QP named '" + c.target +
                           "' before this line (dut qp " + c.target + " = create_qp(...))"});
      return;
    case Target::kTesterQp:
      if (c.target.empty() || !tester_qps_.contains(c.target))
        out.push_back({file_, c.pos,
                       in_command(c) + ": no tester QP named '" + c.target +
                           "' before this line (tester qp " +
                           (c.target.empty() ? std::string("T") : c.target) +
                           " = create_qp(...))"});
      return;
  }
}

void CommandChecker::check_arg(const Command& c, const ArgSpec& spec, const FieldArg& a,
                               std::vector<Diagnostic>& out) const {
  const Expr& v = a.value;
  const std::string what = in_command(c) + " " + a.name;
  auto problem = [&](const std::string& message) {
    out.push_back({file_, v.pos, what + ": " + message});
  };
  if (spec.kind == ArgKind::kNumbers) {
    if (v.kind != Expr::Kind::kList) return problem("expected a list such as [0xc001, 0xc002]");
    if (v.items.empty()) return problem("the list is empty");
    for (const Expr& item : v.items) {
      if (item.kind == Expr::Kind::kNumber && item.number > spec.max)
        out.push_back({file_, item.pos,
                       what + ": " + std::to_string(item.number) + " does not fit (at most " +
                           std::to_string(spec.max) + ")"});
      else if (item.kind != Expr::Kind::kNumber && item.kind != Expr::Kind::kSymbol &&
               item.kind != Expr::Kind::kBinary)
        out.push_back({file_, item.pos, what + ": expected a number"});
    }
    return;
  }
  // Only the list arguments (and SACKETH's `sacked`) take a list.
  if (v.kind == Expr::Kind::kList) return problem("a list is not a value here");
  switch (spec.kind) {
    case ArgKind::kNumber:
    case ArgKind::kMtu:
      if (v.kind == Expr::Kind::kBytes || v.kind == Expr::Kind::kBytesOfLength ||
          v.kind == Expr::Kind::kPercent || v.kind == Expr::Kind::kWildcard)
        return problem("expected a number");
      if (v.kind != Expr::Kind::kNumber) return;  // an expression: judged when it runs
      if (spec.kind == ArgKind::kMtu) {
        if (v.number != 256 && v.number != 512 && v.number != 1024 && v.number != 2048 &&
            v.number != 4096)
          problem(std::to_string(v.number) + " is not a path MTU (256, 512, 1024, 2048, 4096)");
      } else if (v.number > spec.max) {
        problem(std::to_string(v.number) + " does not fit (at most " + std::to_string(spec.max) +
                ")");
      }
      return;
    case ArgKind::kWord: {
      if (!is_word(v)) return problem("expected one of " + joined(spec.words));
      if (std::ranges::find(spec.words, v.text) != spec.words.end()) return;
      const std::string hint = did_you_mean(v.text, spec.words);
      return problem("unknown value '" + v.text + "'" +
                     (hint.empty() ? " (one of " + joined(spec.words) + ")" : hint));
    }
    case ArgKind::kAccess:
      if (!is_word(v) || !is_access(v.text))
        problem("expected ALL, NONE, or READ, WRITE, ATOMIC joined by '_' (READ_WRITE)");
      return;
    case ArgKind::kDutQp:
    case ArgKind::kAnyQp: {
      if (!is_word(v)) return problem("expected the name of a QP");
      const bool known = dut_qps_.contains(v.text) ||
                         (spec.kind == ArgKind::kAnyQp && tester_qps_.contains(v.text));
      if (!known)
        problem("no " + std::string(spec.kind == ArgKind::kDutQp ? "DUT " : "") + "QP named '" +
                v.text + "' before this line");
      return;
    }
    case ArgKind::kText:
      if (!is_word(v) && v.kind != Expr::Kind::kBytes) problem("expected a name");
      return;
    case ArgKind::kBytes:
      // b"..." * N and concatenations are judged when they run.
      if (v.kind == Expr::Kind::kNumber || v.kind == Expr::Kind::kPercent ||
          v.kind == Expr::Kind::kWildcard)
        problem("expected bytes (b\"...\" or bytes(N))");
      return;
    case ArgKind::kPercent:
      if (v.kind != Expr::Kind::kPercent) problem("expected a percentage such as 2% or 0.5%");
      return;
    case ArgKind::kNumbers:  // judged above
      return;
  }
}

}  // namespace mr::script
