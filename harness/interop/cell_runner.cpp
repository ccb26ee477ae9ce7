#include "harness/interop/cell_runner.h"

#include <chrono>
#include <optional>

#include "harness/peer/data_pattern.h"

namespace mr::interop {
using peer::kGuardByte;
using peer::kGuardBytes;
using peer::pattern_bytes;
using peer::pattern_u64;
using peer::u64_bytes;
namespace {

constexpr uint64_t kRequesterWrId = 1;
constexpr uint64_t kResponderWrId = 2;
constexpr uint32_t kPollSliceMs = 20;

uint64_t now_ns() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

uint64_t data_length(const Cell& c) { return is_atomic(c.operation) ? kAtomicSize : c.size; }

// Guards on both sides, and room to align an atomic's word to 8 bytes.
uint64_t buffer_bytes(const Cell& c) { return 2 * kGuardBytes + data_length(c) + 8; }

// Where the data region starts in a peer's buffer: after the guard, 8-byte aligned.
uint64_t data_offset(const Peer& p) {
  const uint64_t off = kGuardBytes;
  return off + (8 - (p.buffer().va + off) % 8) % 8;
}

// The operands of an atomic cell, from the seed.
struct AtomicValues {
  uint64_t original;  // in the responder's word before
  uint64_t add;       // FETCH_ADD
  uint64_t swap;      // COMPARE_SWAP (compare = original, so it swaps)
  uint64_t after(Operation o) const { return o == Operation::kFetchAdd ? original + add : swap; }
};

AtomicValues atomic_values(uint64_t seed) {
  return {pattern_u64(seed, 10), pattern_u64(seed, 11), pattern_u64(seed, 12)};
}

std::string hex_byte(uint8_t b) {
  static constexpr char kDigits[] = "0123456789abcdef";
  return {'0', 'x', kDigits[b >> 4], kDigits[b & 15]};
}

// "responder memory +17: 0x00, expected 0x5c (12 of 4096 bytes differ)", or nothing.
std::optional<std::string> compare(const std::string& what, const std::vector<uint8_t>& actual,
                                   const std::vector<uint8_t>& expected) {
  if (actual.size() != expected.size()) {
    return what + ": read " + std::to_string(actual.size()) + " bytes, expected " +
           std::to_string(expected.size());
  }
  size_t first = actual.size();
  size_t differ = 0;
  for (size_t i = 0; i < actual.size(); ++i) {
    if (actual[i] == expected[i]) continue;
    if (differ++ == 0) first = i;
  }
  if (differ == 0) return std::nullopt;
  return what + " +" + std::to_string(first) + ": " + hex_byte(actual[first]) + ", expected " +
         hex_byte(expected[first]) + " (" + std::to_string(differ) + " of " +
         std::to_string(actual.size()) + " bytes differ)";
}

class CellRun {
 public:
  CellRun(const Cell& cell, const CellSides& sides, uint64_t seed)
      : cell_(cell),
        sides_(sides),
        seed_(seed),
        req_(cell.direction == Direction::kReferenceToDut ? sides.reference : sides.dut),
        resp_(cell.direction == Direction::kReferenceToDut ? sides.dut : sides.reference) {}

  CellOutcome run() {
    if (auto ok = prepare(); !ok) {
      fail(ok.error());
    } else if (auto posted = post(); !posted) {
      fail(posted.error());
    } else {
      wait();
      check_completions();
      check_memory();
    }
    if (auto down = req_.teardown(); !down) fail(down.error());
    if (auto down = resp_.teardown(); !down) fail(down.error());
    return std::move(out_);
  }

 private:
  void fail(std::string what) { out_.failures.push_back(std::move(what)); }
  bool req_is_reference() const { return cell_.direction == Direction::kReferenceToDut; }

  Result<void> prepare() {
    if (auto ok = req_.setup(buffer_bytes(cell_)); !ok) return ok;
    if (auto ok = resp_.setup(buffer_bytes(cell_)); !ok) return ok;
    out_.requester_psn = static_cast<uint32_t>(pattern_u64(seed_, 1) & 0xffffff);
    out_.responder_psn = static_cast<uint32_t>(pattern_u64(seed_, 2) & 0xffffff);
    const Identity& req_id = req_is_reference() ? sides_.reference_id : sides_.dut_id;
    const Identity& resp_id = req_is_reference() ? sides_.dut_id : sides_.reference_id;
    const uint8_t req_retry =
        req_is_reference() ? sides_.reference_retry_cnt : sides_.dut_retry_cnt;
    const uint8_t resp_retry =
        req_is_reference() ? sides_.dut_retry_cnt : sides_.reference_retry_cnt;
    if (auto ok = req_.connect({.remote_qpn = resp_.qpn(),
                                .remote_psn = out_.responder_psn,
                                .local_psn = out_.requester_psn,
                                .mtu = cell_.mtu,
                                .remote_ip = resp_id.ip,
                                .remote_mac = resp_id.mac,
                                .retry_cnt = req_retry});
        !ok) {
      return ok;
    }
    if (auto ok = resp_.connect({.remote_qpn = req_.qpn(),
                                 .remote_psn = out_.requester_psn,
                                 .local_psn = out_.responder_psn,
                                 .mtu = cell_.mtu,
                                 .remote_ip = req_id.ip,
                                 .remote_mac = req_id.mac,
                                 .retry_cnt = resp_retry});
        !ok) {
      return ok;
    }
    return seed_memory();
  }

