"""A cellular automaton (Conway's rules on a torus) with a population check. The rule table and
the census set-up sit between `# autodd: freeze-start` and `# autodd: end-freeze` and must
survive reduction."""


class Grid:
    def __init__(self, width, height, live=()):
        self.width = width
        self.height = height
        self.cells = set(live)

    def neighbours(self, x, y):
        count = 0
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                if dx or dy:
                    if ((x + dx) % self.width, (y + dy) % self.height) in self.cells:
                        count += 1
        return count

    def step(self, rules):
        born, survive = rules
        nxt = set()
        for x in range(self.width):
            for y in range(self.height):
                n = self.neighbours(x, y)
                if (x, y) in self.cells:
                    if n in survive:
                        nxt.add((x, y))
                elif n in born:
                    nxt.add((x, y))
        return Grid(self.width, self.height, nxt)

    def render(self):
        rows = []
        for y in range(self.height):
            rows.append("".join("#" if (x, y) in self.cells else "." for x in range(self.width)))
        return "\n".join(rows)


PATTERNS = {
    "glider": [(1, 0), (2, 1), (0, 2), (1, 2), (2, 2)],
    "blinker": [(5, 5), (5, 6), (5, 7)],
    "block": [(8, 1), (9, 1), (8, 2), (9, 2)],
}


def parse_rule(text):
    born, survive = text.split("/")
    return ({int(c) for c in born[1:]}, {int(c) for c in survive[1:]})


def run(grid, rules, generations, census):
    history = [len(grid.cells)]
    for gen in range(1, generations + 1):
        grid = grid.step(rules)
        history.append(len(grid.cells))
        census[gen] = len(grid.cells)
    return grid, history


def main():
    # autodd: freeze-start
    rules = parse_rule('B3/S23')
    census = {0: 0}
    # autodd: end-freeze
    cells = []
    for name in sorted(PATTERNS):
        cells.extend(PATTERNS[name])
    grid = Grid(12, 10, cells)
    final, history = run(grid, rules, 7, census)
    print(final.render())
    print("history", history)
    expected = len(cells)
    if census[7] != expected:
        raise AssertionError("population drift: generation 7 has %d cells, expected %d" % (census[7], expected))


main()
