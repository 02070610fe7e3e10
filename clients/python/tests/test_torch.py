"""annostore.torch.AnnostoreDataset against a real server: targets checked against the annotations for
every shape, DataLoader workers under fork and spawn, the disk cache and offline mode, and a version
that stays as it was while the project changes."""

from __future__ import annotations

import base64
import io
import multiprocessing
import os
import pickle
import re
import shutil
import subprocess
import sys
import uuid
import zlib
from pathlib import Path

import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed for this python3 (apt-get install python3-torch): the loader's tests skipped")
np = pytest.importorskip("numpy")
Image = pytest.importorskip("PIL.Image")

import annostore  # noqa: E402
from annostore.torch import AnnostoreDataset, OfflineCacheMiss, collate, decode, default_cache_dir  # noqa: E402

REPO = Path(__file__).resolve().parents[3]

W, H = 64, 48

# A 6 x 4 bitmap whose set pixels are not a rectangle, so a wrong origin or a wrong axis shows.
BITMAP = np.array([[0, 1, 1, 0, 0, 0],
                   [1, 1, 1, 1, 0, 0],
                   [0, 0, 1, 1, 1, 0],
                   [0, 0, 0, 0, 1, 1]], dtype=np.uint8)
BITMAP_ORIGIN = (45, 5)


def bitmap_data(mask: "np.ndarray") -> str:
    """A Supervisely bitmap's data: base64 of zlib-compressed PNG bytes of a 1-bit mask."""
    out = io.BytesIO()
    Image.fromarray(mask.astype(bool)).save(out, format="PNG")
    return base64.b64encode(zlib.compress(out.getvalue())).decode("ascii")


def picture(seed: int) -> bytes:
    """A PNG of W x H whose pixels vary, so the decoded tensor can be checked pixel by pixel."""
    rng = np.random.default_rng(seed)
    out = io.BytesIO()
    Image.fromarray(rng.integers(0, 256, size=(H, W, 3), dtype=np.uint8)).save(out, format="PNG")
    return out.getvalue()


def rect(title, l, t, r, b):
    return {"classTitle": title, "points": {"exterior": [[l, t], [r, b]], "interior": []}}


RING = {"classTitle": "road", "points": {"exterior": [[20, 20], [40, 20], [40, 40], [20, 40]],
                                         "interior": [[[25, 25], [35, 25], [35, 35], [25, 35]]]}}
TREE = {"classTitle": "tree", "bitmap": {"origin": list(BITMAP_ORIGIN), "data": bitmap_data(BITMAP)}, "points": {"exterior": [], "interior": []}}
POLE = {"classTitle": "pole", "points": {"exterior": [[0, 0], [10, 10]], "interior": []}}
SIGN = {"classTitle": "sign", "points": {"exterior": [[30, 5]], "interior": []}}


def expected_masks():
    """The masks the annotations of the first image mean, worked out here without the loader."""
    car = np.zeros((H, W), np.uint8)
    car[3:10, 2:12] = 1
    road = np.zeros((H, W), np.uint8)
    road[20:40, 20:40] = 1
    road[25:35, 25:35] = 0
    tree = np.zeros((H, W), np.uint8)
    tree[5:9, 45:51] = BITMAP
    return car, road, tree


