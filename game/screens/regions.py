"""Screens are made of regions: elements with an id that htmx swaps out of band.

Each region is rendered from a small context and remembered by that context
(per language) in one bounded cache shared by every screen of the process: the
table's market is rendered once per change, a card's "you cannot afford this"
sheet once for every phone that shows it, a phone's hand only when its tokens
change. A region is declared with what it is remembered by: its whole context
(`render`), a key that sums the context up (`render_by`), or, for a function that
makes a region or a set of them, a key made from its arguments (`remembered_by`).
Each socket remembers a hash per region (`Shown`) and is sent only the
regions that changed; a reconnect, a resync or a change of layout (a new phase,
the end of the game) sends the whole screen again.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import wraps
from sys import intern
from typing import Any, ParamSpec, TypeAlias, TypeVar

from django.utils.safestring import SafeString

from game.languages import current as _language
from game.screens import jinja

# Entries, each a fragment or a few dozen (a phone's market, sheets, hand): with a
# hundred games changing every second, by our estimate 4,096 would turn over within
# a few seconds, about as often as a game changes.
_CACHE_SIZE = 16384
# Least recently used go first, by generations: a hit in the young generation is one
# dict lookup (a key is a tuple, hashed again at every lookup, and an ordered dict's
# move to the end hashed it twice). An entry found in the old generation moves to the
# young one; when the young one is full, the old one is dropped and the young one
# becomes old. At most _CACHE_SIZE entries, and every entry used since the last
# turnover is kept. Each generation is a dict by language of dicts by key: a key
# wrapped with its language would be one more tuple per entry for the garbage
# collector to walk (the entries live a few seconds, long enough to be walked by its
# middle generation, whose every run holds every screen), and hashed again at every
# lookup.
_young: dict[str | None, dict[Hashable, Any]] = {}
_old: dict[str | None, dict[Hashable, Any]] = {}
_young_size = 0
T = TypeVar("T")
P = ParamSpec("P")


_PLAIN = frozenset({str, int, bool, float, type(None)})


def freeze(value: Any) -> Hashable:
    """Turn a template context into a hashable key (dicts, lists and sets included).

    Called for every region of every screen at every change: plain values and
    exact containers are recognised by type first (isinstance is slower).
    """
    kind = type(value)
    if kind in _PLAIN:
        return value  # type: ignore[no-any-return]
    if kind is tuple or (kind is not list and isinstance(value, tuple)):
        try:  # most tuples (a seat's tokens, a market row) hash as they are, in C
            hash(value)
            return value  # type: ignore[no-any-return]
        except TypeError:
            return tuple([freeze(v) for v in value])
    if kind is list or isinstance(value, list):
        return tuple([freeze(v) for v in value])
    if kind is dict or isinstance(value, dict):
        return tuple([(k, freeze(v)) for k, v in value.items()])
    if isinstance(value, set | frozenset):
        return frozenset(value)
    return value  # type: ignore[no-any-return]


def remember(key: Hashable, make: Callable[[], T]) -> T:
    """Make once per key and language, then reuse (least recently used go first)."""
    global _young, _old, _young_size
    language = _language()
    young = _young.get(language)
    found = young.get(key) if young is not None else None
    if found is None:
        old = _old.get(language)
        found = old.pop(key, None) if old is not None else None
        if found is None:
            found = make()  # may remember other regions, and turn the generations over
        young = _young.get(language)
        if young is None:
            young = _young[language] = {}
        young[key] = found
        _young_size += 1
        if _young_size >= _CACHE_SIZE // 2:
            _young, _old, _young_size = {}, _young, 0
    return found


def remembered_by(
    key: Callable[..., tuple[Hashable, ...]],
) -> Callable[[Callable[P, T]], Callable[P, T]]:
    """Declare a region (or a screen's set of regions) remembered by `key`.

    `key` takes the region's own arguments and sums up everything the region shows
    (as `render_by`'s key does): the region is made once per key and language and
    then reused, by every screen of the process that shows it the same way.
    """

    def declare(make: Callable[P, T]) -> Callable[P, T]:
        @wraps(make)
        def region(*args: P.args, **kwargs: P.kwargs) -> T:
            # The function itself names the region in the key: one flat tuple, no
            # name to keep apart from the other regions' by hand.
            return remember((make, *key(*args, **kwargs)), lambda: make(*args, **kwargs))

        return region

    return declare


def _plain(html: str) -> str:
    """The fragment as a plain str: what the cache keeps and what regions are made of.

    A str subclass (SafeString) is an object the garbage collector tracks, a plain
    str is not: thousands of remembered fragments were walked by every run of its
    middle generation, which holds every screen. Regions only ever reach the
    screens as text (Shown.frame) or through a template that marks them safe
    (whole screens); a fragment that goes into a template as a value is marked
    safe there (jinja.turn_html)."""
    return html if type(html) is str else str.__str__(html)


def cached(key: Hashable, render: Callable[[], str]) -> str:
    """Render once per key and language, then reuse (least recently used go first)."""
    return remember(key, lambda: _plain(render()))


def render(template: str, context: dict[str, Any]) -> str:
    """Render a region's template (templates/jinja2/), remembered by its whole context."""
    return cached((template, freeze(context)), lambda: jinja.render_text(template, context))


def render_by(key: Hashable, template: str, context: Callable[[], dict[str, Any]]) -> str:
    """Render a region remembered by `key`, a small summary of everything its context
    depends on: for the regions every screen has dozens of, building and freezing a
    whole context at every change cost more than the rest of the lookup."""
    return cached((template, key), lambda: jinja.render_text(template, context()))


# Where each part goes in the skeleton of a region made of parts (see `around`).
_MARK = "\x00"


def around(
    template: str,
    key: Hashable,
    context: Callable[[dict[str, SafeString]], dict[str, Any]],
    parts: Mapping[str, str],
) -> str:
    """A region that holds parts (a list region's items), with the parts put in.

    Its template is rendered once per key, set of parts and language, with a mark
    where each part goes (`context` gets those marks by part id); at a change the
    parts are only joined into that skeleton, as no template needs rendering again.
    `key` sums up everything else the template shows.
    """

    def skeleton() -> tuple[str, ...]:
        marks = {i: SafeString(f"{_MARK}{i}{_MARK}") for i in parts}
        # A tuple of plain strs: nothing for the garbage collector to track.
        return tuple(jinja.render_text(template, context(marks)).split(_MARK))

    found = remember(("around", template, key, tuple(parts)), skeleton)
    filled = list(found)  # literal text at even places, part ids at odd ones
    filled[1::2] = [parts[i] for i in found[1::2]]
    return "".join(filled)


def absent(region_id: str) -> str:
    """An empty, hidden stand-in for a region not shown now (keeps its place)."""
    return f'<div id="{region_id}" hidden></div>'


def clear() -> None:
    global _young_size
    _young.clear()
    _old.clear()
    _young_size = 0


def oob(html: str, region_id: str) -> str:
    """Mark a region for an out-of-band swap of the element with its id."""
    return html.replace(f'id="{region_id}"', f'id="{region_id}" hx-swap-oob="true"', 1)


_PRESERVED = re.compile(r'id="([^"]+)"[^>]*\shx-preserve')


def _fill(html: str, codes: dict[str, Callable[[], str]], shown: frozenset[str]) -> str:
    """Put each QR code the browser does not show yet into its empty element."""
    for element_id, draw in codes.items():
        if element_id in shown:
            continue
        at = html.find(f'id="{element_id}"')
        if at >= 0:
            end = html.index(">", at) + 1
            html = html[:end] + draw() + html[end:]
    return html


def fill_qr_codes(html: str, screen: Screen) -> str:
    """Put every QR code of the screen into its element (a page's first paint)."""
    return _fill(html, screen.qr, frozenset())


def preserved_ids(html: str) -> frozenset[str]:
    """The ids of elements the browser keeps as they are (QR codes)."""
    return frozenset(_PRESERVED.findall(html)) if "hx-preserve" in html else frozenset()


# Regions whose key starts with this are fixed HTML between regions (the opening
# and closing tags of a panel that holds regions): sent with the whole screen only.
STATIC = "~"


@dataclass(frozen=True)
class Screen:
    """What one screen shows now: its regions in document order and its action sheets."""

    regions: dict[str, str]
    full: Callable[[], str]  # the whole screen, as sent on connect and on a new layout
    sheets: dict[str, str] = field(default_factory=dict)
    shell: dict[str, Any] = field(default_factory=dict)  # the container's own attributes
    # QR codes by the id of their (empty, preserved) element: filled in only for a
    # browser that does not show them yet, so a region's HTML never depends on it.
    qr: dict[str, Callable[[], str]] = field(default_factory=dict)
    # Regions made of items with ids: region id -> (the list element's id, its items
    # by id, in document order). A change sends only the items that changed. A list
    # with an element id grows at the top (the TV's game log: new items go first,
    # gone ones are deleted); one without ("") has a fixed set of items (a phone's
    # status line, its hand), and when that set changes the whole region is sent.
    lists: dict[str, tuple[str, dict[str, str]]] = field(default_factory=dict)


# What each socket remembers is kept small: a server holds thousands of sockets.
# Region ids and layouts are shared strings and tuples, and a hash per region is
# one machine word in an array, not an int object in a dict.
Digests: TypeAlias = "array[int]"  # array("q") of hash(html), one per region or item


def _digests(htmls: Iterable[str]) -> Digests:
    return array("q", [hash(html) for html in htmls])


_LAYOUTS: dict[tuple[str, ...], tuple[str, ...]] = {}


def _shared(ids: tuple[str, ...]) -> tuple[str, ...]:
    """One tuple of interned ids for every socket that shows the same layout."""
    found = _LAYOUTS.get(ids)
    if found is None:
        if len(_LAYOUTS) >= 4096:  # layouts are few; this only bounds a pathological case
            _LAYOUTS.clear()
        found = _LAYOUTS[ids] = tuple(intern(i) for i in ids)
    return found


def _items(items: dict[str, str]) -> tuple[tuple[str, ...], Digests]:
    return _shared(tuple(items)), _digests(items.values())


@dataclass(slots=True)
class Shown:
    """What one socket's screen shows: a hash per region, to send only what changed."""

    layout: tuple[str, ...] = ()
    digests: Digests = field(default_factory=lambda: array("q"))  # by region, as in layout
    # The action sheets' ids and hashes (Screen.sheets), as _items keeps a list's.
    sheets: tuple[tuple[str, ...], Digests] = field(default_factory=lambda: ((), array("q")))
    qr_by_region: dict[str, frozenset[str]] = field(default_factory=dict)
    # List region -> its item ids and their hashes (regions.Screen.lists).
    items: dict[str, tuple[tuple[str, ...], Digests]] = field(default_factory=dict)

    @property
    def qr_codes(self) -> frozenset[str]:
        """QR codes the browser already shows: never sent again while they stay."""
        return frozenset().union(*self.qr_by_region.values())

    def forget(self) -> None:
        self.layout = ()

    def frame(self, screen: Screen, force: bool = False) -> str:
        """Return what to send so the browser shows `screen` ("" when nothing changed)."""
        layout = tuple(screen.regions)
        # The QR codes the browser shows before this frame (only a screen with some asks).
        shown = self.qr_codes if screen.qr else frozenset()
        if force or layout != self.layout:
            self.layout = _shared(layout)
            self.digests = _digests(screen.regions.values())
            self.sheets = _items(screen.sheets)
            self.qr_by_region = {}
            for rid, html in screen.regions.items():
                self._note_qr_codes(rid, html)
            self.items = {rid: _items(items) for rid, (_, items) in screen.lists.items()}
            return _fill(screen.full(), screen.qr, shown)
        # Every region's hash at once; only the regions whose hash changed are looked at
        # (most of a screen's regions are as they were at each change).
        digests = _digests(screen.regions.values())
        parts = []
        if digests != self.digests:
            htmls = tuple(screen.regions.values())
            parts = [
                self._changed(self.layout[index], htmls[index], screen.lists)
                for index, (new, old) in enumerate(zip(digests, self.digests, strict=True))
                if new != old
            ]
            self.digests = digests
        parts += self._sheets(screen.sheets)
        return _fill("".join(parts), screen.qr, shown)

    def _changed(self, rid: str, html: str, lists: dict[str, tuple[str, dict[str, str]]]) -> str:
        """What to send for a region whose HTML changed."""
        if rid.startswith(STATIC):
            return ""
        if rid in lists:
            return self._list(rid, *lists[rid], html)
        self.items.pop(rid, None)  # no longer shown as a list (see _list)
        self._note_qr_codes(rid, html)
        return oob(html, rid)

    def _list(self, rid: str, list_id: str, items: dict[str, str], html: str) -> str:
        """What turns the list the browser shows into `items`: new items at the top,
        changed ones replaced, gone ones deleted."""
        known = self.items.get(rid)
        self.items[rid] = _items(items)
        self._note_qr_codes(rid, html)  # an item may have brought or taken a QR code
        if known is None or (not list_id and known[0] != tuple(items)):
            # Not shown as this list yet, or other items: the whole region.
            return oob(html, rid)
        before = dict(zip(*known, strict=True))
        fresh = [html for iid, html in items.items() if iid not in before]
        parts = (
            [f'<div hx-swap-oob="afterbegin:#{list_id}">{"".join(fresh)}</div>'] if fresh else []
        )
        parts += [
            oob(item, iid)
            for iid, item in items.items()
            if iid in before and before[iid] != hash(item)
        ]
        parts += [
            f'<template id="{iid}" hx-swap-oob="delete"></template>'
            for iid in before
            if iid not in items
        ]
        return "".join(parts)

    def _note_qr_codes(self, rid: str, html: str) -> None:
        codes = preserved_ids(html)
        if codes:
            self.qr_by_region[rid] = codes
        else:
            self.qr_by_region.pop(rid, None)

    def _sheets(self, sheets: dict[str, str]) -> list[str]:
        """New sheets added, changed ones replaced, gone ones deleted."""
        ids, digests = self.sheets
        if ids == tuple(sheets) and digests == _digests(sheets.values()):
            return []
        known = dict(zip(ids, digests, strict=True))
        parts = []
        for sid, html in sheets.items():
            digest = known.get(sid)
            if digest is None:  # a card new to this screen: add its sheet
                parts.append(f'<div hx-swap-oob="beforeend:#sheets">{html}</div>')
            elif digest != hash(html):
                parts.append(oob(html, sid))
        parts += [
            f'<template id="{sid}" hx-swap-oob="delete"></template>'
            for sid in ids
            if sid not in sheets
        ]
        self.sheets = _items(sheets)
        return parts
