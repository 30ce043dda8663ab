"""Count the primes up to n."""

LEVEL = 2
STYLE = "stdio"

STATEMENT = """
Read n (0 <= n <= 3 * 10^6) and print how many primes are less than or equal to n.
"""

REFERENCE = r"""
n = int(input())
if n < 2:
    print(0)
else:
    sieve = bytearray([1]) * (n + 1)
    sieve[0] = sieve[1] = 0
    i = 2
    while i * i <= n:
        if sieve[i]:
            sieve[i * i::i] = bytes(len(range(i * i, n + 1, i)))
        i += 1
    print(sum(sieve))
"""

WRONG = [
    r"""
n = int(input())
if n < 2:
    print(0)
else:
    sieve = bytearray([1]) * n
    sieve[0] = sieve[1] = 0
    i = 2
    while i * i < n:
        if sieve[i]:
            sieve[i * i::i] = bytes(len(range(i * i, n, i)))
        i += 1
    print(sum(sieve))
""",
]

PUBLIC = [
    ("10\n", "4\n"),
    ("30\n", "10\n"),
]

HIDDEN = [
    ("0\n", "0\n"),
    ("1\n", "0\n"),
    ("2\n", "1\n"),
    ("3\n", "2\n"),
    ("97\n", "25\n"),
]

PERFORMANCE = [
    ("3000000\n", "216816\n"),
]

HIDDEN_V1 = [
    ("4\n", "2\n"),
    ("49\n", "15\n"),
]

EQUIVALENT_MUTANTS = {
    "constant:2:7:1": "for n = 1 the sieve branch prints 0 too",
    "constant:7:8:1": "sieve[1] is 0, so a pass with i = 1 changes nothing",
}
