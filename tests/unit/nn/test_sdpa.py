"""F.scaled_dot_product_attention against torch (values and gradients, float64)."""
import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("kind", ["none", "causal", "bool", "float", "scale", "gqa"])
def test_sdpa_matches_torch(kind):
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal(s) for s in [(2, 4, 5, 8), (2, 4, 6, 8), (2, 4, 6, 3)])
    kwargs, mask = {}, None
    if kind == "causal":
        k, v = k[:, :, :5], v[:, :, :5]
        kwargs["is_causal"] = True
    elif kind == "bool":
        mask = rng.random((5, 6)) > 0.3
        mask[:, 0] = True
    elif kind == "float":
        mask = rng.standard_normal((5, 6))
    elif kind == "scale":
        kwargs["scale"] = 0.3
    elif kind == "gqa":
        k, v = k[:, :2], v[:, :2]
        kwargs["enable_gqa"] = True
    results = []
    for lib, fn in ((mg, F.scaled_dot_product_attention),
                    (torch, torch.nn.functional.scaled_dot_product_attention)):
        ts = [lib.tensor(a, requires_grad=True) for a in (q, k, v)]
        m = None if mask is None else lib.tensor(mask)
        out = fn(*ts, attn_mask=m, **kwargs)
        (out * lib.tensor(np.cos(np.arange(out.numel())).reshape(out.shape))).sum().backward()
        results.append([out.detach().numpy()] + [t.grad.numpy() for t in ts])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-11)
