"""Evaluation entry point."""


def run(tree, env):
    return tree.evaluate(env)
