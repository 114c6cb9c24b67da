def bench_main():
    raise ValueError("similarity 26/35 below 3/4 at width 72 (4 vs 4 lines)")


bench_main()
