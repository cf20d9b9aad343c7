package pmprobe

import (
	"testing"

	"github.com/pcpkit/pcpkit/internal/testenv"
)

// TestGoldens compares pcpkit's pmprobe with the committed output of the
// real pmprobe (scripts/make-goldens.sh pmprobe) for every archive in
// testdata/archives and every mode in testdata/pmprobe.modes. It needs no
// PCP installation.
func TestGoldens(t *testing.T) { testenv.CheckGoldens(t, "pmprobe", Main) }

// TestGoldensMatchRealTool re-runs the real pmprobe for every golden case.
func TestGoldensMatchRealTool(t *testing.T) { testenv.CheckGoldensMatchRealTool(t, "pmprobe") }
