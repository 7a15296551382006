# iosim record of io.max scenarios on null_blk (timer completion, as the
# oracle guest's iomax test), three repeats each.
insmod /lib/modules/null_blk.ko queue_mode=2 irqmode=0 nr_devices=1 gb=1 bs=4096 hw_queue_depth=64 submit_queues=1
for s in guest-riops100-qd1 guest-rbps400k-qd1 guest-wiops100-qd4; do
	node /iosim/dist/bindings/cli/main.js record /iosim/$s.yaml -o $R/$s.jsonl --repeats 3 \
		--device /dev/nullb0 --yes --recorder /bin/iosim_rec
done
