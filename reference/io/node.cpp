#include "reference/io/node.h"

#include "reference/io/arp.h"
#include "reference/io/icmp_echo.h"
#include "reference/io/internet_checksum.h"
#include "reference/io/neighbor_discovery.h"

namespace mr::io {
namespace {

constexpr size_t kBurst = 32;
constexpr size_t kUdpHeaderSize = 8;
const wire::MacAddress kBroadcastMac{{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}};
const wire::Ipv6Address kAllNodes{{0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01}};

constexpr std::array<std::string_view, kNodeDropReasonCount> kDropReasonNames = {
    "malformed",      "not for us",   "unhandled ethertype",        "unhandled protocol",
    "other udp port", "bad checksum", "invalid neighbor discovery", "unhandled icmp",
    "no roce handler"};

}  // namespace

std::string_view node_drop_reason_name(NodeDropReason reason) {
  return kDropReasonNames[static_cast<size_t>(reason)];
}

uint64_t NodeCounters::total_dropped() const {
  uint64_t sum = 0;
  for (uint64_t d : dropped) sum += d;
  return sum;
}

Node::Node(Link& link, const Clock& clock, NodeConfig config)
    : link_(link),
      clock_(clock),
      config_(std::move(config)),
      link_local_(io::ipv6_link_local(config_.mac)),
      gids_(GidTable::build(config_.mac, config_.ipv4, config_.ipv6_global)),
      // Distinct per node on a link, stable across runs.
      echo_id_(static_cast<uint16_t>(config_.mac.bytes[4] << 8 | config_.mac.bytes[5])),
      burst_(kBurst) {}

size_t Node::poll(size_t budget, uint64_t timeout_ns) {
  size_t done = 0;
  uint64_t wait = timeout_ns;
  while (done < budget) {
    const size_t want = std::min(budget - done, burst_.size());
    const size_t n = link_.receive_burst(std::span(burst_).first(want), wait);
    if (n == 0) break;
    for (size_t i = 0; i < n; ++i) handle(burst_[i]);
    done += n;
    wait = 0;  // the first frame came; take only what else is ready
  }
  return done;
}

bool Node::send(std::vector<uint8_t> frame) {
  const Frame f{std::move(frame), clock_.now_ns()};
  if (link_.send_burst(std::span(&f, 1)) == 1) {
    ++counters_.sent;
    return true;
  }
  ++counters_.send_failures;
  return false;
}

size_t Node::send_burst(std::span<std::vector<uint8_t>> frames) {
  tx_burst_.resize(frames.size());
  const uint64_t now = clock_.now_ns();
  for (size_t i = 0; i < frames.size(); ++i) tx_burst_[i] = Frame{std::move(frames[i]), now};
  size_t sent = 0;
  // Bounded: every pass sends at least one frame or counts one as refused.
  for (size_t at = 0; at < frames.size();) {
    size_t n = link_.send_burst(std::span(tx_burst_).subspan(at));
    // None taken: the front alone may still go (a link that takes a burst all or nothing,
    // as DPDK's mbuf allocation does, may have room for one).
    if (n == 0) n = link_.send_burst(std::span(tx_burst_).subspan(at, 1));
    if (n == 0) {  // refused: counted, and the rest still go
      ++counters_.send_failures;
      ++at;
      continue;
    }
    sent += n;
    at += n;
  }
  counters_.sent += sent;
  for (size_t i = 0; i < frames.size(); ++i) frames[i] = std::move(tx_burst_[i].bytes);
  return sent;
}

bool Node::accepts_mac(const wire::MacAddress& mac) const {
  // Group addresses (broadcast, 33:33 IPv6 multicast) are filtered again at the IP layer.
  return mac == config_.mac || (mac.bytes[0] & 1U) != 0;
}

bool Node::owns(const wire::Ipv6Address& ip) const {
  if (ip == link_local_) return true;
  for (const auto& a : config_.ipv6_global) {
    if (a == ip) return true;
  }
  return false;
}

bool Node::accepts_ipv6_destination(const wire::Ipv6Address& ip) const {
  if (owns(ip) || ip == kAllNodes) return true;
  if (ip == solicited_node_multicast(link_local_)) return true;
  for (const auto& a : config_.ipv6_global) {
    if (ip == solicited_node_multicast(a)) return true;
  }
  return false;
}

void Node::handle(const Frame& frame) {
  ++counters_.received;
  const std::span<const uint8_t> bytes = frame.bytes;
  if (bytes.size() >= wire::Ether::kSize &&
      static_cast<uint16_t>(bytes[12] << 8 | bytes[13]) == kEtherTypeArp) {
    return handle_arp(bytes);
  }
  auto ip = parse_ip_frame(bytes);
  if (!ip) return drop(NodeDropReason::kMalformed);
  if (!*ip) return drop(NodeDropReason::kUnhandledEthertype);
  if (!accepts_mac((*ip)->eth.dst)) return drop(NodeDropReason::kNotForUs);
  handle_ip(**ip, frame);
}

void Node::handle_arp(std::span<const uint8_t> frame) {
  const auto arp = Arp::parse(frame);
  if (!arp) return drop(NodeDropReason::kMalformed);
  if (!config_.ipv4 || arp->pdst != *config_.ipv4) return drop(NodeDropReason::kNotForUs);
  // RFC 826: the addressee of a request or reply learns the sender's mapping.
  add_neighbor(arp->psrc, arp->hwsrc);
  if (arp->op == Arp::kRequest) {
    if (send(build_arp_frame(Arp::reply_to(*arp, config_.mac)))) ++counters_.arp_replies_sent;
  }
}

void Node::handle_ip(const IpFrame& ip, const Frame& frame) {
  if (ip.cut && ip.protocol() != wire::kIpProtoUdp) return drop(NodeDropReason::kMalformed);
  if (const auto* v6 = std::get_if<wire::Ipv6>(&ip.ip)) {
    if (!accepts_ipv6_destination(v6->dst)) return drop(NodeDropReason::kNotForUs);
    if (v6->nh == wire::kIpProtoUdp) return handle_udp(ip.payload, frame);
    if (v6->nh == kIpProtoIcmpv6) return handle_icmpv6(ip);
    return drop(NodeDropReason::kUnhandledProtocol);
  }
  const auto& v4 = std::get<wire::Ipv4>(ip.ip);
  if (!config_.ipv4 || v4.dst != *config_.ipv4) return drop(NodeDropReason::kNotForUs);
  if (v4.proto == wire::kIpProtoUdp) return handle_udp(ip.payload, frame);
  if (v4.proto == kIpProtoIcmp) return handle_icmpv4(ip);
  drop(NodeDropReason::kUnhandledProtocol);
}

void Node::handle_udp(std::span<const uint8_t> udp, const Frame& frame) {
  if (udp.size() < kUdpHeaderSize) return drop(NodeDropReason::kMalformed);
  const auto dport = static_cast<uint16_t>(udp[2] << 8 | udp[3]);
  if (dport != kRoceV2UdpPort) return drop(NodeDropReason::kOtherUdpPort);
  if (!roce_handler_) return drop(NodeDropReason::kNoRoceHandler);
  ++counters_.roce_delivered;
  roce_handler_(frame.bytes, frame.timestamp_ns);
}

void Node::handle_icmpv4(const IpFrame& ip) {
  const std::span<const uint8_t> m = ip.payload;
  if (m.empty() || (m[0] != kIcmpEchoRequest && m[0] != kIcmpEchoReply)) {
    return drop(NodeDropReason::kUnhandledIcmp);
  }
  const auto echo = parse_icmp_echo(ip);
  if (!echo) return drop(NodeDropReason::kBadChecksum);
  if (!echo->is_request) {
    ++counters_.echo_replies_received;
    if (echo->id == echo_id_) {
      last_echo_reply_seq_ = echo->seq;
      last_echo_reply_ns_ = clock_.now_ns();
    }
    return;
  }
  if (!config_.answer_echo) return drop(NodeDropReason::kUnhandledIcmp);
  if (send(build_icmp_echo_reply(ip, *echo, config_.mac))) ++counters_.echo_replies_sent;
}

void Node::handle_icmpv6(const IpFrame& ip) {
  const auto& v6 = std::get<wire::Ipv6>(ip.ip);
  const std::span<const uint8_t> m = ip.payload;
  if (m.size() < 4) return drop(NodeDropReason::kMalformed);
  if (ipv6_upper_layer_checksum(v6.src, v6.dst, kIpProtoIcmpv6, m) != 0) {
    return drop(NodeDropReason::kBadChecksum);
  }
  if (m[0] == kIcmpv6EchoRequest || m[0] == kIcmpv6EchoReply) {
    const auto echo = parse_icmp_echo(ip);
    if (!echo) return drop(NodeDropReason::kMalformed);
    if (!echo->is_request) {
      ++counters_.echo_replies_received;
      if (echo->id == echo_id_) {
        last_echo_reply_seq_ = echo->seq;
        last_echo_reply_ns_ = clock_.now_ns();
      }
      return;
    }
    // Only unicast to us: a reply must come from the address that was pinged.
    if (!config_.answer_echo || !owns(v6.dst)) return drop(NodeDropReason::kUnhandledIcmp);
    if (send(build_icmp_echo_reply(ip, *echo, config_.mac))) ++counters_.echo_replies_sent;
    return;
  }
  auto nd = parse_neighbor_discovery(v6, m);
  if (!nd) return drop(NodeDropReason::kInvalidNeighborDiscovery);
  if (!*nd) return drop(NodeDropReason::kUnhandledIcmp);
  if (const auto* na = std::get_if<NeighborAdvertisement>(&**nd)) {
    if (!na->dst_lladdr) return drop(NodeDropReason::kNotForUs);
    add_neighbor(na->tgt, *na->dst_lladdr);
    return;
  }
  const auto& ns = std::get<NeighborSolicitation>(**nd);
  if (!owns(ns.tgt)) return drop(NodeDropReason::kNotForUs);
  NeighborAdvertisement advert;
  advert.tgt = ns.tgt;
  advert.O = true;
  advert.dst_lladdr = config_.mac;
  std::vector<uint8_t> reply;
  if (is_unspecified(v6.src)) {
    // Duplicate address detection by someone else: defend the address to all nodes.
    advert.S = false;
    reply = build_neighbor_advertisement_frame(config_.mac, ns.tgt, ipv6_multicast_mac(kAllNodes),
                                               kAllNodes, advert);
  } else {
    advert.S = true;
    const wire::MacAddress to = ns.src_lladdr.value_or(ip.eth.src);
    if (ns.src_lladdr) add_neighbor(v6.src, *ns.src_lladdr);
    reply = build_neighbor_advertisement_frame(config_.mac, ns.tgt, to, v6.src, advert);
  }
  if (send(std::move(reply))) ++counters_.neighbor_advertisements_sent;
}

void Node::add_neighbor(const wire::Ipv4Address& ip, const wire::MacAddress& mac) {
  ipv4_neighbors_[ip.bytes] = mac;
}

void Node::add_neighbor(const wire::Ipv6Address& ip, const wire::MacAddress& mac) {
  ipv6_neighbors_[ip.bytes] = mac;
}

std::optional<wire::MacAddress> Node::lookup(const wire::Ipv4Address& ip) const {
  const auto it = ipv4_neighbors_.find(ip.bytes);
  if (it == ipv4_neighbors_.end()) return std::nullopt;
  return it->second;
}

std::optional<wire::MacAddress> Node::lookup(const wire::Ipv6Address& ip) const {
  if (const auto v4 = ipv4_from_mapped(ip)) return lookup(*v4);
  const auto it = ipv6_neighbors_.find(ip.bytes);
  if (it == ipv6_neighbors_.end()) return std::nullopt;
  return it->second;
}

bool Node::solicit(const wire::Ipv4Address& ip) {
  if (!config_.ipv4) return false;
  const bool sent = send(build_arp_frame(Arp::request(config_.mac, *config_.ipv4, ip)));
  if (sent) ++counters_.arp_requests_sent;
  return sent;
}

bool Node::solicit(const wire::Ipv6Address& ip) {
  if (const auto v4 = ipv4_from_mapped(ip)) return solicit(*v4);
  // From the global address on the target's prefix would be more exact; the link-local
  // address is always valid on the link and is what the kernel uses for link-locals.
  const bool sent = send(build_neighbor_solicitation_frame(config_.mac, link_local_, ip));
  if (sent) ++counters_.neighbor_solicitations_sent;
  return sent;
}

template <class Done>
bool Node::poll_until(Done done, uint64_t deadline_ns) {
  while (true) {
    const uint64_t now = clock_.now_ns();
    const uint64_t wait = deadline_ns > now ? deadline_ns - now : 0;
    poll(kBurst, clock_.is_virtual() ? 0 : wait);
    if (done()) return true;
    if (clock_.is_virtual() || clock_.now_ns() >= deadline_ns) return false;
  }
}

template <class Address>
Expected<wire::MacAddress, std::string> Node::resolve_by_polling(const Address& ip,
                                                                 std::string_view protocol) {
  if (auto mac = lookup(ip)) return *mac;
  for (uint32_t attempt = 0; attempt < config_.resolve_attempts; ++attempt) {
    if (!solicit(ip)) {
      return Unexpected(ip.to_string() + ": " + link_.name() + " did not accept the " +
                        std::string(protocol) + " request");
    }
    const uint64_t deadline = clock_.now_ns() + config_.resolve_attempt_timeout_ns;
    if (poll_until([&] { return lookup(ip).has_value(); }, deadline)) return *lookup(ip);
  }
  return Unexpected(ip.to_string() + ": no " + std::string(protocol) + " answer on " +
                    link_.name() + " after " + std::to_string(config_.resolve_attempts) +
                    " attempts of " + std::to_string(config_.resolve_attempt_timeout_ns / 1000) +
                    " us");
}

Expected<wire::MacAddress, std::string> Node::resolve(const wire::Ipv4Address& ip) {
  if (!config_.ipv4) return Unexpected(std::string("cannot ARP without an IPv4 address"));
  return resolve_by_polling(ip, "ARP");
}

Expected<wire::MacAddress, std::string> Node::resolve(const wire::Ipv6Address& ip) {
  if (const auto v4 = ipv4_from_mapped(ip)) return resolve(*v4);
  return resolve_by_polling(ip, "neighbour discovery");
}

template <class Address>
Expected<uint64_t, std::string> Node::ping_by_polling(const Address& ip, uint16_t seq,
                                                      uint64_t timeout_ns) {
  auto mac = resolve(ip);
  if (!mac) return Unexpected(mac.error());
  static constexpr std::array<uint8_t, 32> kData = {'m', 'e', 't', 'a', 'r', 'o', 'c', 'e'};
  const IcmpEcho echo{true, echo_id_, seq, kData};
  std::vector<uint8_t> frame;
  if constexpr (std::is_same_v<Address, wire::Ipv4Address>) {
    frame = build_icmp_echo_frame(config_.mac, *mac, *config_.ipv4, ip, echo);
  } else {
    frame = build_icmp_echo_frame(config_.mac, *mac, link_local_, ip, echo);
  }
  const uint64_t start = clock_.now_ns();
  last_echo_reply_seq_.reset();
  if (!send(std::move(frame))) return Unexpected(link_.name() + " did not accept the echo");
  if (poll_until([&] { return last_echo_reply_seq_ == seq; }, start + timeout_ns)) {
    return last_echo_reply_ns_ - start;
  }
  return Unexpected(ip.to_string() + ": no echo reply to seq " + std::to_string(seq) + " within " +
                    std::to_string(timeout_ns / 1000) + " us");
}

Expected<uint64_t, std::string> Node::ping(const wire::Ipv4Address& ip, uint16_t seq,
                                           uint64_t timeout_ns) {
  if (!config_.ipv4) return Unexpected(std::string("cannot ping IPv4 without an IPv4 address"));
  return ping_by_polling(ip, seq, timeout_ns);
}

Expected<uint64_t, std::string> Node::ping(const wire::Ipv6Address& ip, uint16_t seq,
                                           uint64_t timeout_ns) {
  if (const auto v4 = ipv4_from_mapped(ip)) return ping(*v4, seq, timeout_ns);
  return ping_by_polling(ip, seq, timeout_ns);
}

}  // namespace mr::io
