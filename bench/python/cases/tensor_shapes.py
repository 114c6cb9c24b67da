"""A tiny dense-tensor library and a two-layer model whose hidden size is derived from a
configuration dictionary; one configuration produces a matmul shape mismatch."""


class ShapeError(ValueError):
    pass


class Tensor:
    def __init__(self, rows, cols, fill=0.0):
        self.rows = rows
        self.cols = cols
        self.data = [[fill for _ in range(cols)] for _ in range(rows)]

    @property
    def shape(self):
        return (self.rows, self.cols)

    @classmethod
    def eye(cls, n):
        t = cls(n, n)
        for i in range(n):
            t.data[i][i] = 1.0
        return t

    @classmethod
    def ramp(cls, rows, cols):
        t = cls(rows, cols)
        for i in range(rows):
            for j in range(cols):
                t.data[i][j] = ((i * cols + j) % 7) / 7.0
        return t

    def matmul(self, other):
        if self.cols != other.rows:
            raise ShapeError("matmul shape mismatch: %s @ %s" % (self.shape, other.shape))
        out = Tensor(self.rows, other.cols)
        for i in range(self.rows):
            for k in range(self.cols):
                a = self.data[i][k]
                if a == 0.0:
                    continue
                row = other.data[k]
                acc = out.data[i]
                for j in range(other.cols):
                    acc[j] += a * row[j]
        return out

    def add_bias(self, bias):
        out = Tensor(self.rows, self.cols)
        for i in range(self.rows):
            for j in range(self.cols):
                out.data[i][j] = self.data[i][j] + bias[j % len(bias)]
        return out

    def relu(self):
        out = Tensor(self.rows, self.cols)
        for i in range(self.rows):
            out.data[i] = [max(0.0, v) for v in self.data[i]]
        return out

    def total(self):
        return sum(sum(r) for r in self.data)

    def __repr__(self):
        return "Tensor(%d x %d, total=%.3f)" % (self.rows, self.cols, self.total())


class Linear:
    def __init__(self, fan_in, fan_out, name):
        self.name = name
        self.weight = Tensor.ramp(fan_in, fan_out)
        self.bias = [0.01 * (j + 1) for j in range(fan_out)]

    def __call__(self, x):
        return x.matmul(self.weight).add_bias(self.bias)


class MLP:
    def __init__(self, config):
        width = config["width"]
        expansion = config.get("expansion", 2)
        hidden = width * expansion
        if config.get("bottleneck"):
            hidden = hidden - config["bottleneck"]
        self.layers = [
            Linear(width, hidden, "fc1"),
            Linear(width * expansion, config["classes"], "fc2"),
        ]
        self.log = []

    def forward(self, x):
        for index, layer in enumerate(self.layers):
            x = layer(x)
            if index + 1 < len(self.layers):
                x = x.relu()
            self.log.append("%s -> %s" % (layer.name, x.shape))
        return x


CONFIGS = {
    "tiny": {"width": 4, "classes": 3},
    "wide": {"width": 8, "expansion": 3, "classes": 5},
    "squeezed": {"width": 6, "expansion": 2, "bottleneck": 2, "classes": 8},
}


def evaluate(name, batch):
    config = CONFIGS[name]
    model = MLP(config)
    x = Tensor.ramp(batch, config["width"])
    y = model.forward(x)
    print("%-9s %s  [%s]" % (name, y, "; ".join(model.log)))
    return y.total()


def main():
    scores = {}
    for batch, name in enumerate(sorted(CONFIGS), start=2):
        scores[name] = evaluate(name, batch)
    print("best:", max(scores, key=scores.get))


if __name__ == "__main__":
    main()
