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
	if len(h.t.buckets) != 6 {
		t.Fatalf("buckets = %d, want 6", len(h.t.buckets))
	}
	// The old chain (6,5,...,0, newest first) is pushed node by node onto
	// the new buckets' heads, so bucket 0 ends up 0 then 6; then 7 goes
	// to the head of bucket 1.
	want := []uint32{0, 6, 7, 1, 2, 3, 4, 5}
	if d := cmp.Diff(want, h.Keys()); d != "" {
		t.Fatalf("order (-want +got):\n%s", d)
	}
}

// TestTableDuplicates: a search meets the newest of duplicate keys while
// the table has one bucket, and the oldest after a growth, because the
// growth moves each old chain head to tail onto the new heads (the order
// that decides which label set the real pmlogextract keeps).
func TestTableDuplicates(t *testing.T) {
	var d Table[string]
	for i, s := range []string{"a1", "b1", "a2", "b2"} {
		d.Add(uint32(i%2), s)
	}
	if v, _ := d.Search(0); v != "a2" {
		t.Errorf("before growth: %s, want the newest", v)
	}
	for i, s := range []string{"c", "d", "e", "f"} {
		d.Add(uint32(10+i), s)
	}
	if v, _ := d.Search(0); v != "a1" {
		t.Errorf("after growth: %s, want the oldest (chains reversed)", v)
	}
	if _, ok := d.Search(99); ok {
		t.Error("Search(99) found a key never added")
	}
	if d.Len() != 8 {
		t.Errorf("Len = %d, want 8", d.Len())
	}
	keys := []uint32{7, 3, 99, 12, 5, 1 << 30, 44, 8, 6, 2, 61, 17, 23, 1000, 5000, 42, 33, 9}
	var h Table[uint32]
	for _, k := range keys {
		h.Add(k, k*2)
	}
	for _, k := range keys {
		if v, ok := h.Search(k); !ok || v != k*2 {
			t.Errorf("Search(%d) = %d, %v", k, v, ok)
		}
	}
}
