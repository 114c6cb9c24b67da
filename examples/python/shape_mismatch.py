"""A tiny tiled matrix multiply whose K-dimension shape check fails.

The failure depends on integer constants: the reduction halves them while the
mismatch persists.
"""
import math


class Matrix:
    def __init__(self, rows, cols, fill=0.0):
        self.rows = rows
        self.cols = cols
        self.data = [[fill] * cols for _ in range(rows)]

    def __repr__(self):
        return f"Matrix({self.rows}x{self.cols})"

    def scale(self, factor):
        out = Matrix(self.rows, self.cols)
        for i in range(self.rows):
            for j in range(self.cols):
                out.data[i][j] = self.data[i][j] * factor
        return out


def ceil_div(a, b):
    return (a + b - 1) // b


def gemm(a, b, block_m=16, block_n=16, block_k=8):
    if a.cols != b.rows:
        raise ValueError(f"T.gemm K shape check failed: {a.cols} != {b.rows}")
    out = Matrix(a.rows, b.cols)
    for bm in range(ceil_div(a.rows, block_m)):
        for bn in range(ceil_div(b.cols, block_n)):
            for bk in range(ceil_div(a.cols, block_k)):
                pass
    return out


def describe(m):
    norm = math.sqrt(sum(x * x for row in m.data for x in row))
    print(f"{m!r}: norm {norm:.3f}")


def main():
    M, N, K = 64, 32, 48
    padding = 16
    a = Matrix(M, K, fill=1.0).scale(0.5)
    b = Matrix(K + padding, N, fill=2.0)
    describe(a)
    describe(b)
    c = gemm(a, b, block_k=padding)
    describe(c)


main()
