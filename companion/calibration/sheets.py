"""Printable sheets as PDF at true size: the board's markers (tiled over pages) and the ChArUco sheet.

A PDF carries its own page size and a printer told "actual size" keeps every
millimetre, which a bare PNG does not.  Markers are drawn as vector squares
(one black square of ``MARKER_MM`` with its white cells on top), so their size
is exact at any printer resolution.  Where the board with its margin is larger
than the paper, it is tiled: each page shows its piece of the canvas with trim
marks, and crosshairs in the strips shared with its neighbours to lay them on
one another.  Every page carries a 100 mm scale bar to check the print.

Nothing is printed inside a marker's quiet zone (the white band of :data:`QUIET_MM`
around it that the detector needs, as wide as the margin leaves: up to the board's edge
and the paper's): a marker's label sits beside it, past that band, crosshairs move
along their strip to clear it, and the page's footer lies below the tiled area.  The
footer says in which order the tiles go on top of one another.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from reportlab.lib.pagesizes import A4, LETTER
from reportlab.lib.units import mm
from reportlab.pdfgen.canvas import Canvas

from companion.games.base import Layout
from companion.vision.geometry import (
    MARGIN_MM,
    MARKER_MM,
    aruco_dictionary,
    canvas_size_mm,
    marker_corners_mm,
)

PAPERS: dict[str, tuple[float, float]] = {
    "a4": (A4[0] / mm, A4[1] / mm),
    "letter": (LETTER[0] / mm, LETTER[1] / mm),
}
PAPER_NAMES = {"a4": "A4 (210 x 297 mm)", "letter": "Letter (8.5 x 11 in, 215.9 x 279.4 mm)"}
EDGE_MM = 10.0  # printers cannot print to the paper's edge
FOOTER_MM = 30.0  # scale bar and instructions, wholly below the tiled area
FOOTER_TOP_MM = 28.0  # the footer's highest ink, from the paper's bottom edge
FOOTER_X_MM = EDGE_MM + 3  # clear of the trim marks at the tile's corners
QUIET_MM = (MARGIN_MM - MARKER_MM) / 2  # white all round a marker (to the board's edge)
LABEL_SIZE_PT = 7.0
CROSSHAIR_MM = 4.0  # a crosshair's reach from its centre (its label included)
OVERLAP_MM = 12.0  # strip shared by neighbouring tiles
SCALE_BAR_MM = 100.0


@dataclass(frozen=True)
class Tile:
    """A page's piece of the canvas, in canvas millimetres (y down)."""

    row: int
    col: int
    x: float
    y: float
    w: float
    h: float

    @property
    def name(self) -> str:
        return f"{chr(ord('A') + self.row)}{self.col + 1}"

    def contains(self, x: float, y: float) -> bool:
        return self.x <= x <= self.x + self.w and self.y <= y <= self.y + self.h

    def overlaps(self, x0: float, y0: float, x1: float, y1: float) -> bool:
        return x0 < self.x + self.w and x1 > self.x and y0 < self.y + self.h and y1 > self.y


def _tiles(width: float, height: float, area_w: float, area_h: float) -> list[Tile]:
    def split(total: float, span: float) -> list[float]:
        if total <= span:
            return [0.0]
        count = math.ceil((total - OVERLAP_MM) / (span - OVERLAP_MM))
        step = (total - span) / (count - 1)
        return [i * step for i in range(count)]

    xs, ys = split(width, area_w), split(height, area_h)
    return [Tile(r, c, x, y, min(area_w, width), min(area_h, height))
            for r, y in enumerate(ys) for c, x in enumerate(xs)]


def plan_pages(width: float, height: float, paper: str) -> tuple[tuple[float, float], list[Tile]]:
    """Page size (mm, portrait or landscape, whichever needs fewer pages) and the tiles."""
    pw, ph = PAPERS[paper]
    best: tuple[tuple[float, float], list[Tile]] | None = None
    for page in ((pw, ph), (ph, pw)):
        tiles = _tiles(width, height, page[0] - 2 * EDGE_MM, page[1] - EDGE_MM - FOOTER_MM)
        if best is None or len(tiles) < len(best[1]):
            best = (page, tiles)
    assert best is not None
    return best


