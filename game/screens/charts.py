"""Charts drawn on the server as inline SVG: no script, no CDN, readable without colour.

Every function is pure and returns `markupsafe.Markup`; every text put into a
chart (a player's name, a label, a title) is escaped, so a name such as
"<b>Ada & Bob</b>" or "Ελένη 🐱" is shown as typed. The output is well-formed XML.

Seats are told apart by shape (SEAT_SHAPES: circle, triangle, square, diamond,
drawn as SVG geometry, never as font glyphs a TV's font may lack) and by the
name at the end of each line; colour (the Okabe-Ito palette, safe for the
common colour blindnesses) is only a third cue.

Sizes: a chart's `viewBox` is `width` x `height` units and the `<svg>` is
`width="100%"` of its container (its height follows from the viewBox; no inline
style, which the Content-Security-Policy's style-src 'self' refuses), so in a
container `width` CSS px wide one unit is one CSS px. Text sizes (`font`) are in
those units: a caller sizes the chart so that text is readable where it is shown
(on a TV at least 24 CSS px: a chart of width 1200 with font 28 in a box at least
1,030 px wide; the Players page's CSS gives each chart's box its width).

Each chart is `role="img"` with a `<title>` and a `<desc>` (aria-labelledby);
the page keeps a table of the same numbers beside it for screen readers. A
line chart with `link` is `role="group"` instead: the children of an image are
presentational, and its links would be hidden from screen readers.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from django.utils.translation import gettext as _
from markupsafe import Markup, escape

# The seats' shapes and colours, by seat position 0..3.
SEAT_SHAPES: tuple[str, ...] = ("circle", "triangle", "square", "diamond")
# Okabe-Ito (orange, sky blue, bluish green, reddish purple): told apart with the
# common colour blindnesses, and at least 3:1 against the page's dark panels.
SEAT_COLOURS: tuple[str, ...] = ("#e69f00", "#56b4e9", "#009e73", "#cc79a7")

GRID = "#3b516b"  # the page's rule colour (static/css/players.css)
MARKERS_AT_MOST = 40  # a line with more points draws a marker on every k-th one
MARK_KINDS = ("noble", "buy")


@dataclass(frozen=True, slots=True)
class Series:
    """One seat's line: its name, its seat position (0..3: shape and colour) and a value
    per x index (None: no value there)."""

    name: str
    position: int
    values: Sequence[float | None]


@dataclass(frozen=True, slots=True)
class ChartMark:
    """Something that happened to a seat at x: "noble" (a noble's visit) or "buy"."""

    x: int
    position: int
    kind: str
    label: str


@dataclass(frozen=True, slots=True)
class Bar:
    """One row of a bar chart: its label (which carries the meaning), its count, and a
    CSS class for its colour (e.g. "gem-red")."""

    label: str
    count: int
    css_class: str = ""


@dataclass(frozen=True, slots=True)
class _Label:
    y: float  # where the line ends
    x: float
    text: str
    position: int


# ---------------------------------------------------------------- small helpers


def _n(value: float) -> str:
    """A coordinate: at most one decimal, no "-0"."""
    text = f"{value:.1f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _e(text: object) -> str:
    return str(escape(str(text)))


def _colour(position: int) -> str:
    return SEAT_COLOURS[position % len(SEAT_COLOURS)]


def _ident(prefix: str, *parts: object) -> str:
    """A stable id for the chart's title and desc (callers pass `ident` to choose)."""
    digest = hashlib.blake2b(repr(parts).encode(), digest_size=5).hexdigest()
    return f"{prefix}-{digest}"


def shape(position: int, cx: float, cy: float, r: float, attributes: str = "") -> str:
    """The seat's shape centred on (cx, cy), about 2r across, as an SVG element."""
    kind = SEAT_SHAPES[position % len(SEAT_SHAPES)]
    extra = f" {attributes}" if attributes else ""
    if kind == "circle":
        return f'<circle class="shape-circle" cx="{_n(cx)}" cy="{_n(cy)}" r="{_n(r)}"{extra}/>'
    if kind == "square":
        side = r * 1.7
        return (
            f'<rect class="shape-square" x="{_n(cx - side / 2)}" y="{_n(cy - side / 2)}" '
            f'width="{_n(side)}" height="{_n(side)}"{extra}/>'
        )
    if kind == "triangle":
        h = r * 1.1
        points = [(cx, cy - h * 1.1), (cx + h * 1.05, cy + h * 0.8), (cx - h * 1.05, cy + h * 0.8)]
    else:  # diamond
        h = r * 1.25
        points = [(cx, cy - h), (cx + h, cy), (cx, cy + h), (cx - h, cy)]
    listed = " ".join(f"{_n(x)},{_n(y)}" for x, y in points)
    return f'<polygon class="shape-{kind}" points="{listed}"{extra}/>'


def _filled(position: int, cx: float, cy: float, r: float) -> str:
    return shape(
        position,
        cx,
        cy,
        r,
        f'fill="{_colour(position)}" stroke="#13202f" stroke-width="{_n(max(r / 4, 1))}"',
    )


def seat_mark(position: int, size: int = 16) -> Markup:
    """The seat's shape as a tiny inline SVG, to stand beside a name anywhere (hidden from
    screen readers: the name beside it says who)."""
    return Markup(
        f'<svg class="seat-mark seat-{position % 4}" width="{size}" height="{size}" '
        f'viewBox="0 0 16 16" aria-hidden="true" focusable="false">'
        f"{_filled(position, 8, 8, 6.5)}</svg>"
    )


def mark_key(kind: str, size: int = 16) -> Markup:
    """A chart mark's symbol ("noble" or "buy") as a tiny inline SVG, for a key beside the
    chart (hidden from screen readers: the words beside it say what it means)."""
    body = _mark(ChartMark(0, 0, kind, ""), 8, 8, 6.5)
    return Markup(
        f'<svg class="mark-key" width="{size}" height="{size}" viewBox="0 0 16 16" '
        f'aria-hidden="true" focusable="false">{body}</svg>'
    )


def _open(
    role: str, ident: str, width: float, height: float, title: str, description: str, css: str
) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart {css}" role="{role}" '
        f'aria-labelledby="{ident}-title {ident}-desc" viewBox="0 0 {_n(width)} {_n(height)}" '
        f'width="100%" preserveAspectRatio="xMidYMid meet">'
        f'<title id="{ident}-title">{_e(title)}</title>'
        f'<desc id="{ident}-desc">{_e(description)}</desc>'
    )


