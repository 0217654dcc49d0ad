"""OpenStreetMap extracts (``.osm.pbf``, ``.osm``, ``.osm.gz``, ``.osm.bz2``)
read with pyosmium into :class:`~navcore_roads.segments.Segments`.

One pass over the file: libosmium keeps every node's location and filters
the ways down to those with a ``highway`` tag; Python asks the profile about
each one and keeps its node refs and locations; numpy then numbers the nodes
(by OSM id, only those that end a segment) and makes one directed segment per
consecutive node pair and allowed direction.

Extracts cut out of a larger map usually have ways that run past the edge,
referencing nodes the file does not hold. By default those nodes are left
out and the way is cut there: no segment joins two nodes that were not
neighbours on the way, since the road between them is unknown (the road
benchmark's truth does the same). ``missing_nodes="error"`` makes such a
way an error instead. A node repeated back to back on a way is one node
(no zero-length loop).

Every problem with the file (missing, a directory, not OSM, truncated,
malformed XML) is a ``MapFormatError`` naming the file, and the line and
column when libosmium gives them.

>>> import tempfile, pathlib
>>> osm = '''<osm version="0.6">
...  <node id="1" lat="0.0" lon="0.0"/><node id="2" lat="0.0" lon="0.001"/>
...  <way id="7"><nd ref="1"/><nd ref="2"/>
...   <tag k="highway" v="primary"/><tag k="oneway" v="yes"/></way>
... </osm>'''
>>> with tempfile.TemporaryDirectory() as tmp:
...     path = pathlib.Path(tmp, "one.osm")
...     _ = path.write_text(osm)
...     seg = read_osm(path)
>>> seg.node_id.tolist(), seg.src.tolist(), seg.dst.tolist(), seg.speed.tolist()
([1, 2], [0], [1], [65.0])
>>> round(float(seg.length[0]), 3)
111.195
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from navcore import validate
from navcore.errors import GraphError, MapFormatError
from navcore_roads.io._ways import segments_from_ways
from navcore_roads.io.restrictions import osm_turns, relation_rule
from navcore_roads.profiles import get_profile
from navcore_roads.segments import Segments

__all__ = ["read_osm", "OSM_SUFFIXES"]

#: file name endings libosmium reads (it picks the format from the name)
OSM_SUFFIXES = (".osm.pbf", ".pbf", ".osm", ".osm.gz", ".osm.bz2")
_WHERE = re.compile(r"line (\d+)(?:, column (\d+))?")


def read_osm(path, profile="car", *, missing_nodes: str = "skip",
             restrictions: bool = True) -> Segments:
    """The directed segments of an OSM file's ways that ``profile`` (a
    name, dict or :class:`~navcore_roads.profiles.Profile`) may travel.

    ``missing_nodes``: ``"skip"`` (default) cuts ways at nodes the file has
    no location for; ``"error"`` raises ``MapFormatError`` naming the way
    and the node. ``restrictions``: read the turn restriction relations
    that bind ``profile`` (``io.restrictions``) into ``Segments.turns``.
    Raises ``GraphError`` for a bad profile or option.
    """
    profile = get_profile(profile)
    if missing_nodes not in ("skip", "error"):
        raise GraphError(f"missing_nodes must be 'skip' or 'error', not {missing_nodes!r}")
    restrictions = validate.boolean(restrictions, "restrictions", GraphError)
    path = _check_file(path)
    rules, skipped = [], {}
    ways = _read_ways(path, profile, missing_nodes == "error",
                      (rules, skipped) if restrictions else None)
    segments = segments_from_ways(path, profile, *ways)
    if not restrictions or not (rules or skipped):
        return segments
    return osm_turns(segments, rules, skipped)


def _check_file(path) -> Path:
    path = validate.file_path(path, "osm", MapFormatError)
    if not path.exists():
        raise MapFormatError("OSM file not found", path=path)
    if not path.is_file():
        raise MapFormatError("not a file (a directory?); expected an OSM extract", path=path)
    if not path.name.lower().endswith(OSM_SUFFIXES):
        raise MapFormatError(f"unknown OSM file type; the name must end in one of "
                             f"{', '.join(OSM_SUFFIXES)}", path=path)
    return path


def _read_ways(path: Path, profile, strict: bool, turns=None):
    """Node refs, validity, lon, lat of every routable way, concatenated,
    with per way: start offset, forward/backward speed, id, class code.
    ``turns``: ``(rules, skipped)`` to collect the restriction relations
    in (``relation_rule``), or None to read no relations."""
    import osmium    # only readers of OSM files need libosmium

    codes = {name: i for i, name in enumerate(profile.highway_names)}
    refs, valid, lons, lats = [], [], [], []
    starts, forward, backward, way_ids, classes = [], [], [], [], []
    kinds = osmium.osm.WAY if turns is None else osmium.osm.WAY | osmium.osm.RELATION
    processor = (osmium.FileProcessor(str(path), osmium.osm.NODE | kinds)
                 .with_locations()
                 .with_filter(osmium.filter.EntityFilter(kinds))
                 .with_filter(osmium.filter.KeyFilter("highway").enable_for(osmium.osm.WAY))
                 .with_filter(osmium.filter.TagFilter(("type", "restriction"))
                              .enable_for(osmium.osm.RELATION)))
    for way in _reported(processor, path):
        tags = {tag.k: tag.v for tag in way.tags}
        if way.is_relation():
            rules, skipped = turns
            rule = relation_rule(tags, [(m.type, m.ref, m.role) for m in way.members],
                                 profile)
            if rule[1] is None:
                skipped[rule[0]] = skipped.get(rule[0], 0) + 1
            else:
                rules.append(rule)
            continue
        fwd, bwd = profile.way_speeds(tags)
        if not (fwd or bwd):
            continue
        starts.append(len(refs))
        forward.append(fwd)
        backward.append(bwd)
        way_ids.append(way.id)
        classes.append(codes[tags["highway"]])
        for node in way.nodes:
            location = node.location
            refs.append(node.ref)
            if location.valid():
                valid.append(True)
                lons.append(location.lon)
                lats.append(location.lat)
            elif strict:
                raise MapFormatError(f"way {way.id} references node {node.ref}, "
                                     f"which the file has no location for", path=path)
            else:
                valid.append(False)
                lons.append(np.nan)
                lats.append(np.nan)
    return (np.array(refs, dtype=np.int64), np.array(valid, dtype=bool),
            np.array(lons, dtype=np.float64), np.array(lats, dtype=np.float64),
            np.array(starts, dtype=np.int64), np.array(forward, dtype=np.float64),
            np.array(backward, dtype=np.float64), np.array(way_ids, dtype=np.int64),
            np.array(classes, dtype=np.uint8))


def _invalid_location():
    """libosmium's error for a malformed coordinate (``lat="1&"``), which
    derives from Exception only."""
    import osmium
    return getattr(osmium, "InvalidLocationError", RuntimeError)


def _reported(objects, path):
    """Iterate, turning libosmium's errors (RuntimeError with text such as
    'PBF error: unexpected EOF' or 'XML parsing error at line 4, column 2:
    ...') into MapFormatError; errors of the loop body pass untouched."""
    iterator = iter(objects)
    while True:
        try:
            item = next(iterator)
        except StopIteration:
            return
        except (RuntimeError, ValueError, OSError, _invalid_location()) as exc:
            where = _WHERE.search(str(exc))
            raise MapFormatError(
                f"cannot read OSM data: {exc}", path=path,
                line=int(where.group(1)) if where else None,
                column=int(where.group(2)) if where and where.group(2) else None) from None
        yield item
