"""Receive stock, then fulfil an order that asks for too much."""
from inventory import warehouse
from inventory.stock import StockLevel

# --- main ---
# --- warm-up ---
print(StockLevel("washer", 3).take(1))
wh = warehouse.Warehouse("north")
wh.receive("bolt", 40)
wh.receive("nut", 25)
print(wh.level("bolt"))
print(wh.fulfil({"bolt": 12}))
print(wh.fulfil({"bolt": 12, "nut": 30}))
