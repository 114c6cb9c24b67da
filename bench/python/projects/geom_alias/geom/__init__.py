"""Plane geometry: vectors, 2x2 matrices, polygons, transforms."""
__version__ = "0.3"
