#include "harness/doctor/judge.h"

namespace mr::doctor {

std::vector<Finding> judge(const HostFacts& facts) {
  std::vector<Finding> out;
  judge_rdma(facts, out);
  // QoS is about the netdevs RDMA runs on: with no device there is nothing to judge.
  judge_qos(facts, out);
  return out;
}

}  // namespace mr::doctor
