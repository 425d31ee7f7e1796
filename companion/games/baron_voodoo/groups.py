"""Baron Voodoo: scoring groups of Soul Dice (which dice make a group, the best plans)."""

from __future__ import annotations

import itertools
from collections import Counter

from companion.games.baron_voodoo.facts import (
    WHITE,
    Facts,
)

# --------------------------------------------------------------------------- groups


def group_error(dice: list[list[str]], f: Facts) -> str | None:
    """Why ``dice`` is not a scoring group, or None.  White dice stand for any colour."""
    n = len(dice)
    if n not in f.group_vp:
        sizes = "/".join(str(k) for k in sorted(f.group_vp))
        return f"a group has {sizes} dice, not {n}"
    colours = [d[0] for d in dice if d[0] != WHITE]
    faces = [d[1] for d in dice]
    same_icon = len(set(faces)) == 1 and len(set(colours)) == len(colours) \
        and n <= len(f.majority_colours)
    same_colour = len(set(colours)) <= 1 and len(set(faces)) == n
    if same_icon or same_colour:
        return None
    return (f"{describe_dice(dice)} is neither one icon in different colours nor one colour "
            "with different icons")


def valid_groups(zone: list[list[str]], f: Facts) -> list[list[list[str]]]:
    """Every distinct scoring group that can be made from ``zone``, best VP first (fewer
    white jokers first among equals)."""
    counts = Counter((d[0], d[1]) for d in zone)
    whites = {face: counts[(WHITE, face)] for face in f.faces}
    seen: set[tuple[tuple[str, str], ...]] = set()
    out: list[list[list[str]]] = []
    sizes = sorted(f.group_vp)
    biggest = max(sizes)

    def add(group: list[tuple[str, str]]) -> None:
        key = tuple(sorted(group))
        if len(group) in f.group_vp and key not in seen:
            seen.add(key)
            out.append([list(d) for d in key])

    # one icon, different colours (white jokers of that icon fill missing colours)
    for face in f.faces:
        coloured = sorted({c for (c, fc) in counts if fc == face and c != WHITE})
        for k in range(0, min(len(coloured), biggest) + 1):
            for cols in itertools.combinations(coloured, k):
                for w in range(0, whites[face] + 1):
                    if k + w <= min(biggest, len(f.majority_colours)):
                        add([(c, face) for c in cols] + [(WHITE, face)] * w)
    # one colour, different icons (white jokers of the missing icons)
    for colour in sorted({c for (c, _) in counts if c != WHITE}) + [None]:
        own = sorted({fc for (c, fc) in counts if c == colour}) if colour else []
        for k in range(0, min(len(own), biggest) + 1):
            for faces in itertools.combinations(own, k):
                free = [fc for fc in f.faces if whites[fc] and fc not in faces]
                for w in range(0, biggest - k + 1):
                    for wf in itertools.combinations(free, w):
                        add([(colour, fc) for fc in faces] + [(WHITE, fc) for fc in wf])
    out.sort(key=lambda g: (-f.group_vp[len(g)], sum(1 for d in g if d[0] == WHITE), g))
    return out


def best_plan(zone: list[list[str]], f: Facts, limit: int = 12) -> int:
    """The most VP the zone could score if sent as disjoint groups: exact (a DP over how
    many dice of each kind remain, with the groups listed once) up to ``limit`` dice,
    greedy beyond."""
    if len(zone) > limit:
        total, rest = 0, [list(d) for d in zone]
        while groups := valid_groups(rest, f):
            total += f.group_vp[len(groups[0])]
            for d in groups[0]:
                rest.remove(d)
        return total
    kinds = sorted({(d[0], d[1]) for d in zone})
    index = {k: i for i, k in enumerate(kinds)}
    counts = [0] * len(kinds)
    for d in zone:
        counts[index[(d[0], d[1])]] += 1
    options: list[tuple[list[int], int]] = []
    for group in valid_groups(zone, f):
        need = [0] * len(kinds)
        for d in group:
            need[index[(d[0], d[1])]] += 1
        options.append((need, f.group_vp[len(group)]))
    # the groups that hold a die of kind i and none of a kind before i: when kind i is the
    # first kind left, either such a group is sent next or no die of kind i is ever used
    starting: list[list[tuple[list[int], int]]] = [
        [(need, vp) for need, vp in options if need[i] and not any(need[:i])]
        for i in range(len(kinds))]
    memo: dict[tuple[int, ...], int] = {}

    def solve(left: tuple[int, ...]) -> int:
        first = next((i for i, n in enumerate(left) if n), None)
        if first is None:
            return 0
        if left in memo:
            return memo[left]
        best = solve((0,) * (first + 1) + left[first + 1:])
        for need, vp in starting[first]:
            if all(n <= m for n, m in zip(need, left, strict=True)):
                best = max(best, vp + solve(tuple(m - n for n, m in zip(need, left,
                                                                           strict=True))))
        memo[left] = best
        return best

    return solve(tuple(counts))


def describe_dice(dice: list[list[str]]) -> str:
    return " + ".join(f"{d[0]} {d[1]}" for d in dice)


def distinct_dice(zone: list[list[str]]) -> list[list[str]]:
    out: list[list[str]] = []
    for die in zone:
        if die not in out:
            out.append(list(die))
    return out
