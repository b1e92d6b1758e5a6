"""Every derivatives.yaml entry that PyTorch also has, compared with torch (CPU, float64).

Driven by the generated sample table (tests/generated/test_derivatives.py): for each
sample row, the forward values, the first-order gradients (a random cotangent through
``autograd.grad``) and a Hessian-vector product (the gradient of <grad, v> again) must
match torch's on the same float64 values.  float32 samples are compared in float64.

How an entry finds its torch counterpart, by default with no table row:
  its name as exported in each of its YAML ``modules:`` (minigrad.linalg.inv for
  ``linalg_inv``), looked up in the matching torch module (torch.linalg.inv); then,
  for the ``minigrad`` module or an entry that is only a Tensor method, a
  ``torch.Tensor`` method of that name (``expand``, ``view``).
  An overload (``max.dim``) calls torch's function of the base name (torch.max),
  whose own argument parser picks the overload.
Exceptions are explicit: MAPPED (a different torch callable) and SKIPPED (no torch
counterpart; the reason is required).  Entries starting with ``_`` are never looked
up (torch's private ops have other meanings) and so need a row.  ``<op>_backward``
entries whose ``<op>`` is itself an entry are helpers: their derivatives are already
compared through ``<op>``'s Hessian-vector products.  A test fails when an entry has
no counterpart and no row.
"""
import importlib
import os

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from minigrad import Tensor  # noqa: E402
from minigrad._generated import functions  # noqa: E402
from minigrad.autograd.api import grad as mg_grad  # noqa: E402
from minigrad.testing import build_sample, call_op  # noqa: E402
from tests.generated.test_derivatives import SAMPLES  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

TORCH_MODULES = {
    "minigrad": "torch",
    "minigrad.linalg": "torch.linalg",
    "minigrad.nn.functional": "torch.nn.functional",
    "minigrad.special": "torch.special",
    "minigrad.fft": "torch.fft",
}

# entry -> torch callable taking the sample's arguments (already converted to torch)
MAPPED = {
    "view": lambda self, size: self.view(size),  # (Tensor.view: hand-written)
    "clone": torch.clone,  # (hand-written too)
    "sum_to_size": lambda self, size: self.sum_to_size(size),
    "_to_copy": lambda self, dtype: self.to(dtype),
    "_to_device": lambda self, device: self.to(device),
    "_fill": lambda self, value: torch.full_like(self, value),
    "_copy_from": lambda self, src: self.clone().copy_(src),   # torch's _copy_from copies the other way
    "getitem": lambda self, index: _torch_getitem(self, index),
    "_index_put": lambda self, index, values: _torch_index_put(self, index, values),
    "_masked_select": torch.masked_select,
    "_as_strided": lambda self, size, stride, shift, self_stride:   # (samples: contiguous self)
        self.as_strided(size, stride, self.storage_offset() + shift),
    "gather_backward": lambda self, dim, index, shape:
        torch.zeros(shape, dtype=self.dtype).scatter_add(dim, index, self),
    # internal entries of the nn family (modules: []); rows for entries not (yet) in
    # derivatives.yaml are simply unused
    "_normal_cdf": lambda self: torch.special.ndtr(self),
    "_masked_scale": lambda self, mask, scale: self * mask * scale,
    "cross_entropy": torch.nn.functional.cross_entropy,   # hand-written wrapper in minigrad.nn.functional
    "nll_loss": torch.nn.functional.nll_loss,             # (likewise)
    "one_hot": torch.nn.functional.one_hot,               # (likewise)
    "binary_cross_entropy_elements":                      # binary_cross_entropy's, unreduced
        lambda self, target: torch.nn.functional.binary_cross_entropy(self, target,
                                                                      reduction="none"),
    "_batch_norm_training": lambda input, weight=None, bias=None, eps=1e-05:
        torch.nn.functional.batch_norm(input, None, None, weight, bias, training=True, eps=eps),
    "_lstm_cell": lambda gates, cx: _torch_fused_cell(_torch_lstm_cell, gates, cx),
    "_lstm_layer": lambda inputs, reverse=False: _torch_lstm_layer(*inputs, reverse),
    "_gru_cell": lambda input_gates, hidden_gates, hx:
        _torch_fused_cell(_torch_gru_cell, input_gates, hidden_gates, hx),
    # native schemas behind hand-written public wrappers (minigrad/functional.py)
    "einsum": lambda equation, tensors: torch.einsum(equation, *tensors),
    "tensordot": lambda self, other, dims_self, dims_other:
        torch.tensordot(self, other, dims=(list(dims_self), list(dims_other))),
    # the gamma family's reparameterization gradients (minigrad.distributions)
    "_standard_gamma_grad": torch._standard_gamma_grad,
    "_dirichlet_grad": torch._dirichlet_grad,
    # the factor's unread triangle: torch's gradient formula reads it, minigrad's does not
    # (zero there); compared on factors with that triangle zero
    "cholesky_solve": lambda self, input2, upper=False:
        torch.cholesky_solve(self, input2.triu() if upper else input2.tril(), upper),
    "cholesky_inverse": lambda self, upper=False:
        torch.cholesky_inverse(self.triu() if upper else self.tril(), upper),
}

