"""Write battlefield.map: an open field with rock clusters and a river
that three bridges cross, drawn for navcore from a fixed seed.

    python scenes/maps/make_battlefield.py     # rewrites scenes/maps/battlefield.map
"""
from pathlib import Path

import numpy as np

import navcore

WIDTH, HEIGHT = 256, 128
RIVER = (124, 132)                          # x range of the water
BRIDGES = ((10, 6), (60, 8), (108, 6))      # (y, height) of each crossing
CAMPS = 28                                  # columns kept clear at each edge for the armies


def battlefield(seed: int = 2024) -> np.ndarray:
    rng = np.random.default_rng(seed)
    walkable = np.ones((HEIGHT, WIDTH), dtype=bool)
    ys, xs = np.mgrid[0:HEIGHT, 0:WIDTH]
    for _ in range(70):                      # rocks: small ellipses, away from the camps
        cx = rng.uniform(CAMPS + 4, WIDTH - CAMPS - 4)
        cy = rng.uniform(0, HEIGHT)
        rx, ry = rng.uniform(1.5, 6), rng.uniform(1.5, 6)
        walkable &= ((xs - cx) / rx) ** 2 + ((ys - cy) / ry) ** 2 > 1
    walkable[:, RIVER[0]:RIVER[1]] = False
    for y, h in BRIDGES:
        walkable[y:y + h, RIVER[0] - 2:RIVER[1] + 2] = True
    # rocks that overlap can enclose a pocket: fill it, so the field is one area
    world = navcore.World()
    world.add_graph("field", type="grid", array=walkable)
    areas = world.areas("field").reshape(walkable.shape)
    largest = np.bincount(areas[areas >= 0]).argmax()
    return areas == largest


def main() -> None:
    grid = battlefield()
    rows = ["".join("." if c else "@" for c in row) for row in grid]
    out = Path(__file__).with_name("battlefield.map")
    out.write_text(f"type octile\nheight {HEIGHT}\nwidth {WIDTH}\nmap\n" + "\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
