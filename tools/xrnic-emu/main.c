// SPDX-License-Identifier: GPL-2.0
/*
 * xrnic-emu: the XRNIC device model behind QEMU's ivshmem-doorbell device.
 * Options, then one poll() loop over signals, the listening socket, the
 * client socket and the doorbell eventfds, which also runs the data path
 * while it has work and wakes for its retry timers.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ivshmem.h"
#include "pcap.h"
#include "tap.h"
#include "xe.h"

#define XE_EXIT_USAGE		2
#define XE_STR(x)		XE_STR_(x)
#define XE_STR_(x)		#x
#define XE_DEFAULT_VECTORS	4

static const uint8_t xe_default_mac[6] = { 0x52, 0x54, 0x00, 0x00, 0x00, 0x01 };

static const struct option xe_options[] = {
	{ "socket",	required_argument, NULL, 's' },
	{ "guest-ram",	required_argument, NULL, 'r' },
	{ "vectors",	required_argument, NULL, 'n' },
	{ "guid",	required_argument, NULL, 'g' },
	{ "mac",	required_argument, NULL, 'm' },
	{ "fw-version",	required_argument, NULL, 'f' },
	{ "log",	required_argument, NULL, 'l' },
	{ "tap",	required_argument, NULL, 't' },
	{ "faults",	required_argument, NULL, 'F' },
	{ "pcap",	required_argument, NULL, 'p' },
	{ "switch",	required_argument, NULL, 'S' },
	{ "lossless",	no_argument,       NULL, 'L' },
	{ "ecn-threshold", required_argument, NULL, 'E' },
	{ "version",	no_argument,	   NULL, 'V' },
	{ "help",	no_argument,	   NULL, 'h' },
	{ }
};

static void xe_usage(FILE *f)
{
	fprintf(f,
		"Usage: xrnic-emu --socket PATH --guest-ram FILE [options]\n"
		"XRNIC device model: ivshmem server for QEMU's ivshmem-doorbell device.\n"
		"\n"
		"  --socket PATH          AF_UNIX socket QEMU connects to (required)\n"
		"  --guest-ram FILE       guest RAM file of memory-backend-file (required)\n"
		"  --vectors N            doorbell/MSI-X vectors, 1..%d (default %d)\n"
		"  --guid G               node GUID, xxxx:xxxx:xxxx:xxxx or 0x-prefixed hex\n"
		"                         (default: EUI-64 from the MAC)\n"
		"  --mac M                MAC address aa:bb:cc:dd:ee:ff (default 52:54:00:00:00:01)\n"
		"  --fw-version X.Y.Z     firmware version, X,Y < 256, Z < 65536 (default 1.0.0)\n"
		"  --log FILE             log to FILE, truncated first (default stderr)\n"
		"  --tap NAME             the port's wire: an existing tap device (default:\n"
		"                         none, frames sent go nowhere)\n"
		"  --faults SPEC          inject faults into the RoCE frames sent:\n"
		"                         drop=P,dup=P,reorder=P,corrupt=P (percent, 0..100)\n"
		"                         and seed=N, any of them (default: none)\n"
		"  --pcap FILE            capture every frame of the --tap both ways into\n"
		"                         FILE, a new pcap file (never one that exists)\n"
		"  --switch NAME          with --tap: join the host's switch NAME (1 to %d\n"
		"                         characters), which carries frames between the\n"
		"                         XRNICs on it through shared memory instead\n"
		"                         (default: none)\n"
		"  --ecn-threshold BYTES  with --switch: mark CE while more than BYTES of\n"
		"                         this port's frames wait unread at the port they\n"
		"                         go to, 0..%d (default %d; 0: whenever one\n"
		"                         waits)\n"
		"  --lossless             with --switch: a full ring pauses this port, as\n"
		"                         PFC does, instead of losing the frames (default:\n"
		"                         lossy)\n"
		"  --version              show the version\n"
		"  --help                 show this help\n"
		"\n"
		"Signals: SIGUSR1 takes the port's link down, SIGUSR2 brings it up\n"
		"(reported to the driver as events); SIGTERM or SIGINT end the model.\n",
		XRNIC_MAX_VECTORS, XE_DEFAULT_VECTORS, XE_SWITCH_NAME_MAX, XE_SWRING_SIZE,
		XE_SWITCH_MARK_BYTES);
}

static void __attribute__((noreturn)) xe_bad_option(const char *opt, const char *val,
						    const char *why)
{
	fprintf(stderr, "xrnic-emu: invalid --%s value '%s': %s\n", opt, val, why);
	exit(XE_EXIT_USAGE);
}

static int xe_hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Parse exactly n hex digits at s. */
static bool xe_parse_hex(const char *s, unsigned int n, uint64_t *val)
{
	unsigned int i;

	*val = 0;
	for (i = 0; i < n; i++) {
		if (xe_hex(s[i]) < 0)
			return false;
		*val = *val << 4 | xe_hex(s[i]);
	}
	return true;
}

