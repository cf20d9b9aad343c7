package pmapi

import (
	"errors"
	"math"
	"testing"
)

// TestFloat64 checks pmExtractValue's rules (libpcp units.c, to
// PM_TYPE_DOUBLE) on the blocks of docs/format.md and on the ones the
// real pmval -U refuses (internal/pmval's TestInteropExtract).
func TestFloat64(t *testing.T) {
	be := func(b ...byte) []byte { return b }
	for _, c := range []struct {
		name string
		t    Type
		v    Value
		want float64 // NaN: ErrConv
	}{
		{"32 insitu", Type32, Value{Insitu: -5}, -5},
		{"unknown insitu", TypeUnknown, Value{Insitu: -5}, -5},
		{"U32 insitu", TypeU32, Value{Insitu: -1}, 4294967295},
		// 960624.08.17_v2: kernel.all.load 40ee0000
		{"old FLOAT insitu", TypeFloat, Value{Insitu: 0x40ee0000}, 7.4375},
		{"64 insitu", Type64, Value{Insitu: 1}, math.NaN()},
		{"DOUBLE insitu", TypeDouble, Value{Insitu: 1}, math.NaN()},
		{"STRING insitu", TypeString, Value{Insitu: 1}, math.NaN()},
		// synth3.0: 0300000c 00000000 000003e8, 0500000c 40240000 00000000, 04000008 3fc00000
		{"U64 block", TypeU64, Value{BlockType: TypeU64, Block: be(0, 0, 0, 0, 0, 0, 3, 0xe8)}, 1000},
		{"U64 top bit", TypeU64, Value{BlockType: TypeU64, Block: be(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff)}, 18446744073709551615},
		{"64 block", Type64, Value{BlockType: Type64, Block: be(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfd)}, -3},
		{"DOUBLE block", TypeDouble, Value{BlockType: TypeDouble, Block: be(0x40, 0x24, 0, 0, 0, 0, 0, 0)}, 10},
		{"FLOAT block", TypeFloat, Value{BlockType: TypeFloat, Block: be(0x3f, 0xc0, 0, 0)}, 1.5},
		// an untyped block (very old archives) is read as it is
		{"untyped U64", TypeU64, Value{BlockType: 0, Block: be(0xe8, 3, 0, 0, 0, 0, 0, 0)}, 1000},
		{"untyped DOUBLE", TypeDouble, Value{BlockType: 0, Block: be(0, 0, 0, 0, 0, 0, 0x24, 0x40)}, 10},
		{"untyped FLOAT", TypeFloat, Value{BlockType: 0, Block: be(0, 0, 0xc0, 0x3f)}, 1.5},
		// refused: another type, another size, a type with no double
		{"DOUBLE in a U64 block", TypeDouble, Value{BlockType: TypeU64, Block: be(0x40, 0x24, 0, 0, 0, 0, 0, 0)}, math.NaN()},
		{"DOUBLE in an AGGREGATE block", TypeDouble, Value{BlockType: TypeAggregate, Block: be(0x40, 0x24, 0, 0, 0, 0, 0, 0)}, math.NaN()},
		{"DOUBLE of 12 bytes", TypeDouble, Value{BlockType: TypeDouble, Block: make([]byte, 12)}, math.NaN()},
		{"U64 of 4 bytes", TypeU64, Value{BlockType: TypeU64, Block: make([]byte, 4)}, math.NaN()},
		{"FLOAT of 8 bytes", TypeFloat, Value{BlockType: TypeFloat, Block: make([]byte, 8)}, math.NaN()},
		{"FLOAT in a DOUBLE block", TypeFloat, Value{BlockType: TypeDouble, Block: make([]byte, 4)}, math.NaN()},
		{"32 in a block", Type32, Value{BlockType: Type32, Block: make([]byte, 4)}, math.NaN()},
		{"STRING", TypeString, Value{BlockType: TypeString, Block: be('a', 0)}, math.NaN()},
	} {
		got, err := c.v.Float64(c.t)
		if math.IsNaN(c.want) {
			if !errors.Is(err, ErrConv) {
				t.Errorf("%s: Float64 = %v, %v; want PM_ERR_CONV", c.name, got, err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s: Float64 = %v, %v; want %v", c.name, got, err, c.want)
		}
	}
}

func TestHostUint(t *testing.T) {
	b := []byte{1, 2, 3, 4, 5, 6, 7, 8}
	for _, c := range []struct {
		bt  Type
		u64 uint64
		u32 uint32
	}{
		{Type64, 0x0102030405060708, 0x04030201},
		{TypeU64, 0x0102030405060708, 0x04030201},
		{TypeDouble, 0x0102030405060708, 0x04030201},
		{TypeFloat, 0x0807060504030201, 0x01020304},
		{TypeAggregate, 0x0807060504030201, 0x04030201},
		{0, 0x0807060504030201, 0x04030201},
	} {
		v := Value{BlockType: c.bt, Block: b}
		if got := v.HostUint64(); got != c.u64 {
			t.Errorf("block type %v: HostUint64 %#x, want %#x", c.bt, got, c.u64)
		}
		if got := v.HostUint32(); got != c.u32 {
			t.Errorf("block type %v: HostUint32 %#x, want %#x", c.bt, got, c.u32)
		}
	}
}
