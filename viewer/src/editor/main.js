// thicket edit: the page. The file's text is the state; edits are splices of it (yamltext.js),
// checked as the user types by the real loader (POST /api/check); the drawing is rebuilt from
// the check's node list when the structure changes and keeps the last good one while the text
// does not load. Undo/redo are over texts, so undoing every edit gives back the file's bytes.
import { isMap, isSeq, isScalar } from '/yaml/index.js';
import * as Y from './yamltext.js';
import { renderBrain, setCollapsed, reveal } from './view.js';
import { nodesFromYaml } from './fallback.js';
import { Schemas, fieldsOf, buildForm, parseInput, parseArg, defaultNode, buildPalette, Refused } from './form.js';

const $ = id => document.getElementById(id);
const api = async (url, opts = {}) => {
  const res = await fetch(url, { cache: 'no-store', ...opts });
  let body = null;
  try { body = await res.json(); } catch { body = null; }
  return { status: res.status, ok: res.ok, body };
};

const S = {
  path: '', text: '', savedText: '', mtime: '', attach: null,
  doc: null, ix: null, starts: [],
  nodes: [], offsets: [], type: '', leaves: [], schemas: null, kinds: new Set(),
  errors: [], checkOk: true, checkedText: null,
  history: [], hpos: 0, lastCoalesce: null,
  selected: -1, collapsed: new Set(), view: null, zoom: 1,
  structureKey: '', checkTimer: 0, checkSeq: 0, diskNotified: '',
  bps: new Set(), statuses: '', agent: null, paused: false, timing: {},
  // the run's breakpoints: bpsKnown once the page has set them (or read them from the run);
  // bpsForeign: other files' (the run names them), sent back with this page's own
  bpsKnown: false, bpsForeign: [], bpEpoch: 0, bpPosting: 0, formGen: 0,
  checksApplied: 0, // checks whose answer the page applied (for tests, as S.parses)
};
window.thicketEditor = S; // for tests and the curious
window.thicketEditorBrainName = () => ourBrainName(); // what the attached polls read (tests)
window.thicketEditorEntity = i => { const e = entityOf(i); return e ? { type: e.type, range: e.range, movable: !!(e.seq && e.seq.items.length > 1) || (e.type === 'state' && e.map.items.length > 1) } : null; };

// ---------- text and history ----------
// The parsed document, its index and the line starts follow S.text, parsed when first read
// after a change: text typed in the YAML panel is not parsed key by key (the `yaml` package
// takes ~150 ms for a 2,000-node file, over a second for 30,000 nodes), but once, when the
// check of the text that stood still is applied or something reads S.doc. S.parses counts
// the parses (for tests).
const parsed = { text: null, doc: null, ix: null, starts: null, startsFor: null };
S.parses = 0;
function parsedDoc() {
  if (parsed.text !== S.text) {
    parsed.doc = Y.parse(S.text);
    parsed.ix = Y.indexDoc(parsed.doc);
    S.parses++;
  }
  // Kept as S.text itself, also when only equal to it (a reload of unchanged bytes): later
  // reads compare one string with itself, not two copies of a large file character by character.
  parsed.text = S.text;
  return parsed;
}
Object.defineProperty(S, 'doc', { get: () => parsedDoc().doc, enumerable: true });
Object.defineProperty(S, 'ix', { get: () => parsedDoc().ix, enumerable: true });
Object.defineProperty(S, 'starts', {
  get: () => {
    if (parsed.startsFor !== S.text) parsed.starts = Y.lineStarts(S.text);
    parsed.startsFor = S.text;
    return parsed.starts;
  },
  enumerable: true,
});
// doc: the text's document when the caller has parsed it already (null: parsed when read).
function setDoc(text, doc = null, forceTextarea = false) {
  S.text = text;
  if (doc) {
    parsed.doc = doc;
    parsed.ix = Y.indexDoc(doc);
    parsed.text = text;
    S.parses++;
  }
  $('dirty').hidden = S.text === S.savedText;
  const ta = $('yaml-text');
  if ($('yaml-details').open && (forceTextarea || document.activeElement !== ta) && ta.value !== text) ta.value = text;
  document.title = (S.text === S.savedText ? '' : '● ') + 'thicket edit — ' + S.path.split('/').pop();
}
function snapshot() { return { text: S.text, offsets: S.offsets.slice(), nodes: S.nodes }; }
// Applies an edit: splices of the current text; coalesce: a key that merges consecutive edits
// of one field into one undo step; force: taken even when it breaks the YAML (a reload from
// disk: the page must hold what the file holds, or a save would overwrite it unseen).
// verbatim: the splices are applied as they are (a reload: the file as it is on disk), not with
// the file's line ends.
function commit(splices, coalesce = null, force = false, verbatim = false) {
  if (!splices || !splices.length) return false;
  if (!verbatim) crlf(splices);
  const t0 = performance.now();
  const text = Y.applySplices(S.text, splices);
  if (text === S.text) return false;
  // An edit of the page's own (the form, the drawing) must leave valid YAML if the text was:
  // parsed now. Typing in the YAML panel may pass through invalid YAML: parsed when read.
  let doc = null;
  if (coalesce !== 'yaml-text' && !force) {
    doc = Y.parse(text);
    if (doc.errors.length && !S.doc.errors.length) {
      status('that edit would not be valid YAML; nothing changed', 'bad');
      return false;
    }
  }
  S.offsets = S.offsets.map(o => Y.shiftOffset(o, splices));
  const now = Date.now();
  if (coalesce && S.lastCoalesce && S.lastCoalesce.key === coalesce && now - S.lastCoalesce.at < 2000 && S.hpos === S.history.length - 1) {
    S.history[S.hpos] = null; // replaced below
  } else {
    S.history.length = S.hpos + 1;
    S.hpos++;
  }
  S.lastCoalesce = coalesce ? { key: coalesce, at: now } : null;
  setDoc(text, doc);
  S.history[S.hpos] = snapshot();
  updateUndo();
  scheduleCheck();
  S.timing.commit = performance.now() - t0;
  return true;
}
function updateUndo() {
  $('undo').disabled = S.hpos <= 0;
  $('redo').disabled = S.hpos >= S.history.length - 1;
}
function goHistory(pos) {
  if (pos < 0 || pos >= S.history.length) return;
  S.hpos = pos;
  S.lastCoalesce = null;
  const h = S.history[pos];
  S.offsets = h.offsets.slice();
  if (h.nodes !== S.nodes) { const old = S.nodes; S.nodes = h.nodes; rebuild(old); }
  setDoc(h.text, null, true);
  updateUndo();
  refreshForm();
  scheduleCheck(0);
}
const undo = () => goHistory(S.hpos - 1);
const redo = () => goHistory(S.hpos + 1);

function resetHistory(text) {
  setDoc(text);
  S.history = [snapshot()];
  S.hpos = 0;
  updateUndo();
}

function status(msg, cls = '') {
  const el = $('status');
  el.textContent = msg;
  el.className = cls;
}

// ---------- checking ----------
function scheduleCheck(delay = 150) {
  clearTimeout(S.checkTimer);
  S.checkTimer = setTimeout(runCheck, delay);
}
async function runCheck() {
  const text = S.text;
  const seq = ++S.checkSeq;
  status('checking…');
  let r;
  const tc = performance.now();
  try {
    r = await api('/api/check', { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: text });
  } catch (e) {
    status('cannot reach thicket edit: ' + e.message, 'bad');
    return;
  }
  S.timing.check = performance.now() - tc;
  if (seq !== S.checkSeq || text !== S.text || !r.body) return; // a newer text is being checked
  const t1 = performance.now();
  applyCheck(r.body, text);
  S.timing.apply = performance.now() - t1;
}
// A check that lands after a save of the same text keeps the save's word in the status line
// (it used to replace 'saved', so a slow check made the save look as if it never ended), and
// after a refused save, its reason (a late check said "loads cleanly" over "not saved: ...").
function savedNote() {
  if (S.lastSaved !== undefined && S.text === S.lastSaved) return 'saved; ';
  return S.saveRefused && S.saveRefused.text === S.text ? S.saveRefused.why + '; ' : '';
}
function noteClass(cls) {
  return S.saveRefused && S.saveRefused.text === S.text ? 'bad' : cls;
}
function applyCheck(res, text) {
  S.checksApplied++;
  S.checkedText = text;
  S.checkOk = !!res.ok;
  S.errors = res.errors || [];
  if (res.leaves && (res.leaves.length || !S.leaves.length)) {
    const changed = JSON.stringify(res.leaves) !== JSON.stringify(S.leaves);
    S.leaves = res.leaves;
    if (changed) paletteAndLists();
  }
  if (res.ok) {
    S.everOk = true;
    if (res.type && res.type !== S.type) { S.type = res.type; setupSchemas(); }
    const nodes = res.nodes || [];
    S.selOffset = S.selected >= 0 ? S.offsets[S.selected] : -1; // to keep the selection on a renamed node
    S.offsets = nodes.map(n => (n.file && n.file !== S.path ? -1 : Y.offsetOf(S.starts, S.text, n.line, n.column)));
    const key = structureKey(nodes);
    const old = S.nodes;
    S.nodes = nodes;
    if (key !== S.structureKey) rebuild(old);
    else updateLabels(old);
    S.history[S.hpos] = snapshot();
    if (S.pendingSelect) selectPending();
    status(savedNote() + (S.errors.length ? `loads, ${S.errors.length} warning(s)` : 'loads cleanly'), noteClass('good'));
  } else {
    const n = S.errors.filter(e => e.severity === 'error').length;
    if (!S.everOk) {
      // never loaded yet: the nodes as the YAML has them
      const fb = nodesFromYaml(S.doc, S.kinds, S.schemas, S.path);
      S.nodes = fb.nodes;
      S.offsets = fb.offsets;
      if (structureKey(S.nodes) !== S.structureKey) rebuild();
      S.history[S.hpos] = snapshot();
      status(savedNote() + `${n} error${n === 1 ? '' : 's'}: the file does not load yet (drawn from its YAML)`, 'bad');
    } else status(savedNote() + `${n} error${n === 1 ? '' : 's'}: the drawing shows the last good structure`, 'bad');
  }
  showErrors();
  refreshForm(true);
}
const structureKey = nodes => nodes.map(n => `${n.id}|${n.kind}|${n.parent}|${n.file}|${n.links.map(l => l.to + l.label).join(',')}`).join('\n');
function updateLabels(old) {
  S.nodes.forEach((n, i) => {
    const o = old[i];
    if (o && o.label === n.label && o.params === n.params) return;
    const el = S.view && S.view.els[i];
    if (!el) return;
    const box = el.firstElementChild;
    const rest = n.label.startsWith(n.kind) ? n.label.slice(n.kind.length).trim() : n.label;
    let lab = box.querySelector(':scope > .label');
    if (rest && !lab) { lab = document.createElement('span'); lab.className = 'label'; box.querySelector(':scope > .kind').after(lab); }
    if (lab) lab.textContent = rest;
    let par = box.querySelector(':scope > .params');
    if (n.params && !par) { par = document.createElement('span'); par.className = 'params'; box.querySelector(':scope > .bp').before(par); }
    if (par) par.textContent = n.params;
  });
}

