"""A seeded, road-like network for the road benchmark (``bench/roads.py``).

    from roadgen import make_roads
    net = make_roads(seed=1, nodes=250_000)     # dict of numpy arrays

Shape (all seeded, no data files):

* Points on a jittered square lattice (``nodes`` of them, 60 m apart by
  default, each moved up to 35% of the spacing) over a square around
  Munich (48.14 N, 11.58 E): 250,000 nodes cover about 30 x 30 km.
* Streets: the Delaunay triangulation of the points (planar, every
  neighbour pair), thinned to a road-like average degree: a spanning tree
  of randomly weighted lengths (so everything stays connected) plus the
  shortest remaining triangle edges until there are ``degree / 2`` edges per
  node. Residential speeds 30, 40 or 50 km/h; 8% of them one-way (random
  direction).
* Arterials: straight-ish lines every ``arterial_km`` in both directions
  (tilted a few degrees), drawn through the nearest lattice node every half
  spacing; their edges are added (or reclassified) at 60-80 km/h, both ways.
* Motorways: ``motorways`` long lines across the square, each two one-way
  carriageways on their own nodes (15 m either side of the axis, a node
  every 500 m) at 110-130 km/h, joined to the street network only at
  interchanges every ~4 km by one-way ramps (50 km/h) on both sides.
* Lengths are haversine metres (R = 6371008.8 m, the truth script's);
  ``time_s = length_m / (speed_kmh / 3.6)``.

How it differs from a real extract (say so next to any figure from it):
every node is a junction (real OSM graphs have many degree-2 shape nodes,
monaco about half); density is uniform (no centre, suburbs or empty
country) and there are no rivers, rail lines or parks to route around;
streets are straight segments of similar length; it is planar except for
the motorways (real networks have bridges and tunnels everywhere);
arterials form a regular grid; one-way streets are random rather than
organised in pairs; no turn restrictions, no access rules. Shortest paths
are therefore more uniform, and a CH or CCH order on it is neither
representative of cities nor of highway-rich regions; it mainly gives a
graph of real size with real-looking weights.
"""
from __future__ import annotations

import numpy as np

EARTH_R = 6371008.8
LAT0, LON0 = 48.14, 11.58
CLASSES = ("residential", "arterial", "motorway", "motorway_link")


def haversine_m(lon1, lat1, lon2, lat2):
    p1, p2 = np.radians(lat1), np.radians(lat2)
    dp, dl = p2 - p1, np.radians(lon2 - lon1)
    a = np.sin(dp / 2) ** 2 + np.cos(p1) * np.cos(p2) * np.sin(dl / 2) ** 2
    return 2 * EARTH_R * np.arcsin(np.sqrt(a))


def to_lonlat(x, y):
    """Metres east/north of (LON0, LAT0) to degrees (equirectangular: the
    square is small enough)."""
    lat = LAT0 + np.degrees(y / EARTH_R)
    lon = LON0 + np.degrees(x / (EARTH_R * np.cos(np.radians(LAT0))))
    return lon, lat


