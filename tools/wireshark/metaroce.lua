-- metaroce.lua: Wireshark dissector for MetaRoCE Part II (revision 2) extension packets.
--
-- Spec: docs/spec/metaroce.md, sections 3.2 (BTH SX), 18 (MXCAP), 19 (table 19.1, MXH,
-- SACKETH, SECH), 22 (Ext NAK codes, RSYNETH), 25.2 (PROBE), 26.8 (CRETH). Tested with
-- Wireshark 4.0 (Debian 12) by tools/wireshark/metaroce_test.py; see
-- tools/wireshark/README.md.
--
-- Integration. Wireshark 4.0's InfiniBand dissector ignores BTH TVer: for a TVer-1 packet it
-- dissects the BTH and then the headers of the base (IBTA) header set of the opcode, so the
-- MXH of a WRITE_FIRST is shown as a RETH, an Ext ACK's SACKETH becomes payload and
-- opcodes 0x18-0x1A are "Unknown". A postdissector could only add a second tree next to
-- those wrong fields (and `infiniband.reth.va` would still match the MXH bytes). So this
-- script takes over UDP port 4791 instead: it keeps the handle that was registered there
-- (Wireshark's RRoCE dissector) and gives it every packet whose TVer is not 1, so base
-- mode traffic dissects exactly as without the script; TVer-1 packets are dissected here,
-- BTH included, with Wireshark's own field names for the BTH and the IBTA headers
-- (infiniband.bth.psn, infiniband.reth.va, infiniband.aeth.msn, ...) so that one display
-- filter works on base and Ext packets, and metaroce.* names for the Part II headers.
-- A TVer-1 packet carries a SECH after the BTH and a tag before the ICRC exactly when its
-- BTH has SX = 1 (byte 8 bit 6, the top bit of Resv7, section 19.4): the dissector reads
-- SX, nothing else.
-- MXCAP travels in RDMA CM REQ/REP private data, which Wireshark's own dissector parses
-- (TVer 0, QP1 MADs); a small postdissector finds those fields and adds the MXCAP tree.

local proto = Proto("metaroce", "MetaRoCE Part II")
local mxcap_proto = Proto("metaroce_mxcap", "MetaRoCE capability block (MXCAP)")

local ROCEV2_PORT = 4791

------------------------------------------------------------------------------------------
-- Names
------------------------------------------------------------------------------------------

-- Table 3.3 RC opcodes plus the three Part II additions of section 19.1 (TVer 1 only).
local OPCODE_NAMES = {
    [0x00] = "SEND_FIRST", [0x01] = "SEND_MIDDLE", [0x02] = "SEND_LAST",
    [0x03] = "SEND_LAST_WITH_IMMEDIATE", [0x04] = "SEND_ONLY",
    [0x05] = "SEND_ONLY_WITH_IMMEDIATE", [0x06] = "RDMA_WRITE_FIRST",
    [0x07] = "RDMA_WRITE_MIDDLE", [0x08] = "RDMA_WRITE_LAST",
    [0x09] = "RDMA_WRITE_LAST_WITH_IMMEDIATE", [0x0A] = "RDMA_WRITE_ONLY",
    [0x0B] = "RDMA_WRITE_ONLY_WITH_IMMEDIATE", [0x0C] = "RDMA_READ_REQUEST",
    [0x0D] = "RDMA_READ_RESPONSE_FIRST", [0x0E] = "RDMA_READ_RESPONSE_MIDDLE",
    [0x0F] = "RDMA_READ_RESPONSE_LAST", [0x10] = "RDMA_READ_RESPONSE_ONLY",
    [0x11] = "ACKNOWLEDGE", [0x12] = "ATOMIC_ACKNOWLEDGE", [0x13] = "COMPARE_SWAP",
    [0x14] = "FETCH_ADD", [0x16] = "SEND_LAST_WITH_INVALIDATE",
    [0x17] = "SEND_ONLY_WITH_INVALIDATE",
    [0x18] = "PROBE", [0x19] = "CREDIT", [0x1A] = "RESYNC",
}

-- AETH NAK codes (syndrome bits 6:5 = 11): the base codes of section 6.1 and the
-- extension codes of section 22 (0x65-0x67 every Ext QP, 0x68-0x6B with NONFATAL).
local NAK_NAMES = {
    [0x60] = "PSN_SEQUENCE_ERROR", [0x61] = "INVALID_REQUEST",
    [0x62] = "REMOTE_ACCESS_ERROR", [0x63] = "REMOTE_OPERATIONAL_ERROR",
    [0x64] = "INVALID_RD_REQUEST",
    [0x65] = "TRIMMED", [0x66] = "TRIMMED_LAST_HOP", [0x67] = "PSN_OUT_OF_WINDOW",
    [0x68] = "OP_INVALID_REQUEST", [0x69] = "OP_REMOTE_ACCESS",
    [0x6A] = "OP_REMOTE_OPERATIONAL", [0x6B] = "RESOURCE",
}
local AETH_KIND = { [0] = "ACK", [1] = "RNR NAK", [2] = "Reserved", [3] = "NAK" }

local RESYNC_CODES = { [1] = "OP_ERROR", [2] = "ABORT", [3] = "RESOURCE" }
local SECH_SUITES = { [1] = "AES-256-GCM, 16-byte tag" }
local EV_MODES = { [0] = "UDP", [1] = "FLOW" }

------------------------------------------------------------------------------------------
-- Fields. BTH and IBTA headers reuse the abbreviations (and types) of Wireshark's
-- InfiniBand dissector; Part II headers are metaroce.<header>.<field>.
------------------------------------------------------------------------------------------

local F = {}
local function field(key, pf) F[key] = pf; return pf end

-- BTH (section 3.2)
field("bth", ProtoField.bytes("infiniband.bth", "Base Transport Header"))
field("bth_opcode", ProtoField.uint8("infiniband.bth.opcode", "Opcode", base.HEX, OPCODE_NAMES))
field("bth_se", ProtoField.bool("infiniband.bth.se", "Solicited Event", 8, nil, 0x80))
field("bth_m", ProtoField.bool("infiniband.bth.m", "MigReq", 8, nil, 0x40))
field("bth_padcnt", ProtoField.uint8("infiniband.bth.padcnt", "Pad Count", base.DEC, nil, 0x30))
field("bth_tver", ProtoField.uint8("infiniband.bth.tver", "Header Version", base.DEC, nil, 0x0F))
field("bth_pkey", ProtoField.uint16("infiniband.bth.p_key", "Partition Key", base.DEC))
field("bth_fecn", ProtoField.bool("metaroce.bth.fecn", "FECN", 8, nil, 0x80))
field("bth_becn", ProtoField.bool("metaroce.bth.becn", "BECN", 8, nil, 0x40))
field("bth_resv6a", ProtoField.uint8("metaroce.bth.resv6a", "Reserved (6 bits)", base.HEX, nil, 0x3F))
field("bth_destqp", ProtoField.uint24("infiniband.bth.destqp", "Destination Queue Pair", base.HEX))
field("bth_a", ProtoField.bool("infiniband.bth.a", "Acknowledge Request", 8, nil, 0x80))
-- Resv7 keeps Wireshark's 7-bit field (as Scapy's resv7); in an Ext packet its bit 6 is SX
-- and only bits 5:0 are reserved.
field("bth_resv7", ProtoField.uint8("infiniband.bth.reserved7", "Resv7 (SX and reserved bits 5:0)", base.DEC, nil, 0x7F))
field("bth_sx", ProtoField.bool("metaroce.bth.sx", "SX (SECH follows)", 8, nil, 0x40))
field("bth_psn", ProtoField.uint24("infiniband.bth.psn", "Packet Sequence Number", base.DEC))

