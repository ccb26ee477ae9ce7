// File: node.h
//
// One network endpoint on a Link, as a host's IP stack would be for a RoCEv2 NIC: its own
// MAC, IPv4 and/or IPv6 addresses, and the GID table derived from them. It
//   - answers ARP requests and IPv6 neighbour solicitations for its own addresses, and
//     ICMP/ICMPv6 echo requests (so `ping` from a peer works);
//   - resolves a peer's MAC with ARP or ND, each wait bounded (attempts x timeout);
//   - hands frames for UDP port 4791 addressed to it to the RoCE handler, untouched, and
//     counts every other frame it drops, by reason.
// The transport builds complete Ethernet frames itself and sends them with send(), or a
// device's frames at once with send_burst(), which leaves their buffers for reuse.
//
// Waits run on the Node's Clock. On a VirtualClock nothing blocks: resolve() and ping()
// make one pass per attempt, so in a single-threaded simulation either seed the cache with
// add_neighbor() or call solicit() and let the simulation loop run until lookup() answers.
//
// Usage:
//   Node node(link, clock, {.mac = mac, .ipv4 = ip});
//   node.set_roce_handler([&](std::span<const uint8_t> f, uint64_t t) { qp.receive(f, t); });
//   auto peer_mac = node.resolve(peer_ip);          // ARP, bounded
//   while (running) node.poll(64, 1'000'000);
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "reference/error/expected.h"
#include "reference/io/clock.h"
#include "reference/io/gid_table.h"
#include "reference/io/ip_frame.h"
#include "reference/io/link.h"
#include "reference/wire/address.h"

namespace mr::io {

inline constexpr uint16_t kRoceV2UdpPort = 4791;

struct NodeConfig {
  wire::MacAddress mac = {};
  std::optional<wire::Ipv4Address> ipv4 = {};
  std::vector<wire::Ipv6Address> ipv6_global = {};  // the link-local address is always present
  uint32_t resolve_attempts = 3;
  uint64_t resolve_attempt_timeout_ns = 100'000'000;  // per attempt
  bool answer_echo = true;
};

enum class NodeDropReason : uint8_t {
  kMalformed,                 // truncated or inconsistent headers
  kNotForUs,                  // another MAC or IP, or an ARP/ND about someone else
  kUnhandledEthertype,        // neither ARP, IPv4 nor IPv6
  kUnhandledProtocol,         // IP carrying neither UDP, ICMP nor ICMPv6
  kOtherUdpPort,              // UDP, but not to 4791
  kBadChecksum,               // ICMP/ICMPv6 whose checksum is wrong
  kInvalidNeighborDiscovery,  // NS/NA failing RFC 4861 validation
  kUnhandledIcmp,             // ICMP types other than echo and ND
  kNoRoceHandler,             // RoCE arrived before a handler was registered
};
inline constexpr size_t kNodeDropReasonCount = 9;
std::string_view node_drop_reason_name(NodeDropReason reason);

struct NodeCounters {
  uint64_t received = 0;
  uint64_t roce_delivered = 0;
  uint64_t sent = 0;
  uint64_t send_failures = 0;  // frames the link did not accept
  uint64_t arp_requests_sent = 0;
  uint64_t arp_replies_sent = 0;
  uint64_t neighbor_solicitations_sent = 0;
  uint64_t neighbor_advertisements_sent = 0;
  uint64_t echo_replies_sent = 0;
  uint64_t echo_replies_received = 0;
  std::array<uint64_t, kNodeDropReasonCount> dropped{};
  uint64_t drops(NodeDropReason r) const { return dropped[static_cast<size_t>(r)]; }
  uint64_t total_dropped() const;
};

class Node {
 public:
  using RoceHandler = std::function<void(std::span<const uint8_t> frame, uint64_t timestamp_ns)>;

  Node(Link& link, const Clock& clock, NodeConfig config);

  const wire::MacAddress& mac() const { return config_.mac; }
  const std::optional<wire::Ipv4Address>& ipv4() const { return config_.ipv4; }
  const wire::Ipv6Address& ipv6_link_local() const { return link_local_; }
  const GidTable& gids() const { return gids_; }
  const NodeCounters& counters() const { return counters_; }
  Link& link() { return link_; }

