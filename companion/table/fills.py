"""Contents tried for places the camera cannot read beyond what the record and one next
move lay there: pieces moved among them, or in from where the camera sees, or out (a lamp's
hot spot over a few places all evening, moves made under it).  Pure: board views in, the
doubted places' contents out (:func:`companion.table.doubt.read_fills` sets them against the
rules)."""

from __future__ import annotations

from collections import Counter
from itertools import combinations, product

from companion.games.base import BoardView, Piece

MOVED_WITHIN_PLACES = 6  # doubted places at most among which a piece moved from one to another is tried
MOVED_IN_PIECES = 3  # pieces at most tried as moved in under what hides the doubted places, or out
Fill = dict[str, tuple[Piece, ...]]  # a content for each doubted place


def moved_within(record: BoardView, places: frozenset[str]) -> list[Fill]:
    """The doubted places as the record has them but for one's pieces moved to another empty
    one: a move made under a lamp over a few places (Times Square's Champagne Charlie moved
    a space along his row under it as a play went on beside it), which the contents tried
    place by place, cut at :data:`~companion.table.doubt.FILLS_TRIED`, may not reach (a
    handful of places only)."""
    if len(places) > MOVED_WITHIN_PLACES:
        return []
    record_fill = {p: tuple(record.get(p, ())) for p in places}
    return [{**record_fill, a: (), b: record_fill[a]} for a in sorted(places) for b in sorted(places)
            if a != b and record_fill[a] and not record_fill[b]]


def moved_in(record: BoardView, view: BoardView, places: frozenset[str]) -> list[Fill]:
    """The doubted places as the record has them but for pieces moved in under what hides
    them from where the camera sees, or out from under it: each piece the camera no longer
    reads anywhere it can see (the record has it outside the doubted places) laid at one
    doubted place or none, each piece it reads there anew that the record has at a doubted
    place taken from one of them or none.  Times Square under a lamp over the sewer and
    Champagne Charlie's row beside it: Charlie moved a space in under it as a play went on
    beside it (seed 24), Saucy Sue moved two spaces onto Hal there (seed 20), or onto the
    sewer as a Bodyguard left it (seed 23).  The contents tried place by place hold what the
    record has there or what a next move of one card of a kind lays there, so none of these
    was offered, and the game never went on.  A handful of places and pieces only
    (:data:`MOVED_WITHIN_PLACES`, :data:`MOVED_IN_PIECES`)."""
    if len(places) > MOVED_WITHIN_PLACES:
        return []
    outside = Counter(piece for place, stack in record.items() if place not in places for piece in stack)
    seen = Counter(piece for place, stack in view.items() if place not in places for piece in stack)
    record_fill = {p: tuple(record.get(p, ())) for p in sorted(places)}
    steps: list[list[tuple[str, Piece, str] | None]] = [
        [None, *(("lay", piece, p) for p in record_fill)] for piece in sorted((outside - seen).elements())]
    for piece in sorted((seen - outside).elements()):
        holders = [p for p, stack in record_fill.items() if piece in stack]
        if holders:
            steps.append([None, *(("take", piece, p) for p in holders)])
    if not steps or len(steps) > MOVED_IN_PIECES:
        return []
    fills: list[Fill] = []
    for chosen in product(*steps):
        fill = {p: list(stack) for p, stack in record_fill.items()}
        for step in sorted((s for s in chosen if s is not None), key=lambda s: s[0] != "take"):
            kind, piece, place = step
            if kind == "lay":
                fill[place].append(piece)
            elif piece in fill[place]:
                fill[place].remove(piece)
            else:
                break  # the piece taken twice from one place that holds it once
        else:
            made = {p: tuple(sorted(stack)) for p, stack in fill.items()}
            if any(made[p] != tuple(sorted(stack)) for p, stack in record_fill.items()) and made not in fills:
                fills.append(made)
    return fills


def place_by_place(held: dict[str, list[tuple[Piece, ...]]], most: int) -> list[Fill]:
    """Each doubted place's contents set together place by place, in the places' order, cut at
    ``most`` after each place: every fill where they are few, else the last places' contents
    with the first ones as the record has them."""
    fills: list[Fill] = [{}]
    for place in sorted(held):
        fills = [{**f, place: stack} for f in fills for stack in held[place]][:most]
    return fills


def fewest_changes_first(held: dict[str, list[tuple[Piece, ...]]], most: int) -> list[Fill]:
    """Each doubted place's contents set together (``held``: each place's, what the record has
    there first), those that change fewer places from the record first, at most ``most``.  A
    move changes a place or two: cut place by place, the contents tried kept the first place
    as the record has it (Jivecat under a lamp over four Cocoa places, seed 300, eight contents
    a place: a chip bought on the first of them was never tried, the buy never offered, and
    the game wedged)."""
    places = sorted(held)
    record = {p: held[p][0] for p in places}
    others = {p: list(dict.fromkeys(s for s in held[p] if s != record[p])) for p in places}
    fills: list[Fill] = []
    for k in range(len(places) + 1):
        for changed in combinations(places, k):
            for stacks in product(*(others[p] for p in changed)):
                fills.append({**record, **dict(zip(changed, stacks, strict=True))})
                if len(fills) >= most:
                    return fills
    return fills
