// Two reference devices as the integration test asks, over a real wire: each behind a
// Node on its own end of a veth pair between two network namespaces the test creates, with
// seeded loss, reordering, duplication and corruption applied on the receive side of each
// node. Every opcode family (SEND, SEND with immediate, WRITE, WRITE with immediate, READ,
// COMPARE_SWAP, FETCH_ADD), every size of {0, 1, 4095, 4096, 4097, 64 KiB, 1 MiB, 16 MiB},
// every path MTU, each message's PSNs crossing 2^24: the target memory must hold exactly
// what was sent (atomics executed once, duplicates not replayed into memory) and each side
// must see exactly the completions the work request asks for.
//
// CI runs a subset that still covers every size, MTU, opcode and impairment at least once;
// METAROCE_VETH_MATRIX=full runs the cross product (see docs/performance.md for its time),
// in an optimised build: unoptimised, a 16 MiB READ at a small MTU is built and taken in
// more slowly than the 268 ms ACK timer allows, so it is asked for again until the retry
// budget runs out (22 of 1,260 cells in one unoptimised run, seed 1: 21 READs of 16 MiB at
// MTU 256 to 2048 and one of 1 MiB at MTU 256).
//   bazel test -c opt //reference/io:veth_bulk_matrix_test
//     --test_env=METAROCE_VETH_MATRIX=full --test_timeout=3600  (one command line)
// The seed is printed; METAROCE_SEED=N (--test_env) replays its impairment decisions (the
// wire's timing is real, so a replay repeats the faults, not the exact interleaving).
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "reference/io/clock.h"
#include "reference/io/command.h"
#include "reference/io/impaired_link.h"
#include "reference/io/namespaced_pcap_link.h"
#include "reference/io/node.h"
#include "reference/io/veth_bulk_cell.h"
#include "reference/io/veth_pair.h"
#include "reference/transport/device.h"
#include "reference/wire/frame_decoder.h"
#include "reference/wire/psn.h"

