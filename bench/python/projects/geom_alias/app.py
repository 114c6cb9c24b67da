"""Edge normals of a few polygons."""
import geom.vector as vec
import geom.transform as tf
from geom import shapes

# --- main ---
# --- warm-up ---
tri = shapes.Polygon([(0.0, 0.0), (4.0, 0.0), (4.0, 3.0)])
print(vec.length(vec.sub(tri.points[1], tri.points[0])))
moved = tf.translate(tri, (1.0, 1.0))
print(moved.perimeter(), tf.rotate(tri, 90).area())
print(tf.edge_normals(tri))
print(tf.edge_normals(shapes.Polygon([(1.0, 1.0), (2.0, 2.0), (2.0, 2.0), (0.0, 3.0)])))
