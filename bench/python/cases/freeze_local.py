"""A small JSON-style encoder for nested shapes. `__freeze__` is defined in this file (not
imported); the encoder configuration is frozen with it and must survive reduction."""


class _Freeze:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __call__(self, value):
        return value


__freeze__ = _Freeze()


class Point:
    def __init__(self, x, y):
        self.x = x
        self.y = y


class Circle:
    def __init__(self, center, radius):
        self.center = center
        self.radius = radius

    def to_dict(self):
        return {"kind": "circle", "center": self.center, "radius": self.radius}


class Polygon:
    def __init__(self, points):
        self.points = list(points)

    def to_dict(self):
        return {"kind": "polygon", "points": [[p.x, p.y] for p in self.points]}


class EncodeError(TypeError):
    pass


class Encoder:
    def __init__(self, indent, sort_keys):
        self.indent = indent
        self.sort_keys = sort_keys

    def encode(self, value, path="$", level=0):
        pad = " " * (self.indent * (level + 1))
        end = " " * (self.indent * level)
        if value is None:
            return "null"
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, (int, float)):
            return repr(value)
        if isinstance(value, str):
            return '"' + value.replace('"', '\\"') + '"'
        if isinstance(value, (list, tuple)):
            items = [self.encode(v, "%s[%d]" % (path, i), level + 1) for i, v in enumerate(value)]
            return "[\n" + ",\n".join(pad + item for item in items) + "\n" + end + "]"
        if isinstance(value, dict):
            keys = sorted(value) if self.sort_keys else list(value)
            items = ['"%s": %s' % (k, self.encode(value[k], path + "." + k, level + 1)) for k in keys]
            return "{\n" + ",\n".join(pad + item for item in items) + "\n" + end + "}"
        if hasattr(value, "to_dict"):
            return self.encode(value.to_dict(), path, level)
        raise EncodeError("cannot encode %s at %s" % (type(value).__name__, path))


def scene():
    shapes = [Polygon([Point(0, 0), Point(4, 0), Point(4, 3)])]
    for n in range(1, 4):
        center = [n, n * 2] if n % 3 else Point(n, n)
        shapes.append(Circle(center, n * 1.5))
    return {"name": "demo", "version": 2, "shapes": shapes, "visible": True}


def main():
    with __freeze__:
        encoder = Encoder(indent=2, sort_keys=True)
    text = encoder.encode(scene())
    print(text)


main()
