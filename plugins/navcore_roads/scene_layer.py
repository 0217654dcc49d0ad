"""Road graphs in scenes: regions, events and pictures.

A region on a road graph is a box ``[west, south, east, north]`` in
degrees (``bbox``, as in ``world.update(..., bbox=)``; a ``cost`` event
writes it under ``bbox:``); it holds the junctions inside it. ``block`` closes those junctions (no
route passes them), ``unblock`` opens them, and a ``cost`` event slows
every road with a segment end in the box by that factor (``inf`` closes
them, 1 puts them back as loaded, open and at free flow; other factors
leave closed roads closed), through the road updates (``updates``).
Crowds start and go at junctions drawn from their regions; agents' speeds
are metres per second (``step_lengths`` measures great circles).

Pictures are drawn north up, a degree of longitude as wide as it is long
there (``aspect``): every segment of every edge as a line in the
colour of its area, so a closed junction shows as a gap. A map unit is a
256th of the network's larger side (``--scale`` is pixels per unit).
"""
from __future__ import annotations

import numpy as np

from navcore.errors import SceneError
from navcore.scene_layer import SceneLayer

from .segments import haversine_m
from .updates import bbox

#: pictures: map units across the network's larger side
UNITS_ACROSS = 256.0
#: the frame round the network, as a share of its size
MARGIN = 0.03


class RoadSceneLayer(SceneLayer):
    node_word = "junction"
    region_key = "bbox"
    y_up = True

    def __init__(self, world, graph_id, graph):
        super().__init__(world, graph_id, graph)
        if not graph.has_positions():
            raise SceneError(f"road graph {graph_id!r} has no coordinates (a DIMACS .gr "
                             f"without .co), so a scene cannot place anything on it")
        seg = graph.segments
        used = np.unique(np.concatenate((seg.src, seg.dst)))
        lo = np.array([seg.lon[used].min(), seg.lat[used].min()])
        hi = np.array([seg.lon[used].max(), seg.lat[used].max()])
        pad = np.maximum(hi - lo, 1e-6) * MARGIN
        self._box = (*(lo - pad), *(hi + pad))
        self.aspect = float(np.cos(np.radians((lo[1] + hi[1]) / 2)))
        self.unit = float(max((hi[0] - lo[0]) * self.aspect, hi[1] - lo[1])) \
            / UNITS_ACROSS or 1e-6

    measures_steps = True

    def step_lengths(self, points) -> np.ndarray:
        """Great-circle metres: a scene's agent speeds are metres per second."""
        p = np.asarray(points, dtype=np.float64)
        return haversine_m(p[:-1, 0], p[:-1, 1], p[1:, 0], p[1:, 1])

    def region(self, value):
        if isinstance(value, (str, bytes, dict)) or any(
                isinstance(v, bool) for v in (value if isinstance(value, list) else ())):
            raise SceneError(f"must be a box [west, south, east, north] in degrees, got "
                             f"{value!r}")
        box = bbox(value, SceneError)
        lon0, lat0, lon1, lat1 = box
        x0, y0, x1, y1 = self._box
        if lon1 < x0 or lon0 > x1 or lat1 < y0 or lat0 > y1:
            swapped = not (lat1 < x0 or lat0 > x1 or lon1 < y0 or lon0 > y1)
            raise SceneError(f"{list(box)} does not overlap graph {self.graph_id!r} "
                             f"(lon {x0:.5f}..{x1:.5f}, lat {y0:.5f}..{y1:.5f})"
                             + (" (it looks like [south, west, north, east]: a box is "
                                "[west, south, east, north], longitude first)"
                                if swapped else ""))
        return box

    def nodes_in(self, region) -> np.ndarray:
        if isinstance(region, tuple) and len(region) == 4 and isinstance(region[0], float):
            lon0, lat0, lon1, lat1 = region
            pos = self.graph.positions
            inside = ((pos[:, 0] >= lon0) & (pos[:, 0] <= lon1) & (pos[:, 1] >= lat0)
                      & (pos[:, 1] <= lat1))
            return np.flatnonzero(inside)
        return np.asarray(region, dtype=np.int64)        # box_region's node tuples

    def bounds(self) -> tuple:
        return self._box

    def region_box(self, region) -> tuple:
        lon0, lat0, lon1, lat1 = region
        return (lon0, lat0, lon1 - lon0, lat1 - lat0)

    def set_cost(self, region, value: float) -> None:
        """Roads with a segment end in ``region``: ``inf`` closes them (the
        box's junctions stay open); ``1`` puts them back as loaded (open,
        free flow); any other value makes them cost that many times their
        free-flow cost, and leaves closed roads closed (a jam beside a
        closure does not reopen it)."""
        if np.isinf(value):
            self.world.update(self.graph_id, bbox=region, cost=np.inf)
        elif value == 1:
            self.world.update(self.graph_id, bbox=region, reset=True)
        elif value > 0:
            self.world.update(self.graph_id, bbox=region, factor=float(value))
        else:
            raise SceneError(f"a road cost is a factor > 0 (inf closes), got {value!r}")

    def describe(self) -> str:
        g = self.graph
        return (f"{g.num_nodes} junctions, {g.csr.num_edges} edges, "
                f"{g.segments.num_segments} segments")

    def extent(self) -> str:
        x0, y0, x1, y1 = self._box
        return f"lon {x0:.4f}..{x1:.4f}, lat {y0:.4f}..{y1:.4f}"


