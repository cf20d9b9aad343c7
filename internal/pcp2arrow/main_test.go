package pcp2arrow

import (
	"os"
	"testing"

	"github.com/pcpkit/pcpkit/internal/sampler"
	"github.com/pcpkit/pcpkit/internal/testenv"
)

// TestMain: PCPKIT_TEST_CHUNK=N replays in chunks of N samples
// (testenv.Chunk).
func TestMain(m *testing.M) {
	sampler.ChunkSamples = testenv.Chunk()
	os.Exit(m.Run())
}
