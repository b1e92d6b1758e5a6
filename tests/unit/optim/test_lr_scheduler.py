"""Every scheduler produces PyTorch's learning-rate sequence."""
import warnings

import numpy as np
import pytest

import minigrad as mg
from minigrad import optim
from minigrad.optim import lr_scheduler

torch = pytest.importorskip("torch")


def _optimizers(name="SGD", groups=2, **options):
    mine = [{"params": [mg.tensor(np.ones(2), requires_grad=True)], "lr": 0.1 * (i + 1)}
            for i in range(groups)]
    theirs = [{"params": [torch.ones(2, dtype=torch.float64, requires_grad=True)], "lr": 0.1 * (i + 1)}
              for i in range(groups)]
    return getattr(optim, name)(mine, **options), getattr(torch.optim, name)(theirs, **options)


def _sequence(opt, sched, steps, metrics=None):
    lrs = []
    for i in range(steps):
        opt.step()
        sched.step() if metrics is None else sched.step(metrics[i])
        lrs.append(list(sched.get_last_lr()) + [g["lr"] for g in opt.param_groups])
    return lrs


CASES = [
    ("StepLR", dict(step_size=3, gamma=0.5), {}),
    ("MultiStepLR", dict(milestones=[2, 5, 5, 9], gamma=0.3), {}),
    ("ExponentialLR", dict(gamma=0.9), {}),
    ("CosineAnnealingLR", dict(T_max=7, eta_min=0.001), {}),
    ("CosineAnnealingLR", dict(T_max=4), {}),
    ("LambdaLR", dict(lr_lambda=lambda epoch: 1 / (1 + epoch) ** 0.5), {}),
    ("MultiplicativeLR", dict(lr_lambda=lambda epoch: 0.9 if epoch % 2 else 0.99), {}),
    ("ConstantLR", dict(factor=0.25, total_iters=4), {}),
    ("LinearLR", dict(start_factor=0.1, end_factor=0.9, total_iters=7), {}),
    ("PolynomialLR", dict(total_iters=12, power=2.0), {}),
    ("CosineAnnealingWarmRestarts", dict(T_0=3, T_mult=2, eta_min=0.01), {}),
    ("CosineAnnealingWarmRestarts", dict(T_0=4), {}),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=4), dict(momentum=0.9)),
    ("CyclicLR", dict(base_lr=[0.01, 0.02], max_lr=0.1, step_size_up=3, step_size_down=5,
                      mode="triangular2"), dict(momentum=0.9)),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=2, mode="exp_range", gamma=0.95,
                      cycle_momentum=False), {}),
    ("CyclicLR", dict(base_lr=0.01, max_lr=0.1, step_size_up=3, scale_fn=lambda x: 0.9 ** x,
                      scale_mode="iterations"), dict(momentum=0.5)),
    ("OneCycleLR", dict(max_lr=1.0, total_steps=25), dict(momentum=0.9)),
    ("OneCycleLR", dict(max_lr=[0.5, 1.0], epochs=5, steps_per_epoch=5, anneal_strategy="linear",
                        three_phase=True), dict(momentum=0.9)),
]


