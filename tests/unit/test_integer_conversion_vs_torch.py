"""Python numbers written into integer dtypes: tensor(), full() and fill_() check them as
PyTorch's c10 conversion does (a value must fit, but a negative int wraps into an
unsigned dtype, -1 being 255 in uint8), where numpy raises OverflowError for the wrap and
casts out-of-range floats silently."""
import numpy as np
import pytest

import minigrad as mg

torch = pytest.importorskip("torch")

VALUES = [7, -1, 3.9, -1.5, True, 300, 10**6, 2**40, 1e30, float("nan"), float("inf"),
          2**63, 2**64, -2**63, -2**63 - 1]
DTYPES = ["uint8", "int8", "int16", "int32", "int64"]
WRITES = {
    "tensor": lambda L, v, dt: L.tensor(v, dtype=dt),
    "tensor_list": lambda L, v, dt: L.tensor([[0, v]], dtype=dt),
    "full": lambda L, v, dt: L.full((2,), v, dtype=dt),
    "fill_": lambda L, v, dt: L.zeros(2, dtype=dt).fill_(v),
}


def _outcome(write, lib, value, dtype):
    try:
        out = write(lib, value, getattr(lib, dtype))
    except Exception as error:   # noqa: BLE001 - the exception itself is compared
        return type(error).__name__, str(error)
    return str(out.dtype).split(".")[-1], np.asarray(out.tolist()).tolist()


@pytest.mark.parametrize("write", WRITES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_integer_writes_as_torch(write, dtype, value):
    with np.errstate(invalid="ignore"):
        theirs = _outcome(WRITES[write], torch, value, dtype)
    assert _outcome(WRITES[write], mg, value, dtype) == theirs
