"""Polygons."""
import geom.vector as vec


class Polygon:
    def __init__(self, points):
        self.points = list(points)

    def edges(self):
        n = len(self.points)
        return [(self.points[i], self.points[(i + 1) % n]) for i in range(n)]

    def perimeter(self):
        return round(sum(vec.length(vec.sub(b, a)) for a, b in self.edges()), 6)

    def area(self):
        return round(abs(sum(a[0] * b[1] - b[0] * a[1] for a, b in self.edges())) / 2, 6)
