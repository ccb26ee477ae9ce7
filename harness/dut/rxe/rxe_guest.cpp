#include "harness/dut/rxe/rxe_guest.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

#include "reference/io/command.h"
#include "reference/io/veth_pair.h"

namespace mr::dut {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr const char* kReadyMarker = "metaroce-guest: ready rxe0 ";
constexpr const char* kErrorMarker = "metaroce-guest: error ";
constexpr const char* kExecBeginMarker = "metaroce-guest: exec-begin\n";
constexpr const char* kExecEndMarker = "metaroce-guest: exec-end\n";
constexpr const char* kExitMarker = "metaroce-guest: exit ";
constexpr uint64_t kImageBuildTimeoutMs = 600'000;
constexpr auto kStopGrace = std::chrono::seconds(5);
constexpr size_t kQuotedLines = 20;

std::string env_or(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? std::string(value) : fallback;
}

bool is_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}

// tools/dut-vm: METAROCE_DUT_VM_DIR, else the runfiles of a Bazel test or binary, else a
// parent of the working directory that is the repository.
Expected<fs::path, std::string> find_dut_vm_dir() {
  const fs::path rel = "tools/dut-vm";
  std::vector<fs::path> candidates;
  if (const char* dir = std::getenv("METAROCE_DUT_VM_DIR")) candidates.emplace_back(dir);
  for (const char* var : {"RUNFILES_DIR", "TEST_SRCDIR"}) {
    if (const char* dir = std::getenv(var)) candidates.push_back(fs::path(dir) / "metaroce" / rel);
  }
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) candidates.push_back(fs::path(exe.string() + ".runfiles") / "metaroce" / rel);
  if (const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY")) {
    candidates.push_back(fs::path(ws) / rel);
  }
  for (fs::path dir = fs::current_path(ec); !ec && !dir.empty(); dir = dir.parent_path()) {
    candidates.push_back(dir / rel);
    if (dir == dir.root_path()) break;
  }
  for (const auto& dir : candidates) {
    if (is_file(dir / "build-image.sh")) return dir;
  }
  return Unexpected(std::string("tools/dut-vm/build-image.sh not found (set METAROCE_DUT_VM_DIR)"));
}

// METAROCE_DUT_VM_KERNEL, else the newest /boot/vmlinuz-<version>.
Expected<fs::path, std::string> find_kernel() {
  if (const char* kernel = std::getenv("METAROCE_DUT_VM_KERNEL")) {
    if (!is_file(kernel)) return Unexpected(std::string(kernel) + ": no such kernel image");
    return fs::path(kernel);
  }
  std::string best;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/boot", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("vmlinuz-", 0) != 0) continue;
    if (best.empty() || strverscmp(name.c_str(), best.c_str()) > 0) best = name;
  }
  if (best.empty()) return Unexpected(std::string("no /boot/vmlinuz-* (linux-image-amd64)"));
  return fs::path("/boot") / best;
}

Expected<std::string, std::string> find_on_path(const std::string& program) {
  std::istringstream path(env_or("PATH", "/usr/bin:/bin"));
  for (std::string dir; std::getline(path, dir, ':');) {
    const fs::path candidate = fs::path(dir) / program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return Unexpected(program + ": not found on PATH (qemu-system-x86)");
}

std::string random_token() {
  std::random_device rd;
  std::ostringstream out;
  for (int i = 0; i < 4; ++i) {
    char chunk[9];
    std::snprintf(chunk, sizeof chunk, "%08x", rd());
    out << chunk;
  }
  return out.str();
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The console without the firmware's terminal escapes and carriage returns.
std::string printable(const std::string& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == 0x1b) {
      // ESC [ params final, or ESC and one character.
      if (i + 1 < text.size() && text[i + 1] == '[') {
        i += 2;
        while (i < text.size() && (text[i] < 0x40 || text[i] > 0x7e)) ++i;
      } else {
        ++i;
      }
      continue;
    }
    if (c == '\n' || c == '\t' || (c >= 0x20 && c != 0x7f)) out.push_back(static_cast<char>(c));
  }
  return out;
}

std::string last_lines(const std::string& path, size_t count) {
  std::istringstream in(printable(read_file(path)));
  std::deque<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    lines.push_back("  | " + line);
    if (lines.size() > count) lines.pop_front();
  }
  std::string out;
  for (const auto& line : lines) out += line + "\n";
  return out.empty() ? "  | (nothing)\n" : out;
}