  // Guards around both data regions; the source's data (the requester's for SEND and
  // WRITE, the responder's for READ and atomics). Destinations stay zero-filled.
  Result<void> seed_memory() {
    const std::vector<uint8_t> guard(kGuardBytes, kGuardByte);
    const uint64_t n = data_length(cell_);
    for (Peer* p : {&req_, &resp_}) {
      const uint64_t off = data_offset(*p);
      if (auto ok = p->write(off - kGuardBytes, guard); !ok) return ok;
      if (auto ok = p->write(off + n, guard); !ok) return ok;
    }
    switch (cell_.operation) {
      case Operation::kSend:
      case Operation::kWrite:
        return n == 0 ? Result<void>{} : req_.write(data_offset(req_), pattern_bytes(seed_, n));
      case Operation::kRead:
        return n == 0 ? Result<void>{} : resp_.write(data_offset(resp_), pattern_bytes(seed_, n));
      case Operation::kFetchAdd:
      case Operation::kCompareSwap:
        // The requester's landing word is guard-filled, so "nothing came back" shows.
        if (auto ok = req_.write(data_offset(req_), std::vector<uint8_t>(8, kGuardByte)); !ok) {
          return ok;
        }
        return resp_.write(data_offset(resp_), u64_bytes(atomic_values(seed_).original));
    }
    return {};
  }

  Result<void> post() {
    const auto n = static_cast<uint32_t>(data_length(cell_));
    if (cell_.operation == Operation::kSend) {
      if (auto ok = resp_.post_recv(kResponderWrId, data_offset(resp_), n); !ok) return ok;
    }
    transport::SendWr wr;
    wr.wr_id = kRequesterWrId;
    if (n > 0) {
      wr.sg_list.push_back(
          {.addr = req_.buffer().va + data_offset(req_), .length = n, .lkey = req_.buffer().lkey});
    }
    wr.remote_addr = resp_.buffer().va + data_offset(resp_);
    wr.rkey = resp_.buffer().rkey;
    const AtomicValues v = atomic_values(seed_);
    switch (cell_.operation) {
      case Operation::kSend:
        wr.opcode = transport::SendOpcode::kSend;
        break;
      case Operation::kWrite:
        wr.opcode = transport::SendOpcode::kWrite;
        break;
      case Operation::kRead:
        wr.opcode = transport::SendOpcode::kRead;
        break;
      case Operation::kFetchAdd:
        wr.opcode = transport::SendOpcode::kFetchAdd;
        wr.compare_add = v.add;
        break;
      case Operation::kCompareSwap:
        wr.opcode = transport::SendOpcode::kCompareSwap;
        wr.compare_add = v.original;
        wr.swap = v.swap;
        break;
    }
    posted_ns_ = now_ns();
    return req_.post_send(wr);
  }

  // Until the requester's completion (and the responder's RECV for SEND) or the deadline.
  void wait() {
    const bool expect_recv = cell_.operation == Operation::kSend;
    const uint64_t deadline = posted_ns_ + cell_deadline_ms(cell_) * 1'000'000;
    auto take = [&](Peer& p, uint32_t timeout_ms, std::vector<CompletionRecord>& into) {
      auto got = p.poll(timeout_ms);
      if (!got) {
        fail(got.error());
        return false;
      }
      if (!got->empty()) out_.duration_ns = now_ns() - posted_ns_;
      into.insert(into.end(), got->begin(), got->end());
      return true;
    };
    while (out_.requester_completions.empty() ||
           (expect_recv && out_.responder_completions.empty())) {
      if (now_ns() >= deadline) {
        fail(
            "timed out after " + std::to_string(cell_deadline_ms(cell_)) +
            " ms: " + (out_.requester_completions.empty() ? "no requester completion" : "") +
            (out_.requester_completions.empty() && expect_recv && out_.responder_completions.empty()
                 ? ", "
                 : "") +
            (expect_recv && out_.responder_completions.empty() ? "no responder RECV" : ""));
        return;
      }
      const bool req_waiting = out_.requester_completions.empty();
      if (!take(req_, req_waiting ? kPollSliceMs : 0, out_.requester_completions)) return;
      if (!take(resp_, req_waiting ? 0 : kPollSliceMs, out_.responder_completions)) return;
    }
    // Anything more (a duplicate completion, a RECV for a WRITE) is a failure too.
    const uint64_t last = out_.duration_ns;
    if (!take(req_, 0, out_.requester_completions)) return;
    if (!take(resp_, 0, out_.responder_completions)) return;
    out_.duration_ns = last;
  }

