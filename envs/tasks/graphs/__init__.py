"""Graph problems: routes, orders, colourings and relations.

Shortest paths, topological orders, graph colouring, Hamiltonian paths, connected components
and family trees. Shared pieces are in `palaestra.envs.tasks._logic`.
"""
