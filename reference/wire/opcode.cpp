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
    OperationRow{0x00, "SEND_FIRST", 0, kRequest | kSend | kFirst | kPayload},
    OperationRow{0x01, "SEND_MIDDLE", 0, kRequest | kSend | kMiddle | kPayload},
    OperationRow{0x02, "SEND_LAST", 0, kRequest | kSend | kLast | kPayload},
    OperationRow{0x03, "SEND_LAST_WITH_IMMEDIATE", kImmDt,
                 kRequest | kSend | kLast | kPayload | kImmediate},
    OperationRow{0x04, "SEND_ONLY", 0, kRequest | kSend | kOnly | kPayload},
    OperationRow{0x05, "SEND_ONLY_WITH_IMMEDIATE", kImmDt,
                 kRequest | kSend | kOnly | kPayload | kImmediate},
    OperationRow{0x06, "RDMA_WRITE_FIRST", kReth, kRequest | kWrite | kFirst | kPayload},
    OperationRow{0x07, "RDMA_WRITE_MIDDLE", 0, kRequest | kWrite | kMiddle | kPayload},
    OperationRow{0x08, "RDMA_WRITE_LAST", 0, kRequest | kWrite | kLast | kPayload},
    OperationRow{0x09, "RDMA_WRITE_LAST_WITH_IMMEDIATE", kImmDt,
                 kRequest | kWrite | kLast | kPayload | kImmediate},
    OperationRow{0x0a, "RDMA_WRITE_ONLY", kReth, kRequest | kWrite | kOnly | kPayload},
    OperationRow{0x0b, "RDMA_WRITE_ONLY_WITH_IMMEDIATE", kReth | kImmDt,
                 kRequest | kWrite | kOnly | kPayload | kImmediate},
    OperationRow{0x0c, "RDMA_READ_REQUEST", kReth, kRequest | kRead | kOnly},
    OperationRow{0x0d, "RDMA_READ_RESPONSE_FIRST", kAeth, kResponse | kRead | kFirst | kPayload},
    OperationRow{0x0e, "RDMA_READ_RESPONSE_MIDDLE", 0, kResponse | kRead | kMiddle | kPayload},
    OperationRow{0x0f, "RDMA_READ_RESPONSE_LAST", kAeth, kResponse | kRead | kLast | kPayload},
    OperationRow{0x10, "RDMA_READ_RESPONSE_ONLY", kAeth, kResponse | kRead | kOnly | kPayload},
    OperationRow{0x11, "ACKNOWLEDGE", kAeth, kResponse | kAck | kOnly},
    OperationRow{0x12, "ATOMIC_ACKNOWLEDGE", kAeth | kAtomicAckEth,
                 kResponse | kAtomic | kAck | kOnly},
    OperationRow{0x13, "COMPARE_SWAP", kAtomicEth, kRequest | kAtomic | kOnly},
    OperationRow{0x14, "FETCH_ADD", kAtomicEth, kRequest | kAtomic | kOnly},
    OperationRow{0x16, "SEND_LAST_WITH_INVALIDATE", kIeth,
                 kRequest | kSend | kLast | kPayload | kInvalidate},
    OperationRow{0x17, "SEND_ONLY_WITH_INVALIDATE", kIeth,
                 kRequest | kSend | kOnly | kPayload | kInvalidate},
    OperationRow{0x1c, "FLUSH", kFeth | kReth, kRequest | kFlush | kOnly},
    OperationRow{0x1d, "ATOMIC_WRITE", kReth, kRequest | kAtomic | kOnly | kPayload},
};

// UC has the SEND and RDMA WRITE operations of RC (0x00..0x0b) and nothing else.
constexpr uint8_t kLastUcOperation = 0x0b;
// RD has RC's operations up to FETCH_ADD. Requests carry RDETH and DETH; responses (READ
// responses, ACKNOWLEDGE, ATOMIC ACKNOWLEDGE) carry RDETH only (IBTA 9.3.1, 9.3.2).
constexpr uint8_t kLastRdOperation = 0x14;

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
    if (row.op <= kLastUcOperation) add(t, 0x20 | row.op, Transport::kUc, row, 0);
    if (row.op <= kLastRdOperation) {
      const bool response = (row.flags & kResponse) != 0;
      add(t, 0x40 | row.op, Transport::kRd, row, response ? kRdeth : kRdeth | kDeth);
    }
  }
  // UD carries only single-packet SENDs, each with a DETH (Q_Key, source QP).
  add(t, 0x64, Transport::kUd, kRcOperations[4], kDeth);
  add(t, 0x65, Transport::kUd, kRcOperations[5], kDeth);
  // RoCEv2 Annex A17: the CNP is a BTH with BECN set and 16 reserved bytes.
  add(t, kOpCnp, Transport::kCnp, OperationRow{kOpCnp, "CNP", kCnpPadding, kCnp}, 0);
  return t;
}

constexpr Table kTable = build_table();

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
  return std::nullopt;
}

std::string opcode_name(uint8_t opcode) { return names()[opcode]; }

}  // namespace mr::wire
