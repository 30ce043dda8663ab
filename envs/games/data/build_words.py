"""Builds the word lists shipped with the games from SCOWL (Debian's wamerican packages).

    apt-get install wamerican-small wamerican
    python envs/games/data/build_words.py [--dict-dir /usr/share/dict]

Writes ``words.txt`` beside this script: ``word<TAB>tag<TAB>misses`` per line, where
    tag ``a`` marks a common base word of 4-10 letters (SCOWL size 35, no regular plural,
        past or -ing form of another listed word, not offensive): a possible secret;
    tag ``g`` marks a word of 4-6 letters accepted only as a guess (SCOWL size 50);
    misses (``a`` words only) is how many misses the Hangman reference guesser makes on
        the word, so that a level can draw only words that guesser finishes in time.

SCOWL's copyright and permission notice is in WORDS-LICENSE.txt. Run this only to
regenerate the lists; the games never read /usr/share/dict.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORD = re.compile(r"[a-z]+")

# Words that must never be a secret shown to a model or a person.
EXCLUDED = frozenset(
    """
    anal anus bitch bitches booby chink cock crap damn faggot horny lynch naked nude nudes orgasm
    penis pussy queer rape raped rapes retard semen sexy slave slut sluts sperm tits vagina whore
    whores negro nazi dildo porn kike dyke spic homo twat cunt fuck shit boobs pimp pimps
    """.split()
)


def read(path: Path) -> set[str]:
    """Lower-case alphabetic entries of a word list."""
    return {
        w
        for w in (line.strip() for line in path.read_text(encoding="utf-8").splitlines())
        if WORD.fullmatch(w)
    }


def inflected(word: str, pool: set[str]) -> bool:
    """True for a regular plural, past or -ing form of another word in ``pool``."""
    if word.endswith("s") and (
        word[:-1] in pool
        or (word.endswith("es") and word[:-2] in pool)
        or (word.endswith("ies") and word[:-3] + "y" in pool)
    ):
        return True
    if word.endswith("ed") and (
        word[:-2] in pool
        or word[:-1] in pool
        or (len(word) > 4 and word[-3] == word[-4] and word[:-3] in pool)
        or (word.endswith("ied") and word[:-3] + "y" in pool)
    ):
        return True
    return word.endswith("ing") and (
        word[:-3] in pool
        or word[:-3] + "e" in pool
        or (len(word) > 5 and word[-4] == word[-5] and word[:-4] in pool)
    )


def main() -> None:
    """Reads the SCOWL lists from ``--dict-dir`` and writes ``words.txt``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dict-dir", type=Path, default=Path("/usr/share/dict"))
    args = parser.parse_args()
    small = read(args.dict_dir / "american-english-small")
    medium = read(args.dict_dir / "american-english") | small
    common = sorted(
        w for w in small if 4 <= len(w) <= 10 and not inflected(w, small) and w not in EXCLUDED
    )
    guess_only = sorted(
        w for w in medium if 4 <= len(w) <= 6 and w not in EXCLUDED and w not in set(common)
    )
    from palaestra.envs.games.hangman import reference_misses

    by_length: dict[int, list[str]] = {}
    for w in common:
        by_length.setdefault(len(w), []).append(w)
    lines = [
        "# word<TAB>tag<TAB>misses. a: common base word (a possible secret); "
        "g: accepted as a guess only;",
        "# misses: of the Hangman reference guesser (palaestra.envs.games.hangman). "
        "From SCOWL; see WORDS-LICENSE.txt.",
    ]
    lines += [f"{w}\ta\t{reference_misses(w, by_length[len(w)])}" for w in common]
    lines += [f"{w}\tg\t" for w in guess_only]
    (HERE / "words.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(common)} common words, {len(guess_only)} guess-only words")


if __name__ == "__main__":
    main()
