"""The jobs: ``distance_matrix``, ``distance_pairs`` and ``find_paths`` of
one graph, cut into tiles that Dask workers answer.

Everything about the input is checked here, on the client, before a tile
is submitted: a mistake is a ``NavError`` naming the argument, never a
Dask or numba error from a worker. Tiles are tasks with fixed keys, so a
tile whose worker dies is run again by the scheduler on another worker
and answered once: its result is copied into its place when it arrives.
"""
from __future__ import annotations

import math
import uuid

import numpy as np

from navcore import limits, validate
from navcore.errors import NavError, NodeError, QueryError

from . import shipping, tiles
from .cluster import ClusterError, check_client, total_threads

#: entries (8 bytes each) of one matrix tile at most, when the tiles are
#: chosen for you: 32 MB, a comfortable message for Dask
MAX_TILE_ENTRIES = 4_000_000
#: tiles per worker thread the automatic choice aims at (load balance, and
#: a dying worker loses little work)
TILES_PER_THREAD = 4


def distance_matrix(client, graph, sources, targets, *, chunk=None, lazy: bool = False,
                    progress: bool = False, retries: int = 1):
    """``World.distance_matrix`` on a Dask cluster: the float64 matrix of
    shortest costs from ``sources`` to ``targets`` (node ids, or points
    where the graph has positions), ``inf`` where unreachable, equal to
    what ``world.distance_matrix`` returns.

    ``graph`` is the ``NavGraph`` (``world.add_graph`` returns it); it and
    its views go to every worker once per version (``navcore_dask``'s
    module docstring). The work is cut into tiles of ``chunk`` searches
    each: ``chunk`` sources with every target (``chunk`` targets with
    every source when the graph's plugin searches from the targets, as
    ``navcore_matrix_search_side`` says: the csr plugin on a directed
    graph with fewer targets); by default a few tiles per worker thread.
    ``chunk=(rows,
    columns)`` cuts both sides, which repeats searches, and a tile whose
    searches run the other way than the whole matrix's may differ from
    ``world.distance_matrix`` in the last bits of a cost (directed graphs
    without a hierarchy). ``lazy=True``
    returns a ``dask.array`` of the tiles instead, computed where you
    compute it and never gathered here unless you ask (``.compute()``).
    ``progress=True`` shows a bar on stderr.
    """
    client = check_client(client)
    _check_graph(graph)
    m, n = limits.count(sources), limits.count(targets)
    if not lazy:                  # the answer, gathered here
        limits.check_memory(f"a {m} x {n} distance matrix", 8 * m * n)
    limits.check_pairs("distance_matrix ends", m + n)
    src = tile_ends(graph, sources, "sources")
    dst = tile_ends(graph, targets, "targets")
    # the tiles cut the side the graph's plugin searches from (cutting the
    # other would repeat every one of those searches in every tile)
    from_targets = search_side(graph, len(src), len(dst)) == "targets"
    rows, cols = _matrix_tiles(chunk, len(src), len(dst), total_threads(client), from_targets)
    _check_flags(lazy=lazy, progress=progress)
    retries = _retries(retries)
    out = np.empty((len(src), len(dst)))
    if out.size == 0 and not lazy:
        return out
    snap = shipping.ship(client, graph)
    if lazy:
        return _lazy_matrix(snap, src, dst, rows, cols)
    job = _job("matrix")
    work = {}
    for i, r0 in enumerate(range(0, len(src), rows)):
        for j, c0 in enumerate(range(0, len(dst), cols)):
            place = (slice(r0, r0 + rows), slice(c0, c0 + cols))
            fut = client.submit(tiles.matrix_tile, snap, src[place[0]],
                                dst[place[1]],
                                key=f"{job}-{i}-{j}", pure=False, retries=retries)
            work[fut] = place
    for place, block in _gather(client, work, progress, "matrix tiles"):
        out[place] = block
    return out


