// SPDX-License-Identifier: GPL-2.0
/*
 * TCP ping-pong, the counterpart of perftest's ib_write_lat and
 * ib_send_lat for "make bench": the client sends -s bytes, the peer
 * sends them back, -n times, over one connection with TCP_NODELAY.  The
 * client prints "RESULT tcp_lat BYTES us T": T the median round trip
 * halved, as perftest reports a ping-pong's typical latency, and the 99th
 * and 99.9th percentiles of the halved round trips as tcp_lat_p99 and
 * tcp_lat_p999, as perftest's latency tests print theirs.
 *
 * Usage: tcp_pingpong [-n ITERS] [-s BYTES] [-p PORT] [SERVER]
 * Exits 0 on success, 1 on a failure (said on stderr), 2 on a bad option.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_BYTES	(1 << 20)

static int fail(const char *what)
{
	fprintf(stderr, "tcp_pingpong: %s: %s\n", what, strerror(errno));
	return 1;
}

/* Move exactly len bytes; false on an error or a closed connection. */
static int full_io(int fd, char *p, size_t len, int out)
{
	ssize_t n;

	while (len) {
		n = out ? write(fd, p, len) : read(fd, p, len);
		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			if (!n)
				errno = ECONNRESET;
			return 0;
		}
		p += n;
		len -= (size_t)n;
	}
	return 1;
}

static long number(const char *s, long min, long max)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v < min || v > max) {
		fprintf(stderr, "tcp_pingpong: %s: not a number from %ld to %ld\n", s, min, max);
		exit(2);
	}
	return v;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* A connected socket: to peer:port (retried for 30 s), or without a peer the one client of port. */
static int open_socket(const char *peer, const char *port)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				  .ai_flags = peer ? 0 : AI_PASSIVE };
	struct addrinfo *ai;
	int fd, c, one = 1, tries;

	if (getaddrinfo(peer, port, &hints, &ai)) {
		fprintf(stderr, "tcp_pingpong: cannot resolve %s\n", peer ? peer : "the port");
		return -1;
	}
	for (tries = 0; tries < 300; tries++) {
		fd = socket(ai->ai_family, SOCK_STREAM, 0);
		if (fd < 0)
			break;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (peer) {
			if (!connect(fd, ai->ai_addr, ai->ai_addrlen))
				goto out;
			close(fd);
			usleep(100000);
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 1))
			break;
		c = accept(fd, NULL, NULL);
		close(fd);
		fd = c;
		if (fd >= 0)
			setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		goto out;
	}
	fd = -1;
out:
	freeaddrinfo(ai);
	return fd;
}

int main(int argc, char **argv)
{
	long iters = 1000, bytes = 8, i;
	const char *port = "18700", *peer;
	double *rtt, t0;
	char *buf;
	int c, fd;

	while ((c = getopt(argc, argv, "n:s:p:")) != -1) {
		switch (c) {
		case 'n': iters = number(optarg, 1, 10000000); break;
		case 's': bytes = number(optarg, 1, MAX_BYTES); break;
		case 'p': port = optarg; break;
		default:
			fprintf(stderr, "usage: tcp_pingpong [-n ITERS] [-s BYTES] [-p PORT] [SERVER]\n");
			return 2;
		}
	}
	if (argc - optind > 1) {
		fprintf(stderr, "usage: tcp_pingpong [-n ITERS] [-s BYTES] [-p PORT] [SERVER]\n");
		return 2;
	}
	peer = optind < argc ? argv[optind] : NULL;
	buf = calloc(1, (size_t)bytes);
	rtt = calloc((size_t)iters, sizeof(*rtt));
	if (!buf || !rtt)
		return fail("calloc");
	fd = open_socket(peer, port);
	if (fd < 0)
		return fail(peer ? "connect" : "accept");
	for (i = 0; i < iters; i++) {
		t0 = now_us();
		if (peer ? !full_io(fd, buf, (size_t)bytes, 1) || !full_io(fd, buf, (size_t)bytes, 0) :
			     !full_io(fd, buf, (size_t)bytes, 0) || !full_io(fd, buf, (size_t)bytes, 1))
			return fail("ping-pong");
		rtt[i] = now_us() - t0;
	}
	if (peer) {
		qsort(rtt, (size_t)iters, sizeof(*rtt), cmp_double);
		printf("RESULT tcp_lat %ld us %.2f\n", bytes, rtt[iters / 2] / 2);
		printf("RESULT tcp_lat_p99 %ld us %.2f\n", bytes, rtt[iters * 99L / 100] / 2);
		printf("RESULT tcp_lat_p999 %ld us %.2f\n", bytes, rtt[iters * 999L / 1000] / 2);
	}
	close(fd);
	free(rtt);
	free(buf);
	return 0;
}
