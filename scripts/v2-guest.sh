#!/usr/bin/env bash
# Runs a command in a throwaway virtual machine whose kernel mounts cgroup v2 only, so that evictd's
# Linux suites run on a unified-hierarchy kernel from a host that mounts cgroup v1.
#
#   scripts/v2-guest.sh --check                 say whether a guest can run here (exit 0) or why not (exit 1)
#   scripts/v2-guest.sh [--mem 3G] [--cpus 2] -- COMMAND [ARG]...
#
# The guest boots Debian's cloud kernel (downloaded once with `apt-get download` and kept in
# $EVICTD_V2_CACHE, default /var/cache/evictd-v2-guest) under QEMU with a busybox initramfs. It
# sees the host's root filesystem read-only through virtiofs with a tmpfs overlay on top (writes
# vanish at power-off), the current directory read-write at the same path, fresh tmpfs on /tmp,
# /run and /dev/shm, loopback up and no other network. cgroup2 is mounted at /sys/fs/cgroup
# (nsdelegate) with memory, pids, cpu and io enabled for the root's children, and PSI is on
# (psi=1). COMMAND runs as root in the current directory with the caller's environment plus
# EVICTD_V2_GUEST=1 and EVICTD_TEST_SLOWDOWN (default 4: the guest emulates its CPU, so test
# waits stretch by that factor); its stdout and stderr stream to ours, and we exit with its code
# (125 when the guest never reported one).
#
# Needs root and Debian's qemu-system-x86 (with /usr/lib/qemu/virtiofsd) and busybox-static.
# This machine's /dev/kvm cannot boot a stock kernel, so the CPU is emulated (TCG): everything is
# slower (process start-up most: `node -e 1` takes about 2 s), which suits behaviour, not timings.
set -euo pipefail

CACHE=${EVICTD_V2_CACHE:-/var/cache/evictd-v2-guest}
KERNEL_PACKAGE=${EVICTD_V2_KERNEL:-linux-image-cloud-amd64}
QEMU=qemu-system-x86_64
VIRTIOFSD=/usr/lib/qemu/virtiofsd
MODULES="virtio virtio_ring virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci fuse virtiofs overlay"

die() { echo "v2-guest: $*" >&2; exit 2; }

# Why a guest cannot run here, or nothing.
missing() {
  [ "$(uname -s)" = Linux ] || { echo "not Linux"; return; }
  [ "$(uname -m)" = x86_64 ] || { echo "the guest kernel is x86_64"; return; }
  [ "$(id -u)" = 0 ] || { echo "not root (virtiofsd shares the host's root filesystem)"; return; }
  command -v "$QEMU" >/dev/null || { echo "no $QEMU (apt-get install qemu-system-x86)"; return; }
  [ -x "$VIRTIOFSD" ] || { echo "no $VIRTIOFSD (apt-get install qemu-system-x86)"; return; }
  [ -x /bin/busybox ] && ! ldd /bin/busybox >/dev/null 2>&1 || { echo "no static /bin/busybox (apt-get install busybox-static)"; return; }
  command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null || { echo "no apt-get/dpkg-deb to fetch the guest kernel"; return; }
  [ -f "$CACHE/ready" ] || apt-cache show "$KERNEL_PACKAGE" >/dev/null 2>&1 \
    || { echo "the package $KERNEL_PACKAGE is not known to apt (apt-get update?)"; return; }
}

mem=3G
cpus=2
while [ $# -gt 0 ]; do
  case "$1" in
    --check)
      why=$(missing)
      if [ -n "$why" ]; then echo "$why"; exit 1; fi
      echo ok; exit 0 ;;
    --mem) mem=$2; shift 2 ;;
    --cpus) cpus=$2; shift 2 ;;
    --) shift; break ;;
    *) die "unknown option $1 (usage: $0 [--check] [--mem 3G] [--cpus 2] -- COMMAND...)" ;;
  esac
