"""Writes interleaved.log: a.log's lines, one rank's line at a time.

a.log is one real log of two processes whose every record JAX 0.6.2
prints twice (see README.md). Here each rank's lines keep their order, and
the two ranks alternate line by line (rank 0, rank 1, rank 0, …, then the
rest of the longer one), so that a line of the other process falls between
the two copies of nearly every record: the worst interleaving two processes
sharing one stderr can give.
"""
import itertools

lines = open("a.log", encoding="utf-8").read().splitlines(keepends=True)
by_rank = [[l for l in lines if l.startswith(f"[rank{r}]")] for r in (0, 1)]
assert sum(map(len, by_rank)) == len(lines), "every line carries a rank prefix"
with open("interleaved.log", "w", encoding="utf-8") as f:
    for a, b in itertools.zip_longest(*by_rank):
        f.write((a or "") + (b or ""))
