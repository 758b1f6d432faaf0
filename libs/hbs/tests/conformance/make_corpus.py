#!/usr/bin/env python3
"""Writes the conformance corpus (corpus/*.json) from the readable case lists below.

The JSON files are what the test reads and what is checked in; this script is only the
convenient way to edit them. Each group: a context (data), optional partials, templates.
A template may be {"t": ..., "data": ..., "partials": ...} to override the group's.
"""
import json, os

here = os.path.dirname(os.path.abspath(__file__))
files = {}

def group(file, name, templates, data=None, partials=None):
    g = {"name": name, "templates": templates}
    if data is not None: g["data"] = data
    if partials: g["partials"] = partials
    files.setdefault(file, []).append(g)

people = {"name": "Ada", "title": "<b>Dr</b>", "age": 36, "ratio": 0.5, "big": 1e21, "small": 1.5e-7,
          "neg": -3, "zero": 0, "t": True, "f": False, "n": None, "empty": "", "quote": "a\"b'c`d=e&f",
          "arr": [1, "two", None, [3, 4], {"x": 1}, True], "obj": {"a": {"b": {"c": "deep"}}, "k": "v"},
          "items": ["a", "b", "c"], "list": [{"name": "x", "v": 1}, {"name": "y", "v": 2}],
          "weird key": "spaced", "with.dot": "dotted", "this": "thisval", "float": 3.25, "int_float": 2.0,
          "nested": [[1, 2], [3]], "emptyArr": [], "emptyObj": {}}

# ---------------------------------------------------------------- mustaches and paths
group("mustache", "paths", [
    "{{name}}", "Hello {{name}}!", "{{obj.a.b.c}}", "{{obj/a/b/c}}", "{{obj.k}}", "{{missing}}",
    "{{missing.deep.path}}", "{{obj.missing.x}}", "{{this.name}}", "{{./name}}", "{{this/name}}",
    "{{[weird key]}}", "{{[with.dot]}}", "{{obj.[k]}}", "{{[this]}}", "{{this.[this]}}",
    "{{items.length}}", "{{items.[1]}}", "{{name.length}}", "{{list.[0].name}}", "{{list.1.name}}",
    "{{nested.[0].[1]}}", "{{ name }}", "{{  obj.k   }}", "{{\nname\n}}", "{{'name'}}", "{{\"weird key\"}}",
    "{{@root.name}}", "{{@root.obj.k}}", "{{#with obj}}{{@root.name}}{{/with}}", "{{this}}",
    "{{.}}", "{{#with obj.a}}{{.}}{{/with}}", "{{name}}{{name}}", "a{{n}}b{{missing}}c",
    "{{true}}", "{{1}}", "{{null}}", "{{undefined}}",
], data=people)
group("mustache", "values", [
    "{{age}}", "{{ratio}}", "{{big}}", "{{small}}", "{{neg}}", "{{zero}}", "{{t}}", "{{f}}", "{{n}}",
    "{{empty}}", "{{arr}}", "{{obj}}", "{{nested}}", "{{emptyArr}}", "{{emptyObj}}", "{{float}}",
    "{{int_float}}", "{{{arr}}}", "{{{obj}}}", "{{{t}}}", "{{{f}}}", "{{{zero}}}", "{{{n}}}",
], data=people)
group("mustache", "numbers", [
    "{{a}} {{b}} {{c}} {{d}} {{e}} {{f}} {{g}} {{h}} {{i}}",
    "{{j}}|{{k}}|{{l}}|{{m}}",
], data={"a": 0.1, "b": 100, "c": 1e-6, "d": 1e-7, "e": 123456789012345680000, "f": 1.7976931348623157e308,
          "g": -0.0, "h": 5e-324, "i": 0.30000000000000004, "j": 1e20, "k": 12345.678, "l": -1.5e-10, "m": 2.5e25})
group("mustache", "escaping", [
    "{{title}}", "{{{title}}}", "{{& title}}", "{{&title}}", "{{quote}}", "{{{quote}}}", "{{{ title }}}",
    "{{~{title}~}}", "{{lookup . 'title'}}", "{{{lookup . 'title'}}}",
    "\\{{name}}", "\\\\{{name}}", "\\{{name}} {{name}}", "a\\{{name}}\\{{name}}b", "\\{{#if}}x{{name}}",
    "{{name}}\\{{", "x \\{{{title}}} y", "\\\\\\{{name}}", "\\{{name", "\\{{{{raw}}}}",
], data=people)

# ---------------------------------------------------------------- blocks
cond = {"yes": True, "no": False, "zero": 0, "one": 1, "emptyS": "", "s": "str", "arr": [1, 2], "ea": [],
        "obj": {"k": "v"}, "eo": {}, "n": None, "nested": {"yes": True, "val": "inner"}, "val": "outer"}
