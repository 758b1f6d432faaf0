#!/usr/bin/env python3
"""Random templates for the conformance corpus: nests every construct (blocks, else chains,
sections, partials, partial blocks, inline partials, ~ and standalone whitespace, raw values that
handlebars.js joins with JavaScript `+`) over one context.
usage: random_templates.py SEED COUNT OUT.json   (corpus/random.json: seed 11, 1200)"""
import random, json, sys
random.seed(int(sys.argv[1]))
paths = ["a", "b", "s", "t", "f", "n", "z", "arr", "o", "o.k", "o.o.k", "this", ".", "../a", "@index", "@key", "@first", "@last", "@root.a", "missing", "[a]", "o/k", "arr.[1]", "arr.length", "x", "@../index"]
helpers_v = ["lookup o 'k'", "lookup arr 1", "echo a b", "echo k=a", "eq a 1", "len arr", "default missing 'd'"]
ws = ["", " ", "\n", "  \n", "\n  ", "\t", "\r\n", "x", " y ", "\n\n"]
def tl(): return random.choice(["", "~"])
def mus():
    r = random.random()
    if r < 0.6: return "{{%s%s%s}}" % (tl(), random.choice(paths), tl())
    if r < 0.75: return "{{{%s}}}" % random.choice(paths)
    if r < 0.9: return "{{%s%s%s}}" % (tl(), random.choice(helpers_v), tl())
    return "{{%s! c %s}}" % (tl(), tl())
def block(d):
    kind = random.choice(["if", "unless", "each", "with", "sec", "inv", "partial", "pblock", "inline"])
    p = random.choice(["a", "t", "f", "z", "arr", "o", "n", "missing", "o.o", "s", "ea", "eo"])
    body = gen(d + 1)
    other = gen(d + 1) if random.random() < 0.4 else None
    els = ("{{%selse%s}}" % (tl(), tl()) + other) if other is not None else ""
    if kind in ("if", "unless", "each", "with"):
        bp = " as |v k|" if kind == "each" and random.random() < 0.3 else ""
        inc = " includeZero=true" if kind == "if" and random.random() < 0.2 else ""
        if kind == "if" and other is not None and random.random() < 0.3:
            els = "{{else if %s}}" % random.choice(["t", "f", "a"]) + other
        return "{{%s#%s %s%s%s%s}}%s%s{{%s/%s%s}}" % (tl(), kind, p, inc, bp, tl(), body, els, tl(), kind, tl())
    if kind == "sec": return "{{#%s}}%s%s{{/%s}}" % (p, body, els, p)
    if kind == "inv": return "{{^%s}}%s{{/%s}}" % (p, body, p)
    if kind == "partial": return "{{%s> %s%s%s}}" % (tl(), random.choice(["p1", "p2", "p3"]), random.choice(["", " o", " arr", " x=a"]), tl())
    if kind == "pblock": return "{{#> %s}}%s{{/%s}}" % (random.choice(["lay", "nope"]),  body, "lay") if False else "{{#> lay}}%s{{/lay}}" % body
    return "{{#*inline \"p3\"}}%s{{/inline}}" % body
def gen(d=0):
    out = ""
    for _ in range(random.randint(1, 5)):
        r = random.random()
        if r < 0.35: out += random.choice(ws)
        elif r < 0.7: out += mus()
        elif d < 3: out += block(d)
        else: out += random.choice(ws)
    return out
ctx = {"a": 1, "b": "<b>", "s": "str", "t": True, "f": False, "n": None, "z": 0, "arr": [1, "two", {"k": 3}], "ea": [], "eo": {},
       "o": {"k": "v", "o": {"k": 2}}}
parts = {"p1": "P1{{a}}\n", "p2": "  {{#each arr}}\n  - {{this}}\n  {{/each}}\n", "p3": "[{{> @partial-block}}]", "lay": "<{{> @partial-block}}>\n"}
tpls = list(set(gen() for _ in range(int(sys.argv[2]))))
json.dump({"groups": [{"name": "random", "data": ctx, "partials": parts, "templates": tpls}]}, open(sys.argv[3], "w"))
