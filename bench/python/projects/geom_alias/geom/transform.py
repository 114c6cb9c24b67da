"""Transforms of polygons."""
import geom.vector as vec
from geom.matrix import Matrix
from geom.shapes import Polygon


def translate(poly, offset):
    return Polygon([vec.add(p, offset) for p in poly.points])


def rotate(poly, degrees):
    m = Matrix.rotation(degrees)
    return Polygon([m.apply(p) for p in poly.points])


def edge_normals(poly):
    normals = []
    for a, b in poly.edges():
        d = vec.sub(b, a)
        normals.append(vec.normalize((-d[1], d[0])))
    return normals
