#include "harness/script/parser.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <fstream>
#include <optional>
#include <sstream>
#include <utility>

#include "harness/script/command_schema.h"
#include "harness/script/layer_schema.h"
#include "harness/script/lexer.h"

namespace mr::script {
namespace {

// A time as the script would write it: 0.5, 1, 0.000125.
std::string seconds_text(double s) {
  std::ostringstream out;
  out << s;
  return out.str();
}

// The keys a test case's header carries, as the unknown-key error lists them. `timeout` and
// `requires` were accepted once and read by nothing: a key that silently does nothing is
// worse than an error, so they are unknown now (`pics` gates a test).
constexpr std::array<std::string_view, 7> kTestCaseKeys{
    "tp", "clause", "pics", "group", "purpose", "kills", "positive-path"};
// Also accepted, not listed: `clauses` (clause's plural) and the keys of the harness's own
// self-test scripts.
constexpr std::array<std::string_view, 4> kOtherKeys{"clauses", "mutant", "expect-verdict",
                                                     "expect-failure"};

std::string listed_keys() {
  std::string out;
  for (std::string_view k : kTestCaseKeys) {
    if (!out.empty()) out += ", ";
    out += k;
  }
  return out;
}

// Recursive descent over the tokens of one line.
class LineParser {
 public:
  LineParser(std::vector<Token> tokens, const std::string& file, std::vector<Diagnostic>& diags)
      : t_(std::move(tokens)), file_(file), diags_(diags) {}

  const Token& peek(size_t k = 0) const { return t_[std::min(i_ + k, t_.size() - 1)]; }
  bool at_punct(std::string_view p, size_t k = 0) const {
    return peek(k).kind == Token::Kind::kPunct && peek(k).text == p;
  }
  bool at_end() const { return peek().kind == Token::Kind::kEnd; }
  const Token& next() { return t_[std::min(i_++, t_.size() - 1)]; }
  bool failed() const { return failed_; }

  void error(const Token& at, std::string message) {
    if (failed_) return;  // one diagnostic per line: later ones are consequences
    failed_ = true;
    diags_.push_back({file_, at.pos, std::move(message)});
  }
  bool expect_punct(std::string_view p, std::string_view context) {
    if (at_punct(p)) {
      next();
      return true;
    }
    error(peek(), "expected '" + std::string(p) + "' " + std::string(context) + ", got " +
                      describe(peek()));
    return false;
  }

  // expr := term (('+' | '-') term)*
  Expr expression() {
    Expr lhs = term();
    while (!failed_ && (at_punct("+") || at_punct("-"))) {
      const Token op = next();
      Expr rhs = term();
      if (!more_operators(op)) break;
      lhs = binary(op.text[0], std::move(lhs), std::move(rhs), op.pos);
    }
    return lhs;
  }

  // term := atom ('*' atom)*
  Expr term() {
    Expr lhs = atom();
    while (!failed_ && at_punct("*") && !ends_value(1)) {
      const Token op = next();
      Expr rhs = atom();
      if (!more_operators(op)) break;
      lhs = binary('*', std::move(lhs), std::move(rhs), op.pos);
    }
    return lhs;
  }

  // atom := number | symbol | name | b"..." | bytes(expr) | '*' | '(' expr ')'
  Expr atom() {
    const Token& t = peek();
    Expr e;
    e.pos = t.pos;
    if (t.kind == Token::Kind::kNumber && at_punct("%", 1)) {
      next();
      next();
      if (!parse_percent(t.text, e.number))
        error(t,
              "percentage " + t.text + "% is not a number from 0 to 100 with at most 4 decimals");
      e.kind = Expr::Kind::kPercent;
      return e;
    }
    if (t.kind == Token::Kind::kNumber) {
      next();
      if (!parse_number(t.text, e.number))
        error(t, "number " + t.text + " is not an integer (or is too large)");
      e.kind = Expr::Kind::kNumber;
      return e;
    }
    if (t.kind == Token::Kind::kBytes || t.kind == Token::Kind::kString) {
      next();
      e.kind = Expr::Kind::kBytes;
      e.bytes = t.value;
      return e;
    }
    if (at_punct("*")) {
      next();
      e.kind = Expr::Kind::kWildcard;
      return e;
    }
    if (at_punct("(")) {
      next();
      if (!deeper(t)) return e;
      Expr inner = expression();
      --depth_;
      expect_punct(")", "to close the parenthesis");
      return inner;
    }
    if (t.kind == Token::Kind::kIdent) {
      next();
      if (t.text == "bytes" && at_punct("(")) {
        next();
        if (!deeper(t)) return e;
        e.kind = Expr::Kind::kBytesOfLength;
        e.lhs = std::make_unique<Expr>(expression());
        --depth_;
        expect_punct(")", "after the length of bytes(...)");
        return e;
      }
      // Upper-case names with an underscore or of known constants are enum names
      // (RC_SEND_ONLY, ACK, NAK_PSN_SEQUENCE_ERROR); other identifiers are symbols (P, A.qpn).
      e.kind = is_enum_name(t.text) ? Expr::Kind::kName : Expr::Kind::kSymbol;
      e.text = t.text;
      return e;
    }
    error(t, "expected a value (number, symbol, b\"...\", bytes(N) or *), got " + describe(t));
    return e;
  }

