"""F.ctc_loss and nn.CTCLoss against torch: values and gradients (of the log_probs, and of
the logits through log_softmax) for padded and concatenated targets, every reduction,
float32 and float64, repeated labels, impossible alignments and zero_infinity; torch's
errors in torch's order; no double backward, as torch; a training step."""
import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F
from minigrad.autograd import gradcheck
from tests.unit.nn._torch_pair import load_from_torch, raised

torch = pytest.importorskip("torch")
TF = torch.nn.functional

RNG = np.random.default_rng(0)
T, N, C = 8, 4, 5
LOGITS = RNG.standard_normal((T, N, C))
# repeated labels (2, 2 and 4, 4, 4 need a blank between), an empty target, and a target
# too long for its input (4, 4, 4, 1 needs 6 frames, it gets 5): an infinite loss
PADDED = np.array([[1, 2, 2, 3], [4, 4, 4, 1], [3, 0, 0, 0], [2, 1, 3, 4]])
TARGET_LENGTHS = [3, 4, 0, 4]
INPUT_LENGTHS = [8, 5, 3, 7]
POSSIBLE_INPUT_LENGTHS = [8, 7, 3, 7]
CONCATENATED = np.concatenate([row[:n] for row, n in zip(PADDED, TARGET_LENGTHS)])


def _log_probs(L, logits):
    return L.tensor(logits).log_softmax(2)


def _loss(L, f, log_probs, targets, input_lengths, lengths_as, **kwargs):
    convert = {"tensor": L.tensor, "tuple": tuple, "list": list}[lengths_as]
    return f.ctc_loss(log_probs, L.tensor(targets), convert(input_lengths),
                      convert(TARGET_LENGTHS), **kwargs)


