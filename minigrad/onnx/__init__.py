"""minigrad.onnx: present so scripts that import it at the top run; export is not supported.

>>> minigrad.onnx.is_in_onnx_export()
False
"""


def is_in_onnx_export():
    return False


def export(model, args=(), f=None, *unused, **kwargs):
    """Not supported: minigrad cannot write ONNX graphs."""
    raise NotImplementedError(
        "minigrad.onnx.export is not supported: minigrad cannot write ONNX graphs. To get an "
        "ONNX file, build the same model in PyTorch, copy the weights into it and export there.")


dynamo_export = export