-- MXH (section 19.2, 20 bytes)
field("mxh", ProtoField.bytes("metaroce.mxh", "MetaRoCE Extension Header (MXH)"))
field("mxh_ver", ProtoField.uint8("metaroce.mxh.ver", "Ver", base.DEC, nil, 0xF0))
field("mxh_retx", ProtoField.bool("metaroce.mxh.retx", "RETX (retransmission)", 8, nil, 0x08))
field("mxh_tsv", ProtoField.bool("metaroce.mxh.tsv", "TSV (timestamp valid)", 8, nil, 0x04))
field("mxh_ar", ProtoField.bool("metaroce.mxh.ar", "AR (ACK request)", 8, nil, 0x02))
field("mxh_resv0", ProtoField.uint8("metaroce.mxh.resv0", "Reserved (bit 0)", base.DEC, nil, 0x01))
field("mxh_plane", ProtoField.uint8("metaroce.mxh.plane", "Plane", base.DEC))
field("mxh_ev", ProtoField.uint16("metaroce.mxh.ev", "EV", base.HEX))
field("mxh_pending", ProtoField.uint8("metaroce.mxh.pending", "Pending (x 4096 bytes)", base.DEC))
field("mxh_msn", ProtoField.uint24("metaroce.mxh.msn", "MSN", base.DEC))
field("mxh_resv8", ProtoField.uint8("metaroce.mxh.resv8", "Reserved (byte 8)", base.HEX))
field("mxh_rqsn", ProtoField.uint24("metaroce.mxh.rqsn", "RQSN", base.DEC))
field("mxh_offset", ProtoField.uint32("metaroce.mxh.offset", "Offset", base.DEC_HEX))
field("mxh_txts", ProtoField.uint32("metaroce.mxh.txts", "TX timestamp (ns)", base.DEC))

-- SACKETH (section 19.3, 28 bytes)
field("sack", ProtoField.bytes("metaroce.sack", "Selective ACK Extended Transport Header (SACKETH)"))
field("sack_flags", ProtoField.uint8("metaroce.sack.flags", "Flags", base.HEX))
field("sack_ece", ProtoField.bool("metaroce.sack.ece", "ECE (CE-marked)", 8, nil, 0x80))
field("sack_trm", ProtoField.bool("metaroce.sack.trm", "TRM (trimmed)", 8, nil, 0x40))
field("sack_oow", ProtoField.bool("metaroce.sack.oow", "OOW (out of window discarded)", 8, nil, 0x20))
field("sack_prb", ProtoField.bool("metaroce.sack.prb", "PRB (probe reply)", 8, nil, 0x10))
field("sack_dup", ProtoField.bool("metaroce.sack.dup", "DUP (duplicate)", 8, nil, 0x08))
field("sack_tse", ProtoField.bool("metaroce.sack.tse", "TSE (TS echo valid)", 8, nil, 0x04))
field("sack_ara", ProtoField.bool("metaroce.sack.ara", "ARA (answers AR)", 8, nil, 0x02))
field("sack_crv", ProtoField.bool("metaroce.sack.crv", "CRV (credit valid)", 8, nil, 0x01))
field("sack_ref", ProtoField.uint24("metaroce.sack.ref", "SACK reference", base.HEX))
field("sack_bitmap", ProtoField.uint64("metaroce.sack.bitmap", "Bitmap", base.HEX))
field("sack_ev_echo", ProtoField.uint16("metaroce.sack.ev_echo", "EV echo", base.HEX))
field("sack_plane_echo", ProtoField.uint8("metaroce.sack.plane_echo", "Plane echo", base.DEC))
field("sack_mpr", ProtoField.uint8("metaroce.sack.mpr", "MPR (x 128 PSNs)", base.DEC))
field("sack_ce_count", ProtoField.uint16("metaroce.sack.ce_count", "CE count", base.DEC))
field("sack_service_time", ProtoField.uint16("metaroce.sack.service_time", "Service time (x 64 ns)", base.DEC))
field("sack_ts_echo", ProtoField.uint32("metaroce.sack.ts_echo", "TS echo", base.HEX))
field("sack_offset", ProtoField.int16("metaroce.sack.offset", "SACK offset", base.DEC))
field("sack_credit", ProtoField.uint16("metaroce.sack.credit_limit", "Credit limit (x 256 bytes)", base.DEC))
-- generated from the bitmap: base B = (R + O) mod 2^24, bit i = PSN B + i
field("sack_base", ProtoField.uint24("metaroce.sack.base", "Bitmap base", base.HEX))
field("sack_psn", ProtoField.uint24("metaroce.sack.psn", "Received PSN", base.HEX))
field("sack_hole", ProtoField.uint24("metaroce.sack.hole", "Missing PSN", base.HEX))

