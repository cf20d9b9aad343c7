package collector

import "testing"

// TestDiskClasses checks the linux PMDA's rules for what /proc/diskstats
// names are disks (disk.dev) and partitions (disk.partitions).
func TestDiskClasses(t *testing.T) {
	tests := []struct {
		name            string
		disk, partition bool
	}{
		{"sda", true, false}, {"sda1", false, true}, {"vda", true, false}, {"vda12", false, true},
		{"hda", true, false}, {"xvda", true, false}, {"xvda1", false, true},
		{"nvme0n1", true, false}, {"nvme0n1p1", false, true},
		{"mmcblk0", true, false}, {"mmcblk0p2", false, true},
		{"rbd0", true, false}, {"rbd0p1", false, true}, {"nbd3", true, false}, {"nbd3p1", false, true},
		{"loop0", false, false}, {"ram0", false, false}, {"zram0", false, false},
		{"dm-0", false, false}, {"md127", false, false}, {"sr0", false, false},
		{"srx", true, false}, // not a CD-ROM name
		{"cciss/c0d0", true, false}, {"cciss/c0d0p1", false, true}, {"rd/c0d0", true, false},
		{"123456789012345678", false, true}, // WWID-like names end in a digit
		{"abcdefghijklmnopqr", true, false},
		{"xvm/vol1", false, false}, {"xvmvol", false, false},
	}
	for _, tc := range tests {
		d, p := isDisk([]byte(tc.name)), isPartition([]byte(tc.name))
		if d != tc.disk || p != tc.partition {
			t.Errorf("%s: disk %v partition %v, want %v %v", tc.name, d, p, tc.disk, tc.partition)
		}
	}
}
