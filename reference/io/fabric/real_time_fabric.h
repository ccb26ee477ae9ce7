// File: real_time_fabric.h
//
// The fabric of fabric.h on the real clock (issue 22: "the same fabric between network
// namespaces, veth pairs as ports"): each endpoint port is bridged to a Link, the fabric's
// end of that port's veth (fabric_namespaces.h), so that processes and kernels in other
// namespaces send through the same queues, ECMP, marking, trimming and faults as the
// virtual-time devices do, with the same config. A thread of its own moves the frames:
// what each link received enters the fabric at that endpoint's port, the events due by the
// clock run, and what the fabric delivered to a port leaves through that port's link.
//
// Timing is the host's: the fabric's clock is CLOCK_MONOTONIC from start() (so the times in
// the config, a black hole's from_ns or a flap's, count from there). Between looks the
// thread waits on its links' descriptors until a frame comes or the next event is due, at
// most `poll_ns`, so a frame enters when it arrives and leaves at its time plus the host's
// scheduling: delays far above that (milliseconds) come out as configured, line rates only
// as far as the host keeps up.
//
//   auto bed = RealTimeFabricBed::start(config).value();
//   ... traffic between bed->net->endpoint(0) and bed->net->endpoint(1) ...
//   bed->fabric->stop();
//   LinkCounters c = bed->fabric->fabric().plane_counters(0);
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "reference/error/expected.h"
#include "reference/io/clock.h"
#include "reference/io/fabric/fabric.h"
#include "reference/io/fabric/fabric_namespaces.h"
#include "reference/io/link.h"
#include "reference/io/pcap_link.h"

namespace mr::io::fabric {

struct RealTimeFabricOptions {
  uint64_t poll_ns = 20'000;  // the longest wait between two looks at the links
};

class RealTimeFabric {
 public:
  // links[plane][endpoint] is the fabric's side of that port, for every plane and endpoint of
  // `config`; they must outlive the RealTimeFabric. Errors name the config field or the
  // links that do not match it ("links[1]: 3 endpoints, the config has 2").
  static Expected<std::unique_ptr<RealTimeFabric>, std::string> start(
      FabricConfig config, std::vector<std::vector<PcapLink>>& links,
      RealTimeFabricOptions options = {});
  RealTimeFabric(const RealTimeFabric&) = delete;
  RealTimeFabric& operator=(const RealTimeFabric&) = delete;
  ~RealTimeFabric() { stop(); }

  // Stops and joins the thread; frames still inside the fabric are not delivered.
  void stop();
  // Counters, faults and events: read after stop(), while the thread does not run.
  const Fabric& fabric() const { return *fabric_; }
  // Frames taken in from the links, those of them a full port ring refused (lost, as at a
  // NIC ring the host's kernel already let go of), and frames given to the links.
  uint64_t frames_in() const { return frames_in_.load(std::memory_order_relaxed); }
  uint64_t frames_refused() const { return frames_refused_.load(std::memory_order_relaxed); }
  uint64_t frames_out() const { return frames_out_.load(std::memory_order_relaxed); }

 private:
  RealTimeFabric(std::vector<std::vector<PcapLink>>& links, RealTimeFabricOptions options)
      : links_(links), options_(options) {}
  void run(const std::stop_token& stop);
  bool move_in();
  void move_out();

  // CLOCK_MONOTONIC less its value at start().
  class SinceStart final : public Clock {
   public:
    uint64_t now_ns() const override { return system_.now_ns() - start_ns_; }
    bool is_virtual() const override { return false; }

   private:
    SystemClock system_;
    uint64_t start_ns_ = system_.now_ns();
  };

  SinceStart clock_;
  std::vector<std::vector<PcapLink>>& links_;
  RealTimeFabricOptions options_;
  std::unique_ptr<Fabric> fabric_;
  std::atomic<uint64_t> frames_in_{0};
  std::atomic<uint64_t> frames_refused_{0};
  std::atomic<uint64_t> frames_out_{0};
  std::jthread thread_;  // last: joined before the rest goes
};

// Fresh namespaces with the fabric running between them, in one: the namespaces, the
// fabric's ends of their veths, and the fabric on them. Members go in reverse order: the
// thread stops before the links close, the links before the namespaces are deleted. Never
// moved (the fabric refers to `links`): it lives behind the unique_ptr start() returns.
struct RealTimeFabricBed {
  RealTimeFabricBed() = default;
  RealTimeFabricBed(const RealTimeFabricBed&) = delete;
  RealTimeFabricBed& operator=(const RealTimeFabricBed&) = delete;

  std::unique_ptr<FabricNamespaces> net;
  std::vector<std::vector<PcapLink>> links;
  std::unique_ptr<RealTimeFabric> fabric;

  // Errors name the step: the namespaces', the links', or the fabric's.
  static Expected<std::unique_ptr<RealTimeFabricBed>, std::string> start(
      const FabricConfig& config, const FabricNamespacesOptions& options = {});
};

}  // namespace mr::io::fabric