@pytest.mark.parametrize("name,options,opt_options", CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_lr_sequence_matches_torch(name, options, opt_options):
    opt, t_opt = _optimizers(**opt_options)
    sched = getattr(lr_scheduler, name)(opt, **options)
    t_sched = getattr(torch.optim.lr_scheduler, name)(t_opt, **options)
    steps = 24 if name == "OneCycleLR" else 30
    np.testing.assert_allclose(_sequence(opt, sched, steps), _sequence(t_opt, t_sched, steps),
                               rtol=1e-12)
    if name in ("OneCycleLR", "CyclicLR") and "momentum" in opt_options:  # the other way
        assert [g["momentum"] for g in opt.param_groups] == pytest.approx(
            [g["momentum"] for g in t_opt.param_groups], rel=1e-12)


def test_one_cycle_cycles_adams_beta1():
    opt, t_opt = _optimizers("Adam")
    sched = lr_scheduler.OneCycleLR(opt, max_lr=0.01, total_steps=10)
    t_sched = torch.optim.lr_scheduler.OneCycleLR(t_opt, max_lr=0.01, total_steps=10)
    for _ in range(6):
        opt.step(), sched.step(), t_opt.step(), t_sched.step()
        assert opt.param_groups[0]["betas"] == pytest.approx(t_opt.param_groups[0]["betas"])
    with pytest.raises(ValueError, match="Tried to step 11 times"):
        for _ in range(5):
            sched.step()


@pytest.mark.parametrize("options", [
    dict(), dict(mode="max", factor=0.5, patience=2, threshold=0.1, threshold_mode="abs"),
    dict(patience=1, cooldown=2, min_lr=[0.01, 0.05], threshold=0.01)])
def test_reduce_on_plateau_matches_torch(options):
    metrics = [1.0, 0.9, 0.9, 0.95, 0.9, 0.89, 0.9, 1.0, 1.0, 1.0, 0.5, 0.6, 0.6, 0.6, 0.6, 0.6,
               0.6, 0.6, 0.6, 0.6, 0.7, 0.7, 0.7, 0.7, 0.7, 0.7, 0.7, 0.7, 0.7, 0.7] * 2
    opt, t_opt = _optimizers()
    sched = lr_scheduler.ReduceLROnPlateau(opt, **options)
    t_sched = torch.optim.lr_scheduler.ReduceLROnPlateau(t_opt, **options)
    np.testing.assert_allclose(_sequence(opt, sched, 60, metrics),
                               _sequence(t_opt, t_sched, 60, metrics), rtol=1e-12)
    best = 0.1 if sched.mode == "min" else 2.0
    sched.step(mg.tensor(best))  # a one-element tensor is a metric too
    assert sched.best == pytest.approx(best)


def test_user_subclass_and_state_dict_resume():
    class Halve(lr_scheduler.LRScheduler):
        def get_lr(self):
            return [base * 0.5 ** self.last_epoch for base in self.base_lrs]

    opt, _ = _optimizers()
    sched = Halve(opt)
    for _ in range(3):
        opt.step(), sched.step()
    assert sched.get_last_lr() == pytest.approx([0.1 / 8, 0.2 / 8])
    state = sched.state_dict()
    assert "optimizer" not in state and state["last_epoch"] == 3

    opt2, _ = _optimizers()
    opt2.load_state_dict(opt.state_dict())
    resumed = lr_scheduler.StepLR(opt2, step_size=2)
    resumed.load_state_dict(lr_scheduler.StepLR(opt, step_size=2).state_dict())
    assert resumed.base_lrs == [0.1, 0.2]


def test_resume_without_initial_lr_raises_key_error():
    opt, _ = _optimizers()
    with pytest.raises(KeyError, match="param 'initial_lr' is not specified in param_groups\\[0\\]"):
        lr_scheduler.StepLR(opt, step_size=2, last_epoch=3)


def test_warns_when_scheduler_steps_before_optimizer():
    opt, _ = _optimizers()
    sched = lr_scheduler.ExponentialLR(opt, gamma=0.9)
    with pytest.warns(UserWarning, match="Detected call of `lr_scheduler.step\\(\\)` before"):
        sched.step()
    opt2, _ = _optimizers()
    sched2 = lr_scheduler.ExponentialLR(opt2, gamma=0.9)
    opt2.step()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sched2.step()


@pytest.mark.parametrize("make,error,message", [
    (lambda o: lr_scheduler.StepLR(object(), 2), TypeError, "object is not an Optimizer"),
    (lambda o: lr_scheduler.LambdaLR(o, [lambda e: 1.0]), ValueError, "Expected 2 lr_lambdas, but got 1"),
    (lambda o: lr_scheduler.ReduceLROnPlateau(o, factor=1.0), ValueError, "Factor should be < 1.0."),
    (lambda o: lr_scheduler.ReduceLROnPlateau(o, mode="avg"), ValueError, "mode avg is unknown!"),
    (lambda o: lr_scheduler.OneCycleLR(o, max_lr=1.0), ValueError,
     "You must define either total_steps OR"),
    (lambda o: lr_scheduler.OneCycleLR(o, max_lr=[1.0], total_steps=3), ValueError,
     "max_lr must have the same length as optimizer.param_groups"),
])
def test_errors_match_torch(make, error, message):
    opt, _ = _optimizers()
    with pytest.raises(error, match=message.replace("(", r"\(").replace(")", r"\)")):
        make(opt)


@pytest.mark.parametrize("milestones", [[4], [3, 9]])
def test_sequential_lr_matches_torch(milestones):
    def build(lib, opt):
        sch = lib.optim.lr_scheduler
        parts = [sch.LinearLR(opt, start_factor=0.1, total_iters=4),
                 sch.CosineAnnealingLR(opt, T_max=6, eta_min=0.01),
                 sch.ExponentialLR(opt, gamma=0.8)][:len(milestones) + 1]
        return sch.SequentialLR(opt, parts, milestones=milestones)

    opt, t_opt = _optimizers()
    sched, t_sched = build(mg, opt), build(torch, t_opt)
    np.testing.assert_allclose(_sequence(opt, sched, 20), _sequence(t_opt, t_sched, 20), rtol=1e-12)
    state = sched.state_dict()
    assert len(state["_schedulers"]) == len(milestones) + 1 and "optimizer" not in state


def test_warm_restarts_with_fractional_epochs_match_torch():
    opt, t_opt = _optimizers()
    sched = lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=3)
    t_sched = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(t_opt, T_0=2, T_mult=3)
    for epoch in [0.5, 1.0, 2.25, 7.5, 9.0, 20.0, 3.0]:
        sched.step(epoch), t_sched.step(epoch)
        assert sched.get_last_lr() == pytest.approx(t_sched.get_last_lr(), rel=1e-12)
    with pytest.raises(ValueError, match="Expected non-negative epoch, but got -1"):
        sched.step(-1)


