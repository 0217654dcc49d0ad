"""GeoJSON road networks into :class:`~navcore_roads.segments.Segments`.

The input is a FeatureCollection (a file or an already parsed dict) of
``LineString`` and ``MultiLineString`` features, coordinates ``[lon, lat]``
in WGS84 degrees (a third value, altitude, is ignored). Each line is a way:
its properties are read as OSM tags by the profile (``highway``, ``oneway``,
``maxspeed``, ``access``... ; numbers become their text, ``true``/``false``
become ``yes``/``no``, other non-text values are ignored). Points with
exactly the same coordinates, in any features, are the same node; nodes
are numbered 0, 1, ... in the order they first appear.

* A feature without ``highway`` is a ``residential`` road
  (:data:`DEFAULT_HIGHWAY`), routable by every built-in profile, so a plain
  file of lines makes a two-way network.
* ``speed`` (km/h, a positive number) replaces the speed both ways for
  profiles that read posted speeds (car), still capped at ``max_speed``.
* The way id is the integer ``osm_id`` or ``id`` property, else the
  feature's ``id`` (``123`` or ``"way/123"``); -1 when there is none.
* Every part of a MultiLineString is its own line of the same way.

Anything else (not JSON, not a FeatureCollection, a feature that is not a
line, a line of fewer than 2 points, coordinates that are not numbers or
off the globe) is a ``MapFormatError`` naming the file and the feature
index (JSON syntax errors: line and column).

>>> seg = read_geojson({"type": "FeatureCollection", "features": [
...     {"type": "Feature", "properties": {"highway": "primary", "oneway": True},
...      "geometry": {"type": "LineString", "coordinates": [[0, 0], [0.001, 0]]}}]})
>>> seg.src.tolist(), seg.dst.tolist(), seg.speed.tolist(), seg.way.tolist()
([0], [1], [65.0], [-1])
"""
from __future__ import annotations

import json
import math
import re
import sys
from dataclasses import replace
from numbers import Real
from pathlib import Path
from typing import Mapping

import numpy as np

from navcore import validate
from navcore.errors import MapFormatError
from navcore_roads.io._ways import segments_from_ways
from navcore_roads.profiles import get_profile
from navcore_roads.segments import Segments

__all__ = ["read_geojson", "DEFAULT_HIGHWAY"]

#: the class of a feature that has no ``highway`` property
DEFAULT_HIGHWAY = "residential"
_WAY_ID = re.compile(r"(?:way/)?(\d+)")


