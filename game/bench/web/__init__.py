"""`manage.py bench_web`: the project's server against a bare Channels fan-out server,
over real websockets, one module a scenario (docs/benchmarks.md)."""
