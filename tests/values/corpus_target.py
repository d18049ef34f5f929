"""Target of test_values_exact.py: builds a corpus of values, prints the
repr() of each and of every local of the frames below, as one JSON line,
then waits to be read (live) or dumped (core)."""
import json
import sys
import time


class Plain:
    def __init__(self, x):
        self.x = x


class Slotted:
    __slots__ = ("a", "b")

    def __init__(self):
        self.a = 1
        self.b = 2


def corpus():
    recursive_list = [1, 2]
    recursive_list.append(recursive_list)
    recursive_dict = {"k": 1}
    recursive_dict["self"] = recursive_dict
    deleted = {"a": 1, "b": 2, "c": 3, "d": 4}
    del deleted["b"]
    deleted["e"] = 5
    split = Plain(3).__dict__
    p = Plain(5)
    p.y = "why"
    big = 7 ** 300
    values = {
        "none": None, "true": True, "false": False, "ellipsis": ..., "notimpl": NotImplemented,
        "zero": 0, "small": 42, "neg": -17, "int64": 2 ** 63, "negbig": -(2 ** 100) + 1,
        "big": big, "huge": 3 ** 2000,
        "floats": [0.0, -0.0, 1.5, 0.1, 1e16, 1e15, 1e-05, 0.0001, 123456.789, -2.5e-300,
                   float("inf"), float("-inf"), float("nan"), 1 / 3],
        "ascii": "hello", "quotes": "it's", "both": "it's \"q\"", "escapes": "a\tb\nc\\\x00\x7f",
        "latin1": "caf\xe9 \xa0 \xad", "ucs2": "\u20ac \u4e2d\u6587 \u2028", "ucs4": "\U0001F600 x",
        "surrogate": "\udc80", "long_str": "x" * 500, "empty_str": "",
        "bytes": b"ab'\x00\xff", "empty_bytes": b"", "dq_bytes": b"it's",
        "tuple": (1, "two", 3.0), "single": (1,), "empty_tuple": (),
        "list": [1, [2, [3, [4]]]], "long_list": list(range(50)), "empty_list": [],
        "dict": {"a": 1, 2: "b", (1, 2): [3]}, "deleted": deleted, "split": split,
        "empty_dict": {}, "recursive_list": recursive_list, "recursive_dict": recursive_dict,
        "set": {1}, "empty_set": set(), "frozenset": frozenset({"x"}), "empty_frozenset": frozenset(),
        "type_int": int, "type_user": Plain, "type_dict": dict,
        "function": corpus, "lambda": lambda: 0, "builtin": len, "builtin_method": [].append,
        "bound": p.__init__, "module": json, "module_builtin": sys,
        "code": corpus.__code__, "instance": p, "slotted": Slotted(),
        "nested": {"k": [{"deep": [1]}]},
    }
    return values


def frame_locals(frame):
    out = []
    code = frame.f_code
    for name, value in frame.f_locals.items():
        out.append([name, repr(value)])
    return out


def instance_parts(value):
    """For an instance whose class keeps object's repr: its class's name,
    its id and its attributes as [name, repr] (its __dict__, then the
    __slots__ of its classes from the most derived); else None."""
    if type(value).__repr__ is not object.__repr__:
        return None
    attrs = [[k, repr(v)] for k, v in getattr(value, "__dict__", {}).items()]
    for cls in type(value).__mro__:
        for slot in cls.__dict__.get("__slots__", ()):
            if hasattr(value, slot):
                attrs.append([slot, repr(getattr(value, slot))])
    return [type(value).__name__, id(value), attrs]


def frame_instances(frame):
    """instance_parts of each local that has them, by name."""
    return {name: parts for name, parts in
            ((n, instance_parts(v)) for n, v in frame.f_locals.items()) if parts}


def report(values):
    """Print the reprs, then wait: inner's and outer's locals are complete."""
    reprs = {name: repr(v) for name, v in values.items()}
    addrs = {name: id(v) for name, v in values.items()}
    frames = [{"qualname": f.f_code.co_qualname, "locals": frame_locals(f),
               "instances": frame_instances(f)}
              for f in (sys._getframe(1), sys._getframe(2))]
    print(json.dumps({"reprs": reprs, "ids": addrs, "frames": frames}), flush=True)
    sys.stdin.readline()  # @stop: the test reads us here


def inner(arg, *rest, flag=None, **kw):
    local_list = [arg, flag]
    captured = "cell"
    plain = Plain(local_list)
    plain.y = "why"
    slotted = Slotted()

    def closure():
        return captured
    values = corpus()
    report(values)
    return closure


def outer(n):
    text = "outer"
    return inner(n, 1, 2, flag=True, extra="kw")


outer(7)
