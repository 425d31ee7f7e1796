"""The table as a Blender scene: what ``render3d`` plans, built with ``bpy`` and rendered by Cycles.

Blender as a module (the ``render3d`` extra) holds one scene per process; each frame starts
from Blender's empty factory scene.  Lengths here are metres (Blender's unit); the plan's
are canvas millimetres, turned into the world by :func:`render3d.world_mm`.
"""

from __future__ import annotations

import math
import random
import tempfile
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.games.base import BoardView, Layout, Piece
from companion.sim.camera.conditions import SKIN_TONES
from companion.sim.camera.render import PIP_LAYOUT, TABLE_BGR
from companion.sim.camera.render3d import (
    CARD_MM,
    CHIP_MM,
    FIGURE_MM,
    HandPose,
    Pinhole,
    Placed,
    Scene3D,
    covered_places,
    finish,
    pinhole_for,
    plan_pieces,
    truth,
    world_mm,
)
from companion.vision.board_print import board_print
from companion.vision.geometry import canvas_size_mm
from companion.vision.palette import DARK_PIECES, PIP_ON_DARK, PIP_ON_LIGHT, bgr

PRINT_PX_PER_MM = 4.0
# lamps: (where, metres from the board's centre; size, m; power, W; colour as RGB; fill's share)
LAMP_SETS: dict[str, dict[str, Any]] = {
    "desk": {"at": (0.35, 0.25, 1.1), "size": 0.45, "power": 260.0, "rgb": (1.0, 0.93, 0.84),
             "fill": 0.18},
    "overhead": {"at": (-0.1, 0.05, 1.4), "size": 0.6, "power": 420.0, "rgb": (1.0, 0.98, 0.95),
                 "fill": 0.25},
    "window": {"at": (-1.1, 0.35, 0.95), "size": 1.1, "power": 900.0, "rgb": (0.88, 0.94, 1.0),
               "fill": 0.3},
    # a small low pendant: hard, short shadows and bright highlights (test split only)
    "pendant": {"at": (0.12, -0.18, 0.85), "size": 0.16, "power": 150.0, "rgb": (1.0, 0.9, 0.78),
                "fill": 0.15},
    # a ceiling's LED bar across the table: long soft shadows one way, sharp the other
    "strip": {"at": (0.05, 0.3, 1.3), "size": (1.2, 0.08), "power": 380.0, "rgb": (0.97, 0.98, 1.0),
              "fill": 0.2},
    # a small spotlight to one side: hard shadows and a pool of light that falls off (test only)
    "spot": {"at": (0.45, -0.35, 1.05), "size": 0.03, "power": 900.0, "rgb": (1.0, 0.88, 0.72),
             "fill": 0.12, "cone": 55.0},
    # a bare warm bulb low on the far left: hard, long shadows (tuning split's more scenes only)
    "bulb": {"at": (-0.45, 0.4, 0.75), "size": 0.05, "power": 200.0, "rgb": (1.0, 0.84, 0.66),
             "fill": 0.14},
    # a reading lamp low on the left, its pool of light falling off softly across the board
    # (the tuning split's falloff scenes only)
    "reading": {"at": (-0.4, 0.3, 0.9), "size": 0.04, "power": 700.0, "rgb": (1.0, 0.9, 0.75),
                "fill": 0.12, "cone": 48.0, "blend": 0.6},
    # a broad light low on the right (a lit wall beside the table): the board brighter on one
    # side than the other (the tuning split's falloff scenes only)
    "wall": {"at": (1.0, -0.25, 0.6), "size": 0.9, "power": 800.0, "rgb": (1.0, 0.97, 0.92),
             "fill": 0.25},
    # a ceiling track of three small spots in a row, each lighting its own pool under it: three
    # hotspots and three hard shadows off every piece (the tuning split's track scenes only)
    "track": {"at": (0.0, 0.22, 1.15), "size": 0.03, "power": 320.0, "rgb": (1.0, 0.93, 0.82),
              "fill": 0.2, "cone": 42.0, "blend": 0.4, "row": (3, 0.32)},
    # a broad cool ceiling panel high above: soft light, faint shadows (tuning split's more scenes)
    "panel": {"at": (0.05, -0.1, 1.7), "size": 1.0, "power": 650.0, "rgb": (0.9, 0.95, 1.0),
              "fill": 0.3},
}
# plastic: roughness, and a clear coat over it (a lacquered die: a sharp highlight on a soft one)
PLASTIC_ROUGHNESS = {"glossy": 0.16, "matte": 0.6, "satin": 0.38, "lacquered": 0.45, "semigloss": 0.27}
PLASTIC_COAT = {"lacquered": 0.08}
# the board print's finish: roughness and specular (a laminated print shines like the dice)
PAPER_FINISH = {"matte": (0.75, 0.25), "silk": (0.45, 0.4), "gloss": (0.3, 0.45), "laminated": (0.2, 0.5)}
# a die's faces on the model, by the axis they face: opposite faces sum to seven
FACE_AXES = {1: (0, 0, 1), 6: (0, 0, -1), 2: (0, 1, 0), 5: (0, -1, 0), 3: (1, 0, 0), 4: (-1, 0, 0)}
FACE_UP = {1: ("X", 0.0), 6: ("X", 180.0), 2: ("X", 90.0), 5: ("X", -90.0), 3: ("Y", -90.0), 4: ("Y", 90.0)}

