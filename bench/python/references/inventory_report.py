class Inventory:
    def take(self):
        raise RuntimeError("not enough sku-042: have 11, need 12")


Inventory().take()
