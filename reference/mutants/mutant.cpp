#include "reference/mutants/mutant.h"

#include <array>

namespace mr::mutants {
namespace {

using M = Mutant;

constexpr std::array kTable{
    MutantInfo{M::kTverNonzero, "tver-nonzero", "MR-WF-02", "emits TVer = 1 in every BTH"},
    MutantInfo{M::kAcceptTverNonzero, "accept-tver-nonzero", "MR-WF-03",
               "processes packets whose TVer is not 0"},
    MutantInfo{M::kPadBytesNonzero, "pad-bytes-nonzero", "MR-WF-06", "sends pad bytes of 0xff"},
    MutantInfo{M::kUdpSourcePortChanges, "udp-source-port-changes", "MR-WF-08",
               "uses a different UDP source port for every packet"},
    MutantInfo{M::kAcceptUnknownTransport, "accept-unknown-transport", "MR-WF-12",
               "an RC QP processes UC opcodes as if they were RC"},
    MutantInfo{M::kMigReqDropped, "migreq-dropped", "MR-WF-14", "drops packets with MigReq = 1"},
    MutantInfo{M::kBecnOnData, "becn-on-data", "MR-WF-04", "sets BECN on every data packet"},
    MutantInfo{M::kVlanTagNotSent, "vlan-tag-not-sent", "MR-WF-16",
               "a QP configured with a VLAN sends its packets untagged"},
    MutantInfo{M::kVlanPcpZero, "vlan-pcp-zero", "MR-WF-16",
               "a QP configured with a VLAN tags its packets with PCP 0 whatever its priority"},
    MutantInfo{M::kVlanPriorityMismatchDropped, "vlan-priority-mismatch-dropped", "MR-WF-17",
               "drops packets whose 802.1Q PCP or DEI differs from the QP's configured tag"},
    MutantInfo{M::kIpv6HopLimitDefault, "ipv6-hop-limit-default", "MR-WF-18",
               "an IPv6 QP sends hop limit 64 whatever its address vector says"},
    MutantInfo{M::kIpv6TrafficClassZero, "ipv6-traffic-class-zero", "MR-WF-18",
               "an IPv6 QP sends traffic class 0 whatever its address vector says"},
    MutantInfo{M::kIcrcNotChecked, "icrc-not-checked", "MR-IC-02",
               "accepts packets whose ICRC is wrong"},
    MutantInfo{M::kCeMarkedDropped, "ce-marked-dropped", "MR-IC-03 MR-CC-04",
               "drops packets whose ECN field was set to CE in flight, as if the ICRC "
               "covered it"},
    MutantInfo{M::kIcrcWrongByteOrder, "icrc-wrong-byte-order", "MR-IC-01",
               "sends the ICRC most-significant byte first"},
    MutantInfo{M::kTwoNaksPerSequenceError, "two-naks-per-sequence-error", "MR-PS-05",
               "sends a second PSN sequence NAK for the next out-of-sequence packet"},
    MutantInfo{M::kNakCarriesPacketPsn, "nak-carries-packet-psn", "MR-PS-04",
               "a PSN sequence NAK carries the received packet's PSN instead of ePSN"},
    MutantInfo{M::kExecuteAheadOfSequence, "execute-ahead-of-sequence", "MR-PS-03 MR-PS-04",
               "executes a request whose PSN is ahead of ePSN and jumps ePSN to it"},
    MutantInfo{M::kReadConsumesOnePsn, "read-consumes-one-psn", "MR-PS-02",
               "a multi-packet READ request consumes one PSN on the requester"},
    MutantInfo{M::kSequenceNakNeverRearmed, "sequence-nak-never-rearmed", "MR-PS-06",
               "after the first sequence error no further sequence NAK is ever sent"},
    MutantInfo{M::kUnackedPsnsUnbounded, "unacked-psns-unbounded", "MR-PS-11",
               "sends requests whatever the number of request PSNs still unacknowledged"},
    MutantInfo{M::kWrongMsn, "wrong-msn", "MR-AK-03", "the MSN in every AETH is one too high"},
    MutantInfo{M::kNoAckForAckReq, "no-ack-for-ackreq", "MR-AK-01",
               "does not acknowledge SEND ONLY packets with AckReq = 1"},
    MutantInfo{M::kAckPsnOffByOne, "ack-psn-off-by-one", "MR-AK-02",
               "an ACK carries the acknowledged PSN plus one"},
    MutantInfo{M::kAckReqNotOnLast, "ackreq-not-on-last", "MR-AK-05",
               "the last packet of a message carries AckReq = 0"},
    MutantInfo{M::kAckReqOnlyOnLast, "ackreq-only-on-last", "MR-AK-06",
               "sets AckReq only on the last packet of a message, however long the message"},
    MutantInfo{M::kDuplicateAckWrongPsn, "duplicate-ack-wrong-psn", "MR-AK-11",
               "answers a duplicate SEND/WRITE with an ACK carrying the duplicate's PSN"},
    MutantInfo{M::kDuplicateWriteReexecuted, "duplicate-write-reexecuted", "MR-PS-07 MR-AK-11",
               "executes a duplicate SEND or WRITE again"},
    MutantInfo{M::kAckWithSolicited, "ack-with-solicited", "MR-AK-14",
               "sends ACKs with SE = 1 and AckReq = 1"},
    MutantInfo{M::kRetryCountIgnored, "retry-count-ignored", "MR-RT-06",
               "retransmits forever whatever retry_cnt says"},
    MutantInfo{M::kRetryCountSevenInfinite, "retry-count-seven-infinite", "MR-RT-07",
               "treats retry_cnt = 7 as infinite (Linux rxe's deviation D4)"},
    MutantInfo{M::kRetransmitEarly, "retransmit-early", "MR-RT-01",
               "retransmits after half the local ACK timeout"},
    MutantInfo{M::kNoImplicitNakForRead, "no-implicit-nak-for-read", "MR-RT-08",
               "completes a READ as successful when a later ACK skips its responses"},
    MutantInfo{M::kTimeoutZeroRetransmits, "timeout-zero-retransmits", "MR-RT-03",
               "retransmits after 4 ms even when timeout = 0"},
    MutantInfo{
        M::kRetryBudgetNotResetOnProgress, "retry-budget-not-reset-on-progress", "MR-RT-06",
        "counts every retry of the QP's life against retry_cnt, not only those without progress"},
    MutantInfo{M::kReadRetryFromMessageStart, "read-retry-from-message-start", "MR-RT-05",
               "reissues a partly answered READ at the first missing PSN but with the original VA "
               "and DMA length"},
    MutantInfo{M::kLaterWqesNotRewound, "later-wqes-not-rewound", "MR-AK-09",
               "on a go-back-N retry, resends only the message holding the NAKed PSN, not the "
               "later ones already sent"},
    MutantInfo{M::kTimerNotRearmedOnProgress, "timer-not-rearmed-on-progress", "MR-RT-01",
               "an ACK that leaves packets outstanding stops the local ACK timer instead of "
               "restarting it"},
    MutantInfo{M::kWriteGatherWrapsAt64k, "write-gather-wraps-at-64k", "MR-MP-15",
               "sends, as the payload at message offset k, the bytes at (k mod 65536): 16-bit "
               "offset arithmetic"},
    MutantInfo{M::kImplicitNakRetryStorm, "implicit-nak-retry-storm", "MR-RT-08 MR-RT-06",
               "retries an unanswered READ again at every later response already in flight, each "
               "retry spending the budget"},
    MutantInfo{M::kNoRnrNak, "no-rnr-nak", "MR-RN-01",
               "silently drops a SEND that finds no receive WQE"},
    MutantInfo{M::kRnrNakAdvancesEpsn, "rnr-nak-advances-epsn", "MR-RN-02",
               "advances ePSN past a request it answered with an RNR NAK"},
    MutantInfo{M::kRnrTimerIgnored, "rnr-timer-ignored", "MR-RN-03",
               "retries immediately after an RNR NAK"},
    MutantInfo{M::kRnrRetryIgnored, "rnr-retry-ignored", "MR-RN-05",
               "retries RNR NAKs forever whatever rnr_retry says"},
    MutantInfo{M::kRnrNakForWrite, "rnr-nak-for-write", "MR-RN-06",
               "answers an RDMA WRITE with an RNR NAK when no receive WQE is posted"},
    MutantInfo{
        M::kRnrBudgetNotResetOnProgress, "rnr-budget-not-reset-on-progress", "MR-RN-05",
        "counts every RNR NAK of the QP's life against rnr_retry, not only consecutive ones"},
    MutantInfo{M::kReadMiddleWithAeth, "read-middle-with-aeth", "MR-RD-03",
               "READ_RESPONSE_MIDDLE packets carry an AETH"},
    MutantInfo{M::kReadResponsePsnOffset, "read-response-psn-offset", "MR-RD-02",
               "READ responses start at the request PSN plus one"},
    MutantInfo{M::kZeroLengthReadChecksRkey, "zero-length-read-checks-rkey", "MR-RD-04 MR-MP-06",
               "answers a zero-length READ or WRITE with a bad R_Key with NAK 0x62"},
    MutantInfo{M::kDuplicateReadDropped, "duplicate-read-dropped", "MR-RD-07",
               "silently drops a duplicate READ instead of executing it again"},
    MutantInfo{M::kReadResourcesHoldOne, "read-resources-hold-one", "MR-RD-08",
               "keeps only the newest READ resource, so a duplicate of an older READ finds none"},
    MutantInfo{M::kReadFirstShort, "read-first-short", "MR-RD-01",
               "READ_RESPONSE_FIRST carries PMTU - 4 bytes"},
    MutantInfo{
        M::kReadResponseOffsetWrapsAt64k, "read-response-offset-wraps-at-64k", "MR-RD-15",
        "reads each response's payload at VA + (offset mod 65536): 16-bit offset arithmetic"},
    MutantInfo{M::kReadPlacementWrapsAt64k, "read-placement-wraps-at-64k", "MR-RD-14",
               "places each READ response at local offset (k mod 65536): 16-bit offset arithmetic"},
    MutantInfo{M::kAtomicReplayReexecutes, "atomic-replay-reexecutes", "MR-AT-04",
               "executes a duplicate ATOMIC again instead of replaying the saved result"},
    MutantInfo{M::kCompareSwapAlwaysSwaps, "compare-swap-always-swaps", "MR-AT-01",
               "COMPARE_SWAP writes the swap value even when the compare fails"},
    MutantInfo{M::kMisalignedAtomicAccepted, "misaligned-atomic-accepted", "MR-AT-03",
               "executes ATOMICs whose VA is not 8-byte aligned"},
    MutantInfo{M::kFetchAddReturnsNewValue, "fetch-add-returns-new-value", "MR-AT-02",
               "FETCH_ADD returns the value after the addition"},
    MutantInfo{M::kRkeyRangeOffByOne, "rkey-range-off-by-one", "MR-MP-02",
               "accepts an access that ends one byte past its memory region"},
    MutantInfo{M::kRkeyPdNotChecked, "rkey-pd-not-checked", "MR-MP-03",
               "accepts an R_Key of another protection domain"},
    MutantInfo{M::kMrAccessNotChecked, "mr-access-not-checked", "MR-MP-04 MR-AT-05",
               "ignores the memory region's remote access flags"},
    MutantInfo{M::kSendWithInvalidateIgnored, "send-with-invalidate-ignored", "MR-MP-09",
               "does not invalidate the R_Key of a SEND WITH INVALIDATE"},
    MutantInfo{M::kErrorStateStillAnswers, "error-state-still-answers", "MR-MP-10 MR-QS-04",
               "a QP in the Error state still executes and acknowledges requests"},
    MutantInfo{M::kLongSendTruncated, "long-send-truncated", "MR-MP-08",
               "truncates a SEND longer than its receive WQE instead of NAKing it"},
    MutantInfo{M::kRemoteAccessNakAsInvalid, "remote-access-nak-as-invalid", "MR-MP-01",
               "answers R_Key violations with NAK 0x61 instead of 0x62"},
    MutantInfo{M::kWritePlacementWrapsAt64k, "write-placement-wraps-at-64k", "MR-MP-13",
               "places WRITE payload at VA + (offset mod 65536): 16-bit offset arithmetic"},
    MutantInfo{
        M::kSendPlacementWrapsAt64k, "send-placement-wraps-at-64k", "MR-MP-14",
        "scatters SEND payload at (offset mod 65536) in the receive WQE: 16-bit offset arithmetic"},
    MutantInfo{M::kResetStateAccepts, "reset-state-accepts", "MR-QS-01",
               "a QP in RESET or INIT processes requests"},
    MutantInfo{M::kRtrAcceptsResponses, "rtr-accepts-responses", "MR-QS-03",
               "a QP in RTR processes ACKs and responses"},
    MutantInfo{M::kPkeyNotChecked, "pkey-not-checked", "MR-QS-06 MR-QS-07",
               "accepts packets whatever their P_Key"},
    MutantInfo{M::kErrorStateNoFlush, "error-state-no-flush", "MR-QS-04 MR-QS-09",
               "does not complete posted work requests with flush errors in the Error state"},
    MutantInfo{M::kImmediateByteSwapped, "immediate-byte-swapped", "MR-CQ-02",
               "delivers immediate data byte-swapped"},
    MutantInfo{M::kSolicitedOnEveryPacket, "solicited-on-every-packet", "MR-CQ-01",
               "sets SE on every packet of every SEND"},
    MutantInfo{M::kSolicitedEventIgnoresSe, "solicited-event-ignores-se", "MR-CQ-04",
               "a CQ armed for solicited completions raises an event for any completion"},
    MutantInfo{M::kNoCompletionEvent, "no-completion-event", "MR-CQ-04",
               "an armed CQ never raises a completion event"},
    MutantInfo{M::kCnpNotRateLimited, "cnp-not-rate-limited", "MR-CC-03",
               "sends a CNP for every CE-marked packet"},
    MutantInfo{M::kCnpWithoutBecn, "cnp-without-becn", "MR-CC-01", "sends CNPs with BECN = 0"},
    MutantInfo{M::kCnpAnswered, "cnp-answered", "MR-CC-05",
               "sends a CNP in answer to a CE-marked CNP"},
    MutantInfo{M::kRpIgnoresCnp, "rp-ignores-cnp", "MR-CC-07",
               "the reaction point counts CNPs but never lowers a QP's rate"},
    MutantInfo{M::kRpReactsLate, "rp-reacts-late", "MR-CC-07",
               "the reaction point cuts the rate only 2 x T_RP_REACT_MAX after the CNP"},
    MutantInfo{M::kRpFiltersCnpSourcePort, "rp-filters-cnp-source-port", "MR-CC-09",
               "the reaction point ignores CNPs whose UDP source port is below 49152 (e.g. 0)"},
    MutantInfo{M::kRpRateBelowMinimum, "rp-rate-below-minimum", "MR-CC-12",
               "the reaction point halves the rate on every CNP with no floor at "
               "R_DCQCN_MIN_RATE"},
    MutantInfo{M::kRpAcceptsBadIcrcCnp, "rp-accepts-bad-icrc-cnp", "MR-CC-13 MR-CC-09",
               "the reaction point acts on a CNP whose ICRC is wrong"},
    MutantInfo{M::kUcAnswersWithAcks, "uc-answers-with-acks", "MR-UC-01",
               "a UC QP acknowledges packets with AckReq = 1 as RC would"},
    MutantInfo{M::kUcKeepsMessageAfterGap, "uc-keeps-message-after-gap", "MR-UC-02",
               "a UC receiver ignores a missing PSN and completes the damaged message"},
    MutantInfo{M::kUcErrorOnStrayMiddle, "uc-error-on-stray-middle", "MR-UC-03",
               "a UC QP enters the Error state on a MIDDLE or LAST with no open message"},
    MutantInfo{M::kUcRkeyErrorNaks, "uc-rkey-error-naks", "MR-UC-04 MR-UC-01",
               "a UC QP answers an R_Key violation with NAK 0x62"},
    MutantInfo{M::kUcSendsRcOpcodes, "uc-sends-rc-opcodes", "MR-UC-05",
               "a UC QP sends its packets with RC opcodes"},
    MutantInfo{M::kUdAckReqSet, "ud-ackreq-set", "MR-UD-01", "sets AckReq on UD packets"},
    MutantInfo{M::kUdLargerThanPmtuSent, "ud-larger-than-pmtu-sent", "MR-UD-01",
               "sends a UD message larger than the PMTU as one oversized packet"},
    MutantInfo{M::kQkeyNotChecked, "qkey-not-checked", "MR-UD-02",
               "a UD QP accepts packets whatever their Q_Key"},
    MutantInfo{M::kGrhAreaNotFilled, "grh-area-not-filled", "MR-UD-03",
               "places a UD payload at the start of the buffer, with no GRH area"},
    MutantInfo{M::kUdSourceQpNotReported, "ud-source-qp-not-reported", "MR-UD-03",
               "reports the receiving QPN instead of the DETH's source QPN"},
    MutantInfo{M::kUdLongMessageTruncated, "ud-long-message-truncated", "MR-UD-04",
               "delivers a UD payload larger than the receive WQE truncated"},
    MutantInfo{M::kControlledQkeyIgnored, "controlled-qkey-ignored", "MR-UD-05",
               "sends the work request's controlled Q_Key instead of the QP's"},
    MutantInfo{M::kReceiveWqeLostOnError, "receive-wqe-lost-on-error", "MR-CQ-06",
               "never completes the receive WQE a failed SEND consumed"},
};

static_assert(kTable.size() == static_cast<size_t>(Mutant::kCount), "one row per mutant");

constexpr bool rows_in_enum_order() {
  for (size_t i = 0; i < kTable.size(); ++i) {
    if (static_cast<size_t>(kTable[i].id) != i) return false;
  }
  return true;
}
static_assert(rows_in_enum_order(), "rows must follow the enum's order");

}  // namespace

std::span<const MutantInfo> all_mutants() { return kTable; }

const MutantInfo& info(Mutant m) { return kTable[static_cast<size_t>(m)]; }

std::optional<Mutant> mutant_by_name(std::string_view name) {
  for (const auto& row : kTable) {
    if (row.name == name) return row.id;
  }
  return std::nullopt;
}

}  // namespace mr::mutants
