package pcp2arrow

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/pcpkit/pcpkit/internal/getopt"
	"github.com/pcpkit/pcpkit/internal/pcpconf"
	"github.com/pcpkit/pcpkit/internal/pmrepconf"
)

// defaultConfig are upstream pcp2arrow's configuration files, the first
// found of them read when -c is not given.
var defaultConfig = []string{"./pcp2arrow.conf", "$HOME/.pcp2arrow.conf", "$HOME/.pcp/pcp2arrow.conf", "$PCP_SYSCONF_DIR/pcp2arrow.conf"}

// configKeys are the keys of upstream pcp2arrow's [options] section,
// and pmrep's scale keys (pcpkit's: upstream pcp2arrow has no unit
// options). pcp2arrow applies samples, interval, type, type_prefer,
// instances, live_filter, invert_filter, rank, limit_filter,
// limit_filter_force, version and the scales; the others (a live
// source, daemon, labels in pmrep's outputs) are accepted and change
// nothing.
var configKeys = []string{"source", "output", "samples", "interval", "type", "daemonize", "version",
	"type_prefer", "limit_filter", "limit_filter_force", "live_filter", "rank", "invert_filter",
	"names_change", "speclocal", "instances", "include_labels",
	"count_scale", "count_scale_force", "space_scale", "space_scale_force", "time_scale", "time_scale_force"}

func isConfigKey(k string) bool { return slices.Contains(configKeys, k) }

// loadConfig reads the configuration file (the last -c of evs, else the
// default one) and applies the options of its [options] section and of
// the metricsets the operands name to o, as pmrep does before the
// command line's options. It returns the configuration (nil: none) or
// pmrep's message.
func loadConfig(o *options, evs []getopt.Event, operands []string) (*pmrepconf.Config, string) {
	path := ""
	for _, ev := range evs {
		if ev.Short == 'c' && ev.Err == "" {
			path = ev.Arg
		}
	}
	if path == "" {
		path = pmrepconf.DefaultPath(defaultConfig, pcpconf.Get("PCP_SYSCONF_DIR", "/etc/pcp"))
		if path == "" {
			return nil, ""
		}
	}
	conf, err := pmrepconf.Load(path)
	if err != nil {
		return nil, err.Error()
	}
	opts, err := conf.Options(operands, isConfigKey)
	if err != nil {
		return nil, err.Error()
	}
	for _, kv := range opts {
		if msg := o.setConfigOption(kv.Key, kv.Value); msg != "" {
			return nil, msg
		}
	}
	return conf, ""
}

// setConfigOption applies the configuration key k with value v as
// pmconfig's set_attr does (yes/no words as 1/0, quotes around a text
// dropped), and returns pmrep's complaint.
func (o *options) setConfigOption(k, v string) string {
	switch v {
	case "true", "True", "y", "yes", "Yes":
		v = "1"
	case "false", "False", "n", "no", "No":
		v = "0"
	}
	text := v
	if _, err := strconv.Atoi(strings.TrimSpace(v)); err != nil && len(v) >= 2 && strings.HasPrefix(v, `"`) && strings.HasSuffix(v, `"`) {
		text = v[1 : len(v)-1]
	}
	truth := func() bool {
		if n, err := strconv.Atoi(strings.TrimSpace(text)); err == nil {
			return n != 0
		}
		return text != ""
	}
	var short rune
	switch k {
	case "samples":
		short = 's'
	case "interval":
		short = 't'
	case "type":
		o.Raw = v == "raw"
	case "type_prefer":
		o.RawPrefer = v == "raw"
	case "instances":
		o.Instances = strings.Split(v, ",")
	case "live_filter":
		o.LiveFilter = truth()
	case "invert_filter":
		o.InvertFilter = truth()
	case "rank":
		short = 'J'
	case "limit_filter":
		short = '8'
	case "limit_filter_force":
		short = '9'
	case "count_scale":
		short = 'q'
	case "count_scale_force":
		short = 'Q'
	case "space_scale":
		short = 'b'
	case "space_scale_force":
		short = 'B'
	case "time_scale":
		short = 'y'
	case "time_scale_force":
		short = 'Y'
	case "version":
		if text != "1" {
			return fmt.Sprintf("Incompatible configuration file version (read v%s, need v1).\n", text)
		}
	}
	if short != 0 {
		if _, msg := o.ParseOption(short, text); msg != "" {
			return "pcp2arrow: " + msg + "\n"
		}
	}
	return ""
}

// setMetrics sets o's metrics from the operands: metricsets (":name") of
// the configuration conf and compact metricspecs among them, and conf's
// [global] metrics. It returns pmrep's message for a bad metricset.
func (o *options) setMetrics(conf *pmrepconf.Config, operands []string) string {
	if conf == nil {
		conf = &pmrepconf.Config{}
	}
	names, specs, derived, err := conf.Metrics(operands, isConfigKey)
	if err != nil {
		return err.Error()
	}
	o.Metrics, o.Specs = names, specs
	o.Derived += derived
	return ""
}
