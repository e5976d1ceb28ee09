// The brain drawn as an outline of boxes with connectors: a tree as a tree, an fsm as nested
// states (their enter/exit/reason/act parts, `when` entries and trees inside them, transitions
// as chips naming their targets), a machine as its behaviors (check, then run). Built once per
// structure change as one HTML string; statuses, errors and search only toggle classes.

const esc = s => String(s).replace(/[&<>"']/g, c => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
const isPathId = id => id === 'root' || /^root\//.test(id) || /\/(\d+|enter|exit|reason|act|tree|check|enter_if|when\/\d+)$/.test(id) || /\/transitions\//.test(id);

// The part of a state (or behavior) a node is, from its id: patrol/enter, engage/when/0, ...
const ROLE = /\/(enter|exit|reason|act|tree|enter_if|when\/\d+|check|transitions\/[^/]+)$/;

// nodes: /api/check's list; returns {els, children, depth}. collapseBelow: nodes at this depth
// with children start collapsed (their children hidden, still in the DOM).
export function renderBrain(container, nodes, { collapsed, editableFile, bps }) {
  const children = nodes.map(() => []);
  const depth = new Array(nodes.length).fill(0);
  nodes.forEach((n, i) => { if (n.parent >= 0) { children[n.parent].push(i); depth[i] = depth[n.parent] + 1; } });
  const out = [];
  const emit = i => {
    const n = nodes[i];
    const kids = children[i];
    const readonly = editableFile && n.file && n.file !== editableFile;
    const closed = kids.length && collapsed.has(n.id);
    const rest = n.label.startsWith(n.kind) ? n.label.slice(n.kind.length).trim() : n.label;
    const name = isPathId(n.id) ? '' : n.id;
    const cls = ['node', 'k-' + n.kind, kids.length ? 'has-kids' : 'leaf', closed ? 'collapsed' : '', readonly ? 'readonly' : '',
      bps && bps.has(n.id) ? 'bp-on' : ''].filter(Boolean).join(' ');
    out.push(`<div class="${cls}" data-node-id="${esc(n.id)}" data-index="${i}" role="treeitem"${kids.length ? ` aria-expanded="${!closed}"` : ''}>`);
    out.push(`<div class="box" tabindex="-1" draggable="${readonly || n.parent < 0 ? 'false' : 'true'}">`);
    out.push(kids.length ? `<button class="twisty" tabindex="-1" aria-label="collapse or expand">${closed ? '▸' : '▾'}</button>` : '<span class="twisty-pad"></span>');
    const role = ROLE.exec(n.id);
    if (role) out.push(`<span class="role">${esc(role[1].replace(/\/\d+$/, '').replace(/^transitions\/.*/, 'guard'))}</span>`);
    out.push(`<span class="kind">${esc(n.kind)}</span>`);
    if (rest && rest !== name) out.push(`<span class="label">${esc(rest)}</span>`);
    if (name) out.push(`<span class="name">${esc(name)}</span>`);
    if (n.params && !(n.kind === 'check' && n.params === `check: ${rest}`)) out.push(`<span class="params">${esc(n.params)}</span>`);
    if (n.links && n.links.length && n.kind !== 'condition' && n.kind !== 'check') {  // a machine's check: its behavior's name is its box's
      out.push('<span class="links">');
      for (const l of n.links) {
        const to = nodes[l.to] ? nodes[l.to].id : '?';
        out.push(`<span class="link" data-to="${l.to}">${esc(l.label)} → ${esc(to)}</span>`);
      }
      out.push('</span>');
    }
    if (readonly) out.push(`<span class="ro" title="from ${esc(n.file)} (read-only here)">imported</span>`);
    out.push(`<button class="bp" tabindex="-1" title="breakpoint" aria-label="breakpoint"></button>`);
    out.push('<div class="err-text"></div></div>');
    if (kids.length) {
      out.push(`<div class="children"${closed ? ' hidden' : ''}>`);
      for (let k = 0; k < kids.length; k++) {
        const c = kids[k], next = kids[k + 1];
        // a machine's behavior: its check, then what it runs
        if (n.kind === 'machine' && next !== undefined && nodes[c].id === nodes[next].id + '/check') {
          out.push(`<div class="behavior"><div class="bhead">behavior <b>${esc(nodes[next].id)}</b></div>`);
          emit(c);
          emit(next);
          out.push('</div>');
          k++;
        } else emit(c);
      }
      out.push('</div>');
    }
    out.push('</div>');
  };
  nodes.forEach((n, i) => { if (n.parent < 0) emit(i); });
  container.innerHTML = out.join('');
  const els = new Array(nodes.length);
  for (const el of container.querySelectorAll('.node')) els[+el.dataset.index] = el;
  return { els, children, depth };
}

export function setCollapsed(el, closed) {
  if (!el || !el.classList.contains('has-kids')) return;
  el.classList.toggle('collapsed', closed);
  el.setAttribute('aria-expanded', String(!closed));
  const kids = el.lastElementChild;
  if (kids && kids.classList.contains('children')) kids.hidden = closed;
  const tw = el.firstElementChild.firstElementChild;
  if (tw && tw.classList.contains('twisty')) tw.textContent = closed ? '▸' : '▾';
}

// Opens every collapsed ancestor of node i.
export function reveal(view, nodes, i, collapsed) {
  for (let p = nodes[i] ? nodes[i].parent : -1; p >= 0; p = nodes[p].parent) {
    if (collapsed.has(nodes[p].id)) { collapsed.delete(nodes[p].id); setCollapsed(view.els[p], false); }
  }
}
