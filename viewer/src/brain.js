// brain.js: the side panel of the selected agent: its brain drawn as a tree (an fsm's states
// and a machine's behaviors are nodes too, with their transitions and checks drawn as links),
// each node coloured by the status it last returned at the current tick, its blackboard keys
// and its last events. Redrawn only when the agent, the tick's node string or the brain changes.
'use strict';

const NODE_STATUS = {
  R: ['running', '#e0a030'], S: ['success', '#3fae5a'], F: ['failure', '#d9503f'], '.': ['not ticked', '#4a505c'],
};
const SVG_NS = 'http://www.w3.org/2000/svg';

function svgElement(name, attrs, parent) {
  const e = document.createElementNS(SVG_NS, name);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}

// One event as a line of the panel (fields as in docs/record-format.md).
function describeEvent(e) {
  const v = x => (x === null || x === undefined ? '–' : x);
  switch (e[0]) {
    case 'abort': return `abort in ${v(e[3])}: ${v(e[4])} ${v(e[6])}→${v(e[7])} stops ${v(e[5])}`;
    case 'transition': return `${v(e[3])}: ${e[4] === null ? 'enters' : e[4] + ' →'} ${v(e[5])}${e[6] ? ' (' + e[6] + ')' : ''}`;
    case 'switch': return `${v(e[3])}: ${e[4] === null ? 'starts' : e[4] + ' →'} ${v(e[5])}`;
    case 'damage': return `damage ${v(e[2])} → ${v(e[3])}: ${v(e[4])}`;
    case 'signal': return `signal ${v(e[2])} → ${v(e[3])}: ${v(e[4])}`;
    case 'death': return `agent ${v(e[2])} dies`;
    // Who perceived what: a sight of agent 3 listed in agent 3's panel read as agent 3 seeing itself.
    case 'percept': return `agent ${v(e[2])} ${v(e[3])} ${v(e[4])}: ${v(e[5])} ${v(e[6])}`;
    case 'take': return `agent ${v(e[3])} takes ${v(e[2])}`;
    default: return `${e[0]} ${e.slice(2).map(v).join(' ')}`;
  }
}

class BrainPanel {
  constructor(root, record) {
    this.root = root;
    this.record = record;
    this.key = '';
    this.treeKey = '';
    this.nodeRects = [];
  }

  // Shows agent `id` at frame index fi (id -1: nothing selected).
  update(id, fi) {
    const rec = this.record, f = rec.frames[fi];
    const i = id >= 0 && f ? rec.indexOf(f, id) : -1;
    const key = `${id}:${fi}:${i}`;
    if (key === this.key) return;
    this.key = key;
    const info = this.root.querySelector('#agent-info');
    const tree = this.root.querySelector('#brain-tree');
    const keys = this.root.querySelector('#agent-keys');
    const events = this.root.querySelector('#agent-events');
    if (id < 0) {
      info.textContent = 'Click an agent to see its brain.';
      tree.replaceChildren(); keys.replaceChildren(); events.replaceChildren();
      this.treeKey = ''; this.nodeRects = [];
      this.root.dataset.agent = '';
      return;
    }
    this.root.dataset.agent = String(id);
    if (i < 0) {
      info.textContent = `agent ${id}: not in this tick (not yet recorded, or dead)`;
      keys.replaceChildren();
      this.showEvents(events, id, fi);
      this.paintTree('');
      return;
    }
    const h = rec.header, g = h.groups[f.group[i]] || {};
    const brains = rec.brainsOf(f), brain = brains[g.brain] || { nodes: [] };
    info.replaceChildren();
    const title = document.createElement('div');
    title.className = 'agent-title';
    const swatch = document.createElement('span');
    swatch.className = 'swatch';
    swatch.style.background = rgb(teamColor(g.team || 0));
    title.append(swatch, `agent ${id}`);
    const facts = document.createElement('div');
    facts.className = 'agent-facts';
    facts.textContent = `${h.teams[g.team] ?? 'team ' + g.team} · ${g.name ?? 'group ' + f.group[i]} · ` +
      `${brain.name ?? ''} (${brain.type ?? '?'}) · ${STATUS_NAMES[f.status[i]]}${f.alive[i] ? '' : ' · died'}\n` +
      `at ${f.x[i].toFixed(2)}, ${f.y[i].toFixed(2)} heading ${f.heading[i].toFixed(2)}`;
    info.append(title, facts);
    // An fsm's active state path (SPEC 4.1): its running states, outermost first.
    const nodeString = rec.strings[f.nodes[i]] || '';
    const path = (brain.nodes || []).filter((n, k) => n.kind === 'state' && nodeString[k] === 'R').map(n => n.id);
    if (path.length) {
      const active = document.createElement('div');
      active.className = 'agent-facts active-states';
      active.textContent = `states: ${path.join(' › ')}`;
      info.append(active);
    }

    const treeKey = `${f.brains}:${g.brain}`;
    if (treeKey !== this.treeKey) {
      this.treeKey = treeKey;
      this.drawTree(tree, brain);
    }
    this.paintTree(rec.strings[f.nodes[i]]);

    keys.replaceChildren();
    h.keys.forEach((name, k) => {
      const tr = document.createElement('tr');
      const a = document.createElement('td'), b = document.createElement('td');
      a.textContent = name;
      const v = rec.keyValue(f, i, k);
      b.textContent = v === null ? '—' : typeof v === 'number' ? String(+v.toFixed(3)) : JSON.stringify(v);
      tr.append(a, b);
      keys.append(tr);
    });
    this.showEvents(events, id, fi);
  }

