#include "harness/dut/local/local_agent.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <utility>

namespace mr::dut {

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kPoll = std::chrono::milliseconds(20);

// 128 bits from the kernel's generator, in hex: the agent's shared secret for this run.
Expected<std::string, std::string> random_token() {
  unsigned char bytes[16];
  if (getrandom(bytes, sizeof bytes, 0) != static_cast<ssize_t>(sizeof bytes))
    return Unexpected(std::string("getrandom: ") + std::strerror(errno));
  static constexpr char kHex[] = "0123456789abcdef";
  std::string token;
  for (const unsigned char b : bytes) {
    token += kHex[b >> 4];
    token += kHex[b & 0xF];
  }
  return token;
}

Expected<std::string, std::string> private_folder() {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern =
      std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/metaroce-local-agent-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr)  // mode 0700
    return Unexpected(pattern + ": " + std::strerror(errno));
  return pattern;
}

Expected<void, std::string> write_token(const std::string& path, const std::string& token) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return Unexpected(path + ": " + std::strerror(errno));
  const std::string line = token + "\n";
  const bool written = write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  close(fd);
  if (!written) return Unexpected(path + ": cannot write the token");
  return {};
}

// The agent with its output into log_path, stopped with us (PR_SET_PDEATHSIG). Between fork
// and exec only system calls: the harness may have threads.
Expected<pid_t, std::string> spawn(const std::vector<std::string>& argv,
                                   const std::string& log_path) {
  const int log = open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (log < 0) return Unexpected(log_path + ": " + std::strerror(errno));
  const int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null < 0) {
    close(log);
    return Unexpected(std::string("/dev/null: ") + std::strerror(errno));
  }
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid == 0) {
    // A blocked SIGTERM (the harness blocks it in some threads) would survive exec.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    signal(SIGTERM, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(127);
    dup2(null, 0);
    dup2(log, 1);
    dup2(log, 2);
    execv(args[0], args.data());
    _exit(127);
  }
  const int fork_errno = errno;
  close(log);
  close(null);
  if (pid < 0) return Unexpected(std::string("fork: ") + std::strerror(fork_errno));
  return pid;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The port of the agent's "...; listening on HOST:PORT" line, or 0 before it is written.
uint16_t listening_port(const std::string& log) {
  static constexpr std::string_view kMarker = "listening on ";
  const size_t at = log.rfind(kMarker);
  if (at == std::string::npos) return 0;
  const size_t end = log.find('\n', at);
  if (end == std::string::npos) return 0;  // the line is not complete yet
  const std::string address = log.substr(at + kMarker.size(), end - at - kMarker.size());
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos) return 0;
  const std::string digits = address.substr(colon + 1);
  if (digits.empty() || digits.size() > 5 ||
      digits.find_first_not_of("0123456789") != std::string::npos)
    return 0;
  const unsigned long port = std::stoul(digits);
  return port > 0 && port <= 65535 ? static_cast<uint16_t>(port) : 0;
}

// The log's last lines, indented, for an error message.
std::string last_lines(const std::string& log, size_t count) {
  std::vector<std::string> lines;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  const size_t first = lines.size() > count ? lines.size() - count : 0;
  std::string text;
  for (size_t i = first; i < lines.size(); ++i) text += "\n  | " + lines[i];
  return text.empty() ? "\n  | (nothing)" : text;
}

std::string how_it_ended(int status) {
  return WIFEXITED(status) ? "exit " + std::to_string(WEXITSTATUS(status))
                           : "signal " + std::to_string(WTERMSIG(status));
}

}  // namespace

Expected<LocalAgent, std::string> LocalAgent::start(const LocalAgentOptions& options) {
  LocalAgent agent;
  agent.stop_timeout_ms_ = options.stop_timeout_ms;
  auto folder = private_folder();
  if (!folder) return Unexpected("local agent: " + folder.error());
  agent.folder_ = *folder;
  auto token = random_token();
  if (!token) return Unexpected("local agent: " + token.error());
  agent.token_ = *token;
  const std::string token_path = agent.folder_ + "/token";
  if (auto written = write_token(token_path, agent.token_); !written)
    return Unexpected("local agent: " + written.error());
  agent.log_path_ = options.log_path.empty() ? agent.folder_ + "/agent.log" : options.log_path;
  const std::string binary = options.binary.empty()
                                 ? std::filesystem::read_symlink("/proc/self/exe").string()
                                 : options.binary;
  std::vector<std::string> argv = {binary,        "agent",        "--listen",
                                   "127.0.0.1:0", "--token-file", token_path};
  argv.insert(argv.end(), options.args.begin(), options.args.end());
  auto pid = spawn(argv, agent.log_path_);
  if (!pid) return Unexpected("local agent: " + pid.error());
  agent.pid_ = *pid;
  const auto deadline = Clock::now() + std::chrono::milliseconds(options.start_timeout_ms);
  while (true) {
    const std::string log = read_file(agent.log_path_);
    if (const uint16_t port = listening_port(log); port != 0) {
      agent.port_ = port;
      return agent;
    }
    int status = 0;
    if (waitpid(agent.pid_, &status, WNOHANG) == agent.pid_) {
      agent.pid_ = -1;
      return Unexpected("local agent: " + binary + " agent ended (" + how_it_ended(status) +
                        ") before it listened; last lines of " + agent.log_path_ + ":" +
                        last_lines(read_file(agent.log_path_), 8));
    }
    if (Clock::now() >= deadline) {
      const std::string ended = agent.stop();
      return Unexpected("local agent: not listening within " +
                        std::to_string(options.start_timeout_ms) + " ms (stopped: " + ended +
                        "); last lines of " + agent.log_path_ + ":" + last_lines(log, 8));
    }
    std::this_thread::sleep_for(kPoll);
  }
}

LocalAgent::LocalAgent(LocalAgent&& other) noexcept { *this = std::move(other); }

LocalAgent& LocalAgent::operator=(LocalAgent&& other) noexcept {
  if (this == &other) return *this;
  release();
  pid_ = std::exchange(other.pid_, -1);
  port_ = std::exchange(other.port_, 0);
  token_ = std::move(other.token_);
  folder_ = std::exchange(other.folder_, "");
  log_path_ = std::move(other.log_path_);
  stop_timeout_ms_ = other.stop_timeout_ms_;
  return *this;
}

LocalAgent::~LocalAgent() { release(); }

std::string LocalAgent::stop() {
  if (pid_ < 0) return "";
  kill(pid_, SIGTERM);
  const auto deadline = Clock::now() + std::chrono::milliseconds(stop_timeout_ms_);
  int status = 0;
  pid_t reaped = 0;
  while ((reaped = waitpid(pid_, &status, WNOHANG)) == 0 && Clock::now() < deadline)
    std::this_thread::sleep_for(kPoll);
  if (reaped == 0) {
    kill(pid_, SIGKILL);
    reaped = waitpid(pid_, &status, 0);
  }
  pid_ = -1;
  return reaped > 0 ? how_it_ended(status) : "not reaped";
}

void LocalAgent::release() {
  stop();
  if (folder_.empty()) return;
  std::error_code ec;
  std::filesystem::remove(folder_ + "/token", ec);
  // The log stays when it was named; otherwise the folder goes with it.
  if (log_path_.starts_with(folder_ + "/")) std::filesystem::remove(log_path_, ec);
  std::filesystem::remove(folder_, ec);
  folder_.clear();
}

}  // namespace mr::dut
