"""``annostore.Client``: Annostore's API v2 from Python, with nothing beyond the standard library."""

from __future__ import annotations

import base64
import hashlib
import os
import time
import uuid
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Sequence, Union

from .errors import AnnostoreError, TaskFailed
from .transport import Transport, multipart

PathLike = Union[str, "os.PathLike[str]"]

# The server takes at most this many hashes a hash check, and files an upload request.
HASH_CHECK_BATCH = 10_000
UPLOAD_BATCH_FILES = 100
UPLOAD_BATCH_BYTES = 32 * 1024 * 1024
ENDED = {"finished", "error", "stopped"}


def sha256_base64(data: bytes) -> str:
    """An image's hash as the server names it: the SHA-256 of its bytes, in base64."""
    return base64.b64encode(hashlib.sha256(data).digest()).decode("ascii")


class Client:
    """One server and one API key.

    >>> client = Client("http://127.0.0.1:8080", "as_...")
    >>> [p["title"] for p in client.projects()]
    """

    def __init__(self, url: str, key: str, *, timeout: float = 60.0, retries: int = 5):
        self.url = url.rstrip("/")
        self.http = Transport(self.url, key, timeout=timeout, retries=retries)

    # --- Who am I -----------------------------------------------------------------------------

    def me(self) -> Dict[str, Any]:
        """The key's team, user and scope."""
        return self.http.json("GET", "/v2/me")

    # --- Lists ----------------------------------------------------------------------------------

    def paginate(self, path: str, **query: Any) -> Iterator[Dict[str, Any]]:
        """Every item of a v2 list, following its cursors a page at a time."""
        query = {"limit": 1000, **query}
        while True:
            page = self.http.json("GET", path, query=query)
            yield from page["items"]
            if not page.get("nextCursor"):
                return
            query = {**query, "cursor": page["nextCursor"]}

    # --- Projects, datasets, classes, tags -------------------------------------------------------

    def projects(self) -> Iterator[Dict[str, Any]]:
        return self.paginate("/v2/projects")

    def project(self, project_id: int) -> Dict[str, Any]:
        return self.http.json("GET", f"/v2/projects/{int(project_id)}")

    def create_project(self, title: str, description: str = "") -> Dict[str, Any]:
        body: Dict[str, Any] = {"title": title}
        if description:
            body["description"] = description
        return self.http.json("POST", "/v2/projects", body, idempotency_key=_new_key())

    def delete_project(self, project_id: int) -> None:
        self.http.request("DELETE", f"/v2/projects/{int(project_id)}")

    def datasets(self, project_id: Optional[int] = None) -> Iterator[Dict[str, Any]]:
        return self.paginate("/v2/datasets", projectId=project_id)

    def create_dataset(self, project_id: int, title: str) -> Dict[str, Any]:
        return self.http.json("POST", f"/v2/projects/{int(project_id)}/datasets", {"title": title}, idempotency_key=_new_key())

    def classes(self, project_id: int) -> Iterator[Dict[str, Any]]:
        return self.paginate(f"/v2/projects/{int(project_id)}/classes")

    def create_class(self, project_id: int, title: str, shape: str, color: Optional[str] = None) -> Dict[str, Any]:
        body: Dict[str, Any] = {"title": title, "shape": shape}
        if color:
            body["color"] = color
        return self.http.json("POST", f"/v2/projects/{int(project_id)}/classes", body, idempotency_key=_new_key())

    def tags(self, project_id: int) -> Iterator[Dict[str, Any]]:
        return self.paginate(f"/v2/projects/{int(project_id)}/tags")

    # --- Images -----------------------------------------------------------------------------------

    def images(self, *, project_id: Optional[int] = None, dataset_id: Optional[int] = None, **filters: Any) -> Iterator[Dict[str, Any]]:
        """The images of a project or a dataset (exactly one), with the list's filters by their API names
        (``classId``, ``tagId``, ``annotated``, ``sort``...)."""
        if (project_id is None) == (dataset_id is None):
            raise ValueError("give exactly one of project_id and dataset_id")
        return self.paginate("/v2/images", projectId=project_id, datasetId=dataset_id, **filters)

    def image(self, image_id: int) -> Dict[str, Any]:
        return self.http.json("GET", f"/v2/images/{int(image_id)}")

    def image_bytes(self, image_id: int) -> bytes:
        """The image's bytes exactly as uploaded."""
        return self.http.request("GET", f"/v2/images/{int(image_id)}/file", headers={"Accept": "*/*"}).body

    def thumbnail(self, image_id: int, size: int = 256) -> bytes:
        """A WebP fitted inside ``size`` x ``size`` (256 or 1024)."""
        return self.http.request("GET", f"/v2/images/{int(image_id)}/thumbnail", query={"size": size}, headers={"Accept": "*/*"}).body

    def upload_images(self, dataset_id: int, files: Sequence[PathLike]) -> List[Dict[str, Any]]:
        """Adds image files to a dataset (named by their file names), 100 a request; each request's
        images are made all or none."""
        made: List[Dict[str, Any]] = []
        for batch in _batches([Path(f) for f in files]):
            body, content_type = multipart((f"file{i}", path.name, path.read_bytes()) for i, path in enumerate(batch))
            answer = self.http.json("POST", f"/v2/datasets/{int(dataset_id)}/images", body=body,
                                    headers={"Content-Type": content_type}, idempotency_key=_new_key())
            made += answer["items"]
        return made

    def delete_image(self, image_id: int) -> None:
        self.http.request("DELETE", f"/v2/images/{int(image_id)}")

    # --- Annotations --------------------------------------------------------------------------------

    def annotation(self, image_id: int) -> Dict[str, Any]:
        """The image's annotation (objects with their ids, tags, description); its ETag in ``["etag"]``."""
        answer = self.http.request("GET", f"/v2/images/{int(image_id)}/annotation")
        return {**answer.json(), "etag": answer.headers.get("etag")}

    def put_annotation(self, image_id: int, annotation: Dict[str, Any], if_match: Optional[str] = None) -> Dict[str, Any]:
        """Replaces the annotation; with ``if_match`` only if nobody changed it since that ETag
        (else ``PreconditionFailed``)."""
        body = {k: v for k, v in annotation.items() if k in ("objects", "tags", "description")}
        headers = {"If-Match": if_match} if if_match else None
        answer = self.http.request("PUT", f"/v2/images/{int(image_id)}/annotation", body=_json_bytes(body),
                                   headers={"Content-Type": "application/json", **(headers or {})})
        return {**answer.json(), "etag": answer.headers.get("etag")}

    # --- Versions -----------------------------------------------------------------------------------

    def versions(self, project_id: int) -> Iterator[Dict[str, Any]]:
        """The project's versions, oldest first."""
        return self.paginate(f"/v2/projects/{int(project_id)}/versions")

    def version(self, version_id: int) -> Dict[str, Any]:
        """A version: its classes with their stable ``index``, tags, subsets and counts."""
        return self.http.json("GET", f"/v2/versions/{int(version_id)}")

    def create_version(self, project_id: int, name: str, *, description: str = "", dataset_ids: Optional[Sequence[int]] = None,
                       split: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        """Freezes the project (or some datasets) as a version; ``split`` as in docs/api-v2.md, e.g.
        ``{"method": "random", "ratios": {"train": 0.8, "val": 0.2}, "seed": 1}``."""
        body: Dict[str, Any] = {"name": name}
        if description:
            body["description"] = description
        if dataset_ids:
            body["datasetIds"] = [int(d) for d in dataset_ids]
        if split:
            body["split"] = split
        return self.http.json("POST", f"/v2/projects/{int(project_id)}/versions", body, idempotency_key=_new_key())

    def version_images(self, version_id: int, subset: Optional[str] = None) -> Iterator[Dict[str, Any]]:
        """The version's images in image id order, each with its annotation as it was; of one subset when given."""
        return self.paginate(f"/v2/versions/{int(version_id)}/images", subset=subset)

    def version_image_bytes(self, version_id: int, image_id: int) -> bytes:
        """The bytes of an image as the version holds them, even after the image was deleted."""
        return self.http.request("GET", f"/v2/versions/{int(version_id)}/images/{int(image_id)}/file", headers={"Accept": "*/*"}).body

    def delete_version(self, version_id: int) -> None:
        self.http.request("DELETE", f"/v2/versions/{int(version_id)}")

    # --- Imports ------------------------------------------------------------------------------------

    def missing_hashes(self, hashes: Sequence[str]) -> List[str]:
        """Of these image hashes, the ones the server does not have yet."""
        missing: List[str] = []
        for start in range(0, len(hashes), HASH_CHECK_BATCH):
            chunk = list(hashes[start:start + HASH_CHECK_BATCH])
            missing += self.http.json("POST", "/v2/imports/hash-check", {"hashes": chunk}, idempotency_key=_new_key())["missing"]
        return missing

    def import_images(self, folder: PathLike, *, project_id: Optional[int] = None, project_title: Optional[str] = None,
                      on_conflict: str = "ignore", wait: bool = True) -> Dict[str, Any]:
        """Imports a folder of images (one dataset per subfolder, ``ds0`` for those at the top) into a
        project (a new one named ``project_title`` when ``project_id`` is None). Only images the server
        lacks are uploaded; the others are named by their hash. Answers the task (ended, when ``wait``)."""
        root = Path(folder)
        # The images at the top (dataset ds0) and one folder down (a dataset each), as the server reads them.
        files = sorted(p for p in root.rglob("*") if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES and len(p.relative_to(root).parts) <= 2)
        if not files:
            raise AnnostoreError(f"{root}: no image files")
        hashes = {p: sha256_base64(p.read_bytes()) for p in files}
        missing = set(self.missing_hashes(sorted(set(hashes.values()))))
        to_send: Dict[str, Path] = {}
        for path, digest in hashes.items():
            if digest in missing and digest not in to_send:
                to_send[digest] = path
        for batch in _batches(list(to_send.values())):
            parts = []
            for i, path in enumerate(batch):
                meta = {"id": str(i), "hash": hashes[path], "type": "image", "format": "images"}
                parts += [(str(i), None, _json_bytes(meta)), (f"{i}-file", path.name, path.read_bytes())]
            body, content_type = multipart(parts)
            results = self.http.json("POST", "/v2/imports/files", body=body, headers={"Content-Type": content_type},
                                     idempotency_key=_new_key())["files"]
            refused = [r for r in results if r.get("errors")]
            if refused:
                raise AnnostoreError(f"{len(refused)} file(s) refused, first: {batch[int(refused[0]['id'])]}: {refused[0]['errors'][0]['message']}")
        refs = [{"hash": hashes[p], "path": _import_path(root, p)} for p in files]
        project = {"id": project_id} if project_id is not None else {"id": None, "title": project_title or root.name}
        task = self.http.json("POST", "/v2/imports", {"project": project, "preset": 2, "onConflict": on_conflict, "files": refs},
                              idempotency_key=_new_key())["task"]
        return self.wait_task(task["id"]) if wait else task

    # --- Tasks and exports --------------------------------------------------------------------------

    def task(self, task_id: int) -> Dict[str, Any]:
        return self.http.json("GET", f"/v2/tasks/{int(task_id)}")

    def wait_task(self, task_id: int, timeout: Optional[float] = None, poll: float = 0.25) -> Dict[str, Any]:
        """Waits until the task ends; ``TaskFailed`` unless it finished."""
        deadline = None if timeout is None else time.monotonic() + timeout
        delay = poll
        while True:
            task = self.task(task_id)
            if task["status"] in ENDED:
                if task["status"] != "finished":
                    error = (task.get("meta") or {}).get("error") or {}
                    raise TaskFailed(f"task {task_id} ended {task['status']}: {error.get('message', '')}".rstrip(": "), task)
                return task
            if deadline is not None and time.monotonic() > deadline:
                raise AnnostoreError(f"task {task_id} still {task['status']} after {timeout} s")
            time.sleep(delay)
            delay = min(delay * 1.5, 2.0)

    def start_export(self, *, project_id: Optional[int] = None, dataset_ids: Optional[Sequence[int]] = None,
                     format: str = "supervisely", options: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
        """Starts an export (docs/exports.md); answers its task."""
        body: Dict[str, Any] = {"format": format}
        if project_id is not None:
            body["projectId"] = int(project_id)
        if dataset_ids:
            body["datasetIds"] = [int(d) for d in dataset_ids]
        if options:
            body["options"] = options
        return self.http.json("POST", "/v2/exports", body, idempotency_key=_new_key())["task"]

    def download_export(self, task_id: int, destination: PathLike, *, chunk_bytes: int = 1 << 20) -> Path:
        """Waits for the export, then downloads its archive to ``destination``. A download cut off is
        taken up where it stopped (a ``Range`` request) when called again with the same destination."""
        self.wait_task(task_id)
        target = Path(destination)
        partial = target.with_name(target.name + ".part")
        path = f"/v2/exports/{int(task_id)}/archive"
        for _attempt in range(self.http.retries + 1):
            have = partial.stat().st_size if partial.exists() else 0
            headers = {"Accept": "*/*"}
            if have:
                headers["Range"] = f"bytes={have}-"
            try:
                with self.http.open("GET", path, headers=headers) as response:
                    mode = "ab" if have and response.status == 206 else "wb"
                    with open(partial, mode) as out:
                        while True:
                            chunk = response.read(chunk_bytes)
                            if not chunk:
                                break
                            out.write(chunk)
                    total = _total_of(response.headers.get("Content-Range"), response.headers.get("Content-Length"), have if mode == "ab" else 0)
                if total is None or partial.stat().st_size >= total:
                    os.replace(partial, target)
                    return target
            except (ConnectionError, TimeoutError, OSError) as failure:
                if isinstance(failure, AnnostoreError):
                    raise
        raise AnnostoreError(f"export {task_id}: the archive could not be downloaded whole")

    def export(self, destination: PathLike, **kwargs: Any) -> Path:
        """Starts an export, follows it and downloads its archive: ``client.export("out.zip",
        project_id=7, format="coco")``."""
        return self.download_export(self.start_export(**kwargs)["id"], destination)


IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".webp", ".gif", ".bmp", ".tif", ".tiff", ".avif"}


def _import_path(root: Path, path: Path) -> str:
    return path.relative_to(root).as_posix()


def _batches(files: List[Path]) -> Iterator[List[Path]]:
    batch: List[Path] = []
    size = 0
    for path in files:
        length = path.stat().st_size
        if batch and (len(batch) >= UPLOAD_BATCH_FILES or size + length > UPLOAD_BATCH_BYTES):
            yield batch
            batch, size = [], 0
        batch.append(path)
        size += length
    if batch:
        yield batch


def _total_of(content_range: Optional[str], content_length: Optional[str], offset: int) -> Optional[int]:
    if content_range and "/" in content_range:
        tail = content_range.rsplit("/", 1)[1]
        return int(tail) if tail.isdigit() else None
    return offset + int(content_length) if content_length and content_length.isdigit() else None


def _json_bytes(value: Any) -> bytes:
    import json

    return json.dumps(value).encode("utf-8")


def _new_key() -> str:
    """An Idempotency-Key: a create sent again after a lost answer makes nothing twice."""
    return uuid.uuid4().hex