class _Page:
    """Draws canvas-mm shapes onto one PDF page through its tile."""

    def __init__(self, pdf: Canvas, page: tuple[float, float], tile: Tile) -> None:
        self.pdf, self.page, self.tile = pdf, page, tile

    def x(self, cx: float) -> float:
        return (EDGE_MM + cx - self.tile.x) * mm

    def y(self, cy: float) -> float:
        return (self.page[1] - EDGE_MM - (cy - self.tile.y)) * mm

    def rect(self, x: float, y: float, w: float, h: float, fill: bool = True) -> None:
        self.pdf.rect(self.x(x), self.y(y + h), w * mm, h * mm, stroke=0 if fill else 1,
                      fill=1 if fill else 0)


def _marker(page: _Page, marker_id: int, corners: np.ndarray) -> None:
    """One ArUco marker: a black square of MARKER_MM, its white cells drawn over it."""
    dictionary = aruco_dictionary()
    cells = dictionary.markerSize + 2
    bits = cv2.aruco.generateImageMarker(dictionary, marker_id, cells)
    x0, y0 = float(corners[0][0]), float(corners[0][1])
    size = float(corners[1][0] - corners[0][0])
    cell = size / cells
    page.pdf.setFillGray(0)
    page.rect(x0, y0, size, size)
    page.pdf.setFillGray(1)
    for r in range(cells):
        for c in range(cells):
            if bits[r, c] > 127:
                page.rect(x0 + c * cell, y0 + r * cell, cell, cell)
    page.pdf.setFillGray(0)
    page.pdf.setFont("Helvetica", LABEL_SIZE_PT)
    x, y, _ = label_place(marker_id, corners)
    page.pdf.drawString(page.x(x), page.y(y), label_text(marker_id))


def label_text(marker_id: int) -> str:
    return f"marker id {marker_id}"


def label_place(marker_id: int, corners: np.ndarray) -> tuple[float, float, tuple[float, ...]]:
    """Where a marker's label goes (x, baseline y) and its box (x0, y0, x1, y1), canvas mm:
    beside the marker along the margin, past its quiet zone (markers 0-4 and 6 to the side
    facing the middle of their row, 5 and 7 below)."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    width = stringWidth(label_text(marker_id), "Helvetica", LABEL_SIZE_PT) / mm
    height = LABEL_SIZE_PT * 0.3528 * 0.75  # cap height of 7 pt Helvetica in mm
    x0, y0 = float(corners[0][0]), float(corners[0][1])
    size = float(corners[1][0] - corners[0][0])
    gap = QUIET_MM + 1.5
    if marker_id in (5, 7):  # on a side: below the marker, inside the margin band
        x, base = x0, y0 + size + gap + height
    elif marker_id in (1, 2):  # right-hand corners: to the left
        x, base = x0 - gap - width, y0 + size / 2 + height / 2
    else:
        x, base = x0 + size + gap, y0 + size / 2 + height / 2
    return x, base, (x, base - height, x + width, base + 1.0)  # 1 mm for descenders


def quiet_zones(layout: Layout) -> dict[int, tuple[float, float, float, float]]:
    """Each marker with its quiet zone (x0, y0, x1, y1), canvas mm: nothing may be printed there."""
    zones = {}
    for marker_id, corners in marker_corners_mm(layout).items():
        lo, hi = corners.min(0), corners.max(0)
        # the band's outer edge is the board's edge and the paper's: shy of it by a hair
        q = QUIET_MM - 0.01
        zones[marker_id] = (float(lo[0]) - q, float(lo[1]) - q, float(hi[0]) + q, float(hi[1]) + q)
    return zones


def _clear(box: tuple[float, ...], zones: dict[int, tuple[float, float, float, float]]) -> bool:
    return all(box[2] <= z[0] or box[0] >= z[2] or box[3] <= z[1] or box[1] >= z[3]
               for z in zones.values())


def crosshair_spots(tile: Tile, other: Tile, zones: dict[int, tuple[float, float, float, float]]
                    ) -> list[tuple[float, float]]:
    """Two crosshair centres in the strip ``tile`` shares with its neighbour ``other``, each
    clear of every quiet zone (moved along the strip from a quarter and three quarters)."""
    fractions = [0.25, 0.75] + [f / 20 for f in range(2, 19)]
    across = other.row == tile.row
    if across:
        fixed = (max(tile.x, other.x) + min(tile.x + tile.w, other.x + other.w)) / 2
    else:
        fixed = (max(tile.y, other.y) + min(tile.y + tile.h, other.y + other.h)) / 2
    spots: list[tuple[float, float]] = []
    for f in fractions:
        point = (fixed, tile.y + f * tile.h) if across else (tile.x + f * tile.w, fixed)
        r = CROSSHAIR_MM
        if _clear((point[0] - r, point[1] - r, point[0] + r + 8, point[1] + r), zones) and \
                all(abs(point[0] - p[0]) + abs(point[1] - p[1]) > 20 for p in spots):
            spots.append(point)
        if len(spots) == 2:
            break
    return spots


CORNER_TEXT = "board corner"


def corner_labels(board: tuple[float, float, float, float]
                  ) -> list[tuple[float, float, bool, tuple[float, float, float, float]]]:
    """The board's corners named just inside the board (outside it lie the markers' quiet
    zones): (x, baseline, right-aligned, box) in canvas mm."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    width = stringWidth(CORNER_TEXT, "Helvetica", 6) / mm
    out = []
    for cx, cy in ((board[0], board[1]), (board[2], board[1]), (board[2], board[3]),
                   (board[0], board[3])):
        right = cx == board[2]
        x = cx - 1.5 if right else cx + 1.5
        base = cy + 3.5 if cy == board[1] else cy - 1.5
        left = x - width if right else x
        out.append((x, base, right, (left, base - 2.2, left + width, base + 0.8)))
    return out