def distance_pairs(client, graph, sources, targets, *, chunk=None, progress: bool = False,
                   retries: int = 1) -> np.ndarray:
    """``World.distance_pairs`` on a Dask cluster: float64 ``out[i]``, the
    shortest cost from ``sources[i]`` to ``targets[i]``, ``chunk`` pairs
    per tile (by default a few tiles per worker thread)."""
    client = check_client(client)
    _check_graph(graph)
    limits.check_pairs("distance_pairs", max(limits.count(sources), limits.count(targets)))
    src = tile_ends(graph, sources, "sources")
    dst = tile_ends(graph, targets, "targets")
    if len(src) != len(dst):
        raise QueryError(f"distance_pairs needs as many sources as targets, got "
                         f"{len(src)} and {len(dst)}")
    size = _chunk_1d(chunk, len(src), total_threads(client))
    _check_flags(progress=progress)
    retries = _retries(retries)
    out = np.empty(len(src))
    if out.size == 0:
        return out
    snap = shipping.ship(client, graph)
    job = _job("pairs")
    work = {client.submit(tiles.pairs_tile, snap, src[a:a + size], dst[a:a + size],
                          key=f"{job}-{k}", pure=False, retries=retries): slice(a, a + size)
            for k, a in enumerate(range(0, len(src), size))}
    for place, part in _gather(client, work, progress, "pair tiles"):
        out[place] = part
    return out


def find_paths(client, graph, starts, goals, *, algorithm: str = "auto", chunk=None,
               progress: bool = False, retries: int = 1, **options) -> list:
    """``World.find_path`` for every pair ``(starts[i], goals[i])`` on a
    Dask cluster: a list of ``PathResult``, one per pair, as
    ``world.find_path(graph_id, starts[i], goals[i], algorithm, **options)``
    returns it (a start outside the graph or blocked is ``invalid_start``,
    and so on). Starts and goals are node ids or points; ``chunk`` pairs
    go in a tile."""
    client = check_client(client)
    _check_graph(graph)
    a = _ends(graph, starts, "starts")
    b = _ends(graph, goals, "goals")
    if len(a) != len(b):
        raise QueryError(f"find_paths needs as many starts as goals, got {len(a)} and {len(b)}")
    _check_algorithm(graph, algorithm, options)
    size = _chunk_1d(chunk, len(a), total_threads(client))
    _check_flags(progress=progress)
    retries = _retries(retries)
    out: list = [None] * len(a)
    if not out:
        return out
    snap = shipping.ship(client, graph)
    job = _job("paths")
    work = {client.submit(tiles.paths_tile, snap, a[k:k + size], b[k:k + size], algorithm,
                          options, key=f"{job}-{n}", pure=False, retries=retries):
            slice(k, k + size) for n, k in enumerate(range(0, len(a), size))}
    for place, part in _gather(client, work, progress, "path tiles"):
        out[place] = part
    return out


# -- input ---------------------------------------------------------------------
def resolve_nodes(graph, items, what) -> np.ndarray:
    """int32 node ids from ids or points (as ``World`` resolves them), or
    ``NodeError`` naming the first that is out of range or outside."""
    try:
        arr = items if isinstance(items, np.ndarray) else np.asarray(items)
    except (TypeError, ValueError):
        arr = None
    if arr is not None and arr.ndim == 1 and (arr.size == 0 or validate.int_dtype(arr.dtype)) \
            and not (arr is not items and any(isinstance(x, (bool, np.bool_)) for x in items)):
        # (numpy reads [3, True] as [3, 1]; a bool is no node id)
        return validate.node_ids(arr, graph.num_nodes, what)
    if arr is not None and arr.ndim == 2 and arr.size and validate.real_dtype(arr.dtype):
        pts = validate.points(arr, what)
        out = graph.locate_many(pts) if graph.vector_locate else \
            np.array([graph.node_of(p) for p in pts], dtype=np.int32)
    else:
        if isinstance(items, (str, bytes)) or not hasattr(items, "__iter__"):
            raise NodeError(f"{what} must be a sequence of node ids or points, got {items!r}")
        try:
            out = np.array([graph.node_of(p) for p in items], dtype=np.int32)
        except TypeError:
            raise NodeError(f"{what} must be a sequence of node ids or points, "
                            f"got {items!r}") from None
    if (out < 0).any():
        i = int(np.flatnonzero(out < 0)[0])
        raise NodeError(f"{what}[{i}] = {items[i]!r} lies outside graph {graph.graph_id!r}")
    return out.astype(np.int32, copy=False)


