"""A tiny chat model and tokenizer, built locally: nothing is downloaded.

    tokenizer = tiny_tokenizer()                 # byte-level BPE trained on Palaestra's prompts
    model = tiny_model(tokenizer)                # a Qwen2-style decoder, ~1-2M parameters
    tokenizer, model = load_tiny()               # both

The tokenizer is trained with `tokenizers` on a corpus of Palaestra's own text: episodes
played by each registered env's oracle (prompts, actions, tool results), rendered with the
chat template, plus a short text shipped with the package. It has Qwen-style special
tokens (``<|im_start|>``, ``<|im_end|>``, ``<|endoftext|>``), the tags ``<think>``,
``<tool_call>`` and ``<tool_response>`` as single tokens, digits split one by one, and a
chat template that renders tools and tool calls natively (`TINY_CHAT_TEMPLATE`).

The model is randomly initialised from a seed (training is the trainer's job). Both are
cached under ``$PALAESTRA_CACHE`` (default ``~/.cache/palaestra``) in folders named by a
fingerprint of the recipe (configs, shipped text, the registered env ids and their specs),
so a change to any of them builds a new pair, and two processes never see a half-written
one. Registering a new env therefore means a new tokenizer: save the tokenizer next to
any checkpoint trained with it (``save_pretrained``), or pin
``TinyTokenizerConfig(env_ids=...)``.

torch, transformers and tokenizers are imported only when something here is called
(the ``torch`` extra).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from palaestra.errors import require

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerFast

BUILD_VERSION = 1
"""Bumped when the build recipe changes, so caches of older recipes are not reused."""

END_OF_TEXT = "<|endoftext|>"
IM_START = "<|im_start|>"
IM_END = "<|im_end|>"
SPECIAL_TOKENS = (END_OF_TEXT, IM_START, IM_END)
TAG_TOKENS = (
    "<think>",
    "</think>",
    "<tool_call>",
    "</tool_call>",
    "<tool_response>",
    "</tool_response>",
)

# Qwen2's split: words with one leading non-letter, digits one by one (so numbers are
# learnable place by place), punctuation runs, newlines, spaces.
PRETOKENIZE_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
    r"|\s*[\r\n]+|\s+(?!\S)|\s+"
)

# Qwen-style ChatML. Written with explicit string pieces (no template whitespace) so that
# what is rendered is exactly what is written here. Assistant turns are rendered verbatim,
# <think> blocks included: the token sequence of an episode and a full re-template agree.
TINY_CHAT_TEMPLATE = (
    "{%- set first_system = messages and messages[0]['role'] == 'system' -%}"
    "{%- if tools -%}"
    "{{- '<|im_start|>system\\n' -}}"
    "{%- if first_system -%}{{- messages[0]['content'] + '\\n\\n' -}}{%- endif -%}"
    "{{- '# Tools\\n\\nYou may call one or more functions to help with the request.\\n\\n"
    "Function signatures are given within <tools></tools> tags:\\n<tools>' -}}"
    "{%- for tool in tools -%}{{- '\\n' + (tool | tojson) -}}{%- endfor -%}"
    "{{- '\\n</tools>\\n\\nFor each function call, return a JSON object with the function name and "
    "arguments within <tool_call></tool_call> tags:\\n<tool_call>\\n"
    '{"name": <function-name>, "arguments": <args-json-object>}\\n</tool_call><|im_end|>\\n\' -}}'
    "{%- elif first_system -%}"
    "{{- '<|im_start|>system\\n' + messages[0]['content'] + '<|im_end|>\\n' -}}"
    "{%- endif -%}"
    "{%- for message in messages -%}"
    "{%- if message['role'] == 'system' and loop.first -%}"
    "{%- elif message['role'] in ('system', 'user') -%}"
    "{{- '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>\\n' -}}"
    "{%- elif message['role'] == 'assistant' -%}"
    "{{- '<|im_start|>assistant\\n' -}}"
    "{%- if message['reasoning_content'] -%}"
    "{{- '<think>\\n' + message['reasoning_content'] + '\\n</think>\\n\\n' -}}"
    "{%- endif -%}"
    "{{- message['content'] or '' -}}"
    "{%- for call in message['tool_calls'] or [] -%}"
    "{%- set fn = call['function'] if call['function'] is defined else call -%}"
    "{%- if message['content'] or not loop.first -%}{{- '\\n' -}}{%- endif -%}"
    "{{- '<tool_call>\\n{\"name\": ' + (fn['name'] | tojson) + ', \"arguments\": ' -}}"
    "{%- if fn['arguments'] is string -%}{{- fn['arguments'] -}}"
    "{%- else -%}{{- fn['arguments'] | tojson -}}{%- endif -%}"
    "{{- '}\\n</tool_call>' -}}"
    "{%- endfor -%}"
    "{{- '<|im_end|>\\n' -}}"
    "{%- elif message['role'] == 'tool' -%}"
    "{%- if loop.first or messages[loop.index0 - 1]['role'] != 'tool' -%}"
    "{{- '<|im_start|>user' -}}"
    "{%- endif -%}"
    "{{- '\\n<tool_response>\\n' + message['content'] + '\\n</tool_response>' -}}"
    "{%- if loop.last or messages[loop.index0 + 1]['role'] != 'tool' -%}"
    "{{- '<|im_end|>\\n' -}}"
    "{%- endif -%}"
    "{%- endif -%}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}"
    "{{- '<|im_start|>assistant\\n' -}}"
    "{%- if enable_thinking is defined and not enable_thinking -%}"
    "{{- '<think>\\n\\n</think>\\n\\n' -}}"
    "{%- endif -%}"
    "{%- endif -%}"
)
"""The tiny tokenizer's chat template (ChatML with Hermes-style tool calls)."""


