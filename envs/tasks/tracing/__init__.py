"""Program tracing: give exactly what a generated program prints.

Python programs and Brainfuck programs.
"""
