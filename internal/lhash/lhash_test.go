package lhash

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The descriptor order the real pmdumplog -d prints for
// ../shared/pcp-made-archives/synth3 (PMIDs added in .meta order
// 245.0.1 ... 245.0.7) is 245.0.7 down to 245.0.1: with 7 nodes the table
// still has one bucket, and each add goes to the head of the chain.
func TestSmallTableIsNewestFirst(t *testing.T) {
	h := New()
	var want []uint32
	for i := uint32(1); i <= 7; i++ {
		h.Add(0x3d400000 + i)
		want = append([]uint32{0x3d400000 + i}, want...)
	}
	h.Add(0x3d400003) // duplicates are ignored
	if d := cmp.Diff(want, h.Keys()); d != "" {
		t.Fatalf("order (-want +got):\n%s", d)
	}
}

// TestGrowth checks the resize rule: at 8 nodes the table grows from 1 to
// 2*1 -> +2 (not divisible by 3) -> +2 (not divisible by 5) = 6 buckets.
func TestGrowth(t *testing.T) {
	h := New()
	for i := uint32(0); i < 8; i++ {
		h.Add(i)
	}
	if len(h.buckets) != 6 {
		t.Fatalf("buckets = %d, want 6", len(h.buckets))
	}
	// The old chain (6,5,...,0, newest first) is pushed node by node onto
	// the new buckets' heads, so bucket 0 ends up 0 then 6; then 7 goes
	// to the head of bucket 1.
	want := []uint32{0, 6, 7, 1, 2, 3, 4, 5}
	if d := cmp.Diff(want, h.Keys()); d != "" {
		t.Fatalf("order (-want +got):\n%s", d)
	}
}
