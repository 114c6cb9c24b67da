"""An assembler and stack virtual machine running a few small programs; one program pops an
empty stack at a program counter that depends on the assembled layout."""

OPCODES = {
    "push": 1, "pop": 0, "add": 0, "sub": 0, "mul": 0, "dup": 0, "swap": 0,
    "jz": 1, "jmp": 1, "print": 0, "halt": 0, "load": 1, "store": 1,
}


class VMError(Exception):
    pass


def assemble(source):
    labels = {}
    code = []
    pending = []
    for raw in source.strip().splitlines():
        line = raw.split(";")[0].strip()
        if not line:
            continue
        if line.endswith(":"):
            labels[line[:-1]] = len(code)
            continue
        parts = line.split()
        op = parts[0]
        if op not in OPCODES:
            raise VMError("unknown opcode %r" % op)
        code.append(op)
        if OPCODES[op]:
            arg = parts[1]
            if arg.lstrip("-").isdigit():
                code.append(int(arg))
            else:
                pending.append((len(code), arg))
                code.append(0)
    for index, label in pending:
        code[index] = labels[label]
    return code


class Machine:
    def __init__(self, code, memory_size=8):
        self.code = code
        self.stack = []
        self.memory = [0] * memory_size
        self.output = []
        self.pc = 0
        self.steps = 0

    def pop(self):
        if not self.stack:
            raise VMError("stack underflow at pc=%d after %d steps" % (self.pc, self.steps))
        return self.stack.pop()

    def run(self, limit=10000):
        while self.pc < len(self.code) and self.steps < limit:
            op = self.code[self.pc]
            self.steps += 1
            arg = self.code[self.pc + 1] if OPCODES[op] else None
            self.pc += 1 + OPCODES[op]
            if op == "push":
                self.stack.append(arg)
            elif op == "pop":
                self.pop()
            elif op in ("add", "sub", "mul"):
                b = self.pop()
                a = self.pop()
                self.stack.append(a + b if op == "add" else a - b if op == "sub" else a * b)
            elif op == "dup":
                v = self.pop()
                self.stack.extend([v, v])
            elif op == "swap":
                b = self.pop()
                a = self.pop()
                self.stack.extend([b, a])
            elif op == "jz":
                if self.pop() == 0:
                    self.pc = arg
            elif op == "jmp":
                self.pc = arg
            elif op == "load":
                self.stack.append(self.memory[arg])
            elif op == "store":
                self.memory[arg] = self.pop()
            elif op == "print":
                self.output.append(str(self.pop()))
            elif op == "halt":
                break
        return self.output


PROGRAMS = {
    "countdown": """
        push 5
        store 0
    loop:
        load 0
        jz done
        load 0
        print
        load 0
        push 1
        sub
        store 0
        jmp loop
    done:
        halt
    """,
    "factorial": """
        push 1
        store 1
        push 6
        store 0
    loop:
        load 0
        jz done
        load 1
        load 0
        mul
        store 1
        load 0
        push 1
        sub
        store 0
        jmp loop
    done:
        load 1
        print
    """,
    "sum_squares": """
        push 0
        store 2
        push 4
        store 0
    loop:
        load 0
        jz done
        load 0
        dup
        mul
        load 2
        add
        store 2
        load 0
        push 1
        sub
        store 0
        jmp loop
    done:
        load 2
        print
        print      ; one print too many
    """,
}


def main():
    for name in ["countdown", "factorial", "sum_squares"]:
        code = assemble(PROGRAMS[name])
        machine = Machine(code)
        out = machine.run()
        print("%-12s %3d words  -> %s" % (name, len(code), " ".join(out)))


main()