group("blocks", "if/unless", [
    "{{#if yes}}Y{{/if}}", "{{#if no}}Y{{/if}}", "{{#if no}}Y{{else}}N{{/if}}", "{{#if zero}}Y{{else}}N{{/if}}",
    "{{#if zero includeZero=true}}Y{{else}}N{{/if}}", "{{#if one}}Y{{/if}}", "{{#if emptyS}}Y{{else}}N{{/if}}",
    "{{#if s}}Y{{/if}}", "{{#if arr}}Y{{/if}}", "{{#if ea}}Y{{else}}N{{/if}}", "{{#if obj}}Y{{/if}}",
    "{{#if eo}}Y{{else}}N{{/if}}", "{{#if n}}Y{{else}}N{{/if}}", "{{#if missing}}Y{{else}}N{{/if}}",
    "{{#unless no}}U{{/unless}}", "{{#unless yes}}U{{else}}E{{/unless}}", "{{#unless zero}}U{{/unless}}",
    "{{#if no}}A{{else if yes}}B{{else}}C{{/if}}", "{{#if no}}A{{else if no}}B{{else}}C{{/if}}",
    "{{#if no}}A{{else if zero}}B{{else if one}}C{{else}}D{{/if}}", "{{#if yes}}{{val}}{{/if}}",
    "{{#if nested.yes}}{{nested.val}}{{/if}}", "{{#if yes}}{{#if no}}x{{else}}{{#unless no}}deep{{/unless}}{{/if}}{{/if}}",
    "{{#if yes}}{{../val}}{{/if}}", "{{#with nested}}{{#if yes}}{{val}} {{../val}}{{/if}}{{/with}}",
    "{{^if yes}}A{{else}}B{{/if}}", "{{^if no}}A{{/if}}", "{{#unless no}}A{{else if yes}}B{{/unless}}",
    "{{#if yes}}A{{^}}B{{/if}}", "{{#if no}}A{{^}}B{{/if}}", "{{#if (lookup . 'yes')}}L{{/if}}",
    "{{#if}}x{{/if}}", "{{#if yes no}}x{{/if}}", "{{if yes}}",
], data=cond)
each_data = {"items": ["a", "b", "c"], "nums": [10, 20], "objs": [{"n": "x", "sub": [1, 2]}, {"n": "y", "sub": []}],
             "map": {"one": 1, "two": 2, "three": 3}, "intkeys": {"b": 1, "2": "two", "a": 3, "1": "one"},
             "empty": [], "emap": {}, "prefix": "P", "nested": [[1, 2], [3, 4]], "mixed": [None, 0, False, "", [], {}],
             "str": "abc", "num": 5, "deep": {"list": [{"v": 1}, {"v": 2}]}}
group("blocks", "each", [
    "{{#each items}}{{this}}{{/each}}", "{{#each items}}{{@index}}:{{.}} {{/each}}",
    "{{#each items}}{{#if @first}}[{{/if}}{{this}}{{#if @last}}]{{else}},{{/if}}{{/each}}",
    "{{#each map}}{{@key}}={{this}};{{/each}}", "{{#each map}}{{@index}}{{@first}}{{@last}} {{/each}}",
    "{{#each intkeys}}{{@key}}:{{this}} {{/each}}", "{{#each empty}}x{{else}}none{{/each}}",
    "{{#each emap}}x{{else}}none{{/each}}", "{{#each missing}}x{{else}}none{{/each}}",
    "{{#each objs}}{{n}}({{#each sub}}{{this}}{{else}}-{{/each}}){{/each}}",
    "{{#each objs}}{{n}}{{../prefix}}{{/each}}", "{{#each objs}}{{#each sub}}{{../n}}{{../../prefix}}{{this}}{{/each}}{{/each}}",
    "{{#each objs}}{{#each sub}}{{@../index}}.{{@index}} {{/each}}{{/each}}",
    "{{#each items as |item|}}{{item}}{{/each}}", "{{#each items as |item idx|}}{{idx}}={{item}} {{/each}}",
    "{{#each map as |v k|}}{{k}}->{{v}} {{/each}}", "{{#each objs as |o|}}{{#each o.sub as |s|}}{{o.n}}{{s}}{{/each}}{{/each}}",
    "{{#each nested}}{{#each this}}{{this}}{{/each}}|{{/each}}", "{{#each mixed}}[{{this}}]{{/each}}",
    "{{#each str}}x{{else}}not iterable{{/each}}", "{{#each num}}x{{else}}not iterable{{/each}}",
    "{{#each deep.list}}{{v}}{{/each}}", "{{#each items}}{{@root.prefix}}{{this}}{{/each}}",
    "{{#each items}}{{#with ../map}}{{one}}{{/with}}{{/each}}", "{{#each}}x{{/each}}",
    "{{#each items as |a b c|}}{{a}}{{b}}[{{c}}]{{/each}}", "{{#each objs}}{{#if @first}}{{n}}{{/if}}{{/each}}",
    "{{#each items}}{{@key}}{{/each}}", "{{#each map}}{{#each ../items}}{{@../key}}{{this}} {{/each}}{{/each}}",
], data=each_data)
group("blocks", "with", [
    "{{#with obj}}{{k}}{{/with}}", "{{#with obj}}{{k}}{{else}}no{{/with}}", "{{#with missing}}{{k}}{{else}}no{{/with}}",
    "{{#with ea}}x{{else}}empty{{/with}}", "{{#with zero}}[{{this}}]{{else}}no{{/with}}",
    "{{#with s}}{{this}}{{/with}}", "{{#with obj as |o|}}{{o.k}}{{/with}}", "{{#with nested}}{{#with ../obj}}{{k}}{{/with}}{{/with}}",
    "{{#with nested}}{{val}}/{{../val}}{{/with}}", "{{#with obj}}{{#with ../nested}}{{../../val}}{{/with}}{{/with}}",
    "{{#with}}x{{/with}}", "{{#with obj}}{{this.k}}{{./k}}{{/with}}",
], data=cond)
group("blocks", "sections (blockHelperMissing)", [
    "{{#yes}}Y{{/yes}}", "{{#no}}Y{{else}}N{{/no}}", "{{#obj}}{{k}}{{/obj}}", "{{#arr}}[{{this}}]{{/arr}}",
    "{{#arr}}{{@index}}{{/arr}}", "{{#ea}}x{{else}}empty{{/ea}}", "{{#s}}{{this}}{{/s}}", "{{#zero}}[{{this}}]{{/zero}}",
    "{{#emptyS}}[{{this}}]{{else}}no{{/emptyS}}", "{{#n}}x{{else}}null{{/n}}", "{{#missing}}x{{else}}missing{{/missing}}",
    "{{^no}}inverted{{/no}}", "{{^yes}}inverted{{/yes}}", "{{^ea}}empty{{/ea}}", "{{^arr}}x{{/arr}}",
    "{{^missing}}M{{/missing}}", "{{^yes}}A{{else}}B{{/yes}}", "{{#nested.yes}}deep{{/nested.yes}}",
    "{{#nested}}{{val}}{{/nested}}", "{{#nested}}{{../val}}{{/nested}}", "{{#eo}}x{{else}}y{{/eo}}",
    "{{#one}}[{{this}}]{{/one}}", "{{#yes}}{{val}}{{/yes}}", "{{#arr as |x|}}{{x}}{{/arr}}",
    "{{#./obj}}{{k}}{{/./obj}}", "{{#this.obj}}{{k}}{{/this.obj}}",
], data=cond)

