"""Compatibility shim: the oracles' name for tools/scapy/metaroce.py.

The Scapy layers for RoCEv2's extended headers (RETH, AtomicETH, ImmDt, IETH, DETH, RDETH,
FETH, AtomicAckETH), their binding after BTH by opcode and the IPv6 ICRC used to live
here. They moved to tools/scapy/metaroce.py, one file that users import or drop into
scapy/contrib/ and that also carries the MetaRoCE Part II layers. The oracles keep
importing `metaroce_scapy`; this module re-exports the names from there, Part II included.

Dissection is that module's default: a BTH with TVer 0 (or any TVer but 1) is followed by
the base headers of its opcode, a BTH with TVer 1 by those of table 19.1 (MXH, SACKETH,
CRETH, RSYNETH, and SECH / SecTag when SX is set), as the codec the oracles check decodes
them (docs/decode-json.md, "Part II (Ext) frames").

Use /usr/bin/python3 (Debian's python3-scapy 2.5).
"""

import os
import sys

_SCAPY_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scapy")
if _SCAPY_DIR not in sys.path:
    sys.path.insert(0, _SCAPY_DIR)

import metaroce as _mr  # noqa: E402
from scapy.config import conf  # noqa: E402

# Part II dissection on, whatever an earlier import set: the codec decodes TVer-1 frames by
# table 19.1, so Scapy must too for the two to be compared. (The base corpora draw no TVer 1,
# scapy_corpus.py; the Ext corpora and goldens are all TVer 1.)
conf.contribs["metaroce"]["ext"] = True

from metaroce import (AETH, BTH, CNPPadding, RDETH, DETH, FETH, RETH,  # noqa: E402,F401
                      AtomicETH, ImmDt, IETH, AtomicAckETH, OPCODES, FIXED_PAYLOAD,
                      opcode_headers, opcode_name, has_payload, icrc_ipv6, EXT_LAYERS,
                      MXH, SACKETH, CRETH, RSYNETH, SECH, SecTag, EXT_OPCODES, EXT_VERSION,
                      BTH_RESV7_SX, SECURE_TAG_LEN, ext_opcode_headers, ext_opcode_name,
                      header_chain, is_secure, bth_sx)

PART2_LAYERS = [MXH, SACKETH, CRETH, RSYNETH, SECH, SecTag]

__all__ = ["BTH", "AETH", "CNPPadding", "RDETH", "DETH", "FETH", "RETH", "AtomicETH",
           "ImmDt", "IETH", "AtomicAckETH", "OPCODES", "opcode_headers", "opcode_name",
           "has_payload", "icrc_ipv6", "EXT_LAYERS", "FIXED_PAYLOAD",
           "MXH", "SACKETH", "CRETH", "RSYNETH", "SECH", "SecTag", "EXT_OPCODES",
           "EXT_VERSION", "BTH_RESV7_SX", "SECURE_TAG_LEN", "ext_opcode_headers",
           "ext_opcode_name", "header_chain", "is_secure", "bth_sx", "PART2_LAYERS"]
