"""Every size limit navcore enforces on its input, in one place.

Inputs past a limit are mistakes (a typo'd node id, a corrupted file, a
YAML bomb) far more often than wishes, and without a limit they surface as
minutes of swapping, an ``OverflowError`` deep in numpy or a kernel that
indexes past int32. The modules that enforce a limit import it from here;
the README's Limits table lists them (a test checks it against this file).

Memory: before a graph's arrays are allocated, :func:`check_memory` weighs
an estimate of them (``BYTES_PER_NODE`` and ``BYTES_PER_EDGE``: the arrays
of the build and of its first queries) against ``MEMORY_FRACTION`` of the
memory the system reports available, so a graph that cannot fit is a
``CapacityError`` at once, not a machine that swaps for minutes.

>>> from navcore import limits
>>> limits.check_memory("a test", 1024, available=10 ** 9)
>>> limits.check_memory("a graph of 10 nodes", 10 ** 9, available=10 ** 9)
Traceback (most recent call last):
navcore.errors.CapacityError: a graph of 10 nodes needs about 1.0 GB of memory; 0.8 GB of the 1.0 GB available may be used
"""
from __future__ import annotations

import os

from .errors import CapacityError

#: node ids are int32: the most nodes a graph can have
MAX_NODES = 2 ** 31 - 1
#: edge positions are int32 in the kernels' edge lists: the most edges
MAX_EDGES = 2 ** 31 - 1
#: bytes a graph is estimated to hold per node (CSR offsets, walkable mask,
#: positions, one thread's search scratch, area ids)
BYTES_PER_NODE = 96
#: bytes per edge (the input arrays as int64/float64, their sort, the CSR
#: targets and costs, the reverse view)
BYTES_PER_EDGE = 64
#: bytes per grid cell (padded walkable mask and cost, search scratch)
BYTES_PER_CELL = 48
#: bytes a query holds per pair of ends it answers (``distance_pairs``,
#: ``routes``, a navmesh's matrix): the ends as int32 ids and float64
#: points, the sort grouping them, the kernel's seeds and the answer
BYTES_PER_PAIR = 64
#: bytes a navmesh build holds per vertex of its free space (the shapely
#: geometry and its tile pieces, the triangles, their merge, the mesh
#: arrays); measured 1-2 KB once the numba kernels are loaded
BYTES_PER_VERTEX = 1024
#: the largest coordinate of a navmesh's geometry (bounds, rings, vertices,
#: rectangles), in world units: past it a float's spacing (1e-4 at 1e12)
#: is too coarse for the mesh, and at 1e154 squared lengths overflow to inf
MAX_COORDINATE = 1e12
#: tiles of a navmesh built in tiles (``tile_size``): clipping the free
#: space to its tiles grows as tiles^1.5 (40 000 tiles: 3 s, 160 000: 21 s,
#: the 4 M allowed before: half an hour), so past 256 x 256 tiles a typo'd
#: tile_size is refused rather than left to look like a hang
MAX_TILES = 65_536
#: the largest finite cost of an edge or cell: a path of 2**31 moves at
#: this cost (times a grid's longest move) still sums to a finite float64,
#: so no search reports "unreachable" for a path whose sum overflowed
MAX_COST = 1e290
#: the share of the available memory one graph may be estimated to take
MEMORY_FRACTION = 0.8
#: nodes a graph may have beyond two per edge, in files and scenes (DIMACS
#: ``p sp N M``, a scene's edge arrays): a larger count is a typo, and each
#: node without edges still costs its share of every per-node array
MAX_ISOLATED = 1_000_000
#: the longest side of a grid in a MovingAI ``.scen`` line
MAX_SCEN_SIDE = 1 << 20
#: the longest map name in a ``.scen`` line (file names stop at 255)
MAX_NAME = 255
#: rooms per side of a generated maze, and rooms in all
MAX_MAZE_SIDE = 16384
MAX_MAZE_ROOMS = 4096 * 4096
#: scene YAML: nesting depth, values once aliases are expanded; digits of an
#: integer in a scene, a ``.map`` header or a ``.mesh`` (int() stops at 4300)
MAX_YAML_DEPTH = 64
MAX_YAML_VALUES = 2_000_000
MAX_INT_DIGITS = 64
#: scene settings
MAX_FRAMES = 30_000_000
MAX_WORKERS = 256
#: search threads per CPU a world may start: more only queue on the cores
#: (and each holds its own scratch), so a larger count is a typo
WORKERS_PER_CPU = 8


