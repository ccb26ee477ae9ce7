#include "harness/fleet/fleet_plan.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "harness/fleet/sbatch_script.h"

namespace mr::fleet {
namespace {

Fleet five_rows() {
  auto fleet = parse_fleet(R"({"fleet": "rack", "partition": "rdma", "time_limit_min": 7,
    "rows": [{"name": "a", "node": "n1", "dut": "reference"},
             {"name": "b", "dut": "reference", "mutants": ["wrong-msn"]},
             {"name": "c", "node": "n2", "dut": "rxe"},
             {"name": "d", "node": "n1", "dut": "reference", "filter": "RC-ACK-*"},
             {"name": "e", "dut": "agent://127.0.0.1:7471", "token_file": "it's",
              "iface": "lo"}]})",
                           "f.json", "/lab");
  EXPECT_TRUE(fleet) << fleet.error();
  return *fleet;
}

FleetPlan plan_of_five() {
  return make_plan(five_rows(), "/lab/f.json", "/opt/metaroce", "/src", "/shared/fleet");
}

TEST(FleetPlan, OneArrayPerPinnedNodeThenOneForTheRest) {
  const FleetPlan plan = plan_of_five();
  ASSERT_EQ(plan.arrays.size(), 3U);
  EXPECT_EQ(plan.arrays[0].node, "n1");
  EXPECT_EQ(plan.arrays[0].rows, (std::vector<size_t>{0, 3}));
  EXPECT_EQ(plan.arrays[1].node, "n2");
  EXPECT_EQ(plan.arrays[1].rows, (std::vector<size_t>{2}));
  EXPECT_EQ(plan.arrays[2].node, "");
  EXPECT_EQ(plan.arrays[2].rows, (std::vector<size_t>{1, 4}));
  EXPECT_EQ(plan.arrays[0].script, "job-0-n1.sbatch");
  EXPECT_EQ(plan.arrays[2].script, "job-2-partition.sbatch");
  EXPECT_EQ(plan.node_folder(3), "/shared/fleet/nodes/d");
}

TEST(FleetPlan, TheScriptMapsTaskIdsToRowsAndPinsTheNode) {
  const FleetPlan plan = plan_of_five();
  const std::string s = sbatch_script(plan, 0);
  EXPECT_NE(s.find("#SBATCH --array=0-1\n"), std::string::npos) << s;
  EXPECT_NE(s.find("#SBATCH --nodelist=n1\n"), std::string::npos) << s;
  EXPECT_NE(s.find("#SBATCH --partition=rdma\n"), std::string::npos) << s;
  EXPECT_NE(s.find("#SBATCH --time=7\n"), std::string::npos) << s;
  EXPECT_NE(s.find("#SBATCH --output=/shared/fleet/slurm/%A_%a.out\n"), std::string::npos) << s;
  EXPECT_NE(s.find("rows=(0 3)\n"), std::string::npos) << s;
  EXPECT_NE(s.find("export METAROCE_ROOT='/src'\n"), std::string::npos) << s;
  EXPECT_NE(s.find("exec '/opt/metaroce' fleet --plan '/shared/fleet/plan.json' --row "
                   "\"${rows[$SLURM_ARRAY_TASK_ID]}\"\n"),
            std::string::npos)
      << s;
  EXPECT_EQ(sbatch_script(plan, 2).find("--nodelist"), std::string::npos);
  EXPECT_EQ(sbatch_command(plan, 1),
            (std::vector<std::string>{"sbatch", "--parsable", "/shared/fleet/job-1-n2.sbatch"}));
}

// The script is bash: run its row mapping for real, with a quote in a path.
TEST(FleetPlan, TheScriptRunsTheRowOfItsTaskUnderBash) {
  const std::string dir = testing::TempDir() + "/script";
  std::filesystem::create_directories(dir);
  FleetPlan plan = make_plan(five_rows(), "/lab/f.json", dir + "/echo it's", "/src", "/x");
  {
    std::ofstream bin(plan.binary);
    bin << "#!/bin/sh\necho \"$METAROCE_ROOT $*\"\n";
  }
  std::filesystem::permissions(plan.binary, std::filesystem::perms::owner_all);
  {
    std::ofstream script(dir + "/job.sbatch");
    script << sbatch_script(plan, 2);
  }
  const std::string out = dir + "/out.txt";
  const std::string cmd = "SLURM_ARRAY_TASK_ID=1 bash " + dir + "/job.sbatch > " + out;
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  std::ifstream in(out);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "/src fleet --plan /x/plan.json --row 4");
}

TEST(FleetPlan, RoundTripsThroughPlanJson) {
  FleetPlan plan = plan_of_five();
  plan.arrays[1].job_id = "42";
  plan.out = testing::TempDir();
  {
    std::ofstream out(plan.plan_path());
    out << plan_to_json(plan).dump(2);
  }
  auto back = load_plan(plan.plan_path());
  ASSERT_TRUE(back) << back.error();
  EXPECT_EQ(plan_to_json(*back), plan_to_json(plan));
  EXPECT_EQ(back->fleet.rows[4].token_file, "/lab/it's");
  EXPECT_EQ(back->job_ids(), "42");
}

TEST(FleetPlan, ABrokenPlanIsNamed) {
  const std::string path = testing::TempDir() + "/broken.plan.json";
  {
    std::ofstream out(path);
    out << R"({"plan_version": 1})";
  }
  auto back = load_plan(path);
  ASSERT_FALSE(back);
  EXPECT_NE(back.error().find(path + ": not a fleet plan"), std::string::npos) << back.error();
}

TEST(SbatchScript, ParsesTheJobIdOfParsable) {
  EXPECT_EQ(parse_job_id("1234\n"), "1234");
  EXPECT_EQ(parse_job_id("1234;cluster\n"), "1234");
  EXPECT_EQ(parse_job_id("sbatch: error: x\n"), "");
  EXPECT_EQ(parse_job_id("12x"), "");
}

TEST(SbatchScript, QuotesForBash) {
  EXPECT_EQ(shell_quote("a b"), "'a b'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
}

}  // namespace
}  // namespace mr::fleet
