"""Off-mesh links on a layered navmesh: jumps, ladders, doors, teleporters
(Detour's off-mesh connections).

A link joins two points of the mesh that no walkable geometry joins (a
ledge and the floor below it, the two ends of a ladder): ``start`` and
``end`` (3D points in the graph's axes), ``radius`` (each end is attached
to the polygon nearest it within ``radius`` across and the graph's
``climb`` up or down, Detour's rule; the path then runs to that polygon's
point nearest the end), ``bidirectional`` (``True``: it may be taken from
``end`` to ``start`` too), ``cost`` (what taking it adds to a path's
``cost``; by default the 3D distance between ``start`` and ``end``, what
Detour charges for an off-mesh link) and ``kind`` (a free string the
path reports: ``"jump"``, ``"ladder"``, ...).

Exact search (``polyanya``, also ``auto``, ``astar``, ``dijkstra``): an
A* over a small graph whose nodes are the query's two ends and the
links' ends, its edges the links themselves (their ``cost``) and the
exact Polyanya lengths on the ground between the points (what a path
walks), so the path found is the shortest of the direct one and every one
that takes links, ``cost`` its walked horizontal length plus the costs of
the links it takes. Its estimate of the rest of the way is a lower bound
made per query (``_links.link_bounds``: straight ground lengths and link
costs over the link graph, so also right for teleports cheaper than their
length), and a walked length is searched only when a route through it
could still beat the best found, and only between points in one
connected part of the mesh; those between link ends are kept
(``LinkSpace``) until the graph changes (an update batch: walkable flags,
costs). ``expanded`` sums the search nodes of every walked length the
query weighed (a kept one counted as when it was searched), so a stepped
search (``LinkedSearch``, whose walked lengths are stepped Polyanya
searches) ends with ``find_path``'s result and count.

Area filters (``include_areas=``, ``exclude_areas=``; ``areafilter``)
stay exact: the walks search the filter's ``FilteredSpace`` (left-out
polygons are walls), a link whose start or end polygon the filter leaves
out is not taken, and the walks between link ends are kept per filter
(``LinkSpace.filtered``). ``distance_matrix``/``distance_pairs``
(``lengths``) batch the walks and run one Dijkstra over the link graph
per source.

A link whose end's polygon is blocked (``walkable=False``) is not taken.
When an update replaces the polygons (tiles rebuilt), the links attach
again to the new ones (``LinkSpace``, on the first query after it); an end
that no longer attaches leaves its link unused until one does.

The funnel and the polygon-graph searches do not follow links: on a graph
with links they are a ``QueryError`` naming ``polyanya``. ``reachable``
and ``reachable_many`` count links (one-way ones one way: the connected
parts of the mesh joined by the usable links, ``LinkSpace.reach``); the
areas plugin's areas, ``nearest_reachable`` and the polygon graph itself
count walkable geometry only.
"""
from __future__ import annotations

import heapq
import math
from collections.abc import Mapping

import numpy as np

import navcore
from navcore import limits, validate
from navcore.errors import GraphError, QueryError
from navcore.search import Search
from navcore.types import PathLink, PathRequest, PathResult, PathStatus

from . import _layered as K
from . import _links as L
from . import funnel, polyanya, polygon_search
from .sliced import PolyanyaSearch

#: where a layered mesh keeps its links' search state
LINKS_KEY = "navcore_navmesh.links"
_KEYS = ("start", "end", "radius", "bidirectional", "cost", "kind")
_S, _T = 0, 1                       # the query's ends in the link graph


class Links:
    """A layered mesh's off-mesh links, checked and attached: ``start``,
    ``end`` float64 ``(L, 3)`` (the caller's axes), ``radius``, ``cost``
    float64 ``(L,)``, ``bidirectional`` bool ``(L,)``, ``kind`` a tuple of
    strings; ``polygon`` int32 ``(L, 2)``, the polygons the start and end
    are attached to, and ``ground`` float64 ``(L, 2, 2)`` the ground-plane
    points there (the path's points at the link)."""

    def __init__(self, start, end, radius, bidirectional, cost, kind, polygon, ground):
        self.start, self.end, self.radius = start, end, radius
        self.bidirectional, self.cost, self.kind = bidirectional, cost, kind
        self.polygon, self.ground = polygon, ground
        #: the polygon arrays they were attached to (``LinkSpace`` attaches
        #: them again when an update replaced the polygons)
        self.geometry = None

    def __len__(self) -> int:
        return len(self.kind)

    def __repr__(self) -> str:
        return f"Links({len(self)} links, kinds {sorted(set(self.kind))})"


def _point(value, what) -> np.ndarray:
    """A link end: three finite numbers (not bools, not a string)."""
    try:
        p = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        p = None
    if p is None or p.shape != (3,) or isinstance(value, (str, bytes)) \
            or any(isinstance(v, (bool, np.bool_)) for v in value):
        raise GraphError(f"{what} must be a 3D point (x, y, z), got {validate.describe(value)}")
    if not (np.abs(p) <= limits.MAX_COORDINATE).all():
        raise GraphError(f"{what} must be finite and within ±{limits.MAX_COORDINATE:g}, got "
                         f"{p.tolist()}")
    return p


