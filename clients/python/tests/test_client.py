"""annostore.Client against a real server: what a user's script does, checked by what it reads back."""

from __future__ import annotations

import http.server
import socket
import io
import threading
import time
import uuid
import zipfile
from pathlib import Path

import pytest

import annostore
from pictures import png


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def test_me_names_the_team_and_the_key_scope(client):
    me = client.me()
    assert me["key"]["scope"] == "admin"
    assert isinstance(me["team"]["id"], int)


def test_projects_datasets_classes_and_images_are_made_and_listed(client, tmp_path):
    project = client.create_project(unique("py"))
    dataset = client.create_dataset(project["id"], "train")
    car = client.create_class(project["id"], "car", "rectangle", "#ff0000")
    files = []
    for i in range(5):
        f = tmp_path / f"img_{i}.png"
        f.write_bytes(png(8, 6, seed=i + 1))
        files.append(f)
    made = client.upload_images(dataset["id"], files)
    assert [m["name"] for m in made] == [f"img_{i}.png" for i in range(5)]
    assert [(m["width"], m["height"]) for m in made] == [(8, 6)] * 5

    # Cursors are followed: five images read two a page arrive once each, in id order.
    listed = list(client.paginate("/v2/images", datasetId=dataset["id"], limit=2))
    assert [i["id"] for i in listed] == sorted(m["id"] for m in made)
    assert [p["id"] for p in client.projects() if p["id"] == project["id"]] == [project["id"]]
    assert [d["title"] for d in client.datasets(project["id"])] == ["train"]
    assert [(c["title"], c["shape"], c["color"]) for c in client.classes(project["id"])] == [("car", "rectangle", car["color"])]

    # The bytes come back exactly as sent, and a thumbnail is a WebP.
    assert client.image_bytes(made[2]["id"]) == files[2].read_bytes()
    assert client.thumbnail(made[2]["id"])[8:12] == b"WEBP"
    assert client.image(made[0]["id"])["hash"] == annostore.sha256_base64(files[0].read_bytes())


def test_an_annotation_is_written_under_if_match_and_a_stale_etag_is_refused(client, tmp_path):
    project = client.create_project(unique("ann"))
    dataset = client.create_dataset(project["id"], "ds")
    client.create_class(project["id"], "box", "rectangle", "#00aa00")
    f = tmp_path / "a.png"
    f.write_bytes(png(20, 10, seed=99))
    image = client.upload_images(dataset["id"], [f])[0]

    first = client.annotation(image["id"])
    assert first["objects"] == []
    box = {"classTitle": "box", "points": {"exterior": [[1, 2], [11, 8]], "interior": []}}
    saved = client.put_annotation(image["id"], {**first, "objects": [box]}, if_match=first["etag"])
    assert [o["points"]["exterior"] for o in saved["objects"]] == [[[1, 2], [11, 8]]]
    assert client.annotation(image["id"])["objects"][0]["classTitle"] == "box"

    with pytest.raises(annostore.PreconditionFailed) as refused:
        client.put_annotation(image["id"], {"objects": []}, if_match=first["etag"])
    assert refused.value.status == 412
    assert refused.value.problem["etag"] == saved["etag"]
    assert len(client.annotation(image["id"])["objects"]) == 1, "the refused write changed nothing"


def test_problems_become_exceptions_with_their_details(client):
    with pytest.raises(annostore.NotFound) as missing:
        client.project(2_000_000_000)
    assert missing.value.code == "NOT_FOUND"
    with pytest.raises(annostore.ValidationError) as invalid:
        client.start_export(project_id=client.create_project(unique("bad"))["id"], format="tiff")
    assert invalid.value.errors[0]["pointer"] == "/format"
    with pytest.raises(annostore.Unauthorized):
        annostore.Client(client.url, "ak_not-a-key-of-this-server").me()


def test_import_uploads_only_images_the_server_lacks(client, tmp_path, monkeypatch):
    folder = tmp_path / "street"
    for dataset, seeds in {"day": [11, 12, 13], "night": [14, 15]}.items():
        (folder / dataset).mkdir(parents=True)
        for seed in seeds:
            (folder / dataset / f"s{seed}.png").write_bytes(png(12, 12, seed=seed))
    uploads = []
    real_json = client.http.json

    def counting(method, path, payload=None, **kwargs):
        if path == "/v2/imports/files":
            uploads.append(kwargs["body"].count(b"-file\"; filename="))
        return real_json(method, path, payload, **kwargs)

    monkeypatch.setattr(client.http, "json", counting)
    title = unique("imported")
    task = client.import_images(folder, project_title=title)
    assert task["status"] == "finished"
    assert sum(uploads) == 5
    project = next(p for p in client.projects() if p["title"] == title)
    names = {d["title"]: sorted(i["name"] for i in client.images(dataset_id=d["id"])) for d in client.datasets(project["id"])}
    assert names == {"day": ["s11.png", "s12.png", "s13.png"], "night": ["s14.png", "s15.png"]}

    # The same folder again, into a new project: every image is named by its hash, none is sent.
    uploads.clear()
    again = client.import_images(folder, project_title=unique("again"))
    assert again["status"] == "finished"
    assert uploads == []


