#include "reference/io/fabric/real_time_fabric.h"

#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <chrono>

namespace mr::io::fabric {
namespace {

constexpr size_t kBurst = 32;

}  // namespace

Expected<std::unique_ptr<RealTimeFabric>, std::string> RealTimeFabric::start(
    FabricConfig config, std::vector<std::vector<PcapLink>>& links, RealTimeFabricOptions options) {
  // A wait of 0 between looks would spin the thread.
  if (options.poll_ns == 0) return Unexpected(std::string("poll_ns: must be at least 1"));
  if (links.size() != config.planes.size())
    return Unexpected("links: " + std::to_string(links.size()) + " planes, the config has " +
                      std::to_string(config.planes.size()));
  for (size_t p = 0; p < links.size(); ++p) {
    if (links[p].size() != config.endpoints)
      return Unexpected("links[" + std::to_string(p) + "]: " + std::to_string(links[p].size()) +
                        " endpoints, the config has " + std::to_string(config.endpoints));
  }
  std::unique_ptr<RealTimeFabric> rt(new RealTimeFabric(links, options));
  auto made = Fabric::create(rt->clock_, std::move(config));
  if (!made) return Unexpected(made.error().to_string());
  rt->fabric_ = std::move(*made);
  rt->thread_ = std::jthread([raw = rt.get()](const std::stop_token& stop) { raw->run(stop); });
  return rt;
}

void RealTimeFabric::stop() {
  if (!thread_.joinable()) return;
  thread_.request_stop();
  thread_.join();
}

// What the hosts sent, into the fabric at their ports. A frame the port's queue refuses is
// lost, as at a full NIC ring the sender does not see (the host's kernel already let go).
bool RealTimeFabric::move_in() {
  std::vector<Frame> in(kBurst);
  bool moved = false;
  for (uint32_t p = 0; p < links_.size(); ++p) {
    for (uint32_t e = 0; e < links_[p].size(); ++e) {
      const size_t n = links_[p][e].receive_burst(in, 0);
      if (n == 0) continue;
      moved = true;
      frames_in_.fetch_add(n, std::memory_order_relaxed);
      const size_t taken = fabric_->port(p, e).send_burst(std::span<const Frame>(in.data(), n));
      frames_refused_.fetch_add(n - taken, std::memory_order_relaxed);
    }
  }
  return moved;
}

// What the fabric delivered by now, out of the receiving ports' links.
void RealTimeFabric::move_out() {
  std::vector<Frame> out(kBurst);
  for (const auto& [p, e] : fabric_->take_ready_ports()) {
    for (size_t n = fabric_->port(p, e).receive_burst(out, 0); n > 0;
         n = fabric_->port(p, e).receive_burst(out, 0)) {
      frames_out_.fetch_add(links_[p][e].send_burst(std::span<const Frame>(out.data(), n)),
                            std::memory_order_relaxed);
    }
  }
}

void RealTimeFabric::run(const std::stop_token& stop) {
  std::vector<pollfd> ports;
  for (const auto& plane : links_) {
    for (const PcapLink& link : plane) ports.push_back({link.selectable_fd(), POLLIN, 0});
  }
  while (!stop.stop_requested()) {
    const bool moved = move_in();
    fabric_->run_until(clock_.now_ns());
    move_out();
    if (moved) continue;
    // Nothing came in: wait until a port has a frame, the next event is due, or at most
    // poll_ns. Waking on the frame, not after a sleep, matters on a loaded host: a sleeping
    // thread waits for the scheduler for milliseconds, a thread woken by I/O far less.
    const uint64_t now = clock_.now_ns();
    uint64_t wait = options_.poll_ns;
    if (auto next = fabric_->next_event_ns()) wait = std::min(wait, *next > now ? *next - now : 0);
    if (wait == 0) continue;
    const timespec limit{.tv_sec = static_cast<time_t>(wait / 1'000'000'000),
                         .tv_nsec = static_cast<long>(wait % 1'000'000'000)};
    // EINTR: look again; any other error (a closed descriptor) must not spin: sleep instead.
    if (ppoll(ports.data(), ports.size(), &limit, nullptr) < 0 && errno != EINTR)
      std::this_thread::sleep_for(std::chrono::nanoseconds(wait));
  }
}

Expected<std::unique_ptr<RealTimeFabricBed>, std::string> RealTimeFabricBed::start(
    const FabricConfig& config, const FabricNamespacesOptions& options) {
  auto bed = std::make_unique<RealTimeFabricBed>();
  auto net = FabricNamespaces::create(config, options);
  if (!net) return Unexpected(net.error());
  bed->net = std::move(*net);
  auto links = bed->net->open_fabric_links();
  if (!links) return Unexpected(links.error());
  bed->links = std::move(*links);
  auto fabric = RealTimeFabric::start(config, bed->links);
  if (!fabric) return Unexpected(fabric.error());
  bed->fabric = std::move(*fabric);
  return bed;
}

}  // namespace mr::io::fabric
