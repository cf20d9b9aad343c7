/*
 * nofree.c: a free(3) that frees nothing, and a malloc(3) that leaves 64
 * zeroed bytes after each block, preloaded (LD_PRELOAD) into the python
 * running replay.py.
 *
 * libpcp 6.0.3's interpolation keeps pointers to value blocks of archive
 * records it has read and "pins" them, but the blocks of records it
 * decodes from an archive are not in its PDU buffer pool, so the pins do
 * nothing: when its read cache recycles a record, the values it still
 * holds as bounds are freed. What libpcp then returns depends on whether
 * malloc has reused that memory: usually the right value, sometimes
 * garbage (a string bound turning into a FLOAT block), and sometimes a
 * crash in free ("munmap_chunk(): invalid pointer"). With free doing
 * nothing, freed memory is never reused, so libpcp returns what its
 * algorithm computes: the oracle pcpkit's replay is compared with.
 *
 * With PCP_COUNTER_WRAP set, the interpolation code also reads 4 bytes
 * just past a 32-byte block (valgrind: "8 bytes after a block of size 32
 * alloc'd"). When nothing is freed, that block is usually the last one
 * allocated and what follows it is malloc's own bookkeeping of the rest
 * of the heap, and the process soon aborts ("malloc(): corrupted top
 * size"). The padding keeps such reads inside memory of no use to
 * malloc.
 *
 * Build: cc -shared -fPIC -o nofree.so nofree.c (the Go tests do this).
 */
#include <stddef.h>
#include <string.h>

#define PAD 64

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

void
free(void *p)
{
    (void)p;
}

void *
malloc(size_t n)
{
    void *p = __libc_malloc(n + PAD);

    if (p != NULL)
	memset((char *)p + n, 0, PAD);
    return p;
}

void *
calloc(size_t n, size_t size)
{
    if (size != 0 && n > ((size_t)-1 - PAD) / size)
	return NULL;
    return __libc_calloc(1, n * size + PAD);
}

void *
realloc(void *p, size_t n)
{
    void *q = __libc_realloc(p, n + PAD);

    if (q != NULL)
	memset((char *)q + n, 0, PAD);
    return q;
}
