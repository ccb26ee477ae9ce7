// The live progress line: its text, and that it is drawn on a terminal (a pseudo-terminal
// here) and never on a pipe, both for the ProgressLine itself and for `metaroce run`.
#include "harness/cli/progress_line.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <pty.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <vector>

extern char** environ;

namespace mr::cli {
namespace {

using report::Verdict;

engine::SuiteProgress progress(size_t done, size_t total, std::string current) {
  engine::SuiteProgress p;
  p.done = done;
  p.total = total;
  p.counts = {{Verdict::kPass, 10}, {Verdict::kFail, 2},          {Verdict::kInconc, 1},
              {Verdict::kError, 3}, {Verdict::kNotApplicable, 4}, {Verdict::kNone, 0}};
  p.current = std::move(current);
  return p;
}

TEST(FormatProgressLine, NamesTheRunUnderWayAndEveryCount) {
  EXPECT_EQ(format_progress_line(progress(20, 175, "RC-PSN-004"), 120),
            "[21/175] pass 10 fail 2 inconc 1 n/a 4 error 3  RC-PSN-004");
}

TEST(FormatProgressLine, AtTheEndShowsTheLastRunAndNoTest) {
  EXPECT_EQ(format_progress_line(progress(175, 175, ""), 120),
            "[175/175] pass 10 fail 2 inconc 1 n/a 4 error 3");
}

TEST(FormatProgressLine, BeforeTheFirstRunCountsNothing) {
  engine::SuiteProgress p;
  p.total = 3;
  p.current = "RC-AK-001";
  EXPECT_EQ(format_progress_line(p, 80), "[1/3] pass 0 fail 0 inconc 0 n/a 0 error 0  RC-AK-001");
}

TEST(FormatProgressLine, StaysShortOfTheLastColumn) {
  const std::string line = format_progress_line(progress(1, 9, "A-VERY-LONG-TEST-ID"), 30);
  EXPECT_EQ(line.size(), 29U);
  EXPECT_EQ(line, std::string("[2/9] pass 10 fail 2 inconc 1 n/a 4 error 3").substr(0, 29));
  EXPECT_EQ(format_progress_line(progress(1, 9, "X"), 0), "");
}

// Everything readable from `fd` within `budget`, until the writer closes it (EOF or EIO,
// as a pty master reports a closed slave).
std::string drain(int fd, std::chrono::milliseconds budget) {
  std::string out;
  const auto end = std::chrono::steady_clock::now() + budget;
  char buf[4096];
  while (std::chrono::steady_clock::now() < end) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 50) <= 0) continue;
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

struct Pty {
  int master = -1;
  int slave = -1;
  Pty() { EXPECT_EQ(openpty(&master, &slave, nullptr, nullptr, nullptr), 0); }
  ~Pty() {
    if (master >= 0) close(master);
    if (slave >= 0) close(slave);
  }
};

TEST(ProgressLine, DrawsAndClearsOnATerminal) {
  Pty pty;
  {
    ProgressLine line(pty.slave, true);
    EXPECT_TRUE(line.active());
    line.show(progress(0, 2, "RC-PSN-001"));
    line.clear();
  }
  close(pty.slave);
  pty.slave = -1;
  const std::string out = drain(pty.master, std::chrono::milliseconds(500));
  EXPECT_NE(out.find("\r[1/2] pass 10 fail 2 inconc 1 n/a 4 error 3  RC-PSN-001\x1b[K"),
            std::string::npos)
      << out;
  EXPECT_NE(out.rfind("\r\x1b[K"), std::string::npos) << "cleared at the end: " << out;
}

TEST(ProgressLine, WritesNothingOnAPipeOrWhenNotWanted) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  Pty pty;
  {
    ProgressLine on_pipe(fds[1], true);
    ProgressLine unwanted(pty.slave, false);
    EXPECT_FALSE(on_pipe.active());
    EXPECT_FALSE(unwanted.active());
    on_pipe.show(progress(0, 2, "RC-PSN-001"));
    unwanted.show(progress(0, 2, "RC-PSN-001"));
  }
  close(fds[1]);
  close(pty.slave);
  pty.slave = -1;
  EXPECT_EQ(drain(fds[0], std::chrono::milliseconds(200)), "");
  EXPECT_EQ(drain(pty.master, std::chrono::milliseconds(200)), "");
  close(fds[0]);
}

// `metaroce run` on two tests with its stderr on `err_fd`; stdout discarded. Returns the
// exit status.
int run_cli(int err_fd, const std::vector<std::string>& extra) {
  std::vector<std::string> args = {
      "harness/cli/metaroce",  "run",   "--filter",
      "RC-PSN-001,RC-PSN-002", "--out", std::string(std::getenv("TEST_TMPDIR")) + "/progress-run"};
  args.insert(args.end(), extra.begin(), extra.end());
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, err_fd, STDERR_FILENO);
  pid_t pid = -1;
  const int spawned = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(MetaroceRun, ShowsTheProgressLineOnATerminalOnly) {
  {
    Pty pty;
    // Two short tests write a few hundred bytes: far below what a pty buffers, so the
    // child never blocks before it is drained.
    EXPECT_EQ(run_cli(pty.slave, {}), 0);
    close(pty.slave);
    pty.slave = -1;
    const std::string tty = drain(pty.master, std::chrono::seconds(2));
    EXPECT_NE(tty.find("[1/2] pass 0 fail 0 inconc 0 n/a 0 error 0  RC-PSN-001"), std::string::npos)
        << tty;
    EXPECT_NE(tty.find("[2/2] pass 1 fail 0"), std::string::npos) << tty;
    EXPECT_NE(tty.rfind("\r\x1b[K"), std::string::npos) << "cleared before the summary";
  }
  {
    Pty pty;
    EXPECT_EQ(run_cli(pty.slave, {"--no-progress"}), 0);
    close(pty.slave);
    pty.slave = -1;
    EXPECT_EQ(drain(pty.master, std::chrono::seconds(1)).find("[1/2]"), std::string::npos);
  }
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  EXPECT_EQ(run_cli(fds[1], {}), 0);
  close(fds[1]);
  const std::string piped = drain(fds[0], std::chrono::seconds(1));
  close(fds[0]);
  EXPECT_EQ(piped.find("[1/2]"), std::string::npos) << piped;
  EXPECT_EQ(piped.find('\r'), std::string::npos) << piped;
}

}  // namespace
}  // namespace mr::cli
