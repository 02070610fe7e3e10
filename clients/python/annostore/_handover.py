"""A batch's tensors handed from a DataLoader worker to the main process in one piece per dtype.

A worker's batch reaches the main process pickled, and PyTorch pickles each tensor alone: every tensor
gets a shared-memory file of its own, filled through a mapping page fault by page fault, and the main
process fetches each file's descriptor over a socket of its own. For a detection batch of 32 that is
96 files and 96 fetches (an image, its boxes and its labels each), most for a few bytes; and faulting
in a 640 x 480 image's pages cost more than decoding its JPEG (bench/README.md, "The Python loader").
Here the batch's tensors of one dtype travel as one flat piece: one shared file written with
``pwrite`` (the kernel fills the pages without a fault each) when large, the pickle's own bytes when
small. The main process gets views of it: the same shapes, strides, dtypes and values, in the same
tuples, lists and dicts.
"""

from __future__ import annotations

import os
from typing import Any, Dict, List, Optional, Tuple

import torch
import torch.multiprocessing

# Below this, a dtype's tensors travel inside the pickle: a shared file and the fetch of its descriptor
# cost more than copying a few kilobytes through the worker's pipe.
SHARED_MIN_BYTES = 64 * 1024


class _Slot:
    """Where a tensor is: its flat, where its memory starts in it, its shape and strides (its elements
    were copied in the order they lay in memory, so the same strides find them again)."""

    __slots__ = ("flat", "offset", "shape", "stride")

    def __init__(self, flat: int, offset: int, shape: Tuple[int, ...], stride: Tuple[int, ...]):
        self.flat, self.offset, self.shape, self.stride = flat, offset, shape, stride

    def __reduce__(self):
        return (_Slot, (self.flat, self.offset, self.shape, self.stride))


class WorkerBatch(tuple):
    """A tuple that pickles as a few flat pieces and a skeleton, and unpickles as a plain tuple of the
    same contents. Only a worker's batch is one: in the main process nothing is pickled."""

    def __reduce__(self):
        return pack(tuple(self))


def _in_memory_order(value: Any) -> Optional[torch.Tensor]:
    """The tensor's elements as they lie in memory, as a row-major view, for a plain CPU tensor whose elements fill a block of memory without gaps or overlaps (row-major, channels-last
    as torchvision's decode_jpeg gives, any permutation of a block); None for anything else (a subclass,
    a slice with gaps, a tensor needing grad...), which PyTorch pickles as it always does."""
    if not (type(value) is torch.Tensor and value.layout == torch.strided and value.device.type == "cpu"
            and not value.requires_grad and not value.is_quantized and not value.is_conj() and not value.is_neg()
            and value.names.count(None) == value.dim()):
        return None
    order = tuple(sorted(range(value.dim()), key=lambda d: -value.stride(d)))
    ordered = value.permute(order)
    return ordered if ordered.is_contiguous() else None


def pack(batch: Any) -> Tuple[Any, Tuple[Any, List[Any]]]:
    """``(unpack, (skeleton, flats))``: a ``__reduce__`` value for ``batch``."""
    groups: Dict[torch.dtype, List[torch.Tensor]] = {}
    sizes: Dict[torch.dtype, int] = {}
    numbers: Dict[torch.dtype, int] = {}
    seen: Dict[int, _Slot] = {}

    def strip(node: Any) -> Any:
        if id(node) in seen:  # the same tensor twice stays one tensor
            return seen[id(node)]
        ordered = _in_memory_order(node)
        if ordered is not None:
            slot = _Slot(numbers.setdefault(node.dtype, len(numbers)), sizes.get(node.dtype, 0), tuple(node.shape), tuple(node.stride()))
            groups.setdefault(node.dtype, []).append(ordered)
            sizes[node.dtype] = slot.offset + node.numel()
            seen[id(node)] = slot
            return slot
        kind = type(node)
        if kind is tuple or kind is WorkerBatch:
            return tuple(strip(child) for child in node)
        if kind is list:
            return [strip(child) for child in node]
        if kind is dict:
            return {key: strip(child) for key, child in node.items()}
        return node

    skeleton = strip(batch)
    flats: List[Any] = [None] * len(numbers)
    for dtype, tensors in groups.items():
        flats[numbers[dtype]] = _flatten(tensors, dtype, sizes[dtype])
    return (unpack, (skeleton, flats))


def _flatten(tensors: List[torch.Tensor], dtype: torch.dtype, numel: int) -> Any:
    """The tensors (each row-major) one after another: a tensor in shared memory when large, else their
    bytes as a NumPy array and the dtype, which pickle by value (NumPy lacks some of PyTorch's dtypes,
    not bytes)."""
    nbytes = numel * torch.empty(0, dtype=dtype).element_size()
    if nbytes < SHARED_MIN_BYTES:
        return _bytes_of(torch.cat([t.reshape(-1) for t in tensors])).numpy(), dtype
    if not hasattr(torch, "UntypedStorage"):  # pragma: no cover - before PyTorch 1.13: one more copy
        return torch.cat([t.reshape(-1) for t in tensors]).share_memory_()
    storage = torch.UntypedStorage._new_shared(nbytes)
    out = torch.empty(0, dtype=dtype).set_(storage, 0, (numel,), (1,))
    if torch.multiprocessing.get_sharing_strategy() == "file_descriptor":
        fd, _size = storage._share_fd_cpu_()
        offset = 0
        for tensor in tensors:
            view = memoryview(_bytes_of(tensor.reshape(-1)).numpy())
            while view:  # a write may take less than it was given
                written = os.pwrite(fd, view, offset)
                view, offset = view[written:], offset + written
    else:  # the file_system strategy names the file and gives no descriptor: written through the mapping
        torch.cat([t.reshape(-1) for t in tensors], out=out)
    return out


def _bytes_of(flat: torch.Tensor) -> torch.Tensor:
    """A one-dimensional tensor's memory as ``uint8``, without a copy."""
    return flat if flat.dtype == torch.uint8 else flat.view(torch.uint8)


def unpack(skeleton: Any, flats: List[Any]) -> Any:
    """The batch again, in the main process: each tensor a view of its flat."""
    flats = [f if isinstance(f, torch.Tensor) else torch.from_numpy(f[0]).view(f[1]) for f in flats]
    made: Dict[int, torch.Tensor] = {}  # by slot: a tensor that was twice in the batch is one again

    def build(node: Any) -> Any:
        if type(node) is _Slot:
            if id(node) not in made:
                made[id(node)] = flats[node.flat].as_strided(node.shape, node.stride, node.offset)
            return made[id(node)]
        kind = type(node)
        if kind is tuple:
            return tuple(build(child) for child in node)
        if kind is list:
            return [build(child) for child in node]
        if kind is dict:
            return {key: build(child) for key, child in node.items()}
        return node

    return build(skeleton)