static uint64_t xe_parse_guid(const char *s)
{
	uint64_t guid = 0, group;
	unsigned int i;

	if (!strncmp(s, "0x", 2) || !strncmp(s, "0X", 2)) {
		size_t n = strlen(s + 2);

		if (n < 1 || n > 16 || !xe_parse_hex(s + 2, n, &guid))
			xe_bad_option("guid", s, "expected 1 to 16 hex digits after 0x");
		return guid;
	}
	for (i = 0; i < 4; i++) {
		if (!xe_parse_hex(s + 5 * i, 4, &group) || s[5 * i + 4] != (i < 3 ? ':' : '\0'))
			xe_bad_option("guid", s, "expected xxxx:xxxx:xxxx:xxxx or 0x<hex>");
		guid = guid << 16 | group;
	}
	return guid;
}

static void xe_parse_mac(const char *s, uint8_t mac[6])
{
	uint64_t byte;
	unsigned int i;

	for (i = 0; i < 6; i++) {
		if (!xe_parse_hex(s + 3 * i, 2, &byte) || s[3 * i + 2] != (i < 5 ? ':' : '\0'))
			xe_bad_option("mac", s, "expected aa:bb:cc:dd:ee:ff");
		mac[i] = byte;
	}
	if (mac[0] & 1)
		xe_bad_option("mac", s, "multicast address");
}

/* A decimal number <= max, ending at the returned pointer; NULL if none. */
static const char *xe_parse_dec(const char *s, unsigned long max, unsigned long *val)
{
	*val = 0;
	if (*s < '0' || *s > '9')
		return NULL;
	for (; *s >= '0' && *s <= '9'; s++) {
		*val = *val * 10 + (*s - '0');
		if (*val > max)
			return NULL;
	}
	return s;
}

static uint32_t xe_parse_fw(const char *s)
{
	unsigned long maj, min, sub;
	const char *p;

	p = xe_parse_dec(s, 255, &maj);
	if (p && *p == '.')
		p = xe_parse_dec(p + 1, 255, &min);
	else
		p = NULL;
	if (p && *p == '.')
		p = xe_parse_dec(p + 1, 65535, &sub);
	else
		p = NULL;
	if (!p || *p)
		xe_bad_option("fw-version", s, "expected X.Y.Z with X, Y < 256 and Z < 65536");
	return XRNIC_FW_VERSION(maj, min, sub);
}

static unsigned int xe_parse_vectors(const char *s)
{
	unsigned long n;
	const char *p = xe_parse_dec(s, XRNIC_MAX_VECTORS, &n);

	if (!p || *p || n < 1)
		xe_bad_option("vectors", s, "expected a number from 1 to " XE_STR(XRNIC_MAX_VECTORS));
	return n;
}

struct xe_args {
	const char *socket;
	const char *guest_ram;
	const char *log;
	const char *tap;
	const char *pcap;
	const char *sw;
	struct xe_faults faults;
	bool have_guid;
	long ecn_threshold;		/* -1: the switch's default */
	bool lossless;
};