# ---------------------------------------------------------------- helpers, literals, subexpressions
hdata = {"a": 3, "b": 4, "s": "str", "list": ["x", "y"], "obj": {"key": "val", "other": "o"}, "k": "key",
         "idx": 1, "f": 1.5, "t": True, "n": None, "name": "N"}
group("helpers", "lookup and literals", [
    "{{lookup obj 'key'}}", "{{lookup obj k}}", "{{lookup list 1}}", "{{lookup list idx}}", "{{lookup list 5}}",
    "{{lookup obj 'nope'}}", "{{lookup missing 'x'}}", "{{lookup s 0}}", "{{lookup s 'length'}}",
    "{{lookup list 'length'}}", "{{#with (lookup . 'obj')}}{{key}}{{/with}}", "{{lookup . 'name'}}",
    "{{lookup (lookup . 'obj') 'other'}}", "{{#each list}}{{lookup ../obj 'key'}}{{/each}}",
    "{{lookup obj \"key\"}}", "{{lookup n 'x'}}", "{{lookup 0 'x'}}",
], data=hdata)
group("helpers", "extras", [
    "{{eq a 3}}", "{{eq a b}}", "{{ne a b}}", "{{gt b a}}", "{{gte a 3}}", "{{lt a b}}", "{{lte b 3}}",
    "{{and t a}}", "{{and t n}}", "{{or n a}}", "{{or n 0}}", "{{not n}}", "{{not list}}", "{{len list}}",
    "{{len obj}}", "{{len s}}", "{{add a b}}", "{{add a b 10}}", "{{sub a b}}", "{{mul a b}}", "{{mul a f}}",
    "{{div 12 a}}", "{{div 7 2}}", "{{mod 7 a}}", "{{min a b}}", "{{max a b 2}}", "{{add f f}}",
    "{{#if (eq a 3)}}three{{/if}}", "{{#if (and (gt b a) (lt a 10))}}ok{{/if}}", "{{#each (range 3)}}{{this}}{{/each}}",
    "{{#each (range 2 5)}}{{this}},{{/each}}", "{{#each (range 10 0 -3)}}{{this}} {{/each}}",
    "{{join list}}", "{{join list ', '}}", "{{join (range 4) '-'}}", "{{default missing 'dflt'}}",
    "{{default name 'dflt'}}", "{{default n 7}}", "{{#times 3}}{{@index}}{{#unless @last}},{{/unless}}{{/times}}",
    "{{#times a as |i|}}{{i}}{{name}}{{/times}}", "{{#times 0}}x{{else}}none{{/times}}",
    "{{add (mul a b) (sub b a)}}", "{{{{raw}}}}{{a}} {{#if}}{{{{/raw}}}}", "{{#raw}}{{a}}{{/raw}}",
], data=hdata)
group("helpers", "custom params", [
    "{{echo}}", "{{echo 'x'}}", "{{echo a b}}", "{{echo 1 -2 1.5 true false null undefined}}",
    "{{echo \"dq\" 'sq'}}", "{{echo k=1}}", "{{echo a k='v' z=t}}", "{{echo (echo a) (echo b c)}}",
    "{{echo x=(echo a)}}", "{{echo obj.key list.[1]}}", "{{echo ./a ../a}}", "{{echo @root.a}}",
    "{{echo 'a \\' b'}}", "{{echo \"a \\\" b\"}}", "{{echo [a] [b]}}", "{{echo a}}{{echo b}}",
    "{{#each list}}{{echo this @index @first}}{{/each}}", "{{echo this}}", "{{echo .}}",
    "{{echo \"}}\"}}", "{{echo '{{x}}'}}", "{{echo 0.50 -0.25 007}}", "{{echo k=1 k=2}}",
    "{{echo b=1 a=2 c=3}}", "{{echo (echo x=1 y=2)}}", "{{#each list}}{{echo a=this b=@index}}{{/each}}",
], data=hdata)

