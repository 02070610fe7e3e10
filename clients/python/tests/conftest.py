"""A real Annostore server for the tests: ``node bin/annostore.js serve`` on a free port, with its own
data folder (SQLite and local blobs) and a known admin key. ``ANNOSTORE_NODE`` names the Node binary
(the test runner that calls pytest sets it), else ``node`` on PATH."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import annostore  # noqa: E402

REPO = Path(__file__).resolve().parents[3]
KEY = "ak_python-client-tests-0000000000"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def server():
    data = tempfile.mkdtemp(prefix="annostore-python-")
    port = _free_port()
    env = {**os.environ, "DATA_DIR": data, "PORT": str(port), "HOST": "127.0.0.1", "ANNOSTORE_API_KEY": KEY, "LOG_LEVEL": "warn"}
    node = os.environ.get("ANNOSTORE_NODE", "node")
    log = open(Path(data) / "server.log", "wb")
    child = subprocess.Popen([node, str(REPO / "bin" / "annostore.js"), "serve"], cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 180  # a loaded machine starts Node slowly
    while True:
        if child.poll() is not None:
            raise RuntimeError(f"server exited: {(Path(data) / 'server.log').read_text()}")
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=2):
                break
        except OSError:
            if time.monotonic() > deadline:
                child.kill()
                raise
            time.sleep(0.2)
    yield url
    child.terminate()
    child.wait(timeout=30)
    log.close()
    shutil.rmtree(data, ignore_errors=True)


@pytest.fixture
def client(server) -> annostore.Client:
    return annostore.Client(server, KEY)
