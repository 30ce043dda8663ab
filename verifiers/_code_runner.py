"""The trusted test runner shipped into the sandbox (standard library only, no Palaestra).

Usage inside the sandbox: ``python3 -I runner.py SOLUTION TESTS PER_TEST_S MEMORY_MB MAX_BYTES``.

The runner never runs candidate code itself. For each test it forks a child; the child drops
every descriptor of the runner, points its stdout/stderr at a private pipe or /dev/null,
imports the solution and computes *one* value, which it sends back over its own result pipe.
The runner, which the candidate cannot reach (it is made non-dumpable, so its /proc entries and
ptrace are closed to processes of the same user), writes one JSON line per test to its stdout:
the result channel. Expected values never enter the sandbox: the host compares.

* Early exit (``sys.exit``, ``os._exit``) or a crash in a child: that test has no value.
* Objects that only pretend to be equal (``__eq__`` returning True): values are serialised by
  exact type (``type(x) is int``, ...) with functions captured before any candidate code ran;
  anything else is reported as unserialisable.
* Printing "passed": a child's stdout is not the channel; for stdin/stdout tests it is the value,
  compared on the host.
* Infinite loops: each child is killed at its deadline (polling, no signals in the runner).
"""

import json
import os
import select
import sys
import time

_TYPE = type
_INT, _FLOAT, _STR, _BOOL, _LIST, _TUPLE, _DICT = int, float, str, bool, list, tuple, dict
_NONE = type(None)
_REPR = float.__repr__
_LEN = len


def encode(value, depth=0):
    """JSON text of a plain value, by exact type; raises TypeError for anything else."""
    t = _TYPE(value)
    if depth > 50:
        raise TypeError("nested too deeply")
    if t is _NONE:
        return "null"
    if t is _BOOL:
        return "true" if value else "false"
    if t is _INT:
        return _INT.__repr__(value)
    if t is _FLOAT:
        if value != value or value in (float("inf"), float("-inf")):
            return json.dumps({"__float__": _REPR(value)})
        return _REPR(value)
    if t is _STR:
        return json.dumps(_STR.__str__(value))
    if t is _LIST or t is _TUPLE:
        return "[" + ",".join(encode(v, depth + 1) for v in value) + "]"
    if t is _DICT:
        items = []
        for k, v in _DICT.items(value):
            if _TYPE(k) is not _STR:
                raise TypeError("dict keys must be str")
            items.append(json.dumps(_STR.__str__(k)) + ":" + encode(v, depth + 1))
        return "{" + ",".join(items) + "}"
    raise TypeError(f"cannot serialise a {t.__name__}")


def _non_dumpable():
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_dumpable = 4
        libc.prctl(pr_set_dumpable, 0, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def _child(solution, test, result_w, out_w, memory_mb):
    # Leave nothing of the runner reachable: only the result pipe and the output pipe stay open.
    keep = {result_w, out_w}
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(out_w, 1)
    os.dup2(out_w if test.get("stdin") is not None else null, 2)
    for fd in range(3, 1024):
        if fd not in keep:
            try:
                os.close(fd)
            except OSError:
                pass
    if memory_mb:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (memory_mb << 20, memory_mb << 20))
    report = os.fdopen(result_w, "w")
    namespace = {"__name__": "__main__" if test.get("stdin") is not None else "solution"}
    if test.get("stdin") is not None:
        import io

        sys.stdin = io.TextIOWrapper(io.BytesIO(test["stdin"].encode()))
    with open(solution, encoding="utf-8") as f:
        source = f.read()
    try:
        exec(compile(source, "solution.py", "exec"), namespace)
        if test.get("stdin") is not None:
            sys.stdout.flush()
            text = encode(None)
        else:
            text = encode(eval(compile(test["call"], "test", "eval"), namespace))
        report.write(text)
        report.flush()
    except BaseException as e:  # noqa: BLE001 - any failure is a failed test
        report.write(json.dumps({"__error__": _TYPE(e).__name__}))
        report.flush()
    os._exit(0)


def _run_one(solution, test, per_test_s, memory_mb, max_bytes):
    result_r, result_w = os.pipe()
    out_r, out_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(result_r)
        os.close(out_r)
        try:
            _child(solution, test, result_w, out_w, memory_mb)
        finally:
            os._exit(1)
    os.close(result_w)
    os.close(out_w)
    deadline = time.monotonic() + per_test_s
    buffers = {result_r: b"", out_r: b""}
    open_fds = [result_r, out_r]
    timed_out = False
    while open_fds:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            timed_out = True
            break
        ready, _, _ = select.select(open_fds, [], [], remaining)
        for fd in ready:
            chunk = os.read(fd, 65536)
            if not chunk:
                open_fds.remove(fd)
            elif _LEN(buffers[fd]) < max_bytes:
                buffers[fd] += chunk[: max_bytes - _LEN(buffers[fd])]
    try:
        os.kill(pid, 9)
    except ProcessLookupError:
        pass
    os.waitpid(pid, 0)
    os.close(result_r)
    os.close(out_r)
    if timed_out:
        return {"timeout": True}
    raw = buffers[result_r].decode("utf-8", "replace")
    if not raw:
        return {"missing": True}
    try:
        value = json.loads(raw)
    except ValueError:
        return {"missing": True}
    if isinstance(value, dict) and "__error__" in value:
        return {"exception": str(value["__error__"])[:100]}
    if test.get("stdin") is not None:
        return {"value": buffers[out_r].decode("utf-8", "replace")}
    return {"value": value}


def main():
    solution, tests_path, per_test_s, memory_mb, max_bytes = sys.argv[1:6]
    _non_dumpable()
    with open(tests_path, encoding="utf-8") as f:
        tests = json.load(f)
    out = sys.stdout
    for index, test in enumerate(tests):
        result = _run_one(solution, test, float(per_test_s), int(memory_mb), int(max_bytes))
        out.write(json.dumps({"test": index, **result}) + "\n")
        out.flush()
    out.write(json.dumps({"done": _LEN(tests)}) + "\n")
    out.flush()


if __name__ == "__main__":
    main()