def _both(targets, input_lengths, dtype, lengths_as, through_logits, **kwargs):
    """(loss, gradient) from minigrad and torch, backward of a random weighting."""
    out = []
    weights = None
    for L, f in ((mg, F), (torch, TF)):
        logits = L.tensor(LOGITS.astype(dtype), requires_grad=through_logits)
        log_probs = logits.log_softmax(2)
        leaf = logits if through_logits else log_probs.detach().requires_grad_()
        loss = _loss(L, f, leaf if not through_logits else log_probs, targets, input_lengths,
                     lengths_as, **kwargs)
        if weights is None:
            weights = RNG.standard_normal(tuple(loss.shape)).astype(dtype)
        (loss * L.tensor(weights)).sum().backward()
        out.append((loss.detach().numpy(), leaf.grad.numpy()))
    return out


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("targets", ["padded", "concatenated"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("zero_infinity", [False, True])
@pytest.mark.parametrize("input_lengths", [INPUT_LENGTHS, POSSIBLE_INPUT_LENGTHS])
def test_values_and_log_probs_gradients_match_torch(reduction, targets, dtype, zero_infinity,
                                                    input_lengths):
    target_values = PADDED if targets == "padded" else CONCATENATED
    (mine, mine_grad), (theirs, their_grad) = _both(
        target_values, input_lengths, dtype, "tensor", False, reduction=reduction,
        zero_infinity=zero_infinity)
    tol = 1e-5 if dtype == np.float32 else 1e-10
    assert mine.dtype == theirs.dtype and mine.shape == theirs.shape
    np.testing.assert_allclose(mine, theirs, rtol=tol, atol=tol)
    assert mine_grad.dtype == their_grad.dtype
    np.testing.assert_allclose(mine_grad, their_grad, rtol=tol, atol=tol)  # NaNs in place too


@pytest.mark.parametrize("lengths_as", ["tensor", "tuple", "list"])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_logits_gradients_through_log_softmax_match_torch(lengths_as, reduction):
    (mine, mine_grad), (theirs, their_grad) = _both(
        PADDED, POSSIBLE_INPUT_LENGTHS, np.float64, lengths_as, True, reduction=reduction)
    np.testing.assert_allclose(mine, theirs, rtol=1e-10)
    np.testing.assert_allclose(mine_grad, their_grad, rtol=1e-9, atol=1e-12)


def test_impossible_alignment_is_infinite_and_zero_infinity_zeroes_it():
    log_probs = _log_probs(mg, LOGITS).requires_grad_()
    losses = F.ctc_loss(log_probs, mg.tensor(PADDED), INPUT_LENGTHS, TARGET_LENGTHS,
                        reduction="none")
    assert np.isinf(losses.detach().numpy()[1]) and np.isfinite(losses.detach().numpy()[[0, 2, 3]]).all()
    zeroed = F.ctc_loss(log_probs, mg.tensor(PADDED), INPUT_LENGTHS, TARGET_LENGTHS,
                        reduction="sum", zero_infinity=True)
    zeroed.backward()
    assert np.isfinite(zeroed.item())
    assert not log_probs.grad.numpy()[:, 1].any()


@pytest.mark.parametrize("targets", ["1-d", "(1, S)"])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_unbatched_matches_torch(targets, reduction):
    out = []
    for L, f in ((mg, F), (torch, TF)):
        leaf = L.tensor(LOGITS[:, 0], requires_grad=True)
        target = L.tensor(PADDED[0, :3] if targets == "1-d" else PADDED[:1, :3])
        loss = f.ctc_loss(leaf.log_softmax(1), target, L.tensor([8]), L.tensor([3]),
                          reduction=reduction)
        loss.backward()
        out.append((loss.detach().numpy(), leaf.grad.numpy()))
    (mine, mine_grad), (theirs, their_grad) = out
    assert mine.shape == theirs.shape == ()
    np.testing.assert_allclose(mine, theirs, rtol=1e-10)
    np.testing.assert_allclose(mine_grad, their_grad, rtol=1e-9, atol=1e-12)


def test_gradient_through_log_softmax_matches_finite_differences():
    logits = mg.tensor(LOGITS[:, :2], requires_grad=True)

    def loss(x):
        return F.ctc_loss(x.log_softmax(2), mg.tensor(PADDED[:2]), (8, 7), (3, 4),
                          reduction="none")
    assert gradcheck(loss, (logits,))


def test_double_backward_raises_torchs_error():
    messages = []
    for L, f in ((mg, F), (torch, TF)):
        log_probs = _log_probs(L, LOGITS).detach().requires_grad_()
        loss = f.ctc_loss(log_probs, L.tensor(PADDED), L.tensor(POSSIBLE_INPUT_LENGTHS),
                          L.tensor(TARGET_LENGTHS))
        (grad,) = L.autograd.grad(loss, log_probs, create_graph=True)
        kind, message = raised(lambda: L.autograd.grad(grad.sum(), log_probs))
        assert kind is RuntimeError
        messages.append(message)
    assert messages[1] in messages[0]


def test_forward_mode_agrees_with_reverse_mode_and_second_order_raises():
    # torch has no forward AD for ctc_loss; minigrad's JVP gives the same Jacobian as the
    # reverse mode (torch's gradient convention included)
    from minigrad import func
    log_probs = _log_probs(mg, LOGITS)

    def loss(x):
        return F.ctc_loss(x, mg.tensor(PADDED), POSSIBLE_INPUT_LENGTHS, TARGET_LENGTHS)
    np.testing.assert_allclose(func.jacfwd(loss)(log_probs).numpy(),
                               func.jacrev(loss)(log_probs).numpy(), rtol=1e-12, atol=1e-15)
    for second in (func.hessian(loss), func.jacrev(func.jacfwd(loss))):
        with pytest.raises(RuntimeError, match="_ctc_loss_backward is not implemented"):
            second(log_probs)


def _call(L, f, log_probs=None, targets=PADDED, input_lengths=INPUT_LENGTHS,
          target_lengths=TARGET_LENGTHS, **kwargs):
    lp = _log_probs(L, LOGITS) if log_probs is None else log_probs(L)
    wrap = (lambda v: L.tensor(v)) if not isinstance(input_lengths, tuple) else (lambda v: v)
    return f.ctc_loss(lp, L.tensor(targets), wrap(input_lengths), wrap(target_lengths), **kwargs)


BAD = {
    "blank too large": lambda L, f: _call(L, f, blank=C),
    "blank negative": lambda L, f: _call(L, f, blank=-1),
    "bad reduction": lambda L, f: _call(L, f, reduction="avg"),
    "input_lengths size": lambda L, f: _call(L, f, input_lengths=[8, 8, 8]),
    "target_lengths size": lambda L, f: _call(L, f, target_lengths=[3, 4, 0]),
    "input length too long": lambda L, f: _call(L, f, input_lengths=[9, 8, 8, 8]),
    "input length negative": lambda L, f: _call(L, f, input_lengths=[-1, 8, 8, 8]),
    "target length negative": lambda L, f: _call(L, f, target_lengths=[-1, 4, 0, 4]),
    "target length past padding": lambda L, f: _call(L, f, target_lengths=[5, 4, 0, 4]),
    "padded targets batch": lambda L, f: _call(L, f, targets=PADDED[:3]),
    "concatenated too short": lambda L, f: _call(L, f, targets=CONCATENATED[:-1]),
    "concatenated too long": lambda L, f: _call(L, f, targets=np.append(CONCATENATED, 1)),
    "1-d log_probs": lambda L, f: _call(L, f, log_probs=lambda L: L.zeros(C)),
    "4-d log_probs": lambda L, f: _call(L, f, log_probs=lambda L: L.zeros(T, N, C, 1)),
    "3-d targets": lambda L, f: _call(L, f, targets=PADDED[None]),
    "empty log_probs": lambda L, f: _call(L, f, log_probs=lambda L: L.zeros(0, N, C)),
    "integer log_probs": lambda L, f: _call(L, f, log_probs=lambda L: L.zeros(T, N, C).long()),
    "float input_lengths": lambda L, f: f.ctc_loss(
        _log_probs(L, LOGITS), L.tensor(PADDED), L.tensor(INPUT_LENGTHS).double(),
        L.tensor(TARGET_LENGTHS)),
    "float target_lengths": lambda L, f: f.ctc_loss(
        _log_probs(L, LOGITS), L.tensor(PADDED), L.tensor(INPUT_LENGTHS),
        L.tensor(TARGET_LENGTHS).float()),
    "list and tensor lengths": lambda L, f: f.ctc_loss(
        _log_probs(L, LOGITS), L.tensor(PADDED), INPUT_LENGTHS, L.tensor(TARGET_LENGTHS)),
    "int lengths": lambda L, f: f.ctc_loss(_log_probs(L, LOGITS)[:, 0], L.tensor(PADDED[0]),
                                           8, 3),
    "tuple lengths, blank out of range": lambda L, f: _call(
        L, f, input_lengths=tuple(INPUT_LENGTHS), target_lengths=tuple(TARGET_LENGTHS),
        blank=7),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_raises_torchs_error(case):
    mine = raised(lambda: BAD[case](mg, F))
    theirs = raised(lambda: BAD[case](torch, TF))
    assert theirs[0] is not None
    if theirs[0] is TypeError:  # torch's parser also lists why each signature missed
        assert mine[0] is TypeError and mine[1].splitlines()[0] == theirs[1].splitlines()[0]
    else:
        assert mine == theirs


def test_targets_out_of_class_range_raise():
    # torch's CPU kernel reads out of bounds here; minigrad names the bad target instead
    with pytest.raises(IndexError, match="target 5 is out of bounds for 5 classes"):
        _call(mg, F, targets=np.array([[1, 5, 2, 3]] * 4))


def test_training_step_matches_torch():
    """A GRU and a Linear over (T, N, features), log_softmax, CTCLoss, one Adam step."""
    features, hidden = 3, 6
    modules = []
    for L in (mg, torch):
        L.manual_seed(0)
        modules.append((L.nn.GRU(features, hidden).double(), L.nn.Linear(hidden, C).double()))
    for (mine, theirs) in zip(*modules):
        load_from_torch(mine, theirs)
    x = RNG.standard_normal((T, N, features))
    states = []
    for L, (gru, linear) in zip((mg, torch), modules):
        params = list(gru.parameters()) + list(linear.parameters())
        optimizer = L.optim.Adam(params, lr=0.01)
        for _ in range(2):
            optimizer.zero_grad()
            log_probs = linear(gru(L.tensor(x))[0]).log_softmax(2)
            loss = L.nn.CTCLoss(blank=0, zero_infinity=True)(
                log_probs, L.tensor(PADDED), L.tensor(INPUT_LENGTHS), L.tensor(TARGET_LENGTHS))
            loss.backward()
            optimizer.step()
        states.append([loss.item()] + [p.detach().numpy().copy() for p in params])
    np.testing.assert_allclose(states[0][0], states[1][0], rtol=1e-9)
    for a, b in zip(states[0][1:], states[1][1:]):
        np.testing.assert_allclose(a, b, rtol=1e-7, atol=1e-10)


@pytest.mark.parametrize("targets", ["padded", "concatenated"])
def test_on_the_fake_gpu_matches_cpu(targets, fake_gpu):
    # the kernels take their array library from log_probs: a numpy call on device data
    # raises on the fake backend, as CuPy would
    results = []
    for device in ("cpu", "cuda"):
        logits = mg.tensor(LOGITS, device=device, requires_grad=True)
        target = mg.tensor(PADDED if targets == "padded" else CONCATENATED, device=device)
        loss = F.ctc_loss(logits.log_softmax(2), target,
                          mg.tensor(INPUT_LENGTHS, device=device),
                          mg.tensor(TARGET_LENGTHS, device=device), zero_infinity=True)
        assert loss.is_cuda == (device == "cuda")
        loss.backward()
        results.append([loss.detach().cpu().numpy(), logits.grad.cpu().numpy()])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-12)
