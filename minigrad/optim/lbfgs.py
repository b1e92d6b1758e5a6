"""L-BFGS with an optional strong-Wolfe line search (PyTorch's port of minFunc)."""
import numpy as np

from minigrad._array import is_array, namespace_of
from minigrad._tensor import Tensor, _wrap
from minigrad.autograd import grad_mode
from minigrad.optim._checks import check_lr
from minigrad.optim.optimizer import Optimizer, _bump, _no_grad_step, _scalar

__all__ = ["LBFGS"]


def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    """Minimiser of the cubic through (x1, f1, g1) and (x2, f2, g2), clipped to ``bounds``."""
    xmin_bound, xmax_bound = bounds if bounds is not None else (min(x1, x2), max(x1, x2))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if d2_square < 0:
        return (xmin_bound + xmax_bound) / 2.0
    d2 = d2_square ** 0.5
    if x1 <= x2:
        min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(min_pos, xmin_bound), xmax_bound)


def _strong_wolfe(obj_func, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9,
                  max_ls=25):
    """Line search along ``d`` from step ``t``: returns ``(f, g, t, evaluations)``."""
    d_norm = float(np.abs(d).max())
    g = g.copy()
    f_new, g_new = obj_func(x, t, d)
    ls_func_evals = 1
    gtd_new = float(g_new.dot(d))
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    ls_iter = 0
    # Bracketing phase: grow t until an interval holds a point meeting the conditions.
    while ls_iter < max_ls:
        if f_new > (f + c1 * t * gtd) or (ls_iter > 1 and f_new >= f_prev):
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.copy()], [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.copy()], [gtd_prev, gtd_new]
            break
        min_step, max_step = t + 0.01 * (t - t_prev), t * 10
        tmp = t
        t = _cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new,
                               bounds=(min_step, max_step))
        t_prev, f_prev, g_prev, gtd_prev = tmp, f_new, g_new.copy(), gtd_new
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = float(g_new.dot(d))
        ls_iter += 1
    if ls_iter == max_ls:
        bracket, bracket_f, bracket_g = [0, t], [f, f_new], [g, g_new]

    # Zoom phase: shrink the bracket until the strong Wolfe conditions hold.
    insuf_progress = False
    low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0],
                               bracket[1], bracket_f[1], bracket_gtd[1])
        # Stay away from the bracket's ends: progress there is too slow.
        eps = 0.1 * (max(bracket) - min(bracket))
        if min(max(bracket) - t, t - min(bracket)) < eps:
            if insuf_progress or t >= max(bracket) or t <= min(bracket):
                if abs(t - max(bracket)) < abs(t - min(bracket)):
                    t = max(bracket) - eps
                else:
                    t = min(bracket) + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = float(g_new.dot(d))
        ls_iter += 1
        if f_new > (f + c1 * t * gtd) or f_new >= bracket_f[low_pos]:
            bracket[high_pos], bracket_f[high_pos] = t, f_new
            bracket_g[high_pos], bracket_gtd[high_pos] = g_new.copy(), gtd_new
            low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0:
                bracket[high_pos], bracket_f[high_pos] = bracket[low_pos], bracket_f[low_pos]
                bracket_g[high_pos] = bracket_g[low_pos]
                bracket_gtd[high_pos] = bracket_gtd[low_pos]
            bracket[low_pos], bracket_f[low_pos] = t, f_new
            bracket_g[low_pos], bracket_gtd[low_pos] = g_new.copy(), gtd_new
    return bracket_f[low_pos], bracket_g[low_pos], bracket[low_pos], ls_func_evals


def _loss_value(loss):
    # .item(), not float(loss): minigrad's own code never triggers the clog warning.
    return loss.item() if isinstance(loss, Tensor) else float(loss)


def _arrays(value):
    """State as stored (Tensors, lists of Tensors) -> numpy arrays for the update."""
    if isinstance(value, Tensor):
        return value._data
    if isinstance(value, list):
        return [_arrays(v) for v in value]
    return value


def _tensors(value):
    if is_array(value):  # numpy or a GPU array
        return _wrap(value)
    if isinstance(value, list):
        return [_tensors(v) for v in value]
    return value


