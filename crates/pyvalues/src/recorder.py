"""minrepro's value recorder: runs an instrumented program as __main__ and records, per site,
the value of its last evaluation when it is a plain literal.

Usage: PYTHON recorder.py OUT INSTRUMENTED PROGRAM [ARG...]

INSTRUMENTED is PROGRAM's text with every site i wrapped as
_minrepro_end(i, _minrepro_begin(i), EXPR); it is compiled under PROGRAM's path and run
with sys.argv = [PROGRAM, ARG...] and sys.path[0] = PROGRAM's directory, as `PYTHON PROGRAM`
would. At exit (an uncaught exception included) OUT receives one JSON object:
{"sites": [[i, text_or_null, agreed, tainted, raised, count], ...]} for every evaluated site:
text is the value's literal, or for a value that has none, a call of the program's own names
that rebuilds it (see _rebuild).

A site is *tainted* when its evaluation entered third-party code (a function whose file is
neither PROGRAM, nor this file, nor in the standard library; site-packages count as third
party), or produced or used a value a tainted evaluation produced, or an object of a class
defined in third-party code, or a third-party module (whose attributes are the library's values). *raised*: some evaluation did not complete.
"""

import builtins
import json
import math
import os
import site
import sys
import sysconfig
import threading

_MAIN = None  # the program's module, once it runs
OUT, INSTRUMENTED, PROGRAM = sys.argv[1], sys.argv[2], os.path.abspath(sys.argv[3])
HERE = os.path.abspath(__file__)
MAX_REPR = 200
MAX_ITEMS = 32


def _dirs(names):
    found = []
    for name in names:
        try:
            path = sysconfig.get_paths().get(name)
        except Exception:
            path = None
        if path:
            found.append(os.path.realpath(path))
    return found


_SITE_DIRS = set(_dirs(["purelib", "platlib"]))
try:
    _SITE_DIRS.update(os.path.realpath(p) for p in site.getsitepackages())
    _SITE_DIRS.add(os.path.realpath(site.getusersitepackages()))
except Exception:
    pass
_STDLIB_DIRS = [d for d in _dirs(["stdlib", "platstdlib"]) if d not in _SITE_DIRS]
_OWN = {PROGRAM, os.path.realpath(PROGRAM), HERE, os.path.realpath(HERE)}


def _under(path, dirs):
    return any(path == d or path.startswith(d + os.sep) for d in dirs)


_file_verdicts = {}


def _third_party_file(filename):
    verdict = _file_verdicts.get(filename)
    if verdict is None:
        if not filename or filename.startswith("<") or filename in _OWN:
            verdict = False
        else:
            real = os.path.realpath(filename)
            if real in _OWN:
                verdict = False
            elif _under(real, _SITE_DIRS):
                verdict = True
            else:
                verdict = not _under(real, _STDLIB_DIRS)
        _file_verdicts[filename] = verdict
    return verdict


_module_verdicts = {}


def _third_party_module(name):
    if not name:
        return False
    verdict = _module_verdicts.get(name)
    if verdict is None:
        module = sys.modules.get(name)
        if module is None and "." in name:
            module = sys.modules.get(name.split(".")[0])
        filename = getattr(module, "__file__", None) if module is not None else None
        verdict = bool(filename) and _third_party_file(filename)
        _module_verdicts[name] = verdict
    return verdict


_type_verdicts = {}
_MODULE = type(sys)


def _third_party_type(kind):
    verdict = _type_verdicts.get(kind)
    if verdict is None:
        verdict = any(
            _third_party_module(getattr(k, "__module__", None)) for k in kind.__mro__
        )
        _type_verdicts[kind] = verdict
    return verdict


# The taint counter: it moves whenever third-party code runs or a tainted value is made, so a
# site whose begin and end see different counts was tainted.
_state = [0]
_code_verdicts = {}


def _profile(frame, event, arg):
    if event == "call":
        code = frame.f_code
        verdict = _code_verdicts.get(code)
        if verdict is None:
            verdict = _code_verdicts[code] = _third_party_file(code.co_filename)
        if verdict:
            _state[0] += 1
    elif event == "c_call":
        module = getattr(arg, "__module__", None)
        if module is None:
            owner = getattr(arg, "__self__", None)
            if isinstance(owner, _MODULE):
                module = owner.__name__
            elif owner is not None:
                module = getattr(type(owner), "__module__", None)
        if _third_party_module(module):
            _state[0] += 1


_LITERAL_SCALARS = (int, bool, type(None))


def _literal(value, budget):
    """Whether `value` is a plain literal within `budget` (a one-item list of items left)."""
    budget[0] -= 1
    if budget[0] < 0:
        return False
    kind = type(value)
    if kind in _LITERAL_SCALARS:
        return True
    if kind is float:
        return math.isfinite(value)
    if kind is str:
        # An object's default repr holds its address, which differs from run to run.
        return len(value) <= MAX_REPR and " at 0x" not in value
    if kind is bytes:
        return len(value) <= MAX_REPR
    if kind is tuple or kind is list:
        return all(_literal(v, budget) for v in value)
    if kind is dict:
        return all(_literal(k, budget) and _literal(v, budget) for k, v in value.items())
    return False


def _repr(value):
    """The value's literal, or None."""
    if not _literal(value, [MAX_ITEMS]):
        return None
    try:
        text = repr(value)
    except Exception:
        return None
    return text if len(text) <= MAX_REPR else None


