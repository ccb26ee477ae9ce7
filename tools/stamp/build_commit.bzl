"""`build_commit_source`: the C++ source of mr::cli::build_commit() (harness/cli/build_commit.h).

Stamped (`stamp = True`, from a select on //tools/stamp:stamped, i.e. `bazel build --stamp`),
it reads the stable workspace status (stable-status.txt, written by workspace_status.sh) and
returns its STABLE_GIT_COMMIT. Only this action reads that file, so a new commit reruns it,
recompiles the one object and relinks the binaries that link it: nothing else is rebuilt.
Unstamped (tests, a plain `bazel build`), it reads no workspace status at all and returns "",
so the action cache and the test results outlive every commit. The volatile status (the
time) is never read.
"""

def _build_commit_source_impl(ctx):
    out = ctx.actions.declare_file(ctx.label.name + ".cpp")
    args = ctx.actions.args()
    args.add(out)
    inputs = []
    if ctx.attr.stamp:
        args.add(ctx.info_file)
        inputs.append(ctx.info_file)
    ctx.actions.run(
        executable = ctx.file._writer,
        inputs = inputs,
        outputs = [out],
        arguments = [args],
        mnemonic = "BuildCommit",
        progress_message = "Writing the build commit (stamped: %s)" % ctx.attr.stamp,
    )
    return [DefaultInfo(files = depset([out]))]

build_commit_source = rule(
    implementation = _build_commit_source_impl,
    doc = "NAME.cpp defining mr::cli::build_commit(): the stamped commit, or \"\".",
    attrs = {
        "stamp": attr.bool(mandatory = True),
        "_writer": attr.label(
            default = "//tools/stamp:write_build_commit.sh",
            allow_single_file = True,
        ),
    },
)
