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
    copts = [f for f in cflags.stdout.strip().split(" ") if f]
    linkopts = [f for f in libs.stdout.strip().split(" ") if f]
    repository_ctx.file("WORKSPACE", "")
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
