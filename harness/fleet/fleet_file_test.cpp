#include "harness/fleet/fleet_file.h"

#include <gtest/gtest.h>

#include <string>

namespace mr::fleet {
namespace {

Expected<Fleet, std::string> parse(const std::string& text) {
  return parse_fleet(text, "lab.fleet.json", "/lab");
}

TEST(FleetFile, ReadsEveryField) {
  auto f = parse(R"({"fleet": "rack-7", "partition": "rdma", "time_limit_min": 12,
    "rows": [
      {"name": "n1", "node": "node-01", "dut": "agent://10.0.0.5:7471", "profile": "reference",
       "pixit": "lab.pixit.json", "token_file": "/etc/token", "filter": "RC-ACK-*",
       "iface": "ens2f1"},
      {"name": "m", "dut": "reference", "mutants": ["wrong-msn"]},
      {"name": "own-nic", "node": "node-02", "dut": "verbs:mlx5_0", "iface": "ens2f1"}]})");
  ASSERT_TRUE(f) << f.error();
  EXPECT_EQ(f->name, "rack-7");
  EXPECT_EQ(f->partition, "rdma");
  EXPECT_EQ(f->time_limit_min, 12);
  ASSERT_EQ(f->rows.size(), 3U);
  EXPECT_EQ(f->rows[0].node, "node-01");
  EXPECT_EQ(f->rows[0].dut, "agent://10.0.0.5:7471");
  EXPECT_EQ(f->rows[0].pixit, "/lab/lab.pixit.json");  // the fleet file's folder's
  EXPECT_EQ(f->rows[0].token_file, "/etc/token");
  EXPECT_EQ(f->rows[0].filter, "RC-ACK-*");
  EXPECT_EQ(f->rows[1].node, "");
  EXPECT_EQ(f->rows[0].iface, "ens2f1");
  EXPECT_EQ(f->rows[1].mutants, std::vector<std::string>{"wrong-msn"});
  EXPECT_EQ(f->rows[2].dut, "verbs:mlx5_0");  // the node's own NIC
  EXPECT_EQ(f->rows[2].iface, "ens2f1");
  EXPECT_EQ(f->time_limit_min, 12);
}

TEST(FleetFile, DefaultsTheTimeLimit) {
  auto f = parse(R"({"fleet": "r", "rows": [{"name": "a", "dut": "rxe"}]})");
  ASSERT_TRUE(f) << f.error();
  EXPECT_EQ(f->time_limit_min, 30);
  EXPECT_EQ(f->partition, "");
}

struct BadFleet {
  const char* text;
  const char* error;
};

class FleetFileErrors : public testing::TestWithParam<BadFleet> {};

TEST_P(FleetFileErrors, NameFileLineAndField) {
  auto f = parse(GetParam().text);
  ASSERT_FALSE(f);
  EXPECT_EQ(f.error(), GetParam().error);
}

INSTANTIATE_TEST_SUITE_P(
    All, FleetFileErrors,
    testing::Values(
        BadFleet{"{\"fleet\": \"r\",\n \"rows\": [\n {\"name\": \"a\"}]}",
                 "lab.fleet.json:3: rows[0].dut: missing"},
        BadFleet{"{\"fleet\": \"r\",\n \"rows\": [\n {\"name\": \"a\", \"dut\": \"reference\",\n"
                 "  \"colour\": \"red\"}]}",
                 "lab.fleet.json:4: rows[0].colour: unknown member"},
        BadFleet{"{\"fleet\": \"r\", \"rows\": [\n{\"name\": \"a\", \"dut\": \"reference\"},\n"
                 "{\"name\": \"a\", \"dut\": \"rxe\"}]}",
                 "lab.fleet.json:3: rows[1].name: 'a' names an earlier row too: each row needs "
                 "its own result folder"},
        BadFleet{"{\"fleet\": \"r\",\n\"time_limit_min\": \"5\",\n \"rows\": []}",
                 "lab.fleet.json:2: time_limit_min: expected an integer from 1 to 10080, got "
                 "\"5\""},
        BadFleet{"{\"fleet\": \"r\", \"rows\": [\n{\"name\": \"a\",\n \"dut\": 7}]}",
                 "lab.fleet.json:3: rows[0].dut: expected a string, got number"},
        BadFleet{"{\"fleet\": \"r\", \"rows\": [{\"name\": \"a\",\n \"dut\": \"verbs\"}]}",
                 "lab.fleet.json:2: rows[0].dut: 'verbs': expected reference, rxe, "
                 "agent://HOST:PORT or verbs:DEVICE"},
        BadFleet{"{\"fleet\": \"r\", \"rows\": [{\"name\": \"a\",\n \"dut\": \"verbs:a b\"}]}",
                 "lab.fleet.json:2: rows[0].dut: 'verbs:a b': expected reference, rxe, "
                 "agent://HOST:PORT or verbs:DEVICE"},
        BadFleet{"{\"fleet\": \"r\", \"rows\": [\n{\"name\": \"a\", \"dut\": \"verbs:mlx5_0\"}]}",
                 "lab.fleet.json:2: rows[0].iface: missing: an agent:// or verbs: DUT needs "
                 "the node's interface facing it"},
        BadFleet{"{\"fleet\": \"r\", \"rows\": [\n{\"name\": \"a\", \"dut\": \"agent://h:1\"}]}",
                 "lab.fleet.json:2: rows[0].iface: missing: an agent:// or verbs: DUT needs "
                 "the node's interface facing it"},
        BadFleet{"{\"fleet\": \"r\", \"rows\": [{\"name\": \"a\", \"dut\": \"rxe\",\n"
                 "\"iface\": \"eth1\"}]}",
                 "lab.fleet.json:2: rows[0].iface: only agent:// and verbs: DUTs take one"},
        BadFleet{"{\"fleet\": \"r\", \"rows\": [{\"name\": \"../x\", \"dut\": \"rxe\"}]}",
                 "lab.fleet.json:1: rows[0].name: '../x': letters, digits, '.', '_' and '-' "
                 "only"},
        BadFleet{"{\"fleet\": \"r\", \"rows\": [{\"name\": \"a\", \"dut\": \"rxe\",\n"
                 "\"mutants\": [\"wrong-msn\"]}]}",
                 "lab.fleet.json:2: rows[0].mutants: only the embedded reference (dut "
                 "reference) has them"},
        BadFleet{"{\"fleet\": \"r\", \"rows\": [{\"name\": \"a\", \"dut\": \"reference\",\n"
                 "\"mutants\": [\"ok\",\n 3]}]}",
                 "lab.fleet.json:3: rows[0].mutants[1]: expected a mutant's name"},
        BadFleet{"{\"fleet\": \"r\",\n\"rows\": []}",
                 "lab.fleet.json:2: rows: empty: a fleet needs a row"},
        BadFleet{"{\"rows\": []}", "lab.fleet.json:1: fleet: missing"},
        BadFleet{"[1]", "lab.fleet.json:1: expected an object, got array"},
        BadFleet{"{\"fleet\": \"r\", \"rows\": [\"a\"]}",
                 "lab.fleet.json:1: rows[0]: expected an object, got string"}));

TEST(FleetFile, LoadNamesAMissingFile) {
  auto f = load_fleet("/nonexistent/lab.fleet.json");
  ASSERT_FALSE(f);
  EXPECT_EQ(f.error(), "/nonexistent/lab.fleet.json: cannot read");
}

}  // namespace
}  // namespace mr::fleet
