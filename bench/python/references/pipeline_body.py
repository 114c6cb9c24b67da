raise OverflowError("stage narrow: line of 21 chars exceeds width 18")