def lay_order(tiles: list[Tile]) -> list[str]:
    """The order tiles are laid: row by row, left to right; each goes on top of those before."""
    return [t.name for t in sorted(tiles, key=lambda t: (t.row, t.col))]


def _crosshair(page: _Page, cx: float, cy: float, label: str) -> None:
    pdf = page.pdf
    pdf.setLineWidth(0.3)
    pdf.circle(page.x(cx), page.y(cy), 2.5 * mm, stroke=1, fill=0)
    pdf.line(page.x(cx - 4), page.y(cy), page.x(cx + 4), page.y(cy))
    pdf.line(page.x(cx), page.y(cy - 4), page.x(cx), page.y(cy + 4))
    pdf.setFont("Helvetica", 5)
    pdf.drawString(page.x(cx + 3), page.y(cy - 3), label)


def _trim_marks(page: _Page) -> None:
    """L-shaped cut marks just outside the tile's corners."""
    t, pdf = page.tile, page.pdf
    pdf.setLineWidth(0.3)
    for cx, cy, sx, sy in ((t.x, t.y, -1, -1), (t.x + t.w, t.y, 1, -1),
                           (t.x + t.w, t.y + t.h, 1, 1), (t.x, t.y + t.h, -1, 1)):
        pdf.line(page.x(cx + sx * 1.5), page.y(cy), page.x(cx + sx * 7), page.y(cy))
        pdf.line(page.x(cx), page.y(cy + sy * 1.5), page.x(cx), page.y(cy + sy * 7))


