"""Low-poly 3-D primitives (ellipsoids, tapered tubes, boxes, thin lines) built into one mesh.

Every face is a quad of vertex indices (triangles repeat a vertex); each face remembers the
centre of its primitive, so its outward normal can be oriented without caring about winding,
and the part it belongs to (horse, rider, ...), so truth boxes and masks follow the parts.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

POLY, LINE = 0, 1


def slot(k: int, scale: float = 1.0) -> np.ndarray:
    """A colour placeholder: entry `k` of the palette given to Mesh.recoloured, times `scale`.

    Shapes are cached once per pose and coloured per object (coat, kit) without rebuilding.
    """
    return np.array([-(k + 1.0), scale, 0.0])


@dataclass
class Mesh:
    V: np.ndarray        # (N, 3) vertices
    F: np.ndarray        # (M, 4) vertex indices
    colour: np.ndarray   # (M, 3) BGR 0-255 (float), before shading
    part: np.ndarray     # (M,) int part code
    centre: np.ndarray   # (M, 3) centre of each face's primitive
    kind: np.ndarray     # (M,) POLY or LINE
    width: np.ndarray    # (M,) line width in yards (LINE faces)
    shade: np.ndarray    # (M,) 1 = lit normally, 0 = emissive (no shading)
    vprim: np.ndarray    # (N,) primitive index of each vertex (primitives are convex)
    vshadow: np.ndarray  # (N,) whether the vertex's primitive casts a shadow

    def transformed(self, A: np.ndarray, b: np.ndarray) -> "Mesh":
        """The mesh under x -> A x + b."""
        return Mesh(self.V @ A.T + b, self.F, self.colour, self.part, self.centre @ A.T + b,
                    self.kind, self.width, self.shade, self.vprim, self.vshadow)

    def recoloured(self, palette: np.ndarray) -> "Mesh":
        """A copy whose slot placeholders (see `slot`) take their colours from `palette` (K, 3)."""
        col = self.colour
        m = col[:, 0] < 0
        if m.any():
            col = col.copy()
            k = (-col[m, 0] - 1).astype(int)
            col[m] = np.asarray(palette, float)[k] * col[m, 1:2]
        return Mesh(self.V, self.F, col, self.part, self.centre, self.kind, self.width, self.shade, self.vprim,
                    self.vshadow)

    def select(self, faces: np.ndarray) -> "Mesh":
        """The sub-mesh of the faces where `faces` (bool mask) holds (vertices kept as they are)."""
        return Mesh(self.V, self.F[faces], self.colour[faces], self.part[faces], self.centre[faces],
                    self.kind[faces], self.width[faces], self.shade[faces], self.vprim, self.vshadow)

    def shadow_vertex_groups(self) -> list[np.ndarray]:
        """Vertex indices of each convex primitive that casts a shadow."""
        idx = np.flatnonzero(self.vshadow)
        if not len(idx):
            return []
        cuts = np.flatnonzero(np.diff(self.vprim[idx])) + 1
        return np.split(idx, cuts)


@lru_cache(maxsize=None)
def sphere_template(n_lon: int, n_lat: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Unit sphere: vertices, quad faces and each face's longitude index (for stripes)."""
    verts = [np.array([0.0, 0.0, -1.0])]
    for i in range(1, n_lat):
        phi = -np.pi / 2 + np.pi * i / n_lat
        for j in range(n_lon):
            th = 2 * np.pi * j / n_lon
            verts.append(np.array([np.cos(phi) * np.cos(th), np.cos(phi) * np.sin(th), np.sin(phi)]))
    verts.append(np.array([0.0, 0.0, 1.0]))
    V = np.array(verts)
    top = len(V) - 1

    def ring(i: int, j: int) -> int:
        if i == 0:
            return 0
        if i == n_lat:
            return top
        return 1 + (i - 1) * n_lon + (j % n_lon)

    faces, lon = [], []
    for i in range(n_lat):
        for j in range(n_lon):
            faces.append([ring(i, j), ring(i, j + 1), ring(i + 1, j + 1), ring(i + 1, j)])
            lon.append(j)
    return V, np.array(faces), np.array(lon)


