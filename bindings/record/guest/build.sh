#!/bin/sh
# Build a QEMU guest (Debian's Linux 6.1, cgroup v2) that runs `iosim record`
# inside it: the oracle guest's layout (shared/oracle/guest) plus Node.js,
# this checkout's dist/ and runtime dependencies, and the recorder built
# statically (the guest has no compiler).
#   bindings/record/guest/build.sh [--install-deps]
# Output (BUILD_DIR, default ${TMPDIR:-/tmp}/iosim-record-guest):
#   vmlinuz, initramfs.cpio.gz, kver
# Needs `npm run build` first. KVER selects the kernel (default: newest /boot/vmlinuz-6.1*).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../../.." && pwd)
BUILD_DIR=${BUILD_DIR:-${TMPDIR:-/tmp}/iosim-record-guest}
if [ "${1:-}" = --install-deps ]; then
	apt-get update
	apt-get install -y qemu-system-x86 linux-image-amd64 busybox-static gcc libc6-dev cpio kmod
fi
KVER=${KVER:-$(ls /boot/vmlinuz-6.1* | sed 's,.*/vmlinuz-,,' | sort -V | tail -1)}
[ -f /boot/vmlinuz-$KVER ] || { echo "no /boot/vmlinuz-$KVER (apt-get install linux-image-amd64 on Debian bookworm, or --install-deps)" >&2; exit 1; }
[ -x /bin/busybox ] || { echo "busybox-static missing (--install-deps)" >&2; exit 1; }
[ -f "$REPO/dist/bindings/cli/main.js" ] || { echo "no dist/: run npm run build first" >&2; exit 1; }
mkdir -p "$BUILD_DIR"
ROOT=$(mktemp -d "$BUILD_DIR/root.XXXXXX")
trap 'rm -rf "$ROOT"' EXIT
mkdir -p "$ROOT"/bin "$ROOT"/sbin "$ROOT"/dev "$ROOT"/proc "$ROOT"/sys "$ROOT"/tmp \
	"$ROOT"/lib/modules "$ROOT"/tests "$ROOT"/boot "$ROOT"/iosim
cp /bin/busybox "$ROOT"/bin/busybox
ln -s busybox "$ROOT"/bin/sh
gcc -O2 -static -pthread -o "$ROOT"/bin/iosim_rec "$REPO"/bindings/record/iosim_rec.c
# Node.js and the shared libraries it loads
NODE=$(command -v node)
cp "$NODE" "$ROOT"/bin/node
for lib in $(ldd "$NODE" | sed -n 's/.*=> \(\/[^ ]*\).*/\1/p; s/^\s*\(\/lib[^ ]*\) .*/\1/p'); do
	mkdir -p "$ROOT$(dirname "$lib")"
	cp -L "$lib" "$ROOT$lib"
done
mkdir -p "$ROOT"/lib64
cp -L /lib64/ld-linux-x86-64.so.2 "$ROOT"/lib64/
# iosim: dist, package.json, the runtime dependencies only
cp -r "$REPO"/dist "$REPO"/package.json "$ROOT"/iosim/
mkdir -p "$ROOT"/iosim/bindings/record
cp "$REPO"/bindings/record/iosim_rec.c "$ROOT"/iosim/bindings/record/
(cd "$REPO" && npm ls --omit=dev --all --parseable 2>/dev/null | tail -n +2) | while read -r d; do
	rel=${d#"$REPO"/}
	mkdir -p "$ROOT/iosim/$(dirname "$rel")"
	cp -r "$d" "$ROOT/iosim/$rel"
done
cp "$HERE"/scenarios/*.yaml "$ROOT"/iosim/
# base modules, in load order; null_blk loaded by the tests
: > "$ROOT"/lib/modules/base.list
for m in configfs virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci virtio_blk; do
	f=$(modinfo -k "$KVER" -n $m)
	case "$f" in
	*.ko) cp "$f" "$ROOT"/lib/modules/$m.ko ;;
	*.ko.xz) xz -dc "$f" > "$ROOT"/lib/modules/$m.ko ;;
	*) echo "module $m: $f" >&2; exit 1 ;;
	esac
	echo $m >> "$ROOT"/lib/modules/base.list
done
cp "$(modinfo -k "$KVER" -n null_blk)" "$ROOT"/lib/modules/null_blk.ko
# iosim record reads CONFIG_HZ from /boot/config-$(uname -r)
cp /boot/config-$KVER "$ROOT"/boot/
cp "$HERE"/init "$ROOT"/init
chmod +x "$ROOT"/init
cp "$HERE"/tests/*.sh "$ROOT"/tests/
(cd "$ROOT" && find . | cpio -o -H newc --quiet | gzip -1) > "$BUILD_DIR"/initramfs.cpio.gz
cp /boot/vmlinuz-$KVER "$BUILD_DIR"/vmlinuz
echo $KVER > "$BUILD_DIR"/kver
echo "built $BUILD_DIR/initramfs.cpio.gz ($(du -h "$BUILD_DIR"/initramfs.cpio.gz | cut -f1)) for $KVER"