-- IBTA headers as they follow the BTH or MXH (section 3.3)
field("reth", ProtoField.bytes("infiniband.reth", "RETH - RDMA Extended Transport Header"))
field("reth_va", ProtoField.uint64("infiniband.reth.va", "Virtual Address", base.HEX))
field("reth_rkey", ProtoField.uint32("infiniband.reth.r_key", "Remote Key", base.HEX))
field("reth_dmalen", ProtoField.uint32("infiniband.reth.dmalen", "DMA Length", base.DEC_HEX))
field("aeth", ProtoField.bytes("infiniband.aeth", "AETH - ACK Extended Transport Header"))
field("aeth_syndrome", ProtoField.uint8("infiniband.aeth.syndrome", "Syndrome", base.HEX))
field("aeth_kind", ProtoField.uint8("infiniband.aeth.syndrome.opcode", "OpCode", base.DEC, AETH_KIND, 0x60))
field("aeth_nak", ProtoField.uint8("metaroce.aeth.nak", "NAK code", base.HEX, NAK_NAMES))
field("aeth_msn", ProtoField.uint24("infiniband.aeth.msn", "Message Sequence Number", base.DEC))
field("atomic", ProtoField.bytes("infiniband.atomiceth", "AtomicETH - Atomic Extended Transport Header"))
field("atomic_swap", ProtoField.uint64("infiniband.atomiceth.swapdt", "Swap (Or Add) Data", base.DEC))
field("atomic_cmp", ProtoField.uint64("infiniband.atomiceth.cmpdt", "Compare Data", base.DEC))
field("atomicack", ProtoField.bytes("infiniband.atomicacketh", "AtomicAckETH - Atomic ACK Extended Transport Header"))
field("atomicack_orig", ProtoField.uint64("infiniband.atomicacketh.origremdt", "Original Remote Data", base.DEC))
field("immdt", ProtoField.bytes("infiniband.immdt", "Immediate Data"))
field("ieth", ProtoField.bytes("infiniband.ieth", "RKey"))

-- CRETH (section 26.8), RSYNETH (section 22.3), SECH and tag (section 19.4)
field("creth", ProtoField.bytes("metaroce.creth", "Credit Extended Transport Header (CRETH)"))
field("creth_ver", ProtoField.uint8("metaroce.creth.ver", "Ver", base.DEC, nil, 0xF0))
field("creth_resv4", ProtoField.uint8("metaroce.creth.resv4", "Reserved (bits 3:0)", base.HEX, nil, 0x0F))
field("creth_resv8", ProtoField.uint8("metaroce.creth.resv8", "Reserved (byte 1)", base.HEX))
field("creth_limit", ProtoField.uint16("metaroce.creth.credit_limit", "Credit limit (x 256 bytes)", base.DEC_HEX))
field("rsyn", ProtoField.bytes("metaroce.rsyneth", "Resync Extended Transport Header (RSYNETH)"))
field("rsyn_code", ProtoField.uint8("metaroce.rsyneth.code", "Code", base.DEC, RESYNC_CODES))
field("rsyn_end", ProtoField.bool("metaroce.rsyneth.end", "END (range ends its message)", 8, nil, 0x80))
field("rsyn_resv7", ProtoField.uint8("metaroce.rsyneth.resv7", "Reserved (7 bits)", base.HEX, nil, 0x7F))
field("rsyn_count", ProtoField.uint16("metaroce.rsyneth.count", "Count", base.DEC))
field("sech", ProtoField.bytes("metaroce.sech", "Secure Extended Header (SECH)"))
field("sech_ver", ProtoField.uint8("metaroce.sech.ver", "Ver", base.DEC, nil, 0xF0))
field("sech_suite", ProtoField.uint8("metaroce.sech.suite", "Suite", base.DEC, SECH_SUITES, 0x0F))
field("sech_resv8", ProtoField.uint8("metaroce.sech.resv8", "Reserved (byte 1)", base.HEX))
field("sech_epoch", ProtoField.uint16("metaroce.sech.epoch", "Epoch", base.DEC))
field("sech_spi", ProtoField.uint32("metaroce.sech.spi", "SPI", base.HEX))
field("sech_pn", ProtoField.uint64("metaroce.sech.pn", "PN", base.DEC))
field("sech_htag", ProtoField.bytes("metaroce.sech.htag", "HTAG (header tag)"))
field("sech_tag", ProtoField.bytes("metaroce.sech.tag", "Authentication tag"))

field("payload", ProtoField.bytes("metaroce.payload", "Payload"))
field("pad", ProtoField.bytes("metaroce.pad", "Pad"))
field("icrc", ProtoField.uint32("infiniband.invariant.crc", "Invariant CRC", base.HEX))
field("icrc_calc", ProtoField.uint32("metaroce.icrc.computed", "Computed ICRC", base.HEX))

proto.fields = F

-- MXCAP (section 18) lives in its own protocol: it is dissected after Wireshark's CM.
local M = {}
M.block = ProtoField.bytes("metaroce.mxcap", "MXCAP")
M.magic = ProtoField.string("metaroce.mxcap.magic", "Magic")
M.version = ProtoField.uint8("metaroce.mxcap.version", "Version", base.DEC)
M.features = ProtoField.uint8("metaroce.mxcap.features", "Features", base.HEX)
M.f_sack = ProtoField.bool("metaroce.mxcap.sack", "SACK", 8, nil, 0x01)
M.f_ooo = ProtoField.bool("metaroce.mxcap.ooo", "OOO", 8, nil, 0x02)
M.f_multipath = ProtoField.bool("metaroce.mxcap.multipath", "MULTIPATH", 8, nil, 0x04)
M.f_trim = ProtoField.bool("metaroce.mxcap.trim", "TRIM", 8, nil, 0x08)
M.f_pathprobe = ProtoField.bool("metaroce.mxcap.pathprobe", "PATHPROBE", 8, nil, 0x10)
M.f_cc = ProtoField.bool("metaroce.mxcap.cc", "CC", 8, nil, 0x20)
M.f_adaptive = ProtoField.bool("metaroce.mxcap.adaptive", "ADAPTIVE", 8, nil, 0x40)
M.f_credit = ProtoField.bool("metaroce.mxcap.credit", "CREDIT", 8, nil, 0x80)
M.ev_mode = ProtoField.uint8("metaroce.mxcap.ev_mode", "EV mode", base.DEC, EV_MODES)
M.mpr = ProtoField.uint8("metaroce.mxcap.mpr", "MPR (x 128 PSNs)", base.DEC)
M.planes = ProtoField.uint8("metaroce.mxcap.planes", "Planes", base.DEC)
M.features2 = ProtoField.uint8("metaroce.mxcap.features2", "Features 2", base.HEX)
M.f_nonfatal = ProtoField.bool("metaroce.mxcap.nonfatal", "NONFATAL", 8, nil, 0x01)
M.f_resync = ProtoField.bool("metaroce.mxcap.resync", "RESYNC", 8, nil, 0x02)
M.f_secure = ProtoField.bool("metaroce.mxcap.secure", "SECURE", 8, nil, 0x04)
M.f2_resv = ProtoField.uint8("metaroce.mxcap.features2_resv", "Reserved (bits 7:3)", base.HEX, nil, 0xF8)
M.ev_count = ProtoField.uint16("metaroce.mxcap.ev_count", "EV count", base.DEC)
M.resv = ProtoField.uint32("metaroce.mxcap.reserved", "Reserved", base.HEX)
mxcap_proto.fields = M

