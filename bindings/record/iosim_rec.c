/*
 * iosim_rec.c - per-IO timestamp recorder of `iosim record` (bindings/record).
 *
 * The oracle's throtl_rec.c (shared/oracle/throtl) with one addition: -T END_NS,
 * after which no further IO is submitted (a time_based job's runtime).
 * `iosim record` compiles it with the machine's cc into a temporary directory
 * at run time; no binary is kept.
 *
 * One process = one job. The process optionally moves itself into a cgroup
 * (writes its pid to <cgroup>/cgroup.procs), opens the block device with
 * O_DIRECT, reads an IO list, prints "READY" on stdout, waits for the trace
 * start time t0 (absolute CLOCK_MONOTONIC ns) on stdin, then issues the IOs
 * with up to QD worker threads doing synchronous pread/pwrite.
 *
 * IO list file: one IO per line, in issue order:
 *     <dir R|W> <offset bytes> <size bytes> <at_ns> <idle_ns>
 *   at_ns   : earliest submit time relative to t0 (0 = no constraint)
 *   idle_ns : -1 = no barrier; >= 0 = wait until every earlier IO of this job
 *             has completed, then until (latest earlier completion + idle_ns)
 * IOs are handed to workers strictly in list order; a worker holds the
 * dispatch lock while waiting for the at/idle constraints of its IO, so
 * later IOs never overtake an earlier one at submit.
 *
 * Output file: one line per IO:
 *     <seq> <thread> <dir> <offset> <size> <submit_ns> <complete_ns> <ret> <errno>
 *   times are CLOCK_MONOTONIC ns relative to t0; submit_ns is taken just
 *   before the pread/pwrite syscall, complete_ns just after it returns.
 *
 * Build: cc -O2 -Wall -pthread -o iosim_rec iosim_rec.c
 * Usage: iosim_rec -d DEV -i IOLIST -o OUT [-q QD] [-c CGROUPDIR] [-w] [-T END_NS]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct io {
	char dir;
	long long off, size, at_ns, idle_ns;
	long long sub, comp, ret;
	int err, thr;
};

static struct io *ios;
static int nios;
static int nios_run = -1;	/* IOs submitted before -T ended the run (-1: all) */
static int next_idx;
static int fd;
static long long t0;
static long long maxsize = 4096;
static long long end_ns = -1;	/* -T: no IO submitted after t0 + end_ns */

