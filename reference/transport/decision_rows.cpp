// Every mutant's row: the decision of one machine it breaks, and the value the broken device
// takes. One table per decisions struct, all in this file, so that the mutant -> decision
// map reads in one place (transport_decisions_test checks each mutant has exactly one row).
#include "reference/transport/transport_decisions.h"

namespace mr::transport {
namespace {

using mutants::Mutant;

constexpr DecisionRow<FramingDecisions> kFramingRows[] = {
    {Mutant::kVlanTagNotSent, &FramingDecisions::sends_vlan_tag, false},
    {Mutant::kVlanPcpZero, &FramingDecisions::vlan_pcp_from_address_vector, false},
    {Mutant::kIpv6TrafficClassZero, &FramingDecisions::ipv6_traffic_class_from_av, false},
    {Mutant::kIpv6HopLimitDefault, &FramingDecisions::ipv6_hop_limit_from_av, false},
    {Mutant::kTverNonzero, &FramingDecisions::bth_version_zero, false},
    {Mutant::kUdpSourcePortChanges, &FramingDecisions::udp_source_port_stable, false},
    {Mutant::kBecnOnData, &FramingDecisions::becn_only_on_cnp, false},
    {Mutant::kPadBytesNonzero, &FramingDecisions::pad_bytes_zero, false},
    {Mutant::kIcrcWrongByteOrder, &FramingDecisions::icrc_little_endian_on_wire, false},
    {Mutant::kExtIcrcSkipsExtHeaders, &FramingDecisions::icrc_covers_ext_headers, false},
};

constexpr DecisionRow<ReceiveDecisions> kReceiveRows[] = {
    {Mutant::kIcrcNotChecked, &ReceiveDecisions::checks_icrc, false},
    {Mutant::kCeMarkedDropped, &ReceiveDecisions::keeps_ce_marked_packets, false},
    {Mutant::kAcceptTverNonzero, &ReceiveDecisions::checks_bth_version, false},
    {Mutant::kMigReqDropped, &ReceiveDecisions::keeps_migreq_packets, false},
    {Mutant::kAcceptUnknownTransport, &ReceiveDecisions::checks_transport, false},
    {Mutant::kRtrAcceptsResponses, &ReceiveDecisions::rtr_refuses_responses, false},
    {Mutant::kResetStateAccepts, &ReceiveDecisions::init_refuses_requests, false},
    {Mutant::kErrorStateStillAnswers, &ReceiveDecisions::error_state_silent, false},
    {Mutant::kVlanPriorityMismatchDropped, &ReceiveDecisions::ignores_vlan_priority, false},
    {Mutant::kPkeyNotChecked, &ReceiveDecisions::checks_pkey, false},
};

constexpr DecisionRow<RequesterDecisions> kRequesterRows[] = {
    {Mutant::kUnackedPsnsUnbounded, &RequesterDecisions::bounds_unacked_psns, false},
    {Mutant::kReadConsumesOnePsn, &RequesterDecisions::read_takes_psn_per_response, false},
    {Mutant::kAckReqNotOnLast, &RequesterDecisions::ackreq_on_last, false},
    {Mutant::kAckReqOnlyOnLast, &RequesterDecisions::ackreq_periodic, false},
    {Mutant::kSolicitedOnEveryPacket, &RequesterDecisions::solicited_only_on_last, false},
    {Mutant::kUcSendsRcOpcodes, &RequesterDecisions::uc_sends_uc_opcodes, false},
    {Mutant::kWriteGatherWrapsAt64k, &RequesterDecisions::gathers_beyond_64k, false},
    {Mutant::kRetransmitEarly, &RequesterDecisions::waits_full_timeout, false},
    {Mutant::kTimeoutZeroRetransmits, &RequesterDecisions::timeout_zero_never_retransmits, false},
    {Mutant::kReadRetryFromMessageStart, &RequesterDecisions::read_retry_after_received, false},
    {Mutant::kLaterWqesNotRewound, &RequesterDecisions::rewinds_later_wqes, false},
};

constexpr DecisionRow<ResponderDecisions> kResponderRows[] = {
    {Mutant::kExecuteAheadOfSequence, &ResponderDecisions::refuses_psn_ahead, false},
    {Mutant::kUcKeepsMessageAfterGap, &ResponderDecisions::uc_drops_message_after_gap, false},
    {Mutant::kNoRnrNak, &ResponderDecisions::sends_rnr_nak, false},
    {Mutant::kRnrNakForWrite, &ResponderDecisions::rnr_nak_only_for_send, false},
    {Mutant::kRnrNakAdvancesEpsn, &ResponderDecisions::rnr_nak_keeps_epsn, false},
    {Mutant::kZeroLengthReadChecksRkey, &ResponderDecisions::zero_length_skips_rkey, false},
    {Mutant::kRkeyRangeOffByOne, &ResponderDecisions::checks_rkey_range, false},
    {Mutant::kMrAccessNotChecked, &ResponderDecisions::checks_mr_access, false},
    {Mutant::kRkeyPdNotChecked, &ResponderDecisions::checks_rkey_pd, false},
    {Mutant::kRemoteAccessNakAsInvalid, &ResponderDecisions::naks_rkey_error_as_remote_access,
     false},
    {Mutant::kMisalignedAtomicAccepted, &ResponderDecisions::refuses_misaligned_atomic, false},
    {Mutant::kLongSendTruncated, &ResponderDecisions::fails_long_send, false},
    {Mutant::kReceiveWqeLostOnError, &ResponderDecisions::completes_failed_receive, false},
    {Mutant::kSendPlacementWrapsAt64k, &ResponderDecisions::places_send_beyond_64k, false},
    {Mutant::kWritePlacementWrapsAt64k, &ResponderDecisions::places_write_beyond_64k, false},
    {Mutant::kSendWithInvalidateIgnored, &ResponderDecisions::invalidates_on_send_with_invalidate,
     false},
    {Mutant::kSequenceNakNeverRearmed, &ResponderDecisions::rearms_sequence_nak, false},
    {Mutant::kReadResourcesHoldOne, &ResponderDecisions::holds_max_dest_rd_atomic, false},
    {Mutant::kReadResponsePsnOffset, &ResponderDecisions::read_responses_start_at_request_psn,
     false},
    {Mutant::kReadFirstShort, &ResponderDecisions::read_first_full_mtu, false},
    {Mutant::kReadMiddleWithAeth, &ResponderDecisions::read_middle_without_aeth, false},
    {Mutant::kReadResponseOffsetWrapsAt64k, &ResponderDecisions::reads_beyond_64k, false},
    {Mutant::kCompareSwapAlwaysSwaps, &ResponderDecisions::compare_swap_compares, false},
    {Mutant::kFetchAddReturnsNewValue, &ResponderDecisions::fetch_add_returns_original, false},
    {Mutant::kUcAnswersWithAcks, &ResponderDecisions::uc_silent, false},
    {Mutant::kNoAckForAckReq, &ResponderDecisions::acks_every_ackreq, false},
    {Mutant::kAckPsnOffByOne, &ResponderDecisions::ack_carries_request_psn, false},
    {Mutant::kWrongMsn, &ResponderDecisions::reports_true_msn, false},
    {Mutant::kAckWithSolicited, &ResponderDecisions::acks_plain, false},
    {Mutant::kDuplicateReadDropped, &ResponderDecisions::answers_duplicate_read, false},
    {Mutant::kAtomicReplayReexecutes, &ResponderDecisions::replays_saved_atomic, false},
    {Mutant::kDuplicateWriteReexecuted, &ResponderDecisions::executes_duplicate_write_once, false},
    {Mutant::kDuplicateAckWrongPsn, &ResponderDecisions::duplicate_ack_carries_epsn_minus_one,
     false},
    {Mutant::kTwoNaksPerSequenceError, &ResponderDecisions::one_nak_per_sequence_error, false},
    {Mutant::kNakCarriesPacketPsn, &ResponderDecisions::sequence_nak_carries_epsn, false},
    {Mutant::kUcErrorOnStrayMiddle, &ResponderDecisions::uc_silent_on_stray_middle, false},
    {Mutant::kUcRkeyErrorNaks, &ResponderDecisions::uc_silent_on_rkey_error, false},
};

constexpr DecisionRow<CompleterDecisions> kCompleterRows[] = {
    {Mutant::kRetryCountIgnored, &CompleterDecisions::honours_retry_count, false},
    {Mutant::kRetryCountSevenInfinite, &CompleterDecisions::retry_count_seven_is_seven, false},
    {Mutant::kRetryBudgetNotResetOnProgress, &CompleterDecisions::resets_retry_budget_on_progress,
     false},
    {Mutant::kTimerNotRearmedOnProgress, &CompleterDecisions::rearms_timer_on_progress, false},
    {Mutant::kNoImplicitNakForRead, &CompleterDecisions::implicit_nak_for_read, false},
    {Mutant::kImplicitNakRetryStorm, &CompleterDecisions::one_retry_per_implicit_nak, false},
    {Mutant::kRnrRetryIgnored, &CompleterDecisions::honours_rnr_retry, false},
    {Mutant::kRnrBudgetNotResetOnProgress, &CompleterDecisions::resets_rnr_budget_on_progress,
     false},
    {Mutant::kRnrTimerIgnored, &CompleterDecisions::honours_rnr_timer, false},
    {Mutant::kReadPlacementWrapsAt64k, &CompleterDecisions::places_read_beyond_64k, false},
};

constexpr DecisionRow<DatagramDecisions> kDatagramRows[] = {
    {Mutant::kUdAckReqSet, &DatagramDecisions::ackreq_clear, false},
    {Mutant::kUdLargerThanPmtuSent, &DatagramDecisions::refuses_larger_than_pmtu, false},
    {Mutant::kControlledQkeyIgnored, &DatagramDecisions::controlled_qkey_is_the_qps, false},
    {Mutant::kQkeyNotChecked, &DatagramDecisions::checks_qkey, false},
    {Mutant::kGrhAreaNotFilled, &DatagramDecisions::fills_grh_area, false},
    {Mutant::kUdSourceQpNotReported, &DatagramDecisions::reports_source_qp, false},
    {Mutant::kUdLongMessageTruncated, &DatagramDecisions::drops_message_longer_than_wqe, false},
};

constexpr DecisionRow<CompletionDecisions> kCompletionRows[] = {
    {Mutant::kNoCompletionEvent, &CompletionDecisions::raises_completion_events, false},
    {Mutant::kSolicitedEventIgnoresSe, &CompletionDecisions::honours_solicited_event, false},
    {Mutant::kImmediateByteSwapped, &CompletionDecisions::immediate_in_host_order, false},
    {Mutant::kErrorStateNoFlush, &CompletionDecisions::flushes_on_error, false},
};

constexpr DecisionRow<CongestionDecisions> kCongestionRows[] = {
    {Mutant::kCnpNotRateLimited, &CongestionDecisions::cnp_rate_limited, false},
    {Mutant::kCnpWithoutBecn, &CongestionDecisions::cnp_sets_becn, false},
    {Mutant::kCnpAnswered, &CongestionDecisions::ce_marked_cnp_unanswered, false},
    {Mutant::kRpIgnoresCnp, &CongestionDecisions::reaction_point_acts_on_cnp, false},
    {Mutant::kRpReactsLate, &CongestionDecisions::reaction_point_acts_at_once, false},
    {Mutant::kRpFiltersCnpSourcePort, &CongestionDecisions::reaction_point_any_source_port, false},
    {Mutant::kRpRateBelowMinimum, &CongestionDecisions::reaction_point_keeps_minimum, false},
    {Mutant::kRpAcceptsBadIcrcCnp, &CongestionDecisions::cnp_icrc_checked, false},
};

}  // namespace

std::span<const DecisionRow<FramingDecisions>> FramingDecisions::rows() { return kFramingRows; }
std::span<const DecisionRow<ReceiveDecisions>> ReceiveDecisions::rows() { return kReceiveRows; }
std::span<const DecisionRow<RequesterDecisions>> RequesterDecisions::rows() {
  return kRequesterRows;
}
std::span<const DecisionRow<ResponderDecisions>> ResponderDecisions::rows() {
  return kResponderRows;
}
std::span<const DecisionRow<CompleterDecisions>> CompleterDecisions::rows() {
  return kCompleterRows;
}
std::span<const DecisionRow<DatagramDecisions>> DatagramDecisions::rows() { return kDatagramRows; }
constexpr DecisionRow<ExtensionDecisions> kExtensionRows[] = {
    {Mutant::kExtNeverNegotiated, &ExtensionDecisions::negotiates_ext, false},
    {Mutant::kExtWithoutOoo, &ExtensionDecisions::requires_sack_and_ooo, false},
    {Mutant::kExtAcceptsBasePackets, &ExtensionDecisions::drops_base_packets, false},
    {Mutant::kExtSackBitmapOffByOne, &ExtensionDecisions::sack_bitmap_aligned, false},
    {Mutant::kExtAraNotSet, &ExtensionDecisions::answers_ack_request_with_ara, false},
    {Mutant::kExtEvNotEchoed, &ExtensionDecisions::echoes_ev, false},
    {Mutant::kExtDupNotFlagged, &ExtensionDecisions::flags_duplicates, false},
    {Mutant::kExtGoBackN, &ExtensionDecisions::accepts_out_of_order, false},
    {Mutant::kExtMxhVersionUnchecked, &ExtensionDecisions::checks_mxh_version, false},
    {Mutant::kExtRnrRecordsPsn, &ExtensionDecisions::rnr_leaves_psn_unrecorded, false},
    {Mutant::kExtReadExecutesAhead, &ExtensionDecisions::holds_early_requests, false},
    {Mutant::kExtArInReadResponse, &ExtensionDecisions::read_responses_without_ar, false},
    {Mutant::kExtOowNakCumulativePsn, &ExtensionDecisions::oow_nak_names_packet, false},
    {Mutant::kExtRetransmitsSacked, &ExtensionDecisions::retransmits_only_outstanding, false},
    {Mutant::kExtRetxNotMarked, &ExtensionDecisions::marks_retransmissions, false},
    {Mutant::kExtAraLossIgnored, &ExtensionDecisions::repairs_ara_losses, false},
    {Mutant::kExtSackOffsetUnchecked, &ExtensionDecisions::checks_sack_offset, false},
    {Mutant::kExtNakAcknowledges, &ExtensionDecisions::naks_acknowledge_nothing, false},
    {Mutant::kExtObeysNak0x60, &ExtensionDecisions::ignores_nak_0x60, false},
    {Mutant::kExtControlDscpUnmarked, &ExtensionDecisions::marks_control_dscp, false},
    {Mutant::kExtLastHopNak0x65, &ExtensionDecisions::naks_last_hop_trims_0x66, false},
    {Mutant::kExtTrimRecordsPsn, &ExtensionDecisions::trimmed_psn_unrecorded, false},
    {Mutant::kExtTrimNaksAnyPsn, &ExtensionDecisions::naks_only_new_trimmed_psns, false},
    {Mutant::kExtTrimChecksIpChecksum, &ExtensionDecisions::trim_ignores_ip_checksum, false},
    {Mutant::kExtRemarkNotSignalled, &ExtensionDecisions::signals_remarked_packets, false},
    {Mutant::kExtTrimNakGoBackN, &ExtensionDecisions::trim_nak_retransmits_one, false},
    {Mutant::kExtTrimmedAckProcessed, &ExtensionDecisions::discards_trimmed_control, false},
    {Mutant::kExtTrimWithoutAgreement, &ExtensionDecisions::trims_only_when_agreed, false},
    {Mutant::kExtNonfatalEndsQp, &ExtensionDecisions::nonfatal_keeps_qp, false},
    {Mutant::kExtFailedPsnRecorded, &ExtensionDecisions::failed_psn_unrecorded, false},
    {Mutant::kExtResourceDiscardSilent, &ExtensionDecisions::naks_refused_messages, false},
    {Mutant::kExtResourceNakRecordsPsn, &ExtensionDecisions::refused_psn_unrecorded, false},
    {Mutant::kExtResyncRangeUnrecorded, &ExtensionDecisions::resync_records_range, false},
    {Mutant::kExtNoResyncAfterOpNak, &ExtensionDecisions::resyncs_failed_operations, false},
    {Mutant::kExtOpNakWithoutNonfatal, &ExtensionDecisions::operation_naks_need_nonfatal, false},
    {Mutant::kExtRtoInitAsMin, &ExtensionDecisions::waits_rto_init, false},
    {Mutant::kExtRtoNeverBacksOff, &ExtensionDecisions::backs_off_rto, false},
    {Mutant::kExtRetryUnlimited, &ExtensionDecisions::fails_after_retry_budget, false},
    {Mutant::kExtReadImplicitNak, &ExtensionDecisions::read_outlives_cumulative_ack, false},
    {Mutant::kExtRnrGoBackN, &ExtensionDecisions::rnr_retransmits_one, false},
    {Mutant::kExtRetxSameEv, &ExtensionDecisions::retransmits_on_other_ev, false},
    {Mutant::kExtDeniedEvUsed, &ExtensionDecisions::denied_ev_unused, false},
    {Mutant::kExtRtoKeepsEvGood, &ExtensionDecisions::rto_assumes_ev_bad, false},
    {Mutant::kExtMinActiveIgnored, &ExtensionDecisions::keeps_min_active_evs, false},
    {Mutant::kExtNoPathProbes, &ExtensionDecisions::probes_assumed_bad_evs, false},
    {Mutant::kExtProbeAnswerIgnored, &ExtensionDecisions::probe_answer_restores_ev, false},
    {Mutant::kExtProbeUnanswered, &ExtensionDecisions::answers_probes, false},
    {Mutant::kExtEcnMarksEvBad, &ExtensionDecisions::ecn_leaves_ev_good, false},
    {Mutant::kExtPortDownIgnored, &ExtensionDecisions::port_down_stops_evs, false},
    {Mutant::kExtPortUpNoHold, &ExtensionDecisions::holds_port_after_up, false},
    {Mutant::kExtSingleEvMultipath, &ExtensionDecisions::sprays_with_multipath, false},
    {Mutant::kExtSpraysWithoutMultipath, &ExtensionDecisions::single_ev_without_multipath, false},
    {Mutant::kExtSportNotEv, &ExtensionDecisions::sport_is_ev, false},
    {Mutant::kExtDefaultSetSkewed, &ExtensionDecisions::default_evs_aligned, false},
    {Mutant::kExtSpuriousRtoKept, &ExtensionDecisions::spurious_rto_restores_ev, false},
    {Mutant::kExtHolddownNeverEnds, &ExtensionDecisions::holddown_returns_ev, false},
    {Mutant::kExtAckPathLossIgnored, &ExtensionDecisions::blames_ack_paths, false},
    {Mutant::kExtFlapsNotDamped, &ExtensionDecisions::damps_flapping_evs, false},
    {Mutant::kExtTrimNakMarksEvBad, &ExtensionDecisions::trim_nak_leaves_ev_good, false},
    {Mutant::kExtReservedBitsChecked, &ExtensionDecisions::ignores_reserved_bits, false},
    {Mutant::kExtAdaptiveNeverExplores, &ExtensionDecisions::adaptive_explores, false},
    {Mutant::kExtRkeyCheckedAtFirstOnly, &ExtensionDecisions::checks_rkey_on_any_packet, false},
    {Mutant::kExtNonfatalWithoutAgreement, &ExtensionDecisions::fatal_naks_without_nonfatal, false},
    {Mutant::kExtAdaptiveIgnoresMarks, &ExtensionDecisions::holds_marked_evs, false},
    {Mutant::kExtAdaptiveWithoutAgreement, &ExtensionDecisions::adapts_only_when_agreed, false},
    {Mutant::kExtCeAcksFolded, &ExtensionDecisions::acks_each_ce_when_adaptive, false},
    {Mutant::kExtCreditLimitIgnored, &ExtensionDecisions::respects_credit_limit, false},
    {Mutant::kExtStaleGrantTaken, &ExtensionDecisions::takes_only_newer_grants, false},
    {Mutant::kExtPendingNotReported, &ExtensionDecisions::reports_pending, false},
    {Mutant::kExtCreditNotEchoed, &ExtensionDecisions::echoes_credit, false},
    {Mutant::kExtCreditWithoutDemand, &ExtensionDecisions::raises_only_on_demand, false},
    {Mutant::kExtCreditOutstandingUnbounded, &ExtensionDecisions::bounds_outstanding_credit, false},
    {Mutant::kExtCreditUnpaced, &ExtensionDecisions::paces_credit, false},
    {Mutant::kExtCreditNeverExpires, &ExtensionDecisions::expires_credit, false},
    {Mutant::kExtCreditPacketPsnAhead, &ExtensionDecisions::credit_packet_at_cumulative, false},
    {Mutant::kExtCreditPacketAnswered, &ExtensionDecisions::leaves_credit_unanswered, false},
    {Mutant::kExtCreditWithoutAgreement, &ExtensionDecisions::credit_only_when_agreed, false},
    {Mutant::kExtCreditWaitsForAck, &ExtensionDecisions::sends_credit_packets, false},
    {Mutant::kExtCwndInitMax, &ExtensionDecisions::starts_at_cwnd_init, false},
    {Mutant::kExtCwndIgnored, &ExtensionDecisions::respects_cwnd, false},
    {Mutant::kExtWindowNeverGrows, &ExtensionDecisions::increases_proportionally, false},
    {Mutant::kExtFairIncreaseMissing, &ExtensionDecisions::increases_fairly, false},
    {Mutant::kExtEcnNeverDecreases, &ExtensionDecisions::decreases_on_ecn_and_delay, false},
    {Mutant::kExtEcnLowDelayDecreases, &ExtensionDecisions::ecn_low_delay_holds, false},
    {Mutant::kExtDecreaseNotGated, &ExtensionDecisions::gates_decrease, false},
    {Mutant::kExtBaseRttFixed, &ExtensionDecisions::samples_base_rtt, false},
    {Mutant::kExtCcSendsCnp, &ExtensionDecisions::cc_suppresses_cnp, false},
    {Mutant::kExtRetxWithoutTimestamp, &ExtensionDecisions::timestamps_retransmissions, false},
    {Mutant::kExtCeCountOnlyTrigger, &ExtensionDecisions::counts_ce_marks, false},
    {Mutant::kExtTseAlwaysSet, &ExtensionDecisions::tse_follows_tsv, false},
    {Mutant::kExtTrimNakHalves, &ExtensionDecisions::trim_takes_packet_off, false},
    {Mutant::kExtNoQuickAdapt, &ExtensionDecisions::quick_adapts, false},
    {Mutant::kExtEcnAfterQuickAdapt, &ExtensionDecisions::ignores_ecn_after_quick_adapt, false},
    {Mutant::kExtUnpaced, &ExtensionDecisions::paces, false},
    {Mutant::kExtNoTailLossProbe, &ExtensionDecisions::probes_tail_losses, false},
    {Mutant::kExtTailLossProbesUnlimited, &ExtensionDecisions::bounds_tail_loss_probes, false},
    {Mutant::kExtProbeRestartsRto, &ExtensionDecisions::probe_keeps_rto, false},
    {Mutant::kExtMprWindowIgnored, &ExtensionDecisions::respects_mpr_window, false},
    {Mutant::kExtAckEveryIgnored, &ExtensionDecisions::acks_every_n, false},
    {Mutant::kExtAwaitedArAckDelayed, &ExtensionDecisions::answers_awaited_ar, false},
    {Mutant::kExtEmptyResyncAnswered, &ExtensionDecisions::discards_empty_resync, false},
    {Mutant::kExtResyncWindowUnchecked, &ExtensionDecisions::checks_resync_window, false},
    {Mutant::kExtReadReissuedWhole, &ExtensionDecisions::reissues_from_missing, false},
    {Mutant::kExtSackOffsetIgnored, &ExtensionDecisions::reads_sack_offset, false},
    {Mutant::kExtSackThresholdIgnored, &ExtensionDecisions::waits_ooo_threshold, false},
    {Mutant::kExtShortTrimDiscarded, &ExtensionDecisions::naks_short_trims, false},
    {Mutant::kExtTrimmedResponseIgnored, &ExtensionDecisions::reissues_on_trimmed_response, false},
    {Mutant::kExtResourceNakNoBackoff, &ExtensionDecisions::backs_off_resource_naks, false},
    {Mutant::kExtResourceNaksUnlimited, &ExtensionDecisions::bounds_resource_naks, false},
    {Mutant::kExtResyncCoveredDataResent, &ExtensionDecisions::resends_resync, false},
    {Mutant::kExtStaleAckFailsQp, &ExtensionDecisions::tolerates_stale_acks, false},
    {Mutant::kExtCrethReservedChecked, &ExtensionDecisions::ignores_creth_reserved_bits, false},
    {Mutant::kExtSecureWithoutSa, &ExtensionDecisions::secure_requires_sa, false},
    {Mutant::kExtSecureSxClear, &ExtensionDecisions::secure_sets_sx, false},
    {Mutant::kExtSecureTagUnchecked, &ExtensionDecisions::secure_checks_tag, false},
    {Mutant::kExtSecureReplayAccepted, &ExtensionDecisions::secure_checks_replay, false},
    {Mutant::kExtSecureStrictPnOrder, &ExtensionDecisions::secure_accepts_reordered_pns, false},
    {Mutant::kExtSecurePnReused, &ExtensionDecisions::secure_new_pn_per_packet, false},
    {Mutant::kExtSecureRotationIgnored, &ExtensionDecisions::secure_rotates_on_request, false},
    {Mutant::kExtSecureEpochNeverDrains, &ExtensionDecisions::secure_drains_previous_epoch, false},
    {Mutant::kExtSecureTrimHtagUnchecked, &ExtensionDecisions::secure_trim_checks_htag, false},
    {Mutant::kExtSecureSxIgnored, &ExtensionDecisions::secure_refuses_sx_without_secure, false},
    {Mutant::kExtSecureByKeysAlone, &ExtensionDecisions::secure_needs_both_blocks, false},
    {Mutant::kExtSecureRekeyLimitIgnored, &ExtensionDecisions::secure_rekeys_at_limit, false},
    {Mutant::kExtModeDroppedOnModify, &ExtensionDecisions::keeps_ext_mode_until_reset, false},
    {Mutant::kExtServiceTimeZero, &ExtensionDecisions::reports_service_time, false},
    {Mutant::kExtMprZero, &ExtensionDecisions::advertises_mpr, false},
    {Mutant::kExtWindowShrinks, &ExtensionDecisions::keeps_window_edge, false},
    {Mutant::kExtSackBaseEarly, &ExtensionDecisions::offsets_only_beyond_64, false},
    {Mutant::kExtSackNoRotation, &ExtensionDecisions::rotates_sack_bitmap, false},
    {Mutant::kExtLocalErrorSendsZeros, &ExtensionDecisions::resyncs_local_errors, false},
    {Mutant::kExtSilentEvKeptGood, &ExtensionDecisions::blames_silent_evs, false},
    {Mutant::kExtAdaptiveNeverRecycles, &ExtensionDecisions::adaptive_recycles, false},
    {Mutant::kExtRetransmitsWithoutCredit, &ExtensionDecisions::retransmits_within_credit, false},
    {Mutant::kExtBaseRttFromFirstSample, &ExtensionDecisions::base_rtt_starts_at_parameter, false},
    {Mutant::kExtCreditFirstQpFirst, &ExtensionDecisions::raises_round_robin, false},
};

std::span<const DecisionRow<ExtensionDecisions>> ExtensionDecisions::rows() {
  return kExtensionRows;
}

std::span<const DecisionRow<CompletionDecisions>> CompletionDecisions::rows() {
  return kCompletionRows;
}
std::span<const DecisionRow<CongestionDecisions>> CongestionDecisions::rows() {
  return kCongestionRows;
}

}  // namespace mr::transport