namespace mr::io {
namespace {

using transport::Completion;
using transport::Device;
using transport::QpAttributes;
using transport::QpState;
using transport::SendOpcode;
using transport::WcOpcode;
using transport::WcStatus;

#define SKIP_UNLESS_ROOT()                                                       \
  if (geteuid() != 0) GTEST_SKIP() << "needs root to create network namespaces"; \
  if (!run_command({"ip", "netns", "list"})) GTEST_SKIP() << "no usable `ip netns` here"

constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr uint64_t kMaxMessage = 16 * kMiB;
// IPv4 + UDP + BTH + RETH + ImmDt + 4096 payload + ICRC is 4,160 bytes: the veth's MTU.
constexpr unsigned kVethMtu = 4200;
constexpr uint32_t kAllRemote =
    memory::kLocalWrite | memory::kRemoteWrite | memory::kRemoteRead | memory::kRemoteAtomic;
// A's region: the source of WRITE/SEND at 0, READ's destination after it, the atomic's
// returned value after that. B's: the target at 0, the atomic's operand after it.
constexpr uint64_t kReadDestination = kMaxMessage;
constexpr uint64_t kAtomicResult = 2 * kMaxMessage;
constexpr uint64_t kAtomicTarget = kMaxMessage;
constexpr size_t kBurst = 64;  // frames a side puts on the wire per turn
// The wire's buffer, like a switch port's: frames a side sends beyond it are tail-dropped
// (counted). Without a bound, a READ response (the responder sends all of it at once) and
// then the rest of it again for every reissued READ queue up behind each other, and a
// reissue's answer waits longer than the ACK timer, which reissues again: no progress.
constexpr size_t kWireQueue = 2048;
// The local ACK timeout, 4.096 us x 2^16 = 268 ms: above the time a full wire queue takes
// to drain into an unoptimised or sanitizer build on a shared 2-core machine.
constexpr uint8_t kAckTimeout = 16;

uint64_t seed_from_environment() {
  const char* s = std::getenv("METAROCE_SEED");
  if (s == nullptr || *s == '\0') return 1;
  char* end = nullptr;
  const uint64_t v = std::strtoull(s, &end, 10);
  return end != nullptr && *end == '\0' ? v : 1;
}

// One side: a reference device, its pcap link on its end of the veth, one region.
struct Side {
  std::unique_ptr<Device> dev;
  std::optional<PcapLink> pcap;
  uint32_t pd = 0;
  uint32_t cq = 0;
  memory::MrInfo mr;
  std::deque<std::vector<uint8_t>> pending;  // sent by the device, not yet on the wire
  uint64_t queue_drops = 0;                  // frames beyond kWireQueue
};

// What one cell set up: its QPs, and each side's faulty receive path and Node.
struct CellWire {
  uint32_t qpn_a = 0;
  uint32_t qpn_b = 0;
  std::unique_ptr<ImpairedLink> link_a;
  std::unique_ptr<ImpairedLink> link_b;
  std::unique_ptr<Node> node_a;
  std::unique_ptr<Node> node_b;
};

// What the wire brought: whether each side completed in time, and every completion seen
// up to the end of the quiet period after it.
struct CellOutcome {
  bool finished = false;
  std::vector<Completion> at_a;
  std::vector<Completion> at_b;
};

class VethBulkMatrix : public ::testing::Test {
 protected:
  void SetUp() override {
    SKIP_UNLESS_ROOT();
    seed_ = seed_from_environment();
    auto veth = VethPair::create({.mtu = kVethMtu, .kernel_ipv6 = false});
    ASSERT_TRUE(veth) << veth.error();
    veth_.emplace(std::move(*veth));
    const std::pair<const char*, int> ends[] = {{VethPair::kInterfaceA, 1},
                                                {VethPair::kInterfaceB, 2}};
    for (auto [interface, host] : ends) {
      Side& s = host == 1 ? a_ : b_;
      // A READ's responder sends its whole response at once (up to 4,096 frames of 4 KiB):
      // a ring that holds it keeps capture loss out of the seeded faults.
      auto link = open_pcap_link_in(host == 1 ? veth_->a() : veth_->b(), interface,
                                    {.buffer_bytes = 64 << 20, .snap_length = kVethMtu + 18});
      ASSERT_TRUE(link) << link.error();
      s.pcap.emplace(std::move(*link));
      transport::DeviceConfig c;
      c.mac = wire::MacAddress{{0x02, 0, 0, 0, 0, static_cast<uint8_t>(0x0a + host - 1)}};
      c.ip = wire::Ipv4Address{{198, 18, 0, static_cast<uint8_t>(host)}};
      c.seed = seed_ * 2 + static_cast<uint64_t>(host);
      s.dev = std::make_unique<Device>(c);
      s.pd = *s.dev->memory().alloc_pd();
      s.cq = *s.dev->create_cq(1024);
      const uint64_t size = host == 1 ? 2 * kMaxMessage + 4096 : kMaxMessage + 4096;
      auto mr = s.dev->memory().reg_mr(s.pd, size, kAllRemote);
      ASSERT_TRUE(mr) << mr.error();
      s.mr = *mr;
    }
  }

  void TearDown() override {
    a_ = {};
    b_ = {};
    veth_.reset();
    EXPECT_TRUE(no_namespaces_left_by_this_process());
  }

