"""Builds tests/data/math_labelled.jsonl: labelled (completion, reference, label) math pairs.

Each row of SPECS is (kind, reference, answers judged equivalent, answers judged not
equivalent), written by hand for Palaestra. A label is what a careful human grader would say
given a problem whose expected answer is the reference. Each answer is put into a completion in
one of several realistic styles (boxed, <think> then boxed, <answer> tags, a "Final answer:"
line), rotating deterministically. Run: python tests/data/build_math_labelled.py
"""

from __future__ import annotations

import json
from pathlib import Path

SPECS: list[tuple[str, str, list[str], list[str]]] = [
    # integers
    ("integer", "42", ["42", "42.0", "+42", "\\frac{84}{2}"], ["41", "420", "-42"]),
    ("integer", "-7", ["-7", "−7", "-\\frac{14}{2}"], ["7", "-8"]),
    ("integer", "0", ["0", "0.00"], ["1", "-1"]),
    ("integer", "123456", ["123456", "123,456", "123{,}456"], ["123460", "123455", "12345"]),
    ("integer", "1000000", ["1000000", "10^6", "1,000,000"], ["100000", "10^7"]),
    ("integer", "2016", ["2016", "２０１６"], ["2015", "2017"]),
    ("integer", "3", ["3", "\\sqrt{9}", "3^1"], ["\\sqrt{3}", "9"]),
    ("integer", "64", ["64", "2^6", "4^3"], ["2^5", "63"]),
    ("integer", "720", ["720", "6!"], ["5!", "721"]),
    ("integer", "5", ["5", "x = 5", "n=5"], ["2x+1=11", "6"]),
    ("integer", "12", ["12", "12 \\text{ cm}", "12\\text{ inches}"], ["13", "1.2"]),
    ("integer", "8", ["8", "\\dfrac{16}{2}", "2^{3}"], ["\\frac{1}{8}", "-8"]),
    ("integer", "100", ["100", "10^2", "100.0"], ["99.9", "1000"]),
    ("integer", "17", ["17"], ["71", "16", "18"]),
    ("integer", "945", ["945"], ["954", "944"]),
    ("integer", "336", ["336"], ["363"]),
    ("integer", "2", ["2", "\\log_2 4"], ["4", "\\frac{1}{2}"]),
    # fractions
    (
        "fraction",
        "\\frac{1}{2}",
        ["\\frac{1}{2}", "\\frac12", "0.5", "1/2", "\\dfrac{2}{4}"],
        ["\\frac{1}{3}", "2", "0.25"],
    ),
    (
        "fraction",
        "\\frac{3}{4}",
        ["\\frac{3}{4}", "0.75", "\\tfrac{3}{4}", "\\frac{6}{8}"],
        ["\\frac{4}{3}", "0.7", "0.8"],
    ),
    (
        "fraction",
        "-\\frac{5}{3}",
        ["-\\frac{5}{3}", "\\frac{-5}{3}", "-5/3"],
        ["\\frac{5}{3}", "-1.6", "-1.67"],
    ),
    (
        "fraction",
        "\\frac{1}{3}",
        ["\\frac{1}{3}", "0.333333", "0.3333333"],
        ["0.33", "0.3", "0.333", "\\frac{3}{10}"],
    ),
    (
        "fraction",
        "\\frac{7}{12}",
        ["\\frac{7}{12}", "\\frac{14}{24}"],
        ["\\frac{12}{7}", "\\frac{7}{13}", "0.58"],
    ),
    ("fraction", "\\frac{1}{2^{99}}", ["\\frac{1}{2^{99}}", "2^{-99}"], ["\\frac{1}{2^{98}}", "0"]),
    (
        "fraction",
        "\\frac{25}{4}",
        ["\\frac{25}{4}", "6.25", "6\\frac{1}{4}"],
        ["6.2", "\\frac{4}{25}"],
    ),
    ("fraction", "\\frac{2}{9}", ["\\frac{2}{9}", "0.2222222"], ["0.22", "\\frac{2}{3}"]),
    ("fraction", "\\frac{11}{36}", ["\\frac{11}{36}"], ["\\frac{11}{35}", "\\frac{36}{11}"]),
    ("fraction", "\\frac{1}{6}", ["\\frac{1}{6}", "\\frac{2}{12}"], ["\\frac{1}{5}", "0.16"]),
    # decimals
    ("decimal", "2.5", ["2.5", "2.50", "\\frac{5}{2}", "5/2"], ["2.05", "25", "2.54"]),
    ("decimal", "0.125", ["0.125", "\\frac{1}{8}", ".125"], ["0.12", "0.13", "1.25"]),
    ("decimal", "3.75", ["3.75", "\\frac{15}{4}"], ["3.7", "3.57"]),
    ("decimal", "-0.4", ["-0.4", "-\\frac{2}{5}"], ["0.4", "-0.04"]),
    ("decimal", "12.34", ["12.34"], ["12.43", "1234"]),
    ("decimal", "0.001", ["0.001", "10^{-3}", "\\frac{1}{1000}"], ["0.01", "0.0001"]),
    (
        "decimal",
        "1.5 \\times 10^{-3}",
        ["1.5 \\times 10^{-3}", "0.0015"],
        ["1.5 \\times 10^{3}", "0.015"],
    ),
    # percent, currency, degrees, units
    ("percent", "25\\%", ["25\\%", "25", "25 \\%"], ["0.25", "2.5\\%", "75\\%"]),
    ("percent", "12.5\\%", ["12.5\\%", "12.5"], ["1.25\\%", "0.125"]),
    ("percent", "40", ["40\\%", "40"], ["0.4", "60"]),
    ("currency", "\\$18.90", ["\\$18.90", "18.90", "18.9"], ["\\$19.80", "1890"]),
    ("currency", "45", ["\\$45", "45 \\text{ dollars}", "45.00"], ["\\$54", "4.5"]),
    (
        "degrees",
        "30^\\circ",
        ["30^\\circ", "30", "30^{\\circ}", "30°"],
        ["60^\\circ", "150^\\circ"],
    ),
    ("degrees", "135", ["135^\\circ", "135"], ["45^\\circ", "35"]),
    (
        "units",
        "6 \\text{ cm}",
        ["6 \\text{ cm}", "6", "6\\,\\text{cm}"],
        ["6 \\text{ m}", "7 \\text{ cm}", "36"],
    ),
    ("units", "50 \\text{ mph}", ["50", "50 \\text{ mph}"], ["40 \\text{ mph}", "5"]),
    ("units", "24 \\text{ square units}", ["24", "24 \\text{ square units}"], ["12", "48"]),
    # radicals and constants
    (
        "radical",
        "2\\sqrt{2}",
        ["2\\sqrt{2}", "\\sqrt{8}", "2 \\sqrt 2", "2\\sqrt2"],
        ["\\sqrt{2}", "4\\sqrt{2}", "2", "8"],
    ),
    (
        "radical",
        "\\frac{\\sqrt{3}}{2}",
        ["\\frac{\\sqrt{3}}{2}", "\\frac{1}{2}\\sqrt{3}", "\\sqrt{3}/2", "\\frac{\\sqrt{12}}{4}"],
        ["\\frac{\\sqrt{2}}{2}", "\\frac{3}{2}", "\\sqrt{\\frac{3}{2}}"],
    ),
    ("radical", "4", ["4", "\\sqrt{16}"], ["4\\sqrt{2}", "4\\sqrt(2)", "2"]),
    (
        "radical",
        "3+2\\sqrt{2}",
        ["3+2\\sqrt{2}", "2\\sqrt{2}+3", "(1+\\sqrt{2})^2"],
        ["3-2\\sqrt{2}", "5\\sqrt{2}"],
    ),
    ("radical", "\\sqrt{5}", ["\\sqrt{5}", "5^{1/2}", "\\sqrt 5"], ["5", "\\sqrt{3}", "2.2"]),
    (
        "radical",
        "\\sqrt[3]{2}",
        ["\\sqrt[3]{2}", "2^{1/3}", "2^{\\frac{1}{3}}"],
        ["\\sqrt{2}", "\\frac{2}{3}"],
    ),
    (
        "constant",
        "2\\pi",
        ["2\\pi", "\\pi \\cdot 2", "\\frac{4\\pi}{2}"],
        ["\\pi", "6.28", "4\\pi"],
    ),
    (
        "constant",
        "\\frac{\\pi}{4}",
        ["\\frac{\\pi}{4}", "\\pi/4", "0.25\\pi"],
        ["\\frac{\\pi}{2}", "45", "0.785"],
    ),
    ("constant", "e^2", ["e^2", "e^{2}"], ["2e", "e^3"]),
    ("constant", "12\\pi", ["12\\pi", "12 \\pi"], ["12", "6\\pi"]),
    ("constant", "\\ln 2", ["\\ln 2", "\\ln(2)"], ["\\ln 3", "2"]),
    # symbolic expressions
    ("symbolic", "x^2+2x+1", ["x^2+2x+1", "(x+1)^2", "1+2x+x^2"], ["x^2+1", "(x-1)^2", "x^2+2x"]),
    ("symbolic", "3x-2", ["3x-2", "-2+3x", "3 x - 2"], ["3x+2", "2-3x", "3y-2"]),
    (
        "symbolic",
        "\\frac{x+1}{x-1}",
        ["\\frac{x+1}{x-1}", "\\frac{-x-1}{1-x}", "1+\\frac{2}{x-1}"],
        ["\\frac{x-1}{x+1}", "x+1"],
    ),
    ("symbolic", "2a^2b", ["2a^2b", "2 b a^2", "a^2 \\cdot 2b"], ["2ab^2", "2a^2"]),
    (
        "symbolic",
        "\\sin^2 x",
        ["\\sin^2 x", "1-\\cos^2 x", "(\\sin x)^2"],
        ["\\cos^2 x", "\\sin x"],
    ),
    (
        "symbolic",
        "\\frac{n(n+1)}{2}",
        ["\\frac{n(n+1)}{2}", "\\frac{n^2+n}{2}"],
        ["n(n+1)", "\\frac{n(n-1)}{2}"],
    ),
    ("symbolic", "2^{n+1}-2", ["2^{n+1}-2", "2(2^n-1)"], ["2^n-1", "2^{n+1}"]),
    # intervals and inequalities
    (
        "interval",
        "(1,3]",
        ["(1,3]", "1 < x \\le 3", "x \\in (1, 3]"],
        ["[1,3]", "(1,3)", "[1,3)", "1 \\le x \\le 3"],
    ),
    ("interval", "[-2, 5)", ["[-2,5)", "-2 \\le x < 5"], ["(-2,5)", "[-2,5]", "(-2,5]"]),
    (
        "interval",
        "(-\\infty, 4)",
        ["(-\\infty, 4)", "x < 4", "(-\\infty,4)"],
        ["(-\\infty, 4]", "x \\le 4", "(4, \\infty)"],
    ),
    (
        "interval",
        "[0, \\infty)",
        ["[0,\\infty)", "x \\ge 0", "x \\geq 0"],
        ["(0,\\infty)", "x > 0"],
    ),
    (
        "interval",
        "(-\\infty,-2)\\cup(2,\\infty)",
        ["(-\\infty,-2)\\cup(2,\\infty)", "x<-2 \\text{ or } x>2", "(2,\\infty)\\cup(-\\infty,-2)"],
        ["(-2,2)", "x^2>4", "[-2,2]", "(-\\infty,-2]\\cup[2,\\infty)"],
    ),
    ("inequality", "x > 3", ["x > 3", "3 < x", "(3, \\infty)"], ["x \\ge 3", "x < 3", "x > -3"]),
    (
        "inequality",
        "x \\le -1",
        ["x \\le -1", "-1 \\ge x", "(-\\infty,-1]"],
        ["x < -1", "x \\ge -1"],
    ),
    # sets and lists of solutions
    (
        "set",
        "\\{1, 2, 3\\}",
        ["\\{1,2,3\\}", "\\{3,2,1\\}", "1, 2, 3"],
        ["\\{1,2\\}", "\\{1,2,3,4\\}", "\\{0,1,2\\}"],
    ),
    (
        "set",
        "2, -3",
        ["2, -3", "-3, 2", "x=2 \\text{ or } x=-3", "\\{-3, 2\\}"],
        ["2", "-3", "2, 3", "-2, 3"],
    ),
    ("set", "\\{-1, 1\\}", ["\\{-1,1\\}", "\\pm 1", "1, -1"], ["1", "\\{0, 1\\}"]),
    ("set", "1, 4, 9", ["1, 4, 9", "9, 4, 1"], ["1, 4", "1, 4, 8"]),
    # tuples and points
    ("tuple", "(3, -1)", ["(3,-1)", "(3, -1)", "\\left(3, -1\\right)"], ["(-1,3)", "(3,1)", "3"]),
    ("tuple", "(1, 2, 3)", ["(1,2,3)", "(1, 2, 3)"], ["(3,2,1)", "(1,2)", "(1,2,4)"]),
    (
        "tuple",
        "(\\frac{1}{2}, \\sqrt{3})",
        ["(\\frac{1}{2}, \\sqrt{3})", "(0.5, \\sqrt{3})"],
        ["(\\sqrt{3}, \\frac{1}{2})", "(\\frac{1}{2}, 3)"],
    ),
    ("tuple", "(0, 0)", ["(0,0)"], ["(0,1)", "0"]),
    # matrices and vectors
    (
        "matrix",
        "\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}",
        [
            "\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}",
            "\\begin{bmatrix} 1 & 2 \\\\ 3 & 4 \\end{bmatrix}",
        ],
        [
            "\\begin{pmatrix} 1 & 3 \\\\ 2 & 4 \\end{pmatrix}",
            "\\begin{pmatrix} 4 & 3 \\\\ 2 & 1 \\end{pmatrix}",
        ],
    ),
    (
        "matrix",
        "\\begin{pmatrix} 2 \\\\ -1 \\end{pmatrix}",
        [
            "\\begin{pmatrix} 2 \\\\ -1 \\end{pmatrix}",
            "\\begin{pmatrix} 4/2 \\\\ -1 \\end{pmatrix}",
        ],
        ["\\begin{pmatrix} -1 \\\\ 2 \\end{pmatrix}", "\\begin{pmatrix} 2 \\\\ 1 \\end{pmatrix}"],
    ),
    (
        "matrix",
        "\\begin{pmatrix} 0 & 1 \\\\ -1 & 0 \\end{pmatrix}",
        ["\\begin{pmatrix} 0 & 1 \\\\ -1 & 0 \\end{pmatrix}"],
        ["\\begin{pmatrix} 0 & -1 \\\\ 1 & 0 \\end{pmatrix}"],
    ),
    # equations
    (
        "equation",
        "y = 2x + 3",
        ["y=2x+3", "y = 3 + 2x", "2y = 4x + 6", "y - 2x = 3"],
        ["y = 3x + 2", "y = 2x - 3"],
    ),
    (
        "equation",
        "x^2 + y^2 = 25",
        ["x^2+y^2=25", "y^2 + x^2 = 25", "x^2 + y^2 - 25 = 0"],
        ["x^2+y^2=5", "x^2-y^2=25"],
    ),
    (
        "equation",
        "3x + 4y + 14 = 0",
        ["3x+4y+14=0", "-3x-4y-14=0", "6x+8y+28=0"],
        ["3x-y+13=0", "3x+4y-14=0"],
    ),
    ("equation", "x = 4", ["x=4", "4"], ["x=-4", "y=4", "2x=4"]),
    # complex numbers
    ("complex", "3+4i", ["3+4i", "4i+3", "3 + 4 i"], ["3-4i", "4+3i", "5"]),
    ("complex", "-i", ["-i", "0-i"], ["i", "-1"]),
    ("complex", "1-i", ["1-i", "-i+1"], ["1+i", "i-1"]),
    # words
    (
        "text",
        "\\text{Evelyn}",
        ["\\text{Evelyn}", "Evelyn", "\\textbf{Evelyn}"],
        ["\\text{Evan}", "Eve"],
    ),
    (
        "text",
        "\\text{odd}",
        ["\\text{odd}", "odd", "\\text{Odd}"],
        ["\\text{even}", "\\text{neither}"],
    ),
    (
        "text",
        "\\text{(C)}",
        ["C", "(C)", "\\text{(C)}", "\\textbf{(C)}"],
        ["B", "(D)", "\\text{(A)}"],
    ),
    ("text", "\\text{Tuesday}", ["\\text{Tuesday}", "Tuesday"], ["\\text{Monday}", "Thursday"]),
    # mixed arithmetic
    (
        "arithmetic",
        "\\frac{10}{3}",
        ["\\frac{10}{3}", "3\\frac{1}{3}", "3.333333"],
        ["3.3", "3.33", "\\frac{3}{10}"],
    ),
    (
        "arithmetic",
        "-\\frac{1}{4}",
        ["-\\frac{1}{4}", "-0.25", "\\frac{-1}{4}"],
        ["\\frac{1}{4}", "-4"],
    ),
    ("arithmetic", "1024", ["1024", "2^{10}", "4^5", "32^2"], ["2^{11}", "1000"]),
    (
        "arithmetic",
        "\\frac{5}{36}",
        ["\\frac{5}{36}", "\\frac{10}{72}"],
        ["\\frac{1}{36}", "\\frac{5}{6}"],
    ),
    ("arithmetic", "9", ["9", "3^2", "\\frac{27}{3}"], ["3", "81"]),
    # the imaginary unit: i is the unit where the reference works in the complex numbers, and a
    # variable like any other letter where it does not (appended last so that earlier ids stay)
    (
        "imaginary",
        "e^{i\\pi}",
        ["-1", "e^{\\pi i}", "\\cos\\pi + i\\sin\\pi"],
        ["1", "e^{\\pi}", "i"],
    ),
    (
        "imaginary",
        "2i",
        ["(1+i)^2", "\\sqrt{-4}", "2\\mathrm{i}", "2I", "i+i"],
        ["2", "-2i", "(1-i)^2", "4i"],
    ),
    ("imaginary", "\\sqrt{-4}", ["2i", "2\\mathrm{i}", "2\\sqrt{-1}"], ["-2i", "2", "4i"]),
    ("imaginary", "-1+i", ["i-1", "i(1+i)", "\\frac{2i}{1-i}"], ["1-i", "1+i", "-1-i"]),
    ("imaginary", "2\\mathrm{i}", ["2i", "\\sqrt{-4}"], ["2", "-2i"]),
    ("imaginary", "x+1", ["1+x"], ["x+i", "x-1"]),
]


