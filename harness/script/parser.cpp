#include "harness/script/parser.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <fstream>
#include <optional>
#include <sstream>
#include <utility>

#include "harness/script/command_schema.h"
#include "harness/script/layer_schema.h"
#include "harness/script/lexer.h"
#include "harness/script/line_parser.h"
#include "harness/script/metadata_parser.h"

namespace mr::script {
namespace {

// A time as the script would write it: 0.5, 1, 0.000125.
std::string seconds_text(double s) {
  std::ostringstream out;
  out << s;
  return out.str();
}

// The actors of a command line.
constexpr std::array<std::string_view, 7> kActors{"dut",     "tester", "probe",     "event",
                                                  "connect", "impair", "bottleneck"};

bool is_word(const Token& t, std::string_view word) {
  return t.kind == Token::Kind::kIdent && t.text == word;
}

// The statements of a test case, line by line, and what a line needs from the lines before
// it: the open loops, the latest absolute time, the QPs defined so far.
class ScriptParser {
 public:
  ScriptParser(const std::string& path, ParseResult& r)
      : path_(path), r_(r), header_(path, r.script, r.diagnostics), commands_(path) {}

  void line(std::string_view raw, int line_no);
  // After the last line: the loops left open, the metadata missing.
  void finish();

 private:
  void loop_bracket(LineParser& p, const Token& first);
  void binding(LineParser& p, const Token& first);
  void assertion(LineParser& p, const Token& first);
  void end_of_line(LineParser& p, Command c);
  void command(LineParser& p, const Token& first);
  bool command_name(LineParser& p, Command& c);
  std::optional<FieldArg> connect_peer(LineParser& p, const Command& c);
  void packet_line(LineParser& p, const Token& first);
  bool time_goes_forward(LineParser& p, const TimeSpec& time, const Token& first);
  void packet_options(LineParser& p, PacketLine& pl);
  void check_none(LineParser& p, const PacketLine& pl, const Token& first);