def percent_label(fraction: float) -> str:
    """A share as the language writes it: "50%" in English, "50 %" in German and Finnish."""
    return _("%(percent)s%%") % {"percent": f"{fraction * 100:.0f}"}


def _text_width(text: str, font: float) -> float:
    """About how wide a line of text is (no font metrics on the server: 0.6 em a letter)."""
    return len(text) * font * 0.6


def spread(wanted: Sequence[float], gap: float, low: float, high: float) -> list[float]:
    """Move label positions (in the given order, sorted by the caller or not) the least so
    that any two are at least `gap` apart, all within [low, high] if they fit."""
    if not wanted:
        return []
    order = sorted(range(len(wanted)), key=lambda i: wanted[i])
    placed = [min(max(wanted[i], low), high) for i in order]
    for i in range(1, len(placed)):  # push down
        placed[i] = max(placed[i], placed[i - 1] + gap)
    if placed[-1] > high:  # then back up from the bottom, if there is room
        placed[-1] = high
        for i in range(len(placed) - 2, -1, -1):
            placed[i] = min(placed[i], placed[i + 1] - gap)
        shift = low - placed[0]
        if shift > 0:  # too many to fit: keep the gaps, start at the top
            placed = [y + shift for y in placed]
    result = [0.0] * len(wanted)
    for slot, i in enumerate(order):
        result[i] = placed[slot]
    return result


# ---------------------------------------------------------------- a line chart


