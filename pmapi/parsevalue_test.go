package pmapi

import (
	"reflect"
	"strconv"
	"testing"
)

// TestParseValue covers __pmStringValue's conversions.
func TestParseValue(t *testing.T) {
	for _, c := range []struct {
		text string
		typ  Type
		want Value
		err  error
	}{
		{"3", Type32, Value{Insitu: 3}, nil},
		{"-3", Type32, Value{Insitu: -3}, nil},
		{"4294967295", TypeU32, Value{Insitu: -1}, nil},
		{"4294967296", TypeU32, Value{}, strconv.ErrRange},
		{"x", Type32, Value{}, ErrType},
		{"1", TypeU64, Value{BlockType: TypeU64, Block: []byte{0, 0, 0, 0, 0, 0, 0, 1}}, nil},
		{"1", TypeFloat, Value{BlockType: TypeFloat, Block: []byte{0x3f, 0x80, 0, 0}}, nil},
		{"ab", TypeString, Value{BlockType: TypeString, Block: []byte("ab\x00")}, nil},
		{"1", TypeAggregate, Value{}, ErrType},
	} {
		got, err := ParseValue(c.text, c.typ)
		if err != c.err {
			t.Errorf("ParseValue(%q, %v): error %v, want %v", c.text, c.typ, err, c.err)
			continue
		}
		if err == nil && !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseValue(%q, %v) = %+v, want %+v", c.text, c.typ, got, c.want)
		}
	}
}