static void xe_parse_args(int argc, char **argv, struct xe_args *a, struct xe_identity *id)
{
	int c;

	static_assert(XE_SWRING_SIZE == 8388608, "--ecn-threshold's message");
	a->ecn_threshold = -1;
	id->num_vectors = XE_DEFAULT_VECTORS;
	id->fw_version = XRNIC_FW_VERSION(1, 0, 0);
	memcpy(id->mac, xe_default_mac, sizeof(id->mac));
	while ((c = getopt_long(argc, argv, "", xe_options, NULL)) != -1) {
		switch (c) {
		case 's':
			a->socket = optarg;
			break;
		case 'r':
			a->guest_ram = optarg;
			break;
		case 'n':
			id->num_vectors = xe_parse_vectors(optarg);
			break;
		case 'g':
			id->guid = xe_parse_guid(optarg);
			a->have_guid = true;
			break;
		case 'm':
			xe_parse_mac(optarg, id->mac);
			break;
		case 'f':
			id->fw_version = xe_parse_fw(optarg);
			break;
		case 'l':
			a->log = optarg;
			break;
		case 'F':
			if (xe_faults_parse(&a->faults, optarg))
				xe_bad_option("faults", optarg,
					      "expected drop=P,dup=P,reorder=P,corrupt=P,seed=N with P in 0..100");
			break;
		case 't':
			if (!*optarg || strlen(optarg) >= IFNAMSIZ)
				xe_bad_option("tap", optarg, "expected an interface name of 1 to 15 characters");
			a->tap = optarg;
			break;
		case 'p':
			if (!*optarg)
				xe_bad_option("pcap", optarg, "expected a file name");
			a->pcap = optarg;
			break;
		case 'S':
			if (!*optarg || strlen(optarg) > XE_SWITCH_NAME_MAX || strchr(optarg, '/'))
				xe_bad_option("switch", optarg,
					      "expected a name of 1 to 64 characters without '/'");
			a->sw = optarg;
			break;
		case 'E': {
			unsigned long v;
			const char *end = xe_parse_dec(optarg, XE_SWRING_SIZE, &v);

			if (!end || *end)
				xe_bad_option("ecn-threshold", optarg,
					      "expected a number of bytes from 0 to 8388608");
			a->ecn_threshold = v;
			break;
		}
		case 'L':
			a->lossless = true;
			break;
		case 'V':
			printf("xrnic-emu %s\n", XE_VERSION);
			exit(0);
		case 'h':
			xe_usage(stdout);
			exit(0);
		default:
			xe_usage(stderr);
			exit(XE_EXIT_USAGE);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "xrnic-emu: unexpected argument '%s'\n", argv[optind]);
		exit(XE_EXIT_USAGE);
	}
	if (!a->socket || !a->guest_ram) {
		fprintf(stderr, "xrnic-emu: --socket and --guest-ram are required\n");
		xe_usage(stderr);
		exit(XE_EXIT_USAGE);
	}
	if (a->pcap && !a->tap) {
		fprintf(stderr, "xrnic-emu: --pcap needs --tap (there is no wire to capture)\n");
		exit(XE_EXIT_USAGE);
	}
	if (a->sw && !a->tap) {
		fprintf(stderr, "xrnic-emu: --switch needs --tap (for the frames it does not take)\n");
		exit(XE_EXIT_USAGE);
	}
	if (a->ecn_threshold >= 0 && !a->sw) {
		fprintf(stderr, "xrnic-emu: --ecn-threshold needs --switch (which marks CE)\n");
		exit(XE_EXIT_USAGE);
	}
	if (a->lossless && !a->sw) {
		fprintf(stderr, "xrnic-emu: --lossless needs --switch (whose queues pause)\n");
		exit(XE_EXIT_USAGE);
	}
	if (!a->have_guid) {
		uint8_t eui[8];
		unsigned int i;

		xe_mac_eui64(id->mac, eui);
		for (i = 0; i < sizeof(eui); i++)
			id->guid = id->guid << 8 | eui[i];
	}
}

static void xe_raise_irq(struct xe_dev *xe, unsigned int vec)
{
	int err = xe_ivshmem_raise(xe->irq_ctx, vec);

	if (err)
		xe_log(xe, "raising MSI-X vector %u failed: %s", vec, strerror(-err));
}

/* Returns true when the client is gone. */
static bool xe_client_input(int fd)
{
	char buf[64];
	ssize_t n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);

	/* QEMU sends nothing after connecting; anything it does is ignored. */
	return n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR);
}

enum { XE_PFD_SIGNAL, XE_PFD_LISTEN, XE_PFD_CLIENT, XE_PFD_TAP, XE_PFD_SWITCH, XE_PFD_DB0 };

