"""Packaging glue: the repository root shows one folder per part, installed under `palaestra`.

`pyproject.toml` holds the metadata; this file only maps folders to packages, which a
static `package-dir` table cannot do for sub-packages without listing each one by hand.
"""

import shutil
from pathlib import Path

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py

ROOTS = {
    "palaestra": "palaestra",
    "palaestra.envs": "envs",
    "palaestra.verifiers": "verifiers",
    "palaestra.agents": "agents",
    "palaestra.trainers": "trainers",
    "palaestra.sandbox": "sandbox",
}

packages = []
for package, folder in ROOTS.items():
    packages.append(package)
    packages += [f"{package}.{sub}" for sub in find_packages(folder)]


class BuildWithCatalogue(build_py):
    """Ships the root `registry.yaml` inside the installed `palaestra` package."""

    def run(self):
        """Builds the packages, then copies `registry.yaml` into the built `palaestra`."""
        super().run()
        target = Path(self.build_lib) / "palaestra" / "registry.yaml"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(Path(__file__).parent / "registry.yaml", target)


setup(
    cmdclass={"build_py": BuildWithCatalogue},
    packages=packages,
    package_dir=ROOTS,
    package_data={
        "": ["*.yaml", "*.json", "*.jsonl", "*.txt", "*.jinja", "data/**/*"],
        "palaestra.view": ["static/*"],
    },
    include_package_data=True,
)