# ---------------------------------------------------------------- partials
pdata = {"name": "Ada", "user": {"name": "Bob", "role": "admin"}, "items": [{"name": "i1"}, {"name": "i2"}],
         "which": "greet", "lines": "a\nb", "val": "V"}
partials = {"greet": "Hi {{name}}!", "user": "[{{name}}:{{role}}]", "ml": "line1\nline2\n", "ml2": "x\n\ny",
            "nested": "<{{> greet}}>", "ind": "A\n{{> ml}}B\n", "ctx": "{{this.name}}/{{role}}",
            "layout": "<main>{{> @partial-block}}</main>", "layout2": "[{{> @partial-block}}|{{> @partial-block}}]",
            "slot": "<{{> content}}>", "up": "{{../name}}|{{name}}", "root": "{{@root.name}}",
            "each": "{{#each items}}{{> item}}{{/each}}", "item": "({{name}})", "hashy": "{{a}}-{{b}}-{{name}}",
            "block-in": "{{#> layout}}in:{{name}}{{/layout}}", "pb-data": "{{#each items}}{{> @partial-block}}{{/each}}",
            "ml-partial-block": "{{> @partial-block}}\n"}
group("partials", "basic", [
    "{{> greet}}", "{{>greet}}", "{{> greet user}}", "{{> user user}}", "{{> user user role='x'}}",
    "{{> hashy a=1 b='two'}}", "{{> hashy user a=1}}", "{{> nested}}", "{{> ctx user}}", "{{> up}}",
    "{{#with user}}{{> up}}{{/with}}", "{{#with user}}{{> root}}{{/with}}", "{{> each}}",
    "{{#each items}}{{> greet}}{{/each}}", "{{> (lookup . 'which')}}", "{{> (echo 'greet')}}",
    "{{> 'greet'}}", "{{> \"greet\"}}", "{{> missing}}", "{{> greet a b}}", "{{> ml}}", "{{> ml2}}",
    "{{> greet name='Eve'}}", "{{> greet this}}", "{{> user items.[0]}}",
], data=pdata, partials=partials)
group("partials", "partial blocks and inline", [
    "{{#> layout}}body {{name}}{{/layout}}", "{{#> missing}}fallback {{name}}{{/missing}}",
    "{{#> layout2}}X{{/layout2}}", "{{#> layout}}{{#> layout}}inner{{/layout}}{{/layout}}",
    "{{> block-in}}", "{{#> pb-data}}[{{name}}]{{/pb-data}}", "{{#> slot}}{{#*inline 'content'}}C:{{name}}{{/inline}}{{/slot}}",
    "{{#*inline 'p'}}inline {{name}}{{/inline}}{{> p}}", "{{> p}}{{#*inline 'p'}}later{{/inline}}",
    "{{#*inline 'p'}}one{{/inline}}{{#*inline 'p'}}two{{/inline}}{{> p}}",
    "{{#*inline 'greet'}}shadow{{/inline}}{{> greet}}", "{{#with user}}{{#*inline 'q'}}Q{{name}}{{/inline}}{{> q}}{{/with}}",
    "{{#*inline 'r'}}R{{/inline}}{{#if true}}{{> r}}{{/if}}", "{{#*inline 'content'}}outer{{/inline}}{{> slot}}",
    "{{#> layout user}}{{name}}{{/layout}}", "{{#> layout title='t'}}{{title}}{{/layout}}",
    "{{#each items}}{{#> layout}}{{name}}{{../val}}{{/layout}}{{/each}}",
    "{{#each items as |it|}}{{#> layout}}{{it.name}}{{/layout}}{{/each}}", "{{> @partial-block}}",
    "{{#> (lookup . 'which')}}unused{{/lookup}}",
], data=pdata, partials=partials)
group("partials", "standalone indentation", [
    "x\n  {{> ml}}\ny", "  {{> ml}}", "\t{{> ind}}\n", "a\n   {{> ml2}}\nb", "  {{> greet}}\n  {{> greet}}\n",
    "  {{> ml}}  \nz", " x {{> ml}}\n", "{{#if true}}\n  {{> ml}}\n{{/if}}", "  {{#> layout}}\n  body\n  {{/layout}}\n",
    "  {{> nested}}\n", "\n  {{> ind}}\n", "  {{> ml-partial-block}}", "a\r\n  {{> ml}}\r\nb",
    "{{#each items}}\n  {{> item}}\n{{/each}}", "  {{~> ml}}\n", "  {{> ml~}}\nafter",
], data=pdata, partials=partials)

