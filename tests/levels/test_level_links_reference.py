"""``find_path`` through off-mesh links against a naive reference, on
random small levels with random links (several seeds).

The reference knows nothing of the link search: every walk between two
points of the link graph (the query's ends and the links' ends) is
``find_path`` on the same level built without links, and a plain Dijkstra
over those walks and the links gives the cheapest cost. The links' ends
and the query's ends are points of the surface (``World.random_point``),
so the linked level attaches each where the plain one places it."""
from __future__ import annotations

import heapq
import math

import numpy as np
import pytest

import navcore

from levelkit import join, quad

INF = math.inf


def geometry(rng):
    """A U of floor, a platform beside it at a random height and a strip
    behind it: three parts no walkable geometry joins."""
    y = float(rng.uniform(1.0, 3.0))
    z0 = float(rng.uniform(0.0, 4.0))
    return join(quad(0, 20, 0, 4, 0.0), quad(16, 20, 4, 8, 0.0), quad(0, 20, 8, 12, 0.0),
                quad(22, 30, z0, z0 + 8, y), quad(0, 20, 14, 18, 0.0))


def random_links(world, gid, rng, k):
    out = []
    for _ in range(k):
        a = world.random_point(gid, rng).point
        b = world.random_point(gid, rng).point
        link = {"start": tuple(map(float, a)), "end": tuple(map(float, b)),
                "bidirectional": bool(rng.random() < 0.6), "radius": 0.1}
        r = rng.random()
        if r < 0.3:                 # teleport-like: cheaper than its length
            link["cost"] = float(rng.uniform(0.0, 0.5)) * math.dist(a, b)
        elif r < 0.6:
            link["cost"] = float(rng.uniform(0.5, 3.0)) * math.dist(a, b)
        out.append(link)
    return out


def walk(world, a, b) -> float:
    r = world.find_path("plain", a, b)
    return r.cost if r.found else INF


def reference(world, links, walks, s, t) -> float:
    """Dijkstra over the points ``[s, t, link 0 start, link 0 end, ...]``:
    walks (``find_path`` on the plain level) and links."""
    pts = [s, t] + [p for link in links for p in (link["start"], link["end"])]
    n = len(pts)

    def w(i, j):
        if i >= 2 and j >= 2:
            return walks[i - 2][j - 2]
        return walk(world, pts[i], pts[j])

    hops = {}
    for i, link in enumerate(links):
        c = link.get("cost", math.dist(link["start"], link["end"]))
        hops[2 + 2 * i] = [(3 + 2 * i, c)]
        if link["bidirectional"]:
            hops[3 + 2 * i] = [(2 + 2 * i, c)]
    dist = [INF] * n
    dist[0] = 0.0
    heap = [(0.0, 0)]
    done = set()
    while heap:
        d, i = heapq.heappop(heap)
        if i in done:
            continue
        done.add(i)
        if i == 1:
            return d
        for j in range(n):
            if j != i and j not in done:
                nd = d + w(i, j)
                if nd < dist[j]:
                    dist[j] = nd
                    heapq.heappush(heap, (nd, j))
        for j, c in hops.get(i, ()):
            if d + c < dist[j]:
                dist[j] = d + c
                heapq.heappush(heap, (d + c, j))
    return INF


