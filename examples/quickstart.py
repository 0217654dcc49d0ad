"""navcore quickstart: build a graph, find paths, change it, tick.

Run with ``.venv/bin/python examples/quickstart.py`` (``make demo`` plays a scene).
"""
import numpy as np

import navcore


def main() -> None:
    world = navcore.World()

    # A small town: 6 crossings joined by two-way streets (costs in metres).
    crossings = np.array([[0, 0], [100, 0], [200, 0], [0, 80], [100, 80], [200, 80]],
                         dtype=float)
    streets = [(0, 1, 100), (1, 2, 100), (3, 4, 100), (4, 5, 100),
               (0, 3, 80), (1, 4, 80), (2, 5, 80)]
    src, dst, cost = (np.array(c) for c in zip(*streets))
    world.add_graph("town", type="csr", src=src, dst=dst, cost=cost,
                    positions=crossings, directed=False)

    path = world.find_path("town", 0, 5)
    print(f"0 -> 5: {path.status}, cost {path.cost:.0f} m, via {path.nodes.tolist()}")

    # Close the street 1-2; queued now, applied by the next tick.
    world.update("town", edges=[(1, 2)], cost=np.inf)
    stats = world.tick(1 / 60)
    print(f"frame {stats.frame}: {stats.updates_applied} update(s), "
          f"{stats.dirty_nodes} dirty node(s)")

    path = world.find_path("town", 0, 2)
    print(f"0 -> 2 after closing 1-2: cost {path.cost:.0f} m, via {path.nodes.tolist()}")
    print("distance matrix from [0, 3] to [2, 5]:")
    print(world.distance_matrix("town", [0, 3], [2, 5]))

    # A grid map: (x, y) cells, (0, 0) top-left, MovingAI's movement rule.
    rows = ["..........",
            ".####.###.",
            ".#......#.",
            ".#.#.##.#.",
            "...#..#...",
            ".###..###."]
    world.add_graph("dungeon", type="grid", rows=rows)
    path = world.find_path("dungeon", (0, 0), (4, 5))       # auto: jump point search
    print(f"\ndungeon (0,0) -> (4,5): {path.status}, cost {path.cost:.3f}, "
          f"{path.algorithm}, {path.expanded} jump points expanded")
    _draw(rows, path, world.graph("dungeon").width)
    world.update("dungeon", cells=[(4, 3)], walkable=False)      # close the door
    world.tick(1 / 60)
    print(f"after closing the door at (4,3): "
          f"{world.find_path('dungeon', (0, 0), (4, 5)).status}")


def _draw(rows, path, width):
    grid = [list(r) for r in rows]
    for node in path.nodes:
        y, x = divmod(int(node), width)
        grid[y][x] = "*"
    print("\n".join("".join(r) for r in grid))


if __name__ == "__main__":
    main()
