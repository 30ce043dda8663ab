"""Strings and ciphers: transform, decode or decide things about text.

Caesar, Vigenère, affine and rail-fence ciphers (sharing `_cipher`), cryptarithms, string
rewriting, word ladders, anagrams, Dyck words and regular-expression membership.
"""
