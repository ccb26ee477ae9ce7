"""`optimized_binary`: a binary built with -c opt whatever the build's compilation mode.

The tests that run the tester against a DUT on the real clock (a veth bed, the QEMU guest)
and the mutant matrix run the binary users run: `./metaroce` builds it with -c opt. Under
fastbuild the tester spends about 180 us on each 2 KB frame it receives (22 us with -c opt,
measured on a one-cable veth bed), and a DUT whose ACK timeout is 16.8 ms retries out
before the tester has answered a 128-packet window.
"""

def _opt_transition_impl(settings, attr):
    return {"//command_line_option:compilation_mode": "opt"}

_opt_transition = transition(
    implementation = _opt_transition_impl,
    inputs = [],
    outputs = ["//command_line_option:compilation_mode"],
)

def _optimized_binary_impl(ctx):
    binary = ctx.attr.binary[0][DefaultInfo]
    out = ctx.actions.declare_file(ctx.label.name)
    ctx.actions.symlink(
        output = out,
        target_file = binary.files_to_run.executable,
        is_executable = True,
    )
    return [DefaultInfo(
        executable = out,
        files = depset([out]),
        runfiles = ctx.runfiles(files = [out]).merge(binary.default_runfiles),
    )]

optimized_binary = rule(
    implementation = _optimized_binary_impl,
    doc = "The `binary` target built with -c opt, as an executable of this package.",
    executable = True,
    attrs = {
        "binary": attr.label(cfg = _opt_transition, executable = True, mandatory = True),
        "_allowlist_function_transition": attr.label(
            default = "@bazel_tools//tools/allowlists/function_transition_allowlist",
        ),
    },
)
