// The editor's text surgery. The YAML text is the state: every edit becomes a few splices
// ({start, end, insert}) of the text at the source ranges the `yaml` package's Document API
// reports, so comments, blank lines, key order, quoting and flow/block style stay byte for byte
// everywhere the edit does not touch. New YAML (an added node, a wrapped one) is written by the
// small writer below in the file's own compact style (`action: {leaf: X, args: {a: 1}}`).
import { parseDocument, isMap, isSeq, isScalar } from '/yaml/index.js';

export function parse(text) {
  return parseDocument(text, { uniqueKeys: false, prettyErrors: false, keepSourceTokens: false });
}

// ---------- positions ----------
export function lineStart(text, off) { return text.lastIndexOf('\n', off - 1) + 1; }
export function lineEnd(text, off) { const e = text.indexOf('\n', off); return e < 0 ? text.length : e; }
export function lineStarts(text) {
  const out = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) out.push(i + 1);
  return out;
}
// 1-based line and column (the loader's, in characters: Unicode code points) to an offset in
// this page's text, which counts UTF-16 units: they differ after a character past U+FFFF.
export function offsetOf(starts, text, line, column) {
  if (line < 1 || line > starts.length) return -1;
  const ls = starts[line - 1];
  const chars = Math.max(column - 1, 0);
  const le = line < starts.length ? starts[line] : text.length;
  if (!/[\ud800-\udfff]/.test(text.slice(ls, Math.min(le, ls + 2 * chars)))) return Math.min(ls + chars, le, text.length);
  let n = 0, i = ls;
  while (i < le && n < chars) {
    i += text.codePointAt(i) >= 0x10000 ? 2 : 1;
    ++n;
  }
  return i;
}
// Applies splices (any order, not overlapping) and returns the new text.
export function applySplices(text, splices) {
  const sorted = [...splices].sort((a, b) => b.start - a.start);
  let out = text;
  for (const s of sorted) out = out.slice(0, s.start) + s.insert + out.slice(s.end);
  return out;
}
// Where an offset of the old text went: after a removed region it shifts; inside one it is lost
// (-1) unless it was the region's start.
export function shiftOffset(off, splices) {
  if (off < 0) return off;
  let delta = 0;
  for (const s of splices) {
    if (off >= s.end && !(off === s.start && s.end === s.start)) delta += s.insert.length - (s.end - s.start);
    else if (off > s.start && off < s.end) return -1;
  }
  return off + delta;
}

// ---------- the index of a parsed document ----------
// parent: node -> {pair, coll} (a map value or key) or {seq, index}; valueAt/keyAt: the pair
// whose value/key starts at an offset; itemAt: the sequence item starting there.
export function indexDoc(doc) {
  const ix = { doc, parent: new Map(), valueAt: new Map(), keyAt: new Map(), itemAt: new Map() };
  const walk = (node, up) => {
    if (!node || typeof node !== 'object') return;
    ix.parent.set(node, up);
    if (isMap(node)) {
      for (const p of node.items) {
        if (p.key && p.key.range) {
          ix.parent.set(p.key, { pair: p, coll: node, isKey: true });
          ix.keyAt.set(p.key.range[0], { pair: p, map: node });
        }
        if (p.value && p.value.range) {
          if (!ix.valueAt.has(p.value.range[0])) ix.valueAt.set(p.value.range[0], { pair: p, map: node });
          walk(p.value, { pair: p, coll: node });
        }
      }
    } else if (isSeq(node)) {
      node.items.forEach((it, i) => {
        if (it && it.range) {
          ix.itemAt.set(it.range[0], { seq: node, index: i });
          walk(it, { seq: node, index: i });
        }
      });
    }
  };
  walk(doc.contents, null);
  return ix;
}

export const keyName = p => (p && p.key && isScalar(p.key) ? String(p.key.value) : p && p.key != null ? String(p.key) : '');

// The parts of states and behaviors that the compiler makes nodes of.
const PART_KEYS = new Set(['enter', 'exit', 'reason', 'act', 'enter_if', 'check', 'run', 'condition', 'tree']);

