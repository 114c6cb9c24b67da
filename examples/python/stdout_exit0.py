"""Reports its failure on stdout and still exits with status 0."""


def checksum(values):
    total = 0
    for value in values:
        total = (total * 31 + value) % 1000
    return total


def verify(values, expected):
    got = checksum(values)
    if got != expected:
        print(f"CHECKSUM MISMATCH: got {got}, expected {expected}")
        return False
    print("checksum ok")
    return True


data = [3, 1, 4, 1, 5, 9, 2, 6]
verify(data[:4], checksum(data[:4]))
verify(data, 0)
print("done")