// The rest of the line after `marker`, if the console has it.
std::optional<std::string> after_marker(const std::string& console, const std::string& marker) {
  const size_t at = console.find(marker);
  if (at == std::string::npos) return std::nullopt;
  const size_t start = at + marker.size();
  const size_t end = console.find('\n', start);
  if (end == std::string::npos) return std::nullopt;  // the line is still being written
  std::string rest = console.substr(start, end - start);
  while (!rest.empty() && (rest.back() == '\r' || rest.back() == ' ')) rest.pop_back();
  return rest;
}

// RFC 4648 base64: the kernel command line carries the exec command without its spaces.
std::string base64(const std::string& in) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const uint32_t v = (uint32_t{static_cast<uint8_t>(in[i])} << 16) |
                       (uint32_t{static_cast<uint8_t>(in[i + 1])} << 8) |
                       static_cast<uint8_t>(in[i + 2]);
    for (int shift = 18; shift >= 0; shift -= 6) out.push_back(kAlphabet[(v >> shift) & 63]);
  }
  if (i < in.size()) {
    uint32_t v = uint32_t{static_cast<uint8_t>(in[i])} << 16;
    if (i + 1 < in.size()) v |= uint32_t{static_cast<uint8_t>(in[i + 1])} << 8;
    out.push_back(kAlphabet[(v >> 18) & 63]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(i + 1 < in.size() ? kAlphabet[(v >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

// A TCP connect bounded by timeout_ms, from the calling thread's namespace.
bool tcp_connects(const wire::Ipv4Address& ip, uint16_t port, int timeout_ms) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  std::memcpy(&addr.sin_addr, ip.bytes.data(), ip.bytes.size());
  bool ok = connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0;
  if (!ok && errno == EINPROGRESS) {
    pollfd p{fd, POLLOUT, 0};
    int error = 0;
    socklen_t len = sizeof error;
    ok = poll(&p, 1, timeout_ms) == 1 && getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len) == 0 &&
         error == 0;
  }
  close(fd);
  return ok;
}

// An fd closed when it goes out of scope.
struct Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {}
  ~Fd() {
    if (fd >= 0) close(fd);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
};

// QEMU inside the namespace, in its own process group, killed when the calling thread dies,
// its console (stdout and stderr) into log_path. Between fork and exec only system calls.
Expected<pid_t, std::string> spawn_in_namespace(const std::string& netns,
                                                const std::vector<std::string>& argv,
                                                const std::string& log_path) {
  const Fd ns(open(("/run/netns/" + netns).c_str(), O_RDONLY | O_CLOEXEC));
  if (ns.fd < 0) return Unexpected("/run/netns/" + netns + ": " + std::strerror(errno));
  const Fd log(open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (log.fd < 0) return Unexpected(log_path + ": " + std::strerror(errno));
  const Fd null(open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (null.fd < 0) return Unexpected(std::string("/dev/null: ") + std::strerror(errno));
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) return Unexpected(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    setpgid(0, 0);
    // A blocked or ignored SIGTERM would survive exec and turn every stop into a SIGKILL.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    signal(SIGTERM, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);  // the parent died before prctl took effect
    if (setns(ns.fd, CLONE_NEWNET) != 0) _exit(126);
    dup2(null.fd, 0);
    dup2(log.fd, 1);
    dup2(log.fd, 2);
    execv(args[0], args.data());
    _exit(127);
  }
  setpgid(pid, pid);  // also here, so that kill(-pid) works whichever runs first
  return pid;
}

int64_t ms_since(Clock::time_point since) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - since).count();
}

// How a reaped process ended, from waitpid's status.
std::string how_it_ended(int status) {
  return WIFEXITED(status) ? "exit " + std::to_string(WEXITSTATUS(status))
                           : "signal " + std::to_string(WTERMSIG(status));
}

// 198.18.0.0/15 (RFC 2544) is never routed: a wrong address cannot reach a real network.
Expected<void, std::string> check_test_addresses(const RxeGuestOptions& options) {
  for (const auto* ip : {&options.guest_ip, &options.tester_ip, &options.host_ip}) {
    if (!io::is_benchmarking_cidr(ip->to_string() + "/32")) {
      return Unexpected(ip->to_string() + ": test addresses must lie in 198.18.0.0/15");
    }
  }
  return {};
}

// What the guest is built and booted from, found on the host.
struct HostInputs {
  std::string qemu;
  fs::path dut_vm_dir;  // build-image.sh and the guest's init
  fs::path kernel;
};

Expected<HostInputs, std::string> find_host_inputs() {
  auto qemu = find_on_path("qemu-system-x86_64");
  if (!qemu) return Unexpected(qemu.error());
  auto dir = find_dut_vm_dir();
  if (!dir) return Unexpected(dir.error());
  auto kernel = find_kernel();
  if (!kernel) return Unexpected(kernel.error());
  return HostInputs{std::move(*qemu), std::move(*dir), std::move(*kernel)};
}

// The guest's initramfs, and how long it took to get (a build, or a look in the cache).
struct GuestImage {
  std::string path;
  int64_t build_ms = 0;
};

// The last line of `text`, without trailing newlines.
std::string last_line(std::string text) {
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text.substr(text.rfind('\n') + 1);  // npos + 1 == 0: the only line
}

// build-image.sh builds the image once per set of inputs, then finds it in the cache; its
// last line of output is the image's path.
Expected<GuestImage, std::string> build_image(const RxeGuestOptions& options,
                                              const HostInputs& host) {
  std::string binary = options.metaroce_binary;
  if (binary.empty()) {
    std::error_code ec;
    binary = fs::read_symlink("/proc/self/exe", ec).string();
  }
  const std::string cache = !options.cache_dir.empty()
                                ? options.cache_dir
                                : env_or("HOME", "/tmp") + "/.cache/metaroce-dut-vm";
  const auto built_at = Clock::now();
  auto built = io::run_command(
      {"bash", (host.dut_vm_dir / "build-image.sh").string(), cache, binary, host.kernel.string()},
      kImageBuildTimeoutMs);
  if (!built) return Unexpected("building the image: " + built.error());
  std::string image = last_line(*built);
  if (!is_file(image)) return Unexpected("build-image.sh printed no image path: " + *built);
  return GuestImage{std::move(image), ms_since(built_at)};
}

// The guest's init (tools/dut-vm/init) takes its configuration from these mr.* parameters.
// The exec command is in base64: spaces would split it into parameters.
std::string kernel_command_line(const RxeGuestOptions& options, const std::string& token) {
  return "console=ttyS0 panic=-1 quiet mr.ip=" + options.guest_ip.to_string() +
         "/24 mr.tester_ip=" + options.tester_ip.to_string() +
         " mr.tester_mac=" + options.tester_mac.to_string() +
         (options.tester_ip6 ? " mr.tester_ip6=" + options.tester_ip6->to_string() : "") +
         " mr.port=" + std::to_string(options.agent_port) + " mr.token=" + token +
         " mr.backend=" + options.backend + " mr.mtu=" + std::to_string(options.netdev_mtu) +
         " mr.seed=" + std::to_string(options.seed) +
         (options.exec.empty() ? "" : " mr.exec=" + base64(options.exec));
}

// QEMU's argv holds the kernel command line, and so the token: it is never printed or logged.
// -no-reboot: a guest that panics (panic=-1) or powers off ends QEMU instead of booting again.
std::vector<std::string> qemu_argv(const RxeGuestOptions& options, const HostInputs& host,
                                   const std::string& image, const std::string& tap,
                                   const std::string& command_line) {
  // romfile= skips the iPXE option ROM: nothing boots from the network, and it saves time.
  // -cpu max: the agent is the host's build, linked with DPDK (built for corei7, SSE4.2);
  // TCG's default qemu64 model lacks those instructions and the agent dies on SIGILL.
  return {host.qemu,
          "-accel",
          "tcg",
          "-cpu",
          "max",
          "-m",
          "768",
          "-smp",
          "1",
          "-nographic",
          "-no-reboot",
          "-kernel",
          host.kernel.string(),
          "-initrd",
          image,
          "-append",
          command_line,
          "-netdev",
          "tap,id=n0,ifname=" + tap + ",script=no,downscript=no",
          "-device",
          "virtio-net-pci,netdev=n0,romfile=,mac=" + options.guest_mac.to_string()};
}

}  // namespace

Expected<RxeGuest, std::string> RxeGuest::start(const RxeGuestOptions& options) {
  RxeGuest guest;
  guest.options_ = options;
  const auto fail = [](const std::string& what) -> Unexpected<std::string> {
    return Unexpected("rxe guest: " + what);
  };
  if (auto addresses = check_test_addresses(options); !addresses) return fail(addresses.error());
  auto host = find_host_inputs();
  if (!host) return fail(host.error());
  auto image = build_image(options, *host);
  if (!image) return fail(image.error());
  if (auto console = guest.open_console_log(); !console) return fail(console.error());
  if (auto network = guest.set_up_network(); !network) return fail(network.error());
  guest.token_ = random_token();
  const std::string command_line = kernel_command_line(options, guest.token_);
  const auto argv = qemu_argv(options, *host, image->path, guest.tap_, command_line);
  auto qemu_started = guest.launch_qemu(argv, image->path);
  if (!qemu_started) return fail(qemu_started.error());
  auto booted = guest.wait_for_boot(*qemu_started);
  if (!booted) return fail(booted.error());
  if (*booted == Booted::kRunning) guest.log_ready(ms_since(*qemu_started), image->build_ms);
  return guest;
}

Expected<void, std::string> RxeGuest::open_console_log() {
  console_log_ = options_.console_log;
  if (!console_log_.empty()) return {};
  std::string pattern = env_or("TMPDIR", "/tmp") + "/metaroce-rxe-console-XXXXXX";
  const int fd = mkstemp(pattern.data());
  if (fd < 0) return Unexpected(pattern + ": " + std::strerror(errno));
  close(fd);
  console_log_ = pattern;
  owns_console_log_ = true;
  return {};
}

Expected<void, std::string> RxeGuest::set_up_network() {
  auto ns = io::NetworkNamespace::create();
  if (!ns) return Unexpected(ns.error());
  netns_.emplace(std::move(*ns));
  if (auto tap = netns_->add_tap(tap_, options_.host_ip.to_string() + "/24"); !tap) {
    return Unexpected(tap.error());
  }
  if (options_.netdev_mtu != 1500) {
    auto mtu = netns_->ip({"link", "set", tap_, "mtu", std::to_string(options_.netdev_mtu)});
    if (!mtu) return Unexpected(mtu.error());
  }
  if (options_.on_network_ready) {
    if (auto ready = options_.on_network_ready(*netns_, tap_); !ready) {
      return Unexpected(ready.error());
    }
  }
  return {};
}

Expected<std::chrono::steady_clock::time_point, std::string> RxeGuest::launch_qemu(
    const std::vector<std::string>& argv, const std::string& image) {
  const auto started = Clock::now();
  auto pid = spawn_in_namespace(netns_->name(), argv, console_log_);
  if (!pid) return Unexpected(pid.error());
  qemu_pid_ = *pid;
  // The token is a secret: never printed or logged (a CI log is public).
  std::fprintf(stderr, "rxe guest: qemu pid %d in %s, console %s, image %s\n", *pid,
               netns_->name().c_str(), console_log_.c_str(), image.c_str());
  return started;
}

Expected<RxeGuest::Booted, std::string> RxeGuest::wait_for_boot(
    std::chrono::steady_clock::time_point qemu_started) {
  const auto deadline = qemu_started + std::chrono::milliseconds(options_.boot_timeout_ms);
  const auto with_console = [&](const std::string& what) {
    return what + " (" + std::to_string(ms_since(qemu_started)) +
           " ms after starting QEMU); last console lines of " + console_log_ + ":\n" +
           last_lines(console_log_, kQuotedLines);
  };
  for (;;) {
    int status = 0;
    if (waitpid(qemu_pid_, &status, WNOHANG) == qemu_pid_) {
      qemu_pid_ = -1;
      // A quick exec-mode command may run and power off between two looks: wait_exec reads it.
      if (!options_.exec.empty() && after_marker(read_file(console_log_), kReadyMarker)) {
        return Booted::kPoweredOff;
      }
      return Unexpected(
          with_console("QEMU ended (" + how_it_ended(status) + ") before the agent was up"));
    }
    const std::string console = read_file(console_log_);
    if (auto error = after_marker(console, kErrorMarker)) {
      return Unexpected(with_console("the guest failed: " + *error));
    }
    if (kernel_version_.empty()) {
      if (auto version = after_marker(console, kReadyMarker)) kernel_version_ = *version;
    }
    if (!kernel_version_.empty()) {
      if (!options_.exec.empty()) return Booted::kRunning;  // exec mode: no agent to wait for
      bool agent_up = false;
      auto inside = netns_->run_inside(
          [&] { agent_up = tcp_connects(options_.guest_ip, options_.agent_port, 500); });
      if (!inside) return Unexpected(inside.error());
      if (agent_up) return Booted::kRunning;
    }
    if (Clock::now() >= deadline) {
      const std::string missing =
          kernel_version_.empty() ? "no ready marker" : "the agent's port did not open";
      return Unexpected(with_console(
          missing + " within boot_timeout_ms = " + std::to_string(options_.boot_timeout_ms)));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

void RxeGuest::log_ready(int64_t boot_ms, int64_t build_ms) const {
  if (options_.exec.empty()) {
    std::fprintf(stderr, "rxe guest: kernel %s, agent up on %s:%u after %lld ms (image: %lld ms)\n",
                 kernel_version_.c_str(), options_.guest_ip.to_string().c_str(),
                 options_.agent_port, static_cast<long long>(boot_ms),
                 static_cast<long long>(build_ms));
  } else {
    std::fprintf(
        stderr, "rxe guest: kernel %s, rxe0 ready for the command after %lld ms (image: %lld ms)\n",
        kernel_version_.c_str(), static_cast<long long>(boot_ms), static_cast<long long>(build_ms));
  }
}

Expected<GuestExecResult, std::string> RxeGuest::wait_exec(uint64_t timeout_ms) {
  const auto started = Clock::now();
  const auto deadline = started + std::chrono::milliseconds(timeout_ms);
  const auto fail = [&](const std::string& what) -> Unexpected<std::string> {
    return Unexpected("rxe guest: " + what + "; last console lines of " + console_log_ + ":\n" +
                      last_lines(console_log_, kQuotedLines));
  };
  if (options_.exec.empty()) return fail("wait_exec() on a guest that runs the agent");
  for (;;) {
    const std::string console = printable(read_file(console_log_));
    if (auto status = after_marker(console, kExitMarker)) {
      GuestExecResult result;
      result.status = std::atoi(status->c_str());
      const size_t begin = console.find(kExecBeginMarker);
      const size_t end = console.find(kExecEndMarker);
      if (begin != std::string::npos && end != std::string::npos && end > begin) {
        const size_t from = begin + std::strlen(kExecBeginMarker);
        result.output = console.substr(from, end - from);
      }
      // The guest powers off right after the marker: let QEMU go on its own, bounded.
      const auto off_deadline = Clock::now() + kStopGrace;
      int wstatus = 0;
      while (qemu_pid_ > 0 && Clock::now() < off_deadline) {
        if (waitpid(qemu_pid_, &wstatus, WNOHANG) == qemu_pid_) {
          qemu_pid_ = -1;
          break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
      return result;
    }
    if (auto error = after_marker(console, kErrorMarker))
      return fail("the guest failed: " + *error);
    int wstatus = 0;
    if (qemu_pid_ > 0 && waitpid(qemu_pid_, &wstatus, WNOHANG) == qemu_pid_) {
      qemu_pid_ = -1;
      return fail("QEMU ended before the command's exit marker");
    }
    if (Clock::now() >= deadline) {
      return fail("no exit marker within " + std::to_string(timeout_ms) + " ms");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

RxeGuest::RxeGuest(RxeGuest&& other) noexcept
    : options_(std::move(other.options_)),
      netns_(std::exchange(other.netns_, std::nullopt)),
      tap_(std::move(other.tap_)),
      token_(std::move(other.token_)),
      kernel_version_(std::move(other.kernel_version_)),
      console_log_(std::move(other.console_log_)),
      owns_console_log_(std::exchange(other.owns_console_log_, false)),
      qemu_pid_(std::exchange(other.qemu_pid_, -1)) {}

RxeGuest& RxeGuest::operator=(RxeGuest&& other) noexcept {
  if (this != &other) {
    stop();
    options_ = std::move(other.options_);
    netns_ = std::exchange(other.netns_, std::nullopt);
    tap_ = std::move(other.tap_);
    token_ = std::move(other.token_);
    kernel_version_ = std::move(other.kernel_version_);
    console_log_ = std::move(other.console_log_);
    owns_console_log_ = std::exchange(other.owns_console_log_, false);
    qemu_pid_ = std::exchange(other.qemu_pid_, -1);
  }
  return *this;
}

RxeGuest::~RxeGuest() { stop(); }

void RxeGuest::stop() {
  if (qemu_pid_ > 0) {
    // The process group: QEMU and anything it started.
    kill(-qemu_pid_, SIGTERM);
    const auto deadline = Clock::now() + kStopGrace;
    int status = 0;
    bool reaped = false;
    while (!reaped && Clock::now() < deadline) {
      reaped = waitpid(qemu_pid_, &status, WNOHANG) == qemu_pid_;
      if (!reaped) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (!reaped) {
      kill(-qemu_pid_, SIGKILL);
      while (waitpid(qemu_pid_, &status, 0) < 0 && errno == EINTR) {
      }
    }
    qemu_pid_ = -1;
  }
  if (netns_) {
    // Deleting the namespace would destroy the tap too; deleting it first says so plainly.
    (void)netns_->ip({"link", "delete", tap_});
    netns_.reset();
  }
  if (owns_console_log_) {
    std::error_code ec;
    fs::remove(console_log_, ec);
    owns_console_log_ = false;
  }
}

}  // namespace mr::dut