------------------------------------------------------------------------------------------
-- Expert info
------------------------------------------------------------------------------------------

local E = {
    reserved = ProtoExpert.new("metaroce.reserved_set", "Reserved bits set",
        expert.group.PROTOCOL, expert.severity.WARN),
    version = ProtoExpert.new("metaroce.bad_version", "Header version is not 1",
        expert.group.MALFORMED, expert.severity.ERROR),
    short = ProtoExpert.new("metaroce.short", "Packet too short for the headers of table 19.1",
        expert.group.MALFORMED, expert.severity.ERROR),
    sack_offset = ProtoExpert.new("metaroce.sack.offset_not_multiple_of_8",
        "SACK offset is not a multiple of 8", expert.group.PROTOCOL, expert.severity.WARN),
    sack_ref = ProtoExpert.new("metaroce.sack.ref_inconsistent",
        "SACK reference is not (cumulative PSN + 1) rounded down to a multiple of 8",
        expert.group.PROTOCOL, expert.severity.WARN),
    sack_credit = ProtoExpert.new("metaroce.sack.credit_without_crv",
        "Credit limit is not 0 while CRV = 0", expert.group.PROTOCOL, expert.severity.WARN),
    opcode = ProtoExpert.new("metaroce.unknown_opcode",
        "Opcode has no header set in table 19.1", expert.group.PROTOCOL, expert.severity.WARN),
    payload = ProtoExpert.new("metaroce.unexpected_payload",
        "Payload on an opcode that carries none", expert.group.PROTOCOL, expert.severity.WARN),
    icrc = ProtoExpert.new("metaroce.icrc_bad", "ICRC mismatch",
        expert.group.CHECKSUM, expert.severity.ERROR),
    count0 = ProtoExpert.new("metaroce.rsyneth.count_zero", "RESYNC count 0 (discarded by the receiver)",
        expert.group.PROTOCOL, expert.severity.WARN),
    ext_nak = ProtoExpert.new("metaroce.ext_nak", "Extension NAK",
        expert.group.SEQUENCE, expert.severity.NOTE),
    sx_short = ProtoExpert.new("metaroce.sx_short",
        "SX = 1 but the packet cannot hold SECH, headers, tag and ICRC",
        expert.group.MALFORMED, expert.severity.WARN),
}
proto.experts = E
mxcap_proto.experts = {
    ProtoExpert.new("metaroce.mxcap.invalid", "MXCAP does not enable extension mode",
        expert.group.PROTOCOL, expert.severity.NOTE),
}
local E_MXCAP_INVALID = mxcap_proto.experts[1]

------------------------------------------------------------------------------------------
-- Preferences
------------------------------------------------------------------------------------------

-- No preference says whether a packet is secure: the BTH's SX bit does (section 19.4).
proto.prefs.check_icrc = Pref.bool("Check ICRC", true,
    "Compute the ICRC over the masked IP/UDP/BTH header (section 4) and compare")

------------------------------------------------------------------------------------------
-- Generic layout helper: a header is a table of {field, offset, length}; reserved bits
-- are {offset, length, mask} and raise expert info when nonzero (MR-EX-09, MR-EX-13).
------------------------------------------------------------------------------------------

local function uint(tvb, off, len) return tvb(off, len):uint() end

-- Adds header `hdr` at `off` under `tree`; returns the subtree, or nil when too short.
local function add_layout(hdr, tvb, off, tree, pinfo)
    local avail = tvb:reported_length_remaining(off)
    if avail < hdr.size then
        local item = tree:add(F[hdr.key], tvb(off, math.max(avail, 0)))
        item:append_text(string.format(" [%d of %d bytes]", math.max(avail, 0), hdr.size))
        item:add_proto_expert_info(E.short,
            string.format("%s shorter than %d bytes (%d)", hdr.name, hdr.size, math.max(avail, 0)))
        return nil
    end
    local sub = tree:add(F[hdr.key], tvb(off, hdr.size))
    sub:set_text(hdr.title)
    for _, f in ipairs(hdr.fields) do
        local item = sub:add(F[f[1]], tvb(off + f[2], f[3]))
        for _, c in ipairs(f.children or {}) do item:add(F[c], tvb(off + f[2], f[3])) end
    end
    for _, r in ipairs(hdr.reserved or {}) do
        local v = uint(tvb, off + r[1], r[2])
        if bit32.band(v, r[3]) ~= 0 then
            sub:add_proto_expert_info(E.reserved, string.format(
                "%s: reserved bits set at byte %d (0x%x)", hdr.name, r[1], bit32.band(v, r[3])))
        end
    end
    return sub
end

local BTH = { key = "bth", name = "BTH", size = 12, title = "Base Transport Header",
    fields = {
        { "bth_opcode", 0, 1 }, { "bth_se", 1, 1 }, { "bth_m", 1, 1 }, { "bth_padcnt", 1, 1 },
        { "bth_tver", 1, 1 }, { "bth_pkey", 2, 2 }, { "bth_fecn", 4, 1 }, { "bth_becn", 4, 1 },
        { "bth_resv6a", 4, 1 }, { "bth_destqp", 5, 3 }, { "bth_a", 8, 1 },
        { "bth_resv7", 8, 1, children = { "bth_sx" } }, { "bth_psn", 9, 3 } },
    -- Ext BTH (this dissector sees TVer 1 only): Resv7 bit 6 is SX, bits 5:0 reserved
    reserved = { { 4, 1, 0x3F }, { 8, 1, 0x3F } } }

