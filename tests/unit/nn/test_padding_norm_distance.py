"""Padding layers, InstanceNorm1d/2d/3d, PairwiseDistance and CosineSimilarity against torch
(float64, weights via state_dict): reprs, state_dict keys, outputs and gradients, running
statistics, and PyTorch's error and warning texts."""
import warnings

import numpy as np
import pytest

import minigrad as mg
from minigrad import nn
from tests.unit.nn._torch_pair import compare

torch = pytest.importorskip("torch")

R = np.random.default_rng(3)


def x(*shape):
    return R.standard_normal(shape)


CASES = [
    ("ConstantPad1d", ((1, 2), 3.5), [x(2, 3, 4)]),
    ("ConstantPad2d", (1, -1.0), [x(2, 3, 4, 5)]),
    ("ConstantPad3d", ((1, 0, 2, 1, 0, 1), 0), [x(1, 2, 3, 4, 5)]),
    ("ZeroPad1d", (2,), [x(3, 4)]),
    ("ZeroPad2d", ((1, 0, 2, 1),), [x(2, 3, 4, 5)]),
    ("ZeroPad3d", (1,), [x(1, 2, 3, 4, 5)]),
    ("ReflectionPad1d", (2,), [x(2, 3, 4)]),
    ("ReflectionPad2d", ((1, 2, 0, 3),), [x(2, 3, 4, 5)]),
    ("ReflectionPad3d", (1,), [x(1, 2, 3, 4, 5)]),
    ("ReplicationPad1d", ((3, 1),), [x(2, 3, 4)]),
    ("ReplicationPad2d", (2,), [x(2, 3, 4, 5)]),
    ("ReplicationPad3d", ((1, 0, 0, 1, 2, 0),), [x(1, 2, 3, 4, 5)]),
    ("CircularPad1d", (1,), [x(2, 3, 4)]),
    ("CircularPad2d", ((1, 2, 0, 1),), [x(2, 3, 4, 5)]),
    ("CircularPad3d", (1,), [x(1, 2, 3, 4, 5)]),
    ("InstanceNorm1d", (3,), [x(2, 3, 6)]),
    ("InstanceNorm1d", (3, 1e-3, 0.1, True), [x(3, 6)]),  # unbatched, affine
    ("InstanceNorm2d", (3,), [x(2, 3, 4, 5)]),
    ("InstanceNorm2d", (3,), [x(3, 4, 5)]),
    ("InstanceNorm3d", (2, 1e-5, 0.1, True), [x(2, 2, 3, 4, 5)]),
    ("PairwiseDistance", (), [x(4, 5), x(4, 5)]),
    ("PairwiseDistance", (1.0, 1e-3, True), [x(4, 5), x(4, 5)]),
    ("CosineSimilarity", (), [x(4, 5), x(4, 5)]),
    ("CosineSimilarity", (0, 1e-6), [x(4, 5), x(1, 5)]),
]


@pytest.mark.parametrize("name,args,inputs", CASES, ids=[c[0] + str(i) for i, c in
                                                         enumerate(CASES)])
def test_layer_matches_torch(name, args, inputs):
    t_module = getattr(torch.nn, name)(*args).double()
    mg_module = getattr(nn, name)(*args).double()
    assert repr(mg_module) == repr(t_module)
    assert list(mg_module.state_dict()) == list(t_module.state_dict())
    compare(mg_module, t_module, inputs)


@pytest.mark.parametrize("momentum", [0.1, None])
def test_instance_norm_running_stats_match_torch(momentum):
    t_module = torch.nn.InstanceNorm2d(3, momentum=momentum, track_running_stats=True).double()
    mg_module = nn.InstanceNorm2d(3, momentum=momentum, track_running_stats=True).double()
    assert repr(mg_module) == repr(t_module)
    assert list(mg_module.state_dict()) == list(t_module.state_dict())
    for _ in range(3):
        compare(mg_module, t_module, [x(2, 3, 4, 5)])
    for key, value in t_module.state_dict().items():
        np.testing.assert_allclose(mg_module.state_dict()[key].numpy(), value.numpy(),
                                   rtol=1e-12)
    compare(mg_module.eval(), t_module.eval(), [x(2, 3, 4, 5)])


def test_instance_norm_feature_mismatch_is_torchs():
    with pytest.raises(ValueError) as expected:
        torch.nn.InstanceNorm2d(4, affine=True)(torch.zeros(2, 3, 4, 4))
    with pytest.raises(ValueError) as actual:
        nn.InstanceNorm2d(4, affine=True)(mg.zeros(2, 3, 4, 4))
    assert str(actual.value) == str(expected.value)
    with pytest.warns(UserWarning) as t_rec:
        torch.nn.InstanceNorm1d(4)(torch.randn(2, 3, 5))
    with pytest.warns(UserWarning) as m_rec:
        nn.InstanceNorm1d(4)(mg.randn(2, 3, 5))
    assert [str(w.message) for w in m_rec] == [str(w.message) for w in t_rec]


@pytest.mark.parametrize("name,shape", [("InstanceNorm2d", (2, 3)), ("InstanceNorm1d", (2,)),
                                        ("CircularPad2d", (4, 4)),
                                        ("CircularPad1d", (1, 2, 3, 4))])
def test_input_rank_errors_are_torchs(name, shape):
    with pytest.raises(ValueError) as expected:
        getattr(torch.nn, name)(3 if "Norm" in name else 1)(torch.zeros(shape))
    with pytest.raises(ValueError) as actual:
        getattr(nn, name)(3 if "Norm" in name else 1)(mg.zeros(shape))
    assert str(actual.value) == str(expected.value)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nn.InstanceNorm2d(3)(mg.zeros(1, 3, 2, 2))
