// Package pmapi holds the Performance Co-Pilot vocabulary that every other
// pcpkit package shares: metric identifiers (PMID), instance domains (InDom),
// value types, semantics, units, descriptors, timestamps, values and results,
// and the PCP error codes with their texts.
//
// The names follow PCP's pmapi.h so that a reader who knows libpcp finds the
// same concepts here, but the representation is Go's own.
package pmapi

import (
	"bytes"
	"fmt"
	"strconv"
)

// PMID identifies a performance metric: a domain (9 bits, the PMDA), a
// cluster (12 bits) and an item (10 bits), printed as "domain.cluster.item".
type PMID uint32

// PMIDNull is PM_ID_NULL, "no metric".
const PMIDNull PMID = 0xffffffff

// NewPMID builds a PMID from its parts.
func NewPMID(domain, cluster, item uint32) PMID {
	return PMID((domain&0x1ff)<<22 | (cluster&0xfff)<<10 | item&0x3ff)
}

// Domain is the PMDA's domain number.
func (p PMID) Domain() uint32 { return uint32(p) >> 22 & 0x1ff }

// Cluster is the metric's cluster within its domain.
func (p PMID) Cluster() uint32 { return uint32(p) >> 10 & 0xfff }

// Item is the metric's item within its cluster.
func (p PMID) Item() uint32 { return uint32(p) & 0x3ff }

// DynamicDomain is the PMID domain libpcp reserves for the roots of dynamic
// namespace subtrees (item 0) and for derived metrics (items from 1).
const DynamicDomain = 511

// String formats the PMID as pmIDStr does: "29.0.16", "PM_ID_NULL", or
// "40.*.*" for the root of a dynamic namespace subtree (domain 511, item 0,
// the subtree's PMDA domain in the cluster field).
func (p PMID) String() string {
	if p == PMIDNull {
		return "PM_ID_NULL"
	}
	b := make([]byte, 0, 16)
	if p.Domain() == DynamicDomain && p.Item() == 0 {
		b = strconv.AppendUint(b, uint64(p.Cluster()), 10)
		return string(append(b, ".*.*"...))
	}
	b = strconv.AppendUint(b, uint64(p.Domain()), 10)
	b = append(b, '.')
	b = strconv.AppendUint(b, uint64(p.Cluster()), 10)
	b = append(b, '.')
	b = strconv.AppendUint(b, uint64(p.Item()), 10)
	return string(b)
}

// InDom identifies an instance domain: a domain (9 bits) and a serial
// number (22 bits), printed as "domain.serial".
type InDom uint32

// InDomNull is PM_INDOM_NULL: the metric has a single value and no instances.
const InDomNull InDom = 0xffffffff

// NewInDom builds an InDom from its parts.
func NewInDom(domain, serial uint32) InDom {
	return InDom((domain&0x1ff)<<22 | serial&0x3fffff)
}

// Domain is the PMDA's domain number.
func (d InDom) Domain() uint32 { return uint32(d) >> 22 & 0x1ff }

// Serial is the instance domain's serial number within its domain.
func (d InDom) Serial() uint32 { return uint32(d) & 0x3fffff }

// String formats the InDom as pmInDomStr does: "29.3", or "PM_INDOM_NULL".
func (d InDom) String() string {
	if d == InDomNull {
		return "PM_INDOM_NULL"
	}
	return fmt.Sprintf("%d.%d", d.Domain(), d.Serial())
}

// InstNull is PM_IN_NULL, the instance of a value of a singular metric.
const InstNull int32 = -1

// Type is a metric value type (PM_TYPE_*).
type Type int32

// The value types.
const (
	TypeNoSupport     Type = -1  // PM_TYPE_NOSUPPORT
	Type32            Type = 0   // PM_TYPE_32
	TypeU32           Type = 1   // PM_TYPE_U32
	Type64            Type = 2   // PM_TYPE_64
	TypeU64           Type = 3   // PM_TYPE_U64
	TypeFloat         Type = 4   // PM_TYPE_FLOAT
	TypeDouble        Type = 5   // PM_TYPE_DOUBLE
	TypeString        Type = 6   // PM_TYPE_STRING
	TypeAggregate     Type = 7   // PM_TYPE_AGGREGATE
	TypeAggregateStat Type = 8   // PM_TYPE_AGGREGATE_STATIC
	TypeEvent         Type = 9   // PM_TYPE_EVENT
	TypeHighresEvent  Type = 10  // PM_TYPE_HIGHRES_EVENT
	TypeUnknown       Type = 255 // PM_TYPE_UNKNOWN
)

