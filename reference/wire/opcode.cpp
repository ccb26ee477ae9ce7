#include "reference/wire/opcode.h"

#include <array>
#include <cstdio>

#include "reference/wire/header_sizes.h"

namespace mr::wire {
namespace {

// One row per operation of a reliable or unreliable transport. Values are IBTA's
// (ib_pack.h); header composition follows rxe_opcode.c.
struct OperationRow {
  uint8_t op;
  std::string_view name;
  uint16_t headers;
  uint32_t flags;
};

constexpr std::array kRcOperations{
    OperationRow{kOpRcSendFirst, "SEND_FIRST", 0, kRequest | kSend | kFirst | kPayload},
    OperationRow{kOpRcSendMiddle, "SEND_MIDDLE", 0, kRequest | kSend | kMiddle | kPayload},
    OperationRow{kOpRcSendLast, "SEND_LAST", 0, kRequest | kSend | kLast | kPayload},
    OperationRow{kOpRcSendLastWithImmediate, "SEND_LAST_WITH_IMMEDIATE", kImmDt,
                 kRequest | kSend | kLast | kPayload | kImmediate},
    OperationRow{kOpRcSendOnly, "SEND_ONLY", 0, kRequest | kSend | kOnly | kPayload},
    OperationRow{kOpRcSendOnlyWithImmediate, "SEND_ONLY_WITH_IMMEDIATE", kImmDt,
                 kRequest | kSend | kOnly | kPayload | kImmediate},
    OperationRow{kOpRcRdmaWriteFirst, "RDMA_WRITE_FIRST", kReth,
                 kRequest | kWrite | kFirst | kPayload},
    OperationRow{kOpRcRdmaWriteMiddle, "RDMA_WRITE_MIDDLE", 0,
                 kRequest | kWrite | kMiddle | kPayload},
    OperationRow{kOpRcRdmaWriteLast, "RDMA_WRITE_LAST", 0, kRequest | kWrite | kLast | kPayload},
    OperationRow{kOpRcRdmaWriteLastWithImmediate, "RDMA_WRITE_LAST_WITH_IMMEDIATE", kImmDt,
                 kRequest | kWrite | kLast | kPayload | kImmediate},
    OperationRow{kOpRcRdmaWriteOnly, "RDMA_WRITE_ONLY", kReth,
                 kRequest | kWrite | kOnly | kPayload},
    OperationRow{kOpRcRdmaWriteOnlyWithImmediate, "RDMA_WRITE_ONLY_WITH_IMMEDIATE", kReth | kImmDt,
                 kRequest | kWrite | kOnly | kPayload | kImmediate},
    OperationRow{kOpRcRdmaReadRequest, "RDMA_READ_REQUEST", kReth, kRequest | kRead | kOnly},
    OperationRow{kOpRcRdmaReadResponseFirst, "RDMA_READ_RESPONSE_FIRST", kAeth,
                 kResponse | kRead | kFirst | kPayload},
    OperationRow{kOpRcRdmaReadResponseMiddle, "RDMA_READ_RESPONSE_MIDDLE", 0,
                 kResponse | kRead | kMiddle | kPayload},
    OperationRow{kOpRcRdmaReadResponseLast, "RDMA_READ_RESPONSE_LAST", kAeth,
                 kResponse | kRead | kLast | kPayload},
    OperationRow{kOpRcRdmaReadResponseOnly, "RDMA_READ_RESPONSE_ONLY", kAeth,
                 kResponse | kRead | kOnly | kPayload},
    OperationRow{kOpRcAcknowledge, "ACKNOWLEDGE", kAeth, kResponse | kAck | kOnly},
    OperationRow{kOpRcAtomicAcknowledge, "ATOMIC_ACKNOWLEDGE", kAeth | kAtomicAckEth,
                 kResponse | kAtomic | kAck | kOnly},
    OperationRow{kOpRcCompareSwap, "COMPARE_SWAP", kAtomicEth, kRequest | kAtomic | kOnly},
    OperationRow{kOpRcFetchAdd, "FETCH_ADD", kAtomicEth, kRequest | kAtomic | kOnly},
    OperationRow{kOpRcSendLastWithInvalidate, "SEND_LAST_WITH_INVALIDATE", kIeth,
                 kRequest | kSend | kLast | kPayload | kInvalidate},
    OperationRow{kOpRcSendOnlyWithInvalidate, "SEND_ONLY_WITH_INVALIDATE", kIeth,
                 kRequest | kSend | kOnly | kPayload | kInvalidate},
    OperationRow{kOpRcFlush, "FLUSH", kFeth | kReth, kRequest | kFlush | kOnly},
    OperationRow{kOpRcAtomicWrite, "ATOMIC_WRITE", kReth, kRequest | kAtomic | kOnly | kPayload},
};

// UC has the SEND and RDMA WRITE operations of RC and nothing else.
constexpr uint8_t kLastUcOperation = kOpRcRdmaWriteOnlyWithImmediate;
// RD has RC's operations up to FETCH_ADD. Requests carry RDETH and DETH; responses (READ
// responses, ACKNOWLEDGE, ATOMIC ACKNOWLEDGE) carry RDETH only (IBTA 9.3.1, 9.3.2).
constexpr uint8_t kLastRdOperation = kOpRcFetchAdd;

constexpr unsigned extension_bytes(uint16_t headers) {
  unsigned n = 0;
  if (headers & kRdeth) n += kRdethSize;
  if (headers & kDeth) n += kDethSize;
  if (headers & kFeth) n += kFethSize;
  if (headers & kReth) n += kRethSize;
  if (headers & kAtomicEth) n += kAtomicEthSize;
  if (headers & kImmDt) n += kImmDtSize;
  if (headers & kIeth) n += kIethSize;
  if (headers & kAeth) n += kAethSize;
  if (headers & kAtomicAckEth) n += kAtomicAckEthSize;
  if (headers & kCnpPadding) n += kCnpPaddingSize;
  if (headers & kSech) n += kSechSize;
  if (headers & kMxh) n += kMxhSize;
  if (headers & kSacketh) n += kSackethSize;
  if (headers & kCreth) n += kCrethSize;
  if (headers & kRsyneth) n += kRsynethSize;
  return n;
}

struct Table {
  std::array<OpcodeInfo, 256> rows{};
  std::array<bool, 256> known{};
};

constexpr void add(Table& t, uint8_t value, Transport tr, const OperationRow& row, uint16_t extra) {
  const auto headers = static_cast<uint16_t>(row.headers | extra);
  t.rows[value] = OpcodeInfo{value,   tr,        row.name,
                             headers, row.flags, static_cast<uint8_t>(extension_bytes(headers))};
  t.known[value] = true;
}

constexpr Table build_table() {
  Table t;
  for (const auto& row : kRcOperations) {
    add(t, row.op, Transport::kRc, row, 0);
    if (row.op <= kLastUcOperation) add(t, kOpTransportUc | row.op, Transport::kUc, row, 0);
    if (row.op <= kLastRdOperation) {
      const bool response = (row.flags & kResponse) != 0;
      add(t, kOpTransportRd | row.op, Transport::kRd, row, response ? kRdeth : kRdeth | kDeth);
    }
  }
  // UD carries only single-packet SENDs, each with a DETH (Q_Key, source QP).
  add(t, kOpUdSendOnly, Transport::kUd, kRcOperations[4], kDeth);
  add(t, kOpUdSendOnlyWithImmediate, Transport::kUd, kRcOperations[5], kDeth);
  // RoCEv2 Annex A17: the CNP is a BTH with BECN set and 16 reserved bytes.
  add(t, kOpCnp, Transport::kCnp, OperationRow{kOpCnp, "CNP", kCnpPadding, kCnp}, 0);
  return t;
}

constexpr Table kTable = build_table();

// Table 19.1: an RC operation's Ext headers. ACKs gain a SACKETH; every other packet an
// MXH first, and every RDMA WRITE packet the RETH of its whole message.
constexpr uint16_t ext_headers(const OperationRow& row) {
  if ((row.flags & kAck) != 0) return static_cast<uint16_t>(row.headers | kSacketh);
  auto h = static_cast<uint16_t>(row.headers | kMxh);
  if ((row.flags & kWrite) != 0) h |= kReth;
  return h;
}

constexpr Table build_ext_table(uint16_t extra) {
  Table t;
  for (const auto& row : kRcOperations) {
    if (row.op > kOpRcSendOnlyWithInvalidate) continue;  // FLUSH, ATOMIC WRITE: base only
    add(t, row.op, Transport::kRc, row, static_cast<uint16_t>(ext_headers(row) | extra));
  }
  add(t, kOpExtProbe, Transport::kRc, OperationRow{kOpExtProbe, "PROBE", kMxh, kProbe}, extra);
  add(t, kOpExtCredit, Transport::kRc, OperationRow{kOpExtCredit, "CREDIT", kCreth, kCredit},
      extra);
  add(t, kOpExtResync, Transport::kRc,
      OperationRow{kOpExtResync, "RESYNC", kMxh | kRsyneth, kResync}, extra);
  return t;
}

constexpr Table kExtTable = build_ext_table(0);
constexpr Table kSecureExtTable = build_ext_table(kSech);

constexpr const Table& table(HeaderSet set) {
  switch (set) {
    case HeaderSet::kExt:
      return kExtTable;
    case HeaderSet::kExtSecure:
      return kSecureExtTable;
    case HeaderSet::kBase:
      break;
  }
  return kTable;
}

const std::array<std::string, 256>& names() {
  static const std::array<std::string, 256> n = [] {
    std::array<std::string, 256> out;
    for (int v = 0; v < 256; ++v) {
      if (kTable.known[v]) {
        out[v] = kTable.rows[v].name();
      } else {
        char buf[8];
        std::snprintf(buf, sizeof buf, "0x%02x", v);
        out[v] = buf;
      }
    }
    return out;
  }();
  return n;
}

}  // namespace

std::string OpcodeInfo::name() const {
  static constexpr std::array<std::string_view, 6> kPrefix{"RC_", "UC_", "RD_", "UD_", "", "XRC_"};
  if (transport == Transport::kCnp) return std::string(operation);
  return std::string(kPrefix[static_cast<size_t>(transport)]) + std::string(operation);
}

const OpcodeInfo* opcode_info(uint8_t opcode) {
  return kTable.known[opcode] ? &kTable.rows[opcode] : nullptr;
}

std::optional<uint8_t> opcode_by_name(std::string_view name) {
  const auto& n = names();
  for (int v = 0; v < 256; ++v) {
    if (kTable.known[v] && n[v] == name) return static_cast<uint8_t>(v);
  }
  // The values only extension mode has (table 19.1): RC_PROBE, RC_CREDIT, RC_RESYNC.
  for (int v = 0; v < 256; ++v) {
    if (!kTable.known[v] && kExtTable.known[v] && kExtTable.rows[v].name() == name)
      return static_cast<uint8_t>(v);
  }
  return std::nullopt;
}

std::string opcode_name(uint8_t opcode) { return names()[opcode]; }

const OpcodeInfo* opcode_info(uint8_t opcode, HeaderSet set) {
  const Table& t = table(set);
  return t.known[opcode] ? &t.rows[opcode] : nullptr;
}

std::string opcode_name(uint8_t opcode, HeaderSet set) {
  if (set == HeaderSet::kBase) return opcode_name(opcode);
  const OpcodeInfo* info = opcode_info(opcode, set);
  if (info) return info->name();
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%02x", opcode);
  return buf;
}

}  // namespace mr::wire