  static std::string_view expected_opcode(Operation o) {
    switch (o) {
      case Operation::kSend:
        return "SEND";
      case Operation::kWrite:
        return "RDMA_WRITE";
      case Operation::kRead:
        return "RDMA_READ";
      case Operation::kFetchAdd:
        return "FETCH_ADD";
      case Operation::kCompareSwap:
        return "COMP_SWAP";
    }
    return "";
  }

  void check_one(const std::string& side, const CompletionRecord& c, uint64_t wr_id,
                 std::string_view opcode, std::optional<uint32_t> byte_len) {
    if (c.status != "SUCCESS")
      fail(side + " completion: status " + c.status + ", expected SUCCESS");
    if (c.opcode != opcode) {
      fail(side + " completion: opcode " + c.opcode + ", expected " + std::string(opcode));
    }
    if (c.wr_id != wr_id) {
      fail(side + " completion: wr_id " + std::to_string(c.wr_id) + ", expected " +
           std::to_string(wr_id));
    }
    // byte_len is defined for receives, READ and atomics; verbs leaves it open for the rest.
    if (byte_len && c.status == "SUCCESS" && c.byte_len != *byte_len) {
      fail(side + " completion: byte_len " + std::to_string(c.byte_len) + ", expected " +
           std::to_string(*byte_len));
    }
  }

  void check_completions() {
    const auto n = static_cast<uint32_t>(data_length(cell_));
    const auto& rq = out_.requester_completions;
    const auto& rs = out_.responder_completions;
    if (rq.size() > 1) fail("requester: " + std::to_string(rq.size()) + " completions, expected 1");
    if (!rq.empty()) {
      const bool judged = cell_.operation == Operation::kRead || is_atomic(cell_.operation);
      check_one("requester", rq.front(), kRequesterWrId, expected_opcode(cell_.operation),
                judged ? std::optional<uint32_t>(n) : std::nullopt);
    }
    const size_t expected_rs = cell_.operation == Operation::kSend ? 1 : 0;
    if (rs.size() > expected_rs) {
      fail("responder: " + std::to_string(rs.size()) + " completions, expected " +
           std::to_string(expected_rs) + " (first: " + rs.front().opcode + " " + rs.front().status +
           ")");
    }
    if (expected_rs == 1 && !rs.empty())
      check_one("responder", rs.front(), kResponderWrId, "RECV", n);
  }

  // Reads guard + data + guard and compares it with what must be there.
  void check_region(const std::string& what, Peer& p, const std::vector<uint8_t>& data) {
    const uint64_t off = data_offset(p);
    auto got = p.read(off - kGuardBytes, 2 * kGuardBytes + data.size());
    if (!got) {
      fail(got.error());
      return;
    }
    std::vector<uint8_t> expected(kGuardBytes, kGuardByte);
    expected.insert(expected.end(), data.begin(), data.end());
    expected.insert(expected.end(), kGuardBytes, kGuardByte);
    if (auto diff =
            compare(what + " (guard " + std::to_string(kGuardBytes) + " + data)", *got, expected)) {
      fail(*diff);
    }
  }

  void check_memory() {
    const uint64_t n = data_length(cell_);
    const std::string dut = "(" + sides_.dut_name + ")";
    const std::string req_name = "requester " + (req_is_reference() ? "(reference)" : dut);
    const std::string resp_name = "responder " + (req_is_reference() ? dut : "(reference)");
    const AtomicValues v = atomic_values(seed_);
    switch (cell_.operation) {
      case Operation::kSend:
      case Operation::kWrite:
        check_region(resp_name + " memory", resp_, pattern_bytes(seed_, n));
        break;
      case Operation::kRead:
        check_region(req_name + " memory", req_, pattern_bytes(seed_, n));
        break;
      case Operation::kFetchAdd:
      case Operation::kCompareSwap:
        check_region(req_name + " returned original value", req_, u64_bytes(v.original));
        check_region(resp_name + " atomic word", resp_, u64_bytes(v.after(cell_.operation)));
        break;
    }
  }

  const Cell& cell_;
  const CellSides& sides_;
  uint64_t seed_;
  Peer& req_;
  Peer& resp_;
  uint64_t posted_ns_ = 0;
  CellOutcome out_;
};

}  // namespace

uint64_t cell_deadline_ms(const Cell& cell) {
  return 30'000 + uint64_t{60'000} * cell.size / (1U << 20);
}

CellOutcome run_cell(const Cell& cell, const CellSides& sides, uint64_t seed) {
  return CellRun(cell, sides, seed).run();
}

}  // namespace mr::interop
