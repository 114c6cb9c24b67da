"""A small shop: models, pricing, discounts and tax."""
from .models import Cart, LineItem
from .pricing import checkout, subtotal
from . import tax

__all__ = ["Cart", "LineItem", "checkout", "subtotal", "tax"]