@dataclasses.dataclass(frozen=True)
class TinyTokenizerConfig:
    """How the tiny tokenizer is trained.

    Attributes:
        vocab_size: Target vocabulary size (special and tag tokens included).
        min_frequency: A pair must occur this often to be merged.
        episodes_per_env: Oracle episodes sampled from each registered env for the corpus.
        max_turns: Turns per sampled episode at most.
        env_ids: The envs to sample (None: every registered id without ``needs-docker``).
    """

    vocab_size: int = 2048
    min_frequency: int = 2
    episodes_per_env: int = 8
    max_turns: int = 12
    env_ids: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.vocab_size, int) or self.vocab_size < 300:
            raise ValueError(
                "vocab_size must be an integer >= 300 (256 bytes and the special tokens), "
                f"got {self.vocab_size!r}"
            )
        if self.episodes_per_env < 0 or self.max_turns < 1:
            raise ValueError("episodes_per_env must be >= 0 and max_turns >= 1")
        if self.env_ids is not None:
            object.__setattr__(self, "env_ids", tuple(self.env_ids))


@dataclasses.dataclass(frozen=True)
class TinyModelConfig:
    """The shape of the tiny model (a Qwen2 decoder).

    Attributes:
        hidden_size: Width of the residual stream.
        intermediate_size: Width of the MLP.
        num_hidden_layers: Decoder layers.
        num_attention_heads: Query heads.
        num_key_value_heads: Key/value heads (grouped-query attention).
        max_position_embeddings: Longest sequence.
        rope_theta: RoPE base.
        seed: Seeds the random initialisation.
    """

    hidden_size: int = 128
    intermediate_size: int = 384
    num_hidden_layers: int = 4
    num_attention_heads: int = 4
    num_key_value_heads: int = 2
    max_position_embeddings: int = 4096
    rope_theta: float = 10_000.0
    seed: int = 0

    def __post_init__(self) -> None:
        for name in (
            "hidden_size",
            "intermediate_size",
            "num_hidden_layers",
            "num_attention_heads",
            "num_key_value_heads",
            "max_position_embeddings",
        ):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        if self.hidden_size % self.num_attention_heads:
            raise ValueError(
                f"hidden_size ({self.hidden_size}) must be divisible by num_attention_heads "
                f"({self.num_attention_heads})"
            )
        if self.num_attention_heads % self.num_key_value_heads:
            raise ValueError(
                f"num_attention_heads ({self.num_attention_heads}) must be divisible by "
                f"num_key_value_heads ({self.num_key_value_heads})"
            )


def cache_root() -> Path:
    """Where built artefacts live: ``$PALAESTRA_CACHE`` or ``~/.cache/palaestra``."""
    configured = os.environ.get("PALAESTRA_CACHE")
    return Path(configured).expanduser() if configured else Path.home() / ".cache" / "palaestra"


# --- the corpus -----------------------------------------------------------------------------


def shipped_text() -> str:
    """The short text shipped with the package (general English, maths, games, tools)."""
    return (Path(__file__).parent / "data" / "tiny_corpus.txt").read_text(encoding="utf-8")


def render_conversation(
    messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]] | None = None
) -> str:
    """A conversation rendered with `TINY_CHAT_TEMPLATE` (no tokenizer needed)."""
    require("transformers", "torch", "the tiny tokenizer")
    from transformers.utils.chat_template_utils import render_jinja_template

    rendered, _ = render_jinja_template(
        conversations=[list(messages)],
        tools=list(tools) if tools else None,
        chat_template=TINY_CHAT_TEMPLATE,
    )
    return rendered[0]


