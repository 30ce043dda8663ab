"""Runs ``program.py`` as a program for one stdin/stdout test (shipped into the sandbox).

The trusted runner (`palaestra.verifiers._code_runner`) executes this file in the child
process of each stdin/stdout test; it then flushes standard output, which the host compares
with the expected output. This file only makes the child behave like a judge's process:

* the input is on descriptor 0 too (``open(0).read()``, ``os.read(0, n)``), not only on
  ``sys.stdin``;
* standard error goes nowhere (the runner would mix it into the compared output);
* ``sys.exit()``, ``sys.exit(0)`` and ``exit()`` end the program normally; any other exit
  status is a runtime error.

It runs inside the candidate's own process, so it grants nothing the candidate could not do
itself; the verdict still comes from the runner's channel and the host's comparison.
"""

import os
import sys


def _input_on_descriptor_zero():
    data = sys.stdin.buffer.read()
    try:
        fd = os.memfd_create("stdin")
    except (AttributeError, OSError):
        import tempfile

        handle = tempfile.TemporaryFile()
        fd = os.dup(handle.fileno())
        handle.close()
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    os.lseek(fd, 0, os.SEEK_SET)
    os.dup2(fd, 0)
    os.close(fd)
    sys.stdin = open(0, encoding="utf-8", errors="replace", closefd=False)


def _silence_stderr():
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 2)
    os.close(null)


def _main():
    _input_on_descriptor_zero()
    _silence_stderr()
    with open("program.py", encoding="utf-8") as f:
        source = f.read()
    try:
        exec(
            compile(source, "program.py", "exec"),
            {"__name__": "__main__", "__builtins__": __builtins__},
        )
    except SystemExit as e:
        if e.code not in (None, 0):
            raise


_main()
