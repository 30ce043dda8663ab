"""Golden episodes: a digest of each id's seeded oracle and junk episodes, pinned per version.

    python tests/envs/golden.py --update [ID ...]   record digests (all ids, or some)
    python tests/envs/golden.py                      list ids whose digest changed

A changed digest means the id generates or scores differently: bump its version (-vN) in
registry.yaml rather than updating the digest of an existing version.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

GOLDEN = Path(__file__).with_name("golden.json")
SEEDS = (0, 1)


def digest(env_id: str) -> str:
    """The sha256 of the env's seeded episodes."""
    import palaestra
    from palaestra.checker import episode_digest

    return hashlib.sha256(episode_digest(palaestra.make(env_id), SEEDS).encode()).hexdigest()


def load() -> dict[str, str]:
    """The recorded digests."""
    return json.loads(GOLDEN.read_text()) if GOLDEN.exists() else {}


def main(argv: list[str]) -> int:
    import palaestra

    update = "--update" in argv
    ids = [a for a in argv if not a.startswith("--")] or [s.id for s in palaestra.list_envs()]
    recorded = load()
    current = {env_id: digest(env_id) for env_id in ids}
    changed = [env_id for env_id, value in current.items() if recorded.get(env_id) != value]
    if update:
        recorded.update(current)
        GOLDEN.write_text(json.dumps(dict(sorted(recorded.items())), indent=1) + "\n")
        print(f"recorded {len(ids)} digests ({len(changed)} new or changed) in {GOLDEN}")
    else:
        print("\n".join(changed) or "all digests match")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
