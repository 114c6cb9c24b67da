"""A text-processing pipeline whose failing statements sit deep inside a method, a loop and a
`with` block: a good reduction keeps those body statements and drops the headers around them."""

import contextlib


class Stage:
    def __init__(self, name, width):
        self.name = name
        self.width = width

    def __repr__(self):
        return "Stage(%r, %d)" % (self.name, self.width)


class Recorder:
    def __init__(self):
        self.events = []

    @contextlib.contextmanager
    def section(self, name):
        self.events.append("enter " + name)
        try:
            yield len(self.events)
        finally:
            self.events.append("leave " + name)


def tokenize(text):
    words = []
    current = []
    for ch in text:
        if ch.isalnum():
            current.append(ch.lower())
        elif current:
            words.append("".join(current))
            current = []
    if current:
        words.append("".join(current))
    return words


def pack(words, width):
    lines = []
    line = ""
    for word in words:
        if len(line) + len(word) + 1 > width and line:
            lines.append(line)
            line = word
        else:
            line = (line + " " + word).strip()
    if line:
        lines.append(line)
    return lines


class Pipeline:
    def __init__(self, stages):
        self.stages = stages
        self.recorder = Recorder()
        self.results = {}

    def run(self, text):
        words = tokenize(text)
        for stage in self.stages:
            with self.recorder.section(stage.name) as depth:
                lines = pack(words, stage.width)
                counts = {}
                for line in lines:
                    counts[len(line)] = counts.get(len(line), 0) + 1
                longest = max(counts)
                if longest > stage.width:
                    raise OverflowError("stage %s: line of %d chars exceeds width %d" % (stage.name, longest, stage.width))
                self.results[stage.name] = (len(lines), longest, depth)
        return self.results


TEXT = """
Reduction keeps only what the failure needs. Everything else - helpers, loops,
classes and configuration - should disappear, but the statements that compute the
failing value must stay, even when the function around them can go. Incomprehensibilities
are rare in prose but common in identifiers.
"""


def main():
    stages = [Stage("wide", 60), Stage("medium", 32), Stage("narrow", 18), Stage("tiny", 9)]
    pipeline = Pipeline(stages)
    for name, (count, longest, depth) in pipeline.run(TEXT).items():
        print("%-7s %3d lines, longest %2d, depth %d" % (name, count, longest, depth))


if __name__ == "__main__":
    main()
