package interp

import (
	"encoding/binary"
	"math"

	"github.com/pcpkit/pcpkit/pmapi"
)

// valueOf sets out to the value of instance ic at treq, which the checks
// in Fetch have found to have the bounds its semantics need; false when
// it has none.
func (ip *Interp) valueOf(out *pmapi.Value, m *metric, ic *inst, treq float64) bool {
	*out = pmapi.Value{Inst: ic.id}
	typ := m.desc.Type
	switch typ {
	case pmapi.Type32, pmapi.TypeU32:
		w, ok := ip.word(m, ic, treq)
		out.Insitu = w
		return ok
	case pmapi.TypeFloat:
		if m.valfmt == pmapi.ValFmtInsitu {
			w, ok := ip.word(m, ic, treq)
			out.Insitu = w
			return ok
		}
		b, ok := ip.wide(m, ic, treq, 4)
		out.BlockType, out.Block = pmapi.TypeFloat, b
		return ok
	case pmapi.Type64, pmapi.TypeU64, pmapi.TypeDouble:
		b, ok := ip.wide(m, ic, treq, 8)
		out.BlockType, out.Block = typ, b
		return ok
	case pmapi.TypeString, pmapi.TypeAggregate, pmapi.TypeEvent, pmapi.TypeHighresEvent:
		if ic.tPrior < 0 || !ic.vPrior.isBlk {
			return false
		}
		out.BlockType = ic.vPrior.btype
		out.Block = ip.block(len(ic.vPrior.block))
		if out.Block == nil {
			// an empty block stays a block (sample.aggregate.null)
			out.Block = []byte{}
		}
		copy(out.Block, ic.vPrior.block)
		return true
	}
	return false
}

// step is the held value a DISCRETE or INSTANT metric takes at treq
// (between its bounds, neither at treq), by the interpolation rule:
//
//   - PriorRule (libpcp 6.0.3): the prior value. A DISCRETE metric needs
//     only the prior; an INSTANT metric needs both bounds.
//   - NearestRule (libpcp 6.3.2 and later): the nearer of the two, the
//     prior when treq is at or before the midpoint of the bounds. An
//     INSTANT metric still needs both bounds; a DISCRETE metric whose next
//     bound is not a value (a <mark>, or none found) takes the prior.
func (ip *Interp) step(m *metric, ic *inst, treq float64) (*value, bool) {
	if ic.tPrior < 0 {
		return nil, false
	}
	if m.desc.Sem == pmapi.SemInstant && ic.tNext < 0 {
		return nil, false
	}
	if ip.rule != NearestRule {
		return &ic.vPrior, true
	}
	if m.desc.Sem == pmapi.SemDiscrete && !isValue(ic.sNext) || treq <= (ic.tPrior+ic.tNext)/2 {
		return &ic.vPrior, true
	}
	return &ic.vNext, true
}

// word is the value of a metric held in the 32-bit word: 32, U32, and
// FLOAT values of old archives.
func (ip *Interp) word(m *metric, ic *inst, treq float64) (int32, bool) {
	if ic.tPrior == treq {
		return ic.vPrior.insitu, true
	}
	if ic.tNext == treq {
		return ic.vNext.insitu, true
	}
	switch m.desc.Sem {
	case pmapi.SemDiscrete, pmapi.SemInstant:
		v, ok := ip.step(m, ic, treq)
		if !ok {
			return 0, false
		}
		return v.insitu, true
	}
	if ic.tPrior < 0 || ic.tNext < 0 {
		return 0, false
	}
	dt, span := treq-ic.tPrior, ic.tNext-ic.tPrior
	p, n := ic.vPrior.insitu, ic.vNext.insitu
	switch m.desc.Type {
	case pmapi.Type32:
		if n >= p || !ip.wrap {
			return toInt32(0.5 + float64(p) + float64(dt*float64(n-p))/span), true
		}
		// libpcp adds the prior to the following slot, not this one.
		return toInt32(0.5 + float64(dt*float64(int32(uint32(math.MaxUint32)-uint32(p)+1+uint32(n))))/span), true
	case pmapi.TypeU32:
		up, un := uint32(p), uint32(n)
		switch {
		case un >= up:
			return int32(toUint32(0.5 + float64(up) + float64(dt*float64(un-up))/span)), true
		case ip.wrap:
			v := toUint32(0.5 + float64(dt*float64(math.MaxUint32-up+1+un))/span)
			return int32(v + up), true
		default:
			return int32(toUint32(0.5 + float64(up) - float64(dt*float64(up-un))/span)), true
		}
	case pmapi.TypeFloat:
		fp := math.Float32frombits(uint32(p))
		fn := math.Float32frombits(uint32(n))
		f := float32(float64(fp) + float64(dt*float64(fn-fp))/span)
		return int32(math.Float32bits(f)), true
	}
	return 0, false
}

