#include "harness/dut/embedded/embedded_reference_dut.h"

#include <algorithm>
#include <memory>

#include "harness/dut/in_process_transport.h"

namespace mr::dut {
namespace {

agent::ReferenceBackendOptions backend_options(const EmbeddedDutOptions& o) {
  agent::ReferenceBackendOptions b;
  b.mac = o.mac;
  b.ipv4 = o.ipv4;
  if (o.ipv6) b.ipv6_global.push_back(*o.ipv6);
  b.seed = o.seed;
  b.mutants = o.mutants;
  b.decision_log = o.decision_log;
  return b;
}

}  // namespace

EmbeddedReferenceDut::EmbeddedReferenceDut(const EmbeddedDutOptions& options)
    : clock_(options.start_ns),
      pair_(clock_, options.link),
      backend_(pair_.b(), clock_, backend_options(options)),
      dispatcher_(backend_, "reference"),
      control_(std::make_unique<InProcessTransport>(dispatcher_)) {
  for (const auto& [ip, mac] : options.neighbors4) backend_.add_neighbor(ip, mac);
  for (const auto& [ip, mac] : options.neighbors6) backend_.add_neighbor(ip, mac);
}

std::optional<uint64_t> EmbeddedReferenceDut::next_event_ns() const {
  auto a = pair_.next_delivery_ns();
  auto b = backend_.next_deadline_ns();
  if (a && b) return std::min(*a, *b);
  return a ? a : b;
}

}  // namespace mr::dut
