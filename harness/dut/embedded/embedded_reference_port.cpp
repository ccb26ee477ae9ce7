#include "harness/dut/embedded/embedded_reference_port.h"

#include <algorithm>
#include <array>

#include "harness/dut/dut_control.h"
#include "harness/engine/waiting_op.h"
#include "harness/protocol/dut_client.h"

namespace mr::dut {

namespace {
constexpr uint64_t kStartNs = 1'000'000'000;  // a non-zero epoch: timestamps stay positive
constexpr int kMaxSettleRounds = 64;

EmbeddedDutOptions embedded_options(const engine::Pixit& pixit, const EmbeddedOptions& options) {
  EmbeddedDutOptions o;
  o.mac = pixit.dut_mac;
  o.ipv4 = pixit.dut_ip;
  o.ipv6 = pixit.dut_ip6;
  o.seed = options.seed;
  for (const auto& name : options.mutants) {
    if (auto m = mutants::mutant_by_name(name)) o.mutants.enable(*m);
  }
  o.decision_log = options.decision_log;
  o.link = {.capacity = 1 << 16, .latency_ns = options.link_latency_ns};
  o.start_ns = kStartNs;
  o.neighbors4 = {{pixit.tester_ip, pixit.tester_mac}};
  if (pixit.tester_ip6) o.neighbors6 = {{*pixit.tester_ip6, pixit.tester_mac}};
  return o;
}

}  // namespace

EmbeddedReferencePort::EmbeddedReferencePort(const engine::Pixit& pixit,
                                             const EmbeddedOptions& options)
    : dut_(embedded_options(pixit, options)) {
  // In process the transport is trusted: a hello without a token opens the session.
  protocol::DutClient client([this](const protocol::Json& request) { return call(request); });
  (void)client.hello("", "metaroce harness (embedded)");
}

Expected<nlohmann::json, protocol::ControlError> EmbeddedReferencePort::call(
    const nlohmann::json& request) {
  nlohmann::json r = request;
  r["id"] = next_id_++;
  const auto out = dut_.dispatcher().handle_line(r.dump());
  nlohmann::json reply = nlohmann::json::parse(out.reply, nullptr, false);
  if (reply.is_discarded() || !reply.is_object())
    return protocol::control_error(ErrorCode::kEproto, "reply is not a JSON object: " + out.reply);
  if (const auto ok = reply.find("ok");
      ok == reply.end() || !ok->is_boolean() || !ok->get<bool>()) {
    return Unexpected(error_from_reply(Json::parse(out.reply, nullptr, false)));
  }
  return reply;
}

void EmbeddedReferencePort::settle() {
  std::array<io::Frame, 64> burst;
  for (int round = 0; round < kMaxSettleRounds; ++round) {
    dut_.service();
    const size_t n = dut_.tester_link().receive_burst(burst, 0);
    for (size_t i = 0; i < n; ++i)
      inbox_.push_back({std::move(burst[i].bytes), burst[i].timestamp_ns});
    if (n == 0 && !(dut_.link_pair().next_delivery_ns() &&
                    *dut_.link_pair().next_delivery_ns() <= dut_.clock().now_ns()))
      return;
  }
}

bool EmbeddedReferencePort::step(uint64_t limit) {
  std::optional<uint64_t> next = dut_.link_pair().next_delivery_ns();
  if (auto d = dut_.backend().next_deadline_ns()) next = std::min(next.value_or(*d), *d);
  if (!next || *next > limit) return false;
  dut_.clock().set(std::max(*next, dut_.clock().now_ns()));
  settle();
  return true;
}

Expected<nlohmann::json, protocol::ControlError> EmbeddedReferencePort::control(
    nlohmann::json request) {
  // The ops that wait for the DUT: on the virtual clock, waiting is advancing the clock.
  const std::string op = request.value("op", "");
  const bool waits = engine::is_waiting_op(op);
  const uint64_t timeout_ms = waits ? request.value("timeout_ms", 0ULL) : 0;
  if (waits) request["timeout_ms"] = 0;
  const uint64_t deadline = dut_.clock().now_ns() + timeout_ms * 1'000'000;
  for (int i = 0; i < 1'000'000; ++i) {
    auto reply = call(request);
    settle();
    if (!waits || !reply || engine::wait_satisfied(op, *reply).value_or(true)) return reply;
    if (!step(deadline)) {
      dut_.clock().set(std::max(dut_.clock().now_ns(), deadline));
      settle();
      return call(request);
    }
  }
  return protocol::control_error(ErrorCode::kEtimedout, op + ": event budget exhausted");
}

uint64_t EmbeddedReferencePort::inject(std::span<const uint8_t> frame) {
  const uint64_t sent = dut_.clock().now_ns();
  io::Frame f{std::vector<uint8_t>(frame.begin(), frame.end()), sent};
  dut_.tester_link().send_burst(std::span(&f, 1));
  settle();
  return sent;
}

std::optional<engine::DutFrame> EmbeddedReferencePort::receive(uint64_t deadline_ns) {
  for (int i = 0; i < 1'000'000; ++i) {
    settle();
    if (!inbox_.empty()) {
      engine::DutFrame f = std::move(inbox_.front());
      inbox_.pop_front();
      return f;
    }
    if (!step(deadline_ns)) break;
  }
  if (dut_.clock().now_ns() < deadline_ns) dut_.clock().set(deadline_ns);
  settle();
  if (inbox_.empty()) return std::nullopt;
  engine::DutFrame f = std::move(inbox_.front());
  inbox_.pop_front();
  if (f.t_ns > deadline_ns) {
    inbox_.push_front(f);
    return std::nullopt;
  }
  return f;
}

void EmbeddedReferencePort::wait_until(uint64_t t_ns) {
  for (int i = 0; i < 1'000'000 && step(t_ns); ++i) {
  }
  if (dut_.clock().now_ns() < t_ns) dut_.clock().set(t_ns);
  settle();
}

Expected<void, std::string> EmbeddedReferencePort::reset() {
  inbox_.clear();
  protocol::DutClient client([this](const protocol::Json& request) { return call(request); });
  auto r = client.reset();
  if (!r) return Unexpected("reset: " + r.error().to_string());
  // Frames still in flight from the previous test are dropped with it.
  wait_until(dut_.clock().now_ns() + 1'000'000);
  inbox_.clear();
  return {};
}

}  // namespace mr::dut
