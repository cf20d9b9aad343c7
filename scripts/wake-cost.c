// wake-cost.c: the CPU time one sleep and wake-up costs a process on
// this machine, by the length of the sleep (docs/benchmarks.md,
// "pmlogger", "The floor: one timer wake-up per sample").
//
// A recorder that samples every T sleeps about T once per sample, and
// the process is charged for that wake-up whatever it does after it.
// This program sleeps (clock_nanosleep, CLOCK_MONOTONIC) 1000 times for
// each length (300 times for 10 and 20 ms) and prints the CPU time
// (getrusage: user + system) per wake-up.
//
//   gcc -O2 -o /tmp/wake-cost scripts/wake-cost.c && /tmp/wake-cost
#define _GNU_SOURCE
#include <stdio.h>
#include <time.h>
#include <sys/resource.h>

static double cpu(void)
{
	struct rusage r;
	getrusage(RUSAGE_SELF, &r);
	return r.ru_utime.tv_sec * 1e6 + r.ru_utime.tv_usec + r.ru_stime.tv_sec * 1e6 + r.ru_stime.tv_usec;
}

int main(void)
{
	long us[] = {100, 300, 1000, 5000, 10000, 20000};
	for (int k = 0; k < 6; k++) {
		int n = us[k] >= 10000 ? 300 : 1000;
		double c0 = cpu();
		for (int i = 0; i < n; i++) {
			struct timespec ts = {us[k] / 1000000, (us[k] % 1000000) * 1000};
			clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, 0);
		}
		printf("sleep %5ld us: %5.1f us of CPU per wake-up\n", us[k], (cpu() - c0) / n);
	}
	return 0;
}
