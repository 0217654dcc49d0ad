"""The full build of a lattice with diagonals (a grid that cuts corners;
bit-packed rows, ``_label8.py``) against a naive reference: every tile's
pieces by an 8-neighbour flood inside the tile, numbered in the order the
build promises (band by band, then by first cell in row order), their
sizes, and the links between pieces of different tiles with two cells
8-adjacent (across a border or a tile corner). Then the same structure
through seeded toggles, with the incremental updates (``_lattice``) and
full rebuilds mixed, and areas against ``ndimage.label`` with the 3 x 3
structure at every step."""
import numpy as np
import pytest
from scipy import ndimage

import navcore
from navcore_areas import hierarchy_of

from reference import same_partition
from test_lattice_bitpacked_build import assert_build_matches

TILE = 16
EIGHT = np.ones((3, 3), dtype=bool)
MOVES = [(dx, dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1) if dx or dy]


def reference_pieces8(walk):
    """``(piece id per cell or -1, sizes, set of linked pairs)``, naively,
    with diagonals."""
    H, W = walk.shape
    piece = np.full((H, W), -1, dtype=np.int64)
    n = 0
    for y0 in range(0, H, TILE):
        for y in range(y0, min(H, y0 + TILE)):
            for x in range(W):
                if not walk[y, x] or piece[y, x] >= 0:
                    continue
                piece[y, x] = n
                todo = [(x, y)]
                while todo:
                    cx, cy = todo.pop()
                    for dx, dy in MOVES:
                        nx, ny = cx + dx, cy + dy
                        if (0 <= nx < W and 0 <= ny < H and nx // TILE == cx // TILE
                                and ny // TILE == cy // TILE and walk[ny, nx]
                                and piece[ny, nx] < 0):
                            piece[ny, nx] = n
                            todo.append((nx, ny))
                n += 1
    sizes = np.bincount(piece[piece >= 0], minlength=n)
    links = set()
    for y in range(H):
        for x in range(W):
            for nx, ny in ((x + 1, y), (x, y + 1), (x + 1, y + 1), (x - 1, y + 1)):
                if 0 <= nx < W and ny < H and piece[y, x] >= 0 and piece[ny, nx] >= 0 \
                        and piece[y, x] != piece[ny, nx]:
                    links.add(frozenset((int(piece[y, x]), int(piece[ny, nx]))))
    return piece.ravel(), sizes, links


def corner_cutting_world(walk):
    world = navcore.World(autoload=False)
    g = world.add_graph("g", type="grid", array=walk, corner_cutting=True)
    h = hierarchy_of(g)
    assert h.lattice is not None and h.lattice[2]
    return world, h


def check_build(walk):
    _, h = corner_cutting_world(walk)
    assert_build_matches(h, *reference_pieces8(walk))


SHAPES = [(1, 1), (1, 70), (70, 1), (17, 63), (33, 64), (16, 65), (40, 129), (23, 200)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("density", [0.0, 0.3, 0.55, 0.75, 1.0])
def test_pieces_sizes_and_links_match_an_8_neighbour_tile_flood(shape, density):
    rng = np.random.default_rng(shape[0] * 1000 + shape[1] + int(density * 100))
    check_build(rng.random(shape) >= density)


def test_diagonal_only_contacts_inside_tiles_and_across_borders_and_corners():
    walk = np.zeros((48, 150), dtype=bool)
    # checkerboards: every contact is diagonal, inside tiles and across
    # column borders, band borders and tile corners (also between words)
    walk[:20, :70] = (np.add.outer(np.arange(20), np.arange(70)) % 2) == 0
    walk[14:34, 56:136] = (np.add.outer(np.arange(20), np.arange(80)) % 2) == 1
    # single cells meeting only at a tile corner
    walk[15, 15] = walk[16, 16] = True
    walk[31, 128] = walk[32, 127] = True
    walk[40, 63] = walk[41, 64] = True      # a diagonal between words in a band
    walk[47, 100:110] = True
    walk[46, 99] = walk[46, 110] = True     # a run touched only at its ends
    walk[36:46, 143] = True                 # a column next to the last partial tile
    walk[37:45:2, 144] = True
    check_build(walk)
    check_build(~walk)


def test_long_walls_corridors_and_tile_border_runs():
    walk = np.ones((50, 150), dtype=bool)
    walk[3, :] = False                  # a wall longer than a tile row
    walk[10:40, 70] = False
    walk[:, 15::16] = False             # walls on the last column of tiles
    walk[20, 16:48] = True
    walk[30:, 31:33] = True             # a corridor across a tile border
    walk[45, ::2] = False               # one-cell runs
    walk[:, 64::16] = False             # and on the first column of tiles
    walk[5::7, 64::16] = True
    check_build(walk)


@pytest.mark.nojit
def test_bitpacked_build8_small():
    rng = np.random.default_rng(8)
    check_build(rng.random((20, 70)) >= 0.45)


def canonical_structure(h, walk):
    """The hierarchical nodes as sets of cells (by their lowest cell) and
    the links between them, independent of ids (updates reuse ids)."""
    hnode = h.hnode_of
    live = np.unique(hnode[hnode >= 0])
    first = {int(a): int(np.flatnonzero(hnode == a)[0]) for a in live}
    links = set()
    for a in live:
        e = h.ehead[a]
        while e >= 0:
            links.add(frozenset((first[int(a)], first[int(h.eto[e])])))
            e = h.enext[e]
    return hnode, links, first


def check_structure(h, walk):
    piece, sizes, links = reference_pieces8(walk)
    hnode, got_links, first = canonical_structure(h, walk)
    assert same_partition(hnode, piece, walk.ravel())
    ref_first = {p: int(np.flatnonzero(piece == p)[0]) for p in range(sizes.size)}
    assert got_links == {frozenset(ref_first[p] for p in pair) for pair in links}
    for a, cell in first.items():
        assert h.hsize[a] == sizes[piece[cell]]


@pytest.mark.parametrize("side,density", [((40, 70), 0.45), ((53, 130), 0.6)])
def test_toggles_with_full_rebuilds_mixed_match_the_reference(side, density):
    rng = np.random.default_rng(side[0] + side[1])
    H, W = side
    walk = rng.random(side) >= density
    world, h = corner_cutting_world(walk)
    for step in range(120):
        w, hh = (int(v) for v in rng.integers(1, 9, size=2))
        x, y = int(rng.integers(W - w + 1)), int(rng.integers(H - hh + 1))
        if rng.random() < 0.5:
            block = rng.random((hh, w)) >= density       # a random patch
        else:
            block = np.full((hh, w), rng.random() < 0.5)
        for free in (True, False):
            mask = np.zeros(side, dtype=bool)
            mask[y:y + hh, x:x + w] = block == free
            world.update("g", mask=mask, walkable=free)
        walk[y:y + hh, x:x + w] = block
        world.tick()
        if step % 10 == 9:
            h.recalculate()                    # a full build after updates
        if step % 5 == 4:
            check_structure(h, walk)
        labels = ndimage.label(walk, structure=EIGHT)[0]
        assert same_partition(world.areas("g"), labels, walk), step
    assert h.builds >= 12 and h.updates >= 100
