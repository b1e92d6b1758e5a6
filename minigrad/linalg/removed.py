"""torch.matrix_rank, lstsq, solve, symeig and eig: removed in PyTorch 1.9 but still callable,
raising a RuntimeError that names the torch.linalg replacement.  Scripts written for old
PyTorch meet the same message here (the method forms too, except matrix_rank: torch has
no Tensor.matrix_rank)."""
from minigrad._tensor import Tensor

__all__ = ["matrix_rank", "lstsq", "solve", "symeig", "eig"]

_REMOVED = "This function was deprecated since version 1.9 and is now removed."

_MESSAGES = {
    "matrix_rank": _REMOVED + (
        '\n'
        'Please use the `torch.linalg.matrix_rank` function instead. The '
        "parameter 'symmetric' was renamed in `torch.linalg.matrix_rank()` to "
        "'hermitian'."),
    "lstsq": _REMOVED + (
        ' `torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`.\n'
        '`torch.linalg.lstsq` has reversed arguments and does not return the '
        'QR decomposition in the returned tuple (although it returns other '
        'information about the problem).\n'
        '\n'
        'To get the QR decomposition consider using `torch.linalg.qr`.\n'
        '\n'
        'The returned solution in `torch.lstsq` stored the residuals of the '
        'solution in the last m - n columns of the returned value whenever m > '
        "n. In torch.linalg.lstsq, the residuals are in the field 'residuals' "
        'of the returned named tuple.\n'
        '\n'
        'The unpacking of the solution, as in\n'
        'X, _ = torch.lstsq(B, A).solution[:A.size(1)]\n'
        'should be replaced with:\n'
        'X = torch.linalg.lstsq(A, B).solution'),
    "solve": _REMOVED + (
        ' `torch.solve` is deprecated in favor of `torch.linalg.solve`. '
        '`torch.linalg.solve` has its arguments reversed and does not return '
        'the LU factorization.\n'
        '\n'
        'To get the LU factorization see `torch.lu`, which can be used with '
        '`torch.lu_solve` or `torch.lu_unpack`.\n'
        'X = torch.solve(B, A).solution should be replaced with:\n'
        'X = torch.linalg.solve(A, B)'),
    "symeig": _REMOVED + (
        ' The default behavior has changed from using the upper triangular '
        'portion of the matrix by default to using the lower triangular portion.\n'
        '\n'
        'L, _ = torch.symeig(A, upper=upper) should be replaced with:\n'
        "L = torch.linalg.eigvalsh(A, UPLO='U' if upper else 'L')\n"
        '\n'
        'and\n'
        '\n'
        'L, V = torch.symeig(A, eigenvectors=True) should be replaced with:\n'
        "L, V = torch.linalg.eigh(A, UPLO='U' if upper else 'L')"),
    "eig": _REMOVED + (
        ' `torch.linalg.eig` returns complex tensors of dtype `cfloat` or '
        '`cdouble` rather than real tensors mimicking complex tensors.\n'
        '\n'
        'L, _ = torch.eig(A) should be replaced with:\n'
        'L_complex = torch.linalg.eigvals(A)\n'
        '\n'
        'and\n'
        '\n'
        'L, V = torch.eig(A, eigenvectors=True) should be replaced with:\n'
        'L_complex, V_complex = torch.linalg.eig(A)'),
}


def _removed(name):
    def function(*args, **kwargs):
        raise RuntimeError(_MESSAGES[name])
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"Removed from PyTorch (1.9): raises, naming its torch.linalg replacement."
    return function


matrix_rank, lstsq, solve, symeig, eig = (_removed(name) for name in __all__)

for _function in (lstsq, solve, symeig, eig):
    if not hasattr(Tensor, _function.__name__):
        setattr(Tensor, _function.__name__, _function)