@pytest.fixture(scope="module")
def world(server, tmp_path_factory):
    """A project with every shape, image tags, two datasets, and a version split by dataset."""
    client = annostore.Client(server, "ak_python-client-tests-0000000000")
    project = client.create_project(f"torch-{uuid.uuid4().hex[:8]}")
    pid = project["id"]
    for title, shape in [("car", "rectangle"), ("road", "polygon"), ("tree", "bitmap"), ("pole", "line"), ("sign", "point")]:
        client.create_class(pid, title, shape)
    client.http.json("POST", f"/v2/projects/{pid}/tags", {"title": "car", "scope": "images"})
    client.http.json("POST", f"/v2/projects/{pid}/tags", {"title": "sunny", "scope": "images"})
    train = client.create_dataset(pid, "train")
    val = client.create_dataset(pid, "val")
    folder = tmp_path_factory.mktemp("pictures")
    files = []
    for i in range(8):
        path = folder / f"p{i}.png"
        path.write_bytes(picture(i))
        files.append(path)
    train_images = client.upload_images(train["id"], files[:6])
    val_images = client.upload_images(val["id"], files[6:])
    first = train_images[0]["id"]
    client.put_annotation(first, {"objects": [rect("car", 2, 3, 12, 10), RING, TREE, POLE, SIGN], "tags": ["sunny", "car"]})
    # Overlapping objects: in a semantic mask the later one is drawn over the earlier.
    client.put_annotation(train_images[1]["id"], {"objects": [rect("car", 0, 0, 30, 30),
                                                                {"classTitle": "road", "points": {"exterior": [[10, 10], [20, 10], [20, 20], [10, 20]], "interior": []}}]})
    client.put_annotation(val_images[0]["id"], {"objects": [rect("car", 5, 5, 15, 15)]})
    version = client.create_version(pid, "v1", split={"method": "datasets"})
    return {"client": client, "project": pid, "version": version, "train_dataset": train["id"], "folder": folder, "train": train_images, "val": val_images,
            "files": {m["id"]: f for m, f in zip(train_images + val_images, files)}}


def index_of(dataset, title):
    return dataset.classes.index(title)


def test_detection_targets_match_the_annotations_and_lines_and_points_are_left_out(world, tmp_path):
    ds = AnnostoreDataset(world["client"], project=world["project"], version="v1", split="train", task="detection", cache_dir=tmp_path)
    assert len(ds) == 6
    assert [i["imageId"] for i in ds.images] == sorted(m["id"] for m in world["train"]), "in image id order"
    assert ds.classes[0] == "__background__"
    assert sorted(ds.classes[1:]) == ["car", "pole", "road", "sign", "tree"]
    assert {c["title"]: c["index"] for c in world["version"]["classes"]} == {t: i for i, t in enumerate(ds.classes) if i}
    image, target = ds[0]
    assert image.dtype == torch.uint8 and tuple(image.shape) == (3, H, W)
    original = np.array(Image.open(world["files"][world["train"][0]["id"]]).convert("RGB"))
    assert torch.equal(image, torch.from_numpy(original).permute(2, 0, 1))
    assert target["image_id"] == world["train"][0]["id"]
    assert target["boxes"].dtype == torch.float32 and target["labels"].dtype == torch.int64
    assert target["boxes"].tolist() == [[2, 3, 12, 10], [20, 20, 40, 40], [45, 5, 51, 9]]
    assert target["labels"].tolist() == [index_of(ds, "car"), index_of(ds, "road"), index_of(ds, "tree")]
    _, empty = ds[2]
    assert tuple(empty["boxes"].shape) == (0, 4) and tuple(empty["labels"].shape) == (0,)


def test_instance_masks_are_the_shapes_pixels_holes_cleared_and_bitmaps_placed_at_their_origin(world, tmp_path):
    ds = AnnostoreDataset(world["client"], project=world["project"], version="v1", split="train", task="instance-segmentation", cache_dir=tmp_path)
    _, target = ds[0]
    masks = target["masks"]
    assert masks.dtype == torch.uint8 and tuple(masks.shape) == (3, H, W)
    for got, want in zip(masks, expected_masks()):
        assert np.array_equal(got.numpy(), want)
    # Each box is its mask's extent, its last pixel + 1 (torchvision's masks_to_boxes gives the last pixel).
    from torchvision.ops import masks_to_boxes

    assert torch.equal(masks_to_boxes(masks) + torch.tensor([0, 0, 1, 1]), target["boxes"])
    _, empty = ds[2]
    assert tuple(empty["masks"].shape) == (0, H, W)


