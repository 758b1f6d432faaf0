"""Metatensor (.mtf) files: open as zero-copy read-only numpy views, save atomically, convert
from and to .npy, .npz and .safetensors (docs/metatensor-format.md, docs/python.md).

Errors are :class:`alknet.TensorError`; ``err.rule`` is the rule number of the format spec
(section 6) that the file breaks, 0 for errors that are not about the format (I/O, foreign
files, caller errors), and ``err.code`` its stable name (``"bad-magic"``).
"""

from __future__ import annotations

import builtins
import json
import os
from collections.abc import Iterator, Mapping
from typing import Any, Optional, Union

import numpy as np

from . import _native

_t = _native.tensor
TensorError = _native.TensorError
PathLike = Union[str, "os.PathLike[str]"]


class File(Mapping):
    """An open .mtf file: a mapping of tensor name -> read-only numpy array.

    Each array is a view into the file's memory mapping (no copy); its ``.base`` is the
    mapping, which stays alive as long as any array of it does, so an array may outlive the
    File. After :meth:`close` (or the ``with`` block), indexing the File raises ValueError.
    """

    def __init__(self, mapped: Any, path: str) -> None:
        self._mapped = mapped
        self._path = path
        self._names = tuple(mapped.names())
        self._known = frozenset(self._names)
        self._metadata: Optional[dict] = None

    @property
    def path(self) -> str:
        return self._path

    @property
    def closed(self) -> bool:
        return self._mapped is None

    def _open(self) -> Any:
        if self._mapped is None:
            raise ValueError(f"{self._path}: the file is closed (arrays taken before close stay valid)")
        return self._mapped

    def __getitem__(self, name: str) -> np.ndarray:
        m = self._open()
        if name not in self._known:
            raise KeyError(f"{self._path}: no tensor named {name!r}")
        return m.array(name)

    def __iter__(self) -> Iterator[str]:
        self._open()
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def __contains__(self, name: object) -> bool:
        return name in self._known

    def raw(self, name: str) -> np.ndarray:
        """The tensor's stored bytes as a read-only uint8 view, for any dtype (bf16, f8, q4_0...)."""
        m = self._open()
        if name not in self._known:
            raise KeyError(f"{self._path}: no tensor named {name!r}")
        return m.raw(name)

    def info(self, name: str) -> dict:
        """What the index says: name, dtype (spec name), shape, offset, byte_length, crc32c."""
        return self._open().info(name)

    @property
    def metadata(self) -> dict:
        """The file's metadata as Python values (bytes stay bytes, arrays become lists)."""
        if self._metadata is None:
            self._metadata = self._open().metadata()
        return dict(self._metadata)

    def verify(self) -> None:
        """Checks every padding byte (rule 31) and every stored checksum (rule 36)."""
        self._open().verify()

    def close(self) -> None:
        """Drops this File's reference to the mapping; arrays already taken keep it alive."""
        self._mapped = None

    def __enter__(self) -> "File":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else f"{len(self)} tensors"
        return f"<alknet.tensor.File {self._path!r} {state}>"


def open(path: PathLike, *, verify: bool = False) -> File:  # noqa: A001 (mirrors builtins.open)
    """Opens and validates a .mtf file (every rule of the spec) and maps it read-only.

    verify=True also checks the zero padding and every tensor's CRC32C while opening.
    """
    p = os.fspath(path)
    return File(_t.open_mtf(p, verify), p)


def load(path: PathLike) -> dict:
    """All tensors of a .mtf file as a dict of read-only zero-copy views."""
    with open(path) as f:
        return {name: f[name] for name in f}


def save(path: PathLike, tensors: Mapping, metadata: Optional[Mapping] = None, *,
         alignment: int = 256, checksums: bool = True, index_first: bool = False) -> None:
    """Writes tensors (name -> array-like) and metadata to a .mtf file, atomically.

    The bytes stream from each array into a temporary file beside ``path``, which is fsynced
    and renamed over it: ``path`` is never half-written. Non-contiguous arrays are copied
    first; big-endian ones must be converted (TypeError says how). Metadata values: bool,
    int, float, str, bytes or a non-empty list of one of bool/int/float/str. index_first puts
    the index before the data (receivers learn every shape first; no checksums then).
    """
    items = []
    for name, value in tensors.items():
        if not isinstance(name, str):
            raise TypeError(f"tensor names are str, given {type(name).__name__}")
        items.append((name, np.asarray(value)))
    _t.save_mtf(os.fspath(path), items, dict(metadata or {}), alignment, checksums, index_first)


