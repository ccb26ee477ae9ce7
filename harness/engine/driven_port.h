// File: driven_port.h
//
// The tester's reference QPs on the wire (DESIGN.md, "Roles on the wire"): a DutPort between
// the engine and the fault layer that runs the tester's ReferencePeer on the port's clock
// whenever time passes, so that its requests, ACKs and retransmissions go out as a correct
// implementation sends them, through the same fault events and impairment as crafted
// packets. With no tester QP it passes everything through untouched.
//
// Who sees a DUT frame addressed to a tester QP (a frame the peer "claims"):
//   receive()            a `>` line waiting: the frame is given to the peer and returned, so
//                        that an exact expectation can be interleaved with driven traffic;
//   receive_unclaimed()  the end-of-test quiet period: the peer takes it, the caller only
//                        sees the frames no tester QP explains;
//   wait_until(), run_until(), control(): the peer takes it; frames it does not claim are
//                        kept for the next receive. A control request is in flight while
//                        the peer runs (DutPort::send_control): on a real-clock bed its round
//                        trip takes milliseconds, in which the DUT's ACK timers run.
// Every frame the peer sends, and every claimed frame not returned, goes to `record`.
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "harness/engine/dut_port.h"
#include "harness/peer/reference_peer.h"

namespace mr::engine {

class DrivenPort final : public DutPort {
 public:
  using Recorder =
      std::function<void(const std::vector<uint8_t>& frame, uint64_t t_ns, bool from_tester)>;

  DrivenPort(DutPort& inner, Recorder record) : inner_(inner), record_(std::move(record)) {}

  // The tester's reference device, created on first use with this identity.
  peer::ReferencePeer& peer(const peer::PeerIdentity& identity);
  peer::ReferencePeer* peer() { return peer_.get(); }
  bool active() const { return peer_ != nullptr && !peer_->qps().empty(); }

  ControlReply control(nlohmann::json request) override;
  uint64_t inject(std::span<const uint8_t> frame) override { return inner_.inject(frame); }
  std::optional<DutFrame> receive(uint64_t deadline_ns) override {
    return next_frame(deadline_ns, true);
  }
  void wait_until(uint64_t t_ns) override;
  uint64_t now_ns() override { return inner_.now_ns(); }
  uint64_t capture_drops() override { return inner_.capture_drops(); }
  Expected<void, std::string> reset() override;

  std::optional<DutFrame> receive_unclaimed(uint64_t deadline_ns) {
    return next_frame(deadline_ns, false);
  }
  // Runs the peer until `done()` holds (tested after every frame and at the start) or the
  // deadline passes; true when done() held.
  bool run_until(uint64_t deadline_ns, const std::function<bool()>& done);

 private:
  struct Step {
    std::optional<DutFrame> frame;
    bool claimed = false;
  };
  // Lets the peer send what it may now, then waits for one DUT frame until the deadline or
  // the peer's next timer, whichever is first.
  Step step(uint64_t deadline_ns);
  // A step whose frame goes where a wait sends it (the peer's, recorded; else kept for the
  // next receive); false when no frame came.
  bool wait_step(uint64_t deadline_ns);
  bool claims(const std::vector<uint8_t>& frame) const;
  // One control request, the peer running until its reply has come.
  ControlReply round_trip(nlohmann::json request);
  // The next DUT frame by the deadline: a frame kept from a wait first; then, running the
  // peer, the next frame the DUT sends (`claimed_too`) or the next no tester QP claims.
  std::optional<DutFrame> next_frame(uint64_t deadline_ns, bool claimed_too);

  DutPort& inner_;
  Recorder record_;
  std::unique_ptr<peer::ReferencePeer> peer_;
  std::deque<DutFrame> unclaimed_;  // DUT frames that came while the peer ran, for `>` lines
};

}  // namespace mr::engine
