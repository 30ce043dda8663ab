"""Adapters between Palaestra and the RL frameworks people already run.

One small module per framework, each imported only when used, so importing this package
imports no framework:

    palaestra.integrations.trl            TRL's GRPOTrainer (rollout_func, environment_factory,
                                          reward functions for dataset rows)
    palaestra.integrations.verifiers      PrimeIntellect's verifiers (load_environment)
    palaestra.integrations.reasoning_gym  reasoning-gym's datasets as Palaestra envs
                                          (``palaestra.make("rg:<dataset>")``)
    palaestra.integrations.skyrl          SkyRL-gym's registry (``skyrl_gym.make("palaestra")``)
    palaestra.integrations.verl           verl's agent loop (token in, token out), dataset rows
                                          and ``compute_score``
    palaestra.integrations.openrlhf       the agent function file of OpenRLHF's multi-turn
                                          agent executor

Each module's docstring says what maps to what and what is lost on the way.
"""
