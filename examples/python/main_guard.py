"""The failing code only runs when the file is the main script."""


def parse(text):
    fields = [field for field in text.split(",") if field]
    return [int(field) for field in fields]


def average(numbers):
    return sum(numbers) / len(numbers)


def summarize(text):
    numbers = parse(text)
    if not numbers:
        raise LookupError("empty input")
    print("average", average(numbers))
    return max(numbers) - min(numbers)


if __name__ == "__main__":
    spread = summarize("4,8,15,16,23,42")
    print("spread", spread)
    summarize("")