def read_geojson(source, profile="car") -> Segments:
    """The directed segments of a GeoJSON FeatureCollection (a path, or a
    parsed dict) that ``profile`` may travel; see the module docstring."""
    profile = get_profile(profile)
    if isinstance(source, Mapping):
        data, path = source, "<geojson>"
    else:
        path = validate.file_path(source, "geojson", MapFormatError)
        data = _load(path)
    features = _features(data, path)

    codes = {name: i for i, name in enumerate(profile.highway_names)}
    points, starts = [], []
    forward, backward, way_ids, classes = [], [], [], []
    for k, feature in enumerate(features):
        lines, tags, speed, way_id = _feature(feature, k, path)
        fwd, bwd = profile.way_speeds(tags)
        if not (fwd or bwd):
            continue
        if speed is not None and profile.use_maxspeed:
            speed = min(speed, profile.max_speed or speed)
            fwd, bwd = (speed if fwd else 0.0), (speed if bwd else 0.0)
        for line in lines:
            starts.append(len(points))
            points.extend(line)
            forward.append(fwd)
            backward.append(bwd)
            way_ids.append(way_id)
            classes.append(codes[tags["highway"]])

    xy = np.array(points, dtype=np.float64).reshape(-1, 2) + 0.0  # -0.0 is 0.0
    # A node per distinct point, ids in order of first appearance
    _, first, inverse = np.unique(xy, axis=0, return_index=True, return_inverse=True)
    rank = np.empty(first.size, dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(first.size)
    refs = rank[inverse.reshape(-1)]
    segments = segments_from_ways(
        path, profile, refs, np.ones(refs.size, dtype=bool), xy[:, 0], xy[:, 1],
        np.array(starts, dtype=np.int64), np.array(forward, dtype=np.float64),
        np.array(backward, dtype=np.float64), np.array(way_ids, dtype=np.int64),
        np.array(classes, dtype=np.uint8))
    # Points only on degenerate lines ([p, p]) make no node: renumber densely
    return _renumbered(segments)


def _renumbered(seg: Segments) -> Segments:
    return replace(seg, node_id=np.arange(seg.num_nodes, dtype=np.int64))


def _load(path: Path):
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise MapFormatError("GeoJSON file not found", path=path) from None
    except IsADirectoryError:
        raise MapFormatError("not a file (a directory?); expected GeoJSON", path=path) from None
    except UnicodeDecodeError as exc:
        raise MapFormatError(f"not UTF-8 text (byte {exc.start}); expected GeoJSON",
                             path=path) from None
    except OSError as exc:
        raise MapFormatError(f"cannot read GeoJSON file: {exc.strerror}", path=path) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise MapFormatError(f"not valid JSON: {exc.msg}", path=path,
                             line=exc.lineno, column=exc.colno) from None
    except RecursionError:
        raise MapFormatError("JSON nested too deeply to be GeoJSON", path=path) from None
    except ValueError:    # an integer of more than 4300 digits: int() refuses it, unplaced
        raise MapFormatError(f"a number in the JSON has more than "
                             f"{sys.get_int_max_str_digits()} digits", path=path) from None


def _features(data, path) -> list:
    if not isinstance(data, Mapping) or data.get("type") != "FeatureCollection":
        found = data.get("type") if isinstance(data, Mapping) else type(data).__name__
        raise MapFormatError(f"expected a GeoJSON FeatureCollection, found {found!r}",
                             path=path)
    features = data.get("features")
    if not isinstance(features, list):
        raise MapFormatError("the FeatureCollection's 'features' must be a list",
                             path=path)
    return features


def _feature(feature, k, path):
    """(lines as lists of (lon, lat), tags, speed or None, way id)."""
    def fail(message):
        return MapFormatError(f"feature {k}: {message}", path=path)

    if not isinstance(feature, Mapping) or feature.get("type") != "Feature":
        raise fail("not a GeoJSON Feature")
    geometry = feature.get("geometry")
    kind = geometry.get("type") if isinstance(geometry, Mapping) else None
    coords = geometry.get("coordinates") if kind else None
    if kind == "LineString":
        lines = [_line(coords, fail)]
    elif kind == "MultiLineString" and isinstance(coords, list) and coords:
        lines = [_line(part, fail, f" (part {j})") for j, part in enumerate(coords)]
    elif kind == "MultiLineString":
        raise fail("a MultiLineString needs a non-empty list of lines")
    else:
        raise fail(f"geometry must be a LineString or MultiLineString, not {kind!r}")

    props = feature.get("properties") or {}
    if not isinstance(props, Mapping):
        raise fail("'properties' must be an object")
    tags = {key: _tag(value) for key, value in props.items()
            if isinstance(value, (str, Real))}
    highway = props.get("highway", DEFAULT_HIGHWAY)
    if not isinstance(highway, str):
        raise fail(f"'highway' must be a string, not {highway!r}")
    tags["highway"] = highway
    speed = props.get("speed")
    if speed is not None and (isinstance(speed, bool) or not isinstance(speed, Real)
                              or not 0 < speed <= 1e300):      # NaN, inf, 10**400 too
        raise fail(f"'speed' must be a positive number of km/h, not {speed!r}")
    for v in (props.get("osm_id"), props.get("id"), feature.get("id")):
        if isinstance(v, int) and not isinstance(v, bool) and not -2 ** 63 <= v < 2 ** 63:
            raise fail(f"way id {v} does not fit in 64 bits")
    way_id = next((_way_id(v) for v in (props.get("osm_id"), props.get("id"),
                                         feature.get("id")) if _way_id(v) is not None), -1)
    return lines, tags, None if speed is None else float(speed), way_id


def _line(coords, fail, part=""):
    if not isinstance(coords, list) or len(coords) < 2:
        raise fail(f"a line needs at least 2 points{part}")
    for j, point in enumerate(coords):
        if not (isinstance(point, (list, tuple)) and len(point) >= 2
                and all(isinstance(c, Real) and not isinstance(c, bool) for c in point[:2])):
            raise fail(f"point {j}{part} must be [lon, lat] numbers, not {point!r}")
        try:
            lon, lat = float(point[0]), float(point[1])
        except OverflowError:                     # a 400-digit integer
            lon = lat = math.nan
        if not (-180.0 <= lon <= 180.0 and -90.0 <= lat <= 90.0):  # NaN fails too
            raise fail(f"point {j}{part} [{point[0]}, {point[1]}] is not a lon/lat "
                       f"in degrees (-180..180, -90..90)")
    return [(float(p[0]), float(p[1])) for p in coords]


def _tag(value) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))                       # 50.0 -> "50"
    return str(value)


def _way_id(value):
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        number = value
    elif isinstance(value, str):
        match = _WAY_ID.fullmatch(value.strip())
        number = int(match.group(1)) if match else None
    else:
        return None
    # a way id is an int64 (OSM's); a larger number is no id of a way
    return number if number is not None and -2 ** 63 <= number < 2 ** 63 else None