def line_chart(
    series: Sequence[Series],
    *,
    x_labels: Sequence[str],
    y_max: float,
    y_ticks: Iterable[float],
    percent: bool = False,
    marks: Iterable[ChartMark] = (),
    current: int | None = None,
    link: Callable[[int], str] | None = None,
    link_label: Callable[[int], str] | None = None,
    title: str,
    description: str,
    step: bool = False,
    width: int = 1200,
    height: int = 500,
    font: int = 28,
    ident: str | None = None,
) -> Markup:
    """Lines over x (one per seat), with the seat's shape at its points and its shape and
    name at its end; y from 0 to y_max (percent: values are fractions, ticks say "50%").

    marks: a noble or a buy on a seat's line, with its label as the symbol's <title>.
    current: a vertical marker at that x. link: x -> URL; each x column is then a
    full-height link (aria-label: link_label(x), else the x label) that works without
    script. step: steps (the value holds until the next x) instead of straight lines.
    """
    ident = ident or _ident("chart", title, description, [s.name for s in series])
    count = len(x_labels)
    y_top = max(float(y_max), 1e-9)
    tick_labels = [
        (t, percent_label(t) if percent else f"{t:g}") for t in y_ticks if 0 <= t <= y_max
    ]
    left = font * 0.8 + max((_text_width(t, font) for _v, t in tick_labels), default=font)
    names = [s.name for s in series]
    label_room = font * 2.2 + max((_text_width(n, font) for n in names), default=0.0)
    right = min(width * 0.35, label_room)
    top, bottom = font * 1.0, font * 2.0
    plot_w = max(width - left - right, 1.0)
    plot_h = max(height - top - bottom, 1.0)
    plot_right, plot_bottom = left + plot_w, top + plot_h

    def x_at(index: int) -> float:
        if count <= 1:
            return left + plot_w / 2
        return left + plot_w * index / (count - 1)

    def y_at(value: float) -> float:
        share = min(max(value / y_top, 0.0), 1.0)  # never outside the plot
        return top + plot_h * (1 - share)

    role = "group" if link is not None else "img"
    parts = [_open(role, ident, width, height, title, description, "line-chart")]
    parts.append(f'<g class="chart-axes" font-size="{font}" fill="currentColor">')
    for value, text in tick_labels:
        y = y_at(value)
        parts.append(
            f'<line class="grid" x1="{_n(left)}" x2="{_n(plot_right)}" y1="{_n(y)}" '
            f'y2="{_n(y)}" stroke="{GRID}" stroke-width="2"/>'
            f'<text x="{_n(left - font * 0.4)}" y="{_n(y + font * 0.35)}" '
            f'text-anchor="end">{_e(text)}</text>'
        )
    parts.append(
        f'<line class="axis" x1="{_n(left)}" x2="{_n(left)}" y1="{_n(top)}" '
        f'y2="{_n(plot_bottom)}" stroke="currentColor" stroke-width="2"/>'
    )
    if count:
        room = max(_text_width(x, font) for x in x_labels) + font
        every = max(1, math.ceil(room / (plot_w / max(count - 1, 1)))) if count > 1 else 1
        shown = set(range(0, count, every)) | {count - 1}
        before_last = (count - 1) // every * every
        if 0 < count - 1 - before_last < every / 2:
            shown.discard(before_last)  # too close to the last label
        for index in sorted(shown):
            parts.append(
                f'<text class="x-label" x="{_n(x_at(index))}" y="{_n(plot_bottom + font * 1.3)}" '
                f'text-anchor="middle">{_e(x_labels[index])}</text>'
            )
    parts.append("</g>")
    if current is not None and 0 <= current < count:
        x = x_at(current)
        parts.append(
            f'<line class="chart-current" data-x="{current}" x1="{_n(x)}" x2="{_n(x)}" '
            f'y1="{_n(top)}" y2="{_n(plot_bottom)}" stroke="currentColor" stroke-width="4" '
            f'stroke-dasharray="10 8"/>'
        )

    radius = font * 0.32
    labels: list[_Label] = []
    by_position: dict[int, list[tuple[float, float] | None]] = {}
    for line in series:
        points = [
            None if v is None or i >= count else (x_at(i), y_at(float(v)))
            for i, v in enumerate(line.values)
        ]
        by_position[line.position] = points
        drawn = [(i, p) for i, p in enumerate(points) if p is not None]
        colour = _colour(line.position)
        parts.append(
            f'<g class="series seat-{line.position % 4}" data-name="{_e(line.name)}" '
            f'data-points="{len(drawn)}">'
        )
        if drawn:
            parts.append(
                f'<path d="{_path(points, step)}" fill="none" stroke="{colour}" '
                f'stroke-width="{_n(font / 7)}" stroke-linejoin="round" stroke-linecap="round"/>'
            )
            every = max(1, math.ceil(len(drawn) / MARKERS_AT_MOST))
            for n, (_i, (x, y)) in enumerate(drawn):
                if n % every == 0 or n == len(drawn) - 1:
                    parts.append(_filled(line.position, x, y, radius))
            _i, (x, y) = drawn[-1]
            labels.append(_Label(y, x, line.name, line.position))
        parts.append("</g>")

    for mark in marks:
        points = by_position.get(mark.position, [])
        point = points[mark.x] if 0 <= mark.x < len(points) else None
        if point is not None and mark.kind in MARK_KINDS:
            parts.append(_mark(mark, point[0], point[1], radius * 1.6))

    wanted = [label.y for label in labels]
    placed = spread(wanted, font * 1.15, top + font * 0.4, plot_bottom)
    label_x = plot_right + font * 0.5
    for label, y in zip(labels, placed, strict=True):
        parts.append(
            f'<g class="end-label seat-{label.position % 4}" font-size="{font}">'
            f'<line x1="{_n(label.x)}" y1="{_n(label.y)}" x2="{_n(label_x)}" '
            f'y2="{_n(y)}" stroke="{_colour(label.position)}" stroke-width="1.5"/>'
            f"{_filled(label.position, label_x + font * 0.45, y, font * 0.33)}"
            f'<text x="{_n(label_x + font * 1.05)}" y="{_n(y + font * 0.35)}" '
            f'fill="currentColor">{_e(label.text)}</text></g>'
        )

    if link is not None and count:
        column = plot_w / max(count - 1, 1) if count > 1 else plot_w
        for index in range(count):
            name = link_label(index) if link_label else x_labels[index]
            x = min(max(x_at(index) - column / 2, left), plot_right)
            w = min(x_at(index) + column / 2, plot_right) - x
            parts.append(
                f'<a class="chart-link" href="{_e(link(index))}" aria-label="{_e(name)}">'
                f'<rect x="{_n(x)}" y="{_n(top)}" width="{_n(max(w, 1))}" '
                f'height="{_n(plot_h)}" fill="transparent"/></a>'
            )
    parts.append("</svg>")
    return Markup("".join(parts))


