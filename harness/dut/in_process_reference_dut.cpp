#include "harness/dut/in_process_reference_dut.h"

#include <algorithm>
#include <memory>

#include "harness/dut/in_process_transport.h"

namespace mr::dut {

InProcessReferenceDut::InProcessReferenceDut(InProcessDutOptions options)
    : clock_(options.start_ns),
      pair_(clock_, options.link),
      backend_(pair_.b(), clock_,
               {.mac = options.mac,
                .ipv4 = options.ipv4,
                .seed = options.seed,
                .mutants = options.mutants}),
      dispatcher_(backend_, "reference"),
      control_(std::make_unique<InProcessTransport>(dispatcher_)) {}

std::optional<uint64_t> InProcessReferenceDut::next_event_ns() const {
  auto a = pair_.next_delivery_ns();
  auto b = backend_.next_deadline_ns();
  if (a && b) return std::min(*a, *b);
  return a ? a : b;
}

}  // namespace mr::dut
