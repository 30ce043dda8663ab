"""Capitalise each word."""

LEVEL = 1
STYLE = "function"
ENTRY = "title_case"

STATEMENT = """
Write `title_case(s)` that returns `s` with the first character of every space-separated
word in upper case and the rest of the word in lower case. Spaces are kept exactly as they
are. Characters inside a word are lower-cased even after an apostrophe or a digit
(`"don't"` becomes `"Don't"`).
"""

REFERENCE = r"""
def title_case(s):
    return " ".join(w[:1].upper() + w[1:].lower() for w in s.split(" "))
"""

WRONG = [
    r"""
def title_case(s):
    return s.title()
""",
]

PUBLIC = [
    ("title_case('hello world')", "Hello World"),
    ("title_case('PYTHON is FUN')", "Python Is Fun"),
]

HIDDEN = [
    ("title_case('')", ""),
    ('title_case("don\'t stop")', "Don't Stop"),
    ("title_case('  two  spaces ')", "  Two  Spaces "),
    ("title_case('3rd place')", "3rd Place"),
    ("title_case('a')", "A"),
]

PERFORMANCE = [
    ("len(title_case('ab cd ' * 100000))", 600000),
]