def sample_env_text(env_ids: Iterable[str], episodes_per_env: int, max_turns: int) -> list[str]:
    """Oracle episodes of each env, rendered with the chat template.

    Envs that fail to build or play (a missing optional dependency, say) are skipped: the
    corpus only needs to cover the text of the envs that run here.
    """
    import palaestra

    texts: list[str] = []
    for env_id in env_ids:
        try:
            env = palaestra.make(env_id)
            tools = env.tools
            for episode in range(episodes_per_env):
                observation, _ = env.reset(seed=episode)
                messages = list(observation)
                for _ in range(max_turns):
                    action = env.oracle_action()
                    messages.append(
                        {"role": "assistant", "content": action}
                        if isinstance(action, str)
                        else dict(action)
                    )
                    observation, _, terminated, truncated, _ = env.step(action)
                    messages.extend(observation)
                    if terminated or truncated:
                        break
                texts.append(render_conversation(messages, tools if episode == 0 else None))
            env.close()
        except Exception:  # noqa: BLE001 - an env that cannot run here adds no text
            continue
    return texts


def default_env_ids() -> list[str]:
    """Every registered id that needs no Docker engine."""
    import palaestra

    return [spec.id for spec in palaestra.list_envs() if "needs-docker" not in spec.tags]


def build_corpus(config: TinyTokenizerConfig) -> list[str]:
    """The tokenizer's training texts (deterministic for a given registry)."""
    env_ids = config.env_ids if config.env_ids is not None else default_env_ids()
    paragraphs = [p for p in shipped_text().split("\n\n") if p.strip()]
    return paragraphs + sample_env_text(sorted(env_ids), config.episodes_per_env, config.max_turns)


# --- building -------------------------------------------------------------------------------


def _fingerprint(*parts: Any) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(json.dumps(part, sort_keys=True, default=str).encode("utf-8"))
        digest.update(b"\x00")
    return digest.hexdigest()[:16]


def train_tokenizer(corpus: Sequence[str], config: TinyTokenizerConfig) -> PreTrainedTokenizerFast:
    """Trains the byte-level BPE tokenizer on ``corpus`` (no caching)."""
    require("tokenizers", "torch", "the tiny tokenizer")
    transformers = require("transformers", "torch", "the tiny tokenizer")
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence(
        [
            pre_tokenizers.Split(Regex(PRETOKENIZE_PATTERN), behavior="isolated"),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
        ]
    )
    tokenizer.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=config.vocab_size - len(TAG_TOKENS),
        min_frequency=config.min_frequency,
        special_tokens=list(SPECIAL_TOKENS),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tokenizer.train_from_iterator(list(corpus), trainer=trainer)
    fast = transformers.PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        eos_token=IM_END,
        pad_token=END_OF_TEXT,
        clean_up_tokenization_spaces=False,
        model_max_length=4096,
    )
    fast.add_tokens(list(TAG_TOKENS))
    fast.chat_template = TINY_CHAT_TEMPLATE
    return fast


@contextlib.contextmanager
def _quiet_transformers() -> Iterator[None]:
    """Hides transformers' progress bars while the tiny pair is saved or loaded.

    The caller's setting is restored afterwards.
    """
    from transformers.utils import logging as hf_logging

    was_enabled = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if was_enabled:
            hf_logging.enable_progress_bar()


def _atomic_save(target: Path, save: Any) -> None:
    """Saves into a temporary sibling folder, then renames it into place."""
    target.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        save(scratch)
        try:
            scratch.rename(target)
        except OSError:
            if not target.exists():  # another process won the race otherwise
                raise
    finally:
        if scratch.exists():
            shutil.rmtree(scratch, ignore_errors=True)


def tiny_tokenizer(
    config: TinyTokenizerConfig | None = None, *, cache_dir: str | os.PathLike[str] | None = None
) -> PreTrainedTokenizerFast:
    """The tiny tokenizer, trained on first use and cached.

    Args:
        config: How to train it (default `TinyTokenizerConfig()`).
        cache_dir: The cache root (default `cache_root()`).

    Returns:
        A `transformers.PreTrainedTokenizerFast` with `TINY_CHAT_TEMPLATE`.
    """
    config = config or TinyTokenizerConfig()
    transformers = require("transformers", "torch", "the tiny tokenizer")
    folder = Path(cache_dir) if cache_dir is not None else cache_root()
    target = folder / "tiny" / f"tokenizer-{corpus_fingerprint(config)}"
    if not target.exists():
        built = train_tokenizer(build_corpus(config), config)
        _atomic_save(target, built.save_pretrained)
    return transformers.PreTrainedTokenizerFast.from_pretrained(str(target))


