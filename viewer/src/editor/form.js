// Parameter forms and the palette, generated from the JSON Schemas the loader validates
// against (GET /api/schemas): one field per parameter of the node's kind (numbers, strings,
// booleans, enums), a leaf's args as key/value rows.
import { NumberText, NUMBER_TEXT } from './yamltext.js';

const esc = s => String(s).replace(/[&<>"']/g, c => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);

export class Schemas {
  constructor(all, type) {
    this.all = all || {};
    this.type = type;
    this.root = this.all[type] || this.all.tree || {};
    this.defs = this.root.$defs || {};
  }
  deref(s) {
    for (let k = 0; s && s.$ref && k < 20; k++) {
      const name = s.$ref.replace('#/$defs/', '');
      s = { ...this.defs[name], ...Object.fromEntries(Object.entries(s).filter(([k2]) => k2 !== '$ref')) , _def: name };
    }
    return s || {};
  }
  // Every node kind the brain type's schema allows, in the schema's order.
  nodeKinds() { return Object.keys((this.defs.node && this.defs.node.properties) || {}); }
  kindSchema(kind) { return this.deref(((this.defs.node || {}).properties || {})[kind] || {}); }
  variants(s) {
    s = this.deref(s);
    const list = s.oneOf || s.anyOf;
    return list ? list.map(v => this.deref(v)) : [s];
  }
  // What a kind is: 'composite' (children), 'decorator' (one child), 'leaf' (a leaf name),
  // 'number' (wait), 'other'.
  shape(kind) {
    const vs = this.variants(this.kindSchema(kind));
    if (vs.some(v => v._def === 'children' || v._def === 'node_list')) return 'composite';
    if (vs.some(v => v._def === 'node')) return 'decorator';
    if (vs.some(v => v._def === 'leaf_name')) return 'leaf';
    const pv = this.paramVariant(kind);
    if (pv && pv.properties && (pv.properties.children || pv.properties.do)) return 'composite';
    if (pv && pv.properties && pv.properties.child) return 'decorator';
    if (vs.some(v => v.type === 'number' || v.type === 'integer')) return 'number';
    return 'other';
  }
  // The parameter mapping's schema of a kind (for condition: the one matching `value`).
  paramVariant(kind, value) {
    const vs = this.variants(this.kindSchema(kind)).filter(v => v.type === 'object' && v.properties && v._def !== 'node');
    if (value && typeof value === 'object' && 'check' in value) return vs.find(v => v.properties.check) || vs[0];
    return vs.find(v => !v.properties.check) || vs[0];
  }
  def(name) { return this.deref({ $ref: '#/$defs/' + name }); }
}

const STRUCTURAL = new Set(['child', 'children', 'conditions', 'do', 'states', 'when', 'behaviors', 'trees', 'machines',
  'blackboard', 'leaves', 'import', 'root', 'tree', 'machine', 'enter', 'exit', 'reason', 'act', 'enter_if']);

// The fields of a form: [{key, schema, value}] for the properties of `props` (a schema with
// properties), `values` the current parameter values (a plain object).
export function fieldsOf(schemas, objSchema, values, keep = []) {
  const props = (objSchema && objSchema.properties) || {};
  return Object.keys(props).filter(k => !STRUCTURAL.has(k) || keep.includes(k))
    .map(k => ({ key: k, schema: schemas.deref(props[k]), value: values ? values[k] : undefined, required: (objSchema.required || []).includes(k) }));
}

// A field's input; its text is parsed back by parseInput.
function inputFor(schemas, f, leaves) {
  const s = f.schema;
  const id = `f-${f.key}`;
  const title = esc(s.description || '');
  const v = f.value;
  const vs = schemas.variants(s);
  const enumVals = s.enum || (vs.length > 1 ? null : null);
  if (f.key === 'args' || s._def === 'leaf_args' || (s.type === 'object' && !s.properties && f.key === 'args')) return null;
  if (s.type === 'boolean') {
    return `<input type="checkbox" id="${id}" data-key="${esc(f.key)}" data-type="boolean" title="${title}"${v === true ? ' checked' : ''}>`;
  }
  if (enumVals) {
    const opts = ['', ...enumVals].map(e => `<option value="${esc(e)}"${String(v ?? '') === String(e) ? ' selected' : ''}>${esc(e === '' ? '(default)' : e)}</option>`);
    return `<select id="${id}" data-key="${esc(f.key)}" data-type="enum" title="${title}">${opts.join('')}</select>`;
  }
  const isLeaf = f.key === 'leaf' || s._def === 'leaf_name' || s._def === 'leaf_ref';
  const text = v === undefined || v === null ? '' : v instanceof NumberText ? v.text : typeof v === 'object' ? JSON.stringify(v) : String(v);
  // (A type list that takes text, as a node name's ["string", "number", "boolean"], is text.)
  const st = Array.isArray(s.type) ? (s.type.includes('string') ? 'string' : s.type[0]) : s.type;
  const type = st === 'number' || st === 'integer' ? 'number' : (vs.some(x => x.type === 'integer' || x.type === 'number') ? 'scalar' : (st === 'string' || isLeaf ? 'string' : 'yaml'));
  const list = isLeaf ? ' list="leaf-names"' : f.key === 'go' || f.key === 'initial' ? ' list="state-names"' : '';
  const target = f.target ? ` data-target="${esc(f.target)}"` : '';
  return `<input type="text" id="${id}" data-key="${esc(f.key)}" data-type="${type}"${target} value="${esc(text)}" title="${title}"${list}${f.required ? ' data-required="1" required' : ''} spellcheck="false" autocomplete="off">`;
}

// A field's text that is not written to the file: why (said at the field).
export class Refused {
  constructor(why) { this.why = why; }
}
// Text of an input to a value: numbers where it reads as one, written as typed (1.50 stays
// 1.50, 9007199254740993 keeps its digits: Number() rewrote them), a wrong type goes through
// as text (so the loader reports it), '' = unset. A number past the largest a double holds
// (1e400) is Refused: its value is infinity, which the file would then say (.inf).
export function parseInput(type, raw, checked) {
  if (type === 'boolean') return checked ? true : undefined;
  if (raw === '') return undefined;
  if (type === 'number' || type === 'scalar') {
    const t = raw.trim();
    if (NUMBER_TEXT.test(t)) {
      const n = Number(t);
      if (!Number.isFinite(n)) return new Refused(`${t} is out of range (a number is at most about 1.8e308; this one would be infinity): not written`);
      return String(n) === t ? n : new NumberText(t);
    }
    if (t === 'true' || t === 'false') return t === 'true';
    return raw;
  }
  if (type === 'yaml') {
    try { return JSON.parse(raw); } catch { return raw; }
  }
  return raw;
}
export function parseArg(raw) {
  const t = raw.trim();
  if (NUMBER_TEXT.test(t)) {
    const n = Number(t);
    return String(n) === t ? n : new NumberText(t);  // 1.0 stays 1.0 (a float), not 1
  }
  if (t === 'true' || t === 'false') return t === 'true';
  if (/^[[{]/.test(t)) { try { return JSON.parse(t); } catch { /* text */ } }
  return raw;
}

// Builds the form. spec: {title, subtitle, fields, args (object|undefined), argsAllowed, readonly}
export function buildForm(el, spec, schemas, leaves) {
  const rows = [];
  rows.push(`<div class="form-title">${esc(spec.title)}</div>`);
  if (spec.subtitle) rows.push(`<div class="form-sub">${esc(spec.subtitle)}</div>`);
  if (spec.readonly) rows.push(`<div class="form-note">${esc(spec.readonly)}</div>`);
  if (spec.note) rows.push(`<div class="form-note">${esc(spec.note)}</div>`);
  for (const f of spec.fields) {
    const input = inputFor(schemas, f, leaves);
    if (!input) continue;
    rows.push(`<label class="field" title="${esc(f.schema.description || '')}"><span class="fkey">${esc(f.key)}${f.required ? ' *' : ''}</span>${input}</label>` +
      `<div class="field-msg" id="msg-${esc(f.key)}" role="alert"></div>`);
  }
  if (spec.argsAllowed) {
    rows.push('<div class="args-head">args</div><table class="args" id="args"><tbody>');
    // One row per pair of the file's `args:` mapping, in its order: data-index is the pair's
    // place there, which is how the row's edits find it (its key text is not: while a key is
    // typed it may pass through another arg's, and the edit then went to that one).
    for (const { key: k, text: t, index } of spec.args || []) {
      rows.push(`<tr data-arg="${esc(k)}" data-index="${index}"><td><input class="arg-key" value="${esc(k)}" spellcheck="false" aria-label="argument name"></td>` +
        `<td><input class="arg-value" value="${esc(t)}" spellcheck="false" aria-label="value of ${esc(k)}"></td>` +
        `<td><button type="button" class="arg-del" title="remove ${esc(k)}" aria-label="remove ${esc(k)}">×</button></td></tr>`);
    }
    rows.push('</tbody></table><div class="field-msg" id="args-msg" role="alert"></div><button type="button" id="arg-add" class="small">+ arg</button>');
  }
  if (spec.transitions) {
    rows.push('<div class="args-head">transitions</div><table class="transitions" id="transitions"><tbody>');
    for (const [k, v] of Object.entries(spec.transitions)) {
      const guarded = typeof v === 'object';
      rows.push(`<tr data-event="${esc(k)}"><td class="tr-event">${esc(k)}</td><td class="tr-arrow">→</td><td><input class="tr-target" list="state-names" value="${esc(guarded ? v.go ?? '' : v)}"` +
        `${guarded ? ' disabled title="a guarded transition: edit it in the YAML"' : ''} aria-label="target of ${esc(k)}"></td></tr>`);
    }
    rows.push('</tbody></table>');
  }
  el.innerHTML = rows.join('');
  if (spec.readonly) for (const i of el.querySelectorAll('input,select,button')) i.disabled = true;
}

// The YAML of a new node of `kind` with valid defaults.
export function defaultNode(schemas, kind, leafName, treeNames = []) {
  const leaf = leafName || 'Leaf';
  const child = { action: leaf };
  const shape = schemas.shape(kind);
  const pv = schemas.paramVariant(kind);
  const required = pv ? (pv.required || []) : [];
  const fill = obj => {
    for (const r of required) {
      if (r in obj) continue;
      if (r === 'child') obj.child = child;
      else if (r === 'children' || r === 'do') obj[r] = [child];
      else if (r === 'leaf') obj.leaf = leaf;
      else if (r === 'tree') obj.tree = treeNames[0] || 'name';
      else obj[r] = defaultValue(schemas.deref(pv.properties[r] || {}));
    }
    return obj;
  };
  if (kind === 'action' || kind === 'condition') return { [kind]: leaf };
  if (kind === 'wait') return { wait: 1.0 };
  if (kind === 'subtree') return { subtree: treeNames[0] || 'name' };
  if (shape === 'composite') {
    if (required.length <= 1 && schemas.variants(schemas.kindSchema(kind)).some(v => v._def === 'children')) return { [kind]: [child] };
    return { [kind]: fill({}) };
  }
  if (shape === 'decorator') {
    if (required.filter(r => r !== 'child').length === 0) return { [kind]: child };
    return { [kind]: fill({}) };
  }
  if (shape === 'leaf') return { [kind]: leaf };
  if (shape === 'number') return { [kind]: 1 };
  return { [kind]: fill({}) };
}
function defaultValue(s) {
  if (s.enum) return s.enum[0];
  if (s.type === 'integer') return Math.max(1, s.minimum ?? 1);
  if (s.type === 'number') return Math.max(1, s.minimum ?? 1);
  if (s.type === 'boolean') return false;
  if (s.type === 'array') return [];
  if (s.oneOf) return defaultValue(s.oneOf[0]);
  return 'x';
}

// The palette: node kinds grouped (thicket's own, BehaviorTree.CPP's, behavior3's), the brain's
// leaves, and for an fsm a state / for a machine a behavior.
export function buildPalette(el, schemas, type, leaves) {
  const kinds = schemas.nodeKinds();
  const groups = [['nodes', kinds.filter(k => !/^(bt|b3)_/.test(k))], ['BehaviorTree.CPP', kinds.filter(k => k.startsWith('bt_'))],
    ['behavior3', kinds.filter(k => k.startsWith('b3_'))]];
  const out = [];
  if (type === 'fsm') out.push('<div class="pal-group"><div class="pal-head">states</div><button type="button" class="pal" data-special="state">state</button><button type="button" class="pal" data-special="when">when</button></div>');
  if (type === 'machine') out.push('<div class="pal-group"><div class="pal-head">behaviors</div><button type="button" class="pal" data-special="behavior">behavior</button></div>');
  out.push(`<div class="pal-group"><div class="pal-head">leaves (${leaves.length})</div>`);
  for (const l of leaves)
    out.push(`<span class="pal-leaf"><button type="button" class="pal" data-leaf="${esc(l.name)}" data-as="action" title="action ${esc(l.name)} (${esc(l.file)})">${esc(l.name)}</button>` +
      `<button type="button" class="pal pal-cond" data-leaf="${esc(l.name)}" data-as="condition" title="condition ${esc(l.name)}">?</button></span>`);
  if (!leaves.length) out.push('<span class="muted">no leaves found in the brain\'s Lua files</span>');
  out.push('</div>');
  groups.forEach(([name, list], g) => {
    if (!list.length) return;
    // thicket's own kinds open; the imported libraries' kinds folded
    out.push(g ? `<details class="pal-group"><summary class="pal-head">${esc(name)} (${list.length})</summary>` : `<div class="pal-group"><div class="pal-head">${esc(name)}</div>`);
    for (const k of list) out.push(`<button type="button" class="pal" data-kind="${esc(k)}" title="${esc(schemas.kindSchema(k).description || k)}">${esc(k)}</button>`);
    out.push(g ? '</details>' : '</div>');
  });
  el.innerHTML = out.join('');
}
