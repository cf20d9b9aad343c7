package loggerconf

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/pcpkit/pcpkit/internal/cnum"
)

// Access operations (pmlogger's PM_OP_LOG_*).
const (
	opAdvisory  = 0x1
	opMandatory = 0x2
	opEnquire   = 0x4
	opAll       = 0x7
)

// Masks returns the operation masks pmlogger's grammar gives
// __pmAccAddHost for the rule: the operations the rule speaks about
// (specOps) and those it denies (denyOps, as the grammar computes it:
// for "allow" the complement of the listed operations).
func (r AccessRule) Masks() (specOps, denyOps uint32) {
	var listed uint32
	all := false
	for _, op := range r.Ops {
		switch op {
		case "advisory":
			listed |= opAdvisory
		case "mandatory":
			listed |= opMandatory
		case "enquire":
			listed |= opEnquire
		case "all":
			all = true
		}
	}
	switch {
	case all && !r.Except:
		specOps = opAll
		if r.Allow {
			denyOps = 0
		} else {
			denyOps = opAll
		}
	case all: // all except ...
		specOps = opAll
		denyOps = listed
		if !r.Allow {
			denyOps = ^listed
		}
	default:
		specOps = listed
		denyOps = listed
		if r.Allow {
			denyOps = ^listed
		}
	}
	return
}

// accSpec is one access specification a host pattern expands to.
type accSpec struct {
	name   string
	family int    // 4, 6 or 0 for unix
	addr   string // canonical address (or "/" for unix)
	level  int
}

type accEntry struct {
	accSpec
	specOps, denyOps uint32
}

// accessList mirrors libpcp's host access list as pmlogger builds it
// from the [access] section.
type accessList struct {
	hosts   []accEntry
	resolve func(string) ([]net.IP, error)
	notify  func(level, msg string) // level "Error" or "Warning"
}

// SystemResolveHost resolves a host name with the system resolver (5 s
// limit), as __pmGetAddrInfo does.
func SystemResolveHost(host string) ([]net.IP, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupIPAddr(ctx, host)
	if err != nil {
		return nil, err
	}
	ips := make([]net.IP, len(addrs))
	for i, a := range addrs {
		ips[i] = a.IP
	}
	return ips, nil
}

// inetAton parses a dotted IPv4 address as glibc's inet_aton does for
// the four-part forms the lexer lets through (octal with a leading 0).
func inetAton(s string) net.IP {
	parts := strings.Split(s, ".")
	if len(parts) != 4 {
		return nil
	}
	ip := make(net.IP, 4)
	for i, p := range parts {
		base := 10
		if len(p) > 1 && p[0] == '0' {
			base = 8
		}
		v, err := strconv.ParseUint(p, base, 32)
		if err != nil || v > 255 {
			return nil
		}
		ip[i] = byte(v)
	}
	return ip
}

// numericHost is getaddrinfo's numeric parse.
func numericHost(s string) net.IP {
	if ip := inetAton(s); ip != nil {
		return ip
	}
	if strings.Contains(s, ":") {
		if ip := net.ParseIP(s); ip != nil {
			return ip
		}
	}
	return nil
}

// unixSpec is getUnixSpec: any leading '/' and a final '*' are accepted,
// anything else is a path that is ignored with a warning.
func (a *accessList) unixSpec(path string) accSpec {
	p := strings.TrimLeft(path, "/")
	p = strings.TrimSuffix(p, "*")
	if p != "" {
		a.notify("Warning", fmt.Sprintf("Ignoring the path in host pattern \"%s\"", path))
	}
	return accSpec{name: "unix:", family: 0, addr: "/", level: 1}
}

// inetWildcard is parseInetWildCard.
func (a *accessList) inetWildcard(name string) (accSpec, bool) {
	level := 4
	p := name
	if strings.HasPrefix(p, ".") {
		p = p[1:]
		if !strings.HasPrefix(p, "*") {
			a.notify("Error", fmt.Sprintf("Bad IP address wildcard, %s", name))
			return accSpec{}, false
		}
	}
	var comps []string
	for p != "" && p[0] != '*' {
		n, rest := cnum.StrtolBase(p, 10)
		if rest == "" || (rest[0] != '.' && rest[0] != '*') || n < 0 || n > 255 {
			a.notify("Error", fmt.Sprintf("Bad IP address wildcard, %s", name))
			return accSpec{}, false
		}
		comps = append(comps, strconv.FormatInt(n, 10))
		level--
		if level < 1 {
			a.notify("Error", fmt.Sprintf("Too many dots in host pattern \"%s\"", name))
			return accSpec{}, false
		}
		p = rest
		if p[0] == '.' {
			p = p[1:]
		}
	}
	for len(comps) < 4 {
		comps = append(comps, "0")
	}
	return accSpec{name: name, family: 4, addr: strings.Join(comps, "."), level: level}, true
}