  // Creates and connects one QP on each side, PSNs placed so the message crosses 2^24.
  void connect(const VethBulkCell& cell, uint32_t start_psn, CellWire& w) {
    transport::QpInitAttributes init;
    for (Side* s : {&a_, &b_}) {
      init.pd = s->pd;
      init.send_cq = init.recv_cq = s->cq;
      auto qpn = s->dev->create_qp(init);
      ASSERT_TRUE(qpn) << qpn.error().message;
      (s == &a_ ? w.qpn_a : w.qpn_b) = *qpn;
    }
    const uint32_t peer_start = wire::psn_add(start_psn, 0x1234);
    for (Side* s : {&a_, &b_}) {
      const bool is_a = s == &a_;
      const Side& peer = is_a ? b_ : a_;
      const uint32_t qpn = is_a ? w.qpn_a : w.qpn_b;
      QpAttributes attr;
      attr.state = QpState::kInit;
      attr.access_flags =
          transport::kQpRemoteWrite | transport::kQpRemoteRead | transport::kQpRemoteAtomic;
      ASSERT_TRUE(s->dev->modify_qp(
          qpn, attr, transport::kAttrState | transport::kAttrPkey | transport::kAttrAccessFlags));
      attr.state = QpState::kRtr;
      attr.path_mtu = cell.mtu;
      attr.av.smac = s->dev->config().mac;
      attr.av.dmac = peer.dev->config().mac;
      attr.av.sip = s->dev->config().ip;
      attr.av.dip = peer.dev->config().ip;
      attr.av.udp_sport = 0xc000 + (qpn & 0x3fff);
      attr.dest_qpn = is_a ? w.qpn_b : w.qpn_a;
      attr.rq_psn = is_a ? peer_start : start_psn;
      attr.max_dest_rd_atomic = 16;
      attr.min_rnr_timer = 1;
      ASSERT_TRUE(s->dev->modify_qp(qpn, attr,
                                    transport::kAttrState | transport::kAttrPathMtu |
                                        transport::kAttrAddress | transport::kAttrDestQpn |
                                        transport::kAttrRqPsn | transport::kAttrMaxDestRdAtomic |
                                        transport::kAttrMinRnrTimer));
      attr.state = QpState::kRts;
      attr.sq_psn = is_a ? start_psn : peer_start;
      attr.timeout = kAckTimeout;
      attr.retry_cnt = 7;
      attr.rnr_retry = 7;
      attr.max_rd_atomic = 16;
      ASSERT_TRUE(s->dev->modify_qp(qpn, attr,
                                    transport::kAttrState | transport::kAttrSqPsn |
                                        transport::kAttrTimeout | transport::kAttrRetryCnt |
                                        transport::kAttrRnrRetry | transport::kAttrMaxRdAtomic));
    }
  }

  // The faulty receive path of one side for one cell: the policy's random rates, and the
  // fault forced on the first frame addressed to the cell's QP (earlier frames may be
  // stale retransmissions of the previous cell).
  std::unique_ptr<ImpairedLink> impaired(Side& s, const VethBulkCell& cell, uint64_t policy_seed,
                                         uint32_t qpn) {
    ImpairmentPolicy receive(policy_seed, rates(cell.fault, cell.packets()));
    if (auto forced = forced_action(cell.fault)) {
      auto fired = std::make_shared<bool>(false);
      receive.set_override([fired, qpn, action = *forced](
                               const Frame& f, uint64_t) -> std::optional<ImpairmentAction> {
        if (*fired) return std::nullopt;
        auto d = wire::decode_frame(f.bytes);
        const auto* roce = d ? std::get_if<wire::DecodedRoce>(&*d) : nullptr;
        if (roce == nullptr || roce->packet.bth.dqpn != qpn) return std::nullopt;
        *fired = true;
        return action;
      });
    }
    return std::make_unique<ImpairedLink>(*s.pcap, clock_, ImpairmentPolicy(0), std::move(receive));
  }