def _path(points: Sequence[tuple[float, float] | None], step: bool) -> str:
    """M/L commands through the points; a None starts a new piece."""
    commands: list[str] = []
    previous: tuple[float, float] | None = None
    for point in points:
        if point is None:
            previous = None
            continue
        x, y = point
        if previous is None:
            commands.append(f"M{_n(x)} {_n(y)}")
        elif step:
            commands.append(f"H{_n(x)} V{_n(y)}")
        else:
            commands.append(f"L{_n(x)} {_n(y)}")
        previous = point
    return " ".join(commands)


def _squeezed(text: str, font: float, room: float) -> str:
    """Attributes that fit a long name into `room` (nothing for a name that fits)."""
    if _text_width(text, font) <= room:
        return ""
    return f' textLength="{_n(room)}" lengthAdjust="spacingAndGlyphs"'


def _mark(mark: ChartMark, x: float, y: float, r: float) -> str:
    """A noble: a crown; a buy: a small card. Its label is its <title>."""
    if mark.kind == "noble":
        w, h = r * 2.2, r * 1.6
        top, base = y - h / 2, y + h / 2
        points = [
            (x - w / 2, base),
            (x - w / 2, top),
            (x - w / 4, y),
            (x, top - r * 0.3),
            (x + w / 4, y),
            (x + w / 2, top),
            (x + w / 2, base),
        ]
        listed = " ".join(f"{_n(a)},{_n(b)}" for a, b in points)
        body = f'<polygon points="{listed}" fill="#f2c14e" stroke="#13202f" stroke-width="2"/>'
    else:
        w, h = r * 1.3, r * 1.8
        body = (
            f'<rect x="{_n(x - w / 2)}" y="{_n(y - h / 2)}" width="{_n(w)}" height="{_n(h)}" '
            f'rx="{_n(r / 4)}" fill="#f3f1ea" stroke="#13202f" stroke-width="2"/>'
        )
    return (
        f'<g class="chart-mark mark-{mark.kind} seat-{mark.position % 4}" data-x="{mark.x}">'
        f"<title>{_e(mark.label)}</title>{body}</g>"
    )


