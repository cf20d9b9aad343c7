package derive

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
	"github.com/pcpkit/pcpkit/pmapi"
)

// semCase is a derived metric defined over an archive's metrics, and what
// libpcp 6.0.3 makes of it: the descriptor as pminfo -d shows it ("TYPE |
// INDOM | SEMANTICS | UNITS"), "ERR <text>" for a semantic error (libpcp
// prints "Semantic error: derived metric NAME: <text>"), or "BADDERIVE"
// for a failure with no message (an operand the archive does not have).
type semCase struct {
	archive, expr, want string
}

// realSemantics asks the real library: each case becomes q.mNNN in a
// configuration file, and
//
//	PCP_DERIVED_CONFIG=FILE pminfo -dm -a ARCHIVE q.m001 q.m002 ...
//
// shows the descriptors on stdout and the semantic errors on stderr.
func realSemantics(t *testing.T, cases []semCase) []string {
	pminfo := testenv.RealTool(t, "pminfo")
	results := make([]string, len(cases))
	byArchive := map[string][]int{}
	var order []string
	for i, c := range cases {
		if _, ok := byArchive[c.archive]; !ok {
			order = append(order, c.archive)
		}
		byArchive[c.archive] = append(byArchive[c.archive], i)
	}
	reSem := regexp.MustCompile(`^Semantic error: derived metric (q\.m\d+): (.*)$`)
	for _, a := range order {
		var conf bytes.Buffer
		args := []string{"-dm", "-a", archivePath(t, a)}
		for _, i := range byArchive[a] {
			name := fmt.Sprintf("q.m%03d", i)
			fmt.Fprintf(&conf, "%s = %s\n", name, cases[i].expr)
			args = append(args, name)
		}
		file := filepath.Join(t.TempDir(), "sem.conf")
		if err := os.WriteFile(file, conf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		out, stderr, _ := testenv.RunCommand(t, "", testenv.RealEnv("PCP_DERIVED_CONFIG="+file), pminfo, args...)
		descs, errs := parsePminfo(t, out)
		semErrs := map[string]string{}
		for _, line := range strings.Split(string(stderr), "\n") {
			if m := reSem.FindStringSubmatch(line); m != nil {
				semErrs[m[1]] = m[2]
			} else if line != "" {
				t.Errorf("pminfo stderr: %s", line)
			}
		}
		for _, i := range byArchive[a] {
			name := fmt.Sprintf("q.m%03d", i)
			switch {
			case semErrs[name] != "":
				results[i] = "ERR " + semErrs[name]
			case errs[name] == "pmLookupDesc: Derived metric definition failed":
				results[i] = "BADDERIVE"
			case errs[name] != "":
				results[i] = "pminfo: " + errs[name]
			default:
				results[i] = formatDesc(descs[name])
			}
		}
	}
	return results
}

// ourSemantics binds the cases the same way: registered in order in one
// registry (after event.flags and event.missed), bound in a context of the
// archive's metrics.
func ourSemantics(t *testing.T, cases []semCase) []string {
	results := make([]string, len(cases))
	reg := NewRegistry(Dialect603)
	reg.RegisterEventMetrics()
	metrics := make([]*Metric, len(cases))
	for i, c := range cases {
		m, err := reg.Register(fmt.Sprintf("q.m%03d", i), c.expr)
		if err != nil {
			t.Fatalf("%q: %v", c.expr, err)
		}
		metrics[i] = m
	}
	ctxs := map[string]*Context{}
	for i, c := range cases {
		ctx, ok := ctxs[c.archive]
		if !ok {
			descs := archiveDescs(t, c.archive)
			ctx = reg.NewContext(func(name string) (pmapi.Desc, bool) {
				d, ok := descs[name]
				return d, ok
			})
			ctxs[c.archive] = ctx
		}
		b, err := ctx.Bind(metrics[i])
		var se *SemanticError
		switch {
		case errors.As(err, &se):
			results[i] = "ERR " + strings.TrimPrefix(se.Error(), "Semantic error: derived metric "+metrics[i].Name+": ")
		case err != nil:
			results[i] = "BADDERIVE"
		default:
			results[i] = formatDesc(b.Desc)
		}
	}
	return results
}

func TestSemantics(t *testing.T) {
	got := ourSemantics(t, semCases)
	for i, c := range semCases {
		if got[i] != c.want {
			t.Errorf("%s: %s\n got %s\nwant %s", c.archive, c.expr, got[i], c.want)
		}
	}
}

func TestSemanticsReal(t *testing.T) {
	real := realSemantics(t, semCases)
	for i, c := range semCases {
		if real[i] != c.want {
			t.Errorf("%s: %s\nlibpcp %s\n table %s", c.archive, c.expr, real[i], c.want)
		}
	}
}

// The scale factors of the man page's worked example: delta(bytes) /
// delta(milliseconds) divides the bytes by 1048576 (to Mbyte) and
// multiplies the milliseconds... by 1000 (to seconds), as the table in
// pmRegisterDerived(3) shows ("/1048576 and *1000").
func TestWorkedExampleScales(t *testing.T) {
	descs := archiveDescs(t, "manpage3")
	lookup := func(name string) (pmapi.Desc, bool) { d, ok := descs[name]; return d, ok }
	n, err := Parse("network.interface.speed - delta(network.interface.in.bytes) / delta(sample.milliseconds)", Dialect603)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Bind("x", n, Dialect603, lookup, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := formatDesc(b.Desc); got != "double | 60.3 | instant | Mbyte / sec" {
		t.Errorf("x: %s", got)
	}
	div := b.Right
	if got := formatDesc(div.Desc); got != "double | 60.3 | instant | byte / millisec" {
		t.Errorf("delta/delta: %s", got)
	}
	// map_units at "-": speed (Mbyte/sec) against byte/millisec: the right
	// operand is scaled, space /1024/1024 and time (its dimension is -1)
	// *1000
	if div.DivScale != 1048576 || div.MulScale != 1000 {
		t.Errorf("right operand of -: div %d mul %d, want 1048576 and 1000", div.DivScale, div.MulScale)
	}
	if b.Left.DivScale != 1 || b.Left.MulScale != 1 {
		t.Errorf("left operand of -: div %d mul %d", b.Left.DivScale, b.Left.MulScale)
	}
}

// semCases were made by realSemantics (TestSemanticsReal asks again): every
// semantic error message libpcp 6.0.3 can produce, the type, semantics,
// units and instance domain rules, and the examples of pmRegisterDerived(3)
// over testdata/manpage3 (whose metrics have the types of the man page's
// worked example).
var semCases = []semCase{
	{"synth3", "synth.ctr32 + synth.ctr32", "32-bit unsigned int | PM_INDOM_NULL | counter | count"},
	{"synth3", "synth.ctr32 * synth.ctr32", "ERR synth.ctr32 * synth.ctr32: Illegal operator for counters"},
	{"synth3", "synth.ctr32 - synth.ctrms", "ERR synth.ctr32 - synth.ctrms: Dimensions are not the same"},
	{"synth3", "synth.ctrms + synth.ctrms", "64-bit unsigned int | PM_INDOM_NULL | counter | millisec"},
	{"synth3", "synth.inst + synth.ctrms", "ERR synth.inst + synth.ctrms: Illegal operator for non-counter and counter"},
	{"synth3", "synth.ctr32 + synth.disc", "ERR synth.ctr32 + synth.disc: Illegal operator for counter and non-counter"},
	{"synth3", "synth.ctr32 * 2", "32-bit unsigned int | PM_INDOM_NULL | counter | count"},
	{"synth3", "synth.ctr32 / synth.once", "double | PM_INDOM_NULL | counter | count"},
	{"synth3", "2 * synth.ctr32", "32-bit unsigned int | PM_INDOM_NULL | counter | count"},
	{"synth3", "synth.disc * synth.ctr32", "32-bit unsigned int | PM_INDOM_NULL | discrete | count"},
	{"synth3", "synth.inst * synth.ctr32", "ERR synth.inst * synth.ctr32: Non-counter and not dimensionless for left operand"},
	{"synth3", "synth.ctr32 * synth.inst", "ERR synth.ctr32 * synth.inst: Non-counter and not dimensionless for right operand"},
	{"synth3", "synth.disc + synth.once", "32-bit unsigned int | PM_INDOM_NULL | instant | none"},
	{"synth3", "synth.disc + synth.disc", "32-bit unsigned int | PM_INDOM_NULL | discrete | none"},
	{"synth3", "synth.disc + 1", "32-bit unsigned int | PM_INDOM_NULL | discrete | none"},
	{"synth3", "synth.once * synth.inst", "double | PM_INDOM_NULL | instant | Kbyte"},
	{"synth3", "synth.inst / synth.once", "double | PM_INDOM_NULL | instant | Kbyte"},
	{"synth3", "synth.multi + synth.once", "float | 245.1 | instant | none"},
	{"synth3", "synth.multi * synth.inst", "double | 245.1 | instant | Kbyte"},
	{"synth3", "synth.str + 1", "ERR synth.str + 1: Non-arithmetic type for left operand"},
	{"synth3", "1 - synth.str", "ERR 1 - synth.str: Non-arithmetic type for right operand"},
	{"synth3", "synth.inst > synth.ctrms", "ERR synth.inst > synth.ctrms: Dimensions are not the same"},
	{"synth3", "synth.inst > synth.disc", "32-bit unsigned int | PM_INDOM_NULL | instant | none"},
	{"synth3", "synth.ctr32 > 10", "32-bit unsigned int | PM_INDOM_NULL | counter | none"},
	{"synth3", "synth.inst > 2.5", "ERR synth.inst > 2.5: Dimensions are not the same"},
	{"synth3", "synth.inst && synth.disc", "ERR synth.inst && synth.disc: Dimensions are not the same"},
	{"synth3", "synth.disc || synth.once", "32-bit unsigned int | PM_INDOM_NULL | instant | none"},
	{"synth3", "!synth.inst", "double | PM_INDOM_NULL | instant | Kbyte"},
	{"synth3", "-synth.disc", "32-bit int | PM_INDOM_NULL | instant | none"},
	{"synth3", "-synth.ctrms", "64-bit int | PM_INDOM_NULL | instant | millisec"},
	{"synth3", "-synth.str", "ERR - synth.str: Non-arithmetic operand for unary negation"},
	{"synth3", "delta(synth.ctr32)", "64-bit int | PM_INDOM_NULL | instant | count"},
	{"synth3", "delta(synth.ctrms)", "double | PM_INDOM_NULL | instant | millisec"},
	{"synth3", "delta(synth.inst)", "double | PM_INDOM_NULL | instant | Kbyte"},
	{"synth3", "rate(synth.ctr32)", "double | PM_INDOM_NULL | instant | count / sec"},
	{"synth3", "rate(synth.ctrms)", "double | PM_INDOM_NULL | instant | none"},
	{"synth3", "rate(synth.inst)", "double | PM_INDOM_NULL | instant | Kbyte / sec"},
	{"synth3", "rate(synth.str)", "ERR RATE(synth.str): Non-arithmetic operand for function"},
	{"synth3", "avg(synth.multi)", "float | PM_INDOM_NULL | instant | none"},
	{"synth3", "sum(synth.multi)", "float | PM_INDOM_NULL | instant | none"},
	{"synth3", "sum(synth.ctr32)", "32-bit unsigned int | PM_INDOM_NULL | counter | count"},
	{"synth3", "max(synth.ctrms)", "64-bit unsigned int | PM_INDOM_NULL | instant | millisec"},
	{"synth3", "min(synth.multi)", "float | PM_INDOM_NULL | instant | none"},
	{"synth3", "count(synth.multi)", "32-bit unsigned int | PM_INDOM_NULL | instant | count"},
	{"synth3", "count(synth.str)", "32-bit unsigned int | PM_INDOM_NULL | instant | count"},
	{"synth3", "instant(synth.ctrms)", "64-bit unsigned int | PM_INDOM_NULL | instant | millisec"},
	{"synth3", "instant(synth.disc)", "32-bit unsigned int | PM_INDOM_NULL | discrete | none"},
	{"synth3", "defined(synth.disc) + defined(no.such)", "32-bit unsigned int | PM_INDOM_NULL | discrete | none"},
	{"synth3", "no.such + 1", "BADDERIVE"},
	{"synth3", "rate(no.such)", "BADDERIVE"},
	{"synth3", "synth.multi[one]", "float | 245.1 | instant | none"},
	{"synth3", "matchinst(!/^t/, synth.multi) + 1", "float | 245.1 | instant | none"},
	{"synth3", "scalar(synth.multi[one]) * synth.inst", "double | PM_INDOM_NULL | instant | Kbyte"},
	{"synth3", "rescale(synth.inst, \"Mbyte\")", "double | PM_INDOM_NULL | instant | Mbyte"},
	{"synth3", "rescale(synth.ctrms, \"sec\")", "64-bit unsigned int | PM_INDOM_NULL | counter | sec"},
	{"synth3", "rescale(synth.ctr32, \"count x 10^3\")", "32-bit unsigned int | PM_INDOM_NULL | counter | count x 10^3"},
	{"synth3", "rescale(synth.disc, \"count\")", "32-bit unsigned int | PM_INDOM_NULL | discrete | count"},
	{"synth3", "rescale(synth.inst, \"sec\")", "ERR synth.inst RESCALE sec: Incompatible dimensions"},
	{"synth3", "rescale(synth.str, \"count\")", "ERR synth.str RESCALE count: Non-arithmetic operand for function"},
	{"synth3", "synth.disc ? synth.inst : mkconst(0, type=double, semantics=instant, units=Kbyte)", "double | PM_INDOM_NULL | instant | Kbyte"},
	{"synth3", "synth.multi ? synth.once : 0", "ERR synth.once : 0: Different types for ternary operands"},
	{"synth3", "synth.str ? 1 : 0", "ERR synth.str ? 1 : 0: Non-arithmetic operand for ternary guard"},
	{"synth3", "synth.disc ? synth.inst : 0.0", "ERR synth.inst : 0.0: Different semantics for ternary operands"},
	{"synth3", "synth.disc ? synth.multi : mkconst(0, type=float, semantics=instant)", "float | 245.1 | instant | none"},
	{"synth3", "1 ? synth.inst : rescale(synth.inst, \"Mbyte\")", "ERR synth.inst : <expr>: Different units or scale (space) for ternary operands"},
	{"synth3", "mkconst(7, type=64, semantics=counter, units=\"count / sec\")", "64-bit int | PM_INDOM_NULL | counter | count / sec"},
	{"synth3", "mkconst(2.5, type=double)", "double | PM_INDOM_NULL | discrete | none"},
	{"synth3", "42", "32-bit unsigned int | PM_INDOM_NULL | discrete | none"},
	{"sample3", "sample.seconds / sample.milliseconds", "ERR sample.seconds / sample.milliseconds: Illegal operator for counters"},
	{"sample3", "sample.seconds - sample.milliseconds", "double | PM_INDOM_NULL | counter | sec"},
	{"sample3", "sample.milliseconds - sample.seconds", "double | PM_INDOM_NULL | counter | sec"},
	{"sample3", "sample.step - sample.seconds", "ERR sample.step - sample.seconds: Illegal operator for non-counter and counter"},
	{"sample3", "sample.mirage > sample.seconds", "ERR sample.mirage > sample.seconds: Non-counter and not dimensionless for left operand"},
	{"sample3", "sample.seconds > sample.step", "ERR sample.seconds > sample.step: Non-counter and not dimensionless for right operand"},
	{"sample3", "sample.mirage > pmcd.seqnum", "32-bit unsigned int | 29.3 | instant | none"},
	{"sample3", "sample.mirage > sample.step", "ERR sample.mirage > sample.step: Dimensions are not the same"},
	{"sample3", "sample.float.ten > sample.step", "32-bit unsigned int | PM_INDOM_NULL | instant | none"},
	{"sample3", "sample.step + sample.double.million", "double | PM_INDOM_NULL | instant | count"},
	{"sample3", "sample.mirage * sample.float.bin", "ERR sample.mirage * sample.float.bin: Operands should have the same instance domain"},
	{"sample3", "sample.mirage / sample.ulong.count.kilo", "double | 29.3 | instant | Mbyte^2 / sec count x 10^3"},
	{"sample3", "sample.ulong.count.kilo * sample.ulong.count.kilo", "32-bit unsigned int | PM_INDOM_NULL | instant | count x 10^3^2 / Mbyte^2"},
	{"sample3", "sample.step * sample.ulong.count.kilo", "double | PM_INDOM_NULL | instant | count x 10^3^2 / Mbyte"},
	{"sample3", "sample.ulong.count.kilo / sample.step", "double | PM_INDOM_NULL | instant | / Mbyte"},
	{"sample3", "rate(sample.mirage)", "ERR RATE(sample.mirage): Incorrect time dimension for operand"},
	{"sample3", "rate(sample.ulong.count.kilo)", "double | PM_INDOM_NULL | instant | count x 10^3 / Mbyte sec"},
	{"sample3", "avg(sample.aggregate.hullo)", "ERR AVG(sample.aggregate.hullo): Non-arithmetic operand for function"},
	{"sample3", "count(sample.event.records)", "32-bit unsigned int | PM_INDOM_NULL | instant | count"},
	{"sample3", "sample.event.param_u64 + sample.event.param_64", "64-bit unsigned int | PM_INDOM_NULL | instant | none"},
	{"sample3", "sample.event.param_32 * sample.event.param_u64", "64-bit unsigned int | PM_INDOM_NULL | instant | none"},
	{"sample3", "sample.float.ten - sample.event.param_64", "float | PM_INDOM_NULL | instant | none"},
	{"sample3", "sample.bad.nosupport + 1", "ERR sample.bad.nosupport + 1: Non-arithmetic type for left operand"},
	{"sample3", "-sample.event.param_u64", "64-bit int | PM_INDOM_NULL | instant | none"},
	{"sample3", "delta(sample.event.param_u64)", "double | PM_INDOM_NULL | instant | none"},
	{"sample3", "1 ? -pmcd.pmlogger.port : sample.mirage", "ERR <expr> : sample.mirage: Different instance domains for ternary operands"},
	{"sample3", "1 ? sample.mirage : sample.float.bin", "ERR sample.mirage : sample.float.bin: Different types for ternary operands"},
	{"sample3", "1 ? sample.step : rescale(sample.step, \"count x 10^3\")", "ERR sample.step : <expr>: Different units or scale (count) for ternary operands"},
	{"sample3", "1 ? sample.mirage : rescale(sample.mirage, \"Mbyte/sec\")", "ERR sample.mirage : <expr>: Different units or scale (space) for ternary operands"},
	{"sample3", "1 ? rescale(sample.mirage, \"Kbyte/min\") : sample.mirage", "ERR <expr> : sample.mirage: Different units or scale (time) for ternary operands"},
	{"sample3", "1 ? sample.seconds : sample.wrap.ulong", "ERR sample.seconds : sample.wrap.ulong: Different units or scale (time) for ternary operands"},
	{"sample3", "pmcd.pmlogger.port ? sample.mirage : sample.mirage", "32-bit int | 29.3 | instant | Kbyte / sec"},
	{"sample3", "sample.mirage ? 1 : 2", "ERR sample.mirage ? 1 : 2: Non-scalar ternary guard with scalar expressions"},
	{"sample3", "rescale(sample.string.hullo, \"Kbyte\")", "ERR sample.string.hullo RESCALE Kbyte: Non-arithmetic operand for function"},
	{"sample3", "sample.mirage[red] + sample.mirage[green]", "32-bit int | 29.3 | instant | Kbyte / sec"},
	{"manpage3", "network.interface.speed - delta(network.interface.in.bytes) / delta(sample.milliseconds)", "double | 60.3 | instant | Mbyte / sec"},
	{"manpage3", "delta(network.interface.in.bytes) / delta(sample.milliseconds)", "double | 60.3 | instant | byte / millisec"},
	{"manpage3", "delta(sample.milliseconds)", "double | PM_INDOM_NULL | instant | millisec"},
	{"manpage3", "delta(disk.dev.total_bytes) / delta(disk.dev.total)", "double | 60.1 | instant | Kbyte / count"},
	{"manpage3", "mem.util.free > mkconst(10485760, units=Kbyte)", "32-bit unsigned int | PM_INDOM_NULL | instant | none"},
	{"manpage3", "delta(disk.dev.total) == 0 ? mkconst(1.0, semantics=instant, units=\"kbyte / count\") : delta(disk.dev.total_bytes) / delta(disk.dev.total)", "double | 60.1 | instant | Kbyte / count"},
	{"manpage3", "rescale(network.interface.total.bytes, \"Mbytes/hour\")", "ERR network.interface.total.bytes RESCALE Mbyte / hour: Incompatible dimensions"},
	{"manpage3", "rescale(rate(network.interface.total.bytes), \"Mbytes/hour\")", "double | 60.3 | instant | Mbyte / hour"},
	{"manpage3", "network.interface.in.bytes[eth1] + network.interface.total.bytes[eth1]", "64-bit unsigned int | 60.3 | counter | byte"},
	{"manpage3", "(network.interface.in.bytes + network.interface.total.bytes)[eth1]", "64-bit unsigned int | 60.3 | counter | byte"},
	{"manpage3", "matchinst(!/^(lo)|(vbir)/, network.interface.in.bytes)", "64-bit unsigned int | 60.3 | counter | byte"},
	{"manpage3", "scalar(network.interface.in.bytes[eth0]) + scalar(network.interface.total.bytes[eth0])", "64-bit unsigned int | PM_INDOM_NULL | counter | byte"},
	{"manpage3", "network.interface.in.bytes + disk.dev.total_bytes", "ERR network.interface.in.bytes + disk.dev.total_bytes: Operands should have the same instance domain"},
}
