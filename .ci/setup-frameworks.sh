#!/usr/bin/env bash
# verl's and OpenRLHF's agent-loop code for tests/integrations, without their GPU stack.
#
# On a CPU machine neither installs as a whole: `pip install verl==0.9.1` pulls a CUDA torch
# (2.14) and transformers<5.11, and `pip install openrlhf==0.11.2` builds flash-attn, which
# needs torch and CUDA, and pins deepspeed, ray and transformers. The modules the adapters
# use (verl.experimental.agent_loop, openrlhf.utils.agent) need none of that: they run on
# the venv's CPU torch with a few light packages. Those are installed here with --no-deps
# into a folder of their own, outside the venv (so `pip check` stays clean); hydra's parser
# needs antlr 4.9, which math-verify's 4.13 would shadow, so it gets a folder that goes
# first. The tests run the frameworks' code in a subprocess with these folders on its path.
set -euo pipefail
cd "$(dirname "$0")/.."
DEST=${PALAESTRA_FRAMEWORKS:-.frameworks}
PIP="python -m pip install -q --no-deps --upgrade"

$PIP --target "$DEST/site" \
    verl==0.9.1 openrlhf==0.11.2 \
    tensordict==0.10.0 pyvers==0.1.0 hydra-core==1.3.8 codetiming==1.4.0 pylatexenc==2.11 \
    aiohttp==3.14.5 aiohappyeyeballs==2.7.1 aiosignal==1.4.0 frozenlist==1.8.0 \
    multidict==7.2.1 propcache==0.5.4 yarl==1.25.1
$PIP --target "$DEST/first" antlr4-python3-runtime==4.9.3
echo "verl and OpenRLHF agent-loop code installed under $DEST"
