"""CSR storage: offsets + neighbours + parallel edge data.

Build and query are separate (Detour's model): ``build_csr`` validates and
runs the O(E + V) numba build once; a ``CSR`` then hands out array views.

>>> csr = build_csr([0, 0, 1, 0], [2, 1, 2, 1], {"cost": [5.0, 1.0, 2.0, 9.0]})
>>> csr.offsets.tolist(), csr.targets.tolist(), csr.cost.tolist()
([0, 2, 3, 3], [1, 2, 2], [1.0, 5.0, 2.0])
>>> csr.neighbors(0).tolist(), csr.reverse().neighbors(2).tolist()
([1, 2], [0, 1])
"""
from __future__ import annotations

import numpy as np

from navcore import validate
from navcore.edges import validate_edges
from navcore.limits import MAX_NODES
from navcore.errors import CapacityError, GraphError, NodeError, UpdateError
from navcore.limits import MAX_COST

from ._build import csr_order, find_edges, row_ids


class CSR:
    """Compressed sparse row adjacency with per-edge data arrays.

    ``offsets`` (int64, ``num_nodes + 1``): node ``u``'s edges are positions
    ``offsets[u]:offsets[u + 1]``; ``targets`` (int32) and every array of
    ``data`` (``data["cost"]`` float64 among them) are parallel to it.
    """

    __slots__ = ("offsets", "targets", "data", "num_nodes", "sorted",
                 "deduplicated", "_reverse", "cost_version")

    def __init__(self, offsets, targets, data, num_nodes, sorted_, deduplicated):
        self.offsets = offsets
        self.targets = targets
        self.data = data
        self.num_nodes = int(num_nodes)
        self.sorted = bool(sorted_)
        self.deduplicated = bool(deduplicated)
        self._reverse = None
        #: bumped whenever edge costs change, so derived views refresh
        self.cost_version = 0

    @property
    def num_edges(self) -> int:
        return int(self.targets.shape[0])

    @property
    def cost(self) -> np.ndarray:
        return self.data["cost"]

    @property
    def nbytes(self) -> int:
        """Bytes held by the forward arrays (not the lazy reverse view)."""
        return int(self.offsets.nbytes + self.targets.nbytes
                   + sum(a.nbytes for a in self.data.values()))

    def check_node(self, u) -> int:
        """``u`` as an int node id of this storage, or ``GraphError``."""
        return validate.node_id(u, self.num_nodes, error=GraphError)

    def neighbors(self, u) -> np.ndarray:
        """Targets of ``u``'s out-edges (a read-only view)."""
        u = self.check_node(u)
        return self.targets[self.offsets[u]:self.offsets[u + 1]]

    def edge_data(self, u, name: str = "cost") -> np.ndarray:
        """Edge data ``name`` of ``u``'s out-edges, parallel to ``neighbors``."""
        u = self.check_node(u)
        if type(name) is not str or name not in self.data:
            raise GraphError(f"no edge data {name!r}; have {sorted(self.data)}")
        return self.data[name][self.offsets[u]:self.offsets[u + 1]]

    def degree(self, u=None):
        """Out-degree of ``u``, or of every node as an int64 array."""
        if u is None:
            return np.diff(self.offsets)
        u = self.check_node(u)
        return int(self.offsets[u + 1] - self.offsets[u])

    def edge_positions(self, src, dst) -> np.ndarray:
        """Storage position of each edge ``src[i] -> dst[i]`` (-1 if absent)."""
        src = validate.node_ids(src, self.num_nodes, "src", dtype=np.int64)
        dst = validate.node_ids(dst, self.num_nodes, "dst", dtype=np.int64)
        if src.shape != dst.shape:
            raise NodeError(f"edge_positions needs as many src as dst nodes, got {src.size} "
                            f"and {dst.size}")
        return find_edges(self.offsets, self.targets, src, dst)

    def set_cost(self, positions, values) -> None:
        """Write edge costs at storage ``positions`` (callers validate).

        For backends, inside ``navcore_apply_updates``: that batch's one
        ``graph.version`` bump is what tells the graph's derived views
        (hierarchies, heuristic scales) that costs changed. Users change
        costs with ``World.update``. ``UpdateError`` for positions that
        are not edges and costs that are not finite numbers >= 0 (at most
        ``limits.MAX_COST``)."""
        positions = validate.node_ids(positions, self.num_edges, "edge positions",
                                      UpdateError, np.int64)
        values = validate.array(values, "edge costs", UpdateError, np.float64)
        if values.ndim > 1 or values.size not in (1, positions.size):
            raise UpdateError(f"set_cost needs one cost or one per position, got shape "
                              f"{values.shape} for {positions.size} positions")
        # inf is a closed edge; NaN, negatives and finite costs past
        # MAX_COST (a path's sum would overflow) are refused
        if values.size and not ((values >= 0) & ((values <= MAX_COST) | (values == np.inf))).all():
            raise UpdateError(f"edge costs must be numbers in 0..{MAX_COST:g} or inf, got "
                              f"{values.reshape(-1).tolist()[:8]}")
        self.data["cost"][positions] = values
        self.cost_version += 1

    def reverse(self) -> "ReverseCSR":
        """The transposed graph, for backward searches (built once, lazily)."""
        if self._reverse is None:
            self._reverse = ReverseCSR(self)
        return self._reverse

    def __repr__(self) -> str:
        return f"<CSR nodes={self.num_nodes} edges={self.num_edges}>"