# ---------------------------------------------------------------- whitespace control & standalone
wdata = {"a": "A", "t": True, "f": False, "list": [1, 2], "o": {"k": "v"}}
group("whitespace", "tilde", [
    "x  {{~a}}  y", "x  {{a~}}  y", "x \n {{~a~}} \n y", "{{~a~}}", "  {{~#if t}}  in  {{~/if~}}  out",
    "{{#if t~}}\n  yes\n{{~/if}}", "{{#if f}}a{{~else~}}  b  {{/if}}", "{{#if f}}a {{~^~}} b{{/if}}",
    "{{#each list~}}\n  {{this}}\n{{~/each}}", "a {{~! comment ~}} b", "a {{~!-- comment --~}} b",
    "x {{~{a}~}} y", "x {{~&a~}} y", "{{#if t}} a {{~else~}} b {{/if}}", "1\n\n{{~a}}\n\n2",
    "{{#if f~}} x {{~else if t~}} y {{~else~}} z {{~/if}}", "{{#if f}} x {{else if t~}} y {{~/if}}",
    "a\n{{~#each list}}\n{{this}}\n{{~/each}}\nb", "{{#with o~}}  {{k}}  {{~/with}}",
    "  \n\t{{~a}}", "{{a~}}\r\n\t x", "{{#if t}}a{{~else if f}}b{{else~}} c{{/if}}", "a{{~> p~}}b",
], data=wdata, partials={"p": " P "})
group("whitespace", "standalone", [
    "{{#if t}}\nyes\n{{/if}}\n", "  {{#if t}}\n  yes\n  {{/if}}\n", "{{#if f}}\nA\n{{else}}\nB\n{{/if}}\n",
    "a\n{{#if t}}\nb\n{{/if}}\nc", "a\n  {{#each list}}\n  - {{this}}\n  {{/each}}\nc", "{{#if t}}\r\nwin\r\n{{/if}}\r\n",
    "x {{#if t}}\ny\n{{/if}}", "{{#if t}} x\n{{/if}}", "\n{{#if t}}\n\n{{/if}}\n", "  {{! comment }}\nline",
    "a\n  {{!-- multi\nline --}}\nb", "{{! only }}", "  {{!x}}  \n", "{{#if t}}\n{{#if t}}\nnested\n{{/if}}\n{{/if}}\n",
    "{{#if f}}\nA\n{{else if t}}\nB\n{{else}}\nC\n{{/if}}\n", "{{#if f}}\nA\n  {{^}}  \nB\n{{/if}}",
    "begin\n{{#each list}}\n{{this}}\n{{/each}}\nend\n", "{{#each list}}{{this}}\n{{/each}}", "  {{a}}\n",
    "{{#if t}}\n  {{a}}\n{{/if}}", "|\n{{#if t}}  \n|\n  {{/if}}  \n|", "{{#with o}}\n{{k}}\n{{/with}}",
    "{{^f}}\nnot\n{{/f}}\n", "{{#t}}\nsec\n{{/t}}\n", "a\n{{#*inline 'q'}}\nQ\n{{/inline}}\n{{> q}}\nb",
    "  {{#> lay}}\n  x\n  {{/lay}}\n", "{{#if t}}\n\ta\n\t{{else}}\n\tb\n{{/if}}\n", "\n\n{{#if t}}\n\n\n{{/if}}\n\n",
    "{{#if t}}   \n   {{/if}}", "x{{#if t}}\n{{/if}}y", "{{{{raw}}}}\n{{a}}\n{{{{/raw}}}}\n", "a {{#if t}}\n{{/if}} b\n",
    "{{#each list}}\n  {{#if @first}}\n  first\n  {{/if}}\n{{/each}}", "  {{#if t}}  {{/if}}  ",
    "{{#if t}}\n{{else}}\n{{/if}}", "\r\n{{#if t}}\r\n{{/if}}\r\n", "  {{^}}", "{{#if t}}\n  {{> p}}\n{{/if}}",
], data=wdata, partials={"p": "P\n", "lay": "[{{> @partial-block}}]"})