  // layer := Name '(' [field '=' expr (',' field '=' expr)*] ')'
  Layer layer() {
    Layer l;
    const Token& name = peek();
    l.pos = name.pos;
    if (name.kind != Token::Kind::kIdent) {
      error(name, "expected a layer name such as BTH, AETH or Raw, got " + describe(name));
      return l;
    }
    l.name = next().text;
    if (!expect_punct("(", "after layer " + l.name)) return l;
    while (!failed_ && !at_punct(")")) {
      const Token& field = peek();
      if (field.kind != Token::Kind::kIdent) {
        error(field, "expected a field name in " + l.name + "(...), got " + describe(field));
        return l;
      }
      next();
      if (!expect_punct("=", "after field " + field.text)) return l;
      FieldArg a{field.text, field.pos, expression()};
      l.args.push_back(std::move(a));
      if (at_punct(",")) {
        next();
      } else if (!at_punct(")")) {
        error(peek(), "expected ',' or ')' in " + l.name + "(...), got " + describe(peek()));
        return l;
      }
    }
    expect_punct(")", "to close " + l.name + "(...)");
    return l;
  }

  PacketExpr packet() {
    PacketExpr p;
    if (peek().kind == Token::Kind::kIdent && peek().text == "none") {
      next();
      p.none = true;
      return p;
    }
    p.layers.push_back(layer());
    while (!failed_ && at_punct("/")) {
      next();
      p.layers.push_back(layer());
    }
    if (!failed_ && !at_end())
      error(peek(), "expected '/' or end of line after a layer, got " + describe(peek()));
    return p;
  }

  // time := '*' | ['+'] number ['~' ['+'] number]
  TimeSpec time_spec() {
    TimeSpec ts;
    if (at_punct("*")) {
      next();
      ts.any = true;
      return ts;
    }
    ts.relative = at_punct("+");
    if (ts.relative) next();
    ts.start_s = seconds("a time");
    if (at_punct("~")) {
      next();
      if (at_punct("+")) next();
      ts.end_s = seconds("the end of a time window");
      if (!failed_ && *ts.end_s < ts.start_s) error(peek(), "time window ends before it starts");
    }
    return ts;
  }

  // loop := 'repeat' 'max' '=' expr 'until' expr '==' expr
  std::vector<FieldArg> loop_header() {
    std::vector<FieldArg> out;
    const Token& key = peek();
    if (key.kind != Token::Kind::kIdent || key.text != "max") {
      error(key, "expected 'max=N' after 'repeat' (every loop is bounded), got " + describe(key));
      return out;
    }
    next();
    if (!expect_punct("=", "after max")) return out;
    out.push_back({"max", key.pos, expression()});
    const Token& until = peek();
    if (failed_) return out;
    if (until.kind != Token::Kind::kIdent || until.text != "until") {
      error(until, "expected 'until EXPR == EXPR' after repeat max=N, got " + describe(until));
      return out;
    }
    next();
    out.push_back({"until", until.pos, expression()});
    if (failed_) return out;
    const Token& eq = peek();
    if (!at_punct("=") || !at_punct("=", 1)) {
      error(eq, "expected '==' in the loop condition, got " + describe(eq));
      return out;
    }
    next();
    next();
    out.push_back({"equals", eq.pos, expression()});
    return out;
  }

  // args := (ident '=' expr)*  (space separated), or '(' the same comma separated ')'
  std::vector<FieldArg> arguments() {
    std::vector<FieldArg> out;
    const bool paren = at_punct("(");
    if (paren) next();
    while (!failed_ && !at_end() && !(paren && at_punct(")"))) {
      const Token& key = peek();
      if (key.kind != Token::Kind::kIdent) {
        error(key, "expected name=value, got " + describe(key));
        break;
      }
      next();
      if (!expect_punct("=", "after " + key.text)) break;
      out.push_back({key.text, key.pos, expression()});
      if (paren && at_punct(",")) next();
    }
    if (paren) expect_punct(")", "to close the argument list");
    if (!failed_ && !at_end()) error(peek(), "expected end of line, got " + describe(peek()));
    return out;
  }