done
[ $# -gt 0 ] || die "no command (usage: $0 [--mem 3G] [--cpus 2] -- COMMAND...)"
why=$(missing)
[ -z "$why" ] || die "$why"

# ------------------------------------------------------------------------------------------------
# The kernel and the few modules the initramfs needs, fetched once.
fetch_kernel() {
  local work deb version file name
  mkdir -p "$CACHE"
  work=$(mktemp -d "$CACHE/fetch.XXXXXX")
  # The metapackage names the versioned image package it depends on.
  deb=$(apt-cache depends "$KERNEL_PACKAGE" | sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\)$/\1/p' | head -1)
  [ -n "$deb" ] || deb=$KERNEL_PACKAGE
  # As root apt warns that it cannot drop to _apt in a directory _apt cannot read: harmless.
  (cd "$work" && chmod 755 . && apt-get download -q "$deb" >/dev/null 2>"$work/apt.log") || { cat "$work/apt.log" >&2; die "cannot download $deb"; }
  dpkg-deb -x "$work"/*.deb "$work/root"
  version=$(ls "$work/root/lib/modules")
  mkdir -p "$work/modules"
  for name in $MODULES; do
    file=$(find "$work/root/lib/modules/$version/kernel" -name "$name.ko*" | head -1)
    case "$file" in
      "") ;; # built into the kernel
      *.ko.xz) xz -dc "$file" > "$work/modules/$name.ko" ;;
      *.ko.zst) zstd -dcq "$file" > "$work/modules/$name.ko" ;;
      *) cp "$file" "$work/modules/$name.ko" ;;
    esac
  done
  rm -rf "$CACHE/vmlinuz" "$CACHE/modules"
  mv "$work/root/boot/vmlinuz-$version" "$CACHE/vmlinuz"
  mv "$work/modules" "$CACHE/modules"
  echo "$version" > "$CACHE/version"
  rm -rf "$work"
  touch "$CACHE/ready"
}
[ -f "$CACHE/ready" ] || fetch_kernel

# ------------------------------------------------------------------------------------------------
run=$(mktemp -d /tmp/evictd-v2-guest.XXXXXX)
children=()
finish() {
  local p
  for p in "${children[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${children[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$run"
}
trap finish EXIT
trap 'exit 130' INT TERM

quote() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
here=$(pwd -P)

# What the guest runs: the caller's environment, then the command in this directory.
{
  while IFS= read -r name; do
    case "$name" in PWD | OLDPWD | SHLVL | _ | HOSTNAME | TMPDIR | XDG_RUNTIME_DIR) continue ;; esac
    printf 'export %s=%s\n' "$name" "$(quote "${!name}")"
  done < <(compgen -e | grep -E '^[A-Za-z_][A-Za-z0-9_]*$')
  printf 'export HOME=/root EVICTD_V2_GUEST=1 EVICTD_TEST_SLOWDOWN=%s\n' "${EVICTD_TEST_SLOWDOWN:-4}"
  printf 'cd %s || exit 125\n' "$(quote "$here")"
  printf 'exec'
  for arg in "$@"; do printf ' %s' "$(quote "$arg")"; done
  printf '\n'
} > "$run/command.sh"

# The initramfs: busybox, the modules, and an init that builds the guest's root and runs the command.
mkdir -p "$run/initramfs/bin" "$run/initramfs/modules"
cp /bin/busybox "$run/initramfs/bin/busybox"
cp "$CACHE"/modules/*.ko "$run/initramfs/modules/" 2>/dev/null || true
cp "$run/command.sh" "$run/initramfs/command.sh"
printf '%s\n' "$here" > "$run/initramfs/share"
cat > "$run/initramfs/init" <<'EOF'
#!/bin/busybox sh
b=/bin/busybox
status() { echo "$1" > /dev/ttyS2; }
give_up() { echo "v2-guest: $1" > /dev/ttyS1; status 125; echo o > /proc/sysrq-trigger; $b sleep 30; }
$b mkdir -p /proc /sys /dev /host /scratch /root-fs
$b mount -t proc proc /proc
$b mount -t sysfs sysfs /sys
$b mount -t devtmpfs devtmpfs /dev
for m in virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci fuse virtiofs overlay; do
  [ -f /modules/$m.ko ] && $b insmod /modules/$m.ko 2>/dev/null
done
tries=0
until $b mount -t virtiofs -o ro host /host 2>/dev/null; do
  tries=$((tries + 1)); [ $tries -lt 100 ] || give_up "the host's root filesystem did not appear"; $b sleep 0.1
done
$b mount -t tmpfs -o mode=755 tmpfs /scratch
$b mkdir -p /scratch/upper /scratch/work
$b mount -t overlay -o lowerdir=/host,upperdir=/scratch/upper,workdir=/scratch/work overlay /root-fs \
  || give_up "cannot lay a writable overlay over the host's root filesystem"
for d in tmp run var/tmp; do $b mount -t tmpfs -o mode=1777 tmpfs /root-fs/$d; done
$b chmod 755 /root-fs/run
share=$($b cat /share)
$b mkdir -p "/root-fs$share"
$b mount -t virtiofs work "/root-fs$share" || give_up "cannot mount $share"
for d in proc sys dev; do $b mount --move /$d /root-fs/$d; done
$b mkdir -p /root-fs/dev/shm /root-fs/dev/pts
$b mount -t tmpfs -o mode=1777 tmpfs /root-fs/dev/shm
$b mount -t devpts -o mode=620,ptmxmode=666 devpts /root-fs/dev/pts
$b mount -t cgroup2 -o nsdelegate cgroup2 /root-fs/sys/fs/cgroup || give_up "cannot mount cgroup2"
echo "+memory +pids +cpu +io" > /root-fs/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null \
  || echo "+memory +pids" > /root-fs/sys/fs/cgroup/cgroup.subtree_control
$b mkdir -p /root-fs/run/v2-guest
$b cp /bin/busybox /command.sh /root-fs/run/v2-guest/
$b cat > /root-fs/run/v2-guest/start <<'START'
b=/run/v2-guest/busybox
$b hostname v2-guest
$b ip link set lo up
for tty in /dev/ttyS0 /dev/ttyS1; do $b stty -F $tty raw -echo -onlcr 2>/dev/null; done
/bin/sh /run/v2-guest/command.sh < /dev/null > /dev/ttyS0 2> /dev/ttyS1
code=$?
$b sync
echo "$code" > /dev/ttyS2
echo o > /proc/sysrq-trigger
$b sleep 30
START
exec $b switch_root /root-fs /run/v2-guest/busybox sh /run/v2-guest/start
EOF
chmod +x "$run/initramfs/init"
(cd "$run/initramfs" && find . | /bin/busybox cpio -o -H newc 2>/dev/null | gzip -1 > "$run/initramfs.gz")

# One virtiofsd per shared directory: the host's root (read-only in the guest) and this directory.
share() { # tag directory
  nice -n -10 "$VIRTIOFSD" --socket-path="$run/$1.sock" -o source="$2" -o cache=always -o sandbox=chroot \
    -o no_posix_lock -o log_level=err >> "$run/virtiofsd.log" 2>&1 &
  children+=($!)
}
share host /
share work "$here"
for _ in $(seq 200); do [ -S "$run/host.sock" ] && [ -S "$run/work.sock" ] && break; sleep 0.05; done

: > "$run/stdout"
: > "$run/stderr"
: > "$run/status"
# ttyS0: the command's stdout; ttyS1: its stderr; ttyS2: its exit code; ttyS3: the kernel's console.
# The emulator runs ahead of whatever else loads the host (nice -10, as root): the guest's CPU is
# emulated and its kernel counts the time the host takes the emulator off a core as its own tasks'
# run time, so on a busy host its clocks and CPU budgets would stretch by an unknown factor, not
# the fixed one the suites' waits are scaled by (EVICTD_TEST_SLOWDOWN).
nice -n -10 "$QEMU" -accel tcg,thread=multi,tb-size=1024 -cpu max -smp "$cpus" -m "$mem" \
  -object "memory-backend-memfd,id=ram,size=$mem,share=on" -machine pc,memory-backend=ram \
  -nodefaults -no-user-config -no-reboot -display none -monitor none \
  -serial "file:$run/stdout" -serial "file:$run/stderr" -serial "file:$run/status" \
  -serial "file:$run/console" \
  -chardev "socket,id=host,path=$run/host.sock" -device vhost-user-fs-pci,chardev=host,tag=host \
  -chardev "socket,id=work,path=$run/work.sock" -device vhost-user-fs-pci,chardev=work,tag=work \
  -kernel "$CACHE/vmlinuz" -initrd "$run/initramfs.gz" \
  -append "console=ttyS3 quiet loglevel=1 cgroup_no_v1=all psi=1 panic=-1 init_on_alloc=0 mitigations=off rdinit=/init" \
  < /dev/null 2>> "$run/qemu.log" &
guest=$!
children+=("$guest")
# Stream the command's output as it comes; each tail ends after a last read once the guest is gone.
tail -n +1 -s 0.2 -f --pid="$guest" "$run/stdout" &
out=$!
tail -n +1 -s 0.2 -f --pid="$guest" "$run/stderr" >&2 &
err=$!
children+=("$out" "$err")
wait "$guest" || true
wait "$out" "$err" || true
code=$(tr -d '\r' < "$run/status" | grep -E '^[0-9]+$' | tail -1 || true)
if [ -z "$code" ]; then
  echo "v2-guest: the guest reported no exit code; its console ends with:" >&2
  tr -d '\r' < "$run/console" | tail -n 20 >&2 || true
  tail -n 5 "$run/qemu.log" >&2 || true
fi
exit "${code:-125}"