// ipv6Wildcard is parseIPv6WildCard.
func (a *accessList) ipv6Wildcard(name string) (accSpec, bool) {
	level := 8
	empty := false
	var b strings.Builder
	p := name
	if p[0] == ':' {
		p = p[1:]
		if p == "" || p[0] != '*' {
			if p == "" || p[0] != ':' {
				a.notify("Error", fmt.Sprintf("Bad IPv6 address wildcard, %s", name))
				return accSpec{}, false
			}
			b.WriteString(":")
		}
	}
	for p != "" && p[0] != '*' {
		if p[0] == ':' {
			if empty {
				a.notify("Error", fmt.Sprintf("Too many empty regions in host pattern \"%s\"", name))
				return accSpec{}, false
			}
			empty = true
			b.WriteString(":")
			p = p[1:]
		} else {
			n, rest := cnum.StrtolBase(p, 16)
			if rest == "" || (rest[0] != ':' && rest[0] != '*') || n < 0 || n > 0xffff {
				a.notify("Error", fmt.Sprintf("Bad IPv6 address wildcard, %s", name))
				return accSpec{}, false
			}
			if b.Len() != 0 {
				b.WriteString(":")
			}
			b.WriteString(strconv.FormatInt(n, 16))
			p = rest
			if p[0] == ':' {
				p = p[1:]
			}
		}
		level--
		if level < 1 {
			a.notify("Error", fmt.Sprintf("Too many colons in host pattern \"%s\"", name))
			return accSpec{}, false
		}
	}
	addr := b.String()
	switch {
	case level == 8 || level == 7 && empty:
		addr, level = "::", 8
	case empty:
		addr += ":0"
	default:
		addr += "::"
	}
	if ip := net.ParseIP(addr); ip != nil {
		addr = ip.String()
	}
	return accSpec{name: name, family: 6, addr: addr, level: level}, true
}

// specs is getHostAccessSpecs; nil when the pattern is bad or does not
// resolve (the reason has been notified).
func (a *accessList) specs(name string) []accSpec {
	if name == "*" {
		in, _ := a.inetWildcard(".*")
		in6, _ := a.ipv6Wildcard(":*")
		return []accSpec{in, in6, a.unixSpec("*")}
	}
	if i := strings.IndexByte(name, '*'); i >= 0 && i != len(name)-1 {
		a.notify("Error", fmt.Sprintf("Wildcard in host pattern \"%s\" is not at the end", name))
		return nil
	}
	var specs []accSpec
	if strings.HasPrefix(name, "local:") || strings.HasPrefix(name, "unix:") {
		specs = append(specs, a.unixSpec(name[strings.IndexByte(name, ':')+1:]))
		if name[0] == 'u' {
			return specs
		}
		name = "localhost"
	} else if strings.HasSuffix(name, "*") {
		var s accSpec
		ok := false
		switch {
		case strings.Contains(name, ":"):
			s, ok = a.ipv6Wildcard(name)
		case strings.Contains(name, "."):
			s, ok = a.inetWildcard(name)
		default:
			a.notify("Error", fmt.Sprintf("Bad IP address wildcard, %s", name))
		}
		if !ok {
			return nil
		}
		return []accSpec{s}
	}
	realname := name
	if strings.EqualFold(name, "localhost") {
		h, err := os.Hostname()
		if err != nil {
			a.notify("Error", "Can't get host name/IP address, giving up")
			return nil
		}
		realname = h
	}
	var ips []net.IP
	if ip := numericHost(realname); ip != nil {
		ips = []net.IP{ip}
	} else {
		var err error
		ips, err = a.resolve(realname)
		if err != nil || len(ips) == 0 {
			a.notify("Error", fmt.Sprintf("__pmGetAddrInfo(%s), Unknown host", realname))
			if len(specs) > 0 {
				return specs
			}
			return nil
		}
	}
	seen := map[string]bool{}
	for _, ip := range ips {
		fam := 6
		if ip4 := ip.To4(); ip4 != nil {
			fam, ip = 4, ip4
		}
		key := strconv.Itoa(fam) + ip.String()
		if seen[key] {
			continue
		}
		seen[key] = true
		specs = append(specs, accSpec{name: name, family: fam, addr: ip.String(), level: 0})
	}
	return specs
}

// add is __pmAccAddHost: false when nothing was added (pmlogger then
// stops with "error was on line N").
func (a *accessList) add(name string, specOps, denyOps uint32) bool {
	specs := a.specs(name)
	if specs == nil {
		return false
	}
	found := 0
	prevName, prevHost := "", ""
	havePrev := false
	for _, s := range specs {
		i := 0
		match := false
		for ; i < len(a.hosts); i++ {
			h := &a.hosts[i]
			if h.level > s.level {
				break
			}
			if h.family == s.family && h.addr == s.addr && h.level == s.level {
				match = true
				break
			}
		}
		if match {
			h := &a.hosts[i]
			if h.specOps&specOps != 0 && (h.specOps&h.denyOps)^(specOps&denyOps) != 0 {
				if !havePrev || prevName != s.name || prevHost != h.name {
					a.notify("Error", fmt.Sprintf("Permission clash for %s with earlier statement for %s", s.name, h.name))
					prevName, prevHost, havePrev = s.name, h.name, true
				}
				continue
			}
			h.specOps |= specOps
			h.denyOps |= specOps & denyOps
		} else {
			e := accEntry{accSpec: s, specOps: specOps, denyOps: specOps & denyOps}
			a.hosts = append(a.hosts, accEntry{})
			copy(a.hosts[i+1:], a.hosts[i:])
			a.hosts[i] = e
		}
		found++
	}
	return found != 0
}
