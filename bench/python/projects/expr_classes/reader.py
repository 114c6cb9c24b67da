"""Tokenizer and recursive-descent parser."""
import re

from errors import ParseError
from funcs import Call
from nodes import Const, Var
from ops import OPERATORS

TOKEN = re.compile(r"\s*(?:(\d+)|([A-Za-z_]\w*)|(.))")


def tokenize(src):
    tokens = []
    for number, name, other in TOKEN.findall(src):
        if number:
            tokens.append(("num", int(number)))
        elif name:
            tokens.append(("name", name))
        elif other.strip():
            tokens.append(("op", other))
    return tokens


class Parser:
    def __init__(self, tokens):
        self.tokens = tokens
        self.pos = 0

    def peek(self):
        return self.tokens[self.pos] if self.pos < len(self.tokens) else ("end", None)

    def take(self):
        token = self.peek()
        self.pos += 1
        return token

    def expect(self, value):
        kind, got = self.take()
        if got != value:
            raise ParseError("expected %s, got %s" % (value, got))

    def expr(self):
        node = self.term()
        while self.peek() in (("op", "+"), ("op", "-")):
            node = OPERATORS[self.take()[1]](node, self.term())
        return node

    def term(self):
        node = self.atom()
        while self.peek() in (("op", "*"), ("op", "/")):
            node = OPERATORS[self.take()[1]](node, self.atom())
        return node

    def atom(self):
        kind, value = self.take()
        if kind == "num":
            return Const(value)
        if kind == "name":
            if self.peek() == ("op", "("):
                self.take()
                args = [self.expr()]
                while self.peek() == ("op", ","):
                    self.take()
                    args.append(self.expr())
                self.expect(")")
                return Call(value, args)
            return Var(value)
        if value == "(":
            node = self.expr()
            self.expect(")")
            return node
        raise ParseError("unexpected %r" % (value,))


def parse(src):
    return Parser(tokenize(src)).expr()