# Cycles on the CPU, as cheap as the reader allows (measured in the README's "Physically based
# frames"): two samples a pixel, OpenImageDenoise with the fast prefilter (the accurate one
# cost half the frame), few bounces, no light tree (two lamps).
CYCLES: dict[str, Any] = {
    "device": "CPU", "use_adaptive_sampling": False, "use_denoising": True, "denoiser": "OPENIMAGEDENOISE",
    "denoising_prefilter": "FAST", "use_light_tree": False,
    "max_bounces": 2, "diffuse_bounces": 1, "glossy_bounces": 1,
    "transmission_bounces": 0, "transparent_max_bounces": 0,
}


def _linear(bgr_colour: tuple[int, int, int]) -> tuple[float, float, float, float]:
    """An 8-bit sRGB paint (BGR) as Blender's linear RGBA."""
    def lin(c: float) -> float:
        c /= 255.0
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    b, g, r = bgr_colour
    return (lin(r), lin(g), lin(b), 1.0)


class BlenderTable:
    """One frame's scene: board, pieces, lamps, camera; ``render`` returns the linear light."""

    def __init__(self, layout: Layout, scene: Scene3D, camera: Pinhole, workdir: Path, threads: int = 2,
                 hand: HandPose | None = None) -> None:
        import bpy  # the render3d extra: only here

        self.bpy = bpy
        self.layout = layout
        self.scene = scene
        self.camera = camera
        self.threads = threads
        self.hand = hand
        self.rng = random.Random(f"blender:{scene.seed}")
        self._materials: dict[str, Any] = {}
        self._die_meshes: dict[tuple[str, float], Any] = {}
        self._tmp = workdir

    # ------------------------------------------------------------------ materials
    def _material(self, key: str, rgba: tuple[float, ...], roughness: float, specular: float = 0.5,
                  image: Path | None = None, coat: float | None = None) -> Any:
        if key in self._materials:
            return self._materials[key]
        bpy = self.bpy
        mat = bpy.data.materials.new(key)
        mat.use_nodes = True
        bsdf = mat.node_tree.nodes.get("Principled BSDF")
        bsdf.inputs["Base Color"].default_value = rgba
        bsdf.inputs["Roughness"].default_value = roughness
        bsdf.inputs["Specular IOR Level"].default_value = specular
        if coat is not None:
            bsdf.inputs["Coat Weight"].default_value = 1.0
            bsdf.inputs["Coat Roughness"].default_value = coat
        if image is not None:
            tex = mat.node_tree.nodes.new("ShaderNodeTexImage")
            tex.image = bpy.data.images.load(str(image))
            tex.interpolation = "Cubic"
            mat.node_tree.links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])
        self._materials[key] = mat
        return mat

    def _plastic(self, colour: str) -> Any:
        roughness = PLASTIC_ROUGHNESS[self.scene.plastic]
        return self._material(f"plastic-{colour}", _linear(bgr(colour)), roughness,
                              coat=PLASTIC_COAT.get(self.scene.plastic))

    # ------------------------------------------------------------------ objects
    def _object(self, name: str, verts: list, faces: list, uv: list | None = None) -> Any:
        bpy = self.bpy
        mesh = bpy.data.meshes.new(name)
        mesh.from_pydata(verts, [], faces)
        if uv is not None:
            layer = mesh.uv_layers.new()
            for poly in mesh.polygons:
                for li in poly.loop_indices:
                    layer.data[li].uv = uv[mesh.loops[li].vertex_index]
        mesh.update()
        obj = bpy.data.objects.new(name, mesh)
        bpy.context.scene.collection.objects.link(obj)
        return obj

    def _grid(self, name: str, w: float, h: float, n: int = 1, lift: Any = None) -> Any:
        """A w x h rectangle (metres) centred on the origin, ``n`` x ``n`` quads, UVs 0-1;
        ``lift(u, v)`` raises its vertices (a curled card)."""
        verts, uv = [], []
        for j in range(n + 1):
            for i in range(n + 1):
                u, v = i / n, j / n
                verts.append(((u - 0.5) * w, (v - 0.5) * h, lift(u, v) if lift else 0.0))
                uv.append((u, v))
        faces = [(j * (n + 1) + i, j * (n + 1) + i + 1, (j + 1) * (n + 1) + i + 1, (j + 1) * (n + 1) + i)
                 for j in range(n) for i in range(n)]
        return self._object(name, verts, faces, uv)

    def _place(self, obj: Any, x_mm: float, y_mm: float, z_mm: float, yaw: float, base: Any = None) -> None:
        from mathutils import Matrix

        (wx, wy, wz), = world_mm(self.layout, np.array([[x_mm, y_mm, -z_mm]]))
        rot = Matrix.Rotation(math.radians(yaw), 4, "Z")
        if base is not None:
            rot = rot @ base
        obj.matrix_world = Matrix.Translation((wx / 1000, wy / 1000, wz / 1000)) @ rot

    def _board(self) -> None:
        total_w, total_h = canvas_size_mm(self.layout)
        path = self._tmp / "print.png"
        cv2.imwrite(str(path), board_print(self.layout, PRINT_PX_PER_MM))
        paper = self._material("print", (1, 1, 1, 1), *PAPER_FINISH[self.scene.paper], image=path)
        board = self._grid("board", total_w / 1000, total_h / 1000)
        board.data.materials.append(paper)
        table = self._grid("table", 3.0, 3.0)
        table.location.z = -0.0006  # the sheet's thickness
        table.data.materials.append(self._material("table", _linear(TABLE_BGR), 0.55, 0.3))

    def _die_mesh(self, colour: str, size_mm: float) -> Any:
        """A rounded cube with drilled pips on every face (made once per colour and size)."""
        key = (colour, round(size_mm, 1))
        if key in self._die_meshes:
            return self._die_meshes[key]
        bpy = self.bpy
        s = size_mm / 1000
        bpy.ops.mesh.primitive_cube_add(size=s, location=(0, 0, 0))
        die = bpy.context.object
        die.data.materials.append(self._plastic(colour))
        bevel = die.modifiers.new("round", "BEVEL")
        bevel.width, bevel.segments = 0.12 * s, 3
        pip_colour = PIP_ON_DARK if colour in DARK_PIECES else PIP_ON_LIGHT
        pip_mat = self._material(f"pip-{colour}", _linear(pip_colour), 0.5)
        cutters = []
        step, radius = 0.27 * s, 0.085 * s
        for face, axis in FACE_AXES.items():
            normal = np.array(axis, float)
            a = np.array((1.0, 0.0, 0.0)) if abs(normal[0]) < 0.5 else np.array((0.0, 1.0, 0.0))
            b = np.cross(normal, a)
            for dx, dy in PIP_LAYOUT[face]:
                centre = normal * (s / 2 + 0.45 * radius) + a * dx * step + b * dy * step
                bpy.ops.mesh.primitive_uv_sphere_add(radius=radius, segments=12, ring_count=6,
                                                     location=tuple(centre))
                cutter = bpy.context.object
                cutter.data.materials.append(pip_mat)
                cutters.append(cutter)
        for c in cutters:
            c.select_set(True)
        bpy.context.view_layer.objects.active = cutters[0]
        bpy.ops.object.join()
        holes = bpy.context.object
        cut = die.modifiers.new("pips", "BOOLEAN")
        cut.operation, cut.object, cut.solver = "DIFFERENCE", holes, "EXACT"
        cut.material_mode = "TRANSFER"
        depsgraph = bpy.context.evaluated_depsgraph_get()
        mesh = bpy.data.meshes.new_from_object(die.evaluated_get(depsgraph))
        for poly in mesh.polygons:
            poly.use_smooth = False
        bpy.data.objects.remove(die)
        bpy.data.objects.remove(holes)
        self._die_meshes[key] = mesh
        return mesh

    def _die(self, p: Placed) -> None:
        from mathutils import Matrix

        mesh = self._die_mesh(p.piece.colour, p.size)
        obj = self.bpy.data.objects.new(f"die-{p.spot}", mesh)
        self.bpy.context.scene.collection.objects.link(obj)
        face = p.piece.pips if p.piece.pips in FACE_UP else self.rng.randint(1, 6)
        axis, angle = FACE_UP[face]
        base = Matrix.Rotation(math.radians(angle), 4, axis)
        self._place(obj, p.x, p.y, p.z + p.size / 2, p.yaw, base)

    def _chip(self, p: Placed) -> None:
        bpy = self.bpy
        bpy.ops.mesh.primitive_cylinder_add(vertices=40, radius=p.size / 2000, depth=CHIP_MM / 1000)
        obj = bpy.context.object
        obj.data.materials.append(self._plastic(p.piece.colour))
        bevel = obj.modifiers.new("edge", "BEVEL")
        bevel.width, bevel.segments = 0.0006, 2
        self._place(obj, p.x, p.y, p.z + CHIP_MM / 2, p.yaw)

    def _figure(self, p: Placed) -> None:
        """A pawn: a base, a tapering body and a ball for a head."""
        bpy = self.bpy
        r = p.size / 2000
        mat = self._plastic(p.piece.colour)
        parts = []
        bpy.ops.mesh.primitive_cylinder_add(vertices=32, radius=0.85 * r, depth=0.003)
        parts.append((bpy.context.object, 1.5))
        body = FIGURE_MM - 3 - 1.6 * r * 1000 * 0.45
        bpy.ops.mesh.primitive_cone_add(vertices=32, radius1=0.6 * r, radius2=0.28 * r, depth=body / 1000)
        parts.append((bpy.context.object, 3 + body / 2))
        bpy.ops.mesh.primitive_uv_sphere_add(radius=0.45 * r, segments=24, ring_count=12)
        parts.append((bpy.context.object, FIGURE_MM - 0.45 * r * 1000))
        for obj, z in parts:
            obj.data.materials.append(mat)
            for poly in obj.data.polygons:
                poly.use_smooth = True
            self._place(obj, p.x, p.y, p.z + z, p.yaw)

    def _card(self, p: Placed) -> None:
        """A card: its face (colour and printed pips, as the flat camera paints it) on a thin
        sheet, flat or with its edges lifted a little."""
        side = p.size / 1000
        px = 96
        face = np.full((px, px, 3), bgr(p.piece.colour), np.uint8)
        pip_colour = PIP_ON_DARK if p.piece.colour in DARK_PIECES else PIP_ON_LIGHT
        if p.piece.pips:
            r = px / 2
            for dx, dy in PIP_LAYOUT.get(p.piece.pips, PIP_LAYOUT[6]):
                cv2.circle(face, (int(r + dx * r * 0.45), int(r + dy * r * 0.45)), max(2, int(r * 0.13)),
                           pip_colour, -1, cv2.LINE_AA)
        path = self._tmp / f"card-{p.piece.colour}-{p.piece.pips}.png"
        if not path.exists():
            cv2.imwrite(str(path), face)
        mat = self._material(path.stem, (1, 1, 1, 1), 0.45, 0.35, image=path)
        curl = p.curl / 1000
        obj = self._grid(f"card-{p.spot}", side, side, 8, lambda u, v: curl * (2 * u - 1) ** 2)
        obj.data.materials.append(mat)
        solid = obj.modifiers.new("sheet", "SOLIDIFY")
        solid.thickness = CARD_MM / 1000
        self._place(obj, p.x, p.y, p.z + CARD_MM, p.yaw)

    def _hand(self, hand: HandPose) -> None:
        """The forearm and the hand of ``hand`` (``render3d.HandPose``), in skin."""
        from mathutils import Matrix, Vector

        bpy = self.bpy
        skin = self._material(f"skin-{hand.skin}", _linear(SKIN_TONES[hand.skin]), 0.5, 0.4)
        elbow, wrist = (Vector(v / 1000) for v in world_mm(self.layout, np.array(hand.elbow_wrist())))
        d = wrist - elbow
        bpy.ops.mesh.primitive_cylinder_add(vertices=32, radius=hand.ARM_RADIUS_MM / 1000, depth=d.length,
                                            location=(elbow + wrist) / 2)
        arm = bpy.context.object
        arm.rotation_mode = "QUATERNION"
        arm.rotation_quaternion = d.to_track_quat("Z", "Y")
        centre, across, along, up = hand.hand_frame()
        (c,) = world_mm(self.layout, centre[None])
        axes = world_mm(self.layout, np.array([across, along, up])) - world_mm(self.layout, np.zeros((1, 3)))
        bpy.ops.mesh.primitive_uv_sphere_add(radius=1.0, segments=32, ring_count=16)
        palm = bpy.context.object
        m = Matrix.Identity(4)
        for j, (axis, half) in enumerate(zip(axes, hand.HAND_MM, strict=True)):
            for i in range(3):
                m[i][j] = float(axis[i]) * half / 1000
        for i in range(3):
            m[i][3] = float(c[i]) / 1000
        palm.matrix_world = m
        for obj in (arm, palm):
            obj.data.materials.append(skin)
            for poly in obj.data.polygons:
                poly.use_smooth = True

    def _lamps(self) -> None:
        """The scene's lamp (stood off its set's place by ``lamp_shift``; a row of them for a
        ceiling track) and a broad fill light opposite it, aimed at the board's centre."""
        from mathutils import Vector

        bpy = self.bpy
        lamp = LAMP_SETS[self.scene.lamp]
        at = Vector(lamp["at"]) + Vector(self.scene.lamp_shift)
        power = lamp["power"] * self.scene.lamp_gain
        fill_at = Vector((-lamp["at"][0], -lamp["at"][1] - 0.3, lamp["at"][2] + 0.2))
        # a row of lamps (a ceiling track's spots) stands along x, each aimed straight down at
        # its own pool; one lamp is aimed at the board's centre
        count, spacing = lamp.get("row", (1, 0.0))
        centre = Vector((0.0, 0.0, 0.0))
        beneath = [Vector(((k - (count - 1) / 2) * spacing, 0.0, 0.0)) for k in range(count)]
        placed = [("lamp", at + under, lamp["size"], power, under if count > 1 else centre)
                  for under in beneath]
        placed.append(("fill", fill_at, 1.5, lamp["power"] * lamp["fill"] * 2.5, centre))
        for name, where, size, energy, aim in placed:
            if name == "lamp" and "cone" in lamp:
                light = bpy.data.lights.new(name, "SPOT")
                light.shadow_soft_size = size
                light.spot_size, light.spot_blend = math.radians(lamp["cone"]), lamp.get("blend", 0.35)
            else:
                light = bpy.data.lights.new(name, "AREA")
                if isinstance(size, tuple):
                    light.shape = "RECTANGLE"
                    light.size, light.size_y = size
                else:
                    light.size = size
            light.energy, light.color = energy, lamp["rgb"]
            obj = bpy.data.objects.new(name, light)
            bpy.context.scene.collection.objects.link(obj)
            obj.location = where
            obj.rotation_mode = "QUATERNION"
            obj.rotation_quaternion = (aim - where).to_track_quat("-Z", "Y")
        world = bpy.data.worlds.new("room")
        world.use_nodes = True
        world.node_tree.nodes["Background"].inputs["Strength"].default_value = 0.08
        bpy.context.scene.world = world

    def _camera(self) -> None:
        from mathutils import Matrix

        bpy = self.bpy
        scene = self.scene
        cam = bpy.data.cameras.new("webcam")
        cam.sensor_fit, cam.sensor_width = "HORIZONTAL", 36.0
        cam.lens = scene.focal_px * 36.0 / scene.width
        cam.clip_start, cam.clip_end = 0.05, 10.0
        obj = bpy.data.objects.new("webcam", cam)
        bpy.context.scene.collection.objects.link(obj)
        rot_cv = cv2.Rodrigues(self.camera.rvec)[0] @ np.diag([1.0, -1.0, -1.0])  # world -> OpenCV camera
        axes = rot_cv.T @ np.diag([1.0, -1.0, -1.0])  # columns: Blender camera's x, y, z in the world
        m = Matrix.Identity(4)
        for i in range(3):
            for j in range(3):
                m[i][j] = float(axes[i, j])
            m[i][3] = float(self.camera.position_mm[i]) / 1000
        obj.matrix_world = m
        bpy.context.scene.camera = obj

    # ------------------------------------------------------------------ render
    def build(self, placed: list[Placed]) -> None:
        """Blender's empty scene, then the board, the pieces, the hand, the lamps and the camera,
        and the render settings (see ``CYCLES``)."""
        bpy = self.bpy
        bpy.ops.wm.read_factory_settings(use_empty=True)
        scene = bpy.context.scene
        scene.render.engine = "CYCLES"
        for name, value in {**CYCLES, "samples": self.scene.samples}.items():
            setattr(scene.cycles, name, value)
        scene.render.threads_mode, scene.render.threads = "FIXED", self.threads
        scene.render.resolution_x, scene.render.resolution_y = self.scene.width, self.scene.height
        scene.render.resolution_percentage = 100
        scene.view_settings.view_transform = "Standard"
        scene.view_settings.look = "None"
        scene.render.image_settings.file_format = "OPEN_EXR"
        scene.render.image_settings.color_depth = "32"
        self._board()
        for p in placed:
            {"die": self._die, "chip": self._chip, "figure": self._figure, "card": self._card}[p.kind](p)
        if self.hand is not None:
            self._hand(self.hand)
        self._lamps()
        self._camera()

    def shoot(self) -> np.ndarray:
        """Render the scene built: linear BGR light, top row first."""
        bpy = self.bpy
        out = self._tmp / "frame.exr"
        bpy.context.scene.render.filepath = str(out)
        bpy.ops.render.render(write_still=True)
        image = bpy.data.images.load(str(out))
        w, h = image.size
        pixels = np.empty(w * h * 4, np.float32)
        image.pixels.foreach_get(pixels)
        bpy.data.images.remove(image)
        rgba = pixels.reshape(h, w, 4)[::-1]
        return np.ascontiguousarray(rgba[..., 2::-1])

    def render(self, placed: list[Placed]) -> tuple[np.ndarray, dict[str, float]]:
        """Build the scene and render it: linear BGR light (top row first), and the seconds it
        took, on the clock and of CPU (every thread of this process: the load does not count)."""
        t0, cpu0 = time.perf_counter(), time.process_time()
        self.build(placed)
        linear = self.shoot()
        return linear, {"render_seconds": round(time.perf_counter() - t0, 1),
                        "render_cpu_seconds": round(time.process_time() - cpu0, 1)}