# ---------------------------------------------------------------- comments, raw blocks, odd lexing
group("lexing", "comments and raw", [
    "a{{! comment }}b", "a{{!-- comment --}}b", "a{{!-- has }} inside --}}b", "{{!--}}x", "{{!-- a --}} {{!-- b --}}",
    "a{{!}}b", "{{! {{nested}} }}x", "{{{{raw}}}}{{#each}}{{{{/raw}}}}", "{{{{raw}}}} {{{{raw}}}} {{{{/raw}}}} {{{{/raw}}}}",
    "{{{{raw}}}}a{{{{/other}}}}b{{{{/raw}}}}", "x{{{{raw}}}}{{{{/raw}}}}y", "{{{{raw}}}}\\{{a}}{{{{/raw}}}}",
    "{{a}}{{! trailing", "{{!-- unterminated", "{{{{raw}}}}unterminated",
], data=wdata)
group("lexing", "odd syntax", [
    "{{a}}}", "{{{a}}", "{{a", "{{#if t}}x", "{{/if}}", "{{#if t}}x{{/each}}", "{{foo.this}}", "{{../}}",
    "{{a.}}", "{{a..b}}", "{{#each list as |x|}}{{x}}{{/each}}", "{{#each list as | x |}}{{x}}{{/each}}",
    "{{@}}", "{{a=b}}", "{{echo a=b c}}", "{{(echo a)}}", "{{echo (echo)}}", "{{else}}", "{{^}}",
    "{{#if t}}{{else}}{{else}}{{/if}}", "}}", "{{", "{ {a} }", "{{ a }} }}", "{{a}}{{", "{{!}}", "{{>}}",
    "{{#*inline}}x{{/inline}}", "{{a~}}", "{{~ a ~}}", "{{ ~a~ }}", "{{&}}", "{{#}}", "{{@a.b}}",
    "{{[a}}", "{{'a}}", "{{a-b}}", "{{a?b}}", "{{$x}}", "{{a:b}}", "{{ä}}",
], data={"a": "A", "t": True, "list": [1], "a-b": "dash", "a?b": "q", "$x": "dollar", "a:b": "colon", "ä": "umlaut"})
group("lexing", "else variants", [
    "{{#if f}}a{{ else }}b{{/if}}", "{{#if f}}a{{~else}}b{{/if}}", "{{#if f}}a{{else~}} b{{/if}}",
    "{{#if f}}a{{^}}b{{/if}}", "{{#if f}}a{{ ^ }}b{{/if}}", "{{#if f}}a{{elsewhere}}b{{/if}}",
    "{{#if f}}a{{else if t}}b{{/if}}", "{{#if f}}a{{else   if   t}}b{{/if}}", "{{#if f}}a{{else unless f}}b{{/if}}",
    "{{#if f}}a{{else with o}}{{k}}{{/if}}", "{{#if f}}a{{else each list}}{{this}}{{/if}}",
], data={"f": False, "t": True, "o": {"k": "v"}, "list": [1, 2], "elsewhere": "E"})

# ---------------------------------------------------------------- a realistic shader template
shader = {"name": "matmul", "wg": [8, 8, 1], "tile": 4, "dtype": "f32",
          "bindings": [{"n": "a", "t": "array<f32>", "rw": "read"}, {"n": "b", "t": "array<f32>", "rw": "read"},
                       {"n": "out", "t": "array<f32>", "rw": "read_write"}], "bias": True}
group("shader", "wgsl", [
    "{{#each bindings}}\n@group(0) @binding({{@index}}) var<storage, {{rw}}> {{n}}: {{t}};\n{{/each}}",
    "@compute @workgroup_size({{join wg ', '}})\nfn main() {\n  {{#times tile}}\n  var acc{{@index}}: {{../dtype}} = 0.0;\n  {{/times}}\n}\n",
    "fn f() {\n  {{#if bias}}\n  x = x + b[i];\n  {{/if}}\n}",
    "struct S { v: {{dtype}} }\nconst T: u32 = {{mul tile 2}}u;\n",
    "{{#each bindings}}{{#if @last}}{{n}}{{else}}{{n}}, {{/if}}{{/each}}",
    "{{#> fn_wrap name='main'}}\n  let x = 1;\n{{/fn_wrap}}",
    "var<workgroup> tile: array<{{dtype}}, {{mul tile tile}}>;",
    "struct S { v: {{dtype}}}", "fn f() { return {{dtype}}}", "struct S { v: {{dtype}} }",
    "{{#if bias}}{ x }{{/if}}}", "struct S {\n  v: {{dtype}}\n}",
], data=shader, partials={"fn_wrap": "fn {{name}}() {\n{{> @partial-block}}\n}\n"})


tree = {"name": "root", "children": [{"name": "a", "children": [{"name": "a1", "children": []}]},
         {"name": "b", "children": []}], "flags": {"x": "0", "y": "false", "z": " "},
         "arr": [1.5, 2.25, -0.5, 1e-7], "m": {"10": "ten", "2": "two", "b": "bee", "-1": "neg", "01": "lead"},
         "deep": {"a": {"b": {"c": {"d": "D"}}}}, "which": "leaf", "sel": "name", "n": 3}
