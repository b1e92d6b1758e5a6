"""The "clogs and leaks" essay's four figures, drawn by minigrad, and what minigrad warns.

    python examples/clogs_and_leaks.py [output_dir]

Writes forward.svg, backward.svg, clog.svg and leak.svg (or .dot files when the
Graphviz `dot` program is not installed) and prints the warnings minigrad gave.
"""
import math
import os
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import minigrad as mg  # noqa: E402


def draw(tensor, path, **kwargs):
    try:
        mg.viz.render(tensor, path, **kwargs)
    except RuntimeError as error:   # no Graphviz: keep the DOT text
        path = os.path.splitext(path)[0] + ".dot"
        with open(path, "w") as f:
            f.write(mg.viz.to_dot(tensor, **kwargs))
        print(f"  ({error.args[0].split('(')[0].strip()}; wrote DOT text instead)")
    print(f"  wrote {path}")


def show(caught):
    for w in caught:
        print(f"  {w.category.__name__} at {os.path.basename(w.filename)}:{w.lineno}:")
        for line in str(w.message).splitlines():
            print(f"    {line}")
    if not caught:
        print("  (no warning)")


def main(out_dir):
    os.makedirs(out_dir, exist_ok=True)

    print("1. Preliminaries: y = 2 * x**2 at x = 3 (forward graph)")
    x = mg.tensor(3.0, requires_grad=True)
    y = 2 * x ** 2
    draw(y, os.path.join(out_dir, "forward.svg"), params={"x": x}, direction="forward")

    print("2. The backward graph, with what each node saved")
    draw(y, os.path.join(out_dir, "backward.svg"), params={"x": x}, show_saved=True)
    y.backward()
    print(f"  x.grad = {x.grad.item()}  (d 2x^2/dx at 3 = 12)")

    print("3. The clog: from math import sqrt; y = sqrt(x) + x at x = 4")
    x = mg.tensor(4.0, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y = math.sqrt(x) + x
    show(caught)
    draw(y, os.path.join(out_dir, "clog.svg"), params={"x": x})
    y.backward()
    print(f"  x.grad = {x.grad.item()}  (the clog: 1.0 instead of 1.25)")
    x = mg.tensor(4.0, requires_grad=True)
    y = mg.sqrt(x) + x
    y.backward()
    print(f"  with minigrad.sqrt: x.grad = {x.grad.item()}")

    print("4. The leak: the truck loop")
    truck = {"velocity": mg.tensor(3.142), "position": mg.tensor(2.718)}

    def get_measurement(car_position):
        truck["position"] = truck["position"] + truck["velocity"]
        return mg.abs(truck["position"] - car_position)

    my_velocity = mg.tensor(0.01)
    my_position = mg.tensor(0.)
    stale = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for i in range(6):
            my_velocity.requires_grad_()
            my_position = my_position + my_velocity
            loss = get_measurement(my_position)
            stale.append(mg.autograd.graph.stats(loss).stale)
            if i == 5:
                draw(loss, os.path.join(out_dir, "leak.svg"))
            loss.backward()
            my_velocity = my_velocity.detach() - my_velocity.grad * 0.01
    show(caught)
    print(f"  stale nodes reachable from each loss before its backward: {stale}")

    print("   ...and the fixed loop: my_position = my_position.detach() + my_velocity")
    my_velocity = mg.tensor(0.01)
    my_position = mg.tensor(0.)
    stale = set()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for i in range(500):
            my_velocity.requires_grad_()
            my_position = my_position.detach() + my_velocity
            loss = get_measurement(my_position)
            stale.add(mg.autograd.graph.stats(loss).stale)
            loss.backward()
            my_velocity = my_velocity.detach() - my_velocity.grad * 0.01
    show(caught)
    print(f"  stale nodes before each backward, over 500 iterations: {sorted(stale)}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "clogs_and_leaks_figures")
