"""Routes, matrices and pairs from and to points on roads: *phantom nodes*
(``locate``) on the edges through the snapped points.

A route from a phantom leaves by the head of one of its edges (the snapped
segment's edge, and its reverse twin's on a two-way road) after the rest
of that edge's cost; a route to a phantom arrives by the tail of one of
its edges plus the cost so far. So the cost between two ends is the least
``exit cost + junction-to-junction cost + entry cost`` over at most two
exits and two entries, each junction-to-junction cost answered by the
algorithm asked for (plain searches, ``ch``, ``cch``, the csr plugin's
matrices), and, when both ends lie on one directed edge with the goal
ahead, the cost along the edge between them. This is exactly the search
on the graph with the edges split at the snapped points, for every
algorithm, with no kernel of its own. A node id is an end with one exit
and one entry, itself, at cost 0.
"""
from __future__ import annotations

import numpy as np

from navcore import validate
from navcore.types import PathResult, PathStatus

from . import locate

INF = np.inf


class Ends:
    """Per end ``i``: ``exits[i]`` / ``exit_cost[i]`` (two junctions a
    route from it leaves by, -1 / inf for none), ``entries[i]`` /
    ``entry_cost[i]`` (two a route to it arrives by), ``edges[i]`` /
    ``before[i]`` (the edges it lies on and the cost from their tails,
    for two ends on one edge), ``segs[i]`` and ``points[i]`` (the snapped
    segments and point; -1 and NaN for a node id)."""

    __slots__ = ("exits", "exit_cost", "entries", "entry_cost", "edges", "before", "after",
                 "segs", "points")


def of_points(graph, points, what="points") -> Ends:
    """The phantoms of (lon, lat) ``points`` (a ``NodeError`` for a point
    that is not a (lon, lat))."""
    sn = locate.snap_points(graph, locate.lonlat_points(graph, points, what))
    out = Ends()
    out.exits, out.exit_cost = sn.exits, sn.exit_cost
    out.entries, out.entry_cost = sn.entries, sn.entry_cost
    # on a junction (its one exit and entry, the same node): a node end
    on = (sn.valid & ((sn.exits[:, 0] < 0) | (sn.exits[:, 0] != sn.entries[:, 0])))[:, None]
    out.edges = np.where(on, sn.edges, -1)
    out.before, out.after = sn.before, sn.after
    out.segs = np.where(on, sn.segments, -1)
    out.points = sn.points
    return out


def of_nodes(graph, nodes) -> Ends:
    """Node ids (validated) as ends: each its own exit and entry."""
    nodes = np.asarray(nodes, dtype=np.int64)
    k = nodes.size
    out = Ends()
    none = np.full((k, 1), -1, dtype=np.int64)
    inf = np.full((k, 1), INF)
    cost = np.where(graph.walkable[nodes], 0.0, INF)[:, None]
    out.exits = out.entries = np.concatenate((nodes[:, None], none), axis=1)
    out.exit_cost = out.entry_cost = np.concatenate((cost, inf), axis=1)
    out.edges = np.full((k, 2), -1, dtype=np.int64)
    out.before = out.after = np.full((k, 2), INF)
    out.segs = out.edges
    out.points = np.full((k, 2), np.nan)
    return out


def _along(s: Ends, t: Ends) -> np.ndarray:
    """(k, l, 2, 2) cost from end ``s[i]`` to end ``t[j]`` along an edge
    both lie on (goal ahead), inf elsewhere."""
    return _along_cost(s.edges[:, None, :, None], s.before[:, None, :, None],
                       s.after[:, None, :, None], t.edges[None, :, None, :],
                       t.before[None, :, None, :], t.after[None, :, None, :])


def _along_cost(se, sb, sa, te, tb, ta):
    """Cost along edge ``se`` from a point ``sb`` after its tail (``sa``
    before its head) to a point on edge ``te`` (``tb``, ``ta``), inf
    unless both are on one edge with the goal ahead: the difference of
    the costs from the tail, or of those to the head when a closed
    segment lies before both (numpy, broadcast)."""
    with np.errstate(invalid="ignore"):
        from_tail = np.isfinite(tb) & np.isfinite(sb)
        cost = np.where(from_tail, tb - sb, sa - ta)
        ok = (se >= 0) & (se == te) & (cost >= 0) & np.isfinite(cost)
    return np.where(ok, cost, INF)


