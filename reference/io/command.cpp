#include "reference/io/command.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>

extern char** environ;  // NOLINT: POSIX declares it nowhere else

namespace mr::io {
namespace {

std::string join(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

// Owns a pipe's two ends.
struct Pipe {
  int fd[2] = {-1, -1};
  Pipe() {
    if (pipe2(fd, O_CLOEXEC) != 0) fd[0] = fd[1] = -1;
  }
  ~Pipe() {
    for (int f : fd) {
      if (f >= 0) close(f);
    }
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
  bool ok() const { return fd[0] >= 0; }
  void close_write() {
    close(fd[1]);
    fd[1] = -1;
  }
};

// Reads both pipes until they close or the deadline passes; false on timeout.
bool drain(Pipe& out, Pipe& err, std::string& out_text, std::string& err_text,
           std::chrono::steady_clock::time_point deadline) {
  std::array<pollfd, 2> fds = {pollfd{out.fd[0], POLLIN, 0}, pollfd{err.fd[0], POLLIN, 0}};
  std::array<std::string*, 2> texts = {&out_text, &err_text};
  int open_count = 2;
  char buf[4096];
  while (open_count > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    if (poll(fds.data(), fds.size(), static_cast<int>(left.count())) < 0 && errno != EINTR) {
      return false;
    }
    for (size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        texts[i]->append(buf, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        fds[i].fd = -1;
        --open_count;
      }
    }
  }
  return true;
}

}  // namespace

Expected<std::string, std::string> run_command(const std::vector<std::string>& argv,
                                               uint64_t timeout_ms) {
  const std::string what = join(argv);
  if (argv.empty()) return Unexpected(std::string("empty command"));
  Pipe out;
  Pipe err;
  if (!out.ok() || !err.ok()) return Unexpected(what + ": pipe: " + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out.fd[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err.fd[1], 2);
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return Unexpected(what + ": cannot start: " + std::strerror(rc));
  out.close_write();
  err.close_write();
  std::string out_text;
  std::string err_text;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  const bool finished = drain(out, err, out_text, err_text, deadline);
  if (!finished) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!finished) return Unexpected(what + ": killed after " + std::to_string(timeout_ms) + " ms");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    while (!err_text.empty() && err_text.back() == '\n') err_text.pop_back();
    const std::string how = WIFEXITED(status) ? "exit " + std::to_string(WEXITSTATUS(status))
                                              : "signal " + std::to_string(WTERMSIG(status));
    return Unexpected(what + ": " + how + (err_text.empty() ? "" : ": " + err_text));
  }
  return out_text;
}

}  // namespace mr::io
