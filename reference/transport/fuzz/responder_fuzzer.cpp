// libFuzzer target: hostile packets against a live reference QP.
//
// The input is a sequence of frames (2-byte length prefix each). Most are rewritten to be
// addressed to the QP with a correct ICRC, so that they get past the receive pipeline and
// exercise the responder and completer state machines; the rest go in as they are. After
// every frame the device runs its timers; the QP must stay in a defined state and the
// device must never crash, hang or trip a sanitizer. The same frames then go, as Ext
// packets (TVer 1, SX as the mode byte says), to an Ext QP with SECURE agreed: the secure
// receive path (SX, SECH, replay, tags, trimmed headers) sees hostile bytes too.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

#include "reference/transport/device.h"
#include "reference/wire/frame_builder.h"
#include "reference/wire/frame_decoder.h"
#include "reference/wire/opcode.h"

namespace {

using namespace mr;

struct Harness {
  transport::Device dev;
  uint32_t qpn = 0;
  uint32_t cq = 0;

  static transport::DeviceConfig config() {
    transport::DeviceConfig c;
    c.mac = *wire::MacAddress::parse("02:00:00:00:00:02");
    c.ip = *wire::Ipv4Address::parse("198.18.0.2");
    return c;
  }

  Harness() : dev(config()) {
    const uint32_t pd = *dev.memory().alloc_pd();
    cq = *dev.create_cq(1 << 16);
    auto mr = *dev.memory().reg_mr(
        pd, 1 << 16,
        memory::kLocalWrite | memory::kRemoteWrite | memory::kRemoteRead | memory::kRemoteAtomic,
        0x10000);
    transport::QpInitAttributes init;
    init.pd = pd;
    init.send_cq = init.recv_cq = cq;
    qpn = *dev.create_qp(init);
    transport::QpAttributes a;
    a.state = transport::QpState::kInit;
    a.access_flags =
        transport::kQpRemoteWrite | transport::kQpRemoteRead | transport::kQpRemoteAtomic;
    (void)dev.modify_qp(qpn, a,
                        transport::kAttrState | transport::kAttrPkey | transport::kAttrAccessFlags);
    a.state = transport::QpState::kRtr;
    a.av.smac = c_mac();
    a.av.dmac = *wire::MacAddress::parse("02:00:00:00:00:01");
    a.av.sip = *wire::Ipv4Address::parse("198.18.0.2");
    a.av.dip = *wire::Ipv4Address::parse("198.18.0.1");
    a.dest_qpn = 0x11;
    a.rq_psn = 0;
    (void)dev.modify_qp(qpn, a,
                        transport::kAttrState | transport::kAttrPathMtu | transport::kAttrAddress |
                            transport::kAttrDestQpn | transport::kAttrRqPsn |
                            transport::kAttrMaxDestRdAtomic | transport::kAttrMinRnrTimer);
    a.state = transport::QpState::kRts;
    a.timeout = 4;
    a.retry_cnt = 3;
    (void)dev.modify_qp(qpn, a,
                        transport::kAttrState | transport::kAttrSqPsn | transport::kAttrTimeout |
                            transport::kAttrRetryCnt | transport::kAttrRnrRetry |
                            transport::kAttrMaxRdAtomic);
    for (int i = 0; i < 8; ++i)
      (void)dev.post_recv(qpn, {static_cast<uint64_t>(i), {{mr.va + i * 4096ULL, 4096, mr.lkey}}});
    transport::SendWr write;
    write.wr_id = 1;
    write.opcode = transport::SendOpcode::kWrite;
    write.sg_list = {{mr.va, 3000, mr.lkey}};
    write.remote_addr = 0x20000;
    write.rkey = mr.rkey;
    (void)dev.post_send(qpn, write);
  }
  static wire::MacAddress c_mac() { return *wire::MacAddress::parse("02:00:00:00:00:02"); }
};

// An Ext QP with SECURE (and TRIM) agreed, keys installed both ways (section 19.4).
struct SecureHarness {
  transport::Device dev;
  uint32_t qpn = 0;
  uint32_t cq = 0;

  static wire::Mxcap block() {
    wire::Mxcap m;
    m.features = m.features | wire::kMxcapTrim;
    m.features2 = m.features2 | wire::kMxcapSecure;
    return m;
  }
  static transport::DeviceConfig config() {
    transport::DeviceConfig c = Harness::config();
    c.mxcap = block();
    return c;
  }
  static transport::ext::SecurityAssociation sa(uint8_t key, uint32_t spi) {
    transport::ext::SecurityAssociation s;
    s.epoch = 1;
    s.key.fill(key);
    s.spi = spi;
    return s;
  }