# ---------------------------------------------------------------- bars


def bars(
    rows: Sequence[Bar],
    *,
    title: str,
    description: str,
    width: int = 800,
    font: int = 28,
    ident: str | None = None,
) -> Markup:
    """Horizontal bars for small counts: the label, a bar as long as the count, the count."""
    ident = ident or _ident("bars", title, description, [(r.label, r.count) for r in rows])
    row_h = font * 1.6
    height = max(row_h * len(rows) + font * 0.4, font)
    label_w = min(max((_text_width(r.label, font) for r in rows), default=0.0), width * 0.4)
    count_w = font * 0.6 * max((len(str(r.count)) for r in rows), default=1) + font
    bar_x = label_w + font * 0.6
    bar_room = max(width - bar_x - count_w, 1.0)
    most = max((r.count for r in rows), default=0)
    parts = [_open("img", ident, width, height, title, description, "bar-chart")]
    parts.append(f'<g font-size="{font}" fill="currentColor">')
    for n, row in enumerate(rows):
        y = font * 0.2 + n * row_h
        length = bar_room * row.count / most if most else 0.0
        css = f"bar {row.css_class}".strip()
        parts.append(
            f'<g class="bar-row">'
            f'<text x="0" y="{_n(y + row_h * 0.68)}"{_squeezed(row.label, font, label_w)}>'
            f"{_e(row.label)}</text>"
            f'<rect class="{_e(css)}" x="{_n(bar_x)}" y="{_n(y + row_h * 0.15)}" '
            f'width="{_n(length)}" height="{_n(row_h * 0.7)}" rx="4" stroke="currentColor" '
            f'stroke-width="1"/>'
            f'<text class="count" x="{_n(bar_x + length + font * 0.3)}" '
            f'y="{_n(y + row_h * 0.68)}">{row.count}</text></g>'
        )
    parts.append("</g></svg>")
    return Markup("".join(parts))


# ---------------------------------------------------------------- a sparkline


def sparkline(
    values: Sequence[float | None],
    *,
    title: str,
    description: str,
    y_max: float | None = None,
    y_min: float = 0.0,
    invert: bool = False,
    position: int = 0,
    width: int = 240,
    height: int = 60,
    ident: str | None = None,
) -> Markup:
    """A small line without axes: the seat's shape at each point (thinned) and a larger one
    at the last. invert: low values at the top (a place: 1st is best)."""
    ident = ident or _ident("spark", title, description, list(values))
    known = [float(v) for v in values if v is not None]
    high = y_max if y_max is not None else max(known, default=1.0)
    span = max(high - y_min, 1e-9)
    pad = height * 0.14
    count = len(values)

    def x_at(index: int) -> float:
        return width / 2 if count <= 1 else pad + (width - 2 * pad) * index / (count - 1)

    def y_at(value: float) -> float:
        share = min(max((value - y_min) / span, 0.0), 1.0)
        if invert:
            share = 1 - share
        return pad + (height - 2 * pad) * (1 - share)

    points = [None if v is None else (x_at(i), y_at(float(v))) for i, v in enumerate(values)]
    drawn = [p for p in points if p is not None]
    colour = _colour(position)
    parts = [_open("img", ident, width, height, title, description, "sparkline")]
    base = y_at(y_min) if not invert else y_at(high)
    parts.append(
        f'<line class="baseline" x1="{_n(pad)}" x2="{_n(width - pad)}" y1="{_n(base)}" '
        f'y2="{_n(base)}" stroke="{GRID}" stroke-width="1.5"/>'
    )
    parts.append(f'<g class="series seat-{position % 4}" data-points="{len(drawn)}">')
    if drawn:
        parts.append(
            f'<path d="{_path(points, False)}" fill="none" stroke="{colour}" '
            f'stroke-width="2.5" stroke-linejoin="round"/>'
        )
        every = max(1, math.ceil(len(drawn) / 20))
        small = height * 0.045
        for n, (x, y) in enumerate(drawn[:-1]):
            if n % every == 0:
                parts.append(_filled(position, x, y, small))
        x, y = drawn[-1]
        parts.append(_filled(position, x, y, height * 0.085))
    parts.append("</g></svg>")
    return Markup("".join(parts))


