// File: mutant.h
//
// Deliberate, named faults in the reference implementation, switched at run time. They
// exist to prove that the conformance suite can fail a broken device: every test purpose
// must be failed by at least one mutant, and every mutant must be caught by one test.
//
// Each mutant lives in exactly one table row (mutant.cpp) with the spec clauses it breaks,
// and in one row of one of the transport's decision tables (reference/transport/
// decision_rows.cpp), which names the decision it breaks: the engines read the decision
// (`ctx.decide.responder.one_nak_per_sequence_error`), never the mutant.
//
// Usage:
//   MutantSet m;
//   m.enable(*mutant_by_name("two-naks-per-sequence-error"));
#pragma once

#include <bitset>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace mr::mutants {

enum class Mutant : uint8_t {
  // wire format (MR-WF)
  kTverNonzero,
  kAcceptTverNonzero,
  kPadBytesNonzero,
  kUdpSourcePortChanges,
  kAcceptUnknownTransport,
  kMigReqDropped,
  kBecnOnData,
  kVlanTagNotSent,
  kVlanPcpZero,
  kVlanPriorityMismatchDropped,
  kIpv6HopLimitDefault,
  kIpv6TrafficClassZero,
  // ICRC (MR-IC)
  kIcrcNotChecked,
  kCeMarkedDropped,
  kIcrcWrongByteOrder,
  // PSN (MR-PS)
  kTwoNaksPerSequenceError,
  kNakCarriesPacketPsn,
  kExecuteAheadOfSequence,
  kReadConsumesOnePsn,
  kSequenceNakNeverRearmed,
  kUnackedPsnsUnbounded,
  // ACK (MR-AK)
  kWrongMsn,
  kNoAckForAckReq,
  kAckPsnOffByOne,
  kAckReqNotOnLast,
  kAckReqOnlyOnLast,
  kDuplicateAckWrongPsn,
  kDuplicateWriteReexecuted,
  kAckWithSolicited,
  // retransmission (MR-RT)
  kRetryCountIgnored,
  kRetryCountSevenInfinite,
  kRetransmitEarly,
  kNoImplicitNakForRead,
  kTimeoutZeroRetransmits,
  kRetryBudgetNotResetOnProgress,
  kReadRetryFromMessageStart,
  kLaterWqesNotRewound,
  kTimerNotRearmedOnProgress,
  kWriteGatherWrapsAt64k,
  kImplicitNakRetryStorm,
  // RNR (MR-RN)
  kNoRnrNak,
  kRnrNakAdvancesEpsn,
  kRnrTimerIgnored,
  kRnrRetryIgnored,
  kRnrNakForWrite,
  kRnrBudgetNotResetOnProgress,
  // READ (MR-RD)
  kReadMiddleWithAeth,
  kReadResponsePsnOffset,
  kZeroLengthReadChecksRkey,
  kDuplicateReadDropped,
  kReadResourcesHoldOne,
  kReadFirstShort,
  kReadResponseOffsetWrapsAt64k,
  kReadPlacementWrapsAt64k,
  // ATOMIC (MR-AT)
  kAtomicReplayReexecutes,
  kCompareSwapAlwaysSwaps,
  kMisalignedAtomicAccepted,
  kFetchAddReturnsNewValue,
  // memory protection (MR-MP)
  kRkeyRangeOffByOne,
  kRkeyPdNotChecked,
  kMrAccessNotChecked,
  kSendWithInvalidateIgnored,
  kErrorStateStillAnswers,
  kLongSendTruncated,
  kRemoteAccessNakAsInvalid,
  kWritePlacementWrapsAt64k,
  kSendPlacementWrapsAt64k,
  // QP state and keys (MR-QS)
  kResetStateAccepts,
  kRtrAcceptsResponses,
  kPkeyNotChecked,
  kErrorStateNoFlush,
  // completions (MR-CQ)
  kImmediateByteSwapped,
  kSolicitedOnEveryPacket,
  kSolicitedEventIgnoresSe,
  kNoCompletionEvent,
  // congestion notification (MR-CC)
  kCnpNotRateLimited,
  kCnpWithoutBecn,
  kCnpAnswered,
  kRpIgnoresCnp,
  kRpReactsLate,
  kRpFiltersCnpSourcePort,
  kRpRateBelowMinimum,
  kRpAcceptsBadIcrcCnp,
  // unreliable connection (MR-UC)
  kUcAnswersWithAcks,
  kUcKeepsMessageAfterGap,
  kUcErrorOnStrayMiddle,
  kUcRkeyErrorNaks,
  kUcSendsRcOpcodes,
  // unreliable datagram (MR-UD)
  kUdAckReqSet,
  kUdLargerThanPmtuSent,
  kQkeyNotChecked,
  kGrhAreaNotFilled,
  kUdSourceQpNotReported,
  kUdLongMessageTruncated,
  kControlledQkeyIgnored,
  // completions (MR-CQ)
  kReceiveWqeLostOnError,
  // extension mode: negotiation, selective ACK, out-of-order placement (MR-EX, MR-SA, MR-OO)
  kExtNeverNegotiated,
  kExtWithoutOoo,
  kExtAcceptsBasePackets,
  kExtSackBitmapOffByOne,
  kExtAraNotSet,
  kExtEvNotEchoed,
  kExtDupNotFlagged,
  kExtGoBackN,
  kExtMxhVersionUnchecked,
  kExtRnrRecordsPsn,
  kExtReadExecutesAhead,
  kExtArInReadResponse,
  kExtOowNakCumulativePsn,
  kExtRetransmitsSacked,
  kExtRetxNotMarked,
  kExtAraLossIgnored,
  kExtSackOffsetUnchecked,
  kExtNakAcknowledges,
  kExtObeysNak0x60,
  kExtControlDscpUnmarked,
  kExtLastHopNak0x65,
  kExtTrimRecordsPsn,
  kExtTrimNaksAnyPsn,
  kExtTrimChecksIpChecksum,
  kExtRemarkNotSignalled,
  kExtTrimNakGoBackN,
  kExtTrimmedAckProcessed,
  kExtTrimWithoutAgreement,
  kExtNonfatalEndsQp,
  kExtFailedPsnRecorded,
  kExtResyncRangeUnrecorded,
  kExtNoResyncAfterOpNak,
  kExtOpNakWithoutNonfatal,
  kExtRtoInitAsMin,
  kExtRtoNeverBacksOff,
  kExtRetryUnlimited,
  kExtReadImplicitNak,
  kExtRnrGoBackN,
  // extension mode: multipath and path failure (MR-MU, MR-PF)
  kExtRetxSameEv,
  kExtDeniedEvUsed,
  kExtRtoKeepsEvGood,
  kExtMinActiveIgnored,
  kExtNoPathProbes,
  kExtProbeAnswerIgnored,
  kExtProbeUnanswered,
  kExtEcnMarksEvBad,
  kExtPortDownIgnored,
  kExtPortUpNoHold,
  kExtSingleEvMultipath,
  kExtSpraysWithoutMultipath,
  kExtSportNotEv,
  kExtDefaultSetSkewed,
  kExtSpuriousRtoKept,
  kExtHolddownNeverEnds,
  kExtAckPathLossIgnored,
  kExtAdaptiveIgnoresMarks,
  kExtAdaptiveWithoutAgreement,
  kExtCeAcksFolded,
  kExtFlapsNotDamped,
  kExtTrimNakMarksEvBad,
  kExtNonfatalWithoutAgreement,
  kExtReservedBitsChecked,
  kExtAdaptiveNeverExplores,
  kExtRkeyCheckedAtFirstOnly,
  // Receiver credits (section 26.7).
  kExtCreditLimitIgnored,
  kExtStaleGrantTaken,
  kExtPendingNotReported,
  kExtCreditNotEchoed,
  kExtCreditWithoutDemand,
  kExtCreditOutstandingUnbounded,
  kExtCreditUnpaced,
  kExtCreditNeverExpires,
  kExtCreditPacketPsnAhead,
  kExtCreditPacketAnswered,
  kExtCreditWithoutAgreement,
  kExtCreditWaitsForAck,
  // The sender window (section 26).
  kExtCwndInitMax,
  kExtCwndIgnored,
  kExtWindowNeverGrows,
  kExtFairIncreaseMissing,
  kExtEcnNeverDecreases,
  kExtEcnLowDelayDecreases,
  kExtDecreaseNotGated,
  kExtBaseRttFixed,
  kExtCcSendsCnp,
  kExtRetxWithoutTimestamp,
  kExtCeCountOnlyTrigger,
  kExtTseAlwaysSet,
  kExtTrimNakHalves,
  kExtNoQuickAdapt,
  kExtEcnAfterQuickAdapt,
  kExtUnpaced,
  // The sender's tail-loss probe and window (section 21.2).
  kExtNoTailLossProbe,
  kExtTailLossProbesUnlimited,
  kExtProbeRestartsRto,
  kExtMprWindowIgnored,
  // The receiver's ACK policy and RESYNC (sections 21.1, 22.3).
  kExtAckEveryIgnored,
  kExtAwaitedArAckDelayed,
  kExtEmptyResyncAnswered,
  kExtResyncWindowUnchecked,
  kExtReadReissuedWhole,
  kExtSackOffsetIgnored,
  kExtSackThresholdIgnored,
  kExtShortTrimDiscarded,
  kExtTrimmedResponseIgnored,
  kExtResourceNakNoBackoff,
  kExtResourceNaksUnlimited,
  kExtResyncCoveredDataResent,
  kExtStaleAckFailsQp,
  kExtCrethReservedChecked,
  kExtSecureWithoutSa,
  kExtSecureSxClear,
  kExtSecureTagUnchecked,
  kExtSecureReplayAccepted,
  kExtSecureStrictPnOrder,
  kExtSecurePnReused,
  kExtSecureRotationIgnored,
  kExtSecureEpochNeverDrains,
  kExtSecureTrimHtagUnchecked,
  kExtSecureSxIgnored,
  kExtSecureByKeysAlone,
  kExtSecureRekeyLimitIgnored,
  kExtIcrcSkipsExtHeaders,
  kExtModeDroppedOnModify,
  kExtServiceTimeZero,
  kExtMprZero,
  kExtWindowShrinks,
  kExtSackBaseEarly,
  kExtSackNoRotation,
  kExtLocalErrorSendsZeros,
  kExtSilentEvKeptGood,
  kExtAdaptiveNeverRecycles,
  kExtRetransmitsWithoutCredit,
  kExtBaseRttFromFirstSample,
  kExtCreditFirstQpFirst,
  kExtResourceDiscardSilent,
  kExtResourceNakRecordsPsn,
  kCount,
};

struct MutantInfo {
  Mutant id;
  std::string_view name;         // "two-naks-per-sequence-error"
  std::string_view clauses;      // "MR-PS-05"
  std::string_view description;  // what the broken device does
};

std::span<const MutantInfo> all_mutants();
const MutantInfo& info(Mutant m);
std::optional<Mutant> mutant_by_name(std::string_view name);

class MutantSet {
 public:
  bool active(Mutant m) const { return bits_.test(static_cast<size_t>(m)); }
  void enable(Mutant m) { bits_.set(static_cast<size_t>(m)); }
  bool any() const { return bits_.any(); }

 private:
  std::bitset<static_cast<size_t>(Mutant::kCount)> bits_;
};

}  // namespace mr::mutants