def test_a_semantic_mask_holds_class_indices_the_later_object_drawn_over_the_earlier(world, tmp_path):
    ds = AnnostoreDataset(world["client"], project=world["project"], version="v1", split="train", task="semantic-segmentation", cache_dir=tmp_path)
    _, first = ds[0]
    assert first.dtype == torch.int64 and tuple(first.shape) == (H, W)
    want = np.zeros((H, W), np.int64)
    for title, mask in zip(["car", "road", "tree"], expected_masks()):
        want[mask.astype(bool)] = index_of(ds, title)
    assert np.array_equal(first.numpy(), want)
    _, second = ds[1]
    assert second[15, 15].item() == index_of(ds, "road") and second[5, 5].item() == index_of(ds, "car") and second[40, 40].item() == 0


def test_classification_takes_the_index_of_the_first_image_tag_named_as_a_class(world, tmp_path):
    ds = AnnostoreDataset(world["client"], project=world["project"], version="v1", split="train", task="classification", cache_dir=tmp_path)
    assert ds[0][1] == index_of(ds, "car"), "'sunny' names no class; 'car' does"
    assert ds[1][1] == 0, "no tag names a class: the background's 0"


def test_transform_is_applied_to_the_image_and_splits_and_tasks_are_checked(world, tmp_path):
    ds = AnnostoreDataset(world["client"], project=world["project"], version=world["version"]["id"], split="val", cache_dir=tmp_path,
                          transform=lambda image: image.float() / 255)
    image, target = ds[0]
    assert image.dtype == torch.float32 and float(image.max()) <= 1.0
    assert target["boxes"].tolist() == [[5, 5, 15, 15]]
    everything = AnnostoreDataset(world["client"], project=world["project"], version="v1", split=None, cache_dir=tmp_path)
    assert len(everything) == 8
    with pytest.raises(ValueError, match="no subset 'test'"):
        AnnostoreDataset(world["client"], project=world["project"], version="v1", split="test", cache_dir=tmp_path)
    with pytest.raises(ValueError, match="no version named 'nope'"):
        AnnostoreDataset(world["client"], project=world["project"], version="nope", cache_dir=tmp_path)
    with pytest.raises(ValueError, match="task must be one of"):
        AnnostoreDataset(world["client"], project=world["project"], version="v1", task="keypoints", cache_dir=tmp_path)


def open_descriptors() -> set:
    return set(os.listdir("/proc/self/fd"))


def test_making_the_dataset_leaves_nothing_open_and_it_pickles(world, tmp_path):
    before = open_descriptors()
    ds = AnnostoreDataset(world["client"], project=world["project"], version="v1", split="train", task="instance-segmentation", cache_dir=tmp_path)
    assert open_descriptors() == before, "no socket or file is left open for a fork to inherit"
    copy = pickle.loads(pickle.dumps(ds))
    assert [i["imageId"] for i in copy.images] == [i["imageId"] for i in ds.images]
    assert torch.equal(copy[0][1]["masks"], ds[0][1]["masks"])


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_a_dataloader_with_two_workers_reads_every_item_under_each_start_method(world, tmp_path, method):
    ds = AnnostoreDataset(world["client"], project=world["project"], version="v1", split="train", task="instance-segmentation", cache_dir=tmp_path)
    loader = torch.utils.data.DataLoader(ds, batch_size=2, num_workers=2, collate_fn=collate,
                                         multiprocessing_context=multiprocessing.get_context(method))
    seen = {}
    for images, targets in loader:
        assert len(images) == len(targets) <= 2
        for image, target in zip(images, targets):
            seen[target["image_id"]] = (image, target)
    assert sorted(seen) == sorted(m["id"] for m in world["train"])
    for position, entry in enumerate(ds.images):
        image, target = ds[position]
        got_image, got_target = seen[entry["imageId"]]
        assert torch.equal(got_image, image)
        assert torch.equal(got_target["boxes"], target["boxes"]) and torch.equal(got_target["masks"], target["masks"])
    assert len(list((tmp_path / "blobs").iterdir())) == 6, "the workers cached each image once, under its hash"
    assert not [p for p in (tmp_path / "blobs").iterdir() if p.name.startswith(".part-")], "no temporary file left behind"


