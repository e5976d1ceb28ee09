// A drawing for a brain that has never loaded in this session (opened broken): its nodes read
// from the YAML itself, with the compiler's ids (names, or paths from the root), so that the
// errors can be shown at their nodes and the nodes edited until the loader accepts the file.
// Once a check passes, the loader's own node list replaces this one.
import { isMap, isSeq, isScalar } from '/yaml/index.js';

const PARTS = ['enter', 'exit', 'reason', 'act'];

export function nodesFromYaml(doc, kinds, schemas, path) {
  const nodes = [], offsets = [];
  const root = doc.contents;
  if (!isMap(root)) return { nodes, offsets };
  const add = (id, kind, label, parent, off, params = '') => {
    nodes.push({ id, kind, label, params, parent, links: [], file: path, line: 0, column: 0 });
    offsets.push(off);
    return nodes.length - 1;
  };
  const str = n => (isScalar(n) ? String(n.value) : '');
  const leafOf = v => (isScalar(v) ? str(v) : isMap(v) ? str(v.get('leaf', true)) || (v.has('check') ? str(v.get('check', true)) : '') : '');
  const node = (m, path, parent) => {
    if (!isMap(m) || m.items.length !== 1) return;
    const p = m.items[0];
    const kind = str(p.key);
    if (!kinds.has(kind)) return;
    const v = p.value;
    const name = isMap(v) && isScalar(v.get('name', true)) ? str(v.get('name', true)) : '';
    const shape = schemas.shape(kind);
    const isDecoratorShort = isMap(v) && v.items.length === 1 && kinds.has(str(v.items[0].key));
    const leaf = shape === 'leaf' || kind === 'action' || kind === 'condition' ? leafOf(v) : '';
    const i = add(name || path, kind, leaf ? `${kind} ${leaf}` : kind, parent, v && v.range ? v.range[0] : m.range[0]);
    let kids = [];
    if (isSeq(v)) kids = v.items;
    else if (isMap(v) && !isDecoratorShort) {
      for (const k of ['conditions', 'children', 'do']) { const c = v.get(k, true); if (isSeq(c)) kids = kids.concat(c.items); }
      const c = v.get('child', true);
      if (c) kids = [c];
    } else if (isDecoratorShort) kids = [v];
    kids.forEach((c, k) => node(c, `${path}/${k}`, i));
  };
  const type = ['tree', 'fsm', 'machine'].find(k => root.has(k));
  if (type === 'tree') {
    const r = root.get('root', true);
    node(r, 'root', -1);
  } else if (type === 'fsm') {
    const top = add('root', 'fsm', `fsm ${str(root.get('fsm', true))}`, -1, root.range[0]);
    const states = (map, parent) => {
      if (!isMap(map)) return;
      for (const p of map.items) {
        const s = str(p.key), v = p.value;
        const i = add(s, 'state', `state ${s}`, parent, p.key.range[0]);
        if (!isMap(v)) continue;
        const ei = v.get('enter_if', true);
        if (ei && ei.range) add(`${s}/enter_if`, 'check', `check ${leafOf(ei)}`, i, ei.range[0]);
        for (const part of PARTS) {
          const x = v.get(part, true);
          if (x && x.range) add(`${s}/${part}`, 'action', `action ${leafOf(x)}`, i, x.range[0]);
        }
        const t = v.get('tree', true);
        if (isMap(t)) node(t, `${s}/tree`, i);
        const w = v.get('when', true);
        if (isSeq(w)) w.items.forEach((e, k) => {
          const first = isMap(e) && e.items[0] && e.items[0].value;
          if (first && first.range) add(`${s}/when/${k}`, 'check', 'when', i, first.range[0]);
        });
        states(v.get('states', true), i);
      }
    };
    states(root.get('states', true), top);
  } else if (type === 'machine') {
    const top = add('root', 'machine', `machine ${str(root.get('machine', true))}`, -1, root.range[0]);
    const list = root.get('behaviors', true);
    if (isSeq(list)) for (const b of list.items) {
      if (!isMap(b)) continue;
      const name = str(b.get('name', true));
      const c = b.get('check', true), r = b.get('run', true);
      if (c && c.range) add(`${name}/check`, 'condition', `condition ${leafOf(c)}`, top, c.range[0]);
      if (r && r.range) add(name, 'action', `action ${leafOf(r)}`, top, r.range[0]);
    }
  }
  return { nodes, offsets };
}
