class Pipeline:
    def run(self):
        raise OverflowError("stage narrow: line of 21 chars exceeds width 18")


Pipeline().run()
