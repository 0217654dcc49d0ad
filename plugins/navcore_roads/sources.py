"""Which reader a ``type: roads`` graph comes from: exactly one source
among ``osm=``, ``dimacs=``, ``geojson=`` and arrays (``src=``/``dst=``)."""
from __future__ import annotations

import os

from navcore.errors import GraphError


def read_sources(*, osm, dimacs, coords, geojson, src, dst, length, speed, cost, positions,
                 oneway, way, profile, turns=None, restrictions=True):
    """``(segments, compress by default, profile used)`` of the one source
    given; a ``GraphError`` names the parameters when there are none or
    several, or when parameters of another source are mixed in."""
    given = [name for name, v in (("osm", osm), ("dimacs", dimacs), ("geojson", geojson),
                                  ("src", src)) if v is not None]
    if len(given) != 1:
        raise GraphError(f"a roads graph needs exactly one of osm=, dimacs=, geojson= or "
                         f"src=/dst= arrays; got {', '.join(given) or 'none'}")
    arrays = {"dst": dst, "length": length, "speed": speed, "cost": cost,
              "positions": positions, "way": way}
    stray = [k for k, v in arrays.items() if v is not None]
    if turns is not None and given[0] not in ("src", "geojson"):
        raise GraphError(f"turns= is a table of turns between array or GeoJSON roads; "
                         f"{given[0]}= roads take theirs from the source")
    if given[0] != "src" and stray:
        raise GraphError(f"{', '.join(k + '=' for k in stray)} belong(s) to roads from "
                         f"arrays (src=/dst=), not to {given[0]}=")
    if coords is not None and given[0] != "dimacs":
        raise GraphError("coords= (a DIMACS .co file) goes with dimacs=")
    if given[0] in ("osm", "geojson"):
        from .profiles import get_profile
        prof = get_profile(profile)
        if given[0] == "osm":
            from .io.osm import read_osm
            return read_osm(_path(osm, "osm"), prof, restrictions=restrictions), True, prof
        from .io.geojson import read_geojson
        segments = read_geojson(geojson if isinstance(geojson, dict)
                                else _path(geojson, "geojson"), prof)
        if turns is not None:
            from .io.restrictions import way_turns
            segments = way_turns(segments, turns)
        return segments, True, prof
    if profile != "car":
        raise GraphError(f"profile= applies to osm= and geojson= roads; {given[0]}= gives "
                         f"its own costs or speeds")
    if given[0] == "dimacs":
        from .io.dimacs import read_dimacs
        return read_dimacs(_path(dimacs, "dimacs"),
                           None if coords is None else _path(coords, "coords")), False, None
    if dst is None:
        raise GraphError("roads from arrays need dst= beside src=")
    from .io.arrays import segments_from_arrays
    return segments_from_arrays(src=src, dst=dst, length=length, speed=speed, cost=cost,
                                positions=positions, oneway=oneway, way=way,
                                turns=turns), False, None


def _path(value, what):
    if not isinstance(value, (str, os.PathLike)):
        raise GraphError(f"{what}= must be a file path, got {value!r}")
    return value
