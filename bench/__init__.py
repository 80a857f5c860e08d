"""Benchmarks: speed is measured here, as throughput and as ratios to a baseline run in the
same process, never asserted in unit tests. Run with `make bench` or `python -m bench`."""
