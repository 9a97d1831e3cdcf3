"""The server's SVG charts (game/screens/charts.py), read back as XML: no database needed."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest
from django.utils import translation
from markupsafe import Markup

from game.screens import charts
from game.screens.charts import Bar, ChartMark, Series

SVG = "{http://www.w3.org/2000/svg}"


def parse(markup: Markup) -> ET.Element:
    assert isinstance(markup, Markup)
    return ET.fromstring(str(markup))  # well-formed XML, or this raises


def tag(element: ET.Element) -> str:
    return element.tag.removeprefix(SVG)


def find_all(root: ET.Element, name: str) -> list[ET.Element]:
    return [e for e in root.iter() if tag(e) == name]


def by_class(root: ET.Element, css: str) -> list[ET.Element]:
    return [e for e in root.iter() if css in (e.get("class") or "").split()]


def path_points(d: str) -> list[tuple[float, float]]:
    """The points of an M/L path (straight lines)."""
    return [(float(x), float(y)) for x, y in re.findall(r"[ML]([-\d.]+) ([-\d.]+)", d)]


def plot_box(root: ET.Element) -> tuple[float, float, float, float]:
    """The plot's x and y range: from the y axis line and the gridlines."""
    axis = by_class(root, "axis")[0]
    grid = by_class(root, "grid")
    return (
        float(axis.get("x1", 0)),
        max(float(g.get("x2", 0)) for g in grid),
        float(axis.get("y1", 0)),
        float(axis.get("y2", 0)),
    )


def chart(series: list[Series], **options: object) -> ET.Element:
    count = max((len(s.values) for s in series), default=0)
    defaults: dict[str, object] = {
        "x_labels": [str(i + 1) for i in range(count)],
        "y_max": 20,
        "y_ticks": [0, 5, 10, 15, 20],
        "title": "Points by round",
        "description": "Each player's points after each round.",
    }
    defaults.update(options)
    return parse(charts.line_chart(series, **defaults))  # type: ignore[arg-type]


SHAPE_TAGS = {"circle": "circle", "square": "rect", "triangle": "polygon", "diamond": "polygon"}


def shape_kind(element: ET.Element) -> str:
    return (element.get("class") or "").removeprefix("shape-")


# ---------------------------------------------------------------- seat marks


@pytest.mark.parametrize("position", range(4))
def test_each_seat_has_its_own_shape_drawn_as_geometry(position: int) -> None:
    root = parse(charts.seat_mark(position, size=20))
    assert tag(root) == "svg" and root.get("aria-hidden") == "true"
    assert root.get("width") == "20" and root.get("height") == "20"
    assert find_all(root, "title") == []
    (drawn,) = list(root)
    assert tag(drawn) == SHAPE_TAGS[charts.SEAT_SHAPES[position]]
    assert shape_kind(drawn) == charts.SEAT_SHAPES[position]
    assert "".join(root.itertext()) == ""  # no glyph: geometry only
    assert len(set(charts.SEAT_SHAPES)) == 4


# ---------------------------------------------------------------- line charts


def test_one_line_per_series_with_a_point_per_value_and_the_seat_s_shape() -> None:
    series = [
        Series("Ada", 0, [0, 3, 5, 9, 12]),
        Series("Bob", 1, [1, 2, 2, 6, 8]),
        Series("Cleo", 2, [0, 0, 4, 4, 15]),
        Series("Dan", 3, [2, 4, None, 7, 9]),
    ]
    root = chart(series)
    assert root.get("role") == "img"
    assert root.get("width") == "100%" and root.get("viewBox") == "0 0 1200 500"
    title, desc = find_all(root, "title")[0], find_all(root, "desc")[0]
    assert root.get("aria-labelledby") == f"{title.get('id')} {desc.get('id')}"
    assert title.text == "Points by round"
    groups = by_class(root, "series")
    assert [g.get("data-name") for g in groups] == ["Ada", "Bob", "Cleo", "Dan"]
    for line, group in zip(series, groups, strict=True):
        (path,) = find_all(group, "path")
        values = [v for v in line.values if v is not None]
        assert len(path_points(path.get("d", ""))) == len(values)
        markers = [e for e in group if tag(e) != "path"]
        assert len(markers) == len(values)
        assert {shape_kind(m) for m in markers} == {charts.SEAT_SHAPES[line.position]}
    # Dan's gap starts a new piece of line.
    assert groups[3].find(f"{SVG}path").get("d", "").count("M") == 2  # type: ignore[union-attr]
    # Each end label: the seat's shape and its name.
    ends = by_class(root, "end-label")
    assert ["".join(e.itertext()) for e in ends] == ["Ada", "Bob", "Cleo", "Dan"]
    for line, end in zip(series, ends, strict=True):
        assert charts.SEAT_SHAPES[line.position] in {shape_kind(e) for e in end}


def end_label_ys(root: ET.Element) -> list[float]:
    return [float(find_all(e, "text")[0].get("y", 0)) for e in by_class(root, "end-label")]


