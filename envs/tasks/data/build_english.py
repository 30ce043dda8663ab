"""Builds ``english.txt.gz``, the English dictionary of the word tasks, from SCOWL.

SCOWL (Spell Checker Oriented Word Lists, by Kevin Atkinson) sorts English words into size
classes by how common they are: 10 and 20 hold the commonest words, 35 is a small dictionary,
50 a medium one, 70 a large one ("words found in most dictionaries"), 80 and 95 add the rare
words of word games. Debian packages its lists as ``scowl``; to regenerate the file:

    apt-get download scowl && dpkg -x scowl_*.deb /tmp/scowl
    python envs/tasks/data/build_english.py --scowl-dir /tmp/scowl/usr/share/dict/scowl

The output is gzip-compressed text, one lowercase word per line, in sections:
    ``# size N`` (N = 10, 20, 35, 40, 50, 55, 60, 70): the English and American-spelling
        words of that size class (the commonness rank puzzles are drawn by);
    ``# never drawn``: words that count as answers but are never drawn for a puzzle:
        British, Canadian and Australian spellings and equally good variants (THEATRE,
        COLOUR), and offensive words.
Only the "words" lists count (no proper names, abbreviations or contractions), up to size
70; accents are dropped (CAFÉ becomes CAFE) and entries with other characters (possessives)
are left out. SCOWL's copyright and permission notice is in ENGLISH-LICENSE.txt. Run this
only to regenerate the file; the tasks never read /usr/share/dict.
"""

from __future__ import annotations

import argparse
import gzip
import re
import unicodedata
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUTPUT = HERE / "english.txt.gz"
SIZES = (10, 20, 35, 40, 50, 55, 60, 70)
RANKED = ("english", "american")
"""Spelling categories whose words are ranked (and may be drawn)."""
OTHER_SPELLINGS = ("british", "british_z", "canadian", "australian", "variant_1")
"""Spelling categories whose words count as answers but are never drawn."""
WORD = re.compile(r"[a-z]+")

# Words (and their plurals and verb forms) never drawn for a puzzle shown to a model or a person.
OFFENSIVE = frozenset(
    """
    anal anus arse bastard bitch bollock boner boob booby butthole chink clit cock coon crap cum
    cunt damn dick dildo dyke fag faggot fart fuck gook hell homo honky horny jap jerkoff kike
    lynch masturbate naked nazi negro nigger nude orgasm penis pimp piss poop porn prick pube
    pussy queer rape rapist retard screw semen sex sexy shit slave slut sperm spic tit tits turd
    twat vagina wank whore
    """.split()
)


def offensive(word: str) -> bool:
    """True for an offensive word or a regular inflection of one (-s, -es, -ed, -ing, -y)."""
    stems = {word}
    for suffix in ("s", "es", "ed", "d", "ing", "y", "ies", "er", "ers"):
        if word.endswith(suffix):
            stem = word[: -len(suffix)]
            stems |= {stem, stem[:-1] if len(stem) > 2 and stem[-1] == stem[-2] else stem}
    return bool(stems & OFFENSIVE)


def fold(entry: str) -> str:
    """The entry without accents (NFKD, combining marks dropped)."""
    decomposed = unicodedata.normalize("NFKD", entry.strip())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def read_words(scowl_dir: Path, categories: tuple[str, ...]) -> dict[str, int]:
    """Each word of the categories' "words" lists up to size 70 -> its smallest size class."""
    sizes: dict[str, int] = {}
    for category in categories:
        for size in SIZES:
            path = scowl_dir / f"{category}-words.{size}"
            if not path.exists():
                continue
            for line in path.read_text(encoding="utf-8").splitlines():
                word = fold(line)
                if WORD.fullmatch(word) and size < sizes.get(word, 1000):
                    sizes[word] = size
    return sizes


def build(scowl_dir: Path) -> tuple[bytes, dict[str, int]]:
    """The compressed file and the number of words per section."""
    ranked = read_words(scowl_dir, RANKED)
    if not ranked:
        raise SystemExit(f"no SCOWL word lists in {scowl_dir}; see this script's docstring")
    others = set(read_words(scowl_dir, OTHER_SPELLINGS)) - set(ranked)
    never = sorted(others | {w for w in ranked if offensive(w)})
    lines = [
        "# English words from SCOWL 2020.12.07 (Debian package scowl), sizes 10-70; see",
        "# ENGLISH-LICENSE.txt. Written by build_english.py; one lowercase word per line.",
    ]
    counts = {}
    for size in SIZES:
        section = sorted(w for w, s in ranked.items() if s == size and not offensive(w))
        lines += [f"# size {size}", *section]
        counts[f"size {size}"] = len(section)
    lines += ["# never drawn", *never]
    counts["never drawn"] = len(never)
    text = "\n".join(lines) + "\n"
    return gzip.compress(text.encode("ascii"), compresslevel=9, mtime=0), counts


def main() -> None:
    """Reads the SCOWL lists, writes ``english.txt.gz`` and prints the section sizes."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scowl-dir", type=Path, default=Path("/usr/share/dict/scowl"))
    args = parser.parse_args()
    data, counts = build(args.scowl_dir)
    OUTPUT.write_bytes(data)
    print(f"{sum(counts.values())} words ({counts}), {len(data)} bytes in {OUTPUT}")


if __name__ == "__main__":
    main()
