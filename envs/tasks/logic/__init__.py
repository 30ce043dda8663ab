"""Logic puzzles: what follows from statements, and who or what makes them true.

Knights and knaves, zebra puzzles, propositional and first-order entailment, SAT,
syllogisms, self-referential statements and Boolean circuits. Shared pieces are in
`palaestra.envs.tasks._logic`.
"""
