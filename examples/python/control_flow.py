"""The failure happens deep inside an if, a for and a with body."""
import contextlib
import io


def load(lines):
    totals = {}
    for line in lines:
        key, _, value = line.partition("=")
        totals[key.strip()] = int(value)
    return totals


def report(totals, out):
    for key in sorted(totals):
        out.write(f"{key}: {totals[key]}\n")


config = load(["alpha = 3", "beta = 4", "gamma = 5"])
buffer = io.StringIO()
report(config, buffer)
if config["alpha"] < config["beta"]:
    for name, value in config.items():
        with contextlib.suppress(KeyError):
            if value > 4:
                raise RuntimeError("budget exceeded for " + name)
            print("ok", name)
print(buffer.getvalue())