def parse_links(graph, links, default_radius) -> Links:
    """``links`` (a list of dicts, see the module docstring) checked and
    attached to ``graph``'s polygons; ``GraphError`` naming the link's
    index for anything wrong, a missing key, or an end on no polygon."""
    try:
        if isinstance(links, (str, bytes, Mapping)):
            raise TypeError
        links = list(links)
    except TypeError:               # not iterable (a number, a 0-d array)
        raise GraphError(f"links must be a list of dicts, got "
                         f"{validate.describe(links)}") from None
    # the walks between link ends a graph keeps (``LinkSpace.walks``)
    limits.check_pairs("the walks kept between links' ends", 4 * len(links) ** 2, 256)
    default_radius = validate.distance(default_radius, "the links' default radius")
    n = len(links)
    start, end = np.empty((n, 3)), np.empty((n, 3))
    radius, cost = np.empty(n), np.empty(n)
    both = np.empty(n, dtype=bool)
    kinds = []
    for i, link in enumerate(links):
        where = f"links[{i}]"
        if not isinstance(link, Mapping):
            raise GraphError(f"{where} must be a dict with 'start' and 'end', got "
                             f"{validate.describe(link)}")
        unknown = [k for k in link if k not in _KEYS]
        if unknown:
            raise GraphError(f"{where} has unknown key {unknown[0]!r}; a link's keys are "
                             f"{', '.join(map(repr, _KEYS))}")
        for key in ("start", "end"):
            if key not in link:
                raise GraphError(f"{where} has no {key!r} point")
        start[i] = _point(link["start"], f"{where}['start']")
        end[i] = _point(link["end"], f"{where}['end']")
        radius[i] = validate.distance(link.get("radius", default_radius),
                                      f"{where}['radius']")
        both[i] = validate.boolean(link.get("bidirectional", True), f"{where}['bidirectional']")
        c = link.get("cost")
        cost[i] = float(np.linalg.norm(end[i] - start[i])) if c is None else \
            validate.distance(c, f"{where}['cost']")
        kind = link.get("kind", "link")
        if not isinstance(kind, str):
            raise GraphError(f"{where}['kind'] must be a string, got {validate.describe(kind)}")
        kinds.append(kind)
    links = Links(start, end, radius, both, cost, tuple(kinds), None, None)
    links.polygon, links.ground = attach(graph, links)
    links.geometry = (graph.vertices, graph.poly_start)
    return links


def attach(graph, links, strict=True) -> tuple:
    """``(polygon, ground)`` of each link's start and end on ``graph``'s
    polygons as they are (``_attach``): ``GraphError`` for an end on no
    polygon, or (``strict=False``, polygons replaced by an update) that
    end's polygon ``-1``, the link unusable until it attaches again."""
    n = len(links)
    polygon = np.empty((n, 2), dtype=np.int32)
    ground = np.zeros((n, 2, 2))
    for i in range(n):
        for j, (p, what) in enumerate(((links.start[i], "start"), (links.end[i], "end"))):
            try:
                polygon[i, j], ground[i, j] = _attach(graph, p, links.radius[i], f"links[{i}]",
                                                      what)
            except GraphError:
                if strict:
                    raise
                polygon[i, j] = -1
    return polygon, ground


def _attach(graph, point, radius, where, what):
    """``(polygon, ground point)`` a link end is attached to: the polygon
    nearest it within ``radius`` across and ``graph.climb`` up (walkable
    or not: a link outlives its polygon's blocking), the point a hair
    inside it (the search finds it there whatever the rounding)."""
    x, y, h = graph._point3(point, f"{where}['{what}']")
    args = graph._kernel_args()
    r = float(radius)
    # the box searched: no wider than the mesh seen from the point (a
    # radius of 1e300 would overflow the kernel's cell range)
    v = graph.vertices
    far = float(max(abs(x - v[:, 0].min()), abs(x - v[:, 0].max()),
                    abs(y - v[:, 1].min()), abs(y - v[:, 1].max())))
    box = min(r, far)
    every = np.ones(graph.num_polygons, dtype=np.bool_)
    # the kernel's half extents: across, across, up (``args``: the graph's
    # own extents, then the climb and the mesh arrays)
    p, gx, gy, _ = K.nearest_poly(x, y, h, box, box, graph.climb, graph.climb, *args[4:],
                                  every, *graph._packed[2])
    if p < 0 or math.hypot(gx - x, gy - y) > r * (1 + 1e-9) + 1e-12:
        raise GraphError(f"{where}: its {what} {np.asarray(point).tolist()} lies on no "
                         f"polygon within its radius {r:g} across and the climb "
                         f"{graph.climb:g} up or down (Detour's rule for off-mesh links)")
    if (gx, gy) != (x, y):
        c = graph.positions[p]
        gx, gy = gx + 1e-9 * (c[0] - gx), gy + 1e-9 * (c[1] - gy)
    return int(p), (float(gx), float(gy))


