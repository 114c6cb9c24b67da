"""A TileLang-style kernel builder in pure Python (no GPU): a tiny IR of buffers and
statements, a tiling plan derived from the problem and a hardware table, and a lowering pass
whose shape check fails with tile sizes computed through all of them."""


class ShapeError(Exception):
    pass


DTYPE_BYTES = {"float16": 2, "bfloat16": 2, "float32": 4, "int8": 1}

HARDWARE = {
    "sm80": {"smem_bytes": 96 * 1024, "warps": 4, "load_bytes": 16},
    "sm90": {"smem_bytes": 160 * 1024, "warps": 8, "load_bytes": 16},
}


class Buffer:
    def __init__(self, name, shape, dtype, scope="global"):
        self.name = name
        self.shape = tuple(shape)
        self.dtype = dtype
        self.scope = scope

    @property
    def nbytes(self):
        size = 1
        for extent in self.shape:
            size *= extent
        return size * DTYPE_BYTES[self.dtype]

    def __repr__(self):
        return "%s[%s]" % (self.name, ", ".join(str(e) for e in self.shape))


class Stmt:
    def __init__(self, op, *args, **attrs):
        self.op = op
        self.args = args
        self.attrs = attrs
        self.body = []

    def render(self, indent):
        attrs = "".join(", %s=%s" % (k, v) for k, v in sorted(self.attrs.items()))
        line = "%s%s(%s%s)" % ("    " * indent, self.op, ", ".join(repr(a) for a in self.args), attrs)
        return [line] + [l for s in self.body for l in s.render(indent + 1)]


class KernelBuilder:
    def __init__(self, name, grid, threads):
        self.name = name
        self.grid = grid
        self.threads = threads
        self.params = []
        self.allocs = []
        self.stack = [[]]

    def param(self, name, shape, dtype):
        buf = Buffer(name, shape, dtype)
        self.params.append(buf)
        return buf

    def alloc(self, name, shape, dtype, scope):
        buf = Buffer(name, shape, dtype, scope)
        self.allocs.append(buf)
        return buf

    def emit(self, op, *args, **attrs):
        stmt = Stmt(op, *args, **attrs)
        self.stack[-1].append(stmt)
        return stmt

    def pipelined(self, extent, stages):
        return _Scope(self, self.emit("pipelined", extent, stages=stages))


class _Scope:
    def __init__(self, builder, stmt):
        self.builder = builder
        self.stmt = stmt

    def __enter__(self):
        self.builder.stack.append(self.stmt.body)
        return self.stmt

    def __exit__(self, *exc):
        self.builder.stack.pop()
        return False


def shared_bytes(block_m, block_n, block_k, elem, stages):
    return (block_m * block_k + block_k * block_n) * elem * stages


def tile_plan(problem, arch):
    hw = HARDWARE[arch]
    elem = DTYPE_BYTES[problem["dtype"]]
    block_m = 128 if problem["M"] >= 128 else 64
    block_n = 128 if problem["N"] % 128 == 0 else 64
    block_k = hw["load_bytes"] * 4 // elem
    stages = 4
    while stages > 1 and shared_bytes(block_m, block_n, block_k, elem, stages) > hw["smem_bytes"]:
        stages -= 1
    return {"block_M": block_m, "block_N": block_n, "block_K": block_k,
            "stages": stages, "threads": 32 * hw["warps"]}


def operand_tile(plan, operand, dtype):
    if operand == "A":
        return (plan["block_M"], plan["block_K"])
    # B is loaded in 16-bit lanes: the tile's K extent is counted in halves.
    return (plan["block_K"] * DTYPE_BYTES[dtype] // 2, plan["block_N"])


def build_gemm(problem, arch):
    plan = tile_plan(problem, arch)
    m, n, k, dtype = problem["M"], problem["N"], problem["K"], problem["dtype"]
    name = "%s_%dx%dx%d" % (problem["kind"], m, n, k)
    grid = ((n + plan["block_N"] - 1) // plan["block_N"], (m + plan["block_M"] - 1) // plan["block_M"])
    kb = KernelBuilder(name, grid, plan["threads"])
    a = kb.param("A", (m, k), dtype)
    b = kb.param("B", (k, n), dtype)
    c = kb.param("C", (m, n), "float32")
    a_s = kb.alloc("A_shared", operand_tile(plan, "A", dtype), dtype, "shared")
    b_s = kb.alloc("B_shared", operand_tile(plan, "B", dtype), dtype, "shared")
    c_f = kb.alloc("C_local", (plan["block_M"], plan["block_N"]), "float32", "local.fragment")
    kb.emit("clear", c_f)
    with kb.pipelined(k // plan["block_K"], plan["stages"]):
        kb.emit("copy", a, a_s)
        kb.emit("copy", b, b_s)
        kb.emit("gemm", a_s, b_s, c_f)
    kb.emit("copy", c_f, c)
    return kb, plan


def check_gemm(kernel, stmt):
    a, b, c = stmt.args
    if a.shape[1] != b.shape[0]:
        raise ShapeError("K shape check failed: %d != %d in %s" % (a.shape[1], b.shape[0], kernel.name))
    if (a.shape[0], b.shape[1]) != c.shape:
        raise ShapeError("MN shape check failed in %s" % kernel.name)


def lower(kernel, arch):
    smem = sum(buf.nbytes for buf in kernel.allocs if buf.scope == "shared")
    if smem > HARDWARE[arch]["smem_bytes"]:
        raise ShapeError("%s needs %d bytes of shared memory" % (kernel.name, smem))
    todo = list(kernel.stack[0])
    while todo:
        stmt = todo.pop(0)
        if stmt.op == "gemm":
            check_gemm(kernel, stmt)
        todo.extend(stmt.body)
    lines = ["kernel %s grid=%s threads=%d smem=%d" % (kernel.name, kernel.grid, kernel.threads, smem)]
    for stmt in kernel.stack[0]:
        lines.extend(stmt.render(1))
    return "\n".join(lines)


PROBLEMS = [
    {"kind": "gemm", "M": 256, "N": 256, "K": 512, "dtype": "float16"},
    {"kind": "gemm", "M": 64, "N": 192, "K": 256, "dtype": "bfloat16"},
    {"kind": "qgemm", "M": 512, "N": 384, "K": 1024, "dtype": "int8"},
]


def main():
    for problem in PROBLEMS:
        kernel, plan = build_gemm(problem, "sm80")
        print(lower(kernel, "sm80"))
        print("plan", sorted(plan.items()))


main()
