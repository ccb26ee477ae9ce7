#include "harness/agent/agent_server.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>

#include "harness/agent/control_session.h"
#include "harness/agent/socket_io.h"

namespace mr::agent {

Expected<AgentServer, std::string> AgentServer::listen(AgentServerOptions options,
                                                       RequestDispatcher& dispatcher, Logger log) {
  if (options.token.empty()) return Unexpected(std::string("the agent needs a non-empty token"));
  auto fd = listen_tcp(options.host, options.port);
  if (!fd) return Unexpected(fd.error());
  return AgentServer(std::move(options), std::move(*fd), dispatcher, std::move(log));
}

AgentServer::AgentServer(AgentServerOptions options, UniqueFd fd, RequestDispatcher& dispatcher,
                         Logger log)
    : options_(std::move(options)),
      listen_fd_(std::move(fd)),
      port_(local_port(listen_fd_.get())),
      dispatcher_(&dispatcher),
      log_(std::move(log)) {}

void AgentServer::log(const std::string& message) const {
  if (log_) log_(message);
}

void AgentServer::serve(const std::atomic<bool>& stop) {
  while (!stop.load()) serve_one(stop, options_.tick_ms);
}

bool AgentServer::serve_one(const std::atomic<bool>& stop, uint64_t accept_timeout_ms) {
  const uint64_t deadline = monotonic_ms() + accept_timeout_ms;
  while (!stop.load()) {
    const uint64_t now = monotonic_ms();
    if (now >= deadline) return false;
    pollfd p{listen_fd_.get(), POLLIN, 0};
    const int rc = ::poll(&p, 1, static_cast<int>(std::min(options_.tick_ms, deadline - now)));
    if (rc <= 0) continue;
    UniqueFd client(::accept4(listen_fd_.get(), nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
    if (!client.valid()) continue;
    set_no_delay(client.get());
    serve_client(std::move(client), stop);
    return true;
  }
  return false;
}

void AgentServer::serve_client(UniqueFd client, const std::atomic<bool>& stop) {
  log("client connected");
  ControlSession session(*dispatcher_, options_.token);
  LineReader reader(kMaxLineBytes);
  uint64_t deadline = monotonic_ms() + options_.hello_timeout_ms;
  std::string line;
  while (!stop.load()) {
    const auto status = reader.read_line(client.get(), options_.tick_ms, line);
    if (status == LineReader::Status::kTimeout) {
      if (monotonic_ms() < deadline) continue;
      log(session.authenticated() ? "client idle too long: closing" : "no hello in time: closing");
      return;
    }
    if (status == LineReader::Status::kClosed || status == LineReader::Status::kError) {
      log("client disconnected");
      return;
    }
    SessionStep step;
    if (status == LineReader::Status::kTooLong) {
      log("line longer than 1 MiB: closing");
      step = session.too_long_line();
    } else if (line.empty()) {
      continue;  // blank lines are allowed between requests
    } else {
      step = session.handle_line(line);
    }
    if (step.reply) {
      if (auto sent = send_all(client.get(), *step.reply + "\n", options_.write_timeout_ms);
          !sent) {
        log("client does not read its replies (" + sent.error() + "): closing");
        return;
      }
    }
    if (step.close) {
      log(step.reply ? "closing after bye, a failed hello or a line too long"
                     : "first line is not a hello with the right token: closing without a reply");
      return;
    }
    deadline = monotonic_ms() + options_.idle_timeout_ms;
  }
}

}  // namespace mr::agent
