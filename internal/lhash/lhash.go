// Package lhash reproduces the chain order of libpcp's hash tables
// (__pmHashCtl), because the real tools print descriptors, instance
// domains, help text and labels in the order a walk of those tables
// yields, and pmlogextract keeps the first of duplicate records a search
// meets; pcpkit does both the same way.
//
// The table starts with one bucket. Each add counts the node first; when
// nodes/4 exceeds the bucket count, the table grows (size*2, then +1 if
// odd, +2 if not divisible by 3, +2 if not divisible by 5) and the old
// chains are rehashed last bucket first, head to tail, each node pushed
// onto the head of its new bucket. New nodes also go to the head of their
// bucket (key modulo size). A walk visits buckets in order, each chain
// from head to tail; a search walks the key's bucket from the head.
package lhash

// Table is a libpcp hash table from uint32 keys to values of type V.
// Duplicate keys are kept, as in __pmHashAdd. The zero Table is empty.
type Table[V any] struct {
	buckets [][]node[V] // each chain head first
	nodes   int
}

type node[V any] struct {
	key uint32
	val V
}

// growSize is the bucket count libpcp grows a table of size buckets to.
func growSize(size int) int {
	size *= 2
	if size%2 != 0 {
		size++
	}
	if size%3 != 0 {
		size += 2
	}
	if size%5 != 0 {
		size += 2
	}
	return size
}

// Add inserts key with val, keeping any earlier node with the same key.
func (h *Table[V]) Add(key uint32, val V) {
	h.nodes++
	if len(h.buckets) == 0 {
		h.buckets = make([][]node[V], 1)
	} else if h.nodes/4 > len(h.buckets) {
		old := h.buckets
		h.buckets = make([][]node[V], growSize(len(old)))
		for i := len(old) - 1; i >= 0; i-- {
			for _, n := range old[i] {
				h.push(n)
			}
		}
	}
	h.push(node[V]{key, val})
}

func (h *Table[V]) push(n node[V]) {
	b := int(n.key % uint32(len(h.buckets)))
	h.buckets[b] = append([]node[V]{n}, h.buckets[b]...)
}

// Search returns the first value stored under key, in chain order.
func (h *Table[V]) Search(key uint32) (V, bool) {
	var zero V
	if len(h.buckets) == 0 {
		return zero, false
	}
	for _, n := range h.buckets[int(key%uint32(len(h.buckets)))] {
		if n.key == key {
			return n.val, true
		}
	}
	return zero, false
}

// Len returns the number of nodes.
func (h *Table[V]) Len() int { return h.nodes }

// Keys returns the keys of every node in walk order.
func (h *Table[V]) Keys() []uint32 {
	out := make([]uint32, 0, h.nodes)
	for _, b := range h.buckets {
		for _, n := range b {
			out = append(out, n.key)
		}
	}
	return out
}

// Order records distinct keys in libpcp hash-table order.
type Order struct {
	t    Table[struct{}]
	seen map[uint32]bool
}

// New returns an empty Order.
func New() *Order {
	return &Order{seen: map[uint32]bool{}}
}

// Add inserts key, unless it is already present.
func (o *Order) Add(key uint32) {
	if o.seen[key] {
		return
	}
	o.seen[key] = true
	o.t.Add(key, struct{}{})
}

// Keys returns the keys in walk order.
func (o *Order) Keys() []uint32 { return o.t.Keys() }