# entry -> why it is not compared with torch
SKIPPED = {
    "as_strided_remap": "internal: as_strided's gradient and forward derivative as an op; "
                        "compared through _as_strided's Hessian-vector products",
    "_as_strided_scatter": "torch 2.13's gradient for self is the opposite of the derivative "
                           "(it fails its own gradcheck); values and src's gradient are compared "
                           "in tests/unit/test_views_more_vs_torch.py",
    "getitem_backward": "internal: the backward of getitem (zeros with the gradient added at the "
                        "key); compared through getitem's Hessian-vector products",
    "convolution_backward_weight": "internal: conv's weight gradient as an op; compared through "
                                   "conv1d/conv2d/conv_transpose Hessian-vector products",
    "avg_pool_backward": "internal: avg_pool's backward as an op; compared through avg_pool's "
                         "Hessian-vector products",
    "_ctc_loss": "internal: its gradient is the derivative with the log_probs free, torch's "
                 "adds exp(log_probs) (F.ctc_loss adds it back); its log_alpha is (T, N, L), "
                 "torch's (N, T, L); compared through F.ctc_loss in tests/unit/nn/test_ctc_loss.py",
    "_standard_gamma_icdf": "internal: the Gamma quantile minigrad._standard_gamma samples with "
                            "(torch samples by rejection and has no such op); its gradient is "
                            "_standard_gamma_grad, compared with torch's on a grid in "
                            "tests/unit/test_distributions_gamma_family.py",
}

RTOL, ATOL = 1e-7, 1e-9


# ------------------------------------------------------------------ registry
def _load_ops():
    from codegen.load import load_registry
    registry = load_registry(os.path.join(ROOT, "derivatives.yaml"), ROOT)
    return {op.full_name: op for op in registry.ops}


OPS = _load_ops()


def _exported_names(op, module_name):
    """The names under which ``module_name`` exports this entry: the generated function
    itself, or a hand-written wrapper under the generated name (``linalg_`` etc. stripped)."""
    module = importlib.import_module(module_name)
    targets = {id(getattr(functions, n, None)) for n in (op.name, op.func_name)} - {id(None)}
    names = [n for n in dir(module) if not n.startswith("__") and id(getattr(module, n)) in targets]
    prefix = module_name.rsplit(".", 1)[-1] + "_"
    default = op.name[len(prefix):] if module_name != "minigrad" and op.name.startswith(prefix) else op.name
    return names + ([default] if default not in names and hasattr(module, default) else [])


def _is_backward_helper(op):
    return op.name.endswith("_backward") and op.name[: -len("_backward")] in {o.name for o in OPS.values()}