// Which piece of YAML a compiled node is: resolved from the offset the loader gives for it
// (the value of the node's kind key, a state's key, an fsm state part's value ...).
//   {type: 'node', map, kind, value}      a tree node: the one-key mapping {kind: value}
//   {type: 'part', map, pair, key}        a state's enter/exit/reason/act/enter_if, a guard, a check
//   {type: 'state', map, pair, name}      an fsm state (its key in a states: mapping)
//   {type: 'when', seq, index, map}       an fsm `when` entry
//   {type: 'behavior', seq, index, map}   a machine behavior (its `run` node stands for it)
//   {type: 'root', map}                   the brain itself
// Each has `range` [start, end] (the text it covers) and, when it is an item of a list,
// `seq`/`index` (it can move and be deleted there).
export function resolve(ix, off, kind, isRoot, nodeKinds) {
  const root = ix.doc.contents;
  if (isRoot) return isMap(root) ? { type: 'root', map: root, range: [root.range[0], root.range[1]] } : null;
  if (kind === 'state') {
    const k = ix.keyAt.get(off);
    if (!k) return null;
    return withPlace(ix, { type: 'state', map: k.map, pair: k.pair, name: keyName(k.pair) });
  }
  let at = ix.valueAt.get(off);
  if (!at) {
    const item = ix.itemAt.get(off);
    if (item) return entityOfCollection(ix, item.seq.items[item.index], nodeKinds);
    return null;
  }
  return entityOfPair(ix, at.pair, at.map, nodeKinds);
}

function entityOfPair(ix, pair, map, nodeKinds) {
  const key = keyName(pair);
  if (map.items.length === 1 && nodeKinds.has(key)) return withPlace(ix, { type: 'node', map, kind: key, value: pair.value });
  const up = ix.parent.get(map);
  if (key === 'check' || key === 'leaf') {
    // {check: "..."} / {leaf: X} of a condition: the node is the mapping around it.
    if (up && up.pair) return entityOfPair(ix, up.pair, up.coll, nodeKinds);
  }
  if (up && up.seq) {
    const list = ix.parent.get(up.seq);
    const listKey = list && list.pair ? keyName(list.pair) : '';
    if (listKey === 'when') return withPlace(ix, { type: 'when', map });
    if (listKey === 'behaviors' && key === 'run') return withPlace(ix, { type: 'behavior', map });
  }
  if (PART_KEYS.has(key)) return withPlace(ix, { type: 'part', map, pair, key });
  if (up && up.pair) return entityOfPair(ix, up.pair, up.coll, nodeKinds);
  return null;
}

function entityOfCollection(ix, node, nodeKinds) {
  if (isMap(node) && node.items.length === 1 && nodeKinds.has(keyName(node.items[0])))
    return withPlace(ix, { type: 'node', map: node, kind: keyName(node.items[0]), value: node.items[0].value });
  return null;
}

// Adds range (the text of the entity) and its place in a list.
function withPlace(ix, e) {
  if (e.type === 'state' || e.type === 'part') {
    const v = e.pair.value;
    e.range = [e.pair.key.range[0], v && v.range ? v.range[1] : e.pair.key.range[1]];
  } else {
    e.range = [e.map.range[0], e.map.range[1]];
  }
  const up = e.type === 'node' || e.type === 'when' || e.type === 'behavior' ? ix.parent.get(e.map) : null;
  if (up && up.seq) { e.seq = up.seq; e.index = up.index; }
  if (up && up.pair) { e.slot = up.pair; e.slotMap = up.coll; }
  return e;
}

