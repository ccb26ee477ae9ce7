#include "harness/script/line_parser.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <memory>
#include <utility>

namespace mr::script {

bool is_enum_name(const std::string& s) {
  bool upper = !s.empty();
  for (char c : s)
    upper = upper && (std::isupper(static_cast<unsigned char>(c)) ||
                      std::isdigit(static_cast<unsigned char>(c)) || c == '_');
  return upper && s.size() > 1;
}

namespace {

bool parse_number(const std::string& text, uint64_t& out) {
  const bool hex = text.size() > 2 && (text[1] == 'x' || text[1] == 'X');
  const char* b = text.data() + (hex ? 2 : 0);
  const char* e = text.data() + text.size();
  auto r = std::from_chars(b, e, out, hex ? 16 : 10);
  return r.ec == std::errc() && r.ptr == e;
}

// "2" -> 20000, "0.5" -> 5000 parts per million; at most 4 decimals (1 ppm), at most 100%.
bool parse_percent(const std::string& text, uint64_t& ppm) {
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

Expr binary(char op, Expr lhs, Expr rhs, Position pos) {
  Expr e;
  e.kind = Expr::Kind::kBinary;
  e.op = op;
  e.pos = pos;
  e.lhs = std::make_unique<Expr>(std::move(lhs));
  e.rhs = std::make_unique<Expr>(std::move(rhs));
  return e;
}

}  // namespace

void LineParser::error(const Token& at, std::string message) {
  if (failed_) return;  // one diagnostic per line: later ones are consequences
  failed_ = true;
  diags_.push_back({file_, at.pos, std::move(message)});
}

bool LineParser::expect_punct(std::string_view p, std::string_view context) {
  if (at_punct(p)) {
    next();
    return true;
  }
  error(peek(),
        "expected '" + std::string(p) + "' " + std::string(context) + ", got " + describe(peek()));
  return false;
}

// expr := term (('+' | '-') term)*
Expr LineParser::expression() {
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
Expr LineParser::term() {
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
Expr LineParser::atom() {
  const Token& t = peek();
  Expr e;
  e.pos = t.pos;
  if (t.kind == Token::Kind::kNumber && at_punct("%", 1)) {
    next();
    next();
    if (!parse_percent(t.text, e.number))
      error(t, "percentage " + t.text + "% is not a number from 0 to 100 with at most 4 decimals");
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
  if (at_punct("[")) {
    // list := '[' [expr (',' expr)*] ']'
    next();
    if (!deeper(t)) return e;
    e.kind = Expr::Kind::kList;
    while (!failed_ && !at_punct("]")) {
      if (e.items.size() == kMaxListItems) {
        error(peek(), "a list holds at most " + std::to_string(kMaxListItems) + " values");
        break;
      }
      e.items.push_back(expression());
      if (at_punct(",")) {
        next();
      } else if (!at_punct("]")) {
        error(peek(), "expected ',' or ']' in a list, got " + describe(peek()));
        break;
      }
    }
    --depth_;
    expect_punct("]", "to close the list");
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
  error(t,
        "expected a value (number, symbol, b\"...\", bytes(N), [list] or *), got " + describe(t));
  return e;
}

// layer := Name '(' [field '=' expr (',' field '=' expr)*] ')'
Layer LineParser::layer() {
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

// packet := 'none' | layer ('/' layer)*
PacketExpr LineParser::packet() {
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
TimeSpec LineParser::time_spec() {
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
std::vector<FieldArg> LineParser::loop_header() {
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
std::vector<FieldArg> LineParser::arguments() {
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

double LineParser::seconds(std::string_view what) {
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

bool LineParser::more_operators(const Token& at) {
  if (++operators_ <= kMaxOperators) return true;
  error(at, "a line has at most " + std::to_string(kMaxOperators) + " operators (+ - *)");
  return false;
}

bool LineParser::deeper(const Token& at) {
  if (++depth_ <= kMaxDepth) return true;
  --depth_;
  error(at, "expressions nest at most " + std::to_string(kMaxDepth) + " parentheses deep");
  return false;
}

bool LineParser::ends_value(size_t k) const {
  const Token& t = peek(k);
  return t.kind == Token::Kind::kEnd ||
         (t.kind == Token::Kind::kPunct && (t.text == "," || t.text == ")"));
}

}  // namespace mr::script
