"""``argnums``: which positional arguments a transform differentiates, as torch.func checks it."""


def _validate_argnum(argnum, num_args):
    if not isinstance(argnum, int):
        raise RuntimeError(f"argnum must be int, got: {type(argnum)}")
    if 0 <= argnum < num_args:
        return argnum
    if -num_args <= argnum < 0:
        return argnum + num_args
    raise RuntimeError(f"Got argnum={argnum}, but only {num_args} positional inputs")


def validate_argnums(argnums, num_args):
    """``argnums`` with negative positions made positive; PyTorch's errors otherwise."""
    if not isinstance(argnums, (int, tuple)):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    if isinstance(argnums, int):
        return _validate_argnum(argnums, num_args)
    argnums = tuple(_validate_argnum(a, num_args) for a in argnums)
    if len(argnums) == 0:
        raise RuntimeError("argnums must be non-empty")
    if len(set(argnums)) != len(argnums):
        raise RuntimeError(f"argnums elements must be unique, got {argnums}")
    return argnums


def slice_argnums(args, argnums, as_tuple=True):
    """The arguments at ``argnums``: a tuple, or the one argument for an int unless
    ``as_tuple``."""
    argnums = validate_argnums(argnums, len(args))
    if isinstance(argnums, int):
        return (args[argnums],) if as_tuple else args[argnums]
    return tuple(args[i] for i in argnums)


def replace_argnums(args, argnums, new):
    """``args`` with the arguments at ``argnums`` replaced by ``new`` (shaped as
    ``slice_argnums(args, argnums, as_tuple=False)``)."""
    argnums = validate_argnums(argnums, len(args))
    args = list(args)
    if isinstance(argnums, int):
        args[argnums] = new
    else:
        for i, value in zip(argnums, new):
            args[i] = value
    return tuple(args)