def resolve(op):
    """(torch callable, None) or (None, reason it is skipped) or (None, None) if unknown."""
    if op.full_name in MAPPED:
        return MAPPED[op.full_name], None
    if op.full_name in SKIPPED:
        return None, SKIPPED[op.full_name]
    if op.name.startswith("_"):
        return None, None
    if _is_backward_helper(op):
        return None, (f"internal helper of `{op.name[: -len('_backward')]}`: compared through "
                      "that entry's Hessian-vector products")
    for module_name in op.modules:
        torch_module = importlib.import_module(TORCH_MODULES[module_name])
        for name in _exported_names(op, module_name):
            fn = getattr(torch_module, name, None)
            if callable(fn):
                return fn, None
            if module_name == "minigrad" and callable(getattr(torch.Tensor, name, None)):
                return getattr(torch.Tensor, name), None
    if op.method and callable(getattr(torch.Tensor, op.name, None)):  # a Tensor method only
        return getattr(torch.Tensor, op.name), None
    return None, None


def test_every_entry_has_a_torch_counterpart_or_a_reason():
    missing = [name for name, op in OPS.items() if resolve(op) == (None, None)]
    assert not missing, (
        f"no torch counterpart found for {missing}: add each to MAPPED (a torch callable) or "
        f"SKIPPED (with the reason) in {__file__}")


def test_every_entry_has_a_sample_row():
    sampled = {p.id.rsplit("-", 1)[0] for p in SAMPLES}
    assert set(OPS) <= sampled, f"entries missing from the generated table: {set(OPS) - sampled}"


# ------------------------------------------------------------------ converting a sample
def _leaf64(x):
    """A minigrad leaf in float64 (same values) and the matching torch leaf."""
    data = x.detach().numpy(force=True)  # force: a sample on the GPU (MINIGRAD_TEST_DEVICE)
    if data.dtype.kind == "f":
        if data.dtype != np.float64:
            x = x.detach().double().requires_grad_(x.requires_grad)  # on x's device
        t = torch.tensor(np.array(x.detach().numpy(force=True)), dtype=torch.float64, requires_grad=x.requires_grad)
        return x, t
    return x, torch.from_numpy(np.array(data))


def _convert(arg, value):
    """(minigrad value, torch value) for one argument of the sample."""
    if isinstance(value, Tensor):
        return _leaf64(value)
    if isinstance(value, list) and value and isinstance(value[0], Tensor):
        pairs = [_leaf64(v) for v in value]
        return [p[0] for p in pairs], [p[1] for p in pairs]
    if arg.type.startswith("ScalarType") and isinstance(value, str):
        return value, getattr(torch, value)
    if arg.type == "Index":
        key = value if isinstance(value, tuple) else (value,)
        return value, tuple(torch.from_numpy(np.array(k.detach().numpy(force=True))) if isinstance(k, Tensor) else k for k in key)
    return value, value


def _by_keyword(fn, op, kwargs):
    """The first argument positionally, the others by their (PyTorch) names."""
    first, *rest = [a.name for a in op.args if a.name in kwargs]
    return fn(kwargs[first], **{name: kwargs[name] for name in rest})


def _by_position(fn, op, kwargs):
    """Positional arguments up to the last one given, a skipped one getting the schema's
    default (torch.mean(x, None, True): its keepdim needs a dim before it)."""
    positional = [a for a in op.args if not a.kwarg_only]
    last = max((i for i, a in enumerate(positional) if a.name in kwargs), default=-1)
    args = [kwargs[a.name] if a.name in kwargs else a.default for a in positional[: last + 1]]
    keywords = {a.name: kwargs[a.name] for a in op.args if a.kwarg_only and a.name in kwargs}
    return fn(*args, **keywords)


def _call_torch(fn, op, kwargs):
    """Call torch as its Python API documents: by keyword first, then positionally;
    then with what torch takes in fewer places than minigrad converted: Python numbers
    for Tensor arguments (minimum(x, 0.5)) as 0-d float64 tensors, a bare int for an
    int[] argument (layer_norm(x, 4)) as a 1-tuple."""
    tensor_args = {a.name for a in op.args if a.is_tensor}
    list_args = {a.name for a in op.args if a.type.startswith("int[]")}
    numbers = {k: torch.tensor(v, dtype=torch.float64) for k, v in kwargs.items()
               if k in tensor_args and isinstance(v, (int, float)) and not isinstance(v, bool)}
    singles = {k: (v,) for k, v in kwargs.items() if k in list_args and isinstance(v, int)}
    variants = [kwargs] + [{**kwargs, **extra} for extra in (numbers, singles, {**numbers, **singles})
                           if extra]
    attempts = [(call, v) for v in variants for call in (_by_keyword, _by_position)]
    for call, arguments in attempts[:-1]:
        try:
            return call(fn, op, arguments)
        except TypeError:
            pass
    call, arguments = attempts[-1]
    return call(fn, op, arguments)