  // Runs both devices over the wire until done() or max_ns of wall time. One thread drives
  // both sides, so nothing here needs a lock.
  bool drive(CellWire& w, const std::function<bool()>& done, uint64_t max_ns) {
    const uint64_t deadline = clock_.now_ns() + max_ns;
    for (uint64_t step = 0; step < 100'000'000 && clock_.now_ns() < deadline; ++step) {
      size_t moved = 0;
      for (auto [side, node] : {std::pair{&a_, w.node_a.get()}, std::pair{&b_, w.node_b.get()}}) {
        side->dev->advance(clock_.now_ns());
        for (auto& f : side->dev->take_outbox()) {
          if (side->pending.size() < kWireQueue) {
            side->pending.push_back(std::move(f));
          } else {
            ++side->queue_drops;
          }
        }
        // The wire's pace: a burst per turn, then the peer takes its frames in (a READ's
        // responder hands over a whole 16 MiB response at once, more than a ring holds).
        for (size_t i = 0; i < kBurst && !side->pending.empty(); ++i, ++moved) {
          node->send(std::move(side->pending.front()));
          side->pending.pop_front();
        }
        moved += node->poll(4 * kBurst, 0);
      }
      if (done()) return true;
      if (moved == 0) {
        // Idle: wait briefly for the wire (a held or delayed frame, a timer) on each side.
        w.node_a->poll(64, 50'000);
        w.node_b->poll(64, 50'000);
      }
    }
    return done();
  }

  void drain_wire() {
    std::vector<Frame> burst(64);
    for (Side* s : {&a_, &b_}) {
      for (int i = 0; i < 1000 && s->pcap->receive_burst(burst, 0) > 0; ++i) {
      }
    }
  }

  std::vector<Completion> poll_all(Side& s) {
    std::vector<Completion> out;
    for (int i = 0; i < 100; ++i) {
      auto c = s.dev->poll_cq(s.cq, 1024);
      if (!c || c->empty()) break;
      out.insert(out.end(), c->begin(), c->end());
    }
    return out;
  }

  // One cell, step by step; a failed step ends the cell (the test goes on to the next).
  void run_cell(const VethBulkCell& cell, size_t index);
  void reset_wire();
  void open_wire(const VethBulkCell& cell, uint64_t cell_seed, CellWire& w);
  std::unique_ptr<Node> node_for(Side& s, ImpairedLink& link);
  void write_cell_data(const VethBulkCellData& data);
  transport::SendWr request_for(const VethBulkCell& cell, size_t index, uint64_t operand) const;
  void post_request(const VethBulkCell& cell, const transport::SendWr& wr, const CellWire& w);
  CellOutcome exchange(const VethBulkCell& cell, CellWire& w);
  std::string device_counters() const;
  void check_completions(const VethBulkCell& cell, const transport::SendWr& wr, const CellWire& w,
                         const CellOutcome& got);
  void check_memory(const VethBulkCell& cell, const VethBulkCellData& data);
  void check_psns(const VethBulkCell& cell, uint32_t start_psn, const CellWire& w);
  void report(const std::string& name, double ms, const ImpairmentCounters& got_a,
              const ImpairmentCounters& got_b) const;
  void close_cell(CellWire& w);

  uint64_t seed_ = 1;
  SystemClock clock_;
  std::optional<VethPair> veth_;
  Side a_;
  Side b_;
  ImpairmentCounters seen_a_;
  ImpairmentCounters seen_b_;
};

void add(ImpairmentCounters& total, const ImpairmentCounters& c) {
  total.frames += c.frames;
  for (size_t i = 0; i < kImpairmentActionCount; ++i) total.actions[i] += c.actions[i];
}

void VethBulkMatrix::run_cell(const VethBulkCell& cell, size_t index) {
  const std::string name = cell.name();
  SCOPED_TRACE(name + " (seed " + std::to_string(seed_) + ")");
  const auto started = std::chrono::steady_clock::now();
  const uint64_t cell_seed = seed_ * 1'000'003 + index;
  reset_wire();
  CellWire w;
  // Half the message's PSNs before 2^24, half after (one-packet messages take 0xffffff).
  const uint32_t start_psn = wire::psn_add(0, -int64_t{(cell.packets() + 1) / 2});
  ASSERT_NO_FATAL_FAILURE(connect(cell, start_psn, w));
  open_wire(cell, cell_seed, w);
  const VethBulkCellData data = cell_data(cell, cell_seed);
  ASSERT_NO_FATAL_FAILURE(write_cell_data(data));
  const transport::SendWr wr = request_for(cell, index, data.operand);
  ASSERT_NO_FATAL_FAILURE(post_request(cell, wr, w));
  const CellOutcome got = exchange(cell, w);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();

  EXPECT_TRUE(got.finished) << "no completion within 180 s";
  SCOPED_TRACE(device_counters());
  ASSERT_NO_FATAL_FAILURE(check_completions(cell, wr, w, got));
  check_memory(cell, data);
  ASSERT_NO_FATAL_FAILURE(check_psns(cell, start_psn, w));
  const ImpairmentCounters got_a = w.link_a->counters(LinkDirection::kReceive);
  const ImpairmentCounters got_b = w.link_b->counters(LinkDirection::kReceive);
  if (auto forced = forced_action(cell.fault)) {
    EXPECT_GE(got_b.count(*forced), 1U) << "the responder's side met the fault";
    EXPECT_GE(got_a.count(*forced), 1U) << "the requester's side met the fault";
  }
  add(seen_a_, got_a);
  add(seen_b_, got_b);
  report(name, ms, got_a, got_b);
  close_cell(w);
}

// What the previous cell left on the wire or in a side's queue is not this cell's.
void VethBulkMatrix::reset_wire() {
  drain_wire();
  a_.pending.clear();
  b_.pending.clear();
  a_.queue_drops = b_.queue_drops = 0;
}

// Each side's faulty receive path and the Node on it, which hands RoCE frames to its device.
void VethBulkMatrix::open_wire(const VethBulkCell& cell, uint64_t cell_seed, CellWire& w) {
  w.link_a = impaired(a_, cell, cell_seed * 2, w.qpn_a);
  w.link_b = impaired(b_, cell, cell_seed * 2 + 1, w.qpn_b);
  w.node_a = node_for(a_, *w.link_a);
  w.node_b = node_for(b_, *w.link_b);
}

std::unique_ptr<Node> VethBulkMatrix::node_for(Side& s, ImpairedLink& link) {
  auto node =
      std::make_unique<Node>(link, clock_,
                             NodeConfig{.mac = s.dev->config().mac,
                                        .ipv4 = std::get<wire::Ipv4Address>(s.dev->config().ip)});
  node->set_roce_handler(
      [this, &s](std::span<const uint8_t> f, uint64_t) { s.dev->receive(f, clock_.now_ns()); });
  return node;
}

void VethBulkMatrix::write_cell_data(const VethBulkCellData& data) {
  ASSERT_TRUE(a_.dev->memory().write(a_.mr.lkey, a_.mr.va, data.source));
  ASSERT_TRUE(b_.dev->memory().write(b_.mr.lkey, b_.mr.va, data.target_before));
  ASSERT_TRUE(
      a_.dev->memory().write(a_.mr.lkey, a_.mr.va + kReadDestination, data.read_destination));
  std::vector<uint8_t> operand_bytes(8);
  std::memcpy(operand_bytes.data(), &data.operand, 8);
  ASSERT_TRUE(b_.dev->memory().write(b_.mr.lkey, b_.mr.va + kAtomicTarget, operand_bytes));
}

// The cell's one work request at A, towards B's region: a READ lands at A's READ
// destination, an atomic's result after it; the rest send A's source.
transport::SendWr VethBulkMatrix::request_for(const VethBulkCell& cell, size_t index,
                                              uint64_t operand) const {
  transport::SendWr wr;
  wr.wr_id = 1000 + index;
  wr.opcode = cell.op;
  wr.imm_data = 0x5eed0000U + static_cast<uint32_t>(index);
  wr.rkey = b_.mr.rkey;
  wr.remote_addr = b_.mr.va;
  if (cell.op == SendOpcode::kRead) {
    wr.sg_list = {{a_.mr.va + kReadDestination, cell.length, a_.mr.lkey}};
  } else if (is_atomic(cell.op)) {
    wr.sg_list = {{a_.mr.va + kAtomicResult, 8, a_.mr.lkey}};
    wr.remote_addr = b_.mr.va + kAtomicTarget;
    wr.compare_add = cell.op == SendOpcode::kCompareSwap ? operand : 0x1111;
    wr.swap = 0xabcdef;
  } else {
    wr.sg_list = {{a_.mr.va, cell.length, a_.mr.lkey}};
  }
  return wr;
}

void VethBulkMatrix::post_request(const VethBulkCell& cell, const transport::SendWr& wr,
                                  const CellWire& w) {
  if (cell.receives()) {
    ASSERT_TRUE(b_.dev->post_recv(
        w.qpn_b, transport::RecvWr{77, {transport::Sge{b_.mr.va, kMaxMessage, b_.mr.lkey}}}));
  }
  auto posted = a_.dev->post_send(w.qpn_a, wr);
  ASSERT_TRUE(posted) << posted.error().message;
}

// Drives the wire until A and, if the request consumes a receive, B have completed; then a
// quiet period, in which late duplicates and retransmissions must not complete anything again.
CellOutcome VethBulkMatrix::exchange(const VethBulkCell& cell, CellWire& w) {
  CellOutcome got;
  const size_t want_b = cell.receives() ? 1 : 0;
  auto collect = [&] {
    for (auto& c : poll_all(a_)) got.at_a.push_back(c);
    for (auto& c : poll_all(b_)) got.at_b.push_back(c);
  };
  got.finished = drive(
      w,
      [&] {
        collect();
        return !got.at_a.empty() && got.at_b.size() >= want_b;
      },
      180'000'000'000ULL);
  drive(
      w, [] { return false; }, 30'000'000);
  collect();
  return got;
}

std::string VethBulkMatrix::device_counters() const {
  const transport::DeviceCounters& ka = a_.dev->counters();
  const transport::DeviceCounters& kb = b_.dev->counters();
  return "device counters (cumulative): A sent " + std::to_string(ka.sent_pkts) + " received " +
         std::to_string(ka.rcvd_pkts) + " retries " + std::to_string(ka.completer_retry_err) +
         " retry-exceeded " + std::to_string(ka.retry_exceeded_err) + " icrc errors " +
         std::to_string(ka.icrc_errors) + "; B sent " + std::to_string(kb.sent_pkts) +
         " received " + std::to_string(kb.rcvd_pkts) + " duplicates " +
         std::to_string(kb.duplicate_request) + " out of sequence " +
         std::to_string(kb.out_of_seq_request) + " icrc errors " + std::to_string(kb.icrc_errors);
}

// Exactly the completions the work request asks for: one at A, and one at B when the
// request consumed a receive.
void VethBulkMatrix::check_completions(const VethBulkCell& cell, const transport::SendWr& wr,
                                       const CellWire& w, const CellOutcome& got) {
  ASSERT_EQ(got.at_a.size(), 1U) << "requester completions";
  const Completion& ca = got.at_a[0];
  EXPECT_EQ(ca.status, WcStatus::kSuccess) << transport::to_string(ca.status);
  EXPECT_EQ(ca.wr_id, wr.wr_id);
  EXPECT_EQ(ca.qp_num, w.qpn_a);
  EXPECT_EQ(ca.opcode, cell.requester_opcode()) << transport::to_string(ca.opcode);
  EXPECT_EQ(ca.byte_len, is_atomic(cell.op) ? 8U : cell.length);
  ASSERT_EQ(got.at_b.size(), cell.receives() ? 1U : 0U) << "responder completions";
  if (!cell.receives()) return;
  const Completion& cb = got.at_b[0];
  EXPECT_EQ(cb.status, WcStatus::kSuccess) << transport::to_string(cb.status);
  EXPECT_EQ(cb.wr_id, 77U);
  EXPECT_EQ(cb.qp_num, w.qpn_b);
  EXPECT_EQ(cb.byte_len, cell.length);
  EXPECT_EQ(cb.opcode,
            cell.op == SendOpcode::kWriteWithImm ? WcOpcode::kRecvRdmaWithImm : WcOpcode::kRecv);
  if (cell.op == SendOpcode::kSend) {
    EXPECT_FALSE(cb.imm_data.has_value());
  } else {
    EXPECT_EQ(cb.imm_data, wr.imm_data);
  }
}

// The target memory holds exactly what was sent; an atomic executed exactly once.
void VethBulkMatrix::check_memory(const VethBulkCell& cell, const VethBulkCellData& data) {
  if (cell.op == SendOpcode::kRead) {
    EXPECT_TRUE(*a_.dev->memory().read(a_.mr.lkey, a_.mr.va + kReadDestination, cell.length) ==
                data.target_before)
        << "READ data differs";
  } else if (is_atomic(cell.op)) {
    uint64_t returned = 0;
    uint64_t after = 0;
    std::memcpy(&returned, a_.dev->memory().read(a_.mr.lkey, a_.mr.va + kAtomicResult, 8)->data(),
                8);
    std::memcpy(&after, b_.dev->memory().read(b_.mr.lkey, b_.mr.va + kAtomicTarget, 8)->data(), 8);
    EXPECT_EQ(returned, data.operand) << "the atomic returns the original value";
    EXPECT_EQ(after, cell.op == SendOpcode::kCompareSwap ? 0xabcdefU : data.operand + 0x1111)
        << "executed exactly once";
  } else {
    EXPECT_TRUE(*b_.dev->memory().read(b_.mr.lkey, b_.mr.va, cell.length) == data.source)
        << "target memory differs from the source";
  }
}

// The message's PSNs crossed 2^24 (or it took PSN 0xffffff) and used exactly its packets.
void VethBulkMatrix::check_psns(const VethBulkCell& cell, uint32_t start_psn, const CellWire& w) {
  const transport::QueuePair* qp = a_.dev->qp(w.qpn_a);
  ASSERT_NE(qp, nullptr);
  EXPECT_EQ(qp->next_psn, wire::psn_add(start_psn, cell.packets()));
}

void VethBulkMatrix::report(const std::string& name, double ms, const ImpairmentCounters& got_a,
                            const ImpairmentCounters& got_b) const {
  std::cout << name << ": " << static_cast<uint64_t>(ms) << " ms, frames into B " << got_b.frames
            << " into A " << got_a.frames << ", faults B/A drop "
            << got_b.count(ImpairmentAction::kDrop) << "/" << got_a.count(ImpairmentAction::kDrop)
            << " dup " << got_b.count(ImpairmentAction::kDuplicate) << "/"
            << got_a.count(ImpairmentAction::kDuplicate) << " reorder "
            << got_b.count(ImpairmentAction::kReorder) << "/"
            << got_a.count(ImpairmentAction::kReorder) << " corrupt "
            << got_b.count(ImpairmentAction::kCorrupt) << "/"
            << got_a.count(ImpairmentAction::kCorrupt) << ", wire queue drops B->A "
            << b_.queue_drops << " A->B " << a_.queue_drops << "\n";
}

// Frames still on their way belong to this cell's QPs: once gone, they are dropped.
void VethBulkMatrix::close_cell(CellWire& w) {
  w.node_a.reset();
  w.node_b.reset();
  EXPECT_TRUE(a_.dev->destroy_qp(w.qpn_a));
  EXPECT_TRUE(b_.dev->destroy_qp(w.qpn_b));
}

TEST_F(VethBulkMatrix, MemoryAndCompletionsMatchUnderSeededImpairments) {
  const VethBulkSelection run = cells_from_environment();
  const std::vector<VethBulkCell>& cells = run.cells;
  std::cout << "veth bulk matrix: " << (run.full ? "full" : "CI subset") << ", " << cells.size()
            << " cells, seed " << seed_ << " (METAROCE_SEED=" << seed_ << " replays)\n";
  RecordProperty("seed", std::to_string(seed_));
  const auto started = std::chrono::steady_clock::now();
  size_t failed_cells = 0;
  for (size_t i = 0; i < cells.size(); ++i) {
    const auto* result = ::testing::UnitTest::GetInstance()->current_test_info()->result();
    const int parts_before = result->total_part_count();
    run_cell(cells[i], i);
    if (result->total_part_count() > parts_before) ++failed_cells;
    if (failed_cells >= 5) break;  // enough to debug from; the rest would take long
  }
  // Every fault really happened on the wire (a filtered run may have asked for one only).
  for (ImpairmentAction act : {ImpairmentAction::kDrop, ImpairmentAction::kDuplicate,
                               ImpairmentAction::kReorder, ImpairmentAction::kCorrupt}) {
    if (!run.filtered) {
      EXPECT_GT(seen_a_.count(act) + seen_b_.count(act), 0U) << impairment_action_name(act);
    }
  }
  for (Side* s : {&a_, &b_}) {
    auto stats = s->pcap->stats();
    ASSERT_TRUE(stats) << stats.error();
    std::cout << s->pcap->name() << ": capture dropped " << stats->dropped << ", interface dropped "
              << stats->interface_dropped << "\n";
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::cout << "veth bulk matrix: " << cells.size() << " cells in " << seconds << " s, "
            << failed_cells << " failed\n";
}

}  // namespace
}  // namespace mr::io
