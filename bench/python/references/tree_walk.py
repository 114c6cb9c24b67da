class BudgetError(Exception):
    pass


def check_budget():
    raise BudgetError('budget exceeded at root/docs: 41 > 40')


check_budget()