  void set_roce_handler(RoceHandler handler) { roce_handler_ = std::move(handler); }

  // Receives and handles up to `budget` frames, waiting at most timeout_ns for the first.
  // Returns how many frames it handled.
  size_t poll(size_t budget, uint64_t timeout_ns);
  // Sends one complete Ethernet frame; false when the link did not accept it.
  bool send(std::vector<uint8_t> frame);
  // Sends complete Ethernet frames in bursts; a frame the link refuses is counted in
  // send_failures and the rest still go. The buffers stay in `frames` for the caller to reuse
  // (Device::recycle). Returns how many the link accepted.
  size_t send_burst(std::span<std::vector<uint8_t>> frames);

  // The neighbour cache: learnt from ARP/ND traffic, or seeded.
  void add_neighbor(const wire::Ipv4Address& ip, const wire::MacAddress& mac);
  void add_neighbor(const wire::Ipv6Address& ip, const wire::MacAddress& mac);
  std::optional<wire::MacAddress> lookup(const wire::Ipv4Address& ip) const;
  std::optional<wire::MacAddress> lookup(const wire::Ipv6Address& ip) const;

  // Sends one ARP request or neighbour solicitation and returns at once.
  bool solicit(const wire::Ipv4Address& ip);
  bool solicit(const wire::Ipv6Address& ip);
  // Cache, else solicit and poll until answered: at most resolve_attempts attempts of
  // resolve_attempt_timeout_ns each. An IPv4-mapped IPv6 address (a GID) resolves by ARP.
  Expected<wire::MacAddress, std::string> resolve(const wire::Ipv4Address& ip);
  Expected<wire::MacAddress, std::string> resolve(const wire::Ipv6Address& ip);

  // One echo request to a resolved peer; returns the round-trip time in ns, or why not.
  Expected<uint64_t, std::string> ping(const wire::Ipv4Address& ip, uint16_t seq,
                                       uint64_t timeout_ns);
  Expected<uint64_t, std::string> ping(const wire::Ipv6Address& ip, uint16_t seq,
                                       uint64_t timeout_ns);

 private:
  void handle(const Frame& frame);
  void handle_arp(std::span<const uint8_t> frame);
  void handle_ip(const IpFrame& ip, const Frame& frame);
  void handle_udp(std::span<const uint8_t> udp, const Frame& frame);
  void handle_icmpv4(const IpFrame& ip);
  void handle_icmpv6(const IpFrame& ip);
  void drop(NodeDropReason reason) { ++counters_.dropped[static_cast<size_t>(reason)]; }
  bool owns(const wire::Ipv6Address& ip) const;
  bool accepts_ipv6_destination(const wire::Ipv6Address& ip) const;
  bool accepts_mac(const wire::MacAddress& mac) const;
  template <class Address>
  Expected<wire::MacAddress, std::string> resolve_by_polling(const Address& ip,
                                                             std::string_view protocol);
  template <class Address>
  Expected<uint64_t, std::string> ping_by_polling(const Address& ip, uint16_t seq,
                                                  uint64_t timeout_ns);
  // Polls until done() or the deadline; one pass only on a virtual clock.
  template <class Done>
  bool poll_until(Done done, uint64_t deadline_ns);

  Link& link_;
  const Clock& clock_;
  NodeConfig config_;
  wire::Ipv6Address link_local_;
  GidTable gids_;
  RoceHandler roce_handler_;
  NodeCounters counters_;
  std::map<std::array<uint8_t, 4>, wire::MacAddress> ipv4_neighbors_;
  std::map<std::array<uint8_t, 16>, wire::MacAddress> ipv6_neighbors_;
  uint16_t echo_id_;
  std::optional<uint16_t> last_echo_reply_seq_;
  uint64_t last_echo_reply_ns_ = 0;
  std::vector<Frame> burst_;
  std::vector<Frame> tx_burst_;  // apart from burst_: a sender need not be the poller
};

}  // namespace mr::io