// ---------- drawing ----------
// Whether two node lists are the same structure but for the ids (a node renamed).
const sameShape = (a, b) => a.length === b.length && a.every((n, k) => n.kind === b[k].kind && n.parent === b[k].parent);
// old: the node list drawn before (to keep the selection on a renamed node).
function rebuild(old = null) {
  const t0 = performance.now();
  S.structureKey = structureKey(S.nodes);
  const canvas = $('canvas');
  S.view = renderBrain(canvas, S.nodes, { collapsed: S.collapsed, editableFile: S.path, bps: S.bps });
  S.lastRenderMs = performance.now() - t0;
  // keep the selection on the same id
  if (S.selectedId) {
    let i = S.nodes.findIndex(n => n.id === S.selectedId);
    // Renamed (a name typed, emptied, undone): the same node of the same structure. Its id
    // changed; its offset may too (a `name:` line removed), and a subtree's root has the same
    // offset at every use (the second use's rename selected the first).
    if (i < 0 && old && S.selected >= 0 && old[S.selected] && old[S.selected].id === S.selectedId && sameShape(old, S.nodes)) i = S.selected;
    if (i < 0 && S.selOffset >= 0) i = S.offsets.indexOf(S.selOffset); // renamed: the same place
    if (i >= 0 && formFor === S.selected) formFor = i;
    S.selected = i;
    S.selectedId = i >= 0 ? S.nodes[i].id : null;
    if (i >= 0) S.view.els[i].classList.add('selected');
  }
  S.selOffset = -1;
  applyStatuses(true);
  if ($('search').value) runSearch(false);
  updateStateNames();
}
function updateStateNames() {
  const states = S.nodes.filter(n => n.kind === 'state').map(n => n.id);
  $('state-names').innerHTML = states.map(s => `<option value="${escapeHtml(s)}">`).join('');  // names are the file's text
}
function paletteAndLists() {
  $('leaf-names').innerHTML = S.leaves.map(l => `<option value="${escapeHtml(l.name)}">`).join('');
  if (S.schemas) buildPalette($('palette'), S.schemas, S.type, S.leaves);
}
let allSchemas = null;
function setupSchemas() {
  S.schemas = new Schemas(allSchemas, S.type || 'tree');
  S.kinds = new Set(S.schemas.nodeKinds());
  const decorators = S.schemas.nodeKinds().filter(k => S.schemas.shape(k) === 'decorator')
    .sort((a, b) => /^(bt|b3)_/.test(a) - /^(bt|b3)_/.test(b));
  $('wrap-kind').innerHTML = decorators.map(k => `<option${k === 'invert' ? ' selected' : ''}>${k}</option>`).join('');
  paletteAndLists();
}

// The first-render collapse: a big brain opens with its first two levels.
function initialCollapse() {
  if (S.nodes.length <= 300) return;
  const depth = [];
  S.nodes.forEach((n, i) => { depth[i] = n.parent >= 0 ? depth[n.parent] + 1 : 0; });
  const hasKids = new Set(S.nodes.map(n => n.parent));
  S.nodes.forEach((n, i) => { if (depth[i] >= 2 && hasKids.has(i)) S.collapsed.add(n.id); });
}

// ---------- entities (which YAML a node is) ----------
function entityOf(i) {
  const n = S.nodes[i];
  if (!n || S.offsets[i] < 0 || !S.ix) return null;
  try {
    return Y.resolve(S.ix, S.offsets[i], n.kind, n.parent < 0 && (n.kind === 'fsm' || n.kind === 'machine'), S.kinds);
  } catch (e) {
    console.warn('resolve', e);
    return null;
  }
}

