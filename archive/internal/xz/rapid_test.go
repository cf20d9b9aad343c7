package xz

import (
	"bytes"
	"io"
	"testing"

	ulxz "github.com/ulikunitz/xz"
	"github.com/ulikunitz/xz/lzma"
	"pgregory.net/rapid"
)

// genData draws data made of random bytes, runs and repeats of earlier
// pieces at various distances: the shapes that give literals, matched
// literals, short and long matches and repeated distances.
func genData(t *rapid.T) []byte {
	var b []byte
	n := rapid.IntRange(0, 40).Draw(t, "pieces")
	for i := 0; i < n; i++ {
		switch rapid.IntRange(0, 3).Draw(t, "kind") {
		case 0:
			b = append(b, rapid.SliceOfN(rapid.Byte(), 0, 300).Draw(t, "bytes")...)
		case 1:
			c := rapid.Byte().Draw(t, "c")
			b = append(b, bytes.Repeat([]byte{c}, rapid.IntRange(1, 5000).Draw(t, "run"))...)
		default:
			if len(b) == 0 {
				continue
			}
			from := rapid.IntRange(0, len(b)-1).Draw(t, "from")
			k := rapid.IntRange(1, 2000).Draw(t, "len")
			for j := 0; j < k; j++ {
				b = append(b, b[from+j%(len(b)-from)]+byte(rapid.IntRange(0, 1).Draw(t, "change")))
			}
		}
	}
	return b
}

// TestRoundTripUlikunitz decodes what ulikunitz/xz's writers write, in
// .xz and .lzma, with random properties, dictionaries, block sizes and
// checks.
func TestRoundTripUlikunitz(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		data := genData(t)
		lc := rapid.IntRange(0, 4).Draw(t, "lc")
		lp := rapid.IntRange(0, 4-lc).Draw(t, "lp")
		pb := rapid.IntRange(0, 4).Draw(t, "pb")
		cfg := ulxz.WriterConfig{
			Properties: &lzma.Properties{LC: lc, LP: lp, PB: pb},
			DictCap:    rapid.SampledFrom([]int{4096, 1 << 16, 1 << 20}).Draw(t, "dict"),
			BlockSize:  rapid.Int64Range(1024, 1<<18).Draw(t, "block"),
			CheckSum:   rapid.SampledFrom([]byte{ulxz.CRC32, ulxz.CRC64, ulxz.SHA256}).Draw(t, "check"),
			NoCheckSum: rapid.Bool().Draw(t, "nocheck"),
		}
		var comp bytes.Buffer
		w, err := cfg.NewWriter(&comp)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		checkDecode(t, comp.Bytes(), data)

		lcfg := lzma.WriterConfig{
			Properties: &lzma.Properties{LC: rapid.IntRange(0, 8).Draw(t, "lc1"), LP: rapid.IntRange(0, 4).Draw(t, "lp1"), PB: pb},
			DictCap:    cfg.DictCap,
			EOSMarker:  rapid.Bool().Draw(t, "eos"),
		}
		if rapid.Bool().Draw(t, "size") && len(data) > 0 { // ulikunitz takes size 0 for "unknown"
			lcfg.SizeInHeader, lcfg.Size = true, int64(len(data))
		}
		comp.Reset()
		lw, err := lcfg.NewWriter(&comp)
		if err != nil {
			t.Fatal(err)
		}
		lw.Write(data)
		if err := lw.Close(); err != nil {
			t.Fatal(err)
		}
		r, err := NewLZMAReader(bytes.NewReader(comp.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		if err != nil {
			t.Fatalf(".lzma: %v", err)
		}
		if !bytes.Equal(got, data) {
			t.Fatalf(".lzma: %d bytes differ from the %d expected", len(got), len(data))
		}
	})
}
