"""Palaestra envs in SkyRL-gym: write a SkyRL dataset and play one row through `skyrl_gym.make`.

    pip install "palaestra[skyrl]"
    python examples/skyrl_gym_env.py [OUT.parquet]

In skyrl-train, import `palaestra.integrations.skyrl` in your entrypoint (it registers the
env class ``"palaestra"``) and point ``data.train_data`` at the Parquet file.
"""

import sys

import skyrl_gym

import palaestra.integrations.skyrl as pal_skyrl

path = sys.argv[1] if len(sys.argv) > 1 else "palaestra_skyrl.parquet"
rows = pal_skyrl.rows(["GuessNumber-v0", "Countdown-v0"], n=64, seed=0)
print(f"wrote {pal_skyrl.write_parquet(path, rows)} rows to {path}")

for row in (rows[0], rows[64]):
    env = skyrl_gym.make(row["env_class"], env_config={}, extras=row)
    conversation, _ = env.init(row["prompt"])
    done = False
    while not done:  # the env's oracle stands in for the model here
        output = env.step(env.env.oracle_action())
        done = output["done"]
    print(env.episode.env_id, env.get_metrics())
    env.close()
