"""Images a second through DataLoader(num_workers=2): AnnostoreDataset from a warm cache against a floor,
a minimal Dataset that reads the same JPEG files from a local folder and decodes them with the same
function (annostore.torch.decode). Run by bench/python-loader.ts, which seeds the server; prints one
JSON line: {"ours": [images/s per round], "floor": [...], "oursCpu": [images per CPU-second], "floorCpu": [...],
"decodeCpu": [...], "serialCpu": [...]}. The CPU time is the parent's and its workers' (reaped at the
end of each epoch): on a machine shared with other work it says what the same epoch costs, whatever the
others take. Two ceilings, measured in this process alone (no workers) in each round: the same files
read and decoded in a tight loop (decodeCpu), and that with each batch of 32 handed over as a worker
hands it to the main process, pickled and unpickled (serialCpu). Two cores do at most twice either.

    python3 bench/python-loader.py URL KEY PROJECT VERSION FOLDER CACHE ROUNDS BATCH
"""

import json
import pickle
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "clients" / "python"))

import torch  # noqa: E402
from multiprocessing.reduction import ForkingPickler  # noqa: E402
from torch.utils.data import DataLoader, Dataset  # noqa: E402

import annostore  # noqa: E402
from annostore._handover import WorkerBatch  # noqa: E402
from annostore.torch import AnnostoreDataset, collate, decode  # noqa: E402


class Folder(Dataset):
    """The floor: a file's bytes from a local folder, decoded; no target."""

    def __init__(self, folder):
        self.files = sorted(Path(folder).glob("*.jpg"))

    def __len__(self):
        return len(self.files)

    def __getitem__(self, position):
        return decode(self.files[position].read_bytes()), position


def cpu_seconds():
    own = resource.getrusage(resource.RUSAGE_SELF)
    workers = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + workers.ru_utime + workers.ru_stime


def rate(dataset, batch):
    """(images a second, images a CPU-second) of one epoch."""
    loader = DataLoader(dataset, batch_size=batch, num_workers=2, collate_fn=collate, persistent_workers=False)
    # The workers' start (forking) is timed too: an epoch costs it in training as well.
    started, cpu = time.perf_counter(), cpu_seconds()
    count = 0
    for images, _targets in loader:
        count += len(images)
    del loader  # its workers are joined, so their CPU time is counted
    return count / (time.perf_counter() - started), count / (cpu_seconds() - cpu)


def serial(folder, batch, handover):
    """Images a CPU-second of the floor's work in this process alone: each file read and decoded and,
    with ``handover``, each batch pickled as a DataLoader worker pickles it (tensors to shared memory)
    and unpickled and let go as the main process does."""
    files = sorted(Path(folder).glob("*.jpg"))
    cpu = cpu_seconds()
    for start in range(0, len(files), batch):
        items = [(decode(f.read_bytes()), position) for position, f in enumerate(files[start:start + batch], start)]
        if handover:
            pickle.loads(ForkingPickler.dumps(WorkerBatch(collate(items))))
    return len(files) / (cpu_seconds() - cpu)


def main():
    url, key, project, version, folder, cache, rounds, batch = sys.argv[1:9]
    torch.set_num_threads(1)
    client = annostore.Client(url, key)
    ours = AnnostoreDataset(client, project=int(project), version=version, split=None, cache_dir=cache)
    floor = Folder(folder)
    assert len(ours) == len(floor), (len(ours), len(floor))
    rate(ours, int(batch))  # warms the cache: every image read once over the network
    result = {"ours": [], "floor": [], "oursCpu": [], "floorCpu": [], "decodeCpu": [], "serialCpu": [], "images": len(floor)}
    for _ in range(int(rounds)):
        result["decodeCpu"].append(serial(folder, int(batch), handover=False))
        result["serialCpu"].append(serial(folder, int(batch), handover=True))
        for name, dataset in (("floor", floor), ("ours", ours)):
            per_second, per_cpu_second = rate(dataset, int(batch))
            result[name].append(per_second)
            result[name + "Cpu"].append(per_cpu_second)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