_FOREIGN = (".npy", ".npz", ".safetensors")

# metatensor dtype names -> safetensors' (safetensors/src/tensor.rs, Dtype).
_SAFETENSORS = {
    "bool": "BOOL", "u8": "U8", "i8": "I8", "i16": "I16", "u16": "U16", "f16": "F16",
    "bf16": "BF16", "i32": "I32", "u32": "U32", "f32": "F32", "f64": "F64", "i64": "I64",
    "u64": "U64", "f8_e4m3fn": "F8_E4M3", "f8_e5m2": "F8_E5M2",
}


def _atomic(dst: str, write) -> None:
    tmp = f"{dst}.tmp-{os.getpid()}"
    try:
        with builtins.open(tmp, "wb") as out:
            write(out)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, dst)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _write_safetensors(f: File, dst: str) -> None:
    header: dict = {}
    offset = 0
    for name in f:
        info = f.info(name)
        st = _SAFETENSORS.get(info["dtype"])
        if st is None:
            raise TypeError(f"{f.path}: tensor {name!r} is {info['dtype']}, which safetensors cannot hold")
        header[name] = {"dtype": st, "shape": list(info["shape"]),
                        "data_offsets": [offset, offset + info["byte_length"]]}
        offset += info["byte_length"]
    meta = {k.removeprefix("safetensors."): v for k, v in f.metadata.items() if isinstance(v, str)}
    if meta:
        header["__metadata__"] = meta
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)  # the data buffer starts 8-byte aligned, as the reference writes

    def write(out):
        out.write(len(text).to_bytes(8, "little"))
        out.write(text)
        for name in f:
            out.write(memoryview(f.raw(name)))

    _atomic(dst, write)


def convert(src: PathLike, dst: PathLike, *, alignment: int = 256, index_first: bool = False) -> int:
    """Converts between .mtf and .npy/.npz/.safetensors; returns the number of tensors.

    - .npy, .npz (np.savez, uncompressed) or .safetensors -> .mtf: validated, then streamed
      into an atomic writer (as ``alknet tensor convert``).
    - .mtf -> .safetensors: every tensor, metadata strings as __metadata__.
    - .mtf -> .npz: every tensor with a numpy dtype (np.savez).
    - .mtf -> .npy: a one-tensor file; .mtf -> an existing directory: NAME.npy per tensor.
    """
    s, d = os.fspath(src), os.fspath(dst)
    s_ext, d_ext = os.path.splitext(s)[1], os.path.splitext(d)[1]
    if s_ext in _FOREIGN:
        if d_ext != ".mtf":
            raise ValueError(f"convert: from {s_ext} the output must be a .mtf file, given {d!r}")
        return _t.convert_to_mtf(s, d, alignment, index_first)
    if s_ext != ".mtf":
        raise ValueError(f"convert: {s!r} is not a .mtf, .npy, .npz or .safetensors file")
    with open(s) as f:
        if os.path.isdir(d):
            for name in f:
                if "/" in name or name in ("", ".", ".."):
                    raise ValueError(f"convert: tensor name {name!r} is not a file name")
                _t.write_npy(os.path.join(d, name + ".npy"), f[name])
            return len(f)
        if d_ext == ".npy":
            if len(f) != 1:
                raise ValueError(f"convert: {s!r} holds {len(f)} tensors; .npy holds one "
                                 "(give a directory for one .npy per tensor)")
            _t.write_npy(d, f[next(iter(f))])
            return 1
        if d_ext == ".npz":
            arrays = {name: f[name] for name in f}
            _atomic(d, lambda out: np.savez(out, **arrays))
            return len(arrays)
        if d_ext == ".safetensors":
            _write_safetensors(f, d)
            return len(f)
    raise ValueError(f"convert: cannot write {d!r} (.npy, .npz, .safetensors or a directory)")


def dtypes() -> list:
    """The metatensor dtype names, in id order."""
    return list(_t.dtype_names())


__all__ = ["File", "TensorError", "open", "load", "save", "convert", "dtypes"]
