"""Write evacuation.map: an office building with sixteen halls off one
long corridor and a door out at each end of it, on open ground, drawn for
navcore (no randomness).

    python scenes/maps/make_evacuation.py     # rewrites scenes/maps/evacuation.map

    x: 0    10                      62                      114  124
       .....@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@.....
       .....@ hall @ hall @ ...                     @ hall @.....   y 11..35
       .....@@@@..@@@@..@@@@ ...    (a door 3 wide per hall)  .....
       .....   corridor, 6 wide (y 37..42), the exits at both ends     y 37..42
       .....@@@@..@@@@..@@@@ ...                              .....
       .....@ hall @ hall @ ...                     @ hall @.....   y 44..68
       .....@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@.....
"""
from pathlib import Path

import numpy as np

WIDTH, HEIGHT = 125, 80
WALLS = (10, 114, 10, 69)            # the outer wall: x0, x1, y0, y1 (inclusive)
CORRIDOR = (37, 42)                  # its rows, inclusive
EXIT = (38, 4)                       # first row and height of each door out
HALL = 12                            # halls' inside width; a wall between two
HALL_DOOR = 3                        # each hall's door onto the corridor


def evacuation() -> np.ndarray:
    walkable = np.ones((HEIGHT, WIDTH), dtype=bool)
    x0, x1, y0, y1 = WALLS
    walkable[y0, x0:x1 + 1] = walkable[y1, x0:x1 + 1] = False
    walkable[y0:y1 + 1, x0] = walkable[y0:y1 + 1, x1] = False
    c0, c1 = CORRIDOR
    walkable[c0 - 1, x0:x1 + 1] = walkable[c1 + 1, x0:x1 + 1] = False   # the corridor's walls
    for x in range(x0 + HALL + 1, x1, HALL + 1):                      # walls between halls
        walkable[y0:c0, x] = walkable[c1 + 1:y1, x] = False
    for left in range(x0 + 1, x1, HALL + 1):                          # a door into each
        door = slice(left + (HALL - HALL_DOOR) // 2, left + (HALL - HALL_DOOR) // 2 + HALL_DOOR)
        walkable[c0 - 1, door] = walkable[c1 + 1, door] = True
    y, h = EXIT
    walkable[y:y + h, x0] = walkable[y:y + h, x1] = True
    return walkable


def main() -> None:
    grid = evacuation()
    rows = ["".join("." if c else "@" for c in row) for row in grid]
    out = Path(__file__).with_name("evacuation.map")
    out.write_text(f"type octile\nheight {HEIGHT}\nwidth {WIDTH}\nmap\n" + "\n".join(rows)
                   + "\n")
    print(f"wrote {out}: {WIDTH} x {HEIGHT}, {int(grid.sum())} open cells")


if __name__ == "__main__":
    main()