class CountingClient(annostore.Client):
    """Counts the image reads that go to the server."""

    reads = 0

    def version_image_bytes(self, version_id, image_id):
        CountingClient.reads += 1
        return super().version_image_bytes(version_id, image_id)


def test_the_second_epoch_reads_no_image_over_the_network_and_offline_mode_reads_the_cache_only(world, server, tmp_path):
    client = CountingClient(server, "ak_python-client-tests-0000000000")
    ds = AnnostoreDataset(client, project=world["project"], version="v1", split="train", cache_dir=tmp_path)
    CountingClient.reads = 0
    first = [ds[i] for i in range(len(ds))]
    assert CountingClient.reads == 6
    second = [ds[i] for i in range(len(ds))]
    assert CountingClient.reads == 6, "the second epoch read every image from the cache"
    assert all(torch.equal(a[0], b[0]) for a, b in zip(first, second))

    # Offline, against a server that is not there: the index and the images come from the cache alone.
    nowhere = annostore.Client(world["client"].url, "ak_wrong-key-0000000000000000000")
    nowhere.http.base = "http://127.0.0.1:9"
    offline = AnnostoreDataset(nowhere, project=world["project"], version="v1", split="train", cache_dir=tmp_path, offline=True)
    assert offline.classes == ds.classes
    loader = torch.utils.data.DataLoader(offline, batch_size=3, num_workers=2, collate_fn=collate)
    assert sum(len(images) for images, _ in loader) == 6
    by_id = AnnostoreDataset(nowhere, project=world["project"], version=world["version"]["id"], split="train", cache_dir=tmp_path, offline=True)
    assert torch.equal(by_id[0][0], first[0][0])

    with pytest.raises(OfflineCacheMiss, match="not in the cache"):
        AnnostoreDataset(nowhere, project=world["project"], version="v1", cache_dir=tmp_path / "empty", offline=True)
    val = AnnostoreDataset(nowhere, project=world["project"], version="v1", split="val", cache_dir=tmp_path, offline=True)
    with pytest.raises(OfflineCacheMiss, match=r"image \d+ \(p6.png\)"):
        val[0]


def test_the_training_loop_of_the_docs_runs(world, server, tmp_path):
    """The ten-line loop of docs/python.md, run as written against this server's project."""
    text = (REPO / "docs" / "python.md").read_text("utf-8")
    loop = next(block for block in re.findall(r"```python\n(.*?)```", text, re.S) if "AnnostoreDataset(" in block)
    readme = (REPO / "clients" / "python" / "README.md").read_text("utf-8")
    assert loop in readme, "the package's README shows the same loop"
    loop = loop.replace('"http://127.0.0.1:8080", "ak_…"', f'"{server}", "ak_python-client-tests-0000000000"').replace("project=7", f"project={world['project']}")
    loop += "\nprint('loss', float(loss))\n"
    env = {**os.environ, "ANNOSTORE_CACHE": str(tmp_path), "PYTHONPATH": str(REPO / "clients" / "python")}
    run = subprocess.run([sys.executable, "-c", loop], env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert re.search(r"^loss \d", run.stdout, re.M)
    assert len(list((tmp_path / "blobs").iterdir())) == 6, "the default cache is $ANNOSTORE_CACHE"


def test_pip_installs_the_package_with_its_loader(tmp_path):
    source = tmp_path / "source"
    shutil.copytree(REPO / "clients" / "python", source, ignore=shutil.ignore_patterns("tests", "__pycache__", "build", "*.egg-info"))
    target = tmp_path / "site"
    pip = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-index", "--no-deps", "--no-build-isolation", "--target", str(target), str(source)],
                         capture_output=True, text=True, timeout=300)
    if pip.returncode != 0 and "No module named pip" in pip.stderr:
        pytest.skip("pip is not installed for this python3")
    assert pip.returncode == 0, pip.stderr
    check = subprocess.run([sys.executable, "-c", "import annostore, annostore.torch; print(annostore.__file__)"],
                           cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(target)}, capture_output=True, text=True, timeout=120)
    assert check.returncode == 0, check.stderr
    assert check.stdout.strip().startswith(str(target))