def render(layout: Layout, view: BoardView, scene: Scene3D, stacks: dict[str, list[Piece]] | None = None,
           game: str = "", players: int = 0, threads: int = 2) -> tuple[np.ndarray, dict[str, Any]]:
    """One frame of ``view`` on ``layout`` in ``scene``, and its truth.  Needs ``bpy``.
    Its files (the print's texture, the card faces, the rendered light) live in a temporary
    folder that goes with the frame."""
    rng = random.Random(f"pieces:{scene.seed}")
    placed = plan_pieces(layout, view, stacks, rng)
    camera = pinhole_for(layout, scene)
    hand = HandPose.drawn(layout, random.Random(f"hand:{scene.seed}"), scene.skin) if scene.hand else None
    with tempfile.TemporaryDirectory(prefix="render3d-") as workdir:
        table = BlenderTable(layout, scene, camera, Path(workdir), threads, hand)
        linear, cost = table.render(placed)
    frame = finish(linear, camera, scene)
    info = truth(layout, view, stacks, scene, camera, placed, game, players)
    info["hand"] = None
    if hand is not None:
        covered, partly = covered_places(layout, camera, hand, placed)
        info["hand"] = {**hand.to_json(), "covered": covered, "partly_covered": partly}
    info.update(cost)
    return frame, info
