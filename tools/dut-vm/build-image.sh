#!/bin/bash
# File: build-image.sh
#
# Builds the initramfs of the rxe DUT guest (issue #7): busybox, Debian's virtio and rxe
# kernel modules, the metaroce agent, iproute2's ip and rdma, and rdma-core's and perftest's
# unmodified test tools, each with every library ldd lists. Only installed Debian packages
# are read; nothing is downloaded. The guest boots Debian's own kernel, /boot/vmlinuz-<ver>.
#
#   tools/dut-vm/build-image.sh OUT_DIR METAROCE_BINARY [KERNEL]
#
# KERNEL defaults to the newest /boot/vmlinuz-*; its version picks /lib/modules/<ver>.
# The image is reproducible (sorted cpio, fixed owners, modes and mtimes, gzip -n) and
# cached: it lands in OUT_DIR/<sha256 of every input>/initramfs.cpio.gz, and a second call
# with the same inputs only prints that path again. The last line of standard output is
# always the image's path; progress goes to standard error.
set -euo pipefail

die() {
  echo "build-image.sh: $*" >&2
  exit 1
}

[[ $# -ge 2 && $# -le 3 ]] || die "usage: build-image.sh OUT_DIR METAROCE_BINARY [KERNEL]"
out_dir=$1
binary=$(readlink -f -- "$2") || die "$2: no such file"
[[ -f $binary && -x $binary ]] || die "$2: not an executable file"
here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
# The fixed mtime of every file in the image; part of the cache key.
epoch=${SOURCE_DATE_EPOCH:-0}

if [[ $# -eq 3 ]]; then
  kernel=$3
else
  kernel=$(find /boot -maxdepth 1 -name 'vmlinuz-*' | sort -V | tail -n 1)
fi
[[ -n $kernel && -f $kernel ]] || die "no kernel image (looked for /boot/vmlinuz-*)"
kernel_version=${kernel##*/vmlinuz-}
module_dir=/lib/modules/$kernel_version
[[ -d $module_dir ]] || die "$module_dir: missing (kernel $kernel)"

# The order toolchain.md verified: crc32_generic before rdma_rxe, or `rdma link add` fails.
modules=(virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci failover
  net_failover virtio_net crc32_generic ib_core ib_uverbs udp_tunnel ip6_udp_tunnel rdma_rxe)
# Programs copied with their libraries: the rdma-core and perftest tools are the unmodified
# peers of the reference (issue 9); dcb and ethtool let `doctor` check PFC, DSCP trust and
# offloads on the guest.
programs=(/usr/bin/ip /usr/bin/rdma /usr/sbin/dcb /usr/sbin/ethtool /usr/bin/ibv_rc_pingpong /usr/bin/ibv_devinfo
  /usr/bin/ib_send_bw /usr/bin/ib_write_bw /usr/bin/ib_read_bw /usr/bin/ib_atomic_bw
  /usr/bin/ib_send_lat /usr/bin/ib_write_lat /usr/bin/ib_read_lat)
provider=/usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so
provider_config=/etc/libibverbs.d/rxe.driver
busybox=/usr/bin/busybox

for p in "${programs[@]}" "$provider" "$provider_config"; do
  [[ -e $p ]] || die "$p: missing (see tools/packages.txt)"
done
# Debian's busybox package is dynamic; the image needs busybox-static's.
file_type=$(LC_ALL=C ldd "$busybox" 2>&1 || true)
[[ $file_type == *"not a dynamic executable"* ]] || die "$busybox is not static: install busybox-static"

module_files=()
for m in "${modules[@]}"; do
  f=$(find "$module_dir/kernel" -name "$m.ko" -o -name "$m.ko.xz" -o -name "$m.ko.zst" \
    -o -name "$m.ko.gz" | sort | head -n 1)
  [[ -n $f ]] || die "module $m not found under $module_dir"
  module_files+=("$f")
done

# Every shared object the ELF files load, as the paths ldd resolves (the loader included).
libraries() {
  LC_ALL=C ldd "$@" 2>/dev/null |
    awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// && $2 ~ /^\(0x/ {print $1}' | LC_ALL=C sort -u
}
mapfile -t libs < <(libraries "$binary" "${programs[@]}" "$provider")
[[ ${#libs[@]} -gt 0 ]] || die "ldd found no libraries for $binary"

# The cache key: this script, the guest's init, the kernel version and every input's bytes.
inputs=("${BASH_SOURCE[0]}" "$here/init" "$binary" "$busybox" "${programs[@]}" "$provider"
  "$provider_config" "${module_files[@]}" "${libs[@]}")
key=$(
  {
    echo "kernel $kernel_version epoch $epoch"
    for f in "${inputs[@]}"; do
      printf '%s %s\n' "$(sha256sum <"$f" | cut -d' ' -f1)" "${f##*/}"
    done
  } | sha256sum | cut -d' ' -f1
)
image=$out_dir/$key/initramfs.cpio.gz
if [[ -f $image ]]; then
  touch -- "$out_dir/$key" # most recently used: the last the pruning below removes
  echo "build-image.sh: cached" >&2
  echo "$image"
  exit 0
fi

mkdir -p "$out_dir"
work=$(mktemp -d "$out_dir/.build-XXXXXX")
trap 'rm -rf -- "$work"' EXIT
root=$work/root
mkdir -p "$root"/{usr/bin,usr/sbin,usr/lib/x86_64-linux-gnu/libibverbs,usr/lib64,etc/libibverbs.d}
mkdir -p "$root"/{proc,sys,dev,tmp,run,root,etc/metaroce} "$root/usr/lib/modules/$kernel_version"
# Debian's merged /usr, so that paths ldd printed on the host resolve in the guest too.
ln -s usr/bin "$root/bin"
ln -s usr/sbin "$root/sbin"
ln -s usr/lib "$root/lib"
ln -s usr/lib64 "$root/lib64"

# Copies a file to the same path (its directory resolved, as on the host) in the image.
install_file() {
  local src=$1 dir
  dir=$(readlink -f -- "$(dirname -- "$src")")
  mkdir -p "$root$dir"
  rm -f -- "$root$dir/${src##*/}"
  cp -L -- "$src" "$root$dir/${src##*/}"
}

cp -- "$busybox" "$root/usr/bin/busybox"
while read -r applet; do
  applet=${applet#/}
  case $applet in
    bin/* | sbin/*) applet=usr/$applet ;;
  esac
  [[ -e $root/$applet || -L $root/$applet ]] || ln -s /usr/bin/busybox "$root/$applet"
done < <("$busybox" --list-full | LC_ALL=C sort)

for p in "${programs[@]}"; do
  # The real tool replaces busybox's applet of the same name (ip: neigh ... nud permanent).
  rm -f -- "$root/usr/bin/${p##*/}" "$root/usr/sbin/${p##*/}"
  install_file "$p"
done
cp -- "$binary" "$root/usr/bin/metaroce"
for l in "${libs[@]}" "$provider"; do install_file "$l"; done
cp -- "$provider_config" "$root/etc/libibverbs.d/rxe.driver"

# Modules uncompressed: busybox's insmod may not read xz or zstd.
for f in "${module_files[@]}"; do
  name=${f##*/}
  case $f in
    *.ko.xz) xz -dc -- "$f" >"$root/usr/lib/modules/$kernel_version/${name%.xz}" ;;
    *.ko.zst) zstd -qdc -- "$f" >"$root/usr/lib/modules/$kernel_version/${name%.zst}" ;;
    *.ko.gz) gzip -dc -- "$f" >"$root/usr/lib/modules/$kernel_version/${name%.gz}" ;;
    *) cp -- "$f" "$root/usr/lib/modules/$kernel_version/$name" ;;
  esac
done
printf '%s\n' "${modules[@]}" >"$root/etc/metaroce/modules"
cp -- "$here/init" "$root/init"

# Reproducible: modes from the file type alone, fixed mtimes, sorted names, owner root.
find "$root" -type d -exec chmod 0755 {} +
find "$root" -type f -exec chmod 0644 {} +
chmod 0755 "$root/init" "$root/usr/bin/busybox" "$root/usr/bin/metaroce"
for p in "${programs[@]}"; do chmod 0755 "$root$p"; done
find "$root/usr/lib" "$root/usr/lib64" -type f -name '*.so*' -exec chmod 0755 {} +
find "$root" -exec touch -h -d "@$epoch" {} +
(cd "$root" && find . -mindepth 1 -printf '%P\n' | LC_ALL=C sort |
  cpio --quiet -o -H newc -R 0:0 --reproducible) | gzip -n -9 >"$work/initramfs.cpio.gz"

mkdir -p "$work/$key"
mv -- "$work/initramfs.cpio.gz" "$work/$key/"
echo "kernel $kernel_version" >"$work/$key/kernel-version"
# Another build of the same key may have finished first: then its image is the same.
mv -T -- "$work/$key" "$out_dir/$key" 2>/dev/null || [[ -f $image ]] || die "cannot create $image"
echo "build-image.sh: built $(du -k "$image" | cut -f1) KiB for kernel $kernel_version" >&2
# Bounded cache: the four newest images stay, and builds a SIGKILL interrupted go after a day.
find "$out_dir" -mindepth 1 -maxdepth 1 -name '.build-*' -mmin +1440 -exec rm -rf -- {} +
find "$out_dir" -mindepth 1 -maxdepth 1 -type d -regextype posix-extended \
  -regex '.*/[0-9a-f]{64}' -printf '%T@ %p\n' | sort -rn | tail -n +5 | cut -d' ' -f2- |
  while read -r old; do rm -rf -- "$old"; done
echo "$image"