def _footer(pdf: Canvas, page: tuple[float, float], paper: str, title: str, note: str) -> None:
    """The scale bar (100 mm, 10 mm ticks) and what to print it on."""
    x0, y0 = FOOTER_X_MM * mm, (EDGE_MM + 4) * mm  # the title's top: FOOTER_TOP_MM
    pdf.setFillGray(0)
    pdf.setLineWidth(0.4)
    pdf.line(x0, y0, x0 + SCALE_BAR_MM * mm, y0)
    for i in range(11):
        tick = 3 if i % 5 == 0 else 1.5
        pdf.line(x0 + i * 10 * mm, y0, x0 + i * 10 * mm, y0 + tick * mm)
    pdf.setFont("Helvetica", 6)
    pdf.drawString(x0, y0 - 3 * mm, f"this bar must measure exactly {SCALE_BAR_MM:.0f} mm; "
                   "if not, reprint at 100% / 'Actual size' (never 'Fit to page')")
    pdf.setFont("Helvetica", 7)
    pdf.drawString(x0 + (SCALE_BAR_MM + 5) * mm, y0 + 0.5 * mm, f"Paper: {PAPER_NAMES[paper]}")
    pdf.setFont("Helvetica", 6.5)
    pdf.drawString(x0, y0 + 6 * mm, note)
    pdf.setFont("Helvetica-Bold", 8)
    pdf.drawString(x0, y0 + 11 * mm, title)


def marker_pdf(layout: Layout, title: str, path: Path, paper: str = "a4") -> dict[str, object]:
    """The board's marker margin at true size, tiled over pages; returns what was written."""
    width, height = canvas_size_mm(layout)
    page, tiles = plan_pages(width, height, paper)
    board = (MARGIN_MM, MARGIN_MM, MARGIN_MM + layout.width, MARGIN_MM + layout.height)
    inner = (board[0] + OVERLAP_MM, board[1] + OVERLAP_MM, board[2] - OVERLAP_MM, board[3] - OVERLAP_MM)
    # pages wholly inside the board carry nothing to tape on: they are not printed
    kept = [t for t in tiles if not (t.x > inner[0] and t.y > inner[1] and t.x + t.w < inner[2]
                                     and t.y + t.h < inner[3])]
    rows = 1 + max(t.row for t in tiles)
    cols = 1 + max(t.col for t in tiles)
    pdf = Canvas(str(path), pagesize=(page[0] * mm, page[1] * mm))
    pdf.setTitle(f"{title}: board markers")
    markers = marker_corners_mm(layout)
    zones = quiet_zones(layout)
    order = lay_order(kept)
    for tile in kept:
        p = _Page(pdf, page, tile)
        pdf.saveState()
        clip = pdf.beginPath()
        clip.rect(p.x(tile.x), p.y(tile.y + tile.h), tile.w * mm, tile.h * mm)
        pdf.clipPath(clip, stroke=0, fill=0)
        pdf.setStrokeGray(0.45)
        pdf.setDash(4, 2)
        pdf.setLineWidth(0.5)
        p.rect(board[0], board[1], board[2] - board[0], board[3] - board[1], fill=False)
        pdf.setDash()
        pdf.setStrokeGray(0)
        pdf.setFont("Helvetica", 6)
        pdf.setFillGray(0.3)
        for x, base, right, _ in corner_labels(board):
            if tile.overlaps(x - 1, base - 3, x + 1, base + 1):
                (pdf.drawRightString if right else pdf.drawString)(p.x(x), p.y(base), CORNER_TEXT)
        pdf.setFillGray(0)
        for marker_id, corners in markers.items():
            lo, hi = corners.min(0), corners.max(0)
            if tile.overlaps(float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1])):
                _marker(p, marker_id, corners)
        for other in tiles:  # crosshairs in the strip shared with each neighbour
            if other is tile or abs(other.col - tile.col) + abs(other.row - tile.row) != 1:
                continue
            first, second = sorted((tile, other), key=lambda t: (t.row, t.col))
            joint = "|" if other.row == tile.row else "/"
            for cx, cy in crosshair_spots(tile, other, zones):
                _crosshair(p, cx, cy, f"{first.name}{joint}{second.name}")
        pdf.restoreState()
        _trim_marks(p)
        where = f"tile {tile.name} (row {tile.row + 1} of {rows}, column {tile.col + 1} of {cols})"
        under = [t.name for t in kept if (t.row, t.col) < (tile.row, tile.col)
                 and abs(t.row - tile.row) <= 1 and abs(t.col - tile.col) <= 1]
        on_top = (f"lay it on top of {', '.join(under)}" if under else "lay it down first")
        _footer(pdf, page, paper, f"{title} markers: {where}; {on_top}",
                f"Cut on the corner marks. Lay the tiles in this order, each on top of those "
                f"before, crosshairs over crosshairs: {' '.join(order)}. Dashed line = the "
                "board's printed edge.")
        pdf.showPage()
    pdf.save()
    skipped = [t.name for t in tiles if t not in kept]
    return {"pages": len(kept), "page_mm": page, "tiles": f"{rows} x {cols}", "skipped": skipped,
            "marker_mm": MARKER_MM, "lay_order": order}


