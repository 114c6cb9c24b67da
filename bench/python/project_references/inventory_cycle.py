class StockError(RuntimeError):
    pass


class StockLevel:
    def take(self, n):
        if n > 25:
            raise StockError("not enough nut: have 25, need %d" % n)


StockLevel().take(30)