class LBFGS(Optimizer):
    """L-BFGS: quasi-Newton steps from the last ``history_size`` gradient differences.

    ``step(closure)`` runs up to ``max_iter`` iterations; ``closure`` clears the
    gradients, computes the loss, calls ``backward`` and returns the loss.  One
    param group only.  ``line_search_fn`` is ``None`` or ``"strong_wolfe"``.

    >>> opt = minigrad.optim.LBFGS([w], line_search_fn="strong_wolfe")
    >>> def closure():
    ...     opt.zero_grad(); loss = ((w - 3) ** 2).sum(); loss.backward(); return loss
    >>> opt.step(closure)
    """

    _STATE_KEYS = ("d", "t", "old_dirs", "old_stps", "ro", "H_diag", "prev_flat_grad",
                   "prev_loss")

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7,
                 tolerance_change=1e-9, history_size=100, line_search_fn=None):
        check_lr(lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = dict(lr=lr, max_iter=max_iter, max_eval=max_eval,
                        tolerance_grad=tolerance_grad, tolerance_change=tolerance_change,
                        history_size=history_size, line_search_fn=line_search_fn)
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")

    @property
    def _params(self):
        # Read from the group each time, so a copied or unpickled optimizer still has it.
        return self.param_groups[0]["params"]

    def _gather_flat_grad(self):
        xp = namespace_of(self._params[0]._data)  # the parameters' device
        return xp.concatenate([xp.zeros(p._data.size, p._data.dtype) if p.grad is None
                               else p.grad._data.reshape(-1) for p in self._params])

    def _add_grad(self, step_size, update):
        offset = 0
        for p in self._params:
            numel = p._data.size
            p._data += step_size * update[offset:offset + numel].reshape(p._data.shape)
            _bump(p)
            offset += numel

    def _set_param(self, params_data):
        for p, data in zip(self._params, params_data):
            p._data[...] = data
            _bump(p)

    def _directional_evaluate(self, closure, x, t, d):
        self._add_grad(t, d)
        loss = _loss_value(closure())
        flat_grad = self._gather_flat_grad()
        self._set_param(x)
        return loss, flat_grad

    @_no_grad_step
    def step(self, closure):
        """Run up to ``max_iter`` L-BFGS iterations; returns the closure's first loss."""
        group = self.param_groups[0]

        def evaluate():
            with grad_mode.enable_grad():
                return closure()

        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        orig_loss = evaluate()
        loss = _loss_value(orig_loss)
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        if np.abs(flat_grad).max() <= group["tolerance_grad"]:
            return orig_loss
        memory = {k: _arrays(state.get(k)) for k in self._STATE_KEYS}
        self._iterate(evaluate, group, state, memory, loss, flat_grad)
        state.update({k: _tensors(v) for k, v in memory.items()})
        state.pop("al", None)
        return orig_loss

    def _direction(self, state, memory, flat_grad, history_size):
        """The two-loop recursion: ``-H @ flat_grad`` for the current inverse-Hessian guess."""
        if state["n_iter"] == 1:
            memory.update(old_dirs=[], old_stps=[], ro=[], H_diag=1)
            return -flat_grad
        old_dirs, old_stps, ro = memory["old_dirs"], memory["old_stps"], memory["ro"]
        y = flat_grad - memory["prev_flat_grad"]
        s = memory["d"] * memory["t"]
        ys = float(y.dot(s))
        if ys > 1e-10:  # keep the pair only if it keeps H positive definite
            if len(old_dirs) == history_size:
                old_dirs.pop(0), old_stps.pop(0), ro.pop(0)
            old_dirs.append(y), old_stps.append(s), ro.append(1.0 / ys)
            memory["H_diag"] = ys / float(y.dot(y))
        al = [None] * len(old_dirs)
        q = -flat_grad
        for i in range(len(old_dirs) - 1, -1, -1):
            al[i] = float(old_stps[i].dot(q)) * ro[i]
            q += -al[i] * old_dirs[i]
        r = q * memory["H_diag"]
        for i in range(len(old_dirs)):
            be_i = float(old_dirs[i].dot(r)) * ro[i]
            r += (al[i] - be_i) * old_stps[i]
        return r

    def _iterate(self, evaluate, group, state, memory, loss, flat_grad):
        lr = _scalar(group["lr"])
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn = group["line_search_fn"]
        current_evals = 1
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            d = memory["d"] = self._direction(state, memory, flat_grad, group["history_size"])
            memory["prev_flat_grad"] = flat_grad.copy()
            memory["prev_loss"] = prev_loss = loss
            if state["n_iter"] == 1:
                t = min(1.0, 1.0 / float(np.abs(flat_grad).sum())) * lr
            else:
                t = lr
            gtd = float(flat_grad.dot(d))
            if gtd > -tolerance_change:  # not a descent direction
                memory["t"] = t
                break
            if line_search_fn is not None:
                if line_search_fn != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x_init = [p._data.copy() for p in self._params]

                def obj_func(x, t, d):
                    return self._directional_evaluate(evaluate, x, t, d)

                loss, flat_grad, t, ls_func_evals = _strong_wolfe(
                    obj_func, x_init, t, d, loss, flat_grad, gtd, max_ls=max_eval - current_evals)
                self._add_grad(t, d)
                opt_cond = np.abs(flat_grad).max() <= tolerance_grad
            else:
                self._add_grad(t, d)
                ls_func_evals = 0
                if n_iter != max_iter:
                    loss = _loss_value(evaluate())
                    flat_grad = self._gather_flat_grad()
                    opt_cond = np.abs(flat_grad).max() <= tolerance_grad
                    ls_func_evals = 1
            memory["t"] = t
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals
            if (n_iter == max_iter or current_evals >= max_eval or opt_cond
                    or np.abs(d * t).max() <= tolerance_change
                    or abs(loss - prev_loss) < tolerance_change):
                break