local MXH = { key = "mxh", name = "MXH", size = 20, title = "MXH - MetaRoCE Extension Header",
    fields = {
        { "mxh_ver", 0, 1 }, { "mxh_retx", 0, 1 }, { "mxh_tsv", 0, 1 }, { "mxh_ar", 0, 1 },
        { "mxh_resv0", 0, 1 }, { "mxh_plane", 1, 1 }, { "mxh_ev", 2, 2 },
        { "mxh_pending", 4, 1 }, { "mxh_msn", 5, 3 }, { "mxh_resv8", 8, 1 },
        { "mxh_rqsn", 9, 3 }, { "mxh_offset", 12, 4 }, { "mxh_txts", 16, 4 } },
    reserved = { { 0, 1, 0x01 }, { 8, 1, 0xFF } } }

-- SACKETH has no reserved bits: every flag of byte 0 is defined in revision 2.
local SACK_FLAGS = { "sack_ece", "sack_trm", "sack_oow", "sack_prb", "sack_dup", "sack_tse",
    "sack_ara", "sack_crv" }
local SACKETH = { key = "sack", name = "SACKETH", size = 28,
    title = "SACKETH - Selective ACK Extended Transport Header",
    fields = {
        { "sack_flags", 0, 1, children = SACK_FLAGS }, { "sack_ref", 1, 3 }, { "sack_bitmap", 4, 8 },
        { "sack_ev_echo", 12, 2 }, { "sack_plane_echo", 14, 1 }, { "sack_mpr", 15, 1 },
        { "sack_ce_count", 16, 2 }, { "sack_service_time", 18, 2 }, { "sack_ts_echo", 20, 4 },
        { "sack_offset", 24, 2 }, { "sack_credit", 26, 2 } } }

local RETH = { key = "reth", name = "RETH", size = 16, title = "RETH - RDMA Extended Transport Header",
    fields = { { "reth_va", 0, 8 }, { "reth_rkey", 8, 4 }, { "reth_dmalen", 12, 4 } } }
local AETH = { key = "aeth", name = "AETH", size = 4, title = "AETH - ACK Extended Transport Header",
    fields = { { "aeth_syndrome", 0, 1 }, { "aeth_kind", 0, 1 }, { "aeth_msn", 1, 3 } },
    reserved = { { 0, 1, 0x80 } } }
-- Wireshark's AtomicETH items are infiniband.reth.va / r_key; so are ours.
local ATOMICETH = { key = "atomic", name = "AtomicETH", size = 28,
    title = "AtomicETH - Atomic Extended Transport Header",
    fields = { { "reth_va", 0, 8 }, { "reth_rkey", 8, 4 }, { "atomic_swap", 12, 8 },
        { "atomic_cmp", 20, 8 } } }
local ATOMICACKETH = { key = "atomicack", name = "AtomicAckETH", size = 8,
    title = "AtomicAckETH - Atomic ACK Extended Transport Header",
    fields = { { "atomicack_orig", 0, 8 } } }
local IMMDT = { key = "immdt", name = "ImmDt", size = 4, title = "Immediate Data", fields = {} }
local IETH = { key = "ieth", name = "IETH", size = 4, title = "IETH - Invalidate Extended Transport Header",
    fields = {} }
local CRETH = { key = "creth", name = "CRETH", size = 4, title = "CRETH - Credit Extended Transport Header",
    fields = { { "creth_ver", 0, 1 }, { "creth_resv4", 0, 1 }, { "creth_resv8", 1, 1 },
        { "creth_limit", 2, 2 } },
    reserved = { { 0, 1, 0x0F }, { 1, 1, 0xFF } } }
local RSYNETH = { key = "rsyn", name = "RSYNETH", size = 4, title = "RSYNETH - Resync Extended Transport Header",
    fields = { { "rsyn_code", 0, 1 }, { "rsyn_end", 1, 1 }, { "rsyn_resv7", 1, 1 },
        { "rsyn_count", 2, 2 } },
    reserved = { { 1, 1, 0x7F } } }
local SECH = { key = "sech", name = "SECH", size = 24, title = "SECH - Secure Extended Header",
    fields = { { "sech_ver", 0, 1 }, { "sech_suite", 0, 1 }, { "sech_resv8", 1, 1 },
        { "sech_epoch", 2, 2 }, { "sech_spi", 4, 4 }, { "sech_pn", 8, 8 }, { "sech_htag", 16, 8 } },
    reserved = { { 1, 1, 0xFF } } }

------------------------------------------------------------------------------------------
-- One function per header. Each takes (tvb, off, tree, pinfo, ctx), adds its subtree and
-- returns false when the packet is too short to go on. ctx carries what later headers or
-- the Info column need (opcode, PSN, syndrome, ...).
------------------------------------------------------------------------------------------