  SecureHarness() : dev(config()) {
    const uint32_t pd = *dev.memory().alloc_pd();
    cq = *dev.create_cq(1 << 12);
    auto mr =
        *dev.memory().reg_mr(pd, 1 << 16, memory::kLocalWrite | memory::kRemoteWrite, 0x10000);
    transport::QpInitAttributes init;
    init.pd = pd;
    init.send_cq = init.recv_cq = cq;
    qpn = *dev.create_qp(init);
    transport::QpAttributes a;
    a.state = transport::QpState::kInit;
    a.access_flags = transport::kQpRemoteWrite;
    (void)dev.modify_qp(qpn, a,
                        transport::kAttrState | transport::kAttrPkey | transport::kAttrAccessFlags);
    a.state = transport::QpState::kRtr;
    a.av.smac = Harness::c_mac();
    a.av.dmac = *wire::MacAddress::parse("02:00:00:00:00:01");
    a.av.sip = *wire::Ipv4Address::parse("198.18.0.2");
    a.av.dip = *wire::Ipv4Address::parse("198.18.0.1");
    a.dest_qpn = 0x11;
    a.peer_mxcap = block();
    a.secure_sa = transport::ext::SecurityAssociations{{sa(0x22, 0x202)}, {sa(0x11, 0x101)}, 16};
    (void)dev.modify_qp(qpn, a,
                        transport::kAttrState | transport::kAttrPathMtu | transport::kAttrAddress |
                            transport::kAttrDestQpn | transport::kAttrRqPsn |
                            transport::kAttrMaxDestRdAtomic | transport::kAttrMinRnrTimer |
                            transport::kAttrPeerMxcap | transport::kAttrSecureSa);
    a.state = transport::QpState::kRts;
    (void)dev.modify_qp(qpn, a, transport::kAttrState | transport::kAttrSqPsn);
    for (int i = 0; i < 4; ++i)
      (void)dev.post_recv(qpn, {static_cast<uint64_t>(i), {{mr.va + i * 4096ULL, 4096, mr.lkey}}});
    transport::SendWr write;
    write.opcode = transport::SendOpcode::kWrite;
    write.sg_list = {{mr.va, 3000, mr.lkey}};
    write.remote_addr = 0x20000;
    write.rkey = mr.rkey;
    (void)dev.post_send(qpn, write);
  }
};

void check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

// One frame of the input (2-byte length prefix, then a mode byte, then its bytes).
struct InputFrame {
  std::vector<uint8_t> bytes;
  uint8_t mode = 0;
};

// The input's frames, at most 64.
std::vector<InputFrame> frames_of(const uint8_t* data, size_t size) {
  std::vector<InputFrame> out;
  size_t at = 0;
  while (out.size() < 64 && at + 3 <= size) {
    const size_t len = (size_t{data[at]} << 8 | data[at + 1]) % 2048;
    const uint8_t mode = data[at + 2];
    at += 3;
    const size_t n = std::min(len, size - at);
    out.push_back({std::vector<uint8_t>(data + at, data + at + n), mode});
    at += n;
  }
  return out;
}

// The frame as the QP gets it: for a mode that is not 0 mod 4, a RoCE frame is addressed to
// `qpn` over the harness's path, changed by `adjust`, and rebuilt with its ICRC right, so
// that it gets past the receive pipeline; any other frame goes in as it is.
template <class Adjust>
std::vector<uint8_t> to_qp(const InputFrame& f, uint32_t qpn, Adjust&& adjust) {
  auto d = wire::decode_frame(f.bytes);
  if (f.mode % 4 == 0 || !d || !std::holds_alternative<wire::DecodedRoce>(*d)) return f.bytes;
  wire::RocePacket p = std::get<wire::DecodedRoce>(*d).packet;
  p.eth.dst = Harness::c_mac();
  p.eth.type = p.vlan ? wire::kEtherTypeDot1Q : wire::kEtherTypeIpv4;
  wire::Ipv4 ip;
  ip.src = *wire::Ipv4Address::parse("198.18.0.1");
  ip.dst = *wire::Ipv4Address::parse("198.18.0.2");
  if (p.vlan) p.vlan->type = wire::kEtherTypeIpv4;
  p.ip = ip;
  p.udp.dport = wire::kRoceV2Port;
  p.bth.dqpn = qpn;
  p.bth.pkey = 0xffff;
  adjust(p);
  return wire::build_frame(p);
}

// Gives the QP one frame at `now`, lets `gap_ns` pass, drains what the device sent and
// completed, and checks what must hold after any input: the QP still there, its PSNs 24-bit.
template <class H>
const transport::QueuePair& deliver(H& h, const std::vector<uint8_t>& frame, uint64_t& now,
                                    uint64_t gap_ns) {
  h.dev.receive(frame, now);
  now += gap_ns;
  h.dev.advance(now);
  (void)h.dev.take_outbox();
  (void)h.dev.poll_cq(h.cq, 64);
  const auto* qp = h.dev.qp(h.qpn);
  check(qp != nullptr);
  check(qp->epsn <= wire::kPsnMask && qp->next_psn <= wire::kPsnMask);
  return *qp;
}

// The input's frames against the secure Ext QP, as Ext packets (TVer 1), with SX when the
// mode byte's bit 4 says so; nothing can forge a tag, so this is the pre-authentication path.
void fuzz_secure(const std::vector<InputFrame>& frames) {
  SecureHarness h;
  check(h.dev.qp(h.qpn)->ext && h.dev.qp(h.qpn)->ext->secure_rx.has_value());  // SECURE agreed
  uint64_t now = 1'000'000;
  for (const InputFrame& f : frames) {
    deliver(h,
            to_qp(f, h.qpn,
                  [&](wire::RocePacket& p) {
                    p.bth.version = wire::kExtVersion;
                    if ((f.mode & 0x10) != 0)
                      p.bth.resv7 = p.bth.resv7.value() | wire::Bth::kResv7Sx;
                  }),
            now, (f.mode >> 5) * 100'000ULL);
  }
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::vector<InputFrame> frames = frames_of(data, size);
  fuzz_secure(frames);
  Harness h;
  uint64_t now = 1'000'000;
  for (const InputFrame& f : frames) {
    // Base packets (TVer 0); mode 1 puts the PSN near ePSN: sequences, duplicates.
    const transport::QueuePair& qp = deliver(h,
                                             to_qp(f, h.qpn,
                                                   [&](wire::RocePacket& p) {
                                                     p.bth.version = 0;
                                                     if (f.mode % 4 == 1)
                                                       p.bth.psn = p.bth.psn.value() % 64;
                                                   }),
                                             now, (f.mode >> 2) * 100'000ULL);
    check(qp.send_index <= qp.sq.size());
  }
  return 0;
}