static pthread_mutex_t disp_mtx = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t done_mtx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cv = PTHREAD_COND_INITIALIZER;
static int *done_flag;
static int done_prefix;		/* IOs [0, done_prefix) all completed */
static long long last_comp_abs;	/* latest completion (absolute ns) */

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sleep_until(long long abs_ns)
{
	struct timespec ts;
	ts.tv_sec = abs_ns / 1000000000LL;
	ts.tv_nsec = abs_ns % 1000000000LL;
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static void *worker(void *arg)
{
	int thr = (int)(intptr_t)arg;
	void *buf;

	if (posix_memalign(&buf, 4096, maxsize)) {
		perror("posix_memalign");
		exit(1);
	}
	memset(buf, 0xa5, maxsize);

	for (;;) {
		struct io *io;
		int i;

		pthread_mutex_lock(&disp_mtx);
		if (next_idx >= nios) {
			pthread_mutex_unlock(&disp_mtx);
			break;
		}
		i = next_idx++;
		io = &ios[i];
		if (io->idle_ns >= 0) {
			long long target;
			pthread_mutex_lock(&done_mtx);
			while (done_prefix < i)
				pthread_cond_wait(&done_cv, &done_mtx);
			target = last_comp_abs + io->idle_ns;
			pthread_mutex_unlock(&done_mtx);
			if (target > now_ns())
				sleep_until(target);
		}
		if (io->at_ns > 0 && t0 + io->at_ns > now_ns())
			sleep_until(t0 + io->at_ns);
		if (end_ns >= 0 && now_ns() >= t0 + end_ns) {
			/* runtime over: this IO and every later one stay unsubmitted */
			nios_run = i;
			next_idx = nios;
			pthread_mutex_unlock(&disp_mtx);
			break;
		}
		io->thr = thr;
		io->sub = now_ns();
		pthread_mutex_unlock(&disp_mtx);

		if (io->dir == 'W')
			io->ret = pwrite(fd, buf, io->size, io->off);
		else
			io->ret = pread(fd, buf, io->size, io->off);
		io->comp = now_ns();
		io->err = io->ret < 0 ? errno : 0;

		pthread_mutex_lock(&done_mtx);
		done_flag[i] = 1;
		if (io->comp > last_comp_abs)
			last_comp_abs = io->comp;
		while (done_prefix < nios && done_flag[done_prefix])
			done_prefix++;
		pthread_cond_broadcast(&done_cv);
		pthread_mutex_unlock(&done_mtx);
	}
	free(buf);
	return NULL;
}

static void usage(void)
{
	fprintf(stderr, "usage: iosim_rec -d DEV -i IOLIST -o OUT [-q QD] [-c CGROUPDIR] [-w] [-T END_NS]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *dev = NULL, *iolist = NULL, *out = NULL, *cg = NULL;
	int qd = 1, wr = 0, c, i;
	char line[256];
	FILE *f;
	pthread_t *th;
	int cap = 1024;

	while ((c = getopt(argc, argv, "d:i:o:q:c:wT:")) != -1) {
		switch (c) {
		case 'd': dev = optarg; break;
		case 'i': iolist = optarg; break;
		case 'o': out = optarg; break;
		case 'q': qd = atoi(optarg); break;
		case 'c': cg = optarg; break;
		case 'w': wr = 1; break;
		case 'T': end_ns = atoll(optarg); break;
		default: usage();
		}
	}
	if (!dev || !iolist || !out || qd < 1)
		usage();

	if (cg) {
		char p[4096];
		snprintf(p, sizeof(p), "%s/cgroup.procs", cg);
		f = fopen(p, "w");
		if (!f || fprintf(f, "%d\n", getpid()) < 0 || fclose(f)) {
			perror(p);
			return 1;
		}
	}

	f = fopen(iolist, "r");
	if (!f) {
		perror(iolist);
		return 1;
	}
	ios = calloc(cap, sizeof(*ios));
	while (fgets(line, sizeof(line), f)) {
		struct io *io;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (nios == cap) {
			cap *= 2;
			ios = realloc(ios, cap * sizeof(*ios));
		}
		io = &ios[nios];
		memset(io, 0, sizeof(*io));
		if (sscanf(line, " %c %lld %lld %lld %lld", &io->dir, &io->off,
			   &io->size, &io->at_ns, &io->idle_ns) != 5) {
			fprintf(stderr, "bad line: %s", line);
			return 1;
		}
		if (io->dir == 'W')
			wr = 1;
		if (io->size > maxsize)
			maxsize = io->size;
		nios++;
	}
	fclose(f);
	done_flag = calloc(nios + 1, sizeof(int));

	fd = open(dev, (wr ? O_RDWR : O_RDONLY) | O_DIRECT);
	if (fd < 0) {
		perror(dev);
		return 1;
	}

	printf("READY %d\n", getpid());
	fflush(stdout);
	if (scanf("%lld", &t0) != 1) {
		fprintf(stderr, "no t0 on stdin\n");
		return 1;
	}
	last_comp_abs = t0;
	sleep_until(t0);

	th = calloc(qd, sizeof(*th));
	for (i = 0; i < qd; i++)
		pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i);
	for (i = 0; i < qd; i++)
		pthread_join(th[i], NULL);
	close(fd);

	f = fopen(out, "w");
	if (!f) {
		perror(out);
		return 1;
	}
	if (nios_run >= 0)
		nios = nios_run;
	for (i = 0; i < nios; i++) {
		struct io *io = &ios[i];
		fprintf(f, "%d %d %c %lld %lld %lld %lld %lld %d\n", i, io->thr,
			io->dir, io->off, io->size, io->sub - t0, io->comp - t0,
			io->ret, io->err);
	}
	fclose(f);
	return 0;
}