class LinkSpace(navcore.DerivedView):
    """What a linked query needs beyond the mesh, for one graph version
    and one area filter (``filtered``; the graph's own space has none):
    the link graph's points (``xy``: the query's two ends' places, then
    each link's start and end: point ``2 + 2i`` is link ``i``'s start,
    ``3 + 2i`` its end), each point's polygon, the polygons' connected
    parts (walkable and let through by the filter, through open portals),
    the points one may leave by (``depart``) and the walks between link
    ends searched so far (``walks``; over the filter's polygons, the
    others walls: ``ground``, its ``FilteredSpace``, None for none)."""

    def __init__(self, graph, area_filter=None, base=None):
        super().__init__(graph)
        from scipy.sparse import csr_matrix
        from scipy.sparse.csgraph import connected_components
        links = graph.links
        n = len(links)
        if base is None:
            polygon, ground = links.polygon, links.ground
            if links.geometry is None or links.geometry[0] is not graph.vertices \
                    or links.geometry[1] is not graph.poly_start:
                # an update replaced the polygons (tiles rebuilt): attached again
                polygon, ground = attach(graph, links, strict=False)
            self.xy = np.zeros((2 + 2 * n, 2))
            self.xy[2:] = ground.reshape(-1, 2)
            self.poly = np.full(2 + 2 * n, -1, dtype=np.int64)
            self.poly[2:] = polygon.reshape(-1)
        else:                       # a filter's: the same points
            self.xy, self.poly = base.xy, base.poly
        self.area_filter = area_filter
        walkable = graph.walkable if area_filter is None else area_filter.mask
        self.ground = None if area_filter is None else area_filter.space()
        csr = graph.csr
        src = np.repeat(np.arange(graph.num_nodes), np.diff(csr.offsets))
        keep = walkable[src] & walkable[csr.targets] & np.isfinite(csr.cost)
        m = csr_matrix((np.ones(int(keep.sum())), (src[keep], csr.targets[keep])),
                       shape=(graph.num_nodes, graph.num_nodes))
        _, part = connected_components(m, directed=False)
        part = part.astype(np.int64)
        part[~walkable] = -1
        self.part = part
        at = self.poly[2:]
        self.link_part = np.where(at >= 0, part[np.maximum(at, 0)], -1)
        #: per point of the link graph, whether one may leave by the link
        #: there: a link's start (its end too when bidirectional), both
        #: ends on polygons the query may walk
        ends = np.zeros(2 * n, dtype=bool)
        ends[0::2] = True
        ends[1::2] = links.bidirectional
        both = (self.link_part.reshape(-1, 2) >= 0).all(axis=1).repeat(2)
        self.depart = np.concatenate([[False, False], ends & both])
        #: the points one may leave by in each connected part
        usable = np.flatnonzero(self.depart)
        order = np.argsort(self.link_part[usable - 2], kind="stable")
        usable = usable[order]
        cuts = np.flatnonzero(np.diff(self.link_part[usable - 2])) + 1
        self.departures = {int(self.link_part[g[0] - 2]): g.tolist()
                           for g in np.split(usable, cuts) if g.size}
        #: each link's cost
        self.cost = np.ascontiguousarray(links.cost)
        #: ``(a, b) -> ground PathResult``: the walks between link ends
        #: searched so far (points of the link graph, ``2 + slot``)
        self.walks = {}
        self._reach = None
        self._link_walks = None
        self._filtered = {}

    def filtered(self, area_filter) -> "LinkSpace":
        """This space for queries through ``area_filter``
        (``areafilter.AreaFilter``; None: this one), made on first use and
        kept with this graph version (up to ``areafilter.KEEP`` filters)."""
        if area_filter is None:
            return self
        from .areafilter import KEEP
        got = self._filtered.get(id(area_filter))
        if got is None or got.area_filter is not area_filter:
            if len(self._filtered) >= KEEP:
                self._filtered.clear()
            got = self._filtered[id(area_filter)] = LinkSpace(self.graph, area_filter, self)
        return got

    def link_walks(self) -> np.ndarray:
        """float64 ``(k, k)`` (``k``: the links' ends): the walk lengths
        from each link end to each one may leave by, in one part (``inf``
        elsewhere), on the graph's own polygons; made on first need."""
        if self._link_walks is None:
            lxy, lpoly, lpart = self.xy[2:], self.poly[2:], self.link_part
            k = len(lxy)
            a, d = np.nonzero((lpart[:, None] == lpart[None, :]) & (lpart[:, None] >= 0)
                              & self.depart[None, 2:] & ~np.eye(k, dtype=bool))
            out = np.full((k, k), np.inf)
            out[a, d] = _walks(self.graph, lxy[a], lpoly[a], lxy[d], lpoly[d])
            self._link_walks = out
        return self._link_walks

    def reach(self) -> tuple:
        """``(index, closure)``: ``index`` int64 per connected part, its
        row in ``closure`` (``-1``: no usable link end lies in it), and
        ``closure[i, j]`` whether part ``j``'s row is reached from part
        ``i``'s by walks and links (made on first need)."""
        if self._reach is None:
            links = self.graph.links
            ends = self.link_part.reshape(-1, 2)
            usable = (ends >= 0).all(axis=1)
            parts = np.unique(ends[usable])
            index = np.full(int(self.part.max()) + 1 if self.part.size else 0, -1,
                            dtype=np.int64)
            index[parts] = np.arange(len(parts))
            k = len(parts)
            closure = np.eye(k, dtype=bool)
            go = index[ends[usable]]
            closure[go[:, 0], go[:, 1]] = True
            back = go[links.bidirectional[usable]]
            closure[back[:, 1], back[:, 0]] = True
            for m in range(k):              # Warshall: k is at most twice the links
                closure |= closure[:, m:m + 1] & closure[m:m + 1, :]
            self._reach = (index, closure)
        return self._reach


