"""``AnnostoreDataset``: a version of an Annostore project as a ``torch.utils.data.Dataset``.

NumPy, Pillow and PyTorch are needed here only (the client itself uses Python's standard library
alone); torchvision, when installed, decodes JPEG and PNG files (faster than Pillow does), Pillow the rest.

The dataset follows torchvision's conventions: an item is ``(image, target)``, the image a ``uint8``
tensor C x H x W (RGB) unless ``transform`` makes something else of it. The index of the version
(its classes and every image's annotation, metadata only) is read when the dataset is made; an image's
bytes are read when an item is, by whichever DataLoader worker reads it, and kept on disk under their
hash, so the next epoch reads them from there. Nothing is left open between calls (each request opens
and closes its own connection; each file is opened and closed where it is read), so the dataset
pickles cleanly and works under the ``fork`` and ``spawn`` start methods alike.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import math
import os
import tempfile
import urllib.parse
import zlib
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
import torch
from PIL import Image
from torch.utils.data import Dataset, get_worker_info

from ._handover import WorkerBatch
from .client import Client
from .errors import AnnostoreError

try:  # torchvision decodes JPEG and PNG straight to a C x H x W tensor; Pillow reads the rest.
    from torchvision.io import ImageReadMode, decode_image as _tv_decode
except ImportError:  # pragma: no cover - torchvision is optional
    _tv_decode = None

TASKS = ("detection", "instance-segmentation", "semantic-segmentation", "classification")
BACKGROUND = "__background__"
# Shapes that cover an area: the others (point, line...) have no mask and no box a detector can learn.
AREA_SHAPES = ("rectangle", "polygon", "bitmap")


class OfflineCacheMiss(AnnostoreError):
    """In offline mode, something the dataset needs (the version's index, an image) is not in the cache."""


def default_cache_dir() -> Path:
    """``$ANNOSTORE_CACHE``, else ``$XDG_CACHE_HOME/annostore``, else ``~/.cache/annostore``."""
    if os.environ.get("ANNOSTORE_CACHE"):
        return Path(os.environ["ANNOSTORE_CACHE"])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "annostore"


class AnnostoreDataset(Dataset):
    """A version's images of one subset, with targets for ``task``.

    ``version`` is the version's name or id; ``split`` a subset of it (``None``: every image).
    ``task`` is ``detection``, ``instance-segmentation``, ``semantic-segmentation`` or
    ``classification``. ``transform`` is called on the image tensor. ``cache_dir`` holds the images
    by hash and the version's index (``default_cache_dir()`` unless given); ``offline=True`` reads only
    that cache and never the network.
    """

    def __init__(self, client: Client, project: int, version: Union[str, int], split: Optional[str] = "train",
                 task: str = "detection", transform: Optional[Callable[[Any], Any]] = None,
                 cache_dir: Optional[Union[str, "os.PathLike[str]"]] = None, offline: bool = False):
        if task not in TASKS:
            raise ValueError(f"task must be one of {', '.join(TASKS)}, not {task!r}")
        self.client = client
        self.project = int(project)
        self.task = task
        self.split = split
        self.transform = transform
        self.offline = offline
        self.cache_dir = Path(cache_dir) if cache_dir is not None else default_cache_dir()
        index = self._read_index(version)
        self.version: Dict[str, Any] = index["version"]
        subsets = self.version.get("subsets") or {}
        if split is not None and split not in subsets:
            named = ", ".join(repr(s) for s in subsets) or "none"
            raise ValueError(f"version {self.version['name']!r} has no subset {split!r} (its subsets: {named}); split=None reads every image")
        self.images: List[Dict[str, Any]] = [i for i in index["images"] if split is None or i["subset"] == split]
        by_index = {c["index"]: c for c in self.version["classes"]}
        size = max(by_index, default=0) + 1
        # Titles by stable index: 0 is the background; an index a deleted class left unused is None.
        self.classes: List[Optional[str]] = [BACKGROUND] + [by_index[i]["title"] if i in by_index else None for i in range(1, size)]
        self._class_of: Dict[str, Tuple[int, str]] = {c["title"]: (c["index"], c["shape"]) for c in self.version["classes"]}
        self._class_by_id: Dict[int, Tuple[int, str]] = {c["classId"]: (c["index"], c["shape"]) for c in self.version["classes"]}

    # --- The index: fetched at construction, kept in the cache for offline use ---------------------

    def _index_dir(self) -> Path:
        server = hashlib.sha256(self.client.url.encode("utf-8")).hexdigest()[:16]
        return self.cache_dir / "versions" / server / f"project-{self.project}"

    def _index_path(self, version: Union[str, int]) -> Path:
        kind = "id" if isinstance(version, int) else "name"
        return self._index_dir() / f"{kind}-{urllib.parse.quote(str(version), safe='')}.json"

    def _read_index(self, version: Union[str, int]) -> Dict[str, Any]:
        path = self._index_path(version)
        if self.offline:
            try:
                return json.loads(path.read_text("utf-8"))
            except FileNotFoundError:
                raise OfflineCacheMiss(f"offline: version {version!r} of project {self.project} on {self.client.url} is not in the cache "
                                       f"{self.cache_dir} (read it once online with the same cache_dir)") from None
        described = self._find_version(version)
        images = list(self.client.version_images(described["id"]))
        index = {"version": described, "images": images}
        # Offline, the version is found by its id or its name: by id it never goes stale (a version never
        # changes); by name it is the version of that name last read online.
        for target in {self._index_path(described["id"]), self._index_path(described["name"])}:
            _write_atomically(target, json.dumps(index).encode("utf-8"))
        return index

    def _find_version(self, version: Union[str, int]) -> Dict[str, Any]:
        if isinstance(version, int):
            described = self.client.version(version)
            if described["projectId"] != self.project:
                raise ValueError(f"version {version} belongs to project {described['projectId']}, not {self.project}")
            return described
        for described in self.client.versions(self.project):
            if described["name"] == version:
                return described
        raise ValueError(f"project {self.project} has no version named {version!r}")

    # --- Items ---------------------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.images)

    def __getitem__(self, position: int) -> Tuple[Any, Any]:
        image = decode(self.image_bytes(position))
        height, width = int(image.shape[-2]), int(image.shape[-1])
        target = self.target(position, height, width)
        if self.transform is not None:
            image = self.transform(image)
        return image, target

    def image_bytes(self, position: int) -> bytes:
        """The image's bytes: from the cache when there, else from the server (then kept in the cache)."""
        entry = self.images[position]
        path = self.cache_dir / "blobs" / _file_name(entry["hash"])
        try:
            return path.read_bytes()
        except FileNotFoundError:
            pass
        if self.offline:
            raise OfflineCacheMiss(f"offline: image {entry['imageId']} ({entry['name']}) of version {self.version['name']!r} "
                                   f"is not in the cache {self.cache_dir} (read every item once online with the same cache_dir)")
        data = self.client.version_image_bytes(self.version["id"], entry["imageId"])
        if base64.b64encode(hashlib.sha256(data).digest()).decode("ascii") != entry["hash"]:
            raise AnnostoreError(f"image {entry['imageId']}: the bytes read do not match the version's hash")
        _write_atomically(path, data)
        return data

    def target(self, position: int, height: int, width: int) -> Any:
        """The target of the image at ``position`` for the dataset's task (an image of ``height`` x ``width``)."""
        entry = self.images[position]
        if self.task == "classification":
            return self._tag_class(entry)
        shapes = [s for s in (self._shape_of(o) for o in entry["objects"]) if s is not None]
        if self.task == "semantic-segmentation":
            canvas = np.zeros((height, width), dtype=np.int64)
            for shape in shapes:
                canvas[_rasterise(shape, height, width).astype(bool)] = shape[0]
            return torch.from_numpy(canvas)
        target: Dict[str, Any] = {
            "boxes": torch.tensor([_box_of(s, height, width) for s in shapes], dtype=torch.float32).reshape(-1, 4),
            "labels": torch.tensor([s[0] for s in shapes], dtype=torch.int64),
            "image_id": int(entry["imageId"]),
        }
        if self.task == "instance-segmentation":
            masks = [_rasterise(s, height, width) for s in shapes]
            target["masks"] = torch.from_numpy(np.stack(masks)) if masks else torch.zeros((0, height, width), dtype=torch.uint8)
        return target

    def _shape_of(self, obj: Dict[str, Any]) -> Optional[Tuple[int, str, Any]]:
        """``(class index, shape, geometry)`` of an object with an area; None for a point, a line, or a
        class the version does not hold."""
        known = self._class_of.get(obj.get("classTitle", ""))
        if known is None and obj.get("classId") is not None:
            known = self._class_by_id.get(obj["classId"])
        if known is None:
            return None
        index, class_shape = known
        if obj.get("bitmap"):
            return index, "bitmap", obj["bitmap"]
        shape = obj.get("geometryType") or class_shape
        exterior = (obj.get("points") or {}).get("exterior") or []
        if shape == "rectangle" and len(exterior) >= 2:
            return index, "rectangle", exterior
        if shape == "polygon" and len(exterior) >= 3:
            return index, "polygon", obj["points"]
        return None

    def _tag_class(self, entry: Dict[str, Any]) -> int:
        """The stable index of the first image tag (in the version's order) whose title is a class's title; 0 without one."""
        for tag in entry.get("tags") or []:
            known = self._class_of.get(tag["title"])
            if known is not None:
                return known[0]
        return 0


def collate(batch: Sequence[Tuple[Any, Any]]) -> Tuple[Tuple[Any, ...], Tuple[Any, ...]]:
    """A DataLoader's ``collate_fn`` for targets of different sizes (detection, instance masks):
    ``(images, targets)`` as two tuples, as torchvision's detection models take them. In a worker, the
    batch is handed to the main process as one piece per dtype (``_handover``), which gets the same
    tuples; an image there is a view into the batch's shared memory, kept while any of them is."""
    images_and_targets = tuple(zip(*batch))
    if get_worker_info() is None:
        return images_and_targets  # type: ignore[return-value]
    return WorkerBatch(images_and_targets)  # type: ignore[return-value]


def decode(data: bytes) -> torch.Tensor:
    """An image file's bytes as an RGB ``uint8`` tensor C x H x W."""
    if _tv_decode is not None and (data[:3] == b"\xff\xd8\xff" or data[:8] == b"\x89PNG\r\n\x1a\n"):
        return _tv_decode(torch.frombuffer(bytearray(data), dtype=torch.uint8), mode=ImageReadMode.RGB)
    with Image.open(io.BytesIO(data)) as picture:
        array = np.asarray(picture.convert("RGB"))
    return torch.from_numpy(array.copy()).permute(2, 0, 1).contiguous()


def _box_of(shape: Tuple[int, str, Any], height: int, width: int) -> List[float]:
    """x1, y1, x2, y2 in pixel coordinates (pixel x covers [x, x + 1)), inside the image: a rectangle's
    corners, a polygon's outer ring's extent, a bitmap's set pixels' extent (its last pixel + 1)."""
    _index, kind, geometry = shape
    if kind == "bitmap":
        mask, (ox, oy) = bitmap_mask(geometry)
        ys, xs = np.nonzero(mask)
        if len(xs) == 0:
            return [0.0, 0.0, 0.0, 0.0]
        x1, y1, x2, y2 = ox + xs.min(), oy + ys.min(), ox + xs.max() + 1, oy + ys.max() + 1
    else:
        exterior = geometry if kind == "rectangle" else geometry["exterior"]
        xs = [p[0] for p in exterior]
        ys = [p[1] for p in exterior]
        x1, y1, x2, y2 = min(xs), min(ys), max(xs), max(ys)
    return [float(min(max(x1, 0), width)), float(min(max(y1, 0), height)), float(min(max(x2, 0), width)), float(min(max(y2, 0), height))]


def _rasterise(shape: Tuple[int, str, Any], height: int, width: int) -> np.ndarray:
    """The shape's pixels as a ``uint8`` H x W array of 0 and 1: the pixels whose centre is inside it,
    as the server draws its own masks."""
    _index, kind, geometry = shape
    full = np.zeros((height, width), dtype=np.uint8)
    if kind == "bitmap":
        mask, (ox, oy) = bitmap_mask(geometry)
        h, w = mask.shape
        x0, y0, x1, y1 = max(ox, 0), max(oy, 0), min(ox + w, width), min(oy + h, height)
        if x1 > x0 and y1 > y0:
            full[y0:y1, x0:x1] = mask[y0 - oy:y1 - oy, x0 - ox:x1 - ox]
        return full
    if kind == "rectangle":
        xs = [p[0] for p in geometry]
        ys = [p[1] for p in geometry]
        x0, x1 = (max(0, min(width, math.ceil(v - 0.5))) for v in (min(xs), max(xs)))
        y0, y1 = (max(0, min(height, math.ceil(v - 0.5))) for v in (min(ys), max(ys)))
        full[y0:y1, x0:x1] = 1
        return full
    return fill_rings([geometry["exterior"], *(geometry.get("interior") or [])], height, width)


def fill_rings(rings: Sequence[Sequence[Sequence[float]]], height: int, width: int) -> np.ndarray:
    """The pixels whose centre is inside the rings by the even-odd rule (an outer ring filled, its holes
    cleared), as a ``uint8`` H x W array; the rule the server's own masks follow. Pillow's ImageDraw
    rounds the vertices and fills the edges too, which makes a 20-pixel square 21 pixels wide."""
    edges = [(ring[i - 1], ring[i]) for ring in rings if len(ring) >= 3 for i in range(len(ring))]
    full = np.zeros((height, width), dtype=np.uint8)
    if not edges:
        return full
    ends = np.array([[a[0], a[1], b[0], b[1]] for a, b in edges], dtype=np.float64)
    x0, y0, x1, y1 = ends.T
    first = max(0, math.ceil(min(y0.min(), y1.min()) - 0.5))
    last = min(height, math.ceil(max(y0.max(), y1.max()) - 0.5))
    if last <= first:
        return full
    centres = np.arange(first, last, dtype=np.float64)[:, None] + 0.5
    crosses = (y0 <= centres) != (y1 <= centres)
    with np.errstate(divide="ignore", invalid="ignore"):
        at = x0 + (centres - y0) * (x1 - x0) / (y1 - y0)
    rows, which = np.nonzero(crosses)
    # A crossing at x toggles every pixel whose centre is at or right of it: column ceil(x - 0.5) on.
    columns = np.clip(np.ceil(at[rows, which] - 0.5), 0, width).astype(np.int64)
    toggles = np.zeros((last - first, width + 1), dtype=np.int64)
    np.add.at(toggles, (rows, columns), 1)
    full[first:last] = (np.cumsum(toggles, axis=1)[:, :width] % 2).astype(np.uint8)
    return full


def bitmap_mask(bitmap: Dict[str, Any]) -> Tuple[np.ndarray, Tuple[int, int]]:
    """A Supervisely bitmap (base64 of zlib-compressed PNG, and the origin of its top-left corner) as a
    ``uint8`` 0/1 array of its own size, and that origin. A PNG with alpha is read by alpha, else by value."""
    png = zlib.decompress(base64.b64decode(bitmap["data"]))
    with Image.open(io.BytesIO(png)) as picture:
        if picture.mode in ("RGBA", "LA", "PA") or (picture.mode == "P" and "transparency" in picture.info):
            values = np.asarray(picture.convert("RGBA"))[:, :, 3]
        else:
            values = np.asarray(picture.convert("L"))
    origin = bitmap.get("origin") or [0, 0]
    return (values > 0).astype(np.uint8), (int(origin[0]), int(origin[1]))


def _file_name(digest: str) -> str:
    """A hash (base64, which has ``/`` and ``+``) as a file name: the same bytes in base64url without padding."""
    return digest.replace("+", "-").replace("/", "_").rstrip("=")


def _write_atomically(path: Path, data: bytes) -> None:
    """Writes a temporary file beside ``path`` and renames it over: a reader (another worker, another
    run) sees the whole file or none."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".part-")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except FileNotFoundError:
            pass
        raise


__all__: Sequence[str] = ["AnnostoreDataset", "OfflineCacheMiss", "bitmap_mask", "collate", "decode", "default_cache_dir"]