group("extra", "recursion and data", [
    "{{> node}}", "{{#each children}}{{> node}}{{/each}}", "{{> node children.[0]}}",
    "{{#each children}}{{@index}}{{#each children}}{{@../index}}{{@index}}{{/each}}{{/each}}",
    "{{#each children as |c i|}}{{#each c.children as |g j|}}{{c.name}}{{i}}{{g.name}}{{j}}{{/each}}{{/each}}",
    "{{#each this}}{{@key}};{{/each}}", "{{#each m}}{{@key}}={{this}} {{/each}}", "{{#each arr}}{{this}} {{/each}}",
    "{{arr}}", "{{#each flags}}{{@key}}:{{#if this}}T{{else}}F{{/if}} {{/each}}",
    "{{#with deep.a}}{{#with b}}{{#with c}}{{d}}{{../../../deep.a.b.c.d}}{{@root.name}}{{/with}}{{/with}}{{/with}}",
    "{{lookup this 'name'}}", "{{lookup . sel}}", "{{lookup deep.a 'b'}}", "{{#with (lookup deep 'a')}}{{b.c.d}}{{/with}}",
    "{{> (lookup . 'which')}}", "{{#each children}}{{> (lookup ../this 'which')}}{{/each}}",
    "{{#each children as |name|}}{{name.name}}{{/each}}", "{{#with deep as |name|}}{{name.a.b.c.d}}{{/with}}",
    "{{{echo name}}}", "{{echo a=true b=null c=undefined d=-1.5 e='s'}}", "{{echo (echo k=(echo 1))}}",
    "{{#each children}}{{#with ../flags}}{{x}}{{../name}}{{/with}}{{/each}}", "{{echo ..}}", "{{#with deep}}{{echo ..}}{{/with}}",
    "{{#with deep}}{{> leaf ..}}{{/with}}", "{{> leaf deep}}", "{{#each children}}{{@first}}{{@last}}{{/each}}",
    "\\\\\\\\{{name}}", "{{#times n}}{{#each ../children}}{{name}}{{/each}}{{/times}}",
    "{{#each children}}{{#times 2}}{{name}}{{@index}}{{/times}}{{/each}}",
    "{{#with deep}}{{#*inline 'q'}}[{{../name}}|{{x}}]{{/inline}}{{> q x=1}}{{/with}}",
    "{{#each children}}{{#*inline 'q'}}{{../name}}/{{name}};{{/inline}}{{> q}}{{/each}}",
    "{{#*inline 'q'}}[{{../name}}]{{/inline}}{{#with deep}}{{> q}}{{/with}}",
    # `@` before a context path: handlebars.js reads `@.`, `@this` and `@../.` as `.`, `this`, `../.`
    "{{@.}}", "{{@this}}", "{{#each arr}}[{{@.}}|{{@this}}]{{/each}}", "{{#with deep}}{{@../.}}{{/with}}",
    "{{#with deep}}{{#with a}}{{@../.}}{{/with}}{{/with}}", "{{@../.}}", "{{lookup @. 'name'}}",
], data=tree, partials={"node": "{{name}}({{#each children}}{{> node}}{{/each}})", "leaf": "<{{name}}|{{a.b.c.d}}>"})
group("extra", "nested layouts", [
    "{{#> outer}}X{{/outer}}", "{{#> outer}}{{#> inner}}Y{{/inner}}{{/outer}}", "{{#> wrap2}}Z{{/wrap2}}",
    "{{#> outer}}{{#*inline 'slot'}}S{{/inline}}B{{/outer}}", "{{#> slotted}}{{#*inline 'slot'}}S{{name}}{{/inline}}{{/slotted}}",
    "{{#> slotted}}no slot{{/slotted}}", "{{#> outer name='N'}}{{name}}{{/outer}}",
    "{{#each items}}{{#> outer}}{{this}}{{@index}}{{/outer}}{{/each}}", "{{#> recur n=2}}leaf{{/recur}}",
    "{{#> outer}}\n  line\n{{/outer}}\n", "  {{#> outer}}\n  a\n  {{/outer}}\n  b",
], data={"name": "ctx", "items": ["i", "j"]}, partials={
    "outer": "<o>{{> @partial-block}}</o>", "inner": "<i>{{> @partial-block}}</i>",
    "wrap2": "{{#> outer}}[{{> @partial-block}}]{{/outer}}", "slotted": "<s>{{#> slot}}default{{/slot}}</s>",
    "recur": "({{> @partial-block}})"})