  double seconds(std::string_view what) {
    const Token& t = peek();
    if (t.kind != Token::Kind::kNumber) {
      error(t, "expected " + std::string(what) + " in seconds, got " + describe(t));
      return 0;
    }
    next();
    try {
      return std::stod(t.text);
    } catch (const std::exception&) {
      error(t, "bad number " + t.text);
      return 0;
    }
  }

 private:
  // Parentheses nest at most kMaxDepth deep: the descent is recursive, and a hostile script
  // must get an error, not a stack overflow.
  static constexpr int kMaxDepth = 64;
  // And a line has at most kMaxOperators + - *: a chain of them is as deep a tree to
  // evaluate and to free as nested parentheses.
  static constexpr int kMaxOperators = 256;
  bool more_operators(const Token& at) {
    if (++operators_ <= kMaxOperators) return true;
    error(at, "a line has at most " + std::to_string(kMaxOperators) + " operators (+ - *)");
    return false;
  }
  bool deeper(const Token& at) {
    if (++depth_ <= kMaxDepth) return true;
    --depth_;
    error(at, "expressions nest at most " + std::to_string(kMaxDepth) + " parentheses deep");
    return false;
  }

  bool ends_value(size_t k) const {
    const Token& t = peek(k);
    return t.kind == Token::Kind::kEnd ||
           (t.kind == Token::Kind::kPunct && (t.text == "," || t.text == ")"));
  }
  static bool is_enum_name(const std::string& s) {
    bool upper = !s.empty();
    for (char c : s)
      upper = upper && (std::isupper(static_cast<unsigned char>(c)) ||
                        std::isdigit(static_cast<unsigned char>(c)) || c == '_');
    return upper && s.size() > 1;
  }
  static bool parse_number(const std::string& text, uint64_t& out) {
    const bool hex = text.size() > 2 && (text[1] == 'x' || text[1] == 'X');
    const char* b = text.data() + (hex ? 2 : 0);
    const char* e = text.data() + text.size();
    auto r = std::from_chars(b, e, out, hex ? 16 : 10);
    return r.ec == std::errc() && r.ptr == e;
  }
  // "2" -> 20000, "0.5" -> 5000 parts per million; at most 4 decimals (1 ppm), at most 100%.
  static bool parse_percent(const std::string& text, uint64_t& ppm) {
    const size_t dot = text.find('.');
    const std::string whole = text.substr(0, dot);
    std::string frac = dot == std::string::npos ? "" : text.substr(dot + 1);
    uint64_t w = 0;
    uint64_t f = 0;
    if (whole.empty() || !parse_number(whole, w) || frac.size() > 4 ||
        frac.find('.') != std::string::npos)
      return false;
    if (!frac.empty() && !parse_number(frac, f)) return false;
    for (size_t i = frac.size(); i < 4; ++i) f *= 10;
    if (w > 100) return false;
    ppm = w * 10000 + f;
    return ppm <= 1'000'000;
  }
  static Expr binary(char op, Expr lhs, Expr rhs, Position pos) {
    Expr e;
    e.kind = Expr::Kind::kBinary;
    e.op = op;
    e.pos = pos;
    e.lhs = std::make_unique<Expr>(std::move(lhs));
    e.rhs = std::make_unique<Expr>(std::move(rhs));
    return e;
  }

