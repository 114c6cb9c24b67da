print("RECONCILIATION FAILED: bank 6555 != statement 6600")