class MeshBuilder:
    """Collects primitives in one coordinate frame, then `build()`s a Mesh."""

    def __init__(self) -> None:
        self._V: list[np.ndarray] = []
        self._F: list[np.ndarray] = []
        self._col: list[np.ndarray] = []
        self._part: list[np.ndarray] = []
        self._cen: list[np.ndarray] = []
        self._kind: list[np.ndarray] = []
        self._width: list[np.ndarray] = []
        self._shade: list[np.ndarray] = []
        self._vprim: list[np.ndarray] = []
        self._vshadow: list[np.ndarray] = []
        self._n = 0
        self._nprim = 0

    def _add(self, V, F, colour, part, centre, kind=POLY, width=0.0, shade=1.0, shadow=True) -> None:
        m = len(F)
        self._V.append(np.asarray(V, float))
        self._F.append(np.asarray(F) + self._n)
        col = np.asarray(colour, float)
        self._col.append(np.broadcast_to(col, (m, 3)) if col.ndim == 1 else col)
        self._part.append(np.full(m, part))
        self._cen.append(np.broadcast_to(np.asarray(centre, float), (m, 3)))
        self._kind.append(np.full(m, kind))
        self._width.append(np.full(m, width))
        self._shade.append(np.full(m, shade))
        self._vprim.append(np.full(len(V), self._nprim))
        self._vshadow.append(np.full(len(V), bool(shadow)))
        self._nprim += 1
        self._n += len(V)

    def ellipsoid(self, centre, axes, colour, part: int, lod: int = 1, rot: np.ndarray | None = None,
                  stripes: tuple | None = None, shadow: bool = True) -> None:
        """An ellipsoid; `rot` (3x3) orients its axes; `stripes` = (colour_a, colour_b) by longitude."""
        n_lon, n_lat = ((10, 6), (6, 4), (4, 3))[min(lod, 2)] if stripes is None else (12, 5)
        V, F, lon = sphere_template(n_lon, n_lat)
        V = V * np.asarray(axes, float)
        if rot is not None:
            V = V @ np.asarray(rot).T
        colours = colour
        if stripes is not None:
            colours = np.where((lon % 2 == 0)[:, None], np.asarray(stripes[0], float), np.asarray(stripes[1], float))
        self._add(V + np.asarray(centre, float), F, colours, part, centre, shadow=shadow)

    def tube(self, p0, p1, r0: float, r1: float, colour, part: int, sides: int = 6, shadow: bool = True) -> None:
        """A tapered open cylinder from p0 (radius r0) to p1 (radius r1)."""
        self.tubes(np.asarray(p0, float)[None], np.asarray(p1, float)[None], np.array([r0]), np.array([r1]),
                   np.asarray(colour, float)[None], part, sides, shadow)

    def tubes(self, P0: np.ndarray, P1: np.ndarray, r0: np.ndarray, r1: np.ndarray, colours: np.ndarray,
              part: int, sides: int = 6, shadow: bool = True) -> None:
        """Several tapered tubes at once (vectorised): (k, 3) ends, (k,) radii, (k, 3) colours."""
        P0, P1 = np.asarray(P0, float), np.asarray(P1, float)
        axis = P1 - P0
        L = np.sqrt((axis ** 2).sum(1))
        ok = L > 1e-9
        if not ok.all():
            P0, P1, axis, L = P0[ok], P1[ok], axis[ok], L[ok]
            r0, r1, colours = np.asarray(r0)[ok], np.asarray(r1)[ok], np.asarray(colours)[ok]
        if not len(L):
            return
        a = axis / L[:, None]
        # u = a x helper, helper = z (or x when a is near vertical)
        vert = np.abs(a[:, 2]) >= 0.9
        u = np.where(vert[:, None], np.column_stack([np.zeros(len(a)), a[:, 2], -a[:, 1]]),
                     np.column_stack([a[:, 1], -a[:, 0], np.zeros(len(a))]))
        u /= np.sqrt((u ** 2).sum(1))[:, None]
        v = np.column_stack([a[:, 1] * u[:, 2] - a[:, 2] * u[:, 1], a[:, 2] * u[:, 0] - a[:, 0] * u[:, 2],
                             a[:, 0] * u[:, 1] - a[:, 1] * u[:, 0]])
        th = 2 * np.pi * np.arange(sides) / sides
        ring = np.cos(th)[None, :, None] * u[:, None, :] + np.sin(th)[None, :, None] * v[:, None, :]  # (k,s,3)
        V0 = P0[:, None, :] + np.asarray(r0, float)[:, None, None] * ring
        V1 = P1[:, None, :] + np.asarray(r1, float)[:, None, None] * ring
        k = len(L)
        V = np.concatenate([V0, V1], 1)                    # (k, 2s, 3)
        j = np.arange(sides)
        F1 = np.stack([j, (j + 1) % sides, sides + (j + 1) % sides, sides + j], 1)
        F = (F1[None] + (2 * sides * np.arange(k))[:, None, None]).reshape(-1, 4)
        cen = np.repeat((P0 + P1) / 2, sides, axis=0)
        col = np.repeat(np.asarray(colours, float).reshape(k, 3), sides, axis=0)
        m = len(F)
        self._V.append(V.reshape(-1, 3))
        self._F.append(F + self._n)
        self._col.append(col)
        self._part.append(np.full(m, part))
        self._cen.append(cen)
        self._kind.append(np.full(m, POLY))
        self._width.append(np.zeros(m))
        self._shade.append(np.ones(m))
        self._vprim.append(np.repeat(self._nprim + np.arange(k), 2 * sides))
        self._vshadow.append(np.full(2 * sides * k, bool(shadow)))
        self._nprim += k
        self._n += len(V.reshape(-1, 3))

    def box(self, centre, half, colour, part: int, rot: np.ndarray | None = None) -> None:
        """A box with half-extents `half` along its (rotated) axes."""
        s = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float) * np.asarray(half, float)
        if rot is not None:
            s = s @ np.asarray(rot).T
        F = np.array([[0, 1, 3, 2], [4, 6, 7, 5], [0, 4, 5, 1], [2, 3, 7, 6], [0, 2, 6, 4], [1, 5, 7, 3]])
        self._add(s + np.asarray(centre, float), F, colour, part, centre)

    def line(self, p0, p1, width_yd: float, colour, part: int) -> None:
        """A thin straight stick drawn as an image-space line (mallet shafts)."""
        V = np.array([p0, p1], float)
        self._add(V, np.array([[0, 1, 1, 0]]), colour, part, V.mean(0), kind=LINE, width=width_yd, shadow=False)

    def build(self) -> Mesh:
        if not self._F:
            z3 = np.zeros((0, 3))
            return Mesh(z3, np.zeros((0, 4), int), z3, np.zeros(0, int), z3, np.zeros(0, int), np.zeros(0),
                        np.zeros(0), np.zeros(0, int), np.zeros(0, bool))
        return Mesh(np.concatenate(self._V), np.concatenate(self._F), np.concatenate(self._col),
                    np.concatenate(self._part), np.concatenate(self._cen), np.concatenate(self._kind),
                    np.concatenate(self._width), np.concatenate(self._shade), np.concatenate(self._vprim),
                    np.concatenate(self._vshadow))


def concat(meshes: list[Mesh]) -> Mesh:
    """One mesh from several (vertex indices renumbered)."""
    meshes = [m for m in meshes if len(m.F)]
    if not meshes:
        return MeshBuilder().build()
    offs = np.cumsum([0] + [len(m.V) for m in meshes[:-1]])
    poffs = np.cumsum([0] + [int(m.vprim.max()) + 1 for m in meshes[:-1]])
    return Mesh(np.concatenate([m.V for m in meshes]),
                np.concatenate([m.F + o for m, o in zip(meshes, offs)]),
                np.concatenate([m.colour for m in meshes]), np.concatenate([m.part for m in meshes]),
                np.concatenate([m.centre for m in meshes]), np.concatenate([m.kind for m in meshes]),
                np.concatenate([m.width for m in meshes]), np.concatenate([m.shade for m in meshes]),
                np.concatenate([m.vprim + o for m, o in zip(meshes, poffs)]),
                np.concatenate([m.vshadow for m in meshes]))
