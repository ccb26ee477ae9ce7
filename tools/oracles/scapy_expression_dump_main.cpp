// scapy_expression_dump FILE.mrt...: every `<` and `>` packet line of the given test cases
// as one JSON line {"where", "dir", "source", "scapy", "hex", "layers"}: the Scapy
// expression (tools/oracles/scapy_expression.h) and the bytes our builder gives for it,
// with the symbols bound to the fixed values below (the same for both sides, since the
// expression carries them as numbers). Files that are not .mrt are ignored. Errors name
// file:line; the exit status is 1 if any line could not be built, 2 on a usage error.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "harness/engine/packet_synthesis.h"
#include "harness/engine/symbols.h"
#include "harness/script/parser.h"
#include "reference/wire/mxcap.h"
#include "tools/oracles/scapy_expression.h"

namespace {

using mr::engine::SymbolTable;
using mr::oracles::Connection;

// A QP the script creates (`dut qp A = create_qp(...)`) and the options that shape its
// connection.
struct QpSpec {
  std::string name;
  const mr::script::Command* command = nullptr;  // null: the script creates none
};

std::vector<QpSpec> qp_specs(const mr::script::Script& s) {
  std::vector<QpSpec> qps;
  for (const auto& st : s.statements) {
    const auto* c = std::get_if<mr::script::Command>(&st);
    if (c != nullptr && c->actor == "dut" && c->name == "create_qp" && !c->assign.empty())
      qps.push_back({c->assign, c});
  }
  if (qps.empty()) qps.push_back({"A", nullptr});
  return qps;
}

// create_qp option `name` as a number or enum name; `fallback` when absent.
std::string option(const QpSpec& qp, const std::string& name, const std::string& fallback) {
  if (qp.command == nullptr) return fallback;
  for (const auto& a : qp.command->args) {
    if (a.name != name) continue;
    if (a.value.kind == mr::script::Expr::Kind::kNumber) return std::to_string(a.value.number);
    return a.value.text;
  }
  return fallback;
}

// create_qp's mxcap=b"..." is a block that allows extension mode (magic, version 1, SACK
// and OOO: wire::Mxcap::enables_ext).
bool offers_ext(const QpSpec& qp) {
  if (qp.command == nullptr) return false;
  for (const auto& a : qp.command->args) {
    if (a.name != "mxcap" || a.value.kind != mr::script::Expr::Kind::kBytes) continue;
    const std::vector<uint8_t> bytes(a.value.bytes.begin(), a.value.bytes.end());
    const auto block = mr::wire::Mxcap::parse(bytes);
    return block && block->enables_ext();
  }
  return false;
}

uint64_t number_option(const QpSpec& qp, const std::string& name, uint64_t fallback) {
  const std::string v = option(qp, name, std::to_string(fallback));
  return std::strtoull(v.c_str(), nullptr, 10);
}

// Fixed values with their high bits set, so that a field written too narrow shows; the
// PSNs sit just below the 24-bit wrap, so P+2 and Q+3 wrap. The connection is the first
// QP's, as the engine's is.
SymbolTable bind_symbols(const std::vector<QpSpec>& qps, Connection& connection) {
  SymbolTable t;
  for (size_t i = 0; i < qps.size(); ++i) {
    const std::string& n = qps[i].name;
    const uint64_t qpn = 0xa5b400 + 0x11 * i;
    const uint64_t tqpn = 0x5a0010 + i;
    const uint64_t rq_psn = 0xfffffe - 0x100 * i;
    const uint64_t sq_psn = 0xfffffd - 0x100 * i;
    // The engine's default Q_Keys (dut_commands.cpp) unless the script gives them.
    const uint64_t qkey = number_option(qps[i], "qkey", 0x11223344);
    const uint64_t tqkey = number_option(qps[i], "tqkey", 0x55667788);
    t.set(n + ".qpn", qpn);
    t.set(n + ".tqpn", tqpn);
    t.set(n + ".rkey", 0x8badf00d + 0x100 * i);
    t.set(n + ".lkey", 0x7e570001 + 0x100 * i);
    t.set(n + ".va", 0x8000123456000000ULL + (static_cast<uint64_t>(i) << 32));
    t.set(n + ".len", 0x100000);
    t.set(n + ".P", rq_psn);
    t.set(n + ".Q", sq_psn);
    t.set(n + ".qkey", qkey);
    t.set(n + ".tqkey", tqkey);
    if (i != 0) continue;
    t.set("P", rq_psn);
    t.set("Q", sq_psn);
    t.set("T", tqpn);
    // What a `repeat` loop reads from the DUT's last packet (test_runner.cpp).
    t.set("last.psn", 0xfff0f1);
    t.set("last.opcode", 0x11);
    t.set("last.msn", 0xabc123);
    // An Ext packet's MXH fields and UDP port (EVs with the high bit set: a 16-bit field).
    t.set("last.ev", 0xc1e5);
    t.set("last.plane", 0x0b);
    t.set("last.tx_ts", 0xfedcba98);
    t.set("last.sport", 0xc1e5);
    connection.base.dut_qpn = static_cast<uint32_t>(qpn);
    connection.base.tester_qpn = static_cast<uint32_t>(tqpn);
    // As the engine gives the tester QP its source port (dut_commands.cpp).
    connection.base.udp_sport = static_cast<uint16_t>(0xc000 | (tqpn & 0x3fff));
    if (option(qps[i], "type", "RC") == "UD") {
      connection.qkey = static_cast<uint32_t>(qkey);
      connection.tester_qkey = static_cast<uint32_t>(tqkey);
    }
    if (number_option(qps[i], "ipv6", 0) != 0) {
      connection.tester_ip6 = mr::wire::Ipv6Address::parse("2001:db8::1");
      connection.dut_ip6 = mr::wire::Ipv6Address::parse("2001:db8::2");
    }
    if (option(qps[i], "vlan", "") != "") {
      connection.vlan = static_cast<uint16_t>(number_option(qps[i], "vlan", 0));
      connection.pcp = static_cast<uint8_t>(number_option(qps[i], "pcp", 0));
    }
    // ext=1 is the tester's own block; an mxcap=b"..." puts the connection in Ext mode when
    // it allows it alone (the reference's block allows everything the suite offers): a
    // block without a core bit leaves it in base mode (EXT-NEG-002).
    if (number_option(qps[i], "ext", 0) != 0 || offers_ext(qps[i])) connection.ext = true;
  }
  return t;
}

std::string hex(const std::vector<uint8_t>& b) {
  std::string s;
  char buf[4];
  for (const uint8_t x : b) {
    std::snprintf(buf, sizeof buf, "%02x", x);
    s += buf;
  }
  return s;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// Dumps one file; returns the number of lines that could not be built.
int dump(const std::string& path) {
  auto parsed = mr::script::parse_file(path);
  if (!parsed.ok()) {
    for (const auto& d : parsed.diagnostics) std::cerr << d.to_string() << "\n";
    return 1;
  }
  Connection connection;
  connection.base.tester_mac = *mr::wire::MacAddress::parse("02:4d:52:00:00:01");
  connection.base.dut_mac = *mr::wire::MacAddress::parse("02:4d:52:00:00:02");
  connection.base.tester_ip = *mr::wire::Ipv4Address::parse("198.18.0.1");
  connection.base.dut_ip = *mr::wire::Ipv4Address::parse("198.18.0.2");
  SymbolTable symbols = bind_symbols(qp_specs(parsed.script), connection);
  // A script's own `let` names: fixed, distinct 16-bit values (they hold EVs in the suite).
  uint64_t next_let = 0xc2a1;
  for (const auto& st : parsed.script.statements) {
    const auto* c = std::get_if<mr::script::Command>(&st);
    if (c != nullptr && c->actor == "let" && !symbols.get(c->target))
      symbols.set(c->target, next_let++);
  }
  const auto source = lines_of(parsed.script.text);
  int errors = 0;
  for (auto& st : parsed.script.statements) {
    auto* line = std::get_if<mr::script::PacketLine>(&st);
    if (line == nullptr || line->packet.none) continue;
    const std::string where = path + ":" + std::to_string(line->pos.line);
    const bool inject = line->inject;
    auto c = mr::oracles::scapy_case(*line, symbols, connection);
    if (!c) {
      std::cerr << path << ":" << c.error().pos.line << ":" << c.error().pos.column << ": "
                << c.error().message << "\n";
      ++errors;
      continue;
    }
    const size_t n = static_cast<size_t>(line->pos.line);
    nlohmann::json j{{"where", where},
                     {"dir", inject ? "<" : ">"},
                     {"source", n >= 1 && n <= source.size() ? source[n - 1] : ""},
                     {"scapy", c->scapy},
                     {"hex", hex(c->bytes)},
                     {"layers", c->layers}};
    std::cout << j.dump() << "\n";
  }
  return errors;
}

int run(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: scapy_expression_dump FILE.mrt...\n";
    return 2;
  }
  int errors = 0;
  int files = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string path = argv[i];
    if (!path.ends_with(".mrt")) continue;
    ++files;
    errors += dump(path);
  }
  if (files == 0) {
    std::cerr << "scapy_expression_dump: no .mrt file among the arguments\n";
    return 2;
  }
  return errors == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {  // a JSON or I/O failure: a harness error, not a result
    std::cerr << "scapy_expression_dump: " << e.what() << "\n";
    return 2;
  }
}