def link_space(graph, area_filter=None) -> LinkSpace:
    """The graph's link space, through ``area_filter`` when given."""
    return graph.view(LINKS_KEY, LinkSpace).filtered(area_filter)


class _Query:
    """One linked query's A* over the link graph, as a generator (``run``)
    of the walks it needs searched: it yields ``(a, b)`` (points of the
    link graph) and is sent that walk's ground ``PathResult``; it returns
    the route found, ``[(walk, link), ...]`` (the last link ``-1``), or
    ``None`` when the goal is unreachable.

    Its nodes: ``A(p)``, at point ``p`` free to walk (the start, or a link
    end just arrived at), and ``D(p)``, at point ``p`` about to leave by
    the link there (the goal is a ``D`` too); edges ``A(p) -> D(q)`` the
    walk from ``p`` to ``q`` (weighed lazily: pushed with its straight
    length, a lower bound, and searched when popped), ``D(p) -> A(q)``
    the link from ``p`` to its other end ``q``. Keys add the lower bound
    of the rest of the way (``_links.link_bounds``: straight lengths and
    link costs over the link graph, consistent), so a walk is searched
    only when a route through it could still beat the best found, and
    the first goal popped is the cheapest route."""

    def __init__(self, graph, space, s, t):
        self.graph, self.space = graph, space
        self.xy = space.xy.copy()
        self.poly = space.poly.copy()
        self.xy[_S], self.poly[_S] = s[:2], s[2]
        self.xy[_T], self.poly[_T] = t[:2], t[2]
        part = space.part
        self.part = np.concatenate([part[self.poly[:2]], space.link_part])
        self.departures = space.departures
        # an end on a pinch vertex starts in every part around it: those
        # parts are one for this query (a walk between two of them that
        # no end joins finds no path, and the bounds stay admissible)
        if L.on_corner(self.xy[:2], self.poly[:2], graph.vertices, graph.poly_start,
                       graph.poly_verts, np.empty(2, dtype=np.bool_)):
            around = [g for g in holding_parts(graph, part, self.xy[:2], self.poly[:2])
                      if len(g) > 1]
            if around:
                self.part, self.departures = _merged(self.part, space.departures, around)
        self.h = np.empty(len(self.xy))
        self.hd = np.empty(len(self.xy))
        L.link_bounds(self.xy, self.part, space.depart, space.cost, self.h, self.hd)
        self.walks = {}             # the walks from or to the query's ends
        self.expanded = 0
        #: the nodes settled so far (in order) and the node before each
        #: (``run``): the routes a partial result may follow
        self.dist, self.pred = {}, {}

    def walk(self, a, b) -> PathResult:
        """The walk from point ``a`` to point ``b`` searched (or kept)."""
        if a >= 2 and b >= 2:
            return self.space.walks.get((a, b))
        return self.walks.get((a, b))

    def run(self):
        space = self.space
        xy = self.xy
        # Python floats and ints: the loop below reads them one at a time
        h, hd, cost = self.h.tolist(), self.hd.tolist(), space.cost.tolist()
        part = self.part.tolist()
        xs, ys = xy[:, 0].tolist(), xy[:, 1].tolist()
        goal_part = part[_T]
        tx, ty = xs[_T], ys[_T]
        departures = self.departures
        n = len(xs)                         # D(p) is node n + p; A(p) node p
        goal = n + _T
        inf = math.inf
        hypot, push, pop = math.hypot, heapq.heappush, heapq.heappop
        if not h[_S] < inf:                 # no walks and links lead there
            return None
        dist, pred = self.dist, self.pred
        # (key: cost so far + lower bound of the rest, seq, weighed, from,
        # node, cost so far)
        heap = [(h[_S], 0, 1, -1, _S, 0.0)]
        seq = 0
        best = inf                          # the cheapest route to the goal pushed
        while heap:
            key, _, weighed, a, node, g = pop(heap)
            if node in dist:
                continue
            if not weighed:                 # a walk pushed at its lower bound
                if key >= best:             # cannot beat the route found
                    continue
                p, q = a, node - n
                found = self.walk(p, q)
                if found is None:
                    found = yield p, q
                    if p >= 2 and q >= 2:
                        space.walks[(p, q)] = found
                    else:
                        self.walks[(p, q)] = found
                self.expanded += found.expanded
                if found.status is PathStatus.FOUND:
                    g += found.cost
                    k = g + hd[q]
                    if k < best:
                        if node == goal:
                            best = k
                        seq += 1
                        push(heap, (k, seq, 1, a, node, g))
                continue
            dist[node], pred[node] = g, a
            if node == goal:
                return self._route(goal)
            if node >= n:                   # D(p): leave by the link at p
                p = node - n
                q = p ^ 1
                if q not in dist:
                    g += cost[(p - 2) >> 1]
                    k = g + h[q]
                    if k < best:
                        seq += 1
                        push(heap, (k, seq, 1, node, q, g))
                continue
            here = part[node]               # A(p): walk to the goal or a link
            x, y = xs[node], ys[node]
            if goal_part == here:
                k = g + hypot(tx - x, ty - y)
                if k < best:
                    seq += 1
                    push(heap, (k, seq, 0, node, goal, g))
            targets = departures.get(here)
            if targets is None:
                continue
            for q in targets:
                if q != node and n + q not in dist:
                    k = g + hypot(xs[q] - x, ys[q] - y) + hd[q]
                    if k < best:
                        seq += 1
                        push(heap, (k, seq, 0, node, n + q, g))
        return None

    def _route(self, node) -> list:
        """``[(walk, link), ...]`` from the start to the settled ``node``
        (the goal ``D(1)``, or for a partial result another): each walk
        ``(a, b)`` and the link taken after it (``-1``: none; at ``A(p)``
        the last walk's link is the one that landed there)."""
        pred, n = self.pred, len(self.xy)
        hops = []
        while node != _S:
            a = pred[node]
            hops.append((a, node))
            node = a
        hops.reverse()
        route = []
        for a, b in hops:
            if b >= n:                      # A(a) -> D(b - n): a walk
                route.append([(a, b - n), -1])
            else:                           # D(a - n) -> A(b): the link after that walk
                route[-1][1] = (a - n - 2) // 2
        return [tuple(r) for r in route]

    def estimate(self, a, x, y) -> float:
        """The lower bound of the rest of the way from the ground point
        ``(x, y)`` in the connected part of point ``a`` (``link_bounds``'
        ``h`` for a point off the link graph): straight to the goal, or
        straight to a link one may leave by and on."""
        part, xy, hd = int(self.part[a]), self.xy, self.hd
        best = math.inf
        if int(self.part[_T]) == part:
            best = math.hypot(x - xy[_T, 0], y - xy[_T, 1])
        for d in self.departures.get(part, ()):
            best = min(best, math.hypot(x - xy[d, 0], y - xy[d, 1]) + hd[d])
        return best

    def nearest(self, leg, a) -> tuple:
        """``(node, tail)``, where a partial result ends: the node settled so
        far nearest the goal by the lower bound (``h`` at its point; the
        first on a tie), or, when its partial path ``leg`` (the running
        walk's, from the settled ``A(a)``) ends as near or nearer, ``A(a)``
        with ``leg`` as ``tail``; the start with no tail when nothing else
        was settled and no walk has a partial path yet."""
        n = len(self.xy)
        best, at, tail = math.inf, _S, None
        for node in self.dist:
            p = node - n if node >= n else node
            if node != _S and self.h[p] < best:
                best, at = self.h[p], node
        if leg is not None:
            x, y = leg.points[-1, 0], leg.points[-1, 1]
            if self.estimate(a, float(x), float(y)) <= best:
                at, tail = a, leg
        return at, tail


