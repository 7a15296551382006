# iosim record of an io.cost scenario (weights 100:300, vrate pinned) on
# null_blk completing after 2 ms (as the oracle guest's iocost_fixed), three repeats.
insmod /lib/modules/null_blk.ko queue_mode=2 irqmode=2 completion_nsec=2000000 nr_devices=1 gb=4 bs=4096 hw_queue_depth=128 submit_queues=2
node /iosim/dist/bindings/cli/main.js record /iosim/guest-iocost-fixed.yaml -o $R/guest-iocost-fixed.jsonl --repeats 3 \
	--device /dev/nullb0 --yes --recorder /bin/iosim_rec
