"""derivatives.yaml -> minigrad/_generated/ and tests/generated/.

model.py (dataclasses) <- load.py (YAML, schema, validation with line numbers)
<- analyze.py (formulas parsed with ast: names, saved values, code) -> emit.py
(Jinja templates, write-if-changed).  Never imported by minigrad at run time.
"""
