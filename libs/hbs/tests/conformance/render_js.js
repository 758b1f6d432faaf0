// Renders every case of a conformance corpus with handlebars.js (the reference) and prints
// the results as JSON: [{ok, out} | {ok: false, error}], one per case in corpus order.
// usage: node render_js.js REPO_ROOT CORPUS.json...
'use strict';
const path = require('path');
const fs = require('fs');

const root = process.argv[2];
const Handlebars = require(path.join(root, 'node_modules', 'handlebars'));
const version = require(path.join(root, 'node_modules', 'handlebars', 'package.json')).version;
if (version !== '4.7.8') {
  console.error(`expected handlebars 4.7.8, found ${version}`);
  process.exit(3);
}

// The extra helpers alknet-hbs ships, written from their documented semantics
// (docs/handlebars.md), so corpus cases may use them.
function registerExtras(hb) {
  const truthy = (v) => Array.isArray(v) ? v.length > 0
    : (v && typeof v === 'object') ? Object.keys(v).length > 0 : !!v;
  const deepEq = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  const args = (a) => Array.prototype.slice.call(a, 0, a.length - 1);
  // A test helper (not a built-in): shows exactly which arguments and hash a call received.
  hb.registerHelper('echo', function () {
    const options = arguments[arguments.length - 1];
    const show = (v) => v === undefined ? 'U' : JSON.stringify(v);
    let out = args(arguments).map(show).join(',');
    for (const k of Object.keys(options.hash)) out += ';' + k + '=' + show(options.hash[k]);
    return out;
  });
  hb.registerHelper('raw', function (options) { return options.fn(this); });
  hb.registerHelper('eq', (a, b) => deepEq(a, b));
  hb.registerHelper('ne', (a, b) => !deepEq(a, b));
  hb.registerHelper('gt', (a, b) => a > b);
  hb.registerHelper('gte', (a, b) => a >= b);
  hb.registerHelper('lt', (a, b) => a < b);
  hb.registerHelper('lte', (a, b) => a <= b);
  hb.registerHelper('and', function () { return args(arguments).every(truthy); });
  hb.registerHelper('or', function () { return args(arguments).some(truthy); });
  hb.registerHelper('not', (a) => !truthy(a));
  hb.registerHelper('len', (a) => Array.isArray(a) || typeof a === 'string' ? a.length : Object.keys(a).length);
  hb.registerHelper('add', function () { return args(arguments).reduce((x, y) => x + y); });
  hb.registerHelper('mul', function () { return args(arguments).reduce((x, y) => x * y); });
  hb.registerHelper('min', function () { return Math.min(...args(arguments)); });
  hb.registerHelper('max', function () { return Math.max(...args(arguments)); });
  hb.registerHelper('sub', (a, b) => a - b);
  hb.registerHelper('div', (a, b) => Number.isInteger(a) && Number.isInteger(b) ? Math.trunc(a / b) : a / b);
  hb.registerHelper('mod', (a, b) => a % b);
  hb.registerHelper('range', function () {
    const a = args(arguments);
    let [start, end, step] = a.length === 1 ? [0, a[0], 1] : [a[0], a[1], a[2] || 1];
    const out = [];
    for (let i = start; step > 0 ? i < end : i > end; i += step) out.push(i);
    return out;
  });
  hb.registerHelper('times', function (n, options) {
    let out = '';
    for (let i = 0; i < n; i++) {
      const data = Handlebars.createFrame(options.data);
      data.index = i; data.key = i; data.first = i === 0; data.last = i === n - 1;
      out += options.fn(this, { data, blockParams: [i] });
    }
    return n === 0 ? options.inverse(this) : out;
  });
  hb.registerHelper('join', (a, sep, options) => a.join(options === undefined ? ',' : String(sep)));
  hb.registerHelper('default', (v, d) => v == null ? d : v);
}

Handlebars.logger.log = () => {};
const results = [];
for (const file of process.argv.slice(3)) {
  const corpus = JSON.parse(fs.readFileSync(file, 'utf8'));
  for (const group of corpus.groups) {
    for (const entry of group.templates) {
      const c = typeof entry === 'string' ? { t: entry } : entry;
      const hb = Handlebars.create();
      registerExtras(hb);
      const partials = Object.assign({}, group.partials || {}, c.partials || {});
      for (const [name, src] of Object.entries(partials)) hb.registerPartial(name, src);
      const data = 'data' in c ? c.data : group.data;
      try {
        const tpl = hb.compile(c.t);
        results.push({ ok: true, out: tpl(data === undefined ? {} : data) });
      } catch (e) {
        results.push({ ok: false, error: String(e.message || e) });
      }
    }
  }
}
process.stdout.write(JSON.stringify(results));
