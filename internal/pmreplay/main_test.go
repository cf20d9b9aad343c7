package pmreplay

import (
	"os"
	"strconv"
	"testing"

	"github.com/pcpkit/pcpkit/internal/sampler"
)

// TestMain: with PCPKIT_TEST_CHUNK=N the samples are replayed in chunks
// of N samples on several goroutines (sampler.Each), whatever the
// archive's size, so that every test of the package checks the
// parallel replay against the real tool too.
func TestMain(m *testing.M) {
	if n, err := strconv.Atoi(os.Getenv("PCPKIT_TEST_CHUNK")); err == nil && n > 0 {
		sampler.ChunkSamples = n
	}
	os.Exit(m.Run())
}
