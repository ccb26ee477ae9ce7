// File: command_schema.h
//
// Every command of the test language with the arguments it takes, in one table the parser
// checks (docs/test-language.md): a typo (`lne=`), an unknown name (`status=SUCESS`), a
// literal that does not fit (`rq_psn=0x1000000`) or a QP that no earlier line created is a
// diagnostic at file:line:column, with a did-you-mean, before any DUT is touched. The
// engine reads its arguments through the same table, so a command cannot take an argument
// the parser refuses, nor the reverse.
#pragma once

#include <cstdint>
#include <limits>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "harness/script/ast.h"

namespace mr::script {

enum class ArgKind : uint8_t {
  kNumber,   // an expression; a literal must not exceed `max`
  kMtu,      // a path MTU: 256, 512, 1024, 2048 or 4096
  kWord,     // one of `words` (RC, SUCCESS, tester)
  kAccess,   // ALL, NONE, or READ, WRITE, ATOMIC joined by '_' (READ_WRITE)
  kDutQp,    // a DUT QP created on an earlier line
  kAnyQp,    // a DUT or tester QP created on an earlier line
  kText,     // a free name (a counter name: the DUT defines them)
  kBytes,    // b"..." or bytes(N)
  kPercent,  // 2%, 0.5%
  kNumbers,  // a list of 1 to 64 expressions, [0xc001, 0xc002]; each literal at most `max`
};

struct ArgSpec {
  std::string_view name;
  ArgKind kind = ArgKind::kNumber;
  uint64_t max = std::numeric_limits<uint64_t>::max();  // kNumber: the largest literal
  std::span<const std::string_view> words = {};         // kWord
  bool required = false;
  // A PSN: a computed value wraps modulo 2^24 as on the wire (psn=P+1 at P = 2^24 - 1);
  // a literal must still fit.
  bool wraps = false;
};

// The object a command acts on, named before its arguments (`dut post_recv A`).
enum class Target : uint8_t {
  kNone,      // takes none
  kDutQp,     // optional: the current DUT QP when absent
  kTesterQp,  // required
  kOff,       // `impair off`
};

struct CommandSpec {
  std::string_view actor;   // dut, tester, connect, impair, probe, event
  std::string_view name;    // create_qp, post_send, drop, ...
  bool definition = false;  // `dut qp A = create_qp(...)`: required
  Target target = Target::kNone;
  std::span<const ArgSpec> args;

  const ArgSpec* arg(std::string_view n) const;
};

// The command `actor name`, or nullptr. `repeat` and `end` are the parser's own.
const CommandSpec* find_command(std::string_view actor, std::string_view name);
// The names of the commands of one actor, for "did you mean" and the error's list.
std::vector<std::string_view> command_names(std::string_view actor);

// Checks the commands of one script in order: each against its spec, and the QP names it
// uses against the QPs created on the lines before it.
class CommandChecker {
 public:
  explicit CommandChecker(std::string file) : file_(std::move(file)) {}
  // Appends one diagnostic per problem (all of them, not only the first).
  void check(const Command& c, std::vector<Diagnostic>& out);

 private:
  void check_arg(const Command& c, const ArgSpec& spec, const FieldArg& a,
                 std::vector<Diagnostic>& out) const;
  void check_target(const Command& c, const CommandSpec& spec, std::vector<Diagnostic>& out);

  std::string file_;
  std::set<std::string, std::less<>> dut_qps_;
  std::set<std::string, std::less<>> tester_qps_;
};

}  // namespace mr::script
