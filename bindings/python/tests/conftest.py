# Shared fixtures of the alknet package tests (run by ctest, label python; see CMakeLists.txt).
import os
import pathlib
import shutil

import pytest

SOURCE = pathlib.Path(os.environ.get("ALKNET_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[3]))


def alknet_bin():
    b = os.environ.get("ALKNET_BIN") or shutil.which("alknet")
    if not b or not os.path.exists(b):
        pytest.skip("the alknet binary is not built (ALKNET_BIN)")
    return b


_device = None


def device_or_skip():
    """Skips the test when no WebGPU adapter exists (every machine with lavapipe has one)."""
    global _device
    import alknet
    if _device is None:
        try:
            alknet.compute.adapter()
            _device = True
        except alknet.ComputeError as e:
            _device = str(e)
    if _device is not True:
        pytest.skip(f"no WebGPU device: {_device}")


@pytest.fixture
def source_dir():
    return SOURCE