def _torch_grad(what, *args, **kwargs):
    """torch.autograd.grad, or a skip when torch itself cannot differentiate the sample
    (no derivative for floor_divide, no double backward for hardsigmoid ...): what was
    compared so far passed, and there is nothing to compare the rest with."""
    try:
        return torch.autograd.grad(*args, **kwargs)
    except RuntimeError as exc:
        pytest.skip(f"compared up to the {what}, which torch cannot compute here: {exc}")


def _torch_index_put(x, key, values):
    """``x[key] = values`` out of place, as torch records it (IndexPutBackward0)."""
    out = x.clone()
    out[key] = values
    return out


def _torch_lstm_cell(gates, cx):
    """torch.lstm_cell fed the pre-activation gates: identity input weights, zero hidden ones."""
    eye = torch.eye(gates.shape[-1], dtype=gates.dtype)
    no_hidden = torch.zeros(gates.shape[-1], cx.shape[-1], dtype=gates.dtype)
    return torch.lstm_cell(gates, (torch.zeros_like(cx), cx), eye, no_hidden)


def _torch_lstm_layer(x_proj, h0, c0, w_hh, reverse):
    """torch.lstm_cell over the steps: (output, cells, gate activations) by time."""
    eye = torch.eye(x_proj.shape[-1], dtype=x_proj.dtype)
    h, c, outs = h0, c0, {}
    for t in (range(len(x_proj) - 1, -1, -1) if reverse else range(len(x_proj))):
        gates = x_proj[t] + h @ w_hh.T
        h, c = torch.lstm_cell(gates, (torch.zeros_like(c), c), eye, torch.zeros_like(w_hh))
        i, f, g, o = gates.chunk(4, -1)
        outs[t] = (h, c, torch.cat([i.sigmoid(), f.sigmoid(), g.tanh(), o.sigmoid()], -1))
    return tuple(torch.stack([outs[t][k] for t in range(len(x_proj))]) for k in range(3))


def _torch_gru_cell(input_gates, hidden_gates, hx):
    """torch.gru_cell with identity input weights and the hidden gates as the hidden bias."""
    eye = torch.eye(input_gates.shape[-1], dtype=input_gates.dtype)
    no_hidden = torch.zeros(input_gates.shape[-1], hx.shape[-1], dtype=input_gates.dtype)
    return torch.gru_cell(input_gates, hx, eye, no_hidden, None, hidden_gates)


def _torch_fused_cell(cell, *tensors):
    """torch's cells take batched (N, ...) tensors only: unbatched ones get a batch of 1."""
    if tensors[0].dim() == 2:
        return cell(*tensors)
    out = cell(*(t.unsqueeze(0) for t in tensors))
    return tuple(o.squeeze(0) for o in out) if isinstance(out, tuple) else out.squeeze(0)


def _torch_getitem(x, key):
    """``x[key]`` in torch, which has no negative slice steps: flip those dims first."""
    key = key if isinstance(key, tuple) else (key,)
    used = sum(k is not None and k is not Ellipsis for k in key)
    dim, flips, new_key = 0, [], []
    for k in key:
        if k is Ellipsis:
            dim += x.ndim - used
        elif isinstance(k, slice) and k.step is not None and k.step < 0:
            n = x.shape[dim]
            picked = range(*k.indices(n))
            flips.append(dim)
            k = slice(n - 1 - picked[0], n - picked[-1], -k.step) if picked else slice(0, 0)
            dim += 1
        elif k is not None:
            dim += 1
        new_key.append(k)
    return (torch.flip(x, flips) if flips else x)[tuple(new_key)]


def _as_list(out):
    if isinstance(out, (Tensor, torch.Tensor)):
        return [out]
    return list(out)


