"""Checkout: subtotal, discount, tax."""
from . import discounts
from .tax import rate_for
from .util import round_money


def subtotal(cart):
    return cart.subtotal()


def checkout(cart, coupon=None, region="us"):
    amount = subtotal(cart)
    if coupon:
        amount = discounts.apply_discount(amount, coupon)
    tax = round_money(amount * rate_for(region))
    return {"cart": cart.cart_id, "net": amount, "tax": tax, "gross": round_money(amount + tax)}
