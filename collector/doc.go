// Package collector is pcpkit's built-in metrics collector: a
// source.Source that reads /proc and /sys directly, so that pcpkit's
// pmlogger can record on a machine with no PCP daemon at all (pmlogger -h @).
//
// It exports the Performance Co-Pilot linux PMDA's metrics under the same
// names, PMIDs (domain 60), types, semantics, units, instance domains,
// instance identifiers, instance names and label sets, computed from the
// same kernel files the same way, so that an archive recorded from a
// Collector reads like one recorded from pmcd. The descriptors are those
// of PCP 6.0.3 (see desctable.go); the package's tests compare every one
// of them, the values and the labels with the real pminfo when a local
// pmcd runs. The metrics:
//
//   - kernel.all.{load,intr,pswitch,sysfork,running,blocked,boottime,hz,
//     uptime,idletime,lastpid,runnable,nprocs,pid_max,nptys},
//     kernel.all.cpu.*, kernel.all.entropy.*, kernel.all.pressure.*,
//     kernel.all.interrupts.{total,errors,missed}, kernel.all.softirqs.total,
//     kernel.percpu.cpu.*, kernel.percpu.{interrupts,softirqs,intr,sirq},
//     kernel.pernode.cpu.*
//   - mem.util.*, mem.physmem, mem.freemem, mem.vmstat.* (but pgscan_direct_total,
//     pgscan_kswapd_total, pgsteal_total and thp_split), mem.numa.util.*,
//     mem.numa.alloc.*
//   - swap.*
//   - disk.dev.*, disk.all.*, disk.partitions.*, zram.*
//   - network.interface.{in,out,total}.*, network.interface.{collisions,
//     mtu,up,running}, network.{ip,icmp,tcp,udp,udplite}.*,
//     network.sockstat.*, network.softnet.*
//   - filesys.*, tmpfs.*, vfs.{files,inodes,dentry,aio}.*
//   - hinv.{ncpu,ndisk,nfilesys,ninterface,nnode,physmem,pagesize,
//     hugepagesize,machine}, hinv.cpu.{clock,vendor,model,stepping,cache,
//     bogomips,model_name,flags,cache_alignment,online},
//     hinv.map.{cpu_num,cpu_node,scsi_id}, hinv.node.online
//   - kernel.uname.*
//   - pmcd.hostname (domain 2), the host's name as Host reports it.
//
// A metric whose kernel file lacks the field (mem.util.highTotal on a
// 64-bit kernel, say) has no values, as with the PMDA; swap.in and
// swap.out, which kernels after 2.4 do not count, give PM_ERR_APPVERSION.
// A metric whose file cannot be read has a negative NumVal (-errno, or
// PM_ERR_VALUE for a file that makes no sense).
//
// # Instance identifiers
//
// The PMDA numbers CPUs and NUMA nodes by their kernel number ("cpu0" is 0,
// "node1" is 1) and the load averages and pressure windows by their length
// (1, 5, 15; 10, 60, 300). Disks, partitions, zram devices, network
// interfaces, interrupt lines, file systems and tmpfs mounts are numbered
// by libpcp_pmda's instance cache: in order of discovery, each new name
// taking the number after the largest in use; the caches of all but the
// file systems persist across pmcd restarts in
// $PCP_VAR_DIR/config/pmda/60.N (N the instance domain's serial). The
// Collector reads those files when they exist (WithPMDACacheDir; by
// default /var/lib/pcp/config/pmda) and numbers as the PMDA would: names
// already in the cache keep their number, new names take the next one, in
// the order of the kernel file that lists them. It never
// writes the cache files. The file system instance domains are not
// persisted by the PMDA, so their numbering matches a PMDA that saw the
// same mounts in the same order. Instances are listed, and their values
// given, in ascending order of their numbers, as the PMDA does.
//
// # Values
//
// Fetch encodes values as pmcd does: 32-bit integers in situ, 64-bit
// integers, FLOAT, DOUBLE and STRING values as value blocks (numbers in
// network byte order, strings with their terminating NUL). The Result,
// its value sets and their blocks are reused by the next Fetch, and the
// kernel files are kept open and re-read, so a steady-state Fetch
// allocates almost nothing.
//
// A Collector is not safe for concurrent use; source.Source methods are
// called from one goroutine at a time.
package collector
