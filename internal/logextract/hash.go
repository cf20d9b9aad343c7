package logextract

// chainHash reproduces the chain order of libpcp's hash tables
// (__pmHashCtl) with duplicate keys, because the real pmlogextract keeps
// every label set record in such a table and, for a key, uses only the
// first record its search meets: which of two inputs' label sets for the
// same metric gets written depends on that order.
//
// The table starts with one bucket. Each add counts the node first; when
// nodes/4 exceeds the bucket count the table grows (size*2, then +1 if
// odd, +2 if not divisible by 3, +2 if not divisible by 5) and the old
// chains are moved last bucket first, each from head to tail, every node
// pushed onto the head of its new bucket. A new node goes to the head of
// its bucket (key modulo size). A search walks the key's bucket from the
// head.
type chainHash[V any] struct {
	buckets [][]chainNode[V] // each chain head first
	nodes   int
}

type chainNode[V any] struct {
	key uint32
	val V
}

func (h *chainHash[V]) add(key uint32, val V) {
	h.nodes++
	if len(h.buckets) == 0 {
		h.buckets = make([][]chainNode[V], 1)
	} else if h.nodes/4 > len(h.buckets) {
		old := h.buckets
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
		h.buckets = make([][]chainNode[V], size)
		for i := len(old) - 1; i >= 0; i-- {
			for _, n := range old[i] {
				h.push(n)
			}
		}
	}
	h.push(chainNode[V]{key, val})
}

func (h *chainHash[V]) push(n chainNode[V]) {
	b := int(n.key % uint32(len(h.buckets)))
	h.buckets[b] = append([]chainNode[V]{n}, h.buckets[b]...)
}

// search returns the first value stored under key, in chain order.
func (h *chainHash[V]) search(key uint32) (V, bool) {
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
