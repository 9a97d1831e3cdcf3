"""Temporary: which tuning items are off (SPLENDOR_TUNING_OFF=store,layers,...), to
measure each on and off by turns."""

import os

OFF = frozenset(filter(None, os.environ.get("SPLENDOR_TUNING_OFF", "").split(",")))


def off(item: str) -> bool:
    return item in OFF
