"""Compatibility shim: the oracles' name for tools/scapy/metaroce.py.

The Scapy layers for RoCEv2's extended headers (RETH, AtomicETH, ImmDt, IETH, DETH, RDETH,
FETH, AtomicAckETH), their binding after BTH by opcode and the IPv6 ICRC used to live
here. They moved to tools/scapy/metaroce.py, one file that users import or drop into
scapy/contrib/ and that also carries the MetaRoCE Part II layers. The oracles keep
importing `metaroce_scapy`; this module re-exports the base names from there and turns
the Part II dissection off, so every packet builds and dissects byte for byte as before.

Use /usr/bin/python3 (Debian's python3-scapy 2.5).
"""

import os
import sys

_SCAPY_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scapy")
if _SCAPY_DIR not in sys.path:
    sys.path.insert(0, _SCAPY_DIR)

import metaroce as _mr  # noqa: E402
from scapy.config import conf  # noqa: E402

# The base oracles check Part I: their corpora draw no TVer 1 (scapy_corpus.py), and every
# TVer dissects as base, as it did before the move. The Ext golden corpus (make_golden.py)
# turns Part II dissection on for its own frames.
conf.contribs["metaroce"]["ext"] = False

from metaroce import (AETH, BTH, CNPPadding, RDETH, DETH, FETH, RETH,  # noqa: E402,F401
                      AtomicETH, ImmDt, IETH, AtomicAckETH, OPCODES, FIXED_PAYLOAD,
                      opcode_headers, opcode_name, has_payload, icrc_ipv6, EXT_LAYERS)

__all__ = ["BTH", "AETH", "CNPPadding", "RDETH", "DETH", "FETH", "RETH", "AtomicETH",
           "ImmDt", "IETH", "AtomicAckETH", "OPCODES", "opcode_headers", "opcode_name",
           "has_payload", "icrc_ipv6", "EXT_LAYERS", "FIXED_PAYLOAD"]
