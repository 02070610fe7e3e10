"""annostore.torch.collate through DataLoader workers: a batch reaches the main process as its items
were, whatever tensors they hold, while its tensors of one dtype travel in one piece."""

from __future__ import annotations

import multiprocessing

import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed for this python3 (apt-get install python3-torch): the loader's tests skipped")

from annostore.torch import collate  # noqa: E402


class Assorted(torch.utils.data.Dataset):
    """Items as a task or a transform may make them: large images laid out channels-last as
    torchvision's decode_jpeg gives them (shared memory) and small targets (inside the pickle), empty
    tensors, a bool, a bfloat16, a 0-d tensor, a tensor twice, transposed ones (one with a dimension of
    size 1 and an odd stride), a slice with gaps, and values that are not tensors, in tuples, lists and
    dicts."""

    def __len__(self) -> int:
        return 7

    def __getitem__(self, i: int):
        g = torch.Generator().manual_seed(i)
        image = torch.randint(0, 256, (100 + i, 160, 3), dtype=torch.uint8, generator=g).permute(2, 0, 1)
        labels = torch.arange(i, dtype=torch.int64)
        target = {
            "boxes": torch.rand(i, 4, generator=g),
            "labels": labels,
            "again": labels,
            "masks": torch.randint(0, 2, (i, 100 + i, 160), dtype=torch.uint8, generator=g),
            "image_id": i,
            "extra": [torch.tensor(i / 3, dtype=torch.bfloat16), torch.rand(2, 3, generator=g).t(),
                      torch.rand(5, 3, generator=g).t().unsqueeze(1), torch.rand(4, 6, generator=g)[::2, 1:],
                      torch.tensor([i % 2 == 0, True]), torch.tensor(float(i)), ("name", None)],
        }
        return image, target


def storage_of(tensor):
    """The tensor's memory block (``untyped_storage`` from PyTorch 2.0, ``storage`` before)."""
    return tensor.untyped_storage() if hasattr(tensor, "untyped_storage") else tensor.storage()


def same(got, want) -> None:
    assert type(got) is type(want), (type(got), type(want))
    if isinstance(want, torch.Tensor):
        assert got.dtype == want.dtype and got.shape == want.shape and got.stride() == want.stride()
        assert torch.equal(got, want)
    elif isinstance(want, dict):
        assert list(got) == list(want)
        for key in want:
            same(got[key], want[key])
    elif isinstance(want, (list, tuple)):
        assert len(got) == len(want)
        for a, b in zip(got, want):
            same(a, b)
    else:
        assert got == want


@pytest.mark.parametrize("method,strategy", [("fork", "file_descriptor"), ("spawn", "file_descriptor"), ("fork", "file_system")])
def test_a_batch_from_a_worker_holds_what_its_items_held(method, strategy):
    default = torch.multiprocessing.get_sharing_strategy()
    torch.multiprocessing.set_sharing_strategy(strategy)
    try:
        check_batches(method)
    finally:
        torch.multiprocessing.set_sharing_strategy(default)


def check_batches(method):
    data = Assorted()
    loader = torch.utils.data.DataLoader(data, batch_size=3, num_workers=2, collate_fn=collate,
                                         multiprocessing_context=multiprocessing.get_context(method))
    seen = 0
    for images, targets in loader:
        assert type(images) is tuple and type(targets) is tuple
        for image, target in zip(images, targets):
            want_image, want_target = data[target["image_id"]]
            same(image, want_image)
            same(target, want_target)
            assert target["again"] is target["labels"], "a tensor twice in an item is one tensor after"
            seen += 1
        # The handover's point: the batch's images came in one shared piece, not one file each.
        assert len({storage_of(image).data_ptr() for image in images}) == 1
        assert images[0].is_shared()
    assert seen == len(data)


def test_in_the_main_process_a_batch_is_the_items_as_they_are():
    data = Assorted()
    images, targets = collate([data[0], data[1]])
    assert images[1].data_ptr() != images[0].data_ptr() and not images[0].is_shared()
    same(targets[1], data[1][1])