// wide is the value block (big-endian payload of size bytes) of a 64-bit
// integer, DOUBLE or FLOAT metric.
func (ip *Interp) wide(m *metric, ic *inst, treq float64, size int) ([]byte, bool) {
	from := func(v *value) ([]byte, bool) {
		if !v.isBlk || len(v.block) < size {
			return nil, false
		}
		out := ip.block(size)
		if size == 8 {
			binary.BigEndian.PutUint64(out, v.host64())
		} else {
			binary.BigEndian.PutUint32(out, v.host32())
		}
		return out, true
	}
	if ic.tPrior == treq {
		return from(&ic.vPrior)
	}
	if ic.tNext == treq {
		return from(&ic.vNext)
	}
	switch m.desc.Sem {
	case pmapi.SemDiscrete, pmapi.SemInstant:
		v, ok := ip.step(m, ic, treq)
		if !ok {
			return nil, false
		}
		return from(v)
	}
	if ic.tPrior < 0 || ic.tNext < 0 || !ic.vPrior.isBlk || !ic.vNext.isBlk ||
		len(ic.vPrior.block) < size || len(ic.vNext.block) < size {
		return nil, false
	}
	dt, span := treq-ic.tPrior, ic.tNext-ic.tPrior
	out := ip.block(size)
	switch m.desc.Type {
	case pmapi.TypeFloat:
		fp := math.Float32frombits(ic.vPrior.host32())
		fn := math.Float32frombits(ic.vNext.host32())
		f := float32(float64(fp) + float64(dt*float64(fn-fp))/span)
		binary.BigEndian.PutUint32(out, math.Float32bits(f))
	case pmapi.TypeDouble:
		dp := math.Float64frombits(ic.vPrior.host64())
		dn := math.Float64frombits(ic.vNext.host64())
		d := dp + float64(dt*(dn-dp))/span
		binary.BigEndian.PutUint64(out, math.Float64bits(d))
	case pmapi.Type64:
		p := int64(ic.vPrior.host64())
		n := int64(ic.vNext.host64())
		d := n - p
		if n < p && ip.wrap {
			d = int64(math.MaxUint64 - uint64(p) + 1 + uint64(n))
		}
		v := toInt64(0.5 + float64(p) + float64(dt*float64(d))/span)
		binary.BigEndian.PutUint64(out, uint64(v))
	case pmapi.TypeU64:
		// libpcp 6.0.3 holds U64 values in signed variables: the
		// difference and the prior are signed here, and the result is
		// converted as C converts a double to an unsigned 64-bit
		// integer.
		p := int64(ic.vPrior.host64())
		n := int64(ic.vNext.host64())
		d := float64(n - p)
		if n < p && ip.wrap {
			// the wrapped difference is unsigned
			d = float64(math.MaxUint64 - uint64(p) + 1 + uint64(n))
		}
		v := toUint64(0.5 + float64(p) + float64(dt*d)/span)
		binary.BigEndian.PutUint64(out, v)
	default:
		return nil, false
	}
	return out, true
}

// host64 is the first 8 bytes of a held value block as libpcp holds them
// in memory (pmapi.Value.HostUint64).
func (v *value) host64() uint64 { return pmapi.Value{BlockType: v.btype, Block: v.block}.HostUint64() }

// host32 is host64 for the first 4 bytes (pmapi.Value.HostUint32).
func (v *value) host32() uint32 { return pmapi.Value{BlockType: v.btype, Block: v.block}.HostUint32() }

// block is a value block of size bytes for a result: carved from one
// allocation per Fetch (a result's blocks live as long as the result).
func (ip *Interp) block(size int) []byte {
	ip.arenaUsed += size
	if len(ip.arena) < size {
		ip.arena = make([]byte, max(ip.arenaHint, size, 64))
		ip.arenaHint = 0
	}
	b := ip.arena[:size:size]
	ip.arena = ip.arena[size:]
	return b
}
