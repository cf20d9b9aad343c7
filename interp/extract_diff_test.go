package interp

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/pcpkit/pcpkit/pmapi"
)

// TestHostIsHostUint: host64 and host32 (the copies this package had)
// are pmapi.Value.HostUint64 and HostUint32 on any held block.
func TestHostIsHostUint(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		v := value{btype: pmapi.Type(rapid.IntRange(0, 11).Draw(rt, "blocktype")), block: rapid.SliceOfN(rapid.Byte(), 8, 16).Draw(rt, "payload"), isBlk: true}
		pv := pmapi.Value{BlockType: v.btype, Block: v.block}
		if v.host64() != pv.HostUint64() || v.host32() != pv.HostUint32() {
			rt.Fatalf("host %#x %#x, HostUint %#x %#x", v.host64(), v.host32(), pv.HostUint64(), pv.HostUint32())
		}
	})
}
