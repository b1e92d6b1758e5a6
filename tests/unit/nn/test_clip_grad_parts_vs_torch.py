"""torch.nn.utils.get_total_norm and clip_grads_with_norm_ (the two halves of
clip_grad_norm_, used to clip by a norm computed once, e.g. across models) as torch's."""
import numpy as np
import pytest

import minigrad

torch = pytest.importorskip("torch")


def _run(lib, norm_type):
    nn = lib.nn
    a, b, c = (nn.Parameter(lib.tensor(v)) for v in ([3., 4.], [1., -2.], [5.]))
    (a.sum() * 10 + (b * b).sum()).backward()      # (c gets no gradient)
    total = nn.utils.get_total_norm([p.grad for p in (a, b)], norm_type)
    nn.utils.clip_grads_with_norm_((p for p in (a, b, c)), 0.5, total)
    clipped = nn.utils.clip_grad_norm_(iter([a, b, c]), 0.01, norm_type=norm_type)
    return [t.numpy() for t in (total, a.grad, b.grad, clipped)]


@pytest.mark.parametrize("norm_type", [2.0, 1, float("inf")])
def test_norm_and_clipping_match_torch(norm_type):
    for got, want in zip(_run(minigrad, norm_type), _run(torch, norm_type)):
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_total_norm_of_nothing_and_nonfinite_error_match_torch():
    for lib in (minigrad, torch):
        assert lib.nn.utils.get_total_norm([]).item() == 0.0
        with pytest.raises(RuntimeError, match="is non-finite, so it cannot be clipped"):
            lib.nn.utils.get_total_norm(lib.tensor([float("nan")]), error_if_nonfinite=True)
