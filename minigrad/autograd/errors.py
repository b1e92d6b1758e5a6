"""PyTorch's wording for the autograd errors users search the web for."""

LEAF_INPLACE_ERROR = (
    "a leaf Variable that requires grad is being used in an in-place operation. "
    "Update parameters under `with minigrad.no_grad():`, or clone() the tensor first.")

FREED_GRAPH_ERROR = (
    "Trying to backward through the graph a second time (or directly access saved "
    "tensors after they have already been freed). Saved intermediate values of the graph "
    "are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if "
    "you need to backward through the graph a second time or if you need to access saved "
    "tensors after calling backward.")

SCALAR_OUTPUT_ERROR = "grad can be implicitly created only for scalar outputs"

NO_GRAD_FN_ERROR = "element {i} of tensors does not require grad and does not have a grad_fn"

UNUSED_INPUT_ERROR = (
    "The differentiated Tensor at index {index} appears to not have been used in the graph. "
    "Set allow_unused=True if this is the desired behavior.")

VERSION_ERROR = (  # PyTorch's text; {role} is ", which is output N of Op," or empty
    "one of the variables needed for gradient computation has been modified by an "
    "inplace operation: [{type} {shape}]{role} is at version {current}; expected version "
    "{saved} instead. Hint: {hint}")

VERSION_HINT = (
    "enable anomaly detection to find the operation that failed to compute its gradient, "
    "with minigrad.autograd.set_detect_anomaly(True, check_nan=False).")

VERSION_HINT_ANOMALY = (
    "the backtrace further above shows the operation that failed to compute its gradient. "
    "The variable in question was changed in there or anywhere later. Good luck!")

DETACHED_SAVED_ERROR = (
    "Trying to use a saved tensor that has been detached in-place, i.e. with .detach_().This "
    "is not supported, please use out-of-place `.detach()` instead")