def corpus_fingerprint(config: TinyTokenizerConfig) -> str:
    """Names the corpus without building it: the recipe, the shipped text and the envs.

    An env id changes version whenever what it generates changes, so the registered ids
    and their specs stand for the env text: a cached tokenizer is found without playing a
    single episode, and registering a new env builds a new one.
    """
    import palaestra

    env_ids = sorted(config.env_ids if config.env_ids is not None else default_env_ids())
    specs = []
    for env_id in env_ids:
        try:
            specs.append(palaestra.spec(env_id).to_dict())
        except Exception:  # noqa: BLE001 - an unknown id adds no text, as in the corpus
            specs.append({"id": env_id, "missing": True})
    return _fingerprint(
        "tokenizer",
        BUILD_VERSION,
        dataclasses.asdict(config),
        shipped_text(),
        specs,
        TINY_CHAT_TEMPLATE,
    )


def model_config(tokenizer: PreTrainedTokenizerFast, config: TinyModelConfig) -> Any:
    """The `transformers.Qwen2Config` of the tiny model for ``tokenizer``."""
    transformers = require("transformers", "torch", "the tiny model")
    end_ids = tokenizer.convert_tokens_to_ids([IM_END, END_OF_TEXT])
    return transformers.Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=config.hidden_size,
        intermediate_size=config.intermediate_size,
        num_hidden_layers=config.num_hidden_layers,
        num_attention_heads=config.num_attention_heads,
        num_key_value_heads=config.num_key_value_heads,
        max_position_embeddings=config.max_position_embeddings,
        rope_parameters={"rope_type": "default", "rope_theta": config.rope_theta},
        tie_word_embeddings=True,
        bos_token_id=None,
        eos_token_id=end_ids,
        pad_token_id=tokenizer.pad_token_id,
        use_sliding_window=False,
    )


def tiny_model(
    tokenizer: PreTrainedTokenizerFast | None = None,
    config: TinyModelConfig | None = None,
    *,
    cache_dir: str | os.PathLike[str] | None = None,
    **overrides: Any,
) -> PreTrainedModel:
    """The tiny model (random weights from ``config.seed``), built on first use and cached.

    Args:
        tokenizer: Its tokenizer (default `tiny_tokenizer()`); sets the vocabulary.
        config: Its shape (default `TinyModelConfig()`).
        cache_dir: The cache root (default `cache_root()`).
        **overrides: `TinyModelConfig` fields to change, e.g. ``num_hidden_layers=2``.

    Returns:
        A `transformers.Qwen2ForCausalLM` in fp32, in eval mode.
    """
    torch = require("torch", "torch", "the tiny model")
    transformers = require("transformers", "torch", "the tiny model")
    known = {f.name for f in dataclasses.fields(TinyModelConfig)}
    unknown = sorted(set(overrides) - known)
    if unknown:
        raise TypeError(
            f"tiny_model() got unknown option(s) {unknown}; TinyModelConfig has {sorted(known)}"
        )
    config = dataclasses.replace(config or TinyModelConfig(), **overrides)
    tokenizer = tokenizer if tokenizer is not None else tiny_tokenizer(cache_dir=cache_dir)
    hf_config = model_config(tokenizer, config)
    key = _fingerprint("model", BUILD_VERSION, dataclasses.asdict(config), hf_config.to_dict())
    folder = Path(cache_dir) if cache_dir is not None else cache_root()
    target = folder / "tiny" / f"model-{key}"
    if not target.exists():
        # fork_rng restores torch's global generator afterwards: the build draws from its
        # own seed and leaves the caller's random state as it was.
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(config.seed)
            model = transformers.Qwen2ForCausalLM(hf_config)
        with _quiet_transformers():
            _atomic_save(target, model.save_pretrained)
    with _quiet_transformers():
        model = transformers.Qwen2ForCausalLM.from_pretrained(str(target), dtype=torch.float32)
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    return model.eval()


def load_tiny(
    *, cache_dir: str | os.PathLike[str] | None = None, **overrides: Any
) -> tuple[PreTrainedTokenizerFast, PreTrainedModel]:
    """The tiny tokenizer and model (``overrides`` change `TinyModelConfig` fields)."""
    tokenizer = tiny_tokenizer(cache_dir=cache_dir)
    return tokenizer, tiny_model(tokenizer, cache_dir=cache_dir, **overrides)


def parameter_count(model: Any) -> int:
    """Number of distinct parameters (tied embeddings counted once)."""
    return sum(p.numel() for p in {id(p): p for p in model.parameters()}.values())
