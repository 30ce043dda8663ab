"""Arithmetic and algebra: exact values, equations, polynomials and number theory.

The single-turn exemplar (`arithmetic`), the reference task family (`base_conversion`),
Countdown and the 24 game, arithmetic chains, linear equations, polynomial expansion and
roots, GCD and LCM, prime factorisation, modular arithmetic, calendar arithmetic and word
problems.
"""