local function dissect_mxh(tvb, off, tree, pinfo, ctx)
    local sub = add_layout(MXH, tvb, off, tree, pinfo)
    if not sub then return false end
    local ver = bit32.rshift(uint(tvb, off, 1), 4)
    if ver ~= 1 then
        sub:add_proto_expert_info(E.version, "MXH Ver " .. ver .. " (receivers drop it, MR-EX-07)")
    end
    ctx.info[#ctx.info + 1] = string.format("MSN=%d EV=0x%04X", uint(tvb, off + 5, 3), uint(tvb, off + 2, 2))
    return true
end

-- Contiguous runs of PSNs as "0x250-0x282, 0x288" for the subtree label.
local function runs_text(list)
    local parts, i = {}, 1
    while i <= #list do
        local j = i
        while j < #list and list[j + 1] == (list[j] + 1) % 0x1000000 do j = j + 1 end
        parts[#parts + 1] = (i == j) and string.format("0x%06x", list[i])
            or string.format("0x%06x-0x%06x", list[i], list[j])
        i = j + 1
    end
    return #parts > 0 and table.concat(parts, ", ") or "none"
end

local function dissect_sacketh(tvb, off, tree, pinfo, ctx)
    local sub = add_layout(SACKETH, tvb, off, tree, pinfo)
    if not sub then return false end
    local flags = uint(tvb, off, 1)
    local ref = uint(tvb, off + 1, 3)
    local sack_off = tvb(off + 24, 2):int()
    local base_psn = (ref + sack_off) % 0x1000000
    if sack_off % 8 ~= 0 then
        sub:add_proto_expert_info(E.sack_offset, string.format("SACK offset %d is not a multiple of 8", sack_off))
    end
    -- For an ACK the BTH PSN is the cumulative PSN (section 21.1); NAK and RNR NAK PSNs
    -- name the NAKed packet, so the reference can only be checked on ACKs.
    if ctx.opcode == 0x11 and ctx.syndrome and bit32.band(ctx.syndrome, 0x60) == 0 then
        local want = bit32.band((ctx.psn + 1) % 0x1000000, 0xFFFFF8)
        if ref ~= want then
            sub:add_proto_expert_info(E.sack_ref, string.format(
                "SACK reference 0x%06x, expected 0x%06x for cumulative PSN 0x%06x", ref, want, ctx.psn))
        end
    end
    if bit32.band(flags, 0x01) == 0 and uint(tvb, off + 26, 2) ~= 0 then
        sub:add_proto_expert_info(E.sack_credit)
    end

    -- The bitmap as PSNs. UInt64 bit access: the low 32 bits are bytes 8-11 of the field.
    local bm_range = tvb(off + 4, 8)
    local hi, lo = bm_range(0, 4):uint(), bm_range(4, 4):uint()
    local received, holes, highest = {}, {}, -1
    for i = 0, 63 do
        local word = i < 32 and lo or hi
        if bit32.band(word, bit32.lshift(1, i % 32)) ~= 0 then highest = i end
    end
    for i = 0, highest do
        local word = i < 32 and lo or hi
        local psn = (base_psn + i) % 0x1000000
        if bit32.band(word, bit32.lshift(1, i % 32)) ~= 0 then
            received[#received + 1] = psn
        else
            holes[#holes + 1] = psn
        end
    end
    local ptree = sub:add(F.sack_base, bm_range, base_psn)
    ptree:set_generated()
    ptree:append_text(string.format(" (reference 0x%06x %+d): received %s", ref, sack_off, runs_text(received)))
    for _, psn in ipairs(received) do ptree:add(F.sack_psn, bm_range, psn):set_generated() end
    -- A clear bit below the highest set bit is a hole the receiver reports; clear bits
    -- above it say nothing yet.
    for _, psn in ipairs(holes) do ptree:add(F.sack_hole, bm_range, psn):set_generated() end
    ctx.info[#ctx.info + 1] = string.format("SACK base=0x%06x [%s]", base_psn, runs_text(received))
    return true
end

local function dissect_aeth(tvb, off, tree, pinfo, ctx)
    local sub = add_layout(AETH, tvb, off, tree, pinfo)
    if not sub then return false end
    local syn = uint(tvb, off, 1)
    ctx.syndrome = syn
    local kind = bit32.rshift(bit32.band(syn, 0x60), 5)
    local low = bit32.band(syn, 0x1F)
    local text
    if kind == 0 then
        text = low == 0x1F and "ACK (credits invalid)" or ("ACK, credit count " .. low)
    elseif kind == 1 then
        text = "RNR NAK, timer " .. low
    elseif kind == 3 then
        text = "NAK " .. (NAK_NAMES[syn] or string.format("reserved 0x%02x", syn))
        sub:add(F.aeth_nak, tvb(off, 1))
        if syn >= 0x65 and syn <= 0x6B then
            sub:add_proto_expert_info(E.ext_nak, "Extension NAK " .. NAK_NAMES[syn])
        end
    else
        text = "reserved"
    end
    sub:append_text(": " .. text)
    ctx.info[#ctx.info + 1] = text
    return true
end

local function dissect_reth(tvb, off, tree, pinfo, ctx) return add_layout(RETH, tvb, off, tree, pinfo) ~= nil end
local function dissect_atomiceth(tvb, off, tree, pinfo, ctx) return add_layout(ATOMICETH, tvb, off, tree, pinfo) ~= nil end
local function dissect_atomicacketh(tvb, off, tree, pinfo, ctx) return add_layout(ATOMICACKETH, tvb, off, tree, pinfo) ~= nil end
local function dissect_immdt(tvb, off, tree, pinfo, ctx) return add_layout(IMMDT, tvb, off, tree, pinfo) ~= nil end
local function dissect_ieth(tvb, off, tree, pinfo, ctx) return add_layout(IETH, tvb, off, tree, pinfo) ~= nil end

local function dissect_creth(tvb, off, tree, pinfo, ctx)
    local sub = add_layout(CRETH, tvb, off, tree, pinfo)
    if not sub then return false end
    local ver = bit32.rshift(uint(tvb, off, 1), 4)
    if ver ~= 1 then sub:add_proto_expert_info(E.version, "CRETH Ver " .. ver) end
    ctx.info[#ctx.info + 1] = string.format("limit=%d", uint(tvb, off + 2, 2))
    return true
end

local function dissect_rsyneth(tvb, off, tree, pinfo, ctx)
    local sub = add_layout(RSYNETH, tvb, off, tree, pinfo)
    if not sub then return false end
    local count = uint(tvb, off + 2, 2)
    if count == 0 then sub:add_proto_expert_info(E.count0) end
    ctx.info[#ctx.info + 1] = string.format("code=%s count=%d",
        RESYNC_CODES[uint(tvb, off, 1)] or "reserved", count)
    return true
end

local function dissect_sech(tvb, off, tree, pinfo, ctx)
    local sub = add_layout(SECH, tvb, off, tree, pinfo)
    if not sub then return false end
    local b0 = uint(tvb, off, 1)
    if bit32.rshift(b0, 4) ~= 1 then
        sub:add_proto_expert_info(E.version, "SECH Ver " .. bit32.rshift(b0, 4))
    end
    if bit32.band(uint(tvb, off + 8, 1), 0x80) ~= 0 then
        sub:add_proto_expert_info(E.reserved, "SECH PN bit 63 set (PNs are 1 to 2^63 - 1)")
    end
    return true
end

-- Table 19.1: the headers after the BTH (and SECH) for each opcode of an Ext packet.
local H = {
    MXH = dissect_mxh, SACKETH = dissect_sacketh, AETH = dissect_aeth, RETH = dissect_reth,
    AtomicETH = dissect_atomiceth, AtomicAckETH = dissect_atomicacketh, ImmDt = dissect_immdt,
    IETH = dissect_ieth, CRETH = dissect_creth, RSYNETH = dissect_rsyneth,
}
local HEADER_SETS = {
    [0x00] = { "MXH" }, [0x01] = { "MXH" }, [0x02] = { "MXH" }, [0x04] = { "MXH" },
    [0x03] = { "MXH", "ImmDt" }, [0x05] = { "MXH", "ImmDt" },
    [0x16] = { "MXH", "IETH" }, [0x17] = { "MXH", "IETH" },
    [0x06] = { "MXH", "RETH" }, [0x07] = { "MXH", "RETH" }, [0x08] = { "MXH", "RETH" },
    [0x0A] = { "MXH", "RETH" },
    [0x09] = { "MXH", "RETH", "ImmDt" }, [0x0B] = { "MXH", "RETH", "ImmDt" },
    [0x0C] = { "MXH", "RETH" },
    [0x0D] = { "MXH", "AETH" }, [0x0F] = { "MXH", "AETH" }, [0x10] = { "MXH", "AETH" },
    [0x0E] = { "MXH" },
    [0x11] = { "AETH", "SACKETH" }, [0x12] = { "AETH", "AtomicAckETH", "SACKETH" },
    [0x13] = { "MXH", "AtomicETH" }, [0x14] = { "MXH", "AtomicETH" },
    [0x18] = { "MXH" }, [0x19] = { "CRETH" }, [0x1A] = { "MXH", "RSYNETH" },
}
local HEADER_SIZES = { MXH = 20, SACKETH = 28, AETH = 4, RETH = 16, AtomicETH = 28,
    AtomicAckETH = 8, ImmDt = 4, IETH = 4, CRETH = 4, RSYNETH = 4 }
-- Opcodes that carry no payload (sections 3.3, 22.3, 25.2, 26.8).
local NO_PAYLOAD = { [0x0C] = true, [0x11] = true, [0x12] = true, [0x13] = true, [0x14] = true,
    [0x18] = true, [0x19] = true, [0x1A] = true }

local function header_set_size(set)
    local n = 0
    for _, h in ipairs(set) do n = n + HEADER_SIZES[h] end
    return n
end

-- SX (BTH byte 8 bit 6): in a TVer-1 packet, 1 if and only if a SECH follows the BTH and
-- a 16-byte tag precedes the ICRC (section 19.4).
local function bth_sx(tvb)
    return bit32.band(uint(tvb, 8, 1), 0x40) ~= 0
end

------------------------------------------------------------------------------------------
-- ICRC (section 4): CRC-32 (IEEE, reflected, as zlib) over 8 x 0xFF, the IP header with
-- TOS/TTL/checksum (IPv4) or traffic class/flow label/hop limit (IPv6) set to ones, the
-- UDP header with its checksum set to ones, and the BTH with byte 4 set to 0xFF, up to
-- the ICRC; sent least significant byte first. Needs the IP and UDP headers, which a
-- udp.port dissector does not get: they come from field extractors.
------------------------------------------------------------------------------------------

local CRC_TABLE = {}
for i = 0, 255 do
    local c = i
    for _ = 1, 8 do
        if bit32.band(c, 1) ~= 0 then c = bit32.bxor(0xEDB88320, bit32.rshift(c, 1))
        else c = bit32.rshift(c, 1) end
    end
    CRC_TABLE[i] = c
end

local function crc32_update(crc, bytes)
    for i = 0, bytes:len() - 1 do
        crc = bit32.bxor(CRC_TABLE[bit32.band(bit32.bxor(crc, bytes:get_index(i)), 0xFF)],
            bit32.rshift(crc, 8))
    end
    return crc
end

local ip_f, ipv6_f, udp_f = Field.new("ip"), Field.new("ipv6"), Field.new("udp")

local function last_of(...)
    local all = { ... }
    return all[#all]
end

-- The CRC as the wire's 4 bytes read big-endian (how infiniband.invariant.crc shows it),
-- or nil when the headers are not at hand (e.g. ICMP-quoted packets).
local function compute_icrc(tvb, len)
    local ip4, ip6, udp = last_of(ip_f()), last_of(ipv6_f()), last_of(udp_f())
    local ip = ip4
    if ip6 and (not ip4 or ip6.offset > ip4.offset) then ip = ip6 end
    if not ip or not udp then return nil end
    local iph = ip.range:bytes()
    if ip == ip4 then
        iph:set_index(1, 0xFF); iph:set_index(8, 0xFF)
        iph:set_index(10, 0xFF); iph:set_index(11, 0xFF)
    else
        iph:set_index(0, bit32.bor(iph:get_index(0), 0x0F))
        for _, i in ipairs({ 1, 2, 3, 7 }) do iph:set_index(i, 0xFF) end
    end
    local udph = udp.range:bytes():subset(0, 8)
    udph:set_index(6, 0xFF); udph:set_index(7, 0xFF)
    local body = tvb(0, len - 4):bytes()
    body:set_index(4, 0xFF)
    local crc = 0xFFFFFFFF
    crc = crc32_update(crc, ByteArray.new("ff ff ff ff ff ff ff ff"))
    crc = crc32_update(crc, iph)
    crc = crc32_update(crc, udph)
    crc = crc32_update(crc, body)
    crc = bit32.bnot(crc)
    -- wire order is little-endian: byte-swap to compare with a big-endian read
    return bit32.bor(bit32.lshift(bit32.band(crc, 0xFF), 24), bit32.lshift(bit32.band(crc, 0xFF00), 8),
        bit32.band(bit32.rshift(crc, 8), 0xFF00), bit32.rshift(crc, 24))
end

------------------------------------------------------------------------------------------
-- Packet
------------------------------------------------------------------------------------------

local function dissect_ext(tvb, pinfo, tree)
    local len = tvb:reported_length_remaining()
    pinfo.cols.protocol = "MetaRoCE"
    local root = tree:add(proto, tvb(), "MetaRoCE Part II (Ext, TVer 1)")
    local opcode = uint(tvb, 0, 1)
    local ctx = { opcode = opcode, psn = uint(tvb, 9, 3), info = {} }
    add_layout(BTH, tvb, 0, root, pinfo)
    pinfo.cols.info = string.format("Ext %s QP=0x%06x PSN=0x%06x",
        OPCODE_NAMES[opcode] or string.format("opcode 0x%02x", opcode), uint(tvb, 5, 3), ctx.psn)

    local set = HEADER_SETS[opcode]
    local off = 12
    if not set then
        root:add_proto_expert_info(E.opcode, string.format("Opcode 0x%02x has no Part II header set", opcode))
        set = {}
    end
    -- The wire says whether a SECH follows: SX, for an opcode of table 19.1.
    local secure = bth_sx(tvb) and HEADER_SETS[opcode] ~= nil
    local need = 12 + 24 + header_set_size(set) + 16 + 4
    if secure and len < need then
        root:add_proto_expert_info(E.sx_short, string.format(
            "SX = 1 but %d bytes cannot hold BTH, SECH, the headers of table 19.1, tag and ICRC (%d): truncated or trimmed",
            len, need))
    end
    local ok = true
    if secure then
        ok = dissect_sech(tvb, off, root, pinfo, ctx)
        off = off + 24
    end
    for _, h in ipairs(set) do
        if not ok then break end
        ok = H[h](tvb, off, root, pinfo, ctx)
        off = off + HEADER_SIZES[h]
    end
    if #ctx.info > 0 then pinfo.cols.info:append(" " .. table.concat(ctx.info, " ")) end
    if not ok then return end

    -- payload | pad | tag (secure) | ICRC
    local tail = 4 + (secure and 16 or 0)
    local body = len - off - tail
    if body < 0 then
        root:add_proto_expert_info(E.short, "No room for the ICRC" .. (secure and " and tag" or ""))
        return
    end
    local padcnt = bit32.rshift(bit32.band(uint(tvb, 1, 1), 0x30), 4)
    if body > 0 then
        if NO_PAYLOAD[opcode] then root:add_proto_expert_info(E.payload) end
        local pad = math.min(padcnt, body)
        local p = root:add(F.payload, tvb(off, body - pad))
        if secure then p:append_text(" (ciphertext)") end
        if pad > 0 then root:add(F.pad, tvb(off + body - pad, pad)) end
    end
    if secure then root:add(F.sech_tag, tvb(len - 20, 16)) end
    local icrc_item = root:add(F.icrc, tvb(len - 4, 4))
    if proto.prefs.check_icrc then
        local want = compute_icrc(tvb, len)
        if want then
            local calc = icrc_item:add(F.icrc_calc, tvb(len - 4, 4), want)
            calc:set_generated()
            if want ~= uint(tvb, len - 4, 4) then
                icrc_item:add_proto_expert_info(E.icrc, string.format("ICRC mismatch, computed 0x%08x", want))
            end
        end
    end
end

local base_handle = DissectorTable.get("udp.port"):get_dissector(ROCEV2_PORT)

function proto.dissector(tvb, pinfo, tree)
    -- TVer is the low nibble of BTH byte 1. Everything that is not an Ext packet (TVer 0,
    -- CNPs, or too short to tell) goes to Wireshark's own RRoCE dissector unchanged.
    if tvb:len() >= 12 + 4 and bit32.band(tvb(1, 1):uint(), 0x0F) == 1 then
        dissect_ext(tvb, pinfo, tree)
        return tvb:len()
    end
    if not base_handle then return 0 end
    -- Dissector:call turns an exception of the callee (a malformed base packet) into a
    -- Lua error after Wireshark has already added its "Malformed Packet" item; catching
    -- it here keeps the tree exactly what the RRoCE dissector alone would show.
    local ok, n = pcall(base_handle.call, base_handle, tvb, pinfo, tree)
    return ok and n or tvb:len()
end

DissectorTable.get("udp.port"):add(ROCEV2_PORT, proto)

------------------------------------------------------------------------------------------
-- MXCAP (section 18): the first 16 bytes of RDMA CM REQ and REP private data. Wireshark's
-- CM dissector exposes that data as infiniband.cm.req.private / rep.private; the
-- postdissector below dissects an MXCAP wherever those fields start with "MRX1".
-- dissect_mxcap(range, tree) is also usable from other scripts (e.g. a control-agent
-- dissector carrying ext_peer_cap).
------------------------------------------------------------------------------------------

local function dissect_mxcap(range, tree)
    if range:len() < 16 or range(0, 4):string() ~= "MRX1" then return false end
    local sub = tree:add(M.block, range(0, 16))
    sub:set_text("MetaRoCE capability block (MXCAP)")
    sub:add(M.magic, range(0, 4))
    sub:add(M.version, range(4, 1))
    local ft = sub:add(M.features, range(5, 1))
    for _, k in ipairs({ "f_sack", "f_ooo", "f_multipath", "f_trim", "f_pathprobe", "f_cc",
        "f_adaptive", "f_credit" }) do ft:add(M[k], range(5, 1)) end
    sub:add(M.ev_mode, range(6, 1))
    sub:add(M.mpr, range(7, 1))
    sub:add(M.planes, range(8, 1))
    local f2 = sub:add(M.features2, range(9, 1))
    for _, k in ipairs({ "f_nonfatal", "f_resync", "f_secure", "f2_resv" }) do f2:add(M[k], range(9, 1)) end
    sub:add(M.ev_count, range(10, 2))
    sub:add(M.resv, range(12, 4))
    if bit32.band(range(9, 1):uint(), 0xF8) ~= 0 or range(12, 4):uint() ~= 0 then
        sub:add_proto_expert_info(E.reserved, "MXCAP: reserved bits set")
    end
    local feats = range(5, 1):uint()
    if range(4, 1):uint() ~= 1 or bit32.band(feats, 0x03) ~= 0x03 then
        sub:add_proto_expert_info(E_MXCAP_INVALID,
            "MXCAP without version 1, SACK and OOO: the QP stays in base mode (MR-EX-01)")
    end
    return true
end
metaroce_dissect_mxcap = dissect_mxcap -- global, for other scripts

local cm_private = { Field.new("infiniband.cm.req.private"), Field.new("infiniband.cm.rep.private") }

function mxcap_proto.dissector(tvb, pinfo, tree)
    for _, f in ipairs(cm_private) do
        for _, fi in ipairs({ f() }) do
            if fi.range and dissect_mxcap(fi.range, tree) then
                pinfo.cols.info:append(" [MXCAP]")
            end
        end
    end
end
register_postdissector(mxcap_proto)
