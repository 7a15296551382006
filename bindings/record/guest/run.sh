#!/bin/sh
# Boot the iosim record guest once for one test and unpack its results.
#   bindings/record/guest/run.sh TEST [OUTDIR]
# TEST names tests/TEST.sh. Needs build.sh first (same BUILD_DIR). QEMU runs
# under TCG (this project's hosts have no usable KVM; shared/oracle/guest/README.md):
# GUEST_ACCEL=kvm GUEST_CPU=host where KVM works.
set -eu
BUILD_DIR=${BUILD_DIR:-${TMPDIR:-/tmp}/iosim-record-guest}
TEST=$1
OUT=${2:-$BUILD_DIR/out/$TEST}
[ -f "$BUILD_DIR/initramfs.cpio.gz" ] || { echo "run build.sh first" >&2; exit 1; }
rm -rf "$OUT"; mkdir -p "$OUT"
WORK=$(mktemp -d "$BUILD_DIR/run.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
truncate -s 256M "$WORK/results.img"
set +e
timeout -k 10 "${GUEST_TIMEOUT:-900}" qemu-system-x86_64 -accel "${GUEST_ACCEL:-tcg,thread=multi}" -cpu "${GUEST_CPU:-max}" \
	-smp "${GUEST_SMP:-2}" -m "${GUEST_MEM:-3072}" -nographic -no-reboot \
	-kernel "$BUILD_DIR/vmlinuz" -initrd "$BUILD_DIR/initramfs.cpio.gz" \
	-append "console=ttyS0 panic=-1 iosim.test=$TEST ${GUEST_APPEND:-}" \
	-drive file="$WORK/results.img",if=none,id=res,format=raw,cache=unsafe \
	-device virtio-blk-pci,drive=res,serial=results \
	< /dev/null > "$OUT/serial.log" 2>&1
rc=$?
set -e
echo "qemu exit $rc"
tar xf "$WORK/results.img" -C "$OUT" || echo "no results archive" >&2
ls -la "$OUT"