def tile_ends(graph, items, what) -> np.ndarray:
    """What the tiles of a matrix or pairs job hand to the worker's
    ``World``, checked here as ``resolve_nodes`` checks them: the int32
    node ids when ``items`` are ids, else the caller's points themselves
    (a float64 ``(k, 2)`` array, or for ids mixed with points an object
    array of both), so that a backend measuring from the point (a navmesh:
    exact lengths, not from the polygon's centroid) answers as
    ``world.distance_matrix`` does here."""
    ids = resolve_nodes(graph, items, what)
    try:
        arr = items if isinstance(items, np.ndarray) else np.asarray(items)
    except (TypeError, ValueError):
        arr = None
    if arr is not None and arr.ndim == 1 and (arr.size == 0 or validate.int_dtype(arr.dtype)):
        return ids
    if arr is not None and arr.ndim == 2 and validate.real_dtype(arr.dtype):
        return validate.points(arr, what) if arr.size else ids
    out = np.empty(len(ids), dtype=object)
    for i, p in enumerate(items):           # mixed: each as node_of read it
        out[i] = int(p) if validate.is_int(p) else tuple(float(x) for x in p)
    return out


def _ends(graph, items, what):
    """Starts or goals of ``find_paths``: node ids (int32, in range) or
    points (float64 rows); a point outside the graph is left for the
    worker to answer ``invalid_start``/``invalid_goal``, as ``find_path``
    does."""
    if isinstance(items, (str, bytes)) or not hasattr(items, "__len__"):
        raise NodeError(f"{what} must be a sequence of node ids or points, got {items!r}")
    try:
        arr = np.asarray(items)
    except (TypeError, ValueError):
        arr = None
    if arr is not None and arr.ndim == 1 and (arr.size == 0 or validate.int_dtype(arr.dtype)):
        return validate.node_ids(arr, graph.num_nodes, what)
    if arr is not None and arr.ndim == 2 and validate.real_dtype(arr.dtype):
        return validate.points(arr, what)
    out = []
    for i, p in enumerate(items):      # mixed ids and points: each checked as find_path would
        try:
            graph.node_of(p)
        except NavError as exc:
            raise NodeError(f"{what}[{i}]: {exc}") from None
        except TypeError:
            raise NodeError(f"{what}[{i}] = {p!r} is neither a node id nor a point") from None
        out.append(p)
    return out


def search_side(graph, num_sources: int, num_targets: int) -> str:
    """``"sources"`` or ``"targets"``: the side of the matrix the graph's
    plugin runs its searches from (``navcore_matrix_search_side``, asked
    of a world of this process's plugins; the workers run the same
    installation). ``"sources"`` when no plugin says."""
    world = _client_world()
    side = world.plugins.hook.navcore_matrix_search_side(
        world=world, graph=graph, num_sources=int(num_sources), num_targets=int(num_targets))
    return "targets" if side == "targets" else "sources"


def _check_graph(graph) -> None:
    from navcore.graph import NavGraph
    if not isinstance(graph, NavGraph):
        raise QueryError(f"graph must be a navcore.NavGraph (world.add_graph returns it, "
                         f"world.graph(id) finds it), got {graph!r}")


def _check_algorithm(graph, algorithm, options) -> None:
    """The checks ``World.find_path`` makes, by a world of this process's
    plugins (the workers run the same installation)."""
    import navcore
    world = _client_world()
    names: set = set()
    for part in world.plugins.hook.navcore_algorithms(world=world, graph=graph):
        names.update(part or ())
    if type(algorithm) is not str or (algorithm != "auto" and algorithm not in names):
        validate.choice(algorithm, ["auto", *sorted(names)], "algorithm", QueryError,
                        where=f" for {graph.kind} graph {graph.graph_id!r}")
    if options:
        validate.query_option_values(
            options, validate.query_options(
                world.plugins.hook.navcore_query_options(world=world, graph=graph)),
            f"{graph.kind} graph {graph.graph_id!r}")
    del navcore


_WORLD = None


def _client_world():
    global _WORLD
    if _WORLD is None:
        import navcore
        _WORLD = navcore.World(warm_up=False)
    return _WORLD


def _positive(value, what) -> int:
    if not validate.is_int(value) or value < 1:
        raise QueryError(f"{what} must be an integer >= 1, got {value!r}")
    return int(value)


