"""navcore_roads: road networks (OpenStreetMap, DIMACS, GeoJSON, arrays)."""

from .ch import RoadHierarchy, contract, load_hierarchy
from .cch import RoadCCH
from .export import to_geojson, to_networkx
from .hierarchy import DirectedHierarchy
from .locate import snap
from .routes import Routes, routes
from .network import RoadGraph, build_road_graph
from .segments import EARTH_RADIUS_M, Segments, haversine_m

__all__ = ["routes", "Routes", "contract", "load_hierarchy", "RoadHierarchy", "RoadCCH", "DirectedHierarchy", "RoadGraph", "Segments", "build_road_graph", "snap", "haversine_m",
           "EARTH_RADIUS_M", "to_geojson", "to_networkx"]