group("extra", "standalone edge cases", [
    "{{#each items}}\n{{this}}\n{{else}}\nnone\n{{/each}}\n", "{{#each none}}\n{{this}}\n{{else}}\nnone\n{{/each}}\n",
    "a\n  {{^items}}\n  empty\n  {{/items}}\nb", "{{#if t}}\n  {{#each items}}\n    - {{this}}\n  {{/each}}\n{{/if}}\n",
    " {{#if t}} \n x \n {{/if}} ", "\t{{#if t}}\t\n\tx\n\t{{else}}\t\n\ty\n\t{{/if}}\t\n",
    "{{#if t}}\n{{! comment }}\nx\n{{/if}}\n", "a\n{{! c1 }}\n{{! c2 }}\nb", "{{!-- a --}}\n{{> p}}\n{{!-- b --}}\n",
    "x\n  {{> p}}\n  {{> p}}\ny", "{{#if t}}x{{/if}}\n{{#if t}}\ny\n{{/if}}", "\n  {{#if t}}\n\n  {{/if}}\n",
    "{{#if t}}\r\n  a\r\n{{else}}\r\n  b\r\n{{/if}}\r\n", "  {{#if t~}}\n  a\n  {{~/if}}  \n", "{{#each items}}{{#if @last}}\n{{/if}}{{/each}}",
    "a{{#if t}}\n{{/if}}\nb", "{{#if f}}\n{{else if t}}\n  mid\n{{/if}}\n", "{{#with o}}\n  {{#each this}}\n  {{@key}}\n  {{/each}}\n{{/with}}\n",
], data={"items": ["a", "b"], "none": [], "t": True, "f": False, "o": {"k1": 1, "k2": 2}}, partials={"p": "P1\nP2\n"})
# handlebars.js joins a program's pieces with JavaScript `+`: raw numbers and booleans add up.
group("extra", "javascript + joining", [
    "{{{a}}}{{{a}}}", "{{{a}}}{{{b}}}x", "x{{{a}}}{{{a}}}", "{{{t}}}{{{t}}}", "{{{f}}}{{{a}}}", "{{{a}}}{{a}}{{{a}}}",
    "{{#if t}}{{{a}}}{{/if}}{{{a}}}", "{{#sec}}{{{a}}}{{/sec}}{{{a}}}", "{{#sec}}x{{/sec}}{{{a}}}{{{a}}}{{#sec}}y{{/sec}}",
    "{{{a}}}{{#each l}}{{{this}}}{{/each}}", "{{#each l}}{{{this}}}{{{this}}},{{/each}}", "{{{a}}}{{> p}}{{{a}}}",
    "{{#with o}}{{{n}}}{{{n}}}{{/with}}", "{{{a}}}{{! c }}{{{a}}}", "{{{a}}}\n{{{a}}}", "{{{s}}}{{{a}}}{{{a}}}",
    "{{#times 2}}{{{../a}}}{{/times}}", "{{{add a a}}}{{{a}}}", "{{#if t}}{{{a}}}{{{b}}}{{/if}}",
    "{{#sec}}{{/sec}}{{{a}}}{{{b}}}{{#sec}}{{/sec}}", "{{#sec}}{{/sec}}{{{a}}}{{{b}}}",
], data={"a": 1, "b": 2.5, "t": True, "f": False, "s": "s", "sec": True, "l": [1, 2], "o": {"n": 3}},
   partials={"p": "{{{a}}}{{{a}}}"})


odd = {"s": "h\u00e9llo \U0001F600", "items": ["ab", "cde"], "arr": [[1, 2], [3]], "o": {"length": 7, "0": "zero"},
       "num": -0.0, "fz": 0.0, "str": "abc", "t": True}
group("extra", "odd values", [
    "{{s}}", "{{s.length}}", "{{str.length}}", "{{#each items}}{{this.length}}{{/each}}", "{{o.length}}", "{{o.[0]}}",
    "{{#with arr}}{{[0]}}|{{[1].[0]}}|{{this.length}}{{/with}}", "{{#if num}}y{{else}}n{{/if}}", "{{num}}", "{{fz}}",
    "{{#if fz includeZero=true}}y{{/if}}", "{{#with str}}{{this}}{{length}}{{/with}}", "{{#each str}}x{{else}}no{{/each}}",
    "{{> p 'lit'}}", "{{> p 5}}", "{{> p str x=1}}", "{{> p items x=1}}", "{{> p o x=1}}", "{{> p t x=1}}",
    "{{echo 'it\\'s'}}", "{{echo \"say \\\"hi\\\"\"}}", "{{#each items as |x|}}{{../x}}{{x}}{{/each}}",
    "{{../../x}}", "{{#with o}}{{../../../x}}{{/with}}", "{{echo this.str str}}", "{{#each items}}{{echo this @key}}{{/each}}",
    "{{{{raw}}}}{{{{raw}}}}{{x}}{{{{/raw}}}}{{{{/raw}}}}", "{{#raw}}{{{{raw}}}}a{{{{/raw}}}}{{/raw}}",
    "\u00e9{{str}}\u00e9", "{{[str]}}{{[s]}}",
], data=odd, partials={"p": "[{{this}}|{{x}}|{{#each this}}{{@key}}{{/each}}]"})

# a custom helper `echo` is needed in both engines for the params group: define it in partial-free way
for file, groups in files.items():
    with open(os.path.join(here, "corpus", file + ".json"), "w") as fh:
        json.dump({"groups": groups}, fh, indent=1, ensure_ascii=False)
        fh.write("\n")
print(sum(len(g["templates"]) for gs in files.values() for g in gs), "cases")