# ---------------------------------------------------------------- head to head


def head_to_head(
    first: str,
    first_count: int,
    second: str,
    second_count: int,
    *,
    title: str,
    description: str,
    first_position: int = 0,
    second_position: int = 1,
    width: int = 800,
    font: int = 28,
    ident: str | None = None,
) -> Markup:
    """A split bar: the first's count from the left, the second's from the right, each
    name (with its shape) above its end and each number beside its end of the bar."""
    ident = ident or _ident("duel", title, description, first, first_count, second, second_count)
    height = font * 3.4
    count_w = font * 0.6 * max(len(str(first_count)), len(str(second_count)), 1) + font * 0.5
    bar_x, bar_w = count_w, max(width - 2 * count_w, 1.0)
    bar_y, bar_h = font * 1.6, font * 1.4
    total = first_count + second_count
    split = bar_x + (bar_w * first_count / total if total else bar_w / 2)
    parts = [_open("img", ident, width, height, title, description, "head-to-head")]
    r = font * 0.33
    half = width / 2 - font * 1.5
    parts.append(
        f'<g font-size="{font}" fill="currentColor">'
        f"{_filled(first_position, bar_x + r, font * 0.65, r)}"
        f'<text class="first" x="{_n(bar_x + r * 2 + font * 0.3)}" y="{_n(font * 1.0)}" '
        f"{_squeezed(first, font, half)}>{_e(first)}</text>"
        f"{_filled(second_position, bar_x + bar_w - r, font * 0.65, r)}"
        f'<text class="second" x="{_n(bar_x + bar_w - r * 2 - font * 0.3)}" y="{_n(font * 1.0)}" '
        f'text-anchor="end"{_squeezed(second, font, half)}>{_e(second)}</text>'
    )
    grey = "#6b7a8c"
    parts.append(
        f'<rect class="first-bar" x="{_n(bar_x)}" y="{_n(bar_y)}" '
        f'width="{_n(split - bar_x)}" height="{_n(bar_h)}" '
        f'fill="{_colour(first_position) if total else grey}"/>'
        f'<rect class="second-bar" x="{_n(split)}" y="{_n(bar_y)}" '
        f'width="{_n(bar_x + bar_w - split)}" height="{_n(bar_h)}" '
        f'fill="{_colour(second_position) if total else grey}"/>'
        f'<line x1="{_n(split)}" x2="{_n(split)}" y1="{_n(bar_y - 4)}" '
        f'y2="{_n(bar_y + bar_h + 4)}" stroke="currentColor" stroke-width="3"/>'
        f'<text class="first-count" x="{_n(bar_x - font * 0.3)}" '
        f'y="{_n(bar_y + bar_h * 0.75)}" text-anchor="end">{first_count}</text>'
        f'<text class="second-count" x="{_n(bar_x + bar_w + font * 0.3)}" '
        f'y="{_n(bar_y + bar_h * 0.75)}">{second_count}</text></g></svg>'
    )
    return Markup("".join(parts))