def draw(graph, canvas) -> bool:
    """Every segment of every edge as a line two pixels wide, in the
    colour of the edge's first junction (its area), or with
    ``canvas.traffic`` in the colour of its slowdown (``traffic_colours``),
    closed ones in the canvas's ``covered`` colour; ``node_at`` marks the
    pixels with that junction."""
    seg = graph.segments
    used = graph.chain
    owner = graph.edge_src[graph.seg_edge[used]]
    a = canvas.to_pixels(np.column_stack((seg.lon[seg.src[used]], seg.lat[seg.src[used]])))
    b = canvas.to_pixels(np.column_stack((seg.lon[seg.dst[used]], seg.lat[seg.dst[used]])))
    steps = np.maximum(np.ceil(np.abs(b - a).max(axis=1) * 2).astype(np.int64), 1) + 1
    which = np.repeat(np.arange(used.size), steps)
    t = (np.arange(which.size) - np.repeat(np.cumsum(steps) - steps, steps)) \
        / np.repeat(steps - 1, steps)
    pts = a[which] + (b - a)[which] * t[:, None]
    h, w = canvas.node_at.shape
    node_at = np.full((h, w), -1, dtype=np.int32)
    closed = np.zeros((h, w), dtype=bool)
    shut = np.isinf(graph.seg_cost[used])[which]
    for dx, dy in ((0, 0), (1, 0), (0, 1), (1, 1)):         # two pixels wide
        x = np.floor(pts[:, 0]).astype(np.int64) + dx
        y = np.floor(pts[:, 1]).astype(np.int64) + dy
        ok = (x >= 0) & (x < w) & (y >= 0) & (y < h)
        node_at[y[ok], x[ok]] = owner[which[ok]]
        closed[y[ok & shut], x[ok & shut]] = True
    canvas.paint(node_at)
    if getattr(canvas, "traffic", False):
        ramp = traffic_colours(slowdown(graph)[used])[which]
        for dx, dy in ((0, 0), (1, 0), (0, 1), (1, 1)):
            x = np.floor(pts[:, 0]).astype(np.int64) + dx
            y = np.floor(pts[:, 1]).astype(np.int64) + dy
            ok = (x >= 0) & (x < w) & (y >= 0) & (y < h)
            canvas.rgb[y[ok], x[ok]] = ramp[ok]
    canvas.rgb[closed] = canvas.covered                      # closed roads in dark red
    return True


#: the traffic colours: free flow green, twice as slow yellow, at least
#: SLOWEST times as slow red (closed roads stay the canvas's covered colour)
FREE, SLOW, JAMMED = (60, 200, 90), (240, 200, 40), (220, 40, 40)
SLOWEST = 4.0


def slowdown(graph) -> np.ndarray:
    """Per segment: its cost now over its free-flow cost (1: free flow,
    ``inf``: closed), from the graph's traffic state (factors and speeds)."""
    from .network import Traffic
    segs = np.arange(graph.segments.num_segments)
    free = Traffic(graph.segments).costs(graph, segs)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.asarray(graph.seg_cost, dtype=np.float64) / free
    return np.where(free > 0, out, 1.0)


def traffic_colours(slow) -> np.ndarray:
    """``(k, 3)`` uint8 colours of slowdowns ``slow``: green at 1, yellow
    at 2, red from ``SLOWEST`` (linear between)."""
    s = np.clip(np.nan_to_num(np.asarray(slow, dtype=np.float64), posinf=SLOWEST),
                1.0, SLOWEST)
    low = np.clip(s - 1.0, 0.0, 1.0)[:, None]                # 1 .. 2
    high = np.clip((s - 2.0) / (SLOWEST - 2.0), 0.0, 1.0)[:, None]
    free, slow_, jam = (np.array(c, dtype=np.float64) for c in (FREE, SLOW, JAMMED))
    rgb = np.where(s[:, None] <= 2.0, free + (slow_ - free) * low, slow_ + (jam - slow_) * high)
    return np.round(rgb).astype(np.uint8)
