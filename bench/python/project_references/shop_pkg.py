class DiscountError(ValueError):
    pass


def apply_discount(subtotal, off):
    if off > subtotal:
        raise DiscountError("discount exceeds subtotal: %s > %s" % (off, subtotal))


apply_discount(100.0, 120.0)