static int xe_run(struct xe_dev *xe, struct xe_ivshmem *iv, int sfd, struct xe_tap *tap)
{
	struct pollfd pfd[XE_PFD_DB0 + XRNIC_MAX_VECTORS];
	unsigned int nfds = XE_PFD_DB0 + iv->nvec, v;
	int64_t wait = -1, pause;
	struct timespec ts;
	uint64_t cnt;
	int err;

	pfd[XE_PFD_SIGNAL] = (struct pollfd){ .fd = sfd, .events = POLLIN };
	pfd[XE_PFD_LISTEN] = (struct pollfd){ .fd = iv->listen_fd, .events = POLLIN };
	pfd[XE_PFD_CLIENT] = (struct pollfd){ .fd = -1, .events = POLLIN };
	pfd[XE_PFD_TAP] = (struct pollfd){ .fd = tap->fd, .events = POLLIN };
	pfd[XE_PFD_SWITCH] = (struct pollfd){ .fd = tap->sw.epfd, .events = POLLIN };
	for (v = 0; v < iv->nvec; v++)
		pfd[XE_PFD_DB0 + v] = (struct pollfd){ .fd = iv->db_fd[v], .events = POLLIN };

	for (;;) {
		/* A frame in the switch's rings rings no doorbell unless we sleep. */
		if (wait && tap->sw.fd >= 0 && !xe_switch_sleep(&tap->sw))
			wait = 0;
		ts = (struct timespec){ .tv_sec = wait / 1000000000, .tv_nsec = wait % 1000000000 };
		err = ppoll(pfd, nfds, wait < 0 ? NULL : &ts, NULL);
		if (wait && tap->sw.fd >= 0)
			xe_switch_wake(&tap->sw);
		if (err < 0) {
			if (errno == EINTR)
				continue;
			xe_log(xe, "poll: %s", strerror(errno));
			return 1;
		}
		if (pfd[XE_PFD_SIGNAL].revents) {
			struct signalfd_siginfo si;

			if (read(sfd, &si, sizeof(si)) == sizeof(si) &&
			    (si.ssi_signo == SIGUSR1 || si.ssi_signo == SIGUSR2)) {
				xe_port_set_link(xe, si.ssi_signo == SIGUSR2);
				continue;
			}
			xe_log(xe, "terminated by signal");
			return 0;
		}
		for (v = 0; v < iv->nvec; v++) {
			if (!pfd[XE_PFD_DB0 + v].revents)
				continue;
			/* Clear first, so a doorbell rung while we work is not lost. */
			if (read(iv->db_fd[v], &cnt, sizeof(cnt)) == sizeof(cnt))
				xe_doorbell(xe, v);
		}
		/* Input still waiting holds the ACK timers (struct xe_dev.rx_pending). */
		xe->rx_pending = false;
		if (pfd[XE_PFD_TAP].revents && xe_tap_receive(xe, tap))
			xe->rx_pending = true;
		if (pfd[XE_PFD_SWITCH].revents)
			xe_switch_events(&tap->sw);
		if (xe_tap_switch_receive(xe, tap))
			xe->rx_pending = true;
		/* The data path's work; and when to look again without a doorbell. */
		wait = xe_dev_poll(xe);
		if (tap->fd >= 0) {
			/* A paused port tries again when its pause is over. */
			pause = xe_tap_flush(xe, tap);
			if (pause >= 0 && (wait < 0 || pause < wait))
				wait = pause;
		}
		if (pfd[XE_PFD_CLIENT].revents && xe_client_input(iv->client_fd)) {
			xe_log(xe, "client disconnected");
			return 0;
		}
		if (!pfd[XE_PFD_LISTEN].revents)
			continue;
		if (iv->client_fd >= 0) {
			xe_ivshmem_refuse(iv);
			xe_log(xe, "refused a second client: one is already connected");
			continue;
		}
		err = xe_ivshmem_accept(iv);
		if (err) {
			xe_log(xe, "client handshake failed: %s", strerror(-err));
			return 1;
		}
		pfd[XE_PFD_CLIENT].fd = iv->client_fd;
		xe_log(xe, "client connected");
	}
}

