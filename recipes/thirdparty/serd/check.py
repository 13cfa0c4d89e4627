"""Smoke test of the serd wheel: Turtle to N-Triples in serd's C code,
on whatever machine runs it (x86-64, or aarch64 under qemu)."""
import platform
import sys

import serd

nt = serd.turtle_to_ntriples("""
@prefix ex: <http://example.org/> .
ex:a ex:b "c" , "d" ;
     ex:e [ ex:f 42 ] .
""")
lines = nt.splitlines()
assert lines[0] == '<http://example.org/a> <http://example.org/b> "c" .', nt
assert lines[1] == '<http://example.org/a> <http://example.org/b> "d" .', nt
assert len(lines) == 4 and '"42"^^<http://www.w3.org/2001/XMLSchema#integer>' in nt, nt

try:
    serd.turtle_to_ntriples("ex:a ex:b .")  # a statement without an object
except serd.SerdError as e:
    err = str(e)
else:
    sys.exit("bad Turtle parsed")
print("serd", platform.machine(), "ok:", err)
