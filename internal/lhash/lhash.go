// Package lhash reproduces the iteration order of libpcp's hash tables
// (__pmHashCtl), because the real tools print descriptors, instance
// domains, help text and labels in the order a walk of those tables
// yields, and pcpkit prints them the same way.
//
// The table starts with one bucket. Each add counts the node first; when
// nodes/4 exceeds the bucket count, the table grows (size*2, then +1 if
// odd, +2 if not divisible by 3, +2 if not divisible by 5) and the old
// chains are rehashed last bucket first, head to tail, each node pushed
// onto the head of its new bucket. New nodes also go to the head of their
// bucket (key modulo size). A walk visits buckets in order, each chain
// from head to tail.
package lhash

// Order records keys in libpcp hash-table order.
type Order struct {
	buckets [][]uint32 // each chain head first
	nodes   int
	seen    map[uint32]bool
}

// New returns an empty table.
func New() *Order {
	return &Order{buckets: make([][]uint32, 1), seen: map[uint32]bool{}}
}

// Add inserts key, unless it is already present.
func (o *Order) Add(key uint32) {
	if o.seen[key] {
		return
	}
	o.seen[key] = true
	o.nodes++
	if o.nodes/4 > len(o.buckets) {
		old := o.buckets
		size := len(old) * 2
		if size%2 != 0 {
			size++
		}
		if size%3 != 0 {
			size += 2
		}
		if size%5 != 0 {
			size += 2
		}
		o.buckets = make([][]uint32, size)
		for i := len(old) - 1; i >= 0; i-- {
			for _, k := range old[i] {
				o.push(k)
			}
		}
	}
	o.push(key)
}

func (o *Order) push(key uint32) {
	b := int(key % uint32(len(o.buckets)))
	o.buckets[b] = append([]uint32{key}, o.buckets[b]...)
}

// Keys returns the keys in walk order.
func (o *Order) Keys() []uint32 {
	out := make([]uint32, 0, o.nodes)
	for _, b := range o.buckets {
		out = append(out, b...)
	}
	return out
}
