"""Player names in any script, cleaned and limited by what people see as characters;
and the room codes people type.

Pure standard library (no Django), so the engine-free parts and tests can use it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

# What a player may type: 24 characters as people count them ("Zoë 🦄" is five)...
NAME_MAX = 24
# ...and never more code points than the column holds (a family emoji is seven).
NAME_MAX_CODE_POINTS = 64

ZWJ = "\u200d"
# Invisible characters that belong to a visible one: joiners (emoji sequences,
# Indic scripts) and tag characters (subdivision flags such as Scotland's).
_KEPT_FORMAT = {ZWJ, "\u200c"}
_TAGS = range(0xE0020, 0xE0080)
_SKIN_TONES = range(0x1F3FB, 0x1F400)
_VARIATION_SELECTORS = (range(0xFE00, 0xFE10), range(0xE0100, 0xE01F0))
_REGIONAL_INDICATORS = range(0x1F1E6, 0x1F200)


def _kept(char: str) -> bool:
    """Drop control, surrogate, private-use, unassigned and invisible format characters.

    Format characters include the bidirectional overrides that could make a name
    display as something else; joiners and emoji tags are kept.
    """
    category = unicodedata.category(char)
    if category in {"Cc", "Cs", "Co", "Cn", "Zl", "Zp"}:
        return False
    if category == "Cf":
        return char in _KEPT_FORMAT or ord(char) in _TAGS
    return True


def _extends(char: str) -> bool:
    """True for a code point that is drawn as part of the character before it."""
    code = ord(char)
    return (
        unicodedata.category(char) in {"Mn", "Me", "Mc"}
        or char in _KEPT_FORMAT
        or code in _SKIN_TONES
        or code in _TAGS
        or any(code in block for block in _VARIATION_SELECTORS)
    )


def graphemes(text: str) -> Iterator[str]:
    """Split text into user-perceived characters (a close approximation of UAX #29).

    Combining marks, emoji modifiers, variation selectors and tags stay with their
    base; a zero-width joiner joins the next character; two regional indicators
    make one flag.
    """
    cluster = ""
    for char in text:
        joined = cluster.endswith(ZWJ)
        flag_half = (
            len(cluster) == 1
            and ord(cluster) in _REGIONAL_INDICATORS
            and ord(char) in _REGIONAL_INDICATORS
        )
        if cluster and (joined or flag_half or _extends(char)):
            cluster += char
            continue
        if cluster:
            yield cluster
        cluster = char
    if cluster:
        yield cluster


# Tabs and line breaks (a pasted name) separate words as spaces do.
_SPACES = str.maketrans("\t\n\r", "   ")


def clean_name(name: object) -> str:
    """Return the name to store and show: normalised, spaces collapsed, limited in length.

    The length counts characters as people see them, cut only between them, and the
    result never exceeds NAME_MAX_CODE_POINTS. Escaping is the templates' job.
    """
    text = unicodedata.normalize("NFC", str(name)).translate(_SPACES)
    text = "".join(char for char in text if _kept(char))
    text = " ".join(text.split())
    kept: list[str] = []
    size = 0
    for cluster in graphemes(text):
        if len(kept) == NAME_MAX or size + len(cluster) > NAME_MAX_CODE_POINTS:
            break
        kept.append(cluster)
        size += len(cluster)
    return "".join(kept).strip()


# Django decodes a posted form with errors="replace": bytes that were not UTF-8
# arrive as U+FFFD, which nobody types. Control characters (Unicode category Cc)
# other than tab and line breaks, lone surrogates, and the bidirectional
# embeddings, overrides and isolates (which can make text display as something
# else) are not typed either. Joiners, variation selectors and emoji tags are
# ordinary parts of names and stay allowed.
REPLACEMENT = "\ufffd"
_UNREADABLE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f"  # Cc but tab, line feed, carriage return
    "\ud800-\udfff"  # Cs: lone surrogates
    "\u202a-\u202e\u2066-\u2069"  # bidi embeddings, overrides, isolates
    "\ufffd]"
)


def readable(text: str) -> bool:
    """False for text with what nobody types (see _UNREADABLE): such a field is refused."""
    return _UNREADABLE.search(text) is None


# A room or rejoin code: letters only, so a typed one never reaches a query as anything else.
CODE_MAX = 8


def read_code(typed: object) -> str:
    """Return a typed room or rejoin code as stored (upper case, no spaces), or ""."""
    code = "".join(str(typed).split()).upper()
    if 0 < len(code) <= CODE_MAX and code.isascii() and code.isalpha():
        return code
    return ""
