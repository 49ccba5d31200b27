/*
 * A Kafka-protocol mock cluster (librdkafka's) that a test can steer: start it with N brokers, read the
 * bootstrap servers from the first stdout line, then send commands on stdin, one per line; each gets one
 * answer line, "ok" or "error <why>".
 *
 *   topic <name> <partitions> <replication>   create a topic (others auto-create: 4 partitions, as kcat's mock)
 *   down <broker-id|all>                      the broker drops its connections and refuses new ones
 *   up <broker-id|all>                        it serves again
 *
 * EOF on stdin (the parent went away) or SIGTERM/SIGINT destroys the cluster and exits 0.
 *
 *   kafka-mock [brokers]      (default 1)
 *
 * Build: tools/kafka-mock/build.sh (tests/support/kafka-mock.ts runs it when the binary is missing or stale).
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#define MAX_BROKERS 64

static volatile sig_atomic_t stopping = 0;

static void on_signal(int sig) {
  (void)sig;
  stopping = 1;
}

/* Without SA_RESTART, so a signal ends the blocking read of stdin at once. */
static void install_signal_handlers(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);
}

/* The mock's own client must not connect anywhere; its log lines go to stderr (warnings and worse only). */
static rd_kafka_t *new_handle(char *errstr, size_t errlen) {
  rd_kafka_conf_t *conf = rd_kafka_conf_new();
  if (rd_kafka_conf_set(conf, "log_level", "4", errstr, errlen) != RD_KAFKA_CONF_OK) {
    rd_kafka_conf_destroy(conf);
    return NULL;
  }
  rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, errlen);
  if (!rk) rd_kafka_conf_destroy(conf);
  return rk;
}

static int parse_int(const char *s, long min, long max, long *out) {
  char *end = NULL;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno != 0 || end == s || *end != '\0' || v < min || v > max) return -1;
  *out = v;
  return 0;
}

static void answer(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void answer(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  putchar('\n');
  fflush(stdout);
}

/* "down"/"up" on one broker id or on every broker. */
static void set_brokers(rd_kafka_mock_cluster_t *mc, int broker_cnt, const char *which, int up) {
  long id;
  int from, to;
  if (which && strcmp(which, "all") == 0) {
    from = 1;
    to = broker_cnt;
  } else if (which && parse_int(which, 1, broker_cnt, &id) == 0) {
    from = to = (int)id;
  } else {
    answer("error broker must be all or 1..%d", broker_cnt);
    return;
  }
  for (int b = from; b <= to; b++) {
    rd_kafka_resp_err_t err = up ? rd_kafka_mock_broker_set_up(mc, b) : rd_kafka_mock_broker_set_down(mc, b);
    if (err) {
      answer("error broker %d: %s", b, rd_kafka_err2str(err));
      return;
    }
  }
  answer("ok");
}

static void create_topic(rd_kafka_mock_cluster_t *mc, int broker_cnt, char *name, char *partitions, char *replication) {
  long p, r;
  if (!name || !partitions || !replication) {
    answer("error usage: topic <name> <partitions> <replication>");
    return;
  }
  if (parse_int(partitions, 1, 10000, &p) != 0) {
    answer("error partitions must be 1..10000");
    return;
  }
  if (parse_int(replication, 1, broker_cnt, &r) != 0) {
    answer("error replication must be 1..%d", broker_cnt);
    return;
  }
  rd_kafka_resp_err_t err = rd_kafka_mock_topic_create(mc, name, (int)p, (int)r);
  if (err) answer("error %s", rd_kafka_err2str(err));
  else answer("ok");
}

static void run_command(rd_kafka_mock_cluster_t *mc, int broker_cnt, char *line) {
  char *save = NULL;
  char *cmd = strtok_r(line, " \t\r\n", &save);
  if (!cmd) {
    answer("error empty command");
    return;
  }
  char *a1 = strtok_r(NULL, " \t\r\n", &save);
  char *a2 = strtok_r(NULL, " \t\r\n", &save);
  char *a3 = strtok_r(NULL, " \t\r\n", &save);
  char *extra = strtok_r(NULL, " \t\r\n", &save);
  if (strcmp(cmd, "topic") == 0 && !extra) create_topic(mc, broker_cnt, a1, a2, a3);
  else if (strcmp(cmd, "down") == 0 && !a2) set_brokers(mc, broker_cnt, a1, 0);
  else if (strcmp(cmd, "up") == 0 && !a2) set_brokers(mc, broker_cnt, a1, 1);
  else answer("error unknown command (topic <name> <partitions> <replication> | down <id|all> | up <id|all>)");
}

int main(int argc, char **argv) {
  long broker_cnt = 1;
  if (argc > 2 || (argc == 2 && parse_int(argv[1], 1, MAX_BROKERS, &broker_cnt) != 0)) {
    fprintf(stderr, "usage: %s [brokers 1..%d]\n", argv[0], MAX_BROKERS);
    return 2;
  }
  install_signal_handlers();

  char errstr[512];
  rd_kafka_t *rk = new_handle(errstr, sizeof errstr);
  if (!rk) {
    fprintf(stderr, "kafka-mock: cannot create a librdkafka handle: %s\n", errstr);
    return 1;
  }
  /* Topics auto-create on a client's metadata request (4 partitions) exactly as with test.mock.num.brokers. */
  rd_kafka_mock_cluster_t *mc = rd_kafka_mock_cluster_new(rk, (int)broker_cnt);
  if (!mc) {
    fprintf(stderr, "kafka-mock: cannot create the mock cluster\n");
    rd_kafka_destroy(rk);
    return 1;
  }
  answer("%s", rd_kafka_mock_cluster_bootstraps(mc));

  char line[1024];
  while (!stopping) {
    if (!fgets(line, sizeof line, stdin)) {
      if (ferror(stdin) && errno == EINTR && !stopping) {
        clearerr(stdin);
        continue;
      }
      break;
    }
    if (!strchr(line, '\n') && !feof(stdin)) {
      int c;
      while ((c = getchar()) != '\n' && c != EOF) {
      }
      answer("error line too long");
      continue;
    }
    run_command(mc, (int)broker_cnt, line);
  }

  rd_kafka_mock_cluster_destroy(mc);
  rd_kafka_destroy(rk);
  return 0;
}
