class ShapeError(ValueError):
    pass


raise ShapeError("matmul shape mismatch: (2, 10) @ (12, 8)")
