"""navcore_roads: road networks (OpenStreetMap, DIMACS, GeoJSON, arrays)."""
