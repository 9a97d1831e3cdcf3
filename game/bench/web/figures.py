"""The statistics the scenarios' results are read with: percentiles, buckets, load."""

from __future__ import annotations

import math
import os
from collections.abc import Sequence

from game.bench.web.config import BUCKET

Span = tuple[float, float]  # an action (or a replacement): when it started and ended


def percentile(values: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile; 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def load() -> str:
    return " ".join(f"{value:.1f}" for value in os.getloadavg())


def bucket_p99s(spans: list[Span], started: float, until: float) -> list[float]:
    """The p99 latency of the actions that started in each BUCKET seconds from `started`
    (a bucket without actions is left out)."""
    buckets: list[list[float]] = [[] for _ in range(max(1, math.ceil((until - started) / BUCKET)))]
    for start, end in spans:
        index = min(len(buckets) - 1, max(0, int((start - started) / BUCKET)))
        buckets[index].append(end - start)
    return [percentile(bucket, 0.99) for bucket in buckets if bucket]


def worst_to_median(values: Sequence[float]) -> float:
    """The largest value over the median one (0 for none): 1 when all are alike."""
    middle = percentile(values, 0.5)
    return max(values) / middle if values and middle else 0.0


def away_from(spans: list[Span], busy: list[Span]) -> list[float]:
    """The durations of the spans (actions) that overlap none of `busy` (replacements)."""
    return [
        end - start
        for start, end in spans
        if not any(start < b_end and b_start < end for b_start, b_end in busy)
    ]
