"""``Segments``: a road network as its source data draws it, before the
graph is made from it.

Every reader (OpenStreetMap, GeoJSON, DIMACS, arrays) returns one: the
source's nodes with their ids and coordinates, and one *directed* segment
per consecutive node pair a vehicle may drive, with its great-circle length,
its speed in that direction and the way it belongs to. ``network`` then
compresses chains of degree-2 nodes into the graph's edges (keeping each
chain's segments, so an edge can be drawn and re-weighted piece by piece).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from navcore import validate
from navcore.errors import GraphError

#: mean Earth radius (IUGG), the sphere every length in navcore_roads is on
EARTH_RADIUS_M = 6371008.8


@dataclass(frozen=True)
class Segments:
    """Directed segments between the source's nodes.

    Nodes (``N``): ``node_id`` (int64: the OSM node id, the DIMACS 1-based
    id, or the index for arrays), ``lon``/``lat`` (float64 degrees, WGS84;
    NaN when the source has no coordinates).

    Segments (``M``, one per direction a vehicle may drive): ``src``/``dst``
    (int32 indices into the nodes), ``length`` (float64 metres),
    ``speed`` (float64 km/h, > 0), ``way`` (int64 source way id, -1 when
    the source has none), ``highway`` (uint8 code into ``highway_names``).
    ``cost``: float64 per segment when the source gives costs that are not
    length over speed (DIMACS weights, a user's ``cost=`` array), else None.
    """

    node_id: np.ndarray
    lon: np.ndarray
    lat: np.ndarray
    src: np.ndarray
    dst: np.ndarray
    length: np.ndarray
    speed: np.ndarray
    way: np.ndarray
    highway: np.ndarray
    highway_names: tuple = ()
    cost: np.ndarray | None = None
    #: where the segments came from (a path), for messages
    source: str = "arrays"
    #: turn rules between segments (``Turns``), None when the source has none
    turns: "Turns | None" = None

    @property
    def num_nodes(self) -> int:
        return int(self.node_id.size)

    @property
    def num_segments(self) -> int:
        return int(self.src.size)


@dataclass(frozen=True)
class Turns:
    """Turn rules between directed segments: going from segment ``frm[i]``
    onto segment ``to[i]`` (``frm``'s ``dst`` is ``to``'s ``src``, the
    junction of the turn) costs ``cost[i]`` more than the segments
    themselves; ``inf`` forbids the turn. A pair not listed turns freely.
    ``report``: what the reader applied and skipped (``graph.report``'s
    ``"turns"``).

    ``seq``/``seq_off``: forbidden *sequences* of segments (OSM
    restrictions with via ways), sequence ``i`` being
    ``seq[seq_off[i]:seq_off[i + 1]]``: the ``from`` segment, the via
    ways' segments in driving order, then the ``to`` segment (at least
    three); driving all of one in a row is not allowed. None: no sequence."""

    frm: np.ndarray
    to: np.ndarray
    cost: np.ndarray
    report: dict
    seq_off: np.ndarray | None = None
    seq: np.ndarray | None = None

    @property
    def num_sequences(self) -> int:
        return 0 if self.seq_off is None else int(self.seq_off.size - 1)


def haversine_m(lon1, lat1, lon2, lat2):
    """Great-circle distance in metres between (lon, lat) degrees, on the
    sphere of radius ``EARTH_RADIUS_M`` (numpy, element-wise).

    >>> round(float(haversine_m(0.0, 0.0, 0.0, 1.0)), 3)
    111195.08
    """
    lon1, lat1, lon2, lat2 = (np.radians(validate.array(a, what, GraphError, np.float64))
                              for a, what in ((lon1, "lon1"), (lat1, "lat1"), (lon2, "lon2"),
                                              (lat2, "lat2")))
    a = (np.sin((lat2 - lat1) * 0.5) ** 2
         + np.cos(lat1) * np.cos(lat2) * np.sin((lon2 - lon1) * 0.5) ** 2)
    return 2.0 * EARTH_RADIUS_M * np.arcsin(np.sqrt(np.minimum(a, 1.0)))
