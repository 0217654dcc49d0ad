"""The full build of a 4-neighbour lattice (bit-packed rows, ``_label.py``)
against a naive reference: every tile's pieces by a flood inside the tile,
numbered in the order the build promises (band by band, then by first cell
in row order), their sizes, and the links between pieces of different tiles
that touch. Also the bit helpers against plain Python."""
import numpy as np
import pytest

import navcore
from navcore_areas import hierarchy_of
from navcore_areas._bits import ctz, fill16, popcount

TILE = 16


def reference_pieces(walk):
    """``(piece id per cell or -1, sizes, set of linked pairs)``, naively."""
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
                    for nx, ny in ((cx + 1, cy), (cx - 1, cy), (cx, cy + 1), (cx, cy - 1)):
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
            for nx, ny in ((x + 1, y), (x, y + 1)):
                if nx < W and ny < H and piece[y, x] >= 0 and piece[ny, nx] >= 0 \
                        and piece[y, x] != piece[ny, nx]:
                    links.add(frozenset((int(piece[y, x]), int(piece[ny, nx]))))
    return piece.ravel(), sizes, links


def built_links(h):
    """The links the build made, checked to be symmetric and unrepeated."""
    out = {}
    for a in range(int(h.counters[0])):
        e, seen = h.ehead[a], []
        while e >= 0:
            seen.append(int(h.eto[e]))
            e = h.enext[e]
        assert len(seen) == len(set(seen)), f"piece {a} linked twice to one piece"
        out[a] = seen
    for a, nbrs in out.items():
        for b in nbrs:
            assert a in out[b], f"link {a}-{b} is one-sided"
    return {frozenset((a, b)) for a, nbrs in out.items() for b in nbrs}


def check_build(walk, **rule):
    world = navcore.World(autoload=False)
    g = world.add_graph("g", type="grid", array=walk, **rule)
    h = hierarchy_of(g)
    assert h.lattice is not None and not h.lattice[2]
    assert_build_matches(h, *reference_pieces(walk))


def assert_build_matches(h, piece, sizes, links):
    """The built pieces, their sizes and links are the reference's, and a
    second build over the same arrays agrees."""
    np.testing.assert_array_equal(h.hnode_of, piece)
    assert int(h.counters[0]) == sizes.size
    np.testing.assert_array_equal(h.hsize[:sizes.size], sizes)
    assert built_links(h) == links
    assert h.num_hierarchical_nodes == sizes.size
    h.recalculate()
    np.testing.assert_array_equal(h.hnode_of, piece)
    assert built_links(h) == links


SHAPES = [(1, 1), (1, 70), (70, 1), (17, 63), (33, 64), (16, 65), (40, 129), (23, 200)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("density", [0.0, 0.3, 0.55, 1.0])
def test_pieces_sizes_and_links_match_a_tile_flood(shape, density):
    rng = np.random.default_rng(shape[0] * 1000 + shape[1] + int(density * 100))
    check_build(rng.random(shape) >= density)


@pytest.mark.parametrize("rule", [{}, {"connectivity": 4}])
def test_long_walls_corridors_and_tile_border_runs(rule):
    walk = np.ones((50, 150), dtype=bool)
    walk[3, :] = False                  # a wall longer than a tile row
    walk[10:40, 70] = False
    walk[:, 15::16] = False             # walls on the last column of tiles
    walk[20, 16:48] = True
    walk[30:, 31:33] = True             # a corridor across a tile border
    walk[45, ::2] = False               # one-cell runs
    check_build(walk, **rule)


@pytest.mark.nojit
def test_bitpacked_build_small():
    rng = np.random.default_rng(7)
    check_build(rng.random((20, 70)) >= 0.35)


@pytest.mark.nojit
def test_bit_helpers_match_python():
    rng = np.random.default_rng(3)
    words = [0, 1, 2 ** 63, 2 ** 64 - 1] + [int(v) for v in rng.integers(0, 2 ** 63, 200)]
    words += [w << int(s) & (2 ** 64 - 1) for w, s in zip(words[4:40], rng.integers(0, 64, 36))]
    for w in words:
        assert popcount(np.uint64(w)) == bin(w).count("1")
        if w:
            assert ctz(np.uint64(w)) == len(bin(w)) - len(bin(w).rstrip("0"))
    out = np.zeros(40, dtype=np.int32)
    fill16(out, 3, -7)
    fill16(out, 24, 5)
    assert out.tolist() == [0] * 3 + [-7] * 16 + [0] * 5 + [5] * 16


def test_bit_helpers_jitted():
    from numba import njit

    @njit
    def counts(ws):
        out = np.empty((ws.size, 2), dtype=np.int64)
        for i in range(ws.size):
            out[i, 0] = popcount(ws[i])
            out[i, 1] = ctz(ws[i]) if ws[i] else -1
        return out

    @njit
    def fills(out):
        fill16(out, 3, -7)
        fill16(out, 24, 5)

    rng = np.random.default_rng(4)
    ws = np.concatenate([np.array([0, 1, 2 ** 63, 2 ** 64 - 1], dtype=np.uint64),
                         rng.integers(0, 2 ** 63, 300, dtype=np.uint64) << np.uint64(1)])
    got = counts(ws)
    for w, (pc, tz) in zip(ws.tolist(), got.tolist()):
        assert pc == bin(w).count("1")
        assert tz == (len(bin(w)) - len(bin(w).rstrip("0")) if w else -1)
    out = np.zeros(40, dtype=np.int32)
    fills(out)
    assert out.tolist() == [0] * 3 + [-7] * 16 + [0] * 5 + [5] * 16
