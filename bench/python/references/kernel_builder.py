class ShapeError(Exception):
    pass


def check_gemm():
    raise ShapeError("K shape check failed: 64 != 32 in qgemm_512x384x1024")


check_gemm()