def route(graph, request, name, solve, seeded=None) -> PathResult:
    """``find_path`` between ``request.start`` and ``request.goal``
    (node ids or points; at least one a point) by ``solve(s, t)``, the
    junction-to-junction route of algorithm ``name`` (one per exit and
    entry), or by ``seeded(exits, exit_cost, entries, entry_cost)``, one
    search from all exits to all entries at once."""
    ends = Route(graph, request)
    if seeded is not None:
        return ends.finish(name, seeded(*ends.seeds()))
    s_end, t_end = ends.s_end, ends.t_end
    expanded = 0
    solved = {}
    for a in range(2):
        x, cx = int(s_end.exits[0, a]), s_end.exit_cost[0, a]
        if not cx < INF:
            continue
        for b in range(2):
            y, cy = int(t_end.entries[0, b]), t_end.entry_cost[0, b]
            if not cy < INF:
                continue
            r = solved.get((x, y))
            if r is None:
                r = solved[(x, y)] = solve(x, y)
                expanded += r.expanded
            if r.found and cx + r.cost + cy < ends.best:
                ends.best, ends.how = cx + r.cost + cy, (a, b, r)
    return ends.result(name, expanded)


class Route:
    """A route's two ends (``Ends``, points snapped) and the cheapest way
    along one road between them, if they share one (``best``, ``how``);
    the searches between their junctions come after (``route``, or a
    stepped search that ends with :meth:`finish`)."""

    def __init__(self, graph, request):
        self.graph = graph
        self.s_end, self.t_end = s_end, t_end = _route_ends(graph, request.start, request.goal)
        best, how = INF, None
        se, sb, sa = s_end.edges[0].tolist(), s_end.before[0].tolist(), s_end.after[0].tolist()
        te, tb, ta = t_end.edges[0].tolist(), t_end.before[0].tolist(), t_end.after[0].tolist()
        for a in range(2):
            for b in range(2):
                if se[a] >= 0 and se[a] == te[b]:
                    c = float(_along_cost(se[a], sb[a], sa[a], te[b], tb[b], ta[b]))
                    if c < best:
                        best, how = c, (a, b, None)
        self.best, self.how = best, how

    def seeds(self):
        """``(exits, exit_cost, entries, entry_cost)`` of a seeded search."""
        return (self.s_end.exits[0], self.s_end.exit_cost[0], self.t_end.entries[0],
                self.t_end.entry_cost[0])

    def finish(self, name, r) -> PathResult:
        """The route, given ``r``, the seeded search's ``PathResult``."""
        s_end, t_end = self.s_end, self.t_end
        if r.found and r.cost < self.best:
            a = 0 if s_end.exits[0, 0] == r.nodes[0] else 1
            b = 0 if t_end.entries[0, 0] == r.nodes[-1] else 1
            self.best, self.how = r.cost, (a, b, r)
        return self.result(name, r.expanded)

    def result(self, name, expanded) -> PathResult:
        if self.how is None:
            return PathResult.failed(PathStatus.UNREACHABLE, name, expanded)
        graph, s_end, t_end, best = self.graph, self.s_end, self.t_end, self.best
        a, b, r = self.how
        seg = graph.segments
        chain, chain_start, where = graph.chain, graph.chain_start, locate.index_of(graph).where

        def drawn(segs):               # the far ends of ``segs``, (lon, lat)
            v = seg.dst[segs]
            return np.column_stack((seg.lon[v], seg.lat[v]))

        s_seg, t_seg = s_end.segs[0, a], t_end.segs[0, b]
        if r is None:                  # along one edge
            pts = np.vstack((s_end.points[:1], drawn(chain[where[s_seg]:where[t_seg]]),
                             t_end.points[:1]))
            return PathResult.found_path(np.empty(0, dtype=np.int32), _distinct(pts), best,
                                         expanded, name)
        parts = []
        if s_seg >= 0:
            e = s_end.edges[0, a]
            parts += [s_end.points[:1], drawn(chain[where[s_seg]:chain_start[e + 1]])]
        else:
            parts.append(r.points[:1])
        parts.append(r.points[1:])
        if t_seg >= 0:
            f = t_end.edges[0, b]
            parts += [drawn(chain[chain_start[f]:where[t_seg]]), t_end.points[:1]]
        return PathResult.found_path(r.nodes, _distinct(np.vstack(parts)), best, expanded,
                                     name)


def _distinct(points):
    """``points`` without a row equal to the one before it (a point that
    snapped onto a node: the snapped point is that node)."""
    if points.shape[0] < 2:
        return points
    keep = np.ones(points.shape[0], dtype=np.bool_)
    keep[1:] = (points[1:] != points[:-1]).any(axis=1)
    return points if keep.all() else points[keep]