def test_an_export_is_followed_and_downloaded_and_a_cut_download_resumes(client, tmp_path):
    project = client.create_project(unique("exp"))
    dataset = client.create_dataset(project["id"], "ds")
    client.create_class(project["id"], "box", "rectangle", "#00aa00")
    files = []
    for i in range(3):
        f = tmp_path / f"e{i}.png"
        f.write_bytes(png(16, 16, seed=200 + i))
        files.append(f)
    images = client.upload_images(dataset["id"], files)
    client.put_annotation(images[0]["id"], {"objects": [{"classTitle": "box", "points": {"exterior": [[0, 0], [5, 5]], "interior": []}}]})

    archive = client.export(tmp_path / "whole.zip", project_id=project["id"], format="supervisely")
    whole = archive.read_bytes()
    with zipfile.ZipFile(io.BytesIO(whole)) as z:
        names = set(z.namelist())
        assert "meta.json" in names
        assert {"ds/img/e0.png", "ds/ann/e0.png.json"} <= names

    # A download cut off after 100 bytes is taken up from there with a Range request.
    task = client.start_export(project_id=project["id"], format="supervisely")
    client.wait_task(task["id"])
    target = tmp_path / "resumed.zip"
    first = client.http.request("GET", f"/v2/exports/{task['id']}/archive", headers={"Accept": "*/*"}).body
    Path(str(target) + ".part").write_bytes(first[:100])
    client.download_export(task["id"], target)
    assert target.read_bytes() == first
    assert not Path(str(target) + ".part").exists()


class _Busy(http.server.BaseHTTPRequestHandler):
    """A server that asks the first request to come back in one second (429, Retry-After: 1)."""

    seen: list = []

    def do_GET(self):  # noqa: N802 (http.server's name)
        _Busy.seen.append(time.monotonic())
        if len(_Busy.seen) == 1:
            body = b'{"code":"RATE_LIMITED","status":429,"detail":"slow down"}'
            self.send_response(429)
            self.send_header("Retry-After", "1")
        else:
            body = b'{"team":{"id":1},"key":{"scope":"read"}}'
            self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_a_429_is_sent_again_after_its_retry_after():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Busy)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        _Busy.seen.clear()
        me = annostore.Client(f"http://127.0.0.1:{server.server_address[1]}", "ak_whatever-key").me()
        assert me["key"]["scope"] == "read"
        assert len(_Busy.seen) == 2
        assert 0.95 <= _Busy.seen[1] - _Busy.seen[0] < 3
    finally:
        server.shutdown()


def test_a_429_past_the_retries_is_raised_with_its_retry_after():
    class AlwaysBusy(_Busy):
        def do_GET(self):  # noqa: N802
            body = b'{"code":"RATE_LIMITED","status":429,"detail":"slow down"}'
            self.send_response(429)
            self.send_header("Retry-After", "0")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), AlwaysBusy)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with pytest.raises(annostore.RateLimited) as limited:
            annostore.Client(f"http://127.0.0.1:{server.server_address[1]}", "ak_whatever-key", retries=2).me()
        assert limited.value.retry_after == 0
    finally:
        server.shutdown()


def test_tags_a_read_key_and_deleting_a_project(client):
    project = client.create_project(unique("tags"))
    client.http.json("POST", f"/v2/projects/{project['id']}/tags", {"title": "night", "scope": "images"})
    assert [(t["title"], t["scope"]) for t in client.tags(project["id"])] == [("night", "images")]

    read_key = client.http.json("POST", "/v2/keys", {"scope": "read"})["key"]
    reader = annostore.Client(client.url, read_key)
    assert reader.project(project["id"])["title"] == project["title"]
    with pytest.raises(annostore.Forbidden):
        reader.create_project(unique("nope"))

    client.delete_project(project["id"])
    with pytest.raises(annostore.NotFound):
        client.project(project["id"])


def test_a_503_is_sent_again_with_backoff():
    class Restarting(_Busy):
        def do_GET(self):  # noqa: N802
            _Busy.seen.append(time.monotonic())
            if len(_Busy.seen) < 3:
                self.send_response(503)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            body = b'{"key":{"scope":"write"}}'
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Restarting)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        _Busy.seen.clear()
        assert annostore.Client(f"http://127.0.0.1:{server.server_address[1]}", "ak_whatever-key").me()["key"]["scope"] == "write"
        assert len(_Busy.seen) == 3
    finally:
        server.shutdown()


def test_a_refused_connection_is_tried_again_with_backoff_then_raised():
    # Nothing listens on this port: connecting fails, the read is tried again, then an AnnostoreError.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    started = time.monotonic()
    with pytest.raises(annostore.AnnostoreError):
        annostore.Client(f"http://127.0.0.1:{port}", "ak_whatever-key", retries=2).me()
    assert time.monotonic() - started >= 0.25, "two retries waited their backoff"
