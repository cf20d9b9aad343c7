package pcptime

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The interval, ctime and window tests ask libpcp itself (the real PCP
// 6.0.3 library) through a small C program linked against libpcp.so.3:
// pmParseHighResInterval, __pmParseCtime, pmParseHighResTimeWindow, and
// the timestamp differences (__pmTimestampSub, pmtimespecDec with
// pmtimespecToReal, and the same in long double computed by gcc),
// pmtimespecToReal and pmtimevalToReal.
// They are skipped when gcc or libpcp is missing.

const pcpHelperC = `
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/time.h>

int pmParseHighResInterval(const char *, struct timespec *, char **);
int pmParseHighResTimeWindow(const char *, const char *, const char *, const char *,
	const struct timespec *, const struct timespec *,
	struct timespec *, struct timespec *, struct timespec *, char **);
int __pmParseCtime(const char *, struct tm *, char **);
int pmNewZone(const char *);

typedef struct { long long sec; int nsec; } pmts; /* __pmTimestamp */
double __pmTimestampSub(const pmts *, const pmts *);
void pmtimespecDec(struct timespec *, const struct timespec *);
double pmtimespecToReal(const struct timespec *);
double pmtimevalToReal(const struct timeval *);

static unsigned long long dbits(double d) {
	unsigned long long u; memcpy(&u, &d, sizeof u); return u;
}

/*
 * S a.sec a.nsec b.sec b.nsec: a-b four ways, as the bits of the doubles:
 * libpcp's __pmTimestampSub, libpcp's pmtimespecDec then pmtimespecToReal,
 * and the two computed here in long double (wrapping as the machine does,
 * without C's undefined signed overflow).
 */
static void subs(char **f) {
	pmts a = {atoll(f[1]), (int)atol(f[2])}, b = {atoll(f[3]), (int)atol(f[4])};
	struct timespec ta = {a.sec, a.nsec}, tb = {b.sec, b.nsec};
	pmtimespecDec(&ta, &tb);
	long long ds = (long long)((unsigned long long)a.sec - (unsigned long long)b.sec);
	int dn = (int)((unsigned)a.nsec - (unsigned)b.nsec);
	double ld = (double)(ds + (long double)dn / (long double)1000000000);
	long dn2 = (long)a.nsec - b.nsec;
	if (dn2 < 0) { dn2 += 1000000000; ds = (long long)((unsigned long long)ds - 1); }
	double ld2 = (double)(ds + (long double)dn2 / (long double)1000000000);
	printf("%016llx %016llx %016llx %016llx\n", dbits(__pmTimestampSub(&a, &b)),
		dbits(pmtimespecToReal(&ta)), dbits(ld), dbits(ld2));
}

static void hexout(const char *s) {
	if (s == NULL) { printf("-"); return; }
	if (*s == '\0') { printf("="); return; }
	for (; *s; s++) printf("%02x", (unsigned char)*s);
}

static int unhex(char *s) {
	/* in place; "-" is NULL (returns 0), "=" is "" */
	if (strcmp(s, "-") == 0) return 0;
	if (strcmp(s, "=") == 0) { s[0] = '\0'; return 1; }
	size_t n = strlen(s) / 2;
	for (size_t i = 0; i < n; i++) { unsigned v; sscanf(s + 2*i, "%2x", &v); s[i] = (char)v; }
	s[n] = '\0';
	return 1;
}

int main(int argc, char **argv) {
	static char line[65536];
	while (fgets(line, sizeof line, stdin)) {
		char *f[16]; int nf = 0;
		char *nl = strchr(line, '\n'); if (nl) *nl = '\0';
		for (char *p = strtok(line, " "); p && nf < 16; p = strtok(NULL, " ")) f[nf++] = p;
		if (nf < 1) continue;
		char *err = NULL;
		if (f[0][0] == 'I' && nf == 2) {
			unhex(f[1]);
			struct timespec ts = {0, 0};
			int rc = pmParseHighResInterval(f[1], &ts, &err);
			printf("%d %lld %lld ", rc, (long long)ts.tv_sec, (long long)ts.tv_nsec);
			hexout(err); printf("\n");
		} else if (f[0][0] == 'C' && nf == 2) {
			unhex(f[1]);
			int buf[64]; memset(buf, 0x5a, sizeof buf);
			int rc = __pmParseCtime(f[1], (struct tm *)buf, &err);
			printf("%d", rc);
			if (rc >= 0) for (int i = 0; i < 8; i++) printf(" %d", buf[i]);
			printf(" "); hexout(err); printf("\n");
		} else if (f[0][0] == 'W' && nf == 10) {
			/* W zone ls lsn le len S T A O */
			char *zone = f[1];
			char *a[4];
			for (int i = 0; i < 4; i++) a[i] = unhex(f[6+i]) ? f[6+i] : NULL;
			if (unhex(zone)) pmNewZone(zone);
			struct timespec ls = {atoll(f[2]), atol(f[3])}, le = {atoll(f[4]), atol(f[5])};
			struct timespec rs = {0, 0}, re = {0, 0}, ro = {0, 0};
			int rc = pmParseHighResTimeWindow(a[0], a[1], a[2], a[3], &ls, &le, &rs, &re, &ro, &err);
			printf("%d %lld %ld %lld %ld %lld %ld ", rc, (long long)rs.tv_sec, rs.tv_nsec,
				(long long)re.tv_sec, re.tv_nsec, (long long)ro.tv_sec, ro.tv_nsec);
			hexout(err); printf("\n");
		} else if (f[0][0] == 'S' && nf == 5) {
			subs(f);
		} else if (f[0][0] == 'R' && nf == 3) {
			/* R sec nsec: pmtimespecToReal, and pmtimevalToReal of nsec/1000 */
			struct timespec ts = {atoll(f[1]), atol(f[2])};
			struct timeval tv = {ts.tv_sec, ts.tv_nsec / 1000};
			printf("%016llx %016llx\n", dbits(pmtimespecToReal(&ts)), dbits(pmtimevalToReal(&tv)));
		} else {
			printf("?\n");
		}
		fflush(stdout);
	}
	return 0;
}
`

var (
	pcpHelperOnce sync.Once
	pcpHelperPath string
	pcpHelperWhy  string
)

// getPCPHelper returns the path of the compiled libpcp helper, or skips.
func getPCPHelper(t testing.TB) string {
	t.Helper()
	pcpHelperOnce.Do(func() {
		gcc, err := exec.LookPath("gcc")
		if err != nil {
			pcpHelperWhy = "no gcc"
			return
		}
		lib := ""
		for _, p := range []string{"/lib/libpcp.so.3", "/usr/lib/libpcp.so.3", "/usr/lib64/libpcp.so.3",
			"/usr/lib/x86_64-linux-gnu/libpcp.so.3", "/lib/x86_64-linux-gnu/libpcp.so.3"} {
			if _, err := os.Stat(p); err == nil {
				lib = p
				break
			}
		}
		if lib == "" {
			pcpHelperWhy = "no libpcp.so.3"
			return
		}
		dir, err := os.MkdirTemp("", "pcptime-pcp")
		if err != nil {
			pcpHelperWhy = err.Error()
			return
		}
		tempDirs = append(tempDirs, dir)
		src := filepath.Join(dir, "pcp.c")
		bin := filepath.Join(dir, "pcp")
		if err := os.WriteFile(src, []byte(pcpHelperC), 0o644); err != nil {
			pcpHelperWhy = err.Error()
			return
		}
		if out, err := exec.Command(gcc, "-o", bin, src, lib).CombinedOutput(); err != nil {
			pcpHelperWhy = fmt.Sprintf("gcc: %v: %s", err, out)
			return
		}
		pcpHelperPath = bin
	})
	if pcpHelperPath == "" {
		t.Skipf("no libpcp oracle (%s)", pcpHelperWhy)
	}
	return pcpHelperPath
}

// hexArg encodes an argument for the helper: "-" for none, "=" for "".
func hexArg(s *string) string {
	if s == nil {
		return "-"
	}
	if *s == "" {
		return "="
	}
	return hex.EncodeToString([]byte(*s))
}

// unhexOut decodes an error message from the helper.
func unhexOut(s string) (string, bool) {
	switch s {
	case "-":
		return "", false
	case "=":
		return "", true
	}
	b, err := hex.DecodeString(s)
	if err != nil {
		return "?" + s, true
	}
	return string(b), true
}

// runPCP sends lines to a fresh helper process and returns its answers.
func runPCP(t testing.TB, lines []string) []string {
	t.Helper()
	bin := getPCPHelper(t)
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "PCP_DERIVED_CONFIG=")
	cmd.Stdin = strings.NewReader(strings.Join(lines, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("libpcp helper: %v", err)
	}
	var res []string
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		res = append(res, sc.Text())
	}
	if len(res) != len(lines) {
		t.Fatalf("libpcp helper answered %d of %d", len(res), len(lines))
	}
	return res
}