  std::vector<Token> t_;
  size_t i_ = 0;
  const std::string& file_;
  std::vector<Diagnostic>& diags_;
  bool failed_ = false;
  int depth_ = 0;
  int operators_ = 0;
};

std::string trim(std::string_view s) {
  size_t b = 0;
  size_t e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

// "# tp: RC-PSN-004     clause: MR-PS-04 MR-PS-05" -> pairs; a line without "key:" continues
// the previous key (multi-line purpose).
void parse_metadata(std::string_view body, int line_no, const std::string& file,
                    std::string& last_key, Script& s, std::vector<Diagnostic>& diags) {
  // Find "word:" followed by a space at the start or after two spaces; after one space only a
  // known key, and only before free text (purpose, positive-path) has begun on the line, so
  // "# tp: X-1 clause: MR-QS-03" reads as two keys and a purpose may say "group: ...".
  std::vector<std::pair<size_t, std::string>> keys;
  bool free_text = false;
  for (size_t i = 0; i < body.size(); ++i) {
    const bool two_spaces = i >= 2 && body[i - 1] == ' ' && body[i - 2] == ' ';
    const bool one_space = i >= 1 && body[i - 1] == ' ' && !free_text;
    if (!(i == 0 || two_spaces || one_space) || !std::isalpha(static_cast<unsigned char>(body[i])))
      continue;
    size_t j = i;
    while (j < body.size() &&
           (std::isalnum(static_cast<unsigned char>(body[j])) || body[j] == '-' || body[j] == '_'))
      ++j;
    if (j < body.size() && body[j] == ':' && (j + 1 == body.size() || body[j + 1] == ' ')) {
      std::string key(body.substr(i, j - i));
      if (i != 0 && !two_spaces && !is_metadata_key(key)) continue;
      free_text = key == "purpose" || key == "positive-path";
      keys.emplace_back(i, std::move(key));
    }
  }
  if (keys.empty() || keys.front().first != 0) {
    if (last_key.empty()) return;  // a plain comment
    s.metadata[last_key] += " " + trim(body);
    return;
  }
  for (size_t k = 0; k < keys.size(); ++k) {
    const auto& [at, key] = keys[k];
    const size_t value_start = at + key.size() + 1;
    const size_t value_end = k + 1 < keys.size() ? keys[k + 1].first : body.size();
    if (!is_metadata_key(key)) {
      diags.push_back({file,
                       {line_no, static_cast<int>(at) + 3},
                       "unknown metadata key '" + key + "' (known: " + listed_keys() + ")"});
      continue;
    }
    std::string value = trim(body.substr(value_start, value_end - value_start));
    const std::string name = key == "clauses" ? "clause" : key;
    size_t value_at = value_start;
    while (value_at < body.size() && body[value_at] == ' ') ++value_at;
    s.metadata_pos.try_emplace(name, Position{line_no, static_cast<int>(value_at) + 3});
    auto& slot = s.metadata[name];
    if (!slot.empty()) slot += ' ';
    slot += value;
    last_key = key == "clauses" ? "clause" : key;
  }
}

}  // namespace

bool is_metadata_key(std::string_view key) {
  return std::ranges::find(kTestCaseKeys, key) != kTestCaseKeys.end() ||
         std::ranges::find(kOtherKeys, key) != kOtherKeys.end();
}

ParseResult parse_script(std::string_view text, const std::string& path) {
  ParseResult r;
  r.script.path = path;
  r.script.text = std::string(text);
  std::string last_key;
  std::vector<Position> loops;  // the `repeat` lines still open
  // The latest absolute time so far: a later line's absolute time may not go back before it.
  std::optional<std::pair<double, Position>> last_absolute;
  CommandChecker commands(path);
  bool in_header = true;
  int line_no = 0;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view raw = text.substr(start, end - start);
    if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
    ++line_no;
    start = end + 1;
    const std::string line = trim(raw);
    if (line.empty()) {
      if (end == text.size()) break;
      continue;
    }
    if (line[0] == '#') {
      if (in_header)
        parse_metadata(
            std::string_view(line).substr(1).substr(line.size() > 1 && line[1] == ' ' ? 1 : 0),
            line_no, path, last_key, r.script, r.diagnostics);
      if (end == text.size()) break;
      continue;
    }
    in_header = false;
    LexResult lexed = lex_line(raw, line_no, path);
    if (lexed.error) {
      r.diagnostics.push_back(*lexed.error);
      continue;
    }
    LineParser p(std::move(lexed.tokens), path, r.diagnostics);
    const Token first = p.peek();
    if (first.kind == Token::Kind::kIdent && (first.text == "repeat" || first.text == "end")) {
      p.next();
      Command c;
      c.pos = first.pos;
      c.actor = c.name = first.text;
      if (c.actor == "repeat") {
        c.args = p.loop_header();
        loops.push_back(first.pos);
      } else if (loops.empty()) {
        p.error(first, "'end' without a 'repeat' before it");
      } else {
        loops.pop_back();
      }
      if (!p.failed() && !p.at_end())
        p.error(p.peek(), "expected end of line, got " + describe(p.peek()));
      if (!p.failed()) r.script.statements.emplace_back(std::move(c));
      if (end == text.size()) break;
      continue;
    }
    if (first.kind == Token::Kind::kIdent &&
        (first.text == "dut" || first.text == "tester" || first.text == "probe" ||
         first.text == "event" || first.text == "connect" || first.text == "impair")) {
      p.next();
      Command c;
      c.pos = first.pos;
      c.actor = first.text;
      if (c.actor == "probe" || c.actor == "connect" || c.actor == "impair") {
        c.name = c.actor;
      } else {
        const Token& name = p.peek();
        if (name.kind != Token::Kind::kIdent) {
          p.error(name, "expected a command name after '" + c.actor + "', got " + describe(name));
          continue;
        }
        c.name = p.next().text;
        // `dut qp A = create_qp(...)`: a definition. (`dut expect_counter name=x ...` is not:
        // a definition's right side is a call.)
        if (p.peek().kind == Token::Kind::kIdent && p.at_punct("=", 1) &&
            p.peek(2).kind == Token::Kind::kIdent && p.at_punct("(", 3)) {
          c.assign = p.next().text;
          p.next();
          const Token& fn = p.peek();
          if (fn.kind != Token::Kind::kIdent) {
            p.error(fn,
                    "expected a constructor such as create_qp(...) after '=', got " + describe(fn));
            continue;
          }
          c.name = p.next().text;
        }
      }
      // An optional target object name before the arguments: `dut post_recv A count=4`.
      if (p.peek().kind == Token::Kind::kIdent && !p.at_punct("=", 1)) c.target = p.next().text;
      // `connect T A`: the tester QP, then the DUT QP it is connected to.
      std::optional<FieldArg> peer;
      if (c.actor == "connect") {
        if (c.target.empty() || p.peek().kind != Token::Kind::kIdent || p.at_punct("=", 1)) {
          p.error(p.peek(), "expected 'connect TESTER_QP DUT_QP', got " + describe(p.peek()));
          continue;
        }
        const Token& dut_qp = p.next();
        peer = FieldArg{"peer", dut_qp.pos, {}};
        peer->value.kind = Expr::Kind::kName;
        peer->value.pos = dut_qp.pos;
        peer->value.text = dut_qp.text;
      }
      c.args = p.arguments();
      if (peer) c.args.insert(c.args.begin(), std::move(*peer));
      if (p.failed()) continue;
      commands.check(c, r.diagnostics);
      r.script.statements.emplace_back(std::move(c));
      continue;
    }
    PacketLine pl;
    pl.pos = first.pos;
    pl.time = p.time_spec();
    if (p.failed()) continue;
    if (!pl.time.relative && !pl.time.any) {
      // Time runs one way: an absolute time before an earlier line's would put the packet in
      // the past, which no run can do and which hides a typo (`0.5` for `+0.5`).
      if (last_absolute && pl.time.start_s < last_absolute->first) {
        const std::string at = seconds_text(pl.time.start_s);
        std::string message = "absolute time " + at + " s is before line ";
        message += std::to_string(last_absolute->second.line) + "'s ";
        message += seconds_text(last_absolute->first);
        message += " s: time never goes back (a relative time is '+" + at + "')";
        p.error(first, message);
        continue;
      }
      last_absolute = {pl.time.start_s, first.pos};
    }
    if (p.at_punct("<")) {
      pl.inject = true;
    } else if (p.at_punct(">")) {
      pl.inject = false;
    } else {
      p.error(p.peek(),
              "expected '<' (inject) or '>' (expect) after the time, got " + describe(p.peek()));
      continue;
    }
    p.next();
    if (!pl.inject && p.peek().kind == Token::Kind::kIdent && p.peek().text == "within") {
      p.next();
      pl.within = std::make_shared<const Expr>(p.expression());
    }
    if (!pl.inject && !p.failed() && p.peek().kind == Token::Kind::kIdent &&
        p.peek().text == "not_before") {
      p.next();
      pl.not_before_s = p.seconds("the least spacing after 'not_before'");
    }
    if (p.failed()) continue;
    pl.packet = p.packet();
    if (pl.within && pl.packet.none)
      p.error(first, "'> within N none' means nothing: a window of silence is '> none'");
    if (pl.not_before_s && pl.packet.none)
      p.error(first, "'> not_before S none' means nothing: a window of silence is '> none'");
    if (pl.inject && pl.packet.none)
      p.error(first, "'< none' means nothing: only '> none' can expect silence");
    if (!p.failed()) {
      check_packet(pl.packet, path, r.diagnostics);
      r.script.statements.emplace_back(std::move(pl));
    }
    if (end == text.size()) break;
  }
  for (const Position& open : loops)
    r.diagnostics.push_back({path, open, "'repeat' without its 'end'"});
  for (const char* required : {"tp", "clause", "purpose"}) {
    if (!r.script.metadata.contains(required)) {
      r.diagnostics.push_back(
          {path, {1, 1}, std::string("missing metadata '# ") + required + ": ...'"});
    }
  }
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