def _selected(outs, outputs):
    # the differentiable outputs, picked exactly as minigrad.testing does
    if outputs is None:  # a Tensor[] output: every piece
        return outs
    return [outs[i] for i in outputs] if len(outs) > 1 or outputs != (0,) else outs


def _numpy(x):
    return x.detach().numpy(force=True) if isinstance(x, torch.Tensor) else np.asarray(x.detach().numpy(force=True) if hasattr(x, "detach") else x)


def _assert_close(mine, theirs, what):
    mine, theirs = _numpy(mine), _numpy(theirs)
    assert mine.shape == theirs.shape, f"{what}: shape {mine.shape} != torch's {theirs.shape}"
    assert mine.dtype.kind == theirs.dtype.kind, f"{what}: dtype {mine.dtype} where torch gives {theirs.dtype}"
    if mine.dtype.kind in "biu" or theirs.dtype.kind in "biu":
        np.testing.assert_array_equal(mine, theirs, err_msg=what)
    else:
        np.testing.assert_allclose(mine, theirs, rtol=RTOL, atol=ATOL, err_msg=what)


def _grads_or_zeros(grads, leaves):
    return [_numpy(g) if g is not None else np.zeros(tuple(leaf.shape)) for g, leaf in zip(grads, leaves)]


# ------------------------------------------------------------------ the comparison
def _rows():
    rows = []
    for p in SAMPLES:
        name = p.id.rsplit("-", 1)[0]
        fn, reason = resolve(OPS[name])
        marks = [] if fn is not None else [pytest.mark.skip(reason=reason or "no torch counterpart")]
        rows.append(pytest.param(name, fn, *p.values, id=p.id, marks=marks))
    return rows


def compare_with_torch(entry, op, outputs, sample, convention):
    """A `boundary:` point of the entry (tests/generated): value and gradient are torch's.

    First order only: at a kink the second derivative is a convention nobody relies on."""
    torch_fn, reason = resolve(OPS[entry])
    if torch_fn is None:
        pytest.skip(reason or "no torch counterpart")
    test_matches_torch(entry, torch_fn, op, outputs, sample, False, f"boundary: {convention}", "", None)


@pytest.mark.parametrize("entry, torch_fn, op, outputs, sample, fast, skip_gradgrad, once, node", _rows())
def test_matches_torch(entry, torch_fn, op, outputs, sample, fast, skip_gradgrad, once, node):
    spec = OPS[entry]
    built = build_sample(sample)
    types = {a.name: a for a in spec.args}
    mine, theirs = {}, {}
    for name, value in built.items():
        mine[name], theirs[name] = _convert(types[name], value)

    # forward: every output, indices and masks included
    mg_outs = _as_list(call_op(op, mine))
    th_outs = _as_list(_call_torch(torch_fn, spec, theirs))
    if entry in SIGN_GAUGE:
        mg_outs = _align_singular_vectors(mg_outs, th_outs, transposed_v=SIGN_GAUGE[entry])
    if entry in EIGENVECTOR_GAUGE:
        mg_outs = _align_eigenvectors(mg_outs, th_outs)
    assert len(mg_outs) == len(th_outs), f"{len(mg_outs)} outputs, torch has {len(th_outs)}"
    for i, (m, t) in enumerate(zip(mg_outs, th_outs)):
        _assert_close(m, t, f"{entry} output {i}")

    mg_leaves = [v for v in _flat(mine) if isinstance(v, Tensor) and v.requires_grad]
    th_leaves = [v for v in _flat(theirs) if isinstance(v, torch.Tensor) and v.requires_grad]
    # an output one side differentiates and the other does not must get a zero gradient
    pairs = [(m, t) for m, t in zip(_selected(mg_outs, outputs), _selected(th_outs, outputs))
             if m.requires_grad or t.requires_grad]
    if not mg_leaves or not pairs:
        return
    rng = np.random.default_rng(7)
    cotangents = [rng.standard_normal(tuple(m.shape)) for m, _ in pairs]

    # first order
    mg_g = _minigrad_vjp([m for m, _ in pairs], mg_leaves, cotangents, create_graph=True)
    th_g = _torch_vjp("gradient", [t for _, t in pairs], th_leaves, cotangents, create_graph=True)
    for i, (m, t) in enumerate(zip(_grads_or_zeros(mg_g, mg_leaves), _grads_or_zeros(th_g, th_leaves))):
        _assert_close(m, t, f"{entry} gradient of input {i}")
    if skip_gradgrad or once:
        return

    # second order: the Hessian-vector product d<grad, v>/d inputs
    vs = [rng.standard_normal(tuple(leaf.shape)) for leaf in mg_leaves]
    mg_terms = [(g * Tensor(v)).sum() for g, v in zip(mg_g, vs) if g is not None and g.requires_grad]
    th_terms = [(g * torch.from_numpy(v)).sum() for g, v in zip(th_g, vs) if g is not None and g.requires_grad]
    one = [np.ones(())]
    mg_h = _minigrad_vjp([_total(mg_terms)], mg_leaves, one) if mg_terms else [None] * len(mg_leaves)
    th_h = _torch_vjp("Hessian-vector product", [_total(th_terms)], th_leaves, one) if th_terms else [None] * len(th_leaves)
    for i, (m, t) in enumerate(zip(_grads_or_zeros(mg_h, mg_leaves), _grads_or_zeros(th_h, th_leaves))):
        _assert_close(m, t, f"{entry} Hessian-vector product for input {i}")