def charuco_pdf(board: cv2.aruco.CharucoBoard, square_mm: float, path: Path, paper: str = "a4") -> dict:
    """The ChArUco sheet for ``calibrate camera`` on one page, at true size."""
    cols, rows = board.getChessboardSize()
    width, height = cols * square_mm, rows * square_mm
    page, tiles = plan_pages(width, height, paper)
    if len(tiles) > 1:
        raise ValueError(f"the ChArUco sheet ({width:.0f}x{height:.0f} mm) does not fit on {paper}")
    px_per_mm = 12  # 300 dpi and a little more: the image is drawn at exact size
    image = board.generateImage((int(width * px_per_mm), int(height * px_per_mm)))
    from PIL import Image
    from reportlab.lib.utils import ImageReader

    pdf = Canvas(str(path), pagesize=(page[0] * mm, page[1] * mm))
    pdf.setTitle("ChArUco sheet for companion calibrate camera")
    p = _Page(pdf, page, tiles[0])
    pdf.drawImage(ImageReader(Image.fromarray(image)), p.x(0), p.y(height), width * mm, height * mm)
    _footer(pdf, page, paper, "ChArUco sheet (companion calibrate camera)",
            "Tape flat on a board; photograph it from 10-20 angles, filling a good part of the picture.")
    pdf.showPage()
    pdf.save()
    return {"pages": 1, "page_mm": page, "square_mm": square_mm}


ROW_MM = 7.0


def tags_pdf(title: str, rows: list[tuple[str, str, str]], path: Path, paper: str = "a4") -> dict:
    """A checklist of the cards and their tags (card, tag UID, where the pairing comes from),
    to tick off while sticking tags on cards or checking a deck."""
    page = PAPERS[paper]
    top = page[1] - EDGE_MM - 12
    per_page = max(1, int((top - EDGE_MM - FOOTER_MM) // ROW_MM))
    pages = [rows[i:i + per_page] for i in range(0, len(rows), per_page)] or [[]]
    pdf = Canvas(str(path), pagesize=(page[0] * mm, page[1] * mm))
    pdf.setTitle(f"{title}: card tags")
    for number, chunk in enumerate(pages, 1):
        pdf.setFont("Helvetica-Bold", 11)
        pdf.drawString(EDGE_MM * mm, (page[1] - EDGE_MM - 5) * mm,
                       f"{title}: card tags (page {number} of {len(pages)})")
        pdf.setFont("Helvetica-Bold", 8)
        for x, head in ((EDGE_MM + 8, "card"), (EDGE_MM + 80, "tag UID"), (EDGE_MM + 120, "from")):
            pdf.drawString(x * mm, (top + 2) * mm, head)
        pdf.setFont("Helvetica", 9)
        pdf.setLineWidth(0.3)
        for i, (card, uid, source) in enumerate(chunk):
            y = top - (i + 1) * ROW_MM
            pdf.rect(EDGE_MM * mm, (y + 1.5) * mm, 4 * mm, 4 * mm, stroke=1, fill=0)
            pdf.drawString((EDGE_MM + 8) * mm, (y + 2) * mm, card)
            pdf.drawString((EDGE_MM + 80) * mm, (y + 2) * mm, uid)
            pdf.drawString((EDGE_MM + 120) * mm, (y + 2) * mm, source)
            pdf.line(EDGE_MM * mm, y * mm, (page[0] - EDGE_MM) * mm, y * mm)
        _footer(pdf, page, paper, f"{title} card tags",
                "Tick each card once its tag reads right ('companion calibrate cards --only CARD' "
                "re-registers one).")
        pdf.showPage()
    pdf.save()
    return {"pages": len(pages), "rows": len(rows), "page_mm": page}