// ---------- writing YAML ----------
// A number as the user wrote it (1.0, 9007199254740993, 1e400): its text is what is written,
// so the brain reads the value and the type that were typed (Number() made 1.0 the integer 1,
// which a Lua leaf sees as another type, and rounded or overflowed the others).
// A number as a form field takes it (digits, a point, an exponent; no .inf or 0x).
export const NUMBER_TEXT = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;
export class NumberText {
  constructor(text) { this.text = text; }
  valueOf() { return Number(this.text); }
  toString() { return this.text; }
  toJSON() { return Number(this.text); }
}
const RESERVED = /^(true|false|null|~|True|False|TRUE|FALSE|Null|NULL|)$/;
const NUMBERISH = /^[-+]?(\.?[0-9]|\.(inf|Inf|INF|nan|NaN|NAN))|^0[xo]/;
// A scalar as YAML text; `like` (an existing scalar node) keeps its quoting.
export function scalarText(v, like, flow = true) {
  if (v === null || v === undefined) return 'null';
  if (v instanceof NumberText) return v.text;
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : v > 0 ? '.inf' : v < 0 ? '-.inf' : '.nan';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  const s = String(v);
  if (like && like.type === 'QUOTE_SINGLE') return `'${s.replace(/'/g, "''")}'`;
  if (like && like.type === 'QUOTE_DOUBLE') return JSON.stringify(s);
  const plainOk = /^[A-Za-z_/.$][A-Za-z0-9_ ./$()<>=!+*-]*$/.test(s) && !RESERVED.test(s) && !NUMBERISH.test(s) &&
    !/\s$/.test(s) && !/ #|: /.test(s) && !(flow && /[,[\]{}]/.test(s));
  return plainOk ? s : JSON.stringify(s);
}
const isPlainObject = v => v && typeof v === 'object' && !Array.isArray(v) && !(v instanceof NumberText);
// A value in flow style: {a: 1, b: [x, y]}.
export function flowText(v) {
  if (Array.isArray(v)) return `[${v.map(flowText).join(', ')}]`;
  if (isPlainObject(v)) return `{${Object.entries(v).map(([k, x]) => `${scalarText(k)}: ${flowText(x)}`).join(', ')}}`;
  return scalarText(v);
}
const small = v => !(isPlainObject(v) || Array.isArray(v)) || flowText(v).length <= 64 && depth(v) <= 2;
const depth = v => (isPlainObject(v) ? 1 + Math.max(0, ...Object.values(v).map(depth)) :
  Array.isArray(v) ? 1 + Math.max(0, ...v.map(depth)) : 0);
// A value in block style, as lines without their leading indentation beyond `indent` for all
// lines but the first (the first goes after what precedes it, e.g. "- " or "key: ").
// Node mappings with small values stay on one line: `- action: {leaf: X}`.
export function blockLines(v, indent) {
  const pad = ' '.repeat(indent);
  if (Array.isArray(v)) {
    if (!v.length) return ['[]'];
    const out = [];
    v.forEach((x, i) => {
      const inner = blockLines(x, indent + 2);
      out.push((i ? pad : '') + '- ' + inner[0], ...inner.slice(1));
    });
    return out;
  }
  if (isPlainObject(v)) {
    const entries = Object.entries(v);
    if (!entries.length) return ['{}'];
    const out = [];
    entries.forEach(([k, x], i) => {
      const head = (i ? pad : '') + scalarText(k) + ':';
      if (small(x)) out.push(`${head} ${flowText(x)}`);
      else if (Array.isArray(x)) {
        const inner = blockLines(x, indent + 2);
        out.push(head, pad + '  ' + inner[0], ...inner.slice(1));
      } else {
        const inner = blockLines(x, indent + 2);
        out.push(head, pad + '  ' + inner[0], ...inner.slice(1));
      }
    });
    return out;
  }
  return [scalarText(v, null, false)];
}

// ---------- edits (each returns a list of splices of `text`) ----------
// Whether a collection node is written in flow style ({...} / [...]).
export function flowOf(text, n) { return !!n && (n.flow === true || text[n.range[0]] === '{' || text[n.range[0]] === '['); }