def make_roads(seed=20261125, nodes=250_000, spacing=60.0, degree=2.8, oneway_share=0.08,
               arterial_km=2.0, motorways=4):
    """``dict`` of ``src, dst`` (int32, directed: a two-way street is two
    rows), ``length_m, speed_kmh, time_s`` (float64), ``highway`` (uint8
    index into ``classes``) and per node ``lon, lat``."""
    rng = np.random.default_rng(seed)
    side = int(np.ceil(np.sqrt(nodes)))
    gx, gy = np.meshgrid(np.arange(side), np.arange(side))
    xy = np.column_stack((gx.ravel(), gy.ravel()))[:nodes].astype(np.float64) * spacing
    xy += rng.uniform(-0.35, 0.35, xy.shape) * spacing
    und, kinds, speeds = streets(xy, rng, degree)
    art = arterials(xy, side * spacing, spacing, arterial_km * 1000.0, rng)
    und, kinds, speeds = merge_arterials(und, kinds, speeds, art)
    # directed rows: every street both ways except the one-way residentials
    one = (kinds == 0) & (rng.random(und.shape[0]) < oneway_share)
    flip = one & (rng.random(und.shape[0]) < 0.5)
    a = np.where(flip, und[:, 1], und[:, 0])
    b = np.where(flip, und[:, 0], und[:, 1])
    src = np.concatenate((a, b[~one]))
    dst = np.concatenate((b, a[~one]))
    kind = np.concatenate((kinds, kinds[~one]))
    speed = np.concatenate((speeds, speeds[~one]))
    mx, msrc, mdst, mkind, mspeed = motorway_net(xy, side * spacing, motorways, rng)
    xy = np.vstack((xy, mx))
    src = np.concatenate((src, msrc)).astype(np.int32)
    dst = np.concatenate((dst, mdst)).astype(np.int32)
    kind = np.concatenate((kind, mkind)).astype(np.uint8)
    speed = np.concatenate((speed, mspeed))
    lon, lat = to_lonlat(xy[:, 0], xy[:, 1])
    length = haversine_m(lon[src], lat[src], lon[dst], lat[dst])
    return {"src": src, "dst": dst, "length_m": length, "speed_kmh": speed,
            "time_s": length / (speed / 3.6), "highway": kind, "classes": CLASSES,
            "lon": lon, "lat": lat}