def holding_parts(graph, part, xy, polys) -> list:
    """Per end (ground points ``xy`` located in polygons ``polys``), the
    parts (``part``, a ``LinkSpace``'s) of every polygon a Polyanya search
    from it starts in (``_polyanya._holding``: across the edges it lies
    on, all round a vertex it lies on, pinches included); an end off the
    mesh: its own polygon's part."""
    from ._polyanya import _holding
    space = polyanya.search_space(graph)
    mesh = space.mesh(graph.walkable)
    vertices, poly_start, poly_verts, links, walkable, incidence = \
        mesh[0], mesh[1], mesh[2], mesh[3], mesh[6], mesh[8]
    # room for every polygon around a vertex, or across an edge (and its ends)
    room = np.empty(space.most_around + 8, dtype=np.int32)
    out = []
    for (x, y), p in zip(np.asarray(xy, dtype=np.float64), np.asarray(polys, dtype=np.int64)):
        k = _holding(float(x), float(y), int(p), vertices, poly_start, poly_verts, links,
                     walkable, incidence, float(space.params[0]), room) if p >= 0 else 0
        got = part[room[:k]] if k else part[[p]] if p >= 0 else np.array([-1])
        got = np.unique(got)
        out.append(got[got >= 0] if (got >= 0).any() else got[:1])
    return out


