"""The numpy half of every road reader: ways (as node lists with a speed per
direction) into :class:`~navcore_roads.segments.Segments`."""
from __future__ import annotations

import numpy as np

from navcore.errors import CapacityError
from navcore_roads.segments import Segments, haversine_m


def segments_from_ways(path, profile, refs, valid, lons, lats, starts, forward,
                       backward, way_ids, classes) -> Segments:
    """Segments of ways given as their nodes concatenated: ``refs`` (int64
    node ids), ``valid`` (has a location), ``lons``/``lats``, and per way
    ``starts`` (offset of its first node), ``forward``/``backward`` (km/h,
    0 where not allowed), ``way_ids`` and ``classes`` (uint8 codes into
    ``profile.highway_names``). Nodes are numbered by id."""
    # Pairs (i, i + 1) on the same way, both located, not the same node
    way_of = np.repeat(np.arange(starts.size), np.diff(np.r_[starts, refs.size]))
    i = np.arange(max(refs.size - 1, 0))
    keep = ((way_of[i] == way_of[i + 1]) & valid[i] & valid[i + 1]
            & (refs[i] != refs[i + 1]))
    i = i[keep]

    # Nodes: the ends of those pairs, numbered by id (a node whose
    # neighbours on the way are all missing makes no segment and is left out)
    ends = np.unique(np.r_[i, i + 1])
    node_id, first, inverse = np.unique(refs[ends], return_index=True,
                                        return_inverse=True)
    if node_id.size > np.iinfo(np.int32).max:
        raise CapacityError(f"{node_id.size} road nodes exceed the int32 node index",
                            path=path)
    where = ends[first]
    index = np.full(refs.size, -1, dtype=np.int64)
    index[ends] = inverse
    a, b, w = index[i], index[i + 1], way_of[i]
    fwd, bwd = forward[w] > 0, backward[w] > 0

    # Each way's segments together: pair by pair, forward before backward
    order = np.lexsort((np.r_[np.zeros(fwd.sum()), np.ones(bwd.sum())],
                        np.r_[i[fwd], i[bwd]]))
    src = np.r_[a[fwd], b[bwd]][order].astype(np.int32)
    dst = np.r_[b[fwd], a[bwd]][order].astype(np.int32)
    way = np.r_[w[fwd], w[bwd]][order]
    speed = np.r_[forward[w[fwd]], backward[w[bwd]]][order]
    lon, lat = lons[where], lats[where]
    return Segments(
        node_id=node_id, lon=lon, lat=lat, src=src, dst=dst,
        length=haversine_m(lon[src], lat[src], lon[dst], lat[dst]),
        speed=speed, way=way_ids[way], highway=classes[way],
        highway_names=profile.highway_names, source=str(path))
