// File: eth_port.h
//
// One DPDK ethdev port, owned: configured with its queues, started, and on destruction
// stopped and closed, and removed from the bus when it was hot-plugged here. Two ways in:
// attach() hot-plugs a device from its devargs ("net_af_packet0,iface=mrt0", a PCI
// address), find() takes one the EAL probed already (--vdev, --allow).
//
// Where it runs matters for virtual devices over kernel interfaces: net_af_packet opens its
// sockets in attach() and sets promiscuous mode in start(), both in the calling thread's
// network namespace. Call them on a thread inside the namespace of the interface
// (open_dpdk_link_in does); stop and close touch no interface and may run anywhere.
//
// Usage:
//   auto port = EthPort::attach("net_af_packet0,iface=mrt0");
//   port->start({.queues = 1, .rx_descriptors = 1024, .tx_descriptors = 1024}, pool.get());
#pragma once

#include <rte_mempool.h>

#include <cstdint>
#include <string>

#include "reference/error/expected.h"

namespace mr::io::dpdk {

struct EthPortConfig {
  uint16_t queues = 1;  // RX and TX queues alike
  uint16_t rx_descriptors = 1024;
  uint16_t tx_descriptors = 1024;
  bool promiscuous = true;  // a Node may use a MAC other than the port's
};

class EthPort {
 public:
  static Expected<EthPort, std::string> attach(const std::string& devargs);
  static Expected<EthPort, std::string> find(const std::string& name);

  EthPort(EthPort&& other) noexcept;
  EthPort& operator=(EthPort&& other) = delete;
  EthPort(const EthPort&) = delete;
  EthPort& operator=(const EthPort&) = delete;
  ~EthPort();

  // Configures the queues (descriptor counts as the device adjusts them), sets them up with
  // `pool` and starts the port.
  Expected<void, std::string> start(const EthPortConfig& config, rte_mempool* pool);

  uint16_t id() const { return id_; }
  const std::string& name() const { return name_; }
  int socket() const;  // NUMA socket of the device, or SOCKET_ID_ANY

 private:
  EthPort(uint16_t id, std::string name, bool attached)
      : id_(id), name_(std::move(name)), attached_(attached) {}
  Expected<void, std::string> configure_and_start(const EthPortConfig& config, rte_mempool* pool);

  uint16_t id_;
  std::string name_;
  bool attached_;  // hot-plugged by attach(): removed on destruction
  bool started_ = false;
  bool owned_ = true;  // false once moved from
};

// "net_af_packet0" of "net_af_packet0,iface=mrt0": the device's name, and its port's.
std::string device_name(const std::string& devargs);

}  // namespace mr::io::dpdk