STYLES = [
    "We simplify step by step and get the result.\n\nTherefore, the answer is $\\boxed{{{a}}}$.",
    "<think>\nLet me work through this carefully. After simplifying I get the value below.\n</think>\n\nThe final answer is $\\boxed{{{a}}}$.",  # noqa: E501
    "<think>Compute, then check the result once more.</think>\n<answer>{a}</answer>",
    "First compute the quantity, then simplify.\n\nFinal answer: ${a}$",
    "Putting it together:\n\\[\n\\boxed{{{a}}}\n\\]",
]


def rows() -> list[dict]:
    """The labelled rows, in a fixed order."""
    out = []
    n = 0
    for kind, reference, good, bad in SPECS:
        for answers, label in ((good, True), (bad, False)):
            for answer in answers:
                style = STYLES[n % len(STYLES)]
                if style.startswith("First compute") and ("\\begin" in answer or "\\\\" in answer):
                    style = STYLES[0]
                out.append(
                    {
                        "id": f"{kind}-{n:04d}",
                        "kind": kind,
                        "completion": style.format(a=answer),
                        "reference": reference,
                        "label": label,
                    }
                )
                n += 1
    return out


def main() -> None:
    """Writes the JSONL file next to this script."""
    path = Path(__file__).with_name("math_labelled.jsonl")
    data = rows()
    with path.open("w", encoding="utf-8") as f:
        for row in data:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"wrote {len(data)} rows to {path}")


if __name__ == "__main__":
    main()