def _matrix_tiles(chunk, n_src, n_dst, threads, from_targets) -> tuple[int, int]:
    """``(rows, columns)`` of a matrix tile."""
    if chunk is not None:
        if isinstance(chunk, tuple) and len(chunk) == 2:
            return _positive(chunk[0], "chunk[0]"), _positive(chunk[1], "chunk[1]")
        if isinstance(chunk, (tuple, list)):
            raise QueryError(f"chunk must be a number of sources per tile or a pair "
                             f"(rows, columns), got {chunk!r}")
        size = _positive(chunk, "chunk")
        return (max(1, n_src), size) if from_targets else (size, max(1, n_dst))
    # Each source's search (or each target's, when targets are fewer: the
    # searches then run backwards) costs about the same whatever the other
    # side's size, so the tiles split the side whose searches run and keep
    # the other whole: no search runs twice, and each tile runs its
    # searches in the direction the whole matrix would (sums of the same
    # edges in the same order: the same floats to the last bit)
    want = threads * TILES_PER_THREAD
    if from_targets:
        rows = max(1, min(n_src, MAX_TILE_ENTRIES))
        cols = max(1, min(math.ceil(n_dst / want), MAX_TILE_ENTRIES // rows))
        return rows, cols
    cols = max(1, min(n_dst, MAX_TILE_ENTRIES))
    rows = max(1, min(math.ceil(n_src / want), MAX_TILE_ENTRIES // cols))
    return rows, cols


def _chunk_1d(chunk, n, threads) -> int:
    if chunk is not None:
        return _positive(chunk, "chunk")
    return max(1, math.ceil(n / (threads * TILES_PER_THREAD)))


def _check_flags(**flags) -> None:
    for name, value in flags.items():
        validate.boolean(value, name, QueryError)


def _retries(value) -> int:
    if not validate.is_int(value) or value < 0:
        raise QueryError(f"retries must be an integer >= 0, got {value!r}")
    return int(value)


def _job(kind: str) -> str:
    return f"navcore-{kind}-{uuid.uuid4().hex[:12]}"


# -- results -------------------------------------------------------------------
def _gather(client, work: dict, progress: bool, label: str):
    """``(place, result)`` of every tile as it arrives; each tile's
    future is released once read. On any failure the tiles still queued
    are cancelled, so the cluster is left with nothing of the job."""
    from .cluster import distributed
    dd = distributed()
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=len(work), unit="tile", desc=label, leave=False)
    pending = dict(work)
    try:
        # as_completed waits on the default client's event loop unless told
        # otherwise: with two clients in one process (or a client made with
        # set_as_default=False) the futures of ``client`` then never
        # complete there and the job hangs. Wait on their own client's loop.
        for fut, result in dd.as_completed(list(work), with_results=True, loop=client.loop):
            place = pending.pop(fut)
            yield place, result
            fut.release()
            if bar is not None:
                bar.update()
    except NavError:
        raise
    except dd.CancelledError as exc:
        raise ClusterError(f"the cluster cancelled a tile ({exc}); was the client closed?") \
            from None
    except Exception as exc:
        if type(exc).__name__ == "KilledWorker":
            raise ClusterError(f"workers kept dying while running a tile: {exc}") from None
        raise
    finally:
        if pending:
            client.cancel(list(pending))
        if bar is not None:
            bar.close()


def _one_per_end(ends) -> np.ndarray:
    """``ends`` as a 1-d array (a block of it is a run of ends): points
    as an object array of ``(x, y)`` tuples."""
    if ends.ndim == 1:
        return ends
    out = np.empty(len(ends), dtype=object)
    out[:] = list(map(tuple, ends.tolist()))
    return out


def _lazy_matrix(snap, src, dst, rows, cols):
    """A ``dask.array`` whose block ``(i, j)`` is one tile; the snapshot
    future travels inside its graph, so it answers for the version it was
    made from whatever happens to the graph later."""
    try:
        import dask.array as da
    except ImportError as exc:
        raise ClusterError(f"lazy=True needs dask.array ({exc}); install the dask extra: "
                           f"pip install 'navcore[dask]'") from None
    src, dst = _one_per_end(src), _one_per_end(dst)
    s = da.from_array(src, chunks=max(1, min(rows, src.size or 1)))
    t = da.from_array(dst, chunks=max(1, min(cols, dst.size or 1)))
    return da.blockwise(tiles.lazy_matrix_block, "ij", s, "i", t, "j", snapshot=snap,
                        dtype=np.float64, concatenate=True, meta=np.empty((0, 0)))