class ReverseCSR:
    """In-edges of every node: ``targets`` holds the edge's source and
    ``edge_ids`` its position in the forward CSR, so edge data stays shared.
    ``cost`` is a gathered copy that follows forward cost changes.
    """

    __slots__ = ("forward", "offsets", "targets", "edge_ids", "_cost", "_cost_version")

    def __init__(self, forward: CSR):
        self.forward = forward
        heads = forward.targets.astype(np.int64)
        tails = row_ids(forward.offsets)
        offsets, perm, sources, _ = csr_order(heads, tails, forward.cost,
                                               forward.num_nodes, True, False, True)
        self.offsets = offsets
        self.targets = sources
        self.edge_ids = perm
        self._cost = None
        self._cost_version = -1

    @property
    def num_nodes(self) -> int:
        return self.forward.num_nodes

    @property
    def num_edges(self) -> int:
        return self.forward.num_edges

    @property
    def cost(self) -> np.ndarray:
        if self._cost_version != self.forward.cost_version:
            self._cost = self.forward.cost[self.edge_ids]
            self._cost_version = self.forward.cost_version
        return self._cost

    def neighbors(self, v) -> np.ndarray:
        """Sources of ``v``'s in-edges."""
        v = self.forward.check_node(v)
        return self.targets[self.offsets[v]:self.offsets[v + 1]]


def build_csr(src, dst, data=None, num_nodes=None, *, sort: bool = True,
              dedup: bool = True) -> CSR:
    """Build a :class:`CSR` from edge arrays in O(E + V).

    ``data`` maps names to per-edge arrays (``"cost"`` is validated as
    non-negative float64 and defaults to 1). ``sort`` orders each row by
    target id; ``dedup`` keeps only the first edge of each ``(src, dst)``
    pair. Node ids are int32: more than 2**31 - 1 nodes is a
    ``CapacityError``; offsets are int64, so the edge count is not limited.
    """
    if data is not None and not isinstance(data, dict):
        raise GraphError(f"data must be a dict of per-edge arrays or None, got "
                         f"{validate.describe(data)}")
    sort = validate.boolean(sort, "sort")
    dedup = validate.boolean(dedup, "dedup")
    data = dict(data or {})
    src, dst, cost, num_nodes = validate_edges(src, dst, data.pop("cost", None), num_nodes)
    extra = {}
    for name, arr in data.items():
        arr = np.asarray(arr)
        if arr.shape[:1] != src.shape:
            raise GraphError(f"edge data {name!r} has {arr.shape[:1]} entries, "
                             f"expected {src.size}")
        extra[name] = arr
    return build_validated(src, dst, {"cost": cost, **extra}, num_nodes, sort, dedup)


def build_grouped(offsets, dst, data, num_nodes, sort, dedup) -> CSR:
    """CSR of edges a backend's kernel already put in CSR order: its
    ``offsets`` are checked (O(N)) and kept, nothing is sorted."""
    if num_nodes > MAX_NODES:
        raise CapacityError(f"{num_nodes} nodes exceed the int32 limit {MAX_NODES}")
    offsets = np.ascontiguousarray(offsets, dtype=np.int64)
    if offsets.shape != (num_nodes + 1,) or offsets[0] != 0 \
            or offsets[-1] != len(dst) or np.any(offsets[1:] < offsets[:-1]):
        raise GraphError(f"offsets must be {num_nodes + 1} non-decreasing edge "
                         f"positions from 0 to {len(dst)}")
    out = {k: np.ascontiguousarray(v) for k, v in data.items()}
    out["cost"] = np.ascontiguousarray(data["cost"], dtype=np.float64)
    return CSR(offsets, np.ascontiguousarray(dst, dtype=np.int32), out, num_nodes,
               sort, dedup)


def build_validated(src, dst, data, num_nodes, sort, dedup) -> CSR:
    if num_nodes > MAX_NODES:
        raise CapacityError(f"{num_nodes} nodes exceed the int32 limit {MAX_NODES}")
    src = np.ascontiguousarray(src, dtype=np.int64)
    dst = np.ascontiguousarray(dst, dtype=np.int64)
    cost = np.ascontiguousarray(data["cost"], dtype=np.float64)
    extra = {k: v for k, v in data.items() if k != "cost"}
    offsets, perm, targets, cost = csr_order(src, dst, cost, num_nodes, bool(sort),
                                              bool(dedup), bool(extra))
    out = {"cost": cost}
    for name, arr in extra.items():   # other edge data follows the permutation
        out[name] = np.ascontiguousarray(np.asarray(arr)[perm])
    return CSR(offsets, targets, out, num_nodes, sort, dedup)
