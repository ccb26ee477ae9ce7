#include "harness/script/layer_schema.h"

#include <algorithm>
#include <map>
#include <type_traits>

#include "harness/script/did_you_mean.h"
#include "reference/wire/aeth_syndrome.h"
#include "reference/wire/byte_array.h"
#include "reference/wire/opcode.h"
#include "reference/wire/roce_packet.h"

namespace mr::script {
namespace {

struct FieldSpec {
  std::string_view name;
  unsigned bits = 0;  // 0: an address, given as a string
  bool list = false;  // a list of PSNs (SACKETH's sacked)
};

struct LayerSpec {
  std::string_view name;
  std::vector<FieldSpec> fields;

  const FieldSpec* field(std::string_view n) const {
    auto it = std::ranges::find(fields, n, &FieldSpec::name);
    return it == fields.end() ? nullptr : &*it;
  }
};

template <class H>
LayerSpec layer(std::vector<FieldSpec> extra = {}) {
  LayerSpec l{H::kName, {}};
  H h{};
  H::fields(h, [&](const char* name, auto& field) {
    using T = std::remove_cvref_t<decltype(field)>;
    if constexpr (wire::TextField<T>) {
      l.fields.push_back({name, 0});
    } else {
      l.fields.push_back({name, T::kBits});
    }
  });
  l.fields.insert(l.fields.end(), extra.begin(), extra.end());
  return l;
}

// The layers packet_synthesis builds and matches, with the harness's own fields beside the
// codec's: BTH's icrc (a wrong one on purpose), Raw's load and len (expected length only),
// SACKETH's sacked (the bitmap as the PSNs after BTH.psn that it reports received).
const std::vector<LayerSpec>& layers() {
  static const std::vector<LayerSpec> kLayers = {
      layer<wire::Ether>(),
      layer<wire::Dot1Q>(),
      layer<wire::Ipv4>(),
      layer<wire::Ipv6>(),
      layer<wire::Udp>(),
      layer<wire::Bth>({{"icrc", 32}}),
      layer<wire::Reth>(),
      layer<wire::Aeth>(),
      layer<wire::AtomicEth>(),
      layer<wire::AtomicAckEth>(),
      layer<wire::ImmDt>(),
      layer<wire::Ieth>(),
      layer<wire::Deth>(),
      layer<wire::CnpPadding>(),
      layer<wire::Mxh>(),
      layer<wire::Sacketh>({{"sacked", 0, true}}),
      layer<wire::Creth>(),
      layer<wire::Rsyneth>(),
      layer<wire::Sech>(),
      layer<wire::SecTag>(),
      LayerSpec{"Raw", {{"load", 0}, {"len", 32}}},
  };
  return kLayers;
}

// Every name a packet field may take: the opcodes and the AETH syndromes.
const std::vector<std::string>& value_names() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> out;
    for (unsigned op = 0; op < 256; ++op) {
      const auto* info = wire::opcode_info(static_cast<uint8_t>(op));
      if (info == nullptr)
        info = wire::opcode_info(static_cast<uint8_t>(op), wire::HeaderSet::kExt);
      if (info != nullptr) out.push_back(info->name());
    }
    for (std::string_view s : wire::syndrome_names()) out.emplace_back(s);
    return out;
  }();
  return kNames;
}

std::vector<std::string_view> views(const std::vector<std::string>& names) {
  return {names.begin(), names.end()};
}

void check_value(const LayerSpec& l, const FieldSpec& f, const FieldArg& a, const std::string& file,
                 std::vector<Diagnostic>& out) {
  const Expr& v = a.value;
  const std::string what = std::string(l.name) + " " + a.name + ": ";
  if (f.list != (v.kind == Expr::Kind::kList) && v.kind != Expr::Kind::kWildcard) {
    out.push_back({file, v.pos,
                   what + (f.list ? "expected a list of PSNs such as [P+2, P+5]"
                                  : "a list is only for SACKETH sacked=[...]")});
    return;
  }
  // A list's items are PSNs: numbers or PSN arithmetic, never bytes, lists, `*` or rates.
  for (const Expr& item : v.items) {
    if (item.kind == Expr::Kind::kBytes || item.kind == Expr::Kind::kBytesOfLength ||
        item.kind == Expr::Kind::kList || item.kind == Expr::Kind::kWildcard ||
        item.kind == Expr::Kind::kPercent) {
      out.push_back({file, item.pos, what + "a list item is a PSN, such as P+2"});
    } else if (item.kind == Expr::Kind::kNumber && item.number > 0xffffff) {
      out.push_back({file, item.pos,
                     what + std::to_string(item.number) + " is not a PSN (at most 16777215)"});
    }
  }
  if (v.kind == Expr::Kind::kName && !wire::opcode_by_name(v.text) &&
      !wire::syndrome_by_name(v.text)) {
    const std::string hint = did_you_mean(v.text, views(value_names()));
    out.push_back({file, v.pos,
                   what + "unknown name '" + v.text + "'" +
                       (hint.empty() ? " (an opcode such as RC_SEND_ONLY or a syndrome such as ACK)"
                                     : hint)});
    return;
  }
  if (f.bits == 0 || v.kind != Expr::Kind::kNumber) return;
  if (f.bits < 64 && v.number >> f.bits != 0) {
    out.push_back({file, v.pos,
                   what + std::to_string(v.number) + " does not fit in " + std::to_string(f.bits) +
                       " bits (at most " + std::to_string((uint64_t{1} << f.bits) - 1) + ")"});
  }
}

}  // namespace

void check_packet(const PacketExpr& packet, const std::string& file, std::vector<Diagnostic>& out) {
  for (const Layer& l : packet.layers) {
    auto it = std::ranges::find(layers(), l.name, &LayerSpec::name);
    if (it == layers().end()) {
      std::vector<std::string_view> names;
      for (const auto& s : layers()) names.push_back(s.name);
      const std::string hint = did_you_mean(l.name, names);
      out.push_back({file, l.pos,
                     "unknown layer '" + l.name + "'" +
                         (hint.empty() ? " (known: " + joined(names) + ")" : hint)});
      continue;
    }
    // sacked=[...] is the bitmap written as PSNs: giving both is one field given twice.
    if (l.name == "SACKETH") {
      const auto named = [&](std::string_view n) {
        return std::ranges::find(l.args, n, &FieldArg::name);
      };
      if (const auto s = named("sacked"); s != l.args.end() && named("bitmap") != l.args.end())
        out.push_back({file, s->pos, "SACKETH: give sacked=[...] or bitmap=..., not both"});
    }
    for (const FieldArg& a : l.args) {
      const FieldSpec* f = it->field(a.name);
      if (f == nullptr) {
        std::vector<std::string_view> names;
        for (const auto& s : it->fields) names.push_back(s.name);
        const std::string hint = did_you_mean(a.name, names);
        out.push_back({file, a.pos,
                       l.name + " has no field '" + a.name + "'" +
                           (hint.empty() ? " (fields: " + joined(names) + ")" : hint)});
        continue;
      }
      check_value(*it, *f, a, file, out);
    }
  }
}

}  // namespace mr::script
