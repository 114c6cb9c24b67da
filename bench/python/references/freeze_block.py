def parse_rule(text):
    pass


# autodd: freeze-start
rules = parse_rule('B3/S23')
census = {0: 0}
# autodd: end-freeze


def main():
    raise AssertionError("population drift: generation 7 has 14 cells, expected 12")


main()
