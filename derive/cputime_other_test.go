//go:build !unix

package derive

import "time"

// processCPU is not known here.
func processCPU() time.Duration { return 0 }
