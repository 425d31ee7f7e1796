"""Printable sheets as PDF at true size: the board's markers (tiled over pages) and the ChArUco sheet.

A PDF carries its own page size and a printer told "actual size" keeps every
millimetre, which a bare PNG does not.  Markers are drawn as vector squares
(one black square of ``MARKER_MM`` with its white cells on top), so their size
is exact at any printer resolution.  Where the board with its margin is larger
than the paper, it is tiled: each page shows its piece of the canvas with trim
marks, and crosshairs in the strips shared with its neighbours to lay them on
one another.  Every page carries a 100 mm scale bar to check the print.
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
FOOTER_MM = 24.0  # scale bar and instructions
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
    page.pdf.setFont("Helvetica", 7)
    page.pdf.drawString(page.x(x0), page.y(y0 + size + 3.5), f"marker id {marker_id}")


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
    x0, y0 = EDGE_MM * mm, (EDGE_MM + 4) * mm
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
        for cx, cy in ((board[0], board[1]), (board[2], board[1]), (board[2], board[3]),
                       (board[0], board[3])):
            if tile.contains(cx, cy):
                pdf.drawString(p.x(cx + 1.5), p.y(cy - 1.5) if cy == board[1] else p.y(cy + 3.5),
                               "board corner")
        pdf.setFillGray(0)
        for marker_id, corners in markers.items():
            lo, hi = corners.min(0), corners.max(0)
            if tile.overlaps(float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1])):
                _marker(p, marker_id, corners)
        for other in tiles:  # crosshairs in the strip shared with each neighbour
            if other.row == tile.row and abs(other.col - tile.col) == 1:
                x = (max(tile.x, other.x) + min(tile.x + tile.w, other.x + other.w)) / 2
                for f in (0.25, 0.75):
                    _crosshair(p, x, tile.y + f * tile.h, f"{min(tile, other, key=lambda t: t.col).name}"
                               f"|{max(tile, other, key=lambda t: t.col).name}")
            if other.col == tile.col and abs(other.row - tile.row) == 1:
                y = (max(tile.y, other.y) + min(tile.y + tile.h, other.y + other.h)) / 2
                for f in (0.25, 0.75):
                    _crosshair(p, tile.x + f * tile.w, y, f"{min(tile, other, key=lambda t: t.row).name}"
                               f"/{max(tile, other, key=lambda t: t.row).name}")
        pdf.restoreState()
        _trim_marks(p)
        where = f"tile {tile.name} (row {tile.row + 1} of {rows}, column {tile.col + 1} of {cols})"
        _footer(pdf, page, paper, f"{title} markers: {where}",
                "Cut on the corner marks; lay neighbouring tiles over one another until their "
                "crosshairs meet; dashed line = the board's printed edge.")
        pdf.showPage()
    pdf.save()
    skipped = [t.name for t in tiles if t not in kept]
    return {"pages": len(kept), "page_mm": page, "tiles": f"{rows} x {cols}", "skipped": skipped,
            "marker_mm": MARKER_MM}


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