@pytest.mark.parametrize("name,options", [
    ("StepLR", dict(step_size=3)), ("MultiStepLR", dict(milestones=[2, 5])),
    ("ExponentialLR", dict(gamma=0.9)), ("CosineAnnealingLR", dict(T_max=5)),
    ("ConstantLR", {}), ("LinearLR", {}), ("PolynomialLR", dict(total_iters=8))])
def test_step_with_an_epoch_uses_the_closed_form_as_torch(name, options):
    opt, t_opt = _optimizers()
    sched = getattr(lr_scheduler, name)(opt, **options)
    t_sched = getattr(torch.optim.lr_scheduler, name)(t_opt, **options)
    opt.step(), t_opt.step()
    for epoch in [4, 1, 7, 7, 2]:
        with pytest.warns(UserWarning, match="The epoch parameter in `scheduler.step\\(\\)`"):
            sched.step(epoch)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t_sched.step(epoch)
        assert sched.get_last_lr() == pytest.approx(t_sched.get_last_lr(), rel=1e-12)


def test_chained_scheduler_matches_torch():
    def build(lib, opt):
        sch = lib.optim.lr_scheduler
        return sch.ChainedScheduler([sch.ConstantLR(opt, factor=0.1, total_iters=2),
                                     sch.ExponentialLR(opt, gamma=0.9)])

    opt, t_opt = _optimizers()
    sched, t_sched = build(mg, opt), build(torch, t_opt)
    np.testing.assert_allclose(_sequence(opt, sched, 10), _sequence(t_opt, t_sched, 10), rtol=1e-12)
    other, _ = _optimizers()
    with pytest.raises(ValueError, match="expects all schedulers to belong to the same optimizer"):
        lr_scheduler.ChainedScheduler([lr_scheduler.StepLR(opt, 2), lr_scheduler.StepLR(other, 2)])
    with pytest.raises(ValueError, match="does not support `ReduceLROnPlateau`"):
        lr_scheduler.SequentialLR(opt, [lr_scheduler.ReduceLROnPlateau(opt)], milestones=[])