@pytest.mark.parametrize("torchvision_there", [True, False])
def test_decode_gives_three_channels_whatever_the_file(monkeypatch, torchvision_there):
    import annostore.torch as loader

    if not torchvision_there:
        monkeypatch.setattr(loader, "_tv_decode", None)
    for mode, fmt in [("L", "PNG"), ("RGBA", "PNG"), ("RGB", "WEBP"), ("RGB", "JPEG"), ("P", "GIF")]:
        out = io.BytesIO()
        Image.new(mode, (5, 4), 60 if mode in ("L", "P") else (10, 20, 30, 255)[: len(mode)]).save(out, format=fmt)
        image = decode(out.getvalue())
        assert image.dtype == torch.uint8 and tuple(image.shape) == (3, 4, 5), (mode, fmt)
        assert torch.equal(image, torch.from_numpy(np.array(Image.open(io.BytesIO(out.getvalue())).convert("RGB"))).permute(2, 0, 1)), (mode, fmt)


def test_the_default_cache_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("ANNOSTORE_CACHE", str(tmp_path / "a"))
    assert default_cache_dir() == tmp_path / "a"
    monkeypatch.delenv("ANNOSTORE_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "xdg" / "annostore"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_cache_dir() == tmp_path / "home" / ".cache" / "annostore"


def test_a_version_reads_the_same_after_the_project_is_edited_and_its_images_deleted(world, tmp_path):
    client = world["client"]
    project = world["project"]
    before = AnnostoreDataset(client, project=project, version="v1", split=None, task="instance-segmentation", cache_dir=tmp_path / "before")
    items = [before[i] for i in range(len(before))]

    # Another project-level state: an annotation cleared, a class renamed, images deleted, one added.
    first = world["train"][0]["id"]
    client.put_annotation(first, {"objects": []})
    car = next(c for c in client.classes(project) if c["title"] == "car")
    client.http.json("PATCH", f"/v2/classes/{car['id']}", {"title": "automobile"})
    for image in world["val"]:
        client.delete_image(image["id"])
    with pytest.raises(annostore.NotFound):
        client.image_bytes(world["val"][0]["id"])
    late = world["folder"] / "late.png"
    late.write_bytes(picture(99))
    assert client.upload_images(world["train_dataset"], [late])

    after = AnnostoreDataset(client, project=project, version="v1", split=None, task="instance-segmentation", cache_dir=tmp_path / "after")
    assert after.classes == before.classes
    assert [i["imageId"] for i in after.images] == [i["imageId"] for i in before.images]
    for (image, target), position in zip(items, range(len(after))):
        again_image, again = after[position]
        assert torch.equal(again_image, image), "the bytes come by the version's hash, deleted images too"
        assert torch.equal(again["boxes"], target["boxes"]) and torch.equal(again["masks"], target["masks"])
        assert torch.equal(again["labels"], target["labels"])

    # A version made now leaves the index of a deleted class unused.
    pole = next(c for c in client.classes(project) if c["title"] == "pole")
    client.http.request("DELETE", f"/v2/classes/{pole['id']}", query={"cascade": "true"})
    client.create_version(project, "v2")
    v2 = AnnostoreDataset(client, project=project, version="v2", split=None, cache_dir=tmp_path / "after")
    assert v2.classes[before.classes.index("pole")] is None
    assert v2.classes.index("automobile") == before.classes.index("car"), "a renamed class keeps its index"
