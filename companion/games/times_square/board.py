"""Times Square: what the table shows (the strip as spots, the figures on it) and how a
change seen on it is explained as card-by-card moves."""

from __future__ import annotations

from collections import Counter
from typing import Any

from companion.games.base import (
    Action,
    BoardView,
    Layout,
    MalformedAction,
    Piece,
    RuleError,
    Spot,
    State,
    Tap,
    Trigger,
    make_view,
)
from companion.games.times_square.rules import (
    FIGURES,
    LURABLE,
    MAX_SEARCH_NODES,
    BoardData,
    Card,
    TimesSquareRules,
    _figure_type,
    _toward,
)


class TimesSquareBoard:
    """Mixin of the game class; see ``__init__.py``."""

    def layout(self, state: State) -> Layout:
        geo = self.data.layout
        margin, w, h = geo["margin_mm"], geo["space_w_mm"], geo["space_h_mm"]
        gap, ch, row_gap = geo["gap_mm"], geo["charlie_row_h_mm"], geo["row_gap_mm"]
        spots: list[Spot] = []
        colours = self.data.pieces
        # the row of spaces takes the four figures, the row below only Champagne Charlie
        figures = frozenset(colours[k] for k in ("sue", "hal", "deb", "bodyguard"))
        charlie = frozenset({colours["charlie"]})
        for i in range(self.data.spaces):
            x = margin + i * (w + gap)
            label = str(i)
            if i in self.data.entrances[0]:
                label = "A"
            elif i in self.data.entrances[1]:
                label = "B"
            elif i == self.data.middle:
                label = "sewer"
            spots.append(Spot(space_spot(i), x, margin, w, h, label, "light_fill", takes=figures))
        for i in range(self.data.spaces):
            x = margin + i * (w + gap)
            spots.append(Spot(charlie_spot(i), x, margin + h + row_gap, w, ch, "", "dark_fill",
                              takes=charlie))
        width = 2 * margin + self.data.spaces * (w + gap) - gap
        height = 2 * margin + h + row_gap + ch
        pieces = {colours["sue"]: "Saucy Sue", colours["hal"]: "Handsome Hal",
                  colours["deb"]: "Dancing Deb", colours["bodyguard"]: "Bodyguard (two)",
                  colours["charlie"]: "Champagne Charlie"}
        shapes = {c: "disc" for c in pieces}
        plain = {c: (0, 0) for c in pieces}  # pawns: the reader looks for no marks on them
        return Layout(width, height, tuple(spots), pieces, shapes, plain)

    def board_view(self, state: State) -> BoardView:
        return view_of(self.data, state["pos"])

    def keeps_pieces(self, state: State) -> bool:
        """Once Hal and Deb are set up, every move only moves the six figures and Charlie."""
        return state["phase"] != "setup"

    def explain(
        self, state: State, seen: BoardView, taps: list[Tap], trigger: Trigger
    ) -> list[Action]:
        """Set-up and whole turns are explained on the turn button only (figures are moved by
        hand one after another; a stable board in between is not yet a move)."""
        if trigger != "button" or state["phase"] == "over":
            return []
        after = read_view(self.data, seen)
        if after is None:
            return []
        if state["phase"] == "setup":
            return self._explain_setup(state, after)
        if after["hal"] is None or after["deb"] is None:
            return []
        player = int(state["turn"])
        before = state["pos"]
        ids = list(dict.fromkeys(t.card for t in taps))
        moved = [f for f in FIGURES if after[f] != before[f]]
        charlie = (after["charlie"] - before["charlie"]) * _toward(player)
        extra = {"charlie": charlie} if charlie else {}
        if state["phase"] == "charlie":
            if moved or ids:
                return []
            return [{"type": "charlie", "player": player, "spaces": charlie}]
        if not moved:
            if not ids or any(t.seat is not None for t in taps):
                # cards on a seat's reader are played, and no figure has moved yet (the button
                # pressed before the figures were down): no move to record, not a trade
                return []
            return [{"type": "trade", "player": player, "cards": ids, **extra}]
        if not ids:
            return self._explain_lure(before, after, player, extra)
        return self._explain_play(state, after, player, ids, extra)

    def _explain_setup(self, state: State, after: dict[str, Any]) -> list[Action]:
        out = []
        for hal_player in (0, 1):
            action = {"type": "setup", "hal_player": hal_player}
            if self.board_view(self._apply_setup(state, action)) == view_of(self.data, after):
                out.append(action)
        return out

    def _explain_lure(self, before: dict[str, Any], after: dict[str, Any], player: int,
                      extra: dict[str, int]) -> list[Action]:
        if after["hal"] != before["hal"] or after["deb"] != before["deb"]:
            return []
        if after["sue"] != before["sue"]:
            if [after[f] for f in LURABLE[1:]] != [before[f] for f in LURABLE[1:]]:
                return []
            figure = "sue"
        else:
            old = Counter([before["bodyguard_left"], before["bodyguard_right"]])
            new = Counter([after["bodyguard_left"], after["bodyguard_right"]])
            gone, came = list((old - new).elements()), list((new - old).elements())
            if len(gone) != 1 or came != [before["hal"]]:
                return []
            figure = "bodyguard_left" if gone[0] == before["bodyguard_left"] \
                else "bodyguard_right"
        if figure == "sue" and after["sue"] != before["hal"]:
            return []
        return [{"type": "lure", "player": player, "figure": figure, **extra}]

    def _explain_play(self, state: State, after: dict[str, Any], player: int, ids: list[str],
                      extra: dict[str, int]) -> list[Action]:
        """Find card-by-card moves from the tracked board to the seen one, in tap order."""
        try:
            self._check_cards(state, player, ids, same_colour=True)
        except MalformedAction:
            return [{"type": "play", "player": player,
                     "steps": [{"cards": [c], "figure": "sue", "direction": 1} for c in ids]}]
        except RuleError:
            return [self._naive_play(player, ids, extra)]
        cards = [self.data.cards[c] for c in ids]
        target = {f: after[f] for f in FIGURES}
        found = _search(self, state, player, cards, target, check=True)
        if not found:
            found = _search(self, state, player, cards, target, check=False)
            found = dict(list(found.items())[:1])
        return [{"type": "play", "player": player, "steps": steps, **extra}
                for steps in found.values()]

    def _naive_play(self, player: int, ids: list[str], extra: dict[str, int]) -> Action:
        """A candidate that apply() refuses before looking at the board (colour, discard, hand)."""
        steps = []
        for cid in ids:
            card = self.data.cards[cid]
            figure = "bodyguard_left" if card.colour == "bodyguard" else card.colour
            step: dict[str, Any] = {"cards": [cid], "figure": figure}
            if not card.sewer:
                step["direction"] = _toward(player)
            steps.append(step)
        return {"type": "play", "player": player, "steps": steps, **extra}


