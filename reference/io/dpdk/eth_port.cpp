#include "reference/io/dpdk/eth_port.h"

#include <rte_dev.h>
#include <rte_ethdev.h>

#include <cstdio>
#include <optional>

#include "reference/io/dpdk/captured_output.h"

namespace mr::io::dpdk {
namespace {

std::string failure(const std::string& name, const std::string& step, int rc) {
  return name + ": " + step + ": " + rte_strerror(-rc) + " (" + std::to_string(rc) + ")";
}

}  // namespace

std::string device_name(const std::string& devargs) { return devargs.substr(0, devargs.find(',')); }

Expected<EthPort, std::string> EthPort::find(const std::string& name) {
  uint16_t id = 0;
  if (rte_eth_dev_get_port_by_name(name.c_str(), &id) != 0) {
    return Unexpected(name + ": no DPDK port of that name (" +
                      std::to_string(rte_eth_dev_count_avail()) + " ports probed)");
  }
  return EthPort(id, name, false);
}

Expected<EthPort, std::string> EthPort::attach(const std::string& devargs) {
  const std::string name = device_name(devargs);
  uint16_t id = 0;
  if (rte_eth_dev_get_port_by_name(name.c_str(), &id) == 0) {
    return Unexpected(devargs + ": a port named " + name + " exists already");
  }
  // The driver says why it refused only in DPDK's log (on stderr since DpdkEal::start):
  // captured, it goes into the error.
  CapturedOutput printed;
  const int rc = capture_output([&] { return rte_dev_probe(devargs.c_str()); }, printed);
  if (rc != 0) {
    std::string message = failure(devargs, "rte_dev_probe", rc);
    if (const std::string why = explanation_lines(printed.err); !why.empty()) {
      message += ": " + why;
    }
    return Unexpected(message);
  }
  std::fputs(printed.err.c_str(), stderr);
  if (rte_eth_dev_get_port_by_name(name.c_str(), &id) != 0) {
    return Unexpected(devargs + ": probed, but no ethdev port named " + name + " appeared");
  }
  return EthPort(id, name, true);
}

EthPort::EthPort(EthPort&& other) noexcept
    : id_(other.id_),
      name_(std::move(other.name_)),
      attached_(other.attached_),
      started_(other.started_),
      owned_(other.owned_) {
  other.owned_ = false;
}

EthPort::~EthPort() {
  if (!owned_) return;
  rte_eth_dev_info info{};
  const bool have_device = rte_eth_dev_info_get(id_, &info) == 0 && info.device != nullptr;
  if (started_) (void)rte_eth_dev_stop(id_);
  (void)rte_eth_dev_close(id_);
  // A destructor cannot report; a device left on the bus only blocks its name in this process.
  if (attached_ && have_device) (void)rte_dev_remove(info.device);
}

int EthPort::socket() const { return rte_eth_dev_socket_id(id_); }

Expected<void, std::string> EthPort::start(const EthPortConfig& config, rte_mempool* pool) {
  // As in attach(): a driver's reason for refusing a queue is only in DPDK's log.
  std::optional<Expected<void, std::string>> started;
  CapturedOutput printed;
  capture_output(
      [&] {
        started.emplace(configure_and_start(config, pool));
        return 0;
      },
      printed);
  if (!*started) {
    const std::string why = explanation_lines(printed.err);
    return Unexpected(started->error() + (why.empty() ? "" : ": " + why));
  }
  std::fputs(printed.err.c_str(), stderr);
  return {};
}

Expected<void, std::string> EthPort::configure_and_start(const EthPortConfig& config,
                                                         rte_mempool* pool) {
  rte_eth_dev_info info{};
  if (const int rc = rte_eth_dev_info_get(id_, &info); rc != 0) {
    return Unexpected(failure(name_, "rte_eth_dev_info_get", rc));
  }
  if (config.queues == 0 || config.queues > info.max_rx_queues ||
      config.queues > info.max_tx_queues) {
    return Unexpected(name_ + ": " + std::to_string(config.queues) +
                      " queues asked, the device has " + std::to_string(info.max_rx_queues) +
                      " RX and " + std::to_string(info.max_tx_queues) +
                      " TX (net_af_packet: qpairs=N)");
  }
  rte_eth_conf conf{};
  if (const int rc = rte_eth_dev_configure(id_, config.queues, config.queues, &conf); rc != 0) {
    return Unexpected(failure(name_, "rte_eth_dev_configure", rc));
  }
  uint16_t rx_descriptors = config.rx_descriptors;
  uint16_t tx_descriptors = config.tx_descriptors;
  if (const int rc = rte_eth_dev_adjust_nb_rx_tx_desc(id_, &rx_descriptors, &tx_descriptors);
      rc != 0) {
    return Unexpected(failure(name_, "rte_eth_dev_adjust_nb_rx_tx_desc", rc));
  }
  const int socket_id = socket();
  const auto socket_arg = static_cast<unsigned>(socket_id);  // SOCKET_ID_ANY passes as is
  for (uint16_t q = 0; q < config.queues; ++q) {
    if (const int rc = rte_eth_rx_queue_setup(id_, q, rx_descriptors, socket_arg, nullptr, pool);
        rc != 0) {
      return Unexpected(failure(name_,
                                "rte_eth_rx_queue_setup(queue " + std::to_string(q) + ", " +
                                    std::to_string(rx_descriptors) + " descriptors)",
                                rc));
    }
    if (const int rc = rte_eth_tx_queue_setup(id_, q, tx_descriptors, socket_arg, nullptr);
        rc != 0) {
      return Unexpected(failure(name_,
                                "rte_eth_tx_queue_setup(queue " + std::to_string(q) + ", " +
                                    std::to_string(tx_descriptors) + " descriptors)",
                                rc));
    }
  }
  if (const int rc = rte_eth_dev_start(id_); rc != 0) {
    return Unexpected(failure(name_, "rte_eth_dev_start", rc));
  }
  started_ = true;
  if (config.promiscuous) {
    // Devices without the mode (-ENOTSUP) receive what they receive.
    if (const int rc = rte_eth_promiscuous_enable(id_); rc != 0 && rc != -ENOTSUP) {
      return Unexpected(failure(name_, "rte_eth_promiscuous_enable", rc));
    }
  }
  return {};
}

}  // namespace mr::io::dpdk