def _merged(part, departures, groups) -> tuple:
    """``part`` (per point of the link graph) and ``departures`` (part ->
    points one may leave by) with each of ``groups`` (arrays of parts; two
    that share a part are joined) made one part, the least of them."""
    lead = {}

    def find(x):
        while lead.get(x, x) != x:
            x = lead[x]
        return x
    for g in groups:
        ids = [int(v) for v in g if v >= 0]
        root = min(find(v) for v in ids)
        for v in ids:
            lead[find(v)] = root
    mapping = {v: find(v) for v in lead}
    part = part.copy()
    out = dict(departures)
    for v, root in mapping.items():
        part[part == v] = root
        if v != root and v in out:
            out[root] = list(out.get(root, ())) + list(out.pop(v))
    return part, out


def _ground_ends(graph, request):
    """``((sx, sy, s_poly), (gx, gy, g_poly))``: a request's ends on the
    ground plane (``layered._flat``)."""
    from .layered import _flat
    flat = _flat(graph, request)
    s = polyanya.query_ends(graph, flat)
    return (s[0], s[1], s[4]), (s[2], s[3], s[5])


def _leg_request(graph, q, a, b) -> PathRequest:
    """The flat request of the walk from point ``a`` to point ``b``."""
    xy, poly = q.xy, q.poly
    return PathRequest(graph.graph_id, (float(xy[a, 0]), float(xy[a, 1])),
                       (float(xy[b, 0]), float(xy[b, 1])), polyanya.ALGORITHM,
                       int(poly[a]), int(poly[b]))


def _solve(graph, q, gen) -> list:
    """Drive ``q.run()`` (``gen``) with whole searches; the route."""
    ground = q.space.ground
    try:
        a, b = next(gen)
        while True:
            r = q.xy
            leg = polyanya._shortest(graph, float(r[a, 0]), float(r[a, 1]),
                                     float(r[b, 0]), float(r[b, 1]), int(q.poly[a]),
                                     int(q.poly[b]), space=ground)
            a, b = gen.send(leg)
    except StopIteration as stop:
        return stop.value


def _filter(graph, request):
    """``(area_filter, refused)``: the request's area filter
    (``areafilter.resolve``; None for none) and, when it leaves an end's
    polygon out, the ``invalid_start``/``invalid_goal`` result (else
    None); ``QueryError`` for area costs (``polyanya`` measures length)."""
    if not request.options:
        return None, None
    from . import areafilter
    f = areafilter.resolve(graph, request.options)
    if f is None:
        return None, None
    f.check_exact(request)
    return f, f.refused(request)


def refuse(graph, request):
    raise QueryError(
        f"algorithm {request.algorithm!r} does not follow the off-mesh links of navmesh "
        f"{request.graph_id!r}; ask for 'polyanya' (exact, with links; also what 'auto', "
        f"'astar' and 'dijkstra' mean on a navmesh)")


def refused(request) -> bool:
    """Whether ``request``'s algorithm is one that ignores links."""
    return request.algorithm == funnel.ALGORITHM or \
        request.algorithm in polygon_search.ALGORITHMS


def find_path(graph, request) -> PathResult | None:
    """``find_path`` on a layered mesh with links (``request``'s ends
    resolved to walkable polygons): the exact path, lifted to 3D; through
    the request's area filter when it asks for one (the walks over the
    polygons it lets through, a link usable only when both its ends' are)."""
    f, refused = _filter(graph, request)
    if refused is not None:
        return refused
    s, t = _ground_ends(graph, request)
    q = _Query(graph, link_space(graph, f), s, t)
    route = _solve(graph, q, q.run())
    return _result(graph, q, route)


def _result(graph, q, route) -> PathResult:
    """The lifted, joined ``PathResult`` of ``route`` (``_Query.run``)."""
    if route is None:
        return PathResult.failed(PathStatus.UNREACHABLE, polyanya.ALGORITHM, q.expanded)
    if len(route) == 1:                        # the direct walk: as without links
        r = graph.lift(q.walk(*route[0][0]))
        r.expanded = q.expanded
        return r
    return _joined(graph, q, [q.walk(a, b) for (a, b), _ in route],
                   [link for _, link in route], PathStatus.FOUND, q.expanded)


def _joined(graph, q, walks, taken, status, expanded) -> PathResult:
    """The ground ``walks`` lifted and joined, the link ``taken[i]``
    (``-1``: none) taken after walk ``i``: a result of ``status``
    (``found``, ``partial``) whose ``cost`` adds the walks' and the links'."""
    links = graph.links
    points, nodes, jumps = [], [], []
    cost = 0.0
    count = 0
    for leg, link in zip(walks, taken):
        lifted = graph.lift(leg).points
        if len(lifted) == 2 and (lifted[0] == lifted[1]).all():
            lifted = lifted[:1]                # a walk of no length: one point
        points.append(lifted)
        nodes.append(leg.nodes)
        count += len(lifted)
        cost += leg.cost
        if link >= 0:
            cost += float(links.cost[link])
            jumps.append(PathLink(int(link), links.kind[link], count - 1))
    out = PathResult.found_path(np.concatenate(nodes).astype(np.int32, copy=False),
                                np.concatenate(points), cost, expanded,
                                polyanya.ALGORITHM)
    out.status = status
    out.links = jumps
    return out