def best_pair(name, solve, distance):
    """A ``seeded`` for ``route`` from an algorithm whose distances cost
    less than its paths (a hierarchy's): the cheapest exit-entry pair by
    ``distance(x, y)``, then the one path ``solve(x, y)``."""
    def seeded(exits, exit_cost, entries, entry_cost) -> PathResult:
        best, pick = INF, None
        for a in range(2):
            x, cx = int(exits[a]), float(exit_cost[a])
            if not cx < INF:
                continue
            for b in range(2):
                y, cy = int(entries[b]), float(entry_cost[b])
                if cy < INF:
                    c = cx + distance(x, y) + cy
                    if c < best:
                        best, pick = c, (x, y)
        if pick is None:
            return PathResult.failed(PathStatus.UNREACHABLE, name)
        r = solve(*pick)
        return PathResult.found_path(r.nodes, r.points, best, r.expanded, name) if r.found \
            else r
    return seeded


def _route_ends(graph, start, goal):
    """The ends of a route (both points: snapped in one call)."""
    if _is_node(start) or _is_node(goal):
        return _end(graph, start, "start"), _end(graph, goal, "goal")
    both = of_points(graph, [_xy(start, "start"), _xy(goal, "goal")], "ends")
    one, two = Ends(), Ends()
    for name in Ends.__slots__:
        value = getattr(both, name)
        setattr(one, name, value[:1])
        setattr(two, name, value[1:])
    return one, two


def _is_node(where) -> bool:
    return type(where) is int or validate.is_int(where)


def _xy(where, what):
    return validate.xy(where, f"the {what}: a node id or a (lon, lat) point")


def _end(graph, where, what) -> Ends:
    if _is_node(where):
        return of_nodes(graph, [where])
    return of_points(graph, [_xy(where, what)], what)


def ends(graph, nodes, points, what) -> Ends:
    if points is None:
        return of_nodes(graph, nodes)
    ids = np.isnan(points[:, 0])
    if ids.any():              # entries given as junction ids: at the junction itself
        points = points.copy()
        points[ids] = graph.positions[nodes[ids]]
    return of_points(graph, points, what)


def _junctions(nodes, cost):
    """The distinct junctions among ``nodes`` with a finite ``cost``, and
    where each entry of ``nodes`` is among them (0 where none)."""
    use = cost < INF
    uniq = np.unique(nodes[use]).astype(np.int32)
    at = np.searchsorted(uniq, nodes) if uniq.size else np.zeros(nodes.shape, np.int64)
    return uniq, np.minimum(at, max(uniq.size - 1, 0))


def matrix(world, graph, sources, targets, source_points, target_points) -> np.ndarray:
    """``distance_matrix`` where sources or targets were given as points:
    the junction matrix between their exits and entries (answered by the
    hooks as for node ids), each cell the least combination."""
    s_end = ends(graph, sources, source_points, "sources")
    t_end = ends(graph, targets, target_points, "targets")
    xs, xi = _junctions(s_end.exits, s_end.exit_cost)
    ys, yi = _junctions(t_end.entries, t_end.entry_cost)
    out = _along(s_end, t_end).min(axis=(2, 3))
    if xs.size and ys.size:
        m = world.plugins.hook.navcore_distance_matrix(
            world=world, graph=graph, sources=xs, targets=ys, source_points=None,
            target_points=None)
        for a in range(2):
            for b in range(2):
                np.minimum(out, s_end.exit_cost[:, a, None] + m[xi[:, a]][:, yi[:, b]]
                           + t_end.entry_cost[None, :, b], out=out)
    return out


def pairs(world, graph, sources, targets, source_points, target_points) -> np.ndarray:
    """``distance_pairs`` where sources or targets were given as points:
    the junction pairs of every finite exit-entry combination in one call."""
    s_end = ends(graph, sources, source_points, "sources")
    t_end = ends(graph, targets, target_points, "targets")
    k = s_end.exits.shape[0]
    i = np.arange(k)
    out = _along_pairs(s_end, t_end)
    rows, xs, ys, extra = [], [], [], []
    for a in range(2):
        for b in range(2):
            c = s_end.exit_cost[:, a] + t_end.entry_cost[:, b]
            use = c < INF
            rows.append(i[use])
            xs.append(s_end.exits[use, a])
            ys.append(t_end.entries[use, b])
            extra.append(c[use])
    rows = np.concatenate(rows)
    if rows.size:
        d = world.plugins.hook.navcore_distance_pairs(
            world=world, graph=graph, sources=np.concatenate(xs).astype(np.int32),
            targets=np.concatenate(ys).astype(np.int32), source_points=None,
            target_points=None)
        np.minimum.at(out, rows, d + np.concatenate(extra))
    return out


def _along_pairs(s_end: Ends, t_end: Ends) -> np.ndarray:
    """Per pair ``i`` the cost from ``s[i]`` to ``t[i]`` along one edge."""
    return _along_cost(s_end.edges[:, :, None], s_end.before[:, :, None],
                       s_end.after[:, :, None], t_end.edges[:, None, :],
                       t_end.before[:, None, :], t_end.after[:, None, :]).min(axis=(1, 2))
