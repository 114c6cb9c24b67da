"""A directory tree summarised by a generator-driven traversal."""


class BudgetError(Exception):
    pass


class Node:
    def __init__(self, name, size, children=()):
        self.name = name
        self.size = size
        self.children = list(children)

    def path_to(self, parent):
        return parent + "/" + self.name if parent else self.name


def walk(node, parent="", depth=0):
    path = node.path_to(parent)
    yield path, node, depth
    for child in sorted(node.children, key=lambda c: c.name):
        yield from walk(child, path, depth + 1)


def leaves(root):
    for path, node, depth in walk(root):
        if not node.children:
            yield path, node.size


def check_budget(path, total, budget):
    if total > budget:
        raise BudgetError("budget exceeded at %s: %d > %d" % (path, total, budget))
    return budget - total


def weighted(root, budget):
    total = 0
    for path, node, depth in walk(root):
        total += node.size * (depth + 1)
        check_budget(path, total, budget)
    return total


def build():
    return Node("root", 1, [
        Node("src", 2, [Node("main.py", 7), Node("util.py", 3)]),
        Node("docs", 1, [Node("index.md", 4)]),
        Node("assets", 0, [Node("logo.png", 9), Node("icons", 1, [Node("a.svg", 2)])]),
    ])


if __name__ == "__main__":
    tree = build()
    print(sum(size for _, size in leaves(tree)))
    print(weighted(tree, 40))