def _partial_result(graph, q, leg, a, expanded) -> PathResult:
    """A linked search's partial result (``_Query.nearest``): its route to
    the settled node nearest the goal, walks and links, then the running
    walk's partial path ``leg`` (ground, from ``A(a)``; None: none) when
    that ends nearer, or the point the route ends at."""
    at, tail = q.nearest(leg, a)
    route = q._route(at) if at != _S else []
    walks = [q.walk(*w) for w, _ in route]
    taken = [link for _, link in route]
    if tail is None and (not route or taken[-1] >= 0):
        # ends at a point it arrived at by a link, or at the start: that point
        p = at
        tail = PathResult.found_path(np.array([q.poly[p]], dtype=np.int32),
                                     q.xy[p:p + 1].copy(), 0.0, 0, polyanya.ALGORITHM)
    if tail is not None:
        walks.append(tail)
        taken.append(-1)
    return _joined(graph, q, walks, taken, PathStatus.PARTIAL, expanded)


class LinkedSearch(Search):
    """``find_path`` on a layered mesh with links, stepped: the link
    graph's Dijkstra, each walk it weighs a stepped Polyanya search
    (``sliced.PolyanyaSearch``) on the ground plane; so it closes the
    same search nodes as ``find_path`` and ends with its result. A
    partial result (as a navmesh's without links: one from the first
    node closed on) follows the route found so far to the point nearest
    the goal by the search's lower bound: a link end or takeoff settled,
    or where the running walk's partial path ends (``_Query.nearest``)."""

    def __init__(self, graph, request):
        self._leg = None
        super().__init__(graph, request)

    def _begin(self) -> None:
        graph = self.graph
        f, self._refused = _filter(graph, self.request)
        self._gen = None
        if self._refused is not None:
            return
        s, t = _ground_ends(graph, self.request)
        self._q = _Query(graph, link_space(graph, f), s, t)
        self._gen = self._q.run()
        self._walk = None            # the walk being searched, (a, b)
        self._found = None           # its result, once searched
        self._started = False

    def _advance(self, budget: int):
        if self._refused is not None:
            return self._refused
        q, graph, gen = self._q, self.graph, self._gen
        while True:
            if self._leg is None:
                try:
                    if self._started:
                        a, b = gen.send(self._found)
                    else:
                        self._started = True
                        a, b = next(gen)
                except StopIteration as stop:
                    return _result(graph, q, stop.value)
                self._walk, self._found = (a, b), None
                self._leg = PolyanyaSearch(graph, _leg_request(graph, q, a, b),
                                           q.space.ground)
            leg = self._leg
            if budget <= 0:
                # a walk that closes no node (its ends in one polygon) still
                # runs: a budget of the whole search's expansions finishes it
                if not leg.finish_free():
                    return None
            else:
                before = leg.expanded
                done = leg.step(budget)
                budget -= leg.expanded - before
                self.expanded = q.expanded + leg.expanded
                if not done:
                    return None
            self._found = leg.result()
            self._leg = None

    def _partial(self):
        if self._gen is None or not self._started:
            return None
        leg, r = self._leg, None
        if leg is not None:
            r = leg.result(partial=True)
            if r.status is not PathStatus.PARTIAL:
                r = None
        return _partial_result(self.graph, self._q, r, self._walk[0], self.expanded)

    def _release(self) -> None:
        leg, self._leg = self._leg, None
        if leg is not None and not leg.done:
            leg.close()
        gen, self._gen = getattr(self, "_gen", None), None
        if gen is not None:
            gen.close()