# SVDs: each singular-vector pair is defined up to a joint sign, which LAPACK may choose
# differently in two libraries.  Flip minigrad's pairs to torch's (a constant, differentiable
# change), so values, gradients and HVPs compare the same function.  entry -> V given as Vh?
SIGN_GAUGE = {"linalg_svd": True, "svd": False}


def _align_singular_vectors(mg_outs, th_outs, transposed_v):
    u, s, v = mg_outs
    k = s.shape[-1]
    overlap = np.sum(_numpy(u)[..., :, :k] * _numpy(th_outs[0])[..., :, :k], axis=-2)
    signs = np.where(overlap < 0, -1.0, 1.0)
    u_signs = np.concatenate([signs, np.ones(signs.shape[:-1] + (u.shape[-1] - k,))], axis=-1)
    u = u * Tensor(u_signs[..., None, :])
    if transposed_v:
        v_signs = np.concatenate([signs, np.ones(signs.shape[:-1] + (v.shape[-2] - k,))], axis=-1)
        v = v * Tensor(v_signs[..., :, None])
    else:
        v_signs = np.concatenate([signs, np.ones(signs.shape[:-1] + (v.shape[-1] - k,))], axis=-1)
        v = v * Tensor(v_signs[..., None, :])
    return [u, s, v]


# Eigenvectors (eigh's second output) likewise: each column up to its sign.
EIGENVECTOR_GAUGE = {"linalg_eigh"}


def _align_eigenvectors(mg_outs, th_outs):
    values, vectors = mg_outs
    overlap = np.sum(_numpy(vectors) * _numpy(th_outs[1]), axis=-2)
    return [values, vectors * Tensor(np.where(overlap < 0, -1.0, 1.0)[..., None, :]).to(vectors.device)]


def _minigrad_vjp(outs, leaves, cotangents, create_graph=False):
    live = [(o, Tensor(c).to(o.device)) for o, c in zip(outs, cotangents) if o.requires_grad]
    if not live:
        return [None] * len(leaves)
    return list(mg_grad([o for o, _ in live], leaves, [c for _, c in live],
                        create_graph=create_graph, allow_unused=True))


def _torch_vjp(what, outs, leaves, cotangents, create_graph=False):
    live = [(o, torch.from_numpy(c)) for o, c in zip(outs, cotangents) if o.requires_grad]
    if not live:
        return [None] * len(leaves)
    return list(_torch_grad(what, [o for o, _ in live], leaves, [c for _, c in live],
                            create_graph=create_graph, allow_unused=True))


def _flat(kwargs):
    for value in kwargs.values():
        yield from value if isinstance(value, list) else [value]


def _total(terms):
    total = terms[0]
    for term in terms[1:]:
        total = total + term
    return total

