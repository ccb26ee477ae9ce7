// File: ast.h
//
// A parsed test case (.mrt): metadata, then statements in order. The parser builds it and
// knows nothing of devices or execution; the engine evaluates it. Every node keeps its
// source position so that a failure can name file:line:column.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace mr::script {

struct Position {
  int line = 0;
  int column = 0;
};

// An expression: numbers, symbols (P, A.qpn), + - *, byte strings, bytes(N), `*`,
// percentages (`loss=2%`, `reorder=0.5%`: impairment rates) and lists (`sacked=[P+2, P+5]`:
// a SACK bitmap written as the PSNs it reports).
struct Expr {
  enum class Kind : uint8_t {
    kNumber,
    kSymbol,
    kBinary,
    kBytes,
    kBytesOfLength,
    kWildcard,
    kName,
    kPercent,
    kList
  };
  Kind kind = Kind::kNumber;
  Position pos;
  uint64_t number = 0;        // kNumber; kPercent: parts per million (2% = 20000)
  std::string text;           // kSymbol: "P" or "A.qpn"; kName: an enum name such as RC_SEND_ONLY
  std::string bytes;          // kBytes: the decoded byte string
  char op = 0;                // kBinary: '+', '-', '*'
  std::unique_ptr<Expr> lhs;  // kBinary; kBytesOfLength: the length
  std::unique_ptr<Expr> rhs;  // kBinary
  std::vector<Expr> items;    // kList, in the order written
};

struct FieldArg {
  std::string name;  // "psn", "load"
  Position pos;
  Expr value;
};

// One Scapy-style layer: BTH(opcode=RC_SEND_ONLY, psn=P).
struct Layer {
  std::string name;
  Position pos;
  std::vector<FieldArg> args;
};

struct PacketExpr {
  std::vector<Layer> layers;  // in stacking order, outermost first
  bool none = false;          // `> none`: no packet may arrive in the window
};

// When a packet line happens: absolute seconds from the test start, or relative to the
// previous line (+0.1), optionally with an explicit window (+0~0.1); `*` = any time.
struct TimeSpec {
  bool relative = true;
  bool any = false;
  double start_s = 0;
  std::optional<double> end_s;  // a window's end, same base as start
};

struct PacketLine {
  Position pos;
  TimeSpec time;
  bool inject = true;  // `<` tester -> DUT; `>` DUT -> tester (expected)
  PacketExpr packet;
  // `> within N ...`: the first of the DUT's next N packets that matches; the ones before
  // it are passed over (they still must be valid packets of the connection).
  std::shared_ptr<const Expr> within;
  // `> not_before S ...`: the packet must come at least S seconds after the DUT packet the
  // previous line matched, exactly (both are the tester's receive stamps: no tolerance).
  // With `within N` it bounds the mean rate of the N packets.
  std::optional<double> not_before_s;
};

// `dut NAME args...`, `dut qp A = create_qp(...)`, `tester NAME args...`, `probe ...`,
// and the loop brackets `repeat max=N until EXPR == EXPR` (args max, until, equals) / `end`.
struct Command {
  Position pos;
  std::string actor;   // "dut", "tester", "probe", "event"
  std::string name;    // "create_qp", "post_recv", "expect_completion", "drop", ...
  std::string target;  // the QP (or other object) name the command acts on, if any
  std::string assign;  // `dut qp A = ...`: the name being defined
  std::vector<FieldArg> args;
};

using Statement = std::variant<PacketLine, Command>;

struct Script {
  std::string path;
  std::map<std::string, std::string> metadata;   // tp, clause, pics, group, purpose, ...
  std::map<std::string, Position> metadata_pos;  // where each key's value first begins
  std::vector<Statement> statements;
  std::string text;  // the source, for reports
};

// A parse problem at file:line:column: "expected ')' after field list, got ','".
struct Diagnostic {
  std::string file;
  Position pos;
  std::string message;
  std::string to_string() const;
};

}  // namespace mr::script
