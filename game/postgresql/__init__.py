"""Django's PostgreSQL backend, with a pool-lend check that costs no round trip (base.py)."""
