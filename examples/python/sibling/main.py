"""Imports a module from its own directory; the failure is raised there."""
import helper


def run():
    values = helper.make_values(5)
    print("values", values)
    helper.check(values)


unrelated = {"a": 1, "b": 2}
print(sorted(unrelated))
run()
