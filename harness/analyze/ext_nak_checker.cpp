// MR-NK-01: the extension NAKs 0x65 (trimmed), 0x66 (trimmed at the last hop) and 0x67 (PSN
// beyond the window) exist on Ext QPs only: each is an RC_ACKNOWLEDGE with TVer 1 (and so,
// by table 19.1, a SACKETH, which the decoder requires). A base-mode packet that carries one,
// or an Ext READ response or ATOMIC_ACKNOWLEDGE that does, breaks the clause.
#include "harness/analyze/checkers.h"

namespace mr::analyze {
namespace {

class ExtNakChecker final : public Checker {
 public:
  void check(const PacketContext& c, ViolationSink& sink) override {
    if (!c.p.aeth) return;
    const uint8_t syndrome = c.p.aeth->syndrome.value();
    if (syndrome < 0x65 || syndrome > 0x67) return;
    const bool ext = c.p.bth.version.value() == wire::kExtVersion;
    const uint8_t op = c.p.bth.opcode.value();
    if (ext && op == wire::kOpRcAcknowledge) return;
    report_lazily(sink, c, "MR-NK-01", [syndrome, ext, op] {
      return "NAK " + hex(syndrome, 2) +
             (ext ? " in opcode " + hex(op, 2) + ", not an RC_ACKNOWLEDGE"
                  : " on a base-mode packet (TVer 0): the extension NAKs are for Ext QPs");
    });
  }
};

}  // namespace

std::unique_ptr<Checker> make_ext_nak_checker() { return std::make_unique<ExtNakChecker>(); }

}  // namespace mr::analyze
