"""Checkout of a sample cart: line items, a coupon, regional tax."""
import shop.util
from shop import Cart, LineItem, checkout
from shop import tax as tax_rules

# --- main ---
# --- warm-up ---
print(tax_rules.rate_for("us"), tax_rules.rate_for("eu"))
cart = Cart("c-17")
cart.add(LineItem("sku-1", 2, 30.0))
cart.add(LineItem("sku-2", 1, 40.0))
print(shop.util.money(cart.subtotal()))
print(checkout(cart, coupon="SPRING10", region="us"))
receipt = checkout(cart, coupon="SPRING120", region="eu")
print(receipt)
