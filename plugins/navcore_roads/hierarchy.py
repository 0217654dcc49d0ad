"""The directed contraction hierarchy, which lives in
:mod:`navcore_csr.hierarchy` (every graph type uses it); this module keeps
the names road code has imported from here."""
from navcore_csr.hierarchy import (WITNESS_LIMIT, DirectedHierarchy,  # noqa: F401
                                   HierarchyQuery)

__all__ = ["DirectedHierarchy", "HierarchyQuery", "WITNESS_LIMIT"]