// ---------- errors ----------
function showErrors() {
  for (const el of document.querySelectorAll('.node-error, .node-warning')) {
    el.classList.remove('node-error', 'node-warning');
    el.firstElementChild.querySelector(':scope > .err-text').textContent = '';
  }
  const list = $('errors');
  const items = [];
  const ranges = [];
  S.nodes.forEach((n, i) => {
    const e = entityOf(i);
    if (e) ranges.push([e.range[0], e.range[1], i]);
  });
  const base = S.path.split('/').pop();
  for (const err of S.errors) {
    let at = -1;
    const sameFile = err.file === S.path || (err.file && err.file.split('/').pop() === base && !err.file.endsWith('.lua'));
    if (sameFile && err.line > 0) {
      const off = Y.offsetOf(S.starts, S.text, err.line, err.column);
      let best = null;
      for (const r of ranges) if (r[0] <= off && off <= r[1] && (!best || r[1] - r[0] < best[1] - best[0])) best = r;
      if (best) at = best[2];
      // A node the edit gave an unknown kind (monitr) no longer resolves as its kind, so the
      // range around it won (the parent, or none for the root): an error at the key whose value
      // is a node (the node starts right after `monitr:`) is that node's.
      let next = -1;
      S.offsets.forEach((o, i) => { if (o > off && (next < 0 || o < S.offsets[next])) next = i; });
      if (next >= 0 && /^[\w-]+:\s*[{[]?\s*$/.test(S.text.slice(off, S.offsets[next]))) at = next;
    }
    if (at >= 0 && S.view && S.view.els[at]) {
      const el = S.view.els[at];
      el.classList.add(err.severity === 'error' ? 'node-error' : 'node-warning');
      const t = el.firstElementChild.querySelector(':scope > .err-text');
      t.textContent = (t.textContent ? t.textContent + '\n' : '') + err.text;
    }
    items.push(`<li class="${err.severity}" data-at="${at}">${escapeHtml(err.text)}${at >= 0 ? '' : ''}</li>`);
  }
  if (!items.length) items.push(`<li class="ok">${S.checkOk ? 'no problems: the brain loads' : ''}</li>`);
  list.innerHTML = items.join('');
  $('error-count').textContent = S.errors.length ? `(${S.errors.length})` : '';
}
const escapeHtml = s => String(s).replace(/[&<>"]/g, c => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);

// ---------- selection and the form ----------
function select(i, scroll = false) {
  if (S.view) for (const el of document.querySelectorAll('.node.selected')) el.classList.remove('selected');
  S.selected = i;
  S.selectedId = i >= 0 && S.nodes[i] ? S.nodes[i].id : null;
  if (i >= 0 && S.view && S.view.els[i]) {
    S.view.els[i].classList.add('selected');
    if (scroll) {
      reveal(S.view, S.nodes, i, S.collapsed);
      S.view.els[i].firstElementChild.scrollIntoView({ block: 'center', inline: 'nearest' });
    }
  }
  refreshForm();
}

// The parameters of an entity as a plain object, and the target they are written to.
function valueJS(node) { return node && typeof node.toJSON === 'function' ? node.toJSON() : node && isScalar(node) ? node.value : node ?? null; }
function leafLike(e) {
  // {V, shape, base}: where a leaf-ish entity's parameters live
  if (e.type === 'node') {
    const shape = S.schemas.shape(e.kind);
    const base = e.kind === 'wait' ? 'seconds' : e.kind === 'subtree' ? 'tree' : shape === 'leaf' ? 'leaf' : null;
    return { V: e.value, shape, base, kind: e.kind };
  }
  if (e.type === 'part') {
    const guard = e.key === 'enter_if';
    return { V: e.pair.value, shape: 'leaf', base: guard ? 'check' : 'leaf', guard, kind: guard ? null : e.key === 'condition' || e.key === 'check' ? 'condition' : 'action' };
  }
  if (e.type === 'behavior') {
    const run = e.map.items.find(p => Y.keyName(p) === 'run');
    return run ? { V: run.value, shape: 'leaf', base: 'leaf', kind: 'action' } : null;
  }
  return null;
}
function isParamForm(t) {
  const V = t.V;
  if (!isMap(V)) return false;
  if (t.shape === 'decorator') return !(V.items.length === 1 && S.kinds.has(Y.keyName(V.items[0])));
  return true;
}
function paramsOf(t) {
  const js = valueJS(t.V);
  if (isParamForm(t)) return js || {};
  if (t.base && (typeof js !== 'object' || js === null)) return { [t.base]: js };
  return {};
}
function paramSchema(t, values) {
  if (t.guard) return { type: 'object', properties: { check: { type: 'string', description: 'A check expression over declared blackboard keys: the state may be entered only when it passes.' } } };
  if (t.kind && S.kinds.has(t.kind)) return S.schemas.paramVariant(t.kind, values);
  return t.base === 'check' ? S.schemas.def('check_condition') : S.schemas.def('leaf_call');
}

// A number scalar as its text says it, when its value prints otherwise (1.0, 1.50,
// 9007199254740993: shown so in the form, not 1, 1.5, 9007199254740992); else undefined.
function numberAsWritten(node) {
  if (!node || !isScalar(node) || typeof node.value !== 'number' || !node.range) return undefined;
  const src = S.text.slice(node.range[0], node.range[1]);
  return src !== String(node.value) && Y.NUMBER_TEXT.test(src) ? new Y.NumberText(src) : undefined;
}
// A form's values (a plain object of `map`'s pairs) with each number as the file writes it.
function valuesAsWritten(map, values) {
  if (!isMap(map) || !values || typeof values !== 'object') return values;
  const out = { ...values };
  for (const p of map.items) {
    const k = Y.keyName(p);
    const w = k in out ? numberAsWritten(p.value) : undefined;
    if (w) out[k] = w;
  }
  return out;
}
// The values of a leaf-like entity's form, numbers as written (`wait: 1.50` too).
function leafValuesAsWritten(t, values) {
  if (isParamForm(t)) return valuesAsWritten(t.V, values);
  const w = t.base ? numberAsWritten(t.V) : undefined;
  return w ? { ...values, [t.base]: w } : values;
}
// A leaf's args for the form: one row per pair of its `args:` mapping, in the file's order,
// with its place there (the row's edits go to that pair), a number as its text says it.
function argRows(t) {
  const node = t && isParamForm(t) ? t.V.get('args', true) : null;
  if (!isMap(node)) return [];
  return node.items.map((p, index) => {
    const v = p.value;
    const w = numberAsWritten(v);
    const js = valueJS(v);
    const text = w ? w.text : !v ? '' : typeof js === 'object' && js !== null ? JSON.stringify(js) : String(js);
    return { key: Y.keyName(p), text, index };
  });
}
// The `- subtree:` item that uses the tree whose root node i is (drawn at the use, written
// under `trees:`), as a node entity: its own `tree:` and `name:` are edited there. null: i is
// no such root, or its use is not found (not in a composite's list or a decorator's child).
function subtreeUseOf(i) {
  if (!definedElsewhere(i)) return null;
  const p = S.nodes[i].parent;
  const ep = entityOf(p);
  if (!ep || ep.type !== 'node') return null;
  let k = 0; // i's place among its parent's children (the nodes are in dump order: depth first)
  for (let j = 0; j < i; j++) if (S.nodes[j].parent === p) k++;
  const list = childListOf(ep);
  let item = null;
  if (list) item = list.items[k];
  else if (S.schemas.shape(ep.kind) === 'decorator' && isMap(ep.value)) item = ep.value.has('child') ? ep.value.get('child', true) : ep.value;
  const pair = isMap(item) && item.items.length === 1 ? item.items[0] : null;
  if (!pair || Y.keyName(pair) !== 'subtree' || !pair.value || !pair.value.range) return null;
  const use = Y.resolve(S.ix, pair.value.range[0], 'subtree', false, S.kinds);
  return use && use.type === 'node' && use.map === item ? use : null;
}

function formSpec(i) {
  const n = S.nodes[i];
  const e = entityOf(i);
  const spec = { title: `${n.kind} ${n.id}`, subtitle: `${n.label}${n.params ? ' · ' + n.params : ''}`, fields: [] };
  if (n.file && n.file !== S.path) { spec.readonly = `from ${n.file}: open that file to edit it`; return { spec, e: null }; }
  // (With the last check good, nothing is waiting: a node the text writes through a YAML anchor
  // or alias is drawn but has no place of its own to edit; it said "waiting for a good check".)
  if (!e) {
    spec.readonly = S.checkOk && S.checkedText === S.text
      ? 'written through a YAML anchor or alias (&name / *name), which the page does not edit: change it in the YAML panel'
      : 'not found in the current text (waiting for a good check)';
    return { spec, e };
  }
  const t = leafLike(e);
  if (t) {
    const values = paramsOf(t);
    const ps = paramSchema(t, values);
    spec.fields = fieldsOf(S.schemas, ps, leafValuesAsWritten(t, values)).filter(f => !(e.type === 'behavior' && f.key === 'name'));
    if (e.type === 'behavior') spec.fields.unshift({ key: 'name', schema: { type: 'string', description: 'The behavior\'s name.' }, value: valueJS(e.map.get('name', true)), bmap: true });
    if (ps && ps.properties && ps.properties.args) { spec.argsAllowed = true; spec.args = argRows(t); }
  } else if (e.type === 'state') {
    const v = valueJS(e.pair.value) || {};
    spec.fields = fieldsOf(S.schemas, S.schemas.def('state'), valuesAsWritten(e.pair.value, v)).filter(f => f.key !== 'transitions');
    spec.transitions = v.transitions || {};
  } else if (e.type === 'when') {
    spec.fields = fieldsOf(S.schemas, S.schemas.def('when_entry'), valuesAsWritten(e.map, valueJS(e.map)));
  } else if (e.type === 'root') {
    const rs = S.schemas.root;
    const v = valuesAsWritten(e.map, valueJS(e.map) || {});
    spec.fields = fieldsOf(S.schemas, rs, v).filter(f => !['trees', 'machines'].includes(f.key));
    spec.fields = spec.fields.filter(f => ['tree', 'fsm', 'machine', 'tick_every', 'check_every', 'initial'].includes(f.key) && (f.key === S.type || !['tree', 'fsm', 'machine'].includes(f.key)));
    if (S.type === 'tree') spec.fields.unshift({ key: 'tree', schema: { type: 'string', description: 'The brain\'s name.' }, value: v.tree });
  } else if (e.type === 'node') {
    // composites and decorators
    const t2 = { V: e.value, shape: S.schemas.shape(e.kind) };
    const values = paramsOf(t2);
    spec.fields = fieldsOf(S.schemas, S.schemas.paramVariant(e.kind, values), isParamForm(t2) ? valuesAsWritten(e.value, values) : values);
  }
  if (definedElsewhere(i)) {
    // A subtree's root, drawn at its use: its name is the use's (`- subtree: {tree: roam,
    // name: roam1}`), not the root's under `trees:` (which every use shares; the field showed
    // that one, empty, and edited it). The use's fields come first, marked to go there.
    const use = subtreeUseOf(i);
    const own = spec.fields.filter(f => f.key !== 'name' && f.key !== 'tree');
    if (use) {
      const ut = leafLike(use);
      const uv = paramsOf(ut);
      const useFields = fieldsOf(S.schemas, S.schemas.paramVariant('subtree', uv), uv, ['tree']).map(f => ({ ...f, target: 'use' }));
      spec.fields = [...useFields, ...own];
      spec.note = `tree and name: this use's own (its '- subtree:' item); ${own.length || spec.argsAllowed ? 'the rest: ' : 'the nodes: '}` +
        `the tree '${uv.tree}' under 'trees:', shared by every use of it`;
    } else {
      spec.fields = own;
      spec.note = 'a subtree\'s root, written under \'trees:\' and shared by every use: its name is given where it is used (the YAML panel)';
    }
  }
  return { spec, e };
}

let formFor = null; // the node index the form shows
function refreshForm(fromCheck = false) {
  const i = S.selected;
  const form = $('form');
  updateActionButtons();
  if (i < 0 || !S.nodes[i]) { form.innerHTML = '<div class="muted">Select a node.</div>'; formFor = null; return; }
  // while the user types in this form, keep it (a rebuild would lose the caret)
  if (fromCheck && formFor === i && form.contains(document.activeElement)) return;
  const { spec } = formSpec(i);
  buildForm(form, spec, S.schemas, S.leaves);
  S.formGen++; // the undo steps of this form's fields (a rename changes the node's id meanwhile)
  formFor = i;
}
function updateActionButtons() {
  const i = S.selected;
  const e = i >= 0 ? entityOf(i) : null;
  const ro = !e || (S.nodes[i] && S.nodes[i].file && S.nodes[i].file !== S.path);
  const movable = !ro && (e.seq || e.type === 'state');
  $('move-up').disabled = !movable;
  $('move-down').disabled = !movable;
  // A subtree's root drawn at its use: Delete and Wrap would change the tree under `trees:`
  // (every use of it), so they are off, and their title says why.
  const elsewhere = !ro && definedElsewhere(i);
  $('delete').disabled = ro || elsewhere || e.type === 'root' || S.nodes[i].parent < 0 || (e.type === 'node' && !e.seq && !e.slot);
  $('wrap').disabled = ro || elsewhere || e.type !== 'node';
  $('delete').title = elsewhere ? elsewhereMessage(i) : 'Delete the node (Del)';
  $('wrap').title = elsewhere ? elsewhereMessage(i) : 'Wrap the node in the decorator';
  $('bp-toggle').hidden = !S.attach;
  $('bp-toggle').disabled = i < 0;
  $('bp-toggle').textContent = i >= 0 && S.nodes[i] && S.bps.has(S.nodes[i].id) ? 'Remove breakpoint' : 'Breakpoint';
}

// ---------- edits from the form ----------
function setParam(e, key, value, coalesce) {
  const text = S.text;
  if (e.type === 'state') {
    const V = e.pair.value;
    if (isMap(V)) return commit(value === undefined ? Y.deleteKey(text, V, key) : Y.setKey(text, V, key, value), coalesce);
    if (value === undefined) return false;
    if (V && V.range) return commit(Y.replaceValue(text, V, { [key]: value }), coalesce);
    const colon = text.indexOf(':', e.pair.key.range[1]);
    return commit([{ start: colon + 1, end: colon + 1, insert: ' ' + Y.flowText({ [key]: value }) }], coalesce);
  }
  if (e.type === 'when' || e.type === 'root') {
    return commit(value === undefined ? Y.deleteKey(text, e.map, key) : Y.setKey(text, e.map, key, value), coalesce);
  }
  if (e.type === 'behavior' && key === 'name') return commit(Y.setKey(text, e.map, key, value ?? ''), coalesce);
  const t = e.type === 'node' && !leafLike(e).base && S.schemas.shape(e.kind) !== 'leaf' ? { V: e.value, shape: S.schemas.shape(e.kind) } : leafLike(e);
  const V = t.V;
  if (isParamForm(t)) return commit(value === undefined ? Y.deleteKey(text, V, key) : Y.setKey(text, V, key, value), coalesce);
  if (value === undefined) return false;
  if (t.base && (isScalar(V) || !V)) {
    if (key === t.base) return commit(Y.setScalar(text, V, value), coalesce);
    if (key === 'check' && t.base === 'leaf') return commit(Y.replaceValue(text, V, { check: value }), coalesce);
    return commit(Y.replaceValue(text, V, { [t.base]: numberAsWritten(V) ?? V.value, [key]: value }), coalesce);
  }
  if (t.shape === 'composite' && isSeq(V)) {
    if (Y.flowOf(text, V)) return commit([{ start: V.range[0], end: V.range[0], insert: `{${key}: ${Y.flowText(value)}, children: ` }, { start: V.range[1], end: V.range[1], insert: '}' }], coalesce);
    // spliced at the list's own start, so the node keeps its place (and its selection)
    const dash = V.range[0] - Y.lineStart(text, V.range[0]);
    const kindKey = e.map && e.map.items.length ? e.map.items[0].key : null;
    const keyCol = kindKey && kindKey.range ? kindKey.range[0] - Y.lineStart(text, kindKey.range[0]) : -1;
    if (dash <= keyCol) {
      // A list written at its key's column (`sequence:` and `- ...` below it, as formatters
      // write): `name:` and `children:` there would be keys beside `sequence:`. They go two
      // columns in, and the list with them.
      const at = Y.lineStart(text, V.range[0]);
      const end = text[V.range[1] - 1] === '\n' ? V.range[1] : Math.min(Y.lineEnd(text, V.range[1]) + 1, text.length);
      const inner = ' '.repeat(keyCol + 2);
      return commit([{ start: at, end, insert: `${inner}${key}: ${Y.flowText(value)}\n${inner}children:\n` +
        Y.reindent(text.slice(at, end), keyCol + 2 - dash) }], coalesce);
    }
    const pad = ' '.repeat(dash);
    return commit([{ start: V.range[0], end: V.range[0], insert: `${key}: ${Y.flowText(value)}\n${pad}children:\n${pad}` }], coalesce);
  }
  if (t.shape === 'decorator' && isMap(V)) {
    if (Y.flowOf(text, V)) return commit([{ start: V.range[0], end: V.range[0], insert: `{${key}: ${Y.flowText(value)}, child: ` }, { start: V.range[1], end: V.range[1], insert: '}' }], coalesce);
    const pad = ' '.repeat(V.range[0] - Y.lineStart(text, V.range[0]));
    let end = V.range[1];
    if (text[end - 1] !== '\n') end = Y.lineEnd(text, end) + 1;
    const chunk = text.slice(V.range[0], end);
    const nl = chunk.indexOf('\n');
    const rest = nl < 0 ? '' : Y.reindent(chunk.slice(nl + 1), 2);
    const first = nl < 0 ? chunk : chunk.slice(0, nl + 1);
    return commit([{ start: V.range[0], end, insert: `${key}: ${Y.flowText(value)}\n${pad}child:\n${pad}  ${first}${rest}` }], coalesce);
  }
  status(`cannot set ${key} here`, 'bad');
  return false;
}
function argsMapOf(e) {
  const t = leafLike(e);
  if (!t || !isParamForm(t)) return { t, map: null };
  const a = t.V.get('args', true);
  return { t, map: isMap(a) ? a : null };
}
function setArg(e, key, value, coalesce) {
  const { map } = argsMapOf(e);
  if (map) return commit(Y.setKey(S.text, map, key, value), coalesce);
  return setParam(e, 'args', { [key]: value }, coalesce);
}
// The args are edited by their place in the `args:` mapping (the form's row's data-index), not
// by key: a key being typed may pass through another arg's name.
function argPairAt(e, index) {
  const { map } = argsMapOf(e);
  return map && map.items[index] ? { map, pair: map.items[index] } : null;
}
function setArgAt(e, index, value, coalesce) {
  const a = argPairAt(e, index);
  return a ? commit(Y.setPairValue(S.text, a.pair, value), coalesce) : false;
}
function deleteArgAt(e, index) {
  const { t, map } = argsMapOf(e);
  if (!map || !map.items[index]) return false;
  if (map.items.length === 1) return commit(Y.deleteKey(S.text, t.V, 'args'));
  return commit(Y.deletePairAt(S.text, map, index));
}
// Renames the arg at `index` to `to`; '' when done (or nothing to do), else why the file keeps
// the old name: an empty name, or another arg's (a key twice in the file would make the two
// one: the loader takes one of them, and the next edit of either went to the first).
function renameArgAt(e, index, to, coalesce) {
  const a = argPairAt(e, index);
  if (!a) return 'this arg is not in the text';
  const from = Y.keyName(a.pair);
  if (to === '') return `an arg needs a name: the file keeps '${from}' until one is typed`;
  if (a.map.items.some((p, k) => k !== index && Y.keyName(p) === to))
    return `another arg is named '${to}': the file keeps '${from}' until this name differs`;
  if (to !== from) commit([{ start: a.pair.key.range[0], end: a.pair.key.range[1], insert: Y.scalarText(to) }], coalesce);
  return '';
}
function setTransition(e, event, target, coalesce) {
  const V = e.pair.value;
  const tr = isMap(V) ? V.get('transitions', true) : null;
  if (!isMap(tr)) return false;
  return commit(Y.setKey(S.text, tr, event, target), coalesce);
}

// A field's text that is not written (yet): said under the field (and in the status line);
// '' clears it. bad: an error (the field is marked), else a note.
function fieldMsg(el, msg, bad = true) {
  const row = el.closest('tr');
  const box = row && row.dataset.index !== undefined ? $('args-msg') : document.getElementById('msg-' + el.dataset.key);
  if (box && row) {
    if (!msg && box.dataset.row !== row.dataset.index) return; // another row's message stays
    box.dataset.row = row.dataset.index;
  }
  el.classList.toggle('invalid', !!msg && bad);
  if (msg && bad) el.setAttribute('aria-invalid', 'true'); else el.removeAttribute('aria-invalid');
  if (box) { box.textContent = msg; box.className = 'field-msg' + (bad ? '' : ' note'); }
  if (msg) status(msg, bad ? 'bad' : '');
}
// The entity a form field edits: the node's, or (data-target="use") its subtree use's.
const fieldEntity = (el, i) => (el.dataset.target === 'use' ? subtreeUseOf(i) : entityOf(i));
function onFormInput(ev) {
  const i = formFor;
  if (i === null || i < 0) return;
  const el = ev.target;
  const e = fieldEntity(el, i);
  if (!e) { status('this node is not in the current text', 'bad'); return; }
  // One undo step per field of this form while it is typed in (the node's id changes as its
  // name is typed: keyed by it, each key was a step of its own once a check landed between).
  const step = `form${S.formGen}`;
  if (el.dataset.key) {
    const key = el.dataset.key;
    const v = parseInput(el.dataset.type, el.value, el.checked);
    if (v instanceof Refused) return fieldMsg(el, v.why);
    // A text field emptied keeps its value in the file while it is empty, so that the key keeps
    // its place and the node its name (clearing a name to type another removed `name:`, and
    // the node, its id changed, fell out of the selection): what is typed next replaces it. An
    // optional field left empty (Enter, or leaving it) is removed then (the change event).
    if (v === undefined && el.type === 'text') {
      return el.dataset.required ? fieldMsg(el, `${key} is required: the file keeps it as it is until one is typed`)
        : fieldMsg(el, `empty: the file keeps ${key} as it is until you type one; leave the field empty (Enter, or Tab) to remove it`, false);
    }
    fieldMsg(el, '');
    setParam(e, key, v, `${step}:${key}`);
  } else if (el.classList.contains('arg-value')) {
    const row = el.closest('tr');
    setArgAt(e, +row.dataset.index, parseArg(el.value), `${step}:arg:${row.dataset.index}`);
  } else if (el.classList.contains('arg-key')) {
    const row = el.closest('tr');
    const why = renameArgAt(e, +row.dataset.index, el.value, `${step}:argkey:${row.dataset.index}`);
    fieldMsg(el, why);
    if (!why) row.dataset.arg = el.value;
  } else if (el.classList.contains('tr-target')) {
    setTransition(e, el.closest('tr').dataset.event, el.value, `${step}:tr:${el.closest('tr').dataset.event}`);
  }
}
// A text field left empty (Enter, Tab, a click elsewhere): an optional key is removed.
function onFormChange(ev) {
  const el = ev.target;
  if (!el.isConnected || !el.dataset.key || el.type !== 'text' || el.value !== '' || el.dataset.required) return;
  const i = formFor;
  if (i === null || i < 0) return;
  const e = fieldEntity(el, i);
  if (!e) return;
  fieldMsg(el, '');
  setParam(e, el.dataset.key, undefined, null);
}

// ---------- structural edits ----------
function moveBy(d) {
  const i = S.selected;
  const e = entityOf(i);
  if (!e) return;
  const text = S.text;
  let spans, splices;
  if (e.seq) {
    const k = d < 0 ? e.index - 1 : e.index;
    if (k < 0 || k + 1 >= e.seq.items.length) return status('already at the end of its list');
    spans = [Y.itemSpan(text, e.seq, k), Y.itemSpan(text, e.seq, k + 1)];
    if (Y.flowOf(text, e.seq)) spans = [e.seq.items[k].range, e.seq.items[k + 1].range];
    splices = Y.swapItems(text, e.seq, k);
  } else if (e.type === 'state') {
    const idx = e.map.items.indexOf(e.pair);
    const k = d < 0 ? idx - 1 : idx;
    if (k < 0 || k + 1 >= e.map.items.length) return status('already at the end of its list');
    splices = Y.swapPairs(text, e.map, k);
    spans = null;
  } else return;
  if (spans) {
    const [[a0, a1], [b0, b1]] = spans;
    const lenA = a1 - a0, lenB = b1 - b0;
    // the moved one: the lower item going up (d < 0), or the upper one going down
    S.pendingSelect = d < 0 ? { from: a0, to: a0 + lenB } : { from: b1 - lenA, to: b1 };
  } else {
    S.pendingSelect = null;
  }
  commit(splices);
  afterStructural();
}
// A file whose lines end in CRLF keeps them: what an edit inserts (written with \n, or a
// textarea's text, which browsers hold with \n) gets the file's line ends. In place, and
// idempotent (commitSelecting measures the inserts before commit sees them).
// A file of mixed line ends gets those of most of its lines.
function crlf(splices) {
  if (!splices.some(sp => sp.insert.includes('\n'))) return splices;  // a key typed: no line end to write
  const crlfs = (S.text.match(/\r\n/g) || []).length;
  const lfs = (S.text.match(/\n/g) || []).length;
  if (!crlfs || crlfs < lfs - crlfs) return splices;
  for (const sp of splices) sp.insert = sp.insert.replace(/\r?\n/g, '\r\n');
  return splices;
}
// The edit that the YAML panel's text `t` (a textarea's: line ends as \n) makes to the file's
// text (which may hold \r\n): found on the file's text with \r\n read as \n, then placed at the
// file's own offsets, so lines the edit does not touch keep their line ends (diffing the two
// texts as they are dropped a \r at the edit's ends). null: no change.
function textareaSplice(text, t) {
  if (text.indexOf('\r\n') < 0) return text === t ? null : minimalSplice(text, t);
  const norm = text.replace(/\r\n/g, '\n');
  if (norm === t) return null;
  const sp = minimalSplice(norm, t);
  const at = new Array(norm.length + 1);  // offset in `text` of each offset in `norm`
  let j = 0;
  for (let k = 0; k < norm.length; k++) {
    at[k] = j;
    j += text[j] === '\r' && text[j + 1] === '\n' ? 2 : 1;
  }
  at[norm.length] = text.length;
  return { start: at[sp.start], end: at[sp.end], insert: sp.insert };
}
// The new-text region of a splice's inserted text (other splices before it shift it).
function regionOf(splices, target, skip = 0) {
  let delta = 0;
  for (const sp of splices) if (sp !== target && sp.end <= target.start) delta += sp.insert.length - (sp.end - sp.start);
  return { from: target.start + delta + skip, to: target.start + delta + target.insert.length };
}
// Commits splices and selects, after the check, the node whose YAML starts first inside the
// inserted text of `target` (the added, moved or wrapped node).
function commitSelecting(splices, target = splices[0]) {
  crlf(splices);
  S.pendingSelect = target ? regionOf(splices, target) : null;
  const ok = commit(splices);
  if (!ok) S.pendingSelect = null;
  return ok;
}
function selectPending() {
  const r = S.pendingSelect;
  S.pendingSelect = null;
  if (!r) return;
  let best = -1, bestStart = Infinity;
  S.nodes.forEach((n, i) => {
    const e = entityOf(i);
    if (e && e.range[0] >= r.from && e.range[0] < r.to && e.range[0] < bestStart) { best = i; bestStart = e.range[0]; }
  });
  if (best >= 0) select(best, true);
}
// Whether node i is written outside its parent: the root of a subtree of this file, drawn at
// its use (`- subtree: NAME`) but written under `trees:`. Delete and Wrap would change the
// definition (every use of it), not this use.
function definedElsewhere(i) {
  const p = S.nodes[i] ? S.nodes[i].parent : -1;
  const e = entityOf(i), ep = p >= 0 ? entityOf(p) : null;
  return !!(e && ep && (e.range[0] < ep.range[0] || e.range[0] >= ep.range[1]));
}
const elsewhereMessage = i => `'${S.nodes[i].id}' is a subtree's root, written under 'trees:' and used here: deleting or wrapping it ` +
  `would change every use of that tree; change this use (its '- subtree:' item) in the YAML panel`;
function deleteSelected() {
  const i = S.selected;
  const e = entityOf(i);
  if (!e || e.type === 'root' || S.nodes[i].parent < 0) return;
  if (definedElsewhere(i)) return status(elsewhereMessage(i), 'bad');
  let sp = null;
  const list = e.seq ? S.ix.parent.get(e.seq) : null;
  const parentName = () => { const p = S.nodes[S.nodes[i].parent]; return p ? `'${p.id}'` : 'its parent'; };
  if (e.seq && e.seq.items.length === 1 && list && list.pair && Y.keyName(list.pair) === 'when') {
    sp = Y.deletePairAt(S.text, list.coll, list.coll.items.indexOf(list.pair)); // the last entry: no `when:` left
  } else if (e.seq && e.seq.items.length === 1) {
    // The last child: the list would be left empty (`children:` with nothing), a brain that does
    // not load, and one the palette could not add into.
    return status(`the only child of ${parentName()}: a composite needs one; add another first, or delete ${parentName()}`, 'bad');
  } else if (e.type === 'node' && S.nodes[i].parent >= 0 && S.schemas.shape(S.nodes[S.nodes[i].parent].kind) === 'decorator') {
    // A decorator's child, the only one it has: deleting it left the decorator without one
    // (`child:` gone), or removed the decorator's whole item (short form).
    return status(`the only child of ${parentName()}: a decorator needs one; delete ${parentName()} with it, or wrap another node`, 'bad');
  } else if ((e.type === 'state') && e.map && e.map.items.length === 1) {
    return status(`the only state ${S.nodes[i].parent >= 0 && S.nodes[S.nodes[i].parent].kind === 'state' ? 'of ' + parentName() : 'of the brain'}: add another first`, 'bad');
  } else if (e.seq) sp = Y.deleteItem(S.text, e.seq, e.index);
  else if (e.type === 'state' || e.type === 'part') sp = Y.deletePairAt(S.text, e.map, e.map.items.indexOf(e.pair));
  else if (e.slot) sp = Y.deletePairAt(S.text, e.slotMap, e.slotMap.items.indexOf(e.slot));
  if (sp && commit(sp)) {
    const p = S.nodes[i].parent;
    select(p >= 0 ? p : -1);
  }
  afterStructural();
}
function wrapSelected() {
  const e = entityOf(S.selected);
  if (!e || e.type !== 'node') return;
  if (definedElsewhere(S.selected)) return status(elsewhereMessage(S.selected), 'bad');
  const kind = $('wrap-kind').value;
  // required parameters (timeout's seconds, ...) get their defaults, as the palette gives them
  const d = defaultNode(S.schemas, kind, 'X')[kind];
  const params = d && typeof d === 'object' && !Array.isArray(d) && 'child' in d ? Object.fromEntries(Object.entries(d).filter(([k]) => k !== 'child')) : null;
  commitSelecting(Y.wrapNode(S.text, e.map, kind, params));
  afterStructural();
}
function afterStructural() { scheduleCheck(0); }

// Where a new node goes: into the selected composite (last), else after the selected node.
function childListOf(e) {
  if (!e || e.type !== 'node') return null;
  const V = e.value;
  if (isSeq(V)) return V;
  if (isMap(V)) {
    for (const k of ['children', 'do']) { const c = V.get(k, true); if (isSeq(c)) return c; }
  }
  return null;
}
function addFromPalette(btn) {
  const first = S.leaves[0] ? S.leaves[0].name : 'Leaf';
  const trees = S.doc && isMap(S.doc.contents) && isMap(S.doc.contents.get('trees', true)) ? S.doc.contents.get('trees', true).items.map(Y.keyName) : [];
  let obj = null;
  if (btn.dataset.leaf) obj = { [btn.dataset.as]: btn.dataset.leaf };
  else if (btn.dataset.kind) obj = defaultNode(S.schemas, btn.dataset.kind, first, trees);
  const sel = S.selected;
  const e = sel >= 0 ? entityOf(sel) : null;
  const root = S.doc.contents;
  if (btn.dataset.special === 'state') {
    const host = e && e.type === 'state' ? e.map : isMap(root) ? root.get('states', true) : null;
    if (!isMap(host)) return status('no states: mapping to add to', 'bad');
    const names = new Set(S.nodes.filter(n => n.kind === 'state').map(n => n.id));
    let k = 1;
    while (names.has(`state_${k}`)) k++;
    return commitSelecting(Y.addPair(S.text, host, `state_${k}`, { act: first })) && afterStructural();
  }
  if (btn.dataset.special === 'when') {
    if (!e || e.type !== 'state') return status('select a state to add a when entry to', 'bad');
    const V = e.pair.value;
    const w = isMap(V) ? V.get('when', true) : null;
    const target = e.name;
    if (isSeq(w)) return commitSelecting(Y.insertItem(S.text, w, w.items.length, { after: 1.0, go: target })) && afterStructural();
    return setParam(e, 'when', [{ after: 1.0, go: target }]) && afterStructural();
  }
  if (btn.dataset.special === 'behavior') {
    const list = isMap(root) ? root.get('behaviors', true) : null;
    if (!isSeq(list)) return status('no behaviors: list to add to', 'bad');
    const at = e && e.type === 'behavior' ? e.index + 1 : list.items.length;
    return commitSelecting(Y.insertItem(S.text, list, at, { name: `behavior_${list.items.length + 1}`, check: first, run: first })) && afterStructural();
  }
  if (!obj) return;
  const list = childListOf(e);
  if (list) return commitSelecting(Y.insertItem(S.text, list, list.items.length, obj)) && afterStructural();
  if (e && e.seq && e.type === 'node') return commitSelecting(Y.insertItem(S.text, e.seq, e.index + 1, obj)) && afterStructural();
  if (e && e.type === 'state') {
    const V = e.pair.value;
    const has = isMap(V) && ['act', 'tree', 'machine'].some(k => V.has(k));
    if (has) return status('this state already has an act, tree or machine', 'bad');
    if (btn.dataset.leaf) return setParam(e, 'act', btn.dataset.leaf) && afterStructural();
    return setParam(e, 'tree', obj) && afterStructural();
  }
  if (!e && S.type === 'tree' && S.nodes.length) {
    // nothing selected: into the root composite
    const r = entityOf(0);
    const l = childListOf(r);
    if (l) return commitSelecting(Y.insertItem(S.text, l, l.items.length, obj)) && afterStructural();
  }
  status('select a composite to add into, or a node to add after', 'bad');
}

// Drag and drop: onto the upper half of a node = before it among its siblings; onto the
// lower half of a composite = into it (last).
function moveNode(from, to, into) {
  const a = entityOf(from), b = entityOf(to);
  if (!a || !b || !a.seq || from === to) return false;
  for (let p = to; p >= 0; p = S.nodes[p].parent) if (p === from) return status('cannot move a node into itself', 'bad'), false;
  const text = S.text;
  let seq, index;
  if (into) { seq = childListOf(b); index = seq ? seq.items.length : 0; } else if (b.seq) { seq = b.seq; index = b.index; }
  if (!seq) return status('drop onto a node in a list, or onto a composite', 'bad'), false;
  if (seq === a.seq && (index === a.index || index === a.index + 1)) return false;
  const flowTarget = Y.flowOf(text, seq);
  const col = flowTarget ? 0 : (seq.items.length ? Y.dashColumn(text, seq) : 0);
  const chunk = Y.itemTextFor(text, a.seq, a.index, flowTarget, col);
  if (chunk === null) return status('its comments would be lost in a list written inline ([...]): write that list as block lines first, or move the comments', 'bad'), false;
  const del = Y.deleteItem(text, a.seq, a.index);
  let ins;
  if (flowTarget) {
    ins = Y.insertItem(text, seq, index, null).map(s => ({ ...s, insert: s.insert.replace('null', chunk) }));
  } else {
    const n = seq.items.length;
    let at;
    if (index < n) at = Y.withCommentsAbove(text, Y.itemSpan(text, seq, index)[0]);  // above the comments of the item it goes before
    else { at = Y.itemSpan(text, seq, n - 1)[1]; }
    // after a last line with no newline (the file's end): the chunk starts a line of its own
    const nl = index >= n && at > 0 && text[at - 1] !== '\n' ? '\n' : '';
    ins = [{ start: at, end: at, insert: nl + chunk }];
  }
  // the deleted span and the insertion point never overlap (no move into itself)
  return commitSelecting([...del, ...ins], ins[0]);
}
function findSeqAt(doc, start) {
  let found = null;
  const walk = n => {
    if (!n || found) return;
    if (isSeq(n) && n.range && n.range[0] === start) { found = n; return; }
    if (isMap(n)) for (const p of n.items) walk(p.value);
    else if (isSeq(n)) for (const it of n.items) walk(it);
  };
  walk(doc.contents);
  return found;
}
// One splice that turns a into b (common prefix and suffix kept).
function minimalSplice(a, b) {
  let s = 0;
  while (s < a.length && s < b.length && a[s] === b[s]) s++;
  let e = 0;
  while (e < a.length - s && e < b.length - s && a[a.length - 1 - e] === b[b.length - 1 - e]) e++;
  return { start: s, end: a.length - e, insert: b.slice(s, b.length - e) };
}

// ---------- save, conflicts, the file on disk ----------
// Saves one at a time: a second click (a double-click, Ctrl+S pressed twice) waits for the first
// to answer, and sends nothing when the first wrote its text. Sent at once, it carried the old
// disk stamp and met the first one's write as a conflict.
async function save(force = false) {
  const before = S.saveChain || Promise.resolve();
  let finished;
  S.saveChain = new Promise(resolve => { finished = resolve; });
  const queued = !!S.saving;
  S.saving = (S.saving || 0) + 1;
  try {
    await before;
    if (queued && !force && S.text === S.lastSaved) { status('saved', 'good'); return true; }
    return await saveNow(force);
  } finally {
    S.saving--;
    finished();
  }
}
async function saveNow(force) {
  const text = S.text;
  status('saving…');
  let r;
  try {
    r = await api('/api/save', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ text, base_mtime: S.mtime, force }) });
  } catch (e) {
    r = { status: 0, ok: false, body: { error: 'cannot reach thicket edit: ' + e.message } };
  }
  if (r.status === 409 || (r.body && r.body.conflict)) {
    $('conflict-banner').hidden = false;
    S.saveRefused = { text, why: 'not saved: the file changed on disk' };
    status(S.saveRefused.why, 'bad');
    return false;
  }
  if (!r.ok || !r.body || !r.body.ok) {
    const why = (r.body && r.body.error) || `HTTP ${r.status}`;
    S.saveRefused = { text, why: why.startsWith('not saved: ') ? why : 'not saved: ' + why };
    status(S.saveRefused.why, 'bad');
    return false;
  }
  S.saveRefused = null;
  S.mtime = r.body.mtime;
  S.diskNotified = null;  // a later change on disk is offered again, even back to a text it had
  S.fileEpoch = (S.fileEpoch || 0) + 1;
  S.savedText = text;
  S.lastSaved = text;
  $('conflict-banner').hidden = true;
  $('disk-banner').hidden = true;
  setDoc(S.text);
  // A brain saved with errors says so (it said "saved" alone, as for a clean one).
  const bad = S.checkedText === text && !S.checkOk ? S.errors.filter(e => e.severity === 'error').length : 0;
  status(bad ? `saved; ${bad} error${bad === 1 ? '' : 's'}: the saved brain does not load` : 'saved', bad ? 'bad' : 'good');
  if (S.attach) hotReload();
  return true;
}
async function loadFile(keepHistory = false) {
  const r = await api('/api/file');
  // false: the reason stays in the status (a check run after it said "loads cleanly" over it)
  if (!r.ok) { status('cannot read the file: ' + ((r.body && r.body.error) || r.status), 'bad'); return false; }
  const f = r.body;
  S.path = f.path;
  S.absolute = f.absolute || null;
  S.mtime = f.mtime;
  S.diskNotified = null;
  S.fileEpoch = (S.fileEpoch || 0) + 1;
  S.attach = f.attach;
  S.savedText = f.text;
  $('file-name').textContent = f.path;
  $('file-name').title = f.path;
  if (keepHistory && S.history.length) commit([minimalSplice(S.text, f.text)], null, true, true);
  else resetHistory(f.text);
  $('disk-banner').hidden = true;
  $('conflict-banner').hidden = true;
  setDoc(S.text);
  return true;
}
async function pollDisk() {
  try {
    if (S.saving) return; // our own write is no change from elsewhere
    const epoch = S.fileEpoch;
    const r = await api('/api/disk');
    if (S.saving || epoch !== S.fileEpoch) return; // a save or reload came in between
    if (r.ok && r.body && r.body.mtime !== S.mtime && r.body.mtime !== S.diskNotified) {
      S.diskNotified = r.body.mtime;
      $('disk-banner').hidden = false;
    }
  } catch { /* the server is gone; the status says so on the next check */ }
}

// ---------- search, collapse, zoom ----------
let matches = [], matchAt = -1;
function runSearch(jump = true) {
  const q = $('search').value.trim().toLowerCase();
  for (const el of document.querySelectorAll('.node.match')) el.classList.remove('match');
  matches = [];
  matchAt = -1;
  if (q) {
    S.nodes.forEach((n, i) => {
      if (n.id.toLowerCase().includes(q) || n.label.toLowerCase().includes(q) || (n.params || '').toLowerCase().includes(q)) matches.push(i);
    });
    for (const i of matches) { reveal(S.view, S.nodes, i, S.collapsed); S.view.els[i].classList.add('match'); }
  }
  $('search-count').textContent = q ? `${matches.length} found` : '';
  if (jump && matches.length) nextMatch();
}
function nextMatch() {
  if (!matches.length) return;
  matchAt = (matchAt + 1) % matches.length;
  select(matches[matchAt], true);
}
function collapseAll() {
  S.collapsed.clear();
  const depth = [];
  S.nodes.forEach((n, i) => { depth[i] = n.parent >= 0 ? depth[n.parent] + 1 : 0; });
  S.nodes.forEach((n, i) => {
    const closed = depth[i] >= 2 && S.view.children[i].length > 0;
    if (closed) S.collapsed.add(n.id);
    setCollapsed(S.view.els[i], closed);
  });
}
function expandAll() {
  S.collapsed.clear();
  for (const el of document.querySelectorAll('.node.collapsed')) setCollapsed(el, false);
}
function setZoom(z) {
  S.zoom = Math.max(0.1, Math.min(2, z));
  $('canvas').style.zoom = String(S.zoom);
}
function zoomFit() {
  const wrap = $('canvas-wrap'), c = $('canvas');
  c.style.zoom = '1';
  const w = c.scrollWidth, h = c.scrollHeight;
  const z = Math.min(1.5, (wrap.clientWidth - 32) / Math.max(w, 1), (wrap.clientHeight - 52) / Math.max(h, 1));
  setZoom(z);
  wrap.scrollTo(0, 0);
}

// ---------- attached to a run ----------
let agentTimer = 0;
async function pollAgents() {
  // Asked for this file's agents by its whole path: the run lists those (a run of another
  // thicket, which does not know ?file=, all of them, filtered below by name).
  const r = await api('/attach/agents' + (S.absolute ? '?file=' + encodeURIComponent(S.absolute) : '')).catch(() => null);
  if (!r || !r.ok || !r.body) { runGone(); return; }
  S.runGone = false;
  const b = r.body;
  S.paused = !!b.paused;
  $('live-tick').textContent = `tick ${b.tick}${b.paused ? ' · paused' : ''}${b.done ? ' · done' : ''}`;
  // Only the agents of this file: another brain's statuses painted on these nodes would lie.
  // A path that ends the same may still be another file (stealth/guard.yaml in the run, this
  // editor's guard.yaml of another folder): the brain's name must be this file's too.
  const name = ourBrainName();
  const list = (b.agents || []).filter(a => (b.matched !== undefined || sameBrainFile(a.file)) && (name === null || a.brain === name));
  const picker = $('agent-picker');
  const others = b.matched !== undefined ? b.count - b.matched : (b.agents || []).length;
  const want = list.length ? list.map(a => `${a.id}`).join(',') : `none of ${others}`;
  if (picker.dataset.ids !== want) {
    const keep = picker.value;
    picker.innerHTML = list.length
      ? list.slice(0, 500).map(a => `<option value="${a.id}">${a.id} · ${escapeHtml(a.brain)}${a.status ? ' · ' + a.status : ''}</option>`).join('')
      : `<option value="" disabled selected>no agent of the run runs this file (it has ${others} of other brains)</option>`;
    picker.dataset.ids = want;
    if (keep && list.some(a => String(a.id) === keep)) picker.value = keep;
  }
  if (picker.value !== '') await pollAgent(picker.value);
  else if (!list.length) clearAgent('no agent of this file');
}
// No agent to show: no statuses on the nodes, an empty blackboard under `why`.
function clearAgent(why) {
  S.agent = null;
  S.statuses = '';
  applyStatuses();
  $('bb-agent').textContent = why;
  $('blackboard').tBodies[0].innerHTML = '';
  $('blackboard').tBodies[0].dataset.keys = '';
}
// The run stopped answering (it ended, or was killed): what the page showed of it is dropped,
// not left painted on the nodes as if it were live, and the polls slow down (each failed one
// is an error in the browser's console).
function runGone() {
  S.runGone = true;
  $('live-tick').textContent = 'run not reachable (it stopped, or does not answer)';
  const picker = $('agent-picker');
  if (picker.dataset.ids !== 'gone') {
    picker.innerHTML = '<option value="" disabled selected>no run to pick an agent from</option>';
    picker.dataset.ids = 'gone';
  }
  clearAgent('no run');
  $('paused-banner').hidden = true;
  $('bp-banner').hidden = true;
  for (const el of document.querySelectorAll('.paused-here')) el.classList.remove('paused-here');
}
// The run names brain files as it was given them: the same file as ours if the paths are
// equal, or else if they end the same (a relative path, another working directory).
// The name this file gives its brain (tree:, fsm: or machine:), or null when it gives none yet.
// Read from the document as last parsed: the polls must not parse the text at every poll while
// the user types in the YAML panel (setDoc).
function ourBrainName() {
  const doc = parsed.doc || S.doc;
  if (!doc || !isMap(doc.contents)) return null;
  const kind = ['tree', 'fsm', 'machine'].find(k => doc.contents.has(k));
  const value = kind ? doc.contents.get(kind) : null;
  return typeof value === 'string' ? value : null;
}
function sameBrainFile(file) {
  if (!file) return false;
  if (file === S.path) return true;
  const a = file.split('/').filter(x => x && x !== '.'), b = S.path.split('/').filter(x => x && x !== '.');
  let k = 0;
  while (k < a.length && k < b.length && a[a.length - 1 - k] === b[b.length - 1 - k]) k++;
  return k >= 1 && (k === a.length || k === b.length || k >= 2);
}
async function pollAgent(id) {
  const r = await api('/attach/agent?id=' + encodeURIComponent(id)).catch(() => null);
  if (r && r.status === 404) {
    // the agent is gone (despawned): the next poll picks another
    const picker = $('agent-picker');
    const gone = [...picker.options].find(o => o.value === String(id));
    if (gone) gone.remove();
    picker.dataset.ids = '';
    $('bb-agent').textContent = `agent ${id} is gone`;
    return;
  }
  if (!r || !r.ok || !r.body) return;
  S.agent = r.body;
  S.statuses = r.body.statuses || '';
  applyStatuses();
  showBlackboard(r.body);
}
let shownStatuses = '';
function applyStatuses(force = false) {
  if (!S.view) return;
  const st = S.attach ? S.statuses : '';
  if (!force && st === shownStatuses) return;
  for (let i = 0; i < S.view.els.length; i++) {
    const c = st[i] || '.';
    if (!force && (shownStatuses[i] || '.') === c) continue;
    const el = S.view.els[i];
    if (!el) continue;
    el.classList.remove('status-R', 'status-S', 'status-F', 'status-A');
    if (c !== '.') el.classList.add('status-' + c);
  }
  shownStatuses = st;
}
function showBlackboard(a) {
  $('live').hidden = false;
  $('bb-agent').textContent = `agent ${a.id}`;
  const tb = $('blackboard').tBodies[0];
  const keys = Object.keys(a.blackboard || {});
  const active = document.activeElement;
  if (tb.dataset.keys !== keys.join(',') || tb.dataset.agent !== String(a.id)) {
    tb.innerHTML = keys.map(k => `<tr data-key="${escapeHtml(k)}"><td>${escapeHtml(k)}</td><td><input aria-label="${escapeHtml(k)}" spellcheck="false"></td></tr>`).join('');
    if (tb.dataset.agent !== String(a.id)) $('bb-error').textContent = '';
    tb.dataset.keys = keys.join(',');
    tb.dataset.agent = String(a.id);
  }
  for (const tr of tb.rows) {
    const inp = tr.querySelector('input');
    if (inp === active) continue;
    const v = a.blackboard[tr.dataset.key];
    inp.value = typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v);
  }
}
async function setBlackboard(key, raw) {
  const id = $('agent-picker').value;
  const r = await api('/attach/blackboard', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ id: Number(id), key, value: parseArg(raw) }) });
  $('bb-error').textContent = r.body && r.body.ok ? '' : ((r.body && r.body.error) || `HTTP ${r.status}`);
}
// A POST replaces the run's whole set: this page's breakpoints, and the other files' that the
// run listed (S.bpsForeign), so that they are not dropped.
async function sendBreakpoints() {
  const file = S.agent && S.agent.file ? S.agent.file : S.path;
  const breakpoints = [...S.bps].map(node => ({ file, node })).concat(S.bpsForeign);
  // A poll of the run's breakpoints that was under way meanwhile reads them as they were.
  S.bpEpoch++;
  S.bpPosting++;
  let r;
  try {
    r = await api('/attach/breakpoints', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ breakpoints }) });
  } finally {
    S.bpPosting--;
    S.bpEpoch++;
  }
  if (!r.ok) status('breakpoints not set: ' + ((r.body && r.body.error) || r.status), 'bad');
  else S.bpsKnown = true;
  return r.ok;
}
function toggleBreakpoint(i) {
  const n = S.nodes[i];
  if (!n) return;
  if (S.bps.has(n.id)) S.bps.delete(n.id); else S.bps.add(n.id);
  S.view.els[i].classList.toggle('bp-on', S.bps.has(n.id));
  updateActionButtons();
  sendBreakpoints();
}
// The breakpoint markers and the button drawn from S.bps.
function markBreakpoints() {
  if (S.view) S.nodes.forEach((n, i) => { if (S.view.els[i]) S.view.els[i].classList.toggle('bp-on', S.bps.has(n.id)); });
  updateActionButtons();
}
// The run's breakpoints, as its /api/debug gives them. A page loaded (or reloaded) while the
// run holds breakpoints knew none of them: the run kept pausing at breakpoints drawn nowhere.
// With their list (`breakpoint_list`: [{file or brain, node}]), this file's are taken as the
// page's own (markers, "Remove breakpoint") and the others kept; those drawn nowhere here
// (another brain's, or a node this file does not have) are named in a banner that offers to
// clear them all. A run that gives only a count (`breakpoints`: an older thicket) has the
// ones the page did not set counted there. A poll that overlapped a POST of the page's is not
// read (it may predate it).
function syncBreakpoints(d, epoch) {
  if (S.bpPosting || epoch !== S.bpEpoch) return;
  let text = '';
  if (Array.isArray(d.breakpoint_list)) {
    const name = ourBrainName();
    const ours = b => b && typeof b.node === 'string' && (b.file ? sameBrainFile(b.file) : b.brain === name);
    const mine = new Set(d.breakpoint_list.filter(ours).map(b => b.node));
    S.bpsForeign = d.breakpoint_list.filter(b => b && typeof b.node === 'string' && !ours(b))
      .map(b => (b.file ? { file: b.file, node: b.node } : { brain: b.brain, node: b.node }));
    S.bpsKnown = true;
    if (mine.size !== S.bps.size || [...mine].some(id => !S.bps.has(id))) {
      S.bps = mine;
      markBreakpoints();
    }
    const ids = new Set(S.nodes.map(n => n.id));
    const elsewhere = [...S.bpsForeign.map(b => `${b.file || b.brain}: ${b.node}`),
      ...[...mine].filter(id => !ids.has(id)).map(id => `${name}: ${id} (no such node here)`)];
    if (elsewhere.length) {
      const shown = elsewhere.slice(0, 4).join(', ') + (elsewhere.length > 4 ? ', ...' : '');
      text = `The run also holds ${elsewhere.length} breakpoint${elsewhere.length === 1 ? '' : 's'} not drawn in this file ` +
        `(${shown}); the run pauses at ${elsewhere.length === 1 ? 'it' : 'them'} too.`;
    }
  } else if (typeof d.breakpoints === 'number') {
    const unknown = d.breakpoints - (S.bpsKnown ? S.bps.size + S.bpsForeign.length : 0);
    if (unknown > 0)
      text = `The run holds ${unknown} breakpoint${unknown === 1 ? '' : 's'} this page did not set ` +
        `(set before the page was loaded, or by another client); the run pauses at ${unknown === 1 ? 'it' : 'them'}, and its debug API ` +
        `tells only how many, not where. A breakpoint set here replaces ${unknown === 1 ? 'it' : 'them'}.`;
  }
  const banner = $('bp-banner');
  banner.hidden = !text;
  if (text) $('bp-banner-text').textContent = text;
}
async function clearAllBreakpoints() {
  S.bps.clear();
  S.bpsForeign = [];
  markBreakpoints();
  if (await sendBreakpoints()) $('bp-banner').hidden = true;
  refresh();
}
async function control(what) {
  const r = await api('/attach/' + what, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
  if (!r.ok) status(`${what}: ` + ((r.body && r.body.error) || r.status), 'bad');
  refresh();
}
async function pollDebug() {
  const epoch = S.bpEpoch;
  const r = await api('/attach/debug').catch(() => null);
  if (!r || !r.ok || !r.body) return;
  const d = r.body;
  syncBreakpoints(d, epoch);
  for (const el of document.querySelectorAll('.paused-here')) el.classList.remove('paused-here');
  const banner = $('paused-banner');
  if (d.paused && d.hit) {
    banner.hidden = false;
    banner.textContent = `paused at breakpoint: ${d.hit.node} (agent ${d.hit.agent}) · tick ${d.hit.tick}`;
    // A new hit opens its node and picks its agent, once: the polls after it leave the designer's
    // own choices alone (they set the picker back to the hit's agent, and reopened folded
    // branches, every 500 ms while paused).
    const key = `${d.hit.tick}:${d.hit.agent}:${d.hit.node}`;
    const fresh = key !== S.lastHit;
    S.lastHit = key;
    const i = S.nodes.findIndex(n => n.id === d.hit.node);
    if (i >= 0) {
      if (fresh) reveal(S.view, S.nodes, i, S.collapsed);
      if (S.view.els[i]) S.view.els[i].classList.add('paused-here');
    }
    const picker = $('agent-picker');
    if (fresh && String(d.hit.agent) !== picker.value && [...picker.options].some(o => o.value === String(d.hit.agent))) {
      picker.value = String(d.hit.agent);
      await pollAgent(picker.value);
    }
  } else if (d.paused) {
    banner.hidden = false;
    banner.textContent = `paused at tick ${d.tick}`;
  } else banner.hidden = true;
}
async function hotReload() {
  const r = await api('/attach/reload', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
  const el = $('reload-result');
  el.hidden = false;
  if (!r.ok || !r.body) { el.className = 'banner warn'; el.textContent = 'hot reload failed: ' + ((r.body && r.body.error) || `HTTP ${r.status}`); return; }
  const reports = r.body.reports || [];
  const bad = reports.filter(x => !x.ok);
  // A run reloads the files of its own that changed on disk: none, when it runs no file of
  // this name (the page said "hot-reloaded into the run" all the same).
  if (r.body.ok && !reports.length) {
    el.className = 'banner warn';
    el.textContent = 'the run reloaded nothing: no file it runs has changed on disk';
    return;
  }
  el.className = 'banner ' + (r.body.ok && !bad.length ? 'ok' : 'warn');
  // One line per file and per error: a run reports a brain once per group that runs it.
  const once = xs => [...new Set(xs)];
  el.textContent = r.body.ok && !bad.length ? 'hot-reloaded into the run: ' + once(reports.map(x => x.file.split('/').pop())).join(', ')
    : 'hot reload failed: ' + (bad.length ? once(bad.map(x => x.first_error || x.file)).join('; ') : (r.body.error || 'not ok'));
}
// One poll of the run at a time: the timer's, a button's (Step, Resume...) and a picked agent's
// ask while another is under way only for one more after it. Each started its own, and with a
// slow run (a loaded machine) they piled up past what `thicket edit` lets wait on the run at
// once (its answer: 503, "slow to answer").
let polling = false, pollAgain = false;
async function refresh() {
  if (polling) { pollAgain = true; return; }
  polling = true;
  try {
    do {
      pollAgain = false;
      await pollAgents().catch(() => {});
      if (!S.runGone) await pollDebug().catch(() => {});
    } while (pollAgain);
  } finally {
    polling = false;
  }
}
function startAttach() {
  document.body.classList.add('attached');
  $('attach-bar').hidden = false;
  $('bp-toggle').hidden = false;
  const tick = async () => {
    await refresh();
    agentTimer = setTimeout(tick, S.runGone ? 2000 : 250);
  };
  tick();
}

// ---------- wiring ----------
function nodeIndexOf(target) {
  const el = target.closest && target.closest('.node');
  return el ? +el.dataset.index : -1;
}
function wire() {
  const canvas = $('canvas');
  canvas.addEventListener('click', ev => {
    const i = nodeIndexOf(ev.target);
    if (i < 0) return;
    if (ev.target.classList.contains('twisty')) {
      const el = S.view.els[i];
      const closed = !el.classList.contains('collapsed');
      if (closed) S.collapsed.add(S.nodes[i].id); else S.collapsed.delete(S.nodes[i].id);
      setCollapsed(el, closed);
      return;
    }
    if (ev.target.classList.contains('bp')) { if (S.attach) toggleBreakpoint(i); return; }
    select(i);
  });
  let dragFrom = -1;
  canvas.addEventListener('dragstart', ev => {
    dragFrom = nodeIndexOf(ev.target);
    ev.dataTransfer.setData('text/plain', String(dragFrom));
    ev.dataTransfer.effectAllowed = 'move';
  });
  const dropMode = ev => {
    const i = nodeIndexOf(ev.target);
    if (i < 0) return null;
    const box = S.view.els[i].firstElementChild.getBoundingClientRect();
    const into = ev.clientY > box.top + box.height / 2 && S.view.children[i].length > 0;
    return { i, into };
  };
  canvas.addEventListener('dragover', ev => {
    const m = dropMode(ev);
    for (const el of document.querySelectorAll('.drop-before,.drop-into')) el.classList.remove('drop-before', 'drop-into');
    if (!m || dragFrom < 0) return;
    ev.preventDefault();
    S.view.els[m.i].classList.add(m.into ? 'drop-into' : 'drop-before');
  });
  canvas.addEventListener('drop', ev => {
    ev.preventDefault();
    for (const el of document.querySelectorAll('.drop-before,.drop-into')) el.classList.remove('drop-before', 'drop-into');
    const m = dropMode(ev);
    const from = dragFrom >= 0 ? dragFrom : +ev.dataTransfer.getData('text/plain');
    dragFrom = -1;
    if (m && from >= 0) { S.selectedId = S.nodes[from].id; if (moveNode(from, m.i, m.into)) afterStructural(); }
  });
  canvas.addEventListener('dragend', () => { dragFrom = -1; });
  $('form').addEventListener('input', onFormInput);
  $('form').addEventListener('change', onFormChange);
  $('form').addEventListener('click', ev => {
    const e = formFor !== null ? entityOf(formFor) : null;
    if (!e) return;
    if (ev.target.classList.contains('arg-del')) { deleteArgAt(e, +ev.target.closest('tr').dataset.index); refreshForm(); }
    if (ev.target.id === 'arg-add') {
      const { map } = argsMapOf(e);
      const have = new Set(map ? map.items.map(Y.keyName) : Object.keys(paramsOf(leafLike(e)).args || {}));
      let k = 1;
      while (have.has(`arg${k}`)) k++;
      setArg(e, `arg${k}`, 0);
      refreshForm();
    }
  });
  $('palette').addEventListener('click', ev => {
    const b = ev.target.closest('button.pal');
    if (b) addFromPalette(b);
  });
  $('errors').addEventListener('click', ev => {
    const li = ev.target.closest('li');
    if (li && +li.dataset.at >= 0) select(+li.dataset.at, true);
  });
  $('yaml-details').addEventListener('toggle', () => { if ($('yaml-details').open) $('yaml-text').value = S.text; });
  $('yaml-text').addEventListener('input', () => {
    const sp = textareaSplice(S.text, $('yaml-text').value);
    if (sp) commit([sp], 'yaml-text');
  });
  $('yaml-text').addEventListener('blur', () => { S.lastCoalesce = null; });
  // the keyboard on the drawing: arrows walk the visible nodes, left/right fold, Enter edits
  $('canvas-wrap').addEventListener('keydown', ev => {
    if (!S.view || /INPUT|SELECT|TEXTAREA|BUTTON/.test(ev.target.tagName) && !ev.target.classList.contains('box')) return;
    const visible = () => S.view.els.map((el, i) => [el, i]).filter(([el]) => el && el.offsetParent !== null).map(([, i]) => i);
    const i = S.selected;
    let to = -1;
    if (ev.key === 'ArrowDown' || ev.key === 'ArrowUp') {
      const v = visible();
      const k = v.indexOf(i);
      to = v[Math.max(0, Math.min(v.length - 1, k < 0 ? 0 : k + (ev.key === 'ArrowDown' ? 1 : -1)))];
    } else if (ev.key === 'ArrowLeft' && i >= 0) {
      const el = S.view.els[i];
      if (el.classList.contains('has-kids') && !el.classList.contains('collapsed')) { S.collapsed.add(S.nodes[i].id); setCollapsed(el, true); }
      else to = S.nodes[i].parent;
    } else if (ev.key === 'ArrowRight' && i >= 0) {
      S.collapsed.delete(S.nodes[i].id);
      setCollapsed(S.view.els[i], false);
    } else if (ev.key === 'Enter' && i >= 0) {
      const f = $('form').querySelector('input:not([disabled]),select');
      if (f) { ev.preventDefault(); f.focus(); }
      return;
    } else return;
    ev.preventDefault();
    if (to >= 0) { select(to); S.view.els[to].firstElementChild.focus({ preventScroll: true }); S.view.els[to].firstElementChild.scrollIntoView({ block: 'nearest' }); }
  });
  $('save').onclick = () => save();
  $('undo').onclick = undo;
  $('redo').onclick = redo;
  $('move-up').onclick = () => moveBy(-1);
  $('move-down').onclick = () => moveBy(1);
  $('delete').onclick = deleteSelected;
  $('wrap').onclick = wrapSelected;
  $('bp-toggle').onclick = () => { if (S.selected >= 0) toggleBreakpoint(S.selected); };
  $('bp-clear').onclick = clearAllBreakpoints;
  $('disk-reload').onclick = () => loadFile(true).then(read => { if (read) scheduleCheck(0); });
  $('disk-dismiss').onclick = () => { $('disk-banner').hidden = true; };
  $('conflict-overwrite').onclick = () => save(true);
  $('conflict-reload').onclick = () => loadFile(true).then(read => { if (read) scheduleCheck(0); });
  $('conflict-cancel').onclick = () => { $('conflict-banner').hidden = true; };
  let searchTimer = 0;
  $('search').addEventListener('input', () => { clearTimeout(searchTimer); searchTimer = setTimeout(() => runSearch(true), 150); });
  $('search').addEventListener('keydown', ev => { if (ev.key === 'Enter') { ev.preventDefault(); if (matches.length) nextMatch(); else runSearch(true); } });
  $('collapse-all').onclick = collapseAll;
  $('expand-all').onclick = expandAll;
  $('zoom-in').onclick = () => setZoom(S.zoom * 1.25);
  $('zoom-out').onclick = () => setZoom(S.zoom / 1.25);
  $('zoom-fit').onclick = zoomFit;
  $('agent-picker').onchange = () => refresh();
  $('pause').onclick = () => control('pause');
  $('step').onclick = () => control('step');
  $('resume').onclick = () => control('resume');
  $('blackboard').addEventListener('change', ev => {
    const tr = ev.target.closest('tr');
    if (tr) setBlackboard(tr.dataset.key, ev.target.value);
  });
  document.addEventListener('keydown', ev => {
    const mod = ev.ctrlKey || ev.metaKey;
    const k = ev.key.toLowerCase();
    if (mod && k === 's') { ev.preventDefault(); save(); }
    else if (mod && k === 'z' && !ev.shiftKey) { ev.preventDefault(); undo(); }
    else if (mod && ((k === 'z' && ev.shiftKey) || k === 'y')) { ev.preventDefault(); redo(); }
    else if (mod && k === 'f') { ev.preventDefault(); $('search').focus(); }
    else if (ev.key === 'Delete' && !/INPUT|SELECT|TEXTAREA/.test(document.activeElement.tagName)) deleteSelected();
  });
  window.addEventListener('beforeunload', ev => { if (S.text !== S.savedText) { ev.preventDefault(); ev.returnValue = ''; } });
}

async function main() {
  wire();
  const [sch] = await Promise.all([api('/api/schemas'), loadFile()]);
  allSchemas = sch.body || {};
  const first = (S.doc && isMap(S.doc.contents)) ? ['tree', 'fsm', 'machine'].find(k => S.doc.contents.has(k)) : null;
  S.type = first || 'tree';
  setupSchemas();
  const t0 = performance.now();
  const r = await api('/api/check', { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: S.text });
  S.checkMs = performance.now() - t0;
  if (r.body && r.body.ok) {
    S.nodes = r.body.nodes;
    S.offsets = S.nodes.map(n => Y.offsetOf(S.starts, S.text, n.line, n.column));
    initialCollapse();
  }
  applyCheck(r.body || { ok: false, errors: [{ text: 'the check failed', severity: 'error' }] }, S.text);
  if (!S.view) rebuild();
  S.firstRenderMs = performance.now() - t0;
  document.body.dataset.ready = 'true';
  setInterval(pollDisk, 1000);
  if (S.attach) startAttach();
}
main().catch(e => { status('the editor failed to start: ' + e.message, 'bad'); console.error(e); });