# --------------------------------------------------------------------------- helpers


def space_spot(i: int) -> str:
    """Spot id of strip space ``i`` (0 = A's end)."""
    return f"s{i}"


def charlie_spot(i: int) -> str:
    """Spot id of Charlie's dark-edge spot beside strip space ``i``."""
    return f"c{i}"


def view_of(data: BoardData, pos: dict[str, Any]) -> BoardView:
    """What the camera sees for these positions (Bodyguards look alike)."""
    colours = data.pieces
    items: dict[str, list[Piece]] = {}
    for figure in FIGURES:
        where = pos.get(figure)
        if where is not None:
            colour = colours[_figure_type(figure)]
            items.setdefault(space_spot(where), []).append(Piece(colour))
    if pos.get("charlie") is not None:
        items.setdefault(charlie_spot(pos["charlie"]), []).append(Piece(colours["charlie"]))
    return make_view(items)


def read_view(data: BoardData, seen: BoardView) -> dict[str, Any] | None:
    """Positions from a seen board, or None if it is not a Times Square board
    (a figure missing or doubled, a piece off its strip, an unknown colour)."""
    by_colour = {v: k for k, v in data.pieces.items()}
    found: dict[str, list[int]] = {k: [] for k in data.pieces}
    for spot_id, pieces in seen.items():
        row, number = spot_id[:1], spot_id[1:]
        if row not in ("s", "c") or not number.isdigit() or int(number) >= data.spaces:
            return None
        for piece in pieces:
            kind = by_colour.get(piece.colour)
            if kind is None or (row == "c") != (kind == "charlie"):
                return None
            found[kind].append(int(number))
    if len(found["sue"]) != 1 or len(found["charlie"]) != 1 or len(found["bodyguard"]) != 2:
        return None
    if len(found["hal"]) > 1 or len(found["deb"]) > 1:
        return None
    left, right = sorted(found["bodyguard"])
    return {"sue": found["sue"][0], "hal": (found["hal"] or [None])[0],
            "deb": (found["deb"] or [None])[0], "bodyguard_left": left,
            "bodyguard_right": right, "charlie": found["charlie"][0]}