def lengths(graph, matrix, sources, targets, source_points, target_points) -> np.ndarray:
    """``World.distance_matrix`` (``matrix``) / ``distance_pairs`` on a
    layered mesh with links: each entry ``find_path``'s cost (``inf``:
    unreachable), from one batch of walks and one Dijkstra over the link
    graph per source instead of a search per pair. The walks (Polyanya
    lengths in one numba call each: sources to the links' ends, between
    links' ends (kept per graph version), links' ends to targets, and each
    pair's direct walk) are those ``find_path`` weighs, and the costs are
    summed in a route's order (``_links.arrivals``), so an entry is
    ``find_path``'s ``cost`` but for its last bits (the batch kernel sums
    a walk's segments from its goal end, ``find_path`` from its start).
    ``sources``/``targets``: the located polygons; ``*_points``: ``(k, 3)``
    3D ends (NaN rows: polygon ids, at their centroids) or None."""
    from .layered import ground_points
    space = link_space(graph)
    m, n = len(sources), len(targets)
    k = len(space.xy) - 2
    rows, cols = (np.repeat(np.arange(m), n), np.tile(np.arange(n), m)) if matrix \
        else (np.arange(m), np.arange(m))
    limits.check_pairs("the walks of a distance query through links",
                       (m + n) * k + len(rows), 3 * limits.BYTES_PER_PAIR)
    sxy, txy = _places(graph, sources, source_points, ground_points), \
        _places(graph, targets, target_points, ground_points)
    sources = np.asarray(sources, dtype=np.int64)
    targets = np.asarray(targets, dtype=np.int64)
    # each end's parts, padded (-2, -3: no part): an end on a pinch vertex
    # starts in every part around it
    spart = _padded(graph, space, sxy, sources, -2)
    tpart = _padded(graph, space, txy, targets, -3)
    lxy, lpoly, lpart = space.xy[2:], space.poly[2:], space.link_part
    depart = np.ascontiguousarray(space.depart[2:])
    # sources to the points one may leave by, in the same part
    i, d = np.nonzero((spart[:, :, None] == lpart[None, None, :]).any(axis=1) & depart)
    wsd = np.full((m, k), np.inf)
    wsd[i, d] = _walks(graph, sxy[i], sources[i], lxy[d], lpoly[d])
    # every link end to the targets in its part
    a, j = np.nonzero((lpart[:, None, None] == tpart[None, :, :]).any(axis=2))
    wat = np.full((k, n), np.inf)
    wat[a, j] = _walks(graph, lxy[a], lpoly[a], txy[j], targets[j])
    # each pair's direct walk
    same = (spart[rows][:, :, None] == tpart[cols][:, None, :]).any(axis=(1, 2))
    direct = np.full(len(rows), np.inf)
    r, c = rows[same], cols[same]
    direct[same] = _walks(graph, sxy[r], sources[r], txy[c], targets[c])
    ga = np.empty((m, k))
    L.arrivals(wsd, space.link_walks(), depart, space.cost, ga)
    out = np.empty(len(rows))
    L.combine(rows.astype(np.int64), cols.astype(np.int64), direct, ga, wat, out)
    return out.reshape(m, n) if matrix else out


def _padded(graph, space, xy, polys, pad) -> np.ndarray:
    """int64 ``(k, w)``: per end (ground points ``xy`` on polygons
    ``polys``) its parts, the rows filled out with ``pad`` (-1, none,
    becomes ``pad`` too): its polygon's, and for an end on a corner every
    part around it (``holding_parts``)."""
    polys = np.asarray(polys, dtype=np.int64)
    own = np.where(graph.walkable[polys], space.part[polys], -1)
    out = np.where(own >= 0, own, pad)[:, None]
    flags = np.empty(len(polys), dtype=np.bool_)
    if not L.on_corner(np.ascontiguousarray(xy, dtype=np.float64), np.where(own >= 0, polys, -1),
                       graph.vertices, graph.poly_start, graph.poly_verts, flags):
        return out
    corner = np.flatnonzero(flags)
    around = holding_parts(graph, space.part, xy[corner], polys[corner])
    width = max(len(g) for g in around)
    out = np.concatenate([out, np.full((len(out), max(width - 1, 0)), pad, np.int64)], axis=1)
    for i, g in zip(corner, around):
        out[i, :len(g)] = g[g >= 0]
    return out


def _places(graph, nodes, points, ground_points) -> np.ndarray:
    """float64 ``(k, 2)``: where ``find_path`` starts from each end: a 3D
    point's place on its polygon (``layered.ground_points``), a polygon
    id's centroid."""
    out = np.array(graph.positions[np.asarray(nodes, dtype=np.int64), :2], dtype=np.float64)
    if points is not None:
        got = ground_points(graph, np.asarray(nodes, dtype=np.int32), points)
        given = ~np.isnan(got[:, 0])
        out[given] = got[given]
    return out


def _walks(graph, a, pa, b, pb) -> np.ndarray:
    """The Polyanya lengths from points ``a`` (on polygons ``pa``) to
    points ``b`` (on ``pb``), one numba call; ``inf`` where none."""
    if len(a) == 0:
        return np.empty(0)
    ends = np.ascontiguousarray(np.hstack([a, b]), dtype=np.float64)
    seeds = np.ascontiguousarray(np.column_stack([pa, pb]), dtype=np.int32)
    got = polyanya._many_lengths(graph, polyanya.search_space(graph), ends, seeds)
    return np.where(np.isnan(got), np.inf, got)


def reachable_many(graph, a, b) -> np.ndarray:
    """``World.reachable_many`` on a layered mesh with links: bool per
    pair of polygon ids (``-1``: an end off the mesh, never reachable),
    walking and taking links (one-way ones one way)."""
    space = link_space(graph)
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    ok = (a >= 0) & (b >= 0)
    pa = np.where(ok, space.part[np.where(ok, a, 0)], -1)
    pb = np.where(ok, space.part[np.where(ok, b, 0)], -1)
    out = ok & (pa >= 0) & (pa == pb)
    index, closure = space.reach()
    ia = np.where(pa >= 0, index[np.maximum(pa, 0)], -1) if index.size else pa * 0 - 1
    ib = np.where(pb >= 0, index[np.maximum(pb, 0)], -1) if index.size else pb * 0 - 1
    both = (ia >= 0) & (ib >= 0)
    out[both] |= closure[ia[both], ib[both]]
    return out