int main(int argc, char **argv)
{
	struct xe_args args = { };
	struct xe_dev xe = { .log = stderr, .raise_irq = xe_raise_irq };
	struct xe_ivshmem iv;
	const uint8_t *m = xe.id.mac;
	sigset_t sigs;
	static struct xe_tap tap = { .fd = -1, .sw.fd = -1, .sw.epfd = -1 };
	int err, sfd, ret = 1;

	xe_parse_args(argc, argv, &args, &xe.id);
	if (args.log) {
		xe.log = fopen(args.log, "we");
		if (!xe.log) {
			fprintf(stderr, "xrnic-emu: cannot open --log '%s': %s\n", args.log,
				strerror(errno));
			return XE_EXIT_USAGE;
		}
	}
	err = xe_gm_map(&xe.mem, args.guest_ram);
	if (err) {
		fprintf(stderr, "xrnic-emu: cannot map --guest-ram '%s': %s\n", args.guest_ram,
			strerror(-err));
		return XE_EXIT_USAGE;
	}

	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGUSR1);	/* link down */
	sigaddset(&sigs, SIGUSR2);	/* link up */
	sigprocmask(SIG_BLOCK, &sigs, NULL);
	sfd = signalfd(-1, &sigs, SFD_CLOEXEC);

	if (args.tap) {
		tap.fd = xe_tap_open(args.tap);
		if (tap.fd < 0) {
			fprintf(stderr, "xrnic-emu: cannot attach to --tap '%s': %s\n", args.tap,
				strerror(-tap.fd));
			return XE_EXIT_USAGE;
		}
		xe_tap_attach(&xe, &tap);
	}
	if (args.sw) {
		err = xe_switch_open(&tap.sw, args.sw, xe.id.mac);
		if (err) {
			fprintf(stderr, "xrnic-emu: cannot join --switch '%s': %s\n", args.sw,
				strerror(-err));
			close(tap.fd);
			return XE_EXIT_USAGE;
		}
		if (args.ecn_threshold >= 0)
			tap.sw.mark_bytes = args.ecn_threshold;
		if (args.lossless && xe_switch_lossless(&tap.sw)) {
			fprintf(stderr, "xrnic-emu: --lossless: out of memory\n");
			xe_switch_close(&tap.sw);
			close(tap.fd);
			return 1;
		}
	}
	if (args.pcap) {
		tap.pcap = xe_pcap_open(args.pcap);
		if (!tap.pcap) {
			fprintf(stderr, "xrnic-emu: cannot create --pcap '%s': %s\n", args.pcap,
				strerror(errno));
			xe_switch_close(&tap.sw);
			close(tap.fd);
			return XE_EXIT_USAGE;
		}
	}
	err = xe_ivshmem_init(&iv, xe.id.num_vectors);
	if (sfd < 0 || err) {
		fprintf(stderr, "xrnic-emu: setup failed: %s\n", strerror(sfd < 0 ? errno : -err));
		goto out;
	}
	xe.bar2 = iv.bar2;
	xe.irq_ctx = &iv;
	xe_dev_init(&xe);
	xe_log(&xe, "XRNIC device model: guid %04x:%04x:%04x:%04x mac "
	       "%02x:%02x:%02x:%02x:%02x:%02x fw %u.%u.%u, %u vectors, guest RAM %s (%" PRIu64
	       " MiB)", (unsigned int)(xe.id.guid >> 48), (unsigned int)(xe.id.guid >> 32) & 0xffff,
	       (unsigned int)(xe.id.guid >> 16) & 0xffff, (unsigned int)xe.id.guid & 0xffff,
	       m[0], m[1], m[2], m[3], m[4], m[5], XRNIC_FW_MAJOR(xe.id.fw_version),
	       XRNIC_FW_MINOR(xe.id.fw_version), XRNIC_FW_SUB(xe.id.fw_version),
	       xe.id.num_vectors, args.guest_ram, xe.mem.size >> 20);

	err = xe_ivshmem_listen(&iv, args.socket);
	if (err) {
		fprintf(stderr, "xrnic-emu: cannot listen on --socket '%s': %s\n", args.socket,
			strerror(-err));
		ret = XE_EXIT_USAGE;
		goto out;
	}
	xe_log(&xe, "listening on %s", args.socket);
	if (args.tap)
		xe_log(&xe, "port wired to tap %s", args.tap);
	if (args.sw)
		xe_log(&xe, "port on switch %s%s", args.sw, args.lossless ? ", lossless" : "");
	xe.faults = args.faults;
	if (xe.faults.active)
		xe_log(&xe, "injecting faults into RoCE frames: drop %g%%, dup %g%%, reorder %g%%, "
		       "corrupt %g%%", xe.faults.drop, xe.faults.dup, xe.faults.reorder,
		       xe.faults.corrupt);
	if (tap.pcap)
		xe_log(&xe, "capturing the wire into %s", args.pcap);
	ret = xe_run(&xe, &iv, sfd, &tap);
out:
	xe_dev_fini(&xe);
	xe_ivshmem_close(&iv);
	xe_gm_unmap(&xe.mem);
	if (sfd >= 0)
		close(sfd);
	if (tap.pcap)
		fclose(tap.pcap);
	xe_switch_close(&tap.sw);
	if (tap.fd >= 0)
		close(tap.fd);
	if (xe.log != stderr)
		fclose(xe.log);
	return ret;
}