def _search(game: TimesSquareRules, state: State, player: int, cards: list[Card],
            target: dict[str, int], check: bool) -> dict[str | None, list[dict[str, Any]]]:
    """Depth-first search for step lists (in tap order) that turn the tracked strip into
    ``target``.  Only figures that moved are tried; each figure's remaining distance, the
    total distance and its parity bound the search.  Returns the first step list found,
    keyed by the Deb joker choice it leaves (empty if none within the node budget)."""
    start = {f: state["pos"][f] for f in FIGURES}
    moved = {f for f in FIGURES if start[f] != target[f]}
    colour = cards[0].colour
    jokers = {_figure_type(f) for f in moved} - {"deb"}
    if colour == "deb" and len(jokers) > 1:
        return {}
    n = len(cards)
    inf = 10 * game.data.spaces
    cap = [{f: 0 for f in FIGURES} for _ in range(n + 1)]
    total = [0.0] * (n + 1)
    parity = [0] * (n + 1)  # -1: a sewer or Sue card ahead makes the parity unknowable
    for i in range(n - 1, -1, -1):
        card = cards[i]
        reach = inf if card.sewer else int(card.value or 0)
        cap[i] = dict(cap[i + 1])
        for f in _movable(card, jokers):
            cap[i][f] += reach
        total[i] = total[i + 1] + (1.5 if card.colour == "sue" else reach)
        known = parity[i + 1] >= 0 and not card.sewer and card.colour != "sue"
        parity[i] = (parity[i + 1] + reach) % 2 if known else -1
    results: dict[str | None, list[dict[str, Any]]] = {}
    nodes = 0

    def options(i: int, lock: str | None) -> list[tuple[str, list[Card]]]:
        card = cards[i]
        figs = [f for f in _movable(card, jokers) if f in moved]
        if card.colour == "sue":
            guards = {"bodyguard_left", "bodyguard_right"} <= moved
            found = [("sue", [card])] if "sue" in moved or guards else []
            if guards and i + 1 < n and cards[i + 1].colour == "sue":
                found.append(("group", [card, cards[i + 1]]))
            return found
        if check and card.colour == "deb" and lock is not None:
            figs = [f for f in figs if _figure_type(f) == lock]
        return [(f, [card]) for f in figs]

    def dfs(i: int, pos: dict[str, int], lock: str | None, steps: list[dict[str, Any]]) -> bool:
        """True once a step list is found: the resulting joker choice is fixed by which
        figures moved, so every other list leads to the same state."""
        nonlocal nodes
        nodes += 1
        if nodes > MAX_SEARCH_NODES:
            return True
        if i == n:
            if pos == target:
                results[lock] = list(steps)
                return True
            return False
        gaps = [abs(target[f] - pos[f]) for f in FIGURES]
        if any(g > cap[i][f] for g, f in zip(gaps, FIGURES, strict=True)):
            return False
        if sum(gaps) > total[i] or (parity[i] >= 0 and sum(gaps) % 2 != parity[i]):
            return False
        tries = []
        for figure, used in options(i, lock):
            for direction in ((None,) if used[0].sewer else (-1, 1)):
                try:
                    new, new_lock = game.move(pos, lock, player, figure, direction, used, check,
                                                 game.deb_on_sue_between(state))
                except RuleError:
                    continue
                if check and i + len(used) < n and game.entrance_owner(new["sue"]) is not None:
                    continue
                dist = sum(abs(target[f] - new[f]) for f in FIGURES)
                step = {"cards": [c.id for c in used], "figure": figure}
                if direction is not None:
                    step["direction"] = direction
                tries.append((dist, len(tries), step, new, new_lock, len(used)))
        for _, _, step, new, new_lock, used_n in sorted(tries, key=lambda t: t[:2]):
            if dfs(i + used_n, new, new_lock, steps + [step]):
                return True
        return False

    dfs(0, start, state["joker"][player], [])
    return results


def _movable(card: Card, jokers: set[str]) -> list[str]:
    """Figures a card may move (Deb: herself or the one joker type that moved)."""
    if card.colour == "sue":
        return ["sue", "bodyguard_left", "bodyguard_right"]
    if card.colour == "bodyguard":
        return ["bodyguard_left", "bodyguard_right"]
    if card.colour == "hal":
        return ["hal"]
    figs = ["deb"]
    for kind in jokers:
        figs += ["bodyguard_left", "bodyguard_right"] if kind == "bodyguard" else [kind]
    return figs