  showEvents(list, id, fi) {
    list.replaceChildren();
    for (const e of this.record.lastEvents(id, fi, 12)) {
      const li = document.createElement('li');
      li.textContent = `${e[1]}: ${describeEvent(e)}`;
      list.append(li);
    }
  }

  // The tree, one row per node in depth-first order, indented by depth, with elbow lines
  // from parent to child; links (transitions, checks) as dashed arcs on the right.
  drawTree(container, brain) {
    const nodes = brain.nodes || [];
    const rowH = 22, indent = 16, boxH = 17;
    const depth = nodes.map(() => 0);
    nodes.forEach((n, i) => { depth[i] = n.parent >= 0 && n.parent < i ? depth[n.parent] + 1 : 0; });
    const labelW = nodes.map(n => 8 + 6.4 * String(n.label ?? n.id).length);
    const right = Math.max(160, ...nodes.map((n, i) => 6 + depth[i] * indent + labelW[i]));
    const linkCount = nodes.reduce((a, n) => a + (n.links ? n.links.length : 0), 0);
    const width = right + 14 + Math.min(linkCount, 12) * 10 + 20;
    const height = nodes.length * rowH + 8;
    const svg = svgElement('svg', { width, height, viewBox: `0 0 ${width} ${height}`, class: 'tree' });
    const defs = svgElement('defs', {}, svg);
    const marker = svgElement('marker', { id: 'arrow', viewBox: '0 0 6 6', refX: 5, refY: 3,
      markerWidth: 6, markerHeight: 6, orient: 'auto-start-reverse' }, defs);
    svgElement('path', { d: 'M0,0 L6,3 L0,6 z', fill: '#9aa3b5' }, marker);
    const yOf = i => 4 + i * rowH + boxH / 2;
    const xOf = i => 6 + depth[i] * indent;
    nodes.forEach((n, i) => {
      if (n.parent >= 0 && n.parent < i) {
        const px = xOf(n.parent) + 5, py = yOf(n.parent) + boxH / 2;
        svgElement('path', { d: `M${px},${py} V${yOf(i)} H${xOf(i)}`, class: 'edge' }, svg);
      }
    });
    let lane = 0;
    nodes.forEach((n, i) => {
      for (const [target, label] of n.links || []) {
        if (!(target >= 0 && target < nodes.length)) continue;
        const x = right + 14 + (lane++ % 12) * 10;
        const y0 = yOf(i), y1 = yOf(target);
        const p = svgElement('path', {
          d: `M${xOf(i) + labelW[i]},${y0} H${x} V${y1} H${xOf(target) + labelW[target] + 2}`,
          class: 'link', 'marker-end': 'url(#arrow)' }, svg);
        svgElement('title', {}, p).textContent = `${n.id} → ${nodes[target].id}: ${label}`;
      }
    });
    this.nodeRects = nodes.map((n, i) => {
      const gEl = svgElement('g', { class: 'node', 'data-index': i, 'data-id': n.id }, svg);
      const rect = svgElement('rect', { x: xOf(i), y: yOf(i) - boxH / 2, width: labelW[i], height: boxH, rx: 3 }, gEl);
      const text = svgElement('text', { x: xOf(i) + 4, y: yOf(i) + 4 }, gEl);
      text.textContent = n.label ?? n.id;
      svgElement('title', {}, gEl).textContent =
        `${n.id} (${n.kind})${n.params ? '\n' + n.params : ''}`;
      return gEl;
    });
    container.replaceChildren(svg);
  }

  paintTree(nodeString) {
    this.nodeRects.forEach((gEl, k) => {
      const c = nodeString[k] ?? '.';
      const [name, colour] = NODE_STATUS[c] || NODE_STATUS['.'];
      gEl.dataset.status = name;
      gEl.firstChild.setAttribute('fill', colour);
    });
  }

  // For tests: the drawn nodes with their statuses.
  nodes() {
    return this.nodeRects.map(g => ({ id: g.dataset.id, status: g.dataset.status }));
  }
}
