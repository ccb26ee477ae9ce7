#include "harness/engine/secure_commands.h"

#include "harness/engine/command_args.h"
#include "harness/engine/dut_commands.h"
#include "harness/engine/secure_session.h"

namespace mr::engine {

namespace {

// The named QP's session, or nullptr after reporting that it has none.
SecureSession* secure_connection(const script::Command& c, TestContext& ctx, QpBinding*& qp) {
  qp = named_dut_qp(c, ctx);
  if (qp == nullptr || ctx.aborted) return nullptr;
  if (!qp->connection.secure) {
    ctx.error(c.pos, "dut " + c.name +
                         ": the QP is not a secure connection (create_qp ... ext=1 secure=1)");
    return nullptr;
  }
  return qp->connection.secure.get();
}

}  // namespace

void secure_install(const script::Command& c, TestContext& ctx) {
  Args a(c, ctx);
  QpBinding* qp = nullptr;
  SecureSession* session = secure_connection(c, ctx, qp);
  if (session == nullptr) return;
  if (!a.has("epoch")) return ctx.error(c.pos, "dut secure_install needs epoch=E");
  const auto epoch = static_cast<uint16_t>(a.number("epoch", 0));
  if (ctx.aborted) return;
  const protocol::QpAttrs attrs{.secure_sa = SecureSession::dut_keys(epoch)};
  if (!checked(ctx, c.pos, dut_client(ctx).modify_qp(qp->dut_qpn, attrs))) return;
  session->install(epoch);
  // A tester QP on the connection gets its end of the epoch too (tester_commands.cpp).
  if (auto t = ctx.tester_qps.find(qp->tester_qp); t != ctx.tester_qps.end() && ctx.driven) {
    if (auto ok =
            ctx.driven->peer()->install_keys(t->second.qpn, SecureSession::tester_keys(epoch));
        !ok)
      ctx.error(c.pos, "dut secure_install: the tester QP " + t->first + ": " + ok.error());
  }
}

void secure_rotate(const script::Command& c, TestContext& ctx) {
  QpBinding* qp = nullptr;
  if (secure_connection(c, ctx, qp) == nullptr) return;
  checked(ctx, c.pos, dut_client(ctx).modify_qp(qp->dut_qpn, {.secure_rotate = true}));
}

}  // namespace mr::engine
