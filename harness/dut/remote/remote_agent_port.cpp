#include "harness/dut/remote/remote_agent_port.h"

#include <algorithm>
#include <chrono>
#include <future>

namespace mr::dut {

namespace {
// The longest single wait on the capture: short enough that a deadline is met closely.
constexpr uint64_t kMaxPollNs = 20'000'000;
constexpr size_t kBurst = 64;
// How often the capture is drained while a blocking control() waits for its reply.
constexpr std::chrono::milliseconds kControlDrainPeriod{1};

uint64_t real_now_ns() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count());
}
}  // namespace

io::PcapLinkOptions remote_capture_options(const wire::MacAddress& dut_mac) {
  io::PcapLinkOptions o;
  const std::string src = "ether src " + dut_mac.to_string();
  o.filter = "(" + src + " and udp port 4791) or (" + src + " and vlan and udp port 4791)";
  // A DUT answers a long driven transfer in bursts of hundreds of frames: room for thousands
  // of whole frames (slots sized to the MTU, not to 64 KiB), or the capture loses some and
  // the test can only be inconclusive.
  o.buffer_bytes = 64 << 20;
  o.snap_length = 0;
  return o;
}

RemoteAgentPort::RemoteAgentPort(DutControl control, io::PcapLink link,
                                 const RemotePortOptions& options)
    : control_(std::move(control)),
      link_(std::move(link)),
      options_(options),
      dilation_(options.time_dilation, real_now_ns()) {
  control_.set_time_dilation(dilation_.factor());
}

namespace {

// A reply that a thread of its own waits for (DutControl::call blocks, bounded by its
// timeout); the future's destructor waits for that thread, so the port outlives the call.
class ReplyInFlight final : public engine::PendingControl {
 public:
  explicit ReplyInFlight(std::future<engine::ControlReply> reply) : reply_(std::move(reply)) {}
  std::optional<engine::ControlReply> try_take() override {
    if (!reply_.valid() || reply_.wait_for(std::chrono::seconds(0)) != std::future_status::ready)
      return std::nullopt;
    return reply_.get();
  }

 private:
  std::future<engine::ControlReply> reply_;
};

}  // namespace

std::future<engine::ControlReply> RemoteAgentPort::call_async(nlohmann::json request) {
  if (!request.is_object() || !request.contains("op") || !request["op"].is_string()) {
    std::promise<engine::ControlReply> refused;
    refused.set_value(
        protocol::control_error(ErrorCode::kEinval, "control request without an op", "op"));
    return refused.get_future();
  }
  std::string op = request["op"].get<std::string>();
  request.erase("op");
  request.erase("id");
  return std::async(std::launch::async, [this, op = std::move(op), request = std::move(request)] {
    std::lock_guard one_at_a_time(control_mutex_);
    // The agent's error as it sent it (a reply without a known code is
    // EPROTO: error_from_reply).
    auto reply = control_.call(op, request);
    if (!reply) return engine::ControlReply(Unexpected(std::move(reply).error()));
    return engine::ControlReply(nlohmann::json(*reply));
  });
}

std::unique_ptr<engine::PendingControl> RemoteAgentPort::send_control(nlohmann::json request) {
  return std::make_unique<ReplyInFlight>(call_async(std::move(request)));
}

engine::ControlReply RemoteAgentPort::control(nlohmann::json request) {
  // A control request can block for seconds (expect_completion waits in the agent) while the
  // DUT keeps sending, a retransmitting requester for one: drain the capture meanwhile, or
  // the kernel ring overflows and the verdict can only be inconclusive.
  auto pending = call_async(std::move(request));
  while (pending.wait_for(kControlDrainPeriod) != std::future_status::ready) collect(0);
  return pending.get();
}

uint64_t RemoteAgentPort::inject(std::span<const uint8_t> frame) {
  const uint64_t sent = now_ns();
  io::Frame f{std::vector<uint8_t>(frame.begin(), frame.end()), sent};
  if (link_.send_burst(std::span(&f, 1)) != 1) ++send_failures_;
  return sent;
}

size_t RemoteAgentPort::collect(uint64_t deadline_ns) {
  std::array<io::Frame, kBurst> burst;
  size_t total = 0;
  for (;;) {
    const uint64_t now = now_ns();
    const uint64_t wait =
        total > 0 || now >= deadline_ns
            ? 0
            : std::min<uint64_t>(dilation_.real_duration(deadline_ns - now), kMaxPollNs);
    const size_t n = link_.receive_burst(burst, wait);
    for (size_t i = 0; i < n; ++i)
      inbox_.push_back({std::move(burst[i].bytes), dilation_.dilated(burst[i].timestamp_ns)});
    total += n;
    if (n < burst.size() && (total > 0 || now_ns() >= deadline_ns)) return total;
  }
}

std::optional<engine::DutFrame> RemoteAgentPort::receive(uint64_t deadline_ns) {
  if (inbox_.empty()) collect(deadline_ns);
  if (inbox_.empty() || inbox_.front().t_ns > deadline_ns) return std::nullopt;
  engine::DutFrame f = std::move(inbox_.front());
  inbox_.pop_front();
  return f;
}

void RemoteAgentPort::wait_until(uint64_t t_ns) {
  // Keep draining the capture while waiting so the kernel ring never overflows.
  while (now_ns() < t_ns) collect(t_ns);
}

uint64_t RemoteAgentPort::now_ns() { return dilation_.dilated(real_now_ns()); }

uint64_t RemoteAgentPort::capture_drops() {
  auto s = link_.stats();
  return send_failures_ + (s ? s->dropped + s->interface_dropped : 0);
}

Expected<void, std::string> RemoteAgentPort::reset() {
  auto r = typed_client(control_).reset();
  if (!r) return Unexpected("reset: " + r.error().to_string());
  // The frames still in flight cross the wire in real time: the drain is real too.
  wait_until(now_ns() + options_.reset_drain_ms * 1'000'000 / dilation_.factor());
  inbox_.clear();
  return {};
}

}  // namespace mr::dut
