"""Double-entry ledger with a nightly reconciliation. The program never raises: it prints a
reconciliation failure on stdout and exits with status 0."""

ACCOUNTS = ["cash", "bank", "receivable", "payable", "revenue", "expense"]


class Ledger:
    def __init__(self):
        self.balances = {name: 0 for name in ACCOUNTS}
        self.entries = []

    def post(self, debit, credit, amount, memo=""):
        if amount <= 0:
            raise ValueError("amount must be positive")
        self.balances[debit] += amount
        self.balances[credit] -= amount
        self.entries.append((debit, credit, amount, memo))

    def trial_balance(self):
        return sum(self.balances.values())

    def statement(self, account):
        rows = []
        running = 0
        for debit, credit, amount, memo in self.entries:
            if debit == account:
                running += amount
                rows.append("  +%6d %-12s %7d" % (amount, memo, running))
            elif credit == account:
                running -= amount
                rows.append("  -%6d %-12s %7d" % (amount, memo, running))
        return rows


def apply_fee(amount, basis_points):
    return amount * basis_points // 10000


def simulate(days):
    ledger = Ledger()
    for day in range(1, days + 1):
        sale = 1000 + 125 * (day % 4)
        ledger.post("receivable", "revenue", sale, "sale d%d" % day)
        if day % 2 == 0:
            ledger.post("bank", "receivable", sale - apply_fee(sale, 290), "settle d%d" % day)
            ledger.post("expense", "receivable", apply_fee(sale, 290), "fee d%d" % day)
        if day % 3 == 0:
            ledger.post("expense", "cash", 40 + day, "supplies")
    return ledger


def reconcile(ledger, expected_bank):
    bank = ledger.balances["bank"]
    for line in ledger.statement("bank")[-3:]:
        print(line)
    if ledger.trial_balance() != 0:
        print("UNBALANCED LEDGER")
    if bank != expected_bank:
        print("RECONCILIATION FAILED: bank %d != statement %d" % (bank, expected_bank))
        return False
    print("reconciled: bank %d" % bank)
    return True


def main():
    ledger = simulate(12)
    summary = {name: ledger.balances[name] for name in sorted(ledger.balances)}
    for name, value in summary.items():
        print("%-11s %8d" % (name, value))
    reconcile(ledger, expected_bank=6 * 1100)


main()