def test_end_labels_of_close_values_never_overlap_and_stay_in_the_chart() -> None:
    font = 28
    series = [Series(name, n, [10, 11, 12.0 + n * 0.1]) for n, name in enumerate("ABCD")]
    root = chart(series, font=font)
    ys = sorted(end_label_ys(root))
    assert all(b - a >= font for a, b in zip(ys, ys[1:], strict=False)), ys
    assert all(0 < y <= 500 for y in ys)
    # All at the top or the bottom of the plot, too.
    for value in (0, 20):
        root = chart([Series(n, i, [value, value]) for i, n in enumerate("ABCD")], font=font)
        ys = sorted(end_label_ys(root))
        assert all(b - a >= font for a, b in zip(ys, ys[1:], strict=False)), ys
        assert all(font / 2 < y <= 500 for y in ys), ys


def test_spread_moves_labels_the_least() -> None:
    assert charts.spread([100, 10, 50], 20, 0, 200) == [100, 10, 50]
    assert charts.spread([10, 10, 10], 20, 0, 200) == [10, 30, 50]
    assert charts.spread([200, 200], 20, 0, 200) == [180, 200]
    assert charts.spread([], 20, 0, 200) == []


def test_y_never_leaves_the_plot() -> None:
    root = chart([Series("Ada", 0, [-5, 0, 10, 20, 99])])
    left, right, top, bottom = plot_box(root)
    points = path_points(find_all(root, "path")[0].get("d", ""))
    assert [y for _x, y in points] == sorted((y for _x, y in points), reverse=True)
    assert all(top <= y <= bottom and left <= x <= right for x, y in points)
    assert points[0][1] == points[1][1] == bottom and points[3][1] == points[4][1] == top


def test_percent_ticks() -> None:
    root = chart(
        [Series("Ada", 0, [0.5, 0.25, 1.0])], y_max=1, y_ticks=[0, 0.25, 0.5, 0.75, 1], percent=True
    )
    ticks = [t.text for t in find_all(root, "text") if t.get("text-anchor") == "end"]
    assert ticks == ["0%", "25%", "50%", "75%", "100%"]
    with translation.override("de"):
        assert charts.percent_label(0.5) == "50 %"


def test_marks_sit_on_their_seat_s_line_with_their_title() -> None:
    series = [Series("Ada", 0, [0, 3, 8]), Series("Bob", 1, [0, 1, 2])]
    marks = [
        ChartMark(2, 0, "noble", "Ada: a noble visits (3 points)"),
        ChartMark(1, 1, "buy", "Bob buys a card <level 1>"),
        ChartMark(5, 1, "buy", "beyond the chart: left out"),
    ]
    root = chart(series, marks=marks)
    found = by_class(root, "chart-mark")
    assert [m.get("class", "").split()[1] for m in found] == ["mark-noble", "mark-buy"]
    assert [m.find(f"{SVG}title").text for m in found] == [  # type: ignore[union-attr]
        "Ada: a noble visits (3 points)",
        "Bob buys a card <level 1>",
    ]
    ada = path_points(by_class(root, "seat-0")[0].find(f"{SVG}path").get("d", ""))  # type: ignore[union-attr]
    polygon = found[0].find(f"{SVG}polygon")
    assert polygon is not None
    xs = [float(p.split(",")[0]) for p in polygon.get("points", "").split()]
    assert min(xs) < ada[2][0] < max(xs)


def test_the_current_turn_is_a_vertical_line_at_its_x() -> None:
    root = chart([Series("Ada", 0, [0, 3, 5, 9])], current=2)
    (line,) = by_class(root, "chart-current")
    points = path_points(find_all(root, "path")[0].get("d", ""))
    assert float(line.get("x1", 0)) == float(line.get("x2", 0)) == points[2][0]
    assert chart([Series("Ada", 0, [0, 3])], current=7).iter() is not None
    assert by_class(chart([Series("Ada", 0, [0, 3])], current=7), "chart-current") == []


def test_each_x_column_links_to_its_round() -> None:
    root = chart(
        [Series("Ada", 0, [0, 3, 5, 9])],
        link=lambda x: f"/replay/ABCDEF/?move={x}&seat=0",
        link_label=lambda x: f"Round {x + 1}",
    )
    assert root.get("role") == "group"  # an image's children are hidden from screen readers
    links = find_all(root, "a")
    assert [a.get("href") for a in links] == [f"/replay/ABCDEF/?move={x}&seat=0" for x in range(4)]
    assert [a.get("aria-label") for a in links] == [f"Round {x}" for x in range(1, 5)]
    _left, _right, top, bottom = plot_box(root)
    rects = [a.find(f"{SVG}rect") for a in links]
    assert all(r is not None and r.get("fill") == "transparent" for r in rects)
    assert all(float(r.get("height", 0)) == pytest.approx(bottom - top) for r in rects if r)
    edges = [
        (float(r.get("x", 0)), float(r.get("x", 0)) + float(r.get("width", 0))) for r in rects if r
    ]
    assert all(a[1] == pytest.approx(b[0]) for a, b in zip(edges, edges[1:], strict=False))


