"""Shared helpers for the oracle scripts: pcap writing, Scapy-to-JSON, the decoder run."""

import json
import struct
import subprocess
import sys

LINKTYPE_ETHERNET = 1

# Scapy layers reported in the decode contract, by Scapy class name. Raw/Padding are not
# layers there (they become payload/pad).
SKIP_FIELDS = {"IP": {"options"}, "BTH": {"icrc"}}
NON_LAYERS = {"Raw", "Padding"}


def write_pcap(path, frames):
    """frames: iterable of (sec, usec, bytes). Classic pcap, microseconds, Ethernet."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, LINKTYPE_ETHERNET))
        for sec, usec, b in frames:
            f.write(struct.pack("<IIII", sec, usec, len(b), len(b)))
            f.write(b)


def field_value(v):
    if isinstance(v, (bytes, bytearray)):
        return bytes(v).hex()
    if isinstance(v, (int, str)) or v is None:
        return int(v) if isinstance(v, bool) else v
    try:
        return int(v)  # FlagValue and the like
    except (TypeError, ValueError):
        return str(v)


def layer_dict(layer):
    skip = SKIP_FIELDS.get(layer.__class__.__name__, set())
    return {f.name: field_value(layer.getfieldval(f.name))
            for f in layer.fields_desc if f.name not in skip}


# 64-bit fields: above 2^53 - 1 our JSON gives their decimal string (docs/decode-json.md).
WIDE_FIELDS = {"RETH": ("va",), "AtomicETH": ("va", "swap", "comp"), "AtomicAckETH": ("orig",),
               "CNPPadding": ("reserved1", "reserved2"), "CookedLinux": ("src",),
               "CookedLinuxV2": ("src",), "SECH": ("pn",), "SACKETH": ("bitmap",)}
MAX_EXACT_JSON_INTEGER = (1 << 53) - 1


def wide_fields_as_ints(obj, where):
    """Checks the 64-bit rule on one decoded frame and turns its strings into ints, so that
    it compares with Scapy's and tshark's integers."""
    for layer, names in WIDE_FIELDS.items():
        fields = obj.get(layer)
        if not isinstance(fields, dict):
            continue
        for name in names:
            v = fields.get(name)
            big = isinstance(v, str) and v.isdigit() and int(v) > MAX_EXACT_JSON_INTEGER
            small = isinstance(v, int) and 0 <= v <= MAX_EXACT_JSON_INTEGER
            if not (big or small):
                raise SystemExit("%s: %s.%s is %r: a 64-bit field is a number up to 2^53 - 1 "
                                 "and a decimal string above it" % (where, layer, name, v))
            fields[name] = int(v)
    return obj


def run_decoder(decoder, pcap, wide_as_int=True):
    """Runs `decoder decode PCAP --json`; returns the list of JSON objects (one a line).
    With wide_as_int, 64-bit fields come back as ints (wide_fields_as_ints)."""
    proc = subprocess.run([decoder, "decode", pcap, "--json"], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr.decode(errors="replace"))
        raise SystemExit("decoder exited %d on %s" % (proc.returncode, pcap))
    out = []
    for n, line in enumerate(proc.stdout.decode().splitlines(), 1):
        line = line.strip()
        if not line:
            continue
        try:
            obj = json.loads(line)
        except ValueError as e:
            raise SystemExit("decoder output line %d is not JSON (%s): %r" % (n, e, line[:200]))
        out.append(wide_fields_as_ints(obj, "%s line %d" % (pcap, n)) if wide_as_int else obj)
    return out


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(l) for l in f if l.strip()]


class Mismatches:
    """Collects mismatches; prints the first `show` of them."""

    def __init__(self, show=20):
        self.show = show
        self.count = 0
        self.frames = set()
        self.compared = 0  # fields compared, for the summaries

    def add(self, frame, what, expected, actual):
        self.count += 1
        self.frames.add(frame)
        if self.count <= self.show:
            print("frame %s: %s: expected %r, got %r" % (frame, what, expected, actual))