def linked_world(seed):
    """``(world, rng, links)``: a random level of ``seed`` as ``"plain"``
    and, with random links, as ``"linked"``."""
    rng = np.random.default_rng(seed)
    w = navcore.World()
    v, t = geometry(rng)
    w.add_graph("plain", type="level", vertices=v, triangles=t, cell_size=0.5)
    links = random_links(w, "plain", rng, int(rng.integers(1, 9)))
    w.add_graph("linked", type="level", vertices=v, triangles=t, cell_size=0.5, links=links)
    return w, rng, links


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5, 6])
def test_linked_find_path_equals_the_naive_reference(seed):
    w, rng, links = linked_world(seed)
    try:
        ends = [p for link in links for p in (link["start"], link["end"])]
        walks = [[walk(w, a, b) for b in ends] for a in ends]
        found = 0
        for _ in range(30):
            s = tuple(map(float, w.random_point("plain", rng).point))
            g = tuple(map(float, w.random_point("plain", rng).point))
            want = reference(w, links, walks, s, g)
            got = w.find_path("linked", s, g)
            if want == INF:
                assert got.status is navcore.PathStatus.UNREACHABLE
                continue
            found += 1
            assert got.found and got.cost == pytest.approx(want, rel=1e-12, abs=1e-9)
            # the cost is what the path walks and the links it takes charge
            ground = got.points[:, [0, 2]]
            legs = np.hypot(*np.diff(ground, axis=0).T)
            jumps = [taken.point for taken in got.links]
            walked = float(np.delete(legs, jumps).sum())
            charged = sum(links[taken.link].get(
                "cost", math.dist(links[taken.link]["start"], links[taken.link]["end"]))
                for taken in got.links)
            assert walked + charged == pytest.approx(got.cost, abs=1e-9)
            stepped = w.begin_search("linked", s, g)
            while not stepped.step(7):
                pass
            assert stepped.result().cost == got.cost
            assert stepped.result().expanded == got.expanded
        assert found
    finally:
        w.close()


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5, 6])
def test_distance_matrix_and_pairs_through_links_are_find_path_costs(seed):
    w, rng, links = linked_world(seed)
    try:
        ends = [tuple(map(float, w.random_point("plain", rng).point)) for _ in range(7)]
        # link ends themselves, and a polygon id (searched from its centroid)
        ends += [links[0]["start"], links[-1]["end"], int(rng.integers(0, 10))]

        def cost(a, b):
            r = w.find_path("linked", a, b)
            return r.cost if r.found else INF

        want = np.array([[cost(a, b) for b in ends] for a in ends])
        assert np.isfinite(want[~np.eye(len(ends), dtype=bool)]).any()
        got = w.distance_matrix("linked", ends, ends)
        # the same walks and links, the same routes: equal but for the last
        # bits of a walk (the batch kernel sums a walk's segments from its
        # goal end, find_path's from its start)
        assert (np.isinf(got) == np.isinf(want)).all()
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=0)
        flipped = ends[::-1]
        pairs = w.distance_pairs("linked", ends, flipped)
        np.testing.assert_allclose(pairs, [cost(a, b) for a, b in zip(ends, flipped)],
                                   rtol=1e-13, atol=0)
    finally:
        w.close()


def check_partial(w, gid, links, s, r):
    """``r`` (a partial path from ``s``) checked against the links as given:
    it starts at ``s``, each link it takes jumps from by that link's start
    to by its end (from its end to its start: a bidirectional one), and its
    cost is its walked horizontal length plus those links' costs; its last
    point lies on its last node."""
    np.testing.assert_allclose(r.points[0], s, atol=1e-6)
    ground = r.points[:, [0, 2]]
    legs = np.hypot(*np.diff(ground, axis=0).T)
    charged = 0.0
    for taken in r.links:
        link = links[taken.link]
        a, b = ground[taken.point], ground[taken.point + 1]
        ends = [(link["start"], link["end"])] + \
            [(link["end"], link["start"])] * link["bidirectional"]
        assert any(math.dist(a, (p[0], p[2])) <= link["radius"] + 1e-6
                   and math.dist(b, (q[0], q[2])) <= link["radius"] + 1e-6
                   for p, q in ends)
        charged += link.get("cost", math.dist(link["start"], link["end"]))
    walked = float(np.delete(legs, [taken.point for taken in r.links]).sum())
    assert r.cost == pytest.approx(walked + charged, abs=1e-9)
    assert w.locate(gid, tuple(map(float, r.points[-1]))) == r.nodes[-1]


@pytest.mark.parametrize("seed", [1, 2, 3, 5])
def test_a_larger_budget_never_answers_less(seed):
    """find_path with max_nodes=k, partial=True for k = 1 .. the whole
    search's expansions: as on the level without links, a partial path
    from the first expansion on (never budget_exceeded: each search
    closes a node with its first expansion), then, from a budget that
    covers the search, the whole path."""
    w, rng, links = linked_world(seed)
    try:
        seen = {"plain": 0, "linked": 0}
        linked_partials = 0
        for _ in range(12):
            s = tuple(map(float, w.random_point("plain", rng).point))
            g = tuple(map(float, w.random_point("plain", rng).point))
            for gid in ("plain", "linked"):
                whole = w.find_path(gid, s, g)
                if not whole.found or whole.expanded < 2:
                    continue
                seen[gid] += 1
                statuses = []
                for k in range(1, min(whole.expanded, 60) + 1):
                    r = w.find_path(gid, s, g, max_nodes=k, partial=True)
                    statuses.append(r.status)
                    if r.status is navcore.PathStatus.FOUND:
                        assert (r.cost, r.links) == (whole.cost, whole.links)
                        continue
                    assert r.status is navcore.PathStatus.PARTIAL, (gid, k)
                    check_partial(w, gid, links, s, r)
                    linked_partials += gid == "linked" and len(r.links) > 0
                # partial ... partial, then found (from the whole budget on)
                first = statuses.index(navcore.PathStatus.FOUND) \
                    if navcore.PathStatus.FOUND in statuses else len(statuses)
                assert set(statuses[first:]) <= {navcore.PathStatus.FOUND}
                if whole.expanded <= 60:
                    assert statuses[-1] is navcore.PathStatus.FOUND
        assert seen["plain"] and seen["linked"]
    finally:
        w.close()
