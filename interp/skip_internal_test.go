package interp

import (
	"testing"

	"pgregory.net/rapid"
)

// TestPassable: a skip block is passable only if no record of it could
// change a bound (takes, at every time in the block, of every instance
// with a value in it, is false), and only if no search of unbound would
// end in it by its tLast.
func TestPassable(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		tm := rapid.SampledFrom([]float64{-1, 0, 1, 2, 3, 4, 5})
		tMin := rapid.SampledFrom([]float64{0, 1, 2, 3, 4}).Draw(rt, "tMin")
		b := &skipBlock{tMin: tMin, tMax: tMin + rapid.SampledFrom([]float64{0, 1, 2}).Draw(rt, "span")}
		var unbound []*inst
		for i := rapid.IntRange(0, 4).Draw(rt, "insts"); i > 0; i-- {
			ic := &inst{tPrior: tm.Draw(rt, "tPrior"), tNext: tm.Draw(rt, "tNext"),
				tLast: tm.Draw(rt, "tLast"), search: rapid.Bool().Draw(rt, "search")}
			if rapid.Bool().Draw(rt, "inBlock") {
				b.insts = append(b.insts, ic)
			}
			unbound = append(unbound, ic)
		}
		treq := tm.Draw(rt, "treq")
		if !b.passable(treq, unbound) {
			return
		}
		for _, ic := range b.insts {
			for at := b.tMin; at <= b.tMax; at += 0.5 {
				if ic.takes(treq, at) {
					rt.Fatalf("passable at treq %v, but %+v takes a value at %v", treq, *ic, at)
				}
			}
		}
		for _, ic := range unbound {
			if ic.search && ic.tLast >= 0 && ic.tLast <= b.tMax {
				rt.Fatalf("passable at treq %v, but the search of %+v ends in it", treq, *ic)
			}
		}
	})
}

// skipSource is a Skipper that cannot skip (skipper only asks for one).
type skipSource struct{ Source }

func (skipSource) SkipTo(Handle, int) bool { return false }

// TestSkipIndexBounded: past maxSkipBlocks blocks or maxSkipInsts
// instance entries, or when the metrics change, the blocks are dropped.
func TestSkipIndexBounded(t *testing.T) {
	ip := &Interp{src: skipSource{}, delta: 1, gen: 1}
	if ip.skipper() == nil {
		t.Fatal("no Skipper")
	}
	for i := 0; i <= maxSkipBlocks; i++ {
		ip.skips.blocks[skipPos{off: int64(i)}] = &skipBlock{}
	}
	ip.skipper()
	if n := len(ip.skips.blocks); n != 0 {
		t.Errorf("%d blocks kept past the bound", n)
	}
	ip.skips.blocks[skipPos{}] = &skipBlock{}
	ip.skips.entries = maxSkipInsts + 1
	ip.skipper()
	if n := len(ip.skips.blocks); n != 0 || ip.skips.entries != 0 {
		t.Errorf("%d blocks (%d entries) kept past the bound", n, ip.skips.entries)
	}
	ip.skips.blocks[skipPos{}] = &skipBlock{}
	ip.skipper()
	if len(ip.skips.blocks) != 1 {
		t.Errorf("blocks dropped within the bounds")
	}
	ip.gen++
	ip.skipper()
	if len(ip.skips.blocks) != 0 {
		t.Errorf("blocks kept for other metrics")
	}
	ip.SetSkip(false)
	if ip.skipper() != nil {
		t.Errorf("SetSkip(false): still skipping")
	}
}
