package derive

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/pcpkit/pcpkit/pmapi"
)

// TestBlockWordIsHostUint: blockWord64 and blockWord32 (the copies this
// package had) are pmapi.Value.HostUint64 and HostUint32 on any block.
func TestBlockWordIsHostUint(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		v := pmapi.Value{BlockType: pmapi.Type(rapid.IntRange(0, 11).Draw(rt, "blocktype")), Block: rapid.SliceOfN(rapid.Byte(), 8, 16).Draw(rt, "payload")}
		if blockWord64(&v) != v.HostUint64() || blockWord32(&v) != v.HostUint32() {
			rt.Fatalf("blockWord %#x %#x, HostUint %#x %#x", blockWord64(&v), blockWord32(&v), v.HostUint64(), v.HostUint32())
		}
	})
}