def test_names_are_escaped_and_kept() -> None:
    names = ["<b>Ada</b>", "Tom & Jerry", "Zoë 🐱", "Ελένη"]
    root = chart(
        [Series(n, i, [i, i + 1]) for i, n in enumerate(names)],
        title="A <title> & more",
        description='"Quotes" & <tags>',
    )
    assert ["".join(e.itertext()) for e in by_class(root, "end-label")] == names
    assert find_all(root, "title")[0].text == "A <title> & more"
    assert find_all(root, "desc")[0].text == '"Quotes" & <tags>'
    assert [g.get("data-name") for g in by_class(root, "series")] == names
    assert "<b>" not in str(
        charts.line_chart(
            [Series("<b>", 0, [1])],
            x_labels=["1"],
            y_max=1,
            y_ticks=[0, 1],
            title="t",
            description="d",
        )
    )


def test_empty_and_single_point_series_do_not_crash() -> None:
    root = chart([], x_labels=[])
    assert by_class(root, "series") == []
    root = chart([Series("Ada", 0, [])], x_labels=[])
    assert find_all(root, "path") == [] and by_class(root, "end-label") == []
    root = chart([Series("Ada", 0, [7])])
    assert len(path_points(find_all(root, "path")[0].get("d", ""))) == 1
    root = chart([Series("Ada", 0, [None, None])])
    assert find_all(root, "path") == []
    parse(charts.sparkline([], title="t", description="d"))
    parse(charts.sparkline([None], title="t", description="d"))
    parse(charts.sparkline([3], title="t", description="d"))
    parse(charts.bars([], title="t", description="d"))
    parse(charts.head_to_head("A", 0, "B", 0, title="t", description="d"))


def test_many_points_thin_the_markers_and_the_x_labels() -> None:
    values = [i / 600 for i in range(600)]
    root = chart([Series("Ada", 0, values)], y_max=1, y_ticks=[0, 1])
    (group,) = by_class(root, "series")
    assert len(path_points(group.find(f"{SVG}path").get("d", ""))) == 600  # type: ignore[union-attr]
    markers = [e for e in group if tag(e) != "path"]
    assert len(markers) <= charts.MARKERS_AT_MOST + 1
    labels = by_class(root, "x-label")
    assert 2 <= len(labels) <= 40 and labels[-1].text == "600"
    xs = [float(e.get("x", 0)) for e in labels]
    assert all(b - a >= 28 * 3 * 0.6 for a, b in zip(xs, xs[1:], strict=False))


# ---------------------------------------------------------------- bars, sparklines, head to head


def test_bars_are_as_long_as_their_counts_with_label_and_number() -> None:
    rows = [Bar("Red", 4, "gem-red"), Bar("Blue & <b>", 2, "gem-blue"), Bar("White", 0)]
    root = parse(charts.bars(rows, title="Cards bought", description="By colour"))
    assert root.get("role") == "img"
    found = by_class(root, "bar-row")
    assert ["".join(r.itertext()) for r in found] == ["Red4", "Blue & <b>2", "White0"]
    rects = [r.find(f"{SVG}rect") for r in found]
    widths = [float(r.get("width", 0)) for r in rects if r is not None]
    assert widths[0] == pytest.approx(2 * widths[1]) and widths[2] == 0
    assert [r.get("class") for r in rects if r is not None] == [
        "bar gem-red",
        "bar gem-blue",
        "bar",
    ]


def test_a_sparkline_draws_its_values_in_its_height() -> None:
    root = parse(
        charts.sparkline(
            [1, 3, None, 2, 4],
            title="Places",
            description="Last games",
            invert=True,
            y_min=1,
            y_max=4,
            position=3,
            width=200,
            height=50,
        )
    )
    assert root.get("role") == "img" and root.get("viewBox") == "0 0 200 50"
    assert find_all(root, "title")[0].text == "Places"
    path = find_all(root, "path")[0].get("d", "")
    points = path_points(path)
    assert len(points) == 4 and path.count("M") == 2
    assert all(0 <= y <= 50 for _x, y in points)
    assert points[0][1] < points[1][1]  # inverted: first place at the top
    assert {shape_kind(e) for e in by_class(root, "series")[0] if tag(e) != "path"} == {"diamond"}


def test_head_to_head_splits_a_bar_by_the_two_counts() -> None:
    root = parse(
        charts.head_to_head("Ada <3", 6, "Ελένη", 2, title="Wins", description="Ada 6, Ελένη 2")
    )
    first, second = by_class(root, "first-bar")[0], by_class(root, "second-bar")[0]
    assert float(first.get("width", 0)) == pytest.approx(3 * float(second.get("width", 0)))
    assert by_class(root, "first")[0].text == "Ada <3"
    assert by_class(root, "second")[0].text == "Ελένη"
    assert (by_class(root, "first-count")[0].text, by_class(root, "second-count")[0].text) == (
        "6",
        "2",
    )
    long = parse(charts.head_to_head("A" * 64, 1, "B" * 64, 1, title="t", description="d"))
    assert by_class(long, "first")[0].get("textLength") is not None
