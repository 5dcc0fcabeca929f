/*===- log_check.c - distrt_log's lines under the environment a test sets --===*
 *
 *   distrt-log-check
 *
 * Prints which levels are enabled (stdout), then logs one message at each
 * level, one with a trailing newline, and a long one (stderr). Written in C
 * to check that distrt.h is a C header.
 *
 *===----------------------------------------------------------------------===*/

#include "distrt/distrt.h"

#include <stdio.h>
#include <string.h>

int main(void) {
  static char longMessage[3001];
  printf("enabled: error=%d warn=%d info=%d debug=%d\n",
         distrt_log_enabled(DISTRT_LOG_ERROR),
         distrt_log_enabled(DISTRT_LOG_WARN),
         distrt_log_enabled(DISTRT_LOG_INFO),
         distrt_log_enabled(DISTRT_LOG_DEBUG));
  fflush(stdout);
  distrt_log(DISTRT_LOG_ERROR, "an error %d", 1);
  distrt_log(DISTRT_LOG_WARN, "a warning %s", "two");
  distrt_log(DISTRT_LOG_INFO, "some info %.2f", 3.0);
  distrt_log(DISTRT_LOG_DEBUG, "a debug line %c", '4');
  distrt_log(DISTRT_LOG_ERROR, "ends with a newline\n");
  memset(longMessage, 'x', sizeof(longMessage) - 1);
  distrt_log(DISTRT_LOG_ERROR, "%s|", longMessage);
  return 0;
}
