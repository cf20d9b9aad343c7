// Package archive reads and writes PCP archives, format versions 2 and 3,
// as PCP 6.0.3's libpcp does.
//
// # Files
//
// An archive is a set of files sharing a base name: the metadata
// (base.meta: descriptors, metric names, instance domains, label sets,
// help text), an optional temporal index (base.index: at times, where the
// metadata and a data volume ended) and one or more data volumes (base.0,
// base.1, ...: the samples, and <mark> records where the recording has a
// gap). Every file starts with a label record naming the host, the time
// zone, the start and the volume. Any file may be compressed (base.0.xz,
// base.meta.gz, ...): the archive is read as if it were not.
//
// Every record of every file is framed the same way:
//
//	+--------+----------------------------+--------+
//	| len    | payload                    | len    |
//	+--------+----------------------------+--------+
//	  4 bytes, big-endian, counting the whole record (both length words)
//
// so that a file can be read backwards as well as forwards. A data record
// is a timestamp and value sets (a PMID, a count of values, and the
// values, in place or as pointers to value blocks inside the record); a
// <mark> has no value sets. docs/format.md in the repository is the full
// wire format, field by field, with what was checked against the real
// tools.
//
// # Reading
//
// Open opens one archive (OpenSet a comma-separated list or directory of
// them, as libpcp's multi-archive contexts do; package replay reads a
// set as libpcp does). Open reads the labels, the whole metadata (Meta)
// and the index (Index); data volumes are opened when first read, and
// every file once. A Cursor reads the data records in order, forwards or
// backwards across volumes; the Records it returns are views of the
// bytes read (nothing is copied), valid until the next read.
//
// Data volumes are read through two window buffers shared by an
// archive's volumes, so that memory does not grow with the archive's
// length or number of volumes. A volume compressed with xz in blocks (as
// pmlogger_daily compresses them, xz -0 --block-size=10MiB) is read by
// its blocks, found through the xz index: a read decodes only the blocks
// that hold its bytes, and a sequential scan decodes the next blocks
// ahead in parallel on the usable CPUs. Other compressed files (gzip,
// bzip2, zstd, xz without an index or with blocks too large to hold) are
// decompressed once into an unlinked temporary file.
//
// Damage is reported, never hidden: a record whose length words disagree,
// whose value sets do not fit, or a compressed block whose check fails
// gives a *FormatError naming the file, the byte offset and the record,
// wrapping the PCP error code the real tools report (errors.Is(err,
// pmapi.ErrLogRec)); every good record before it has been returned.
//
// # Writing
//
// Create starts a new archive and returns a Writer: PutDesc, PutInDom,
// PutLabels and PutText write metadata, PutResult a sample or a <mark>.
// The Writer is crash-safe: whatever happens to the process, the files
// on disk hold an archive that pcpkit and the real PCP tools read up to
// its last complete record, and every write and sync error reaches the
// caller.
package archive