# A value without a literal may still be rebuilt by a short call, when what the failure needs
# of it is its kind and shape rather than its contents: an instance of the program's own class
# made by a constructor that takes no arguments (`Linear()`), a library's array made by its
# module's `zeros` with the same type, shape, dtype and device (`np.zeros((3, 4))`). The call
# names only what the program's module binds; the candidate's run judges whether the contents
# mattered (the substitution is rejected when they did).
_rebuilds = {}
MAX_ELEMENTS = 1 << 20


def _rebuild(value):
    """A call rebuilding `value` (see above), or None."""
    kind = type(value)
    try:
        if kind.__module__ == "__main__":
            key = kind
        elif _third_party_type(kind):
            shape = getattr(value, "shape", None)
            if shape is None:
                return None
            shape = tuple(int(n) for n in shape)
            dtype, device = getattr(value, "dtype", None), getattr(value, "device", None)
            key = (kind, shape, str(dtype), str(device))
        else:
            return None
        if key not in _rebuilds:
            _rebuilds[key] = _instance(kind) if key is kind else _array(value, key)
    except Exception:
        return None
    return _rebuilds[key]


def _instance(kind):
    """`Name()` for a class of the program's module bound to its own name, whose construction
    needs no argument (checked on its signature: calling it would run the program's code)."""
    if _MAIN.__dict__.get(kind.__name__) is not kind or kind.__qualname__ != kind.__name__:
        return None
    if kind.__new__ is not object.__new__ or issubclass(kind, BaseException):
        return None
    init = kind.__init__
    if init is not object.__init__:
        code = getattr(init, "__code__", None)
        if code is None:
            return None
        required = code.co_argcount - len(init.__defaults__ or ())
        keywords = set(code.co_varnames[code.co_argcount : code.co_argcount + code.co_kwonlyargcount])
        if required > 1 or not keywords <= set(init.__kwdefaults__ or ()):
            return None
    return kind.__name__ + "()"


def _array(value, key):
    """`alias.zeros(shape)` (with `dtype=alias.NAME` when needed) for an array of a library
    whose module the program binds as `alias`, when evaluating it gives the same type, shape,
    dtype and device; tried on the program's names after the fact, never while it runs."""
    kind, shape, dtype, device = key
    if dtype == "None" or len(shape) > 8 or math.prod(shape) > MAX_ELEMENTS:
        return None
    module = sys.modules.get(kind.__module__.split(".")[0])
    aliases = sorted(
        (n for n, v in _MAIN.__dict__.items() if v is module and n.isidentifier()),
        key=lambda n: (len(n), n),
    )
    if module is None or not aliases or not callable(getattr(module, "zeros", None)):
        return None
    alias = aliases[0]
    forms = ["%s.zeros(%r)" % (alias, shape)]
    name = dtype.rsplit(".", 1)[-1]
    if name.isidentifier():
        forms.append("%s.zeros(%r, dtype=%s.%s)" % (alias, shape, alias, name))
    profile = sys.getprofile()
    sys.setprofile(None)
    try:
        for form in forms:
            made = eval(form, dict(_MAIN.__dict__))
            same = (type(made), tuple(made.shape), str(made.dtype), str(getattr(made, "device", None)))
            if same == key:
                return form
    finally:
        sys.setprofile(profile)
    return None


def _text(value):
    """The value's literal, else its rebuilding call, else None."""
    text = _repr(value)
    return text if text is not None else _rebuild(value)


_begins = {}
_ends = {}
_last = {}
_agreed = {}
_tainted = {}
# Values tainted evaluations produced, by id (kept alive so that ids are not reused).
_tainted_values = {}


def _minrepro_begin(i):
    _begins[i] = _begins.get(i, 0) + 1
    return _state[0]


def _minrepro_end(i, token, value):
    tainted = _state[0] != token or id(value) in _tainted_values
    if not tainted:
        tainted = _third_party_type(type(value))
    if not tainted and type(value) is _MODULE:
        # Reading a third-party module's attribute runs none of its code, yet the value is the
        # library's: `heavy.READY` must stay, so the module taints what is read through it.
        tainted = _third_party_module(getattr(value, "__name__", None))
    if tainted:
        _tainted[i] = True
        _tainted_values[id(value)] = value
        _state[0] += 1
    text = _text(value)
    count = _ends.get(i, 0) + 1
    _ends[i] = count
    if count > 1 and (text is None or _last.get(i) != text):
        _agreed[i] = False
    _last[i] = text
    return value


def _dump():
    rows = []
    for i in sorted(_begins):
        count = _ends.get(i, 0)
        rows.append(
            [
                i,
                _last.get(i),
                _agreed.get(i, True) and _last.get(i) is not None,
                _tainted.get(i, False),
                _begins[i] != count,
                count,
            ]
        )
    with open(OUT, "w", encoding="utf-8") as out:
        json.dump({"sites": rows}, out)


def _main():
    with open(INSTRUMENTED, encoding="utf-8") as f:
        text = f.read()
    code = compile(text, PROGRAM, "exec", dont_inherit=True)
    builtins._minrepro_begin = _minrepro_begin
    builtins._minrepro_end = _minrepro_end
    global _MAIN
    main = _MAIN = _MODULE("__main__")
    main.__file__ = PROGRAM
    main.__cached__ = None
    main.__builtins__ = builtins
    sys.modules["__main__"] = main
    sys.argv = [PROGRAM] + sys.argv[4:]
    sys.path[0] = os.path.dirname(PROGRAM)
    pid = os.getpid()
    threading.setprofile(_profile)
    sys.setprofile(_profile)
    try:
        exec(code, main.__dict__)
    finally:
        sys.setprofile(None)
        threading.setprofile(None)
        if os.getpid() == pid:
            _dump()


_main()