// String is the type name as pmTypeStr prints it ("32", "U64", "STRING", ...).
func (t Type) String() string {
	switch t {
	case TypeNoSupport:
		return "NOSUPPORT"
	case Type32:
		return "32"
	case TypeU32:
		return "U32"
	case Type64:
		return "64"
	case TypeU64:
		return "U64"
	case TypeFloat:
		return "FLOAT"
	case TypeDouble:
		return "DOUBLE"
	case TypeString:
		return "STRING"
	case TypeAggregate:
		return "AGGREGATE"
	case TypeAggregateStat:
		return "AGGREGATE_STATIC"
	case TypeEvent:
		return "EVENT"
	case TypeHighresEvent:
		return "HIGHRES_EVENT"
	case TypeUnknown:
		return "UNKNOWN"
	}
	return fmt.Sprintf("Type=%d?", int32(t))
}

// Sem is a metric's semantics (PM_SEM_*).
type Sem int32

// The semantics.
const (
	SemCounter  Sem = 1 // PM_SEM_COUNTER
	SemInstant  Sem = 3 // PM_SEM_INSTANT
	SemDiscrete Sem = 4 // PM_SEM_DISCRETE
)

// String names the semantics as pmSemStr does ("counter", "instant", "discrete").
func (s Sem) String() string {
	switch s {
	case SemCounter:
		return "counter"
	case SemInstant:
		return "instant"
	case SemDiscrete:
		return "discrete"
	}
	return "???"
}

// Desc is a metric descriptor (pmDesc).
type Desc struct {
	PMID  PMID
	Type  Type
	InDom InDom
	Sem   Sem
	Units Units
}

// Timestamp is a point in time with nanosecond precision, as archives of
// Version 3 store it (Version 2 stores microseconds).
type Timestamp struct {
	Sec  int64 // seconds since the Unix epoch
	Nsec int32 // nanoseconds, 0 <= Nsec < 1e9
}

// Before reports whether t is earlier than u.
func (t Timestamp) Before(u Timestamp) bool {
	return t.Sec < u.Sec || t.Sec == u.Sec && t.Nsec < u.Nsec
}

// Compare returns -1, 0 or +1 as t is before, equal to or after u.
func (t Timestamp) Compare(u Timestamp) int {
	switch {
	case t.Before(u):
		return -1
	case u.Before(t):
		return 1
	}
	return 0
}

// Add returns t advanced by ns nanoseconds (which may be negative).
func (t Timestamp) Add(ns int64) Timestamp {
	total := int64(t.Nsec) + ns%1e9
	sec := t.Sec + ns/1e9
	for total < 0 {
		total += 1e9
		sec--
	}
	for total >= 1e9 {
		total -= 1e9
		sec++
	}
	return Timestamp{Sec: sec, Nsec: int32(total)}
}

// Value formats for a value set (pmValueSet.valfmt).
const (
	ValFmtInsitu = 0 // PM_VAL_INSITU: the value is held in the 32-bit word
	ValFmtDptr   = 1 // PM_VAL_DPTR: the value is in a value block
	ValFmtSptr   = 2 // PM_VAL_SPTR: as DPTR, in a PDU
)

// Value is one instance's value in a value set. Insitu values (32-bit
// integers) are held in Insitu; other values are held in Block: the
// payload of a pmValueBlock (without its 4-byte header), with BlockType the
// type recorded in that header.
type Value struct {
	Inst      int32
	Insitu    int32
	BlockType Type
	Block     []byte
}

// ValueSet holds the values of one metric in a Result. NumVal is the count
// of values, or a negative PCP error code when the metric had no values
// because of an error; ValFmt tells whether the values are insitu or blocks.
type ValueSet struct {
	PMID   PMID
	NumVal int32
	ValFmt int32
	Values []Value
}

// Result is one sample: a timestamp and a value set per metric (pmResult).
// A Result with no value sets in an archive is a <mark> record.
type Result struct {
	Timestamp Timestamp
	VSets     []ValueSet
}

// IsMark reports whether r is a <mark> record (a gap in the recording).
func (r *Result) IsMark() bool { return len(r.VSets) == 0 }

// Equal reports whether r and o hold the same sample: the same time and,
// in order, value sets with the same PMIDs, counts and formats, and
// values with the same instances, insitu words, block types and block
// bytes (a nil block is not an empty one). Two nil Results are equal.
func (r *Result) Equal(o *Result) bool {
	if r == nil || o == nil {
		return r == o
	}
	if r.Timestamp != o.Timestamp || len(r.VSets) != len(o.VSets) {
		return false
	}
	for i := range r.VSets {
		x, y := &r.VSets[i], &o.VSets[i]
		if x.PMID != y.PMID || x.NumVal != y.NumVal || x.ValFmt != y.ValFmt || len(x.Values) != len(y.Values) {
			return false
		}
		for j := range x.Values {
			v, w := &x.Values[j], &y.Values[j]
			if v.Inst != w.Inst || v.Insitu != w.Insitu || v.BlockType != w.BlockType ||
				(v.Block == nil) != (w.Block == nil) || !bytes.Equal(v.Block, w.Block) {
				return false
			}
		}
	}
	return true
}
