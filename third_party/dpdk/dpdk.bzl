"""A repository rule that takes DPDK's flags from pkg-config, as DPDK itself recommends.

DPDK 22.11 ships some fifty libraries; listing them by hand would rot with each release.
"""

def _dpdk_impl(repository_ctx):
    pkg_config = repository_ctx.which("pkg-config")
    if not pkg_config:
        fail("pkg-config not found: install the Debian package pkg-config")
    cflags = repository_ctx.execute([pkg_config, "--cflags", "libdpdk"])
    libs = repository_ctx.execute([pkg_config, "--libs", "libdpdk"])
    if cflags.return_code != 0 or libs.return_code != 0:
        fail("pkg-config libdpdk failed (install libdpdk-dev): " + cflags.stderr + libs.stderr)
    copts = []
    for f in cflags.stdout.strip().split(" "):
        # -isystem: DPDK's headers stay out of -Wall's way in our code. Only DPDK's own folders:
        # the others pkg-config lists (libnl, dbus) are for DPDK's build, and Bazel refuses
        # include paths outside /usr/include.
        if f.startswith("-I"):
            if "dpdk" in f:
                copts += ["-isystem", f[2:]]
        elif f:
            copts.append(f)
    linkopts = [f for f in libs.stdout.strip().split(" ") if f]
    repository_ctx.file("WORKSPACE", "")
    # copts do not pass from a cc_library to its dependents: a target that includes DPDK's
    # headers loads DPDK_COPTS from here (reference/io/dpdk/BUILD).
    repository_ctx.file("defs.bzl", "DPDK_COPTS = {copts}\n".format(copts = repr(copts)))
    repository_ctx.file("BUILD", """package(default_visibility = ["//visibility:public"])

cc_library(
    name = "dpdk",
    copts = {copts},
    linkopts = {linkopts},
)
""".format(copts = repr(copts), linkopts = repr(linkopts)))

dpdk_repository = repository_rule(
    implementation = _dpdk_impl,
    local = True,
    environ = ["PKG_CONFIG_PATH"],
)
