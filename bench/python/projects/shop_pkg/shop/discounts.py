"""Coupons: a percentage off, or a fixed amount off."""
from .util import round_money

COUPONS = {"SPRING10": ("percent", 10), "SPRING120": ("amount", 120.0), "VIP": ("percent", 25)}


class DiscountError(ValueError):
    pass


def lookup(code):
    try:
        return COUPONS[code]
    except KeyError:
        raise DiscountError("unknown coupon %s" % code) from None


def apply_discount(subtotal, code):
    kind, value = lookup(code)
    if kind == "percent":
        off = subtotal * value / 100
    else:
        off = value
    if off > subtotal:
        raise DiscountError("discount exceeds subtotal: %s > %s" % (round_money(off), round_money(subtotal)))
    return round_money(subtotal - off)
