"""Gem colours: five gems plus gold, by index, with one-letter codes."""

from game.engine.vocabulary import COLOUR_LETTERS, COLOUR_SLUGS, Colour

# Plain ints (the values of vocabulary.Colour): they index every per-colour list.
WHITE, BLUE, GREEN, RED, BLACK, GOLD = (int(c) for c in Colour)
GEMS: tuple[int, ...] = (WHITE, BLUE, GREEN, RED, BLACK)
COLOURS: tuple[int, ...] = (*GEMS, GOLD)

# Names as used in the data files, templates and CSS classes.
NAMES: tuple[str, ...] = COLOUR_SLUGS
# One letter each for the action notation; black is "k" so blue can be "u".
LETTERS: str = COLOUR_LETTERS
LETTER_TO_COLOUR: dict[str, int] = {letter: i for i, letter in enumerate(LETTERS)}
NAME_TO_COLOUR: dict[str, int] = {name: i for i, name in enumerate(NAMES)}


def counts_to_colours(counts: tuple[int, ...] | list[int]) -> tuple[int, ...]:
    """Expand per-colour counts into a sorted tuple of colour indices."""
    return tuple(c for c, n in enumerate(counts) for _ in range(n))
