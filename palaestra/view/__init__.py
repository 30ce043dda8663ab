"""The run viewer: ``palaestra view RUN [RUN2]`` and its static ``--export``.

A local web app over the folders ``palaestra train`` writes: the runs' metrics as plots
(two runs overlaid), the episode list with filters and paging, and one episode turn by turn
with its tokens and loss mask. `runs` reads the folders (no web packages needed), `server`
serves them (Starlette and uvicorn: ``pip install "palaestra[view]"``), `export` writes a
copy that opens from disk.
"""

from palaestra.view.runs import Filters, RunFolder, open_runs

__all__ = ["Filters", "RunFolder", "open_runs"]
