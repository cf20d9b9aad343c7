package logreduce

import (
	"math"
	"testing"
)

// TestInstMap: instances by position (PM_IN_NULL and the small ones)
// and by map (negative and large ones) read back what was set, and an
// instance never set is not there.
func TestInstMap(t *testing.T) {
	var im instMap
	insts := []int32{-1, 0, 5, maxDenseInst - 1, maxDenseInst, -2, math.MaxInt32, math.MinInt32, 3}
	for i, inst := range insts {
		im.set(inst, int32(i))
	}
	for i, inst := range insts {
		if n, ok := im.get(inst); !ok || n != int32(i) {
			t.Errorf("get(%d) = %d, %v; want %d, true", inst, n, ok, i)
		}
	}
	for _, inst := range []int32{1, 4, 6, maxDenseInst + 1, -3, math.MaxInt32 - 1} {
		if n, ok := im.get(inst); ok {
			t.Errorf("get(%d) = %d, true for an instance never set", inst, n)
		}
	}
	if len(im.dense) > maxDenseInst+1 {
		t.Errorf("%d positions for instances below %d", len(im.dense), maxDenseInst)
	}
}