  const std::string& path_;
  ParseResult& r_;
  MetadataParser header_;
  bool in_header_ = true;
  std::vector<Position> loops_;  // the `repeat` lines still open
  // The latest absolute time so far: a later line's absolute time may not go back before it.
  std::optional<std::pair<double, Position>> last_absolute_;
  CommandChecker commands_;
};

void ScriptParser::line(std::string_view raw, int line_no) {
  const auto text =
      std::ranges::find_if_not(raw, [](unsigned char c) { return std::isspace(c) != 0; });
  if (text == raw.end()) return;
  if (*text == '#') {
    if (in_header_) header_.comment(raw, line_no);
    return;
  }
  in_header_ = false;
  LexResult lexed = lex_line(raw, line_no, path_);
  if (lexed.error) {
    r_.diagnostics.push_back(*lexed.error);
    return;
  }
  LineParser p(std::move(lexed.tokens), path_, r_.diagnostics);
  const Token first = p.peek();
  if (is_word(first, "repeat") || is_word(first, "end")) {
    loop_bracket(p, first);
  } else if (is_word(first, "let")) {
    binding(p, first);
  } else if (is_word(first, "check") || is_word(first, "assume")) {
    assertion(p, first);
  } else if (std::ranges::any_of(kActors, [&](std::string_view a) { return is_word(first, a); })) {
    command(p, first);
  } else {
    packet_line(p, first);
  }
}

void ScriptParser::finish() {
  for (const Position& open : loops_)
    r_.diagnostics.push_back({path_, open, "'repeat' without its 'end'"});
  header_.finish();
}

// `repeat max=N until EXPR == EXPR` and `end`.
void ScriptParser::loop_bracket(LineParser& p, const Token& first) {
  p.next();
  Command c;
  c.pos = first.pos;
  c.actor = c.name = first.text;
  if (c.actor == "repeat") {
    c.args = p.loop_header();
    loops_.push_back(first.pos);
  } else if (loops_.empty()) {
    p.error(first, "'end' without a 'repeat' before it");
  } else {
    loops_.pop_back();
  }
  if (!p.failed() && !p.at_end())
    p.error(p.peek(), "expected end of line, got " + describe(p.peek()));
  if (!p.failed()) r_.script.statements.emplace_back(std::move(c));
}

// Symbols the script may not bind: the engine's own (P, Q, T) and the names it gives QPs and
// packets (A.qpn, last.psn) all contain a dot or are one capital letter.
bool reserved_symbol(const std::string& name) {
  return name.find('.') != std::string::npos ||
         (name.size() == 1 && std::isupper(static_cast<unsigned char>(name[0])) != 0);
}

// `let NAME = EXPR`: NAME holds EXPR's value (evaluated when the line runs) from then on.
void ScriptParser::binding(LineParser& p, const Token& first) {
  p.next();
  Command c;
  c.pos = first.pos;
  c.actor = c.name = "let";
  const Token& name = p.peek();
  if (name.kind != Token::Kind::kIdent || !p.at_punct("=", 1)) {
    p.error(name, "expected 'let NAME = EXPR', got " + describe(name));
    return;
  }
  if (reserved_symbol(name.text) || is_enum_name(name.text)) {
    p.error(name, "let: '" + name.text +
                      "' reads as the engine's name or a constant; a script's own names are "
                      "lower or mixed case, without '.' (e1, first_ev)");
    return;
  }
  c.target = p.next().text;
  p.next();
  c.args.push_back({"value", p.peek().pos, p.expression()});
  end_of_line(p, std::move(c));
}

// `check EXPR == EXPR`, `!=`, `<`, `<=`, `>`, `>=` (unsigned), `check distinct [EXPR, ...]` (all
// differ), `check at_least N distinct [EXPR, ...]` (N of them do): an assertion on values the
// exchange has shown (last.ev, a `let` name), a failure when false. `assume` takes the same
// forms and ends the test inconclusive when false: what the test needs of the DUT or the bed
// does not hold (a limit the DUT states out of the test's range, a counter that wrapped).
void ScriptParser::assertion(LineParser& p, const Token& first) {
  p.next();
  Command c;
  c.pos = first.pos;
  c.actor = first.text;
  if (p.peek().kind == Token::Kind::kIdent && p.peek().text == "at_least") {
    const Position at = p.next().pos;
    c.args.push_back({"at_least", at, p.expression()});
    if (p.failed()) return;
    if (p.peek().kind != Token::Kind::kIdent || p.peek().text != "distinct" ||
        !p.at_punct("[", 1)) {
      p.error(p.peek(), "expected 'distinct [...]' after '" + c.actor + " at_least N', got " +
                            describe(p.peek()));
      return;
    }
  }
  if (p.peek().kind == Token::Kind::kIdent && p.peek().text == "distinct" && p.at_punct("[", 1)) {
    c.name = "distinct";
    p.next();
    const Position at = p.peek().pos;
    Expr list = p.expression();
    if (!p.failed() && list.items.size() < 2) {
      p.error(p.peek(), c.actor + " distinct: the list needs at least two values");
      return;
    }
    c.args.push_back({"values", at, std::move(list)});
    return end_of_line(p, std::move(c));
  }
  const Position lhs_at = p.peek().pos;
  Expr lhs = p.expression();
  if (p.failed()) return;
  const Token& op = p.peek();
  // The comparison, by its one or two punctuation tokens.
  struct Comparison {
    const char* first;
    const char* second;  // "" for a one-token operator
    const char* name;
  };
  static constexpr Comparison kComparisons[] = {{"=", "=", "equal"},   {"!", "=", "differ"},
                                                {"<", "=", "at_most"}, {">", "=", "at_least"},
                                                {"<", "", "below"},    {">", "", "above"}};
  const Comparison* found = nullptr;
  for (const Comparison& k : kComparisons) {
    if (!p.at_punct(k.first)) continue;
    if (*k.second != '\0' && !p.at_punct(k.second, 1)) continue;
    found = &k;
    break;
  }
  if (found == nullptr) {
    p.error(op, "expected ==, !=, <, <=, > or >= in '" + c.actor + " A == B', got " + describe(op));
    return;
  }
  p.next();
  if (*found->second != '\0') p.next();
  c.name = found->name;
  c.args.push_back({"lhs", lhs_at, std::move(lhs)});
  c.args.push_back({"rhs", p.peek().pos, p.expression()});
  end_of_line(p, std::move(c));
}

void ScriptParser::end_of_line(LineParser& p, Command c) {
  if (!p.failed() && !p.at_end())
    p.error(p.peek(), "expected end of line, got " + describe(p.peek()));
  if (!p.failed()) r_.script.statements.emplace_back(std::move(c));
}

// `dut post_recv A count=4`, `dut qp A = create_qp(...)`, `connect T A`, `probe ...`.
void ScriptParser::command(LineParser& p, const Token& first) {
  p.next();
  Command c;
  c.pos = first.pos;
  c.actor = first.text;
  if (!command_name(p, c)) return;
  // An optional target object name before the arguments: `dut post_recv A count=4`.
  if (p.peek().kind == Token::Kind::kIdent && !p.at_punct("=", 1)) c.target = p.next().text;
  std::optional<FieldArg> peer;
  if (c.actor == "connect") {
    peer = connect_peer(p, c);
    if (!peer) return;
  }
  c.args = p.arguments();
  if (peer) c.args.insert(c.args.begin(), std::move(*peer));
  if (p.failed()) return;
  commands_.check(c, r_.diagnostics);
  r_.script.statements.emplace_back(std::move(c));
}

// The command's name (probe, connect and impair are their own), and for a definition the
// name it defines; false after an error.
bool ScriptParser::command_name(LineParser& p, Command& c) {
  if (c.actor == "probe" || c.actor == "connect" || c.actor == "impair") {
    c.name = c.actor;
    return true;
  }
  const Token& name = p.peek();
  if (name.kind != Token::Kind::kIdent) {
    p.error(name, "expected a command name after '" + c.actor + "', got " + describe(name));
    return false;
  }
  c.name = p.next().text;
  // `dut qp A = create_qp(...)`: a definition. (`dut expect_counter name=x ...` is not: a
  // definition's right side is a call.)
  if (p.peek().kind == Token::Kind::kIdent && p.at_punct("=", 1) &&
      p.peek(2).kind == Token::Kind::kIdent && p.at_punct("(", 3)) {
    c.assign = p.next().text;
    p.next();
    const Token& fn = p.peek();
    if (fn.kind != Token::Kind::kIdent) {
      p.error(fn, "expected a constructor such as create_qp(...) after '=', got " + describe(fn));
      return false;
    }
    c.name = p.next().text;
  }
  return true;
}

// `connect T A`: the tester QP (the target), then the DUT QP it is connected to, as the
// argument `peer`; nothing after an error.
std::optional<FieldArg> ScriptParser::connect_peer(LineParser& p, const Command& c) {
  if (c.target.empty() || p.peek().kind != Token::Kind::kIdent || p.at_punct("=", 1)) {
    p.error(p.peek(), "expected 'connect TESTER_QP DUT_QP', got " + describe(p.peek()));
    return std::nullopt;
  }
  const Token& dut_qp = p.next();
  FieldArg peer{"peer", dut_qp.pos, {}};
  peer.value.kind = Expr::Kind::kName;
  peer.value.pos = dut_qp.pos;
  peer.value.text = dut_qp.text;
  return peer;
}

// `TIME < PACKET` (inject) or `TIME > [within N] [not_before S] PACKET|none` (expect).
void ScriptParser::packet_line(LineParser& p, const Token& first) {
  PacketLine pl;
  pl.pos = first.pos;
  pl.time = p.time_spec();
  if (p.failed() || !time_goes_forward(p, pl.time, first)) return;
  if (p.at_punct("<")) {
    pl.inject = true;
  } else if (p.at_punct(">")) {
    pl.inject = false;
  } else {
    p.error(p.peek(),
            "expected '<' (inject) or '>' (expect) after the time, got " + describe(p.peek()));
    return;
  }
  p.next();
  if (!pl.inject) packet_options(p, pl);
  if (p.failed()) return;
  pl.packet = p.packet();
  check_none(p, pl, first);
  if (p.failed()) return;
  check_packet(pl.packet, path_, r_.diagnostics);
  r_.script.statements.emplace_back(std::move(pl));
}

// Time runs one way: an absolute time before an earlier line's would put the packet in the
// past, which no run can do and which hides a typo (`0.5` for `+0.5`).
bool ScriptParser::time_goes_forward(LineParser& p, const TimeSpec& time, const Token& first) {
  if (time.relative || time.any) return true;
  if (last_absolute_ && time.start_s < last_absolute_->first) {
    const std::string at = seconds_text(time.start_s);
    std::string message = "absolute time " + at + " s is before line ";
    message += std::to_string(last_absolute_->second.line) + "'s ";
    message += seconds_text(last_absolute_->first);
    message += " s: time never goes back (a relative time is '+" + at + "')";
    p.error(first, message);
    return false;
  }
  last_absolute_ = {time.start_s, first.pos};
  return true;
}

// An expected packet's `within N` and `not_before S`, in that order.
void ScriptParser::packet_options(LineParser& p, PacketLine& pl) {
  if (is_word(p.peek(), "within")) {
    p.next();
    pl.within = std::make_shared<const Expr>(p.expression());
  }
  if (!p.failed() && is_word(p.peek(), "not_before")) {
    p.next();
    pl.not_before_s = p.seconds("the least spacing after 'not_before'");
  }
}

// `none` only as silence expected, and without a window or spacing that would mean nothing.
void ScriptParser::check_none(LineParser& p, const PacketLine& pl, const Token& first) {
  if (pl.within && pl.packet.none)
    p.error(first, "'> within N none' means nothing: a window of silence is '> none'");
  if (pl.not_before_s && pl.packet.none)
    p.error(first, "'> not_before S none' means nothing: a window of silence is '> none'");
  if (pl.inject && pl.packet.none)
    p.error(first, "'< none' means nothing: only '> none' can expect silence");
}

}  // namespace

ParseResult parse_script(std::string_view text, const std::string& path) {
  ParseResult r;
  r.script.path = path;
  r.script.text = std::string(text);
  ScriptParser parser(path, r);
  int line_no = 0;
  for (size_t start = 0; start <= text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view raw = text.substr(start, end - start);
    if (raw.ends_with('\r')) raw.remove_suffix(1);
    start = end + 1;
    parser.line(raw, ++line_no);
  }
  parser.finish();
  return r;
}

ParseResult parse_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    ParseResult r;
    r.script.path = path;
    r.diagnostics.push_back({path, {0, 0}, "cannot read the file"});
    return r;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_script(ss.str(), path);
}

}  // namespace mr::script
