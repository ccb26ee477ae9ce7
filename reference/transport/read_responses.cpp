#include "reference/transport/read_responses.h"

#include <algorithm>

#include "reference/transport/requester.h"
#include "reference/wire/aeth_syndrome.h"
#include "reference/wire/opcode.h"
#include "reference/wire/psn.h"

namespace mr::transport {

uint8_t read_response_opcode(uint32_t i, uint32_t count) {
  if (count == 1) return wire::kOpRcRdmaReadResponseOnly;
  if (i == 0) return wire::kOpRcRdmaReadResponseFirst;
  return i + 1 == count ? wire::kOpRcRdmaReadResponseLast : wire::kOpRcRdmaReadResponseMiddle;
}

void send_read_responses(QueuePair& qp, const ReadRange& read, QpContext& ctx) {
  uint32_t psn = read.psn;
  const uint64_t va = read.va;
  const uint32_t rkey = read.rkey;
  const uint32_t len = read.length;
  const uint32_t mtu = qp.attr.path_mtu;
  const uint32_t count = packets_for(len, mtu);
  if (!ctx.decide.responder.read_responses_start_at_request_psn) psn = wire::psn_add(psn, 1);
  uint32_t offset = 0;
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t n = std::min(mtu, len - offset);
    const uint8_t opcode = read_response_opcode(i, count);
    if (opcode == wire::kOpRcRdmaReadResponseFirst && !ctx.decide.responder.read_first_full_mtu) {
      n -= 4;
    }
    wire::RocePacket p = ctx.factory.start(qp, opcode, wire::psn_add(psn, i));
    if (opcode != wire::kOpRcRdmaReadResponseMiddle ||
        !ctx.decide.responder.read_middle_without_aeth) {
      p.aeth = wire::Aeth{wire::kSyndromeAck, read.msn};
      // A broken device sends FIRST-shaped middles.
      if (opcode == wire::kOpRcRdmaReadResponseMiddle)
        p.bth.opcode = wire::kOpRcRdmaReadResponseFirst;
    }
    // MR-MP-11: every response re-validates the R_Key against current memory.
    std::span<const uint8_t> data;
    if (n > 0) {
      const uint64_t at = va + (ctx.decide.responder.reads_beyond_64k ? offset : offset & 0xffff);
      auto src = ctx.memory.resolve_remote(rkey, qp.init.pd, at, n, memory::kRemoteRead);
      // A device that skips one of resolve()'s checks skips it here too.
      const auto& decide = ctx.decide.responder;
      if (!src && decide.checks_mr_access && decide.checks_rkey_pd && decide.checks_rkey_range) {
        wire::RocePacket nak = ctx.factory.start(qp, wire::kOpRcAcknowledge, wire::psn_add(psn, i));
        nak.aeth = wire::Aeth{wire::kNakRemoteAccessError, read.msn};
        ctx.send(nak);
        enter_error(qp, ctx);
        return;
      }
      if (src) data = std::span<const uint8_t>(src->data(), n);
    }
    p.payload = data;
    ctx.send(p);
    offset += n;
  }
}

}  // namespace mr::transport