def max_workers() -> int:
    """The most search threads ``World(workers=)`` accepts on this machine."""
    return min(MAX_WORKERS, WORKERS_PER_CPU * (os.cpu_count() or 1))


def available_memory() -> int | None:
    """Bytes of memory the system says can be allocated without swapping
    (``MemAvailable`` in ``/proc/meminfo``, else free pages), or None when
    it cannot tell (then no memory check is made)."""
    try:
        with open("/proc/meminfo", "rb") as f:
            for line in f:
                if line.startswith(b"MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def check_memory(what: str, nbytes: int, available: int | None = None) -> None:
    """``CapacityError`` when ``what``, estimated at ``nbytes``, would take
    more than ``MEMORY_FRACTION`` of the available memory."""
    if available is None:
        available = available_memory()
    if available is None or nbytes <= MEMORY_FRACTION * available:
        return
    raise memory_error(what, nbytes, available)


def memory_limit(available: int | None) -> float:
    """The bytes ``check_memory`` lets one buffer take out of ``available``
    (inf when it is not known): for kernels that check before allocating."""
    return float("inf") if available is None else MEMORY_FRACTION * available


def memory_error(what: str, nbytes: int, available: int) -> CapacityError:
    """The error ``check_memory`` raises for ``what`` of ``nbytes``."""
    return CapacityError(f"{what} needs about {_gb(nbytes)} of memory; "
                         f"{_gb(MEMORY_FRACTION * available)} of the {_gb(available)} "
                         f"available may be used")


def count(items) -> int:
    """How many entries ``items`` has, without converting it: the first
    dimension of an array (a view of a huge one, ``np.broadcast_to``,
    costs no memory until converted), a sequence's length, else 1."""
    shape = getattr(items, "shape", None)
    if shape is not None:
        try:
            return int(shape[0]) if len(shape) else 1
        except (TypeError, ValueError, IndexError):
            return 1
    try:
        return len(items)
    except TypeError:
        return 1


def check_pairs(what: str, num_pairs: int, per_pair: int = BYTES_PER_PAIR) -> None:
    """``CapacityError`` when answering ``num_pairs`` pairs of ends
    (``BYTES_PER_PAIR`` each) would not fit, before they are converted."""
    check_memory(f"{what} of {num_pairs} pairs", int(num_pairs) * per_pair)


def graph_bytes(num_nodes: int, num_edges: int = 0) -> int:
    """Estimated bytes of a graph of ``num_nodes`` and ``num_edges``."""
    return int(num_nodes) * BYTES_PER_NODE + int(num_edges) * BYTES_PER_EDGE


def check_graph(num_nodes: int, num_edges: int = 0, what: str = "a graph") -> None:
    """The int32 limits and the memory estimate of a graph, before it is built."""
    if num_nodes > MAX_NODES:
        raise CapacityError(f"{num_nodes} nodes exceed the int32 node-id limit "
                            f"of {MAX_NODES}")
    if num_edges > MAX_EDGES:
        raise CapacityError(f"{num_edges} edges exceed the int32 edge limit of {MAX_EDGES}")
    check_memory(f"{what} of {num_nodes} nodes and {num_edges} edges",
                 graph_bytes(num_nodes, num_edges))


def _gb(n) -> str:
    return f"{n / 1e9:.1f} GB"