def streets(xy, rng, degree):
    """Undirected street edges (k, 2), class 0 and speeds, from the
    thinned Delaunay triangulation."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import minimum_spanning_tree
    from scipy.spatial import Delaunay

    tri = Delaunay(xy).simplices
    e = np.concatenate((tri[:, [0, 1]], tri[:, [1, 2]], tri[:, [2, 0]]))
    e.sort(axis=1)
    e = np.unique(e, axis=0)
    length = np.hypot(*(xy[e[:, 0]] - xy[e[:, 1]]).T)
    n = xy.shape[0]
    # random weights make the tree wander like streets, not a comb
    w = length * rng.uniform(1.0, 2.0, length.size)
    tree = minimum_spanning_tree(coo_matrix((w, (e[:, 0], e[:, 1])), shape=(n, n))).tocoo()
    key = e[:, 0].astype(np.int64) * n + e[:, 1]
    tkey = np.minimum(tree.row, tree.col).astype(np.int64) * n + np.maximum(tree.row, tree.col)
    in_tree = np.isin(key, tkey)
    want = int(round(degree * n / 2)) - int(in_tree.sum())
    # the extra streets: the shortest of the rest (long triangle edges are
    # the sliver diagonals no town would build), picked at random among them
    rest = np.flatnonzero(~in_tree)
    rest = rest[np.argsort(length[rest])[: int(want * 1.5)]]
    extra = rng.choice(rest, size=max(min(want, rest.size), 0), replace=False)
    keep = np.concatenate((np.flatnonzero(in_tree), extra))
    und = e[keep]
    return und, np.zeros(und.shape[0], np.uint8), rng.choice([30.0, 40.0, 50.0], und.shape[0],
                                                             p=[0.4, 0.3, 0.3])


def arterials(xy, extent, spacing, every, rng):
    """Undirected arterial edges (k, 2) and their speeds: lattice nodes
    nearest to points every half spacing along tilted lines."""
    from scipy.spatial import cKDTree

    kd = cKDTree(xy)
    pairs, speeds = [], []
    for axis in (0, 1):
        for c in np.arange(every / 2, extent, every):
            tilt = np.radians(rng.uniform(-6, 6))
            t = np.arange(0, extent, spacing / 2)
            off = c + (t - extent / 2) * np.tan(tilt)
            pts = np.column_stack((t, off)) if axis == 0 else np.column_stack((off, t))
            inside = (pts >= 0).all(axis=1) & (pts <= extent).all(axis=1)
            _, idx = kd.query(pts[inside])
            idx = idx[np.r_[True, idx[1:] != idx[:-1]]]
            if idx.size > 1:
                pairs.append(np.column_stack((idx[:-1], idx[1:])))
                speeds.append(np.full(idx.size - 1, rng.choice([60.0, 70.0, 80.0])))
    p = np.sort(np.concatenate(pairs), axis=1)
    return p, np.concatenate(speeds)


def merge_arterials(und, kinds, speeds, art):
    """Streets plus arterials; a street an arterial runs along becomes
    arterial (one row per node pair)."""
    art_e, art_v = art
    allp = np.concatenate((art_e, und))
    allk = np.concatenate((np.ones(art_e.shape[0], np.uint8), kinds))
    alls = np.concatenate((art_v, speeds))
    _, first = np.unique(allp, axis=0, return_index=True)   # arterial rows come first
    first.sort()
    return allp[first], allk[first], alls[first]


def motorway_net(xy, extent, count, rng):
    """Motorway nodes (new, appended after ``xy``) and their directed
    edges: two one-way carriageways per line, ramps at interchanges."""
    from scipy.spatial import cKDTree

    kd = cKDTree(xy)
    n0 = xy.shape[0]
    nodes, src, dst, kind, speed = [], [], [], [], []
    next_id = n0
    for m in range(count):
        # long lines corner to corner-ish, crossing the square
        a = rng.uniform(0.05, 0.95, 2) * extent
        ang = rng.uniform(0, np.pi)
        d = np.array([np.cos(ang), np.sin(ang)])
        t = np.arange(-1.5 * extent, 1.5 * extent, 500.0)
        axis = a + t[:, None] * d
        axis = axis[((axis > 100) & (axis < extent - 100)).all(axis=1)]
        if axis.shape[0] < 4:
            continue
        normal = np.array([-d[1], d[0]])
        v = rng.choice([110.0, 120.0, 130.0])
        for side in (1, -1):
            pts = axis + side * 15.0 * normal
            ids = np.arange(next_id, next_id + pts.shape[0])
            next_id += pts.shape[0]
            nodes.append(pts)
            fwd = ids if side == 1 else ids[::-1]           # drive on the right
            src.append(fwd[:-1]); dst.append(fwd[1:])
            kind.append(np.full(fwd.size - 1, 2)); speed.append(np.full(fwd.size - 1, v))
            # interchanges every ~4 km (every 8th node): off-ramp from the
            # carriageway to the nearest street node, on-ramp back
            for i in range(1, fwd.size - 1, 8):
                _, street = kd.query(xy_of(pts, ids, fwd[i]))
                src += [np.array([fwd[i]]), np.array([street])]
                dst += [np.array([street]), np.array([fwd[i + 1]])]
                kind += [np.array([3]), np.array([3])]
                speed += [np.array([50.0]), np.array([50.0])]
    return (np.vstack(nodes), np.concatenate(src), np.concatenate(dst),
            np.concatenate(kind), np.concatenate(speed))


def xy_of(pts, ids, node):
    return pts[node - ids[0]]


if __name__ == "__main__":
    import sys
    import time

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 250_000
    t = time.perf_counter()
    net = make_roads(nodes=n)
    dt = time.perf_counter() - t
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components
    nn = net["lon"].size
    pairs = np.unique(np.sort(np.column_stack((net["src"], net["dst"])), axis=1), axis=0)
    g = coo_matrix((np.ones(net["src"].size), (net["src"], net["dst"])), shape=(nn, nn))
    _, lab = connected_components(g, directed=True, connection="strong")
    print(f"mean degree (streets between distinct node pairs) {2 * pairs.shape[0] / nn:.2f}; "
          f"largest SCC {np.bincount(lab).max()}")
    print(f"{net['lon'].size} nodes, {net['src'].size} directed edges, {dt:.2f} s; "
          f"classes {np.bincount(net['highway']).tolist()}; mean edge "
          f"{net['length_m'].mean():.0f} m")