// The text span of item i of a sequence: a block item from its line's start (the "- ") to
// the end of its last line; a flow item just its own text.
export function itemSpan(text, seq, i) {
  const n = seq.items[i];
  if (flowOf(text, seq)) return [n.range[0], n.range[1]];
  const ls = lineStart(text, n.range[0]);
  let end = n.range[1];
  if (text[end - 1] !== '\n') end = Math.min(text.length, lineEnd(text, end) + 1);
  // a "- - x" item of an inner sequence: the dash is not at the start of the line
  const before = text.slice(ls, n.range[0]);
  if (!/^\s*-\s+$/.test(before)) {
    const dash = text.lastIndexOf('-', n.range[0] - 1);
    return [dash, end];
  }
  return [ls, end];
}
// Where the whole-line comments right above a block item begin (no blank line between): they
// are the item's own (`# the attack` over `- action: Attack`), so they go where it goes when it
// moves, swaps or is deleted. `s` is the item's line start; a "- - x" item has none of its own.
export function withCommentsAbove(text, s) {
  if (s !== lineStart(text, s)) return s;
  let start = s;
  while (start > 0) {
    const prev = lineStart(text, start - 1);
    if (!/^[ \t]*#/.test(text.slice(prev, start - 1))) break;
    start = prev;
  }
  return start;
}
// Column of the "- " of a block sequence's items.
export function dashColumn(text, seq) {
  const n = seq.items[0];
  const dash = text.lastIndexOf('-', n.range[0] - 1);
  return dash - lineStart(text, dash);
}

// A scalar's new value, spliced at its range. A block scalar's range (`|` or `>` and its lines)
// takes in the line break that ends it: the new value puts one back, or the next line is joined
// onto it.
export function setScalar(text, node, value) {
  let insert = scalarText(value, node, insideFlow(text, node));
  if (text[node.range[1] - 1] === '\n' && !insert.endsWith('\n')) insert += '\n';
  return [{ start: node.range[0], end: node.range[1], insert }];
}
// Rough: whether a node sits inside a flow collection (then , [ ] { } need quotes).
function insideFlow(text, node) {
  const ls = lineStart(text, node.range[0]);
  const before = text.slice(ls, node.range[0]);
  return (before.split('{').length + before.split('[').length) > (before.split('}').length + before.split(']').length);
}

// Replaces a value node (scalar or collection) with new YAML for `value` (a plain JS value):
// inline (flow) when the old value was inline, block lines at the old indentation otherwise.
export function replaceValue(text, node, value) {
  const start = node.range[0];
  const flowCtx = !(isMap(node) || isSeq(node)) || flowOf(text, node);
  if (flowCtx || !(isPlainObject(value) || Array.isArray(value))) {
    let end = node.range[1];
    let insert = isPlainObject(value) || Array.isArray(value) ? flowText(value) : scalarText(value, isScalar(node) ? node : null, insideFlow(text, node));
    if (!flowCtx && text[end - 1] === '\n') insert += '\n';
    return [{ start, end, insert }];
  }
  const col = start - lineStart(text, start);
  const lines = blockLines(value, col);
  let end = node.range[1];
  let insert = lines.join('\n');
  if (text[end - 1] === '\n') insert += '\n';
  return [{ start, end, insert }];
}

// Sets key: value in a mapping (an existing scalar is spliced; a new pair goes after the last).
export function setKey(text, map, key, value) {
  const pair = map.items.find(p => keyName(p) === key);
  return pair ? setPairValue(text, pair, value) : addPair(text, map, key, value);
}
// A pair's new value (the pair itself, not the first of its key: a mapping may hold a key twice
// while it is being typed).
export function setPairValue(text, pair, value) {
  if (pair.value && pair.value.range) {
    if (isScalar(pair.value) && !(isPlainObject(value) || Array.isArray(value))) return setScalar(text, pair.value, value);
    return replaceValue(text, pair.value, value);
  }
  // `key:` with no value
  const colon = text.indexOf(':', pair.key.range[1]);
  return [{ start: colon + 1, end: colon + 1, insert: ' ' + flowText(value) }];
}
export function addPair(text, map, key, value) {
  if (flowOf(text, map)) {
    const close = map.range[1] - 1; // the '}'
    const inner = text.slice(map.range[0] + 1, close);
    const sep = inner.trim() ? ', ' : '';
    const trimmedEnd = map.items.length ? map.items[map.items.length - 1] : null;
    const at = trimmedEnd ? (trimmedEnd.value && trimmedEnd.value.range ? trimmedEnd.value.range[1] : trimmedEnd.key.range[1]) : close;
    return [{ start: at, end: at, insert: `${sep}${scalarText(key)}: ${flowText(value)}` }];
  }
  const first = map.items[0];
  const col = first.key.range[0] - lineStart(text, first.key.range[0]);
  const last = map.items[map.items.length - 1];
  let at = last.value && last.value.range ? last.value.range[1] : last.key.range[1];
  if (text[at - 1] !== '\n') at = Math.min(text.length, lineEnd(text, at) + 1);
  const pad = ' '.repeat(col);
  const lines = blockLines({ [key]: value }, col);
  const nl = at === text.length && text[at - 1] !== '\n' ? '\n' : '';
  return [{ start: at, end: at, insert: nl + pad + lines.join('\n') + '\n' }];
}
// Removes key (and its value) from a mapping.
export function deleteKey(text, map, key) {
  const i = map.items.findIndex(p => keyName(p) === key);
  if (i < 0) return [];
  return deletePairAt(text, map, i);
}
export function deletePairAt(text, map, i) {
  const p = map.items[i];
  const vEnd = p.value && p.value.range ? p.value.range[1] : p.key.range[1];
  if (flowOf(text, map)) {
    if (map.items.length === 1) return [{ start: p.key.range[0], end: vEnd, insert: '' }];
    if (i > 0) {
      const prev = map.items[i - 1];
      const pEnd = prev.value && prev.value.range ? prev.value.range[1] : prev.key.range[1];
      return [{ start: pEnd, end: vEnd, insert: '' }];
    }
    const next = map.items[1];
    return [{ start: p.key.range[0], end: next.key.range[0], insert: '' }];
  }
  const ls = lineStart(text, p.key.range[0]);
  let end = vEnd;
  if (text[end - 1] !== '\n') end = Math.min(text.length, lineEnd(text, end) + 1);
  if (text.slice(ls, p.key.range[0]).trim() !== '') return [{ start: p.key.range[0], end, insert: '' }];
  return [{ start: ls, end, insert: '' }];
}

// Inserts a new item (plain JS value) into a sequence at index (0..length).
export function insertItem(text, seq, index, value) {
  const n = seq.items.length;
  if (flowOf(text, seq)) {
    const t = flowText(value);
    if (!n) return [{ start: seq.range[0] + 1, end: seq.range[0] + 1, insert: t }];
    if (index < n) return [{ start: seq.items[index].range[0], end: seq.items[index].range[0], insert: t + ', ' }];
    return [{ start: seq.items[n - 1].range[1], end: seq.items[n - 1].range[1], insert: ', ' + t }];
  }
  const col = dashColumn(text, seq);
  const lines = blockLines(value, col + 2);
  const body = ' '.repeat(col) + '- ' + lines.join('\n') + '\n';
  if (index < n) {
    const s = withCommentsAbove(text, itemSpan(text, seq, index)[0]);
    return [{ start: s, end: s, insert: body }];
  }
  const [, e] = itemSpan(text, seq, n - 1);
  const nl = text[e - 1] === '\n' ? '' : '\n';
  return [{ start: e, end: e, insert: nl + body }];
}
// The text of item i re-made for another place: block lines re-indented to column `col` (the
// column of the target's "- "), or its own text for a flow target.
// null: the item cannot go into a flow list as it is written (block-style comments would be lost).
export function itemTextFor(text, seq, i, targetFlow, col) {
  const node = seq.items[i];
  if (targetFlow) {
    if (flowOf(text, seq) || !(isMap(node) || isSeq(node)) || flowOf(text, node)) return text.slice(node.range[0], node.range[1]);
    const [s0] = itemSpan(text, seq, i);
    if (withCommentsAbove(text, s0) !== s0 || hasComment(node)) return null;
    return flowSource(text, node);
  }
  if (flowOf(text, seq)) return ' '.repeat(col) + '- ' + text.slice(node.range[0], node.range[1]) + '\n';
  const [s0, e] = itemSpan(text, seq, i);
  const s = withCommentsAbove(text, s0);
  const from = dashColumn(text, seq);
  let chunk = text.slice(s, e);
  if (!chunk.endsWith('\n')) chunk += '\n';
  return reindent(chunk, col - from);
}
// A block-style node in flow style, its scalars as the file writes them (`1.0` stays `1.0`, a
// long integer keeps its digits, quotes stay), not as their values print (toJSON: `1`).
function flowSource(text, node) {
  if (isMap(node)) return `{${node.items.map(p => `${flowSource(text, p.key)}: ${p.value ? flowSource(text, p.value) : 'null'}`).join(', ')}}`;
  if (isSeq(node)) return `[${node.items.map(x => flowSource(text, x)).join(', ')}]`;
  if (!node || !node.range) return 'null';
  const src = text.slice(node.range[0], node.range[1]);
  if (isScalar(node) && (node.type === 'BLOCK_LITERAL' || node.type === 'BLOCK_FOLDED' || src.includes('\n') ||
      (node.type === 'PLAIN' && /[,[\]{}]/.test(src))))
    return JSON.stringify(String(node.value));  // (a text of lines, or with , [ ] { }: quoted, as the text it is)
  return src.replace(/\s+$/, '');
}
function hasComment(node) {
  if (!node) return false;
  if (node.comment || node.commentBefore) return true;
  if (isMap(node)) return node.items.some(p => hasComment(p.key) || hasComment(p.value));
  if (isSeq(node)) return node.items.some(hasComment);
  return false;
}
export function reindent(chunk, by) {
  if (!by) return chunk;
  return chunk.split('\n').map((l, k, all) => {
    if (k === all.length - 1 && l === '') return l;
    if (by > 0) return l.trim() ? ' '.repeat(by) + l : l;
    const lead = l.length - l.trimStart().length;
    return l.slice(Math.min(lead, -by));
  }).join('\n');
}
export function deleteItem(text, seq, i) {
  if (flowOf(text, seq)) {
    const n = seq.items.length;
    const node = seq.items[i];
    if (n === 1) return [{ start: node.range[0], end: node.range[1], insert: '' }];
    if (i > 0) return [{ start: seq.items[i - 1].range[1], end: node.range[1], insert: '' }];
    return [{ start: node.range[0], end: seq.items[1].range[0], insert: '' }];
  }
  const [s, e] = itemSpan(text, seq, i);
  return [{ start: withCommentsAbove(text, s), end: e, insert: '' }];
}
// Swaps items i and i+1 of a sequence (their own text, with a block item's comment lines above
// it; what lies between stays).
export function swapItems(text, seq, i) {
  const [a0, a1] = itemSpan(text, seq, i);
  const [b0, b1] = itemSpan(text, seq, i + 1);
  if (flowOf(text, seq)) return [{ start: a0, end: a1, insert: text.slice(b0, b1) }, { start: b0, end: b1, insert: text.slice(a0, a1) }];
  return swapLines(text, withCommentsAbove(text, a0), a1, withCommentsAbove(text, b0), b1);
}
// Block spans [a0, a1) before [b0, b1), swapped. The second may end the file without a newline:
// the first's line end goes with the line that now comes first (they ran into one line: "...}}    - x").
function swapLines(text, a0, a1, b0, b1) {
  let A = text.slice(a0, a1), B = text.slice(b0, b1);
  if (A.endsWith('\n') && !B.endsWith('\n')) {
    const nl = A.endsWith('\r\n') ? '\r\n' : '\n';
    A = A.slice(0, -nl.length);
    B += nl;
  }
  return [{ start: a0, end: b1, insert: B + text.slice(a1, b0) + A }];
}
// Swaps pairs i and i+1 of a block mapping (fsm states), or of a flow one.
export function swapPairs(text, map, i) {
  const span = k => {
    const p = map.items[k];
    const vEnd = p.value && p.value.range ? p.value.range[1] : p.key.range[1];
    if (flowOf(text, map)) return [p.key.range[0], vEnd];
    let end = vEnd;
    if (text[end - 1] !== '\n') end = Math.min(text.length, lineEnd(text, end) + 1);
    return [lineStart(text, p.key.range[0]), end];
  };
  const [a0, a1] = span(i), [b0, b1] = span(i + 1);
  if (flowOf(text, map)) return [{ start: a0, end: b1, insert: text.slice(b0, b1) + text.slice(a1, b0) + text.slice(a0, a1) }];
  return swapLines(text, a0, a1, b0, b1);
}

// Wraps a node mapping {kind: ...} into {wrapper: {kind: ...}} (a decorator's short form), or,
// with params (required ones, e.g. timeout's seconds), {wrapper: {...params, child: {kind: ...}}}.
export function wrapNode(text, map, wrapper, params = null) {
  const [s, e0] = map.range;
  const has = params && Object.keys(params).length;
  if (flowOf(text, map)) {
    const inner = text.slice(s, e0);
    const body = has ? `{${Object.entries(params).map(([k, v]) => `${scalarText(k)}: ${flowText(v)}`).join(', ')}, child: ${inner}}` : inner;
    return [{ start: s, end: e0, insert: `{${wrapper}: ${body}}` }];
  }
  const col = s - lineStart(text, s);
  let e = e0;
  if (text[e - 1] !== '\n') e = Math.min(text.length, lineEnd(text, e) + 1);
  let chunk = text.slice(s, e);
  const trailingNl = chunk.endsWith('\n');
  if (trailingNl) chunk = chunk.slice(0, -1);
  const lines = chunk.split('\n');
  const by = has ? 4 : 2;
  const pad = ' '.repeat(col + 2);
  const head = has ? [`${wrapper}:`, ...Object.entries(params).map(([k, v]) => `${pad}${scalarText(k)}: ${flowText(v)}`), `${pad}child:`] : [`${wrapper}:`];
  const out = [...head, ' '.repeat(col + by) + lines[0], ...lines.slice(1).map(l => (l.trim() ? ' '.repeat(by) + l : l))];
  return [{ start: s, end: e, insert: out.join('\n') + (trailingNl ? '\n' : '') }];
}
