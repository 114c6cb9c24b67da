class ShapeError(Exception):
    pass


raise ShapeError("K shape check failed: 64 != 32 in qgemm_512x384x1024")
